"""The enhanced graphs of parsed sentences: ``barley parse --enhanced``, ``Pipeline.parse(..., enhanced=True)``.

The DEPS column of every word is filled from the tree the parser predicted. Who fills it
is the model's choice: a component of the pipeline that carries its own enhancer (an
``enhancer`` attribute with the :class:`Enhancer` method: the joint network's learned head,
:mod:`barley.enhanced.head`, switched on by :func:`switched`) fills it; otherwise
:class:`RuleEnhancer` does, with the rules of
:mod:`barley.enhanced.rules` and the conventions of the model's language
(:func:`barley.enhanced.rules.conventions_for`, the language the model states or was
trained on).

Empty nodes (IDs ``i.k``) belong to the enhanced graph that is replaced, and the rules
make none: a sentence that has them in its input loses them, with one warning per stream.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from barley.conllu import DEPS, ID, Sentence
from barley.enhanced.rules import DEFAULT, Conventions, enhance
from barley.errors import BarleyError, BarleyWarning


class Enhancer(Protocol):
    """What fills DEPS: the value of every word 1..n of a sentence with a tree."""

    @property
    def name(self) -> str: ...

    def enhance(self, sentence: Sentence) -> list[str]: ...


@dataclass(frozen=True)
class RuleEnhancer:
    """The rules of :mod:`barley.enhanced.rules`, the fallback of every model."""

    conventions: Conventions = DEFAULT
    name: str = "rules"

    def enhance(self, sentence: Sentence) -> list[str]:
        return enhance(sentence, self.conventions)


def _own(pipeline) -> Any:
    """A component's own enhancer (:class:`barley.neural.joint.LearnedEnhancer`, switched by ``active``), if any."""
    return next((c.enhancer for c in pipeline.components if getattr(c, "enhancer", None) is not None), None)


def enhancer_for(pipeline) -> Enhancer:
    """The enhancer of a pipeline: a component's own, else the rules with its language's conventions."""
    from barley.enhanced.rules import conventions_for
    from barley.models.catalog import language_code

    return _own(pipeline) or RuleEnhancer(conventions_for(language_code(pipeline.manifest)))


def switched(pipeline, enhanced: bool, nbest: int | None) -> Enhancer | None:
    """The enhancer of a parse (None without ``enhanced``), a component's own switched on for it (and off
    for a parse without); a learned head makes the graph of the best tree as it parses, so it is
    refused with the k best trees in one line."""
    own = _own(pipeline)
    if own is not None:
        if enhanced and nbest is not None:
            raise BarleyError("the learned enhanced head makes the graph of the best tree only, not of the k best "
                              "trees (nbest)", fix="ask for the k best trees or for enhanced graphs, not both")
        own.active = enhanced
    return enhancer_for(pipeline) if enhanced else None


def with_enhanced_graphs(sentences: Iterable[Sentence], enhancer: Enhancer) -> Iterator[Sentence]:
    """``sentences`` with DEPS filled by ``enhancer`` (and their empty nodes left out, see the module docstring)."""
    warned = False
    for sentence in sentences:
        if len(sentence.rows) != len(sentence.words) and any("." in row[ID] for row in sentence.rows):
            if not warned:
                warnings.warn(BarleyWarning(
                    f"{sentence.source}:{sentence.line}: --enhanced replaces the enhanced graph, empty nodes "
                    "included, and makes no empty nodes: the empty nodes of the input are left out (this sentence "
                    "is the first that had some)"), stacklevel=2)
                warned = True
            sentence.rows = [row for row in sentence.rows if "." not in row[ID]]
        for word, value in zip(sentence.words, enhancer.enhance(sentence)):
            word[DEPS] = value
        yield sentence


def flagged_if_kept(sentences: Iterable[Sentence]) -> Iterator[Sentence]:
    """``sentences`` as they are, with one warning per stream if one of them came with an enhanced graph (a
    DEPS column): parsed without ``--enhanced``, it keeps that graph, made for the trees it had, beside
    the trees the parser predicts."""
    warned = False
    for sentence in sentences:
        if not warned and any(word[DEPS] not in ("_", "") and not word[DEPS].isdigit() for word in sentence.words):
            warnings.warn(BarleyWarning(
                f"{sentence.source}:{sentence.line}: the input's DEPS column (an enhanced graph) is kept as it was, "
                "while the trees are parsed anew: it may contradict them (this sentence is the first with one; "
                "--enhanced makes the graphs of the new trees)"), stacklevel=2)
            warned = True
        yield sentence


def without_graphs(sentences: Iterable[Sentence]) -> list[Sentence]:
    """Copies of ``sentences`` with DEPS blanked: what a scorer parses again to compare with the originals
    (``Pipeline.evaluate``, ``barley calibrate``), so that no graph of the old trees rides along
    (:func:`flagged_if_kept` would rightly say it does)."""
    copies = [sentence.copy() for sentence in sentences]
    for sentence in copies:
        for word in sentence.words:
            word[DEPS] = "_"
    return copies
