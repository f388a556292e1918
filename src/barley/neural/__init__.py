"""Neural scorers (PyTorch, the optional extra ``barley[neural]``).

:mod:`barley.neural.encoder` turns sentences into BiLSTM vectors (Kiperwasser &
Goldberg 2016); :mod:`barley.neural.biaffine_model` scores arcs and labels from them
(Dozat & Manning 2017) and :mod:`barley.neural.biaffine` makes that a kind of parser
(:mod:`barley.kinds`) whose scores feed the existing graph decoders. Weights are
stored as numpy arrays in barley's model file, so loading runs no code (no
``torch.load``, no pickle).

Only :func:`require_torch` is imported without PyTorch: the kind's options and its
``barley info`` lines work without it, training and parsing say what to install.
"""

from __future__ import annotations

from barley.errors import BarleyError


def require_torch():
    """The ``torch`` module, or a clear error saying how to get it."""
    try:
        import torch
    except ImportError:
        raise BarleyError("the neural parsers need PyTorch, which is not installed",
                          fix="install PyTorch; the CPU build is enough (docs/install.md)") from None
    return torch
