"""The numpy operations (:mod:`barley.neural.numpy_ops`) against the PyTorch layers they
replace at inference: the same outputs, to float32 rounding, on random weights and
padded batches of unequal lengths (unsorted, as the callers give them)."""

from __future__ import annotations

import numpy as np
import pytest

from barley.neural import numpy_ops as ops

torch = pytest.importorskip("torch", reason="the reference layers are PyTorch's")
from torch import nn  # noqa: E402
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence  # noqa: E402

TOLERANCE = dict(rtol=1e-4, atol=1e-5)


def _state(module: nn.Module, prefix: str) -> dict[str, np.ndarray]:
    return {f"{prefix}.{name}": value.detach().numpy() for name, value in module.state_dict().items()}


def _padded(rng: np.random.Generator, lengths: list[int], features: int) -> np.ndarray:
    x = rng.standard_normal((len(lengths), max(lengths), features)).astype(np.float32)
    for row, length in enumerate(lengths):
        x[row, length:] = 0.0
    return x


LENGTHS = [5, 1, 9, 3, 9, 2]


@pytest.mark.parametrize("layers", [1, 3])
def test_bilstm_matches_a_packed_torch_lstm(layers):
    torch.manual_seed(1)
    rng = np.random.default_rng(1)
    reference = nn.LSTM(7, 6, num_layers=layers, batch_first=True, bidirectional=True).eval()
    x = _padded(rng, LENGTHS, 7)
    lengths = torch.tensor(LENGTHS)
    with torch.no_grad():
        packed = pack_padded_sequence(torch.from_numpy(x), lengths, batch_first=True, enforce_sorted=False)
        outputs, (final, _) = reference(packed)
        expected, _ = pad_packed_sequence(outputs, batch_first=True)
    arrays = _state(reference, "lstm")
    weights = [(ops.LSTMWeights.of(arrays, "lstm", layer, False), ops.LSTMWeights.of(arrays, "lstm", layer, True))
               for layer in range(layers)]
    got = ops.bilstm(x, np.array(LENGTHS), weights)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected.numpy(), **TOLERANCE)
    if layers == 1:
        final_states = ops.bilstm_final(x, np.array(LENGTHS), *weights[0])
        np.testing.assert_allclose(final_states, torch.cat([final[0], final[1]], dim=-1).numpy(), **TOLERANCE)


def test_linear_mlp_and_log_softmax_match_torch():
    torch.manual_seed(2)
    layer = nn.Linear(8, 5)
    x = np.random.default_rng(2).standard_normal((3, 4, 8)).astype(np.float32)
    weight, bias = (value.detach().numpy() for value in (layer.weight, layer.bias))
    with torch.no_grad():
        expected = layer(torch.from_numpy(x))
        np.testing.assert_allclose(ops.linear(x, weight, bias), expected.numpy(), **TOLERANCE)
        np.testing.assert_allclose(ops.mlp(x, weight, bias), nn.functional.leaky_relu(expected, 0.1).numpy(),
                                   **TOLERANCE)
        masked = expected.clone()
        masked[..., 0] = float("-inf")
        got = ops.log_softmax(masked.numpy())
        np.testing.assert_allclose(got, masked.log_softmax(-1).numpy(), **TOLERANCE)
        assert np.isneginf(got[..., 0]).all()


def test_embedding_and_sigmoid():
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    ids = np.array([[3, 0], [1, 1]])
    assert ops.embedding(table, ids).tolist() == [[[9, 10, 11], [0, 1, 2]], [[3, 4, 5], [3, 4, 5]]]
    x = np.array([-1000.0, -2.0, 0.0, 2.0, 1000.0], dtype=np.float32)
    np.testing.assert_allclose(ops.sigmoid(x.copy()), torch.sigmoid(torch.from_numpy(x)).numpy(), **TOLERANCE)


def test_biaffine_all_pairs_and_aligned_match_the_torch_layer():
    from barley.neural.biaffine_model import Biaffine

    torch.manual_seed(3)
    layer = Biaffine(6, 4, bias_x=True, bias_y=True)
    with torch.no_grad():
        layer.weight.normal_()
    rng = np.random.default_rng(3)
    x, y = (rng.standard_normal((2, 5, 6)).astype(np.float32) for _ in range(2))
    weight = layer.weight.detach().numpy()
    with torch.no_grad():
        expected = layer(torch.from_numpy(x), torch.from_numpy(y)).numpy()
        aligned = layer.aligned(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    np.testing.assert_allclose(ops.biaffine(ops.with_bias(x), ops.with_bias(y), weight), expected, **TOLERANCE)
    got = ops.biaffine_aligned(ops.with_bias(x).reshape(10, 7), ops.with_bias(y).reshape(10, 7), weight)
    np.testing.assert_allclose(got, aligned.reshape(10, 4), **TOLERANCE)
