"""The graph-based parser: hashed arc, sibling and label features, trained online with
the averaged structured perceptron (Collins 2002; McDonald, Crammer & Pereira 2005),
decoded with Eisner, Chu-Liu-Edmonds or Eisner plus the non-projective approximation.

Labels are scored jointly with the arcs: every (head, dependent) pair takes its best
label among those seen in training for the pair's head and dependent POS (edge
filters, Bohnet 2010), and the decoder sees arc plus label score. We chose joint
scoring over a second-stage labeler because the non-projective approximation of
Björkelund & Kuhn's Figure 2 reattaches head *and* label in one move, which needs
label scores inside the tree score; edge filters keep the cost of labels small.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from barley.graph.eisner import eisner, eisner_second_order
from barley.graph.features import (Tokens, arc_features, label_feature_index, label_features,
                                   sibling_features)
from barley.graph.mst import chu_liu_edmonds
from barley.graph.nonprojective_approx import DEFAULT_THRESHOLD, nonprojective_approximation
from barley.graph.scoring import inner_siblings

DECODERS = ("eisner", "mst", "eisner+npa")


@dataclass
class GraphOptions:
    decoder: str = "eisner"
    order: int = 1
    npa_threshold: float = DEFAULT_THRESHOLD
    epochs: int = 10
    dims: int = 1 << 22
    seed: int = 1
    single_root: bool = True

    def check(self) -> None:
        from barley.errors import BarleyError

        if self.decoder not in DECODERS:
            raise BarleyError(f"unknown decoder {self.decoder!r}", fix="use one of " + ", ".join(DECODERS))
        if self.order not in (1, 2):
            raise BarleyError(f"order {self.order} is not supported", fix="use --order 1 or 2")
        if self.order == 2 and self.decoder == "mst":
            raise BarleyError("second-order MST decoding is NP-hard",
                              fix="use --decoder eisner+npa for non-projective second-order parsing")


@dataclass
class Scores:
    """Everything the decoder and the perceptron update need for one sentence."""

    arc_index: np.ndarray
    label_index: np.ndarray
    sibling_index: np.ndarray | None
    arc: np.ndarray = field(default=None)
    best_label: np.ndarray = field(default=None)
    sibling: np.ndarray | None = None


class GraphParser:
    """A trained (or training) graph-based model over label ids and POS ids."""

    def __init__(self, options: GraphOptions, n_labels: int, n_upos: int):
        options.check()
        self.options = options
        self.n_labels = n_labels
        self.weights = np.zeros(options.dims, dtype=np.float32)
        # allowed[h_upos, d_upos, label]; filled from training data
        self.allowed = np.zeros((n_upos, n_upos, n_labels), dtype=bool)

    # ----------------------------------------------------------------- scoring
    def features(self, tokens: Tokens) -> Scores:
        dims = self.options.dims
        label_index = label_feature_index(label_features(tokens), np.arange(self.n_labels), dims)
        sibling_index = sibling_features(tokens, dims) if self.options.order == 2 else None
        return Scores(arc_features(tokens, dims), label_index, sibling_index)

    def score(self, tokens: Tokens, scores: Scores, weights: np.ndarray) -> None:
        """Fill the arc (with best label) and sibling score matrices of ``scores``."""
        label_scores = weights[scores.label_index].sum(axis=-2)  # (size, size, L)
        mask = self.allowed[tokens.upos[:, None], tokens.upos[None, :]]
        unseen = ~mask.any(axis=-1)
        mask[unseen] = True  # a POS pair never seen in training may take any label
        label_scores = np.where(mask, label_scores, -np.inf)
        scores.best_label = label_scores.argmax(axis=-1)
        best = np.take_along_axis(label_scores, scores.best_label[..., None], axis=-1)[..., 0]
        scores.arc = weights[scores.arc_index].sum(axis=-1) + best
        if scores.sibling_index is not None:
            scores.sibling = weights[scores.sibling_index].sum(axis=-1)

    def decode(self, scores: Scores) -> tuple[np.ndarray, int]:
        """The best tree for the decoder, and how many non-projective approximation moves it took."""
        options = self.options
        if options.decoder == "mst":
            return chu_liu_edmonds(scores.arc, options.single_root), 0
        if options.order == 2:
            heads = eisner_second_order(scores.arc, scores.sibling, options.single_root)
        else:
            heads = eisner(scores.arc, options.single_root)
        if options.decoder == "eisner+npa":
            return nonprojective_approximation(heads, scores.arc, scores.sibling,
                                               options.npa_threshold, options.single_root)
        return heads, 0

    def parse(self, tokens: Tokens) -> tuple[np.ndarray, np.ndarray, int]:
        """Heads and label ids of nodes 0..n (entry 0: -1), and the approximation's moves."""
        scores = self.features(tokens)
        self.score(tokens, scores, self.weights)
        heads, moves = self.decode(scores)
        labels = np.full(len(tokens), -1, dtype=np.int64)
        labels[1:] = scores.best_label[heads[1:], np.arange(1, len(tokens))]
        return heads, labels, moves

    # ---------------------------------------------------------------- training
    def _active(self, scores: Scores, heads: Sequence[int], labels: Sequence[int]) -> np.ndarray:
        """The feature indices that fire for one tree (with repetitions)."""
        heads = np.asarray(heads)
        labels = np.asarray(labels)
        dependents = np.arange(1, len(heads))
        parts = [scores.arc_index[heads[1:], dependents].ravel(),
                 scores.label_index[heads[1:], dependents, :, labels[1:]].ravel()]
        if scores.sibling_index is not None:
            inner = np.asarray(inner_siblings(heads))
            parts.append(scores.sibling_index[heads[1:], inner[1:], dependents].ravel())
        return np.concatenate(parts)

    def fit(self, sentences: Sequence[tuple[Tokens, np.ndarray, np.ndarray]],
            log: Callable[[str], None] = print) -> None:
        """Averaged structured perceptron over (tokens, gold heads, gold label ids) triples."""
        for tokens, heads, labels in sentences:
            self.allowed[tokens.upos[heads[1:]], tokens.upos[1:], labels[1:]] = True
        rng = np.random.default_rng(self.options.seed)
        weights = self.weights
        totals = np.zeros_like(weights)  # Σ c·update, for averaging (Daumé's trick)
        step = 1
        order = np.arange(len(sentences))
        started = time.perf_counter()
        for epoch in range(1, self.options.epochs + 1):
            rng.shuffle(order)
            errors = words = 0
            for count, k in enumerate(order, start=1):
                tokens, heads, labels = sentences[k]
                scores = self.features(tokens)
                self.score(tokens, scores, weights)
                predicted, _ = self.decode(scores)
                predicted_labels = scores.best_label[predicted[1:], np.arange(1, len(tokens))]
                wrong = int(np.count_nonzero((predicted[1:] != heads[1:]) | (predicted_labels != labels[1:])))
                errors += wrong
                words += len(tokens) - 1
                if wrong:
                    gold = self._active(scores, heads, labels)
                    guess = self._active(scores, predicted, np.concatenate([[-1], predicted_labels]))
                    np.add.at(weights, gold, 1.0)
                    np.add.at(weights, guess, -1.0)
                    np.add.at(totals, gold, step)
                    np.add.at(totals, guess, -step)
                    weights[0] = totals[0] = 0.0
                step += 1
                if count % 2000 == 0:
                    elapsed = time.perf_counter() - started
                    log(f"  epoch {epoch}: {count}/{len(order)} sentences, {elapsed:.0f} s")
            log(f"epoch {epoch}/{self.options.epochs}: training LAS {100 * (1 - errors / max(words, 1)):.2f} "
                f"({time.perf_counter() - started:.0f} s)")
        self.weights = (weights - totals / step).astype(np.float32)

    # ------------------------------------------------------------- persistence
    def arrays(self) -> dict[str, np.ndarray]:
        return {"graph_weights": self.weights, "graph_allowed": self.allowed}

    @classmethod
    def from_arrays(cls, options: GraphOptions, arrays: dict[str, np.ndarray]) -> GraphParser:
        allowed = arrays["graph_allowed"]
        parser = cls(options, n_labels=allowed.shape[2], n_upos=allowed.shape[0])
        parser.weights = arrays["graph_weights"].astype(np.float32)
        parser.allowed = allowed.astype(bool)
        return parser
