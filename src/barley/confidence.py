"""How sure a parser is of each word's head and label, and how well calibrated that is.

What ``barley parse --confidence`` writes (every parser kind, :data:`HEAD_PROB` ...):

* each word's MISC gains ``HeadProb=p`` — the probability the parser gives the head it
  chose — and ``DeprelProb=q`` — the probability of the chosen label *given* that head, so
  that ``p × q`` is the probability that the word's whole attachment is right; whatever MISC
  held is kept (earlier ``HeadProb``/``DeprelProb``/``Doubtful`` entries are replaced);
* each sentence gains the comment ``# confidence = c``: the mean over its words of
  ``HeadProb × DeprelProb``, the sentence's *expected labeled attachment score* (as a
  fraction) when the probabilities are calibrated. A k-best or beam list gives each of its
  trees the same number, computed from that tree's words.

Where the probabilities come from depends on the parser (each kind's module says how):
a softmax over the heads, or the arc marginals of the tree distribution
(:mod:`barley.graph.marginals`), for graph-based and biaffine parsers; for transition
parsers the probability of the move that made the word's arc among the legal ones
(:func:`move_probabilities`). Every kind divides its scores by a *temperature* (Guo et al.
2017, "On calibration of modern neural networks", §4.2) stored in the model and fitted on
held-out data by ``barley calibrate`` (:func:`fit_temperature`): one number, chosen to
maximise the likelihood of the *words'* head correctness (``HeadProb`` against whether the
head is right), the quantity the calibration error measures.

:func:`calibration` measures a file: the expected calibration error over words (10
equal-width bins, Naeini et al. 2015) and the area under the ROC curve of the head
confidence as a detector of head errors.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from barley.conllu import MISC, Sentence
from barley.errors import BarleyError

HEAD_PROB = "HeadProb"
DEPREL_PROB = "DeprelProb"
DOUBTFUL = "Doubtful"
"""The MISC attribute ``Doubtful=Yes`` that ``barley parse --flag-below P`` sets on the words
whose ``HeadProb`` is below P."""
COMMENT = "confidence"
"""The sentence comment ``# confidence = c``: the mean of its words' ``HeadProb × DeprelProb``."""
DIGITS = 4
BINS = 10
TEMPERATURE_RANGE = (0.01, 100.0)
"""The temperatures :func:`fit_temperature` searches (log-uniformly)."""


Evidence = Callable[[float], tuple[np.ndarray, np.ndarray]]
"""What a parser keeps of one sentence to give its words' ``(HeadProb, DeprelProb)`` at any temperature."""


@dataclass
class Confidence:
    """What a parser asked for confidence does with each parsed sentence (``parser.confidence``):
    the probabilities at the model's temperature into the sentence (:func:`annotate`), words
    whose head probability is below ``flag_below`` flagged, and, when ``recorded`` is a list, the
    sentence and its evidence appended there (``barley calibrate`` fits the temperature on them)."""

    flag_below: float | None = None
    recorded: list[tuple[Sentence, Evidence]] | None = None

    def __post_init__(self) -> None:
        if self.flag_below is not None and not 0.0 < self.flag_below <= 1.0:
            raise BarleyError(f"--flag-below takes a probability in (0, 1], not {self.flag_below}")

    def write(self, sentence: Sentence, evidence: Evidence, temperature: float) -> None:
        if self.recorded is not None:
            self.recorded.append((sentence, evidence))
        head, deprel = evidence(temperature)
        annotate(sentence, head, deprel, self.flag_below)


def temperature_of(manifest: dict) -> float:
    """The temperature a parser's manifest holds (``barley calibrate``), 1 when it has none;
    anything but a positive finite number is a ModelError (inside ``model_check.loading``)."""
    entry = manifest.get("confidence")
    if entry is None:
        return 1.0
    temperature = entry.get("temperature") if isinstance(entry, dict) else None
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not (
            math.isfinite(temperature) and temperature > 0):
        raise ValueError(f"the confidence temperature {temperature!r} is not a positive number")
    return float(temperature)


