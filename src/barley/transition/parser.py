"""A transition-based parser: (transforms ∘) transition system + feature model + learner.

Training (Nivre 2008 §6.1): every training sentence is parsed by the system's
static oracle; each configuration where the next transition is not forced gives
one instance (features of the configuration, the oracle's (move, label)); the
learner is fitted on all of them. Parsing is greedy (:mod:`barley.transition.loop`).

Gold trees pass through the ``transforms`` (e.g. pseudo-projective lifting) before
the oracle, and parser output passes through their inverses in reverse order. A
transform is an object with ``forward(heads, deprels)`` and ``inverse(heads,
deprels)`` returning new ``(heads, deprels)``, ``fit(trees)`` and ``to_json()``;
:func:`train` fits each on the training trees, and loading restores it from the
manifest by ``barley.transforms.from_json``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from barley import __version__
from barley.conllu import Sentence
from barley.constraints import ArcOptions, SentenceArcs, guides, labels_kept, require_support
from barley.errors import BarleyError, InputError
from barley.features import load_model, parse_model
from barley.features.extract import FeatureIndex
from barley.features.model import TOKEN_ATTRIBUTES, FeatureModel, parse_feature
from barley.features.vocabulary import COLUMN_OF, Vocabulary, build_vocabularies, describe_vocabularies
from barley.kinds import ParserKind, check_choice, in_length_batches, options_of
from barley.learners import SplitLearner, learner_class, make_learner, rows_to_csr
from barley.models import check
from barley.systems import get_system
from barley.systems.base import NoDynamicOracle, TransitionSystem
from barley.trained_parser import ParserShell
from barley.transforms import describe_transforms, of_manifest
from barley.transition.beam import parse_batch_beam
from barley.transition.featurize import Featurizer
from barley.transition.global_training import DEFAULT_UPDATE, UPDATES, train_global
from barley.transition.loop import ParseStats, parse_batch
from barley.transition.training import (
    Classes,
    Exploration,
    Instances,
    collect_instances,
    explore,
    perceptron_exploration,
)
from barley.tree import label_ids, label_table
from barley.valid_ud import Mending, UDRules
from barley.valid_ud import require_support as require_valid_ud

OUTSIDE_CLASS = ("nearest", "skip", "error")
VOCABULARY_WARNING = {"UPOS": 100, "XPOS": 1000, "FEATS": 3000, "DEPREL": 500}
BATCH_SIZE = 512
SORT_WINDOW = 8
"""Parsing reads this many batches ahead to group sentences of similar length."""
MIN_FEATURE_COUNT = 1


class Parser(ParserShell):
    """A trained parser. ``parse`` fills HEAD and DEPREL; everything else is kept."""

    kind = "transition"
    capabilities = frozenset({"nbest", "valid_ud", "beam"})  # barley.capabilities

    def __init__(self, system: TransitionSystem, features: FeatureModel, vocabularies: dict[str, Vocabulary],
                 labels: list[str], root_label: int, classes: np.ndarray, index: FeatureIndex, learner,
                 split_feature: str | None = None, transforms: Sequence = (), manifest: dict | None = None):
        super().__init__(labels, transforms, manifest)
        self.system = system
        self.features = features
        self.vocabularies = vocabularies
        self.root_label = root_label
        self.classes = classes
        self.learner = learner
        self.split_feature = split_feature
        self.featurizer = Featurizer(features, system, vocabularies, len(labels), split_feature)
        self.featurizer.use_index(index)
        self.stats = ParseStats()
        self._compiled = None  # the compiled loop (barley.transition.fast), built on the first parse; False: none
        self.valid_ud: UDRules | None = None  # barley parse --valid-ud (barley.valid_ud)
        self.beam = trained_beam(self.manifest)  # barley parse --beam: the width (1: greedy)

    @property
    def compiled(self):
        """The compiled parsing loop for this parser (:mod:`barley.transition.fast`), or None: parse with
        the reference path (:func:`barley.transition.loop.parse_batch`)."""
        if self._compiled is None:
            from barley.transition.fast import compile_parser

            self._compiled = compile_parser(self) or False
        return self._compiled or None

    @property
    def index(self) -> FeatureIndex:
        assert self.featurizer.index is not None
        return self.featurizer.index

    def set_beam(self, width: int | None) -> None:
        """Parse with a beam of ``width`` configurations per sentence (:mod:`barley.transition.beam`); 1 is
        greedy (by the compiled loop where there is one); None: the width the model was trained at
        (``barley train --beam``), else 1."""
        if width is not None and width < 1:
            raise BarleyError(f"the beam's width must be at least 1, not {width}", fix="e.g. --beam 8")
        self.beam = trained_beam(self.manifest) if width is None else width

    def set_nbest(self, k: int | None) -> None:
        """Parse into the ``k`` best trees of each sentence (None: the best tree only): the distinct
        trees of the final beam, whose width is then at least ``k`` (:func:`barley.transition.beam.distinct_trees`)."""
        self.nbest = k

    @property
    def width(self) -> int:
        """The beam's width this parse: ``beam``, at least ``nbest``."""
        return max(self.beam, self.nbest or 1)

    def scores(self, ids: np.ndarray, split_values: np.ndarray | None) -> np.ndarray:
        """The learner's scores of feature ids; the split feature's values (None without a
        data split, :meth:`Featurizer.ids`) go to the split learner alone."""
        return self.learner.scores(ids) if split_values is None else self.learner.scores(ids, split_values)

    def parse(self, sentences: Iterable[Sentence], batch_size: int = BATCH_SIZE,
              arcs: ArcOptions | None = None) -> Iterator[Sentence]:
        """Parse sentences (in place) and yield them in input order, streaming: in batches of
        ``batch_size`` sentences of similar length, read ``SORT_WINDOW`` batches ahead
        (:func:`barley.kinds.in_length_batches`). ``arcs``: keep the given arcs and avoid the
        forbidden ones (:mod:`barley.constraints`)."""
        require_support(self.system, arcs)
        if self.confidence is not None and self.width > 1:
            raise BarleyError("--confidence is not yet written with a beam (--beam or --nbest): its probabilities "
                              "are those of the greedy parser's steps", fix="parse with --beam 1 for --confidence")
        parsed = in_length_batches(sentences, lambda batch: self._parse_with_arcs(batch, arcs),
                                   batch_size * SORT_WINDOW, lambda order, _: [order[start:start + batch_size]
                                                                               for start in range(0, len(order),
                                                                                                  batch_size)])
        return self.with_analyses(parsed)

    def set_valid_ud(self, on: bool) -> None:
        """Keep UD's structural rules in every tree (``barley parse --valid-ud``, :mod:`barley.valid_ud`)
        or not: each tree mended after the parse (:meth:`barley.valid_ud.UDRules.finish`)."""
        if on:
            require_valid_ud(f"{self.system.name} parser", self.transforms, self.width)
        self.valid_ud = UDRules(self.labels) if on else None

    def _parse_with_arcs(self, batch: list[Sentence], arcs: ArcOptions | None) -> None:
        """The sentences of ``batch`` without given arcs parsed together, then those with them."""
        given = self.given(batch, arcs, self.system.tree_class, f"{self.system.name} system")
        free = [k for k, g in enumerate(given) if g is None]
        if free:
            self._parse_batch([batch[k] for k in free], [None] * len(free))
        constrained = [k for k, g in enumerate(given) if g is not None]
        if constrained:
            self._parse_batch([batch[k] for k in constrained], [given[k] for k in constrained])

    def _parse_batch(self, batch: list[Sentence], given: list[SentenceArcs | None]) -> list[Sentence]:
        """Parse ``batch``, keeping the ``given`` arcs: by the compiled loop where it can
        (:meth:`barley.transition.fast.CompiledParser.keeps`), else by the reference path, guided by
        :class:`barley.constraints.TransitionGuide`."""
        if self.width > 1 or self.nbest is not None:
            return self._parse_beam(batch, given)
        compiled = self.compiled
        evidence: list | None = None if self.confidence is None and self.valid_ud is None else []  # valid_ud: finish weighs labels
        if compiled and (not any(given) or compiled.keeps(given)):
            results = compiled.parse_batch(batch, self.stats, given=given, evidence=evidence)
        else:  # the reference path: given arcs the compiled loop does not keep
            results = parse_batch(self, batch, self.stats, guides(self.system, given), evidence)
        mend = None if self.valid_ud is None else Mending(self.valid_ud, cast(list, evidence)[0], self.classes[:, 1])
        for sentence, (heads, ids), arcs in zip(batch, results, given):
            if mend is not None:
                heads, ids = mend(heads, ids, sentence.words, arcs)
            ids = labels_kept(ids, arcs)  # a root arc that finalize built takes its given label too
            self.set_tree(sentence, heads, self.deprels(ids), arcs, self.system.single_root)
        if self.confidence is not None:  # a word keeps its probabilities through the inverse transforms
            assert evidence is not None
            self.confidence.write(batch, evidence[0], self.calibrated)
        return batch

    def _parse_beam(self, batch: list[Sentence], given: list[SentenceArcs | None]) -> list[Sentence]:
        """Parse ``batch`` with the beam, by the compiled loop where there is one and no arcs are given,
        else by the reference path, each item kept to the ``given`` arcs; with ``nbest``, each
        sentence's distinct trees go to its analyses (:mod:`barley.nbest`)."""
        compiled = self.compiled
        if compiled and self.valid_ud is None and not any(given):
            ranked = compiled.parse_batch_beam(batch, self.stats, self.width, self.nbest or 1)
        else:
            ranked = parse_batch_beam(self, batch, self.stats, self.width, guides(self.system, given),
                                      self.nbest or 1)
        for sentence, trees, arcs in zip(batch, ranked, given):
            if self.nbest is not None:  # not with arcs (Pipeline.parse refuses the two together)
                self.keep_analyses(sentence, [(score, heads, self.deprels(ids)) for score, heads, ids in trees])
                continue
            _, heads, ids = trees[0]
            self.set_tree(sentence, heads, self.deprels(labels_kept(ids, arcs)), arcs, self.system.single_root)
        return batch

    # --- model files ------------------------------------------------------------------

    def _features_source(self) -> str:
        """Where the feature model came from: the file or default it was trained with, kept through
        loading and saving (a loaded model's own text names the model file only in errors)."""
        kept = self.manifest.get("features_source")
        return kept if isinstance(kept, str) else self.features.source

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        """The manifest and arrays of this parser (what :meth:`save` writes; a pipeline embeds them)."""
        learner_params, learner_arrays = self.learner.to_arrays()
        manifest = dict(self.manifest)
        manifest.update({
            "barley_version": __version__,
            "parser": "transition",
            "system": {"name": self.system.name, "single_root": self.system.single_root},
            "features": self.features.text,
            "features_source": self._features_source(),
            "vocabularies": {name: v.to_json() for name, v in self.vocabularies.items()},
            "labels": self.labels,
            "root_label": self.labels[self.root_label],
            "learner": {"name": "split" if isinstance(self.learner, SplitLearner) else self.learner.name,
                        "params": learner_params, "split_feature": self.split_feature},
            "transforms": [t.to_json() for t in self.transforms],
        })
        arrays: dict[str, np.ndarray] = {"classes": self.classes.astype(np.int32), "feature_keys": self.index.keys}
        arrays.update({f"learner.{key}": value for key, value in learner_arrays.items()})
        return manifest, arrays

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> Parser:
        """A parser from the manifest and arrays of :meth:`to_files` (``path`` names it in errors),
        each checked first (:mod:`barley.models.check`): the classes are the system's (move, label)
        pairs over the labels, the feature keys increasing, the learner's arrays fit those classes
        and features."""
        with check.loading(path, "transition"):
            system_info = check.mapping(manifest["system"], "the manifest's system")
            system = get_system(check.text(system_info["name"], "the system's name"),
                                single_root=check.boolean(system_info["single_root"], "the system's single_root"))
            features = parse_model(check.text(manifest["features"], "the feature model"), f"{path}:features")
            vocabularies = {}
            for name, values in check.mapping(manifest["vocabularies"], "the vocabularies").items():
                if name not in COLUMN_OF:
                    check.fail(f"a vocabulary of {name!r}, which is no token attribute")
                vocabularies[name] = Vocabulary(check.texts(values, f"the {name} vocabulary"))
            labels = check.texts(manifest["labels"], "the labels", field=True, unique=True)
            root_label = labels.index(check.text(manifest["root_label"], "the root label"))
            table = Classes(system, labels).table
            sizes = check.arrays(arrays, {"classes": check.Array("int", (len(table), 2)),
                                          "feature_keys": check.Array("int", ("features",), low=0,
                                                                      order="increasing")},
                                 others=("learner.",))
            if not np.array_equal(arrays["classes"], table):
                check.fail(f"{check.array_name(arrays, 'classes')} is not the (move, label) pairs of "
                           f"{system.name} over the model's {len(labels)} labels")
            learner_info = check.mapping(manifest["learner"], "the learner")
            learner_name = check.text(learner_info["name"], "the learner's name")
            split_feature = learner_info.get("split_feature")
            if (learner_name == "split") != (split_feature is not None):
                check.fail("a split learner needs its split feature, and only a split learner has one")
            if split_feature is not None:
                _split_atom_check(check.text(split_feature, "the split feature"))
            base = SplitLearner if learner_name == "split" else learner_class(learner_name)
            learner = base.from_arrays(learner_info["params"], check.part(arrays, "learner."), n_classes=len(table),
                                       n_features=sizes["features"])
            return cls(system, features, vocabularies, labels, root_label, table,
                       FeatureIndex(arrays["feature_keys"]), learner, split_feature, of_manifest(manifest), manifest)


