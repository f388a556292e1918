"""From a sentence's arc scores to a tree (no PyTorch): the best head of each word when
those already form a tree the decoder could return, else the decoder.

This is SuPar's shortcut: a sentence whose best head per word already forms a tree the
decoder could return (any tree for ``mst``; a projective one for ``eisner`` and
``eisner+npa``, where it is the optimum the approximation starts from and cannot
improve) skips the decoder (:mod:`barley.decoders.decoding`); only the others are decoded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from barley.constraints import SentenceArcs, constrained_scores
from barley.decoders.decoding import decode, decode_k_best
from barley.decoders.options import DecoderOptions
from barley.tree import check_tree, is_projective


@dataclass
class BiaffineParseStats:
    """Counts over all parsed sentences (reported by ``barley parse``)."""

    sentences: int = 0
    words: int = 0
    decoded: int = 0
    approximation_moves: int = 0
    relabelled: int = 0  # --valid-ud: sentences whose best labels broke a rule of UD (barley.valid_ud)
    not_valid: int = 0  # --valid-ud: sentences no labelling of the tree could keep valid
    punctuation_moved: int = 0  # --valid-ud: punct words attached again to be projective

    def summary(self) -> str:
        text = (f"{self.sentences} sentences, {self.words} words; {self.decoded} sentences needed the decoder "
                f"(the others' best heads were already a tree), {self.approximation_moves} non-projective "
                f"approximation moves")
        if self.relabelled or self.not_valid or self.punctuation_moved:
            text += (f"; {self.relabelled} sentences relabelled to keep UD's rules ({self.not_valid} could not be), "
                     f"{self.punctuation_moved} punctuation marks attached projectively")
        return text


def best_tree(decoding: DecoderOptions, arc: np.ndarray, stats: BiaffineParseStats,
              arcs: SentenceArcs | None = None) -> np.ndarray:
    """Heads (entry 0: -1) from scores ``arc[head, dependent]`` over nodes 0..n (-inf: impossible);
    counts the sentence, its words and what the decoder did in ``stats``. With ``arcs``, the kept
    given arcs are forced and the arcs that contradict them or are forbidden excluded
    (:func:`barley.constraints.constrained_scores`), and the arcs that cross them where the model
    avoids those (:meth:`barley.decoders.options.DecoderOptions.avoids_crossing_given`)."""
    stats.sentences += 1
    stats.words += len(arc) - 1
    if arcs is not None:
        arc = constrained_scores(arc, arcs, avoid_crossing=decoding.avoids_crossing_given())
    heads = arc.argmax(axis=0)
    heads[0] = -1
    if check_tree(heads, decoding.single_root) is None and (decoding.decoder == "mst" or is_projective(heads)):
        return heads
    stats.decoded += 1
    heads, moves = decode(decoding, arc)
    stats.approximation_moves += moves
    return heads


def k_best_trees(decoding: DecoderOptions, arc: np.ndarray, k: int, stats: BiaffineParseStats
                 ) -> list[tuple[float, np.ndarray]]:
    """The ``k`` best trees of scores ``arc[head, dependent]`` (best first, as (score, heads);
    :func:`barley.decoders.decoding.decode_k_best`), counted in ``stats`` as :func:`best_tree` counts."""
    stats.sentences += 1
    stats.words += len(arc) - 1
    stats.decoded += 1
    return decode_k_best(decoding, arc, k)
