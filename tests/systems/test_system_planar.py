"""Planar system (Gómez-Rodríguez & Nivre 2010 §4, Figure 3): an example step by
step, completeness for planar trees (root arcs left out), soundness, the nearest
tree for trees outside the class, real data."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_trees import any_tree, blocks, tree_in_class
from transition_checks import (CZECH_HEADS, check_lost_arc_is_named, crossing_free, gold_labels, random_legal_run,
                               rebuild, replay, stack_and_buffer, treebank_oracle)

from barley.systems import get_system, run_oracle
from barley.systems.planar import Planar, split_into_planes
from barley.tree import check_tree, is_planar, is_projective, planarity

# The paper prints no transition sequence; this one follows §4.3's oracle by hand.
# "A B C": B is the root word and the head of A, and A → C covers B, so the tree is
# planar (root arcs left out) but not projective. Root arcs come from finalize.
COVERED_ROOT_HEADS = [-1, 2, 0, 1]
COVERED_ROOT_LABELS = ["", "nsubj", "root", "obj"]
COVERED_ROOT_STEPS = [
    ("SHIFT", None, ([1], [2, 3]), None),
    ("LEFT-ARC", "nsubj", ([1], [2, 3]), (2, "nsubj", 1)),  # the arc only: 1 stays on the stack
    ("SHIFT", None, ([1, 2], [3]), None),
    ("REDUCE", None, ([1], [3]), None),  # 3 has a pending arc with 1, below 2
    ("RIGHT-ARC", "obj", ([1], [3]), (1, "obj", 3)),
    ("SHIFT", None, ([1, 3], []), None),
]


@pytest.mark.parametrize("single_root", [False, True])
def test_covered_root_step_by_step(single_root):
    system = Planar(single_root=single_root)
    replay(system, COVERED_ROOT_HEADS, COVERED_ROOT_LABELS, COVERED_ROOT_STEPS, stack_and_buffer)
    assert not is_projective(COVERED_ROOT_HEADS) and is_planar(COVERED_ROOT_HEADS)


def test_found_by_name_and_maltparser_alias():
    assert type(get_system("planar")) is Planar


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 14), single_root=st.booleans())
def test_rebuilds_every_planar_tree(seed, n, single_root):
    heads = tree_in_class(random.Random(seed).randint, n, 1, single_root, 6)
    assert len(rebuild(Planar(single_root=single_root), heads).actions) <= 3 * n


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 12), single_root=st.booleans())
def test_outside_the_class_the_nearest_planar_tree(seed, n, single_root):
    """Any tree: rebuilt iff planar; otherwise every arc the split keeps is built and
    the rest is finalize's (root words and the words of dropped arcs)."""
    heads = any_tree(random.Random(seed).randint, n, single_root)
    system = Planar(single_root=single_root)
    run = run_oracle(system, heads, gold_labels(heads))
    assert run.reproduced == is_planar(heads)
    kept = split_into_planes(heads, 1).heads
    assert all(run.heads[d] == kept[d] for d in range(1, n + 1) if kept[d] != -1)
    assert check_tree(run.heads, single_root=single_root) is None


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 12), planes=st.sampled_from([1, 2]))
def test_split_keeps_a_maximal_forest_of_the_class(seed, n, planes):
    heads = any_tree(random.Random(seed).randint, n, False)
    split = split_into_planes(heads, planes)
    words = [d for d in range(1, n + 1) if heads[d] != 0]
    assert split.dropped == sum(split.heads[d] == -1 for d in words)
    kept = [0 if h == -1 else h for h in split.heads]
    assert check_tree(kept) is None and planarity(kept)[0] <= planes
    assert (split.dropped == 0) == (planarity(heads)[0] <= planes)
    for d in words:
        if split.heads[d] == -1:  # adding back any dropped arc leaves the class
            kept[d] = heads[d]
            assert planarity(kept)[0] > planes
            kept[d] = 0
    for d in words:  # the 2-colouring: arcs on one side of a component do not cross
        if split.heads[d] != -1:
            same = [(heads[e], e) for e in words if split.heads[e] != -1 and split.component[e] == split.component[d]
                    and split.parity[e] == split.parity[d]]
            assert crossing_free(same)


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 15), seed=st.integers(0, 2**32 - 1), single_root=st.booleans())
def test_legal_transitions_build_planar_forests(n, seed, single_root):
    built, state = random_legal_run(Planar(single_root=single_root), n, seed)
    assert 0 not in built[1:], "a transition attached a word to node 0"
    assert crossing_free([(built[d], d) for d in range(1, n + 1) if built[d] != -1])


def test_a_lost_arc_is_named():
    # SHIFT instead of LEFT-ARC(2 → 1)
    check_lost_arc_is_named(Planar(), COVERED_ROOT_HEADS, ("SHIFT", "SHIFT"), r"gold arc 2 → 1 \(word 1 of 3")


def test_a_non_planar_tree_is_cut_down():
    """Nivre 2008's Czech sentence: 5 → 1 crosses 3 → 6, and the longer one is dropped."""
    run = run_oracle(Planar(), CZECH_HEADS, gold_labels(CZECH_HEADS))
    assert not run.reproduced
    assert run.heads == [-1, 0, 1, 0, 5, 3, 3, 6, 0]


@pytest.mark.slow
@pytest.mark.ud
def test_rebuilds_the_planar_sentences_of_a_treebank():
    sentences, planar, rebuilt, _ = treebank_oracle(Planar(single_root=True))
    assert rebuilt == planar < sentences


def test_1000_words():
    heads = blocks(random.Random(7), 100, 1)
    assert check_tree(heads) is None and is_planar(heads) and not is_projective(heads)
    rebuild(Planar(), heads)
