"""Maximum spanning tree decoding with Chu-Liu-Edmonds (McDonald et al. 2005, §3.1).

Every node picks its best head; a cycle is contracted into one node whose
incoming arcs are rescored by what breaking the cycle there costs, the smaller
graph is solved recursively, and the cycle is expanded again. Each level is a few
numpy operations over the score matrix.

Single root: every tree has at least one arc from node 0, so lowering all root arcs
by a constant larger than any difference between two trees' scores makes the best
tree one with exactly one root arc, and among those the order is unchanged. The
constant is (n + 1) times the range of the finite scores, plus one, so the result is
exact.
"""

from __future__ import annotations

import numpy as np

NEG = -np.inf


def chu_liu_edmonds(arc: np.ndarray, single_root: bool = True) -> np.ndarray:
    """The highest-scoring (possibly non-projective) tree under ``arc[h, d]``.

    Returns heads (int array of length n+1, ``heads[0] == -1``).
    """
    scores = np.array(arc, dtype=np.float64)
    size = scores.shape[0]
    scores[:, 0] = NEG
    np.fill_diagonal(scores, NEG)
    if size <= 2:
        heads = np.full(size, -1, dtype=np.int64)
        heads[1:] = 0
        return heads
    if single_root:
        finite = scores[np.isfinite(scores)]
        scores[0, 1:] -= (finite.max() - finite.min()) * size + 1.0
    return _maximum_arborescence(scores)


def _find_cycle(heads: np.ndarray) -> list[int] | None:
    """A cycle in the head graph, as a list of nodes, or None."""
    size = len(heads)
    mark = np.zeros(size, dtype=np.int64)  # 0: unseen; k: first seen on the walk from node k
    for start in range(1, size):
        node = start
        path = []
        while node > 0 and mark[node] == 0:
            mark[node] = start
            path.append(node)
            node = heads[node]
        if node > 0 and mark[node] == start:
            return path[path.index(node):]
    return None


def _maximum_arborescence(scores: np.ndarray) -> np.ndarray:
    heads = scores.argmax(axis=0).astype(np.int64)
    heads[0] = -1
    cycle = _find_cycle(heads)
    if cycle is None:
        return heads
    size = scores.shape[0]
    cyc = np.array(cycle)
    in_cycle = np.zeros(size, dtype=bool)
    in_cycle[cyc] = True
    outside = np.flatnonzero(~in_cycle)  # node 0 is never in a cycle, so it stays first
    c = len(outside)  # the contracted node's index in the smaller graph
    kept = scores[heads[cyc], cyc]  # the cycle's arc into each member
    enter = scores[np.ix_(outside, cyc)] - kept[None, :]
    leave = scores[np.ix_(cyc, outside)]
    smaller = np.full((c + 1, c + 1), NEG)
    smaller[:c, :c] = scores[np.ix_(outside, outside)]
    smaller[:c, c] = enter.max(axis=1)
    smaller[c, :c] = leave.max(axis=0)
    smaller[:, 0] = NEG
    sub = _maximum_arborescence(smaller)

    result = heads.copy()  # cycle members keep their cycle heads, but one
    leave_from = cyc[leave.argmax(axis=0)]
    for k in range(1, c):
        result[outside[k]] = leave_from[k] if sub[k] == c else outside[sub[k]]
    u = sub[c]
    result[cyc[enter[u].argmax()]] = outside[u]
    return result
