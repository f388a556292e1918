"""Lossless, streaming reading and writing of CoNLL-U and CoNLL-X treebanks.

A :class:`Sentence` keeps every line of the input as it was: comment lines
verbatim, and every token line (syntactic words, multiword-token ranges, empty
nodes) split into its ten tab-separated fields. Writing joins the fields again, so
reading then writing gives the same bytes. Only HEAD and DEPREL are ever replaced,
and only through :meth:`Sentence.set_tree` (and DEPS where enhanced graphs are asked for,
:mod:`barley.enhanced.enhancer`).

CoNLL-X uses the same ten columns (CPOSTAG and POSTAG stand where CoNLL-U has UPOS
and XPOS; PHEAD and PDEPREL where it has DEPS and MISC), so both formats share
this module; :func:`convert` turns one into the other.

Line ends and a byte-order mark are kept: a file whose first line ends in CRLF is
written with CRLF, and a file that starts with a UTF-8 byte-order mark is written
with one (the mark travels with the first sentence, the line end with every
sentence: :attr:`Sentence.newline`, :attr:`Sentence.bom`). A file that mixes CRLF
and LF cannot be kept byte for byte: it is read, and written with the first line's
ending throughout, with a :class:`~barley.errors.BarleyWarning` that says so. The
reader also accepts a missing final blank line, and stops at the first malformed line with an
:class:`~barley.errors.InputError` naming file, line, problem and fix. It checks
the text, never the trees: a sentence with a cycle or several roots is returned
as it is.

Every file barley reads is opened by :func:`open_bytes`, which looks at its first
bytes: UTF-16 and UTF-32 (with a byte-order mark, or without one, told by the NUL
bytes between ASCII characters) and other data full of NUL bytes are refused with
the ``iconv`` command that converts them, before anything is read as text. Readers
take a line of at most :data:`MAX_LINE_BYTES`, so that memory stays bounded
whatever the input (``/dev/zero``, a binary file, a stream that never ends a line).
"""

from __future__ import annotations

import io
import os
import re
import sys
import warnings
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from operator import itemgetter
from typing import IO, cast

import numpy as np

from barley.atomic import atomic_output
from barley.columns import (  # noqa: F401 (the columns are read from here too: barley.conllu.UPOS)
    COLUMNS, DEPREL, DEPS, FEATS, FORM, HEAD, ID, LEMMA, MISC, UPOS, XPOS, column_index)
from barley.errors import BarleyError, BarleyWarning, InputError
from barley.words import Token, Word, tokens_of


def _conllu_package():
    """The ``conllu`` package (optional), or a one-line error saying how to get it."""
    try:
        import conllu
    except ImportError:
        raise BarleyError("converting to and from TokenList needs the conllu package",
                          fix="pip install conllu") from None
    return conllu


