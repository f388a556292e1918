"""Given arcs (``barley parse --keep-arcs``): LAS on the free words with and without the given arcs, and time.

A share of the gold arcs of each sentence (HEAD and DEPREL) is given at random; the other
words' HEAD and DEPREL, and every word's UPOS, XPOS, FEATS and LEMMA, are blanked (gold
tokenization, predicted tags). The same input is parsed twice by the model: ignoring the
given arcs, and keeping them. Printed: LAS and UAS over the free words (every word counted,
punctuation included) both ways, whether every given arc was kept, and parse times (tagging
included, after a warm-up parse). With ``--gold-tags`` the file's tags and lemmas are kept instead:
for a model without a tagger (a bare parser, which reads the tags of its input and refuses a file
without them).

    python bench/bench_constraints.py /work/shared/data/ud/UD_English-EWT/en_ewt-ud-test.conllu \\
        --model src/barley/models/en_ewt.barley --given 0.5 --seed 1 [--subtrees] [--gold-tags]
"""

from __future__ import annotations

import argparse
import random
import time

from barley.conllu import DEPREL, FEATS, HEAD, LEMMA, UPOS, XPOS, read
from barley.constraints import ArcOptions
from barley.models.shipped import default_model_path
from barley.pipeline import Pipeline


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


def model_labels(pipeline) -> set[str]:
    """The DEPRELs the model's parser knows (a joint network keeps them in its annotator's tables)."""
    parser = pipeline._parser.parser  # the parse component or the joint one
    return set(parser.labels if hasattr(parser, "labels") else parser.annotator.tables.labels)


def blanked(gold, share: float, rng: random.Random, labels: set[str], whole_subtrees: bool = False,
            gold_tags: bool = False):
    """Copies of ``gold`` with tags blanked (kept with ``gold_tags``) and the arcs of a random ``share``
    of the words kept (with ``whole_subtrees``, of whole subtrees, :func:`subtrees`), a given arc whose
    DEPREL is not among the model's ``labels`` given by its HEAD alone (``barley parse`` refuses a label
    the model does not know); per sentence the set of words whose arc is given; and how many were
    given without their label."""
    copies, given, unlabelled = [], [], 0
    for sentence in gold:
        copy = sentence.copy()
        if whole_subtrees:
            kept = subtrees(sentence, share, rng)
        else:
            kept = {d for d in range(1, len(copy) + 1) if rng.random() < share}
        for d, word in enumerate(copy.words, 1):
            for column in () if gold_tags else (UPOS, XPOS, FEATS, LEMMA):
                word[column] = "_"
            if d not in kept:
                word[HEAD] = word[DEPREL] = "_"
            elif word[DEPREL] not in labels:
                word[DEPREL] = "_"
                unlabelled += 1
        copies.append(copy)
        given.append(kept)
    return copies, given, unlabelled


def scores(gold, inputs, parsed, given) -> tuple[float, float, int, int]:
    """LAS and UAS over the free words; the free words; the given arcs not kept (a head given alone,
    :func:`blanked`, is kept whatever its label)."""
    free = las = uas = lost = 0
    for g, i, p, kept in zip(gold, inputs, parsed, given):
        for d, (gw, iw, pw) in enumerate(zip(g.words, i.words, p.words), 1):
            if d in kept:
                lost += gw[HEAD] != pw[HEAD] or (iw[DEPREL] != "_" and gw[DEPREL] != pw[DEPREL])
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
    parser.add_argument("--gold-tags", action="store_true",
                        help="keep the file's UPOS, XPOS, FEATS and LEMMA (for a model without a tagger, "
                             "which reads them)")
    args = parser.parse_args()
    pipeline = Pipeline.load(args.model or default_model_path())
    gold = list(read(args.gold))
    copies, given, unlabelled = blanked(gold, args.given, random.Random(args.seed), model_labels(pipeline),
                                        args.subtrees, args.gold_tags)
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
        results[name] = (*scores(gold, copies, parsed, given), seconds)
    free = results["with"][2]
    how = "whole subtrees" if args.subtrees else "random words"
    tags = "the file's tags" if args.gold_tags else "predicted tags"
    print(f"{args.gold}: {len(gold)} sentences; {sum(map(len, given))} given arcs ({args.given:.0%} of {how}, "
          f"seed {args.seed}; {unlabelled} of them by the head alone, their label unknown to the model), "
          f"{free} free words, {tags}; model {args.model or default_model_path()}")
    for name, (las, uas, _, lost, seconds) in results.items():
        kept = f"; given arcs not kept: {lost}" if name == "with" else ""
        print(f"{name:>7} given arcs: LAS {las:.2f}, UAS {uas:.2f} on the free words; parse {seconds:.1f} s{kept}")


if __name__ == "__main__":
    main()
