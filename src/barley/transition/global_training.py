"""Global training of a transition parser: the averaged structured perceptron over the beam
(``barley train --beam K``; Collins 2002; Zhang & Clark 2008 §3; Huang, Fayong & Guo 2012).

Each training sentence is searched with the beam of :mod:`barley.transition.beam`, scored by the current
weights, while the *gold item* follows the static oracle's transitions (:meth:`TransitionSystem.oracle`,
as ``--oracle static`` does), scored by the same weights. An item's features are those of its
scored steps, each (configuration's feature ids, class taken); its score their weights' sum. Where
the model prefers a wrong item, the weights move by Φ(gold prefix) − Φ(predicted prefix), at the
step the update rule picks:

* ``early`` (Collins & Roark 2004; Zhang & Clark 2008): the first step at which no item of the beam
  is the gold prefix, against the beam's best item; the rest of the sentence is not searched;
* ``max-violation`` (Huang, Fayong & Guo 2012 §3): the whole sentence is searched, the gold item
  going on alone once it has fallen out of the beam, and the update is at the step where the beam's
  best item beats the gold prefix by the most (the first such step among equals);

and, either way, at the end when the beam's best final item is not the gold one. A step where the
best item scores below the gold prefix is no violation (a search error, not the model's) and gives no
update. The weights are averaged over the sentences (Collins 2002, the lazy average of
:class:`barley.learners.perceptron.AveragedWeights`).

The result is a :class:`PerceptronLearner` like any other (the model file is the perceptron's), so
a model trained at one width parses at any width (``barley parse --beam``), and greedily with the
compiled loop. The feature index starts as the static oracle's features and grows, after each epoch,
by those of the configurations in the updates (:func:`barley.transition.training.grow_index`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from barley.transition.beam import Item, Scored, score_items, successors
from barley.conllu import Sentence
from barley.transition.featurize import Featurizer
from barley.learners import weight_sums
from barley.learners.perceptron import AveragedWeights, PerceptronLearner
from barley.systems.base import Action, State, TransitionSystem
from barley.transition.training import Classes, averaged_learner, grow_index

UPDATES = ("early", "max-violation")
DEFAULT_UPDATE = "max-violation"
BATCH = 32
"""Sentences searched in lockstep (each of ``width`` items) while training: their rows are scored
together; few enough that the weights change between batches often."""
PROGRESS_SECONDS = 30.0
"""How often a long epoch says how far it is."""


class GlobalUpdates:
    """The perceptron's side of one batch: scoring rows with the current weights, and the updates."""

    def __init__(self, online: AveragedWeights, featurizer: Featurizer, sentences: Sequence[Sentence]):
        self.online, self.featurizer = online, featurizer
        self.table = featurizer.table(sentences)
        self.unseen: list[np.ndarray] = []  # keys of the features of updates that are not in the index yet
        self.updates = 0

    def scorer(self, owners: list[int], states: list[State]) -> tuple[np.ndarray, list]:
        """Class scores of each configuration under the current weights; its (ids, keys) as payload."""
        featurizer, table = self.featurizer, self.table
        keys, _ = featurizer.keys([featurizer.row(state) for state in states], table.offsets[owners], table)
        ids = featurizer.ids_of(keys, table)
        return weight_sums(self.online.weights, ids), list(zip(ids, keys))

    def update(self, gold: Item, predicted: Item) -> None:
        """The weights moved by Φ(gold) − Φ(predicted) (each item's scored steps)."""
        rows, classes, amounts = [], [], []
        assert self.featurizer.index is not None
        for item, amount in ((gold, 1.0), (predicted, -1.0)):
            history = item.history
            while history is not None:
                history, (ids, keys), cls = history
                rows.append(ids)
                classes.append(np.full(len(ids), cls))
                amounts.append(np.full(len(ids), amount))
                unseen = keys[(ids == self.featurizer.index.size) & (keys >= 0)]
                if len(unseen):
                    self.unseen.append(unseen)
        if rows:
            self.online.add(np.concatenate(rows), np.concatenate(classes), np.concatenate(amounts))
        self.updates += 1


class Violation:
    """The update a sentence gets: for max-violation, the pair (gold prefix, beam's best) of the
    largest violation so far."""

    __slots__ = ("amount", "gold", "predicted")

    def __init__(self):
        self.amount, self.gold, self.predicted = -np.inf, None, None

    def see(self, gold: Item, best: Item) -> None:
        if not best.gold and best.score - gold.score > self.amount:
            self.amount, self.gold, self.predicted = best.score - gold.score, gold, best


