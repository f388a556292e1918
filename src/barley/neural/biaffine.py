"""The ``biaffine`` kind of parser (:mod:`barley.kinds`): a BiLSTM encoder and Dozat &
Manning's (2017) biaffine arc and label scorer, decoded by barley's graph decoders
(``mst``: Chu-Liu-Edmonds, the default as in the paper; ``eisner``; ``eisner+npa``: Eisner
then the non-projective approximation) and combined with any tree transform, e.g.
pseudo-projective lifting for the projective decoder (Björkelund & Kuhn's comparison).

PyTorch is needed to train only: a trained parser parses with numpy
(:mod:`barley.neural.biaffine_parser`); :mod:`barley.neural.biaffine_training` trains it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from barley.conllu import Sentence
from barley.errors import BarleyError
from barley.kinds import ParserKind, options_of
from barley.neural import require_torch
from barley.neural.options import (BiaffineOptions, EncoderOptions, Training, describe_encoder, describe_training,
                                   from_given)


def train_kind(sentences: list[Sentence], trees: list[tuple[list[int], list[str]]], *, source: str,
               single_root: bool, seed: int, tags: str, transforms: Sequence, log: Callable[[str], None],
               dev: list[Sentence] | None, decoder: str = "mst", npa_threshold: float | None = None,
               epochs: int | None = None, patience: int | None = None, batch_words: int | None = None,
               learning_rate: float | None = None, lr_schedule: str | None = None,
               device: str = "cpu", threads: int = 1,
               pretrained: str | None = None, form_dim: int | None = None, lemma_dim: int | None = None,
               upos_dim: int | None = None, xpos_dim: int | None = None, feats_dim: int | None = None,
               char_dim: int | None = None, char_hidden: int | None = None, lstm_hidden: int | None = None,
               lstm_layers: int | None = None, dropout: float | None = None, word_dropout: float | None = None,
               min_form_count: int | None = None, arc_mlp: int | None = None, label_mlp: int | None = None):
    """A biaffine parser (the ``biaffine`` kind of :func:`barley.kinds.train`).

    Encoder sizes (``form_dim`` … ``min_form_count``) are :class:`barley.neural.encoder.EncoderOptions`,
    ``arc_mlp``/``label_mlp`` :class:`barley.neural.biaffine_model.BiaffineOptions`, ``epochs`` …
    ``lr_schedule`` :class:`barley.neural.options.Training`; each left at None keeps its default.
    ``pretrained``: a word-vector text file to initialise the form embeddings. ``device``: ``cpu`` or
    ``cuda``; ``threads``: CPU threads (the same seed and threads give the same model on CPU).
    """
    given = {name: value for name, value in locals().items() if value is not None}
    require_torch()
    from barley.decoders.options import DecoderOptions
    from barley.decoders.nonprojective_approx import DEFAULT_THRESHOLD
    from barley.neural.biaffine_training import train_biaffine
    from barley.tree import crossing_share, label_table

    encoder, biaffine, training = from_given(given, EncoderOptions, BiaffineOptions, Training, device=device,
                                             threads=threads)
    if npa_threshold is not None and decoder != "eisner+npa":
        raise BarleyError("--npa-threshold applies to --decoder eisner+npa only", fix="leave it out")
    decoding = DecoderOptions(decoder=decoder, npa_threshold=DEFAULT_THRESHOLD if npa_threshold is None
                            else npa_threshold, single_root=single_root,
                            crossing_arcs=crossing_share(heads for heads, _ in trees))
    decoding.check()
    labels, _ = label_table(trees)
    words = sum(len(s) for s in sentences)
    log(f"training a biaffine parser (Dozat & Manning 2017) on {source}: {len(sentences)} sentences, {words} "
        f"words; tags {tags}; decoder {decoder}"
        + (f" (threshold {decoding.npa_threshold})" if decoder == "eisner+npa" else "")
        + f"; BiLSTM {encoder.lstm_layers} × {encoder.lstm_hidden}, arc MLP {biaffine.arc_mlp}, "
        f"label MLP {biaffine.label_mlp}")
    trained = train_biaffine(sentences, trees, labels, encoder=encoder, biaffine=biaffine, training=training,
                             decoding=decoding, transforms=transforms, dev=dev, pretrained=pretrained, seed=seed,
                             device=device, threads=threads, log=log)
    trained.manifest["training"].update({"pretrained": pretrained, "threads": threads, "device": device})
    return trained


def load(manifest: dict, arrays: dict, path: str):
    """The parser of a model file: numpy only, no PyTorch."""
    from barley.neural.biaffine_parser import TrainedBiaffineParser

    return TrainedBiaffineParser.from_files(manifest, arrays, path)


def describe(manifest: dict) -> list[str]:
    """The lines of ``barley info`` about a biaffine parser."""
    from barley.transforms import describe_transforms
    from barley.decoders.decoding import describe as describe_decoding

    decoding, encoder = manifest.get("decoding", {}), manifest.get("encoder", {})
    biaffine, training = manifest.get("biaffine", {}), manifest.get("training", {})
    vocabularies = manifest.get("vocabularies", {})
    return [
        f"parser:      biaffine (Dozat & Manning 2017), {describe_decoding(decoding)}",
        describe_transforms(manifest),
        describe_encoder(encoder),
        f"scorer:      arc MLP {biaffine.get('arc_mlp')}, label MLP {biaffine.get('label_mlp')}; "
        f"{len(manifest.get('labels', []))} labels",
        "vocabularies: " + ", ".join(f"{name} {len(values)}" for name, values in vocabularies.items()),
        describe_training(training),
    ]


BIAFFINE = ParserKind("biaffine", options_of(train_kind), train_kind, load, describe, takes_dev=True)
