"""The pipeline: components run in order, in ONE model file.

A pipeline is a list of components (:mod:`barley.pipeline.components`), run in registry order: a
tokenizer (``tokenize``: text → sentences), a tagger (``tag``: UPOS, XPOS, FEATS, LEMMA) and a parser
(``parse``: HEAD, DEPREL), or the joint network (``joint``: tags and trees). :class:`Pipeline` saves them
together in one model file (the usual zip of ``manifest.json`` and ``arrays.npz``,
:mod:`barley.models.archive`): loading runs no code and unpickles nothing.

Model file layout: the manifest holds ``pipeline`` (component names in order,
jackknifing, training data) and ``components`` (each component's own manifest by
name); each component's arrays are stored under ``"<name>.<key>"``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from barley import __version__
from barley.capabilities import CAPABILITIES, has, require
from barley.conllu import Sentence
from barley.errors import BarleyError, InputError, ModelError
from barley.models import archive, check
from barley.pipeline.components import COMPONENTS, component_class, has_values, ordered
from barley.pipeline.request import ParseRequest
from barley.pipeline.stream import PIPE_BATCH
from barley.runtime.threads import BLAS_THREADS, limited

BATCH = 256
"""Sentences handed to a component at a time when only some of them need it."""


class Pipeline:
    """Components run in order; one model file. ``parse`` takes text or sentences."""

    def __init__(self, components: Sequence, manifest: dict | None = None):
        self.components = list(components)
        self.manifest = manifest or {}
        self.path: str | None = None
        """The model file it was loaded from (:meth:`load`), if any."""
        self.blas_threads = BLAS_THREADS
        """The threads of the BLAS under numpy while it tokenizes and parses (0: the library's default;
        :mod:`barley.runtime.threads`)."""

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.components]

    def __getitem__(self, name: str):
        for component in self.components:
            if component.name == name:
                return component
        raise KeyError(name)

    def __contains__(self, name: str) -> bool:
        return name in self.names

    def only(self, names: Iterable[str]) -> Pipeline:
        """The pipeline of those of its components named in ``names`` (e.g. ``barley tag`` leaves out the parser)."""
        wanted = set(names)
        subset = Pipeline([c for c in self.components if c.name in wanted], self.manifest)
        subset.path, subset.blas_threads = self.path, self.blas_threads
        return subset

    @property
    def _parser(self):
        """The component that writes the trees, if any."""
        return next((c for c in self.components if "HEAD" in c.writes), None)

    @property
    def stats(self):
        """The parser's counts (``barley parse`` prints them), if there is a parser."""
        return None if self._parser is None else self._parser.stats

    @stats.setter
    def stats(self, value) -> None:
        """Start new counts (e.g. per block of a file parsed in parts, :mod:`barley.runtime.parallel`)."""
        if self._parser is not None:
            self._parser.stats = value

    def check_enhanced(self) -> None:
        """Refuse enhanced graphs (``parse(enhanced=True)``, ``--enhanced``) where no component writes trees."""
        if self._parser is None:
            raise BarleyError("enhanced graphs are made from the trees a parser predicts, and this model has none",
                              fix="leave out enhanced (--enhanced), or use a model with a parser")

    @property
    def parser(self):
        """The parser of its ``parse`` component (of any kind), or None without one."""
        return self["parse"].parser if "parse" in self else None

    def limit_words(self, max_words: int) -> None:
        """Refuse sentences longer than ``max_words`` (``barley parse --max-words``): a limit of the
        parsers whose cost grows faster than the sentence, graph-based, biaffine and joint
        (:mod:`barley.decoders.decoding`); other parsers have none to set."""
        require(self._trained_parser, "max_words")
        self._trained_parser.max_words = max_words

    def with_confidence(self, confidence) -> None:
        """Have the parser write each word's head and label probabilities and each sentence's
        score (``barley parse --confidence``, :mod:`barley.confidence`); a model without a parser
        is refused."""
        component = self._parser
        if component is None:
            raise BarleyError("--confidence gives the probabilities of heads and labels; this model has no parser",
                              fix="leave --confidence and --flag-below out")
        component.parser.confidence = confidence

    def calibrated(self, found: dict) -> None:
        """Store a temperature fitted by ``barley calibrate`` (``found["temperature"]`` and how it was
        fitted) in the parser's manifest; its probabilities use it from now on."""
        self._parser.calibrated(found)

    def set_nbest(self, k: int | None) -> None:
        """Parse into the ``k`` best trees of each sentence (None: the best tree only), for parsers
        with k-best decoding (first-order graph-based and biaffine, :mod:`barley.nbest`) or a beam
        (transition-based, :mod:`barley.transition.beam`); any other is refused in one line."""
        if k is not None and not 1 <= k:
            raise BarleyError(f"nbest must be at least 1, not {k}", fix="e.g. --nbest 5")
        self._capable("nbest", k)

    def set_valid_ud(self, on: bool | None) -> None:
        """Keep UD's structural rules in every tree (``barley parse --valid-ud``, :mod:`barley.valid_ud`)
        or not; None: the parser's default (:func:`barley.valid_ud.by_default`: on for the joint network,
        where the rules cost 0.1 LAS or less; off for transition-based parsers, whose output then stays
        the model's own). A parser that cannot is refused in one line when asked."""
        from barley.valid_ud import by_default

        parser = self._trained_parser
        self._capable("valid_ud", (by_default(parser) if has(parser, "valid_ud") else None) if on is None else on,
                      unasked=(None, False))

    def set_beam(self, width: int | None) -> None:
        """Parse with a beam of ``width`` configurations per sentence (``barley parse --beam``,
        :mod:`barley.transition.beam`; None: the width the model was trained at); transition-based parsers
        (linear and neural) only, any other refuses a width in one line."""
        self._capable("beam", width)

    @property
    def _trained_parser(self):
        """The trained parser (of any kind: :mod:`barley.capabilities`) of the component that writes the
        trees, or None."""
        return None if self._parser is None else self._parser.parser

    def _capable(self, capability: str, value, unasked: tuple = (None,)) -> None:
        """Set ``capability`` to ``value`` on the trained parser; a parser without it is refused
        (:func:`barley.capabilities.require`) unless ``value`` is one of ``unasked`` (the default)."""
        parser = self._trained_parser
        if not has(parser, capability):
            if value in unasked:
                return
            require(parser, capability)
        getattr(parser, CAPABILITIES[capability].setter)(value)

    # --- running ---------------------------------------------------------------------

    def tokenize(self, text: str | Iterable[str], input: str = "text", source: str | None = None
                 ) -> Iterator[Sentence]:
        """Sentences of ``text`` (a str, or str pieces read as they come) from the pipeline's tokenizer.

        ``input``: ``"text"`` (paragraphs separated by blank lines), ``"sentences"`` (one untokenized
        sentence per line: a sentence ends at each line's end and nowhere else) or ``"tokenized"`` (one
        sentence per line, tokens separated by spaces). :meth:`parse` then analyses them.
        ``source``: the file the text comes from, named by errors about it.
        """
        tokenizers = [c for c in self.components if c.consumes == "text"]
        if not tokenizers:
            raise BarleyError("this model has no tokenizer, so it cannot read plain text",
                              fix="give tokenized sentences (CoNLL-U), or train with --components tokenize,...")
        return limited(tokenizers[0].tokenize(text, input=input, source=source), self.blas_threads)

    def parse(self, data: str | Iterable[Sentence], retag: bool = False, arcs=None, nbest: int | None = None,
              valid_ud: bool | None = None, beam: int | None = None, enhanced: bool = False) -> Iterator[Sentence]:
        """Analyse ``data`` and yield sentences, streaming.

        ``data``: a text (needs a tokenizer in the pipeline), sentences (e.g. from
        :func:`barley.read`) or one sentence, annotated in place. Columns a tagger writes are kept where a
        sentence already has them, unless ``retag``. ``arcs``: the arcs to keep and to avoid
        (:class:`barley.constraints.ArcOptions`, e.g. ``ArcOptions(keep=True)`` keeps the HEAD
        and DEPREL the sentences already have), for the component that writes the trees.
        ``nbest``: yield the k best analyses of each sentence (:meth:`set_nbest`), the first of
        them the sentence itself; it holds for the parser from this call on, so read one such
        stream before the next. The two are not combined (refused in one line). ``valid_ud``: keep
        UD's structural rules in every tree or not (:meth:`set_valid_ud`; None: the parser's default;
        not with ``nbest``, which turns the default off). ``beam``: the width of a transition-based
        parser's beam (:meth:`set_beam`; None: the model's own). ``enhanced``: fill DEPS with the
        enhanced graph of each tree (:mod:`barley.enhanced.enhancer`: the model's learned head, else rules;
        the learned head is not combined with ``nbest``).
        """
        # the combinations no model parses, refused in one place (the probabilities: as the parser was asked)
        ParseRequest(retag=retag, arcs=arcs, nbest=nbest, valid_ud=valid_ud, beam=beam, enhanced=enhanced,
                     confidence=None if self._parser is None else self._parser.parser.confidence)
        self.set_nbest(nbest)
        self.set_beam(beam)  # before the rules, which a beam does not take yet
        self.set_valid_ud(False if nbest is not None and valid_ud is None else valid_ud)
        if isinstance(data, (bytes, bytearray)):
            raise BarleyError(f"parse takes a text as str (or sentences), not {type(data).__name__}",
                              fix="decode it first, e.g. data.decode('utf-8')")
        sentences = self.tokenize(data) if isinstance(data, str) else [data] if isinstance(data, Sentence) else data
        if enhanced:
            self.check_enhanced()
        from barley.enhanced.enhancer import flagged_if_kept, switched, with_enhanced_graphs

        enhancer = switched(self, enhanced, nbest)
        if arcs is not None and self._parser is None:
            raise BarleyError("given or forbidden arcs need a parser, and this model has none",
                              fix="leave out --keep-arcs and --forbid, or use a model with a parser")
        written: set[str] = set()
        for component in self.components:
            if component.consumes == "text":
                written.update(component.writes)
                continue
            sentences = self._checked(sentences, component, written)
            if component.keeps_given and not retag:
                sentences = self._where_missing(sentences, component)
            elif arcs is not None and component is self._parser:
                sentences = _all_used(component.process(sentences, arcs=arcs), arcs)
            else:
                sentences = component.process(sentences)
            written.update(component.writes)
        if enhancer is not None:
            sentences = with_enhanced_graphs(sentences, enhancer)
        elif self._parser is not None and not (arcs is not None and arcs.keep):
            sentences = flagged_if_kept(sentences)  # a graph of other trees beside the new ones
        return limited(iter(sentences), self.blas_threads)

    def pipe(self, texts: Iterable[str], *, batch_size: int = PIPE_BATCH, n_process: int = 1,
             input: str = "text", max_chars: int | None = None, enhanced: bool = False) -> Iterator[list[Sentence]]:
        """The analysed sentences of each of ``texts`` (one list per text), in input order, streaming
        with bounded memory; ``n_process`` worker processes (-1: one per core). As spaCy's
        ``nlp.pipe``; ``max_chars``: the most characters of one text (None:
        :data:`barley.pipeline.stream.MAX_TEXT_CHARS`); ``enhanced``: DEPS filled with each tree's
        enhanced graph (:meth:`parse`); see :mod:`barley.pipeline.stream`."""
        from barley.pipeline.stream import MAX_TEXT_CHARS, pipe

        return pipe(self, texts, batch_size=batch_size, n_process=n_process, input=input,
                    max_chars=MAX_TEXT_CHARS if max_chars is None else max_chars, enhanced=enhanced)

    @staticmethod
    def _checked(sentences: Iterable[Sentence], component, written: set[str]) -> Iterator[Sentence]:
        needed = [column for column in component.needs if column not in written]
        for sentence in sentences:
            for column in needed:
                if len(sentence) and not has_values(sentence, column):
                    raise InputError(f"this sentence has no {column} and the model has no component that "
                                     f"predicts it", path=sentence.source, line=sentence.line,
                                     fix="give a tagged file, or use a model trained with "
                                         "--components tag,parse")
            yield sentence

    @staticmethod
    def _where_missing(sentences: Iterable[Sentence], component) -> Iterator[Sentence]:
        """Run ``component`` only on the sentences that lack all of its columns (order kept)."""
        def missing(sentence: Sentence) -> bool:
            return not any(has_values(sentence, column) for column in component.writes)

        batch: list[Sentence] = []
        for sentence in sentences:
            batch.append(sentence)
            if len(batch) == BATCH:
                list(component.process([s for s in batch if missing(s)]))
                yield from batch
                batch = []
        if batch:
            list(component.process([s for s in batch if missing(s)]))
            yield from batch

    # --- scoring and training (:mod:`barley.pipeline.scoring`, :mod:`barley.pipeline.training`) -------

    def evaluate(self, data: str | Iterable[Sentence]) -> dict:
        """Accuracy of each predicted column on gold sentences (:func:`barley.pipeline.scoring.evaluate`)."""
        from barley.pipeline.scoring import evaluate

        return evaluate(self, data)

    def evaluate_text(self, data: str | Iterable[Sentence]) -> dict:
        """CoNLL 2018 F1 scores from raw text (:func:`barley.pipeline.scoring.evaluate_text`)."""
        from barley.pipeline.scoring import evaluate_text

        return evaluate_text(self, data)

    @classmethod
    def train(cls, train_data: str | Iterable[Sentence], components: Iterable[str], **keywords) -> Pipeline:
        """The named components trained on one treebank (:func:`barley.pipeline.training.train`, which
        names the keywords: ``options``, ``jackknife``, ``seed``, ``record_time``, ``log``, ``dev``)."""
        from barley.pipeline.training import train

        return cls(*train(train_data, components, **keywords))

    def fine_tuned(self, train_data: str | Iterable[Sentence], **keywords) -> Pipeline:
        """A new pipeline: this one's network trained further on ``train_data``
        (:func:`barley.pipeline.training.fine_tuned`, which names the keywords); this one is left as it was."""
        from barley.pipeline.training import fine_tuned

        return Pipeline(*fine_tuned(self, train_data, **keywords))

    # --- model files -----------------------------------------------------------------

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        manifest = {"barley_version": __version__, **self.manifest, "components": {}}
        manifest["pipeline"] = {**manifest.get("pipeline", {}), "components": self.names}
        arrays: dict[str, np.ndarray] = {}
        for component in self.components:
            sub_manifest, sub_arrays = component.to_files()
            manifest["components"][component.name] = sub_manifest
            arrays.update({f"{component.name}.{key}": value for key, value in sub_arrays.items()})
        return manifest, arrays

    def save(self, path: str) -> None:
        """Write the whole pipeline as one model file (atomically)."""
        archive.write(path, *self.to_files())

    @classmethod
    def from_files(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> Pipeline:
        """The pipeline of :meth:`to_files`: the frame checked first (:mod:`barley.models.check`): known
        components in running order, each with its manifest, every array one of theirs; then each
        component from its own manifest and arrays (which it checks)."""
        with check.loading(path, "pipeline"):
            frame = check.mapping(manifest["pipeline"], "the manifest's pipeline")
            names = check.texts(frame["components"], "the pipeline's components", unique=True)
            for name in names:
                if name not in COMPONENTS:
                    raise ModelError(f"the model holds a component {name!r} this barley does not know",
                                     path=path, fix="use a newer barley, or retrain the model")
            if not names or names != ordered(names):
                check.fail(f"the pipeline's components {names} are not in running order ({', '.join(COMPONENTS)})")
            sub_manifests = check.mapping(manifest["components"], "the manifest's components")
            if sorted(sub_manifests) != sorted(names):
                check.fail(f"the manifest describes the components {sorted(sub_manifests)}, not the pipeline's "
                           f"{names}")
            check.arrays(arrays, {}, others=tuple(f"{name}." for name in names))
            components = [component_class(name).from_files(sub_manifests[name], check.part(arrays, f"{name}."), path)
                          for name in names]
        kept = {key: value for key, value in manifest.items() if key != "components"}
        return cls(components, kept)

    @classmethod
    def load(cls, path: str) -> Pipeline:
        """The one loader of model files (``barley.load``, ``barley parse`` with or without ``--jobs``,
        the Dask workers, ``barley serve``): a pipeline model file, or a parser model file (of any kind)
        as a pipeline of one parser, so that every entry point parses through :meth:`parse` and
        its checks. ``path`` may also name a shipped or installed model, or a language
        (:mod:`barley.models.catalog`)."""
        from barley.models.catalog import resolve

        path = resolve(path)
        pipeline = cls.from_model(*archive.read(path), path)
        pipeline.path = path
        return pipeline

    @classmethod
    def from_model(cls, manifest: dict, arrays: dict[str, np.ndarray], path: str) -> Pipeline:
        """The pipeline of a model file's manifest and arrays (:meth:`load`, for a caller that has read
        them already): a pipeline's own, or a parser's as a pipeline of one parser."""
        if "pipeline" in manifest:
            return cls.from_files(manifest, arrays, path)
        return cls.of(component_class("parse").from_files(manifest, arrays, path).parser)

    @classmethod
    def of(cls, model) -> Pipeline:
        """``model`` (a pipeline, or a parser of any kind) as a pipeline."""
        if isinstance(model, Pipeline):
            return model
        return cls([component_class("parse")(model)], {"pipeline": {"components": ["parse"], "jackknife": None}})


def _all_used(sentences: Iterable[Sentence], arcs) -> Iterator[Sentence]:
    """``sentences``, then a refusal of forbidden arcs that named no sentence of them."""
    yield from sentences
    arcs.done()


def loader(path: str, components: Iterable[str] | None = None) -> Callable[[], Pipeline]:
    """A function that loads the model file ``path`` (only its ``components``, if given), for worker
    processes (:func:`barley.runtime.parallel.worker_pool`): picklable, so that a process started
    afresh (``spawn``) loads the model itself."""
    return functools.partial(_load, path, None if components is None else tuple(components))


def _load(path: str, components: tuple[str, ...] | None) -> Pipeline:
    pipeline = Pipeline.load(path)
    return pipeline if components is None else pipeline.only(components)


