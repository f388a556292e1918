"""The tokenizer: treebank text and labels, training, exact round trip, multiword tokens, bad input.

Every test of a trained tokenizer runs with each kind (linear and neural); what only the
neural kind has (numpy against PyTorch, its model arrays) is in test_neural_tokenizer.py.

A small treebank is written by the tests: sentences with `# text`, punctuation glued
to words (SpaceAfter=No), multiword tokens (Spanish-like "del" → "de el", English-like
"'s" clitics), documents and paragraphs.
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import barley
import barley.tokenizer as tokenizer_module
import barley.tokenizer.segmenter as segmenter
from barley.cli import main
from barley.conllu import FORM, MISC, read, read_lines, write
from barley.errors import BarleyError, InputError
from barley.pipeline import Pipeline
from barley.pipeline.tokenize import TokenizeComponent
from barley.tokenizer import Segmenter, Tokenizer, TokenizerOptions, spaces
from barley.tokenizer.multiword import MultiwordExpander
from barley.tokenizer.reading import text_pieces
from barley.tokenizer.treebank_text import SENTENCE_END, TOKEN_END, paragraphs
from conftest import ud_file
from tokenizer_treebank import SMALL_NEURAL, WORDS, quiet, token_lines, write_treebank

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

@pytest.fixture(scope="module")
def treebank(tmp_path_factory):
    path = tmp_path_factory.mktemp("tokenizer") / "train.conllu"
    write_treebank(path, 400, seed=1)
    return path




@pytest.fixture(scope="module", params=["linear", "neural"])
def tokenizer(request, treebank) -> Segmenter:
    """Each kind of tokenizer (:mod:`barley.pipeline.tokenize`), trained on the test treebank."""
    if request.param == "neural":
        pytest.importorskip("torch")
        from barley.tokenizer.neural_training import train_neural_tokenizer

        return train_neural_tokenizer(read(str(treebank)), SMALL_NEURAL, seed=1, log=quiet)
    return Tokenizer.train(read(str(treebank)), TokenizerOptions(bits=16), seed=1, log=quiet)


@pytest.fixture(scope="module")
def model(tokenizer, tmp_path_factory):
    path = tmp_path_factory.mktemp("tokenizer-model") / "tokenizer.barley"
    Pipeline([TokenizeComponent(tokenizer)], {"pipeline": {"components": ["tokenize"]}}).save(str(path))
    return path


def sentence_tokens(sentences) -> list[list[str]]:
    return [[row[FORM] for row in spaces.token_rows(s)] for s in sentences]


def test_treebank_text_is_rebuilt_with_labels():
    lines = ["# newdoc id = d", "# text = Hi, you.", *token_lines([("Hi", False, None), (",", True, None),
                                                                     ("you", False, None), (".", True, None)]),
             "", "# text = Go del.", *token_lines([("Go", True, None), ("del", False, ["de", "el"]),
                                                    (".", True, None)]), ""]
    [paragraph] = list(paragraphs(read_lines(lines)))
    assert paragraph.text == "Hi, you. Go del."
    ends = {i: int(label) for i, label in enumerate(paragraph.labels) if label}
    assert ends == {1: TOKEN_END, 2: TOKEN_END, 6: TOKEN_END, 7: SENTENCE_END,
                    10: TOKEN_END, 14: TOKEN_END, 15: SENTENCE_END}


def test_paragraph_marks_split_the_text(treebank):
    found = list(paragraphs(read(str(treebank))))
    assert len(found) == 400 // 5
    assert sum(p.new_document for p in found) == 400 // 20


def test_it_learns_tokens_sentences_and_multiword_tokens(tokenizer):
    text = "Juan vio la casa del rey, y Rosa's perro come. Ana lee al gato!\n\nPedro tiene un libro."
    sentences = list(tokenizer.tokenize(text))
    assert sentence_tokens(sentences) == [["Juan", "vio", "la", "casa", "del", "rey", ",", "y", "Rosa's", "perro",
                                           "come", "."], ["Ana", "lee", "al", "gato", "!"],
                                          ["Pedro", "tiene", "un", "libro", "."]]
    words = [[w[FORM] for w in s.words] for s in sentences]
    assert words[0][4:6] == ["de", "el"] and words[0][9:11] == ["Rosa", "'s"]  # 's by the suffix rule
    assert words[1][2:4] == ["a", "el"]
    assert sentences[0].comments == ["# newdoc", "# newpar", "# sent_id = 1",
                                     "# text = Juan vio la casa del rey, y Rosa's perro come."]
    assert sentences[1].comments[0] == "# sent_id = 2"
    assert sentences[2].comments[0] == "# newpar"
    assert [row[MISC] for row in spaces.token_rows(sentences[0])][4:7] == ["_", "SpaceAfter=No", "_"]
    assert spaces.token_rows(sentences[1])[-1][MISC] == "SpacesAfter=\\n\\n"
    assert spaces.token_rows(sentences[2])[-1][MISC] == "SpaceAfter=No"


def test_multiword_dictionary_rules_and_case():
    expander = MultiwordExpander.train(read_lines(token_lines(
        [("del", True, ["de", "el"]), ("del", True, ["de", "el"]), ("its", True, ["it", "s"]),
         ("its", True, None), ("its", True, None)] +
        [(name + "'s", True, [name, "'s"]) for name in ("Ana", "Bo", "Cy", "Di")] + [("As", True, None)])))
    assert expander.expand("del") == ["de", "el"]
    assert expander.expand("Del") == ["De", "el"]
    assert expander.expand("DEL") == ["DE", "EL"]
    assert expander.expand("its") is None  # a multiword token in fewer than half of its occurrences
    assert expander.expand("Zoe's") == ["Zoe", "'s"]  # unseen: the suffix rule
    assert expander.expand("as") is None and expander.expand("casa") is None


def test_same_data_and_seed_give_the_same_model_bytes(treebank, tmp_path):
    files = []
    for name in ("a", "b"):
        tokenizer = Tokenizer.train(read(str(treebank)), TokenizerOptions(bits=16), seed=4, log=quiet)
        path = tmp_path / f"{name}.barley"
        Pipeline([TokenizeComponent(tokenizer)], {"pipeline": {"components": ["tokenize"]}}).save(str(path))
        files.append(path.read_bytes())
    assert files[0] == files[1]


def test_every_kind_trains_through_one_call_and_the_linear_kind_does_not_read_dev(treebank, tmp_path):
    import inspect

    from barley.pipeline.tokenize import KINDS

    signatures = {name: list(inspect.signature(kind.train).parameters) for name, kind in KINDS.items()}
    assert len({tuple(names) for names in signatures.values()}) == 1, signatures
    files = []
    for dev in (None, list(read(str(treebank)))[:50]):
        component = TokenizeComponent.train(list(read(str(treebank))), {"tokenizer": "linear", "bits": 16}, seed=4,
                                            log=quiet, dev=dev)
        path = tmp_path / f"{'no' if dev is None else 'with'}-dev.barley"
        Pipeline([component], {"pipeline": {"components": ["tokenize"]}}).save(str(path))
        files.append(path.read_bytes())
    assert files[0] == files[1]


def test_a_saved_model_tokenizes_the_same(tokenizer, model):
    text = "Maria vio el libro. Juan come!"
    loaded = Pipeline.load(str(model))["tokenize"]
    assert [s.to_text() for s in loaded.tokenize(text)] == [s.to_text() for s in tokenizer.tokenize(text)]


ODD_TEXT = st.text(st.sampled_from(list("abc Juan del.,!?'s\n\t\r\xa0\u2003\x00\x07\x1b\u2028\u2029é😀"))
                   | st.characters(exclude_categories=["Cs"]), max_size=300)  # lone surrogates: not UTF-8 text


@settings(max_examples=80, deadline=None)
@given(text=ODD_TEXT, cuts=st.lists(st.integers(0, 300), max_size=4))
def test_round_trip_text_conllu_text(tokenizer, text, cuts):
    borders = [0, *sorted(min(cut, len(text)) for cut in cuts), len(text)]
    pieces = [text[a:b] for a, b in zip(borders, borders[1:])]
    sentences = list(tokenizer.tokenize(pieces))
    if not text.strip():
        assert sentences == []
        return
    assert spaces.text_of(sentences) == text
    for sentence in sentences:
        assert sentence.words
        assert all(row[FORM] and not any(c.isspace() for c in row[FORM]) for row in sentence.rows)
    # the CoNLL-U written and read again still rebuilds the text
    again = list(read_lines("".join(s.to_text() for s in sentences).split("\n")))
    assert spaces.text_of(again) == text


@settings(max_examples=80, deadline=None)
@given(text=ODD_TEXT)
def test_round_trip_of_tokenized_input(tokenizer, text):
    sentences = list(tokenizer.tokenize([text[:7], text[7:]], input="tokenized"))
    assert spaces.text_of(sentences) == (text if text.strip() else "")
    assert [len(s.rows) for s in sentences if not s.words] == []


def small_blocks(monkeypatch) -> list[int]:
    """Blocks of 64 characters (the segmenter's own ``BLOCK_CHARS``, not the package's re-export) and the
    list that each cut inside a paragraph is counted in, so that a test can say it crossed a block border."""
    monkeypatch.setattr(segmenter, "BLOCK_CHARS", 64)
    cuts: list[int] = []
    whitespace_cut = segmenter._whitespace_cut

    def counted(buffer: str, limit: int) -> int:
        cuts.append(limit)
        return whitespace_cut(buffer, limit)

    monkeypatch.setattr(segmenter, "_whitespace_cut", counted)
    return cuts


def test_round_trip_across_block_borders(tokenizer, monkeypatch):
    cuts = small_blocks(monkeypatch)
    rng = random.Random(5)
    text = "".join(rng.choice(["Juan ", "vio ", "del ", "rey. ", "casa, ", "\n", "\n\n", "Ana's ", "x" * 70, " \t "])
                   for _ in range(400))
    pieces = [text[i:i + 37] for i in range(0, len(text), 37)]
    sentences = list(tokenizer.tokenize(pieces))
    assert spaces.text_of(sentences) == text
    assert [s.comments[-2] for s in sentences] == [f"# sent_id = {n}" for n in range(1, len(sentences) + 1)]
    assert cuts


def test_a_long_line_without_punctuation_gives_bounded_sentences(tokenizer):
    words = random.Random(2).choices(["casa", "perro", "gato", "rey"], k=40_000)
    text = " ".join(words)[:200_000]
    sentences = list(tokenizer.tokenize(text))
    assert len(sentences) > 1
    assert max(len(s.words) for s in sentences) <= tokenizer.options.max_sentence_tokens
    assert spaces.text_of(sentences) == text


def test_a_long_line_without_spaces_gives_bounded_tokens(tokenizer):
    text = "a" * tokenizer_module.MAX_RUN_CHARS  # longer than a block
    assert len(text) > tokenizer_module.BLOCK_CHARS
    sentences = list(tokenizer.tokenize(text))
    assert max(len(row[FORM]) for s in sentences for row in s.rows) <= tokenizer_module.MAX_TOKEN_CHARS
    assert spaces.text_of(sentences) == text


@pytest.mark.parametrize("pieces", [["ok.\n\n" + "a" * 100_001], ["ok.\n\n" + "a" * 60_000, "a" * 40_001 + " b"],
                                    ["ok.\n\nb" + "a" * 99_998, "", "a", "a\n"]])
def test_a_run_of_more_characters_without_whitespace_is_refused_before_it_is_scored(tokenizer, pieces):
    with pytest.raises(InputError, match=r"^in\.txt:3: more than 100,000 characters without whitespace"):
        list(tokenizer.tokenize(pieces, source="in.txt"))
    assert len(list(tokenizer.tokenize(["ok.\n\n" + "a" * 60_000, " " + "a" * 60_000]))) >= 2  # runs apart


def test_odd_whitespace_and_control_characters_are_kept(tokenizer):
    text = "Juan\xa0vio\tla casa.\r\nAna come\x07 del\u2003gato.\r\n\r\nFin\x00."
    sentences = list(tokenizer.tokenize(text))
    assert spaces.text_of(sentences) == text
    forms = [row[FORM] for s in sentences for row in spaces.token_rows(s)]
    assert "come\x07" in forms or "\x07" in "".join(forms)
    miscs = [row[MISC] for s in sentences for row in spaces.token_rows(s)]
    assert "SpacesAfter=\\u00A0" in miscs and "SpacesAfter=\\t" in miscs
    assert any(m == "SpacesAfter=\\r\\n\\r\\n" for m in miscs)
    assert all("\t" not in c and "\n" not in c for s in sentences for c in s.comments)


def test_tokenized_input(tokenizer):
    text = "Juan vio del rey .\n\nAna's  perro come\n  leading spaces\n"
    sentences = list(tokenizer.tokenize(text, input="tokenized"))
    assert sentence_tokens(sentences) == [["Juan", "vio", "del", "rey", "."], ["Ana's", "perro", "come"],
                                          ["leading", "spaces"]]
    assert [w[FORM] for w in sentences[0].words] == ["Juan", "vio", "de", "el", "rey", "."]
    assert sentences[1].comments[0] == "# newpar" and sentences[2].comments[0] != "# newpar"
    assert spaces.text_of(sentences) == text
    long_line = " ".join(["casa"] * 1000)
    assert max(len(s.words) for s in tokenizer.tokenize(long_line, input="tokenized")) <= 250


@settings(max_examples=60, deadline=None)
@given(text=ODD_TEXT, cuts=st.lists(st.integers(0, 300), max_size=3))
def test_sentences_input_ends_a_sentence_at_each_line_and_nowhere_else(tokenizer, text, cuts):
    borders = [0, *sorted(min(cut, len(text)) for cut in cuts), len(text)]
    sentences = list(tokenizer.tokenize([text[a:b] for a, b in zip(borders, borders[1:])], input="sentences"))
    assert spaces.text_of(sentences) == (text if text.strip() else "")
    lines = [line for line in re.split("\n|\u2029", text) if line.strip()]
    assert len(sentences) == len(lines)  # no line of ODD_TEXT is over the sentence limit


def test_sentences_input_tokenizes_each_line_as_one_sentence(tokenizer, monkeypatch):
    text = "Juan vio del rey. Ana come.\nMaria lee\n\n  Pedro tiene casa grande .\n"
    sentences = list(tokenizer.tokenize(text, input="sentences"))
    assert [s.comments[-1] for s in sentences] == ["# text = Juan vio del rey. Ana come.", "# text = Maria lee",
                                                   "# text = Pedro tiene casa grande ."]
    assert [w[FORM] for w in sentences[0].words][:4] == ["Juan", "vio", "de", "el"]  # tokenized as text is
    assert ["# newpar" in s.comments for s in sentences] == [True, False, True]
    assert spaces.text_of(sentences) == text
    cuts = small_blocks(monkeypatch)  # lines across block borders: still one sentence each
    lines = [" ".join(random.Random(k).choices(WORDS, k=k % 9 + 1)) + "." for k in range(60)]
    many = "\n".join(lines) + "\n"
    cut = list(tokenizer.tokenize([many[i:i + 37] for i in range(0, len(many), 37)], input="sentences"))
    assert [s.comments[-1] for s in cut] == [f"# text = {line}" for line in lines] and cuts
    long_line = " ".join(["casa"] * 1000)
    assert max(len(s.words) for s in tokenizer.tokenize(long_line, input="sentences")) <= 250


def test_cli_tokenizes_a_file(model, tmp_path, capsys):
    source = tmp_path / "in.txt"
    source.write_text("Juan vio la casa. Ana come del gato.\n", encoding="utf-8")
    assert main(["tokenize", "--model", str(model), str(source), "-o", str(tmp_path / "out.conllu"), "-q"]) == 0
    sentences = list(read(str(tmp_path / "out.conllu")))
    assert len(sentences) == 2
    assert spaces.text_of(sentences) == source.read_text(encoding="utf-8")
    assert main(["tokenize", "--model", str(model), "--input", "tokenized", str(source), "-q"]) == 0
    assert capsys.readouterr().out.count("# sent_id") == 1
    assert main(["info", str(model)]) == 0
    assert "[tokenize]" in capsys.readouterr().out


def test_train_and_parse_from_text_through_the_pipeline(treebank, tmp_path, capsys):
    model = tmp_path / "pipeline.barley"
    assert main(["train", "--train", str(treebank), "--components", "tokenize,tag,parse", "--no-jackknife",
                 "--seed", "1", "--model", str(model)]) == 0
    source = tmp_path / "in.txt"
    source.write_text("Juan vio la casa del rey. Ana come!\n\nPedro lee.\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["parse", "--model", str(model), "--input", "text", str(source), "-q"]) == 0
    sentences = list(read_lines(capsys.readouterr().out.split("\n")))
    assert [len(s.words) for s in sentences] == [8, 3, 3]
    assert all(word[3] != "_" and word[6] != "_" for s in sentences for word in s.words)
    assert spaces.text_of(sentences) == source.read_text(encoding="utf-8")
    [parsed] = list(barley.load(str(model)).parse("Ana lee del libro."))  # the Python API
    assert [w[FORM] for w in parsed.words] == ["Ana", "lee", "de", "el", "libro", "."]
    assert all(word[6] != "_" for word in parsed.words)
    source.write_text("Juan vio del rey .\nAna come\n", encoding="utf-8")
    assert main(["parse", "--model", str(model), "--input", "tokenized", str(source), "-q"]) == 0
    assert [len(s.words) for s in read_lines(capsys.readouterr().out.split("\n"))] == [6, 2]
    parser_only = tmp_path / "parser.barley"
    assert main(["train", "--train", str(treebank), "--model", str(parser_only), "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["parse", "--model", str(parser_only), "--input", "text", str(source)]) == 2
    assert "no tokenizer" in capsys.readouterr().err


def test_cli_bad_input(model, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"Juan vio\nla casa \xff\xfe del rey.\n")
    assert main(["tokenize", "--model", str(model), str(bad)]) == 2
    error = capsys.readouterr().err
    assert "invalid UTF-8 at byte offset 17" in error and ":2:" in error and "Traceback" not in error
    assert len(error.strip().splitlines()) == 1
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert main(["tokenize", "--model", str(model), str(empty), "-q"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["tokenize", "--model", str(tmp_path / "missing.barley"), str(empty)]) == 2


def test_invalid_utf8_across_chunks_reports_the_right_offset(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"ab\n" * 10 + "é".encode() * 3 + b"\xc3" + b"x")
    with pytest.raises(Exception, match="byte offset 36"):
        list(text_pieces(str(path), chunk_bytes=7))
    path.write_bytes("a\ufeffé".encode())
    assert "".join(text_pieces(str(path), chunk_bytes=1)) == "a\ufeffé"


def test_escapes_round_trip():
    for whitespace in ["", " ", "  ", "\n", "\r\n", "\t \xa0\u3000\u2028", "\x1c\x0b\x0c"]:
        assert spaces.around(spaces.misc(whitespace, "\n "))[1] == whitespace
        assert spaces.around(spaces.misc(whitespace, "\n "))[0] == "\n "


@pytest.mark.ud
def test_english_ewt_tokens_and_exact_text(tmp_path):
    train, test = ud_file("en_ewt-ud-train.conllu"), ud_file("en_ewt-ud-test.conllu")
    tokenizer = Tokenizer.train(list(read(str(train)))[:3000], seed=1, log=quiet)
    gold = list(read(str(test)))
    text = "\n\n".join(p.text for p in paragraphs(gold))
    system = list(tokenizer.tokenize(text))
    assert spaces.text_of(system) == text

    def spans(sentences):
        out, position = set(), 0
        for sentence in sentences:
            for row in spaces.token_rows(sentence):
                length = len("".join(row[FORM].split()))
                out.add((position, position + length))
                position += length
        return out

    gold_spans, system_spans = spans(gold), spans(system)
    f1 = 2 * len(gold_spans & system_spans) / (len(gold_spans) + len(system_spans))
    assert f1 > 0.97
    write(system, str(tmp_path / "out.conllu"))


@pytest.mark.parametrize("input", ["text", "tokenized"])
def test_a_lone_surrogate_or_bytes_are_refused_in_one_line(tokenizer, input):
    with pytest.raises(InputError, match=r"^text:2: the text holds a lone surrogate \(U\+DC80\)"):
        list(tokenizer.tokenize(["Fine.\n", "A \udc80 byte.\n"], input=input))
    with pytest.raises(InputError, match="text must be given as str, not bytes"):
        list(tokenizer.tokenize([b"bytes"], input=input))


def test_the_api_refuses_bytes_and_surrogates_in_one_line():
    with pytest.raises(BarleyError, match=r"parse takes a text as str \(or sentences\), not bytes"):
        list(barley.parse(b"The dog barks."))
    with pytest.raises(BarleyError, match="lone surrogate"):
        list(barley.parse("The \udc80 dog."))
