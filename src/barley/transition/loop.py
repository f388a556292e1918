"""The one loop that advances configurations: parsing, collecting instances, exploring.

Many sentences advance in lockstep, each with its own configuration: at each step
the configurations that are not terminal advance by one transition together. Which
transition is the *policy*'s choice (:func:`advance`):

* :class:`FollowModel`: the best-scoring legal action of the trained model (parsing);
* :class:`barley.transition.training.FollowOracle`: the static oracle's action, recording the
  configuration and the action as a training instance (Nivre 2008 §6.1);
* :class:`barley.transition.training.Explore`: the model's own action with probability p, else a
  zero-cost action of the dynamic oracle, learning at every step (Goldberg & Nivre 2012).

A transition is forced, and no policy asked, when only one move is legal and it takes
no label — MaltParser's rule (Nivre 2008 §6.1, footnote 8), so that training sees
exactly the configurations where parsing asks the classifier.

Per step, the Python work is reading each configuration (the feature model's ``row``),
its legal moves, and applying the chosen transition; everything between (token
attribute lookup, feature keys, feature ids, scoring every class) is one numpy pass
over the batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from barley.confidence import MoveSteps, move_scores, word_rows
from barley.conllu import Sentence
from barley.features.extract import list_element
from barley.learners import UNSEEN
from barley.systems.base import Action, State, TransitionSystem


@dataclass
class ParseStats:
    """Counts over all parsed sentences (reported by ``barley parse``)."""

    sentences: int = 0
    words: int = 0
    transitions: int = 0
    forced: int = 0
    scored: int = 0
    illegal_top: int = 0
    unseen_choice: int = 0

    def summary(self) -> str:
        share = 100.0 * self.illegal_top / self.scored if self.scored else 0.0
        text = (f"{self.sentences} sentences, {self.words} words, {self.transitions} transitions "
                f"({self.forced} forced); the classifier's top choice was illegal {self.illegal_top} times "
                f"({share:.2f}% of scored steps)")
        if self.unseen_choice:
            text += f"; {self.unseen_choice} steps had no legal class seen in training"
        return text


def advance(system: TransitionSystem, states: Sequence[State], policy) -> int:
    """Advance every configuration of ``states`` to a terminal one, in lockstep.

    ``policy.choose(waiting, legal_rows)`` gets the indices in ``states`` of the
    configurations to decide and, for each, its legal moves; it returns one action
    ``(move, label)`` for each. Returns how many transitions were forced.
    """
    legal_moves, apply, is_terminal, labeled = system.legal, system.apply, system.is_terminal, system.labeled
    forced = 0
    active = [k for k, state in enumerate(states) if not is_terminal(state)]
    while active:
        waiting, legal_rows = [], []
        for k in active:
            state = states[k]
            legal = legal_moves(state)
            if legal.count(True) == 1:
                move = legal.index(True)
                if not labeled[move]:
                    apply(state, move, -1)
                    forced += 1
                    continue
            waiting.append(k)
            legal_rows.append(legal)
        if waiting:
            for k, (move, label) in zip(waiting, policy.choose(waiting, legal_rows)):
                apply(states[k], move, label)
        active = [k for k in active if not is_terminal(states[k])]
    return forced


def legal_classes(legal_rows: list[list[bool]], class_moves: np.ndarray) -> np.ndarray:
    """Per configuration and class (move, label): is the class's move legal? (batch × classes)"""
    move_count = len(legal_rows[0])
    return np.fromiter(chain.from_iterable(legal_rows), dtype=bool,
                       count=len(legal_rows) * move_count).reshape(-1, move_count)[:, class_moves]


