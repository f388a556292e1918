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
(:mod:`barley.decoders.marginals`), for graph-based, biaffine and joint parsers; for
transition parsers the probabilities of the moves among the legal ones, a word's head
being that of the moves that decided it (:class:`MoveSteps`). Every kind divides its
scores by a *temperature* (Guo et al. 2017, "On calibration of modern neural networks",
§4.2) stored in the model and fitted on
held-out data by ``barley calibrate`` (:func:`fit_temperature`): one number, chosen to
maximise the likelihood of the *words'* head correctness (``HeadProb`` against whether the
head is right), the quantity the calibration error measures.

:func:`calibration` measures a file: the expected calibration error over words (10
equal-width bins, Naeini et al. 2015) and the area under the ROC curve of the head
confidence as a detector of head errors.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from barley.conllu import MISC, Sentence
from barley.errors import BarleyError, ModelError
from barley.head_model import HeadModel

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
"""What a parser keeps of a batch of sentences to give their words' ``(HeadProb, DeprelProb)`` at any
temperature (one array each, the sentences' words one after the other)."""


@dataclass
class Confidence:
    """What a parser asked for confidence does with each parsed sentence (``parser.confidence``):
    the probabilities at the model's temperature into the sentence (:func:`annotate`), words
    whose head probability is below ``flag_below`` flagged, and, when ``recorded`` is a list, the
    sentence and its evidence appended there (``barley calibrate`` fits the temperature on them)."""

    flag_below: float | None = None
    recorded: list[tuple[list[Sentence], Evidence]] | None = None

    def __post_init__(self) -> None:
        if self.flag_below is not None and not 0.0 < self.flag_below <= 1.0:
            raise BarleyError(f"--flag-below takes a probability in (0, 1], not {self.flag_below}")

    def write(self, sentences: Sequence[Sentence], evidence: Evidence, calibrated: Calibrated) -> None:
        """``evidence(T)`` gives the probabilities of the words of ``sentences``, one after the other;
        written at the model's temperature, the heads' through its head model and map."""
        if self.recorded is not None:
            self.recorded.append((list(sentences), evidence))
        head, deprel = evidence(calibrated.temperature)
        if not (np.isfinite(head).all() and np.isfinite(deprel).all()):
            raise ModelError("the model's scores give probabilities that are not numbers (NaN): its weights are "
                             "damaged", fix="train it again, or use another model file")
        head = calibrated.head(sentences, head, deprel)
        head_texts, deprel_texts = _texts(head), _texts(deprel)
        head, deprel = head.tolist(), deprel.tolist()
        start = 0
        for sentence in sentences:
            end = start + len(sentence)
            annotate(sentence, head[start:end], deprel[start:end], self.flag_below, head_texts[start:end],
                     deprel_texts[start:end])
            start = end


@functools.cache
def _probability_texts() -> tuple[str, ...]:
    """Every probability as MISC writes it, by its value in units of the last digit written."""
    return tuple(f"{k / 10 ** DIGITS:.{DIGITS}f}" for k in range(10 ** DIGITS + 1))


def _texts(probabilities: np.ndarray) -> list[str]:
    """``probabilities`` as MISC writes them (what ``f"{p:.4f}"`` writes, by table: a parsed file
    has hundreds of thousands of them)."""
    table = _probability_texts()
    return [table[k] for k in np.rint(np.clip(probabilities, 0.0, 1.0) * 10 ** DIGITS).astype(np.int64).tolist()]


@dataclass(frozen=True)
class Calibrated:
    """A model's calibration (``barley calibrate``): the ``temperature`` every probability is computed
    at, then, for the head probabilities, an optional monotone map fitted on held-out words
    (:func:`fit_head_map`): ``head_map`` = (confidences, accuracies), knots of a piecewise-linear,
    increasing function (np.interp, constant beyond the ends). One number cannot reshape a
    transition parser's head probabilities, a product of move probabilities (a bare arc-hybrid
    parser on EWT: ECE 5.2 points at T = 1, 5.4 after its temperature); the map can."""

    temperature: float = 1.0
    head_map: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    head_model: HeadModel | None = None
    """Before the map, the head model's probability in place of the parser's (:mod:`barley.head_model`)."""

    def head(self, sentences: Sequence[Sentence], head: np.ndarray, deprel: np.ndarray) -> np.ndarray:
        """The head probabilities of the words of ``sentences`` (parsed), given their probabilities at the
        temperature: through the head model, then the map."""
        if self.head_model is not None:
            head = self.head_model(sentences, head, deprel)
        if self.head_map is None:
            return head
        return np.interp(head, *self.head_map)


