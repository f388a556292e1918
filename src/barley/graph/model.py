"""The graph-based model: hashed arc, sibling and label weights and the edge filter,
turning a sentence's features into the score matrices that the decoders read.

Labels are scored jointly with the arcs: every (head, dependent) pair takes its best
label among those seen in training for the pair's head and dependent POS (edge
filters, Bohnet 2010), and the decoder sees arc plus label score. We chose joint
scoring over a second-stage labeler because the non-projective approximation of
Björkelund & Kuhn's Figure 2 reattaches head *and* label in one move, which needs
label scores inside the tree score; edge filters keep the cost of labels small.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Self

import numpy as np

from barley.confidence import softmax
from barley.graph.features import Tokens, arc_features, label_features, sibling_features
from barley.decoders.options import DecoderOptions
from barley.errors import BarleyError
from barley.learners import weight_sums
from barley.models import check

BLOCK_CELLS = 1 << 16
"""Pairs (order 1) or triples (order 2) featurized at a time when parsing: about 200 MB."""


@dataclass
class GraphOptions(DecoderOptions):
    """The graph-based parser's options: how it decodes (:class:`~barley.decoders.options.DecoderOptions`),
    and how it learns and hashes its features."""

    WHAT = "the graph options"

    epochs: int = 10
    dims: int = 1 << 22
    label_rows: int = 1 << 17
    seed: int = 1

    def check(self) -> None:
        super().check()
        for name in ("dims", "label_rows"):
            value = getattr(self, name)
            if not 2 <= value <= 1 << 31 or value & (value - 1):
                raise BarleyError(f"{name} must be a power of two between 2 and 2^31, not {value}")


@dataclass
class Scores:
    """Everything the decoder and the perceptron update need for one sentence."""

    arc_index: np.ndarray
    label_index: np.ndarray
    sibling_index: np.ndarray | None
    arc: np.ndarray = field(default=None)  # type: ignore[arg-type]  # filled by GraphModel.score
    best_label: np.ndarray = field(default=None)  # type: ignore[arg-type]  # filled by GraphModel.score
    sibling: np.ndarray | None = None
    label_probability: np.ndarray | None = None  # confidence: the best label's softmax probability per pair

    def nbytes(self) -> int:
        """Memory of the feature indices (what training keeps between epochs)."""
        return sum(a.nbytes for a in (self.arc_index, self.label_index, self.sibling_index) if a is not None)


class GraphModel:
    """The weights of a graph-based parser over label ids and POS ids.

    ``weights`` is one vector: ``dims`` hashed arc and sibling weights, then the label
    weight matrix (``label_rows`` × labels, row-major), so that one perceptron update
    serves both (:mod:`barley.graph.learning`).
    """

    def __init__(self, options: GraphOptions, n_labels: int, n_upos: int):
        options.check()
        self.options = options
        self.n_labels = n_labels
        self.weights = np.zeros(options.dims + options.label_rows * n_labels, dtype=np.float32)
        # allowed[h_upos, d_upos, label]; filled from training data
        self.allowed = np.zeros((n_upos, n_upos, n_labels), dtype=bool)
        self._penalty: np.ndarray | None = None  # the edge filter as scores, made from ``allowed``

    def features(self, tokens: Tokens, dependents: slice = slice(None)) -> Scores:
        """The feature indices of the arcs into ``dependents`` (all nodes by default)."""
        dims = self.options.dims
        sibling_index = sibling_features(tokens, dims, dependents) if self.options.order == 2 else None
        return Scores(arc_features(tokens, dims, dependents),
                      label_features(tokens, self.options.label_rows, dependents), sibling_index)

    def score(self, tokens: Tokens, scores: Scores, weights: np.ndarray, dependents: slice = slice(None),
              label_temperature: float | None = None) -> None:
        """Fill the arc (with best label) and sibling score matrices of ``scores``, whose
        features are those of the arcs into ``dependents``; with ``label_temperature``, also the
        probability of each pair's best label, the softmax of its label scores at that temperature
        (confidence, :mod:`barley.confidence`)."""
        size, width = scores.arc_index.shape[:2]
        label_weights = weights[self.options.dims:].reshape(-1, self.n_labels)
        label_scores = weight_sums(label_weights, scores.label_index.reshape(size * width, -1))
        label_scores = label_scores.reshape(size, width, -1) + self._edge_filter()[tokens.upos[:, None],
                                                                                   tokens.upos[None, dependents]]
        scores.best_label = label_scores.argmax(axis=-1)
        if label_temperature is not None:
            probabilities = softmax(label_scores, label_temperature)
            scores.label_probability = np.take_along_axis(probabilities, scores.best_label[..., None], -1)[..., 0]
        arc_weights = weights[:self.options.dims, None]
        arc = weight_sums(arc_weights, scores.arc_index.reshape(size * width, -1)).reshape(size, width)
        scores.arc = arc + label_scores.max(axis=-1)
        if scores.sibling_index is not None:
            scores.sibling = weight_sums(arc_weights, scores.sibling_index.reshape(size * size * width, -1)
                                         ).reshape(size, size, width)

    def parse_scores(self, tokens: Tokens, label_temperature: float | None = None) -> Scores:
        """The arc (with best label) and sibling scores of a sentence, without its feature indices:
        computed a block of dependents at a time, so that the indices of a long sentence (about
        100 bytes per pair, per triple for siblings) never exist all at once. The same numbers
        as :meth:`features` and :meth:`score` over the whole sentence, which training uses.
        ``label_temperature``: as :meth:`score`'s."""
        size = len(tokens)
        cells = size * size if self.options.order == 2 else size
        width = max(1, BLOCK_CELLS // cells)
        arc = np.empty((size, size), dtype=np.float32)
        best_label = np.empty((size, size), dtype=np.int32)
        sibling = np.empty((size, size, size), dtype=np.float32) if self.options.order == 2 else None
        label_probability = None if label_temperature is None else np.empty((size, size))
        for start in range(0, size, width):
            block = slice(start, min(start + width, size))
            part = self.features(tokens, block)
            self.score(tokens, part, self.weights, block, label_temperature)
            arc[:, block], best_label[:, block] = part.arc, part.best_label
            if sibling is not None:
                sibling[:, :, block] = part.sibling
            if label_probability is not None:
                label_probability[:, block] = part.label_probability
        return Scores(None, None, None, arc=arc, best_label=best_label, sibling=sibling,  # type: ignore[arg-type]  # no feature indices
                      label_probability=label_probability)

    def _edge_filter(self) -> np.ndarray:
        """0 for the labels seen with a (head POS, dependent POS) pair, -inf for the others.

        A POS pair never seen in training may take any label.
        """
        if self._penalty is None:
            seen = self.allowed.any(axis=-1, keepdims=True)
            self._penalty = np.where(self.allowed | ~seen, 0.0, -np.inf).astype(np.float32)
        return self._penalty

    def arrays(self) -> dict[str, np.ndarray]:
        return {"graph_weights": self.weights, "graph_allowed": self.allowed}

    @classmethod
    def from_arrays(cls, options: GraphOptions, arrays: dict[str, np.ndarray], *, n_labels: int,
                    n_upos: int) -> Self:
        """The model of :meth:`arrays`, for ``n_labels`` labels and ``n_upos`` UPOS ids: the arrays
        checked against them and ``options`` before anything is allocated (:mod:`barley.models.check`)."""
        check.arrays(arrays, {"graph_weights": check.Array("float", (options.dims + options.label_rows * n_labels,)),
                              "graph_allowed": check.Array("bool", (n_upos, n_upos, n_labels))})
        parser = cls(options, n_labels=n_labels, n_upos=n_upos)
        parser.weights = arrays["graph_weights"].astype(np.float32)
        parser.allowed = arrays["graph_allowed"].astype(bool)
        return parser
