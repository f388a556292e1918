"""Given and forbidden arcs: parsing around the arcs a user already knows.

``barley parse --keep-arcs`` keeps every HEAD (and DEPREL, where given) present in the
CoNLL-U input and parses the other words consistently with them; ``--forbid FILE`` names
arcs that must not appear. Per sentence these make a :class:`SentenceArcs`, read and
checked by :meth:`ArcOptions.of` (a cycle among the given arcs, two roots, a DEPREL
without a HEAD, a label the model does not know, a forbidden arc that is also given:
one-line errors naming the file and the line).

How each kind of parser keeps them:

* graph-based and biaffine parsers, the joint network (:func:`constrained_scores`): every
  arc that contradicts a given arc (another head of a given word) is scored so low that no
  tree holding one beats a tree holding none, and every forbidden arc likewise short of
  those; the decoders are the tested ones;
* transition-based parsers (:class:`TransitionGuide`): the given arcs are a *partial* gold
  tree, and a move whose dynamic-oracle cost against it is not zero, i.e. one that would
  make a given arc unreachable (Goldberg & Nivre 2013), is not taken; a labeled move that
  builds a given arc takes its given label; a move that builds a forbidden arc is avoided
  while another is allowed. The systems with a rule say so (``keeps_partial_gold``); the
  others are refused (:func:`require_support`). ``docs/constraints.md`` has the table.

A system or decoder that cannot build every set of given arcs (crossing arcs for a
projective one) keeps the largest subset it can build (:func:`buildable`) and says so in
one line, or refuses with ``--strict-arcs``. Around transforms, the parser is guided in the
transformed tree and the given arcs are enforced again after the inverse transform
(:func:`enforce`). Every output is checked to be a tree holding the kept arcs (:func:`write_tree`).

The ``--forbid`` file: one arc per line, ``SENT_ID HEAD DEPENDENT`` separated by
whitespace, where SENT_ID is the sentence's ``# sent_id`` and HEAD, DEPENDENT are word
numbers (HEAD 0: the root); ``#`` starts a comment, blank lines are skipped.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from barley.conllu import DEPREL, HEAD, Sentence
from barley.errors import BarleyError, BarleyWarning, InputError
from barley.transforms import inverted
from barley.tree import Heads, check_tree

FREE = -1
"""A word whose head is not given."""


# --- the --forbid file ---------------------------------------------------------------------

class ForbiddenArcs:
    """The arcs of a ``--forbid`` file, by sentence id (see the module docstring)."""

    def __init__(self, text: str, path: str):
        """The arcs of ``text`` in the file format; ``path`` names it in errors."""
        self.path = path
        self.by_sentence: dict[str, list[tuple[int, int, int]]] = {}
        self.used: set[str] = set()
        for number, text in enumerate(text.splitlines(), 1):
            fields = text.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) != 3 or not (fields[1].isdigit() and fields[2].isdigit()):
                raise InputError(f"expected SENT_ID HEAD DEPENDENT, found {text.strip()!r}", path=path, line=number,
                                 fix="one forbidden arc per line, e.g. 'weblog-0001 3 5' (HEAD 0 is the root)")
            sent_id, head, dependent = fields[0], int(fields[1]), int(fields[2])
            if dependent == 0 or head == dependent:
                raise InputError(f"{head} → {dependent} is no arc", path=path, line=number,
                                 fix="the dependent is a word 1..n, the head 0..n and another node")
            self.by_sentence.setdefault(sent_id, []).append((head, dependent, number))

    @classmethod
    def read(cls, path: str) -> ForbiddenArcs:
        from barley.conllu import read_text

        return cls(read_text(path), path)

    def of(self, sentence: Sentence) -> list[tuple[int, int, int]]:
        """The forbidden arcs of ``sentence``: (head, dependent, line in the file)."""
        sent_id = sentence.sent_id
        if sent_id is None or sent_id not in self.by_sentence:
            return []
        self.used.add(sent_id)
        arcs = self.by_sentence[sent_id]
        for head, dependent, line in arcs:
            if max(head, dependent) > len(sentence):
                raise InputError(f"sentence {sent_id} has {len(sentence)} words, no arc {head} → {dependent}",
                                 path=self.path, line=line, fix="name word numbers of that sentence")
        return arcs

    def check_used(self) -> None:
        """Refuse a file that names a sentence the input did not have (nothing silently ignored)."""
        for sent_id, arcs in self.by_sentence.items():
            if sent_id not in self.used:
                raise InputError(f"no sentence with sent_id {sent_id} in the input", path=self.path,
                                 line=arcs[0][2], fix="name the sentences by their '# sent_id' comment")


# --- per sentence ----------------------------------------------------------------------

@dataclass
class SentenceArcs:
    """The given and forbidden arcs of one sentence. ``heads[d]``: d's given head (FREE if
    none), ``labels[d]``: its given label id (-1 if none), ``deprels[d]`` the label's text;
    ``forbidden``: (head, dependent) pairs. ``dropped``: given words whose arc the parser
    cannot build (:func:`buildable`), left free."""

    heads: list[int]
    labels: list[int]
    deprels: list[str | None]
    forbidden: set[tuple[int, int]]
    sentence: Sentence
    dropped: list[int] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.heads) - 1

    def kept_heads(self) -> list[int]:
        """The given heads the parser keeps (FREE for the dropped)."""
        heads = list(self.heads)
        for d in self.dropped:
            heads[d] = FREE
        return heads

    def line_of(self, word: int) -> int:
        """The line of word ``word`` in the sentence's file."""
        row = self.sentence.words[word - 1]
        index = next(k for k, r in enumerate(self.sentence.rows) if r is row)
        return self.sentence.line + len(self.sentence.comments) + index


