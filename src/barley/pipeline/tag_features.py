"""The linear tagger's features (:mod:`barley.pipeline.tagger`): 64-bit hashed keys of a word type's form,
lower case, prefixes, suffixes and shape, of the words around it and of the UPOS tagged before it, and of
what chooses a lemma rule. Keys are hashes of the feature's text (deterministic, unlike Python's ``hash``);
training keeps the keys seen (:class:`~barley.features.extract.FeatureIndex`, looked up by :class:`KeyTable`)."""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict

import numpy as np

from barley.conllu import FEATS, FORM, UPOS, Sentence
from barley.features.extract import FeatureIndex

CACHE_LIMIT = 200_000
"""Word types whose feature keys are remembered between batches."""
MASK = np.uint64(0x7FFF_FFFF_FFFF_FFFF)  # keys are non-negative int64 (-1 is "none")

# The features of one word type: (template name, function of the form).
_SHAPE_RUNS = re.compile(r"(.)\1+")


def shape(form: str) -> str:
    """``Xxxx`` for *Paris*, ``dd.d`` for *12.5*: letters and digits by class, runs collapsed."""
    classes = "".join("X" if c.isupper() else "x" if c.isalpha() else "d" if c.isdigit() else c for c in form)
    return _SHAPE_RUNS.sub(r"\1", classes)


TYPE_SLOTS = 16
"""Type feature slots (missing affixes of short words leave their slot empty)."""
LOWER, SHAPE, SUFFIX3, TAGS = 1, 2, 10, 15  # slots in the type rows: "l=", "sh=", "s3=", "ac=" (see type_keys)


