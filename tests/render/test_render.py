"""Drawings of trees: the terminal drawing read back gives the tree, fits 80 columns and
crosses only where an arc is non-projective; the SVG is well-formed and self-contained.
Both stack their arcs (lanes) in O(n log n) exactly as comparing every pair placed them."""

from __future__ import annotations


import random
import re
import xml.etree.ElementTree as ElementTree

import pytest

from barley import render
from barley.conllu import read, read_lines
from barley.render import html, svg, text
from barley.render.stacking import Stack
from barley.tree import is_projective
from random_trees import any_tree, projective_tree
from rendered_sentence import SENTENCE, read_back


def drawing_of(heads: list[int], forms: list[str] | None = None) -> render.Drawing:
    n = len(heads) - 1
    forms = forms or ["ROOT"] + [f"w{i}" for i in range(1, n + 1)]
    return render.Drawing(forms, [""] + ["NOUN"] * n, heads, [""] + ["dep"] * n)


def crossing(drawing_text: str) -> bool:
    """A branch passing a lane it does not join: ``─│─``."""
    return any("─│─" in line for line in drawing_text.splitlines())


@pytest.mark.parametrize("seed", range(60))
def test_the_terminal_drawing_reads_back_as_the_tree(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 30)
    heads = (projective_tree if seed % 2 else any_tree)(rng.randint, n, single_root=seed % 3 == 0)
    drawn = text.draw(drawing_of(heads))
    assert read_back(drawn) == heads
    if is_projective(heads):
        assert not crossing(drawn), drawn


def test_a_50_word_non_projective_sentence_is_legible_in_80_columns():
    rng = random.Random(7)
    heads = any_tree(rng.randint, 50, single_root=True)
    assert not is_projective(heads)
    words = "the committee announced yesterday that an unexpectedly thorough investigation".split()
    forms = ["ROOT"] + [words[i % len(words)] for i in range(50)]
    drawing = render.Drawing(forms, [""] + ["NOUN"] * 50, heads, [""] + ["nmod:poss"] * 50,
                             title="a long title " * 12)
    drawn = text.draw(drawing, width=80)
    assert max(len(line) for line in drawn.splitlines()) <= 80
    assert read_back(drawn) == heads
    assert crossing(drawn)


def test_nivre_2009_figure_1_crosses_where_hearing_on_passes_is_and_scheduled():
    # "A hearing is scheduled on the issue today .": the arc hearing → on passes over "is"
    # (scheduled → is) and "scheduled" (root → scheduled), the only crossings
    heads = [-1, 2, 4, 4, 0, 2, 7, 5, 4, 4]
    drawn = text.draw(drawing_of(heads))
    assert read_back(drawn) == heads
    assert sum(line.count("─│─") for line in drawn.splitlines()) == 2


def test_text_is_cut_not_wrapped_and_colour_is_ansi_only_when_asked():
    drawing = drawing_of([-1, 0, 1], ["ROOT", "x" * 100, "y"])
    drawn = text.draw(drawing, width=40)
    assert all(len(line) <= 40 for line in drawn.splitlines()) and "…" in drawn
    assert "\x1b[" not in drawn and "\x1b[" in text.draw(drawing, colour=True)


def test_colour_only_on_a_terminal_without_no_color(monkeypatch):
    class Terminal:
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert text.use_colour(Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not text.use_colour(Terminal())


def test_svg_is_well_formed_with_one_arc_per_word_and_marks():
    gold = next(read_lines(SENTENCE.splitlines()))
    system = gold.copy()
    system.set_tree([-1, 2, 4, 4, 0, 4, 7, 5, 4, 4], ["", "det", "nsubj", "aux", "root", "obl", "det", "pobj",
                                                       "obl:tmod", "obj"])
    marked = render.compare(gold, system)
    root = ElementTree.fromstring(svg.draw(marked))
    arcs = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if "arc" in g.get("class", "").split()]
    assert len(arcs) == 9
    assert [g.get("data-dependent") for g in arcs if "wrong-head" in g.get("class")] == ["5"]
    assert [g.get("data-dependent") for g in arcs if "wrong-label" in g.get("class")] == ["5", "9"]
    assert marked.errors == 2
    stacked = ElementTree.fromstring(svg.stack([render.from_sentence(gold), marked]))
    assert len(stacked.findall("{http://www.w3.org/2000/svg}svg")) == 2


