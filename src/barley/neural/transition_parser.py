"""The neural transition parser: training through the one loop (:func:`barley.transition.loop.advance`)
and batched greedy parsing.

Training (Kiperwasser & Goldberg 2016, §5; Goldberg & Nivre 2012 for the dynamic
oracle): a minibatch of sentences is encoded once, with gradient; then the sentences
advance in lockstep through the loop, the policy (:class:`Learn`) reading the scores of
the MLP on the detached vectors (no gradient) to choose moves and recording, at every
step where a model is asked, the positions, the legal classes and the target classes —
with the dynamic oracle the zero-cost actions (the model's own action is followed when
it costs nothing, a costly one with probability ``p`` after ``explore_after`` epochs,
else the best-scoring zero-cost one), with the static oracle its action. After the loop,
one pass of the MLP over every recorded step, with gradient, gives the loss: the
negative log of the summed probability of the target classes among the legal ones.

Parsing (:class:`FollowScores`) batches sentences of similar length: the encoder runs
once per batch and each lockstep step scores all waiting configurations at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from barley import model_check as check
from barley.transition.loop import ArcSteps, ParseStats, advance, guided_classes, legal_classes
from barley.transition.beam import beam_parse
from barley.errors import BarleyError
from barley.conllu import Sentence
from barley.constraints import guides, labels_kept, require_support
from barley.neural.encoder import make_batch
from barley.neural.inputs import EncoderVocabularies
from barley.neural.fitting import (NeuralParser, checked_common, deterministic, encoder_vocabularies, fit_epochs,
                                   log_sizes, use_pretrained)
from barley.neural.options import EncoderOptions, Training, TransitionOptions
from barley.neural.positions import PositionModel, parse_positions
from barley.neural.transition_model import TransitionScorer
from barley.systems import get_system
from barley.systems.base import Action, State, TransitionSystem, run_oracle
from barley.transition.training import Classes, Oracle
from barley.transforms import of_manifest
from barley.valid_ud import Mending, UDRules
from barley.valid_ud import require_support as require_valid_ud


def position_index(row: Callable, states: Sequence[State], waiting: list[int], offsets: np.ndarray,
                   padding: int) -> np.ndarray:
    """The row of the scorer's ``parts`` at each position of each waiting configuration
    (``offsets``: where each sentence's nodes start; ``padding``: the padding row)."""
    nodes = np.array([row(states[k]) for k in waiting], dtype=np.int64)
    return np.where(nodes >= 0, offsets[waiting][:, None] + nodes, padding)


class BatchScorer:
    """What a policy needs to score a batch's configurations: the encoded batch's ``parts``."""

    def __init__(self, parser: NeuralTransitionParser, parts: torch.Tensor, longest: int, states: Sequence[State]):
        self.parser, self.parts, self.states = parser, parts, states
        self.offsets = np.arange(len(states), dtype=np.int64) * longest
        self.padding = len(parts) - 1

    def index(self, waiting: list[int]) -> np.ndarray:
        return position_index(self.parser.row, self.states, waiting, self.offsets, self.padding)

    def scores(self, index: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return self.parser.model.scores(self.parts, torch.from_numpy(index).to(self.parts.device)).cpu().numpy()


class FollowScores(BatchScorer):
    """The parsing policy: the best-scoring legal action; with ``arcs``, the steps are kept there
    (confidence)."""

    def __init__(self, parser: NeuralTransitionParser, parts: torch.Tensor, longest: int,
                 states: Sequence[State], stats: ParseStats, guides: Sequence | None = None,
                 arcs: ArcSteps | None = None):
        super().__init__(parser, parts, longest, states)
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


class Learn(BatchScorer):
    """The training policy (module docstring): with ``oracles``' costs when ``dynamic``, else their
    static oracle; records per step the positions, legal and target classes (:meth:`recorded`)."""

    def __init__(self, parser: NeuralTransitionParser, parts: torch.Tensor, longest: int,
                 states: Sequence[State], oracles: Sequence[Oracle], sentences: Sequence[Sentence], dynamic: bool,
                 p: float, rng: np.random.Generator):
        super().__init__(parser, parts, longest, states)
        self.oracles, self.sentences, self.dynamic, self.p, self.rng = oracles, sentences, dynamic, p, rng
        self.indices: list[np.ndarray] = []
        self.legal: list[np.ndarray] = []
        self.targets: list[np.ndarray] = []
        self.steps = self.mistakes = self.explored = 0

    def choose(self, waiting: list[int], legal_rows: list[list[bool]]) -> list[Action]:
        classes = self.parser.classes
        index = self.index(waiting)
        allowed = legal_classes(legal_rows, classes.table[:, 0])
        target = np.zeros_like(allowed)
        chosen = []
        if self.dynamic:
            scores = np.where(allowed, self.scores(index), -np.inf)
            for i, k in enumerate(waiting):
                prediction = self.oracles[k].predict(classes, self.states[k], scores[i], int(scores[i].argmax()),
                                                     self.p, self.rng)
                target[i, prediction.zero] = True
                chosen.append(prediction.to_follow)
                self.mistakes += prediction.mistake
                self.explored += prediction.explored
        else:
            for i, k in enumerate(waiting):
                chosen.append(classes.of(*self.oracles[k].legal_next(self.states[k], legal_rows[i], self.sentences[k])))
                target[i, chosen[-1]] = True
        self.indices.append(index)
        self.legal.append(allowed)
        self.targets.append(target)
        self.steps += len(waiting)
        return [classes.actions[c] for c in chosen]

    def recorded(self, device: str) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return tuple(torch.from_numpy(np.concatenate(parts)).to(device)
                     for parts in (self.indices, self.legal, self.targets))


class NeuralTransitionParser(NeuralParser):
    """A greedy transition-based parser scored by :class:`TransitionScorer`."""

    kind = "neural-transition"

    def __init__(self, model: TransitionScorer, vocabularies: EncoderVocabularies, system: TransitionSystem,
                 positions: PositionModel, labels: list[str], root_label: int, transforms: Sequence = (),
                 manifest: dict | None = None, device: str = "cpu"):
        super().__init__(model, vocabularies, labels, transforms, manifest, device)
        self.system, self.positions, self.root_label = system, positions, root_label
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

    # --- parsing -----------------------------------------------------------------------

    def encode(self, batch: list[Sentence], word_dropout: float = 0.0,
               rng: np.random.Generator | None = None) -> tuple[torch.Tensor, int]:
        """The node vectors of a batch, ``[sentences · longest, width]``, and ``longest``."""
        encoded = [self.vocabularies.encode(sentence) for sentence in batch]
        tensors = make_batch(encoded, self.vocabularies, self.device, word_dropout, rng)
        vectors = self.model.encoder(tensors)
        return vectors.reshape(-1, vectors.shape[-1]), vectors.shape[1]

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
        was_training = self.model.training
        self.model.eval()
        with torch.inference_mode():
            vectors, longest = self.encode(batch)
            states = [system.initial(len(sentence)) for sentence in batch]
            if self.beam > 1:
                states = self._beam_states(batch, self.model.parts(vectors), longest, given)
                steps = None
            else:
                kept = self.confidence is not None or self.valid_ud is not None  # valid_ud: finish weighs labels
                steps = ArcSteps(system, states, self.classes.table[:, 0]) if kept else None
                policy = FollowScores(self, self.model.parts(vectors), longest, states, stats, guides(system, given),
                                      steps)
                stats.forced += advance(system, states, policy)
        self.model.train(was_training)
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
            self.set_tree(sentence, heads, [""] + [self.labels[label] for label in label_ids[1:]],
                          arcs, system.single_root)
        if self.confidence is not None and evidence is not None:  # each word keeps its arc's probabilities
            self.confidence.write(batch, evidence, self.calibrated)  # through the inverse transforms

    def _beam_states(self, batch: list[Sentence], parts: torch.Tensor, longest: int, given: list) -> list[State]:
        """The best final configuration of each sentence of ``batch`` with the beam, each item held to
        the ``given`` arcs."""
        if self.confidence is not None:
            raise BarleyError("--confidence is not yet written with a beam (--beam): its probabilities are those "
                              "of the greedy parser's steps", fix="parse with --beam 1 for --confidence")
        scorer = BatchScorer(self, parts, longest, [None] * len(batch))

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
                "scorer": {"hidden": self.model.hidden.out_features},
                "root_label": self.labels[self.root_label]}

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> NeuralTransitionParser:
        """A parser from the manifest and arrays of :meth:`to_files`, each checked before the model is
        built (:mod:`barley.model_check`)."""
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
            model = check.weights_of(lambda: TransitionScorer(encoder, scorer, vocabularies.sizes(), len(positions),
                                                              classes), arrays)
            return cls(model, vocabularies, system, positions, labels, root_label, of_manifest(manifest), manifest)


# --- training ---------------------------------------------------------------------------

def train_neural_transition(sentences: list[Sentence], trees: list[tuple[list[int], list[int]]],
                            labels: list[str], root_label: int, *, system: TransitionSystem,
                            positions: PositionModel, encoder: EncoderOptions, scorer: TransitionOptions,
                            training: Training, dynamic: bool, explore_after: int, explore_p: float,
                            transforms: Sequence = (), dev: list[Sentence] | None, pretrained: str | None, seed: int, device: str,
                            threads: int, log: Callable[[str], None]) -> NeuralTransitionParser:
    """Fit a neural transition parser on (already transformed) gold trees (heads and label ids); the
    ``transforms`` are undone on the dev parses, so that dev LAS is scored on the treebank's own trees."""
    from barley.kinds import evaluate_parser

    with deterministic(seed, device, threads):
        encoder, vocabularies, vectors = encoder_vocabularies(sentences, encoder, pretrained, log)
        classes = Classes(system, labels)
        model = TransitionScorer(encoder, scorer, vocabularies.sizes(), len(positions), len(classes.table))
        model.to(device)
        use_pretrained(model.encoder, vocabularies, vectors, pretrained, log)
        parser = NeuralTransitionParser(model, vocabularies, system, positions, labels, root_label, transforms,
                                        device=device)
        log_sizes(vocabularies, labels, model, device, threads, log)
        oracle = (f"dynamic oracle, following costly predictions with p = {explore_p} after {explore_after} epochs"
                  if dynamic else "static oracle")
        log(f"scorer: {len(positions)} positions from {positions.source}, hidden layer {scorer.hidden}, "
            f"{len(classes.table)} classes; {oracle}")
        outside = sum(not run_oracle(system, heads, label_ids, root_label).reproduced for heads, label_ids in trees)
        log(f"outside {system.name}'s class: {outside} of {len(trees)} training trees (the oracles aim at the "
            "nearest tree the system can build)")
        oracles = [Oracle(system, heads, label_ids) for heads, label_ids in trees]
        rng = np.random.default_rng(seed)
        epoch = {"number": 1, "steps": 0, "mistakes": 0, "explored": 0}

        def step(indices: list[int]) -> torch.Tensor:
            vectors, longest = parser.encode([sentences[k] for k in indices], encoder.word_dropout, rng)
            with torch.no_grad():
                parts = model.parts(vectors.detach())
            states = [system.initial(len(trees[k][0]) - 1) for k in indices]
            policy = Learn(parser, parts, longest, states, [oracles[k] for k in indices],
                           [sentences[k] for k in indices], dynamic,
                           explore_p if epoch["number"] > explore_after else 0.0, rng)
            advance(system, states, policy)
            for name in ("steps", "mistakes", "explored"):
                epoch[name] += getattr(policy, name)
            return model.loss(model.parts(vectors), *policy.recorded(device))

        def after_epoch(number: int) -> str:
            text = (f", {epoch['mistakes']} of {epoch['steps']} predictions cost something "
                    f"({100.0 * epoch['mistakes'] / max(epoch['steps'], 1):.1f}%), {epoch['explored']} followed"
                    if dynamic else f", {epoch['steps']} steps")
            epoch.update(number=number + 1, steps=0, mistakes=0, explored=0)
            return text

        history = fit_epochs(parser, model, [len(s) for s in sentences], step, training, dev, rng, log,
                             evaluate_parser, after_epoch)
    parser.model.cpu()
    parser.device = "cpu"
    parser.stats = ParseStats()  # the dev parses of training are not the user's
    parser.manifest["training"] = {**history, "outside_class_sentences": outside}
    return parser
