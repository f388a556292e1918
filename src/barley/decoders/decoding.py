"""Decoding a graph-based model's scores into a tree: Eisner (first or second order),
Chu-Liu-Edmonds, or Eisner followed by the non-projective approximation; into the k best
trees (``barley parse --nbest``) with k-best Eisner or k-best spanning trees, first order;
and the longest sentence a model parses (``barley parse --max-words``).

What a sentence of n words costs the graph-based and biaffine parsers: first order, O(n²)
memory (the score matrix; features and label scores are made a block at a time) and
O(n²) time for Chu-Liu-Edmonds, O(n³) for Eisner; second order, O(n³) memory (the
sibling scores) and time. So both refuse sentences beyond a length, by default one that
keeps a sentence within 4 GB.
"""

from __future__ import annotations

import numpy as np

from barley.conllu import Sentence
from barley.errors import BarleyError, InputError
from barley.decoders.eisner import eisner, eisner_second_order
from barley.decoders.k_best import eisner_k_best, spanning_trees_k_best
from barley.decoders.mst import chu_liu_edmonds
from barley.decoders.nonprojective_approx import nonprojective_approximation
from barley.decoders.options import DecoderOptions

FIRST_ORDER_MAX_WORDS = 5000
"""The longest sentence a first-order model (graph-based or biaffine) parses unless ``--max-words``
says otherwise: its scores and Eisner's charts are n × n, within 4 GB at 5,000 words with any
decoder (docs/graph.md)."""
SECOND_ORDER_MAX_WORDS = 600
"""The same for a second-order model: its sibling scores are (n+1)³ float32, 0.9 GB at 600 words
and 4 GB at 1,000."""


def decode(options: DecoderOptions, arc: np.ndarray, sibling: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """The best tree for ``options.decoder`` under the scores ``arc[h, d]`` (and, second order,
    ``sibling[h, s, d]``), and how many non-projective approximation moves it took."""
    if options.decoder == "mst":
        return chu_liu_edmonds(arc, options.single_root), 0
    if options.order == 2:
        assert sibling is not None, "second-order decoding needs the sibling scores"
        heads = eisner_second_order(arc, sibling, options.single_root)
    else:
        heads = eisner(arc, options.single_root)
    if options.decoder == "eisner+npa":
        return nonprojective_approximation(heads, arc, sibling, options.npa_threshold, options.single_root)
    return heads, 0


def check_k_best(options: DecoderOptions) -> None:
    """Refuse k-best decoding (``--nbest``) where the decoder has none, in one line."""
    if options.order == 2 or options.decoder == "eisner+npa":
        raise BarleyError(f"--nbest: this model's decoder ({'second-order ' if options.order == 2 else ''}"
                          f"{options.decoder}) has no k-best decoding; first-order eisner and mst have",
                          fix="leave --nbest out, or use a first-order model with --decoder eisner or mst")


def decode_k_best(options: DecoderOptions, arc: np.ndarray, k: int) -> list[tuple[float, np.ndarray]]:
    """The ``k`` best trees for ``options.decoder`` (eisner: projective, mst: any) under first-order
    scores ``arc[h, d]``, best first, as (score, heads); fewer when fewer trees are possible."""
    check_k_best(options)
    if options.decoder == "mst":
        return spanning_trees_k_best(arc, k, options.single_root)
    return eisner_k_best(arc, k, options.single_root)


def default_max_words(options: DecoderOptions) -> int:
    """The longest sentence parsed by default."""
    return SECOND_ORDER_MAX_WORDS if options.order == 2 else FIRST_ORDER_MAX_WORDS


def check_length(sentence: Sentence, max_words: int, parser: str) -> None:
    """Refuse a sentence longer than ``max_words`` in one line that names the option."""
    if len(sentence) > max_words:
        raise InputError(f"a sentence of {len(sentence)} words: this {parser} parses at most {max_words} "
                         f"(--max-words)", path=sentence.source, line=sentence.line,
                         fix=f"split the sentence, or give --max-words {len(sentence)}")


def describe(decoding: dict) -> str:
    """The decoder of a model's manifest entry (``decoder``, ``npa_threshold``, ``single_root``), for ``barley info``."""
    return (f"decoder {decoding.get('decoder')}"
            + (f" (threshold {decoding.get('npa_threshold')})" if decoding.get("decoder") == "eisner+npa" else "")
            + (", single root" if decoding.get("single_root") else ""))
