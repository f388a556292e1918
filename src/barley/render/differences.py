"""The sentences on which parsers disagree most, drawn: for the experiment reports.

Every parser's output of the same gold file is read; a sentence's disagreement is
the number of its words whose (head, label) is not the same in every output.
Sentences of a readable length are ranked by it (file order among equals), and
each is drawn as the gold tree and every parser's tree with its errors marked.
"""

from __future__ import annotations

from collections.abc import Iterable

from barley import render
from barley.conllu import Sentence, read
from barley.render import html

SHORTEST, LONGEST = 5, 25  # words: long enough to be interesting, short enough to read on a page


def disagreement(outputs: list[Sentence]) -> int:
    """Words whose head or label differs between the outputs of one sentence."""
    trees = [list(zip(sentence.heads().tolist(), sentence.deprels())) for sentence in outputs]
    return sum(len(set(arcs)) > 1 for arcs in zip(*trees))


def differing(gold: Iterable[Sentence], outputs: dict[str, Iterable[Sentence]], count: int = 3) -> list[html.Figure]:
    """Figures of the ``count`` sentences (of SHORTEST to LONGEST words) the parsers disagree on most."""
    names = list(outputs)
    candidates = []
    for number, (gold_sentence, *parsed) in enumerate(zip(gold, *outputs.values()), start=1):
        if SHORTEST <= len(gold_sentence) <= LONGEST:
            score = disagreement(parsed)
            if score:
                candidates.append((-score, number, gold_sentence, parsed))
    candidates.sort(key=lambda item: item[:2])
    figures = []
    for negative, number, gold_sentence, parsed in candidates[:count]:
        drawings = [("gold", render.from_sentence(gold_sentence, title=""))]
        for name, sentence in zip(names, parsed):
            marked = render.compare(gold_sentence, sentence, title="")
            drawings.append((f"{name}: {marked.errors} words wrong", marked))
        figures.append(html.Figure(render.title_of(gold_sentence, f"sentence {number}"), drawings,
                                   notes=[f"sentence {number}: the parsers disagree on {-negative} of "
                                          f"{len(gold_sentence)} words"]))
    return figures


def read_outputs(gold_path: str, outputs: dict[str, str], count: int = 3) -> list[html.Figure]:
    """:func:`differing` over files."""
    return differing(read(gold_path), {name: read(path) for name, path in outputs.items()}, count)
