"""Run a transition system's static oracle over a treebank and measure what it does.

This is the experiment of Nivre (2009) §4.1, "abstract running time": derive the
oracle transition sequence of every sentence and fit the number of transitions m
against the sentence length n with a linear function through the origin,
m = a·n, by least squares (Fig. 5). It also counts what the theorems promise:
how many gold trees the oracle rebuilds exactly (every tree of the system's
class, Nivre 2008 §3-4; Nivre 2009 §3; Gómez-Rodríguez & Nivre 2010 §4-5), the
SWAP transitions of the swap systems and the SWITCH transitions of the 2-planar
system.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from barley import conllu
from barley.atomic import atomic_output
from barley.errors import BarleyError
from barley.systems import TransitionSystem, run_oracle
from barley.systems.base import OracleRun
from barley.tree import check_tree


@dataclass(slots=True)
class GoldTree:
    """One well-formed gold tree, labels encoded as ids of its :class:`Treebank`."""

    sent_id: str | None
    line: int  # where the sentence starts in its file
    heads: list[int]
    labels: list[int]


@dataclass
class Treebank:
    """The well-formed trees of a file and the label table they share.

    ``labels``: DEPREL strings, index = label id (numbered per file, in order of
    first appearance). ``root_label``: the id of the commonest DEPREL of words
    attached to the root, given to the words a system leaves headless (Nivre
    2008 §6.1). ``skipped``: sentences that are not well-formed trees (a missing
    or cyclic HEAD, ...), with the first reason in ``first_skip``.
    """

    trees: list[GoldTree]
    labels: list[str]
    root_label: int
    skipped: int = 0
    first_skip: str | None = None

    @property
    def words(self) -> int:
        return sum(len(tree.heads) - 1 for tree in self.trees)

    @property
    def single_rooted(self) -> bool:
        """Whether every (non-empty) tree has one word attached to the root, as UD requires."""
        return all(tree.heads[1:].count(0) == 1 for tree in self.trees if len(tree.heads) > 1)


def encode(sentences: Iterable[conllu.Sentence]) -> Treebank:
    """Encode sentences as gold trees, skipping (and counting) those that are not trees."""
    ids: dict[str, int] = {}
    trees: list[GoldTree] = []
    root_deprels: Counter[str] = Counter()
    skipped, first_skip = 0, None
    for sentence in sentences:
        heads = sentence.heads().tolist()
        reason = check_tree(heads)
        if reason is not None:
            skipped += 1
            first_skip = first_skip or f"{sentence.source}:{sentence.line}: {reason}"
            continue
        deprels = sentence.deprels()
        labels = [-1] + [ids.setdefault(deprel, len(ids)) for deprel in deprels[1:]]
        root_deprels.update(deprels[d] for d in range(1, len(heads)) if heads[d] == 0)
        trees.append(GoldTree(sentence.sent_id, sentence.line, heads, labels))
    root_label = ids[root_deprels.most_common(1)[0][0]] if root_deprels else 0
    return Treebank(trees, list(ids), root_label, skipped, first_skip)


def load(path: str | os.PathLike) -> Treebank:
    """Read and encode a CoNLL-U or CoNLL-X file (see :func:`encode`)."""
    return encode(conllu.read(path))


def fit_through_origin(lengths: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    """Least-squares fit of counts = a·lengths (no intercept), as in Nivre 2009 §4.1.

    Returns ``(a, R²)`` with R² = 1 − SS_res / SS_tot and SS_tot taken around the
    mean of the counts: the share of the variance the line explains, which is
    how the paper reads it ("still explains most of the variance"). The
    uncentred R² usual for fits through the origin would be near 1 for any
    roughly linear data and tell nothing. R² is 1 when the counts have no
    variance and the line fits them exactly, and NaN with fewer than two points.
    """
    x = np.asarray(lengths, dtype=float)
    y = np.asarray(counts, dtype=float)
    squares = float(x @ x)
    slope = float(x @ y) / squares if squares else float("nan")
    if len(y) < 2:
        return slope, float("nan")
    residual = float(np.sum((y - slope * x) ** 2))
    total = float(np.sum((y - y.mean()) ** 2))
    if total == 0:
        return slope, 1.0 if residual == 0 else float("-inf")
    return slope, 1.0 - residual / total


@dataclass
class OracleStats:
    """What a system's oracle did over a treebank; ``swaps``/``switches`` are None for
    systems without a SWAP/SWITCH move."""

    system: str
    single_root: bool
    sentences: int
    skipped: int
    words: int
    reproduced: int
    transitions: int
    swaps: int | None
    switches: int | None
    lengths: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)
    slope: float = float("nan")
    r2: float = float("nan")

    @property
    def transitions_per_word(self) -> float:
        return self.transitions / self.words if self.words else float("nan")

    def to_json(self) -> dict:
        return {
            "system": self.system, "single_root": self.single_root, "sentences": self.sentences,
            "skipped": self.skipped, "words": self.words, "reproduced": self.reproduced,
            "transitions": self.transitions, "transitions_per_word": _finite(self.transitions_per_word),
            "swaps": self.swaps, "switches": self.switches,
            "slope": _finite(self.slope), "r2": _finite(self.r2),
        }


def _finite(value: float) -> float | None:
    """JSON has no NaN: an undefined figure (an empty file) is null."""
    return value if np.isfinite(value) else None


def measure(system: TransitionSystem, treebank: Treebank,
            each: Callable[[GoldTree, OracleRun], None] | None = None) -> OracleStats:
    """Run ``system``'s oracle over every tree of ``treebank`` and gather the statistics.

    ``each(tree, run)`` is called after every sentence (to print the transitions,
    show progress, ...).
    """
    swap = system.moves.index("SWAP") if "SWAP" in system.moves else None
    switch = system.moves.index("SWITCH") if "SWITCH" in system.moves else None
    lengths = np.fromiter((len(tree.heads) - 1 for tree in treebank.trees), dtype=np.int64,
                          count=len(treebank.trees))
    counts = np.zeros(len(treebank.trees), dtype=np.int64)
    reproduced = swaps = switches = 0
    for index, tree in enumerate(treebank.trees):
        run = run_oracle(system, tree.heads, tree.labels, treebank.root_label)
        counts[index] = len(run.actions)
        reproduced += run.reproduced
        if swap is not None or switch is not None:
            moves = Counter(move for move, _ in run.actions)
            swaps += 0 if swap is None else moves[swap]
            switches += 0 if switch is None else moves[switch]
        if each is not None:
            each(tree, run)
    slope, r2 = fit_through_origin(lengths, counts)
    return OracleStats(system.name, system.single_root, len(treebank.trees), treebank.skipped,
                       int(lengths.sum()), reproduced, int(counts.sum()),
                       swaps if swap is not None else None, switches if switch is not None else None,
                       lengths, counts, slope, r2)


def action_lines(system: TransitionSystem, run: OracleRun, labels: list[str]) -> list[str]:
    """The run's actions, one per line: the move name, plus the label for labeled moves."""
    return [f"{system.moves[move]} {labels[label]}" if system.labeled[move] else system.moves[move]
            for move, label in run.actions]


