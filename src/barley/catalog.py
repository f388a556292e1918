"""Models found by name: the ones that ship with barley and the installed model packages.

Everywhere a model is asked for (``--model``, ``barley info``, ``barley serve -m``,
:func:`barley.load`, :func:`barley.spacy.load`) the user may give, tried in this order:

1. the path of a model file;
2. the name of a model that ships inside barley (:mod:`barley.shipped`, e.g. ``en_ewt``);
3. the name of an installed model package (built by ``barley package``,
   :mod:`barley.model_package`, and installed with pip);
4. a language code (``en``): the default model if it is of that language, else the one
   shipped or installed model of that language.

Installed packages are found through their distribution metadata: each declares its
model in the entry-point group :data:`ENTRY_POINTS` (name = the model's name, value = the
folder inside site-packages that holds ``model.barley``), read with
:mod:`importlib.metadata` without importing anything, so finding a model runs no code.
Nothing is ever downloaded. A package states the barley versions it works with (in its
model's manifest, ``package.barley_versions``, and as its ``Requires-Dist``); asking for
one that does not fit this barley is a one-line error.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cached_property
from importlib import metadata

from barley import __version__
from barley.errors import BarleyError
from barley.model_file import read_manifest
from barley.shipped import DEFAULT, MODELS_DIR, shipped_models

ENTRY_POINTS = "barley_models"
"""The entry-point group in which model packages declare their model."""
MODEL_FILE = "model.barley"
"""The model's file name inside a package's folder."""
UD_FILE = re.compile(r"^([a-z]{2,3})_[a-z0-9]+-ud-")
"""A UD treebank file name (``en_ewt-ud-train.conllu``), whose prefix is the language's code."""


@dataclass(frozen=True)
class CatalogModel:
    """A model found by name: ``origin`` is ``"shipped"`` or ``"installed"`` (then ``distribution``
    and ``version`` name its package)."""

    name: str
    path: str
    origin: str
    distribution: str | None = None
    version: str | None = None

    @cached_property
    def manifest(self) -> dict:
        """The model's manifest (read once; never the arrays)."""
        return read_manifest(self.path)

    @property
    def card(self) -> dict:
        """What ``barley models`` shows: where it comes from, what it holds, how well it does."""
        manifest = self.manifest
        shipped, package = manifest.get("shipped", {}), manifest.get("package", {})
        return {"name": self.name, "origin": self.origin, "default": self.name == DEFAULT, "path": self.path,
                "package": None if self.origin == "shipped" else f"{self.distribution} {self.version}",
                "language_code": language_code(manifest),
                **{key: shipped.get(key) for key in ("language", "treebank", "treebank_version")},
                "licence": package.get("licence") or shipped.get("licence"),
                "barley_versions": package.get("barley_versions"),
                "components": manifest.get("pipeline", {}).get("components", ["parse"]),
                "bytes": os.path.getsize(self.path),
                "barley_version": manifest.get("barley_version"),
                "scores": {key: manifest[key] for key in ("test_raw_text", "dev") if key in manifest}}

    def check_version(self) -> None:
        """A one-line BarleyError if the package states barley versions that exclude this barley."""
        if self.origin != "installed":
            return
        from packaging.specifiers import InvalidSpecifier, SpecifierSet

        stated = self.manifest.get("package", {}).get("barley_versions")
        try:
            fits = isinstance(stated, str) and SpecifierSet(stated).contains(__version__, prereleases=True)
        except InvalidSpecifier:
            fits = False
        if not fits:
            raise BarleyError(f"the model package {self.distribution} {self.version} works with barley {stated}, "
                              f"not with this barley {__version__}", path=self.path,
                              fix="install a barley of those versions, or rebuild the package with this one "
                                  "(barley package)")


def language_code(manifest: dict) -> str | None:
    """The model's language code: as its package states it, else the prefix of the UD file it was
    trained on (``en_ewt-ud-train.conllu`` → ``en``), else None."""
    stated = manifest.get("package", {}).get("language")
    if stated:
        return stated
    training = manifest.get("pipeline", {}).get("training", {}) if "pipeline" in manifest else manifest.get("training", {})
    found = UD_FILE.match(os.path.basename(str(training.get("data", ""))))
    return found[1] if found else None


def installed_models() -> list[CatalogModel]:
    """The models of the installed packages, by name (the first of a name on ``sys.path`` wins, as
    an import would), read from their metadata alone."""
    found: dict[str, CatalogModel] = {}
    for entry in metadata.entry_points(group=ENTRY_POINTS):
        if entry.name in found or entry.dist is None:
            continue
        path = str(entry.dist.locate_file(f"{entry.value}/{MODEL_FILE}"))
        found[entry.name] = CatalogModel(entry.name, path, "installed", entry.dist.name, entry.dist.version)
    return list(found.values())


def models() -> list[CatalogModel]:
    """Every model that can be named: the shipped ones, then the installed ones."""
    shipped = [CatalogModel(name, path, "shipped") for name, path in shipped_models()]
    taken = {model.name for model in shipped}
    return shipped + [model for model in installed_models() if model.name not in taken]


def find(name: str) -> CatalogModel:
    """The shipped or installed model called ``name``, or the model of the language ``name``."""
    shipped = MODELS_DIR / f"{name}.barley"
    if shipped.is_file():
        return CatalogModel(name, str(shipped), "shipped")
    installed = {model.name: model for model in installed_models()}
    if name in installed:
        installed[name].check_version()
        return installed[name]
    return _of_language(name)


def _of_language(code: str) -> CatalogModel:
    known = models()
    speaking = [model for model in known if language_code(model.manifest) == code]
    if len(speaking) > 1:
        default = [model for model in speaking if model.name == DEFAULT]
        if not default:
            raise BarleyError(f"several models are of the language {code!r}: "
                              + ", ".join(model.name for model in speaking), fix="name one of them")
        speaking = default
    if not speaking:
        raise BarleyError(f"no model file, model name or language code {code!r}",
                          fix="give a model file's path, or one of: "
                              + (", ".join(model.name for model in known) or "none installed")
                              + " (barley models lists them)")
    speaking[0].check_version()
    return speaking[0]


def resolve(name_or_path: str | os.PathLike) -> str:
    """The path of the model file that ``name_or_path`` names (see the module's docstring)."""
    given = os.fspath(name_or_path)
    if os.path.exists(given) or "/" in given or os.sep in given or given.endswith(".barley"):
        return given  # a path: a missing file is reported by the loader that opens it
    return find(given).path
