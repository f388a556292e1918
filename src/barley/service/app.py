"""The ASGI application of ``barley serve`` (FastAPI), in the spirit of UDPipe's REST service.

``POST /parse``
    The data and its input format, in any of three forms: a JSON object
    ``{"data": ..., "input": "conllu", "model": NAME, "draw": false, "nbest": null}`` (``input``:
    ``conllu``, the default; ``text`` or ``tokenized`` with a model that has a tokenizer); form fields
    of the same names (``application/x-www-form-urlencoded``, or
    ``multipart/form-data`` with ``data`` as a file, as ``curl -F data=@file.conllu``
    sends it); or the data itself as the body (any other content type), with
    ``input`` and ``model`` in the query string. The answer is JSON: the model, the
    CoNLL-U ``result``, the same ``sentences`` structured (comments and token
    fields, the field names in ``columns``), and with ``draw`` the
    SVG arc diagram of each sentence. With ``nbest`` K, the K best analyses of each sentence
    (``barley parse --nbest``: graph-based, biaffine, joint and transition models). ``keep_arcs``,
    ``strict_arcs`` and ``forbid`` are ``barley parse``'s ``--keep-arcs``, ``--strict-arcs`` and
    ``--forbid`` (the file's text) (docs/constraints.md); not together with ``nbest``. ``valid_ud``
    (true, false, or null for the model's default) is ``--valid-ud`` / ``--no-valid-ud`` (docs/valid-ud.md).
``GET /models``
    The models served, the default one, and the input formats each reads.
``GET /openapi.json``
    The OpenAPI description (no interactive docs: they would fetch scripts from the network).
``GET /``
    The web page.

Errors are JSON ``{"error": MESSAGE}``, whatever went wrong: 400 with the one-line message the
CLI gives for the same input (the data is named ``<request>`` where the CLI names the file)
or for a malformed request (a field of the wrong type, unknown, or given twice; JSON or form
data that does not parse; bytes that are not UTF-8), 403 for a request from another site's
page, 404 and 405 for a wrong path or method, 408 for a client too slow, 413 for a request
over a limit (bytes, words per sentence, words per request: the message names the option
that raises it), 431 for an endless header. Nothing in a request is ever taken as a path:
data is read in memory and a model is named, not located. What protects the service below
the endpoints (timeouts, Host and Origin checks, security headers, the body limit) is in
:mod:`barley.service.guards`; the limits in :mod:`barley.service.limits`.
"""

from __future__ import annotations

import time
from urllib.parse import parse_qsl

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, MultipartState, parse_options_header
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from barley import __version__, render
from barley.conllu import COLUMNS
from barley.errors import BarleyError
from barley.render import svg
from barley.service import page
from barley.service.guards import BodyLimit, HostAndOrigin, HostCheck, SecurityHeaders
from barley.service.inputs import INPUT_FORMATS
from barley.service.limits import Limits, OverLimit
from barley.service.models import ModelRegistry

KEYS = tuple(column.lower() for column in COLUMNS)
MAX_NBEST = 100
"""The most analyses a request may ask for per sentence: the answer grows with them."""


class ParseRequest(BaseModel):
    data: str = Field(description="the sentences, in the input format")
    input: str = Field("conllu", description="input format, one of: " + ", ".join(INPUT_FORMATS) + " (text and "
                       "tokenized with a model that has a tokenizer: GET /models says which formats each reads)")
    model: str | None = Field(None, description="a model name from GET /models (default: the default model)")
    draw: bool = Field(False, description="also return an SVG arc diagram of each sentence")
    nbest: int | None = Field(None, description=f"the K best analyses of each sentence (1 to {MAX_NBEST}; "
                                                "barley parse --nbest: graph-based, biaffine, joint and "
                                                "transition models)")
    keep_arcs: bool = Field(False, description="keep every HEAD (and DEPREL) of the CoNLL-U data and parse the "
                                               "other words consistently with them (barley parse --keep-arcs)")
    strict_arcs: bool = Field(False, description="with keep_arcs: refuse given arcs the parser cannot build "
                                                 "together, instead of keeping a largest subset")
    forbid: str | None = Field(None, description="arcs that must not appear, one per line: SENT_ID HEAD DEPENDENT "
                                                 "(barley parse --forbid)")
    valid_ud: bool | None = Field(None, description="keep UD's structural rules in every tree (barley parse "
                                                    "--valid-ud; null: the model's default)")


