"""A parse request: its fields, declared once (:class:`ParseRequest`), and how they are read from the
query string and the body, whatever form the body takes.

Every reader applies the declaration's rules: a field the request does not take, or one given twice
(in the query string and the body, or twice in the body: a JSON object's duplicate key included),
is refused, never ignored or overwritten; each value is of its field's type and within its bounds;
an empty form value, like a field not given, is the field's default. And every reader is bounded
whatever the body holds (at most ``--max-request-bytes``): it stops at the first field it refuses,
so that a body of millions of fields, parts or nested values costs no more than a short one:

- JSON: an object of the known fields, each a string, a number, true, false or null, scanned
  without trusting it (:mod:`barley.service.json_body`);
- a form (``application/x-www-form-urlencoded``) and the query string: split at ``&`` as the fields
  come, each name checked before its value is decoded;
- multipart form data (RFC 7578): python-multipart's parser, each part's name checked as soon as
  its headers end.
"""

from __future__ import annotations

import re
import typing

import numpy as np
from pydantic import BaseModel, Field
from pydantic_core import PydanticUndefined
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, MultipartState, parse_options_header

from barley.errors import BarleyError
from barley.service.inputs import INPUT_FORMATS
from barley.service.json_body import read_json

MAX_NBEST = 100
"""The most analyses a request may ask for per sentence: the answer grows with them."""

MAX_NAME_CHARS = 200
"""The longest input format or model name a request may give (a name is echoed in errors)."""


class ParseRequest(BaseModel):
    """The fields of ``POST /parse``: the one declaration that the OpenAPI description and every
    reader of a request (JSON, form, multipart, query string) follow."""

    data: str = Field(description="the sentences, in the input format")
    input: str = Field("auto", max_length=MAX_NAME_CHARS,
                       description="input format, one of: " + ", ".join(INPUT_FORMATS) + " (text, sentences and "
                                   "tokenized with a model that has a tokenizer: GET /models says which formats each "
                                   "reads), or auto (the default): conllu if the first line that is not a comment "
                                   "starts with a word ID and a tab, else text, as barley parse decides; the answer's "
                                   "input says which")
    model: str | None = Field(None, max_length=MAX_NAME_CHARS,
                              description="a model name from GET /models (default: the default model)")
    draw: bool = Field(False, description="also return an SVG arc diagram of each sentence")
    compact: bool = Field(False, description="with draw: compact diagrams (lower arcs, narrower gaps, no lemmas; "
                                             "barley show --compact)")
    nbest: int | None = Field(None, ge=1, le=MAX_NBEST,
                              description=f"the K best analyses of each sentence (1 to {MAX_NBEST}; barley parse "
                                          "--nbest: graph-based, biaffine, joint and transition models)")
    keep_arcs: bool = Field(False, description="keep every HEAD (and DEPREL) of the CoNLL-U data and parse the "
                                               "other words consistently with them (barley parse --keep-arcs)")
    strict_arcs: bool = Field(False, description="with keep_arcs: refuse given arcs the parser cannot build "
                                                 "together, instead of keeping a largest subset")
    forbid: str | None = Field(None, description="arcs that must not appear, one per line: SENT_ID HEAD DEPENDENT "
                                                 "(barley parse --forbid)")
    valid_ud: bool | None = Field(None, description="keep UD's structural rules in every tree (barley parse "
                                                    "--valid-ud; null: the model's default)")
    enhanced: bool = Field(False, description="fill DEPS with each tree's enhanced UD graph (barley parse "
                                              "--enhanced: the model's enhancer, else barley's rules)")
    confidence: bool = Field(False, description="write each word's head and label probabilities in MISC and each "
                                                "sentence's score (barley parse --confidence); a drawing shades "
                                                "the words whose heads are unsure")


FIELDS = ParseRequest.model_fields
"""Each field of a parse request by name: its type, its default, its bounds."""

TYPES = {name: typing.get_args(field.annotation) or (field.annotation,) for name, field in FIELDS.items()}
"""The Python types each field's value may take (``str | None``: str and NoneType)."""

TRUE, FALSE = ("true", "1", "on", "yes"), ("false", "0", "off", "no")
"""How a form or query string says true or false (a JSON body says true or false)."""


