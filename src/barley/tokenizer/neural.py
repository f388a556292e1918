"""The neural tokenizer: a character BiLSTM labels every character (as UDPipe 2's and Stanza's
segmenters do), parsing with numpy alone.

Every character of the text is read as three ids (:func:`character_inputs`): its
lower-cased code point (characters seen fewer than ``min_char_count`` times in training
share one unknown id); its class (upper-case letter, lower-case letter, digit,
punctuation, symbol, space, other, line break: the case and kind of a character, what a
sentence end turns on); and the whitespace-delimited chunk it is part of, lower-cased
(``mr.``, ``etc.)``, ``ankara'ya``, by a hash: chunks seen fewer than ``min_chunk_count`` times share
the unknown id, and so does whitespace), which lets a small network remember the
abbreviations and clitics of the training text as the linear tokenizer's word features
do. Their embeddings, concatenated, feed a bidirectional LSTM whose outputs a linear layer turns
into the scores of the three labels of :mod:`.treebank_text` (INSIDE, TOKEN_END,
SENTENCE_END), one softmax over the three — the tokenizer of Qi et al. (2018, "Universal
Dependency Parsing from Scratch", CoNLL shared task: Stanza's, a BiLSTM over characters
with per-character boundary labels) without its convolutions and second, sentence-level
LSTM: a smaller network, since its LSTM steps are most of the tokenizing time.

Everything around the scores is :class:`~barley.tokenizer.Segmenter`'s, as for the
linear tokenizer: blocks of at most ``BLOCK_CHARS`` characters, whitespace and
paragraph breaks forcing token and sentence ends, bounded tokens and sentences, the
multiword-token expander (:mod:`.multiword`, trained the same way) and the exact
whitespace (:mod:`.spaces`). A block is read in windows of ``window`` characters
(:func:`windows`): window k decides the characters ``[k·S, (k+1)·S)`` (``S = window -
2·context``) and reads ``context`` characters on each side of them, so that every
decision sees at least ``context`` characters both ways (except at the ends of a
block); all windows have the same length, so they run through the LSTM as one batch,
and memory is bounded by the block.

Training (:func:`barley.tokenizer.neural_training.train_neural_tokenizer`) needs PyTorch; tokenizing runs the network in numpy
(:mod:`barley.neural.numpy_ops`) over the arrays of the model file, which loading
checks against the manifest (names, dtypes, shapes, finite values) and never executes.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

import numpy as np

from barley.errors import BarleyError, ModelError
from barley.models import check
from barley.option import option
from barley.neural import numpy_ops
from barley.tokenizer import features
from barley.tokenizer.segmenter import Segmenter
from barley.tokenizer.multiword import MultiwordExpander

UNKNOWN = 0  # the id of every character (chunk) not in the vocabulary
LINE_BREAK = features.BORDER  # the class of whitespace that breaks a line (features.encode's BORDER is padding only)
N_CLASSES = LINE_BREAK + 1
_LINE_BREAKS = np.array([ord(c) for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"], dtype=np.uint64)
_HASH_BASE = np.uint64(0x100000001B3)  # the FNV prime: odd
_HASH_INVERSE = np.uint64(pow(int(_HASH_BASE), -1, 1 << 64))
INPUTS = ("characters", "classes", "chunks")
"""The columns of :func:`character_inputs`, each embedded by the network's table of that name."""
WINDOWS_AT_ONCE = 64  # windows run through the LSTM together: bounded memory, few numpy calls per character


