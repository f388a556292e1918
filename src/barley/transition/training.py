"""Training a transition-based parser through the one loop (:func:`barley.transition.loop.advance`).

Two ways, two policies:

* **static oracle** (Nivre 2008 §6.1): :class:`FollowOracle` follows the static oracle
  of each gold tree and records every configuration where the classifier will be asked
  (not a forced transition) with the oracle's action: the training instances that
  :func:`collect_instances` hands to any learner (batch or online);
* **dynamic oracle with exploration** (Goldberg & Nivre 2012, Algorithm 3 with
  CHOOSE_NEXT_EXP): :class:`Explore` follows the model's own prediction and learns at
  every step from the zero-cost actions of the dynamic oracle (:meth:`Oracle.costs`):
  when the prediction costs something, the perceptron moves towards the best-scoring
  zero-cost action. In the first ``explore_after`` epochs a wrong prediction is never
  followed (the best zero-cost action is); after them it is followed with probability
  ``p``, so that training visits the configurations that its own mistakes lead to.
"""

from __future__ import annotations

import time
from functools import cached_property
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from barley.transition.loop import advance
from barley.conllu import Sentence
from barley.errors import BarleyError, InputError
from barley.features.extract import FeatureIndex
from barley.transition.featurize import Featurizer
from barley.learners import rows_to_csr
from barley.learners.perceptron import AveragedWeights, PerceptronLearner
from barley.systems.base import Action, Costs, OracleError, State, TransitionSystem

BATCH = 256
"""Sentences advanced in lockstep while training (their features are computed together)."""


@dataclass(frozen=True)
class Exploration:
    """Training by exploration (``--oracle dynamic``, Goldberg & Nivre 2012): after
    ``after`` epochs, a prediction that costs something is followed with probability ``p``."""

    after: int
    p: float

    def given(self, after: int | None, p: float | None) -> Exploration:
        """These settings with the user's ``--explore-after`` and ``--explore-p`` where given, checked."""
        chosen = Exploration(self.after if after is None else after, self.p if p is None else p)
        if chosen.after < 0 or not 0.0 <= chosen.p <= 1.0:
            raise BarleyError(f"exploration needs --explore-after ≥ 0 and 0 ≤ --explore-p ≤ 1, not "
                              f"{chosen.after} and {chosen.p}")
        return chosen


EVERY_MISTAKE = Exploration(after=0, p=1.0)
"""Follow every costly prediction from the first epoch."""

AFTER_TWO_EPOCHS = Exploration(after=2, p=0.9)
"""Follow a costly prediction with probability 0.9, after two epochs on zero-cost actions only."""


def perceptron_exploration(system: TransitionSystem) -> Exploration:
    """The perceptron's default exploration, the best measured (docs/oracles.md,
    docs/results/oracles2012): every mistake where the costs are exact (arc-eager and
    arc-hybrid, default and rich features: ahead of k = 2 with p = 0.9 or 0.1 on EWT);
    after two epochs with p = 0.9 where they are not (swap's static–dynamic oracle: every
    mistake followed cost 0.4–2.6 LAS against it on EWT, Gothic and Latin)."""
    return EVERY_MISTAKE if system.dynamic_oracle else AFTER_TWO_EPOCHS


@dataclass(frozen=True)
class Prediction:
    """The dynamic oracle's answer to a model's prediction in one configuration (Parsito's
    ``predict(state, predicted) → (best, to_follow)``): the zero-cost classes, the best-scoring
    of them (what to learn towards), the class to follow, and whether the prediction cost
    something (a mistake) and was followed all the same (explored)."""

    zero: list[int]
    best: int
    to_follow: int
    mistake: bool
    explored: bool


