"""The sentence encoder of :mod:`barley.neural.encoder` at inference, in numpy: no PyTorch.

Every neural model barley trains (the biaffine and neural transition parsers, the joint
network) reads its sentences with this encoder; its arrays keep PyTorch's state-dict
names (``encoder.form.weight``, ``encoder.lstm.weight_ih_l0``, …) so that a model file's
arrays are used as they are stored. :func:`encoder_shapes` says which arrays an encoder's
options imply and :func:`checked_weights` checks a file's arrays against such shapes
before any of them is read, so that no size in a manifest allocates anything.

:class:`NumpyEncoder` is :class:`barley.neural.encoder.Encoder`'s eval-mode twin: the
embeddings of the columns read (FEATS as the mean of its atoms' embeddings, as
``nn.EmbeddingBag(mode="mean")``; an empty bag is a zero vector), the character BiLSTM's
final states over each distinct form (remembered between batches), then the BiLSTM.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from barley.errors import ModelError
from barley.neural import numpy_ops as ops
from barley.neural.inputs import ID_COLUMNS, EncoderVocabularies, Padded
from barley.neural.options import EncoderOptions

Shapes = dict[str, tuple[int, ...]]
"""Array names (PyTorch's state-dict names) and their shapes."""

CHAR_CACHE_LIMIT = 200_000
"""Distinct forms whose character vectors :class:`NumpyEncoder` remembers between batches."""
CHAR_BATCH = 512
"""Forms run through the character model together (sorted by length)."""


def lstm_shapes(prefix: str, layers: int, inputs: int, hidden: int) -> Shapes:
    """The arrays of ``nn.LSTM(inputs, hidden, num_layers=layers, bidirectional=True)`` named ``prefix``."""
    shapes: Shapes = {}
    for layer in range(layers):
        for suffix in ("", "_reverse"):
            width = inputs if layer == 0 else 2 * hidden
            shapes.update({f"{prefix}.weight_ih_l{layer}{suffix}": (4 * hidden, width),
                           f"{prefix}.weight_hh_l{layer}{suffix}": (4 * hidden, hidden),
                           f"{prefix}.bias_ih_l{layer}{suffix}": (4 * hidden,),
                           f"{prefix}.bias_hh_l{layer}{suffix}": (4 * hidden,)})
    return shapes


def linear_shapes(prefix: str, inputs: int, outputs: int) -> Shapes:
    """The arrays of ``nn.Linear(inputs, outputs)`` named ``prefix``."""
    return {f"{prefix}.weight": (outputs, inputs), f"{prefix}.bias": (outputs,)}


def encoder_shapes(encoder: EncoderOptions, sizes: dict[str, int]) -> Shapes:
    """The arrays of an encoder with these options and vocabulary ``sizes`` (named ``encoder.…``)."""
    dims = encoder.input_dims
    shapes: Shapes = {f"encoder.{name}.weight": (sizes[name], dims[name]) for name in ID_COLUMNS if name in dims}
    if "feats" in dims:
        shapes["encoder.feats.weight"] = (sizes["feats"], encoder.feats_dim)
    shapes["encoder.char_embedding.weight"] = (sizes["chars"], encoder.char_dim)
    shapes.update(lstm_shapes("encoder.char_lstm", 1, encoder.char_dim, encoder.char_hidden))
    if encoder.characters == "add":
        shapes.update(linear_shapes("encoder.char_projection", 2 * encoder.char_hidden, encoder.form_dim))
    shapes.update(lstm_shapes("encoder.lstm", encoder.lstm_layers, sum(dims.values()), encoder.lstm_hidden))
    return shapes


def checked_weights(arrays: dict[str, np.ndarray], shapes: Shapes, path: str, network: str
                    ) -> dict[str, np.ndarray]:
    """The arrays ``weights.NAME`` of a model file, each as ``shapes`` says, float32 and finite,
    and no other; anything else is a :class:`ModelError` naming the ``network``."""
    weights = {name[len("weights."):]: array for name, array in arrays.items() if name.startswith("weights.")}
    problems = [f"unexpected array {name}" for name in sorted(set(weights) - set(shapes))]
    problems += [f"missing array {name}" for name in sorted(set(shapes) - set(weights))]
    for name in sorted(set(shapes) & set(weights)):
        array = weights[name]
        if array.dtype != np.float32 or array.shape != shapes[name]:
            problems.append(f"array {name} is {array.dtype} {array.shape}, not float32 {shapes[name]}")
        elif not np.isfinite(array).all():
            problems.append(f"array {name} holds a value that is not finite")
    if problems:
        raise ModelError(f"inconsistent {network}: {problems[0]}"
                         + (f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""),
                         path=path, fix="train the model again with this version of barley")
    return weights


def bilstm_layers(weights: dict[str, np.ndarray], prefix: str, layers: int
                  ) -> list[tuple[ops.LSTMWeights, ops.LSTMWeights]]:
    """The two directions of each layer of the BiLSTM named ``prefix``."""
    return [(ops.LSTMWeights.of(weights, prefix, layer, False), ops.LSTMWeights.of(weights, prefix, layer, True))
            for layer in range(layers)]


def embedding_bags(table: np.ndarray, atoms: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The mean of ``table``'s rows at each bag of ``atoms`` (bag k from ``offsets[k]`` to the next
    bag's start), ``[bags, dim]``; an empty bag is a zero row (``nn.EmbeddingBag(mode="mean")``)."""
    ends = np.append(offsets[1:], len(atoms))
    counts = ends - offsets
    out = np.zeros((len(offsets), table.shape[1]), dtype=table.dtype)
    full = counts > 0
    if full.any():  # the bags with atoms are contiguous runs of ``atoms``: one reduceat over their starts
        out[full] = np.add.reduceat(table[atoms], offsets[full], axis=0)
        out[full] /= counts[full, None].astype(table.dtype)
    return out


class NumpyEncoder:
    """An encoder's forward pass in numpy over its (checked) arrays: see the module docstring."""

    def __init__(self, options: EncoderOptions, vocabularies: EncoderVocabularies, weights: dict[str, np.ndarray]):
        self.options, self.vocabularies = options, vocabularies
        self.embeddings = {name: weights[f"encoder.{name}.weight"] for name in options.inputs}
        self.chars = weights["encoder.char_embedding.weight"]
        self.char_lstm = bilstm_layers(weights, "encoder.char_lstm", 1)[0]
        self.char_projection = (weights["encoder.char_projection.weight"], weights["encoder.char_projection.bias"]
                                ) if options.characters == "add" else None
        self.lstm = bilstm_layers(weights, "encoder.lstm", options.lstm_layers)
        self._char_vectors: dict[str, np.ndarray] = {}

    def _characters(self, padded: Padded) -> np.ndarray:
        """The character model's vector of each distinct form of the batch (computed once per form
        and remembered), plus a zero row for padding."""
        cache = self._char_vectors
        missing = sorted((word for word in padded.types if word not in cache), key=len)
        if len(cache) + len(missing) > CHAR_CACHE_LIMIT:
            cache.clear()
            missing = sorted(padded.types, key=len)
        for start in range(0, len(missing), CHAR_BATCH):  # forms of similar length: little padding
            forms = missing[start:start + CHAR_BATCH]
            chars, lengths = padded.characters(self.vocabularies, forms)
            final = ops.bilstm_final(ops.embedding(self.chars, chars), lengths, *self.char_lstm)
            if self.char_projection is not None:
                final = ops.linear(final, *self.char_projection)
            cache.update(zip(forms, final))
        width = 2 * self.char_lstm[0].hidden if self.char_projection is None else self.options.form_dim
        return np.stack([cache[word] for word in padded.types] + [np.zeros(width, np.float32)])

    def vectors(self, padded: Padded) -> np.ndarray:
        """Node vectors ``[batch, longest, 2 · lstm_hidden]`` (zero past each sentence's length)."""
        form = ops.embedding(self.embeddings["form"], padded.ids["form"])
        characters = self._characters(padded)[padded.word_type]
        parts = [form + characters] if self.char_projection is not None else [form, characters]
        for name in self.options.inputs:
            if name == "feats":
                feats = np.zeros(padded.mask.shape + (self.options.feats_dim,), dtype=np.float32)
                feats[padded.mask] = embedding_bags(self.embeddings["feats"], cast(np.ndarray, padded.feats),
                                                    cast(np.ndarray, padded.feats_offsets))
                parts.append(feats)
            elif name != "form":
                parts.append(ops.embedding(self.embeddings[name], padded.ids[name]))
        return ops.bilstm(np.concatenate(parts, axis=-1), padded.lengths, self.lstm)
