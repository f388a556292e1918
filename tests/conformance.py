"""The conformance checks: every registered entry, barley's own and each installed plugin's
(:mod:`barley.registry`), meets the interface of its registry, as scikit-learn's ``check_estimator`` checks an
estimator. A new transition system, transform, learner, parser kind, tokenizer kind or pipeline component is
accepted once the ``check_*`` function of its registry passes; tests/test_conformance.py runs each check over
every name registered, and tests/test_plugins.py over a test package's plugins.

The checks are small and fast (a toy treebank, one epoch, tiny networks): they test the interface,
not accuracy, which each entry's own tests measure. The kinds that need PyTorch to train are skipped
without it.
"""

from __future__ import annotations

import inspect
import json
import random
from dataclasses import fields, is_dataclass

import numpy as np
import pytest

import barley
from barley import conllu
from barley.capabilities import CAPABILITIES
from barley.errors import BarleyError
from barley.kinds import KINDS, ParserKind, kind_of, train
from barley.learners import LEARNERS, make_learner, rows_to_csr
from barley.pipeline import COMPONENTS, Pipeline, check_options
from barley.pipeline.tokenize import KINDS as TOKENIZERS, TokenizeComponent, TokenizerKind
from barley.systems import REGISTRY as SYSTEMS, TransitionSystem
from barley.trained_parser import TrainedParser
from barley.transforms import REGISTRY as TRANSFORMS, from_json
from barley.tree import check_tree
from random_trees import any_tree, projective_tree
from transition_checks import check_oracle_keeps_no_state, random_legal_run, rebuild


QUIET = {"log": lambda message: None}
TORCH = {"biaffine", "neural-transition", "joint"}
"""barley's entries that need PyTorch to train."""
TINY = dict(epochs=1, form_dim=16, lemma_dim=8, upos_dim=8, xpos_dim=8, feats_dim=8, char_dim=8, char_hidden=8,
            lstm_hidden=16, lstm_layers=1, arc_mlp=16, label_mlp=8, hidden=16, batch_words=150, patience=1)
"""The options that make a kind of parser (or the joint component) quick to train: each kind gets those it takes."""
TINY_TOKENIZERS = dict(bits=16, char_dim=8, class_dim=4, chunk_dim=4, hidden=8, window=64, context=8, epochs=1,
                       batch_windows=8)


NOT_TINY = {"transition": {"epochs": None}}
"""Tiny options left out: the transition kind's epochs are its perceptron's, which its default learner refuses."""


def _tiny(takes) -> dict:
    return {option: value for option, value in TINY.items() if option in takes}


def needs_torch(name: str) -> None:
    if name in TORCH:
        pytest.importorskip("torch")


# --- transition systems ------------------------------------------------------------------------

def check_system(name: str) -> None:
    """A :class:`~barley.systems.base.TransitionSystem` registered under its own ``name`` (model files
    record it), whose moves, labels and attachments line up, and that is sound and complete for
    projective trees, which every class contains: its static oracle rebuilds random projective trees
    (asked twice, it answers the same) and random legal runs end in well-formed trees of its class."""
    system_class = SYSTEMS[name]
    assert inspect.isclass(system_class) and issubclass(system_class, TransitionSystem), system_class
    assert system_class.name == name, f"registered as {name!r}, named {system_class.name!r}"
    assert system_class.tree_class in {"projective", "planar", "2-planar", "any"}, system_class.tree_class
    assert len(system_class.moves) == len(system_class.labeled) > 0
    assert not system_class.attaches or len(system_class.attaches) == len(system_class.moves)
    rng = random.Random(name)
    for single_root in (False, True):
        system = system_class(single_root=single_root)
        for n in (1, 2, 5, 9, 12):
            heads = projective_tree(rng.randint, n, single_root)
            rebuild(system, heads)
            check_oracle_keeps_no_state(system, heads)
            random_legal_run(system, n, seed=rng.randrange(1000))


# --- transforms ----------------------------------------------------------------------------------

def _labelled(rng: random.Random, n: int, labels: list[str] | None) -> tuple[list[int], list[str]]:
    """A random tree of ``n`` words, single-rooted or not, labelled from ``labels`` (None: each word its
    own label)."""
    heads = any_tree(rng.randint, n, rng.random() < 0.5)
    return heads, [""] + [f"l{d}" if labels is None else rng.choice(labels) for d in range(1, n + 1)]