class ParsedSentence(BaseModel):
    sent_id: str | None
    comments: list[str] = Field(description="the comment lines, with their #")
    tokens: list[list[str]] = Field(description="every token line (words, multiword tokens, empty nodes) as its "
                                                "ten fields, in the order of columns")


class ParseResponse(BaseModel):
    model: str
    input: str
    result: str = Field(description="the parsed sentences as CoNLL-U")
    columns: list[str] = Field(description="the names of the ten fields of a token: " + ", ".join(KEYS))
    sentences: list[ParsedSentence]
    svg: list[str] | None = Field(None, description="with draw: one SVG element per sentence")


class ErrorResponse(BaseModel):
    error: str = Field(description="one line: where, what is wrong, how to fix it")


ENDPOINTS = "GET /, GET /models, GET /openapi.json and POST /parse"


def create_app(registry: ModelRegistry, limits: Limits = Limits(),
               hosts: HostCheck = HostCheck("127.0.0.1", 8080)):
    """The service as an ASGI application: the endpoints inside the guards (security headers on
    every answer, then the Host and Origin checks, then the body limit)."""
    app = FastAPI(title="barley", version=__version__, docs_url=None, redoc_url=None,
                  description="Dependency parsing with barley models: POST /parse, GET /models.")

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        # the path as sent (still percent-encoded: one line whatever it holds), cut short if long
        path = request.scope["raw_path"].decode("latin-1")
        path = path if len(path) <= 100 else path[:100] + "..."
        if error.status_code == 404:
            message = f"there is nothing at {path} (the service answers {ENDPOINTS})"
        elif error.status_code == 405:
            message = (f"{request.method} is not allowed on {path} (it takes "
                       f"{(error.headers or {}).get('Allow', 'other methods')}; the service answers {ENDPOINTS})")
        else:
            message = str(error.detail)
        return JSONResponse({"error": message}, status_code=error.status_code, headers=error.headers)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, error: Exception) -> JSONResponse:
        # a bug, not the client's doing: the answer is JSON like every other; the traceback goes to the log
        return JSONResponse({"error": f"internal error ({type(error).__name__}): please report it with the request"},
                            status_code=500)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def index() -> HTMLResponse:
        return HTMLResponse(page.PAGE)

    @app.get("/models", summary="The models served")
    def models() -> dict:
        return registry.describe()

    body_forms = {
        "application/json": {"schema": ParseRequest.model_json_schema()},
        "application/x-www-form-urlencoded": {"schema": ParseRequest.model_json_schema()},
        "multipart/form-data": {"schema": ParseRequest.model_json_schema()},
        "text/plain": {"schema": {"type": "string", "description": "the data; input and model in the query"}},
    }
    errors = {status: {"model": ErrorResponse, "description": description} for status, description in [
        (400, "bad data, an unknown model or input format, a malformed request"),
        (403, "a request from the page of another site"),
        (413, "a request over a limit: bytes, words per sentence, words per request")]}

    @app.post("/parse", summary="Parse sentences", response_model=ParseResponse, responses=errors,
              openapi_extra={"requestBody": {"required": True, "content": body_forms}})
    async def parse(request: Request) -> JSONResponse:
        body = await request.body()
        started = time.perf_counter()
        try:  # in a worker thread: a large body takes a while to read, and the server answers others meanwhile
            answer = await run_in_threadpool(_answer, registry, limits, request.headers.get("content-type", ""),
                                             request.scope["query_string"], body)
        except OverLimit as error:
            return JSONResponse({"error": str(error)}, status_code=413)
        except BarleyError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        # the time spent reading, parsing and writing the answer, for clients that measure the service
        timing = f"parse;dur={1000 * (time.perf_counter() - started):.1f}"
        return Response(answer, media_type="application/json", headers={"Server-Timing": timing})

    return SecurityHeaders(HostAndOrigin(BodyLimit(app, limits.max_request_bytes), hosts))


FIELDS = ("data", "input", "model", "draw", "nbest", "keep_arcs", "strict_arcs", "forbid", "valid_ud")
"""The fields of a parse request (:class:`ParseRequest`)."""

