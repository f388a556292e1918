"""A small toy language with morphology, written by the tests (no treebank needed).

Sentences: Det (Adj) Noun Verb Det (Adj) Noun (with Det Noun) . — nouns take a plural
-s (lemma without it, Number=Plur), verbs a past -ed or a present -s, the first word
is capitalised (lemma in lower case), and "walk"/"fish" are both nouns and verbs, so
a tagger must read the context. Trees are complete, so a parser can learn them.
"""

from __future__ import annotations

import random

NOUNS = ["dog", "cat", "bird", "fox", "cow", "owl", "walk", "fish"]
VERBS = ["see", "like", "chase", "feed", "walk", "fish"]
ADJECTIVES = ["big", "small", "red", "old"]
DETERMINERS = ["the", "a", "every"]


def _noun(rng: random.Random) -> tuple[str, str, str, str]:
    lemma = rng.choice(NOUNS)
    if rng.random() < 0.4:
        return lemma + ("es" if lemma.endswith("sh") else "s"), lemma, "NOUN", "Number=Plur"
    return lemma, lemma, "NOUN", "Number=Sing"


def _verb(rng: random.Random) -> tuple[str, str, str, str]:
    lemma = rng.choice(VERBS)
    if rng.random() < 0.5:
        return lemma + ("d" if lemma.endswith("e") else "ed"), lemma, "VERB", "Tense=Past"
    return lemma + ("es" if lemma.endswith("sh") else "s"), lemma, "VERB", "Tense=Pres"


def sentence(rng: random.Random, number: int) -> str:
    words: list[list] = []  # [form, lemma, upos, feats, head, deprel]

    def noun_phrase(role: str) -> int:
        start = len(words) + 1
        adjective = rng.random() < 0.5
        noun_at = start + 1 + adjective
        determiner = rng.choice(DETERMINERS)
        words.append([determiner, determiner, "DET", "_", noun_at, "det"])
        if adjective:
            adj = rng.choice(ADJECTIVES)
            words.append([adj, adj, "ADJ", "Degree=Pos", noun_at, "amod"])
        words.append([*_noun(rng), None, role])
        return noun_at

    subject = noun_phrase("nsubj")
    verb_at = len(words) + 1
    words.append([*_verb(rng), 0, "root"])
    obj = noun_phrase("obj")
    if rng.random() < 0.5:
        words.append(["with", "with", "ADP", "_", None, "case"])
        case_at = len(words)
        noun = noun_phrase("obl")
        words[case_at - 1][4] = noun
        words[noun - 1][4:] = [verb_at, "obl"]
    words[subject - 1][4] = verb_at
    words[obj - 1][4] = verb_at
    words.append([".", ".", "PUNCT", "_", verb_at, "punct"])
    words[0][0] = words[0][0].capitalize()
    lines = [f"# sent_id = toy-{number}", f"# text = {' '.join(w[0] for w in words[:-1])}."]
    for i, (form, lemma, upos, feats, head, deprel) in enumerate(words, start=1):
        misc = "SpaceAfter=No" if i == len(words) - 1 else "_"
        lines.append(f"{i}\t{form}\t{lemma}\t{upos}\t{upos[0]}{feats[-4:] if feats != '_' else ''}\t{feats}"
                     f"\t{head}\t{deprel}\t_\t{misc}")
    return "\n".join(lines) + "\n\n"


def treebank(path, count: int, seed: int) -> None:
    """Write ``count`` toy sentences to ``path`` (CoNLL-U)."""
    rng = random.Random(seed)
    path.write_text("".join(sentence(rng, i) for i in range(count)), encoding="utf-8")
