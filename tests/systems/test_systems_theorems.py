"""The papers' theorems, checked for every system in ``barley.systems.REGISTRY``.

- Completeness: the static oracle rebuilds every tree of the system's class
  exactly, heads and labels (the completeness theorems of Nivre 2008 §3-5,
  Nivre 2009 §3, Gómez-Rodríguez & Nivre 2010 §4-5), and no tree outside it.
- Soundness: any sequence of legal transitions terminates in a forest of the
  class (same theorems), acyclic, one head per word, one root if asked.
- Transition counts: 2n for arc-standard, arc-eager, arc-hybrid and stack-projective
  (Nivre 2008 §3-4, Nivre 2009 §3.1, Kuhlmann et al. 2011 §4.1); 2n + 2k with k
  swaps for the swap systems (Nivre 2009 §3.2), and the lazy oracle never swaps
  more than the eager one (Nivre, Kuhlmann & Hall 2009, "An improved oracle for
  dependency parsing with online reordering").

Every test is generic over the registry: a system is covered as soon as it is
registered and declares its class (``tree_class``).
"""

from __future__ import annotations

import random
import sys
from functools import lru_cache

import pytest
from gold_trees import ROOT_LABEL, read_gold
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from barley.systems import REGISTRY, get_system, run_oracle
from barley.tree import check_tree, is_projective, planarity

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

# What the papers prove each system complete for: pins the declarations, so a system
# cannot pass by declaring (and building) less than its paper promises.
PAPER_CLASS = {
    "arc-standard": "projective", "arc-eager": "projective", "stack-projective": "projective", "arc-hybrid": "projective",
    "covington-projective": "projective", "covington-nonprojective": "any",
    "swap-eager": "any", "swap-lazy": "any", "planar": "planar", "2-planar": "2-planar",
}
TWO_N = {"arc-standard", "arc-eager", "stack-projective", "arc-hybrid"}  # exactly 2n transitions per tree
SYSTEMS = sorted(REGISTRY)


@lru_cache(maxsize=None)
def tree_class(name: str) -> str:
    """The class the system declares it is sound and complete for. Planarity leaves out
    the arcs from the artificial root (Gómez-Rodríguez & Nivre 2010 parse the words 1..n)."""
    declared = getattr(get_system(name), "tree_class", None)
    assert declared in {"projective", "planar", "2-planar", "any"}, \
        f"{name}: declare tree_class, the class of trees it is complete for (projective, planar, 2-planar, any)"
    return declared


@pytest.mark.parametrize("name", SYSTEMS)
def test_declared_class_is_the_papers(name):
    assert tree_class(name) == PAPER_CLASS.get(name, tree_class(name))


def in_class(heads, klass: str) -> bool:
    return klass == "any" or klass in classes_of(heads)


def classes_of(heads) -> set[str]:
    """The classes a tree belongs to (one planarity computation, and none for projective trees)."""
    if is_projective(heads):
        return {"projective", "planar", "2-planar", "any"}
    planes = planarity(heads)[0]
    return {"any"} | ({"2-planar"} if planes <= 2 else set()) | ({"planar"} if planes <= 1 else set())


def swap_count(system, actions) -> int:
    if "SWAP" not in system.moves:
        return 0
    swap = system.moves.index("SWAP")
    return sum(move == swap for move, _ in actions)


# ---------------------------------------------------------------- random trees

def make_tree(n: int, choose, mutations, klass: str, single_root: bool) -> list[int]:
    """A random projective tree over n words, then each reassignment d → h of
    ``mutations`` that keeps it a tree of ``klass`` (single-rooted if asked).

    ``choose(lo, hi)`` picks an integer in [lo, hi] (hypothesis or a seeded RNG).
    """
    heads = [-1] * (n + 1)

    def attach(lo: int, hi: int, head: int, whole: bool) -> None:
        # words lo..hi become consecutive projective subtrees of head (one if whole)
        while lo <= hi:
            end = hi if whole else choose(lo, hi)
            root = choose(lo, end)
            heads[root] = head
            attach(lo, root - 1, root, False)
            attach(root + 1, end, root, False)
            lo = end + 1

    attach(1, n, 0, single_root)
    for d, h in mutations:
        if not (1 <= d <= n and 0 <= h <= n) or h == d or (single_root and 0 in (h, heads[d])):
            continue
        old, heads[d] = heads[d], h
        if check_tree(heads) is not None or not in_class(heads, klass):
            heads[d] = old
    return heads