class ArcSteps:
    """A batch's scored steps, kept for confidence (:class:`barley.confidence.MoveSteps`, whose
    rows are each sentence's root then its words, sentence after sentence)."""

    def __init__(self, system: TransitionSystem, states: Sequence[State], class_moves: np.ndarray):
        self.system, self.class_moves = system, class_moves
        self.offsets = np.cumsum([0] + [state.n + 1 for state in states])
        self.steps: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.label_scores = np.full((self.offsets[-1], len(class_moves)), -np.inf, dtype=np.float32)
        self.label_class = np.full(self.offsets[-1], -1, dtype=np.int64)

    def add(self, states: Sequence[State], waiting: list[int], legal_rows: list[list[bool]], scores: np.ndarray,
            best: np.ndarray) -> None:
        """The steps of the ``waiting`` configurations (before their moves are applied): class
        ``scores`` with the illegal ones at -inf, and the classes ``best`` taken."""
        attaches = self.system.attaches
        candidates = np.full((len(waiting), len(attaches)), -1, dtype=np.int64)
        for i, (k, legal) in enumerate(zip(waiting, legal_rows)):
            for move, address in enumerate(attaches):
                if address is not None and legal[move]:
                    candidates[i, move] = self.offsets[k] + list_element(states[k], *address)
        chosen = self.class_moves[best]
        self.steps.append((move_scores(scores, self.class_moves, len(attaches)), chosen, candidates))
        made = candidates[np.arange(len(waiting)), chosen]
        arcs = made >= 0
        self.label_scores[made[arcs]] = scores[arcs]
        self.label_class[made[arcs]] = best[arcs]

    def evidence(self) -> MoveSteps:
        n_moves = len(self.system.moves)
        empty = (np.zeros((0, n_moves)), np.zeros(0, dtype=np.int64), np.zeros((0, n_moves), dtype=np.int64))
        moves, chosen, candidates = ([np.concatenate(part) for part in zip(*self.steps)] if self.steps else empty)
        words = word_rows(self.offsets)
        return MoveSteps(moves, chosen, candidates, self.label_scores, self.label_class, self.class_moves, words)


def guided_classes(allowed: np.ndarray, waiting: list[int], legal_rows: list[list[bool]], states: Sequence[State],
                   guides: Sequence | None, classes: np.ndarray) -> np.ndarray:
    """``allowed`` (waiting × classes) narrowed, for the sentences with given arcs (``guides[k]``, a
    :class:`barley.constraints.TransitionGuide`, or None), to the actions that keep them reachable."""
    if guides:
        for row, k in enumerate(waiting):
            if guides[k] is not None:
                allowed[row] &= guides[k].allowed(states[k], legal_rows[row], classes[:, 0], classes[:, 1])
    return allowed


class FollowModel:
    """The parsing policy: the best-scoring legal action of ``parser``'s classifier (among those
    that keep the given arcs reachable, with ``guides``); with ``arcs``, the steps that made arcs
    are kept there (confidence)."""

    def __init__(self, parser, sentences: Sequence[Sentence], states: Sequence[State], stats: ParseStats,
                 guides: Sequence | None = None, arcs: ArcSteps | None = None):
        self.parser, self.states, self.stats, self.guides, self.arcs = parser, states, stats, guides, arcs
        self.table = parser.featurizer.table(sentences)
        self.class_moves = parser.classes[:, 0]

    def choose(self, waiting: list[int], legal_rows: list[list[bool]]) -> Iterable[Action]:
        parser, stats, row = self.parser, self.stats, self.parser.featurizer.row
        ids, split_values = parser.featurizer.ids([row(self.states[k]) for k in waiting],
                                                  self.table.offsets[waiting], self.table)
        scores = parser.scores(ids, split_values)
        allowed = legal_classes(legal_rows, self.class_moves)
        top = scores.argmax(axis=1)
        stats.illegal_top += int((~allowed[np.arange(len(top)), top]).sum())
        allowed = guided_classes(allowed, waiting, legal_rows, self.states, self.guides, parser.classes)
        scores = np.where(allowed, scores, -np.inf)
        best = scores.argmax(axis=1)
        stats.unseen_choice += int((scores[np.arange(len(best)), best] <= UNSEEN / 2).sum())
        stats.scored += len(waiting)
        if self.arcs is not None:
            self.arcs.add(self.states, waiting, legal_rows, scores, best)
        return parser.classes[best].tolist()


def parse_batch(parser, sentences: Sequence[Sentence], stats: ParseStats,
                guides: Sequence | None = None, evidence: list | None = None) -> list[tuple[list[int], list[int]]]:
    """Parse ``sentences`` greedily in lockstep; heads and label ids per sentence (node 0 included).
    ``guides``: per sentence, a :class:`barley.constraints.TransitionGuide` or None; ``evidence`` (a
    list) receives the batch's confidence evidence (:class:`barley.confidence.MoveSteps`)."""
    system = parser.system
    states = [system.initial(len(s)) for s in sentences]
    stats.sentences += len(sentences)
    stats.words += sum(len(s) for s in sentences)
    arcs = None if evidence is None else ArcSteps(system, states, parser.classes[:, 0])
    stats.forced += advance(system, states, FollowModel(parser, sentences, states, stats, guides, arcs))
    if arcs is not None:
        assert evidence is not None
        evidence.append(arcs.evidence())
    results = []
    for state in states:
        stats.transitions += state.transitions
        system.finalize(state, parser.root_label)
        results.append((list(state.heads), list(state.labels)))
    return results
