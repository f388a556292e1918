"""Train a tag+parse pipeline on a UD treebank and score it on the test set.

Gold tokenization, every tag predicted: UPOS, XPOS, UFeats, AllTags, Lemmas, UAS, LAS
(every word, punctuation included, full DEPREL), the tagger's and the whole pipeline's
words per second (wall clock and CPU time: the machine may be shared), and the training
time of each part (jackknifing included). Prints a table and writes JSON.

    python bench/bench_pipeline.py                                   # EWT, 5-fold jackknifing
    python bench/bench_pipeline.py --jackknife 10
    python bench/bench_pipeline.py --no-jackknife                    # the parser learns from gold tags
    python bench/bench_pipeline.py --treebank UD_Gothic-PROIEL --train got_proiel-ud-train.conllu \\
        --test got_proiel-ud-test.conllu
    python bench/bench_pipeline.py --model en.barley                 # score a model trained before
    python bench/bench_pipeline.py --model src/barley/models/en_ewt.barley --raw   # the shipped model, also from raw text
    python bench/bench_pipeline.py --model src/barley/models/en_ewt.barley --raw --tokenizer-from tok.barley
                                     # the same with the tokenizer of another model file (e.g. a neural one)

``--raw`` (a model with a tokenizer) also scores the pipeline from the test set's raw text
with the CoNLL 2018 metrics (Tokens, Sentences, Words, UPOS, ..., LAS, MLAS, BLEX) and
times it end to end, text in, sentences out (wall clock and CPU time).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

UD = Path(os.environ.get("BARLEY_UD_DIR", Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"))


def main() -> int:
    from barley.conllu import FEATS, LEMMA, UPOS, XPOS, read
    from barley.pipeline import DEFAULT_JACKKNIFE, Pipeline

    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--treebank", default="UD_English-EWT")
    options.add_argument("--train", default="en_ewt-ud-train.conllu")
    options.add_argument("--test", default="en_ewt-ud-test.conllu")
    options.add_argument("--components", default="tag,parse")
    options.add_argument("--jackknife", type=int, default=DEFAULT_JACKKNIFE)
    options.add_argument("--no-jackknife", action="store_true")
    options.add_argument("--system", default="arc-eager")
    options.add_argument("--seed", type=int, default=1)
    options.add_argument("--model", help="score this model instead of training one")
    options.add_argument("--save", help="also write the trained model here")
    options.add_argument("--raw", action="store_true", help="also score and time the pipeline from raw text")
    options.add_argument("--tokenizer-from", metavar="MODEL",
                         help="replace the pipeline's tokenizer by the one of this model file")
    options.add_argument("--json", default="bench_pipeline.json")
    args = options.parse_args()
    folder = UD / args.treebank
    if not folder.is_dir():
        print(f"bench_pipeline: {folder} is absent (the shared UD treebanks)", file=sys.stderr)
        return 1
    result: dict = {"treebank": args.treebank}
    if args.model:
        pipeline = Pipeline.load(args.model)
        result["model"] = args.model
    else:
        started = time.perf_counter()
        parse_options = {"system": args.system} if "parse" in args.components else {}
        pipeline = Pipeline.train(str(folder / args.train), args.components.split(","),
                                  options={"parse": parse_options} if parse_options else None,
                                  jackknife=None if args.no_jackknife else args.jackknife, seed=args.seed)
        result["train_s"] = round(time.perf_counter() - started, 1)
        result["jackknife"] = None if args.no_jackknife else args.jackknife
        if args.save:
            pipeline.save(args.save)
            result["model_bytes"] = os.path.getsize(args.save)
    if args.tokenizer_from:
        tokenizer = Pipeline.load(args.tokenizer_from)["tokenize"]
        pipeline = Pipeline([tokenizer, *(c for c in pipeline.components if c.name != "tokenize")], pipeline.manifest)
        result["tokenizer"] = f"{tokenizer.tokenizer.kind}, from {args.tokenizer_from}"
    test = str(folder / args.test)
    cpu = time.process_time()
    scores = pipeline.evaluate(test)
    result.update(scores)
    result["pipeline_cpu_words_per_second"] = round(scores["words"] / max(time.process_time() - cpu, 1e-9))
    if "tag" in pipeline:  # the tagger alone
        sentences = list(read(test))
        for sentence in sentences:
            for word in sentence.words:
                word[UPOS] = word[XPOS] = word[FEATS] = word[LEMMA] = "_"
        started, cpu = time.perf_counter(), time.process_time()
        list(pipeline["tag"].process(sentences))
        result["tagger_words_per_second"] = round(scores["words"] / (time.perf_counter() - started))
        result["tagger_cpu_words_per_second"] = round(scores["words"] / max(time.process_time() - cpu, 1e-9))
    if args.raw:
        from barley.tokenizer.treebank_text import raw_text

        raw = pipeline.evaluate_text(test)
        result.update({f"raw_{key}": value for key, value in raw.items()})
        text = raw_text(read(test))
        cpu = time.process_time()
        list(pipeline.parse(text))  # again, timed in CPU seconds: text in, analysed sentences out
        result["raw_cpu_words_per_second"] = round(raw["words"] / max(time.process_time() - cpu, 1e-9))
    for key, value in result.items():
        print(f"{key:32} {value}")
    Path(args.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