def trained_beam(manifest: dict) -> int:
    """The beam width a model was trained at (``barley train --beam``, global training), which it
    parses with unless told otherwise; 1 (greedy) for a model trained locally."""
    width = manifest.get("training", {}).get("beam")
    return width if isinstance(width, int) and not isinstance(width, bool) and width >= 1 else 1


# --- training ---------------------------------------------------------------------------

DEFAULT_SPLIT = {"svm-poly2": "XPOS(Input[0])"}
"""The data split of each learner unless told otherwise: svm-poly2 as in Nivre (2008,
§6.1), by the fine POS of the first buffer word. The linear learner does not split by
default: UPOS(Input[0]) halves its training time and memory on UD_English-EWT at the
same LAS for arc-eager, but costs swap-lazy 1.3–2.7 LAS (bench/bench_parser.py --split)."""


def _split_atom_check(split_feature: str) -> str:
    try:
        feature = parse_feature(split_feature)
    except ValueError as error:
        raise BarleyError(f"bad split feature {split_feature!r}: {error}",
                          fix="e.g. --split 'UPOS(Input[0])'") from None
    if len(feature.atoms) != 1 or feature.atoms[0].attribute == "FEATS":
        raise BarleyError(f"split feature {split_feature!r} must be one single-valued atom",
                          fix="e.g. --split 'UPOS(Input[0])'")
    return str(feature)


