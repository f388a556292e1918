"""Parsing at scale: peak memory against input size, and words/s for --jobs 1 against --jobs N.

Builds the large inputs by repeating a treebank into a temporary directory (never
into the repository), trains a small model unless one is given, then runs the
`barley parse` command itself (start-up included) on each input and reads the
peak resident memory and CPU time of each run from the kernel (``wait4``), and the
CPU time of the main process apart from that of its worker processes. The machine
may be shared: the load average before and after each run is printed beside it,
and CPU seconds next to wall-clock seconds. A control run (two independent one-process
parses side by side, each on half the input) shows what the machine itself gives two
processes at once, whatever barley does: the ceiling for ``--jobs 2``.

    python bench/bench_scale.py                              # 0.2M, 1M, 2M words; --jobs 1 vs 2 on 2M
    python bench/bench_scale.py --sizes 200000 --jobs 1 2 4 --model ewt.barley
    python bench/bench_scale.py --sizes 1000000 --dask 1 2   # a Dask LocalCluster too (shards of 4 MB)

Each Dask run is timed twice: from the start of the ``barley parse --scheduler local:N`` command
(starting the cluster included), and on a cluster started before the clock (``parse_files``
alone, as a user whose cluster is running sees it; the start-up is printed apart).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

UD = Path(os.environ.get("BARLEY_UD_DIR", Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"))
BARLEY = [sys.executable, "-c",
          "import resource, sys\n"
          "from barley.cli import main\n"
          "status = main(sys.argv[1:])\n"
          "own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))\n"
          "print(f'rusage {own.ru_utime + own.ru_stime:.2f} {children.ru_utime + children.ru_stime:.2f}',"
          " file=sys.stderr)\n"
          "sys.exit(status)"]
"""``barley ARGS`` that ends by printing the CPU seconds of its own process and of its (waited) children."""


def repeated(source: Path, words: int, target: Path) -> int:
    """Write ``source`` again and again into ``target`` until it holds at least ``words`` words."""
    from barley.conllu import read

    sentences = [(s.to_text().encode("utf-8"), len(s)) for s in read(source)]
    written = 0
    with open(target, "wb") as out:
        while written < words:
            for text, length in sentences:
                out.write(text)
                written += length
                if written >= words:
                    break
    return written


def run(*commands: list[str]) -> list[dict] | dict:
    """Run commands side by side; each one's wall-clock time, CPU time (all of it, and its main
    process's alone) and peak memory (its own and its waited children's). One command: its dict."""
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    processes = [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for command in commands]
    results = []
    for command, process in zip(commands, processes):
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        error = process.stderr.read().decode()
        process.stderr.close()
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"failed: {' '.join(command)}\n{error}")
        main_cpu = next((float(line.split()[1]) for line in error.splitlines() if line.startswith("rusage ")), None)
        results.append({"wall_s": round(seconds, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
                        "main_cpu_s": main_cpu, "peak_mb": round(usage.ru_maxrss / 1024)})
    for result in results:
        result["load"] = f"{load_before:.1f}→{os.getloadavg()[0]:.1f}"
    return results if len(commands) > 1 else results[0]


def digest(path: Path) -> str:
    hasher = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def control(largest: Path, words: int, side: int, model: Path, folder: Path, results: dict) -> None:
    """``side`` independent one-process parses of 1/side of the input, alone and then side by side."""
    from barley.conllu import read

    part = folder / "part.conllu"
    with open(part, "wb") as out:
        taken = 0
        for sentence in read(largest):
            if taken >= words // side:
                break
            out.write(sentence.to_text().encode("utf-8"))
            taken += len(sentence)
    command = BARLEY + ["parse", "-q", "-m", str(model), str(part)]
    alone = run(command + ["-o", str(folder / "part-0.conllu")])
    together = run(*(command + ["-o", str(folder / f"part-{k}.conllu")] for k in range(side)))
    slowest = max(together, key=lambda figures: figures["wall_s"])
    ceiling = side * alone["wall_s"] / slowest["wall_s"]
    results["control"] = {"words_each": taken, "alone": alone, "side_by_side": together, "ceiling": round(ceiling, 2)}
    print(f"\ncontrol: {side} independent `barley parse` (--jobs 1) of {taken} words each, side by side, "
          "against one alone")
    print(f"{'':>12} {'wall s':>7} {'CPU s':>6}  load")
    print(f"{'alone':>12} {alone['wall_s']:>7} {alone['cpu_s']:>6}  {alone['load']}")
    for k, figures in enumerate(together):
        print(f"{f'together {k + 1}':>12} {figures['wall_s']:>7} {figures['cpu_s']:>6}  {figures['load']}")
    print(f"so this machine runs {side} processes at {ceiling:.2f}x one (the ceiling of --jobs {side} here); "
          f"CPU per process {sum(f['cpu_s'] for f in together) / side / max(alone['cpu_s'], 1e-9):.2f}x alone",
          flush=True)
    part.unlink()


def dask_runs(args, model: Path, largest: Path, words: int, reference: str, one_rate: float, folder: Path,
              results: dict) -> None:
    """``barley parse --scheduler local:N`` (the clock runs from the command's start: cluster start-up
    included), then the same parse on a cluster started before the clock (what a user whose cluster
    is running sees); both outputs checked against one process's."""
    print(f"\nDask LocalCluster on {words} words in shards of {args.shard_mb} MB; speed-up against one process "
          "(--jobs 1) and against 1 worker timed the same way")
    print(f"{'workers':>7} {'clock from':>15} {'wall s':>7} {'CPU s':>6} {'main':>5} {'words/s':>8} {'speed-up':>8} "
          f"{'vs 1 w.':>7} {'start s':>7}  load")
    corpus = folder / "corpus"
    corpus.mkdir()
    largest.rename(corpus / largest.name)
    one_worker = {}
    for workers in args.dask:
        for when in ("command start", "cluster up"):
            out_dir = folder / f"dask-{workers}-{when.split()[-1]}"
            options = ["-m", str(model), str(corpus / "*.conllu"), "--out-dir", str(out_dir),
                       "--shard-mb", str(args.shard_mb)]
            if when == "command start":
                figures = run(BARLEY + ["parse", "-q", "--scheduler", f"local:{workers}", *options])
            else:
                figures = running_cluster(workers, options)
            if digest(out_dir / largest.name) != reference:
                raise SystemExit(f"the Dask run with {workers} workers gave a different output than --jobs 1")
            rate = words / figures["wall_s"]
            if workers == 1:
                one_worker[when] = rate
            results.setdefault("dask", []).append({"workers": workers, "clock_from": when, **figures,
                                                   "words_per_s": round(rate)})
            print(f"{workers:>7} {when:>15} {figures['wall_s']:>7} {figures['cpu_s']:>6} {figures['main_cpu_s']:>5} "
                  f"{rate:>8.0f} {rate / one_rate:>7.2f}x "
                  f"{f'{rate / one_worker[when]:.2f}x' if when in one_worker else '-':>7} "
                  f"{figures.get('start_s', '-'):>7}  {figures['load']}", flush=True)


