"""CPU seconds each system's static oracle takes over a big treebank and over one 1000-word sentence.

Usage: python bench/bench_oracle.py [--file CONLLU] [--systems a,b] [--json OUT]
The treebank defaults to the shared English-EWT train file (12544 sentences,
204577 words). The 1000-word sentence chains the treebank's first sentences
(each sentence's root attached to the previous one's, which keeps projective
sentences projective), so it has the data's own non-projectivity.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from barley.analysis import oracles as oracle_stats
from barley.systems import get_system, run_oracle, system_names

DEFAULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud" / "UD_English-EWT" / "en_ewt-ud-train.conllu"


def chained(treebank: oracle_stats.Treebank, words: int) -> tuple[list[int], list[int]]:
    """One tree of ``words`` words: the treebank's sentences in order, each root (and, in the
    last sentence, cut short, each word whose head was cut off) attached to the first
    sentence's root."""
    heads, labels = [-1], [-1]
    first_root = 0
    for tree in treebank.trees:
        offset = len(heads) - 1
        keep = min(len(tree.heads) - 1, words - offset)
        for d in range(1, keep + 1):
            head = tree.heads[d]
            heads.append(head + offset if 0 < head <= keep else first_root)
            labels.append(tree.labels[d])
        first_root = first_root or heads.index(0, 1)
        if len(heads) - 1 == words:
            break
    return heads, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=str(DEFAULT.resolve()))
    parser.add_argument("--systems", default=",".join(system_names()))
    parser.add_argument("--json")
    args = parser.parse_args()
    start = time.process_time()
    treebank = oracle_stats.load(args.file)
    print(f"{args.file}: {len(treebank.trees)} sentences, {treebank.words} words, "
          f"read in {time.process_time() - start:.1f} s")
    long_heads, long_labels = chained(treebank, 1000)
    rows = []
    print(f"{'system':<24} {'treebank s':>10} {'µs/trans':>9} {'reproduced':>10} {'1000 words s':>12} {'transitions':>11}")
    for name in args.systems.split(","):
        system = get_system(name, single_root=True)
        start = time.process_time()
        stats = oracle_stats.measure(system, treebank)
        seconds = time.process_time() - start
        start = time.process_time()
        run = run_oracle(system, long_heads, long_labels, treebank.root_label)
        long_seconds = time.process_time() - start
        rows.append({"system": system.name, "treebank_seconds": seconds, "transitions": stats.transitions,
                     "reproduced": stats.reproduced, "sentences": stats.sentences,
                     "long_seconds": long_seconds, "long_transitions": len(run.actions)})
        print(f"{system.name:<24} {seconds:>10.2f} {1e6 * seconds / max(stats.transitions, 1):>9.2f} "
              f"{stats.reproduced:>10} {long_seconds:>12.3f} {len(run.actions):>11}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=2)


if __name__ == "__main__":
    main()
