"""``barley serve`` in a child process on a free local port, for scripts, benchmarks and tests."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(options: list[str], timeout: float = 60.0, **popen) -> tuple[subprocess.Popen, str]:
    """Start ``barley serve OPTIONS --port P`` and wait until it answers ``GET /models``.

    Returns the process and the base URL (``http://127.0.0.1:P``); ``popen`` goes to
    :class:`subprocess.Popen` (``cwd``, ``stdout``, ...). A server that exits or does not
    answer within ``timeout`` seconds is killed, and ``RuntimeError`` says so, with what it
    wrote to a piped ``stdout``.
    """
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "barley", "serve", *options, "--port", str(port)], **popen)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url + "/models", timeout=1).read()
            return server, url
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                said = server.stdout.read().decode(errors="replace") if server.stdout else ""
                raise RuntimeError(f"barley serve did not start{': ' + said if said else ''}") from None
            time.sleep(0.1)
