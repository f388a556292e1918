"""Experiment specs take every kind of parser of :mod:`barley.kinds` with that kind's options (the
biaffine parser's among them), refuse what the kind does not take, and give the biaffine parser its
dev set for early stopping; the ``bjorkelund-neural`` preset is ``bjorkelund`` with the biaffine scorer."""

from __future__ import annotations

import json

import pytest

from barley.cli import main
from barley.errors import BarleyError
from barley.experiment import presets, spec
from barley.experiment.runner import plan

from random_treebanks import random_conllu_text

HEAD = 'transforms = [{ name = "pseudo-projective", encoding = "head" }]\n'
TINY = ("form_dim = 8\nlemma_dim = 4\nupos_dim = 4\nxpos_dim = 4\nfeats_dim = 4\nchar_dim = 4\nchar_hidden = 4\n"
        "lstm_hidden = 16\nlstm_layers = 1\narc_mlp = 16\nlabel_mlp = 8\nbatch_words = 100\n")


def _spec(tmp_path, parsers: str):
    for name, seed, count in (("train", 1, 40), ("dev", 2, 10), ("test", 3, 15)):
        (tmp_path / f"{name}.conllu").write_text(random_conllu_text(seed, count), encoding="utf-8")
    path = tmp_path / "spec.toml"
    path.write_text('name = "kinds"\n[[treebanks]]\nname = "tiny"\ntrain = "train.conllu"\ndev = "dev.conllu"\n'
                    'test = "test.conllu"\n' + parsers, encoding="utf-8")
    return path


def test_a_biaffine_parser_takes_its_options(tmp_path):
    path = _spec(tmp_path, '[[parsers]]\nname = "MST"\nparser = "biaffine"\ndecoder = "mst"\nepochs = 3\n'
                           'lstm_hidden = 64\ndropout = 0.2\n'
                           '[[parsers]]\nname = "Head"\nparser = "biaffine"\ndecoder = "eisner"\n' + HEAD
                           + '[[parsers]]\nname = "NPA"\nparser = "biaffine"\ndecoder = "eisner+npa"\n'
                           'npa_threshold = 0.5\n')
    mst, head, npa = spec.load(path).parsers
    assert mst.train_options() == {"decoder": "mst", "epochs": 3, "lstm_hidden": 64, "dropout": 0.2}
    assert head.train_options() == {"decoder": "eisner"} and head.transforms[0]["encoding"] == "head"
    assert npa.train_options() == {"decoder": "eisner+npa", "npa_threshold": 0.5}
    assert mst.describe() == "biaffine: decoder mst, epochs 3, dropout 0.2, lstm hidden 64"
    assert head.describe() == "biaffine: decoder eisner + pseudo-projective (encoding head)"
    assert all(p.transition_system is None for p in (mst, head, npa))
    assert [study.systems for study in plan(spec.load(path), tmp_path / "out").studies] == [()]


def test_the_graph_parsers_decoder_is_passed_even_where_it_is_the_old_default(tmp_path):
    """``decoder = "eisner"`` must reach a biaffine parser (whose own default is ``mst``)."""
    path = _spec(tmp_path, '[[parsers]]\nname = "E"\nparser = "biaffine"\ndecoder = "eisner"\n'
                           '[[parsers]]\nname = "G"\nparser = "graph"\n')
    biaffine, graph = spec.load(path).parsers
    assert biaffine.train_options() == {"decoder": "eisner"}
    assert graph.train_options() == {} and graph.describe() == "graph"


@pytest.mark.parametrize("parser, message", [
    ('parser = "biaffine"\nsystem = "arc-eager"\n', "a biaffine parser takes no option 'system'"),
    ('parser = "biaffine"\norder = 2\n', "a biaffine parser takes no option 'order'"),
    ('parser = "biaffine"\nlearner = "svm-poly2"\n', "a biaffine parser takes no option 'learner'"),
    ('parser = "graph"\nlstm_hidden = 10\n', "a graph parser takes no option 'lstm_hidden'"),
    ('lstm_hidden = 10\n', "a transition parser takes no option 'lstm_hidden'"),
    ('parser = "biaffine"\nlstm_hiden = 10\n', "unknown setting 'lstm_hiden'"),
    ('parser = "neural-thing"\n', "unknown parser kind 'neural-thing'"),
    ('parser = "biaffine"\nepochs = "ten"\n', "epochs must be int"),
    ('parser = "biaffine"\ndropout = true\n', "dropout must be float"),
    ('parser = "biaffine"\ndecoder = "cle"\n', "unknown decoder 'cle'"),
    ('parser = "graph"\ndecoder = "mst"\norder = 2\n', "second-order MST"),
])
def test_options_a_kind_does_not_take_are_refused(tmp_path, parser, message):
    path = _spec(tmp_path, '[[parsers]]\nname = "p"\n' + parser)
    with pytest.raises(BarleyError, match=message):
        spec.load(path)


