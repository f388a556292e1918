"""``barley serve`` as a person uses it: a server started on 127.0.0.1 (a free port), the REST API
through an HTTP client, 200 requests 20 at a time, and the web page in headless chromium, under
its own Content-Security-Policy; CoNLL-U with a toy model, and text typed into the page with the
shipped model. (How long the requests take: bench/bench_serve.py.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="barley serve needs the serve extra: pip install -e '.[serve]' in barley's checkout")
pytest.importorskip("uvicorn", reason="barley serve needs the serve extra: pip install -e '.[serve]' in barley's checkout")

from fixed_grammar import toy_treebank  # noqa: E402

from barley import cli  # noqa: E402
from barley.conllu import read  # noqa: E402
from barley.kinds import train  # noqa: E402
from barley.service.process import start_server  # noqa: E402

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

LIMIT = 200_000  # --max-request-bytes of the test server


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A model trained on the toy language, a test file, and a running server (its base URL)."""
    folder = tmp_path_factory.mktemp("serve")
    toy_treebank(folder / "train.conllu", 120, seed=1)
    toy_treebank(folder / "test.conllu", 40, seed=2)
    train(str(folder / "train.conllu"), system="arc-eager", log=lambda message: None).save(str(folder / "toy.barley"))
    workdir = folder / "cwd"
    workdir.mkdir()
    try:
        server, url = start_server(["--model", f"toy={folder / 'toy.barley'}", "--max-request-bytes", str(LIMIT)],
                                   timeout=30, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except RuntimeError as error:
        pytest.fail(str(error))
    yield folder, url, workdir
    server.terminate()
    server.wait(timeout=10)


def request(url: str, body: bytes | None = None, content_type: str = "application/json") -> tuple[int, dict]:
    """(status, JSON answer) of a GET (no body) or POST."""
    headers = {"Content-Type": content_type} if body is not None else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers), timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def post_json(url: str, **fields) -> tuple[int, dict]:
    return request(url + "/parse", json.dumps(fields).encode())


