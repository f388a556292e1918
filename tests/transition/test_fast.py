"""The compiled parsing loop (barley.transition.fast) against the reference path, step by step.

For every transition system, every shipped feature model the system can read, and the
learners with a compiled scorer, the compiled loop must take exactly the reference's
transitions, read exactly the rows of the readable interpreter
(``Extractor.reference_row``) where it scores, and build the same trees with the same
counts. Models get seeded random weights, so that parsing wanders through the
configurations a trained model rarely reaches (illegal top choices, long swaps,
unattached words). Where the loop is missing or a learner has no compiled scorer,
barley says so once and parses with the reference path.
"""

from __future__ import annotations

import sys
from importlib import resources

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from barley.transition import fast
from barley.transition.loop import FollowModel, ParseStats, advance, parse_batch
from barley.conllu import read
from barley.errors import BarleyWarning, InputError
from barley.features import default_model, default_names
from barley.features.extract import check_addresses
from barley.kinds import train
from barley.systems import get_system, system_names
from random_treebanks import random_sentences
from random_weights import randomize
from conftest import ud_file

pytestmark = [pytest.mark.skipif(fast.loop_module() is None, reason="the compiled loop is not built here"),
              pytest.mark.slow]  # the fast loop, pytest -m 'not slow', leaves this file out

def feature_files(system: str) -> list[str]:
    """The shipped feature models (paths) whose addresses ``system``'s configurations have."""
    usable = []
    for name in default_names():
        try:
            check_addresses(default_model(name), get_system(system))
        except InputError:
            continue
        usable.append(str(resources.files("barley.features") / "defaults" / f"{name}.txt"))
    return usable


def reference_trace(parser, sentences) -> tuple[list, ParseStats]:
    """The reference loop's transitions per sentence, each ``(move, label, row)`` with the
    row read by the readable interpreter where the classifier was asked (else None)."""
    system, stats = parser.system, ParseStats()
    states = [system.initial(len(s)) for s in sentences]
    number = {id(state): k for k, state in enumerate(states)}
    steps: list[list] = [[] for _ in sentences]
    rows: dict[int, tuple] = {}

    class Recording:
        labeled, legal, is_terminal = system.labeled, system.legal, system.is_terminal

        @staticmethod
        def apply(state, move, label=-1):
            k = number[id(state)]
            steps[k].append((move, label, rows.pop(k, None)))
            system.apply(state, move, label)

    policy = FollowModel(parser, sentences, states, stats)
    choose = policy.choose

    def choose_reading_rows(waiting, legal_rows):
        for k in waiting:
            rows[k] = parser.featurizer.extractor.reference_row(states[k])
        return choose(waiting, legal_rows)

    policy.choose = choose_reading_rows
    advance(Recording(), states, policy)
    return steps, stats


def assert_same(parser, sentences) -> None:
    """Compiled and reference path agree on transitions, rows, trees and counts."""
    compiled = parser.compiled
    assert compiled is not None
    expected_steps, _ = reference_trace(parser, sentences)
    reference_stats, compiled_stats = ParseStats(), ParseStats()
    expected = parse_batch(parser, sentences, reference_stats)
    steps: list = []
    got = compiled.parse_batch(sentences, compiled_stats, trace=steps)
    for k, (want, have) in enumerate(zip(expected_steps, steps)):
        assert have == want, f"sentence {k}: transitions or rows differ at step " \
                             f"{next(i for i, (a, b) in enumerate(zip(want + [None], have + [None])) if a != b)}"
    assert got == expected
    assert compiled_stats == reference_stats


@pytest.fixture(scope="module")
def treebank():
    return random_sentences(7, 60)


@pytest.fixture(scope="module")
def perceptrons(treebank):
    """One perceptron parser per (system, usable feature model), trained on random trees."""
    models = {}
    for system in system_names():
        for path in feature_files(system):
            models[system, path] = train(treebank, system=system, features=path, learner="perceptron",
                                         epochs=1, split="none", log=lambda m: None)
    return models


@pytest.mark.parametrize("system", system_names())
def test_every_system_and_feature_model_takes_the_reference_steps(system, perceptrons, treebank):
    sentences = random_sentences(11, 40)
    for (name, path), parser in perceptrons.items():
        if name == system:
            assert_same(parser, sentences)  # as trained
            assert_same(randomize(parser, seed=len(path)), sentences)  # anywhere


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(system=st.sampled_from(system_names()), seed=st.integers(0, 10**6), count=st.integers(1, 8))
def test_random_sentences_and_weights(system, seed, count, perceptrons):
    parser = next(p for (name, _), p in perceptrons.items() if name == system)
    assert_same(randomize(parser, seed), random_sentences(seed, count))


