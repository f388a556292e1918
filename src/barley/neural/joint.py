"""The joint tagger, lemmatizer and parser at inference: numpy only, never PyTorch.

One network (UDPipe 2's shape, Straka 2018 §3): an encoder over the words' forms
(:mod:`barley.neural.encoder`: a lower-cased form embedding and a character BiLSTM over
the form as written, then a BiLSTM) feeds every head — a linear layer each for UPOS,
XPOS, UFeats (the whole FEATS string as one class, as UDPipe does) and the lemma (an
edit-rule class, :mod:`barley.lemma_rules`, as UDPipe 2), and, through BiLSTM
layers of its own, Dozat & Manning's biaffine arc and label scorer
(:mod:`barley.neural.biaffine_model`). The encoder never reads a column a head predicts.

Training is :mod:`barley.neural.joint_training` (PyTorch). A trained network is its
arrays; :class:`NumpyJoint` runs them with :mod:`barley.neural.numpy_ops`, and
:class:`Annotator` turns either engine's outputs (:class:`JointOutputs`) into columns, so
that the PyTorch model (used on dev during training) and the numpy engine decode alike:
the tags are the best class of each head; the lemma is the training lemma of a known
(form, UPOS), else the best rule that applies to the form; the tree is the best tree of the arc scores (:func:`barley.neural.trees.best_tree`:
a word's arc scores differ from ``log P(head | word)`` by a constant per word, which
changes no tree), and each word's label the best at its chosen head (Dozat & Manning
2017 §3.2), scored for that head only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from barley.confidence import Calibrated, Confidence
from barley.conllu import DEPS, FORM, LEMMA, UPOS, Sentence
from barley.constraints import ArcOptions, SentenceArcs, decoder_class, labels_kept, settled, write_tree
from barley.decoders.decoding import check_k_best, check_length, default_max_words
from barley.decoders.marginals import ArcEvidence
from barley.decoders.options import DecoderOptions
from barley.enhanced.head import EnhancedHead
from barley.lemma_rules import apply_rule
from barley.nbest import analyses, expanded
from barley.neural import numpy_ops as ops
from barley.neural.inputs import PARSE_BATCH_WORDS, EncoderVocabularies, Padded, by_length, pad
from barley.neural.joint_tables import HEADS, TAGS, JointTables
from barley.neural.numpy_biaffine import MLPS, biaffine_shapes
from barley.neural.numpy_encoder import NumpyEncoder, Shapes, bilstm_layers, encoder_shapes, linear_shapes, lstm_shapes
from barley.neural.options import BiaffineOptions, EncoderOptions
from barley.neural.trees import BiaffineParseStats, best_tree, k_best_trees
from barley.tree import Heads
from barley.valid_ud import UDRules, given_words
from barley.valid_ud import require_support as require_valid_ud

TAG_ROWS = 4096
"""Words whose tag combinations are scored at a time (a ``[words, combinations]`` array)."""


@dataclass
class JointOutputs:
    """What a network computes for a padded batch of ``B`` sentences of at most ``T`` nodes."""

    word_vectors: np.ndarray     # [words, 2H]: the shared encoder's vectors of the words (not the root), in order
    tag_layers: dict[str, tuple[np.ndarray, np.ndarray]]  # each tagging head's linear layer: weight, bias
    arcs: np.ndarray             # [B, T (dependent), T (head)] arc scores
    label_dep: np.ndarray        # [B, T, label MLP]: each node as a dependent
    label_head: np.ndarray       # [B, T, label MLP]: each node as a head
    label_weight: np.ndarray     # the label biaffine's weight [labels, MLP + 1, MLP + 1]
    parser_vectors: np.ndarray   # [B, T, 2H]: the vectors the parser reads (the enhanced head's too)


@dataclass
class Annotator:
    """What turns a network's outputs into columns: the tables, the decoder and the transforms
    (undone on each tree); parse counts go to ``stats``; ``calibrated``: the confidence's temperature
    and head map (:mod:`barley.confidence`, fitted by ``barley calibrate``)."""

    tables: JointTables
    decoding: DecoderOptions
    transforms: Sequence = ()
    stats: BiaffineParseStats = field(default_factory=BiaffineParseStats)
    calibrated: Calibrated = field(default_factory=Calibrated)
    nbest: int | None = None  # barley parse --nbest: the k best trees of each sentence
    consistent_tags: bool = True  # UPOS, XPOS and FEATS a combination of training (where the tables have them)
    valid_ud: UDRules | None = None  # barley parse --valid-ud: the rules every tree keeps (barley.valid_ud)
    analyses: dict[int, list[Sentence]] = field(default_factory=dict)  # with nbest: each sentence's, by id()
    enhancer: LearnedEnhancer | None = None  # the learned enhanced head, where the network has one

    def annotate(self, sentences: Sequence[Sentence], outputs: JointOutputs, arcs: ArcOptions | None = None,
                 confidence: Confidence | None = None) -> None:
        """Write UPOS, XPOS, FEATS, LEMMA, HEAD and DEPREL of ``sentences`` (the batch of ``outputs``);
        ``arcs``: keep the given arcs and avoid the forbidden ones (:mod:`barley.constraints`); with
        ``confidence``, the heads' and labels' probabilities too (:class:`ArcEvidence`: the tree
        marginals of the arc scores for the MST decoder, their softmax over heads for the others;
        the softmax of the label scores at the chosen head)."""
        given = settled(sentences, arcs, self.tables.labels, decoder_class(self.decoding), "joint parser", self.transforms)
        lengths = [len(s) for s in sentences]
        words = [word for sentence in sentences for word in sentence.words]
        tags = self._tags(outputs)
        for name in TAGS:
            values, column = self.tables.values[name], HEADS[name]
            for word, value in zip(words, tags[name].tolist()):
                word[column] = values[value]
        self._lemmas(words, outputs)  # after UPOS, which the lemma dictionary reads
        arc_scores = [self._arc(outputs.arcs[k, :n + 1, :n + 1]) for k, n in enumerate(lengths)]
        if self.valid_ud is not None:
            arc_scores = [self.valid_ud.mask_arcs(arc, sentence.words, given_words(sentence_arcs))
                          for arc, sentence, sentence_arcs in zip(arc_scores, sentences, given)]
        ranked = [self._trees(arc, sentence_arcs) for arc, sentence_arcs in zip(arc_scores, given)]
        every = [(k, heads) for k, trees in enumerate(ranked) for _, heads in trees]  # labels for every tree at once
        rows = np.concatenate([np.full(lengths[k], k) for k, _ in every])
        nodes = np.concatenate([np.arange(1, lengths[k] + 1) for k, _ in every])
        chosen = np.concatenate([heads[1:] for _, heads in every])
        scores = ops.biaffine_aligned(ops.with_bias(outputs.label_dep[rows, nodes]),
                                      ops.with_bias(outputs.label_head[rows, chosen]), outputs.label_weight)
        best = scores.argmax(axis=1)
        if self.valid_ud is not None:
            best = self._valid_trees(sentences, ranked, arc_scores, scores, best, given)
        labels = best.tolist()
        start = 0
        for sentence, trees, sentence_arcs in zip(sentences, ranked, given):
            labelled = []
            for score, heads in trees:
                label_ids = labels_kept([-1, *labels[start:start + len(sentence)]], sentence_arcs)
                labelled.append((score, heads.tolist(), [""] + [self.tables.labels[label] for label in label_ids[1:]]))
                start += len(sentence)
            if self.nbest is None:
                write_tree(sentence, *labelled[0][1:], self.transforms, sentence_arcs, self.decoding.single_root)
            else:
                self.analyses[id(sentence)] = analyses(sentence, labelled, self.set_tree)
        if self.enhancer is not None and self.enhancer.active:  # without nbest (Pipeline.parse refuses both)
            self.enhancer.head.write(sentences, outputs.parser_vectors)
        if confidence is not None:  # without nbest (Pipeline.parse refuses both): the best tree's labels alone
            best_heads = [trees[0][1] for trees in ranked]
            confidence.write(sentences, ArcEvidence(self.decoding.decoder, self.decoding.single_root, arc_scores,
                                                    best_heads, scores, best), self.calibrated)

    def _tags(self, outputs: JointOutputs) -> dict[str, np.ndarray]:
        """Each word's class for each head of :data:`TAGS`: each head's best class, or with
        ``consistent_tags`` (and tables that hold them) the combination of training with the best sum
        of the three heads' log-probabilities, so that no word gets a UPOS, XPOS and FEATS that were
        never seen together (the constrained decode of the joint tagging heads: Straka 2018 §3 leaves
        them independent, and an XPOS may then contradict the UPOS)."""
        scores = {name: ops.linear(outputs.word_vectors, *outputs.tag_layers[name]) for name in TAGS}
        sets = self.tables.tag_sets
        if not self.consistent_tags or sets is None:
            return {name: score.argmax(axis=1) for name, score in scores.items()}
        log_p = [ops.log_softmax(scores[name]) for name in TAGS]
        chosen = np.empty(len(outputs.word_vectors), dtype=np.int64)
        for start in range(0, len(chosen), TAG_ROWS):
            rows = slice(start, start + TAG_ROWS)
            total = log_p[0][rows][:, sets[:, 0]]
            for k in range(1, len(TAGS)):
                total += log_p[k][rows][:, sets[:, k]]
            chosen[rows] = total.argmax(axis=1)
        return {name: sets[chosen, k] for k, name in enumerate(TAGS)}

    def _valid_trees(self, sentences: Sequence[Sentence], ranked: list, arc_scores: list[np.ndarray],
                     scores: np.ndarray, best: np.ndarray, given: list[SentenceArcs | None]) -> np.ndarray:
        """``best`` (each word's best label at its head, sentence after sentence) and each sentence's best
        tree in ``ranked`` made to keep UD's rules (:meth:`barley.valid_ud.UDRules.keep`: relabelled where
        they break one, punctuation attached projectively, the given arcs left as they are)."""
        assert self.valid_ud is not None
        best, start = best.copy(), 0
        for k, sentence in enumerate(sentences):
            stop = start + len(sentence)
            heads, label_ids = self.valid_ud.keep(ranked[k][0][1], [-1, *best[start:stop].tolist()], scores[start:stop],
                                                  arc_scores[k], sentence.words, given_words(given[k]), self.stats)
            best[start:stop] = label_ids[1:]
            ranked[k][0] = (ranked[k][0][0], np.array(heads))
            start = stop
        return best

    def set_tree(self, sentence: Sentence, heads: Heads, deprels: list[str]) -> None:
        """A parsed tree (of the transformed treebank) into ``sentence``, through the inverse transforms."""
        write_tree(sentence, heads, deprels, self.transforms)

    @staticmethod
    def _arc(arcs: np.ndarray) -> np.ndarray:
        """A sentence's arc scores ``[head, dependent]``, as the decoders read them (-inf: impossible)."""
        arc = arcs.T.astype(np.float64)
        arc[:, 0] = -np.inf
        np.fill_diagonal(arc, -np.inf)
        return arc

    def _trees(self, arc: np.ndarray, given: SentenceArcs | None = None) -> list[tuple[float, np.ndarray]]:
        """The best tree of the arc scores ``arc`` (:meth:`_arc`, keeping the ``given`` arcs), or with
        ``nbest`` the k best scored by ``log P(heads)`` (the arc scores made log-probabilities per word,
        which changes no tree's rank), as (score, heads). ``nbest`` is not combined with given arcs
        (Pipeline.parse refuses)."""
        if self.nbest is None:
            return [(0.0, best_tree(self.decoding, arc, self.stats, given))]
        arc = arc.copy()
        arc[:, 1:] -= np.logaddexp.reduce(arc[:, 1:], axis=0)
        return k_best_trees(self.decoding, arc, self.nbest, self.stats)

    def _lemmas(self, words: list[list[str]], outputs: JointOutputs) -> None:
        """A (form, UPOS) seen in training takes its most frequent lemma there, as UDPipe 1's and
        Stanza's lemmatizers do (on EWT dev, 98.9 % right for those pairs, against 96.8 % for the
        network's rules); another form, the best rule that applies to it (a rule cutting what the
        form lacks does not), scored for those words only."""
        known = self.tables.lemmas
        lemmas = [known.get((word[FORM], word[UPOS])) for word in words]
        unknown = [k for k, lemma in enumerate(lemmas) if lemma is None]
        if unknown:
            scores = ops.linear(outputs.word_vectors[unknown], *outputs.tag_layers["lemma"])
            for k, row in zip(unknown, scores):
                lemmas[k] = self._rule_lemma(words[k][FORM], row)
        for word, lemma in zip(words, cast(list[str], lemmas)):
            word[LEMMA] = lemma

    def _rule_lemma(self, form: str, scores: np.ndarray) -> str:
        """The lemma of the best-scoring rule that applies to ``form`` (the form itself if none does)."""
        rules = self.tables.values["lemma"]
        lemma = apply_rule(form, rules[int(scores.argmax())])
        if lemma is None:
            lemma = next((found for found in (apply_rule(form, rules[r]) for r in np.argsort(-scores))
                          if found is not None), form)
        return lemma


