"""UD-valid output by construction (``barley parse --valid-ud``): trees that break none of the
structural rules that UD's own validator checks at level 3.

The rules, as ``validate.py --level 3`` (UniversalDependencies/tools, ``udtools/level3.py``)
checks them, on the universal part of each DEPREL (``nsubj:pass`` → ``nsubj``):

* one subject and one object per head (``check_single_subject``, ``check_single_object``): at
  most one dependent whose relation contains ``subj`` (``nsubj``, ``csubj`` and their subtypes,
  except ``nsubj:outer`` and ``csubj:outer``), at most one ``obj``;
* function words are leaves (``check_functional_leaves``): a word attached as ``case``, ``mark``,
  ``aux``, ``cop``, ``det``, ``clf``, ``cc``, ``fixed``, ``goeswith`` or ``punct`` takes only the
  dependents :data:`LEAVES` lists for it (a ``det`` with ``Poss=Yes`` also ``appos``, ``acl``,
  ``nmod``); a negation (``advmod`` on a PART or ADV with ``Polarity=Neg``) may modify any of them
  but ``punct``;
* ``conj``, ``fixed``, ``flat``, ``goeswith``, ``appos`` run left to right (the head precedes the
  dependent, ``check_left_to_right_relations``); ``root`` exactly on the words whose head is 0
  (``check_zero_root``);
* relation and UPOS agree (``check_upos_vs_deprel``, with the word's ``ExtPos`` feature standing for
  its UPOS where it has one): :data:`AGREEMENT` (``det`` on DET or PRON, ``advmod`` not on a NOUN,
  ``punct`` on PUNCT, …), a PUNCT word is ``punct`` (or ``root``), no ``fixed`` on or under a PROPN;
  and ``goeswith`` only where the tags say so (``check_goeswith_morphology_and_edeps``: the
  dependent tagged X with no lemma and no features, the head with ``Typo=Yes``).

The tags are the tagger's (or the input's), taken as they are: the relations adapt to them.

How a parser keeps them:

* graph-based decoding with labels chosen after the tree (the joint network, the biaffine parser;
  :meth:`UDRules.keep`): a PUNCT word may head only PUNCT words (:meth:`UDRules.mask_arcs`, the arc
  scores masked before the tested decoders run); then the labels of the tree are the most probable
  labelling under every rule (:meth:`UDRules.reconcile`), an exact dynamic programme over the tree
  (a word's label decides which labels its dependents may take; at each head, one subject and one
  object at most: the best choice among each class's two best dependents); then each ``punct`` word
  the validator would find non-projective moves to the best head where it is not
  (:meth:`UDRules.attach_punctuation`, ``punct-is-nonproj`` and ``punct-causes-nonproj``);
* transition-based parsers (:meth:`UDRules.finish`): the moves are taken as the model scores them,
  and the tree is mended after the parse: a word that the system leaves without a head and
  ``finalize`` attaches under the root word takes ``punct`` (PUNCT) or the first of :data:`STRAY`
  the model knows instead of ``root`` (:meth:`UDRules.strays`); a word that a function word may not
  take is lifted to that word's head; then the labels are the most probable labelling under every
  rule (:meth:`UDRules.reconcile`), each word's labels weighed by their probabilities at the step
  that attached it. Masking the moves instead (a labelled move's labels barred where they would
  break a rule given the arcs built so far) cost a greedy parser more: a wrong first subject bars
  the right second one, and the parse goes on from the mistake (EWT test from raw text: −0.24 LAS
  for the neural arc-hybrid parser masked, −0.06 mended; ``docs/valid-ud.md``).

What is guaranteed, and tested on random trees with random scores (``tests/test_valid_ud.py``):
for the graph case, every output follows every rule above whenever the model has a *free* label
(no rule concerns it: ``dep``, ``nmod``, ``obl``, …) and ``punct``, and punctuation is projective
wherever some head allows it; :meth:`UDRules.violations` lists what a tree breaks. Not covered:
``obl-should-be-nmod``, gaps and spaces in ``goeswith`` and ``fixed``, and the validator's own
exceptions (a punctuation child of a non-projective function word), which are refused as if they
were errors. ``docs/valid-ud.md`` has the measured effect.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from barley.conllu import FEATS, LEMMA, UPOS

RIGHTWARD = frozenset({"conj", "fixed", "flat", "goeswith", "appos"})
"""Relations whose head precedes the dependent."""
_MARK_CASE = frozenset({"advmod", "obl", "goeswith", "fixed", "reparandum", "conj", "cc", "punct"})
LEAVES: dict[str, frozenset[str]] = {
    "mark": _MARK_CASE,
    "case": _MARK_CASE,
    "aux": frozenset({"goeswith", "fixed", "reparandum", "conj", "cc", "punct"}),
    "cop": frozenset({"goeswith", "fixed", "reparandum", "conj", "cc", "punct"}),
    "det": frozenset({"det", "case", "advmod", "obl", "clf", "goeswith", "fixed", "flat", "compound", "reparandum",
                      "discourse", "parataxis", "conj", "cc", "punct"}),
    "clf": _MARK_CASE,
    "cc": frozenset({"goeswith", "fixed", "reparandum", "conj", "punct"}),
    "fixed": frozenset({"goeswith", "reparandum", "conj", "punct"}),
    "goeswith": frozenset(),
    "punct": frozenset({"punct"}),
}
"""A function-word relation (universal part) → the relations its word's dependents may have."""
POSSESSIVE_DET = frozenset({"appos", "acl", "nmod"})
"""What a ``det`` with ``Poss=Yes`` may take besides."""
AGREEMENT: dict[str, tuple[bool, frozenset[str]]] = {
    "det": (True, frozenset({"DET", "PRON"})),
    "nummod": (True, frozenset({"NUM", "NOUN", "SYM"})),
    "advmod": (True, frozenset({"ADV", "ADJ", "CCONJ", "DET", "PART", "SYM"})),
    "expl": (True, frozenset({"PRON", "DET", "PART"})),
    "aux": (True, frozenset({"AUX"})),
    "cop": (True, frozenset({"AUX", "PRON", "DET", "SYM"})),
    "case": (False, frozenset({"PROPN", "ADJ", "PRON", "DET", "NUM", "AUX"})),
    "mark": (False, frozenset({"NOUN", "PROPN", "ADJ", "PRON", "DET", "NUM", "AUX", "INTJ"})),
    "cc": (False, frozenset({"NOUN", "PROPN", "ADJ", "PRON", "DET", "NUM", "VERB", "AUX", "INTJ"})),
    "punct": (True, frozenset({"PUNCT"})),
}
"""A relation → (True, the UPOS it needs) or (False, the UPOS it refuses)."""
STRAY = ("parataxis", "dep")
"""The label, first known to the model, of a word that a transition system left without a head and
``finalize`` attached under the root word (``root`` there would break ``root-is-not-0``)."""
UNLIKELY = -30.0
"""The log-probability :meth:`UDRules.finish` gives a label its step could not take (a given arc's guide
barred it): possible when nothing else keeps the rules, never preferred."""


