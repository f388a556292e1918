"""Lossless, streaming reading and writing of CoNLL-U and CoNLL-X treebanks.

A :class:`Sentence` keeps every line of the input as it was: comment lines
verbatim, and every token line (syntactic words, multiword-token ranges, empty
nodes) split into its ten tab-separated fields. Writing joins the fields again, so
reading then writing gives the same bytes. Only HEAD and DEPREL are ever replaced,
and only through :meth:`Sentence.set_tree`.

CoNLL-X uses the same ten columns (CPOSTAG and POSTAG stand where CoNLL-U has UPOS
and XPOS; PHEAD and PDEPREL where it has DEPS and MISC), so both formats share
this module.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO

import numpy as np

from barley.errors import InputError

ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC = range(10)
COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")


class Sentence:
    """One sentence, every input line kept.

    ``comments``: the comment lines (with their ``#``), in order.
    ``rows``: every token line as a list of its ten fields, in file order.
    ``words``: the rows with an integer ID; ``words[i - 1]`` is word ``i``. These are
    the same list objects as in ``rows``, so editing a word edits the row.
    ``line``: the 1-based line number of the sentence's first line in its source.
    """

    __slots__ = ("comments", "rows", "words", "line", "source")

    def __init__(self, comments: list[str], rows: list[list[str]], line: int = 0,
                 source: str = "<memory>"):
        self.comments = comments
        self.rows = rows
        self.words = [row for row in rows if row[ID].isdigit()]
        self.line = line
        self.source = source

    def __len__(self) -> int:
        return len(self.words)

    def __repr__(self) -> str:
        text = " ".join(word[FORM] for word in self.words[:8])
        return f"<Sentence {self.source}:{self.line} {len(self)} words: {text}{' ...' if len(self) > 8 else ''}>"

    @property
    def sent_id(self) -> str | None:
        for comment in self.comments:
            key, _, value = comment[1:].partition("=")
            if key.strip() == "sent_id":
                return value.strip()
        return None

    def column(self, index: int) -> list[str]:
        """The values of one column for the words 1..n (no root entry)."""
        return [word[index] for word in self.words]

    def heads(self) -> np.ndarray:
        """HEAD of every node 0..n as int32; ``heads[0] == -1``, ``_`` reads as -1."""
        heads = np.full(len(self.words) + 1, -1, dtype=np.int32)
        for i, word in enumerate(self.words, start=1):
            if word[HEAD] != "_":
                heads[i] = int(word[HEAD])
        return heads

    def deprels(self) -> list[str]:
        """DEPREL of every node 0..n; entry 0 (the artificial root) is ``""``."""
        return [""] + [word[DEPREL] for word in self.words]

    def set_tree(self, heads: Iterable[int], deprels: Iterable[str]) -> None:
        """Replace HEAD and DEPREL of words 1..n (entry 0 of both is ignored)."""
        heads = list(heads)
        deprels = list(deprels)
        if len(heads) != len(self.words) + 1 or len(deprels) != len(self.words) + 1:
            raise ValueError(f"set_tree needs {len(self.words) + 1} entries (root included), "
                             f"got {len(heads)} heads and {len(deprels)} labels")
        for word, head, deprel in zip(self.words, heads[1:], deprels[1:]):
            word[HEAD] = str(int(head))
            word[DEPREL] = deprel

    def copy(self) -> Sentence:
        return Sentence(list(self.comments), [list(row) for row in self.rows], self.line, self.source)

    def to_text(self) -> str:
        """The sentence as CoNLL text, ending with the blank line that closes it."""
        lines = list(self.comments)
        lines.extend("\t".join(row) for row in self.rows)
        return "\n".join(lines) + "\n\n"


@contextmanager
def open_text(path: str | os.PathLike, mode: str = "r") -> Iterator[IO[str]]:
    """Open ``path`` as UTF-8 text; ``-`` is stdin/stdout and ``.gz`` is gzip.

    Reading uses ``newline=""`` so that CRLF line ends reach the reader, which
    strips them; an invalid byte raises :class:`UnicodeDecodeError`, which the
    reader turns into an :class:`InputError` with its line number.
    """
    path = os.fspath(path)
    if path == "-":
        stream = sys.stdin.buffer if "r" in mode else sys.stdout.buffer
        if "r" in mode:
            yield io.TextIOWrapper(stream, encoding="utf-8", newline="")
        else:
            wrapper = io.TextIOWrapper(stream, encoding="utf-8", newline="\n", write_through=True)
            try:
                yield wrapper
            finally:
                wrapper.flush()
                wrapper.detach()
        return
    if path.endswith(".gz"):
        with gzip.open(path, mode + "t", encoding="utf-8", newline="" if "r" in mode else "\n") as handle:
            yield handle
        return
    with open(path, mode, encoding="utf-8", newline="" if "r" in mode else "\n") as handle:
        yield handle


def read(path: str | os.PathLike) -> Iterator[Sentence]:
    """Yield the sentences of a CoNLL-U or CoNLL-X file one at a time (streaming).

    ``path`` may be ``-`` for stdin or end in ``.gz``. Malformed input raises
    :class:`~barley.errors.InputError` naming the file and line.
    """
    name = "<stdin>" if os.fspath(path) == "-" else os.fspath(path)
    with open_text(path) as handle:
        yield from read_lines(handle, name)


def read_lines(lines: Iterable[str], name: str = "<memory>") -> Iterator[Sentence]:
    """Parse CoNLL lines (with or without line ends) into sentences."""
    comments: list[str] = []
    rows: list[list[str]] = []
    start = 0
    number = 0
    iterator = iter(lines)
    while True:
        try:
            raw = next(iterator)
        except StopIteration:
            break
        except UnicodeDecodeError as error:
            raise InputError(f"invalid UTF-8 ({error.reason} at byte {error.start} of a block)",
                             path=name, line=number + 1,
                             fix="re-encode the file as UTF-8, e.g. with iconv") from None
        number += 1
        line = raw.rstrip("\r\n")
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if not line.strip():
            if rows:
                yield _sentence(comments, rows, start, name)
            elif comments:
                raise InputError("comment lines without any token line before a blank line",
                                 path=name, line=number, fix="remove the stray comments or add the sentence")
            comments, rows = [], []
            continue
        if not rows and not comments:
            start = number
        if line.startswith("#"):
            if rows:
                raise InputError("comment line after the first token line of a sentence",
                                 path=name, line=number, fix="move comments above the sentence's token lines")
            comments.append(line)
            continue
        fields = line.split("\t")
        if len(fields) != 10:
            hint = ("the line seems to use spaces instead of tabs; separate the 10 columns with tabs"
                    if len(fields) == 1 and len(line.split()) == 10 else
                    "every token line needs exactly 10 tab-separated columns")
            raise InputError(f"expected 10 tab-separated columns, found {len(fields)}",
                             path=name, line=number, fix=hint)
        rows.append(fields)
        fields.append(number)  # type: ignore[arg-type]  # line number, removed by _sentence
    if rows:
        yield _sentence(comments, rows, start, name)
    elif comments:
        raise InputError("comment lines at the end of the file without a sentence",
                         path=name, line=number, fix="remove the stray comments or add the sentence")


def _sentence(comments: list[str], rows: list[list], start: int, name: str) -> Sentence:
    """Check the ID sequence, multiword ranges and HEAD values; build the Sentence."""
    numbers = [row.pop() for row in rows]
    expected = 1
    range_end = 0
    range_line = 0
    words = 0
    for row, number in zip(rows, numbers):
        token_id = row[ID]
        if token_id.isdigit():
            if int(token_id) != expected:
                raise InputError(f"word ID {token_id} breaks the sequence (expected {expected})",
                                 path=name, line=number, fix="number the words of a sentence 1, 2, 3, ...")
            expected += 1
            words += 1
        elif "-" in token_id:
            first, _, last = token_id.partition("-")
            if not (first.isdigit() and last.isdigit()) or int(first) != expected or int(last) <= int(first):
                raise InputError(f"multiword range {token_id} does not match the words after it "
                                 f"(the next word is {expected})", path=name, line=number,
                                 fix="a range a-b must come right before word a, with b > a")
            if expected <= range_end:
                raise InputError(f"multiword range {token_id} overlaps the previous range",
                                 path=name, line=number, fix="ranges must not overlap")
            range_end, range_line = int(last), number
        elif "." in token_id:
            whole, _, decimal = token_id.partition(".")
            if not (whole.isdigit() and decimal.isdigit()) or int(whole) != expected - 1:
                raise InputError(f"empty node ID {token_id} is out of place (the last word is {expected - 1})",
                                 path=name, line=number, fix="an empty node i.k must follow word i")
        else:
            raise InputError(f"ID {token_id!r} is not a word number, a range a-b or an empty node i.k",
                             path=name, line=number, fix="fix the first column")
    if range_end >= expected:
        raise InputError(f"a multiword range ends at word {range_end} but the sentence has {expected - 1} words",
                         path=name, line=range_line, fix="make the range cover existing words")
    for row, number in zip(rows, numbers):
        if not row[ID].isdigit():
            continue
        head = row[HEAD]
        if head == "_":
            continue
        if not head.isdigit():
            raise InputError(f"HEAD {head!r} of word {row[ID]} is not an integer", path=name, line=number,
                             fix="HEAD must be a word number of the sentence, 0 for the root, or _")
        if int(head) > words:
            raise InputError(f"HEAD {head} of word {row[ID]} is out of range (the sentence has {words} words)",
                             path=name, line=number, fix="HEAD must be 0 or the number of a word in the sentence")
    return Sentence(comments, rows, start, name)


def write(sentences: Iterable[Sentence], path: str | os.PathLike) -> int:
    """Write sentences to ``path`` (``-`` for stdout, ``.gz`` compressed).

    A file is written atomically: to a temporary file beside it, renamed into
    place only when everything was written. Returns the number of sentences.
    """
    path = os.fspath(path)
    if path == "-":
        with open_text("-", "w") as handle:
            return _write_to(sentences, handle)
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".barley-", suffix=".part", dir=directory)
    os.close(fd)
    try:
        suffix_path = temporary + (".gz" if path.endswith(".gz") else "")
        if suffix_path != temporary:
            os.replace(temporary, suffix_path)
            temporary = suffix_path
        with open_text(temporary, "w") as handle:
            count = _write_to(sentences, handle)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return count


def _write_to(sentences: Iterable[Sentence], handle: IO[str]) -> int:
    count = 0
    for sentence in sentences:
        handle.write(sentence.to_text())
        count += 1
    return count