class Oracle:
    """The oracles of one gold tree, each built once, when first asked (they precompute
    what they need): the static oracle for :class:`FollowOracle`, the costs for :class:`Explore`.

    ``next(state)``: the static oracle's action. ``costs``: the dynamic oracle
    (``system.costs``, a :class:`barley.systems.base.Costs`): ``costs(state)`` gives per
    move the number of gold arcs its best action loses (None = illegal).
    """

    def __init__(self, system: TransitionSystem, heads: Sequence[int], labels: Sequence[int]):
        self.system, self.heads, self.labels = system, heads, labels

    @cached_property
    def next(self) -> Callable[[State], Action]:
        return self.system.oracle(self.heads, self.labels)

    @cached_property
    def costs(self) -> Costs:
        return self.system.costs(self.heads, self.labels)

    def legal_next(self, state: State, legal: Sequence[bool], sentence: Sentence) -> Action:
        """The static oracle's action in ``state``, which ``legal`` (per move) must allow: an
        illegal one is a bug, reported with the sentence's file and line."""
        move, label = self.next(state)
        if not legal[move]:
            raise OracleError(f"{self.system.name} oracle chose illegal {self.system.moves[move]} in "
                              f"{sentence.source}:{sentence.line}")
        return move, label

    def predict(self, classes: Classes, state: State, scores: np.ndarray, predicted: int, p: float,
                rng: np.random.Generator) -> Prediction:
        """The exploration rule of every learner (Goldberg & Nivre 2012, Algorithm 3 with
        CHOOSE_NEXT_EXP): a zero-cost ``predicted`` class is followed; a costly one with
        probability ``p`` where the costs allow exploring its move, else the best-scoring
        (``scores`` per class) zero-cost class."""
        costs = self.costs
        per_move = costs(state)
        zero = zero_cost_classes(classes, costs, state, per_move)
        best = zero[int(scores[zero].argmax())]
        if predicted in zero:
            return Prediction(zero, best, predicted, mistake=False, explored=False)
        explored = bool(rng.random() < p and costs.explorable(state, classes.actions[predicted][0], per_move))
        return Prediction(zero, best, predicted if explored else best, mistake=True, explored=explored)


@dataclass
class Classes:
    """The classifier's classes: every (move, label) the system can take; labels from training."""

    system: TransitionSystem
    labels: list[str]
    table: np.ndarray = field(init=False)
    """(classes × 2): move and label (-1 for unlabeled moves) of each class."""
    id: dict[tuple[int, int], int] = field(init=False)

    actions: list[Action] = field(init=False)
    of_move: list[list[int]] = field(init=False)
    """The classes of each move."""

    def __post_init__(self) -> None:
        labeled = self.system.labeled
        self.actions = ([(m, -1) for m, lab in enumerate(labeled) if not lab]
                        + [(m, label) for m, lab in enumerate(labeled) if lab for label in range(len(self.labels))])
        self.table = np.array(self.actions, dtype=np.int64)
        self.id = {pair: i for i, pair in enumerate(self.actions)}
        self.of_move = [[i for i, (m, _) in enumerate(self.actions) if m == move] for move in range(len(labeled))]
        self._legal: dict[tuple[bool, ...], np.ndarray] = {}

    def legal(self, legal: list[bool]) -> np.ndarray:
        """The classes whose move is legal, for one configuration's legal moves."""
        key = tuple(legal)
        if key not in self._legal:
            self._legal[key] = np.array([i for move, ok in enumerate(legal) if ok for i in self.of_move[move]])
        return self._legal[key]

    def of(self, move: int, label: int) -> int:
        return self.id[(move, label if self.system.labeled[move] else -1)]


def zero_cost_classes(classes: Classes, costs: Costs, state: State, per_move: list[int | None]) -> list[int]:
    """The classes that are zero-cost actions in ``state`` (``per_move``: ``costs(state)``)."""
    zero: list[int] = []
    for move, label in costs.zero_cost(state, per_move):
        if classes.system.labeled[move] and label == -1:
            zero += classes.of_move[move]  # every label costs the same
        else:
            zero.append(classes.of(move, label))
    if not zero:
        raise OracleError(f"{classes.system.name} dynamic oracle found no zero-cost action "
                          f"(after {state.transitions} transitions): a bug in barley")
    return zero


