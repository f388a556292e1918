"""Checks shared by the tests of single transition systems (``test_system_*.py``).

- the papers' example sentences (Nivre 2008 Figures 1-2, Nivre 2009 Figure 1);
- :func:`replay`: a transition sequence printed in a paper, step by step, against
  the system's transitions (configuration after each step) and its oracle;
- :func:`rebuild`, :func:`nearest_projective`: the oracle on
  a gold tree inside, or outside, the system's class;
- :func:`check_lost_arc_is_named`, :func:`check_oracle_keeps_no_state`: the oracle
  off its path, and asked twice;
- :func:`random_legal_run`: random legal transitions to a terminal state, and what
  the built forest must satisfy; :func:`crossing_free` for planes of arcs;
- :func:`treebank_oracle`: the oracle over every sentence of a CoNLL-U file.

Random gold trees come from :mod:`random_trees`.
"""

from __future__ import annotations

import random

import pytest

from barley import conllu
from barley.systems import OracleError, run_oracle
from barley.systems.base import OracleRun, projective_target
from barley.tree import check_tree, is_projective, planarity

# Nivre 2008, Figure 2 (Penn Treebank): "Economic news had little effect on financial markets ."
ENGLISH_HEADS = [-1, 2, 3, 0, 5, 3, 5, 8, 6, 3]
ENGLISH_LABELS = ["", "NMOD", "SBJ", "ROOT", "NMOD", "OBJ", "NMOD", "NMOD", "PMOD", "P"]
# Nivre 2008, Figure 1 (Prague Dependency Treebank): "Z nich je jen jedna na kvalitu ."
# A1 = {(0,Pred,3), (0,AuxK,8), (1,Atr,2), (3,Sb,5), (3,AuxP,6), (5,AuxP,1), (5,AuxZ,4), (6,Adv,7)}
CZECH_HEADS = [-1, 5, 1, 0, 5, 3, 3, 6, 0]
CZECH_LABELS = ["", "AuxP", "Atr", "Pred", "AuxZ", "Sb", "AuxP", "Adv", "AuxK"]
# Nivre 2009, Figure 1: "A hearing is scheduled on the issue today ." Non-projective: the
# arc hearing2 → on5 spans is3 and scheduled4, the arc scheduled4 → today8 spans on5..issue7.
HEARING_HEADS = [-1, 2, 3, 0, 3, 2, 7, 5, 4, 3]
HEARING_LABELS = ["", "DET", "SBJ", "ROOT", "VG", "NMOD", "DET", "PC", "ADV", "P"]


def label_ids(names: list[str]) -> tuple[list[int], dict[str, int]]:
    ids: dict[str, int] = {}
    return [-1] + [ids.setdefault(name, len(ids)) for name in names[1:]], ids


def gold_labels(heads: list[int]) -> list[int]:
    """Label ids: 0 for root words, else 1 + the distance class (any labels will do)."""
    return [-1] + [0 if heads[d] == 0 else 1 + min(abs(heads[d] - d), 3) for d in range(1, len(heads))]


def stack_and_buffer(state):
    """The configuration of a stack-based system, as the papers print it: (σ, β)."""
    return list(state.stack), list(state.buffer)


def replay(system, heads, label_names, steps, configuration) -> None:
    """Follow ``steps`` = [(move, label or None, expected configuration, new arc or None)].

    At each step the oracle must choose the printed transition, and after applying
    it the configuration (``configuration(state)``) and the arcs must be the printed
    ones. The state must be terminal after the last step.
    """
    labels, ids = label_ids(label_names)
    names = {i: name for name, i in ids.items()}
    state = system.initial(len(heads) - 1)
    oracle = system.oracle(heads, labels)
    arcs: set[tuple[int, str, int]] = set()
    for number, (move, label, expected, arc) in enumerate(steps, 1):
        where = f"step {number} ({move} {label or ''})"
        assert not system.is_terminal(state), f"terminal before {where}"
        action = (system.move(move), ids[label] if label else -1)
        assert oracle(state) == action, f"{where}: the oracle chose {oracle(state)}"
        assert system.legal(state)[action[0]], f"{where}: not legal"
        system.apply(state, *action)
        assert configuration(state) == expected, f"{where}: {configuration(state)} != {expected}"
        if arc:
            arcs.add(arc)
        built = {(state.heads[d], names[state.labels[d]], d) for d in range(1, state.n + 1) if state.has_head(d)}
        assert built == arcs, f"{where}: arcs {sorted(built)} != {sorted(arcs)}"
    assert system.is_terminal(state), "not terminal after the last printed step"


def rebuild(system, heads: list[int]) -> OracleRun:
    """The oracle's run on a gold tree of the system's class, which it must rebuild."""
    run = run_oracle(system, heads, gold_labels(heads))
    assert run.reproduced, f"gold {heads}, built {run.heads}"
    return run


