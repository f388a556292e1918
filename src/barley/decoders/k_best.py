"""The k best trees under first-order scores ``arc[h, d]``: projective (k-best Eisner) and
non-projective (k-best spanning trees), best first, each tree once.

**Projective.** Huang & Chiang (2005), "Better k-best parsing", Algorithm 3 (lazy k-best) on
the hypergraph of Eisner's first-order algorithm. The vertices are Eisner's spans (kind, s, t)
(:mod:`barley.decoders.eisner`); a hyperedge is a split point r with two tail spans, and a
derivation of a vertex is an edge with the rank of the derivation used in each tail. Each vertex
keeps its derivations found so far, best first (``D(v)`` in the paper), and a heap of candidates
(``cand[v]``), started from every edge with the best derivation of each tail — whose scores are
Eisner's charts — and grown, each time a derivation is taken, by its two neighbours (one tail's
rank plus one, §4 "LazyNext"). Only the spans that the k best trees reach are ever expanded.
Eisner's hypergraph derives every projective tree exactly once (a complete span splits where its
head's outermost dependent starts, an incomplete one between the two heads' subtrees, the single
root at node 0's one dependent), so the k best derivations are k distinct trees.

**Non-projective.** The partition of the tree space of Camerini, Fratta & Maffioli (1980), as
Zmigrod, Vieira & Cotterell (2021, "On finding the k-best non-projective dependency trees")
use it with a single root: the best tree of a part (some arcs required, some forbidden) is
taken out, and the rest of the part is cut into one part per arc of the tree not yet required —
forbid that arc, require the ones before it — so that no tree is in two parts and none is lost.
The best tree of each part is found by Chu-Liu-Edmonds on the scores with the forbidden arcs and
the other heads of the required arcs' dependents at -inf (Lawler 1972) — or is every word's best
head, where those make a tree — and only for the parts whose upper bound (the sum of each word's
best head left) comes first in the queue; Camerini et al. and Zmigrod et al. find the best "next"
arc to forbid in one O(n²) pass instead, so this costs up to O(k n³) time where theirs costs
O(k n²), with the same trees.

Trees with an impossible arc (score -inf) are never returned, so there are fewer than k when
fewer trees are possible.
"""

from __future__ import annotations

import heapq
import itertools
import sys
from contextlib import contextmanager

import numpy as np

from barley.decoders.eisner import first_order_charts, without_root_heads
from barley.decoders.mst import chu_liu_edmonds
from barley.decoders.tree_score import tree_score
from barley.tree import check_tree

NEG = -np.inf


def eisner_k_best(arc: np.ndarray, k: int, single_root: bool = True) -> list[tuple[float, np.ndarray]]:
    """The ``k`` highest-scoring projective trees under ``arc[h, d]``, best first, as (score, heads)
    pairs (heads as :func:`barley.decoders.eisner.eisner`); fewer when fewer trees are possible."""
    size = arc.shape[0]
    if size == 1:
        return [(0.0, np.full(1, -1, dtype=np.int64))][:k]
    arc = without_root_heads(arc)
    hypergraph = _EisnerHypergraph(arc, single_root)
    trees = []
    with _recursion_depth(8 * size + 100):  # a rank's neighbours are found down a tree's spans
        for rank in range(k):
            if not hypergraph.derivation(_TOP, rank):
                break
            trees.append((hypergraph.derivations[_TOP][rank][0], hypergraph.heads(rank)))
    return trees


_TOP = ("TOP", 0, 0)
"""The vertex of whole trees: with a single root, its edges are node 0's one dependent r
(``CL[1, r] + CR[r, n] + arc[0, r]``); else its one edge is ``CR[0, n]``."""


