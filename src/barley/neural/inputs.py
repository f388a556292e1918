"""What the neural encoder reads, as numpy arrays (no PyTorch): vocabularies and padded batches.

A sentence's nodes 0..n (0 the artificial root) become ids of the columns the encoder
reads (:data:`INPUTS`, configurable: a parser reads FORM, LEMMA, UPOS, XPOS and FEATS,
a joint tagger and parser only FORM, never a column it predicts) and the characters of
each distinct form. :func:`pad` lays a batch out for PyTorch (:func:`barley.neural.encoder.make_batch`)
and for the numpy engine alike; :func:`by_length` parses in batches of sentences of similar
length (little padding), yielding them in input order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from barley import treebanks
from barley.conllu import COLUMNS, FEATS, FORM, Sentence
from barley.features.vocabulary import NONE, ROOT, UNKNOWN, Vocabulary, extended, feats_atoms
from barley.kinds import in_length_batches

INPUTS = ("form", "lemma", "upos", "xpos", "feats", "treebank")
"""The columns an encoder can read, in the order of its input vector; ``treebank`` is the sentence's
(:mod:`barley.treebanks`), the same for all its nodes."""
ID_COLUMNS = ("form", "lemma", "upos", "xpos", "treebank")
"""The inputs that are one id per node (FEATS is a bag of atoms)."""
FIRST = ROOT + 1
"""The id of a vocabulary's first value: for ``treebank``, the treebank a sentence that names none is taken for."""
PARSE_BATCH_WORDS = 5000
"""Words encoded together when parsing."""
ROOT_WORD = "\x00<root>"  # the root's "form" for the character model: one reserved character
FORM_CHARS_READ = 32
"""The character model reads a form's first and last 32 characters, no more: the cost of a word is
bounded whatever its length (a 1,000,000-character form would cost minutes and gigabytes), the same
cut in training and parsing (:func:`characters_read`). Forms of more than 64 characters are URLs,
e-mail addresses and the like: 11 of EWT test's 25,094 words, none in the other shared treebanks."""


def characters_read(form: str) -> str:
    """The characters of ``form`` the character model reads: all of them up to
    2 × :data:`FORM_CHARS_READ`, else the first and the last :data:`FORM_CHARS_READ`."""
    return form if len(form) <= 2 * FORM_CHARS_READ else form[:FORM_CHARS_READ] + form[-FORM_CHARS_READ:]


@dataclass
class Encoded:
    """One sentence as ids, nodes 0..n (0 the root): what the encoder reads (``ids`` of the
    columns it reads, ``feats`` if it reads FEATS)."""

    ids: dict[str, np.ndarray]
    feats: list[np.ndarray] | None
    words: list[str]  # the forms as written, for the character model (entry 0: the root)

    def __len__(self) -> int:
        return len(self.words)


