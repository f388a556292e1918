"""A parse request's JSON body, read without trusting it (:mod:`barley.service.request` reads the others):
a scanner walks the object's top level with regular expressions (no Python loop over its bytes), reads each
name and value with orjson (strict: no NaN, no number that no double holds), and refuses a value that is an
array or an object without reading it (no field takes one); it stops at the first field refused, so that a
body of millions of members costs no more than a short one."""

from __future__ import annotations

import re

import orjson

from barley.errors import BarleyError

SPACE = re.compile(rb"[ \t\n\r]*+")
STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)  # possessive: linear, no backtracking stack
BACKSLASHES = re.compile(rb"\\*\Z")  # the backslashes at the end of a piece: before a quote, an even run ends a string
QUICK = 64
"""Quotes looked at one by one for the end of a string, and backslashes before one, before the
regular expression takes over."""
SCALAR = re.compile(rb"[-+.0-9A-Za-z]++")  # a number, true, false or null (orjson reads which, if any)
FIRST_BYTE = {ord("["): "an array", ord("{"): "an object", ord('"'): "a string", ord("t"): "true or false",
              ord("f"): "true or false", ord("n"): "null", **{byte: "a number" for byte in b"-0123456789"}}
"""What a JSON value is, by its first byte (for a value refused without being read)."""

JSON_EXAMPLE = 'send a JSON object such as {"data": "...", "input": "conllu"}'


def _json_type(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "true or false", int: "a whole number",
            float: "a number", type(None): "null"}[type(value)]


def read_json(body: bytes, fields, types: dict[str, tuple[type, ...]]) -> None:
    """The fields of a JSON body: an object whose members are fields, each value of its field's type
    (``types``: by field name, the Python types its value may take), each given to ``fields`` (its ``take``
    refuses a name before the value is read, its ``put`` keeps the value)."""
    at = _skip(body, 0)
    if body[at:at + 1] != b"{":
        what = FIRST_BYTE.get(body[at]) if at < len(body) else None
        if what is None:
            raise _not_json(body, at, "expected a JSON object")
        raise BarleyError(f"the JSON body is {what}, not an object", fix=JSON_EXAMPLE)
    at = _skip(body, at + 1)
    if body[at:at + 1] != b"}":
        while True:
            end = _string_end(body, at)
            name = _json_value(body, at, end, "a field name in double quotes")
            assert end is not None
            fields.take(name)
            at = _skip(body, end)
            if body[at:at + 1] != b":":
                raise _not_json(body, at, "expected ':' after a field name")
            at = _skip(body, at + 1)
            if body[at:at + 1] in (b"[", b"{"):
                raise _wrong_type(name, FIRST_BYTE[body[at]], types)
            if body[at:at + 1] == b'"':
                end = _string_end(body, at)
            else:
                scalar = SCALAR.match(body, at)
                end = scalar and scalar.end()
            parsed = _json_value(body, at, end, "a value")
            assert end is not None
            if not isinstance(parsed, types[name]) or isinstance(parsed, bool) and bool not in types[name]:
                raise _wrong_type(name, _json_type(parsed), types)  # (true is an int to Python, not to the request)
            fields.put(name, parsed)
            at = _skip(body, end)
            if body[at:at + 1] != b",":
                break
            at = _skip(body, at + 1)
        if body[at:at + 1] != b"}":
            raise _not_json(body, at, "expected ',' or '}' after a value")
    if _skip(body, at + 1) != len(body):
        raise _not_json(body, _skip(body, at + 1), "more after the JSON object")


def _skip(body: bytes, at: int) -> int:
    space = SPACE.match(body, at)
    assert space is not None  # the pattern matches the empty string
    return space.end()


def _string_end(body: bytes, at: int) -> int | None:
    """The end of the JSON string that opens at ``at`` (after its closing quote), or None. Its quotes
    are found one by one (a data string has few, and ``find`` is several times quicker than the
    regular expression over its escapes); where there are many, or long runs of backslashes, the
    regular expression reads the string whole."""
    if body[at:at + 1] != b'"':
        return None
    end = at + 1
    for _ in range(QUICK):
        quote = body.find(b'"', end)
        if quote == -1:
            return None
        backslashes = BACKSLASHES.search(body, max(end, quote - QUICK), quote)
        assert backslashes is not None  # the pattern matches the empty string
        escapes = quote - backslashes.start()
        if escapes == QUICK:
            break
        if escapes % 2 == 0:
            return quote + 1
        end = quote + 1
    string = STRING.match(body, at)
    return string and string.end()


def _json_value(body: bytes, at: int, end: int | None, expected: str):
    """The value of the JSON text from ``at`` to ``end`` (orjson: strict), or the error it makes."""
    if end is None:
        raise _not_json(body, at, f"expected {expected}")
    text = memoryview(body)[at:end]
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as error:
        try:
            bytes(text).decode("utf-8")
        except UnicodeDecodeError as bad:
            line, column = _place(body, at + bad.start)
            raise BarleyError(f"the request body is not valid UTF-8 ({bad.reason} at line {line}, column {column})",
                              fix="send JSON encoded as UTF-8") from None
        raise _not_json(body, at, error.msg) from None


def _place(body: bytes, at: int) -> tuple[int, int]:
    """The line and column (in bytes, from 1) of offset ``at``."""
    return body.count(b"\n", 0, at) + 1, at - body.rfind(b"\n", 0, at)


def _not_json(body: bytes, at: int, what: str) -> BarleyError:
    line, column = _place(body, at)
    return BarleyError(f"the request body is not valid JSON ({what} at line {line}, column {column})",
                       fix=JSON_EXAMPLE)


def _wrong_type(name: str, what: str, types: dict[str, tuple[type, ...]]) -> BarleyError:
    expected = " or ".join(_json_type(kind()) for kind in types[name])
    return BarleyError(f"the field {name!r} is {what}, not {expected}",
                       fix='send {"data": "...", "input": "conllu", "model": "NAME", "draw": false}')
