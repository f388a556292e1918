"""Graph decoders against brute force over every tree of small sentences.

Eisner must find the best projective tree (first order, and second order under the
adjacent-sibling factorisation), Chu-Liu-Edmonds the best tree of all, and the
non-projective approximation must never lower the score, always return a tree,
and stop. Chu-Liu-Edmonds, which contracts in place, must also give the very trees of
the recursive formulation it replaced (ties included), and decode 5,000 words that
need a contraction per word. The k best trees (projective and not) must be brute force's k
best, score for score, each tree once.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from barley.decoders import (chu_liu_edmonds, eisner, eisner_second_order, nonprojective_approximation,
                          sibling_tree_score, tree_score)
from barley.decoders import mst
from barley.decoders.k_best import eisner_k_best, spanning_trees_k_best
from barley.decoders.nonprojective_approx import _sibling_gains
from barley.tree import check_tree, is_projective

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out


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


@settings(max_examples=150, deadline=None)
@given(scores)
def test_chu_liu_edmonds_on_a_scorer_s_scores_takes_the_unique_best_heads_when_they_are_a_tree(case):
    """Scores as a trained scorer gives them (a tree's arcs far above noise): the best heads are
    often already a single-rooted tree, which the decoder returns without contracting."""
    n, seed, single_root = case
    rng = np.random.default_rng(seed)
    arc = rng.normal(0.0, 1.0, size=(n + 1, n + 1))
    planted = [-1, *(int(rng.integers(0, d)) if d > 1 else 0 for d in range(1, n + 1))]
    for word in range(1, n + 1):
        arc[planted[word], word] += rng.uniform(0.0, 6.0)
    heads = chu_liu_edmonds(arc, single_root=single_root)
    candidates = _all_trees(n, False, single_root)
    assert tuple(heads) in candidates
    assert tree_score(heads, arc) == pytest.approx(max(tree_score(t, arc) for t in candidates))


@settings(max_examples=150, deadline=None)
@given(scores, st.integers(1, 3))
def test_chu_liu_edmonds_finds_a_best_tree_among_ties(case, values):
    n, seed, single_root = case
    arc = np.random.default_rng(seed).integers(0, values, size=(n + 1, n + 1)).astype(float)
    heads = chu_liu_edmonds(arc, single_root=single_root)
    candidates = _all_trees(n, False, single_root)
    assert tuple(heads) in candidates
    assert tree_score(heads, arc) == max(tree_score(t, arc) for t in candidates)


def _recursive_chu_liu_edmonds(scores: np.ndarray) -> np.ndarray:
    """barley's first Chu-Liu-Edmonds (before the single-root constant, which both share):
    one smaller matrix per contracted cycle, solved recursively. Its trees, ties
    included, are what the in-place contraction must reproduce."""
    heads = scores.argmax(axis=0).astype(np.int64)
    heads[0] = -1
    cycle = None
    mark = np.zeros(len(heads), dtype=np.int64)
    for start in range(1, len(heads)):
        node, path = start, []
        while node > 0 and mark[node] == 0:
            mark[node] = start
            path.append(node)
            node = heads[node]
        if node > 0 and mark[node] == start:
            cycle = path[path.index(node):]
            break
    if cycle is None:
        return heads
    cyc = np.array(cycle)
    in_cycle = np.zeros(len(heads), dtype=bool)
    in_cycle[cyc] = True
    outside = np.flatnonzero(~in_cycle)
    c = len(outside)
    enter = scores[np.ix_(outside, cyc)] - scores[heads[cyc], cyc][None, :]
    leave = scores[np.ix_(cyc, outside)]
    smaller = np.full((c + 1, c + 1), -np.inf)
    smaller[:c, :c] = scores[np.ix_(outside, outside)]
    smaller[:c, c] = enter.max(axis=1)
    smaller[c, :c] = leave.max(axis=0)
    smaller[:, 0] = -np.inf
    sub = _recursive_chu_liu_edmonds(smaller)
    result = heads.copy()
    leave_from = cyc[leave.argmax(axis=0)]
    for k in range(1, c):
        result[outside[k]] = leave_from[k] if sub[k] == c else outside[sub[k]]
    result[cyc[enter[sub[c]].argmax()]] = outside[sub[c]]
    return result


def _prepared(arc: np.ndarray, single_root: bool) -> np.ndarray:
    """``arc`` as :func:`chu_liu_edmonds` prepares it: no arcs into 0 or loops, root arcs lowered."""
    scores = np.array(arc, dtype=np.float64)
    scores[:, 0] = -np.inf
    np.fill_diagonal(scores, -np.inf)
    if single_root:
        finite = scores[np.isfinite(scores)]
        scores[0, 1:] -= (finite.max() - finite.min()) * len(scores) + 1.0
    return scores


def _hierarchy(n: int, seed: int) -> np.ndarray:
    """Scores under which every word prefers its sibling in a binary hierarchy, then
    its sibling block, and so on: n - 1 nested contractions."""
    nodes = np.arange(n + 1) - 1
    level = np.floor(np.log2(np.maximum(nodes[:, None] ^ nodes[None, :], 1)))
    arc = -level + np.random.default_rng(seed).uniform(0, 0.1, size=(n + 1, n + 1))
    arc[0] = -100.0
    return arc


@pytest.mark.parametrize("case", range(12))
def test_chu_liu_edmonds_gives_the_recursive_formulations_trees(case):
    rng = np.random.default_rng(case)
    n = int(rng.integers(30, 160))
    arc = [rng.normal(size=(n + 1, n + 1)),  # few ties
           rng.integers(0, 3, size=(n + 1, n + 1)).astype(float),  # many
           np.zeros((n + 1, n + 1)),  # all
           _hierarchy(n, case)][case % 4]  # a contraction per word
    for single_root in (True, False):
        expected = _recursive_chu_liu_edmonds(_prepared(arc, single_root))
        assert list(chu_liu_edmonds(arc, single_root)) == list(expected)


def test_chu_liu_edmonds_decodes_5000_words_needing_a_contraction_per_word(monkeypatch):
    contractions = []
    contract = mst._Contraction._contract
    monkeypatch.setattr(mst._Contraction, "_contract",
                        lambda self, cycle: contractions.append(len(cycle)) or contract(self, cycle))
    arc = _hierarchy(5000, seed=1)
    heads = chu_liu_edmonds(arc)
    assert len(contractions) == 4999
    assert check_tree(heads, single_root=True) is None
    # no single reattachment that keeps a tree scores higher
    _, moves = nonprojective_approximation(heads, arc, threshold=0.0)
    assert moves == 0


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
    assert list(chu_liu_edmonds(np.zeros((1, 1)))) == [-1]
    assert list(eisner(np.zeros((1, 1)))) == [-1]
    assert list(eisner(np.zeros((2, 2)))) == [-1, 0]
    assert list(chu_liu_edmonds(np.zeros((2, 2)))) == [-1, 0]
    assert list(eisner_second_order(np.zeros((2, 2)), np.zeros((2, 2, 2)))) == [-1, 0]


# --- the k best trees ------------------------------------------------------------------------

K_BEST = {True: eisner_k_best, False: spanning_trees_k_best}


def _check_k_best(arc: np.ndarray, k: int, projective: bool, single_root: bool) -> None:
    """The k best of brute force, score for score in order, each a distinct possible tree."""
    candidates = [t for t in _all_trees(len(arc) - 1, projective, single_root) if tree_score(t, arc) > -np.inf]
    expected = sorted((tree_score(t, arc) for t in candidates), reverse=True)[:k]
    found = K_BEST[projective](arc, k, single_root=single_root)
    assert [score for score, _ in found] == pytest.approx(expected)
    trees = [tuple(heads) for _, heads in found]
    assert len(set(trees)) == len(trees) and set(trees) <= set(candidates)
    assert all(tree_score(heads, arc) == pytest.approx(score) for score, heads in found)


@settings(max_examples=150, deadline=None)
@given(scores, st.integers(1, 40), st.booleans())
def test_k_best_trees_are_the_k_best_of_brute_force(case, k, projective):
    n, seed, single_root = case
    arc, _ = _random(n, seed)
    _check_k_best(arc, k, projective, single_root)


@settings(max_examples=100, deadline=None)
@given(scores, st.integers(1, 40), st.booleans(), st.integers(1, 3))
def test_k_best_trees_among_ties(case, k, projective, values):
    n, seed, single_root = case
    arc = np.random.default_rng(seed).integers(0, values, size=(n + 1, n + 1)).astype(float)
    _check_k_best(arc, k, projective, single_root)


@settings(max_examples=100, deadline=None)
@given(scores, st.integers(1, 40), st.booleans())
def test_k_best_trees_leave_out_impossible_arcs(case, k, projective):
    """Scores of -inf (the biaffine parser's impossible arcs) are never in a tree: fewer trees come back."""
    n, seed, single_root = case
    arc, _ = _random(n, seed)
    arc[np.random.default_rng(seed + 1).random(arc.shape) < 0.4] = -np.inf
    _check_k_best(arc, k, projective, single_root)


@pytest.mark.parametrize("projective", [True, False])
def test_the_first_of_the_k_best_is_the_decoders_best(projective):
    arc, _ = _random(12, 7)
    best = (eisner if projective else chu_liu_edmonds)(arc)
    score, heads = K_BEST[projective](arc, 5)[0]
    assert list(heads) == list(best) and score == pytest.approx(tree_score(best, arc))


def test_k_best_eisner_follows_derivations_deeper_than_the_default_recursion_limit():
    arc = np.random.default_rng(3).normal(size=(701, 701)) * 0.1
    arc[np.arange(700), np.arange(1, 701)] += 5.0  # a chain: every span nests in the one before
    trees = eisner_k_best(arc, 3)
    assert len({tuple(heads) for _, heads in trees}) == 3
    assert trees[0][0] >= trees[1][0] >= trees[2][0]