def train_transition(sentences: list[Sentence], trees: list, *, source: str, single_root: bool, seed: int,
                     tags: str, transforms: Sequence, log: Callable[[str], None], system: str = "arc-eager",
                     learner: str = "linear", features: str | None = None, split: str | None = "default",
                     split_threshold: int = 1000, learner_options: dict | None = None, epochs: int | None = None,
                     min_feature_count: int = MIN_FEATURE_COUNT, outside_class: str = "nearest",
                     oracle: str | None = None, explore_after: int | None = None,
                     explore_p: float | None = None, beam: int | None = None, update: str | None = None) -> Parser:
    """A greedy transition-based parser (the ``transition`` kind of :func:`train`).

    ``features``: a feature file (default: the system's). ``outside_class``: what to do
    with a training tree the system cannot build: ``nearest`` (train on the oracle's
    nearest tree), ``skip`` or ``error``. ``split``: MaltParser's data split by one
    feature (e.g. ``"UPOS(Input[0])"``), values with fewer than ``split_threshold``
    instances share one classifier; ``"default"`` is the learner's own
    (:data:`DEFAULT_SPLIT`), ``None`` or ``"none"`` no split. ``epochs``: the
    perceptron's (a shorthand for ``learner_options``). ``min_feature_count``: features
    seen in fewer training instances are left out (smaller model, less memory).
    ``oracle``: ``static`` (train on the static oracle's instances) or ``dynamic`` (the
    perceptron trained by exploration, :mod:`barley.transition.training`: ``explore_after`` and
    ``explore_p`` are :class:`Exploration`'s ``after`` and ``p``, by default
    :func:`barley.transition.training.perceptron_exploration`); None: the best measured
    (:func:`default_oracle`). ``beam``: train the perceptron globally with a beam of this width
    (:mod:`barley.transition.global_training`; the gold sequence is the static oracle's), ``update`` ``early``
    or ``max-violation`` (the default); the model then parses with that width unless told
    otherwise (:func:`trained_beam`). It owns ``sentences`` and
    ``trees`` (the lists :func:`train` made): with the static oracle it empties them once
    the instances are collected, to free their memory before the learner is fitted.
    """
    check_choice(outside_class, OUTSIDE_CLASS, "--outside-class")
    if beam is None and update is not None:
        raise BarleyError("--update is how global training with a beam updates", fix="add --beam K, or leave it out")
    if beam is not None:
        if beam < 1 or learner != "perceptron" or split not in ("default", "none", None) or oracle == "dynamic":
            raise BarleyError(f"--beam {beam} trains the perceptron globally (-l perceptron, no --split, the static "
                              f"oracle's sequences; a width of at least 1)",
                              fix="use -l perceptron without --split and --oracle dynamic, or leave --beam out")
        update = DEFAULT_UPDATE if update is None else update
        check_choice(update, UPDATES, "--update")
        oracle = "static"
    oracle = default_oracle(system, learner, split) if oracle is None else oracle
    check_choice(oracle, ORACLES, "--oracle")
    if min_feature_count < 1:
        raise BarleyError(f"--min-feature-count must be at least 1, not {min_feature_count}")
    if oracle == "static" and (explore_after, explore_p) != (None, None):
        raise BarleyError("--explore-after and --explore-p apply to --oracle dynamic only",
                          fix="add --oracle dynamic, or leave them out")
    exploration = perceptron_exploration(get_system(system)).given(explore_after, explore_p)  # checked early
    options = dict(learner_options or {}) | ({} if epochs is None else {"epochs": epochs})
    plan = _plan(sentences, trees, system, features, learner, split, single_root, oracle, options)
    _log_plan(plan, sentences, source, learner, split_threshold, tags, log)
    trained = _train_transition(plan, sentences, trees, learner=learner, split_threshold=split_threshold,
                                min_feature_count=min_feature_count, outside_class=outside_class,
                                exploration=exploration, seed=seed, log=log, beam=beam, update=update)
    trained.transforms = list(transforms)
    return trained


