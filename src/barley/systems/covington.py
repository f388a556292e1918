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

Dynamic oracle of the non-projective system (Gómez-Rodríguez & Fernández-González
2015, §3-4). λ1 is always the words 0..i and j the front of β, so a gold arc
between x < y can still be added when y is in β after j, or when y = j and x is in
λ1 — provided its dependent has no head yet, it closes no cycle with A, and (under
``single_root``) 0 is still free for an arc from 0. These *individually reachable*
arcs I are not all reachable together: with A they may close cycles, each of which
loses one of them. The loss of a configuration is therefore

    ℓ(c) = |gold arcs neither built (head and label) nor in I| + cycles(A ∪ I),

(a graph in which every node has at most one head, so its cycles are found in
O(n)), and the cost of a transition t is ℓ(t(c)) − ℓ(c). The projective system
keeps its static oracle only.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from barley.systems.base import Action, State, TransitionSystem, projective_target, require_gold_arcs
from barley.tree import check_tree, dependents_lists

LEFT_ARC, RIGHT_ARC, NO_ARC, SHIFT = range(4)
GONE_, KEPT, PASSED, IN_BETA = range(4)
"""Where a node is, for :meth:`CovingtonProjective.given_arc_costs`: gone, in λ1, in λ2, in β."""


def _with(heads: list[int], dependent: int, head: int) -> list[int]:
    """``heads`` with the arc head → dependent added (a copy)."""
    heads = list(heads)
    heads[dependent] = head
    return heads


@dataclass(slots=True, eq=False)
class CovingtonState(State):
    """A list-based configuration: ``lambda1`` is λ1 (its head i last), ``lambda2`` is
    λ2 (its head first), ``buffer`` is β."""

    lambda1: list[int] = field(default_factory=list)
    lambda2: deque[int] = field(default_factory=deque)


