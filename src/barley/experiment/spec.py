"""What an experiment runs: treebanks, parsers and metrics, read from a TOML spec.

A spec (TOML; YAML too when PyYAML happens to be installed) looks like::

    name = "my-comparison"
    description = "arc-eager with and without pseudo-projective parsing"
    metrics = ["LAS", "UAS", "LEM", "NP_precision", "NP_recall"]   # optional
    exclude_punct = false          # optional: false (default), "upos" or "form"
    max_train_sentences = 2000     # optional: the first N training sentences only

    [[treebanks]]
    name = "Latin"
    train = "la_perseus-ud-train.conllu"   # paths relative to the spec file
    test = "la_perseus-ud-test.conllu"

    [[treebanks]]
    name = "Gothic (10-fold)"
    data = "got_proiel-ud-train.conllu"    # k-fold cross-validation on one file
    folds = 10

    [[parsers]]
    name = "P-E"
    system = "arc-eager"

    [[parsers]]
    name = "PP-E"
    system = "arc-eager"
    transforms = [{ name = "pseudo-projective", encoding = "head" }]

    [[parsers]]
    name = "MST"
    parser = "graph"
    decoder = "mst"

Transforms are tables with the transform's ``name`` (see
:data:`barley.transforms.REGISTRY`) and its constructor's options (or just the
name as a string), applied to the training trees in the order given.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Literal, NoReturn, cast

from barley import options as declared
from barley.errors import BarleyError, InputError
from barley.features import RICH, rich_model
from barley.decoders.options import DecoderOptions
from barley.kinds import KINDS, get_kind
from barley.learners import LEARNERS
from barley.systems import get_system
from barley.transforms import REGISTRY as TRANSFORMS
from barley.transforms import transform_class

# metric -> (column header, +1 if higher is better, -1 if lower is better, 0 if neither)
METRICS: dict[str, tuple[str, int]] = {
    "LAS": ("LAS", 1), "UAS": ("UAS", 1), "LASu": ("LASu", 1), "LA": ("LA", 1),
    "UEM": ("UEM", 1), "LEM": ("LEM", 1),
    "NP_precision": ("NP P", 1), "NP_recall": ("NP R", 1), "NP_system": ("#NP", 0),
    "train_seconds": ("train s", -1), "parse_seconds": ("parse s", -1), "words_per_second": ("words/s", 1),
}
DEFAULT_METRICS = ("LAS", "UAS", "LA", "LEM", "NP_precision", "NP_recall", "NP_system",
                   "train_seconds", "parse_seconds", "words_per_second")
PUNCT_SETTINGS = (False, "upos", "form")


@dataclass(frozen=True)
class Treebank:
    """Either ``train`` and ``test`` files (``dev`` optional), or one ``data`` file split in ``folds``."""

    name: str
    train: str | None = None
    test: str | None = None
    dev: str | None = None
    data: str | None = None
    folds: int | None = None

    @property
    def cross_validated(self) -> bool:
        return self.data is not None

    @property
    def training_file(self) -> str:
        """The file the parsers learn from (the whole set under cross-validation)."""
        return cast(str, self.data if self.cross_validated else self.train)

    def describe(self) -> str:
        if self.cross_validated:
            return f"{self.folds}-fold cross-validation on {os.path.basename(cast(str, self.data))}"
        return f"train {os.path.basename(cast(str, self.train))}, test {os.path.basename(cast(str, self.test))}"


@dataclass(frozen=True)
class ParserSpec:
    """One parser of the comparison: its kind (:mod:`barley.kinds`) and the options of
    :func:`barley.kinds.train` that the kind takes. The fields are the options that more than one
    kind shares or that the report reads; any other option of the kind (e.g. a biaffine parser's
    ``lstm_hidden``) is kept in ``options``. None: the kind's own default."""

    name: str
    parser: str = "transition"
    system: str | None = None
    """None: the kind's own default (arc-eager for ``transition``, arc-hybrid for ``neural-transition``)."""
    learner: str = "linear"
    split: str = "default"
    features: str | None = None
    transforms: tuple[dict, ...] = ()
    outside_class: str = "nearest"
    decoder: str | None = None
    order: int | None = None
    npa_threshold: float | None = None
    epochs: int | None = None
    """Training epochs (graph and biaffine parsers, transition parsers with the perceptron)."""
    oracle: str | None = None
    """``static`` or ``dynamic`` (training by exploration); None: the kind's default."""
    parse_beam: int | None = None
    """The beam's width the test set is parsed with (transition parsers, ``barley parse --beam``); None:
    the width the parser was trained at (``beam``, global training), else greedy. Not a training
    option: two parsers that differ in it alone train the same model (the spec's seed)."""
    options: tuple[tuple[str, object], ...] = ()
    """The kind's other options, as sorted (name, value) pairs."""

    @property
    def kind(self):
        return get_kind(self.parser)

    def takes(self, option: str) -> bool:
        return option in self.kind.options

    @property
    def transition_system(self) -> str | None:
        """The transition system this parser runs, if its kind has one (for the oracle statistics)."""
        if not self.takes("system"):
            return None
        return self.system or self.kind.default("system")

    def settings(self) -> dict:
        """The fields this parser's kind takes, with their values (None left out), then ``options``."""
        from dataclasses import fields

        shared = {f.name: getattr(self, f.name) for f in fields(self)
                  if f.name not in ("name", "parser", "transforms", "options") and self.takes(f.name)}
        return {**{name: value for name, value in shared.items() if value is not None}, **dict(self.options)}

    def train_options(self) -> dict:
        """The options of :func:`barley.kinds.train` that this parser's kind takes, where
        the spec sets them (a field left at its default leaves the kind's own default)."""
        from dataclasses import fields

        defaults = {f.name: f.default for f in fields(self)}
        return {name: value for name, value in self.settings().items() if value != defaults.get(name)}

    def describe(self) -> str:
        """A short account of the parser for the report: its kind and its settings."""
        named = {"system": self.transition_system} if self.takes("system") else {}  # even the kind's default
        settings = ", ".join(f"{name.replace('_', ' ')} {value}" for name, value in {**named, **self.settings()}.items())
        settings += f", parse beam {self.parse_beam}" if self.parse_beam is not None else ""
        what = self.parser + (f": {settings}" if settings else "")
        for transform in self.transforms:
            options = ", ".join(f"{key} {value}" for key, value in transform.items() if key != "name")
            what += f" + {transform['name']}" + (f" ({options})" if options else "")
        return what


