"""The ``neural-transition`` kind of parser (:mod:`barley.kinds`): any transition system
with a BiLSTM encoder and an MLP scorer over the vectors at the positions of a position
model (Kiperwasser & Goldberg 2016), trained through the one loop with the dynamic oracle
and exploration where the system has one, else the static oracle.

PyTorch is needed to train only (as for the ``biaffine`` kind): a trained parser parses with
numpy (:mod:`barley.neural.transition_parser`); :mod:`barley.neural.transition_training` trains it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from barley.conllu import Sentence
from barley.errors import BarleyError
from barley.kinds import ParserKind, options_of
from barley.neural import require_torch
from barley.neural.options import (EncoderOptions, Training, TransitionOptions, describe_encoder, describe_training,
                                   from_given)
from barley.transition.training import AFTER_TWO_EPOCHS


def train_kind(sentences: list[Sentence], trees: list[tuple[list[int], list[str]]], *, source: str,
               single_root: bool, seed: int, tags: str, transforms: Sequence, log: Callable[[str], None],
               dev: list[Sentence] | None, system: str = "arc-hybrid", positions: str | None = None,
               oracle: str | None = None, explore_after: int | None = None, explore_p: float | None = None,
               hidden: int | None = None, epochs: int | None = None, patience: int | None = None,
               batch_words: int | None = None, learning_rate: float | None = None, lr_schedule: str | None = None,
               device: str = "cpu",
               threads: int = 1, pretrained: str | None = None, form_dim: int | None = None,
               lemma_dim: int | None = None, upos_dim: int | None = None, xpos_dim: int | None = None,
               feats_dim: int | None = None, char_dim: int | None = None, char_hidden: int | None = None,
               lstm_hidden: int | None = None, lstm_layers: int | None = None, dropout: float | None = None,
               word_dropout: float | None = None, min_form_count: int | None = None):
    """A neural transition parser (the ``neural-transition`` kind of :func:`barley.kinds.train`).

    ``system``: any transition system (default arc-hybrid, Kiperwasser & Goldberg's).
    ``positions``: a position model file (:mod:`barley.neural.positions`; default the system's).
    ``oracle``: ``dynamic`` (exploration, Goldberg & Nivre 2012: after ``explore_after`` epochs a
    costly prediction is followed with probability ``explore_p``) or ``static``; default dynamic
    where the system has a dynamic oracle. ``hidden``: the MLP's hidden layer. The encoder's and
    training's options are the biaffine kind's (:func:`barley.neural.biaffine.train_kind`).
    """
    given = {name: value for name, value in locals().items() if value is not None}
    require_torch()
    from barley.neural.positions import load_positions
    from barley.neural.transition_training import train_neural_transition
    from barley.transition.parser import ORACLES
    from barley.systems import get_system
    from barley.systems.base import NoDynamicOracle
    from barley.tree import label_ids, label_table

    encoder, scorer, training = from_given(given, EncoderOptions, TransitionOptions, Training, device=device,
                                           threads=threads)
    the_system = get_system(system, single_root=single_root)
    oracle = oracle or ("dynamic" if the_system.exploration_oracle else "static")
    if oracle not in ORACLES:
        raise BarleyError(f"unknown --oracle {oracle!r}", fix="choose " + " or ".join(ORACLES))
    if oracle == "dynamic" and not the_system.exploration_oracle:
        raise NoDynamicOracle(the_system.name)
    if oracle == "static" and (explore_after, explore_p) != (None, None):
        raise BarleyError("--explore-after and --explore-p apply to --oracle dynamic only",
                          fix="add --oracle dynamic, or leave them out")
    exploration = NEURAL_EXPLORATION.given(explore_after, explore_p)
    position_model = load_positions(positions, the_system.name)
    position_model.check(the_system)
    labels, root_label = label_table(trees)
    id_trees = [(heads, ids) for (heads, _), ids in zip(trees, label_ids(trees, labels))]
    log(f"training a neural {the_system.name} parser (Kiperwasser & Goldberg 2016) on {source}: "
        f"{len(sentences)} sentences, {sum(len(s) for s in sentences)} words; tags {tags}; "
        f"BiLSTM {encoder.lstm_layers} × {encoder.lstm_hidden}")
    trained = train_neural_transition(
        sentences, id_trees, labels, root_label, system=the_system, positions=position_model, encoder=encoder,
        scorer=scorer, training=training, dynamic=oracle == "dynamic", explore_after=exploration.after,
        explore_p=exploration.p, transforms=transforms, dev=dev, pretrained=pretrained, seed=seed, device=device,
        threads=threads, log=log)
    trained.manifest["oracle"] = oracle
    trained.manifest["training"].update({"pretrained": pretrained, "threads": threads, "device": device,
                                         **({"exploration": {"after": exploration.after, "p": exploration.p}}
                                            if oracle == "dynamic" else {})})
    return trained


def load(manifest: dict, arrays: dict, path: str):
    """The parser of a model file: numpy only, no PyTorch."""
    from barley.neural.transition_parser import NeuralTransitionParser

    return NeuralTransitionParser.from_files(manifest, arrays, path)


def describe(manifest: dict) -> list[str]:
    """The lines of ``barley info`` about a neural transition parser."""
    from barley.transforms import describe_transforms

    system, encoder, training = manifest.get("system", {}), manifest.get("encoder", {}), manifest.get("training", {})
    exploration = training.get("exploration")
    positions = [line.split("#")[0].strip() for line in manifest.get("positions", "").splitlines()]
    return [
        f"parser:      neural transition (Kiperwasser & Goldberg 2016), {system.get('name')} (oracle "
        f"{manifest.get('oracle')}" + (f", exploring after {exploration['after']} epochs with p {exploration['p']}"
                                       if exploration else "")
        + (", single root" if system.get("single_root") else "") + ")"
        + (f"; {training['outside_class_sentences']} training trees outside its class"
           if "outside_class_sentences" in training else ""),
        describe_transforms(manifest),
        describe_encoder(encoder),
        f"scorer:      MLP, hidden layer {manifest.get('scorer', {}).get('hidden')}, over "
        f"{', '.join(p for p in positions if p)} ({manifest.get('positions_source')}); "
        f"{len(manifest.get('labels', []))} labels (root label {manifest.get('root_label')!r})",
        describe_training(training),
    ]


NEURAL_EXPLORATION = AFTER_TWO_EPOCHS
"""The neural transition parser's default exploration: the figures of docs/results/neural.md were
trained with it (the perceptron's, :func:`barley.transition.training.perceptron_exploration`, was not
measured for this parser)."""


NEURAL_TRANSITION = ParserKind("neural-transition", options_of(train_kind), train_kind, load, describe,
                               takes_dev=True)
