"""Scoring parser output against a gold standard, and comparing two parsers.

Both files must hold the same syntactic words (multiword-token lines and empty
nodes are ignored); :mod:`barley.evaluation.conll18` scores files whose tokenization
or sentence split differ, with the CoNLL 2018 shared task's metrics. Scores, as
percentages of the scored words:

- UAS: correct head; LAS: correct head and DEPREL; LASu: correct head and the
  universal part of DEPREL (before ``:``), as the CoNLL 2018 shared task scores
  LAS; LA: correct DEPREL whatever the head.
- UEM, LEM: share of sentences whose scored words all have a correct head
  (and label); a sentence without scored words counts as matched.
- Non-projective arcs (Kuhlmann and Nivre 2010, as used by Björkelund and Kuhn,
  §3): recall is the share of words with a non-projective arc in the gold tree
  that get the correct head *and label*; precision is the share of words the
  system attaches by a non-projective arc that get the correct head and label.
  A sentence whose gold (system) heads are not a tree has no non-projective arcs
  defined and is left out of recall (precision); the counts say how many.
- By length of the gold arc, in the bins of Nilsson, Nivre and Hall (2006, Table 4:
  1, 2–3, 4–6, 7–10, 11+), with attachment to the root apart: the share of arcs
  and their UAS and LAS (Table 4 gives labeled AS per gold arc length, so these
  are recalls; no precision per length is defined there).
- By gold relation: recall (LAS over the gold words with that DEPREL) and
  precision (LAS over the system words with that DEPREL).

Punctuation is scored by default (UD, CoNLL 2018). ``exclude_punct="upos"`` (or
True) leaves out words whose gold UPOS is PUNCT; ``exclude_punct="form"`` leaves
out words whose gold FORM is all Unicode punctuation, which is what the CoNLL-X
``eval.pl`` does by default (and what works for CoNLL-X tag sets).

:func:`mcnemar` compares two systems on the same words by their per-word LAS
correctness (McNemar's test on the discordant words).
"""

from __future__ import annotations

import math
import os
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import zip_longest

import numpy as np

from barley import conllu
from barley.confidence import calibration, read_head_prob
from barley.conllu import FORM, MISC, UPOS, Sentence
from barley.errors import InputError
from barley.tree import check_tree, is_planar, nonprojective_arcs

LENGTH_BINS = ((1, 1), (2, 3), (4, 6), (7, 10), (11, math.inf))

PUNCT_MODES = {"upos": "excluded: words with gold UPOS PUNCT",
               "form": "excluded: words whose gold FORM is all Unicode punctuation (CoNLL-X eval.pl)"}
EXACT_BELOW = 25  # McNemar: exact binomial test below this many discordant words


Source = str | os.PathLike | Iterable[Sentence]