def read_request(content_type: str, query: bytes, body: bytes) -> dict:
    """Every field of a request (its default where not given), from its query string and its body,
    ``data`` as bytes; and ``arcs``, the given and forbidden arcs that ``keep_arcs``, ``strict_arcs``
    and ``forbid`` ask for (:class:`barley.constraints.ArcOptions` or None). A field that is unknown,
    given twice, of the wrong type or out of its bounds is a BarleyError, never ignored."""
    kind = content_type.split(";")[0].strip().lower()
    fields = _Fields()
    _read_form(query, "the query string", fields)
    if kind == "application/json":
        read_json(body, fields, TYPES)
    elif kind == "application/x-www-form-urlencoded":
        _read_form(body, "the form data", fields)
    elif kind == "multipart/form-data":
        _read_multipart(body, content_type, fields)
    else:
        fields.take("data")
        fields.put("data", body)
    if "data" not in fields:
        raise BarleyError("the request has no data", fix="send the sentences in the data field")
    request = {name: fields.get(name, FIELDS[name].default) for name in FIELDS}
    if isinstance(request["data"], str):
        request["data"] = request["data"].encode("utf-8")
    request["arcs"] = _arc_options(request)
    return request


class _Fields(dict):
    """The fields of one request, as the readers find them."""

    def take(self, name: str) -> None:
        """Refuse a field the request does not take, or one given already: before its value is read."""
        if name not in FIELDS:
            raise BarleyError(f"the request has a field {_shown(name)}, which the service does not take",
                              fix="its fields are " + ", ".join(FIELDS))
        if name in self:
            raise BarleyError(f"the request gives the field {name!r} twice", fix="give each field once")

    def put(self, name: str, value) -> None:
        """Set the value of a field taken, within its bounds; an empty string is the field's default."""
        field = FIELDS[name]
        if value == "" and field.default is not PydanticUndefined:
            value = field.default
        longest, least, most = _bound(name, "max_length"), _bound(name, "ge"), _bound(name, "le")
        if isinstance(value, str) and longest is not None and len(value) > longest:
            raise BarleyError(f"the field {name!r} has {len(value)} characters", fix=f"give at most {longest}")
        if type(value) is int and (least is not None and value < least or most is not None and value > most):
            raise BarleyError(f"the field {name!r} is {value}", fix=_whole_number(name))
        self[name] = value


def _bound(name: str, bound: str):
    """A bound of a field's declaration (``max_length``, ``ge``, ``le``), or None."""
    return next((getattr(item, bound) for item in FIELDS[name].metadata if hasattr(item, bound)), None)


def _whole_number(name: str) -> str:
    least, most = _bound(name, "ge"), _bound(name, "le")
    return "give a whole number" + (f" from {least} to {most}" if least is not None and most is not None else "")


def _shown(value: str) -> str:
    """``value`` as an error shows it: quoted, cut short when long (a field may hold megabytes)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:56] + "...'"


def _from_text(name: str, text: str):
    """The value a form or query string gives as ``text``, of the field's type."""
    types = TYPES[name]
    if str in types or text == "":
        return text
    if bool in types:
        if text.lower() not in TRUE + FALSE:
            raise BarleyError(f"the field {name!r} is {_shown(text)}", fix="say true or false")
        return text.lower() in TRUE
    # a whole number: thousands of digits are out of range before Python would refuse to read them
    if not (text.isascii() and text.isdigit()) or len(text.lstrip("0")) > 18:
        raise BarleyError(f"the field {name!r} is {_shown(text)}", fix=_whole_number(name))
    return int(text)


def _arc_options(fields: dict):
    """The given and forbidden arcs a request asks for (``keep_arcs``, ``strict_arcs``, ``forbid``), or None."""
    keep, strict, forbid = fields["keep_arcs"], fields["strict_arcs"], fields["forbid"]
    if strict and not keep:
        raise BarleyError("strict_arcs applies to the arcs that keep_arcs keeps", fix="add keep_arcs")
    if keep and fields["input"] not in ("conllu", "auto"):
        raise BarleyError("keep_arcs keeps the HEAD and DEPREL of CoNLL-U data", fix="send CoNLL-U (input conllu)")
    if not keep and not forbid:
        return None
    from barley.constraints import ArcOptions, ForbiddenArcs

    return ArcOptions(keep=keep, strict=strict, forbid=ForbiddenArcs(forbid, "<forbid>") if forbid else None)


