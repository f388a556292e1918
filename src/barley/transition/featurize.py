"""What a transition parser's scorer reads of configurations: the feature half of scoring.

A :class:`Featurizer` is the chain extractor → (split feature) → index, built in one
place for training and parsing alike:

1. ``row(state)``: the integers the compiled feature model reads of one configuration
   (positions of its addresses, state values), plus the split feature's when the model
   does not read them already (:func:`row_reader`);
2. :meth:`Featurizer.keys`: rows of many configurations → one feature key per template
   (numpy), and the split feature's value per configuration;
3. :meth:`Featurizer.ids`: keys → feature ids of the index fitted on the training
   instances (``F``, one past the last id, for "no feature").

The learner (:mod:`barley.learners`) turns ids into scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np

from barley.conllu import Sentence
from barley.features import parse_model
from barley.features.extract import Extractor, FeatureIndex, TokenTable
from barley.features.vocabulary import Vocabulary
from barley.features.model import FeatureModel


def int_matrix(rows: list[tuple[int, ...]], width: int) -> np.ndarray:
    """``np.array(rows)`` for rows of ``width`` ints, without numpy's shape discovery (speed)."""
    return np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=len(rows) * width).reshape(-1, width)


def row_reader(extractor: Extractor, split_extractor: Extractor | None):
    """``(row, width, split_columns)``: what is read from each configuration, and where in
    it the split feature's own row (``split_extractor.row``) lies.

    The split feature usually reads what the feature model reads already (UPOS(Input[0])
    needs the position of Input[0]): its columns are then picked from the model's row,
    at no cost per configuration; otherwise its row is appended to the model's.
    """
    if split_extractor is None:
        return extractor.row, extractor.width, None
    position = {address: i for i, address in enumerate(extractor.position_columns)}
    value = {atom: len(position) + j for j, atom in enumerate(extractor.value_atoms)}
    columns = ([position.get(address) for address in split_extractor.position_columns]
               + [value.get(atom) for atom in split_extractor.value_atoms])
    if None not in columns:
        return extractor.row, extractor.width, np.array(columns, dtype=np.int64)
    model_row, split_row = extractor.row, split_extractor.row
    return (lambda state: model_row(state) + split_row(state), extractor.width + split_extractor.width,
            np.arange(extractor.width, extractor.width + split_extractor.width))


class Featurizer:
    """Configurations → feature keys or ids (and split values) for one feature model and system."""

    def __init__(self, model: FeatureModel, system, vocabularies: dict[str, Vocabulary], n_labels: int,
                 split_feature: str | None = None):
        self.model, self.vocabularies = model, vocabularies
        self.extractor = Extractor(model, system)
        self.split_extractor = (Extractor(parse_model(split_feature, "split feature"), system)
                                if split_feature else None)
        self.row, self.width, self.split_columns = row_reader(self.extractor, self.split_extractor)
        self.sizes = self.extractor.atom_sizes(vocabularies, n_labels)
        self.split_sizes = (self.split_extractor.atom_sizes(vocabularies, n_labels)
                            if self.split_extractor is not None else None)
        self.index: FeatureIndex | None = None
        self._slot_templates: dict[int, np.ndarray] = {}

    def use_index(self, index: FeatureIndex) -> None:
        """Map keys to the ids of ``index`` from now on (with its direct lookup tables)."""
        self.index = index
        index.use_tables(len(self.model.features), self.extractor.template_spaces(self.sizes))

    def table(self, sentences: Sequence[Sentence]) -> TokenTable:
        return TokenTable.build(sentences, self.vocabularies)

    def keys(self, rows: list[tuple[int, ...]], offsets: np.ndarray,
             table: TokenTable) -> tuple[np.ndarray, np.ndarray | None]:
        """Feature keys (configurations × templates) of ``rows`` read by :attr:`row` from
        sentences starting at ``offsets`` of ``table``, and the split value of each (or None)."""
        matrix = int_matrix(rows, self.width)
        keys = self.extractor.keys(matrix, offsets, table, self.sizes)
        if self.split_extractor is None:
            return keys, None
        assert self.split_sizes is not None
        split = self.split_extractor.keys(matrix[:, self.split_columns], offsets, table, self.split_sizes)
        return keys, split[:, 0]

    def ids(self, rows: list[tuple[int, ...]], offsets: np.ndarray,
            table: TokenTable) -> tuple[np.ndarray, np.ndarray | None]:
        """Like :meth:`keys`, with the keys turned into ids of the index (:meth:`use_index`)."""
        keys, split = self.keys(rows, offsets, table)
        return self.ids_of(keys, table), split

    def ids_of(self, keys: np.ndarray, table: TokenTable) -> np.ndarray:
        """The ids of :meth:`keys`' keys in the index (``index.size`` for none or unseen)."""
        width = table.feats.shape[1] if table.feats is not None else 0
        if width not in self._slot_templates:
            self._slot_templates[width] = self.extractor.slot_templates(width)
        assert self.index is not None
        return self.index.ids(keys, self._slot_templates[width])
