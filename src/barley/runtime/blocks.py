"""Whole sentences of a CoNLL-U input, cut into blocks of about :data:`BLOCK_BYTES` bytes that end right
after a blank line: what ``barley parse --jobs`` hands its workers (:mod:`barley.runtime.parallel`), what a
Dask shard is made of (:mod:`barley.runtime.distributed`) and what ``barley evaluate --jobs`` compares
(:mod:`barley.evaluation.parallel`). One cutting rule for all three, so that every way of cutting a file
gives the bytes of a one-process run."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from typing import IO

from barley.conllu import Sentence, check_line_length

BLOCK_BYTES = 1 << 20
"""About this many bytes of CoNLL-U per block (≈ 25,000 words): large enough to batch well."""


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


def first_line_end(data: bytes) -> str:
    """The line end of the first line of a file (what :mod:`barley.conllu` keeps)."""
    end = data.find(b"\n")
    return "\r\n" if end > 0 and data[end - 1:end] == b"\r" else "\n"
