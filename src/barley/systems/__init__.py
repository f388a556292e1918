"""Transition systems: one module per system, all behind :class:`barley.systems.base.TransitionSystem`.

:func:`get_system` looks a system up by barley's name or MaltParser's alias.
"""

from __future__ import annotations

from barley.errors import BarleyError
from barley.systems.base import Action, Costs, NoDynamicOracle, OracleError, State, TransitionSystem, run_oracle

# name -> "module:Class"; adding a system adds one line here and one file.
REGISTRY: dict[str, str] = {
    "arc-eager": "arc_eager:ArcEager",
    "arc-standard": "arc_standard:ArcStandard",
    "arc-hybrid": "arc_hybrid:ArcHybrid",
    "stack-projective": "stack_projective:StackProjective",
    "covington-nonprojective": "covington:CovingtonNonProjective",
    "covington-projective": "covington:CovingtonProjective",
    "swap-eager": "swap:SwapEager",
    "swap-lazy": "swap:SwapLazy",
    "planar": "planar:Planar",
    "2-planar": "two_planar:TwoPlanar",
}


def _load(spec: str) -> type[TransitionSystem]:
    import importlib

    module, _, cls = spec.partition(":")
    return getattr(importlib.import_module(f"barley.systems.{module}"), cls)


def system_names() -> list[str]:
    return list(REGISTRY)


def get_system(name: str, **options) -> TransitionSystem:
    """The transition system called ``name`` (barley name or MaltParser alias)."""
    for key, spec in REGISTRY.items():
        cls = _load(spec)
        if name == key or name in cls.aliases:
            return cls(**options)
    raise BarleyError(f"unknown transition system {name!r}",
                      fix="choose one of: " + ", ".join(REGISTRY))


__all__ = ["Action", "Costs", "NoDynamicOracle", "OracleError", "State", "TransitionSystem", "run_oracle", "get_system", "system_names", "REGISTRY"]
