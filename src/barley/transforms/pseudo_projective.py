"""Pseudo-projective parsing: lift non-projective arcs for training, lower them after parsing.

Nivre and Nilsson (2005), as summarised by Nivre (2008, §6.1) and Björkelund and
Kuhn (2012, §2):

- **projectivize**: while the tree is non-projective, take one non-projective arc
  h → d and *lift* it to g → d, where g is the head of h. The order is "shortest
  arc first" (Nivre and Nilsson 2005) or "deepest dependent first" (MaltParser's
  other lifting order). Lifting never goes past the root, because an arc from the
  root 0 is always projective, so the loop ends with a projective tree.
- **encodings** of what was lifted, in the arc labels:
  ``baseline`` (no marks: the lower bound), ``head`` (the lifted arc d is labelled
  ``d↑h``, h the label of its original, syntactic head), ``path`` (the lifted arc is
  ``d↑`` and every arc it was lifted over, i.e. the arc into each node from the
  syntactic head up to the new head, exclusive, gets ``↓``), ``head+path`` (both).
- **label cap** (Johansson and Nugues 2008): fitted on training trees, keep only the
  m most frequent new labels; every other marked arc keeps its plain label.
- **deprojectivize**: for each arc marked ``↑``, top-down and left to right over the
  parsed tree, search breadth-first (left to right) below its current head, never
  inside its own subtree, for the syntactic head: ``head``: the first word whose
  label is h; ``path``: the deepest word reached through ``↓`` arcs; ``head+path``:
  the deepest word reached through ``↓`` arcs whose label is h, else the ``head``
  search. Ties between equally deep words go to the first in breadth-first order.
  An arc whose head is not found stays where it is. All marks are removed from the
  output labels, always.

The markers ``↑`` and ``↓`` are the papers' own notation; they cannot occur in UD
or CoNLL-X labels, and an input label that contains one is refused.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from barley.errors import BarleyError
from barley.tree import dependents_lists, lift_to_projective

LIFTED = "↑"
DOWN = "↓"
ENCODINGS = ("baseline", "head", "path", "head+path")
LIFT_ORDERS = ("shortest", "deepest")


class Label(NamedTuple):
    """A label with its pseudo-projective marks: ``base``, lifted (``↑``), the
    syntactic head's label (``head``, or None) and on a lifting path (``↓``)."""

    base: str
    lifted: bool = False
    head: str | None = None
    down: bool = False


def encode_label(label: Label) -> str:
    """``base`` + ``↑`` + ``head`` if lifted + ``↓`` if on a path (inverse of :func:`decode_label`)."""
    text = label.base
    if label.lifted:
        text += LIFTED + (label.head or "")
    if label.down:
        text += DOWN
    return text


def decode_label(text: str) -> Label:
    """Split an encoded label into its parts (inverse of :func:`encode_label`)."""
    down = text.endswith(DOWN)
    if down:
        text = text[:-1]
    base, lifted, head = text.partition(LIFTED)
    return Label(base.replace(DOWN, ""), bool(lifted), head.replace(DOWN, "") or None, down)


def plain_label(text: str) -> str:
    """The label without any pseudo-projective mark."""
    if LIFTED in text or DOWN in text:
        return decode_label(text).base
    return text


def check_labels(deprels) -> None:
    """Refuse labels that cannot be encoded: empty ones, or ones already holding a marker."""
    for label in deprels[1:]:
        if not label or LIFTED in label or DOWN in label:
            raise BarleyError(
                f"dependency label {label!r} cannot be used with pseudo-projective encodings",
                fix=f"labels must be non-empty and must not contain {LIFTED!r} or {DOWN!r}; rename them first")


class Lift(NamedTuple):
    """One lifted arc: its dependent, original head, new head and number of lifts."""

    dependent: int
    syntactic_head: int
    linear_head: int
    steps: int


class Projectivized(NamedTuple):
    heads: np.ndarray
    deprels: list[str]
    lifts: list[Lift]


