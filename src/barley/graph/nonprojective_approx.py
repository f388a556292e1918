"""The non-projective approximation (McDonald & Pereira 2006 §3.2), as given in
Figure 2 of Björkelund & Kuhn.

Start from the best projective tree; find the single reattachment of one word to
a new head that raises the tree's score most while the result is still a tree;
apply it if the gain exceeds the threshold t, else stop. Labels: the caller scores
each (head, dependent) pair with its best allowed label, so choosing the head
also chooses the label, as in the labeled version of the figure.

With first-order scores the gain of moving d from h to j is ``arc[j, d] - arc[h, d]``
and all gains are one numpy expression. With sibling scores the gain is local too:
only the sibling factors next to d under its old and its new head change.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

import numpy as np

DEFAULT_THRESHOLD = 0.3  # tuned by Bohnet (2010), kept by Björkelund & Kuhn


def _descendants(heads: np.ndarray) -> np.ndarray:
    """``below[a, b]``: b is a (reflexive) descendant of a."""
    size = len(heads)
    children: list[list[int]] = [[] for _ in range(size)]
    for d in range(1, size):
        children[heads[d]].append(d)
    order = [0]
    for node in order:  # breadth-first, so every node comes after its head
        order.extend(children[node])
    below = np.eye(size, dtype=bool)
    for node in reversed(order[1:]):
        below[heads[node]] |= below[node]
    return below


def _legal_moves(heads: np.ndarray, single_root: bool) -> np.ndarray:
    """``ok[j, d]``: making j the head of d keeps a tree (and a single root, if asked)."""
    below = _descendants(heads)
    ok = ~below.T  # j must not be d itself or below d
    ok[:, 0] = False
    ok[heads[1:], np.arange(1, len(heads))] = False  # not a move
    if single_root:
        ok[0, :] = False  # the root word cannot move (everything is below it); no second root
    return ok


def nonprojective_approximation(heads: Sequence[int], arc: np.ndarray,
                                sibling: np.ndarray | None = None,
                                threshold: float = DEFAULT_THRESHOLD,
                                single_root: bool = True) -> tuple[np.ndarray, int]:
    """Improve ``heads`` by greedy reattachments; returns (heads, number of moves made)."""
    heads = np.array(heads, dtype=np.int64)
    moves = 0
    gain_of = _first_order_gains if sibling is None else _sibling_gains
    while True:
        gains = gain_of(heads, arc, sibling)
        gains[~_legal_moves(heads, single_root)] = -np.inf
        j, d = np.unravel_index(int(gains.argmax()), gains.shape)
        if not gains[j, d] > threshold:
            return heads, moves
        heads[d] = j
        moves += 1


def _first_order_gains(heads: np.ndarray, arc: np.ndarray, _sibling) -> np.ndarray:
    gains = np.array(arc, dtype=np.float64)
    gains[:, 1:] -= arc[heads[1:], np.arange(1, len(heads))][None, :]
    gains[:, 0] = -np.inf
    return gains


def _side(children: list[int], head: int, d: int) -> list[int]:
    """The dependents of ``head`` on d's side, ordered from the head outwards."""
    if d > head:
        return [c for c in children if c > head]
    return [c for c in reversed(children) if c < head]


def _sibling_gains(heads: np.ndarray, arc: np.ndarray, sibling: np.ndarray) -> np.ndarray:
    size = len(heads)
    children: list[list[int]] = [[] for _ in range(size)]
    for d in range(1, size):
        children[heads[d]].append(d)
    gains = np.full((size, size), -np.inf)
    for d in range(1, size):
        h = heads[d]
        side = _side(children[h], h, d)
        k = side.index(d)
        inner = side[k - 1] if k else h
        removal = -arc[h, d] - sibling[h, inner, d]
        if k + 1 < len(side):
            outer = side[k + 1]
            removal += sibling[h, inner, outer] - sibling[h, d, outer]
        for j in range(size):
            if j == h or j == d:
                continue
            side_j = _side(children[j], j, d)
            distance = [abs(c - j) for c in side_j]
            k = bisect_left(distance, abs(d - j))
            inner = side_j[k - 1] if k else j
            insertion = arc[j, d] + sibling[j, inner, d]
            if k < len(side_j):
                outer = side_j[k]
                insertion += sibling[j, d, outer] - sibling[j, inner, outer]
            gains[j, d] = removal + insertion
    return gains
