"""The neural transition parser at parse time, numpy only (never PyTorch): batched greedy
parsing (or a beam) through the one loop (:func:`barley.transition.loop.advance`).

Parsing (:class:`FollowScores`) batches sentences of similar length: the encoder runs once
per batch, the scorer's first layer is precomputed for every node at every position
(:meth:`NumpyTransitionScorer.parts`), and each lockstep step scores all waiting
configurations at once. Training is :mod:`barley.neural.transition_training`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import asdict

import numpy as np

from barley.conllu import Sentence
from barley.constraints import guides, labels_kept, require_support
from barley.errors import BarleyError
from barley.models import check
from barley.neural import numpy_ops as ops
from barley.neural.inputs import EncoderVocabularies, Padded, pad
from barley.neural.numpy_encoder import NumpyEncoder, Shapes, linear_shapes
from barley.neural.options import EncoderOptions, TransitionOptions
from barley.neural.positions import PositionModel, parse_positions
from barley.neural.trained import NeuralParser, checked_common
from barley.systems import get_system
from barley.systems.base import Action, State, TransitionSystem
from barley.transforms import of_manifest
from barley.transition.beam import beam_parse
from barley.transition.loop import ArcSteps, ParseStats, advance, guided_classes, legal_classes
from barley.transition.training import Classes
from barley.valid_ud import Mending, UDRules
from barley.valid_ud import require_support as require_valid_ud

Score = Callable[[np.ndarray], np.ndarray]
"""Class scores ``[configurations, classes]`` from the rows of the precomputed first layer at each
position of each configuration (``[configurations, positions]``)."""


def scorer_shapes(encoder: EncoderOptions, scorer: TransitionOptions, positions: int, classes: int) -> Shapes:
    """The arrays of :class:`barley.neural.transition_model.TransitionScorer` beyond the encoder's."""
    width = encoder.output_dim
    return {"padding": (positions, width), **linear_shapes("hidden", positions * width, scorer.hidden),
            **linear_shapes("output", scorer.hidden, classes)}


class NumpyTransitionScorer:
    """:class:`barley.neural.transition_model.TransitionScorer` in numpy over its (checked) arrays: the
    encoder, then an MLP with one hidden layer (ReLU) over the vectors at the positions, its first
    layer ``W · [v_1; …; v_P] = Σ_p W_p · v_p`` precomputed per node and position (Chen & Manning
    2014, §4)."""

    def __init__(self, encoder: EncoderOptions, vocabularies: EncoderVocabularies, weights: dict[str, np.ndarray],
                 positions: int):
        self.encoder = NumpyEncoder(encoder, vocabularies, weights)
        self.positions = positions
        hidden = weights["hidden.weight"]
        by_position = hidden.reshape(len(hidden), positions, -1)  # [hidden, positions, width]: W_p
        # [width, positions · hidden]: a node's vector times it gives its part at every position at once
        self.first = np.ascontiguousarray(by_position.transpose(2, 1, 0).reshape(by_position.shape[2], -1))
        self.empty = np.einsum("pw,hpw->ph", weights["padding"], by_position)  # an empty position's part
        self.hidden_bias = weights["hidden.bias"]
        self.output = (weights["output.weight"], weights["output.bias"])

    def vectors(self, padded: Padded) -> tuple[np.ndarray, int]:
        """The node vectors of a batch, ``[sentences · longest, width]``, and ``longest``."""
        vectors = self.encoder.vectors(padded)
        return vectors.reshape(-1, vectors.shape[-1]), vectors.shape[1]

    def parts(self, vectors: np.ndarray) -> np.ndarray:
        """Each node's contribution to the hidden layer at each position: ``[nodes + 1, positions,
        hidden]`` from node vectors ``[nodes, width]``; the last row holds the padding vectors' (an
        empty position is node ``nodes``)."""
        parts = (vectors @ self.first).reshape(len(vectors), self.positions, -1)
        return np.concatenate([parts, self.empty[None]])

    def scores(self, parts: np.ndarray, index: np.ndarray) -> np.ndarray:
        """Class scores ``[configurations, classes]``; ``index [configurations, positions]``: the row
        of ``parts`` (the node, or the padding row) at each position."""
        hidden = parts[index, np.arange(self.positions)].sum(1)
        hidden += self.hidden_bias
        return ops.linear(np.maximum(hidden, 0.0, out=hidden), *self.output)


