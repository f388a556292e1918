"""Learning a graph-based model: the averaged structured perceptron (Collins 2002;
McDonald, Crammer & Pereira 2005) over whole trees decoded with the model's decoder."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from barley.decoders.decoding import decode
from barley.graph.features import NULL, Tokens
from barley.graph.model import GraphModel, Scores
from barley.decoders.tree_score import inner_siblings

CACHE_BYTES = 2 << 30
"""Feature indices kept between training epochs (recomputed beyond this)."""


def perceptron_update(weights: np.ndarray, totals: np.ndarray, gold: np.ndarray, guess: np.ndarray,
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


def active_features(model: GraphModel, scores: Scores, heads: np.ndarray | Sequence[int],
                    labels: np.ndarray | Sequence[int]) -> np.ndarray:
    """The feature indices that fire for one tree (with repetitions)."""
    heads = np.asarray(heads)
    labels = np.asarray(labels)
    dependents = np.arange(1, len(heads))
    label_rows = scores.label_index[heads[1:], dependents].astype(np.int64)  # (n, G)
    parts = [scores.arc_index[heads[1:], dependents].ravel(),
             (model.options.dims + label_rows * model.n_labels + labels[1:, None]).ravel()]
    if scores.sibling_index is not None:
        inner = np.asarray(inner_siblings(heads))
        parts.append(scores.sibling_index[heads[1:], inner[1:], dependents].ravel())
    return np.concatenate(parts)

def fit(model: GraphModel, sentences: Sequence[tuple[Tokens, np.ndarray, np.ndarray]],
        log: Callable[[str], None] = print, cache_bytes: int = CACHE_BYTES) -> None:
    """Averaged structured perceptron over (tokens, gold heads, gold label ids) triples.

    The feature indices of a sentence do not change between epochs and computing
    them is most of an epoch's work, so they are kept, up to ``cache_bytes``.
    """
    for tokens, heads, labels in sentences:
        model.allowed[tokens.upos[heads[1:]], tokens.upos[1:], labels[1:]] = True
    model._penalty = None
    rng = np.random.default_rng(model.options.seed)
    weights = model.weights
    totals = np.zeros(len(weights), dtype=np.float64)  # Σ c·update, for averaging (Daumé's trick)
    step = 1
    order: np.ndarray = np.arange(len(sentences))
    cache: dict[int, tuple] = {}
    cached_bytes = 0
    started = time.perf_counter()
    for epoch in range(1, model.options.epochs + 1):
        rng.shuffle(order)
        errors = words = 0
        for count, k in enumerate(order, start=1):
            tokens, heads, labels = sentences[k]
            kept = cache.get(k)
            scores = Scores(*kept) if kept else model.features(tokens)
            if not kept and cached_bytes + scores.nbytes() <= cache_bytes:
                cache[k] = (scores.arc_index, scores.label_index, scores.sibling_index)
                cached_bytes += scores.nbytes()
            model.score(tokens, scores, weights)
            predicted, _ = decode(model.options, scores.arc, scores.sibling)
            predicted_labels = scores.best_label[predicted[1:], np.arange(1, len(tokens))]
            wrong = int(np.count_nonzero((predicted[1:] != heads[1:]) | (predicted_labels != labels[1:])))
            errors += wrong
            words += len(tokens) - 1
            if wrong:
                gold = active_features(model, scores, heads, labels)
                guess = active_features(model, scores, predicted, np.concatenate([[-1], predicted_labels]))
                perceptron_update(weights, totals, gold, guess, step)
            step += 1
            if count % 2000 == 0:
                elapsed = time.perf_counter() - started
                log(f"  epoch {epoch}: {count}/{len(order)} sentences, {elapsed:.0f} s")
        log(f"epoch {epoch}/{model.options.epochs}: training LAS {100 * (1 - errors / max(words, 1)):.2f} "
            f"({time.perf_counter() - started:.0f} s; features of {len(cache)} sentences kept, "
            f"{cached_bytes / 2**20:.0f} MB)")
    model.weights = (weights - totals / step).astype(np.float32)
