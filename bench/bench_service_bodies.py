"""``barley serve`` against hostile request bodies (issue 37): for each, the status of the answer, the
seconds until it came (client side) and the peak resident memory of the server process meanwhile.

For each case, starts ``barley serve`` with MODEL (default: the shipped model) at the default limits
on 127.0.0.1 (a free port; a fresh server, so that no case inherits the memory of another), and sends:

- a form (``application/x-www-form-urlencoded``) of 15 MB of ``a&a&...``, alone, then four at once;
- JSON of 5 million empty lists: as the whole body (an array), then as the value of a field;
- multipart form data of 300,000 empty parts;
- the largest bodies the limits let through to the reader: 16 MB of CoNLL-U as a JSON string (alone,
  then 32 at once), a form field, a multipart file and a raw body (each read up to the
  words-per-request limit);
- the costliest values to scan or decode at that size: a JSON string of escaped quotes, a form
  field of percent escapes;
- 100 connections at once that send nothing (those over the limit get 503 at once, the others are
  closed after the read timeout), then 300 at once, each asking ``GET /models``;
- with ``--trickle``: a body announced as 100 bytes, sent one byte every 6 s (the client gives
  up after 150 s): when the server cuts it off.

The peak is the server's VmHWM after resetting it before each case (``/proc/PID/clear_refs``),
printed beside the resident memory before the case (Linux only).

    python bench/bench_service_bodies.py [--model M] [--trickle]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from barley.service.limits import Limits
from barley.service.process import start_server

TIMEOUT = 300.0
"""Seconds the client waits for an answer at most."""
TRICKLE = 150.0
"""Seconds a trickling client keeps sending at most."""


def memory(pid: int, key: str) -> float:
    """VmRSS or VmHWM of the process, in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {key} in /proc/{pid}/status")


def reset_peak(pid: int) -> None:
    with open(f"/proc/{pid}/clear_refs", "w") as clear:
        clear.write("5")  # VmHWM back to the current resident memory (Linux >= 4.0)


def exchange(port: int, request: bytes, pause: float = 0.0) -> str:
    """The status line of the server's answer to ``request`` and the start of its body (or what happened
    instead). With ``pause``, the request's header goes whole, then its body one byte every ``pause``
    seconds (for :data:`TRICKLE` seconds at most)."""
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as client:
        try:
            if pause:
                head, _, body = request.partition(b"\r\n\r\n")
                client.sendall(head + b"\r\n\r\n")
                give_up = time.monotonic() + TRICKLE
                for byte in body:
                    if time.monotonic() > give_up:
                        return f"still reading after {TRICKLE:g} s"
                    client.sendall(bytes([byte]))
                    client.settimeout(pause)
                    try:
                        if client.recv(1, socket.MSG_PEEK) is not None:
                            break  # an answer, or the connection closed
                    except TimeoutError:
                        continue
                    finally:
                        client.settimeout(TIMEOUT)
            else:
                client.sendall(request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # answered (and closed) before the end of the body: the answer is still to be read
        answer = b""
        try:
            while chunk := client.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
        except TimeoutError:
            return f"no answer within {TIMEOUT:g} s"
    if not answer:
        return "closed without an answer"
    head, _, body = answer.partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0].decode("latin-1")
    return f"{status} {body[:90].decode('utf-8', 'replace')}"


