"""``barley serve`` against its targets: one-sentence latency after warm-up (target ≤ 50 ms) and
words/s on large requests against the CLI's (target ≥ 95 %).

Starts ``barley serve`` on 127.0.0.1 (a free port) with MODEL, then:

- latency: WARMUP one-sentence requests, then REQUESTS more, one at a time; prints the
  median, 95th percentile and maximum, client side (HTTP, JSON, parsing);
- throughput: FILE (blanked HEAD/DEPREL) sent whole as one request, ROUNDS times, and
  the same parse in this process the way ``barley parse`` does it (read, parse,
  write; the model already loaded, as the server's is); prints words/s of both (best
  round) and their ratio. ``barley parse``'s own figure (model loading included) is
  printed beside them.

    python bench/bench_serve.py --model ewt.barley --file ../shared/data/ud/UD_English-EWT/en_ewt-ud-test.conllu
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from barley.conllu import read, read_bytes, write
from barley.parser import load
from barley.service.process import start_server


def blanked(path: str) -> str:
    out = []
    for sentence in read(path):
        sentence = sentence.copy()
        sentence.set_tree([-1] * (len(sentence) + 1), [""] * (len(sentence) + 1))
        for word in sentence.words:
            word[6] = word[7] = "_"
        out.append(sentence.to_text())
    return "".join(out)


def post(url: str, data: str, raw: bool = False) -> tuple[dict, float]:
    """The answer and the server's own time for it (its Server-Timing header), in seconds. The data goes
    in a JSON object, or ``raw`` as the body itself (as ``curl --data-binary @file`` sends a file)."""
    if raw:
        request = urllib.request.Request(url + "/parse?input=conllu", data=data.encode(),
                                         headers={"Content-Type": "text/plain; charset=utf-8"})
    else:
        body = json.dumps({"data": data, "input": "conllu"}).encode()
        request = urllib.request.Request(url + "/parse", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as answer:
        server = float(answer.headers["Server-Timing"].partition("dur=")[2]) / 1000
        return json.loads(answer.read()), server


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--model", required=True)
    options.add_argument("--file", required=True, help="CoNLL-U file to parse (its trees are blanked first)")
    options.add_argument("--warmup", type=int, default=20)
    options.add_argument("--requests", type=int, default=200)
    options.add_argument("--rounds", type=int, default=5)
    args = options.parse_args()

    text = blanked(args.file)
    sentences = text.split("\n\n")[:-1]
    words = sum(1 for line in text.splitlines() if line and line.split("\t")[0].isdigit())
    try:
        server, url = start_server(["--model", args.model, "--max-request-bytes", str(1 << 30)], timeout=120,
                                   stderr=subprocess.DEVNULL)
    except RuntimeError as error:
        raise SystemExit(str(error)) from None
    try:
        one = [s + "\n\n" for s in sentences if 15 <= s.count("\n") <= 30][:50] or [sentences[0] + "\n\n"]
        for k in range(args.warmup):
            post(url, one[k % len(one)])
        latencies = []
        for k in range(args.requests):
            started = time.perf_counter()
            post(url, one[k % len(one)])
            latencies.append(1000 * (time.perf_counter() - started))
        latencies.sort()
        parser = load(args.model)
        for k in range(args.warmup):
            list(parser.parse([next(read_bytes(one[k % len(one)].encode()))]))
        floor = []
        for k in range(args.requests):
            started = time.perf_counter()
            list(parser.parse([next(read_bytes(one[k % len(one)].encode()))]))
            floor.append(1000 * (time.perf_counter() - started))
        print(f"one-sentence requests (15-30 words), after {args.warmup} warm-up: median "
              f"{statistics.median(latencies):.1f} ms, p95 {latencies[int(0.95 * len(latencies)) - 1]:.1f} ms, "
              f"max {latencies[-1]:.1f} ms over {len(latencies)} requests (target ≤ 50 ms); "
              f"the parser alone, in this process: median {statistics.median(floor):.1f} ms")

        # rounds interleaved, best of each kept: the machine may be shared, and its load changes
        service, raw_service, server_side, cli = [], [], [], []
        with tempfile.TemporaryDirectory() as folder:
            source = os.path.join(folder, "in.conllu")
            with open(source, "w", encoding="utf-8") as handle:
                handle.write(text)
            for _ in range(args.rounds):
                for raw, times in ((False, service), (True, raw_service)):
                    started = time.perf_counter()
                    answer, seconds = post(url, text, raw)
                    times.append(time.perf_counter() - started)
                    server_side.append(seconds)
                    assert len(answer["sentences"]) == len(sentences)
                started = time.perf_counter()
                write(parser.parse(read(source)), os.path.join(folder, "out.conllu"))
                cli.append(time.perf_counter() - started)
            command = subprocess.run([sys.executable, "-m", "barley", "parse", "--model", args.model, source, "-o",
                                      os.path.join(folder, "out.conllu")], capture_output=True, text=True)
        service_rate, raw_rate, cli_rate = words / min(service), words / min(raw_service), words / min(cli)
        print(f"large request: {len(sentences)} sentences, {words} words, {len(text.encode()) / 1e6:.1f} MB")
        server_rate = words / min(server_side)
        print(f"  service, one POST /parse, client side (HTTP, JSON both ways): {service_rate:,.0f} words/s")
        print(f"  the same with the data as the body (text/plain), client side: {raw_rate:,.0f} words/s")
        print(f"  service, server side (Server-Timing: read, parse, answer):     {server_rate:,.0f} words/s")
        print(f"  CLI parse loop (read, parse, write; model loaded):            {cli_rate:,.0f} words/s")
        print(f"  ratio to the CLI: client side {100 * service_rate / cli_rate:.1f} % (JSON), "
              f"{100 * raw_rate / cli_rate:.1f} % (raw body), server side "
              f"{100 * server_rate / cli_rate:.1f} % (target ≥ 95 %)")
        print(f"  barley parse, whole command (model loading included): {command.stderr.strip()}")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
