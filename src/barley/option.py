"""One option, declared: what every table of options is made of (:mod:`barley.options`, the training
options; :mod:`barley.parse_options`, those of ``barley parse``). Kept apart from the tables so that
``barley parse`` reads its own declarations without importing what training needs (start-up time)."""

from __future__ import annotations

from dataclasses import Field, dataclass, field, fields
from typing import Any

TRANSITION, GRAPH = "parser:transition", "parser:graph"
BIAFFINE, NEURAL_TRANSITION = "parser:biaffine", "parser:neural-transition"
JOINT = "component:joint"
NEURAL = (BIAFFINE, NEURAL_TRANSITION, JOINT)
LINEAR, SVM, PERCEPTRON = "learner:linear", "learner:svm-poly2", "learner:perceptron"
TAGGER = "component:tag"
LINEAR_TOKENIZER, NEURAL_TOKENIZER = "tokenizer:linear", "tokenizer:neural"
"""The takers: what an option reaches (see :mod:`barley.options`)."""

DECLARED = "barley.option"
"""The key of a dataclass field's metadata that declares it an option (:func:`option`)."""


@dataclass(frozen=True)
class Option:
    """One option. ``name``: its ``argparse`` destination and its name in an experiment spec; ``key``:
    the keyword its takers receive when it differs (``learner_c`` reaches a learner as ``C``);
    ``default``: the takers' default, for the help and the docs (None: the taker decides, said in
    ``help``); ``flags``: empty for an option of experiment specs only."""

    name: str
    flags: tuple[str, ...]
    type: type
    default: object
    help: str
    takers: tuple[str, ...]
    choices: tuple | None = None
    metavar: str | None = None
    key: str | None = None
    action: str | None = None
    """``switch``: a flag without a value (``--confidence``); ``negatable``: ``--valid-ud``/``--no-valid-ud``."""

    @property
    def keyword(self) -> str:
        return self.key or self.name

    @property
    def flag(self) -> str:
        return self.flags[0] if self.flags else self.name

    def takes(self, taker: str) -> bool:
        return taker in self.takers

    def help_text(self) -> str:
        return self.help + ("" if self.default is None else f" (default {shown(self.default)})")


def shown(value: object) -> str:
    """A default or a choice as one writes it on the command line (``a,b``, ``true``, ``0.3``)."""
    return ",".join(value) if isinstance(value, tuple) else str(value).lower() if isinstance(value, bool) else str(value)


def declare(name: str, type_: type, default: object, help: str, *takers: str, flags: tuple[str, ...] | None = None,
            **more) -> Option:
    """An option whose flag is its name (``--split-threshold``) unless ``flags`` says otherwise."""
    return Option(name, ("--" + name.replace("_", "-"),) if flags is None else flags, type_, default, help, takers,
                  **more)


def option(default: Any, help: str, *takers: str, **more: Any) -> Any:
    """A dataclass field whose default is that of an option it declares: the help, the takers (none: those the
    collector of the class gives) and any other :class:`Option` field (``choices``, ``metavar``, ``flags``),
    kept in the field's metadata, so that the option is declared once, where its default lives, and read off
    by :func:`from_fields`."""
    return field(default=default, metadata={DECLARED: (help, takers, more)})


def declaration(declared: Field) -> tuple[str, tuple[str, ...], dict] | None:
    """``(help, takers, more)`` of a field made by :func:`option`, else None."""
    return declared.metadata.get(DECLARED)


def from_fields(cls: type, *takers: str) -> list[Option]:
    """The options declared on the fields of the dataclass ``cls`` (:func:`option`), in the fields' order,
    each taken by its own takers or else by ``takers``; the type is the default's."""
    made = []
    for declared in fields(cls):
        spec = declaration(declared)
        if spec is not None:
            help, own, more = spec
            if not (own or takers):  # a declaration error: an option nobody takes would be refused everywhere
                raise TypeError(f"{cls.__name__}.{declared.name}: an option with no taker (name one in option(...) "
                                f"or give from_fields the takers of the class)")
            made.append(declare(declared.name, type(declared.default), declared.default, help, *(own or takers),
                                **more))
    return made