ORACLES = ("static", "dynamic")


def default_oracle(system: str, learner: str, split: str | None) -> str:
    """The oracle a transition parser trains with unless told: the best measured. Training by
    exploration gains LAS for the perceptron on UD_English-EWT (README, "Training by
    exploration"), so it is the unsplit perceptron's where the system has costs; the batch
    learners (and a split perceptron) learn from the static oracle's instances."""
    split = DEFAULT_SPLIT.get(learner) if split == "default" else None if split == "none" else split
    explores = learner == "perceptron" and not split and get_system(system).exploration_oracle
    return "dynamic" if explores else "static"


@dataclass
class _Plan:
    """What a transition parser is trained with, decided before any instance."""

    system: TransitionSystem
    model: FeatureModel
    vocabularies: dict[str, Vocabulary]
    labels: list[str]
    root_label: int
    split_feature: str | None
    oracle: str
    learner_options: dict
    featurizer: Featurizer = None  # type: ignore[assignment]  # built by __post_init__
    classes: Classes = None  # type: ignore[assignment]  # built by __post_init__

    def __post_init__(self) -> None:
        self.featurizer = Featurizer(self.model, self.system, self.vocabularies, len(self.labels), self.split_feature)
        self.classes = Classes(self.system, self.labels)


def _plan(sentences: list[Sentence], trees: list, system: str, features: str | None, learner: str,
          split: str | None, single_root: bool, oracle: str, learner_options: dict) -> _Plan:
    make_learner(learner, **learner_options)  # refuses an option the learner does not take, before the long work
    the_system = get_system(system, single_root=single_root)
    model = load_model(features, the_system.name)
    split = DEFAULT_SPLIT.get(learner) if split == "default" else None if split == "none" else split
    split_feature = _split_atom_check(split) if split else None
    if oracle == "dynamic":
        if learner != "perceptron" or split_feature:
            raise BarleyError(f"--oracle dynamic trains the perceptron by exploration, not the {learner} learner"
                              + (f" split by {split_feature}" if split_feature else ""),
                              fix="use -l perceptron (without --split), or --oracle static")
        if not the_system.exploration_oracle:
            raise NoDynamicOracle(the_system.name)
    labels, root_label = label_table(trees)
    used = {atom.attribute for atom in model.atoms()} | ({parse_feature(split_feature).atoms[0].attribute}
                                                        if split_feature else set())
    vocabularies = build_vocabularies(sentences, [a for a in TOKEN_ATTRIBUTES if a in used])
    return _Plan(the_system, model, vocabularies, labels, root_label, split_feature, oracle, learner_options)


