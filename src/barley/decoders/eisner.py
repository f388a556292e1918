"""Eisner's projective decoder, first order (Eisner 1996) and with adjacent siblings
(second order, McDonald & Pereira 2006 §3).

The charts are filled by span width; everything inside one width is one numpy
operation over all spans of that width and all split points (SuPar's layout), so
only the width loop runs in Python. Back-pointers are kept per chart and the tree is
read back iteratively. First order: O(n³) time, O(n²) memory (ten n × n charts, about
1.8 GB at 5,000 words); second order: the sibling scores are O(n³) memory.

Charts over nodes 0..n, for a span s..t:
  ``CR[s, t]`` complete, headed by s;   ``CL[s, t]`` complete, headed by t;
  ``IR[s, t]`` incomplete, arc s → t;   ``IL[s, t]`` incomplete, arc t → s;
  ``SB[s, t]`` (second order) s and t adjacent siblings, their head outside the span.

Single root: node 0 takes exactly one dependent r, and the tree is
``CL[1, r] + CR[r, n] + arc[0, r]`` maximised over r — exact, no penalty constant.
Arcs into node 0 are never built.
"""

from __future__ import annotations

import numpy as np

NEG = -np.inf


def _charts(size: int, count: int) -> list[np.ndarray]:
    return [np.full((size, size), NEG) for _ in range(count)]