RUNNING_CLUSTER = """
import json, os, resource, sys, time
from barley.runtime.distributed import connect, expand, parse_files

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

workers, model, pattern, out_dir, shard_mb = int(sys.argv[1]), sys.argv[3], sys.argv[4], sys.argv[6], sys.argv[8]
started = time.perf_counter()
with connect(f"local:{workers}") as client:
    client.wait_for_workers(workers)
    start_s = time.perf_counter() - started
    load, workers_cpu, main_cpu = os.getloadavg()[0], client.run(cpu), cpu()
    started = time.perf_counter()
    parse_files(client, model, expand([pattern]), out_dir, shard_bytes=int(shard_mb) << 20)
    wall = time.perf_counter() - started
    workers_cpu = sum(client.run(cpu).values()) - sum(workers_cpu.values())
    main_cpu = cpu() - main_cpu
    print(json.dumps({"wall_s": round(wall, 1), "cpu_s": round(workers_cpu + main_cpu, 1),
                      "main_cpu_s": round(main_cpu, 2), "start_s": round(start_s, 1),
                      "load": f"{load:.1f}→{os.getloadavg()[0]:.1f}"}))
    client.cluster.close()
"""
"""A LocalCluster started, then the clock: ``parse_files`` alone, its wall and CPU seconds (client and workers)."""


