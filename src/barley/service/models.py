"""The models a service parses with, loaded once at start-up and named for requests.

A request names a model by the name given here (never by a path). Today
``barley serve`` needs ``--model``; when barley ships a default model,
:func:`default_model_path` returns its path and ``--model`` becomes optional.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

from barley.conllu import Sentence
from barley.errors import BarleyError
from barley.model_file import read_manifest
from barley.parser import load
from barley.service.inputs import INPUT_FORMATS


def default_model_path() -> str | None:
    """The model served when none is given: none ships yet."""
    return None


@dataclass
class ServedModel:
    """One loaded model. Parsing goes through a lock: a parser keeps running counts (and the
    transition parser batch state), so one request at a time parses with it; the server
    still accepts and reads other requests meanwhile."""

    name: str
    path: str
    parser: object
    manifest: dict
    lock: threading.Lock = field(default_factory=threading.Lock)

    def parse(self, sentences: list[Sentence]) -> list[Sentence]:
        with self.lock:
            return list(self.parser.parse(sentences))

    def describe(self) -> dict:
        manifest, training = self.manifest, self.manifest.get("training", {})
        graph = manifest.get("parser") == "graph"
        return {"name": self.name, "file": os.path.basename(self.path),
                "parser": "graph" if graph else "transition",
                "system": None if graph else manifest.get("system", {}).get("name"),
                "decoder": manifest.get("graph", {}).get("decoder") if graph else None,
                "labels": len(manifest.get("labels", [])), "barley_version": manifest.get("barley_version"),
                "training": {"data": os.path.basename(str(training.get("data", ""))) or None,
                             **{key: training.get(key) for key in ("sentences", "words", "tags")}},
                "dev": manifest.get("dev")}


def model_specs(given: list[str] | None) -> list[tuple[str, str]]:
    """``(name, path)`` of each ``--model [NAME=]PATH`` (name: the file name without extension), or of the
    default model; a BarleyError if there is none."""
    if not given:
        default = default_model_path()
        if default is None:
            raise BarleyError("no model to serve: barley has no default model yet",
                              fix="give one with --model FILE, a model trained by barley train")
        given = [default]
    specs = []
    for spec in given:
        name, equals, path = spec.partition("=")
        if not equals or os.path.exists(spec):
            name, path = os.path.splitext(os.path.basename(spec))[0], spec
        if name in dict(specs):
            raise BarleyError(f"two models are called {name!r}", fix="name them with --model NAME=PATH")
        specs.append((name, path))
    return specs


class ModelRegistry:
    """The served models by name; the first is the default."""

    def __init__(self, specs: list[tuple[str, str]]):
        self.models = {name: ServedModel(name, path, load(path), read_manifest(path)) for name, path in specs}
        self.default = specs[0][0]

    def get(self, name: str | None) -> ServedModel:
        if not name:
            return self.models[self.default]
        model = self.models.get(name)
        if model is None:
            raise BarleyError(f"no model called {name!r} is served",
                              fix="choose one of: " + ", ".join(self.models) + " (GET /models lists them)")
        return model

    def describe(self) -> dict:
        return {"default_model": self.default, "input_formats": list(INPUT_FORMATS),
                "models": [dict(model.describe(), default=name == self.default) for name, model in self.models.items()]}
