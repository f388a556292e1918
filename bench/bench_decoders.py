"""Decode time of the graph decoders for sentences of 10, 50 and 100 words, then
Chu-Liu-Edmonds on long sentences built to need thousands of contractions.

Usage: python bench/bench_decoders.py [--repeat R] [--long 1000,2000,5000] [--json OUT]
Scores are random normal matrices (a worst case for the non-projective
approximation, which makes far more moves than on a trained model's scores).

The long sentences (target: 5,000 words in at most 10 s and 1 GB) have three kinds of
scores: ``hierarchy``, where each word prefers its sibling in a binary hierarchy, then
the sibling block, and so on (n - 1 nested contractions); ``band``, neighbours first,
with noise (n - 1 contractions in a chain); ``equal``, every score the same (every tie
broken by the rule of the recursive formulation). Printed: contractions, wall and CPU
seconds, and the decoder's peak of allocated memory (tracemalloc, the score matrix it is
given not counted); the load average says how busy the machine was.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import tracemalloc

import numpy as np

from barley.decoders import chu_liu_edmonds, eisner, eisner_second_order, mst, nonprojective_approximation


def timed(function, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        function()
    return (time.perf_counter() - start) / repeat * 1000.0


def contracting_scores(n: int, kind: str, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    nodes = np.arange(n + 1)
    if kind == "hierarchy":
        words = nodes - 1
        level = np.floor(np.log2(np.maximum(words[:, None] ^ words[None, :], 1)))
        arc = -level + rng.uniform(0, 0.1, size=(n + 1, n + 1))
        arc[0] = -100.0
        return arc
    if kind == "band":
        return -np.abs(nodes[:, None] - nodes[None, :]) + rng.uniform(0, 0.5, size=(n + 1, n + 1))
    return np.zeros((n + 1, n + 1))


def long_sentences(lengths: list[int]) -> list[dict]:
    contract = mst._Contraction._contract
    contractions = []

    def counting(self, cycle):
        contractions.append(len(cycle))
        contract(self, cycle)

    mst._Contraction._contract = counting
    rows = []
    print(f"\nChu-Liu-Edmonds on long sentences  (load average {os.getloadavg()[0]:.1f})")
    print(f"{'words':>6} {'scores':>10} {'contractions':>13} {'wall s':>7} {'CPU s':>6} {'peak MB':>8}")
    try:
        for n in lengths:
            for kind in ("hierarchy", "band", "equal"):
                arc = contracting_scores(n, kind)
                contractions.clear()
                tracemalloc.start()
                wall, cpu = time.perf_counter(), time.process_time()
                chu_liu_edmonds(arc)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                peak = tracemalloc.get_traced_memory()[1] / 2**20
                tracemalloc.stop()
                rows.append({"words": n, "scores": kind, "contractions": len(contractions), "wall_s": round(wall, 2),
                             "cpu_s": round(cpu, 2), "peak_mb": round(peak)})
                print(f"{n:>6} {kind:>10} {len(contractions):>13} {wall:>7.2f} {cpu:>6.2f} {peak:>8.0f}", flush=True)
    finally:
        mst._Contraction._contract = contract
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--long", default="1000,2000,5000", help="lengths of the long sentences ('' for none)")
    parser.add_argument("--json")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    rows = []
    print(f"{'words':>5} {'eisner':>10} {'eisner-2nd':>11} {'mst':>10} {'npa-1st':>10} {'npa-2nd':>10}  (ms per sentence)")
    for n in (10, 50, 100):
        arc = rng.normal(size=(n + 1, n + 1))
        sibling = rng.normal(size=(n + 1, n + 1, n + 1)) * 0.1
        projective = eisner(arc)
        projective2 = eisner_second_order(arc, sibling)
        row = {
            "words": n,
            "eisner_ms": timed(lambda: eisner(arc), args.repeat),
            "eisner2_ms": timed(lambda: eisner_second_order(arc, sibling), args.repeat),
            "mst_ms": timed(lambda: chu_liu_edmonds(arc), args.repeat),
            "npa1_ms": timed(lambda: nonprojective_approximation(projective, arc), args.repeat),
            "npa2_ms": timed(lambda: nonprojective_approximation(projective2, arc, sibling), 1),
        }
        rows.append(row)
        print(f"{n:>5} {row['eisner_ms']:>10.2f} {row['eisner2_ms']:>11.2f} {row['mst_ms']:>10.2f} "
              f"{row['npa1_ms']:>10.2f} {row['npa2_ms']:>10.2f}")
    long = long_sentences([int(n) for n in args.long.split(",") if n])
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"short": rows, "long": long}, handle, indent=2)


if __name__ == "__main__":
    main()
