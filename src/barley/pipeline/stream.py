"""Many texts through one pipeline, streaming: :meth:`Pipeline.pipe`, after spaCy's ``nlp.pipe``.

Each text is one document: ``pipe`` yields, for each text in input order, the list of its
sentences, tokenized, tagged and parsed (as :meth:`Pipeline.parse` gives them for that text
alone: its own ``# newdoc`` and sentence numbers from 1). Texts are taken ``batch_size`` at a
time, and the sentences of a batch go through the tagger and the parser together, which batch
their work (the parser advances many sentences in lockstep), then are handed back per text.

With ``n_process`` above 1, the batches go to that many worker processes (:mod:`barley.runtime.parallel`:
forked on Linux, where they share the loaded model's memory; elsewhere each worker loads the
model from its file) and come back in input order. At most ``2 × n_process`` batches are in
flight, and the texts are read as they are needed, so memory holds a few batches whatever the
number of texts: ``texts`` may be a generator over a corpus larger than memory. Each worker runs
one thread (:func:`barley.runtime.parallel.one_thread`). A document is analysed by the same code in every
process and independently of the others, so the output does not depend on ``n_process`` or
``batch_size``.

A text may hold at most ``max_chars`` characters (:data:`MAX_TEXT_CHARS` by default, more than a
long book: *War and Peace* has 3.2 million), since each is tokenized whole; its words are at most
:data:`barley.tokenizer.MAX_TOKEN_CHARS` characters long, and a run of more than
:data:`barley.tokenizer.MAX_RUN_CHARS` characters without whitespace is refused.
"""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Iterable, Iterator

from barley.conllu import Sentence
from barley.errors import BarleyError
from barley.runtime import parallel

MAX_TEXT_CHARS = 10_000_000
"""The most characters of one text that :func:`pipe` takes unless given ``max_chars``."""


PIPE_BATCH = 64
"""Texts per batch of :meth:`barley.pipeline.Pipeline.pipe` by default: enough sentences for the parser to
batch well (paragraphs of a few sentences), few enough that a batch is quick to hand to a worker."""


def pipe(pipeline, texts: Iterable[str], *, batch_size: int = PIPE_BATCH, n_process: int = 1,
         input: str = "text", max_chars: int = MAX_TEXT_CHARS, enhanced: bool = False) -> Iterator[list[Sentence]]:
    """The analysed sentences of each of ``texts``, in input order (see the module docstring).

    ``input``: ``"text"`` (paragraphs separated by blank lines), ``"sentences"`` (one untokenized
    sentence per line) or ``"tokenized"`` (one sentence per line, tokens separated by spaces); ``n_process=-1``: one process per core this process
    may use; ``max_chars``: the most characters of one text; ``enhanced``: fill DEPS with each tree's
    enhanced graph (:meth:`barley.pipeline.Pipeline.parse`). Bad arguments are BarleyErrors, raised
    before any text is read; a text over the limit, a BarleyError when it is reached.
    """
    from barley.tokenizer import INPUTS  # the tokenizer's input modes (loaded with the pipeline's tokenizer)

    if "tokenize" not in pipeline:
        raise BarleyError("pipe reads texts, and this model has no tokenizer",
                          fix="use a model trained with --components tokenize,..., or give sentences to parse()")
    if input not in INPUTS:
        raise BarleyError(f"pipe takes input 'text', 'sentences' or 'tokenized', not {input!r}",
                          fix="text: paragraphs separated by blank lines; sentences: one untokenized sentence per "
                              "line; tokenized: one sentence per line, tokens separated by spaces")
    for name, value in (("batch_size", batch_size), ("n_process", n_process), ("max_chars", max_chars)):
        if not isinstance(value, int) or isinstance(value, bool) or (value < 1 and (name, value) != ("n_process", -1)):
            raise BarleyError(f"{name}={value!r} is not a positive whole number",
                              fix="e.g. batch_size=64, n_process=2 (-1: one process per core), max_chars=10_000_000")
    if not isinstance(enhanced, bool):
        raise BarleyError(f"enhanced={enhanced!r} is not True or False", fix="enhanced=True fills DEPS")
    if enhanced:
        pipeline.check_enhanced()
    if n_process == -1:
        n_process = parallel.available_cores()
    fork = sys.platform == "linux"
    if n_process > 1 and not fork and pipeline.path is None:
        raise BarleyError(f"n_process > 1 on {sys.platform} needs a pipeline loaded from a model file (each worker "
                          "process loads it)", fix="save it and load it with barley.load(path), or use n_process=1")
    batches = _batches(texts, batch_size, max_chars)
    if n_process == 1:
        return (document for batch in batches for document in analyse(pipeline, batch, input, enhanced))
    return _in_workers(pipeline, batches, n_process, input, fork, enhanced)


def _batches(texts: Iterable[str], batch_size: int, max_chars: int) -> Iterator[list[str]]:
    """``texts`` in lists of ``batch_size`` (the last one shorter), each text checked to be a str of at
    most ``max_chars`` characters."""
    numbered = enumerate(texts, start=1)
    while batch := list(itertools.islice(numbered, batch_size)):
        for number, text in batch:
            if not isinstance(text, str):
                raise BarleyError(f"pipe takes texts (str), and text {number} is {type(text).__name__}",
                                  fix="give an iterable of str, e.g. the lines or paragraphs of a file")
            if len(text) > max_chars:
                raise BarleyError(f"text {number} has {len(text):,} characters, more than pipe's limit of "
                                  f"{max_chars:,} for one text", fix="give it in parts (chapters, paragraphs), or a "
                                                                     "larger max_chars")
        yield [text for _, text in batch]


def analyse(pipeline, texts: list[str], input: str, enhanced: bool = False) -> list[list[Sentence]]:
    """The sentences of each of ``texts``, tokenized one text at a time, then analysed together."""
    documents = [list(pipeline.tokenize(text, input=input)) for text in texts]
    # annotated in place: each document's list then holds its sentences analysed
    list(pipeline.parse([sentence for document in documents for sentence in document], enhanced=enhanced))
    return documents


def _analyse_in_worker(texts: list[str], input: str, enhanced: bool) -> list[list[Sentence]]:
    return analyse(parallel.worker_pipeline(), texts, input, enhanced)


def _in_workers(pipeline, batches: Iterator[list[str]], n_process: int, input: str,
                fork: bool, enhanced: bool) -> Iterator[list[Sentence]]:
    with parallel.loaded_for_workers(pipeline if fork else None), \
            parallel.worker_pool(n_process, None if fork else functools.partial(type(pipeline).load, pipeline.path),
                                 "analysing texts") as pool:
        calls = ((None, _analyse_in_worker, (batch, input, enhanced)) for batch in batches)
        for _, documents in parallel.in_order(pool, n_process, calls):
            yield from documents
