"""Imports the documentation showed before the modules moved (the layout of
:mod:`barley.transition`, :mod:`barley.evaluation`, :mod:`barley.runtime`), kept working for
one release with a DeprecationWarning: ``from barley.parallel import parse_file`` gives
:mod:`barley.runtime.parallel`'s ``parse_file``. The old name is the new module itself (one
module object under two names), not a copy."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

MOVED = {
    "barley.parallel": "barley.runtime.parallel",
    "barley.distributed": "barley.runtime.distributed",
    "barley.evaluate_conll18": "barley.evaluation.conll18",
}
"""Old module name → where it lives now (the next release drops the old names)."""


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old names of :data:`MOVED` and loads them as their new modules, warning once."""

    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name in MOVED else None

    def create_module(self, spec):
        warnings.warn(f"{spec.name} is now {MOVED[spec.name]}: import it from there (the old name goes in the "
                      f"next release)", DeprecationWarning, stacklevel=2)
        return importlib.import_module(MOVED[spec.name])

    def exec_module(self, module) -> None:
        """Nothing to run: the new module was executed when it was imported."""


def install() -> None:
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(MovedModules())