UD_LABELS = ["root", "nsubj", "obj", "conj", "cc", "aux", "cop", "punct", "amod", "advmod", "mark"]
"""Labels that UD's transforms act on (coordination, verb groups) and others."""


def check_transform(name: str) -> None:
    """A transform built with its defaults, named as registered, whose state is plain JSON that rebuilds it;
    its forward and inverse give trees on any tree (the inverse meets parser output, so it also copes with
    trees forward never made); and forward then inverse gives back the tree it handles: every tree
    whose labels are distinct (one label, one word: nothing for a label encoding to confuse) that
    forward changes in one word at most."""
    transform = TRANSFORMS[name]()
    assert transform.name == name, f"registered as {name!r}, named {transform.name!r}"
    rng = random.Random(name)
    trees = [_labelled(rng, rng.randint(1, 14), labels) for labels in (UD_LABELS, None) for _ in range(150)]
    transform.fit(trees)
    state = json.loads(json.dumps(transform.to_json()))
    again = from_json(state)
    assert again.to_json() == state
    stats = transform.new_stats()
    handled = 0
    for heads, labels in trees:
        forward = transform.forward(heads, labels, stats)
        for tree in (forward, transform.inverse(*forward), transform.inverse(heads, labels)):
            assert check_tree([int(h) for h in tree[0]]) is None and len(tree[1]) == len(heads), (heads, labels, tree)
        assert [list(map(int, t[0])) + list(t[1]) for t in (forward, again.forward(heads, labels))] \
            == [list(map(int, t[0])) + list(t[1]) for t in (forward, forward)], "the rebuilt transform differs"
        moved = sum(int(new) != old for new, old in zip(forward[0][1:], heads[1:]))
        if len(set(labels[1:])) == len(labels) - 1 and moved <= 1:
            back = transform.inverse(*forward)
            assert ([int(h) for h in back[0]], list(back[1])) == (heads, labels), (heads, labels, forward, back)
            handled += 1
    assert handled, "no tree it handles"
    assert all(isinstance(line, str) for line in stats.lines())


# --- learners ------------------------------------------------------------------------------------

def check_learner(name: str) -> None:
    """A learner named as registered that fits a small separable problem and predicts its every instance,
    saves to plain arrays that give the same scores, and refuses an option it does not take."""
    with pytest.raises(BarleyError, match="takes no option"):
        make_learner(name, no_such_option=1)
    learner = make_learner(name)
    assert learner.name == name, f"registered as {name!r}, named {learner.name!r}"
    rng = np.random.default_rng(0)
    n_classes, n_features, y = 3, 8, np.repeat(np.arange(3), 12)
    ids = np.stack([y, 3 + rng.integers(0, 5, len(y)), np.full(len(y), n_features)], axis=1)  # class, noise, none
    learner.fit(rows_to_csr(ids, n_features), y, n_classes, seed=0)
    scores = learner.scores(ids)
    assert scores.shape == (len(y), n_classes) and (scores.argmax(axis=1) == y).all(), scores
    params, arrays = learner.to_arrays()
    loaded = LEARNERS[name].from_arrays(json.loads(json.dumps(params)), arrays, n_classes=n_classes,
                                        n_features=n_features)
    np.testing.assert_array_equal(loaded.scores(ids), scores)


# --- kinds of parser -----------------------------------------------------------------------------

def _parsed(model, path) -> list[conllu.Sentence]:
    return list(model.parse(list(conllu.read(path))))


def _text(path) -> str:
    """The raw text of a treebank's sentences (their ``# text``), a paragraph each."""
    return "\n\n".join(comment[len("# text = "):] for sentence in conllu.read(path) for comment in sentence.comments
                       if comment.startswith("# text = "))


