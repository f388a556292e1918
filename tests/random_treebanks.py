"""Random treebanks: random_sentences for the fast-loop and confidence tests, random_conllu_text for the experiment."""

from __future__ import annotations

import random

from barley.conllu import read_lines
from random_trees import any_tree

FORMS = ["the", "dog", "runs", "fast", "a", "cat", "sees", "it", "and", "big", "old", "."]
TAGS = ["DET", "NOUN", "VERB", "ADV", "ADJ", "PRON", "CCONJ", "PUNCT"]
FEATS = ["_", "Number=Sing", "Number=Plur", "Number=Sing|Person=3", "Tense=Past|VerbForm=Fin", "Case=Nom"]
LABELS = ["nsubj", "obj", "det", "amod", "advmod", "cc", "conj", "punct"]


def _conllu(words: list[tuple[str, str, str]], heads: list[int], labels: list[str]) -> list[str]:
    return [f"{i}\t{form}\t{form}\t{tag}\t{tag}X\t{feats}\t{heads[i]}\t{labels[i]}\t_\t_"
            for i, (form, tag, feats) in enumerate(words, start=1)] + [""]


def random_sentences(seed: int, count: int) -> list:
    """``count`` random sentences (any tree, one root word) with random words, tags and FEATS."""
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        n = rng.randint(1, 12)
        heads = any_tree(rng.randint, n, True)
        labels = ["_"] + ["root" if heads[d] == 0 else rng.choice(LABELS) for d in range(1, n + 1)]
        words = [(rng.choice(FORMS), rng.choice(TAGS), rng.choice(FEATS)) for _ in range(n)]
        lines += _conllu(words, heads, labels)
    return list(read_lines(lines))


UPOS = ("NOUN", "VERB", "ADJ", "DET", "ADP")


def random_conllu_text(seed: int, count: int) -> str:
    """``count`` random trees of 3-9 words (many non-projective), labels a function of the tags."""
    rng = random.Random(seed)
    blocks = []
    for number in range(count):
        n = rng.randint(3, 9)
        order = rng.sample(range(1, n + 1), n)  # each node attaches to one placed before it: a tree
        heads = [0] * (n + 1)
        for k in range(1, n):
            heads[order[k]] = rng.choice(order[:k])
        tags = [""] + [rng.choice(UPOS) for _ in range(n)]
        lines = [f"# sent_id = s{seed}-{number}"]
        for d in range(1, n + 1):
            h = heads[d]
            label = "root" if h == 0 else "mod" if tags[h] == "NOUN" else "arg" if d < h else "obj"
            lines.append("\t".join([str(d), tags[d].lower(), "_", tags[d], "_", "_", str(h), label, "_", "_"]))
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks) + "\n"
