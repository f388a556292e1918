"""``barley scoreboard``: every treebank folder with train and test files trained by a recipe and scored from raw
text and with gold tokenization; a rerun trains nothing that is done; the page's tables and macro-averages; the
peers' published figures as data; progress, the time left, failures, a Dask cluster; bad folders and options
refused in one line. On toy treebanks written here, by the linear recipe (seconds)."""

from __future__ import annotations

import contextlib
import fnmatch
import io
import json
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

import toy_language
from barley import cli
from barley.conllu import read
from barley.errors import BarleyError
from barley.evaluation.conll18 import evaluate_conll18
from barley.recipes import RECIPES, SMALL_TREEBANK, Recipe
from barley.treebank_folder import count_words
from barley.scoreboard import cell, folders, page, peers, schedule
from barley.tokenizer.treebank_text import paragraphs
from conftest import SKIP_UD, UD_DIR

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

TREEBANKS = {  # folder: {part: (sentences, seed)}
    "UD_Toy-One": {"train": (40, 1), "dev": (10, 2), "test": (10, 3)},
    "UD_Toy-Two": {"train": (40, 4), "test": (10, 5)},
    "UD_Toy-TestOnly": {"dev": (10, 6), "test": (10, 7)},
}


def write_treebanks(root: Path, treebanks: dict) -> Path:
    for name, parts in treebanks.items():
        folder = root / name
        folder.mkdir(parents=True)
        for part, (count, seed) in parts.items():
            toy_language.treebank(folder / f"xx_{name.split('-')[1].lower()}-ud-{part}.conllu", count, seed=seed)
    return root


@pytest.fixture(scope="module")
def ud(tmp_path_factory) -> Path:
    root = write_treebanks(tmp_path_factory.mktemp("ud"), TREEBANKS)
    (root / "SOURCES.txt").write_text("a file beside the treebank folders, not a treebank\n", encoding="utf-8")
    return root


def scoreboard(*arguments) -> tuple[int, str, str]:
    """``barley scoreboard ARGUMENTS`` in this process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(["scoreboard", *map(str, arguments)])
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def board(ud, tmp_path_factory):
    """One run of the scoreboard on the toy folder, two cells at a time: its output folder and what it printed."""
    out = tmp_path_factory.mktemp("board") / "out"
    status, _, err = scoreboard(ud, "--recipe", "linear", "-o", out, "--jobs", "2")
    assert status == 0, err
    return out, err


def copied(board, tmp_path) -> Path:
    """A copy of the board's output folder, for a test to run the scoreboard on again."""
    return Path(shutil.copytree(board[0], tmp_path / "out"))


def test_list_names_the_treebanks_and_the_folders_left_out_and_runs_nothing(ud, tmp_path):
    status, listed, _ = scoreboard(ud, "--list", "--recipe", "linear", "-o", tmp_path / "out")
    assert status == 0
    assert f"{ud}: 2 treebanks with a training and a test file, 1 folder left out" in listed
    assert "UD_Toy-One  train, dev, test; linear to do" in listed
    assert "UD_Toy-Two  train, test (no dev: the recipes hold out the end of train); linear to do" in listed
    assert "left out: UD_Toy-TestOnly: no training file *-ud-train.conllu in this folder" in listed
    assert not (tmp_path / "out").exists()


