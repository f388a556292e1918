"""Training the neural tokenizer (:mod:`barley.tokenizer.neural`) with PyTorch.

The training treebank's raw text is rebuilt with a label on every character
(:mod:`.treebank_text`), its paragraphs joined by blank lines as a user's text would
be. Each epoch cuts that stream into windows of ``window`` characters from a random
offset, shuffles them and fits the network (Adam, cross-entropy over the labels of
the non-space characters; whitespace is always INSIDE) on minibatches of
``batch_windows`` windows. After every epoch the network is copied into numpy
(the engine that tokenizes) and scored on the dev text, rebuilt the same way: the
sentence-end threshold that maximises sentence-end F1 on the dev characters is chosen
(:func:`~barley.tokenizer.best_threshold`), the dev text is tokenized with it, and the
CoNLL 2018 Tokens F1 + Sentences F1 decides which epoch is kept (the Sentences F1 alone
can favour an early epoch that splits few tokens: sentence spans are only scored where
their ends are token ends); training stops after ``patience`` epochs without a better
one. Without dev sentences the last tenth of the
training sentences is held out for this (the log says so).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
import numpy as np
import torch

from barley.conllu import Sentence
from barley.errors import BarleyError
from barley.evaluation.conll18 import evaluate_conll18
from barley.neural.fitting import deterministic
from barley.tokenizer import best_threshold, features
from barley.tokenizer.segmenter import held_out_end
from barley.tokenizer.multiword import MultiwordExpander
from barley.tokenizer.neural import (INPUTS, N_CLASSES, CharacterNetwork, NeuralTokenizer, NeuralTokenizerOptions,
                                     character_inputs, chunk_hashes)
from barley.tokenizer.treebank_text import INSIDE, TextStatistics, paragraphs, spaces_in_tokens

CLIP = 5.0  # gradient norm clipping
IGNORED = -100  # the label of whitespace in the loss: not scored


class CharacterBiLSTM(torch.nn.Module):
    """Character, class and chunk embeddings → BiLSTM → a linear layer to the three labels."""

    def __init__(self, characters: int, chunks: int, options: NeuralTokenizerOptions):
        super().__init__()
        self.characters = torch.nn.Embedding(characters + 1, options.char_dim)
        self.classes = torch.nn.Embedding(N_CLASSES, options.class_dim)
        self.chunks = torch.nn.Embedding(chunks + 1, options.chunk_dim)
        self.lstm = torch.nn.LSTM(options.char_dim + options.class_dim + options.chunk_dim, options.hidden,
                                  num_layers=options.layers,
                                  bidirectional=True, batch_first=True,
                                  dropout=options.dropout if options.layers > 1 else 0.0)
        self.dropout = torch.nn.Dropout(options.dropout)
        self.output = torch.nn.Linear(2 * options.hidden, 3)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """Scores ``[windows, length, 3]`` of :func:`character_inputs` ``[windows, length, 3]``."""
        embedded = torch.cat([getattr(self, name)(inputs[..., k]) for k, name in enumerate(INPUTS)], dim=-1)
        hidden, _ = self.lstm(self.dropout(embedded))
        return self.output(self.dropout(hidden))


class _Text:
    """A treebank's raw text as one stream: network inputs and labels of every character."""

    def __init__(self, sentences: list[Sentence]):
        self.sentences = sentences
        self.stats = TextStatistics()
        pieces, labels = [], []
        for paragraph in paragraphs(sentences, self.stats):
            pieces.append(paragraph.text)
            labels.append(paragraph.labels)
            labels.append(np.full(2, INSIDE, dtype=np.int8))  # the blank line between paragraphs
        self.text = "\n\n".join(pieces)
        self.labels = np.concatenate(labels)[:len(self.text)] if labels else np.zeros(0, dtype=np.int8)
        self.encoded = features.encode(self.text)
        self.solid = self.encoded[1][features.PAD:features.PAD + len(self.text)] != features.SPACE

    def inputs(self, characters: np.ndarray, chunks: np.ndarray) -> np.ndarray:
        return character_inputs(self.text, self.encoded, characters, chunks)

    def vocabularies(self, options: NeuralTokenizerOptions) -> tuple[np.ndarray, np.ndarray]:
        """The lower-cased code points (uint32) and the chunk hashes (uint64) seen at least
        ``min_char_count`` and ``min_chunk_count`` times, sorted."""
        codes, counts = np.unique(self.encoded[0][features.PAD:features.PAD + len(self.text)], return_counts=True)
        characters = codes[counts >= options.min_char_count].astype(np.uint32)
        codes = self.encoded[0][features.PAD:features.PAD + len(self.text)]
        hashes, counts = np.unique(chunk_hashes(codes, ~self.solid)[2], return_counts=True)
        return characters, hashes[counts >= options.min_chunk_count]