def _log_plan(plan: _Plan, sentences: list[Sentence], source: str, learner: str, split_threshold: int, tags: str,
              log: Callable[[str], None]) -> None:
    words = sum(len(s) for s in sentences)
    log(f"training {plan.system.name} ({plan.oracle} oracle{', single root' if plan.system.single_root else ''}) "
        f"on {source}: {len(sentences)} sentences, {words} words; tags: {tags}")
    log(f"features: {len(plan.model.features)} templates from {plan.model.source}; learner: {learner}"
        + (f", split by {plan.split_feature} (threshold {split_threshold})" if plan.split_feature else ""))
    log("vocabularies: " + ", ".join(f"{name} {len(v) - 3}" for name, v in plan.vocabularies.items())
        + f", DEPREL {len(plan.labels)} (root label {plan.labels[plan.root_label]!r})")
    for name, limit in VOCABULARY_WARNING.items():
        vocabulary = plan.vocabularies.get(name)
        size = len(plan.labels) if name == "DEPREL" else len(vocabulary) - 3 if vocabulary else 0
        if size > limit:
            log(f"warning: {name} has {size} distinct values (more than {limit}): is the column what it "
                f"should be (e.g. ids or whole analyses inside it)? Training may be slow and the model large")


OUTSIDE_SHARE_ADVISED = 0.05
"""The share of training trees outside a system's class above which training says what learns them: at 5%,
a projective parser misses at least one arc in one sentence of twenty (UD_Latin-Perseus: 41% of its training
sentences are non-projective)."""
_SUGGESTION = ("; so many that a parser that learns them may do better: --pseudo-projective head "
               "(Nivre & Nilsson 2005, docs/transforms.md), a non-projective system (--system swap-lazy, "
               "covington-nonprojective, 2-planar) or --parser graph")


