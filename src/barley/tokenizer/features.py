"""Hashed character-window features of every character of a text, all at once with numpy.

The decision "does a token (a sentence) end after character i?" is made from what
surrounds i. The templates, each hashed into one of ``2**bits`` feature ids:

* the lower-cased characters at offsets -3..+3, the bigrams and trigrams around i;
* the character classes (upper, lower, digit, punctuation, symbol, space, other)
  from -3 to +3 as one shape, and from -1 to +1;
* the whitespace-delimited chunk holding i: its last 6 characters up to i, its first 6
  after i, the whole chunk (first 12 characters) with the distance from i to its end;
* the chunk's first 4 characters (``http``, ``www.``) with the character at i, and the set of
  character classes in the chunk with its length, the character at i and the distance to the end;
* the first 6 characters of the next chunk and the class of its first character (the
  capital after a full stop);
* at the last character of a chunk: the chunk with the next one, and the previous one with it
  (word pairs, for sentence ends that punctuation does not mark).

Every template is a loop over a handful of offsets of whole arrays, never a loop over
characters, so a text of n characters costs a few dozen numpy passes over n. All
whitespace (tabs, newlines, no-break spaces) reads as one space, so the features of a
text do not depend on how its whitespace is spelled.
"""

from __future__ import annotations

import unicodedata

import numpy as np

PAD = 8  # characters of padding on both sides: more than any offset reaches
PREFIX = 6  # characters of a chunk read before/after i
WHOLE = 12  # characters of a chunk read as a whole
HEAD = 4  # characters at the start of a chunk (http, www.)
UPPER, LOWER, DIGIT, PUNCT, SYMBOL, SPACE, OTHER, BORDER = range(8)
_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)
_STEP = np.uint64(1_000_003)


def _character_class(character: str) -> int:
    if character.isspace():
        return SPACE
    category = unicodedata.category(character)
    if category == "Lu" or category == "Lt":
        return UPPER
    if category[0] == "L":
        return LOWER
    if category[0] == "N":
        return DIGIT
    if category[0] == "P":
        return PUNCT
    if category[0] == "S":
        return SYMBOL
    return OTHER


