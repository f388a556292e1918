"""The one loop driven by the training policies: static-oracle instances and exploration."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from barley import cli
from barley.transition.loop import advance
from barley.pipeline.describe import describe
from barley.errors import BarleyError
import barley
from barley.transition.parser import default_oracle
from barley.kinds import evaluate_parser, train
from barley.systems import REGISTRY, get_system, run_oracle
from barley.transition.training import (AFTER_TWO_EPOCHS, EVERY_MISTAKE, Classes, Exploration, FollowOracle, Oracle,
                             perceptron_exploration)
from random_trees import any_tree
from fixed_grammar import toy_treebank

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

EXPLORING = sorted(name for name in REGISTRY if get_system(name).exploration_oracle)
STATIC_ONLY = sorted(name for name in REGISTRY if not get_system(name).exploration_oracle)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("toy")
    toy_treebank(folder / "train.conllu", 120, seed=1)
    toy_treebank(folder / "test.conllu", 40, seed=2)
    return folder


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_the_static_policy_asks_the_oracle_where_parsing_asks_the_classifier(name):
    """Through the loop, the static oracle's recorded actions are its run's actions minus
    the forced ones (one legal move, unlabeled), in order, for trees inside and outside the class."""
    system = get_system(name)
    rng = random.Random(7)
    for _ in range(30):
        n = rng.randint(1, 9)
        heads = any_tree(rng.randint, n, single_root=False)
        labels = [-1] + [rng.randint(0, 2) for _ in range(n)]
        classes = Classes(system, ["a", "b", "c"])
        states = [system.initial(n)]
        policy = FollowOracle(system, classes, lambda state: (), states, [Oracle(system, heads, labels)], [None])
        advance(system, states, policy)
        expected, replayed = [], system.initial(n)
        for move, label in run_oracle(system, heads, labels).actions:
            legal = system.legal(replayed)
            if legal.count(True) > 1 or system.labeled[move]:
                expected.append(classes.of(move, label))
            system.apply(replayed, move, label)
        assert policy.instance_classes[0] == expected
        assert states[0].heads == replayed.heads and states[0].labels == replayed.labels


@pytest.mark.parametrize("name", EXPLORING or [pytest.param("none", marks=pytest.mark.skip(
    reason="no registered system has a dynamic oracle on this branch yet"))])
def test_exploration_learns_the_toy_language_and_is_recorded(toy, tmp_path, name):
    model = tmp_path / "m.barley"
    parser = train(str(toy / "train.conllu"), system=name, learner="perceptron", oracle="dynamic",
                   explore_after=1, explore_p=0.9, epochs=4, log=lambda m: None,
                   record_time=False)
    parser.save(str(model))
    loaded = barley.load(str(model)).parser
    assert loaded.manifest["oracle"] == "dynamic"
    assert loaded.manifest["training"]["exploration"] == {"after": 1, "p": 0.9}
    assert "(oracle dynamic, exploring after 1 epochs with p 0.9" in describe(loaded.manifest)
    assert evaluate_parser(loaded, str(toy / "test.conllu"))["LAS"] >= 95.0


@pytest.mark.parametrize("name", EXPLORING[:1] or [pytest.param("none", marks=pytest.mark.skip(
    reason="no registered system has a dynamic oracle on this branch yet"))])
def test_exploration_is_deterministic_for_a_seed(toy, tmp_path, name):
    paths = []
    for number in range(2):
        paths.append(tmp_path / f"m{number}.barley")
        train(str(toy / "train.conllu"), system=name, learner="perceptron", oracle="dynamic",
              learner_options={"epochs": 3}, seed=5, log=lambda m: None, record_time=False).save(str(paths[-1]))
    assert paths[0].read_bytes() == paths[1].read_bytes()


@pytest.mark.parametrize("name", STATIC_ONLY)
def test_a_system_without_a_dynamic_oracle_is_refused_in_one_line(toy, tmp_path, capsys, name):
    status = cli.main(["train", "--train", str(toy / "train.conllu"), "-a", name, "-l", "perceptron",
                       "--oracle", "dynamic", "-m", str(tmp_path / "m")])
    err = capsys.readouterr().err
    assert status == 2 and f"{name} has no dynamic oracle" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("learner, split, message", [
    ("linear", "default", "not the linear learner"),
    ("perceptron", "UPOS(Input[0])", "split by UPOS(Input[0])")])
def test_dynamic_oracle_training_needs_the_unsplit_perceptron(toy, learner, split, message):
    with pytest.raises(BarleyError, match=re.escape(message)):
        train(str(toy / "train.conllu"), system="arc-eager", learner=learner, split=split, oracle="dynamic",
              log=lambda m: None)


def test_exploration_options_are_checked(toy):
    with pytest.raises(BarleyError, match="explore-p"):
        EVERY_MISTAKE.given(None, 1.5)
    with pytest.raises(BarleyError, match="explore-after"):
        train(str(toy / "train.conllu"), learner="perceptron", explore_after=-1, log=lambda m: None)
    assert EVERY_MISTAKE.given(3, None) == Exploration(after=3, p=1.0)
    with pytest.raises(BarleyError, match="a graph parser takes no option --oracle"):
        train(str(toy / "train.conllu"), parser="graph", oracle="dynamic", log=lambda m: None)
    with pytest.raises(BarleyError, match="apply to --oracle dynamic only"):
        train(str(toy / "train.conllu"), explore_p=0.5, log=lambda m: None)


def test_options_of_another_kind_of_parser_are_refused_in_one_line(toy, tmp_path, capsys):
    for kind, option, flag in (("transition", ["--decoder", "mst"], "--decoder"),
                               ("graph", ["-l", "perceptron"], "--learner"), ("graph", ["--oracle", "static"], "--oracle")):
        status = cli.main(["train", "--train", str(toy / "train.conllu"), "--parser", kind, *option,
                           "-m", str(tmp_path / "m")])
        err = capsys.readouterr().err
        assert status == 2 and f"a {kind} parser takes no option {flag}" in err
        assert len(err.splitlines()) == 1 and not (tmp_path / "m").exists()


def test_classes_are_every_move_with_every_label_for_labeled_moves():
    system = get_system("arc-eager")
    classes = Classes(system, ["x", "y"])
    assert len(classes.table) == sum(2 if labeled else 1 for labeled in system.labeled)
    assert all(classes.table[classes.of(m, label)].tolist() == [m, label if system.labeled[m] else -1]
               for m in range(len(system.moves)) for label in (0, 1))
    assert np.array_equal(classes.table[:, 1] >= 0, np.array(system.labeled)[classes.table[:, 0]])


@pytest.mark.parametrize("system, learner, split, expected", [
    ("arc-eager", "perceptron", "default", "dynamic"), ("swap-lazy", "perceptron", "default", "dynamic"),
    ("arc-eager", "perceptron", "UPOS(Input[0])", "static"), ("planar", "perceptron", "default", "static"),
    ("arc-eager", "linear", "default", "static"), ("arc-eager", "svm-poly2", "none", "static")])
def test_the_default_oracle_is_the_best_measured(system, learner, split, expected):
    """Exploration for the unsplit perceptron where the system has costs (README's figures)."""
    assert default_oracle(system, learner, split) == expected


def test_the_perceptron_trains_by_exploration_unless_told(toy):
    parser = train(str(toy / "train.conllu"), learner="perceptron", epochs=2, log=lambda m: None)
    assert parser.manifest["oracle"] == "dynamic"
    assert parser.manifest["training"]["exploration"] == {"after": 0, "p": 1.0}  # every mistake followed
    swap = train(str(toy / "train.conllu"), system="swap-eager", learner="perceptron", epochs=2, log=lambda m: None)
    assert swap.manifest["training"]["exploration"] == {"after": 2, "p": 0.9}  # its costs are not exact
    with pytest.raises(BarleyError, match="apply to --oracle dynamic only"):
        train(str(toy / "train.conllu"), explore_p=0.5, log=lambda m: None)  # the linear learner: static


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_the_perceptron_follows_every_mistake_where_the_costs_are_exact(name):
    system = get_system(name)
    if not system.exploration_oracle:
        pytest.skip(f"{name} has no costs to explore with")
    assert perceptron_exploration(system) == (EVERY_MISTAKE if system.dynamic_oracle else AFTER_TWO_EPOCHS)
    assert name.startswith("swap") == (perceptron_exploration(system) == AFTER_TWO_EPOCHS)


def test_the_perceptron_trains_with_the_rich_features_by_name(toy, tmp_path):
    from barley.features import rich_model
    parser = train(str(toy / "train.conllu"), learner="perceptron", features="rich", epochs=3, log=lambda m: None)
    assert parser.features.text == rich_model("arc-eager").text
    parser.save(str(tmp_path / "m.barley"))
    assert barley.load(str(tmp_path / "m.barley")).parser.features.text == rich_model("arc-eager").text
    assert evaluate_parser(parser, str(toy / "test.conllu"))["LAS"] >= 90.0