def _train_transition(plan: _Plan, sentences: list[Sentence], trees: list, *, learner: str, split_threshold: int,
                      min_feature_count: int, outside_class: str, exploration: Exploration, seed: int,
                      log: Callable[[str], None], beam: int | None = None, update: str | None = None) -> Parser:
    """Instances from the static oracle, then the learner fitted on them or (dynamic oracle)
    the perceptron trained by exploration, or (``beam``) globally, on the trees the static oracle
    could build."""
    id_trees = [(heads, ids) for (heads, _), ids in zip(trees, label_ids(trees, plan.labels))]
    found = collect_instances(plan.system, plan.featurizer, plan.classes, plan.root_label, sentences, id_trees,
                              outside_class)
    action = {"nearest": "trained on the oracle's nearest tree", "skip": "skipped"}[outside_class]
    log(f"outside {plan.system.name}'s class: {found.outside} of {len(sentences)} sentences ({action})"
        + (_SUGGESTION if found.outside >= OUTSIDE_SHARE_ADVISED * len(sentences) else ""))
    if not found.classes:
        raise InputError("the oracle produced no training instance", path=sentences[0].source,
                         fix="give more or longer training sentences")
    instances = len(found.classes)
    index = FeatureIndex.fit(found.key_chunks, min_feature_count)
    training = {"instances": instances, "outside_class": outside_class, "outside_class_sentences": found.outside,
                "seed": seed, "learner_options": plan.learner_options, "min_feature_count": min_feature_count,
                "split": plan.split_feature, "split_threshold": split_threshold if plan.split_feature else None}
    if beam is not None:
        plan.featurizer.use_index(index)
        epochs = make_learner(learner, **plan.learner_options).epochs
        log(f"instances of the static oracle: {instances}, features: {index.size}; training the perceptron "
            f"globally with a beam of {beam} ({epochs} epochs, {update} update)")
        assert update is not None
        the_learner = train_global(plan.system, plan.featurizer, plan.classes, sentences, found.trees, width=beam,
                                   update=update, epochs=epochs, seed=seed, log=log)
        assert plan.featurizer.index is not None
        index = _pruned(the_learner, plan.featurizer.index, log)  # grown by the updates
        training.update({"beam": beam, "update": update})
    elif plan.oracle == "dynamic":
        plan.featurizer.use_index(index)
        epochs = make_learner(learner, **plan.learner_options).epochs
        log(f"instances of the static oracle: {instances}, features: {index.size}; training the perceptron by "
            f"exploration ({epochs} epochs, following its own mistakes with p = {exploration.p} "
            f"after {exploration.after})")
        the_learner = explore(plan.system, plan.featurizer, plan.classes, sentences, found.trees, epochs=epochs,
                              explore_after=exploration.after, p=exploration.p, seed=seed, log=log)
        assert plan.featurizer.index is not None
        index = _pruned(the_learner, plan.featurizer.index, log)  # grown by exploration
        training["exploration"] = {"after": exploration.after, "p": exploration.p}
    else:
        del id_trees, found.trees
        sentences.clear()  # the lists :func:`train` made: a batch learner needs only the instances (memory)
        trees.clear()
        the_learner, index = _fit(plan, found, index, learner, split_threshold, min_feature_count, seed, log)
    training["features"] = int(index.size)
    return Parser(plan.system, plan.model, plan.vocabularies, plan.labels, plan.root_label, plan.classes.table,
                  index, the_learner, plan.split_feature, (), {"oracle": plan.oracle, "training": training})