class Sentence:
    """One sentence, every input line kept.

    ``comments``: the comment lines (with their ``#``), in order.
    ``rows``: every token line as a list of its ten fields, in file order.
    ``words``: the rows with an integer ID; ``words[i - 1]`` is word ``i``. These are
    the same list objects as in ``rows``, so editing a word edits the row.
    ``line``: the 1-based line number of the sentence's first line in its source.
    ``newline``: the line end it is written with, ``"\\n"`` or ``"\\r\\n"`` (that of its file).
    ``bom``: whether it is written after a UTF-8 byte-order mark (the first sentence
    of a file that had one).
    ``only_words``: the caller knows that every row is a word (no multiword token, no
    empty node), so ``words`` is ``rows`` without looking (the reader's common case).

    Iterating a sentence gives its words as :class:`~barley.words.Word` objects (``word.upos``,
    ``word.head``, ``word.feats``), and :attr:`tokens` its tokens, multiword tokens kept
    (:mod:`barley.words`).
    """

    __slots__ = ("comments", "rows", "words", "line", "source", "newline", "bom")

    def __init__(self, comments: list[str], rows: list[list[str]], line: int = 0,
                 source: str = "<memory>", newline: str = "\n", bom: bool = False, *, only_words: bool = False):
        self.comments = comments
        self.rows = rows
        self.words = list(rows) if only_words else [row for row in rows if row[ID].isdigit()]
        self.line = line
        self.source = source
        self.newline = newline
        self.bom = bom

    def __len__(self) -> int:
        return len(self.words)

    def __iter__(self) -> Iterator[Word]:
        """The words 1..n as :class:`~barley.words.Word` views of their rows."""
        return (Word(self, row) for row in self.words)

    @property
    def tokens(self) -> list[Token]:
        """The tokens as written (:class:`~barley.words.Token`): a multiword token with its words."""
        return tokens_of(self)

    @property
    def text(self) -> str | None:
        """The ``# text`` comment's value, if the sentence has one."""
        return self._comment("text")

    def __repr__(self) -> str:
        text = " ".join(word[FORM] for word in self.words[:8])
        return f"<Sentence {self.source}:{self.line} {len(self)} words: {text}{' ...' if len(self) > 8 else ''}>"

    @property
    def sent_id(self) -> str | None:
        return self._comment("sent_id")

    def _comment(self, name: str) -> str | None:
        """The value of the first ``# name = value`` comment, if any."""
        for comment in self.comments:
            key, _, value = comment[1:].partition("=")
            if key.strip() == name:
                return value.strip()
        return None

    def column(self, column: int | str) -> list[str]:
        """The values of one column for the words 1..n (no root entry): by name (``"upos"``, any case) or
        position (:data:`UPOS`)."""
        index = column_index(column)
        return [word[index] for word in self.words]

    def heads(self) -> np.ndarray:
        """HEAD of every node 0..n as int32; ``heads[0] == -1``, ``_`` reads as -1."""
        values: list[int | str] = [word[HEAD] for word in self.words]
        if "_" in values:
            values = [-1 if value == "_" else value for value in values]
        return np.array([-1, *map(int, values)], dtype=np.int32)

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
        n = len(self.words)
        _valid_heads(n)  # the texts of 1..n, made once for all sentences
        texts = ("0", *_WORD_IDS[:n])
        for word, head, deprel in zip(self.words, heads[1:], deprels[1:]):
            word[HEAD] = texts[head] if type(head) is int and 0 <= head <= n else str(int(head))
            word[DEPREL] = deprel

    def copy(self) -> Sentence:
        return Sentence(list(self.comments), [list(row) for row in self.rows], self.line, self.source,
                        self.newline, self.bom)

    def to_tokenlist(self):
        """The sentence as a ``conllu`` package ``TokenList`` (``pip install conllu``), as ``conllu.parse``
        reads its CoNLL-U: ids as ints (tuples for multiword tokens and empty nodes), FEATS and MISC as
        dicts, the comments as ``metadata``."""
        [tokens] = _conllu_package().parse(self.to_text())
        return tokens

    @classmethod
    def from_tokenlist(cls, tokens, name: str = "<TokenList>") -> Sentence:
        """A ``conllu`` ``TokenList`` as a sentence, read from its ``serialize()`` (errors name ``name``)."""
        sentences = list(read_bytes(tokens.serialize().encode("utf-8"), name))
        if len(sentences) != 1:
            raise InputError(f"the TokenList holds {len(sentences)} sentences, not one", path=name,
                             fix="give one sentence's TokenList (an empty one has no sentence)")
        return sentences[0]

    def to_text(self) -> str:
        """The sentence as CoNLL text, ending with the blank line that closes it (in its own line ends)."""
        newline = self.newline
        text = newline.join([*self.comments, *map("\t".join, self.rows)]) + newline + newline
        return "\ufeff" + text if self.bom else text


