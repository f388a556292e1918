"""The biaffine parser: training (minibatches, Adam, early stopping on dev LAS) and batched
parsing through the existing graph decoders (:mod:`barley.graph.decoding`).

Parsing takes SuPar's shortcut: a sentence whose best head per word already forms a
tree the decoder could return (any tree for ``mst``; a projective one for ``eisner``
and ``eisner+npa``, where it is the optimum the approximation starts from and cannot
improve) skips the decoder; only the others are decoded.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import torch

from barley import __version__, model_file
from barley.conllu import FORM, Sentence
from barley.errors import BarleyError, ModelError
from barley.graph.decoding import decode
from barley.graph.model import GraphOptions, Scores
from barley.neural.biaffine_model import BiaffineModel
from barley.neural.encoder import EncoderVocabularies, make_batch, read_pretrained
from barley.neural.options import BiaffineOptions, EncoderOptions, Training
from barley.tree import check_tree, is_projective

PARSE_BATCH_WORDS = 5000
SORT_WINDOW_SENTENCES = 4096
"""Parsing reads this many sentences ahead and batches them by length (less padding)."""


@dataclass
class BiaffineParseStats:
    """Counts over all parsed sentences (reported by ``barley parse``)."""

    sentences: int = 0
    words: int = 0
    decoded: int = 0
    approximation_moves: int = 0

    def summary(self) -> str:
        return (f"{self.sentences} sentences, {self.words} words; {self.decoded} sentences needed the decoder "
                f"(the others' best heads were already a tree), {self.approximation_moves} non-projective "
                f"approximation moves")


def word_batches(indices: Sequence[int], lengths: Sequence[int], batch_words: int) -> list[list[int]]:
    """``indices`` cut in order into batches of at most ``batch_words`` words (one longer sentence alone)."""
    batches: list[list[int]] = []
    words = 0
    for k in indices:
        if not batches or (words + lengths[k] > batch_words and batches[-1]):
            batches.append([])
            words = 0
        batches[-1].append(k)
        words += lengths[k]
    return batches


def _minibatches(lengths: Sequence[int], batch_words: int, rng: np.random.Generator) -> list[list[int]]:
    """Sentence indices in batches of about ``batch_words`` words of similar length, in random order."""
    order = rng.permutation(len(lengths))
    # sort by length inside chunks of 100 batches: little padding, yet a different mix each epoch
    chunk = max(1, 100 * batch_words // max(1, int(np.mean(lengths))))
    batches = [batch for start in range(0, len(order), chunk)
               for batch in word_batches(sorted(order[start:start + chunk], key=lambda k: lengths[k]), lengths,
                                         batch_words)]
    return [batches[k] for k in rng.permutation(len(batches))]


class TrainedBiaffineParser:
    """A biaffine parser with its vocabularies, labels, decoder and transforms."""

    kind = "biaffine"

    def __init__(self, model: BiaffineModel, vocabularies: EncoderVocabularies, labels: list[str],
                 decoding: GraphOptions, transforms: Sequence = (), manifest: dict | None = None,
                 device: str = "cpu"):
        self.model = model
        self.vocabularies = vocabularies
        self.labels = labels
        self.decoding = decoding
        self.transforms = list(transforms)
        self.manifest = manifest or {}
        self.device = device
        self.stats = BiaffineParseStats()

    # --- parsing -----------------------------------------------------------------------

    def parse(self, sentences: Iterable[Sentence], batch_words: int = PARSE_BATCH_WORDS) -> Iterator[Sentence]:
        """Parse sentences (in place) and yield them in input order; only HEAD and DEPREL change."""
        window: list[Sentence] = []
        for sentence in sentences:
            window.append(sentence)
            if len(window) == SORT_WINDOW_SENTENCES:
                yield from self._parse_window(window, batch_words)
                window = []
        if window:
            yield from self._parse_window(window, batch_words)

    def _parse_window(self, window: list[Sentence], batch_words: int) -> list[Sentence]:
        lengths = [len(sentence) for sentence in window]
        order = sorted((k for k in range(len(window)) if lengths[k]), key=lambda k: lengths[k])
        for batch in word_batches(order, lengths, batch_words):
            self._parse_batch([window[k] for k in batch])
        return window

    def _parse_batch(self, batch: list[Sentence]) -> None:
        was_training = self.model.training
        self.model.eval()
        with torch.inference_mode():
            encoded = [self.vocabularies.encode(sentence) for sentence in batch]
            scored = self.model.tree_scores(make_batch(encoded, self.vocabularies, self.device))
        self.model.train(was_training)
        for sentence, (arc, best_label) in zip(batch, scored):
            heads = self._decode(arc)
            nodes = np.arange(1, len(heads))
            deprels = [""] + [self.labels[label] for label in best_label[heads[1:], nodes]]
            heads = [int(h) for h in heads]
            for transform in reversed(self.transforms):
                heads, deprels = transform.inverse(heads, deprels)
            sentence.set_tree(heads, deprels)
            self.stats.sentences += 1
            self.stats.words += len(sentence)

    def _decode(self, arc: np.ndarray) -> np.ndarray:
        heads = arc.argmax(axis=0)
        heads[0] = -1
        if check_tree(heads, self.decoding.single_root) is None and (
                self.decoding.decoder == "mst" or is_projective(heads)):
            return heads
        self.stats.decoded += 1
        heads, moves = decode(self.decoding, Scores(None, None, None, arc=arc))
        self.stats.approximation_moves += moves
        return heads

    # --- model files -------------------------------------------------------------------

    def save(self, path: str) -> None:
        model_file.write(path, *self.to_files())

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        manifest = dict(self.manifest)
        manifest.update({
            "barley_version": __version__,
            "parser": "biaffine",
            "decoding": {"decoder": self.decoding.decoder, "npa_threshold": self.decoding.npa_threshold,
                         "single_root": self.decoding.single_root},
            "encoder": asdict(self.model.encoder.options),
            "biaffine": {"arc_mlp": self.model.arc_dep[0].out_features,
                         "label_mlp": self.model.label_dep[0].out_features},
            "labels": self.labels,
            "vocabularies": self.vocabularies.to_json(),
            "transforms": [t.to_json() for t in self.transforms],
        })
        arrays = {f"weights.{name}": value.detach().cpu().numpy() for name, value in self.model.state_dict().items()}
        return manifest, arrays

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> TrainedBiaffineParser:
        from barley import transforms as transform_module

        try:
            vocabularies = EncoderVocabularies.from_json(manifest["vocabularies"])
            labels = manifest["labels"]
            model = BiaffineModel(EncoderOptions(**manifest["encoder"]), BiaffineOptions(**manifest["biaffine"]),
                                  vocabularies.sizes(), len(labels))
            state = {name[len("weights."):]: torch.from_numpy(np.array(value, dtype=np.float32))
                     for name, value in arrays.items() if name.startswith("weights.")}
            model.load_state_dict(state, strict=True)
            decoding = GraphOptions(**manifest["decoding"])
            decoding.check()
            transforms = [transform_module.from_json(entry) for entry in manifest.get("transforms", [])]
            return cls(model, vocabularies, labels, decoding, transforms, manifest)
        except (*model_file.DAMAGE, RuntimeError, BarleyError) as error:
            if isinstance(error, ModelError):
                raise
            raise ModelError(f"incomplete or inconsistent biaffine model ({type(error).__name__}: "
                             f"{str(error).splitlines()[0] if str(error) else ''})", path=path,
                             fix="train the model again with this version of barley") from None


# --- training ---------------------------------------------------------------------------

def train_biaffine(sentences: list[Sentence], trees: list[tuple[list[int], list[str]]], labels: list[str], *,
                   encoder: EncoderOptions, biaffine: BiaffineOptions, training: Training, decoding: GraphOptions,
                   transforms: Sequence = (), dev: list[Sentence] | None, pretrained: str | None, seed: int, device: str, threads: int,
                   log: Callable[[str], None]) -> TrainedBiaffineParser:
    """Fit a biaffine parser on (already transformed) gold trees; with ``dev``, the epoch of the best
    dev LAS is kept and training stops after ``training.patience`` epochs without a better one. The
    ``transforms`` are undone on the dev parses, so that dev LAS is scored on the treebank's own trees."""
    from barley.parser import evaluate_parser

    if device == "cuda" and not torch.cuda.is_available():
        raise BarleyError("--device cuda, but PyTorch sees no CUDA device", fix="use --device cpu")
    torch.set_num_threads(threads)
    deterministic = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        torch.manual_seed(seed)
        vectors, dim = ({}, None) if pretrained is None else read_pretrained(
            pretrained, {w[FORM].lower() for s in sentences for w in s.words})
        if dim is not None and dim != encoder.form_dim:
            log(f"form embeddings: {dim} dimensions, those of the pretrained vectors (not {encoder.form_dim})")
            encoder = EncoderOptions(**{**asdict(encoder), "form_dim": dim})
        vocabularies = EncoderVocabularies.build(sentences, encoder.min_form_count, frozenset(vectors))
        model = BiaffineModel(encoder, biaffine, vocabularies.sizes(), len(labels)).to(device)
        if vectors:
            found = model.encoder.set_pretrained(vocabularies.tables["form"], vectors)
            log(f"pretrained vectors from {pretrained}: {found} of {len(vocabularies.tables['form']) - 3} forms")
        parser = TrainedBiaffineParser(model, vocabularies, labels, decoding, transforms, device=device)
        sizes = vocabularies.sizes()
        log("vocabularies: " + ", ".join(f"{name} {size - 3}" for name, size in sizes.items())
            + f", DEPREL {len(labels)}; {sum(p.numel() for p in model.parameters()):,} parameters; "
            f"device {device}, {threads} threads")
        history = _fit(parser, sentences, trees, labels, training, dev, seed, log, evaluate_parser)
    finally:
        torch.use_deterministic_algorithms(deterministic)
    parser.model.cpu()
    parser.device = "cpu"
    parser.stats = BiaffineParseStats()  # the dev parses of training are not the user's
    parser.manifest["training"] = history
    return parser


