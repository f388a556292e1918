"""``barley serve`` against its targets: the page's first parse (target ≤ 100 ms), one-sentence latency
after warm-up (target ≤ 50 ms), words/s
on large requests against the CLI's (target ≥ 95 %), many clients at once, and the worst requests
the default limits allow (target: each answered within about 5 s).

Starts ``barley serve`` on 127.0.0.1 (a free port) with MODEL, then:

- first parse: as soon as the server answers (the model loaded), the request the web page sends
  for its example sentence (text when the model has a tokenizer, else CoNLL-U; drawn), timed
  client side; and, where chromium, chromedriver and selenium are installed, the page itself
  opened in headless chromium and its parse button pressed (the time the page shows);
- latency: WARMUP one-sentence requests, then REQUESTS more, one at a time; prints the
  median, 95th percentile and maximum, client side (HTTP, JSON, parsing);
- throughput: FILE (blanked HEAD/DEPREL) sent whole as one request, ROUNDS times, and
  the same parse in this process the way ``barley parse`` does it (read, parse,
  write; the model already loaded, as the server's is); prints words/s of both (best
  round) and their ratio. ``barley parse``'s own figure (model loading included) is
  printed beside them;
- concurrency: 200 one-sentence requests from 20 clients at once; prints the time and
  requests/s (every answer is checked against the sequential one);
- limits: a second server with the default limits (:class:`barley.service.limits.Limits`);
  prints the time (client side) and the server's CPU time of the largest requests they allow
  (the most words per request, in 20-word sentences and in the longest sentences the pairs of
  words allow; words of FILE with only their forms kept, so the pipeline tags and lemmatizes
  them too), each without and with the drawings, of the most words of random letters as long as
  the characters per request allow, of the longest text allowed (FILE's text,
  ``--max-text-chars`` characters), of a one-sentence request sent while the largest one is
  parsed (target ≤ 1 s), and of two refused ones (a 5,000-word sentence; the most words in
  sentences of the most words, over the pairs); then the server's peak resident memory
  (target ≤ 1 GB).
  ``--limits-only`` runs this part alone.

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
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from barley.conllu import read, read_bytes, write
from barley.pipeline import Pipeline
from barley.service.limits import Limits
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


def forms_only(path: str, words: int, per_sentence: int) -> str:
    """``words`` words of the file (its forms, cycled) in sentences of ``per_sentence``, every other column ``_``."""
    forms = [word[1] for sentence in read(path) for word in sentence.words]
    sentences = []
    for start in range(0, words, per_sentence):
        sentences.append("".join(f"{i}\t{forms[(start + i) % len(forms)]}\t_\t_\t_\t_\t_\t_\t_\t_\n"
                                 for i in range(1, min(per_sentence, words - start) + 1)) + "\n")
    return "".join(sentences)


def text_of(path: str, characters: int) -> str:
    """The text of the file's ``# text`` comments, one sentence a line, up to ``characters`` characters
    besides whitespace."""
    lines, count = [], 0
    for sentence in read(path):
        line = next((c[len("# text = "):] for c in sentence.comments if c.startswith("# text = ")), None)
        if line is None:
            continue
        size = len("".join(line.split()))
        if count + size > characters:
            break
        lines.append(line)
        count += size
    return "\n".join(lines) + "\n"


def peak_memory(pid: int) -> float:
    """The peak resident memory of process ``pid`` (MB, from /proc), NaN where there is no /proc."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM:"))
    except OSError:
        return float("nan")


def timed_post(url: str, data: str, draw: bool, input: str = "conllu") -> tuple[int, float]:
    """The status and the seconds of one request (client side)."""
    request = urllib.request.Request(url + f"/parse?draw={str(draw).lower()}&input={input}", data=data.encode(),
                                     headers={"Content-Type": "text/plain; charset=utf-8"})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=600) as answer:
            answer.read()
            status = answer.status
    except urllib.error.HTTPError as error:
        error.read()
        status = error.code
    return status, time.perf_counter() - started


def first_parse(model: str) -> None:
    """The page's first parse after the model is loaded: its request from a client, then from the page."""
    from barley.service.page import EXAMPLES

    server, url = start_server(["--model", model], timeout=120, stderr=subprocess.DEVNULL)
    try:
        with urllib.request.urlopen(url + "/models", timeout=60) as answer:
            input_format = json.loads(answer.read())["models"][0]["input_formats"][0]
        body = json.dumps({"data": EXAMPLES[input_format], "input": input_format, "draw": True}).encode()
        started = time.perf_counter()
        with urllib.request.urlopen(urllib.request.Request(url + "/parse", data=body, headers={
                "Content-Type": "application/json"}), timeout=60) as answer:
            answer.read()
        print(f"first parse after loading, the page's request (one sentence, {input_format}, drawn): "
              f"{1000 * (time.perf_counter() - started):.1f} ms (target ≤ 100 ms)")
        in_the_page(url)
    finally:
        server.terminate()
        server.wait(timeout=10)


