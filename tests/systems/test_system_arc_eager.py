"""Arc-eager (Nivre 2008 §4.2): Figure 6 step by step, Theorem 4 (soundness and
completeness for projective forests), 2n transitions per tree, real data."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_trees import any_tree, draw_ints, projective_tree
from transition_checks import (ENGLISH_HEADS, ENGLISH_LABELS, check_lost_arc_is_named, check_oracle_keeps_no_state,
                               nearest_projective, random_legal_run, rebuild, replay, stack_and_buffer,
                               treebank_oracle)

from barley.systems import get_system
from barley.systems.arc_eager import ArcEager

B = list(range(1, 10))  # the buffer [1, ..., 9]

# Figure 6: (transition, label, (σ, β) after it, new arc)
FIGURE_6 = [
    ("SHIFT", None, ([0, 1], B[1:]), None),
    ("LEFT-ARC", "NMOD", ([0], B[1:]), (2, "NMOD", 1)),
    ("SHIFT", None, ([0, 2], B[2:]), None),
    ("LEFT-ARC", "SBJ", ([0], B[2:]), (3, "SBJ", 2)),
    ("RIGHT-ARC", "ROOT", ([0, 3], B[3:]), (0, "ROOT", 3)),
    ("SHIFT", None, ([0, 3, 4], B[4:]), None),
    ("LEFT-ARC", "NMOD", ([0, 3], B[4:]), (5, "NMOD", 4)),
    ("RIGHT-ARC", "OBJ", ([0, 3, 5], B[5:]), (3, "OBJ", 5)),
    ("RIGHT-ARC", "NMOD", ([0, 3, 5, 6], [7, 8, 9]), (5, "NMOD", 6)),
    ("SHIFT", None, ([0, 3, 5, 6, 7], [8, 9]), None),
    ("LEFT-ARC", "NMOD", ([0, 3, 5, 6], [8, 9]), (8, "NMOD", 7)),
    ("RIGHT-ARC", "PMOD", ([0, 3, 5, 6, 8], [9]), (6, "PMOD", 8)),
    ("REDUCE", None, ([0, 3, 5, 6], [9]), None),
    ("REDUCE", None, ([0, 3, 5], [9]), None),
    ("REDUCE", None, ([0, 3], [9]), None),
    ("RIGHT-ARC", "P", ([0, 3, 9], []), (3, "P", 9)),
]
# Figure 6 stops when β is empty (Nivre's terminal condition); barley's also pops
# the words that have their head, which makes every tree 2n transitions long.
BARLEY_END = [
    ("REDUCE", None, ([0, 3], []), None),
    ("REDUCE", None, ([0], []), None),
]


@pytest.mark.parametrize("single_root", [False, True])
def test_figure_6_step_by_step(single_root):
    replay(ArcEager(single_root=single_root), ENGLISH_HEADS, ENGLISH_LABELS, FIGURE_6 + BARLEY_END,
           stack_and_buffer)


def test_found_by_name_and_maltparser_alias():
    assert type(get_system("arc-eager")) is type(get_system("nivreeager")) is ArcEager


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(0, 20), single_root=st.booleans())
def test_rebuilds_every_projective_tree_in_2n_transitions(data, n, single_root):
    heads = projective_tree(draw_ints(data), n, single_root)
    assert len(rebuild(ArcEager(single_root=single_root), heads).actions) == 2 * n


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(0, 15), single_root=st.booleans())
def test_any_tree_gives_its_nearest_projective_tree(data, n, single_root):
    nearest_projective(ArcEager(single_root=single_root), any_tree(draw_ints(data), n, single_root))


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 15), seed=st.integers(0, 2**32 - 1), single_root=st.booleans())
def test_legal_transitions_build_projective_forests(n, seed, single_root):
    random_legal_run(ArcEager(single_root=single_root), n, seed)


def test_the_oracle_keeps_no_state():
    assert check_oracle_keeps_no_state(ArcEager(), ENGLISH_HEADS).heads == ENGLISH_HEADS


def test_a_lost_arc_is_named():
    # SHIFT instead of LEFT-ARC(2 → 1)
    check_lost_arc_is_named(ArcEager(), ENGLISH_HEADS, ("SHIFT", "SHIFT"), r"gold arc 2 → 1 \(word 1 of 9")


@pytest.mark.ud
def test_rebuilds_the_projective_sentences_of_a_treebank():
    sentences, projective, rebuilt, _ = treebank_oracle(ArcEager(single_root=True))
    assert rebuilt == projective < sentences


def test_1000_words():
    heads = projective_tree(random.Random(7).randint, 1000, True)
    rebuild(ArcEager(single_root=True), heads)
