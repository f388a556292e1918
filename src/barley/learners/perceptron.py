"""Averaged multiclass perceptron (Collins 2002), online, over sparse binary features.

One pass per epoch over the instances in a seeded random order; a mistake adds the
instance's features to the gold class and subtracts them from the predicted one.
The averaged weights are kept with the usual lazy trick: alongside the weights W,
U accumulates each update multiplied by its time step c, and the average after
the last step is W - U / c. Scoring is the same gather-and-sum as the linear learner.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from barley.learners import UNSEEN, weight_sums


class PerceptronLearner:
    name = "perceptron"

    def __init__(self, epochs: int = 5):
        self.epochs = epochs
        self.n_classes = 0
        self.classes = np.zeros(0, dtype=np.int64)
        self.weights = np.zeros((1, 0), dtype=np.float32)

    def fit(self, X: sp.csr_matrix, y: np.ndarray, n_classes: int, seed: int = 0,
            split_values=None, log=None) -> None:
        self.n_classes = n_classes
        self.classes, gold = np.unique(y, return_inverse=True)
        weights = np.zeros((X.shape[1] + 1, len(self.classes)), dtype=np.float64)
        if len(self.classes) < 2:
            self.weights = weights.astype(np.float32)
            return
        totals = np.zeros_like(weights)
        indptr, indices = X.indptr, X.indices
        rng = np.random.default_rng(seed)
        step = 1
        for epoch in range(self.epochs):
            mistakes = 0
            for i in rng.permutation(X.shape[0]).tolist():
                features = indices[indptr[i]:indptr[i + 1]]
                predicted = int(weights[features].sum(axis=0).argmax())
                right = int(gold[i])
                if predicted != right:
                    weights[features, right] += 1.0
                    weights[features, predicted] -= 1.0
                    totals[features, right] += step
                    totals[features, predicted] -= step
                    mistakes += 1
                step += 1
            if log:
                log(f"  perceptron epoch {epoch + 1}/{self.epochs}: {mistakes} mistakes "
                    f"({100.0 * mistakes / max(X.shape[0], 1):.2f}%)")
        totals /= step  # in place: the weight matrices are the big arrays here (memory)
        weights -= totals
        del totals
        self.weights = weights.astype(np.float32)
        self.weights[-1] = 0.0

    def scores(self, ids: np.ndarray, split_values=None) -> np.ndarray:
        out = np.full((len(ids), self.n_classes), UNSEEN, dtype=np.float32)
        out[:, self.classes] = weight_sums(self.weights, ids)
        return out

    def used_features(self) -> np.ndarray:
        return (self.weights[:-1] != 0).any(axis=1)

    def keep_features(self, keep: np.ndarray) -> None:
        self.weights = np.vstack([self.weights[:-1][keep], self.weights[-1:]])

    def to_arrays(self) -> tuple[dict, dict[str, np.ndarray]]:
        return {"epochs": self.epochs, "n_classes": self.n_classes}, {"weights": self.weights, "classes": self.classes}

    @classmethod
    def from_arrays(cls, params: dict, arrays: dict[str, np.ndarray]) -> PerceptronLearner:
        learner = cls(params["epochs"])
        learner.n_classes = params["n_classes"]
        learner.classes = arrays["classes"].astype(np.int64)
        learner.weights = arrays["weights"].astype(np.float32, copy=False)
        return learner
