"""The operations of barley's neural networks in numpy: inference without PyTorch.

Small pure functions over arrays, each the eval-mode twin of a PyTorch layer (dropout is
the identity at inference), with weights in PyTorch's layouts (``nn.Linear``'s
``[out, in]``, ``nn.LSTM``'s gates ``i, f, g, o`` stacked in ``weight_ih`` / ``weight_hh``)
so that a model file's arrays are used as they are stored. They keep the dtype of their
inputs: give float32 weights and inputs, as the model files hold.

The LSTM reads a padded batch ``[batch, time, features]`` with each row's length; it
sorts the rows by length, so that the rows still running at step ``t`` are a prefix of
the batch (a slice, no mask), and projects the inputs of all time steps with one matrix
product before the loop (only the recurrent product ``h · W_hh`` is left per step). The
backward direction runs the same loop over each row reversed within its length.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def embedding(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The rows of ``table`` at ``ids`` (any shape of ids; ``nn.Embedding``)."""
    return table[ids]


def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """``x · weightᵀ + bias`` over the last axis (``nn.Linear``: ``weight`` is ``[out, in]``)."""
    y = x @ weight.T
    if bias is not None:
        y += bias
    return y


def leaky_relu(x: np.ndarray, slope: float = 0.1) -> np.ndarray:
    """``max(x, slope · x)`` for ``0 <= slope <= 1`` (``nn.LeakyReLU``), in place."""
    return np.maximum(x, slope * x, out=x)


def mlp(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, slope: float = 0.1) -> np.ndarray:
    """One hidden layer with a leaky ReLU (``Linear`` then ``LeakyReLU(slope)``)."""
    return leaky_relu(linear(x, weight, bias), slope)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """The logistic function, in place, as ``(1 + tanh(x / 2)) / 2``: no overflow for large ``|x|``."""
    x *= 0.5
    np.tanh(x, out=x)
    x += 1.0
    x *= 0.5
    return x


def log_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """``x - log Σ exp(x)`` along ``axis``; ``-inf`` entries stay ``-inf`` (masked choices)."""
    top = np.max(x, axis=axis, keepdims=True)
    shifted = x - top
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


@dataclass(frozen=True)
class LSTMWeights:
    """One direction of one LSTM layer: ``weight_ih [4H, in]``, ``weight_hh [4H, H]`` and the two
    biases summed (``nn.LSTM``'s ``bias_ih + bias_hh``)."""

    weight_ih: np.ndarray
    weight_hh: np.ndarray
    bias: np.ndarray

    @classmethod
    def of(cls, arrays: dict[str, np.ndarray], prefix: str, layer: int, reverse: bool) -> LSTMWeights:
        """From a state dict of ``nn.LSTM`` named ``prefix`` (e.g. ``encoder.lstm``)."""
        suffix = f"_l{layer}" + ("_reverse" if reverse else "")
        return cls(arrays[f"{prefix}.weight_ih{suffix}"], arrays[f"{prefix}.weight_hh{suffix}"],
                   arrays[f"{prefix}.bias_ih{suffix}"] + arrays[f"{prefix}.bias_hh{suffix}"])

    @property
    def hidden(self) -> int:
        return self.weight_hh.shape[1]


def _reversal(lengths: np.ndarray, steps: int) -> np.ndarray:
    """``[steps, batch]`` time indexes that reverse each row within its length (padding stays):
    an involution, so the same index puts the outputs back."""
    time = np.arange(steps)[:, None]
    return np.where(time < lengths[None, :], lengths[None, :] - 1 - time, time)


