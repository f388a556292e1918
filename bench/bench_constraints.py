"""Given arcs (``barley parse --keep-arcs``): LAS on the free words with and without the given arcs, and time.

A share of the gold arcs of each sentence (HEAD and DEPREL) is given at random; the other
words' HEAD and DEPREL, and every word's UPOS, XPOS, FEATS and LEMMA, are blanked (gold
tokenization, predicted tags). The same input is parsed twice by the model: ignoring the
given arcs, and keeping them. Printed: LAS and UAS over the free words (every word counted,
punctuation included) both ways, whether every given arc was kept, and parse times (tagging
included, after a warm-up parse).

    python bench/bench_constraints.py /work/shared/data/ud/UD_English-EWT/en_ewt-ud-test.conllu \\
        --model src/barley/models/en_ewt.barley --given 0.5 --seed 1 [--subtrees]
"""

from __future__ import annotations

import argparse
import random
import time

from barley.conllu import DEPREL, FEATS, HEAD, LEMMA, UPOS, XPOS, read
from barley.constraints import ArcOptions
from barley.pipeline import Pipeline
from barley.shipped import default_model_path


def subtrees(sentence, share: float, rng: random.Random) -> set[int]:
    """Whole subtrees of the gold tree (a word's arc and every arc below it), tops taken in a random
    order, until about ``share`` of the words are given (a subtree that would overshoot is skipped)."""
    heads = [int(h) for h in sentence.heads()]
    below: list[set[int]] = [{d} for d in range(len(heads))]
    for d in range(1, len(heads)):
        node = heads[d]
        while node > 0:
            below[node].add(d)
            node = heads[node]
    kept: set[int] = set()
    for top in rng.sample(range(1, len(heads)), len(heads) - 1):
        new = below[top] - kept
        if len(kept) + len(new) <= share * (len(heads) - 1) + 0.5:
            kept |= new
    return kept


def blanked(gold, share: float, rng: random.Random, whole_subtrees: bool = False):
    """Copies of ``gold`` with tags blanked and the arcs of a random ``share`` of the words kept (with
    ``whole_subtrees``, of whole subtrees, :func:`subtrees`); and per sentence the set of words whose
    arc is given."""
    copies, given = [], []
    for sentence in gold:
        copy = sentence.copy()
        if whole_subtrees:
            kept = subtrees(sentence, share, rng)
        else:
            kept = {d for d in range(1, len(copy) + 1) if rng.random() < share}
        for d, word in enumerate(copy.words, 1):
            for column in (UPOS, XPOS, FEATS, LEMMA):
                word[column] = "_"
            if d not in kept:
                word[HEAD] = word[DEPREL] = "_"
        copies.append(copy)
        given.append(kept)
    return copies, given


def scores(gold, parsed, given) -> tuple[float, float, int, int]:
    """LAS and UAS over the free words; the free words; the given arcs not kept."""
    free = las = uas = lost = 0
    for g, p, kept in zip(gold, parsed, given):
        for d, (gw, pw) in enumerate(zip(g.words, p.words), 1):
            if d in kept:
                lost += (gw[HEAD], gw[DEPREL]) != (pw[HEAD], pw[DEPREL])
                continue
            free += 1
            uas += gw[HEAD] == pw[HEAD]
            las += gw[HEAD] == pw[HEAD] and gw[DEPREL] == pw[DEPREL]
    return 100.0 * las / free, 100.0 * uas / free, free, lost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold")
    parser.add_argument("--model", default=None)
    parser.add_argument("--given", type=float, default=0.5, help="share of the gold arcs given (default 0.5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--subtrees", action="store_true",
                        help="give the arcs of whole gold subtrees (about the share of the words) instead of "
                             "random words")
    args = parser.parse_args()
    pipeline = Pipeline.load(args.model or default_model_path())
    gold = list(read(args.gold))
    copies, given = blanked(gold, args.given, random.Random(args.seed), args.subtrees)
    list(pipeline.parse([s.copy() for s in copies[:50]], arcs=ArcOptions(keep=True)))  # warm-up: lazy loading
    results = {}
    for name, arcs in (("without", None), ("with", ArcOptions(keep=True))):
        inputs = [s.copy() for s in copies]
        if arcs is None:
            for sentence in inputs:
                for word in sentence.words:
                    word[HEAD] = word[DEPREL] = "_"
        started = time.perf_counter()
        parsed = list(pipeline.parse(inputs, arcs=arcs))
        seconds = time.perf_counter() - started
        results[name] = (*scores(gold, parsed, given), seconds)
    free = results["with"][2]
    how = "whole subtrees" if args.subtrees else "random words"
    print(f"{args.gold}: {len(gold)} sentences; {sum(map(len, given))} given arcs ({args.given:.0%} of {how}, "
          f"seed {args.seed}), "
          f"{free} free words; model {args.model or default_model_path()}")
    for name, (las, uas, _, lost, seconds) in results.items():
        kept = f"; given arcs not kept: {lost}" if name == "with" else ""
        print(f"{name:>7} given arcs: LAS {las:.2f}, UAS {uas:.2f} on the free words; parse {seconds:.1f} s{kept}")


if __name__ == "__main__":
    main()
