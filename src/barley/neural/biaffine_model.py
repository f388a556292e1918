"""The biaffine scorer of Dozat & Manning (2017, §3): arc and label scores from the encoder.

Four MLPs (LeakyReLU, dropout) reduce each node vector to a dependent and a head
representation, one pair for arcs and one for labels (§3.1: smaller, and free of
what the other task needs). A biaffine product scores every (dependent, head):

    s_arc[d, h]      = dep_d · U · head_h + head_h · u            (eq. 6: a head prior, no dependent term)
    s_label[d, h, l] = [dep_d; 1] · U_l · [head_h; 1]              (eq. 7 and 8 in one product)

Training minimises the cross-entropy of the gold head among all nodes and of the
gold label at the gold head. This module is for training (PyTorch); a trained network
parses with numpy (:mod:`barley.neural.numpy_biaffine`, the decoders' scores).
"""

from __future__ import annotations

import torch
from torch import nn

from barley.neural.encoder import Batch, Encoder
from barley.neural.options import BiaffineOptions, EncoderOptions

class MLP(nn.Sequential):
    def __init__(self, inputs: int, outputs: int, dropout: float):
        super().__init__(nn.Linear(inputs, outputs), nn.LeakyReLU(0.1), nn.Dropout(dropout))


class Biaffine(nn.Module):
    """``[x; 1] · W_o · [y; 1]`` for every output o (each bias term optional), zero-initialised (SuPar)."""

    def __init__(self, inputs: int, outputs: int, bias_x: bool, bias_y: bool):
        super().__init__()
        self.bias_x, self.bias_y = bias_x, bias_y
        self.weight = nn.Parameter(torch.zeros(outputs, inputs + bias_x, inputs + bias_y))

    def _with_bias(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.bias_x:
            x = torch.cat([x, torch.ones_like(x[..., :1])], dim=-1)
        if self.bias_y:
            y = torch.cat([y, torch.ones_like(y[..., :1])], dim=-1)
        return x, y

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """All pairs: x [B, n, d], y [B, m, d] → [B, n, m, outputs]."""
        x, y = self._with_bias(x, y)
        xw = torch.einsum("bxi,oij->boxj", x, self.weight)
        return torch.matmul(xw, y.transpose(1, 2).unsqueeze(1)).permute(0, 2, 3, 1)

    def aligned(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Position-wise pairs: x, y [B, n, d] → [B, n, outputs]."""
        x, y = self._with_bias(x, y)
        return torch.einsum("bti,oij,btj->bto", x, self.weight, y)


class BiaffineModel(nn.Module):
    def __init__(self, encoder_options: EncoderOptions, options: BiaffineOptions, sizes: dict[str, int],
                 labels: int):
        super().__init__()
        self.encoder = Encoder(encoder_options, sizes)
        width, dropout = encoder_options.output_dim, encoder_options.dropout
        self.arc_dep, self.arc_head = MLP(width, options.arc_mlp, dropout), MLP(width, options.arc_mlp, dropout)
        self.label_dep = MLP(width, options.label_mlp, dropout)
        self.label_head = MLP(width, options.label_mlp, dropout)
        self.arc_attention = Biaffine(options.arc_mlp, 1, bias_x=False, bias_y=True)
        self.label_attention = Biaffine(options.label_mlp, labels, bias_x=True, bias_y=True)

    def _arc_scores(self, vectors: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """[B, dependent, head], heads outside the sentence and self-loops at -inf."""
        arc = self.arc_attention(self.arc_dep(vectors), self.arc_head(vectors)).squeeze(-1)
        longest = arc.shape[1]
        invalid = ~mask[:, None, :] | torch.eye(longest, dtype=torch.bool, device=arc.device)[None]
        return arc.masked_fill(invalid, float("-inf"))

    def loss(self, batch: Batch, heads: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """Cross-entropy of the gold heads and of the gold labels at the gold heads, over the words
        (the root and padding excluded); ``heads``/``labels`` [B, longest], -1 where there is no word."""
        return self.parse_loss(self.encoder(batch), batch.mask, heads, labels)

    def parse_loss(self, vectors: torch.Tensor, mask: torch.Tensor, heads: torch.Tensor,
                   labels: torch.Tensor) -> torch.Tensor:
        """:meth:`loss` from the encoder's ``vectors``."""
        words = heads >= 0
        arc = self._arc_scores(vectors, mask)[words]
        gold_heads = heads[words]
        label_head = self.label_head(vectors)
        at_head = label_head[torch.arange(len(heads), device=heads.device)[:, None], heads.clamp(min=0)]
        label = self.label_attention.aligned(self.label_dep(vectors), at_head)[words]
        return (nn.functional.cross_entropy(arc, gold_heads)
                + nn.functional.cross_entropy(label, labels[words]))
