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

from barley.conllu import Sentence, read_bytes
from barley.errors import BarleyError, InputError

if TYPE_CHECKING:
    from conllu.models import TokenList


def _conllu_package():
    try:
        import conllu
    except ImportError:
        raise BarleyError("converting to and from TokenList needs the conllu package",
                          fix="pip install conllu") from None
    return conllu


def to_tokenlist(sentence: Sentence) -> TokenList:
    """``sentence`` as a ``conllu`` ``TokenList``."""
    [tokens] = _conllu_package().parse(sentence.to_text())
    return tokens


def from_tokenlist(tokens: TokenList, name: str = "<TokenList>") -> Sentence:
    """A ``conllu`` ``TokenList`` as a :class:`~barley.conllu.Sentence` (errors name ``name``)."""
    sentences = list(read_bytes(tokens.serialize().encode("utf-8"), name))
    if len(sentences) != 1:
        raise InputError(f"the TokenList holds {len(sentences)} sentences, not one", path=name,
                         fix="give one sentence's TokenList (an empty one has no sentence)")
    return sentences[0]
