"""The head model: how likely a word's head is right, from more than its own probability.

A parser's ``HeadProb`` (:mod:`barley.confidence`) ranks its head errors well when it comes
from a distribution over heads (the joint network on EWT test: AUROC 0.88) and less well
when it is a greedy transition parser's product of move probabilities (arc-eager 0.72,
arc-hybrid 0.77): a move's probability does not see the mistakes made before it. What
does, in part, is the tree around the word: how sure the parser was of the word's head's
own head, of the words beside it and of the sentence, how far the head is, which relation
and which parts of speech are involved. The head model is a logistic regression over
those (:data:`FEATURES`, :func:`features`) predicting whether the head is right, fitted
by ``barley calibrate`` on held-out words after the temperature (:func:`fit`) and stored in
the model's calibration, weights and bias only (the features are this module's, named by
:data:`FEATURE_SET`): a post-hoc error predictor, the task of Mejer & Crammer 2012 ("Are
you sure? Confidence in prediction of dependency tree edges", NAACL).
Its probability then goes through the monotone head map as the parser's own would.

Tried on EWT with the bare arc-hybrid parser, fitted on dev, measured on test: AUROC 0.761
(the parser's own) → 0.830 (word, relation and distance alone) → 0.860 (with the context
and the thresholds below).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import numpy as np

FEATURE_SET = "barley-head-1"
"""The name of the features :func:`features` computes, stored with the weights: a model whose
head model was fitted on other features is refused at load."""

UPOS_TAGS = ("ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN", "PUNCT",
             "SCONJ", "SYM", "VERB", "X")
RELATIONS = ("acl", "advcl", "advmod", "amod", "appos", "aux", "case", "cc", "ccomp", "clf", "compound", "conj", "cop",
             "csubj", "dep", "det", "discourse", "dislocated", "expl", "fixed", "flat", "goeswith", "iobj", "list",
             "mark", "nmod", "nsubj", "nummod", "obj", "obl", "orphan", "parataxis", "punct", "reparandum", "root",
             "vocative", "xcomp")
"""UD's universal relations (a DEPREL's part before the colon); any other sets none of their features."""
THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)
"""``HeadProb`` below each: a step function the regression can bend its one-variable part with."""
DISTANCES = 6
"""Distance classes: root, 1, 2, 3–4, 5–8, 9 and more."""
NUMBERS = ("log p", "log q", "log(1 + distance)", "root", "head to the right", "log length",
           "log p of the head", "log p of the word before", "log p of the word after", "mean log p of the sentence",
           "least log p of the sentence", "the head's dependents", "log q of the head", "words with p < 0.9",
           "(log p)²", "(log q)²", "log p · log q", "(log p of the head)²")
FEATURES = (len(NUMBERS) + len(THRESHOLDS) + 2 * len(UPOS_TAGS) + DISTANCES + len(RELATIONS))
"""How many features a word has: the numbers (p = HeadProb, q = DeprelProb at the temperature), the
thresholds, its UPOS and its head's, its distance class, its relation."""
FLOOR = 1e-6
"""Probabilities are taken at least this before their logarithm."""


def features(sentences: Sequence, head: np.ndarray, deprel: np.ndarray) -> np.ndarray:
    """``[words, FEATURES]``: each word of ``sentences`` (parsed: HEAD, DEPREL and UPOS set), one after
    the other as ``head`` and ``deprel`` (their HeadProb and DeprelProb) are."""
    dense, classes = _columns(sentences, head, deprel)
    return np.hstack([dense] + [_one_hot(index, size) for index, size in zip(classes.T, CLASSES)])


CLASSES = (len(UPOS_TAGS), len(UPOS_TAGS), DISTANCES, len(RELATIONS))
"""The sizes of the one-hot features after the numbers and thresholds: UPOS, the head's UPOS, the
distance class, the relation."""
UPOS_INDEX = {tag: k for k, tag in enumerate(UPOS_TAGS)}
RELATION_INDEX = {relation: k for k, relation in enumerate(RELATIONS)}