def _best(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    arg = values.argmax(axis=1)
    return values[np.arange(len(values)), arg], arg


def _stripe(chart: np.ndarray, count: int, width: int, row: int, column: int) -> np.ndarray:
    """A (count, width) view whose entry (i, j) is ``chart[row + i, column + i + j]`` (SuPar's
    ``stripe``; where SuPar reads down a column, ``chart[row + i + j, column + i]``, barley reads
    a row of the chart's transpose).

    All spans of one width sit on a diagonal, so their split points are strided views
    of the chart: no index arrays, no gathers.
    """
    along, across = chart.strides
    return np.ndarray((count, width), chart.dtype, chart, row * along + column * across, (along + across, across))


def _diagonal(chart: np.ndarray, width: int, lower: bool = False) -> np.ndarray:
    """A view of ``chart[s, s + width]`` (``chart[s + width, s]`` when ``lower``) for every s."""
    along, across = chart.strides
    return np.ndarray((chart.shape[0] - width,), chart.dtype, chart, width * (along if lower else across),
                      (along + across,))


def _whole_sentence(CL: np.ndarray, CR: np.ndarray, root_arc: np.ndarray, heads: np.ndarray,
                    single_root: bool) -> list[tuple[str, int, int]]:
    """The spans that make up the whole sentence, to read the tree back from.

    With a single root, node 0's one dependent r is chosen here (``root_arc[r]`` scores
    the arc 0 → r) and attached in ``heads``.
    """
    n = CL.shape[0] - 1
    if not single_root:
        return [("CR", 0, n)]
    roots = np.arange(1, n + 1)
    r = int(roots[(CL[1, roots] + CR[roots, n] + root_arc[roots]).argmax()])
    heads[r] = 0
    return [("CL", 1, r), ("CR", r, n)]


def without_root_heads(arc: np.ndarray) -> np.ndarray:
    """A float64 copy of ``arc`` in which nothing is a head of node 0."""
    arc = np.asarray(arc, dtype=np.float64).copy()
    arc[:, 0] = NEG
    return arc


def first_order_charts(arc: np.ndarray) -> tuple[np.ndarray, ...]:
    """Eisner's charts CR, CL, IR, IL (the best score of every span) under ``arc`` (from
    :func:`without_root_heads`), and the back-pointers of I (both directions), CR and CL:
    the split point of each span's best score."""
    size = arc.shape[0]
    # CRt, CLt, ILt: the transposes of CR, CL, IL, read where a split point runs down a column
    # of those (``chart[r, t]`` for r = s..t): a row of the transpose is contiguous, a column
    # is a cache miss per entry, which made long sentences twice as slow.
    CR, CL, IR, IL, CRt, CLt, ILt = _charts(size, 7)
    back_I, back_CR, back_CL = (np.zeros((size, size), dtype=np.int32) for _ in range(3))
    diag = np.arange(size)
    CR[diag, diag] = CL[diag, diag] = CRt[diag, diag] = CLt[diag, diag] = 0.0
    for w in range(1, size):
        count = size - w
        s = np.arange(count)
        # split points r = s .. t-1 (t = s + w)
        best, arg = _best(_stripe(CR, count, w, 0, 0) + _stripe(CLt, count, w, w, 1))
        _diagonal(IR, w)[:] = best + _diagonal(arc, w)
        _diagonal(IL, w)[:] = _diagonal(ILt, w, lower=True)[:] = best + _diagonal(arc, w, lower=True)
        _diagonal(back_I, w)[:] = s + arg
        best, arg = _best(_stripe(CL, count, w, 0, 0) + _stripe(ILt, count, w, w, 0))
        _diagonal(CL, w)[:] = _diagonal(CLt, w, lower=True)[:] = best
        _diagonal(back_CL, w)[:] = s + arg
        # split points r = s+1 .. t
        best, arg = _best(_stripe(IR, count, w, 0, 1) + _stripe(CRt, count, w, w, 1))
        _diagonal(CR, w)[:] = _diagonal(CRt, w, lower=True)[:] = best
        _diagonal(back_CR, w)[:] = s + 1 + arg
    return CR, CL, IR, IL, back_I, back_CR, back_CL


def eisner(arc: np.ndarray, single_root: bool = True) -> np.ndarray:
    """The highest-scoring projective tree under first-order scores ``arc[h, d]``.

    Returns heads (int array of length n+1, ``heads[0] == -1``).
    """
    size = arc.shape[0]
    heads = np.full(size, -1, dtype=np.int64)
    if size == 1:
        return heads
    arc = without_root_heads(arc)
    CR, CL, _, _, back_I, back_CR, back_CL = first_order_charts(arc)
    todo = _whole_sentence(CL, CR, arc[0], heads, single_root)
    while todo:
        kind, s, t = todo.pop()
        if s == t:
            continue
        if kind == "CR":
            r = back_CR[s, t]
            todo += [("IR", s, r), ("CR", r, t)]
        elif kind == "CL":
            r = back_CL[s, t]
            todo += [("CL", s, r), ("IL", r, t)]
        else:
            heads[t if kind == "IR" else s] = s if kind == "IR" else t
            r = back_I[s, t]
            todo += [("CR", s, r), ("CL", r + 1, t)]
    return heads


def eisner_second_order(arc: np.ndarray, sibling: np.ndarray, single_root: bool = True) -> np.ndarray:
    """The highest-scoring projective tree under arc plus adjacent-sibling scores.

    ``sibling[h, s, d]`` scores d as a dependent of h whose adjacent inner sibling
    (next closer to h on the same side) is s, with ``s == h`` for the closest
    dependent (see :mod:`barley.decoders.tree_score`). Returns heads as :func:`eisner`.
    """
    size = arc.shape[0]
    heads = np.full(size, -1, dtype=np.int64)
    if size == 1:
        return heads
    arc = np.asarray(arc, dtype=np.float64).copy()
    arc[:, 0] = NEG
    CR, CL, IR, IL, SB = _charts(size, 5)
    back = {name: np.zeros((size, size), dtype=np.int64) for name in ("IR", "IL", "CR", "CL", "SB")}
    diag = np.arange(size)
    CR[diag, diag] = CL[diag, diag] = 0.0
    for w in range(1, size):
        s = np.arange(size - w)
        t = s + w
        S, T = s[:, None], t[:, None]
        # SB[s, t]: s's right half and t's left half side by side.
        split = S + np.arange(w)[None, :]  # q = s .. t-1
        SB[s, t], arg = _best(CR[S, split] + CL[split + 1, T])
        back["SB"][s, t] = s + arg
        # IR[s, t]: t is s's closest right dependent, or follows s's previous one r.
        inner = S + 1 + np.arange(w - 1)[None, :]  # r = s+1 .. t-1
        first = (CL[s + 1, t] + sibling[s, s, t])[:, None]
        best, arg = _best(np.concatenate([first, IR[S, inner] + SB[inner, T] + sibling[S, inner, T]], axis=1))
        IR[s, t] = best + arc[s, t]
        back["IR"][s, t] = s + arg  # arg 0 ↦ s: closest dependent
        # IL[s, t]: s is t's closest left dependent, or precedes t's previous one r.
        first = (CR[s, t - 1] + sibling[t, t, s])[:, None]
        best, arg = _best(np.concatenate([first, SB[S, inner] + IL[inner, T] + sibling[T, inner, S]], axis=1))
        IL[s, t] = best + arc[t, s]
        back["IL"][s, t] = np.where(arg == 0, t, s + arg)  # t: closest dependent
        split = S + np.arange(w)[None, :]  # r = s .. t-1
        CL[s, t], arg = _best(CL[S, split] + IL[split, T])
        back["CL"][s, t] = s + arg
        split = split + 1  # r = s+1 .. t
        CR[s, t], arg = _best(IR[S, split] + CR[split, T])
        back["CR"][s, t] = s + 1 + arg

    return _second_order_heads(back, _whole_sentence(CL, CR, arc[0] + sibling[0, 0], heads, single_root), heads)


def _second_order_heads(back: dict[str, np.ndarray], todo: list[tuple[str, int, int]],
                        heads: np.ndarray) -> np.ndarray:
    """``heads`` filled by following the back-pointers of :func:`eisner_second_order`'s charts from the
    spans in ``todo`` (the whole sentence's)."""
    while todo:
        kind, s, t = todo.pop()
        if s == t and kind in ("CR", "CL"):
            continue
        r = int(back[kind][s, t])
        if kind == "CR":
            todo += [("IR", s, r), ("CR", r, t)]
        elif kind == "CL":
            todo += [("CL", s, r), ("IL", r, t)]
        elif kind == "SB":
            todo += [("CR", s, r), ("CL", r + 1, t)]
        elif kind == "IR":
            heads[t] = s
            todo += [("CL", s + 1, t)] if r == s else [("IR", s, r), ("SB", r, t)]
        else:  # IL
            heads[s] = t
            todo += [("CR", s, t - 1)] if r == t else [("SB", s, r), ("IL", r, t)]
    return heads