def universal(label: str) -> str:
    return label.split(":", 1)[0]


def feature(word: Sequence[str], name: str) -> str | None:
    """The value of feature ``name`` in the word's FEATS, or None."""
    for pair in word[FEATS].split("|"):
        key, _, value = pair.partition("=")
        if key == name:
            return value
    return None


def upos_of(word: Sequence[str]) -> str:
    """The UPOS the validator reads: the ``ExtPos`` feature where there is one."""
    return feature(word, "ExtPos") or word[UPOS]


@dataclass
class Tags:
    """What the rules read of one sentence's words, per node 0..n (row 0, the root node: nothing):
    the labels each word's tags allow (:meth:`UDRules.word_labels`), and its PROPN (or ExtPos),
    ``Typo=Yes``, ``Poss=Yes`` and negation (a PART or ADV with ``Polarity=Neg``)."""

    masks: np.ndarray
    propn: np.ndarray
    typo: np.ndarray
    poss: np.ndarray
    neg: np.ndarray


class UDRules:
    """The rules over a model's ``labels`` (see the module docstring), as masks over label ids."""

    def __init__(self, labels: Sequence[str]):
        self.labels = list(labels)
        self.universal = [universal(label) for label in self.labels]
        relation = np.array(self.universal, dtype=object)
        self.root = relation == "root"
        self.subject = np.array(["subj" in u and label not in ("nsubj:outer", "csubj:outer")
                                 for u, label in zip(self.universal, self.labels)])
        self.object = relation == "obj"
        self.rightward = np.isin(relation, list(RIGHTWARD))
        self.classes = sorted(LEAVES)
        self.leaf_class = np.array([self.classes.index(u) if u in LEAVES else -1 for u in self.universal])
        self.admits = np.array([np.isin(relation, list(LEAVES[name])) for name in self.classes])  # class × child label
        self.possessive = np.isin(relation, list(POSSESSIVE_DET))
        self.negation = relation == "advmod"
        self.fixed, self.goeswith = relation == "fixed", relation == "goeswith"
        self.punct = next((k for k, u in enumerate(self.universal) if u == "punct" and self.labels[k] == u), None)
        restricted = set(AGREEMENT) | RIGHTWARD | set(LEAVES) | {"root"}
        self.free = ~np.isin(relation, list(restricted)) & ~self.subject & ~self.object
        # the first of: a STRAY label, a free one, any but root (None: the model knows root alone)
        fallbacks = np.flatnonzero(self.free) if self.free.any() else np.flatnonzero(~self.root)
        self.stray = next((self.labels.index(label) for label in STRAY if label in self.labels),
                          int(fallbacks[0]) if len(fallbacks) else None)
        self._word_labels: dict[tuple, np.ndarray] = {}
        self.admitted_table = np.ones((len(self.classes) + 1, 2, 2, len(self.labels)), dtype=bool)
        for c, name in enumerate(self.classes):
            for poss in (0, 1):
                for neg in (0, 1):
                    allowed = self.admits[c].copy()
                    if name == "det" and poss:
                        allowed |= self.possessive
                    if name != "punct" and neg:
                        allowed |= self.negation
                    self.admitted_table[c + 1, poss, neg] = allowed
        """``[leaf class + 1, the head's Poss=Yes, the dependent's negation]``: the labels admitted
        (:meth:`admitted`)."""

    # --- masks over labels ------------------------------------------------------------------

    def word_labels(self, word: Sequence[str]) -> np.ndarray:
        """The labels a word's tags allow (relation–UPOS agreement), wherever it is attached."""
        key = (upos_of(word), word[UPOS], word[LEMMA] == "_", word[FEATS] == "_")
        if key not in self._word_labels:
            self._word_labels[key] = self._agreeing(word)
        return self._word_labels[key]

    def _agreeing(self, word: Sequence[str]) -> np.ndarray:
        upos = upos_of(word)
        allowed = np.ones(len(self.labels), dtype=bool)
        for k, u in enumerate(self.universal):
            if u in AGREEMENT:
                needs, tags = AGREEMENT[u]
                allowed[k] = (upos in tags) == needs
        if upos == "PUNCT":
            allowed &= np.array([label.startswith(("punct", "root")) for label in self.labels])
        if upos == "PROPN":
            allowed &= ~self.fixed
        if not (word[UPOS] == "X" and word[LEMMA] == "_" and word[FEATS] == "_"):
            allowed &= ~self.goeswith
        return allowed

    def tags(self, words: Sequence[Sequence[str]]) -> Tags:
        """What the rules read of ``words`` (see :class:`Tags`)."""
        n = len(words)
        masks = np.zeros((n + 1, len(self.labels)), dtype=bool)
        flags = np.zeros((4, n + 1), dtype=bool)
        for d, word in enumerate(words, 1):
            masks[d] = self.word_labels(word)
            flags[:, d] = (upos_of(word) == "PROPN", feature(word, "Typo") == "Yes", feature(word, "Poss") == "Yes",
                           word[UPOS] in ("PART", "ADV") and feature(word, "Polarity") == "Neg")
        return Tags(masks, *flags)

    def arc_labels(self, tags: Tags, head: int, dependent: int) -> np.ndarray:
        """The labels the arc ``head → dependent`` may take on its own: agreement, direction, ``root``
        iff the head is 0, no ``fixed`` under a PROPN, ``goeswith`` only under a head with ``Typo=Yes``."""
        if head == 0:
            return tags.masks[dependent] & self.root
        allowed = tags.masks[dependent] & ~self.root
        if head > dependent:
            allowed &= ~self.rightward
        if tags.propn[head]:
            allowed &= ~self.fixed
        if not tags.typo[head]:
            allowed &= ~self.goeswith
        return allowed

    def admitted(self, leaf_class: int, tags: Tags, head: int, dependent: int) -> np.ndarray:
        """The labels ``dependent`` may take under ``head`` attached with a relation of ``leaf_class``
        (an index of :attr:`classes`; -1: not a function word, anything goes). Read only."""
        return self.admitted_table[leaf_class + 1, int(tags.poss[head]), int(tags.neg[dependent])]

    # --- graph decoders -----------------------------------------------------------------------

    @staticmethod
    def mask_arcs(arc: np.ndarray, words: Sequence[Sequence[str]], given: Sequence[int] = ()) -> np.ndarray:
        """``arc[h, d]`` with the arcs from a PUNCT word to a word that is not PUNCT at -inf: a
        PUNCT word is ``punct`` (or the root), and ``punct`` heads only ``punct``. Every other
        word keeps a head (the root node, a word that is not PUNCT). The words of ``given`` (whose
        head is given, :mod:`barley.constraints`) keep theirs: given arcs win."""
        punct = np.array([False] + [upos_of(word) == "PUNCT" for word in words])
        if not punct.any() or punct[1:].all():
            return arc
        blocked = punct[:, None] & ~punct[None, :]
        blocked[:, list(given)] = False
        return np.where(blocked, -np.inf, arc)

    def reconcile(self, heads: Sequence[int], scores: np.ndarray, words: Sequence[Sequence[str]]) -> list[int] | None:
        """The labelling of the tree ``heads`` (node 0..n) that maximises the summed ``scores``
        (``scores[d, label]``, rows 1..n: each word's label scores at its head) under every rule,
        as label ids per node (entry 0: -1); None when no labelling keeps them all.

        Exact, by dynamic programming from the leaves up: ``best[d, l]`` is the best score of d's
        subtree with d labelled l; a head's dependents are labelled together (:meth:`_dependents`)
        once per class of the head's label (a function-word class, or anything else)."""
        n = len(heads) - 1
        tags = self.tags(words)
        children: list[list[int]] = [[] for _ in range(n + 1)]
        for d in range(1, n + 1):
            children[heads[d]].append(d)
        order, at = [0], 0
        while at < len(order):
            order.extend(children[order[at]])
            at += 1
        best = np.full((n + 1, len(self.labels)), -np.inf)
        picks: dict[tuple[int, int], list[int]] = {}
        for d in reversed(order):
            if d == 0:
                value, picks[0, -1] = self._dependents(0, -1, children[0], best, tags)
                break
            allowed = self.arc_labels(tags, heads[d], d)
            own = np.where(allowed, scores[d], -np.inf)
            for leaf_class in sorted({int(self.leaf_class[k]) for k in np.flatnonzero(allowed)}):
                value, picks[d, leaf_class] = self._dependents(d, leaf_class, children[d], best, tags)
                labels = allowed & (self.leaf_class == leaf_class)
                best[d, labels] = own[labels] + value
        if not np.isfinite(value):
            return None
        label_ids = [-1] * (n + 1)
        todo = [(0, -1)]
        while todo:
            d, leaf_class = todo.pop()
            for child, label in zip(children[d], picks[d, leaf_class]):
                label_ids[child] = label
                todo.append((child, int(self.leaf_class[label])))
        return label_ids

    def _dependents(self, head: int, leaf_class: int, kids: list[int], best: np.ndarray,
                    tags: Tags) -> tuple[float, list[int]]:
        """The best labels of ``kids`` under ``head`` attached with a relation of ``leaf_class``, with
        at most one subject and one object among them: (their summed best, the labels). Each kid's
        best is taken three ways (neither, subject, object); the best pair of a subject and an object
        kid is among the two kids that gain most by each (a pair must be two kids)."""
        if not kids:
            return 0.0, []
        rows = np.stack([np.where(self.admitted(leaf_class, tags, head, c), best[c], -np.inf)
                         for c in kids])
        kinds = (~self.subject & ~self.object, self.subject, self.object)
        values = [np.where(kind, rows, -np.inf) for kind in kinds]
        plain, subject, object_ = (v.max(axis=1) for v in values)
        choices = [v.argmax(axis=1) for v in values]
        finite = np.isfinite(plain)
        base = float(plain[finite].sum())

        def total(s: int, o: int) -> float:
            if (s >= 0 and s == o) or any(not finite[k] for k in range(len(kids)) if k not in (s, o)):
                return -np.inf
            value = base
            for k, gain in ((s, subject), (o, object_)):
                if k >= 0:
                    value += float(gain[k]) - (float(plain[k]) if finite[k] else 0.0)
            return value

        def leading(gain: np.ndarray) -> list[int]:
            extra = np.where(~np.isfinite(gain), -np.inf, np.where(finite, gain - np.where(finite, plain, 0.0), np.inf))
            ranked = [int(k) for k in np.argsort(-extra, kind="stable")[:2] if np.isfinite(extra[k])]
            return [-1] + ranked

        value, s, o = max(((total(s, o), s, o) for s in leading(subject) for o in leading(object_)),
                          key=lambda option: option[0])
        labels = [int(choices[1][k] if k == s else choices[2][k] if k == o else choices[0][k])
                  for k in range(len(kids))]
        return value, labels

    def attach_punctuation(self, heads: Sequence[int], label_ids: Sequence[int], arc: np.ndarray,
                           fixed: Sequence[int] = ()) -> list[int]:
        """``heads`` with each ``punct`` word that the validator finds attached non-projectively
        (``punct-is-nonproj``: a word between it and its head that the head does not dominate) or
        causing non-projectivity (``punct-causes-nonproj``: an arc across it whose head does not
        dominate it), :func:`punctuation_projective`, moved to the best-scoring head (``arc[h, d]``)
        where it is neither, when there is one; not to the root node, not into its own subtree, not
        under a ``goeswith`` word; the words of ``fixed`` (given arcs) stay. Labels are unchanged, and
        every rule above still holds: ``punct`` may hang from any other word."""
        heads = [int(h) for h in heads]
        n = len(heads) - 1
        for word in range(1, n + 1):
            if (self.universal[label_ids[word]] != "punct" or word in fixed
                    or punctuation_projective(heads, word, heads[word])):
                continue
            inside = subtree(heads, word)
            able = [h for h in range(1, n + 1) if h not in inside and self.universal[label_ids[h]] != "goeswith"
                    and punctuation_projective(heads, word, h)]
            if able:
                heads[word] = max(able, key=lambda h: (arc[h, word], -abs(h - word)))
        return heads

    def keep(self, heads: Sequence[int] | np.ndarray, label_ids: Sequence[int], label_scores: np.ndarray,
             arc: np.ndarray, words: Sequence[Sequence[str]], fixed: Sequence[int], stats) -> tuple[list[int], list[int]]:
        """A graph parser's tree (``heads``, its best ``label_ids``, node 0..n) made to keep the rules:
        relabelled when it breaks one, by the most probable labelling that does (:meth:`reconcile` over
        the log-softmax of ``label_scores``, ``[words, labels]`` at each word's head), then its
        punctuation attached projectively (:meth:`attach_punctuation`, the words of ``fixed`` staying).
        Counted in ``stats`` (``relabelled``, ``not_valid``, ``punctuation_moved``)."""
        heads, label_ids = [int(h) for h in heads], [int(label) for label in label_ids]
        if self.violations(heads, label_ids, words):
            log_probabilities = label_scores - np.logaddexp.reduce(label_scores, axis=1, keepdims=True)
            found = self.reconcile(heads, np.vstack([np.zeros((1, label_scores.shape[1])), log_probabilities]), words)
            if found is None:
                stats.not_valid += 1
            else:
                stats.relabelled += 1
                label_ids = found
        moved = self.attach_punctuation(heads, label_ids, arc, fixed)
        stats.punctuation_moved += sum(a != b for a, b in zip(moved, heads))
        return moved, label_ids

    # --- checking -----------------------------------------------------------------------------

    def violations(self, heads: Sequence[int], label_ids: Sequence[int], words: Sequence[Sequence[str]]
                   ) -> list[tuple[str, int]]:
        """What the tree breaks, as (the validator's test id, the word): the checker of the rules."""
        tags = self.tags(words)
        found = []
        for d in range(1, len(heads)):
            h, label = heads[d], label_ids[d]
            if not self.arc_labels(tags, h, d)[label]:
                found.append(("relation", d))
            if h and not self.admitted(int(self.leaf_class[label_ids[h]]), tags, h, d)[label]:
                found.append(("leaf-" + self.universal[label_ids[h]], d))
        for h in range(len(heads)):
            kids = [label_ids[d] for d in range(1, len(heads)) if heads[d] == h]
            if sum(self.subject[k] for k in kids) > 1:
                found.append(("too-many-subjects", h))
            if sum(self.object[k] for k in kids) > 1:
                found.append(("too-many-objects", h))
        return found

    def finish(self, heads: Sequence[int], label_ids: Sequence[int], words: Sequence[Sequence[str]],
               fixed: Sequence[int] = (), label_log_probs: np.ndarray | None = None) -> tuple[list[int], list[int]]:
        """A transition parser's tree (node 0..n) made to keep the rules: the :meth:`strays`
        labelled; then each word that hangs from a word no label of whose tags may take it with a
        label of its own tags (a PUNCT word is ``punct``, which takes only ``punct``) is lifted to
        that word's head, up until one may (a subtree moves up its own path: the tree stays a
        tree; never to the root node), and the labelling that keeps every rule with the fewest
        labels changed is taken (:meth:`reconcile`) — or, with ``label_log_probs`` (node × label:
        each word's label log-probabilities at the step that attached it, NaN rows for words no move
        attached; :meth:`barley.confidence.MoveSteps.label_log_probs`), the most probable such
        labelling, a word without them counting one per label changed; when there is none, the same
        again lifting each word whose head's present label may not take it. The words of ``fixed``
        (given arcs) stay. A tree that keeps the rules comes back as it was."""
        heads = [int(h) for h in heads]
        label_ids = self.strays(heads, [int(label) for label in label_ids], words)
        if not self.violations(heads, label_ids, words):
            return heads, label_ids
        tags = self.tags(words)
        weights = np.full((len(heads), len(self.labels)), -1.0)
        weights[np.arange(len(heads)), label_ids] = 0.0
        if label_log_probs is not None:
            scored = ~np.isnan(label_log_probs).any(axis=1)
            scored[0] = False
            weights[scored] = np.maximum(label_log_probs[scored], UNLIKELY)  # a label its step could not take

        def may_take(head: int, d: int, present_label: bool) -> bool:
            if present_label:
                return bool(self.admitted(int(self.leaf_class[label_ids[head]]), tags, head, d)[label_ids[d]])
            theirs = self.arc_labels(tags, head, d)  # some label d's tags allow there, under some of head's
            return any((self.admitted(int(self.leaf_class[label]), tags, head, d) & theirs).any()
                       for label in np.flatnonzero(self.arc_labels(tags, heads[head], head)))

        for present_label in (False, True):
            for d in range(1, len(heads)):
                while d not in fixed and heads[d] > 0 and heads[heads[d]] > 0 and not may_take(heads[d], d,
                                                                                          present_label):
                    heads[d] = heads[heads[d]]
            if not self.violations(heads, label_ids, words):
                break
            found = self.reconcile(heads, weights, words)
            if found is not None:
                return heads, found
        return heads, label_ids

    def strays(self, heads: Sequence[int], label_ids: list[int], words: Sequence[Sequence[str]]) -> list[int]:
        """``label_ids`` with the words that ``finalize`` put under the root word (label ``root``, head
        not 0) labelled ``punct`` (PUNCT) or :attr:`stray` instead."""
        for d in range(1, len(heads)):
            if heads[d] != 0 and self.root[label_ids[d]]:
                label = self.punct if upos_of(words[d - 1]) == "PUNCT" and self.punct is not None else self.stray
                if label is not None:  # None: the model knows no label but root
                    label_ids[d] = label
        return label_ids


