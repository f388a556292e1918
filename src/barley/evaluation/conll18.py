"""The CoNLL 2018 shared task's metrics, for output whose tokens and sentences may differ from the gold.

Zeman et al. (2018), *CoNLL 2018 Shared Task: Multilingual Parsing from Raw Text to
Universal Dependencies*, §2–3, define them; published figures come from the task's
scorer (``conll18_ud_eval.py``, Straka and Popel), and :func:`evaluate_conll18`
gives the same figures.

**Text and spans.** The FORMs of a file's tokens (a multiword token's line, or a word
outside any), spaces (Unicode category Zs) removed, concatenated over the whole file,
are its *text*; the gold and system files must have the same text. Every token and
every sentence is then a span [start, end) of it, and each word has the span of its
token (the words of a multiword token share its span).

**Alignment of words.** Words outside multiword tokens are aligned when their spans
are equal. A *multiword span* is a stretch of the text that holds at least one
multiword token (of either file) and cuts none; the words in it are aligned by a
longest common subsequence of their FORMs, compared case-insensitively. Which words
a multiword span takes in is decided as the task's scorer decides it, walking both
files in order (:func:`align`, :func:`_multiword_span`), since the published figures
rest on it.

**Scores.** Each metric counts the correct items against the gold and system totals:
precision = correct / system, recall = correct / gold, F1 = 2 · correct / (gold +
system); the metrics on aligned words also give the *aligned accuracy*, correct /
aligned. The shared task ranks systems by F1.

- Tokens, Sentences: a gold token (sentence) is correct when the system has one with
  the same span. Words: the aligned words are correct.
- On the aligned words: UPOS, XPOS, UFeats (the universal features only, see
  :data:`UNIVERSAL_FEATURES`), AllTags (UPOS, XPOS and UFeats together), Lemmas (any
  lemma is right where the gold lemma is ``_``), UAS (the system head is the word
  aligned to the gold head, or both heads are the root), LAS (UAS and the DEPREL with
  its subtype after ``:`` ignored).
- CLAS, MLAS and BLEX count only words attached by a content relation
  (:data:`CONTENT_RELATIONS`): gold words for recall, system words for precision,
  aligned words by their gold relation. CLAS is LAS on these; MLAS adds UPOS, UFeats
  and the word's functional children (the words attached to it by a
  :data:`FUNCTIONAL_RELATIONS` relation: each child's alignment, relation, UPOS and
  UFeats, in order); BLEX adds the lemma, as Lemmas does.

**Enhanced graphs.** Where the gold file has enhanced arcs (a DEPS column, see
:mod:`barley.enhanced.deps`), ELAS and EULAS follow, the IWPT 2020 shared task's scores
of the enhanced graph (Bouma et al. 2020, *Overview of the IWPT 2020 Shared Task on
Parsing into Enhanced Universal Dependencies*), as UD's scorer ``eval.py`` in
UniversalDependencies/tools (formerly ``iwpt20_xud_eval.py``) computes them. Gold and
system count all the arcs of their words, aligned or not; a gold arc of an aligned word
is matched by each system arc of the aligned system word whose head is aligned to the
gold head (or both are the root) and whose relation is the same: the whole relation for
ELAS (``obl:with``), its universal part for EULAS (``obl``; in a path such as
``conj>obl:voor``, of each step). As in ``eval.py``, the count is of matching pairs: a gold
word with two arcs from the same head whose relations differ only after ``:`` has both
matched by one system arc in EULAS. There is no aligned accuracy.

Empty nodes (IDs i.k) are left out, with the enhanced arcs from them: ``eval.py`` does the
same unless told (``--no-empty-nodes``) that both files had their empty nodes collapsed into
paths beforehand, as the IWPT 2020 and 2021 figures had (with the tools'
``enhanced_collapse_empty_nodes.pl``). barley does not collapse them, so on a treebank with
empty nodes its ELAS is ``eval.py``'s default one, not the shared task's (which also counts
the collapsed paths). Where the shared task's scorer refuses a file, barley scores it:
trees with cycles or several roots, and system words without a HEAD (``_``), which count
as wrongly attached; a DEPS value that is not head:relation pairs of the sentence is
refused with its line.
"""

from __future__ import annotations

import os
import unicodedata
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from barley import conllu
from barley.conllu import DEPREL, DEPS, FEATS, FORM, HEAD, ID, LEMMA, UPOS, XPOS
from barley.enhanced.deps import parse_deps
from barley.errors import InputError
from barley.evaluation.attachment import Source, percent, formatted

