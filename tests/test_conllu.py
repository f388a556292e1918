"""Reading and writing CoNLL-U / CoNLL-X: lossless round trips, tolerated variants, one-line errors, convert."""

from __future__ import annotations

import gzip
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from barley import conllu
from barley.cli import main
from barley.errors import InputError
from conftest import ud_file

# One sentence with everything CoNLL-U can hold: comments, a multiword token, an empty node, DEPS, MISC.
RICH = (
    "# sent_id = rich\n"
    "# text = Vámonos al mar.\n"
    "1-2\tVámonos\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "1\tVamos\tir\tVERB\t_\tMood=Ind\t0\troot\t0:root\t_\n"
    "2\tnos\tnosotros\tPRON\t_\tCase=Acc\t1\tobj\t1:obj\t_\n"
    "2.1\tvamos\tir\tVERB\t_\t_\t_\t_\t0:root|1:conj\tCopyOf=1\n"
    "3-4\tal\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n"
    "3\ta\ta\tADP\t_\t_\t5\tcase\t5:case\t_\n"
    "4\tel\tel\tDET\t_\t_\t5\tdet\t5:det\t_\n"
    "5\tmar\tmar\tNOUN\t_\t_\t1\tobl\t1:obl:a\tSpaceAfter=No\n"
    "6\t.\t.\tPUNCT\t_\t_\t1\tpunct\t1:punct\t_\n"
    "\n"
)
PLAIN = "1\tA\ta\tDET\t_\t_\t2\tdet\t_\t_\n2\tdog\tdog\tNOUN\t_\t_\t0\troot\t_\t_\n\n"


def row(i, form="w", head="0", deprel="dep", upos="X"):
    return f"{i}\t{form}\t_\t{upos}\t_\t_\t{head}\t{deprel}\t_\t_"


def read_text(tmp_path, text: str | bytes, name: str = "in.conllu") -> list[conllu.Sentence]:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return list(conllu.read(path))


@pytest.mark.slow
def test_every_shared_ud_file_round_trips_byte_for_byte(ud_path, tmp_path):
    out = tmp_path / "out.conllu"
    conllu.write(conllu.read(ud_path), out)
    assert out.read_bytes() == ud_path.read_bytes()


def test_rich_sentence_keeps_every_line_and_exposes_words(tmp_path):
    [sentence] = read_text(tmp_path, RICH)
    assert sentence.to_text() == RICH
    assert sentence.comments == ["# sent_id = rich", "# text = Vámonos al mar."]
    assert len(sentence.rows) == 9 and sentence.column(conllu.FORM) == ["Vamos", "nos", "a", "el", "mar", "."]
    assert sentence.heads().tolist() == [-1, 0, 1, 5, 5, 1, 1]
    assert sentence.sent_id == "rich" and sentence.line == 1


def test_gzip_and_atomic_write(tmp_path):
    path = tmp_path / "rich.conllu.gz"
    assert conllu.write(list(conllu.read_lines((RICH + PLAIN).splitlines())), path) == 2
    assert gzip.decompress(path.read_bytes()).decode() == RICH + PLAIN
    assert "".join(s.to_text() for s in conllu.read(path)) == RICH + PLAIN
    assert [p.name for p in tmp_path.iterdir()] == ["rich.conllu.gz"]  # no temporary left behind


@pytest.mark.parametrize("variant", ["crlf", "bom", "crlf+bom"])
def test_crlf_line_ends_and_byte_order_mark_are_kept_byte_for_byte(tmp_path, variant):
    text = RICH + PLAIN
    if "crlf" in variant:
        text = text.replace("\n", "\r\n")
    if "bom" in variant:
        text = "\ufeff" + text
    sentences = read_text(tmp_path, text)
    assert "".join(s.to_text() for s in sentences) == text
    assert [s.line for s in sentences] == [1, 13]
    assert [len(s) for s in sentences] == [6, 2] and sentences[1].words[1][1] == "dog"
    assert "".join(s.to_text() for s in conllu.read_lines(text.splitlines(keepends=True))) == text
    conllu.write(sentences, tmp_path / "out.conllu")
    assert (tmp_path / "out.conllu").read_bytes() == text.encode("utf-8")


def test_last_sentence_without_closing_blank_line_is_accepted(tmp_path):
    for text in (RICH + PLAIN.rstrip("\n"), RICH + PLAIN[:-1]):
        sentences = read_text(tmp_path, text)
        assert [len(s) for s in sentences] == [6, 2]
        assert sentences[-1].to_text() == PLAIN


