"""The whitespace around tokens, kept in MISC so that the text rebuilds exactly.

A tokenizer's output records what separated every token from the next, with UD's
``SpaceAfter=No`` and UDPipe's ``SpacesBefore`` / ``SpacesAfter`` conventions:

* nothing in MISC: one space follows the token;
* ``SpaceAfter=No``: nothing follows it;
* ``SpacesAfter=\\n\\n``: any other whitespace, escaped (``\\s`` space, ``\\t`` tab,
  ``\\n`` line feed, ``\\r`` carriage return, ``\\uXXXX`` any other whitespace such
  as a no-break space U+00A0);
* ``SpacesBefore=...``: whitespace before the first token of the input (or of a
  block of a stream that began with whitespace), escaped the same way.

:func:`text_of` joins the tokens of sentences back into the input text, character
for character. Only the ``# text`` comment normalises whitespace: there every run of
whitespace is one space, and the sentence has none at its ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from barley.conllu import FORM, ID, MISC, Sentence

_ESCAPES = {" ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {"s": " ", "t": "\t", "n": "\n", "r": "\r"}
_ESCAPED = re.compile(r"\\(u[0-9A-Fa-f]{4}|.)")


def escape(whitespace: str) -> str:
    """Whitespace as MISC holds it (every whitespace character is in the Basic Multilingual Plane)."""
    return "".join(_ESCAPES.get(c, f"\\u{ord(c):04X}") for c in whitespace)


def unescape(value: str) -> str:
    return _ESCAPED.sub(lambda m: chr(int(m[1][1:], 16)) if len(m[1]) == 5 else _UNESCAPES.get(m[1], m[1]),
                        value)


def misc(after: str, before: str = "") -> str:
    """The MISC value of a token followed by ``after`` (and preceded by ``before``)."""
    if after == " " and not before:
        return "_"
    parts = []
    if before:
        parts.append("SpacesBefore=" + escape(before))
    if after == "":
        parts.append("SpaceAfter=No")
    elif after != " ":
        parts.append("SpacesAfter=" + escape(after))
    return "|".join(parts) or "_"


def around(misc_value: str) -> tuple[str, str]:
    """``(before, after)``: the whitespace a token's MISC records before and after it."""
    before, after = "", " "
    for item in misc_value.split("|"):
        key, _, value = item.partition("=")
        if key == "SpaceAfter" and value == "No":
            after = ""
        elif key == "SpacesAfter":
            after = unescape(value)
        elif key == "SpacesBefore":
            before = unescape(value)
    return before, after


def token_rows(sentence: Sentence) -> list[list[str]]:
    """The rows of the sentence's tokens: multiword ranges, and words outside any range."""
    rows = []
    covered = 0
    for row in sentence.rows:
        first, dash, last = row[ID].partition("-")
        if "." in row[ID]:
            continue
        if dash:
            covered = int(last)
            rows.append(row)
        elif int(row[ID]) > covered:
            rows.append(row)
    return rows


def text_of(sentences: Iterable[Sentence]) -> str:
    """The text the sentences were tokenized from, rebuilt from FORM and MISC."""
    parts = []
    for sentence in sentences:
        for row in token_rows(sentence):
            before, after = around(row[MISC])
            parts.append(before)
            parts.append(row[FORM])
            parts.append(after)
    return "".join(parts)


def normalised(text: str) -> str:
    """``text`` as the ``# text`` comment holds it: whitespace runs as one space, none at the ends."""
    return " ".join(text.split())