class EncoderVocabularies:
    """The strings the encoder knows: of each input column it reads (forms lower-cased and
    frequent, FEATS as atoms) and the characters, each a :class:`Vocabulary` (ids 0..2 reserved)."""

    def __init__(self, tables: dict[str, Vocabulary]):
        self.tables = tables
        self._chars: dict[str, np.ndarray] = {}

    @property
    def inputs(self) -> tuple[str, ...]:
        return tuple(name for name in INPUTS if name in self.tables)

    @classmethod
    def build(cls, sentences: Sequence[Sentence], min_form_count: int, inputs: Sequence[str] = INPUTS,
              keep_forms: frozenset[str] = frozenset()) -> EncoderVocabularies:
        """From training sentences, in order of first occurrence (deterministic): the ``inputs``
        columns and the characters; forms seen at least ``min_form_count`` times or in
        ``keep_forms`` (those with a pretrained vector)."""
        counts: Counter[str] = Counter()
        seen: dict[str, dict[str, None]] = {name: {} for name in (*inputs, "chars")}
        index = {name: COLUMNS.index(name.upper()) for name in inputs if name != "treebank"}
        for sentence in sentences:
            if "treebank" in inputs:
                seen["treebank"].setdefault(treebanks.of(sentence) or "")
            for word in sentence.words:
                for name in inputs:
                    if name == "treebank":
                        continue
                    if name == "feats":
                        for atom in feats_atoms(word[FEATS]):
                            seen["feats"].setdefault(atom)
                    elif name == "form":
                        counts[word[FORM].lower()] += 1
                        seen["form"].setdefault(word[FORM].lower())
                    else:
                        seen[name].setdefault(word[index[name]])
                for char in characters_read(word[FORM]):
                    seen["chars"].setdefault(char)
        if "form" in seen:
            seen["form"] = {form: None for form in seen["form"]
                            if counts[form] >= min_form_count or form in keep_forms}
        return cls({name: Vocabulary(list(values)) for name, values in seen.items()})

    def extended(self, sentences: Sequence[Sentence], min_form_count: int) -> EncoderVocabularies:
        """These vocabularies and, appended to each, the entries of ``sentences`` it lacks (as :meth:`build`
        finds them: forms seen at least ``min_form_count`` times): known entries keep their ids."""
        more = EncoderVocabularies.build(sentences, min_form_count, self.inputs)
        return EncoderVocabularies({name: Vocabulary(extended(table.to_json(), more.tables[name].to_json()))
                                    for name, table in self.tables.items()})

    def to_json(self) -> dict[str, list[str]]:
        return {name: table.to_json() for name, table in self.tables.items()}

    @classmethod
    def from_json(cls, tables: dict[str, list[str]]) -> EncoderVocabularies:
        unknown = set(tables) - {*INPUTS, "chars"}
        if unknown or "chars" not in tables:
            raise ValueError(f"vocabularies {sorted(tables)}: expected some of {', '.join(INPUTS)} and chars")
        return cls({name: Vocabulary(values) for name, values in tables.items()})

    def sizes(self) -> dict[str, int]:
        return {name: len(table) for name, table in self.tables.items()}

    def encode(self, sentence: Sentence) -> Encoded:
        words = sentence.words
        ids = {}
        for name in ID_COLUMNS:
            if name == "treebank" and name in self.tables:
                ids[name] = np.full(len(words) + 1, self.treebank_id(sentence), dtype=np.int64)
            elif name in self.tables:
                table, index = self.tables[name], COLUMNS.index(name.upper())
                lower = name == "form"
                ids[name] = np.array([ROOT] + [table.id(w[index].lower() if lower else w[index]) for w in words],
                                     dtype=np.int64)
        feats = None
        if "feats" in self.tables:
            table = self.tables["feats"]
            feats = [np.array([ROOT], dtype=np.int64)] + [
                np.array([table.id(a) for a in feats_atoms(w[FEATS])], dtype=np.int64) for w in words]
        return Encoded(ids, feats, [ROOT_WORD] + [w[FORM] for w in words])

    def treebank_id(self, sentence: Sentence) -> int:
        """The id of the treebank ``sentence`` names (:mod:`barley.treebanks`), or of the first treebank
        trained on when it names none, or one not trained on."""
        id = self.tables["treebank"].id(treebanks.of(sentence) or "")
        return FIRST if id == UNKNOWN else id

    def chars(self, word: str) -> np.ndarray:
        """Character ids of a form (:func:`characters_read`; cached: forms repeat)."""
        ids = self._chars.get(word)
        if ids is None:
            table = self.tables["chars"]
            ids = np.array([ROOT] if word == ROOT_WORD else [table.id(c) for c in characters_read(word)] or [UNKNOWN],
                           dtype=np.int64)
            if len(self._chars) < 1_000_000:
                self._chars[word] = ids
        return ids