def _columns(sentences: Sequence, head: np.ndarray, deprel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The words' numbers and thresholds ``[words, len(NUMBERS) + len(THRESHOLDS)]``, and their classes
    ``[words, 4]`` (:data:`CLASSES`; -1: none)."""
    lengths = np.array([len(sentence) for sentence in sentences], dtype=np.int64)
    upos_of, relation_of = UPOS_INDEX.get, RELATION_INDEX.get
    rows = [(int(word[6]), upos_of(word[3], -1), relation_of(word[7].partition(":")[0], -1))
            for sentence in sentences for word in sentence.words]
    if not rows:
        return np.zeros((0, len(NUMBERS) + len(THRESHOLDS))), np.zeros((0, len(CLASSES)), dtype=np.int64)
    heads, upos, relation = np.array(rows, dtype=np.int64).T
    count = len(heads)
    starts = np.r_[0, np.cumsum(lengths)[:-1]]
    p = np.log(np.maximum(np.asarray(head, dtype=np.float64), FLOOR))
    q = np.log(np.maximum(np.asarray(deprel, dtype=np.float64), FLOOR))
    sentence_of = np.repeat(np.arange(len(sentences)), lengths)
    position = np.arange(count) - starts[sentence_of] + 1  # 1..n within its sentence
    is_root = heads == 0
    head_row = np.where(is_root, 0, starts[sentence_of] + heads - 1)
    first, last = position == 1, position == lengths[sentence_of]
    before = np.where(first, 0.0, p[np.maximum(np.arange(count) - 1, 0)])
    after = np.where(last, 0.0, p[np.minimum(np.arange(count) + 1, count - 1)])
    head_p = np.where(is_root, 0.0, p[head_row])
    head_q = np.where(is_root, 0.0, q[head_row])
    distance = np.where(is_root, 0, np.abs(position - heads))
    _, group, siblings = np.unique(sentence_of * (lengths.max() + 1) + heads, return_inverse=True, return_counts=True)
    unsure = np.add.reduceat((p < math.log(0.9)).astype(np.float64), starts)[sentence_of]
    dense = np.column_stack([
        p, q, np.log1p(distance), is_root, heads > position, np.log(lengths[sentence_of]),
        head_p, before, after, (np.add.reduceat(p, starts) / lengths)[sentence_of],
        np.minimum.reduceat(p, starts)[sentence_of], siblings[group], head_q, unsure,
        p ** 2, q ** 2, p * q, head_p ** 2, p[:, None] < np.log(THRESHOLDS)[None, :]]).astype(np.float64)
    distance_class = np.select([distance == 0, distance == 1, distance == 2, distance <= 4, distance <= 8],
                               [0, 1, 2, 3, 4], 5)
    return dense, np.column_stack([upos, np.where(is_root, -1, upos[head_row]), distance_class, relation])


def _one_hot(index: np.ndarray, size: int) -> np.ndarray:
    """Rows of ``size`` zeros with a one at ``index`` (none where it is -1)."""
    rows = np.zeros((len(index), size))
    known = index >= 0
    rows[np.flatnonzero(known), index[known]] = 1.0
    return rows


class HeadModel:
    """P(the head is right) = σ(features · weights + bias)."""

    def __init__(self, weights: Sequence[float], bias: float):
        self.weights, self.bias = np.asarray(weights, dtype=np.float64), float(bias)

    def __call__(self, sentences: Sequence, head: np.ndarray, deprel: np.ndarray) -> np.ndarray:
        """``features(...) @ weights``, the one-hot parts as the weights they pick (the same sum)."""
        dense, classes = _columns(sentences, head, deprel)
        logit = dense @ self.weights[:dense.shape[1]] + self.bias
        offset = dense.shape[1]
        for index, size in zip(classes.T, CLASSES):
            logit += np.where(index >= 0, self.weights[offset + np.maximum(index, 0)], 0.0)
            offset += size
        return 1.0 / (1.0 + np.exp(-logit))

    def to_json(self) -> dict:
        return {"features": FEATURE_SET, "weights": [float(w) for w in self.weights], "bias": self.bias}

    @classmethod
    def from_json(cls, entry: object) -> HeadModel:
        """The head model a calibration stores (:meth:`to_json`); anything else is a ValueError."""
        if not isinstance(entry, dict) or entry.get("features") != FEATURE_SET:
            raise ValueError(f"the head model is not one over this barley's features ({FEATURE_SET})")
        weights, bias = entry.get("weights"), entry.get("bias")
        if not isinstance(weights, list) or len(weights) != FEATURES or not all(
                isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w) for w in [*weights, bias]):
            raise ValueError(f"the head model's weights are not {FEATURES} finite numbers and a bias")
        return cls(weights, cast(float, bias))


def fit(sentences: Sequence, head: np.ndarray, deprel: np.ndarray, correct: np.ndarray) -> HeadModel:
    """The head model of held-out ``sentences`` parsed, their words' probabilities and whether each head
    is right: scikit-learn's logistic regression (L2, C = 0.1, lbfgs: deterministic) on the features
    standardised, the standardisation then folded into the weights."""
    from sklearn.linear_model import LogisticRegression

    table = features(sentences, head, deprel)
    mean, scale = table.mean(axis=0), table.std(axis=0)
    scale[scale == 0] = 1.0
    found = LogisticRegression(C=0.1, max_iter=5000).fit((table - mean) / scale, np.asarray(correct, dtype=bool))
    weights = found.coef_[0] / scale
    return HeadModel(weights, float(found.intercept_[0] - (weights * mean).sum()))