@dataclass
class ArcOptions:
    """What the user asked: ``keep`` the HEAD/DEPREL of the input (``--keep-arcs``), refuse what
    the parser cannot build (``strict``, ``--strict-arcs``), ``forbid`` arcs (``--forbid``)."""

    keep: bool = True
    strict: bool = False
    forbid: ForbiddenArcs | None = None

    def of(self, sentence: Sentence, labels: Sequence[str]) -> SentenceArcs | None:
        """The checked constraints of ``sentence`` for a model with ``labels``; None when none."""
        forbidden = self.forbid.of(sentence) if self.forbid is not None else []
        given = self.keep and any(word[HEAD] != "_" or word[DEPREL] != "_" for word in sentence.words)
        if not given and not forbidden:
            return None
        n = len(sentence)
        arcs = SentenceArcs([FREE] * (n + 1), [-1] * (n + 1), [None] * (n + 1), set(), sentence)
        if given:
            _read_given(arcs, sentence, labels)
        for head, dependent, line in forbidden:
            if arcs.heads[dependent] == head:
                assert self.forbid is not None
                raise InputError(f"the arc {head} → {dependent} of sentence {sentence.sent_id} is both given and "
                                 f"forbidden", path=self.forbid.path, line=line,
                                 fix="remove it from the forbidden arcs or from the input")
            arcs.forbidden.add((head, dependent))
        for d in range(1, n + 1):
            if arcs.heads[d] == FREE and all((h, d) in arcs.forbidden for h in range(n + 1) if h != d):
                assert self.forbid is not None
                raise InputError(f"every head of word {d} of sentence {sentence.sent_id} is forbidden",
                                 path=self.forbid.path, fix="leave some head possible")
        return arcs

    def done(self) -> None:
        """After the last sentence: refuse forbidden arcs of sentences that never came."""
        if self.forbid is not None:
            self.forbid.check_used()


