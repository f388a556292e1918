"""What stands between ``barley serve`` and its clients, below the endpoints.

- :class:`ReadTimeoutProtocol`: uvicorn's HTTP/1.1 protocol with the read timeouts, the header
  limit, the connection cap and the Host rules of RFC 9112 that it lacks, and the service's JSON
  errors for requests that are not HTTP;
- :class:`SecurityHeaders`, :class:`HeadAsGet`, :class:`HostAndOrigin` and :class:`BodyLimit`:
  ASGI middleware, in the order a request meets them.

Why uvicorn, wrapped: it is the ASGI server of FastAPI's own documentation and the most used
one, and it is already barley's dependency. Its gaps here: time (it closes an idle kept-alive
connection after 5 s, but waits for ever for the rest of a half-sent request header or body,
so a client that sends a few bytes and stops, or one byte now and then, holds a connection and
its memory as long as it likes); a header that arrives whole in one read is never measured; a
request with two Host headers or an absolute-form target is served as the last Host says. Its
``limit_concurrency`` answers a connection over the limit in plain text, without the security
headers, and only once its request header is in; ``h11_max_incomplete_event_size`` is for its
other HTTP implementation (h11). Another server would be a second dependency for these; a
subclass of uvicorn's protocol adds them through httptools' parser callbacks
(``on_message_begin``, ``on_headers_complete``, ``on_body``, ``on_message_complete``), which
uvicorn implements under httptools' names, and each override calls uvicorn's own.
"""

from __future__ import annotations

import http
import ipaddress
from collections.abc import Iterable

import httptools
import orjson
from starlette.responses import JSONResponse
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from barley.service.limits import Limits
from barley.service.page import CONTENT_SECURITY_POLICY

SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),  # a JSON answer is never read as a script or a page
    (b"x-frame-options", b"DENY"),  # the page is never framed (clickjacking); frame-ancestors for newer browsers
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode("ascii")),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),  # no other site embeds an answer (<script src=...>)
]
"""The headers of every answer, the page's and the API's, errors included."""

HEADER, BODY = "header", "body"
"""What a connection waits for from its client (:class:`ReadTimeoutProtocol`)."""


def json_answer(status: int, message: str) -> bytes:
    """A whole HTTP/1.1 answer ``{"error": message}`` that closes the connection, for the protocol
    to write where no ASGI answer can be sent (the request is not HTTP, or not complete)."""
    body = orjson.dumps({"error": message})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode("ascii")),
               (b"connection", b"close"), *SECURITY_HEADERS]
    status_line = f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}\r\n".encode("ascii")
    return status_line + b"".join(name + b": " + value + b"\r\n" for name, value in headers) + b"\r\n" + body


class ReadTimeoutProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol (httptools) with what it lacks against slow, broken or hostile clients:

    - a connection beyond ``limits.max_connections`` open at once gets 503 and is closed;
    - a request's line and header must arrive whole within ``limits.read_timeout`` seconds of
      the connection's opening or of the previous answer, else 408 (a connection on which
      nothing was sent is closed without an answer); and be at most ``limits.max_header_bytes``
      long, else 431 (measured as it arrives, and again once whole: one read may bring it all);
    - a body may pause at most ``limits.read_timeout`` seconds between two pieces, and must
      arrive whole within ``limits.body_timeout`` seconds of the header, else 408;
    - the Host rules of RFC 9112 §3.2: an HTTP/1.1 request without a Host header, or any request
      with more than one, gets 400; an absolute-form target (``GET http://host/path``) stands
      for its path, with its authority as the Host (§3.2.2: the Host header is then ignored);
    - a request that is not HTTP gets the service's JSON error, 400;
    - a client that closes its connection during the body gets one log line (the endpoints
      never see the request).

    Each server gets its subclass, with its limits: :func:`protocol_with`.
    """

    limits = Limits()

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self.read_timer = self.body_timer = None
        self.waiting_for: str | None = None
        self.in_request = False  # a request begun and not yet received whole
        self.header_bytes = self.body_bytes = 0
        self.draining = False  # answered and half-closed: what comes is dropped, and parsed no further
        self._wait_for(HEADER)
        if len(self.connections) > self.limits.max_connections:
            self._log(f"a connection over the limit of {self.limits.max_connections}: answered 503")
            self._answer_and_close(503, f"the service has {self.limits.max_connections} connections open, its "
                                        "limit (barley serve --max-connections): try again shortly")

    def _wait_for(self, part: str | None) -> None:
        """Start waiting for ``part`` of a request from the client (at most ``read_timeout`` seconds), or stop."""
        if self.read_timer is not None:
            self.read_timer.cancel()
        self.waiting_for, self.read_timer = part, None
        if part is HEADER:
            self.header_bytes = 0
        if part is not None:
            self.read_timer = self.loop.call_later(self.limits.read_timeout, self._timed_out)

    def data_received(self, data: bytes) -> None:
        if self.draining:
            return
        if self.waiting_for is HEADER:
            self.header_bytes += len(data)
        super().data_received(data)
        if (self.waiting_for is HEADER and self.header_bytes > self.limits.max_header_bytes
                and not self.transport.is_closing() and not self.draining):
            self._log(f"a request header of more than {self.limits.max_header_bytes} bytes: answered 431")
            self._answer_and_close(431, f"the request line and header are longer than {self.limits.max_header_bytes}"
                                        " bytes, the limit")

    # After an answer from here (draining), the rest of what one read brought is not a request: the
    # parser still calls back for it, and uvicorn is not told.

    def on_message_begin(self) -> None:
        if self.draining:
            return
        super().on_message_begin()
        self.in_request, self.body_bytes = True, 0
        if self.waiting_for is None:  # a pipelined request, behind one being answered
            self._wait_for(HEADER)

    def on_headers_complete(self) -> None:
        if self.draining:
            return
        refusal = self._refusal()
        if refusal is not None:
            status, message = refusal
            self._log(f"{message}: answered {status}")
            self._answer_and_close(status, message)
            return
        super().on_headers_complete()
        self._wait_for(BODY)
        self.body_timer = self.loop.call_later(self.limits.body_timeout, self._body_timed_out)

    def _refusal(self) -> tuple[int, str] | None:
        """The status and message of a request whose header breaks a rule (the header is whole), or None.
        An absolute-form target becomes its path, and its authority the only Host header."""
        # the header's bytes, less the spaces around values and the method and version (a few bytes)
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > self.limits.max_header_bytes:
            return 431, f"the request line and header are longer than {self.limits.max_header_bytes} bytes, the limit"
        hosts = sum(name == b"host" for name, _ in self.headers)
        if hosts > 1 or hosts == 0 and self.parser.get_http_version() == "1.1":
            return 400, (f"the request has {hosts or 'no'} Host header{'s' if hosts != 1 else ''} (HTTP/1.1 requires "
                         "exactly one: RFC 9112, section 3.2)")
        if self.url.startswith(b"/") or self.url == b"*":
            return None
        try:
            target = httptools.parse_url(self.url)
        except httptools.HttpParserInvalidURLError:
            target = None
        if target is None or target.schema not in (b"http", b"https") or not target.host:
            return 400, "the request target is neither a path nor an http URL (RFC 9112, section 3.2)"
        host = b"[" + target.host + b"]" if b":" in target.host else target.host
        self.headers[:] = [(name, value) for name, value in self.headers if name != b"host"] + [
            (b"host", host + (b":%d" % target.port if target.port is not None else b""))]
        self.url = (target.path or b"/") + (b"?" + target.query if target.query is not None else b"")
        return None

    def on_body(self, body: bytes) -> None:
        if self.draining:
            return
        super().on_body(body)
        self.body_bytes += len(body)
        self._wait_for(BODY)

    def on_message_complete(self) -> None:
        if self.draining:
            return
        super().on_message_complete()
        self.in_request = False
        self._stop_body_timer()
        # the request is whole: the endpoint is at work, unless it answered already (413 before the end of the body)
        self._wait_for(HEADER if self._answered() else None)

    def _stop_body_timer(self) -> None:
        if self.body_timer is not None:
            self.body_timer.cancel()
            self.body_timer = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and not self.in_request and self._answered():
            self._wait_for(HEADER)  # the next request (uvicorn's keep-alive timeout also closes an idle connection)

    def _answered(self) -> bool:
        """Whether the last request received has its answer (a pipelined one may still be at work)."""
        return self.cycle is None or self.cycle.response_complete

    def connection_lost(self, exc: Exception | None) -> None:
        if self.in_request and self.waiting_for is BODY and self.cycle and not self.cycle.response_started:
            self._log(f"closed the connection during the request body ({self.body_bytes} bytes received); "
                      "the request is dropped")
        self._wait_for(None)
        self._stop_body_timer()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request that is not HTTP (it logs ``msg``), as the service's JSON error."""
        self._answer_and_close(400, "the request is not valid HTTP/1.1")

    def _timed_out(self) -> None:
        self.read_timer = None
        if self.transport.is_closing() or self.draining:
            return
        within = f"within {self.limits.read_timeout:g} s (barley serve --read-timeout)"
        if self.waiting_for is BODY:
            self._log(f"sent {self.body_bytes} bytes of the request body, then nothing more {within}: closed")
            if self.cycle.response_started:
                self._wait_for(None)
                self.transport.close()
            else:
                self._answer_and_close(408, f"no more of the request body came {within}")
        elif self.in_request:
            self._log(f"sent no complete request header {within}: closed")
            self._answer_and_close(408, f"the request header was not complete {within}")
        else:  # a connection on which nothing was sent: nothing to answer
            self._wait_for(None)
            self.transport.close()

    def _body_timed_out(self) -> None:
        self.body_timer = None
        if self.transport.is_closing() or self.draining or not self.in_request:
            return
        within = f"within {self.limits.body_timeout:g} s (barley serve --body-timeout)"
        self._log(f"sent {self.body_bytes} bytes of the request body, not all of it {within}: closed")
        if self.cycle.response_started:
            self._wait_for(None)
            self.transport.close()
        else:
            self._answer_and_close(408, f"the request body did not come whole {within}")

    def _answer_and_close(self, status: int, message: str) -> None:
        self._wait_for(None)
        self._stop_body_timer()
        self.transport.write(json_answer(status, message))
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        # a lingering close: what the client still sends is read and dropped for a while, else its
        # system would reset the connection and could drop the answer before the client reads it
        self.transport.write_eof()
        self.draining = True
        self.transport.resume_reading()
        self.read_timer = self.loop.call_later(self.limits.read_timeout, self.transport.close)

    def _log(self, message: str) -> None:
        client = "%s:%d" % tuple(self.client) if self.client else "a client"
        self.logger.warning("%s: %s", client, message)


def protocol_with(limits: Limits) -> type[ReadTimeoutProtocol]:
    """The protocol class of a server with these limits (uvicorn makes one instance per connection)."""
    return type("ReadTimeoutProtocol", (ReadTimeoutProtocol,), {"limits": limits})


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every answer."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *SECURITY_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def split_host(value: str) -> tuple[str, int | None]:
    """``(name, port)`` of a Host header (``name``, ``name:port``, ``[v6]:port``): the name in lower
    case without brackets, the port None where none is given (or ``-1`` where it is not a number)."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
    else:
        name, colon, port = value.rpartition(":") if value.count(":") == 1 else (value, "", None)
    if port is None or port == "":
        return name, None
    return name, int(port) if port.isascii() and port.isdigit() else -1


def _is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost"})


class HostCheck:
    """Which ``Host`` headers a service listening on ``host``:``port`` answers (against DNS rebinding:
    a web page whose own name resolves to 127.0.0.1 reaches the service with that name as Host).

    Accepted, with the served port: the name or address ``--host`` gives; both ``127.0.0.1`` and
    ``localhost`` when it is a loopback or wildcard address; any IP address when it is a
    wildcard address (``0.0.0.0``, ``::``: a page cannot rebind an address, only a name).
    Accepted with any port: each ``--allow-host NAME`` (a name the service is reached by through a
    proxy, or this machine's name on the network); ``--allow-host '*'`` accepts every Host.
    A request without Host (HTTP/1.0) is not a browser's and is accepted.
    """

    def __init__(self, host: str, port: int, allowed: Iterable[str] = ()):
        allowed = {name.strip().lower().strip("[]") for name in allowed}
        self.port, self.any_name, self.allowed = port, "*" in allowed, frozenset(allowed)
        bound = host.lower().strip("[]")
        self.wildcard = bound in ("0.0.0.0", "::", "")
        loopback = bound == "localhost" or (_is_ip_address(bound) and ipaddress.ip_address(bound).is_loopback)
        self.names = frozenset({bound} - {""} | (LOOPBACK_NAMES if self.wildcard or loopback else set()))

    def allows(self, header: str | None) -> bool:
        if header is None or self.any_name:
            return True
        name, port = split_host(header)
        if name in self.allowed:
            return True
        return (80 if port is None else port) == self.port and (
            name in self.names or (self.wildcard and _is_ip_address(name)))


class HeadAsGet:
    """ASGI middleware: a HEAD request is answered as the GET of its path (RFC 9110, section 9.3.2: the
    same status and header fields); uvicorn sends the header alone, without the content."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] == "HEAD":
            scope = {**scope, "method": "GET"}
        await self.app(scope, receive, send)


SAFE_METHODS = frozenset({"GET", "HEAD"})


class HostAndOrigin:
    """ASGI middleware: a request whose Host is not this service's gets 400 (:class:`HostCheck`); a
    request from a page of another origin that is not a GET gets 403. Browsers send ``Origin`` with
    every POST, and ``Sec-Fetch-Site`` with every request; curl and scripts send neither. A "simple"
    cross-origin POST (a form, or ``text/plain``) needs no CORS preflight, so without this check any
    web page could make the service parse (and draw) what it likes."""

    def __init__(self, app, hosts: HostCheck):
        self.app, self.hosts = app, hosts

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name: value.decode("latin-1") for name, value in scope["headers"]}
        host = headers.get(b"host")
        if not self.hosts.allows(host):
            name = split_host(host)[0]
            await _refuse(scope, send, 400, f"this service does not answer to the host {host!r} (start barley serve "
                                            f"with --allow-host {name or 'NAME'} to accept it)")
            return
        if scope["method"] not in SAFE_METHODS:
            refused = _other_origin(headers.get(b"origin"), headers.get(b"sec-fetch-site"), host)
            if refused:
                await _refuse(scope, send, 403, f"{refused}: only this service's own page may send it requests "
                                                "other than GET (scripts and curl send no Origin)")
                return
        await self.app(scope, receive, send)


def _other_origin(origin: str | None, site: str | None, host: str | None) -> str | None:
    """Why a request comes from another origin, or None: by its ``Sec-Fetch-Site`` (``same-site`` is
    another origin too: another port of localhost), or an ``Origin`` that does not name the Host."""
    if site is not None and site.lower() not in ("same-origin", "none"):
        return f"a request from another site (Sec-Fetch-Site: {site})"
    if origin is not None and (host is None or origin.partition("://")[2].lower() != host.strip().lower()):
        return f"a request from the page of another origin ({origin})"
    return None


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413 and a message, whether its
    Content-Length says so up front or it comes in chunks. The body is read here (the
    endpoint reads it whole anyway) and handed on, in one piece (so that it is not copied again
    on the way), only when it is within the limit; a client that leaves before its end is
    dropped here (the protocol logs it)."""

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
        pieces, received = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            pieces.append(message.get("body", b""))
            received += len(pieces[-1])
            if received > self.limit:
                await self._refuse(scope, send)
                return
            if not message.get("more_body"):
                break
        whole = [{"type": "http.request", "body": b"".join(pieces), "more_body": False}]
        del pieces

        async def replay():
            return whole.pop() if whole else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope, send) -> None:
        await _refuse(scope, send, 413, f"the request is larger than the limit of {self.limit} bytes (send the "
                                        "sentences in several requests, or start barley serve with a larger "
                                        "--max-request-bytes)")


async def _refuse(scope, send, status: int, message: str) -> None:
    await JSONResponse({"error": message}, status_code=status)(scope, _no_body, send)


async def _no_body():
    return {"type": "http.disconnect"}
