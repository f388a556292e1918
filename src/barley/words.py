"""Words and tokens of a sentence as objects: ``word.upos``, ``word.head``, ``word.feats["Number"]``.

A :class:`~barley.conllu.Sentence` keeps every line of its CoNLL-U as it was read (``rows``, lists of
ten strings). These are views of those rows, with named attributes, as Stanza's ``word.upos`` and
spaCy's ``token.pos_`` give them: reading one reads the row, setting one writes the row, so a
sentence written back is its CoNLL-U with only what was set changed (nothing set: the same bytes).

    for word in sentence:                        # the words 1..n (not multiword tokens, not empty nodes)
        print(word.id, word.form, word.upos, word.feats.get("Number"), word.head.form if word.head else "ROOT")
    for token in sentence.tokens:                # what is written: a multiword token holds its words
        print(token.form, [word.form for word in token.words])
    sentence.column("upos")                      # a column by name (or position)

``feats`` and ``misc`` are read as dicts (``_`` is empty) and written from one in UD's order
(features sorted by name, ignoring case; MISC in the order given). :mod:`barley.dataframe` makes a
pandas DataFrame of sentences, and the sentences back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from barley.columns import COLUMNS, DEPREL, DEPS, FEATS, FORM, HEAD, ID, LEMMA, MISC, UPOS, XPOS


class Sentence(Protocol):
    """What a view reads of a :class:`barley.conllu.Sentence` (which imports this module)."""
    rows: list[list[str]]
    words: list[list[str]]


def parse_pairs(value: str, separator: str) -> dict[str, str]:
    """``Name=Value|Name=Value`` (FEATS, ``separator`` ``=``; MISC too) as a dict; ``_`` is empty. A MISC item
    without ``=`` maps to ``""``."""
    if value in ("", "_"):
        return {}
    pairs = {}
    for item in value.split("|"):
        name, _, feature = item.partition(separator)
        pairs[name] = feature
    return pairs


def format_pairs(pairs: Mapping[str, str], sort: bool) -> str:
    """A dict as FEATS (``sort``: by name ignoring case, as UD orders features) or MISC; empty is ``_``."""
    items = sorted(pairs.items(), key=lambda item: item[0].lower()) if sort else list(pairs.items())
    return "|".join(f"{name}={value}" if value != "" or sort else name for name, value in items) or "_"


class _Column:
    """A named column of a row, read and written as its string."""

    def __init__(self, index: int):
        self.index = index

    def __get__(self, view, owner=None):
        return self if view is None else view.row[self.index]

    def __set__(self, view, value: str) -> None:
        if not isinstance(value, str) or not value or any(c in value for c in "\t\n\r"):
            raise ValueError(f"{COLUMNS[self.index]} must be a non-empty string without tabs or line breaks, "
                             f"not {value!r} (_ for none)")
        view.row[self.index] = value


class _Pairs:
    """FEATS or MISC of a row, read as a dict and written from a mapping (FEATS sorted, as UD orders them)."""

    def __init__(self, index: int, sort: bool):
        self.index, self.sort = index, sort

    def __get__(self, view, owner=None):
        return self if view is None else parse_pairs(view.row[self.index], "=")

    def __set__(self, view, pairs: Mapping[str, str]) -> None:
        view.row[self.index] = format_pairs(pairs, sort=self.sort)


class Word:
    """Word ``id`` of a sentence (a view of its row): ``form``, ``lemma``, ``upos``, ``xpos``, ``deprel`` and
    ``deps`` as strings, ``feats`` and ``misc`` as dicts, ``head`` as the head word (None for the root's
    dependent and where HEAD is ``_``), ``head_id`` as a number (0: the root)."""

    __slots__ = ("sentence", "row")
    form, lemma, upos, xpos, deprel, deps = (_Column(k) for k in (FORM, LEMMA, UPOS, XPOS, DEPREL, DEPS))
    feats, misc = _Pairs(FEATS, sort=True), _Pairs(MISC, sort=False)

    def __init__(self, sentence: Sentence, row: list[str]):
        self.sentence, self.row = sentence, row

    @property
    def id(self) -> int:
        return int(self.row[ID])

    @property
    def head_id(self) -> int | None:
        """HEAD as a number (0 for the root), None where it is ``_``."""
        return None if self.row[HEAD] == "_" else int(self.row[HEAD])

    @property
    def head(self) -> Word | None:
        """The head word; None for a dependent of the root and where HEAD is ``_``."""
        head = self.head_id
        return None if not head else Word(self.sentence, self.sentence.words[head - 1])

    @head.setter
    def head(self, head: Word | int | None) -> None:
        number = 0 if head is None else head if isinstance(head, int) else head.id
        if not 0 <= number <= len(self.sentence.words):
            raise ValueError(f"no word {number} to be the head of word {self.id}: the sentence has "
                             f"{len(self.sentence.words)} words (0 is the root)")
        self.row[HEAD] = str(number)

    @property
    def children(self) -> list[Word]:
        """The words whose head this word is, in order."""
        me = self.row[ID]
        return [Word(self.sentence, row) for row in self.sentence.words if row[HEAD] == me]


    @property
    def token(self) -> Token:
        """The token this word is written in: a multiword token, or the word's own."""
        return next(token for token in tokens_of(self.sentence) if any(word.row is self.row for word in token.words))

    def __eq__(self, other) -> bool:
        return isinstance(other, Word) and other.row is self.row

    def __hash__(self) -> int:
        return id(self.row)

    def __repr__(self) -> str:
        return f"<Word {self.row[ID]} {self.row[FORM]!r} {self.row[UPOS]} {self.row[HEAD]} {self.row[DEPREL]}>"


class Token:
    """A token as written: a multiword token (ID ``3-4``) with its words, or one word alone. ``form`` and
    ``misc`` are the token line's (SpaceAfter=No is a token's)."""

    __slots__ = ("sentence", "row", "words")
    form = _Column(FORM)
    misc = _Pairs(MISC, sort=False)

    def __init__(self, sentence: Sentence, row: list[str], words: list[Word]):
        self.sentence, self.row, self.words = sentence, row, words

    @property
    def id(self) -> str:
        return self.row[ID]

    @property
    def is_multiword(self) -> bool:
        return "-" in self.row[ID]

    def __repr__(self) -> str:
        return f"<Token {self.row[ID]} {self.row[FORM]!r}: {' '.join(word.form for word in self.words)}>"


def tokens_of(sentence: Sentence) -> list[Token]:
    """The tokens of ``sentence`` in order (empty nodes, ``8.1``, belong to none)."""
    tokens, inside = [], 0  # inside: the last word of the multiword token being read
    for row in sentence.rows:
        ident = row[ID]
        if "-" in ident:
            first, _, last = ident.partition("-")
            tokens.append(Token(sentence, row, []))
            inside = int(last)
        elif ident.isdigit():
            word = Word(sentence, row)
            if int(ident) <= inside:
                tokens[-1].words.append(word)
            else:
                tokens.append(Token(sentence, row, [word]))
    return tokens