METRICS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas",
           "UAS", "LAS", "CLAS", "MLAS", "BLEX")
ENHANCED_METRICS = ("ELAS", "EULAS")  # IWPT 2020, where the gold file has enhanced arcs

# Zeman et al. (2018), the content and function word relations of MLAS and BLEX; the
# other universal relations (punct, and the rest) count in neither.
CONTENT_RELATIONS = frozenset({
    "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative", "expl", "dislocated",
    "advcl", "advmod", "discourse", "nmod", "appos", "nummod", "acl", "amod", "conj", "fixed",
    "flat", "compound", "list", "parataxis", "orphan", "goeswith", "reparandum", "root", "dep"})
FUNCTIONAL_RELATIONS = frozenset({"aux", "cop", "mark", "det", "clf", "case", "cc"})
# The universal features of UD v2 that UFeats, AllTags and MLAS compare; others are left out.
UNIVERSAL_FEATURES = frozenset({
    "PronType", "NumType", "Poss", "Reflex", "Foreign", "Abbr", "Gender", "Animacy", "Number",
    "Case", "Definite", "Degree", "VerbForm", "Mood", "Tense", "Aspect", "Voice", "Evident",
    "Polarity", "Person", "Polite"})

ROOT = -1  # the head of a word attached to the root
NOT_ALIGNED = -2  # a system head word that has no gold counterpart
NO_HEAD = -3  # a system word whose HEAD is _

class Word:
    """One syntactic word, with the columns the metrics compare already normalised."""

    __slots__ = ("start", "end", "multiword", "form", "key", "lemma", "upos", "xpos", "feats", "relation",
                 "head", "children", "first", "deps")

    def __init__(self, start: int, end: int, multiword: bool, row: list[str], head: int, first: int,
                 deps: tuple[tuple[int, str], ...]):
        self.start, self.end, self.multiword = start, end, multiword
        self.form = row[FORM]
        self.key = _without_spaces(self.form).lower()  # what the LCS compares: case-insensitive, as the scorer
        self.lemma, self.upos, self.xpos = row[LEMMA], row[UPOS], row[XPOS]
        self.feats = _universal_features(row[FEATS])
        self.relation = row[DEPREL].partition(":")[0]
        self.head = head  # index of the head word in the file, ROOT or NO_HEAD
        self.children: list[int] = []  # the words attached to this one by a functional relation
        self.first = first  # the index in the file of the first word of the sentence
        self.deps = deps  # the enhanced arcs: (the head's word number in the sentence, 0 for the root; relation)


@dataclass
class Segmentation:
    """A file as the metrics see it: its text, token and sentence spans, and words."""

    name: str
    text: str
    tokens: list[tuple[int, int]]
    token_lines: list[int]  # the line of each token, for error messages
    sentences: list[tuple[int, int]]
    words: list[Word]


def read_segmentation(source: Source, gold: bool) -> Segmentation:
    """Read a file (a path, or Sentences) into a :class:`Segmentation`.

    A gold word must have a HEAD; a system word's ``_`` is kept as :data:`NO_HEAD`.
    """
    name = os.fspath(source) if isinstance(source, str | os.PathLike) else "<memory>"
    sentences = conllu.read(source) if isinstance(source, str | os.PathLike) else source
    pieces: list[str] = []
    tokens: list[tuple[int, int]] = []
    token_lines: list[int] = []
    spans: list[tuple[int, int]] = []
    words: list[Word] = []
    end = 0
    for sentence in sentences:
        first_word, sentence_start = len(words), end
        multiword_last = 0  # the last word of the multiword token being read
        span = (end, end)
        line = sentence.line + len(sentence.comments)
        for row in sentence.rows:
            token_id = row[ID]
            if "." in token_id:
                line += 1
                continue
            number = 0 if "-" in token_id else int(token_id)
            if not number or number > multiword_last:  # a token: a multiword token's line or a word outside any
                form = _without_spaces(row[FORM])
                if not form:
                    raise InputError(f"the FORM of token {token_id} is empty once spaces are removed",
                                     path=sentence.source, line=line,
                                     fix="every token needs a FORM with some character that is not a space")
                pieces.append(form)
                span = (end, end + len(form))
                end += len(form)
                tokens.append(span)
                token_lines.append(line)
                if not number:
                    multiword_last = int(token_id.partition("-")[2])
            if number:
                words.append(Word(*span, number <= multiword_last, row,
                                  _head(row, first_word, gold, sentence.source, line), first_word,
                                  _enhanced_arcs(row[DEPS], len(sentence.words), sentence.source, line)))
            line += 1
        spans.append((sentence_start, end))
        name = sentence.source if name == "<memory>" else name  # Sentences read from stdin say "<stdin>"
        for index in range(first_word, len(words)):
            word = words[index]
            if word.relation in FUNCTIONAL_RELATIONS and word.head >= 0:
                words[word.head].children.append(index)
    return Segmentation(name, "".join(pieces), tokens, token_lines, spans, words)


