"""``barley oracle --show``: the configuration sequence of one sentence, as text and as an HTML page."""

from __future__ import annotations

import re

import pytest

from barley import cli
from barley.systems import system_names
from rendered_sentence import SENTENCE, read_back

GOLD = [-1, 2, 4, 4, 0, 2, 7, 5, 4, 4]  # non-projective: hearing → on


@pytest.fixture()
def treebank(tmp_path):
    path = tmp_path / "fig1.conllu"
    path.write_text(SENTENCE, encoding="utf-8")
    return path


@pytest.mark.parametrize("system", ["swap-eager", "swap-lazy", "covington-nonprojective", "2-planar"])
def test_every_arc_added_is_listed_once_and_the_tree_built_is_drawn(treebank, system, capsys):
    assert cli.main(["oracle", str(treebank), "--system", system, "--sentence", "s1", "--show"]) == 0
    out = capsys.readouterr().out
    table, _, drawing = out.partition("\n\n")
    arcs = re.findall(r"(\S+)/(\d+) → \S+/(\d+) \(", table) + [("ROOT", "0", d) for d in
                                                              re.findall(r"ROOT → \S+/(\d+) \(", table)]
    built = [-1] * 10
    for _, head, dependent in arcs:
        assert built[int(dependent)] == -1
        built[int(dependent)] = int(head)
    assert built == GOLD and read_back(drawing) == GOLD
    assert "rebuilds the tree exactly" in table


def test_a_projective_system_builds_the_nearest_tree_and_says_so(treebank, capsys):
    assert cli.main(["oracle", str(treebank), "--sentence", "1", "--show", "-a", "arc-standard"]) == 0
    out = capsys.readouterr().out
    assert "builds the nearest tree the system can" in out
    assert "stack" in out and "buffer" in out and "λ1" not in out


def test_html_has_one_frame_per_configuration(treebank, tmp_path, capsys):
    page = tmp_path / "frames.html"
    assert cli.main(["oracle", str(treebank), "--sentence", "s1", "--show", "--format", "html",
                     "-o", str(page), "-a", "swap-lazy"]) == 0
    text = page.read_text(encoding="utf-8")
    transitions = int(re.search(r"(\d+) transitions for 9 words", text).group(1))
    assert text.count('<section class="frame"') == transitions + 1
    assert text.count('data-transition="SWAP"') >= 1 and "<script>" in text and "src=" not in text


@pytest.mark.parametrize("args, message", [
    (["--show"], "--show follows one sentence"),
    (["--show", "--sentence", "9"], "no sentence has sent_id '9'"),
    (["--show", "--sentence", "1", "--system", "all"], "--show follows one sentence"),
])
def test_show_errors_are_one_line(treebank, args, message, capsys):
    assert cli.main(["oracle", str(treebank), *args]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1


def test_every_system_can_be_shown(treebank, capsys):
    for system in system_names():
        assert cli.main(["oracle", str(treebank), "-a", system, "--sentence", "1", "--show"]) == 0
    capsys.readouterr()
