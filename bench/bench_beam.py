"""A transition model parsed at several beam widths, and the oracle LAS of its k best trees from the
beam (``barley parse --beam K``, ``--nbest K``; docs/beam.md, docs/results/beam.md).

Usage: python bench/bench_beam.py MODEL GOLD [--widths 1,2,4,8,16] [--k 1,2,5,10] [--json OUT]

For each width, runs ``barley parse --model MODEL GOLD --beam W`` as its own process (the words per
second are of the whole process: start-up, loading the model, reading, parsing, writing; width 1 is
the compiled greedy loop) and prints LAS and UAS of its output (every word scored). For each K,
``barley parse --nbest K`` (a beam of at least K, the model's training width if wider) and the LAS
of the first analyses and the oracle LAS and UAS (of each sentence, its analysis with the fewest
LAS errors; :func:`barley.nbest.evaluate_oracle`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from barley.conllu import read
from barley.evaluation.attachment import evaluate
from barley.nbest import evaluate_oracle


def timed(arguments: list[str]) -> float:
    """Run ``barley`` with ``arguments`` in a new process; its wall-clock seconds."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "barley", *arguments], check=True)
    return time.perf_counter() - started


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument("model")
    arguments.add_argument("gold")
    arguments.add_argument("--widths", default="1,2,4,8,16")
    arguments.add_argument("--k", default="1,2,5,10")
    arguments.add_argument("--json", metavar="OUT")
    args = arguments.parse_args()
    words = sum(len(sentence) for sentence in read(args.gold))
    rows = []
    print(f"model {args.model}, gold {args.gold} ({words} words); load average {os.getloadavg()[0]:.1f}")
    print(f"{'beam':>5} {'LAS':>6} {'UAS':>6} {'seconds':>8} {'words/s':>8}")
    with tempfile.TemporaryDirectory() as folder:
        output = os.path.join(folder, "parsed.conllu")
        for width in [int(w) for w in args.widths.split(",") if w]:
            seconds = timed(["parse", "-q", "--model", args.model, args.gold, "--beam", str(width), "-o", output])
            scores = evaluate(args.gold, output).scores
            rows.append({"beam": width, "LAS": scores["LAS"], "UAS": scores["UAS"], "seconds": round(seconds, 2),
                         "words_per_second": round(words / seconds)})
            print(f"{width:5d} {scores['LAS']:6.2f} {scores['UAS']:6.2f} {seconds:8.1f} {words / seconds:8.0f}",
                  flush=True)
        print(f"{'nbest':>5} {'analyses':>8} {'LAS@1':>6} {'oracle LAS':>10} {'oracle UAS':>10} {'seconds':>8}")
        for k in [int(k) for k in args.k.split(",") if k]:
            seconds = timed(["parse", "-q", "--model", args.model, args.gold, "--nbest", str(k), "-o", output])
            found = evaluate_oracle(args.gold, output)
            first, oracle = found.first.scores, found.oracle.scores
            rows.append({"nbest": k, "analyses": found.analyses, "first_LAS": first["LAS"],
                         "oracle_LAS": oracle["LAS"], "oracle_UAS": oracle["UAS"], "seconds": round(seconds, 2)})
            print(f"{k:5d} {found.analyses / found.sentences:8.2f} {first['LAS']:6.2f} {oracle['LAS']:10.2f} "
                  f"{oracle['UAS']:10.2f} {seconds:8.1f}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=1)


if __name__ == "__main__":
    main()
