"""Oracle LAS of the k best trees of a first-order graph-based or biaffine model, and the time
each K takes (``barley parse --nbest K``).

Usage: python bench/bench_nbest.py MODEL GOLD [--k 1,2,5,10,20] [--decoders eisner,mst] [--json OUT]

MODEL: a graph-based, biaffine or joint model (the joint one tags too: its trees are scored as
they come, on its own tags).

For each decoder (the model's first-order scores decoded projectively by k-best Eisner, or
non-projectively by k-best spanning trees, whatever decoder the model was trained with) and each
K, parses GOLD with its own tags into the K best analyses per sentence, then prints the LAS of the
first analyses, the oracle LAS and UAS (of each sentence, its analysis with the fewest LAS
errors; :func:`barley.nbest.evaluate_oracle`), the analyses per sentence, and the seconds of the
parse (scoring and decoding, one process) against the plain 1-best parse. Every word is scored.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from barley.conllu import read
from barley.nbest import evaluate_oracle
from barley.pipeline import Pipeline


def set_decoder(parser, decoder: str) -> None:
    """Decode the model's scores with ``decoder`` (the options of a graph-based, biaffine or joint parser)."""
    options = (parser.graph.options if hasattr(parser, "graph") else
               parser.annotator.decoding if hasattr(parser, "annotator") else parser.decoding)
    options.decoder = decoder


def timed_parse(pipeline: Pipeline, gold: str, nbest: int | None) -> tuple[list, float]:
    sentences = list(read(gold))
    started = time.perf_counter()
    parsed = list(pipeline.parse(sentences, nbest=nbest))
    return parsed, time.perf_counter() - started


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument("model")
    arguments.add_argument("gold")
    arguments.add_argument("--k", default="1,2,5,10,20")
    arguments.add_argument("--decoders", default="eisner,mst")
    arguments.add_argument("--json", metavar="OUT")
    args = arguments.parse_args()
    pipeline = Pipeline.load(args.model)
    component = next(c for c in pipeline.components if "HEAD" in c.writes)
    parser = component.parser
    rows = []
    print(f"model {args.model} ({getattr(parser, 'kind', component.name)}), gold {args.gold}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'decoder':8} {'K':>3} {'analyses':>8} {'LAS@1':>6} {'oracle LAS':>10} {'oracle UAS':>10} "
          f"{'parse s':>8} {'1-best s':>8} {'ms/sent':>7}")
    for decoder in args.decoders.split(","):
        set_decoder(parser, decoder)
        _, plain = timed_parse(pipeline, args.gold, None)
        for k in map(int, args.k.split(",")):
            parsed, seconds = timed_parse(pipeline, args.gold, k)
            scores = evaluate_oracle(args.gold, parsed)
            first, oracle = scores.first.as_dict(), scores.oracle.as_dict()
            row = {"decoder": decoder, "k": k, "sentences": scores.sentences,
                   "analyses_per_sentence": round(scores.analyses / scores.sentences, 2),
                   "first_LAS": round(first["LAS"], 2), "oracle_LAS": round(oracle["LAS"], 2),
                   "oracle_UAS": round(oracle["UAS"], 2), "seconds": round(seconds, 1),
                   "one_best_seconds": round(plain, 1)}
            rows.append(row)
            print(f"{decoder:8} {k:>3} {row['analyses_per_sentence']:>8} {row['first_LAS']:>6} "
                  f"{row['oracle_LAS']:>10} {row['oracle_UAS']:>10} {row['seconds']:>8} {row['one_best_seconds']:>8} "
                  f"{1000 * seconds / scores.sentences:>7.1f}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=1)


if __name__ == "__main__":
    main()
