"""The arc diagram of a tree as SVG: words on a line, labelled arcs above them.

An arc is drawn as a bracket: up from one word, across, down to the other, with
the label on its top and an arrowhead at the dependent (the convention of
displaCy and of the papers' figures). Arcs are stacked by length: an arc's top
lies one level above every shorter arc it overlaps, so two arcs never share a
top line, and an arc that is crossed by another (a non-projective arc) is seen
crossing it. Where several arcs meet at a word they leave it side by side, ordered
by where their other ends lie, so that arcs on the same side never cross there.

The arcs of the enhanced graph that the tree lacks (:attr:`barley.render.Drawing.enhanced`: a
controlled subject, a shared dependent of conjuncts, a relative clause's antecedent) hang below the
words, stacked the same way, in purple with their relation below them.

The SVG is self-contained: system fonts, no scripts, no external references.
Marked arcs (:func:`barley.render.compare`) are drawn red (wrong head) or their
label orange (wrong label).
"""

from __future__ import annotations

from html import escape

from barley.render import Drawing
from barley.render.stacking import Stack

CHAR = 7.6  # average width of a character at FONT px, for the column widths
FONT = 13
LEVEL = 20  # vertical distance between stacked arc tops
GAP = 18  # horizontal space between words
MARGIN = 12
ENHANCED = "#7d3c98"  # the enhanced graph's arcs (below the words)
STYLE = ("font-family: system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif; "
         "font-size: 13px;")


def levels(heads: list[int]) -> dict[tuple[int, int], int]:
    """The level (1 = lowest) of every arc between words (root arcs apart), shortest first:
    one above every placed arc it overlaps, that is, that shares a gap between two words
    with it (gap k lies between words k and k + 1). O(n log n) (:class:`Stack`)."""
    return stacked([(head, dependent) for dependent, head in enumerate(heads) if dependent and head > 0], len(heads))


def stacked(arcs: list[tuple[int, int]], nodes: int) -> dict[tuple[int, int], int]:
    """:func:`levels` of any arcs between words 1..nodes-1 (several heads per word allowed)."""
    level: dict[tuple[int, int], int] = {}
    stack = Stack(nodes)
    for arc in sorted(arcs, key=lambda arc: (abs(arc[0] - arc[1]), min(arc))):
        low, high = sorted(arc)
        level[arc] = stack.highest_over(low, high - 1) + 1
        stack.place(low, high - 1, level[arc])
    return level


def draw(drawing: Drawing) -> str:
    """The SVG element (a string) of one tree."""
    width, height, body = _layout(drawing)
    return _svg(width, height, body)


def stack(drawings: list[Drawing]) -> str:
    """One SVG element holding several trees, one below the other (a gold and a system tree)."""
    parts, y, widest = [], 0.0, 0.0
    for drawing in drawings:
        width, height, body = _layout(drawing)
        parts.append(f'<svg y="{y:.0f}" width="{width:.0f}" height="{height:.0f}">{body}</svg>')
        y, widest = y + height, max(widest, width)
    return _svg(widest, y, "\n".join(parts))


def _svg(width: float, height: float, body: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="barley-tree" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img" style="{STYLE}">\n'
            f"{body}\n</svg>")


