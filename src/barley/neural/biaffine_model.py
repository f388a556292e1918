"""The biaffine scorer of Dozat & Manning (2017, §3): arc and label scores from the encoder.

Four MLPs (LeakyReLU, dropout) reduce each node vector to a dependent and a head
representation, one pair for arcs and one for labels (§3.1: smaller, and free of
what the other task needs). A biaffine product scores every (dependent, head):

    s_arc[d, h]      = dep_d · U · head_h + head_h · u            (eq. 6: a head prior, no dependent term)
    s_label[d, h, l] = [dep_d; 1] · U_l · [head_h; 1]              (eq. 7 and 8 in one product)

Training minimises the cross-entropy of the gold head among all nodes and of the
gold label at the gold head. For decoding, :meth:`BiaffineModel.tree_scores` gives
the decoders ``log P(h | d) + max_l log P(l | d, h)`` in barley's ``[head, dependent]``
layout with the best label of each pair: the head and label of a word are chosen
jointly, as the non-projective approximation's labelled moves need (Björkelund &
Kuhn, Figure 2), and as the graph-based parser's arcs carry their best label.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from barley.neural.encoder import Batch, Encoder
from barley.neural.options import BiaffineOptions, EncoderOptions

LABEL_CELLS = 1 << 26
"""Label scores computed at a time when parsing (256 MB of float32); see :meth:`BiaffineModel.tree_scores`."""


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

    def tree_scores(self, batch: Batch, heads_of=None) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per sentence: scores ``[head, dependent]`` over nodes 0..n (log P(h | d) + the best label's
        log P(l | d, h); -inf for self-loops and arcs into the root) and the best label of each pair.

        Only the best label of each pair is kept, so the label scores (batch × dependents × heads ×
        labels) are computed for as many dependents at a time as fit in :data:`LABEL_CELLS`: all of
        them for ordinary batches, a block at a time for a long sentence (1,000 words and 40 labels
        would otherwise take 160 MB per copy, 5,000 words 4 GB).

        With ``heads_of`` (confidence: a function from a sentence's scores and best labels to its
        heads), each sentence's entry also holds its arc scores alone (log P(h | d), ``[head,
        dependent]``) and the scores of every label at the chosen heads (``[words, labels]``)."""
        vectors = self.encoder(batch)
        arc = self._arc_scores(vectors, batch.mask).log_softmax(-1)
        label_dep, label_head = self.label_dep(vectors), self.label_head(vectors)
        sentences, longest = label_dep.shape[:2]
        step = max(1, LABEL_CELLS // (sentences * longest * self.label_attention.weight.shape[0]))
        best = [self.label_attention(label_dep[:, start:start + step], label_head).log_softmax(-1).max(-1)
                for start in range(0, longest, step)]
        best_score, best_label = (torch.cat(parts, dim=1) for parts in zip(*best))
        joint = (arc + best_score).transpose(1, 2)  # [B, head, dependent]
        joint[:, :, 0] = float("-inf")
        joint = joint.double().cpu().numpy()
        best_label = best_label.transpose(1, 2).cpu().numpy()
        scored = [(joint[k, :n, :n], best_label[k, :n, :n]) for k, n in enumerate(batch.lengths.tolist())]
        if heads_of is None:
            return scored
        arc = arc.transpose(1, 2)
        arc[:, :, 0] = float("-inf")
        arc = arc.double().cpu().numpy()
        found = []
        for k, (n, (sentence_joint, sentence_best)) in enumerate(zip(batch.lengths.tolist(), scored)):
            heads = heads_of(sentence_joint, sentence_best)
            at_head = label_head[k, torch.from_numpy(np.asarray(heads[1:], dtype=np.int64)).to(label_head.device)]
            labels = self.label_attention.aligned(label_dep[k:k + 1, 1:n], at_head[None])[0]
            found.append((sentence_joint, sentence_best, heads, arc[k, :n, :n], labels.double().cpu().numpy()))
        return found
