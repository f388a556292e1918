"""Graph decoders against brute force over every tree of small sentences.

Eisner must find the best projective tree (first order, and second order under the
adjacent-sibling factorisation), Chu-Liu-Edmonds the best tree of all, and the
non-projective approximation must never lower the score, always return a tree,
and stop.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from barley.graph import (chu_liu_edmonds, eisner, eisner_second_order, nonprojective_approximation,
                          sibling_tree_score, tree_score)
from barley.graph.nonprojective_approx import _sibling_gains
from barley.tree import check_tree, is_projective


@cache
def _all_trees(n: int, projective: bool, single_root: bool) -> tuple[tuple[int, ...], ...]:
    trees = []
    for choice in itertools.product(range(n + 1), repeat=n):
        heads = (-1, *choice)
        if check_tree(heads) is not None or (projective and not is_projective(heads)):
            continue
        if single_root and choice.count(0) != 1:
            continue
        trees.append(heads)
    return tuple(trees)


scores = st.integers(1, 5).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(0, 2**32 - 1), st.booleans()))


def _random(n: int, seed: int):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1, n + 1, n + 1))


@settings(max_examples=150, deadline=None)
@given(scores)
def test_eisner_finds_the_best_projective_tree(case):
    n, seed, single_root = case
    arc, _ = _random(n, seed)
    heads = eisner(arc, single_root=single_root)
    candidates = _all_trees(n, True, single_root)
    assert tuple(heads) in candidates
    assert tree_score(heads, arc) == pytest.approx(max(tree_score(t, arc) for t in candidates))


@settings(max_examples=150, deadline=None)
@given(scores)
def test_second_order_eisner_finds_the_best_projective_tree_under_siblings(case):
    n, seed, single_root = case
    arc, sibling = _random(n, seed)
    heads = eisner_second_order(arc, sibling, single_root=single_root)
    candidates = _all_trees(n, True, single_root)
    assert tuple(heads) in candidates
    best = max(sibling_tree_score(t, arc, sibling) for t in candidates)
    assert sibling_tree_score(heads, arc, sibling) == pytest.approx(best)


@settings(max_examples=150, deadline=None)
@given(scores)
def test_chu_liu_edmonds_finds_the_best_tree(case):
    n, seed, single_root = case
    arc, _ = _random(n, seed)
    heads = chu_liu_edmonds(arc, single_root=single_root)
    candidates = _all_trees(n, False, single_root)
    assert tuple(heads) in candidates
    assert tree_score(heads, arc) == pytest.approx(max(tree_score(t, arc) for t in candidates))


@settings(max_examples=100, deadline=None)
@given(scores)
def test_sibling_gains_are_exact_score_differences(case):
    n, seed, _ = case
    arc, sibling = _random(n, seed)
    start = eisner_second_order(arc, sibling)
    base = sibling_tree_score(start, arc, sibling)
    gains = _sibling_gains(start, arc, sibling)
    for j, d in zip(*np.nonzero(np.isfinite(gains))):
        moved = start.copy()
        moved[d] = j
        assert sibling_tree_score(moved, arc, sibling) - base == pytest.approx(gains[j, d])


@settings(max_examples=100, deadline=None)
@given(scores, st.sampled_from([0.0, 0.3, 1.0]), st.booleans())
def test_nonprojective_approximation_improves_returns_a_tree_and_stops(case, threshold, second_order):
    n, seed, single_root = case
    arc, sibling = _random(n, seed)
    sibling = sibling if second_order else None
    score = (lambda h: sibling_tree_score(h, arc, sibling)) if second_order else (lambda h: tree_score(h, arc))
    start = eisner_second_order(arc, sibling, single_root) if second_order else eisner(arc, single_root)
    heads, moves = nonprojective_approximation(start, arc, sibling, threshold=threshold, single_root=single_root)
    assert tuple(heads) in _all_trees(n, False, single_root)
    assert score(heads) >= score(start) - 1e-9
    # every move gained more than the threshold, so it stops after finitely many
    assert score(heads) - score(start) >= moves * threshold - 1e-9
    # and no single legal move gains more than the threshold at the end
    for d in range(1, n + 1):
        for j in range(n + 1):
            moved = heads.copy()
            moved[d] = j
            if j != d and tuple(moved) in _all_trees(n, False, single_root):
                assert score(moved) - score(heads) <= threshold + 1e-9


def test_nonprojective_approximation_can_build_a_crossing_arc():
    # words 1..4; arc scores favour 1→3 and 2→4, which cross: Eisner cannot build both.
    arc = np.full((5, 5), -5.0)
    arc[0, 1] = 5.0
    arc[1, 3] = arc[2, 4] = 4.0
    arc[1, 2] = 3.0
    start = eisner(arc)
    assert is_projective(start)
    heads, moves = nonprojective_approximation(start, arc, threshold=0.3)
    assert list(heads) == [-1, 0, 1, 1, 2]
    assert not is_projective(heads) and moves >= 1


def test_trivial_sentences():
    assert list(eisner(np.zeros((1, 1)))) == [-1]
    assert list(eisner(np.zeros((2, 2)))) == [-1, 0]
    assert list(chu_liu_edmonds(np.zeros((2, 2)))) == [-1, 0]
    assert list(eisner_second_order(np.zeros((2, 2)), np.zeros((2, 2, 2)))) == [-1, 0]
