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
from barley.graph.features import NULL, Tokens, arc_features, label_features, sibling_features
from barley.graph.mst import chu_liu_edmonds
from barley.graph.nonprojective_approx import DEFAULT_THRESHOLD, nonprojective_approximation
from barley.graph.scoring import inner_siblings
from barley.learners import weight_sums

DECODERS = ("eisner", "mst", "eisner+npa")
CACHE_BYTES = 2 << 30
"""Feature indices kept between training epochs (recomputed beyond this)."""


@dataclass
class GraphOptions:
    decoder: str = "eisner"
    order: int = 1
    npa_threshold: float = DEFAULT_THRESHOLD
    epochs: int = 10
    dims: int = 1 << 22
    label_rows: int = 1 << 17
    seed: int = 1
    single_root: bool = True

    def check(self) -> None:
        from barley.errors import BarleyError

        if self.decoder not in DECODERS:
            raise BarleyError(f"unknown decoder {self.decoder!r}", fix="use one of " + ", ".join(DECODERS))
        if self.order not in (1, 2):
            raise BarleyError(f"order {self.order} is not supported", fix="use --order 1 or 2")
        for name in ("dims", "label_rows"):
            value = getattr(self, name)
            if not 2 <= value <= 1 << 31 or value & (value - 1):
                raise BarleyError(f"{name} must be a power of two between 2 and 2^31, not {value}")
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

    def nbytes(self) -> int:
        """Memory of the feature indices (what training keeps between epochs)."""
        return sum(a.nbytes for a in (self.arc_index, self.label_index, self.sibling_index) if a is not None)


def _perceptron_update(weights: np.ndarray, totals: np.ndarray, gold: np.ndarray, guess: np.ndarray,
                       step: int) -> None:
    """+1 for the gold tree's features, -1 for the guess's, and the running sum for averaging.

    Features firing in both cancel; summing per distinct index first (bincount) is
    much faster than ``np.add.at``. Index 0 (:data:`NULL`) is never learned.
    """
    fired = np.concatenate([gold, guess])
    index, inverse = np.unique(fired, return_inverse=True)
    delta = np.bincount(inverse, weights=np.repeat([1.0, -1.0], [len(gold), len(guess)]), minlength=len(index))
    keep = (delta != 0) & (index != NULL)
    index, delta = index[keep], delta[keep]
    weights[index] += delta.astype(weights.dtype)
    totals[index] += step * delta


