"""The ``tokenize`` component: raw text → sentences of tokens and words (:mod:`barley.tokenizer`).

It consumes text — a str, or an iterable of str pieces for streaming — either plain
(``input="text"``: paragraphs separated by blank lines) or pre-tokenized
(``input="tokenized"``: one sentence per line, tokens separated by spaces), and
yields CoNLL-U sentences with ``_`` in every column it does not write.

Two kinds of tokenizer, chosen by the option ``tokenizer``: ``linear`` (the default,
:class:`~barley.tokenizer.Tokenizer`: hashed character-window features, liblinear) and
``neural`` (:class:`~barley.tokenizer.neural.NeuralTokenizer`: a character BiLSTM,
trained with PyTorch, tokenizing with numpy alone), or both (``linear,neural``): each trained and
the better on dev kept (:mod:`barley.tokenizer.choice`). Each takes its own options; an
option of no kind named is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, fields

import numpy as np

from barley.conllu import Sentence
from barley.errors import BarleyError, ModelError
from barley.models import check
from barley.registry import FromRegistries, Registry
from barley.tokenizer import Segmenter, Tokenizer, TokenizerOptions
from barley.tokenizer.choice import Candidate, choose
from barley.tokenizer.neural import NeuralTokenizer, NeuralTokenizerOptions


def train_neural(sentences: Iterable[Sentence], options: NeuralTokenizerOptions, *, seed: int,
                 log: Callable[[str], None], dev: Iterable[Sentence] | None) -> NeuralTokenizer:
    """The neural tokenizer's training, whose module imports PyTorch: only when asked for."""
    from barley.neural import require_torch

    require_torch()
    from barley.tokenizer.neural_training import train_neural_tokenizer

    return train_neural_tokenizer(sentences, options, seed=seed, log=log, dev=dev)


@dataclass(frozen=True)
class TokenizerKind:
    """One kind of tokenizer: its class (a :class:`~barley.tokenizer.Segmenter`, loading through
    ``from_arrays(manifest, arrays)``), its options (a dataclass: the names of its fields are the options
    it takes) and its training, ``train(sentences, options, seed=, log=, dev=)``."""

    segmenter: type[Segmenter]
    options: type
    train: Callable
    reads_dev: bool = False  # whether its training reads dev sentences (to stop early), or tunes on its own data alone


LINEAR = TokenizerKind(Tokenizer, TokenizerOptions, Tokenizer.train)
NEURAL = TokenizerKind(NeuralTokenizer, NeuralTokenizerOptions, train_neural, reads_dev=True)

KINDS: Registry[TokenizerKind] = Registry("tokenizer", "barley.tokenizers", {
    "linear": "barley.pipeline.tokenize:LINEAR",
    "neural": "barley.pipeline.tokenize:NEURAL",
})
"""The kinds of tokenizer by name (:mod:`barley.registry`), each a :class:`TokenizerKind`."""


def tokenizer_kinds(text: str) -> list[str]:
    """The kinds of ``--tokenizer``: one (``neural``), or several separated by commas (``linear,neural``: each
    trained, the best on dev kept, :mod:`barley.tokenizer.choice`)."""
    kinds = text.split(",")
    for kind in kinds:
        KINDS[kind]  # an unknown kind: the registry's one-line error, naming the kinds there are
    if len(set(kinds)) < len(kinds):
        raise BarleyError(f"--tokenizer {text}: a kind named twice", fix="name each kind once")
    return kinds


def kind_options(kind: str) -> list[str]:
    """The options the tokenizer ``kind`` takes."""
    return [field.name for field in fields(KINDS[kind].options)]


def all_kind_options() -> frozenset[str]:
    """The options some kind of tokenizer takes."""
    return frozenset(field.name for kind in KINDS.loadable().values() for field in fields(kind.options))


class TokenizeComponent:
    name = "tokenize"
    consumes = "text"
    takes_dev = True  # the neural kind stops early on dev; the linear kind ignores it
    writes = ("ID", "FORM", "MISC")
    keeps_given = False
    needs = ()
    OPTIONS = {"tokenizer": "linear"}
    OPTIONAL = FromRegistries(all_kind_options)
    """Each kind's options (:class:`TokenizerOptions`, :class:`NeuralTokenizerOptions`), given
    only when set, so that a kind refuses those of the other."""

    def __init__(self, tokenizer: Segmenter):
        self.tokenizer = tokenizer

    @classmethod
    def train(cls, sentences: list[Sentence], options: dict, *, seed: int, log: Callable[[str], None],
              dev: list[Sentence] | None = None) -> TokenizeComponent:
        """Train the kind ``options["tokenizer"]``; ``dev`` sentences (the neural kind's early
        stopping; the linear kind tunes on the end of the training text and does not read them). Several
        kinds (``linear,neural``): each trained, the best on ``dev`` kept (:mod:`barley.tokenizer.choice`);
        each receives the options it takes."""
        kinds = tokenizer_kinds(options.get("tokenizer", "linear"))
        given = {name: value for name, value in options.items() if name != "tokenizer"}
        taken = {name for kind in kinds for name in kind_options(kind)}
        refused = sorted(set(given) - taken)
        if refused:
            named = " and ".join(kinds)
            raise BarleyError(f"the {named} tokenizer{'s take' if len(kinds) > 1 else ' takes'} no option "
                              f"{', '.join(map(repr, refused))}", fix=f"{'their' if len(kinds) > 1 else 'its'} "
                              f"options are: {', '.join(sorted(taken, key=str.lower))}")

        def candidate(kind: str) -> Candidate:
            own = KINDS[kind].options(**{name: value for name, value in given.items() if name in kind_options(kind)})
            return Candidate(lambda train, held: KINDS[kind].train(train, own, seed=seed, log=log, dev=held),
                             KINDS[kind].reads_dev)

        if len(kinds) == 1:
            return cls(candidate(kinds[0]).train(sentences, dev))
        return cls(choose({kind: candidate(kind) for kind in kinds}, list(sentences), list(dev) if dev else None, log))

    def tokenize(self, text: str | Iterable[str], input: str = "text", source: str | None = None
                 ) -> Iterator[Sentence]:
        return self.tokenizer.tokenize(text, input=input, source=source)

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        return self.tokenizer.to_arrays()

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> TokenizeComponent:
        kind = manifest.get("kind", "linear")  # models from before the neural kind have none
        if kind not in KINDS:
            raise ModelError(f"the model's tokenizer is of a kind this barley does not know: {kind!r}", path=path,
                             fix="use a newer barley, or retrain the model")
        with check.loading(path, "tokenizer"):
            return cls(KINDS[kind].segmenter.from_arrays(manifest, arrays))
