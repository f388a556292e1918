"""Classifiers that approximate the oracle: from sparse binary features to transition scores.

Every learner has the same small interface:

* ``fit(X, y, n_classes, seed=0, log=None)``: ``X`` a CSR matrix
  of binary features (instances × F), ``y`` the class id of each instance (a
  (move, label) pair of the parser);
* ``scores(ids)``: ``ids`` an int array (batch × slots) of
  feature ids, where the id ``F`` (one past the last feature) means "no feature";
  returns a float32 array (batch × n_classes), higher is better, :data:`UNSEEN`
  for classes the classifier never saw (so a legal move always outranks them
  only if it was seen, and nothing is ever -inf);
* ``to_arrays()`` / ``from_arrays(params, arrays, n_classes=, n_features=)``: plain numpy
  arrays and JSON parameters for the model file (no pickle); loading checks them
  (:mod:`barley.models.check`) against the classes and features of the model around the
  learner, before anything is built from them;
* optionally ``used_features()`` / ``keep_features(mask)``: linear models drop the
  features whose weights are all zero after training (smaller, faster models).

:class:`SplitLearner` wraps any learner with MaltParser's data split: one
classifier per value of one feature (e.g. the part of speech of Input[0]),
instances of rare values pooled into a default classifier (Nivre 2008 §6.1). It alone
takes the split feature's values, one per instance: ``fit(..., split_values=...)`` and
``scores(ids, split_values)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from barley.errors import BarleyError
from barley.models import check
from barley.registry import Registry

if TYPE_CHECKING:  # scipy is imported where a sparse matrix is built: not at start-up
    import scipy.sparse as sp

LEARNERS: Registry[type] = Registry("learner", "barley.learners", {
    "linear": "barley.learners.linear:LinearLearner",
    "svm-poly2": "barley.learners.kernel_svm:PolySVMLearner",
    "perceptron": "barley.learners.perceptron:PerceptronLearner",
})
"""The learners by name (:mod:`barley.registry`)."""


UNSEEN = -1e9
"""Score of a class absent from the training instances of a classifier."""

STACK_BLOCK = 4096
"""Rows copied at a time when :class:`SplitLearner` stacks its parts' weights."""


def learner_class(name: str):
    return LEARNERS[name]


def make_learner(name: str, **params):
    """A learner by name; an option it does not take is refused, never ignored."""
    from barley.kinds import options_of

    cls = learner_class(name)
    takes = sorted(options_of(cls))
    for option in params:
        if option not in takes:
            raise BarleyError(f"the {name} learner takes no option {option!r}",
                              fix=f"its options are: {', '.join(takes)}" if takes else "leave the option out")
    return cls(**params)


