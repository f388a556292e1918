"""Streaming speed and memory of the CoNLL reader and writer on a large file.

Usage: python bench/bench_io.py [--size-mb 1024] [--source FILE] [--dir DIR] [--gzip]

Builds a file of about SIZE MB by repeating a shared treebank (default: UD English
EWT train) in a temporary directory, then streams it in a child process through
read (counting words) and through read -> write (to a second file), printing MB/s
and the child's peak RSS (resource.getrusage). The same passes over the source
treebank alone give the baseline: flat memory means the peak RSS does not grow
with the file.
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from barley import conllu

DEFAULT_SOURCE = (Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud" / "UD_English-EWT"
                  / "en_ewt-ud-train.conllu").resolve()


def build(source: Path, target: Path, size: int) -> int:
    """Write copies of ``source`` to ``target`` until it holds at least ``size`` bytes; returns the size."""
    data = source.read_bytes()
    opener = gzip.open if target.suffix == ".gz" else open
    written = 0
    with opener(target, "wb") as handle:
        while written < size:
            handle.write(data)
            written += len(data)
    return target.stat().st_size


def one_pass(mode: str, path: str, out: str) -> dict:
    """Run in the child: one streaming pass; returns seconds, words and peak RSS in MB."""
    start = time.perf_counter()
    if mode == "read":
        words = sum(len(sentence) for sentence in conllu.read(path))
    else:
        words = 0

        def counted():
            nonlocal words
            for sentence in conllu.read(path):
                words += len(sentence)
                yield sentence

        conllu.write(counted(), out)
    seconds = time.perf_counter() - start
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    return {"seconds": seconds, "words": words, "peak_rss_mb": peak_kb / 1024}


def measure(mode: str, path: Path, out: Path) -> dict:
    child = subprocess.run([sys.executable, __file__, "--child", mode, str(path), str(out)],
                           capture_output=True, text=True, check=True)
    result = json.loads(child.stdout)
    megabytes = path.stat().st_size / 2**20
    result["mb"] = megabytes
    result["mb_per_s"] = megabytes / result["seconds"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=1024.0, help="size of the generated file (default 1024)")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="treebank to repeat")
    parser.add_argument("--dir", help="where to put the temporary files (default: the system's temp dir)")
    parser.add_argument("--gzip", action="store_true", help="generate and read a .gz file instead")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "IN", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one_pass(*args.child)))
        return
    suffix = ".conllu.gz" if args.gzip else ".conllu"
    with tempfile.TemporaryDirectory(prefix="barley-bench-io-", dir=args.dir) as directory:
        big = Path(directory) / f"big{suffix}"
        start = time.perf_counter()
        size = build(args.source, big, int(args.size_mb * 2**20))
        print(f"built {big.name}: {size / 2**20:.0f} MB on disk from {args.source.name} "
              f"in {time.perf_counter() - start:.1f} s")
        print(f"{'file':<24}{'pass':<12}{'MB':>8}{'words':>12}{'s':>8}{'MB/s':>8}{'words/s':>11}{'peak RSS MB':>13}")
        for name, path in ((args.source.name, args.source), (big.name, big)):
            for mode in ("read", "read+write"):
                result = measure(mode, path, Path(directory) / f"copy{suffix}")
                print(f"{name:<24}{mode:<12}{result['mb']:>8.0f}{result['words']:>12}{result['seconds']:>8.1f}"
                      f"{result['mb_per_s']:>8.1f}{result['words'] / result['seconds']:>11.0f}"
                      f"{result['peak_rss_mb']:>13.1f}", flush=True)
                (Path(directory) / f"copy{suffix}").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