def _fit(plan: _Plan, found: Instances, index: FeatureIndex, learner: str, split_threshold: int,
         min_feature_count: int, seed: int, log: Callable[[str], None]):
    """The learner fitted on the static oracle's instances (``found``, drained), and the index
    of the features it uses."""
    X = rows_to_csr(_drained_ids(index, found.key_chunks), index.size)
    y = np.array(found.classes, dtype=np.int64)
    split_values = np.concatenate(found.split_chunks) if found.split_chunks else None
    found.classes, found.split_chunks = [], []
    n_classes = len(plan.classes.table)
    seen_classes = len(np.unique(y))
    log(f"instances: {len(y)}, features: {index.size}"
        + (f" (seen at least {min_feature_count} times)" if min_feature_count > 1 else "")
        + f", classes seen: {seen_classes} of {n_classes}; "
        f"fitting the {learner} learner (about {_eta_seconds(learner, X.nnz, seen_classes):.0f} s)")
    fit_started = time.perf_counter()
    if plan.split_feature:
        the_learner = SplitLearner(learner, split_threshold, **plan.learner_options)
        assert split_values is not None
        the_learner.fit(X, y, n_classes, seed=seed, log=log, split_values=split_values)
    else:
        the_learner = make_learner(learner, **plan.learner_options)
        the_learner.fit(X, y, n_classes, seed=seed, log=log)
    log(f"fitted in {time.perf_counter() - fit_started:.1f} s")
    return the_learner, _pruned(the_learner, index, log)