def _read_given(arcs: SentenceArcs, sentence: Sentence, labels: Sequence[str]) -> None:
    label_id = {label: k for k, label in enumerate(labels)}
    roots = []
    for d, word in enumerate(sentence.words, 1):
        if word[HEAD] == "_":
            if word[DEPREL] != "_":
                raise InputError(f"word {d} has a DEPREL ({word[DEPREL]}) but no HEAD", path=sentence.source,
                                 line=arcs.line_of(d), fix="give its HEAD too, or write _ for its DEPREL")
            continue
        arcs.heads[d] = int(word[HEAD])
        if arcs.heads[d] == 0:
            roots.append(d)
            if len(roots) == 2:
                raise InputError(f"two given roots (words {roots[0]} and {d} have HEAD 0)", path=sentence.source,
                                 line=arcs.line_of(d), fix="a tree has one root: keep HEAD 0 on one word only")
        if word[DEPREL] != "_":
            if word[DEPREL] not in label_id:
                shown = ", ".join(labels[:12]) + (", ..." if len(labels) > 12 else "")
                raise InputError(f"the model does not know the label {word[DEPREL]!r} of word {d}",
                                 path=sentence.source, line=arcs.line_of(d),
                                 fix=f"use one of its {len(labels)} labels ({shown}), or write _ for the DEPREL")
            arcs.labels[d], arcs.deprels[d] = label_id[word[DEPREL]], word[DEPREL]
    cycle = _cycle(arcs.heads)
    if cycle:
        raise InputError("the given arcs form a cycle: " + " → ".join(map(str, cycle)), path=sentence.source,
                         line=arcs.line_of(cycle[0]), fix="correct the HEAD of one of these words")


def _cycle(heads: Sequence[int]) -> list[int]:
    """A cycle of ``heads`` (FREE = no head) as the words along it, or []."""
    state = [0] * len(heads)  # 0 unseen, 1 on the current path, 2 done
    for start in range(1, len(heads)):
        path, node = [], start
        while node > 0 and state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node]
        if node > 0 and state[node] == 1:
            return path[path.index(node):] + [node]
        for visited in path:
            state[visited] = 2
    return []


# --- what a parser can build -----------------------------------------------------------

def buildable(heads: Sequence[int], tree_class: str) -> list[int]:
    """The given words (``heads[d] != FREE``) whose arcs a parser building trees of
    ``tree_class`` ("any" or "projective") leaves to the parser, so that the other given arcs
    fit in one tree it can build: none for "any"; for "projective", first the arcs left out of
    a largest non-crossing subset (positions 0..n, root arcs included,
    :func:`_most_non_crossing`), then, while a kept arc spans the top of its own kept subtree
    (that top could then reach 0 only by crossing it), the shortest such arc."""
    if tree_class == "any":
        return []
    if tree_class != "projective":
        raise ValueError(f"no rule for keeping given arcs in {tree_class} trees")
    given = [(min(h, d), max(h, d), d) for d, h in enumerate(heads) if d and h != FREE]
    dropped = set(_most_non_crossing(given))
    while (spanning := _spanning_own_top(heads, dropped)) is not None:
        dropped.add(spanning)
    return sorted(dropped)


def _spanning_own_top(heads: Sequence[int], dropped: set[int]) -> int | None:
    """The dependent of the shortest kept arc that strictly spans the top of its own kept tree, or None."""
    kept = [FREE if d in dropped else h for d, h in enumerate(heads)]
    top = list(range(len(kept)))  # the top of each word's kept tree (0 counts as a top)
    for d in range(1, len(kept)):
        node = d
        while kept[node] not in (FREE, 0):
            node = kept[node]
        top[d] = node if kept[node] == FREE else 0
    spanning = [(abs(h - d), d) for d, h in enumerate(kept) if d and h not in (FREE, 0)
                and top[d] != 0 and min(h, d) < top[d] < max(h, d)]
    return min(spanning)[1] if spanning else None


def _crosses(a: tuple[int, int, int], b: tuple[int, int, int]) -> bool:
    return a[0] < b[0] < a[1] < b[1] or b[0] < a[0] < b[1] < a[1]