def position_index(row: Callable, states: Sequence[State], waiting: list[int], offsets: np.ndarray,
                   padding: int) -> np.ndarray:
    """The row of the scorer's ``parts`` at each position of each waiting configuration
    (``offsets``: where each sentence's nodes start; ``padding``: the padding row)."""
    nodes = np.array([row(states[k]) for k in waiting], dtype=np.int64)
    return np.where(nodes >= 0, offsets[waiting][:, None] + nodes, padding)


class BatchScorer:
    """What a policy needs to score a batch's configurations: the ``score`` of the rows at their
    positions (:data:`Score`), the padding row, and where each sentence's nodes start."""

    def __init__(self, parser: NeuralTransitionParser, score: Score, padding: int, longest: int,
                 states: Sequence[State]):
        self.parser, self.scores, self.states, self.padding = parser, score, states, padding
        self.offsets = np.arange(len(states), dtype=np.int64) * longest

    def index(self, waiting: list[int]) -> np.ndarray:
        return position_index(self.parser.row, self.states, waiting, self.offsets, self.padding)


class FollowScores(BatchScorer):
    """The parsing policy: the best-scoring legal action; with ``arcs``, the steps are kept there
    (confidence)."""

    def __init__(self, parser: NeuralTransitionParser, score: Score, padding: int, longest: int,
                 states: Sequence[State], stats: ParseStats, guides: Sequence | None = None,
                 arcs: ArcSteps | None = None):
        super().__init__(parser, score, padding, longest, states)
        self.stats, self.guides, self.arcs = stats, guides, arcs

    def choose(self, waiting: list[int], legal_rows: list[list[bool]]) -> list[Action]:
        classes = self.parser.classes.table
        scores = self.scores(self.index(waiting))
        allowed = legal_classes(legal_rows, classes[:, 0])
        top = scores.argmax(axis=1)
        self.stats.illegal_top += int((~allowed[np.arange(len(top)), top]).sum())
        allowed = guided_classes(allowed, waiting, legal_rows, self.states, self.guides, classes)
        self.stats.scored += len(waiting)
        scores = np.where(allowed, scores, -np.inf)
        best = scores.argmax(axis=1)
        if self.arcs is not None:
            self.arcs.add(self.states, waiting, legal_rows, scores, best)
        return classes[best].tolist()


