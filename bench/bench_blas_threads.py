"""What the BLAS threads of one parsing process cost, on an idle machine and on a busy one.

Runs ``barley parse --input text`` on the raw text of a test treebank (rebuilt from its ``# text``
comments) in a fresh process, with ``--blas-threads 1`` (the default) and ``--blas-threads 0`` (the
library's default: a thread per core), first on the idle machine, then with ``--busy`` processes
beside it (each a loop of numpy matrix products, as other work on a shared machine would be).
Prints, for each, the wall time and the CPU time of the process (user + system, as
``/usr/bin/time`` counts it) and its ratio to the idle figure of the same setting.

    python bench/bench_blas_threads.py                       # EWT test, 2 busy processes
    python bench/bench_blas_threads.py --test FILE.conllu --busy 1 --repeat 3
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

UD = Path(os.environ.get("BARLEY_UD_DIR", Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"))


def busy(stop) -> None:
    """A loop of numpy matrix products until ``stop`` is set (numpy's own BLAS threads, as a user's would)."""
    import numpy as np

    a = np.random.default_rng(0).standard_normal((400, 400))
    while not stop.is_set():
        a = np.tanh(a @ a)


def parse(model: str, text: Path, threads: int) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one ``barley parse`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "barley", "parse", "-m", model, "-q", "--input", "text", str(text),
                    "-o", os.devnull, "--blas-threads", str(threads)], check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--model", default="en_ewt")
    arguments.add_argument("--test", default=str(UD / "UD_English-EWT" / "en_ewt-ud-test.conllu"))
    arguments.add_argument("--busy", type=int, default=2, help="busy processes beside it (default 2)")
    arguments.add_argument("--repeat", type=int, default=1, help="runs of each, the fastest kept (default 1)")
    args = arguments.parse_args()
    lines = [line[len("# text = "):] for line in Path(args.test).read_text(encoding="utf-8").splitlines()
             if line.startswith("# text = ")]
    with tempfile.TemporaryDirectory() as folder:
        text = Path(folder) / "text.txt"
        text.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{args.test}: {len(lines)} sentences of text; {os.cpu_count()} cores; {args.busy} busy processes")
        idle = {}
        for load in ("idle", "busy"):
            stop, workers = multiprocessing.Event(), []
            if load == "busy":
                workers = [multiprocessing.Process(target=busy, args=(stop,)) for _ in range(args.busy)]
                for worker in workers:
                    worker.start()
                time.sleep(1.0)
            try:
                for threads in (1, 0):
                    wall, cpu = min(parse(args.model, text, threads) for _ in range(args.repeat))
                    idle.setdefault(threads, cpu)
                    print(f"{load:4}  --blas-threads {threads} ({'one' if threads else 'a thread per core'}): "
                          f"wall {wall:6.2f} s, CPU {cpu:6.2f} s ({cpu / idle[threads]:.2f}× its idle CPU)",
                          flush=True)
            finally:
                stop.set()
                for worker in workers:
                    worker.join()


if __name__ == "__main__":
    main()
