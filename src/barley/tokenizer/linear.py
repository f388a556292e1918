"""The linear tokenizer (:class:`Tokenizer`): a liblinear classifier over hashed character-window features
(:mod:`barley.tokenizer.features`) labels every non-space character, on :class:`~barley.tokenizer.segmenter.Segmenter`
(the package's docstring, :mod:`barley.tokenizer`, says how it is trained and how it tokenizes).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

import numpy as np

from barley.conllu import Sentence
from barley.errors import BarleyError, ModelError
from barley.learners import rows_to_csr, weight_sums
from barley.learners.linear import LinearLearner
from barley.models import check
from barley.option import option
from barley.tokenizer import features
from barley.tokenizer.multiword import MultiwordExpander
from barley.tokenizer.segmenter import IMPOSSIBLE, Segmenter, best_threshold
from barley.tokenizer.treebank_text import SENTENCE_END, TOKEN_END, TextStatistics, paragraphs, spaces_in_tokens


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


HELD_OUT = 0.1  # the last part of the training text, on which the sentence-end threshold is tuned
MAX_BITS = 24
"""The largest hashed feature space, 2**24 buckets: the weights are used dense, three floats a bucket
(200 MB), and a model file's ``bits`` allocates that much before any parse."""


@dataclass
class TokenizerOptions:
    """The linear tokenizer's options, each a ``barley train --tokenizer-NAME`` option declared here
    (:func:`barley.option.option`; :mod:`barley.options` collects them)."""

    bits: int = option(20, "feature ids are hashed into 2**N buckets")
    C: float = option(0.1, "liblinear's cost of a training error")
    solver: str = option("svm", "liblinear's solver (as --learner-solver)")
    max_sentence_tokens: int = option(250, "a sentence is cut after N tokens")
    tune_sentence_end: bool = option(True, "tune the sentence-end threshold on held-out text (trains twice)")