class GraphParser:
    """A trained (or training) graph-based model over label ids and POS ids.

    ``weights`` is one vector: ``dims`` hashed arc and sibling weights, then the label
    weight matrix (``label_rows`` × labels, row-major), so that one perceptron update
    serves both.
    """

    def __init__(self, options: GraphOptions, n_labels: int, n_upos: int):
        options.check()
        self.options = options
        self.n_labels = n_labels
        self.weights = np.zeros(options.dims + options.label_rows * n_labels, dtype=np.float32)
        # allowed[h_upos, d_upos, label]; filled from training data
        self.allowed = np.zeros((n_upos, n_upos, n_labels), dtype=bool)
        self._penalty: np.ndarray | None = None  # the edge filter as scores, made from ``allowed``

    # ----------------------------------------------------------------- scoring
    def features(self, tokens: Tokens) -> Scores:
        dims = self.options.dims
        sibling_index = sibling_features(tokens, dims) if self.options.order == 2 else None
        return Scores(arc_features(tokens, dims), label_features(tokens, self.options.label_rows), sibling_index)

    def score(self, tokens: Tokens, scores: Scores, weights: np.ndarray) -> None:
        """Fill the arc (with best label) and sibling score matrices of ``scores``."""
        size = len(tokens)
        label_weights = weights[self.options.dims:].reshape(-1, self.n_labels)
        label_scores = weight_sums(label_weights, scores.label_index.reshape(size * size, -1))
        label_scores = label_scores.reshape(size, size, -1) + self._edge_filter()[tokens.upos[:, None],
                                                                                  tokens.upos[None, :]]
        scores.best_label = label_scores.argmax(axis=-1)
        arc_weights = weights[:self.options.dims, None]
        arc = weight_sums(arc_weights, scores.arc_index.reshape(size * size, -1)).reshape(size, size)
        scores.arc = arc + label_scores.max(axis=-1)
        if scores.sibling_index is not None:
            scores.sibling = weight_sums(arc_weights, scores.sibling_index.reshape(size ** 3, -1)).reshape((size,) * 3)

    def _edge_filter(self) -> np.ndarray:
        """0 for the labels seen with a (head POS, dependent POS) pair, -inf for the others.

        A POS pair never seen in training may take any label.
        """
        if self._penalty is None:
            seen = self.allowed.any(axis=-1, keepdims=True)
            self._penalty = np.where(self.allowed | ~seen, 0.0, -np.inf).astype(np.float32)
        return self._penalty

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
        label_rows = scores.label_index[heads[1:], dependents].astype(np.int64)  # (n, G)
        parts = [scores.arc_index[heads[1:], dependents].ravel(),
                 (self.options.dims + label_rows * self.n_labels + labels[1:, None]).ravel()]
        if scores.sibling_index is not None:
            inner = np.asarray(inner_siblings(heads))
            parts.append(scores.sibling_index[heads[1:], inner[1:], dependents].ravel())
        return np.concatenate(parts)

    def fit(self, sentences: Sequence[tuple[Tokens, np.ndarray, np.ndarray]],
            log: Callable[[str], None] = print, cache_bytes: int = CACHE_BYTES) -> None:
        """Averaged structured perceptron over (tokens, gold heads, gold label ids) triples.

        The feature indices of a sentence do not change between epochs and computing
        them is most of an epoch's work, so they are kept, up to ``cache_bytes``.
        """
        for tokens, heads, labels in sentences:
            self.allowed[tokens.upos[heads[1:]], tokens.upos[1:], labels[1:]] = True
        self._penalty = None
        rng = np.random.default_rng(self.options.seed)
        weights = self.weights
        totals = np.zeros(len(weights), dtype=np.float64)  # Σ c·update, for averaging (Daumé's trick)
        step = 1
        order = np.arange(len(sentences))
        cache: dict[int, tuple] = {}
        cached_bytes = 0
        started = time.perf_counter()
        for epoch in range(1, self.options.epochs + 1):
            rng.shuffle(order)
            errors = words = 0
            for count, k in enumerate(order, start=1):
                tokens, heads, labels = sentences[k]
                kept = cache.get(k)
                scores = Scores(*kept) if kept else self.features(tokens)
                if not kept and cached_bytes + scores.nbytes() <= cache_bytes:
                    cache[k] = (scores.arc_index, scores.label_index, scores.sibling_index)
                    cached_bytes += scores.nbytes()
                self.score(tokens, scores, weights)
                predicted, _ = self.decode(scores)
                predicted_labels = scores.best_label[predicted[1:], np.arange(1, len(tokens))]
                wrong = int(np.count_nonzero((predicted[1:] != heads[1:]) | (predicted_labels != labels[1:])))
                errors += wrong
                words += len(tokens) - 1
                if wrong:
                    gold = self._active(scores, heads, labels)
                    guess = self._active(scores, predicted, np.concatenate([[-1], predicted_labels]))
                    _perceptron_update(weights, totals, gold, guess, step)
                step += 1
                if count % 2000 == 0:
                    elapsed = time.perf_counter() - started
                    log(f"  epoch {epoch}: {count}/{len(order)} sentences, {elapsed:.0f} s")
            log(f"epoch {epoch}/{self.options.epochs}: training LAS {100 * (1 - errors / max(words, 1)):.2f} "
                f"({time.perf_counter() - started:.0f} s; features of {len(cache)} sentences kept, "
                f"{cached_bytes / 2**20:.0f} MB)")
        self.weights = (weights - totals / step).astype(np.float32)

    # ------------------------------------------------------------- persistence
    def arrays(self) -> dict[str, np.ndarray]:
        return {"graph_weights": self.weights, "graph_allowed": self.allowed}

    @classmethod
    def from_arrays(cls, options: GraphOptions, arrays: dict[str, np.ndarray]) -> GraphParser:
        allowed = arrays["graph_allowed"]
        parser = cls(options, n_labels=allowed.shape[2], n_upos=allowed.shape[0])
        if arrays["graph_weights"].shape != parser.weights.shape:
            raise ValueError(f"{arrays['graph_weights'].shape[0]} weights where the options need "
                             f"{parser.weights.shape[0]}")
        parser.weights = arrays["graph_weights"].astype(np.float32)
        parser.allowed = allowed.astype(bool)
        return parser
