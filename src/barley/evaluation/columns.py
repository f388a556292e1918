"""Each predicted column's accuracy against gold sentences of the same words (gold tokenization): what
``barley evaluate`` gives a pipeline, and what neural training scores on dev each epoch."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from barley.conllu import COLUMNS, Sentence

SCORES = {"UPOS": ("UPOS",), "XPOS": ("XPOS",), "UFeats": ("FEATS",),
          "AllTags": ("UPOS", "XPOS", "FEATS"), "Lemmas": ("LEMMA",), "UAS": ("HEAD",),
          "LAS": ("HEAD", "DEPREL")}
"""What :meth:`Pipeline.evaluate` scores: a word counts when all its columns are right."""


def accuracies(gold: Sequence[Sentence], predicted: Sequence[Sentence], written: Iterable[str]) -> dict:
    """The :data:`SCORES` whose columns are all ``written``, in percent of the words of ``gold``
    (every word, punctuation included), for ``predicted`` copies of the same sentences; and ``words``."""
    written = set(written)
    words = sum(len(s) for s in gold)
    scores: dict = {}
    for name, columns in SCORES.items():
        if all(column in written for column in columns):
            indexes = [COLUMNS.index(column) for column in columns]
            right = sum(all(g[i] == p[i] for i in indexes)
                        for gs, ps in zip(gold, predicted) for g, p in zip(gs.words, ps.words))
            scores[name] = round(100.0 * right / max(words, 1), 2)
    scores["words"] = words
    return scores
