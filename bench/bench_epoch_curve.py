"""LAS after every perceptron epoch, static oracle or training by exploration (a diagnostic).

Usage: python bench/bench_epoch_curve.py --train TRAIN --eval DEV [--test TEST] [--system arc-eager]
           [--oracle static|dynamic] [--epochs 20] [--explore-after K] [--explore-p P]
           [--features FILE|rich] [--max-sentences N]

Trains one transition parser with ``-l perceptron`` exactly as ``barley train`` does and,
after each epoch, parses ``--eval`` (and ``--test``) with the averaged weights of that
moment and prints a line ``CURVE … epoch=E/N LAS=… UAS=…`` (barley's LAS, every word).
The snapshot reads the learner's online state through thin wrappers around
:class:`AveragedWeights`, :meth:`FeatureIndex.fit` and :func:`barley.transition.training.grow_index`:
training itself is unchanged. One run shows where more epochs stop paying, for either
oracle, instead of one training per epoch count.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import barley.transition.parser as parser_module
import barley.transition.training as training
from barley.conllu import read
from barley.kinds import evaluate_parser, train
from barley.features.extract import FeatureIndex
from barley.learners.perceptron import AveragedWeights, PerceptronLearner

SEEN: dict = {}


def _wrap() -> None:
    """Keep the objects a snapshot needs as training creates them."""
    init, fit, pfit = AveragedWeights.__init__, FeatureIndex.fit.__func__, PerceptronLearner.fit
    train, grow = parser_module._train_transition, training.grow_index

    def weights_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        SEEN["online"] = self

    def index_fit(cls, *args, **kwargs):
        SEEN["index"] = index = fit(cls, *args, **kwargs)
        return index

    def perceptron_fit(self, X, y, n_classes, **kwargs):
        SEEN["classes"] = np.unique(y)  # the static learner's columns
        return pfit(self, X, y, n_classes, **kwargs)

    def train_transition(plan, *args, **kwargs):
        SEEN["plan"] = plan
        return train(plan, *args, **kwargs)

    def grow_index(featurizer, online, unseen):
        added = grow(featurizer, online, unseen)
        SEEN["index"], SEEN["classes"] = featurizer.index, None  # exploration: every class
        return added

    AveragedWeights.__init__ = weights_init
    FeatureIndex.fit = classmethod(index_fit)
    PerceptronLearner.fit = perceptron_fit
    parser_module._train_transition = train_transition
    training.grow_index = grow_index


def snapshot(epochs: int) -> parser_module.Parser:
    """A parser with the averaged weights of this moment (the online state is kept)."""
    plan, online = SEEN["plan"], SEEN["online"]
    weights = (online.weights - online.totals / online.step).astype(np.float32)
    weights[-1] = 0.0
    n_classes = len(plan.classes.table)
    classes = SEEN["classes"] if SEEN.get("classes") is not None else np.arange(n_classes)
    learner = PerceptronLearner.from_weights(epochs, n_classes, classes, weights)
    return parser_module.Parser(plan.system, plan.model, plan.vocabularies, plan.labels, plan.root_label,
                                plan.classes.table, SEEN["index"], learner, None, (), {})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", required=True)
    ap.add_argument("--eval", required=True)
    ap.add_argument("--test")
    ap.add_argument("--system", default="arc-eager")
    ap.add_argument("--oracle", choices=("static", "dynamic"), default="static")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--explore-after", type=int, help="default: barley train's")
    ap.add_argument("--explore-p", type=float, help="default: barley train's")
    ap.add_argument("--features")
    ap.add_argument("--max-sentences", type=int, default=0)
    args = ap.parse_args()
    _wrap()
    evaluation = list(read(args.eval))
    test = list(read(args.test)) if args.test else None
    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f} s] {message}", flush=True)
        if "epoch " not in message or "/" not in message:
            return
        epoch = message.split("epoch ")[1].split(":")[0]
        parser = snapshot(args.epochs)
        scores = evaluate_parser(parser, evaluation)
        line = f"CURVE {args.system} {args.oracle} epoch={epoch} LAS={scores['LAS']:.2f} UAS={scores['UAS']:.2f}"
        if test is not None:
            scores = evaluate_parser(parser, test)
            line += f" TEST_LAS={scores['LAS']:.2f} TEST_UAS={scores['UAS']:.2f}"
        print(line, flush=True)

    sentences = list(read(args.train))
    if args.max_sentences:
        sentences = sentences[: args.max_sentences]
    options = dict(system=args.system, learner="perceptron", epochs=args.epochs, oracle=args.oracle,
                   features=args.features)
    if args.oracle == "dynamic":
        options |= {name: value for name, value in (("explore_after", args.explore_after),
                                                     ("explore_p", args.explore_p)) if value is not None}
    train(sentences, seed=1, log=log, record_time=False, **options)


if __name__ == "__main__":
    main()