def projectivize(heads, deprels, encoding: str = "head", lift: str = "shortest") -> Projectivized:
    """Lift non-projective arcs until the tree is projective, and encode the lifts in the labels.

    ``heads``/``deprels`` are indexed 0..n (entry 0 = the root, ignored). ``lift``:
    ``shortest`` lifts the shortest non-projective arc first (ties: leftmost
    dependent), ``deepest`` the one whose dependent is deepest in the tree (ties: leftmost),
    as MaltParser's ``deepest`` lifting order.
    """
    if encoding not in ENCODINGS:
        raise BarleyError(f"unknown pseudo-projective encoding {encoding!r}",
                          fix=f"choose one of {', '.join(ENCODINGS)}")
    if lift not in LIFT_ORDERS:
        raise BarleyError(f"unknown lifting order {lift!r}", fix=f"choose one of {', '.join(LIFT_ORDERS)}")
    check_labels(deprels)
    original = [int(h) for h in heads]
    current, lifted_over = lift_to_projective(original, lift)
    steps = [len(over) for over in lifted_over]
    on_path = [False] * len(current)  # the arcs into the heads lifted over (the Path encoding marks them ↓)
    for over in lifted_over:
        for head in over:
            on_path[head] = True
    labels = [deprels[0]]
    for node in range(1, len(current)):
        lifted = steps[node] > 0 and encoding != "baseline"
        head_label = deprels[original[node]] if lifted and encoding in ("head", "head+path") else None
        down = on_path[node] and encoding in ("path", "head+path")
        labels.append(encode_label(Label(deprels[node], lifted, head_label, down)))
    lifts = [Lift(d, original[d], current[d], steps[d]) for d in range(1, len(current)) if steps[d]]
    return Projectivized(np.asarray(current, dtype=np.int32), labels, lifts)


def _breadth_first(children: list[list[int]], start: int, avoid: int, through=None) -> list[tuple[int, int]]:
    """(node, depth) below ``start`` in top-down, left-to-right breadth-first order,
    skipping the subtree of ``avoid`` and, if ``through`` is given, every node for
    which ``through(node)`` is false (and so its subtree)."""
    found = []
    queue = deque((child, 1) for child in children[start])
    while queue:
        node, depth = queue.popleft()
        if node == avoid or (through is not None and not through(node)):
            continue
        found.append((node, depth))
        queue.extend((child, depth + 1) for child in children[node])
    return found


def _deepest(candidates: list[tuple[int, int]]) -> int | None:
    if not candidates:
        return None
    deepest = max(depth for _, depth in candidates)
    return next(node for node, depth in candidates if depth == deepest)


def _syntactic_head(labels: list[Label], heads: list[int], dependent: int, encoding: str) -> int | None:
    children = dependents_lists(heads)
    start = heads[dependent]
    wanted = labels[dependent].head
    if encoding == "head":
        if wanted is None:
            return None
        return next((node for node, _ in _breadth_first(children, start, dependent)
                     if labels[node].base == wanted), None)
    marked = _breadth_first(children, start, dependent, through=lambda node: labels[node].down)
    if encoding == "path":
        return _deepest(marked)
    found = _deepest([(node, depth) for node, depth in marked if labels[node].base == wanted])
    if found is None:
        found = _syntactic_head(labels, heads, dependent, "head")
    return found


class Deprojectivized(NamedTuple):
    heads: np.ndarray
    deprels: list[str]
    lowered: int
    not_found: int


def deprojectivize(heads, deprels, encoding: str = "head") -> Deprojectivized:
    """Lower every arc marked as lifted to the head its marks point to; strip all marks."""
    if encoding not in ENCODINGS:
        raise BarleyError(f"unknown pseudo-projective encoding {encoding!r}",
                          fix=f"choose one of {', '.join(ENCODINGS)}")
    current = [int(h) for h in heads]
    if not any(LIFTED in label for label in deprels[1:]):  # the common case: nothing to lower
        return Deprojectivized(np.asarray(current, dtype=np.int32), [plain_label(label) for label in deprels], 0, 0)
    labels = [Label(deprels[0])] + [decode_label(label) for label in deprels[1:]]
    lowered = not_found = 0
    if encoding != "baseline":
        children = dependents_lists(current)
        order = [node for node, _ in _breadth_first(children, 0, avoid=-1)]
        for dependent in order:
            if labels[dependent].lifted:
                new_head = _syntactic_head(labels, current, dependent, encoding)
                if new_head is None:
                    not_found += 1
                else:
                    current[dependent] = new_head
                    lowered += 1
    return Deprojectivized(np.asarray(current, dtype=np.int32), [label.base for label in labels], lowered, not_found)


