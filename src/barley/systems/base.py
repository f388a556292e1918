"""The interface every transition system implements, and what they share.

A transition system (Nivre 2008 §2.3) is a set of configurations, an initial
configuration for a sentence, a set of transitions with preconditions, and
terminal configurations. Here:

* a configuration is a :class:`State` (or a subclass adding the system's own
  lists, e.g. Covington's λ1/λ2 or 2-planar's second stack);
* a transition is an :data:`Action` ``(move, label)``: ``move`` indexes the
  system's ``moves`` tuple and ``label`` is a label id for labeled moves, -1
  otherwise. Legality is decided per move and holds for every label (labels are
  data, not transitions);
* the static oracle of a system is built once per gold tree
  (:meth:`TransitionSystem.oracle`), so it can precompute what it needs (the
  projective order, maximal projective components, plane assignments).

Nodes are 0..n with 0 the artificial root; ``heads[d] == -1`` means "no head yet".

Dynamic oracles (Goldberg & Nivre 2012, 2013). A system whose class attribute
``dynamic_oracle`` is True has exact transition costs in *every* configuration,
including those reached by mistakes:

* :meth:`TransitionSystem.costs` is built once per gold tree, like ``oracle``, and
  returns a :class:`Costs`; ``costs(state)`` gives, per move, the cost of the best
  action of that move, or None when the move is illegal;
* the cost of an action is the number of gold arcs that the best completion after
  it loses minus the number the best completion from ``state`` loses; a *lost* arc
  is a gold arc (h, l, d) whose dependent d does not end with head h *and* label l
  in the arcs the transitions build (:meth:`TransitionSystem.finalize` is not a
  transition and is not counted). So costs are ≥ 0 and, in every non-terminal
  configuration, some legal move costs 0;
* labels: the best action of a labeled move is the one with the gold label of the
  arc (h, d) it would build (:meth:`TransitionSystem.arc`) when h is d's gold head;
  any other label costs exactly one more. When h is not d's gold head every label
  costs the same. :meth:`Costs.label` gives that zero-cost label (-1 when any label
  will do) and :meth:`Costs.action_cost` the cost of one ``(move, label)``.

``exploration_oracle`` is True for every system whose ``costs`` may drive training
by exploration: the systems with exact costs, and any system whose costs are
trustworthy only in some configurations (e.g. a static–dynamic oracle, de Lhoneux,
Stymne & Nivre 2017); such a system says in its docstring where they are exact, and
its :meth:`TransitionSystem.explorable` keeps exploration where they are trustworthy.
A system without either raises :class:`NoDynamicOracle` from ``costs``.
Which systems have which is listed in ``docs/oracles.md``; the theorem is checked
against brute force in ``tests/systems/test_dynamic_oracles.py``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from bisect import bisect
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from barley.errors import BarleyError
from barley.tree import check_tree, lift_to_projective

Action = tuple[int, int]
"""``(move index, label id)``; label is -1 for unlabeled moves (SHIFT, REDUCE, ...)."""

NO_HEAD = -1


class OracleError(RuntimeError):
    """The oracle found no correct move for a tree that is inside the system's class.

    That is a bug in barley, never in the data: the message names the sentence,
    the word and the arc so that it can be reproduced.
    """


class Forest:
    """Union-find over nodes 0..n that knows the root of every tree of the forest.

    Adding the arc h → d (d has no head yet) creates a cycle exactly when h lies in
    the tree rooted at d, i.e. when ``root(h) == d``. With path compression and union
    by size this is amortized constant time per check (Nivre 2008 §6.1), instead of
    walking up the heads.
    """

    __slots__ = ("parent", "size", "top")

    def __init__(self, n: int):
        self.parent = list(range(n + 1))
        self.size = [1] * (n + 1)
        self.top = list(range(n + 1))  # top[representative] = the tree's root node

    def find(self, node: int) -> int:
        parent = self.parent
        root = node
        while parent[root] != root:
            root = parent[root]
        while parent[node] != root:
            parent[node], node = root, parent[node]
        return root

    def root(self, node: int) -> int:
        """The node at the top of ``node``'s tree (the ancestor without a head)."""
        return self.top[self.find(node)]

    def reaches(self, head: int, dependent: int) -> bool:
        """True if ``dependent →* head`` already, i.e. the arc head → dependent would close a
        cycle (for a ``dependent`` that has no head)."""
        return self.root(head) == dependent

    def copy(self) -> Forest:
        twin = Forest.__new__(Forest)
        twin.parent, twin.size, twin.top = self.parent[:], self.size[:], self.top[:]
        return twin

    def link(self, head: int, dependent: int) -> None:
        """Record the arc head → dependent (dependent must be a tree root)."""
        a, b = self.find(head), self.find(dependent)
        top = self.top[a]
        if self.size[a] < self.size[b]:
            a, b = b, a
        self.parent[b] = a
        self.size[a] += self.size[b]
        self.top[a] = top