@contextmanager
def open_bytes(path: str | os.PathLike) -> Iterator[IO[bytes]]:
    """Open ``path`` for reading bytes: ``-`` is stdin, ``.gz`` is decompressed.

    Its first bytes are checked (:func:`check_encoding`) without being consumed.
    """
    path = os.fspath(path)
    if path == "-":
        check_encoding(_first_bytes(sys.stdin.buffer, "<stdin>"), "<stdin>")
        yield sys.stdin.buffer
        return
    try:
        handle = _gzip().open(path, "rb") if path.endswith(".gz") else open(path, "rb")
    except OSError as error:
        raise InputError(f"cannot open the file: {error.strerror}", path=path,
                         fix="check the path and the permissions") from None
    with handle:
        check_encoding(_first_bytes(handle, path), path)
        yield handle


def _first_bytes(handle: IO[bytes], name: str) -> bytes:
    """Up to :data:`SAMPLE_BYTES` from the start of ``handle``, left there to be read (a pipe: what has come)."""
    try:
        peek = getattr(handle, "peek", None)
        if peek is not None:
            return peek(SAMPLE_BYTES)[:SAMPLE_BYTES]
        if handle.seekable():  # an in-memory stream given as stdin
            data = handle.read(SAMPLE_BYTES)
            handle.seek(-len(data), os.SEEK_CUR)
            return data
        return b""
    except (_gzip().BadGzipFile, EOFError, zlib.error) as error:
        raise _damaged_gzip(error, name) from None
    except OSError as error:  # a folder opens, but cannot be read
        raise InputError(f"cannot read the file: {error.strerror}", path=name,
                         fix="check the path and the permissions") from None


SAMPLE_BYTES = 4096
"""How much of the start of a file :func:`check_encoding` looks at."""

MAX_LINE_BYTES = 1 << 22
"""The longest line barley reads: 4 MiB, 3,000 times the longest line in the UD treebanks here
(1.3 KB, a ``# text`` comment). Readers hold at most about this much of a line, so a line that
never ends (``/dev/zero``, a binary file) is an error, not all the memory there is."""

