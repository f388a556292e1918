"""The fast path: greedy transition parsing of whole sentences in compiled code.

The reference path (:func:`barley.batch.parse_batch`: the systems' ``legal``/``apply``,
the feature model's ``row``, numpy keys and ids, the learner's ``scores``) spends its
time in Python at every transition. :mod:`barley.fast._loop` (Cython) runs the same
steps for a whole batch without Python per transition, for every transition system
and the linear learners (linear, perceptron, and the data split over them), and is
tested to give the reference's transitions, rows and trees exactly
(``tests/test_fast.py``). This module turns a :class:`barley.parser.Parser` into the
tables the loop reads (:func:`compile_parser`) and its output back into the reference's.

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

from barley.errors import BarleyWarning, ModelError
from barley.features.model import Address

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
        loop = importlib.import_module("barley.fast._loop")
    except ImportError as error:
        _say_once(f"the compiled parsing loop is not available ({error}); parsing takes the slower reference "
                  f"path (install barley where a C compiler is present: pip install .)")
        return None
    return loop


def compile_parser(parser) -> CompiledParser | None:
    """The compiled loop for a transition ``parser``, or None (said once) when there is none.

    The loop checks every table it is given (``_loop.Program``); a table it refuses (which the
    model's loader should have refused already, :mod:`barley.model_check`) is a ModelError."""
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
    """``parse_batch`` of :mod:`barley.batch`, compiled, for one parser."""

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
            parser.classes[:, 0], parser.classes[:, 1], len(parser.labels))

    def keeps(self, given: Sequence) -> bool:
        """Can the loop keep these given arcs (per sentence, a ``SentenceArcs`` or None)? For
        arc-eager and arc-hybrid, without forbidden arcs (:func:`keep_given_arcs` in the loop)."""
        return (self.parser.system.name in GUIDED_SYSTEMS
                and not any(arcs is not None and arcs.forbidden for arcs in given))

    def parse_batch(self, sentences: Sequence, stats, trace: list | None = None,
                    given: Sequence | None = None) -> list[tuple[list[int], list[int]]]:
        """Like :func:`barley.batch.parse_batch`; ``trace`` (a list) receives, per sentence,
        the list of its transitions ``(move, label, row)`` (row None for a forced one);
        ``given``: per sentence, the arcs to keep (a :class:`barley.constraints.SentenceArcs` or
        None), where :meth:`keeps` says the loop can."""
        table = self.parser.featurizer.table(sentences)
        feats = table.feats if table.feats is not None else np.full((1, 1), -1, dtype=np.int64)
        heads = np.empty(len(table.tokens), dtype=np.int64)
        labels = np.empty(len(table.tokens), dtype=np.int64)
        counts = np.zeros(len(COUNTERS), dtype=np.int64)
        given_heads = given_labels = None
        if given is not None and any(arcs is not None for arcs in given):
            given_heads = np.full(len(table.tokens), -1, dtype=np.int64)
            given_labels = np.full(len(table.tokens), -1, dtype=np.int64)
            for start, arcs in zip(table.offsets.tolist(), given):
                if arcs is not None:
                    kept = arcs.kept_heads()
                    given_heads[start:start + len(kept)] = kept
                    given_labels[start:start + len(kept)] = [label if h != -1 else -1
                                                             for label, h in zip(arcs.labels, kept)]
        self.program.parse(table.tokens, feats, table.offsets, heads, labels, counts, self.parser.root_label, trace,
                           given_heads, given_labels)
        stats.sentences += len(sentences)
        stats.words += int(table.offsets[-1]) - len(sentences)
        for name, count in zip(COUNTERS, counts.tolist()):
            setattr(stats, name, getattr(stats, name) + count)
        bounds = table.offsets.tolist()
        heads, labels = heads.tolist(), labels.tolist()
        return [(heads[start:end], labels[start:end]) for start, end in zip(bounds, bounds[1:])]


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