def test_every_cell_is_trained_scored_from_raw_text_and_gold_tokens_and_timed(ud, board):
    out, err = board
    for name in ("UD_Toy-One", "UD_Toy-Two"):
        directory = out / name / "linear"
        record = json.loads((directory / "cell.json").read_text(encoding="utf-8"))
        test = str(ud / name / f"xx_{name.split('-')[1].lower()}-ud-test.conllu")
        assert record["files"]["test"] == test and (record["files"]["dev"] is None) == (name == "UD_Toy-Two")
        # the text parsed is the test set's, as treebank_text rebuilds it
        text = (directory / "test.txt").read_text(encoding="utf-8")
        assert text == "\n\n".join(paragraph.text for paragraph in paragraphs(read(test))) + "\n"
        # the scores are barley evaluate --conll18's, of the outputs kept
        for given, output in (("raw", "raw.conllu"), ("gold_tokenization", "gold-tok.conllu")):
            scored = evaluate_conll18(test, str(directory / output)).scores
            assert record["scores"][given] == {metric: score.f1 for metric, score in scored.items()}
        words = sum(len(sentence) for sentence in read(str(directory / "raw.conllu")))
        assert record["parse"]["words"] == words
        assert record["parse"]["words_per_second"] == round(words / record["parse"]["seconds"])
        assert record["train"]["seconds"] > 0 and record["train"]["threads"] == 1
        train, parse_raw, parse_gold, *evaluations = record["commands"]
        assert f"barley train {ud / name} --recipe linear --seed 1 -m {directory / 'model.barley'}" in train
        assert f"barley parse --input text {directory / 'test.txt'}" in parse_raw
        assert parse_raw.startswith(f"taskset -c {record['parse']['core']} ") == bool(shutil.which("taskset"))
        assert "barley parse --retag --input conllu" in parse_gold
        assert all("barley evaluate --conll18 --json" in command for command in evaluations)
    assert "2 cells (2 treebanks × 1 recipe), 0 done already, 2 to do, 2 at a time" in err
    assert "[1/2]" in err and "[2/2]" in err and "LAS 100.00 from raw text" in err and "all done in" in err


def test_a_second_run_trains_nothing(ud, board, tmp_path):
    out = copied(board, tmp_path)
    models = {path: path.stat().st_mtime_ns for path in out.glob("*/linear/model.barley")}
    status, _, err = scoreboard(ud, "--recipe", "linear", "-o", out)
    assert status == 0, err
    assert "2 cells (2 treebanks × 1 recipe), 2 done already, 0 to do" in err and "starting" not in err
    assert {path: path.stat().st_mtime_ns for path in out.glob("*/linear/model.barley")} == models


def test_a_cell_stopped_after_its_training_is_not_trained_again(ud, board, tmp_path):
    out = copied(board, tmp_path)
    model = out / "UD_Toy-Two" / "linear" / "model.barley"
    trained = model.stat().st_mtime_ns
    (out / "UD_Toy-Two" / "linear" / "cell.json").unlink()  # as if stopped while parsing
    status, _, err = scoreboard(ud, "--recipe", "linear", "-o", out, "--treebank", "UD_Toy-Two")
    assert status == 0, err
    assert "1 cell (1 treebank × 1 recipe), 0 done already, 1 to do" in err and "trained by an earlier run in" in err
    assert model.stat().st_mtime_ns == trained and (out / "UD_Toy-Two" / "linear" / "cell.json").is_file()


def test_another_seed_has_the_cell_done_again_and_progress_says_what_runs_and_the_time_left(ud, board, tmp_path,
                                                                                   monkeypatch):
    out = copied(board, tmp_path)
    found = folders.discover(str(ud))
    cells = cell.plan(folders.select(found, ["UD_Toy-Two"]), ["linear"], out, seed=2)
    assert cell.finished(cells[0]) is None  # the seed-1 cell in the same folder is not this one
    monkeypatch.setattr(schedule, "HEARTBEAT", 0.5)
    lines: list[str] = []
    assert schedule.run(cells, 1, [0], progress=lines.append) == []
    words = count_words(cells[0].treebank.train)
    assert lines[0] == ("1 cell (1 treebank × 1 recipe), 0 done already, 1 to do, 1 at a time, each on 1 core of "
                        "its own: 0")
    assert lines[1] == f"starting UD_Toy-Two / linear ({words:,} training words) on core 0"
    assert any(line.startswith("running: UD_Toy-Two / linear for ") for line in lines)  # every HEARTBEAT seconds
    assert lines[-1].startswith("[1/1] UD_Toy-Two / linear: LAS") and "; trained in " in lines[-1]
    assert lines[-1].endswith(tuple(f"all done in {seconds} s" for seconds in range(60)))
    assert json.loads((out / "UD_Toy-Two" / "linear" / "cell.json").read_text(encoding="utf-8"))["seed"] == 2


