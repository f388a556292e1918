"""Raw text in, a piece at a time: UTF-8 decoded with the byte offset of any bad byte.

:func:`text_pieces` yields the decoded text of a file (``-`` is stdin) in pieces of
about :data:`CHUNK_BYTES`, each ending at a line end (or wherever a pipe has
stopped delivering), so memory holds one piece and what the tokenizer has not
finished. Invalid UTF-8 raises an :class:`~barley.errors.InputError` with the
byte offset and line of the first bad byte. A UTF-8 byte-order mark at the start
is dropped (it is not text); nothing else is: CR, tabs, no-break spaces and
control characters all reach the tokenizer. Damaged ``.gz`` data, UTF-16 or UTF-32
text and a line longer than :data:`barley.conllu.MAX_LINE_BYTES` are one-line errors too.

:func:`guess_input` tells CoNLL-U from plain text by the first lines (``barley parse
--input auto``).
"""

from __future__ import annotations

import codecs
import gzip
import os
import re
import zlib
from collections.abc import Iterator

from barley.conllu import _UTF8_FIX, check_line_length, open_bytes, to_line_end
from barley.errors import InputError

CHUNK_BYTES = 1 << 16
SNIFF_BYTES = 1 << 16
_CONLLU_LINE = re.compile(rb"\d+(?:-\d+|\.\d+)?\t")
_GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)


def source_name(path: str | os.PathLike) -> str:
    """How errors name the file at ``path`` (``-``: standard input)."""
    path = os.fspath(path)
    return "<stdin>" if path == "-" else path


def text_pieces(path: str | os.PathLike, chunk_bytes: int = CHUNK_BYTES) -> Iterator[str]:
    """Decoded pieces of the text of ``path`` (see the module docstring)."""
    path = os.fspath(path)
    name = source_name(path)
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0  # bytes read before the current chunk
    lines = 1  # line number at the start of the current chunk
    open_line = 0  # bytes of the last line read, if it has not ended
    first = True
    with open_bytes(path) as handle:
        read_some = getattr(handle, "read1") if path == "-" else handle.read  # stdin's buffer: what has come
        while True:
            try:
                data = read_some(chunk_bytes)
                if path != "-":
                    data = to_line_end(handle, data, name, lines)
            except _GZIP_ERRORS as error:
                raise InputError(f"damaged or truncated gzip data ({error})", path=name, line=lines,
                                 fix="decompress it with gunzip to see what is wrong, or get a fresh copy") from None
            final = not data
            held = decoder.getstate()[0]  # the bytes of a character the last chunk left unfinished
            try:
                text = decoder.decode(data, final=final)
            except UnicodeDecodeError as error:
                start = offset - len(held) + error.start  # error.start counts from the held bytes
                line = lines + (held + data).count(b"\n", 0, error.start)
                raise invalid_utf8(error, name, start, line) from None
            offset += len(data)
            lines += data.count(b"\n")
            last_end = data.rfind(b"\n")
            open_line = open_line + len(data) if last_end < 0 else len(data) - last_end - 1
            check_line_length(open_line, name, lines)  # a pipe's line, which comes in pieces
            if first and text:
                text = text.removeprefix("\ufeff")
                first = False
            if text:
                yield text
            if final:
                return


def invalid_utf8(error: UnicodeDecodeError, name: str, offset: int, line: int) -> InputError:
    """The one-line error for the bad bytes ``error`` found at byte ``offset`` (line ``line``) of ``name``."""
    bad = error.object[error.start:error.end].hex(" ")
    return InputError(f"invalid UTF-8 at byte offset {offset}: byte(s) {bad} ({error.reason})", path=name, line=line,
                      fix=_UTF8_FIX)


def decode_text(data: bytes, name: str) -> str:
    """A whole text held in memory (``barley serve``'s request), decoded as :func:`text_pieces` decodes
    a file: a leading byte-order mark dropped, invalid UTF-8 an InputError naming ``name``."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise invalid_utf8(error, name, error.start, 1 + data.count(b"\n", 0, error.start)) from None


def guess_input(path: str | os.PathLike) -> str:
    """``"conllu"`` or ``"text"``: what the start of ``path`` (``-``: stdin, looked at without
    consuming it) is. CoNLL-U (or CoNLL-X) when the first line that is neither blank nor a
    ``#`` comment starts with a word ID and a tab, or when there are only comments; text
    otherwise. Input that cannot be looked at (unreadable, damaged) is left to the CoNLL-U
    reader, whose errors say what is wrong."""
    path = os.fspath(path)
    try:
        with open_bytes(path) as handle:
            if path != "-":
                sample = handle.read(SNIFF_BYTES)
            elif hasattr(handle, "peek"):
                sample = handle.peek(SNIFF_BYTES)[:SNIFF_BYTES]
            else:
                return "conllu"
    except (InputError, OSError, *_GZIP_ERRORS):
        return "conllu"
    return guess_format(sample)


def guess_format(sample: bytes) -> str:
    """``"conllu"`` or ``"text"``: what data starting with ``sample`` is (as :func:`guess_input` says)."""
    comments = False
    for line in sample.removeprefix(b"\xef\xbb\xbf").splitlines():
        if line.startswith(b"#"):
            comments = True
        elif line.strip():
            return "conllu" if _CONLLU_LINE.match(line) else "text"
    return "conllu" if comments else "text"
