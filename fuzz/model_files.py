"""A structure-aware fuzzer of the model loader: real models of every kind, rewritten, loaded and used.

The byte fuzzers (``targets.py``) feed the loader arbitrary bytes, which rarely get past the
zip and the JSON. This one starts from real tiny models of every kind (:data:`FIXTURES`:
transition parsers with every learner and the data split, graph parsers of both orders,
the biaffine and the neural transition parser, a tokenize + tag + parse pipeline, a neural
tokenizer + joint pipeline), trained here on the toy language of ``tests/toy_language.py``, and rewrites what they hold through
barley's own writer (:func:`barley.models.archive.write`): array values (special values,
indices out of range, NaN), dtypes (converted, or relabelled: the same bytes read as
another type), shapes and lengths, arrays dropped, added or swapped; manifest entries
given another type or value, dropped or added; and ``.npy`` headers declaring another
shape, up to 10^12 elements, over the same data. Each case is loaded and parses the toy
sentences (and text, for a pipeline), by the compiled loop or the reference path.

The property: every case ends in a parse whose output reads back as CoNLL-U, or in
barley's one-line error (:class:`~barley.errors.BarleyError`). A traceback, a signal, a
hang (:data:`CASE_SECONDS`) or memory beyond :data:`MEMORY_BYTES` (each case runs in a
worker process under that ``RLIMIT_AS``) is a finding, printed with the case's number:

    python fuzz/model_files.py --cases 100000              # the long run (one core); prints its rate as it goes
    python fuzz/model_files.py --cases 300 --seed 7        # a short run (tests/test_fuzz.py runs one)
    python fuzz/model_files.py --replay 1234 --seed 7      # one case, in this process, with its traceback

The fixtures are trained once into ``--models`` (default ``/tmp/barley-fuzz/models``) and
trained again when one no longer loads and parses untouched.
"""

from __future__ import annotations

import argparse
import copy
import functools
import io
import json
import os
import random
import resource
import select
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
import zipfile
from pathlib import Path
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the toy language the tests train on

MEMORY_BYTES = 2 << 30
"""Address space of a worker (RLIMIT_AS): no case may need more."""
CASE_SECONDS = 60
"""A case not finished by then is a hang."""
MODELS = Path("/tmp/barley-fuzz/models")
TOY_SENTENCES = 60
QUIET = {"log": lambda message: None}
NEURAL = dict(form_dim=8, lemma_dim=4, upos_dim=4, xpos_dim=4, feats_dim=4, char_dim=4, char_hidden=4,
              lstm_hidden=8, lstm_layers=1, epochs=1, batch_words=200)


def _transition(**options):
    return lambda data: _train(data, parser="transition", **options)


def _train(data: str, **options):
    from barley.kinds import train

    return train(data, record_time=False, **QUIET, **options)


def _graph(**options):
    from barley.graph.model import GraphOptions

    return lambda data: _train(data, parser="graph", graph=GraphOptions(dims=1 << 12, label_rows=1 << 8), epochs=2, **options)


def _pipeline(data: str):
    from barley.pipeline import Pipeline

    return Pipeline.train(data, ["tokenize", "tag", "parse"], jackknife=None, record_time=False,
                          options={"tokenize": {"bits": 12}, "tag": {"split_threshold": 20},
                                   "parse": {"system": "arc-hybrid", "learner": "perceptron"}}, **QUIET)


def _neural_pipeline(data: str):
    """A neural tokenizer and the joint network, the shape of the default English model, tiny."""
    from barley.pipeline import Pipeline

    return Pipeline.train(data, ["tokenize", "joint"], jackknife=None, record_time=False,
                          options={"tokenize": {"tokenizer": "neural", "char_dim": 4, "class_dim": 2, "chunk_dim": 4,
                                                "hidden": 8, "window": 32, "context": 4, "epochs": 1},
                                   "joint": dict(form_dim=8, char_dim=4, char_hidden=4, lstm_hidden=8, lstm_layers=1,
                                                 arc_mlp=8, label_mlp=8, epochs=1, batch_words=200)}, **QUIET)


