"""Planar parsing (Gómez-Rodríguez & Nivre 2010 §4, Figure 3).

Configurations (Σ, B, A), initially ([], [1..n], ∅); terminal when B is empty.
A variant of arc-eager whose ARC transitions only add an arc (they neither pop
nor push), so that a word may be covered by an arc before it gets its own head:

=================  =============================================  ==========================================
transition         effect                                         precondition
=================  =============================================  ==========================================
LEFT-ARC_l         (Σ|i, j|B, A) ⇒ (Σ|i, j|B, A ∪ {(j, l, i)})    i has no head (single head), not i ↔* j
RIGHT-ARC_l        (Σ|i, j|B, A) ⇒ (Σ|i, j|B, A ∪ {(i, l, j)})    j has no head (single head), not i ↔* j
REDUCE             (Σ|i, B, A) ⇒ (Σ, B, A)
SHIFT              (Σ, i|B, A) ⇒ (Σ|i, B, A)
=================  =============================================  ==========================================

Sound and complete for planar forests (§4.3); at most n SHIFTs, n REDUCEs and n
arcs, so O(n) transitions.

*Acyclicity.* Figure 3 forbids any undirected path i ↔* j. The word receiving a
head has none (single head), so its weakly connected component is the tree it
roots, and the test is the union-find query :meth:`Forest.reaches` (amortized
constant time, the "weakly connected component of each node" of §4.2).

*The root.* Figure 3 starts with an empty stack: node 0 is never on it, so no
transition builds an arc from 0. The words left without a head are the roots of the
forest; :meth:`TransitionSystem.finalize` attaches them to 0 (with ``single_root``,
the first one, and the others under it). This is why planarity here leaves out the
root arcs, as in the paper: with 0 on the stack, planarity would be projectivity
(§2.3, footnote 3). A consequence: the root arcs all get the label ``finalize`` is
given (UD's ``root``).

*Oracle.* The one of the completeness proof (§4.3), for Σ|i and j|B: LEFT-ARC if
j → i is a pending gold arc, RIGHT-ARC if i → j is, REDUCE if j has a pending arc
to a word left of i, SHIFT otherwise. A gold forest outside the class is first cut
down to the planar forest :func:`split_into_planes` keeps (shortest arcs first), so
the oracle still ends in the nearest tree it can build.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from barley.systems.base import NO_HEAD, Action, Forest, State, TransitionSystem, require_gold_arcs
from barley.tree import check_tree

LEFT_ARC, RIGHT_ARC, REDUCE, SHIFT = range(4)


@dataclass
class PlaneSplit:
    """The arcs between words an m-planar system can build, and their crossings graph.

    ``heads``: per dependent, its head if the arc is kept, else -1 (root words and
    dropped arcs). ``component``/``parity``: per kept arc (by dependent), an id of its
    connected component in the crossings graph of the kept arcs and its side of that
    component's 2-colouring (Gómez-Rodríguez & Nivre 2010 §3); -1 for no arc.
    ``dropped``: how many gold arcs between words had to be left out.
    """

    heads: list[int]
    component: list[int]
    parity: list[int]
    dropped: int


def split_into_planes(heads: Sequence[int], planes: int) -> PlaneSplit:
    """Keep the arcs between words that fit on ``planes`` (1 or 2) planes.

    For a forest that is ``planes``-planar (root arcs left out) every arc is kept.
    Otherwise arcs are taken shortest first, and one is dropped if it would close a
    cycle, cross a kept arc (1 plane), or make the crossings graph of the kept arcs
    non-bipartite (2 planes): what is kept is a maximal forest of the class, and
    short arcs, the most numerous, are the last to go. Bipartiteness is tracked with a union-find that keeps each arc's
    parity relative to its representative, so the 2-colouring comes for free.
    """
    n = len(heads) - 1
    arcs = sorted((abs(int(heads[d]) - d), d) for d in range(1, n + 1) if 1 <= heads[d] <= n and heads[d] != d)
    dependents = [d for _, d in arcs]
    lo = np.array([min(int(heads[d]), d) for d in dependents], dtype=np.int64)
    hi = np.array([max(int(heads[d]), d) for d in dependents], dtype=np.int64)
    # cross[a, b]: arcs a and b cross (§2.3: one starts strictly inside the other and ends outside it)
    starts_inside = (lo[:, None] < lo[None, :]) & (lo[None, :] < hi[:, None]) & (hi[:, None] < hi[None, :])
    cross = starts_inside | starts_inside.T

    parent = list(range(len(arcs)))
    relative = [0] * len(arcs)  # parity of an arc relative to its parent

    def find(a: int) -> tuple[int, int]:
        """The representative of arc a's component, and a's parity relative to it."""
        path = []
        while parent[a] != a:
            path.append(a)
            a = parent[a]
        root, parity = a, 0
        for b in reversed(path):  # path compression, starting next to the root
            parity ^= relative[b]
            parent[b], relative[b] = root, parity
        return root, parity

    def opposite_sides(crossed: list[int]) -> dict[int, int] | None:
        """Per component of the crossed arcs, the crossed arcs' parity in it; None if two
        crossed arcs of one component lie on different sides (the new arc, opposite to
        both, would close an odd cycle)."""
        sides: dict[int, int] = {}
        for root, side in map(find, crossed):
            if sides.setdefault(root, side) != side:
                return None
        return sides

    kept = np.zeros(len(arcs), dtype=bool)
    forest = Forest(n)
    for index, dependent in enumerate(dependents):
        head = int(heads[dependent])
        if forest.reaches(head, dependent):
            continue
        crossed = np.nonzero(cross[index, :index] & kept[:index])[0]
        if planes == 1 and len(crossed):
            continue
        sides = opposite_sides(crossed.tolist())
        if sides is None:
            continue
        for root, side in sides.items():  # the new arc goes opposite to every arc it crosses
            parent[root], relative[root] = index, side ^ 1
        kept[index] = True
        forest.link(head, dependent)

    target, component, parity = [NO_HEAD] * (n + 1), [NO_HEAD] * (n + 1), [NO_HEAD] * (n + 1)
    for index, dependent in enumerate(dependents):
        if kept[index]:
            target[dependent] = int(heads[dependent])
            component[dependent], parity[dependent] = find(index)
    return PlaneSplit(target, component, parity, len(arcs) - int(kept.sum()))


def legal_on_stack(state: State) -> list[bool]:
    """Figure 3's preconditions of LEFT-ARC, RIGHT-ARC, REDUCE and SHIFT for Σ|i and j|B,
    Σ = ``state.stack`` (in the 2-planar system, the active stack: Figure 4)."""
    stack, buffer = state.stack, state.buffer
    if not (stack and buffer):
        return [False, False, bool(stack), bool(buffer)]
    i, j = stack[-1], buffer[0]
    return [
        not state.has_head(i) and not state.forest.reaches(j, i),
        not state.has_head(j) and not state.forest.reaches(i, j),
        True,
        True,
    ]


class Planar(TransitionSystem):
    name = "planar"
    aliases = ("planar",)
    moves = ("LEFT-ARC", "RIGHT-ARC", "REDUCE", "SHIFT")
    labeled = (True, True, False, False)
    attaches = (("Stack", 0), ("Input", 0), None, None)
    tree_class = "planar"

    def initial(self, n: int) -> State:
        return State(n, stack=[], buffer=deque(range(1, n + 1)))

    def legal(self, state: State) -> list[bool]:
        return legal_on_stack(state)

    def apply(self, state: State, move: int, label: int = -1) -> None:
        stack, buffer = state.stack, state.buffer
        if move == LEFT_ARC:
            state.add_arc(buffer[0], stack[-1], label)
        elif move == RIGHT_ARC:
            state.add_arc(stack[-1], buffer[0], label)
        elif move == REDUCE:
            stack.pop()
        elif move == SHIFT:
            stack.append(buffer.popleft())
        else:
            raise ValueError(f"planar has no move {move}")
        state.transitions += 1

    def is_terminal(self, state: State) -> bool:
        return not state.buffer

    def oracle(self, heads: Sequence[int], labels: Sequence[int]) -> Callable[[State], Action]:
        """§4.3's oracle on the planar forest of the gold arcs between words."""
        split = split_into_planes(heads, 1)
        target = split.heads
        inside = split.dropped == 0 and check_tree(heads, self.single_root) is None
        left_links = [0] * len(heads)  # per word: its gold arcs with words on its left
        for d in range(1, len(heads)):
            if target[d] != NO_HEAD:
                left_links[max(d, target[d])] += 1

        def next_action(state: State) -> Action:
            j = state.buffer[0]
            if state.stack:
                i = state.stack[-1]
                if target[i] == j and not state.has_head(i):
                    return LEFT_ARC, labels[i]
                if target[j] == i and not state.has_head(j):
                    return RIGHT_ARC, labels[j]
                # While j is at the front, its arcs built so far are all with words on its
                # left (its children and its head); a pending one is with a word below i.
                if len(state.children[j]) + state.has_head(j) < left_links[j]:
                    return REDUCE, -1
            if inside and len(state.buffer) == 1:
                require_gold_arcs(self, state, target)
            return SHIFT, -1

        return next_action
