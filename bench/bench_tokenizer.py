"""Tokenizer benchmark: train on a UD treebank's train set, tokenize its test text, score and time.

The test text is rebuilt from the gold test file's ``# text`` comments, with paragraphs
as the treebank marks them (``# newdoc`` / ``# newpar``) separated by blank lines — the
raw text a user would give. Printed per treebank and kind of tokenizer (``linear``,
``neural``: the neural one chooses its epoch on the treebank's dev set, or without one
on the end of its training set): training time, tokenizing speed (words and characters
per second of wall-clock time and of CPU time of this one process: the CPU figure is
what one free core would do on a shared machine; run under ``taskset -c 0`` with
``OMP_NUM_THREADS=1`` for one core), whether the output rebuilds the input text exactly,
and Tokens / Sentences / Words F1 (CoNLL 2018 definitions) from
:mod:`barley.evaluation.conll18` — or, in a barley without it, Tokens and Sentences F1 as
spans over the non-whitespace characters. ``--scorer`` names the CoNLL 2018 shared
task's official ``conll18_ud_eval.py`` (not shipped with barley) to print its figures too.

    python bench/bench_tokenizer.py                      # EWT, Gothic-PROIEL, Latin-Perseus; linear
    python bench/bench_tokenizer.py --treebanks en_ewt --scorer ~/conll18_ud_eval.py --stream-mb 20
    OMP_NUM_THREADS=1 taskset -c 0 python bench/bench_tokenizer.py --treebanks en_ewt --kinds linear,neural \\
        --save runs/                                     # also writes runs/en_ewt-neural.barley
    python bench/bench_tokenizer.py --treebanks en_ewt --load runs/en_ewt-neural.barley   # score a saved one
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from barley.conllu import DEPREL, FORM, HEAD, read, write
from barley.pipeline import Pipeline
from barley.pipeline.tokenize import TokenizeComponent, train_neural
from barley.tokenizer import Segmenter, Tokenizer, TokenizerOptions, spaces
from barley.tokenizer.neural import NeuralTokenizerOptions
from barley.tokenizer.treebank_text import raw_text

UD = Path(os.environ.get("BARLEY_UD_DIR", Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"))


def spans(sentences) -> tuple[set, set]:
    """Token spans and sentence spans over the non-whitespace characters (CoNLL 2018)."""
    tokens, sentence_spans, position = set(), set(), 0
    for sentence in sentences:
        start = position
        for row in spaces.token_rows(sentence):
            length = len("".join(row[FORM].split()))
            tokens.add((position, position + length))
            position += length
        sentence_spans.add((start, position))
    return tokens, sentence_spans


def f1(gold: set, system: set) -> float:
    return 100 * 2 * len(gold & system) / max(len(gold) + len(system), 1)


def official(scorer: str, gold: Path, system: list) -> dict[str, float]:
    """Tokens, Sentences and Words F1 from the official scorer (it needs numeric heads: a chain)."""
    for sentence in system:
        for i, word in enumerate(sentence.words):
            word[HEAD], word[DEPREL] = str(i), "dep"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "system.conllu")
        write(system, path)
        result = subprocess.run([sys.executable, scorer, "-v", str(gold), path], capture_output=True, text=True,
                                check=True).stdout
    scores = {}
    for line in result.splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if cells[0] in ("Tokens", "Sentences", "Words"):
            scores[cells[0]] = float(cells[3])
    return scores


def trained(kind: str, folder: Path, name: str, options: TokenizerOptions | NeuralTokenizerOptions,
            seed: int) -> tuple[Segmenter, str]:
    """A tokenizer of ``kind`` trained on the treebank's train set (the neural one with its dev
    set, if any), and a line saying how long that took."""
    sentences = list(read(str(next(folder.glob(f"{name}-ud-train.conllu")))))
    wall, cpu = time.perf_counter(), time.process_time()
    if kind == "neural":
        dev = next(folder.glob(f"{name}-ud-dev.conllu"), None)
        tokenizer = train_neural(sentences, options, seed=seed, log=print,
                                 dev=None if dev is None else read(str(dev)))
    else:
        tokenizer = Tokenizer.train(sentences, options, seed=seed, log=None)
    return tokenizer, (f"trained in {time.perf_counter() - wall:.1f} s ({time.process_time() - cpu:.1f} s CPU) on "
                       f"{len(sentences)} sentences")


def bench(name: str, folder: Path, tokenizer: Segmenter, how: str, scorer: str | None,
          stream_megabytes: int = 0) -> None:
    test = next(folder.glob(f"{name}-ud-test.conllu"))
    gold = list(read(str(test)))
    text = raw_text(gold)
    wall, cpu = time.perf_counter(), time.process_time()
    system = list(tokenizer.tokenize(text))
    run_wall, run_cpu = time.perf_counter() - wall, time.process_time() - cpu
    words = sum(len(sentence.words) for sentence in system)
    exact = spaces.text_of(system) == text
    print(f"{name}, {tokenizer.kind} tokenizer {how}; test {len(text)} characters, {words} "
          f"words: {words / run_wall:,.0f} words/s, {len(text) / run_wall:,.0f} characters/s ({words / run_cpu:,.0f} "
          f"and {len(text) / run_cpu:,.0f} per CPU second); text rebuilt exactly: {'yes' if exact else 'NO'}")
    try:
        from barley.evaluation.conll18 import evaluate_conll18
    except ImportError:  # barley without the CoNLL 2018 evaluation: token and sentence spans only
        gold_tokens, gold_sentences = spans(gold)
        system_tokens, system_sentences = spans(system)
        print(f"  Tokens F1 {f1(gold_tokens, system_tokens):.2f}  "
              f"Sentences F1 {f1(gold_sentences, system_sentences):.2f}  "
              f"({len(system_sentences)} sentences, gold {len(gold_sentences)})")
    else:
        scores = evaluate_conll18(gold, system).scores
        print("  " + "  ".join(f"{key} F1 {scores[key].f1:.2f}" for key in ("Tokens", "Sentences", "Words"))
              + f"  ({scores['Sentences'].system} sentences, gold {scores['Sentences'].gold})")
    if scorer:
        scores = official(scorer, test, system)
        print("  official scorer: " + "  ".join(f"{key} F1 {value:.2f}" for key, value in scores.items()))
    if stream_megabytes:
        stream(tokenizer, text, stream_megabytes)
    sys.stdout.flush()


def stream(tokenizer: Segmenter, text: str, megabytes: int) -> None:
    """``barley tokenize`` in a child process on ``text`` repeated to ``megabytes`` MB plus a
    200,000-character line without punctuation: words/s and the child's peak memory."""
    with tempfile.TemporaryDirectory() as folder:
        model, source = os.path.join(folder, "tokenizer.barley"), os.path.join(folder, "big.txt")
        Pipeline([TokenizeComponent(tokenizer)], {"pipeline": {"components": ["tokenize"]}}).save(model)
        with open(source, "w", encoding="utf-8") as handle:
            for _ in range(max(1, megabytes * 2**20 // len(text.encode("utf-8")))):
                handle.write(text + "\n")
            handle.write(" ".join(["word"] * 40_000) + "\n")
        size = os.path.getsize(source)
        started = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "barley", "tokenize", "--model", model, source,
                                 "-o", os.devnull], capture_output=True, text=True)
        seconds = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"  barley tokenize on {size / 2**20:.1f} MB: {seconds:.1f} s, exit status {result.returncode}, "
          f"peak memory {peak:.0f} MB; {result.stderr.strip()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ud", type=Path, default=UD, help="folder of UD treebanks (default ../shared/data/ud)")
    parser.add_argument("--treebanks", default="en_ewt,got_proiel,la_perseus",
                        help="comma-separated treebank file prefixes (default en_ewt,got_proiel,la_perseus)")
    parser.add_argument("--scorer", help="path of the official conll18_ud_eval.py, for Words F1")
    parser.add_argument("--stream-mb", type=int, default=0, metavar="N",
                        help="also run `barley tokenize` on the test text repeated to N MB (plus a 200,000-character "
                             "line without punctuation) and print its speed and peak memory")
    parser.add_argument("--kinds", default="linear", help="comma-separated kinds of tokenizer to train: linear, "
                                                              "neural (default linear)")
    parser.add_argument("--load", metavar="MODEL", help="score the tokenizer of this model file instead of training "
                                                        "(one treebank)")
    parser.add_argument("--save", metavar="FOLDER", help="write each trained tokenizer to FOLDER/NAME-KIND.barley")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--C", type=float, default=TokenizerOptions.C)
    parser.add_argument("--bits", type=int, default=TokenizerOptions.bits)
    parser.add_argument("--neural", action="append", default=[], metavar="OPTION=VALUE",
                        help="an option of the neural tokenizer (NeuralTokenizerOptions), e.g. --neural hidden=32")
    args = parser.parse_args()
    options = {"linear": TokenizerOptions(C=args.C, bits=args.bits),
               "neural": NeuralTokenizerOptions(**{key: type(getattr(NeuralTokenizerOptions, key))(value)
                                                   for key, value in (o.split("=", 1) for o in args.neural)})}
    for name in args.treebanks.split(","):
        folders = [path.parent for path in args.ud.glob(f"*/{name}-ud-train.conllu")]
        if not folders:
            print(f"{name}: not found under {args.ud}; skipped")
            continue
        if args.load:
            tokenizer = Pipeline.load(args.load)["tokenize"].tokenizer
            bench(name, folders[0], tokenizer, f"from {args.load}", args.scorer, args.stream_mb)
            continue
        for kind in args.kinds.split(","):
            tokenizer, how = trained(kind, folders[0], name, options[kind], args.seed)
            if args.save:
                Path(args.save).mkdir(parents=True, exist_ok=True)
                Pipeline([TokenizeComponent(tokenizer)], {"pipeline": {"components": ["tokenize"]}}).save(
                    str(Path(args.save) / f"{name}-{kind}.barley"))
            bench(name, folders[0], tokenizer, how, args.scorer, args.stream_mb)


if __name__ == "__main__":
    main()