def test_the_estimate_weighs_the_cells_by_their_training_words(ud):
    treebanks = folders.discover(str(ud)).treebanks
    cells = cell.plan(treebanks, ["linear"], "out", seed=1)
    one, two = (count_words(treebank.train) for treebank in treebanks)
    estimate = schedule.Estimate(cells)
    assert estimate.left == one + two and str(estimate) == "0 s so far"
    estimate.started -= 60  # a minute for the first cell
    estimate.finish(cells[0])
    assert str(estimate) == f"1 min so far, about {schedule.duration(60 * two / one)} left"


def test_the_page_shows_the_cells_beside_the_peers_and_how_it_is_made(ud, board):
    out, _ = board
    text = (out / "languages.md").read_text(encoding="utf-8")
    assert f"barley scoreboard {ud} --recipe linear -o {out}" in text
    assert "<!-- test: skip (trains every treebank: hours) -->" in text and "2 of 2 cells done" in text
    assert "| treebank | barley linear | Stanza 1.5.1 (UD 2.12) | UDPipe 2 (UD 2.17) |" in text
    assert "| UD_Toy-One | 100.00 |  |  |" in text  # the toy language is parsed perfectly; no peer publishes it
    assert "### UD_Toy-Two" in text and "no dev file (the recipes hold out the end of the training file)" in text
    assert "- UD_Toy-TestOnly: no training file *-ud-train.conllu in this folder" in text
    assert "<https://stanfordnlp.github.io/stanza/performance.html>" in text
    assert "<https://ufal.mff.cuni.cz/udpipe/2/models>" in text
    status, _, _ = scoreboard(ud, "--recipe", "linear", "-o", out, "--report-only")
    assert status == 0 and (out / "languages.md").read_text(encoding="utf-8") == text  # from the records alone


PEERS = """
[x]
name = "X"
ud = "2.1"
source = "https://x.example/"
copied_from = "x's page"
what = "raw text"
missing = "nothing"
[x.raw.UD_A]
LAS = 60.0
UPOS = 90.0
[x.raw.UD_B]
LAS = 70.0
UPOS = 80.0
[x.raw.UD_C]
LAS = 50.0

[y]
name = "Y"
ud = "2.2"
source = "https://y.example/"
copied_from = "y's page"
what = "raw text"
missing = "UPOS of UD_B"
[y.raw.UD_A]
LAS = 62.0
UPOS = 91.0
[y.raw.UD_B]
LAS = 74.0
[y.gold_tokenization.UD_A]
LAS = 70.0
"""


def _record(las: float, upos: float) -> dict:
    scores = {metric: 99.0 for metric in ("Tokens", "Sentences", "Words", "UFeats", "Lemmas", "UAS", "MLAS")}
    return {"train": {"seconds": 12.3}, "parse": {"words_per_second": 4321, "core": 0, "cpu": "a CPU"},
            "scores": {"raw": {**scores, "LAS": las, "UPOS": upos},
                       "gold_tokenization": {**scores, "LAS": las + 1, "UPOS": upos + 1}}}