@dataclass
class Evaluation:
    """Per-word facts of one evaluation (scored words only, in file order) and the scores drawn from them."""

    punctuation: str  # how punctuation was treated, stated in every report
    sentences: int
    sentence_of_word: np.ndarray  # index of the sentence of each scored word
    head_correct: np.ndarray  # bool per scored word
    label_correct: np.ndarray
    universal_label_correct: np.ndarray
    gold_length: np.ndarray  # |head - dependent| of the gold arc, 0 for attachment to the root
    gold_labels: list[str]
    system_labels: list[str]
    gold_nonprojective: np.ndarray  # bool per scored word
    system_nonprojective: np.ndarray
    gold_not_trees: int  # sentences left out of NP recall
    system_not_trees: int  # sentences left out of NP precision
    head_confidence: np.ndarray | None = None  # the system's HeadProb per scored word (NaN: none), barley.confidence
    scores: dict = field(init=False)

    def __post_init__(self) -> None:
        if self.head_confidence is None:
            self.head_confidence = np.full(len(self.head_correct), np.nan)
        self.scores = self._scores()
        given = ~np.isnan(self.head_confidence)
        if given.any():  # only for a system file with probabilities: other reports stay as they were
            self.scores["calibration"] = {**calibration(self.head_confidence[given],
                                                        self.head_correct[given]).as_dict(),
                                          "words_without": int((~given).sum())}

    @property
    def correct(self) -> np.ndarray:
        """LAS correctness of every scored word (what :func:`mcnemar` compares)."""
        return self.head_correct & self.label_correct

    def _scores(self) -> dict:
        correct = self.correct
        words = len(correct)
        uas_errors = np.bincount(self.sentence_of_word[~self.head_correct], minlength=self.sentences)
        las_errors = np.bincount(self.sentence_of_word[~correct], minlength=self.sentences)
        gold_np, system_np = self.gold_nonprojective, self.system_nonprojective
        return {
            "UAS": percent(self.head_correct.sum(), words),
            "LAS": percent(correct.sum(), words),
            "LASu": percent((self.head_correct & self.universal_label_correct).sum(), words),
            "LA": percent(self.label_correct.sum(), words),
            "UEM": percent((uas_errors == 0).sum(), self.sentences),
            "LEM": percent((las_errors == 0).sum(), self.sentences),
            "NP_recall": percent(correct[gold_np].sum(), gold_np.sum()),
            "NP_precision": percent(correct[system_np].sum(), system_np.sum()),
            "NP_gold": int(gold_np.sum()),
            "NP_system": int(system_np.sum()),
            "NP_gold_correct": int(correct[gold_np].sum()),
            "NP_system_correct": int(correct[system_np].sum()),
            "gold_not_trees": self.gold_not_trees,
            "system_not_trees": self.system_not_trees,
            "tokens": words,
            "sentences": self.sentences,
            "punctuation": self.punctuation,
            "by_length": self._by_length(),
            "by_relation": self._by_relation(),
        }

    def _by_length(self) -> dict:
        rows = {}
        bins = [(f"{low}" if low == high else f"{low}+" if high == math.inf else f"{low}-{high}",
                 (self.gold_length >= low) & (self.gold_length <= high)) for low, high in LENGTH_BINS]
        bins.append(("root", self.gold_length == 0))
        for name, members in bins:
            count = int(members.sum())
            rows[name] = {"words": count, "share": percent(count, len(members)),
                          "UAS": percent(self.head_correct[members].sum(), count),
                          "LAS": percent(self.correct[members].sum(), count)}
        return rows

    def _by_relation(self) -> dict:
        labels = sorted(set(self.gold_labels) | set(self.system_labels))
        number = {label: i for i, label in enumerate(labels)}
        gold = np.array([number[label] for label in self.gold_labels], dtype=np.int64)
        system = np.array([number[label] for label in self.system_labels], dtype=np.int64)
        correct = self.correct
        in_gold, in_system = np.bincount(gold, minlength=len(labels)), np.bincount(system, minlength=len(labels))
        # A correct word has the same label in both files, so one count serves recall and precision.
        right = np.bincount(gold[correct], minlength=len(labels))
        return {label: {"gold": int(in_gold[i]), "system": int(in_system[i]),
                        "recall": percent(right[i], in_gold[i]), "precision": percent(right[i], in_system[i])}
                for i, label in enumerate(labels)}

    def as_dict(self) -> dict:
        """The scores as a JSON-ready dict (percentages 0–100; None where a denominator is 0)."""
        return self.scores

    @classmethod
    def concatenate(cls, parts: list[Evaluation]) -> Evaluation:
        """The evaluation of consecutive pieces of the same files, as if scored in one go (``--jobs``)."""
        offsets = np.cumsum([0] + [part.sentences for part in parts[:-1]])

        def joined(name: str) -> np.ndarray:
            return np.concatenate([getattr(part, name) for part in parts])

        return cls(punctuation=parts[0].punctuation, sentences=sum(part.sentences for part in parts),
                   sentence_of_word=np.concatenate([part.sentence_of_word + offset
                                                    for part, offset in zip(parts, offsets)]),
                   head_correct=joined("head_correct"), label_correct=joined("label_correct"),
                   universal_label_correct=joined("universal_label_correct"), gold_length=joined("gold_length"),
                   gold_labels=[label for part in parts for label in part.gold_labels],
                   system_labels=[label for part in parts for label in part.system_labels],
                   gold_nonprojective=joined("gold_nonprojective"),
                   system_nonprojective=joined("system_nonprojective"),
                   gold_not_trees=sum(part.gold_not_trees for part in parts),
                   system_not_trees=sum(part.system_not_trees for part in parts),
                   head_confidence=joined("head_confidence"))


