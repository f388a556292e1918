"""`barley evaluate --jobs N`: the files scored in blocks of whole sentences give the report of one process."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from barley import conllu

from barley.evaluation import parallel as parallel_evaluate
from barley.cli import main
from barley.conllu import DEPREL, HEAD
from barley.evaluation.attachment import evaluate
from barley.evaluation.conll18 import evaluate_conll18
from conll18_treebanks import sentences_of, treebanks
from random_trees import draw_ints
from resegment import resegment
from fixed_grammar import toy_treebank

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

EDITS = ("split_token", "merge_tokens", "make_multiword", "undo_multiword")  # the sentences stay the gold's


def _perturbed(sentences, rng: random.Random, share: float) -> str:
    """The sentences with a ``share`` of their heads and DEPRELs changed (heads stay in range, trees or not)."""
    for sentence in sentences:
        for word in sentence.words:
            if rng.random() < share:
                word[HEAD] = str(rng.randint(0, len(sentence)))
            if rng.random() < share:
                word[DEPREL] = rng.choice(["nsubj", "obj", "det", "punct", "nmod:poss", "root"])
    return "".join(sentence.to_text() for sentence in sentences)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("evaluate-jobs")
    gold = folder / "gold.conllu"
    toy_treebank(gold, 300, seed=5)
    (folder / "system.conllu").write_text(_perturbed(list(conllu.read(gold)), random.Random(1), 0.15), "utf-8")
    (folder / "other.conllu").write_text(_perturbed(list(conllu.read(gold)), random.Random(2), 0.2), "utf-8")
    (folder / "retokenized.conllu").write_text(
        resegment(conllu.read(gold), random.Random(3).randint, {edit: 15 for edit in EDITS}), "utf-8")
    (folder / "resplit.conllu").write_text(
        resegment(conllu.read(gold), random.Random(4).randint, {"merge_sentences": 3}), "utf-8")
    return folder


@pytest.fixture
def blocks_taken(monkeypatch):
    """Small blocks, and a list of what each call of evaluate_files returned (None: one process took over)."""
    monkeypatch.setattr(parallel_evaluate, "BLOCK_BYTES", 900)
    returned = []
    original = parallel_evaluate.evaluate_files

    def spy(*args, **kwargs):
        returned.append(original(*args, **kwargs))
        return returned[-1]

    monkeypatch.setattr(parallel_evaluate, "evaluate_files", spy)
    return returned


def _report(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["evaluate", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("options", [[], ["--json"], ["--exclude-punct"], ["--exclude-punct-form"], ["--conll18"],
                                     ["--compare", "other.conllu"], ["--compare", "other.conllu", "--json"]])
def test_the_report_is_the_one_process_report_byte_for_byte(files, blocks_taken, capsys, options):
    options = [str(files / option) if option.endswith(".conllu") else option for option in options]
    arguments = [files / "gold.conllu", files / "system.conllu", *options]
    one = _report(capsys, *arguments)
    assert _report(capsys, *arguments, "--jobs", "2") == one
    assert blocks_taken and blocks_taken[0] is not None  # scored in blocks, not handed back to one process
    assert one[0] == 0 and "LAS" in one[1]


def test_the_page_of_errors_is_the_one_process_page(files, blocks_taken, tmp_path, capsys):
    pages = []
    for jobs in ("1", "2"):
        pages.append(tmp_path / f"errors-{jobs}.html")
        _report(capsys, files / "gold.conllu", files / "system.conllu", "--show-errors", "7",
                "--errors-page", pages[-1], "--jobs", jobs)
    assert pages[0].read_bytes() == pages[1].read_bytes() and b"<svg" in pages[0].read_bytes()
    assert blocks_taken[0] is not None


def test_an_other_tokenization_gives_the_one_process_conll18_report(files, blocks_taken, capsys):
    arguments = [files / "gold.conllu", files / "retokenized.conllu", "--compare", files / "other.conllu"]
    one = _report(capsys, *arguments)
    assert "tokenization or sentence split differs" in one[1]
    assert _report(capsys, *arguments, "-j", "3") == one
    assert blocks_taken[0] is not None


def test_an_other_sentence_split_is_scored_by_one_process(files, blocks_taken, capsys):
    arguments = [files / "gold.conllu", files / "resplit.conllu"]
    one = _report(capsys, *arguments)
    assert _report(capsys, *arguments, "-j", "2") == one
    assert blocks_taken == [None]


def test_gold_against_itself_with_crlf_and_a_bom(files, blocks_taken, tmp_path, capsys):
    text = (files / "gold.conllu").read_text("utf-8")
    gold = tmp_path / "crlf.conllu"
    gold.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    one = _report(capsys, gold, files / "system.conllu", "--json")
    assert _report(capsys, gold, files / "system.conllu", "--json", "-j", "2") == one
    assert blocks_taken[0] is not None


def _truncated(text: str) -> str:
    return text[:text.rindex("\n\n", 0, len(text) - 2) + 2]


@pytest.mark.parametrize("damaged, damage", [
    ("system", _truncated),  # fewer sentences than the gold
    ("system", lambda text: text + text[:text.index("\n\n") + 2]),  # more
    ("system", lambda text: text[:len(text) // 2] + text[len(text) // 2:].replace("\tthe\t", "\tThe\t", 1)),  # a word
    ("system", lambda text: text[:len(text) // 2] + "1\tbroken\n" + text[len(text) // 2:]),  # a malformed line
    ("gold", lambda text: text[:len(text) // 2] + text[len(text) // 2:].replace("\t0\troot", "\t_\troot", 1)),
])
def test_errors_are_the_one_process_errors(files, blocks_taken, tmp_path, capsys, damaged, damage):
    """Bad input is the one-line error of one process, with its numbers (lines and sentences of the whole files)."""
    damaged_file = tmp_path / "damaged.conllu"
    text = (files / "gold.conllu").read_text("utf-8")
    damaged_file.write_text(damage(text), "utf-8")
    assert damaged_file.read_text("utf-8") != text
    gold, system = ((files / "gold.conllu", damaged_file) if damaged == "system"
                    else (damaged_file, files / "system.conllu"))
    one = _report(capsys, gold, system)
    assert one[0] != 0 and one[2].count("\n") == 1 and "Traceback" not in one[2]
    assert _report(capsys, gold, system, "-j", "2") == one


@settings(max_examples=60, deadline=None)
@given(treebanks(), st.data())
def test_any_retokenization_scored_in_blocks_gives_the_whole_file_figures(text, data):
    """Random multiword tokens and token edits, random block sizes: joined pieces = the whole, or None."""
    text = text * data.draw(st.integers(1, 4))
    system = resegment(sentences_of(text), draw_ints(data), {edit: data.draw(st.integers(0, 3)) for edit in EDITS},
                       retag_percent=20)
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        gold_path, system_path = Path(folder, "gold.conllu"), Path(folder, "system.conllu")
        gold_path.write_text(text, "utf-8")
        system_path.write_text(system, "utf-8")
        scored = parallel_evaluate.evaluate_files(str(gold_path), [str(system_path)], False, 2,
                                                  block_bytes=data.draw(st.integers(1, 400)))
        whole = evaluate_conll18(str(gold_path), str(system_path))
        if scored is None:
            return
        (conll18, evaluation), = scored
        assert conll18.as_dict() == whole.as_dict()
        assert (conll18.las_correct == whole.las_correct).all()
        if whole.same_tokenization:
            assert evaluation.as_dict() == evaluate(str(gold_path), str(system_path)).as_dict()
