"""Dynamic oracles: the theorem, checked against brute force.

For every system with ``dynamic_oracle`` (exact transition costs, Goldberg & Nivre
2012, 2013): on random gold trees (n ≤ 7, projective and not) and random
configurations reached from the initial one by random legal transitions (mistakes
included), the cost of every action equals

    min over completions after it of the gold arcs lost
  − min over completions from the configuration of the gold arcs lost,

both minima found by exhaustive, memoised search over transition sequences. A lost
arc is a gold arc (h, l, d) whose d does not end with head h and label l (labeled
loss, the interface of :class:`barley.systems.base.Costs`). The gold tree is the
system's target: the tree itself for non-projective systems, the nearest projective
tree (the static oracle's) for projective ones.

Also: following zero-cost actions from the initial configuration rebuilds every
tree of the system's class (the static oracle's completeness, now for any choice
among the zero-cost actions), and, for every system whose ``costs`` may drive
exploration, each non-terminal configuration has a legal action of cost 0.
"""

from __future__ import annotations

import random

import pytest
from brute_force_oracle import NO_SHRINK, WRONG_LABEL, BruteForce, clone, key, random_configuration
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_trees import any_tree, draw_ints, projective_tree

from barley.errors import BarleyError
from barley.systems import REGISTRY, NoDynamicOracle, get_system
from barley.systems.base import projective_target
from barley.systems.stack_projective import RIGHT_ARC
from barley.systems.swap import SWAP
from barley.tree import is_projective

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

SYSTEMS = sorted(REGISTRY)
EXACT = [name for name in SYSTEMS if get_system(name).dynamic_oracle]
EXPLORING = [name for name in SYSTEMS if get_system(name).exploration_oracle]
ROOT_LABEL = 0
MAX_WORDS = {"covington-nonprojective": 5}  # its configurations grow fastest; 7 for the others


def target(system, heads):
    return list(heads) if system.tree_class == "any" else projective_target(heads)


def gold_tree(data, single_root: bool, max_words: int):
    n = data.draw(st.integers(1, max_words), label="n")
    draw = draw_ints(data)
    heads = any_tree(draw, n, single_root) if data.draw(st.booleans(), label="any") else \
        projective_tree(draw, n, single_root)
    labels = [-1] + [ROOT_LABEL if heads[d] == 0 else data.draw(st.integers(1, 3)) for d in range(1, n + 1)]
    return heads, labels


@pytest.mark.parametrize("single_root", [False, True], ids=["multi-root", "single-root"])
@pytest.mark.parametrize("name", EXACT)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], phases=NO_SHRINK)
@given(data=st.data())
def test_costs_are_the_brute_force_loss(name, single_root, data):
    system = get_system(name, single_root=single_root)
    heads, labels = gold_tree(data, single_root, MAX_WORDS.get(name, 7))
    costs = system.costs(heads, labels)
    brute = BruteForce(system, target(system, heads), labels)
    state = random_configuration(system, len(heads) - 1, data)
    if system.is_terminal(state):
        return
    here = brute.loss(state)
    per_move = costs(state)
    for move, ok in enumerate(system.legal(state)):
        assert (per_move[move] is None) == (not ok), f"{name}: cost {per_move[move]} for a move legal={ok}"
        if not ok:
            continue
        for label in {costs.label(state, move), WRONG_LABEL} if system.labeled[move] else {-1}:
            expected = brute.loss(brute.after(state, move, label)) - here
            got = costs.action_cost(state, move, label, per_move)
            assert got == expected, (f"{name}: {system.moves[move]} label {label} costs {got}, brute force "
                                     f"{expected}; gold {heads} / {labels}, state {key(state)}")


FAST = [name for name in EXACT if hasattr(get_system(name), "reference_move_costs")]


@pytest.mark.parametrize("single_root", [False, True], ids=["multi-root", "single-root"])
@pytest.mark.parametrize("name", FAST)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fast_costs_are_the_reference_costs(name, single_root, data):
    """Where a system computes its costs by a fast path, they equal its readable definition
    (which the brute-force test above checks on smaller trees), on larger trees too."""
    system = get_system(name, single_root=single_root)
    heads, labels = gold_tree(data, single_root, 14)
    aim = target(system, heads)
    fast, reference = system.move_costs(aim, labels), system.reference_move_costs(aim, labels)
    state = random_configuration(system, len(heads) - 1, data)
    if not system.is_terminal(state):
        assert fast(state) == reference(state), f"{name}: gold {heads}, state {key(state)}"


