"""Graph-based parsing: decoders over arc (and sibling) score matrices.

Decoders are pure functions from scores to heads (SuPar's shape): Eisner's
projective algorithm (first and second order), Chu-Liu-Edmonds maximum spanning
trees, and the non-projective approximation of McDonald & Pereira (2006); and the k best
trees, projective and not (:mod:`barley.decoders.k_best`). Scores
are indexed ``scores[head, dependent]`` over nodes 0..n with 0 the artificial root.
"""

from barley.decoders.eisner import eisner, eisner_second_order
from barley.decoders.k_best import eisner_k_best, spanning_trees_k_best
from barley.decoders.mst import chu_liu_edmonds
from barley.decoders.nonprojective_approx import nonprojective_approximation
from barley.decoders.tree_score import sibling_tree_score, tree_score

__all__ = ["eisner", "eisner_second_order", "chu_liu_edmonds", "nonprojective_approximation",
           "eisner_k_best", "spanning_trees_k_best", "tree_score", "sibling_tree_score"]
