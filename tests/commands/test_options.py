"""The option declarations (barley.options): they say what each taker really takes, ``barley train``'s
flags and the docs page are made from them, given options reach their taker and others refuse them."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest
from fixed_grammar import toy_treebank

from barley import cli, options, parse_options
from barley.commands import train as train_command
from barley.errors import BarleyError
from barley.experiment import spec
from barley.kinds import KINDS, get_kind, options_of
from barley.learners import LEARNERS, learner_class
from barley.models import archive
from barley.pipeline.joint import OPTIONAL as JOINT_OPTIONAL
from barley.pipeline.joint import OPTIONS as JOINT_OPTIONS
from barley.pipeline.tagger import Tagger
from barley.pipeline.tokenize import KINDS as TOKENIZERS
from barley.pipeline.tokenize import kind_options

ROOT = Path(__file__).resolve().parents[2]


def _keywords(taker: str) -> set[str]:
    return {option.keyword for option in options.OPTIONS if option.takes(taker)}


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_of_parser_takes_exactly_its_declared_options(kind):
    # graph: the GraphOptions object code may hand the graph kind, not an option of a person's
    assert _keywords(f"parser:{kind}") == set(get_kind(kind).options) - {"graph"}


@pytest.mark.parametrize("learner", list(LEARNERS))
def test_each_learner_takes_exactly_its_declared_options(learner):
    # the perceptron's epochs are the transition parser's --epochs (its shorthand for learner_options)
    assert _keywords(f"learner:{learner}") == set(options_of(learner_class(learner))) - {"epochs"}


def test_the_tagger_and_each_tokenizer_take_exactly_their_declared_options():
    assert _keywords("component:tag") == set(Tagger.OPTIONS)
    for kind in TOKENIZERS:
        assert _keywords(f"tokenizer:{kind}") == set(kind_options(kind))


def test_the_joint_component_takes_its_declared_options():
    declared = _keywords("component:joint")
    # what barley train sets itself (transforms, checkpoint, resume) or leaves at the component's own choice
    assert set(JOINT_OPTIONS) | JOINT_OPTIONAL == declared | {"transforms", "checkpoint", "resume", "clip", "holdout"}


def test_each_option_declared_on_a_field_is_barley_trains_with_the_fields_default():
    """The options declared beside their defaults (:func:`barley.option.option`) are collected, every one, with
    the dataclass's default and the field's name as the keyword their taker receives."""
    from dataclasses import fields

    from barley.neural.options import BiaffineOptions, EncoderOptions, Training, TransitionOptions
    from barley.option import declaration
    from barley.pipeline.joint import JointOptions
    from barley.tokenizer import TokenizerOptions
    from barley.tokenizer.neural import NeuralTokenizerOptions

    homes = {"": (EncoderOptions, BiaffineOptions, TransitionOptions, Training, JointOptions),
             "tokenizer_": (TokenizerOptions, NeuralTokenizerOptions)}
    collected = 0
    for prefix, classes in homes.items():
        for cls in classes:
            for field in fields(cls):
                if declaration(field) is None:
                    continue
                option = options.BY_NAME[prefix + field.name.lower()]
                assert (option.default, option.keyword, option.type) == (field.default, field.name,
                                                                         type(field.default)), field.name
                collected += 1
    assert collected == 45
    assert len(options.BY_NAME) == len(options.OPTIONS)  # none declared twice, by hand and on a field


def _train_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    train_command.register(parser.add_subparsers())
    return parser


def test_every_flag_is_barley_trains_and_passed_only_when_given():
    flags = [flag for option in options.OPTIONS for flag in option.flags]
    assert len(flags) == len(set(flags))
    parser = _train_parser()
    args = parser.parse_args(["train", "t.conllu", "-m", "m.barley"])
    assert not any(hasattr(args, option.name) for option in options.OPTIONS)
    args = parser.parse_args(["train", "t.conllu", "-m", "m.barley", "--learner-c", "0.5", "-T", "20",
                              "--tokenizer-tune-sentence-end", "false"])
    assert (args.learner_c, args.split_threshold, args.tokenizer_tune_sentence_end) == (0.5, 20, False)


def test_the_options_page_is_made_from_the_declarations():
    assert (ROOT / "docs" / "options.md").read_text(encoding="utf-8") == options.markdown(), (
        "docs/options.md is not current: python scripts/options_page.py > docs/options.md")
    assert "options.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("toy")
    toy_treebank(folder / "train.conllu", 60, seed=1)
    return folder / "train.conllu"


def _trained(toy, path: Path, *extra: str) -> dict:
    """The arrays of a model trained with ``extra`` options (the manifest records the options given)."""
    assert cli.main(["train", str(toy), "-m", str(path), "--seed", "1", *extra]) == 0
    return archive.read(path)[1]


def _same(first: dict, second: dict) -> bool:
    return first.keys() == second.keys() and all(np.array_equal(first[name], second[name]) for name in first)


def test_the_learners_c_reaches_liblinear(toy, tmp_path):
    default = _trained(toy, tmp_path / "default.barley")
    assert _same(_trained(toy, tmp_path / "same.barley", "--learner-c", "0.1"), default)  # liblinear's default
    assert not _same(_trained(toy, tmp_path / "c.barley", "--learner-c", "0.001"), default)
    assert archive.read_manifest(tmp_path / "c.barley")["training"]["learner_options"] == {"C": 0.001}


def test_the_taggers_c_reaches_the_tagger(toy, tmp_path):
    components = ("--components", "tag", "--no-jackknife")
    default = _trained(toy, tmp_path / "default.barley", *components)
    assert _same(_trained(toy, tmp_path / "same.barley", *components, "--tagger-c", "0.1"), default)
    assert not _same(_trained(toy, tmp_path / "c.barley", *components, "--tagger-c", "0.0001"), default)


def test_the_tokenizers_options_reach_the_tokenizer(toy, tmp_path):
    components = ("--components", "tokenize")
    default = _trained(toy, tmp_path / "default.barley", *components)
    assert not _same(_trained(toy, tmp_path / "bits.barley", *components, "--tokenizer-bits", "12"), default)
    assert _same(_trained(toy, tmp_path / "default.barley", *components, "--force"), default)  # not a parser's option


@pytest.mark.parametrize("command, message", [
    (["--tagger-c", "0.5"], "--tagger-c: it is an option of the tag component, but there is no tag component"),
    (["--components", "parse", "--tag-dictionary-min-count", "2"], ("--tag-dictionary-min-count: it is an option "
                                                                    "of the tag component, but there is no tag")),
    (["--components", "tokenize", "--tokenizer-epochs", "2"], ("the linear tokenizer takes no option "
                                                              "--tokenizer-epochs; it is an option of the neural")),
    (["--parser", "graph", "--learner-c", "0.5"], ("the graph parser takes no option --learner-c; it is an option "
                                                  "of the linear learner, the svm-poly2 learner")),
    (["-l", "perceptron", "--learner-c", "0.5"], "the perceptron learner takes no option --learner-c"),
    (["--svm-gamma", "0.5"], "the linear learner takes no option --svm-gamma; it is an option of the svm-poly2"),
    (["--from", "en_ewt", "--tokenizer-bits", "12"], "--tokenizer-bits: not with --from"),
    (["--decoder", "mst"], "a transition parser takes no option --decoder; it is an option of the graph parser"),
    (["--parser", "graph", "--oracle", "static"], ("a graph parser takes no option --oracle; it is an option of "
                                                  "the transition parser, the neural-transition parser")),
])
def test_an_option_its_taker_does_not_take_is_refused_in_one_line(toy, tmp_path, capsys, command, message):
    assert cli.main(["train", str(toy), "-m", str(tmp_path / "m.barley"), *command]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "m.barley").exists()


def _spec(tmp_path, parser: str) -> Path:
    toy_treebank(tmp_path / "a.conllu", 5, seed=1)
    path = tmp_path / "spec.toml"
    path.write_text(f'name = "x"\n[[treebanks]]\nname = "t"\ndata = "a.conllu"\n[[parsers]]\nname = "p"\n{parser}',
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("parser, message", [
    ('learner_options = { C = "high" }\n', "C must be float, not 'high'"),
    ('learner_options = { gamma = 0.5 }\n', "the linear learner takes no option 'gamma'"),
    ('learner = "svm-poly2"\nlearner_options = { solver = "svm" }\n', "the svm-poly2 learner takes no option"),
    ('oracle = "dynamical"\n', "unknown oracle 'dynamical'"),
    ('split_threshold = 1.5\n', "split_threshold must be int, not 1.5"),
    ('tagger_c = 0.5\n', "unknown setting 'tagger_c'"),
    ('parser = "graph"\nbeam = 4\n', "a graph parser takes no option 'beam'; it is an option of the transition"),
])
def test_the_spec_checks_options_by_their_declarations(tmp_path, parser, message):
    with pytest.raises(BarleyError, match=message):
        spec.load(_spec(tmp_path, parser))


def test_a_specs_learner_options_reach_the_parser(tmp_path):
    parsed = spec.load(_spec(tmp_path, 'learner = "svm-poly2"\nlearner_options = { C = 1, gamma = 0.1 }\n'))
    assert parsed.parsers[0].train_options()["learner_options"] == {"C": 1, "gamma": 0.1}


def _parse_command(argv: list[str]) -> argparse.Namespace:
    return cli.build_parser("parse").parse_args(["parse", *argv])


def test_barley_parse_takes_its_declared_options_with_their_defaults():
    defaults = _parse_command([])
    for option in parse_options.PARSE_OPTIONS:
        assert getattr(defaults, option.name) == option.default, option.name
    given = _parse_command(["--beam", "8", "--nbest", "3", "--flag-below", "0.5", "--keep-arcs", "--no-valid-ud",
                            "--forbid", "arcs.txt", "--max-words", "200"])
    assert (given.beam, given.nbest, given.flag_below, given.keep_arcs, given.valid_ud, given.forbid,
            given.max_words) == (8, 3, 0.5, True, False, "arcs.txt", 200)
    assert _parse_command(["--valid-ud"]).valid_ud is True


@pytest.mark.parametrize("argv, complaint", [(["--beam", "0"], "is not a whole number of at least 1"),
                                             (["--nbest", "two"], "is not a whole number of at least 1"),
                                             (["--flag-below", "1.5"], "is not a probability in (0, 1]")])
def test_barley_parse_refuses_a_bad_value_in_one_line(argv, complaint, capsys):
    with pytest.raises(SystemExit) as stopped:
        _parse_command(argv)
    assert stopped.value.code == 2 and complaint in capsys.readouterr().err


def test_the_cosine_schedule_falls_from_the_learning_rate_towards_zero():
    from barley.neural.options import Training

    cosine = Training(epochs=4, learning_rate=0.002, lr_schedule="cosine")
    assert [round(cosine.rate(epoch), 6) for epoch in (1, 3)] == [0.002, 0.001]
    assert cosine.rate(2) > cosine.rate(3) > cosine.rate(4) > 0
    assert Training(epochs=4, learning_rate=0.002).rate(4) == 0.002  # constant, the default
    with pytest.raises(BarleyError, match="--lr-schedule"):
        Training(lr_schedule="linear").check()


def test_an_option_none_of_several_takers_takes_is_refused_naming_them_all():
    options.refuse_untaken(["tokenizer_bits"], ["tokenizer:neural", "tokenizer:linear"])  # the linear kind takes it
    with pytest.raises(BarleyError) as refused:
        options.refuse_untaken(["tokenizer_bits"], ["tokenizer:neural", "component:tag"])
    message = str(refused.value)
    assert message.startswith("the neural tokenizer and the tag component take no option --tokenizer-bits; it is "
                              "an option of the linear tokenizer") and len(message.splitlines()) == 1


def test_a_declared_field_without_a_taker_is_a_declaration_error():
    from dataclasses import dataclass

    from barley.option import from_fields, option

    @dataclass
    class Orphan:
        size: int = option(3, "taken by nobody")

    with pytest.raises(TypeError, match="Orphan.size: an option with no taker"):
        from_fields(Orphan)
    assert [made.name for made in from_fields(Orphan, "component:tag")] == ["size"]