def _layout(drawing: Drawing) -> tuple[float, float, str]:
    """Width, height and the SVG elements of one tree."""
    n = drawing.n
    widths = [max(len(drawing.forms[w]), len(drawing.tags[w]), 3) * CHAR for w in range(n + 1)]
    centres, x = [0.0] * (n + 1), MARGIN
    for w in range(1, n + 1):
        centres[w] = x + widths[w] / 2
        x += widths[w] + GAP
    total_width = max(x - GAP + MARGIN, 200)
    arc_level = levels(drawing.heads)
    top_level = max(arc_level.values(), default=0) + 1  # root arcs come down from above every other arc
    baseline = MARGIN + (top_level + 1) * LEVEL + (FONT + 4 if drawing.title else 0)
    below = stacked([(head, dependent) for head, dependent, _ in drawing.enhanced if head], n + 1)
    below_top = max(below.values(), default=0) + 1  # the enhanced graph's root arcs come from below every other
    height = baseline + 2 * FONT + 2 * MARGIN + (below_top + 1) * LEVEL * bool(drawing.enhanced)
    anchors = _anchors(drawing, widths, centres)
    parts = [f"<title>{escape(drawing.title or 'dependency tree')}</title>"]
    if drawing.title:
        parts.append(f'<text x="{MARGIN}" y="{MARGIN + FONT}" class="title" font-weight="bold">'
                     f"{escape(drawing.title)}</text>")
    for w in range(1, n + 1):
        if drawing.head_prob[w] is not None:  # the less sure the head, the redder the word's ground
            parts.append(f'<rect class="confidence" x="{centres[w] - widths[w] / 2 - 2:.1f}" y="{baseline:.1f}" '
                         f'width="{widths[w] + 4:.1f}" height="{2 * FONT + 6}" fill="#d62728" '
                         f'fill-opacity="{0.6 * (1 - drawing.head_prob[w]):.2f}">'
                         f"<title>HeadProb {drawing.head_prob[w]:.4f}</title></rect>")
        parts.append(f'<text class="word" data-id="{w}" x="{centres[w]:.1f}" y="{baseline + FONT:.1f}" '
                     f'text-anchor="middle">{escape(drawing.forms[w])}'
                     f'<tspan x="{centres[w]:.1f}" dy="{FONT + 2}" fill="#777" font-size="11">'
                     f"{escape(drawing.tags[w])}</tspan></text>")
    for dependent, head in enumerate(drawing.heads):
        if not dependent or head < 0:
            continue
        level = top_level if head == 0 else arc_level[(head, dependent)]
        parts.append(_arc(drawing, head, dependent, anchors, baseline - 2, baseline - 2 - level * LEVEL))
    under = baseline + 2 * FONT + 6  # below the tags
    for head, dependent, relation in drawing.enhanced:
        level = below_top if head == 0 else below[(head, dependent)]
        parts.append(_enhanced_arc(drawing, head, dependent, relation, centres, under, under + level * LEVEL))
    return total_width, height, "\n".join(parts)


def _enhanced_arc(drawing: Drawing, head: int, dependent: int, relation: str, centres: list[float],
                  top: float, bottom: float) -> str:
    """An arc of the enhanced graph under the words: down from the head, across, up to the dependent
    (an arrowhead there); from the root, straight up to the dependent."""
    x_dependent = centres[dependent] + 3  # beside the middle, where no tree arc ends
    if head == 0:
        path, label_x = f"M{x_dependent:.1f},{bottom:.1f} L{x_dependent:.1f},{top:.1f}", x_dependent
    else:
        x_head = centres[head] + 3
        path = (f"M{x_head:.1f},{top:.1f} L{x_head:.1f},{bottom:.1f} L{x_dependent:.1f},{bottom:.1f} "
                f"L{x_dependent:.1f},{top:.1f}")
        label_x = (x_head + x_dependent) / 2
    arrow = (f"M{x_dependent - 3.5:.1f},{top + 6:.1f} L{x_dependent + 3.5:.1f},{top + 6:.1f} "
             f"L{x_dependent:.1f},{top:.1f} Z")
    text_width = len(relation) * 6.4 + 4
    return (f'<g class="arc enhanced" data-head="{head}" data-dependent="{dependent}">'
            f"<title>enhanced: {escape(drawing.forms[head])} → {escape(drawing.forms[dependent])}: "
            f"{escape(relation)}</title>"
            f'<path d="{path}" fill="none" stroke="{ENHANCED}" stroke-width="1.1" stroke-dasharray="4 2"/>'
            f'<path d="{arrow}" fill="{ENHANCED}"/>'
            f'<rect x="{label_x - text_width / 2:.1f}" y="{bottom - 6:.1f}" width="{text_width:.1f}" height="13" '
            f'fill="white" fill-opacity="0.85"/>'
            f'<text x="{label_x:.1f}" y="{bottom + 5:.1f}" text-anchor="middle" font-size="11" '
            f'fill="{ENHANCED}">{escape(relation)}</text></g>')


def _anchors(drawing: Drawing, widths: list[float], centres: list[float]) -> dict[tuple[int, int], float]:
    """The x where each arc ``(word, other end)`` leaves each of its two words."""
    ends: dict[int, list[int]] = {w: [] for w in range(1, drawing.n + 1)}
    for head, dependent in drawing.arcs():
        ends[dependent].append(head if head else dependent)  # a root arc comes straight down
        if head:
            ends[head].append(dependent)
    anchors = {}
    for word, others in ends.items():
        others.sort()
        span = min(widths[word] * 0.7, 8.0 * len(others))
        for k, other in enumerate(others):
            offset = 0.0 if len(others) == 1 else span * (k / (len(others) - 1) - 0.5)
            anchors[(word, other)] = centres[word] + offset
    return anchors


