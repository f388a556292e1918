"""List-based parsing after Covington (2001): Nivre 2008 §5, Figures 7 and 9.

Configurations (λ1, λ2, β, A), initially ([0], [], [1..n], ∅); terminal when β is
empty. i is the head of λ1 (the node nearest to β) and j the first node of β: the
parser compares j with the nodes of λ1 from right to left, passing those it is
done with to λ2, and SHIFT puts λ1.λ2 back together with j at its end.

In a :class:`CovingtonState` the lists are ``lambda1`` (a Python list, i =
``lambda1[-1]``), ``lambda2`` (a deque, its head ``lambda2[0]`` is the node next to
λ1) and ``buffer`` (β, j = ``buffer[0]``); ``stack`` is unused and stays empty.
Feature addresses: ``Lambda1[k]`` (MaltParser's ``Left[k]``) is ``lambda1[-1-k]``,
so ``Left[0]`` = i; ``Lambda2[k]`` is ``lambda2[k]``; ``Input[k]`` (MaltParser's
``Right[k]``) is ``buffer[k]``, so ``Right[0]`` = j.

Non-projective, :class:`CovingtonNonProjective` (Figure 7, MaltParser ``covnonproj``):

==============  ===============================================================  ====================
transition      effect                                                           precondition
==============  ===============================================================  ====================
LEFT-ARC_l      (λ1|i, λ2, j|β, A) ⇒ (λ1, i|λ2, j|β, A ∪ {(j, l, i)})             i ≠ 0, i has no head,
                                                                                 not i →* j
RIGHT-ARC_l     (λ1|i, λ2, j|β, A) ⇒ (λ1, i|λ2, j|β, A ∪ {(i, l, j)})             j has no head,
                                                                                 not j →* i
NO-ARC          (λ1|i, λ2, β, A) ⇒ (λ1, i|λ2, β, A)
SHIFT           (λ1, λ2, i|β, A) ⇒ (λ1.λ2|i, [], β, A)
==============  ===============================================================  ====================

Correct for all dependency forests (Theorem 7). The two path conditions are one
union-find query each (:meth:`Forest.reaches`, amortized constant time, §6.1).

Projective, :class:`CovingtonProjective` (Figure 9, MaltParser ``covproj``):

==============  ===============================================================  ====================
transition      effect                                                           precondition
==============  ===============================================================  ====================
LEFT-ARC_l      (λ1|i, λ2, j|β, A) ⇒ (λ1, [], j|β, A ∪ {(j, l, i)})               i ≠ 0, i has no head
RIGHT-ARC_l     (λ1|i, λ2, j|β, A) ⇒ (λ1|i|j, [], β, A ∪ {(i, l, j)})             j has no head
NO-ARC          (λ1|i, λ2, β, A) ⇒ (λ1, i|λ2, β, A)                               i has a head
SHIFT           (λ1, λ2, i|β, A) ⇒ (λ1.λ2|i, [], β, A)
==============  ===============================================================  ====================

Correct for projective forests (Theorem 10). Both are O(n²) in the worst case
(Theorem 8): at most i transitions between the (i-1)th and ith SHIFT.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from barley.systems.base import Action, State, TransitionSystem, projective_target, require_gold_arcs
from barley.tree import check_tree

LEFT_ARC, RIGHT_ARC, NO_ARC, SHIFT = range(4)


@dataclass(slots=True, eq=False)
class CovingtonState(State):
    """A list-based configuration: ``lambda1`` is λ1 (its head i last), ``lambda2`` is
    λ2 (its head first), ``buffer`` is β."""

    lambda1: list[int] = field(default_factory=list)
    lambda2: deque[int] = field(default_factory=deque)


class Covington(TransitionSystem):
    """What both list-based systems share: configurations, NO-ARC, SHIFT, termination
    and the oracle's choice between NO-ARC and SHIFT."""

    moves = ("LEFT-ARC", "RIGHT-ARC", "NO-ARC", "SHIFT")
    labeled = (True, True, False, False)
    addresses = ("Lambda1", "Lambda2", "Input")
    right_arc_shifts: bool  # does RIGHT-ARC move j from β to λ1 (projective) or keep it in β?

    def initial(self, n: int) -> CovingtonState:
        return CovingtonState(n, stack=[], buffer=deque(range(1, n + 1)), lambda1=[0])

    def is_terminal(self, state: CovingtonState) -> bool:
        return not state.buffer

    def _no_arc_or_shift(self, state: CovingtonState, move: int) -> None:
        if move == NO_ARC:
            state.lambda2.appendleft(state.lambda1.pop())
        elif move == SHIFT:
            state.lambda1.extend(state.lambda2)
            state.lambda2.clear()
            state.lambda1.append(state.buffer.popleft())
        else:
            raise ValueError(f"{self.name} has no move {move}")

    def oracle(self, heads: Sequence[int], labels: Sequence[int]) -> Callable[[State], Action]:
        """Nivre 2008 §5 (Figures 8 and 10): LEFT-ARC or RIGHT-ARC when i and j are joined
        by a gold arc (and it is legal); NO-ARC while j still has a gold arc to a node
        left of i; otherwise SHIFT. The projective system aims at the nearest projective
        tree when the gold tree is not projective."""
        if self.tree_class == "projective":
            heads = projective_target(heads)
        n = len(heads) - 1
        # leftmost[j]: the leftmost node joined to j by a gold arc (j itself if none)
        leftmost = list(range(n + 1))
        for d in range(1, n + 1):
            h = heads[d]
            if 0 <= h < d:
                leftmost[d] = min(leftmost[d], h)
            elif h > d:
                leftmost[h] = min(leftmost[h], d)
        buildable = check_tree(heads, self.single_root) is None

        def next_action(state: CovingtonState) -> Action:
            j = state.buffer[0]
            if state.lambda1:
                i = state.lambda1[-1]
                legal = self.legal(state)
                if heads[i] == j and legal[LEFT_ARC]:
                    return LEFT_ARC, labels[i]
                if heads[j] == i and legal[RIGHT_ARC]:
                    if buildable and self.right_arc_shifts and len(state.buffer) == 1:
                        require_gold_arcs(self, state, heads, arriving=j)
                    return RIGHT_ARC, labels[j]
                if leftmost[j] < i and legal[NO_ARC]:
                    return NO_ARC, -1
            if buildable and len(state.buffer) == 1:
                require_gold_arcs(self, state, heads)
            return SHIFT, -1

        return next_action


