"""``barley train FOLDER``: a UD treebank folder's train and dev files are found, a full pipeline is
trained by a recipe (:mod:`barley.recipes`) that is said, and the dev scores are printed; folders
that are not one treebank, and options that clash with a folder or a recipe, are one-line errors."""

from __future__ import annotations

import pytest

import toy_language
from barley import cli, recipes
from barley.pipeline import Pipeline
from barley.treebank_folder import count_words

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

TINY = ["--form-dim", "16", "--char-dim", "8", "--char-hidden", "16", "--lstm-hidden", "32", "--lstm-layers", "1",
        "--arc-mlp", "32", "--label-mlp", "16", "--batch-words", "150", "--epochs", "2", "--threads", "1"]


@pytest.fixture(scope="module")
def treebank(tmp_path_factory):
    folder = tmp_path_factory.mktemp("UD_Toy-Folder")
    toy_language.treebank(folder / "xx_toy-ud-train.conllu", 100, seed=1)
    toy_language.treebank(folder / "xx_toy-ud-dev.conllu", 20, seed=2)
    toy_language.treebank(folder / "xx_toy-ud-test.conllu", 20, seed=3)
    return folder


@pytest.fixture
def without_dev(treebank, tmp_path):
    folder = tmp_path / "UD_Toy-NoDev"
    folder.mkdir()
    (folder / "xx_toy-ud-train.conllu").write_bytes((treebank / "xx_toy-ud-train.conllu").read_bytes())
    return folder


def test_a_folder_trains_the_neural_recipe_and_prints_the_dev_scores(treebank, tmp_path, capsys):
    pytest.importorskip("torch", reason="the neural recipe needs PyTorch")
    model = tmp_path / "toy.barley"
    assert cli.main(["train", str(treebank), "-m", str(model), "--seed", "1", *TINY]) == 0
    err = capsys.readouterr().err
    assert "the neural recipe (the default: PyTorch is installed)" in err and "--recipe linear" in err
    assert f"on {treebank / 'xx_toy-ud-train.conllu'}" in err  # the training file found
    assert "epoch 2/2" in err and "ETA" in err  # progress of the joint network, with an estimate of the time left
    dev_line = err.strip().splitlines()[-1]
    assert dev_line.startswith(f"dev scores of {treebank / 'xx_toy-ud-dev.conllu'}")
    for score in ("UPOS", "Lemmas", "UAS", "LAS"):
        assert f" {score} " in dev_line
    pipeline = Pipeline.load(str(model))
    assert pipeline.names == ["tokenize", "joint"]
    assert pipeline["joint"].manifest["options"]["epochs"] == 2  # the option given replaces the recipe's 40
    assert pipeline.manifest["dev"]["words"] == 171


def test_without_pytorch_the_linear_recipe_is_the_default_and_said(treebank, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(recipes, "torch_installed", lambda: False)
    model = tmp_path / "linear.barley"
    assert cli.main(["train", str(treebank), "-m", str(model), "--seed", "1"]) == 0
    err = capsys.readouterr().err
    assert "the linear recipe (the default: PyTorch is not installed)" in err and "--recipe neural" in err
    assert "jackknife fold 5/5" in err and "LAS 100.00" in err.strip().splitlines()[-1]
    assert Pipeline.load(str(model)).names == ["tokenize", "tag", "parse"]


def test_a_folder_without_dev_says_the_end_of_train_is_held_out(without_dev, tmp_path, capsys):
    pytest.importorskip("torch", reason="the neural recipe needs PyTorch")
    assert cli.main(["train", str(without_dev), "-m", str(tmp_path / "m.barley"), "--seed", "1", *TINY]) == 0
    err = capsys.readouterr().err
    assert f"{without_dev} has no dev file" in err and "hold out the end of the training file" in err
    assert "are held out for early stopping" in err  # what the joint network did
    assert "dev scores of" not in err


@pytest.mark.parametrize("recipe", sorted(recipes.RECIPES))
def test_a_recipe_trains_as_its_barley_train_options_do(recipe, treebank, tmp_path, monkeypatch):
    """The recipe applied to a folder, and its options as printed (:meth:`Recipe.arguments`) given by
    hand, train the same pipeline as ``Pipeline.train`` with the recipe's own values (the script's way)."""
    calls = []
    monkeypatch.setattr(Pipeline, "train", classmethod(lambda cls, data, names, **kwargs: calls.append(
        (list(names), kwargs["options"], kwargs["jackknife"], kwargs["dev"])) or cls([], {})))
    monkeypatch.setattr(Pipeline, "evaluate", lambda self, path: {"words": 0, "words_per_second": 0})
    train, dev = str(treebank / "xx_toy-ud-train.conllu"), str(treebank / "xx_toy-ud-dev.conllu")
    given = recipes.RECIPES[recipe].for_words(count_words(train))  # its epochs by the treebank's size
    assert cli.main(["train", str(treebank), "--recipe", recipe, "-m", str(tmp_path / "m.barley")]) == 0
    assert cli.main(["train", train, dev, *given.arguments(), "-m", str(tmp_path / "m.barley")]) == 0
    assert calls[0] == calls[1]
    names, options, jackknife, used_dev = calls[0]
    assert names == list(given.components) and jackknife == given.jackknife and used_dev == dev
    for component, values in given.pipeline_options().items():
        assert values.items() <= options[component].items()


@pytest.mark.parametrize("extra, message", [
    (["--components", "tag,parse"], "--components and --recipe both choose the components"),
    (["--dev", "dev.conllu"], "a treebank folder gives its own dev file"),
    (["-i", "train.conllu"], "the training data is given twice"),
])
def test_options_that_clash_with_a_folder_or_recipe_are_refused_in_one_line(extra, message, treebank, tmp_path,
                                                                            capsys):
    assert cli.main(["train", str(treebank), "--recipe", "linear", *extra, "-m", str(tmp_path / "m.barley")]) != 0
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_folder_with_no_or_several_training_files_is_one_line(treebank, tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli.main(["train", str(empty), "-m", str(tmp_path / "m.barley")]) != 0
    err = capsys.readouterr().err
    assert "no training file *-ud-train.conllu" in err and len(err.strip().splitlines()) == 1
    for code in ("xx_a", "xx_b"):
        (empty / f"{code}-ud-train.conllu").write_bytes((treebank / "xx_toy-ud-train.conllu").read_bytes())
    assert cli.main(["train", str(empty), "-m", str(tmp_path / "m.barley")]) != 0
    err = capsys.readouterr().err
    assert "several files match *-ud-train.conllu (xx_a-ud-train.conllu, xx_b-ud-train.conllu)" in err
    assert len(err.strip().splitlines()) == 1
    assert cli.main(["train", "-m", str(tmp_path / "m.barley")]) != 0
    assert "no training data" in capsys.readouterr().err
