"""The models a service parses with, loaded once at start-up and named for requests.

A request names a model by the name given here (never by a path). Without ``--model``,
``barley serve`` serves the default model that ships with barley
(:func:`barley.models.shipped.default_model_path`).
"""

from __future__ import annotations

import collections
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

from barley.conllu import Sentence
from barley.errors import BarleyError
from barley.kinds import kind_of
from barley.models import archive
from barley.models.catalog import resolve
from barley.models.shipped import default_model_path
from barley.pipeline import Pipeline, require_component
from barley.pipeline.request import ParseRequest
from barley.service.inputs import INPUT_FORMATS, input_formats, read_input
from barley.service.limits import Limits

WARM_UP = Sentence([], [["1", "x", "x", "X", "X", "_", "_", "_", "_", "_"]])
"""A sentence that each model parses once when it is loaded, so that what its components build
on first use (the parser's compiled tables, the tagger's key tables: a few hundred ms for the
shipped model) is built before the first request, not during it."""


TURN_WORDS = 1000
"""Words a request parses in one turn of the model's lock (about 0.3 s with the shipped model on one
core): a large request takes turns with the requests that arrive while it is parsed, so a small one
waits a turn, not the whole large one."""


class FairLock:
    """A lock handed to those waiting in the order they came (``threading.Lock`` is not: the thread that
    releases it can take it again at once, ahead of a thread that has waited for a whole turn)."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._waiting: collections.deque[threading.Event] = collections.deque()
        self._held = False

    def __enter__(self) -> FairLock:
        with self._guard:
            if not self._held:
                self._held = True
                return self
            turn = threading.Event()
            self._waiting.append(turn)
        turn.wait()  # handed over by __exit__, held from then on
        return self

    def __exit__(self, *exception) -> None:
        with self._guard:
            if self._waiting:
                self._waiting.popleft().set()
            else:
                self._held = False


@dataclass
class ServedModel:
    """One loaded model, as a pipeline (:meth:`Pipeline.load`'s, whatever the file holds: the CLI's
    checks apply). Parsing goes through a lock, :data:`TURN_WORDS` words a turn: a parser keeps
    running counts (and the transition parser batch state), so one request at a time uses it; the
    tokenizers keep no state and tokenize requests side by side, outside it."""

    name: str
    path: str
    pipeline: Pipeline
    manifest: dict
    lock: FairLock = field(default_factory=FairLock)

    def warm_up(self) -> None:
        """Run every component once (:data:`WARM_UP`; the tokenizer on its text)."""
        if "tokenize" in self.pipeline:
            list(self.pipeline.tokenize("x"))
        list(self.pipeline.parse([WARM_UP.copy()], retag=True))

    def parse(self, data: bytes, input_format: str, limits: Limits,
              request: ParseRequest = ParseRequest()) -> list[Sentence]:
        """The sentences of a request's ``data`` in ``input_format``, analysed as ``request`` asks
        (:class:`barley.pipeline.request.ParseRequest`: given and forbidden arcs, the k best, UD's rules, the
        enhanced graphs, the probabilities of heads and labels: those for this request only)."""
        sentences = read_input(data, input_format, limits, self.pipeline)  # read and tokenized before any turn
        parsed: list[Sentence] = []
        for turn in _turns(sentences):
            with self.lock:
                request.prepare(self.pipeline)
                try:
                    parsed += self.pipeline.parse(turn, **request.parse_options())
                finally:
                    if request.confidence is not None:
                        self.pipeline.with_confidence(None)
        return parsed

    def describe(self) -> dict:
        manifest = self.manifest
        pipeline = manifest.get("pipeline")
        parser = (manifest.get("components", {}).get("parse") if pipeline else manifest) or {}
        training = (pipeline or manifest).get("training", {})
        return {"name": self.name, "file": os.path.basename(self.path),
                "components": pipeline["components"] if pipeline else ["parse"],
                "input_formats": input_formats(self.pipeline),
                "parser": kind_of(parser).name if parser else None,
                "system": parser.get("system", {}).get("name"),
                "decoder": parser.get("graph", {}).get("decoder"),
                "labels": len(parser.get("labels", [])), "barley_version": manifest.get("barley_version"),
                "training": {"data": os.path.basename(str(training.get("data", ""))) or None,
                             **{key: training.get(key) for key in ("sentences", "words", "tags")}},
                "dev": manifest.get("dev")}


def _turns(sentences: list[Sentence]) -> Iterator[list[Sentence]]:
    """``sentences`` in runs of about :data:`TURN_WORDS` words (a longer sentence alone)."""
    turn: list[Sentence]
    turn, words = [], 0
    for sentence in sentences:
        if turn and words + len(sentence.words) > TURN_WORDS:
            yield turn
            turn, words = [], 0
        turn.append(sentence)
        words += len(sentence.words)
    if turn:
        yield turn


def model_specs(given: list[str] | None) -> list[tuple[str, str]]:
    """``(name, path)`` of each ``--model [NAME=]MODEL`` (MODEL: a path or a model's name,
    :mod:`barley.models.catalog`; NAME: by default the file name without extension, or the model's name), or of
    the default model; a BarleyError if there is none."""
    if not given:
        given = [default_model_path()]
    specs: list[tuple[str, str]] = []
    for spec in given:
        name, equals, path = spec.partition("=")
        if not equals or os.path.exists(spec):
            name, path = os.path.splitext(os.path.basename(spec))[0], spec
        if name in dict(specs):
            raise BarleyError(f"two models are called {name!r}", fix="name them with --model NAME=PATH")
        specs.append((name, resolve(path)))
    return specs


class ModelRegistry:
    """The served models by name; the first is the default."""

    def __init__(self, specs: list[tuple[str, str]]):
        self.models = {}
        for name, path in specs:
            manifest, arrays = archive.read(path)  # once: the parser and its description
            pipeline = Pipeline.from_model(manifest, arrays, path)
            require_component(pipeline.names, "parse", path, ", so barley serve cannot parse with it")
            pipeline.blas_threads = 0  # the process's own limit holds, set once by barley serve (--blas-threads)
            self.models[name] = ServedModel(name, path, pipeline, manifest)
            self.models[name].warm_up()
        self.default = specs[0][0]

    def get(self, name: str | None) -> ServedModel:
        if not name:
            return self.models[self.default]
        model = self.models.get(name)
        if model is None:
            raise BarleyError(f"no model called {name!r} is served",
                              fix="choose one of: " + ", ".join(self.models) + " (GET /models lists them)")
        return model

    def describe(self) -> dict:
        served = {format for model in self.models.values() for format in input_formats(model.pipeline)}
        return {"default_model": self.default, "input_formats": [f for f in INPUT_FORMATS if f in served],
                "models": [dict(model.describe(), default=name == self.default) for name, model in self.models.items()]}
