"""Stack-based parsing with SWAP, for every dependency tree (Nivre 2009 §3.2, Figure 2,
the transitions Tu = Tp ∪ {SWAP}).

Configurations (σ, B, A), initially ([0], [1..n], ∅); terminal when σ = [0] and B
is empty (§2.2). Arcs join the two top nodes of the stack, i = σ[-2] and j = σ[-1]:

=================  ============================================  =============
transition         effect                                         condition
=================  ============================================  =============
LEFT-ARC_l         ([σ|i, j], B, A) ⇒ ([σ|j], B, A ∪ {(j, l, i)})  i ≠ 0
RIGHT-ARC_l        ([σ|i, j], B, A) ⇒ ([σ|i], B, A ∪ {(i, l, j)})
SHIFT              (σ, [i|β], A) ⇒ ([σ|i], β, A)
SWAP               ([σ|i, j], β, A) ⇒ ([σ|j], [i|β], A)            0 < i < j
=================  ============================================  =============

Sound and complete for all dependency trees (§3.2). A word leaves the stack only
through an arc, so every terminal configuration is a tree and :meth:`finalize` has
nothing left to attach. SWAP only undoes the word order of two nodes that are in
it, and nothing restores that order, so there are at most n(n-1)/2 swaps; each is
followed by one more SHIFT: 2n + 2k transitions for k swaps, at most n + n² (§3.2).

With ``single_root``, RIGHT-ARC from 0 also requires B to be empty (σ is then
[0, j]), as in :mod:`barley.systems.stack_projective`: the root takes its one
dependent last, so a configuration is never left without a way to finish (with
B empty, σ = [..., i, j] allows LEFT-ARC if i ≠ 0 and RIGHT-ARC if i = 0).

Two static oracles, one class each (MaltParser's ``stackeager`` and ``stacklazy``):

* :class:`SwapEager`, Nivre 2009 Figure 4: SWAP as soon as the two stack tops are
  out of the projective order, which sorts the words into that order on the stack;
* :class:`SwapLazy`, Nivre, Kuhlmann & Hall 2009: the same, but SWAP is postponed
  while the top of the stack and the front of the buffer belong to the same
  maximal projective component, so those are built first; it never swaps more.

The static–dynamic oracle (de Lhoneux, Stymne & Nivre 2017, §3), adapted: the paper
defines it for arc-hybrid with SWAP (UUParser); here the arcs join the two stack tops,
as in arc-standard. Its idea is kept: *when* to swap stays static, *which arc or
SHIFT* is dynamic. In a configuration (:meth:`Swap.move_costs`):

* when the static oracle would swap here (the tops out of the projective order, no
  gold arc between them ready, and for the lazy oracle not postponed), SWAP costs 0
  and every other move at least 1 (the paper: SWAP is then the only correct transition);
  otherwise SWAP costs 1: exploration never follows a costly SWAP, nor any other move
  when SWAP is due (:meth:`Swap.explorable`), so the order of the words is always the
  static oracle's, as in the paper's training;
* LEFT-ARC (j takes i) loses i's gold dependents that have no head yet, and i's gold
  head if that is not j and can still take it (it has no head itself, or is 0);
  RIGHT-ARC (i takes j) the same for j — the arc-decomposed costs of arc-hybrid's
  dynamic oracle (Goldberg & Nivre 2013), which the paper uses;
* SHIFT costs 0 when no arc costs 0 (and no SWAP is due), else 1;
* with the buffer empty and every arc costing something (after a mistake), SWAP costs
  0 where it is legal: reordering the stack loses no arc yet.

Costs are relative to the cheapest move (one move always costs 0). What is proven
(``tests/systems/test_dynamic_oracles.py``): on the static oracle's path the only zero-cost
action is the static oracle's, so zero-cost actions rebuild every tree; in any
configuration that exploration reaches, a zero-cost arc loses no more gold arcs than
the best completion that swaps only where these costs let it (checked against brute
force). Like the paper's, the costs are not exact: a zero-cost SHIFT after a mistake
may lose arcs, and a costly move may not; and against *every* completion a zero-cost
arc can lose one: after an early SHIFT, swaps the static order never makes can push
words back into the buffer and rebuild the skipped arc, and reducing the word above
them takes that way out (``test_a_free_swap_can_undo_an_early_shift``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from barley.systems.base import NO_HEAD, Action, State, dependent_counts
from barley.systems.stack_projective import LEFT_ARC, RIGHT_ARC, SHIFT, StackProjective
from barley.tree import check_tree, dependents_lists, projective_order

SWAP = 3  # after stack-projective's LEFT-ARC, RIGHT-ARC, SHIFT


class Swap(StackProjective):
    """The system Su = Tp ∪ {SWAP}: stack-projective's configurations, transitions
    (with their ``single_root`` condition) and termination, plus SWAP. The subclasses
    differ only in when their oracle swaps."""

    moves = ("LEFT-ARC", "RIGHT-ARC", "SHIFT", "SWAP")
    labeled = (True, True, False, False)
    attaches = (("Stack", 1), ("Stack", 0), None, None)
    tree_class = "any"
    exploration_oracle = True  # the static–dynamic oracle (module docstring)
    keeps_partial_gold = False  # stack-projective's rule for given arcs knows no SWAP

    def legal(self, state: State) -> list[bool]:
        stack = state.stack
        return [*super().legal(state), len(stack) >= 2 and 0 < stack[-2] < stack[-1]]

    def apply(self, state: State, move: int, label: int = -1) -> None:
        if move != SWAP:
            super().apply(state, move, label)
            return
        stack = state.stack
        j = stack.pop()
        state.buffer.appendleft(stack.pop())
        stack.append(j)
        state.transitions += 1

    def _swap_now(self, heads: list[int]) -> Callable[[State], bool] | None:
        """When the stack tops are out of projective order: swap now? None = always."""
        return None

    def oracle(self, heads: Sequence[int], labels: Sequence[int]) -> Callable[[State], Action]:
        """Nivre 2009 Figure 4: an arc between the two stack tops when it is in the gold
        tree and its dependent has all its gold dependents; SWAP when the tops are out of
        the projective order <G (and, for the lazy oracle, not postponed); else SHIFT.

        ``heads`` must be a tree (several root words allowed). Every tree can be built,
        except one with several root words under ``single_root``: its root words end
        up alone on the stack, and each is attached to the one below it.
        """
        heads = [int(h) for h in heads]
        order = projective_order(heads)
        swap_now = self._swap_now(heads)
        dependents = dependent_counts(heads)
        buildable = check_tree(heads, self.single_root) is None

        def next_action(state: State) -> Action:
            if arc := self._gold_arc_between_tops(state, heads, labels, dependents):
                return arc
            stack = state.stack
            if len(stack) >= 2 and order[stack[-1]] < order[stack[-2]] and (swap_now is None or swap_now(state)):
                return SWAP, -1
            if state.buffer:
                return SHIFT, -1
            if buildable:
                raise self._lost_arc(state, heads)
            return RIGHT_ARC, labels[stack[-1]]

        return next_action

    def arc(self, state: State, move: int) -> tuple[int, int]:
        i, j = state.stack[-2], state.stack[-1]
        return (j, i) if move == LEFT_ARC else (i, j)

    def move_costs(self, heads: list[int], labels: Sequence[int]) -> Callable[[State], list[int | None]]:
        """The static–dynamic costs (de Lhoneux, Stymne & Nivre 2017; module docstring)."""
        order = projective_order(heads)
        swap_now = self._swap_now(heads)
        dependents_of = dependents_lists(heads)

        def arc_cost(state: State, head: int, dependent: int) -> int:
            has_head = state.heads
            missing = sum(has_head[d] == NO_HEAD for d in dependents_of[dependent])
            gold = heads[dependent]
            return missing + (gold != head and (gold == 0 or has_head[gold] == NO_HEAD))

        def costs(state: State) -> list[int | None]:
            legal = self.legal(state)
            stack = state.stack
            result: list[int | None] = [None] * 4
            if legal[LEFT_ARC]:
                result[LEFT_ARC] = arc_cost(state, stack[-1], stack[-2])
            if legal[RIGHT_ARC]:
                result[RIGHT_ARC] = arc_cost(state, stack[-2], stack[-1])
            arc_ready = 0 in result[:2]
            swap_due = (legal[SWAP] and not arc_ready and order[stack[-1]] < order[stack[-2]]
                        and (swap_now is None or swap_now(state)))
            if legal[SHIFT]:
                result[SHIFT] = int(arc_ready or swap_due)
            if legal[SWAP]:
                result[SWAP] = int(not swap_due)
            cheapest = min(cost for cost in result if cost is not None)
            if cheapest and legal[SWAP]:  # β empty, every arc costs: reordering loses nothing yet
                result[SWAP], cheapest = 0, 0
            return [None if cost is None else cost - cheapest for cost in result]

        return costs

    def explorable(self, state: State, move: int, costs: list[int | None]) -> bool:
        """Exploration follows neither a costly SWAP nor any other move when SWAP is due:
        the words are always reordered as the static oracle reorders them."""
        return move != SWAP and costs[SWAP] != 0


class SwapEager(Swap):
    """Nivre 2009 Figure 4: SWAP whenever σ[-1] <G σ[-2]."""

    name = "swap-eager"
    aliases = ("stackeager",)


class SwapLazy(Swap):
    """Nivre, Kuhlmann & Hall 2009: SWAP when σ[-1] <G σ[-2] and B is empty or its
    front is in another maximal projective component than σ[-1]."""

    name = "swap-lazy"
    aliases = ("stacklazy",)

    def _swap_now(self, heads: list[int]) -> Callable[[State], bool]:
        component = maximal_projective_components(heads)

        def swap_now(state: State) -> bool:
            buffer = state.buffer
            return not buffer or component[state.stack[-1]] != component[buffer[0]]

        return swap_now


def maximal_projective_components(heads: Sequence[int]) -> list[int]:
    """The maximal projective component of each node 0..n, named by its top node
    (Nivre, Kuhlmann & Hall 2009).

    The components are the subtrees built by parsing the gold tree in word order
    with the projective transitions only (Tp, no SWAP), the oracle of Figure 4 less
    SWAP, until no arc can be added: each node left on the stack tops one component.
    Arcs from 0 are not built, so 0 is a component of its own and every word's
    component is a subtree of words. O(n).
    """
    n = len(heads) - 1
    missing = dependent_counts(heads)  # gold dependents not attached yet
    built: list[list[int]] = [[] for _ in range(n + 1)]
    stack: list[int] = []
    for word in range(1, n + 1):
        stack.append(word)
        while len(stack) >= 2:
            i, j = stack[-2], stack[-1]
            if heads[i] == j and missing[i] == 0:
                head, dependent = j, i
            elif heads[j] == i and missing[j] == 0:
                head, dependent = i, j
            else:
                break
            built[head].append(dependent)
            missing[head] -= 1
            stack[-2:] = [head]
    component = list(range(n + 1))
    for top in stack:
        below = [top]
        while below:
            node = below.pop()
            component[node] = top
            below.extend(built[node])
    return component
