"""Feature models: the language (:mod:`.model`), the compiled extractor (:mod:`.extract`),
and one default model per transition system shipped in ``defaults/<system>.txt``."""

from __future__ import annotations

from importlib import resources

from barley.errors import BarleyError
from barley.features.model import FeatureModel, parse_model, read_model


def default_names() -> list[str]:
    """The systems that have a default feature model."""
    folder = resources.files("barley.features") / "defaults"
    return sorted(entry.name[:-4] for entry in folder.iterdir() if entry.name.endswith(".txt"))


def default_text(system_name: str) -> str:
    path = resources.files("barley.features") / "defaults" / f"{system_name}.txt"
    if not path.is_file():
        raise BarleyError(f"no default feature model for {system_name!r}",
                          fix="give one with --features FILE; defaults exist for: " + ", ".join(default_names()))
    return path.read_text(encoding="utf-8")


def default_model(system_name: str) -> FeatureModel:
    return parse_model(default_text(system_name), f"defaults/{system_name}.txt")


def load_model(path: str | None, system_name: str) -> FeatureModel:
    """The user's feature file if given, else the system's default."""
    return read_model(path) if path else default_model(system_name)


__all__ = ["FeatureModel", "parse_model", "read_model", "default_model", "default_text", "default_names", "load_model"]
