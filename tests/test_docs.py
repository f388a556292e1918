"""The documentation: the site builds with warnings as errors, and every example runs.

Every ``bash``/``sh``/``console`` and ``python`` block of README.md and docs/**/*.md is

- checked: shell blocks with ``bash -n``, every ``barley COMMAND --option ...`` in them with the
  real argument parser (a documented option that does not exist fails), every ``bench/``,
  ``scripts/`` or ``fuzz/`` script they name must exist; Python blocks must compile;
- run, the blocks of one page in order in one temporary folder, unless the Markdown source
  marks the block ``<!-- test: skip (why) -->`` on a line of its own before it (a server, a
  cluster, an installation, hours of training: visible to whoever edits the page). To stay
  within CI's time, the pages of ``SLOW_PAGES`` (neural training) run only with
  ``BARLEY_DOCS_RUN=all``.

What the examples read is made up for them (``fixture``): a file name they use that does not
exist yet gets a small file of its kind: a CoNLL-U treebank of the toy language of
``toy_language.py`` for every ``*.conllu`` (``en_ewt-ud-train.conllu``, ``test.conllu``,
...), plain text for ``*.txt``, a model trained on the toy treebank for a ``*.barley`` no
example before it trains. So the treebank names of the docs stand for tiny files, and
``--epochs N`` runs as ``--epochs 1``: the examples are checked to work, not to be accurate.
A block that reads the shared UD treebanks (``../shared/data/ud``) is skipped when they are
absent.
"""

from __future__ import annotations

import gzip
import html
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import SKIP_UD, UD_DIR
import toy_language

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SHELL = {"bash", "sh", "console", "shell"}
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
MARKER = re.compile(r"^<!-- test: (\S+)(?: \((.+)\))? -->$")
SCRIPT = re.compile(r"\b((?:bench|scripts|fuzz)/[\w/.-]+\.py)\b")


@dataclass
class Block:
    """One fenced code block of a page."""

    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    skip: str | None  # the reason of a `<!-- test: skip (why) -->` marker before it

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    """The fenced blocks of ``page`` in order, with the skip marker each one has."""
    found, lines = [], page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, language, start = opening.group(1), opening.group(2), index
        index += 1
        body = []
        while index < len(lines) and lines[index].strip() != "```":
            body.append(lines[index][len(indent):])
            index += 1
        index += 1
        above = start - 1
        while above >= 0 and not lines[above].strip():
            above -= 1
        marker = MARKER.match(lines[above].strip()) if above >= 0 else None
        if marker:
            assert marker.group(1) == "skip" and marker.group(2), (
                f"{page.relative_to(ROOT)}:{above + 1}: a marker reads <!-- test: skip (why) -->")
        found.append(Block(page, start + 1, language.lower(), "\n".join(body) + "\n",
                           marker.group(2) if marker else None))
    return found


BLOCKS = [block for page in PAGES for block in blocks_of(page)]
SHELL_BLOCKS = [block for block in BLOCKS if block.language in SHELL]
PYTHON_BLOCKS = [block for block in BLOCKS if block.language == "python"]


def test_site_builds_strictly(tmp_path):
    """`mkdocs build --strict`: a broken link or anchor, a page left out of the nav, or a
    docstring the API reference cannot render fails the build."""
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install -e '.[docs]'")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed: pip install -e '.[docs]'")
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                           cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    assert api.count("Pipeline") > 1
    # the docstrings' reST is rendered (docs/griffe_rest.py): no raw role, no reST literal, and code blocks
    # only where a docstring has one (a paragraph ending in "::")
    text = html.unescape(re.sub(r"<[^>]+>", "", api))
    assert not re.findall(r":(?:func|class|meth|mod|data|attr|exc):", text)
    assert "``" not in text
    assert all("``" not in block and ":class:" not in block
               for block in re.findall(r"<pre><code>(.*?)</code></pre>", api, re.S))
    assert not (tmp_path / "site" / "griffe_rest.py").exists()


def test_the_docstrings_rest_becomes_markdown():
    """docs/griffe_rest.py, the API pages' extension: roles and literals as code, literal blocks fenced."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from griffe_rest import markdown
    finally:
        sys.path.remove(str(ROOT / "docs"))
    docstring = ("Reads :func:`barley.read`'s sentences as :class:`~barley.words.Word` views, see\n"
                 ":meth:`the loader <barley.load>` and ``word.upos``. Example::\n\n    nlp = barley.load(\"en\")\n\n"
                 "Fields:\n\n    ``rows``: every line.\n    ``words``: the words.\n\n```python\nx = ``y``\n```")
    assert markdown(docstring).splitlines() == [
        "Reads `barley.read`'s sentences as `Word` views, see", "`the loader` and `word.upos`. Example:", "",
        "```", 'nlp = barley.load("en")', "```", "", "Fields:", "", "`rows`: every line.", "`words`: the words.", "",
        "```python", "x = ``y``", "```"]


# --- checking every block ---------------------------------------------------------------

REDIRECTION = re.compile(r"(?<!\S)\d*(?:>>?|<|&>)(?:&\d+|\s*[^\s;|&()]+)")


def commands_of(line: str) -> list[list[str]]:
    """The simple commands of one logical line of a shell block as word lists (comments,
    redirections and control operators removed)."""
    lexer = shlex.shlex(REDIRECTION.sub(" ", line), posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    lexer.wordchars += "=*?[]{}~$@%+:,^!<>"
    commands: list[list[str]] = [[]]
    for token in lexer:
        if set(token) <= set(";&|()"):
            commands.append([])
        else:
            commands[-1].append(token)
    return [command for command in commands if command]


def logical_lines(code: str) -> list[str]:
    """The block's lines with continuations joined: each is parsed as commands on its own."""
    return [line for line in code.replace("\\\n", " ").splitlines() if line.strip()]


