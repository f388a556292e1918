"""Neural networks: trained with PyTorch (the optional extra ``barley[neural]``), run with numpy.

Training: :mod:`barley.neural.encoder` turns sentences into BiLSTM vectors (Kiperwasser &
Goldberg 2016); :mod:`barley.neural.biaffine_model` scores arcs and labels from them
(Dozat & Manning 2017), :mod:`barley.neural.transition_model` transitions, and
:mod:`barley.neural.joint_model` adds the tagging heads. Weights are stored as float32
arrays in barley's model file, so loading runs no code (no ``torch.load``, no pickle).

Parsing never imports PyTorch: :mod:`barley.neural.numpy_encoder`,
:mod:`barley.neural.numpy_biaffine` and the kinds' parsers (:mod:`barley.neural.biaffine_parser`,
:mod:`barley.neural.transition_parser`, :mod:`barley.neural.joint`) run the same networks over
the file's arrays with :mod:`barley.neural.numpy_ops`. :func:`require_torch` says what to
install when training needs PyTorch.
"""

from __future__ import annotations

from barley.errors import BarleyError


def require_torch():
    """The ``torch`` module, or a clear error saying how to get it."""
    try:
        import torch
    except ImportError:
        raise BarleyError("training a neural model needs PyTorch, which is not installed",
                          fix="install PyTorch; the CPU build is enough (docs/install.md)") from None
    return torch
