"""A pipeline: text or tokenized sentences in, analysed sentences out, in ONE model file.

A pipeline is a list of *components*, each a registered kind (:data:`COMPONENTS`),
run in registry order: a tokenizer (``tokenize``: text → sentences), a tagger
(``tag``: UPOS, XPOS, FEATS, LEMMA) and a parser (``parse``: HEAD, DEPREL). Each is
optional; ``barley train --components tag,parse`` trains any subset from one
treebank, and :class:`Pipeline` saves them together in one model file (the usual zip
of ``manifest.json`` and ``arrays.npz``, :mod:`barley.models.archive`): loading runs no
code and unpickles nothing.

The component interface
-----------------------
A component is one class in one module of this package, added to :data:`COMPONENTS`
by one line (``"name": "barley.pipeline.module:Class"``), or one of another package registered
by an entry point in the group ``barley.components`` (docs/extending.md). The class has:

``name``
    its registry key (``"tokenize"``, ``"tag"``, ``"parse"``);
``consumes``
    ``"text"`` for a tokenizer (it has ``tokenize``), ``"sentences"`` for the others
    (they have ``process``);
``writes``
    the CoNLL-U columns it fills (names from :data:`barley.conllu.COLUMNS`);
``keeps_given``
    True when a sentence that already has values in those columns keeps them unless
    the user asks to redo them (``--retag``): a tagger. False when it always
    recomputes them: a parser;
``needs``
    the columns a sentence must carry (not all ``_``) when no earlier component of the
    pipeline writes them; otherwise parsing stops with a clear error;
``OPTIONS``
    a dict of the training options it takes and their defaults; optionally ``OPTIONAL``,
    the options it takes only when given (no default); any other option is refused
    (:func:`check_options`);
``train(sentences, options, *, seed, log)`` (classmethod)
    fit on a list of :class:`~barley.conllu.Sentence` (gold, or carrying predicted
    columns from the earlier components when jackknifing); ``options`` holds only
    keys of ``OPTIONS`` and ``OPTIONAL``; ``log`` takes one line of progress; returns the component.
    A component that chooses its epoch on held-out data also takes ``dev`` (gold
    sentences, or None when the user gave none);
``tokenize(text) -> Iterator[Sentence]`` (``consumes == "text"``)
    split a text (a str) into sentences of words;
``process(sentences) -> Iterator[Sentence]`` (``consumes == "sentences"``)
    fill its columns in place and yield the same sentences in the same order,
    streaming;
``fine_tune(sentences, options, *, seed, log, dev)`` (optional)
    a new component: this one trained further on gold sentences of one's own, its
    vocabularies extended (:meth:`Pipeline.fine_tuned`, ``barley train --from``); a component
    without it is kept as it is when its pipeline is fine-tuned;
``to_files() -> (manifest, arrays)``
    a JSON-able dict and a dict of numpy arrays (numbers or fixed-width strings, never
    objects), all it needs to be rebuilt;
``from_files(manifest, arrays, path)`` (classmethod)
    the inverse; ``path`` names the model file in errors (:class:`ModelError`).

Training and jackknifing (:meth:`Pipeline.train`)
-------------------------------------------------
A text-consuming component learns from the gold text. Each later component learns
from the treebank as the components before it would annotate it: with jackknifing
(``jackknife=K``, on by default) the training sentences are cut into K contiguous
folds, the earlier components are trained on K-1 folds and annotate the held-out
one, so that, for instance, the parser learns from predicted tags with the errors
it will meet when parsing; the final earlier components are trained on all the data.
``jackknife=None`` trains every component on gold columns. What was done is recorded
in the manifest (``pipeline.jackknife``).

Model file layout: the manifest holds ``pipeline`` (component names in order,
jackknifing, training data) and ``components`` (each component's own manifest by
name); each component's arrays are stored under ``"<name>.<key>"``.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from barley import __version__
from barley.capabilities import CAPABILITIES, has, require
from barley.conllu import COLUMNS, Sentence, read
from barley.errors import BarleyError, InputError, ModelError
from barley.models import archive, check
from barley.pipeline.stream import PIPE_BATCH
from barley.registry import Registry
from barley.runtime.threads import BLAS_THREADS, limited

COMPONENTS: Registry[type] = Registry("pipeline component", "barley.components", {
    "tokenize": "barley.pipeline.tokenize:TokenizeComponent",
    "tag": "barley.pipeline.tagger:Tagger",
    "parse": "barley.pipeline.parse:ParseComponent",
    "joint": "barley.pipeline.joint:JointComponent",
})
"""Registered component kinds, in the order a pipeline runs them (:mod:`barley.registry`: another package's
components, registered in the group ``barley.components``, run after barley's own)."""

DEFAULT_JACKKNIFE = 5
"""Folds for jackknifing by default: each fold trains a tagger, so 5 costs half the time of 10."""

SCORES = {"UPOS": ("UPOS",), "XPOS": ("XPOS",), "UFeats": ("FEATS",),
          "AllTags": ("UPOS", "XPOS", "FEATS"), "Lemmas": ("LEMMA",), "UAS": ("HEAD",),
          "LAS": ("HEAD", "DEPREL")}
"""What :meth:`Pipeline.evaluate` scores: a word counts when all its columns are right."""

BATCH = 256
"""Sentences handed to a component at a time when only some of them need it."""



def accuracies(gold: Sequence[Sentence], predicted: Sequence[Sentence], written: Iterable[str]) -> dict:
    """The :data:`SCORES` whose columns are all ``written``, in percent of the words of ``gold``
    (every word, punctuation included), for ``predicted`` copies of the same sentences; and ``words``."""
    written = set(written)
    words = sum(len(s) for s in gold)
    scores: dict = {}
    for name, columns in SCORES.items():
        if all(column in written for column in columns):
            indexes = [COLUMNS.index(column) for column in columns]
            right = sum(all(g[i] == p[i] for i in indexes)
                        for gs, ps in zip(gold, predicted) for g, p in zip(gs.words, ps.words))
            scores[name] = round(100.0 * right / max(words, 1), 2)
    scores["words"] = words
    return scores


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def component_class(name: str):
    """The class registered as ``name``; unknown names are a clear error."""
    return COMPONENTS[name]


def check_options(name: str, options: dict) -> dict:
    """``options`` completed with the component's defaults (``OPTIONS``); an option that is
    neither there nor among those it takes only when given (``OPTIONAL``) is refused."""
    component = component_class(name)
    accepted = [*component.OPTIONS, *sorted(getattr(component, "OPTIONAL", ()))]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise BarleyError(f"component {name!r} takes no option {', '.join(map(repr, unknown))}",
                          fix=f"its options are: {', '.join(accepted) or 'none'}")
    return {**component.OPTIONS, **options}


def ordered(names: Iterable[str]) -> list[str]:
    """Component names checked, deduplicated and in registry (running) order."""
    names = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    writer: dict[str, str] = {}
    for name in names:
        for column in component_class(name).writes:
            if column in writer:
                raise BarleyError(f"components {writer[column]} and {name} both write {column}",
                                  fix="choose one of them (joint replaces tag and parse)")
            writer[column] = name
    if not names:
        raise BarleyError("no pipeline component given", fix="e.g. --components tag,parse")
    return [n for n in COMPONENTS if n in names]


def component_names(manifest: dict) -> list[str]:
    """The components of a model file, read from its manifest alone: a parser model file (no
    ``pipeline`` entry, written before pipelines existed or by a parser kind) is one parser."""
    pipeline = manifest.get("pipeline")
    return list(pipeline.get("components", ())) if isinstance(pipeline, dict) else ["parse"]


WHAT_RUNS = {"tokenize": ("tokenizes text", "barley tokenize"),
             "tag": ("tags words with UPOS, XPOS, FEATS and LEMMA", "barley tag"),
             "parse": ("parses", "barley parse")}
"""What a model does whose last component is this one, and the command that runs it."""

NOUNS = {"tokenize": "tokenizer", "tag": "tagger", "parse": "parser"}

JOBS = {"joint": ("tag", "parse")}
"""The jobs of a component that does more than the one it is named after: the joint network
tags and parses (a model with it is a tagger and a parser to ``barley tag``, ``parse`` and ``serve``)."""


def does(components: list[str], job: str) -> bool:
    """Whether a model with ``components`` does ``job`` (``tokenize``, ``tag`` or ``parse``)."""
    return any(job in JOBS.get(name, (name,)) for name in components)


def components_for(job: str) -> list[str]:
    """The component kinds that run for ``job`` (``tokenize``, ``tag`` or ``parse``): those whose
    jobs come no later than it (``barley tag`` leaves a parser out, not the joint network)."""
    done = list(NOUNS)[:list(NOUNS).index(job) + 1]
    return [name for name in COMPONENTS if set(JOBS.get(name, (name,))) & set(done)]


def require_component(components: list[str], needs: str, path: str, purpose: str = "") -> None:
    """A BarleyError if a model with ``components`` lacks ``needs``, saying what the model does and
    which command runs it (``barley parse``, ``barley tag`` and ``barley serve`` refuse alike);
    ``purpose`` ends the message (e.g. ", so barley serve cannot parse with it")."""
    if does(components, needs):
        return
    last = components[-1] if components else None
    raise BarleyError(f"the model has no {NOUNS[needs]} (its components: {', '.join(components) or 'none'}){purpose}",
                      path=path, fix=f"it {WHAT_RUNS[last][0]}: run it with `{WHAT_RUNS[last][1]} -m {path}`"
                      if last in WHAT_RUNS else f"train one with --components ...,{needs}")


def has_values(sentence: Sentence, column: str) -> bool:
    """Whether some word of ``sentence`` has a value other than ``_`` in ``column``."""
    index = COLUMNS.index(column)
    return any(word[index] != "_" for word in sentence.words)


def folds(count: int, k: int) -> list[range]:
    """K contiguous, nearly equal folds of ``count`` sentences (held-out documents, not
    scattered sentences, so that unknown words are as rare as in new text)."""
    return [range(i * count // k, (i + 1) * count // k) for i in range(k)]


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
        (:mod:`barley.graph.decoding`); other parsers have none to set."""
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
        if arcs is not None and nbest is not None:
            raise BarleyError("the k best trees (nbest) are not yet parsed around given or forbidden arcs "
                              "(keep-arcs, forbid)", fix="ask for the k best trees or for the arcs, not both")
        if valid_ud and nbest is not None:
            raise BarleyError("the k best trees (nbest) are not yet held to UD's rules (valid-ud)",
                              fix="ask for the k best trees or for valid UD, not both")
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
        confident = self._parser is not None and getattr(self._parser.parser, "confidence", None) is not None
        if confident and (arcs is not None or nbest is not None):
            # the probabilities are the model's own, of its best tree: not of trees held to given arcs, nor of the k best
            raise BarleyError("--confidence and --flag-below are not yet written together with "
                              + ("--keep-arcs or --forbid" if arcs is not None else "--nbest"),
                              fix="parse once with --confidence and once without it, or leave one out")
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

    def evaluate(self, data: str | Iterable[Sentence]) -> dict:
        """Accuracy of each predicted column on gold sentences (gold tokenization): the columns
        the components write are emptied first, so every tag is predicted. Scores in percent
        over every word (punctuation included), named as in the CoNLL 2018 shared task."""
        gold = list(read(data) if isinstance(data, str) else data)
        blank = [c for c in self.components if c.consumes == "sentences" and c.keeps_given]
        from barley.enhanced.enhancer import without_graphs

        copies = without_graphs(gold)
        for sentence in copies:
            for component in blank:
                for column in component.writes:
                    index = COLUMNS.index(column)
                    for word in sentence.words:
                        word[index] = "_"
        started = time.perf_counter()
        predicted = list(self.parse(copies, retag=True))
        seconds = time.perf_counter() - started
        written = {column for c in self.components if c.consumes == "sentences" for column in c.writes}
        scores = accuracies(gold, predicted, written)
        scores["words_per_second"] = round(scores["words"] / max(seconds, 1e-9))
        return scores

    def evaluate_text(self, data: str | Iterable[Sentence]) -> dict:
        """CoNLL 2018 F1 scores (Tokens, Sentences, Words, UPOS, ..., LAS, MLAS, BLEX) of the
        pipeline from raw text: the gold sentences' text (rebuilt from ``# text``, paragraphs as
        the treebank marks them, separated by blank lines) is tokenized and analysed, and the
        output is aligned with the gold on its characters (:mod:`barley.evaluation.conll18`)."""
        from barley.evaluation.conll18 import ENHANCED_METRICS, evaluate_conll18
        from barley.tokenizer.treebank_text import paragraphs

        gold = list(read(data) if isinstance(data, str) else data)
        text = "\n\n".join(paragraph.text for paragraph in paragraphs(gold)) + "\n"
        started = time.perf_counter()
        predicted = list(self.parse(text))
        seconds = time.perf_counter() - started
        evaluation = evaluate_conll18(gold, predicted)
        scores = {metric: None if score.f1 is None else round(score.f1, 2) for metric, score in evaluation.scores.items()
                  if metric not in ENHANCED_METRICS}  # parse() writes no enhanced graph: its ELAS would be 0
        words = sum(len(s) for s in predicted)
        return {**scores, "words": words, "words_per_second": round(words / max(seconds, 1e-9))}

    # --- training --------------------------------------------------------------------

    @classmethod
    def train(cls, train_data: str | Iterable[Sentence], components: Iterable[str], *,
              options: dict[str, dict] | None = None, jackknife: int | None = DEFAULT_JACKKNIFE,
              seed: int = 1, record_time: bool = True, log: Callable[[str], None] = _stderr,
              dev: str | Iterable[Sentence] | None = None) -> Pipeline:
        """Train the named components on one treebank (a path or sentences).

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
                    data = cls._jackknifed(sentences, annotators, options, jackknife, seed, log)
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
                extra["dev"] = cls._annotated(dev_sentences, [c for c in trained if c.consumes == "sentences"])
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
        return cls(trained, manifest)

    def fine_tuned(self, train_data: str | Iterable[Sentence], *, options: dict | None = None, seed: int = 1,
                   record_time: bool = True, log: Callable[[str], None] = _stderr,
                   dev: str | Iterable[Sentence] | None = None, base: str | None = None) -> Pipeline:
        """A new pipeline: this one with its neural network trained further on one's own treebank (a path
        or sentences), e.g. the shipped model adapted to a domain (stanfordnlp/stanza#724). The components
        that can be (those with ``fine_tune``: the joint network) learn from the gold sentences with
        ``options``; the others are kept as they are, which is said. ``dev`` chooses the epoch kept.
        ``base``: the model's name for the manifest (default: its path). The manifest keeps the first
        training, adds ``pipeline.fine_tuning`` and drops what described the model before (its dev and
        test scores, the ``shipped`` entry). This pipeline is left as it was."""
        started = time.perf_counter()
        tunable = [c.name for c in self.components if hasattr(c, "fine_tune")]
        if not tunable:
            raise BarleyError(f"the model has no neural network to train further (its components: "
                              f"{', '.join(self.names)})", path=self.path or base,
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
        log(f"fine-tuning {base or self.path} ({', '.join(self.names)}) on {source}: {len(sentences)} sentences, "
            f"{words} words")
        components = []
        for component in self.components:
            if component.name not in tunable:
                log(f"[{component.name}] kept as it is (fine-tuning trains the {', '.join(tunable)} network)")
                components.append(component)
                continue
            component_started = time.perf_counter()
            components.append(component.fine_tune([s.copy() for s in sentences], options.get(component.name, {}), seed=seed,
                                                  log=_prefixed(component.name, log), dev=dev_sentences))
            log(f"[{component.name}] fine-tuned in {time.perf_counter() - component_started:.1f} s")
        fine_tuning = {"from": base or self.path, "data": source, "sentences": len(sentences), "words": words,
                       "seed": seed, "components": tunable}
        if record_time:
            fine_tuning["seconds"] = round(time.perf_counter() - started, 1)
        if "shipped" in self.manifest:
            fine_tuning["from_shipped"] = self.manifest["shipped"]
        manifest = {key: value for key, value in self.manifest.items() if key not in ("dev", "test_raw_text", "shipped")}
        manifest["pipeline"] = {**manifest["pipeline"], "fine_tuning": [
            *manifest["pipeline"].get("fine_tuning", ()), fine_tuning]}
        return Pipeline(components, manifest)

    @staticmethod
    def _annotated(sentences: list[Sentence], annotators: list) -> list[Sentence]:
        """Copies of ``sentences`` run through the trained ``annotators`` in order."""
        annotated: Iterable[Sentence] = [s.copy() for s in sentences]
        for component in annotators:
            annotated = component.process(annotated)
        return list(annotated)

    @staticmethod
    def _jackknifed(sentences: list[Sentence], annotators: list[str], options: dict[str, dict], k: int,
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
            out.extend(Pipeline._annotated([sentences[i] for i in fold], chain))
            elapsed = time.perf_counter() - fold_started
            log(f"jackknife fold {number + 1}/{k}: {', '.join(annotators)} trained on {len(rest)} sentences, "
                f"annotated {len(fold)} ({elapsed:.1f} s; about {elapsed * (k - number - 1):.0f} s left)")
        return out

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


def _prefixed(name: str, log: Callable[[str], None]) -> Callable[[str], None]:
    return lambda message: log(f"[{name}] {message}")


__all__ = ["COMPONENTS", "Pipeline", "accuracies", "component_class", "check_options", "ordered", "folds",
           "has_values"]


def loader(path: str, components: Iterable[str] | None = None) -> Callable[[], Pipeline]:
    """A function that loads the model file ``path`` (only its ``components``, if given), for worker
    processes (:func:`barley.runtime.parallel.worker_pool`): picklable, so that a process started
    afresh (``spawn``) loads the model itself."""
    return functools.partial(_load, path, None if components is None else tuple(components))


def _load(path: str, components: tuple[str, ...] | None) -> Pipeline:
    pipeline = Pipeline.load(path)
    return pipeline if components is None else pipeline.only(components)