class CovingtonNonProjective(Covington):
    name = "covington-nonprojective"
    aliases = ("covnonproj",)
    tree_class = "any"
    right_arc_shifts = False  # RIGHT-ARC keeps j in β

    def legal(self, state: CovingtonState) -> list[bool]:
        lambda1, buffer, forest = state.lambda1, state.buffer, state.forest
        if not (lambda1 and buffer):
            return [False, False, bool(lambda1), bool(buffer)]
        i, j = lambda1[-1], buffer[0]
        return [
            i != 0 and not state.has_head(i) and not forest.reaches(j, i),
            not state.has_head(j) and not forest.reaches(i, j) and (i != 0 or self.can_attach_to_root(state)),
            True,
            True,
        ]

    def apply(self, state: CovingtonState, move: int, label: int = -1) -> None:
        lambda1, buffer = state.lambda1, state.buffer
        if move == LEFT_ARC:
            i = lambda1.pop()
            state.add_arc(buffer[0], i, label)
            state.lambda2.appendleft(i)
        elif move == RIGHT_ARC:
            i = lambda1.pop()
            state.add_arc(i, buffer[0], label)
            state.lambda2.appendleft(i)
        else:
            self._no_arc_or_shift(state, move)
        state.transitions += 1


class CovingtonProjective(Covington):
    name = "covington-projective"
    aliases = ("covproj",)
    tree_class = "projective"
    right_arc_shifts = True  # RIGHT-ARC moves j from β to λ1, a SHIFT built in

    def legal(self, state: CovingtonState) -> list[bool]:
        lambda1, buffer = state.lambda1, state.buffer
        has_pair = bool(lambda1) and bool(buffer)
        i = lambda1[-1] if lambda1 else -1
        return [
            has_pair and i != 0 and not state.has_head(i),
            has_pair and not state.has_head(buffer[0]) and (i != 0 or self.can_attach_to_root(state)),
            bool(lambda1) and state.has_head(i),
            bool(buffer),
        ]

    def apply(self, state: CovingtonState, move: int, label: int = -1) -> None:
        lambda1, buffer = state.lambda1, state.buffer
        if move == LEFT_ARC:
            state.add_arc(buffer[0], lambda1.pop(), label)
            state.lambda2.clear()
        elif move == RIGHT_ARC:
            j = buffer.popleft()
            state.add_arc(lambda1[-1], j, label)
            lambda1.append(j)
            state.lambda2.clear()
        else:
            self._no_arc_or_shift(state, move)
        state.transitions += 1