def load_pyplot():
    """matplotlib's pyplot drawing to files only, or a BarleyError saying how to install it."""
    try:
        import matplotlib
    except ImportError:
        raise BarleyError("--plot needs matplotlib", fix="pip install -e '.[plot]' in barley's checkout") from None
    matplotlib.use("Agg")  # files only: never needs a display
    from matplotlib import pyplot

    return pyplot


def plot(stats: list[OracleStats], path: str | os.PathLike, title: str = "") -> None:
    """Draw transitions against sentence length with the fitted line (Nivre 2009 Fig. 5),
    one panel per system, and write the PNG atomically."""
    pyplot = load_pyplot()
    columns = min(3, len(stats))
    rows = -(-len(stats) // columns)
    figure, axes = pyplot.subplots(rows, columns, figsize=(4.5 * columns, 3.6 * rows), squeeze=False)
    for ax, stat in zip(axes.flat, stats):
        ax.scatter(stat.lengths, stat.counts, s=6, c="black", alpha=0.5, linewidths=0)
        longest = int(stat.lengths.max()) if len(stat.lengths) else 1
        ax.plot([0, longest], [0, stat.slope * longest], color="tab:red",
                label=f"m = {stat.slope:.2f}n (R² = {stat.r2:.2f})")
        ax.set_title(stat.system)
        ax.set_xlabel("sentence length n")
        ax.set_ylabel("transitions m")
        ax.legend(loc="upper left", fontsize="small")
    for ax in list(axes.flat)[len(stats):]:
        ax.set_visible(False)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    path = os.fspath(path)
    try:
        with atomic_output(path) as handle:
            figure.savefig(handle, format="png", dpi=120)
    finally:
        pyplot.close(figure)
