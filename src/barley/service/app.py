"""The ASGI application of ``barley serve`` (FastAPI), in the spirit of UDPipe's REST service.

``POST /parse``
    The data and its input format, in any of three forms: a JSON object
    ``{"data": ..., "input": "conllu", "model": NAME, "draw": false}``; form fields
    of the same names (``application/x-www-form-urlencoded``, or
    ``multipart/form-data`` with ``data`` as a file, as ``curl -F data=@file.conllu``
    sends it); or the data itself as the body (any other content type), with
    ``input`` and ``model`` in the query string. The answer is JSON: the model, the
    CoNLL-U ``result``, the same ``sentences`` structured (comments and token
    fields, the field names in ``columns``), and with ``draw`` the
    SVG arc diagram of each sentence.
``GET /models``
    The models served and the default one.
``GET /openapi.json``
    The OpenAPI description (no interactive docs: they would fetch scripts from the network).
``GET /``
    The web page.

Errors are JSON ``{"error": MESSAGE}``: 400 with the one-line message the CLI
gives for the same input (the data is named ``<request>`` where the CLI names the
file), 413 for a request over the size limit. Nothing in a request is ever taken
as a path: data is read in memory and a model is named, not located.
"""

from __future__ import annotations

import json
import time
from urllib.parse import parse_qsl

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from barley import __version__, render
from barley.conllu import COLUMNS
from barley.errors import BarleyError
from barley.render import svg
from barley.service import page
from barley.service.inputs import INPUT_FORMATS, read_input
from barley.service.models import ModelRegistry

MAX_REQUEST_BYTES = 16 * 1024 * 1024
KEYS = tuple(column.lower() for column in COLUMNS)


class ParseRequest(BaseModel):
    data: str = Field(description="the sentences, in the input format")
    input: str = Field("conllu", description="input format; one of: " + ", ".join(INPUT_FORMATS))
    model: str | None = Field(None, description="a model name from GET /models (default: the default model)")
    draw: bool = Field(False, description="also return an SVG arc diagram of each sentence")


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


def create_app(registry: ModelRegistry, max_request_bytes: int = MAX_REQUEST_BYTES) -> FastAPI:
    app = FastAPI(title="barley", version=__version__, docs_url=None, redoc_url=None,
                  description="Dependency parsing with barley models: POST /parse, GET /models.")

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

    @app.post("/parse", summary="Parse sentences", response_model=ParseResponse,
              responses={400: {"model": ErrorResponse}, 413: {"model": ErrorResponse}},
              openapi_extra={"requestBody": {"required": True, "content": body_forms}})
    async def parse(request: Request) -> JSONResponse:
        try:
            fields = await _fields(request)
            model = registry.get(fields.get("model"))
            started = time.perf_counter()
            answer = await run_in_threadpool(_parse, model, fields)
        except BarleyError as error:
            return JSONResponse({"error": str(error)}, status_code=400)
        # the time spent reading, parsing and writing the answer, for clients that measure the service
        timing = f"parse;dur={1000 * (time.perf_counter() - started):.1f}"
        return Response(answer, media_type="application/json", headers={"Server-Timing": timing})

    return BodyLimit(app, max_request_bytes)


async def _fields(request: Request) -> dict:
    """``data`` (bytes), ``input``, ``model`` and ``draw`` of a request, whatever form it came in."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    fields: dict = dict(request.query_params)
    if kind == "application/json":
        fields.update(_json_fields(await request.body()))
    elif kind == "application/x-www-form-urlencoded":
        body = await request.body()
        try:
            fields.update(parse_qsl(body.decode("ascii"), keep_blank_values=True, encoding="utf-8",
                                    errors="strict"))
        except UnicodeDecodeError:
            raise BarleyError("the form data is not valid UTF-8", fix="send the data encoded as UTF-8") from None
    elif kind == "multipart/form-data":
        form = await request.form()
        for key, value in form.multi_items():
            fields[key] = await value.read() if isinstance(value, UploadFile) else value
    else:
        fields["data"] = await request.body()
    if "data" not in fields:
        raise BarleyError("the request has no data", fix="send the sentences in the data field")
    data = fields["data"]
    if isinstance(data, str):
        try:
            fields["data"] = data.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate escaped in JSON
            raise BarleyError("the data is not valid Unicode (a lone surrogate)",
                              fix="send the data encoded as UTF-8") from None
    fields["draw"] = fields.get("draw") in (True, "true", "1", "on", "yes")
    fields["input"] = fields.get("input") or "conllu"
    return fields


def _json_fields(body: bytes) -> dict:
    try:
        value = json.loads(body)
    except UnicodeDecodeError as error:
        raise BarleyError(f"the request body is not valid UTF-8 ({error.reason} at byte {error.start})",
                          fix="send JSON encoded as UTF-8") from None
    except json.JSONDecodeError as error:
        raise BarleyError(f"the request body is not valid JSON ({error.msg} at line {error.lineno}, "
                          f"column {error.colno})", fix='send a JSON object such as {"data": "...", "input": "conllu"}'
                          ) from None
    if not isinstance(value, dict) or not isinstance(value.get("data"), str):
        raise BarleyError("the JSON body needs a string field data", fix='send {"data": "...", "input": "conllu"}')
    return value


def _parse(model, fields: dict) -> bytes:
    """The JSON answer to a parse request. The structured form is the sentences' token lines
    as lists of fields (the names given once in ``columns``): a large answer is several
    times quicker to write and to read than with one object per token."""
    sentences = model.parse(read_input(fields["data"], fields["input"]))
    answer = {"model": model.name, "input": fields["input"],
              "result": "".join(sentence.to_text() for sentence in sentences), "columns": KEYS,
              "sentences": [{"sent_id": sentence.sent_id, "comments": sentence.comments, "tokens": sentence.rows}
                            for sentence in sentences]}
    if fields["draw"]:
        answer["svg"] = [svg.draw(render.from_sentence(sentence)) for sentence in sentences]
    return orjson.dumps(answer)  # several times quicker than json on large answers


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413 and a message, whether its
    Content-Length says so up front or it comes in chunks. The body is read here (the
    endpoint reads it whole anyway) and handed on only when it is within the limit."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await self._refuse(scope, send)
            return
        messages, received = [], 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            received += len(message.get("body", b""))
            if received > self.limit:
                await self._refuse(scope, send)
                return
            if not message.get("more_body"):
                break

        async def replay():
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope, send) -> None:
        message = (f"the request is larger than the limit of {self.limit} bytes (send the sentences in several "
                   f"requests, or start barley serve with a larger --max-request-bytes)")
        await JSONResponse({"error": message}, status_code=413)(scope, _no_body, send)


async def _no_body():
    return {"type": "http.disconnect"}
