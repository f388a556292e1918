"""Time of `barley evaluate` and of the CoNLL 2018 metrics alone on one gold/system pair.

Usage: python bench/bench_evaluate.py [GOLD [SYSTEM]] [--repeat R]
Defaults: UD_English-EWT test (25,094 words) from ../shared/data/ud, scored against itself.
Prints wall and CPU seconds per run (best of R), reading both files included, and words per second.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
from pathlib import Path

from barley.cli import main as barley_main
from barley.evaluate_conll18 import evaluate_conll18

UD = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"
EWT_TEST = UD / "UD_English-EWT" / "en_ewt-ud-test.conllu"


def best_of(repeat: int, function) -> tuple[float, float]:
    """Best wall and best CPU seconds of ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", nargs="?", default=str(EWT_TEST))
    parser.add_argument("system", nargs="?")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    system = args.system or args.gold
    words = evaluate_conll18(args.gold, system).scores["Words"].gold

    def command() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            barley_main(["evaluate", args.gold, system])

    print(f"gold {args.gold}\nsystem {system}\n{words} gold words")
    for name, function in (("CoNLL 2018 metrics (evaluate_conll18)", lambda: evaluate_conll18(args.gold, system)),
                           ("barley evaluate (whole report)", command)):
        wall, cpu = best_of(args.repeat, function)
        print(f"{name:<40} wall {wall:6.2f} s  CPU {cpu:6.2f} s  {words / cpu:>9,.0f} words/s (CPU)")


if __name__ == "__main__":
    main()