@dataclass
class Statistics:
    """What pseudo-projective parsing did, for the training log: the counts of the calls
    of :meth:`PseudoProjective.forward` and :meth:`PseudoProjective.inverse` given it."""

    sentences: int = 0
    nonprojective_sentences: int = 0
    arcs: int = 0
    arcs_lifted: int = 0
    lift_steps: int = 0
    new_labels: Counter = field(default_factory=Counter)
    dropped_labels: Counter = field(default_factory=Counter)
    lowered: int = 0
    not_found: int = 0

    def lines(self) -> list[str]:
        dropped = sum(self.dropped_labels.values())
        out = []
        if self.sentences:
            out += [f"{self.sentences} sentences, {self.nonprojective_sentences} non-projective; "
                    f"{self.arcs_lifted} of {self.arcs} arcs lifted in {self.lift_steps} lift steps",
                    f"{len(self.new_labels)} new labels ({sum(self.new_labels.values())} arcs)"]
        if self.dropped_labels:
            common = ", ".join(f"{label} {count}" for label, count in self.dropped_labels.most_common(10))
            more = " ..." if len(self.dropped_labels) > 10 else ""
            out.append(f"label cap dropped {len(self.dropped_labels)} labels ({dropped} arcs keep their plain "
                       f"label): {common}{more}")
        if self.lowered or self.not_found:
            out.append(f"{self.lowered} arcs lowered, {self.not_found} marked arcs whose head was not found")
        return out


class PseudoProjective:
    """Pseudo-projective transformation with the uniform transform interface.

    ``fit(trees)`` counts the new labels of the training trees and, with a
    ``label_cap`` m, keeps the m most frequent (ties: alphabetical);
    ``forward`` projectivizes one tree; ``inverse`` deprojectivizes one parsed tree;
    ``to_json``/``from_json`` keep the state as plain data for the model manifest.
    ``forward`` and ``inverse`` count what they do into the ``stats`` their caller gives
    (a :meth:`new_stats`), so nothing piles up on the transform while it parses.
    """

    name = "pseudo-projective"

    def __init__(self, encoding: str = "head", lift: str = "shortest", label_cap: int | None = None,
                 kept_labels: list[str] | None = None):
        if encoding not in ENCODINGS:
            raise BarleyError(f"unknown pseudo-projective encoding {encoding!r}",
                              fix=f"choose one of {', '.join(ENCODINGS)}")
        if lift not in LIFT_ORDERS:
            raise BarleyError(f"unknown lifting order {lift!r}", fix=f"choose one of {', '.join(LIFT_ORDERS)}")
        if label_cap is not None and label_cap < 0:
            raise BarleyError(f"label cap {label_cap} is negative", fix="give a number of labels >= 0")
        self.encoding = encoding
        self.lift = lift
        self.label_cap = label_cap
        self.kept_labels = None if kept_labels is None else list(kept_labels)

    @staticmethod
    def new_stats() -> Statistics:
        return Statistics()

    def fit(self, trees) -> PseudoProjective:
        """Choose the new labels to keep from training ``trees`` (pairs heads, deprels)."""
        counts: Counter = Counter()
        for heads, deprels in trees:
            result = projectivize(heads, deprels, self.encoding, self.lift)
            counts.update(new for new, old in zip(result.deprels[1:], deprels[1:]) if new != old)
        ranked = sorted(counts, key=lambda label: (-counts[label], label))
        self.kept_labels = ranked if self.label_cap is None else ranked[:self.label_cap]
        return self

    def forward(self, heads, deprels, stats: Statistics | None = None) -> tuple[np.ndarray, list[str]]:
        stats = Statistics() if stats is None else stats
        if self.label_cap is not None and self.kept_labels is None:
            raise BarleyError("the pseudo-projective label cap needs fitting on training trees first")
        result = projectivize(heads, deprels, self.encoding, self.lift)
        kept = None if self.label_cap is None or self.kept_labels is None else set(self.kept_labels)
        labels = list(result.deprels)
        for node in range(1, len(labels)):
            if labels[node] != deprels[node]:
                if kept is not None and labels[node] not in kept:
                    stats.dropped_labels[labels[node]] += 1
                    labels[node] = deprels[node]
                else:
                    stats.new_labels[labels[node]] += 1
        stats.sentences += 1
        stats.nonprojective_sentences += bool(result.lifts)
        stats.arcs += len(labels) - 1
        stats.arcs_lifted += len(result.lifts)
        stats.lift_steps += sum(lift.steps for lift in result.lifts)
        return result.heads, labels

    def inverse(self, heads, deprels, stats: Statistics | None = None) -> tuple[np.ndarray, list[str]]:
        result = deprojectivize(heads, deprels, self.encoding)
        stats = Statistics() if stats is None else stats
        stats.lowered += result.lowered
        stats.not_found += result.not_found
        return result.heads, result.deprels

    def to_json(self) -> dict:
        return {"name": self.name, "encoding": self.encoding, "lift": self.lift, "label_cap": self.label_cap,
                "kept_labels": self.kept_labels}

    @classmethod
    def from_json(cls, data: dict) -> PseudoProjective:
        return cls(data["encoding"], data["lift"], data["label_cap"], data["kept_labels"])