def rows_to_csr(ids: np.ndarray | Iterable[np.ndarray], n_features: int) -> sp.csr_matrix:
    """Binary CSR matrix (float64 values, int32 sorted indices) from feature-id rows.

    ``ids``: one (rows × slots) array or consecutive chunks of rows; entries equal to
    ``n_features`` mean "no feature" and are dropped, as are repeats within a row.
    Built directly, chunk by chunk, without a COO or dense intermediate (memory).
    """
    import scipy.sparse as sp

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

    Summed slot by slot into zeros, in float32: the very additions, in the same order, of
    the sparse product (one CSR row of ones per instance) barley used before, so scores are
    the same bit for bit; and numpy alone, so parsing never imports scipy (start-up, and no
    import midway through a parse for a Ctrl-C to land in). Never materialises the
    (batch × slots × classes) gather.
    """
    out = np.zeros((len(ids), weights.shape[1]), dtype=weights.dtype)
    for slot in ids.T:
        out += weights[slot]
    return out


class SplitLearner:
    """One classifier per value of a split feature; rare values share a default classifier.

    ``split_values`` (one int per instance, given to :meth:`fit` and :meth:`scores`)
    are the values of the split feature. Each part is trained on the features its
    own instances use (its columns), so parts stay small.

    Scoring a batch never loops over parts when they are linear (their score is
    ``weights[ids].sum() + bias`` over the classes they saw, :data:`UNSEEN` for the
    others): their weight rows are stacked into one matrix over all classes, with one
    intercept row per part holding the biases and :data:`UNSEEN`, so that a batch is
    one table lookup (part, global feature) → stacked row and one :func:`weight_sums`.
    Other bases (the kernel SVM) score part by part.
    """

    name = "split"

    def __init__(self, base: str, threshold: int = 1000, **params):
        self.base, self.threshold, self.params = base, threshold, params
        self.values = np.zeros(0, dtype=np.int64)  # split value of each part (sorted); part 0 is the default
        self.parts: list = []
        self.columns: list[np.ndarray] = []  # the global feature ids of each part's local features, sorted
        self.n_classes = 0
        self.n_features = 0
        # built by scoring_tables when first needed (at once by from_arrays)
        self._scoring: tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None] | None = None

    def fit(self, X: sp.csr_matrix, y: np.ndarray, n_classes: int, seed: int = 0, log=None, *,
            split_values: np.ndarray) -> None:
        self.n_classes, self.n_features, self._scoring = n_classes, X.shape[1], None
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

    def _part_of(self, split_values: np.ndarray) -> np.ndarray:
        """The part scoring each instance: the part of its split value, else the default part 0."""
        known = self.values[1:]
        if not len(known):
            return np.zeros(len(split_values), dtype=np.int64)
        at = np.minimum(np.searchsorted(known, split_values), len(known) - 1)
        return np.where(known[at] == split_values, at + 1, 0)

    def scoring_tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """``(rows, first, weights, intercepts)`` for scoring.

        ``rows[p, g]``: the row of global feature ``g`` (``n_features`` = none) in the
        stacked rows, part ``p``'s rows starting at ``first[p]`` (its local features,
        then its zero row, where absent features go). ``weights``/``intercepts`` are the
        stacked linear parts, or None when the parts are not linear.
        """
        if self._scoring is None:
            sizes = [len(columns) + 1 for columns in self.columns]
            first = np.zeros(len(sizes) + 1, dtype=np.int64)
            np.cumsum(sizes, out=first[1:])
            rows = np.empty((len(self.parts), self.n_features + 1), dtype=np.int32)
            for number, columns in enumerate(self.columns):
                rows[number] = first[number + 1] - 1
                rows[number, columns] = first[number] + np.arange(len(columns))
            weights = intercepts = None
            if all(hasattr(part, "weights") for part in self.parts):
                weights = np.zeros((first[-1], self.n_classes), dtype=np.float32)
                intercepts = np.full((len(self.parts), self.n_classes), UNSEEN, dtype=np.float32)
                for number, part in enumerate(self.parts):
                    # by blocks of rows: numpy fills a whole part column by column, missing the cache
                    for start in range(0, len(part.weights), STACK_BLOCK):
                        block = part.weights[start:start + STACK_BLOCK]
                        at = first[number] + start
                        weights[at:at + len(block), part.classes] = block
                    intercepts[number, part.classes] = getattr(part, "bias", 0.0)
            self._scoring = rows, first, weights, intercepts
        return self._scoring

    def scores(self, ids: np.ndarray, split_values: np.ndarray) -> np.ndarray:
        part_of = self._part_of(split_values)
        rows, first, weights, intercepts = self.scoring_tables()
        stacked = rows[part_of[:, None], ids]
        if weights is not None and intercepts is not None:
            return weight_sums(weights, stacked) + intercepts[part_of]
        out = np.empty((len(ids), self.n_classes), dtype=np.float32)
        for number, learner in enumerate(self.parts):
            chosen = part_of == number
            if chosen.any():
                out[chosen] = learner.scores(stacked[chosen] - first[number])
        return out

    @staticmethod
    def _part_uses(part, columns: np.ndarray) -> np.ndarray:
        """Which local features of ``part`` change a score (all, if the base cannot tell)."""
        return part.used_features() if hasattr(part, "used_features") else np.ones(len(columns), dtype=bool)

    def used_features(self) -> np.ndarray:
        """Which global features some part uses (linear parts: with a non-zero weight)."""
        used = np.zeros(self.n_features, dtype=bool)
        for part, columns in zip(self.parts, self.columns):
            used[columns[self._part_uses(part, columns)]] = True
        return used

    def keep_features(self, keep: np.ndarray) -> None:
        """Renumber the global features to those in ``keep`` (at least :meth:`used_features`)."""
        new_id = np.cumsum(keep) - 1
        for number, part in enumerate(self.parts):
            uses = self._part_uses(part, self.columns[number])
            if hasattr(part, "keep_features"):
                part.keep_features(uses)
            self.columns[number] = new_id[self.columns[number][uses]]
        self.n_features, self._scoring = int(keep.sum()), None

    def to_arrays(self) -> tuple[dict, dict[str, np.ndarray]]:
        parts: list[dict] = []
        params = {"base": self.base, "threshold": self.threshold, "base_params": self.params,
                  "n_classes": self.n_classes, "n_features": self.n_features, "parts": parts}
        arrays = {"split.values": self.values}
        for number, (learner, columns) in enumerate(zip(self.parts, self.columns)):
            part_params, part_arrays = learner.to_arrays()
            parts.append(part_params)
            arrays[f"split.{number}.columns"] = columns
            arrays.update({f"split.{number}.{key}": value for key, value in part_arrays.items()})
        return params, arrays

    @classmethod
    def from_arrays(cls, params: dict, arrays: dict[str, np.ndarray], *, n_classes: int,
                    n_features: int) -> SplitLearner:
        """The learner of :meth:`to_arrays`, checked against the model's ``n_classes`` and ``n_features``:
        part 0 the default (split value -1), the others' values increasing; each part's columns
        increasing global feature ids, and the part a learner over those features."""
        check.mapping(params, "the split learner's parameters")
        check.equal(params["n_classes"], n_classes, "the split learner's n_classes")
        check.equal(params["n_features"], n_features, "the split learner's n_features")
        parts = params["parts"]
        if not isinstance(parts, list) or not parts:
            check.fail("the split learner's parts are not a list of at least one part")
        check.arrays(arrays, {"split.values": check.Array("int", (len(parts),), order="increasing")},
                     others=("split.",))
        if arrays["split.values"][0] != -1:
            check.fail(f"{check.array_name(arrays, 'split.values')}: the first part is not the default (-1)")
        learner = cls(check.text(params["base"], "the split learner's base"),
                      check.integer(params["threshold"], "the split learner's threshold", low=1),
                      **check.mapping(params["base_params"], "the split learner's base parameters"))
        learner.n_classes, learner.n_features = n_classes, n_features
        learner.values = arrays["split.values"].astype(np.int64)
        base = learner_class(params["base"])
        part_spec = {"columns": check.Array("int", ("features",), low=0, high="n_features", order="increasing")}
        for number, part_params in enumerate(parts):
            part_arrays = check.part(arrays, f"split.{number}.")
            check.arrays(part_arrays, part_spec, others=("",), n_features=n_features)
            columns = part_arrays.pop("columns").astype(np.int64)
            learner.columns.append(columns)
            learner.parts.append(base.from_arrays(part_params, part_arrays, n_classes=n_classes,
                                                  n_features=len(columns)))
        known = {f"split.{number}." for number in range(len(parts))}
        for name in arrays:  # each under "split.": its values, or a part's
            part, _, rest = name[len("split."):].partition(".")
            if name != "split.values" and (not rest or f"split.{part}." not in known):
                check.fail(f"unexpected {check.array_name(arrays, name)}")
        learner.scoring_tables()  # now, with the rest of loading: parsing starts ready
        return learner


__all__ = ["LEARNERS", "learner_class", "make_learner", "rows_to_csr", "weight_sums", "SplitLearner", "UNSEEN"]
