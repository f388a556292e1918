"""The connections of ``barley serve``: :class:`ReadTimeoutProtocol`, uvicorn's HTTP/1.1 protocol with the
read timeouts, the header limit, the connection cap and the Host rules of RFC 9112 that it lacks, and the
service's JSON errors for requests that are not HTTP. Above it, the ASGI middleware: :mod:`barley.service.guards`.

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

import asyncio
import http
from typing import cast

import httptools
import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from barley.service.guards import SECURITY_HEADERS
from barley.service.limits import Limits

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
    read_timer: asyncio.TimerHandle | None
    body_timer: asyncio.TimerHandle | None

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
        client = "%s:%d" % cast(tuple[str, int], tuple(self.client)) if self.client else "a client"
        self.logger.warning("%s: %s", client, message)


def protocol_with(limits: Limits) -> type[ReadTimeoutProtocol]:
    """The protocol class of a server with these limits (uvicorn makes one instance per connection)."""
    return type("ReadTimeoutProtocol", (ReadTimeoutProtocol,), {"limits": limits})