def _unparsed(path: Path) -> str:
    """The file with HEAD and DEPREL blanked (what a user sends to be parsed)."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        columns = line.split("\t")
        if len(columns) == 10:
            columns[6:8] = ["_", "_"]
        lines.append("\t".join(columns))
    return "\n".join(lines) + "\n"


def test_parse_answers_like_the_cli(served, tmp_path, capsys):
    folder, url, _ = served
    status, answer = post_json(url, data=_unparsed(folder / "test.conllu"), input="conllu")
    assert status == 200 and answer["model"] == "toy"
    unparsed = tmp_path / "in.conllu"
    unparsed.write_text(_unparsed(folder / "test.conllu"), encoding="utf-8")
    assert cli.main(["parse", "--model", str(folder / "toy.barley"), str(unparsed), "-o", str(tmp_path / "out.conllu"),
                     "-q"]) == 0
    assert answer["result"] == (tmp_path / "out.conllu").read_text(encoding="utf-8")
    assert answer["result"] == (folder / "test.conllu").read_text(encoding="utf-8")  # the toy language is learnt
    first = answer["sentences"][0]
    gold = next(read(folder / "test.conllu"))
    assert first["sent_id"] == gold.sent_id
    head, deprel = answer["columns"].index("head"), answer["columns"].index("deprel")
    assert first["tokens"] == gold.rows and first["comments"] == gold.comments
    assert [int(token[head]) for token in first["tokens"]] == gold.heads().tolist()[1:]
    assert [token[deprel] for token in first["tokens"]] == gold.deprels()[1:]


def test_form_upload_raw_body_and_drawings(served):
    folder, url, _ = served
    data = _unparsed(folder / "test.conllu").encode()
    boundary = "barleyboundary"
    multipart = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"data\"; filename=\"in.conllu\"\r\n"
                 f"Content-Type: text/plain\r\n\r\n").encode() + data + \
        f"\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"draw\"\r\n\r\ntrue\r\n--{boundary}--\r\n".encode()
    status, uploaded = request(url + "/parse", multipart, f"multipart/form-data; boundary={boundary}")
    assert status == 200 and len(uploaded["svg"]) == 40 and uploaded["svg"][0].startswith("<svg")
    status, raw = request(url + "/parse?model=toy", data, "text/plain")
    assert status == 200 and raw["result"] == uploaded["result"] and "svg" not in raw


def test_models_and_openapi(served):
    _, url, _ = served
    status, models = request(url + "/models")
    assert status == 200 and models["default_model"] == "toy" and models["input_formats"] == ["conllu"]
    assert models["models"][0]["system"] == "arc-eager" and models["models"][0]["training"]["sentences"] == 120
    status, spec = request(url + "/openapi.json")
    assert status == 200 and {"/parse", "/models"} <= set(spec["paths"])
    assert "application/json" in spec["paths"]["/parse"]["post"]["requestBody"]["content"]
    with urllib.request.urlopen(url + "/", timeout=5) as page:
        text = page.read().decode()
    assert 'id="data"' in text and "http" not in text.replace("http://www.w3.org/2000/svg", "")


def test_bad_input_gets_400_with_the_clis_message(served, tmp_path, capsys):
    folder, url, workdir = served
    bad = b"1\tthe\tthe\tDET\t_\t_\t_\t_\t_\t_\n2\tdog\xff\tdog\tNOUN\t_\t_\t_\t_\t_\t_\n"
    (tmp_path / "bad.conllu").write_bytes(bad)
    assert cli.main(["parse", "--model", str(folder / "toy.barley"), str(tmp_path / "bad.conllu"), "-q"]) == 2
    cli_message = capsys.readouterr().err.strip().removeprefix("barley parse: error: ")
    status, answer = request(url + "/parse", bad, "text/plain")
    assert status == 400
    assert answer["error"] == cli_message.replace(str(tmp_path / "bad.conllu"), "<request>")
    assert answer["error"].startswith("<request>:2: invalid UTF-8: byte(s) ff")
    for fields, message in [
        ({"data": "1\tx\n"}, "<request>:1: expected 10 tab-separated columns, found 2"),
        ({"data": "x", "input": "text"}, "input format 'text' is not supported"),
        ({"data": "x", "model": "/etc/passwd"}, "no model called '/etc/passwd' is served"),
        ({"data": "x", "model": "../../toy.barley"}, "no model called"),
        ({"text": "x"}, "the request has a field 'text', which the service does not take"),
        ({"data": 5}, "the field 'data' is a whole number, not a string"),
    ]:
        status, answer = post_json(url, **fields)
        assert status == 400 and answer["error"].startswith(message), answer
    status, answer = request(url + "/parse", b'{"data": "\xff"}')
    assert status == 400 and "not valid UTF-8" in answer["error"]
    status, answer = request(url + "/parse", b'{"data": ')
    assert status == 400 and "not valid JSON" in answer["error"]
    assert list(workdir.iterdir()) == []  # nothing a client sent was written


def _despite_an_early_close(send):
    """``send()``'s result. The server answers 413 and closes as soon as the body passes the
    limit, so the client may still be sending and see a broken pipe or a reset instead of
    the answer: a race of the transport, not an answer; try again (a few times at most)."""
    for _ in range(4):
        try:
            return send()
        except urllib.error.URLError as error:
            if isinstance(error, urllib.error.HTTPError) or not isinstance(
                    error.reason, (BrokenPipeError, ConnectionResetError)):
                raise
        except (BrokenPipeError, ConnectionResetError):
            pass
    return send()


def test_a_request_over_the_limit_gets_413(served):
    _, url, _ = served
    status, answer = _despite_an_early_close(lambda: request(url + "/parse", b"#" * (LIMIT + 1), "text/plain"))
    assert status == 413 and f"larger than the limit of {LIMIT} bytes" in answer["error"]

    def chunks():  # no Content-Length: the limit holds for a streamed body too
        for _ in range(LIMIT // 10_000 + 2):
            yield b"#" * 10_000

    def send_chunked():
        chunked = urllib.request.Request(url + "/parse", data=chunks(), headers={"Content-Type": "text/plain"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(chunked, timeout=30)
        return refused.value.code

    assert _despite_an_early_close(send_chunked) == 413


def test_200_requests_20_at_a_time_all_answered_correctly(served):
    folder, url, _ = served
    gold = (folder / "test.conllu").read_text(encoding="utf-8").split("\n\n")[:-1]
    texts = [sentence + "\n\n" for sentence in gold]
    unparsed = [_unparsed_text(text) for text in texts]
    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(lambda k: post_json(url, data=unparsed[k % len(texts)]), range(200)))
    assert all(status == 200 for status, _ in answers)
    assert all(answer["result"] == texts[k % len(texts)] for k, (_, answer) in enumerate(answers))


def _unparsed_text(text: str) -> str:
    return "\n".join("\t".join(c[:6] + ["_", "_"] + c[8:]) if len(c := line.split("\t")) == 10 else line
                     for line in text.split("\n"))


def test_serve_without_a_model_serves_the_shipped_one_or_says_how_to_give_one(tmp_path, monkeypatch, capsys):
    from barley.models import shipped
    from barley.service.models import model_specs

    assert model_specs(None) == [("en_ewt", shipped.default_model_path())]
    monkeypatch.setattr(shipped, "MODELS_DIR", tmp_path)  # an installation that lost its model
    assert cli.main(["serve"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "default model" in error and "--model FILE" in error


CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")
NEEDS_CHROMIUM = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")


def headless_chromium(webdriver, downloads: Path):
    """Chromium without a window, its console kept (where CSP reports what it blocks), downloading to ``downloads``."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    return webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))