@dataclass
class Padded:
    """A batch of sentences as padded numpy arrays (``lengths`` counts the root)."""

    ids: dict[str, np.ndarray]   # [batch, longest] ids of each one-id input column
    feats: np.ndarray | None     # flat FEATS atom ids of every node, in order
    feats_offsets: np.ndarray | None  # where each node's atoms start
    types: list[str]             # the distinct forms of the batch, as written
    word_type: np.ndarray        # [batch, longest]: index in ``types`` of each node; padding → len(types)
    lengths: np.ndarray
    mask: np.ndarray             # [batch, longest]: a real node (root included)

    def characters(self, vocabularies: EncoderVocabularies, types: Sequence[str] | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
        """Character ids ``[len(types), longest]`` (zero-padded) and lengths of ``types``
        (default: all of the batch's)."""
        char_ids = [vocabularies.chars(word) for word in (self.types if types is None else types)]
        lengths = np.array([len(c) for c in char_ids], dtype=np.int64)
        chars = np.zeros((len(char_ids), int(lengths.max(initial=1))), dtype=np.int64)
        for row, ids in enumerate(char_ids):
            chars[row, :len(ids)] = ids
        return chars, lengths


def pad(sentences: Sequence[Encoded], word_dropout: float = 0.0, rng: np.random.Generator | None = None) -> Padded:
    """Pad a batch; with ``word_dropout`` (training), forms and lemmas are replaced by the
    unknown id with that probability (numpy's ``rng``, so dropout is deterministic per seed)."""
    size, longest = len(sentences), max(len(s) for s in sentences)
    names = list(sentences[0].ids)
    ids = {name: np.full((size, longest), NONE, dtype=np.int64) for name in names}
    for row, sentence in enumerate(sentences):
        for name, column in ids.items():
            column[row, :len(sentence)] = sentence.ids[name]
    lengths = np.array([len(s) for s in sentences], dtype=np.int64)
    mask = np.arange(longest)[None, :] < lengths[:, None]
    if word_dropout > 0.0:
        for name in ("form", "lemma"):
            if name in ids:
                drop = (cast(np.random.Generator, rng).random((size, longest)) < word_dropout) & mask
                drop[:, 0] = False  # the root stays the root
                ids[name][drop] = UNKNOWN
    feats = offsets = None
    if sentences[0].feats is not None:  # then every sentence has them
        bags = [atoms for sentence in sentences for atoms in sentence.feats]  # type: ignore[union-attr]
        feats, offsets = np.concatenate(bags), np.cumsum([0] + [len(atoms) for atoms in bags[:-1]])
    types: dict[str, int] = {}
    word_type = np.zeros((size, longest), dtype=np.int64)
    for row, sentence in enumerate(sentences):
        word_type[row, :len(sentence)] = [types.setdefault(word, len(types)) for word in sentence.words]
    word_type[~mask] = len(types)  # a zero vector for padding
    return Padded(ids, feats, offsets, list(types), word_type, lengths, mask)


def word_batches(indices: Sequence[int], lengths: Sequence[int], batch_words: int) -> list[list[int]]:
    """``indices`` cut in order into batches of at most ``batch_words`` words (one longer sentence alone)."""
    batches: list[list[int]] = []
    words = 0
    for k in indices:
        if not batches or (words + lengths[k] > batch_words and batches[-1]):
            batches.append([])
            words = 0
        batches[-1].append(k)
        words += lengths[k]
    return batches


SORT_WINDOW_SENTENCES = 4096
"""Parsing reads this many sentences ahead and batches them by length (less padding)."""


def by_length(sentences: Iterable[Sentence], parse_batch: Callable[[list[Sentence]], object],
              batch_words: int) -> Iterator[Sentence]:
    """Parse ``sentences`` (in place, ``parse_batch`` on batches of at most ``batch_words`` words of
    similar length, read ``SORT_WINDOW_SENTENCES`` ahead; empty sentences are left as they are) and
    yield them in input order (:func:`barley.kinds.in_length_batches`)."""
    return in_length_batches(sentences, parse_batch, SORT_WINDOW_SENTENCES,
                             lambda order, lengths: word_batches([k for k in order if lengths[k]], lengths,
                                                                 batch_words))
