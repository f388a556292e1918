"""The ASGI application of ``barley serve`` (FastAPI), in the spirit of UDPipe's REST service.

``POST /parse``
    The data and its input format, in any of three forms: a JSON object
    ``{"data": ..., "input": "auto", "model": NAME, "draw": false, "nbest": null}`` (``input``:
    ``conllu``; ``text``, ``sentences`` or ``tokenized`` with a model that has a tokenizer; ``auto``, the
    default, detects ``conllu`` or ``text`` as ``barley parse`` does, and the answer's ``input`` and
    ``input_detected`` say what was read); form fields
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
    (true, false, or null for the model's default) is ``--valid-ud`` / ``--no-valid-ud`` (docs/valid-ud.md);
    ``enhanced`` (true) is ``--enhanced``: the DEPS column holds each tree's enhanced graph (docs/enhanced.md).
``GET /models``
    The models served, the default one, and the input formats each reads.
``GET /openapi.json``
    The OpenAPI description (no interactive docs: they would fetch scripts from the network).
``GET /``
    The web page.

``HEAD`` is answered on every path as ``GET``, without the body.

Errors are JSON ``{"error": MESSAGE}``, whatever went wrong: 400 with the one-line message the
CLI gives for the same input (the data is named ``<request>`` where the CLI names the file)
or for a malformed request (a field of the wrong type, out of its bounds, unknown, or given
twice; JSON or form data that does not parse; bytes that are not UTF-8; not one Host header),
403 for a request from another site's page, 404 and 405 for a wrong path or method, 408 for a
client too slow, 413 for a request over a limit (bytes; words per sentence and per request;
characters per word and per request: the message names the option that raises it), 431 for a
header over 64 KiB, 503 for a connection over the limit. Nothing in a request is ever taken as
a path: data is read in memory and a model is named, not located. How a request's fields are
read (and bounded) is in :mod:`barley.service.request`; what protects the service below the
endpoints (timeouts, connection cap, Host and Origin checks, security headers, the body limit)
in :mod:`barley.service.guards`; the limits in :mod:`barley.service.limits`.
"""

from __future__ import annotations

import time
from typing import Any, cast

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from barley import __version__, render
from barley.confidence import Confidence
from barley.conllu import COLUMNS
from barley.errors import BarleyError
from barley.pipeline import request as parse_request  # its ParseRequest: what the pipeline is asked
from barley.render import svg
from barley.service import page
from barley.service.guards import BodyLimit, HeadAsGet, HostAndOrigin, HostCheck, SecurityHeaders
from barley.service.inputs import detected_format
from barley.service.limits import Limits, OverLimit
from barley.service.models import ModelRegistry
from barley.service.request import ParseRequest, read_request

KEYS = tuple(column.lower() for column in COLUMNS)


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
    every answer, HEAD as GET, then the Host and Origin checks, then the body limit)."""
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
            allowed = (error.headers or {}).get("Allow", "")
            if "GET" in allowed.split(", ") and "HEAD" not in allowed:  # HeadAsGet answers HEAD where GET is
                cast(dict[str, str], error.headers)["Allow"] = allowed = allowed + ", HEAD"
            message = (f"{request.method} is not allowed on {path} (it takes {allowed or 'other methods'}; "
                       f"the service answers {ENDPOINTS})")
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
    errors: dict[int | str, dict[str, Any]] = {
        status: {"model": ErrorResponse, "description": description} for status, description in [
            (400, "bad data, an unknown model or input format, a malformed request"),
            (403, "a request from the page of another site"),
            (413, "a request over a limit: bytes, words per sentence and per request, characters per word and per "
                  "request")]}

    @app.post("/parse", summary="Parse sentences", response_model=ParseResponse, responses=errors,
              openapi_extra={"requestBody": {"required": True, "content": body_forms}})
    async def parse(request: Request) -> Response:
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

    return SecurityHeaders(HeadAsGet(HostAndOrigin(BodyLimit(app, limits.max_request_bytes), hosts)))


def _answer(registry: ModelRegistry, limits: Limits, content_type: str, query: bytes, body: bytes) -> bytes:
    """The JSON answer to a parse request. The structured form is the sentences' token lines
    as lists of fields (the names given once in ``columns``): a large answer is several
    times quicker to write and to read than with one object per token."""
    fields = read_request(content_type, query, body)
    model = registry.get(fields["model"])
    detected = fields["input"] == "auto"
    input_format = detected_format(fields["data"], model.pipeline, fields["keep_arcs"]) if detected else fields["input"]
    asked = parse_request.ParseRequest(arcs=fields["arcs"], nbest=fields["nbest"], valid_ud=fields["valid_ud"],
                                       enhanced=fields["enhanced"],
                                       confidence=Confidence() if fields["confidence"] else None)
    sentences = model.parse(fields["data"], input_format, limits, asked)
    answer = {"model": model.name, "input": input_format, "input_detected": detected,
              "result": "".join(sentence.to_text() for sentence in sentences), "columns": KEYS,
              "sentences": [{"sent_id": sentence.sent_id, "comments": sentence.comments, "tokens": sentence.rows}
                            for sentence in sentences]}
    if fields["draw"]:
        # no title inside the drawing: a client shows the sentence's text and sent_id once, as it likes
        answer["svg"] = [svg.draw(render.from_sentence(sentence, title=""), fields["compact"]) for sentence in sentences]
    return orjson.dumps(answer)  # several times quicker than json on large answers
