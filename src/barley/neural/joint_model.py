"""The joint network in PyTorch, for training: the biaffine parser's encoder and scorer
(:class:`barley.neural.biaffine_model.BiaffineModel`, reading the form only) plus a linear
layer per tagging head (:data:`barley.neural.joint_tables.HEADS`) on the shared encoder, and
``parser_layers`` BiLSTM layers of the parser's own between the encoder and the biaffine
scorer; one loss, the heads' sum (UDPipe 2, Straka 2018 §3: shared layers, then the
parser's). The tags are learnt at a lower layer than the trees, which use them (Søgaard &
Goldberg 2016): with every head on one top layer, the tagging losses slow the parser down."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from barley.neural.biaffine_model import BiaffineModel
from barley.neural.encoder import Batch
from barley.neural.joint import JointOutputs
from barley.neural.options import BiaffineOptions, EncoderOptions


class JointModel(BiaffineModel):
    def __init__(self, encoder_options: EncoderOptions, options: BiaffineOptions, sizes: dict[str, int],
                 labels: int, tag_sizes: dict[str, int], parser_layers: int):
        super().__init__(encoder_options, options, sizes, labels)
        width = encoder_options.output_dim
        self.tags = nn.ModuleDict({name: nn.Linear(width, size) for name, size in tag_sizes.items()})
        self.parser_lstm = nn.LSTM(width, encoder_options.lstm_hidden, num_layers=parser_layers, batch_first=True,
                                   bidirectional=True, dropout=encoder_options.dropout if parser_layers > 1 else 0.0
                                   ) if parser_layers else None

    def _parser_vectors(self, vectors: torch.Tensor, batch: Batch) -> torch.Tensor:
        """The encoder's vectors through the parser's own layers (dropout after them, as after the encoder's)."""
        if self.parser_lstm is None:
            return vectors
        packed = pack_padded_sequence(vectors, batch.lengths, batch_first=True, enforce_sorted=False)
        outputs, _ = self.parser_lstm(packed)
        outputs, _ = pad_packed_sequence(outputs, batch_first=True, total_length=vectors.shape[1])
        return self.encoder.dropout(outputs)

    def loss(self, batch: Batch, heads: torch.Tensor, labels: torch.Tensor,  # type: ignore[override]  # the tags too
             tags: dict[str, torch.Tensor]) -> torch.Tensor:
        """The parser's loss (:meth:`BiaffineModel.parse_loss`) plus each tagging head's cross-entropy
        over the words; ``tags``: each head's gold classes [B, longest], -1 where there is no word."""
        vectors = self.encoder(batch)
        words = heads >= 0
        total = self.parse_loss(self._parser_vectors(vectors, batch), batch.mask, heads, labels)
        at_words = vectors[words]
        for name, layer in self.tags.items():
            total = total + nn.functional.cross_entropy(layer(at_words), tags[name][words])
        return total

    @torch.inference_mode()
    def outputs(self, batch: Batch) -> JointOutputs:
        """The numpy engine's outputs (:class:`barley.neural.joint.NumpyJoint`), from PyTorch (eval mode)."""
        vectors = self.encoder(batch)
        parser = self._parser_vectors(vectors, batch)

        def array(tensor: torch.Tensor):
            return tensor.detach().cpu().numpy()

        return JointOutputs(array(vectors[:, 1:][batch.mask[:, 1:]]),
                            {name: (array(layer.weight), array(layer.bias))
                             for name, layer in cast(Mapping[str, nn.Linear], self.tags).items()},
                            array(self._arc_scores(parser, batch.mask)), array(self.label_dep(parser)),
                            array(self.label_head(parser)), array(self.label_attention.weight), array(parser))