def follow_zero_costs(system, heads, labels, rng):
    """From the initial configuration, random zero-cost actions to the end."""
    costs = system.costs(heads, labels)
    state = system.initial(len(heads) - 1)
    while not system.is_terminal(state):
        zero = costs.zero_cost(state)
        assert zero, f"{system.name}: no zero-cost action in {key(state)} for gold {heads}"
        move, label = rng.choice(zero)
        system.apply(state, move, label if label != -1 or not system.labeled[move] else WRONG_LABEL)
    return state


@pytest.mark.parametrize("single_root", [False, True], ids=["multi-root", "single-root"])
@pytest.mark.parametrize("name", EXACT)
@settings(max_examples=40, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_zero_cost_actions_rebuild_the_tree(name, single_root, data, seed):
    system = get_system(name, single_root=single_root)
    heads, labels = gold_tree(data, single_root, 12)
    if system.tree_class == "projective" and not is_projective(heads):
        heads = projective_target(heads)
    state = follow_zero_costs(system, heads, labels, random.Random(seed))
    assert state.heads == heads and state.labels == labels, f"{name}: built {state.heads} for gold {heads}"


@pytest.mark.parametrize("name", SYSTEMS)
def test_costs_or_a_clear_error(name):
    system = get_system(name)
    heads, labels = [-1, 2, 0, 2], [-1, 1, ROOT_LABEL, 2]
    assert not system.dynamic_oracle or system.exploration_oracle, f"{name}: exact costs serve exploration too"
    if not system.exploration_oracle:
        with pytest.raises(NoDynamicOracle) as error:
            system.costs(heads, labels)
        assert isinstance(error.value, BarleyError) and name in str(error.value)
        return
    costs = system.costs(heads, labels)
    state = system.initial(3)
    while not system.is_terminal(state):
        per_move = costs(state)
        assert [cost is not None for cost in per_move] == system.legal(state), f"{name}: costs {per_move}"
        assert min(cost for cost in per_move if cost is not None) == 0
        system.apply(state, *costs.zero_cost(state)[0])
    assert state.heads == heads and state.labels == labels


def test_a_wrong_label_costs_one_more():
    system = get_system("arc-hybrid")
    costs = system.costs([-1, 2, 0], [-1, 5, ROOT_LABEL])
    state = system.initial(2)
    system.apply(state, 0)  # SHIFT 1
    left_arc = system.move("LEFT-ARC")
    assert costs.label(state, left_arc) == 5
    assert costs.action_cost(state, left_arc, 5) == 0 and costs.action_cost(state, left_arc, 4) == 1
    right_arc = system.move("RIGHT-ARC")  # 0 → 1: 1's head is 2, so lost whatever the label
    assert costs.label(state, right_arc) == -1
    assert costs.action_cost(state, right_arc, 5) == costs.action_cost(state, right_arc, 4) == 1


@pytest.mark.ud
@pytest.mark.parametrize("name", EXPLORING)
@pytest.mark.parametrize("file", ["en_ewt-ud-dev.conllu", "la_perseus-ud-test.conllu"])
def test_zero_cost_actions_rebuild_treebank_trees(name, file):
    """On real sentences (the first 300 of each file up to 40 words, the non-projective
    ones of Latin included; for arc-standard, whose exact oracle is slow, 100 up to 30
    words): random zero-cost actions rebuild the tree the system aims at."""
    from conftest import ud_file
    from gold_trees import read_gold

    system = get_system(name, single_root=True)
    rng = random.Random(12)
    problems = []
    longest, count = (30, 100) if name == "arc-standard" else (40, 300)
    for sent_id, heads, labels in [tree for tree in read_gold(ud_file(file)) if len(tree[1]) <= longest + 1][:count]:
        aim = target(system, heads)
        state = follow_zero_costs(system, heads, labels, rng)
        if state.heads != aim or state.labels != labels:
            problems.append(f"{sent_id}: built {state.heads}, aimed at {aim}")
    assert not problems, f"{name} on {file}: {len(problems)} trees not rebuilt, first: {problems[:3]}"


STATIC_DYNAMIC = [name for name in EXPLORING if name not in EXACT]
"""Systems whose costs are trustworthy only where they say (swap's static–dynamic oracle)."""


def swaps_the_costs_allow(costs):
    """The static–dynamic oracle's reordering (de Lhoneux, Stymne & Nivre 2017): SWAP only
    where it costs 0 — where the static oracle swaps, or with the buffer empty after a
    mistake. Its arc costs are exact only against such completions (see
    :func:`test_a_free_swap_can_undo_an_early_shift`)."""
    return lambda state, move: move != SWAP or costs(state)[SWAP] == 0


def test_a_free_swap_can_undo_an_early_shift():
    """Why the theorem below compares with completions that swap as the oracle does.
    Gold 2 → 1 → {3, 4}, 2 → 5; 3 attached with a wrong label, then 2 shifted before the
    ready arc 1 → 4 was built, then 5: σ = [0, 1, 4, 2, 5], β empty. RIGHT-ARC 2 → 5 is
    gold and 5 complete, so it costs 0; after it 4 and 2 are stuck in the wrong word
    order (SWAP needs σ[-2] < σ[-1]) and one more arc is lost. Swaps the static order
    never makes (2 past 5, 4 past 5, 1 past 5) would first push 1, 4 and 2 back into the
    buffer and rebuild 1 → 4 before 2 returns: the arc-decomposed costs do not see such
    rewinds, and exploration never takes them."""
    system = get_system("swap-eager", single_root=True)
    heads, labels = [-1, 2, 0, 1, 1, 2], [-1, 1, 0, 2, 1, 1]
    costs = system.costs(heads, labels)
    state = system.initial(5)
    state.stack[:] = [0, 1, 4, 2, 5]
    state.buffer.clear()
    state.add_arc(1, 3, WRONG_LABEL)
    assert costs.zero_cost(state) == [(RIGHT_ARC, labels[5])]
    after = clone(state)
    system.apply(after, RIGHT_ARC, labels[5])
    every_completion = BruteForce(system, heads, labels)
    assert every_completion.loss(state) == 1 and every_completion.loss(after) == 2
    as_the_oracle_swaps = BruteForce(system, heads, labels, swaps_the_costs_allow(costs))
    assert as_the_oracle_swaps.loss(state) == as_the_oracle_swaps.loss(after) == 2


def test_swap_has_the_static_dynamic_oracle():
    assert STATIC_DYNAMIC == ["swap-eager", "swap-lazy"]


@pytest.mark.parametrize("single_root", [False, True], ids=["multi-root", "single-root"])
@pytest.mark.parametrize("name", STATIC_DYNAMIC)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_on_the_static_path_the_one_zero_cost_action_is_the_static_oracles(name, single_root, data):
    """de Lhoneux, Stymne & Nivre (2017): static where the words are reordered, and on the
    static oracle's path (any tree, non-projective ones included) the costs single out
    its action, so zero-cost actions rebuild every tree."""
    system = get_system(name, single_root=single_root)
    heads, labels = gold_tree(data, single_root, 12)
    costs, static = system.costs(heads, labels), system.oracle(heads, labels)
    state = system.initial(len(heads) - 1)
    while not system.is_terminal(state):
        move, label = static(state)
        assert costs.zero_cost(state) == [(move, label if system.labeled[move] else -1)], \
            f"{name}: zero-cost {costs.zero_cost(state)}, static {move, label}, gold {heads}, state {key(state)}"
        system.apply(state, move, label)
    assert state.heads == heads and state.labels == labels


@pytest.mark.parametrize("single_root", [False, True], ids=["multi-root", "single-root"])
@pytest.mark.parametrize("name", STATIC_DYNAMIC)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], phases=NO_SHRINK)
@given(data=st.data())
def test_zero_cost_arcs_are_optimal_where_exploration_goes(name, single_root, data):
    """In every configuration exploration reaches, some action costs 0, and a zero-cost
    arc loses no more gold arcs than the best completion that swaps where the costs let
    it (brute force over those completions: :func:`swaps_the_costs_allow`)."""
    system = get_system(name, single_root=single_root)
    heads, labels = gold_tree(data, single_root, 6)
    costs = system.costs(heads, labels)
    brute = BruteForce(system, heads, labels, swaps_the_costs_allow(costs))
    state = random_configuration(system, len(heads) - 1, data, costs)
    if system.is_terminal(state):
        return
    per_move = costs(state)
    assert [cost is not None for cost in per_move] == system.legal(state)
    assert 0 in per_move
    here = brute.loss(state)
    for move, label in costs.zero_cost(state, per_move):
        if system.labeled[move]:
            after = brute.loss(brute.after(state, move, label if label != -1 else WRONG_LABEL))
            assert after == here, (f"{name}: zero-cost {system.moves[move]} loses {after - here} more; "
                                   f"gold {heads} / {labels}, state {key(state)}")