def _calibrated(train):
    """``train``, then ``barley calibrate`` on its own treebank: a temperature and a head map in the manifest."""
    def build(data: str):
        from barley.commands.calibrate import calibrate
        from barley.conllu import read
        from barley.pipeline import Pipeline

        model = train(data)
        pipeline = Pipeline.of(model)
        pipeline.calibrated(calibrate(pipeline, list(read(data)), data, min_map_words=1))
        return model
    return build


def _pseudo_projective():
    from barley.transforms.pseudo_projective import PseudoProjective

    return [PseudoProjective("head")]


FIXTURES = {
    "arc-eager-linear": _transition(system="arc-eager"),
    "swap-lazy-perceptron": _transition(system="swap-lazy", learner="perceptron", epochs=2),
    "2-planar-perceptron-static": _transition(system="2-planar", learner="perceptron", oracle="static", epochs=2),
    "covington-linear-split": _transition(system="covington-nonprojective", split="UPOS(Input[0])",
                                          split_threshold=20),
    "arc-standard-svm-split": _transition(system="arc-standard", learner="svm-poly2", split_threshold=20),
    "graph-first-order-mst": _graph(decoder="mst"),
    "graph-second-order-npa": _graph(order=2, decoder="eisner+npa"),
    "biaffine": lambda data: _train(data, parser="biaffine", decoder="eisner", label_mlp=8, arc_mlp=8, **NEURAL),
    "neural-transition": _calibrated(lambda data: _train(data, parser="neural-transition", system="arc-eager",
                                                         hidden=8, **NEURAL)),
    "pipeline": _pipeline,
    "pipeline-neural": _neural_pipeline,
}
"""Tiny models of every kind and component: name → function(treebank path) → model."""


def fixtures(folder: Path) -> dict[str, Path]:
    """The fixture models in ``folder``, trained where missing or no longer loading untouched."""
    import toy_language

    folder.mkdir(parents=True, exist_ok=True)
    treebank = folder / "toy.conllu"
    if not treebank.exists():
        toy_language.treebank(treebank, TOY_SENTENCES, seed=1)
    paths = {}
    for name, train in FIXTURES.items():
        path = folder / f"{name}.barley"
        if not path.exists() or _outcome(path, random.Random(0)) != "parsed":
            train(str(treebank)).save(str(path))
            assert _outcome(path, random.Random(0)) == "parsed", f"the fixture {name} does not parse"
        paths[name] = path
    return paths


# --- one case ------------------------------------------------------------------------------

def run_case(models: dict[str, Path], seed: int, number: int, scratch: str) -> tuple[str, str]:
    """Case ``number`` of run ``seed``: a fixture rewritten, loaded and used. ``(outcome, what)``:
    ``parsed`` or ``refused`` (barley's one-line error), and what was rewritten; anything else raises."""
    from barley.models import archive

    rng = random.Random(f"{seed}:{number}")
    name = rng.choice(sorted(models))
    text, original = _fixture(models[name])
    manifest, arrays = json.loads(text), {key: value.copy() for key, value in original.items()}
    done = [name]
    header = None
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        kind = rng.random()
        if kind < 0.45 and arrays:
            done.append(_mutate_array(arrays, rng))
        elif kind < 0.9:
            done.append(_mutate_manifest(manifest, rng))
        elif arrays:
            header = _header_lie(arrays, rng)
            done.append(f"header of {header[0]} declares {header[1]}")
    path = os.path.join(scratch, "case.barley")
    try:
        archive.write(path, manifest, arrays)
    except (ValueError, TypeError) as error:  # what the writer refuses (e.g. a manifest entry JSON cannot hold)
        return "unwritable", f"{'; '.join(done)} ({error})"
    if header is not None:
        patch_header(path, *header)
    return _outcome(path, rng), "; ".join(done)


@functools.cache
def _fixture(path: Path) -> tuple[str, dict[str, np.ndarray]]:
    """A fixture's manifest (as JSON text, parsed anew for each case) and arrays (in memory)."""
    from barley.models import archive

    manifest, arrays = archive.read(path)
    return json.dumps(manifest), {key: np.array(value) for key, value in arrays.items()}


