"""Training the biaffine parser (PyTorch): minibatches, Adam, early stopping on dev LAS
(:func:`barley.neural.fitting.fit_epochs`), the loss of :class:`barley.neural.biaffine_model.BiaffineModel`.
The parser it returns parses with the numpy engine (:mod:`barley.neural.biaffine_parser`), on dev
during training as after loading.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from barley.conllu import Sentence
from barley.decoders.options import DecoderOptions
from barley.neural.biaffine_model import BiaffineModel
from barley.neural.biaffine_parser import TrainedBiaffineParser
from barley.neural.encoder import make_batch
from barley.neural.fitting import (deterministic, encoder_vocabularies, fit_epochs, log_sizes, network_weights,
                                   on_snapshots, use_pretrained)
from barley.neural.options import BiaffineOptions, EncoderOptions, Training
from barley.neural.trees import BiaffineParseStats
from barley.tree import label_ids


def train_biaffine(sentences: list[Sentence], trees: list[tuple[list[int], list[str]]], labels: list[str], *,
                   encoder: EncoderOptions, biaffine: BiaffineOptions, training: Training, decoding: DecoderOptions,
                   transforms: Sequence = (), dev: list[Sentence] | None, pretrained: str | None, seed: int,
                   device: str, threads: int, log: Callable[[str], None]) -> TrainedBiaffineParser:
    """Fit a biaffine parser on (already transformed) gold trees; with ``dev``, the epoch of the best
    dev LAS is kept and training stops after ``training.patience`` epochs without a better one. The
    ``transforms`` are undone on the dev parses, so that dev LAS is scored on the treebank's own trees."""
    from barley.kinds import evaluate_parser

    with deterministic(seed, device, threads):
        encoder, vocabularies, vectors = encoder_vocabularies(sentences, encoder, pretrained, log)
        model = BiaffineModel(encoder, biaffine, vocabularies.sizes(), len(labels)).to(device)
        use_pretrained(model.encoder, vocabularies, vectors, pretrained, log)
        parser = TrainedBiaffineParser(encoder, biaffine, vocabularies, labels, network_weights(model), decoding,
                                       transforms)
        log_sizes(vocabularies, labels, model, device, threads, log)
        encoded = [vocabularies.encode(sentence) for sentence in sentences]
        gold = [(np.asarray(heads, dtype=np.int64), np.array(ids))
                for (heads, _), ids in zip(trees, label_ids(trees, labels))]
        rng = np.random.default_rng(seed)

        def step(indices: list[int]) -> torch.Tensor:
            batch = make_batch([encoded[k] for k in indices], vocabularies, device, encoder.word_dropout, rng)
            heads, ids = (padded_targets([gold[k][column] for k in indices], batch.mask.shape[1], device)
                          for column in (0, 1))
            return model.loss(batch, heads, ids)

        history = fit_epochs(parser, model, [len(e) for e in encoded], step, training, dev, rng, log,
                             on_snapshots(evaluate_parser, model))
    parser.use_weights(network_weights(model))  # the kept epoch's
    parser.stats = BiaffineParseStats()  # the dev parses of training are not the user's
    parser.manifest["training"] = history
    return parser


def padded_targets(rows: list[np.ndarray], longest: int, device: str) -> torch.Tensor:
    """Per-node targets (gold heads, labels, tags) padded with -1 (entry 0, the root, is -1 too)."""
    out = np.full((len(rows), longest), -1, dtype=np.int64)
    for k, row in enumerate(rows):
        out[k, :len(row)] = row
        out[k, 0] = -1
    return torch.from_numpy(out).to(device)
