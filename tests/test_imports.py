"""The import structure of the package: no import cycle (imports inside functions counted) and no library module
importing the command line, as ``../shared/tools/imports.py`` (the reviewers' tool) draws it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT.parent / "shared" / "tools" / "imports.py"


@pytest.mark.skipif(not TOOL.is_file(), reason=f"the import-graph tool is not here ({TOOL})")
def test_no_import_cycle_and_no_library_import_of_the_command_line():
    drawn = subprocess.run([sys.executable, str(TOOL), str(ROOT / "src"), "barley", "--json"], capture_output=True,
                           text=True, check=True)
    found = json.loads(drawn.stdout)
    assert found["modules"] > 100
    assert found["cycles"] == [] and found["library_imports_cli"] == []


def test_the_neural_package_never_imports_the_pipeline():
    """``barley.neural`` (the network, its engine and its training) is below the pipeline components that use it:
    none of its modules imports ``barley.pipeline``, at the top or inside a function."""
    import ast

    found = []
    for path in sorted((ROOT / "src" / "barley" / "neural").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            found += [f"{path.name}: {name}" for name in names if name.split(".")[:2] == ["barley", "pipeline"]]
    assert found == []