def test_macro_averages_are_over_the_treebanks_every_peer_publishes():
    treebanks = [folders.Treebank(name, name, f"{name}/train.conllu", None, f"{name}/test.conllu")
                 for name in ("UD_A", "UD_B", "UD_C", "UD_D")]
    records = {("UD_A", "linear"): _record(80.0, 95.0), ("UD_B", "linear"): _record(70.0, 85.0),
               ("UD_C", "linear"): _record(10.0, 10.0), ("UD_D", "linear"): _record(10.0, 10.0)}
    board = page.Board(treebanks, ["linear"], records, peers.load(PEERS), "barley scoreboard ud", "ud", 1)
    rows = {(row.system, row.given): row for row in page._rows(board)}
    assert page.published_by_every_peer(board, "LAS") == ["UD_A", "UD_B"]  # UD_C: X alone; UD_D: nobody
    assert page.published_by_every_peer(board, "UPOS") == ["UD_A"]
    assert page.macro_average(rows["barley linear", "raw"], ["UD_A", "UD_B"], "LAS") == 75.0
    assert page.macro_average(rows["Y (UD 2.2)", "raw"], ["UD_A", "UD_B"], "LAS") == 68.0
    assert page.macro_average(rows["Y (UD 2.2)", "gold_tokenization"], ["UD_A", "UD_B"], "LAS") is None  # no UD_B
    text = page.render(board)
    assert "| macro-average over the 2 treebanks every peer publishes | 75.00 | 65.00 | 68.00 |" in text
    assert "| barley linear | raw text |  |  |  | 95.00 |" in text  # UPOS over UD_A alone; no peer's Tokens
    assert "| barley linear | gold tokenization |  |  |  | 96.00 |" in text
    assert "Over the treebanks whose raw-text figures every peer publishes: UD_A, UD_B; Tokens: none" in text
    assert "; UPOS: UD_A;" in text
    assert ("| barley linear | raw text | 99.00 | 99.00 | 99.00 | 95.00 | 99.00 | 99.00 | 99.00 | 80.00 | 99.00 "
            "| 12 | 4,321 |") in text
    assert "| Y (UD 2.2) | gold tokenization |" in text.split("### UD_A")[1].split("###")[0]
    assert "Y (UD 2.2)" not in text.split("### UD_C")[1].split("###")[0]  # Y publishes nothing on UD_C
    del records["UD_B", "linear"]
    text = page.render(board)
    assert "| macro-average over the 2 treebanks every peer publishes |  | 65.00 | 68.00 |" in text
    assert "barley's averages wait for all of these treebanks (done: linear 1 of 2)." in text
    assert "| barley linear (not done yet) | raw text |" in text.split("### UD_B")[1]
    records["UD_A", "linear"]["train"]["command"] = "barley train UD_A --recipe linear --resume"  # its last run's time
    assert "| 80.00 | 99.00 | 12 (resumed) | 4,321 |" in page.render(board).split("### UD_A")[1]


def test_the_peers_figures_are_the_published_ones():
    stanza, udpipe = peers.load()
    assert (stanza.title, udpipe.title) == ("Stanza 1.5.1 (UD 2.12)", "UDPipe 2 (UD 2.17)")
    eight = {"UD_English-EWT", "UD_English-ParTUT", "UD_Turkish-IMST", "UD_Gothic-PROIEL", "UD_Latin-Perseus",
             "UD_Afrikaans-AfriBooms", "UD_Vietnamese-VTB", "UD_Wolof-WTB"}
    assert set(stanza.scores["raw"]) == set(udpipe.scores["raw"]) == set(udpipe.scores["gold_tokenization"]) == eight
    assert "gold_tokenization" not in stanza.scores  # Stanza publishes raw text only
    # the figures ../shared/anchors.md took from the same pages
    four = ("UD_English-EWT", "UD_Latin-Perseus", "UD_Gothic-PROIEL", "UD_Turkish-IMST")
    assert [stanza.score("raw", name, "LAS") for name in four] == [86.77, 63.16, 72.87, 64.07]
    assert [udpipe.score("raw", name, "LAS") for name in four] == [89.91, 71.45, 72.66, 69.18]
    assert [udpipe.score("gold_tokenization", name, "LAS") for name in four] == [92.36, 72.84, 80.92, 73.61]
    assert all(udpipe.score("raw", name, "Tokens") is None for name in eight)  # not published: left out
    assert udpipe.score("raw", "UD_Vietnamese-VTB", "UFeats") is None


