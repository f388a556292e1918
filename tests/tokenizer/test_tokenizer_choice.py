"""The tokenizer chosen on dev (``--tokenizer linear,neural``, :mod:`barley.tokenizer.choice`): the kind with
the better Tokens + Sentences + Words F1 on dev is kept, without dev on the held-out end of the training
sentences (the chosen kind then trained again on all of them where it reads no dev), and the choice is recorded."""

from __future__ import annotations

import pytest
from tokenizer_treebank import SMALL_NEURAL, quiet, write_treebank

from barley.cli import main
from barley.conllu import read
from barley.errors import BarleyError
from barley.models import archive
from barley.pipeline import Pipeline
from barley.pipeline.describe import chosen_tokenizer_lines
from barley.pipeline.tokenize import tokenizer_kinds
from barley.tokenizer import Tokenizer, TokenizerOptions
from barley.tokenizer.choice import Candidate, choose, dev_scores


@pytest.fixture(scope="module")
def sentences(tmp_path_factory):
    path = tmp_path_factory.mktemp("choice") / "train.conllu"
    write_treebank(path, 200, seed=11)
    return list(read(str(path)))


class Recorded:
    """A kind's training that records what it was given: the linear tokenizer, with ``bits`` features."""

    def __init__(self, bits: int):
        self.bits, self.calls = bits, []

    def __call__(self, train, dev):
        self.calls.append((len(train), None if dev is None else len(dev)))
        return Tokenizer.train(train, TokenizerOptions(bits=self.bits), log=quiet)


def test_the_better_kind_on_dev_is_kept_and_the_scores_recorded(sentences):
    train, dev = sentences[:150], sentences[150:]
    good, poor = Recorded(bits=18), Recorded(bits=1)  # 2 hashed features: every character alike
    chosen = choose({"poor": Candidate(poor, False), "good": Candidate(good, False)}, train, dev, quiet)
    record = chosen.training["chosen_on_dev"]
    assert record["kinds"] == ["poor", "good"] and record["dev"] == "50 dev sentences"
    assert sum(record["scores"]["good"].values()) > sum(record["scores"]["poor"].values())
    assert record["scores"]["good"] == dev_scores(chosen, dev) and chosen.options.bits == 18
    assert good.calls == poor.calls == [(150, 50)]  # trained once each, on every training sentence


def test_without_dev_the_choice_is_made_on_a_held_out_tenth_then_the_kept_kind_trains_on_everything(sentences):
    good, poor = Recorded(bits=18), Recorded(bits=1)
    lines: list[str] = []
    chosen = choose({"good": Candidate(good, False), "poor": Candidate(poor, False)}, sentences, None, lines.append)
    assert chosen.training["chosen_on_dev"]["dev"] == "the last 20 training sentences (held out: no dev set)"
    assert poor.calls == [(180, None)] and good.calls == [(180, None), (200, None)]
    assert "tokenizer choice: training the good tokenizer again on every training sentence" in lines
    reads_dev = Recorded(bits=18)
    choose({"reads": Candidate(reads_dev, True), "poor": Candidate(Recorded(bits=1), False)}, sentences, None, quiet)
    assert reads_dev.calls == [(180, 20)]  # the held-out tenth as its dev, as such a kind does without one


def test_a_kind_stopped_by_a_signal_marks_the_choice_interrupted_though_the_other_is_kept(sentences):
    """barley train then exits as interrupted (archive.interrupted): the kept kind was compared with one cut short."""

    def stopped(train, dev):
        tokenizer = Tokenizer.train(train, TokenizerOptions(bits=1), log=quiet)
        tokenizer.training = {**tokenizer.training, "interrupted": True}
        return tokenizer

    chosen = choose({"good": Candidate(Recorded(bits=18), False), "stopped": Candidate(stopped, False)},
                    sentences[:150], sentences[150:], quiet)
    assert "interrupted" not in chosen.training and chosen.training["chosen_on_dev"]["interrupted"] is True
    assert chosen.training["chosen_on_dev"]["stopped"] == ["stopped"]
    assert "; the stopped tokenizer's training was interrupted" in chosen_tokenizer_lines(chosen.training)[0]
    assert archive.interrupted({"components": {"tokenize": {"training": chosen.training}}})


