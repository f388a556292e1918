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
  (``restart_epochs``: on EWT test from raw text 0.24 LAS more, 84.85 → 85.09). PyTorch to train;
  its dev set (or the end of the training data) chooses the epochs kept. About two hours and a
  quarter on EWT with 2 cores (the restart 41 minutes of it).
* ``linear`` — the shipped ``en_ewt_linear``: the linear tokenizer, tagger and lemmatizer
  and an arc-eager parser (Nivre 2003) learning from 5-fold jackknifed tags. No PyTorch;
  a few minutes on EWT.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.util import find_spec

THREADS = 2
"""PyTorch threads of the neural recipe: part of what makes it reproducible (a seed and a number of
threads give the same model)."""


@dataclass(frozen=True)
class Recipe:
    name: str
    components: tuple[str, ...]
    options: dict[str, dict] = field(default_factory=dict)
    """Per component, its training options (each one the ``barley train`` option of the same name)."""
    jackknife: int | None = None
    summary: str = ""

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
                     summary="neural tokenizer, then the joint tagger, lemmatizer and biaffine parser (PyTorch)"),
    "linear": Recipe("linear", ("tokenize", "tag", "parse"), {"parse": {"system": "arc-eager"}}, jackknife=5,
                     summary="linear tokenizer, tagger and lemmatizer, then an arc-eager parser on jackknifed tags"),
}
"""The recipes by name: what the shipped models were trained with (``models/README.md``)."""


def torch_installed() -> bool:
    """Whether PyTorch can be imported (found without importing it: that takes seconds)."""
    return find_spec("torch") is not None


def default_recipe() -> Recipe:
    """The neural recipe when PyTorch is installed (it trains the neural components), else the linear one."""
    return RECIPES["neural" if torch_installed() else "linear"]
