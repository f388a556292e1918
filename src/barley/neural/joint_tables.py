"""The classes of the joint network's heads (:mod:`barley.neural.joint`): each tagging head's values
(the lemma head's are edit rules, :mod:`barley.lemma_rules`), the DEPREL labels, the lemma of each known
(FORM, UPOS) and the (UPOS, XPOS, FEATS) combinations of training, numbered as the network's outputs are."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from barley.conllu import FEATS, FORM, LEMMA, UPOS, XPOS, Sentence
from barley.features.vocabulary import extended
from barley.lemma_rules import edit_rule, is_rule, lemma_dictionaries
from barley.models import check

HEADS = {"upos": UPOS, "xpos": XPOS, "feats": FEATS, "lemma": LEMMA}
"""The tagging heads and the column each fills (the lemma head's classes are edit rules)."""
TAGS = ("upos", "xpos", "feats")
"""The heads decoded together when tags are kept consistent (:meth:`Annotator.consistent_tags`)."""

class JointTables:
    """The classes of each head, numbered in order of first occurrence in training (deterministic):
    ``values`` per tagging head (:data:`HEADS`; for ``lemma`` the edit rules) and the DEPREL ``labels``;
    ``lemmas``, the most frequent lemma of each (FORM, UPOS) of training; and ``tag_sets``, the
    (UPOS, XPOS, FEATS) combinations of training as class ids ``[combinations, 3]`` in order of first
    occurrence (None in a model trained before barley kept them)."""

    def __init__(self, values: dict[str, list[str]], labels: list[str], lemmas: dict[tuple[str, str], str],
                 tag_sets: np.ndarray | None = None):
        self.values, self.labels, self.lemmas, self.tag_sets = values, labels, lemmas, tag_sets
        self.ids = {name: {value: i for i, value in enumerate(column)} for name, column in values.items()}

    @classmethod
    def build(cls, sentences: Sequence[Sentence], labels: list[str]) -> JointTables:
        seen: dict[str, dict[str, None]] = {name: {} for name in HEADS}
        for sentence in sentences:
            for classes in _classes(sentence):
                for name, value in zip(HEADS, classes):
                    seen[name].setdefault(value)
        lemmas, _ = lemma_dictionaries(word for sentence in sentences for word in sentence.words)
        tables = cls({name: list(values) for name, values in seen.items()}, labels, lemmas)
        return tables.with_tag_sets(sentences)

    def with_tag_sets(self, sentences: Sequence[Sentence]) -> JointTables:
        """These tables with the tag combinations of ``sentences`` (the training sentences; their
        classes must be known) added to those they hold."""
        combinations: dict[tuple[int, ...], None] = {} if self.tag_sets is None else \
            dict.fromkeys(map(tuple, self.tag_sets.tolist()))
        for sentence in sentences:
            for classes in _classes(sentence):
                combinations.setdefault(tuple(self.ids[name][value] for name, value in zip(TAGS, classes)))
        return JointTables(self.values, self.labels, self.lemmas, np.array(list(combinations), dtype=np.int64
                                                                           ).reshape(-1, len(TAGS)))

    def extended(self, sentences: Sequence[Sentence], labels: list[str]) -> JointTables:
        """These tables and, appended, the classes and labels of ``sentences`` (and their trees' ``labels``)
        they lack: known classes keep their ids. The new sentences' lemma of a (FORM, UPOS) replaces
        the one known before (the new data is what the model is adapted to)."""
        more = JointTables.build(sentences, labels)
        tables = JointTables({name: extended(column, more.values[name]) for name, column in self.values.items()},
                             extended(self.labels, labels), {**self.lemmas, **more.lemmas}, self.tag_sets)
        return tables.with_tag_sets(sentences) if self.tag_sets is not None else tables

    def sizes(self) -> dict[str, int]:
        return {name: len(values) for name, values in self.values.items()}

    def targets(self, sentence: Sentence) -> dict[str, np.ndarray]:
        """The class of every node for each head (-1 for the root)."""
        rows = [[-1] * (len(sentence) + 1) for _ in HEADS]
        for position, classes in enumerate(_classes(sentence), 1):
            for row, name, value in zip(rows, HEADS, classes):
                row[position] = self.ids[name][value]
        return {name: np.array(row, dtype=np.int64) for name, row in zip(HEADS, rows)}

    def to_json(self) -> dict:
        return {"values": self.values, "labels": self.labels,
                "lemmas": [[form, upos, lemma] for (form, upos), lemma in self.lemmas.items()],
                **({} if self.tag_sets is None else {"tag_sets": self.tag_sets.tolist()})}

    @classmethod
    def from_json(cls, entry: dict) -> JointTables:
        values = {name: list(entry["values"][name]) for name in HEADS}
        if any(not column or not all(isinstance(v, str) for v in column) for column in values.values()):
            raise ValueError("a head without classes, or a class that is not a string")
        if not all(is_rule(rule) for rule in values["lemma"]):
            raise ValueError("a lemma class that is no edit rule")
        for name in HEADS:  # written into the output as they are (a lemma rule's added text too)
            check.texts(values[name], f"the {name.upper()} classes", field=True)
        lemmas = {(form, upos): lemma for form, upos, lemma in entry["lemmas"]}
        if not all(isinstance(text, str) for key, lemma in lemmas.items() for text in (*key, lemma)):
            raise ValueError("a lemma dictionary entry that is not three strings")
        check.texts(list(lemmas.values()), "the lemma dictionary's lemmas", field=True)
        tag_sets = None
        if "tag_sets" in entry:
            rows = entry["tag_sets"]
            if not isinstance(rows, list) or not rows or not all(
                    isinstance(row, list) and len(row) == len(TAGS) and all(
                        type(i) is int and 0 <= i < len(values[name]) for i, name in zip(row, TAGS)) for row in rows):
                raise ValueError("a tag combination that is not three class numbers of UPOS, XPOS and FEATS")
            tag_sets = np.array(rows, dtype=np.int64)
        return cls(values, check.texts(entry["labels"], "the DEPREL labels", field=True, unique=True), lemmas,
                   tag_sets)


def _classes(sentence: Sentence) -> list[tuple[str, str, str, str]]:
    """Each word's UPOS, XPOS, FEATS and lemma rule."""
    return [(w[UPOS], w[XPOS], w[FEATS], edit_rule(w[FORM], w[LEMMA])) for w in sentence.words]