@dataclass(frozen=True)
class Spec:
    name: str
    treebanks: tuple[Treebank, ...]
    parsers: tuple[ParserSpec, ...]
    description: str = ""
    metrics: tuple[str, ...] = DEFAULT_METRICS
    exclude_punct: Literal[False] | str = False
    max_train_sentences: int | None = None
    seed: int = 1
    notes: tuple[str, ...] = field(default=())

    def with_options(self, *, learner: str | None = None, epochs: int | None = None,
                     max_train_sentences: int | None = None, folds: int | None = None) -> Spec:
        """The spec with command-line overrides: ``learner`` for the parsers that have one, ``epochs``
        for the parsers trained in epochs (graph and biaffine parsers, and transition parsers whose
        learner, after the ``learner`` override, is the perceptron),
        ``folds`` for cross-validated treebanks."""
        parsers = tuple(replace(p, learner=learner) if learner and p.takes("learner") else p for p in self.parsers)
        parsers = tuple(replace(p, epochs=epochs) if epochs and p.takes("epochs") and (
            not p.takes("learner") or p.learner == "perceptron") else p for p in parsers)
        treebanks = tuple(replace(t, folds=folds) if folds and t.cross_validated else t for t in self.treebanks)
        if learner:
            _check_choice(learner, LEARNERS, "learner")
        for treebank in treebanks:
            if treebank.cross_validated:
                _check_folds(treebank.folds, treebank.name)
        return replace(self, parsers=parsers, treebanks=treebanks,
                       max_train_sentences=max_train_sentences or self.max_train_sentences)

    def to_json(self) -> dict:
        return asdict(self)


