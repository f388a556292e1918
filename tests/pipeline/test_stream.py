"""The Python API over many texts: ``barley.load(name)``, ``Pipeline.pipe`` (order, processes, bounded
reading) beside ``Pipeline.parse``, and sentences to and from the ``conllu`` package's ``TokenList``.
(Words per second for 1 and 2 processes: bench/bench_pipe.py.)"""

from __future__ import annotations

import itertools

import pytest
from fixed_grammar import toy_treebank

import barley
from barley.conllu import DEPS, read
from barley.errors import BarleyError
from barley.kinds import train
from barley.models import shipped
from barley.pipeline import Pipeline
from barley.tokenlist import from_tokenlist, to_tokenlist

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

TEXTS = [
    "A hearing is scheduled on the issue today.",
    "",
    "Dogs bark. Cats meow!\n\nA second paragraph: 12.5 km away, they said.",
    "I can't believe it's already Friday... Can you?",
    "Prices rose 3 % in May , analysts said .",  # as a tokenized line too
    "   \n\n  ",
    "The committee, which met on Monday, approved the plan; its chair (Dr. Smith) was pleased.",
]


@pytest.fixture(scope="module")
def english():
    return barley.load(shipped.DEFAULT)


def text_of(sentence) -> str:
    return next(comment for comment in sentence.comments if comment.startswith("# text = "))[len("# text = "):]


def conllu_of(documents) -> list[list[str]]:
    return [[sentence.to_text() for sentence in document] for document in documents]


def test_load_takes_a_shipped_name_or_a_path_and_gives_a_pipeline(english, tmp_path):
    assert isinstance(english, Pipeline) and english.names[0] == "tokenize"
    assert english.path == shipped.default_model_path()
    with pytest.raises(BarleyError, match=r"no model file, model name or language code 'nowhere'.*en_ewt"):
        barley.load("nowhere")
    with pytest.raises(BarleyError, match="model file not found"):
        barley.load(str(tmp_path / "en_ewt"))  # a path is never taken for a name


def test_pipe_gives_each_text_its_own_document_in_order_whatever_the_batches_and_processes(english):
    texts = [f"{text} This is text {number}." if text.strip() else text
             for number, text in enumerate(TEXTS * 4)]
    alone = [conllu_of([list(english.parse(text))])[0] for text in texts]  # each text parsed by itself
    assert [len(document) for document in alone[:3]] == [2, 0, 4]
    for batch_size, n_process in [(1, 1), (3, 1), (64, 1), (3, 2), (5, 2)]:
        assert conllu_of(english.pipe(texts, batch_size=batch_size, n_process=n_process)) == alone, \
            (batch_size, n_process)
    for number, document in enumerate(english.pipe(iter(texts), batch_size=4, n_process=2)):
        if texts[number].strip():
            assert text_of(document[-1]) == f"This is text {number}."  # its own text, in input order
            assert document[0].comments[0] == "# newdoc" and document[0].sent_id == "1"
            assert all(word[6] != "_" and word[3] != "_" for sentence in document for word in sentence.words)


def test_pipe_reads_tokenized_lines(english):
    lines = ["Prices rose 3 % in May , analysts said .\nThey fell .", "Dogs bark ."]
    documents = list(english.pipe(lines, input="tokenized", n_process=2))
    assert [[len(sentence) for sentence in document] for document in documents] == [[10, 3], [3]]
    one_by_one = [list(english.parse(list(english.tokenize(line, input="tokenized")))) for line in lines]
    assert conllu_of(documents) == conllu_of(one_by_one)


def test_pipe_reads_one_sentence_per_line(english):
    texts = ["Prices rose 3% in May. Analysts said so\nThey fell.", "Dogs bark"]
    documents = list(english.pipe(texts, input="sentences"))
    assert [[sentence.comments[-1] for sentence in document] for document in documents] == [
        ["# text = Prices rose 3% in May. Analysts said so", "# text = They fell."], ["# text = Dogs bark"]]