def _numpy_network(model: CharacterBiLSTM, options: NeuralTokenizerOptions) -> CharacterNetwork:
    arrays = {f"weights.{name}": value.detach().cpu().numpy().copy() for name, value in model.state_dict().items()}
    return CharacterNetwork(arrays, options)


def _scored(tokenizer: NeuralTokenizer, dev: _Text, dev_inputs: np.ndarray) -> dict:
    """Tune ``tokenizer``'s sentence-end threshold on the dev characters, then tokenize the dev
    text and score it (CoNLL 2018 Tokens and Sentences F1)."""
    scores = tokenizer.network.scores(dev_inputs)[dev.solid]
    threshold, _, _ = best_threshold(scores[:, 2] - scores[:, 1], dev.labels[dev.solid])
    tokenizer.sentence_threshold = threshold
    evaluation = evaluate_conll18(dev.sentences, list(tokenizer.tokenize(dev.text + "\n"))).scores
    return {"threshold": threshold, "Tokens": evaluation["Tokens"].f1, "Sentences": evaluation["Sentences"].f1}


def train_neural_tokenizer(sentences: Iterable[Sentence], options: NeuralTokenizerOptions | None = None, *,
                           seed: int = 1, log: Callable[[str], None] | None = None,
                           dev: Iterable[Sentence] | None = None) -> NeuralTokenizer:
    """A neural tokenizer trained on ``sentences`` (see the module docstring); ``dev`` (or, without
    it, the last tenth of the training sentences) chooses the epoch and the sentence-end threshold."""
    started = time.perf_counter()
    options = options or NeuralTokenizerOptions()
    options.check()
    log = log or (lambda message: None)
    sentences, dev = list(sentences), None if dev is None else list(dev)
    if dev is None:
        sentences, dev, dev_source = held_out_end(sentences, "the neural tokenizer")
    else:
        dev_source = f"{len(dev)} dev sentences"
    train, dev_text = _Text(sentences), _Text(dev)
    if not train.text or not dev_text.text:
        raise BarleyError("the neural tokenizer found no text to learn from in the training or dev sentences")
    characters, chunks = train.vocabularies(options)
    inputs, dev_inputs = train.inputs(characters, chunks), dev_text.inputs(characters, chunks)
    targets = np.where(train.solid, train.labels, IGNORED).astype(np.int64)
    multiword = MultiwordExpander.train(sentences)
    spaced, with_space, tokens = spaces_in_tokens(sentences)
    if spaced:
        log(f"neural tokenizer: {with_space} of {tokens} tokens hold a space: a token may go on across a single space")
    stats = train.stats
    log(f"neural tokenizer: {stats.sentences} sentences, {len(train.text)} characters "
        f"({np.count_nonzero(train.solid)} non-space), {len(characters)} known characters, {len(chunks)} known "
        f"chunks; paragraph marks: "
        f"{', '.join(sorted(stats.marks)) or 'none (one paragraph)'}; text rebuilt from the forms: "
        f"{stats.without_text} without # text, {stats.mismatched_text} with a # text the forms are not found in; "
        f"dev: {dev_source}, {len(dev_text.text)} characters")
    rng = np.random.default_rng(seed)
    with deterministic(seed, "cpu", options.threads):
        model = CharacterBiLSTM(len(characters), len(chunks), options)
        log(f"neural tokenizer: BiLSTM {options.layers} × {options.hidden} over characters "
            f"({options.char_dim} + {options.class_dim} + {options.chunk_dim} input dimensions), "
            f"{sum(p.numel() for p in model.parameters()):,} parameters; windows of {options.window} characters, "
            f"{options.batch_windows} per minibatch; up to {options.epochs} epochs, early stopping on the dev "
            f"Tokens F1 + Sentences F1 after {options.patience} without a better one; {options.threads} threads; "
            f"Ctrl-C stops training and keeps the best epoch so far")
        history = _fit(model, inputs, targets, options, rng, log,
                       lambda network: _scored(NeuralTokenizer(characters, chunks, network, multiword, options,
                                                               spaces_in_tokens=spaced), dev_text, dev_inputs))
    best = history.pop("best")
    log(f"neural tokenizer: kept epoch {history['best_epoch']} (dev Tokens F1 {best['Tokens']:.2f}, Sentences F1 "
        f"{best['Sentences']:.2f}, sentence-end threshold {best['threshold']:+.3f}); trained in "
        f"{time.perf_counter() - started:.0f} s; {len(multiword.expansions)} multiword forms, "
        f"{len(multiword.rules)} multiword suffix rules")
    training = {"sentences": stats.sentences, "characters": len(train.text),
                "rebuilt_without_text": stats.without_text, "rebuilt_mismatched_text": stats.mismatched_text,
                "paragraph_marks": sorted(stats.marks), "dev": dev_source, "seed": seed, **history}
    return NeuralTokenizer(characters, chunks, best["network"], multiword, options, training, best["threshold"], spaced)