def lstm(inputs: np.ndarray, lengths: np.ndarray, weights: LSTMWeights, reverse: bool = False) -> np.ndarray:
    """One LSTM direction over a padded batch ``[batch, time, in]`` of rows with ``lengths``
    (each at least 1); outputs ``[batch, time, H]``, zero past each row's length (as
    ``pack_padded_sequence`` → ``nn.LSTM`` → ``pad_packed_sequence``, zero initial state)."""
    batch, steps, _ = inputs.shape
    hidden = weights.hidden
    order = np.argsort(-lengths, kind="stable")
    lengths = lengths[order]
    # every time step's input projection at once, time-major so that a step's rows are contiguous
    projected = linear(inputs[order].transpose(1, 0, 2), weights.weight_ih, weights.bias)
    columns = np.arange(batch)
    if reverse:
        projected = projected[_reversal(lengths, steps), columns]
    running = (lengths[None, :] > np.arange(steps)[:, None]).sum(axis=1)  # rows with length > t: a prefix
    outputs = np.zeros((steps, batch, hidden), dtype=projected.dtype)
    h = np.zeros((batch, hidden), dtype=projected.dtype)
    c = np.zeros((batch, hidden), dtype=projected.dtype)
    recurrent = weights.weight_hh.T
    for t in range(steps):
        k = running[t]
        gates = projected[t, :k]
        gates += h[:k] @ recurrent
        sigmoid(gates[:, :2 * hidden])           # input and forget gates
        np.tanh(gates[:, 2 * hidden:3 * hidden], out=gates[:, 2 * hidden:3 * hidden])  # the candidate
        sigmoid(gates[:, 3 * hidden:])           # the output gate
        cell = c[:k]
        cell *= gates[:, hidden:2 * hidden]
        cell += gates[:, :hidden] * gates[:, 2 * hidden:3 * hidden]
        np.tanh(cell, out=h[:k])
        h[:k] *= gates[:, 3 * hidden:]
        outputs[t, :k] = h[:k]
    if reverse:
        outputs = outputs[_reversal(lengths, steps), columns]
    unsorted = np.empty_like(outputs)
    unsorted[:, order] = outputs
    return unsorted.transpose(1, 0, 2)


def bilstm(inputs: np.ndarray, lengths: np.ndarray,
           layers: Sequence[tuple[LSTMWeights, LSTMWeights]]) -> np.ndarray:
    """A multi-layer bidirectional LSTM (``nn.LSTM(bidirectional=True)``): each layer's forward
    and backward outputs concatenated, ``[batch, time, 2H]``, feed the next layer."""
    for forward, backward in layers:
        inputs = np.concatenate([lstm(inputs, lengths, forward), lstm(inputs, lengths, backward, reverse=True)],
                                axis=-1)
    return inputs


def bilstm_final(inputs: np.ndarray, lengths: np.ndarray, forward: LSTMWeights,
                 backward: LSTMWeights) -> np.ndarray:
    """The final states of a one-layer BiLSTM, ``[batch, 2H]``: the forward direction's after the
    last element and the backward direction's after the first (``nn.LSTM``'s ``h_n``)."""
    rows = np.arange(len(lengths))
    return np.concatenate([lstm(inputs, lengths, forward)[rows, lengths - 1],
                           lstm(inputs, lengths, backward, reverse=True)[:, 0]], axis=-1)


def with_bias(x: np.ndarray) -> np.ndarray:
    """``[x; 1]`` along the last axis."""
    return np.concatenate([x, np.ones(x.shape[:-1] + (1,), dtype=x.dtype)], axis=-1)


def biaffine(x: np.ndarray, y: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Every pair: ``x [B, n, d] · W_o · y [B, m, e]ᵀ`` → ``[B, n, m, O]`` for ``weight [O, d, e]``
    (bias terms, when the layer has them, are already in ``x`` / ``y``: :func:`with_bias`)."""
    xw = np.einsum("bxi,oij->boxj", x, weight)
    return np.matmul(xw, y.transpose(0, 2, 1)[:, None]).transpose(0, 2, 3, 1)


def biaffine_aligned(x: np.ndarray, y: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Row-wise pairs: ``x_k · W_o · y_k`` for rows ``x, y [N, d]`` → ``[N, O]`` (e.g. the label
    scores of each word at its chosen head only)."""
    xw = np.tensordot(x, weight, axes=([1], [1]))  # [N, O, e]
    return np.matmul(xw, y[:, :, None])[..., 0]