def _head(row: list[str], first_word: int, gold: bool, source: str, line: int) -> int:
    if row[HEAD] == "_":
        if gold:
            raise InputError(f"gold word {row[ID]} has no HEAD (_)", path=source, line=line,
                             fix="the gold file must give every word a head")
        return NO_HEAD
    head = int(row[HEAD])
    return ROOT if head == 0 else first_word + head - 1


def _enhanced_arcs(deps: str, words: int, source: str, line: int) -> tuple[tuple[int, str], ...]:
    """A word's enhanced arcs as (the head's word number, 0 for the root; relation); arcs from empty nodes are
    left out, as eval.py leaves them out."""
    if deps == "_":
        return ()
    arcs = _word_arcs(deps, words)
    if arcs is None:
        parse_deps(deps, words, source, line)  # raises the InputError that says what is wrong
        raise AssertionError(f"{source}:{line}: DEPS {deps!r} read neither as arcs nor as an error")
    return arcs


@lru_cache(maxsize=1 << 16)
def _word_arcs(deps: str, words: int) -> tuple[tuple[int, str], ...] | None:
    try:
        return tuple((int(head), relation) for head, relation in parse_deps(deps, words) if "." not in head)
    except InputError:
        return None


@lru_cache(maxsize=4096)
def _universal_path(relation: str) -> str:
    """The universal part of a relation, or of each step of a path: ``conj:en>obl:voor`` gives ``conj>obl``."""
    return ">".join(step.partition(":")[0] for step in relation.split(">"))


@lru_cache(maxsize=4096)
def _universal_features(feats: str) -> str:
    """FEATS with only the universal features, sorted (``_`` becomes "")."""
    kept = (feature for feature in feats.split("|") if feature.partition("=")[0] in UNIVERSAL_FEATURES)
    return "|".join(sorted(kept))


def _without_spaces(form: str) -> str:
    """FORM without its Zs characters, so that a token holding a space matches its two halves."""
    if form.isascii():
        return form.replace(" ", "")
    return "".join(character for character in form if unicodedata.category(character) != "Zs")


def align(gold: list[Word], system: list[Word]) -> np.ndarray:
    """For each system word, the index of its aligned gold word, or -1.

    Both files' words are walked in order. Two words outside multiword tokens are
    aligned when their spans are equal; otherwise the one that starts first (the gold
    word on a tie) is passed. A word of a multiword token opens a multiword span
    (:func:`_multiword_span`), whose words are aligned by their FORMs.
    """
    aligned = np.full(len(system), -1, dtype=np.int64)
    g = s = 0
    while g < len(gold) and s < len(system):
        if gold[g].multiword or system[s].multiword:
            gold_words, system_words = _multiword_span(gold, system, g, s)
            for pair_gold, pair_system in _common_subsequence(gold, gold_words, system, system_words):
                aligned[pair_system] = pair_gold
            g, s = gold_words.stop, system_words.stop
        elif (gold[g].start, gold[g].end) == (system[s].start, system[s].end):
            aligned[s] = g
            g, s = g + 1, s + 1
        elif gold[g].start <= system[s].start:
            g += 1
        else:
            s += 1
    return aligned