def evaluate(gold: Source, system: Source, exclude_punct: bool | str = False) -> Evaluation:
    """Score ``system`` against ``gold`` (paths or iterables of Sentences); see the module docstring."""
    mode = _punct_mode(exclude_punct)
    sentence_of_word: list[np.ndarray] = []
    head_correct: list[np.ndarray] = []
    label_correct: list[bool] = []
    universal_correct: list[bool] = []
    gold_length: list[np.ndarray] = []
    gold_labels: list[str] = []
    system_labels: list[str] = []
    gold_np: list[np.ndarray] = []
    system_np: list[np.ndarray] = []
    head_confidence: list[float] = []
    gold_not_trees = system_not_trees = 0
    sentences = 0
    for index, (gold_sentence, system_sentence) in enumerate(aligned_pairs(gold, system)):
        sentences += 1
        gold_heads, system_heads = gold_sentence.heads(), system_sentence.heads()
        if (gold_heads[1:] < 0).any():
            word = int(np.argmin(gold_heads[1:])) + 1
            raise InputError(f"gold word {word} has no HEAD (_)", path=gold_sentence.source,
                             line=_word_line(gold_sentence, word), fix="the gold file must give every word a head")
        scored = _scored(gold_sentence, mode)
        words = np.flatnonzero(scored) + 1  # scored word numbers
        gold_rel, system_rel = gold_sentence.deprels(), system_sentence.deprels()
        sentence_of_word.append(np.full(len(words), index))
        head_correct.append(gold_heads[words] == system_heads[words])
        label_correct.extend(gold_rel[w] == system_rel[w] for w in words)
        universal_correct.extend(gold_rel[w].split(":")[0] == system_rel[w].split(":")[0] for w in words)
        head_confidence.extend(_head_prob(system_sentence, int(w)) for w in words)
        gold_labels.extend(gold_rel[w] for w in words)
        system_labels.extend(system_rel[w] for w in words)
        lengths = np.abs(gold_heads - np.arange(len(gold_heads)))
        lengths[gold_heads == 0] = 0
        gold_length.append(lengths[words])
        gold_nonprojective = _nonprojective(gold_heads)
        system_nonprojective = (gold_nonprojective if np.array_equal(gold_heads, system_heads)
                                else _nonprojective(system_heads))
        gold_not_trees += gold_nonprojective is None
        system_not_trees += system_nonprojective is None
        gold_np.append(np.zeros(len(words), dtype=bool) if gold_nonprojective is None else gold_nonprojective[words])
        system_np.append(np.zeros(len(words), dtype=bool) if system_nonprojective is None
                         else system_nonprojective[words])
    return Evaluation(
        punctuation="included (every word is scored)" if mode is None else PUNCT_MODES[mode],
        sentences=sentences,
        sentence_of_word=_concatenate(sentence_of_word, np.int64),
        head_correct=_concatenate(head_correct, bool),
        label_correct=np.array(label_correct, dtype=bool),
        universal_label_correct=np.array(universal_correct, dtype=bool),
        gold_length=_concatenate(gold_length, np.int64),
        gold_labels=gold_labels, system_labels=system_labels,
        gold_nonprojective=_concatenate(gold_np, bool), system_nonprojective=_concatenate(system_np, bool),
        gold_not_trees=gold_not_trees, system_not_trees=system_not_trees,
        head_confidence=np.array(head_confidence, dtype=np.float64))


def _head_prob(sentence: Sentence, word: int) -> float:
    """The ``HeadProb`` in the MISC of ``word`` (NaN when it has none); a malformed one is an InputError."""
    found = read_head_prob(sentence.words[word - 1][MISC])
    if found is None:
        return math.nan
    if math.isnan(found):
        raise InputError(f"word {word}'s HeadProb is not a probability", path=sentence.source,
                         line=_word_line(sentence, word), fix="give a number between 0 and 1 (barley parse "
                                                              "--confidence writes them)")
    return found


@dataclass
class McNemar:
    """McNemar's test on two systems' per-word LAS correctness over the same gold words."""

    only_first: int  # words the first system gets right and the second wrong
    only_second: int
    p_value: float
    method: str

    def as_dict(self) -> dict:
        return {"only_system_correct": self.only_first, "only_other_correct": self.only_second,
                "p_value": self.p_value, "method": self.method}


def mcnemar(first: np.ndarray, second: np.ndarray) -> McNemar:
    """Two-sided McNemar test (McNemar 1947) on paired boolean outcomes.

    Only the discordant pairs matter: b words right in ``first`` only, c in
    ``second`` only. Under the null hypothesis b ~ Binomial(b + c, 1/2); below
    ``EXACT_BELOW`` discordant words that binomial gives the exact p-value,
    otherwise the chi-square statistic (|b - c| - 1)² / (b + c) with one degree of
    freedom (with Edwards' continuity correction).
    """
    first, second = np.asarray(first, dtype=bool), np.asarray(second, dtype=bool)
    if first.shape != second.shape:
        raise ValueError(f"paired outcomes differ in length: {first.shape} and {second.shape}")
    b = int((first & ~second).sum())
    c = int((~first & second).sum())
    if b + c == 0:
        return McNemar(b, c, 1.0, "no discordant words")
    from scipy import stats  # imported here: scipy.stats takes a while to load and only this needs it

    if b + c < EXACT_BELOW:
        return McNemar(b, c, float(stats.binomtest(b, b + c, 0.5).pvalue), "exact binomial")
    statistic = (abs(b - c) - 1) ** 2 / (b + c)
    return McNemar(b, c, float(stats.chi2.sf(statistic, 1)), "chi-square with continuity correction")


