"""Arc-hybrid, stack-based parsing (Kuhlmann, Gómez-Rodríguez & Satta 2011, §4.1).

Configurations (σ, β, A), initially ([0], [1..n], ∅); terminal when σ = [0] and β
is empty. LEFT-ARC is arc-eager's (the buffer front takes the stack top), RIGHT-ARC
is stack-projective's (the second stack node takes the top): a word takes its left
dependents from the stack while it is in the buffer, and its right dependents once
it is on the stack.

=================  ==============================================  ====================
transition         effect                                           precondition
=================  ==============================================  ====================
SHIFT              (σ, b|β, A) ⇒ (σ|b, β, A)
LEFT-ARC_l         (σ|s, b|β, A) ⇒ (σ, b|β, A ∪ {(b, l, s)})        s ≠ 0
RIGHT-ARC_l        (σ|s1|s0, β, A) ⇒ (σ|s1, β, A ∪ {(s1, l, s0)})
=================  ==============================================  ====================

Sound and complete for projective trees (Kuhlmann et al. 2011); every word is
pushed once (SHIFT) and popped once (by its arc), so a tree takes exactly 2n
transitions. This is the system of BIST (Kiperwasser & Goldberg 2016) and UUParser.

With ``single_root``, RIGHT-ARC from 0 also requires β to be empty (σ is then [0,
s0]): the root takes its one dependent last, as in :mod:`barley.systems.stack_projective`.

Dynamic oracle (Goldberg & Nivre 2013, §4): arc-hybrid is arc-decomposable, so the
cost of a transition is the number of gold arcs reachable before it and not after.
A gold arc (h, d), d without a head, is reachable when d is in β and h is in σ or
β, or when d is in σ and h is in β or directly below d on the stack. Hence, with
s0, s1 the stack top and the node below, b the buffer front:

* SHIFT loses b's arcs with σ: its head in σ other than s0, its dependents in σ;
* LEFT-ARC loses s0's dependents in β and its head if that is s1 or in β, not b;
* RIGHT-ARC loses s0's dependents in β and its head if that is in β.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from barley.systems.base import (IN_BUFFER, ON_STACK, Action, State, TransitionSystem, places,
                                 projective_gold, require_gold_arcs)
from barley.tree import dependents_lists

SHIFT, LEFT_ARC, RIGHT_ARC = range(3)


class ArcHybrid(TransitionSystem):
    name = "arc-hybrid"
    aliases = ("archybrid",)
    moves = ("SHIFT", "LEFT-ARC", "RIGHT-ARC")
    labeled = (False, True, True)
    tree_class = "projective"
    dynamic_oracle = True
    exploration_oracle = True
    keeps_partial_gold = True

    def legal(self, state: State) -> list[bool]:
        stack, buffer = state.stack, state.buffer
        s0 = stack[-1] if stack else -1
        return [
            bool(buffer),
            bool(buffer) and s0 > 0,
            len(stack) >= 2 and (stack[-2] != 0 or self._root_arc_allowed(state)),
        ]

    def _root_arc_allowed(self, state: State) -> bool:
        return self.can_attach_to_root(state) and (not self.single_root or not state.buffer)

    def apply(self, state: State, move: int, label: int = -1) -> None:
        stack, buffer = state.stack, state.buffer
        if move == SHIFT:
            stack.append(buffer.popleft())
        elif move == LEFT_ARC:
            state.add_arc(buffer[0], stack.pop(), label)
        elif move == RIGHT_ARC:
            s0 = stack.pop()
            state.add_arc(stack[-1], s0, label)
        else:
            raise ValueError(f"arc-hybrid has no move {move}")
        state.transitions += 1

    def is_terminal(self, state: State) -> bool:
        return not state.buffer and len(state.stack) == 1

    def arc(self, state: State, move: int) -> tuple[int, int]:
        if move == LEFT_ARC:
            return state.buffer[0], state.stack[-1]
        return state.stack[-2], state.stack[-1]

    def oracle(self, heads: Sequence[int], labels: Sequence[int]) -> Callable[[State], Action]:
        """LEFT-ARC when the stack top's gold head is the buffer front, RIGHT-ARC when it is
        the node below and the top has all its gold dependents; otherwise SHIFT, and with β
        empty (only on a tree the system cannot build) RIGHT-ARC."""
        heads, dependents, buildable = projective_gold(self, heads)  # outside the class: the nearest tree

        def next_action(state: State) -> Action:
            stack, buffer = state.stack, state.buffer
            s0 = stack[-1]
            if buffer and s0 != 0 and heads[s0] == buffer[0]:
                return LEFT_ARC, labels[s0]
            if (len(stack) >= 2 and heads[s0] == stack[-2] and len(state.children[s0]) == dependents[s0]
                    and (stack[-2] != 0 or self._root_arc_allowed(state))):
                return RIGHT_ARC, labels[s0]
            if buffer:
                return SHIFT, -1
            if buildable:
                require_gold_arcs(self, state, heads)
            return RIGHT_ARC, labels[s0]

        return next_action

    def move_costs(self, heads: list[int], labels: Sequence[int]) -> Callable[[State], list[int | None]]:
        dependents_of = dependents_lists(heads)

        def costs(state: State) -> list[int | None]:
            legal = self.legal(state)
            stack, buffer = state.stack, state.buffer
            where = places(state)
            s0 = stack[-1]
            result: list[int | None] = [None, None, None]
            if legal[SHIFT]:
                b = buffer[0]
                h = heads[b]
                lost = sum(where[d] == ON_STACK for d in dependents_of[b])
                lost += h != s0 and where[h] == ON_STACK
                result[SHIFT] = lost
            if legal[LEFT_ARC] or legal[RIGHT_ARC]:
                in_buffer = sum(where[d] == IN_BUFFER for d in dependents_of[s0])
                h = heads[s0]
                s1 = stack[-2] if len(stack) >= 2 else -1
                if legal[LEFT_ARC]:
                    result[LEFT_ARC] = in_buffer + (h not in (buffer[0], -1) and (where[h] == IN_BUFFER or h == s1))
                if legal[RIGHT_ARC]:
                    result[RIGHT_ARC] = in_buffer + (where[h] == IN_BUFFER)
            return result

        return costs
