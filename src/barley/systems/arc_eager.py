"""Arc-eager, stack-based parsing (Nivre 2008 §4.2, Figure 5).

Configurations (σ, β, A), initially ([0], [1..n], ∅). Terminal when β is empty
(Nivre's condition) and no REDUCE is possible any more: popping the words that
already have a head changes no arc, and it makes every sequence that builds a
tree exactly 2n transitions long.

=================  =========================================  ===============================
transition         effect                                      precondition
=================  =========================================  ===============================
LEFT-ARC_l         (σ|i, j|β, A) ⇒ (σ, j|β, A ∪ {(j, l, i)})   i ≠ 0, i has no head
RIGHT-ARC_l        (σ|i, j|β, A) ⇒ (σ|i|j, β, A ∪ {(i, l, j)}) j has no head
REDUCE             (σ|i, β, A) ⇒ (σ, β, A)                     i has a head
SHIFT              (σ, i|β, A) ⇒ (σ|i, β, A)
=================  =========================================  ===============================

Sound and complete for projective forests (Nivre 2008 Theorems 3-4); every word is
pushed once (SHIFT or RIGHT-ARC) and popped at most once (LEFT-ARC or REDUCE), so
a sequence has at most 2n transitions, and exactly 2n when it builds a tree.

Dynamic oracle (Goldberg & Nivre 2012, §3; arc-decomposable, Goldberg & Nivre 2013):
the cost of a transition is the number of gold arcs reachable before it and not
after. A gold arc (h, d), d without a head, is reachable when d is in β and h is in
σ or β, or when d is in σ and h is in β (a word on the stack gets its head only by
LEFT-ARC); an arc from 0 also needs 0 free under ``single_root``. With i the
stack top and j the buffer front:

* LEFT-ARC loses i's dependents in β and its head if in β and not j;
* RIGHT-ARC loses j's head if reachable and not i, j's dependents without a head
  in σ, and, under ``single_root`` from 0, the other root words in β;
* REDUCE loses i's dependents in β;
* SHIFT loses j's head if reachable in σ and j's dependents without a head in σ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from barley.systems.base import (IN_BUFFER, ON_STACK, Action, State, TransitionSystem, places,
                                 projective_gold, require_gold_arcs)
from barley.tree import dependents_lists

LEFT_ARC, RIGHT_ARC, REDUCE, SHIFT = range(4)


class ArcEager(TransitionSystem):
    name = "arc-eager"
    aliases = ("nivreeager",)
    moves = ("LEFT-ARC", "RIGHT-ARC", "REDUCE", "SHIFT")
    labeled = (True, True, False, False)
    tree_class = "projective"
    dynamic_oracle = True
    exploration_oracle = True
    keeps_partial_gold = True

    def legal(self, state: State) -> list[bool]:
        stack, buffer = state.stack, state.buffer
        i = stack[-1] if stack else -1
        has_pair = bool(stack) and bool(buffer)
        return [
            has_pair and i != 0 and not state.has_head(i),
            has_pair and not state.has_head(buffer[0]) and (i != 0 or self.can_attach_to_root(state)),
            bool(stack) and i != 0 and state.has_head(i),
            bool(buffer),
        ]

    def apply(self, state: State, move: int, label: int = -1) -> None:
        stack, buffer = state.stack, state.buffer
        if move == LEFT_ARC:
            state.add_arc(buffer[0], stack.pop(), label)
        elif move == RIGHT_ARC:
            j = buffer.popleft()
            state.add_arc(stack[-1], j, label)
            stack.append(j)
        elif move == REDUCE:
            stack.pop()
        elif move == SHIFT:
            stack.append(buffer.popleft())
        else:
            raise ValueError(f"arc-eager has no move {move}")
        state.transitions += 1

    def is_terminal(self, state: State) -> bool:
        return not state.buffer and not self.legal(state)[REDUCE]

    def oracle(self, heads: Sequence[int], labels: Sequence[int]) -> Callable[[State], Action]:
        """Nivre 2008 §4.2: arc to the buffer front if it is in the gold tree; REDUCE a
        node that has its head and all its gold dependents; otherwise SHIFT."""
        heads, dependents, buildable = projective_gold(self, heads)  # outside the class: the nearest tree

        def next_action(state: State) -> Action:
            if state.stack and state.buffer:
                i, j = state.stack[-1], state.buffer[0]
                if i != 0 and heads[i] == j and not state.has_head(i):
                    return LEFT_ARC, labels[i]
                if heads[j] == i and (i != 0 or self.can_attach_to_root(state)):
                    if buildable and len(state.buffer) == 1:
                        require_gold_arcs(self, state, heads, arriving=j)
                    return RIGHT_ARC, labels[j]
            if state.stack:
                i = state.stack[-1]
                if i != 0 and state.has_head(i) and (len(state.children[i]) == dependents[i] or not state.buffer):
                    return REDUCE, -1
            if buildable and len(state.buffer) == 1:
                require_gold_arcs(self, state, heads)
            return SHIFT, -1

        return next_action

    def arc(self, state: State, move: int) -> tuple[int, int]:
        i, j = state.stack[-1], state.buffer[0]
        return (j, i) if move == LEFT_ARC else (i, j)

    def move_costs(self, heads: list[int], labels: Sequence[int]) -> Callable[[State], list[int | None]]:
        dependents_of = dependents_lists(heads)

        def costs(state: State) -> list[int | None]:
            legal = self.legal(state)
            where = places(state)
            stack_heads = state.heads
            i = state.stack[-1] if state.stack else -1
            j = state.buffer[0] if state.buffer else -1
            result: list[int | None] = [None, None, None, None]

            def head_from_stack(d: int) -> bool:  # can j still get its gold head from σ?
                h = heads[d]
                return where[h] == ON_STACK and (h != 0 or self.can_attach_to_root(state))

            def orphans_on_stack(h: int) -> int:  # h's gold dependents on σ without a head
                return sum(where[d] == ON_STACK and stack_heads[d] == -1 for d in dependents_of[h])

            if legal[LEFT_ARC] or legal[REDUCE]:
                in_buffer = sum(where[d] == IN_BUFFER for d in dependents_of[i])
                if legal[LEFT_ARC]:
                    result[LEFT_ARC] = in_buffer + (heads[i] != j and where[heads[i]] == IN_BUFFER)
                if legal[REDUCE]:
                    result[REDUCE] = in_buffer
            if legal[RIGHT_ARC]:
                h = heads[j]
                lost = (h != i and (where[h] == IN_BUFFER or head_from_stack(j))) + orphans_on_stack(j)
                if self.single_root and i == 0:
                    lost += sum(where[d] == IN_BUFFER and d != j for d in dependents_of[0])
                result[RIGHT_ARC] = lost
            if legal[SHIFT]:
                result[SHIFT] = head_from_stack(j) + orphans_on_stack(j)
            return result

        return costs