def test_extra_blank_lines_and_blank_lines_with_spaces_separate_sentences(tmp_path):
    sentences = read_text(tmp_path, "\n\n" + PLAIN + "  \n\n" + PLAIN + "\t\n")
    assert [s.line for s in sentences] == [3, 8]
    assert all(s.to_text() == PLAIN for s in sentences)


@pytest.mark.parametrize("heads", [("2", "1"), ("1", "2"), ("2", "3", "0"), ("0", "0", "2")],
                          ids=["cycle", "self-loop", "no-root-cycle-and-root", "several-roots"])
def test_sentences_that_are_not_trees_are_read_unchanged(tmp_path, heads):
    text = "\n".join(row(i, head=h) for i, h in enumerate(heads, start=1)) + "\n\n"
    [sentence] = read_text(tmp_path, text)
    assert sentence.to_text() == text and sentence.heads().tolist() == [-1, *map(int, heads)]


# Sentences for the chunking property: the reader decodes in chunks; any chunk size must give the same result.
SENTENCE_TEXTS = st.lists(st.sampled_from([RICH, PLAIN, "# c\n" + PLAIN, PLAIN.replace("dog", "dög"),
                                           PLAIN.replace("\n", "\r\n"), "\n"]), min_size=1, max_size=6)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(texts=SENTENCE_TEXTS, chunk=st.integers(min_value=1, max_value=200))
@pytest.mark.filterwarnings("ignore::barley.errors.BarleyWarning")  # mixed line ends: tested on their own
def test_any_chunk_size_reads_the_same_sentences(tmp_path_factory, texts, chunk):
    text = "".join(texts)
    path = tmp_path_factory.getbasetemp() / "chunks.conllu"
    path.write_bytes(text.encode())
    expected = [(s.line, s.to_text()) for s in conllu.read_lines(text.split("\n"))]
    original = conllu.CHUNK_BYTES
    conllu.CHUNK_BYTES = chunk  # not monkeypatch: hypothesis runs many examples in one test call
    try:
        got = [(s.line, s.to_text()) for s in conllu.read(path)]
    finally:
        conllu.CHUNK_BYTES = original
    assert got == expected


@pytest.mark.slow
def test_stdin_and_stdout_through_the_command_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "barley", "convert", "-", "-"], input=(RICH + PLAIN).encode(),
                            capture_output=True, check=True)
    assert result.stdout.decode() == RICH + PLAIN
    assert "2 sentences written as conllu" in result.stderr.decode()


