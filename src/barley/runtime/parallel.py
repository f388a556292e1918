"""Parsing on every core of one machine: worker processes, blocks cut at sentence boundaries.

The input is read as bytes and cut into blocks of about :data:`~barley.runtime.blocks.BLOCK_BYTES`
(:mod:`barley.runtime.blocks`), each ending right after a blank line, so every block holds whole sentences. The model is
loaded once, by the main process before it forks the workers (on Linux; elsewhere
each worker loads it), and each worker turns a block into its output text; the
main process only cuts, sends, and writes the results back in input order. At
most ``2 × jobs`` blocks are in flight, so memory is bounded whatever the size of
the input. A block is parsed with exactly the code of a one-process
run (:func:`barley.conllu.read_bytes`, ``Parser.parse``, ``Sentence.to_text``) and
sentences are parsed independently of each other, so the output is byte for byte
the output of ``--jobs 1``.

Raw text (``--input text`` or ``tokenized``) goes through the pipeline's tokenizer in
the main process (a tenth of the work of tagging and parsing, and the only step
whose state, the sentence numbers and the spaces around sentences, runs across
the whole text); its sentences are cut into blocks of CoNLL-U that the workers tag
and parse, so the output is again byte for byte that of one process.

Interrupting (Ctrl-C, SIGTERM) stops the workers and leaves no output file; the
workers ignore SIGINT and SIGTERM themselves (the main process decides, and stops
them after their current block) and exit when the main process is gone (SIGKILL).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from barley.collecting import collecting_rarely, freeze_loaded
from barley.conllu import Sentence, open_bytes, open_for_writing, read_bytes
from barley.errors import BarleyError
from barley.pipeline.request import ParseRequest
from barley.runtime.blocks import BLOCK_BYTES, blocks, first_line_end, sentence_blocks



def jobs_argument(value: str) -> int:
    """``--jobs``: a positive number of worker processes, or ``auto`` for the cores this process may use."""
    if value == "auto":
        return available_cores()
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        import argparse

        raise argparse.ArgumentTypeError(f"expected a positive number of processes or 'auto', not {value!r}")
    return jobs


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _counts(text: bytes) -> tuple[int, int]:
    """The sentences and words of a block of CoNLL-U (a tagger's: no parser counted them)."""
    lines = text.splitlines()
    words = sum(1 for line in lines if line[:1].isdigit() and not re.match(rb"\d+[-.]", line))
    return sum(1 for k, line in enumerate(lines) if not line and k and lines[k - 1]), words


# --- in each worker process ---------------------------------------------------------------

_parser = None
"""The worker's pipeline: loaded by the main process before it forks the workers (Linux), so it is
loaded once and its arrays are shared, not copied; or loaded by each worker (``spawn`` elsewhere)."""


def _start_worker(load: Callable[[], object] | None, parent: int) -> None:
    """Load the pipeline with ``load`` (e.g. :func:`barley.pipeline.loader`) unless inherited; leave Ctrl-C
    and SIGTERM to the main process; exit when it is gone."""
    global _parser
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal sends Ctrl-C to the whole job
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # so does `kill -- -PGID`; the main process stops us
    if load is not None:
        try:
            _parser = load()
            freeze_loaded()
        except BarleyError as error:  # raised again by the first block, so the user sees it, not a dead pool
            _parser = error
    one_thread()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def one_thread() -> None:
    """A worker process is one core's share of the work: PyTorch (a neural model's) and the BLAS under
    numpy (the numpy engine's matrix products) get one thread each. More would compete with the other
    workers; and PyTorch's thread pool, if inherited through fork, would wait for threads that the
    child does not have (a neural model under --jobs hung)."""
    from threadpoolctl import threadpool_limits  # scikit-learn's dependency, so barley's

    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
    threadpool_limits(1)


def worker_pipeline():
    """The pipeline of this worker process (see :func:`loaded_for_workers`); if loading it failed, the error."""
    if isinstance(_parser, BarleyError):
        raise _parser
    return _parser


def _parse_block(data: bytes, first_line: int, name: str, newline: str | None,
                 request: ParseRequest) -> tuple[bytes, object]:
    return parse_bytes(worker_pipeline(), data, name, first_line, newline, request)


def parse_bytes(pipeline, data: bytes, name: str, first_line: int = 1, newline: str | None = None,
                request: ParseRequest = ParseRequest()):
    """Parse a piece of a CoNLL-U file (whole sentences, see :func:`barley.conllu.read_bytes`) with ``pipeline``
    as ``request`` asks (:class:`barley.pipeline.request.ParseRequest`).

    Returns the output bytes and the parser's counts for this piece alone. The one
    place where a block or a shard becomes output, so that every way of cutting
    a file gives the bytes of a one-process run.
    """
    request.prepare(pipeline)
    pipeline.stats = type(pipeline.stats)()
    with collecting_rarely():  # in Dask's workers too, which inherit nothing from `barley parse`
        sentences = read_bytes(data, name, first_line, newline)
        parsed = pipeline.parse(sentences, **request.parse_options())
        text = "".join(sentence.to_text() for sentence in parsed)
    return text.encode("utf-8"), pipeline.stats


# --- in the main process ------------------------------------------------------------------

def add_stats(total, part):
    """Add the counts of ``part`` to ``total`` (both the same stats dataclass); return ``total``."""
    if total is None:
        return part
    for field in dataclasses.fields(total):
        setattr(total, field.name, getattr(total, field.name) + getattr(part, field.name))
    return total


def parse_file(load: Callable[[], Any], source: str, output: str, jobs: int, block_bytes: int = BLOCK_BYTES,
               progress: Callable[[int, int, int], None] | None = None, input: str = "conllu",
               request: ParseRequest = ParseRequest()):
    """Parse ``source`` (a file, ``-`` for stdin, ``.gz``) into ``output`` with ``jobs`` processes, each with
    the pipeline ``load()`` gives (:func:`barley.pipeline.loader`: a model file, or some of its components).

    ``input``: ``"conllu"`` (CoNLL-U or CoNLL-X), or ``"text"`` / ``"tokenized"`` for a
    pipeline with a tokenizer (:meth:`barley.pipeline.Pipeline.tokenize`); ``request``: what is asked of each
    sentence (:class:`barley.pipeline.request.ParseRequest`: retagging, the longest sentence, the k best, the
    probabilities, the beam, the enhanced graphs), the same in every worker. Returns the summed parse statistics
    (``ParseStats`` or ``GraphParseStats``). ``progress(sentences, words, size)`` is called
    after each block is written (:meth:`barley.runtime.progress.Progress.add`: its sentences, its words,
    its bytes of CoNLL-U: of the input, or of the tokenized text).
    """
    name = "<stdin>" if source == "-" else source
    fork = sys.platform == "linux"
    pipeline = load() if fork or input != "conllu" else None
    if pipeline is not None:
        pipeline.set_nbest(request.nbest)  # a parser without k-best is refused here, not in every worker
        pipeline.set_beam(request.beam)
    stats = None
    with loaded_for_workers(pipeline if fork else None):
        with contextlib.ExitStack() as stack:
            if input == "conllu":
                cut = blocks(stack.enter_context(open_bytes(source)), block_bytes, name=name)
            else:
                cut = sentence_blocks(_tokenized(pipeline, source, input), block_bytes)
                name = "<memory>"  # what a sentence read from text is named at --jobs 1
            out = stack.enter_context(open_for_writing(output))
            pool = stack.enter_context(worker_pool(jobs, None if fork else load, "parsing", name))
            newline = None

            def calls() -> Iterator[tuple]:
                nonlocal newline
                for block in cut:
                    if block.index == 0:
                        newline = first_line_end(block.data)
                    yield len(block.data), _parse_block, (block.data, block.first_line, name,
                                                          None if block.index == 0 else newline, request)

            for size, (text, block_stats) in in_order(pool, jobs, calls()):
                out.write(text)  # in input order
                stats = add_stats(stats, block_stats)
                if progress:
                    sentences, words = _counts(text) if block_stats is None else (block_stats.sentences,
                                                                                   block_stats.words)
                    progress(sentences, words, size)
    return stats


@contextlib.contextmanager
def loaded_for_workers(pipeline) -> Iterator[None]:
    """Within it, worker processes forked from this one find ``pipeline`` loaded (:func:`worker_pipeline`),
    its memory shared, not copied: the collector leaves the objects loaded so far alone (a collection
    would write to every one of them, and so copy their pages). None: the workers load the model."""
    global _parser
    if pipeline is None:
        yield
        return
    _parser = pipeline
    freeze_loaded()
    try:
        yield
    finally:
        _parser = None
        gc.unfreeze()


@contextlib.contextmanager
def worker_pool(jobs: int, load: Callable[[], object] | None, doing: str,
                name: str | None = None) -> Iterator[ProcessPoolExecutor]:
    """``jobs`` worker processes (forked on Linux), each loading its pipeline with ``load`` (picklable:
    :func:`barley.pipeline.loader`) unless None; a worker that dies is a one-line error that says what they were ``doing``; leaving stops
    them after their current task."""
    fork = sys.platform == "linux"
    executor = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork" if fork else "spawn"),
                                   initializer=_start_worker, initargs=(load, os.getpid()))
    try:
        yield executor
    except BrokenProcessPool:
        raise BarleyError(f"a worker process died while {doing} (killed, or out of memory?)", path=name,
                          fix="run again, with fewer --jobs if memory is short; no output was written") from None
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def in_order(pool: ProcessPoolExecutor, jobs: int, calls: Iterable[tuple]) -> Iterator[tuple]:
    """Run each call ``(tag, function, args)`` on the pool, at most ``2 × jobs`` at a time (so memory is
    bounded); yield ``(tag, function(*args))`` in the calls' order."""
    in_flight: deque[tuple[object, Future]] = deque()
    for tag, function, args in calls:
        in_flight.append((tag, pool.submit(function, *args)))
        if len(in_flight) >= 2 * jobs:
            tag, future = in_flight.popleft()
            yield tag, future.result()
    while in_flight:
        tag, future = in_flight.popleft()
        yield tag, future.result()


def _tokenized(pipeline, source: str, input: str) -> Iterator[Sentence]:
    """The sentences of a text file by the pipeline's tokenizer; the first one through the whole
    pipeline here first, so a model that cannot analyse them fails at once, as with one process."""
    from barley.tokenizer.reading import source_name, text_pieces

    sentences = pipeline.tokenize(text_pieces(source), input=input, source=source_name(source))
    for sentence in sentences:
        list(pipeline.parse([sentence.copy()]))
        yield sentence
        break
    yield from sentences
