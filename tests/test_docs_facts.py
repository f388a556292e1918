"""One figure per fact: the shipped models' scores that the README and the docs print are those the
model files record (``test_raw_text``: CoNLL 2018 F1 on UD_English-EWT test from raw text, written by
scripts/build_default_model.py), and their sizes are the files'. A model rebuilt without its pages
fails here, naming the page, the row and the figure."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from barley.model_file import read_manifest
from barley.shipped import shipped_models

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