def hash_key(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little") & int(MASK)


def type_keys(form: str, tags: str = "?") -> np.ndarray:
    """The hashed type features of ``form`` in fixed slots (-1: none), for vectorised context;
    ``tags``: its entry in the tag dictionary (:func:`tag_dictionary`)."""
    lower = form.lower()
    row = np.full(TYPE_SLOTS, -1, dtype=np.int64)
    row[0] = hash_key(f"w={form}")
    row[LOWER] = hash_key(f"l={lower}")
    row[SHAPE] = hash_key(f"sh={shape(form)}")
    row[3] = hash_key(f"len={min(len(form), 8)}")
    row[4] = hash_key(f"cap={form[:1].isupper()}{form.isupper()}{any(c.isdigit() for c in form)}{'-' in form}")
    for n in range(1, 5):
        if len(lower) > n:
            row[4 + n] = hash_key(f"p{n}={lower[:n]}")
    for n in range(1, 6):
        if len(lower) > n:
            row[8 + n] = hash_key(f"s{n}={lower[-n:]}")
    row[TAGS] = hash_key(f"ac={tags}")
    return row


def tag_dictionary(words: list[list[str]], min_count: int) -> dict[str, str]:
    """The UPOS values each lower-cased form took in training (its *ambiguity class*, e.g.
    ``ADP|SCONJ``), for the forms seen at least ``min_count`` times: rarer forms look, in
    training, like the unknown words of new text (both have no entry)."""
    counts = Counter(word[FORM].lower() for word in words)
    seen: dict[str, set[str]] = defaultdict(set)
    for word in words:
        if counts[word[FORM].lower()] >= min_count:
            seen[word[FORM].lower()].add(word[UPOS])
    return {form: "|".join(sorted(tags)) for form, tags in sorted(seen.items())}


def mix(keys: np.ndarray, salt: int) -> np.ndarray:
    """A new key for (``keys``, ``salt``): the feature seen from another position or template."""
    with np.errstate(over="ignore"):
        mixed = (keys.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(
            (salt * 0xC2B2AE3D27D4EB4F + 0x165667B19E3779F9) & 0xFFFF_FFFF_FFFF_FFFF)
        mixed = (mixed ^ (mixed >> np.uint64(29))) & MASK
    return np.where(keys >= 0, mixed.astype(np.int64), -1)


def pair(a: np.ndarray, b: np.ndarray, salt: int) -> np.ndarray:
    """A key for the conjunction of two keys."""
    with np.errstate(over="ignore"):
        combined = mix(a, salt).astype(np.uint64) + b.astype(np.uint64) * np.uint64(0xD6E8FEB86659FD93)
    return np.where((a >= 0) & (b >= 0), mix((combined & MASK).astype(np.int64), salt + 1), -1)


def layout(sentences: list[Sentence]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lengths, first, position)``: each sentence's length and first word's row, each word's
    position in its sentence (rows in sentence then word order)."""
    lengths = np.array([len(s) for s in sentences], dtype=np.int64)
    first = np.cumsum(lengths) - lengths
    return lengths, first, np.arange(int(lengths.sum())) - np.repeat(first, lengths)


BEGIN_TAG = hash_key("t=<s>")


class KeyTable:
    """The ids of a :class:`FeatureIndex`'s keys by open addressing with linear probing: the
    tagger's keys are random 63-bit hashes, so their low bits address a table at most half
    full, and a lookup costs one or two memory accesses where the index's binary search
    (``FeatureIndex.ids``) costs about twenty. Same ids: ``index.size`` for absent keys."""

    def __init__(self, index: FeatureIndex):
        keys = index.keys
        self.index, self.size = index, index.size
        self.mask = (1 << max(4, (2 * len(keys)).bit_length())) - 1
        self.keys = np.full(self.mask + 1, -1, dtype=np.int64)
        self.ids = np.full(self.mask + 1, self.size, dtype=np.int32)
        pending = np.arange(len(keys))
        slot = keys & self.mask
        while len(pending):
            free = np.flatnonzero(self.keys[slot] == -1)
            taken, first = np.unique(slot[free], return_index=True)  # one key per free slot, the first
            self.keys[taken] = keys[pending[free[first]]]
            self.ids[taken] = pending[free[first]]
            waiting = np.ones(len(pending), dtype=bool)
            waiting[free[first]] = False
            pending, slot = pending[waiting], (slot[waiting] + 1) & self.mask

    def lookup(self, keys: np.ndarray) -> np.ndarray:
        flat = keys.ravel()
        out = np.full(len(flat), self.size, dtype=np.int64)
        pending = np.flatnonzero(flat >= 0)
        slot = flat[pending] & self.mask
        while len(pending):
            found = self.keys[slot]
            hit = found == flat[pending]
            out[pending[hit]] = self.ids[slot[hit]]
            going_on = ~hit & (found != -1)
            pending, slot = pending[going_on], (slot[going_on] + 1) & self.mask
        return out.reshape(keys.shape)


def history_keys(previous: np.ndarray, before: np.ndarray, own: np.ndarray) -> np.ndarray:
    """Keys of the UPOS of the two words before (keys of ``t=TAG``, :data:`BEGIN_TAG` at the
    start), alone, together, and with the word's own lower case and 3-letter suffix (rows of
    ``own``, the word's keys); the tagger reads them left to right (Ratnaparkhi 1996)."""
    return np.stack([mix(previous, 60), pair(previous, before, 62), pair(previous, own[:, LOWER], 64),
                     pair(previous, own[:, SUFFIX3], 66)], axis=1)


def gold_history(keys: np.ndarray, tag_keys: np.ndarray, position: np.ndarray) -> np.ndarray:
    """:func:`history_keys` from known tags (training): ``tag_keys`` one per word."""
    previous = np.where(position >= 1, np.roll(tag_keys, 1), BEGIN_TAG)
    before = np.where(position >= 2, np.roll(tag_keys, 2), BEGIN_TAG)
    return history_keys(previous, before, keys)


class WordFeatures:
    """Feature keys of every word of a batch of sentences: its type and its window."""

    BOS, EOS = "<s>", "</s>"

    def __init__(self, tags: dict[str, str] | None = None):
        self.cache: dict[str, np.ndarray] = {}
        self.tags = tags or {}

    def row(self, form: str) -> np.ndarray:
        """The type keys of ``form`` (remembered)."""
        found = self.cache.get(form)
        if found is None:
            if len(self.cache) > CACHE_LIMIT:
                self.cache.clear()
            found = self.cache[form] = type_keys(form, self.tags.get(form.lower(), "?"))
        return found

    def keys(self, sentences: list[Sentence], laid_out: tuple | None = None) -> np.ndarray:
        """(words × slots) int64 keys, -1 for none; rows in sentence then word order.
        ``laid_out``: :func:`layout` of ``sentences`` if known."""
        forms = [word[FORM] for sentence in sentences for word in sentence.words]
        types: dict[str, int] = {self.BOS: 0, self.EOS: 1}
        type_of = np.fromiter((types.setdefault(f, len(types)) for f in forms), dtype=np.int64, count=len(forms))
        table = np.stack([self.row(form) for form in types])
        lengths, _, position = laid_out or layout(sentences)
        length = np.repeat(lengths, lengths)

        def neighbour(offset: int) -> np.ndarray:
            at = position + offset
            inside = (at >= 0) & (at < length)
            index = np.clip(np.arange(len(forms)) + offset, 0, max(len(forms) - 1, 0))
            return np.where(inside, type_of[index] if len(forms) else index, 0 if offset < 0 else 1)

        own = table[type_of]
        columns = [own]
        for salt, offset in enumerate((-2, -1, 1, 2), start=1):
            columns.append(mix(table[neighbour(offset), LOWER], salt)[:, None])
        for salt, offset in enumerate((-1, 1), start=10):
            other = table[neighbour(offset)]
            columns.append(mix(other[:, SUFFIX3], salt)[:, None])
            columns.append(mix(other[:, SHAPE], salt + 5)[:, None])
        if self.tags:  # the words' tag-dictionary entries around it: the right context's likely tags
            for salt, offset in enumerate((-1, 1, 2), start=30):
                columns.append(mix(table[neighbour(offset), TAGS], salt)[:, None])
            columns.append(pair(own[:, TAGS], table[neighbour(1), TAGS], 34)[:, None])
        previous, following = table[neighbour(-1), LOWER], table[neighbour(1), LOWER]
        columns.append(pair(previous, own[:, LOWER], 20)[:, None])
        columns.append(pair(own[:, LOWER], following, 22)[:, None])
        columns.append(np.zeros((len(forms), 1), dtype=np.int64))  # the bias feature, key 0
        return np.hstack(columns)


def lemma_keys(words: list[list[str]], features: WordFeatures) -> np.ndarray:
    """Features for choosing a lemma rule: the form's type features alone and with its UPOS,
    its UPOS and FEATS."""
    types = np.stack([features.row(w[FORM]) for w in words])
    upos = np.array([hash_key(f"u={w[UPOS]}") for w in words], dtype=np.int64)
    feats = np.array([hash_key(f"f={w[UPOS]}/{w[FEATS]}") for w in words], dtype=np.int64)
    with_upos = np.hstack([pair(types[:, slot], upos, 40 + 2 * slot)[:, None] for slot in range(TYPE_SLOTS)])
    return np.hstack([types, with_upos, upos[:, None], feats[:, None], np.zeros((len(words), 1), dtype=np.int64)])
