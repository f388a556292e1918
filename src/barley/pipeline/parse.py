"""The ``parse`` component: barley's transition-based or graph-based parser in a pipeline.

A thin adapter: training is :func:`barley.kinds.train`, running is the parser's own
``parse``, and the files are the parser's own ``to_files`` / ``from_files``, so a
parser embedded in a pipeline is byte for byte the parser a parser model file holds.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from barley.confidence import calibration_of
from barley.conllu import Sentence
from barley.kinds import all_kind_options
from barley.kinds import from_files as parser_from_files
from barley.kinds import train as train_parser
from barley.registry import FromRegistries

_NOT_OPTIONS = {"train_data", "seed", "dev", "log", "record_time"}
OPTIONS = {name: parameter.default for name, parameter in inspect.signature(train_parser).parameters.items()
           if name not in _NOT_OPTIONS and parameter.kind is inspect.Parameter.KEYWORD_ONLY}
"""The keyword options of :func:`barley.kinds.train` (parser, tags, transforms)."""


class ParseComponent:
    name = "parse"
    consumes = "sentences"
    writes = ("HEAD", "DEPREL")
    keeps_given = False
    needs = ("UPOS",)
    OPTIONS = OPTIONS
    OPTIONAL = FromRegistries(all_kind_options)
    """The options of the kinds of parser (system, learner, decoder, ...): passed only when
    given, so that the kind refuses those it does not take."""

    def __init__(self, parser):
        self.parser = parser

    @property
    def stats(self):
        return self.parser.stats

    @stats.setter
    def stats(self, value):
        self.parser.stats = value

    @classmethod
    def train(cls, sentences: list[Sentence], options: dict, *, seed: int,
              log: Callable[[str], None]) -> ParseComponent:
        return cls(train_parser(sentences, seed=seed, log=log, record_time=False, **options))

    def process(self, sentences: Iterable[Sentence], arcs=None) -> Iterator[Sentence]:
        """Parse ``sentences``; ``arcs``: given and forbidden arcs (:class:`barley.constraints.ArcOptions`)."""
        return self.parser.parse(sentences, arcs=arcs) if arcs is not None else self.parser.parse(sentences)

    def calibrated(self, found: dict) -> None:
        """A fitted calibration (``barley calibrate``) into the parser and its manifest."""
        self.parser.manifest["confidence"] = found
        self.parser.calibrated = calibration_of(self.parser.manifest)

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        return self.parser.to_files()

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> ParseComponent:
        return cls(parser_from_files(manifest, arrays, path))