def _outcome(path: Path | str, rng: random.Random) -> str:
    """Describe the model at ``path`` (``barley info``), load it and parse with it: ``parsed`` (its
    output reads back as CoNLL-U), or ``refused`` (barley's one-line error); anything else raises."""
    from barley.commands.info import describe
    from barley.confidence import Confidence
    from barley.conllu import read_bytes
    from barley.errors import BarleyError, BarleyWarning
    from barley.models.archive import read_manifest
    from barley.models.check import loading
    from barley.pipeline import Pipeline

    try:
        with loading(str(path), "barley"):
            describe(read_manifest(path), features=True)
    except BarleyError as error:
        assert "\n" not in str(error), f"a multi-line error: {error!r}"

    sentences = list(read_bytes(_toy_text(), "toy.conllu"))
    with warnings.catch_warnings(), mock.patch.dict(os.environ, {"BARLEY_NO_FAST": rng.choice(("", "1"))}):
        warnings.simplefilter("ignore", BarleyWarning)
        try:
            pipeline = Pipeline.load(str(path))
            if rng.random() < 0.5:
                pipeline.with_confidence(Confidence())
            parsed = list(pipeline.parse(sentences, retag=rng.random() < 0.5))
            if "tokenize" in pipeline:
                parsed += pipeline.parse("The dog sees a cat. Every bird walked!\n\nA fox liked the owls.")
        except BarleyError as error:
            assert "\n" not in str(error), f"a multi-line error: {error!r}"
            return "refused"
    text = "".join(sentence.to_text() for sentence in parsed)
    again = list(read_bytes(text.encode("utf-8"), "output.conllu"))
    assert "".join(sentence.to_text() for sentence in again) == text, "the output reads back differently"
    return "parsed"


_TOY: bytes | None = None


def _toy_text() -> bytes:
    global _TOY
    if _TOY is None:
        import toy_language

        with tempfile.TemporaryDirectory() as folder:
            toy = Path(folder) / "toy.conllu"
            toy_language.treebank(toy, 8, seed=2)
            _TOY = toy.read_bytes()
    return _TOY


DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint64", "float16", "float32", "float64", "bool",
          "complex64")


def _special_values(array: np.ndarray) -> list:
    size = max(array.size, 1)
    if array.dtype.kind == "f":
        return [np.nan, np.inf, -np.inf, 0.0, -1.0, 1e30, -1e30]
    if array.dtype.kind == "b":
        return [True, False]
    values = [0, 1, -1, size - 1, size, size + 1, 2 * size, 30000, 10 ** 9, -10 ** 6, 2 ** 31 - 1, -2 ** 31,
              10 ** 12, int(array.max(initial=0)) + 1, int(array.min(initial=0)) - 1]
    if array.dtype.kind in "iu":
        info = np.iinfo(array.dtype)
        values = [v for v in values if info.min <= v <= info.max] + [info.max, info.min]
    return values


