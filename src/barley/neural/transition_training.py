"""Training the neural transition parser (PyTorch) through the one loop (:func:`barley.transition.loop.advance`).

Kiperwasser & Goldberg 2016, §5; Goldberg & Nivre 2012 for the dynamic oracle: a
minibatch of sentences is encoded once, with gradient; then the sentences advance in
lockstep through the loop, the policy (:class:`Learn`) reading the scores of the MLP on
the detached vectors (no gradient) to choose moves and recording, at every step where a
model is asked, the positions, the legal classes and the target classes — with the
dynamic oracle the zero-cost actions (the model's own action is followed when it costs
nothing, a costly one with probability ``p`` after ``explore_after`` epochs, else the
best-scoring zero-cost one), with the static oracle its action. After the loop, one pass
of the MLP over every recorded step, with gradient, gives the loss: the negative log of
the summed probability of the target classes among the legal ones. The parser it
returns parses with the numpy engine (:mod:`barley.neural.transition_parser`), on dev
during training as after loading.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
import torch

from barley.conllu import Sentence
from barley.neural.encoder import make_batch
from barley.neural.fitting import (deterministic, encoder_vocabularies, fit_epochs, log_sizes, network_weights,
                                   on_snapshots, use_pretrained)
from barley.neural.options import EncoderOptions, Training, TransitionOptions
from barley.neural.positions import PositionModel
from barley.neural.transition_model import TransitionScorer
from barley.neural.transition_parser import BatchScorer, NeuralTransitionParser
from barley.systems.base import Action, State, TransitionSystem, run_oracle
from barley.transition.loop import ParseStats, advance, legal_classes
from barley.transition.training import Classes, Oracle


class Learn(BatchScorer):
    """The training policy (module docstring): with ``oracles``' costs when ``dynamic``, else their
    static oracle; records per step the positions, legal and target classes (:meth:`recorded`)."""

    def __init__(self, parser: NeuralTransitionParser, model: TransitionScorer, parts: torch.Tensor, longest: int,
                 states: Sequence[State], oracles: Sequence[Oracle], sentences: Sequence[Sentence], dynamic: bool,
                 p: float, rng: np.random.Generator):
        def score(index: np.ndarray) -> np.ndarray:  # the detached network's: no gradient
            with torch.no_grad():
                return model.scores(parts, torch.from_numpy(index).to(parts.device)).cpu().numpy()

        super().__init__(parser, score, len(parts) - 1, longest, states)
        self.oracles, self.sentences, self.dynamic, self.p, self.rng = oracles, sentences, dynamic, p, rng
        self.indices: list[np.ndarray] = []
        self.legal: list[np.ndarray] = []
        self.targets: list[np.ndarray] = []
        self.steps = self.mistakes = self.explored = 0

    def choose(self, waiting: list[int], legal_rows: list[list[bool]]) -> list[Action]:
        classes = self.parser.classes
        index = self.index(waiting)
        allowed = legal_classes(legal_rows, classes.table[:, 0])
        target = np.zeros_like(allowed)
        chosen = []
        if self.dynamic:
            scores = np.where(allowed, self.scores(index), -np.inf)
            for i, k in enumerate(waiting):
                prediction = self.oracles[k].predict(classes, self.states[k], scores[i], int(scores[i].argmax()),
                                                     self.p, self.rng)
                target[i, prediction.zero] = True
                chosen.append(prediction.to_follow)
                self.mistakes += prediction.mistake
                self.explored += prediction.explored
        else:
            for i, k in enumerate(waiting):
                chosen.append(classes.of(*self.oracles[k].legal_next(self.states[k], legal_rows[i], self.sentences[k])))
                target[i, chosen[-1]] = True
        self.indices.append(index)
        self.legal.append(allowed)
        self.targets.append(target)
        self.steps += len(waiting)
        return [classes.actions[c] for c in chosen]

    def recorded(self, device: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return cast(tuple[torch.Tensor, torch.Tensor, torch.Tensor],
                    tuple(torch.from_numpy(np.concatenate(parts)).to(device)
                          for parts in (self.indices, self.legal, self.targets)))


def train_neural_transition(sentences: list[Sentence], trees: list[tuple[list[int], list[int]]],
                            labels: list[str], root_label: int, *, system: TransitionSystem,
                            positions: PositionModel, encoder: EncoderOptions, scorer: TransitionOptions,
                            training: Training, dynamic: bool, explore_after: int, explore_p: float,
                            transforms: Sequence = (), dev: list[Sentence] | None, pretrained: str | None, seed: int, device: str,
                            threads: int, log: Callable[[str], None]) -> NeuralTransitionParser:
    """Fit a neural transition parser on (already transformed) gold trees (heads and label ids); the
    ``transforms`` are undone on the dev parses, so that dev LAS is scored on the treebank's own trees."""
    from barley.kinds import evaluate_parser

    with deterministic(seed, device, threads):
        encoder, vocabularies, vectors = encoder_vocabularies(sentences, encoder, pretrained, log)
        classes = Classes(system, labels)
        model = TransitionScorer(encoder, scorer, vocabularies.sizes(), len(positions), len(classes.table))
        model.to(device)
        use_pretrained(model.encoder, vocabularies, vectors, pretrained, log)
        parser = NeuralTransitionParser(encoder, scorer, vocabularies, system, positions, labels, root_label,
                                        network_weights(model), transforms)
        log_sizes(vocabularies, labels, model, device, threads, log)
        oracle = (f"dynamic oracle, following costly predictions with p = {explore_p} after {explore_after} epochs"
                  if dynamic else "static oracle")
        log(f"scorer: {len(positions)} positions from {positions.source}, hidden layer {scorer.hidden}, "
            f"{len(classes.table)} classes; {oracle}")
        outside = sum(not run_oracle(system, heads, label_ids, root_label).reproduced for heads, label_ids in trees)
        log(f"outside {system.name}'s class: {outside} of {len(trees)} training trees (the oracles aim at the "
            "nearest tree the system can build)")
        oracles = [Oracle(system, heads, label_ids) for heads, label_ids in trees]
        encoded = [vocabularies.encode(sentence) for sentence in sentences]
        rng = np.random.default_rng(seed)
        epoch = {"number": 1, "steps": 0, "mistakes": 0, "explored": 0}

        def step(indices: list[int]) -> torch.Tensor:
            batch = make_batch([encoded[k] for k in indices], vocabularies, device, encoder.word_dropout, rng)
            vectors = model.encoder(batch)
            longest = vectors.shape[1]
            vectors = vectors.reshape(-1, vectors.shape[-1])
            with torch.no_grad():
                parts = model.parts(vectors.detach())
            states = [system.initial(len(trees[k][0]) - 1) for k in indices]
            policy = Learn(parser, model, parts, longest, states, [oracles[k] for k in indices],
                           [sentences[k] for k in indices], dynamic,
                           explore_p if epoch["number"] > explore_after else 0.0, rng)
            advance(system, states, policy)
            for name in ("steps", "mistakes", "explored"):
                epoch[name] += getattr(policy, name)
            return model.loss(model.parts(vectors), *policy.recorded(device))

        def after_epoch(number: int) -> str:
            text = (f", {epoch['mistakes']} of {epoch['steps']} predictions cost something "
                    f"({100.0 * epoch['mistakes'] / max(epoch['steps'], 1):.1f}%), {epoch['explored']} followed"
                    if dynamic else f", {epoch['steps']} steps")
            epoch.update(number=number + 1, steps=0, mistakes=0, explored=0)
            return text

        history = fit_epochs(parser, model, [len(s) for s in sentences], step, training, dev, rng, log,
                             on_snapshots(evaluate_parser, model), after_epoch)
    parser.use_weights(network_weights(model))  # the kept epoch's
    parser.stats = ParseStats()  # the dev parses of training are not the user's
    parser.manifest["training"] = {**history, "outside_class_sentences": outside}
    return parser