def nearest_projective(system, heads: list[int]) -> OracleRun:
    """The run of a projective system's oracle on any tree: the tree itself if it is
    projective, else its nearest projective tree (:func:`projective_target`)."""
    run = run_oracle(system, heads, gold_labels(heads))
    assert run.reproduced == is_projective(heads)
    assert run.heads == projective_target(heads) and run.labels == gold_labels(heads)
    return run



def check_lost_arc_is_named(system, heads: list[int], detour: tuple[str, ...], match: str) -> None:
    """An oracle pushed off its path by the moves ``detour`` (a stand-in for a bug; label
    0 for arcs) raises an :class:`OracleError` matching ``match``, naming the gold arc
    it can no longer build, instead of building another tree silently."""
    n = len(heads) - 1
    state = system.initial(n)
    next_action = system.oracle(heads, [-1] + [0] * n)
    for move in detour:
        system.apply(state, system.move(move), 0)
    with pytest.raises(OracleError, match=match):
        while not system.is_terminal(state):
            system.apply(state, *next_action(state))


def check_oracle_keeps_no_state(system, heads: list[int]):
    """Asked twice about one configuration, the oracle answers the same (it may be
    consulted without its answer being followed, e.g. to explore). Returns the
    terminal state it leads to."""
    n = len(heads) - 1
    state = system.initial(n)
    next_action = system.oracle(heads, [-1] + [0] * n)
    while not system.is_terminal(state):
        action = next_action(state)
        assert next_action(state) == action
        system.apply(state, *action)
    return state


def random_legal_run(system, n: int, seed: int):
    """Random legal transitions (random labels) from the initial state to a terminal one.

    Checks that the arcs built form a forest (no cycle; one head per word by
    construction), projective if the system is, with one root word when
    ``single_root``; and that after finalize the state holds a well-formed tree.
    Returns the heads built by the transitions (before finalize) and the final state.
    """
    rng = random.Random(seed)
    state = system.initial(n)
    while not system.is_terminal(state):
        legal = [move for move, ok in enumerate(system.legal(state)) if ok]
        assert legal, f"{system.name}: no legal transition in a non-terminal state"
        move = rng.choice(legal)
        system.apply(state, move, rng.randrange(4) if system.labeled[move] else -1)
        assert state.transitions <= 2 * (n + 1) ** 2, f"{system.name}: no end in sight"
    built = list(state.heads)
    system.finalize(state, 0)

    forest = [-1] + [0 if h == -1 else h for h in built[1:]]  # roots hang from 0: changes no property
    assert check_tree(forest) is None, f"{system.name} built a cycle: {built}"
    if system.tree_class == "projective":
        assert is_projective(forest), f"{system.name} built a non-projective arc: {built}"
    if system.single_root:
        assert built[1:].count(0) <= 1, f"{system.name} attached several words to 0: {built}"
    assert check_tree(state.heads, single_root=system.single_root) is None, f"finalize gave {state.heads}"
    assert all(sorted(state.children[h]) == [d for d in range(1, state.n + 1) if state.heads[d] == h]
               for h in range(state.n + 1)), "children out of step with heads"
    return built, state


def crossing_free(arcs: list[tuple[int, int]]) -> bool:
    """Brute force: no two of ``arcs`` cross (Gómez-Rodríguez & Nivre 2010 §2.3)."""
    spans = [tuple(sorted(arc)) for arc in arcs]
    return not any(a < c < b < e for a, b in spans for c, e in spans)


PLANES = {"planar": 1, "2-planar": 2}  # root arcs left out (Gómez-Rodríguez & Nivre 2010)


def in_class(heads: list[int], tree_class: str) -> bool:
    """Is the tree in the class a system declares (its ``tree_class``)?"""
    if tree_class == "any":
        return True
    if tree_class == "projective":
        return is_projective(heads)
    return planarity(heads)[0] <= PLANES[tree_class]


def treebank_oracle(system, name: str = "la_perseus-ud-train.conllu") -> tuple[int, int, int, list]:
    """Run the oracle over every sentence of the shared UD file ``name`` (single-root
    trees; the test is skipped when it is absent).

    Returns (sentences, sentences in the system's class, rebuilt sentences, the
    actions of each sentence), and checks on the way that the output is always a
    single-rooted tree and that a sentence is rebuilt exactly when it is in the class.
    """
    from conftest import ud_file

    path = ud_file(name)
    sentences = inside = rebuilt = 0
    actions = []
    ids = {"root": 0}
    for sentence in conllu.read(path):
        heads = sentence.heads().tolist()
        labels = [-1] + [ids.setdefault(deprel, len(ids)) for deprel in sentence.deprels()[1:]]
        member = in_class(heads, system.tree_class)
        run = run_oracle(system, heads, labels, root_label=0)
        where = f"{path.name} line {sentence.line}"
        assert run.reproduced == member, f"{system.name} {where}: rebuilt {run.reproduced}, in class {member}"
        assert check_tree(run.heads, single_root=True) is None, f"{system.name} {where}: {run.heads}"
        sentences += 1
        inside += member
        rebuilt += run.reproduced
        actions.append(run.actions)
    return sentences, inside, rebuilt, actions
