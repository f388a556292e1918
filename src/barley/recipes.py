"""The documented ways to train a full pipeline from one treebank: barley's *recipes*.

A recipe names the components of the pipeline, each one's training options and the
jackknifing of the tags later components learn from — what ``barley train`` does with a
treebank folder (``barley train UD_English-EWT/ -m en.barley``) and what
``scripts/build_default_model.py`` does to build the shipped models, so that both train
the same way from one definition. Each recipe is also a list of ``barley train`` options
(:meth:`Recipe.arguments`): every component option is the ``barley train`` option of the
same name (``tokenizer`` is ``--tokenizer``, ``epochs`` is ``--epochs``, ``tokenizer_hidden`` is
``--tokenizer-hidden``, which the tokenizer itself calls ``hidden``).

* ``neural`` — the shipped default ``en_ewt``: a neural character-level tokenizer and
  sentence splitter (a BiLSTM 2 × 128 over windows of 512 characters: on EWT test from raw text,
  0.34 LAS above the default 1 × 64 over 256, ``docs/results/pipeline.md``), then the joint
  network (UPOS, XPOS, UFeats, lemma and a biaffine parser from one encoder, UDPipe 2's shape;
  Straka 2018), trained 40 epochs along a cosine, then 20 more from a warm restart
  (``restart_epochs``: on EWT test from raw text 0.24 LAS more, 84.85 → 85.09). On a treebank of
  fewer than 100,000 training words (:data:`SMALL_TREEBANK`) it is budgeted to train in half an
  hour on 2 cores: the joint network reads about 1,000,000 words along one cosine (at least 20 epochs,
  at most 60), with no warm restart, and the tokenizer about 480,000 (at most its 30 epochs). PyTorch
  to train; its dev set (or the end of the training data) chooses the epochs kept. About two hours and
  a quarter on EWT with 2 cores (the restart 41 minutes of it). The linear tokenizer is trained too (seconds
  to a minute) and the one with the better Tokens + Sentences + Words F1 on dev is kept
  (:mod:`barley.tokenizer.choice`): the neural one on EWT, the linear one on UD_Vietnamese-VTB, whose words
  with spaces it finds better (dev Words F1 86.27 against 84.27; test 88.44 against 84.98).
* ``linear`` — the shipped ``en_ewt_linear``: the linear tokenizer, tagger and lemmatizer
  and an arc-eager parser (Nivre 2003) learning from 5-fold jackknifed tags. No PyTorch;
  a few minutes on EWT.
* ``quick`` — a first model in minutes: the linear tokenizer, then a smaller joint network
  (BiLSTMs of 128 per direction, characters of 64, dropout 0.2) trained at twice the learning
  rate along a cosine for as many epochs as read :data:`QUICK_WORDS` words (at most 20, at least
  3), no warm restart: on UD_Wolof-WTB (23,561 words) 20 epochs, dev LAS 71.92 against 74.70 for
  the neural recipe of 40 + 20 epochs, in 6.2 minutes of 2 cores (``docs/training.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from importlib.util import find_spec

THREADS = 2
"""PyTorch threads of the neural recipe: part of what makes it reproducible (a seed and a number of
threads give the same model)."""
SMALL_TREEBANK = 100_000
"""Below this many training words the neural recipe trains by :data:`SMALL_DATA`: budgets that read a
treebank of 50,000 words in about 30 minutes of 2 cores (the joint network about 1,000 words a second with
its dev scoring, the neural tokenizer about 5,000 characters), where EWT's recipe (40 epochs, then 20 from a
warm restart) took an hour for 23,561 words. On UD_Wolof-WTB's dev set that recipe's score was flat from
epoch 28 of 40 (89.42, best 89.47 at epoch 36) and the warm restart's 20 epochs added 0.12 (a third of the
time): small treebanks gain little from the epochs past one cosine of about 1,000,000 words
(``docs/training.md``)."""
QUICK_WORDS = 480_000
"""The words the quick recipe's joint network reads: 20 epochs of a 24,000-word treebank, which take about
8 minutes of 2 cores with its network."""


@dataclass(frozen=True)
class EpochBudget:
    """A component's epochs by the size of the treebank: as many as read ``words`` training words, at
    least ``least`` and at most ``most`` — a budget of words, never of wall time, so that a seed still
    gives one model. ``option`` is the ``barley train`` option that sets them."""
    component: str
    option: str
    words: int
    least: int
    most: int

    def epochs(self, training_words: int) -> int:
        return min(self.most, max(self.least, math.ceil(self.words / training_words)))


@dataclass(frozen=True)
class SizeRule:
    """What a recipe changes for a treebank of fewer than ``below`` training words: ``options`` (per
    component, as :attr:`Recipe.options`) and the ``budgets`` of epochs."""
    below: int
    options: dict[str, dict] = field(default_factory=dict)
    budgets: tuple[EpochBudget, ...] = ()


SMALL_DATA = SizeRule(SMALL_TREEBANK, {"joint": {"restart_epochs": 0}},
                      (EpochBudget("joint", "epochs", 1_000_000, least=20, most=60),
                       EpochBudget("tokenize", "tokenizer_epochs", 480_000, least=5, most=30)))
"""The neural recipe on a small treebank (:data:`SMALL_TREEBANK`): 43 joint epochs on UD_Wolof-WTB's
23,561 words, 20 on a treebank of 50,000; 21 and 10 tokenizer epochs (early stopping may end them sooner)."""


@dataclass(frozen=True)
class Recipe:
    name: str
    components: tuple[str, ...]
    options: dict[str, dict] = field(default_factory=dict)
    """Per component, its training options (each one the ``barley train`` option of the same name)."""
    jackknife: int | None = None
    summary: str = ""
    budgets: tuple[EpochBudget, ...] = ()
    """Epochs by the treebank's size, whatever its size (:meth:`for_words`)."""
    small: SizeRule | None = None
    """What changes on a small treebank (:meth:`for_words`)."""

    def for_words(self, words: int) -> Recipe:
        """The recipe for a treebank of ``words`` training words: the options of :attr:`small` when it is
        that small, and the epochs of the budgets; the rest as it is."""
        if words <= 0:
            return self
        options = {component: dict(values) for component, values in self.options.items()}
        budgets = self.budgets
        if self.small is not None and words < self.small.below:
            for component, values in self.small.options.items():
                options[component].update(values)
            budgets = self.small.budgets + budgets
        for budget in budgets:
            options[budget.component][budget.option] = budget.epochs(words)
        return replace(self, options=options)

    def arguments(self) -> list[str]:
        """The same recipe as ``barley train`` options."""
        arguments = ["--components", ",".join(self.components)]
        for values in self.options.values():
            for name, value in values.items():
                arguments += ["--" + name.replace("_", "-"), str(value)]
        return arguments + (["--no-jackknife"] if self.jackknife is None else ["--jackknife", str(self.jackknife)])

    def pipeline_options(self) -> dict[str, dict]:
        """Fresh copies of the components' options, for :meth:`barley.pipeline.Pipeline.train`: the
        tokenizer's under its own names (``tokenizer_hidden`` → ``hidden``; ``tokenizer``, its kind, stays)."""
        def own(component: str, name: str) -> str:
            return name.removeprefix("tokenizer_") if component == "tokenize" else name

        return {component: {own(component, name): value for name, value in values.items()}
                for component, values in self.options.items()}


