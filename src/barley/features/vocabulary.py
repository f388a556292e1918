"""Vocabularies: the strings of a token attribute (FORM, UPOS, FEATS atoms, ...) ↔ ids.

Ids 0..2 are reserved in every vocabulary (no token at the address, a value unseen
in training, the artificial root); values are numbered in order of first occurrence
in the training data, so that the same data gives the same ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from barley.conllu import FEATS, FORM, LEMMA, UPOS, XPOS, Sentence

NONE, UNKNOWN, ROOT = 0, 1, 2
"""Reserved ids of every vocabulary: no token at the address, a value unseen in training, the root."""

COLUMN_OF = {"FORM": FORM, "LEMMA": LEMMA, "UPOS": UPOS, "XPOS": XPOS, "FEATS": FEATS}


class Vocabulary:
    """Strings ↔ ids, with ids 0..2 reserved (NONE, UNKNOWN, ROOT)."""

    def __init__(self, values: Sequence[str] = ()):
        self.values = ["<none>", "<unknown>", "<root>", *values]
        self.ids = {value: i for i, value in enumerate(self.values)}

    def __len__(self) -> int:
        return len(self.values)

    def id(self, value: str) -> int:
        return self.ids.get(value, UNKNOWN)

    def to_json(self) -> list[str]:
        return self.values[3:]


def extended(known: Sequence[str], more: Iterable[str]) -> list[str]:
    """``known`` followed by the values of ``more`` it lacks, in order of first occurrence: the ids of the
    known values stay what they were (fine-tuning a model on new data,
    :meth:`barley.pipeline.joint.JointComponent.fine_tune`)."""
    seen = set(known)
    return [*known, *(value for value in dict.fromkeys(more) if value not in seen)]


def describe_vocabularies(manifest: dict) -> str:
    """The line of ``barley info`` giving the size of each vocabulary in a model's manifest."""
    return "vocabulary:  " + ", ".join(f"{name} {len(values)}" for name, values in manifest.get("vocabularies", {}).items())


def feats_atoms(value: str) -> list[str]:
    """FEATS split into its atoms (``Case=Nom|Number=Sing`` → two atoms; ``_`` is one atom)."""
    return value.split("|")


def build_vocabularies(sentences: Sequence[Sentence], attributes: Sequence[str]) -> dict[str, Vocabulary]:
    """One vocabulary per token attribute, values in order of first occurrence (deterministic)."""
    vocabularies = {}
    for attribute in attributes:
        column = COLUMN_OF[attribute]
        seen: dict[str, None] = {}
        for sentence in sentences:
            for word in sentence.words:
                if attribute == "FEATS":
                    for atom in feats_atoms(word[column]):
                        seen.setdefault(atom)
                else:
                    seen.setdefault(word[column])
        vocabularies[attribute] = Vocabulary(list(seen))
    return vocabularies