def test_svg_levels_give_crossing_arcs_different_tops():
    levels = svg.levels([-1, 2, 4, 4, 0, 2, 7, 5, 4, 4])
    assert levels[(2, 5)] != levels[(4, 3)] and levels[(2, 5)] != levels[(4, 8)]
    # every pair of overlapping arcs has different levels: no shared top line
    for (a, la), (b, lb) in [(x, y) for x in levels.items() for y in levels.items() if x[0] < y[0]]:
        if min(a) < max(b) and min(b) < max(a):
            assert la != lb


def _random_heads(rng: random.Random, n: int) -> list[int]:
    """Any head for every word, cycles and headless words (-1) included, as partial drawings have."""
    return [-1] + [rng.choice([-1, 0, *[h for h in range(1, n + 1) if h != d]]) for d in range(1, n + 1)]


@pytest.mark.parametrize("seed", range(40))
def test_stacking_places_spans_as_comparing_every_pair_does(seed):
    rng = random.Random(seed)
    positions = rng.randint(1, 70)
    stack, placed = Stack(positions), []
    for _ in range(rng.randint(1, 60)):
        first = rng.randrange(positions)
        last = rng.randint(first, min(positions - 1, first + rng.choice([0, 2, 10, positions])))
        expected = max((level for a, b, level in placed if a <= last and first <= b), default=0)
        assert stack.highest_over(first, last) == expected
        level = rng.randint(1, 9)
        stack.place(first, last, level)
        placed.append((first, last, level))


@pytest.mark.parametrize("seed", range(40))
def test_svg_levels_and_text_lanes_are_those_of_comparing_every_pair(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 80)
    heads = any_tree(rng.randint, n, single_root=False) if seed % 2 else _random_heads(rng, n)
    expected: dict[tuple[int, int], int] = {}
    for arc in sorted(((h, d) for d, h in enumerate(heads) if d and h > 0),
                      key=lambda arc: (abs(arc[0] - arc[1]), min(arc))):
        low, high = sorted(arc)
        expected[arc] = 1 + max((level for (h, d), level in expected.items()
                                 if min(h, d) < high and low < max(h, d)), default=0)
    assert svg.levels(heads) == expected
    placed: list[tuple[text.Lane, int]] = []
    for lane, _ in text.lanes(heads):
        column = 1 + max((column for other, column in placed
                          if other.top <= lane.bottom and lane.top <= other.bottom), default=-1)
        placed.append((lane, column))
    assert text.lanes(heads) == placed


def test_depths_follow_heads_to_the_root_a_headless_word_or_a_cycle():
    #        0   1  2  3  4  5  6  7
    heads = [-1, 0, 1, 2, -1, 4, 7, 6]
    assert text._depths(heads) == [0, 1, 2, 3, 0, 1, 8, 8]
    assert text._depths([-1] + list(range(0, 3000))) == list(range(3001))  # a chain: no walk per word


def test_html_page_is_self_contained():
    sentence = next(read_lines(SENTENCE.splitlines()))
    page = html.page("title <&>", [html.Figure("caption", [("", render.from_sentence(sentence))],
                                               sentence.to_text())])
    assert "title &lt;&amp;&gt;" in page
    stripped = page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "http:" not in stripped and "https:" not in stripped and "url(" not in stripped
    assert "<script" not in page


ENHANCED = """# text = Apples and pears were sold to the man who left.
1	Apples	apple	NOUN	_	_	5	nsubj:pass	5:nsubj:pass	_
2	and	and	CCONJ	_	_	3	cc	3:cc	_
3	pears	pear	NOUN	_	_	1	conj	1:conj:and|5:nsubj:pass	_
4	were	be	AUX	_	_	5	aux:pass	5:aux:pass	_
5	sold	sell	VERB	_	_	0	root	0:root	_
6	to	to	ADP	_	_	8	case	8:case	_
7	the	the	DET	_	_	8	det	8:det	_
8	man	man	NOUN	_	_	5	obl	5:obl:to|10:nsubj|10.1:nsubj	_
9	who	who	PRON	_	_	10	nsubj	8:ref	_
10	left	leave	VERB	_	_	8	acl:relcl	8:acl:relcl	_
"""


