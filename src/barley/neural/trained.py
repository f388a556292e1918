"""What the trained neural parsers share at parse time, numpy only (never PyTorch), beyond the shell of
every kind (:class:`barley.trained_parser.ParserShell`): parsing in batches of similar length, the
encoder, the weights and their model files.

A trained parser is its options, the encoder's vocabularies, its labels and transforms, and
its weights: the arrays of its model file (PyTorch's state-dict names), which the kind's
numpy network (:mod:`barley.neural.numpy_encoder` and :mod:`barley.neural.numpy_ops`) reads
as they are. A parser loaded from a file parses with the file's arrays, checked against the
shapes its options imply before anything reads them; a parser in training parses dev with a
snapshot of the network being trained (:func:`barley.neural.fitting.network_weights`), so
that the trees scored on dev are those the saved model will build.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict

import numpy as np

from barley import __version__
from barley.conllu import Sentence
from barley.constraints import ArcOptions, SentenceArcs
from barley.models import check
from barley.neural.inputs import PARSE_BATCH_WORDS, EncoderVocabularies, by_length
from barley.neural.numpy_encoder import Shapes, checked_weights, encoder_shapes
from barley.neural.options import EncoderOptions
from barley.trained_parser import ParserShell


class NeuralParser(ParserShell):
    """A trained neural parser: its encoder's options and vocabularies, labels, transforms and weights.

    A subclass names its ``kind``, builds its numpy network from the weights (``network_of``),
    parses a batch (``_parse_batch``, writing trees back with :meth:`ParserShell.set_tree`),
    gives its own manifest entries (``own_manifest``) and restores itself (``from_files``, inside
    :func:`barley.models.check.loading`, its weights read by :meth:`checked` with the shapes of the
    arrays its options imply beyond the encoder's).
    """

    def __init__(self, encoder: EncoderOptions, vocabularies: EncoderVocabularies, labels: list[str],
                 weights: dict[str, np.ndarray], transforms: Sequence = (), manifest: dict | None = None):
        super().__init__(labels, transforms, manifest)
        self.encoder = encoder
        self.vocabularies = vocabularies
        self.use_weights(weights)

    def use_weights(self, weights: dict[str, np.ndarray]) -> None:
        """Parse with these arrays from now on (names without ``weights.``)."""
        self.weights = weights
        self.network = self.network_of(weights)

    def network_of(self, weights: dict[str, np.ndarray]):
        """The kind's numpy network over ``weights``."""
        raise NotImplementedError

    def parse(self, sentences: Iterable[Sentence], batch_words: int = PARSE_BATCH_WORDS,
              arcs: ArcOptions | None = None) -> Iterator[Sentence]:
        """Parse sentences (in place) and yield them in input order; only HEAD and DEPREL change.
        ``arcs``: keep the given arcs and avoid the forbidden ones (:mod:`barley.constraints`)."""
        self.check_arcs(arcs)
        return by_length(sentences, lambda batch: self._parse_batch(
            batch, self.given(batch, arcs, self.tree_class(), f"{self.kind} parser")), batch_words)

    def check_arcs(self, arcs: ArcOptions | None) -> None:
        """Refuse ``arcs`` if this parser cannot keep them (a transition system without a rule)."""

    def tree_class(self) -> str:
        """The trees this parser builds (:func:`barley.constraints.buildable`)."""
        raise NotImplementedError

    def _parse_batch(self, batch: list[Sentence], given: list[SentenceArcs | None]) -> None:
        raise NotImplementedError

    def own_manifest(self) -> dict:
        raise NotImplementedError

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        manifest = dict(self.manifest)
        manifest.update({"barley_version": __version__, "parser": self.kind, **self.own_manifest(),
                         "encoder": asdict(self.encoder), "labels": self.labels,
                         "vocabularies": self.vocabularies.to_json(),
                         "transforms": [t.to_json() for t in self.transforms]})
        return manifest, {f"weights.{name}": array for name, array in self.weights.items()}

    @staticmethod
    def checked(arrays: dict[str, np.ndarray], encoder: EncoderOptions, vocabularies: EncoderVocabularies,
                head_shapes: Shapes, path: str, network: str) -> dict[str, np.ndarray]:
        """A model file's weights: the encoder's arrays and the ``head_shapes``, each checked
        (:func:`barley.neural.numpy_encoder.checked_weights`) before anything reads them."""
        return checked_weights(arrays, {**encoder_shapes(encoder, vocabularies.sizes()), **head_shapes}, path,
                               network)


def checked_common(manifest: dict, arrays: dict[str, np.ndarray]) -> tuple[EncoderVocabularies, list[str],
                                                                            EncoderOptions, int]:
    """What every neural parser's manifest holds (:meth:`NeuralParser.to_files`), checked
    (:mod:`barley.models.check`): the encoder's vocabularies, the labels, the encoder's options, and
    the most any size option may be: the number of weights in ``arrays`` (no size allocates more
    than the file holds: the arrays' shapes are compared with those the sizes imply before
    anything is built)."""
    tables = check.mapping(manifest["vocabularies"], "the vocabularies")
    vocabularies = EncoderVocabularies.from_json({name: check.texts(tables[name], f"the {name} vocabulary")
                                                  for name in tables})
    labels = check.texts(manifest["labels"], "the labels", field=True, unique=True)
    most = sum(int(np.size(value)) for value in arrays.values())
    encoder = check.options(EncoderOptions, manifest["encoder"], "the encoder options", most=most)
    encoder.check()
    if encoder.lstm_layers > len(arrays):  # each layer has arrays of its own
        check.fail(f"the encoder has {encoder.lstm_layers} layers, more than the file has arrays")
    return vocabularies, labels, encoder, most
