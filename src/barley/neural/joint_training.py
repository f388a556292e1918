"""Training the joint tagger, lemmatizer and parser (:mod:`barley.neural.joint`) with PyTorch.

Minibatches of sentences of similar length, Adam (Dozat & Manning 2017 §4), one loss — the
sum of the parser's (arcs, labels) and of each tagging head's cross-entropy — and early
stopping on one dev score: the mean of UPOS, XPOS, UFeats and Lemmas accuracy and LAS
(every word, punctuation included), so that no head is traded away for another. Without
a dev set the end of the training data is held out for it (``holdout``, said in the log).
Deterministic for a seed and a number of threads; a checkpoint after every epoch
(:class:`barley.neural.fitting.Checkpoint`) lets a training that was stopped resume.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import torch

from barley.conllu import Sentence
from barley.decoders.options import DecoderOptions
from barley.evaluation.columns import accuracies
from barley.neural.biaffine_training import padded_targets
from barley.neural.encoder import tensors
from barley.neural.fitting import (Checkpoint, carry_over, deterministic, encoder_vocabularies, fit_epochs,
                                   load_weights, log_sizes, use_pretrained, weight_arrays)
from barley.neural.inputs import EncoderVocabularies, Padded, pad
from barley.neural.joint import Annotator, JointOutputs, JointParser
from barley.neural.joint_tables import JointTables
from barley.neural.joint_model import JointModel
from barley.neural.options import BiaffineOptions, EncoderOptions, Training
from barley.tree import label_ids

CLASS_NAMES = {"upos": "UPOS", "xpos": "XPOS", "feats": "FEATS", "lemma": "lemma rules"}
DEV_SCORES = ("UPOS", "XPOS", "UFeats", "Lemmas", "LAS")
"""The dev accuracies whose mean early stopping follows."""


class TorchNetwork:
    """The PyTorch model as a network of :class:`JointParser` (eval mode while it runs)."""

    def __init__(self, model: JointModel, vocabularies: EncoderVocabularies, device: str):
        self.model, self.vocabularies, self.device = model, vocabularies, device

    def outputs(self, padded: Padded) -> JointOutputs:
        was_training = self.model.training
        self.model.eval()
        try:
            return self.model.outputs(tensors(padded, self.vocabularies, self.device))
        finally:
            self.model.train(was_training)


def dev_scores(parser: JointParser, dev: Sequence[Sentence]) -> dict:
    """UPOS, XPOS, UFeats, Lemmas, UAS, LAS (:func:`barley.evaluation.columns.accuracies`) of ``parser`` on
    copies of ``dev`` and ``score``, the mean of :data:`DEV_SCORES`."""
    copies = [sentence.copy() for sentence in dev]
    list(parser.process(copies))
    scores = accuracies(dev, copies, ("UPOS", "XPOS", "FEATS", "LEMMA", "HEAD", "DEPREL"))
    scores["score"] = round(sum(scores[name] for name in DEV_SCORES) / len(DEV_SCORES), 2)
    return scores


def held_out(sentences: list[Sentence], trees: list, fraction: float, log: Callable[[str], None]
             ) -> tuple[list[Sentence], list, list[Sentence] | None]:
    """Without a dev set: the last ``fraction`` of the training sentences (whole documents are
    contiguous, so these are as new as a test set's) become the dev set."""
    count = int(round(len(sentences) * fraction))
    if fraction == 0.0 or count == 0 or count == len(sentences):
        log("no dev set and nothing held out: the last epoch is kept")
        return sentences, trees, None
    kept = len(sentences) - count
    log(f"no dev set: the last {count} training sentences ({sum(len(s) for s in sentences[kept:])} words, "
        f"{fraction:.0%}) are held out for early stopping and not trained on")
    return sentences[:kept], trees[:kept], sentences[kept:]


def data_digest(*parts: Sequence[Sentence] | None) -> str:
    """A digest of sentences' words (all columns), to tell a checkpoint's data from other data."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        for sentence in part or ():
            for word in sentence.words:
                digest.update("\t".join(word).encode("utf-8") + b"\n")
            digest.update(b"\n")
    return digest.hexdigest()


def train_joint(sentences: list[Sentence], trees: list[tuple[list[int], list[str]]], labels: list[str],
                dev: list[Sentence] | None, *, encoder: EncoderOptions, biaffine: BiaffineOptions,
                training: Training, decoding: DecoderOptions, transforms: Sequence, parser_layers: int, holdout: float,
                pretrained: str | None, seed: int, device: str, threads: int, checkpoint: str | None,
                resume: bool, fingerprint: dict, log: Callable[[str], None]
                ) -> tuple[JointModel, EncoderVocabularies, JointTables, dict]:
    """Fit the joint network on (transformed) gold ``trees`` and the words' tags and lemmas.

    ``dev`` (untransformed, scored on its own trees) or, without it, the last ``holdout`` of the
    training data chooses the epoch kept. ``checkpoint``: a file written after every epoch;
    ``resume``: continue from it (``fingerprint`` must match its training's). Returns the model
    (on the CPU), its vocabularies and tables, and the training history (with the sentences and
    words trained on)."""
    sentences, trees, dev, counts = _with_dev(sentences, trees, dev, holdout, log)
    # the joint network never reads what it predicts: the form, and the treebank where it learns from several
    encoder = replace(encoder, inputs=("form", *(("treebank",) if "treebank" in encoder.inputs else ())))
    with deterministic(seed, device, threads):
        encoder, vocabularies, vectors = encoder_vocabularies(sentences, encoder, pretrained, log)
        tables = JointTables.build(sentences, labels)
        model = JointModel(encoder, biaffine, vocabularies.sizes(), len(labels), tables.sizes(),
                           parser_layers).to(device)
        use_pretrained(model.encoder, vocabularies, vectors, pretrained, log)
        saved = None if checkpoint is None else Checkpoint(
            checkpoint, {**fingerprint, "data": data_digest(sentences, dev), "threads": threads}, resume)
        history = _train(model, vocabularies, tables, sentences, trees, dev, training, decoding, transforms, seed,
                         device, threads, saved, log)
    model.cpu()
    return model, vocabularies, tables, {**history, **counts}


def fine_tune_joint(component, sentences: list[Sentence], trees: list[tuple[list[int], list[str]]],
                    labels: list[str], dev: list[Sentence] | None, *, training: Training, holdout: float, seed: int,
                    device: str, threads: int, log: Callable[[str], None]
                    ) -> tuple[JointModel, EncoderVocabularies, JointTables, dict]:
    """Train the network of a trained ``joint`` component further on (transformed) gold ``trees``: its
    vocabularies and classes extended with those of ``sentences`` (:meth:`EncoderVocabularies.extended`,
    :meth:`JointTables.extended`), its weights carried over (:func:`carry_over`: a new form or
    character starts as the unknown one; a new class's rows are initialised under ``seed``), then
    trained as :func:`train_joint` trains (early stopping on ``dev``, or on the end of the data).
    Returns the model (on the CPU), its vocabularies and tables, and the history, with the number
    of entries added to each vocabulary and table."""
    sentences, trees, dev, counts = _with_dev(sentences, trees, dev, holdout, log)
    manifest, parser = component.manifest, component.parser
    encoder = EncoderOptions(**manifest["encoder"])
    vocabularies = parser.vocabularies.extended(sentences, encoder.min_form_count)
    tables = parser.annotator.tables.extended(sentences, labels)
    added = {name: vocabularies.sizes()[name] - size for name, size in parser.vocabularies.sizes().items()}
    added.update({name: tables.sizes()[name] - size for name, size in parser.annotator.tables.sizes().items()})
    added["labels"] = len(tables.labels) - len(parser.annotator.tables.labels)
    log("new entries from the fine-tuning data: " + ", ".join(f"{name} {count}" for name, count in added.items()))
    with deterministic(seed, device, threads):
        model = JointModel(encoder, BiaffineOptions(**manifest["biaffine"]), vocabularies.sizes(), len(tables.labels),
                           tables.sizes(), manifest["parser_layers"])
        carry_over(model, component.arrays, unknown_rows=UNKNOWN_ROWS)
        model.to(device)
        history = _train(model, vocabularies, tables, sentences, trees, dev, training, parser.annotator.decoding,
                         parser.annotator.transforms, seed, device, threads, None, log)
    model.cpu()
    return model, vocabularies, tables, {**history, **counts, "added": added}


UNKNOWN_ROWS = ("encoder.form.weight", "encoder.char_embedding.weight")
"""The input embeddings whose new rows start as the unknown entry's (:func:`carry_over`)."""


def _with_dev(sentences: list[Sentence], trees: list, dev: list[Sentence] | None, holdout: float,
              log: Callable[[str], None]) -> tuple[list[Sentence], list, list[Sentence] | None, dict]:
    """The sentences and trees trained on, the dev set (without one, :func:`held_out`) and their counts."""
    counts: dict = {}
    if dev is None:
        given = len(sentences)
        sentences, trees, dev = held_out(sentences, trees, holdout, log)
        if dev is not None:
            counts["held_out_sentences"] = given - len(sentences)
    counts.update({"sentences": len(sentences), "words": sum(len(s) for s in sentences)})
    return sentences, trees, dev, counts


def _train(model: JointModel, vocabularies: EncoderVocabularies, tables: JointTables, sentences: list[Sentence],
           trees: list, dev: list[Sentence] | None, training: Training, decoding: DecoderOptions, transforms: Sequence,
           seed: int, device: str, threads: int, checkpoint: Checkpoint | None, log: Callable[[str], None]) -> dict:
    """Log the sizes, then fit ``model`` (:func:`_fit`) as the network of a parser that scores dev."""
    log_sizes(vocabularies, tables.labels, model, device, threads, log)
    log("classes: " + ", ".join(f"{CLASS_NAMES[name]} {size}" for name, size in tables.sizes().items()))
    parser = JointParser(TorchNetwork(model, vocabularies, device), vocabularies,
                         Annotator(tables, decoding, transforms))
    return _fit(model, parser, sentences, trees, tables, training, dev, seed, checkpoint, log)


def _fit(model: JointModel, parser: JointParser, sentences: list[Sentence], trees: list, tables: JointTables,
         training: Training, dev: list[Sentence] | None, seed: int, checkpoint: Checkpoint | None,
         log: Callable[[str], None]) -> dict:
    device = parser.network.device
    vocabularies = parser.vocabularies
    encoded = [vocabularies.encode(sentence) for sentence in sentences]
    gold = [{"heads": np.asarray(heads, dtype=np.int64), "labels": np.array(ids), **tables.targets(sentence)}
            for sentence, (heads, _), ids in zip(sentences, trees, label_ids(trees, tables.labels))]
    rng = np.random.default_rng(seed)

    def step(indices: list[int]) -> torch.Tensor:
        batch = tensors(pad([encoded[k] for k in indices], model.encoder.options.word_dropout, rng), vocabularies,
                        device)
        longest = batch.mask.shape[1]
        columns = {name: padded_targets([gold[k][name] for k in indices], longest, device) for name in gold[0]}
        return model.loss(batch, columns.pop("heads"), columns.pop("labels"), columns)

    return fit_epochs(parser, model, [len(e) for e in encoded], step, training, dev, rng, log, dev_scores,
                      criterion="score", shown=(*DEV_SCORES, "score"), checkpoint=checkpoint)


def model_of(component) -> JointModel:
    """The PyTorch model of a ``joint`` component (:class:`barley.pipeline.joint.JointComponent`),
    rebuilt from its manifest and arrays: the twin of its numpy engine."""
    manifest, parser = component.manifest, component.parser
    tables = parser.annotator.tables
    model = JointModel(EncoderOptions(**manifest["encoder"]), BiaffineOptions(**manifest["biaffine"]),
                       parser.vocabularies.sizes(), len(tables.labels), tables.sizes(), manifest["parser_layers"])
    load_weights(model, component.arrays)
    return model


def network_arrays(model: JointModel) -> dict[str, np.ndarray]:
    """The trained weights for the model file (``weights.NAME``), float32 (what the numpy engine runs)."""
    return {name: value.astype(np.float32) for name, value in weight_arrays(model).items()}
