"""Training the learned enhanced head (:mod:`barley.enhanced.head`) with PyTorch, on a trained joint network.

The network is frozen: the training sentences are parsed once by it (gold tokenization, every
column predicted, UD's rules kept as ``barley parse`` keeps them), which gives each sentence its
parser vectors and the basic tree the head will see at parse time; the head then learns from
those and the gold DEPS column (Dozat and Manning 2018, §2: the sigmoid cross-entropy of every
pair's edge plus the cross-entropy of each gold edge's label). A frozen network leaves the basic
tree, the tags and the speed without ``--enhanced`` as they were, and an epoch takes seconds
rather than the network's minutes. Early stopping follows ELAS on dev (parsed likewise), scored
by the numpy head on a snapshot of the weights (:func:`barley.neural.fitting.on_snapshots`), as
the saved model will parse.

The conventions the head lexicalises with (:class:`barley.enhanced.rules.Conventions`) are those
of :data:`barley.enhanced.rules.CONVENTIONS` whose rules best reproduce the training graphs from
their gold trees (:func:`fitted_conventions`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np
import torch
from torch import nn

from barley.conllu import DEPS, ID, Sentence
from barley.enhanced.deps import parse_deps
from barley.enhanced.head import (PAIR_KINDS, EnhancedHead, HeadOptions, HeadTable, PairFeatures, label_class)
from barley.enhanced.rules import CONVENTIONS, DEFAULT, Conventions, enhanced_arcs
from barley.neural.biaffine_model import MLP, Biaffine
from barley.neural.fitting import deterministic, fit_epochs, network_weights, on_snapshots
from barley.neural.inputs import PARSE_BATCH_WORDS, by_length
from barley.neural.options import Training
from barley.valid_ud import UDRules

TRAINING = Training(epochs=30, patience=5, batch_words=2000, learning_rate=2e-3, lr_schedule="cosine")
"""The head's training by default: small (a few hundred thousand weights over fixed vectors), so
large minibatches."""
DROPOUT = 0.33
"""On the frozen vectors and after each MLP: the network's vectors of its own training sentences
are cleaner than those of new text."""
CONVENTION_SENTENCES = 3000
"""Training sentences whose graphs choose the conventions (:func:`fitted_conventions`)."""


def enhanced_share(sentences: Sequence[Sentence]) -> float:
    """The share of words whose DEPS holds an enhanced graph (not ``_``)."""
    words = [word for sentence in sentences for word in sentence.words]
    return sum(word[DEPS] != "_" and not word[DEPS].isdigit() for word in words) / max(1, len(words))


def gold_arcs(sentence: Sentence) -> list[set[tuple[int, str]]]:
    """The gold enhanced arcs of every word (entry 0 empty), those from empty nodes left out."""
    arcs: list[set[tuple[int, str]]] = [set()]
    for word in sentence.words:
        arcs.append({(int(head), relation) for head, relation in parse_deps(word[DEPS], len(sentence),
                                                                           sentence.source, sentence.line)
                     if "." not in head})
    return arcs


def without_empty_nodes(sentence: Sentence) -> Sentence:
    copy = sentence.copy()
    copy.rows = [row for row in copy.rows if "." not in row[ID]]
    return copy


def fitted_conventions(sentences: Sequence[Sentence]) -> Conventions:
    """Of the conventions barley knows (:data:`CONVENTIONS`, the default first), those whose rules on
    the gold trees of ``sentences`` (the first :data:`CONVENTION_SENTENCES`) match most of their gold
    enhanced arcs (F1)."""
    sample = [without_empty_nodes(s) for s in sentences[:CONVENTION_SENTENCES]]
    gold = [gold_arcs(s) for s in sample]

    def f1(conventions: Conventions) -> float:
        found = correct = expected = 0
        for sentence, truth in zip(sample, gold):
            for made, wanted in zip(enhanced_arcs(sentence, conventions), truth):
                found, expected, correct = found + len(made), expected + len(wanted), correct + len(made & wanted)
        return 2 * correct / max(1, found + expected)

    candidates = list(dict.fromkeys([DEFAULT, *CONVENTIONS.values()]))
    return max(candidates, key=f1)  # the first of the best


@dataclass
class ParsedSentence:
    """A sentence as the head learns from it: parsed by the network (``parsed``: its tree, tags and
    lemmas), its parser vectors ``[n + 1, width]``, the pair features and the gold graph's edges and
    label classes ``[dependent, head]`` (-1: no edge)."""

    parsed: Sentence
    vectors: np.ndarray
    features: PairFeatures
    edges: np.ndarray
    labels: np.ndarray
    gold: list[set[tuple[int, str]]]


class _Recorder:
    """A network that keeps the parser vectors of the last batch it ran."""

    def __init__(self, network):
        self.network, self.vectors = network, None

    def outputs(self, padded):
        outputs = self.network.outputs(padded)
        self.vectors = outputs.parser_vectors
        return outputs


def label_classes(sentences: Sequence[Sentence], basic: frozenset[str]) -> list[str]:
    """The label classes (:func:`barley.enhanced.head.label_class`) of the gold graphs of ``sentences``,
    in order of first occurrence."""
    found: dict[str, None] = {}
    for sentence in sentences:
        for arcs in gold_arcs(without_empty_nodes(sentence)):
            for _, relation in sorted(arcs):
                found.setdefault(label_class(relation, basic))
    return list(found)


def parsed_sentences(parser, sentences: Sequence[Sentence], table: HeadTable) -> list[ParsedSentence]:
    """``sentences`` parsed by the joint ``parser`` (:class:`barley.neural.joint.JointParser`) with their
    vectors, features and gold targets (a gold label of a class the table lacks is no label target)."""
    from barley.neural.joint import JointParser

    recorder = _Recorder(parser.network)
    annotator = replace(parser.annotator, nbest=None, enhancer=None,
                        valid_ud=UDRules(parser.annotator.tables.labels))  # as barley parse: UD's rules kept
    reading = JointParser(recorder, parser.vocabularies, annotator)
    vectors: dict[int, np.ndarray] = {}

    def annotate(batch: list[Sentence]) -> None:
        reading.annotate_batch(batch)
        for k, sentence in enumerate(batch):
            vectors[id(sentence)] = recorder.vectors[k, :len(sentence) + 1].copy()

    golds = [without_empty_nodes(s) for s in sentences if len(s)]
    copies = list(by_length([s.copy() for s in golds], annotate, PARSE_BATCH_WORDS))
    found = []
    for gold, copy in zip(golds, copies):
        arcs = gold_arcs(gold)
        size = len(gold) + 1
        edges = np.zeros((size, size), dtype=bool)
        labels = np.full((size, size), -1, dtype=np.int64)
        for dependent, word_arcs in enumerate(arcs):
            for head, relation in word_arcs:
                edges[dependent, head] = True
                labels[dependent, head] = table.ids.get(label_class(relation, table.basic), -1)
        found.append(ParsedSentence(copy, vectors[id(copy)], table.features(copy), edges, labels, arcs))
    return found


class EnhancedHeadModel(nn.Module):
    """The head in PyTorch (the numpy :class:`barley.enhanced.head.EnhancedHead`'s twin, the same names)."""

    def __init__(self, width: int, options: HeadOptions, classes: int, dropout: float):
        """Biases start at zero: :meth:`start_from` sets them from the training data."""
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.edge_dep, self.edge_head = (MLP(width, options.edge_mlp, dropout) for _ in range(2))
        self.label_dep, self.label_head = (MLP(width, options.label_mlp, dropout) for _ in range(2))
        self.edge_attention = Biaffine(options.edge_mlp, 1, bias_x=True, bias_y=True)
        self.label_attention = Biaffine(options.label_mlp, classes, bias_x=True, bias_y=True)
        self.pair_bias = nn.Parameter(torch.zeros(PAIR_KINDS))
        self.rule_edge = nn.Parameter(torch.zeros(classes + 1))
        self.rule_label = nn.Parameter(torch.zeros(classes + 1, classes))

    @torch.no_grad()
    def start_from(self, items: Sequence[ParsedSentence], no_rule: int) -> None:
        """The biases at the log-odds the training data gives them (add-one smoothed): of an edge for each
        pair kind, of each label for each class of the rules' label. Adam's small steps would take
        epochs to move a bias from 0 to the ±5 that a pair the rules make, or do not, deserves; started
        there, the head begins as the rules and learns where they are wrong."""
        edges = np.zeros((PAIR_KINDS, 2))
        labels = np.ones((no_rule + 1, no_rule))
        for item in items:
            pairs = ~np.eye(len(item.vectors), dtype=bool)
            pairs[0] = False
            np.add.at(edges, (item.features.kinds[pairs], item.edges[pairs].astype(np.int64)), 1)
            gold = item.labels >= 0
            np.add.at(labels, (item.features.rule_classes[gold], item.labels[gold]), 1)
        edges += 1
        self.pair_bias.copy_(torch.from_numpy(np.log(edges[:, 1] / edges[:, 0])))
        self.rule_label.copy_(torch.from_numpy(np.log(labels / labels.sum(axis=1, keepdims=True))))

    def edge_scores(self, vectors: torch.Tensor) -> torch.Tensor:
        """:meth:`barley.enhanced.head.EnhancedHead.edge_scores`' twin."""
        return self.edge_attention(self.edge_dep(vectors), self.edge_head(vectors))[..., 0]

    def loss(self, vectors: torch.Tensor, kinds: torch.Tensor, rules: torch.Tensor, edges: torch.Tensor,
             labels: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
        """``vectors [B, T, width]``; the rest ``[B, T (dependent), T (head)]``; ``pairs``: the pairs that
        count (a word and another node of its sentence)."""
        vectors = self.dropout(vectors)
        scores = self.edge_scores(vectors) + self.pair_bias[kinds] + self.rule_edge[rules]
        total = nn.functional.binary_cross_entropy_with_logits(scores[pairs], edges[pairs].float())
        batch, dependent, head = (labels >= 0).nonzero(as_tuple=True)
        if len(batch):
            label_dep, label_head = self.label_dep(vectors), self.label_head(vectors)
            label_scores = self.label_attention.aligned(label_dep[batch, dependent][None],
                                                        label_head[batch, head][None])[0]
            label_scores = label_scores + self.rule_label[rules[batch, dependent, head]]
            total = total + nn.functional.cross_entropy(label_scores, labels[batch, dependent, head])
        return total


class _DevGraphs:
    """The numpy head on a snapshot of the weights, as :func:`fit_epochs`' parser."""

    def __init__(self, table: HeadTable):
        self.table = table
        self.head: EnhancedHead | None = None

    def use_weights(self, weights: dict[str, np.ndarray]) -> None:
        self.head = EnhancedHead(self.table, weights)


def graph_scores(head: EnhancedHead, sentences: Sequence[ParsedSentence]) -> dict:
    """ELAS (F1 of (head, dependent, relation), empty nodes left out) of ``head`` on ``sentences``."""
    found = expected = correct = 0
    for start in range(0, len(sentences), 64):
        batch = sentences[start:start + 64]
        width = batch[0].vectors.shape[1]
        padded = np.zeros((len(batch), max(len(s.vectors) for s in batch), width), dtype=np.float32)
        for k, item in enumerate(batch):
            padded[k, :len(item.vectors)] = item.vectors
        for item, deps in zip(batch, head.graphs([item.parsed for item in batch], padded)):
            for value, wanted in zip(deps, item.gold[1:]):
                made = {(int(h), r) for h, r in parse_deps(value, len(deps))}
                found, expected, correct = found + len(made), expected + len(wanted), correct + len(made & wanted)
    return {"ELAS": round(200 * correct / max(1, found + expected), 2)}


def train_head(parser, sentences: list[Sentence], dev: list[Sentence] | None, training: Training, *,
               options: HeadOptions, seed: int, threads: int, log: Callable[[str], None]
               ) -> tuple[HeadTable, dict[str, np.ndarray], dict]:
    """Fit an enhanced head on the joint ``parser``'s frozen vectors of ``sentences`` (gold DEPS), the
    epoch kept chosen by ELAS on ``dev`` (without one, on the last tenth of ``sentences``). Returns its
    table, its weights (PyTorch's names) and the training history."""
    if dev is None:
        kept = len(sentences) - max(1, len(sentences) // 10)
        sentences, dev = sentences[:kept], sentences[kept:]
        log(f"enhanced head: no dev set, the last {len(dev)} training sentences are held out")
    conventions = fitted_conventions(sentences)
    log(f"enhanced head: the rules' conventions closest to the training graphs: {asdict(conventions)}")
    basic = parser.annotator.tables.labels
    table = HeadTable(label_classes(sentences, frozenset(basic)), basic, conventions)
    log(f"enhanced head: parsing {len(sentences)} training and {len(dev)} dev sentences with the network")
    train_items = parsed_sentences(parser, sentences, table)
    dev_items = parsed_sentences(parser, dev, table)
    width = train_items[0].vectors.shape[1]
    log(f"enhanced head: {len(table.classes)} label classes; edge MLP {options.edge_mlp}, label MLP {options.label_mlp} "
        f"over the parser's vectors ({width})")
    rng = np.random.default_rng(seed)
    with deterministic(seed, "cpu", threads):
        model = EnhancedHeadModel(width, options, len(table.classes), DROPOUT)
        model.start_from(train_items, table.none)

        def step(indices: list[int]) -> torch.Tensor:
            return model.loss(*_batch([train_items[k] for k in indices], table.none))

        history = fit_epochs(_DevGraphs(table), model, [len(item.vectors) - 1 for item in train_items], step,
                             training, dev_items, rng, log,
                             on_snapshots(lambda graphs, items: graph_scores(graphs.head, items), model),
                             criterion="ELAS", shown=("ELAS",))
    return table, network_weights(model), history


def _batch(items: Sequence[ParsedSentence], no_rule: int) -> tuple[torch.Tensor, ...]:
    """Padded tensors of a minibatch for :meth:`EnhancedHeadModel.loss`."""
    size = max(len(item.vectors) for item in items)
    vectors = np.zeros((len(items), size, items[0].vectors.shape[1]), dtype=np.float32)
    kinds = np.zeros((len(items), size, size), dtype=np.int64)
    rules = np.full((len(items), size, size), no_rule, dtype=np.int64)
    edges = np.zeros((len(items), size, size), dtype=bool)
    labels = np.full((len(items), size, size), -1, dtype=np.int64)
    pairs = np.zeros((len(items), size, size), dtype=bool)
    for k, item in enumerate(items):
        n = len(item.vectors)
        vectors[k, :n] = item.vectors
        kinds[k, :n, :n], rules[k, :n, :n] = item.features.kinds, item.features.rule_classes
        edges[k, :n, :n], labels[k, :n, :n] = item.edges, item.labels
        pairs[k, 1:n, :n] = ~np.eye(n, dtype=bool)[1:]
    return tuple(torch.from_numpy(array) for array in (vectors, kinds, rules, edges, labels, pairs))
