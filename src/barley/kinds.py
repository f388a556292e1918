"""The kinds of parser barley trains — transition-based, graph-based, biaffine and neural
transition-based — each bringing its options, its training, its loading and its description;
and what every kind shares: training (:func:`train`), loading (:func:`from_files`), the gold
trees, the dev scores and the length-sorted parse windows.

Commands and experiments never ask which kind a parser is: :func:`train`
hands the options to the kind named by ``parser=`` (refusing those it does not take),
:func:`barley.pipeline.load` and ``barley info`` find the kind in the model's manifest.
Adding a kind is one module defining a :class:`ParserKind` and one line in :data:`KINDS` (or an entry
point of another package in the group ``barley.parsers``: docs/extending.md).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from barley.conllu import Sentence, read
from barley.errors import BarleyError, InputError, ModelError
from barley.evaluation.attachment import evaluate
from barley.registry import Registry
from barley.transforms import fit_forward
from barley.tree import check_tree

KINDS: Registry[ParserKind] = Registry("parser kind", "barley.parsers", {
    "transition": "barley.transition.parser:TRANSITION",
    "graph": "barley.graph.trained:GRAPH",
    "biaffine": "barley.neural.biaffine:BIAFFINE",
    "neural-transition": "barley.neural.transition:NEURAL_TRANSITION",
})
"""The kinds of parser by name (:mod:`barley.registry`): each a :class:`ParserKind`."""


@dataclass(frozen=True)
class ParserKind:
    """One kind of parser.

    ``train(sentences, trees, *, source, single_root, seed, log, **options)`` fits a parser
    on gold trees (``(heads, deprels)``, already transformed) and returns it with a
    ``manifest`` whose ``training`` entry it has begun; ``load(manifest, arrays, path)``
    restores one from a model file; ``describe(manifest)`` gives the lines of ``barley
    info`` about it. ``options``: the keyword options its ``train`` takes. ``takes_dev``: its
    ``train`` also gets the development sentences (``dev``, a list or None), e.g. for early stopping.
    """

    name: str
    options: frozenset[str]
    train: Callable
    load: Callable
    describe: Callable[[dict], list[str]]
    takes_dev: bool = False

    def default(self, option: str) -> object:
        """The value this kind's ``train`` uses when ``option`` is not given."""
        import inspect

        return inspect.signature(self.train).parameters[option].default

    def check(self, options: Mapping[str, object], who_takes: Callable[[str], str | None] | None = None) -> None:
        """Refuse an option this kind does not take (never ignore it); ``who_takes(option)``, if given, says
        who does (``barley train`` passes :func:`barley.options.who_takes`: the declarations import the kinds'
        modules, so this module does not import them)."""
        for option in options:
            if option not in self.options:
                flag = "--" + option.replace("_", "-")
                takers = who_takes(option) if who_takes is not None else None
                raise BarleyError(f"a {self.name} parser takes no option {flag}" + (f"; {takers}" if takers else ""),
                                  fix="leave it out, or choose the kind of parser that takes it (--parser)")


def options_of(train: Callable) -> frozenset[str]:
    """The options of a kind's ``train`` (or of any callable, e.g. a learner's class): its
    keyword parameters that have a default."""
    import inspect

    return frozenset(name for name, parameter in inspect.signature(train).parameters.items()
                     if parameter.default is not inspect.Parameter.empty)


def get_kind(name: str) -> ParserKind:
    return KINDS[name]


def kind_of(manifest: dict, path: str | None = None) -> ParserKind:
    """The kind of parser a model file holds (models before kinds were recorded are transition-based)."""
    name = manifest.get("parser", "transition")
    if not isinstance(name, str):
        raise ModelError(f"the model's parser kind is {type(name).__name__} {name!r}, not a name", path=path,
                         fix="train the model again with this version of barley")
    return get_kind(name)


def all_kind_options() -> frozenset[str]:
    """Every option that some kind of parser takes."""
    return frozenset().union(*(kind.options for kind in KINDS.loadable().values()))


