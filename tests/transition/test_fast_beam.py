"""The compiled beam (``Program.parse_beam``, :meth:`barley.transition.fast.CompiledParser.parse_batch_beam`)
against the reference beam (:func:`barley.transition.beam.parse_batch_beam`), its test oracle.

For every transition system, at widths 1, 2 and 8, and for the k best trees: the same trees with
the same scores in the same order and the same counts, for perceptrons as trained (whose scores
tie often: the ties must go where the reference sends them) and with seeded random weights (which
reach configurations a trained model rarely does). Width 1 is the greedy loop's parse exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from barley.conllu import Sentence
from barley.kinds import train
from barley.systems import system_names
from barley.transition import fast
from barley.transition.beam import parse_batch_beam
from barley.transition.loop import ParseStats
from random_treebanks import random_sentences
from random_weights import randomize

pytestmark = [pytest.mark.skipif(fast.loop_module() is None, reason="the compiled loop is not built here"),
              pytest.mark.slow]  # the fast loop, pytest -m 'not slow', leaves this file out

WIDTHS = (1, 2, 8)


def assert_same_beams(parser, sentences, width: int, most: int) -> None:
    """Compiled and reference beam agree on every sentence's trees, their scores and the counts."""
    reference_stats, compiled_stats = ParseStats(), ParseStats()
    expected = parse_batch_beam(parser, sentences, reference_stats, width, None, most)
    got = parser.compiled.parse_batch_beam(sentences, compiled_stats, width, most)
    for k, (want, have) in enumerate(zip(expected, got)):
        assert have == want, f"sentence {k} at width {width}, {most} best: trees or scores differ"
    assert len(got) == len(expected)
    assert compiled_stats == reference_stats


@pytest.fixture(scope="module")
def perceptrons():
    """One perceptron parser per system (its default feature model), trained on random trees."""
    treebank = random_sentences(7, 60)
    return {system: train(treebank, system=system, learner="perceptron", epochs=1, split="none",
                          log=lambda m: None) for system in system_names()}


@pytest.mark.parametrize("system", system_names())
def test_every_system_and_width_gives_the_reference_trees_and_scores(system, perceptrons):
    parser = perceptrons[system]
    sentences = random_sentences(11, 30)
    for width in WIDTHS:
        for most in sorted({1, width}):  # the best tree; the k best (--nbest)
            assert_same_beams(parser, sentences, width, most)
    randomized = randomize(parser, seed=3)
    for width in WIDTHS:
        assert_same_beams(randomized, sentences, width, width)


def tied(parser, seed: int | None):
    """A perceptron's weights of -1, 0 or 1, 0 everywhere when ``seed`` is None: scores, and the beam's
    totals, tie often, everywhere when all are 0, so that only the order of the ties decides."""
    rng = np.random.default_rng(seed)
    learner = parser.learner
    shape = learner.weights.shape
    learner.weights = (np.zeros(shape) if seed is None else rng.integers(-1, 2, size=shape)).astype(np.float32)
    learner.weights[-1] = 0  # the "no feature" row, as every learner keeps it
    parser._compiled = None  # the loop reads the weights when it is built
    return parser


@pytest.mark.parametrize("system", system_names())
def test_ties_go_where_the_reference_sends_them(system):
    parser = train(random_sentences(7, 60), system=system, learner="perceptron", epochs=1, split="none",
                   log=lambda m: None)
    sentences = random_sentences(13, 20)
    for seed in (None, 1, 2):
        tied(parser, seed)
        for width in WIDTHS:
            assert_same_beams(parser, sentences, width, width)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(system=st.sampled_from(system_names()), seed=st.integers(0, 10**6), count=st.integers(1, 6),
       width=st.sampled_from(WIDTHS), most=st.integers(1, 4))
def test_random_sentences_and_weights(system, seed, count, width, most, perceptrons):
    assert_same_beams(randomize(perceptrons[system], seed), random_sentences(seed, count), width, most)


@pytest.mark.parametrize("learner,split", [("linear", "none"), ("perceptron", "XPOS(Stack[0])")])
def test_linear_learners_and_the_data_split(learner, split):
    parser = train(random_sentences(7, 60), system="arc-eager", learner=learner, split=split, split_threshold=20,
                   log=lambda m: None)
    for width in WIDTHS:
        assert_same_beams(parser, random_sentences(3, 30), width, width)


def _text(sentences: list[Sentence]) -> str:
    return "".join(sentence.to_text() for sentence in sentences)


@pytest.mark.parametrize("system", system_names())
def test_width_one_is_the_greedy_loop_byte_for_byte(system, perceptrons):
    parser = perceptrons[system]
    sentences = random_sentences(5, 30)
    greedy = parser.compiled.parse_batch(sentences, ParseStats())
    assert [(heads, labels) for (_, heads, labels), in
            parser.compiled.parse_batch_beam(sentences, ParseStats(), 1)] == greedy
    parser.set_beam(1)
    want = _text(list(parser.parse(random_sentences(5, 30))))
    batch = random_sentences(5, 30)
    assert _text(parser._parse_beam(batch, [None] * len(batch))) == want


def test_a_beam_parse_takes_the_compiled_loop_and_without_it_the_reference(perceptrons, monkeypatch):
    parser = perceptrons["arc-eager"]
    parser.set_beam(8)
    calls = []
    compiled_beam = fast.CompiledParser.parse_batch_beam
    monkeypatch.setattr(fast.CompiledParser, "parse_batch_beam",
                        lambda self, *args: calls.append(1) or compiled_beam(self, *args))
    compiled = _text(list(parser.parse(random_sentences(9, 20))))
    assert calls
    monkeypatch.setattr(parser, "_compiled", False)  # as without the module (or BARLEY_NO_FAST=1)
    calls.clear()
    assert _text(list(parser.parse(random_sentences(9, 20)))) == compiled
    assert not calls
    parser.set_beam(1)
