"""One cell of the scoreboard: a treebank trained by a recipe, then scored from raw text and with gold tokenization.

A cell is done by barley's own commands, each one a process of its own as a user would run
it, their command lines recorded (``barley`` standing for ``python -m barley``):

1. ``barley train FOLDER --recipe R --seed S -m model.barley``: the recipe's components and
   options (:mod:`barley.recipes`), its dev file if the folder has one (else the recipe holds
   out the end of the training file); the recipe's threads, and as many BLAS threads;
2. ``barley parse --input text test.txt -m model.barley -o raw.conllu``: the test set's text
   as :mod:`barley.tokenizer.treebank_text` rebuilds it (paragraphs as the treebank marks them,
   separated by blank lines, as :meth:`barley.pipeline.Pipeline.evaluate_text` reads it);
   the whole process is timed, pinned to one core (``taskset -c C``) with one BLAS thread,
   as ``docs/results/pipeline.md`` measures words/s;
3. ``barley parse --retag TEST -m model.barley -o gold-tok.conllu``: the gold tokens, every
   tag predicted;
4. ``barley evaluate --conll18 --json TEST raw.conllu``, and the same for ``gold-tok.conllu``.

The cell's folder ``OUT/<treebank>/<recipe>/`` holds the model, the outputs, a log per
command and ``cell.json``, written last and atomically: a cell whose ``cell.json`` has the
same key (the SHA-256 of the treebank's files, the recipe's options, the seed, barley's
version) is done, and a rerun skips it. ``train.json``, written once the model is, carries
the training's own key: a cell stopped after its training is not trained again.
``train-started.json``, written before the training starts, carries the same key: a cell
stopped while its neural training ran resumes it from the checkpoint the training keeps
(``barley train --resume``), and a checkpoint of other settings is removed instead.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from barley import __version__
from barley.atomic import atomic_output
from barley.conllu import read
from barley.errors import BarleyError
from barley.models.archive import interrupted as manifest_interrupted, read_manifest
from barley.pipeline.options import CHECKPOINT_SUFFIX
from barley.experiment.runner import read_json, slug, write_json
from barley.recipes import RECIPES, Recipe
from barley.scoreboard.folders import Treebank
from barley.tokenizer.treebank_text import raw_text
from barley.treebank_folder import count_words

CELL, TRAIN_RECORD, TRAIN_STARTED, MODEL = "cell.json", "train.json", "train-started.json", "model.barley"
TEXT, RAW, GOLD_TOKENIZATION = "test.txt", "raw.conllu", "gold-tok.conllu"
BLAS_THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def recipe_threads(recipe: Recipe) -> int:
    """The threads a training by ``recipe`` uses: the largest ``threads`` option of its components, else one."""
    return max((int(values["threads"]) for values in recipe.options.values() if "threads" in values), default=1)


@dataclass(frozen=True)
class Cell:
    treebank: Treebank
    recipe: str
    directory: str
    seed: int
    train_key: str
    """What the training depends on (:func:`key`): the training and dev files, the recipe, the seed and
    barley's version."""
    key: str
    """``train_key`` and the test file: what the whole cell depends on."""

    @property
    def title(self) -> str:
        return f"{self.treebank.name} / {self.recipe}"

    @property
    def threads(self) -> int:
        return recipe_threads(RECIPES[self.recipe])


def _sha256(path: str) -> str:
    from barley.runtime.shards import sha256_file

    return sha256_file(path)


def key(**parts) -> str:
    """A key of what a result depends on, as text (stored as the JSON object it is, compared as this text)."""
    return json.dumps(parts, sort_keys=True)


def _same(stored, wanted: str) -> bool:
    return isinstance(stored, dict) and key(**stored) == wanted


def plan(treebanks: list[Treebank], recipes: list[str], out: str | os.PathLike, seed: int) -> list[Cell]:
    """The cells of every treebank by every recipe (treebank by treebank), with their folders (absolute, for
    workers started elsewhere) and keys."""
    cells = []
    for treebank in treebanks:
        train, test = _sha256(treebank.train), _sha256(treebank.test)
        dev = None if treebank.dev is None else _sha256(treebank.dev)
        words = count_words(treebank.train)  # the recipe's budget of epochs follows them
        for recipe in recipes:
            trained = key(treebank=treebank.name, train_sha256=train, dev_sha256=dev, recipe=recipe,
                          recipe_arguments=RECIPES[recipe].for_words(words).arguments(), seed=seed,
                          barley_version=__version__)
            cells.append(Cell(treebank, recipe, os.path.join(os.path.abspath(out), slug(treebank.name), slug(recipe)),
                              seed, trained, key(**json.loads(trained), test_sha256=test)))
    return cells


