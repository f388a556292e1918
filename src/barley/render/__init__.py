"""Pictures of dependency trees: what is drawn (:class:`Drawing`), and how.

One module per way of drawing:

- :mod:`barley.render.text`: the terminal drawing (udapi's text-mode trees: one
  word per line, arcs as brackets on the left, so any length fits the width);
- :mod:`barley.render.svg`: the arc diagram (words on a line, labelled arcs above
  them; crossing arcs cross visibly);
- :mod:`barley.render.html`: self-contained pages holding arc diagrams (no network
  fonts or scripts);
- :mod:`barley.render.transitions`: the configuration sequence of a transition
  system's oracle, as text or as an HTML page with one frame per transition.

A :class:`Drawing` is made from a :class:`~barley.conllu.Sentence` (or from the
arcs a transition system built so far); :func:`compare` marks a system tree's
wrong heads and labels against the gold tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from barley.confidence import read_head_prob
from barley.conllu import DEPS, FEATS, FORM, LEMMA, MISC, UPOS, Sentence


@dataclass
class Drawing:
    """One tree to draw: words 1..n and their arcs (``heads[0]``/``labels[0]`` unused).

    ``heads[d] == -1``: word d has no head (``_`` in the file, or not attached yet).
    ``wrong_head``/``wrong_label``: per node, the word's arc disagrees with the gold
    tree (see :func:`compare`); ``gold``: per node, the gold ``(head, label)`` to
    show beside a wrong one. ``title``: a line above the tree (sent_id, text).
    ``head_prob``: per node, the word's ``HeadProb`` (``barley parse --confidence``), None where
    the file gives none; the arc diagram shades a word the less sure its head is. ``enhanced``: the
    arcs of the enhanced graph (DEPS) that the tree lacks, ``(head, dependent, relation)``; the arc
    diagram draws them below the words. ``lemmas`` and ``feats``: per node, the LEMMA and FEATS
    columns (empty lists where there are none to draw).
    """

    forms: list[str]
    tags: list[str]
    heads: list[int]
    labels: list[str]
    title: str = ""
    wrong_head: list[bool] = field(default_factory=list)
    wrong_label: list[bool] = field(default_factory=list)
    gold: list[tuple[int, str]] = field(default_factory=list)
    new: set[int] = field(default_factory=set)  # dependents whose arc was just added (drawn highlighted)
    head_prob: list[float | None] = field(default_factory=list)
    enhanced: list[tuple[int, int, str]] = field(default_factory=list)
    lemmas: list[str] = field(default_factory=list)  # per node ("" for the root), drawn under the UPOS
    feats: list[str] = field(default_factory=list)  # per node, in each word's tooltip

    def __post_init__(self) -> None:
        size = len(self.heads)
        self.wrong_head = self.wrong_head or [False] * size
        self.wrong_label = self.wrong_label or [False] * size
        self.head_prob = self.head_prob or [None] * size

    @property
    def n(self) -> int:
        return len(self.heads) - 1

    def arcs(self) -> list[tuple[int, int]]:
        """``(head, dependent)`` of every attached word, root arcs (head 0) included."""
        return [(head, dependent) for dependent, head in enumerate(self.heads) if dependent and head >= 0]

    @property
    def errors(self) -> int:
        """Words with a wrong head or label (the LAS errors)."""
        return sum(head or label for head, label in zip(self.wrong_head[1:], self.wrong_label[1:]))


def title_of(sentence: Sentence, fallback: str = "") -> str:
    """``sent_id`` and ``text`` of a sentence, for the line above its tree."""
    text = next((comment.partition("=")[2].strip() for comment in sentence.comments
                 if comment[1:].partition("=")[0].strip() == "text"), "")
    sent_id = sentence.sent_id
    name = f"sent_id = {sent_id}" if sent_id is not None else fallback or f"{sentence.source}:{sentence.line}"
    return f"{name}: {text}" if text else name


def from_sentence(sentence: Sentence, title: str | None = None) -> Drawing:
    """The drawing of a sentence's HEAD and DEPREL columns (multiword tokens and empty nodes left out)."""
    head_prob = [None, *(read_head_prob(misc) for misc in sentence.column(MISC))]
    heads = sentence.heads().tolist()
    return Drawing(forms=["ROOT", *sentence.column(FORM)], tags=["", *sentence.column(UPOS)],
                   heads=heads, labels=sentence.deprels(),
                   title=title_of(sentence) if title is None else title,
                   head_prob=[None if p is None or p != p else p for p in head_prob],  # NaN: malformed, not drawn
                   enhanced=enhanced_arcs(sentence.column(DEPS), heads),
                   lemmas=["", *sentence.column(LEMMA)], feats=["", *sentence.column(FEATS)])


def enhanced_arcs(deps: list[str], heads: list[int]) -> list[tuple[int, int, str]]:
    """The arcs of the enhanced graph (each word's DEPS, ``head:relation|...``) between words or from
    the root whose head is not the word's head in the tree: ``(head, dependent, relation)``. Arcs from
    or to an empty node (``5.1``) are not drawn, nor is a DEPS that does not parse."""
    arcs = []
    for dependent, value in enumerate(deps, 1):
        for arc in ([] if value in ("_", "") else value.split("|")):
            head, colon, relation = arc.partition(":")
            if colon and head.isdigit() and int(head) < len(heads) and int(head) != heads[dependent]:
                arcs.append((int(head), dependent, relation))
    return arcs


def compare(gold: Sentence, system: Sentence, title: str | None = None) -> Drawing:
    """The system sentence's drawing with its wrong heads and labels marked against ``gold``.

    The two must have the same words (as :func:`barley.evaluation.attachment.evaluate` checks).
    """
    drawing = from_sentence(system, title)
    gold_heads, gold_labels = gold.heads().tolist(), gold.deprels()
    drawing.wrong_head = [False] + [h != g for h, g in zip(drawing.heads[1:], gold_heads[1:])]
    drawing.wrong_label = [False] + [a != b for a, b in zip(drawing.labels[1:], gold_labels[1:])]
    drawing.gold = list(zip(gold_heads, gold_labels))
    return drawing
