"""What the neural networks share in training (PyTorch): the encoder's vocabularies (with
pretrained vectors), minibatches of sentences, deterministic set-up and the epoch loop (log
with dev LAS, time per epoch and ETA; early stopping on dev LAS, keeping the best epoch),
checkpoints, and the weights as the arrays of a model file.

A parser kind brings only its network and one training step (:func:`fit_epochs`'s
``step``): the biaffine parser (:mod:`barley.neural.biaffine_training`) and the neural
transition parser (:mod:`barley.neural.transition_training`); the parser it trains parses
with the numpy engine (:mod:`barley.neural.trained`) over a snapshot of the weights
(:func:`network_weights`), on dev during training as after loading.
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict

import numpy as np
import torch

from barley import __version__
from barley.conllu import FORM, Sentence
from barley.errors import BarleyError, ModelError
from barley.features.vocabulary import UNKNOWN
from barley.models import archive, check
from barley.neural.encoder import Encoder, read_pretrained
from barley.neural.inputs import EncoderVocabularies, word_batches
from barley.neural.options import EncoderOptions, Training


def minibatches(lengths: Sequence[int], batch_words: int, rng: np.random.Generator) -> list[list[int]]:
    """Sentence indices in batches of about ``batch_words`` words of similar length, in random order."""
    order = rng.permutation(len(lengths))
    # sort by length inside chunks of 100 batches: little padding, yet a different mix each epoch
    chunk = max(1, 100 * batch_words // max(1, int(np.mean(lengths))))
    batches = [batch for start in range(0, len(order), chunk)
               for batch in word_batches(sorted(order[start:start + chunk], key=lambda k: lengths[k]), lengths,
                                         batch_words)]
    return [batches[k] for k in rng.permutation(len(batches))]


@contextmanager
def deterministic(seed: int, device: str, threads: int) -> Iterator[None]:
    """Training on ``device`` with ``threads`` CPU threads, seeded, with PyTorch's deterministic
    algorithms (the same seed and threads give the same model on CPU)."""
    if device == "cuda" and not torch.cuda.is_available():
        raise BarleyError("--device cuda, but PyTorch sees no CUDA device", fix="use --device cpu")
    torch.set_num_threads(threads)
    before = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        torch.manual_seed(seed)
        yield
    finally:
        torch.use_deterministic_algorithms(before)


def encoder_vocabularies(sentences: Sequence[Sentence], encoder: EncoderOptions, pretrained: str | None,
                         log: Callable[[str], None]) -> tuple[EncoderOptions, EncoderVocabularies, dict]:
    """The encoder's vocabularies from the training sentences, the pretrained vectors of their
    forms (``pretrained``: a ``.vec`` file, or None) and the options with the vectors' size."""
    vectors, dim = ({}, None) if pretrained is None else read_pretrained(
        pretrained, {w[FORM].lower() for s in sentences for w in s.words})
    if dim is not None and dim != encoder.form_dim:
        log(f"form embeddings: {dim} dimensions, those of the pretrained vectors (not {encoder.form_dim})")
        encoder = EncoderOptions(**{**asdict(encoder), "form_dim": dim})
    return encoder, EncoderVocabularies.build(sentences, encoder.min_form_count, encoder.inputs,
                                                        frozenset(vectors)), vectors


def use_pretrained(encoder: Encoder, vocabularies: EncoderVocabularies, vectors: dict, pretrained: str | None,
                   log: Callable[[str], None]) -> None:
    if vectors:
        found = encoder.set_pretrained(vocabularies.tables["form"], vectors)
        log(f"pretrained vectors from {pretrained}: {found} of {len(vocabularies.tables['form']) - 3} forms")


def log_sizes(vocabularies: EncoderVocabularies, labels: Sequence[str], model: torch.nn.Module, device: str,
              threads: int, log: Callable[[str], None]) -> None:
    log("vocabularies: " + ", ".join(f"{name} {size - 3}" for name, size in vocabularies.sizes().items())
        + f", DEPREL {len(labels)}; {sum(p.numel() for p in model.parameters()):,} parameters; "
        f"device {device}, {threads} threads")


