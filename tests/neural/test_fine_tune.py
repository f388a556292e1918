"""Fine-tuning (``barley train TRAIN [DEV] --from MODEL``): a joint network trained further on a treebank
with new words, characters, tags and labels keeps every entry it knew with the weights it had, grows
its vocabularies and classes, trains deterministically into a new model that loads and parses, and
leaves the old model as it was; a model without a network, and options that would change the network,
are refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
import toy_language

from barley import cli
from barley.conllu import FORM, read
from barley.features.vocabulary import UNKNOWN
from barley.models import archive
from barley.pipeline import Pipeline

torch = pytest.importorskip("torch", reason="fine-tuning the joint network needs PyTorch")

from barley.neural.fitting import carry_over, deterministic, weight_arrays  # noqa: E402  (needs torch)
from barley.neural.joint_model import JointModel  # noqa: E402
from barley.neural.joint_training import UNKNOWN_ROWS, model_of  # noqa: E402
from barley.neural.options import BiaffineOptions, EncoderOptions  # noqa: E402

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

TINY = dict(form_dim=16, char_dim=8, char_hidden=16, lstm_hidden=32, lstm_layers=1, arc_mlp=32, label_mlp=16,
            batch_words=150, dropout=0.1, learning_rate=5e-3)
NEW = {"fox": "gnü", "walk": "zorb"}
"""Lemmas of the toy language renamed in the new treebank: new forms, a new character (ü), new lemma rules."""


def quiet(_message: str) -> None:
    pass


def renamed(line: str) -> str:
    """A toy treebank line of the new domain: renamed words, ADJ with a new XPOS and FEATS, amod a new label."""
    columns = line.split("\t")
    if len(columns) != 10:
        return line
    for old, new in NEW.items():
        columns[1] = columns[1].replace(old, new).replace(old.capitalize(), new.capitalize())
        columns[2] = columns[2].replace(old, new)
    if columns[3] == "ADJ":
        columns[4], columns[5] = "JJR", "Degree=Cmp"
    columns[7] = {"amod": "amod:new"}.get(columns[7], columns[7])
    return "\t".join(columns)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fine-tune")
    toy_language.treebank(folder / "train.conllu", 100, seed=1)
    toy_language.treebank(folder / "dev.conllu", 20, seed=2)
    for name, seed in (("new-train", 5), ("new-dev", 6)):
        toy_language.treebank(folder / f"{name}.conllu", 40, seed=seed)
        text = (folder / f"{name}.conllu").read_text(encoding="utf-8")
        (folder / f"{name}.conllu").write_text("\n".join(renamed(line) for line in text.split("\n")), encoding="utf-8")
    Pipeline.train(str(folder / "train.conllu"), ["joint"], options={"joint": dict(TINY, epochs=2)},
                   dev=str(folder / "dev.conllu"), seed=1, record_time=False, log=quiet).save(str(folder / "base.barley"))
    return folder


def test_the_extended_network_starts_with_the_weights_it_had(data):
    """Every known entry keeps its id and its rows; a new form or character starts as the unknown one;
    a new class's rows are initialised under the seed (the same seed, the same rows)."""
    component = Pipeline.load(str(data / "base.barley"))["joint"]
    sentences = list(read(str(data / "new-train.conllu")))
    vocabularies = component.parser.vocabularies.extended(sentences, min_form_count=1)
    tables = component.parser.annotator.tables.extended(sentences, ["amod:new", "det"])
    for name, table in component.parser.vocabularies.tables.items():
        assert vocabularies.tables[name].values[:len(table)] == table.values
    assert {"gnü", "zorb", "gnüs"} <= set(vocabularies.tables["form"].to_json()) - set(
        component.parser.vocabularies.tables["form"].to_json())
    assert "ü" in vocabularies.tables["chars"].ids and "ü" not in component.parser.vocabularies.tables["chars"].ids
    old_tables = component.parser.annotator.tables
    assert tables.labels == [*old_tables.labels, "amod:new"] and tables.values["xpos"][-1] == "JJR"
    assert all(tables.values[name][:len(values)] == values for name, values in old_tables.values.items())

    def grown(seed: int) -> dict[str, np.ndarray]:
        manifest = component.manifest
        with deterministic(seed, "cpu", 1):
            model = JointModel(EncoderOptions(**manifest["encoder"]), BiaffineOptions(**manifest["biaffine"]),
                               vocabularies.sizes(), len(tables.labels), tables.sizes(), manifest["parser_layers"])
            added = carry_over(model, component.arrays, UNKNOWN_ROWS)
        assert added["encoder.form.weight"] == len(vocabularies.tables["form"]) - len(
            component.parser.vocabularies.tables["form"])
        return weight_arrays(model)

    weights = grown(seed=1)
    for name, old in component.arrays.items():
        new = weights[name]
        assert np.array_equal(new[tuple(slice(0, size) for size in old.shape)], old), name
        if name.removeprefix("weights.") in UNKNOWN_ROWS:
            assert new.shape[0] > old.shape[0] and (new[old.shape[0]:] == old[UNKNOWN]).all()
    again, other = grown(seed=1), grown(seed=2)
    xpos = "weights.tags.xpos.weight"
    assert np.array_equal(again[xpos], weights[xpos])
    assert not np.array_equal(other[xpos][len(old_tables.values["xpos"]):], weights[xpos][len(old_tables.values["xpos"]):])


