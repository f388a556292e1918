"""Stack-based projective parsing with arcs between the two stack tops (Nivre 2009 §3.1,
Figure 2, the transitions Tp).

Configurations (σ, B, A), initially ([0], [1..n], ∅); terminal only when σ = [0]
and B is empty, so every transition sequence ends in a tree, of exactly 2n
transitions: n SHIFTs and n arcs, each arc popping its dependent.

=================  ============================================  =============
transition         effect                                         condition
=================  ============================================  =============
LEFT-ARC_l         ([σ|i, j], B, A) ⇒ ([σ|j], B, A ∪ {(j, l, i)})  i ≠ 0
RIGHT-ARC_l        ([σ|i, j], B, A) ⇒ ([σ|i], B, A ∪ {(i, l, j)})
SHIFT              (σ, [i|β], A) ⇒ ([σ|i], β, A)
=================  ============================================  =============

Sound and complete for projective trees (Nivre 2009 §3.1, citing Nivre 2008). This
is MaltParser's ``stackproj``; adding SWAP gives :mod:`barley.systems.swap`.

With ``single_root``, RIGHT-ARC from 0 also requires B to be empty (σ is then
[0, j]): the root takes its one dependent as the very last transition, and no
configuration is left without a way to finish.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

from barley.systems.arc_standard import ArcStandard
from barley.systems.base import Action, OracleError, State, TransitionSystem, projective_gold

LEFT_ARC, RIGHT_ARC, SHIFT = range(3)


class StackProjective(TransitionSystem):
    name = "stack-projective"
    aliases = ("stackproj",)
    moves: tuple[str, ...] = ("LEFT-ARC", "RIGHT-ARC", "SHIFT")
    labeled: tuple[bool, ...] = (True, True, False)
    attaches: tuple[tuple[str, int] | None, ...] = (("Stack", 1), ("Stack", 0), None)
    tree_class = "projective"

    def legal(self, state: State) -> list[bool]:
        stack = state.stack
        has_pair = len(stack) >= 2
        i = stack[-2] if has_pair else -1
        return [
            has_pair and i != 0,
            has_pair and (i != 0 or self._root_arc_allowed(state)),
            bool(state.buffer),
        ]

    def _root_arc_allowed(self, state: State) -> bool:
        return self.can_attach_to_root(state) and (not self.single_root or not state.buffer)

    def apply(self, state: State, move: int, label: int = -1) -> None:
        stack = state.stack
        if move == LEFT_ARC:
            j = stack.pop()
            state.add_arc(j, stack.pop(), label)
            stack.append(j)
        elif move == RIGHT_ARC:
            state.add_arc(stack[-2], stack.pop(), label)
        elif move == SHIFT:
            stack.append(state.buffer.popleft())
        else:
            raise ValueError(f"{self.name} has no move {move}")
        state.transitions += 1

    def is_terminal(self, state: State) -> bool:
        return not state.buffer and len(state.stack) == 1

    def oracle(self, heads: Sequence[int], labels: Sequence[int]) -> Callable[[State], Action]:
        """Nivre 2009 Figure 4 without SWAP: an arc between the two stack tops when it is
        in the gold tree and its dependent has all its gold dependents; otherwise SHIFT.

        A non-projective tree is replaced by its nearest projective tree. Only a tree
        the system cannot build (several root words with ``single_root``) leaves B
        empty with no such arc; the stack is still reduced to [0]: the gold arc
        between the tops if there is one, else RIGHT-ARC with the dependent's label.
        """
        heads, dependents, buildable = projective_gold(self, heads)  # outside the class: the nearest tree

        def next_action(state: State) -> Action:
            if arc := self._gold_arc_between_tops(state, heads, labels, dependents):
                return arc
            if state.buffer:
                return SHIFT, -1
            if buildable:
                raise self._lost_arc(state, heads)
            i, j = state.stack[-2], state.stack[-1]
            if i != 0 and heads[i] == j:
                return LEFT_ARC, labels[i]
            return RIGHT_ARC, labels[j]

        return next_action

    keeps_partial_gold = True

    def given_arc_costs(self, heads: list[int]) -> Callable[[State], list[int | None]]:
        """The configuration ([σ|s0], B) is arc-standard's (σ, [s0|B]) (Nivre 2008 §4.1: there the
        arcs join the stack top and the buffer front), and each move is that system's move of the
        same name, with the same preconditions, single root included; arc-standard's costs
        (Goldberg, Sartorio & Satta 2014) then count the given arcs each move loses. Only
        arc-standard's last SHIFT, which ends its computation, has no counterpart: this system
        reduces the stack to [0] instead, which loses nothing a final SHIFT would keep."""
        standard = ArcStandard(single_root=self.single_root)
        costs = standard.given_arc_costs(heads)

        def per_move(state: State) -> list[int | None]:
            stack = state.stack
            if len(stack) == 1:  # [0] alone: SHIFT, the only move, loses nothing
                return [None, None, 0 if state.buffer else None]
            seen = State(state.n, stack=stack[:-1], buffer=deque([stack[-1], *state.buffer]), heads=state.heads,
                         labels=state.labels, children=state.children, forest=state.forest)
            result = costs(seen)
            return [result[LEFT_ARC], result[RIGHT_ARC], result[SHIFT] if state.buffer else None]

        return per_move

    def arc(self, state: State, move: int) -> tuple[int, int]:
        i, j = state.stack[-2], state.stack[-1]
        return (j, i) if move == LEFT_ARC else (i, j)

    def _gold_arc_between_tops(self, state: State, heads: Sequence[int], labels: Sequence[int],
                               dependents: Sequence[int]) -> Action | None:
        """Figure 4's first two cases: the arc between the two stack tops, if it is in the
        gold tree, is legal and its dependent has all its ``dependents``; else None."""
        stack, children = state.stack, state.children
        if len(stack) < 2:
            return None
        i, j = stack[-2], stack[-1]
        if i != 0 and heads[i] == j and len(children[i]) == dependents[i]:
            return LEFT_ARC, labels[i]
        if heads[j] == i and len(children[j]) == dependents[j] and (i != 0 or self._root_arc_allowed(state)):
            return RIGHT_ARC, labels[j]
        return None

    def _lost_arc(self, state: State, heads: Sequence[int]) -> OracleError:
        """The bug report for a buffer emptied with a gold arc of a buildable tree not built."""
        j = state.stack[-1]
        return OracleError(f"{self.name} oracle bug: stack {state.stack[-3:]} and an empty buffer, but "
                           f"the gold arc {heads[j]} → {j} (word {j} of {state.n}) of a tree it can "
                           f"build was not built")
