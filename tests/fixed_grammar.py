"""A toy language with a fixed grammar, written by the tests: a parser must learn it perfectly.

det (adj) noun verb det (adj) noun (adp det noun) . — every sentence of that shape, its words chosen at random.
"""

from __future__ import annotations

import random

NOUNS = ["dog", "cat", "bird", "fox", "cow", "owl"]
VERBS = ["sees", "likes", "chases", "feeds"]
ADJECTIVES = ["big", "small", "red", "old"]


def _toy_sentence(rng: random.Random, number: int) -> str:
    """det (adj) noun verb det (adj) noun (adp det noun) . — with multiword-free CoNLL-U lines."""
    words = []  # (form, upos, head, deprel) with heads as offsets resolved below

    def noun_phrase(role):
        start = len(words) + 1
        adjective = rng.random() < 0.5
        noun_at = start + 1 + adjective
        words.append(("the", "DET", noun_at, "det"))
        if adjective:
            words.append((rng.choice(ADJECTIVES), "ADJ", noun_at, "amod"))
        words.append((rng.choice(NOUNS), "NOUN", None, role))
        return noun_at

    subject = noun_phrase("nsubj")
    verb_at = len(words) + 1
    words.append((rng.choice(VERBS), "VERB", 0, "root"))
    obj = noun_phrase("obj")
    if rng.random() < 0.5:
        words.append(("with", "ADP", None, "case"))
        case_at = len(words)
        noun = noun_phrase("obl")
        words[case_at - 1] = ("with", "ADP", noun, "case")
        words[noun - 1] = words[noun - 1][:2] + (verb_at, "obl")
    words[subject - 1] = words[subject - 1][:2] + (verb_at, "nsubj")
    words[obj - 1] = words[obj - 1][:2] + (verb_at, "obj")
    words.append((".", "PUNCT", verb_at, "punct"))
    lines = [f"# sent_id = toy-{number}", f"# text = {' '.join(w[0] for w in words)}"]
    for i, (form, upos, head, deprel) in enumerate(words, start=1):
        lines.append(f"{i}\t{form}\t{form}\t{upos}\t{upos[:2]}\tToy=Yes\t{head}\t{deprel}\t_\tSpaceAfter=No")
    return "\n".join(lines) + "\n\n"


def toy_treebank(path, count: int, seed: int) -> None:
    """``count`` sentences of the toy language, written to ``path`` (CoNLL-U)."""
    rng = random.Random(seed)
    path.write_text("".join(_toy_sentence(rng, i) for i in range(count)), encoding="utf-8")