def _multiword_span(gold: list[Word], system: list[Word], g: int, s: int) -> tuple[range, range]:
    """The gold and system words of the multiword span that the word gold[g] or system[s] opens.

    The span ends where the opening multiword token ends. If the other file's word
    is outside any multiword token and starts before the opening token, it is left
    out. Then words are taken in the order of their starts (gold first on a tie) as
    long as either file's next word still lies in the span: a word of a multiword
    token when it starts before the end, another word when it ends by the end. A
    multiword token taken in moves the end to its own end, so that no multiword token
    of either file is cut; a word that crosses the end can be taken in with the others
    (the scorer's way, which published figures follow).
    """
    if gold[g].multiword:
        end = gold[g].end
        if not system[s].multiword and system[s].start < gold[g].start:
            s += 1
    else:
        end = system[s].end
        if not gold[g].multiword and gold[g].start < system[s].start:
            g += 1
    first_gold, first_system = g, s
    while _in_span(gold, g, end) or _in_span(system, s, end):
        take_gold = g < len(gold) and (s == len(system) or gold[g].start <= system[s].start)
        word = gold[g] if take_gold else system[s]
        if word.multiword:
            end = max(end, word.end)
        g, s = (g + 1, s) if take_gold else (g, s + 1)
    return range(first_gold, g), range(first_system, s)


def _in_span(words: list[Word], index: int, end: int) -> bool:
    if index == len(words):
        return False
    word = words[index]
    return word.start < end if word.multiword else word.end <= end


def _common_subsequence(gold: list[Word], gold_words: range, system: list[Word],
                        system_words: range) -> list[tuple[int, int]]:
    """Pairs of a longest common subsequence of the two words' FORMs (lower-cased).

    ``suffix[i][j]`` is the LCS length of gold_words[i:] and system_words[j:]; the pairs
    are read off from the front, taking equal FORMs at once and otherwise passing a gold
    word before a system word where that loses nothing (the scorer's choice on ties).
    """
    a = [gold[g].key for g in gold_words]
    b = [system[s].key for s in system_words]
    suffix = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in reversed(range(len(a))):
        for j in reversed(range(len(b))):
            suffix[i][j] = (suffix[i + 1][j + 1] + 1 if a[i] == b[j]
                            else max(suffix[i + 1][j], suffix[i][j + 1]))
    pairs = []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            pairs.append((gold_words[i], system_words[j]))
            i, j = i + 1, j + 1
        elif suffix[i + 1][j] >= suffix[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


@dataclass(frozen=True)
class Score:
    """Counts of one metric, and the percentages drawn from them (None where a denominator is 0)."""

    correct: int
    gold: int
    system: int
    aligned: int | None = None  # aligned words considered; None for Tokens, Sentences, Words

    @property
    def precision(self) -> float | None:
        return percent(self.correct, self.system)

    @property
    def recall(self) -> float | None:
        return percent(self.correct, self.gold)

    @property
    def f1(self) -> float | None:
        return percent(2 * self.correct, self.gold + self.system)

    @property
    def aligned_accuracy(self) -> float | None:
        return None if self.aligned is None else percent(self.correct, self.aligned)

    def as_dict(self) -> dict:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                "aligned_accuracy": self.aligned_accuracy, "correct": self.correct, "gold": self.gold,
                "system": self.system, "aligned": self.aligned}


@dataclass
class Conll18Evaluation:
    """The metrics of one system file, and whether its tokenization is the gold's."""

    counts: dict[str, Score]  # every metric of METRICS and ENHANCED_METRICS, whether the gold has enhanced arcs or not
    same_tokenization: bool  # same sentences, tokens and words (FORMs included) as the gold
    las_correct: np.ndarray  # per gold word: aligned, with the right head and relation (what McNemar pairs)
    ends_aligned: bool = True  # the last words of both files are paired one to one (see concatenate)
    same_deps: bool = False  # the same tokenization, and every word's DEPS the gold's

    @property
    def copied_deps(self) -> bool:
        """Whether the system's enhanced graphs (DEPS) are the gold's on every word though some of its basic arcs
        are not: graphs copied from the input (``barley parse`` keeps the input's DEPS unless ``--enhanced``), which
        ELAS and EULAS would score as perfect."""
        las = self.counts["LAS"]
        return self.same_deps and self.counts["ELAS"].gold > 0 and las.correct < las.gold

    @property
    def scores(self) -> dict[str, Score]:
        """The thirteen metrics, then ELAS and EULAS where the gold file has enhanced arcs (a DEPS column)."""
        enhanced = self.counts["ELAS"].gold > 0
        return {metric: score for metric, score in self.counts.items() if enhanced or metric not in ENHANCED_METRICS}

    def as_dict(self) -> dict:
        return {"same_tokenization": self.same_tokenization,
                **{metric: score.as_dict() for metric, score in self.scores.items()}}

    @classmethod
    def concatenate(cls, parts: list[Conll18Evaluation]) -> Conll18Evaluation:
        """The metrics of consecutive pieces of the same files, as if scored in one go (``--jobs``).

        Exact when no word of one piece is aligned with a word of another: when the
        gold and system pieces end at the same character of the text, after words
        aligned one to one (:attr:`ends_aligned`), as the pieces of ``--jobs`` are checked to do."""
        def total(metric: str, count: str) -> int:
            return sum(getattr(part.counts[metric], count) for part in parts)

        counts = {metric: Score(total(metric, "correct"), total(metric, "gold"), total(metric, "system"),
                                None if score.aligned is None else total(metric, "aligned"))
                  for metric, score in parts[0].counts.items()}
        return cls(counts, all(part.same_tokenization for part in parts),
                   np.concatenate([part.las_correct for part in parts]),
                   same_deps=all(part.same_deps for part in parts))


