"""One option, declared: what every table of options is made of (:mod:`barley.options`, the training
options; :mod:`barley.parse_options`, those of ``barley parse``). Kept apart from the tables so that
``barley parse`` reads its own declarations without importing what training needs (start-up time)."""

from __future__ import annotations

from dataclasses import dataclass


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
