"""The graph-based parser: its model (:mod:`barley.graph.model`), decoded by
:mod:`barley.decoders.decoding`, trained by :mod:`barley.graph.learning`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from barley.constraints import SentenceArcs, constrained_scores, labels_kept
from barley.decoders.decoding import decode, decode_k_best
from barley.graph.features import Tokens
from barley.graph.learning import CACHE_BYTES, fit
from barley.graph.model import GraphModel, Scores


class GraphParser(GraphModel):
    """A graph-based model that parses (decodes its scores) and learns (the perceptron)."""

    def decode(self, scores: Scores) -> tuple[np.ndarray, int]:
        return decode(self.options, scores.arc, scores.sibling)

    def parse(self, tokens: Tokens, arcs: SentenceArcs | None = None) -> tuple[np.ndarray, np.ndarray, int]:
        """Heads and label ids of nodes 0..n (entry 0: -1), and the approximation's moves; with
        ``arcs``, the kept given arcs are forced and the arcs that contradict them or are forbidden
        excluded, those that cross them avoided where the options say so
        (:func:`barley.constraints.constrained_scores`)."""
        return self.parse_scored(tokens, arcs=arcs)[:3]

    def parse_scored(self, tokens: Tokens, label_temperature: float | None = None, arcs: SentenceArcs | None = None
                     ) -> tuple[np.ndarray, np.ndarray, int, Scores]:
        """:meth:`parse`, and the scores it decoded (with the labels' probabilities at
        ``label_temperature``, if given: confidence)."""
        scores = self.parse_scores(tokens, label_temperature)
        if arcs is not None:
            scores = replace(scores, arc=constrained_scores(scores.arc, arcs, scores.sibling,
                                                            self.options.avoids_crossing_given()))
        heads, moves = self.decode(scores)
        return heads, np.asarray(labels_kept(_best_labels(scores, heads), arcs)), moves, scores

    def parse_k_best(self, tokens: Tokens, k: int) -> list[tuple[float, np.ndarray, np.ndarray]]:
        """The ``k`` best trees (first order, :func:`barley.decoders.decoding.decode_k_best`) as
        (score, heads, label ids), each arc with its best label, as in :meth:`parse`."""
        scores = self.parse_scores(tokens)
        return [(score, heads, _best_labels(scores, heads)) for score, heads in decode_k_best(self.options, scores.arc, k)]

    def fit(self, sentences: Sequence[tuple[Tokens, np.ndarray, np.ndarray]],
            log: Callable[[str], None] = print, cache_bytes: int = CACHE_BYTES) -> None:
        """Train on (tokens, gold heads, gold label ids) triples (:func:`barley.graph.learning.fit`)."""
        fit(self, sentences, log, cache_bytes)


def _best_labels(scores: Scores, heads: np.ndarray) -> np.ndarray:
    """The label id of each node's arc: the best label of its (head, dependent) pair; entry 0: -1."""
    labels = np.full(len(heads), -1, dtype=np.int64)
    labels[1:] = scores.best_label[heads[1:], np.arange(1, len(heads))]
    return labels
