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
import re
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import IO, Any

from barley.collecting import collecting_rarely, freeze_loaded
from barley.conllu import Sentence, check_line_length, open_bytes, open_for_writing, read_bytes
from barley.errors import BarleyError
from barley.pipeline.request import ParseRequest

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

    @property
    def sentences(self) -> int:
        """How many sentences the block holds, by the cutting rule: each one ends at a blank line or at the end."""
        return len(_SENTENCE_END.findall(self.data)) + bool(self.data[_after_last_blank_line(self.data):].strip())


_SENTENCE_END = re.compile(rb"[^\r\n]\r?\n\r?\n")
"""A line with something on it, then a blank line (``\\n`` or ``\\r\\n`` alone): where a sentence ends."""


def _after_last_blank_line(data: bytes) -> int:
    """The position right after the last blank line of ``data`` (0 if there is none)."""
    start = max(0, len(data) - 65536)  # nearly always found there: spare scanning a block for the other ending
    while True:
        lf, crlf = data.rfind(b"\n\n", start), data.rfind(b"\n\r\n", start)
        if lf >= 0 or crlf >= 0 or not start:
            return max(lf + 2 if lf >= 0 else 0, crlf + 3 if crlf >= 0 else 0)
        start = 0


def blocks(handle: IO[bytes], block_bytes: int = BLOCK_BYTES, sentences: Iterable[int] | None = None,
           name: str = "<stdin>") -> Iterator[Block]:
    """Cut a byte stream into blocks that end right after a blank line (or at the end of the input).

    A blank line is ``\\n`` or ``\\r\\n`` alone; a block grows until one is found, so a
    sentence is never split. Line numbers are counted so errors name the file's line; a
    line longer than :data:`barley.conllu.MAX_LINE_BYTES` is an InputError naming ``name``.

    With ``sentences`` (counts, such as the :attr:`Block.sentences` of another file's
    blocks, consumed one at a time as the blocks are asked for), block *i* holds the
    next ``sentences[i]`` sentences instead (fewer where the input runs out), with the
    blank lines after them; once the counts end, one last block holds the rest
    (empty if nothing is left). A second file is so cut like a first.
    """
    cut_at = _BySize(block_bytes) if sentences is None else _BySentences(iter(sentences))
    pending = b""
    line = 1
    index = 0
    ended = False
    while True:
        cut = cut_at(pending, ended)
        if cut is None:
            if ended:
                return
            data = handle.read(block_bytes)
            ended = not data
            pending += data
            open_line = len(pending) - pending.rfind(b"\n") - 1
            if open_line > block_bytes:  # lines are counted only for a line longer than a block: rare
                check_line_length(open_line, name, line + pending.count(b"\n"))
            continue
        block, pending = pending[:cut], pending[cut:]
        yield Block(block, line, index)
        line += block.count(b"\n")
        index += 1


class _BySize:
    """Where the next block ends: after the last blank line of at least ``block_bytes`` read."""

    def __init__(self, block_bytes: int):
        self.block_bytes = block_bytes

    def __call__(self, pending: bytes, ended: bool) -> int | None:
        if ended:
            return len(pending) or None
        if len(pending) < self.block_bytes:
            return None
        return _after_last_blank_line(pending) or None  # no blank line yet: keep reading


class _BySentences:
    """Where the next block ends: after the next count of sentences (and the blank lines after them)."""

    def __init__(self, counts: Iterator[int]):
        self.counts: Iterator[int] | None = counts
        self.wanted: int | None = -1  # -1: not asked for yet (a count is taken only when its block is wanted)
        self.found = 0  # sentence ends found so far in the pending bytes,
        self.searched = 0  # all of them before this position

    def __call__(self, pending: bytes, ended: bool) -> int | None:
        if self.wanted == -1:
            self.wanted = None if self.counts is None else next(self.counts, None)
        if self.wanted is None:  # the counts are served: the rest is one block, the last
            if not ended or self.counts is None:
                return None
            self.counts = None
            return len(pending)
        matches = _SENTENCE_END.finditer(pending, self.searched)
        while self.found < self.wanted and (match := next(matches, None)):
            self.found += 1
            self.searched = match.end()
        if self.found == self.wanted:
            cut = self.searched
            while pending.startswith(b"\n", cut) or pending.startswith(b"\r\n", cut):
                cut += 1 if pending[cut] == 10 else 2
        elif ended:
            cut = len(pending)  # the input ran out
        else:
            self.searched = max(self.searched, len(pending) - 4)  # a sentence end may straddle the next read
            return None
        self.wanted, self.found, self.searched = -1, 0, 0
        return cut


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


def _counts(text: bytes) -> tuple[int, int]:
    """The sentences and words of a block of CoNLL-U (a tagger's: no parser counted them)."""
    lines = text.splitlines()
    words = sum(1 for line in lines if line[:1].isdigit() and not re.match(rb"\d+[-.]", line))
    return sum(1 for k, line in enumerate(lines) if not line and k and lines[k - 1]), words


def first_line_end(data: bytes) -> str:
    """The line end of the first line of a file (what :mod:`barley.conllu` keeps)."""
    end = data.find(b"\n")
    return "\r\n" if end > 0 and data[end - 1:end] == b"\r" else "\n"


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