def _arc(drawing: Drawing, head: int, dependent: int, anchors, bottom: float, top: float) -> str:
    label = drawing.labels[dependent]
    x_dependent = anchors[(dependent, head if head else dependent)]
    classes = ["arc"] + (["wrong-head"] if drawing.wrong_head[dependent] else []) \
        + (["wrong-label"] if drawing.wrong_label[dependent] else []) + (["new"] if dependent in drawing.new else [])
    colour = "#c0392b" if drawing.wrong_head[dependent] else "#1e8449" if dependent in drawing.new else "#333"
    label_colour = "#c0392b" if drawing.wrong_head[dependent] else "#d35400" if drawing.wrong_label[dependent] \
        else "#1f5f8b"
    if head == 0:
        path = f"M{x_dependent:.1f},{top:.1f} L{x_dependent:.1f},{bottom:.1f}"
        label_x = x_dependent
    else:
        x_head = anchors[(head, dependent)]
        radius = min(5.0, abs(x_head - x_dependent) / 2)
        sign = 1 if x_head > x_dependent else -1
        path = (f"M{x_head:.1f},{bottom:.1f} L{x_head:.1f},{top + radius:.1f} "
                f"Q{x_head:.1f},{top:.1f} {x_head - sign * radius:.1f},{top:.1f} "
                f"L{x_dependent + sign * radius:.1f},{top:.1f} "
                f"Q{x_dependent:.1f},{top:.1f} {x_dependent:.1f},{top + radius:.1f} "
                f"L{x_dependent:.1f},{bottom:.1f}")
        label_x = (x_head + x_dependent) / 2
    arrow = (f"M{x_dependent - 3.5:.1f},{bottom - 6:.1f} L{x_dependent + 3.5:.1f},{bottom - 6:.1f} "
             f"L{x_dependent:.1f},{bottom:.1f} Z")
    text_width = len(label) * 6.4 + 4
    gold = ""
    if drawing.gold and (drawing.wrong_head[dependent] or drawing.wrong_label[dependent]):
        gold_head, gold_label = drawing.gold[dependent]
        gold = f" (gold: {gold_head} {gold_label})"
    return (f'<g class="{" ".join(classes)}" data-head="{head}" data-dependent="{dependent}">'
            f"<title>{escape(drawing.forms[head])} → {escape(drawing.forms[dependent])}: {escape(label)}"
            f"{escape(gold)}</title>"
            f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="1.3"/>'
            f'<path d="{arrow}" fill="{colour}"/>'
            f'<rect x="{label_x - text_width / 2:.1f}" y="{top - 7:.1f}" width="{text_width:.1f}" height="13" '
            f'fill="white" fill-opacity="0.85"/>'
            f'<text x="{label_x:.1f}" y="{top + 4:.1f}" text-anchor="middle" font-size="11" '
            f'fill="{label_colour}">{escape(label)}</text></g>')


def reliability(bins: list[dict], ece: float, auroc: float | None) -> str:
    """A reliability diagram of head confidence (``barley evaluate``'s calibration bins): per
    equal-width bin of HeadProb, a bar as high as its UAS, against the diagonal of perfect
    calibration; each bar's tooltip gives its words, mean HeadProb and UAS."""
    size, margin = 240.0, 34.0
    right = margin + size
    parts = [f"<title>reliability of HeadProb: ECE {100 * ece:.2f} points</title>",
             f'<rect x="{margin}" y="{MARGIN}" width="{size}" height="{size}" fill="none" stroke="#999"/>',
             f'<line x1="{margin}" y1="{MARGIN + size}" x2="{right}" y2="{MARGIN}" stroke="#999" '
             f'stroke-dasharray="4 3"/>']
    for row in bins:
        if not row["words"]:
            continue
        x, width = margin + row["low"] * size, (row["high"] - row["low"]) * size
        height = row["accuracy"] * size
        parts.append(f'<rect x="{x + 1:.1f}" y="{MARGIN + size - height:.1f}" width="{width - 2:.1f}" '
                     f'height="{height:.1f}" fill="#1f77b4" fill-opacity="0.7"><title>HeadProb '
                     f'{row["low"]:.1f}-{row["high"]:.1f}: {row["words"]} words, mean {row["confidence"]:.3f}, '
                     f'UAS {100 * row["accuracy"]:.2f}</title></rect>')
    caption = f"ECE {100 * ece:.2f} points" + ("" if auroc is None else f", AUROC {auroc:.3f}")
    parts += [f'<text x="{margin + size / 2}" y="{MARGIN + size + FONT + 6}" text-anchor="middle">HeadProb</text>',
              f'<text x="{MARGIN}" y="{MARGIN + size / 2}" text-anchor="middle" '
              f'transform="rotate(-90 {MARGIN} {MARGIN + size / 2})">UAS</text>',
              f'<text x="{margin + size / 2}" y="{MARGIN + size + 2 * FONT + 10}" text-anchor="middle">'
              f"{escape(caption)}</text>"]
    return _svg(right + MARGIN, MARGIN + size + 2 * FONT + 2 * MARGIN, "\n".join(parts))

