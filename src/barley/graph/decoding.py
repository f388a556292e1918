"""Decoding a graph-based model's scores into a tree: Eisner (first or second order),
Chu-Liu-Edmonds, or Eisner followed by the non-projective approximation."""

from __future__ import annotations

import numpy as np

from barley.graph.eisner import eisner, eisner_second_order
from barley.graph.model import GraphOptions, Scores
from barley.graph.mst import chu_liu_edmonds
from barley.graph.nonprojective_approx import nonprojective_approximation


def decode(options: GraphOptions, scores: Scores) -> tuple[np.ndarray, int]:
    """The best tree for ``options.decoder``, and how many non-projective approximation moves it took."""
    if options.decoder == "mst":
        return chu_liu_edmonds(scores.arc, options.single_root), 0
    if options.order == 2:
        heads = eisner_second_order(scores.arc, scores.sibling, options.single_root)
    else:
        heads = eisner(scores.arc, options.single_root)
    if options.decoder == "eisner+npa":
        return nonprojective_approximation(heads, scores.arc, scores.sibling,
                                           options.npa_threshold, options.single_root)
    return heads, 0


def describe(decoding: dict) -> str:
    """The decoder of a model's manifest entry (``decoder``, ``npa_threshold``, ``single_root``), for ``barley info``."""
    return (f"decoder {decoding.get('decoder')}"
            + (f" (threshold {decoding.get('npa_threshold')})" if decoding.get("decoder") == "eisner+npa" else "")
            + (", single root" if decoding.get("single_root") else ""))