MAX_KNOTS = 10_000
"""The most knots a stored head map may have (:func:`calibration_of`)."""


def calibration_of(manifest: dict) -> Calibrated:
    """The calibration a parser's manifest holds (``barley calibrate``; none: temperature 1, no map);
    anything but a positive finite temperature, a map that is not increasing knots in [0, 1], or a
    head model that is not :meth:`barley.head_model.HeadModel.from_json`'s, is a ValueError (a ModelError inside
    ``model_check.loading``)."""
    entry = manifest.get("confidence")
    if entry is None:
        return Calibrated()
    temperature = entry.get("temperature") if isinstance(entry, dict) else None
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not (
            math.isfinite(temperature) and temperature > 0):
        raise ValueError(f"the confidence temperature {temperature!r} is not a positive number")
    head_model = None if entry.get("head_model") is None else HeadModel.from_json(entry["head_model"])
    head_map = entry.get("head_map")
    if head_map is None:
        return Calibrated(float(temperature), head_model=head_model)
    knots = []
    for name in ("confidence", "accuracy"):
        values = head_map.get(name) if isinstance(head_map, dict) else None
        if not isinstance(values, list) or not 1 <= len(values) <= MAX_KNOTS or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and 0.0 <= v <= 1.0 for v in values):
            raise ValueError(f"the head map's {name} is not a list of 1 to {MAX_KNOTS} probabilities")
        knots.append(tuple(float(v) for v in values))
    confidence, accuracy = knots
    if len(confidence) != len(accuracy) or any(b <= a for a, b in zip(confidence, confidence[1:])) or any(
            b < a for a, b in zip(accuracy, accuracy[1:])):
        raise ValueError("the head map's knots are not increasing (or not as many confidences as accuracies)")
    return Calibrated(float(temperature), (confidence, accuracy), head_model)


def softmax(scores: np.ndarray, temperature: float = 1.0, axis: int = -1) -> np.ndarray:
    """``exp(s / T)`` normalised along ``axis`` (float64; -inf scores get probability 0)."""
    scaled = np.asarray(scores, dtype=np.float64) / temperature
    top = np.max(scaled, axis=axis, keepdims=True)
    exponent = np.exp(scaled - np.where(np.isfinite(top), top, 0.0))
    return exponent / exponent.sum(axis=axis, keepdims=True)


def move_scores(scores: np.ndarray, class_moves: np.ndarray, n_moves: int) -> np.ndarray:
    """Each move's score in each row of class ``scores``: its best label's (-inf: no legal class)."""
    return np.stack([scores[:, class_moves == move].max(axis=1, initial=-np.inf) for move in range(n_moves)], axis=1)


def word_rows(offsets: np.ndarray) -> np.ndarray:
    """The rows of a batch's words, when each sentence's rows start at ``offsets`` with its root's."""
    words = np.ones(int(offsets[-1]), dtype=bool)
    words[offsets[:-1]] = False
    return np.flatnonzero(words)


