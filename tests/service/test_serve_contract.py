"""``barley serve``'s contract with hostile and broken clients: every error is JSON ``{"error": ...}``
with its status, never a 500; the server outlives a sweep of malformed requests; slow clients
time out; Host and Origin are checked; every answer carries the security headers; the options
and the models are checked before the server starts."""

from __future__ import annotations

import http.client
import json
import select
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="barley serve needs the serve extra: pip install -e '.[serve]' in barley's checkout")
pytest.importorskip("uvicorn", reason="barley serve needs the serve extra: pip install -e '.[serve]' in barley's checkout")

from barley import cli  # noqa: E402
from barley.errors import BarleyError  # noqa: E402
from barley.pipeline import Pipeline, require_component  # noqa: E402
from barley.service.guards import SECURITY_HEADERS, HostCheck, split_host  # noqa: E402
from barley.service.process import start_server  # noqa: E402
from barley.kinds import train  # noqa: E402
from fixed_grammar import toy_treebank  # noqa: E402

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

LIMITS = {"--max-request-bytes": 100_000, "--max-sentence-words": 20, "--max-request-words": 100,
          "--max-word-pairs": 1500, "--max-word-chars": 50, "--max-request-chars": 2000, "--read-timeout": 1,
          "--body-timeout": 2, "--max-connections": 8}
"""The test server's limits: a toy sentence has at most 12 words, of a few characters each; one second for a
slow client, two for a whole body."""

WAIT = 30  # seconds a test waits for an answer at most: a bound on a hang, not a timing


