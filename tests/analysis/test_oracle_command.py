"""``barley oracle`` and :mod:`barley.analysis.oracles` on small treebanks written by the tests.

The figures are checked against an independent computation: the oracle run
sentence by sentence through ``run_oracle`` and the fit through the origin by
numpy's least squares (Nivre 2009 §4.1).
"""

from __future__ import annotations

import json
import random
import sys

import numpy as np
import pytest

from barley.cli import main
from barley.analysis.oracles import fit_through_origin
from barley.systems import REGISTRY, get_system, run_oracle
from barley.tree import is_projective

# Nivre 2009 Figure 1 (non-projective: "on" hangs from "hearing" across "is scheduled").
HEARING = [("A", 2, "det"), ("hearing", 3, "nsubj"), ("is", 0, "root"), ("scheduled", 3, "xcomp"),
           ("on", 2, "nmod"), ("the", 7, "det"), ("issue", 5, "obl"), ("today", 4, "obl"), (".", 3, "punct")]
DOG = [("The", 2, "det"), ("dog", 3, "nsubj"), ("barks", 0, "root"), (".", 3, "punct")]
CYCLE = [("a", 2, "dep"), ("b", 1, "dep")]  # not a tree: skipped and counted


def conllu_text(sentences) -> str:
    """CoNLL-U for (sent_id or None, [(form, head, deprel), ...]) pairs."""
    blocks = []
    for sent_id, words in sentences:
        lines = [f"# sent_id = {sent_id}"] if sent_id is not None else []
        lines += [f"{i}\t{form}\t_\t_\t_\t_\t{head}\t{deprel}\t_\t_"
                  for i, (form, head, deprel) in enumerate(words, start=1)]
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks) + "\n"


def random_projective(rng: random.Random, n: int) -> list[tuple[str, int, str]]:
    """A random single-rooted projective tree over n words (by attaching spans)."""
    heads = [0] * (n + 1)

    def attach(lo, hi, head):
        while lo <= hi:
            end = rng.randint(lo, hi) if head else hi
            root = rng.randint(lo, end)
            heads[root] = head
            attach(lo, root - 1, root)
            attach(root + 1, end, root)
            lo = end + 1

    attach(1, n, 0)
    return [(f"w{d}", heads[d], "root" if heads[d] == 0 else rng.choice(["nsubj", "obj", "amod", "obl:tmod"]))
            for d in range(1, n + 1)]


@pytest.fixture
def treebank(tmp_path):
    rng = random.Random(7)
    sentences = [("dog", DOG), ("hearing", HEARING), ("cycle", CYCLE), (None, [("Hi", 0, "root"), ("!", 1, "punct")])]
    sentences += [(f"r{i}", random_projective(rng, rng.randint(1, 25))) for i in range(30)]
    path = tmp_path / "small.conllu"
    path.write_text(conllu_text(sentences), encoding="utf-8")
    trees = [words for _, words in sentences if words is not CYCLE]
    return path, trees


def gold_arrays(words, ids):
    heads = [-1] + [head for _, head, _ in words]
    labels = [-1] + [ids.setdefault(deprel, len(ids)) for _, _, deprel in words]
    return heads, labels


