"""Parsing at scale: peak memory against input size, and words/s for --jobs 1 against --jobs N.

Builds the large inputs by repeating a treebank into a temporary directory (never
into the repository), trains a small model unless one is given, then runs the
`barley parse` command itself (start-up included) on each input and reads the
peak resident memory and CPU time of each run from the kernel (``wait4``). The
machine may be shared: the load average before and after each run is printed
beside it, and CPU seconds next to wall-clock seconds.

    python bench/bench_scale.py                              # 0.2M, 1M, 2M words; --jobs 1 vs 2 on 2M
    python bench/bench_scale.py --sizes 200000 --jobs 1 2 4 --model ewt.barley
    python bench/bench_scale.py --sizes 1000000 --dask 1 2 --shard-mb 8   # a Dask LocalCluster too
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
BARLEY = [sys.executable, "-m", "barley"]


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


def run(command: list[str]) -> dict:
    """Run a command; its wall-clock time, CPU time and peak memory (its own and its waited children's)."""
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    error = process.stderr.read().decode()
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{error}")
    return {"wall_s": round(seconds, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_mb": round(usage.ru_maxrss / 1024), "load": f"{load_before:.1f}→{os.getloadavg()[0]:.1f}"}


def digest(path: Path) -> str:
    hasher = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


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
    options.add_argument("--shard-mb", type=int, default=16, help="shard size for --dask")
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
        print(f"{'jobs':>5} {'wall s':>7} {'CPU s':>6} {'words/s':>8} {'speed-up':>8} {'peak MB/process':>15}  load")
        base = None
        for jobs in args.jobs:
            if jobs == 1:
                figures = dict(results["memory"][-1])
            else:
                figures = run(BARLEY + ["parse", "-q", "-j", str(jobs), "-m", str(model), str(largest),
                                        "-o", str(folder / "out-n.conllu")])
                if digest(folder / "out-n.conllu") != reference:
                    raise SystemExit(f"--jobs {jobs} gave a different output than --jobs 1")
            rate = words / figures["wall_s"]
            base = base or rate
            results["speed"].append({"jobs": jobs, **figures, "words_per_s": round(rate)})
            print(f"{jobs:>5} {figures['wall_s']:>7} {figures['cpu_s']:>6} {rate:>8.0f} {rate / base:>7.2f}x "
                  f"{figures['peak_mb']:>15}  {figures['load']}", flush=True)
        if args.dask:
            print(f"\nDask LocalCluster on {words} words in shards of {args.shard_mb} MB (start-up included)")
            print(f"{'workers':>7} {'wall s':>7} {'words/s':>8} {'speed-up':>8}  load")
            corpus = folder / "corpus"
            corpus.mkdir()
            largest.rename(corpus / largest.name)
            for workers in args.dask:
                out_dir = folder / f"dask-{workers}"
                figures = run(BARLEY + ["parse", "-q", "-m", str(model), "--scheduler", f"local:{workers}",
                                        str(corpus / "*.conllu"), "--out-dir", str(out_dir),
                                        "--shard-mb", str(args.shard_mb)])
                if digest(out_dir / largest.name) != reference:
                    raise SystemExit(f"the Dask run with {workers} workers gave a different output than --jobs 1")
                rate = words / figures["wall_s"]
                results.setdefault("dask", []).append({"workers": workers, **figures, "words_per_s": round(rate)})
                print(f"{workers:>7} {figures['wall_s']:>7} {rate:>8.0f} {rate / base:>7.2f}x  {figures['load']}",
                      flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
