"""A sentence to and from the ``conllu`` package's ``TokenList`` (the interchange type of Python NLP code).

Both ways go through CoNLL-U text, each side reading it with its own reader: a ``TokenList``
is what ``conllu.parse`` makes of the sentence's lines (ids as ints, or tuples for
multiword tokens and empty nodes; FEATS and MISC as dicts; comments as ``metadata``), and a
``TokenList`` comes back as barley reads its ``serialize()``. A sentence goes there and back
unchanged (tested on whole UD treebanks). The ``conllu`` package is optional: ``pip install
conllu``.

    from barley.tokenlist import from_tokenlist, to_tokenlist
    tokens = to_tokenlist(sentence)              # a conllu.models.TokenList
    tokens[0]["upos"], tokens.metadata["text"]
    sentence = from_tokenlist(tokens)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from barley.conllu import Sentence

if TYPE_CHECKING:
    from conllu.models import TokenList


def to_tokenlist(sentence: Sentence) -> TokenList:
    """``sentence`` as a ``conllu`` ``TokenList`` (:meth:`barley.conllu.Sentence.to_tokenlist`)."""
    return sentence.to_tokenlist()


def from_tokenlist(tokens: TokenList, name: str = "<TokenList>") -> Sentence:
    """A ``conllu`` ``TokenList`` as a :class:`~barley.conllu.Sentence` (errors name ``name``)."""
    return Sentence.from_tokenlist(tokens, name)