def finished(cell: Cell) -> dict | None:
    """The cell's record if it is done with these data and settings, else None."""
    record = read_json(Path(cell.directory) / CELL)
    return record if record and _same(record.get("key"), cell.key) else None


# --- doing a cell ----------------------------------------------------------------------------

class CommandFailed(BarleyError):
    """A command of a cell exited with an error: the command, its status and the last line it wrote."""


_RUNNING: set[subprocess.Popen] = set()
_RUNNING_LOCK = threading.Lock()
_STOPPED = threading.Event()


def allow_commands() -> None:
    """Let cells run their commands (again, after :func:`stop_running`)."""
    _STOPPED.clear()


def stop_running() -> None:
    """Stop the commands that cells of this process are running (SIGTERM: each removes its partial outputs),
    and start no other."""
    with _RUNNING_LOCK:
        _STOPPED.set()
        for process in _RUNNING:
            process.terminate()


def _barley(arguments: list[str], log: Path, *, threads: int, cores: tuple[int, ...] | None,
            capture: bool = False) -> tuple[str, float, str]:
    """Run ``barley ARGUMENTS`` (its stderr, and its stdout unless ``capture``, into ``log``) with ``threads``
    BLAS threads, on ``cores`` if given (see :func:`pinned`); its command line, its wall seconds and what it
    printed (``capture``)."""
    pin = ["taskset", "-c", ",".join(map(str, cores))] if cores else []
    environment = dict(os.environ, **{variable: str(threads) for variable in BLAS_THREADS})
    command = shlex.join([*pin, "barley", *arguments])
    with open(log, "wb") as handle:
        handle.write(f"$ {command}\n".encode())
        handle.flush()
        started = time.perf_counter()
        with _RUNNING_LOCK:
            if _STOPPED.is_set():
                raise CommandFailed(f"`{command}` not started: the scoreboard is stopping")
            process = subprocess.Popen([*pin, sys.executable, "-m", "barley", *arguments], env=environment,
                                       stdout=subprocess.PIPE if capture else handle, stderr=handle,
                                       stdin=subprocess.DEVNULL)
            _RUNNING.add(process)
        try:
            printed, _ = process.communicate()
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(process)
        seconds = time.perf_counter() - started
    if process.returncode != 0:
        lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        raise CommandFailed(f"`{command}` exited with status {process.returncode}: {lines[-1] if lines else ''}",
                            path=str(log))
    return command, seconds, (printed or b"").decode("utf-8")


