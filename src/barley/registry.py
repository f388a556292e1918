"""Registries: the one way barley finds its pluggable parts by name — transition systems, transforms,
learners, parser kinds, tokenizer kinds and pipeline components.

A :class:`Registry` is a read-only mapping, name → object (a class, or a kind's object), made of
barley's own entries, ``name → "absolute.module:attribute"``, each imported the first time it is
asked for (start-up imports none of them), and of the entries that installed distributions declare
in the registry's entry-point group (``barley.systems``, ...: :data:`GROUPS`). Another package
adds, say, a transition system by one line of its ``pyproject.toml``::

    [project.entry-points."barley.systems"]
    my-system = "my_package.system:MySystem"

Those are read once, from the distributions' metadata without importing anything, the first time a
name that is not barley's own is asked for or the names are listed; :func:`forget_plugins` reads
them again (tests that put a distribution on ``sys.path``). A plugin is code one installed, trusted
as any installed package is; a model file only names a registered entry, so loading one imports
nothing that is not installed. A plugin cannot take the name of one of barley's own entries, and a
broken one (an entry that is not ``module:attribute``, a module that fails to import, a missing
attribute) is skipped with a one-line warning naming its distribution, as a broken model package
is (:mod:`barley.models.catalog`): it is an error only when it is the one asked for.

:func:`entry_points` reads a group's entries for this module and for :mod:`barley.models.catalog`.
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib import metadata
from typing import Any, Generic, TypeVar, cast

from barley.errors import BarleyError, BarleyWarning, printable

T = TypeVar("T")

GROUPS = ("barley.systems", "barley.transforms", "barley.learners", "barley.parsers", "barley.tokenizers",
          "barley.components")
"""The entry-point groups in which another package registers a transition system, a transform, a
learner, a kind of parser, a kind of tokenizer or a pipeline component (docs/extending.md)."""

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
"""A registered name: letters, digits and ``_ . + -``, as barley's own (``2-planar``, ``svm-poly2``)."""
REFERENCE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
"""What an entry points to: ``module.path:attribute`` (an attribute path, as entry points allow)."""

_read: dict[str, dict[str, metadata.EntryPoint]] = {}
"""The plugins of each group read so far (:func:`forget_plugins` empties it)."""
_registries: list[Registry] = []


def entry_points(group: str) -> tuple[dict[str, metadata.EntryPoint], list[str]]:
    """The entry points of ``group`` by name: of each name the first on ``sys.path``, as an import would
    find it (as :func:`importlib.metadata.entry_points` finds them, but one distribution whose metadata
    cannot be read fails no lookup: it is left out), and a line on each distribution left out."""
    found: dict[str, metadata.EntryPoint] = {}
    unreadable, seen = [], set()
    for dist in metadata.distributions():
        try:
            text = dist.read_text("entry_points.txt") or ""
            if f"[{group}]" not in text:
                continue
            name = dist.name
            entries = dist.entry_points.select(group=group)
        except (UnicodeDecodeError, ValueError, TypeError) as error:  # what importlib.metadata raises for them
            unreadable.append(printable(
                f"skipped the distribution {distribution_named(dist)}: its metadata or entry points cannot be read "
                f"({type(error).__name__}: {error}; reinstall or uninstall it)"))
            continue
        normalized = re.sub(r"[-_.]+", "-", name or "").lower()
        if normalized in seen:
            continue  # shadowed by a distribution of the same name earlier on sys.path
        seen.add(normalized)
        for entry in entries:
            found.setdefault(entry.name, entry)
    return found, unreadable


def distribution_named(dist: metadata.Distribution | None) -> str:
    """How a message names ``dist``: its name and version, else where it is."""
    if dist is None:
        return "?"
    try:
        if dist.name:
            return f"{dist.name} {dist.version}"
    except (UnicodeDecodeError, ValueError, TypeError):
        pass
    return f"in {dist.locate_file('')}"


def forget_plugins() -> None:
    """Read the entry points again when next needed, and import the plugins again: for tests that
    change ``sys.path`` (barley's own entries stay loaded)."""
    _read.clear()
    for registry in _registries:
        registry._forget_plugins()


def _import(reference: str) -> object:
    module, _, attribute = reference.partition(":")
    found = importlib.import_module(module)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


