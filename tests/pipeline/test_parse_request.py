"""One parse request (:class:`barley.pipeline.request.ParseRequest`): what no model parses is refused when
the request is made, in one line, whoever makes it; what the request sets reaches the pipeline."""

from __future__ import annotations

import pytest

from barley.confidence import Confidence
from barley.constraints import ArcOptions
from barley.errors import BarleyError
from barley.pipeline.request import PARSE_KEYWORDS, ParseRequest


@pytest.mark.parametrize("asked, refusal", [
    ({"arcs": ArcOptions(keep=True), "nbest": 2}, "not yet parsed around given or forbidden arcs"),
    ({"valid_ud": True, "nbest": 3}, "not yet held to UD's rules"),
    ({"confidence": Confidence(), "nbest": 2}, "not yet written together with --nbest"),
    ({"confidence": Confidence(), "arcs": ArcOptions(keep=True)}, "not yet written together with --keep-arcs"),
])
def test_what_no_model_parses_is_refused_when_the_request_is_made(asked, refusal):
    with pytest.raises(BarleyError, match=refusal):
        ParseRequest(**asked)


def test_the_parse_options_are_those_asked_and_no_others():
    assert ParseRequest().parse_options() == {}
    arcs = ArcOptions(keep=True)
    assert ParseRequest(retag=True, arcs=arcs, valid_ud=False, beam=4, enhanced=True, max_words=9).parse_options() == {
        "retag": True, "arcs": arcs, "valid_ud": False, "beam": 4, "enhanced": True}


def test_what_the_request_leaves_at_its_defaults_is_pipeline_parses_default():
    """parse_options leaves out what the request has at its own defaults: those must be Pipeline.parse's."""
    import inspect
    from dataclasses import fields

    from barley.pipeline import Pipeline

    parse = {name: parameter.default for name, parameter in inspect.signature(Pipeline.parse).parameters.items()
             if name not in ("self", "data")}
    assert tuple(parse) == PARSE_KEYWORDS  # every keyword of Pipeline.parse is a field of the request
    requested = {field.name: field.default for field in fields(ParseRequest)}
    assert parse == {name: requested[name] for name in PARSE_KEYWORDS}


class _Recorder:
    def __init__(self):
        self.calls = []

    def limit_words(self, n):
        self.calls.append(("limit_words", n))

    def with_confidence(self, confidence):
        self.calls.append(("with_confidence", confidence))


def test_prepare_sets_what_holds_for_every_sentence_and_nothing_else():
    recorder, confidence = _Recorder(), Confidence()
    ParseRequest(max_words=40, confidence=confidence, beam=3).prepare(recorder)
    assert recorder.calls == [("limit_words", 40), ("with_confidence", confidence)]
    untouched = _Recorder()
    ParseRequest(retag=True, nbest=2).prepare(untouched)
    assert untouched.calls == []