def load(path: str | os.PathLike) -> Spec:
    """Read a spec file (``.toml``, or ``.yaml``/``.yml`` if PyYAML is installed)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot read the spec: {error.strerror}", path=str(path)) from None
    except UnicodeDecodeError as error:
        raise InputError(f"the spec is not UTF-8 text ({error.reason} at byte {error.start})", path=str(path),
                         fix="save the spec as UTF-8") from None
    if path.suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise InputError("YAML specs need PyYAML", path=str(path),
                             fix="write the spec in TOML, or pip install pyyaml") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as error:
            raise InputError(f"bad YAML: {error}", path=str(path)) from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise InputError(f"bad TOML: {error}", path=str(path)) from None
    if not isinstance(data, dict):
        raise InputError("the spec must be a table of settings", path=str(path))
    data.setdefault("name", path.stem)
    return from_dict(data, base=path.parent, source=str(path))


def from_dict(data: dict, base: str | os.PathLike = ".", source: str = "<spec>") -> Spec:
    """Check a spec given as plain data; relative paths are taken from ``base``."""
    def fail(what: str, fix: str | None = None) -> NoReturn:
        raise InputError(what, path=source, fix=fix)

    known = {"name", "description", "treebanks", "parsers", "metrics", "exclude_punct",
             "max_train_sentences", "seed", "notes"}
    _no_unknown(data, known, "the spec", fail)
    name = data.get("name")
    if not isinstance(name, str) or not name or "/" in name:
        fail("the spec needs a name (a string without '/')", fix='e.g. name = "arc-eager-vs-swap"')
    treebanks = tuple(_treebank(entry, Path(base), fail) for entry in _tables(data, "treebanks", fail))
    parsers = tuple(_parser(entry, Path(base), fail) for entry in _tables(data, "parsers", fail))
    for kind, items in (("treebank", treebanks), ("parser", parsers)):
        names = [item.name for item in items]
        if len(set(names)) != len(names):
            fail(f"two {kind}s have the same name", fix=f"give every {kind} its own name")
    for key in ("metrics", "notes"):
        if key in data and not (isinstance(data[key], list) and all(isinstance(v, str) for v in data[key])):
            fail(f"{key} must be a list of strings", fix=f'e.g. {key} = ["..."]')
    if not isinstance(data.get("seed", 1), int):
        fail("seed must be a whole number", fix="e.g. seed = 1")
    metrics = tuple(data.get("metrics", DEFAULT_METRICS))
    for metric in metrics:
        if metric not in METRICS:
            fail(f"unknown metric {metric!r}", fix="choose from " + ", ".join(METRICS))
    exclude = data.get("exclude_punct", False)
    if exclude not in PUNCT_SETTINGS:
        fail(f"exclude_punct must be false, \"upos\" or \"form\", not {exclude!r}")
    limit = data.get("max_train_sentences")
    if limit is not None and (not isinstance(limit, int) or limit < 1):
        fail("max_train_sentences must be a positive number")
    return Spec(name=name, treebanks=treebanks, parsers=parsers, description=str(data.get("description", "")),
                metrics=metrics, exclude_punct=exclude, max_train_sentences=limit, seed=int(data.get("seed", 1)),
                notes=tuple(data.get("notes", ())))


def _tables(data: dict, key: str, fail: Callable[..., NoReturn]) -> list[dict]:
    entries = data.get(key)
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        fail(f"the spec needs at least one [[{key}]] table")
    return entries


def _no_unknown(entry: dict, known: set[str], where: str, fail: Callable[..., NoReturn]) -> None:
    unknown = sorted(set(entry) - known)
    if unknown:
        fail(f"unknown setting {unknown[0]!r} in {where}", fix="known: " + ", ".join(sorted(known)))


def _treebank(entry: dict, base: Path, fail: Callable[..., NoReturn]) -> Treebank:
    _no_unknown(entry, {"name", "train", "test", "dev", "data", "folds"}, "a treebank", fail)
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        fail("every treebank needs a name")

    def existing(key: str) -> str | None:
        if entry.get(key) is None:
            return None
        if not isinstance(entry[key], str):
            fail(f"treebank {name!r}: {key} must be a file name (a string)")
        path = (base / entry[key]).resolve()
        if not path.is_file():
            fail(f"treebank {name!r}: {key} file {path} does not exist")
        return str(path)

    paths = {key: existing(key) for key in ("train", "test", "dev", "data")}
    if paths["data"]:
        if paths["train"] or paths["test"]:
            fail(f"treebank {name!r} gives both data (cross-validation) and train/test files",
                 fix="give either data and folds, or train and test")
        folds = entry.get("folds", 10)
        _check_folds(folds, name)
        return Treebank(name, dev=paths["dev"], data=paths["data"], folds=folds)
    if not paths["train"] or not paths["test"]:
        fail(f"treebank {name!r} needs train and test files (or data and folds)")
    if "folds" in entry:
        fail(f"treebank {name!r}: folds needs a data file", fix="use data = ... for cross-validation")
    return Treebank(name, train=paths["train"], test=paths["test"], dev=paths["dev"])


def _check_folds(folds, name: str) -> None:
    if not isinstance(folds, int) or isinstance(folds, bool) or folds < 2:
        raise BarleyError(f"treebank {name!r}: folds must be a number >= 2, not {folds!r}")


def _parser(entry: dict, base: Path, fail: Callable[..., NoReturn]) -> ParserSpec:
    name = entry.get("name")
    if not isinstance(name, str) or not name or "/" in name:
        fail("every parser needs a name (a string without '/')")
    kind_name = entry.get("parser", ParserSpec.parser)
    if not isinstance(kind_name, str) or kind_name not in KINDS:
        fail(f"parser {name!r}: unknown parser kind {kind_name!r}", fix="choose from " + ", ".join(KINDS))
    kind = get_kind(kind_name)
    for key, value in entry.items():
        if key in ("name", "parser", "transforms"):
            continue
        if key == "parse_beam":
            if "beam" not in kind.options:
                fail(f"parser {name!r}: a {kind_name} parser searches with no beam", fix="leave parse_beam out")
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                fail(f"parser {name!r}: parse_beam must be a whole number of at least 1, not {value!r}")
            continue
        option = declared.BY_NAME.get(key)
        if option is None or not any(taker.startswith("parser:") for taker in option.takers):
            fail(f"unknown setting {key!r} in parser {name!r}",
                 fix="known for a " + kind_name + " parser: " + ", ".join(sorted(kind.options)))
        if key not in kind.options:
            fail(f"parser {name!r}: a {kind_name} parser takes no option {key!r}; {declared.who_takes(key)}",
                 fix="leave it out, or choose the kind that takes it; a " + kind_name + " parser takes: "
                     + ", ".join(sorted(kind.options)))
        declared.check_value(option, value, f"parser {name!r}: ")
    if "learner_options" in entry:
        declared.check_learner_options(entry.get("learner", ParserSpec.learner), entry["learner_options"],
                                      f"parser {name!r}: ")
    shared = set(ParserSpec.__dataclass_fields__) - {"options"}
    options = {key: value for key, value in entry.items() if key in shared}
    options["options"] = tuple(sorted((key, value) for key, value in entry.items() if key not in shared))
    if not isinstance(entry.get("transforms", []), list):
        fail(f"parser {name!r}: transforms must be a list", fix='e.g. transforms = ["pseudo-projective"]')
    options["transforms"] = tuple(_transform(t, name, fail) for t in entry.get("transforms", ()))
    if entry.get("features") == RICH:
        options["features"] = RICH  # barley's rich model of the system: checked with the system below
    elif entry.get("features"):
        features = (base / entry["features"]).resolve()
        if not features.is_file():
            fail(f"parser {name!r}: feature file {features} does not exist")
        options["features"] = str(features)
    spec = ParserSpec(**options)
    # values checked before any training, so that a spec fails at once rather than after hours of runs
    if spec.takes("system"):
        get_system(cast(str, spec.transition_system))
        if spec.features == RICH:
            try:
                rich_model(cast(str, spec.transition_system))
            except BarleyError as error:
                fail(f"parser {name!r}: {error.what}", fix=error.fix)
    decoding = {option: getattr(spec, option) for option in ("decoder", "order", "npa_threshold")
                if spec.takes(option) and getattr(spec, option) is not None}
    if decoding:
        DecoderOptions(**decoding).check()
    return spec


def _transform(entry, parser: str, fail: Callable[..., NoReturn]) -> dict:
    options = {"name": entry} if isinstance(entry, str) else dict(entry) if isinstance(entry, dict) else None
    if options is None or options.get("name") not in TRANSFORMS:
        fail(f"parser {parser!r}: unknown transform {entry!r}", fix="choose from " + ", ".join(TRANSFORMS))
    make_transform(options)  # fails early on bad options
    return options


def make_transform(options: dict):
    """A new, unfitted transform from its spec table (``name`` plus constructor options)."""
    settings = {key: value for key, value in options.items() if key != "name"}
    try:
        return transform_class(options["name"])(**settings)
    except TypeError as error:
        raise BarleyError(f"bad options for transform {options['name']!r}: {error}") from None


def _check_choice(value, choices, what: str) -> None:
    if value not in choices:
        raise BarleyError(f"unknown {what} {value!r}", fix="choose from " + ", ".join(map(str, choices)))


def fingerprint(*parts) -> str:
    """A stable text key of what a run depends on (to tell a finished run from a stale one)."""
    return json.dumps(parts, sort_keys=True, default=str)