@dataclass
class LearnedEnhancer:
    """The enhanced head of a joint network (:mod:`barley.enhanced.head`) as the enhancer of its model
    (:func:`barley.enhanced.enhancer.enhancer_for`): while ``active`` (``barley parse --enhanced``), the
    annotator fills DEPS with the head's graphs as it parses, from the vectors of the batch, and
    :meth:`enhance` reads them back."""

    head: EnhancedHead
    active: bool = False
    name: str = "learned"

    def enhance(self, sentence: Sentence) -> list[str]:
        return [word[DEPS] for word in sentence.words]


class JointParser:
    """A network (anything with ``outputs(padded) -> JointOutputs``: :class:`NumpyJoint`, or the
    PyTorch model in training) with its vocabularies and :class:`Annotator`."""

    kind = "joint"
    capabilities = frozenset({"max_words", "nbest", "valid_ud"})  # barley.capabilities

    valid_ud_by_default = True
    """UD's rules are kept unless told not to (:func:`barley.valid_ud.by_default`): on EWT test from raw
    text they cost about 0.1 LAS (the shipped model: 85.21 without, 85.09 with) and a few percent of
    the time."""

    def __init__(self, network, vocabularies: EncoderVocabularies, annotator: Annotator):
        self.network, self.vocabularies, self.annotator = network, vocabularies, annotator
        self.confidence: Confidence | None = None  # barley parse --confidence
        self.max_words = default_max_words(annotator.decoding)  # barley parse --max-words

    @property
    def transforms(self) -> Sequence:
        """The transforms its trees are written back through (the annotator's)."""
        return self.annotator.transforms

    def process(self, sentences: Iterable[Sentence], arcs: ArcOptions | None = None) -> Iterator[Sentence]:
        """Annotate ``sentences`` in place, in batches of similar length; yield them in input order
        (with ``nbest`` set, each followed by its other analyses, :mod:`barley.nbest`). ``arcs``: keep
        the given arcs and avoid the forbidden ones (:mod:`barley.constraints`)."""
        annotated = by_length(sentences, lambda batch: self.annotate_batch(batch, arcs), PARSE_BATCH_WORDS)
        if self.annotator.nbest is None:
            return annotated
        return expanded(annotated, self.annotator.analyses, self.annotator.set_tree)

    def set_nbest(self, k: int | None) -> None:
        """Parse into the ``k`` best trees of each sentence (None: the best tree only)."""
        if k is not None:
            check_k_best(self.annotator.decoding)
        self.annotator.nbest = k

    def set_valid_ud(self, on: bool) -> None:
        """Keep UD's structural rules in every tree (``barley parse --valid-ud``, :mod:`barley.valid_ud`)
        or not."""
        if on:
            require_valid_ud("joint parser", self.annotator.transforms)
        self.annotator.valid_ud = UDRules(self.annotator.tables.labels) if on else None

    def annotate_batch(self, batch: list[Sentence], arcs: ArcOptions | None = None) -> None:
        """Annotate one batch of sentences in place (:meth:`process` makes the batches)."""
        for sentence in batch:
            check_length(sentence, self.max_words, "joint parser")
        padded = pad([self.vocabularies.encode(sentence) for sentence in batch])
        self.annotator.annotate(batch, self.network.outputs(padded), arcs, self.confidence)