@NEEDS_CHROMIUM
def test_the_page_in_headless_chromium_draws_the_tree(served, request, tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install selenium)")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    folder, url, _ = served
    downloads = tmp_path / "downloads"
    browser = headless_chromium(webdriver, downloads)
    try:
        browser.get(url + "/")
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#input option"))
        assert browser.find_element(By.ID, "input").get_attribute("value") == "conllu"  # a model without tokenizer
        assert [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#input option")] == ["conllu"]
        assert browser.find_element(By.ID, "data").get_attribute("value").startswith("# sent_id = example-1")
        sentence = _unparsed((folder / "test.conllu")).split("\n\n")[0] + "\n"
        box = browser.find_element(By.ID, "data")
        browser.execute_script("arguments[0].value = arguments[1];", box, sentence)
        browser.find_element(By.ID, "parse").click()
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#trees svg.barley-tree"))
        arcs = browser.find_elements(By.CSS_SELECTOR, "#trees svg.barley-tree g.arc")
        words = browser.find_elements(By.CSS_SELECTOR, "#trees svg.barley-tree text.word")
        gold = next(read(folder / "test.conllu"))
        assert len(words) == len(arcs) == len(gold)
        assert sorted((int(a.get_attribute("data-head")), int(a.get_attribute("data-dependent"))) for a in arcs) == \
            sorted((h, d) for d, h in enumerate(gold.heads().tolist()) if d)
        assert browser.find_element(By.ID, "conllu").get_attribute("textContent") == gold.to_text()
        assert browser.find_element(By.ID, "download").get_attribute("href").startswith("blob:")
        browser.find_element(By.ID, "download").click()  # what the download link holds, downloaded
        WebDriverWait(browser, 10).until(lambda b: (downloads / "parsed.conllu").exists())
        assert (downloads / "parsed.conllu").read_text(encoding="utf-8") == gold.to_text()
        shots = Path(os.environ.get("BARLEY_TEST_ARTEFACTS", request.config.rootpath / "test-artefacts"))
        shots.mkdir(parents=True, exist_ok=True)
        assert browser.save_screenshot(str(shots / "serve-page.png"))
        browser.execute_script("arguments[0].value = arguments[1];", box, "1\tx\n")
        browser.find_element(By.ID, "parse").click()
        WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "error").text)
        assert browser.find_element(By.ID, "error").text.startswith("<request>:1: expected 10 tab-separated columns")
        # the trees and the CoNLL-U of the parse before are gone: they are not the answer to this one
        assert not browser.find_elements(By.CSS_SELECTOR, "#trees *")
        assert not browser.find_element(By.ID, "output").is_displayed()
        assert browser.find_element(By.ID, "conllu").get_attribute("textContent") == ""
        console = [entry["message"] for entry in browser.get_log("browser")]
        assert not [message for message in console if "Content Security Policy" in message], console
        assert browser.execute_script("return document.styleSheets[0].cssRules.length") > 5  # its style applied
    finally:
        browser.quit()