def _mutate_array(arrays: dict[str, np.ndarray], rng: random.Random) -> str:
    """Rewrite one array (or the set of arrays); says what it did."""
    name = rng.choice(sorted(arrays))
    array = arrays[name]
    operation = rng.choice(("value", "value", "value", "fill", "truncate", "extend", "empty", "reshape",
                            "retype", "relabel", "shuffle", "drop", "add", "swap", "offset"))
    if operation in ("value", "fill", "offset") and array.size == 0:
        operation = "extend"
    if operation == "value":
        value = rng.choice(_special_values(array))
        flat = array.reshape(-1).copy()
        for _ in range(rng.choice((1, 1, 2, 5))):
            flat[rng.randrange(flat.size)] = value
        arrays[name] = flat.reshape(array.shape)
        return f"{name}: an entry set to {value}"
    if operation == "fill":
        value = rng.choice(_special_values(array))
        arrays[name] = np.full_like(array, value)
        return f"{name}: every entry {value}"
    if operation == "offset":
        shift = rng.choice((1, -1, array.size, 1 << 20))
        with np.errstate(all="ignore"):  # ints wrap around, as a bit flip in a file would leave them
            if array.dtype.kind in "iu":
                arrays[name] = (array.astype(np.int64) + shift).astype(array.dtype)
            else:  # floats, complex numbers (an earlier rewrite's), bools
                arrays[name] = ~array if array.dtype.kind == "b" else (array + shift).astype(array.dtype)
        return f"{name}: shifted by {shift}"
    if operation == "truncate":
        keep = rng.randrange(len(array)) if array.ndim and len(array) else 0
        arrays[name] = array[:keep] if array.ndim else array.reshape(1)[:0]
        return f"{name}: cut to {keep} rows"
    if operation == "extend":
        extra = rng.choice((1, 2, 7))
        if array.ndim and len(array):
            arrays[name] = np.concatenate([array] + [array[-1:]] * extra)
        else:
            arrays[name] = np.zeros(extra, dtype=array.dtype)
        return f"{name}: {extra} rows more"
    if operation == "empty":
        arrays[name] = array.reshape(-1)[:0]
        return f"{name}: emptied"
    if operation == "reshape":
        shapes = {"flat": (-1,), "a column": (-1, 1), "a row": (1, -1)}
        how = rng.choice(sorted(shapes) + ["transposed", "a scalar"])
        if how == "transposed":
            arrays[name] = np.ascontiguousarray(array.T if array.ndim > 1 else array[None])
        elif how == "a scalar":
            arrays[name] = array.reshape(-1)[:1].reshape(()) if array.size else np.zeros((), array.dtype)
        else:
            arrays[name] = array.reshape(shapes[how])
        return f"{name}: {how}, shape {arrays[name].shape}"
    if operation == "retype":
        dtype = rng.choice(DTYPES)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arrays[name] = array.astype(dtype)
        return f"{name}: converted to {dtype}"
    if operation == "relabel":
        same = [d for d in DTYPES if np.dtype(d).itemsize == array.dtype.itemsize and np.dtype(d) != array.dtype]
        dtype = rng.choice(same or ["uint8"])
        arrays[name] = np.ascontiguousarray(array).view(dtype) if same else np.frombuffer(array.tobytes(), np.uint8)
        return f"{name}: its bytes read as {dtype}"
    if operation == "shuffle":
        flat = array.reshape(-1).copy()
        np.random.default_rng(rng.randrange(1 << 30)).shuffle(flat)
        arrays[name] = flat.reshape(array.shape)
        return f"{name}: shuffled"
    if operation == "drop":
        del arrays[name]
        return f"{name}: dropped"
    if operation == "add":
        new = rng.choice((name + "x", name.rsplit(".", 1)[0] + ".extra", "extra", name.replace(".", "..", 1)))
        arrays[new] = array.copy()
        return f"{new}: added"
    other = rng.choice(sorted(arrays))
    arrays[name], arrays[other] = arrays[other], array
    return f"{name} and {other}: swapped"


OTHER_VALUES = (None, True, False, 0, 1, -1, 2, 7, 10 ** 6, 10 ** 10, 10 ** 12, 2 ** 63, -10 ** 9, 10 ** 30, 0.5,
                -2.5, 1e308, "", "x", "a\tb", "line\nbreak", "arc-eager", "linear", "split", "UPOS(Input[0])",
                "mst", "eisner", "root", [], {}, [1, 2], ["a", "b"], [["a", "b", "c"]], {"a": 1}, {"name": "x"})


def _paths(value, path: tuple = ()) -> list[tuple]:
    """The paths (keys and indices) of every entry below ``value``."""
    found = [path] if path else []
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, path + (key,))
    elif isinstance(value, list):
        for index, child in enumerate(value[:50]):  # long lists (vocabularies): their head is enough
            found += _paths(child, path + (index,))
    return found


