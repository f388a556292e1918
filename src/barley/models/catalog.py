"""Models found by name: the ones that ship with barley and the installed model packages.

Everywhere a model is asked for (``--model``, ``barley info``, ``barley serve -m``,
:func:`barley.load`, :func:`barley.spacy.load`) the user may give, tried in this order:

1. the path of a model file;
2. the name of a model that ships inside barley (:mod:`barley.models.shipped`, e.g. ``en_ewt``);
3. a language code (two or three lower-case letters, :data:`LANGUAGE_CODE`: ``en``): the
   default model if it is of that language, else the one shipped or installed model of it;
4. the name of an installed model package (built by ``barley package``,
   :mod:`barley.models.package`, and installed with pip).

Installed packages are found through their distribution metadata: each declares its
model in the entry-point group :data:`ENTRY_POINTS` (name = the model's name, value = the
folder inside site-packages that holds ``model.barley``), read with
:mod:`importlib.metadata` without importing anything, so finding a model runs no code.
Nothing is ever downloaded. A package states the barley versions it works with (in its
model's manifest, ``package.barley_versions``, and as its ``Requires-Dist``); asking for
one that does not fit this barley is a one-line error.

A package is trusted no further than it must be (:func:`_checked`): its model's name is a
package name (:data:`NAME`), never a language code nor a shipped model's name; its folder
is a relative path of identifiers, and ``FOLDER/model.barley`` must be a file that its own
distribution installed (listed in its ``RECORD``, of the size recorded there, reached without
a symbolic link); its manifest must be readable, with the entries ``barley models`` shows of
the types it shows. A package that fails is skipped with a one-line warning naming it
(:class:`~barley.errors.BarleyWarning`), so one broken package never hides the others; it is
an error only when it is the one asked for.
"""

from __future__ import annotations

import csv
import os
import re
import warnings
from dataclasses import dataclass
from functools import cached_property
from importlib import metadata

from barley import __version__
from barley.errors import BarleyError, BarleyWarning, ModelError
from barley.models import check
from barley.models.archive import read_manifest
from barley.models.shipped import DEFAULT, MODELS_DIR, shipped_models
from barley.registry import distribution_named, entry_points

ENTRY_POINTS = "barley_models"
"""The entry-point group in which model packages declare their model."""
MODEL_FILE = "model.barley"
"""The model's file name inside a package's folder."""
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
"""A packaged model's name: a Python package name in lower case (also its package's name), and not
a language code."""
LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}$")
"""A language code, as UD and spaCy write them (ISO 639-1 or 639-3): a name of this form always
names a language, never a package."""
UD_FILE = re.compile(r"^([a-z]{2,3})_[a-z0-9]+-ud-")
UD_FOLDER = re.compile(r"^UD_([A-Z][A-Za-z_]*)-")
"""A UD treebank's folder, which names its language (``UD_Latin-Perseus``, ``UD_Old_Church_Slavonic-PROIEL``)."""
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

    @cached_property
    def card(self) -> dict:
        """What ``barley models`` shows: where it comes from, what it holds, how well it does (a
        ModelError if the manifest's entries are not of the types shown)."""
        manifest = self.manifest
        with check.loading(self.path, "barley"):
            shipped = check.mapping(manifest.get("shipped", {}), "the manifest's shipped")
            package = check.mapping(manifest.get("package", {}), "the manifest's package")
            texts = {f"shipped {key}": shipped.get(key) for key in ("language", "treebank", "treebank_version",
                                                                     "licence")}
            texts |= {f"package {key}": package.get(key) for key in ("licence", "barley_versions")}
            texts["barley_version"] = manifest.get("barley_version")
            for what, value in texts.items():
                if value is not None:
                    check.text(value, f"the manifest's {what}")
            components = check.texts(manifest.get("pipeline", {}).get("components", ["parse"]),
                                     "the pipeline's components")
            scores = {key: check.mapping(manifest[key], f"the manifest's {key}")
                      for key in ("test_raw_text", "dev") if key in manifest}
            for key, values in scores.items():
                for metric, value in values.items():
                    check.number(value, f"the manifest's {key} {metric}")
        return {"name": self.name, "origin": self.origin, "default": self.name == DEFAULT, "path": self.path,
                "package": None if self.origin == "shipped" else f"{self.distribution} {self.version}",
                "language_code": language_code(manifest),
                **{key: shipped.get(key) for key in ("language", "treebank", "treebank_version")},
                **({} if shipped.get("language") else {"language": language_name(manifest)}),
                "licence": package.get("licence") or shipped.get("licence"),
                "barley_versions": package.get("barley_versions"),
                "components": components,
                "bytes": os.path.getsize(self.path),
                "barley_version": manifest.get("barley_version"),
                "scores": scores}

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


def _training_data(manifest: dict) -> str | None:
    source = manifest.get("pipeline") if "pipeline" in manifest else manifest
    training = source.get("training") if isinstance(source, dict) else None
    data = training.get("data") if isinstance(training, dict) else None
    return data if isinstance(data, str) else None


def language_name(manifest: dict) -> str | None:
    """The model's language as the UD treebank folder it was trained from names it (``.../UD_Latin-Perseus/
    la_perseus-ud-train.conllu`` → ``Latin``), else None."""
    data = _training_data(manifest)
    found = UD_FOLDER.match(os.path.basename(os.path.dirname(data.replace("\\", "/")))) if data else None
    return found[1].replace("_", " ") if found else None