def format_report(evaluation: Evaluation, gold: str, system: str, conll18_las: float | None = None) -> str:
    """The text report of ``barley evaluate``; with ``conll18_las`` (the CoNLL 2018 shared task's LAS F1 of
    the same files, :mod:`barley.evaluation.conll18`, whose table the command prints after it), that LAS
    beside barley's."""
    scores = evaluation.as_dict()
    lines = [f"gold:   {gold}", f"system: {system}", f"punctuation: {scores['punctuation']}",
             f"{scores['sentences']} sentences, {scores['tokens']} scored words", ""]
    for key, what in (("UAS", "correct head"), ("LAS", "correct head and DEPREL"),
                      ("LASu", "correct head and universal DEPREL (before ':')"), ("LA", "correct DEPREL"),
                      ("UEM", "sentences with all heads correct"),
                      ("LEM", "sentences with all heads and DEPRELs correct")):
        if key == "LAS" and conll18_las is not None:  # like with like: published figures give the shared task's LAS
            what += (f"; LAS (CoNLL 2018) {formatted(conll18_las)}: universal DEPREL, every word, "
                     "as published figures")
        lines.append(f"{key:<13}{formatted(scores[key]):>7}  {what}")
    if "calibration" in scores:
        lines += _calibration_lines(scores["calibration"])
    lines.append(f"{'NP recall':<13}{formatted(scores['NP_recall']):>7}  {scores['NP_gold_correct']} of "
                 f"{scores['NP_gold']} gold non-projective arcs get the correct head and DEPREL")
    lines.append(f"{'NP precision':<13}{formatted(scores['NP_precision']):>7}  {scores['NP_system_correct']} of "
                 f"{scores['NP_system']} system non-projective arcs have the correct head and DEPREL")
    for key, side, score in (("gold_not_trees", "gold", "NP recall"), ("system_not_trees", "system", "NP precision")):
        if scores[key]:
            lines.append(f"{'':<20}{scores[key]} sentences are not trees in the {side} file "
                         f"and are left out of {score}")
    lines += ["", "by length of the gold arc (Nilsson, Nivre and Hall 2006, Table 4)",
              f"{'length':<8}{'words':>8}{'share':>8}{'UAS':>8}{'LAS':>8}"]
    for name, row in scores["by_length"].items():
        lines.append(f"{name:<8}{row['words']:>8}{formatted(row['share']):>8}{formatted(row['UAS']):>8}{formatted(row['LAS']):>8}")
    width = max([len("DEPREL"), *map(len, scores["by_relation"])]) + 2
    lines += ["", "by DEPREL (recall: LAS over gold words with it; precision: over system words with it)",
              f"{'DEPREL':<{width}}{'gold':>8}{'system':>8}{'recall':>8}{'prec.':>8}"]
    for name, row in scores["by_relation"].items():
        lines.append(f"{name:<{width}}{row['gold']:>8}{row['system']:>8}{formatted(row['recall']):>8}"
                     f"{formatted(row['precision']):>8}")
    return "\n".join(lines)


def _calibration_lines(found: dict) -> list[str]:
    """The report's lines on the system's head confidence (HeadProb, :mod:`barley.confidence`)."""
    lines = [f"{'ECE':<13}{100 * found['ECE']:>7.2f}  expected calibration error of HeadProb, in points "
             f"(10 equal-width bins, {found['words']} words"
             + (f"; {found['words_without']} words have no HeadProb)" if found["words_without"] else ")"),
             f"{'AUROC':<13}{formatted(None if found['AUROC'] is None else 100 * found['AUROC']):>7}  how often a "
             f"wrong head has a lower HeadProb than a right one (%)",
             f"{'':<13}reliability: HeadProb bin, words, mean HeadProb, UAS"]
    for row in found["bins"]:
        if row["words"]:
            lines.append(f"{'':<13}{row['low']:.1f}-{row['high']:.1f}{row['words']:>8}{100 * row['confidence']:>8.2f}"
                         f"{100 * row['accuracy']:>8.2f}")
    return lines


