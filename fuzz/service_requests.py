"""A structure-aware fuzzer of ``barley serve``'s requests: the service's ASGI app, in this process,
with a tiny model, asked by hypothesis-generated requests.

Requests: methods (GET, POST, HEAD, OPTIONS, PUT, DELETE, PATCH) on the service's paths and others;
query strings of known, unknown and repeated fields; bodies as JSON text written by hand (objects
with known, unknown and duplicate keys, values of the wrong type, numbers of thousands of digits,
nested lists, arrays and scalars for the object), as form data (many, empty and unknown fields),
as multipart form data (parts empty, unnamed, repeated, unknown; a missing or wrong boundary) and as
raw bytes; odd headers (a second Host, another Host, an Origin, values of up to 100,000 bytes).
The property: every request is answered within :data:`REQUEST_SECONDS`, with a status below 500;
an error (4xx) with the service's ``{"error": MESSAGE}``, MESSAGE one line; a 200 of ``POST /parse``
with a result that reads as CoNLL-U.

    python fuzz/service_requests.py --examples 100000 --seed 1    # the long run (one core)
    (tests/test_fuzz.py runs a short one)

Not generated (the HTTP client in the process, httpx, cannot send them; tests/test_serve_contract.py
sends them over a socket): absolute-form targets, malformed request lines, bodies that never end.
"""

from __future__ import annotations

import json
import os
import sys
import time
from urllib.parse import urlencode

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import targets  # noqa: E402

REQUEST_SECONDS = 30
"""A request not answered by then is a hang."""
FIELDS = ["data", "input", "model", "draw", "nbest", "keep_arcs", "strict_arcs", "forbid", "valid_ud"]
SENTENCE = "1\tthe\tthe\tDET\tDT\t_\t_\t_\t_\t_\n2\tdog\tdog\tNOUN\tNN\t_\t_\t_\t_\t_\n3\truns\trun\tVERB\tVB\t_\t_\t_\t_\t_\n\n"
TEXT_VALUES = st.one_of(st.sampled_from([SENTENCE, SENTENCE * 3, "", "conllu", "text", "tokenized", "toy", "nothing",
                                         "true", "false", "1", "0", "-1", "101", "9" * 5000, "1 2 3\n", "\ufeff",
                                         "\x00", "é", "a\nb", "1\t" * 20 + "\n\n", SENTENCE.replace("\t", " ")]),
                        st.text(max_size=30))
RAW_JSON = st.one_of(TEXT_VALUES.map(json.dumps),
                     st.sampled_from(["true", "false", "null", "0", "-0", "1", "3", "100", "101", "-5", "1.5", "1e999",
                                      "-1e999", "9" * 4300, "9" * 5000, "-" + "9" * 10000, "0.0000001", "[]", "{}",
                                      '["a"]', "[[[[[]]]]]", "[" * 2000 + "]" * 2000, '{"data": "x"}', '"\\ud800"']),
                     st.integers().map(str))
JSON_OBJECT = st.lists(st.tuples(st.one_of(st.sampled_from(FIELDS), st.text(max_size=8)), RAW_JSON),
                       max_size=6).map(lambda pairs: "{" + ",".join(f"{json.dumps(key)}:{value}"
                                                                    for key, value in pairs) + "}")
PAIRS = st.lists(st.tuples(st.one_of(st.sampled_from(FIELDS), st.text(max_size=8)), TEXT_VALUES), max_size=8)


