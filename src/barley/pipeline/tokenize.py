"""The ``tokenize`` component: raw text → sentences of tokens and words (:mod:`barley.tokenizer`).

It consumes text — a str, or an iterable of str pieces for streaming — either plain
(``input="text"``: paragraphs separated by blank lines) or pre-tokenized
(``input="tokenized"``: one sentence per line, tokens separated by spaces), and
yields CoNLL-U sentences with ``_`` in every column it does not write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict

import numpy as np

from barley import model_check as check
from barley.conllu import Sentence
from barley.tokenizer import Tokenizer, TokenizerOptions

OPTIONS = asdict(TokenizerOptions())
"""Training options: ``bits`` (hashed feature space), ``C``, ``solver``, ``max_sentence_tokens``."""


class TokenizeComponent:
    name = "tokenize"
    consumes = "text"
    writes = ("ID", "FORM", "MISC")
    keeps_given = False
    needs = ()
    OPTIONS = OPTIONS

    def __init__(self, tokenizer: Tokenizer):
        self.tokenizer = tokenizer

    @classmethod
    def train(cls, sentences: list[Sentence], options: dict, *, seed: int,
              log: Callable[[str], None]) -> TokenizeComponent:
        return cls(Tokenizer.train(sentences, TokenizerOptions(**options), seed=seed, log=log))

    def tokenize(self, text: str | Iterable[str], input: str = "text") -> Iterator[Sentence]:
        return self.tokenizer.tokenize(text, input=input)

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        return self.tokenizer.to_arrays()

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> TokenizeComponent:
        with check.loading(path, "tokenizer"):
            return cls(Tokenizer.from_arrays(manifest, arrays))
