"""One figure per fact: the shipped models' scores that the README and the docs print are those the
model files record (``test_raw_text``: CoNLL 2018 F1 on UD_English-EWT test from raw text, written by
scripts/build_default_model.py), and their sizes are the files'. A model rebuilt without its pages
fails here, naming the page, the row and the figure."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from barley.models.archive import read_manifest
from barley.models.shipped import shipped_models

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md", "docs/models.md", "docs/results/pipeline.md"]
MODELS = dict(shipped_models())  # name → path
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Each markdown table of ``text``: its header cells and its rows' cells (the rule line left out)."""
    found, lines = [], text.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("|") and k + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|$", lines[k + 1]) and \
                (k == 0 or not lines[k - 1].startswith("|")):
            rows = []
            for row in lines[k + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(_cells(row))
            found.append((_cells(line), rows))
    return found


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def current_rows(page: str, model: str) -> list[tuple[list[str], list[str]]]:
    """The rows of ``page``'s tables that give ``model``'s figures today (not an earlier session's)."""
    return [(header, row) for header, rows in tables((ROOT / page).read_text(encoding="utf-8")) for row in rows
            if re.search(rf"`{model}`(?![\w`])", row[0]) and "session" not in row[0]]


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("model", MODELS)
def test_the_pages_print_the_scores_and_size_the_shipped_model_records(page, model):
    manifest = read_manifest(MODELS[model])
    recorded = manifest["test_raw_text"]
    rows = current_rows(page, model)
    assert rows, f"{page}: no row of {model}'s figures"
    checked = 0
    for header, row in rows:
        if "Tokens" not in header:  # a table of something else (gold tokenization, speed, recipes)
            continue
        for column, cell in zip(header, row):
            if column in recorded:
                shown = NUMBER.search(cell.replace("*", ""))
                assert shown and float(shown.group()) == pytest.approx(recorded[column], abs=0.005), \
                    f"{page}: {model}'s {column} is {cell}, the model file records {recorded[column]}"
                checked += 1
            elif column == "size":
                size = os.path.getsize(MODELS[model]) / 2 ** 20
                assert cell == f"{size:.1f} MiB", f"{page}: {model}'s size is {cell}, the file is {size:.1f} MiB"
    assert checked, f"{page}: no score of {model} checked"


SPEED_PAGE = "docs/results/pipeline.md"
"""Where the shipped models' speeds are measured: its section "Speed, one core", the row of the whole
``barley parse`` process; every other page that gives the speed rounds that figure to hundreds."""


def measured_speeds() -> dict[str, int]:
    """Each shipped model's whole-process words/s, from :data:`SPEED_PAGE`."""
    section = (ROOT / SPEED_PAGE).read_text(encoding="utf-8").split("## Speed, one core", 1)[1]
    header, rows = tables(section)[0]
    row = next(row for row in rows if row[0].startswith("`barley parse` of EWT test's raw text"))
    speeds = {}
    for column, cell in zip(header[1:], row[1:]):
        name = re.match(r"`(\w+)`", column)
        if name and name.group(1) in MODELS:
            speeds[name.group(1)] = int(NUMBER.match(cell.replace(",", "")).group())
    return speeds


def test_every_shipped_model_s_speed_is_measured_on_the_results_page():
    assert set(measured_speeds()) == set(MODELS)


@pytest.mark.parametrize("page", ["README.md", "docs/models.md"])
@pytest.mark.parametrize("model", MODELS)
def test_the_speed_tables_print_the_measured_speed(page, model):
    expected = f"{round(measured_speeds()[model], -2):,}"
    rows = [(header, row) for header, row in current_rows(page, model) if "words/s" in header]
    assert rows, f"{page}: no row of {model}'s speed"
    for header, row in rows:
        assert row[header.index("words/s")] == expected, f"{page}: {model} at {row[header.index('words/s')]} words/s, " \
            f"{SPEED_PAGE} measured {measured_speeds()[model]:,} (rounded: {expected})"


def test_the_spacy_page_compares_with_the_measured_speed():
    text = (ROOT / "docs/spacy.md").read_text(encoding="utf-8")
    stated = re.findall(r"([\d,]+) words per CPU second: \[results/pipeline\.md\]", text)
    assert stated == [f"{round(measured_speeds()['en_ewt'], -2):,}"]
