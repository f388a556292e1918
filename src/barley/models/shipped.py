"""The models that ship inside the package (``src/barley/models/``), and the default one.

A shipped model is an ordinary pipeline model file whose manifest also carries a
``shipped`` entry written by ``scripts/build_default_model.py``: its language, the
treebank and treebank version it was trained on, and the licence it carries (the
treebank's). ``barley parse`` and ``barley serve`` without ``--model``,
and :func:`barley.parse`, use :data:`DEFAULT`; ``barley models`` lists them all
(:mod:`barley.models.catalog`).
"""

from __future__ import annotations

from pathlib import Path

from barley.errors import BarleyError

MODELS_DIR = Path(__file__).resolve().parent
DEFAULT = "en_ewt"
"""The name (file name without ``.barley``) of the model used when none is given."""


def shipped_models() -> list[tuple[str, str]]:
    """``(name, path)`` of every model file in the package's ``models`` folder, by name
    (:mod:`barley.models.catalog` lists them with the installed ones)."""
    return [(path.stem, str(path)) for path in sorted(MODELS_DIR.glob("*.barley"))]


def default_model_path() -> str:
    """The path of the default model; a BarleyError (one line) if this installation lacks it."""
    path = MODELS_DIR / f"{DEFAULT}.barley"
    if not path.is_file():
        raise BarleyError(f"the default model {path} is missing from this installation",
                          fix="reinstall barley (pip install .), or give a model with --model FILE")
    return str(path)