def softmax(scores: np.ndarray, temperature: float = 1.0, axis: int = -1) -> np.ndarray:
    """``exp(s / T)`` normalised along ``axis`` (float64; -inf scores get probability 0)."""
    scaled = np.asarray(scores, dtype=np.float64) / temperature
    top = np.max(scaled, axis=axis, keepdims=True)
    exponent = np.exp(scaled - np.where(np.isfinite(top), top, 0.0))
    return exponent / exponent.sum(axis=axis, keepdims=True)


def move_probabilities(scores: np.ndarray, chosen: np.ndarray, class_moves: np.ndarray,
                       temperature: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """A transition parser's ``(HeadProb, DeprelProb)`` of words from the steps that made their arcs.

    ``scores[w]``: the classifier's scores of every class (move, label) at the step that gave word
    ``w`` its head, -inf for the classes whose move was not legal; ``chosen[w]``: the class taken.
    The classes' probabilities are the softmax of the legal ones' scores over ``temperature``;
    the head's probability is that of the *move* (every label of it: a move fixes the arc, the
    label says only its name), the label's that of the class given its move."""
    probabilities = softmax(scores, temperature)
    rows = np.arange(len(chosen))
    same_move = class_moves[None, :] == class_moves[chosen][:, None]
    move = (probabilities * same_move).sum(axis=1)
    return move, probabilities[rows, chosen] / move


def move_evidence(scores: np.ndarray, chosen: np.ndarray, class_moves: np.ndarray) -> Evidence:
    """A transition-parsed sentence's evidence: per word, the scores of the step whose move made
    its arc and the class taken there (:func:`move_probabilities`); ``chosen`` is -1 for a word
    that no move attached (the system's ``finalize`` gave it a head once the moves ran out). Such a
    word gets the lowest head and label probabilities of its sentence — the parser never chose
    its arc — or 1/n and 1 when no move of the sentence made an arc (a one-word sentence, whose
    only possible head is the root)."""
    made = chosen >= 0
    scores, chosen = scores[made], chosen[made]

    def probabilities(temperature: float) -> tuple[np.ndarray, np.ndarray]:
        head, deprel = np.empty(len(made)), np.empty(len(made))
        if made.any():
            head[made], deprel[made] = move_probabilities(scores, chosen, class_moves, temperature)
            head[~made], deprel[~made] = head[made].min(), deprel[made].min()
        else:
            head[:], deprel[:] = 1.0 / max(len(made), 1), 1.0
        return head, deprel

    return probabilities


def annotate(sentence: Sentence, head: Sequence[float], deprel: Sequence[float],
             flag_below: float | None = None) -> None:
    """Write words' probabilities (``head[i]``, ``deprel[i]`` of word i + 1) into MISC and the
    sentence's ``# confidence`` comment; with ``flag_below``, ``Doubtful=Yes`` on the words whose
    head probability is below it."""
    head, deprel = np.asarray(head, dtype=np.float64), np.asarray(deprel, dtype=np.float64)
    if len(head) != len(sentence) or len(deprel) != len(sentence):
        raise ValueError(f"{len(head)} head and {len(deprel)} label probabilities for {len(sentence)} words")
    for word, p, q in zip(sentence.words, head.tolist(), deprel.tolist()):
        entries = {HEAD_PROB: f"{p:.{DIGITS}f}", DEPREL_PROB: f"{q:.{DIGITS}f}"}
        if flag_below is not None and p < flag_below:
            entries[DOUBTFUL] = "Yes"
        word[MISC] = _misc_with(word[MISC], entries)
    score = float((head * deprel).mean()) if len(sentence) else 1.0
    line = f"# {COMMENT} = {score:.{DIGITS}f}"
    kept = [c for c in sentence.comments if c[1:].partition("=")[0].strip() != COMMENT]
    sentence.comments[:] = [*kept, line]


def _misc_with(misc: str, entries: dict[str, str]) -> str:
    """MISC with ``entries`` (``name=value``) at its end, replacing earlier ones of ours."""
    ours = (HEAD_PROB, DEPREL_PROB, DOUBTFUL)
    kept = [] if misc == "_" else [item for item in misc.split("|") if item.partition("=")[0] not in ours]
    return "|".join([*kept, *(f"{name}={value}" for name, value in entries.items())])


def read_head_prob(misc: str) -> float | None:
    """The ``HeadProb`` of a MISC value, None when it has none."""
    if HEAD_PROB not in misc:
        return None
    for item in misc.split("|"):
        name, _, value = item.partition("=")
        if name == HEAD_PROB:
            try:
                probability = float(value)
            except ValueError:
                return math.nan
            return probability if 0.0 <= probability <= 1.0 else math.nan
    return None


# --- calibration --------------------------------------------------------------------------

@dataclass
class Calibration:
    """How well head confidences match head correctness over ``words``."""

    words: int
    ece: float                 # expected calibration error, 0..1
    auroc: float | None        # None when every head is right, or every head wrong
    bins: list[tuple[float, float, int, float | None, float | None]]  # low, high, words, mean confidence, accuracy

    def as_dict(self) -> dict:
        return {"words": self.words, "ECE": round(self.ece, 4),
                "AUROC": None if self.auroc is None else round(self.auroc, 4),
                "bins": [{"low": low, "high": high, "words": n, "confidence": conf, "accuracy": acc}
                         for low, high, n, conf, acc in self.bins]}


def calibration(confidence: np.ndarray, correct: np.ndarray, bins: int = BINS) -> Calibration:
    """ECE over ``bins`` equal-width bins of ``confidence`` (1.0 falls in the last): the words'
    share of each bin times the gap between its mean confidence and its accuracy, summed; and
    the AUROC of ``confidence`` ranking right heads above wrong ones (the Mann–Whitney
    statistic, ties counted half): the chance that a random wrong head is less confident than a
    random right one."""
    confidence = np.asarray(confidence, dtype=np.float64)
    correct = np.asarray(correct, dtype=bool)
    which = np.minimum((confidence * bins).astype(np.int64), bins - 1)
    rows, ece = [], 0.0
    for b in range(bins):
        inside = which == b
        n = int(inside.sum())
        mean = float(confidence[inside].mean()) if n else None
        accuracy = float(correct[inside].mean()) if n else None
        if n:
            ece += n / len(confidence) * abs(accuracy - mean)
        rows.append((b / bins, (b + 1) / bins, n, mean, accuracy))
    return Calibration(len(confidence), ece, auroc(confidence, correct), rows)


def auroc(scores: np.ndarray, positive: np.ndarray) -> float | None:
    """The area under the ROC curve of ``scores`` for ``positive`` against the rest (None when
    one side is empty): average ranks, so ties count half."""
    from scipy.stats import rankdata

    positives = int(positive.sum())
    negatives = len(positive) - positives
    if not positives or not negatives:
        return None
    ranks = rankdata(scores)
    return float((ranks[positive].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def fit_temperature(head_probabilities: Callable[[float], np.ndarray], correct: np.ndarray) -> tuple[float, float]:
    """The temperature that maximises the likelihood of the words' head correctness, and that
    negative log-likelihood per word: ``head_probabilities(T)`` gives every held-out word's
    ``HeadProb`` at temperature T, ``correct`` whether its head is right. A bounded search on
    log T (the likelihood is smooth in T; the parse itself does not depend on it)."""
    from scipy.optimize import minimize_scalar

    correct = np.asarray(correct, dtype=bool)

    def loss(log_temperature: float) -> float:
        p = np.clip(head_probabilities(math.exp(log_temperature)), 1e-12, 1 - 1e-12)
        return float(-np.where(correct, np.log(p), np.log1p(-p)).mean())

    low, high = (math.log(t) for t in TEMPERATURE_RANGE)
    found = minimize_scalar(loss, bounds=(low, high), method="bounded", options={"xatol": 1e-3})
    return math.exp(found.x), float(found.fun)
