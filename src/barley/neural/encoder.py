"""A BiLSTM sentence encoder (Kiperwasser & Goldberg 2016 §3; sizes after Dozat & Manning 2017 §4).

Every node 0..n of a sentence (0 the artificial root) is the concatenation of
embeddings of its lower-cased FORM — plus a character-level BiLSTM over the form as
written, which is what tells rare and unknown forms apart (forms seen fewer than
``min_form_count`` times in training share the unknown word's embedding) — its LEMMA,
UPOS, XPOS and FEATS (the mean of the embeddings of its ``Attribute=Value`` atoms).
A multi-layer bidirectional LSTM reads these; its outputs are the node vectors.

Regularisation as in Dozat & Manning: word dropout (a training form and lemma
replaced by the unknown id with probability ``word_dropout``, so that the unknown
embedding is trained), dropout on the embeddings, between the LSTM layers and on
the outputs. Pretrained word vectors (a local text file in word2vec / fastText
``.vec`` format) initialise the form embeddings; none are shipped or downloaded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from barley.conllu import FEATS, FORM, LEMMA, UPOS, XPOS, Sentence
from barley.errors import InputError
from barley.features.vocabulary import NONE, ROOT, UNKNOWN, Vocabulary, feats_atoms
from barley.neural.options import EncoderOptions


@dataclass
class Encoded:
    """One sentence as ids, nodes 0..n (0 the root): what the encoder reads."""

    form: np.ndarray
    lemma: np.ndarray
    upos: np.ndarray
    xpos: np.ndarray
    feats: list[np.ndarray]
    words: list[str]  # the forms as written, for the character model (entry 0: the root)

    def __len__(self) -> int:
        return len(self.form)


ROOT_WORD = "\x00<root>"  # the root's "form" for the character model: one reserved character


class EncoderVocabularies:
    """The strings the encoder knows: forms (lower-cased, frequent ones), lemmas, UPOS,
    XPOS, FEATS atoms and characters, each a :class:`Vocabulary` (ids 0..2 reserved)."""

    NAMES = ("form", "lemma", "upos", "xpos", "feats", "chars")

    def __init__(self, tables: dict[str, Vocabulary]):
        self.tables = tables
        self._chars: dict[str, np.ndarray] = {}

    @classmethod
    def build(cls, sentences: Sequence[Sentence], min_form_count: int,
              keep_forms: frozenset[str] = frozenset()) -> EncoderVocabularies:
        """From training sentences, in order of first occurrence (deterministic): forms seen at
        least ``min_form_count`` times or in ``keep_forms`` (those with a pretrained vector)."""
        counts: Counter[str] = Counter()
        seen: dict[str, dict[str, None]] = {name: {} for name in cls.NAMES}
        for sentence in sentences:
            for word in sentence.words:
                form = word[FORM].lower()
                counts[form] += 1
                seen["form"].setdefault(form)
                seen["lemma"].setdefault(word[LEMMA])
                seen["upos"].setdefault(word[UPOS])
                seen["xpos"].setdefault(word[XPOS])
                for atom in feats_atoms(word[FEATS]):
                    seen["feats"].setdefault(atom)
                for char in word[FORM]:
                    seen["chars"].setdefault(char)
        seen["form"] = {form: None for form in seen["form"] if counts[form] >= min_form_count or form in keep_forms}
        return cls({name: Vocabulary(list(values)) for name, values in seen.items()})

    def to_json(self) -> dict[str, list[str]]:
        return {name: self.tables[name].to_json() for name in self.NAMES}

    @classmethod
    def from_json(cls, tables: dict[str, list[str]]) -> EncoderVocabularies:
        return cls({name: Vocabulary(tables[name]) for name in cls.NAMES})

    def sizes(self) -> dict[str, int]:
        return {name: len(table) for name, table in self.tables.items()}

    def encode(self, sentence: Sentence) -> Encoded:
        words = sentence.words
        form, lemma, upos, xpos = (self.tables[name] for name in ("form", "lemma", "upos", "xpos"))
        feats = self.tables["feats"]
        return Encoded(
            form=np.array([ROOT] + [form.id(w[FORM].lower()) for w in words], dtype=np.int64),
            lemma=np.array([ROOT] + [lemma.id(w[LEMMA]) for w in words], dtype=np.int64),
            upos=np.array([ROOT] + [upos.id(w[UPOS]) for w in words], dtype=np.int64),
            xpos=np.array([ROOT] + [xpos.id(w[XPOS]) for w in words], dtype=np.int64),
            feats=[np.array([ROOT], dtype=np.int64)]
                  + [np.array([feats.id(a) for a in feats_atoms(w[FEATS])], dtype=np.int64) for w in words],
            words=[ROOT_WORD] + [w[FORM] for w in words])

    def chars(self, word: str) -> np.ndarray:
        """Character ids of a form (cached: forms repeat)."""
        ids = self._chars.get(word)
        if ids is None:
            table = self.tables["chars"]
            ids = np.array([ROOT] if word == ROOT_WORD else [table.id(c) for c in word] or [UNKNOWN],
                           dtype=np.int64)
            if len(self._chars) < 1_000_000:
                self._chars[word] = ids
        return ids


def read_pretrained(path: str, forms: Sequence[str] | None = None) -> tuple[dict[str, np.ndarray], int]:
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
    """Padded tensors for a batch of sentences (``lengths`` counts the root)."""

    form: torch.Tensor
    lemma: torch.Tensor
    upos: torch.Tensor
    xpos: torch.Tensor
    feats: torch.Tensor          # flat FEATS atom ids of every node, in order
    feats_offsets: torch.Tensor  # where each node's atoms start (EmbeddingBag)
    chars: torch.Tensor          # [types, longest] character ids of the distinct forms
    char_lengths: torch.Tensor
    word_type: torch.Tensor      # [batch, longest]: row of ``chars`` of each node; padding → the last row + 1
    lengths: torch.Tensor
    mask: torch.Tensor           # [batch, longest]: a real node (root included)


def make_batch(sentences: Sequence[Encoded], vocabularies: EncoderVocabularies, device: str = "cpu",
               word_dropout: float = 0.0, rng: np.random.Generator | None = None) -> Batch:
    """Pad a batch; with ``word_dropout`` (training), forms and lemmas are replaced by the
    unknown id with that probability (numpy's ``rng``, so dropout is deterministic per seed)."""
    size, longest = len(sentences), max(len(s) for s in sentences)
    columns = {name: np.full((size, longest), NONE, dtype=np.int64) for name in ("form", "lemma", "upos", "xpos")}
    for row, sentence in enumerate(sentences):
        for name, column in columns.items():
            column[row, :len(sentence)] = getattr(sentence, name)
    lengths = np.array([len(s) for s in sentences], dtype=np.int64)
    mask = np.arange(longest)[None, :] < lengths[:, None]
    if word_dropout > 0.0:
        for name in ("form", "lemma"):
            drop = (rng.random((size, longest)) < word_dropout) & mask
            drop[:, 0] = False  # the root stays the root
            columns[name][drop] = UNKNOWN
    feats = [atoms for sentence in sentences for atoms in sentence.feats]
    offsets = np.cumsum([0] + [len(atoms) for atoms in feats[:-1]])
    types: dict[str, int] = {}
    word_type = np.zeros((size, longest), dtype=np.int64)
    for row, sentence in enumerate(sentences):
        word_type[row, :len(sentence)] = [types.setdefault(word, len(types)) for word in sentence.words]
    word_type[~mask] = len(types)  # a zero vector for padding
    char_ids = [vocabularies.chars(word) for word in types]
    char_lengths = np.array([len(c) for c in char_ids], dtype=np.int64)
    chars = np.zeros((len(char_ids), char_lengths.max()), dtype=np.int64)
    for row, ids in enumerate(char_ids):
        chars[row, :len(ids)] = ids

    def tensor(array: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(array).to(device)

    return Batch(*(tensor(columns[name]) for name in ("form", "lemma", "upos", "xpos")),
                 tensor(np.concatenate(feats)), tensor(offsets), tensor(chars), torch.from_numpy(char_lengths),
                 tensor(word_type), torch.from_numpy(lengths), tensor(mask))


class Encoder(nn.Module):
    """Embeddings (form + characters, lemma, UPOS, XPOS, FEATS) → BiLSTM; see the module docstring."""

    def __init__(self, options: EncoderOptions, sizes: dict[str, int]):
        super().__init__()
        self.options = options
        self.form = nn.Embedding(sizes["form"], options.form_dim, padding_idx=NONE)
        self.lemma = nn.Embedding(sizes["lemma"], options.lemma_dim, padding_idx=NONE)
        self.upos = nn.Embedding(sizes["upos"], options.upos_dim, padding_idx=NONE)
        self.xpos = nn.Embedding(sizes["xpos"], options.xpos_dim, padding_idx=NONE)
        self.feats = nn.EmbeddingBag(sizes["feats"], options.feats_dim, mode="mean")
        self.char_embedding = nn.Embedding(sizes["chars"], options.char_dim, padding_idx=NONE)
        self.char_lstm = nn.LSTM(options.char_dim, options.char_hidden, batch_first=True, bidirectional=True)
        self.char_projection = nn.Linear(2 * options.char_hidden, options.form_dim)
        inputs = options.form_dim + options.lemma_dim + options.upos_dim + options.xpos_dim + options.feats_dim
        self.lstm = nn.LSTM(inputs, options.lstm_hidden, num_layers=options.lstm_layers, batch_first=True,
                            bidirectional=True, dropout=options.dropout if options.lstm_layers > 1 else 0.0)
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
        """One vector per distinct form of the batch (a BiLSTM's final states, projected), plus a zero row."""
        packed = pack_padded_sequence(self.char_embedding(batch.chars), batch.char_lengths, batch_first=True,
                                      enforce_sorted=False)
        _, (final, _) = self.char_lstm(packed)
        vectors = self.char_projection(torch.cat([final[0], final[1]], dim=-1))
        return torch.cat([vectors, vectors.new_zeros(1, vectors.shape[1])])

    def forward(self, batch: Batch) -> torch.Tensor:
        """Node vectors, [batch, longest, 2 · lstm_hidden] (padding rows are zero)."""
        size, longest = batch.form.shape
        form = self.form(batch.form) + self._characters(batch)[batch.word_type]
        bags = self.feats(batch.feats, batch.feats_offsets)
        feats = bags.new_zeros(size, longest, self.options.feats_dim)
        feats[batch.mask] = bags
        inputs = torch.cat([form, self.lemma(batch.lemma), self.upos(batch.upos), self.xpos(batch.xpos), feats],
                           dim=-1)
        packed = pack_padded_sequence(self.dropout(inputs), batch.lengths, batch_first=True, enforce_sorted=False)
        outputs, _ = self.lstm(packed)
        outputs, _ = pad_packed_sequence(outputs, batch_first=True, total_length=longest)
        return self.dropout(outputs)
