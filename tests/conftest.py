"""Shared fixtures: the shared UD treebanks when present, skipped with a reason when not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

UD_DIR = Path(os.environ.get("BARLEY_UD_DIR", Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud")).resolve()
UD_FILES = sorted(UD_DIR.glob("*/*.conllu")) if UD_DIR.is_dir() else []
SKIP_UD = "the shared UD treebanks are not here (../shared/data/ud, or set BARLEY_UD_DIR)"


def ud_file(name: str) -> Path:
    """The shared UD file ``name`` (e.g. ``la_perseus-ud-train.conllu``); skips the test if absent."""
    for path in UD_FILES:
        if path.name == name:
            return path
    pytest.skip(SKIP_UD)


def pytest_generate_tests(metafunc):
    """Parametrize any test taking ``ud_path`` over every shared UD file (or skip)."""
    if "ud_path" in metafunc.fixturenames:
        if UD_FILES:
            metafunc.parametrize("ud_path", UD_FILES, ids=[p.name for p in UD_FILES])
        else:
            metafunc.parametrize("ud_path", [pytest.param(None, marks=pytest.mark.skip(reason=SKIP_UD))])
