"""Progress of a long parse: shown on a terminal (sentences, words, words/s, the share of the input done and the
time left), cleared for the summary; nothing when stderr is piped or with -q; ``--jobs`` counts words too."""

from __future__ import annotations

import contextlib
import io

import pytest

import toy_language
from barley import cli
from barley.kinds import train
from barley.runtime import progress as progress_module
from barley.runtime.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_line_says_counts_speed_share_and_time_left_and_is_cleared(tmp_path):
    source = tmp_path / "in.conllu"
    source.write_bytes(b"x" * 1000)
    shown = Terminal()
    progress = Progress("parse", str(source), stream=shown, every=0)
    progress.add(10, 120, 250)
    line = progress.line(2.0)
    assert line == "barley parse: 10 sentences, 120 words, 60 words/s, 25% of the input, about 6 s left"
    assert shown.getvalue().startswith("\rbarley parse: 10 sentences, 120 words, ")
    width = len(shown.getvalue()) - 1
    progress.close()
    assert shown.getvalue().endswith("\r" + " " * width + "\r")  # cleared for the summary
    assert Progress("parse", "-", stream=Terminal()).line(1.0) == "barley parse: 0 sentences, 0 words, 0 words/s"
    piped = io.StringIO()
    quiet = Progress("parse", str(source), stream=piped, every=0)
    quiet.add(1, 5, 100)
    quiet.close()
    assert piped.getvalue() == ""


@pytest.fixture(scope="module")
def parser_and_input(tmp_path_factory):
    folder = tmp_path_factory.mktemp("progress")
    toy_language.treebank(folder / "train.conllu", 60, seed=1)
    toy_language.treebank(folder / "input.conllu", 200, seed=2)
    model = folder / "toy.barley"
    train(str(folder / "train.conllu"), system="arc-eager", log=lambda _: None).save(str(model))
    return model, folder / "input.conllu"


def _parse(arguments, stderr) -> int:
    with contextlib.redirect_stderr(stderr):
        return cli.main(["parse", *map(str, arguments)])


@pytest.mark.parametrize("jobs", [1, 2])
def test_barley_parse_shows_progress_on_a_terminal_only(parser_and_input, tmp_path, monkeypatch, jobs):
    model, source = parser_and_input
    monkeypatch.setattr(progress_module, "EVERY_SECONDS", 0.0)
    words = sum(1 for line in source.read_text().splitlines() if line[:1].isdigit())
    shown = Terminal()
    assert _parse([source, "-m", model, "-o", tmp_path / "out.conllu", "--jobs", jobs], shown) == 0
    lines = [line.strip() for line in shown.getvalue().split("\r") if line.strip()]
    assert lines[0].startswith("barley parse: ") and " words/s" in lines[0]
    assert f"200 sentences, {words:,} words, " in lines[-2] and "100% of the input, about 0 s left" in lines[-2]
    assert lines[-1].startswith(f"barley parse: 200 sentences, {words} words")  # the summary, after the line is cleared
    for arguments, stderr in (([], io.StringIO()), (["-q"], Terminal())):
        assert _parse([source, "-m", model, "-o", tmp_path / "out.conllu", "--jobs", jobs, "--force", *arguments],
                      stderr) == 0
        assert "\r" not in stderr.getvalue()
