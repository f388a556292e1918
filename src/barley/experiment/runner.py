"""Run an experiment: train, parse and score every (treebank, parser) pair, resumable and in parallel.

Everything is stored under one output folder::

    OUT/spec.json                                   the spec that was run
    OUT/treebanks/<treebank>/stats.json             tree statistics of the training data
    OUT/treebanks/<treebank>/oracle-<system>.json   the oracle's transitions per sentence
    OUT/runs/<treebank>/<parser>/model.barley       the trained parser
                                 output.conllu      its output on the test data
                                 correct.npy        per-word LAS correctness (for McNemar's test)
                                 score.json         scores and times; written last
                                 train.log          the training log
    OUT/runs/<treebank>/<parser>/fold-<i>/...       the same per fold under cross-validation;
                                                    the folder above then holds the folds'
                                                    outputs concatenated and their score

A run is finished when its ``score.json`` exists and records the same settings
(the "key": treebank files, parser options, fold, limits, barley version); any
other run is (re)done from scratch, so an interrupted run is never trusted.
Cross-validation follows Björkelund & Kuhn (2012, §4): the data are cut into k
contiguous folds, each parsed by a parser trained on the other k-1, and the
outputs of all folds, concatenated, are scored against the whole set
(micro-average).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from itertools import islice
from pathlib import Path
from typing import cast

import numpy as np

from barley import __version__, conllu

from barley.analysis import treebank as analyze

from barley.analysis import oracles as oracle_stats
from barley.atomic import atomic_output
from barley.errors import BarleyError
from barley.evaluation.attachment import evaluate
from barley.experiment.spec import ParserSpec, Spec, Treebank, fingerprint, make_transform
from barley.transition.parser import Parser
from barley.kinds import evaluate_parser, train
from barley.systems import get_system

SCORE = "score.json"
MODEL = "model.barley"
OUTPUT = "output.conllu"
CORRECT = "correct.npy"
TRAIN_LOG = "train.log"


def slug(name: str) -> str:
    """A folder name for a treebank or parser name."""
    return re.sub(r"[^\w.+-]+", "_", name).strip("_") or "_"


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write a file atomically (:mod:`barley.atomic`)."""
    with atomic_output(path) as handle:
        handle.write(data)