@st.composite
def gold_trees(draw, klass: str, single_root: bool, max_words: int = 15):
    """(heads, labels): a random tree of ``klass`` over 0..max_words words; root words
    carry ROOT_LABEL, the others random labels 1..4."""
    n = draw(st.integers(0, max_words))
    mutations = draw(st.lists(st.tuples(st.integers(1, max(n, 1)), st.integers(0, n)), max_size=8))
    heads = make_tree(n, lambda lo, hi: draw(st.integers(lo, hi)), mutations, klass, single_root)
    labels = [-1] + [ROOT_LABEL if heads[d] == 0 else draw(st.integers(1, 4)) for d in range(1, n + 1)]
    return heads, labels


def check_output(system, heads, gold_heads=None) -> None:
    """A finished run's tree is well-formed, single-rooted if asked."""
    reason = check_tree(heads, single_root=system.single_root)
    assert reason is None, f"{system.name} built a malformed tree {heads} from gold {gold_heads}: {reason}"


# --------------------------------------------------------------- completeness

@pytest.mark.parametrize("single_root", [False, True], ids=["multi-root", "single-root"])
@pytest.mark.parametrize("name", SYSTEMS)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_oracle_rebuilds_every_tree_of_the_class(name, single_root, data):
    system = get_system(name, single_root=single_root)
    heads, labels = data.draw(gold_trees(tree_class(name), single_root))
    run = run_oracle(system, heads, labels, ROOT_LABEL)
    assert run.reproduced, f"{name} oracle built {run.heads} / {run.labels} for gold {heads} / {labels}"
    check_output(system, run.heads, heads)


@pytest.mark.parametrize("single_root", [False, True], ids=["multi-root", "single-root"])
@pytest.mark.parametrize("name", SYSTEMS)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_oracle_rebuilds_exactly_the_class(name, single_root, data):
    """On any tree: rebuilt iff in the class, and always a well-formed tree."""
    system = get_system(name, single_root=single_root)
    heads, labels = data.draw(gold_trees("any", single_root))
    run = run_oracle(system, heads, labels, ROOT_LABEL)
    assert run.reproduced == in_class(heads, tree_class(name)), \
        f"{name}: gold {heads} is {'' if run.reproduced else 'not '}rebuilt (built {run.heads})"
    check_output(system, run.heads, heads)


# ------------------------------------------------------------------ soundness

def random_run(system, n: int, rng: random.Random):
    """Apply random legal transitions (random labels) until a terminal state.

    Returns the arcs built by the transitions (before finalize) and the final state.
    """
    state = system.initial(n)
    limit = 4 * (n + 1) ** 2 + 16  # the bound run_oracle enforces
    while not system.is_terminal(state):
        legal = [move for move, ok in enumerate(system.legal(state)) if ok]
        assert legal, f"{system.name}: a non-terminal state without a legal transition"
        move = rng.choice(legal)
        system.apply(state, move, rng.randrange(5) if system.labeled[move] else -1)
        assert state.transitions <= limit, f"{system.name}: random transitions did not terminate"
    built = list(state.heads)
    system.finalize(state, ROOT_LABEL)
    return built, state


@pytest.mark.parametrize("single_root", [False, True], ids=["multi-root", "single-root"])
@pytest.mark.parametrize("name", SYSTEMS)
@settings(max_examples=100, deadline=None)
@given(n=st.integers(0, 15), seed=st.integers(0, 2**32 - 1))
def test_legal_transitions_build_a_forest_of_the_class(name, single_root, n, seed):
    system = get_system(name, single_root=single_root)
    built, state = random_run(system, n, random.Random(seed))
    # The words left without a head become roots: attaching them to 0 neither adds a
    # cycle nor changes projectivity (0 dominates everything) or planarity (root arcs
    # are left out), so the built forest is in the class iff this tree is.
    forest = [-1] + [0 if h == -1 else h for h in built[1:]]
    assert check_tree(forest) is None, f"{name} built a cycle: {built}"
    assert in_class(forest, tree_class(name)), f"{name} built {built}, outside its class"
    if single_root:
        assert built[1:].count(0) <= 1, f"{name} attached several words to the root: {built}"
    check_output(system, state.heads)
    assert all(state.labels[d] != -1 for d in range(1, n + 1)), f"{name}: a word without a label"
    assert [sorted(kids) for kids in state.children] == [
        [d for d in range(1, n + 1) if state.heads[d] == h] for h in range(n + 1)], \
        f"{name}: children lists out of step with heads"


# ------------------------------------------------------------ transition counts