def format_comparison(system: Evaluation, other: Evaluation, test: McNemar, other_name: str) -> str:
    """The lines ``barley evaluate --compare`` adds to the report."""
    return (f"LAS of SYSTEM {formatted(system.as_dict()['LAS'])}, of OTHER ({other_name}) {formatted(other.as_dict()['LAS'])}\n"
            f"McNemar on per-word LAS: {test.only_first} words right only in SYSTEM, {test.only_second} right "
            f"only in OTHER; p = {test.p_value:.4g} ({test.method})")


def aligned_pairs(gold: Source, system: Source) -> Iterator[tuple[Sentence, Sentence]]:
    """Pairs of gold and system sentences; an InputError at the first sentence or word that differs."""
    for number, (gold_sentence, system_sentence) in enumerate(zip_longest(sentences_of(gold), sentences_of(system)),
                                                              start=1):
        if system_sentence is None:
            raise InputError(f"the system file ends after {number - 1} sentences but the gold has more "
                             f"(gold sentence {number} is at {gold_sentence.source}:{gold_sentence.line})",
                             path=source_name(system), fix="parse the whole gold file")
        if gold_sentence is None:
            raise InputError(f"the system file has more sentences than the gold ({number - 1}); sentence "
                             f"{number} has no gold counterpart", path=system_sentence.source,
                             line=system_sentence.line, fix="evaluate against the gold file that was parsed")
        gold_forms, system_forms = gold_sentence.column(FORM), system_sentence.column(FORM)
        if gold_forms == system_forms:
            yield gold_sentence, system_sentence
            continue
        word = next((i for i, (g, s) in enumerate(zip(gold_forms, system_forms), start=1) if g != s),
                    min(len(gold_forms), len(system_forms)) + 1)
        what = (f"word {word} is {system_forms[word - 1]!r} but the gold word is {gold_forms[word - 1]!r}"
                if word <= min(len(gold_forms), len(system_forms)) else
                f"it has {len(system_forms)} words and the gold sentence has {len(gold_forms)}")
        line = _word_line(system_sentence, min(word, len(system_forms)))
        raise InputError(f"sentence {number} differs from the gold (at {gold_sentence.source}:{gold_sentence.line}): "
                         f"{what}", path=system_sentence.source, line=line,
                         fix="the system output must keep the gold words; evaluate the file that was parsed")


def sentences_of(source: Source) -> Iterable[Sentence]:
    """The sentences of a file (read as they are needed) or the sentences themselves."""
    return conllu.read(source) if isinstance(source, str | os.PathLike) else source


def source_name(source: Source) -> str | None:
    """The file's path, for messages; None for sentences given in memory."""
    return os.fspath(source) if isinstance(source, str | os.PathLike) else None


def _word_line(sentence: Sentence, word: int) -> int:
    """The line number of word ``word`` (1-based) of ``sentence`` in its file."""
    if word < 1:
        return sentence.line
    target = sentence.words[word - 1]
    return sentence.line + len(sentence.comments) + next(i for i, row in enumerate(sentence.rows) if row is target)


def _punct_mode(exclude_punct: bool | str) -> str | None:
    if exclude_punct is False or exclude_punct is None:
        return None
    if exclude_punct is True:
        return "upos"
    if exclude_punct not in PUNCT_MODES:
        raise ValueError(f"exclude_punct must be False, True, 'upos' or 'form', not {exclude_punct!r}")
    return exclude_punct


def _scored(sentence: Sentence, mode: str | None) -> np.ndarray:
    """Which words 1..n are scored (bool array of length n)."""
    if mode is None:
        return np.ones(len(sentence), dtype=bool)
    if mode == "upos":
        return np.array([word[UPOS] != "PUNCT" for word in sentence.words], dtype=bool)
    return np.array([not all(unicodedata.category(ch).startswith("P") for ch in word[FORM])
                     for word in sentence.words], dtype=bool)


def _nonprojective(heads: np.ndarray) -> np.ndarray | None:
    """Bool per node 0..n: attached by a non-projective arc; None if ``heads`` is not a tree.

    In a tree, an arc is non-projective iff some arc crosses it once the arcs from
    the root 0 are included, so the vectorised crossing test spares the
    per-arc check for the many sentences without any crossing.
    """
    if check_tree(heads) is not None:
        return None
    nonprojective = np.zeros(len(heads), dtype=bool)
    if not is_planar(heads, include_root=True):
        nonprojective[nonprojective_arcs(heads)] = True
    return nonprojective


def _concatenate(parts: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


def percent(count, total) -> float | None:
    """``count`` of ``total`` in percent; None of nothing."""
    return None if total == 0 else 100.0 * float(count) / float(total)


def formatted(value: float | None, missing: str = "-") -> str:
    """A score with two decimals, or ``missing``."""
    return missing if value is None else f"{value:.2f}"
