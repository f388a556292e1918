"""The pipeline: components in one model file, jackknifing, options refused, loading."""

from __future__ import annotations

import zipfile

import pytest
import toy_language

import barley
from barley.conllu import DEPREL, FEATS, HEAD, LEMMA, UPOS, XPOS, read
from barley.errors import BarleyError, InputError
from barley.kinds import train
from barley.models import archive
from barley.pipeline import COMPONENTS, Pipeline, check_options, component_class, folds, ordered
from barley.transition.parser import Parser

pytestmark = pytest.mark.slow  # tests/conftest.py: the fast loop leaves this file out


def quiet(_message: str) -> None:
    pass


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pipeline")
    toy_language.treebank(folder / "train.conllu", 150, seed=1)
    toy_language.treebank(folder / "test.conllu", 40, seed=2)
    return folder


def test_every_registered_component_has_the_interface():
    for name in COMPONENTS:
        kind = component_class(name)
        assert kind.name == name
        assert kind.consumes in ("text", "sentences")
        assert hasattr(kind, "tokenize" if kind.consumes == "text" else "process")
        for attribute in ("writes", "keeps_given", "needs", "OPTIONS", "train", "to_files", "from_files"):
            assert hasattr(kind, attribute), (name, attribute)


def test_unknown_components_and_options_are_refused():
    with pytest.raises(BarleyError, match="unknown pipeline component 'lemmatise'"):
        ordered(["parse", "lemmatise"])
    with pytest.raises(BarleyError, match="no pipeline component"):
        ordered([""])
    with pytest.raises(BarleyError, match="takes no option 'colour'"):
        check_options("parse", {"colour": "red"})
    assert ordered(["parse", "parse"]) == ["parse"]


def test_folds_cover_every_sentence_once():
    for count in (5, 17, 100):
        for k in (2, 5, 10):
            cut = folds(count, k)
            assert sorted(i for fold in cut for i in fold) == list(range(count))
            assert max(len(f) for f in cut) - min(len(f) for f in cut) <= 1


def test_a_parser_embedded_in_a_pipeline_is_the_parser_of_a_parser_file(toy, tmp_path):
    pipeline = Pipeline.train(str(toy / "train.conllu"), ["parse"], seed=3, record_time=False, log=quiet)
    pipeline.save(str(tmp_path / "pipeline.barley"))
    alone = train(str(toy / "train.conllu"), seed=3, record_time=False, log=quiet)
    alone.save(str(tmp_path / "parser.barley"))
    embedded, embedded_arrays = archive.read(tmp_path / "pipeline.barley")
    single, single_arrays = archive.read(tmp_path / "parser.barley")
    assert embedded["pipeline"]["components"] == ["parse"]
    assert embedded["pipeline"]["jackknife"] is None
    parse_manifest = dict(embedded["components"]["parse"])
    for key in ("format", "format_version"):
        single.pop(key)
    assert parse_manifest["training"].pop("data") == "<sentences>"  # the pipeline records the file
    single["training"].pop("data")
    assert parse_manifest == single
    assert sorted(embedded_arrays) == sorted(f"parse.{key}" for key in single_arrays)
    for key, value in single_arrays.items():
        assert (embedded_arrays[f"parse.{key}"] == value).all()


def test_a_saved_pipeline_loads_without_code_and_parses_like_before(toy, tmp_path):
    pipeline = Pipeline.train(str(toy / "train.conllu"), ["parse"], seed=1, log=quiet)
    path = tmp_path / "m.barley"
    pipeline.save(str(path))
    with zipfile.ZipFile(path) as zipped:
        assert sorted(zipped.namelist()) == ["arrays.npz", "manifest.json"]
    loaded = barley.load(str(path))
    assert isinstance(loaded, Pipeline) and loaded.names == ["parse"]
    before = [s.to_text() for s in pipeline.parse(list(read(toy / "test.conllu")))]
    after = [s.to_text() for s in loaded.parse(list(read(toy / "test.conllu")))]
    assert before == after
    gold = list(read(toy / "test.conllu"))
    right = sum(g[HEAD] == p[HEAD] and g[DEPREL] == p[DEPREL]
                for gs, ps in zip(gold, loaded.parse(list(read(toy / "test.conllu"))))
                for g, p in zip(gs.words, ps.words))
    assert right == sum(len(s) for s in gold)


