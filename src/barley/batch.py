"""Greedy parsing of many sentences in lockstep: where the parser's speed lives.

Every sentence has its own configuration; at each step the configurations that
are not terminal advance by one transition together. Per step, the Python work is
reading each configuration (``parser.row``: the compiled extractor's row), its legal moves,
and applying the chosen transition; everything between (token attribute lookup,
feature keys, feature ids, scoring every class) is one numpy pass over the batch.

The choice is MaltParser's (Nivre 2008 §6.1, footnote 8, improved as it suggests):
a forced transition when only one unlabeled move is legal; otherwise the
best-scoring (move, label) class among the legal ones, never a fixed default.
How often the classifier's top class was illegal is counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from barley.conllu import Sentence
from barley.features.extract import TokenTable
from barley.learners import UNSEEN


@dataclass
class ParseStats:
    """Counts over all parsed sentences (reported by ``barley parse``)."""

    sentences: int = 0
    words: int = 0
    transitions: int = 0
    forced: int = 0
    scored: int = 0
    illegal_top: int = 0
    unseen_choice: int = 0

    def summary(self) -> str:
        share = 100.0 * self.illegal_top / self.scored if self.scored else 0.0
        text = (f"{self.sentences} sentences, {self.words} words, {self.transitions} transitions "
                f"({self.forced} forced); the classifier's top choice was illegal {self.illegal_top} times "
                f"({share:.2f}% of scored steps)")
        if self.unseen_choice:
            text += f"; {self.unseen_choice} steps had no legal class seen in training"
        return text


def _int_matrix(rows: list[tuple[int, ...]], width: int) -> np.ndarray:
    """``np.array(rows)`` for rows of ``width`` ints, without numpy's shape discovery (speed)."""
    return np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=len(rows) * width).reshape(-1, width)


def parse_batch(parser, sentences: Sequence[Sentence], stats: ParseStats) -> list[tuple[list[int], list[int]]]:
    """Parse ``sentences`` greedily in lockstep; heads and label ids per sentence (node 0 included)."""
    system, extractor = parser.system, parser.extractor
    table = TokenTable.build(sentences, parser.vocabularies)
    states = [system.initial(len(s)) for s in sentences]
    labeled = system.labeled
    class_moves, class_labels = parser.classes[:, 0], parser.classes[:, 1]
    row, legal_moves, apply, is_terminal = parser.row, system.legal, system.apply, system.is_terminal
    width, move_count = parser.row_width, len(system.moves)
    slot_templates = extractor.slot_templates(table.feats.shape[1] if table.feats is not None else 0)
    active = [k for k, state in enumerate(states) if not system.is_terminal(state)]
    stats.sentences += len(sentences)
    stats.words += sum(len(s) for s in sentences)
    while active:
        waiting, rows, legal_rows = [], [], []
        for k in active:
            state = states[k]
            legal = legal_moves(state)
            if legal.count(True) == 1:
                move = legal.index(True)
                if not labeled[move]:
                    apply(state, move, -1)
                    stats.forced += 1
                    continue
            waiting.append(k)
            rows.append(row(state))
            legal_rows.append(legal)
        if waiting:
            offsets = table.offsets[waiting]
            matrix = _int_matrix(rows, width)
            keys = extractor.keys(matrix, offsets, table, parser.sizes)
            split_values = parser.split_values(matrix, offsets, table) if parser.split_extractor else None
            scores = parser.learner.scores(parser.index.ids(keys, slot_templates), split_values=split_values)
            allowed = np.fromiter(chain.from_iterable(legal_rows), dtype=bool,
                                  count=len(legal_rows) * move_count).reshape(-1, move_count)[:, class_moves]
            top = scores.argmax(axis=1)
            stats.illegal_top += int((~allowed[np.arange(len(top)), top]).sum())
            scores = np.where(allowed, scores, -np.inf)
            best = scores.argmax(axis=1)
            stats.unseen_choice += int((scores[np.arange(len(best)), best] <= UNSEEN / 2).sum())
            stats.scored += len(waiting)
            for k, move, label in zip(waiting, class_moves[best].tolist(), class_labels[best].tolist()):
                apply(states[k], move, label)
        active = [k for k in active if not is_terminal(states[k])]
    results = []
    for state in states:
        stats.transitions += state.transitions
        system.finalize(state, parser.root_label)
        results.append((list(state.heads), list(state.labels)))
    return results
