"""barley in spaCy 3.8: Docs from text (tokenizer and component), multiword tokens, the lossless
CoNLL-U frame, displaCy."""

from __future__ import annotations

import pytest

spacy = pytest.importorskip("spacy")

from conftest import ud_file  # noqa: E402
from spacy.tokens import DocBin  # noqa: E402
from tokenizer_treebank import write_treebank  # noqa: E402

import barley  # noqa: E402
import barley.spacy as barley_spacy  # noqa: E402
from barley.conllu import read, read_lines  # noqa: E402
from barley.errors import BarleyError  # noqa: E402
from barley.models.shipped import default_model_path  # noqa: E402
from barley.pipeline import Pipeline  # noqa: E402

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

TEXT = "  Don't panic. It's fine,  I think.\n\nA second paragraph: 12.5 km away!\n"

FRAME = """# newdoc id = d1
# sent_id = 1
# text = Vio al rey del norte.
1\tVio\tver\tVERB\t_\tMood=Ind|Number=Sing|NumForm=Word\t0\troot\t0:root\t_
2-3\tal\t_\t_\t_\t_\t_\t_\t_\t_
2\ta\ta\tADP\t_\t_\t4\tcase\t4:case\t_
3\tel\tel\tDET\t_\tDefinite=Def\t4\tdet\t4:det\t_
4\trey\trey\tNOUN\t_\t_\t1\tobj\t1:obj|5.1:nsubj\t_
5-6\tdel\t_\t_\t_\t_\t_\t_\t_\t_
5\tde\tde\tADP\tSP\t_\t7\tcase\t7:case\tGloss=of
5.1\tcome\tvenir\tVERB\t_\t_\t_\t_\t1:conj\t_
6\tel\tel\tDET\t_\t_\t7\tdet\t7:det\t_
7\tnorte\tnorte\tNOUN\t_\t_\t4\tnmod\t4:nmod\tSpaceAfter=No
8\t.\t.\tPUNCT\t_\t_\t1\tpunct\t1:punct\t_

# sent_id = 2
# text = Au
1-2\tAu\t_\t_\t_\t_\t_\t_\t_\t_
1\tà\tà\tADP\t_\t_\t2\tcase\t_\t_
2\tle\tle\tDET\t_\t_\t0\troot\t_\t_

"""
"""Comments, multiword tokens that do not spell their words (Spanish al = a + el, del = de + el,
French au = à + le), an empty node, DEPS, MISC, an XPOS, features that UD and spaCy order
differently (Number before NumForm)."""


@pytest.fixture(scope="module")
def english():
    return barley_spacy.load("en")


def test_a_doc_of_text_keeps_the_text_and_barleys_analysis(english):
    doc = english(TEXT)
    assert doc.text == TEXT and english.lang == "en"
    sentences = list(Pipeline.load(default_model_path()).parse(TEXT))
    words = [token for token in doc if not token.is_space]
    assert [t.norm_ if t._.multiword else t.text for t in words] == [w[1] for s in sentences for w in s.words]
    assert [t.pos_ for t in words] == [w[3] for s in sentences for w in s.words]
    assert [t.lemma_ for t in words] == [w[2] for s in sentences for w in s.words]
    assert [t.dep_ for t in words] == [w[7] for s in sentences for w in s.words]
    assert len(list(doc.sents)) == len(sentences)
    assert barley_spacy.to_conllu(doc) == "".join(s.to_text() for s in sentences)
    do, nt = doc[1], doc[2]
    assert (do.text, nt.text, do._.multiword, nt._.multiword) == ("Do", "n't", "Don't", "Don't")
    assert [t.text for t in doc if t.is_space] == ["  ", " ", "\n\n", "\n"] and doc[0].pos_ == "SPACE"
    assert all(t.head == t for t in words if t.dep_ == "root")
    assert str(doc[1].morph) and doc[3]._.misc == "SpaceAfter=No"
    blanks = [english(blank) for blank in ("", " \n ")]
    assert [doc.text for doc in blanks] == ["", " \n "] and [barley_spacy.to_conllu(doc) for doc in blanks] == ["", ""]


def test_spacy_finds_the_component_through_barleys_entry_point():
    """``nlp.add_pipe("barley")`` works without importing barley.spacy first, once barley is installed."""
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    module, _, name = project["project"]["entry-points"]["spacy_factories"]["barley"].partition(":")
    assert module == "barley.spacy" and getattr(barley_spacy, name) is barley_spacy.make_component


