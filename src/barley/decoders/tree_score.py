"""Scores of whole trees under the first-order and the sibling (second-order) factorisation.

First order (McDonald, Crammer & Pereira 2005): the sum of ``arc[h, d]`` over arcs.
Second order (McDonald & Pereira 2006): every dependent d of h is scored together
with its adjacent inner sibling s, the dependent of h on the same side that is
next closer to h (``s == h`` when d is h's closest dependent on that side):
``sibling[h, s, d]``. Arc scores are added on top, so a model may put its
first-order part in ``arc`` and only the interaction in ``sibling``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def tree_score(heads: Sequence[int], arc: np.ndarray) -> float:
    """Sum of ``arc[heads[d], d]`` for d = 1..n."""
    head_of = np.asarray(heads)
    dependents = np.arange(1, len(head_of))
    return float(arc[head_of[1:], dependents].sum())


def inner_siblings(heads: Sequence[int] | np.ndarray) -> list[int]:
    """For every node d, its adjacent sibling towards its head (the head itself for the closest).

    Entry 0 is -1 (the root has no head).
    """
    n = len(heads) - 1
    inner = [-1] * (n + 1)
    last_left: dict[int, int] = {}
    for d in range(n, 0, -1):  # left dependents: closest to the head is the rightmost
        h = heads[d]
        if d < h:
            inner[d] = last_left.get(h, h)
            last_left[h] = d
    last_right: dict[int, int] = {}
    for d in range(1, n + 1):  # right dependents: closest to the head is the leftmost
        h = heads[d]
        if d > h:
            inner[d] = last_right.get(h, h)
            last_right[h] = d
    return inner


def sibling_tree_score(heads: Sequence[int], arc: np.ndarray, sibling: np.ndarray) -> float:
    """First-order score plus ``sibling[h, s, d]`` for each dependent d with inner sibling s."""
    inner = inner_siblings(heads)
    head_of = np.asarray(heads)
    dependents = np.arange(1, len(head_of))
    return tree_score(heads, arc) + float(sibling[head_of[1:], np.asarray(inner[1:]), dependents].sum())
