"""Transition systems: one module per system, all behind :class:`barley.systems.base.TransitionSystem`.

:func:`get_system` looks a system up by barley's name or MaltParser's alias.
"""

from __future__ import annotations

from barley.registry import Registry
from barley.systems.base import Action, Costs, NoDynamicOracle, OracleError, State, TransitionSystem, run_oracle

REGISTRY: Registry[type[TransitionSystem]] = Registry("transition system", "barley.systems", {
    "arc-eager": "barley.systems.arc_eager:ArcEager",
    "arc-standard": "barley.systems.arc_standard:ArcStandard",
    "arc-hybrid": "barley.systems.arc_hybrid:ArcHybrid",
    "stack-projective": "barley.systems.stack_projective:StackProjective",
    "covington-nonprojective": "barley.systems.covington:CovingtonNonProjective",
    "covington-projective": "barley.systems.covington:CovingtonProjective",
    "swap-eager": "barley.systems.swap:SwapEager",
    "swap-lazy": "barley.systems.swap:SwapLazy",
    "planar": "barley.systems.planar:Planar",
    "2-planar": "barley.systems.two_planar:TwoPlanar",
}, aliases=lambda cls: cls.aliases)
"""The transition systems by name (:mod:`barley.registry`); each answers to its MaltParser names too
(``aliases``). Adding a system adds one file and one line here, or an entry point of another
package in the group ``barley.systems`` (docs/extending.md)."""


def system_names() -> list[str]:
    return list(REGISTRY)


def get_system(name: str, **options) -> TransitionSystem:
    """The transition system called ``name`` (barley name or MaltParser alias)."""
    return REGISTRY[name](**options)


__all__ = ["Action", "Costs", "NoDynamicOracle", "OracleError", "State", "TransitionSystem", "run_oracle", "get_system", "system_names", "REGISTRY"]
