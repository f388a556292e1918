"""Parsing speed of the compiled loop (barley.transition.fast) against the reference path, per model.

Each model parses INPUT as a whole ``barley parse`` process, one core; start-up (imports,
model loading, a one-sentence parse) is measured by parsing INPUT's first sentence,
and "net" is the whole run minus that. Wall-clock and CPU time (user + sys, of the
process) are both printed: on a shared machine CPU time is the steadier figure.
``--reference`` also runs each model with BARLEY_NO_FAST=1 and checks that the
outputs are byte-identical.

    python bench/bench_compiled.py --input en_ewt-ud-train.conllu MODEL [MODEL ...] [--reference]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(model: str, path: str, output: str, reference: bool) -> tuple[float, float]:
    """Wall and CPU seconds of one ``barley parse`` process."""
    env = dict(os.environ, BARLEY_NO_FAST="1" if reference else "")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "barley", "parse", "-q", "-m", model, path, "-o", output],
                   env=env, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def first_sentence(path: str, folder: str) -> str:
    lines = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            lines.append(line)
            if not line.strip():
                break
    one = os.path.join(folder, "one.conllu")
    Path(one).write_text("".join(lines), encoding="utf-8")
    return one


def words_in(path: str) -> int:
    with open(path, encoding="utf-8") as handle:
        return sum(1 for line in handle if line[:1].isdigit() and line.split("\t", 1)[0].isdigit())


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("models", nargs="+")
    arguments.add_argument("--input", required=True)
    arguments.add_argument("--reference", action="store_true", help="also time the reference path and compare")
    options = arguments.parse_args()
    words = words_in(options.input)
    print(f"{options.input}: {words} words; load average {os.getloadavg()[0]:.1f} at start")
    print(f"{'model':28} {'path':9} {'wall s':>7} {'cpu s':>6} {'start cpu':>9} "
          f"{'words/s wall':>12} {'net cpu':>8} {'words/s net cpu':>15}")
    with tempfile.TemporaryDirectory() as folder:
        one = first_sentence(options.input, folder)
        for model in options.models:
            outputs = {}
            for path in ["compiled", "reference"] if options.reference else ["compiled"]:
                reference = path == "reference"
                _, start_cpu = run(model, one, os.path.join(folder, "start.conllu"), reference)
                outputs[path] = os.path.join(folder, f"{path}.conllu")
                wall, cpu = run(model, options.input, outputs[path], reference)
                net = max(cpu - start_cpu, 1e-9)
                print(f"{Path(model).stem:28} {path:9} {wall:7.2f} {cpu:6.2f} {start_cpu:9.2f} "
                      f"{words / wall:12.0f} {net:8.2f} {words / net:15.0f}", flush=True)
            if options.reference:
                same = Path(outputs["compiled"]).read_bytes() == Path(outputs["reference"]).read_bytes()
                print(f"{'':28} outputs {'byte-identical' if same else 'DIFFER'}", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
