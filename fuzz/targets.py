"""Fuzz targets: barley's readers of user files, each fed arbitrary bytes.

The property, for every target: the input is read, or reading fails with
barley's own error (:class:`~barley.errors.BarleyError`, printed by the CLI as one
line). Any other exception is a finding; so is an input that takes longer than
the fuzzer's ``-timeout`` (a hang). Used by ``fuzz/run.py`` (atheris, coverage-
guided) and by ``tests/test_fuzz.py`` (hypothesis, and the regression inputs in
``fuzz/regressions/<target>/``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import signal
import tempfile
import time
import warnings
import zipfile

from barley.errors import BarleyError, BarleyWarning

SCRATCH = tempfile.mkdtemp(prefix="barley-fuzz-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
"""Inputs that barley reads from a path are written here (in memory where the system allows)."""


def _scratch(name: str, data: bytes) -> str:
    path = os.path.join(SCRATCH, name)
    with open(path, "wb") as handle:
        handle.write(data)
    return path


def conllu(data: bytes) -> None:
    """The CoNLL-U reader; what it reads must be written back and read again to the same text."""
    from barley.conllu import read, read_bytes

    sentences = list(read_bytes(data, "fuzz.conllu"))
    text = "".join(sentence.to_text() for sentence in sentences).encode("utf-8")
    again = list(read(_scratch("again.conllu", text)))
    assert [s.to_text() for s in again] == [s.to_text() for s in sentences], "a written file reads differently"


def model(data: bytes) -> None:
    """The model-file loader: the first byte chooses raw bytes, or a real model whose manifest is the rest."""
    from barley.pipeline import Pipeline

    if data[:1] == b"M" and SEED_MODEL:  # structured: a valid zip around a fuzzed manifest
        buffer = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(SEED_MODEL)) as seed, zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("manifest.json", data[1:])
            archive.writestr("arrays.npz", seed.read("arrays.npz"))
        data = buffer.getvalue()
    Pipeline.load(_scratch("fuzz.barley", data))


def features(data: bytes) -> None:
    """The feature-model parser, then the extractor it compiles to for the system the first byte chooses."""
    from barley.features import parse_model
    from barley.features.extract import Extractor
    from barley.systems import get_system, system_names

    names = system_names()
    system = get_system(names[data[0] % len(names)]) if data else get_system("arc-eager")
    text = data[1:].decode("utf-8", errors="surrogateescape")
    Extractor(parse_model(text, "fuzz.txt"), system)


def spec(data: bytes) -> None:
    """The experiment spec reader (TOML)."""
    from barley.experiment.spec import load

    load(_scratch("fuzz.toml", data))


MEMORY_BYTES = 4 << 30
"""Address space of a long structure-aware run (:func:`limit_memory`): no case may need more."""


def limit_memory() -> None:
    """Limit this process's address space to :data:`MEMORY_BYTES` (RLIMIT_AS): a case needing more is a finding."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


@contextlib.contextmanager
def bounded(seconds: int):
    """Raise TimeoutError (a finding: a hang) if the block takes longer than ``seconds`` (main thread only)."""
    def hang(signum, frame):
        raise TimeoutError(f"a hang: no result in {seconds} s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


TARGETS = {"conllu": conllu, "model": model, "features": features, "spec": spec}
SEED_MODEL: bytes | None = None


def check(target: str, data: bytes) -> None:
    """Run one input through a target; barley's own errors (and warnings) are the expected failures."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BarleyWarning)
        try:
            TARGETS[target](data)
        except BarleyError as error:
            assert "\n" not in str(error), f"a multi-line error: {error!r}"


TOY = "".join(
    f"# sent_id = {n}\n1\tthe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n2\t{noun}\t{noun}\tNOUN\tNN\tNumber=Sing\t3\tnsubj\t_\t_\n"
    f"3\t{verb}\t{verb}\tVERB\tVB\t_\t0\troot\t_\tSpaceAfter=No\n4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_\n\n"
    for n, (noun, verb) in enumerate([("dog", "runs"), ("cat", "sleeps"), ("bird", "sings")] * 4))


def seeds(target: str) -> dict[str, bytes]:
    """A few valid inputs to start from (built here, so nothing generated is kept in the repository)."""
    from importlib import resources

    global SEED_MODEL
    if target == "conllu":
        return {"toy.conllu": TOY.encode(), "crlf-bom.conllu": ("\ufeff" + TOY.replace("\n", "\r\n")).encode(),
                "multiword.conllu": "1-2\tdel\t_\t_\t_\t_\t_\t_\t_\t_\n1\tde\tde\tADP\t_\t_\t2\tcase\t_\t_\n"
                                    "2\tel\tel\tDET\t_\t_\t0\troot\t_\t_\n2.1\tx\t_\t_\t_\t_\t_\t_\t2:dep\t_\n\n".encode()}
    if target == "features":
        from barley.systems import system_names

        folder = resources.files("barley.features") / "defaults"
        return {f"{name}.txt": bytes([number]) + (folder / f"{name}.txt").read_bytes()
                for number, name in enumerate(system_names()) if (folder / f"{name}.txt").is_file()}
    if target == "spec":
        treebank = _scratch("train.conllu", TOY.encode())
        return {"spec.toml": (f'name = "fuzz"\n[[treebanks]]\nname = "toy"\ntrain = "{treebank}"\n'
                              f'test = "{treebank}"\n[[parsers]]\nname = "eager"\nsystem = "arc-eager"\n'
                              f'transforms = ["pseudo-projective"]\n').encode()}
    if target == "model":
        from barley.kinds import train

        path = os.path.join(SCRATCH, "seed.barley")
        train(_scratch("train.conllu", TOY.encode()), system="arc-eager", log=lambda message: None).save(path)
        with open(path, "rb") as handle:
            SEED_MODEL = handle.read()
        with zipfile.ZipFile(path) as archive:
            manifest = archive.read("manifest.json")
        return {"model.barley": SEED_MODEL, "manifest": b"M" + manifest}
    raise KeyError(target)


def long_run(fuzz, description: str, examples: int, unit: str) -> None:
    """The command line of a hypothesis fuzzer run for long (``--examples N --seed S``): ``fuzz(examples, seed)``
    under :func:`limit_memory`, then how many of each outcome it counted, in how long."""
    options = argparse.ArgumentParser(description=description)
    options.add_argument("--examples", type=int, default=examples)
    options.add_argument("--seed", type=int, default=1)
    args = options.parse_args()
    limit_memory()
    started = time.perf_counter()
    counts = fuzz(args.examples, args.seed)
    print(f"{args.examples} {unit} in {time.perf_counter() - started:.0f} s, seed {args.seed}: "
          + ", ".join(f"{outcome} {count}" for outcome, count in sorted(counts.items())))