TRUE, FALSE = ("true", "1", "on", "yes"), ("false", "0", "off", "no", "")
"""How a form or query string says ``draw``, ``keep_arcs``, ``strict_arcs`` or ``valid_ud`` (a JSON body says
true or false; an empty ``valid_ud``, like null, is the model's default)."""


def _fields(content_type: str, query: bytes, body: bytes) -> dict:
    """``data`` (bytes), ``input`` (str), ``model`` (str or None) and ``draw`` (bool) of a request,
    from its query string and its body, whatever form the body takes. A field that is unknown,
    given twice or of the wrong type is an error, never ignored."""
    kind = content_type.split(";")[0].strip().lower()
    fields: dict = {}

    def add(pairs) -> None:
        for name, value in pairs:
            if name not in FIELDS:
                raise BarleyError(f"the request has a field {name!r}, which the service does not take",
                                  fix="its fields are " + ", ".join(FIELDS))
            if name in fields:
                raise BarleyError(f"the request gives the field {name!r} twice", fix="give each field once")
            fields[name] = value

    add(_urlencoded(query, "the query string"))
    if kind == "application/json":
        add(_json_fields(body).items())
    elif kind == "application/x-www-form-urlencoded":
        add(_urlencoded(body, "the form data"))
    elif kind == "multipart/form-data":
        add(_multipart_fields(body, content_type))
    else:
        add([("data", body)])
    if "data" not in fields:
        raise BarleyError("the request has no data", fix="send the sentences in the data field")
    data, nbest = fields["data"], fields.get("nbest")
    if isinstance(nbest, str):
        nbest = int(nbest) if nbest.isascii() and nbest.isdigit() else -1 if nbest else None
    if nbest is not None and not 1 <= nbest <= MAX_NBEST:
        raise BarleyError(f"the field 'nbest' is {fields['nbest']!r}", fix=f"give a whole number from 1 to {MAX_NBEST}")
    return {"data": data.encode("utf-8") if isinstance(data, str) else data, "input": fields.get("input") or "conllu",
            "model": fields.get("model"), "draw": _boolean(fields, "draw"), "nbest": nbest,
            "arcs": _arc_options(fields, _boolean(fields, "keep_arcs"), _boolean(fields, "strict_arcs")),
            "valid_ud": None if fields.get("valid_ud") in (None, "") else _boolean(fields, "valid_ud")}


def _boolean(fields: dict, name: str) -> bool:
    value = fields.get(name, False)
    if isinstance(value, str):
        if value.lower() not in TRUE + FALSE:
            raise BarleyError(f"the field {name!r} is {value!r}", fix="say true or false")
        value = value.lower() in TRUE
    return value


def _arc_options(fields: dict, keep: bool, strict: bool):
    """The given and forbidden arcs a request asks for (``keep_arcs``, ``strict_arcs``, ``forbid``), or None."""
    forbid = fields.get("forbid")
    if strict and not keep:
        raise BarleyError("strict_arcs applies to the arcs that keep_arcs keeps", fix="add keep_arcs")
    if keep and (fields.get("input") or "conllu") != "conllu":
        raise BarleyError("keep_arcs keeps the HEAD and DEPREL of CoNLL-U data", fix="send CoNLL-U (input conllu)")
    if not keep and not forbid:
        return None
    from barley.constraints import ArcOptions, ForbiddenArcs

    return ArcOptions(keep=keep, strict=strict, forbid=ForbiddenArcs(forbid, "<forbid>") if forbid else None)


JSON_TYPES = {"data": (str,), "input": (str,), "model": (str, type(None)), "draw": (bool,), "nbest": (int, type(None)),
              "keep_arcs": (bool,), "strict_arcs": (bool,), "forbid": (str, type(None)),
              "valid_ud": (bool, type(None))}
"""The JSON types each field may take."""


def _json_type(value) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "true or false", int: "a number",
            float: "a number", type(None): "null"}[type(value)]


