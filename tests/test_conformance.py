"""Conformance: each check of tests/conformance.py run over every name registered in barley (and in any
installed plugin): a transition system, transform, learner, parser kind, tokenizer kind or pipeline component
is accepted once its registry's check passes."""

from __future__ import annotations

import pytest

from barley.kinds import KINDS
from barley.learners import LEARNERS
from barley.pipeline import COMPONENTS
from barley.pipeline.tokenize import KINDS as TOKENIZERS
from barley.systems import REGISTRY as SYSTEMS
from barley.transforms import REGISTRY as TRANSFORMS
from conformance import (NOT_TINY, check_component, check_learner, check_parser_kind, check_system,
                         check_tokenizer_kind, check_transform, needs_torch)
from toy_language import treebank

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """A toy treebank to train on (60 sentences) and one to parse (10)."""
    folder = tmp_path_factory.mktemp("conformance")
    treebank(folder / "train.conllu", 60, seed=1)
    treebank(folder / "test.conllu", 10, seed=2)
    return folder


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_transition_system(name):
    check_system(name)


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform(name):
    check_transform(name)


@pytest.mark.parametrize("name", list(LEARNERS))
def test_learner(name):
    check_learner(name)


@pytest.mark.parametrize("name", list(KINDS))
def test_parser_kind(name, toy):
    needs_torch(name)
    check_parser_kind(name, toy, **NOT_TINY.get(name, {}))


@pytest.mark.parametrize("name", list(TOKENIZERS))
def test_tokenizer_kind(name, toy):
    if name == "neural":
        pytest.importorskip("torch")
    check_tokenizer_kind(name, toy)


@pytest.mark.parametrize("name", list(COMPONENTS))
def test_component(name, toy):
    needs_torch(name)
    check_component(name, toy)
