"""The joint component (``--components joint``): one network tags, lemmatizes and parses; it
learns the toy language, parses with numpy exactly as PyTorch does, never imports PyTorch
when parsing, trains deterministically, resumes from its checkpoint as if never stopped,
checks the arrays it loads and refuses what it does not take."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import numpy as np
import pytest
import toy_language

from barley import cli
from barley.conllu import COLUMNS, read
from barley.errors import BarleyError, InputError, ModelError
from barley.models import archive
from barley.pipeline import Pipeline, check_options, ordered
from barley.pipeline.describe import describe

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

torch = pytest.importorskip("torch", reason="training the joint network needs PyTorch")

TINY = dict(form_dim=16, char_dim=8, char_hidden=16, lstm_hidden=32, lstm_layers=1, arc_mlp=32, label_mlp=16,
            batch_words=150, dropout=0.1, learning_rate=5e-3)
PREDICTED = ("UPOS", "XPOS", "FEATS", "LEMMA", "HEAD", "DEPREL")


def quiet(_message: str) -> None:
    pass


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("joint")
    for name, count, seed in (("train", 100, 1), ("dev", 20, 2), ("test", 30, 3)):
        toy_language.treebank(folder / f"{name}.conllu", count, seed=seed)
    return folder


@pytest.fixture(scope="module")
def trained(toy):
    return Pipeline.train(str(toy / "train.conllu"), ["joint"], options={"joint": dict(TINY, epochs=30)},
                          dev=str(toy / "dev.conllu"), seed=1, record_time=False, log=quiet)


def test_learns_the_toy_language(trained, toy):
    scores = trained.evaluate(str(toy / "test.conllu"))
    assert scores["UPOS"] >= 98.0 and scores["LAS"] >= 95.0 and scores["Lemmas"] >= 95.0, scores
    history = trained["joint"].manifest["training"]
    assert history["dev_score_per_epoch"][history["best_epoch"] - 1] == max(history["dev_score_per_epoch"])
    assert 0.0 <= trained["joint"].manifest["decoding"]["crossing_arcs"] <= 1.0  # measured on its training trees


def _torch_parser(component):
    """The PyTorch network of a trained component, rebuilt from its arrays."""
    from barley.neural.joint import JointParser
    from barley.neural.joint_training import TorchNetwork, model_of

    model, parser = model_of(component), component.parser
    return model, JointParser(TorchNetwork(model, parser.vocabularies, "cpu"), parser.vocabularies, parser.annotator)


def test_numpy_and_torch_give_the_same_analyses(trained, toy):
    """The numpy engine over the model file's arrays and the PyTorch model agree on every column
    (after one epoch, too, when the scores are far from sharp; characters added to the form
    embedding, too), and on the scores themselves."""
    from barley.neural.inputs import pad

    barely = Pipeline.train(str(toy / "train.conllu"), ["joint"],
                            options={"joint": dict(TINY, epochs=1, characters="add", parser_layers=0)}, seed=2,
                            log=quiet)
    assert "weights.encoder.char_projection.weight" in barely["joint"].arrays
    gold = list(read(str(toy / "test.conllu")))
    for component in (trained["joint"], barely["joint"]):
        model, torch_parser = _torch_parser(component)
        by_numpy = list(component.process([s.copy() for s in gold]))
        by_torch = list(torch_parser.process([s.copy() for s in gold]))
        assert [s.to_text() for s in by_numpy] == [s.to_text() for s in by_torch]
        padded = pad([component.parser.vocabularies.encode(s) for s in gold[:8]])
        numpy_outputs = component.parser.network.outputs(padded)
        torch_outputs = torch_parser.network.outputs(padded)
        mask = padded.mask
        np.testing.assert_allclose(numpy_outputs.word_vectors, torch_outputs.word_vectors, atol=1e-5)
        both = mask[:, :, None] & mask[:, None, :] & ~np.eye(mask.shape[1], dtype=bool)
        np.testing.assert_allclose(numpy_outputs.arcs[both], torch_outputs.arcs[both], atol=1e-4)


def test_the_array_checks_match_the_torch_network(trained):
    from barley.neural.joint import expected_shapes
    from barley.neural.options import BiaffineOptions, EncoderOptions

    component = trained["joint"]
    model, _ = _torch_parser(component)
    tables = component.parser.annotator.tables
    shapes = expected_shapes(EncoderOptions(**component.manifest["encoder"]),
                             BiaffineOptions(**component.manifest["biaffine"]), component.parser.vocabularies.sizes(),
                             tables.sizes(), len(tables.labels), component.manifest["parser_layers"])
    assert shapes == {name: tuple(value.shape) for name, value in model.state_dict().items()}


def test_parsing_never_imports_torch(trained, tmp_path):
    path = tmp_path / "joint.barley"
    trained.save(str(path))
    code = (f"import sys\nfrom barley.pipeline import Pipeline\nfrom barley.conllu import read\n"
            f"pipeline = Pipeline.load({str(path)!r})\n"
            f"sentences = list(pipeline.parse(list(read({str(path.parent / 'in.conllu')!r}))))\n"
            f"assert sentences[0].words[0][6] != '_'\n"
            f"print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')))")
    (tmp_path / "in.conllu").write_text("1\tThe\t_\t_\t_\t_\t_\t_\t_\t_\n2\tdog\t_\t_\t_\t_\t_\t_\t_\t_\n"
                                        "3\tsees\t_\t_\t_\t_\t_\t_\t_\t_\n\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_training_is_deterministic_and_resumes_as_if_never_stopped(toy, tmp_path):
    """The same seed gives the same model file; a training stopped after epoch 2 and resumed from its
    checkpoint ends with the same file as one that ran its 3 epochs at once — with the cosine
    schedule, whose rate the resumed epoch must take up where it was."""
    def run(name: str, log=quiet, **options) -> bytes:
        path = tmp_path / f"{name}.barley"
        options = {"lr_schedule": "cosine", **options}
        Pipeline.train(str(toy / "train.conllu"), ["joint"], options={"joint": dict(TINY, epochs=3, **options)},
                       dev=str(toy / "dev.conllu"), seed=4, record_time=False, log=log).save(str(path))
        return path.read_bytes()

    whole = run("whole")
    assert run("again") == whole
    assert run("constant", lr_schedule="constant") != whole
    checkpoint = str(tmp_path / "checkpoint")

    def stop_after_epoch_2(message: str) -> None:
        if "epoch 2/3" in message:
            raise KeyboardInterrupt  # as Ctrl-C would, once epoch 2 is saved

    stopped = run("stopped", log=stop_after_epoch_2, checkpoint=checkpoint)
    assert stopped != whole
    with pytest.raises(BarleyError, match="of another training .*options"):
        run("changed", checkpoint=checkpoint, resume=True, dropout=0.2)
    assert run("resumed", checkpoint=checkpoint, resume=True) == whole


def test_a_warm_restart_trained_at_once_or_later_gives_the_same_model(toy, tmp_path):
    """``restart_epochs`` trains further from the epoch kept with a fresh optimiser and a new cosine
    (its log says so, the manifest records it); the same restart applied later to the saved first
    stage (as ``scripts/build_default_model.py --trained`` does) gives the same bytes."""
    train, dev = list(read(toy / "train.conllu")), list(read(toy / "dev.conllu"))
    lines: list[str] = []
    at_once = tmp_path / "at_once.barley"
    Pipeline.train(str(toy / "train.conllu"), ["joint"], dev=str(toy / "dev.conllu"), seed=4, record_time=False,
                   options={"joint": dict(TINY, epochs=2, lr_schedule="cosine", restart_epochs=2,
                                          restart_learning_rate=1e-3)}, log=lines.append).save(str(at_once))
    assert any("warm restart: 2 more epochs" in line for line in lines)
    first = tmp_path / "first.barley"
    Pipeline.train(str(toy / "train.conllu"), ["joint"], dev=str(toy / "dev.conllu"), seed=4, record_time=False,
                   options={"joint": dict(TINY, epochs=2, lr_schedule="cosine")}, log=quiet).save(str(first))
    assert first.read_bytes() != at_once.read_bytes()
    later = Pipeline.load(str(first))
    later.components = [later["joint"].restarted(train, dev, 2, 1e-3, seed=4, log=quiet)]
    later.save(str(tmp_path / "later.barley"))
    assert (tmp_path / "later.barley").read_bytes() == at_once.read_bytes()
    joint = Pipeline.load(str(at_once))["joint"].manifest
    assert "restarted:   epoch" in describe(archive.read_manifest(str(at_once)))
    assert joint["options"]["restart_epochs"] == 2 and len(joint["fine_tuning"]) == 1
    assert joint["fine_tuning"][0]["options"]["learning_rate"] == 1e-3
    assert joint["fine_tuning"][0]["options"]["lr_schedule"] == "cosine"
    # a restart no better on dev than the first training keeps the first network (and says so): steps
    # too small to change a prediction give the epoch kept's dev score again, which is no better
    first_joint = Pipeline.load(str(first))["joint"]
    worse = first_joint.restarted(train, dev, 1, 1e-12, seed=4, log=lines.append)
    assert "its network is kept" in lines[-1] and worse.manifest["fine_tuning"][-1]["kept"] is False
    assert all(np.array_equal(worse.arrays[name], array) for name, array in first_joint.arrays.items())
    assert worse.manifest["options"]["restart_learning_rate"] == 1e-12
    later.components = [worse]
    later.save(str(tmp_path / "worse.barley"))
    assert "none of 1 epochs better on dev, the network before kept" in describe(
        archive.read_manifest(str(tmp_path / "worse.barley")))
    with pytest.raises(BarleyError, match="--restart-epochs must be at least 0"):
        Pipeline.train(str(toy / "train.conllu"), ["joint"], options={"joint": dict(TINY, restart_epochs=-1)},
                       seed=1, log=quiet)


def test_a_training_stopped_by_hand_is_not_restarted(toy, monkeypatch):
    """Ctrl-C (or SIGTERM) in the first training keeps its best epoch and skips the warm restart."""
    from barley.neural import fitting

    calls = []

    def interrupted_in_epoch_2(*arguments, **keywords):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return minibatches(*arguments, **keywords)

    minibatches = fitting.minibatches
    monkeypatch.setattr(fitting, "minibatches", interrupted_in_epoch_2)
    lines: list[str] = []
    pipeline = Pipeline.train(str(toy / "train.conllu"), ["joint"], dev=str(toy / "dev.conllu"), seed=4,
                              options={"joint": dict(TINY, epochs=3, restart_epochs=2)}, log=lines.append)
    assert "training interrupted: no warm restart (--restart-epochs 2)" in " ".join(lines)
    joint = pipeline["joint"].manifest
    assert joint["training"]["interrupted"] is True and "fine_tuning" not in joint and len(calls) == 2


def test_sigterm_keeps_the_best_epoch_and_its_checkpoint_and_exits_143(toy, tmp_path, monkeypatch, capsys):
    """SIGTERM in the second epoch of ``barley train``: the model holds epoch 1, the checkpoint stays for
    ``--resume``, and the command exits 143 (as a killed one), so that no script takes the model for finished."""
    import os
    import signal

    from barley.neural import fitting

    calls = []

    def terminated_in_epoch_2(*arguments, **keywords):
        calls.append(1)
        if len(calls) == 2:
            cli._terminate(os.getpid(), signal.SIGTERM, None)
        return minibatches(*arguments, **keywords)

    minibatches = fitting.minibatches
    monkeypatch.setattr(fitting, "minibatches", terminated_in_epoch_2)
    model = tmp_path / "stopped.barley"
    options = [f"--{name.replace('_', '-')}={value}" for name, value in TINY.items()]
    status = cli.main(["train", str(toy / "train.conllu"), "--dev", str(toy / "dev.conllu"), "--components", "joint",
                       "--epochs", "3", "--restart-epochs", "0", "--enhanced-epochs", "0", *options, "-m", str(model)])
    err = capsys.readouterr().err
    assert status == 143, err
    assert f"barley train: interrupted: {model} holds the best epoch so far" in err and "--resume" in err
    assert archive.interrupted(archive.read_manifest(str(model)))
    assert (tmp_path / "stopped.barley.checkpoint").is_file()
    monkeypatch.setattr(fitting, "minibatches", minibatches)  # a fine-tuning of it that runs to its end: 0, though
    tuned = tmp_path / "tuned.barley"                          # the base's record (kept) says interrupted
    assert cli.main(["train", str(toy / "train.conllu"), "--from", str(model), "--epochs", "1", "-m", str(tuned)]) == 0
    assert archive.interrupted(archive.read_manifest(str(tuned)))
    calls.clear()  # a fine-tuning stopped in its second epoch, written over its base: 143
    monkeypatch.setattr(fitting, "minibatches", terminated_in_epoch_2)
    assert cli.main(["train", str(toy / "train.conllu"), "--from", str(tuned), "--epochs", "3", "-m", str(tuned),
                     "--force"]) == 143
    assert archive.read_manifest(str(tuned))["pipeline"]["fine_tuning"][-1]["interrupted"] is True


@pytest.mark.parametrize("damage, message", [
    (lambda a: a.update({"joint.weights.tags.upos.weight": a["joint.weights.tags.upos.weight"][:-1]}), "not float32"),
    (lambda a: a.update({"joint.weights.encoder.form.weight":
                         a["joint.weights.encoder.form.weight"].astype(np.float64)}), "not float32"),
    (lambda a: a.update({"joint.weights.arc_dep.0.bias": np.full_like(a["joint.weights.arc_dep.0.bias"], np.nan)}),
     "not finite"),
    (lambda a: a.pop("joint.weights.label_attention.weight"), "missing array label_attention.weight"),
    (lambda a: a.update({"joint.weights.extra": np.zeros(3, np.float32)}), "unexpected array extra"),
], ids=["shape", "dtype", "nan", "missing", "extra"])
def test_a_damaged_network_is_refused_in_one_line(trained, tmp_path, capsys, damage, message):
    manifest, arrays = trained.to_files()
    arrays = dict(arrays)
    damage(arrays)
    path = tmp_path / "damaged.barley"
    archive.write(str(path), manifest, arrays)
    with pytest.raises(ModelError, match=message):
        Pipeline.load(str(path))
    (tmp_path / "in.conllu").write_text("1\tdog\t_\t_\t_\t_\t_\t_\t_\t_\n\n", encoding="utf-8")
    assert cli.main(["parse", "-m", str(path), str(tmp_path / "in.conllu")]) != 0
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and message in error


def test_a_table_inconsistent_with_the_arrays_is_refused(trained, tmp_path):
    manifest, arrays = trained.to_files()
    manifest = {**manifest, "components": {"joint": {**manifest["components"]["joint"]}}}
    tables = manifest["components"]["joint"]["tables"]
    manifest["components"]["joint"]["tables"] = {**tables, "labels": tables["labels"][:-1]}
    archive.write(str(tmp_path / "m.barley"), manifest, arrays)
    with pytest.raises(ModelError, match="label_attention.weight"):
        Pipeline.load(str(tmp_path / "m.barley"))


def test_options_and_components_it_does_not_take_are_refused():
    with pytest.raises(BarleyError, match="takes no option 'system'"):
        check_options("joint", {"system": "arc-eager"})
    with pytest.raises(BarleyError, match="takes no option 'upos_dim'"):
        check_options("joint", {"upos_dim": 10})
    for other in ("tag", "parse"):
        with pytest.raises(BarleyError, match="both write"):
            ordered([other, "joint"])
    assert ordered(["joint", "tokenize"]) == ["tokenize", "joint"]


def test_without_dev_the_end_of_train_is_held_out(toy):
    lines: list[str] = []
    pipeline = Pipeline.train(str(toy / "train.conllu"), ["joint"], options={"joint": dict(TINY, epochs=2)},
                              seed=1, log=lines.append)
    assert any("the last 10 training sentences" in line and "held out" in line for line in lines)
    assert pipeline["joint"].manifest["training"]["sentences"] == 90


def test_known_pairs_take_their_lemma_and_a_rule_that_does_not_apply_gives_way():
    from barley.graph.model import GraphOptions
    from barley.neural.joint import Annotator, JointOutputs
    from barley.neural.joint_tables import JointTables

    tables = JointTables({"upos": ["X"], "xpos": ["X"], "feats": ["_"],
                          "lemma": ["keep|||ies|y", "keep|||s|", "keep||||"]}, ["root"], {("was", "AUX"): "be"})
    annotator = Annotator(tables, GraphOptions(decoder="mst"))
    rows = [("cats", "NOUN"), ("berries", "NOUN"), ("dog", "NOUN"), ("was", "AUX"), ("was", "NOUN")]
    words = [["1", form, "_", upos, "_", "_", "_", "_", "_", "_"] for form, upos in rows]
    outputs = JointOutputs(np.zeros((len(words), 1)), {"lemma": (np.zeros((3, 1)), np.array([3.0, 2.0, 1.0]))},
                           *(np.zeros(1),) * 5)
    annotator._lemmas(words, outputs)
    assert [word[COLUMNS.index("LEMMA")] for word in words] == ["cat", "berry", "dog", "be", "wa"]


def test_barley_train_makes_a_tokenizing_joint_pipeline(toy, tmp_path, capsys):
    model = tmp_path / "toy.barley"
    sizes = [f"--{name.replace('_', '-')}={value}" for name, value in TINY.items()]
    assert cli.main(["train", "--components", "tokenize,joint", "-i", str(toy / "train.conllu"), "--dev",
                     str(toy / "dev.conllu"), "-m", str(model), "--epochs", "2", "--seed", "1", *sizes]) == 0
    assert not (tmp_path / "toy.barley.checkpoint").exists()  # removed once the model is written
    assert Pipeline.load(str(model)).names == ["tokenize", "joint"]
    with zipfile.ZipFile(model) as zipped:
        assert "arrays.npz" in zipped.namelist()
    capsys.readouterr()
    assert cli.main(["info", str(model)]) == 0
    info = capsys.readouterr().out
    assert "[joint]" in info and "lemma rules" in info and "epoch" in info
    text = tmp_path / "text.txt"
    text.write_text("The dog sees a cat. Every bird walked!\n")
    for command in ("parse", "tag"):  # the joint network is the tagger and the parser of the model
        assert cli.main([command, "-q", "-m", str(model), str(text), "-o", str(tmp_path / f"{command}.conllu")]) == 0
        parsed = list(read(str(tmp_path / f"{command}.conllu")))
        assert parsed and all(word[3] != "_" and word[6] != "_" for sentence in parsed for word in sentence.words)
    assert cli.main(["parse", "-q", "--retag", "-m", str(model), str(toy / "dev.conllu"), "-o",
                     str(tmp_path / "retagged.conllu")]) == 0  # the joint network predicts the tags anyway
    assert cli.main(["train", "--components", "tokenize,joint", "-i", str(toy / "train.conllu"), "-m",
                     str(tmp_path / "other.barley"), "--resume"]) != 0
    assert "no checkpoint to resume from" in capsys.readouterr().err
    assert cli.main(["train", "--components", "tokenize,joint", "-i", str(toy / "train.conllu"), "-m",
                     str(tmp_path / "other.barley"), "--system", "arc-eager"]) != 0
    assert "takes no option 'system'" in capsys.readouterr().err


def test_confidence_gives_probabilities_and_keeps_the_analyses(trained, toy):
    from confidence_checks import assert_confidence

    assert_confidence(trained, toy / "dev.conllu")


def test_nbest_gives_distinct_trees_over_the_same_tags(trained, toy):
    """``nbest``: the first analysis of each sentence is the 1-best parse; the others share its tags
    and lemmas and differ in their trees, ranked by log P(heads) (barley.nbest)."""
    from barley.nbest import group_name

    plain = list(trained.parse(list(read(toy / "test.conllu"))[:8]))
    ranked = list(trained.parse(list(read(toy / "test.conllu"))[:8], nbest=4))
    groups: dict = {}
    for sentence in ranked:
        groups.setdefault(group_name(sentence), []).append(sentence)
    assert [group[0].rows for group in groups.values()] == [s.rows for s in plain]
    for group in groups.values():
        assert len(group) == 4 and len({tuple(s.heads()) for s in group}) == 4
        assert all([w[:6] for w in s.words] == [w[:6] for w in group[0].words] for s in group)
        scores = [float(next(c for c in s.comments if c.startswith("# score")).split("=")[1]) for s in group]
        assert scores == sorted(scores, reverse=True) and scores[0] <= 0.0


def test_max_words_limits_the_joint_parser_and_a_model_without_a_limit_is_refused(trained, toy, tmp_path):
    from barley.decoders.decoding import FIRST_ORDER_MAX_WORDS

    trained.save(str(tmp_path / "joint.barley"))
    pipeline = Pipeline.load(str(tmp_path / "joint.barley"))
    assert pipeline["joint"].parser.max_words == FIRST_ORDER_MAX_WORDS
    pipeline.limit_words(3)
    with pytest.raises(InputError, match=r"test\.conllu:\d+: a sentence of \d+ words: this joint parser "
                                         r"parses at most 3 \(--max-words\)"):
        list(pipeline.parse(read(str(toy / "test.conllu"))))
    with pytest.raises(BarleyError, match=r"this model \(no parser\) has no such limit"):
        pipeline.only(["tokenize"]).limit_words(3)


def test_the_tags_written_are_a_combination_of_training(trained, toy):
    """Consistent tags: every word's UPOS, XPOS and FEATS were seen together in training, and the
    model file keeps the combinations (tests/neural/test_consistent_tags.py tests the decode itself)."""
    from barley.conllu import FEATS, UPOS, XPOS

    seen = {(w[UPOS], w[XPOS], w[FEATS]) for s in read(str(toy / "train.conllu")) for w in s.words}
    tables = trained["joint"].parser.annotator.tables
    assert len(tables.tag_sets) == len(seen)
    parsed = list(trained.parse(list(read(str(toy / "test.conllu")))))
    assert all((w[UPOS], w[XPOS], w[FEATS]) in seen for s in parsed for w in s.words)
    manifest, _ = trained.to_files()
    assert len(manifest["components"]["joint"]["tables"]["tag_sets"]) == len(seen)


def test_vectors_from_the_user_start_the_form_embeddings_and_are_not_needed_to_parse(toy, tmp_path):
    """``barley train --vectors FILE`` (word2vec/fastText text): the joint network's form embeddings start from
    the vectors of the training forms, the others are not kept, and the model parses once the file is gone."""
    forms = sorted({word[1].lower() for sentence in read(str(toy / "train.conllu")) for word in sentence.words})
    vectors = tmp_path / "user.vec"
    rows = [f"{form} {' '.join(str((k + d) % 7 - 3) for d in range(4))}" for k, form in enumerate(forms[:5])]
    vectors.write_text(f"{len(rows) + 1} 4\n" + "\n".join(rows) + "\nnotintraining 1 1 1 1\n", encoding="utf-8")
    model = tmp_path / "vectors.barley"
    assert cli.main(["train", str(toy / "train.conllu"), "--components", "joint", "--vectors", str(vectors),
                     "--epochs", "1", "--form-dim", "16", "--char-dim", "8", "--char-hidden", "16", "--lstm-hidden",
                     "32", "--lstm-layers", "1", "--arc-mlp", "32", "--label-mlp", "16", "-m", str(model)]) == 0
    manifest, arrays = archive.read(str(model))
    assert manifest["components"]["joint"]["encoder"]["form_dim"] == 4  # the vectors' size
    assert arrays["joint.weights.encoder.form.weight"].shape[1] == 4
    vocabulary = manifest["components"]["joint"]["vocabularies"]
    assert "notintraining" not in str(vocabulary)
    vectors.unlink()
    out = tmp_path / "parsed.conllu"
    assert cli.main(["parse", "-q", "-m", str(model), str(toy / "test.conllu"), "-o", str(out)]) == 0
    assert len(list(read(str(out)))) == len(list(read(str(toy / "test.conllu"))))
