"""``Pipeline.pipe`` over many texts: words/s with 1 and 2 processes (target: 2 processes ≥ 1.8 × one).

The texts are the documents of a treebank's test file as raw text (each document's
paragraphs, from its ``# text`` comments, separated by blank lines), the whole list
repeated ``--repeat`` times to make a large input. Each run streams them through
``pipe`` with the model (default: the shipped one) and counts the words of the
documents it yields; the outputs of all runs are checked to be the same. Runs of
each setting are interleaved and the best one kept (the machine may be shared).
Each worker process runs one thread; so that the one-process run does too, BLAS
threads are set to one before numpy loads (OPENBLAS_NUM_THREADS and its kin).

    python bench/bench_pipe.py
    python bench/bench_pipe.py --model ewt.barley --test ../shared/data/ud/UD_English-EWT/en_ewt-ud-test.conllu
    python bench/bench_pipe.py --processes 1 2 4 --batch-size 32 --repeat 8
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # noqa: E402
import hashlib  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import barley  # noqa: E402
from barley.conllu import read  # noqa: E402
from barley.models.shipped import DEFAULT  # noqa: E402
from barley.tokenizer.treebank_text import paragraphs  # noqa: E402

EWT_TEST = Path(__file__).resolve().parents[2] / "shared" / "data" / "ud" / "UD_English-EWT" / "en_ewt-ud-test.conllu"


def documents(path: str) -> list[str]:
    """The raw text of each document of a treebank file (paragraphs separated by blank lines)."""
    texts: list[list[str]] = []
    for paragraph in paragraphs(read(path)):
        if paragraph.new_document or not texts:
            texts.append([])
        texts[-1].append(paragraph.text)
    return ["\n\n".join(document) + "\n" for document in texts]


def run(pipeline, texts: list[str], n_process: int, batch_size: int) -> tuple[int, float, str]:
    """Words, seconds and a digest of the output of one ``pipe`` over ``texts``."""
    digest = hashlib.sha256()
    words = 0
    started = time.perf_counter()
    for document in pipeline.pipe(texts, batch_size=batch_size, n_process=n_process):
        for sentence in document:
            words += len(sentence)
            digest.update(sentence.to_text().encode("utf-8"))
    return words, time.perf_counter() - started, digest.hexdigest()


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--model", default=DEFAULT, help=f"a model name or file (default: {DEFAULT}, shipped)")
    options.add_argument("--test", default=str(EWT_TEST), help="the treebank whose text is parsed (default: EWT test)")
    options.add_argument("--processes", type=int, nargs="+", default=[1, 2])
    options.add_argument("--batch-size", type=int, default=64)
    options.add_argument("--repeat", type=int, default=4, help="the documents this many times over (default 4)")
    options.add_argument("--rounds", type=int, default=3)
    args = options.parse_args()
    if not Path(args.test).is_file():
        raise SystemExit(f"{args.test}: not found (give --test FILE)")

    pipeline = barley.load(args.model)
    texts = documents(args.test) * args.repeat
    run(pipeline, texts[:20], 1, args.batch_size)  # what the components build on first use
    best: dict[int, float] = {}
    outputs = set()
    for _ in range(args.rounds):
        for n_process in args.processes:
            words, seconds, digest = run(pipeline, texts, n_process, args.batch_size)
            best[n_process] = min(best.get(n_process, seconds), seconds)
            outputs.add(digest)
    print(f"{args.model} on {Path(args.test).name} as {len(texts)} texts ({args.repeat} × its documents), {words} words, "
          f"batch_size {args.batch_size}, best of {args.rounds} rounds; {os.cpu_count()} cores here")
    one = words / best[args.processes[0]]
    for n_process in args.processes:
        rate = words / best[n_process]
        print(f"  n_process={n_process}: {rate:,.0f} words/s ({best[n_process]:.1f} s), {rate / one:.2f} × "
              f"n_process={args.processes[0]}")
    print(f"  the same output from every run: {'yes' if len(outputs) == 1 else 'NO'}")


if __name__ == "__main__":
    main()
