"""A transition-based parser: (transforms ∘) transition system + feature model + learner.

Training (Nivre 2008 §6.1): every training sentence is parsed by the system's
static oracle; each configuration where the next transition is not forced gives
one instance (features of the configuration, the oracle's (move, label)); the
learner is fitted on all of them. Parsing is greedy (:mod:`barley.batch`).

Gold trees pass through the ``transforms`` (e.g. pseudo-projective lifting) before
the oracle, and parser output passes through their inverses in reverse order. A
transform is an object with ``forward(heads, deprels)`` and ``inverse(heads,
deprels)`` returning new ``(heads, deprels)``, ``fit(trees)`` and ``to_json()``;
:func:`train` fits each on the training trees, and loading restores it from the
manifest by ``barley.transforms.from_json``.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace

import numpy as np

from barley import __version__, model_file
from barley.batch import ParseStats, parse_batch
from barley.conllu import DEPREL, HEAD, Sentence, read
from barley.errors import BarleyError, InputError, ModelError
from barley.features import load_model, parse_model
from barley.features.extract import (Extractor, FeatureIndex, TokenTable, Vocabulary, build_vocabularies)
from barley.features.model import TOKEN_ATTRIBUTES, FeatureModel, parse_feature
from barley.graph.parser import GraphOptions
from barley.graph.pipeline import TrainedGraphParser, train_graph
from barley.learners import SplitLearner, learner_class, make_learner, rows_to_csr
from barley.systems import get_system
from barley.transforms import fit_forward
from barley.systems.base import OracleError, TransitionSystem

OUTSIDE_CLASS = ("nearest", "skip", "error")
VOCABULARY_WARNING = {"UPOS": 100, "XPOS": 1000, "FEATS": 3000, "DEPREL": 500}
BATCH_SIZE = 512
SORT_WINDOW = 8
"""Parsing reads this many batches ahead to group sentences of similar length."""
TRAIN_CHUNK = 50_000
"""Training instances whose feature keys are computed together (bounds the temporary arrays)."""
MIN_FEATURE_COUNT = 1


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Parser:
    """A trained parser. ``parse`` fills HEAD and DEPREL; everything else is kept."""

    def __init__(self, system: TransitionSystem, features: FeatureModel, vocabularies: dict[str, Vocabulary],
                 labels: list[str], root_label: int, classes: np.ndarray, index: FeatureIndex, learner,
                 split_feature: str | None = None, transforms: Sequence = (), manifest: dict | None = None):
        self.system = system
        self.features = features
        self.extractor = Extractor(features, system)
        self.vocabularies = vocabularies
        self.labels = labels
        self.root_label = root_label
        self.classes = classes
        self.index = index
        self.learner = learner
        self.split_feature = split_feature
        self.split_extractor = (Extractor(parse_model(split_feature, "split feature"), system)
                                if split_feature else None)
        self.row, self.row_width, self.split_columns = _row_reader(self.extractor, self.split_extractor)
        self.transforms = list(transforms)
        self.manifest = manifest or {}
        self.sizes = self.extractor.atom_sizes(vocabularies, len(labels))
        self.index.use_tables(len(features.features), self.extractor.template_spaces(self.sizes))
        self.stats = ParseStats()

    def split_values(self, rows: np.ndarray, sentence_rows: np.ndarray, table: TokenTable) -> np.ndarray:
        """The value of the split feature for each configuration (``rows`` read by :attr:`row`)."""
        sizes = self.split_extractor.atom_sizes(self.vocabularies, len(self.labels))
        return self.split_extractor.keys(rows[:, self.split_columns], sentence_rows, table, sizes)[:, 0]

    def parse(self, sentences: Iterable[Sentence], batch_size: int = BATCH_SIZE) -> Iterator[Sentence]:
        """Parse sentences (in place) and yield them in input order, streaming.

        Sentences are read ``SORT_WINDOW`` batches at a time and parsed in batches of
        similar length, so that the lockstep steps are not spent on a few long sentences.
        """
        window: list[Sentence] = []
        for sentence in sentences:
            window.append(sentence)
            if len(window) == batch_size * SORT_WINDOW:
                yield from self._parse_window(window, batch_size)
                window = []
        if window:
            yield from self._parse_window(window, batch_size)

    def _parse_window(self, window: list[Sentence], batch_size: int) -> list[Sentence]:
        order = sorted(range(len(window)), key=lambda k: len(window[k]))
        for start in range(0, len(order), batch_size):
            self._parse_batch([window[k] for k in order[start:start + batch_size]])
        return window

    def _parse_batch(self, batch: list[Sentence]) -> list[Sentence]:
        for sentence, (heads, label_ids) in zip(batch, parse_batch(self, batch, self.stats)):
            deprels = [""] + [self.labels[label] for label in label_ids[1:]]
            for transform in reversed(self.transforms):
                heads, deprels = transform.inverse(heads, deprels)
            sentence.set_tree(heads, deprels)
        return batch

    # --- model files ------------------------------------------------------------------

    def save(self, path: str) -> None:
        learner_params, learner_arrays = self.learner.to_arrays()
        manifest = dict(self.manifest)
        manifest.update({
            "barley_version": __version__,
            "system": {"name": self.system.name, "single_root": self.system.single_root},
            "features": self.features.text,
            "features_source": self.features.source,
            "vocabularies": {name: v.to_json() for name, v in self.vocabularies.items()},
            "labels": self.labels,
            "root_label": self.labels[self.root_label],
            "learner": {"name": "split" if isinstance(self.learner, SplitLearner) else self.learner.name,
                        "params": learner_params, "split_feature": self.split_feature},
            "transforms": [t.to_json() for t in self.transforms],
        })
        arrays = {"classes": self.classes.astype(np.int32), "feature_keys": self.index.keys}
        arrays.update({f"learner.{key}": value for key, value in learner_arrays.items()})
        model_file.write(path, manifest, arrays)

    @classmethod
    def load(cls, path: str) -> Parser:
        manifest, arrays = model_file.read(path)
        try:
            system_info = manifest["system"]
            system = get_system(system_info["name"], single_root=system_info["single_root"])
            features = parse_model(manifest["features"], f"{path}:features")
            vocabularies = {name: Vocabulary(values) for name, values in manifest["vocabularies"].items()}
            labels = manifest["labels"]
            learner_info = manifest["learner"]
            learner_arrays = {k[len("learner."):]: v for k, v in arrays.items() if k.startswith("learner.")}
            base = SplitLearner if learner_info["name"] == "split" else learner_class(learner_info["name"])
            learner = base.from_arrays(learner_info["params"], learner_arrays)
            transforms = [_transform_from_json(entry) for entry in manifest.get("transforms", [])]
            return cls(system, features, vocabularies, labels, labels.index(manifest["root_label"]),
                       arrays["classes"].astype(np.int64), FeatureIndex(arrays["feature_keys"]), learner,
                       learner_info.get("split_feature"), transforms, manifest)
        except (*model_file.DAMAGE, BarleyError) as error:
            if isinstance(error, ModelError):
                raise
            raise ModelError(f"incomplete or inconsistent model ({type(error).__name__}: {error})", path=path,
                             fix="train the model again with this version of barley") from None


def _transform_from_json(entry: dict):
    from barley import transforms

    return transforms.from_json(entry)


def load(path: str) -> Parser | TrainedGraphParser:
    """Load a model file written by :func:`train` (either kind of parser)."""
    if model_file.read_manifest(path).get("parser") == "graph":
        return TrainedGraphParser.from_model(*model_file.read(path), path)
    return Parser.load(path)


# --- training ---------------------------------------------------------------------------

def _gold_tree(sentence: Sentence) -> tuple[list[int], list[str]]:
    """HEAD/DEPREL of a training sentence, checked to be a tree (errors name the line)."""
    heads = [int(h) for h in sentence.heads()]
    for node in range(1, len(heads)):
        if heads[node] < 0:
            raise InputError(f"word {node} has no HEAD ('_'): training needs complete trees",
                             path=sentence.source, line=sentence.line, fix="give every word a head")
    for node in range(1, len(heads)):
        seen, current = 0, node
        while current != 0 and seen <= len(heads):
            current, seen = heads[current], seen + 1
        if current != 0:
            raise InputError(f"the HEAD column has a cycle through word {node}", path=sentence.source,
                             line=sentence.line, fix="training needs trees rooted in 0")
    return heads, sentence.deprels()


def _row_reader(extractor: Extractor, split_extractor: Extractor | None):
    """``(row, width, split_columns)``: what is read from each configuration, and where in
    it the split feature's own row (``split_extractor.row``) lies.

    The split feature usually reads what the feature model reads already (UPOS(Input[0])
    needs the position of Input[0]): its columns are then picked from the model's row,
    at no cost per configuration; otherwise its row is appended to the model's.
    """
    if split_extractor is None:
        return extractor.row, extractor.width, None
    position = {address: i for i, address in enumerate(extractor.position_columns)}
    value = {atom: len(position) + j for j, atom in enumerate(extractor.value_atoms)}
    columns = ([position.get(address) for address in split_extractor.position_columns]
               + [value.get(atom) for atom in split_extractor.value_atoms])
    if None not in columns:
        return extractor.row, extractor.width, np.array(columns, dtype=np.int64)
    model_row, split_row = extractor.row, split_extractor.row
    return (lambda state: model_row(state) + split_row(state), extractor.width + split_extractor.width,
            np.arange(extractor.width, extractor.width + split_extractor.width))


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


def train(train_data: str | Iterable[Sentence], *, system: str = "arc-eager", learner: str = "linear",
          features: str | None = None, seed: int = 1, dev: str | Iterable[Sentence] | None = None,
          outside_class: str = "nearest", tags: str = "gold", split: str | None = "default",
          split_threshold: int = 1000, learner_options: dict | None = None, transforms: Sequence = (),
          min_feature_count: int = MIN_FEATURE_COUNT,
          record_time: bool = True, log: Callable[[str], None] = _stderr, parser: str = "transition",
          graph: GraphOptions | None = None):
    """Train a greedy transition-based parser.

    ``train_data``/``dev``: a CoNLL-U/CoNLL-X path or sentences. ``features``: a feature
    file (default: the system's). ``outside_class``: what to do with a training tree
    the system cannot build: ``nearest`` (train on the oracle's nearest tree), ``skip``
    or ``error``. ``split``: MaltParser's data split by one feature (e.g.
    ``"UPOS(Input[0])"``), values with fewer than ``split_threshold`` instances
    share one classifier; ``"default"`` is the learner's own (:data:`DEFAULT_SPLIT`),
    ``None`` or ``"none"`` no split. ``min_feature_count``: features seen in fewer training
    instances are left out (smaller model, less memory). ``record_time=False`` leaves wall-clock times out of the
    manifest so that the model file depends only on the data and the options.
    ``parser="graph"`` trains a graph-based parser instead (:mod:`barley.graph`), with
    ``graph`` its options; ``system``, ``learner``, ``features`` and ``split`` then do
    not apply.
    """
    started = time.perf_counter()
    if outside_class not in OUTSIDE_CLASS:
        raise BarleyError(f"unknown --outside-class {outside_class!r}", fix="choose nearest, skip or error")
    if min_feature_count < 1:
        raise BarleyError(f"--min-feature-count must be at least 1, not {min_feature_count}")
    if tags not in ("gold", "predicted"):
        raise BarleyError(f"unknown --tags {tags!r}", fix="choose gold or predicted")
    source = train_data if isinstance(train_data, str) else "<sentences>"
    sentences = list(read(train_data) if isinstance(train_data, str) else train_data)
    if not sentences:
        raise InputError("no training sentence", path=source)
    trees = [_gold_tree(s) for s in sentences]
    trees = fit_forward(transforms, sentences, trees, log)
    single_root = all(sum(1 for h in heads[1:] if h == 0) == 1 for heads, _ in trees)
    if parser == "graph":
        options = replace(graph or GraphOptions(), seed=seed, single_root=single_root)
        options.check()
        trained = train_graph(sentences, trees, source=source, options=options, transforms=transforms, log=log)
        trained.manifest["training"] = {"data": source, "sentences": len(sentences),
                                        "words": sum(len(s) for s in sentences), "tags": tags, "seed": seed}
        return _finish(trained, dev, started if record_time else None, log)
    if parser != "transition":
        raise BarleyError(f"unknown parser kind {parser!r}", fix="use transition or graph")
    the_system = get_system(system, single_root=single_root)
    model = load_model(features, the_system.name)
    extractor = Extractor(model, the_system)
    split = DEFAULT_SPLIT.get(learner) if split == "default" else None if split == "none" else split
    split_feature = _split_atom_check(split) if split else None
    split_extractor = Extractor(parse_model(split_feature, "split feature"), the_system) if split else None
    row, _, split_columns = _row_reader(extractor, split_extractor)

    label_counts = Counter(label for _, deprels in trees for label in deprels[1:])
    labels = list(dict.fromkeys(label for _, deprels in trees for label in deprels[1:]))
    label_id = {label: i for i, label in enumerate(labels)}
    root_label = label_id[Counter(d[i] for h, d in trees for i in range(1, len(h)) if h[i] == 0).most_common(1)[0][0]]
    used = [a for a in TOKEN_ATTRIBUTES if any(atom.attribute == a for atom in extractor.atoms)]
    if split_extractor:
        used = [a for a in TOKEN_ATTRIBUTES if a in used or split_extractor.atoms[0].attribute == a]
    vocabularies = build_vocabularies(sentences, used)
    classes = np.array([(m, -1) for m, lab in enumerate(the_system.labeled) if not lab]
                       + [(m, l) for m, lab in enumerate(the_system.labeled) if lab for l in range(len(labels))],
                       dtype=np.int64)
    class_id = {(int(m), int(l)): i for i, (m, l) in enumerate(classes)}

    words = sum(len(s) for s in sentences)
    log(f"training {the_system.name} (static oracle{', single root' if single_root else ''}) on {source}: "
        f"{len(sentences)} sentences, {words} words; tags: {tags}")
    log(f"features: {len(model.features)} templates from {model.source}; learner: {learner}"
        + (f", split by {split_feature} (threshold {split_threshold})" if split else ""))
    log("vocabularies: " + ", ".join(f"{name} {len(v) - 3}" for name, v in vocabularies.items())
        + f", DEPREL {len(labels)} (root label {labels[root_label]!r})")
    for name, limit in VOCABULARY_WARNING.items():
        size = len(labels) if name == "DEPREL" else len(vocabularies[name]) - 3 if name in vocabularies else 0
        if size > limit:
            log(f"warning: {name} has {size} distinct values (more than {limit}): is the column what it "
                f"should be (e.g. ids or whole analyses inside it)? Training may be slow and the model large")

    # The oracle, sentence by sentence: instances are rows of integers (positions and values),
    # turned into feature keys every TRAIN_CHUNK instances so that no long list of tuples builds up.
    table = TokenTable.build(sentences, vocabularies)
    sizes = extractor.atom_sizes(vocabularies, len(labels))
    split_sizes = split_extractor.atom_sizes(vocabularies, len(labels)) if split_extractor else None
    key_chunks: list[np.ndarray] = []
    split_chunks: list[np.ndarray] = []
    rows: list[tuple[int, ...]] = []
    instance_sentence: list[int] = []
    instance_class: list[int] = []

    def flush() -> None:
        if not rows:
            return
        sentence_rows = table.offsets[np.array(instance_sentence)]
        matrix = np.array(rows, dtype=np.int64)
        key_chunks.append(extractor.keys(matrix, sentence_rows, table, sizes))
        if split_extractor:
            split_chunks.append(split_extractor.keys(matrix[:, split_columns], sentence_rows,
                                                     table, split_sizes)[:, 0])
        rows.clear()
        instance_sentence.clear()

    outside = 0
    for number, (sentence, (heads, deprels)) in enumerate(zip(sentences, trees)):
        gold_labels = [-1] + [label_id[d] for d in deprels[1:]]
        state = the_system.initial(len(heads) - 1)
        oracle = the_system.oracle(heads, gold_labels)
        sentence_rows, sentence_classes = [], []
        while not the_system.is_terminal(state):
            move, label = oracle(state)
            legal = the_system.legal(state)
            if not legal[move]:
                raise OracleError(f"{the_system.name} oracle chose illegal {the_system.moves[move]} in "
                                  f"{sentence.source}:{sentence.line}")
            if legal.count(True) > 1 or the_system.labeled[move]:
                sentence_rows.append(row(state))
                sentence_classes.append(class_id[(move, label if the_system.labeled[move] else -1)])
            the_system.apply(state, move, label)
        the_system.finalize(state, root_label)
        if state.heads[1:] != heads[1:] or state.labels[1:] != gold_labels[1:]:
            outside += 1
            if outside_class == "error":
                raise InputError(f"this tree is outside the class {the_system.name} can build",
                                 path=sentence.source, line=sentence.line,
                                 fix="use --outside-class nearest or skip, a transform, or another system")
            if outside_class == "skip":
                continue
        rows.extend(sentence_rows)
        instance_class.extend(sentence_classes)
        instance_sentence.extend([number] * len(sentence_rows))
        if len(rows) >= TRAIN_CHUNK:
            flush()
    flush()
    action = {"nearest": "trained on the oracle's nearest tree", "skip": "skipped"}[outside_class]
    log(f"outside {the_system.name}'s class: {outside} of {len(sentences)} sentences ({action})")
    if not instance_class:
        raise InputError("the oracle produced no training instance", path=source,
                         fix="give more or longer training sentences")

    sentence_count = len(sentences)
    del sentences, trees, table  # the learner needs only X, y (memory)
    index = FeatureIndex.fit(key_chunks, min_feature_count)
    X = rows_to_csr(_drained_ids(index, key_chunks), index.size)
    y = np.array(instance_class, dtype=np.int64)
    split_values = np.concatenate(split_chunks) if split_extractor else None
    del instance_class, split_chunks
    seen_classes = len(np.unique(y))
    eta = _eta_seconds(learner, X.nnz, seen_classes)
    log(f"instances: {len(y)}, features: {index.size}"
        + (f" (seen at least {min_feature_count} times)" if min_feature_count > 1 else "")
        + f", classes seen: {seen_classes} of {len(classes)}; "
        f"fitting the {learner} learner (about {eta:.0f} s)")
    options = dict(learner_options or {})
    if split:
        the_learner = SplitLearner(learner, split_threshold, **options)
    else:
        the_learner = make_learner(learner, **options)
    fit_started = time.perf_counter()
    the_learner.fit(X, y, len(classes), seed=seed, split_values=split_values, log=log)
    log(f"fitted in {time.perf_counter() - fit_started:.1f} s")
    if hasattr(the_learner, "used_features"):  # features whose weights are all zero change no score
        used = the_learner.used_features()
        the_learner.keep_features(used)
        index = FeatureIndex(index.keys[used])
        log(f"features with a non-zero weight: {index.size}")

    manifest = {
        "oracle": "static",
        "training": {
            "data": source, "sentences": sentence_count, "words": words, "instances": int(len(y)),
            "features": int(index.size), "outside_class": outside_class, "outside_class_sentences": outside,
            "tags": tags, "seed": seed, "learner_options": options, "min_feature_count": min_feature_count,
            "split": split_feature, "split_threshold": split_threshold if split else None,
        },
    }
    parser = Parser(the_system, model, vocabularies, labels, root_label, classes, index, the_learner,
                    split_feature, transforms, manifest)
    return _finish(parser, dev, started if record_time else None, log)


def _drained_ids(index: FeatureIndex, key_chunks: list[np.ndarray]) -> Iterator[np.ndarray]:
    """Feature ids of each chunk of keys, each chunk dropped as soon as it is used (memory)."""
    while key_chunks:
        yield index.ids(key_chunks.pop(0))


def _finish(parser, dev, started: float | None, log: Callable[[str], None]):
    """Dev scores and training time into the manifest, for either kind of parser."""
    if dev is not None:
        scores = evaluate_parser(parser, dev)
        parser.manifest["dev"] = scores
        log(f"dev: LAS {scores['LAS']:.2f}, UAS {scores['UAS']:.2f}, LEM {scores['LEM']:.2f} "
            f"({scores['words']} words, punctuation included)")
    if started is not None:
        parser.manifest["training"]["seconds"] = round(time.perf_counter() - started, 1)
    return parser


def _eta_seconds(learner: str, nonzeros: int, classes: int) -> float:
    """A rough forecast of the fitting time, measured on this kind of data (EWT, 2 cores)."""
    per_unit = {"linear": 3.5e-8, "perceptron": 2e-8, "svm-poly2": 4e-7}.get(learner, 1e-8)
    return per_unit * nonzeros * max(classes, 1)


def evaluate_parser(parser: Parser, data: str | Iterable[Sentence]) -> dict:
    """LAS, UAS and LEM (labeled exact match) of ``parser`` on gold data, every word counted."""
    gold = list(read(data) if isinstance(data, str) else data)
    copies = [s.copy() for s in gold]
    words = heads_right = both_right = exact = 0
    for reference, parsed in zip(gold, parser.parse(copies)):
        sentence_exact = True
        for ref, out in zip(reference.words, parsed.words):
            head_ok = ref[HEAD] == out[HEAD]
            label_ok = head_ok and ref[DEPREL] == out[DEPREL]
            heads_right += head_ok
            both_right += label_ok
            sentence_exact &= label_ok
            words += 1
        exact += sentence_exact
    percent = lambda count, total: round(100.0 * count / total, 2) if total else 0.0  # noqa: E731
    return {"LAS": percent(both_right, words), "UAS": percent(heads_right, words),
            "LEM": percent(exact, len(gold)), "words": words, "sentences": len(gold)}
