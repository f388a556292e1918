"""Train and parse the shared treebanks with barley's greedy transition-based parsers.

Per treebank and system: LAS, UAS, LEM (every word counted, punctuation included),
training time, parsing speed in words/second (the parse loop of one process, in wall-clock
and in CPU time — the machine may be shared — and the whole `barley parse` command with
its start-up), peak memory of training and of parsing. Prints a table and writes JSON.

    python bench/bench_parser.py                         # arc-eager, swap-lazy, covington-nonprojective, 2-planar
    python bench/bench_parser.py --systems arc-eager --treebanks UD_English-EWT
    python bench/bench_parser.py --systems arc-eager --split 'UPOS(Input[0])'  # MaltParser's data split
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

UD = Path(os.environ.get("BARLEY_UD_DIR", Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"))
TREEBANKS = {
    "UD_English-EWT": ("en_ewt-ud-train.conllu", "en_ewt-ud-test.conllu"),
    "UD_Gothic-PROIEL": ("got_proiel-ud-train.conllu", "got_proiel-ud-test.conllu"),
    "UD_Latin-Perseus": ("la_perseus-ud-train.conllu", "la_perseus-ud-test.conllu"),
    "UD_Turkish-IMST": ("tr_imst-ud-train.conllu", "tr_imst-ud-test.conllu"),
}
SYSTEMS = ("arc-eager", "swap-lazy", "covington-nonprojective", "2-planar")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one_training(train: str, system: str, learner: str, model: str, min_feature_count: str, split: str) -> dict:
    from barley.kinds import train as train_parser

    started = time.perf_counter()
    parser = train_parser(train, system=system, learner=learner, log=lambda m: None, split=split or None,
                          min_feature_count=int(min_feature_count))
    seconds = time.perf_counter() - started
    parser.save(model)
    return {"train_s": round(seconds, 1), "train_peak_mb": round(peak_mb())}


def one_parse(model: str, test: str) -> dict:
    from barley.conllu import read
    from barley.kinds import evaluate_parser
    from barley.pipeline import Pipeline

    parser = Pipeline.load(model)
    sentences = list(read(test))
    started, cpu_started = time.perf_counter(), time.process_time()
    scores = evaluate_parser(parser, sentences)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    return {"LAS": scores["LAS"], "UAS": scores["UAS"], "LEM": scores["LEM"], "words": scores["words"],
            "parse_words_per_s": round(scores["words"] / seconds),
            "parse_words_per_cpu_s": round(scores["words"] / cpu_seconds), "parse_peak_mb": round(peak_mb()),
            "illegal_top": parser.stats.illegal_top, "scored_steps": parser.stats.scored}


def child(*args: str) -> dict:
    """Run one step in a fresh process, so that its peak memory is its own."""
    out = subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--treebanks", nargs="*", default=["UD_English-EWT", "UD_Gothic-PROIEL", "UD_Latin-Perseus"])
    parser.add_argument("--systems", nargs="*", default=list(SYSTEMS))
    parser.add_argument("--learner", default="linear")
    parser.add_argument("--min-feature-count", type=int, default=None,
                        help="barley train's --min-feature-count (default: its default)")
    parser.add_argument("--split", metavar="FEATURE", default=None,
                        help="barley train's --split, e.g. 'UPOS(Input[0])' (default: none; "
                             "XPOS(Input[0]) for svm-poly2, as in Nivre 2008 §6.1)")
    parser.add_argument("--json", default="bench_parser.json", help="where to write the figures")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        step, *rest = args.child
        result = one_training(*rest) if step == "train" else one_parse(*rest)
        print(json.dumps(result))
        return 0

    from barley.transition.parser import MIN_FEATURE_COUNT
    from barley.systems import REGISTRY

    split = args.split if args.split is not None else "XPOS(Input[0])" if args.learner == "svm-poly2" else ""
    results = []
    print(f"{'treebank':18} {'system':24} {'LAS':>6} {'UAS':>6} {'LEM':>6} {'train s':>8} {'words/s':>8} "
          f"{'w/cpu-s':>8} {'cli w/s':>8} {'train MB':>8} {'parse MB':>8}")
    for treebank in args.treebanks:
        train_name, test_name = TREEBANKS[treebank]
        train, test = UD / treebank / train_name, UD / treebank / test_name
        if not train.exists():
            print(f"{treebank}: not found under {UD}, skipped")
            continue
        for system in args.systems:
            if system not in REGISTRY:
                print(f"{treebank:18} {system:24} not registered, skipped")
                continue
            with tempfile.TemporaryDirectory() as folder:
                model = os.path.join(folder, "model.barley")
                row = {"treebank": treebank, "system": system, "learner": args.learner, "split": split or None}
                row.update(child("--child", "train", str(train), system, args.learner, model,
                                 str(args.min_feature_count or MIN_FEATURE_COUNT), split))
                row.update(child("--child", "parse", model, str(test)))
                started = time.perf_counter()
                subprocess.run([sys.executable, "-m", "barley", "parse", "-q", "-m", model, str(test),
                                "-o", os.path.join(folder, "out.conllu")], check=True)
                row["cli_words_per_s"] = round(row["words"] / (time.perf_counter() - started))
            results.append(row)
            print(f"{treebank:18} {system:24} {row['LAS']:6.2f} {row['UAS']:6.2f} {row['LEM']:6.2f} "
                  f"{row['train_s']:8.1f} {row['parse_words_per_s']:8d} {row['parse_words_per_cpu_s']:8d} {row['cli_words_per_s']:8d} "
                  f"{row['train_peak_mb']:8d} {row['parse_peak_mb']:8d}", flush=True)
    with open(args.json, "w", encoding="utf-8") as handle:
        json.dump({"setting": "gold tokens and tags, train → test, every word counted (punctuation included)",
                   "results": results}, handle, indent=1)
    print(f"written: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