class NoDynamicOracle(BarleyError, NotImplementedError):
    """The system has no dynamic oracle (no ``costs``): it trains with its static oracle only."""

    def __init__(self, system: str):
        super().__init__(f"transition system {system} has no dynamic oracle (transition costs)",
                         fix="train it with --oracle static, or choose a system that has one (arc-eager, "
                             "arc-hybrid, arc-standard, covington-nonprojective, swap-eager, swap-lazy)")


@dataclass(slots=True, eq=False)
class State:
    """A configuration: the parts every system has, plus the arcs built so far.

    ``stack``: top is ``stack[-1]``. ``buffer``: front is ``buffer[0]``.
    ``heads``/``labels``: the arcs A, per dependent (-1 = none).
    ``children``: the dependents of each node, kept sorted, so feature models can ask
    for leftmost/rightmost dependents and their siblings (Nivre 2008 Table 2); a node's list is
    replaced, never changed in place, when it gains a dependent, so copies share the lists.
    ``forest``: union-find over A, for the acyclicity preconditions.
    ``transitions``: how many transitions were applied.
    """

    n: int
    stack: list[int]
    buffer: deque[int]
    heads: list[int] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    children: list[list[int]] = field(default_factory=list)
    forest: Forest = None  # type: ignore[assignment]  # built by __post_init__
    transitions: int = 0

    def __post_init__(self) -> None:
        if not self.heads:
            self.heads = [NO_HEAD] * (self.n + 1)
            self.labels = [NO_HEAD] * (self.n + 1)
            self.children = [[] for _ in range(self.n + 1)]
        if self.forest is None:
            self.forest = Forest(self.n)

    def copy(self) -> State:
        """An independent copy, for a beam whose configurations branch (:mod:`barley.transition.beam`): every
        list and deque of this configuration and of a system's subclass (λ1, λ2, a second stack...)
        copied (``children``'s lists are shared: :meth:`add_arc` replaces them), the forest copied; O(n)."""
        twin = object.__new__(type(self))
        for name in _slot_names(type(self)):
            value = getattr(self, name)
            setattr(twin, name, value.copy() if isinstance(value, (list, deque)) else value)
        twin.forest = self.forest.copy()
        return twin

    def add_arc(self, head: int, dependent: int, label: int) -> None:
        assert self.heads[dependent] == NO_HEAD, f"node {dependent} already has a head"
        self.heads[dependent] = head
        self.labels[dependent] = label
        kids = self.children[head]
        at = bisect(kids, dependent)
        self.children[head] = [*kids[:at], dependent, *kids[at:]]  # a new list: copies share the old one
        self.forest.link(head, dependent)

    def has_head(self, node: int) -> bool:
        return self.heads[node] != NO_HEAD

    def leftmost(self, node: int) -> int:
        kids = self.children[node]
        return kids[0] if kids else NO_HEAD

    def rightmost(self, node: int) -> int:
        kids = self.children[node]
        return kids[-1] if kids else NO_HEAD


StateT = TypeVar("StateT", bound=State)
"""The configurations of a transition system: :class:`State` or a system's subclass of it."""

_SLOTS: dict[type, tuple[str, ...]] = {}


def _slot_names(cls: type) -> tuple[str, ...]:
    """The fields of a configuration class and of the classes it extends (slots dataclasses)."""
    if cls not in _SLOTS:
        _SLOTS[cls] = tuple(name for klass in reversed(cls.__mro__)
                            for name in klass.__dict__.get("__slots__", ()) if not name.startswith("__"))
    return _SLOTS[cls]