@dataclass
class Service:
    process: subprocess.Popen
    port: int
    log: Path
    folder: Path

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=WAIT)

    def ask(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        """(status, headers with lower-case names, body) of one request."""
        connection = self.connection()
        try:
            connection.request(method, path, body=body, headers=headers or {})
            answer = connection.getresponse()
            return answer.status, {name.lower(): value for name, value in answer.getheaders()}, answer.read()
        finally:
            connection.close()

    def raw(self, data: bytes, then_wait: bool = True) -> bytes:
        """What the server answers to these bytes sent as they are, until it closes the connection."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=WAIT) as client:
            client.sendall(data)
            received = b""
            while then_wait and (chunk := client.recv(65536)):
                received += chunk
            return received


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve-contract")
    toy_treebank(folder / "train.conllu", 120, seed=1)
    toy_treebank(folder / "test.conllu", 10, seed=2)
    train(str(folder / "train.conllu"), system="arc-eager", log=lambda message: None).save(str(folder / "toy.barley"))
    options = [str(item) for option, value in LIMITS.items() for item in (option, value)]
    with open(folder / "server.log", "wb") as log:
        try:
            process, url = start_server(["--model", f"toy={folder / 'toy.barley'}", *options], timeout=30,
                                        cwd=folder, stdout=log, stderr=subprocess.STDOUT)
        except RuntimeError as error:
            pytest.fail(f"{error}: {(folder / 'server.log').read_text()}")
    yield Service(process, int(url.rpartition(":")[2]), folder / "server.log", folder)
    process.terminate()
    process.wait(timeout=10)


def one_sentence(folder: Path) -> str:
    return (folder / "test.conllu").read_text(encoding="utf-8").split("\n\n")[0] + "\n\n"


def json_body(fields) -> bytes:
    return json.dumps(fields).encode()


JSON = {"Content-Type": "application/json"}
TEXT = {"Content-Type": "text/plain"}
FORM = {"Content-Type": "application/x-www-form-urlencoded"}


def multipart(*parts: tuple[bytes, bytes], boundary: bytes = b"sweep") -> tuple[bytes, dict]:
    """A multipart body of (Content-Disposition parameters, content) parts, and its header."""
    body = b"".join(b"--" + boundary + b"\r\nContent-Disposition: form-data; " + disposition + b"\r\n\r\n" + content
                    + b"\r\n" for disposition, content in parts) + b"--" + boundary + b"--\r\n"
    return body, {"Content-Type": "multipart/form-data; boundary=" + boundary.decode()}


def malformed_requests(sentence: str) -> list[tuple[str, str, bytes | None, dict, int, str]]:
    """(method, path, body, headers, status, a part of the error) of each malformed request of the sweep."""
    valid = json.dumps({"data": sentence})[1:-1]  # "data": "..." to put into hand-written JSON
    deep = "[" * 1000 + "]" * 1000
    requests = [
        # fields of the wrong type, unknown, or twice
        *[("POST", "/parse", json_body({"data": sentence, field: value}), JSON, 400, f"the field '{field}' is")
          for field in ("model", "input", "draw") for value in (["toy"], {"name": "toy"}, 3, 10.5)],
        ("POST", "/parse", json_body({"data": ["1\tx"]}), JSON, 400, "the field 'data' is an array"),
        ("POST", "/parse", json_body({"data": None}), JSON, 400, "the field 'data' is null"),
        ("POST", "/parse", json_body({"data": sentence, "draw": "yes"}), JSON, 400, "the field 'draw' is a string"),
        ("POST", "/parse", json_body({"data": sentence, "tokenizer": "x"}), JSON, 400, "a field 'tokenizer'"),
        ("POST", "/parse?model=toy", json_body({"data": sentence, "model": "toy"}), JSON, 400, "'model' twice"),
        ("POST", "/parse?draw=perhaps", sentence.encode(), TEXT, 400, "the field 'draw' is 'perhaps'"),
        ("POST", "/parse?data=x", sentence.encode(), TEXT, 400, "'data' twice"),
        ("POST", "/parse", json_body({"input": "conllu"}), JSON, 400, "the request has no data"),
        # JSON that is not an object, too deep, with numbers no float holds, not JSON at all
        ("POST", "/parse", json_body([sentence]), JSON, 400, "the JSON body is an array, not an object"),
        ("POST", "/parse", deep.encode(), JSON, 400, "the JSON body is an array"),
        ("POST", "/parse", ("[" * 100_000).encode(), JSON, 400, "the JSON body is an array, not an object"),
        ("POST", "/parse", b'"data"', JSON, 400, "the JSON body is a string, not an object"),
        ("POST", "/parse", b"-5", JSON, 400, "the JSON body is a number, not an object"),
        ("POST", "/parse", b"[" + b"[]," * 10_000 + b"[]]", JSON, 400, "the JSON body is an array, not an object"),
        ("POST", "/parse", f'{{{valid}, "forbid": [{"[], " * 10_000}[]]}}'.encode(), JSON, 400,
         "the field 'forbid' is an array, not a string or null"),
        ("POST", "/parse", f'{{{valid}, "forbid": {{"a": {{}}}}}}'.encode(), JSON, 400,
         "the field 'forbid' is an object"),
        # a JSON object's duplicate names are refused (orjson would keep the last silently), however written
        ("POST", "/parse", f'{{{valid}, "data": "x"}}'.encode(), JSON, 400, "the request gives the field 'data' twice"),
        ("POST", "/parse", f'{{{valid}, "d\\u0061ta": "x"}}'.encode(), JSON, 400, "the field 'data' twice"),
        ("POST", "/parse", f'{{"draw": true, {valid}, "draw": false}}'.encode(), JSON, 400, "'draw' twice"),
        ("POST", "/parse", f'{{{valid}, "{"x" * 50_000}": 1}}'.encode(), JSON, 400,
         "the request has a field 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...', which"),
        ("POST", "/parse", f'{{{valid}}} {{}}'.encode(), JSON, 400, "not valid JSON (more after the JSON object at "
                                                                    "line 1, column"),
        ("POST", "/parse", b'{"data" "x"}', JSON, 400, "not valid JSON (expected ':' after a field name at line 1, "
                                                       "column 9)"),
        ("POST", "/parse", b'{"data": "x",}', JSON, 400, "not valid JSON (expected a field name in double quotes"),
        ("POST", "/parse", b'{"data": "x"\n "draw": true}', JSON, 400,
         "not valid JSON (expected ',' or '}' after a value at line 2, column 2)"),
        ("POST", "/parse", b'{data: "x"}', JSON, 400, "not valid JSON (expected a field name in double quotes"),
        ("POST", "/parse", f'{{{valid}, "draw": tru}}'.encode(), JSON, 400, "not valid JSON"),
        ("POST", "/parse", f'{{{valid}, "nbest": 2.0}}'.encode(), JSON, 400,
         "the field 'nbest' is a number, not a whole number or null"),
        ("POST", "/parse", f'{{{valid}, "nbest": {"9" * 5000}}}'.encode(), JSON, 400, "not valid JSON"),
        ("POST", "/parse", f'{{{valid}, "nbest": 0}}'.encode(), JSON, 400, "the field 'nbest' is 0 (give a whole "
                                                                           "number from 1 to 100)"),
        ("POST", "/parse", f'{{{valid}, "model": "{"m" * 201}"}}'.encode(), JSON, 400,
         "the field 'model' has 201 characters (give at most 200)"),
        ("POST", "/parse", f'{{{valid}, "model": {deep}}}'.encode(), JSON, 400, "the field 'model' is an array"),
        ("POST", "/parse", f'{{{valid}, "draw": {"9" * 5000}}}'.encode(), JSON, 400, "not valid JSON"),
        ("POST", "/parse", f'{{{valid}, "draw": -{"9" * 5000}.5e99999}}'.encode(), JSON, 400, "not valid JSON"),
        ("POST", "/parse", f'{{{valid}, "draw": NaN}}'.encode(), JSON, 400, "not valid JSON"),
        ("POST", "/parse", b'{"data": ', JSON, 400, "not valid JSON"),
        ("POST", "/parse", b"", JSON, 400, "not valid JSON"),
        ("POST", "/parse", b'{"data": "\\ud800"}', JSON, 400, "not valid JSON"),
        # bytes that are not UTF-8, wherever they come
        ("POST", "/parse", b'{"data": "\xff\xfe"}', JSON, 400, "the request body is not valid UTF-8"),
        ("POST", "/parse", b"1\tdog\xff\t_\t_\t_\t_\t_\t_\t_\t_\n", TEXT, 400, "<request>:1: invalid UTF-8"),
        ("POST", "/parse", b"data=%ff%fe", FORM, 400, "<request>: the file is UTF-16"),  # its BOM, percent-encoded
        ("POST", "/parse", b"data=1%09dog%ff", FORM, 400, "<request>:1: invalid UTF-8"),
        ("POST", "/parse", b"data=\xff", FORM, 400, "<request>:1: invalid UTF-8"),
        ("POST", "/parse", b"data=x&model=to%ffy", FORM, 400, "the field 'model' in the form data is not valid UTF-8"),
        ("POST", "/parse", b"data=x&d%ffta=y", FORM, 400, "a field name of the form data is not valid UTF-8"),
        ("POST", "/parse?model=%ff", sentence.encode(), TEXT, 400,
         "the field 'model' in the query string is not valid UTF-8"),
        ("POST", "/parse", *multipart((b'name="data"; filename="a.conllu"', b"1\tdog\xff\t_\t_\t_\t_\t_\t_\t_\t_")),
         400, "<request>:1: invalid UTF-8"),
        ("POST", "/parse", *multipart((b'name="data"', sentence.encode()), (b'name="model"', b"to\xffy")), 400,
         "the field 'model' in the multipart form data is not valid UTF-8"),
        ("POST", "/parse", *multipart((b'name="d\xffta"', b"x")), 400, "a field name of the multipart form data"),
        # forms: each name checked as it comes, before its value is read; numbers of any length refused in one line
        ("POST", "/parse", b"a&" * 40_000, FORM, 400, "the request has a field 'a', which the service does not take"),
        ("POST", "/parse", b"&" * 40_000 + b"data=x&" + b"&" * 40_000 + b"data=y", FORM, 400, "'data' twice"),
        ("POST", "/parse", b"data=x&nbest=" + b"9" * 5000, FORM, 400,
         f"the field 'nbest' is '{'9' * 55}...' (give a whole number from 1 to 100)"),
        ("POST", "/parse?nbest=" + "9" * 5000, sentence.encode(), TEXT, 400, "the field 'nbest' is '999"),
        ("POST", "/parse?nbest=-1", sentence.encode(), TEXT, 400, "the field 'nbest' is '-1'"),
        ("POST", "/parse?nbest=0", sentence.encode(), TEXT, 400, "the field 'nbest' is 0"),
        ("POST", "/parse?draw=" + "y" * 5000, sentence.encode(), TEXT, 400, "the field 'draw' is 'yyyy"),
        ("POST", "/parse", b"data=x&model=" + b"m" * 201, FORM, 400, "the field 'model' has 201 characters"),
        # multipart: each part's name checked when its headers end
        ("POST", "/parse", *multipart(*[(b'name="p"', b"")] * 1_500), 400, "a field 'p'"),
        ("POST", "/parse", *multipart((b'name="data"', sentence.encode()), *[(b'name="data"', b"")] * 1_500), 400,
         "the request gives the field 'data' twice"),
        ("POST", "/parse", *multipart((b'name="data"', sentence.encode()), (b'name="nbest"', b"9" * 5000)), 400,
         "the field 'nbest' is '999"),
        # multipart that is not
        ("POST", "/parse", b"x", {"Content-Type": "multipart/form-data"}, 400, "has no boundary"),
        ("POST", "/parse", b"garbage", {"Content-Type": "multipart/form-data; boundary=b"}, 400, "malformed"),
        ("POST", "/parse", b"--b\r\nContent-Disposition: form-data; name=\"data\"\r\n\r\nx",
         {"Content-Type": "multipart/form-data; boundary=b"}, 400, "ends before its closing boundary"),
        ("POST", "/parse", b"x", {"Content-Type": "multipart/form-data; boundary=" + "b" * 100}, 400, "malformed"),
        ("POST", "/parse", *multipart((b'filename="a.conllu"', b"x")), 400, "has no name"),
        ("POST", "/parse", *multipart((b'name="data"', sentence.encode()), (b'name="shoe"', b"x")), 400,
         "a field 'shoe'"),
        # wrong data, model or format
        ("POST", "/parse", json_body({"data": "1\tx\n"}), JSON, 400, "<request>:1: expected 10 tab-separated columns"),
        ("POST", "/parse", json_body({"data": sentence, "model": "../toy.barley"}), JSON, 400, "no model called"),
        ("POST", "/parse", json_body({"data": sentence, "input": "text"}), JSON, 400, "input format 'text'"),
        # wrong methods and paths
        *[(method, "/parse", None, {}, 405, f"{method} is not allowed on /parse") for method in
          ("GET", "PUT", "DELETE", "PATCH", "OPTIONS")],
        ("POST", "/models", b"x", TEXT, 405, "POST is not allowed on /models"),
        ("POST", "/", b"x", TEXT, 405, "POST is not allowed on /"),
        ("GET", "/nothing", None, {}, 404, "there is nothing at /nothing"),
        ("GET", "/%ff%fe", None, {}, 404, "there is nothing at /%ff%fe"),
        ("GET", "/a%0Ab%0D%0A", None, {}, 404, "there is nothing at /a%0Ab%0D%0A ("),
        ("GET", "/../../etc/passwd", None, {}, 404, "there is nothing at"),
        ("GET", "/docs", None, {}, 404, "there is nothing at /docs"),
        ("GET", "/" + "a" * 10_000, None, {}, 404, "there is nothing at /" + "a" * 99 + "... ("),
        # HEAD is GET without a body; the methods a path takes are named, HEAD with GET
        ("POST", "/", b"x", TEXT, 405, "it takes GET, HEAD"),
        # over the limits: bytes, words per sentence and per request, characters per word and per request
        ("POST", "/parse", b"#" * 100_001, TEXT, 413, "larger than the limit of 100000 bytes"),
        ("POST", "/parse", "".join(f"{i}\tw\t_\t_\t_\t_\t_\t_\t_\t_\n" for i in range(1, 22)).encode(), TEXT, 413,
         "<request>:1: a sentence of 21 words, over the limit of 20 words per sentence (split it, or start barley "
         "serve with a larger --max-sentence-words)"),
        ("POST", "/parse", (sentence * 20).encode(), TEXT, 413,
         "the request has more than 100 words, the limit per request (send the sentences in several requests, or "
         "start barley serve with a larger --max-request-words)"),
        ("POST", "/parse", ("".join(f"{i}\tw\t_\t_\t_\t_\t_\t_\t_\t_\n" for i in range(1, 21)) + "\n").encode() * 4,
         TEXT, 413, "<request>:64: the sentences of the request have more than 1500 pairs of words in all (the sum of "
         "the square of each one's words), the limit per request (send long sentences in several requests, or start "
         "barley serve with a larger --max-word-pairs)"),
        ("POST", "/parse", f"# sent_id = a\n1\t{'w' * 50}\t_\t_\t_\t_\t_\t_\t_\t_\n2\t{'w' * 51}\t_\t_\t_\t_"
                           "\t_\t_\t_\t_\n".encode(), TEXT, 413,
         "<request>:3: a word of 51 characters, over the limit of 50 characters per word (is it a word? start barley "
         "serve with a larger --max-word-chars to accept it)"),
        ("POST", "/parse", ("".join(f"{i}\t{'w' * 45}\t_\t_\t_\t_\t_\t_\t_\t_\n" for i in range(1, 11))
                            + "\n").encode() * 5, TEXT, 413,
         "<request>:45: the words of the request have more than 2000 characters, the limit per request (send the "
         "sentences in several requests, or start barley serve with a larger --max-request-chars)"),
    ]
    return requests


def test_a_sweep_of_malformed_requests_gets_json_4xx_and_the_server_stays_up(service):
    sentence = one_sentence(service.folder)
    requests = malformed_requests(sentence)
    for method, path, body, headers, status, message in requests:
        got, answer_headers, answer = service.ask(method, path, body, headers)
        assert got == status, (method, path, body and body[:80], got, answer[:200])
        assert answer_headers["content-type"] == "application/json", (path, answer_headers)
        error = json.loads(answer)
        assert list(error) == ["error"] and "\n" not in error["error"] and message in error["error"], (body, error)
        for name, value in SECURITY_HEADERS:
            assert answer_headers[name.decode()] == value.decode()
    status, _, answer = service.ask("POST", "/parse", json_body({"data": sentence}), JSON)
    assert status == 200 and json.loads(answer)["result"]  # still up, and still right
    assert service.process.poll() is None
    log = service.log.read_text(errors="replace")
    assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]


def _status_and_error(answer: bytes) -> tuple[int, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)["error"]


def test_requests_that_are_not_http_or_have_an_endless_header_get_json_errors(service):
    status, error = _status_and_error(service.raw(b"BLAH\x00 / HTTP/1.1\r\n\r\n"))
    assert status == 400 and error == "the request is not valid HTTP/1.1"
    endless = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Long: " % service.port + b"a" * 200_000
    status, error = _status_and_error(service.raw(endless))
    assert status == 431 and "longer than 65536 bytes" in error
    assert service.ask("GET", "/models")[0] == 200


def test_a_header_over_the_limit_gets_431_even_when_it_comes_whole_in_one_piece(service):
    host = b"Host: 127.0.0.1:%d\r\n" % service.port
    for header in (b"X-Long: " + b"a" * 70_000 + b"\r\n",  # one long field, or many short ones
                   b"".join(b"X-Field-%d: %s\r\n" % (k, b"a" * 60) for k in range(1_000))):
        status, error = _status_and_error(service.raw(b"GET /models HTTP/1.1\r\n" + host + header + b"\r\n"))
        assert status == 431 and error == "the request line and header are longer than 65536 bytes, the limit"
    answer = service.raw(b"GET /models HTTP/1.1\r\n" + host + b"X-Long: " + b"a" * 60_000 + b"\r\nConnection: close"
                         b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 ")  # within the limit


def test_the_host_rules_of_rfc_9112(service):
    own = b"127.0.0.1:%d" % service.port
    close = b"Connection: close\r\n\r\n"
    for hosts in ([b"evil.example", own], [own, b"evil.example"], [own, own]):
        header = b"".join(b"Host: " + host + b"\r\n" for host in hosts)
        status, error = _status_and_error(service.raw(b"GET /models HTTP/1.1\r\n" + header + close))
        assert (status, error) == (400, "the request has 2 Host headers (HTTP/1.1 requires exactly one: RFC 9112, "
                                        "section 3.2)"), hosts
    status, error = _status_and_error(service.raw(b"GET /models HTTP/1.1\r\n" + close))
    assert status == 400 and error.startswith("the request has no Host headers")
    assert service.raw(b"GET /models HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.1 200 ")  # HTTP/1.0 needs none
    # an absolute-form target stands for its path, its authority for the Host (which is ignored)
    for target, host, status, message in [
            (b"http://" + own + b"/models", b"evil.example", 200, None),
            (b"http://" + own + b"/models?x=1", own, 200, None),
            (b"http://evil.example/models", own, 400, "this service does not answer to the host 'evil.example'"),
            (b"http://evil.example:%d/models" % service.port, own, 400, "does not answer to the host"),
            (b"ftp://" + own + b"/models", own, 400, "the request target is neither a path nor an http URL"),
            (b"http://" + own + b"/nothing", own, 404, "there is nothing at /nothing")]:
        answer = service.raw(b"GET " + target + b" HTTP/1.1\r\nHost: " + host + b"\r\n" + close)
        if message is None:
            assert answer.startswith(b"HTTP/1.1 200 ") and b'"default_model":"toy"' in answer, target
        else:
            assert _status_and_error(answer)[0] == status and message in _status_and_error(answer)[1], target
    with_no_path = service.raw(b"GET http://" + own + b" HTTP/1.1\r\nHost: " + own + b"\r\n" + close)
    assert with_no_path.startswith(b"HTTP/1.1 200 ") and b'id="data"' in with_no_path  # the page, at /
    assert service.ask("GET", "/models")[0] == 200


def test_head_is_answered_as_get_without_the_body(service):
    for path in ("/", "/models", "/openapi.json"):
        status, headers, body = service.ask("GET", path)
        head_status, head_headers, head_body = service.ask("HEAD", path)
        assert status == head_status == 200 and body and head_body == b"", path
        assert head_headers["content-length"] == str(len(body)) and head_headers["content-type"] == \
            headers["content-type"] and head_headers["x-frame-options"] == "DENY"
    assert service.ask("HEAD", "/nothing")[0] == 404
    status, headers, _ = service.ask("HEAD", "/parse")
    assert status == 405 and headers["allow"] == "POST"


def test_a_body_trickled_in_gets_408_when_its_whole_time_is_up(service):
    """Each byte within the pause allowed (1 s), the whole body not within --body-timeout (2 s)."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", service.port), timeout=WAIT) as client:
        client.sendall(b"POST /parse HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: text/plain\r\n"
                       b"Content-Length: 1000\r\n\r\n" % service.port)
        while not select.select([client], [], [], 0.3)[0]:  # a byte every 0.3 s until the answer comes
            client.sendall(b"#")
            assert time.monotonic() - started < WAIT
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    assert _status_and_error(answer) == (408, "the request body did not come whole within 2 s (barley serve "
                                              "--body-timeout)")
    assert 2 <= time.monotonic() - started < 2 + WAIT / 2


