"""Beam search over the configurations of any transition system (Zhang & Clark 2008 §3; Zhang &
Nivre 2011), at parse time (``barley parse --beam K``) and for global training
(:mod:`barley.transition.global_training`).

Each sentence keeps a *beam* of up to ``width`` items, best first; an item is a configuration and
the score of the transitions that led to it. At each step, in lockstep over the sentences of a
batch (as :func:`barley.transition.loop.advance` does for one configuration per sentence):

* a terminal item stays as it is, with its score;
* an item whose only legal move takes no label takes it, forced, at no score (MaltParser's rule,
  :mod:`barley.transition.loop`: the classifier is never asked there, so a forced move adds nothing);
* every other item is scored by the classifier, in one batch with all the others, and each of its
  legal actions (those that keep the given arcs reachable, :func:`barley.transition.loop.guided_classes`,
  item by item) makes a candidate;

and the ``width`` best candidates of each sentence make its next beam. The score of an item is the
sum of the classifier's *raw* class scores along its scored moves (the linear learners' weight
sums, the perceptron's as in Zhang & Clark 2008; the SVM's decision values), never probabilities.
Ties go to the earlier candidate: items in beam order, each item's classes by score and then by
class number, so that width 1 takes exactly the greedy parser's action (the first best class of
``argmax``) and is today's greedy output byte for byte (``tests/transition/test_beam.py``).

A configuration is copied (:meth:`barley.systems.base.State.copy`) only when a second candidate
of the same item survives: the first takes the item's configuration in place.

This is the readable reference and test oracle; ``barley parse --beam`` runs its compiled twin
(:meth:`barley.transition.fast.CompiledParser.parse_batch_beam`) where the compiled loop knows the
system and the learner and no arcs are given (``tests/transition/test_fast_beam.py``: the same trees and scores).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from barley.transition.loop import ParseStats, guided_classes, legal_classes
from barley.learners import UNSEEN
from barley.systems.base import Action, State, TransitionSystem

History = tuple | None
"""The scored steps of an item, newest first, as a linked list ``(earlier, payload, class)``
(shared between items with a common past; the payload is what the scorer returned for the row,
e.g. its feature ids for a training update)."""


@dataclass(slots=True)
class Item:
    """One configuration of a beam: ``score`` is the sum of the class scores of its scored moves;
    ``gold`` (training) says that its transitions are the static oracle's so far."""

    state: State
    score: float = 0.0
    history: History = None
    gold: bool = False


@dataclass(slots=True)
class Scored:
    """What one step found for an item that is not terminal: the action when forced, else its
    candidate classes best first with their totals, and the payload of its row."""

    forced: Action | None
    classes: np.ndarray | None = None
    totals: np.ndarray | None = None
    scores: np.ndarray | None = None  # all its classes' scores (illegal ones -inf)
    payload: object = None


Scorer = Callable[[list[int], list[State]], tuple[np.ndarray, list]]
"""``scorer(sentence numbers, configurations)`` → (class scores, rows × classes; a payload per row)."""


def score_items(system: TransitionSystem, classes: np.ndarray, items: list[Item], owners: list[int],
                scorer: Scorer, width: int, guides: Sequence | None = None, stats: ParseStats | None = None
                ) -> list[Scored | None]:
    """One step's :class:`Scored` of each of ``items`` (of the sentences ``owners``), None for a
    terminal one: the scored items' rows all go to ``scorer`` at once; each keeps its ``width``
    best legal classes (no more can survive)."""
    legal_moves, is_terminal, labeled = system.legal, system.is_terminal, system.labeled
    found: list[Scored | None] = [None] * len(items)
    waiting, legal_rows = [], []
    for i, item in enumerate(items):
        if is_terminal(item.state):
            continue
        legal = legal_moves(item.state)
        if legal.count(True) == 1 and not labeled[legal.index(True)]:
            found[i] = Scored((legal.index(True), -1))
            if stats is not None:
                stats.forced += 1
            continue
        waiting.append(i)
        legal_rows.append(legal)
    if not waiting:
        return found
    states = [items[i].state for i in waiting]
    scores, payloads = scorer([owners[i] for i in waiting], states)
    allowed = legal_classes(legal_rows, classes[:, 0])
    if stats is not None:
        stats.scored += len(waiting)
        stats.illegal_top += int((~allowed[np.arange(len(waiting)), scores.argmax(axis=1)]).sum())
    if guides:
        allowed = guided_classes(allowed, list(range(len(waiting))), legal_rows, states,
                                 [guides[owners[i]] for i in waiting], classes)
    masked = np.where(allowed, scores, -np.inf)
    order = np.argsort(-masked, axis=1, kind="stable")[:, :width]
    top = np.take_along_axis(masked, order, axis=1)
    if stats is not None:
        stats.unseen_choice += int((top[:, 0] <= UNSEEN / 2).sum())
    totals = np.array([items[i].score for i in waiting])[:, None] + top.astype(np.float64)
    for row, i in enumerate(waiting):  # an illegal class's total is -inf: never a candidate
        found[i] = Scored(None, order[row], totals[row], masked[row], payloads[row])
    return found


