"""The documentation: the site builds with warnings as errors (MkDocs, `mkdocs.yml`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_site_builds_strictly(tmp_path):
    """`mkdocs build --strict`: a broken link or anchor, a page left out of the nav, or a
    docstring the API reference cannot render fails the build."""
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install -e '.[docs]'")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed: pip install -e '.[docs]'")
    build = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                           cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    assert (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8").count("Pipeline") > 1
