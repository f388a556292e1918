"""Graph-based parsing from sentences to sentences: training data in, model file out.

The same pipeline as the transition-based parser (:mod:`barley.transition.parser`): gold trees
pass through the transforms before training and parser output through their
inverses; the model file is the same zip of a JSON manifest and numpy arrays, with
``"parser": "graph"`` in the manifest so that :func:`barley.load` knows which kind
to rebuild.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from barley import __version__
from barley.conllu import FEATS, FORM, LEMMA, UPOS, XPOS, Sentence
from barley.constraints import ArcOptions, decoder_class
from barley.features.vocabulary import ROOT, Vocabulary, build_vocabularies, describe_vocabularies
from barley.decoders.decoding import check_k_best, check_length, default_max_words
from barley.graph.features import Tokens
from barley.decoders.marginals import ArcEvidence
from barley.graph.model import GraphOptions
from barley.graph.parser import GraphParser
from barley.kinds import ParserKind, options_of
from barley.models import check
from barley.nbest import EMPTY_TREE, analyses
from barley.transforms import describe_transforms, of_manifest
from barley.trained_parser import ParserShell
from barley.tree import crossing_share, label_ids, label_table


@dataclass
class GraphParseStats:
    """Counts over all parsed sentences (reported by ``barley parse``)."""

    sentences: int = 0
    words: int = 0
    approximation_moves: int = 0

    def summary(self) -> str:
        return (f"{self.sentences} sentences, {self.words} words; "
                f"{self.approximation_moves} non-projective approximation moves")


class TrainedGraphParser(ParserShell):
    """A graph-based parser with its vocabularies, labels and transforms."""

    kind = "graph"
    capabilities = frozenset({"max_words", "nbest"})  # barley.capabilities

    def __init__(self, graph: GraphParser, labels: list[str], upos: Vocabulary, xpos: Vocabulary,
                 transforms: Sequence = (), manifest: dict | None = None):
        super().__init__(labels, transforms, manifest)
        self.graph = graph
        self.upos = upos
        self.xpos = xpos
        self.stats = GraphParseStats()
        self.max_words = default_max_words(graph.options)  # barley parse --max-words

    def tokens(self, sentence: Sentence) -> Tokens:
        return Tokens.encode([w[FORM] for w in sentence.words],
                             [ROOT] + [self.upos.id(w[UPOS]) for w in sentence.words],
                             [ROOT] + [self.xpos.id(w[XPOS]) for w in sentence.words],
                             [w[LEMMA] for w in sentence.words], [w[FEATS] for w in sentence.words])

    def parse(self, sentences: Iterable[Sentence], arcs: ArcOptions | None = None) -> Iterator[Sentence]:
        """Parse sentences (in place) and yield them; only HEAD and DEPREL change. ``arcs``: keep
        the given arcs and avoid the forbidden ones (:mod:`barley.constraints`). With ``nbest`` set
        (``barley parse --nbest``), yield the k best analyses of each (:mod:`barley.nbest`)."""
        options = self.graph.options
        name = f"{('first', 'second')[options.order - 1]}-order graph-based parser"
        for sentence in sentences:
            if len(sentence) == 0:
                yield from [sentence] if self.nbest is None else analyses(sentence, [EMPTY_TREE], self.set_tree)
                continue
            check_length(sentence, self.max_words, name)
            self.stats.sentences += 1
            self.stats.words += len(sentence)
            if self.nbest is not None:  # not with arcs (Pipeline.parse refuses the two together)
                ranked = [(score, heads, self.deprels(label_ids))
                          for score, heads, label_ids in self.graph.parse_k_best(self.tokens(sentence), self.nbest)]
                yield from analyses(sentence, ranked, self.set_tree)
                continue
            [given] = self.given([sentence], arcs, decoder_class(options), f"{name} ({options.decoder})")
            heads, label_ids, moves, scores = self.graph.parse_scored(
                self.tokens(sentence), None if self.confidence is None else self.calibrated.temperature, given)
            self.stats.approximation_moves += moves
            self.set_tree(sentence, heads, self.deprels(label_ids), given, options.single_root)
            if self.confidence is not None:
                self._write_confidence(sentence, scores, heads, label_ids)
            yield sentence

    def _write_confidence(self, sentence: Sentence, scores, heads: np.ndarray, label_ids: np.ndarray) -> None:
        """The heads' probabilities from the arc scores (tree marginals for the MST decoder, else the
        softmax over heads; a second-order model's sibling scores left out), the labels' as scored."""
        nodes = np.arange(1, len(heads))
        arc = scores.arc.astype(np.float64)
        arc[:, 0] = -np.inf
        np.fill_diagonal(arc, -np.inf)
        evidence = ArcEvidence(self.graph.options.decoder, self.graph.options.single_root, [arc], [heads], None,
                               label_ids[1:], scores.label_probability[heads[1:], nodes])
        assert self.confidence is not None
        self.confidence.write([sentence], evidence, self.calibrated)

    def set_nbest(self, k: int | None) -> None:
        """Parse into the ``k`` best trees of each sentence (None: the best tree only)."""
        if k is not None:
            check_k_best(self.graph.options)
        self.nbest = k

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        """The manifest and arrays of this parser (what :meth:`save` writes; a pipeline embeds them)."""
        options = self.graph.options
        manifest = dict(self.manifest)
        manifest.update({
            "barley_version": __version__,
            "parser": "graph",
            "graph": {"decoder": options.decoder, "order": options.order, "npa_threshold": options.npa_threshold,
                      "epochs": options.epochs, "dims": options.dims, "label_rows": options.label_rows,
                      "seed": options.seed, "single_root": options.single_root,
                      "crossing_arcs": options.crossing_arcs},
            "labels": self.labels,
            "vocabularies": {"UPOS": self.upos.to_json(), "XPOS": self.xpos.to_json()},
            "transforms": [t.to_json() for t in self.transforms],
        })
        return manifest, self.graph.arrays()

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> TrainedGraphParser:
        """A parser from the manifest and arrays of :meth:`to_files`, each checked first
        (:mod:`barley.models.check`)."""
        with check.loading(path, "graph"):
            options = GraphOptions.from_json(manifest["graph"])
            labels = check.texts(manifest["labels"], "the labels", field=True, unique=True)
            vocabularies = check.mapping(manifest["vocabularies"], "the vocabularies")
            upos, xpos = (Vocabulary(check.texts(vocabularies[name], f"the {name} vocabulary"))
                          for name in ("UPOS", "XPOS"))
            graph = GraphParser.from_arrays(options, arrays, n_labels=len(labels), n_upos=len(upos))
            return cls(graph, labels, upos, xpos, of_manifest(manifest), manifest)


def train_graph(sentences: list[Sentence], trees: list[tuple[list[int], list[str]]], *, source: str,
                options: GraphOptions, transforms: Sequence = (), log: Callable[[str], None]) -> TrainedGraphParser:
    """Fit a graph-based parser on (already transformed) gold trees of ``sentences``."""
    labels, _ = label_table(trees)
    upos, xpos = build_vocabularies(sentences, ["UPOS", "XPOS"]).values()
    words = sum(len(s) for s in sentences)
    order = {1: "first order (arcs)", 2: "second order (arcs + adjacent siblings)"}[options.order]
    log(f"training a graph-based parser on {source}: {len(sentences)} sentences, {words} words; "
        f"{order}, decoder {options.decoder}"
        + (f" (threshold {options.npa_threshold})" if options.decoder == "eisner+npa" else "")
        + f", averaged perceptron, {options.epochs} epochs, 2^{options.dims.bit_length() - 1} hashed weights")
    log(f"vocabularies: UPOS {len(upos) - 3}, XPOS {len(xpos) - 3}, DEPREL {len(labels)}")
    parser = TrainedGraphParser(GraphParser(options, len(labels), len(upos)), labels, upos, xpos, transforms)
    data = [(parser.tokens(sentence), np.asarray(heads, dtype=np.int64), np.array(ids, dtype=np.int64))
            for sentence, (heads, _), ids in zip(sentences, trees, label_ids(trees, labels))]
    started = time.perf_counter()
    per_epoch = _seconds_per_epoch(sentences, options)
    log(f"about {per_epoch:.0f} s per epoch, {per_epoch * options.epochs:.0f} s in all")
    parser.graph.fit(data, log=log)
    log(f"fitted in {time.perf_counter() - started:.1f} s")
    return parser


def _seconds_per_epoch(sentences: Sequence[Sentence], options: GraphOptions) -> float:
    """A rough forecast: cost grows with the square (cube for second order) of the length."""
    power = 3 if options.order == 2 else 2
    units = sum((len(s) + 1) ** power for s in sentences)
    return units * (4e-6 if power == 2 else 1.5e-7) + len(sentences) * 3e-3


def train_kind(sentences: list[Sentence], trees: list[tuple[list[int], list[str]]], *, source: str,
               single_root: bool, seed: int, tags: str, transforms: Sequence, log: Callable[[str], None],
               graph: GraphOptions | None = None, decoder: str | None = None, order: int | None = None,
               npa_threshold: float | None = None, epochs: int | None = None) -> TrainedGraphParser:
    """A graph-based parser (the ``graph`` kind of :func:`barley.kinds.train`): ``graph`` its
    options, each of ``decoder``, ``order``, ``npa_threshold``, ``epochs`` given overriding them."""
    given: dict[str, Any] = {"decoder": decoder, "order": order, "npa_threshold": npa_threshold, "epochs": epochs}
    options = replace(graph or GraphOptions(), seed=seed, single_root=single_root,
                      crossing_arcs=crossing_share(heads for heads, _ in trees),
                      **{name: value for name, value in given.items() if value is not None})
    options.check()
    trained = train_graph(sentences, trees, source=source, options=options, transforms=transforms, log=log)
    trained.manifest["training"] = {}
    return trained


def describe(manifest: dict) -> list[str]:
    """The lines of ``barley info`` about a graph-based parser."""
    from barley.decoders.decoding import describe as describe_decoding

    graph, training = manifest.get("graph", {}), manifest.get("training", {})
    return [
        f"parser:      graph-based, order {graph.get('order')}, {describe_decoding(graph)}",
        describe_transforms(manifest),
        f"learner:     averaged perceptron, {graph.get('epochs')} epochs, {graph.get('dims')} hashed weights, "
        f"seed {graph.get('seed')}",
        f"labels:      {len(manifest.get('labels', []))}",
        describe_vocabularies(manifest),
        f"training:    {training.get('data')}: {training.get('sentences')} sentences, {training.get('words')} "
        f"words; tags {training.get('tags')}" + (f"; {training['seconds']} s" if "seconds" in training else ""),
    ]


GRAPH = ParserKind("graph", options_of(train_kind), train_kind, TrainedGraphParser.from_files, describe)