def successors(system: TransitionSystem, classes: np.ndarray, beam: list[Item], found: list[Scored | None],
               width: int, gold_action: Action | None = None) -> list[Item]:
    """The next beam of a sentence: the ``width`` best candidates of its ``beam`` (``found``: each
    item's :class:`Scored`), ties to the earlier candidate (module docstring). ``gold_action``
    (training): the static oracle's action from the gold item, whose child by it stays gold."""
    totals, picked = [], []  # per item, its candidates' totals and classes (-1: none)
    for item, scored in zip(beam, found):
        if scored is None or scored.forced is not None:
            totals.append(np.array([item.score]))
            picked.append(NO_CLASS)
        else:
            totals.append(scored.totals)  # type: ignore[arg-type]  # set when not forced
            picked.append(scored.classes)  # type: ignore[arg-type]
    all_totals = np.concatenate(totals)
    chosen = np.argsort(-all_totals, kind="stable")[:width]
    chosen = chosen[np.isfinite(all_totals[chosen])]
    owner = np.repeat(np.arange(len(beam)), [len(t) for t in totals])[chosen].tolist()
    picked = np.concatenate(picked)[chosen].tolist()
    uses = [0] * len(beam)
    for i in owner:
        uses[i] += 1
    labeled, after = system.labeled, []
    for i, cls, total in zip(owner, picked, all_totals[chosen].tolist()):
        item, scored = beam[i], found[i]
        if scored is None:  # terminal: stays as it is
            after.append(item)
            continue
        action = scored.forced if cls < 0 else tuple(classes[cls].tolist())
        uses[i] -= 1
        state = item.state if uses[i] == 0 else item.state.copy()  # the last child takes it in place
        system.apply(state, *action)
        history = item.history if cls < 0 else (item.history, scored.payload, cls)
        gold = item.gold and gold_action is not None and action[0] == gold_action[0] and (
            not labeled[action[0]] or action[1] == gold_action[1])
        after.append(Item(state, total, history, gold))
    return after


NO_CLASS = np.array([-1])


def beam_parse(system: TransitionSystem, classes: np.ndarray, n_words: Sequence[int], scorer: Scorer, width: int,
               guides: Sequence | None = None, stats: ParseStats | None = None) -> list[list[Item]]:
    """The final beams (terminal items, best first) of sentences of ``n_words`` words each,
    searched in lockstep with ``scorer``'s class scores; ``guides`` per sentence (or None)."""
    beams = [[Item(system.initial(n))] for n in n_words]
    active = list(range(len(beams)))
    while active:
        found = score_items(system, classes, [item for k in active for item in beams[k]],
                            [k for k in active for _ in beams[k]], scorer, width, guides, stats)
        start, still = 0, []
        for k in active:
            part, start = found[start:start + len(beams[k])], start + len(beams[k])
            if any(scored is not None for scored in part):
                beams[k] = successors(system, classes, beams[k], part, width)
                still.append(k)
        active = still
    return beams


def model_scorer(parser, sentences: Sequence) -> Scorer:
    """The scorer of a trained ``parser``: its classifier's scores of each configuration."""
    table = parser.featurizer.table(sentences)
    row = parser.featurizer.row

    def scorer(owners: list[int], states: list[State]) -> tuple[np.ndarray, list]:
        ids, split_values = parser.featurizer.ids([row(state) for state in states], table.offsets[owners], table)
        return parser.scores(ids, split_values), [None] * len(states)

    return scorer


def distinct_trees(system: TransitionSystem, beam: list[Item], root_label: int, most: int
                   ) -> list[tuple[float, list[int], list[int]]]:
    """Up to ``most`` trees of a final beam, best first, as (score, heads, label ids): each item
    finalized (:meth:`TransitionSystem.finalize`), and an item whose tree (heads and labels) an
    earlier one has already built left out (spurious ambiguity: two transition sequences, one tree)."""
    def finalized(item: Item) -> tuple[float, list[int], list[int]]:
        system.finalize(item.state, root_label)
        return item.score, list(item.state.heads), list(item.state.labels)

    return distinct(map(finalized, beam), most)


def distinct(trees: Iterable[tuple[float, list[int], list[int]]], most: int) -> list[tuple[float, list[int], list[int]]]:
    """The first ``most`` of ``trees`` (score, heads, label ids), best first, each without the later
    ones that build the same tree (the same heads and labels)."""
    kept, seen = [], set()
    for score, heads, labels in trees:
        key = (tuple(heads), tuple(labels))
        if key not in seen:
            seen.add(key)
            kept.append((score, heads, labels))
            if len(kept) == most:
                break
    return kept


def parse_batch_beam(parser, sentences: Sequence, stats: ParseStats, width: int, guides: Sequence | None = None,
                     most: int = 1) -> list[list[tuple[float, list[int], list[int]]]]:
    """Parse ``sentences`` with a beam of ``width``: per sentence, up to ``most`` distinct trees
    (:func:`distinct_trees`), best first. The reference path (:func:`barley.transition.loop.parse_batch`) at
    width 1 gives the same trees."""
    system = parser.system
    stats.sentences += len(sentences)
    stats.words += sum(len(s) for s in sentences)
    beams = beam_parse(system, parser.classes, [len(s) for s in sentences], model_scorer(parser, sentences),
                       width, guides, stats)
    stats.transitions += sum(beam[0].state.transitions for beam in beams)
    return [distinct_trees(system, beam, parser.root_label, most) for beam in beams]