class _EisnerHypergraph:
    """Eisner's first-order hypergraph over the spans of one sentence, with the lazy k-best
    state of Huang & Chiang's Algorithm 3: ``derivations[v]`` (their D(v)) as (score, split,
    rank of the first tail, rank of the second tail), and ``candidates[v]`` (their cand[v])."""

    def __init__(self, arc: np.ndarray, single_root: bool):
        self.arc, self.single_root, self.n = arc, single_root, arc.shape[0] - 1
        self.chart = dict(zip(("CR", "CL", "IR", "IL"), first_order_charts(arc)[:4]))
        self.derivations: dict[tuple, list[tuple[float, int, int, int]]] = {}
        self.candidates: dict[tuple, list[tuple[float, int, int, int]]] = {}
        self.pushed: dict[tuple, set[tuple[int, int, int]]] = {}

    def tails(self, vertex: tuple, r: int) -> tuple[tuple, tuple | None]:
        """The two spans that the edge of ``vertex`` at split point ``r`` combines."""
        kind, s, t = vertex
        if kind in ("IR", "IL"):
            return ("CR", s, r), ("CL", r + 1, t)
        if kind == "CL":
            return ("CL", s, r), ("IL", r, t)
        if kind == "CR":
            return ("IR", s, r), ("CR", r, t)
        return (("CL", 1, r), ("CR", r, self.n)) if self.single_root else (("CR", 0, self.n), None)

    def weight(self, vertex: tuple, r: int) -> float:
        """The score an edge adds to its tails': the arc it makes, if any."""
        kind, s, t = vertex
        if kind == "IR":
            return self.arc[s, t]
        if kind == "IL":
            return self.arc[t, s]
        return self.arc[0, r] if kind == "TOP" and self.single_root else 0.0

    def _edges(self, vertex: tuple) -> tuple[np.ndarray, np.ndarray]:
        """Every edge's split point and score with the best derivation of each tail, from the charts."""
        kind, s, t = vertex
        CR, CL, IR, IL = (self.chart[name] for name in ("CR", "CL", "IR", "IL"))
        if kind == "TOP":
            if not self.single_root:
                return np.zeros(1, dtype=np.int64), CR[0, self.n:self.n + 1]
            splits = np.arange(1, self.n + 1)
            return splits, CL[1, splits] + CR[splits, self.n] + self.arc[0, splits]
        if kind == "CR":
            splits = np.arange(s + 1, t + 1)
            return splits, IR[s, splits] + CR[splits, t]
        splits = np.arange(s, t)
        if kind == "CL":
            return splits, CL[s, splits] + IL[splits, t]
        return splits, CR[s, splits] + CL[splits + 1, t] + (self.arc[s, t] if kind == "IR" else self.arc[t, s])

    def _start(self, vertex: tuple) -> None:
        """GetCandidates: the best derivation along every edge (a span of one node has one, empty)."""
        kind, s, t = vertex
        if s == t and kind in ("CR", "CL"):
            self.derivations[vertex], self.candidates[vertex], self.pushed[vertex] = [(0.0, -1, 0, 0)], [], set()
            return
        splits, scores = self._edges(vertex)
        finite = np.isfinite(scores)
        heap = [(-float(score), int(r), 0, 0) for r, score in zip(splits[finite], scores[finite])]
        heapq.heapify(heap)
        self.derivations[vertex], self.candidates[vertex] = [], heap
        self.pushed[vertex] = {(r, 0, 0) for _, r, _, _ in heap}

    def derivation(self, vertex: tuple, rank: int) -> bool:
        """LazyKthBest: find the derivations of ``vertex`` up to ``rank`` (from 0); whether it has one of that rank."""
        if vertex not in self.derivations:
            self._start(vertex)
        found, heap = self.derivations[vertex], self.candidates[vertex]
        while len(found) <= rank:
            if found:
                self._push_neighbours(vertex, found[-1])
            if not heap:
                return False
            score, r, first, second = heapq.heappop(heap)
            found.append((-score, r, first, second))
        return True

    def _push_neighbours(self, vertex: tuple, derivation: tuple[float, int, int, int]) -> None:
        """LazyNext: the derivations along the same edge with one tail's rank one higher."""
        _, r, first, second = derivation
        if r < 0:
            return
        head, tail = self.tails(vertex, r)
        for ranks in ((first + 1, second), (first, second + 1)):
            if (r, *ranks) in self.pushed[vertex] or (tail is None and ranks[1]):
                continue
            if not self.derivation(head, ranks[0]) or (tail is not None and not self.derivation(tail, ranks[1])):
                continue
            score = float(self.weight(vertex, r)) + self.derivations[head][ranks[0]][0]
            if tail is not None:
                score += self.derivations[tail][ranks[1]][0]
            self.pushed[vertex].add((r, *ranks))
            if score > NEG:
                heapq.heappush(self.candidates[vertex], (-score, r, *ranks))

    def heads(self, rank: int) -> np.ndarray:
        """The tree of the whole sentence's derivation of ``rank``."""
        heads = np.full(self.n + 1, -1, dtype=np.int64)
        todo = [(_TOP, rank)]
        while todo:
            vertex, rank = todo.pop()
            self.derivation(vertex, rank)  # a tail's best is in the charts until asked for
            _, r, first, second = self.derivations[vertex][rank]
            if r < 0:
                continue
            kind, s, t = vertex
            if kind == "IR":
                heads[t] = s
            elif kind == "IL":
                heads[s] = t
            elif kind == "TOP" and self.single_root:
                heads[r] = 0
            head, tail = self.tails(vertex, r)
            todo.append((head, first))
            if tail is not None:
                todo.append((tail, second))
        return heads