def check_counts(systems, heads, labels, where: str) -> None:
    """2n or 2n + 2k transitions on rebuilt trees; lazy swaps ≤ eager swaps."""
    n = len(heads) - 1
    swaps = {}
    for system in systems:
        run = run_oracle(system, heads, labels, ROOT_LABEL)
        if not run.reproduced:
            continue
        k = swaps[system.name] = swap_count(system, run.actions)
        if system.name in TWO_N:
            assert len(run.actions) == 2 * n, f"{system.name}: {len(run.actions)} transitions for n = {n} ({where})"
        if "SWAP" in system.moves:
            assert len(run.actions) == 2 * n + 2 * k, \
                f"{system.name}: {len(run.actions)} transitions, n = {n}, {k} swaps ({where})"
    if "swap-lazy" in swaps and "swap-eager" in swaps:
        assert swaps["swap-lazy"] <= swaps["swap-eager"], f"lazy swaps more than eager ({where}: {heads})"


@pytest.mark.parametrize("single_root", [False, True], ids=["multi-root", "single-root"])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_transition_counts(single_root, data):
    heads, labels = data.draw(gold_trees("any", single_root))
    check_counts([get_system(name, single_root=single_root) for name in SYSTEMS], heads, labels, "random tree")


# ------------------------------------------------------------------- run time

def traced_lines(call) -> tuple[int, object]:
    """How many lines of Python ``call()`` runs (``sys.settrace``), and its result: a count of
    work that, unlike seconds, does not depend on the machine or its load."""
    lines = 0

    def tracer(frame, event, arg):
        nonlocal lines
        lines += 1
        return tracer

    sys.settrace(tracer)
    try:
        result = call()
    finally:
        sys.settrace(None)
    return lines, result


def oracle_run_on(name: str, n: int):
    """The oracle of system ``name`` on a random n-word tree of its class (single root), which it rebuilds."""
    rng = random.Random(n)
    klass = tree_class(name)
    mutations = [(rng.randint(1, n), rng.randint(0, n)) for _ in range(n // 25 if klass != "any" else n // 5)]
    heads = make_tree(n, rng.randint, mutations if klass != "projective" else [], klass, True)
    labels = [-1] + [ROOT_LABEL if heads[d] == 0 else rng.randint(1, 4) for d in range(1, n + 1)]
    system = get_system(name, single_root=True)
    lines, run = traced_lines(lambda: run_oracle(system, heads, labels, ROOT_LABEL))
    assert run.reproduced
    return lines, run


@pytest.mark.parametrize("name", SYSTEMS)
def test_oracle_work_per_transition_does_not_grow_with_length(name, record_property):
    """A guard against quadratic surprises, not a benchmark (see bench/bench_oracle.py): the
    Python lines the oracle and the transitions run per transition are the same (within 20%)
    on a 1000-word tree as on a 250-word one. The transition count itself may grow faster
    than the length (Covington's, the swap systems'); the work of each step must not."""
    (short_lines, short_run), (long_lines, long_run) = oracle_run_on(name, 250), oracle_run_on(name, 1000)
    short, long = short_lines / len(short_run.actions), long_lines / len(long_run.actions)
    record_property("lines per transition", [round(short, 1), round(long, 1)])
    assert long <= 1.2 * short, f"{name}: {long:.1f} lines per transition on 1000 words, {short:.1f} on 250"


# ------------------------------------------------------------ real treebanks

@pytest.mark.ud
def test_oracles_on_treebank(ud_path):
    """Every system on every sentence of one file (parsed once for all systems):
    rebuilt exactly when in the class, a single-rooted tree always, and the counts."""
    gold = read_gold(ud_path)
    systems = [(get_system(name, single_root=True), tree_class(name)) for name in SYSTEMS]
    problems: list[str] = []
    for sent_id, heads, labels in gold:
        assert check_tree(heads, single_root=True) is None, f"{ud_path.name} {sent_id}: not a UD tree"
        n = len(heads) - 1
        member = classes_of(heads)
        swaps = {}
        for system, klass in systems:
            run = run_oracle(system, heads, labels, ROOT_LABEL)
            if run.reproduced != (klass in member):
                problems.append(f"{system.name} {sent_id}: rebuilt={run.reproduced}, in {klass}={klass in member}")
            if not run.reproduced:  # a rebuilt tree is the gold tree, checked above
                if check_tree(run.heads, single_root=True) is not None:
                    problems.append(f"{system.name} {sent_id}: output not a single-rooted tree: {run.heads}")
                continue
            k = swaps[system.name] = swap_count(system, run.actions)
            expected = 2 * n if system.name in TWO_N else 2 * n + 2 * k if "SWAP" in system.moves else None
            if expected is not None and len(run.actions) != expected:
                problems.append(f"{system.name} {sent_id}: {len(run.actions)} transitions, expected {expected}")
        if swaps.get("swap-lazy", 0) > swaps.get("swap-eager", float("inf")):
            problems.append(f"{sent_id}: swap-lazy swaps {swaps['swap-lazy']} > swap-eager {swaps['swap-eager']}")
    assert not problems, f"{ud_path.name}: {len(problems)} problems, first ones:\n" + "\n".join(problems[:10])
