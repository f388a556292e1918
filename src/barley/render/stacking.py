"""Stacking intervals: both drawings place spans (the SVG's arcs, the terminal drawing's
lanes) one above every span placed before that they overlap. :class:`Stack` answers
"the highest level placed over any of the positions first..last" and places a span, each
in O(log n), so a drawing of n words is stacked in O(n log n) instead of comparing every
span with every other.

It is a segment tree over the positions: a node keeps the highest level placed over
its whole range (``cover``) and over any part of it (``highest``). A span is the
O(log n) nodes that tile it; a placed span overlaps a query exactly when one of its
nodes lies inside a tiling node of the query (seen in ``highest``) or contains one
(then it is an ancestor of an end of the query, seen in ``cover``).
"""

from __future__ import annotations


class Stack:
    """Levels placed over positions 0..positions-1; 0 where nothing is placed."""

    def __init__(self, positions: int):
        self.leaves = 1 << max(positions - 1, 0).bit_length()
        self.cover = [0] * (2 * self.leaves)
        self.highest = [0] * (2 * self.leaves)

    def highest_over(self, first: int, last: int) -> int:
        """The highest level placed over any of the positions first..last."""
        result = max(self._covering(first), self._covering(last))
        for node in self._tiling(first, last):
            result = max(result, self.highest[node])
        return result

    def place(self, first: int, last: int, level: int) -> None:
        """Place a span over the positions first..last at ``level``."""
        for node in self._tiling(first, last):
            self.cover[node] = max(self.cover[node], level)
            self.highest[node] = max(self.highest[node], level)
        for end in (first, last):
            node = (end + self.leaves) >> 1
            while node:
                self.highest[node] = max(self.highest[node], level)
                node >>= 1

    def _covering(self, position: int) -> int:
        """The highest level placed over the whole range of an ancestor of ``position``'s leaf."""
        result, node = 0, (position + self.leaves) >> 1
        while node:
            result = max(result, self.cover[node])
            node >>= 1
        return result

    def _tiling(self, first: int, last: int) -> list[int]:
        """The nodes whose ranges tile first..last, fewest first (two per tree level at most)."""
        nodes, low, high = [], first + self.leaves, last + self.leaves + 1
        while low < high:
            if low & 1:
                nodes.append(low)
                low += 1
            if high & 1:
                high -= 1
                nodes.append(high)
            low >>= 1
            high >>= 1
        return nodes
