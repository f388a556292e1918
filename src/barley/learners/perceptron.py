"""Averaged multiclass perceptron (Collins 2002), online, over sparse binary features.

One pass per epoch over the instances in a seeded random order; a mistake adds the
instance's features to the gold class and subtracts them from the predicted one.
The averaged weights are kept with the usual lazy trick: alongside the weights W,
U accumulates each update multiplied by its time step c, and the average after
the last step is W - U / c. Scoring is the same gather-and-sum as the linear learner.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from barley.learners import UNSEEN, weight_sums
from barley.models import check

if TYPE_CHECKING:  # scipy is imported where a sparse matrix is built: not at start-up
    import scipy.sparse as sp


ARRAYS = {
    "classes": check.Array("int", ("width",), low=0, high="n_classes", order="increasing"),
    "weights": check.Array("float", ("rows", "width")),
}
"""What :meth:`PerceptronLearner.to_arrays` writes (:mod:`barley.models.check`): one weight row per
feature and the zero row of "no feature", one column per class seen."""


class AveragedWeights:
    """The online core of the averaged perceptron: weights (features + "none" row × classes)
    and the lazy average. Training by exploration (:mod:`barley.transition.training`) drives it
    step by step; :meth:`PerceptronLearner.fit` over a fixed set of instances."""

    def __init__(self, n_features: int, n_classes: int):
        self.weights = np.zeros((n_features + 1, n_classes), dtype=np.float64)
        self.totals = np.zeros_like(self.weights)
        self.step = 1

    def scores(self, features: np.ndarray) -> np.ndarray:
        return self.weights[features].sum(axis=0)

    def update(self, features: np.ndarray, right: int, wrong: int) -> None:
        """Towards class ``right`` and away from ``wrong`` on ``features`` (no repeats)."""
        self.weights[features, right] += 1.0
        self.weights[features, wrong] -= 1.0
        self.totals[features, right] += self.step
        self.totals[features, wrong] -= self.step

    def add(self, rows: np.ndarray, classes: np.ndarray, amounts: np.ndarray) -> None:
        """Add ``amounts`` to the weights of the (feature ``rows``, ``classes``) pairs, repeats summed
        and the "none" row left out: the structured perceptron's update (:mod:`barley.transition.global_training`)."""
        keep = rows < len(self.weights) - 1
        rows, classes, amounts = rows[keep], classes[keep], amounts[keep]
        np.add.at(self.weights, (rows, classes), amounts)
        np.add.at(self.totals, (rows, classes), amounts * self.step)

    def grow(self, rows: np.ndarray, n_features: int) -> None:
        """Renumber the features to ``n_features`` new ones, old feature f becoming ``rows[f]``;
        the new ones start at zero ("none" stays the last row)."""
        for name in ("weights", "totals"):
            old = getattr(self, name)
            new = np.zeros((n_features + 1, old.shape[1]), dtype=old.dtype)
            new[rows] = old[:-1]
            new[-1] = old[-1]
            setattr(self, name, new)

    def averaged(self) -> np.ndarray:
        """The averaged weights (float32, "none" row zero); the online state is spent."""
        self.totals /= self.step  # in place: the weight matrices are the big arrays here (memory)
        self.weights -= self.totals
        self.totals = np.zeros((0, 0))  # spent: its memory freed
        weights = self.weights.astype(np.float32)
        weights[-1] = 0.0
        return weights


class PerceptronLearner:
    name = "perceptron"

    def __init__(self, epochs: int = 5):
        self.epochs = epochs
        self.n_classes = 0
        self.classes = np.zeros(0, dtype=np.int64)
        self.weights = np.zeros((1, 0), dtype=np.float32)

    def fit(self, X: sp.csr_matrix, y: np.ndarray, n_classes: int, seed: int = 0, log=None) -> None:
        self.n_classes = n_classes
        self.classes, gold = np.unique(y, return_inverse=True)
        online = AveragedWeights(X.shape[1], len(self.classes))
        if len(self.classes) < 2:
            self.weights = online.weights.astype(np.float32)
            return
        indptr, indices = X.indptr, X.indices
        rng = np.random.default_rng(seed)
        for epoch in range(self.epochs):
            mistakes = 0
            for i in rng.permutation(X.shape[0]).tolist():
                features = indices[indptr[i]:indptr[i + 1]]
                predicted = int(online.scores(features).argmax())
                right = int(gold[i])
                if predicted != right:
                    online.update(features, right, predicted)
                    mistakes += 1
                online.step += 1
            if log:
                log(f"  perceptron epoch {epoch + 1}/{self.epochs}: {mistakes} mistakes "
                    f"({100.0 * mistakes / max(X.shape[0], 1):.2f}%)")
        self.weights = online.averaged()

    @classmethod
    def from_weights(cls, epochs: int, n_classes: int, classes: np.ndarray, weights: np.ndarray) -> PerceptronLearner:
        """A learner trained elsewhere (by exploration): ``weights`` over ``classes``."""
        learner = cls(epochs)
        learner.n_classes, learner.classes, learner.weights = n_classes, classes.astype(np.int64), weights
        return learner

    def scores(self, ids: np.ndarray) -> np.ndarray:
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
    def from_arrays(cls, params: dict, arrays: dict[str, np.ndarray], *, n_classes: int,
                    n_features: int) -> PerceptronLearner:
        """The learner of :meth:`to_arrays`, checked against the model's ``n_classes`` and ``n_features``."""
        check.mapping(params, "the perceptron's parameters")
        check.equal(params["n_classes"], n_classes, "the perceptron's n_classes")
        check.arrays(arrays, ARRAYS, n_classes=n_classes, rows=n_features + 1)
        if len(arrays["weights"]) and np.any(arrays["weights"][-1]):
            check.fail(f"{check.array_name(arrays, 'weights')}: its last row (no feature) is not zero")
        return cls.from_weights(check.integer(params["epochs"], "the perceptron's epochs", low=1), n_classes,
                                arrays["classes"], arrays["weights"].astype(np.float32, copy=False))