def pinned(cores: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """The cores a command can be pinned to: ``cores``, where ``taskset`` (util-linux) is there to pin it."""
    return cores if cores and shutil.which("taskset") else None


def _timing_core(cores: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """The one core the timed parse runs on: the first of the cell's, else the first this process may use;
    None where a process cannot be pinned (no ``taskset``: not Linux)."""
    if not cores:
        try:
            cores = (min(os.sched_getaffinity(0)),)
        except AttributeError:
            return None
    return pinned(cores[:1])


def _cpu() -> str:
    """The CPU's model, as /proc/cpuinfo names it (where there is one)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def _trained(cell: Cell) -> dict | None:
    record = read_json(Path(cell.directory) / TRAIN_RECORD)
    model = Path(cell.directory) / MODEL
    if record and _same(record.get("key"), cell.train_key) and model.is_file() and not interrupted(model):
        return record
    return None


def interrupted(model: Path) -> bool:
    """Whether ``model`` is what a training stopped by a signal kept (its best epoch so far: ``barley train`` writes
    it and exits as after Ctrl-C, its manifest saying ``interrupted``), or cannot be read: not the recipe's
    model, so no cell is scored from it (a rerun resumes the training from its checkpoint)."""
    try:
        return manifest_interrupted(read_manifest(str(model)))
    except BarleyError:
        return True


def _resumed(cell: Cell, model: str) -> list[str]:
    """``["--resume"]`` where an earlier training of this cell's settings left its checkpoint, else ``[]`` (a
    checkpoint of other settings removed); then the start of this training recorded."""
    started, checkpoint = Path(cell.directory) / TRAIN_STARTED, Path(model + CHECKPOINT_SUFFIX)
    record = read_json(started)
    resume = checkpoint.is_file() and isinstance(record, dict) and _same(record.get("key"), cell.train_key)
    if not resume:
        checkpoint.unlink(missing_ok=True)
        write_json(started, {"key": json.loads(cell.train_key)})
    return ["--resume"] if resume else []


def _evaluation(printed: str) -> tuple[dict[str, float | None], int]:
    """The F1 of each CoNLL 2018 metric and the system's words, from ``barley evaluate --conll18 --json``."""
    scored = json.loads(printed)["conll18"]
    return ({metric: values["f1"] for metric, values in scored.items() if isinstance(values, dict)},
            scored["Words"]["system"])


def execute(cell: Cell, cores: tuple[int, ...] | None = None) -> dict:
    """Do the cell (its training only if not done already) and write its record, last; return the record, with
    ``trained_before`` added: whether an earlier run had trained the model. ``cores``: the cores its commands
    run on (None: those of this process), the timed parse on the first."""
    directory = Path(cell.directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / CELL).unlink(missing_ok=True)
    model, threads, cores = str(directory / MODEL), cell.threads, pinned(cores)
    training = _trained(cell)
    trained_before = training is not None
    if training is None:
        (directory / TRAIN_RECORD).unlink(missing_ok=True)
        command, seconds, _ = _barley(["train", cell.treebank.folder, "--recipe", cell.recipe, "--seed", str(cell.seed),
                                       "-m", model, *_resumed(cell, model)], directory / "train.log", threads=threads,
                                      cores=cores)  # an interrupted training exits 130 or 143: CommandFailed
        training = {"key": json.loads(cell.train_key), "command": command, "seconds": round(seconds, 1),
                    "threads": threads, "cores": list(cores) if cores else None}
        write_json(directory / TRAIN_RECORD, training)
    text = raw_text(read(cell.treebank.test))
    with atomic_output(directory / TEXT) as handle:
        handle.write(text.encode("utf-8"))
    core = _timing_core(cores)
    parse_raw, parse_seconds, _ = _barley(["parse", "--input", "text", str(directory / TEXT), "-m", model,
                                           "-o", str(directory / RAW)], directory / "parse-raw.log",
                                          threads=1, cores=core)
    parse_gold, _, _ = _barley(["parse", "--retag", "--input", "conllu", cell.treebank.test, "-m", model,
                                "-o", str(directory / GOLD_TOKENIZATION)], directory / "parse-gold-tok.log",
                               threads=1, cores=cores)
    scores, words, commands = {}, {}, [training["command"], parse_raw, parse_gold]
    for given, output in (("raw", RAW), ("gold_tokenization", GOLD_TOKENIZATION)):
        command, _, printed = _barley(["evaluate", "--conll18", "--json", cell.treebank.test,
                                       str(directory / output)], directory / f"evaluate-{given}.log", threads=1,
                                      cores=cores, capture=True)
        scores[given], words[given] = _evaluation(printed)
        commands.append(command)
    # The speed is computed from the seconds as recorded, so that the record is consistent with itself.
    parse_seconds = max(round(parse_seconds, 3), 0.001)
    record = {
        "key": json.loads(cell.key), "treebank": cell.treebank.name, "recipe": cell.recipe,
        "recipe_arguments": json.loads(cell.key)["recipe_arguments"], "seed": cell.seed,
        "barley_version": __version__,
        "files": {"train": cell.treebank.train, "dev": cell.treebank.dev, "test": cell.treebank.test},
        "train": {name: value for name, value in training.items() if name != "key"},
        "parse": {"command": parse_raw, "seconds": parse_seconds, "words": words["raw"],
                  "words_per_second": round(words["raw"] / parse_seconds), "core": core[0] if core else None,
                  "blas_threads": 1, "cpu": _cpu()},
        "scores": scores, "commands": commands,
    }
    write_json(directory / CELL, record)
    return {**record, "trained_before": trained_before}
