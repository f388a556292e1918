"""Time of `barley evaluate` and of the CoNLL 2018 metrics alone on one gold/system pair; `--jobs`.

Usage: python bench/bench_evaluate.py [GOLD [SYSTEM]] [--repeat R] [--jobs 1 2 ...]
Defaults: UD_English-EWT test (25,094 words) from ../shared/data/ud, scored against itself.
Prints wall and CPU seconds per run (best of R), reading both files included, and words per second;
with ``--jobs``, the whole report with each number of processes (CPU of the worker processes
included), its speed-up over one process, the load average before and after, and whether the
report is the same bytes. For a large input, e.g. UD_English-EWT train ten times (2M words):
``python bench/bench_evaluate.py ewt10.conllu ewt10-parsed.conllu --repeat 1 --jobs 1 2``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import time
from pathlib import Path

from barley.cli import main as barley_main
from barley.evaluation.conll18 import evaluate_conll18

UD = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"
EWT_TEST = UD / "UD_English-EWT" / "en_ewt-ud-test.conllu"


def cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (the worker processes of --jobs)."""
    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def best_of(repeat: int, function) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), cpu_seconds()
        function()
        walls.append(time.perf_counter() - wall)
        cpus.append(cpu_seconds() - cpu)
    return min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", nargs="?", default=str(EWT_TEST))
    parser.add_argument("system", nargs="?")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", metavar="N",
                        help="time the whole report with each of these numbers of processes instead")
    args = parser.parse_args()
    system = args.system or args.gold
    words = evaluate_conll18(args.gold, system).scores["Words"].gold

    reports = {}

    def command(jobs: int = 1) -> None:
        with contextlib.redirect_stdout(io.StringIO()) as report:
            barley_main(["evaluate", args.gold, system, "--jobs", str(jobs)])
        reports[jobs] = report.getvalue()

    print(f"gold {args.gold}\nsystem {system}\n{words} gold words")
    if args.jobs:
        one = None
        for jobs in args.jobs:
            load = os.getloadavg()[0]
            wall, cpu = best_of(args.repeat, lambda: command(jobs))
            one = one or wall
            same = "same report" if reports[jobs] == reports[args.jobs[0]] else "REPORT DIFFERS"
            print(f"barley evaluate --jobs {jobs:<3} wall {wall:6.2f} s  CPU {cpu:6.2f} s  {words / wall:>9,.0f} "
                  f"words/s  ×{one / wall:.2f}  load {load:.1f}→{os.getloadavg()[0]:.1f}  {same}")
        return
    for name, function in (("CoNLL 2018 metrics (evaluate_conll18)", lambda: evaluate_conll18(args.gold, system)),
                           ("barley evaluate (whole report)", command)):
        wall, cpu = best_of(args.repeat, function)
        print(f"{name:<40} wall {wall:6.2f} s  CPU {cpu:6.2f} s  {words / cpu:>9,.0f} words/s (CPU)")


if __name__ == "__main__":
    main()
