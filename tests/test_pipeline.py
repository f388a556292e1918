"""The pipeline: components in one model file, jackknifing, options refused, loading."""

from __future__ import annotations

import zipfile

import pytest

import barley
import toy_language
from barley import model_file
from barley.conllu import DEPREL, HEAD, UPOS, read
from barley.errors import BarleyError, InputError
from barley.parser import Parser, train
from barley.pipeline import COMPONENTS, Pipeline, check_options, component_class, folds, ordered


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
    embedded, embedded_arrays = model_file.read(tmp_path / "pipeline.barley")
    single, single_arrays = model_file.read(tmp_path / "parser.barley")
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
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == ["arrays.npz", "manifest.json"]
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
    assert isinstance(barley.load(str(tmp_path / "p.barley")), Parser)
    pipeline = Pipeline.load(str(tmp_path / "p.barley"))
    assert pipeline.names == ["parse"]


def test_a_pipeline_without_a_tagger_refuses_untagged_input_and_plain_text(toy, tmp_path):
    pipeline = Pipeline.train(str(toy / "train.conllu"), ["parse"], log=quiet)
    sentences = list(read(toy / "test.conllu"))
    for word in sentences[3].words:
        word[UPOS] = "_"
    with pytest.raises(InputError, match=r"test.conllu:\d+: this sentence has no UPOS"):
        list(pipeline.parse(sentences))
    with pytest.raises(BarleyError, match="no tokenizer"):
        list(pipeline.parse("The dog sees a cat."))
