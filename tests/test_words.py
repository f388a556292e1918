"""Words and tokens as objects (barley.words), columns by name, the TokenList and DataFrame conversions: reading
and writing through the views keeps a sentence's CoNLL-U, byte for byte where nothing is set."""

from __future__ import annotations

import pytest

from barley.conllu import Sentence, read, read_bytes
from barley.dataframe import dataframe, from_dataframe
from conftest import UD_FILES, SKIP_UD

SPANISH = """\
# sent_id = 1
# text = Vámonos al mar.
1-2\tVámonos\t_\t_\t_\t_\t_\t_\t_\t_
1\tVamos\tir\tVERB\t_\tMood=Imp|Number=Plur|Person=1\t0\troot\t0:root\t_
2\tnos\tnosotros\tPRON\t_\tCase=Acc|Person=1\t1\tobj\t1:obj\t_
3-4\tal\t_\t_\t_\t_\t_\t_\t_\t_
3\ta\ta\tADP\t_\t_\t5\tcase\t5:case\t_
4\tel\tel\tDET\t_\tDefinite=Def\t5\tdet\t5:det\t_
5\tmar\tmar\tNOUN\t_\tNumber=Sing\t1\tobl\t1:obl:a\tSpaceAfter=No|Gloss=sea
5.1\tva\tir\tVERB\t_\t_\t_\t_\t1:conj\t_
6\t.\t.\tPUNCT\t_\t_\t1\tpunct\t1:punct\t_

"""


@pytest.fixture
def sentence() -> Sentence:
    return next(read_bytes(SPANISH.encode()))


def test_words_have_named_typed_attributes(sentence):
    words = list(sentence)
    assert [w.form for w in words] == ["Vamos", "nos", "a", "el", "mar", "."]  # not the multiword token, not 5.1
    vamos, nos, _, _, mar, _ = words
    assert (vamos.id, vamos.lemma, vamos.upos, vamos.xpos, vamos.deprel, vamos.deps) == \
        (1, "ir", "VERB", "_", "root", "0:root")
    assert vamos.head is None and vamos.head_id == 0 and nos.head == vamos and mar.head.form == "Vamos"
    assert vamos.feats == {"Mood": "Imp", "Number": "Plur", "Person": "1"} and nos.feats["Case"] == "Acc"
    assert mar.misc == {"SpaceAfter": "No", "Gloss": "sea"} and words[2].feats == {} and words[2].misc == {}
    assert [w.form for w in vamos.children] == ["nos", "mar", "."]
    assert sentence.column("upos") == sentence.column("UPOS") == ["VERB", "PRON", "ADP", "DET", "NOUN", "PUNCT"]
    assert sentence.column(3) == sentence.column("upos") and sentence.text == "Vámonos al mar."
    with pytest.raises(KeyError, match="no CoNLL-U column 'pos'"):
        sentence.column("pos")


def test_tokens_keep_multiword_tokens_with_their_words(sentence):
    tokens = sentence.tokens
    assert [(t.id, t.form, t.is_multiword, [w.form for w in t.words]) for t in tokens] == [
        ("1-2", "Vámonos", True, ["Vamos", "nos"]), ("3-4", "al", True, ["a", "el"]), ("5", "mar", False, ["mar"]),
        ("6", ".", False, ["."])]
    assert tokens[2].misc["SpaceAfter"] == "No" and list(sentence)[3].token.form == "al"


def test_reading_changes_nothing_and_setting_writes_the_row(sentence):
    assert sentence.to_text() == SPANISH
    for word in sentence:
        (word.form, word.upos, word.feats, word.misc, word.head, word.children)
    assert sentence.to_text() == SPANISH
    vamos, nos, *_ = sentence
    nos.upos, nos.deprel, nos.head = "PRON", "iobj", vamos
    nos.feats = {"Person": "1", "Case": "Dat", "PronType": "Prs"}  # written in UD's order, by name
    nos.misc = {"Gloss": "us", "SpaceAfter": "No"}  # MISC: in the order given
    assert sentence.rows[2] == ["2", "nos", "nosotros", "PRON", "_", "Case=Dat|Person=1|PronType=Prs", "1", "iobj",
                                "1:obj", "Gloss=us|SpaceAfter=No"]
    nos.head = None
    assert nos.row[6] == "0" and nos.head is None
    with pytest.raises(ValueError, match="no word 9 to be the head of word 2"):
        nos.head = 9
    with pytest.raises(ValueError, match="UPOS must be a non-empty string without tabs"):
        nos.upos = "A\tB"


def test_tokenlist_and_dataframe_give_the_sentence_back(sentence):
    pytest.importorskip("conllu", reason="the TokenList conversion needs the conllu package")
    tokens = sentence.to_tokenlist()
    assert tokens[0]["form"] == "Vámonos" and tokens.metadata["text"] == "Vámonos al mar."
    assert Sentence.from_tokenlist(tokens).to_text() == SPANISH
    pytest.importorskip("pandas", reason="the DataFrame needs pandas")
    frame = dataframe([sentence, sentence.copy()])
    assert list(frame.columns[:4]) == ["sentence", "sent_id", "id", "form"] and len(frame) == 2 * len(sentence.rows)
    assert list(frame[frame.upos == "VERB"].lemma) == ["ir", "ir", "ir", "ir"]
    assert "".join(s.to_text() for s in from_dataframe(frame)) == SPANISH * 2


@pytest.mark.ud
def test_a_treebank_goes_through_the_views_and_a_dataframe_unchanged():
    pytest.importorskip("pandas", reason="the DataFrame needs pandas")
    path = next((p for p in UD_FILES if p.name == "tr_imst-ud-test.conllu"), None)  # multiword tokens
    if path is None:
        pytest.skip(SKIP_UD)
    sentences = list(read(path))
    text = "".join(s.to_text() for s in sentences)
    for sentence in sentences:
        for word in sentence:
            word.feats, word.misc = word.feats, word.misc  # read as dicts, written back
    assert "".join(s.to_text() for s in sentences) == text
    assert "".join(s.to_text() for s in from_dataframe(dataframe(sentences))) == text
