"""The options of the neural parsers, as data (no PyTorch needed): the encoder's sizes and
regularisation, the biaffine scorer's, and training's. Each field that is a ``barley train`` option declares
it here, beside its default (:func:`barley.option.option`: help and takers; without takers, every neural
kind), and :mod:`barley.options` collects them.
"""

from __future__ import annotations

import math

from dataclasses import asdict, dataclass, fields

from barley.errors import BarleyError
from barley.option import BIAFFINE, JOINT, NEURAL_TRANSITION, option


CHARACTERS = ("add", "concat")


@dataclass(frozen=True)
class EncoderOptions:
    """Sizes and regularisation of the encoder; the defaults are sized for a CPU."""

    form_dim: int = option(100, "form embedding size (the pretrained vectors' when --pretrained is given)")
    lemma_dim: int = option(50, "LEMMA embedding size", BIAFFINE, NEURAL_TRANSITION)
    upos_dim: int = option(32, "UPOS embedding size", BIAFFINE, NEURAL_TRANSITION)
    xpos_dim: int = option(32, "XPOS embedding size", BIAFFINE, NEURAL_TRANSITION)
    feats_dim: int = option(32, "FEATS embedding size (the mean of its atoms' embeddings)", BIAFFINE,
                            NEURAL_TRANSITION)
    treebank_dim: int = option(12, "treebank embedding size of a joint network trained on several treebanks "
                                   "(barley train FOLDER FOLDER ...; Stymne et al. 2018)", JOINT)
    """The treebank embedding's size, where the encoder reads ``treebank`` (Stymne et al. 2018: 12)."""
    char_dim: int = option(32, "character embedding size")
    char_hidden: int = option(64, "character BiLSTM size (per direction)")
    lstm_hidden: int = option(128, "BiLSTM size per direction")
    lstm_layers: int = option(2, "BiLSTM layers")
    dropout: float = option(0.33, "dropout on embeddings, between LSTM layers and in the MLPs")
    word_dropout: float = option(0.25, "probability of replacing a training form and lemma by the unknown word")
    min_form_count: int = option(2, "forms seen fewer times share the unknown form's embedding (the character "
                                    "model tells them apart)")
    inputs: tuple[str, ...] = ("form", "lemma", "upos", "xpos", "feats")
    """The columns the encoder reads (:data:`barley.neural.inputs.INPUTS`); FORM always (with the characters)."""
    characters: str = "add"
    """How the character BiLSTM's final states join the form embedding: ``add`` (projected to its
    size and added) or ``concat`` (appended as they are: the BiLSTM reads the two apart)."""

    def __post_init__(self):
        object.__setattr__(self, "inputs", tuple(self.inputs))  # a list when read from a manifest

    def check(self) -> None:
        from barley.neural.inputs import INPUTS

        if "form" not in self.inputs or not set(self.inputs) <= set(INPUTS) or len(set(self.inputs)) != len(
                self.inputs):
            raise BarleyError(f"encoder inputs {', '.join(self.inputs)}: give form and any of "
                              f"{', '.join(INPUTS[1:])}, each once")
        if self.characters not in CHARACTERS:
            raise BarleyError(f"unknown way of joining characters {self.characters!r}",
                              fix="choose " + " or ".join(CHARACTERS))
        for name, value in asdict(self).items():
            if name in ("inputs", "characters"):
                continue
            if name in ("dropout", "word_dropout"):
                if not 0.0 <= value < 1.0:
                    raise BarleyError(f"--{name.replace('_', '-')} must be in [0, 1), not {value}")
            elif value < 1:
                raise BarleyError(f"--{name.replace('_', '-')} must be at least 1, not {value}")

    @property
    def output_dim(self) -> int:
        return 2 * self.lstm_hidden

    @property
    def input_dims(self) -> dict[str, int]:
        """The size of each part of the input vector, in order: each column read, and the characters
        after the form when they are concatenated."""
        dims = {name: getattr(self, f"{name}_dim") for name in self.inputs}
        if self.characters == "concat":
            dims = {"form": dims.pop("form"), "chars": 2 * self.char_hidden, **dims}
        return dims


@dataclass(frozen=True)
class BiaffineOptions:
    arc_mlp: int = option(256, "arc MLP size", BIAFFINE, JOINT)
    label_mlp: int = option(100, "label MLP size", BIAFFINE, JOINT)

    def check(self) -> None:
        for name, value in (("arc-mlp", self.arc_mlp), ("label-mlp", self.label_mlp)):
            if value < 1:
                raise BarleyError(f"--{name} must be at least 1, not {value}")


