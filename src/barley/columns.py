"""The ten columns of CoNLL-U (https://universaldependencies.org/format.html), by position and by name."""

from __future__ import annotations

ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC = range(10)
COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")


def column_index(column: int | str) -> int:
    """The position of ``column``: a position (0 to 9), or a name in any case (``"upos"``, ``"UPOS"``)."""
    if isinstance(column, str):
        name = column.upper()
        if name not in COLUMNS:
            raise KeyError(f"no CoNLL-U column {column!r}: the columns are {', '.join(COLUMNS)}")
        return COLUMNS.index(name)
    if not 0 <= column < len(COLUMNS):
        raise IndexError(f"no CoNLL-U column {column}: the columns are 0 to 9 ({', '.join(COLUMNS)})")
    return column
