"""Coordination as a Mel'čuk-style chain, and back (Nilsson, Nivre and Hall 2006, §3.1).

In the chain (MS), every conjunct and separator is headed by the element before it,
and the first conjunct is the head of the whole coordination. Two source styles:

**Prague style** (``conjunction-headed``; the paper's τc): a *base conjunction*
(label Coord, also Coord_Co) heads the conjuncts C (labels with suffix ``_Co``),
the separators S (itself and, between the first and last conjunct, the commas and
other punctuation: AuxX, AuxG) and other dependents D. With C1..Cn in word order
and the separators between Ci and Ci+1, Ci becomes the head of those separators,
the last of them heads Ci+1 (Ci does if there is none), C1 takes the place of the
conjunction, the ``_Co`` suffixes are removed, and every D word goes to the
nearest conjunct on its left (the first conjunct if there is none). Variants of
the inverse (and of the labels): ``c``: D stays with the conjuncts; ``c*``: the
conjuncts' dependents labelled AuxG, AuxX, AuxY or Pred go back to the
conjunction; ``c+``: D labels get a ``+`` (Atr+) and exactly those go back;
``c+*``: ``+`` except on AuxG/AuxX/AuxY/Pred, and both kinds go back. The inverse
climbs from each base conjunction up the chain (right to left): the words reached
through separator arcs are conjuncts and separators, the first conjunct's head
becomes the conjunction's head. A coordination with fewer than two conjuncts, or
whose conjunction is not between its first and last conjunct, is left as it is.

**Universal Dependencies** (``first-conjunct``): the first conjunct heads the other
conjuncts (``conj``); a separator (``cc``, ``punct``) between two conjuncts hangs
from the conjunct after it. Forward: each separator and conjunct is attached to the
element before it (labels unchanged). Inverse (left to right over ``conj`` words):
climb from a conjunct through separators on its left to the element they hang from;
the conjunct goes to that element's first conjunct, the separators to the conjunct.
UD's labels tell conjuncts and separators apart, so no variant is needed; what is
lost is nesting (a conjunct of a conjunct comes back as a conjunct of the first).

Labels are data: :mod:`barley.transforms.schemes` (``ud.toml``, ``prague.toml``).
Base conjunctions are found by label only (the paper also allows the POS J^).
"""

from __future__ import annotations

import numpy as np

from barley.errors import BarleyError
from barley.transforms import Counts, label_matcher, load_scheme
from barley.tree import dependents_lists


