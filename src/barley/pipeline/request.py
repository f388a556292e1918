"""One parse request, whoever makes it: ``barley parse`` (in one process, its ``--jobs`` workers, its Dask
workers), ``barley serve``, :meth:`~barley.pipeline.Pipeline.parse` and ``pipe()``.

What is asked is checked twice, each time in one place: the combinations no model parses are refused when
the request is made (:class:`ParseRequest`, before any model is loaded), and what this model's parser
cannot do when the request meets it (:meth:`ParseRequest.prepare`, through :mod:`barley.capabilities`)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from barley.errors import BarleyError


PARSE_KEYWORDS = ("retag", "arcs", "nbest", "valid_ud", "beam", "enhanced")
"""The fields of a request that are keywords of :meth:`barley.pipeline.Pipeline.parse` (a test holds them to its
signature); the others are set once per pipeline (:meth:`ParseRequest.prepare`)."""


@dataclass(frozen=True)
class ParseRequest:
    """``retag``: predict the tags again where the input has them; ``arcs``: the arcs to keep and to avoid
    (:class:`barley.constraints.ArcOptions`); ``nbest``: the k best analyses of each sentence; ``valid_ud``:
    UD's structural rules in every tree (None: the parser's default); ``beam``: a transition-based
    parser's width (None: the model's own); ``enhanced``: DEPS filled with each tree's enhanced graph;
    ``max_words``: the longest sentence parsed (None: the parser's default); ``confidence``: the head and
    label probabilities written (:class:`barley.confidence.Confidence`)."""

    retag: bool = False
    arcs: Any = None
    nbest: int | None = None
    valid_ud: bool | None = None
    beam: int | None = None
    enhanced: bool = False
    max_words: int | None = None
    confidence: Any = None

    def __post_init__(self) -> None:
        if self.arcs is not None and self.nbest is not None:
            raise BarleyError("the k best trees (nbest) are not yet parsed around given or forbidden arcs "
                              "(keep-arcs, forbid)", fix="ask for the k best trees or for the arcs, not both")
        if self.valid_ud and self.nbest is not None:
            raise BarleyError("the k best trees (nbest) are not yet held to UD's rules (valid-ud)",
                              fix="ask for the k best trees or for valid UD, not both")
        if self.confidence is not None and (self.arcs is not None or self.nbest is not None):
            # the probabilities are the model's own, of its best tree: not of trees held to given arcs, nor of the k best
            raise BarleyError("--confidence and --flag-below are not yet written together with "
                              + ("--keep-arcs or --forbid" if self.arcs is not None else "--nbest"),
                              fix="parse once with --confidence and once without it, or leave one out")

    def prepare(self, pipeline) -> None:
        """Set on ``pipeline`` (a :class:`~barley.pipeline.Pipeline`) what this request asks of it for all the
        sentences it parses: the longest sentence and the probabilities (each refused, in one line, by a
        model that cannot). What varies by call (the k best, the beam, the rules) :meth:`Pipeline.parse` sets."""
        if self.max_words is not None:
            pipeline.limit_words(self.max_words)
        if self.confidence is not None:
            pipeline.with_confidence(self.confidence)

    def parse_options(self) -> dict[str, Any]:
        """The keywords of :meth:`barley.pipeline.Pipeline.parse` that this request sets (those left at their
        defaults are left out)."""
        defaults = {field.name: field.default for field in fields(self)}
        return {name: getattr(self, name) for name in PARSE_KEYWORDS if getattr(self, name) != defaults[name]}
