"""The system seam: a transition system is one class and one registry line.

A toy system, registered here only, with no feature file of its own and no code in the
compiled loop (``barley.transition.fast``), trains and parses end to end: the compiled loop says once
that it does not know the system, and the reference path parses, giving the trees it gives
when asked for by ``BARLEY_NO_FAST``.
"""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Callable, Sequence
from importlib import resources

import pytest

import barley
from barley.transition import fast
from barley.conllu import read
from barley.errors import BarleyWarning
from barley.kinds import evaluate_parser, train
from barley.systems import REGISTRY, get_system
from barley.systems.base import Action, State, TransitionSystem, projective_gold
from fixed_grammar import toy_treebank

LEFT_ARC, RIGHT_ARC, SHIFT = range(3)


class StackTops(TransitionSystem):
    """Arcs between the two stack tops (Nivre 2009, Figure 1 without SWAP), written as a
    newcomer would: LEFT-ARC_l (σ|i|j, β) ⇒ (σ|j, β), i ≠ 0; RIGHT-ARC_l (σ|i|j, β) ⇒ (σ|i, β);
    SHIFT (σ, i|β) ⇒ (σ|i, β). No single-root handling, no dynamic oracle."""

    name = "toy-stack-tops"
    moves = ("LEFT-ARC", "RIGHT-ARC", "SHIFT")
    labeled = (True, True, False)
    tree_class = "projective"

    def legal(self, state: State) -> list[bool]:
        pair = len(state.stack) >= 2
        return [pair and state.stack[-2] != 0, pair, bool(state.buffer)]

    def apply(self, state: State, move: int, label: int = -1) -> None:
        stack = state.stack
        if move == SHIFT:
            stack.append(state.buffer.popleft())
        else:
            head, dependent = (stack[-1], stack[-2]) if move == LEFT_ARC else (stack[-2], stack[-1])
            state.add_arc(head, dependent, label)
            stack.remove(dependent)
        state.transitions += 1

    def is_terminal(self, state: State) -> bool:
        return not state.buffer and len(state.stack) == 1

    def oracle(self, heads: Sequence[int], labels: Sequence[int]) -> Callable[[State], Action]:
        heads, dependents, _ = projective_gold(self, heads)

        def next_action(state: State) -> Action:
            if len(state.stack) >= 2:
                i, j = state.stack[-2], state.stack[-1]
                if i != 0 and heads[i] == j and len(state.children[i]) == dependents[i]:
                    return LEFT_ARC, labels[i]
                if heads[j] == i and len(state.children[j]) == dependents[j]:
                    return RIGHT_ARC, labels[j]
            return (SHIFT, -1) if state.buffer else (RIGHT_ARC, labels[state.stack[-1]])

        return next_action


@pytest.fixture
def registered(monkeypatch):
    """The toy system in the registry (one line) and its module where the registry looks."""
    module = types.ModuleType("barley.systems.toy_stack_tops")
    module.StackTops = StackTops
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(REGISTRY.entries, StackTops.name, f"{module.__name__}:StackTops")
    monkeypatch.setattr(fast, "_said", set())
    return StackTops.name


def _trees(parser, path) -> list[str]:
    return [sentence.to_text() for sentence in parser.parse(list(read(path)))]


def test_a_system_registered_in_a_test_trains_and_parses_through_the_reference_path(registered, tmp_path,
                                                                                     monkeypatch):
    assert isinstance(get_system(registered), StackTops)
    toy_treebank(tmp_path / "train.conllu", 120, seed=1)
    toy_treebank(tmp_path / "test.conllu", 40, seed=2)
    features = resources.files("barley.features") / "defaults" / "stack-projective.txt"
    parser = train(str(tmp_path / "train.conllu"), system=registered, features=str(features), log=lambda _: None)
    parser.save(str(tmp_path / "toy.barley"))
    loaded = barley.load(str(tmp_path / "toy.barley"))
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        parsed = _trees(loaded, tmp_path / "test.conllu")
        again = _trees(loaded, tmp_path / "test.conllu")
    unknown = [w for w in said if issubclass(w.category, BarleyWarning) and registered in str(w.message)]
    if fast.loop_module() is not None:
        assert len(unknown) == 1 and "does not know the transition system" in str(unknown[0].message)
    assert parsed == again
    monkeypatch.setenv("BARLEY_NO_FAST", "1")
    assert _trees(barley.load(str(tmp_path / "toy.barley")), tmp_path / "test.conllu") == parsed
    assert evaluate_parser(loaded, str(tmp_path / "test.conllu"))["LAS"] == 100.0
