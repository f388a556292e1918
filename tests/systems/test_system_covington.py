"""Covington's list-based systems (Nivre 2008 §5): Figures 8 and 10 step by step,
Theorems 7 and 10 (soundness and completeness for forests and projective forests),
union-find acyclicity, real data."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_trees import any_tree, draw_ints, projective_tree
from transition_checks import (CZECH_HEADS, CZECH_LABELS, ENGLISH_HEADS, ENGLISH_LABELS, check_lost_arc_is_named,
                               gold_labels, nearest_projective, random_legal_run, rebuild, replay,
                               treebank_oracle)

from barley.systems import get_system, run_oracle
from barley.systems.covington import CovingtonNonProjective, CovingtonProjective
from barley.tree import is_projective

SYSTEMS = [CovingtonNonProjective, CovingtonProjective]
N = list(range(8))  # [0, ..., 7]

# Figure 8 (the Czech sentence of Figure 1): (transition, label, (λ1, λ2, β) after it, new arc)
FIGURE_8 = [
    ("SHIFT", None, ([0, 1], [], [2, 3, 4, 5, 6, 7, 8]), None),
    ("RIGHT-ARC", "Atr", ([0], [1], [2, 3, 4, 5, 6, 7, 8]), (1, "Atr", 2)),
    ("SHIFT", None, ([0, 1, 2], [], [3, 4, 5, 6, 7, 8]), None),
    ("NO-ARC", None, ([0, 1], [2], [3, 4, 5, 6, 7, 8]), None),
    ("NO-ARC", None, ([0], [1, 2], [3, 4, 5, 6, 7, 8]), None),
    ("RIGHT-ARC", "Pred", ([], [0, 1, 2], [3, 4, 5, 6, 7, 8]), (0, "Pred", 3)),
    ("SHIFT", None, ([0, 1, 2, 3], [], [4, 5, 6, 7, 8]), None),
    ("SHIFT", None, ([0, 1, 2, 3, 4], [], [5, 6, 7, 8]), None),
    ("LEFT-ARC", "AuxZ", ([0, 1, 2, 3], [4], [5, 6, 7, 8]), (5, "AuxZ", 4)),
    ("RIGHT-ARC", "Sb", ([0, 1, 2], [3, 4], [5, 6, 7, 8]), (3, "Sb", 5)),
    ("NO-ARC", None, ([0, 1], [2, 3, 4], [5, 6, 7, 8]), None),
    ("LEFT-ARC", "AuxP", ([0], [1, 2, 3, 4], [5, 6, 7, 8]), (5, "AuxP", 1)),
    ("SHIFT", None, ([0, 1, 2, 3, 4, 5], [], [6, 7, 8]), None),
    ("NO-ARC", None, ([0, 1, 2, 3, 4], [5], [6, 7, 8]), None),
    ("NO-ARC", None, ([0, 1, 2, 3], [4, 5], [6, 7, 8]), None),
    ("RIGHT-ARC", "AuxP", ([0, 1, 2], [3, 4, 5], [6, 7, 8]), (3, "AuxP", 6)),
    ("SHIFT", None, ([0, 1, 2, 3, 4, 5, 6], [], [7, 8]), None),
    ("RIGHT-ARC", "Adv", ([0, 1, 2, 3, 4, 5], [6], [7, 8]), (6, "Adv", 7)),
    ("SHIFT", None, ([0, 1, 2, 3, 4, 5, 6, 7], [], [8]), None),
    *[("NO-ARC", None, (N[:k], N[k:], [8]), None) for k in range(7, 0, -1)],
    ("RIGHT-ARC", "AuxK", ([], N, [8]), (0, "AuxK", 8)),
    ("SHIFT", None, ([*N, 8], [], []), None),
]

# Figure 10 (the English sentence of Figure 2)
B = list(range(1, 10))
FIGURE_10 = [
    ("SHIFT", None, ([0, 1], [], B[1:]), None),
    ("LEFT-ARC", "NMOD", ([0], [], B[1:]), (2, "NMOD", 1)),
    ("SHIFT", None, ([0, 2], [], B[2:]), None),
    ("LEFT-ARC", "SBJ", ([0], [], B[2:]), (3, "SBJ", 2)),
    ("RIGHT-ARC", "ROOT", ([0, 3], [], B[3:]), (0, "ROOT", 3)),
    ("SHIFT", None, ([0, 3, 4], [], B[4:]), None),
    ("LEFT-ARC", "NMOD", ([0, 3], [], B[4:]), (5, "NMOD", 4)),
    ("RIGHT-ARC", "OBJ", ([0, 3, 5], [], B[5:]), (3, "OBJ", 5)),
    ("RIGHT-ARC", "NMOD", ([0, 3, 5, 6], [], [7, 8, 9]), (5, "NMOD", 6)),
    ("SHIFT", None, ([0, 3, 5, 6, 7], [], [8, 9]), None),
    ("LEFT-ARC", "NMOD", ([0, 3, 5, 6], [], [8, 9]), (8, "NMOD", 7)),
    ("RIGHT-ARC", "PMOD", ([0, 3, 5, 6, 8], [], [9]), (6, "PMOD", 8)),
    ("NO-ARC", None, ([0, 3, 5, 6], [8], [9]), None),
    ("NO-ARC", None, ([0, 3, 5], [6, 8], [9]), None),
    ("NO-ARC", None, ([0, 3], [5, 6, 8], [9]), None),
    ("RIGHT-ARC", "P", ([0, 3, 9], [], []), (3, "P", 9)),
]


def lists(state):
    return list(state.lambda1), list(state.lambda2), list(state.buffer)


def test_figure_8_step_by_step():
    replay(CovingtonNonProjective(), CZECH_HEADS, CZECH_LABELS, FIGURE_8, lists)


@pytest.mark.parametrize("single_root", [False, True])
def test_figure_10_step_by_step(single_root):
    replay(CovingtonProjective(single_root=single_root), ENGLISH_HEADS, ENGLISH_LABELS, FIGURE_10, lists)


def test_the_czech_tree_has_two_root_words():
    """Outside the class of single-rooted trees: the second root word goes under the first."""
    run = run_oracle(CovingtonNonProjective(single_root=True), CZECH_HEADS, gold_labels(CZECH_HEADS))
    assert not run.reproduced and run.heads == [-1, 5, 1, 0, 5, 3, 3, 6, 3]


def test_found_by_name_and_maltparser_alias():
    assert type(get_system("covington-nonprojective")) is type(get_system("covnonproj")) is CovingtonNonProjective
    assert type(get_system("covington-projective")) is type(get_system("covproj")) is CovingtonProjective


def test_left_arc_and_right_arc_never_close_a_cycle():
    """Nivre 2008 Figure 7: LEFT-ARC needs not i →* j, RIGHT-ARC not j →* i."""
    system = CovingtonNonProjective()
    state = system.initial(3)
    for move, label in [("SHIFT", -1), ("RIGHT-ARC", 0), ("SHIFT", -1), ("RIGHT-ARC", 0)]:
        system.apply(state, system.move(move), label)
    assert lists(state) == ([0, 1], [2], [3]) and state.heads == [-1, -1, 1, 2]  # 1 → 2 → 3
    assert system.legal(state) == [False, False, True, True]  # 3 → 1 would close a cycle

    state = system.initial(4)
    for move, label in [("SHIFT", -1), ("SHIFT", -1), ("LEFT-ARC", 0), ("LEFT-ARC", 0), ("SHIFT", -1),
                        ("LEFT-ARC", 0)]:
        system.apply(state, system.move(move), label)
    assert lists(state) == ([0, 1, 2], [3], [4]) and state.heads == [-1, 3, 3, 4, -1]  # 4 → 3 → 2
    assert system.legal(state) == [False, False, True, True]  # 2 → 4 would close a cycle


@pytest.mark.slow
@pytest.mark.parametrize("cls", SYSTEMS)
@settings(max_examples=150, deadline=None)
@given(data=st.data(), n=st.integers(0, 20), single_root=st.booleans())
def test_rebuilds_every_projective_tree(cls, data, n, single_root):
    rebuild(cls(single_root=single_root), projective_tree(draw_ints(data), n, single_root))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(data=st.data(), n=st.integers(0, 20), single_root=st.booleans())
def test_nonprojective_rebuilds_every_tree(data, n, single_root):
    rebuild(CovingtonNonProjective(single_root=single_root), any_tree(draw_ints(data), n, single_root))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(0, 15), single_root=st.booleans())
def test_projective_gives_the_nearest_projective_tree(data, n, single_root):
    nearest_projective(CovingtonProjective(single_root=single_root), any_tree(draw_ints(data), n, single_root))


@pytest.mark.slow
@pytest.mark.parametrize("cls", SYSTEMS)
@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 15), seed=st.integers(0, 2**32 - 1), single_root=st.booleans())
def test_legal_transitions_build_forests_of_the_class(cls, n, seed, single_root):
    random_legal_run(cls(single_root=single_root), n, seed)


@pytest.mark.parametrize("cls", SYSTEMS)
def test_a_lost_arc_is_named(cls):
    # SHIFT instead of LEFT-ARC(2 → 1)
    check_lost_arc_is_named(cls(), ENGLISH_HEADS, ("SHIFT", "SHIFT"), r"gold arc 2 → 1 \(word 1 of 9")


@pytest.mark.slow
@pytest.mark.ud
@pytest.mark.parametrize("cls", SYSTEMS)
def test_rebuilds_the_sentences_of_its_class_in_a_treebank(cls):
    """The projective system rebuilds the projective sentences only, the other all."""
    sentences, inside, rebuilt, _ = treebank_oracle(cls(single_root=True))
    assert rebuilt == inside
    assert (inside < sentences) == (cls.tree_class == "projective")


@pytest.mark.parametrize("cls", SYSTEMS)
def test_1000_words(cls):
    """A random projective tree; for the non-projective system, with 50 words moved
    elsewhere (realistic arcs are short, so the NO-ARC runs are too)."""
    rng = random.Random(7)
    heads = projective_tree(rng.randint, 1000, True)
    if cls.tree_class == "any":
        for d in rng.sample(range(1, 1001), 50):
            head = rng.randint(1, 1000)
            if heads[d] != 0 and head != d and not _dominates(heads, d, head):
                heads[d] = head
        assert not is_projective(heads)
    rebuild(cls(single_root=True), heads)


def _dominates(heads, ancestor, node) -> bool:
    while node > 0:
        if node == ancestor:
            return True
        node = heads[node]
    return False
