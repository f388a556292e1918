"""Training across treebanks (``barley train FOLDER FOLDER ...``, :mod:`barley.treebanks`): one joint network
reads each sentence's treebank (Stymne et al. 2018) and parses as the first treebank, or as the one a
sentence names; what does not fit is refused in one line."""

from __future__ import annotations

import pytest
import toy_language

from barley import cli, treebanks
from barley.conllu import DEPREL, read
from barley.pipeline import Pipeline

pytestmark = pytest.mark.slow  # trains a network

torch = pytest.importorskip("torch", reason="training the joint network needs PyTorch")

TINY = ["--form-dim", "16", "--char-dim", "8", "--char-hidden", "16", "--lstm-hidden", "32", "--lstm-layers", "1",
        "--arc-mlp", "32", "--label-mlp", "16", "--batch-words", "150", "--dropout", "0.1", "--learning-rate", "5e-3"]


def _folder(root, name: str, train_seed: int, dev: bool, relabel: dict[str, str]):
    """A UD-like treebank folder of the toy language, its DEPREL renamed as ``relabel`` says."""
    folder = root / name
    folder.mkdir()
    parts = [("train", 100, train_seed)] + ([("dev", 20, train_seed + 1)] if dev else [])
    for part, count, seed in parts:
        path = folder / f"toy_{name[-1].lower()}-ud-{part}.conllu"
        toy_language.treebank(path, count, seed=seed)
        text = path.read_text(encoding="utf-8")
        for old, new in relabel.items():
            text = text.replace(f"\t{old}\t", f"\t{new}\t")
        path.write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("treebanks")
    first = _folder(root, "UD_Toy-A", 1, True, {})
    second = _folder(root, "UD_Toy-B", 11, False, {"obj": "dobj"})  # another convention for the same relation
    toy_language.treebank(root / "test.conllu", 30, seed=3)
    return root, first, second


@pytest.fixture(scope="module")
def model(folders):
    root, first, second = folders
    path = root / "both.barley"
    assert cli.main(["train", str(first), str(second), "--components", "joint", "--epochs", "30", *TINY,
                     "--seed", "1", "-m", str(path)]) == 0
    return path


def _labels(pipeline: Pipeline, sentences) -> list[str]:
    copies = [sentence.copy() for sentence in sentences]
    list(pipeline["joint"].process(copies))
    return [word[DEPREL] for sentence in copies for word in sentence.words]


def test_the_model_parses_as_the_first_treebank_or_as_the_one_a_sentence_names(model, folders):
    root, *_ = folders
    pipeline = Pipeline.load(str(model))
    joint = pipeline["joint"].manifest
    assert "treebank" in joint["encoder"]["inputs"] and joint["vocabularies"]["treebank"] == ["UD_Toy-A", "UD_Toy-B"]
    assert [entry["name"] for entry in pipeline.manifest["pipeline"]["training"]["treebanks"]] == ["UD_Toy-A", "UD_Toy-B"]
    test = list(read(str(root / "test.conllu")))
    gold = [word[DEPREL] for sentence in test for word in sentence.words]
    objects = gold.count("obj")
    as_first = _labels(pipeline, test)
    as_second = _labels(pipeline, [treebanks.marked(sentence.copy(), "UD_Toy-B") for sentence in test])
    assert as_first.count("obj") >= 0.9 * objects and as_first.count("dobj") <= 0.1 * objects
    assert as_second.count("dobj") >= 0.75 * objects and as_second.count("obj") <= 0.25 * objects
    unknown = _labels(pipeline, [treebanks.marked(sentence.copy(), "UD_Other") for sentence in test])
    assert unknown == as_first  # a treebank not trained on: the first


def test_what_does_not_fit_is_refused_in_one_line(folders, tmp_path, capsys):
    root, first, second = folders
    out = str(tmp_path / "m.barley")
    for arguments, message in [
        ([str(second), str(first), "--components", "joint"], "chooses its epochs on the first one's dev file"),
        ([str(first), str(first), "--components", "joint"], "a treebank folder is given twice"),
        ([str(first), str(second), "--from", str(root / "both.barley")], "--from fine-tunes on one treebank"),
    ]:
        status = cli.main(["train", *arguments, "-m", out])
        error = capsys.readouterr().err.strip().splitlines()
        assert status != 0 and message in error[-1], (arguments, error)


def test_the_sentences_name_their_treebank(folders):
    _, first, second = folders
    sentences = treebanks.joined([("A", str(next(first.glob("*-train.conllu")))),
                                  ("B", str(next(second.glob("*-train.conllu"))))])
    assert treebanks.names(sentences) == ["A", "B"] and len(sentences) == 200
    assert sum(line.startswith("# treebank = ") for line in sentences[0].comments) == 1
    assert treebanks.of(treebanks.marked(sentences[0], "C")) == "C"
