"""Learners: they learn, score only with numpy arrays, and survive a save/load round trip."""

from __future__ import annotations

import numpy as np
import pytest

from barley.learners import UNSEEN, SplitLearner, make_learner, rows_to_csr, weight_sums

F, SLOTS = 40, 6


def _problem(seed: int, n: int = 400, classes=(1, 3, 4, 6)):
    """Instances as feature-id rows; the class is a linear function of the features."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, F + 1, size=(n, SLOTS))  # F = "no feature"
    weights = rng.normal(size=(F + 1, len(classes)))
    weights[F] = 0
    y = np.asarray(classes)[weights[ids].sum(axis=1).argmax(axis=1)]
    return ids, y


def _round_trip(learner):
    params, arrays = learner.to_arrays()
    for value in arrays.values():
        assert isinstance(value, np.ndarray) and value.dtype != object
    return type(learner).from_arrays(params, arrays, n_classes=learner.n_classes, n_features=F)


@pytest.mark.parametrize("name, params, accuracy", [
    ("linear", {}, 0.85),
    ("linear", {"solver": "svm", "C": 1.0}, 0.85),
    ("linear", {"solver": "logistic", "C": 10.0}, 0.85),
    ("perceptron", {"epochs": 10}, 0.85),
    ("svm-poly2", {}, 0.80),
])
def test_learners_fit_a_linear_problem_and_round_trip(name, params, accuracy):
    ids, y = _problem(0)
    learner = make_learner(name, **params)
    learner.fit(rows_to_csr(ids, F), y, n_classes=8, seed=3)
    scores = learner.scores(ids)
    assert scores.shape == (len(ids), 8) and scores.dtype == np.float32
    assert (scores.argmax(axis=1) == y).mean() >= accuracy
    for unseen in (0, 2, 5, 7):
        assert (scores[:, unseen] == UNSEEN).all()
    assert np.array_equal(_round_trip(learner).scores(ids), scores)


@pytest.mark.parametrize("classes", [(1, 3, 4, 6), (2, 5)])
def test_the_svm_scores_like_libsvm(classes):
    from sklearn.svm import SVC

    ids, y = _problem(1, n=200, classes=classes)
    X = rows_to_csr(ids, F)
    learner = make_learner("svm-poly2")
    learner.fit(X, y, n_classes=8)
    reference = SVC(kernel="poly", degree=2, gamma=0.2, coef0=0, C=0.5, tol=1.0,
                    decision_function_shape="ovo").fit(X, y)
    expected = reference.decision_function(X).reshape(len(y), -1)
    if len(classes) == 2:  # scikit-learn's binary decision is positive for classes_[1]; LIBSVM's for classes_[0]
        expected = -expected
    assert np.allclose(learner.decisions(X), expected, atol=1e-5)
    assert (learner.scores(ids).argmax(axis=1) == reference.predict(X)).mean() > 0.97


def test_degenerate_training_sets():
    ids, _ = _problem(2, n=10)
    for name in ("linear", "perceptron", "svm-poly2"):
        learner = make_learner(name)
        learner.fit(rows_to_csr(ids, F), np.full(10, 2), n_classes=4)  # one class only: it always wins
        assert (learner.scores(ids).argmax(axis=1) == 2).all()


def test_split_learner_routes_by_value_and_round_trips():
    ids, y = _problem(4, n=600)
    split = ids[:, 0] % 3  # a split feature: three values
    split[:30] = 9  # a rare value: goes to the default part
    learner = SplitLearner("linear", threshold=50)
    learner.fit(rows_to_csr(ids, F), y, 8, seed=1, split_values=split)
    assert sorted(learner.values.tolist()) == [-1, 0, 1, 2]
    scores = learner.scores(ids, split_values=split)
    assert (scores.argmax(axis=1) == y).mean() > 0.8
    params, arrays = learner.to_arrays()
    again = SplitLearner.from_arrays(params, arrays, n_classes=8, n_features=F)
    assert np.array_equal(again.scores(ids, split_values=split), scores)
    # a split value never seen in training is scored by the default part
    unseen = learner.scores(ids[:5], split_values=np.full(5, 77))
    assert np.isfinite(unseen).all()


def test_perceptron_training_is_deterministic_for_a_seed():
    ids, y = _problem(5)
    first, second = make_learner("perceptron"), make_learner("perceptron")
    first.fit(rows_to_csr(ids, F), y, 8, seed=11)
    second.fit(rows_to_csr(ids, F), y, 8, seed=11)
    assert np.array_equal(first.weights, second.weights)


def test_rows_to_csr_drops_absent_ids_and_repeats_and_reads_chunks():
    rng = np.random.default_rng(5)
    ids = rng.integers(0, F + 1, size=(50, SLOTS))
    ids[:, 1] = ids[:, 0]  # a repeated feature counts once
    dense = np.zeros((50, F + 1))
    for row, values in enumerate(ids):
        dense[row, values] = 1.0
    whole = rows_to_csr(ids, F)
    assert np.array_equal(whole.toarray(), dense[:, :F])
    assert all(np.all(np.diff(whole.indices[a:b]) > 0) for a, b in zip(whole.indptr, whole.indptr[1:]))
    chunked = rows_to_csr(iter([ids[:7], ids[7:30], ids[30:]]), F)
    assert np.array_equal(chunked.toarray(), whole.toarray()) and chunked.indices.dtype == np.int32


def test_weight_sums_is_the_gathered_sum():
    rng = np.random.default_rng(6)
    weights = rng.normal(size=(F + 1, 5)).astype(np.float32)
    ids = rng.integers(0, F + 1, size=(30, SLOTS))
    assert np.allclose(weight_sums(weights, ids), weights[ids].sum(axis=1), atol=1e-5)


@pytest.mark.parametrize("batch, slots", [(1, 1), (7, 36), (300, 5)])
def test_weight_sums_are_the_sparse_product_bit_for_bit(batch, slots):
    """The numpy sums make the additions of the CSR product (ones × weights) barley used before."""
    import scipy.sparse as sp

    rng = np.random.default_rng(batch)
    weights = rng.standard_normal((50, 9)).astype(np.float32) * 10.0 ** rng.integers(-6, 6, (50, 9))
    weights[rng.random(weights.shape) < 0.5] = 0
    weights[-1] = 0  # the "no feature" row
    ids = rng.integers(0, 50, (batch, slots))
    indicator = sp.csr_matrix((np.ones(ids.size, dtype=np.float32), ids.ravel(), np.arange(0, ids.size + 1, slots)),
                              shape=(batch, len(weights)))
    assert (indicator @ weights).tobytes() == weight_sums(weights, ids).tobytes()
