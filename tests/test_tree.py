"""Tree properties against brute-force readings of their definitions and the papers' examples."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_trees import trees

from barley import tree

# Nivre (2008), Example 1: Figure 1 (Czech, non-projective: 5 → 1 spans 3) and Figure 2 (English).
CZECH = [-1, 5, 1, 0, 5, 3, 3, 6, 0]
ENGLISH = [-1, 2, 3, 0, 5, 3, 5, 8, 6, 3]
# Nivre (2009), Figure 1: "A hearing is scheduled on the issue today ." (arcs read off Figure 3).
HEARING = [-1, 2, 3, 0, 3, 2, 7, 5, 4, 3]


# Brute-force readings of the definitions.

def dominates(heads, ancestor, node):
    """ancestor →* node (reflexive), by walking up."""
    while node != ancestor and node > 0:
        node = heads[node]
    return node == ancestor


def yield_of(heads, node):
    return [k for k in range(len(heads)) if dominates(heads, node, k)]


def brute_nonprojective(heads):
    return [d for d in range(1, len(heads))
            if any(not dominates(heads, heads[d], k)
                   for k in range(min(heads[d], d) + 1, max(heads[d], d)))]


def brute_crossing(heads, include_root=False):
    arcs = [(min(heads[d], d), max(heads[d], d), d) for d in range(1, len(heads)) if include_root or heads[d]]
    return sorted(tuple(sorted((d1, d2))) for (a, b, d1), (c, e, d2) in itertools.combinations(arcs, 2)
                  if a < c < b < e or c < a < e < b)


def brute_min_planes(heads):
    """Smallest m such that some m-colouring of the crossing arcs has no crossing pair in one colour."""
    pairs = brute_crossing(heads)
    crossing = sorted({d for pair in pairs for d in pair})
    for m in itertools.count(1):
        for colours in itertools.product(range(m), repeat=len(crossing)):
            plane = dict(zip(crossing, colours))
            if all(plane[a] != plane[b] for a, b in pairs):
                return m


def brute_well_nested(heads):
    n = len(heads) - 1
    for u, v in itertools.permutations(range(1, n + 1), 2):
        if dominates(heads, u, v) or dominates(heads, v, u):
            continue
        tu, tv = yield_of(heads, u), yield_of(heads, v)
        # l1 < l2 < r1 < r2 with l1, r1 in T(u) and l2, r2 in T(v): take l1 = min T(u), r2 = max T(v).
        if any(tu[0] < l2 < r1 < tv[-1] for l2 in tv for r1 in tu):
            return False
    return True


def brute_gaps(heads, node):
    positions = yield_of(heads, node)
    return sum(1 for a, b in zip(positions, positions[1:]) if b - a > 1)


def brute_inorder(heads, node=0):
    children = [d for d in range(1, len(heads)) if heads[d] == node]
    return ([k for c in children if c < node for k in brute_inorder(heads, c)] + [node]
            + [k for c in children if c > node for k in brute_inorder(heads, c)])


# Well-formedness.

def walk_to_root(heads, node):
    """Following heads from node reaches 0 within n steps (no cycle on the way)."""
    for _ in range(len(heads)):
        if node == 0:
            return True
        node = heads[node]
    return False


@given(st.integers(0, 9).flatmap(lambda n: st.lists(st.integers(-1, n + 1), min_size=n, max_size=n)),
       st.booleans())
@pytest.mark.slow
@settings(max_examples=300)
def test_check_tree_matches_definition(words, single_root):
    heads = [-1, *words]
    n = len(words)
    reaches_root = all(0 <= h <= n for h in words) and all(walk_to_root(heads, d) for d in range(1, n + 1))
    well_formed = reaches_root and (not single_root or words.count(0) == 1 or n == 0)
    reason = tree.check_tree(heads, single_root=single_root)
    assert (reason is None) == well_formed, reason
    if reason is not None:
        assert isinstance(reason, str) and reason


@given(trees())
def test_random_trees_are_well_formed(heads):
    assert tree.check_tree(heads) is None
    assert tree.check_tree(np.asarray(heads, dtype=np.int32)) is None


@pytest.mark.parametrize("heads, words", [
    ([-1, 2, 3, 1], "cycle"),            # 1 → 3 → 2 → 1, nothing attached to 0
    ([-1, 0, 3, 2], "cycle 2 → 3 → 2"),  # a cycle beside a rooted part: not connected
    ([-1, 0, 2], "own head"),
    ([-1, 0, -1], "no head"),
    ([-1, 0, 7], "outside"),
])
def test_check_tree_reasons(heads, words):
    assert words in tree.check_tree(heads)


def test_several_roots_allowed_unless_single_root():
    assert tree.check_tree(CZECH) is None  # Nivre (2008) Figure 1 attaches 3 and 8 to ROOT
    assert "2 words are attached to the root" in tree.check_tree(CZECH, single_root=True)
    assert tree.check_tree(ENGLISH, single_root=True) is None


# Projectivity and projective order.

def test_paper_examples_projectivity():
    assert tree.nonprojective_arcs(CZECH) == [1]  # "the arc (5, AuxP, 1) spans node 3"
    assert not tree.is_projective(CZECH)
    assert tree.is_projective(ENGLISH) and tree.nonprojective_arcs(ENGLISH) == []
    assert tree.nonprojective_arcs(HEARING) == [5, 8]  # hearing → on, scheduled → today


def test_paper_projective_order():
    # "A1 < hearing2 < on5 < the6 < issue7 < is3 < scheduled4 < today8 < .9" (Nivre 2009, §3.2)
    position = tree.projective_order(HEARING)
    assert sorted(range(10), key=position.__getitem__) == [0, 1, 2, 5, 6, 7, 3, 4, 8, 9]
    assert tree.projective_order(ENGLISH) == list(range(10))


@pytest.mark.slow
@given(trees())
@settings(max_examples=300)
def test_nonprojective_arcs_match_definition(heads):
    found = tree.nonprojective_arcs(heads)
    assert found == brute_nonprojective(heads)
    assert tree.is_projective(heads) == (not found)


@pytest.mark.slow
@given(trees())
@settings(max_examples=200)
def test_projective_order_is_the_inorder_and_makes_the_tree_projective(heads):
    position = tree.projective_order(heads)
    assert sorted(range(len(heads)), key=position.__getitem__) == brute_inorder(heads)
    renumbered = [-1] * len(heads)
    for d in range(1, len(heads)):
        renumbered[position[d]] = position[heads[d]]
    assert brute_nonprojective(renumbered) == []
    if not brute_nonprojective(heads):
        assert position == list(range(len(heads)))


# Crossings, planarity, m-planarity.

def test_paper_example_crossings():
    assert tree.crossing_pairs(HEARING) == [(5, 8), (5, 9)]
    assert tree.planarity(HEARING)[0] == 2
    assert tree.crossing_pairs(CZECH) == [(1, 6)]  # 5 → 1 crosses 3 → 6 and not tree.is_planar(CZECH)
    assert tree.is_planar(ENGLISH, include_root=True)


@pytest.mark.slow
@given(trees(), st.booleans())
@settings(max_examples=300)
def test_crossing_pairs_match_definition(heads, include_root):
    pairs = tree.crossing_pairs(heads, include_root=include_root)
    assert pairs == brute_crossing(heads, include_root)
    assert tree.is_planar(heads, include_root=include_root) == (not pairs)


@pytest.mark.slow
@given(trees())
@settings(max_examples=300)
def test_planar_with_root_arcs_iff_projective(heads):
    # Gómez-Rodríguez and Nivre (2010), footnote 3.
    assert tree.is_planar(heads, include_root=True) == tree.is_projective(heads)


@pytest.mark.slow
@given(trees(max_words=10), st.booleans())
@settings(max_examples=200)
def test_planarity_is_minimal_and_planes_do_not_cross(heads, include_root):
    m, planes = tree.planarity(heads, include_root=include_root)
    considered = [d for d in range(1, len(heads)) if include_root or heads[d]]
    assert sorted(planes) == considered
    assert set(planes.values()) <= set(range(m))
    assert all(planes[a] != planes[b] for a, b in tree.crossing_pairs(heads, include_root=include_root))
    if not include_root:
        assert m == brute_min_planes(heads)


def test_planarity_needs_three_and_four_planes():
    # Three pairwise crossing arcs (a triangle in the crossings graph): 1 → 4, 2 → 5, 3 → 6.
    triangle = [-1, 0, 0, 0, 1, 2, 3]
    assert tree.crossing_pairs(triangle) == [(4, 5), (4, 6), (5, 6)]
    assert tree.planarity(triangle)[0] == brute_min_planes(triangle) == 3
    # Four pairwise crossing arcs 1 → 5, 2 → 6, 3 → 7, 4 → 8 need four planes.
    k4 = [-1, 0, 0, 0, 0, 1, 2, 3, 4]
    m, planes = tree.planarity(k4)
    assert m == 4 and sorted(planes[d] for d in (5, 6, 7, 8)) == [0, 1, 2, 3]


def test_planarity_of_a_tree_without_word_arcs():
    assert tree.planarity([-1, 0]) == (1, {})
    assert tree.planarity([-1, 0], include_root=True) == (1, {1: 0})


# Well-nestedness, gap degree, arc lengths.

def test_paper_example_nestedness_and_gaps():
    # T(hearing) = {1, 2, 5, 6, 7} and T(scheduled) = {4, 8} interleave: 2 < 4 < 5 < 8.
    assert not tree.is_well_nested(HEARING)
    assert tree.gaps(HEARING)[2] == 1 and tree.gaps(HEARING)[4] == 1 and tree.gap_degree(HEARING) == 1
    assert tree.is_well_nested(CZECH) and tree.gap_degree(CZECH) == 1  # T(5) = {1, 2, 4, 5}
    assert tree.is_well_nested(ENGLISH) and tree.gap_degree(ENGLISH) == 0


@pytest.mark.slow
@given(trees(max_words=10))
@settings(max_examples=300, deadline=None)  # the brute-force definition is exponential: no time limit under load
def test_well_nestedness_matches_definition(heads):
    assert tree.is_well_nested(heads) == brute_well_nested(heads)


@pytest.mark.slow
@given(trees())
@settings(max_examples=300)
def test_gaps_match_definition(heads):
    found = tree.gaps(heads)
    assert found == [brute_gaps(heads, node) for node in range(len(heads))]
    assert tree.gap_degree(heads) == max(found)
    # A tree is projective iff every yield is an interval.
    assert (tree.gap_degree(heads) == 0) == tree.is_projective(heads)


def test_arc_lengths():
    assert tree.arc_lengths(ENGLISH).tolist() == [0, 1, 1, 3, 1, 2, 1, 1, 2, 6]