class FollowOracle:
    """The static-oracle policy: the oracle's action; each decision is recorded as an
    instance (the configuration's row, the action's class), per sentence."""

    def __init__(self, system: TransitionSystem, classes: Classes, row: Callable, states: Sequence[State],
                 oracles: Sequence[Oracle], sentences: Sequence[Sentence]):
        self.system, self.classes, self.row = system, classes, row
        self.states, self.oracles, self.sentences = states, oracles, sentences
        self.rows: list[list[tuple[int, ...]]] = [[] for _ in states]
        self.instance_classes: list[list[int]] = [[] for _ in states]

    def choose(self, waiting: list[int], legal_rows: list[list[bool]]) -> list[Action]:
        actions = []
        for k, legal in zip(waiting, legal_rows):
            state = self.states[k]
            move, label = self.oracles[k].legal_next(state, legal, self.sentences[k])
            self.rows[k].append(self.row(state))
            self.instance_classes[k].append(self.classes.of(move, label))
            actions.append((move, label))
        return actions


@dataclass
class Instances:
    """What the static oracle produced: feature keys (by chunks), classes, split values,
    and the tree each kept sentence was trained on (the gold tree, or the nearest one)."""

    key_chunks: list[np.ndarray] = field(default_factory=list)
    split_chunks: list[np.ndarray] = field(default_factory=list)
    classes: list[int] = field(default_factory=list)
    trees: list[tuple[int, list[int], list[int]]] = field(default_factory=list)
    """(sentence number, heads, label ids) of each sentence kept."""
    outside: int = 0


def collect_instances(system: TransitionSystem, featurizer: Featurizer, classes: Classes, root_label: int,
                      sentences: Sequence[Sentence], trees: Sequence[tuple[list[int], list[int]]],
                      outside_class: str) -> Instances:
    """Run the static oracle over every training tree (``trees``: heads and label ids);
    the instances of trees outside the system's class as ``outside_class`` says."""
    found = Instances()
    for start in range(0, len(sentences), BATCH):
        batch = range(start, min(start + BATCH, len(sentences)))
        states = [system.initial(len(trees[i][0]) - 1) for i in batch]
        oracles = [Oracle(system, *trees[i]) for i in batch]
        policy = FollowOracle(system, classes, featurizer.row, states, oracles, [sentences[i] for i in batch])
        advance(system, states, policy)
        rows, numbers = [], []
        for k, (number, state) in enumerate(zip(batch, states)):
            system.finalize(state, root_label)
            heads, labels = trees[number]
            if state.heads[1:] != heads[1:] or state.labels[1:] != labels[1:]:
                found.outside += 1
                if outside_class == "error":
                    raise InputError(f"this tree is outside the class {system.name} can build",
                                     path=sentences[number].source, line=sentences[number].line,
                                     fix="use --outside-class nearest or skip, a transform, or another system")
                if outside_class == "skip":
                    continue
            found.trees.append((number, list(state.heads), list(state.labels)))
            rows += policy.rows[k]
            numbers += [k] * len(policy.rows[k])
            found.classes += policy.instance_classes[k]
        if rows:
            table = featurizer.table([sentences[i] for i in batch])
            keys, split = featurizer.keys(rows, table.offsets[np.array(numbers)], table)
            found.key_chunks.append(keys)
            if split is not None:
                found.split_chunks.append(split)
    return found


class Explore:
    """The exploration policy (Goldberg & Nivre 2012, Algorithm 3): learn from the
    dynamic oracle at every step, follow the model's own action with probability ``p``
    when it costs something, else the best-scoring zero-cost action."""

    def __init__(self, online: AveragedWeights, featurizer: Featurizer, classes: Classes,
                 sentences: Sequence[Sentence], states: Sequence[State], oracles: Sequence[Oracle],
                 p: float, rng: np.random.Generator):
        self.online, self.featurizer, self.classes, self.p, self.rng = online, featurizer, classes, p, rng
        self.states, self.oracles = states, oracles
        self.table = featurizer.table(sentences)
        self.mistakes = self.explored = self.steps = 0
        self.unseen: list[np.ndarray] = []  # keys of the features not in the index yet
        self.targets = np.zeros(len(classes.table), dtype=bool)  # classes ever learned towards

    def choose(self, waiting: list[int], legal_rows: list[list[bool]]) -> list[Action]:
        keys, _ = self.featurizer.keys([self.featurizer.row(self.states[k]) for k in waiting],
                                       self.table.offsets[waiting], self.table)
        ids = self.featurizer.ids_of(keys, self.table)
        assert self.featurizer.index is not None
        self.unseen.append(np.unique(keys[(ids == self.featurizer.index.size) & (keys >= 0)]))
        features = rows_to_csr(ids, self.featurizer.index.size)  # repeats and "no feature" dropped
        indptr, indices, online, actions = features.indptr, features.indices, self.online, []
        for i, k in enumerate(waiting):
            active = indices[indptr[i]:indptr[i + 1]]
            scores = online.scores(active)
            legal = self.classes.legal(legal_rows[i])
            predicted = int(legal[scores[legal].argmax()])
            prediction = self.oracles[k].predict(self.classes, self.states[k], scores, predicted, self.p, self.rng)
            self.targets[prediction.best] = True
            if prediction.mistake:
                online.update(active, prediction.best, predicted)
                self.mistakes += 1
                self.explored += prediction.explored
            online.step += 1
            actions.append(self.classes.actions[prediction.to_follow])
        self.steps += len(waiting)
        return actions


