"""Decode time of the graph decoders for sentences of 10, 50 and 100 words.

Usage: python bench/bench_decoders.py [--repeat R] [--json OUT]
Scores are random normal matrices (a worst case for the non-projective
approximation, which makes far more moves than on a trained model's scores).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from barley.graph import chu_liu_edmonds, eisner, eisner_second_order, nonprojective_approximation


def timed(function, repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        function()
    return (time.perf_counter() - start) / repeat * 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
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
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=2)


if __name__ == "__main__":
    main()