def evaluate_conll18(gold: Source, system: Source) -> Conll18Evaluation:
    """Score ``system`` against ``gold`` (paths or iterables of Sentences) with the CoNLL 2018 metrics."""
    gold_file = read_segmentation(gold, gold=True)
    system_file = read_segmentation(system, gold=False)
    _check_same_text(gold_file, system_file)
    gold_words, system_words = gold_file.words, system_file.words
    aligned = align(gold_words, system_words)

    def in_gold(index: int) -> int:
        """A system head or child as the gold word it is aligned to."""
        return index if index < 0 else int(aligned[index]) if aligned[index] >= 0 else NOT_ALIGNED

    def functional_children(word: Word, words: list[Word], as_gold) -> list[tuple]:
        return [(as_gold(c), words[c].relation, words[c].upos, words[c].feats) for c in word.children]

    pairs = [(gold_words[g], system_words[s]) for s, g in enumerate(aligned) if g >= 0]
    attached = [g.head == in_gold(s.head) for g, s in pairs]
    labelled = [head and g.relation == s.relation for head, (g, s) in zip(attached, pairs)]
    lemma = [g.lemma == "_" or g.lemma == s.lemma for g, s in pairs]
    morphology = [g.upos == s.upos and g.feats == s.feats
                  and functional_children(g, gold_words, int) == functional_children(s, system_words, in_gold)
                  for g, s in pairs]
    content = [g.relation in CONTENT_RELATIONS for g, _ in pairs]

    def on_aligned(correct: list[bool]) -> Score:
        return Score(sum(correct), len(gold_words), len(system_words), len(pairs))

    def on_content(correct: list[bool]) -> Score:
        return Score(sum(c and k for c, k in zip(correct, content)),
                     sum(w.relation in CONTENT_RELATIONS for w in gold_words),
                     sum(w.relation in CONTENT_RELATIONS for w in system_words), sum(content))

    scores = {
        "Tokens": _spans_score(gold_file.tokens, system_file.tokens),
        "Sentences": _spans_score(gold_file.sentences, system_file.sentences),
        "Words": Score(len(pairs), len(gold_words), len(system_words)),
        "UPOS": on_aligned([g.upos == s.upos for g, s in pairs]),
        "XPOS": on_aligned([g.xpos == s.xpos for g, s in pairs]),
        "UFeats": on_aligned([g.feats == s.feats for g, s in pairs]),
        "AllTags": on_aligned([g.upos == s.upos and g.xpos == s.xpos and g.feats == s.feats for g, s in pairs]),
        "Lemmas": on_aligned(lemma),
        "UAS": on_aligned(attached),
        "LAS": on_aligned(labelled),
        "CLAS": on_content(labelled),
        "MLAS": on_content([las and same for las, same in zip(labelled, morphology)]),
        "BLEX": on_content([las and same for las, same in zip(labelled, lemma)]),
        **_enhanced_scores(gold_words, system_words, pairs, in_gold),
    }
    las_correct = np.zeros(len(gold_words), dtype=bool)
    las_correct[aligned[aligned >= 0][np.array(labelled, dtype=bool)]] = True
    same = (len(pairs) == len(gold_words) == len(system_words) and gold_file.sentences == system_file.sentences
            and gold_file.tokens == system_file.tokens and all(g.form == s.form for g, s in pairs))
    last = gold_words[-1:] + system_words[-1:]
    ends_aligned = same or (len(last) == 2 and not any(word.multiword for word in last)
                            and (last[0].start, last[0].end) == (last[1].start, last[1].end))
    same_deps = same and all(g.deps == s.deps for g, s in pairs)
    return Conll18Evaluation(scores, same, las_correct, ends_aligned, same_deps)