class Covington(TransitionSystem[CovingtonState]):
    """What both list-based systems share: configurations, NO-ARC, SHIFT, termination
    and the oracle's choice between NO-ARC and SHIFT."""

    moves = ("LEFT-ARC", "RIGHT-ARC", "NO-ARC", "SHIFT")
    labeled = (True, True, False, False)
    attaches = (("Lambda1", 0), ("Input", 0), None, None)
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

    def arc(self, state: CovingtonState, move: int) -> tuple[int, int]:
        i, j = state.lambda1[-1], state.buffer[0]
        return (j, i) if move == LEFT_ARC else (i, j)

    def oracle(self, heads: Sequence[int], labels: Sequence[int]) -> Callable[[CovingtonState], Action]:
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
    dynamic_oracle = True
    exploration_oracle = True
    keeps_partial_gold = True
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


    def move_costs(self, heads: list[int], labels: Sequence[int]) -> Callable[[CovingtonState], list[int | None]]:
        """The costs of the four moves from one pass over the configuration: the graph
        A ∪ I and its cycles (:func:`cycle_ids`), then what each move changes — NO-ARC and
        SHIFT take arcs out of I, the arc moves also replace the dependent's edge and may
        cut the arc whose dependent heads the other tree. Equal to the differences of ℓ
        (:meth:`reference_move_costs`, the readable definition, tested against it)."""
        n = len(heads) - 1
        dependents_of = dependents_lists(heads)

        def costs(state: CovingtonState) -> list[int | None]:
            legal = self.legal(state)
            lambda1, buffer, forest = state.lambda1, state.buffer, state.forest
            j = buffer[0] if buffer else n + 1
            last = lambda1[-1] if lambda1 else -1
            parent, reach = reachable_graph(state, j, last)
            cycle = cycle_ids(parent)

            def cost(removed: set[int], dependent: int = -1, head: int = -1) -> int:
                """ℓ(after) − ℓ(before) when the arcs of I into ``removed`` go and, for an arc
                move, ``dependent`` takes ``head`` (its gold arc lost unless gold)."""
                lost = len(removed) + (dependent != -1 and heads[dependent] != head and reach[dependent])
                changed = removed | {dependent} if dependent != -1 else removed
                broken = len({cycle[d] for d in changed if cycle[d] != -1})
                closes = dependent != -1 and _walk_reaches(parent, head, dependent, removed, n)
                return lost - broken + closes

            result: list[int | None] = [None] * 4
            if legal[SHIFT]:  # the arcs of I with j at their right end go
                result[SHIFT] = cost({d for d in dependents_of[j] if d < j and reach[d]}
                                     | ({j} if heads[j] < j and reach[j] else set()))
            if not lambda1:
                return result
            i = last
            between = {d for d, other in ((i, j), (j, i)) if buffer and heads[d] == other and reach[d]}
            result[NO_ARC] = cost(between)
            if legal[LEFT_ARC]:  # j → i: a root whose gold head is in i's tree now hangs under j's root
                top = forest.root(j)
                cut = {top} if top != i and reach[top] and forest.root(heads[top]) == i else set()
                result[LEFT_ARC] = cost((between - {i}) | cut, i, j)
            if legal[RIGHT_ARC]:  # i → j: likewise with the roles swapped; from 0, 0 is taken
                top = forest.root(i)
                cut = {top} if top != j and reach[top] and forest.root(heads[top]) == j else set()
                if self.single_root and i == 0:
                    cut |= {d for d in dependents_of[0] if d != j and reach[d]}
                result[RIGHT_ARC] = cost((between - {j}) | cut, j, i)
            return result

        def reachable_graph(state: CovingtonState, j: int, last: int) -> tuple[list[int], list[bool]]:
            """A ∪ I as a parent list, and per node whether its gold arc is in I."""
            built, forest = state.heads, state.forest
            root_free = self.can_attach_to_root(state)
            parent, reach = [-1] * (n + 1), [False] * (n + 1)
            for d in range(1, n + 1):
                if built[d] != -1:
                    parent[d] = built[d]
                    continue
                g = heads[d]
                if g == -1:  # a partial gold tree (given arcs): d is free
                    continue
                far, near = (d, g) if g < d else (g, d)
                if (far > j or (far == j and near <= last)) and (g != 0 or root_free) and forest.root(g) != d:
                    parent[d], reach[d] = g, True
            return parent, reach

        return costs

    def reference_move_costs(self, heads: list[int], labels: Sequence[int]
                             ) -> Callable[[CovingtonState], list[int | None]]:
        """The costs as the paper defines them, ℓ(t(c)) − ℓ(c), each ℓ computed whole:
        the test oracle of :meth:`move_costs`."""
        n = len(heads) - 1

        def loss(state: CovingtonState, j: int, last: int, new_head: int = -1, new_dependent: int = -1) -> int:
            """ℓ of the configuration with focus j (n + 1: β empty), λ1 = 0..last and A
            plus the arc new_head → new_dependent (with its gold label, if gold)."""
            built, built_labels, forest = state.heads, state.labels, state.forest
            root_free = self.can_attach_to_root(state) and not (self.single_root and new_head == 0)
            parent = [-1] * (n + 1)
            lost = 0
            for d in range(1, n + 1):
                h = new_head if d == new_dependent else built[d]
                g = heads[d]
                if h != -1:
                    parent[d] = h
                    lost += h != g or (d != new_dependent and built_labels[d] != labels[d])
                    continue
                near, far = (g, d) if g < d else (d, g)
                top = forest.root(g)
                if top == new_dependent:  # the new arc hangs g's tree under new_head
                    top = forest.root(new_head)
                if (far > j or (far == j and near <= last)) and top != d and (g != 0 or root_free):
                    parent[d] = g
                else:
                    lost += 1
            return lost + count_cycles(parent)

        def costs(state: CovingtonState) -> list[int | None]:
            legal = self.legal(state)
            lambda1, buffer = state.lambda1, state.buffer
            j = buffer[0] if buffer else n + 1
            if not lambda1:
                return [None, None, None, loss(state, j + 1, j) - loss(state, j, -1)] if legal[SHIFT] else \
                    [None] * 4
            i = lambda1[-1]
            next_last = lambda1[-2] if len(lambda1) >= 2 else -1
            here = loss(state, j, i)
            return [
                loss(state, j, next_last, j, i) - here if legal[LEFT_ARC] else None,
                loss(state, j, next_last, i, j) - here if legal[RIGHT_ARC] else None,
                loss(state, j, next_last) - here if legal[NO_ARC] else None,
                loss(state, j + 1, j) - here if legal[SHIFT] else None,
            ]

        return costs