def _mutate_manifest(manifest: dict, rng: random.Random) -> str:
    """Rewrite one manifest entry; says what it did."""
    paths = [p for p in _paths(manifest) if p[0] not in ("format", "format_version")]
    path = rng.choice(paths)
    parent = manifest
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    value = parent[key]
    operation = rng.choice(("other", "other", "near", "near", "drop", "add", "copy"))
    if operation == "drop":
        del parent[key]
        return f"manifest {'/'.join(map(str, path))}: dropped"
    if operation == "add":
        target = value if isinstance(value, (dict, list)) else parent
        extra = copy.deepcopy(rng.choice(OTHER_VALUES))  # a fresh one: a later case may change it
        if isinstance(target, dict):
            target[rng.choice(("fuzz", "n_classes", "name", "extra"))] = extra
        else:
            target.append(extra)
        return f"manifest {'/'.join(map(str, path))}: an entry added ({extra!r})"
    if operation == "copy":
        new = rng.choice(paths)
        source = manifest
        for step in new:
            source = source[step]
        parent[key] = json.loads(json.dumps(source))
        return f"manifest {'/'.join(map(str, path))}: replaced by {'/'.join(map(str, new))}"
    if operation == "near" and isinstance(value, (int, float)) and not isinstance(value, bool):
        new = rng.choice((value + 1, value - 1, value * 2, -value, value * 1000, 0, value // 2 if isinstance(value, int)
                          else value / 2, 10 ** 12, 10 ** 10))
    elif operation == "near" and isinstance(value, str):
        new = rng.choice(("", value + "\t", value[:-1], value * 2, value.upper(), value + "|x", "?" + value))
    elif operation == "near" and isinstance(value, list) and value:
        new = rng.choice((value[:-1], value + value[-1:], value[::-1], value[1:], []))
    else:
        new = copy.deepcopy(rng.choice(OTHER_VALUES))
    parent[key] = new
    return f"manifest {'/'.join(map(str, path))}: {_short(value)} → {_short(new)}"


def _short(value) -> str:
    text = repr(value)
    return text if len(text) < 40 else text[:37] + "..."


def _header_lie(arrays: dict[str, np.ndarray], rng: random.Random) -> tuple[str, tuple[int, ...]]:
    """An array and the shape its ``.npy`` header will declare over its own data."""
    name = rng.choice(sorted(arrays))
    shape = arrays[name].shape
    declared = rng.choice(((10 ** 11,), (10 ** 12,), (10 ** 6, 10 ** 6), (2 ** 62,), (-1,), (-8, -1),
                           tuple(length + 1 for length in shape) or (2,), tuple(length * 1000 for length in shape)
                           or (1000,), shape[:-1] or (0,)))
    return name, declared


def patch_header(path: str, name: str, shape: tuple[int, ...]) -> None:
    """Rewrite the model file at ``path`` so that array ``name``'s ``.npy`` header declares ``shape``
    over the same data (what barley's writer never writes: the fuzzer and the regression tests)."""
    from barley.models import archive

    with zipfile.ZipFile(path) as zipped:
        manifest = zipped.read("manifest.json")
        npz = zipped.read("arrays.npz")
    members = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(npz)) as source, zipfile.ZipFile(members, "w") as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == f"{name}.npy":
                stream = io.BytesIO(data)
                np.lib.format.read_magic(stream)
                _, fortran, dtype = np.lib.format.read_array_header_1_0(stream)  # barley writes version 1.0
                header = io.BytesIO()
                np.lib.format.write_array_header_1_0(header, {"descr": np.lib.format.dtype_to_descr(dtype),
                                                              "fortran_order": fortran, "shape": shape})
                data = header.getvalue() + data[stream.tell():]
            target.writestr(info, data)
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr(archive._member("manifest.json"), manifest)
        zipped.writestr(archive._member("arrays.npz", zipfile.ZIP_STORED), members.getvalue())


# --- workers and the run ---------------------------------------------------------------------

