"""Plugins: another package registers a transition system, a learner, a transform, a tokenizer kind and a
pipeline component through entry points (:mod:`barley.registry`), and barley trains, saves, loads and
parses with them as with its own, the conformance checks accepting each; barley's own names are never
taken, a broken plugin is one warning line (an error only when asked for), and the plugins are read
only when a name that is not barley's own is asked for.

The package is a folder put on ``sys.path`` with its ``*.dist-info`` (METADATA and
``entry_points.txt``), as pip would install it: :mod:`importlib.metadata` finds it, nothing is installed.
"""

from __future__ import annotations

import sys
import textwrap
import warnings
from importlib import resources

import pytest
from conformance import check_component, check_learner, check_system, check_tokenizer_kind, check_transform
from toy_language import treebank

import barley
from barley import cli, conllu, registry
from barley.errors import BarleyError, BarleyWarning
from barley.kinds import train
from barley.learners import LEARNERS
from barley.models.archive import read_manifest
from barley.pipeline import COMPONENTS
from barley.pipeline.tokenize import KINDS as TOKENIZERS
from barley.systems import REGISTRY as SYSTEMS
from barley.systems import get_system
from barley.transforms import REGISTRY as TRANSFORMS

PACKAGE = "barley_toy_plugins"
MODULE = '''
"""A package of barley plugins, each one of barley's own under a new name."""

from barley.learners.perceptron import PerceptronLearner
from barley.pipeline.tagger import Tagger
from barley.pipeline.tokenize import LINEAR, TokenizerKind
from barley.systems.arc_eager import ArcEager
from barley.transforms.pseudo_projective import PseudoProjective


class ToyEager(ArcEager):
    name = "toy-eager"
    aliases = ("toyeager",)


class ToyPerceptron(PerceptronLearner):
    name = "toy-perceptron"


class ToyLift(PseudoProjective):
    name = "toy-lift"


class ToyTagger(Tagger):
    name = "toytag"


TOY_TOKENIZER = TokenizerKind(LINEAR.segmenter, LINEAR.options, LINEAR.train)
'''
ENTRY_POINTS = f"""
[barley.systems]
toy-eager = {PACKAGE}:ToyEager

[barley.learners]
toy-perceptron = {PACKAGE}:ToyPerceptron

[barley.transforms]
toy-lift = {PACKAGE}:ToyLift

[barley.components]
toytag = {PACKAGE}:ToyTagger

[barley.tokenizers]
toy-linear = {PACKAGE}:TOY_TOKENIZER
"""
FEATURES = str(resources.files("barley.features") / "defaults" / "arc-eager.txt")
"""The toy system's features: arc-eager's (barley ships a feature model for its own systems only)."""


def _distribution(site, name: str, entry_points: str, module: str | None = None) -> None:
    """A distribution as pip installs one: its metadata and entry points, and its module if any."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    if module is not None:
        (site / f"{name}.py").write_text(module)


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The plugin package on ``sys.path``, its entry points read afresh, and forgotten afterwards."""
    site = tmp_path / "site"
    _distribution(site, PACKAGE, ENTRY_POINTS, MODULE)
    monkeypatch.syspath_prepend(str(site))
    registry.forget_plugins()
    yield site
    monkeypatch.undo()
    sys.modules.pop(PACKAGE, None)
    registry.forget_plugins()


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("plugins")
    treebank(folder / "train.conllu", 60, seed=1)
    treebank(folder / "test.conllu", 10, seed=2)
    return folder


def test_each_plugin_is_registered_after_barleys_own_and_found_by_name_and_alias(installed):
    assert list(SYSTEMS)[-1] == "toy-eager" and list(SYSTEMS)[0] == "arc-eager"
    assert type(get_system("toy-eager")).__name__ == "ToyEager" and get_system("toyeager").name == "toy-eager"
    assert "toy-perceptron" in LEARNERS and "toy-lift" in TRANSFORMS and "toy-linear" in TOKENIZERS
    assert list(COMPONENTS)[-1] == "toytag"


def test_the_conformance_checks_accept_each_plugin(installed, toy):
    check_system("toy-eager")
    check_learner("toy-perceptron")
    check_transform("toy-lift")
    check_tokenizer_kind("toy-linear", toy)
    check_component("toytag", toy)