def test_a_connection_over_the_limit_gets_503_and_the_service_answers_again_after(service):
    """Twelve connections at once, the limit 8: those over it get 503 at once, the others are closed
    after the read timeout (1 s) without an answer, since they send nothing."""
    clients = [socket.create_connection(("127.0.0.1", service.port), timeout=WAIT) for _ in range(12)]
    answers = []
    try:
        for client in clients:
            answer = b""
            while chunk := client.recv(65536):
                answer += chunk
            answers.append(answer)
    finally:
        for client in clients:
            client.close()
    refused = [_status_and_error(answer) for answer in answers if answer]
    assert len(refused) >= 4 and answers.count(b"") <= 8, answers
    assert set(refused) == {(503, "the service has 8 connections open, its limit (barley serve --max-connections): "
                                  "try again shortly")}
    deadline = time.monotonic() + WAIT
    while (status := service.ask("GET", "/models")[0]) == 503 and time.monotonic() < deadline:
        time.sleep(0.2)  # the refused ones linger a moment (a lingering close)
    assert status == 200


def _log_after(service: Service, lines_before: int, expected: int) -> list[str]:
    """The lines the server logged since ``lines_before``, once there are ``expected`` of them (or after WAIT s)."""
    deadline = time.monotonic() + WAIT
    while True:
        lines = service.log.read_text(errors="replace").splitlines()[lines_before:]
        if len(lines) >= expected or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