def _enhanced_scores(gold_words: list[Word], system_words: list[Word], pairs: list[tuple[Word, Word]],
                     in_gold) -> dict[str, Score]:
    """ELAS and EULAS: the pairs of a gold and a system arc of aligned words that match (see the module docstring)."""
    def in_file(word: Word, head: int) -> int:
        return ROOT if head == 0 else word.first + head - 1

    gold_arcs = sum(len(word.deps) for word in gold_words)
    system_arcs = sum(len(word.deps) for word in system_words)
    elas = eulas = 0
    for gold, system in pairs:
        if len(gold.deps) == len(system.deps) == 1:  # most words: one arc each
            [(gold_head, gold_relation)], [(head, relation)] = gold.deps, system.deps
            if in_file(gold, gold_head) == in_gold(in_file(system, head)):
                elas += gold_relation == relation
                eulas += gold_relation == relation or _universal_path(gold_relation) == _universal_path(relation)
        elif gold.deps and system.deps:
            heads = [in_gold(in_file(system, head)) for head, _ in system.deps]
            found = Counter(zip(heads, (relation for _, relation in system.deps)))
            universal = Counter(zip(heads, (_universal_path(relation) for _, relation in system.deps)))
            for head, relation in gold.deps:
                elas += found[in_file(gold, head), relation]
                eulas += universal[in_file(gold, head), _universal_path(relation)]
    return {"ELAS": Score(elas, gold_arcs, system_arcs), "EULAS": Score(eulas, gold_arcs, system_arcs)}


def _spans_score(gold: list[tuple[int, int]], system: list[tuple[int, int]]) -> Score:
    correct = sum((Counter(gold) & Counter(system)).values())
    return Score(correct, len(gold), len(system))


def _check_same_text(gold: Segmentation, system: Segmentation) -> None:
    """Raise an InputError naming the first character (spaces aside) where the two texts differ."""
    if gold.text == system.text:
        return
    at = len(os.path.commonprefix([gold.text, system.text]))

    def line(file: Segmentation) -> int | None:
        token = bisect_right([start for start, _ in file.tokens], min(at, len(file.text) - 1)) - 1
        return file.token_lines[token] if token >= 0 else None

    gold_at = f"{gold.name}:{line(gold)}"
    if at == len(system.text):
        raise InputError(f"the system's text ends at character {at}, where the gold's goes on with "
                         f"{gold.text[at:at + 20]!r} (at {gold_at})", path=system.name, line=line(system),
                         fix="parse the whole gold file: the concatenated FORMs, spaces aside, must be the gold's")
    if at == len(gold.text):
        raise InputError(f"the system's text goes on after the gold's ends (character {at + 1}: "
                         f"{system.text[at:at + 20]!r}; the gold ends at {gold_at})", path=system.name,
                         line=line(system), fix="evaluate against the gold file that was parsed")
    raise InputError(f"the text differs from the gold's at character {at + 1} (spaces aside): the system has "
                     f"{system.text[at:at + 20]!r}, the gold {gold.text[at:at + 20]!r} (at {gold_at})",
                     path=system.name, line=line(system),
                     fix="the concatenated FORMs must be the gold's: score output made from the gold file's text")


def format_conll18(evaluation: Conll18Evaluation) -> str:
    """The CoNLL 2018 table of ``barley evaluate``: precision, recall, F1, aligned accuracy, counts."""
    lines = ["CoNLL 2018 shared task metrics (Zeman et al. 2018): every word, DEPREL subtypes ignored, "
             "words aligned on their characters"
             + ("; ELAS and EULAS (IWPT 2020): every enhanced arc, with the whole relation and its universal part"
                if "ELAS" in evaluation.scores else ""),
             f"{'metric':<11}{'precision':>10}{'recall':>9}{'F1':>9}{'aligned':>9}{'correct':>10}{'gold':>9}"
             f"{'system':>9}"]
    for metric, score in evaluation.scores.items():
        lines.append(f"{metric:<11}{formatted(score.precision):>10}{formatted(score.recall):>9}{formatted(score.f1):>9}"
                     f"{formatted(score.aligned_accuracy, ''):>9}{score.correct:>10}{score.gold:>9}{score.system:>9}")
    return "\n".join(lines)