def _walk_reaches(parent: list[int], node: int, target: int, cut: set[int], n: int) -> bool:
    """Does walking up from ``node`` along ``parent`` (the arcs into ``cut`` gone) reach
    ``target``? At most n + 1 steps: the walk may enter a cycle that avoids ``target``."""
    for _ in range(n + 2):
        if node == target:
            return True
        if node == -1 or node in cut:
            return False
        node = parent[node]
    return False


def cycle_ids(parent: list[int]) -> list[int]:
    """For each node of a graph in which node v has the one head ``parent[v]`` (-1: none),
    the number of the cycle it lies on (-1: none); each path coloured once: O(n)."""
    colour = [0] * len(parent)  # 0 unseen, else the number of the walk that saw it
    cycle = [-1] * len(parent)
    for start in range(len(parent)):
        node, walk = start, start + 1
        while node != -1 and colour[node] == 0:
            colour[node] = walk
            node = parent[node]
        if node != -1 and colour[node] == walk and cycle[node] == -1:
            while cycle[node] == -1:
                cycle[node] = walk
                node = parent[node]
    return cycle


def count_cycles(parent: list[int]) -> int:
    """The number of cycles of a graph in which node v has the one head ``parent[v]``
    (-1: none), by colouring each path once: O(n)."""
    colour = [0] * len(parent)  # 0 unseen, else the number of the walk that saw it
    cycles = 0
    for start in range(len(parent)):
        node, walk = start, start + 1
        while node != -1 and colour[node] == 0:
            colour[node] = walk
            node = parent[node]
        cycles += node != -1 and colour[node] == walk
    return cycles


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

    keeps_partial_gold = True

    def given_arc_costs(self, heads: list[int]) -> Callable[[CovingtonState], list[int | None]]:
        """Per move, 1 if it makes some arc of the partial gold tree ``heads`` unreachable, else 0
        (None: illegal), from a configuration where all are still reachable.

        The configuration (λ1, λ2, β) can do what arc-eager can from the stack λ1.λ2 and the
        buffer β (Nivre 2008 §5: NO-ARC passes only words that have a head, like arc-eager's
        REDUCE, and an arc drops the passed words while SHIFT puts them back), except give j
        a head in λ2. Arc-eager is arc-decomposable (Goldberg & Nivre 2013), so the arcs are
        all reachable exactly when each is: a word with a head has its gold one; a word in β
        can still take its head from λ1.λ2 or β (from 0 only while 0 is free under
        ``single_root``), and j not from λ2; a word in λ1.λ2 from β. Each move is judged on
        the configuration it leads to."""
        given = [(d, h) for d, h in enumerate(heads) if d and h != -1]

        def reachable(kept: list[int], passed: list[int], buffer, built: list[int], root_free: bool) -> bool:
            where = [GONE_] * (len(heads) + 1)
            for node in kept:
                where[node] = KEPT
            for node in passed:
                where[node] = PASSED
            for node in buffer:
                where[node] = IN_BETA
            j = buffer[0] if buffer else -1
            for d, h in given:
                if built[d] != -1:
                    if built[d] != h:
                        return False
                elif where[d] == IN_BETA:
                    if where[h] == GONE_ or (h == 0 and not root_free) or (d == j and where[h] == PASSED):
                        return False
                elif where[d] == GONE_ or where[h] != IN_BETA:
                    return False
            return True

        def costs(state: CovingtonState) -> list[int | None]:
            legal = self.legal(state)
            lambda1, lambda2, buffer, built = state.lambda1, list(state.lambda2), state.buffer, state.heads
            root_free = self.can_attach_to_root(state)
            result: list[int | None] = [None] * 4
            if legal[LEFT_ARC]:
                i, j = lambda1[-1], buffer[0]
                result[LEFT_ARC] = not reachable(lambda1[:-1], [], buffer, _with(built, i, j), root_free)
            if legal[RIGHT_ARC]:
                i, j = lambda1[-1], buffer[0]
                result[RIGHT_ARC] = not reachable([*lambda1, j], [], list(buffer)[1:], _with(built, j, i),
                                                  root_free and not (self.single_root and i == 0))
            if legal[NO_ARC]:
                result[NO_ARC] = not reachable(lambda1[:-1], [lambda1[-1], *lambda2], buffer, built, root_free)
            if legal[SHIFT]:
                result[SHIFT] = not reachable([*lambda1, *lambda2, buffer[0]], [], list(buffer)[1:], built, root_free)
            return [None if cost is None else int(cost) for cost in result]

        return costs

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
