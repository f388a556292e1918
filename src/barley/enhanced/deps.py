"""The DEPS column of CoNLL-U: a word's enhanced arcs, ``head:relation`` pairs joined by ``|``.

The CoNLL-U format (https://universaldependencies.org/format.html) writes ``_`` for no
arcs, a head as a word ID (``0`` for the root, ``i.k`` for an empty node), and sorts the
pairs by head, then by relation. A relation may itself hold colons (``obl:with``,
``nmod:poss``), so a pair is cut at its first colon. A relation may be a path such as
``conj>obl:voor``, which the IWPT 2020 tools write where they collapse an empty node; it is
kept as one relation.

A bare integer in the 9th column is a CoNLL-X file's PHEAD (the column where CoNLL-U has
DEPS, see :func:`barley.conllu.convert`): it holds no enhanced arcs.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from barley.errors import InputError

Arc = tuple[str, str]
"""One enhanced arc of a word: the head's ID as written (``"0"``, ``"3"``, ``"3.1"``) and the relation."""


def parse_deps(value: str, words: int, source: str = "<memory>", line: int | None = None) -> tuple[Arc, ...]:
    """The arcs of a DEPS value in a sentence of ``words`` words (none for ``_`` or a CoNLL-X PHEAD).

    Raises an InputError for a pair without a relation, or a head that is neither 0, a
    word of the sentence nor an empty node ``i.k`` after one.
    """
    arcs = _arcs(value, words)
    if isinstance(arcs, str):
        raise InputError(f"DEPS {value!r} has {arcs!r}, which is not head:relation with a head of the sentence "
                         f"(0..{words} or an empty node i.k)", path=source, line=line,
                         fix="write DEPS as _ or as head:relation pairs joined by |, such as 2:nsubj|4:nsubj")
    return arcs


@lru_cache(maxsize=1 << 16)
def _arcs(value: str, words: int) -> tuple[Arc, ...] | str:
    """The arcs of a DEPS value, or the first pair that is not one (cached: values repeat across a treebank)."""
    if value == "_" or value.isdigit():
        return ()
    arcs = []
    for pair in value.split("|"):
        head, colon, relation = pair.partition(":")
        whole, dot, decimal = head.partition(".")
        if not (colon and relation and whole.isascii() and whole.isdigit() and int(whole) <= words
                and (not dot or (decimal.isascii() and decimal.isdigit()))):
            return pair
        arcs.append((head, relation))
    return tuple(arcs)


def _head_order(head: str) -> tuple[int, int]:
    whole, _, decimal = head.partition(".")
    return int(whole), int(decimal or 0)


def format_deps(arcs: Iterable[tuple[int | str, str]]) -> str:
    """The DEPS value of a word's arcs: sorted by head (as numbers, empty nodes after their word),
    then by relation, without repeats; ``_`` for none."""
    unique = {(str(head), relation) for head, relation in arcs}
    if not unique:
        return "_"
    return "|".join(f"{head}:{relation}" for head, relation in
                    sorted(unique, key=lambda arc: (_head_order(arc[0]), arc[1])))