class Registry(Mapping[str, T], Generic[T]):
    """Name → object: barley's own ``entries`` (``name → "absolute.module:attribute"``, in the order
    listed, which is an order some registries mean: a pipeline runs its components in it) then the
    plugins of the entry-point ``group``, in the order found.

    ``what`` names an entry in messages (``transition system``): an unknown name is ``error`` (a
    BarleyError, or a subclass such as ModelError where a model names it) saying ``unknown WHAT
    'name'`` and listing the names, never a KeyError. ``aliases(object)``: other names an entry
    answers to (a transition system's MaltParser names); they are not listed.
    """

    def __init__(self, what: str, group: str, entries: dict[str, str], *, error: type[BarleyError] = BarleyError,
                 aliases: Callable[[T], Iterable[str]] | None = None):
        if group not in GROUPS:
            raise ValueError(f"{group!r} is not one of barley's entry-point groups")
        self.what, self.group, self.entries, self.error, self.aliases = what, group, entries, error, aliases
        self._loaded: dict[str, T] = {}  # barley's own entries once imported, by reference
        self._plugins_loaded: dict[str, T] = {}
        self._failed: dict[str, BarleyError] = {}  # plugins that did not load, by name
        _registries.append(self)

    # --- the mapping ------------------------------------------------------------------------

    def __getitem__(self, name: str) -> T:
        found = self._find(name)
        if found is None:
            raise self.unknown(name)
        return found

    def __contains__(self, name: object) -> bool:
        """Whether ``name`` is registered, imported only as far as aliases need (an alias is an attribute)."""
        if not isinstance(name, str):
            return False
        if name in self.entries or name in self._plugins():
            return True
        return self.aliases is not None and self._find(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter([*self.entries, *self._plugins()])

    def __len__(self) -> int:
        return len(self.entries) + len(self._plugins())

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self else default

    # a registry is equal to itself alone, and hashable: an option's choices may be one (barley.options)
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<Registry of {self.what}s ({self.group}): {', '.join(self)}>"

    # --- beyond the mapping -----------------------------------------------------------------

    def _find(self, name: object) -> T | None:
        """The entry called ``name``, or answering to it (``aliases``): barley's own first, without reading
        the plugins; None if there is none."""
        if not isinstance(name, str):
            return None
        if name in self.entries:
            return self._own(name)
        if self.aliases is not None:
            for own in self.entries:
                if name in self.aliases(self._own(own)):
                    return self._own(own)
        plugin = self._plugins().get(name)
        if plugin is not None:
            return self._plugin(name, plugin)
        if self.aliases is not None:
            for other, loaded in self.loadable().items():
                if other not in self.entries and name in self.aliases(loaded):
                    return loaded
        return None

    def _own(self, name: str) -> T:
        reference = self.entries[name]
        if reference not in self._loaded:
            self._loaded[reference] = cast(T, _import(reference))
        return self._loaded[reference]

    def unknown(self, name: object) -> BarleyError:
        """The error for a name that is not registered, listing those that are."""
        return self.error(f"unknown {self.what} {name!r}", fix="choose one of: " + ", ".join(self))

    def loadable(self) -> dict[str, T]:
        """Every entry that loads, by name; a plugin that does not is left out with a one-line warning
        (once): what code that goes through all of them uses (every kind's options), so that one broken
        plugin never stops barley."""
        found = {}
        for name in self:
            if name in self._failed:
                continue
            try:
                found[name] = self[name]
            except BarleyError as error:
                warnings.warn(BarleyWarning(f"skipped: {error}"), stacklevel=2)
        return found

    def _plugins(self) -> dict[str, metadata.EntryPoint]:
        """The group's usable entry points by name, read once; a broken one warned about once and left out."""
        if self.group not in _read:
            found, unreadable = entry_points(self.group)
            usable = {}
            for line in unreadable:
                warnings.warn(BarleyWarning(line), stacklevel=3)
            for name, entry in found.items():
                problem = self._refused(name, entry)
                if problem:
                    package = distribution_named(entry.dist)
                    warnings.warn(BarleyWarning(printable(f"skipped the {self.what} {name!r} of the package {package}: "
                                                          f"{problem}")), stacklevel=3)
                else:
                    usable[name] = entry
            _read[self.group] = usable
        return _read[self.group]

    def _refused(self, name: str, entry: metadata.EntryPoint) -> str | None:
        """Why the plugin entry ``name`` cannot be registered, if it cannot (before importing anything)."""
        uninstall = f"pip uninstall {entry.dist.name}" if entry.dist is not None and entry.dist.name else "uninstall it"
        if name in self.entries:
            return f"barley has its own {self.what} of that name (rename the package's entry point, or {uninstall})"
        if not NAME.match(name):
            return (f"the name is not letters, digits and _ . + - (rename the package's entry point, "
                    f"or {uninstall})")
        if not REFERENCE.match(entry.value):
            return f"{entry.value!r} is not module:attribute (fix the package's entry point, or {uninstall})"
        return None

    def _plugin(self, name: str, entry: metadata.EntryPoint) -> T:
        if name in self._failed:
            raise self._failed[name]
        if name not in self._plugins_loaded:
            try:
                self._plugins_loaded[name] = cast(T, _import(entry.value))
            except Exception as error:  # a plugin's import may raise anything: it is one line, not a traceback
                dist = entry.dist
                uninstall = f"pip uninstall {dist.name}" if dist is not None and dist.name else "uninstall it"
                detail = str(error).splitlines()[0] if str(error) else ""
                self._failed[name] = self.error(
                    f"the {self.what} {name!r} of the package {distribution_named(dist)} cannot be loaded from "
                    f"{entry.value} ({type(error).__name__}: {detail})", fix=f"reinstall it, or {uninstall}")
                raise self._failed[name] from None
        return self._plugins_loaded[name]

    def _forget_plugins(self) -> None:
        self._plugins_loaded.clear()
        self._failed.clear()


class FromRegistries:
    """A class attribute computed each time it is read (``compute()``), not when its class is made: what
    the entries of registries offer together (a component's ``OPTIONAL``: every kind's options). Made
    at import, it would import every entry and read the plugins whenever the class is imported (every
    parse), and miss a plugin read later."""

    def __init__(self, compute: Callable[[], object]):
        self.compute = compute

    def __get__(self, instance: object, owner: type | None = None) -> object:
        return self.compute()


__all__ = ["GROUPS", "FromRegistries", "Registry", "entry_points", "distribution_named", "forget_plugins"]