def test_the_component_makes_the_same_doc_and_refuses_unknown_options(english):
    nlp = spacy.blank("en")
    nlp.add_pipe("barley", config={"model": "en_ewt"})
    doc, expected = nlp(TEXT), english(TEXT)
    assert doc.text == TEXT
    assert barley_spacy.to_conllu(doc) == barley_spacy.to_conllu(expected)
    assert [(t.text, t.tag_, t.head.i) for t in doc] == [(t.text, t.tag_, t.head.i) for t in expected]
    with pytest.raises(Exception, match="batch"):
        spacy.blank("en").add_pipe("barley", config={"model": "en_ewt", "batch": 8})
    with pytest.raises(BarleyError, match="no model file, model name or language code 'zz'"):
        spacy.blank("en").add_pipe("barley", config={"model": "zz"})


def test_one_sentence_per_line_is_read_as_such_by_the_loader_and_the_component():
    text = "This is one. And this is the same sentence\nA second line\n"
    lines = barley_spacy.load("en", input="sentences")(text)
    assert lines.text == text and [s.text.strip() for s in lines.sents] == text.strip().split("\n")
    nlp = spacy.blank("en")
    nlp.add_pipe("barley", config={"model": "en_ewt", "input": "sentences"})
    assert barley_spacy.to_conllu(nlp(text)) == barley_spacy.to_conllu(lines)
    with pytest.raises(BarleyError, match="reads input 'text', 'sentences' or 'tokenized', not 'lines'"):
        barley_spacy.load("en", input="lines")


def test_the_enhanced_graph_is_in_deps_and_its_heads_are_tokens():
    """``enhanced`` (the loader's and the component's): DEPS holds barley parse --enhanced's graph, and
    ``token._.enhanced`` reads it as (head token, relation), None for the root."""
    text = "The dog and the cat are sleeping."
    doc = barley_spacy.load("en", enhanced=True)(text)
    plain = barley_spacy.load("en")(text)
    assert all(t._.deps == "_" for t in plain) and all(t._.deps != "_" for t in doc if not t.is_space)
    for token in doc:
        for head, relation in token._.enhanced:
            assert (head is None and relation == "root") or head.doc is doc
    cat = next(t for t in doc if t.text == "cat")
    assert any(head is not None and head.text == "sleeping" and relation == "nsubj" for head, relation in cat._.enhanced)
    nlp = spacy.blank("en")
    nlp.add_pipe("barley", config={"model": "en_ewt", "enhanced": True})
    assert barley_spacy.to_conllu(nlp(text)) == barley_spacy.to_conllu(doc)
    stored = DocBin(store_user_data=True)  # the Doc is stored and read back with its graph
    stored.add(doc)
    (again,) = DocBin().from_bytes(stored.to_bytes()).get_docs(doc.vocab)
    assert [t._.deps for t in again] == [t._.deps for t in doc]
    with pytest.raises(BarleyError, match="enhanced is true or false"):
        barley_spacy.load("en", enhanced="yes")


def test_a_doc_stored_by_spacy_keeps_its_frame(english):
    doc = english(TEXT)
    stored = DocBin(store_user_data=True)
    stored.add(doc)
    (again,) = DocBin().from_bytes(stored.to_bytes()).get_docs(english.vocab)
    assert again.text == TEXT and again[1]._.multiword == "Don't"
    assert barley_spacy.to_conllu(again) == barley_spacy.to_conllu(doc)


def test_displacy_draws_the_doc(english):
    doc = english("The old dog barks at the cat.")
    svg = spacy.displacy.render(doc, style="dep")
    assert svg.lstrip().startswith("<svg") and svg.rstrip().endswith("</svg>")
    labels = {t.dep_ for t in doc if t.dep_ not in ("root", "punct")}  # punctuation is merged into its word
    assert labels and all(f">{label}</textPath>" in svg for label in labels) and ">dog</tspan>" in svg


def test_a_conllu_file_goes_through_a_doc_and_back_unchanged():
    sentences = list(read_lines(FRAME.splitlines(keepends=True)))
    doc = barley_spacy.doc_from_sentences(spacy.blank("xx").vocab, sentences)
    assert barley_spacy.to_conllu(doc) == FRAME
    assert doc.text == "Vio al rey del norte. Au "
    assert [t.text for t in doc] == ["Vio", "a", "l", "rey", "de", "l", "norte", ".", "A", "u"]
    al, el = doc[1], doc[2]
    assert (al._.multiword, el._.multiword, al.norm_, el.norm_) == ("al", "al", "a", "el")
    assert (doc[5].norm_, doc[5].lemma_, doc[5].pos_, doc[5].head.text) == ("el", "el", "DET", "norte")
    assert doc[4]._.misc == "Gloss=of" and doc[3]._.deps == "1:obj|5.1:nsubj" and doc[3]._.multiword is None
    assert [(head if head is None or isinstance(head, str) else head.text, relation)
            for head, relation in doc[3]._.enhanced] == [("Vio", "obj"), ("5.1", "nsubj")]
    first, second = doc.sents
    assert first._.comments == ["# newdoc id = d1", "# sent_id = 1", "# text = Vio al rey del norte."]
    assert first._.empty_nodes == [["5.1", "come", "venir", "VERB", "_", "_", "_", "_", "1:conj", "_"]]
    # au (2 characters, 2 words, no shared prefix: à ≠ a): a + u; the root le is the head of à
    assert [(t.text, t.norm_, t.dep_) for t in second] == [("A", "à", "case"), ("u", "le", "root")]