@pytest.mark.parametrize("learner,split", [("linear", "none"), ("linear", "UPOS(Input[0])"),
                                           ("perceptron", "XPOS(Stack[0])")])
def test_linear_learners_and_the_data_split(learner, split, treebank):
    parser = train(treebank, system="arc-eager", learner=learner, split=split, split_threshold=20,
                   log=lambda m: None)
    sentences = random_sentences(3, 40)
    assert_same(parser, sentences)
    assert_same(randomize(parser, 5), sentences)


def test_a_loaded_linear_model_parses_compiled_without_its_dense_matrix(treebank, tmp_path):
    from barley.transition.fast._loop import sparse_rows
    from barley.pipeline import Pipeline

    train(treebank, system="arc-eager", learner="linear", log=lambda m: None).save(tmp_path / "m.barley")
    parser = Pipeline.load(tmp_path / "m.barley").parser
    sentences = random_sentences(4, 30)
    trees = _trees(parser, sentences)
    assert parser.compiled is not None and parser.learner._weights is None  # the stored rows served
    rows = parser.learner.sparse_rows()
    for ours, from_dense in zip(rows, sparse_rows(np.ascontiguousarray(parser.learner.weights))):
        assert np.array_equal(ours, from_dense)
    assert _trees(Pipeline.load(tmp_path / "m.barley"), sentences) == trees
    assert_same(parser, sentences)  # the reference path, on the dense matrix built on demand


def test_a_learner_without_a_compiled_scorer_parses_with_the_reference_path_said_once(treebank, monkeypatch):
    monkeypatch.setattr(fast, "_said", set())
    parser = train(treebank[:20], system="arc-eager", learner="svm-poly2", log=lambda m: None)
    with pytest.warns(BarleyWarning, match="svm-poly2 learner has no compiled scorer"):
        assert parser.compiled is None
    sentences = random_sentences(3, 5)
    expected = parse_batch(parser, sentences, ParseStats())
    assert [s.heads().tolist() for s in parser.parse(sentences)] == [heads for heads, _ in expected]


@pytest.fixture
def arc_eager(perceptrons):
    parser = perceptrons["arc-eager", next(p for s, p in perceptrons if s == "arc-eager" and "arc-eager" in p)]
    parser._compiled = None
    yield parser
    parser._compiled = None


def _trees(parser, sentences) -> list:
    return [(s.heads().tolist(), s.deprels()) for s in parser.parse(sentences)]


def test_without_the_compiled_module_barley_says_so_once_and_parses_the_same(arc_eager, monkeypatch):
    sentences = random_sentences(5, 30)
    expected = _trees(arc_eager, sentences)
    monkeypatch.setattr(fast, "_said", set())
    monkeypatch.setitem(sys.modules, "barley.transition.fast._loop", None)  # import fails
    arc_eager._compiled = None
    with pytest.warns(BarleyWarning, match="compiled parsing loop is not available") as said:
        assert _trees(arc_eager, sentences) == expected
        arc_eager._compiled = None
        assert _trees(arc_eager, sentences) == expected
    assert len(said) == 1


def test_barley_no_fast_chooses_the_reference_path(arc_eager, monkeypatch):
    sentences = random_sentences(5, 10)
    expected = _trees(arc_eager, sentences)
    monkeypatch.setenv("BARLEY_NO_FAST", "1")
    arc_eager._compiled = None
    assert arc_eager.compiled is None
    assert _trees(arc_eager, sentences) == expected


@pytest.mark.ud
@pytest.mark.parametrize("system", system_names())
def test_real_treebank(system):
    """Trained on 300 sentences of UD_English-EWT (linear, FEATS and lemmas included), parsing
    400 of its dev sentences: the same steps, trees and counts."""
    train_path = ud_file("en_ewt-ud-train.conllu")
    dev = list(read(ud_file("en_ewt-ud-dev.conllu")))[:400]
    sentences = [s for _, s in zip(range(300), read(train_path))]
    parser = train(sentences, system=system, log=lambda m: None)
    assert_same(parser, dev)