def barley_commands(code: str) -> list[list[str]]:
    """Every ``barley ...`` command of a shell block, its words after ``barley``."""
    found = []
    for line in logical_lines(code):
        for command in commands_of(line):
            if command[0] == "barley":
                found.append(command[1:])
    return found


@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=[block.where for block in SHELL_BLOCKS])
def test_shell_block_parses(block, capsys):
    """Shell syntax, every barley option against the real parser, every script named exists."""
    from barley.cli import build_parser, command_names

    syntax = subprocess.run(["bash", "-n"], input=block.code, capture_output=True, text=True)
    assert syntax.returncode == 0, f"{block.where}: {syntax.stderr}"
    for words in barley_commands(block.code):
        assert words and (words[0] in command_names() or words[0] in {"--version", "--help"}), (
            f"{block.where}: `barley {' '.join(words)}`: no such command")
        try:
            build_parser(only=words[0]).parse_args(words)
        except SystemExit as exit:
            error = capsys.readouterr().err.strip().splitlines()[-1]
            assert exit.code == 0, f"{block.where}: `barley {shlex.join(words)}`: {error}"
    for script in SCRIPT.findall(block.code):
        assert (ROOT / script).is_file(), f"{block.where}: {script} does not exist"


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[block.where for block in PYTHON_BLOCKS])
def test_python_block_compiles(block):
    compile(block.code, block.where, "exec")


# --- running every block ------------------------------------------------------------------

FILE_WORD = re.compile(r"[\w./@=*-]+?\.(?:conllu\.gz|conllu|conll|txt|vec|barley)\b")
TOY_TREEBANK_SIZES = {"train": 150, "dev": 25}  # sentences; any other treebank: 25


def toy_treebank(name: str) -> str:
    """The toy treebank standing for ``name``: every file but a train or dev file holds the same
    sentences, so that the gold and the parser's output of an example have the same text."""
    part = next((part for part in TOY_TREEBANK_SIZES if part in name), "")
    count = TOY_TREEBANK_SIZES.get(part, 25)
    rng = toy_language.random.Random(part)
    return "".join(toy_language.sentence(rng, number) for number in range(count))


def toy_text(count: int = 12) -> str:
    """Plain text of toy sentences, paragraphs of four separated by blank lines."""
    rng = toy_language.random.Random(7)
    sentences = [line[len("# text = "):] for number in range(count)
                 for line in toy_language.sentence(rng, number).splitlines() if line.startswith("# text = ")]
    return "\n\n".join(" ".join(sentences[at:at + 4]) for at in range(0, count, 4)) + "\n"


def conllx(conllu: str) -> str:
    return "".join(line + "\n" for line in conllu.splitlines() if not line.startswith("#"))


def run_barley(args: list[str], cwd: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "barley.cli", *args], cwd=cwd, capture_output=True, text=True,
                          env=example_environment())
    assert done.returncode == 0, f"making a fixture: barley {shlex.join(args)}: {done.stderr}"


@pytest.fixture(scope="session")
def toy_models(tmp_path_factory) -> dict[str, Path]:
    """Models trained once on the toy treebank: a pipeline from raw text, a first-order
    graph-based parser (k-best), and a tagger alone."""
    folder = tmp_path_factory.mktemp("toy-models")
    (folder / "train.conllu").write_text(toy_treebank("train"), encoding="utf-8")
    recipes = {
        "pipeline": ["--components", "tokenize,tag,parse", "--jackknife", "2"],
        "mst": ["--parser", "graph", "--decoder", "mst", "--epochs", "1"],
        "tagger": ["--components", "tag"],
    }
    models = {}
    for kind, options in recipes.items():
        models[kind] = folder / f"{kind}.barley"
        run_barley(["train", "--train", "train.conllu", *options, "--model", models[kind].name], folder)
    return models


