"""A BiLSTM sentence encoder (Kiperwasser & Goldberg 2016 §3; sizes after Dozat & Manning 2017 §4).

Every node 0..n of a sentence (0 the artificial root) is the concatenation of
embeddings of the columns the encoder reads (``EncoderOptions.inputs``,
:mod:`barley.neural.inputs`): its lower-cased FORM — plus a character-level BiLSTM over
the form as written, which is what tells rare and unknown forms apart (forms seen fewer
than ``min_form_count`` times in training share the unknown word's embedding) — and, for
a parser given tagged input, its LEMMA, UPOS, XPOS and FEATS (the mean of the embeddings
of its ``Attribute=Value`` atoms); a joint tagger and parser reads the form alone.
A multi-layer bidirectional LSTM reads these; its outputs are the node vectors.

Regularisation as in Dozat & Manning: word dropout (a training form and lemma
replaced by the unknown id with probability ``word_dropout``, so that the unknown
embedding is trained), dropout on the embeddings, between the LSTM layers and on
the outputs. Pretrained word vectors (a local text file in word2vec / fastText
``.vec`` format) initialise the form embeddings; none are shipped or downloaded.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from barley.errors import InputError
from barley.features.vocabulary import NONE, Vocabulary
from barley.neural.inputs import ID_COLUMNS, Encoded, EncoderVocabularies, Padded, pad
from barley.neural.options import EncoderOptions


def read_pretrained(path: str, forms: Iterable[str] | None = None) -> tuple[dict[str, np.ndarray], int]:
    """Word vectors from a text file (word2vec/fastText ``.vec``: an optional ``count dim`` header,
    then ``word v1 .. vdim`` per line), lower-cased words, first occurrence kept; only the words
    in ``forms`` when given. Returns the vectors and their dimension."""
    wanted = None if forms is None else set(forms)
    vectors: dict[str, np.ndarray] = {}
    dim = None
    try:
        with open(path, encoding="utf-8", errors="strict") as handle:
            for number, line in enumerate(handle, 1):
                parts = line.rstrip("\n").rstrip().split(" ")
                if number == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
                    continue  # the header
                if len(parts) < 2:
                    continue
                if dim is None:
                    dim = len(parts) - 1
                if len(parts) - 1 != dim:
                    raise InputError(f"{len(parts) - 1} numbers where the first vector has {dim}", path=path,
                                     line=number, fix="give one word and its vector per line")
                word = parts[0].lower()
                if word in vectors or (wanted is not None and word not in wanted):
                    continue
                try:
                    vectors[word] = np.array(parts[1:], dtype=np.float32)
                except ValueError:
                    raise InputError("a vector holds something that is not a number", path=path, line=number,
                                     fix="give one word and its vector per line") from None
    except FileNotFoundError:
        raise InputError("pretrained vector file not found", path=path) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", path=path, fix="give a word2vec/fastText text (.vec) file") from None
    if dim is None:
        raise InputError("no word vector in the file", path=path, fix="give a word2vec/fastText text (.vec) file")
    return vectors, dim


@dataclass
class Batch:
    """Padded tensors for a batch of sentences (``lengths`` counts the root): a :class:`Padded` in torch."""

    ids: dict[str, torch.Tensor]  # [batch, longest] ids of each one-id input column
    feats: torch.Tensor | None    # flat FEATS atom ids of every node, in order
    feats_offsets: torch.Tensor | None  # where each node's atoms start (EmbeddingBag)
    chars: torch.Tensor           # [types, longest] character ids of the distinct forms
    char_lengths: torch.Tensor
    word_type: torch.Tensor       # [batch, longest]: row of ``chars`` of each node; padding → the last row + 1
    lengths: torch.Tensor
    mask: torch.Tensor            # [batch, longest]: a real node (root included)


def make_batch(sentences: Sequence[Encoded], vocabularies: EncoderVocabularies, device: str = "cpu",
               word_dropout: float = 0.0, rng: np.random.Generator | None = None) -> Batch:
    """Pad a batch (:func:`barley.neural.inputs.pad`, with its word dropout) into tensors on ``device``."""
    return tensors(pad(sentences, word_dropout, rng), vocabularies, device)


def tensors(padded: Padded, vocabularies: EncoderVocabularies, device: str = "cpu") -> Batch:
    """A padded batch as tensors on ``device``."""
    chars, char_lengths = padded.characters(vocabularies)

    def tensor(array: np.ndarray | None) -> Any:
        return None if array is None else torch.from_numpy(array).to(device)

    return Batch({name: tensor(column) for name, column in padded.ids.items()}, tensor(padded.feats),
                 tensor(padded.feats_offsets), tensor(chars), torch.from_numpy(char_lengths),
                 tensor(padded.word_type), torch.from_numpy(padded.lengths), tensor(padded.mask))


class Encoder(nn.Module):
    """Embeddings (form + characters, lemma, UPOS, XPOS, FEATS) → BiLSTM; see the module docstring."""

    form: nn.Embedding

    def __init__(self, options: EncoderOptions, sizes: dict[str, int]):
        super().__init__()
        self.options = options
        dims = options.input_dims
        for name in ID_COLUMNS:
            if name in dims:
                setattr(self, name, nn.Embedding(sizes[name], dims[name], padding_idx=NONE))
        if "feats" in dims:
            self.feats = nn.EmbeddingBag(sizes["feats"], options.feats_dim, mode="mean")
        self.char_embedding = nn.Embedding(sizes["chars"], options.char_dim, padding_idx=NONE)
        self.char_lstm = nn.LSTM(options.char_dim, options.char_hidden, batch_first=True, bidirectional=True)
        if options.characters == "add":
            self.char_projection = nn.Linear(2 * options.char_hidden, options.form_dim)
        self.lstm = nn.LSTM(sum(dims.values()), options.lstm_hidden, num_layers=options.lstm_layers,
                            batch_first=True, bidirectional=True,
                            dropout=options.dropout if options.lstm_layers > 1 else 0.0)
        self.dropout = nn.Dropout(options.dropout)

    def set_pretrained(self, vocabulary: Vocabulary, vectors: dict[str, np.ndarray]) -> int:
        """Initialise form embeddings from pretrained vectors (scaled to the embeddings' spread);
        returns how many forms got one."""
        rows = [(i, vectors[form]) for i, form in enumerate(vocabulary.values) if form in vectors]
        if rows:
            matrix = np.stack([vector for _, vector in rows])
            matrix = matrix / (matrix.std() or 1.0) * float(self.form.weight.detach().std())
            with torch.no_grad():
                self.form.weight[torch.tensor([i for i, _ in rows])] = torch.from_numpy(matrix.astype(np.float32))
        return len(rows)

    def _characters(self, batch: Batch) -> torch.Tensor:
        """One vector per distinct form of the batch (a BiLSTM's final states, projected when they are
        added to the form embedding), plus a zero row."""
        packed = pack_padded_sequence(self.char_embedding(batch.chars), batch.char_lengths, batch_first=True,
                                      enforce_sorted=False)
        _, (final, _) = self.char_lstm(packed)
        vectors = torch.cat([final[0], final[1]], dim=-1)
        if self.options.characters == "add":
            vectors = self.char_projection(vectors)
        return torch.cat([vectors, vectors.new_zeros(1, vectors.shape[1])])

    def forward(self, batch: Batch) -> torch.Tensor:
        """Node vectors, [batch, longest, 2 · lstm_hidden] (padding rows are zero)."""
        size, longest = batch.mask.shape
        characters = self._characters(batch)[batch.word_type]
        form = self.form(batch.ids["form"])
        parts = [form + characters] if self.options.characters == "add" else [form, characters]
        for name in self.options.inputs:
            if name == "feats":
                bags = self.feats(batch.feats, batch.feats_offsets)
                feats = bags.new_zeros(size, longest, self.options.feats_dim)
                feats[batch.mask] = bags
                parts.append(feats)
            elif name != "form":
                parts.append(getattr(self, name)(batch.ids[name]))
        packed = pack_padded_sequence(self.dropout(torch.cat(parts, dim=-1)), batch.lengths, batch_first=True,
                                      enforce_sorted=False)
        outputs, _ = self.lstm(packed)
        outputs, _ = pad_packed_sequence(outputs, batch_first=True, total_length=longest)
        return self.dropout(outputs)