def _multipart(parts: list[tuple[str | None, str | None, str]], boundary: str) -> bytes:
    body = []
    for name, filename, value in parts:
        disposition = "form-data" + (f'; name="{name}"' if name is not None else "") + (
            f'; filename="{filename}"' if filename is not None else "")
        body.append(f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n{value}\r\n")
    return ("".join(body) + f"--{boundary}--\r\n").encode("utf-8", "surrogatepass")


BODIES = st.one_of(
    JSON_OBJECT.map(lambda text: ("application/json", text.encode("utf-8", "surrogatepass"))),
    RAW_JSON.map(lambda text: ("application/json", text.encode("utf-8", "surrogatepass"))),
    PAIRS.map(lambda pairs: ("application/x-www-form-urlencoded", urlencode(pairs).encode())),
    st.tuples(st.lists(st.tuples(st.none() | st.sampled_from(FIELDS) | st.text(max_size=5),
                                 st.none() | st.just("in.conllu"), TEXT_VALUES), max_size=5),
              st.sampled_from(["b0undary", "x", ""]), st.sampled_from(["b0undary", "other", ""]))
    .map(lambda case: (f"multipart/form-data; boundary={case[1]}", _multipart(case[0], case[2]))),
    st.tuples(st.sampled_from(["text/plain", "", "application/octet-stream", "application/json; charset=latin-1",
                               "multipart/form-data", "APPLICATION/JSON"]),
              st.binary(max_size=200) | TEXT_VALUES.map(lambda text: text.encode("utf-8", "surrogatepass"))),
)
HEADERS = st.lists(st.sampled_from([("host", "127.0.0.1:8080"), ("host", "evil.example"), ("host", "localhost:8080"),
                                    ("origin", "http://evil.example"), ("origin", "http://127.0.0.1:8080"),
                                    ("x-long", "a" * 100_000), ("x-long", "a" * 10_000), ("accept", "*/*"),
                                    ("cookie", "a=b"), ("content-encoding", "gzip")]), max_size=3)
REQUESTS = st.fixed_dictionaries({
    "method": st.sampled_from(["POST", "POST", "POST", "GET", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"]),
    "path": st.sampled_from(["/parse", "/parse", "/parse", "/models", "/", "/openapi.json", "/nothing", "/parse/",
                             "//parse", "/%00", "/parse%0a", "/" + "a" * 5000]),
    "query": PAIRS.map(urlencode), "body": BODIES, "headers": HEADERS})

_CLIENT = None


def client():
    """A TestClient of the service's app with a tiny model and small limits (made once per process)."""
    global _CLIENT
    if _CLIENT is None:
        from starlette.testclient import TestClient

        from barley.service.app import create_app
        from barley.service.limits import Limits
        from barley.service.models import ModelRegistry

        targets.seeds("model")
        path = targets._scratch("service.barley", targets.SEED_MODEL)
        limits = Limits(max_request_bytes=100_000, max_sentence_words=20, max_request_words=100)
        _CLIENT = TestClient(create_app(ModelRegistry([("toy", path)]), limits), base_url="http://127.0.0.1:8080",
                             raise_server_exceptions=False)
    return _CLIENT


def check(request: dict) -> str:
    """One request: answered in time, under 500, an error as one line of JSON. Returns the status's class."""
    from barley.conllu import read_bytes

    content_type, body = request["body"]
    headers = [("content-type", content_type)] + request["headers"] if content_type else request["headers"]
    url = request["path"] + (f"?{request['query']}" if request["query"] else "")
    started = time.perf_counter()
    with targets.bounded(REQUEST_SECONDS):
        answer = client().request(request["method"], url, content=body if request["method"] != "GET" else None,
                                  headers=headers)
    assert time.perf_counter() - started < REQUEST_SECONDS
    if request["method"] == "HEAD" and request["path"] in ("/", "/models"):
        assert answer.status_code in (200, 400, 403, 431), answer.status_code  # as GET answers, or a header refused
    if (content_type == "application/json" and request["method"] == "POST" and request["path"] == "/parse"
            and _duplicate_keys(body)):
        assert answer.status_code == 400, (answer.status_code, body[:300])
    assert answer.status_code < 500, (answer.status_code, answer.text[:500])
    if answer.status_code >= 400 and request["method"] != "HEAD":
        message = answer.json()["error"]
        assert isinstance(message, str) and message and "\n" not in message and "\r" not in message, message
    elif answer.status_code == 200 and request["method"] == "POST" and request["path"] == "/parse":
        result = answer.json()["result"]
        list(read_bytes(result.encode("utf-8"), "result.conllu"))
    return f"{answer.status_code // 100}xx"


def _duplicate_keys(body: bytes) -> bool:
    """Whether ``body`` is a JSON object that gives a key twice."""
    def pairs(items):
        keys = [key for key, _ in items]
        if len(set(keys)) < len(keys):
            raise KeyError("duplicate")
        return dict(items)

    try:
        json.loads(body, object_pairs_hook=pairs)
    except KeyError:
        return True
    except (ValueError, RecursionError):
        return False
    return False


def fuzz(examples: int, run_seed: int, counts: dict | None = None) -> dict[str, int]:
    """Send ``examples`` requests (hypothesis; a finding raises with the request that shows it, shrunk)."""
    counts = {} if counts is None else counts
    client()

    @seed(run_seed)
    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(REQUESTS)
    def run(request):
        outcome = check(request)
        counts[outcome] = counts.get(outcome, 0) + 1

    run()
    return counts


if __name__ == "__main__":
    targets.long_run(fuzz, __doc__.splitlines()[0], 100_000, "requests")