def post(port: int, content_type: str, body: bytes) -> bytes:
    return (f"POST /parse HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body


def multipart(parts: list[tuple[str, bytes]]) -> tuple[str, bytes]:
    body = b"".join(b'--bench\r\nContent-Disposition: form-data; name="' + name.encode() + b'"\r\n\r\n' + content
                    + b"\r\n" for name, content in parts) + b"--bench--\r\n"
    return "multipart/form-data; boundary=bench", body


def conllu(size: int) -> bytes:
    """About ``size`` bytes of CoNLL-U, in sentences of 10 words."""
    sentence = "".join(f"{i}\tword\t_\t_\t_\t_\t_\t_\t_\t_\n" for i in range(1, 11)) + "\n"
    return (sentence * (size // len(sentence))).encode()


def measure(model: str | None, name: str, requests, pause: float = 0.0) -> None:
    """Start a server, send it ``requests(port)`` at once, print what came back and what it cost."""
    server, url = start_server(["--model", model] if model else [], timeout=180, stderr=subprocess.DEVNULL)
    try:
        port = int(url.rpartition(":")[2])
        _measure(server.pid, port, name, requests(port), pause)
    finally:
        server.terminate()
        server.wait(timeout=10)


def _measure(pid: int, port: int, name: str, requests: list[bytes], pause: float) -> None:
    before = memory(pid, "VmRSS")
    reset_peak(pid)
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        statuses = list(pool.map(lambda request: exchange(port, request, pause), requests))
    seconds = time.perf_counter() - started
    peak = memory(pid, "VmHWM")
    counts = {status: statuses.count(status) for status in dict.fromkeys(statuses)}
    said = "; ".join(f"{count} × {status}" if len(requests) > 1 else status for status, count in counts.items())
    print(f"{name}: {seconds:.2f} s, server peak {peak:.0f} MB (+{peak - before:.0f} MB over {before:.0f} MB); {said}",
          flush=True)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--model", help="the model to serve (default: the shipped one)")
    options.add_argument("--trickle", action="store_true", help="also a body trickled a byte every 6 s (minutes)")
    args = options.parse_args()

    model, limit = args.model, Limits().max_request_bytes
    form = "application/x-www-form-urlencoded"
    flood = b"a&" * 7_500_000
    measure(model, "form, 15 MB of a&a&...", lambda port: [post(port, form, flood)])
    measure(model, "form, 15 MB of a&a&..., four at once", lambda port: [post(port, form, flood)] * 4)
    lists = b"[" + b"[]," * 5_000_000 + b"[]]"
    measure(model, "JSON, an array of 5 million empty lists", lambda port: [post(port, "application/json", lists)])
    measure(model, "JSON, a field holding 5 million empty lists",
            lambda port: [post(port, "application/json", b'{"data": "x", "forbid": ' + lists + b"}")])
    measure(model, "multipart, 300,000 empty parts", lambda port: [post(port, *multipart([("p", b"")] * 300_000))])
    data = conllu(limit - 1000)
    escaped = data.replace(b"\t", b"\\t").replace(b"\n", b"\\n")[:limit - 1000]
    escaped = escaped[:escaped.rindex(b"\\n") + 2]
    measure(model, f"JSON, {len(escaped) / 1e6:.1f} MB of CoNLL-U as a string",
            lambda port: [post(port, "application/json", b'{"data": "' + escaped + b'"}')])
    measure(model, f"JSON, {len(escaped) / 1e6:.1f} MB of CoNLL-U as a string, 32 at once",
            lambda port: [post(port, "application/json", b'{"data": "' + escaped + b'"}')] * 32)
    encoded = data.replace(b"\t", b"%09").replace(b"\n", b"%0A")[:limit - 1000]
    encoded = encoded[:encoded.rindex(b"%0A") + 3]
    measure(model, f"form, {len(encoded) / 1e6:.1f} MB of CoNLL-U as a field",
            lambda port: [post(port, form, b"data=" + encoded)])
    measure(model, f"multipart, {len(data) / 1e6:.1f} MB of CoNLL-U as a file",
            lambda port: [post(port, *multipart([("data", data)]))])
    measure(model, f"raw body, {len(data) / 1e6:.1f} MB of CoNLL-U", lambda port: [post(port, "text/plain", data)])
    quotes = b'{"data": "' + b'\\"' * ((limit - 100) // 2) + b'"}'
    measure(model, f"JSON, {len(quotes) / 1e6:.1f} MB of escaped quotes as a string",
            lambda port: [post(port, "application/json", quotes)])
    measure(model, f"form, {(limit - 100) / 1e6:.1f} MB of percent escapes as a field",
            lambda port: [post(port, form, b"data=" + b"%41" * ((limit - 100) // 3))])
    measure(model, "100 connections at once, each sending nothing", lambda port: [b""] * 100)
    measure(model, "300 connections at once, GET /models", lambda port: [
        f"GET /models HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()] * 300)
    if args.trickle:
        measure(model, "a body of 100 bytes trickled a byte every 6 s",
                lambda port: [post(port, "text/plain", b"#" * 100)], pause=6.0)


if __name__ == "__main__":
    main()