class Tokenizer(Segmenter):
    """The linear tokenizer: boundary classifier, sentence-end threshold, multiword expander."""

    kind = "linear"
    options: TokenizerOptions

    def __init__(self, learner: LinearLearner, multiword: MultiwordExpander,
                 options: TokenizerOptions | None = None, training: dict | None = None,
                 sentence_threshold: float = 0.0, spaces_in_tokens: bool = False):
        super().__init__(multiword, sentence_threshold, spaces_in_tokens)
        self.learner = learner
        self.options = options or TokenizerOptions()
        self.training = training or {}
        # scores over the three labels, UNSEEN-free: a label never seen in training is impossible
        self._columns = [(int(label), k) for k, label in enumerate(learner.classes)]

    # ------------------------------------------------------------------ training
    @classmethod
    def train(cls, sentences: Iterable[Sentence], options: TokenizerOptions | None = None, seed: int = 1,
              log: Callable[[str], None] | None = _stderr, dev: Iterable[Sentence] | None = None) -> Tokenizer:
        """Learn token and sentence boundaries and multiword tokens from treebank sentences.

        ``dev`` is not read: the linear tokenizer has no epochs to choose, and tunes its
        sentence-end threshold on the end of the training text (:data:`HELD_OUT`). It is taken so
        that every kind of tokenizer trains through one call (the neural kind's
        :func:`~barley.tokenizer.neural_training.train_neural_tokenizer` stops early on it)."""
        options = options or TokenizerOptions()
        if not 1 <= options.bits <= MAX_BITS:
            raise BarleyError(f"the tokenizer's bits must be between 1 and {MAX_BITS}, not {options.bits}")
        if options.max_sentence_tokens < 2:  # a sentence is cut in its second half (:meth:`_bounded`)
            raise BarleyError(f"the tokenizer's max_sentence_tokens must be at least 2, not "
                              f"{options.max_sentence_tokens}")
        log = log or (lambda message: None)
        started = time.perf_counter()
        sentences = list(sentences)
        stats = TextStatistics()
        id_chunks, label_chunks = [], []
        characters = 0
        for paragraph in paragraphs(sentences, stats):
            encoded = features.encode(paragraph.text)
            solid = encoded[1][features.PAD:features.PAD + len(paragraph.text)] != features.SPACE
            id_chunks.append(features.extract(paragraph.text, options.bits, encoded)[solid])
            label_chunks.append(paragraph.labels[solid])
            characters += len(paragraph.text)
        labels = np.concatenate(label_chunks) if label_chunks else np.zeros(0, dtype=np.int8)
        log(f"tokenizer: {stats.sentences} sentences, {characters} characters, {len(labels)} non-space "
            f"({np.count_nonzero(labels == TOKEN_END)} token ends, {np.count_nonzero(labels == SENTENCE_END)} "
            f"sentence ends); paragraph marks: {', '.join(sorted(stats.marks)) or 'none (one paragraph)'}; "
            f"text rebuilt from the forms: {stats.without_text} without # text, "
            f"{stats.mismatched_text} with a # text the forms are not found in")
        X = rows_to_csr(id_chunks, 1 << options.bits)
        del id_chunks
        y = labels.astype(np.int64)
        threshold = 0.0
        held = int(len(y) * (1 - HELD_OUT))
        tune = options.tune_sentence_end and np.count_nonzero(y[held:] == SENTENCE_END) >= 10
        log(f"tokenizer: {'two liblinear fits (the first to tune the sentence-end threshold)' if tune else 'liblinear'}"
            f" on {len(y)} characters × {X.nnz // max(len(y), 1)} features (EWT's 830,000: about 40 CPU seconds)")
        if tune:
            probe = LinearLearner(solver=options.solver, C=options.C)
            probe.fit(X[:held], y[:held], n_classes=3, seed=seed)
            threshold, tuned, untuned = _sentence_threshold(probe, X[held:], y[held:])
            log(f"tokenizer: sentence-end threshold {threshold:+.3f} (held-out {HELD_OUT:.0%} of the text: "
                f"sentence-end F1 among the token ends {untuned:.2f} at 0, {tuned:.2f} tuned)")
        learner = LinearLearner(solver=options.solver, C=options.C)
        learner.fit(X, y, n_classes=3, seed=seed)
        del X
        multiword = MultiwordExpander.train(sentences)
        spaced, with_space, tokens = spaces_in_tokens(sentences)
        if spaced:
            log(f"tokenizer: {with_space} of {tokens} tokens hold a space: a token may go on across a single space")
        log(f"tokenizer: trained in {time.perf_counter() - started:.1f} s; "
            f"{int(learner.used_features().sum())} features with weights; "
            f"{len(multiword.expansions)} multiword forms, {len(multiword.rules)} multiword suffix rules")
        training = {"sentences": stats.sentences, "characters": characters,
                    "rebuilt_without_text": stats.without_text, "rebuilt_mismatched_text": stats.mismatched_text,
                    "paragraph_marks": sorted(stats.marks)}
        return cls(learner, multiword, options, training, threshold, spaced)

    def _character_scores(self, text: str, encoded: tuple[np.ndarray, np.ndarray],
                          solid: np.ndarray) -> np.ndarray:
        ids = features.extract(text, self.options.bits, encoded)[solid]
        sums = weight_sums(self.learner.weights, ids) + self.learner.bias
        scores = np.full((len(solid), 3), IMPOSSIBLE, dtype=np.float32)
        for label, column in self._columns:
            scores[:, label] = sums[:, column]
        return scores

    # ------------------------------------------------------------------ model files
    def to_arrays(self) -> tuple[dict, dict[str, np.ndarray]]:
        """JSON parameters and numpy arrays: everything a model file needs (no pickle)."""
        learner_params, arrays = self.learner.to_arrays()
        params = {"options": asdict(self.options), "learner": learner_params,
                  "multiword": self.multiword.to_json(), "training": self.training,
                  "sentence_threshold": self.sentence_threshold,
                  "feature_templates": features.N_TEMPLATES,
                  **({"spaces_in_tokens": True} if self.spaces_in_tokens else {})}
        return params, arrays

    @classmethod
    def from_arrays(cls, params: dict, arrays: dict[str, np.ndarray]) -> Tokenizer:
        """The tokenizer of :meth:`to_arrays`, each entry checked first (:mod:`barley.models.check`)."""
        if params.get("feature_templates") != features.N_TEMPLATES:
            raise ModelError("this tokenizer was trained with other character features",
                             fix="train the tokenizer again with this version of barley")
        options = check.options(TokenizerOptions, params["options"], "the tokenizer options")
        check.integer(options.bits, "the tokenizer's bits", low=1, high=MAX_BITS)
        check.integer(options.max_sentence_tokens, "the tokenizer's max_sentence_tokens", low=2)
        learner = LinearLearner.from_arrays(params["learner"], arrays, n_classes=3, n_features=1 << options.bits)
        return cls(learner, MultiwordExpander.from_json(params["multiword"]), options,
                   check.mapping(params["training"], "the tokenizer's training"),
                   check.number(params["sentence_threshold"], "the tokenizer's sentence_threshold"),
                   check.boolean(params.get("spaces_in_tokens", False), "the tokenizer's spaces_in_tokens"))


def _sentence_threshold(learner: LinearLearner, X, y: np.ndarray) -> tuple[float, float, float]:
    """The sentence-end threshold of the linear classifier on ``X`` (:func:`best_threshold`)."""
    sums = np.asarray(X @ learner.weights[:-1]) + learner.bias
    column = {int(label): k for k, label in enumerate(learner.classes)}
    if TOKEN_END not in column or SENTENCE_END not in column:
        return 0.0, 0.0, 0.0
    return best_threshold(sums[:, column[SENTENCE_END]] - sums[:, column[TOKEN_END]], y)
