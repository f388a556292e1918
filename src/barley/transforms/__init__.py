"""Reversible tree transformations, applied to gold trees before training and inverted on parser output.

Every transform has the same small interface: ``fit(trees)`` (trees are pairs
``(heads, deprels)`` indexed 0..n; a no-op where nothing is learnt),
``forward(heads, deprels, stats=None) -> (heads, deprels)``, ``inverse(heads, deprels,
stats=None) -> (heads, deprels)``, ``new_stats()`` (what ``forward``/``inverse`` count
into when given it: the caller's, so nothing piles up on the transform; ``lines()`` for
the log), and ``to_json()`` / :func:`from_json` for the model manifest (plain data,
never pickle).

- :mod:`~barley.transforms.pseudo_projective`: Nivre and Nilsson (2005);
- :mod:`~barley.transforms.coordination`: Nilsson, Nivre and Hall (2006), §3.1;
- :mod:`~barley.transforms.verb_group`: Nilsson, Nivre and Hall (2006), §3.2.
"""

from __future__ import annotations

from collections import Counter
from importlib import resources
from typing import Any
from pathlib import Path

from barley.errors import BarleyError, InputError, ModelError
from barley.registry import Registry

REGISTRY: Registry[type] = Registry("transform", "barley.transforms", {
    "pseudo-projective": "barley.transforms.pseudo_projective:PseudoProjective",
    "coordination": "barley.transforms.coordination:Coordination",
    "verb-group": "barley.transforms.verb_group:VerbGroup",
}, error=ModelError)
"""The transforms by name, as in ``to_json()["name"]`` (:mod:`barley.registry`; a model names them, so an
unknown one is a ModelError)."""


def transform_class(name: str) -> Any:
    """The transform class registered as ``name`` (it has ``from_json``)."""
    return REGISTRY[name]


def from_json(data: dict):
    """The transform saved by its ``to_json()``."""
    return transform_class(data.get("name", "?")).from_json(data)


def of_manifest(manifest: dict) -> list:
    """The transforms a model's manifest lists (``transforms``: :func:`from_json` entries), in forward order."""
    return [from_json(entry) for entry in manifest.get("transforms", [])]


def inverted(heads: list[int], deprels: list[str], transforms) -> tuple[list[int], list[str]]:
    """A tree parsed in the transformed treebank's terms in the original's: the inverse of each of
    ``transforms`` (fitted and applied forward in this order), the last first."""
    for transform in reversed(transforms):
        heads, deprels = transform.inverse(heads, deprels)
    return heads, deprels


def describe_transforms(manifest: dict) -> str:
    """The line of ``barley info`` naming the transforms of a model (every kind of parser has one)."""
    return f"transforms:  {', '.join(t.get('name', '?') for t in manifest.get('transforms', [])) or 'none'}"


def load_scheme(name: str) -> dict:
    """The label sets of an annotation scheme: a built-in one (``ud``, ``prague``, from
    ``transforms/schemes/NAME.toml``) or a TOML file of the same shape."""
    if name.endswith(".toml"):
        text = Path(name).read_text(encoding="utf-8")
    else:
        source = resources.files("barley.transforms").joinpath("schemes", f"{name}.toml")
        if not source.is_file():
            raise BarleyError(f"unknown annotation scheme {name!r}", fix="choose ud, prague or a .toml file")
        text = source.read_text(encoding="utf-8")
    import tomllib  # here, not at start-up: only the coordination transforms read schemes

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise BarleyError(f"bad scheme file: {error}", path=name) from None


def label_matcher(entries: list[str], subtypes: bool):
    """A test "is this label one of ``entries``", where with ``subtypes`` ``rel:x`` counts as ``rel``."""
    wanted = frozenset(entries)
    if subtypes:
        return lambda label: label in wanted or label.partition(":")[0] in wanted
    return lambda label: label in wanted


class Counts(Counter):
    """Named event counts of a transform (e.g. coordinations transformed), for the log."""

    def lines(self) -> list[str]:
        return [", ".join(f"{count} {event}" for event, count in self.items())] if self else []


def fit_forward(transforms, sentences, trees: list, log, fit: bool = True) -> list:
    """Fit each transform on the trees as they are at its turn (unless ``fit`` is False: transforms
    fitted before, e.g. a model's being fine-tuned), apply it, and log what it did.

    ``trees`` are ``(heads, deprels)`` of ``sentences``; an error in one names its
    sentence's file and line.
    """
    for transform in transforms:
        try:
            if fit:
                transform.fit(trees)
        except BarleyError as error:
            raise InputError(error.what, path=sentences[0].source if sentences else None, fix=error.fix) from None
        changed, stats = [], transform.new_stats()
        for sentence, (heads, deprels) in zip(sentences, trees):
            try:
                heads, deprels = transform.forward(heads, deprels, stats)
            except BarleyError as error:
                raise InputError(error.what, path=sentence.source, line=sentence.line, fix=error.fix) from None
            changed.append(([int(h) for h in heads], list(deprels)))
        trees = changed
        for line in stats.lines():
            log(f"{transform.name}: {line}")
    return trees