def run_cli(capsys, *argv):
    status = main(["oracle", *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def test_fit_through_origin_matches_least_squares():
    rng = np.random.default_rng(3)
    n = rng.integers(1, 40, size=200)
    m = 2.1 * n + rng.normal(0, 3, size=200)
    slope, r2 = fit_through_origin(n, m)
    expected = np.linalg.lstsq(n[:, None].astype(float), m, rcond=None)[0][0]
    assert slope == pytest.approx(expected)
    assert r2 == pytest.approx(1 - np.sum((m - expected * n) ** 2) / np.sum((m - m.mean()) ** 2))
    assert 0.5 < r2 < 1
    assert fit_through_origin([3, 5, 8], [6, 10, 16]) == (2.0, 1.0)


def test_json_figures_match_an_independent_run(treebank, capsys):
    path, trees = treebank
    for name in REGISTRY:
        status, out, err = run_cli(capsys, path, "--system", name, "--json")
        assert status == 0
        report = json.loads(out)
        system = get_system(name, single_root=True)
        ids = {"root": 0}
        counts, lengths, reproduced, swaps, switches = [], [], 0, 0, 0
        for words in trees:
            heads, labels = gold_arrays(words, ids)
            run = run_oracle(system, heads, labels, root_label=0)
            counts.append(len(run.actions))
            lengths.append(len(words))
            reproduced += run.reproduced
            swaps += sum(system.moves[move] == "SWAP" for move, _ in run.actions)
            switches += sum(system.moves[move] == "SWITCH" for move, _ in run.actions)
        slope = np.linalg.lstsq(np.array(lengths, float)[:, None], np.array(counts, float), rcond=None)[0][0]
        residual = np.sum((np.array(counts) - slope * np.array(lengths)) ** 2)
        assert report["sentences"] == len(trees) and report["skipped"] == 1
        assert report["words"] == sum(lengths)
        assert report["single_root"] is True
        assert report["reproduced"] == reproduced
        assert report["transitions"] == sum(counts)
        assert report["swaps"] == (swaps if "SWAP" in system.moves else None)
        assert report["switches"] == (switches if "SWITCH" in system.moves else None)
        assert report["slope"] == pytest.approx(slope)
        assert report["r2"] == pytest.approx(1 - residual / np.var(counts) / len(counts))
        assert "skipped 1 sentences" in err and "cycle" in err


def test_arc_eager_rebuilds_the_projective_trees_in_2n(treebank, capsys):
    path, trees = treebank
    report = json.loads(run_cli(capsys, path, "--system", "nivreeager", "--json")[1])
    projective = [words for words in trees if is_projective([-1] + [head for _, head, _ in words])]
    assert len(projective) == len(trees) - 1  # all but Nivre's hearing example
    assert report["system"] == "arc-eager" and report["reproduced"] == len(projective)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_transitions_replay_to_the_oracle_tree(treebank, capsys, name):
    """The printed sequences, parsed back and applied, build the oracle's trees."""
    path, trees = treebank
    status, out, err = run_cli(capsys, path, "--system", name, "--transitions")
    assert status == 0 and "reproduced" in err  # the summary goes to stderr
    blocks = out.rstrip("\n").split("\n\n")
    assert [block.splitlines()[0] for block in blocks[:2]] == ["# sent_id = dog", "# sent_id = hearing"]
    assert blocks[2].splitlines()[0] == "# line 22"  # no sent_id: its first line, after 6 + 11 + 4 lines
    system = get_system(name, single_root=True)
    ids: dict[str, int] = {"root": 0}
    for block, words in zip(blocks, trees, strict=True):
        heads, labels = gold_arrays(words, ids)
        state = system.initial(len(words))
        for line in block.splitlines()[1:]:
            move, _, label = line.partition(" ")
            index = system.moves.index(move)
            assert bool(label) == system.labeled[index], line
            system.apply(state, index, ids[label] if label else -1)
        system.finalize(state, 0)
        expected = run_oracle(system, heads, labels, root_label=0)
        assert (state.heads, state.labels) == (expected.heads, expected.labels)


def test_all_systems_table(treebank, capsys):
    path, _ = treebank
    status, out, _ = run_cli(capsys, path, "--system", "all")
    assert status == 0
    rows = [line.split()[0] for line in out.splitlines()[2:]]
    assert rows == list(REGISTRY)
    report = json.loads(run_cli(capsys, path, "--system", "all", "--json")[1])
    assert [system["system"] for system in report["systems"]] == list(REGISTRY)


def test_several_roots_are_kept_when_the_file_has_them(tmp_path, capsys):
    path = tmp_path / "forest.conllu"
    path.write_text(conllu_text([("two", [("a", 0, "root"), ("b", 0, "root")])]), encoding="utf-8")
    report = json.loads(run_cli(capsys, path, "--json")[1])
    assert report["single_root"] is False and report["reproduced"] == 1
    report = json.loads(run_cli(capsys, path, "--json", "--single-root")[1])
    assert report["single_root"] is True and report["reproduced"] == 0


@pytest.mark.slow
def test_plot_writes_a_png(treebank, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path, _ = treebank
    png = tmp_path / "fit.png"
    assert run_cli(capsys, path, "--plot", png)[0] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".barley-")] == []


def test_plot_without_matplotlib_says_how_to_get_it(treebank, capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    path, _ = treebank
    status, _, err = run_cli(capsys, path, "--plot", tmp_path / "fit.png")
    assert status == 2 and "pip install -e '.[plot]' in barley's checkout" in err and "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["missing.conllu"], "missing.conllu: cannot open the file"),
    (["{path}", "--system", "no-such-system"], "unknown transition system"),
    (["{path}", "--system", "all", "--transitions"], "--transitions needs one system"),
])
def test_bad_input_is_one_line(treebank, capsys, argv, message):
    path, _ = treebank
    status, _, err = run_cli(capsys, *[arg.format(path=path) for arg in argv])
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1