class NeuralTransitionParser(NeuralParser):
    """A greedy (or beam) transition-based parser scored by :class:`NumpyTransitionScorer`."""

    kind = "neural-transition"
    capabilities = frozenset({"valid_ud", "beam"})  # barley.capabilities

    def __init__(self, encoder: EncoderOptions, scorer: TransitionOptions, vocabularies: EncoderVocabularies,
                 system: TransitionSystem, positions: PositionModel, labels: list[str], root_label: int,
                 weights: dict[str, np.ndarray], transforms: Sequence = (), manifest: dict | None = None):
        self.scorer, self.system, self.positions, self.root_label = scorer, system, positions, root_label
        super().__init__(encoder, vocabularies, labels, weights, transforms, manifest)
        self.classes = Classes(system, labels)
        self.row = positions.reader(system)
        self.stats = ParseStats()
        self.valid_ud: UDRules | None = None  # barley parse --valid-ud (barley.valid_ud)
        self.beam = 1  # barley parse --beam: the width (1: greedy), the scorer's logits summed (barley.transition.beam)

    def set_beam(self, width: int | None) -> None:
        """Parse with a beam of ``width`` configurations per sentence (:mod:`barley.transition.beam`; an item's
        score is the sum of the scorer's logits of its moves); None or 1: greedy."""
        if width is not None and width < 1:
            raise BarleyError(f"the beam's width must be at least 1, not {width}", fix="e.g. --beam 8")
        self.beam = width or 1

    def network_of(self, weights: dict[str, np.ndarray]) -> NumpyTransitionScorer:
        return NumpyTransitionScorer(self.encoder, self.vocabularies, weights, len(self.positions))

    # --- parsing -----------------------------------------------------------------------

    def check_arcs(self, arcs) -> None:
        require_support(self.system, arcs)

    def set_valid_ud(self, on: bool) -> None:
        """Keep UD's structural rules in every tree (``barley parse --valid-ud``, :mod:`barley.valid_ud`)
        or not: each tree mended after the parse (:meth:`barley.valid_ud.UDRules.finish`)."""
        if on:
            require_valid_ud(f"neural {self.system.name} parser", self.transforms, self.beam)
        self.valid_ud = UDRules(self.labels) if on else None

    def tree_class(self) -> str:
        return self.system.tree_class

    def _parse_batch(self, batch: list[Sentence], given: list) -> None:
        system, stats = self.system, self.stats
        vectors, longest = self.network.vectors(pad([self.vocabularies.encode(sentence) for sentence in batch]))
        parts = self.network.parts(vectors)
        score, padding = functools.partial(self.network.scores, parts), len(parts) - 1
        states = [system.initial(len(sentence)) for sentence in batch]
        if self.beam > 1:
            states = self._beam_states(batch, score, padding, longest, given)
            steps = None
        else:
            kept = self.confidence is not None or self.valid_ud is not None  # valid_ud: finish weighs labels
            steps = ArcSteps(system, states, self.classes.table[:, 0]) if kept else None
            policy = FollowScores(self, score, padding, longest, states, stats, guides(system, given), steps)
            stats.forced += advance(system, states, policy)
        evidence = None if steps is None else steps.evidence()
        mend = None if self.valid_ud is None else Mending(self.valid_ud, evidence, self.classes.table[:, 1])
        for sentence, state, arcs in zip(batch, states, given):
            stats.sentences += 1
            stats.words += len(sentence)
            stats.transitions += state.transitions
            system.finalize(state, self.root_label)
            heads, label_ids = list(state.heads), state.labels
            if mend is not None:
                heads, label_ids = mend(heads, label_ids, sentence.words, arcs)
            label_ids = labels_kept(label_ids, arcs)  # a root arc that finalize built takes its given label too
            self.set_tree(sentence, heads, self.deprels(label_ids), arcs, system.single_root)
        if self.confidence is not None and evidence is not None:  # each word keeps its arc's probabilities
            self.confidence.write(batch, evidence, self.calibrated)  # through the inverse transforms

    def _beam_states(self, batch: list[Sentence], score: Score, padding: int, longest: int,
                     given: list) -> list[State]:
        """The best final configuration of each sentence of ``batch`` with the beam, each item held to
        the ``given`` arcs."""
        if self.confidence is not None:
            raise BarleyError("--confidence is not yet written with a beam (--beam): its probabilities are those "
                              "of the greedy parser's steps", fix="parse with --beam 1 for --confidence")
        # the beam reads no state from the scorer: its states only count the sentences
        scorer = BatchScorer(self, score, padding, longest, [None] * len(batch))  # type: ignore[list-item]

        def scores(owners: list[int], states: list[State]) -> tuple[np.ndarray, list]:
            nodes = np.array([self.row(state) for state in states], dtype=np.int64)  # owners: the sentences
            return scorer.scores(np.where(nodes >= 0, scorer.offsets[owners][:, None] + nodes, scorer.padding)), \
                [None] * len(states)

        beams = beam_parse(self.system, self.classes.table, [len(s) for s in batch], scores, self.beam,
                           guides(self.system, given), self.stats)
        return [beam[0].state for beam in beams]

    # --- model files -------------------------------------------------------------------

    def own_manifest(self) -> dict:
        return {"system": {"name": self.system.name, "single_root": self.system.single_root},
                "positions": self.positions.text, "positions_source": self.positions.source,
                "scorer": asdict(self.scorer),
                "root_label": self.labels[self.root_label]}

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> NeuralTransitionParser:
        """A parser from the manifest and arrays of :meth:`to_files`, each checked before anything reads
        it (:mod:`barley.models.check`)."""
        with check.loading(path, "neural transition"):
            system_info = check.mapping(manifest["system"], "the manifest's system")
            system = get_system(check.text(system_info["name"], "the system's name"),
                                single_root=check.boolean(system_info["single_root"], "the system's single_root"))
            positions = parse_positions(check.text(manifest["positions"], "the position model"), f"{path}:positions")
            vocabularies, labels, encoder, most = checked_common(manifest, arrays)
            root_label = labels.index(check.text(manifest["root_label"], "the root label"))
            scorer = check.options(TransitionOptions, manifest["scorer"], "the scorer options", most=most)
            scorer.check()
            classes = len(Classes(system, labels).table)
            weights = cls.checked(arrays, encoder, vocabularies, scorer_shapes(encoder, scorer, len(positions), classes),
                                  path, "neural transition scorer")
            return cls(encoder, scorer, vocabularies, system, positions, labels, root_label, weights,
                       of_manifest(manifest), manifest)