LABELS_APART = """
// per drawing, the labels' boxes of each row (same top) that overlap: none are expected
const found = [];
for (const svg of document.querySelectorAll('svg.barley-tree')) {
  const boxes = [...svg.querySelectorAll('g.label rect')].map(rect => rect.getBoundingClientRect());
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (Math.abs(a.top - b.top) < 1 && a.left < b.right - 0.5 && b.left < a.right - 0.5) found.push([i, j]);
  }
}
return found;
"""


@NEEDS_CHROMIUM
def test_the_page_draws_long_sentences_readably_at_1200_pixels(served, request, tmp_path):
    """The 50 longest sentences of EWT dev (the toy sentences without the shared treebanks): no two labels
    overlap, the page never overflows 1,200 pixels (a wide tree scrolls in its own box), hovering a word
    lights its arcs, the table sorts, and a drawing downloads as SVG and PNG; screenshots in the test's
    artefacts."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install selenium)")
    from conftest import UD_DIR
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    folder, url, _ = served
    dev = UD_DIR / "UD_English-EWT" / "en_ewt-ud-dev.conllu"
    source = dev if dev.is_file() else folder / "test.conllu"
    longest = sorted(read(source), key=len)[-50:]
    data = "".join(_unparsed_text(sentence.to_text()) for sentence in longest)
    downloads = tmp_path / "downloads"
    browser = headless_chromium(webdriver, downloads)
    try:
        browser.get(url + "/")
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#trees svg.barley-tree"))
        browser.execute_script("arguments[0].value = arguments[1];", browser.find_element(By.ID, "data"), data)
        browser.find_element(By.ID, "parse").click()
        WebDriverWait(browser, 60).until(lambda b: len(b.find_elements(By.CSS_SELECTOR, "#trees svg")) == len(longest))
        assert browser.execute_script(LABELS_APART) == []
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 1200
        boxes = browser.find_elements(By.CSS_SELECTOR, "#trees .tree > .scroll")
        widths = [browser.execute_script("return [arguments[0].scrollWidth, arguments[0].clientWidth]", box)
                  for box in boxes]
        assert all(client <= 1200 for _, client in widths)
        if dev.is_file():  # EWT's longest sentences are wider than the page: they scroll in their boxes
            assert any(scroll > client for scroll, client in widths)
        headings = browser.find_elements(By.CSS_SELECTOR, "#trees .tree h3")
        assert len(headings) == len(longest) and not browser.find_elements(By.CSS_SELECTOR, "#trees svg text.title")
        shots = Path(os.environ.get("BARLEY_TEST_ARTEFACTS", request.config.rootpath / "test-artefacts"))
        shots.mkdir(parents=True, exist_ok=True)
        last = browser.find_elements(By.CSS_SELECTOR, "#trees .tree")[-1]
        browser.execute_script("arguments[0].scrollIntoView()", last)
        assert last.screenshot(str(shots / "serve-page-longest.png"))
        word = last.find_element(By.CSS_SELECTOR, "text.word")
        browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('mouseover', {bubbles: true}))", word)
        assert last.find_elements(By.CSS_SELECTOR, "g.arc.focus") and last.find_elements(By.CSS_SELECTOR, "text.word.focus")
        browser.find_element(By.ID, "tables").click()
        table = last.find_element(By.CSS_SELECTOR, "table.conllu")
        assert table.is_displayed() and len(table.find_elements(By.CSS_SELECTOR, "tbody tr")) == len(longest[-1].rows)
        ids = [row[0] for row in longest[-1].rows]
        for clicks, expected in ((1, ids), (1, ids[::-1])):  # by ID as numbers (1-2 before 2, 10 after 9), then back
            table.find_elements(By.CSS_SELECTOR, "th")[0].click()
            cells = [row.find_elements(By.TAG_NAME, "td")[0].text for row in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
            assert [float(c.split("-")[0]) for c in cells] == [float(c.split("-")[0]) for c in expected]
        last.find_element(By.CSS_SELECTOR, "a.svg").click()
        last.find_element(By.CSS_SELECTOR, "a.png").click()
        name = (longest[-1].sent_id or "sentence-50").replace(":", "_")
        WebDriverWait(browser, 20).until(lambda b: len(list(downloads.glob("*.svg"))) and len(list(downloads.glob("*.png"))))
        saved = next(downloads.glob("*.svg"))
        assert saved.read_text(encoding="utf-8").startswith("<svg") and name.split("_")[0] in saved.name
        assert next(downloads.glob("*.png")).read_bytes().startswith(b"\x89PNG")
        browser.find_element(By.ID, "compact").click()  # parses again, drawn compact: narrower
        WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#trees svg")
                                         and "italic" not in b.find_element(By.CSS_SELECTOR, "#trees svg").get_attribute("innerHTML"))
        assert browser.execute_script(LABELS_APART) == []
        browser.save_screenshot(str(shots / "serve-page-compact.png"))
        console = [entry["message"] for entry in browser.get_log("browser")]
        assert not [message for message in console if "Content Security Policy" in message], console
        # the same drawing of the longest sentence's gold tree, as barley show draws it
        page = tmp_path / "longest.html"
        assert _show_html(longest[-1], page) == 0
        browser.get(page.as_uri())
        assert browser.execute_script(LABELS_APART) == []
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 1200
        assert browser.find_element(By.CSS_SELECTOR, "figure").screenshot(str(shots / "show-longest-ewt-dev.png"))
    finally:
        browser.quit()


def _show_html(sentence, page: Path) -> int:
    conllu = page.with_suffix(".conllu")
    conllu.write_text(sentence.to_text(), encoding="utf-8")
    return cli.main(["show", str(conllu), "-f", "html", "-o", str(page)])


def _unparsed_text(text: str) -> str:
    """A sentence's CoNLL-U with HEAD, DEPREL and DEPS blanked."""
    lines = []
    for line in text.splitlines():
        columns = line.split("\t")
        if len(columns) == 10:
            columns[6:9] = ["_", "_", "_"]
        lines.append("\t".join(columns))
    return "\n".join(lines) + "\n\n"