def fit_epochs(parser, model: torch.nn.Module, lengths: Sequence[int], step: Callable[[list[int]], torch.Tensor],
               training: Training, dev: Sequence | None, rng: np.random.Generator,
               log: Callable[[str], None], evaluate: Callable, after_epoch: Callable[[int], str] | None = None,
               criterion: str = "LAS", shown: Sequence[str] = ("LAS", "UAS"),
               checkpoint: Checkpoint | None = None) -> dict:
    """Train ``model`` for up to ``training.epochs`` epochs of minibatches (of sentence indices,
    :func:`minibatches` over ``lengths``); ``step(indices)`` returns a minibatch's loss. With
    ``dev``, ``evaluate(parser, dev)`` scores each epoch (a dict; the log shows the ``shown``
    scores), the epoch of the best ``criterion`` score is kept and training stops after
    ``training.patience`` epochs without a better one. ``after_epoch(epoch)``: more words for
    the epoch's log line. Interrupted (Ctrl-C or SIGTERM) after an epoch has been kept, training
    stops there and returns as if finished, with the kept epoch (the manifest's history says
    ``interrupted``). With a ``checkpoint``, the whole state is saved after every epoch, and a
    resumed checkpoint continues where it stopped. Returns the history for the manifest."""
    optimizer = torch.optim.Adam(model.parameters(), lr=training.learning_rate, betas=(0.9, 0.9))
    progress = _Progress(dev is not None, criterion)
    done = 0 if checkpoint is None else checkpoint.restore(model, optimizer, rng, progress, log)
    log(f"training up to {training.epochs} epochs on minibatches of about {training.batch_words} words"
        + (f", early stopping after {training.patience} epochs without a better dev {criterion}" if dev else
           " (no dev: the last epoch is kept)") + "; Ctrl-C stops training and keeps the best epoch so far"
        + (f"; a checkpoint after every epoch in {checkpoint.path}" if checkpoint else ""))
    epoch = done
    try:
        for epoch in range(done + 1, training.epochs + 1):
            if dev and epoch - 1 - progress.best_epoch >= training.patience:
                break  # a resumed training that had already stopped early
            started = time.perf_counter()
            for group in optimizer.param_groups:
                group["lr"] = training.rate(epoch)
            model.train()
            total = 0.0
            batches = minibatches(lengths, training.batch_words, rng)
            for number, indices in enumerate(batches, 1):
                loss = step(indices)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), training.clip)
                optimizer.step()
                total += float(loss.detach())
                if epoch == done + 1 and number == min(50, len(batches)) and number < len(batches):
                    per_epoch = (time.perf_counter() - started) * len(batches) / number
                    log(f"epoch {epoch}: {number} of {len(batches)} batches; about {per_epoch:.0f} s per epoch, "
                        f"at most {per_epoch * (training.epochs - done) / 60:.0f} min for "
                        f"{training.epochs - done} epochs")
            line = f"epoch {epoch}/{training.epochs}: loss {total / len(batches):.4f}"
            if training.lr_schedule != "constant":
                line += f", learning rate {training.rate(epoch):.2e}"
            if after_epoch is not None:
                line += after_epoch(epoch)
            if dev:
                scores = evaluate(parser, dev)
                line += ", dev " + " ".join(f"{name} {scores[name]:.2f}" for name in shown)
                if progress.scored(epoch, scores[criterion], model):
                    line += " (best)"
            else:
                progress.finished(epoch, model)
            progress.seconds += time.perf_counter() - started
            if checkpoint is not None:
                checkpoint.save(epoch, model, optimizer, rng, progress)
            left = training.epochs - epoch
            log(f"{line}; {time.perf_counter() - started:.0f} s, ETA at most "
                f"{progress.seconds / (epoch - done) * left / 60:.1f} min")
            if dev and epoch - progress.best_epoch >= training.patience:
                log(f"stopping: no better dev {criterion} for {training.patience} epochs")
                break
    except KeyboardInterrupt:
        # a long training stopped by hand (or by SIGTERM) still leaves its best epoch as a model
        if progress.best_state is None:
            raise
        log(f"interrupted in epoch {epoch}: stopping, keeping epoch {progress.best_epoch}")
        progress.interrupted = True
    return progress.keep(model, log, training)


