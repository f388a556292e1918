"""The raw text a treebank was made from, with a label on every character.

A UD treebank records its raw text in three places: the ``# text`` comment of each
sentence, ``SpaceAfter=No`` in the MISC column of a token that is glued to the next
one, and ``# newdoc`` / ``# newpar`` comments that open documents and paragraphs.
:func:`paragraphs` rebuilds, for every paragraph, the character stream a user would
have typed — sentences joined by one space (none after a token marked
``SpaceAfter=No``) — and labels each character with what follows it:

* :data:`INSIDE`: the token goes on (or the character is whitespace);
* :data:`TOKEN_END`: a token ends after it;
* :data:`SENTENCE_END`: a token and its sentence end after it.

Tokens are the surface units of the text: a multiword token (its range line, e.g.
``don't``) counts once, its words (``do``, ``n't``) not at all. A treebank without
paragraph marks (UD_Gothic-PROIEL) gives one paragraph per document, a treebank
without any marks one paragraph in all, as the CoNLL 2018 shared task's raw text
files do. A sentence without ``# text`` is rebuilt from its token forms and
SpaceAfter; a ``# text`` its tokens cannot be found in is replaced the same way
(both counted in :class:`TextStatistics`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np

from barley.conllu import FORM, MISC, Sentence
from barley.tokenizer.spaces import token_rows

INSIDE, TOKEN_END, SENTENCE_END = 0, 1, 2


@dataclass
class Paragraph:
    text: str
    labels: np.ndarray  # int8, one per character of text
    new_document: bool


@dataclass
class TextStatistics:
    sentences: int = 0
    without_text: int = 0  # no `# text` comment: rebuilt from the forms
    mismatched_text: int = 0  # `# text` does not hold the forms: rebuilt from the forms
    marks: set = field(default_factory=set)  # which of newdoc / newpar the treebank uses


def comment_value(sentence: Sentence, key: str) -> str | None:
    """The value of the comment ``# key = value`` (``""`` for a bare ``# key``), or None.

    ``# newdoc id = x`` counts as a ``newdoc`` comment with the value ``x``.
    """
    for comment in sentence.comments:
        name, equals, value = comment[1:].partition("=")
        if name.split()[:1] == [key]:
            return value.strip() if equals else ""
    return None


SPACES_IN_TOKENS = 0.01
"""The share of a treebank's tokens with a space inside (Vietnamese *Hà Nội*: 12,111 of VTB's word
forms; English *10 000*: a handful) from which a tokenizer learns to keep a space inside a token
(:func:`spaces_in_tokens`)."""


def spaces_in_tokens(sentences: Iterable[Sentence]) -> tuple[bool, int, int]:
    """Whether a tokenizer trained on ``sentences`` decides, at each single space between two
    characters, if a token goes on across it (:data:`SPACES_IN_TOKENS`); the tokens with a space
    inside and all tokens."""
    tokens = [form for sentence in sentences for form, _ in surface_tokens(sentence)]
    spaced = sum(1 for form in tokens if " " in form)
    return spaced >= SPACES_IN_TOKENS * len(tokens) and spaced > 0, spaced, len(tokens)


def surface_tokens(sentence: Sentence) -> list[tuple[str, bool]]:
    """``(form, space_after)`` of every token: multiword tokens once, their words not at all."""
    return [(row[FORM], "SpaceAfter=No" not in row[MISC].split("|")) for row in token_rows(sentence)]


def _aligned(text: str, tokens: list[tuple[str, bool]]) -> list[tuple[int, int]] | None:
    """The character span of each token in ``text``, or None when the forms are not found in order."""
    spans = []
    position = 0
    for form, _ in tokens:
        while position < len(text) and text[position].isspace():
            position += 1
        if text.startswith(form, position):
            spans.append((position, position + len(form)))
            position += len(form)
            continue
        # a form with spaces inside (e.g. "10 000") matches the text with its spaces
        squeezed = "".join(form.split())
        start, matched = position, 0
        while position < len(text) and matched < len(squeezed):
            if text[position].isspace():
                position += 1
            elif text[position] == squeezed[matched]:
                position += 1
                matched += 1
            else:
                return None
        if matched < len(squeezed) or not squeezed:
            return None
        spans.append((start, position))
    if text[position:].strip():
        return None
    return spans


def _from_forms(tokens: list[tuple[str, bool]]) -> str:
    return "".join(form + (" " if space else "") for form, space in tokens).rstrip(" ")


def sentence_text(sentence: Sentence, stats: TextStatistics) -> tuple[str, list[tuple[int, int]], bool]:
    """The sentence's text, its tokens' spans in it, and whether a space follows the sentence."""
    tokens = surface_tokens(sentence)
    stats.sentences += 1
    text = comment_value(sentence, "text")
    spans = _aligned(text, tokens) if text is not None else None
    if text is None or spans is None:
        if text is None:
            stats.without_text += 1
        else:
            stats.mismatched_text += 1
        text = _from_forms(tokens)
        spans = _aligned(text, tokens)
        assert spans is not None  # the forms joined are found in order in what they make
    space_after = tokens[-1][1] if tokens else True
    return text, spans, space_after


def raw_text(sentences: Iterable[Sentence]) -> str:
    """The raw text of a treebank as :func:`paragraphs` rebuilds it: its paragraphs, a blank line between
    two, a line break at the end (what a tokenizer is scored on from raw text)."""
    return "\n\n".join(paragraph.text for paragraph in paragraphs(sentences)) + "\n"


def paragraphs(sentences: Iterable[Sentence], stats: TextStatistics | None = None) -> Iterator[Paragraph]:
    """The labelled character stream of every paragraph of a treebank (see the module docstring)."""
    stats = TextStatistics() if stats is None else stats
    parts: list[str] = []
    labels: list[np.ndarray] = []
    new_document = True

    def finish() -> Paragraph:
        if parts[-1] == " ":  # the space after the paragraph's last sentence is not in the text
            parts.pop()
            labels.pop()
        return Paragraph("".join(parts), np.concatenate(labels), new_document)

    for sentence in sentences:
        if not sentence.words:
            continue
        newdoc = comment_value(sentence, "newdoc") is not None
        newpar = comment_value(sentence, "newpar") is not None
        if newdoc:
            stats.marks.add("newdoc")
        if newpar:
            stats.marks.add("newpar")
        if (newdoc or newpar) and parts:
            yield finish()
            parts, labels = [], []
            new_document = newdoc
        text, spans, space_after = sentence_text(sentence, stats)
        if not text:
            continue
        label = np.zeros(len(text), dtype=np.int8)
        ends = np.array([end - 1 for _, end in spans], dtype=np.int64)
        label[ends] = TOKEN_END
        label[ends[-1]] = SENTENCE_END
        parts.append(text)
        labels.append(label)
        if space_after:
            parts.append(" ")
            labels.append(np.zeros(1, dtype=np.int8))
    if parts:
        yield finish()