def _most_non_crossing(arcs: list[tuple[int, int, int]]) -> list[int]:
    """The dependents of the arcs left out of a largest non-crossing subset of ``arcs``
    ((left, right, dependent) spans): interval dynamic programming over the endpoints, where
    ``best[i][j]`` is the most arcs with both ends in endpoints i..j; on a tie the arcs of the
    leftmost endpoint are left out first."""
    if not any(_crosses(a, b) for k, a in enumerate(arcs) for b in arcs[k + 1:]):
        return []
    points = sorted({p for left, right, _ in arcs for p in (left, right)})
    at = {p: k for k, p in enumerate(points)}
    m = len(points)
    arc_of = {(at[left], at[right]): d for left, right, d in arcs}
    from_left: list[list[int]] = [[] for _ in range(m)]
    for i, j in sorted(arc_of):
        from_left[i].append(j)
    best = [[0] * m for _ in range(m)]  # with the arc (i, j) itself, if any
    choice: dict[tuple[int, int], int] = {}  # the largest right end < j of a kept arc from i; -1: none
    for width in range(1, m):
        for i in range(m - width):
            j = i + width
            value, pick = best[i + 1][j], -1
            for k in from_left[i]:
                if k < j and best[i][k] + best[k][j] > value:
                    value, pick = best[i][k] + best[k][j], k
            choice[i, j] = pick
            best[i][j] = value + ((i, j) in arc_of)
    kept: set[int] = set()
    todo = [(0, m - 1)]
    while todo:
        i, j = todo.pop()
        if i >= j:
            continue
        if (i, j) in arc_of:
            kept.add(arc_of[i, j])
        pick = choice[i, j]
        todo.extend([(i + 1, j)] if pick == -1 else [(i, pick), (pick, j)])
    return sorted(d for _, _, d in arcs if d not in kept)


def settle(arcs: SentenceArcs | None, tree_class: str, strict: bool, parser: str, transforms: Sequence = ()) -> None:
    """Leave out (``arcs.dropped``) the given arcs a parser of ``tree_class`` cannot build, saying
    so in one line (a warning); with ``strict``, refuse instead. Behind ``transforms`` they only
    steer the parse (the transformed tree need not hold them): every given arc is enforced after
    the inverse transforms (:func:`write_tree`), so nothing is said."""
    if arcs is None:
        return
    arcs.dropped = buildable(arcs.heads, tree_class)
    if not arcs.dropped or transforms:
        return
    words = ", ".join(f"{arcs.heads[d]} → {d}" for d in arcs.dropped)
    sentence = arcs.sentence
    if strict:
        raise InputError(f"the {parser} builds {tree_class} trees and cannot keep the given arcs {words} with the "
                         f"others", path=sentence.source, line=sentence.line,
                         fix="leave out --strict-arcs to keep the largest subset it can build, or use a "
                             "non-projective parser")
    warnings.warn(f"{sentence.source}:{sentence.line}: the {parser} builds {tree_class} trees: the given arcs "
                  f"{words} are left to it (a largest subset it can build is kept)", BarleyWarning, stacklevel=2)


def settled(sentences: Sequence[Sentence], arcs: ArcOptions | None, labels: Sequence[str], tree_class: str,
            parser: str, transforms: Sequence = ()) -> list[SentenceArcs | None]:
    """Per sentence, its given and forbidden arcs (None: none, or no ``arcs`` at all) by ``labels``, each checked by
    :func:`settle` for a parser of ``tree_class`` (``parser`` in messages): what every kind parses a batch with."""
    if arcs is None:
        return [None] * len(sentences)
    given = [arcs.of(sentence, labels) for sentence in sentences]
    for sentence_arcs in given:
        settle(sentence_arcs, tree_class, arcs.strict, parser, transforms)
    return given


# --- graph-based parsers -----------------------------------------------------------------

def decoder_class(options) -> str:
    """The trees a graph decoder (``options.decoder``) returns: any for Chu-Liu-Edmonds; projective
    for Eisner, and for Eisner with the non-projective approximation, whose moves never undo a
    kept given arc but are not sure to build a crossing one."""
    return "any" if options.decoder == "mst" else "projective"