def test_too_few_sentences_without_dev_is_one_line(sentences):
    with pytest.raises(BarleyError, match="choosing the tokenizer needs dev sentences or at least two"):
        choose({"a": Candidate(Recorded(18), False), "b": Candidate(Recorded(1), False)}, sentences[:1], None, quiet)


def test_kinds_are_named_once_and_known():
    assert tokenizer_kinds("linear,neural") == ["linear", "neural"] and tokenizer_kinds("neural") == ["neural"]
    with pytest.raises(BarleyError, match="a kind named twice"):
        tokenizer_kinds("linear,linear")
    with pytest.raises(BarleyError, match="unknown tokenizer 'cnn'"):
        tokenizer_kinds("linear,cnn")


def test_an_option_no_kind_named_takes_is_refused(tmp_path, capsys):
    train = tmp_path / "train.conllu"
    write_treebank(train, 30, seed=5)
    assert main(["train", "--train", str(train), "--components", "tokenize", "--tokenizer", "linear",
                 "--tokenizer-hidden", "8", "-m", str(tmp_path / "m.barley")]) == 2
    assert "takes no option --tokenizer-hidden" in capsys.readouterr().err
    assert main(["train", "--train", str(train), "--components", "tokenize", "--tokenizer", "linear,linear",
                 "-m", str(tmp_path / "m.barley")]) == 2
    assert "a kind named twice" in capsys.readouterr().err


@pytest.mark.slow
def test_linear_and_neural_each_receive_their_own_options_and_the_model_says_which_was_kept(sentences, tmp_path):
    pytest.importorskip("torch")
    neural = {name: getattr(SMALL_NEURAL, name) for name in ("char_dim", "class_dim", "hidden", "window", "context",
                                                            "epochs", "patience", "batch_windows", "learning_rate")}
    pipeline = Pipeline.train(sentences[:150], ["tokenize"], dev=sentences[150:], seed=1, log=quiet,
                              options={"tokenize": {"tokenizer": "linear,neural", "bits": 16, **neural}})
    model = tmp_path / "chosen.barley"
    pipeline.save(str(model))
    manifest = archive.read_manifest(str(model))["components"]["tokenize"]
    record = manifest["training"]["chosen_on_dev"]
    best = max(record["scores"], key=lambda kind: sum(record["scores"][kind].values()))
    assert record["kinds"] == ["linear", "neural"] and manifest.get("kind", "linear") == best  # the linear kind writes none
    kept = Pipeline.load(str(model))["tokenize"].tokenizer
    assert dev_scores(kept, sentences[150:]) == record["scores"][best]  # the model file tokenizes as scored


def test_info_says_which_kinds_the_tokenizer_was_chosen_from(sentences, tmp_path, capsys):
    pipeline = Pipeline.train(sentences[:150], ["tokenize"], dev=sentences[150:], seed=1, log=quiet,
                              options={"tokenize": {"tokenizer": "linear"}})
    tokenizer = pipeline["tokenize"].tokenizer
    tokenizer.training["chosen_on_dev"] = {"kinds": ["linear", "neural"], "dev": "50 dev sentences",
                                           "measures": ["Tokens", "Sentences", "Words"],
                                           "scores": {"linear": {"Tokens": 99.5, "Sentences": 97.0, "Words": 99.5},
                                                      "neural": {"Tokens": 99.0, "Sentences": 96.0, "Words": 99.0}}}
    model = tmp_path / "m.barley"
    pipeline.save(str(model))
    assert main(["info", str(model)]) == 0
    assert ("chosen:      the best Tokens + Sentences + Words F1 on 50 dev sentences: linear 99.5 97.0 99.5; "
            "neural 99.0 96.0 99.0") in capsys.readouterr().out