def test_a_half_sent_header_or_body_times_out_and_a_client_leaving_is_one_log_line(service):
    host = b"Host: 127.0.0.1:%d\r\n" % service.port
    before = len(service.log.read_text().splitlines())
    status, error = _status_and_error(service.raw(b"GET /models HTTP/1.1\r\n" + host + b"X-Half: "))
    assert status == 408 and error == "the request header was not complete within 1 s (barley serve --read-timeout)"
    body_started = b"POST /parse HTTP/1.1\r\n" + host + b"Content-Type: text/plain\r\nContent-Length: 5000\r\n\r\n#"
    status, error = _status_and_error(service.raw(body_started))
    assert status == 408 and error == "no more of the request body came within 1 s (barley serve --read-timeout)"
    service.raw(body_started + b"#" * 1000, then_wait=False)  # and leaves
    lines = _log_after(service, before, 3)
    assert len(lines) == 3 and all(line.startswith("WARNING:  127.0.0.1:") for line in lines), lines
    assert "sent no complete request header within 1 s" in lines[0]
    assert "sent 1 bytes of the request body, then nothing more within 1 s" in lines[1]
    assert "closed the connection during the request body (1001 bytes received); the request is dropped" in lines[2]
    with socket.create_connection(("127.0.0.1", service.port), timeout=WAIT) as idle:
        assert idle.recv(100) == b""  # a connection that sends nothing is closed, without an answer
    assert service.ask("GET", "/models")[0] == 200 and service.process.poll() is None


