"""Maximum spanning tree decoding with Chu-Liu-Edmonds (McDonald et al. 2005, §3.1),
contracting in place: O(n²) time and memory, no recursion (Tarjan 1977, "Finding
optimum branchings", with the expansion of Camerini, Fratta & Maffioli 1979).

Every node picks its best head; a cycle is contracted into one node whose incoming
arcs are rescored by what breaking the cycle there costs (``arc[u, m] - arc[head(m), m]``
for the member m it enters) and whose outgoing arcs are the best of its members'. The
contracted node takes the slot of one member in the one score matrix, so a contraction
rewrites one row and one column: O(n · cycle length), O(n²) over all contractions. Each
entry remembers the original arc behind it (``origin``), so expanding needs no scores:
the arc chosen into a contracted node is the original arc into the member it enters,
and the cycle's other members keep their cycle arcs (Camerini et al.'s correction of
Tarjan's expansion), down the tree of contractions.

Ties are broken as the recursive formulation (one smaller matrix per cycle, outside nodes
first and the contracted node last) broke them, so trees are the same to the last arc:
the earlier node wins among equal scores, a contracted node counting as later than every
node present when it was made; the first cycle contracted is the one reached from the
earliest node that does not reach the root, listed from where that walk enters it; a
contracted node's best arc in or out comes from its earliest member in that order.

Single root: every tree has at least one arc from node 0, so lowering all root arcs
by a constant larger than any difference between two trees' scores makes the best
tree one with exactly one root arc, and among those the order is unchanged. The
constant is (n + 1) times the range of the finite scores, plus one, so the result is
exact.
"""

from __future__ import annotations

import numpy as np

from barley.tree import check_tree

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
        unique = _unique_best_tree(scores)
        if unique is not None:
            return unique
        finite = np.isfinite(scores)  # a mask, not a copy of the finite scores
        spread = scores.max(where=finite, initial=NEG) - scores.min(where=finite, initial=np.inf)
        del finite
        scores[0, 1:] -= spread * size + 1.0
    return _Contraction(scores).tree()


def _unique_best_tree(scores: np.ndarray) -> np.ndarray | None:
    """Each word's best head, if that is a tree with one root and each best head beats every other
    head strictly: then it is the best single-rooted tree and the only one, so the contractions
    (and the root penalty, which always needs one) are not needed. A trained scorer gives such a
    tree for most sentences; ties or a cycle give None."""
    words = scores[:, 1:]
    top_two = np.partition(words, -2, axis=0)[-2:]
    if not np.all(top_two[1] > top_two[0]):
        return None
    heads = np.concatenate([[-1], words.argmax(axis=0)])
    if np.count_nonzero(heads[1:] == 0) != 1 or check_tree(heads.tolist()) is not None:
        return None
    return heads