def write_json(path: str | os.PathLike, data) -> None:
    write_bytes(path, json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"))


def read_json(path: str | os.PathLike) -> dict | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def finished(directory: str | os.PathLike, key: str, files: tuple[str, ...] = ()) -> bool:
    """Whether ``directory`` holds a finished run with this key (and the given files)."""
    score = read_json(Path(directory) / SCORE)
    if not score:
        return False
    return score.get("key") == key and all((Path(directory) / f).is_file() for f in files)


# --- the data of a run ---------------------------------------------------------------------

def training_sentences(treebank: Treebank, limit: int | None) -> list[conllu.Sentence]:
    """The sentences the parsers learn from (the whole set under cross-validation), the first ``limit``."""
    return list(islice(conllu.read(treebank.training_file), limit))


def fold_bounds(total: int, folds: int, fold: int) -> tuple[int, int]:
    """Sentences [start, end) of fold ``fold`` (0-based) of ``folds`` contiguous folds."""
    return total * fold // folds, total * (fold + 1) // folds


def _data_key(treebank: Treebank) -> dict:
    files = [treebank.train, treebank.test, treebank.dev, treebank.data]
    return {path: os.path.getsize(path) for path in files if path}


# --- one run: train, parse, score -------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    """Train one parser and parse one test set (a whole test file or one fold)."""

    treebank: Treebank
    parser: ParserSpec
    directory: str
    key: str
    fold: int | None = None  # 0-based, under cross-validation
    max_train_sentences: int | None = None
    seed: int = 1
    exclude_punct: bool | str = False

    @property
    def title(self) -> str:
        fold = f" fold {self.fold + 1}/{self.treebank.folds}" if self.fold is not None else ""
        return f"{self.treebank.name} / {self.parser.name}{fold}"

    def data(self) -> tuple[list[conllu.Sentence], list[conllu.Sentence] | str]:
        """Training sentences, and the gold test data (a path, or the fold's sentences)."""
        if self.fold is None:
            return training_sentences(self.treebank, self.max_train_sentences), cast(str, self.treebank.test)
        everything = training_sentences(self.treebank, self.max_train_sentences)
        start, end = fold_bounds(len(everything),
                                 self.treebank.folds,  # type: ignore[arg-type]  # cross-validated: has folds
                                 self.fold)
        return everything[:start] + everything[end:], everything[start:end]


def train_parser(spec: ParserSpec, sentences: list[conllu.Sentence], *, seed: int, log: Callable[[str], None],
                 dev: str | None = None):
    """A parser trained as ``spec`` says (:func:`barley.kinds.train`, which fits the transforms);
    ``dev`` goes to training for the kinds that use it there (early stopping)."""
    transforms = [make_transform(options) for options in spec.transforms]
    return train(sentences, parser=spec.parser, seed=seed, transforms=transforms, record_time=True, log=log,
                 dev=dev if spec.kind.takes_dev else None, **spec.train_options())


def _warm_up() -> None:
    """Import scikit-learn before the clock starts: its first import takes seconds on a busy
    machine and is not training time (the learners import it lazily)."""
    for module in ("sklearn.svm", "sklearn.linear_model", "sklearn.multiclass"):
        importlib.import_module(module)


def execute(run: Run) -> dict:
    """Do one run and store model, output, per-word correctness and score (last) in its folder."""
    _warm_up()
    directory = Path(run.directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name in (SCORE, MODEL, OUTPUT, CORRECT):  # a run that did not finish is redone from scratch
        (directory / name).unlink(missing_ok=True)
    train_data, gold = run.data()
    with open(directory / TRAIN_LOG, "w", encoding="utf-8") as log_file:
        def log(message: str) -> None:
            print(message, file=log_file, flush=True)

        started = time.perf_counter()
        dev = run.treebank.dev if run.fold is None else None
        parser = train_parser(run.parser, train_data, seed=run.seed, log=log, dev=dev)
        train_seconds = time.perf_counter() - started
        if dev and not run.parser.kind.takes_dev:  # scored apart: parsing dev is not training time
            parser.manifest["dev"] = evaluate_parser(parser, dev)
            log(f"dev: LAS {parser.manifest['dev']['LAS']:.2f}")
    parser.save(str(directory / MODEL))
    test = list(conllu.read(gold)) if isinstance(gold, str) else [s.copy() for s in gold]
    if run.parser.parse_beam is not None:
        parser.set_beam(run.parser.parse_beam)
    started = time.perf_counter()
    parsed = list(parser.parse(test))
    parse_seconds = time.perf_counter() - started
    conllu.write(parsed, directory / OUTPUT)
    return _store_score(directory, run.key, gold, run.exclude_punct, {
        "train_seconds": train_seconds, "parse_seconds": parse_seconds,
        "train_sentences": len(train_data), "train_words": sum(len(s) for s in train_data),
        "parse_transitions": parser.stats.transitions if isinstance(parser, Parser) else None,
    })


def _store_score(directory: Path, key: str, gold, exclude_punct, facts: dict) -> dict:
    """Score the stored output against ``gold`` as ``barley evaluate`` does; write correct.npy and score.json."""
    evaluation = evaluate(gold, directory / OUTPUT, exclude_punct=exclude_punct)
    np.save(directory / CORRECT, evaluation.correct, allow_pickle=False)
    scores = evaluation.as_dict()
    words = scores["tokens"]
    score = {"key": key, "barley_version": __version__, **facts, "words": words, "sentences": scores["sentences"],
             "words_per_second": words / facts["parse_seconds"] if facts["parse_seconds"] else None,
             "scores": scores}
    write_json(directory / SCORE, score)
    return score


def merge_folds(directory: str | os.PathLike, key: str, fold_directories: list[str], gold: list[conllu.Sentence],
                exclude_punct) -> dict:
    """Concatenate the folds' outputs and score them against the whole set (micro-average)."""
    directory = Path(directory)
    (directory / SCORE).unlink(missing_ok=True)
    outputs = [sentence for fold in fold_directories for sentence in conllu.read(Path(fold) / OUTPUT)]
    conllu.write(outputs, directory / OUTPUT)
    fold_scores = [cast(dict, read_json(Path(fold) / SCORE)) for fold in fold_directories]
    facts: dict = {name: sum(score[name] for score in fold_scores) for name in ("train_seconds", "parse_seconds")}
    transitions: list = [score.get("parse_transitions") for score in fold_scores]
    facts["parse_transitions"] = None if None in transitions else sum(transitions)
    facts["folds"] = len(fold_directories)
    return _store_score(directory, key, gold, exclude_punct, facts)


# --- treebank statistics ----------------------------------------------------------------------

@dataclass(frozen=True)
class TreebankStudy:
    """Tree statistics and the oracles' transition counts on one treebank's training data."""

    treebank: Treebank
    directory: str
    key: str
    systems: tuple[str, ...]
    max_train_sentences: int | None = None

    @property
    def title(self) -> str:
        return f"{self.treebank.name}: treebank statistics"


def study(task: TreebankStudy) -> dict:
    """Write stats.json (Nivre 2008 Table 1; Gómez-Rodríguez & Nivre 2010 Table 1) and one
    oracle-<system>.json per transition system (Nivre 2009 §4.1, Fig. 5)."""
    directory = Path(task.directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / SCORE).unlink(missing_ok=True)
    sentences = training_sentences(task.treebank, task.max_train_sentences)
    stats = analyze.analyze(sentences)
    write_json(directory / "stats.json", stats)
    trees = oracle_stats.encode(sentences)
    for name in task.systems:
        system = get_system(name, single_root=trees.single_rooted)
        measured = oracle_stats.measure(system, trees)
        write_json(directory / f"oracle-{slug(name)}.json",
                   {**measured.to_json(), "lengths": measured.lengths.tolist(), "counts": measured.counts.tolist()})
    summary = {"key": task.key, "NPT": stats["NPT"], "NPS": stats["NPS"]}
    write_json(directory / SCORE, summary)
    return summary


# --- planning and running -----------------------------------------------------------------------

@dataclass(frozen=True)
class Merge:
    """The folds of one cross-validated (treebank, parser), to concatenate and score once all are done."""

    directory: str
    key: str
    folds: tuple[Run, ...]
    treebank: Treebank


@dataclass
class Plan:
    """Every task of an experiment, and which of them are already finished."""

    studies: list[TreebankStudy] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    merges: list[Merge] = field(default_factory=list)

    def pending(self) -> list:
        tasks = [s for s in self.studies if not finished(s.directory, s.key, ("stats.json",))]
        return tasks + [r for r in self.runs if not finished(r.directory, r.key, (MODEL, OUTPUT, CORRECT))]


def result_directory(out: str | os.PathLike, treebank: Treebank, parser: ParserSpec) -> Path:
    return Path(out) / "runs" / slug(treebank.name) / slug(parser.name)


def treebank_directory(out: str | os.PathLike, treebank: Treebank) -> Path:
    return Path(out) / "treebanks" / slug(treebank.name)


def plan(spec: Spec, out: str | os.PathLike) -> Plan:
    """The tasks of ``spec`` with their folders under ``out``."""
    the_plan = Plan()
    systems = tuple(dict.fromkeys(p.transition_system for p in spec.parsers if p.transition_system))
    limit = spec.max_train_sentences
    for treebank in spec.treebanks:
        data = _data_key(treebank)
        the_plan.studies.append(TreebankStudy(treebank, str(treebank_directory(out, treebank)),
                                              fingerprint(asdict(treebank), data, systems, limit, __version__),
                                              systems, limit))
        for parser in spec.parsers:
            directory = result_directory(out, treebank, parser)
            common = (asdict(treebank), data, asdict(parser), limit, spec.seed, spec.exclude_punct, __version__)
            if not treebank.cross_validated:
                the_plan.runs.append(Run(treebank, parser, str(directory), fingerprint(*common), None,
                                         limit, spec.seed, spec.exclude_punct))
                continue
            folds = tuple(Run(treebank, parser, str(directory / f"fold-{fold + 1}"), fingerprint(*common, fold), fold,
                              limit, spec.seed, spec.exclude_punct)
                          for fold in range(treebank.folds))  # type: ignore[arg-type]  # cross-validated: has folds
            the_plan.runs.extend(folds)
            the_plan.merges.append(Merge(str(directory), fingerprint(*common, "merged"), folds, treebank))
    return the_plan


def _check_names(spec: Spec) -> None:
    for kind, names in (("treebank", [t.name for t in spec.treebanks]), ("parser", [p.name for p in spec.parsers])):
        folders = [slug(name) for name in names]
        if len(set(folders)) != len(folders):
            raise BarleyError(f"two {kind} names give the same folder name: " + ", ".join(names),
                              fix=f"rename the {kind}s (letters, digits, '.', '+', '-' are kept)")


def _progress(message: str) -> None:
    print(f"barley experiment: {message}", file=sys.stderr, flush=True)


def merge_finished_folds(spec: Spec, the_plan: Plan, progress: Callable[[str], None] = _progress,
                         after: Run | None = None) -> None:
    """Merge every cross-validated (treebank, parser) whose folds are all finished and that is not merged
    yet (only the one ``after`` belongs to, if given)."""
    for merge in the_plan.merges:
        if after is not None and after not in merge.folds:
            continue
        if finished(merge.directory, merge.key, (OUTPUT, CORRECT)):
            continue
        if all(finished(run.directory, run.key, (OUTPUT,)) for run in merge.folds):
            gold = training_sentences(merge.treebank, spec.max_train_sentences)
            score = merge_folds(merge.directory, merge.key, [run.directory for run in merge.folds], gold,
                                spec.exclude_punct)
            progress(f"{merge.treebank.name} / {merge.folds[0].parser.name}: {len(merge.folds)} folds merged, "
                     f"LAS {score['scores']['LAS']:.2f}")


def _do(task) -> dict:
    """Worker entry point: one task of either kind."""
    return study(task) if isinstance(task, TreebankStudy) else execute(task)


def run_experiment(spec: Spec, out: str | os.PathLike, jobs: int = 1,
                   progress: Callable[[str], None] = _progress) -> list[str]:
    """Run every unfinished task of ``spec`` under ``out``; the failures (titles and reasons)."""
    _check_names(spec)
    Path(out).mkdir(parents=True, exist_ok=True)
    write_json(Path(out) / "spec.json", spec.to_json())
    the_plan = plan(spec, out)
    tasks = the_plan.pending()
    total = len(the_plan.studies) + len(the_plan.runs)
    progress(f"{total} tasks ({len(the_plan.runs)} parser runs), {total - len(tasks)} already finished, "
             f"{len(tasks)} to do with {jobs} process{'es' if jobs > 1 else ''}; results in {out}")
    failures: list[str] = []
    done = 0
    merge_finished_folds(spec, the_plan, progress)

    def report(task, outcome: dict | None, error: BaseException | None) -> None:
        nonlocal done
        done += 1
        if error is not None:
            reason = str(error) if isinstance(error, BarleyError) else f"{type(error).__name__}: {error}"
            failures.append(f"{task.title}: {reason}")
            progress(f"[{done}/{len(tasks)}] {task.title}: FAILED: {reason}")
        elif isinstance(task, TreebankStudy):
            assert outcome is not None
            progress(f"[{done}/{len(tasks)}] {task.title}: NPT {outcome['NPT']:.2f}%, NPS {outcome['NPS']:.2f}%")
        else:
            assert outcome is not None
            scores = outcome["scores"]
            progress(f"[{done}/{len(tasks)}] {task.title}: LAS {scores['LAS']:.2f}, UAS {scores['UAS']:.2f} "
                     f"(train {outcome['train_seconds']:.1f} s, parse {outcome['parse_seconds']:.1f} s)")
            if task.fold is not None:
                merge_finished_folds(spec, the_plan, progress, after=task)

    if jobs <= 1:
        for task in tasks:
            progress(f"starting {task.title}")
            try:
                outcome = _do(task)
            except Exception as error:  # one failed run must not lose the others; reported at the end
                report(task, None, error)
            else:
                report(task, outcome, None)
    elif tasks:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            running = {pool.submit(_do, task): task for task in tasks}
            while running:
                completed, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in completed:
                    task = running.pop(future)
                    exception = future.exception()
                    report(task, None if exception else future.result(), exception)
    return failures