def test_fine_tuning_grows_the_model_trains_deterministically_and_leaves_the_old_one(data, tmp_path, capsys):
    base = data / "base.barley"
    before = base.read_bytes()

    def fine_tune(name: str) -> bytes:
        assert cli.main(["train", str(data / "new-train.conllu"), str(data / "new-dev.conllu"), "--from", str(base),
                         "-m", str(tmp_path / name), "--epochs", "3", "--seed", "1", "--learning-rate", "0.005"]) == 0
        return (tmp_path / name).read_bytes()

    first = fine_tune("a.barley")
    err = capsys.readouterr().err
    assert "new entries from the fine-tuning data: chars 3, form 5, upos 0, xpos 1, feats 1, lemma 0, labels 1" in err
    assert "epoch 3/3" in err and "dev scores of" in err
    assert fine_tune("b.barley") == first  # the same data and seed: the same model, byte for byte
    assert base.read_bytes() == before
    tuned, old = Pipeline.load(str(tmp_path / "a.barley")), Pipeline.load(str(base))  # the model checks accept it
    tables = tuned["joint"].parser.annotator.tables
    assert "amod:new" in tables.labels and "JJR" in tables.values["xpos"]
    assert len(tuned["joint"].parser.vocabularies.tables["form"]) > len(old["joint"].parser.vocabularies.tables["form"])
    manifest, _ = archive.read(str(tmp_path / "a.barley"))
    assert manifest["pipeline"]["fine_tuning"][0]["from"] == str(base)
    assert manifest["components"]["joint"]["training"] == old["joint"].manifest["training"]  # the first training kept
    parsed = list(tuned.parse(list(read(str(data / "new-dev.conllu")))))
    assert any(word[FORM] == "gnü" for sentence in parsed for word in sentence.words)
    assert all(word[6] != "_" and word[3] != "_" for sentence in parsed for word in sentence.words)
    assert cli.main(["info", str(tmp_path / "a.barley")]) == 0
    assert "fine-tuned:  from" in capsys.readouterr().out


@pytest.mark.parametrize("options, message", [
    (["--lstm-hidden", "64"], "--lstm-hidden 64 conflicts with the network being fine-tuned (lstm_hidden 32)"),
    (["--components", "tag,parse"], "--components: not with --from"),
    (["--system", "arc-eager"], "fine-tuning the joint network takes no option 'system'"),
])
def test_options_that_change_the_network_are_refused_in_one_line(options, message, data, tmp_path, capsys):
    assert cli.main(["train", str(data / "new-train.conllu"), "--from", str(data / "base.barley"), *options,
                     "-m", str(tmp_path / "m.barley")]) != 0
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) <= 3  # the first lines say what is kept
    assert err.strip().splitlines()[-1].startswith("barley train: error:")
    assert not (tmp_path / "m.barley").exists()


def test_a_model_without_a_neural_network_is_refused(data, tmp_path, capsys):
    linear = tmp_path / "linear.barley"
    Pipeline.train(str(data / "train.conllu"), ["tag", "parse"], jackknife=None, seed=1, log=quiet).save(str(linear))
    assert cli.main(["train", str(data / "new-train.conllu"), "--from", str(linear), "-m",
                     str(tmp_path / "m.barley")]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "the model has no neural network to train further (its components: tag, parse)" in err


def test_fine_tuning_a_model_into_itself_is_refused(data, capsys):
    base = str(data / "base.barley")
    assert cli.main(["train", str(data / "new-train.conllu"), "--from", base, "-m", base]) != 0
    assert "the output is the input file" in capsys.readouterr().err


def test_a_torch_network_rebuilt_from_the_fine_tuned_model_matches_it(data, tmp_path):
    """The fine-tuned component's arrays are the network's (``model_of`` rebuilds the same weights)."""
    tuned = Pipeline.load(str(data / "base.barley")).fine_tuned(
        str(data / "new-train.conllu"), options={"joint": {"epochs": 1}}, seed=3, log=quiet)
    component = tuned["joint"]
    rebuilt = weight_arrays(model_of(component))
    assert set(rebuilt) == set(component.arrays)
    assert all(np.array_equal(rebuilt[name], component.arrays[name]) for name in rebuilt)
    assert component.manifest["fine_tuning"][0]["held_out_sentences"] == 4  # no dev: the end of the data held out
