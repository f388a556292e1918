"""The neural transition scorer (Kiperwasser & Goldberg 2016, §5): an MLP with one hidden
layer over the concatenated BiLSTM vectors of the words at a position model's positions
(:mod:`barley.neural.positions`); an empty position contributes a learned padding vector.
Its outputs are the scores of the classes (move, label) of :class:`barley.transition.training.Classes`.

The hidden layer is computed the way Chen & Manning (2014, §4) and spaCy precompute it:
``W · [v_1; …; v_P] = Σ_p W_p · v_p``, so each word's contribution ``W_p · v`` at each
position p is computed once per sentence batch (:meth:`TransitionScorer.parts`) and a
configuration's hidden layer is a gather and a sum (:meth:`TransitionScorer.scores`).
"""

from __future__ import annotations

import torch
from torch import nn

from barley.neural.encoder import Encoder
from barley.neural.options import EncoderOptions, TransitionOptions


class TransitionScorer(nn.Module):
    def __init__(self, encoder_options: EncoderOptions, options: TransitionOptions, sizes: dict[str, int],
                 positions: int, classes: int):
        super().__init__()
        self.encoder = Encoder(encoder_options, sizes)
        width = encoder_options.output_dim
        self.positions = positions
        self.padding = nn.Parameter(torch.empty(positions, width).uniform_(-0.1, 0.1))
        self.hidden = nn.Linear(positions * width, options.hidden)
        self.output = nn.Linear(options.hidden, classes)
        self.dropout = nn.Dropout(encoder_options.dropout)

    def parts(self, vectors: torch.Tensor) -> torch.Tensor:
        """Each node's contribution to the hidden layer at each position: ``[nodes + 1, positions,
        hidden]`` from node vectors ``[nodes, width]``; the last row holds the padding vectors' (an
        empty position is node ``nodes``)."""
        weight = self.hidden.weight.view(self.hidden.out_features, self.positions, -1)
        parts = torch.einsum("nw,hpw->nph", vectors, weight)
        padding = torch.einsum("pw,hpw->ph", self.padding, weight)
        return torch.cat([parts, padding.unsqueeze(0)])

    def scores(self, parts: torch.Tensor, index: torch.Tensor, dropout: bool = False) -> torch.Tensor:
        """Class scores ``[configurations, classes]``; ``index [configurations, positions]``: the row
        of ``parts`` (the node, or the padding row) at each position."""
        hidden = torch.relu(parts[index, torch.arange(self.positions)].sum(1) + self.hidden.bias)
        return self.output(self.dropout(hidden) if dropout else hidden)

    def loss(self, parts: torch.Tensor, index: torch.Tensor, legal: torch.Tensor,
             target: torch.Tensor) -> torch.Tensor:
        """The mean over configurations of ``-log P(target)``: the probability of the set of target
        classes (the zero-cost actions of the dynamic oracle, or the static oracle's one action)
        among the legal ones."""
        scores = self.scores(parts, index, dropout=True).masked_fill(~legal, float("-inf"))
        target_scores = scores.masked_fill(~target, float("-inf"))
        return (scores.logsumexp(1) - target_scores.logsumexp(1)).mean()