def gold_step(system: TransitionSystem, classes: Classes, gold: Item, scored: Scored | None,
              next_action: Callable[[State], Action], targets: np.ndarray) -> tuple[Item, Action | None]:
    """The gold item after one more of the static oracle's transitions (itself when terminal), and
    that action (None when terminal)."""
    if scored is None:
        return gold, None
    action = scored.forced or next_action(gold.state)
    system.apply(gold.state, *action)
    if scored.forced is not None:
        return Item(gold.state, gold.score, gold.history, True), action
    cls = classes.of(*action)
    targets[cls] = True
    return Item(gold.state, gold.score + float(scored.scores[cls]), (gold.history, scored.payload, cls), True), action  # type: ignore[index]  # set when not forced


def train_batch(system: TransitionSystem, classes: Classes, updates: GlobalUpdates, n_words: list[int],
                oracles: list[Callable[[State], Action]], width: int, rule: str, targets: np.ndarray) -> None:
    """Search the sentences of a batch (``n_words`` each, the static oracle's ``oracles``) with the
    beam, each updated by ``rule`` (module docstring)."""
    beams = [[Item(system.initial(n), gold=True)] for n in n_words]
    golds = [Item(system.initial(n), gold=True) for n in n_words]
    violations = [Violation() for _ in n_words]
    active = list(range(len(n_words)))
    while active:
        items = [item for k in active for item in (*beams[k], golds[k])]
        owners = [k for k in active for _ in range(len(beams[k]) + 1)]
        found = score_items(system, classes.table, items, owners, updates.scorer, width)
        start, still = 0, []
        for k in active:
            part, start = found[start:start + len(beams[k]) + 1], start + len(beams[k]) + 1
            if all(scored is None for scored in part):  # every item terminal, the gold one too
                final = violations[k] if rule == "max-violation" else Violation()
                final.see(golds[k], beams[k][0])
                if final.predicted is not None and final.amount >= 0:
                    updates.update(final.gold, final.predicted)
                continue
            golds[k], action = gold_step(system, classes, golds[k], part[-1], oracles[k], targets)
            beams[k] = successors(system, classes.table, beams[k], part[:-1], width, action)
            if rule == "early":
                if not any(item.gold for item in beams[k]):
                    updates.update(golds[k], beams[k][0])
                    continue
            else:
                violations[k].see(golds[k], beams[k][0])
            still.append(k)
        active = still
    updates.online.step += len(n_words)


def train_global(system: TransitionSystem, featurizer: Featurizer, classes: Classes, sentences: Sequence[Sentence],
                 trees: Sequence[tuple[int, list[int], list[int]]], *, width: int, update: str, epochs: int,
                 seed: int, log: Callable[[str], None]) -> PerceptronLearner:
    """An averaged perceptron trained globally with a beam of ``width`` on ``trees`` ((sentence
    number, heads, label ids), those the static oracle builds), ``update`` early or max-violation."""
    assert featurizer.index is not None
    online = AveragedWeights(featurizer.index.size, len(classes.table))
    rng = np.random.default_rng(seed)
    targets = np.zeros(len(classes.table), dtype=bool)
    started = time.perf_counter()
    for epoch in range(1, epochs + 1):
        epoch_started = said = time.perf_counter()
        order = rng.permutation(len(trees)).tolist()
        updated, unseen = 0, []
        for start in range(0, len(order), BATCH):
            batch = order[start:start + BATCH]
            updates = GlobalUpdates(online, featurizer, [sentences[trees[i][0]] for i in batch])
            train_batch(system, classes, updates, [len(trees[i][1]) - 1 for i in batch],
                        [system.oracle(trees[i][1], trees[i][2]) for i in batch], width, update, targets)
            updated += updates.updates
            unseen += updates.unseen
            now = time.perf_counter()
            if now - said > PROGRESS_SECONDS:
                done = start + len(batch)
                log(f"  global epoch {epoch}/{epochs}: {done} of {len(order)} sentences, {updated} updated; about "
                    f"{(now - epoch_started) / done * (len(order) - done):.0f} s left in this epoch")
                said = now
        added = grow_index(featurizer, online, unseen)
        per_epoch = (time.perf_counter() - started) / epoch
        log(f"  global epoch {epoch}/{epochs} (beam {width}, {update} update): {updated} of {len(order)} "
            f"sentences updated ({100.0 * updated / max(len(order), 1):.2f}%); {added} new features; "
            f"about {per_epoch * (epochs - epoch):.0f} s left")
    return averaged_learner(online, epochs, targets)