def in_length_batches(sentences: Iterable, parse_batch: Callable[[list], object], window: int,
                      batches: Callable[[list[int], list[int]], list[list[int]]]) -> Iterator:
    """Parse ``sentences`` in place and yield them in input order, streaming: read ``window`` at a
    time, order each window's sentences by length (stably), cut that order into batches
    (``batches(order, lengths)``: lists of indices into the window) and give each batch to
    ``parse_batch``, so that similar lengths go together (fewer lockstep steps spent on a few long
    sentences, less padding). Every kind of parser parses through this, with its own batches."""
    pending: list = []
    for sentence in sentences:
        pending.append(sentence)
        if len(pending) == window:
            yield from _parsed_window(pending, parse_batch, batches)
            pending = []
    if pending:
        yield from _parsed_window(pending, parse_batch, batches)


def _parsed_window(window: list, parse_batch: Callable[[list], object],
                   batches: Callable[[list[int], list[int]], list[list[int]]]) -> list:
    lengths = [len(sentence) for sentence in window]
    for batch in batches(sorted(range(len(window)), key=lengths.__getitem__), lengths):
        parse_batch([window[k] for k in batch])
    return window


# --- training and loading a parser of any kind ------------------------------------------

def log_to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def check_choice(value: str, choices: Sequence[str], option: str) -> None:
    if value not in choices:
        raise BarleyError(f"unknown {option} {value!r}", fix="choose " + " or ".join(choices))


def from_files(manifest: dict, arrays: dict[str, np.ndarray], path: str):
    """A parser of any kind from its manifest and arrays (its ``to_files``)."""
    return kind_of(manifest, path).load(manifest, arrays, path)


def gold_tree(sentence: Sentence) -> tuple[list[int], list[str]]:
    """HEAD/DEPREL of a training sentence, checked to be a tree (errors name the line)."""
    heads = [int(h) for h in sentence.heads()]
    problem = check_tree(heads)
    if problem is not None:
        raise InputError(f"{problem}: training needs a complete tree rooted in 0", path=sentence.source,
                         line=sentence.line, fix="give every word a head in 0..n, without cycles")
    return heads, sentence.deprels()


def train(train_data: str | Iterable[Sentence], *, parser: str = "transition", seed: int = 1,
          dev: str | Iterable[Sentence] | None = None, tags: str = "gold", transforms: Sequence = (),
          record_time: bool = True, log: Callable[[str], None] = log_to_stderr, **options):
    """Train a parser of the kind ``parser`` (:mod:`barley.kinds`) with its ``options``.

    ``train_data``/``dev``: a CoNLL-U/CoNLL-X path or sentences; ``transforms`` are fitted
    on the gold trees and applied before training (inverted on output); ``tags``: whether
    the training tags are gold or predicted (recorded). ``record_time=False`` leaves
    wall-clock times out of the manifest so that the model file depends only on the data
    and the options. The options of each kind: :func:`train_transition` (the default) and
    :func:`barley.graph.trained.train_kind`; an option the kind does not take is refused.
    """
    started = time.perf_counter()
    kind = get_kind(parser)
    kind.check(options)
    check_choice(tags, ("gold", "predicted"), "--tags")
    source = train_data if isinstance(train_data, str) else "<sentences>"
    sentences = list(read(train_data) if isinstance(train_data, str) else train_data)
    if not sentences:
        raise InputError("no training sentence", path=source)
    trees = fit_forward(transforms, sentences, [gold_tree(s) for s in sentences], log)
    single_root = all(sum(1 for h in heads[1:] if h == 0) == 1 for heads, _ in trees)
    counts = {"sentences": len(sentences), "words": sum(len(s) for s in sentences)}
    if dev is not None:
        dev = list(read(dev) if isinstance(dev, str) else dev)
    trained = kind.train(sentences, trees, source=source, single_root=single_root, seed=seed, tags=tags,
                         transforms=transforms, log=log, **({"dev": dev} if kind.takes_dev else {}), **options)
    trained.manifest["training"].update({"data": source, "tags": tags, "seed": seed, **counts})
    return _finish(trained, dev, started if record_time else None, log)


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


def evaluate_parser(parser, data: str | Iterable[Sentence]) -> dict:
    """LAS, UAS and LEM (labeled exact match) of ``parser`` on gold data, every word counted:
    the scores of :func:`barley.evaluation.attachment.evaluate`, rounded for the manifest and the log."""
    gold = list(read(data) if isinstance(data, str) else data)
    scores = evaluate(gold, list(parser.parse([s.copy() for s in gold]))).scores
    return {**{key: round(scores[key] or 0.0, 2) for key in ("LAS", "UAS", "LEM")},
            "words": scores["tokens"], "sentences": scores["sentences"]}
