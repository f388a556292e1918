"""Random CoNLL-U with multiword tokens (treebanks, block, sentences_of), for the CoNLL 2018 evaluation tests."""

from __future__ import annotations

from hypothesis import strategies as st

from barley import conllu


def block(*rows: str) -> str:
    """One sentence of CoNLL-U from rows 'ID FORM LEMMA UPOS FEATS HEAD DEPREL' (XPOS is UPOS lower-cased)."""
    lines = []
    for row in rows:
        token_id, form, *rest = row.split()
        if "-" in token_id:
            lines.append(f"{token_id}\t{form}" + "\t_" * 8)
            continue
        lemma, upos, feats, head, deprel = rest
        lines.append("\t".join([token_id, form, lemma, upos, upos.lower(), feats, head, deprel, "_", "_"]))
    return "\n".join(lines) + "\n\n"


FORMS = ("a", "b", "ab", "ba", "aa")  # few letters: many equal FORMs, so the LCS has ties to break


@st.composite
def treebanks(draw, multiword: bool = True):
    """CoNLL-U text of 1-4 random sentences: random trees, tags, lemmas and multiword tokens."""
    sentences = []
    for _ in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 7))
        order = draw(st.permutations(range(1, n + 1)))
        heads = [0] * (n + 1)
        for index, word in enumerate(order):
            heads[word] = draw(st.sampled_from([0, *order[:index]])) if index else 0
        rows, word = [], 1
        while word <= n:
            size = draw(st.integers(2, 3)) if multiword and n - word >= 1 and draw(st.booleans()) else 1
            size = min(size, n - word + 1)
            if size > 1:
                rows.append(f"{word}-{word + size - 1} {draw(st.sampled_from(FORMS))}")
            for w in range(word, word + size):
                relation = draw(st.sampled_from(["root", "nsubj", "det", "case", "punct", "obl:tmod"]))
                rows.append(f"{w} {draw(st.sampled_from(FORMS))} {draw(st.sampled_from(['x', '_']))} "
                            f"{draw(st.sampled_from(['NOUN', 'DET']))} {draw(st.sampled_from(['_', 'Case=Nom']))} "
                            f"{heads[w]} {relation}")
            word += size
        sentences.append(block(*rows))
    return "".join(sentences)


def sentences_of(text: str) -> list[conllu.Sentence]:
    return list(conllu.read_lines(text.splitlines()))