def language_code(manifest: dict) -> str | None:
    """The model's language code (:data:`LANGUAGE_CODE`): as its package states it, else the prefix of
    the UD file it was trained on (``en_ewt-ud-train.conllu`` → ``en``), else None (also when what
    the package states is not a language code)."""
    package = manifest.get("package")
    stated = package.get("language") if isinstance(package, dict) else None
    if stated is not None:
        return stated if isinstance(stated, str) and LANGUAGE_CODE.match(stated) else None
    data = _training_data(manifest)
    found = UD_FILE.match(os.path.basename(data)) if data else None
    return found[1] if found else None


def _checked(entry: metadata.EntryPoint) -> CatalogModel:
    """The model that ``entry`` declares, if its package may be trusted with it (see the module's
    docstring); else a one-line ModelError naming the package."""
    dist = entry.dist
    package = distribution_named(dist)
    uninstall = dist.name if dist is not None and dist.name else "PACKAGE"

    def broken(what: str, path: str | None = None) -> ModelError:
        return ModelError(f"the model package {package} (model {entry.name!r}) {what}", path=path,
                          fix=f"reinstall it, or remove it: pip uninstall {uninstall}")

    if dist is None or not dist.name or not dist.version:
        raise broken("has no name or version in its metadata")
    if not NAME.match(entry.name) or LANGUAGE_CODE.match(entry.name):
        raise broken("declares a model name that is not a package name (lower-case letters, digits and _, "
                     "starting with a letter) or that is a language code's (two or three letters name a language)")
    if os.path.isfile(MODELS_DIR / f"{entry.name}.barley"):  # os.path's: False for a name too long for a file
        raise broken("takes the name of a model that ships with barley")
    folder = entry.value.split("/")
    if not all(part.isascii() and part.isidentifier() for part in folder):
        raise broken(f"declares {entry.value!r} as its model's folder, not a folder inside the package "
                     f"(names of letters, digits and _, separated by /)")
    wanted = f"{entry.value}/{MODEL_FILE}"
    try:
        # the RECORD itself, not dist.files: the importlib_metadata backport leaves out of those the files
        # that are missing, which the standard library's keeps (the backport's finders join sys.meta_path
        # once a package imports it, Dask for one)
        recorded = [row for row in csv.reader((dist.read_text("RECORD") or "").splitlines())
                    if row and row[0] == wanted]
    except (UnicodeDecodeError, ValueError, TypeError, csv.Error) as error:
        raise broken(f"has a RECORD that cannot be read ({type(error).__name__}: {error})") from None
    path = str(dist.locate_file(wanted))  # a path (importlib.metadata's SimplePath)
    if not recorded:
        raise broken(f"did not install {wanted} (its RECORD does not list it)", path)
    root = os.path.realpath(str(dist.locate_file("")))
    if os.path.realpath(path) != os.path.join(root, *folder, MODEL_FILE):
        raise broken("reaches its model through a symbolic link", path)
    if not os.path.isfile(path):
        raise broken(f"installed {wanted}, but it is " + ("not a file" if os.path.exists(path) else "missing"), path)
    size, recorded_size = os.path.getsize(path), recorded[0][2] if len(recorded[0]) > 2 else ""
    if recorded_size and str(size) != recorded_size:
        raise broken(f"installed {wanted} of {recorded_size} bytes, but it has {size} now (damaged or changed)",
                     path)
    model = CatalogModel(entry.name, path, "installed", dist.name, dist.version)
    try:
        model.card  # noqa: B018 (the manifest read and its shown entries checked, once)
    except ModelError as error:
        raise broken(f"installed a model that barley cannot read: {error.what}", path) from None
    return model


def installed_models() -> list[CatalogModel]:
    """The models of the installed packages that may be trusted (:func:`_checked`), by name, read from
    their metadata and manifests alone; each one that may not is skipped with a one-line warning."""
    entries, unreadable = entry_points(ENTRY_POINTS)
    for line in unreadable:
        warnings.warn(BarleyWarning(line), stacklevel=2)
    found = []
    for entry in entries.values():
        try:
            found.append(_checked(entry))
        except BarleyError as error:
            warnings.warn(BarleyWarning(f"skipped: {error}"), stacklevel=2)
    return found


def models() -> list[CatalogModel]:
    """Every model that can be named: the shipped ones, then the installed ones."""
    return [CatalogModel(name, path, "shipped") for name, path in shipped_models()] + installed_models()


def find(name: str) -> CatalogModel:
    """The shipped model called ``name``, the model of the language ``name``, or the installed model
    called ``name`` (see the module's docstring)."""
    shipped = MODELS_DIR / f"{name}.barley"
    if os.path.isfile(shipped):  # not Path.is_file, which raises for a name too long for a file name
        return CatalogModel(name, str(shipped), "shipped")
    if LANGUAGE_CODE.match(name):
        return _of_language(name)
    entry = entry_points(ENTRY_POINTS)[0].get(name)
    if entry is None:
        raise _unknown(name)
    model = _checked(entry)  # the one asked for: broken, it is the error
    model.check_version()
    return model


def _unknown(name: str, known: list[CatalogModel] | None = None) -> BarleyError:
    known = models() if known is None else known
    return BarleyError(f"no model file, model name or language code {name!r}",
                      fix="give a model file's path, or one of: "
                          + (", ".join(model.name for model in known) or "none installed")
                          + " (barley models lists them)")


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
        raise _unknown(code, known)
    speaking[0].check_version()
    return speaking[0]


def resolve(name_or_path: str | os.PathLike) -> str:
    """The path of the model file that ``name_or_path`` names (see the module's docstring)."""
    given = os.fspath(name_or_path)
    if os.path.exists(given) or "/" in given or os.sep in given or given.endswith(".barley"):
        return given  # a path: a missing file is reported by the loader that opens it
    return find(given).path