def _fit(model: CharacterBiLSTM, inputs: np.ndarray, targets: np.ndarray,
         options: NeuralTokenizerOptions, rng: np.random.Generator, log: Callable[[str], None],
         score: Callable[[CharacterNetwork], dict]) -> dict:
    """Fit ``model`` epoch by epoch; score each epoch's numpy copy; keep the best (the history)."""
    optimizer = torch.optim.Adam(model.parameters(), lr=options.learning_rate, betas=(0.9, 0.9))
    loss_of = torch.nn.CrossEntropyLoss(ignore_index=IGNORED)
    length = min(options.window, len(inputs))
    offsets = np.arange(length)
    best: dict = {"Tokens": -1.0, "Sentences": -1.0}
    history: dict = {"epochs_run": 0, "best_epoch": 0, "dev_per_epoch": []}
    seconds = 0.0
    try:
        for epoch in range(1, options.epochs + 1):
            epoch_started = time.perf_counter()
            model.train()
            # windows from a random offset, so that each epoch cuts the text elsewhere; the last one whole
            starts = np.arange(int(rng.integers(length)), len(inputs) - length + 1, length)
            if not len(starts) or starts[-1] != len(inputs) - length:
                starts = np.r_[starts, len(inputs) - length]
            starts = starts[rng.permutation(len(starts))]
            batches = [starts[k:k + options.batch_windows] for k in range(0, len(starts), options.batch_windows)]
            total = 0.0
            for number, batch in enumerate(batches, 1):
                index = batch[:, None] + offsets
                scores = model(torch.from_numpy(inputs[index]))
                loss = loss_of(scores.reshape(-1, 3), torch.from_numpy(targets[index].reshape(-1)))
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
                optimizer.step()
                total += float(loss.detach())
                if epoch == 1 and number == min(20, len(batches)) and number < len(batches):
                    per_epoch = (time.perf_counter() - epoch_started) * len(batches) / number
                    log(f"neural tokenizer: epoch 1: {number} of {len(batches)} minibatches; about {per_epoch:.0f} s "
                        f"per epoch, at most {per_epoch * options.epochs / 60:.0f} min for {options.epochs} epochs")
            model.eval()
            network = _numpy_network(model, options)
            scored = score(network)
            history["epochs_run"] = epoch
            history["dev_per_epoch"].append({key: round(value, 2) for key, value in scored.items()
                                             if key != "threshold"})
            better = scored["Tokens"] + scored["Sentences"] > best["Tokens"] + best["Sentences"]
            if better:
                best = {**scored, "network": network}
                history["best_epoch"] = epoch
            seconds += time.perf_counter() - epoch_started
            log(f"neural tokenizer: epoch {epoch}/{options.epochs}: loss {total / len(batches):.4f}, dev Tokens F1 "
                f"{scored['Tokens']:.2f}, Sentences F1 {scored['Sentences']:.2f}{' (best)' if better else ''}; "
                f"{time.perf_counter() - epoch_started:.0f} s, ETA at most "
                f"{seconds / epoch * (options.epochs - epoch) / 60:.1f} min")
            if epoch - history["best_epoch"] >= options.patience:
                log(f"neural tokenizer: stopping, no better dev Tokens + Sentences F1 for {options.patience} epochs")
                break
    except KeyboardInterrupt:
        # a long training stopped by hand (or by SIGTERM) still leaves its best epoch as a model
        if "network" not in best:
            raise
        log(f"neural tokenizer: interrupted in epoch {history['epochs_run'] + 1}: keeping epoch {history['best_epoch']}")
        history["interrupted"] = True
    return {**history, "best": best}