class Coordination:
    """Coordination → chain (``forward``) and back (``inverse``), for one annotation scheme."""

    name = "coordination"
    VARIANTS = ("c", "c*", "c+", "c+*")

    def __init__(self, scheme: str | dict = "ud", variant: str = "c+*"):
        self.scheme = load_scheme(scheme) if isinstance(scheme, str) else scheme
        if variant not in self.VARIANTS:
            raise BarleyError(f"unknown coordination variant {variant!r}", fix="choose c, c*, c+ or c+*")
        self.variant = variant
        labels = self.scheme["coordination"]
        subtypes = self.scheme.get("subtypes", False)
        self.style = labels["style"]
        if self.style not in ("first-conjunct", "conjunction-headed"):
            raise BarleyError(f"unknown coordination style {self.style!r} in the scheme",
                              fix="use first-conjunct or conjunction-headed")
        self.is_separator = label_matcher(labels["separator"], subtypes)
        if self.style == "first-conjunct":
            self.is_conjunct = label_matcher(labels["conjunct"], subtypes)
        else:
            self.suffix = labels["conjunct_suffix"]
            self.plus = labels["dependent_suffix"]
            self.is_conjunction = label_matcher(labels["conjunction"], subtypes)
            self.prefers_conjunction = label_matcher(labels["conjunction_dependent"], subtypes)

    def fit(self, trees) -> Coordination:
        return self

    new_stats = staticmethod(Counts)

    def forward(self, heads, deprels, stats: Counts | None = None) -> tuple[np.ndarray, list[str]]:
        heads, labels, stats = [int(h) for h in heads], list(deprels), Counts() if stats is None else stats
        if self.style == "first-conjunct":
            self._chain_first_conjunct(heads, labels, stats)
        else:
            self._chain_prague(heads, labels, stats)
        return np.asarray(heads, dtype=np.int32), labels

    def inverse(self, heads, deprels, stats: Counts | None = None) -> tuple[np.ndarray, list[str]]:
        heads, labels, stats = [int(h) for h in heads], list(deprels), Counts() if stats is None else stats
        if self.style == "first-conjunct":
            self._unchain_first_conjunct(heads, labels, stats)
        else:
            self._unchain_prague(heads, labels, stats)
        return np.asarray(heads, dtype=np.int32), labels

    # --- Universal Dependencies ------------------------------------------------------------

    def _chain_first_conjunct(self, heads: list[int], labels: list[str], stats: Counts) -> None:
        children = dependents_lists(heads)
        for first in range(1, len(heads)):
            conjuncts = [c for c in children[first] if c > first and self.is_conjunct(labels[c])]
            if not conjuncts:
                continue
            stats["coordinations chained"] += 1
            previous = element = first
            for conjunct in conjuncts:
                for separator in children[conjunct]:
                    if previous < separator < conjunct and self.is_separator(labels[separator]):
                        heads[separator] = element
                        element = separator
                heads[conjunct] = element
                previous = element = conjunct

    def _unchain_first_conjunct(self, heads: list[int], labels: list[str], stats: Counts) -> None:
        first_of: dict[int, int] = {}
        for conjunct in range(1, len(heads)):
            if not self.is_conjunct(labels[conjunct]):
                continue
            separators, element = [], heads[conjunct]
            while 0 < element < conjunct and self.is_separator(labels[element]):
                separators.append(element)
                element = heads[element]
            if not 0 < element < conjunct:
                continue
            # Detach the conjunct first: the separators above it then hang from it without a cycle.
            first_of[conjunct] = heads[conjunct] = first_of.get(element, element)
            for separator in separators:
                heads[separator] = conjunct
            stats["conjuncts restored"] += 1

    # --- Prague style (Nilsson, Nivre and Hall 2006, §3.1) ------------------------------------

    def _is_base(self, label: str) -> bool:
        return self.is_conjunction(label.removesuffix(self.suffix))

    def _extends(self, label: str) -> bool:
        """Whether a D word's label gets the ``+`` mark in this variant."""
        return self.variant == "c+" or (self.variant == "c+*" and not self.prefers_conjunction(label))

    def _chain_prague(self, heads: list[int], labels: list[str], stats: Counts) -> None:
        for label in labels[1:]:
            if self.variant in ("c+", "c+*") and label.endswith(self.plus):
                raise BarleyError(f"label {label!r} already ends with {self.plus!r}, the mark of the "
                                  f"{self.variant} coordination variant", fix="use the c or c* variant")
        for conjunction in range(1, len(heads)):
            if not self._is_base(labels[conjunction]):
                continue
            children = dependents_lists(heads)[conjunction]
            conjuncts = [c for c in children if labels[c].endswith(self.suffix)]
            if len(conjuncts) < 2 or not conjuncts[0] < conjunction < conjuncts[-1]:
                stats["coordinations left as they are"] += 1
                continue
            separators = [conjunction] + [s for s in children if conjuncts[0] < s < conjuncts[-1]
                                          and s not in conjuncts and self.is_separator(labels[s])]
            others = [d for d in children if d not in conjuncts and d not in separators]
            heads[conjuncts[0]] = heads[conjunction]
            for left, right in zip(conjuncts, conjuncts[1:]):
                between = sorted(s for s in separators if left < s < right)
                for separator in between:
                    heads[separator] = left
                heads[right] = between[-1] if between else left
            for conjunct in conjuncts:
                labels[conjunct] = labels[conjunct].removesuffix(self.suffix)
            for dependent in others:
                heads[dependent] = max((c for c in conjuncts if c < dependent), default=conjuncts[0])
                if self._extends(labels[dependent]):
                    labels[dependent] += self.plus
            stats["coordinations chained"] += 1

    def _unchain_prague(self, heads: list[int], labels: list[str], stats: Counts) -> None:
        for conjunction in range(len(heads) - 1, 0, -1):
            if not self._is_base(labels[conjunction]):
                continue
            children = dependents_lists(heads)
            last = next((c for c in children[conjunction] if c > conjunction), None)
            element = heads[conjunction]
            if last is None or not 0 < element < conjunction:
                continue
            # Climb right to left: element is a conjunct; a separator on its left heading it
            # links it to the conjunct before.
            conjuncts, separators, link = [last], [], conjunction
            while True:
                conjuncts.insert(0, element)
                separators += [s for s in children[element]
                               if element < s < link and s != conjunction and self.is_separator(labels[s])]
                above = heads[element]
                if not (0 < above < element and self.is_separator(labels[above])):
                    break
                separators.append(above)
                link, element = above, heads[above]
                if element <= 0:
                    break
            if element <= 0:
                continue
            chain = set(conjuncts) | set(separators) | {conjunction}
            candidates = [d for c in conjuncts for d in children[c] if d not in chain]
            heads[conjunction] = heads[conjuncts[0]]
            for member in conjuncts + separators:
                heads[member] = conjunction
            for conjunct in conjuncts:
                labels[conjunct] += self.suffix
            for dependent in candidates:
                marked = self.variant in ("c+", "c+*") and labels[dependent].endswith(self.plus)
                preferred = self.variant in ("c*", "c+*") and self.prefers_conjunction(labels[dependent])
                if marked or preferred:
                    heads[dependent] = conjunction
            stats["coordinations restored"] += 1
        if self.variant in ("c+", "c+*"):  # the + marks never leak into output
            for node in range(1, len(labels)):
                labels[node] = labels[node].removesuffix(self.plus)

    def to_json(self) -> dict:
        return {"name": self.name, "scheme": self.scheme, "variant": self.variant}

    @classmethod
    def from_json(cls, data: dict) -> Coordination:
        return cls(data["scheme"], data["variant"])