def test_barley_train_uses_a_plugin_system_and_learner_and_its_model_parses(installed, toy, tmp_path):
    model = tmp_path / "toy.barley"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BarleyWarning)  # the compiled loop says it does not know the system
        assert cli.main(["train", str(toy / "train.conllu"), "-m", str(model), "--system", "toy-eager",
                         "--learner", "toy-perceptron", "--epochs", "2", "-F", FEATURES, "--seed", "1"]) == 0
        parsed = tmp_path / "parsed.conllu"
        assert cli.main(["parse", "-q", "-m", str(model), str(toy / "test.conllu"), "-o", str(parsed)]) == 0
        # the Python API, with a plugin transform too: the same parser, recorded by name in the model
        parser = train(str(toy / "train.conllu"), system="toy-eager", learner="toy-perceptron", epochs=2,
                       features=FEATURES, transforms=[TRANSFORMS["toy-lift"]()], record_time=False,
                       log=lambda message: None)
        parser.save(str(tmp_path / "lift.barley"))
        loaded = barley.load(str(tmp_path / "lift.barley"))
        again = [s.to_text() for s in loaded.parse(list(conllu.read(toy / "test.conllu")))]
    for path, transforms in ((model, []), (tmp_path / "lift.barley", ["toy-lift"])):
        manifest = read_manifest(path)
        assert (manifest["system"]["name"], manifest["learner"]["name"]) == ("toy-eager", "toy-perceptron")
        assert [transform["name"] for transform in manifest["transforms"]] == transforms
    assert parsed.read_text(encoding="utf-8") == "".join(again)


def test_a_plugin_cannot_take_a_name_of_barleys_own(installed, tmp_path, monkeypatch):
    site = tmp_path / "taker"
    _distribution(site, "taker", "[barley.systems]\narc-eager = taker:Mine\n", "class Mine:\n    name = 'arc-eager'\n")
    monkeypatch.syspath_prepend(str(site))
    registry.forget_plugins()
    with pytest.warns(BarleyWarning, match=r"skipped the transition system 'arc-eager' of the package taker 1.0: "
                                           r"barley has its own"):
        names = list(SYSTEMS)
    assert names.count("arc-eager") == 1 and get_system("arc-eager").__class__.__module__ == "barley.systems.arc_eager"


def test_a_broken_plugin_is_one_warning_line_and_an_error_only_when_asked_for(installed, tmp_path, monkeypatch):
    site = tmp_path / "broken"
    _distribution(site, "broken", """
        [barley.systems]
        gone = broken_missing_module:System
        bad-value = not a reference
    """)
    monkeypatch.syspath_prepend(str(site))
    registry.forget_plugins()
    with pytest.warns(BarleyWarning) as said:
        names = list(SYSTEMS)
        loadable = SYSTEMS.loadable()
    lines = [str(w.message) for w in said]
    assert any("skipped the transition system 'bad-value' of the package broken 1.0: 'not a reference' is not "
               "module:attribute" in line for line in lines), lines
    assert any("skipped: the transition system 'gone' of the package broken 1.0 cannot be loaded" in line
               and "ModuleNotFoundError" in line for line in lines), lines
    assert all("\n" not in line for line in lines)
    assert "gone" in names and "bad-value" not in names and "gone" not in loadable and "toy-eager" in loadable
    with pytest.raises(BarleyError, match=r"the transition system 'gone' of the package broken 1.0 cannot be loaded "
                                          r".*\(reinstall it, or pip uninstall broken\)"):
        get_system("gone")
    assert get_system("toy-eager").name == "toy-eager"  # the others still work


def test_a_table_of_every_system_leaves_a_broken_plugin_out_and_takes_the_working_one(installed, toy, tmp_path,
                                                                                    monkeypatch, capsys):
    site = tmp_path / "broken"
    _distribution(site, "broken", "[barley.systems]\ngone = broken_missing_module:System\n")
    monkeypatch.syspath_prepend(str(site))
    registry.forget_plugins()
    assert cli.main(["oracle", str(toy / "test.conllu"), "--system", "all"]) == 0
    out, err = capsys.readouterr()
    (warned,) = err.splitlines()
    assert warned.startswith("barley oracle: warning: skipped: the transition system 'gone' of the package broken 1.0 "
                             "cannot be loaded"), warned
    rows = [line.split()[0] for line in out.splitlines()[2:]]
    assert rows == [name for name in SYSTEMS if name != "gone"] and rows[-1] == "toy-eager"


def test_the_plugins_are_read_only_for_a_name_that_is_not_barleys_own(monkeypatch):
    def unread(group):
        raise AssertionError(f"the plugins of {group} were read")

    registry.forget_plugins()
    monkeypatch.setattr(registry, "entry_points", unread)
    assert get_system("arc-eager").name == "arc-eager" and get_system("nivreeager").name == "arc-eager"
    assert LEARNERS["linear"].name == "linear" and "tag" in COMPONENTS
    with pytest.raises(AssertionError, match="the plugins of barley.systems were read"):
        get_system("no-such-system")
    monkeypatch.undo()
    registry.forget_plugins()
    with pytest.raises(BarleyError, match="unknown transition system 'no-such-system' "
                                          r"\(choose one of: arc-eager, arc-standard"):
        get_system("no-such-system")
