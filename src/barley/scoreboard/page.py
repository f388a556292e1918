"""The scoreboard's page (``docs/results/languages.md``): barley's cells beside the peers' published figures.

Drawn only from the cells' records (:mod:`.cell`) and the peers' data (:mod:`.peers`), so it can
be rewritten at any time (``barley scoreboard ... --report-only``); a cell not done yet is an
empty row, never a guess. The macro-average of a metric is taken over the treebanks for which
every peer publishes that metric from raw text, so that each row averages the same treebanks;
a row missing one of them has no average.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from barley.recipes import RECIPES
from barley.scoreboard import METRICS
from barley.scoreboard.cell import recipe_threads
from barley.scoreboard.folders import Treebank
from barley.scoreboard.peers import Peer

SEGMENTATION = ("Tokens", "Sentences", "Words")
"""Given with gold tokenization (100 by construction): left empty in those rows."""
INPUT_NAMES = {"raw": "raw text", "gold_tokenization": "gold tokenization"}


@dataclass
class Board:
    """What the page shows."""

    treebanks: list[Treebank]
    recipes: list[str]
    records: dict[tuple[str, str], dict]
    """The records of the cells done, by (treebank name, recipe)."""
    peers: tuple[Peer, ...]
    command: str
    """The command that makes the page."""
    ud_dir: str
    seed: int
    left_out: list[tuple[str, str]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


@dataclass
class Row:
    system: str
    given: str  # a key of INPUT_NAMES
    score: Callable[[str, str], float | None]  # (treebank name, metric) -> its figure, if any
    recipe: str | None = None  # barley's rows


def resumed(record: dict) -> bool:
    """Whether a cell's training was resumed from its checkpoint (``barley train --resume``): its seconds are
    then those of its last run alone, not of the epochs before."""
    return "--resume" in record["train"].get("command", "").split()


def _number(value: float | None, digits: int = 2) -> str:
    return "" if value is None else f"{value:,.{digits}f}"


def _table(header: list[str], rows: list[list[str]], right_from: int = 1) -> list[str]:
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if at < right_from else "---:" for at in range(len(header))) + "|"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _rows(board: Board) -> list[Row]:
    """barley's rows (each recipe from raw text, then with gold tokenization), then the peers' (raw text, then
    gold tokenization where published)."""
    def barley(recipe: str, given: str) -> Row:
        def score(treebank: str, metric: str) -> float | None:
            done = board.records.get((treebank, recipe))
            if done is None or (given != "raw" and metric in SEGMENTATION):
                return None
            return done["scores"][given][metric]

        return Row(f"barley {recipe}", given, score, recipe)

    rows = [barley(recipe, given) for recipe in board.recipes for given in INPUT_NAMES]
    for peer in board.peers:
        for given in INPUT_NAMES:
            if peer.scores.get(given):
                rows.append(Row(peer.title, given, functools.partial(peer.score, given)))
    return rows


def published_by_every_peer(board: Board, metric: str) -> list[str]:
    """The treebanks (of the board) whose raw-text ``metric`` every peer publishes: what its macro-average is over."""
    return [treebank.name for treebank in board.treebanks
            if board.peers and all(peer.score("raw", treebank.name, metric) is not None for peer in board.peers)]


def macro_average(row: Row, treebanks: list[str], metric: str) -> float | None:
    """The mean of ``metric`` over ``treebanks`` in ``row``; None when there are none, or one has no figure."""
    values = [row.score(treebank, metric) for treebank in treebanks]
    known = [value for value in values if value is not None]
    return None if not values or len(known) < len(values) else sum(known) / len(known)


def render(board: Board) -> str:
    rows = _rows(board)
    lines = ["# Every language: barley from raw text beside Stanza and UDPipe 2", "",
             *_how(board), "", *_las(board, rows), "", *_macro(board, rows), "", "## By treebank", ""]
    for treebank in board.treebanks:
        lines += [*_treebank(board, rows, treebank), ""]
    if board.left_out:
        lines += ["## Folders left out", "", f"Folders of `{board.ud_dir}` without the files a cell needs:", ""]
        lines += [f"- {name}: {why}" for name, why in board.left_out] + [""]
    if board.failures:
        lines += ["## Cells that failed", ""] + [f"- {failure}" for failure in board.failures] + [""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _how(board: Board) -> list[str]:
    done = sum((treebank.name, recipe) in board.records for treebank in board.treebanks for recipe in board.recipes)
    cells = len(board.treebanks) * len(board.recipes)
    records = list(board.records.values())
    cpus = sorted({record["parse"]["cpu"] for record in records})
    unpinned = sum(record["parse"]["core"] is None for record in records)
    threads = ", ".join(f"{recipe} {recipe_threads(RECIPES[recipe])}" for recipe in board.recipes)
    lines = [
        "This page is written by `barley scoreboard` (how it works: `docs/scoreboard.md`) from the records of its "
        "cells: the command below does what is missing (a cell done is not done again) and writes it; with "
        "`--report-only` it rewrites the page from the cells there are.", "",
        "<!-- test: skip (trains every treebank: hours) -->", "```bash", board.command, "```", "",
        f"Every treebank folder of `{board.ud_dir}` with a training and a test file (the dev file is optional: "
        "without one the recipe holds out the end of the training file) is trained by each recipe "
        f"(`barley train FOLDER --recipe R --seed {board.seed}`), "
        "then scored on its test set from raw text (the text rebuilt from the treebank's `# text` comments, "
        "paragraphs as it marks them: `barley parse --input text`) and with gold tokenization (`barley parse "
        "--retag`: every tag predicted), by `barley evaluate --conll18`: the CoNLL 2018 shared task's metrics, "
        "F1, every word counted, equal to its official scorer's. *train s*: the wall time of `barley train` "
        f"(threads: {threads}; *resumed*: a training stopped and resumed from its checkpoint, the time of its last "
        "run alone). *words/s*: the whole `barley parse` process on the raw text (start, load, "
        "parse, write), " + ("pinned to one core (`taskset -c`)" if not unpinned else
                             f"pinned to one core (`taskset -c`; {unpinned} cells unpinned: no `taskset`)")
        + ", one BLAS thread, " + (f"on {' and '.join(cpus)}" if cpus else "on the machine named here once cells "
                                   "are done") + f". {done} of {cells} cells done.", "",
        "The peers' figures are the ones they publish, on their own UD versions, which need not be those of "
        "the copies here: the comparison is approximate, and no peer states the CPU of a speed.", ""]
    for peer in board.peers:
        lines.append(f"- **{peer.title}**: <{peer.source}> ({peer.copied_from}); {peer.what}; {peer.missing}.")
    return lines


def _las(board: Board, rows: list[Row]) -> list[str]:
    raw = [row for row in rows if row.given == "raw"]
    over = published_by_every_peer(board, "LAS")
    body = [[treebank.name, *(_number(row.score(treebank.name, "LAS")) for row in raw)] for treebank in board.treebanks]
    body.append([f"macro-average over the {len(over)} treebanks every peer publishes",
                 *(_number(macro_average(row, over, "LAS")) for row in raw)])
    return ["## LAS from raw text", "", *_table(["treebank", *(row.system for row in raw)], body)]


def _macro(board: Board, rows: list[Row]) -> list[str]:
    over = {metric: published_by_every_peer(board, metric) for metric in METRICS}
    body = [[row.system, INPUT_NAMES[row.given], *(_number(macro_average(row, over[metric], metric))
                                                   for metric in METRICS)] for row in rows]
    lines = ["## Macro-averages", "", *_table(["system", "input", *METRICS], body, right_from=2), ""]
    full = over["LAS"]
    lines.append(f"Over the treebanks whose raw-text figures every peer publishes: {', '.join(full) or 'none'}"
                 + "".join(f"; {metric}: " + (", ".join(over[metric]) if over[metric] else "none")
                           for metric in METRICS if over[metric] != full) + ".")
    missing = [f"{recipe} {sum((name, recipe) in board.records for name in full)} of {len(full)}"
               for recipe in board.recipes if any((name, recipe) not in board.records for name in full)]
    if missing:
        lines.append(f"barley's averages wait for all of these treebanks (done: {', '.join(missing)}).")
    return lines


def _treebank(board: Board, rows: list[Row], treebank: Treebank) -> list[str]:
    name = treebank.name
    files = (f"train `{os.path.basename(treebank.train)}`, "
             + (f"dev `{os.path.basename(treebank.dev)}`" if treebank.dev else
                "no dev file (the recipes hold out the end of the training file)")
             + f", test `{os.path.basename(treebank.test)}`")
    body = []
    for row in rows:
        scores = [_number(row.score(name, metric)) for metric in METRICS]
        record = board.records.get((name, row.recipe)) if row.recipe else None
        if row.recipe is None and not any(scores):
            continue  # a peer that publishes nothing on this treebank
        timing = ([_number(record["train"]["seconds"], 0) + (" (resumed)" if resumed(record) else ""),
                   _number(record["parse"]["words_per_second"], 0)] if record and row.given == "raw" else ["", ""])
        system = row.system + (" (not done yet)" if row.recipe and record is None else "")
        body.append([system, INPUT_NAMES[row.given], *scores, *timing])
    return [f"### {name}", "", files + ".", "",
            *_table(["system", "input", *METRICS, "train s", "words/s"], body, right_from=2)]
