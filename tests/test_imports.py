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