def _json_fields(body: bytes) -> dict:
    """The fields of a JSON body, each of its type. orjson bounds the depth (1,024 levels) and refuses
    a number it cannot hold, so no body makes the parser recurse or compute without bound."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as bad:
            raise BarleyError(f"the request body is not valid UTF-8 ({bad.reason} at byte {bad.start})",
                              fix="send JSON encoded as UTF-8") from None
        raise BarleyError(f"the request body is not valid JSON ({error.msg} at line {error.lineno}, "
                          f"column {error.colno})", fix='send a JSON object such as {"data": "...", "input": "conllu"}'
                          ) from None
    if not isinstance(value, dict):
        raise BarleyError(f"the JSON body is {_json_type(value)}, not an object",
                          fix='send {"data": "...", "input": "conllu"}')
    for name, field in value.items():
        if name in JSON_TYPES and (not isinstance(field, JSON_TYPES[name])  # and true is no number, though an int
                                   or isinstance(field, bool) and bool not in JSON_TYPES[name]):
            expected = " or ".join(_json_type(kind()) for kind in JSON_TYPES[name])
            raise BarleyError(f"the field {name!r} is {_json_type(field)}, not {expected}",
                              fix='send {"data": "...", "input": "conllu", "model": "NAME", "draw": false}')
    return value


def _urlencoded(raw: bytes, what: str) -> list[tuple[str, str]]:
    try:
        return parse_qsl(raw.decode("ascii"), keep_blank_values=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise BarleyError(f"{what} is not valid UTF-8 (percent-encoded)", fix="encode it as UTF-8") from None


def _multipart_fields(body: bytes, content_type: str) -> list[tuple[str, bytes | str]]:
    """The fields of a ``multipart/form-data`` body (RFC 7578): ``data`` as bytes (a file or a field:
    its bytes are checked as the CoNLL-U reader checks a file's), the others as UTF-8 text."""
    boundary = parse_options_header(content_type)[1].get(b"boundary")
    if not boundary:
        raise BarleyError("the multipart form data has no boundary in its Content-Type",
                          fix="send multipart/form-data; boundary=..., as curl -F does")
    parts: list[dict] = []

    def on_part_begin() -> None:
        parts.append({"headers": [], "data": bytearray()})

    def on_header_field(data: bytes, start: int, end: int) -> None:
        parts[-1]["headers"].append([data[start:end], b""])

    def on_header_value(data: bytes, start: int, end: int) -> None:
        parts[-1]["headers"][-1][1] += data[start:end]

    def on_part_data(data: bytes, start: int, end: int) -> None:
        parts[-1]["data"] += data[start:end]

    try:
        parser = MultipartParser(boundary, {"on_part_begin": on_part_begin, "on_header_field": on_header_field,
                                            "on_header_value": on_header_value, "on_part_data": on_part_data})
        parser.write(body)
    except FormParserError as error:
        raise BarleyError(f"the multipart form data is malformed ({error})",
                          fix="send multipart/form-data as curl -F data=@FILE does") from None
    if parser.state != MultipartState.END:
        raise BarleyError("the multipart form data ends before its closing boundary",
                          fix="send the whole form, as curl -F data=@FILE does")
    fields = []
    for part in parts:
        disposition = next((value for name, value in part["headers"] if name.lower() == b"content-disposition"), b"")
        name = parse_options_header(disposition)[1].get(b"name")
        if name is None:
            raise BarleyError("a part of the multipart form data has no name", fix='give each part a name="..."')
        name = _utf8(name, "a field name of the multipart form data")
        data = bytes(part["data"])
        fields.append((name, data if name == "data" else _utf8(data, f"the field {name!r}")))
    return fields


def _utf8(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BarleyError(f"{what} is not valid UTF-8 ({error.reason} at byte {error.start})",
                          fix="send it encoded as UTF-8") from None


def _answer(registry: ModelRegistry, limits: Limits, content_type: str, query: bytes, body: bytes) -> bytes:
    """The JSON answer to a parse request. The structured form is the sentences' token lines
    as lists of fields (the names given once in ``columns``): a large answer is several
    times quicker to write and to read than with one object per token."""
    fields = _fields(content_type, query, body)
    model = registry.get(fields["model"])
    sentences = model.parse(fields["data"], fields["input"], limits, fields["arcs"], fields["nbest"],
                            fields["valid_ud"])
    answer = {"model": model.name, "input": fields["input"],
              "result": "".join(sentence.to_text() for sentence in sentences), "columns": KEYS,
              "sentences": [{"sent_id": sentence.sent_id, "comments": sentence.comments, "tokens": sentence.rows}
                            for sentence in sentences]}
    if fields["draw"]:
        answer["svg"] = [svg.draw(render.from_sentence(sentence)) for sentence in sentences]
    return orjson.dumps(answer)  # several times quicker than json on large answers