# --- text, with the shipped model (it has a tokenizer) -------------------------------------------

TEXT = "A hearing is scheduled on the issue today. It was moved from Monday.\n"
TEXT_LIMITS = {"--max-sentence-words": 20, "--max-request-words": 60, "--max-word-chars": 30}


@pytest.fixture(scope="module")
def served_text(tmp_path_factory):
    """``barley serve`` without --model (the shipped model, which has a tokenizer), with small word limits."""
    from barley.models import shipped

    try:
        shipped.default_model_path()
    except Exception as error:  # an installation without its model: test_shipped says so
        pytest.skip(str(error))
    workdir = tmp_path_factory.mktemp("serve-text")
    limits = [str(part) for option in TEXT_LIMITS.items() for part in option]
    try:
        server, url = start_server(limits, timeout=120, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except RuntimeError as error:
        pytest.fail(str(error))
    yield url, workdir
    server.terminate()
    server.wait(timeout=10)


def test_text_and_tokenized_text_are_parsed_as_the_cli_parses_them(served_text, tmp_path, capsys):
    url, _ = served_text
    status, models = request(url + "/models")
    assert status == 200 and models["models"][0]["input_formats"] == ["text", "sentences", "tokenized", "conllu"]
    assert models["input_formats"] == ["text", "sentences", "tokenized", "conllu"]
    for input_format, data in [("text", TEXT), ("tokenized", "A hearing is scheduled .\nIt was moved !\n"),
                               ("sentences", "A hearing is scheduled. It was\nmoved!\n")]:
        status, answer = post_json(url, data=data, input=input_format, draw=True)
        assert status == 200 and answer["input"] == input_format, answer
        source = tmp_path / f"{input_format}.txt"
        source.write_text(data, encoding="utf-8")
        assert cli.main(["parse", "--input", input_format, str(source), "-o", str(tmp_path / "out.conllu"), "-q"]) == 0
        assert answer["result"] == (tmp_path / "out.conllu").read_text(encoding="utf-8")
        assert len(answer["sentences"]) == len(answer["svg"]) == 2
    words = [token[1] for token in answer["sentences"][0]["tokens"]]
    assert words == ["A", "hearing", "is", "scheduled", ".", "It", "was"]  # one sentence per line
    status, answer = request(url + "/parse?input=text", TEXT.encode(), "text/plain")  # the raw body, too
    assert status == 200 and len(answer["sentences"]) == 2
    status, answer = post_json(url, data=_unparsed_text("1\tHearing\t_\t_\t_\t_\t_\t_\t_\t_\n\n"))
    assert status == 200 and answer["input"] == "conllu" and answer["input_detected"]  # found as barley parse finds it
    status, answer = post_json(url, data="Some text.")  # no input format given: text, as barley parse reads it
    assert status == 200 and (answer["input"], answer["input_detected"]) == ("text", True), answer
    assert [token[1] for token in answer["sentences"][0]["tokens"]] == ["Some", "text", "."]


def test_text_meets_the_same_guards_after_tokenization(served_text):
    url, workdir = served_text
    long_sentence = " ".join(["word"] * 25) + ".\n"
    status, answer = post_json(url, data=TEXT + long_sentence, input="text")
    assert status == 413 and answer["error"].startswith("<request>: a sentence of 26 words (sentence 3), over the "
                                                        "limit of 20 words per sentence"), answer
    status, answer = post_json(url, data="Short ones here. " * 20, input="text")
    assert status == 413 and "more than 60 words, the limit per request" in answer["error"]
    status, answer = post_json(url, data="A short one. Then a " + "z" * 31 + " word.", input="text")
    assert status == 413 and answer["error"] == (
        "<request>: a word of 31 characters (word 3 of sentence 2), over the limit of 30 characters per word (is it "
        "a word? start barley serve with a larger --max-word-chars to accept it)"), answer
    status, answer = request(url + "/parse?input=text", b"A good start \xff.", "text/plain")
    assert status == 400 and answer["error"].startswith("<request>:1: invalid UTF-8 at byte offset 13: byte(s) ff")
    status, answer = post_json(url, data="x", input="words")
    assert status == 400 and answer["error"].startswith("input format 'words' is not supported by this model")
    assert "text, sentences, tokenized, conllu" in answer["error"]
    status, answer = post_json(url, data="<script>alert(1)</script> & <b>bold</b>.", input="text", draw=True)
    assert status == 200 and "<script>" not in "".join(answer["svg"]) and "&lt;" in "".join(answer["svg"])  # the forms escaped (no title: the text is the client's to show)
    assert list(workdir.iterdir()) == []


def test_a_model_without_tokenizer_refuses_text_and_says_why(served):
    _, url, _ = served
    status, answer = post_json(url, data="A hearing.", input="text")
    assert status == 400 and answer["error"] == (
        "input format 'text' is not supported by this model (it needs a model with a tokenizer) (its input formats "
        "are: conllu (GET /models lists each model's))")


def drawn_words(browser) -> list[str]:
    """The forms of the drawn words (each word's text holds its form, then its tag in a tspan)."""
    return browser.execute_script("return [...document.querySelectorAll('#trees svg.barley-tree text.word')]"
                                  ".map(word => word.firstChild.textContent)")


def test_confidence_is_written_for_one_request_and_shaded_in_its_drawings(served_text):
    url, _ = served_text
    status, answer = post_json(url, data=TEXT, input="text", draw=True, confidence=True)
    assert status == 200, answer
    assert all("HeadProb=" in row[9] for sentence in answer["sentences"] for row in sentence["tokens"])
    assert 'class="confidence"' in "".join(answer["svg"])
    status, plain = post_json(url, data=TEXT, input="text", draw=True)  # the next request without it
    assert status == 200 and "HeadProb" not in plain["result"] and 'class="confidence"' not in "".join(plain["svg"])
    status, refused = post_json(url, data=TEXT, input="text", confidence=True, nbest=2)
    assert status == 400 and "--confidence" in refused["error"]


@NEEDS_CHROMIUM
def test_the_page_opens_on_text_and_draws_the_tree_of_a_typed_sentence(served_text, tmp_path):
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install selenium)")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    url, _ = served_text
    browser = headless_chromium(webdriver, tmp_path)
    try:
        browser.get(url + "/")
        WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#input option"))
        box = browser.find_element(By.ID, "data")
        assert browser.find_element(By.ID, "input").get_attribute("value") == "text"
        assert box.get_attribute("value") == "A hearing is scheduled on the issue today.\n"  # the example
        WebDriverWait(browser, 30).until(lambda b: drawn_words(b) == ["A", "hearing", "is", "scheduled", "on", "the",
                                                                      "issue", "today", "."])  # parsed on opening
        box.clear()
        box.send_keys("The cat sat on the mat.")
        box.send_keys(Keys.CONTROL, Keys.ENTER)  # as the page says: Ctrl+Enter parses
        WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#trees svg.barley-tree"))
        words = drawn_words(browser)
        arcs = browser.find_elements(By.CSS_SELECTOR, "#trees svg.barley-tree g.arc")
        assert words == ["The", "cat", "sat", "on", "the", "mat", "."] and len(arcs) == len(words)
        heads = [int(arc.get_attribute("data-head")) for arc in arcs]
        assert heads.count(0) == 1  # one root: a tree was drawn, not just the words
        assert "sat" in browser.find_element(By.ID, "conllu").get_attribute("textContent")
        Select(browser.find_element(By.ID, "input")).select_by_value("tokenized")
        assert box.get_attribute("value") == "The cat sat on the mat."  # what was typed stays
        box.clear()
        box.send_keys("Dogs bark .")
        browser.find_element(By.ID, "parse").click()
        WebDriverWait(browser, 30).until(lambda b: drawn_words(b) == ["Dogs", "bark", "."])
        box.clear()
        Select(browser.find_element(By.ID, "input")).select_by_value("conllu")
        assert box.get_attribute("value").startswith("# sent_id = example-1")  # an empty box gets the example
        console = [entry["message"] for entry in browser.get_log("browser")]
        assert not [message for message in console if "Content Security Policy" in message], console
    finally:
        browser.quit()


