"""Head probabilities from arc scores: the tree distribution's arc marginals, or a softmax per word.

A graph-based parser scores every arc; exponentiated, the scores define a distribution over
the dependency trees of the sentence, ``P(tree) ∝ exp(Σ score(h, d) / T)`` over its arcs.
The probability that word d's head is h under it — the arc's *marginal* — is what the
MST decoder's confidence is (:func:`tree_marginals`): by the matrix-tree theorem the sum
over all non-projective trees is a determinant of the graph's Laplacian, and the marginals
are derivatives of its logarithm, read off the Laplacian's inverse (Koo, Globerson,
Carreras and Collins 2007, "Structured prediction models via the matrix-tree theorem",
§3.1 for any number of root words, §3.3 for exactly one). For the projective decoders the
confidence is the softmax of each word's arc scores over its heads (:func:`head_softmax`),
the distribution a biaffine parser is trained on (Dozat and Manning 2017).

Both are tested against brute force: every tree of small sentences enumerated.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from barley.confidence import softmax


def tree_marginals(arc: np.ndarray, single_root: bool, temperature: float = 1.0) -> np.ndarray:
    """``P(h is d's head)`` for every ``arc[h, d]`` (scores over nodes 0..n, -inf where impossible;
    column 0 ignored) under the distribution over non-projective trees (one root word when
    ``single_root``). Column d ≥ 1 of the result sums to 1."""
    n = len(arc) - 1
    scores = np.asarray(arc, dtype=np.float64)[:, 1:] / temperature
    scores[1:][np.eye(n, dtype=bool)] = -np.inf
    # Every tree has one arc into each word: shifting a word's scores by a constant scales every
    # tree's weight alike, and makes the best arc into each word weigh 1 (no overflow, no underflow).
    best = scores.max(axis=0)
    if not np.isfinite(best).all():
        raise ValueError(f"word {int(np.argmin(np.isfinite(best))) + 1} has no possible head")
    weight = np.exp(scores - best)
    root, words = weight[0], weight[1:]            # root[d], words[h, d] over words 0..n-1
    laplacian = np.diag(words.sum(axis=0)) - words
    if single_root:                                # §3.3: the first row holds the root's arcs
        laplacian[0] = root
    else:                                          # §3.1: the root's arc into d adds to d's diagonal
        laplacian[np.diag_indices(n)] += root
    inverse = np.linalg.inv(laplacian)
    marginals = np.zeros((n + 1, n + 1))
    diagonal = np.diag(inverse)
    if single_root:
        marginals[0, 1:] = root * inverse[:, 0]
        not_first = np.arange(n) != 0
        # ∂ log det / ∂ words[h, d] = [d ≠ 0] inverse[d, d] - [h ≠ 0] inverse[d, h]
        marginals[1:, 1:] = words * (not_first[None, :] * diagonal[None, :] - not_first[:, None] * inverse.T)
    else:
        marginals[0, 1:] = root * diagonal
        marginals[1:, 1:] = words * (diagonal[None, :] - inverse.T)
    return np.clip(marginals, 0.0, 1.0)


def head_softmax(arc: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """``P(h is d's head)`` as the softmax of word d's arc scores ``arc[:, d]`` over its heads (d ≥ 1)."""
    probabilities = np.zeros(arc.shape)
    probabilities[:, 1:] = softmax(arc[:, 1:], temperature, axis=0)
    return probabilities


def head_probabilities(decoder: str, arc: np.ndarray, heads: np.ndarray, single_root: bool,
                       temperature: float) -> np.ndarray:
    """The probability of each word's chosen head (``heads[1:]``): the tree marginals for the MST
    decoder, the softmax over heads for the others — and for a sentence whose tree distribution
    floating point cannot hold (the best arcs form a cycle and every other weight underflows to 0:
    a singular Laplacian, or non-finite marginals from absurd scores)."""
    table = None
    if decoder == "mst":
        try:
            table = tree_marginals(arc, single_root, temperature)
        except np.linalg.LinAlgError:
            pass
    if table is None or not np.isfinite(table).all():
        table = head_softmax(arc, temperature)
    return table[heads[1:], np.arange(1, len(heads))]


@dataclass
class ArcEvidence:
    """What a graph-based or biaffine parser keeps of a batch for confidence (:meth:`__call__`):
    per sentence the arc scores ``[head, dependent]`` it decoded (-inf where impossible) and the
    heads it chose; per word (the sentences' words one after the other) the scores of every
    label at its chosen head and the label chosen — or, where the parser keeps no label scores,
    the label probabilities themselves (``deprel``, computed at the model's temperature)."""

    decoder: str
    single_root: bool
    arcs: list[np.ndarray]
    heads: list[np.ndarray]
    label_scores: np.ndarray | None
    labels: np.ndarray
    deprel: np.ndarray | None = None

    def __call__(self, temperature: float) -> tuple[np.ndarray, np.ndarray]:
        if not self.arcs:
            return np.zeros(0), np.zeros(0)
        head = np.concatenate([head_probabilities(self.decoder, arc, heads, self.single_root, temperature)
                               for arc, heads in zip(self.arcs, self.heads)])
        if self.deprel is not None:
            return head, self.deprel
        assert self.label_scores is not None  # a parser keeps the label scores or their probabilities
        return head, softmax(self.label_scores, temperature)[np.arange(len(self.labels)), self.labels]
