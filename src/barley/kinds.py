"""The kinds of parser barley trains — transition-based, graph-based (later neural) — each
bringing its options, its training, its loading and its description.

Commands and experiments never ask which kind a parser is: :func:`barley.parser.train`
hands the options to the kind named by ``parser=`` (refusing those it does not take),
:func:`barley.pipeline.load` and ``barley info`` find the kind in the model's manifest.
Adding a kind is one module defining a :class:`ParserKind` and one line in :data:`KINDS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from barley.errors import BarleyError, ModelError

KINDS = {
    "transition": "barley.parser:TRANSITION",
    "graph": "barley.graph.pipeline:GRAPH",
    "biaffine": "barley.neural.biaffine:BIAFFINE",
    "neural-transition": "barley.neural.transition:NEURAL_TRANSITION",
}


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

    def check(self, options: Mapping[str, object]) -> None:
        """Refuse an option this kind does not take (never ignore it)."""
        for option in options:
            if option not in self.options:
                flag = "--" + option.replace("_", "-")
                raise BarleyError(f"a {self.name} parser takes no option {flag}",
                                  fix="leave it out, or choose the kind of parser that takes it (--parser)")


def options_of(train: Callable) -> frozenset[str]:
    """The options of a kind's ``train`` (or of any callable, e.g. a learner's class): its
    keyword parameters that have a default."""
    import inspect

    return frozenset(name for name, parameter in inspect.signature(train).parameters.items()
                     if parameter.default is not inspect.Parameter.empty)


def get_kind(name: str) -> ParserKind:
    if name not in KINDS:
        raise BarleyError(f"unknown parser kind {name!r}", fix="choose one of: " + ", ".join(KINDS))
    module, _, attribute = KINDS[name].partition(":")
    return getattr(importlib.import_module(module), attribute)


def kind_of(manifest: dict, path: str | None = None) -> ParserKind:
    """The kind of parser a model file holds (models before kinds were recorded are transition-based)."""
    name = manifest.get("parser", "transition")
    if not isinstance(name, str):
        raise ModelError(f"the model's parser kind is {type(name).__name__} {name!r}, not a name", path=path,
                         fix="train the model again with this version of barley")
    return get_kind(name)


def all_kind_options() -> frozenset[str]:
    """Every option that some kind of parser takes."""
    return frozenset().union(*(get_kind(name).options for name in KINDS))


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
