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
  fewer than 50,000 training words the first training's epochs grow so that the network reads at
  least 2,000,000 words (:meth:`Recipe.for_words`, :data:`BUDGET_WORDS`). PyTorch to train;
  its dev set (or the end of the training data) chooses the epochs kept. About two hours and a
  quarter on EWT with 2 cores (the restart 41 minutes of it).
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
BUDGET_WORDS = 2_000_000
"""The words the neural recipe's joint network reads in its first training at least (epochs × training
words): a budget that scales with the data, never with wall time, so that a seed still gives one model.
On the dev sets every small treebank was still improving at the recipe's 40 epochs along the cosine
(UD_Wolof-WTB, 23,561 words: best dev score at epoch 36 of 40; UD_Turkish-IMST: best at 40 of 40;
UD_Latin-Perseus's held-out part: best at 40 of 40, and at epoch 59 of 120 with the cap raised, 1.34
test LAS more), while EWT levels off within its 40 (``docs/training.md``)."""
MAX_EPOCHS = 150
"""The most epochs :data:`BUDGET_WORDS` raises a training to (a treebank of 13,333 words or fewer)."""
QUICK_WORDS = 480_000
"""The words the quick recipe's joint network reads: 20 epochs of a 24,000-word treebank, which take about
8 minutes of 2 cores with its network."""


@dataclass(frozen=True)
class EpochBudget:
    """The joint network's epochs by the size of the treebank: as many as read ``words`` training words,
    at least ``least`` and at most ``most``."""
    words: int
    least: int
    most: int

    def epochs(self, training_words: int) -> int:
        return min(self.most, max(self.least, math.ceil(self.words / training_words)))


@dataclass(frozen=True)
class Recipe:
    name: str
    components: tuple[str, ...]
    options: dict[str, dict] = field(default_factory=dict)
    """Per component, its training options (each one the ``barley train`` option of the same name)."""
    jackknife: int | None = None
    summary: str = ""
    budget: EpochBudget | None = None
    """The joint network's epochs by the treebank's size (:meth:`for_words`); None: its ``epochs`` as written."""

    def for_words(self, words: int) -> Recipe:
        """The recipe for a treebank of ``words`` training words: the joint network's ``epochs`` as its
        :attr:`budget` says, the rest as it is."""
        joint = self.options.get("joint")
        if self.budget is None or joint is None or words <= 0:
            return self
        return replace(self, options={**self.options, "joint": {**joint, "epochs": self.budget.epochs(words)}})

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
                     {"tokenize": {"tokenizer": "neural", "tokenizer_hidden": 128, "tokenizer_layers": 2,
                                   "tokenizer_window": 512, "tokenizer_context": 32},
                      "joint": {"epochs": 40, "lr_schedule": "cosine", "patience": 10, "threads": THREADS,
                                "restart_epochs": 20, "restart_learning_rate": 1e-3}},
                     summary="neural tokenizer, then the joint tagger, lemmatizer and biaffine parser (PyTorch)",
                     budget=EpochBudget(BUDGET_WORDS, least=40, most=MAX_EPOCHS)),
    "linear": Recipe("linear", ("tokenize", "tag", "parse"), {"parse": {"system": "arc-eager"}}, jackknife=5,
                     summary="linear tokenizer, tagger and lemmatizer, then an arc-eager parser on jackknifed tags"),
    "quick": Recipe("quick", ("tokenize", "joint"),
                    {"tokenize": {"tokenizer": "linear"},
                     "joint": {"epochs": 20, "lr_schedule": "cosine", "patience": 20, "threads": THREADS,
                               "lstm_hidden": 128, "char_hidden": 64, "learning_rate": 4e-3, "dropout": 0.2}},
                    summary="a first model in minutes: linear tokenizer, then a smaller joint network trained "
                            "fewer epochs (PyTorch)",
                    budget=EpochBudget(QUICK_WORDS, least=3, most=20)),
}
"""The recipes by name: what the shipped models were trained with (``models/README.md``)."""


def torch_installed() -> bool:
    """Whether PyTorch can be imported (found without importing it: that takes seconds)."""
    return find_spec("torch") is not None


def default_recipe() -> Recipe:
    """The neural recipe when PyTorch is installed (it trains the neural components), else the linear one."""
    return RECIPES["neural" if torch_installed() else "linear"]
