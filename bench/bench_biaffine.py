"""Parsing speed of a trained neural parser on one core, and where the time goes.

Loads a model (``barley train --parser biaffine`` or ``--parser neural-transition``),
parses a treebank in one process with the numpy engine (no PyTorch; one BLAS thread
unless ``--threads``), and prints words/s (wall clock and CPU time: the machine may be
shared), LAS/UAS (every word, punctuation included) and where the time goes:

* biaffine: the encoder and scorer (``tree_scores``), the decoders (where the best heads are
  no tree), and the rest (encoding words as ids, writing trees back), and the sentences
  that needed the decoder;
* neural-transition: the encoder (words to ids to BiLSTM vectors), the MLP's first layer
  precomputed per batch, reading the positions of the configurations and the MLP scoring
  them (each lockstep step), and the rest (the loop itself: legal moves, transitions,
  writing trees back).

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

    from barley.conllu import read
    from barley.evaluation.attachment import evaluate
    from barley.pipeline import Pipeline
    from barley.runtime.threads import limited

    neural = Pipeline.load(args.model).parser
    gold = list(read(args.test))
    copies = [s.copy() for s in gold]
    spent: dict[str, float] = {}

    def timed(name, function):
        spent[name] = 0.0

        def run(*arguments, **keywords):
            started = time.perf_counter()
            try:
                return function(*arguments, **keywords)
            finally:
                spent[name] += time.perf_counter() - started
        return run

    if neural.kind == "biaffine":
        from barley.neural import biaffine_parser

        neural.network.tree_scores = timed("encoder + scorer", neural.network.tree_scores)
        biaffine_parser.best_tree = timed("decoders", biaffine_parser.best_tree)
    else:
        from barley.neural.transition_parser import BatchScorer, NumpyTransitionScorer

        neural.network.vectors = timed("encoder", neural.network.vectors)
        neural.network.parts = timed("first layer", neural.network.parts)
        BatchScorer.index = timed("positions", BatchScorer.index)
        NumpyTransitionScorer.scores = timed("MLP", NumpyTransitionScorer.scores)
    wall, cpu = time.perf_counter(), time.process_time()
    parsed = list(limited(neural.parse(copies, batch_words=args.batch_words), args.threads))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    words = sum(len(s) for s in gold)
    scores = evaluate(gold, parsed).scores
    print(f"{args.model} on {args.test}: {len(gold)} sentences, {words} words, {args.threads} thread(s)")
    print(f"  LAS {scores['LAS']:.2f}  UAS {scores['UAS']:.2f} (every word, punctuation included)")
    print(f"  {words / wall:.0f} words/s wall ({wall:.1f} s), {words / cpu:.0f} words/s CPU ({cpu:.1f} s)")
    rest = wall - sum(spent.values())
    print("  " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in spent.items()) + f", the rest {rest:.1f} s")
    print(f"  {neural.stats.summary()}")


if __name__ == "__main__":
    main()
