"""The terminal drawing of a tree, in the manner of udapi's text-mode trees.

One node per line, top to bottom in word order (the root first); every head with
dependents owns a vertical line (a *lane*) on the left that runs from its first to
its last node, with a branch to each of them. So a sentence of any length fits
the width: lanes take two columns each, only as many as are open at once, and the
text after them is cut with ``…`` rather than wrapped. Nothing ever overlaps:

- a lane's branch to its head is heavy (``┝ ┍ ┕``), to a dependent light (``├ ╭ ╰``);
  when a branch from an outer lane passes through it, the same with a left arm
  (``┿ ┯ ┷`` and ``┼ ┬ ┴``);
- a branch that passes a lane it does not join leaves the lane's line whole
  (``─│─``): that is where a non-projective arc crosses another.

A head's lane lies outside the lanes of its descendants (see :func:`lanes`), so
the drawing of a projective tree has no crossing at all.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass

from barley.render import Drawing
from barley.render.stacking import Stack
from barley.tree import dependents_lists

# (joins from above, joins below, arm from the left) -> glyph
DEPENDENT_GLYPH = {(True, True, False): "├", (False, True, False): "╭", (True, False, False): "╰",
                   (True, True, True): "┼", (False, True, True): "┬", (True, False, True): "┴"}
HEAD_GLYPH = {(True, True, False): "┝", (False, True, False): "┍", (True, False, False): "┕",
              (True, True, True): "┿", (False, True, True): "┯", (True, False, True): "┷"}
RED, YELLOW, CYAN, MAGENTA = "\x1b[31m", "\x1b[33m", "\x1b[36m", "\x1b[35m"
DIM, BOLD, RESET = "\x1b[2m", "\x1b[1m", "\x1b[0m"


@dataclass(frozen=True)
class Lane:
    head: int
    top: int
    bottom: int
    dependents: frozenset[int]


def lanes(heads: list[int]) -> list[tuple[Lane, int]]:
    """Each head's lane and its column (0 = nearest the words).

    Lanes of deeper heads are placed first, and each lane one column further out
    than every placed lane it overlaps: a head's lane is outside the lanes of its
    descendants. So in a projective tree no branch ever passes a lane, and a
    crossing is drawn only where an arc is non-projective. O(n log n) (:class:`Stack`,
    which holds each lane's column + 1).
    """
    dependents = dependents_lists(heads)
    by_first_dependent = sorted((deps[0], head) for head, deps in enumerate(dependents) if deps)
    spans = [Lane(head, min(head, *dependents[head]), max(head, *dependents[head]), frozenset(dependents[head]))
             for _, head in by_first_dependent]
    depth = _depths(heads)
    spans.sort(key=lambda lane: (-depth[lane.head], lane.bottom - lane.top, lane.top))
    placed: list[tuple[Lane, int]] = []
    stack = Stack(len(heads))
    for lane in spans:
        column = stack.highest_over(lane.top, lane.bottom)
        stack.place(lane.top, lane.bottom, column + 1)
        placed.append((lane, column))
    return placed


def _depths(heads: list[int]) -> list[int]:
    """Arcs from the root to each node: up to a node without a head (the root, or -1),
    or len(heads) for a node on a cycle or below one. Each node is walked once."""
    size = len(heads)
    depth = [-1] * size  # -1: not known yet
    for node in range(size):
        path, on_path, current = [], set(), node
        while depth[current] < 0 and current > 0 and heads[current] >= 0 and current not in on_path:
            path.append(current)
            on_path.add(current)
            current = heads[current]
        if depth[current] >= 0:
            base = depth[current]
        elif current in on_path:  # a cycle: every node on the path walks len(heads) steps
            base = size
        else:  # the root or a headless node
            base = depth[current] = 0
        for steps, walked in enumerate(reversed(path), start=1):
            depth[walked] = min(base + steps, size)
    return depth


def draw(drawing: Drawing, width: int = 80, colour: bool = False) -> str:
    """The drawing as lines of text (ending with a newline), none wider than ``width``
    unless the lanes alone are wider (then the lines are longer, never broken)."""
    placed = lanes(drawing.heads)
    columns = 1 + max((column for _, column in placed), default=-1)
    grid = [[" "] * (2 * columns) for _ in range(drawing.n + 1)]
    opening: list[list[tuple[Lane, int]]] = [[] for _ in range(drawing.n + 1)]
    joining: list[list[int]] = [[] for _ in range(drawing.n + 1)]  # the columns of the lanes a row branches to
    for lane, column in placed:
        opening[lane.top].append((lane, column))
        for row in (lane.head, *lane.dependents):
            joining[row].append(column)
    over: dict[int, Lane] = {}  # each column's latest lane; lanes of one column never overlap
    for row in range(drawing.n + 1):
        over.update((column, lane) for lane, column in opening[row])
        if not joining[row]:
            continue
        outer = max(joining[row])
        for column in range(outer + 1):
            above = over.get(column)
            if above is None or above.bottom < row:
                continue
            cell = 2 * (columns - 1 - column)
            if column in joining[row]:
                glyphs = HEAD_GLYPH if row == above.head else DEPENDENT_GLYPH
                grid[row][cell] = glyphs[(row > above.top, row < above.bottom, column < outer)]
            else:
                grid[row][cell] = "│"
        for cell in range(2 * (columns - 1 - outer) + 1, 2 * columns, 2):
            grid[row][cell] = "─"
        for cell in range(2 * (columns - 1 - outer) + 2, 2 * columns, 2):
            if grid[row][cell] == " ":
                grid[row][cell] = "─"
    for lane, column in placed:  # the lines between the branches
        cell = 2 * (columns - 1 - column)
        for row in range(lane.top + 1, lane.bottom):
            if grid[row][cell] == " ":
                grid[row][cell] = "│"
    lines = []
    if drawing.title:
        lines.extend(textwrap.wrap("# " + drawing.title, width=max(width, 20), subsequent_indent="#   ",
                                   break_on_hyphens=False) or ["#"])
    for row in range(drawing.n + 1):
        plain, painted = _node_text(drawing, row, colour)
        room = width - 2 * columns - 1
        if len(plain) > room:  # cut, never wrap: a wrapped line would break the lanes below it
            plain = plain[:max(room - 1, 1)] + "…"
            painted = plain if not colour else _paint(plain, DIM)
        lines.append(("".join(grid[row]) + " " + painted).rstrip())
    return "\n".join(lines) + "\n"


def _node_text(drawing: Drawing, row: int, colour: bool) -> tuple[str, str]:
    """The text after the lanes: FORM UPOS DEPREL, the marks of a wrong arc, and each arc of the enhanced
    graph into the word that the tree lacks (``+nsubj:xsubj ← 4 leave``), plain and painted."""
    if row == 0:
        return "(root)", _paint("(root)", DIM) if colour else "(root)"
    form, tag, label = drawing.forms[row], drawing.tags[row], drawing.labels[row]
    parts = [(form, BOLD), (tag, DIM), (label, CYAN)]
    if drawing.wrong_head[row]:
        head, _ = drawing.gold[row]
        parts.append((f"✗head (gold {head} {drawing.forms[head] if 0 <= head <= drawing.n else '?'})", RED))
    if drawing.wrong_label[row]:
        parts.append((f"✗label (gold {drawing.gold[row][1]})", YELLOW))
    for head, dependent, relation in drawing.enhanced:  # the enhanced graph's arcs the tree lacks
        if dependent == row:
            parts.append((f"+{relation} ← {head} {drawing.forms[head] if head else '(root)'}", MAGENTA))
    plain = " ".join(text for text, _ in parts if text)
    painted = " ".join(_paint(text, style) for text, style in parts if text) if colour else plain
    return plain, painted


def _paint(text: str, style: str) -> str:
    return f"{style}{text}{RESET}"


def use_colour(stream) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
