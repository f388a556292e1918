"""What stands between ``barley serve``'s endpoints and its clients: ASGI middleware, in the order a request
meets them — :class:`SecurityHeaders`, :class:`HeadAsGet`, :class:`HostAndOrigin` and :class:`BodyLimit` —,
and the headers of every answer. Below them, the connection itself: :mod:`barley.service.connection`.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.responses import JSONResponse

from barley.service.page import CONTENT_SECURITY_POLICY

SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),  # a JSON answer is never read as a script or a page
    (b"x-frame-options", b"DENY"),  # the page is never framed (clickjacking); frame-ancestors for newer browsers
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode("ascii")),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),  # no other site embeds an answer (<script src=...>)
]
"""The headers of every answer, the page's and the API's, errors included."""

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
            assert host is not None  # a request without Host is allowed
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
