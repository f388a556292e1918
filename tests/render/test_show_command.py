"""``barley show``: the terminal drawing, SVG and HTML, picking sentences, comparing with a system file."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

from barley import cli
from rendered_sentence import SENTENCE, read_back

SECOND = SENTENCE.replace("s1", "s2").replace("\t2\tnmod", "\t4\tobl")


@pytest.fixture()
def files(tmp_path):
    gold = tmp_path / "gold.conllu"
    gold.write_text(SENTENCE + SECOND, encoding="utf-8")
    system = tmp_path / "system.conllu"
    # sentence 1: "on" attached to "scheduled" (wrong head), "." labelled obj (wrong label)
    system.write_text(SENTENCE.replace("\t2\tnmod", "\t4\tnmod").replace("\tpunct", "\tobj") + SECOND,
                      encoding="utf-8")
    return gold, system


def test_text_drawing_plain_when_piped(files, capsys):
    gold, _ = files
    assert cli.main(["show", str(gold), "--sentence", "s1"]) == 0
    out = capsys.readouterr().out
    assert "\x1b[" not in out
    assert out.startswith("# sent_id = s1: A hearing is scheduled on the issue today.")
    assert read_back(out) == [-1, 2, 4, 4, 0, 2, 7, 5, 4, 4]
    assert "hearing NOUN nsubj" in out


def test_sentence_by_number_and_every_sentence_by_default(files, capsys):
    gold, _ = files
    assert cli.main(["show", str(gold), "-s", "2"]) == 0
    assert capsys.readouterr().out.startswith("# sent_id = s2")
    assert cli.main(["show", str(gold)]) == 0
    assert capsys.readouterr().out.count("(root)") == 2


def test_a_missing_sentence_is_one_line_and_status_2(files, capsys):
    gold, _ = files
    assert cli.main(["show", str(gold), "-s", "s9"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "no sentence has sent_id 's9'" in error and "the file has 2" in error


def test_svg_needs_one_sentence_and_is_written_to_a_file(files, tmp_path, capsys):
    gold, _ = files
    assert cli.main(["show", str(gold), "--format", "svg"]) == 2
    assert "--format svg draws one sentence" in capsys.readouterr().err
    out = tmp_path / "tree.svg"
    assert cli.main(["show", str(gold), "-s", "s1", "-f", "svg", "-o", str(out)]) == 0
    root = ElementTree.parse(out).getroot()
    assert len([g for g in root.iter("{http://www.w3.org/2000/svg}g") if "arc" in g.get("class", "").split()]) == 9


def test_compare_marks_wrong_heads_and_labels(files, capsys):
    gold, system = files
    assert cli.main(["show", str(gold), "--compare", str(system), "-s", "1"]) == 0
    out = capsys.readouterr().out
    assert "## gold: " in out and "1 wrong heads, 1 more wrong labels" in out
    assert "on ADP nmod ✗head (gold 2 hearing)" in out
    assert ". PUNCT obj ✗label (gold punct)" in out
    tmp = gold.parent / "compare.html"
    assert cli.main(["show", str(gold), "--compare", str(system), "-f", "html", "-o", str(tmp)]) == 0
    page = tmp.read_text(encoding="utf-8")
    assert page.count('class="arc wrong-head') == 1 and page.count("wrong-label") >= 2
    assert page.count("<figure>") == 2 and "sent_id = s2" in page


def test_compare_with_other_words_is_refused(files, tmp_path, capsys):
    gold, _ = files
    other = tmp_path / "other.conllu"
    other.write_text(SENTENCE.replace("hearing", "meeting"), encoding="utf-8")
    assert cli.main(["show", str(gold), "--compare", str(other)]) == 2
    assert "word 2 is 'meeting' but the gold word is 'hearing'" in capsys.readouterr().err


@pytest.mark.slow
def test_without_a_file_it_reads_standard_input_as_with_a_dash(files, tmp_path):
    """``barley parse ... | barley show``: the drawing of standard input is the drawing of the file;
    with nothing piped in (a terminal) it says how to give a file instead of waiting."""
    gold, _ = files
    environment = {**os.environ, "NO_COLOR": "1"}
    command = [sys.executable, "-m", "barley", "show"]
    of_file = subprocess.run([*command, str(gold)], capture_output=True, text=True, env=environment)
    for arguments in ([], ["-"]):
        with open(gold, "rb") as piped:
            of_stdin = subprocess.run(command + arguments, stdin=piped, capture_output=True, text=True,
                                      env=environment)
        assert of_stdin.returncode == 0 and of_stdin.stdout == of_file.stdout and "(root)" in of_file.stdout
    primary, secondary = os.openpty()  # standard input a terminal, with nothing typed
    try:
        typed = subprocess.run(command, stdin=secondary, capture_output=True, text=True, env=environment, timeout=60)
    finally:
        os.close(primary)
        os.close(secondary)
    assert typed.returncode == 2 and typed.stderr.count("\n") == 1
    assert "no FILE given, and standard input is a terminal" in typed.stderr and "| barley show" in typed.stderr
