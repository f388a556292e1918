"""Shared fixtures: the shared UD treebanks when present, skipped with a reason when not.

The tests mirror the package: ``tests/systems/`` tests ``barley.systems``, ``tests/neural/`` ``barley.neural``,
and so on; the tests of the top-level modules and of the whole (docs, imports, plugins) are here. Every test
folder is on ``sys.path``, so that a test imports the helpers of another by its module name
(``from fixed_grammar import toy_treebank``) wherever either lives.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from barley.errors import BarleyError

TESTS = Path(__file__).resolve().parent
sys.path[1:1] = [str(folder) for folder in sorted(TESTS.iterdir())
                 if folder.is_dir() and any(folder.glob("test_*.py")) and str(folder) not in sys.path]

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


TORCH_MISSING = importlib.util.find_spec("torch") is None
SKIP_TORCH = "needs PyTorch, which is not installed (the README's test command leaves it out; .ci/run installs it)"


def _needs_torch(error: BaseException) -> bool:
    """Whether ``error`` is barley's or Python's saying that PyTorch is missing."""
    return ((isinstance(error, ImportError) and error.name == "torch")
            or (isinstance(error, BarleyError) and "PyTorch, which is not installed" in str(error)))


CLI_NAMES = frozenset({"main", "BARLEY", "run_barley"})
"""Names a test that runs the command line calls: ``cli.main([...])`` (or ``main`` imported from
:mod:`barley.cli`), ``BARLEY + [...]`` or ``run_barley`` in a subprocess; ``python -m barley`` and
``subprocess`` running ``barley`` are found from the constants (the ``cli`` marker)."""


def runs_the_command_line(code) -> bool:
    """Whether a test's code object (or one nested in it: a lambda, a comprehension) runs the command line."""
    names, consts = set(code.co_names), set(code.co_consts)
    if CLI_NAMES & names or {"-m", "barley"} <= consts or ("barley" in consts and "subprocess" in names):
        return True
    return any(runs_the_command_line(const) for const in code.co_consts if hasattr(const, "co_names"))


def pytest_collection_modifyitems(config, items):
    """Tests marked ``torch`` skip without PyTorch (those that run it in a subprocess: the CLI's trainings);
    a test whose code runs the command line (:func:`runs_the_command_line`) is marked ``cli``."""
    for item in items:
        function = getattr(item, "function", None)
        if function is not None and runs_the_command_line(function.__code__):
            item.add_marker(pytest.mark.cli)
        if TORCH_MISSING and "torch" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=SKIP_TORCH))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Without PyTorch, a test that fails only because barley (or the test) needs it is skipped for that reason,
    so that the README's test command runs on a machine without it; with PyTorch nothing changes."""
    outcome = yield
    report = outcome.get_result()
    if TORCH_MISSING and call.excinfo is not None and report.failed and _needs_torch(call.excinfo.value):
        report.outcome, report.longrepr = "skipped", (str(item.path), item.location[1] or 0, f"Skipped: {SKIP_TORCH}")
