"""Raw text in, a piece at a time: UTF-8 decoded with the byte offset of any bad byte.

:func:`text_pieces` yields the decoded text of a file (``-`` is stdin) in pieces of
about :data:`CHUNK_BYTES`, each ending at a line end (or wherever a pipe has
stopped delivering), so memory holds one piece and what the tokenizer has not
finished. Invalid UTF-8 raises an :class:`~barley.errors.InputError` with the
byte offset and line of the first bad byte. A UTF-8 byte-order mark at the start
is dropped (it is not text); nothing else is: CR, tabs, no-break spaces and
control characters all reach the tokenizer.
"""

from __future__ import annotations

import codecs
import os
from collections.abc import Iterator

from barley.conllu import _UTF8_FIX, open_bytes
from barley.errors import InputError

CHUNK_BYTES = 1 << 16


def text_pieces(path: str | os.PathLike, chunk_bytes: int = CHUNK_BYTES) -> Iterator[str]:
    """Decoded pieces of the text of ``path`` (see the module docstring)."""
    path = os.fspath(path)
    name = "<stdin>" if path == "-" else path
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0  # bytes read before the current chunk
    lines = 1  # line number at the start of the current chunk
    first = True
    with open_bytes(path) as handle:
        read_some = handle.read1 if path == "-" else handle.read
        while True:
            data = read_some(chunk_bytes)
            if data and path != "-" and not data.endswith(b"\n"):
                data += handle.readline()
            final = not data
            held = decoder.getstate()[0]  # the bytes of a character the last chunk left unfinished
            try:
                text = decoder.decode(data, final=final)
            except UnicodeDecodeError as error:
                start = offset - len(held) + error.start  # error.start counts from the held bytes
                bad = error.object[error.start:error.end].hex(" ")
                line = lines + (held + data).count(b"\n", 0, error.start)
                raise InputError(f"invalid UTF-8 at byte offset {start}: byte(s) {bad} ({error.reason})",
                                 path=name, line=line, fix=_UTF8_FIX) from None
            offset += len(data)
            lines += data.count(b"\n")
            if first and text:
                text = text.removeprefix("\ufeff")
                first = False
            if text:
                yield text
            if final:
                return