def test_the_enhanced_arcs_the_tree_lacks_hang_below_the_words():
    """barley show / the service's drawings: each arc of DEPS whose head is not the word's head in the tree
    is drawn under the words (an empty node's, and a relabelled tree arc, are not)."""
    sentence = next(read_lines(ENHANCED.splitlines(keepends=True)))
    drawing = render.from_sentence(sentence)
    assert drawing.enhanced == [(5, 3, "nsubj:pass"), (10, 8, "nsubj"), (8, 9, "ref")]
    root = ElementTree.fromstring(svg.draw(drawing))
    groups = [g for g in root.iter("{http://www.w3.org/2000/svg}g") if {"arc", "enhanced"} <= set(g.get("class", "").split())]
    assert [(g.get("data-head"), g.get("data-dependent")) for g in groups] == [("5", "3"), ("10", "8"), ("8", "9")]
    words = [float(t.get("y")) for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "word"]
    for group in groups:  # under the words, inside the picture
        (path, _), height = group.iter("{http://www.w3.org/2000/svg}path"), float(root.get("height"))
        ys = [float(y) for y in re.findall(r"[-\d.]+,([-\d.]+)", path.get("d"))]
        assert min(ys) > max(words) and max(ys) < height
    plain = render.from_sentence(next(read_lines(SENTENCE.splitlines(keepends=True))))
    assert plain.enhanced == [] and 'class="arc enhanced"' not in svg.draw(plain)


def _assert_labels_apart(drawing: render.Drawing, compact: bool = False) -> None:
    """No two labels of one row (level above, or below, the words) overlap, and none leaves the picture."""
    placed = svg.layout(drawing, svg.COMPACT if compact else svg.NORMAL)
    rows: dict[int, list] = {}
    for label in placed.labels:
        rows.setdefault(label.row, []).append(label)
        assert label.left >= svg.MARGIN - 1e-6
    for row in rows.values():
        row.sort(key=lambda label: label.left)
        for left, right in zip(row, row[1:]):
            assert left.right + svg.LABEL_PAD <= right.left + 1e-6, (left, right)
    assert len(placed.labels) == len(drawing.arcs()) + len(drawing.enhanced)


@pytest.mark.parametrize("seed", range(30))
def test_labels_never_overlap_on_random_trees_with_long_labels(seed):
    rng = random.Random(seed)
    heads = any_tree(rng.randint, rng.randint(2, 40), single_root=seed % 2 == 0)
    labels = [""] + [rng.choice(["a", "nsubj", "compound:prt", "nmod:poss", "x" * rng.randint(1, 25)])
                     for _ in heads[1:]]
    forms = ["ROOT"] + [rng.choice(["a", ",", "word", "antidisestablishment"]) for _ in heads[1:]]
    enhanced = [(rng.randint(1, len(heads) - 1), d, "nsubj:xsubj") for d in range(1, len(heads)) if rng.random() < 0.2]
    enhanced = [(h, d, r) for h, d, r in enhanced if h != d]
    drawing = render.Drawing(forms, ["", *["X"] * (len(heads) - 1)], heads, labels, enhanced=enhanced)
    _assert_labels_apart(drawing)
    _assert_labels_apart(drawing, compact=True)
    root = ElementTree.fromstring(svg.draw(drawing))
    assert float(root.get("width")) >= max(label.right for label in svg.layout(drawing).labels)


def test_labels_never_overlap_on_the_50_longest_ewt_dev_sentences():
    from conftest import ud_file

    sentences = sorted(read(str(ud_file("en_ewt-ud-dev.conllu"))), key=len)[-50:]
    for sentence in sentences:
        _assert_labels_apart(render.from_sentence(sentence))
        _assert_labels_apart(render.from_sentence(sentence), compact=True)


def test_a_word_shows_its_lemma_and_features_and_compact_drops_the_lemma():
    drawing = render.from_sentence(next(read_lines(ENHANCED.splitlines(keepends=True))))
    picture = svg.draw(drawing)
    assert 'font-style="italic">leave</tspan>' in picture and "<title>sold sell VERB" in picture
    small = svg.draw(drawing, compact=True)
    assert 'font-style="italic"' not in small
    assert float(ElementTree.fromstring(small).get("width")) < float(ElementTree.fromstring(picture).get("width"))


def test_the_terminal_drawing_lists_the_enhanced_arcs_after_each_word():
    drawing = render.from_sentence(next(read_lines(ENHANCED.splitlines(keepends=True))))
    lines = text.draw(drawing, width=200).splitlines()
    assert any(line.endswith("pears NOUN conj +nsubj:pass ← 5 sold") for line in lines), lines
    assert any(line.endswith("who PRON nsubj +ref ← 8 man") for line in lines), lines
    assert "\x1b[35m+ref ← 8 man\x1b[0m" in text.draw(drawing, width=200, colour=True)
