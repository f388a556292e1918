"""The learned enhanced head of the joint network, at inference (numpy): the enhanced graph of a parsed sentence.

Dozat and Manning (2018), *Simpler but More Accurate Semantic Dependency Parsing*, §2: every
pair of words gets an edge score — a word may have any number of heads — and every edge a label,
both biaffine over MLPs of the words' vectors. Here the vectors are those the joint network's
parser reads (the output of its own BiLSTM layers, :class:`barley.neural.joint.NumpyJoint`),
taken as they are: the head is trained on the frozen network (:mod:`barley.enhanced.head_training`),
so that the basic tree, the tags and the speed of a model without ``--enhanced`` stay what they
were. Two inputs besides the vectors tell the head about the basic tree it is to enhance (most
enhanced arcs are basic arcs, and the others are near them):

- each pair's place in the predicted basic tree (:data:`PLACES`: the head's parent, child,
  grandparent or sibling, or none), and whether the rules of :mod:`barley.enhanced.rules` make
  the arc, as a learned bias of the edge score per combination (:data:`PAIR_KINDS` of them);
- the class of the rules' label for the pair, as a learned bias of the edge score and of each
  label's score.

The labels are learned without their lexical part (:func:`label_class`: ``obl:with`` is the
class ``obl``) and lexicalised from the lemmas of the basic tree as the rules do: the rules' own
label where they make the same arc with a label of that class, else the class lexicalised with
the dependent's markers (:func:`barley.enhanced.rules.lexicalised`).

Decoding: every pair whose edge probability is over 0.5 (score over 0); a word left without a
head takes its best one; then, while a word cannot be reached from the root, the best-scoring
arc from a word that can to one that cannot is added (Prim's step), so the graph is connected
from the root. The label of an arc from the root is ``root``; no other arc takes ``root``. No
empty nodes are predicted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from barley.conllu import DEPS, Sentence
from barley.enhanced.deps import format_deps
from barley.enhanced.rules import BasicTree, Conventions, enhanced_arcs, lexicalised
from barley.models import check
from barley.neural import numpy_ops as ops
from barley.neural.numpy_encoder import Shapes, linear_shapes

LEXICAL = frozenset({"nmod", "obl", "acl", "advcl", "conj"})
"""The relations whose enhanced labels carry a lexical part (the rules' markers: :data:`barley.enhanced.rules.MARKERS`, and conj)."""
PLACES = ("none", "parent", "child", "grandparent", "sibling")
"""Where a head candidate h stands to the dependent d in the basic tree: h is d's head (parent), d is
h's head (child), h is the head of d's head (grandparent), h and d have one head (sibling), none of these."""
PAIR_KINDS = 2 * len(PLACES)
"""A pair's place, and whether the rules make the arc (the second half)."""
ROOT = "root"


@dataclass(frozen=True)
class HeadOptions:
    """The sizes of the head's MLPs (Dozat and Manning 2018 use 600 for edges and labels, over a
    larger encoder; these keep the model file small: the shipped ``en_ewt`` under 25 MB)."""

    edge_mlp: int = 48
    label_mlp: int = 24

    def check(self) -> None:
        if self.edge_mlp < 1 or self.label_mlp < 1:
            raise ValueError(f"MLP sizes must be positive, not {self.edge_mlp} and {self.label_mlp}")


def label_class(relation: str, basic: frozenset[str]) -> str:
    """The class of an enhanced relation: a lexical relation (:data:`LEXICAL`) without its lexical
    part — its longest prefix that is a basic relation (``obl:npmod`` stays, ``obl:with`` is ``obl``,
    ``acl:relcl`` stays) — any other relation as it is."""
    universal = relation.partition(":")[0]
    if universal not in LEXICAL or relation in basic:
        return relation
    parts = relation.split(":")
    return next((prefix for end in range(len(parts) - 1, 1, -1) if (prefix := ":".join(parts[:end])) in basic),
                universal)


def places(heads: np.ndarray) -> np.ndarray:
    """Each pair's place (:data:`PLACES`) as ``[dependent, head]`` over the nodes 0..n, from the basic
    tree's heads ``[n + 1]`` (-1 for the root node)."""
    nodes = np.arange(len(heads))
    dependent, candidate = nodes[:, None], nodes[None, :]
    grandparent = np.where(heads >= 1, heads[np.maximum(heads, 0)], -2)
    parent = candidate == heads[:, None]
    child = heads[None, :] == dependent
    grand = candidate == grandparent[:, None]
    sibling = (heads[None, :] == heads[:, None]) & (candidate != dependent) & (candidate >= 1)
    return np.select([parent, child, grand, sibling], [1, 2, 3, 4], 0)


@dataclass
class PairFeatures:
    """What the head reads of a parsed sentence besides its vectors, ``[dependent, head]`` over 0..n:
    each pair's kind (:data:`PAIR_KINDS`) and the class of the rules' label (``classes`` where the
    rules make no arc, or one of a class the head does not know); and the rules' arcs themselves."""

    kinds: np.ndarray
    rule_classes: np.ndarray
    rule_arcs: list[set[tuple[int, str]]]
    tree: BasicTree


class HeadTable:
    """The head's label classes (in order of first occurrence in training), the basic relations its
    classes are cut to (:func:`label_class`) and the rules' conventions it lexicalises with."""

    def __init__(self, classes: list[str], basic: Sequence[str], conventions: Conventions):
        self.classes, self.basic, self.conventions = classes, frozenset(basic), conventions
        self.ids = {name: k for k, name in enumerate(classes)}
        self.none = len(classes)  # the rule class of a pair without a rules arc

    def features(self, sentence: Sentence) -> PairFeatures:
        tree = BasicTree(sentence)
        heads = np.array(tree.head, dtype=np.int64)
        heads[0] = -1
        rule_arcs = enhanced_arcs(tree, self.conventions)
        size = len(heads)
        rules = np.full((size, size), self.none, dtype=np.int64)
        made = np.zeros((size, size), dtype=bool)
        for dependent, arcs in enumerate(rule_arcs):
            for head, relation in arcs:
                rules[dependent, head] = self.ids.get(label_class(relation, self.basic), self.none)
                made[dependent, head] = True
        return PairFeatures(places(heads) + len(PLACES) * made, rules, rule_arcs, tree)

    def to_json(self) -> dict:
        return {"classes": self.classes, "basic": sorted(self.basic), "conventions": asdict(self.conventions)}

    @classmethod
    def from_json(cls, entry: dict) -> HeadTable:
        conventions = entry["conventions"]
        flags = ("conj_lemma", "morphological_case", "shared_root", "reduced_relatives")
        if set(conventions) != {*flags, "controlled_subject"} or not all(
                isinstance(conventions[flag], bool) for flag in flags):
            raise ValueError("the enhanced head's conventions are not those of barley.enhanced.rules.Conventions")
        check.texts([conventions["controlled_subject"]], "the controlled subject's relation", field=True)
        return cls(check.texts(entry["classes"], "the enhanced head's classes", field=True, unique=True),
                   check.texts(entry["basic"], "the enhanced head's basic relations", field=True, unique=True),
                   Conventions(**conventions))


MLPS = ("edge_dep", "edge_head", "label_dep", "label_head")


def head_shapes(width: int, options: HeadOptions, classes: int, prefix: str = "enhanced.") -> Shapes:
    """The head's arrays (PyTorch's names under ``prefix``) over vectors of ``width``."""
    shapes: Shapes = {}
    for name in MLPS:
        shapes.update(linear_shapes(f"{prefix}{name}.0", width,
                                    options.edge_mlp if name.startswith("edge") else options.label_mlp))
    shapes[f"{prefix}edge_attention.weight"] = (1, options.edge_mlp + 1, options.edge_mlp + 1)
    shapes[f"{prefix}label_attention.weight"] = (classes, options.label_mlp + 1, options.label_mlp + 1)
    shapes[f"{prefix}pair_bias"] = (PAIR_KINDS,)
    shapes[f"{prefix}rule_edge"] = (classes + 1,)
    shapes[f"{prefix}rule_label"] = (classes + 1, classes)
    return shapes


def decode(scores: np.ndarray) -> list[list[int]]:
    """The heads of every node (entry 0 empty) from edge scores ``[dependent, head]`` over 0..n: the
    pairs over 0, at least the best head of each word, and the best arcs that connect the words the
    root does not reach (see the module docstring)."""
    size = len(scores)
    scores = scores.astype(np.float64)
    scores[np.arange(size), np.arange(size)] = -np.inf
    chosen = scores > 0
    chosen[0] = False
    for dependent in np.flatnonzero(~chosen[1:].any(axis=1)) + 1:
        chosen[dependent, scores[dependent].argmax()] = True
    reached = np.zeros(size, dtype=bool)
    _reach(chosen, reached, 0)
    while not reached.all():
        outside, inside = np.flatnonzero(~reached), np.flatnonzero(reached)
        block = scores[np.ix_(outside, inside)]
        row, column = np.unravel_index(block.argmax(), block.shape)
        chosen[outside[row], inside[column]] = True
        _reach(chosen, reached, outside[row])
    return [[]] + [np.flatnonzero(chosen[dependent]).tolist() for dependent in range(1, size)]


def _reach(chosen: np.ndarray, reached: np.ndarray, start: int) -> None:
    """Mark ``start`` and every node reachable from it along ``chosen`` arcs (``[dependent, head]``)."""
    stack = [start]
    reached[start] = True
    while stack:
        node = stack.pop()
        for dependent in np.flatnonzero(chosen[:, node] & ~reached):
            reached[dependent] = True
            stack.append(int(dependent))


class EnhancedHead:
    """The head's forward pass and decoding over its (checked) arrays, names without the prefix."""

    def __init__(self, table: HeadTable, weights: dict[str, np.ndarray]):
        self.table = table
        self.mlps = {name: (weights[f"{name}.0.weight"], weights[f"{name}.0.bias"]) for name in MLPS}
        self.edge_weight, self.label_weight = weights["edge_attention.weight"], weights["label_attention.weight"]
        self.pair_bias, self.rule_edge, self.rule_label = (weights[name] for name in ("pair_bias", "rule_edge",
                                                                                       "rule_label"))
        self.root = table.ids.get(ROOT)

    def write(self, sentences: Sequence[Sentence], vectors: np.ndarray) -> None:
        """The DEPS of every word of ``sentences`` (with their basic trees and lemmas), from the parser's
        vectors of the batch ``[sentences, nodes, width]`` (node 0 the root)."""
        for sentence, deps in zip(sentences, self.graphs(sentences, vectors)):
            for word, value in zip(sentence.words, deps):
                word[DEPS] = value

    def edge_scores(self, vectors: np.ndarray) -> np.ndarray:
        """The biaffine edge scores of every pair ``[B, dependent, head]``, before the pair biases."""
        edge_dep, edge_head = (ops.with_bias(ops.mlp(vectors, *self.mlps[name])) for name in MLPS[:2])
        return ops.biaffine(edge_dep, edge_head, self.edge_weight)[..., 0]

    def graphs(self, sentences: Sequence[Sentence], vectors: np.ndarray) -> list[list[str]]:
        """Each sentence's DEPS values, words 1..n (see :meth:`write`)."""
        edges = self.edge_scores(vectors)
        label_dep, label_head = (ops.with_bias(ops.mlp(vectors, *self.mlps[name])) for name in MLPS[2:])
        decoded = []  # per sentence: features, dependents, heads of its arcs
        for k, sentence in enumerate(sentences):
            size = len(sentence) + 1
            features = self.table.features(sentence)
            heads = decode(edges[k, :size, :size] + self.pair_bias[features.kinds]
                           + self.rule_edge[features.rule_classes])
            decoded.append((features, np.array([d for d in range(1, size) for _ in heads[d]], dtype=np.int64),
                            np.array([h for d in range(1, size) for h in heads[d]], dtype=np.int64)))
        rows = np.concatenate([np.full(len(dependents), k) for k, (_, dependents, _) in enumerate(decoded)])
        labels = ops.biaffine_aligned(label_dep[rows, np.concatenate([d for _, d, _ in decoded])],
                                      label_head[rows, np.concatenate([h for _, _, h in decoded])],
                                      self.label_weight)  # every arc of the batch at once
        found, start = [], 0
        for sentence, (features, dependents, chosen) in zip(sentences, decoded):
            scores = labels[start:start + len(dependents)] + self.rule_label[features.rule_classes[dependents, chosen]]
            found.append(self._deps(sentence, features, dependents, chosen, scores))
            start += len(dependents)
        return found

    def _deps(self, sentence: Sentence, features: PairFeatures, dependents: np.ndarray, chosen: np.ndarray,
              labels: np.ndarray) -> list[str]:
        if self.root is not None:  # root from the root node only
            labels[chosen != 0, self.root] = -np.inf
        arcs: list[list[tuple[int, str]]] = [[] for _ in range(len(sentence) + 1)]
        best = labels.argmax(axis=1).tolist()
        for dependent, head, label in zip(dependents.tolist(), chosen.tolist(), best):
            name = ROOT if head == 0 else self.table.classes[label]
            arcs[dependent].append((head, self._lexicalised(sentence, features, dependent, head, name)))
        return [format_deps(word_arcs) for word_arcs in arcs[1:]]

    def _lexicalised(self, sentence: Sentence, features: PairFeatures, dependent: int, head: int, name: str) -> str:
        """The label of class ``name``: the rules' own where they label this arc so, else the class with
        the dependent's markers."""
        if name.partition(":")[0] not in LEXICAL:
            return name
        ruled = next((relation for h, relation in features.rule_arcs[dependent]
                      if h == head and label_class(relation, self.table.basic) == name), None)
        return ruled or lexicalised(features.tree, name, dependent, self.table.conventions)
