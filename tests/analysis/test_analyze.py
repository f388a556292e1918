"""`barley analyze` and `barley validate`: figures against brute force and the data README."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from barley import conllu
from barley.analysis.treebank import TreebankStats, analyze, format_table
from barley.cli import main
from conftest import UD_DIR, ud_file

# Nivre (2009), Figure 1 (non-projective, ill-nested, 2-planar) and Nivre (2008), Figure 2 (projective).
HEARING = """# sent_id = hearing
1\tA\t_\t_\t_\t_\t2\tdet\t_\t_
2\thearing\t_\t_\t_\t_\t3\tnsubj\t_\t_
3\tis\t_\t_\t_\t_\t0\troot\t_\t_
4\tscheduled\t_\t_\t_\t_\t3\tvg\t_\t_
5\ton\t_\t_\t_\t_\t2\tnmod\t_\t_
6\tthe\t_\t_\t_\t_\t7\tdet\t_\t_
7\tissue\t_\t_\t_\t_\t5\tpc\t_\t_
8\ttoday\t_\t_\t_\t_\t4\tadv\t_\t_
9\t.\t_\t_\t_\t_\t3\tp\t_\t_

"""
ENGLISH = """# sent_id = economic-news
1\tEconomic\t_\t_\t_\t_\t2\tnmod\t_\t_
2\tnews\t_\t_\t_\t_\t3\tsbj\t_\t_
3\thad\t_\t_\t_\t_\t0\troot\t_\t_
4\tlittle\t_\t_\t_\t_\t5\tnmod\t_\t_
5\teffect\t_\t_\t_\t_\t3\tobj\t_\t_
6\ton\t_\t_\t_\t_\t5\tnmod\t_\t_
7\tfinancial\t_\t_\t_\t_\t8\tnmod\t_\t_
8\tmarkets\t_\t_\t_\t_\t6\tpmod\t_\t_
9\t.\t_\t_\t_\t_\t3\tp\t_\t_