class TransitionSystem(ABC, Generic[StateT]):
    """One transition system; subclasses are one small file each (see ``registry``).

    Class attributes: ``name`` (barley's name), ``aliases`` (MaltParser's names),
    ``moves`` (move names, index = move id), ``labeled`` (per move: takes a label).
    ``single_root``: when True the system never attaches a second word to node 0, and
    :meth:`finalize` keeps a single root, as UD treebanks require.
    """

    name: str = ""
    aliases: tuple[str, ...] = ()
    moves: tuple[str, ...] = ()
    labeled: tuple[bool, ...] = ()
    tree_class: str = ""
    """The trees the system is sound and complete for: "projective", "planar",
    "2-planar" (planarity over arcs between words; root arcs left out) or "any"."""
    attaches: tuple[tuple[str, int] | None, ...] = ()
    """Per move: the word its arc attaches as dependent, as an address (list, position: ``("Stack",
    0)`` is Stack[0]), None for a move that makes no arc; read by a parser's confidence
    (:mod:`barley.transition.loop`) to know whose head each step decides, and checked against ``apply``."""
    addresses: tuple[str, ...] = ("Stack", "Input")
    """The lists of its configurations that feature addresses can name (Stack[0], Input[1], ...):
    those of :meth:`initial`'s configuration; a system with its own configuration declares its own."""

    def __init__(self, single_root: bool = False):
        self.single_root = single_root

    def initial(self, n: int) -> State:
        """The initial configuration for a sentence of n words.

        By default the stack-based one of Nivre (2008, §4) and Nivre (2009, Fig. 2):
        ``([0], [1, ..., n], ∅)``; list-based and planar systems override it.
        """
        return State(n, stack=[0], buffer=deque(range(1, n + 1)))

    @abstractmethod
    def legal(self, state: StateT) -> list[bool]:
        """Per move: are its preconditions satisfied in ``state``?"""

    @abstractmethod
    def apply(self, state: StateT, move: int, label: int = -1) -> None:
        """Apply one transition to ``state`` in place (preconditions assumed)."""

    @abstractmethod
    def is_terminal(self, state: StateT) -> bool:
        """Is ``state`` terminal?"""

    @abstractmethod
    def oracle(self, heads: Sequence[int], labels: Sequence[int]) -> Callable[[StateT], Action]:
        """The static oracle for one gold tree: a function from state to the next action.

        For a tree inside the system's class the actions rebuild the tree exactly;
        for one outside it they still reach a terminal state (the nearest tree the
        system can build). Raises :class:`OracleError` only on a bug.
        """

    dynamic_oracle: bool = False
    """True when :meth:`costs` is exact in every configuration (Goldberg & Nivre 2013)."""
    exploration_oracle: bool = False
    """True when :meth:`costs` may drive training by exploration (every exact system,
    and the static–dynamic oracle of swap); see the module docstring."""
    keeps_partial_gold: bool = False
    """True when :meth:`given_arc_costs` is exact for a *partial* gold tree (heads -1 for the words
    without a gold head): what ``barley parse --keep-arcs`` steers by (:mod:`barley.constraints`);
    checked against brute force in ``tests/test_constraints.py``."""

    def costs(self, heads: Sequence[int], labels: Sequence[int]) -> Costs[StateT]:
        """The dynamic oracle for one gold tree (built once per tree, like :meth:`oracle`).

        ``heads``/``labels`` are the gold tree, indexed 0..n. Costs count the arcs of
        the tree the static oracle aims at: for a projective system and a
        non-projective tree, its nearest projective tree (:func:`projective_target`,
        each lifted arc keeping its label); otherwise the tree itself. Systems with
        ``exploration_oracle`` override :meth:`move_costs`; the others raise
        :class:`NoDynamicOracle`.
        """
        target = projective_target(heads) if self.tree_class == "projective" else [int(h) for h in heads]
        return Costs(self, target, labels, self.move_costs(target, labels))

    def move_costs(self, heads: list[int], labels: Sequence[int]) -> Callable[[StateT], list[int | None]]:
        """For the target tree ``heads`` (see :meth:`costs`), the function ``state -> per
        move, the cost of its best action (None = illegal)`` that :class:`Costs` wraps."""
        raise NoDynamicOracle(self.name)

    def given_arc_costs(self, heads: list[int]) -> Callable[[StateT], list[int | None]]:
        """For a partial gold tree ``heads`` (-1: no gold head; e.g. the arcs ``barley parse
        --keep-arcs`` keeps), the function ``state -> per move, how many of its arcs the move makes
        unreachable (None = illegal)``, when ``keeps_partial_gold``: by default the dynamic-oracle
        costs (:meth:`move_costs`) with any label allowed."""
        return self.move_costs(heads, [-1] * len(heads))

    def arc(self, state: StateT, move: int) -> tuple[int, int]:
        """The arc ``(head, dependent)`` that the labeled ``move`` would add in ``state``
        (which must allow it). Systems with ``exploration_oracle`` implement it."""
        raise NoDynamicOracle(self.name)

    def explorable(self, state: StateT, move: int, costs: list[int | None]) -> bool:
        """May training by exploration follow ``move``, a costly prediction, in ``state``
        (``costs``: the per-move costs there)? Yes, unless the costs are trustworthy only
        on some configurations (swap's static–dynamic oracle keeps the static reordering)."""
        return True

    def move(self, name: str) -> int:
        return self.moves.index(name)

    def can_attach_to_root(self, state: State) -> bool:
        """False once node 0 has a dependent, when the system keeps a single root."""
        return not (self.single_root and state.children[0])

    def finalize(self, state: State, root_label: int) -> None:
        """Attach the words left without a head (Nivre 2008 §6.1).

        They go to node 0 with ``root_label``; with ``single_root``, only the first
        goes to 0 if 0 has no dependent yet, and the rest attach to 0's dependent,
        so the output keeps a single root.
        """
        for node in range(1, state.n + 1):
            if state.heads[node] != NO_HEAD:
                continue
            if self.single_root and state.children[0]:
                state.add_arc(state.children[0][0], node, root_label)
            else:
                state.add_arc(0, node, root_label)


