"""The report's figures (matplotlib, the optional ``plot`` extra), written as PNG files.

- abstract running time: transitions against sentence length with the least-squares
  line through the origin, one panel per transition system (Nivre 2009, Fig. 5),
  drawn by :func:`barley.analysis.oracles.plot`;
- accuracy by gold arc length, one line per parser (Nilsson, Nivre & Hall 2006, Table 4).
"""

from __future__ import annotations

import importlib.util
import io
import os

from barley.analysis import oracles as oracle_stats
from barley.experiment.runner import write_bytes

MISSING = "matplotlib is not installed, so the report has no plots (pip install -e '.[plot]' in barley's checkout)"


def available() -> bool:
    return importlib.util.find_spec("matplotlib") is not None


def running_time(stats: list[oracle_stats.OracleStats], path: str | os.PathLike, title: str) -> None:
    oracle_stats.plot(stats, path, title)


def by_arc_length(rows: dict[str, dict], path: str | os.PathLike, title: str) -> None:
    """LAS per gold arc length bin, one line per parser; ``rows``: parser -> evaluation ``by_length``."""
    import matplotlib

    matplotlib.use("Agg")  # files only: never needs a display
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(6.5, 3.8))
    for parser, bins in rows.items():
        names = [name for name in bins if name != "root"]
        values = [float("nan") if bins[name]["LAS"] is None else bins[name]["LAS"] for name in names]
        axes.plot(names, values, marker="o", label=parser)
    axes.set_xlabel("length of the gold arc")
    axes.set_ylabel("LAS (%)")
    axes.set_title(title)
    axes.legend(fontsize="small", ncol=2)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    pyplot.close(figure)
    write_bytes(path, buffer.getvalue())
