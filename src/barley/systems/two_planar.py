"""2-planar parsing (Gómez-Rodríguez & Nivre 2010 §5, Figure 4).

The planar system (:mod:`barley.systems.planar`) with a second stack. Configurations
(Σ0, Σ1, B, A): Σ0 is the active stack, Σ1 the inactive one; initially
([], [], [1..n], ∅); terminal when B is empty. ARC and REDUCE transitions use the
active stack only, so the arcs built from each stack are planar (one plane per
stack), and arcs built from different stacks may cross:

===========  ========================================================  =================================
transition   effect                                                    precondition
===========  ========================================================  =================================
LEFT-ARC_l   (Σ0|i, Σ1, j|B, A) ⇒ (Σ0|i, Σ1, j|B, A ∪ {(j, l, i)})      i has no head, not i ↔* j
RIGHT-ARC_l  (Σ0|i, Σ1, j|B, A) ⇒ (Σ0|i, Σ1, j|B, A ∪ {(i, l, j)})      j has no head, not i ↔* j
REDUCE       (Σ0|i, Σ1, B, A) ⇒ (Σ0, Σ1, B, A)
SHIFT        (Σ0, Σ1, i|B, A) ⇒ (Σ0|i, Σ1|i, B, A)
SWITCH       (Σ0, Σ1, B, A) ⇒ (Σ1, Σ0, B, A)                            the last transition was no SWITCH
===========  ========================================================  =================================

Sound and complete for 2-planar forests (§5.1). Two SWITCHes in a row are
forbidden: without that the parser need not terminate (§5.1); with it a sequence
has O(n) transitions.

In a :class:`TwoPlanarState`, ``stack`` is the active stack Σ0 (top last) and
``inactive`` is Σ1; SWITCH exchanges them. ``plane`` is the paper's flag p (0 or 1,
flipped by SWITCH): the plane the active stack builds, recorded per arc in
``arc_planes``. Node 0, acyclicity, and the root arcs left to ``finalize``: as in
the planar system (root arcs are outside planarity).

*Oracle* (§5.2). The completeness proof's oracle (§5.1) needs the gold arcs split
into two planes beforehand; the one used in practice assigns planes as it goes,
and switches only when the next arc cannot be built on the active plane. Here,
arcs that cross nothing may go on either plane; in a connected component of the
crossings graph, the planes are fixed by its 2-colouring as soon as one of its arcs
is built (on the plane then active). For Σ0|i and j|B, with p the active plane:

1. LEFT-ARC / RIGHT-ARC if i ↔ j is a pending gold arc that may go on plane p;
2. REDUCE if j has a pending gold arc that may go on plane p with a word left of i;
3. SWITCH if j has pending gold arcs (they must go on the other plane);
4. SHIFT otherwise.

Arcs of a component whose planes are not fixed yet have their left end on both
stacks (a word leaves a stack only when an arc crossing its pending arcs is built
on that plane, which fixes their component), so step 2 always reaches them; and
after a SWITCH the arcs of the new plane are on its stack, so no SWITCH follows a
SWITCH. A gold forest outside the class is first cut down to a 2-planar one
(:func:`barley.systems.planar.split_into_planes`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from barley.systems.base import NO_HEAD, Action, State, TransitionSystem, require_gold_arcs
from barley.systems.planar import legal_on_stack, split_into_planes
from barley.tree import check_tree

LEFT_ARC, RIGHT_ARC, REDUCE, SHIFT, SWITCH = range(5)


@dataclass(slots=True, eq=False)
class TwoPlanarState(State):
    """A configuration with two stacks: ``stack`` (active, Σ0) and ``inactive`` (Σ1)."""

    inactive: list[int] = field(default_factory=list)
    plane: int = 0  # the plane of the active stack, the flag p of §5.1
    arc_planes: list[int] = field(default_factory=list)  # per dependent: the plane of its head arc
    switched: bool = False  # was the last transition SWITCH?


class TwoPlanar(TransitionSystem[TwoPlanarState]):
    name = "2-planar"
    aliases = ("2planar",)
    moves = ("LEFT-ARC", "RIGHT-ARC", "REDUCE", "SHIFT", "SWITCH")
    labeled = (True, True, False, False, False)
    attaches = (("Stack", 0), ("Input", 0), None, None, None)
    tree_class = "2-planar"
    addresses = ("Stack", "Inactive", "Input")

    def initial(self, n: int) -> TwoPlanarState:
        return TwoPlanarState(n, stack=[], buffer=deque(range(1, n + 1)), arc_planes=[NO_HEAD] * (n + 1))

    def legal(self, state: TwoPlanarState) -> list[bool]:
        # Figure 4: the planar system's preconditions on the active stack, and SWITCH
        return [*legal_on_stack(state), bool(state.buffer) and not state.switched]

    def apply(self, state: TwoPlanarState, move: int, label: int = -1) -> None:
        stack, buffer = state.stack, state.buffer
        if move == LEFT_ARC:
            state.add_arc(buffer[0], stack[-1], label)
            state.arc_planes[stack[-1]] = state.plane
        elif move == RIGHT_ARC:
            state.add_arc(stack[-1], buffer[0], label)
            state.arc_planes[buffer[0]] = state.plane
        elif move == REDUCE:
            stack.pop()
        elif move == SHIFT:
            word = buffer.popleft()
            stack.append(word)
            state.inactive.append(word)
        elif move == SWITCH:
            state.stack, state.inactive = state.inactive, stack
            state.plane ^= 1
        else:
            raise ValueError(f"2-planar has no move {move}")
        state.switched = move == SWITCH
        state.transitions += 1

    def is_terminal(self, state: TwoPlanarState) -> bool:
        return not state.buffer

    def oracle(self, heads: Sequence[int], labels: Sequence[int]) -> Callable[[TwoPlanarState], Action]:
        """§5.2's oracle: planes assigned incrementally, SWITCH only when needed."""
        split = split_into_planes(heads, 2)
        target, component, parity = split.heads, split.component, split.parity
        inside = split.dropped == 0 and check_tree(heads, self.single_root) is None
        links: list[list[tuple[int, int]]] = [[] for _ in heads]  # per word: (left word, dependent) of its arcs
        members: dict[int, list[int]] = {}  # per component of the crossings graph: its arcs (dependents)
        for d in range(1, len(heads)):
            if target[d] != NO_HEAD:
                left, right = sorted((d, target[d]))
                links[right].append((left, d))
                members.setdefault(component[d], []).append(d)
        # Per component: an arc found built, whose plane fixes the component's planes. A cache
        # checked against each configuration, so answers depend on the configuration only.
        witness: dict[int, int] = {}

        def plane_of(state: TwoPlanarState, d: int) -> int | None:
            """The plane the gold arc → d has to go on, given the arcs built; None: either."""
            arcs = members[component[d]]
            if len(arcs) == 1:
                return None
            built = witness.get(component[d], NO_HEAD)
            if built == NO_HEAD or state.heads[built] != target[built]:
                built = next((e for e in arcs if state.heads[e] == target[e]), NO_HEAD)
                if built == NO_HEAD:
                    return None
                witness[component[d]] = built
            return state.arc_planes[built] ^ parity[built] ^ parity[d]

        def next_action(state: TwoPlanarState) -> Action:
            j, p = state.buffer[0], state.plane
            i = state.stack[-1] if state.stack else NO_HEAD
            if i != NO_HEAD:
                if target[i] == j and not state.has_head(i) and plane_of(state, i) in (None, p):
                    return LEFT_ARC, labels[i]
                if target[j] == i and not state.has_head(j) and plane_of(state, j) in (None, p):
                    return RIGHT_ARC, labels[j]
            pending = False
            for x, d in links[j]:
                if state.has_head(d):
                    continue
                if x < i and plane_of(state, d) in (None, p):
                    return REDUCE, -1
                pending = True
            if pending and not state.switched:
                return SWITCH, -1
            if inside and len(state.buffer) == 1:
                require_gold_arcs(self, state, target)
            return SHIFT, -1

        return next_action
