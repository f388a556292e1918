"""Consistent tags on and off on the same joint network: UPOS, XPOS, UFeats, AllTags, Lemmas and LAS.

Parses a test file from its gold tokenization (the network tags, lemmatizes and parses) twice with
one model: each tagging head's best class (off), then the (UPOS, XPOS, FEATS) combination of
training with the best sum of log-probabilities (on, :meth:`barley.neural.joint.Annotator._tags`),
scores both with the CoNLL 2018 metrics (:mod:`barley.evaluation.conll18`) and counts the words
whose UPOS/XPOS pair, and whose whole combination, never occurs in the training file. A model
trained before barley kept the combinations gets them from ``TRAIN`` here (its own training file:
every class of it is one of the network's).

    python bench/bench_tags.py MODEL TRAIN.conllu TEST.conllu
"""

from __future__ import annotations

import argparse


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("model")
    options.add_argument("train")
    options.add_argument("test")
    args = options.parse_args()

    from barley.conllu import FEATS, UPOS, XPOS, read
    from barley.evaluation.conll18 import evaluate_conll18
    from barley.pipeline import Pipeline

    pipeline = Pipeline.load(args.model).only(["joint"])
    (joint,) = pipeline.components
    annotator = joint.parser.annotator
    train = list(read(args.train))
    added = annotator.tables.tag_sets is None
    if added:
        joint.with_tag_sets(train)
    seen_pairs = {(w[UPOS], w[XPOS]) for s in train for w in s.words}
    seen = {(w[UPOS], w[XPOS], w[FEATS]) for s in train for w in s.words}
    gold = list(read(args.test))
    print(f"{args.model}: {len(annotator.tables.tag_sets)} tag combinations"
          + (f" (from {args.train})" if added else "") + f"; {args.test}, {sum(len(s) for s in gold)} words")
    print(f"{'tags':12} {'UPOS':>6} {'XPOS':>6} {'UFeats':>6} {'AllTags':>7} {'Lemmas':>6} {'LAS':>6}  unseen pairs, "
          "combinations")
    for name, on in (("independent", False), ("consistent", True)):
        annotator.consistent_tags = on
        parsed = list(pipeline.parse([s.copy() for s in gold]))
        scores = evaluate_conll18(gold, parsed).scores
        pairs = sum((w[UPOS], w[XPOS]) not in seen_pairs for s in parsed for w in s.words)
        combinations = sum((w[UPOS], w[XPOS], w[FEATS]) not in seen for s in parsed for w in s.words)
        print(f"{name:12} " + " ".join(f"{scores[metric].f1:6.2f}" for metric in ("UPOS", "XPOS", "UFeats"))
              + f" {scores['AllTags'].f1:7.2f} {scores['Lemmas'].f1:6.2f} {scores['LAS'].f1:6.2f}  {pairs}, "
              f"{combinations}")


if __name__ == "__main__":
    main()