def projective_target(heads: Sequence[int]) -> list[int]:
    """The tree the oracle of a projective system aims at: ``heads`` if projective, else
    ``heads`` with its non-projective arcs lifted to the head's head, shortest first,
    until it is projective (Nivre & Nilsson 2005 §3). Every arc it does not lift is
    kept, so this is the nearest tree such a system can build. A ``heads`` that is no
    tree at all is returned as it is.
    """
    target = [int(h) for h in heads]
    if check_tree(target) is not None:
        return target
    return lift_to_projective(target, "shortest")[0]


def dependent_counts(heads: Sequence[int]) -> list[int]:
    """Per node 0..n, how many dependents it has in ``heads`` (-1 = no head). An oracle
    compares it with ``len(state.children[node])`` to know that a node is complete."""
    counts = [0] * len(heads)
    for d in range(1, len(heads)):
        if heads[d] >= 0:
            counts[heads[d]] += 1
    return counts


GONE, ON_STACK, IN_BUFFER = 0, 1, 2


def places(state: State) -> list[int]:
    """Per node 0..n (and -1, the last entry, for "no head"): ON_STACK, IN_BUFFER or GONE.
    O(n); the cost functions of the dynamic oracles ask it once per configuration."""
    where = [GONE] * (state.n + 2)
    for node in state.stack:
        where[node] = ON_STACK
    for node in state.buffer:
        where[node] = IN_BUFFER
    return where


def projective_gold(system: TransitionSystem, heads: Sequence[int]) -> tuple[list[int], list[int], bool]:
    """What the oracle of a projective stack-based system precomputes for one gold tree:
    the tree it aims at (:func:`projective_target`), each node's number of dependents in
    it, and whether the system can build that tree exactly (a well-formed tree, with one
    root word under ``single_root``), so that an arc still missing at the end is a bug."""
    target = projective_target(heads)
    return target, dependent_counts(target), check_tree(target, system.single_root) is None


def require_gold_arcs(system: TransitionSystem, state: State, heads: Sequence[int],
                      arriving: int = NO_HEAD) -> None:
    """Raise :class:`OracleError` naming the first word without its head in ``heads``.

    An oracle calls this, when its target tree ``heads`` is one the system can build,
    just before the transition after which no arc can be added any more;
    ``arriving`` is the word that this transition attaches.
    """
    for word in range(1, state.n + 1):
        if word != arriving and state.heads[word] != heads[word]:
            raise OracleError(f"{system.name} oracle missed the gold arc {heads[word]} → {word} (word {word} "
                              f"of {state.n}, after {state.transitions} transitions) of a tree it can build: "
                              f"a bug in barley")