def worker(folder: Path, seed: int) -> None:
    """Run the cases whose numbers arrive on stdin, one JSON line each on stdout, under
    :data:`MEMORY_BYTES` of address space."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    import torch

    torch.set_num_threads(1)
    warnings.simplefilter("ignore", RuntimeWarning)  # numpy's on the infinities of rewritten weights
    models = {path.stem: path for path in sorted(folder.glob("*.barley"))}
    for path in models.values():
        _fixture(path)
    print(json.dumps({"ready": True}), flush=True)
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as scratch:
        for line in sys.stdin:
            number = int(line)
            try:
                outcome, what = run_case(models, seed, number, scratch)
                report = {"number": number, "outcome": outcome, "what": what}
            except BaseException:  # a finding: everything but barley's own error
                report = {"number": number, "outcome": "finding", "what": traceback.format_exc()}
            print(json.dumps(report), flush=True)


STARTUP_SECONDS = 600
"""Time a worker may take to import barley and PyTorch and read the fixtures (on a busy machine)."""


class Worker:
    """One worker process (restarted after a death or a hang)."""

    def __init__(self, folder: Path, seed: int):
        self.process = subprocess.Popen([sys.executable, __file__, "--worker", "--models", str(folder),
                                         "--seed", str(seed)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        ready, _, _ = select.select([self.process.stdout], [], [], STARTUP_SECONDS)
        if not ready or not json.loads(self.process.stdout.readline() or "{}").get("ready"):
            self.process.kill()
            raise RuntimeError(f"the fuzzing worker did not start in {STARTUP_SECONDS} s")

    def run(self, number: int) -> dict:
        self.process.stdin.write(f"{number}\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], CASE_SECONDS)
        line = self.process.stdout.readline() if ready else ""
        if line:
            return json.loads(line)
        self.process.kill()
        status = self.process.wait()
        what = f"no answer in {CASE_SECONDS} s (a hang)" if not ready else f"the worker died (status {status})"
        return {"number": number, "outcome": "finding", "what": what, "dead": True}

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def _print(message: str) -> None:
    print(message, flush=True)


def run(cases: int, seed: int, folder: Path, first: int = 0, report_seconds: float = 30.0,
        log=_print) -> dict[str, int]:
    """Run ``cases`` cases (numbers ``first``…) in one worker; the counts of each outcome (findings
    are logged with their case numbers and what they were)."""
    fixtures(folder)
    counts: dict[str, int] = {}
    started = last = time.perf_counter()
    worker = Worker(folder, seed)
    try:
        for number in range(first, first + cases):
            report = worker.run(number)
            counts[report["outcome"]] = counts.get(report["outcome"], 0) + 1
            if report["outcome"] == "finding":
                log(f"FINDING in case {number} (seed {seed}; replay: python fuzz/model_files.py --replay {number} "
                    f"--seed {seed}):\n{report['what']}")
                if report.get("dead"):
                    worker = Worker(folder, seed)
            now = time.perf_counter()
            if now - last >= report_seconds:
                last = now
                done = number - first + 1
                log(f"{done} cases in {now - started:.0f} s ({done / (now - started):.1f} cases/s): "
                    + ", ".join(f"{outcome} {count}" for outcome, count in sorted(counts.items())))
    finally:
        worker.close()
    elapsed = time.perf_counter() - started
    log(f"{cases} cases in {elapsed:.0f} s ({cases / max(elapsed, 1e-9):.1f} cases/s), seed {seed}: "
        + ", ".join(f"{outcome} {count}" for outcome, count in sorted(counts.items())))
    return counts


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--cases", type=int, default=100_000)
    options.add_argument("--seed", type=int, default=1)
    options.add_argument("--first", type=int, default=0, help="number of the first case (to resume a run)")
    options.add_argument("--models", type=Path, default=MODELS, help="folder of the fixture models")
    options.add_argument("--replay", type=int, help="run this one case here, with its traceback")
    options.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.worker:
        worker(args.models, args.seed)
        return
    if args.replay is not None:
        models = fixtures(args.models)
        with tempfile.TemporaryDirectory() as scratch:
            print(run_case(models, args.seed, args.replay, scratch))
        return
    counts = run(args.cases, args.seed, args.models, args.first)
    sys.exit(1 if counts.get("finding") else 0)


if __name__ == "__main__":
    main()
