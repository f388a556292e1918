"""Checks shared by the tests of single transition systems (``test_system_*.py``).

- :func:`replay`: a transition sequence printed in a paper, step by step, against
  the system's transitions (configuration after each step) and its oracle;
- :func:`projective_tree`, :func:`any_tree`: random gold trees (for hypothesis);
- :func:`random_legal_run` and :func:`check_sound`: random legal transitions to a
  terminal state, and what the built forest must satisfy;
- :func:`treebank_oracle`: the oracle over every sentence of a CoNLL-U file.
"""

from __future__ import annotations

import random
import time

from barley import conllu
from barley.systems import run_oracle
from barley.tree import check_tree, is_projective

# Nivre 2008, Figure 2 (Penn Treebank): "Economic news had little effect on financial markets ."
ENGLISH_HEADS = [-1, 2, 3, 0, 5, 3, 5, 8, 6, 3]
ENGLISH_LABELS = ["", "NMOD", "SBJ", "ROOT", "NMOD", "OBJ", "NMOD", "NMOD", "PMOD", "P"]
# Nivre 2008, Figure 1 (Prague Dependency Treebank): "Z nich je jen jedna na kvalitu ."
# A1 = {(0,Pred,3), (0,AuxK,8), (1,Atr,2), (3,Sb,5), (3,AuxP,6), (5,AuxP,1), (5,AuxZ,4), (6,Adv,7)}
CZECH_HEADS = [-1, 5, 1, 0, 5, 3, 3, 6, 0]
CZECH_LABELS = ["", "AuxP", "Atr", "Pred", "AuxZ", "Sb", "AuxP", "Adv", "AuxK"]


def label_ids(names: list[str]) -> tuple[list[int], dict[str, int]]:
    ids: dict[str, int] = {}
    return [-1] + [ids.setdefault(name, len(ids)) for name in names[1:]], ids


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


def projective_tree(draw_int, n: int, single_root: bool) -> list[int]:
    """A random projective tree: each head's dependents' subtrees split its span into
    consecutive blocks (every projective tree can come out). ``draw_int(lo, hi)``."""
    heads = [-1] * (n + 1)

    def attach(lo: int, hi: int, head: int) -> None:
        while lo <= hi:
            end = hi if single_root and head == 0 else draw_int(lo, hi)
            root = draw_int(lo, end)
            heads[root] = head
            attach(lo, root - 1, root)
            attach(root + 1, end, root)
            lo = end + 1

    attach(1, n, 0)
    return heads


def any_tree(draw_int, n: int, single_root: bool) -> list[int]:
    """A random tree: the words, in a random order, each attached to 0 or an earlier one."""
    order = list(range(1, n + 1))
    for k in range(n - 1, 0, -1):  # Fisher-Yates
        swap = draw_int(0, k)
        order[k], order[swap] = order[swap], order[k]
    heads = [-1] * (n + 1)
    for k, word in enumerate(order):
        attached = order[:k] if single_root and k else [0, *order[:k]]
        heads[word] = attached[draw_int(0, len(attached) - 1)]
    return heads


def gold_labels(heads: list[int]) -> list[int]:
    """Label ids: 0 for root words, else 1 + the distance class (any labels will do)."""
    return [-1] + [0 if heads[d] == 0 else 1 + min(abs(heads[d] - d), 3) for d in range(1, len(heads))]


def random_legal_run(system, n: int, rng: random.Random):
    """Random legal transitions (random labels) from the initial state to a terminal
    one; returns the heads built by the transitions (before finalize) and the state."""
    state = system.initial(n)
    while not system.is_terminal(state):
        legal = [move for move, ok in enumerate(system.legal(state)) if ok]
        assert legal, f"{system.name}: no legal transition in a non-terminal state"
        move = rng.choice(legal)
        system.apply(state, move, rng.randrange(4) if system.labeled[move] else -1)
        assert state.transitions <= 2 * (n + 1) ** 2, f"{system.name}: no end in sight"
    built = list(state.heads)
    system.finalize(state, 0)
    return built, state


def check_sound(system, built: list[int], state, projective: bool) -> None:
    """The arcs built form a forest (no cycle; one head per word by construction),
    projective if the system is, with one root word when ``single_root``; after
    finalize, a well-formed tree."""
    forest = [-1] + [0 if h == -1 else h for h in built[1:]]  # roots hang from 0: changes no property
    assert check_tree(forest) is None, f"{system.name} built a cycle: {built}"
    if projective:
        assert is_projective(forest), f"{system.name} built a non-projective arc: {built}"
    if system.single_root:
        assert built[1:].count(0) <= 1, f"{system.name} attached several words to 0: {built}"
    assert check_tree(state.heads, single_root=system.single_root) is None, f"finalize gave {state.heads}"
    assert all(sorted(state.children[h]) == [d for d in range(1, state.n + 1) if state.heads[d] == h]
               for h in range(state.n + 1)), "children out of step with heads"


def treebank_oracle(system, path) -> tuple[int, int, int, float]:
    """Run the oracle over every sentence of ``path`` (UD: single-root trees).

    Returns (sentences, projective sentences, rebuilt sentences, seconds), and checks
    on the way that the output is always a single-rooted tree and that a sentence is
    rebuilt exactly when it is in the system's class.
    """
    sentences = projective = rebuilt = 0
    seconds = 0.0
    ids = {"root": 0}
    for sentence in conllu.read(path):
        heads = sentence.heads().tolist()
        labels = [-1] + [ids.setdefault(deprel, len(ids)) for deprel in sentence.deprels()[1:]]
        inside = system.tree_class == "any" or is_projective(heads)
        start = time.perf_counter()
        run = run_oracle(system, heads, labels, root_label=0)
        seconds += time.perf_counter() - start
        where = f"{path.name} line {sentence.line}"
        assert run.reproduced == inside, f"{system.name} {where}: rebuilt {run.reproduced}, in class {inside}"
        assert check_tree(run.heads, single_root=True) is None, f"{system.name} {where}: {run.heads}"
        sentences += 1
        projective += is_projective(heads)
        rebuilt += run.reproduced
    return sentences, projective, rebuilt, seconds
