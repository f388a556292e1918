"""The models that ship inside the package (``src/barley/models/``), and the default one.

A shipped model is an ordinary pipeline model file whose manifest also carries a
``shipped`` entry written by ``scripts/build_default_model.py``: its language, the
treebank and treebank version it was trained on, and the licence it carries (the
treebank's). ``barley parse`` and ``barley serve`` without ``--model``,
and :func:`barley.parse`, use :data:`DEFAULT`; ``barley models`` lists them all.
Listing reads the manifests only (never the arrays).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from barley.errors import BarleyError
from barley.model_file import read_manifest

MODELS_DIR = Path(__file__).resolve().parent / "models"
DEFAULT = "en_ewt"
"""The name (file name without ``.barley``) of the model used when none is given."""


@dataclass(frozen=True)
class ShippedModel:
    name: str
    path: str
    manifest: dict

    @property
    def card(self) -> dict:
        """What ``barley models`` shows: where it comes from, what it holds, how well it does."""
        shipped = self.manifest.get("shipped", {})
        return {"name": self.name, "default": self.name == DEFAULT, "path": self.path,
                **{key: shipped.get(key) for key in ("language", "treebank", "treebank_version", "licence")},
                "components": self.manifest.get("pipeline", {}).get("components", []),
                "bytes": os.path.getsize(self.path),
                "barley_version": self.manifest.get("barley_version"),
                "scores": {key: self.manifest[key] for key in ("test_raw_text", "dev") if key in self.manifest}}


def shipped_models() -> list[ShippedModel]:
    """Every model file in the package's ``models`` folder, by name."""
    paths = sorted(MODELS_DIR.glob("*.barley"))
    return [ShippedModel(path.stem, str(path), read_manifest(path)) for path in paths]


def default_model_path() -> str:
    """The path of the default model; a BarleyError (one line) if this installation lacks it."""
    path = MODELS_DIR / f"{DEFAULT}.barley"
    if not path.is_file():
        raise BarleyError(f"the default model {path} is missing from this installation",
                          fix="reinstall barley (pip install .), or give a model with --model FILE")
    return str(path)


def model_path(name_or_path: str) -> str:
    """The model file ``name_or_path`` names: an existing path as it is, else the shipped model of that
    name (``barley models``); a BarleyError (one line) if it is neither."""
    if os.path.exists(name_or_path):
        return name_or_path
    path = MODELS_DIR / f"{name_or_path}.barley"
    if os.sep not in name_or_path and "/" not in name_or_path and path.is_file():
        return str(path)
    names = ", ".join(model.name for model in shipped_models()) or "none in this installation"
    raise BarleyError(f"no model file and no shipped model called {name_or_path!r}",
                      fix=f"give the path of a model file, or the name of a shipped model ({names}; barley models)")