"""


def sentence(*heads: str, sent_id: str = "s") -> str:
    rows = [f"{i}\tw{i}\t_\t_\t_\t_\t{head}\tdep\t_\t_" for i, head in enumerate(heads, start=1)]
    return "\n".join([f"# sent_id = {sent_id}", *rows]) + "\n\n"


def test_figures_of_the_paper_examples():
    report = analyze(conllu.read_lines((HEARING + ENGLISH).splitlines()))
    assert report["sentences"] == 2 and report["tokens"] == 18 and report["malformed_sentences"] == 0
    assert report["nonprojective_arcs"] == 2 and report["NPT"] == round(100 * 2 / 18, 2)
    assert report["nonprojective_sentences"] == 1 and report["NPS"] == 50.0
    assert report["non_planar_sentences"] == 1 and report["non_2planar_sentences"] == 0
    assert report["ill_nested_sentences"] == 1
    assert report["gap_degrees"] == {"0": 1, "1": 1} and report["max_gap_degree"] == 1
    assert report["labels"] == 11  # det nsubj root vg nmod pc adv p, then sbj obj pmod
    # Arcs between words: HEARING 1+1+1+3+1+2+4+6 = 19, ENGLISH 1+1+1+2+1+1+2+6 = 15.
    assert report["mean_arc_length"] == round((19 + 15) / 16, 3)
    assert "ill-nested sentences            1 (50.00%)" in format_table("x", report)


def test_malformed_sentences_are_counted_apart():
    stats = TreebankStats()
    for item in conllu.read_lines((sentence("2", "1", sent_id="cycle") + HEARING).splitlines()):
        stats.add(item)
    report = stats.report()
    assert report["sentences"] == 2 and report["tokens"] == 11 and report["malformed_sentences"] == 1
    assert report["malformed"] == [{"line": 1, "sent_id": "cycle", "reason": report["malformed"][0]["reason"]}]
    assert "cycle" in report["malformed"][0]["reason"]
    assert report["NPS"] == 100.0 and report["nonprojective_arcs"] == 2  # over the one well-formed tree


# An independent brute-force reading of the figures, from the raw text.

def read_trees(path: Path):
    """(heads, labels) per sentence, straight from the text: word lines have a numeric ID."""
    heads, labels = [-1], [""]
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) == 10 and fields[0].isdigit():
            heads.append(int(fields[6]))
            labels.append(fields[7])
        elif not line.strip() and len(heads) > 1:
            yield heads, labels
            heads, labels = [-1], [""]
    if len(heads) > 1:
        yield heads, labels


def two_colourable(arcs, pairs):
    """Union-find with parity: a crossing pair joins its arcs with odd parity."""
    parent = {arc: (arc, 0) for arc in arcs}

    def find(arc):
        parity = 0
        while parent[arc][0] != arc:
            arc, step = parent[arc]
            parity ^= step
        return arc, parity

    for a, b in pairs:
        (ra, pa), (rb, pb) = find(a), find(b)
        if ra == rb:
            if pa == pb:
                return False
        else:
            parent[ra] = (rb, pa ^ pb ^ 1)
    return True


def three_colourable(arcs, pairs):
    """Peel off vertices of degree < 3 (they can always be coloured last); try all colourings of the rest."""
    neighbours = {arc: set() for arc in arcs}
    for a, b in pairs:
        neighbours[a].add(b)
        neighbours[b].add(a)
    core = set(arcs)
    while True:
        low = {arc for arc in core if len(neighbours[arc] & core) < 3}
        if not low:
            break
        core -= low
    core = sorted(core)
    inner = [(a, b) for a, b in pairs if a in core and b in core]
    return any(all(colour[core.index(a)] != colour[core.index(b)] for a, b in inner)
               for colour in itertools.product(range(3), repeat=len(core)))


def brute_figures(path: Path) -> dict:
    figures = Counter()
    labels, gap_degrees = set(), Counter()
    for heads, words_labels in read_trees(path):
        n = len(heads) - 1
        figures["sentences"] += 1
        figures["tokens"] += n
        labels.update(words_labels[1:])
        ancestors = [{0}]
        for k in range(1, n + 1):
            path_up, node = {k}, k
            while node:
                node = heads[node]
                path_up.add(node)
            ancestors.append(path_up)
        yields = {u: [k for k in range(1, n + 1) if u in ancestors[k]] for u in range(1, n + 1)}
        nonprojective = [d for d in range(1, n + 1)
                         if any(heads[d] not in ancestors[k] for k in range(min(heads[d], d) + 1, max(heads[d], d)))]
        figures["nonprojective_arcs"] += len(nonprojective)
        figures["nonprojective_sentences"] += bool(nonprojective)
        word_arcs = {d: (min(heads[d], d), max(heads[d], d)) for d in range(1, n + 1) if heads[d]}
        pairs = [(d1, d2) for d1, d2 in itertools.combinations(word_arcs, 2)
                 if word_arcs[d1][0] < word_arcs[d2][0] < word_arcs[d1][1] < word_arcs[d2][1]
                 or word_arcs[d2][0] < word_arcs[d1][0] < word_arcs[d2][1] < word_arcs[d1][1]]
        figures["non_planar_sentences"] += bool(pairs)
        if not two_colourable(word_arcs, pairs):
            figures["non_2planar_sentences"] += 1
            figures["non_3planar_sentences"] += not three_colourable(word_arcs, pairs)
        gaps = {u: sum(b - a > 1 for a, b in zip(yields[u], yields[u][1:])) for u in yields}
        gap_degrees[max(gaps.values())] += 1
        # Two interleaving subtrees both have a gap, so only gapped nodes need pairing up.
        gapped = [u for u in gaps if gaps[u]]
        figures["ill_nested_sentences"] += any(
            u not in ancestors[v] and v not in ancestors[u]
            and any(yields[u][0] < l2 < r1 < yields[v][-1] for l2 in yields[v] for r1 in yields[u])
            for u, v in itertools.permutations(gapped, 2))
        figures["arc_length"] += sum(b - a for a, b in word_arcs.values())
        figures["arcs"] += len(word_arcs)
    return {**{key: figures[key] for key in (
        "sentences", "tokens", "nonprojective_arcs", "nonprojective_sentences", "non_planar_sentences",
        "non_2planar_sentences", "non_3planar_sentences", "ill_nested_sentences")},
        "max_gap_degree": max(gap_degrees), "gap_degrees": {str(g): gap_degrees[g] for g in sorted(gap_degrees)},
        "labels": len(labels), "mean_arc_length": round(figures["arc_length"] / figures["arcs"], 3)}


def test_analyze_json_matches_brute_force_on_latin(capsys):
    path = ud_file("la_perseus-ud-train.conllu")
    assert main(["analyze", "--json", str(path)]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = brute_figures(path)
    assert expected["tokens"] == 18259
    assert {key: report[key] for key in expected} == expected
    assert report["malformed_sentences"] == 0


README_ROW = re.compile(r"^\| (UD_\S+) \| (\w+) \| (\d+) \| (\d+) \| [\d.]+ \| ([\d.]+) \| ([\d.]+) \|$")


@pytest.mark.parametrize("name", ["tr_imst-ud-dev.conllu", "da_ddt-ud-test.conllu", "nl_alpino-ud-test.conllu"])
def test_analyze_agrees_with_the_data_readme(name):
    path = ud_file(name)
    readme = (UD_DIR.parent / "README.md").read_text(encoding="utf-8")
    split = name.rsplit("-", 1)[1].removesuffix(".conllu")
    row = next(m for m in map(README_ROW.match, readme.splitlines())
               if m and m[1] == path.parent.name and m[2] == split)
    report = analyze(conllu.read(path))
    assert (report["sentences"], report["tokens"]) == (int(row[3]), int(row[4]))
    assert f"{report['NPT']:.2f}" == row[5]
    assert f"{100 * report['nonprojective_sentences'] / report['sentences']:.1f}" == row[6]


# barley validate

@pytest.mark.parametrize("heads, reason", [
    (("2", "3", "1"), "no word is attached to the root"),   # a cycle through every word
    (("0", "3", "2"), "cycle 2 → 3 → 2"),                   # a cycle beside the rooted part
    (("0", "_", "1"), "word 2 has no head"),                # disconnected
    (("0", "1", "0"), "2 words are attached to the root"),  # several roots
])
def test_validate_reports_bad_trees(tmp_path, capsys, heads, reason):
    path = tmp_path / "bad.conllu"
    path.write_text(HEARING + sentence(*heads, sent_id="bad-one"), encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1
    assert out[0].startswith(f"{path}:12: bad-one: ") and reason in out[0]


def test_validate_accepts_good_trees_and_optionally_several_roots(tmp_path, capsys):
    path = tmp_path / "good.conllu"
    path.write_text(HEARING + ENGLISH, encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    several = tmp_path / "forest.conllu"
    several.write_text(sentence("0", "1", "0"), encoding="utf-8")
    assert main(["validate", str(several)]) == 1
    assert main(["validate", "--multiple-roots", str(several)]) == 0
    assert "0 of 1 sentences" in capsys.readouterr().err


def test_validate_and_analyze_reject_malformed_conll(tmp_path, capsys):
    path = tmp_path / "broken.conllu"
    path.write_text("1\tA\t_\t_\t_\t_\t0\troot\t_\n\n", encoding="utf-8")  # nine columns
    assert main(["validate", str(path)]) == 2
    assert main(["analyze", str(path)]) == 2
    assert "expected 10 tab-separated columns" in capsys.readouterr().err
