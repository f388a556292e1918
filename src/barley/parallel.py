"""Parsing on every core of one machine: worker processes, blocks cut at sentence boundaries.

The input is read as bytes and cut into blocks of about :data:`BLOCK_BYTES`, each
ending right after a blank line, so every block holds whole sentences. The model is
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
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import IO

from barley.conllu import Sentence, open_bytes, open_for_writing, read_bytes
from barley.errors import BarleyError

BLOCK_BYTES = 1 << 20
"""About this many bytes of CoNLL-U per block (≈ 25,000 words): large enough to batch well."""


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


@dataclasses.dataclass
class Block:
    """Whole sentences of one input: ``data`` starts at line ``first_line`` of the file."""

    data: bytes
    first_line: int
    index: int


def blocks(handle: IO[bytes], block_bytes: int = BLOCK_BYTES) -> Iterator[Block]:
    """Cut a byte stream into blocks that end right after a blank line (or at the end of the input).

    A blank line is ``\\n`` or ``\\r\\n`` alone; a block grows until one is found, so a
    sentence is never split. Line numbers are counted so errors name the file's line.
    """
    pending = b""
    line = 1
    index = 0
    while True:
        data = handle.read(block_bytes)
        if not data:
            if pending:
                yield Block(pending, line, index)
            return
        data = pending + data
        cut = max(data.rfind(b"\n\n") + 2, data.rfind(b"\n\r\n") + 3)
        if cut < 3:  # no blank line yet (rfind gave -1): keep reading
            pending = data
            continue
        block, pending = data[:cut], data[cut:]
        yield Block(block, line, index)
        line += block.count(b"\n")
        index += 1


def sentence_blocks(sentences: Iterable[Sentence], block_bytes: int = BLOCK_BYTES) -> Iterator[Block]:
    """Sentences written as CoNLL-U, gathered into blocks of about ``block_bytes``."""
    pieces: list[bytes] = []
    size, line, index = 0, 1, 0
    for sentence in sentences:
        pieces.append(sentence.to_text().encode("utf-8"))
        size += len(pieces[-1])
        if size >= block_bytes:
            block = Block(b"".join(pieces), line, index)
            yield block
            line += block.data.count(b"\n")
            index += 1
            pieces, size = [], 0
    if pieces:
        yield Block(b"".join(pieces), line, index)


class Progress:
    """``progress(bytes_done)`` for :func:`parse_file`: a line on stderr every ``every`` seconds, with an ETA."""

    def __init__(self, source: str, every: float = 10.0):
        try:
            self.total = None if source == "-" or source.endswith(".gz") else os.path.getsize(source)
        except OSError:
            self.total = None
        self.every = every
        self.started = self.last = time.perf_counter()

    def __call__(self, done: int) -> None:
        now = time.perf_counter()
        if now - self.last < self.every:
            return
        self.last = now
        rate = done / max(now - self.started, 1e-9)
        text = f"barley parse: {done / 1e6:.0f} MB parsed, {rate / 1e6:.1f} MB/s"
        if self.total:
            text += f", {100 * done / self.total:.0f}% done, ETA {(self.total - done) / max(rate, 1e-9):.0f} s"
        print(text, file=sys.stderr, flush=True)


def first_line_end(data: bytes) -> str:
    """The line end of the first line of a file (what :mod:`barley.conllu` keeps)."""
    end = data.find(b"\n")
    return "\r\n" if end > 0 and data[end - 1:end] == b"\r" else "\n"


# --- in each worker process ---------------------------------------------------------------

_parser = None
"""The worker's pipeline: loaded by the main process before it forks the workers (Linux), so it is
loaded once and its arrays are shared, not copied; or loaded by each worker (``spawn`` elsewhere)."""


def _start_worker(model: str | None, parent: int) -> None:
    """Load the model unless inherited; leave Ctrl-C and SIGTERM to the main process; exit when it is gone."""
    global _parser
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal sends Ctrl-C to the whole job
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # so does `kill -- -PGID`; the main process stops us
    if model is not None:
        from barley.pipeline import Pipeline

        try:
            _parser = Pipeline.load(model)  # a parser model is a pipeline of one parser
        except BarleyError as error:  # raised again by the first block, so the user sees it, not a dead pool
            _parser = error

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _parse_block(data: bytes, first_line: int, name: str, newline: str | None, retag: bool) -> tuple[bytes, object]:
    if isinstance(_parser, BarleyError):
        raise _parser
    return parse_bytes(_parser, data, name, first_line, newline, retag)


def parse_bytes(parser, data: bytes, name: str, first_line: int = 1, newline: str | None = None,
                retag: bool = False):
    """Parse a piece of a CoNLL-U file (whole sentences, see :func:`barley.conllu.read_bytes`).

    Returns the output bytes and the parser's counts for this piece alone. The one
    place where a block or a shard becomes output, so that every way of cutting
    a file gives the bytes of a one-process run. ``retag`` (a pipeline with a tagger):
    tag again what the input has tagged.
    """
    parser.stats = type(parser.stats)()
    sentences = read_bytes(data, name, first_line, newline)
    parsed = parser.parse(sentences, retag=True) if retag else parser.parse(sentences)
    text = "".join(sentence.to_text() for sentence in parsed)
    return text.encode("utf-8"), parser.stats


# --- in the main process ------------------------------------------------------------------

def add_stats(total, part):
    """Add the counts of ``part`` to ``total`` (both the same stats dataclass); return ``total``."""
    if total is None:
        return part
    for field in dataclasses.fields(total):
        setattr(total, field.name, getattr(total, field.name) + getattr(part, field.name))
    return total


def parse_file(model: str, source: str, output: str, jobs: int, block_bytes: int = BLOCK_BYTES,
               progress: Callable[[int], None] | None = None, input: str = "conllu", retag: bool = False):
    """Parse ``source`` (a file, ``-`` for stdin, ``.gz``) into ``output`` with ``jobs`` processes.

    ``input``: ``"conllu"`` (CoNLL-U or CoNLL-X), or ``"text"`` / ``"tokenized"`` for a
    pipeline with a tokenizer (:meth:`barley.pipeline.Pipeline.tokenize`); ``retag``:
    tag again what the input has tagged. Returns the summed parse statistics
    (``ParseStats`` or ``GraphParseStats``). ``progress(bytes_done)`` is called after
    each block is written (bytes of CoNLL-U: of the input, or of the tokenized text).
    """
    global _parser
    from barley.pipeline import Pipeline

    name = "<stdin>" if source == "-" else source
    fork = sys.platform == "linux"
    pipeline = Pipeline.load(model) if fork or input != "conllu" else None
    if fork:
        _parser = pipeline  # the forked workers find it loaded
        gc.freeze()  # and the collector leaves its objects alone, so their memory stays shared
    executor = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork" if fork else "spawn"),
                                   initializer=_start_worker, initargs=(None if fork else model, os.getpid()))
    stats = None
    in_flight: deque[tuple[int, Future]] = deque()
    done_bytes = 0
    try:
        with contextlib.ExitStack() as stack:
            if input == "conllu":
                cut = blocks(stack.enter_context(open_bytes(source)), block_bytes)
            else:
                cut = sentence_blocks(_tokenized(pipeline, source, input), block_bytes)
                name = "<memory>"  # what a sentence read from text is named at --jobs 1
            out = stack.enter_context(open_for_writing(output))
            newline = None
            for block in cut:
                if block.index == 0:
                    newline = first_line_end(block.data)
                future = executor.submit(_parse_block, block.data, block.first_line, name,
                                         None if block.index == 0 else newline, retag)
                in_flight.append((len(block.data), future))
                while len(in_flight) >= 2 * jobs:
                    done_bytes, stats = _write_next(in_flight, out, done_bytes, stats, progress)
            while in_flight:
                done_bytes, stats = _write_next(in_flight, out, done_bytes, stats, progress)
    except BrokenProcessPool:
        raise BarleyError("a worker process died while parsing (killed, or out of memory?)", path=name,
                          fix="run again, with fewer --jobs if memory is short; no output was written") from None
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        if fork:
            _parser = None
            gc.unfreeze()
    return stats


def _tokenized(pipeline, source: str, input: str) -> Iterator[Sentence]:
    """The sentences of a text file by the pipeline's tokenizer; the first one through the whole
    pipeline here first, so a model that cannot analyse them fails at once, as with one process."""
    from barley.tokenizer.reading import text_pieces

    sentences = pipeline.tokenize(text_pieces(source), input=input)
    for sentence in sentences:
        list(pipeline.parse([sentence.copy()]))
        yield sentence
        break
    yield from sentences


def _write_next(in_flight: deque, out: IO[bytes], done_bytes: int, stats, progress):
    """Wait for the oldest block in flight and write it: output stays in input order."""
    size, future = in_flight.popleft()
    text, block_stats = future.result()
    out.write(text)
    done_bytes += size
    if progress:
        progress(done_bytes)
    return done_bytes, add_stats(stats, block_stats)