class _Progress:
    """The epochs :func:`fit_epochs` has run: the best one's weights (the best dev score, or
    without dev the last finished epoch), the dev score per epoch and the time spent."""

    best_state: dict[str, torch.Tensor] | None

    def __init__(self, with_dev: bool, criterion: str = "LAS"):
        self.with_dev, self.criterion = with_dev, criterion
        self.best_score, self.best_epoch, self.best_state = -1.0, 0, None
        self.dev_scores: list[float] = []
        self.epochs_run, self.seconds, self.interrupted = 0, 0.0, False

    def scored(self, epoch: int, score: float, model: torch.nn.Module) -> bool:
        """Epoch ``epoch`` scored ``score`` on dev: is it the best so far (then its weights are kept)?"""
        self.dev_scores.append(score)
        self.epochs_run = epoch
        if score <= self.best_score:
            return False
        self.best_score = score
        self.finished(epoch, model)
        return True

    def finished(self, epoch: int, model: torch.nn.Module) -> None:
        self.epochs_run, self.best_epoch = epoch, epoch
        self.best_state = copy.deepcopy(model.state_dict())

    def keep(self, model: torch.nn.Module, log: Callable[[str], None], training: Training) -> dict:
        """Put the kept epoch's weights back into ``model``; the history for the manifest."""
        assert self.best_state is not None  # kept after every epoch run or restored
        model.load_state_dict(self.best_state)
        if self.with_dev:
            log(f"kept epoch {self.best_epoch} (dev {self.criterion} {self.best_score:.2f})")
        return {"epochs_run": self.epochs_run, "best_epoch": self.best_epoch,
                f"dev_{self.criterion.lower()}_per_epoch": self.dev_scores,
                **({"interrupted": True} if self.interrupted else {}), "options": asdict(training)}

    def to_json(self) -> dict:
        return {"best_score": self.best_score, "best_epoch": self.best_epoch, "dev_scores": self.dev_scores,
                "epochs_run": self.epochs_run, "seconds": self.seconds}

    def restore(self, saved: dict, best_state: dict[str, torch.Tensor]) -> None:
        self.best_score, self.best_epoch = float(saved["best_score"]), int(saved["best_epoch"])
        self.dev_scores = [float(score) for score in saved["dev_scores"]]
        self.epochs_run, self.seconds = int(saved["epochs_run"]), float(saved["seconds"])
        self.best_state = best_state


class Checkpoint:
    """A training's whole state after an epoch, in a barley model file (JSON and arrays, never a
    pickle): the weights, Adam's moments, the numpy and PyTorch random generators, the dev
    scores so far and the kept epoch's weights. A training resumed from it goes on as if it had
    never stopped: the same seed and threads give the same model.

    ``fingerprint``: what must not change between the two (the options, the seed, the
    threads, a digest of the data); resuming from a checkpoint of another training is refused.
    ``resume``: continue from ``path`` (it must exist); otherwise a training starts afresh and
    overwrites it.
    """

    KIND = "training-checkpoint"

    def __init__(self, path: str, fingerprint: dict, resume: bool):
        self.path, self.fingerprint, self.resume = path, fingerprint, resume

    def save(self, epoch: int, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
             rng: np.random.Generator, progress: _Progress) -> None:
        state = optimizer.state_dict()
        assert progress.best_state is not None
        arrays = {**weight_arrays(model),
                  **{f"best.{name}": value.detach().cpu().numpy() for name, value in progress.best_state.items()},
                  "torch_rng": torch.get_rng_state().numpy()}
        for number, moments in state["state"].items():
            arrays.update({f"adam.{number}.{name}": value.detach().cpu().numpy() for name, value in moments.items()})
        manifest = {"barley_version": __version__, "checkpoint": self.KIND, "fingerprint": self.fingerprint,
                    "epoch": epoch, "progress": progress.to_json(), "numpy_rng": rng.bit_generator.state,
                    "adam_groups": state["param_groups"]}
        archive.write(self.path, manifest, arrays)

    def restore(self, model: torch.nn.Module, optimizer: torch.optim.Optimizer, rng: np.random.Generator,
                progress: _Progress, log: Callable[[str], None]) -> int:
        """Load the state saved by :meth:`save` when resuming; the epochs done (0 when not resuming)."""
        if not self.resume:
            return 0
        if not os.path.exists(self.path):
            raise BarleyError(f"no checkpoint to resume from: {self.path} does not exist",
                              fix="train without --resume (it starts afresh)")
        manifest, arrays = archive.read(self.path)
        if manifest.get("checkpoint") != self.KIND:
            raise ModelError("not a training checkpoint", path=self.path)
        changed = sorted(key for key in {*self.fingerprint, *manifest.get("fingerprint", {})}
                         if self.fingerprint.get(key) != manifest.get("fingerprint", {}).get(key))
        if changed:
            raise BarleyError(f"the checkpoint {self.path} is of another training (it differs in: "
                              f"{', '.join(changed)})", fix="give the same data and options, or train without --resume")
        with check.loading(self.path, "checkpoint"):
            load_weights(model, arrays)
            best = {name[len("best."):]: torch.from_numpy(np.array(value)) for name, value in arrays.items()
                    if name.startswith("best.")}
            moments: dict[int, dict[str, torch.Tensor]] = {}
            for name, value in arrays.items():
                if name.startswith("adam."):
                    _, number, key = name.split(".", 2)
                    moments.setdefault(int(number), {})[key] = torch.from_numpy(np.array(value))
            groups = [{**group, "betas": tuple(group["betas"])} for group in manifest["adam_groups"]]
            optimizer.load_state_dict({"state": moments, "param_groups": groups})
            torch.set_rng_state(torch.from_numpy(np.array(arrays["torch_rng"])))
            rng.bit_generator.state = manifest["numpy_rng"]
            progress.restore(manifest["progress"], best)
            epoch = int(manifest["epoch"])
        log(f"resuming from {self.path}: {epoch} epochs done, epoch {progress.best_epoch} kept so far")
        return epoch