def test_what_spacy_components_change_is_written_back():
    doc = barley_spacy.doc_from_sentences(spacy.blank("xx").vocab, read_lines(FRAME.splitlines(keepends=True)))
    doc[0].lemma_ = "VER"
    doc[3].tag_ = "NC"
    written = list(read_lines(barley_spacy.to_conllu(doc).splitlines(keepends=True)))
    assert written[0].words[0][2] == "VER" and written[0].words[3][4] == "NC"


def test_cutting_a_multiword_surface_into_one_piece_per_word():
    assert barley_spacy.cut_surface("del", ["de", "el"]) == ["de", "l"]
    assert barley_spacy.cut_surface("Del", ["de", "el"]) == ["De", "l"]
    assert barley_spacy.cut_surface("zum", ["zu", "dem"]) == ["zu", "m"]
    assert barley_spacy.cut_surface("don't", ["do", "n't"]) == ["do", "n't"]
    assert barley_spacy.cut_surface("dámelo", ["da", "me", "lo"]) == ["d", "á", "melo"]
    for surface, forms in [("dámelo", ["da", "me", "lo"]), ("xy", ["a", "b"]), ("abc", ["abc", "d", "e"])]:
        pieces = barley_spacy.cut_surface(surface, forms)
        assert "".join(pieces) == surface and len(pieces) == len(forms) and all(pieces)
    assert barley_spacy.cut_surface("a", ["à", "le"]) is None


def test_a_multiword_token_that_cannot_be_cut_is_one_token_with_the_frame_kept():
    lines = "1-3\tab\t_\t_\t_\t_\t_\t_\t_\t_\n1\tx\tx\tX\t_\t_\t2\tdep\t_\t_\n2\ty\ty\tX\t_\t_\t0\troot\t_\t_\n" \
            "3\tz\tz\tX\t_\t_\t2\tdep\t_\t_\n\n"
    doc = barley_spacy.doc_from_sentences(spacy.blank("xx").vocab, read_lines(lines.splitlines(keepends=True)))
    assert [(t.text, t.lemma_, t.dep_) for t in doc] == [("ab", "y", "root")]
    assert barley_spacy.to_conllu(doc) == lines


def test_a_doc_barley_did_not_make_has_no_frame():
    with pytest.raises(BarleyError, match="no CoNLL-U frame"):
        barley_spacy.to_conllu(spacy.blank("en")("Hello there."))


def test_a_tiny_pipeline_with_spanish_multiword_tokens(tmp_path):
    """A tokenizer, tagger and parser trained on a treebank with del = de + el and al = a + el."""
    write_treebank(tmp_path / "train.conllu", 300, seed=1)
    Pipeline.train(str(tmp_path / "train.conllu"), ["tokenize", "tag", "parse"], jackknife=None,
                   log=lambda _: None).save(str(tmp_path / "es.barley"))
    nlp = barley_spacy.load(str(tmp_path / "es.barley"), language="es")
    text = "Juan vio la casa del rey. Ana lee al gato!"
    doc = nlp(text)
    assert doc.text == text and nlp.lang == "es"
    multiword = [(t.text, t.norm_, t._.multiword) for t in doc if t._.multiword]
    assert multiword == [("de", "de", "del"), ("l", "el", "del"), ("a", "a", "al"), ("l", "el", "al")]
    assert barley_spacy.to_conllu(doc) == "".join(s.to_text() for s in Pipeline.load(str(tmp_path / "es.barley"))
                                                  .parse(text))


@pytest.mark.ud
@pytest.mark.parametrize("name", ["en_ewt-ud-dev.conllu", "cs_fictree-ud-dev.conllu", "got_proiel-ud-dev.conllu"])
def test_real_treebanks_go_through_a_doc_and_back_unchanged(name):
    path = ud_file(name)
    doc = barley_spacy.doc_from_sentences(spacy.blank("xx").vocab, read(str(path)))
    assert barley_spacy.to_conllu(doc) == path.read_text(encoding="utf-8")
    assert len(list(doc.sents)) == sum(1 for _ in barley.read(str(path)))
