"""The scores other systems publish, to stand beside barley's on the scoreboard's page.

They are data, copied by hand from each system's own page into ``peers.toml`` (this folder),
with the page's address, the UD version the figures are on and what the page leaves out; a
figure that is not published is absent, never filled in. Read and checked here.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib.resources import files

from barley.errors import BarleyError
from barley.scoreboard import METRICS

INPUTS = ("raw", "gold_tokenization")
"""What a figure was measured from: raw text, or the gold tokens (the system's own tags)."""
FIELDS = ("name", "ud", "source", "copied_from", "what", "missing")


@dataclass(frozen=True)
class Peer:
    key: str
    name: str
    ud: str
    """The UD release the figures are on."""
    source: str
    """The page the figures come from."""
    copied_from: str
    what: str
    missing: str
    scores: dict[str, dict[str, dict[str, float]]]
    """By input (:data:`INPUTS`), by treebank folder name, by metric (:data:`barley.scoreboard.METRICS`): F1."""

    @property
    def title(self) -> str:
        return f"{self.name} (UD {self.ud})"

    def score(self, given: str, treebank: str, metric: str) -> float | None:
        """The published F1 of ``metric`` on ``treebank`` from input ``given``, or None if there is none."""
        return self.scores.get(given, {}).get(treebank, {}).get(metric)


def load(text: str | None = None, source: str = "peers.toml") -> tuple[Peer, ...]:
    """The peers of ``peers.toml`` (or of ``text``, in the same form), in the file's order."""
    if text is None:
        text = (files("barley.scoreboard") / "peers.toml").read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise BarleyError(f"bad TOML: {error}", path=source) from None
    return tuple(_peer(key, table, source) for key, table in data.items())


def _peer(key: str, table, source: str) -> Peer:
    def fail(what: str):
        raise BarleyError(f"peer {key!r}: {what}", path=source)

    if not isinstance(table, dict):
        fail("not a table")
    unknown = sorted(set(table) - set(FIELDS) - set(INPUTS))
    if unknown:
        fail(f"unknown field {unknown[0]!r} (known: {', '.join(FIELDS + INPUTS)})")
    for field in FIELDS:
        if not isinstance(table.get(field), str) or not table[field]:
            fail(f"{field} must be a string")
    scores: dict[str, dict[str, dict[str, float]]] = {}
    for given in INPUTS:
        for treebank, figures in table.get(given, {}).items():
            if not isinstance(figures, dict):
                fail(f"{given}.{treebank} is not a table of metrics")
            for metric, value in figures.items():
                if metric not in METRICS:
                    fail(f"{given}.{treebank}: unknown metric {metric!r} (known: {', '.join(METRICS)})")
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 100:
                    fail(f"{given}.{treebank}.{metric} must be an F1 between 0 and 100, not {value!r}")
            scores.setdefault(given, {})[treebank] = {metric: float(value) for metric, value in figures.items()}
    name, ud, source, copied_from, what, missing = (table[field] for field in FIELDS)
    return Peer(key, name, ud, source, copied_from, what, missing, scores)