def fixture(word: str, folder: Path, models: dict[str, Path]) -> None:
    """Write a small file for the file name ``word`` of an example if there is none yet."""
    name = word.split("=")[-1].lstrip("@")
    path = folder / name
    if "*" in name and name.endswith(".conllu") and not name.startswith("/"):  # a pattern: one file matches it
        path = folder / name.split("*")[0] / "part" / "toy.conllu"
        path.parent.mkdir(parents=True, exist_ok=True)
        name = path.name
    elif "*" in name or "/" in name or path.exists():  # a file elsewhere (the repository's), or made already
        return
    if name.endswith(".conllu.gz"):
        path.write_bytes(gzip.compress(toy_treebank(name).encode()))
    elif name.endswith(".conllu"):
        path.write_text(toy_treebank(name), encoding="utf-8")
    elif name.endswith(".conll"):
        path.write_text(conllx(toy_treebank(name)), encoding="utf-8")
    elif name == "forbidden.txt":
        path.write_text("# no word hangs from the first word of toy-0\ntoy-0 1 2\n", encoding="utf-8")
    elif name == "my-features.txt":
        features = subprocess.run([sys.executable, "-m", "barley.cli", "features", "--system", "arc-eager"],
                                  capture_output=True, text=True, check=True, env=example_environment())
        path.write_text(features.stdout, encoding="utf-8")
    elif name.endswith(".txt"):
        path.write_text(toy_text(), encoding="utf-8")
    elif name.endswith(".vec"):
        words = sorted({*toy_language.NOUNS, *toy_language.VERBS, *toy_language.DETERMINERS})
        path.write_text(f"{len(words)} 4\n" + "".join(f"{word} 0.1 -0.2 0.3 0.{len(word)}\n" for word in words),
                        encoding="utf-8")
    elif name.endswith(".barley"):
        kind = "mst" if "mst" in name else "tagger" if "tagger" in name else "pipeline"
        shutil.copyfile(models[kind], path)


def trained_here(code: str) -> set[str]:
    """The models a block writes with ``barley train`` or ``barley package``: no fixture for them."""
    written = set()
    for words in barley_commands(code):
        if words[0] == "train":
            for option in ("-m", "--model"):
                if option in words[:-1]:
                    written.add(words[words.index(option) + 1])
    return written


def example_environment() -> dict[str, str]:
    env = dict(os.environ, NO_COLOR="1", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def as_run(code: str) -> str:
    """The block as it runs: each epoch count becomes 1, a console block loses its output."""
    return re.sub(r"--epochs \d+", "--epochs 1", code)


MUST_SKIP = re.compile(r"pip install|barley serve|curl |tcp://|--device cuda|--preset|build_default_model|"
                       r"python bench/|dask-ssh")


def run_example(command: list[str], folder: Path, timeout: float = 300) -> tuple[int, str]:
    """Run one example in its own process group, so that a timeout ends all it started."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errors:  # not a pipe: a long log cannot block it
        process = subprocess.Popen(command, cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=errors, env=example_environment(), start_new_session=True)
        try:
            status = process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            status = process.wait()
            errors.write(f"\nstill running after {timeout} s")
        errors.seek(0)
        return status, errors.read()


@pytest.mark.parametrize("block", BLOCKS, ids=[block.where for block in BLOCKS])
def test_what_cannot_run_here_is_marked(block):
    """An example that installs, serves, reaches a cluster or a GPU, runs a benchmark or an
    experiment on the real treebanks, is marked skip, with its reason, where readers see it."""
    if block.language in SHELL | {"python"} and not block.skip:
        code = block.code if block.language in SHELL else re.sub(r"#.*", "", block.code)  # Python: not its comments
        found = MUST_SKIP.search(code)
        assert not found, f"{block.where}: `{found.group()}`: mark the block <!-- test: skip (why) --> or split it"


# The pages whose examples the test suite leaves to BARLEY_DOCS_RUN=all: neural training takes
# minutes even on the toy treebank (their commands are checked by the tests above all the same).
SLOW_PAGES = {"docs/neural.md"}


def page_ids() -> list[Path]:
    every = os.environ.get("BARLEY_DOCS_RUN") == "all"
    return [page for page in PAGES if (every or str(page.relative_to(ROOT)) not in SLOW_PAGES) and any(
        block.page == page and block.language in SHELL | {"python"} and not block.skip for block in BLOCKS)]


@pytest.mark.parametrize("page", page_ids(), ids=[str(page.relative_to(ROOT)) for page in page_ids()])
def test_examples_run(page, tmp_path, toy_models):
    """Every block of the page not marked skip, in order, in one folder: exit status 0."""
    ran = 0
    for block in (block for block in BLOCKS if block.page == page and block.language in SHELL | {"python"}):
        if block.skip:
            continue
        if "shared/data/ud" in block.code and not UD_DIR.is_dir():
            continue  # SKIP_UD
        if block.language == "console" or block.code.lstrip().startswith("$ "):
            continue  # a transcript: its commands were checked by test_shell_block_parses
        written = trained_here(block.code)
        for word in FILE_WORD.findall(block.code):
            if word.split("=")[-1] not in written:
                fixture(word, tmp_path, toy_models)
        command = ["bash", "-e", "-o", "pipefail", "-c", as_run(block.code)] if block.language in SHELL else [
            sys.executable, "-c", block.code]
        status, errors = run_example(command, tmp_path)
        assert status == 0, f"{block.where}: exit status {status}\n{errors[-3000:]}"
        ran += 1
    if not ran:
        pytest.skip(SKIP_UD)  # every block left needs the shared treebanks