_WIDE_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"),
              (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def check_encoding(start: bytes, name: str) -> None:
    """Raise an InputError where ``start``, the first bytes of a file, is not UTF-8 text but UTF-16 or
    UTF-32 (a byte-order mark; or, without one, a NUL byte beside every ASCII character), or data in
    which one byte in eight or more is NUL (no text has NUL bytes: a binary file, or ``/dev/zero``)."""
    for mark, encoding in _WIDE_BOMS:
        if start.startswith(mark):
            raise InputError(f"the file is {encoding} (it starts with a {encoding} byte-order mark); barley reads "
                             "UTF-8", path=name, fix=f"convert it first: iconv -f {encoding} -t UTF-8 FILE > NEW")
    nul = start.count(0)
    if not start or nul * 8 < len(start):
        return
    guessed = _wide_encoding(start)
    if guessed:
        raise InputError(f"the file looks like {guessed} without a byte-order mark (a NUL byte beside every ASCII "
                         "character); barley reads UTF-8", path=name,
                         fix=f"convert it first: iconv -f {guessed} -t UTF-8 FILE > NEW")
    raise InputError(f"{nul} NUL bytes in the first {len(start)}: not a text file", path=name,
                     fix="give a UTF-8 text file; convert UTF-16 or UTF-32 text first, e.g. iconv -f UTF-16 -t UTF-8")


def _wide_encoding(start: bytes) -> str | None:
    """UTF-32 or UTF-16, little- or big-endian, from where the NUL bytes of ASCII text fall; else None."""
    nul = [start[i::4].count(0) / max(1, len(start[i::4])) for i in range(4)]  # share of NUL at position i mod 4
    if min(nul[2], nul[3]) > 0.9 > 0.5 > nul[0]:
        return "UTF-32LE"
    if min(nul[0], nul[1]) > 0.9 > 0.5 > nul[3]:
        return "UTF-32BE"
    odd, even = (nul[1] + nul[3]) / 2, (nul[0] + nul[2]) / 2
    if odd > 0.25 and even < odd / 4:
        return "UTF-16LE"
    if even > 0.25 and odd < even / 4:
        return "UTF-16BE"
    return None


def to_line_end(handle: IO[bytes], data: bytes, name: str, line: int) -> bytes:
    """``data``, a chunk just read from ``handle`` whose first line is ``line``, and the rest of its last
    line; that line longer than :data:`MAX_LINE_BYTES` is an InputError, after reading no more than that."""
    if not data or data.endswith(b"\n"):
        return data
    started = len(data) - data.rfind(b"\n") - 1  # of the last line, in data
    rest = handle.readline(max(1, MAX_LINE_BYTES + 1 - started))  # a longest line and its line end
    if not rest.endswith(b"\n"):
        check_line_length(started + len(rest), name, line + data.count(b"\n"))
    return data + rest


def check_line_length(length: int, name: str, line: int) -> None:
    """Raise an InputError if ``length`` bytes of line ``line`` are more than :data:`MAX_LINE_BYTES`."""
    if length > MAX_LINE_BYTES:
        raise InputError(f"a line longer than {_size(MAX_LINE_BYTES)}, barley's limit: is this a text file?",
                         path=name, line=line, fix="CoNLL-U has one token or comment per line, and plain text may "
                                                   "end a line between any two words")


def _size(count: int) -> str:
    return f"{count >> 20} MiB" if count >= 1 << 20 and not count % (1 << 20) else f"{count} bytes"


def read_text(path: str | os.PathLike, limit: int = MAX_LINE_BYTES) -> str:
    """The whole text of a small UTF-8 file (a feature model, a position list) of at most ``limit`` bytes;
    what is not UTF-8 text is an InputError naming the line."""
    path = os.fspath(path)
    with open_bytes(path) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            raise InputError(f"cannot read the file: {error.strerror}", path=path) from None
    if len(data) > limit:
        raise InputError(f"the file is larger than {_size(limit)}, barley's limit for it", path=path,
                         fix="is it the right file?")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _invalid_utf8(error, data, path, data.count(b"\n", 0, error.start) + 1) from None


def _invalid_utf8(error: UnicodeDecodeError, data: bytes, name: str, line: int) -> InputError:
    bad = data[error.start:error.end].hex(" ")
    return InputError(f"invalid UTF-8: byte(s) {bad} ({error.reason})", path=name, line=line, fix=_UTF8_FIX)


def _damaged_gzip(error: Exception, name: str) -> InputError:
    return InputError(f"damaged or truncated gzip data ({error})", path=name,
                      fix="decompress it with gunzip to see what is wrong, or get a fresh copy")


def _gzip():
    """The gzip module, imported when a ``.gz`` file is met (not at start-up)."""
    import gzip

    return gzip


CHUNK_BYTES = 1 << 20


def read(path: str | os.PathLike) -> Iterator[Sentence]:
    """Yield the sentences of a CoNLL-U or CoNLL-X file one at a time (streaming).

    ``path`` may be ``-`` for stdin or end in ``.gz``. A UTF-8 byte-order mark and
    CRLF line ends are accepted; the last sentence may lack its closing blank line.
    Malformed input raises :class:`~barley.errors.InputError` naming the file and
    line. Sentences that are well-formed text but not trees are returned as they are.
    """
    name = "<stdin>" if os.fspath(path) == "-" else os.fspath(path)
    with open_bytes(path) as handle:
        yield from _sentences(handle, name, pipe=os.fspath(path) == "-")


def read_bytes(data: bytes, name: str = "<memory>", first_line: int = 1, newline: str | None = None) -> Iterator[Sentence]:
    """The sentences of ``data``, a piece of a file that begins at line ``first_line`` and at a sentence.

    ``newline`` is the file's line end when ``data`` is not its beginning (else it
    is read from the first line, and a byte-order mark is recognised as in :func:`read`).
    Errors name ``name`` and the line in the whole file. Used to parse a file in blocks.
    """
    if newline is None:  # the start of a file: checked as open_bytes checks a file's
        check_encoding(data[:SAMPLE_BYTES], name)
    yield from _sentences(io.BytesIO(data), name, first_line=first_line, newline=newline)


def _sentences(handle: IO[bytes], name: str, pipe: bool = False, first_line: int = 1,
               newline: str | None = None) -> Iterator[Sentence]:
    """The sentences of a byte stream, each with its file's line end; the first one keeps the BOM."""
    blocks = _blocks(handle, name, pipe, first_line, newline)
    for start, lines in blocks:
        assert blocks.newline is not None  # set as the first chunk is read
        yield _sentence(lines, start, name, blocks.newline, blocks.bom)
        blocks.bom = False


def read_lines(lines: Iterable[str], name: str = "<memory>") -> Iterator[Sentence]:
    """Parse CoNLL lines (str, with or without line ends) into sentences, streaming.

    The line end of the first line (and a byte-order mark before it) is kept as in :func:`read`.
    """
    block: list[str] = []
    start = number = 0
    iterator = iter(lines)
    while True:
        try:
            raw = next(iterator)
        except StopIteration:
            break
        except UnicodeDecodeError as error:  # a text file handle given as `lines`
            raise InputError(f"invalid UTF-8 ({error.reason})", path=name, line=number + 1,
                             fix=_UTF8_FIX) from None
        number += 1
        line = raw.rstrip("\r\n")
        if number == 1:
            newline = "\r\n" if raw.rstrip("\n").endswith("\r") else "\n"
            bom = line.startswith("\ufeff")
            line = line.removeprefix("\ufeff")
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            yield _sentence(block, start, name, newline, bom)
            block, bom = [], False
    if block:
        yield _sentence(block, start, name, newline, bom)


_UTF8_FIX = "re-encode the file as UTF-8, e.g. with iconv -f LATIN1 -t UTF-8"
_BLANK_WITH_SPACES = re.compile(r"^[ \t\f\v]+$", re.MULTILINE)


class _blocks:
    """Iterate ``(line number, lines)`` over the runs of non-blank lines of a byte stream.

    Bytes are decoded a large chunk at a time (each chunk extended to the end of
    its line, so no character is split) and cut into sentences at blank lines with
    ``str.split``: several times faster than a Python loop over lines. A decoding
    error still gets its exact line: the newlines before the bad byte are counted.
    On a ``pipe`` a chunk is whatever has arrived, so a sentence is read as soon as it is there.

    ``newline`` and ``bom`` describe the stream as read so far: the line end of its
    first line (unless given) and whether it began with a byte-order mark.
    """

    def __init__(self, handle: IO[bytes], name: str, pipe: bool = False, first_line: int = 1,
                 newline: str | None = None):
        self.newline = newline
        self.bom = False
        self._lines = self._read(handle, name, pipe, first_line, start=newline is None)

    def __iter__(self):
        return self._lines

    def _line_ends(self, text: str, name: str, line: int) -> str:
        """``text`` with LF line ends; fix the stream's line end from its first line; warn once on a mix."""
        if self.newline is None:
            end = text.find("\n")
            self.newline = "\r\n" if end > 0 and text[end - 1] == "\r" else "\n"
        if "\r" not in text:
            crlf, lf = 0, text
        else:
            crlf, lf = text.count("\r\n"), text.replace("\r\n", "\n")
            stray = lf.find("\r")
            if stray >= 0:  # it could not be written back as it was read: refuse it
                where = line + lf.count("\n", 0, stray)
                raise InputError("a carriage return (\\r) that does not end a line", path=name, line=where,
                                 fix="lines end in LF or CRLF; remove stray carriage returns, e.g. sed 's/\\r*$//'")
        if not self._mixed and crlf != (text.count("\n") if self.newline == "\r\n" else 0):
            self._warn_mixed(text, name, line)
        return lf

    _mixed = False
    _OTHER_END = {"\n": re.compile(r"\r\n"), "\r\n": re.compile(r"(?<!\r)\n")}

    def _warn_mixed(self, text: str, name: str, line: int) -> None:
        """Warn (once per stream) that ``text``, which starts at ``line``, has lines ending unlike the first."""
        self._mixed = True
        assert self.newline is not None
        other = self._OTHER_END[self.newline].search(text)
        line += text.count("\n", 0, other.start()) if other else 0
        ending = "CRLF" if self.newline == "\r\n" else "LF"
        warnings.warn(f"{name}: lines end in both CRLF and LF (first at line {line}); the output ends every line "
                      f"in {ending}, like the first line", BarleyWarning, stacklevel=2)

    def _read(self, handle: IO[bytes], name: str, pipe: bool, line: int, start: bool):
        read_some = cast(io.BufferedIOBase, handle).read1 if pipe else handle.read
        pending = ""  # the text after the last blank line: a sentence not finished yet
        first = start
        while True:
            data = _read_chunk(read_some, handle, name, line + pending.count("\n"))
            if data:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError as error:
                    number = line + pending.count("\n") + data.count(b"\n", 0, error.start)
                    raise _invalid_utf8(error, data, name, number) from None
                if first:
                    self.bom = text.startswith("\ufeff")
                    text = text.removeprefix("\ufeff")
                    first = False
                text = pending + self._line_ends(text, name, line + pending.count("\n"))
            else:
                text = pending
            if ("\n " in text or "\n\t" in text) and _BLANK_WITH_SPACES.search(text):
                text = _BLANK_WITH_SPACES.sub("", text)
            parts = text.split("\n\n")
            pending = parts.pop() if data else ""
            for part in parts:
                lines = part.split("\n")
                leading = 0  # extra blank lines before the sentence
                while leading < len(lines) and not lines[leading]:
                    leading += 1
                while lines and not lines[-1]:
                    lines.pop()
                if leading < len(lines):
                    yield line + leading, lines[leading:]
                line += part.count("\n") + 2
            if not data:
                return


def _read_chunk(read_some, handle: IO[bytes], name: str, line: int) -> bytes:
    try:
        return to_line_end(handle, read_some(CHUNK_BYTES), name, line)
    except (_gzip().BadGzipFile, EOFError, zlib.error) as error:  # evaluated only when something is raised
        raise _damaged_gzip(error, name) from None


_WORD_IDS: list[str] = []
_VALID_HEADS: dict[int, frozenset[str]] = {}


def _sentence(lines: list[str], start: int, name: str, newline: str = "\n", bom: bool = False) -> Sentence:
    """Build the Sentence of one block of lines, after checking it (see :func:`_check`).

    The common case (words 1..n, 10 columns, every HEAD in 0..n) is recognised with
    a few whole-list comparisons; anything else goes through the line-by-line check,
    which raises on the first problem or accepts multiword tokens and empty nodes.
    """
    count = 0
    while count < len(lines) and lines[count].startswith("#"):
        count += 1
    if count == len(lines):
        raise InputError("comment lines without any token line after them", path=name, line=start,
                         fix="remove the stray comments or add the sentence's token lines")
    rows = [line.split("\t") for line in lines[count:]]
    n = len(rows)
    heads = _valid_heads(n)
    if (set(map(len, rows)) == {10} and list(map(_ID_OF, rows)) == _WORD_IDS[:n]
            and heads.issuperset(map(_HEAD_OF, rows))):
        return Sentence(lines[:count], rows, start, name, newline, bom, only_words=True)
    _check(rows, start + count, name)
    return Sentence(lines[:count], rows, start, name, newline, bom)


_ID_OF, _HEAD_OF = itemgetter(ID), itemgetter(HEAD)


def _valid_heads(n: int) -> frozenset[str]:
    """The HEAD values allowed in a sentence of n words: ``_`` and 0..n (and grow ``_WORD_IDS`` to n)."""
    while len(_WORD_IDS) <= n:
        _WORD_IDS.append(str(len(_WORD_IDS) + 1))
    heads = _VALID_HEADS.get(n)
    if heads is None:
        heads = _VALID_HEADS[n] = frozenset(["_", *_WORD_IDS[:n], "0"])
    return heads


def _number(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _check(rows: list[list[str]], first_line: int, name: str) -> None:
    """Raise an InputError for the first malformed token line; ``rows[j]`` is line ``first_line + j``.

    Checked: 10 tab-separated columns; IDs 1, 2, 3, ... with multiword ranges a-b
    right before word a and empty nodes i.k right after word i; HEAD ``_`` or a word
    number of the sentence. Tree-ness (cycles, roots) is not the reader's business.
    """
    for j, row in enumerate(rows):
        if row[0].startswith("#"):
            raise InputError("comment line after the first token line of a sentence", path=name,
                             line=first_line + j, fix="move comments above the sentence's token lines")
        if len(row) != 10:
            line = "\t".join(row)
            fix = ("the columns seem to be separated by spaces: use exactly one tab between columns"
                   if len(row) < 10 and len(line.split()) >= 10 else
                   "every token line needs exactly 10 columns separated by tabs (use _ for empty values)")
            raise InputError(f"expected 10 tab-separated columns, found {len(row)}", path=name,
                             line=first_line + j, fix=fix)
    words = _word_ids_checked(rows, first_line, name)
    heads = _valid_heads(words)
    is_word = [_number(row[ID]) for row in rows]
    if heads.issuperset([row[HEAD] for row, word in zip(rows, is_word) if word]):
        return
    for j, row in enumerate(rows):
        head = row[HEAD]
        if not is_word[j] or head in heads:
            continue
        if not _number(head.removeprefix("-")):
            raise InputError(f"HEAD {head!r} of word {row[ID]} is not an integer", path=name,
                             line=first_line + j, fix="HEAD must be 0 (the root), a word number of the sentence, or _")
        raise InputError(f"HEAD {head} of word {row[ID]} is out of range (the sentence has {words} words)",
                         path=name, line=first_line + j, fix="HEAD must be 0 (the root) or a word number 1..n")


def _word_ids_checked(rows: list[list[str]], first_line: int, name: str) -> int:
    """Check the ID column (words, multiword ranges, empty nodes); return the number of words."""
    expected = 1  # the next word number
    range_end = range_line = 0
    for j, row in enumerate(rows):
        token_id = row[ID]
        if token_id == _WORD_IDS[expected - 1]:
            expected += 1
            continue
        line = first_line + j
        first, dash, last = token_id.partition("-")
        whole, dot, decimal = token_id.partition(".")
        if _number(token_id):
            raise InputError(f"word ID {token_id} breaks the sequence (expected {expected})", path=name,
                             line=line, fix="number the words of a sentence 1, 2, 3, ... in order")
        elif dash and _number(first) and _number(last):
            if int(first) != expected or int(last) <= int(first):
                raise InputError(f"multiword token {token_id} does not match the words after it "
                                 f"(the next word is {expected})", path=name, line=line,
                                 fix="a range a-b must come right before word a, with b > a")
            if expected <= range_end:
                raise InputError(f"multiword token {token_id} overlaps the previous range", path=name,
                                 line=line, fix="multiword ranges must not overlap")
            range_end, range_line = int(last), line
        elif dot and _number(whole) and _number(decimal):
            if int(whole) != expected - 1:
                raise InputError(f"empty node {token_id} is out of place (the last word is {expected - 1})",
                                 path=name, line=line, fix="an empty node i.k must come right after word i")
        else:
            raise InputError(f"ID {token_id!r} is not a word number, a range a-b or an empty node i.k",
                             path=name, line=line, fix="correct the first column")
    words = expected - 1
    if range_end > words:
        raise InputError(f"multiword token ends at word {range_end} but the sentence has {words} words",
                         path=name, line=range_line, fix="make the range cover words of the sentence")
    return words


FORMATS = ("conllu", "conllx")


def convert(sentences: Iterable[Sentence], to: str, dropped: Counter | None = None) -> Iterator[Sentence]:
    """Convert sentences to ``"conllx"`` or ``"conllu"``, counting what CoNLL-X cannot hold in ``dropped``.

    To CoNLL-X (Buchholz and Marsi 2006): only word lines are kept, so comment
    lines, multiword tokens and empty nodes are dropped (counted under those
    names); DEPS and MISC, in the columns where CoNLL-X has PHEAD and PDEPREL,
    become ``_``.

    To CoNLL-U: a CoNLL-X word whose 9th column is a bare integer has a PHEAD
    there (a CoNLL-U DEPS is ``_`` or head:relation pairs); its PHEAD and PDEPREL
    move into MISC as ``PHEAD=h|PDEPREL=l`` and DEPS becomes ``_``, so nothing is
    lost and the result is valid CoNLL-U. Every other line is kept as it is (CoNLL-U
    input passes unchanged); tags are not mapped, CPOSTAG and POSTAG stay in UPOS
    and XPOS.
    """
    if to not in FORMATS:
        raise ValueError(f"unknown format {to!r}; expected one of {', '.join(FORMATS)}")
    dropped = Counter() if dropped is None else dropped
    for sentence in sentences:
        if to == "conllx":
            dropped["comment lines"] += len(sentence.comments)
            dropped["multiword tokens"] += sum("-" in row[ID] for row in sentence.rows)
            dropped["empty nodes"] += sum("." in row[ID] for row in sentence.rows)
            words = [word[:DEPS] + ["_", "_"] for word in sentence.words]
            yield Sentence([], words, sentence.line, sentence.source, sentence.newline)
            continue
        sentence = sentence.copy()
        for word in sentence.words:
            if _number(word[DEPS]):
                moved = [f"PHEAD={word[DEPS]}"] + ([f"PDEPREL={word[MISC]}"] if word[MISC] != "_" else [])
                word[DEPS], word[MISC] = "_", "|".join(moved)
        yield sentence


def write(sentences: Iterable[Sentence], path: str | os.PathLike) -> int:
    """Write sentences to ``path`` (``-`` for stdout, ``.gz`` compressed).

    A file is written atomically (:mod:`barley.atomic`): nothing appears at ``path``
    until everything was written. Returns the number of sentences.
    """
    with open_for_writing(path) as handle:
        return _write_to(sentences, handle)


@contextmanager
def open_for_writing(path: str | os.PathLike) -> Iterator[IO[bytes]]:
    """A binary handle for CoNLL output: stdout for ``-``, else an atomic file, gzip for ``.gz``.

    The gzip stream carries no file name and no time stamp, so the same sentences
    always give the same bytes.
    """
    path = os.fspath(path)
    if path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    with atomic_output(path) as raw:
        if path.endswith(".gz"):
            with _gzip().GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as handle:
                yield handle
        else:
            yield raw


@contextmanager
def atomic_writer(path: str | os.PathLike) -> Iterator[IO[str]]:
    """A UTF-8 text handle for a page or a drawing, written as :func:`open_for_writing` writes."""
    with open_for_writing(path) as raw:
        handle = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        yield handle
        handle.flush()
        handle.detach()  # the raw handle is closed (and renamed into place) by open_for_writing


def _write_to(sentences: Iterable[Sentence], handle: IO[bytes]) -> int:
    count = 0
    for sentence in sentences:
        handle.write(sentence.to_text().encode("utf-8"))
        count += 1
    return count
