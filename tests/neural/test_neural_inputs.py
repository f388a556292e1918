"""What the neural encoder reads (:mod:`barley.neural.inputs`): the characters of a form are
bounded, the same cut in training and parsing, so that one long word costs no more than a short one."""

from __future__ import annotations

import numpy as np
import pytest

import barley
from barley.conllu import DEPREL, HEAD, UPOS, Sentence
from barley.features.vocabulary import Vocabulary
from barley.neural.inputs import FORM_CHARS_READ, EncoderVocabularies, characters_read


def test_a_form_is_read_up_to_twice_the_cut_and_then_by_its_two_ends():
    short = "a" * (2 * FORM_CHARS_READ)
    assert characters_read(short) == short
    long = "b" + "x" * 1_000_000 + "e"
    read = characters_read(long)
    assert len(read) == 2 * FORM_CHARS_READ and read[0] == "b" and read[-1] == "e"
    assert read == long[:FORM_CHARS_READ] + long[-FORM_CHARS_READ:]


def _sentence(form: str) -> Sentence:
    return Sentence([], [[str(k), word, "_", "_", "_", "_", "_", "_", "_", "_"]
                         for k, word in enumerate(["Visit", form, "today", "."], start=1)])


def test_training_learns_only_the_characters_it_will_read():
    middle = "m" * 100 + "Ω" + "m" * 100  # a character only in the middle of a long form is never read
    vocabularies = EncoderVocabularies.build([_sentence("http://" + middle + "/x")], 1, ("form",))
    assert "Ω" not in vocabularies.tables["chars"].to_json()
    assert len(vocabularies.chars("http://" + middle + "/x")) == 2 * FORM_CHARS_READ


def test_a_character_vocabulary_maps_a_long_form_to_the_ids_of_its_cut():
    vocabularies = EncoderVocabularies({"form": Vocabulary([]), "chars": Vocabulary(list("abc"))})
    long = "abc" * 100_000
    assert np.array_equal(vocabularies.chars(long), vocabularies.chars(characters_read(long)))


@pytest.mark.slow
def test_the_shipped_model_analyses_a_million_character_word_as_it_analyses_its_cut():
    long = "w" * 500_000 + "ords" + "z" * 500_000
    by_long, by_cut = (list(barley.load("en_ewt").parse([_sentence(form)]))[0] for form in
                       (long, characters_read(long)))
    assert [[w[UPOS], w[HEAD], w[DEPREL]] for w in by_long.words] == [[w[UPOS], w[HEAD], w[DEPREL]]
                                                                       for w in by_cut.words]
