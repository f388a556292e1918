"""The training options, as data: one declaration per option (its name, flags, type, default,
choices, help and who takes it), from which ``barley train``'s flags, the experiment spec's checks
and the options page of the documentation (docs/options.md) are made.

MaltParser's ``options.xml`` is the model (Hall & Nilsson, MaltParser user guide, "Options"):
every option is declared once, in groups, and the command line and the documentation are read off
the declarations. An option whose default is a field of an options dataclass (the neural encoder's,
the biaffine scorer's, training's, the joint component's own, each tokenizer's) is declared on that
field (:func:`barley.option.option`) and collected here (:func:`barley.option.from_fields`); the others —
shared by kinds with different defaults, or whose default lives in a learner or the tagger — are
declared here. A *taker* is what an option reaches: a kind of parser (``parser:graph``), a
learner of the transition-based parser (``learner:linear``), a pipeline component
(``component:tag``, ``component:joint``) or a kind of tokenizer (``tokenizer:neural``). Every option
reaches its taker only when given (argparse's ``SUPPRESS``), so that a taker that does not take it
refuses it in one line (:func:`refuse_untaken`) rather than ignoring it.

The options that shape the command itself (the treebank, ``--model``, ``--seed``, ``--parser``,
``--components``, the tree transforms, ...) stay with ``barley train``.
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields

from barley.errors import BarleyError
from barley.option import (BIAFFINE, GRAPH, LINEAR, LINEAR_TOKENIZER, NEURAL, NEURAL_TOKENIZER, NEURAL_TRANSITION,
                           SVM, TAGGER, TRANSITION, Option, declaration, declare, from_fields, shown)
from barley.parse_options import PARSE_OPTIONS
from barley.decoders.options import DECODERS
from barley.graph.model import GraphOptions
from barley.decoders.nonprojective_approx import DEFAULT_THRESHOLD
from barley.learners import LEARNERS
from barley.learners.kernel_svm import PolySVMLearner
from barley.learners.linear import SOLVERS, LinearLearner
from barley.learners.perceptron import PerceptronLearner
from barley.neural.options import CHARACTERS, BiaffineOptions, EncoderOptions, Training, TransitionOptions
from barley.pipeline.joint import JointOptions
from barley.pipeline.tagger import Tagger
from barley.systems import system_names
from barley.tokenizer import TokenizerOptions
from barley.tokenizer.neural import NeuralTokenizerOptions
from barley.transition.global_training import DEFAULT_UPDATE, UPDATES
from barley.transition.parser import ORACLES, OUTSIDE_CLASS, train_transition


GROUPS = {
    "parser": "parsers (each option reaches the kinds of parser that take it, --parser)",
    "neural": "neural parsing (--parser biaffine or neural-transition, --components joint; PyTorch: "
              "pip install -e '.[neural]' in barley's checkout)",
    "learner": "learners of the transition-based parser (-l)",
    "component:tag": "the tagger and lemmatizer (--components tag,...)",
    "tokenizer": "the tokenizer (--components tokenize,...; --tokenizer chooses its kind)",
}
"""The ``barley train --help`` group of each kind of taker (an option's first taker decides)."""


def _tokenizer_options() -> list[Option]:
    """The tokenizers' options, ``--tokenizer-NAME``, declared on the fields of each kind's options
    (:func:`barley.option.option`), each taken by the kinds whose options have the field; the help says which
    kind takes one that only one takes."""
    kinds = {LINEAR_TOKENIZER: TokenizerOptions, NEURAL_TOKENIZER: NeuralTokenizerOptions}
    made: dict[str, Option] = {}
    for options in kinds.values():
        for declared in fields(options):
            spec = declaration(declared)
            if spec is None or declared.name in made:
                continue
            help, _, more = spec
            shared = {taker: field for taker, kind in kinds.items() for field in fields(kind) if field.name == declared.name}
            if len({repr(field.default) for field in shared.values()}) > 1:  # one flag, one default
                raise TypeError(f"the tokenizers' option {declared.name} has different defaults in different kinds")
            takers = tuple(shared)
            said = help if len(takers) > 1 else f"{takers[0].partition(':')[2]}: {help}"
            made[declared.name] = declare("tokenizer_" + declared.name.lower(), type(declared.default),
                                          declared.default, said, *takers, key=declared.name,
                                          flags=("--tokenizer-" + declared.name.lower().replace("_", "-"),),
                                          choices=(True, False) if isinstance(declared.default, bool) else None,
                                          **more)
    return list(made.values())


TRANSITION_DEFAULTS = {name: parameter.default for name, parameter in inspect.signature(train_transition).parameters.items()
                       if parameter.default is not inspect.Parameter.empty}
"""The transition parser's defaults, where they live: the keyword parameters of
:func:`~barley.transition.parser.train_transition` (its declarations below read them)."""


OPTIONS: tuple[Option, ...] = (
    # --- the parsers -----------------------------------------------------------------------------
    declare("system", str, None, "transition system (MaltParser names accepted, e.g. nivreeager); one of: "
            + ", ".join(system_names()) + " (default arc-eager, arc-hybrid for --parser neural-transition)",
            TRANSITION, NEURAL_TRANSITION, flags=("--system", "-a"), metavar="NAME"),
    declare("learner", str, TRANSITION_DEFAULTS["learner"], "classifier (linear: liblinear)", TRANSITION, flags=("--learner", "-l"),
            choices=LEARNERS),
    declare("features", str, None, "feature model file, or rich: the system's rich model shipped with barley "
            "(arc-eager; see `barley features --rich`); default: the system's, see `barley features`",
            TRANSITION, flags=("--features", "-F"), metavar="FILE|rich"),
    declare("split", str, None, "train one classifier per value of FEATURE, e.g. 'UPOS(Input[0])' (about half "
            "the training time and memory of linear), or 'none' (MaltParser's data split; by default svm-poly2 "
            "splits by XPOS(Input[0]), the other learners do not)", TRANSITION, flags=("--split", "-d"),
            metavar="FEATURE"),
    declare("split_threshold", int, TRANSITION_DEFAULTS["split_threshold"], "values with fewer instances share one classifier", TRANSITION,
            flags=("--split-threshold", "-T")),
    declare("min_feature_count", int, TRANSITION_DEFAULTS["min_feature_count"], "leave out features seen in fewer than N training "
            "instances: a smaller model and less memory", TRANSITION),
    declare("oracle", str, None, "static: learn from the static oracle's transitions; dynamic: train the "
            "perceptron (-l perceptron) or --parser neural-transition by exploration with the dynamic oracle "
            "(Goldberg & Nivre 2012), for systems that have one (see docs/oracles.md). Default: dynamic for the "
            "unsplit perceptron and the neural transition parser where the system has one, else static",
            TRANSITION, NEURAL_TRANSITION, choices=ORACLES),
    declare("explore_after", int, None, "--oracle dynamic: epochs before the parser follows its own mistakes "
            "(default: 0 for the perceptron where the system's costs are exact, else 2)",
            TRANSITION, NEURAL_TRANSITION, metavar="K"),
    declare("explore_p", float, None, "--oracle dynamic: after K epochs, the probability of following a "
            "transition of the model that costs gold arcs (default: 1 for the perceptron where the system's costs "
            "are exact, else 0.9)", TRANSITION, NEURAL_TRANSITION, metavar="P"),
    declare("beam", int, None, "train the perceptron globally with a beam of K (-l perceptron, the static "
            "oracle's transitions as the gold sequence; Zhang & Clark 2008); the model parses with a beam of K "
            "unless `barley parse --beam` says otherwise (docs/beam.md)", TRANSITION, metavar="K"),
    declare("update", str, DEFAULT_UPDATE, "with --beam: update at the first step the gold sequence falls out of "
            "the beam (early, Collins & Roark 2004) or where the beam's best beats it by the most (max-violation, "
            "Huang, Fayong & Guo 2012)", TRANSITION, choices=UPDATES),
    declare("outside_class", str, TRANSITION_DEFAULTS["outside_class"], "training trees the system cannot build: train on the oracle's "
            "nearest tree, skip them, or stop with an error; the count is reported", TRANSITION,
            choices=OUTSIDE_CLASS),
    declare("epochs", int, None, f"training epochs: of -l perceptron (default {PerceptronLearner().epochs}), "
            f"of the graph parser (default {GraphOptions.epochs}), the neural parsers' most epochs (default "
            f"{Training.epochs})", TRANSITION, GRAPH, *NEURAL),
    declare("decoder", str, None, "eisner: best projective tree; mst: Chu-Liu-Edmonds, any tree (first order "
            "only); eisner+npa: Eisner then the non-projective approximation (default eisner for the graph "
            "parser, mst for the neural ones)", GRAPH, BIAFFINE, "component:joint", choices=DECODERS),
    declare("order", int, GraphOptions.order, "1: arc-factored; 2: arcs plus adjacent siblings", GRAPH,
            choices=(1, 2)),
    declare("npa_threshold", float, DEFAULT_THRESHOLD, "stop the non-projective approximation when a move gains "
            "less", GRAPH, BIAFFINE, "component:joint", metavar="T"),
    declare("learner_options", dict, None, "experiment specs: the learner's own options by their names there "
            "(e.g. { C = 0.5 }; on the command line: --learner-c, ...)", TRANSITION, flags=()),
    # --- the neural parsers ------------------------------------------------------------------------
    declare("device", str, "cpu", "where to train: cpu or a CUDA GPU", *NEURAL, choices=("cpu", "cuda")),
    declare("threads", int, 1, "CPU threads for training (the same seed and threads give the same model)", *NEURAL),
    declare("pretrained", str, None, "word vectors (word2vec/fastText text .vec file) to initialise the form "
            "embeddings: only the vectors of the training forms are kept, in the model (the file is not needed to "
            "parse)", *NEURAL, metavar="FILE", flags=("--vectors", "--pretrained")),
    declare("positions", str, None, "--parser neural-transition: the positions whose vectors the scorer reads, one "
            "address per line (default: the system's, see docs/results/neural.md)", NEURAL_TRANSITION,
            metavar="FILE"),
    *from_fields(EncoderOptions, *NEURAL),
    *from_fields(BiaffineOptions),
    *from_fields(TransitionOptions),
    *from_fields(Training, *NEURAL),
    *from_fields(JointOptions),
    declare("characters", str, None, "how the character BiLSTM's final states join the form embedding: add "
            "(projected to its size; the parsers') or concat (--components joint, its default)",
            "component:joint", choices=CHARACTERS),
    # --- the learners of the transition-based parser -------------------------------------------------
    declare("learner_c", float, None, f"the cost of a training error (C; default {LinearLearner().C} for "
            f"linear, {PolySVMLearner().C} for svm-poly2)", LINEAR, SVM, flags=("--learner-c",), key="C"),
    declare("learner_tol", float, None, f"the solver's stopping tolerance (default {LinearLearner().tol} for "
            f"linear, {PolySVMLearner().tol} for svm-poly2)", LINEAR, SVM, flags=("--learner-tol",), key="tol"),
    declare("learner_solver", str, LinearLearner().solver, "liblinear's solver: the Crammer-Singer multiclass "
            "SVM, one-versus-rest SVMs or logistic regression", LINEAR, choices=SOLVERS, key="solver"),
    declare("svm_gamma", float, PolySVMLearner().gamma, "γ of the polynomial kernel (γ x·y + coef0)²", SVM,
            key="gamma"),
    declare("svm_coef0", float, PolySVMLearner().coef0, "coef0 of the polynomial kernel", SVM, key="coef0"),
    declare("svm_cache_mb", int, PolySVMLearner().cache_mb, "LIBSVM's kernel cache in MB", SVM, key="cache_mb"),
    # --- the tagger and lemmatizer -------------------------------------------------------------------
    declare("tagger_c", float, Tagger.OPTIONS["C"], "the cost of a training error of the tag classifiers",
            TAGGER, flags=("--tagger-c",), key="C"),
    declare("tagger_lemma_c", float, Tagger.OPTIONS["lemma_C"], "the cost of a training error of the lemma-rule "
            "classifier", TAGGER, flags=("--tagger-lemma-c",), key="lemma_C"),
    declare("tagger_min_feature_count", int, Tagger.OPTIONS["min_feature_count"], "leave out features seen in "
            "fewer than N training words", TAGGER, key="min_feature_count"),
    declare("tagger_split_threshold", int, Tagger.OPTIONS["split_threshold"], "XPOS and FEATS: UPOS values with "
            "fewer words share one classifier", TAGGER, key="split_threshold"),
    declare("tag_dictionary_min_count", int, Tagger.OPTIONS["tag_dictionary_min_count"], "words seen at least N "
            "times give their tags as features (0: no tag dictionary)", TAGGER),
    # --- the tokenizer ------------------------------------------------------------------------------
    *_tokenizer_options(),
)

BY_NAME = {option.name: option for option in OPTIONS}



def _group(option: Option) -> str:
    """The ``barley train --help`` group of an option: its first taker's (:data:`GROUPS`)."""
    first = option.takers[0]
    if first in NEURAL:
        return "neural"
    return first if first in GROUPS else first.partition(":")[0]


def taken_by(taker: str) -> list[Option]:
    """The options ``taker`` takes (a taker, or a kind of taker such as ``learner``)."""
    return [option for option in OPTIONS
            if any(t == taker or t.partition(":")[0] == taker for t in option.takers)]


def describe(taker: str) -> str:
    """A taker in words: ``the graph parser``, ``the linear learner``, ``the tag component``."""
    category, _, name = taker.partition(":")
    return f"the {name} {'parser' if category == 'parser' else category}"


def _boolean(text: str) -> bool:
    if text.lower() in ("true", "yes", "1"):
        return True
    if text.lower() in ("false", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not true or false")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Every declared option with flags on ``parser``, in one group per kind of taker; each only when given."""
    groups = {name: parser.add_argument_group(title) for name, title in GROUPS.items()}
    for option in OPTIONS:
        if not option.flags:
            continue
        kind = _boolean if option.type is bool else option.type
        metavar = option.metavar or ("true|false" if option.type is bool else None if option.choices else
                                     "P" if option.type is float else
                                     "N" if option.type is int else "NAME")
        groups[_group(option)].add_argument(*option.flags, dest=option.name, type=kind, default=argparse.SUPPRESS,
                                          choices=None if option.type is bool else option.choices,
                                          metavar=metavar, help=option.help_text())


def given(args: argparse.Namespace, kind: str) -> dict[str, object]:
    """The options of the kind of taker ``kind`` (e.g. ``learner``) set on the command line, by name."""
    return {option.name: getattr(args, option.name) for option in taken_by(kind) if hasattr(args, option.name)}


def refuse_untaken(names: Iterable[str], takers: str | Sequence[str], fix: str | None = None) -> None:
    """Refuse, in one line naming the option and who takes it, a declared option that none of ``takers`` (one, or
    several: ``--tokenizer linear,neural`` trains both) takes."""
    takers = [takers] if isinstance(takers, str) else list(takers)
    for name in names:
        option = BY_NAME[name]
        if not any(option.takes(taker) for taker in takers):
            named = " and ".join(describe(taker) for taker in takers)
            raise BarleyError(f"{named} take{'s' if len(takers) == 1 else ''} no option {option.flag}; "
                              f"{who_takes(name)}", fix=fix or "leave it out, or choose what takes it")


def who_takes(name: str) -> str | None:
    """``it is an option of the graph parser, the biaffine parser``: who takes the option ``name`` (None for
    an option not declared here)."""
    if name not in BY_NAME:
        return None
    return "it is an option of " + ", ".join(describe(taker) for taker in BY_NAME[name].takers)


def keywords(values: Mapping[str, object]) -> dict[str, object]:
    """Declared options by name → the keywords their takers receive."""
    return {BY_NAME[name].keyword: value for name, value in values.items()}


def check_value(option: Option, value: object, where: str = "", called: str | None = None) -> None:
    """Refuse a ``value`` of the wrong type or not among the choices (an experiment spec's; ``where`` leads
    the message, e.g. ``parser 'p': ``; ``called``: the option's name there, if not its ``name``)."""
    called = called or option.name
    expected = {int: (int,), float: (int, float), str: (str,), bool: (bool,), dict: (dict,)}[option.type]
    if isinstance(value, bool) != (option.type is bool) or not isinstance(value, expected):
        raise BarleyError(f"{where}{called} must be {option.type.__name__}, not {value!r}")
    if option.choices is not None and value not in option.choices:
        raise BarleyError(f"{where}unknown {called.replace('_', ' ')} {value!r}",
                          fix="choose from " + ", ".join(map(shown, option.choices)))


def check_learner_options(learner: str, values: Mapping[str, object], where: str = "") -> None:
    """Refuse an option the ``learner`` does not take, by the name its class gives it (an experiment
    spec's ``learner_options``), or a value of the wrong type."""
    declared = {option.keyword: option for option in taken_by("learner:" + learner)}
    for key, value in values.items():
        if key not in declared:
            raise BarleyError(f"{where}the {learner} learner takes no option {key!r}",
                              fix="its options are: " + (", ".join(declared) or "none"))
        check_value(declared[key], value, where, key)


def markdown() -> str:
    """The options page of the documentation (docs/options.md), from the declarations."""
    lines = ["# Training options", "",
             ("Every option of `barley train` that reaches a parser, a learner, the tagger or the tokenizer, "
             "declared once, beside its default on an options dataclass or in `barley.options` (this page is made from the declarations: "
             "`python scripts/options_page.py > docs/options.md`; a test checks it is current). An option "
             "is passed only to what takes it; given to anything else, it is refused in one line. In an "
             "experiment spec, a parser's options go by their names (the first column), e.g. "
             "`split_threshold = 500`."), ""]
    for group, title in GROUPS.items():
        lines += [f"## {title[0].upper()}{title[1:]}", "",
                  "| name | flags | type | default | taken by | what it does |", "|---|---|---|---|---|---|"]
        for option in OPTIONS:
            if _group(option) != group:
                continue
            kind = " or ".join(map(shown, option.choices)) if option.choices else option.type.__name__
            default = "" if option.default is None else f"`{shown(option.default)}`"
            flags = ", ".join(f"`{flag}`" for flag in option.flags) or "(specs only)"
            takers = ", ".join(t.partition(":")[2] + " " + t.partition(":")[0] for t in option.takers)
            lines.append(f"| `{option.name}` | {flags} | {kind} | {default} | {takers} | "
                         f"{option.help.replace('|', '/')} |")
        lines.append("")
    lines += ["## Parsing (`barley parse`)", "",
              ("The options of `barley parse` that reach the model (given arcs, UD-valid trees, confidence, the "
               "beam, the k best), declared the same way in `barley.parse_options` (kept apart so that "
               "`barley parse` starts without importing what training needs); a parser that cannot do what one "
               "asks refuses it in one line, e.g. `--beam` for a graph-based parser."), "",
              "| name | flag | type | default | what it does |", "|---|---|---|---|---|"]
    for option in PARSE_OPTIONS:
        flag = f"`{option.flag}`" + (f", `--no-{option.flag[2:]}`" if option.action == "negatable" else "")
        kind = "switch" if option.action == "switch" else "true or false" if option.type is bool else \
            option.type.__name__
        default = "" if option.default is None else f"`{shown(option.default)}`"
        lines.append(f"| `{option.name}` | {flag} | {kind} | {default} | {option.help.replace('|', '/')} |")
    lines.append("")
    return "\n".join(lines)


__all__ = ["BY_NAME", "GROUPS", "OPTIONS", "Option", "add_arguments", "check_learner_options", "check_value",
           "describe", "given", "keywords", "markdown", "refuse_untaken", "taken_by", "who_takes"]