def test_command_line_overrides_reach_the_kinds_that_take_them(tmp_path):
    path = _spec(tmp_path, '[[parsers]]\nname = "B"\nparser = "biaffine"\n[[parsers]]\nname = "T"\n'
                           '[[parsers]]\nname = "G"\nparser = "graph"\n')
    biaffine, transition, graph = spec.load(path).with_options(epochs=7, learner="perceptron").parsers
    assert biaffine.train_options() == {"epochs": 7}
    assert graph.train_options() == {"epochs": 7}
    assert transition.train_options() == {"learner": "perceptron", "epochs": 7}


def test_a_system_the_spec_names_reaches_every_kind_whatever_its_default(tmp_path):
    # arc-eager is the transition kind's default but not the neural transition kind's (arc-hybrid):
    # naming it must reach the neural parser, and leaving it out must give (and report) each kind's own
    path = _spec(tmp_path, '[[parsers]]\nname = "NE"\nparser = "neural-transition"\nsystem = "arc-eager"\n'
                           '[[parsers]]\nname = "N"\nparser = "neural-transition"\n'
                           '[[parsers]]\nname = "T"\n[[parsers]]\nname = "TE"\nsystem = "arc-eager"\n')
    neural_eager, neural, transition, transition_eager = spec.load(path).parsers
    assert neural_eager.train_options() == {"system": "arc-eager"}
    assert neural_eager.transition_system == "arc-eager" and "system arc-eager" in neural_eager.describe()
    assert neural.train_options() == {}
    assert neural.transition_system == "arc-hybrid" and "system arc-hybrid" in neural.describe()
    assert transition.train_options() == {} and transition.transition_system == "arc-eager"
    assert transition_eager.train_options() == {"system": "arc-eager"}


def test_the_neural_preset_is_bjorkelund_with_the_biaffine_scorer(tmp_path):
    for folder in ("UD_Latin-Perseus", "UD_Gothic-PROIEL"):
        directory = tmp_path / folder
        directory.mkdir()
        code = folder.split("_", 1)[1].lower()
        splits = ("train", "test") if "Latin" in folder else ("train", "dev", "test")
        for split in splits:
            (directory / f"{code}-ud-{split}.conllu").write_text(random_conllu_text(1, 2), encoding="utf-8")
    linear, neural = presets.preset("bjorkelund", tmp_path), presets.preset("bjorkelund-neural", tmp_path)
    assert [p.name for p in neural.parsers] == [p.name for p in linear.parsers]
    for old, new in zip(linear.parsers, neural.parsers):
        assert new.parser == "biaffine"
        assert new.transforms == old.transforms
        assert new.train_options() == {"decoder": old.decoder}
    assert [(t.name, t.dev is not None) for t in neural.treebanks] == [("UD_Latin-Perseus", False),
                                                                        ("UD_Gothic-PROIEL", True)]
    assert all(t.dev is None for t in linear.treebanks)


@pytest.mark.slow
def test_a_biaffine_experiment_stops_early_on_the_dev_set(tmp_path):
    pytest.importorskip("torch", reason="the biaffine parser needs PyTorch (pip install -e '.[neural]' in barley's checkout)")
    path = _spec(tmp_path, '[[parsers]]\nname = "NPA"\nparser = "biaffine"\ndecoder = "eisner+npa"\nepochs = 4\n'
                           'patience = 1\n' + TINY + '[[parsers]]\nname = "Head"\nparser = "biaffine"\n'
                           'decoder = "eisner"\nepochs = 2\n' + TINY + HEAD)
    out = tmp_path / "out"
    assert main(["experiment", str(path), "--out", str(out)]) == 0
    for name in ("NPA", "Head"):
        run = out / "runs" / "tiny" / name
        log = (run / "train.log").read_text(encoding="utf-8")
        assert "dev LAS" in log and "kept epoch" in log
        score = json.loads((run / "score.json").read_text(encoding="utf-8"))
        assert 0 <= score["scores"]["LAS"] <= 100
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "Head: biaffine: decoder eisner" in markdown and "NPA: biaffine: decoder eisner+npa" in markdown
