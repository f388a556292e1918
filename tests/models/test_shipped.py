"""The models that ship inside the package: they load, parse text, are listed and are packaged."""

from __future__ import annotations

import fnmatch
import gzip
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import barley
from barley import cli
from barley.conllu import read_bytes
from barley.errors import InputError
from barley.models import catalog, shipped
from barley.pipeline import Pipeline
from barley.tokenizer import spaces
from barley.tokenizer.reading import guess_input, text_pieces
from barley.tree import check_tree

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

FOX = "The quick brown fox jumps over the lazy dog."
REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def default():
    return Pipeline.load(shipped.default_model_path())


@pytest.mark.parametrize(("name", "components"), [(shipped.DEFAULT, ["tokenize", "joint"]),
                                                  ("en_ewt_linear", ["tokenize", "tag", "parse"])])
def test_each_shipped_model_is_a_whole_pipeline_with_its_card(name, components):
    (model,) = [m for m in catalog.models() if m.name == name]
    card = model.card
    assert card["default"] == (name == shipped.DEFAULT) and card["origin"] == "shipped"
    assert card["components"] == components and card["language_code"] == "en"
    assert catalog.resolve(name) == model.path and catalog.resolve("en") == catalog.resolve(shipped.DEFAULT)
    assert (card["language"], card["treebank"], card["licence"]) == ("English", "UD_English-EWT", "CC BY-SA 4.0")
    assert card["treebank_version"].count(".") == 1 and card["barley_version"] == barley.__version__
    assert card["bytes"] <= 25 * 2**20  # the wheel holds it as it is (already compressed)
    raw = card["scores"]["test_raw_text"]
    assert raw["Tokens"] > 98 and raw["LAS"] > 70 and card["scores"]["dev"]["UPOS"] > 90
    folder = Path(model.path).parent
    assert "CC BY-SA 4.0" in (folder / "README.md").read_text() and card["treebank_version"] in (
        folder / "README.md").read_text()
    assert "Attribution-ShareAlike 4.0 International" in (folder / "LICENSE.txt").read_text()


def test_barley_parse_of_text_gives_analysed_sentences_that_rebuild_the_text(default):
    text = "Don't panic. It's fine, I think.\n\nA second paragraph: 12.5 km away!\n"
    sentences = barley.parse(text)
    assert spaces.text_of(sentences) == text
    assert len(sentences) >= 3
    for sentence in sentences:
        assert check_tree([int(h) for h in sentence.heads()]) is None
        assert all(word[3] != "_" and word[7] != "_" and word[2] != "_" for word in sentence.words)
    assert [s.words[0][1] for s in barley.load(shipped.default_model_path()).parse(FOX)] == ["The"]


def test_the_quick_brown_fox_from_stdin_with_no_model(default):
    """The README's first command: text on stdin, no --model, CoNLL-U out."""
    done = subprocess.run([sys.executable, "-m", "barley", "parse"], input=(FOX + "\n").encode(),
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()
    (sentence,) = list(read_bytes(done.stdout, "<stdout>"))
    assert sentence.comments[-1] == f"# text = {FOX}"
    assert [w[1] for w in sentence.words] == FOX[:-1].split() + ["."]
    assert spaces.text_of([sentence]) == FOX + "\n"
    by_form = {w[1]: w for w in sentence.words}
    assert by_form["fox"][3] == "NOUN" and by_form["jumps"][7] == "root" and by_form["jumps"][2] == "jump"
    assert by_form["fox"][6] == by_form["jumps"][0] and by_form["fox"][7] == "nsubj" and by_form["brown"][3] == "ADJ"


def test_parse_guesses_conllu_input_and_keeps_its_tags(default, tmp_path, capsys):
    text = tmp_path / "fox.txt"
    text.write_text(FOX + "\n")
    assert cli.main(["parse", "-q", str(text), "-o", str(tmp_path / "fox.conllu")]) == 0
    parsed = (tmp_path / "fox.conllu").read_text()
    assert guess_input(str(tmp_path / "fox.conllu")) == "conllu" and guess_input(str(text)) == "text"
    assert cli.main(["parse", "-q", str(tmp_path / "fox.conllu"), "-o", str(tmp_path / "again.conllu")]) == 0
    assert (tmp_path / "again.conllu").read_text() == parsed


@pytest.mark.parametrize(("start", "kind"), [
    (b"# sent_id = 1\n# text = a\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n", "conllu"),
    (b"\xef\xbb\xbf1-2\tdon't\t_\n", "conllu"),
    (b"# A heading in markdown\n\nThen text.\n", "text"),
    (b"1984 was a year.\n", "text"),
    (b"", "text"),
    (b"# only comments\n", "conllu"),
])
def test_guess_input(tmp_path, start, kind):
    (tmp_path / "in").write_bytes(start)
    assert guess_input(str(tmp_path / "in")) == kind


def test_damaged_gzip_text_is_a_one_line_error(tmp_path):
    path = tmp_path / "notes.txt.gz"
    data = gzip.compress(" ".join(str(k * k) for k in range(50_000)).encode())
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(InputError, match="damaged or truncated gzip data") as error:
        list(text_pieces(str(path)))
    assert str(path) in str(error.value) and "\n" not in str(error.value)


def test_barley_models_lists_the_shipped_model(capsys):
    assert cli.main(["models"]) == 0
    out = capsys.readouterr().out
    for expected in ("en_ewt  (default)", "language:    English", "treebank:    UD_English-EWT 2.", "CC BY-SA 4.0",
                     "components:  tokenize, joint", "en_ewt_linear\n", "components:  tokenize, tag, parse", "MiB",
                     "test, raw text (CoNLL 2018 F1): Tokens"):
        assert expected in out, expected
    assert cli.main(["models", "--json"]) == 0
    cards = {card["name"]: card for card in json.loads(capsys.readouterr().out)}
    assert sorted(cards) == ["en_ewt", "en_ewt_linear"]
    assert cards["en_ewt"]["scores"]["test_raw_text"]["LAS"] > cards["en_ewt_linear"]["scores"]["test_raw_text"]["LAS"]


def test_the_models_are_package_data():
    """`pip install .` takes every file of src/barley/models: pyproject's package-data names the data, and
    the modules beside them are the package's own."""
    globs = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["barley"]
    files = [p.relative_to(REPOSITORY / "src" / "barley").as_posix() for p in shipped.MODELS_DIR.iterdir()
             if p.suffix != ".py" and p.name != "__pycache__"]
    assert "models/en_ewt.barley" in files and "models/en_ewt_linear.barley" in files
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in globs), name


@pytest.mark.parametrize("data, name", [
    ("/data/ud/UD_Latin-Perseus/la_perseus-ud-train.conllu", "Latin"),
    ("UD_Old_Church_Slavonic-PROIEL/cu_proiel-ud-train.conllu", "Old Church Slavonic"),
    ("mine/train.conllu", None)])
def test_a_model_s_language_is_named_by_its_treebank_folder(data, name):
    from barley.models.catalog import language_name

    assert language_name({"pipeline": {"training": {"data": data}}}) == name
    assert language_name({"training": {"data": data}}) == name