def constrained_scores(arc: np.ndarray, arcs: SentenceArcs, sibling: np.ndarray | None = None,
                       avoid_crossing: bool = False) -> np.ndarray:
    """``arc[h, d]`` (float64) with, in tiers, each below what any tree without it can lose: with
    ``avoid_crossing``, every arc that crosses a kept given arc (the root's arcs left out, as in
    :func:`barley.tree.crossing_pairs`); below them, every forbidden arc; lowest, every arc that
    contradicts a kept given arc (another head of a given word). So a decoder returns a tree with
    all kept given arcs whenever its class has one, then with as few forbidden arcs, then as few
    crossing ones as it can (the spread of ``sibling``, second-order scores, is counted too)."""
    arc = np.asarray(arc, dtype=np.float64)
    given = [(h, d) for d, h in enumerate(arcs.kept_heads()) if d and h != FREE]
    if avoid_crossing:
        arc = _below(arc, _crossing(given, len(arc)), sibling)
    forbidden = np.zeros(arc.shape, dtype=bool)
    for h, d in arcs.forbidden:
        forbidden[h, d] = True
    arc = _below(arc, forbidden, sibling)
    contradicting = np.zeros(arc.shape, dtype=bool)
    for h, d in given:
        contradicting[:, d] = True
        contradicting[h, d] = False
    return _below(arc, contradicting, sibling)


def _below(arc: np.ndarray, mask: np.ndarray, sibling: np.ndarray | None) -> np.ndarray:
    """``arc`` with every arc of ``mask`` scored so low that a tree with one of them scores less than
    any tree without: a tree of n arcs loses at most n times the spread of the scores (arc and
    sibling) by its other arcs."""
    if not mask.any():
        return arc
    finite = arc[np.isfinite(arc)]
    top, bottom = (float(finite.max()), float(finite.min())) if finite.size else (0.0, 0.0)
    spread = top - bottom
    if sibling is not None:
        finite_sibling = sibling[np.isfinite(sibling)]
        if finite_sibling.size:
            spread += float(finite_sibling.max() - finite_sibling.min())
    return np.where(mask, np.minimum(arc, bottom - (len(arc) + 1) * (spread + 1.0)), arc)


def _crossing(given: Sequence[tuple[int, int]], nodes: int) -> np.ndarray:
    """``mask[h, d]``: does the arc h → d cross one of the ``given`` arcs (head, dependent)? Arcs
    (a, b) and (c, e), a < b, c < e, cross iff a < c < b < e or c < a < e < b; root arcs never do."""
    h, d = np.arange(nodes)[:, None], np.arange(nodes)[None, :]
    low, high = np.minimum(h, d), np.maximum(h, d)
    mask = np.zeros((nodes, nodes), dtype=bool)
    for head, dependent in given:
        if head == 0:
            continue
        a, b = min(head, dependent), max(head, dependent)
        mask |= ((a < low) & (low < b) & (b < high)) | ((low < a) & (a < high) & (high < b))
    mask[0, :] = False
    return mask


def labels_kept(label_ids: Heads, arcs: SentenceArcs | None) -> list[int]:
    """``label_ids`` (per node 0..n) with the given labels of the kept arcs."""
    label_ids = [int(label) for label in label_ids]
    if arcs is not None:
        for d in range(1, arcs.n + 1):
            if arcs.labels[d] != -1 and d not in arcs.dropped:
                label_ids[d] = arcs.labels[d]
    return label_ids


# --- transition-based parsers ------------------------------------------------------------

class TransitionGuide:
    """Which actions keep the given arcs of one sentence reachable, for a transition system.

    The kept given arcs are a partial gold tree; the system's costs against it
    (:meth:`~barley.systems.base.TransitionSystem.given_arc_costs`, exact in the systems with
    ``keeps_partial_gold``, checked against brute force in ``tests/test_constraints.py``) give
    each move's count of given arcs made unreachable; only moves of cost 0 are allowed. A labeled move that builds a given arc
    takes its given label; a move that builds a forbidden arc is avoided while another
    allowed move exists.
    """

    def __init__(self, system, arcs: SentenceArcs):
        self.system, self.arcs = system, arcs
        self.costs = system.given_arc_costs(arcs.kept_heads())

    def allowed(self, state, legal: Sequence[bool], class_moves: np.ndarray, class_labels: np.ndarray) -> np.ndarray:
        """Per class (move, label): may it be taken in ``state``?"""
        system, arcs = self.system, self.arcs
        costs = self.costs(state)
        moves = [m for m, ok in enumerate(legal) if ok and costs[m] == 0]
        if not moves:
            raise AssertionError(f"no move keeps the given arcs of {arcs.sentence!r}: a bug in barley")
        clean = [m for m in moves if not (system.labeled[m] and system.arc(state, m) in arcs.forbidden)]
        allowed = np.isin(class_moves, clean or moves)
        for m in clean or moves:
            if system.labeled[m]:
                head, dependent = system.arc(state, m)
                if arcs.labels[dependent] != -1 and arcs.heads[dependent] == head:
                    allowed &= (class_moves != m) | (class_labels == arcs.labels[dependent])
        return allowed


