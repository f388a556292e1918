"""The input formats a parse request may name, and how each is read from the request's bytes.

``conllu`` (or CoNLL-X) for every model; ``text`` (paragraphs separated by blank lines)
and ``tokenized`` (one sentence per line, tokens separated by spaces) for a model with a
tokenizer, which splits them into sentences as ``barley parse --input text`` does. The limits on
words and characters hold for the sentences the tokenizer makes, as they come: a text is tokenized
only up to the first sentence over them. A request is read entirely in memory: nothing in it is ever
taken as a path.
"""

from __future__ import annotations

from collections.abc import Iterator

from barley import conllu
from barley.conllu import Sentence
from barley.errors import BarleyError
from barley.pipeline import Pipeline
from barley.service.limits import Limits, within_limits, within_text_limit
from barley.tokenizer.reading import SNIFF_BYTES, decode_text, guess_format

REQUEST = "<request>"
"""The name errors give the request's data in place of a file name."""

INPUT_FORMATS = ("text", "sentences", "tokenized", "conllu")
"""Every input format the service reads, those that need a tokenizer first."""

TEXT_FORMATS = ("text", "sentences", "tokenized")
"""The input formats a model reads only with a tokenizer."""


def input_formats(pipeline: Pipeline) -> list[str]:
    """The input formats ``pipeline`` reads: all of them with a tokenizer, else CoNLL-U alone."""
    return list(INPUT_FORMATS) if "tokenize" in pipeline else ["conllu"]


def detected_format(data: bytes, pipeline: Pipeline, keep_arcs: bool) -> str:
    """The input format of a request that names none (``auto``): ``conllu`` or ``text``, as ``barley parse``
    finds it (:func:`barley.tokenizer.reading.guess_format`), CoNLL-U for a model without a tokenizer or
    arcs to keep (so that data that is neither gets the CoNLL-U reader's message, which says what is wrong)."""
    if keep_arcs or "text" not in input_formats(pipeline):
        return "conllu"
    return guess_format(data[:SNIFF_BYTES])


def sentences_of(data: bytes, input_format: str, pipeline: Pipeline, limits: Limits) -> Iterator[Sentence]:
    """The sentences of ``data`` in ``input_format``, read (and tokenized) as they are asked for; a
    BarleyError (the CLI's one-line message) if ``pipeline`` does not read that format or the data
    is not valid in it. A text whose characters (whitespace aside) are over ``limits.max_text_chars`` is
    refused before it is tokenized, since the tokenizer's cost is in its characters."""
    accepted = input_formats(pipeline)
    if input_format not in accepted:
        needs = " (it needs a model with a tokenizer)" if input_format in TEXT_FORMATS else ""
        raise BarleyError(f"input format {input_format!r} is not supported by this model{needs}",
                          fix="its input formats are: " + ", ".join(accepted) + " (GET /models lists each model's)")
    if input_format == "conllu":
        return conllu.read_bytes(data, REQUEST)
    text = decode_text(data, REQUEST)
    if input_format != "tokenized":  # tokenized input is cut at whitespace, which costs little
        within_text_limit(text, limits, REQUEST)
    return pipeline.tokenize(text, input=input_format)


def read_input(data: bytes, input_format: str, limits: Limits, pipeline: Pipeline) -> list[Sentence]:
    """:func:`sentences_of`, stopping with an :class:`~barley.service.limits.OverLimit` as soon as
    they pass the limits on words and characters."""
    return list(within_limits(sentences_of(data, input_format, pipeline, limits), limits, REQUEST))