def encode(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Lower-cased code points and classes of ``text``, padded by :data:`PAD` on each side.

    Whitespace becomes code point 32; the padding has code point 0 and class BORDER.
    """
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    unique, inverse = np.unique(codes, return_inverse=True)
    lowered = np.empty(len(unique), dtype=np.uint64)
    classes = np.empty(len(unique), dtype=np.uint64)
    for k, code in enumerate(unique.tolist()):
        character = chr(code)
        kind = _character_class(character)
        lower = character.lower()
        lowered[k] = 32 if kind == SPACE else (ord(lower) if len(lower) == 1 else code)
        classes[k] = kind
    padded_codes = np.zeros(len(codes) + 2 * PAD, dtype=np.uint64)
    padded_classes = np.full(len(codes) + 2 * PAD, BORDER, dtype=np.uint64)
    padded_codes[PAD:PAD + len(codes)] = lowered[inverse]
    padded_classes[PAD:PAD + len(codes)] = classes[inverse]
    return padded_codes, padded_classes


def _fold(values: list[np.ndarray]) -> np.ndarray:
    """One hash of a sequence of equally long uint64 arrays (wrapping arithmetic)."""
    hashed = np.zeros_like(values[0])
    for value in values:
        hashed = hashed * _STEP + value + np.uint64(1)
    return hashed


def extract(text: str, bits: int, encoded: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Feature ids (len(text) × templates, int32 in [0, 2**bits)) of every character of ``text``.

    ``encoded``: what :func:`encode` gave for ``text``, when the caller has it already.
    """
    n = len(text)
    if n == 0 or not text.strip():
        return np.zeros((0, N_TEMPLATES), dtype=np.int32)
    codes, classes = encode(text) if encoded is None else encoded
    index = np.arange(PAD, PAD + n)

    def at(array: np.ndarray, offset: int) -> np.ndarray:
        return array[PAD + offset:PAD + offset + n]

    templates: list[np.ndarray] = []
    for offset in range(-3, 4):
        templates.append(at(codes, offset))
    for first in range(-2, 3):
        templates.append(_fold([at(codes, first), at(codes, first + 1)]))
    for first in range(-2, 2):
        templates.append(_fold([at(codes, first + k) for k in range(3)]))
    templates.append(_fold([at(classes, offset) for offset in range(-3, 4)]))
    templates.append(_fold([at(classes, offset) for offset in range(-1, 2)]))

    # chunks: maximal runs of non-space characters (padding counts as space)
    space = (codes == 32) | (classes == BORDER)
    starts = np.flatnonzero(~space & np.r_[True, space[:-1]])
    ends = np.flatnonzero(~space & np.r_[space[1:], True]) + 1  # exclusive
    chunk = np.cumsum(~space & np.r_[True, space[:-1]]) - 1  # the chunk of each position (or the one before)
    chunk_of = chunk[index]
    inside = ~space[index]
    start, end = starts[chunk_of], ends[chunk_of]
    before = _fold([np.where(index - k >= start, codes[np.maximum(index - k, 0)], 0)
                    for k in range(PREFIX - 1, -1, -1)])
    after = _fold([np.where(index + k < end, codes[np.minimum(index + k, len(codes) - 1)], 0)
                   for k in range(1, PREFIX + 1)])
    words = _fold([np.where(starts + k < ends, codes[np.minimum(starts + k, len(codes) - 1)], 0)
                   for k in range(WHOLE)])  # per chunk
    whole = words[chunk_of]
    distance = np.minimum(end - 1 - index, 4).astype(np.uint64)
    following = np.minimum(chunk_of + 1, len(starts) - 1)
    has_next = (chunk_of + 1 < len(starts))
    next_start = np.where(has_next, starts[following], 0)
    next_end = np.where(has_next, ends[following], 0)
    upcoming = _fold([np.where(next_start + k < next_end, codes[np.minimum(next_start + k, len(codes) - 1)], 0)
                      for k in range(PREFIX)])
    next_class = np.where(has_next, classes[next_start], BORDER)
    head = _fold([np.where(starts + k < ends, codes[np.minimum(starts + k, len(codes) - 1)], 0)
                  for k in range(HEAD)])  # per chunk
    class_bits = np.where(space, np.uint64(0), np.uint64(1) << classes)
    kinds = np.bitwise_or.reduceat(class_bits, starts)  # per chunk: which classes it has
    kinds |= np.minimum(ends - starts, 15).astype(np.uint64) << np.uint64(8)
    templates.append(np.where(inside, _fold([head[chunk_of], at(codes, 0)]), 0))
    templates.append(np.where(inside, _fold([kinds[chunk_of], at(codes, 0), distance]), 0))
    templates.append(np.where(inside, before, 0))
    templates.append(np.where(inside, after, 0))
    templates.append(np.where(inside, _fold([whole, distance]), 0))
    templates.append(upcoming)
    templates.append(next_class)
    templates.append(_fold([next_class, at(codes, 0), distance]))
    last = inside & (distance == 0)  # the last character of its chunk: word pairs across the space
    next_word = np.where(has_next, words[following], 0)
    previous_word = np.where(chunk_of >= 1, words[np.maximum(chunk_of - 1, 0)], 0)
    templates.append(np.where(last, _fold([whole, next_word]), 0))
    templates.append(np.where(last, _fold([previous_word, whole]), 0))

    ids = np.empty((n, len(templates)), dtype=np.int32)
    shift = np.uint64(64 - bits)
    for t, values in enumerate(templates):
        hashed = (values.astype(np.uint64) + np.uint64(t + 1) * np.uint64(0x100000001B3)) * _MULTIPLIER
        ids[:, t] = (hashed >> shift).astype(np.int32)
    return ids


N_TEMPLATES = 7 + 5 + 4 + 2 + 10