def subtree(heads: Sequence[int], word: int) -> set[int]:
    """``word`` and the words it dominates in the tree ``heads``."""
    inside = {word}
    path: list[int]
    for d in range(1, len(heads)):
        path, node = [], d
        while node > 0 and node not in inside and len(path) < len(heads):
            path.append(node)
            node = heads[node]
        if node in inside:
            inside.update(path)
    return inside


def ancestors(heads: Sequence[int], word: int) -> set[int]:
    """The nodes above ``word`` in the tree ``heads``, the root node 0 included."""
    above, node = set(), word
    while node > 0:
        node = heads[node]
        above.add(node)
    return above


def punctuation_projective(heads: Sequence[int], word: int, head: int) -> bool:
    """Would ``word`` under ``head`` pass the validator's two punctuation tests
    (``udtools.utils.get_gap`` and ``get_caused_nonprojectivities``, line by line)? No word between
    it and its head outside the head's subtree; no arc across it from a word that is not above it,
    counting only the words between it and its head on the head's side."""
    heads = list(heads)
    heads[word] = head
    low, high = min(word, head), max(word, head)
    if any(head not in ancestors(heads, x) for x in range(low + 1, high)):
        return False
    above = ancestors(heads, word)
    n = len(heads) - 1
    left = range(head + 1, word) if head < word else range(1, word)
    right = range(word + 1, n + 1) if head < word else range(word + 1, head)
    for x in left:
        if heads[x] not in above and heads[x] > word and (head < word or heads[x] < head):
            return False
    for x in right:
        if heads[x] not in above and heads[x] < word and (head > word or heads[x] > head):
            return False
    return True