@pytest.mark.parametrize("n_process", [1, 2])
def test_pipe_reads_texts_as_it_needs_them(english, n_process):
    """A generator of many texts: the first documents come while only a few batches have been read."""
    read_so_far = itertools.count()

    def many():
        for number in range(10_000):
            next(read_so_far)
            yield f"Sentence number {number} is short."

    documents = english.pipe(many(), batch_size=4, n_process=n_process)
    first = list(itertools.islice(documents, 10))
    documents.close()  # the workers stop
    assert [text_of(document[0]) for document in first] == [f"Sentence number {n} is short." for n in range(10)]
    in_flight = 2 * n_process + 1  # batches in flight, and the one being cut
    assert next(read_so_far) <= 12 + 4 * in_flight


def test_bad_arguments_are_one_line_errors_before_anything_is_read(english, tmp_path):
    def never():
        raise AssertionError("read")
        yield ""

    for options, message in [({"batch_size": 0}, "batch_size=0 is not a positive whole number"),
                             ({"n_process": 0}, "n_process=0 is not a positive whole number"),
                             ({"n_process": 1.5}, "n_process=1.5 is not"),
                             ({"batch_size": True}, "batch_size=True is not"),
                             ({"max_chars": 0}, "max_chars=0 is not a positive whole number"),
                             ({"input": "conllu"}, "pipe takes input 'text', 'sentences' or 'tokenized', not 'conllu'")]:
        with pytest.raises(BarleyError, match=message):
            english.pipe(never(), **options)
    with pytest.raises(BarleyError, match="pipe takes texts \\(str\\), and text 3 is bytes"):
        list(english.pipe(["One.", "Two.", b"Three."], batch_size=2))
    with pytest.raises(BarleyError, match="text 2 has 12 characters, more than pipe's limit of 11 for one text"):
        list(english.pipe(["Short text.", "Longer text."], max_chars=11))
    assert len(list(english.pipe(["Short text."] * 2, max_chars=11))) == 2
    toy_treebank(tmp_path / "train.conllu", 30, seed=1)
    train(str(tmp_path / "train.conllu"), log=lambda message: None).save(str(tmp_path / "parser.barley"))
    with pytest.raises(BarleyError, match="pipe reads texts, and this model has no tokenizer"):
        barley.load(str(tmp_path / "parser.barley")).pipe(["x"])


def test_a_sentence_goes_to_a_tokenlist_and_back_unchanged(english):
    pytest.importorskip("conllu", reason="the conversion needs the conllu package (pip install conllu)")
    [document] = english.pipe(["Dr. Smith didn't come; the meeting was moved to 3 pm."])
    for sentence in document:
        tokens = to_tokenlist(sentence)
        assert tokens.metadata["text"] == text_of(sentence)
        assert [token["form"] for token in tokens] == [row[1] for row in sentence.rows]
        assert [token["head"] for token in tokens if isinstance(token["id"], int)] == sentence.heads().tolist()[1:]
        assert from_tokenlist(tokens).to_text() == sentence.to_text()


def test_every_sentence_of_a_treebank_goes_to_a_tokenlist_and_back_unchanged():
    """Multiword tokens, empty nodes, enhanced dependencies, comments of every kind."""
    pytest.importorskip("conllu", reason="the conversion needs the conllu package (pip install conllu)")
    from conftest import ud_file

    path = ud_file("en_ewt-ud-dev.conllu")
    for sentence in read(path):
        tokens = to_tokenlist(sentence)
        assert from_tokenlist(tokens).to_text() == sentence.to_text(), sentence.sent_id


def test_an_empty_tokenlist_is_a_one_line_error():
    conllu = pytest.importorskip("conllu", reason="the conversion needs the conllu package (pip install conllu)")
    with pytest.raises(BarleyError, match="<TokenList>: the TokenList holds 0 sentences, not one"):
        from_tokenlist(conllu.TokenList([]))


def test_pipe_fills_deps_with_the_enhanced_graphs_as_parse_does(english):
    texts = ["The dog and the cat are sleeping.", "She wants to leave."]
    documents = list(english.pipe(texts, enhanced=True))
    expected = [list(english.parse(text, enhanced=True)) for text in texts]
    assert [[s.to_text() for s in document] for document in documents] == [[s.to_text() for s in e] for e in expected]
    assert all(word[DEPS] != "_" for document in documents for s in document for word in s.words)
    with pytest.raises(BarleyError, match="enhanced=1 is not True or False"):
        list(english.pipe(texts, enhanced=1))