def explore(system: TransitionSystem, featurizer: Featurizer, classes: Classes,
            sentences: Sequence[Sentence], trees: Sequence[tuple[int, list[int], list[int]]], *,
            epochs: int, explore_after: int, p: float, seed: int, log: Callable[[str], None]) -> PerceptronLearner:
    """An averaged perceptron trained by exploration on ``trees`` ((sentence number, heads,
    label ids)), with the features of ``featurizer``'s index, which grows after each epoch
    by the features of the configurations visited (:func:`grow_index`)."""
    assert featurizer.index is not None
    online = AveragedWeights(featurizer.index.size, len(classes.table))
    oracles = [Oracle(system, heads, labels) for _, heads, labels in trees]
    rng = np.random.default_rng(seed)
    targets = np.zeros(len(classes.table), dtype=bool)
    started = time.perf_counter()
    for epoch in range(1, epochs + 1):
        steps = mistakes = explored = 0
        unseen: list[np.ndarray] = []
        order = rng.permutation(len(trees)).tolist()
        for start in range(0, len(order), BATCH):
            batch = order[start:start + BATCH]
            states = [system.initial(len(trees[i][1]) - 1) for i in batch]
            policy = Explore(online, featurizer, classes, [sentences[trees[i][0]] for i in batch], states,
                             [oracles[i] for i in batch], p if epoch > explore_after else 0.0, rng)
            advance(system, states, policy)
            steps, mistakes, explored = steps + policy.steps, mistakes + policy.mistakes, explored + policy.explored
            targets |= policy.targets
            unseen += policy.unseen
        added = grow_index(featurizer, online, unseen)
        per_epoch = (time.perf_counter() - started) / epoch
        log(f"  exploration epoch {epoch}/{epochs}: {mistakes} of {steps} predictions cost something "
            f"({100.0 * mistakes / max(steps, 1):.2f}%), {explored} of them followed; "
            f"{added} new features; about {per_epoch * (epochs - epoch):.0f} s left")
    return averaged_learner(online, epochs, targets)


def averaged_learner(online: AveragedWeights, epochs: int, targets: np.ndarray) -> PerceptronLearner:
    """The perceptron of ``online``'s averaged weights over the classes ever learned towards
    (``targets``, per class); the others score as unseen. The online state is spent."""
    seen = np.flatnonzero(targets)
    weights = online.averaged()
    return PerceptronLearner.from_weights(epochs, len(targets), seen, np.ascontiguousarray(weights[:, seen]))


def grow_index(featurizer: Featurizer, online: AveragedWeights, unseen: list[np.ndarray]) -> int:
    """Add the feature keys ``unseen`` to ``featurizer``'s index and rows for them to ``online``;
    how many were added.

    The index starts with the features of the static oracle's configurations; those that
    only mistakes lead to would otherwise be described without the features they do not
    share with a gold configuration, and the perceptron could not learn what to do there
    (Goldberg & Nivre 2012 learn with every feature of every configuration visited).
    """
    index = featurizer.index
    assert index is not None
    added = np.setdiff1d(np.unique(np.concatenate(unseen)) if unseen else np.zeros(0, np.int64), index.keys)
    if len(added):
        grown = FeatureIndex(np.union1d(index.keys, added))
        online.grow(np.searchsorted(grown.keys, index.keys), grown.size)
        featurizer.use_index(grown)
    return len(added)
