"""Arc-factored and sibling features for the graph-based parser, for all pairs at once.

The templates are McDonald, Crammer & Pereira (2005) Table 1 — head and dependent
word form and POS alone and in pairs, the POS of every word in between, and the
POS of the words around head and dependent — each also conjoined with the arc's
direction and binned length. The sibling templates follow McDonald & Pereira (2006).
Labels are scored jointly with their own templates (label × head/dependent
attributes), restricted by edge filters (Bohnet 2010).

A feature is a tuple of small integers hashed into ``dims`` weights (the hashing
trick), so there is no feature dictionary to grow, store or look up: for a sentence
of n words every template is one numpy expression over the (n+1)² pairs (or
(n+1)³ triples), and scoring is one sparse product (:func:`barley.learners.weight_sums`).
Each function also takes a block of dependents (``dependents``, a slice), so that a long
sentence is featurized and scored a block of columns at a time, the same numbers in less
memory (:meth:`barley.graph.model.GraphModel.parse_scores`).
A label template hashes to a row of a weight matrix with one column per label, so the
label is not hashed: the same product over those rows scores every label of every pair.

Indices are int32 (``dims`` is at most 2³¹): half the memory of int64, which
matters because training keeps them between epochs.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_MIX = np.uint64(0x9E3779B97F4A7C15)
_MASK = np.uint64((1 << 64) - 1)
NULL = 0  # weight index 0 is never updated: templates that do not apply point here

ROOT_TOKEN = "<root>"
LENGTH_BINS = np.array([0, 1, 2, 3, 4, 5, 6, 11, 21])  # binned |h - d|


def string_id(text: str) -> int:
    """A stable 32-bit id for a string (Python's hash() changes between runs)."""
    return zlib.crc32(text.encode("utf-8"))


def _hash(template: int, *parts: np.ndarray | np.integer) -> np.ndarray | np.uint64:
    """Hash a template number and integer arrays (broadcast together) to uint64.

    A multiplicative rolling hash; :func:`_to_index` finishes it with a shift-xor.
    Parts that depend on the head only come first in the templates, so the early
    steps run over (size, 1) arrays and only the later ones over all pairs.
    """
    value: np.ndarray | np.uint64 = np.uint64(((template + 1) * int(_MIX)) & int(_MASK))
    for part in parts:  # array arithmetic wraps modulo 2**64 silently, as wanted
        value = (value ^ np.asarray(part).astype(np.uint64, copy=False)) * _MIX
    return value


@dataclass
class Tokens:
    """Integer attributes of nodes 0..n (0 = root): hashed lower-cased form, lemma and
    morphological features (the whole FEATS string), POS ids."""

    form: np.ndarray
    upos: np.ndarray
    xpos: np.ndarray
    lemma: np.ndarray
    feats: np.ndarray

    @classmethod
    def encode(cls, forms: Sequence[str], upos: Sequence[int], xpos: Sequence[int],
               lemmas: Sequence[str] | None = None, feats: Sequence[str] | None = None) -> Tokens:
        """``forms``, ``lemmas`` and ``feats`` are of words 1..n (missing: "_");
        ``upos``/``xpos`` are POS ids of nodes 0..n."""
        def hashed(values: Sequence[str] | None, lower: bool = False) -> np.ndarray:
            values = ["_"] * len(forms) if values is None else values
            return np.array([string_id(ROOT_TOKEN)] + [string_id(v.lower() if lower else v) for v in values],
                            dtype=np.int64)

        return cls(hashed(forms, lower=True), np.asarray(upos, dtype=np.int64), np.asarray(xpos, dtype=np.int64),
                   hashed(lemmas, lower=True), hashed(feats))

    def __len__(self) -> int:
        return len(self.form)


def _neighbour(values: np.ndarray, offset: int, pad: int) -> np.ndarray:
    shifted = np.full_like(values, pad)
    if offset > 0:
        shifted[:-offset] = values[offset:]
    else:
        shifted[-offset:] = values[:offset]
    return shifted


# Arc templates as (head attributes, dependent attributes); McDonald et al. 2005 Table 1.
# Names: f form, p UPOS, x XPOS; p- / p+ the POS of the word before / after; l lemma and
# m morphology (FEATS) — the last group, as in McDonald et al.'s (2006) CoNLL-X parser, for
# languages where case and agreement decide the head (Latin, Gothic, Czech).
ARC_TEMPLATES = (
    (("f", "p"), ()), (("f",), ()), (("p",), ()), ((), ("f", "p")), ((), ("f",)), ((), ("p",)),
    (("f", "p"), ("f", "p")), (("p",), ("f", "p")), (("f",), ("f", "p")), (("f", "p"), ("f",)),
    (("f", "p"), ("p",)), (("f",), ("f",)), (("p",), ("p",)),
    (("x",), ("x",)), (("x",), ("p",)), (("p",), ("x",)),
    (("p", "p+"), ("p-", "p")), (("p-", "p"), ("p-", "p")), (("p", "p+"), ("p", "p+")),
    (("p-", "p"), ("p", "p+")),
    (("p", "m"), ("p", "m")), (("p",), ("p", "m")), (("p", "m"), ("p",)), (("l",), ("l",)),
    (("l", "p"), ("p",)), (("p",), ("l", "p")),
)


def arc_features(tokens: Tokens, dims: int, dependents: slice = slice(None)) -> np.ndarray:
    """Feature indices of every arc h → d (d in ``dependents``): an int32 array (size, dependents, F).

    Each template hashes its head attributes per node and its dependent attributes
    per node, and the pair combines the two; every template appears once plain and
    once conjoined with direction and binned length.
    """
    size = len(tokens)
    pad = -1
    attributes = {"f": tokens.form, "p": tokens.upos, "x": tokens.xpos, "l": tokens.lemma, "m": tokens.feats,
                  "p-": _neighbour(tokens.upos, -1, pad), "p+": _neighbour(tokens.upos, 1, pad)}
    head = np.stack([_hash(k, *(attributes[a] for a in h), np.zeros(size, np.int64))
                     for k, (h, _) in enumerate(ARC_TEMPLATES)], axis=-1)
    dependent = np.stack([_hash(1000 + k, *(attributes[a] for a in d), np.zeros(size, np.int64))
                          for k, (_, d) in enumerate(ARC_TEMPLATES)], axis=-1)[dependents]
    h = np.arange(size)[:, None]
    d = np.arange(size)[dependents][None, :]
    direction = (d > h).astype(np.int64)
    direction_length = direction * 16 + np.digitize(np.abs(d - h), LENGTH_BINS)
    with np.errstate(over="ignore"):
        plain = (head[:, None, :] * _MIX) ^ dependent[None, :, :]
        conjoined = (plain ^ (direction_length[:, :, None].astype(np.uint64) + np.uint64(1))) * _MIX
    columns = [plain, conjoined, *(c[:, :, None] for c in _between_features(tokens, direction, dependents))]
    return _to_index(np.concatenate(columns, axis=-1), dims)


def _between_features(tokens: Tokens, direction: np.ndarray, dependents: slice) -> list[np.ndarray]:
    """hP · bP · dP for every POS bP occurring strictly between h and d (one slot per POS of the sentence)."""
    size = len(tokens)
    tags = np.unique(tokens.upos[1:]) if size > 1 else np.zeros(0, dtype=np.int64)
    columns: list[np.ndarray] = []
    if not len(tags):
        return columns
    counts = np.zeros((size + 1, len(tags)), dtype=np.int64)  # prefix counts of each tag
    counts[1:] = np.cumsum(tokens.upos[:, None] == tags[None, :], axis=0)
    h, d = np.arange(size)[:, None], np.arange(size)[dependents][None, :]
    low, high = np.minimum(h, d), np.maximum(h, d)
    between = counts[high] - counts[low + 1]  # (size, dependents, tags): tag count strictly between
    hp, dp = tokens.upos[:, None], tokens.upos[None, dependents]
    for k, tag in enumerate(tags):
        value = _hash(200, hp, np.int64(tag), dp, direction)
        columns.append(np.where(between[:, :, k] > 0, value, np.uint64(NULL)))
    return columns


def label_features(tokens: Tokens, rows: int, dependents: slice = slice(None)) -> np.ndarray:
    """Row of the label weight matrix (of ``rows`` rows) of every label template for every pair
    (d in ``dependents``): (size, dependents, G)."""
    size = len(tokens)
    h = np.arange(size)[:, None]
    d = np.arange(size)[dependents][None, :]
    hf, df = tokens.form[:, None], tokens.form[None, dependents]
    hp, dp = tokens.upos[:, None], tokens.upos[None, dependents]
    hx, dx = tokens.xpos[:, None], tokens.xpos[None, dependents]
    direction = (d > h).astype(np.int64)
    length = np.digitize(np.abs(d - h), LENGTH_BINS)
    dm, hm = tokens.feats[None, dependents], tokens.feats[:, None]
    dl, hl = tokens.lemma[None, dependents], tokens.lemma[:, None]
    before = _neighbour(tokens.upos, -1, -1)[None, dependents]
    after = _neighbour(tokens.upos, 1, -1)[None, dependents]
    parts = [(direction,), (hp, dp, direction), (df,), (dp,), (hf,), (hp,), (dx, direction),
             (hx, dx), (df, hp, direction), (dp, length, direction),
             (dp, dm, direction), (hp, dp, dm, direction), (hm, dm),
             # the dependent's neighbours and the head's word: what a first-order model can
             # see of the context that decides a label
             (hf, df), (hf, dp, direction), (before, dp, after), (hp, dp, after, direction),
             (hp, before, dp, direction), (dl,), (hl, dp, direction)]
    shape = (size, d.shape[1])
    hashed = np.stack([np.broadcast_to(_hash(300 + k, *p), shape) for k, p in enumerate(parts)], axis=-1)
    return _to_index(hashed, rows)


def sibling_features(tokens: Tokens, dims: int, dependents: slice = slice(None)) -> np.ndarray:
    """Feature indices of every (head, inner sibling, dependent) triple (d in ``dependents``):
    (size, size, dependents, K).

    ``s == h`` stands for "d is h's closest dependent on its side"; triples where s is
    not strictly between h and d (or equal to h) map to :data:`NULL`.
    """
    size = len(tokens)
    h = np.arange(size)[:, None, None]
    s = np.arange(size)[None, :, None]
    d = np.arange(size)[dependents][None, None, :]
    valid = ((h < s) & (s < d)) | ((d < s) & (s < h)) | ((s == h) & (d != h))
    first = (s == h).astype(np.int64)
    hp = tokens.upos[:, None, None]
    sp = np.where(first, -2, tokens.upos[None, :, None])
    sf = np.where(first, -2, tokens.form[None, :, None])
    dp, df = tokens.upos[None, None, dependents], tokens.form[None, None, dependents]
    direction = (d > h).astype(np.int64)
    parts = [(hp, sp, dp, direction), (sp, dp, direction), (sf, dp), (sp, df), (sf, df), (hp, sp, dp, first)]
    shape = (size, size, d.shape[2])
    columns = [np.where(valid, np.broadcast_to(_hash(500 + k, *p), shape), np.uint64(NULL))
               for k, p in enumerate(parts)]
    index = _to_index(np.stack(columns, axis=-1), dims)
    index[~np.broadcast_to(valid, shape)] = NULL
    return index


def _to_index(hashed: np.ndarray, dims: int) -> np.ndarray:
    """Fold hashes into 1..dims-1 (``dims`` a power of two; 0 is :data:`NULL`).

    Entries that are NULL stay NULL; a real hash that happens to fold to 0 goes to 1.
    """
    hashed = np.asarray(hashed, dtype=np.uint64)
    null = hashed == np.uint64(NULL)
    index = ((hashed ^ (hashed >> np.uint64(31))) & np.uint64(dims - 1)).astype(np.int32)
    index[index == NULL] = 1
    index[null] = NULL
    return index
