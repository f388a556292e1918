"""Toy treebank files and a model of every kind trained on them (toy, model): test_constraints and test_valid_ud."""

from __future__ import annotations

import pytest

QUIET = dict(log=lambda message: None)
NEURAL_TINY = dict(form_dim=16, char_dim=8, char_hidden=8, lstm_hidden=16, lstm_layers=1, epochs=1)


def toy(folder):
    from fixed_grammar import toy_treebank

    toy_treebank(folder / "train.conllu", 60, seed=1)
    toy_treebank(folder / "test.conllu", 25, seed=2)
    return folder / "train.conllu", folder / "test.conllu"


def model(kind: str, train_path):
    from barley.kinds import train
    from barley.pipeline import Pipeline
    from barley.transforms.pseudo_projective import PseudoProjective

    if kind in ("biaffine", "neural-transition", "joint"):
        pytest.importorskip("torch")
    if kind == "joint":
        return Pipeline.train(str(train_path), ["joint"], options={"joint": dict(NEURAL_TINY, arc_mlp=16, label_mlp=8)},
                              jackknife=None, record_time=False, **QUIET)
    options = {
        "arc-eager": dict(system="arc-eager"), "arc-hybrid": dict(system="arc-hybrid"),
        "arc-standard": dict(system="arc-standard"), "stack-projective": dict(system="stack-projective"),
        "covington-nonprojective": dict(system="covington-nonprojective"),
        "covington-projective": dict(system="covington-projective"),
        "planar": dict(system="planar"), "2-planar": dict(system="2-planar"), "swap-eager": dict(system="swap-eager"),
        "arc-eager+pseudo-projective": dict(system="arc-eager", transforms=[PseudoProjective()]),
        "graph-mst": dict(parser="graph", decoder="mst", epochs=1),
        "graph-eisner": dict(parser="graph", decoder="eisner", epochs=1),
        "biaffine": dict(parser="biaffine", **NEURAL_TINY),
        "neural-transition": dict(parser="neural-transition", system="arc-hybrid", **NEURAL_TINY),
    }[kind]
    return Pipeline.of(train(str(train_path), **options, **QUIET))
