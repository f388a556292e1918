"""Stopping a neural training by hand (Ctrl-C, or SIGTERM) keeps the best epoch so far as
the model, says so in the log and in ``barley info``; before any epoch is kept it is an
ordinary interruption."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from barley.cli import main
from barley.neural.options import Training

from toy_language import treebank

torch = pytest.importorskip("torch", reason="neural training needs PyTorch (pip install -e '.[neural]' in barley's checkout)")

from barley.neural.fitting import fit_epochs  # noqa: E402  (needs PyTorch)


class _Run:
    """A one-weight model trained by :func:`fit_epochs`, interrupted at a chosen minibatch."""

    def __init__(self, interrupt_at_step: int, dev_las: list[float]):
        torch.manual_seed(0)
        self.model = torch.nn.Linear(2, 1)
        self.steps, self.interrupt_at_step, self.dev_las = 0, interrupt_at_step, dev_las
        self.seen: list[dict] = []  # the weights at each dev evaluation

    def step(self, indices):
        self.steps += 1
        if self.steps == self.interrupt_at_step:
            raise KeyboardInterrupt
        return self.model(torch.ones(len(indices), 2)).pow(2).mean()

    def evaluate(self, parser, dev):
        self.seen.append(copy.deepcopy(self.model.state_dict()))
        return {"LAS": self.dev_las[len(self.seen) - 1], "UAS": 0.0}

    def fit(self, dev=("a sentence",), log=None):
        # 4 sentences of 10 words in minibatches of 20: two steps per epoch
        return fit_epochs(None, self.model, [10] * 4, self.step, Training(epochs=6, batch_words=20),
                          list(dev) if dev else None, np.random.default_rng(1), log or (lambda line: None),
                          self.evaluate)


def test_an_interrupted_training_keeps_the_best_epoch_so_far():
    run, lines = _Run(interrupt_at_step=8, dev_las=[50.0, 70.0, 60.0]), []
    history = run.fit(log=lines.append)  # epochs 1-3 scored, interrupted in epoch 4
    assert history["interrupted"] is True
    assert (history["epochs_run"], history["best_epoch"], history["dev_las_per_epoch"]) == (3, 2, [50.0, 70.0, 60.0])
    kept = run.model.state_dict()
    assert all(torch.equal(kept[name], run.seen[1][name]) for name in kept)
    assert not all(torch.equal(kept[name], run.seen[2][name]) for name in kept)
    assert "interrupted in epoch 4: stopping, keeping epoch 2" in lines


def test_without_dev_the_last_finished_epoch_is_kept():
    run = _Run(interrupt_at_step=6, dev_las=[])
    history = run.fit(dev=None)
    assert (history["epochs_run"], history["best_epoch"], history["interrupted"]) == (2, 2, True)


def test_before_any_epoch_is_kept_it_is_an_ordinary_interruption():
    with pytest.raises(KeyboardInterrupt):
        _Run(interrupt_at_step=2, dev_las=[50.0]).fit()  # in epoch 1


def test_the_command_saves_the_kept_epoch_and_info_says_it_was_interrupted(tmp_path, monkeypatch, capsys):
    import barley.kinds

    train, dev, model = tmp_path / "train.conllu", tmp_path / "dev.conllu", str(tmp_path / "m.barley")
    treebank(train, 30, seed=1)
    treebank(dev, 10, seed=2)
    scored = []
    evaluate = barley.kinds.evaluate_parser

    def interrupted_at_the_third_dev_score(parser, sentences, *args, **kwargs):
        scored.append(1)
        if len(scored) == 3:
            raise KeyboardInterrupt
        return evaluate(parser, sentences, *args, **kwargs)

    monkeypatch.setattr(barley.kinds, "evaluate_parser", interrupted_at_the_third_dev_score)
    status = main(["train", "--parser", "neural-transition", "--system", "arc-hybrid", "--train", str(train),
                   "--dev", str(dev), "--epochs", "5", "--lstm-hidden", "16", "--lstm-layers", "1", "--hidden", "16",
                   "--form-dim", "8", "--char-hidden", "8", "-m", model])
    log = capsys.readouterr().err
    assert status == 130, log  # Ctrl-C's status, though the model is written: it is not the finished training
    assert "interrupted in epoch 3: stopping, keeping epoch" in log
    assert f"barley train: interrupted: {model} holds the best epoch so far, not a finished training" in log
    assert main(["info", model]) == 0
    assert "of 2 kept (training interrupted)" in capsys.readouterr().out
