"""The joint network's linear tags (``--linear-tags``, :mod:`barley.pipeline.linear_tags`): the linear
tagger writes the columns it tags dev better, chosen on dev alone; the model keeps the choice and the
tagger, loads them checked, parses the same after saving, and fine-tuning drops them."""

from __future__ import annotations

import pytest
import toy_language

from barley.conllu import COLUMNS, read
from barley.errors import ModelError
from barley.models import archive
from barley.pipeline import Pipeline
from barley.pipeline.describe import describe
from barley.pipeline.linear_tags import TAG_COLUMNS
from barley.recipes import RECIPES

pytestmark = pytest.mark.slow  # trains networks

torch = pytest.importorskip("torch", reason="training the joint network needs PyTorch")

TINY = dict(form_dim=16, char_dim=8, char_hidden=16, lstm_hidden=32, lstm_layers=1, arc_mlp=32, label_mlp=16,
            batch_words=150, dropout=0.1, learning_rate=5e-3)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("linear_tags")
    for name, count, seed in (("train", 100, 1), ("dev", 20, 2), ("test", 30, 3)):
        toy_language.treebank(folder / f"{name}.conllu", count, seed=seed)
    return folder


@pytest.fixture(scope="module")
def lines():
    return []


@pytest.fixture(scope="module")
def model(toy, lines, tmp_path_factory):
    """A network trained one epoch (it tags worse than the linear tagger), with linear tags, saved."""
    path = tmp_path_factory.mktemp("model") / "m.barley"
    Pipeline.train(str(toy / "train.conllu"), ["joint"], dev=str(toy / "dev.conllu"), seed=1, record_time=False,
                   options={"joint": dict(TINY, epochs=1, linear_tags=True)}, log=lines.append).save(str(path))
    return path


def _annotated(annotate, sentences):
    copies = [sentence.copy() for sentence in sentences]
    list(annotate(copies))
    return copies


def test_the_linear_tagger_writes_the_columns_it_tags_dev_better(model, toy, lines):
    joint = Pipeline.load(str(model))["joint"]
    entry = joint.manifest["linear_tags"]
    assert set(entry["dev"]) == set(TAG_COLUMNS)
    assert entry["columns"] == [c for c in TAG_COLUMNS if entry["dev"][c]["linear"] > entry["dev"][c]["joint"]]
    assert entry["columns"], entry  # one epoch of a tiny network: the linear tagger is better somewhere
    assert any("linear tags: dev UPOS joint" in line for line in lines)
    described = describe(archive.read_manifest(str(model)))
    assert f"linear tags: {', '.join(entry['columns'])} written by the linear tagger (dev, network against linear: UPOS" \
        in described
    test = list(read(str(toy / "test.conllu")))
    blank = [sentence.copy() for sentence in test]
    for sentence in blank:
        for word in sentence.words:
            for column in TAG_COLUMNS:
                word[COLUMNS.index(column)] = "_"
    both = _annotated(joint.process, blank)
    network = _annotated(joint.parser.process, blank)
    linear = _annotated(joint.linear_tags.tagger.process, blank)
    for column in COLUMNS:
        index = COLUMNS.index(column)
        source = linear if column in entry["columns"] else network
        assert [w[index] for s in both for w in s.words] == [w[index] for s in source for w in s.words], column


def test_the_model_parses_the_same_after_saving_and_the_choice_is_recorded_without_dev(model, toy, tmp_path):
    loaded = Pipeline.load(str(model))
    loaded.save(str(tmp_path / "again.barley"))
    assert (tmp_path / "again.barley").read_bytes() == model.read_bytes()
    without_dev = Pipeline.train(str(toy / "train.conllu"), ["joint"], seed=1, record_time=False,
                                 options={"joint": dict(TINY, epochs=1, linear_tags=True)}, log=lambda _: None)
    entry = without_dev["joint"].manifest["linear_tags"]
    assert set(entry["dev"]) == set(TAG_COLUMNS)  # chosen on the held-out end of the training data


@pytest.mark.parametrize("damage, message", [
    (lambda m, a: m.update(columns=["HEAD"]), "are not some of UPOS"),
    (lambda m, a: m.update(columns=[]), "arrays of a linear tagger that writes no column"),
    (lambda m, a: a.pop("joint.linear_tags.feature_keys"), "feature_keys"),
    (lambda m, a: a.update({"joint.linear_tags.feature_keys": a["joint.linear_tags.feature_keys"][::-1].copy()}),
     "increasing"),
], ids=["column", "no-column", "missing", "order"])
def test_damaged_linear_tags_are_refused(model, tmp_path, damage, message):
    manifest, arrays = Pipeline.load(str(model)).to_files()
    entry = dict(manifest["components"]["joint"]["linear_tags"])
    arrays = dict(arrays)
    damage(entry, arrays)
    manifest = {**manifest, "components": {"joint": {**manifest["components"]["joint"], "linear_tags": entry}}}
    archive.write(str(tmp_path / "damaged.barley"), manifest, arrays)
    with pytest.raises(ModelError, match=message):
        Pipeline.load(str(tmp_path / "damaged.barley"))


def test_fine_tuning_drops_the_linear_tags(model, toy):
    lines: list[str] = []
    tuned = Pipeline.load(str(model)).fine_tuned(str(toy / "dev.conllu"), options={"joint": {"epochs": 1}},
                                                 record_time=False, log=lines.append)
    joint = tuned["joint"]
    assert joint.linear_tags is None and "linear_tags" not in joint.manifest
    assert not any(name.startswith("linear_tags.") for name in joint.arrays)
    assert any("the linear tags were chosen against the network before fine-tuning" in line for line in lines)


def test_the_neural_recipes_take_the_linear_tags():
    assert RECIPES["neural"].options["joint"]["linear_tags"] is True
    assert RECIPES["quick"].options["joint"]["linear_tags"] is True
    assert "joint" not in RECIPES["linear"].options
    assert "--linear-tags True" in " ".join(RECIPES["neural"].arguments())
