"""The input formats a parse request may name, and how each is read from the request's bytes.

Only CoNLL-U (or CoNLL-X) today; raw text joins with the tokenizer, by one more
entry in :data:`INPUT_FORMATS`. A request is read entirely in memory: nothing in
it is ever taken as a path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from barley import conllu
from barley.conllu import Sentence
from barley.errors import BarleyError
from barley.service.limits import Limits, within_word_limits

REQUEST = "<request>"
"""The name errors give the request's data in place of a file name."""


def read_conllu(data: bytes) -> Iterator[Sentence]:
    return conllu.read_bytes(data, REQUEST)


INPUT_FORMATS: dict[str, Callable[[bytes], Iterator[Sentence]]] = {"conllu": read_conllu}


def read_input(data: bytes, input_format: str, limits: Limits) -> list[Sentence]:
    """The sentences of ``data`` in ``input_format``; a BarleyError (the CLI's one-line message) if it
    is not a format served or the data is not valid in it, an :class:`~barley.service.limits.OverLimit`
    as soon as it passes the limits on words."""
    reader = INPUT_FORMATS.get(input_format)
    if reader is None:
        raise BarleyError(f"input format {input_format!r} is not supported",
                          fix="the input formats served are: " + ", ".join(INPUT_FORMATS))
    return list(within_word_limits(reader(data), limits, REQUEST))