def _utf8(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BarleyError(f"{what} is not valid UTF-8 ({error.reason} at byte {error.start})",
                          fix="send it encoded as UTF-8") from None


# --- forms and the query string -----------------------------------------------------------------

PIECE = re.compile(rb"[^&]++")
HEX = np.full(256, 255, np.uint8)
HEX[np.frombuffer(b"0123456789abcdefABCDEF", np.uint8)] = [*range(16), *range(10, 16)]
"""The value of each hexadecimal digit by its byte; 255 for other bytes."""
DECODED_AT_ONCE = 1 << 20
"""Bytes of a form value percent-decoded at a time (the arrays of one piece stay a few megabytes)."""


def _read_form(raw: bytes, what: str, fields: _Fields) -> None:
    """The fields of a form or query string (``application/x-www-form-urlencoded``, WHATWG URL §5.1:
    ``name=value`` pieces between ``&``, empty ones skipped, percent-decoded, ``+`` a space). ``data``
    stays bytes (the reader of its format checks them); the others are UTF-8 text."""
    for piece in PIECE.finditer(raw):
        raw_name, _, value = piece.group().partition(b"=")
        name = _utf8(_percent_decoded(raw_name), f"a field name of {what}")
        fields.take(name)
        value = _percent_decoded(value)
        fields.put(name, value if name == "data" else _from_text(name, _utf8(value, f"the field {name!r} in {what}")))


def _percent_decoded(raw: bytes) -> bytes:
    """``raw`` with each ``+`` a space and each ``%XX`` the byte XX (a ``%`` without two hexadecimal
    digits after it stays itself). Vectorised with numpy, a megabyte at a time: a field may hold
    millions of escapes, and urllib's ``unquote_to_bytes`` loops over them in Python (8 s and 900 MB
    for 16 MB of CoNLL-U)."""
    if b"%" not in raw:
        return raw.replace(b"+", b" ")
    pieces, start = [], 0
    while start < len(raw):
        end = min(start + DECODED_AT_ONCE, len(raw))
        cut = raw.rfind(b"%", end - 2, end)
        if end < len(raw) and cut != -1:
            end = cut  # an escape is never split between two pieces
        pieces.append(_decode_escapes(np.frombuffer(raw, np.uint8, end - start, start)))
        start = end
    return b"".join(pieces)


def _decode_escapes(codes: np.ndarray) -> bytes:
    digits = HEX[codes]
    escapes = np.flatnonzero((codes[:-2] == ord("%")) & (digits[1:-1] != 255) & (digits[2:] != 255))
    decoded = codes.copy()
    decoded[codes == ord("+")] = ord(" ")
    decoded[escapes] = digits[escapes + 1] * 16 + digits[escapes + 2]
    kept = np.ones(len(codes), bool)
    kept[escapes + 1] = kept[escapes + 2] = False
    return decoded[kept].tobytes()


# --- multipart ----------------------------------------------------------------------------------


def _read_multipart(body: bytes, content_type: str, fields: _Fields) -> None:
    """The fields of a ``multipart/form-data`` body (RFC 7578): ``data`` as bytes (a file or a field:
    its bytes are checked as the CoNLL-U reader checks a file's), the others as UTF-8 text. Each
    part's name is checked when its headers end (python-multipart bounds their number and size)."""
    boundary = parse_options_header(content_type)[1].get(b"boundary")
    if not boundary:
        raise BarleyError("the multipart form data has no boundary in its Content-Type",
                          fix="send multipart/form-data; boundary=..., as curl -F does")
    part: dict[str, typing.Any] = {"header": bytearray(), "disposition": bytearray(), "name": None, "data": bytearray()}

    def on_part_begin() -> None:
        part.update(header=bytearray(), disposition=bytearray(), name=None, data=bytearray())

    def on_header_field(data: bytes, start: int, end: int) -> None:
        part["header"] += data[start:end]

    def on_header_value(data: bytes, start: int, end: int) -> None:
        if part["header"].lower() == b"content-disposition":
            part["disposition"] += data[start:end]

    def on_header_end() -> None:
        part["header"] = bytearray()

    def on_headers_finished() -> None:
        name = parse_options_header(bytes(part["disposition"]))[1].get(b"name")
        if name is None:
            raise BarleyError("a part of the multipart form data has no name", fix='give each part a name="..."')
        part["name"] = _utf8(name, "a field name of the multipart form data")
        fields.take(part["name"])

    def on_part_data(data: bytes, start: int, end: int) -> None:
        part["data"] += data[start:end]

    def on_part_end() -> None:
        name, value = part["name"], bytes(part["data"])
        fields.put(name, value if name == "data" else _from_text(
            name, _utf8(value, f"the field {name!r} in the multipart form data")))

    try:
        parser = MultipartParser(boundary, {
            "on_part_begin": on_part_begin, "on_header_field": on_header_field, "on_header_value": on_header_value,
            "on_header_end": on_header_end, "on_headers_finished": on_headers_finished,
            "on_part_data": on_part_data, "on_part_end": on_part_end})
        parser.write(body)
    except FormParserError as error:
        raise BarleyError(f"the multipart form data is malformed ({error})",
                          fix="send multipart/form-data as curl -F data=@FILE does") from None
    if parser.state != MultipartState.END:
        raise BarleyError("the multipart form data ends before its closing boundary",
                          fix="send the whole form, as curl -F data=@FILE does")
