"""SVM with the quadratic kernel of Nivre 2008 §6.1, for small data.

K(x, y) = (γ·xᵀy + r)², γ = 0.2, r = 0, C = 0.5, termination ε = 1.0; LIBSVM's
one-versus-one multiclass strategy (trained through scikit-learn's SVC, which wraps
LIBSVM). The paper splits the instances by the fine part of speech of β[0] to cut
training time: the ``svm-poly2`` learner is used inside :class:`~barley.learners.SplitLearner`
by ``barley train`` for that reason.

Only numbers are kept (support vectors as CSR arrays, dual coefficients,
intercepts, support counts) and scoring is done here in numpy: every pair (i, j)
of classes votes, and the class score is the vote count plus a confidence
tie-breaker in (-1/3, 1/3) (as scikit-learn's ``decision_function_shape="ovr"``).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from barley.learners import UNSEEN, rows_to_csr
from barley.models import check

ARRAYS = {
    "classes": check.Array("int", ("k",), low=0, high="n_classes", order="increasing"),
    "sv_indptr": check.Array("int", ("vectors+1",), low=0, high="entries+1", order="nondecreasing"),
    "sv_indices": check.Array("int", ("entries",), low=0, high="n_features"),
    "sv_data": check.Array("float", ("entries",)),
    "dual": check.Array("float", ("k-1", "vectors")),
    "intercept": check.Array("float", ("pairs",)),
    "n_support": check.Array("int", ("supported",), low=0),
}
"""What :meth:`PolySVMLearner.to_arrays` writes (:mod:`barley.models.check`): the support vectors as
CSR arrays, one row of dual coefficients per other class, one intercept per pair of classes and the
support vectors of each class."""


class PolySVMLearner:
    name = "svm-poly2"

    def __init__(self, gamma: float = 0.2, coef0: float = 0.0, C: float = 0.5, tol: float = 1.0,
                 cache_mb: int = 500):
        self.gamma, self.coef0, self.C, self.tol, self.cache_mb = gamma, coef0, C, tol, cache_mb
        self.n_classes = 0
        self.classes = np.zeros(0, dtype=np.int64)
        self.n_features = 0
        self.vectors = sp.csr_matrix((0, 0), dtype=np.float32)
        self.dual = np.zeros((0, 0), dtype=np.float64)
        self.intercept = np.zeros(0, dtype=np.float64)
        self.n_support = np.zeros(0, dtype=np.int64)

    def fit(self, X: sp.csr_matrix, y: np.ndarray, n_classes: int, seed: int = 0, log=None) -> None:
        from sklearn.svm import SVC

        self.n_classes, self.n_features = n_classes, X.shape[1]
        self.classes = np.unique(y).astype(np.int64)
        if len(self.classes) < 2:
            return
        svc = SVC(kernel="poly", degree=2, gamma=self.gamma, coef0=self.coef0, C=self.C, tol=self.tol,
                  cache_size=self.cache_mb, decision_function_shape="ovo", random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            svc.fit(X, y)
        self.vectors = sp.csr_matrix(svc.support_vectors_, dtype=np.float32)
        self.dual = np.asarray(svc.dual_coef_.toarray() if sp.issparse(svc.dual_coef_) else svc.dual_coef_,
                               dtype=np.float64)
        self.intercept = np.asarray(svc.intercept_, dtype=np.float64)
        self.n_support = np.asarray(svc.n_support_, dtype=np.int64)
        if len(self.classes) == 2:  # scikit-learn flips both signs for binary problems; undo it (LIBSVM's)
            self.dual, self.intercept = -self.dual, -self.intercept

    def _pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The class pairs (i, j), i < j, in LIBSVM's order."""
        return np.triu_indices(len(self.classes), k=1)

    def decisions(self, X: sp.csr_matrix) -> np.ndarray:
        """One-versus-one decision values (B, pairs), pairs (i, j), i < j, in LIBSVM's order."""
        kernel = (self.gamma * (X @ self.vectors.T).toarray() + self.coef0) ** 2
        k = len(self.classes)
        starts = np.concatenate([[0], np.cumsum(self.n_support)])
        # partial[c, :, m]: class c's support vectors weighted by dual row m
        partial = np.stack([kernel[:, starts[c]:starts[c + 1]] @ self.dual[:, starts[c]:starts[c + 1]].T
                            for c in range(k)])
        first, second = self._pairs()
        return (partial[first, :, second - 1] + partial[second, :, first]).T + self.intercept

    def scores(self, ids: np.ndarray) -> np.ndarray:
        out = np.full((len(ids), self.n_classes), UNSEEN, dtype=np.float32)
        k = len(self.classes)
        if k < 2:
            if k == 1:
                out[:, self.classes] = 0.0
            return out
        decisions = self.decisions(rows_to_csr(ids, self.n_features).astype(np.float32))
        first, second = self._pairs()
        # every pair votes for i (decision > 0) or j; the summed decision values break ties
        to_first = np.zeros((len(first), k))
        to_first[np.arange(len(first)), first] = 1.0
        to_second = np.zeros((len(first), k))
        to_second[np.arange(len(first)), second] = 1.0
        positive = (decisions > 0).astype(np.float64)
        votes = positive @ to_first + (1.0 - positive) @ to_second
        confidence = decisions @ (to_first - to_second)
        out[:, self.classes] = votes + confidence / (3 * (np.abs(confidence) + 1))
        return out

    def to_arrays(self) -> tuple[dict, dict[str, np.ndarray]]:
        params = {"gamma": self.gamma, "coef0": self.coef0, "C": self.C, "tol": self.tol,
                  "cache_mb": self.cache_mb, "n_classes": self.n_classes, "n_features": self.n_features}
        vectors = self.vectors.tocsr()
        return params, {"classes": self.classes, "sv_data": vectors.data, "sv_indices": vectors.indices,
                        "sv_indptr": vectors.indptr, "dual": self.dual, "intercept": self.intercept,
                        "n_support": self.n_support}

    @classmethod
    def from_arrays(cls, params: dict, arrays: dict[str, np.ndarray], *, n_classes: int,
                    n_features: int) -> PolySVMLearner:
        """The learner of :meth:`to_arrays`, checked against the model's ``n_classes`` and ``n_features``."""
        params = dict(check.mapping(params, "the SVM's parameters"))
        check.equal(params.pop("n_classes"), n_classes, "the SVM's n_classes")
        check.equal(params.pop("n_features"), n_features, "the SVM's n_features")
        for name in ("gamma", "coef0"):  # the kernel's: scoring reads them
            check.number(params[name], f"the SVM's {name}")
        k = len(arrays["classes"]) if "classes" in arrays else 0
        vectors = max(len(arrays["sv_indptr"]) - 1, 0) if "sv_indptr" in arrays else 0
        entries = len(arrays["sv_indices"]) if "sv_indices" in arrays else 0
        check.arrays(arrays, ARRAYS, (), n_classes=n_classes, n_features=n_features, vectors=vectors,
                     entries=entries, **{"vectors+1": vectors + 1, "entries+1": entries + 1,
                                         "k-1": max(k - 1, 0), "pairs": k * (k - 1) // 2,
                                         "supported": k if k >= 2 else 0})
        indptr, support = arrays["sv_indptr"], arrays["n_support"]
        if indptr[0] != 0 or indptr[-1] != entries or int(support.sum()) != vectors:
            check.fail(f"{check.array_name(arrays, 'sv_indptr')} and {check.array_name(arrays, 'n_support')} do "
                       f"not describe the SVM's {vectors} support vectors of {entries} entries")
        learner = cls(**params)
        learner.n_classes, learner.n_features = n_classes, n_features
        learner.classes = arrays["classes"].astype(np.int64)
        learner.vectors = sp.csr_matrix((arrays["sv_data"], arrays["sv_indices"], indptr), shape=(vectors, n_features))
        learner.dual, learner.intercept = arrays["dual"], arrays["intercept"]
        learner.n_support = support.astype(np.int64)
        return learner