def by_default(parser) -> bool:
    """Does ``parser`` keep the rules unless told not to? Where its class says so
    (``valid_ud_by_default``: the joint network, where they cost 0.1 LAS or less and a few percent of
    the time, ``docs/valid-ud.md``), and never behind transforms."""
    return parser.valid_ud_by_default and not parser.transforms


def given_words(arcs) -> list[int]:
    """The words whose head is given and kept (a :class:`barley.constraints.SentenceArcs`, or None)."""
    return [] if arcs is None else [d for d, h in enumerate(arcs.kept_heads()) if d and h != -1]


class Mending:
    """A batch of a transition parser's trees mended one by one, in the batch's order
    (:meth:`UDRules.finish`), each word's labels weighed by the batch's ``evidence`` (a
    :class:`barley.confidence.MoveSteps`, or None: the fewest labels changed), whose label
    probabilities then follow the labels changed (``barley parse --confidence``)."""

    def __init__(self, rules: UDRules, evidence, class_labels: np.ndarray):
        self.rules, self.evidence, self.class_labels = rules, evidence, class_labels
        self.log_probs = None if evidence is None else evidence.label_log_probs(class_labels, len(rules.labels))
        self.row = 0  # the evidence's rows: each sentence's root row, then its words'

    def __call__(self, heads: Sequence[int], label_ids: Sequence[int], words: Sequence[Sequence[str]],
                 arcs) -> tuple[list[int], list[int]]:
        """The next sentence's tree (node 0..n) kept to the rules, the words of its given ``arcs`` staying."""
        row, rows = self.row, len(heads)
        self.row += rows
        log_probs = None if self.log_probs is None else self.log_probs[row:row + rows]
        mended, labels = self.rules.finish(heads, label_ids, words, given_words(arcs), log_probs)
        if self.evidence is not None:
            changed = [d for d in range(1, rows) if labels[d] != label_ids[d]]
            self.evidence.relabel(np.asarray(changed, dtype=np.int64) + row, [labels[d] for d in changed],
                                  self.class_labels)
        return mended, labels


def require_support(parser: str, transforms: Sequence = (), beam: int = 1) -> None:
    """Refuse ``--valid-ud`` for a parser behind ``transforms`` (their inverse moves arcs after the
    rules are kept), or searching with a ``beam`` wider than 1 (:mod:`barley.transition.beam`, whose
    trees are not mended yet)."""
    from barley.errors import BarleyError

    if beam > 1:
        raise BarleyError("--valid-ud is not yet taken with a beam (--beam above 1, --nbest, or a model "
                          "trained with a beam, which parses with it)",
                          fix="leave --valid-ud out, or parse greedily with --beam 1")
    if transforms:
        names = ", ".join(transform.to_json()["name"] for transform in transforms)
        raise BarleyError(f"--valid-ud: the {parser} parses through transforms ({names}), whose inverse would "
                          "undo the rules",
                          fix="parse without --valid-ud, or with a model trained without transforms")
