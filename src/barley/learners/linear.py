"""Multiclass linear classifier over sparse binary features, trained with liblinear.

MaltParser's default learner since 1.3 is liblinear (its ``-s 4``, the
Crammer-Singer multiclass SVM, C = 0.1, ε = 0.1); here scikit-learn's bindings of the
same library do the training: ``LinearSVC`` (one-vs-rest or Crammer-Singer) or
``LogisticRegression(solver="liblinear")``. Only the weights are kept: a float32
matrix with one row per feature (plus a zero row for "no feature") and one column
per class seen in training, so that scoring a batch is one gather and one sum.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from barley.errors import BarleyError
from barley.learners import UNSEEN, weight_sums
from barley.models import check

if TYPE_CHECKING:  # scipy is imported where a sparse matrix is built: not at start-up
    import scipy.sparse as sp

SOLVERS = ("crammer-singer", "svm", "logistic")
FILL_BLOCK = 1 << 16
"""Weights placed at a time when the dense matrix is rebuilt on loading (bounds the index copies)."""
ARRAYS = {
    "classes": check.Array("int", ("width",), low=0, high="n_classes", order="increasing"),
    "bias": check.Array("float", ("width",)),
    "weight_rows": check.Array("int", ("weights",), low=0, high="n_features"),  # never the "none" row
    "weight_columns": check.Array("int", ("weights",), low=0, high="width"),
    "weight_values": check.Array("float", ("weights",)),
}
"""What :meth:`LinearLearner.to_arrays` writes: the class of each column, its bias, and the
non-zero weights as (row, column, value) triples (:mod:`barley.models.check`)."""


class LinearLearner:
    name = "linear"

    def __init__(self, solver: str = "crammer-singer", C: float = 0.1, tol: float = 0.1):
        if solver not in SOLVERS:
            raise BarleyError(f"unknown linear solver {solver!r}", fix="choose one of: " + ", ".join(SOLVERS))
        self.solver, self.C, self.tol = solver, C, tol
        self.n_classes = 0
        self.classes = np.zeros(0, dtype=np.int64)  # the class ids seen in training: one column each
        self._weights: np.ndarray | None = np.zeros((1, 0), dtype=np.float32)  # (features + 1, seen classes)
        self.bias = np.zeros(0, dtype=np.float32)
        # a loaded model's (features, rows, columns, values), until densified
        self._stored: tuple[int, np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def weights(self) -> np.ndarray:
        """The dense matrix, built from a loaded model's stored non-zero weights on first use:
        the compiled loop reads those alone (:meth:`sparse_rows`), so that parsing never holds
        the dense matrix (115 MB for an EWT arc-eager model, 4.7 % of it non-zero)."""
        if self._weights is None:
            assert self._stored is not None  # one of the two is always there
            self._weights = _dense(*self._stored, len(self.classes))
        return self._weights

    @weights.setter
    def weights(self, value: np.ndarray | None) -> None:
        self._weights = value

    @property
    def n_features(self) -> int:
        if self._weights is None:
            assert self._stored is not None
            return self._stored[0]
        return self._weights.shape[0] - 1

    def sparse_rows(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(starts, entries)`` as ``barley.transition.fast._loop.sparse_rows`` makes them from the dense
        matrix, read straight from the stored arrays (written row by row, columns ascending,
        by ``np.nonzero``); None once the dense matrix exists."""
        if self._weights is not None or self._stored is None:
            return None
        n_features, rows, columns, values = self._stored
        starts = np.zeros(n_features + 2, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=n_features + 1), out=starts[1:])
        entries = np.empty((len(values), 2), dtype=np.int32)
        entries[:, 0] = columns
        entries[:, 1] = np.ascontiguousarray(values, dtype=np.float32).view(np.int32)
        return starts, entries.reshape(-1)

    def _estimator(self, seed: int):
        from sklearn.linear_model import LogisticRegression
        from sklearn.multiclass import OneVsRestClassifier
        from sklearn.svm import LinearSVC

        if self.solver == "logistic":  # liblinear's logistic regression is binary: one versus rest
            return OneVsRestClassifier(LogisticRegression(solver="liblinear", C=self.C, tol=self.tol,
                                                          random_state=seed))
        multi_class = "crammer_singer" if self.solver == "crammer-singer" else "ovr"
        return LinearSVC(C=self.C, tol=self.tol, multi_class=multi_class, random_state=seed, max_iter=1000)

    def fit(self, X: sp.csr_matrix, y: np.ndarray, n_classes: int, seed: int = 0, log=None) -> None:
        self.n_classes = n_classes
        self.classes = np.unique(y).astype(np.int64)
        self.bias = np.zeros(len(self.classes), dtype=np.float32)
        if len(self.classes) < 2:  # nothing to learn: the one class seen (if any) always wins
            self.weights = np.zeros((X.shape[1] + 1, len(self.classes)), dtype=np.float32)
            return
        estimator = self._estimator(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # liblinear's "did not converge" at tol=0.1 is expected
            estimator.fit(X, y)
        parts = getattr(estimator, "estimators_", [estimator])
        # allocated only now, so that liblinear's own copies and ours never coexist (memory)
        self.weights = np.zeros((X.shape[1] + 1, len(self.classes)), dtype=np.float32)
        coef = parts[0].coef_ if len(parts) == 1 else np.vstack([p.coef_ for p in parts])
        intercept = np.concatenate([np.asarray(p.intercept_, dtype=np.float32).reshape(-1) for p in parts])
        if len(self.classes) == 2:  # binary problems have one weight vector, for classes_[1]
            self.weights[:-1, 0] = -coef[0]
            self.weights[:-1, 1] = coef[0]
            intercept = np.concatenate([-intercept, intercept])
        else:
            self.weights[:-1] = coef.T  # straight into float32: no second float64 copy (memory)
        self.bias[:] = intercept

    def scores(self, ids: np.ndarray) -> np.ndarray:
        out = np.full((len(ids), self.n_classes), UNSEEN, dtype=np.float32)
        out[:, self.classes] = weight_sums(self.weights, ids) + self.bias
        return out

    def used_features(self) -> np.ndarray:
        """Which features have a non-zero weight (liblinear leaves most at zero)."""
        return (self.weights[:-1] != 0).any(axis=1)

    def keep_features(self, keep: np.ndarray) -> None:
        self.weights = np.vstack([self.weights[:-1][keep], self.weights[-1:]])

    def to_arrays(self) -> tuple[dict, dict[str, np.ndarray]]:
        # Stored sparse (most weights are zero), densified on loading for fast scoring.
        rows, columns = np.nonzero(self.weights)
        return ({"solver": self.solver, "C": self.C, "tol": self.tol, "n_classes": self.n_classes,
                 "n_features": self.n_features},
                {"weight_rows": rows.astype(np.int32), "weight_columns": columns.astype(np.int16),
                 "weight_values": self.weights[rows, columns], "bias": self.bias, "classes": self.classes})

    @classmethod
    def from_arrays(cls, params: dict, arrays: dict[str, np.ndarray], *, n_classes: int,
                    n_features: int) -> LinearLearner:
        """The learner of :meth:`to_arrays`, checked against what the model around it has: ``n_classes``
        classes (a parser's (move, label) pairs, a tagger's values) and ``n_features`` features."""
        params = dict(check.mapping(params, "the linear learner's parameters"))
        check.equal(params.pop("n_classes"), n_classes, "the linear learner's n_classes")
        check.equal(params.pop("n_features"), n_features, "the linear learner's n_features")
        check.arrays(arrays, ARRAYS, n_classes=n_classes, n_features=n_features)
        learner = cls(**params)
        learner.n_classes = n_classes
        learner.classes = arrays["classes"].astype(np.int64)
        stored = (n_features, arrays["weight_rows"], arrays["weight_columns"], arrays["weight_values"])
        in_order = bool(np.all(stored[1][1:] >= stored[1][:-1])) and bool(np.all(stored[3] != 0))
        learner.weights = None if in_order else _dense(*stored, len(learner.classes))
        learner._stored = stored if in_order else None
        learner.bias = arrays["bias"].astype(np.float32, copy=False)
        return learner


def _dense(n_features: int, rows: np.ndarray, columns: np.ndarray, values: np.ndarray, n_columns: int) -> np.ndarray:
    """The (features + 1) × columns float32 matrix of the stored non-zero weights."""
    weights = np.zeros((n_features + 1, n_columns), dtype=np.float32)
    flat = weights.reshape(-1)
    for start in range(0, len(values), FILL_BLOCK):  # a block at a time: no index copies of every weight
        at = rows[start:start + FILL_BLOCK].astype(np.int64) * n_columns
        at += columns[start:start + FILL_BLOCK]
        flat[at] = values[start:start + FILL_BLOCK]
    return weights