def _pruned(learner, index: FeatureIndex, log: Callable[[str], None]) -> FeatureIndex:
    """The index without the features whose weights are all zero (they change no score)."""
    if not hasattr(learner, "used_features"):
        return index
    used = learner.used_features()
    learner.keep_features(used)
    log(f"features with a non-zero weight: {int(used.sum())}")
    return FeatureIndex(index.keys[used])


def _drained_ids(index: FeatureIndex, key_chunks: list[np.ndarray]) -> Iterator[np.ndarray]:
    """Feature ids of each chunk of keys, each chunk dropped as soon as it is used (memory)."""
    while key_chunks:
        yield index.ids(key_chunks.pop(0))


def _eta_seconds(learner: str, nonzeros: int, classes: int) -> float:
    """A rough forecast of the fitting time, measured on this kind of data (EWT, 2 cores)."""
    per_unit = {"linear": 3.5e-8, "perceptron": 2e-8, "svm-poly2": 4e-7}.get(learner, 1e-8)
    return per_unit * nonzeros * max(classes, 1)


def describe_transition(manifest: dict) -> list[str]:
    """The lines of ``barley info`` about a transition-based parser."""
    training, learner, system = manifest.get("training", {}), manifest.get("learner", {}), manifest.get("system", {})
    exploration = training.get("exploration")
    return [
        f"system:      {system.get('name')} (oracle {manifest.get('oracle')}"
        + (f", exploring after {exploration['after']} epochs with p {exploration['p']}" if exploration else "")
        + (f", trained globally with a beam of {training['beam']} ({training.get('update')} update), parsing "
           f"with it unless --beam" if training.get("beam") else "")
        + (", single root" if system.get("single_root") else "") + ")",
        describe_transforms(manifest),
        f"learner:     {learner.get('name')} {learner.get('params', {}) if learner.get('name') != 'split' else ''}"
        + (f" split by {learner.get('split_feature')}" if learner.get("split_feature") else ""),
        f"features:    {len([line for line in manifest.get('features', '').splitlines() if line.split('#')[0].strip()])} "
        f"templates from {manifest.get('features_source')}",
        f"labels:      {len(manifest.get('labels', []))} (root label {manifest.get('root_label')!r})",
        describe_vocabularies(manifest),
        f"training:    {training.get('data')}: {training.get('sentences')} sentences, {training.get('words')} words, "
        f"{training.get('instances')} instances, {training.get('features')} features",
        f"             tags {training.get('tags')}; outside the system's class: "
        f"{training.get('outside_class_sentences')} sentences ({training.get('outside_class')}); seed {training.get('seed')}"
        + (f"; {training['seconds']} s" if "seconds" in training else ""),
    ]


TRANSITION = ParserKind("transition", options_of(train_transition), train_transition, Parser.from_files,
                        describe_transition)
