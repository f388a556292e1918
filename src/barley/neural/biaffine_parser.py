"""The biaffine parser at parse time, numpy only (never PyTorch): its network
(:class:`barley.neural.numpy_biaffine.NumpyBiaffine`) scores a batch, and the graph decoders
(:mod:`barley.decoders.decoding`) turn the scores into trees, skipped where the best heads already
form one (:mod:`barley.neural.trees`). Training is :mod:`barley.neural.biaffine_training`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict

import numpy as np

from barley.conllu import Sentence
from barley.constraints import ArcOptions, SentenceArcs, decoder_class, labels_kept
from barley.errors import BarleyError
from barley.decoders.decoding import check_k_best, check_length, default_max_words
from barley.decoders.marginals import ArcEvidence
from barley.decoders.options import DecoderOptions
from barley.models import check
from barley.neural.inputs import PARSE_BATCH_WORDS, EncoderVocabularies, pad
from barley.neural.numpy_biaffine import NumpyBiaffine, biaffine_shapes
from barley.neural.options import BiaffineOptions, EncoderOptions
from barley.neural.trained import NeuralParser, checked_common
from barley.neural.trees import BiaffineParseStats, best_tree, k_best_trees
from barley.transforms import of_manifest
from barley.valid_ud import UDRules, given_words
from barley.valid_ud import require_support as require_valid_ud


class TrainedBiaffineParser(NeuralParser):
    """A biaffine parser with its vocabularies, labels, decoder and transforms."""

    kind = "biaffine"
    capabilities = frozenset({"max_words", "nbest", "valid_ud"})  # barley.capabilities

    def __init__(self, encoder: EncoderOptions, biaffine: BiaffineOptions, vocabularies: EncoderVocabularies,
                 labels: list[str], weights: dict[str, np.ndarray], decoding: DecoderOptions, transforms: Sequence = (),
                 manifest: dict | None = None):
        self.biaffine = biaffine
        super().__init__(encoder, vocabularies, labels, weights, transforms, manifest)
        self.decoding = decoding
        self.stats = BiaffineParseStats()
        self.max_words = default_max_words(decoding)  # barley parse --max-words
        self.valid_ud: UDRules | None = None  # barley parse --valid-ud (barley.valid_ud)

    def network_of(self, weights: dict[str, np.ndarray]) -> NumpyBiaffine:
        return NumpyBiaffine(self.encoder, self.vocabularies, weights)

    # --- parsing -----------------------------------------------------------------------

    def set_nbest(self, k: int | None) -> None:
        """Parse into the ``k`` best trees of each sentence (None: the best tree only)."""
        if k is not None:
            check_k_best(self.decoding)
        self.nbest = k

    def parse(self, sentences: Iterable[Sentence], batch_words: int = PARSE_BATCH_WORDS,
              arcs: ArcOptions | None = None) -> Iterator[Sentence]:
        """Parse sentences (in place) and yield them in input order; with ``nbest`` set, the k best
        analyses of each (:mod:`barley.nbest`; not with ``arcs``, which Pipeline.parse refuses)."""
        return self.with_analyses(super().parse(sentences, batch_words, arcs))

    def tree_class(self) -> str:
        return decoder_class(self.decoding)

    def _parse_batch(self, batch: list[Sentence], given: list[SentenceArcs | None]) -> None:
        for sentence in batch:
            check_length(sentence, self.max_words, "biaffine parser")
        if self.confidence is not None and self.valid_ud is not None:
            raise BarleyError("--confidence is not yet written for the biaffine parser's trees held to UD's rules",
                              fix="leave out --valid-ud or --confidence")
        in_order = iter(zip(batch, given))  # tree_scores decodes the sentences in batch order

        def decode(arc: np.ndarray, best_label: np.ndarray) -> np.ndarray:
            sentence, arcs = next(in_order)
            if self.valid_ud is not None:  # no PUNCT word heads a word that is not (barley.valid_ud)
                arc = self.valid_ud.mask_arcs(arc, sentence.words, given_words(arcs))
            return best_tree(self.decoding, arc, self.stats, arcs)

        padded = pad([self.vocabularies.encode(sentence) for sentence in batch])
        scored = self.network.tree_scores(padded, None if self.confidence is None and self.valid_ud is None
                                          else decode)
        for sentence, (arc, best_label, *decoded), arcs in zip(batch, scored, given):
            if self.nbest is not None:
                self.keep_analyses(sentence, self._k_best(arc, best_label))
                continue
            heads = decoded[0] if decoded else best_tree(self.decoding, arc, self.stats, arcs)
            if self.valid_ud is None:
                deprels = self._best_deprels(best_label, heads, arcs)
            else:  # relabelled and punctuation attached again where UD's rules want it
                heads, label_ids = self.valid_ud.keep(heads, [-1, *best_label[heads[1:], np.arange(1, len(heads))]],
                                                      decoded[2], arc, sentence.words, given_words(arcs), self.stats)
                deprels = self.deprels(labels_kept(label_ids, arcs))
            self.set_tree(sentence, [int(h) for h in heads], deprels, arcs, self.decoding.single_root)
        if self.confidence is not None:  # heads: the tree marginals or softmax of log P(h | d); labels at the head
            labels = np.concatenate([best_label[heads[1:], np.arange(1, len(heads))]
                                     for _, best_label, heads, _, _ in scored])
            evidence = ArcEvidence(self.decoding.decoder, self.decoding.single_root,
                                   [arc for *_, arc, _ in scored], [heads for _, _, heads, _, _ in scored],
                                   np.concatenate([label_scores for *_, label_scores in scored]), labels)
            self.confidence.write(batch, evidence, self.calibrated)

    def set_valid_ud(self, on: bool) -> None:
        """Keep UD's structural rules in every tree (``barley parse --valid-ud``, :mod:`barley.valid_ud`)
        or not: the arc scores masked before decoding, the tree relabelled and its punctuation attached
        again after (:meth:`barley.valid_ud.UDRules.keep`)."""
        if on:
            require_valid_ud("biaffine parser", self.transforms)
        self.valid_ud = UDRules(self.labels) if on else None

    def _k_best(self, arc: np.ndarray, best_label: np.ndarray) -> list[tuple[float, list[int], list[str]]]:
        """The ``nbest`` best trees of a sentence's scores as (score, heads, deprels), each arc with its best label."""
        assert self.nbest is not None
        return [(score, [int(h) for h in heads], self._best_deprels(best_label, heads))
                for score, heads in k_best_trees(self.decoding, arc, self.nbest, self.stats)]

    def _best_deprels(self, best_label: np.ndarray, heads: np.ndarray, arcs: SentenceArcs | None = None) -> list[str]:
        """Each word's label: the best of its arc (``best_label[head, dependent]``), or the given label of
        a kept arc (:func:`barley.constraints.labels_kept`); entry 0: ""."""
        return self.deprels(labels_kept([-1, *best_label[heads[1:], np.arange(1, len(heads))]], arcs))

    # --- model files -------------------------------------------------------------------

    def own_manifest(self) -> dict:
        return {"decoding": {"decoder": self.decoding.decoder, "npa_threshold": self.decoding.npa_threshold,
                             "single_root": self.decoding.single_root,
                             "crossing_arcs": self.decoding.crossing_arcs},
                "biaffine": asdict(self.biaffine)}

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> TrainedBiaffineParser:
        """A parser from the manifest and arrays of :meth:`to_files`, each checked before the model is
        built (:mod:`barley.models.check`)."""
        with check.loading(path, "biaffine"):
            vocabularies, labels, encoder, most = checked_common(manifest, arrays)
            biaffine = check.options(BiaffineOptions, manifest["biaffine"], "the biaffine options", most=most)
            biaffine.check()
            weights = cls.checked(arrays, encoder, vocabularies, biaffine_shapes(encoder, biaffine, len(labels)), path,
                                  "biaffine network")
            decoding = DecoderOptions.from_json(manifest["decoding"])
            return cls(encoder, biaffine, vocabularies, labels, weights, decoding, of_manifest(manifest), manifest)