@dataclass(frozen=True)
class TransitionOptions:
    """The neural transition scorer: one hidden layer over the vectors at the positions."""

    hidden: int = option(256, "hidden layer size of the neural transition scorer", NEURAL_TRANSITION)

    def check(self) -> None:
        if self.hidden < 1:
            raise BarleyError(f"--hidden must be at least 1, not {self.hidden}")


LR_SCHEDULES = ("constant", "cosine")


@dataclass(frozen=True)
class Training:
    """How the neural parsers are trained (Dozat & Manning 2017 §4: Adam with β₂ = 0.9)."""

    epochs: int = 30  # declared in barley.options: --epochs reaches the other kinds of parser too
    patience: int = option(5, "early stopping: stop after N epochs without a better dev LAS (needs --dev)")
    batch_words: int = option(1000, "words per training minibatch")
    learning_rate: float = option(2e-3, "Adam's learning rate")
    clip: float = 5.0
    lr_schedule: str = option("constant", "the learning rate over the epochs: constant, or cosine (falling from "
                                          "--learning-rate towards 0 along half a cosine over --epochs)",
                              choices=LR_SCHEDULES)
    """``constant``, or ``cosine``: each epoch's learning rate falls from ``learning_rate`` towards 0
    along half a cosine over the ``epochs`` (Loshchilov & Hutter 2017, without restarts), so that
    the last epochs take small steps — what a fixed budget of epochs gains most from."""

    def check(self) -> None:
        if self.epochs < 1 or self.patience < 1 or self.batch_words < 1:
            raise BarleyError("--epochs, --patience and --batch-words must be at least 1")
        if not self.learning_rate > 0:
            raise BarleyError(f"--learning-rate must be positive, not {self.learning_rate}")
        if self.lr_schedule not in LR_SCHEDULES:
            raise BarleyError(f"unknown --lr-schedule {self.lr_schedule!r}", fix="choose " + " or ".join(LR_SCHEDULES))

    def rate(self, epoch: int) -> float:
        """The learning rate of epoch ``epoch`` (1-based): a function of the epoch alone, so that a
        resumed training goes on with the same rates."""
        if self.lr_schedule == "constant":
            return self.learning_rate
        return self.learning_rate * 0.5 * (1 + math.cos(math.pi * (epoch - 1) / self.epochs))




def from_given(given: dict, *kinds: type, device: str = "cpu", threads: int = 1) -> tuple:
    """The option dataclasses ``kinds`` of a neural kind, each from the options in ``given`` (the
    others at their defaults) and checked; ``device`` and ``threads`` are checked too."""
    if device not in ("cpu", "cuda"):
        raise BarleyError(f"unknown --device {device!r}", fix="choose cpu or cuda")
    if threads < 1:
        raise BarleyError(f"--threads must be at least 1, not {threads}")
    made = tuple(kind(**{f.name: given[f.name] for f in fields(kind) if f.name in given}) for kind in kinds)
    for options in made:
        options.check()
    return made


def describe_encoder(encoder: dict) -> str:
    """The ``barley info`` line about a neural parser's encoder (its manifest entry)."""
    names = {"lemma": "lemma", "upos": "UPOS", "xpos": "XPOS", "feats": "FEATS"}
    others = "".join(f", {names[name]} {encoder.get(f'{name}_dim')}"
                     for name in encoder.get("inputs", list(names)) if name in names)
    return (f"encoder:     BiLSTM {encoder.get('lstm_layers')} × {encoder.get('lstm_hidden')}; embeddings form "
            f"{encoder.get('form_dim')} (+ characters {encoder.get('char_hidden')}){others}; "
            f"dropout {encoder.get('dropout')}, word dropout {encoder.get('word_dropout')}")


def describe_training(training: dict) -> str:
    """The ``barley info`` line about how a neural parser was trained (its manifest entry)."""
    return (f"training:    {training.get('data')}: {training.get('sentences')} sentences, {training.get('words')} "
            f"words; tags {training.get('tags')}; seed {training.get('seed')}; epoch {training.get('best_epoch')} "
            f"of {training.get('epochs_run')} kept" + (" (training interrupted)" if training.get("interrupted") else "")
            + (f"; {training['seconds']} s" if "seconds" in training else ""))
