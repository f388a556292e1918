"""Sentences as a pandas DataFrame and back (pandas is optional: ``pip install pandas``).

    from barley.dataframe import dataframe, from_dataframe
    frame = dataframe(barley.read("test.conllu"))      # one row per token line, the columns as strings
    frame[frame.upos == "VERB"].lemma.value_counts()
    sentences = from_dataframe(frame)                   # the same sentences, every line and comment
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from barley.columns import COLUMNS
from barley.conllu import Sentence
from barley.errors import BarleyError

if TYPE_CHECKING:
    import pandas


def _pandas():
    try:
        import pandas
    except ImportError:
        raise BarleyError("a DataFrame needs pandas, which is not installed", fix="pip install pandas") from None
    return pandas


def dataframe(sentences: Iterable[Sentence]) -> pandas.DataFrame:
    """Every line of ``sentences`` as a DataFrame: one row per token line (words, multiword tokens, empty
    nodes), the ten columns as strings (lowercase names: ``id``, ``form``, ...) after ``sentence`` (its
    number, from 0) and ``sent_id``; each sentence's comments in ``frame.attrs["comments"]``, so that
    :func:`from_dataframe` gives the sentences back."""
    pandas = _pandas()
    records, comments = [], []
    for number, sentence in enumerate(sentences):
        comments.append(list(sentence.comments))
        records += [(number, sentence.sent_id, *row) for row in sentence.rows]
    frame = pandas.DataFrame.from_records(records, columns=["sentence", "sent_id", *map(str.lower, COLUMNS)])
    frame.attrs["comments"] = comments
    return frame


def from_dataframe(frame: pandas.DataFrame) -> list[Sentence]:
    """The sentences of a DataFrame made by :func:`dataframe` (its rows in order, its comments)."""
    comments = frame.attrs.get("comments", [])
    # plain arrays, not pandas groups: each operation on the frame would copy its attrs (every comment)
    numbers = frame["sentence"].to_numpy()
    values = frame[list(map(str.lower, COLUMNS))].to_numpy(dtype=str)
    sentences, start = [], 0
    for end in range(1, len(numbers) + 1):
        if end == len(numbers) or numbers[end] != numbers[start]:
            number = int(numbers[start])
            sentences.append(Sentence(list(comments[number]) if number < len(comments) else [],
                                      [list(row) for row in values[start:end].tolist()]))
            start = end
    return sentences
