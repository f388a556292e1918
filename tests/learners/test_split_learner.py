"""MaltParser's data split (Nivre 2008 §6.1): one classifier per split value, scored in one pass.

The stacked scoring of linear parts must give exactly the scores of asking each
part for its own instances (the reference below), including :data:`UNSEEN` for the
classes a part never saw.
"""

from __future__ import annotations

import numpy as np
import pytest

from barley import learners
from barley.learners import UNSEEN, SplitLearner, rows_to_csr

F, SLOTS, N_CLASSES = 60, 7, 9
# Each split value sees its own classes, so that parts miss different classes; value 5 is
# rare (pooled into the default part) and value 4 has a single class.
CLASSES_OF_VALUE = {0: (1, 3), 1: (3, 4, 6, 8), 2: (0, 2, 6), 3: (5, 7, 8), 4: (2,), 5: (0, 4)}


def _problem(seed: int, n: int = 700):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, F + 1, size=(n, SLOTS))  # F = "no feature"
    split = rng.choice([0, 1, 2, 3, 4, 5], size=n, p=[0.25, 0.25, 0.2, 0.15, 0.1, 0.05])
    weights = rng.normal(size=(F + 1, N_CLASSES))
    weights[F] = 0
    y = np.empty(n, dtype=np.int64)
    for value, classes in CLASSES_OF_VALUE.items():
        chosen = split == value
        y[chosen] = np.asarray(classes)[weights[ids[chosen]][:, :, classes].sum(axis=1).argmax(axis=1)]
    return ids, y, split


def _reference_scores(learner: SplitLearner, ids: np.ndarray, split: np.ndarray) -> np.ndarray:
    """Each instance scored by its own part on its local feature ids (no stacking)."""
    out = np.empty((len(ids), learner.n_classes), dtype=np.float32)
    for k, (row, value) in enumerate(zip(ids, split)):
        number = int(np.nonzero(learner.values == value)[0][0]) if value in learner.values[1:] else 0
        columns = learner.columns[number]
        at = np.minimum(np.searchsorted(columns, row), max(len(columns) - 1, 0))
        local = np.where((columns[at] == row) if len(columns) else False, at, len(columns))
        out[k] = learner.parts[number].scores(local[None, :])[0]
    return out


@pytest.mark.parametrize("base, params", [("linear", {}), ("linear", {"solver": "logistic"}),
                                          ("perceptron", {}), ("svm-poly2", {})])
def test_split_scores_equal_each_parts_own_scores(base, params, monkeypatch):
    monkeypatch.setattr(learners, "STACK_BLOCK", 7)  # stacking copies many blocks per part
    ids, y, split = _problem(1)
    learner = SplitLearner(base, threshold=50, **params)
    learner.fit(rows_to_csr(ids, F), y, N_CLASSES, seed=2, split_values=split)
    assert learner.values.tolist() == [-1, 0, 1, 2, 3, 4]
    test_split = split.copy()
    test_split[:20] = 77  # a value never seen in training: the default part scores it
    scores = learner.scores(ids, split_values=test_split)
    assert np.array_equal(scores, _reference_scores(learner, ids, test_split))
    for value, classes in CLASSES_OF_VALUE.items():
        if value != 5:
            never = np.setdiff1d(np.arange(N_CLASSES), classes)
            assert (scores[test_split == value][:, never] == UNSEEN).all()
    assert (scores.argmax(axis=1) == y)[20:].mean() > 0.7
    params, arrays = learner.to_arrays()
    assert np.array_equal(SplitLearner.from_arrays(params, arrays, n_classes=N_CLASSES, n_features=F).scores(ids, split_values=test_split), scores)


@pytest.mark.parametrize("base", ["linear", "svm-poly2"])
def test_dropping_unused_features_keeps_the_scores(base):
    ids, y, split = _problem(3)
    learner = SplitLearner(base, threshold=50)
    never = ids >= F - 10  # the last ten features never occur in training
    learner.fit(rows_to_csr(np.where(never, F, ids), F), y, N_CLASSES, split_values=split)
    if base == "linear":  # zero rows, as liblinear leaves for many features: dropped from their part only
        learner.parts[1].weights[:5] = 0
        learner.parts[2].weights[2:9] = 0
    before = learner.scores(ids, split_values=split)
    used = learner.used_features()
    assert not used.all()
    learner.keep_features(used)
    renumbered = np.where(np.append(used, False)[ids], (np.cumsum(used) - 1)[np.minimum(ids, F - 1)], used.sum())
    assert np.array_equal(learner.scores(renumbered, split_values=split), before)


@pytest.mark.parametrize("split_feature, inside", [("UPOS(Input[0])", True), ("DEPREL(ldep(Stack[0]))", True),
                                                   ("LEMMA(Stack[2])", False), ("RDEPS(Input[0])", False)])
def test_the_split_feature_is_read_with_the_features(split_feature, inside):
    """The parser reads the split feature's row out of the feature model's row when it is
    there, else appends it: either way it is exactly what the split feature's own row reads."""
    from barley.features import load_model, parse_model
    from barley.features.extract import Extractor
    from barley.transition.featurize import row_reader
    from barley.systems import get_system

    system = get_system("arc-eager")
    extractor = Extractor(load_model(None, system.name), system)
    split_extractor = Extractor(parse_model(split_feature, "split feature"), system)
    row, width, columns = row_reader(extractor, split_extractor)
    assert (width == extractor.width) == inside
    rng = np.random.default_rng(7)
    for _ in range(20):  # random walks through configurations of a 7-word sentence
        state = system.initial(7)
        while not system.is_terminal(state):
            read = row(state)
            assert len(read) == width and read[:extractor.width] == extractor.row(state)
            assert tuple(read[c] for c in columns) == split_extractor.row(state)
            legal = system.legal(state)
            system.apply(state, int(rng.choice([m for m, ok in enumerate(legal) if ok])), int(rng.integers(3)))
