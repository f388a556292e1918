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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from barley.systems.base import Action, State, TransitionSystem, projective_gold, require_gold_arcs

LEFT_ARC, RIGHT_ARC, SHIFT = range(3)


class ArcStandard(TransitionSystem):
    name = "arc-standard"
    aliases = ("nivrestandard",)
    moves = ("LEFT-ARC", "RIGHT-ARC", "SHIFT")
    labeled = (True, True, False)
    tree_class = "projective"

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