def _first_best(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The largest value of each column and its row, the earliest row on ties (as
    ``argmax(axis=0)``, but one pass per row, without the transposed copy that argmax makes)."""
    best, pick = values[0].copy(), np.zeros(values.shape[1], dtype=np.int64)
    for row in range(1, len(values)):
        better = values[row] > best
        best[better] = values[row][better]
        pick[better] = row
    return best, pick


class _Contraction:
    """The state of Chu-Liu-Edmonds on one score matrix, which it overwrites.

    Matrix rows and columns are *slots*; a slot holds a *node*: nodes 0..n-1 are the
    words (node k in slot k at first), nodes n, n+1, … the contracted cycles in the
    order they are made, which is also the order of precedence among equal scores.
    A dead slot's row is -inf (no arc leaves it); its column is never read again.
    """

    def __init__(self, scores: np.ndarray):
        size = len(scores)
        self.size, self.scores = size, scores
        self.origin = np.arange(size * size, dtype=np.int32 if size * size < 2**31 else np.int64).reshape(size, size)
        slots = np.arange(size)
        self.node_of = slots.copy()
        self.slot_of = np.concatenate([slots, np.zeros(size, dtype=np.int64)])
        self.alive = np.ones(size, dtype=bool)
        self.node_alive = np.zeros(2 * size, dtype=bool)
        self.node_alive[:size] = True
        self.next_node = size
        # The best head of each slot, the best score into it, how many live rows have
        # that score (a head in a cycle is replaced by the cycle only if it was the
        # only one), and a node below which no live node has it, so that the next
        # holder of the best score is searched from there on.
        self.best, self.heads = _first_best(scores)  # argmax(axis=0) would copy the matrix
        self.heads[0] = 0
        self.holders = (scores == self.best).sum(axis=0)
        self.searched_to = self.heads.copy()
        # The contractions: each node's cycle, the original arc chosen into it, and its parent.
        self.members: dict[int, list[int]] = {}
        self.arc_into = np.zeros(2 * size, dtype=np.int64)
        self.parent = np.full(2 * size, -1, dtype=np.int64)
        # The walk that looks for cycles, as the recursive algorithm's scan from node 1 on:
        # slots known to reach the root, the walk's path and each slot's place on it.
        self.reaches_root = np.zeros(size, dtype=bool)
        self.reaches_root[0] = True
        self.path: list[int] = []
        self.place = np.full(size, -1, dtype=np.int64)
        self.next_start = 1

    def tree(self) -> np.ndarray:
        while (cycle := self._next_cycle()) is not None:
            self._contract(np.array(cycle, dtype=np.int64))
        return self._expand()

    # --- finding cycles -----------------------------------------------------------------

    def _next_cycle(self) -> list[int] | None:
        """The cycle (slots, in head order from where the walk enters it) that the
        recursive algorithm would contract next, or None when the heads form a tree.

        Walks from the earliest node not known to reach the root. A contraction changes
        no head outside the cycle's basin, so what reached the root still does, and
        the walk resumes from the part of its path before the cycle.
        """
        path, place = self.path, self.place
        while True:
            if not path:
                start = self._next_start()
                if start is None:
                    return None
                place[start] = 0
                path.append(start)
            head = self.heads[path[-1]]
            if self.reaches_root[head]:
                self.reaches_root[path] = True
                place[path] = -1
                path.clear()
            elif place[head] >= 0:
                cycle = path[place[head]:]
                del path[place[head]:]
                place[cycle] = -1
                return cycle
            else:
                place[head] = len(path)
                path.append(head)

    def _next_start(self) -> int | None:
        while self.next_start < self.next_node:
            node = self.next_start
            if self.node_alive[node] and not self.reaches_root[self.slot_of[node]]:
                return int(self.slot_of[node])
            self.next_start += 1
        return None

    # --- contracting --------------------------------------------------------------------

    def _contract(self, cycle: np.ndarray) -> None:
        scores, origin = self.scores, self.origin
        rows = np.arange(self.size)
        kept = scores[self.heads[cycle], cycle]
        member_nodes = self.node_of[cycle]
        self.arc_into[member_nodes] = origin[self.heads[cycle], cycle]
        # into the cycle: the best of breaking it at each member (the earliest member on ties)
        into, pick = _first_best(scores[:, cycle].T - kept[:, None])
        into_origin = origin[rows, cycle[pick]]
        # out of the cycle: the best member's arc to each node
        leave = scores[cycle]
        out, pick = _first_best(leave)
        out_origin = origin[cycle[pick], rows]
        self.holders -= (leave == self.best).sum(axis=0)
        self.holders += out == self.best
        del leave

        slot, node = int(cycle[0]), self.next_node
        self.next_node += 1
        scores[cycle] = NEG  # dead rows; dead columns are never read again
        into[cycle] = out[cycle] = NEG
        scores[:, slot], scores[slot] = into, out
        origin[:, slot], origin[slot] = into_origin, out_origin
        self.alive[cycle] = False
        self.alive[slot] = True
        self.node_alive[member_nodes] = False
        self.node_alive[node] = True
        self.node_of[slot], self.slot_of[node] = node, slot
        self.parent[member_nodes] = node
        self.members[node] = member_nodes.tolist()
        self.reaches_root[slot] = False

        # the new node's head: its best arc in, from the earliest node among equals
        self.best[slot] = into.max()
        holding = np.flatnonzero(self.alive & (into == self.best[slot]))
        first = holding[self.node_of[holding].argmin()]
        self.heads[slot], self.searched_to[slot], self.holders[slot] = first, self.node_of[first], len(holding)
        # nodes whose head was in the cycle now hang from it, unless an earlier node ties
        in_cycle = np.zeros(self.size, dtype=bool)
        in_cycle[cycle] = True
        moved = np.flatnonzero(self.alive & in_cycle[self.heads])
        tied = moved[self.holders[moved] > 1]
        searched_to = self.searched_to[tied]  # the dead heads' nodes
        self.heads[moved], self.searched_to[moved] = slot, node
        if tied.size:
            self._earliest_holders(tied, searched_to)

    def _earliest_holders(self, columns: np.ndarray, start: np.ndarray) -> None:
        """Give each slot of ``columns`` its earliest live head among those with its best
        score, searching nodes in order from ``start``, in widening windows.

        No node before a column's ``searched_to`` is a live holder, and holders only die or
        are added at the end (new nodes), so each column's search only ever moves forward.
        """
        scores, best = self.scores, self.best
        width = 8
        while columns.size:
            nodes = np.minimum(start[:, None] + np.arange(width), self.next_node - 1)
            hit = self.node_alive[nodes] & (scores[self.slot_of[nodes], columns[:, None]] == best[columns, None])
            found = hit.any(axis=1)
            first = nodes[found, hit[found].argmax(axis=1)]
            self.heads[columns[found]], self.searched_to[columns[found]] = self.slot_of[first], first
            columns, start = columns[~found], start[~found] + width
            width *= 2

    # --- expanding ----------------------------------------------------------------------

    def _expand(self) -> np.ndarray:
        """Heads of the words: every node left takes its best arc; a contracted node's arc
        goes to the word it enters, and the other members of every cycle between that word
        and the node keep their cycle arcs (Camerini et al. 1979)."""
        size = self.size
        final = np.flatnonzero(self.alive)[1:]
        self.arc_into[self.node_of[final]] = self.origin[self.heads[final], final]
        heads = np.full(size, -1, dtype=np.int64)
        todo = self.node_of[final].tolist()
        while todo:
            node = todo.pop()
            head, word = divmod(int(self.arc_into[node]), size)
            heads[word] = head
            below = word
            while below != node:
                above = int(self.parent[below])
                todo.extend(member for member in self.members[above] if member != below)
                below = above
        return heads
