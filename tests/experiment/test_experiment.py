"""``barley experiment``: a tiny experiment end to end, its report against ``barley evaluate``, resuming."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from random_treebanks import random_conllu_text

from barley.cli import main
from barley.errors import BarleyError, InputError
from barley.experiment import presets, spec
from barley.experiment.runner import fold_bounds, plan

pytestmark = pytest.mark.slow  # tests/conftest.py: the fast loop leaves this file out

SPEC = """
name = "tiny"
description = "two parsers, one train/test treebank and one 2-fold cross-validation"

[[treebanks]]
name = "tiny-tt"
train = "train.conllu"
test = "test.conllu"
dev = "test.conllu"

[[treebanks]]
name = "tiny-cv"
data = "all.conllu"
folds = 2

[[parsers]]
name = "P-E"
system = "arc-eager"

[[parsers]]
name = "PP-E"
system = "arc-eager"
transforms = [{ name = "pseudo-projective", encoding = "head" }]
"""


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    """The tiny experiment, run once (with two processes) for the tests of this module."""
    folder = tmp_path_factory.mktemp("experiment")
    (folder / "train.conllu").write_text(random_conllu_text(1, 40), encoding="utf-8")
    (folder / "test.conllu").write_text(random_conllu_text(2, 15), encoding="utf-8")
    (folder / "all.conllu").write_text(random_conllu_text(3, 30), encoding="utf-8")
    (folder / "spec.toml").write_text(SPEC, encoding="utf-8")
    out = folder / "out"
    assert main(["experiment", str(folder / "spec.toml"), "--out", str(out), "--jobs", "2"]) == 0
    return folder, out


def table_rows(markdown: str, treebank: str) -> dict[str, list[str]]:
    """The first table after the heading of ``treebank``: parser -> cells (bold and marks stripped)."""
    section = markdown.split(f"## {treebank}\n", 1)[1]
    table_text = section[section.index("| Parser"):].split("\n\n", 1)[0]
    header, _, *rows = table_text.splitlines()
    names = [cell.strip() for cell in header.strip("|").split("|")]
    table = {}
    for row in rows:
        cells = [re.sub(r"[*†‡]", "", cell).strip() for cell in row.strip("|").split("|")]
        table[cells[0]] = dict(zip(names, cells))
    return table


def evaluate_json(capsys, gold: Path, system: Path) -> dict:
    capsys.readouterr()
    assert main(["evaluate", str(gold), str(system), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("treebank", ["tiny-tt", "tiny-cv"])
def test_report_numbers_are_those_of_barley_evaluate(experiment, capsys, treebank):
    folder, out = experiment
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "punctuation included" in markdown
    table = table_rows(markdown, treebank)
    assert set(table) == {"P-E", "PP-E"}
    gold = folder / ("test.conllu" if treebank == "tiny-tt" else "all.conllu")
    for parser, row in table.items():
        scores = evaluate_json(capsys, gold, out / "runs" / treebank / parser / "output.conllu")
        for metric, column in (("LAS", "LAS"), ("UAS", "UAS"), ("LA", "LA"), ("LEM", "LEM")):
            assert row[column] == f"{scores[metric]:.2f}", (parser, metric)
        assert row["#NP"] == str(scores["NP_system"])
        assert float(row["words/s"]) > 0


def test_cross_validation_concatenates_the_folds_in_order(experiment):
    folder, out = experiment
    gold = (folder / "all.conllu").read_text(encoding="utf-8")
    output = (out / "runs" / "tiny-cv" / "P-E" / "output.conllu").read_text(encoding="utf-8")
    assert re.findall(r"# sent_id = (\S+)", output) == re.findall(r"# sent_id = (\S+)", gold)
    fold_ids = [re.findall(r"# sent_id = (\S+)", (out / "runs" / "tiny-cv" / "P-E" / f"fold-{k}" / "output.conllu")
                           .read_text(encoding="utf-8")) for k in (1, 2)]
    assert [len(ids) for ids in fold_ids] == [15, 15]
    assert fold_ids[0] + fold_ids[1] == re.findall(r"# sent_id = (\S+)", gold)


def test_html_report_is_self_contained(experiment):
    _, out = experiment
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<table>" in page and "punctuation included" in page
    assert "src=\"plots/" not in page
    pytest.importorskip("matplotlib")
    assert page.count("data:image/png;base64,") == 4  # arc length and running time, per treebank


def test_a_second_run_trains_nothing_and_a_partial_run_is_redone(experiment, capsys):
    folder, out = experiment
    models = sorted(out.glob("runs/**/model.barley"))
    assert len(models) == 2 + 2 * 2
    before = {path: path.stat().st_mtime_ns for path in models}
    partial = out / "runs" / "tiny-tt" / "PP-E"
    (partial / "score.json").unlink()  # as if the run had been interrupted before its score was stored
    capsys.readouterr()
    assert main(["experiment", str(folder / "spec.toml"), "--out", str(out)]) == 0
    assert "1 to do" in capsys.readouterr().err
    after = {path: path.stat().st_mtime_ns for path in models}
    changed = [path for path in models if before[path] != after[path]]
    assert changed == [partial / "model.barley"]
    assert (partial / "score.json").is_file()


def test_changed_settings_redo_the_runs(experiment, tmp_path):
    folder, _ = experiment
    the_spec = spec.load(folder / "spec.toml")
    keys = {run.directory: run.key for run in plan(the_spec, tmp_path).runs}
    quick = the_spec.with_options(max_train_sentences=10)
    assert all(keys[run.directory] != run.key for run in plan(quick, tmp_path).runs)


def test_fold_bounds_cover_the_data_once():
    for total in (0, 1, 7, 30):
        for folds in (2, 3, 10):
            cuts = [fold_bounds(total, folds, k) for k in range(folds)]
            assert cuts[0][0] == 0 and cuts[-1][1] == total
            assert all(a[1] == b[0] for a, b in zip(cuts, cuts[1:]))


def test_features_rich_in_a_spec_is_the_systems_rich_model(tmp_path):
    (tmp_path / "a.conllu").write_text(random_conllu_text(1, 3), encoding="utf-8")
    path = tmp_path / "spec.toml"
    path.write_text('name = "x"\n[[treebanks]]\nname = "t"\ndata = "a.conllu"\n[[parsers]]\nname = "p"\n'
                    'learner = "perceptron"\nfeatures = "rich"\n', encoding="utf-8")
    assert spec.load(path).parsers[0].features == "rich"  # not a path beside the spec
    _, _, parsers, _ = presets.PRESETS["oracles2012"]()
    assert [(p["name"], p["oracle"]) for p in parsers if p.get("features") == "rich"] == [
        ("E+rich static", "static"), ("E+rich dynamic", "dynamic")]


def test_spec_errors_name_the_problem(tmp_path):
    (tmp_path / "a.conllu").write_text(random_conllu_text(1, 3), encoding="utf-8")
    cases = {
        'name = "x"\n[[treebanks]]\nname = "t"\ntrain = "a.conllu"\n[[parsers]]\nname = "p"\n': "needs train and test",
        'name = "x"\n[[treebanks]]\nname = "t"\ndata = "b.conllu"\n[[parsers]]\nname = "p"\n': "does not exist",
        'name = "x"\n[[treebanks]]\nname = "t"\ndata = "a.conllu"\n[[parsers]]\nname = "p"\nsytem = "swap"\n':
            "unknown setting 'sytem'",
        'name = "x"\nmetrics = ["LAZ"]\n[[treebanks]]\nname = "t"\ndata = "a.conllu"\n[[parsers]]\nname = "p"\n':
            "unknown metric",
        'name = "x"\n[[treebanks]]\nname = "t"\ndata = "a.conllu"\n[[parsers]]\nname = "p"\n'
        'transforms = [{name = "pseudo-projective", encodin = "head"}]\n': "bad options for transform",
        'name = "x"\n[[treebanks]]\nname = "t"\ndata = "a.conllu"\n[[parsers]]\nname = "p"\n'
        'system = "arc-hybrid"\nfeatures = "rich"\n': "parser 'p': no rich feature model for 'arc-hybrid'",
    }
    for text, message in cases.items():
        path = tmp_path / "spec.toml"
        path.write_text(text, encoding="utf-8")
        with pytest.raises(BarleyError, match=message):
            spec.load(path)
    path.write_text("name = ", encoding="utf-8")
    with pytest.raises(InputError, match="bad TOML"):
        spec.load(path)


def test_experiment_needs_spec_or_preset(capsys):
    assert main(["experiment"]) == 2
    assert "either SPEC or --preset" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(presets.PRESETS))
def test_presets_pick_their_treebanks_by_name(tmp_path, name):
    """A fake data folder with every UD treebank the presets name, as empty-but-valid files."""
    _, wanted, parsers, _ = presets.PRESETS[name]()
    for folder, setting in wanted:
        directory = tmp_path / folder
        directory.mkdir(exist_ok=True)
        code = folder.split("_", 1)[1].lower()
        for split in ({"train": ("train", "test"), "train+dev": ("train", "dev", "test"), "dev": ("dev", "test"),
                       "cv": ("train",)}[setting]):
            (directory / f"{code}-ud-{split}.conllu").write_text(random_conllu_text(1, 2), encoding="utf-8")
    the_spec = presets.preset(name, tmp_path)
    assert [t.name.split(" ")[0] for t in the_spec.treebanks] == [folder for folder, _ in wanted]
    assert [p.name for p in the_spec.parsers] == [p["name"] for p in parsers]
    with pytest.raises(BarleyError, match="none of the treebanks"):
        presets.preset(name, tmp_path / "nowhere")


def test_nivre2008_preset_is_the_seven_parsers_of_table_3(tmp_path):
    directory = tmp_path / "UD_Latin-Perseus"
    directory.mkdir()
    for split in ("train", "test"):
        (directory / f"la_perseus-ud-{split}.conllu").write_text(random_conllu_text(1, 2), encoding="utf-8")
    the_spec = presets.preset("nivre2008", tmp_path)
    described = {p.name: (p.system, [t.get("encoding") for t in p.transforms]) for p in the_spec.parsers}
    assert described == {
        "NP-L": ("covington-nonprojective", []), "P-L": ("covington-projective", []),
        "PP-L": ("covington-projective", ["head"]), "P-E": ("arc-eager", []), "PP-E": ("arc-eager", ["head"]),
        "P-S": ("arc-standard", []), "PP-S": ("arc-standard", ["head"])}


def test_report_draws_the_sentences_where_the_parsers_differ_most(experiment):
    from barley.conllu import read
    from barley.render.differences import LONGEST, SHORTEST, disagreement, read_outputs

    folder, out = experiment
    markdown = (out / "report.md").read_text(encoding="utf-8")
    page = (out / "report.html").read_text(encoding="utf-8")
    gold = folder / "test.conllu"
    outputs = {name: str(out / "runs" / "tiny-tt" / name / "output.conllu") for name in ("P-E", "PP-E")}
    figures = read_outputs(str(gold), outputs)
    assert figures, "the two parsers agree on every sentence of the test file"
    scores = [disagreement(list(pair)) for pair, sentence in zip(zip(*(read(p) for p in outputs.values())), read(gold))
              if SHORTEST <= len(sentence) <= LONGEST]
    shown = [int(figure.notes[0].split("disagree on ")[1].split()[0]) for figure in figures]
    assert shown == sorted(scores, reverse=True)[:len(figures)]
    section = markdown.split("## tiny-tt\n", 1)[1].split("\n## ", 1)[0]
    assert "### Where the parsers differ" in section and section.count("(root)") == 3 * len(figures)
    assert all(f"<figcaption>{figure.caption}</figcaption>" in page for figure in figures)
    assert 'class="barley-tree"' in page


def test_folds_given_as_null_are_refused_as_any_other_bad_count(tmp_path):
    """(YAML's ``~`` or a dict's None: it passed the check, then the runner failed on range(None).)"""
    (tmp_path / "a.conllu").write_text(random_conllu_text(1, 3), encoding="utf-8")
    data = {"name": "x", "treebanks": [{"name": "t", "data": "a.conllu", "folds": None}], "parsers": [{"name": "p"}]}
    with pytest.raises(BarleyError, match="treebank 't': folds must be a number >= 2, not None"):
        spec.from_dict(data, tmp_path)
