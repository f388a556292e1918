"""Classifiers that approximate the oracle: from sparse binary features to transition scores.

Every learner has the same small interface:

* ``fit(X, y, n_classes, seed=0, split_values=None, log=None)``: ``X`` a CSR matrix
  of binary features (instances × F), ``y`` the class id of each instance (a
  (move, label) pair of the parser);
* ``scores(ids, split_values=None)``: ``ids`` an int array (batch × slots) of
  feature ids, where the id ``F`` (one past the last feature) means "no feature";
  returns a float32 array (batch × n_classes), higher is better, :data:`UNSEEN`
  for classes the classifier never saw (so a legal move always outranks them
  only if it was seen, and nothing is ever -inf);
* ``to_arrays()`` / ``from_arrays(params, arrays)``: plain numpy arrays and JSON
  parameters for the model file (no pickle);
* optionally ``used_features()`` / ``keep_features(mask)``: linear models drop the
  features whose weights are all zero after training (smaller, faster models).

:class:`SplitLearner` wraps any learner with MaltParser's data split: one
classifier per value of one feature (e.g. the part of speech of Input[0]),
instances of rare values pooled into a default classifier (Nivre 2008 §6.1).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from barley.errors import BarleyError

LEARNERS = {
    "linear": "linear:LinearLearner",
    "svm-poly2": "kernel_svm:PolySVMLearner",
    "perceptron": "perceptron:PerceptronLearner",
}


UNSEEN = -1e9
"""Score of a class absent from the training instances of a classifier."""


def learner_class(name: str):
    import importlib

    if name not in LEARNERS:
        raise BarleyError(f"unknown learner {name!r}", fix="choose one of: " + ", ".join(LEARNERS))
    module, _, cls = LEARNERS[name].partition(":")
    return getattr(importlib.import_module(f"barley.learners.{module}"), cls)


def make_learner(name: str, **params):
    return learner_class(name)(**params)


def rows_to_csr(ids: np.ndarray, n_features: int) -> sp.csr_matrix:
    """Binary CSR matrix from feature-id rows (entries equal to ``n_features`` are dropped)."""
    present = ids < n_features
    counts = present.sum(axis=1)
    indptr = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    indices = ids[present].astype(np.int32)
    data = np.ones(len(indices), dtype=np.float64)
    matrix = sp.csr_matrix((data, indices, indptr), shape=(len(ids), n_features))
    matrix.sum_duplicates()
    matrix.data[:] = 1.0
    return matrix


class SplitLearner:
    """One classifier per value of a split feature; rare values share a default classifier.

    ``split_values`` (one int per instance, given to :meth:`fit` and :meth:`scores`)
    are the values of the split feature. Each part is trained on the features its
    own instances use (its columns), so parts stay small.
    """

    name = "split"

    def __init__(self, base: str, threshold: int = 1000, **params):
        self.base, self.threshold, self.params = base, threshold, params
        self.values = np.zeros(0, dtype=np.int64)  # split value of each part; part 0 is the default
        self.parts: list = []
        self.columns: list[np.ndarray] = []
        self.n_classes = 0

    def fit(self, X: sp.csr_matrix, y: np.ndarray, n_classes: int, seed: int = 0,
            split_values: np.ndarray | None = None, log=None) -> None:
        self.n_classes = n_classes
        values, counts = np.unique(split_values, return_counts=True)
        large = values[counts >= self.threshold]
        in_default = ~np.isin(split_values, large)
        groups = [(-1, in_default)] + [(int(v), split_values == v) for v in large]
        self.values = np.array([v for v, _ in groups], dtype=np.int64)
        self.parts, self.columns = [], []
        for number, (value, chosen) in enumerate(groups):
            part_X = X[chosen]
            columns = np.unique(part_X.indices).astype(np.int64)
            local = part_X[:, columns] if len(columns) else part_X[:, :0]
            learner = make_learner(self.base, **self.params)
            if log:
                log(f"  part {number + 1}/{len(groups)} (split value {value}): "
                    f"{int(chosen.sum())} instances, {len(columns)} features")
            local = local.tocsr()
            local.sort_indices()  # LIBSVM merges sparse rows assuming sorted indices
            learner.fit(local, y[chosen], n_classes, seed=seed)
            self.parts.append(learner)
            self.columns.append(columns)

    def scores(self, ids: np.ndarray, split_values: np.ndarray | None = None) -> np.ndarray:
        out = np.empty((len(ids), self.n_classes), dtype=np.float32)
        part_of = np.zeros(len(ids), dtype=np.int64)
        for number, value in enumerate(self.values[1:], start=1):
            part_of[split_values == value] = number
        for number, (learner, columns) in enumerate(zip(self.parts, self.columns)):
            chosen = part_of == number
            if not chosen.any():
                continue
            part_ids = ids[chosen]
            if len(columns):
                at = np.minimum(np.searchsorted(columns, part_ids), len(columns) - 1)
                local = np.where(columns[at] == part_ids, at, len(columns))
            else:
                local = np.zeros_like(part_ids)
            out[chosen] = learner.scores(local)
        return out

    def to_arrays(self) -> tuple[dict, dict[str, np.ndarray]]:
        params = {"base": self.base, "threshold": self.threshold, "base_params": self.params,
                  "n_classes": self.n_classes, "parts": []}
        arrays = {"split.values": self.values}
        for number, (learner, columns) in enumerate(zip(self.parts, self.columns)):
            part_params, part_arrays = learner.to_arrays()
            params["parts"].append(part_params)
            arrays[f"split.{number}.columns"] = columns
            arrays.update({f"split.{number}.{key}": value for key, value in part_arrays.items()})
        return params, arrays

    @classmethod
    def from_arrays(cls, params: dict, arrays: dict[str, np.ndarray]) -> SplitLearner:
        learner = cls(params["base"], params["threshold"], **params["base_params"])
        learner.n_classes = params["n_classes"]
        learner.values = arrays["split.values"]
        base = learner_class(params["base"])
        for number, part_params in enumerate(params["parts"]):
            prefix = f"split.{number}."
            part_arrays = {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}
            learner.columns.append(part_arrays.pop("columns"))
            learner.parts.append(base.from_arrays(part_params, part_arrays))
        return learner


__all__ = ["LEARNERS", "learner_class", "make_learner", "rows_to_csr", "SplitLearner", "UNSEEN"]
