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


def nonprojective_approximation(heads: Sequence[int] | np.ndarray, arc: np.ndarray,
                                sibling: np.ndarray | None = None,
                                threshold: float = DEFAULT_THRESHOLD,
                                single_root: bool = True) -> tuple[np.ndarray, int]:
    """Improve ``heads`` by greedy reattachments; returns (heads, number of moves made)."""
    improved = np.array(heads, dtype=np.int64)
    moves = 0
    while True:
        gains = _first_order_gains(improved, arc) if sibling is None else _sibling_gains(improved, arc, sibling)
        gains[~_legal_moves(improved, single_root)] = -np.inf
        j, d = np.unravel_index(int(gains.argmax()), gains.shape)
        if not gains[j, d] > threshold:
            return improved, moves
        improved[d] = j
        moves += 1


def _first_order_gains(heads: np.ndarray, arc: np.ndarray) -> np.ndarray:
    gains = np.array(arc, dtype=np.float64)
    gains[:, 1:] -= arc[heads[1:], np.arange(1, len(heads))][None, :]
    gains[:, 0] = -np.inf
    return gains


def _sibling_gains(heads: np.ndarray, arc: np.ndarray, sibling: np.ndarray) -> np.ndarray:
    """``gains[j, d]``: the change of the sibling-factored score when d moves under j.

    Removing d from its head h joins its inner and outer siblings; inserting it
    under j splits the pair of j's dependents around d on that side. For one d, all
    candidate heads j are handled at once: ``child[j, c]`` marks c as j's dependent,
    and the nearest dependents on either side of d come from masked max/min.
    """
    size = len(heads)
    nodes = np.arange(size)
    child = np.zeros((size, size), dtype=bool)
    child[heads[1:], nodes[1:]] = True
    gains = np.full((size, size), -np.inf)
    j = nodes  # candidate heads, one row each
    for d in range(1, size):
        h = heads[d]
        kids = nodes[child[h]]
        if d > h:
            inner_old = kids[(kids > h) & (kids < d)].max(initial=h)
            beyond_old = kids[kids > d]
            outer_old = beyond_old.min() if beyond_old.size else size  # size: no outer sibling
        else:
            inner_old = kids[(kids < h) & (kids > d)].min(initial=h)
            beyond_old = kids[kids < d]
            outer_old = beyond_old.max() if beyond_old.size else size
        removal = -arc[h, d] - sibling[h, inner_old, d]
        if outer_old < size:
            removal += sibling[h, inner_old, outer_old] - sibling[h, d, outer_old]
        right = j < d  # d would be a right dependent of j
        between = child & np.where(right[:, None], (nodes > j[:, None]) & (nodes < d),
                                   (nodes < j[:, None]) & (nodes > d))
        beyond = child & np.where(right[:, None], nodes > d, nodes < d)
        inner = np.where(right, np.where(between, nodes, -1).max(axis=1),
                         np.where(between, nodes, size).min(axis=1))
        inner = np.where(between.any(axis=1), inner, j)
        outer = np.where(right, np.where(beyond, nodes, size).min(axis=1),
                         np.where(beyond, nodes, -1).max(axis=1))
        has_outer = beyond.any(axis=1)
        outer = np.where(has_outer, outer, 0)
        insertion = arc[j, d] + sibling[j, inner, d]
        insertion += np.where(has_outer, sibling[j, d, outer] - sibling[j, inner, outer], 0.0)
        gains[:, d] = removal + insertion
        gains[h, d] = gains[d, d] = -np.inf
    return gains
