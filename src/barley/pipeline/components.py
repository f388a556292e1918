"""The kinds of pipeline component: their registry, their interface and what a model with some of them does.

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
"""

from __future__ import annotations

from collections.abc import Iterable

from barley.conllu import COLUMNS, Sentence
from barley.errors import BarleyError
from barley.registry import Registry

COMPONENTS: Registry[type] = Registry("pipeline component", "barley.components", {
    "tokenize": "barley.pipeline.tokenize:TokenizeComponent",
    "tag": "barley.pipeline.tagger:Tagger",
    "parse": "barley.pipeline.parse:ParseComponent",
    "joint": "barley.pipeline.joint:JointComponent",
})
"""Registered component kinds, in the order a pipeline runs them (:mod:`barley.registry`: another package's
components, registered in the group ``barley.components``, run after barley's own)."""


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