RECIPES = {
    "neural": Recipe("neural", ("tokenize", "joint"),
                     {"tokenize": {"tokenizer": "linear,neural", "tokenizer_hidden": 128, "tokenizer_layers": 2,
                                   "tokenizer_window": 512, "tokenizer_context": 32},
                      "joint": {"epochs": 40, "lr_schedule": "cosine", "patience": 10, "threads": THREADS,
                                "restart_epochs": 20, "restart_learning_rate": 1e-3, "linear_tags": True}},
                     summary="linear and neural tokenizers, the better on dev kept, then the joint tagger, "
                             "lemmatizer and biaffine parser (PyTorch)",
                     small=SMALL_DATA),
    "linear": Recipe("linear", ("tokenize", "tag", "parse"), {"parse": {"system": "arc-eager"}}, jackknife=5,
                     summary="linear tokenizer, tagger and lemmatizer, then an arc-eager parser on jackknifed tags"),
    "quick": Recipe("quick", ("tokenize", "joint"),
                    {"tokenize": {"tokenizer": "linear"},
                     "joint": {"epochs": 20, "lr_schedule": "cosine", "patience": 20, "threads": THREADS,
                               "lstm_hidden": 128, "char_hidden": 64, "learning_rate": 4e-3, "dropout": 0.2,
                               "linear_tags": True}},
                    summary="a first model in minutes: linear tokenizer, then a smaller joint network trained "
                            "fewer epochs (PyTorch)",
                    budgets=(EpochBudget("joint", "epochs", QUICK_WORDS, least=3, most=20),)),
}
"""The recipes by name: what the shipped models were trained with (``models/README.md``)."""


def torch_installed() -> bool:
    """Whether PyTorch can be imported (found without importing it: that takes seconds)."""
    return find_spec("torch") is not None


def default_recipe() -> Recipe:
    """The neural recipe when PyTorch is installed (it trains the neural components), else the linear one."""
    return RECIPES["neural" if torch_installed() else "linear"]
