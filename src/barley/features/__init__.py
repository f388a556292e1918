"""Feature models: the language (:mod:`.model`), the compiled extractor (:mod:`.extract`),
one default model per transition system shipped in ``defaults/<system>.txt``, and the
rich models shipped in ``rich/<system>.txt`` (``--features rich``)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from barley.errors import BarleyError
from barley.features.model import FeatureModel, parse_model, read_model


SHIPPED = {"defaults": "default", "rich": "rich"}
"""The folders of the shipped feature models and the name ``--features`` knows each by."""

RICH = "rich"


def shipped_names(folder: str = "defaults") -> list[str]:
    """The systems that have a shipped feature model in ``folder`` (``defaults`` or ``rich``)."""
    entries = (resources.files("barley.features") / folder).iterdir()
    return sorted(entry.name[:-4] for entry in entries if entry.name.endswith(".txt"))


def default_names() -> list[str]:
    """The systems that have a default feature model."""
    return shipped_names("defaults")


def shipped_text(system_name: str, folder: str = "defaults") -> str:
    path = resources.files("barley.features") / folder / f"{system_name}.txt"
    if not path.is_file():
        raise BarleyError(f"no {SHIPPED[folder]} feature model for {system_name!r}",
                          fix=f"give one with --features FILE; {SHIPPED[folder]} models exist for: "
                              + ", ".join(shipped_names(folder)))
    return path.read_text(encoding="utf-8")


def default_model(system_name: str) -> FeatureModel:
    return parse_model(shipped_text(system_name, "defaults"), f"defaults/{system_name}.txt")


def rich_model(system_name: str) -> FeatureModel:
    """The system's rich model (arc-eager: after Zhang & Nivre 2011), made for the perceptron
    trained by exploration (docs/oracles.md)."""
    return parse_model(shipped_text(system_name, "rich"), f"rich/{system_name}.txt")


def load_model(path: str | None, system_name: str) -> FeatureModel:
    """The user's feature file if given, the system's rich model for ``rich``, else the system's default."""
    if path == RICH:
        if Path(path).exists():  # never guess which of the two is meant
            raise BarleyError(f"--features {RICH} names both a file here and barley's rich feature model",
                              fix=f"write ./{RICH} for the file")
        return rich_model(system_name)
    return read_model(path) if path else default_model(system_name)


__all__ = ["FeatureModel", "parse_model", "read_model", "default_model", "default_names", "shipped_names", "rich_model",
           "load_model", "RICH"]
