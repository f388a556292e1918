"""Training a pipeline on one treebank (:meth:`barley.pipeline.Pipeline.train`), and training one further
on another (:meth:`~barley.pipeline.Pipeline.fine_tuned`).

Training and jackknifing
------------------------
A text-consuming component learns from the gold text. Each later component learns
from the treebank as the components before it would annotate it: with jackknifing
(``jackknife=K``, on by default) the training sentences are cut into K contiguous
folds, the earlier components are trained on K-1 folds and annotate the held-out
one, so that, for instance, the parser learns from predicted tags with the errors
it will meet when parsing; the final earlier components are trained on all the data.
``jackknife=None`` trains every component on gold columns. What was done is recorded
in the manifest (``pipeline.jackknife``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable

from barley.conllu import Sentence, read
from barley.errors import BarleyError, InputError
from barley.models.archive import interrupted
from barley.pipeline.components import check_options, component_class, ordered

DEFAULT_JACKKNIFE = 5
"""Folds for jackknifing by default: each fold trains a tagger, so 5 costs half the time of 10."""


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def folds(count: int, k: int) -> list[range]:
    """K contiguous, nearly equal folds of ``count`` sentences (held-out documents, not
    scattered sentences, so that unknown words are as rare as in new text)."""
    return [range(i * count // k, (i + 1) * count // k) for i in range(k)]



def train(train_data: str | Iterable[Sentence], components: Iterable[str], *,
          options: dict[str, dict] | None = None, jackknife: int | None = DEFAULT_JACKKNIFE,
          seed: int = 1, record_time: bool = True, log: Callable[[str], None] = _stderr,
          dev: str | Iterable[Sentence] | None = None) -> tuple[list, dict]:
    """The named components trained on one treebank (a path or sentences), and the manifest of the
    pipeline they make (:meth:`barley.pipeline.Pipeline.train` makes it).

    ``options``: per component name, its training options (``OPTIONS``). ``jackknife``:
    folds for the later components' training data (None or 1: gold columns). ``dev``:
    development sentences for the components that take them (``takes_dev``: early
    stopping), annotated by the components trained before them.
    """
    started = time.perf_counter()
    names = ordered(components)
    options = options or {}
    for name in options:
        if name not in names:
            raise BarleyError(f"options given for component {name!r}, which is not trained",
                              fix="add it to the components or leave its options out")
    options = {name: check_options(name, options.get(name, {})) for name in names}
    if jackknife is not None and jackknife < 2:
        if jackknife != 1:
            raise BarleyError(f"--jackknife needs at least 2 folds, not {jackknife}", fix="or use --no-jackknife")
        jackknife = None
    source = train_data if isinstance(train_data, str) else "<sentences>"
    sentences = list(read(train_data) if isinstance(train_data, str) else train_data)
    if not sentences:
        raise InputError("no training sentence", path=source)
    words = sum(len(s) for s in sentences)
    dev_sentences = None if dev is None else list(read(dev) if isinstance(dev, str) else dev)
    log(f"training a pipeline ({', '.join(names)}) on {source}: {len(sentences)} sentences, {words} words"
        + (f"; jackknifing {jackknife} folds" if jackknife else "; no jackknifing"))
    trained: list = []
    annotators: list[str] = []  # earlier components that consume sentences
    jackknifed: list[str] = []
    for name in names:
        kind = component_class(name)
        data = sentences
        if kind.consumes == "sentences" and annotators:
            if jackknife and len(sentences) >= jackknife:
                data = jackknifed_copies(sentences, annotators, options, jackknife, seed, log)
                jackknifed.append(name)
            else:
                if jackknife:
                    log(f"fewer sentences than folds: {name} learns from gold columns")
                data = [s.copy() for s in sentences]
        if name in jackknifed and "tags" in kind.OPTIONS:  # recorded in its own manifest too
            options[name]["tags"] = "predicted"
        log(f"[{name}] training")
        component_started = time.perf_counter()
        extra = {}
        if getattr(kind, "takes_dev", False) and dev_sentences is not None:
            extra["dev"] = annotated(dev_sentences, [c for c in trained if c.consumes == "sentences"])
        trained.append(kind.train(data, options[name], seed=seed, log=_prefixed(name, log), **extra))
        log(f"[{name}] trained in {time.perf_counter() - component_started:.1f} s")
        if kind.consumes == "sentences":
            annotators.append(name)
    training = {"data": source, "sentences": len(sentences), "words": words, "seed": seed}
    if record_time:
        training["seconds"] = round(time.perf_counter() - started, 1)
    manifest = {"pipeline": {
        "components": names, "training": training,
        "jackknife": {"folds": jackknife, "components": jackknifed} if jackknifed else None}}
    return trained, manifest

def fine_tuned(pipeline, train_data: str | Iterable[Sentence], *, options: dict | None = None, seed: int = 1,
               record_time: bool = True, log: Callable[[str], None] = _stderr,
               dev: str | Iterable[Sentence] | None = None, base: str | None = None) -> tuple[list, dict]:
    """The components and manifest of a new pipeline (:meth:`barley.pipeline.Pipeline.fine_tuned` makes it):
    ``pipeline`` with its neural network trained further on one's own treebank (a path
    or sentences), e.g. the shipped model adapted to a domain (stanfordnlp/stanza#724). The components
    that can be (those with ``fine_tune``: the joint network) learn from the gold sentences with
    ``options``; the others are kept as they are, which is said. ``dev`` chooses the epoch kept.
    ``base``: the model's name for the manifest (default: its path). The manifest keeps the first
    training, adds ``pipeline.fine_tuning`` and drops what described the model before (its dev and
    test scores, the ``shipped`` entry). This pipeline is left as it was."""
    started = time.perf_counter()
    tunable = [c.name for c in pipeline.components if hasattr(c, "fine_tune")]
    if not tunable:
        raise BarleyError(f"the model has no neural network to train further (its components: "
                          f"{', '.join(pipeline.names)})", path=pipeline.path or base,
                          fix="fine-tune a model with a joint network (e.g. en_ewt), or train a new model")
    options = options or {}
    for name in sorted(set(options) - set(tunable)):
        raise BarleyError(f"options given for component {name!r}, which fine-tuning does not train",
                          fix=f"it trains: {', '.join(tunable)}")
    source = train_data if isinstance(train_data, str) else "<sentences>"
    sentences = list(read(train_data) if isinstance(train_data, str) else train_data)
    if not sentences:
        raise InputError("no training sentence", path=source)
    dev_sentences = None if dev is None else list(read(dev) if isinstance(dev, str) else dev)
    words = sum(len(s) for s in sentences)
    log(f"fine-tuning {base or pipeline.path} ({', '.join(pipeline.names)}) on {source}: {len(sentences)} sentences, "
        f"{words} words")
    components, stopped = [], False
    for component in pipeline.components:
        if component.name not in tunable:
            log(f"[{component.name}] kept as it is (fine-tuning trains the {', '.join(tunable)} network)")
            components.append(component)
            continue
        component_started = time.perf_counter()
        tuned = component.fine_tune([s.copy() for s in sentences], options.get(component.name, {}), seed=seed,
                                    log=_prefixed(component.name, log), dev=dev_sentences)
        stopped = stopped or interrupted(tuned.manifest["fine_tuning"][-1])  # this fine-tuning's own record
        components.append(tuned)
        log(f"[{component.name}] fine-tuned in {time.perf_counter() - component_started:.1f} s")
    fine_tuning = {"from": base or pipeline.path, "data": source, "sentences": len(sentences), "words": words,
                   "seed": seed, "components": tunable, **({"interrupted": True} if stopped else {})}
    if record_time:
        fine_tuning["seconds"] = round(time.perf_counter() - started, 1)
    if "shipped" in pipeline.manifest:
        fine_tuning["from_shipped"] = pipeline.manifest["shipped"]
    manifest = {key: value for key, value in pipeline.manifest.items() if key not in ("dev", "test_raw_text", "shipped")}
    manifest["pipeline"] = {**manifest["pipeline"], "fine_tuning": [
        *manifest["pipeline"].get("fine_tuning", ()), fine_tuning]}
    return components, manifest

def annotated(sentences: list[Sentence], annotators: list) -> list[Sentence]:
    """Copies of ``sentences`` run through the trained ``annotators`` in order."""
    annotated: Iterable[Sentence] = [s.copy() for s in sentences]
    for component in annotators:
        annotated = component.process(annotated)
    return list(annotated)

def jackknifed_copies(sentences: list[Sentence], annotators: list[str], options: dict[str, dict], k: int,
                seed: int, log: Callable[[str], None]) -> list[Sentence]:
    """Copies of ``sentences`` whose columns the ``annotators`` write are predicted by
    annotators trained on the other folds."""
    out: list[Sentence] = []
    for number, fold in enumerate(folds(len(sentences), k)):
        held_out = set(fold)
        rest = [s for i, s in enumerate(sentences) if i not in held_out]
        fold_started = time.perf_counter()
        chain = [component_class(name).train(rest, options[name], seed=seed, log=lambda _: None)
                 for name in annotators]
        out.extend(annotated([sentences[i] for i in fold], chain))
        elapsed = time.perf_counter() - fold_started
        log(f"jackknife fold {number + 1}/{k}: {', '.join(annotators)} trained on {len(rest)} sentences, "
            f"annotated {len(fold)} ({elapsed:.1f} s; about {elapsed * (k - number - 1):.0f} s left)")
    return out


def _prefixed(name: str, log: Callable[[str], None]) -> Callable[[str], None]:
    return lambda message: log(f"[{name}] {message}")