def test_the_peers_figures_are_package_data():
    """`pip install .` takes peers.toml: pyproject's package-data names it."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    globs = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]["barley"]
    assert any(fnmatch.fnmatch("scoreboard/peers.toml", pattern) for pattern in globs)


@pytest.mark.parametrize("change, error", [
    (("LAS = 60.0", "Las = 60.0"), "peer 'x': raw.UD_A: unknown metric 'Las'"),
    (("LAS = 60.0", "LAS = 160.0"), "peer 'x': raw.UD_A.LAS must be an F1 between 0 and 100, not 160.0"),
    (('name = "X"', "name = 3"), "peer 'x': name must be a string"),
    (('name = "X"', 'name = "X"\nsorce = "typo"'), "peer 'x': unknown field 'sorce'"),
])
def test_bad_peer_data_is_refused(change, error):
    with pytest.raises(BarleyError, match=error):
        peers.load(PEERS.replace(*change, 1))


def test_a_failed_cell_is_said_and_does_not_stop_the_others(tmp_path):
    ud = write_treebanks(tmp_path / "ud", {"UD_Toy-Good": {"train": (40, 1), "test": (10, 2)}})
    bad = ud / "UD_Toy-Bad"
    bad.mkdir()
    (bad / "xx_bad-ud-train.conllu").write_text("1\tword\n\n", encoding="utf-8")  # two columns of ten
    shutil.copy(ud / "UD_Toy-Good" / "xx_good-ud-test.conllu", bad / "xx_bad-ud-test.conllu")
    status, _, err = scoreboard(ud, "--recipe", "linear", "-o", tmp_path / "out", "--jobs", "1")
    assert status == 1
    assert "[1/2] UD_Toy-Bad / linear: FAILED: " in err and "barley train" in err and "exited with status 2" in err
    assert "[2/2] UD_Toy-Good / linear: LAS" in err and "1 cell failed (see the page)" in err
    assert not (tmp_path / "out" / "UD_Toy-Bad" / "linear" / "cell.json").exists()
    text = (tmp_path / "out" / "languages.md").read_text(encoding="utf-8")
    assert "## Cells that failed" in text and "- UD_Toy-Bad / linear: " in text and "1 of 2 cells done" in text


def _commands_writing_to(out: Path) -> list[str]:
    """The command lines of the processes that name ``out`` (Linux: /proc)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except OSError:  # ended meanwhile
            continue
        if any(str(out).encode() in word for word in words) and b"scoreboard" not in words:
            found.append(b" ".join(words).decode(errors="replace"))
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="lists processes by /proc (Linux)")
def test_stopping_the_command_stops_the_commands_of_its_cells(ud, tmp_path):
    out = tmp_path / "out"
    command = subprocess.Popen([sys.executable, "-m", "barley", "scoreboard", str(ud), "--recipe", "linear", "-o",
                                str(out), "--jobs", "1"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not _commands_writing_to(out) and time.monotonic() < deadline:  # until the first training runs
        time.sleep(0.05)
    assert any("barley train" in line for line in _commands_writing_to(out))
    command.send_signal(signal.SIGTERM)
    assert command.wait(60) == 143 and "barley scoreboard: terminated" in command.stderr.read()
    assert _commands_writing_to(out) == []  # the training was stopped with it, and no other started
    assert not list(out.glob("*/linear/cell.json")) and not list(out.glob("*/linear/model.barley"))


def test_no_command_starts_once_the_scoreboard_is_stopping(ud, tmp_path):
    cells = cell.plan(folders.select(folders.discover(str(ud)), ["UD_Toy-One"]), ["linear"], tmp_path / "out", 1)
    cell.stop_running()
    try:
        with pytest.raises(BarleyError, match="not started: the scoreboard is stopping"):
            cell.execute(cells[0])
    finally:
        cell.allow_commands()
    assert not (tmp_path / "out" / "UD_Toy-One" / "linear" / "model.barley").exists()


def test_cells_run_on_a_dask_cluster(ud, tmp_path):
    distributed = pytest.importorskip("distributed", reason="Dask is not installed (pip install -e '.[dask]' in barley's checkout)")
    cells = cell.plan(folders.select(folders.discover(str(ud)), ["UD_Toy-One"]), ["linear"], tmp_path / "out", 1)
    lines: list[str] = []
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
    with distributed.Client(cluster) as client:
        assert schedule.run(cells, 1, [0], client=client, progress=lines.append) == []
    cluster.close()
    assert lines[0] == "1 cell (1 treebank × 1 recipe), 0 done already, 1 to do, on the Dask cluster (1 worker thread)"
    assert lines[-1].startswith("[1/1] UD_Toy-One / linear: LAS 100.00")
    assert cell.finished(cells[0])["scores"]["raw"]["LAS"] == 100.0


def test_slots_deal_the_cores_out():
    assert schedule.slots([0, 1, 2, 3], 2, 2) == [(0, 1), (2, 3)]
    assert schedule.slots([4, 5, 6], 1, 3) == [(4,), (5,), (6,)]
    assert schedule.slots([0, 1], 2, 2) == [(0, 1), (0, 1)]  # more than there are: shared
    assert schedule.slots([0], 2, 1) == [(0,)]


def test_a_recipe_trains_with_the_threads_its_components_ask_for():
    assert cell.recipe_threads(Recipe("r", ("tokenize", "joint"), {"joint": {"threads": 3}})) == 3
    assert cell.recipe_threads(Recipe("r", ("tokenize", "tag", "parse"), {"parse": {"system": "arc-eager"}})) == 1


@pytest.mark.parametrize("arguments, error", [
    (["{missing}"], "{missing}: no such folder (give the folder that holds the UD treebank folders"),
    (["{ud}/SOURCES.txt"], "SOURCES.txt: this is a file, not a folder of treebanks"),
    (["{ud}/UD_Toy-One"], "UD_Toy-One: this is one treebank's folder; the scoreboard takes the folder of treebank "
                          "folders (give {ud} --treebank UD_Toy-One)"),
    (["{empty}"], "{empty}: no treebank folder with a training file (*-ud-train.conllu) and a test file"),
    (["{ud}", "--treebank", "UD_Toy-TestOnly"],
     "--treebank UD_Toy-TestOnly: left out (no training file *-ud-train.conllu in this folder) (choose from "
     "UD_Toy-One, UD_Toy-Two)"),
    (["{ud}", "--treebank", "UD_Nope"], "--treebank UD_Nope: no such treebank folder"),
    (["{ud}", "--jobs", "0"], "--jobs must be at least 1"),
    (["{ud}", "--list", "--jobs", "2"], "--list runs nothing: --jobs and --scheduler say where cells run"),
    (["{ud}", "--report-only", "--scheduler", "local:1"], "--report-only runs nothing"),
    (["{ud}", "--list", "--report", "{tmp}/page.md"], "--list writes no page"),
    (["{ud}", "--report", "{tmp}/no/such/page.md"], "the folder {tmp}/no/such does not exist"),
])
def test_bad_folders_and_options_are_refused_in_one_line(arguments, error, ud, tmp_path):
    (tmp_path / "empty").mkdir()
    names = {"ud": ud, "missing": tmp_path / "missing", "empty": tmp_path / "empty", "tmp": tmp_path}
    arguments = [argument.format(**names) for argument in arguments]
    status, _, err = scoreboard(*arguments, "--recipe", "linear", "-o", tmp_path / "out")
    assert status == 2 and err.count("\n") == 1 and err.startswith("barley scoreboard: error: "), err
    assert error.format(**names) in err
    assert not list(tmp_path.glob("out/*"))  # nothing trained


def test_jobs_and_a_scheduler_are_not_given_together(ud, capsys):
    with pytest.raises(SystemExit) as exit:
        cli.main(["scoreboard", str(ud), "--jobs", "2", "--scheduler", "local:2"])
    assert exit.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


@pytest.mark.ud
@pytest.mark.skipif(not UD_DIR.is_dir(), reason=SKIP_UD)
def test_the_shared_folder_has_the_eight_treebanks_of_the_issue():
    found = folders.discover(str(UD_DIR))
    names = {treebank.name: treebank for treebank in found.treebanks}
    assert {"UD_English-EWT", "UD_English-ParTUT", "UD_Turkish-IMST", "UD_Gothic-PROIEL", "UD_Latin-Perseus",
            "UD_Afrikaans-AfriBooms", "UD_Vietnamese-VTB", "UD_Wolof-WTB"} <= set(names)
    assert names["UD_Latin-Perseus"].dev is None and names["UD_English-EWT"].dev is not None
    assert all(why.startswith("no training file") for _, why in found.left_out)


def test_a_recipe_reads_more_epochs_of_a_smaller_treebank():
    neural = RECIPES["neural"]
    ewt = neural.for_words(204_577).options
    assert ewt == neural.options  # EWT's recipe as written: 40 epochs, 20 from a warm restart, 30 tokenizer epochs
    assert (ewt["joint"]["epochs"], ewt["joint"]["restart_epochs"]) == (40, 20) and "tokenizer_epochs" not in ewt["tokenize"]
    wolof = neural.for_words(23_561).options  # about 1,000,000 words read by the joint network, 480,000 by the tokenizer
    assert (wolof["joint"]["epochs"], wolof["joint"]["restart_epochs"], wolof["tokenize"]["tokenizer_epochs"]) == (43, 0, 21)
    assert neural.for_words(50_000).options["joint"]["epochs"] == 20
    assert neural.for_words(SMALL_TREEBANK - 1).options["joint"]["epochs"] == 20  # at least
    assert neural.for_words(SMALL_TREEBANK).options == neural.options
    tiny = neural.for_words(1_000).options
    assert (tiny["joint"]["epochs"], tiny["tokenize"]["tokenizer_epochs"]) == (60, 30)  # at most
    assert "--epochs 43" in " ".join(neural.for_words(23_561).arguments())
    assert "--tokenizer-epochs 21" in " ".join(neural.for_words(23_561).arguments())
    assert neural.options["joint"]["restart_epochs"] == 20  # for_words changes a copy
    assert RECIPES["quick"].for_words(23_561).options["joint"]["epochs"] == 20
    assert RECIPES["quick"].for_words(204_577).options["joint"]["epochs"] == 3
    assert RECIPES["linear"].for_words(1_000) == RECIPES["linear"]  # no joint network, no budget


def test_a_model_a_stopped_training_kept_is_not_taken_for_the_recipe_s(ud, board, tmp_path):
    """`barley train` stopped by a signal keeps its best epoch so far and says so in the manifest
    (``interrupted``): such a model is trained again (resumed), never scored as the recipe's."""
    from barley.models import archive

    out = copied(board, tmp_path)
    model = out / "UD_Toy-Two" / "linear" / "model.barley"
    assert not cell.interrupted(model)
    manifest, arrays = archive.read(str(model))
    manifest["components"]["parse"]["training"] = {"epochs_run": 3, "interrupted": True}
    archive.write(str(model), manifest, arrays)
    assert cell.interrupted(model)
    one, = cell.plan(folders.select(folders.discover(str(ud)), ["UD_Toy-Two"]), ["linear"], out, seed=1)
    assert cell._trained(one) is None  # its train.json alone does not make it done
    (out / "UD_Toy-Two" / "linear" / "cell.json").unlink()
    status, _, err = scoreboard(ud, "--recipe", "linear", "-o", out, "--treebank", "UD_Toy-Two")
    assert status == 0, err
    assert "trained by an earlier run in" not in err and not cell.interrupted(model)  # trained again
    model.write_bytes(b"not a model")
    assert cell.interrupted(model)


def test_a_training_stopped_midway_resumes_from_its_checkpoint_and_a_stale_checkpoint_goes(ud, tmp_path):
    treebank = folders.select(folders.discover(str(ud)), ["UD_Toy-One"])
    one, = cell.plan(treebank, ["linear"], tmp_path / "out", seed=1)
    other, = cell.plan(treebank, ["linear"], tmp_path / "out", seed=2)
    Path(one.directory).mkdir(parents=True)
    model = str(Path(one.directory) / cell.MODEL)
    checkpoint = Path(model + ".checkpoint")
    checkpoint.write_bytes(b"left by a training of unknown settings")
    assert cell._resumed(one, model) == [] and not checkpoint.exists()  # nothing says whose it was
    checkpoint.write_bytes(b"left by this cell's training, stopped")
    assert cell._resumed(one, model) == ["--resume"] and checkpoint.exists()
    assert cell._resumed(other, model) == [] and not checkpoint.exists()  # another seed: trained afresh
    assert cell._resumed(other, model) == []  # no checkpoint: nothing to resume


def test_the_quick_recipe_reads_a_budget_of_words_within_its_bounds():
    quick = RECIPES["quick"]
    assert quick.for_words(23_561).options["joint"]["epochs"] == 20  # 480,000 words would be 21 epochs
    assert quick.for_words(48_000).options["joint"]["epochs"] == 10
    assert quick.for_words(204_577).options["joint"]["epochs"] == 3  # at least 3
    assert "--tokenizer linear" in " ".join(quick.arguments()) and "--restart-epochs" not in quick.arguments()