def _fit(parser: TrainedBiaffineParser, sentences: list[Sentence], trees: list, labels: list[str],
         training: Training, dev: list[Sentence] | None, seed: int, log: Callable[[str], None],
         evaluate: Callable) -> dict:
    model, device = parser.model, parser.device
    label_id = {label: i for i, label in enumerate(labels)}
    encoded = [parser.vocabularies.encode(sentence) for sentence in sentences]
    gold = [(np.asarray(heads, dtype=np.int64), np.array([-1] + [label_id[d] for d in deprels[1:]]))
            for heads, deprels in trees]
    lengths = [len(e) for e in encoded]
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=training.learning_rate, betas=(0.9, 0.9))
    best_las, best_epoch, best_state, dev_las = -1.0, 0, None, []
    spent = 0.0
    log(f"training up to {training.epochs} epochs on minibatches of about {training.batch_words} words"
        + (f", early stopping after {training.patience} epochs without a better dev LAS" if dev else
           " (no --dev: the last epoch is kept)"))
    for epoch in range(1, training.epochs + 1):
        started = time.perf_counter()
        model.train()
        total = 0.0
        batches = _minibatches(lengths, training.batch_words, rng)
        for number, indices in enumerate(batches, 1):
            batch = make_batch([encoded[k] for k in indices], parser.vocabularies, device,
                               model.encoder.options.word_dropout, rng)
            heads, label_ids = (_padded([gold[k][column] for k in indices], batch.form.shape[1], device)
                                for column in (0, 1))
            loss = model.loss(batch, heads, label_ids)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), training.clip)
            optimizer.step()
            total += float(loss.detach())
            if epoch == 1 and number == min(50, len(batches)) and number < len(batches):
                per_epoch = (time.perf_counter() - started) * len(batches) / number
                log(f"epoch 1: {number} of {len(batches)} batches; about {per_epoch:.0f} s per epoch, "
                    f"at most {per_epoch * training.epochs / 60:.0f} min for {training.epochs} epochs")
        line = f"epoch {epoch}/{training.epochs}: loss {total / len(batches):.4f}"
        if dev:
            scores = evaluate(parser, dev)
            dev_las.append(scores["LAS"])
            line += f", dev LAS {scores['LAS']:.2f} UAS {scores['UAS']:.2f}"
            if scores["LAS"] > best_las:
                best_las, best_epoch = scores["LAS"], epoch
                best_state = copy.deepcopy(model.state_dict())
                line += " (best)"
        seconds = time.perf_counter() - started
        spent += seconds
        left = training.epochs - epoch
        log(f"{line}; {seconds:.0f} s, ETA at most {spent / epoch * left / 60:.1f} min")
        if dev and epoch - best_epoch >= training.patience:
            log(f"stopping: no better dev LAS for {training.patience} epochs")
            break
    if best_state is not None:
        model.load_state_dict(best_state)
        log(f"kept epoch {best_epoch} (dev LAS {best_las:.2f})")
    else:
        best_epoch = epoch
    return {"epochs_run": epoch, "best_epoch": best_epoch, "dev_las_per_epoch": dev_las,
            "options": asdict(training)}


def _padded(rows: list[np.ndarray], longest: int, device: str) -> torch.Tensor:
    """Gold heads or labels padded with -1 (entry 0, the root, is -1 too)."""
    out = np.full((len(rows), longest), -1, dtype=np.int64)
    for k, row in enumerate(rows):
        out[k, :len(row)] = row
        out[k, 0] = -1
    return torch.from_numpy(out).to(device)
