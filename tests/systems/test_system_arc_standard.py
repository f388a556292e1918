"""Arc-standard (Nivre 2008 §4.1): Figure 4 step by step, Theorem 1 (soundness and
completeness for projective forests), 2n transitions per tree, real data."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_trees import any_tree, draw_ints, projective_tree
from transition_checks import (ENGLISH_HEADS, ENGLISH_LABELS, check_lost_arc_is_named, nearest_projective,
                               random_legal_run, rebuild, replay, stack_and_buffer, treebank_oracle)

from barley.systems import get_system
from barley.systems.arc_standard import ArcStandard

B = list(range(1, 10))  # the buffer [1, ..., 9]

# Figure 4: (transition, label, (σ, β) after it, new arc)
FIGURE_4 = [
    ("SHIFT", None, ([0, 1], B[1:]), None),
    ("LEFT-ARC", "NMOD", ([0], B[1:]), (2, "NMOD", 1)),
    ("SHIFT", None, ([0, 2], B[2:]), None),
    ("LEFT-ARC", "SBJ", ([0], B[2:]), (3, "SBJ", 2)),
    ("SHIFT", None, ([0, 3], B[3:]), None),
    ("SHIFT", None, ([0, 3, 4], B[4:]), None),
    ("LEFT-ARC", "NMOD", ([0, 3], B[4:]), (5, "NMOD", 4)),
    ("SHIFT", None, ([0, 3, 5], B[5:]), None),
    ("SHIFT", None, ([0, 3, 5, 6], [7, 8, 9]), None),
    ("SHIFT", None, ([0, 3, 5, 6, 7], [8, 9]), None),
    ("LEFT-ARC", "NMOD", ([0, 3, 5, 6], [8, 9]), (8, "NMOD", 7)),
    ("RIGHT-ARC", "PMOD", ([0, 3, 5], [6, 9]), (6, "PMOD", 8)),
    ("RIGHT-ARC", "NMOD", ([0, 3], [5, 9]), (5, "NMOD", 6)),
    ("RIGHT-ARC", "OBJ", ([0], [3, 9]), (3, "OBJ", 5)),
    ("SHIFT", None, ([0, 3], [9]), None),
    ("RIGHT-ARC", "P", ([0], [3]), (3, "P", 9)),
    ("RIGHT-ARC", "ROOT", ([], [0]), (0, "ROOT", 3)),
    ("SHIFT", None, ([0], []), None),
]


@pytest.mark.parametrize("single_root", [False, True])
def test_figure_4_step_by_step(single_root):
    replay(ArcStandard(single_root=single_root), ENGLISH_HEADS, ENGLISH_LABELS, FIGURE_4, stack_and_buffer)


def test_found_by_name_and_maltparser_alias():
    assert type(get_system("arc-standard")) is type(get_system("nivrestandard")) is ArcStandard


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(0, 20), single_root=st.booleans())
def test_rebuilds_every_projective_tree_in_2n_transitions(data, n, single_root):
    heads = projective_tree(draw_ints(data), n, single_root)
    assert len(rebuild(ArcStandard(single_root=single_root), heads).actions) == 2 * n


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(0, 15), single_root=st.booleans())
def test_any_tree_gives_its_nearest_projective_tree(data, n, single_root):
    nearest_projective(ArcStandard(single_root=single_root), any_tree(draw_ints(data), n, single_root))


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 15), seed=st.integers(0, 2**32 - 1), single_root=st.booleans())
def test_legal_transitions_build_projective_forests(n, seed, single_root):
    random_legal_run(ArcStandard(single_root=single_root), n, seed)


def test_single_root_attaches_the_last_word_only_to_0():
    """With single_root, the root word leaves with its arc: only the last one may."""
    system = ArcStandard(single_root=True)
    state = system.initial(2)  # ([0], [1, 2])
    assert system.legal(state) == [False, False, True]
    system.apply(state, system.move("SHIFT"))
    system.apply(state, system.move("LEFT-ARC"), 0)  # ([0], [2])
    assert system.legal(state) == [False, True, True]
    assert ArcStandard().legal(ArcStandard().initial(2)) == [False, True, True]


def test_a_lost_arc_is_named():
    # SHIFT instead of LEFT-ARC(2 → 1)
    check_lost_arc_is_named(ArcStandard(), ENGLISH_HEADS, ("SHIFT", "SHIFT"), r"gold arc 2 → 1 \(word 1 of 9")


@pytest.mark.slow
@pytest.mark.ud
def test_rebuilds_the_projective_sentences_of_a_treebank():
    sentences, projective, rebuilt, _ = treebank_oracle(ArcStandard(single_root=True))
    assert rebuilt == projective < sentences


def test_1000_words():
    heads = projective_tree(random.Random(7).randint, 1000, True)
    rebuild(ArcStandard(single_root=True), heads)
