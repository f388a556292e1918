"""Seconds the dynamic oracles take: follow zero-cost actions over a treebank's first sentences.

Usage: python bench/bench_dynamic_oracle.py [--file CONLLU] [--sentences N] [--systems a,b] [--mistakes P]

Per system with ``exploration_oracle``: the time to build ``system.costs`` per tree and
to ask it for every configuration of one run (the work a training epoch by exploration
adds per sentence), the words, and the slowest sentence. ``single_root`` as in UD.
The file defaults to the shared UD_English-EWT dev file. ``--mistakes P``: at each step
a random legal action with probability P (seeded), else a zero-cost one, as training by
exploration wanders off the gold path (the configurations after mistakes are the costly
ones for arc-standard).
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from barley.analysis import oracles as oracle_stats
from barley.systems import get_system, system_names

DEFAULT = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud" / "UD_English-EWT" / "en_ewt-ud-dev.conllu"


def follow(system, heads, labels, mistakes: float, rng: random.Random) -> int:
    costs = system.costs(heads, labels)
    state = system.initial(len(heads) - 1)
    while not system.is_terminal(state):
        per_move = costs(state)
        if mistakes and rng.random() < mistakes:
            legal = [move for move, cost in enumerate(per_move)
                     if cost is not None and (cost == 0 or costs.explorable(state, move, per_move))]
            move = rng.choice(legal)
            system.apply(state, move, costs.label(state, move))
        else:
            system.apply(state, *costs.zero_cost(state, per_move)[0])
    return state.transitions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=str(DEFAULT))
    parser.add_argument("--sentences", type=int, default=60)
    exploring = [name for name in system_names() if get_system(name).exploration_oracle]
    parser.add_argument("--systems", default=",".join(exploring))
    parser.add_argument("--mistakes", type=float, default=0.0)
    args = parser.parse_args()
    trees = oracle_stats.load(args.file).trees[: args.sentences]
    words = sum(len(tree.heads) - 1 for tree in trees)
    print(f"{args.file}: {len(trees)} sentences, {words} words")
    for name in args.systems.split(","):
        system = get_system(name, single_root=True)
        slowest, rng = (0.0, 0), random.Random(1)
        start = time.process_time()
        for tree in trees:
            began = time.process_time()
            follow(system, list(tree.heads), list(tree.labels), args.mistakes, rng)
            slowest = max(slowest, (time.process_time() - began, len(tree.heads) - 1))
        seconds = time.process_time() - start
        print(f"{name:25s} {seconds:8.2f} CPU s  {words / seconds:9.0f} words/s  "
              f"slowest: {slowest[0]:.2f} s ({slowest[1]} words)")


if __name__ == "__main__":
    main()
