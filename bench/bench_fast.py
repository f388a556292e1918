"""Whole-process parsing speed, start-up and memory of `barley parse`, per transition system.

For each system: a linear model (trained here on the first --train-sentences sentences of
--train, or given with --model SYSTEM=PATH) parses --input (default: UD English-EWT train,
204,577 words, gold tags) as a whole `barley parse` process, with 1 and with 2 worker
processes (`--jobs 2`); a one-sentence file measures the start-up (interpreter, imports,
model loading, one parse). Printed per system and jobs:

  words/s whole   words / wall seconds of the whole process (start-up included)
  words/s net     words / (wall seconds - the one-sentence run's wall seconds)
  CPU words/s     words / CPU seconds (user + system, workers included): steadier than wall
                  time on a shared machine
  peak MB         the largest resident set of the process or of any of its workers
  1-sentence s    wall (and CPU) seconds of the one-sentence run: the latency of a single parse

Each run is repeated --repeat times and the fastest kept. Python bytecode caches are
written by a first run, as an installed package has them. The machine's load average is
printed: on a shared machine wall times vary, CPU times much less.

    python bench/bench_fast.py                                   # every system, about 2-4 minutes a system
    python bench/bench_fast.py --systems arc-eager --model arc-eager=ewt.barley
    python bench/bench_fast.py --systems arc-eager swap-lazy --words 50000 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from barley.conllu import read, write
from barley.systems import system_names

EWT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud" / "UD_English-EWT"
DEFAULT_TRAIN = EWT / "en_ewt-ud-train.conllu"


def run(command: list[str]) -> dict:
    """Wall and CPU seconds and peak resident MB of one process and the workers it waited for."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)  # usage covers its reaped workers too (Linux)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            sys.exit(f"bench_fast: {' '.join(command)} failed:\n{errors.read().decode('utf-8', 'replace')}")
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024}


def fastest(command: list[str], repeat: int) -> dict:
    runs = [run(command) for _ in range(repeat)]
    return {"wall_s": min(r["wall_s"] for r in runs), "cpu_s": min(r["cpu_s"] for r in runs),
            "peak_mb": max(r["peak_mb"] for r in runs)}


def barley(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "barley", *arguments]


def first_sentences(source: Path, target: Path, sentences: int = 0, words: int = 0) -> int:
    """Copy the first sentences of ``source`` (up to ``sentences`` or ``words``; 0 = all); return the words."""
    kept, count = [], 0
    for sentence in read(source):
        if (sentences and len(kept) >= sentences) or (words and count >= words):
            break
        kept.append(sentence)
        count += len(sentence)
    write(kept, target)
    return count


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--systems", nargs="+", default=system_names(), metavar="SYSTEM")
    options.add_argument("--model", action="append", default=[], metavar="SYSTEM=PATH",
                         help="use this model for SYSTEM instead of training one")
    options.add_argument("--train", type=Path, default=DEFAULT_TRAIN, help="treebank the models are trained on")
    options.add_argument("--train-sentences", type=int, default=2000,
                         help="train on this many sentences (small but real models; default 2000)")
    options.add_argument("--input", type=Path, default=DEFAULT_TRAIN, help="file to parse (default: EWT train)")
    options.add_argument("--words", type=int, default=0, help="parse only the first sentences up to N words")
    options.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="worker processes to try")
    options.add_argument("--repeat", type=int, default=1, help="runs of each measurement; the fastest is kept")
    options.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = options.parse_args()
    given = dict(entry.split("=", 1) for entry in args.model)
    if not args.input.exists():
        sys.exit(f"bench_fast: {args.input} not found (the shared treebanks); give --input and --model")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode cached
    with tempfile.TemporaryDirectory(prefix="barley-bench-fast-") as folder:
        folder = Path(folder)
        data, one = folder / "input.conllu", folder / "one.conllu"
        words = first_sentences(args.input, data, words=args.words)
        first_sentences(args.input, one, sentences=1)
        print(f"input: {args.input.name}, {words} words; load average {os.getloadavg()[0]:.2f} "
              f"({os.cpu_count()} cores)", flush=True)
        print(f"{'system':<24} {'jobs':>4} {'words/s whole':>13} {'words/s net':>11} {'CPU words/s':>11} "
              f"{'peak MB':>8} {'1-sentence s (CPU)':>19}", flush=True)
        results = []
        for system in args.systems:
            model = given.get(system)
            if model is None:
                model = str(folder / f"{system}.barley")
                train = folder / "train.conllu"
                if not train.exists():
                    first_sentences(args.train, train, sentences=args.train_sentences)
                run(barley("train", "--train", str(train), "--system", system, "--model", model, "--seed", "1"))
            run(barley("parse", "-q", "-m", model, str(one)))  # warm the caches (bytecode, the model file)
            latency = fastest(barley("parse", "-q", "-m", model, str(one)), max(args.repeat, 3))
            for jobs in args.jobs:
                whole = fastest(barley("parse", "-q", "-j", str(jobs), "-m", model, str(data),
                                       "-o", str(folder / "out.conllu")), args.repeat)
                net = max(whole["wall_s"] - latency["wall_s"], 1e-9)
                row = {"system": system, "jobs": jobs, "words": words,
                       "words_per_s_whole": round(words / whole["wall_s"]), "words_per_s_net": round(words / net),
                       "cpu_words_per_s": round(words / whole["cpu_s"]), "peak_mb": round(whole["peak_mb"]),
                       "one_sentence_s": round(latency["wall_s"], 3), "one_sentence_cpu_s": round(latency["cpu_s"], 3),
                       "one_sentence_peak_mb": round(latency["peak_mb"]), "load_average": os.getloadavg()[0]}
                results.append(row)
                print(f"{system:<24} {jobs:>4} {row['words_per_s_whole']:>13,} {row['words_per_s_net']:>11,} "
                      f"{row['cpu_words_per_s']:>11,} {row['peak_mb']:>8} "
                      f"{row['one_sentence_s']:>10.3f} ({row['one_sentence_cpu_s']:.3f})", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
