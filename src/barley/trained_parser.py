"""What a trained parser is: the contract every kind keeps (:class:`TrainedParser`) and the shell
every kind shares around its own scoring step (:class:`ParserShell`).

A kind (:mod:`barley.kinds`) scores and decodes in its own way — a transition system's loop, a graph
decoder over arc scores, a network's heads — and everything around that step is the shell's: the
labels, transforms and manifest it keeps, the confidence it may write (``barley parse
--confidence``) with the calibration the manifest holds, the given arcs of a batch checked against
the trees the kind builds (:func:`barley.constraints.settle`), the labels of a decoded tree, the
tree written back through the inverse transforms (:func:`barley.constraints.write_tree`), the k
best analyses of each sentence (:mod:`barley.nbest`) and the model file. What a kind takes beyond
parsing it declares in ``capabilities`` (:mod:`barley.capabilities`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from barley.confidence import Calibrated, Confidence, calibration_of
from barley.conllu import Sentence
from barley.constraints import ArcOptions, SentenceArcs, settled, write_tree
from barley.models import archive
from barley.nbest import analyses, expanded
from barley.tree import Heads


@runtime_checkable
class TrainedParser(Protocol):
    """What :class:`barley.pipeline.Pipeline` and the commands ask of a trained parser of any kind
    (the conformance suite, tests/conformance.py, checks every registered kind's against it)."""

    kind: ClassVar[str]                  # the name of its kind (barley.kinds.KINDS)
    capabilities: ClassVar[frozenset[str]]  # what it takes beyond parsing (barley.capabilities)
    valid_ud_by_default: ClassVar[bool]     # UD's rules kept unless told not to (barley.valid_ud.by_default)
    labels: list[str]
    transforms: list
    manifest: dict
    confidence: Confidence | None        # set by barley parse --confidence
    calibrated: Calibrated
    stats: Any                           # its counts, with summary(); barley parse prints them

    def parse(self, sentences: Iterable[Sentence], *, arcs: ArcOptions | None = None) -> Iterator[Sentence]:
        """Fill HEAD and DEPREL of ``sentences`` (in place) and yield them in input order."""

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        """Its manifest and arrays, as its model file holds them."""

    def save(self, path: str) -> None:
        """Its model file, written atomically."""


class ParserShell:
    """The part of a trained parser that is the same for every kind; a kind subclasses it, sets
    ``kind`` and ``capabilities``, and calls :meth:`__init__` with its labels, transforms and manifest."""

    kind: ClassVar[str] = ""
    capabilities: ClassVar[frozenset[str]] = frozenset()
    valid_ud_by_default: ClassVar[bool] = False  # UD's rules kept unless told not to (barley.valid_ud.by_default)

    def __init__(self, labels: list[str], transforms: Sequence = (), manifest: dict | None = None):
        self.labels = labels
        self.transforms = list(transforms)
        self.manifest = manifest or {}
        self.confidence: Confidence | None = None  # barley parse --confidence (each kind writes it)
        self.calibrated = calibration_of(self.manifest)
        self.nbest: int | None = None  # barley parse --nbest, for the kinds that declare it
        self._analyses: dict[int, list[Sentence]] = {}  # with nbest: each parsed sentence's, by id()

    def given(self, batch: list[Sentence], arcs: ArcOptions | None, tree_class: str,
              builder: str) -> list[SentenceArcs | None]:
        """Per sentence of ``batch``, its checked given and forbidden arcs (None: none), those a parser
        of ``tree_class`` (``builder`` in messages) cannot build left out (:func:`barley.constraints.settle`)."""
        return settled(batch, arcs, self.labels, tree_class, builder, self.transforms)

    def deprels(self, label_ids: Sequence[int] | np.ndarray) -> list[str]:
        """The labels of a decoded tree's ``label_ids`` (entry 0, the root's, left "")."""
        return [""] + [self.labels[label] for label in label_ids[1:]]

    def set_tree(self, sentence: Sentence, heads: Heads, deprels: list[str],
                 arcs: SentenceArcs | None = None, single_root: bool = False) -> None:
        """A parsed tree (of the transformed treebank) into ``sentence``, through the inverse transforms
        (:func:`barley.constraints.write_tree`)."""
        write_tree(sentence, heads, deprels, self.transforms, arcs, single_root)

    def keep_analyses(self, sentence: Sentence, ranked: Sequence[tuple[float, list[int], list[str]]]) -> None:
        """The k best trees of ``sentence`` (``ranked``: (score, heads, deprels), best first) kept for
        :meth:`with_analyses` (:func:`barley.nbest.analyses`)."""
        self._analyses[id(sentence)] = analyses(sentence, ranked, self.set_tree)

    def with_analyses(self, parsed: Iterable[Sentence]) -> Iterator[Sentence]:
        """``parsed`` as it is, or with ``nbest`` set each sentence followed by its other analyses."""
        return iter(parsed) if self.nbest is None else expanded(parsed, self._analyses, self.set_tree)

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        raise NotImplementedError

    def save(self, path: str) -> None:
        archive.write(path, *self.to_files())