class Costs(Generic[StateT]):
    """A dynamic oracle for one gold tree: the cost of every action in any configuration.

    ``costs(state)`` is the list of per-move costs (None = illegal move), the cost of
    each move's best action; :meth:`label` is that action's label and
    :meth:`action_cost` the cost of any ``(move, label)``. See the module docstring
    for what a cost counts.
    """

    __slots__ = ("system", "heads", "labels", "_move_costs")

    def __init__(self, system: TransitionSystem[StateT], heads: Sequence[int], labels: Sequence[int],
                 move_costs: Callable[[StateT], list[int | None]]):
        self.system = system
        self.heads = heads
        self.labels = labels
        self._move_costs = move_costs

    def __call__(self, state: StateT) -> list[int | None]:
        return self._move_costs(state)

    def label(self, state: StateT, move: int) -> int:
        """The label of ``move``'s best action: the gold label of the arc it would add when
        that arc's head is the dependent's gold head; -1 for an unlabeled move or when
        every label costs the same."""
        if not self.system.labeled[move]:
            return -1
        head, dependent = self.system.arc(state, move)
        return self.labels[dependent] if self.heads[dependent] == head else -1

    def action_cost(self, state: StateT, move: int, label: int, costs: list[int | None] | None = None) -> int | None:
        """The cost of the action ``(move, label)`` (None if illegal); pass ``costs`` =
        ``self(state)`` when already computed."""
        cost = (self(state) if costs is None else costs)[move]
        if cost is None:
            return None
        best = self.label(state, move)
        return cost + (best != -1 and label != best)

    def explorable(self, state: StateT, move: int, costs: list[int | None]) -> bool:
        """May exploration follow the costly ``move`` here (:meth:`TransitionSystem.explorable`)?"""
        return self.system.explorable(state, move, costs)

    def zero_cost(self, state: StateT, costs: list[int | None] | None = None) -> list[Action]:
        """The actions of cost 0 (each labeled move with its best label); pass ``costs`` =
        ``self(state)`` when already computed."""
        return [(move, self.label(state, move))
                for move, cost in enumerate(self(state) if costs is None else costs) if cost == 0]


@dataclass
class OracleRun:
    """The result of running a system's oracle over one gold tree."""

    actions: list[Action]
    heads: list[int]
    labels: list[int]
    reproduced: bool


def run_oracle(system: TransitionSystem, heads: Sequence[int], labels: Sequence[int],
               root_label: int = 0, observe: Callable[[State, Action | None], None] | None = None) -> OracleRun:
    """Follow the oracle from the initial to a terminal state; compare with the gold tree.

    ``heads``/``labels`` are indexed by node 0..n (entry 0 ignored). Every action is
    checked against the system's preconditions, so an oracle that proposes an
    illegal move is caught here rather than producing a wrong tree silently.
    ``observe(state, action)``, if given, sees the initial state (action None) and
    the state after each action (to draw the configuration sequence).
    """
    n = len(heads) - 1
    state = system.initial(n)
    next_action = system.oracle(heads, labels)
    actions: list[Action] = []
    limit = 4 * (n + 1) * (n + 1) + 16  # far above any system's bound; guards a looping oracle
    if observe is not None:
        observe(state, None)
    while not system.is_terminal(state):
        move, label = next_action(state)
        if not system.legal(state)[move]:
            raise OracleError(f"{system.name} oracle chose {system.moves[move]}, which is not legal "
                              f"here (stack {state.stack[-3:]}, buffer {list(state.buffer)[:3]})")
        system.apply(state, move, label)
        actions.append((move, label))
        if observe is not None:
            observe(state, (move, label))
        if len(actions) > limit:
            raise OracleError(f"{system.name} oracle did not terminate after {limit} transitions")
    system.finalize(state, root_label)
    reproduced = list(state.heads[1:]) == list(heads[1:]) and list(state.labels[1:]) == list(labels[1:])
    return OracleRun(actions, state.heads, state.labels, reproduced)
