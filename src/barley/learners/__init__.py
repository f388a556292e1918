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

from collections.abc import Iterable

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


def rows_to_csr(ids: np.ndarray | Iterable[np.ndarray], n_features: int) -> sp.csr_matrix:
    """Binary CSR matrix (float64 values, int32 sorted indices) from feature-id rows.

    ``ids``: one (rows × slots) array or consecutive chunks of rows; entries equal to
    ``n_features`` mean "no feature" and are dropped, as are repeats within a row.
    Built directly, chunk by chunk, without a COO or dense intermediate (memory).
    """
    counts, indices = [], []
    for chunk in [ids] if isinstance(ids, np.ndarray) else ids:
        chunk = np.sort(np.minimum(chunk, n_features).astype(np.int32), axis=1)  # "none" sorts last
        if chunk.shape[1] > 1:
            chunk[:, 1:][chunk[:, 1:] == chunk[:, :-1]] = n_features  # repeats would count twice
        present = chunk < n_features
        counts.append(present.sum(axis=1))
        indices.append(chunk[present])
    indptr = np.zeros(sum(len(c) for c in counts) + 1, dtype=np.int64)
    np.cumsum(np.concatenate(counts), out=indptr[1:])
    all_indices = np.concatenate(indices) if indices else np.zeros(0, dtype=np.int32)
    if indptr[-1] < np.iinfo(np.int32).max:
        indptr = indptr.astype(np.int32)
    matrix = sp.csr_matrix((np.ones(len(all_indices)), all_indices, indptr), shape=(len(indptr) - 1, n_features))
    matrix.has_sorted_indices = True
    return matrix


def weight_sums(weights: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``weights[ids].sum(axis=1)``: each row of ``ids`` (batch × slots) summed over its weight rows.

    Computed as a sparse product (one CSR row of ones per instance), which reads each
    weight row once without materialising the (batch × slots × classes) gather.
    """
    batch, slots = ids.shape
    indicator = sp.csr_matrix((np.ones(ids.size, dtype=weights.dtype), ids.ravel(),
                               np.arange(0, ids.size + 1, max(slots, 1))), shape=(batch, len(weights)))
    return indicator @ weights


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


__all__ = ["LEARNERS", "learner_class", "make_learner", "rows_to_csr", "weight_sums", "SplitLearner", "UNSEEN"]
