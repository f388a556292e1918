"""Brute-force transition costs and random configurations, for test_dynamic_oracles and test_constraints."""

from __future__ import annotations

import copy
import dataclasses

from hypothesis import Phase
from hypothesis import strategies as st

WRONG_LABEL = 9  # no gold arc carries it
NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]  # shrinking re-runs the brute force for minutes


def key(state) -> tuple:
    """What determines the future of a configuration (not the union-find, a cache)."""
    return tuple(tuple(value) if isinstance(value := getattr(state, f.name), (list, tuple)) or hasattr(value, "popleft")
                 else value for f in dataclasses.fields(state)
                 if f.name not in ("forest", "children", "transitions"))


def clone(state):
    """A copy of a configuration that shares nothing mutable with it (faster than deepcopy)."""
    forest = copy.copy(state.forest)
    forest.parent, forest.size, forest.top = list(forest.parent), list(forest.size), list(forest.top)
    fields = {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}
    fields = {name: value.copy() if hasattr(value, "copy") else value for name, value in fields.items()}
    fields["children"] = [list(kids) for kids in state.children]
    fields["forest"] = forest
    return type(state)(**fields)


class BruteForce:
    """The least number of gold arcs lost over all completions of a configuration; with
    ``allowed(state, move)``, over the completions that take only the moves it allows."""

    def __init__(self, system, heads, labels, allowed=None):
        self.system, self.heads, self.labels = system, heads, labels
        self.allowed = allowed or (lambda state, move: True)
        self.memo: dict[tuple, int] = {}

    def lost(self, state) -> int:
        return sum(state.heads[d] != self.heads[d] or state.labels[d] != self.labels[d]
                   for d in range(1, state.n + 1))

    def best_label(self, state, move) -> int:
        if not self.system.labeled[move]:
            return -1
        head, dependent = self.system.arc(state, move)
        return self.labels[dependent] if self.heads[dependent] == head else WRONG_LABEL

    def after(self, state, move, label):
        successor = clone(state)
        self.system.apply(successor, move, label)
        return successor

    def loss(self, state) -> int:
        k = key(state)
        if k in self.memo:
            return self.memo[k]
        if self.system.is_terminal(state):
            best = self.lost(state)
        else:
            best = min(self.loss(self.after(state, move, self.best_label(state, move)))
                       for move, ok in enumerate(self.system.legal(state)) if ok and self.allowed(state, move))
        self.memo[k] = best
        return best


def random_configuration(system, n, data, costs=None):
    """The initial configuration after a random number of random legal actions, with
    gold or wrong labels; with ``costs``, only those that training by exploration takes
    (a costly one only where ``costs.explorable``: swap takes SWAP exactly when it is due)."""
    state = system.initial(n)
    for _ in range(data.draw(st.integers(0, 3 * n), label="steps")):
        if system.is_terminal(state):
            break
        legal = [move for move, ok in enumerate(system.legal(state)) if ok]
        if costs is not None:
            per_move = costs(state)
            legal = [move for move in legal if per_move[move] == 0 or costs.explorable(state, move, per_move)]
        move = data.draw(st.sampled_from(legal))
        system.apply(state, move, data.draw(st.sampled_from([1, 2, WRONG_LABEL])) if system.labeled[move] else -1)
    return state
