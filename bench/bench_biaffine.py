"""Parsing speed of a trained biaffine parser on one core, and where the time goes.

Loads a model (``barley train --parser biaffine``), parses a treebank in one process
with one PyTorch thread, and prints words/s (wall clock and CPU time: the machine may
be shared), the share of the encoder and scorer (``tree_scores``), of the decoders, and
of the rest (encoding words as ids, writing trees back), the sentences that needed the
decoder, and LAS/UAS (every word, punctuation included).

    python bench/bench_biaffine.py MODEL TEST.conllu [--threads 1] [--batch-words 5000]
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("test")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-words", type=int, default=5000)
    args = parser.parse_args()

    import torch

    from barley.conllu import read
    from barley.evaluate import evaluate
    from barley.parser import load

    torch.set_num_threads(args.threads)
    biaffine = load(args.model)
    gold = list(read(args.test))
    copies = [s.copy() for s in gold]
    spent = {"scores": 0.0, "decode": 0.0}

    def timed(name, function):
        def run(*arguments):
            started = time.perf_counter()
            try:
                return function(*arguments)
            finally:
                spent[name] += time.perf_counter() - started
        return run

    biaffine.model.tree_scores = timed("scores", biaffine.model.tree_scores)
    biaffine._decode = timed("decode", biaffine._decode)
    wall, cpu = time.perf_counter(), time.process_time()
    parsed = list(biaffine.parse(copies, batch_words=args.batch_words))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    words = sum(len(s) for s in gold)
    scores = evaluate(gold, parsed).scores
    print(f"{args.model} on {args.test}: {len(gold)} sentences, {words} words, {args.threads} thread(s)")
    print(f"  LAS {scores['LAS']:.2f}  UAS {scores['UAS']:.2f} (every word, punctuation included)")
    print(f"  {words / wall:.0f} words/s wall ({wall:.1f} s), {words / cpu:.0f} words/s CPU ({cpu:.1f} s)")
    rest = wall - spent["scores"] - spent["decode"]
    print(f"  encoder + scorer {spent['scores']:.1f} s, decoders {spent['decode']:.1f} s, the rest {rest:.1f} s")
    print(f"  {biaffine.stats.summary()}")


if __name__ == "__main__":
    main()