@dataclass
class MoveSteps:
    """What a transition parser keeps of a batch for confidence (:meth:`__call__`).

    Rows are those of the batch's token table: each sentence's root row, then its words'.
    Per scored step: ``moves`` (each legal move's score, that of its best label; -inf for the
    illegal ones), ``chosen`` (the move taken) and ``candidates`` (the row of the word each legal
    arc move would attach, by the system's ``attaches``; -1 otherwise). Per word that a move
    attached: ``label_scores`` (every class's score at that step, -inf where illegal) and
    ``label_class`` (the class taken; -1 for a word that no move attached). ``words``: the rows
    of the words, in order."""

    moves: np.ndarray
    chosen: np.ndarray
    candidates: np.ndarray
    label_scores: np.ndarray
    label_class: np.ndarray
    class_moves: np.ndarray
    words: np.ndarray

    def __call__(self, temperature: float) -> tuple[np.ndarray, np.ndarray]:
        """``(HeadProb, DeprelProb)`` of the words at ``temperature``.

        A move's probability is the softmax of the legal moves' scores over the temperature, each
        move scored by its best label: summing its labels instead would give a move with 50 labels
        up to 50 times the mass of SHIFT on the same evidence (on EWT dev that ranks head errors
        *worse* than chance, AUROC 0.49, against 0.69). A word's head probability is that of the
        path that gave it its head, as far as the word is concerned: at every earlier step where a
        legal move would have attached it elsewhere, the probability that no move attached it
        there, times, at the step that attached it, the probability of the move taken. A word that
        no move attached (``finalize`` gave it a head when the moves ran out) keeps the product of
        its refusals: exactly the probability that it was never attached. The label's probability
        is the softmax over the labels of the move taken; 1 for a word no move attached (its label
        is the system's fixed root label, no choice)."""
        rows, n_moves = len(self.label_class), self.moves.shape[1]
        probabilities = softmax(self.moves, temperature)
        candidates = self.candidates
        # P(some move attaches the word that move m would attach), and whether m is the first such move
        attach = np.zeros(probabilities.shape)
        first = candidates >= 0
        arc_moves = [m for m in range(n_moves) if first[:, m].any()]
        for m in arc_moves:
            for other in arc_moves:
                same = candidates[:, other] == candidates[:, m]
                attach[:, m] += probabilities[:, other] * same
                if other < m:
                    first[:, m] &= ~same
        step, first_move = np.nonzero(first)
        word = candidates[step, first_move]
        taken = self.chosen[step]
        attached_here = candidates[step, taken] == word
        factor = np.where(attached_here, probabilities[step, taken], 1.0 - attach[step, first_move])
        log_head = np.bincount(word, np.log(np.maximum(factor, 1e-300)), minlength=rows)
        head = np.exp(log_head[self.words])
        deprel = np.ones(len(self.words))
        classes = self.label_class[self.words]
        made_move = np.where(classes >= 0, self.class_moves[np.maximum(classes, 0)], -1)
        for move in range(n_moves):
            # a move's classes are its labels (each move's together, :class:`barley.transition.training.Classes`)
            rows_of = np.flatnonzero(made_move == move)
            if not len(rows_of):
                continue
            own = np.flatnonzero(self.class_moves == move)
            labels = softmax(self.label_scores[np.ix_(self.words[rows_of], own)], temperature)
            deprel[rows_of] = labels[np.arange(len(rows_of)), classes[rows_of] - own[0]]
        return head, deprel

    def relabel(self, rows: np.ndarray, labels: Sequence[int], class_labels: np.ndarray) -> None:
        """Words (``rows``) whose label was changed after the parse (:meth:`barley.valid_ud.UDRules.finish`) to
        ``labels``: their label probability becomes the new label's at the same step."""
        for row, label in zip(rows, labels):
            if self.label_class[row] >= 0:
                move = self.class_moves[self.label_class[row]]
                same = np.flatnonzero((self.class_moves == move) & (class_labels == label))
                if len(same):
                    self.label_class[row] = same[0]

    def label_log_probs(self, class_labels: np.ndarray, n_labels: int) -> np.ndarray:
        """Per row, the log-probability of each label at the step that attached the word: the log-softmax
        over the labels of the move taken (what :meth:`barley.valid_ud.UDRules.finish` weighs labels
        by); NaN rows for the rows no move attached. A label the step could not take is -inf."""
        log_probs = np.full((len(self.label_class), n_labels), np.nan)
        classes = self.label_class
        made_move = np.where(classes >= 0, self.class_moves[np.maximum(classes, 0)], -1)
        for move in np.unique(made_move[made_move >= 0]):
            own = np.flatnonzero(self.class_moves == move)
            if (class_labels[own] < 0).any():  # an unlabeled move: no label to weigh
                continue
            rows_of = np.flatnonzero(made_move == move)
            scores = self.label_scores[np.ix_(rows_of, own)].astype(np.float64)
            top = scores.max(axis=1, keepdims=True)
            with np.errstate(invalid="ignore"):
                logs = scores - top - np.log(np.exp(scores - top).sum(axis=1, keepdims=True))
            log_probs[rows_of] = -np.inf
            log_probs[np.ix_(rows_of, class_labels[own])] = logs
        return log_probs