def test_keep_arcs_and_forbid_fields_as_the_cli_options(served, tmp_path, capsys):
    folder, url, _ = served
    lines = _unparsed(folder / "test.conllu").splitlines()
    first = next(k for k, line in enumerate(lines) if line.startswith("1\t"))
    columns = lines[first].split("\t")
    columns[6:8] = ["5", "obj"]  # not what the toy model says (det under the next noun)
    lines[first] = "\t".join(columns)
    data = "\n".join(lines) + "\n"
    status, answer = post_json(url, data=data, keep_arcs=True)
    assert status == 200 and answer["sentences"][0]["tokens"][0][6:8] == ["5", "obj"]
    given = tmp_path / "given.conllu"
    given.write_text(data, encoding="utf-8")
    assert cli.main(["parse", "--model", str(folder / "toy.barley"), str(given), "-o", str(tmp_path / "out.conllu"),
                     "-q", "--keep-arcs"]) == 0
    assert answer["result"] == (tmp_path / "out.conllu").read_text(encoding="utf-8")
    sent_id = answer["sentences"][0]["sent_id"]
    status, answer = post_json(url, data=data, forbid=f"{sent_id} 0 1\nnowhere 0 1\n")
    assert status == 400 and answer["error"] == "<forbid>:2: no sentence with sent_id nowhere in the input " \
                                                "(name the sentences by their '# sent_id' comment)"
    status, answer = post_json(url, data=data, strict_arcs=True)
    assert status == 400 and "strict_arcs applies to the arcs that keep_arcs keeps" in answer["error"]


def test_the_enhanced_field_fills_deps_as_the_cli_option(served, tmp_path, capsys):
    folder, url, _ = served
    data = _unparsed(folder / "test.conllu")
    status, plain = post_json(url, data=data)
    status_enhanced, answer = post_json(url, data=data, enhanced=True)
    assert status == status_enhanced == 200
    deps = answer["columns"].index("deps")
    assert all(token[deps] == "_" for sentence in plain["sentences"] for token in sentence["tokens"])
    assert all(token[deps] != "_" for sentence in answer["sentences"] for token in sentence["tokens"])
    unparsed = tmp_path / "in.conllu"
    unparsed.write_text(data, encoding="utf-8")
    assert cli.main(["parse", "--model", str(folder / "toy.barley"), str(unparsed), "-o", str(tmp_path / "out.conllu"),
                     "-q", "--enhanced"]) == 0
    assert answer["result"] == (tmp_path / "out.conllu").read_text(encoding="utf-8")
    status, answer = post_json(url, data=data, enhanced="yes")
    assert status == 400 and "enhanced" in answer["error"]
