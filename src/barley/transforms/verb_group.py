"""Verb groups with the auxiliary as head, and back (Nilsson, Nivre and Hall 2006, §3.2: τv).

Forward: the auxiliaries (a word whose arc from its main verb carries an auxiliary
label: AuxV in Prague style, ``aux``/``aux:pass`` in UD) are processed left to
right. Each reverses the arc with its main verb: the auxiliary takes the main verb's
head and label, the main verb hangs from the auxiliary with the auxiliary's label.
So that no arc becomes non-projective, the main verb's other dependents left of the
rightmost of the two verbs go to the leftmost one and the rest to the rightmost;
auxiliaries still to be processed stay with the main verb. Several auxiliaries of
one verb thus become a chain, first auxiliary on top and main verb at the bottom.

Inverse: the words are visited right to left; a word with a child carrying an
auxiliary label (the main verb, or the verb group's remainder) swaps back with it:
the child takes the word's head and label, the word hangs from the child with the
auxiliary label, and, since auxiliaries have no dependents in the source style,
all the word's other dependents go to the child. A word already restored as an
auxiliary is not taken as a main verb again. Dependents that an auxiliary had in
the source (UD allows them) thus come back on the main verb: that is the loss.
"""

from __future__ import annotations

import numpy as np

from barley.transforms import Counts, label_matcher, load_scheme


class _Tree:
    """Heads with children lists kept in step, so that each move costs O(degree)."""

    def __init__(self, heads):
        self.heads = [int(h) for h in heads]
        self.children: list[list[int]] = [[] for _ in self.heads]
        for node in range(1, len(self.heads)):
            self.children[self.heads[node]].append(node)

    def move(self, node: int, head: int) -> None:
        self.children[self.heads[node]].remove(node)
        self.heads[node] = head
        self.children[head].append(node)


class VerbGroup:
    """Main-verb-headed verb groups → auxiliary-headed (``forward``) and back (``inverse``)."""

    name = "verb-group"

    def __init__(self, scheme: str | dict = "ud"):
        self.scheme = load_scheme(scheme) if isinstance(scheme, str) else scheme
        self.is_auxiliary = label_matcher(self.scheme["verb_group"]["auxiliary"], self.scheme.get("subtypes", False))

    def fit(self, trees) -> VerbGroup:
        return self

    new_stats = staticmethod(Counts)

    def forward(self, heads, deprels, stats: Counts | None = None) -> tuple[np.ndarray, list[str]]:
        tree, labels, stats = _Tree(heads), list(deprels), Counts() if stats is None else stats
        pending = {a for a in range(1, len(labels)) if tree.heads[a] > 0 and self.is_auxiliary(labels[a])}
        for auxiliary in sorted(pending):
            pending.discard(auxiliary)
            main = tree.heads[auxiliary]
            tree.move(auxiliary, tree.heads[main])
            tree.move(main, auxiliary)
            labels[auxiliary], labels[main] = labels[main], labels[auxiliary]
            leftmost, rightmost = min(auxiliary, main), max(auxiliary, main)
            for dependent in list(tree.children[main]):
                if dependent not in pending:
                    tree.move(dependent, leftmost if dependent < rightmost else rightmost)
            stats["auxiliaries made heads"] += 1
        return np.asarray(tree.heads, dtype=np.int32), labels

    def inverse(self, heads, deprels, stats: Counts | None = None) -> tuple[np.ndarray, list[str]]:
        tree, labels, stats = _Tree(heads), list(deprels), Counts() if stats is None else stats
        restored: set[int] = set()
        for auxiliary in range(len(labels) - 1, 0, -1):
            children = sorted(tree.children[auxiliary])
            main = next((c for c in children if c not in restored and self.is_auxiliary(labels[c])), None)
            if main is None:
                continue
            tree.move(main, tree.heads[auxiliary])
            tree.move(auxiliary, main)
            labels[auxiliary], labels[main] = labels[main], labels[auxiliary]
            for dependent in children:
                if dependent != main:
                    tree.move(dependent, main)
            restored.add(auxiliary)
            stats["auxiliaries restored"] += 1
        return np.asarray(tree.heads, dtype=np.int32), labels

    def to_json(self) -> dict:
        return {"name": self.name, "scheme": self.scheme}

    @classmethod
    def from_json(cls, data: dict) -> VerbGroup:
        return cls(data["scheme"])