def annotate(sentence: Sentence, head: Sequence[float], deprel: Sequence[float],
             flag_below: float | None = None, head_texts: Sequence[str] | None = None,
             deprel_texts: Sequence[str] | None = None) -> None:
    """Write words' probabilities (``head[i]``, ``deprel[i]`` of word i + 1) into MISC and the
    sentence's ``# confidence`` comment; with ``flag_below``, ``Doubtful=Yes`` on the words whose
    head probability is below it. ``head_texts``, ``deprel_texts``: the probabilities as written,
    when the caller has them (:func:`_texts`)."""
    if len(head) != len(sentence) or len(deprel) != len(sentence):
        raise ValueError(f"{len(head)} head and {len(deprel)} label probabilities for {len(sentence)} words")
    head_texts = head_texts or _texts(np.asarray(head, dtype=np.float64))
    deprel_texts = deprel_texts or _texts(np.asarray(deprel, dtype=np.float64))
    for word, p, head_text, deprel_text in zip(sentence.words, head, head_texts, deprel_texts):
        entries = f"{HEAD_PROB}={head_text}|{DEPREL_PROB}={deprel_text}"
        if flag_below is not None and p < flag_below:
            entries += f"|{DOUBTFUL}=Yes"
        misc = word[MISC]
        word[MISC] = entries if misc == "_" else _misc_with(misc, entries)
    score = sum(p * q for p, q in zip(head, deprel)) / len(sentence) if len(sentence) else 1.0
    line = f"# {COMMENT} = {score:.{DIGITS}f}"
    comments = sentence.comments
    if comments and comments[-1].startswith(f"# {COMMENT} ="):
        comments[-1] = line
    else:
        comments[:] = [c for c in comments if c[1:].partition("=")[0].strip() != COMMENT] + [line]


def _misc_with(misc: str, entries: str) -> str:
    """MISC with ``entries`` at its end, in place of earlier ones of ours."""
    ours = (HEAD_PROB, DEPREL_PROB, DOUBTFUL)
    kept = [item for item in misc.split("|") if item.partition("=")[0] not in ours]
    return "|".join([*kept, entries])


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
            assert accuracy is not None and mean is not None
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


def fit_head_map(confidence: np.ndarray, correct: np.ndarray) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The monotone map of head probabilities (:class:`Calibrated`) fitted on held-out words: isotonic
    regression of head correctness on ``confidence`` (Zadrozny & Elkan 2002; scikit-learn's pool
    adjacent violators), each of its constant blocks one knot at the block's mean confidence.
    Interpolating between block means, rather than keeping the blocks' steps, keeps the map
    increasing inside the range, so words keep their order (ties only beyond the end knots) and
    the ranking of errors (AUROC) is barely touched."""
    from sklearn.isotonic import IsotonicRegression

    confidence = np.asarray(confidence, dtype=np.float64)
    fitted = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit_transform(
        confidence, np.asarray(correct, dtype=np.float64))
    order = np.argsort(confidence, kind="stable")
    values, confidence = fitted[order], confidence[order]
    starts = np.flatnonzero(np.r_[True, np.diff(values) != 0])
    means = np.add.reduceat(confidence, starts) / np.diff(np.r_[starts, len(values)])
    keep = np.r_[True, np.diff(means) > 0]  # blocks of equal mean confidence (tied inputs) merge
    knots_x, knots_y = means[keep], values[starts][keep]
    while len(knots_x) > MAX_KNOTS:  # more blocks than can be stored: every other knot
        knots_x, knots_y = knots_x[::2], knots_y[::2]
    return tuple(float(x) for x in knots_x), tuple(float(y) for y in knots_y)