@dataclass
class NeuralTokenizerOptions:
    """The neural tokenizer's options, each a ``barley train --tokenizer-NAME`` option declared here
    (:func:`barley.option.option`; ``max_sentence_tokens`` is declared by the linear kind's)."""

    char_dim: int = option(32, "embedding size of a lower-cased character")
    class_dim: int = option(8, "embedding size of a character's class")
    chunk_dim: int = option(16, "embedding size of the whitespace-delimited chunk a character is in")
    hidden: int = option(64, "LSTM units per direction")
    layers: int = option(1, "BiLSTM layers")
    window: int = option(256, "characters the LSTM reads at a time (training and tokenizing)")
    context: int = option(32, "characters on each side of a window that only give context when tokenizing")
    dropout: float = option(0.2, "dropout")
    min_char_count: int = option(2, "rarer characters share the unknown id")
    min_chunk_count: int = option(2, "rarer chunks share the unknown id")
    epochs: int = option(30, "most training epochs")
    patience: int = option(5, "epochs without a better dev score (Tokens F1 + Sentences F1) before training stops")
    batch_windows: int = option(32, "windows per minibatch")
    learning_rate: float = option(0.002, "Adam's learning rate")
    threads: int = option(1, "PyTorch CPU threads when training (the same seed and threads give the same model)")
    max_sentence_tokens: int = 250

    def check(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise BarleyError(f"neural tokenizer option {field.name} must be a number, not {value!r}")
        positive = ["char_dim", "class_dim", "chunk_dim", "hidden", "layers", "window", "min_char_count",
                    "min_chunk_count", "epochs", "patience", "batch_windows", "threads", "max_sentence_tokens"]
        for name in positive:
            if getattr(self, name) < 1 or getattr(self, name) != int(getattr(self, name)):
                raise BarleyError(f"neural tokenizer option {name} must be a whole number ≥ 1, "
                                  f"not {getattr(self, name)}")
        if not 0 <= self.context or 2 * self.context >= self.window:
            raise BarleyError(f"neural tokenizer: context {self.context} must be ≥ 0 and less than half the "
                              f"window ({self.window})", fix="give a smaller context or a larger window")
        if not 0 <= self.dropout < 1 or not self.learning_rate > 0:
            raise BarleyError("neural tokenizer: dropout must be in [0, 1) and the learning rate > 0")


def _ids(values: np.ndarray, vocabulary: np.ndarray) -> np.ndarray:
    """The id of each value in the sorted ``vocabulary`` (index + 1), UNKNOWN where it is not there."""
    found = np.searchsorted(vocabulary, values)
    known = found < len(vocabulary)
    known[known] = vocabulary[found[known]] == values[known]
    return np.where(known, found + 1, UNKNOWN)


def chunk_hashes(codes: np.ndarray, space: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The whitespace-delimited chunks of a text (``codes``: its lower-cased code points,
    ``space``: its whitespace mask): their starts, ends and a 64-bit hash of each.

    The hash is polynomial, ``Σ code_k · P^k`` over the chunk's characters modulo 2^64, so
    that all chunks are hashed at once from prefix sums: ``(S[end] - S[start]) · P^-start``
    (P is odd, hence invertible modulo 2^64; numpy's uint64 arithmetic wraps).
    """
    edges = np.diff(np.r_[False, ~space, False].astype(np.int8))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    powers = np.empty(len(codes) + 1, dtype=np.uint64)
    powers[0] = 1
    np.multiply.accumulate(np.full(len(codes), _HASH_BASE, dtype=np.uint64), out=powers[1:])
    inverses = np.empty(len(codes) + 1, dtype=np.uint64)
    inverses[0] = 1
    np.multiply.accumulate(np.full(len(codes), _HASH_INVERSE, dtype=np.uint64), out=inverses[1:])
    sums = np.zeros(len(codes) + 1, dtype=np.uint64)
    np.cumsum(codes.astype(np.uint64) * powers[:-1], out=sums[1:])
    return starts, ends, (sums[ends] - sums[starts]) * inverses[starts]


def character_inputs(text: str, encoded: tuple[np.ndarray, np.ndarray], characters: np.ndarray,
                     chunks: np.ndarray) -> np.ndarray:
    """The network's inputs for every character of ``text`` (``n × 3``, int64, :data:`INPUTS`):
    its id in ``characters`` (the sorted lower-cased code points of the vocabulary), its
    class (:mod:`.features`' classes, LINE_BREAK for whitespace that breaks a line) and the
    id of its chunk in ``chunks`` (the sorted :func:`chunk_hashes` of the known chunks). ``encoded`` is
    :func:`features.encode` of ``text``."""
    n = len(text)
    codes, classes = (array[features.PAD:features.PAD + n] for array in encoded)
    inputs = np.zeros((n, len(INPUTS)), dtype=np.int64)
    inputs[:, 0] = _ids(codes, characters)
    raw = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    inputs[:, 1] = np.where(np.isin(raw, _LINE_BREAKS), LINE_BREAK, classes)
    starts, ends, hashes = chunk_hashes(codes, classes == features.SPACE)
    inside = np.repeat(np.arange(len(starts)), ends - starts)
    inputs[np.flatnonzero(classes != features.SPACE), 2] = _ids(hashes, chunks)[inside]
    return inputs


def windows(n: int, window: int, context: int) -> tuple[np.ndarray, np.ndarray, int]:
    """How ``n`` characters are read: the start of every window (each ``min(window, n)`` long)
    and, for every character, the window that decides it and its offset there.

    Window k decides characters ``[k·S, (k+1)·S)``, ``S = window - 2·context``, and starts
    ``context`` characters before them, moved inwards at the ends of the text so that it
    stays whole. Returns ``(starts, decided_by, length)`` with ``decided_by`` the index
    into the flattened ``[windows, length]`` outputs of every character.
    """
    length = min(window, n)
    span = window - 2 * context
    count = 1 if n <= window else math.ceil(n / span)
    starts = np.clip(np.arange(count) * span - context, 0, n - length)
    position = np.arange(n)
    owner = np.minimum(position // span, count - 1)
    decided_by = owner * length + (position - starts[owner])
    return starts, decided_by, length


class CharacterNetwork:
    """The network's weights as numpy arrays (PyTorch's names and layouts), run with
    :mod:`barley.neural.numpy_ops`: character and class embeddings → BiLSTM → linear."""

    def __init__(self, arrays: dict[str, np.ndarray], options: NeuralTokenizerOptions):
        self.arrays = arrays
        self.options = options
        self.layers = [(numpy_ops.LSTMWeights.of(arrays, "weights.lstm", layer, False),
                        numpy_ops.LSTMWeights.of(arrays, "weights.lstm", layer, True))
                       for layer in range(options.layers)]

    def scores(self, inputs: np.ndarray) -> np.ndarray:
        """The scores (n × 3, float32) of every character, given its :func:`character_inputs`."""
        starts, decided_by, length = windows(len(inputs), self.options.window, self.options.context)
        outputs = np.empty((len(starts), length, 3), dtype=np.float32)
        offsets = np.arange(length)
        for first in range(0, len(starts), WINDOWS_AT_ONCE):
            index = starts[first:first + WINDOWS_AT_ONCE, None] + offsets
            outputs[first:first + len(index)] = self.window_scores(inputs[index])
        return outputs.reshape(-1, 3)[decided_by]

    def window_scores(self, inputs: np.ndarray) -> np.ndarray:
        """Scores ``[windows, length, 3]`` of windows of inputs ``[windows, length, 3]``."""
        embedded = np.concatenate([numpy_ops.embedding(self.arrays[f"weights.{name}.weight"], inputs[..., k])
                                   for k, name in enumerate(INPUTS)], axis=-1)
        lengths = np.full(len(inputs), inputs.shape[1])
        hidden = numpy_ops.bilstm(embedded, lengths, self.layers)
        return numpy_ops.linear(hidden, self.arrays["weights.output.weight"], self.arrays["weights.output.bias"])


def weight_shapes(options: NeuralTokenizerOptions, characters: int, chunks: int) -> dict[str, tuple[int, ...]]:
    """The name and shape of every array of the network (PyTorch's ``state_dict`` names
    under ``weights.``), for ``characters`` known characters and ``chunks`` known chunks."""
    shapes: dict[str, tuple[int, ...]] = {"weights.characters.weight": (characters + 1, options.char_dim),
              "weights.classes.weight": (N_CLASSES, options.class_dim),
              "weights.chunks.weight": (chunks + 1, options.chunk_dim)}
    gates = 4 * options.hidden
    for layer in range(options.layers):
        inputs = options.char_dim + options.class_dim + options.chunk_dim if layer == 0 else 2 * options.hidden
        for suffix in (f"_l{layer}", f"_l{layer}_reverse"):
            shapes.update({f"weights.lstm.weight_ih{suffix}": (gates, inputs),
                           f"weights.lstm.weight_hh{suffix}": (gates, options.hidden),
                           f"weights.lstm.bias_ih{suffix}": (gates,), f"weights.lstm.bias_hh{suffix}": (gates,)})
    shapes.update({"weights.output.weight": (3, 2 * options.hidden), "weights.output.bias": (3,)})
    return shapes


class NeuralTokenizer(Segmenter):
    """The character BiLSTM tokenizer: vocabulary, network, sentence-end threshold, multiword expander."""

    kind = "neural"
    options: NeuralTokenizerOptions

    def __init__(self, characters: np.ndarray, chunks: np.ndarray, network: CharacterNetwork,
                 multiword: MultiwordExpander, options: NeuralTokenizerOptions, training: dict | None = None,
                 sentence_threshold: float = 0.0, spaces_in_tokens: bool = False):
        super().__init__(multiword, sentence_threshold, spaces_in_tokens)
        self.characters = characters  # sorted lower-cased code points (uint32); character id = index + 1
        self.chunks = chunks  # sorted hashes of the known chunks (uint64); chunk id = index + 1
        self.network = network
        self.options = options
        self.training = training or {}

    def _character_scores(self, text: str, encoded: tuple[np.ndarray, np.ndarray],
                          solid: np.ndarray) -> np.ndarray:
        return self.network.scores(character_inputs(text, encoded, self.characters, self.chunks))[solid]

    # ------------------------------------------------------------------ model files
    def to_arrays(self) -> tuple[dict, dict[str, np.ndarray]]:
        params = {"kind": self.kind, "options": asdict(self.options), "multiword": self.multiword.to_json(),
                  "training": self.training, "sentence_threshold": self.sentence_threshold,
                  "classes": N_CLASSES, **({"spaces_in_tokens": True} if self.spaces_in_tokens else {})}
        return params, {"characters": self.characters, "chunks": self.chunks, **self.network.arrays}

    @classmethod
    def from_arrays(cls, params: dict, arrays: dict[str, np.ndarray]) -> NeuralTokenizer:
        """The tokenizer a model file holds, its arrays checked against its manifest."""
        if params.get("classes") != N_CLASSES:
            raise ModelError("this neural tokenizer was trained with other character classes",
                             fix="train the tokenizer again with this version of barley")
        try:
            options = check.options(NeuralTokenizerOptions, params["options"], "the neural tokenizer's options")
            options.check()
        except (TypeError, BarleyError) as error:
            raise ModelError(f"the neural tokenizer's options are damaged ({error})",
                             fix="train the tokenizer again") from None
        characters = _checked_vocabulary(arrays.get("characters"), "character", np.uint32)
        if len(characters) and int(characters[-1]) > 0x10FFFF:
            raise ModelError("the neural tokenizer's character table holds a code point beyond Unicode",
                             fix="train the tokenizer again")
        chunks = _checked_vocabulary(arrays.get("chunks"), "chunk", np.uint64)
        weights = {name: value for name, value in arrays.items() if name not in ("characters", "chunks")}
        _check_weights(weights, weight_shapes(options, len(characters), len(chunks)))
        threshold = params["sentence_threshold"]
        if not isinstance(threshold, (int, float)) or not math.isfinite(threshold):
            raise ModelError(f"the neural tokenizer's sentence-end threshold is not a number: {threshold!r}")
        spaced = params.get("spaces_in_tokens", False)
        if not isinstance(spaced, bool):
            raise ModelError(f"the neural tokenizer's spaces_in_tokens is not true or false: {spaced!r}")
        return cls(characters, chunks, CharacterNetwork(weights, options), MultiwordExpander.from_json(params["multiword"]),
                   options, params["training"], float(threshold), spaced)


def _checked_vocabulary(values, what: str, dtype: type) -> np.ndarray:
    """A vocabulary array as the ids need it: a vector of ``dtype``, strictly increasing."""
    if not isinstance(values, np.ndarray) or values.dtype != dtype or values.ndim != 1:
        raise ModelError(f"the neural tokenizer's {what} table is missing or not a {np.dtype(dtype)} vector",
                         fix="train the tokenizer again")
    if len(values) > 1 and not np.all(values[1:] > values[:-1]):
        raise ModelError(f"the neural tokenizer's {what} table is not sorted", fix="train the tokenizer again")
    return values


def _check_weights(weights: dict[str, np.ndarray], shapes: dict[str, tuple[int, ...]]) -> None:
    """Every weight the manifest's sizes call for, float32, of its shape, finite; no other."""
    missing, extra = sorted(set(shapes) - set(weights)), sorted(set(weights) - set(shapes))
    if missing or extra:
        raise ModelError(f"the neural tokenizer's arrays do not match its manifest (missing: "
                         f"{', '.join(missing) or 'none'}; unexpected: {', '.join(extra) or 'none'})",
                         fix="train the tokenizer again")
    for name, shape in shapes.items():
        value = weights[name]
        if value.dtype != np.float32 or value.shape != shape:
            raise ModelError(f"the neural tokenizer's array {name} is {value.dtype} {value.shape}, "
                             f"not float32 {shape}", fix="train the tokenizer again")
        if not np.isfinite(value).all():
            raise ModelError(f"the neural tokenizer's array {name} holds values that are not finite",
                             fix="train the tokenizer again")