# Bad input: (file text, expected line, words the message must contain).
BAD_INPUT = {
    "spaces-instead-of-tabs": (PLAIN + "1 A a DET _ _ 2 det _ _\n2\tb\t_\t_\t_\t_\t0\troot\t_\t_\n", 4,
                               ["expected 10 tab-separated columns, found 1", "separated by spaces"]),
    "nine-columns": (PLAIN + "1\tA\ta\tDET\t_\t_\t0\troot\t_\n", 4, ["found 9", "exactly 10 columns"]),
    "head-not-integer": (PLAIN + row(1, head="x") + "\n", 4, ["HEAD 'x' of word 1 is not an integer"]),
    "head-out-of-range": (PLAIN + row(1, head="0") + "\n" + row(2, head="3") + "\n", 5,
                          ["HEAD 3 of word 2 is out of range (the sentence has 2 words)"]),
    "head-negative": (row(1, head="-1") + "\n", 1, ["HEAD -1 of word 1 is out of range"]),
    "id-sequence-broken": (row(1) + "\n" + row(3) + "\n", 2, ["word ID 3 breaks the sequence (expected 2)"]),
    "id-not-a-number": (row("one") + "\n", 1, ["ID 'one' is not a word number"]),
    "multiword-before-wrong-word": (row(1) + "\n3-4\tdel\t_\t_\t_\t_\t_\t_\t_\t_\n"
                                    + "\n".join(row(i) for i in (2, 3, 4)) + "\n", 2,
                                    ["multiword token 3-4 does not match the words after it (the next word is 2)"]),
    "multiword-single-word": (row(1) + "\n2-2\tx\t_\t_\t_\t_\t_\t_\t_\t_\n" + row(2) + "\n", 2,
                              ["multiword token 2-2 does not match", "with b > a"]),
    "multiword-misplaced": (row(1) + "\n" + row(2) + "\n1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n", 3,
                            ["multiword token 1-2 does not match the words after it (the next word is 3)"]),
    "multiword-past-the-end": (row(1) + "\n2-3\tab\t_\t_\t_\t_\t_\t_\t_\t_\n" + row(2) + "\n", 2,
                               ["multiword token ends at word 3 but the sentence has 2 words"]),
    "empty-node-misplaced": (row(1) + "\n" + row(2) + "\n1.1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n", 3,
                             ["empty node 1.1 is out of place (the last word is 2)"]),
    "comment-inside-sentence": (row(1) + "\n# late\n", 2, ["comment line after the first token line"]),
    "comments-without-sentence": (PLAIN + "# orphan\n\n" + PLAIN, 4, ["comment lines without any token line"]),
    "invalid-utf8": (PLAIN.encode() * 3 + b"1\tcaf\xe9\t_\t_\t_\t_\t0\troot\t_\t_\n", 10,
                     ["invalid UTF-8: byte(s) e9", "re-encode the file as UTF-8"]),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_is_one_line_naming_file_line_and_fix_with_exit_status_2(tmp_path, capsys, case):
    text, line, words = BAD_INPUT[case]
    path = tmp_path / "bad.conllu"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(InputError) as caught:
        list(conllu.read(path))
    assert caught.value.line == line and caught.value.path == str(path) and caught.value.fix
    assert main(["convert", str(path), str(tmp_path / "out.conllu")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"barley convert: error: {path}:{line}: ")
    for word in words:
        assert word in err
    assert not (tmp_path / "out.conllu").exists()


def test_invalid_utf8_line_is_exact_across_chunks(tmp_path, monkeypatch):
    text = (PLAIN * 500).encode() + b"1\t\xff\t_\t_\t_\t_\t0\troot\t_\t_\n"
    monkeypatch.setattr(conllu, "CHUNK_BYTES", 1000)
    with pytest.raises(InputError, match="invalid UTF-8") as caught:
        read_text(tmp_path, text)
    assert caught.value.line == 1501


def test_missing_file_unwritable_output_and_damaged_gzip_exit_2(tmp_path, capsys):
    assert main(["convert", str(tmp_path / "nope.conllu"), "-"]) == 2
    assert "cannot open the file" in capsys.readouterr().err
    source = tmp_path / "ok.conllu"
    source.write_text(PLAIN)
    assert main(["convert", str(source), str(tmp_path / "no" / "such" / "dir.conllu")]) == 2
    assert f"the folder {tmp_path / 'no' / 'such'} does not exist" in capsys.readouterr().err
    damaged = tmp_path / "bad.conllu.gz"
    damaged.write_bytes(gzip.compress((PLAIN * 50).encode())[:-30])
    assert main(["convert", str(damaged), "-"]) == 2
    err = capsys.readouterr().err
    assert "damaged or truncated gzip" in err and err.count("\n") == 1


@pytest.mark.slow
def test_bad_input_through_a_subprocess_has_no_traceback(tmp_path):
    path = tmp_path / "bad.conllu"
    path.write_text(PLAIN + "1 A a DET _ _ 0 root _ _\n")
    result = subprocess.run([sys.executable, "-m", "barley", "convert", str(path), "-"], capture_output=True)
    assert result.returncode == 2 and b"Traceback" not in result.stderr
    assert result.stderr.decode().strip() == (
        f"barley convert: error: {path}:4: expected 10 tab-separated columns, found 1 "
        "(the columns seem to be separated by spaces: use exactly one tab between columns)")


def test_convert_to_conllx_drops_and_counts_what_conllx_cannot_hold(tmp_path, capsys):
    source = tmp_path / "in.conllu"
    source.write_text(RICH + PLAIN)
    out = tmp_path / "out.conllx"
    assert main(["convert", str(source), str(out), "--to", "conllx"]) == 0
    assert capsys.readouterr().err.strip() == ("2 sentences written as conllx; dropped 2 comment lines, "
                                               "1 empty nodes, 2 multiword tokens")
    lines = out.read_text().split("\n")
    assert lines[0] == "1\tVamos\tir\tVERB\t_\tMood=Ind\t0\troot\t_\t_"
    assert lines[5] == "6\t.\t.\tPUNCT\t_\t_\t1\tpunct\t_\t_" and lines[6] == ""
    assert out.read_text().endswith(PLAIN) and out.read_text().count("\n\n") == 2


def test_convert_conllx_to_conllu_moves_phead_into_misc_and_keeps_conllu_unchanged(tmp_path, capsys):
    source = tmp_path / "in.conllx"
    source.write_text("1\tA\ta\tD\tDT\t_\t2\tdet\t2\tdet\n2\tdog\tdog\tN\tNN\t_\t0\tROOT\t_\t_\n"
                      "3\tran\trun\tV\tVB\t_\t2\tdep\t0\t_\n\n")
    out = tmp_path / "out.conllu"
    assert main(["convert", str(source), str(out)]) == 0
    assert out.read_text().split("\n")[:3] == ["1\tA\ta\tD\tDT\t_\t2\tdet\t_\tPHEAD=2|PDEPREL=det",
                                                "2\tdog\tdog\tN\tNN\t_\t0\tROOT\t_\t_",
                                                "3\tran\trun\tV\tVB\t_\t2\tdep\t_\tPHEAD=0"]
    rich = tmp_path / "rich.conllu"
    rich.write_text(RICH)
    assert main(["convert", str(rich), str(out), "--to", "conllu"]) == 0
    assert out.read_text() == RICH


@pytest.mark.slow
def test_conllx_round_trip_of_a_real_file_keeps_every_word(tmp_path):
    path = ud_file("cs_fictree-ud-dev.conllu")
    conllx = tmp_path / "fictree.conllx.gz"
    conllu.write(conllu.convert(conllu.read(path), "conllx"), conllx)
    for original, converted in zip(conllu.read(path), conllu.read(conllx), strict=True):
        assert [w[:8] for w in original.words] == [w[:8] for w in converted.words]
        assert converted.comments == [] and len(converted.rows) == len(original.words)


def test_writing_to_a_named_pipe_writes_into_it_and_keeps_it_a_pipe(tmp_path):
    import os
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    sentence = conllu.Sentence(["# text = Hi"], [["1", "Hi", "_", "_", "_", "_", "0", "root", "_", "_"]])
    assert conllu.write([sentence], str(fifo)) == 1
    reader.join(timeout=10)
    assert received == [sentence.to_text()]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # not replaced by a regular file (nor would /dev/null be)


@pytest.mark.parametrize("first, other", [("\r\n", "\n"), ("\n", "\r\n")])
def test_mixed_line_ends_are_written_like_the_first_line_with_a_warning(tmp_path, first, other):
    text = RICH.replace("\n", first) + PLAIN.replace("\n", other)
    with pytest.warns(conllu.BarleyWarning, match=r"in\.conllu: lines end in both CRLF and LF \(first at line 1[23]\)"):
        sentences = read_text(tmp_path, text)
    assert "".join(s.to_text() for s in sentences) == (RICH + PLAIN).replace("\n", first)


@pytest.mark.slow
def test_mixed_line_ends_warn_once_in_one_line_through_the_command_line(tmp_path):
    (tmp_path / "in.conllu").write_bytes((RICH.replace("\n", "\r\n") + PLAIN * 3).encode())
    result = subprocess.run([sys.executable, "-m", "barley", "convert", str(tmp_path / "in.conllu"), "-"],
                            capture_output=True, check=True)
    assert result.stdout == (RICH + PLAIN * 3).replace("\n", "\r\n").encode()
    warnings = [line for line in result.stderr.decode().splitlines() if "warning" in line]
    assert warnings == [f"barley convert: warning: {tmp_path / 'in.conllu'}: lines end in both CRLF and LF "
                        "(first at line 13); the output ends every line in CRLF, like the first line"]


@pytest.mark.parametrize("ending", ["\r\r\n", "\r"])
def test_a_carriage_return_that_ends_no_line_is_refused_since_it_could_not_be_written_back(tmp_path, ending):
    text = RICH + PLAIN.replace("\n", ending, 1)
    with pytest.raises(InputError, match=r"in\.conllu:13: a carriage return \(\\r\) that does not end a line"):
        read_text(tmp_path, text)


def test_set_tree_writes_heads_as_str_int_whatever_their_type():
    import numpy as np

    HEAD = conllu.HEAD
    sentence = next(conllu.read_lines(["1\ta\ta\tX\tX\t_\t0\troot\t_\t_", "2\tb\tb\tX\tX\t_\t1\tdep\t_\t_",
                                "3\tc\tc\tX\tX\t_\t1\tdep\t_\t_"]))
    sentence.set_tree([-1, np.int64(3), True, 0], ["", "a", "b", "c"])
    assert sentence.column(HEAD) == ["3", "1", "0"]
    sentence.set_tree([-1, -1, 2.0, 7], ["", "a", "b", "c"])  # whatever a caller gives: as str(int(...)) did
    assert sentence.column(HEAD) == ["-1", "2", "7"]
