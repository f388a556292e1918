"""The tagger and lemmatizer: edit rules, features, training, model files."""

from __future__ import annotations

import numpy as np
import pytest
import toy_language
from conftest import ud_file

from barley.conllu import FEATS, FORM, LEMMA, UPOS, XPOS, read
from barley.pipeline import Pipeline
from barley.lemma_rules import apply_rule, edit_rule, replaces_whole
from barley.pipeline.tag_features import TAGS, TYPE_SLOTS, WordFeatures, mix, shape, tag_dictionary
from barley.pipeline.tagger import Tagger

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

PAIRS = [("walked", "walk"), ("Studies", "study"), ("went", "go"), ("is", "be"), ("The", "the"),
         ("unhappier", "unhappy"), ("Paris", "Paris"), ("dogs", "dog"), ("n't", "not"), ("a|b", "a|b"),
         ("İstanbul", "istanbul"), ("", "x"), ("x", ""), ("zum", "zu"), ("gegangen", "gehen"), ("_", "_")]


@pytest.mark.parametrize("form,lemma", PAIRS)
def test_every_edit_rule_gives_back_its_lemma(form, lemma):
    assert apply_rule(form, edit_rule(form, lemma)) == lemma


def test_edit_rules_generalise_to_other_forms():
    assert edit_rule("walked", "walk") == "keep|||ed|"
    assert apply_rule("jumped", "keep|||ed|") == "jump"
    assert apply_rule("Studies", edit_rule("Ponies", "pony")) == "study"  # lower-cased first
    assert apply_rule("Paris", edit_rule("Rome", "Rome")) == "Paris"
    assert apply_rule("flies", edit_rule("Ponies", "pony")) == "fly"
    assert apply_rule("ran", "keep|||ed|") is None  # the rule cuts text the form lacks
    assert apply_rule("ed", "keep|||ed|") is None  # nothing would be left
    assert edit_rule("went", "go") == "keep|*|go"
    assert replaces_whole("keep|*|go") and not replaces_whole("keep|||ed|")


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tagger")
    toy_language.treebank(folder / "train.conllu", 300, seed=1)
    toy_language.treebank(folder / "test.conllu", 60, seed=2)
    return folder


def _accuracy(gold, tagged, column):
    pairs = [(g[column], t[column]) for gs, ts in zip(gold, tagged) for g, t in zip(gs.words, ts.words)]
    return sum(a == b for a, b in pairs) / len(pairs)


def test_every_training_pair_round_trips_through_its_rule(toy):
    for sentence in read(toy / "train.conllu"):
        for word in sentence.words:
            assert apply_rule(word[FORM], edit_rule(word[FORM], word[LEMMA])) == word[LEMMA]


def test_the_tagger_learns_the_toy_language(toy):
    tagger = Tagger.train(list(read(toy / "train.conllu")), dict(Tagger.OPTIONS), seed=1, log=lambda _: None)
    gold = list(read(toy / "test.conllu"))
    tagged = [s.copy() for s in gold]
    for sentence in tagged:
        for word in sentence.words:
            word[UPOS] = word[XPOS] = word[FEATS] = word[LEMMA] = "_"
    assert list(tagger.process(tagged)) == tagged
    for column in (UPOS, XPOS, FEATS, LEMMA):
        assert _accuracy(gold, tagged, column) >= 0.97, column
    # other columns are never touched
    assert [s.to_text().count("\t") for s in gold] == [s.to_text().count("\t") for s in tagged]
    assert all(g.words[i][j] == t.words[i][j] for g, t in zip(gold, tagged) for i in range(len(g))
               for j in (0, 1, 6, 7, 8, 9))


def test_tagging_in_batches_and_one_by_one_agree(toy):
    tagger = Tagger.train(list(read(toy / "train.conllu")), dict(Tagger.OPTIONS), seed=1, log=lambda _: None)
    together = [s.to_text() for s in tagger.process([s.copy() for s in read(toy / "test.conllu")])]
    alone = [next(tagger.process([s.copy()])).to_text() for s in read(toy / "test.conllu")]
    assert together == alone


def test_unknown_words_are_tagged_and_lemmatized_from_their_affixes(toy):
    tagger = Tagger.train(list(read(toy / "train.conllu")), dict(Tagger.OPTIONS), seed=1, log=lambda _: None)
    sentence = next(read(toy / "test.conllu")).copy()
    nouns = [w for w in sentence.words if w[UPOS] == "NOUN"]
    nouns[-1][FORM] = "zebras"  # never seen: plural noun by its -s after a determiner
    list(tagger.process([sentence]))
    assert nouns[-1][UPOS] == "NOUN" and nouns[-1][LEMMA] == "zebra"


