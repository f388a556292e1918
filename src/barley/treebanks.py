"""Training one model on several treebanks of a language, each sentence marked with its treebank.

``barley train UD_English-EWT UD_English-ParTUT -m en.barley`` trains every component on the
sentences of both training files, and the joint network reads, besides each word's form, an
embedding of the treebank its sentence comes from (Stymne, de Lhoneux, Smith & Nivre 2018, *Parser
Training with Heterogeneous Treebanks*, ACL: a treebank embedding concatenated to each word's input
vector, one model for all, which then parses *as* one of them). A sentence says its treebank in a
comment, ``# treebank = NAME``, which :func:`joined` writes into every training sentence; a sentence
without one (the dev set, every sentence parsed) is taken as the first treebank's, the one the model
is trained for, and a sentence whose comment names another of its treebanks is parsed as that one.
"""

from __future__ import annotations

from collections.abc import Sequence

from barley.conllu import Sentence, read

COMMENT = "# treebank = "
"""How a sentence names its treebank."""


def of(sentence: Sentence) -> str | None:
    """The treebank a sentence names in its comments, or None."""
    return next((line[len(COMMENT):].strip() for line in sentence.comments if line.startswith(COMMENT)), None)


def marked(sentence: Sentence, name: str) -> Sentence:
    """``sentence`` (changed in place) with its treebank comment saying ``name``."""
    sentence.comments = [line for line in sentence.comments if not line.startswith(COMMENT)] + [COMMENT + name]
    return sentence


def joined(treebanks: Sequence[tuple[str, str]]) -> list[Sentence]:
    """The sentences of each ``(name, training file)``, in order, each marked with its treebank's name."""
    return [marked(sentence, name) for name, path in treebanks for sentence in read(path)]


def names(sentences: Sequence[Sentence]) -> list[str]:
    """The treebanks the sentences name, in order of first mention."""
    return list(dict.fromkeys(name for sentence in sentences if (name := of(sentence)) is not None))