def test_a_parser_model_file_reads_as_a_pipeline_of_one_parser(toy, tmp_path):
    train(str(toy / "train.conllu"), log=quiet).save(str(tmp_path / "p.barley"))
    pipeline = barley.load(str(tmp_path / "p.barley"))
    assert isinstance(pipeline, Pipeline) and pipeline.names == ["parse"] and isinstance(pipeline.parser, Parser)


def test_a_pipeline_without_a_tagger_refuses_untagged_input_and_plain_text(toy, tmp_path):
    pipeline = Pipeline.train(str(toy / "train.conllu"), ["parse"], log=quiet)
    sentences = list(read(toy / "test.conllu"))
    for word in sentences[3].words:
        word[UPOS] = "_"
    with pytest.raises(InputError, match=r"test.conllu:\d+: this sentence has no UPOS"):
        list(pipeline.parse(sentences))
    with pytest.raises(BarleyError, match="no tokenizer"):
        list(pipeline.parse("The dog sees a cat."))


def _untagged(source, target):
    sentences = list(read(source))
    for sentence in sentences:
        for word in sentence.words:
            word[UPOS] = word[XPOS] = word[FEATS] = word[LEMMA] = "_"
    barley.write(sentences, target)


def test_the_command_line_trains_describes_and_runs_a_pipeline(toy, tmp_path, capsys):
    from barley import cli

    model = tmp_path / "tp.barley"
    assert cli.main(["train", "--train", str(toy / "train.conllu"), "--components", "tag,parse",
                     "--jackknife", "2", "--dev", str(toy / "test.conllu"), "--seed", "1",
                     "--model", str(model)]) == 0
    assert "jackknife fold 2/2" in capsys.readouterr().err
    assert cli.main(["info", str(model)]) == 0
    shown = capsys.readouterr().out
    assert "components:  tag, parse" in shown and "2 folds" in shown and "dev:" in shown and "LAS" in shown
    _untagged(toy / "test.conllu", tmp_path / "untagged.conllu")
    assert cli.main(["parse", "--model", str(model), "--input", "conllu", str(tmp_path / "untagged.conllu"),
                     "-o", str(tmp_path / "out.conllu")]) == 0
    out = list(read(tmp_path / "out.conllu"))
    gold = list(read(toy / "test.conllu"))
    words = [(g, o) for gs, os_ in zip(gold, out) for g, o in zip(gs.words, os_.words)]
    assert sum(g[UPOS] == o[UPOS] and g[HEAD] == o[HEAD] for g, o in words) >= 0.95 * len(words)


def test_the_command_line_refuses_what_does_not_fit(toy, tmp_path, capsys):
    from barley import cli

    train_file, model = str(toy / "train.conllu"), str(tmp_path / "m.barley")
    cases = [
        (["--components", "tag,lemmatise"], "unknown pipeline component 'lemmatise'"),
        (["--components", "tag", "--system", "swap-lazy"], "--system: parser options, but --components has no parse"),
        (["--jackknife", "3"], "--jackknife and --no-jackknife apply to pipelines"),
        (["--components", "tag,parse", "--jackknife", "0"], "--jackknife needs at least 2 folds"),
    ]
    for extra, message in cases:
        assert cli.main(["train", "--train", train_file, "--model", model, *extra]) == 2
        error = capsys.readouterr().err
        assert message in error and error.count("\n") == 1, error
    assert cli.main(["train", "--train", train_file, "--model", model]) == 0  # a parser alone
    capsys.readouterr()
    assert cli.main(["parse", "--model", model, "--retag", str(toy / "test.conllu")]) == 2
    assert "has no tagger" in capsys.readouterr().err
    _untagged(toy / "test.conllu", tmp_path / "untagged.conllu")
    assert cli.main(["parse", "--model", model, str(tmp_path / "untagged.conllu")]) == 2
    error = capsys.readouterr().err
    assert "untagged.conllu:1: this sentence has no UPOS" in error and error.count("\n") == 1


