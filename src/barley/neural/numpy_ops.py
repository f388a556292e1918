"""The operations of barley's neural networks in numpy: inference without PyTorch.

Small pure functions over arrays, each the eval-mode twin of a PyTorch layer (dropout is
the identity at inference), with weights in PyTorch's layouts (``nn.Linear``'s
``[out, in]``, ``nn.LSTM``'s gates ``i, f, g, o`` stacked in ``weight_ih`` / ``weight_hh``)
so that a model file's arrays are used as they are stored. They keep the dtype of their
inputs: give float32 weights and inputs, as the model files hold.

The LSTM reads a padded batch ``[batch, time, features]`` with each row's length; it
sorts the rows by length, so that the rows still running at step ``t`` are a prefix of
the batch (a slice, no mask), packs the real positions time-major (as PyTorch's
``PackedSequence``: no padding is computed) and projects the inputs of all time steps
with one matrix product before the loop (only the recurrent product ``h · W_hh`` is left
per step). The backward direction runs the same loop over each row reversed within its
length.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def embedding(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The rows of ``table`` at ``ids`` (any shape of ids; ``nn.Embedding``)."""
    return table[ids]


def linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """``x · weightᵀ + bias`` over the last axis (``nn.Linear``: ``weight`` is ``[out, in]``), as one
    matrix product over all leading axes (a stack of small products is half as fast)."""
    y = x.reshape(-1, x.shape[-1]) @ weight.T
    if bias is not None:
        y += bias
    return y.reshape(*x.shape[:-1], weight.shape[0])


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


def _time_index(lengths: np.ndarray, steps: int, reverse: bool) -> np.ndarray:
    """``[batch, steps]`` time indexes: ``t``, or reversing each row within its length (padding
    stays where it is) — an involution, so the same index puts reversed outputs back."""
    time = np.arange(steps)[None, :]
    if not reverse:
        return np.broadcast_to(time, (len(lengths), steps))
    return np.where(time < lengths[:, None], lengths[:, None] - 1 - time, time)


def lstm(inputs: np.ndarray, lengths: np.ndarray, weights: LSTMWeights, reverse: bool = False) -> np.ndarray:
    """One LSTM direction over a padded batch ``[batch, time, in]`` of rows with ``lengths``
    (each at least 1); outputs ``[batch, time, H]``, zero past each row's length (as
    ``pack_padded_sequence`` → ``nn.LSTM`` → ``pad_packed_sequence``, zero initial state)."""
    outputs, _, position, times = _run(inputs, lengths, weights, reverse, keep_outputs=True)
    assert outputs is not None
    return outputs[times, position[:, None]]


def lstm_final(inputs: np.ndarray, lengths: np.ndarray, weights: LSTMWeights, reverse: bool = False
               ) -> np.ndarray:
    """The state of :func:`lstm` after each row's last step (``nn.LSTM``'s ``h_n``), ``[batch, H]``:
    backwards, after the row's first element."""
    _, final, position, _ = _run(inputs, lengths, weights, reverse, keep_outputs=False)
    return final[position]


def _run(inputs: np.ndarray, lengths: np.ndarray, weights: LSTMWeights, reverse: bool, keep_outputs: bool
         ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, np.ndarray]:
    """The loop of :func:`lstm`: the outputs ``[time, batch, H]`` (if kept) and final states of the
    rows sorted by decreasing length, each row's place in that order, and the time indexes."""
    batch, steps, _ = inputs.shape
    hidden = weights.hidden
    order = np.argsort(-lengths, kind="stable")
    times = _time_index(lengths, steps, reverse)
    running = (lengths[order][None, :] > np.arange(steps)[:, None]).sum(axis=1)  # rows with length > t: a prefix
    # the real (time, row) pairs, rows by decreasing length, time-major (a step's rows contiguous), each row
    # reversed if need be: one gather, no padding; then every time step's input projection at once
    real = np.arange(batch)[None, :] < running[:, None]
    packed = inputs[np.broadcast_to(order[None, :], real.shape)[real], times[order].T[real]]
    projected = linear(packed, weights.weight_ih, weights.bias)
    starts = np.concatenate([[0], np.cumsum(running)])
    outputs = np.zeros((steps, batch, hidden), dtype=projected.dtype) if keep_outputs else None
    h = np.zeros((batch, hidden), dtype=projected.dtype)  # a row's state stays once its last step is done
    c = np.zeros((batch, hidden), dtype=projected.dtype)
    recurrent = weights.weight_hh.T
    for t in range(steps):
        k = running[t]
        gates = projected[starts[t]:starts[t + 1]]
        gates += h[:k] @ recurrent
        sigmoid(gates[:, :2 * hidden])           # input and forget gates
        np.tanh(gates[:, 2 * hidden:3 * hidden], out=gates[:, 2 * hidden:3 * hidden])  # the candidate
        sigmoid(gates[:, 3 * hidden:])           # the output gate
        cell = c[:k]
        cell *= gates[:, hidden:2 * hidden]
        cell += gates[:, :hidden] * gates[:, 2 * hidden:3 * hidden]
        np.tanh(cell, out=h[:k])
        h[:k] *= gates[:, 3 * hidden:]
        if outputs is not None:
            outputs[t, :k] = h[:k]
    position = np.empty_like(order)
    position[order] = np.arange(batch)  # where each row went in the sorted batch
    return outputs, h, position, times


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
    return np.concatenate([lstm_final(inputs, lengths, forward), lstm_final(inputs, lengths, backward, reverse=True)],
                          axis=-1)


def with_bias(x: np.ndarray) -> np.ndarray:
    """``[x; 1]`` along the last axis."""
    return np.concatenate([x, np.ones(x.shape[:-1] + (1,), dtype=x.dtype)], axis=-1)


def biaffine(x: np.ndarray, y: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Every pair: ``x [B, n, d] · W_o · y [B, m, e]ᵀ`` → ``[B, n, m, O]`` for ``weight [O, d, e]``
    (bias terms, when the layer has them, are already in ``x`` / ``y``: :func:`with_bias`)."""
    outputs, d, e = weight.shape
    xw = linear(x, weight.transpose(0, 2, 1).reshape(outputs * e, d))  # [B, n, O·e], one product
    xw = xw.reshape(*x.shape[:2], outputs, e).transpose(0, 2, 1, 3)   # [B, O, n, e]
    return np.matmul(xw, y.transpose(0, 2, 1)[:, None]).transpose(0, 2, 3, 1)


ALIGNED_ROWS = 1024
"""Rows of :func:`biaffine_aligned` at a time: its temporary ``[rows, O, e]`` stays small."""


def biaffine_aligned(x: np.ndarray, y: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Row-wise pairs: ``x_k · W_o · y_k`` for rows ``x, y [N, d]`` → ``[N, O]`` (e.g. the label
    scores of each word at its chosen head only)."""
    outputs, d, e = weight.shape
    flat = weight.transpose(1, 0, 2).reshape(d, outputs * e)
    scores = np.empty((len(x), outputs), dtype=np.result_type(x, weight))
    for start in range(0, len(x), ALIGNED_ROWS):
        xw = (x[start:start + ALIGNED_ROWS] @ flat).reshape(-1, outputs, e)  # one product per chunk
        np.einsum("noj,nj->no", xw, y[start:start + ALIGNED_ROWS], out=scores[start:start + ALIGNED_ROWS])
    return scores