def test_a_header_sent_a_byte_at_a_time_still_times_out(service):
    """The header has one deadline, not one per byte (slowloris): a client still sending gets its 408."""
    header = b"GET /models HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % service.port + b"a" * 100
    with socket.create_connection(("127.0.0.1", service.port), timeout=WAIT) as client:
        for byte in header:  # 0.1 s apart, until the answer comes: the whole header would take 10 s
            client.sendall(bytes([byte]))
            if select.select([client], [], [], 0.1)[0]:
                break
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    assert _status_and_error(answer) == (408, "the request header was not complete within 1 s (barley serve "
                                              "--read-timeout)")


def test_only_requests_addressed_to_this_service_are_answered(service):
    port = service.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
        assert service.ask("GET", "/models", headers={"Host": host})[0] == 200, host
    for host in (f"evil.example:{port}", f"127.0.0.1:{port + 1}", "localhost", f"127.0.0.2:{port}", f"[::1]:{port}"):
        status, _, answer = service.ask("GET", "/models", headers={"Host": host})
        assert status == 400 and "does not answer to the host" in json.loads(answer)["error"], host
        assert "--allow-host" in json.loads(answer)["error"]


def test_a_page_of_another_origin_cannot_post_but_the_services_own_page_can(service):
    sentence = one_sentence(service.folder).encode()
    own = f"http://127.0.0.1:{service.port}"
    other_port = f"http://127.0.0.1:{service.port + 1}"
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"}, {"Origin": other_port},
                    {"Origin": own.replace("127.0.0.1", "localhost")},
                    {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site", "Origin": own}):
        for body, content_type in ((sentence, TEXT), (b"data=" + sentence.replace(b"\t", b"%09"),
                                                      {"Content-Type": "application/x-www-form-urlencoded"})):
            status, _, answer = service.ask("POST", "/parse", body, {**content_type, **headers})
            assert status == 403 and "only this service's own page" in json.loads(answer)["error"], headers
    status, _, _ = service.ask("POST", "/parse", sentence, {**TEXT, "Origin": own, "Sec-Fetch-Site": "same-origin"})
    assert status == 200
    assert service.ask("GET", "/", headers={"Sec-Fetch-Site": "cross-site"})[0] == 200  # a link to the page works


def test_every_answer_carries_the_security_headers(service):
    answers = [service.ask("GET", "/"), service.ask("GET", "/models"), service.ask("GET", "/openapi.json"),
               service.ask("POST", "/parse", one_sentence(service.folder).encode(), TEXT)]
    assert [status for status, _, _ in answers] == [200] * 4
    for _, headers, _ in answers:
        assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"
        assert headers["content-security-policy"].startswith("default-src 'none'; script-src 'sha256-")


def test_host_check_by_address_and_option():
    loopback = HostCheck("127.0.0.1", 8080)
    assert loopback.allows("127.0.0.1:8080") and loopback.allows("localhost:8080") and loopback.allows(None)
    assert not any(loopback.allows(host) for host in ("evil.example:8080", "127.0.0.1:8081", "127.0.0.1",
                                                      "10.0.0.1:8080", "", ":8080", "localhost:80x"))
    assert HostCheck("localhost", 80).allows("127.0.0.1") and HostCheck("::1", 9000).allows("[::1]:9000")
    anywhere = HostCheck("0.0.0.0", 8080, ["parser.lab.example"])
    assert anywhere.allows("192.168.1.20:8080") and anywhere.allows("[fe80::1]:8080")
    assert anywhere.allows("localhost:8080") and anywhere.allows("parser.lab.example")
    assert anywhere.allows("Parser.Lab.Example:443") and not anywhere.allows("evil.example:8080")
    named = HostCheck("parser.lab.example", 8080)
    assert named.allows("parser.lab.example:8080") and not named.allows("localhost:8080")
    assert HostCheck("127.0.0.1", 8080, ["*"]).allows("evil.example:1")
    assert split_host("[::1]:80") == ("::1", 80) and split_host("Name") == ("name", None)
    assert split_host("name:x") == ("name", -1)


def test_form_values_are_percent_decoded_as_urllib_decodes_them(monkeypatch):
    """The vectorised decoder against urllib's (with ``+`` a space), on random values, decoded a few bytes at a
    time so that escapes fall across the pieces."""
    import random
    import urllib.parse

    from barley.service import request

    rng = random.Random(5)
    for size in (3, 4, 7, 1 << 20):
        monkeypatch.setattr(request, "DECODED_AT_ONCE", size)
        for _ in range(300):
            raw = bytes(rng.choice(b"%%%+aF09g\xff&=") for _ in range(rng.randrange(12)))
            assert request._percent_decoded(raw) == urllib.parse.unquote_to_bytes(raw.replace(b"+", b" ")), raw


def test_the_end_of_a_json_string_is_where_the_regular_expression_finds_it(monkeypatch):
    """Quotes found one by one, then the regular expression where there are many (QUICK 2: soon)."""
    import random

    from barley.service import json_body

    rng = random.Random(7)
    for quick in (2, 64):
        monkeypatch.setattr(json_body, "QUICK", quick)
        for _ in range(2000):
            body = b'"' + bytes(rng.choice(b'ab\\"') for _ in range(rng.randrange(40)))
            string = json_body.STRING.match(body, 0)
            assert json_body._string_end(body, 0) == (string and string.end()), body
    body = b'"' + b"\\" * 1000 + b'"'  # a long run of backslashes, even: the string ends there
    assert json_body._string_end(body, 0) == len(body)


def test_json_bodies_read_as_orjson_reads_them_when_valid():
    """The scanner walks what orjson reads, however the object is written: spaces, escapes, numbers."""
    import orjson

    from barley.service.request import read_request

    for body in [b'{"data":"x"}', b' \t\r\n{ "data" : "a\\"b\\\\" , "nbest" : 2 }\n',
                 b'{"d\\u0061ta": "\\u00e9\\ud83d\\ude00\\n", "draw": true, "valid_ud": null, "model": "toy"}',
                 '{"data": "ünï", "forbid": "s 0 1\\n", "keep_arcs": false, "input": "conllu"}'.encode(),
                 b'{"data": "", "nbest": 100}', b'{"data": "x", "model": null, "input": ""}']:
        expected = orjson.loads(body)
        got = read_request("application/json", b"", body)
        assert got["data"] == expected["data"].encode()
        assert got["input"] == (expected.get("input") or "auto") and got["model"] == expected.get("model")
        assert got["nbest"] == expected.get("nbest") and got["draw"] is expected.get("draw", False)
        assert got["valid_ud"] == expected.get("valid_ud") and (got["arcs"] is None) == ("forbid" not in expected)


@pytest.mark.parametrize("options, message", [
    (["--port", "70000"], "--port 70000 is not a TCP port (give a port from 1 to 65535)"),
    (["--port", "0"], "--port 0 is not a TCP port"),
    (["--port", "-1"], "--port -1 is not a TCP port"),
    (["--max-request-bytes", "-5"], "--max-request-bytes -5 is not a positive number"),
    (["--max-request-bytes", "0"], "--max-request-bytes 0 is not a positive number"),
    (["--max-sentence-words", "0"], "--max-sentence-words 0 is not a positive number"),
    (["--max-request-words", "-1"], "--max-request-words -1 is not a positive number"),
    (["--max-word-pairs", "0"], "--max-word-pairs 0 is not a positive number"),
    (["--read-timeout", "0"], "--read-timeout 0.0 is not a positive number"),
    (["--read-timeout", "nan"], "--read-timeout nan is not a positive number"),
    (["--read-timeout", "inf"], "--read-timeout inf is not a positive number"),
    (["--max-word-chars", "0"], "--max-word-chars 0 is not a positive number"),
    (["--max-request-chars", "-1"], "--max-request-chars -1 is not a positive number"),
    (["--body-timeout", "0"], "--body-timeout 0.0 is not a positive number"),
    (["--max-connections", "0"], "--max-connections 0 is not a positive number"),
])
def test_options_out_of_range_are_one_line_errors(options, message, capsys):
    assert cli.main(["serve", *options]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"barley serve: error: {message}") and error.count("\n") == 1


def test_a_model_without_a_parser_is_refused_in_one_line(tmp_path, capsys):
    toy_treebank(tmp_path / "train.conllu", 60, seed=1)
    tagger = Pipeline.train(str(tmp_path / "train.conllu"), ["tag"], jackknife=None, log=lambda m: None)
    tagger.save(str(tmp_path / "tagger.barley"))
    assert cli.main(["serve", "--model", str(tmp_path / "tagger.barley")]) == 2
    error = capsys.readouterr().err
    assert error == (f"barley serve: error: {tmp_path / 'tagger.barley'}: the model has no parser (its components: "
                     "tag), so barley serve cannot parse with it (it tags words with UPOS, XPOS, FEATS and LEMMA: run "
                     f"it with `barley tag -m {tmp_path / 'tagger.barley'}`)\n")
    with pytest.raises(BarleyError, match=r"its components: tokenize\).* run it with `barley tokenize -m t\.barley`"):
        require_component(["tokenize"], "parse", "t.barley")
    require_component(["tokenize", "parse"], "parse", "p.barley")


def test_a_bug_is_a_json_500_and_a_traceback_in_the_log(service):
    """No client input reaches this (the sweep above); a bug in the service would: it still answers JSON."""
    import asyncio

    from barley.service.app import create_app
    from barley.service.models import ModelRegistry

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    registry = ModelRegistry([("toy", str(service.folder / "toy.barley"))])
    registry.models["toy"].pipeline.parse = broken
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/parse", "raw_path": b"/parse", "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1:8080"), (b"content-type", b"text/plain")],
             "server": ("127.0.0.1", 8080), "client": ("127.0.0.1", 40000)}
    requests = [{"type": "http.request", "body": one_sentence(service.folder).encode(), "more_body": False}]
    sent = []

    async def receive():
        return requests.pop(0) if requests else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    with pytest.raises(RuntimeError, match="a bug"):  # re-raised for the server to log
        asyncio.run(create_app(registry)(scope, receive, send))
    assert sent[0]["status"] == 500 and (b"x-frame-options", b"DENY") in sent[0]["headers"]
    assert json.loads(sent[1]["body"]) == {"error": "internal error (RuntimeError): please report it with the request"}
