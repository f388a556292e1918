"""The capabilities each kind of trained parser declares (barley.capabilities): declared once, each
with its setter, and refused in one line by every kind that lacks it."""

from __future__ import annotations

import importlib

import pytest

from barley.capabilities import CAPABILITIES, has, require
from barley.errors import BarleyError

PARSERS = {  # each kind's trained parser (what the component writing the trees holds)
    "transition": "barley.transition.parser:Parser",
    "graph": "barley.graph.trained:TrainedGraphParser",
    "biaffine": "barley.neural.biaffine_parser:TrainedBiaffineParser",
    "neural-transition": "barley.neural.transition_parser:NeuralTransitionParser",
    "joint": "barley.neural.joint:JointParser",
}


def _class(reference: str):
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("kind", sorted(PARSERS))
def test_each_kind_declares_what_it_takes_and_has_its_setter(kind):
    parser = _class(PARSERS[kind])
    assert parser.kind == kind and parser.capabilities <= set(CAPABILITIES)
    for name, capability in CAPABILITIES.items():
        setter = capability.setter
        if name in parser.capabilities and setter != "max_words":  # max_words: an instance attribute
            assert callable(getattr(parser, setter, None)), (kind, setter)
        elif name not in parser.capabilities:
            assert not hasattr(parser, setter), (kind, setter)  # none taken without being declared


@pytest.mark.parametrize("name", sorted(CAPABILITIES))
def test_a_parser_without_a_capability_is_refused_in_one_line(name):
    lacking = next(_class(reference) for reference in PARSERS.values() if name not in _class(reference).capabilities)
    with pytest.raises(BarleyError) as refused:
        require(lacking, name)
    message = str(refused.value)
    assert len(message.splitlines()) == 1 and CAPABILITIES[name].option in message and " parser of this model" in message
    with pytest.raises(BarleyError, match=r"this model \(no parser\)"):
        require(None, name)
    assert not has(None, name)
