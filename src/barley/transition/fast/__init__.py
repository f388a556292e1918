"""The fast path: transition parsing of whole sentences in compiled code, greedy and with a beam.

The reference path (:func:`barley.transition.loop.parse_batch`: the systems' ``legal``/``apply``,
the feature model's ``row``, numpy keys and ids, the learner's ``scores``) spends its
time in Python at every transition. :mod:`barley.transition.fast._loop` (Cython) runs the same
steps for a whole batch without Python per transition, for every transition system
and the linear learners (linear, perceptron, and the data split over them), and is
tested to give the reference's transitions, rows and trees exactly
(``tests/transition/test_fast.py``); its beam search gives the reference beam's
(:mod:`barley.transition.beam`) trees and scores exactly (``tests/transition/test_fast_beam.py``). This
module turns a :class:`barley.transition.parser.Parser` into the tables the loop reads
(:func:`compile_parser`) and its output back into the reference's.

Why Cython: the package builds with setuptools already, Cython is one build
requirement from PyPI (no toolchain beyond the C compiler), the loop reads numpy
arrays without copies, and it is what spaCy, the nearest peer, compiles its parser
with. Rust with PyO3 would need maturin and cargo's crates at build time.

The compiled path is never required: when the module was not built or cannot be
imported, a parser's system has no code here (:data:`SYSTEMS`: a new system is one
file and one registry line, and parses before anyone writes its branches in
``_loop.pyx``), or its learner has no compiled scorer (the kernel SVM), barley says so
once and parses with the reference path. ``BARLEY_NO_FAST=1`` asks for the
reference path.
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Sequence

import numpy as np

from barley.confidence import MoveSteps, word_rows
from barley.errors import BarleyWarning, ModelError
from barley.features.model import Address
from barley.transition.beam import distinct

SYSTEMS = {"arc-eager": 0, "arc-standard": 1, "arc-hybrid": 2, "stack-projective": 3, "swap-eager": 4,
           "swap-lazy": 4, "covington-nonprojective": 5, "covington-projective": 6, "planar": 7, "2-planar": 8}
"""The loop's code of each system (``SYS_*`` in ``_loop.pyx``): the swap systems differ
only in their oracles."""
BASES = {"Stack": 0, "Input": 1, "Lambda1": 2, "Lambda2": 3, "Inactive": 4}
FUNCTIONS = {"head": 1, "ldep": 2, "rdep": 3, "lsib": 4, "rsib": 5, "pred": 6, "succ": 7}
VALUE_KINDS = {"DEPREL": 0, "LDEPS": 1, "RDEPS": 2}
GUIDED_SYSTEMS = ("arc-eager", "arc-hybrid")
"""The systems whose given arcs the loop keeps (their dynamic-oracle costs, compiled)."""
COUNTERS = ("transitions", "forced", "scored", "illegal_top", "unseen_choice")
"""What the loop counts, in the order of its ``counts`` (fields of ``ParseStats``)."""

_said: set[str] = set()


def _say_once(message: str) -> None:
    if message not in _said:
        _said.add(message)
        warnings.warn(message, BarleyWarning, stacklevel=3)


def loop_module():
    """The compiled module, or None (said once) when it is not there or not wanted."""
    if os.environ.get("BARLEY_NO_FAST", "") not in ("", "0"):
        return None
    try:
        loop = importlib.import_module("barley.transition.fast._loop")
    except ImportError as error:
        _say_once(f"the compiled parsing loop is not available ({error}); parsing takes the slower reference "
                  f"path (install barley where a C compiler is present: pip install .)")
        return None
    return loop


def compile_parser(parser) -> CompiledParser | None:
    """The compiled loop for a transition ``parser``, or None (said once) when there is none.

    The loop checks every table it is given (``_loop.Program``); a table it refuses (which the
    model's loader should have refused already, :mod:`barley.models.check`) is a ModelError."""
    module = loop_module()
    if module is None:
        return None
    if parser.system.name not in SYSTEMS:
        _say_once(f"the compiled parsing loop does not know the transition system {parser.system.name!r}: "
                  f"parsing takes the reference path")
        return None
    scorer = _scorer(parser.learner, parser.index.size, len(parser.classes))
    if isinstance(scorer, str):
        _say_once(f"{scorer}: parsing takes the reference path")
        return None
    try:
        return CompiledParser(module, parser, scorer)
    except ValueError as error:
        raise ModelError(f"the compiled parsing loop refuses the model's tables ({error})",
                         fix="the model file is damaged or was edited: train the model again") from None


class CompiledParser:
    """``parse_batch`` of :mod:`barley.transition.loop`, compiled, for one parser."""

    def __init__(self, module, parser, scorer: dict):
        featurizer = parser.featurizer
        attributes = [a for a in parser.vocabularies if a != "FEATS"]  # TokenTable's columns
        split = featurizer.split_extractor
        self.parser = parser
        self.program = module.Program(
            SYSTEMS[parser.system.name], parser.system.single_root, list(parser.system.labeled),
            reader_tables(featurizer.extractor, featurizer.sizes, attributes),
            reader_tables(split, featurizer.split_sizes, attributes) if split else None,
            index_tables(parser.index, featurizer.extractor.template_spaces(featurizer.sizes)), scorer,
            parser.classes[:, 0], parser.classes[:, 1], len(parser.labels),
            [(-1, 0) if address is None else (BASES[address[0]], address[1]) for address in parser.system.attaches])

    def keeps(self, given: Sequence) -> bool:
        """Can the loop keep these given arcs (per sentence, a ``SentenceArcs`` or None)? For
        arc-eager and arc-hybrid, without forbidden arcs (:func:`keep_given_arcs` in the loop)."""
        return (self.parser.system.name in GUIDED_SYSTEMS
                and not any(arcs is not None and arcs.forbidden for arcs in given))

    def parse_batch(self, sentences: Sequence, stats, trace: list | None = None, given: Sequence | None = None,
                    evidence: list | None = None) -> list[tuple[list[int], list[int]]]:
        """Like :func:`barley.transition.loop.parse_batch`; ``trace`` (a list) receives, per sentence,
        the list of its transitions ``(move, label, row)`` (row None for a forced one);
        ``given``: per sentence, the arcs to keep (a :class:`barley.constraints.SentenceArcs` or
        None), where :meth:`keeps` says the loop can; ``evidence`` (a list) the batch's
        confidence evidence (:class:`barley.confidence.MoveSteps`)."""
        table, feats = self._table(sentences)
        rows = len(table.tokens)
        given_heads = given_labels = None
        if given is not None and any(arcs is not None for arcs in given):
            given_heads = np.full(rows, -1, dtype=np.int64)
            given_labels = np.full(rows, -1, dtype=np.int64)
            for start, arcs in zip(table.offsets.tolist(), given):
                if arcs is not None:
                    kept = arcs.kept_heads()
                    given_heads[start:start + len(kept)] = kept
                    given_labels[start:start + len(kept)] = [label if h != -1 else -1
                                                             for label, h in zip(arcs.labels, kept)]
        room = STEPS_PER_ROW * rows  # scored steps: under 2 per word for most systems
        traced = len(trace) if trace is not None else 0
        while True:  # twice at most: a second time with room for every step the first one counted
            if trace is not None:
                del trace[traced:]
            heads = np.empty(rows, dtype=np.int64)
            labels = np.empty(rows, dtype=np.int64)
            counts = np.zeros(len(COUNTERS), dtype=np.int64)
            steps = None if evidence is None else _StepArrays(rows, room, len(self.parser.classes),
                                                               len(self.parser.system.moves))
            self.program.parse(table.tokens, feats, table.offsets, heads, labels, counts, self.parser.root_label, trace,
                               given_heads, given_labels, *(() if steps is None else steps.arguments()))
            if steps is None or steps.count[0] <= room:
                break
            room = int(steps.count[0])
        if steps is not None:
            assert evidence is not None
            evidence.append(steps.evidence(table.offsets, self.parser.classes[:, 0]))
        _count(stats, sentences, table, counts)
        bounds = table.offsets.tolist()
        batch_heads, batch_labels = heads.tolist(), labels.tolist()
        return [(batch_heads[start:end], batch_labels[start:end]) for start, end in zip(bounds, bounds[1:])]

    def parse_batch_beam(self, sentences: Sequence, stats, width: int, most: int = 1
                         ) -> list[list[tuple[float, list[int], list[int]]]]:
        """:func:`barley.transition.beam.parse_batch_beam` without given arcs, compiled: per
        sentence, up to ``most`` distinct trees of its final beam of ``width``, best first, with their
        scores (``tests/transition/test_fast_beam.py``: the reference's trees and scores exactly)."""
        table, feats = self._table(sentences)
        rows = len(table.tokens)
        heads = np.empty((width, rows), dtype=np.int64)
        labels = np.empty((width, rows), dtype=np.int64)
        scores = np.empty((len(sentences), width), dtype=np.float64)
        sizes = np.empty(len(sentences), dtype=np.int64)
        counts = np.zeros(len(COUNTERS), dtype=np.int64)
        self.program.parse_beam(table.tokens, feats, table.offsets, width, heads, labels, scores, sizes, counts,
                                self.parser.root_label)
        _count(stats, sentences, table, counts)
        bounds = table.offsets.tolist()
        return [distinct(((float(scores[k, i]), heads[i, start:end].tolist(), labels[i, start:end].tolist())
                          for i in range(sizes[k])), most)
                for k, (start, end) in enumerate(zip(bounds, bounds[1:]))]

    def _table(self, sentences: Sequence) -> tuple:
        """The batch's token table and its FEATS (one -1 when the model reads none) for the loop."""
        table = self.parser.featurizer.table(sentences)
        return table, table.feats if table.feats is not None else np.full((1, 1), -1, dtype=np.int64)


def _count(stats, sentences: Sequence, table, counts: np.ndarray) -> None:
    """Add a parsed batch's sentences, words and the loop's ``counts`` to ``stats``."""
    stats.sentences += len(sentences)
    stats.words += int(table.offsets[-1]) - len(sentences)
    for name, count in zip(COUNTERS, counts.tolist()):
        setattr(stats, name, getattr(stats, name) + count)


STEPS_PER_ROW = 3
"""Room for scored steps per row of a batch's token table, to begin with (confidence)."""


class _StepArrays:
    """The arrays the loop fills for confidence (``Program.parse``)."""

    def __init__(self, rows: int, room: int, n_classes: int, n_moves: int):
        self.arc_scores = np.empty((rows, n_classes), dtype=np.float32)
        self.arc_class = np.full(rows, -1, dtype=np.int64)
        self.moves = np.empty((room, n_moves), dtype=np.float32)
        self.chosen = np.empty(room, dtype=np.int64)
        self.candidates = np.empty((room, n_moves), dtype=np.int64)
        self.count = np.zeros(1, dtype=np.int64)

    def arguments(self) -> tuple:
        return self.arc_scores, self.arc_class, self.moves, self.chosen, self.candidates, self.count

    def evidence(self, offsets: np.ndarray, class_moves: np.ndarray) -> MoveSteps:
        used = int(self.count[0])
        words = word_rows(offsets)
        return MoveSteps(self.moves[:used], self.chosen[:used], self.candidates[:used], self.arc_scores,
                         self.arc_class, class_moves, words)


def reader_tables(extractor, sizes: Sequence[int], attributes: Sequence[str]) -> dict[str, np.ndarray | int]:
    """An ``Extractor`` as the loop's ``Reader``: its addresses (inner ones first), its row
    and its key plan (``Extractor.key_plan``, the one the reference computes keys with)."""
    addresses = extractor.model.addresses()
    number = {address: k for k, address in enumerate(addresses)}
    tables: dict[str, list] = {name: [] for name in ("base", "index", "far", "inner", "function")}
    for address in addresses:
        far = address.index < 0  # counted from the far end: L[-1] is the last element
        inner = number[Address(address.base, address.index, address.path[:-1])] if address.path else -1
        tables["base"].append(BASES[address.base])
        tables["index"].append(-address.index - 1 if far else address.index)
        tables["far"].append(far)
        tables["inner"].append(inner)
        tables["function"].append(FUNCTIONS[address.path[-1]] if address.path else 0)
    plan = extractor.key_plan(tuple(sizes), tuple(attributes))
    constant = len(extractor.atoms)
    feats = plan.feats_templates
    return {
        **tables,
        "position_address": [number[a] for a in extractor.position_columns],
        "value_kind": [VALUE_KINDS[atom.attribute] for atom in extractor.value_atoms],
        "value_address": [number[atom.addresses[0]] for atom in extractor.value_atoms],
        "n_atoms": constant,
        "token_atom": plan.token_atoms, "token_column": plan.token_positions,
        "token_attribute": plan.token_attributes,
        "value_atom": plan.value_atoms, "value_column": plan.value_columns,
        "dist_atom": [atom for atom, _ in plan.dist_atoms], "dist_a": [a for _, (a, _) in plan.dist_atoms],
        "dist_b": [b for _, (_, b) in plan.dist_atoms],
        "scalar_atoms": plan.scalar_atoms, "scalar_multipliers": plan.scalar_multipliers,
        "scalar_template": plan.scalar_templates,
        "feats_template": [t for t, *_ in feats],
        "feats_atoms": [list(atoms) + [constant] * (3 - len(atoms)) for _, atoms, *_ in feats],
        "feats_multipliers": [list(multipliers) + [0] * (3 - len(multipliers)) for _, _, multipliers, *_ in feats],
        "feats_column": [column for *_, column, _ in feats],
        "feats_multiplier": [multiplier for *_, multiplier in feats],
    }


def index_tables(index, spaces: Sequence[int]) -> dict[str, np.ndarray | int]:
    """A ``FeatureIndex`` as the loop's ``Index``: sorted keys and the direct tables, with the
    number of values of each template (``spaces``: how long its direct table is)."""
    tables = index.direct_tables()
    if tables is None:
        tables = (len(spaces), np.full(len(spaces), -1, dtype=np.int64), np.zeros(0, dtype=np.int32))
    count, offsets, direct = tables
    return {"size": index.size, "keys": index.keys, "template_count": count, "direct_offset": offsets,
            "direct": direct, "spaces": spaces}


def _scorer(learner, n_features: int, n_classes: int) -> dict | str:
    """A linear ``learner`` as the loop's ``Scorer``; a string saying why not otherwise."""
    from barley.learners import SplitLearner

    if learner.n_classes != n_classes:
        return f"the {learner.name} learner scores {learner.n_classes} classes, not the parser's {n_classes}"
    none = {"split": False, "n_parts": 0, "part_values": [], "part_rows": [], "columns": []}
    if isinstance(learner, SplitLearner):
        rows, _, weights, intercepts = learner.scoring_tables()
        if weights is None:
            return f"the {learner.base} learner has no compiled scorer"
        if rows.shape[1] != n_features + 1:
            return "the split learner's features are not the index's"
        return {**none, "split": True, "n_classes": n_classes, "width": n_classes, "weights": weights,
                "bias": intercepts, "n_parts": len(learner.values), "part_values": learner.values,
                "part_rows": rows}
    if learner.name not in ("linear", "perceptron"):
        return f"the {learner.name} learner has no compiled scorer"
    sparse = learner.sparse_rows() if learner.name == "linear" else None  # a loaded model: no dense matrix
    if (learner.n_features if sparse is not None else learner.weights.shape[0] - 1) != n_features:
        return f"the {learner.name} learner's features are not the index's"
    bias = getattr(learner, "bias", np.zeros(len(learner.classes), dtype=np.float32))
    return {**none, "n_classes": n_classes, "width": len(learner.classes),
            "weights": learner.weights if sparse is None else None, "sparse": sparse, "bias": bias,
            "columns": learner.classes}