def network_weights(model: torch.nn.Module) -> dict[str, np.ndarray]:
    """A snapshot of the network's weights as the numpy engine reads them (PyTorch's names, copies:
    training goes on changing the parameters in place)."""
    return {name: value.detach().cpu().numpy().copy() for name, value in model.state_dict().items()}


def on_snapshots(evaluate: Callable, model: torch.nn.Module) -> Callable:
    """``evaluate(parser, dev)`` for :func:`fit_epochs`, the parser first given the weights the network
    has now (:meth:`barley.neural.trained.NeuralParser.use_weights`): dev is parsed by the numpy
    engine, as the saved model will be."""
    def evaluated(parser, dev: list[Sentence]) -> dict:
        parser.use_weights(network_weights(model))
        return evaluate(parser, dev)
    return evaluated


def weight_arrays(model: torch.nn.Module) -> dict[str, np.ndarray]:
    """The model's weights as numpy arrays for its model file (``weights.NAME``): :func:`network_weights`."""
    return {f"weights.{name}": value for name, value in network_weights(model).items()}


def carry_over(model: torch.nn.Module, arrays: dict[str, np.ndarray], unknown_rows: Sequence[str] = ()) -> dict:
    """A trained network's weights (:func:`weight_arrays`' arrays) into ``model``, a freshly initialised
    network of the same architecture whose vocabularies and classes were extended (entries appended,
    :meth:`barley.neural.inputs.EncoderVocabularies.extended`): each array fills the leading block
    of its parameter; the rest (the new entries' rows) keeps the fresh initialisation, except in the
    embeddings named in ``unknown_rows``, whose new rows start as the unknown entry's row (what the
    network read for those entries until now). Returns the number of new rows of each parameter that grew."""
    state = model.state_dict()
    grown = {}
    with torch.no_grad():
        for name, value in state.items():
            old = torch.from_numpy(np.array(arrays[f"weights.{name}"], dtype=np.float32))
            if old.dim() != value.dim() or any(o > n for o, n in zip(old.shape, value.shape)):
                raise ValueError(f"{name}: {tuple(old.shape)} does not fit in {tuple(value.shape)}")
            value[tuple(slice(0, size) for size in old.shape)] = old
            if old.shape != value.shape:
                grown[name] = value.shape[0] - old.shape[0]
                if name in unknown_rows:
                    value[old.shape[0]:] = old[UNKNOWN]
    model.load_state_dict(state, strict=True)
    return grown


def load_weights(model: torch.nn.Module, arrays: dict[str, np.ndarray]) -> None:
    """Weights from :func:`weight_arrays`' arrays into a built ``model``, each one the model has and
    no other (strict): a checkpoint's, or a model file's whose arrays were checked when it was loaded."""
    state = {name[len("weights."):]: torch.from_numpy(np.array(value, dtype=np.float32))
             for name, value in arrays.items() if name.startswith("weights.")}
    model.load_state_dict(state, strict=True)
