"""Arc-standard, stack-based parsing (Nivre 2008 §4.1, Figure 3).

Configurations (σ, β, A), initially ([0], [1..n], ∅); terminal when β is empty.
The arcs join the stack top i and the buffer front j (not the two stack tops, as
in :mod:`barley.systems.stack_projective`); RIGHT-ARC puts the head i back at the
front of the buffer, so a word takes its right dependents only once they are
complete.

=================  ===========================================  =====================
transition         effect                                        precondition
=================  ===========================================  =====================
LEFT-ARC_l         (σ|i, j|β, A) ⇒ (σ, j|β, A ∪ {(j, l, i)})     i ≠ 0, i has no head
RIGHT-ARC_l        (σ|i, j|β, A) ⇒ (σ, i|β, A ∪ {(i, l, j)})     j has no head
SHIFT              (σ, i|β, A) ⇒ (σ|i, β, A)
=================  ===========================================  =====================

Sound and complete for projective forests (Nivre 2008 Theorem 1). A sequence that
builds a tree has exactly 2n transitions: n arcs, each popping one node, and n
SHIFTs to push them (Figure 4: 18 for 9 words, the last SHIFT moving 0 back
from the buffer to the stack).

With ``single_root``, RIGHT-ARC from 0 also requires j to be the last node of the
buffer: the root word leaves the stack with its arc, so attaching it earlier would
leave every later word without a possible head.

Dynamic oracle (Goldberg, Sartorio & Satta 2014): arc-standard is not
arc-decomposable (two gold arcs may each be reachable but not both), so the loss of
a configuration is found by dynamic programming over what the rest of the
computation can build, and a transition costs ℓ(t(c)) − ℓ(c). Seen as a stack
s_ℓ … s_1 s_0 (σ with j = s_0 on top) over the untouched suffix b_1 … b_m of the
sentence (β without j), every remaining computation builds one tree in which

* the words of a suffix span b_p … b_q form a constituent before they meet the
  stack (any projective tree over them: Eisner's tables, one point per gold arc);
* the constituent on top always covers s_i … s_0 b_1 … b_k and grows either to
  the right, by an arc with the head of a constituent b_(k+1) … b_q, or to the
  left, by an arc with s_(i+1) (only the two top nodes are ever joined);

so the tabular item (i, k, h) — that top constituent and its head h — gives the
most gold arcs the future can add, and ℓ(c) is the arcs already lost plus those
the best future misses. Two exact reductions keep the table small: an untouched
word whose whole gold subtree is untouched and whose gold head is not on the stack
is built whole and stands for its subtree (Eisner's tables then run over these
units, per configuration), and heads with no gold arc left outside the item are
interchangeable and merged. O(ℓ·u³ + ℓ·u²·H) per configuration for stack depth ℓ,
u units and H live heads: about 75 ms per sentence of UD_English-EWT dev
(docs/oracles.md). Shrinking the units further, to the words joined to the stack
by a gold arc, is *not* exact (an 11-word counter-example broke it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from barley.systems.base import Action, State, TransitionSystem, projective_gold, require_gold_arcs
from barley.tree import dependents_lists

LEFT_ARC, RIGHT_ARC, SHIFT = range(3)
MERGED = -2
"""The head that stands for every head with no gold arc left outside its item."""


class ArcStandard(TransitionSystem):
    name = "arc-standard"
    aliases = ("nivrestandard",)
    moves = ("LEFT-ARC", "RIGHT-ARC", "SHIFT")
    labeled = (True, True, False)
    attaches = (("Stack", 0), ("Input", 0), None)
    tree_class = "projective"
    dynamic_oracle = True
    exploration_oracle = True
    keeps_partial_gold = True

    def legal(self, state: State) -> list[bool]:
        stack, buffer = state.stack, state.buffer
        has_pair = bool(stack) and bool(buffer)
        i = stack[-1] if stack else -1
        return [
            has_pair and i != 0 and not state.has_head(i),
            has_pair and not state.has_head(buffer[0]) and (i != 0 or self._root_arc_allowed(state)),
            bool(buffer),
        ]

    def _root_arc_allowed(self, state: State) -> bool:
        return self.can_attach_to_root(state) and (not self.single_root or len(state.buffer) == 1)

    def apply(self, state: State, move: int, label: int = -1) -> None:
        stack, buffer = state.stack, state.buffer
        if move == LEFT_ARC:
            state.add_arc(buffer[0], stack.pop(), label)
        elif move == RIGHT_ARC:
            i = stack.pop()
            state.add_arc(i, buffer[0], label)
            buffer[0] = i
        elif move == SHIFT:
            stack.append(buffer.popleft())
        else:
            raise ValueError(f"arc-standard has no move {move}")
        state.transitions += 1

    def is_terminal(self, state: State) -> bool:
        return not state.buffer

    def oracle(self, heads: Sequence[int], labels: Sequence[int]) -> Callable[[State], Action]:
        """Nivre 2008 §4.1 (Figure 4): LEFT-ARC when the stack top's gold head is the
        buffer front; RIGHT-ARC when the buffer front's gold head is the stack top and
        it has all its gold dependents (it leaves for good); otherwise SHIFT."""
        heads, dependents, buildable = projective_gold(self, heads)  # outside the class: the nearest tree

        def next_action(state: State) -> Action:
            stack, buffer = state.stack, state.buffer
            if stack:
                i, j = stack[-1], buffer[0]
                if i != 0 and heads[i] == j and not state.has_head(i):
                    return LEFT_ARC, labels[i]
                if (heads[j] == i and len(state.children[j]) == dependents[j]
                        and (i != 0 or self._root_arc_allowed(state))):
                    return RIGHT_ARC, labels[j]
            if buildable and len(buffer) == 1:
                require_gold_arcs(self, state, heads)
            return SHIFT, -1

        return next_action

    def arc(self, state: State, move: int) -> tuple[int, int]:
        i, j = state.stack[-1], state.buffer[0]
        return (j, i) if move == LEFT_ARC else (i, j)

    def move_costs(self, heads: list[int], labels: Sequence[int]) -> Callable[[State], list[int | None]]:
        """Also exact for a partial gold tree (heads -1: no gold arc, labels -1: any label will do)."""
        future = _FutureArcs(heads, self.single_root)
        n = len(heads) - 1
        given_from = [0] * (n + 2)  # given_from[w]: the words w..n that have a gold head
        for w in range(n, 0, -1):
            given_from[w] = given_from[w + 1] + (heads[w] != -1)

        def lost(state: State, new_head: int = -1, new_dependent: int = -1) -> int:
            """Gold arcs already lost: a word with a wrong head or label (the new arc
            carries its gold label)."""
            built, built_labels = state.heads, state.labels
            return sum(built[d] != heads[d] or labels[d] not in (-1, built_labels[d])
                       for d in range(1, state.n + 1) if built[d] != -1 and heads[d] != -1) + \
                (new_dependent != -1 and heads[new_dependent] not in (-1, new_head))

        def on_spine(spine: list[int]) -> int:
            """The words of the spine that have a gold head (still to win)."""
            return sum(w != 0 and heads[w] != -1 for w in spine)

        def loss(state: State, spine: list[int], first: int, new_head: int = -1, new_dependent: int = -1) -> int:
            """ℓ of the configuration with ``spine`` = s_0, s_1, … (top first), the
            untouched words first..n, and A plus the arc new_head → new_dependent."""
            headless = on_spine(spine) + given_from[first] if first <= n else on_spine(spine)
            return lost(state, new_head, new_dependent) + headless - future.most(spine, first)

        def costs(state: State) -> list[int | None]:
            legal = self.legal(state)
            if not state.buffer:
                return [None, None, None]
            stack, buffer = state.stack, state.buffer
            j, rest = buffer[0], (buffer[1] if len(buffer) > 1 else state.n + 1)
            spine = [j, *reversed(stack)]
            here = loss(state, spine, rest)
            result: list[int | None] = [None, None, None]
            if legal[LEFT_ARC]:
                result[LEFT_ARC] = loss(state, [j, *spine[2:]], rest, j, spine[1]) - here
            if legal[RIGHT_ARC]:
                result[RIGHT_ARC] = loss(state, spine[1:], rest, spine[1], j) - here
            if legal[SHIFT]:
                if len(buffer) > 1:
                    result[SHIFT] = loss(state, [rest, *spine], rest + 1) - here
                else:  # the last SHIFT ends the computation: what is not built is lost
                    result[SHIFT] = lost(state) + on_spine(spine) - here
            return result

        return costs


class _FutureArcs:
    """The most gold arcs that the rest of an arc-standard computation can add
    (Goldberg, Sartorio & Satta 2014), for one gold tree; see the module docstring.

    The untouched words are first grouped into units: a word whose gold subtree lies
    among them and whose gold head is not on the stack is built whole, all its gold
    arcs inside (with it as head the subtree only gains arcs, and no arc of the
    subtree can join the stack), so the table runs over the units and their heads.
    """

    def __init__(self, heads: list[int], single_root: bool):
        self.heads = heads
        self.single_root = single_root
        self.n = n = len(heads) - 1
        self.neighbours = dependents_lists(heads)
        for d in range(1, n + 1):
            if heads[d] >= 0:
                self.neighbours[d].append(heads[d])
        # the first and last word of each gold subtree (a span: the tree is projective)
        self.leftmost, self.rightmost = list(range(n + 1)), list(range(n + 1))
        for d in range(1, n + 1):
            h = heads[d]
            while h > 0 and self.leftmost[h] > d:
                self.leftmost[h] = d
                h = heads[h]
            h = heads[d]
            while h > 0 and self.rightmost[h] < d:
                self.rightmost[h] = d
                h = heads[h]
        self.given_before = [0] * (n + 2)  # given_before[w]: the words 1..w-1 that have a gold head
        for w in range(1, n + 1):
            self.given_before[w + 1] = self.given_before[w] + (heads[w] != -1)
        self.known: dict[tuple[int, ...], int] = {}

    def most(self, spine: list[int], first: int) -> int:
        """The most gold arcs that the rest of the computation can add, from the stack
        ``spine`` (top first) over the untouched words first..n. Remembered per gold
        tree: a configuration's successors are the next configurations."""
        key = (*spine, -first)
        if key not in self.known:
            self.known[key] = self._most(spine, first)
        return self.known[key]

    def _units(self, spine: list[int], first: int) -> tuple[list[int], int]:
        """The untouched words as units (a whole subtree stands for its root), and the
        gold arcs inside the whole subtrees."""
        heads, on_spine = self.heads, set(spine)
        whole = [False] * (self.n + 1)
        for w in range(first, self.n + 1):
            whole[w] = self.leftmost[w] >= first and heads[w] not in on_spine
        units, inside, w = [], 0, first
        while w <= self.n:
            if not whole[w]:
                units.append(w)
                w += 1
                continue
            top = w  # the largest whole subtree that starts at w
            while heads[top] > 0 and whole[heads[top]] and self.leftmost[heads[top]] == w:
                top = heads[top]
            end = self.rightmost[top]
            units.append(top)
            # the gold arcs inside the span: those of its words but the top's (a partial gold tree
            # nests only whole gold trees of its own in the span: an arc leaving it would cross one)
            inside += self.given_before[end + 1] - self.given_before[w] - (heads[top] != -1)
            w = end + 1
        return units, inside

    def _most(self, spine: list[int], first: int) -> int:
        units, inside = self._units(spine, first)
        heads = self.heads
        m = len(units)
        # Eisner (1996) over the units, one point per gold arc: the most gold arcs of a
        # projective tree over units p..q headed at p (right[p][q]) or at q (left[p][q]).
        right = [[0] * (m + 1) for _ in range(m + 1)]
        left = [[0] * (m + 1) for _ in range(m + 1)]
        to_right = [[0] * (m + 1) for _ in range(m + 1)]  # incomplete spans, arc p → q
        to_left = [[0] * (m + 1) for _ in range(m + 1)]  # incomplete spans, arc q → p
        for width in range(1, m):
            for p in range(m - width):
                q = p + width
                split = max(right[p][r] + left[r + 1][q] for r in range(p, q))
                to_right[p][q] = split + (heads[units[q]] == units[p])
                to_left[p][q] = split + (heads[units[p]] == units[q])
                right[p][q] = max(to_right[p][r] + right[r][q] for r in range(p + 1, q + 1))
                left[p][q] = max(left[p][r] + to_left[r][q] for r in range(p, q))
        index = {unit: k for k, unit in enumerate(units)}
        table: dict[tuple[int, int], int] = {(-1, spine[0]): 0}
        for i in range(len(spine)):
            deeper = set(spine[i + 1:])
            if i:
                table = self._join_below(table, spine[i], m - 1)
            alive_below: dict[int, int] = {}

            def limit(h: int) -> int:
                """The items (…, k) that keep head h apart are those with k below this: h has a
                gold neighbour deeper on the stack, or in a unit after k; beyond, it is merged."""
                if h not in alive_below:
                    neighbours = self.neighbours[h] if h >= 0 else ()
                    forever = h == 0 or h == MERGED or any(x in deeper for x in neighbours)
                    alive_below[h] = m if forever else max((index.get(x, -1) for x in neighbours), default=-1)
                return alive_below[h]

            table = self._grow_right(table, units, right, left, limit)
        return inside + max(value for (k, _), value in table.items() if k == m - 1)

    def _join_below(self, table: dict[tuple[int, int], int], below: int, last: int) -> dict[tuple[int, int], int]:
        """Join the next stack node to the top constituent: as its head, or (unless it
        is 0) as a dependent of the constituent's head."""
        heads = self.heads
        joined: dict[tuple[int, int], int] = {}
        for (k, h), value in table.items():
            if not (below == 0 and self.single_root and k != last):  # 0's one dependent comes last
                key = (k, below)
                joined[key] = max(joined.get(key, -1), value + (h >= 0 and heads[h] == below))
            if below != 0:
                key = (k, h)
                joined[key] = max(joined.get(key, -1), value + (heads[below] == h))
        return joined

    def _grow_right(self, table: dict[tuple[int, int], int], units: list[int], right, left,
                    limit: Callable[[int], int]) -> dict[tuple[int, int], int]:
        """Absorb constituents of the units k+1 … q, in order of their head g: an arc
        h → g keeps the head h, an arc g → h makes g the head. Items are kept per k
        (``rows[k + 1]``: head → best value); a head beyond its ``limit`` is merged."""
        heads, m, single_root = self.heads, len(units), self.single_root
        rows: list[dict[int, int]] = [{} for _ in range(m + 1)]

        def put(h: int, first: int, value: int, spans: list[int]) -> None:  # items (k2, h) for k2 ≥ first
            stop = max(first, min(limit(h), m))
            for k2 in range(first, m):
                row, key, v = rows[k2 + 1], h if k2 < stop else MERGED, value + spans[k2]
                if row.get(key, -1) < v:
                    row[key] = v

        for (k, h), value in table.items():
            row, key = rows[k + 1], h if k < limit(h) else MERGED
            if row.get(key, -1) < value:
                row[key] = value
        for t, g in enumerate(units):
            keep: dict[int, int] = {}  # h -> best value before absorbing a constituent headed by g
            switch, head_of_g = -1, heads[g]
            for k in range(-1, t):
                gap = left[k + 1][t]
                for h, value in rows[k + 1].items():
                    base = value + gap
                    if h != 0 or not single_root:
                        v = base + (h >= 0 and head_of_g == h)
                        if keep.get(h, -1) < v:
                            keep[h] = v
                    if h != 0:
                        switch = max(switch, base + (h >= 0 and heads[h] == g))
            for h, value in keep.items():
                put(h, t, value, right[t])
            if switch >= 0:
                put(g, t, switch, right[t])
        return {(k - 1, h): value for k, row in enumerate(rows) for h, value in row.items()}