# --- the numpy network ------------------------------------------------------------------


def expected_shapes(encoder: EncoderOptions, biaffine: BiaffineOptions, vocabulary_sizes: dict[str, int],
                    tag_sizes: dict[str, int], labels: int, parser_layers: int) -> Shapes:
    """Every array of a joint network (PyTorch's state-dict names) and its shape."""
    shapes = {**encoder_shapes(encoder, vocabulary_sizes),
              **lstm_shapes("parser_lstm", parser_layers, encoder.output_dim, encoder.lstm_hidden),
              **biaffine_shapes(encoder, biaffine, labels)}
    for name, size in tag_sizes.items():
        shapes.update(linear_shapes(f"tags.{name}", encoder.output_dim, size))
    return shapes


class NumpyJoint:
    """A joint network's forward pass in numpy over its (checked) arrays, PyTorch's names."""

    def __init__(self, encoder: EncoderOptions, vocabularies: EncoderVocabularies, weights: dict[str, np.ndarray],
                 parser_layers: int):
        if encoder.inputs not in (("form",), ("form", "treebank")):  # never a column it predicts
            raise ValueError(f"a joint network reads the form (and the treebank) only, not {', '.join(encoder.inputs)}")
        self.encoder = NumpyEncoder(encoder, vocabularies, weights)
        self.parser_lstm = bilstm_layers(weights, "parser_lstm", parser_layers)
        self.mlps = {name: (weights[f"{name}.0.weight"], weights[f"{name}.0.bias"]) for name in MLPS}
        self.arc_weight = weights["arc_attention.weight"]
        self.label_weight = weights["label_attention.weight"]
        self.tags = {name: (weights[f"tags.{name}.weight"], weights[f"tags.{name}.bias"]) for name in HEADS}

    def outputs(self, padded: Padded) -> JointOutputs:
        vectors = self.encoder.vectors(padded)
        parser = ops.bilstm(vectors, padded.lengths, self.parser_lstm)
        arc_dep, arc_head, label_dep, label_head = (ops.mlp(parser, *self.mlps[name]) for name in MLPS)
        arcs = ops.biaffine(arc_dep, ops.with_bias(arc_head), self.arc_weight)[..., 0]
        return JointOutputs(vectors[:, 1:][padded.mask[:, 1:]], self.tags, arcs, label_dep, label_head,
                            self.label_weight, parser)