def in_the_page(url: str) -> None:
    """The first parse of the page opened in headless chromium: the time its status line shows
    (from pressing parse to the trees drawn)."""
    import shutil

    try:
        from selenium import webdriver
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        print("  (the page in chromium: not measured, selenium is not installed)")
        return
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        print("  (the page in chromium: not measured, chromium or chromedriver is not installed)")
        return
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    browser = webdriver.Chrome(options=options,
                               service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")))
    try:
        browser.get(url + "/")
        WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#input option"))
        browser.find_element(By.ID, "parse").click()
        WebDriverWait(browser, 30).until(lambda b: " ms" in b.find_element(By.ID, "status").text)
        print(f"  the same in the page, headless chromium (its status line): {browser.find_element(By.ID, 'status').text}")
    finally:
        browser.quit()


def cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used (user + system, seconds, from /proc), NaN where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def long_sentences(path: str, limits: Limits) -> str:
    """The request of the longest sentences the limits allow: sentences of the most words per sentence while
    the pairs of words allow, then the rest of the words in sentences as long as the pairs left allow."""
    longest = limits.max_sentence_words
    full = min(limits.max_word_pairs // longest ** 2, limits.max_request_words // longest)
    words = limits.max_request_words - full * longest
    per_sentence = max(1, min(longest, (limits.max_word_pairs - full * longest ** 2) // max(words, 1)))
    return forms_only(path, full * longest, longest) + forms_only(path, words, per_sentence)


def long_words(limits: Limits) -> str:
    """The most words allowed, of random lowercase letters as long as the characters per request allow, in
    sentences of 20."""
    import random

    letters = random.Random(1)
    size = max(1, limits.max_request_chars // limits.max_request_words)
    forms = ["".join(letters.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(size))
             for _ in range(limits.max_request_words)]
    return "".join("".join(f"{i + 1}\t{form}\t_\t_\t_\t_\t_\t_\t_\t_\n" for i, form in enumerate(forms[start:start + 20]))
                   + "\n" for start in range(0, len(forms), 20))


def at_the_limits(model: str, path: str) -> None:
    limits = Limits()
    server, url = start_server(["--model", model], timeout=120, stderr=subprocess.DEVNULL)

    def timed(what: str, data: str, draw: bool = False, input: str = "conllu") -> None:
        before = cpu_seconds(server.pid)
        status, seconds = timed_post(url, data, draw, input)
        print(f"  {what}{', drawn' if draw else ''}: {seconds:.2f} s, the server's CPU {cpu_seconds(server.pid) - before:.2f} s "
              f"(status {status})")

    try:
        print(f"requests at the default limits ({limits.max_request_words} words per request, "
              f"{limits.max_sentence_words} per sentence, {limits.max_word_pairs} pairs of words, "
              f"{limits.max_request_chars} characters; forms only, so tagged and lemmatized too; target ≤ 5 s):")
        timed(f"{limits.max_request_words} words in sentences of 1", forms_only(path, limits.max_request_words, 1))
        for draw in (False, True):
            timed(f"{limits.max_request_words} words in sentences of 20", forms_only(path, limits.max_request_words, 20),
                  draw)
            data = long_sentences(path, limits)
            timed(f"{limits.max_request_words} words in the longest sentences allowed "
                  f"({sorted({len(block.splitlines()) for block in data.split(chr(10) * 2) if block}, reverse=True)} "
                  "words)", data, draw)
        timed(f"{limits.max_request_words} words of {limits.max_request_chars // limits.max_request_words} random "
              "letters", long_words(limits))
        text = text_of(path, limits.max_text_chars)
        timed(f"the longest text allowed ({limits.max_text_chars} characters besides whitespace, "
              f"{len(text.split())} tokens, input text)", text, input="text")
        largest, small = forms_only(path, limits.max_request_words, 20), forms_only(path, 20, 20)
        answered = {}
        with ThreadPoolExecutor(max_workers=1) as pool:
            running = pool.submit(timed_post, url, largest, False)
            time.sleep(0.5)
            answered["small"] = timed_post(url, small, False)
            answered["large"] = running.result()
        print(f"  a 20-word request sent 0.5 s into the largest one: {answered['small'][1]:.2f} s (status "
              f"{answered['small'][0]}; target ≤ 1 s); the largest took {answered['large'][1]:.2f} s")
        timed("one sentence of 5000 words", forms_only(path, 5000, 5000), True)
        timed(f"{limits.max_request_words} words in sentences of {limits.max_sentence_words} (over the pairs)",
              forms_only(path, limits.max_request_words, limits.max_sentence_words))
        print(f"  the server's peak resident memory: {peak_memory(server.pid):.0f} MB (target ≤ 1 GB)")
    finally:
        server.terminate()
        server.wait(timeout=10)


def concurrently(url: str, one: list[str], requests: int = 200, clients: int = 20) -> None:
    expected = [post(url, text)[0]["result"] for text in one]
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        answers = list(pool.map(lambda k: post(url, one[k % len(one)])[0], range(requests)))
    seconds = time.perf_counter() - started
    assert all(answer["result"] == expected[k % len(one)] for k, answer in enumerate(answers))
    print(f"{requests} one-sentence requests from {clients} clients at once: {seconds:.2f} s, "
          f"{requests / seconds:.0f} requests/s")


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
    options.add_argument("--limits-only", action="store_true", help="only the requests at the default limits")
    args = options.parse_args()
    if args.limits_only:
        return at_the_limits(args.model, args.file)

    first_parse(args.model)
    text = blanked(args.file)
    sentences = text.split("\n\n")[:-1]
    words = sum(1 for line in text.splitlines() if line and line.split("\t")[0].isdigit())
    try:
        server, url = start_server(["--model", args.model, "--max-request-bytes", str(1 << 30), "--max-request-words",
                                    str(1 << 30)], timeout=120, stderr=subprocess.DEVNULL)
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
        parser = Pipeline.load(args.model)
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
        concurrently(url, one)

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
    at_the_limits(args.model, args.file)


if __name__ == "__main__":
    main()
