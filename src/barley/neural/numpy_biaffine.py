"""Dozat & Manning's biaffine scorer (:mod:`barley.neural.biaffine_model`) at inference, in numpy.

The arrays of the four MLPs and the two biaffine layers (:func:`biaffine_shapes`) are shared by
the ``biaffine`` kind and the joint network. :class:`NumpyBiaffine` is the ``biaffine`` kind's
whole network: the encoder (:class:`barley.neural.numpy_encoder.NumpyEncoder`), then the scores
the decoders read (:meth:`NumpyBiaffine.tree_scores`):

    score[h, d] = log P(h | d) + max_l log P(l | d, h)

in barley's ``[head, dependent]`` layout, with the best label of each pair: the head and label
of a word are chosen jointly, as the non-projective approximation's labelled moves need
(Björkelund & Kuhn, Figure 2), and as the graph-based parser's arcs carry their best label.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from barley.neural import numpy_ops as ops
from barley.neural.inputs import EncoderVocabularies, Padded
from barley.neural.numpy_encoder import NumpyEncoder, Shapes, linear_shapes
from barley.neural.options import BiaffineOptions, EncoderOptions

MLPS = ("arc_dep", "arc_head", "label_dep", "label_head")
"""The four MLPs (``Linear`` then ``LeakyReLU``; PyTorch's ``nn.Sequential`` names ``NAME.0``)."""
LABEL_CELLS = 1 << 26
"""Label scores computed at a time (256 MB of float32); see :meth:`NumpyBiaffine.tree_scores`."""


def biaffine_shapes(encoder: EncoderOptions, biaffine: BiaffineOptions, labels: int) -> Shapes:
    """The arrays of the scorer over an encoder's vectors: the MLPs and the biaffine layers (the arc
    layer with a bias on the head's side only, eq. 6; the label layer with both, eq. 7 and 8)."""
    shapes: Shapes = {}
    for name in MLPS:
        shapes.update(linear_shapes(f"{name}.0", encoder.output_dim,
                                    biaffine.arc_mlp if name.startswith("arc") else biaffine.label_mlp))
    shapes["arc_attention.weight"] = (1, biaffine.arc_mlp, biaffine.arc_mlp + 1)
    shapes["label_attention.weight"] = (labels, biaffine.label_mlp + 1, biaffine.label_mlp + 1)
    return shapes


HeadsOf = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""From a sentence's scores and best labels (:meth:`NumpyBiaffine.tree_scores`) to its heads."""


class NumpyBiaffine:
    """The ``biaffine`` kind's network in numpy over its (checked) arrays, PyTorch's names."""

    def __init__(self, encoder: EncoderOptions, vocabularies: EncoderVocabularies, weights: dict[str, np.ndarray]):
        self.encoder = NumpyEncoder(encoder, vocabularies, weights)
        self.mlps = {name: (weights[f"{name}.0.weight"], weights[f"{name}.0.bias"]) for name in MLPS}
        self.arc_weight = weights["arc_attention.weight"]
        self.label_weight = weights["label_attention.weight"]

    def tree_scores(self, padded: Padded, heads_of: HeadsOf | None = None) -> list[tuple]:
        """Per sentence: scores ``[head, dependent]`` over nodes 0..n (log P(h | d) + the best label's
        log P(l | d, h); -inf for self-loops and arcs into the root) and the best label of each pair.

        Only the best label of each pair is kept, so the label scores (batch × dependents × heads ×
        labels) are computed for as many dependents at a time as fit in :data:`LABEL_CELLS`: all of
        them for ordinary batches, a block at a time for a long sentence (1,000 words and 40 labels
        would otherwise take 160 MB per copy, 5,000 words 4 GB).

        With ``heads_of`` (confidence, UD's rules), each sentence's entry also holds its heads, its
        arc scores alone (log P(h | d), ``[head, dependent]``) and the scores of every label at the
        chosen heads (``[words, labels]``)."""
        vectors = self.encoder.vectors(padded)
        arc_dep, arc_head, label_dep, label_head = (ops.mlp(vectors, *self.mlps[name]) for name in MLPS)
        arc = ops.biaffine(arc_dep, ops.with_bias(arc_head), self.arc_weight)[..., 0]  # [B, dependent, head]
        sentences, longest = padded.mask.shape
        arc[~padded.mask[:, None, :] | np.eye(longest, dtype=bool)[None]] = -np.inf
        arc = ops.log_softmax(arc)
        label_dep, label_head = ops.with_bias(label_dep), ops.with_bias(label_head)
        best_score = np.empty_like(arc)
        best_label = np.empty(arc.shape, dtype=np.int64)
        step = max(1, LABEL_CELLS // (sentences * longest * len(self.label_weight)))
        for start in range(0, longest, step):
            scores = ops.log_softmax(ops.biaffine(label_dep[:, start:start + step], label_head, self.label_weight))
            best_label[:, start:start + step] = scores.argmax(-1)
            best_score[:, start:start + step] = np.take_along_axis(scores, best_label[:, start:start + step, :, None],
                                                                  -1)[..., 0]
        joint = (arc + best_score).transpose(0, 2, 1).astype(np.float64)  # [B, head, dependent]
        joint[:, :, 0] = -np.inf
        best_label = best_label.transpose(0, 2, 1)
        scored = [(joint[k, :n, :n], best_label[k, :n, :n]) for k, n in enumerate(padded.lengths.tolist())]
        if heads_of is None:
            return scored
        arc = arc.transpose(0, 2, 1).astype(np.float64)
        arc[:, :, 0] = -np.inf
        found = []
        for k, (n, (sentence_joint, sentence_best)) in enumerate(zip(padded.lengths.tolist(), scored)):
            heads = heads_of(sentence_joint, sentence_best)
            labels = ops.biaffine_aligned(label_dep[k, 1:n], label_head[k, np.asarray(heads[1:], dtype=np.int64)],
                                          self.label_weight)
            found.append((sentence_joint, sentence_best, heads, arc[k, :n, :n], labels.astype(np.float64)))
        return found