def test_evaluate_scores_every_column_the_pipeline_predicts(toy):
    pipeline = Pipeline.train(str(toy / "train.conllu"), ["tag", "parse"], jackknife=None, log=quiet)
    scores = pipeline.evaluate(str(toy / "test.conllu"))
    assert set(scores) == {"UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "words", "words_per_second"}
    assert scores["words"] == sum(len(s) for s in read(toy / "test.conllu"))
    assert 90 <= scores["LAS"] <= scores["UAS"] <= 100 and scores["AllTags"] <= scores["UPOS"]
    tagger_only = Pipeline([pipeline["tag"]])
    assert "LAS" not in tagger_only.evaluate(str(toy / "test.conllu"))


def test_options_for_components_not_trained_are_refused(toy):
    with pytest.raises(BarleyError, match="options given for component 'parse'"):
        Pipeline.train(str(toy / "train.conllu"), ["tag"], options={"parse": {"system": "swap-lazy"}}, log=quiet)
    with pytest.raises(BarleyError, match="component 'tag' takes no option 'system'"):
        Pipeline.train(str(toy / "train.conllu"), ["tag"], options={"tag": {"system": "swap-lazy"}}, log=quiet)


def test_the_parse_component_takes_the_options_of_its_kind_of_parser(toy):
    pipeline = Pipeline.train(str(toy / "train.conllu"), ["parse"], options={"parse": {"system": "swap-lazy"}},
                              jackknife=None, log=quiet)
    assert pipeline.to_files()[0]["components"]["parse"]["system"]["name"] == "swap-lazy"
    with pytest.raises(BarleyError, match="takes no option --decoder"):
        Pipeline.train(str(toy / "train.conllu"), ["parse"], options={"parse": {"decoder": "eisner"}}, log=quiet)


def test_the_service_describes_a_pipeline_model_from_one_reading(toy, tmp_path):
    pytest.importorskip("fastapi", reason="the service needs barley[serve]")
    from barley.service.models import ModelRegistry

    Pipeline.train(str(toy / "train.conllu"), ["tag", "parse"], jackknife=None, log=quiet).save(str(tmp_path / "p.barley"))
    train(str(toy / "train.conllu"), log=quiet).save(str(tmp_path / "parser.barley"))
    registry = ModelRegistry([("p", str(tmp_path / "p.barley")), ("parser", str(tmp_path / "parser.barley"))])
    pipeline, parser = registry.describe()["models"]
    assert pipeline["components"] == ["tag", "parse"] and pipeline["parser"] == "transition"
    assert pipeline["system"] == "arc-eager" and pipeline["training"]["sentences"] == 150
    assert parser["components"] == ["parse"] and parser["system"] == "arc-eager" and parser["decoder"] is None
    assert registry.get("p").pipeline.names == ["tag", "parse"] and registry.get("parser").pipeline.names == ["parse"]
    assert pipeline["input_formats"] == parser["input_formats"] == ["conllu"]  # neither has a tokenizer


def test_evaluate_text_scores_the_pipeline_from_raw_text(toy):
    pipeline = Pipeline.train(str(toy / "train.conllu"), ["tokenize", "tag", "parse"], jackknife=None, log=quiet)
    scores = pipeline.evaluate_text(str(toy / "test.conllu"))
    assert {"Tokens", "Sentences", "Words", "UPOS", "Lemmas", "LAS", "MLAS", "BLEX", "words_per_second"} <= set(scores)
    assert scores["Tokens"] > 95 and scores["LAS"] <= scores["UAS"] <= 100
    gold_tokenization = pipeline.evaluate(str(toy / "test.conllu"))
    assert abs(scores["UPOS"] - gold_tokenization["UPOS"]) < 5