def running_cluster(workers: int, options: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-c", RUNNING_CLUSTER, str(workers), *options], check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {**figures, "peak_mb": None}


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--treebank", type=Path, default=UD / "UD_English-EWT" / "en_ewt-ud-test.conllu",
                         help="the file repeated to build the inputs")
    options.add_argument("--train", type=Path, default=UD / "UD_English-EWT" / "en_ewt-ud-dev.conllu",
                         help="trains the model when --model is not given (arc-eager, linear)")
    options.add_argument("--model", type=Path)
    options.add_argument("--sizes", type=int, nargs="+", default=[200_000, 1_000_000, 2_000_000])
    options.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="compared on the largest size")
    options.add_argument("--dask", type=int, nargs="*", default=[],
                         help="also a Dask LocalCluster of N worker processes (--scheduler local:N), on the largest size")
    options.add_argument("--shard-mb", type=int, default=4,
                         help="shard size for --dask (at least 8 shards per worker keeps the last round short)")
    options.add_argument("--json", type=Path, help="also write the figures here")
    args = options.parse_args()
    if not args.treebank.exists():
        raise SystemExit(f"{args.treebank} is not here (the shared UD treebanks, or set BARLEY_UD_DIR)")
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    with tempfile.TemporaryDirectory(prefix="barley-bench-") as folder:
        folder = Path(folder)
        model = args.model
        if model is None:
            model = folder / "model.barley"
            subprocess.run(BARLEY + ["train", "--train", str(args.train), "-m", str(model)], check=True,
                           stderr=subprocess.DEVNULL)
        results = {"memory": [], "speed": []}
        print("\npeak memory of `barley parse --jobs 1` against input size")
        print(f"{'words':>10} {'MB input':>9} {'peak MB':>8} {'wall s':>7} {'CPU s':>6} {'words/s':>8}  load")
        for size in args.sizes:
            source = folder / f"in-{size}.conllu"
            words = repeated(args.treebank, size, source)
            figures = run(BARLEY + ["parse", "-q", "-m", str(model), str(source), "-o", str(folder / "out-1.conllu")])
            figures.update(words=words, input_mb=round(source.stat().st_size / 1e6),
                           words_per_s=round(words / figures["wall_s"]))
            results["memory"].append(figures)
            print(f"{words:>10} {figures['input_mb']:>9} {figures['peak_mb']:>8} {figures['wall_s']:>7} "
                  f"{figures['cpu_s']:>6} {figures['words_per_s']:>8}  {figures['load']}", flush=True)
            if size != max(args.sizes):
                source.unlink()
        largest = folder / f"in-{max(args.sizes)}.conllu"
        words = results["memory"][-1]["words"]
        reference = digest(folder / "out-1.conllu")
        print(f"\nwords/s on {words} words, by --jobs (the same output, byte for byte, is checked)")
        print("(CPU s: all processes; main: the main process alone; CPU ×: CPU s against --jobs 1's)")
        print(f"{'jobs':>5} {'wall s':>7} {'CPU s':>6} {'main':>5} {'CPU ×':>6} {'words/s':>8} {'speed-up':>8} "
              f"{'peak MB/process':>15}  load")
        base = base_cpu = None
        for jobs in args.jobs:
            if jobs == 1:
                figures = dict(results["memory"][-1])
            else:
                figures = run(BARLEY + ["parse", "-q", "-j", str(jobs), "-m", str(model), str(largest),
                                        "-o", str(folder / "out-n.conllu")])
                if digest(folder / "out-n.conllu") != reference:
                    raise SystemExit(f"--jobs {jobs} gave a different output than --jobs 1")
            rate = words / figures["wall_s"]
            base, base_cpu = base or rate, base_cpu or figures["cpu_s"]
            results["speed"].append({"jobs": jobs, **figures, "words_per_s": round(rate)})
            print(f"{jobs:>5} {figures['wall_s']:>7} {figures['cpu_s']:>6} {figures['main_cpu_s']:>5} "
                  f"{figures['cpu_s'] / base_cpu:>6.2f} {rate:>8.0f} {rate / base:>7.2f}x "
                  f"{figures['peak_mb']:>15}  {figures['load']}", flush=True)
        side = max(args.jobs)
        if side > 1:
            control(largest, words, side, model, folder, results)
        if args.dask:
            dask_runs(args, model, largest, words, reference, base, folder, results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