def test_context_features_depend_on_the_neighbours_and_sentence_edges():
    features = WordFeatures()
    from barley.conllu import read_lines
    one = next(read_lines(["1\tdogs\t_\t_\t_\t_\t_\t_\t_\t_", "2\tbark\t_\t_\t_\t_\t_\t_\t_\t_", ""]))
    two = next(read_lines(["1\tcats\t_\t_\t_\t_\t_\t_\t_\t_", "2\tbark\t_\t_\t_\t_\t_\t_\t_\t_", ""]))
    keys = features.keys([one, two])
    assert keys.shape[0] == 4
    assert (keys[1, :TYPE_SLOTS] == keys[3, :TYPE_SLOTS]).all()  # the same word in itself
    assert (keys[1] != keys[3]).any()  # but not the same context
    assert (keys[0, TYPE_SLOTS] == keys[2, TYPE_SLOTS])  # both start a sentence: same word two before
    assert (keys >= -1).all()
    assert shape("Paris-12") == "Xx-d"
    assert (mix(np.array([-1, 5]), 3)[0] == -1) and mix(np.array([5]), 3)[0] != mix(np.array([5]), 4)[0]


@pytest.mark.parametrize("count", [0, 1, 7, 5000])
def test_the_key_table_gives_the_feature_index_ids(count):
    from barley.features.extract import FeatureIndex
    from barley.pipeline.tag_features import KeyTable

    rng = np.random.default_rng(count)
    index = FeatureIndex(np.unique(rng.integers(0, 2**63 - 1, count, dtype=np.int64)))
    crowded = np.arange(count, dtype=np.int64) * 1024  # equal low bits: every key probes past the others
    for keys in (index.keys, np.unique(crowded)):
        index = FeatureIndex(keys)
        queries = np.concatenate([keys, rng.integers(0, 2**63 - 1, 300, dtype=np.int64), [-1, 0, 1024]])
        queries = rng.permutation(queries).reshape(-1, 1)
        assert (KeyTable(index).lookup(queries) == index.ids(queries)).all()


def test_the_tag_dictionary_holds_the_frequent_forms_ambiguity_classes():
    words = [[f"{k}", form, "_", upos] for k, (form, upos) in enumerate(
        [("That", "PRON"), ("that", "SCONJ"), ("that", "PRON"), ("once", "ADV"), ("dogs", "NOUN"), ("dogs", "NOUN")])]
    assert tag_dictionary(words, 2) == {"dogs": "NOUN", "that": "PRON|SCONJ"}
    assert tag_dictionary(words, 1)["once"] == "ADV"
    features = WordFeatures(tag_dictionary(words, 2))
    assert features.row("THAT")[TAGS] == features.row("that")[TAGS] != features.row("dogs")[TAGS]
    assert features.row("once")[TAGS] == features.row("zebras")[TAGS]  # rare in training looks unknown


def test_a_tag_parse_pipeline_round_trips_and_is_deterministic(toy, tmp_path):
    paths = []
    for run in range(2):
        pipeline = Pipeline.train(str(toy / "train.conllu"), ["tag", "parse"], jackknife=3, seed=7,
                                  record_time=False, log=lambda _: None)
        paths.append(tmp_path / f"m{run}.barley")
        pipeline.save(str(paths[-1]))
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert pipeline.manifest["pipeline"]["jackknife"] == {"folds": 3, "components": ["parse"]}
    loaded = Pipeline.load(str(paths[0]))
    untagged = list(read(toy / "test.conllu"))
    for sentence in untagged:
        for word in sentence.words:
            word[UPOS] = word[XPOS] = word[FEATS] = word[LEMMA] = "_"
    first = [s.to_text() for s in pipeline.parse([s.copy() for s in untagged])]
    second = [s.to_text() for s in loaded.parse([s.copy() for s in untagged])]
    assert first == second
    gold = list(read(toy / "test.conllu"))
    parsed = list(loaded.parse([s.copy() for s in untagged]))
    assert _accuracy(gold, parsed, 6) >= 0.95


def test_tags_in_the_input_are_kept_unless_retag(toy):
    pipeline = Pipeline.train(str(toy / "train.conllu"), ["tag", "parse"], jackknife=None, log=lambda _: None)
    sentences = list(read(toy / "test.conllu"))
    sentences[0].words[1][UPOS] = "INTJ"  # a given tag, wrong on purpose
    kept = list(pipeline.parse([s.copy() for s in sentences]))
    assert kept[0].words[1][UPOS] == "INTJ"
    retagged = list(pipeline.parse([s.copy() for s in sentences], retag=True))
    assert retagged[0].words[1][UPOS] != "INTJ"


@pytest.mark.ud
def test_the_tagger_on_a_real_treebank(tmp_path):
    train = list(read(ud_file("en_ewt-ud-dev.conllu")))[:1200]
    gold = list(read(ud_file("en_ewt-ud-test.conllu")))[:400]
    tagger = Tagger.train(train, dict(Tagger.OPTIONS), seed=1, log=lambda _: None)
    tagged = list(tagger.process([s.copy() for s in gold]))
    assert _accuracy(gold, tagged, UPOS) > 0.85
    assert _accuracy(gold, tagged, LEMMA) > 0.85