@contextmanager
def _recursion_depth(depth: int):
    """Allow at least ``depth`` nested calls (Python 3.11 calls between Python functions use no C stack)."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, depth))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def spanning_trees_k_best(arc: np.ndarray, k: int, single_root: bool = True) -> list[tuple[float, np.ndarray]]:
    """The ``k`` highest-scoring trees (projective or not) under ``arc[h, d]``, best first, as
    (score, heads) pairs (heads as :func:`barley.decoders.mst.chu_liu_edmonds`); fewer when fewer
    trees are possible.

    Best first over the parts: a part enters the queue with an upper bound of its best tree's
    score (its parent's best, and the sum of its columns' best heads), and its best tree is
    found only when that bound comes first; a tree comes out when its exact score comes first,
    so the parts that cannot reach the k best are never decoded.
    """
    size = arc.shape[0]
    if size == 1:
        return [(0.0, np.full(1, -1, dtype=np.int64))][:k]
    arc = np.array(arc, dtype=np.float64)
    arc[:, 0] = NEG
    np.fill_diagonal(arc, NEG)
    order = itertools.count()  # among equal keys, the part queued first comes out first
    parts: list = []  # (-score or -bound, order, best tree or None for a bound, required, forbidden)

    def decode(required: dict[int, int], forbidden: frozenset[tuple[int, int]]) -> None:
        found = _best_in_part(arc, required, forbidden, single_root)
        if found is not None:
            heapq.heappush(parts, (-found[0], next(order), found[1], required, forbidden))

    decode({}, frozenset())
    trees: list[tuple[float, np.ndarray]] = []
    while parts and len(trees) < k:
        key, _, heads, required, forbidden = heapq.heappop(parts)
        if heads is None:
            decode(required, forbidden)
            continue
        trees.append((-key, heads))
        if len(trees) == k:
            break
        for bound, part_required, part_forbidden in _parts_after(arc, heads, required, forbidden, single_root):
            if bound > NEG:
                heapq.heappush(parts, (-min(bound, -key), next(order), None, part_required, part_forbidden))
    return trees


def _constrained(arc: np.ndarray, required: dict[int, int], forbidden: frozenset[tuple[int, int]],
                 single_root: bool) -> np.ndarray:
    """``arc`` with -inf for the forbidden arcs (head, dependent) and for every other head of the
    required arcs' dependents (dependent → head), and of node 0 when it is a required head."""
    scores = arc.copy()
    for dependent, head in required.items():
        _require(scores, head, dependent, single_root)
    for head, dependent in forbidden:
        scores[head, dependent] = NEG
    return scores


def _require(scores: np.ndarray, head: int, dependent: int, single_root: bool) -> None:
    keep = scores[head, dependent]
    scores[:, dependent] = NEG
    if head == 0 and single_root:
        scores[0, :] = NEG
    scores[head, dependent] = keep


def _parts_after(arc: np.ndarray, heads: np.ndarray, required: dict[int, int],
                 forbidden: frozenset[tuple[int, int]], single_root: bool):
    """The parts that the rest of a part makes once its best tree ``heads`` is out: for each arc of
    the tree not yet required, in order, the part without it and with the ones before it; each with
    an upper bound of its trees' scores, the sum over dependents of their best head left."""
    scores = _constrained(arc, required, forbidden, single_root)
    best = scores.max(axis=0)
    total = best[1:].sum()
    required = dict(required)
    for dependent in range(1, len(heads)):
        if dependent in required:
            continue
        head = int(heads[dependent])
        column = scores[:, dependent].copy()
        column[head] = NEG
        yield total - best[dependent] + column.max(), dict(required), forbidden | {(head, dependent)}
        _require(scores, head, dependent, single_root)
        required[dependent] = head
        if head == 0 and single_root:
            best = scores.max(axis=0)
        else:
            best[dependent] = scores[head, dependent]
        total = best[1:].sum()


def _best_in_part(arc: np.ndarray, required: dict[int, int], forbidden: frozenset[tuple[int, int]],
                  single_root: bool) -> tuple[float, np.ndarray] | None:
    """The best tree with the ``required`` arcs (dependent → head) and without the ``forbidden``
    ones (head, dependent), and its score; None when the part holds no tree. Where every word's
    best head already makes a tree, that is the best tree; else Chu-Liu-Edmonds finds it."""
    scores = _constrained(arc, required, forbidden, single_root)
    heads = scores.argmax(axis=0)
    heads[0] = -1
    if check_tree(heads, single_root) is not None:
        heads = chu_liu_edmonds(scores, single_root)
    score = tree_score(heads, scores)
    if not score > NEG or (single_root and np.count_nonzero(heads == 0) != 1):
        return None
    return score, heads