def check_parser_kind(name: str, toy, **options) -> None:
    """A :class:`~barley.kinds.ParserKind` named as registered that refuses an option it does not take,
    trains on a toy treebank (with the tiny options it takes, and ``options``; None leaves one out) into a parser whose
    manifest names its kind, keeps the contract of a trained parser (:class:`~barley.trained_parser.TrainedParser`,
    its capabilities among :data:`~barley.capabilities.CAPABILITIES`), parses into trees, describes its model, and saves to a model file that
    loads and parses the same."""
    kind = KINDS[name]
    assert isinstance(kind, ParserKind) and kind.name == name, kind
    with pytest.raises(BarleyError, match="takes no option"):
        kind.check({"no_such_option": 1})
    given = {option: value for option, value in {**_tiny(kind.options), **options}.items() if value is not None}
    parser = train(str(toy / "train.conllu"), parser=name, record_time=False, **given, **QUIET)
    assert kind_of(parser.to_files()[0]) is kind
    assert isinstance(parser, TrainedParser) and parser.kind == name and parser.capabilities <= set(CAPABILITIES)
    parsed = _parsed(parser, toy / "test.conllu")
    assert all(check_tree(sentence.heads().tolist()) is None for sentence in parsed)
    assert all(isinstance(line, str) for line in kind.describe(parser.manifest))
    parser.save(str(toy / f"{name}.barley"))
    assert [s.to_text() for s in _parsed(barley.load(str(toy / f"{name}.barley")), toy / "test.conllu")] \
        == [s.to_text() for s in parsed]


# --- kinds of tokenizer --------------------------------------------------------------------------

def check_tokenizer_kind(name: str, toy) -> None:
    """A :class:`~barley.pipeline.tokenize.TokenizerKind` whose options are a dataclass, that trains through
    the one call every kind takes, refuses an option it does not take, and saves to files that tokenize
    the same."""
    kind = TOKENIZERS[name]
    assert isinstance(kind, TokenizerKind) and is_dataclass(kind.options), kind
    assert list(inspect.signature(kind.train).parameters)[-3:] == ["seed", "log", "dev"]
    with pytest.raises(BarleyError, match="takes no option"):
        TokenizeComponent.train([], {"tokenizer": name, "no_such_option": 1}, seed=1, **QUIET)
    takes = {field.name for field in fields(kind.options)}
    options = {option: value for option, value in TINY_TOKENIZERS.items() if option in takes}
    sentences = list(conllu.read(toy / "train.conllu"))
    component = TokenizeComponent.train(sentences, {"tokenizer": name, **options}, seed=1, dev=None, **QUIET)
    text = _text(toy / "test.conllu")
    tokenized = [sentence.to_text() for sentence in component.tokenize(text)]
    assert tokenized
    manifest, arrays = component.to_files()
    loaded = TokenizeComponent.from_files(json.loads(json.dumps(manifest)), arrays, "<test>")
    assert [sentence.to_text() for sentence in loaded.tokenize(text)] == tokenized


# --- pipeline components -------------------------------------------------------------------------

def check_component(name: str, toy, **options) -> None:
    """A component class named as registered with the declared interface (``consumes``, ``writes``,
    ``keeps_given``, ``needs``, ``OPTIONS``; :mod:`barley.pipeline`) that refuses an option it does not
    take, trains alone in a pipeline on a toy treebank (with the tiny options it takes, and
    ``options``), runs on text or sentences, and saves to a model file that loads and runs the same."""
    component = COMPONENTS[name]
    assert component.name == name, f"registered as {name!r}, named {component.name!r}"
    assert component.consumes in ("text", "sentences")
    assert hasattr(component, "tokenize" if component.consumes == "text" else "process")
    assert set(component.writes) <= set(conllu.COLUMNS) and set(component.needs) <= set(conllu.COLUMNS)
    assert isinstance(component.keeps_given, bool) and isinstance(component.OPTIONS, dict)
    with pytest.raises(BarleyError, match="takes no option"):
        check_options(name, {"no_such_option": 1})
    given = {**_tiny(component.OPTIONS), **options}
    pipeline = Pipeline.train(str(toy / "train.conllu"), [name], options={name: given} if given else None,
                              jackknife=None, record_time=False, **QUIET)
    path = toy / f"component-{name}.barley"
    pipeline.save(str(path))
    loaded = barley.load(str(path))

    def run(model) -> list[str]:
        if component.consumes == "text":
            return [s.to_text() for s in model.tokenize(_text(toy / "test.conllu"))]
        return [s.to_text() for s in model.parse(list(conllu.read(toy / "test.conllu")), retag=True)]

    first = run(pipeline)
    assert first and run(loaded) == first
