"""The joint network in PyTorch, for training: the biaffine parser's encoder and scorer
(:class:`barley.neural.biaffine_model.BiaffineModel`, reading the form only) plus a linear
layer per tagging head (:data:`barley.neural.joint.HEADS`); one loss, the heads' sum
(UDPipe 2, Straka 2018 §3)."""

from __future__ import annotations

import torch
from torch import nn

from barley.neural.biaffine_model import BiaffineModel
from barley.neural.encoder import Batch
from barley.neural.joint import JointOutputs
from barley.neural.options import BiaffineOptions, EncoderOptions


class JointModel(BiaffineModel):
    def __init__(self, encoder_options: EncoderOptions, options: BiaffineOptions, sizes: dict[str, int],
                 labels: int, tag_sizes: dict[str, int]):
        super().__init__(encoder_options, options, sizes, labels)
        self.tags = nn.ModuleDict({name: nn.Linear(encoder_options.output_dim, size)
                                   for name, size in tag_sizes.items()})

    def loss(self, batch: Batch, heads: torch.Tensor, labels: torch.Tensor,
             tags: dict[str, torch.Tensor]) -> torch.Tensor:
        """The parser's loss (:meth:`BiaffineModel.parse_loss`) plus each tagging head's cross-entropy
        over the words; ``tags``: each head's gold classes [B, longest], -1 where there is no word."""
        vectors = self.encoder(batch)
        words = heads >= 0
        total = self.parse_loss(vectors, batch.mask, heads, labels)
        at_words = vectors[words]
        for name, layer in self.tags.items():
            total = total + nn.functional.cross_entropy(layer(at_words), tags[name][words])
        return total

    @torch.inference_mode()
    def outputs(self, batch: Batch) -> JointOutputs:
        """The numpy engine's outputs (:class:`barley.neural.joint.NumpyJoint`), from PyTorch (eval mode)."""
        vectors = self.encoder(batch)

        def array(tensor: torch.Tensor):
            return tensor.detach().cpu().numpy()

        at_words = vectors[:, 1:][batch.mask[:, 1:]]
        return JointOutputs({name: array(layer(at_words)) for name, layer in self.tags.items()},
                            array(self._arc_scores(vectors, batch.mask)), array(self.label_dep(vectors)),
                            array(self.label_head(vectors)), array(self.label_attention.weight))
