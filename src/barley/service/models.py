"""The models a service parses with, loaded once at start-up and named for requests.

A request names a model by the name given here (never by a path). Without ``--model``,
``barley serve`` serves the default model that ships with barley
(:func:`barley.shipped.default_model_path`).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field

from barley import model_file
from barley.conllu import Sentence
from barley.errors import BarleyError
from barley.kinds import kind_of
from barley.parser import model_from_files
from barley.pipeline import Pipeline, require_component
from barley.service.inputs import INPUT_FORMATS
from barley.shipped import default_model_path


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

    def parse(self, sentences: list[Sentence], nbest: int | None = None) -> list[Sentence]:
        """The analyses of ``sentences``; with ``nbest``, the k best of each (:meth:`Pipeline.parse`)."""
        with self.lock:
            if isinstance(self.parser, Pipeline):
                return list(self.parser.parse(sentences, nbest=nbest))
            Pipeline.of(self.parser).set_nbest(nbest)  # a parser without k-best refuses, in one line
            return list(self.parser.parse(sentences))

    def describe(self) -> dict:
        manifest = self.manifest
        pipeline = manifest.get("pipeline")
        parser = (manifest.get("components", {}).get("parse") if pipeline else manifest) or {}
        training = (pipeline or manifest).get("training", {})
        return {"name": self.name, "file": os.path.basename(self.path),
                "components": pipeline["components"] if pipeline else ["parse"],
                "parser": kind_of(parser).name if parser else None,
                "system": parser.get("system", {}).get("name"),
                "decoder": parser.get("graph", {}).get("decoder"),
                "labels": len(parser.get("labels", [])), "barley_version": manifest.get("barley_version"),
                "training": {"data": os.path.basename(str(training.get("data", ""))) or None,
                             **{key: training.get(key) for key in ("sentences", "words", "tags")}},
                "dev": manifest.get("dev")}


def model_specs(given: list[str] | None) -> list[tuple[str, str]]:
    """``(name, path)`` of each ``--model [NAME=]PATH`` (name: the file name without extension), or of the
    default model; a BarleyError if there is none."""
    if not given:
        given = [default_model_path()]
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
        self.models = {}
        for name, path in specs:
            manifest, arrays = model_file.read(path)  # once: the parser and its description
            model = model_from_files(manifest, arrays, path)
            require_component(model.names if isinstance(model, Pipeline) else ["parse"], "parse", path,
                              ", so barley serve cannot parse with it")
            self.models[name] = ServedModel(name, path, model, manifest)
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