def guides(system, arcs_of: Sequence[SentenceArcs | None]) -> list[TransitionGuide | None]:
    """Per sentence, the guide of its arcs (None for a sentence without)."""
    return [None if arcs is None else TransitionGuide(system, arcs) for arcs in arcs_of]


def supports(system) -> bool:
    """Can ``system`` keep given arcs (costs exact for a partial gold tree)?"""
    return getattr(system, "keeps_partial_gold", False)


def require_support(system, options: ArcOptions | None) -> None:
    """Refuse given or forbidden arcs (``options``) for a ``system`` without a rule for them."""
    if options is not None and not supports(system):
        from barley.systems import REGISTRY

        able = [name for name, system_class in REGISTRY.loadable().items() if supports(system_class())]
        raise BarleyError(f"--keep-arcs/--forbid: the {system.name} system has no rule yet for keeping given arcs",
                          fix=f"use a model with {', '.join(able)}, or a graph-based, biaffine or joint parser")


# --- the output ----------------------------------------------------------------------------

def enforce(heads: list[int], deprels: list[str], arcs: SentenceArcs, single_root: bool) -> None:
    """Put the kept given arcs (and labels) into a tree after an inverse transform, in place, keeping
    a tree: a word that the transform moved goes back to its given head; a cycle this closes is
    broken at a free word on it, which goes to the root word (or 0); a second root word, if the
    given arcs bring one, goes under the given root word."""
    for d, h in enumerate(arcs.kept_heads()):
        if d and h != FREE:
            heads[d] = h
            if (deprel := arcs.deprels[d]) is not None:
                deprels[d] = deprel
    kept = arcs.kept_heads()
    given_root = next((d for d in range(1, len(heads)) if kept[d] == 0), None)
    while (cycle := _cycle(heads)):
        free = next(d for d in cycle if kept[d] == FREE)
        root_word = given_root or next((d for d in range(1, len(heads)) if heads[d] == 0), None)
        heads[free] = root_word if root_word is not None and single_root else 0
    if single_root and given_root is not None:
        for d in range(1, len(heads)):
            if heads[d] == 0 and d != given_root and kept[d] == FREE:
                heads[d] = given_root


def write_tree(sentence: Sentence, heads: Heads, deprels: list[str], transforms: Sequence = (),
               arcs: SentenceArcs | None = None, single_root: bool = False) -> None:
    """A parsed tree (of the transformed treebank) into ``sentence``, through the inverse transforms;
    with ``arcs``, enforced again after them (:func:`enforce`) and checked to be a tree holding
    every kept given arc with its label and no forbidden arc that could be avoided."""
    heads, deprels = inverted([int(h) for h in heads], list(deprels), transforms)
    if arcs is not None:
        if transforms:
            arcs.dropped = []  # what the transformed tree could not hold is enforced now
            enforce(heads, deprels, arcs, single_root)
        _check_kept(heads, deprels, arcs)
    sentence.set_tree(heads, deprels)


def _check_kept(heads: list[int], deprels: list[str], arcs: SentenceArcs) -> None:
    problem = check_tree(heads)
    missed = [d for d, h in enumerate(arcs.kept_heads())
              if d and h != FREE and (heads[d] != h or arcs.deprels[d] not in (None, deprels[d]))]
    if problem is not None or missed:
        raise AssertionError(f"{arcs.sentence!r}: " + (problem or f"the given arcs into {missed} were not kept")
                             + ": a bug in barley")
    built = {(heads[d], d) for d in range(1, len(heads))} & arcs.forbidden
    if built:
        warnings.warn(f"{arcs.sentence.source}:{arcs.sentence.line}: the parser could not avoid the forbidden arcs "
                      + ", ".join(f"{h} → {d}" for h, d in sorted(built)), BarleyWarning, stacklevel=2)
