"""The arc diagram of a tree as SVG: words on a line, labelled arcs above them.

An arc is a curve from the head up and over to the dependent, an arrowhead at the dependent
(displaCy's convention, and the papers' figures'), its label at the top of the curve. Arcs
are stacked by length: an arc's top lies one level above every shorter arc it overlaps, so
two arcs never share a top, and an arc that is crossed by another (a non-projective arc) is
seen crossing it. Where several arcs meet at a word they leave it side by side, ordered by
where their other ends lie, so that arcs on the same side never cross there.

Labels stay readable: they are drawn over every curve, on a white ground, and the space
between two words grows until no two labels of one level overlap (:func:`layout`; two
levels are further apart than a label is high). Under each word: its UPOS and its lemma,
with its features in the word's tooltip. ``compact`` draws the same with less room: lower
levels, narrower gaps, no lemma.

The arcs of the enhanced graph that the tree lacks (:attr:`barley.render.Drawing.enhanced`: a
controlled subject, a shared dependent of conjuncts, a relative clause's antecedent) hang below the
words, stacked the same way, in purple with their relation below them.

The SVG is self-contained: system fonts, no scripts, no external references.
Marked arcs (:func:`barley.render.compare`) are drawn red (wrong head) or their
label orange (wrong label).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from barley.render import Drawing
from barley.render.stacking import Stack

CHAR = 7.6  # average width of a character at FONT px, for the column widths
LABEL_CHAR = 6.4  # the same for the labels (11 px)
FONT = 13
MARGIN = 12
LABEL_HEIGHT = 13
LABEL_PAD = 4  # the least room between two labels of one level
ENHANCED = "#7d3c98"  # the enhanced graph's arcs (below the words)
STYLE = ("font-family: system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif; "
         "font-size: 13px;")


@dataclass(frozen=True)
class Spacing:
    level: float  # vertical distance between stacked arc tops
    gap: float    # the least horizontal space between two words
    lemmas: bool  # a line for the lemma under the UPOS


NORMAL = Spacing(level=22, gap=18, lemmas=True)
COMPACT = Spacing(level=16, gap=8, lemmas=False)


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


def draw(drawing: Drawing, compact: bool = False) -> str:
    """The SVG element (a string) of one tree."""
    width, height, body = _svg_body(drawing, COMPACT if compact else NORMAL)
    return _svg(width, height, body)


def stack(drawings: list[Drawing], compact: bool = False) -> str:
    """One SVG element holding several trees, one below the other (a gold and a system tree)."""
    parts, y, widest = [], 0.0, 0.0
    for drawing in drawings:
        width, height, body = _svg_body(drawing, COMPACT if compact else NORMAL)
        parts.append(f'<svg y="{y:.0f}" width="{width:.0f}" height="{height:.0f}">{body}</svg>')
        y, widest = y + height, max(widest, width)
    return _svg(widest, y, "\n".join(parts))


def _svg(width: float, height: float, body: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="barley-tree" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" role="img" style="{STYLE}">\n'
            f"{body}\n</svg>")


@dataclass
class Label:
    """An arc's label: its arc, its row (a level above the words, or minus a level below them),
    its text and where its box lies (``centre``, ``width``)."""

    head: int
    dependent: int
    row: int
    text: str
    centre: float = 0.0

    @property
    def span(self) -> tuple[int, int]:
        """The first and last word of the arc (the word itself for an arc from the root)."""
        return (self.dependent, self.dependent) if self.head == 0 else \
            (min(self.head, self.dependent), max(self.head, self.dependent))

    @property
    def width(self) -> float:
        return len(self.text) * LABEL_CHAR + 4

    @property
    def left(self) -> float:
        return self.centre - self.width / 2

    @property
    def right(self) -> float:
        return self.centre + self.width / 2


@dataclass
class Layout:
    """Where everything of one drawing lies: word centres and widths, the anchors of the tree's arcs
    at their words, the levels of the arcs above and below, and every label."""

    centres: list[float]
    widths: list[float]
    anchors: dict[tuple[int, int], float]
    above: dict[tuple[int, int], int]
    top_level: int
    below: dict[tuple[int, int], int]
    below_top: int
    labels: list[Label]


def layout(drawing: Drawing, spacing: Spacing = NORMAL) -> Layout:
    """The layout of a drawing, the gap after a word widened until no two labels of a row overlap.

    Two labels of one row belong to arcs that share no gap between words (that is how arcs are
    stacked; an arc from the root is alone in its row but for other arcs from the root), so the
    second one's arc starts where the first one's ends or later: widening the first gap the second
    spans (for an arc from the root, the gap before its word) moves the second label at least half
    as far as the first, and the two apart by at least half the widening."""
    n = drawing.n
    lines = [drawing.forms, drawing.tags] + ([drawing.lemmas] if spacing.lemmas and drawing.lemmas else [])
    widths = [max(max((len(line[w]) for line in lines), default=0), 3) * CHAR for w in range(n + 1)]
    gaps: list[float] = [spacing.gap] * (n + 1)  # gaps[w]: the room after word w
    above = levels(drawing.heads)
    top_level = max(above.values(), default=0) + 1  # root arcs come down from above every other arc
    below = stacked([(head, dependent) for head, dependent, _ in drawing.enhanced if head], n + 1)
    below_top = max(below.values(), default=0) + 1
    labels = [Label(head, dependent, top_level if head == 0 else above[(head, dependent)], drawing.labels[dependent])
              for head, dependent in drawing.arcs()]
    labels += [Label(head, dependent, -(below_top if head == 0 else below[(head, dependent)]), relation)
               for head, dependent, relation in drawing.enhanced]
    for _ in range(4 * len(labels) + 1):
        centres, x = [0.0] * (n + 1), float(MARGIN)
        for w in range(1, n + 1):
            centres[w] = x + widths[w] / 2
            x += widths[w] + gaps[w]
        anchors = _anchors(drawing, widths, centres)
        for label in labels:
            label.centre = _label_centre(label, anchors, centres)
        overlap = _first_overlap(labels)
        if overlap is None:
            break
        first, second = sorted(overlap, key=lambda label: label.span)
        gaps[second.span[0] if second.span[0] < second.span[1] else second.span[0] - 1] += \
            2 * (first.right + LABEL_PAD - second.left)
    shift = max(0.0, MARGIN - min((label.left for label in labels), default=MARGIN))
    if shift:  # a label wider than the words under it at the left edge
        centres = [c + shift for c in centres]
        anchors = {key: x + shift for key, x in anchors.items()}
        for label in labels:
            label.centre += shift
    return Layout(centres, widths, anchors, above, top_level, below, below_top, labels)


def _label_centre(label: Label, anchors: dict[tuple[int, int], float], centres: list[float]) -> float:
    if label.row > 0:  # a tree arc: between its anchors, or over the word of a root arc
        x_dependent = anchors[(label.dependent, label.head if label.head else label.dependent)]
        return x_dependent if label.head == 0 else (anchors[(label.head, label.dependent)] + x_dependent) / 2
    x_dependent = centres[label.dependent] + 3  # an enhanced arc: beside the middle, where no tree arc ends
    return x_dependent if label.head == 0 else (centres[label.head] + 3 + x_dependent) / 2


def _first_overlap(labels: list[Label]) -> tuple[Label, Label] | None:
    """The first two labels of one row, left to right, closer than :data:`LABEL_PAD`."""
    rows: dict[int, list[Label]] = {}
    for label in labels:
        rows.setdefault(label.row, []).append(label)
    for row in rows.values():
        row.sort(key=lambda label: label.left)
        for left, right in zip(row, row[1:]):
            if left.right + LABEL_PAD > right.left + 1e-6:
                return left, right
    return None


def _svg_body(drawing: Drawing, spacing: Spacing) -> tuple[float, float, str]:
    """Width, height and the SVG elements of one tree."""
    n = drawing.n
    placed = layout(drawing, spacing)
    centres, widths, level = placed.centres, placed.widths, spacing.level
    right = max([centres[w] + widths[w] / 2 for w in range(1, n + 1)] + [label.right for label in placed.labels],
                default=0.0)
    total_width = max(right + MARGIN, 200)
    baseline = MARGIN + (placed.top_level + 1) * level + (FONT + 4 if drawing.title else 0)
    lines = 3 if spacing.lemmas and drawing.lemmas else 2
    under = baseline + lines * FONT + 6  # below the words' lines
    height = under + MARGIN + (placed.below_top + 1) * level * bool(drawing.enhanced)
    parts = [f"<title>{escape(drawing.title or 'dependency tree')}</title>"]
    if drawing.title:
        parts.append(f'<text x="{MARGIN}" y="{MARGIN + FONT}" class="title" font-weight="bold">'
                     f"{escape(drawing.title)}</text>")
    for w in range(1, n + 1):
        parts.append(_word(drawing, w, centres[w], widths[w], baseline, lines))
    tops = {}
    for head, dependent in drawing.arcs():
        arc_level = placed.top_level if head == 0 else placed.above[(head, dependent)]
        tops[(head, dependent)] = baseline - 2 - arc_level * level
        parts.append(_arc(drawing, head, dependent, placed.anchors, baseline - 2, tops[(head, dependent)]))
    bottoms = {}
    for head, dependent, relation in drawing.enhanced:
        arc_level = placed.below_top if head == 0 else placed.below[(head, dependent)]
        bottoms[(head, dependent, relation)] = under + arc_level * level
        parts.append(_enhanced_arc(drawing, head, dependent, relation, centres, under,
                                   bottoms[(head, dependent, relation)]))
    labels = iter(placed.labels)  # over every curve: the tree's labels, then the enhanced graph's
    for (head, dependent), label in zip(drawing.arcs(), labels):
        parts.append(_label(label, tops[(head, dependent)], _label_colour(drawing, dependent), "label"))
    for arc, label in zip(drawing.enhanced, labels):
        parts.append(_label(label, bottoms[arc], ENHANCED, "label enhanced"))
    return total_width, height, "\n".join(parts)


def _word(drawing: Drawing, w: int, centre: float, width: float, baseline: float, lines: int) -> str:
    """A word's form, UPOS and (with ``lines`` 3) lemma, its features in its tooltip; with a HeadProb,
    a ground the redder the less sure its head is."""
    parts = []
    head_prob = drawing.head_prob[w]
    if head_prob is not None:
        parts.append(f'<rect class="confidence" x="{centre - width / 2 - 2:.1f}" y="{baseline:.1f}" '
                     f'width="{width + 4:.1f}" height="{lines * FONT + 6}" fill="#d62728" '
                     f'fill-opacity="{0.6 * (1 - head_prob):.2f}">'
                     f"<title>HeadProb {head_prob:.4f}</title></rect>")
    tip = " ".join(part for part in (drawing.forms[w], drawing.lemmas[w] if drawing.lemmas else "",
                                     drawing.tags[w], drawing.feats[w] if drawing.feats else "")
                   if part and part != "_")
    lemma = (f'<tspan x="{centre:.1f}" dy="{FONT}" fill="#777" font-size="11" font-style="italic">'
             f"{escape(drawing.lemmas[w] if drawing.lemmas[w] != '_' else '')}</tspan>") if lines == 3 else ""
    parts.append(f'<text class="word" data-id="{w}" x="{centre:.1f}" y="{baseline + FONT:.1f}" '
                 f'text-anchor="middle">{escape(drawing.forms[w])}<title>{escape(tip)}</title>'
                 f'<tspan x="{centre:.1f}" dy="{FONT + 2}" fill="#777" font-size="11">'
                 f"{escape(drawing.tags[w])}</tspan>{lemma}</text>")
    return "".join(parts)


def _label_colour(drawing: Drawing, dependent: int) -> str:
    return "#c0392b" if drawing.wrong_head[dependent] else "#d35400" if drawing.wrong_label[dependent] \
        else "#1f5f8b"


def _label(label: Label, y: float, colour: str, classes: str) -> str:
    """A label centred at ``y`` on a white ground."""
    return (f'<g class="{classes}" data-head="{label.head}" data-dependent="{label.dependent}">'
            f'<rect x="{label.left:.1f}" y="{y - 7:.1f}" width="{label.width:.1f}" height="{LABEL_HEIGHT}" '
            f'fill="white" fill-opacity="0.9"/>'
            f'<text x="{label.centre:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-size="11" '
            f'fill="{colour}">{escape(label.text)}</text></g>')


def _curve(x_from: float, x_to: float, base: float, apex: float) -> str:
    """A cubic Bézier from ``(x_from, base)`` to ``(x_to, base)`` whose middle reaches ``apex``
    (the control points 4/3 as far from the base: a cubic's midpoint lies 3/4 of the way to them)."""
    control = base + (apex - base) * 4 / 3
    return f"M{x_from:.1f},{base:.1f} C{x_from:.1f},{control:.1f} {x_to:.1f},{control:.1f} {x_to:.1f},{base:.1f}"


def _enhanced_arc(drawing: Drawing, head: int, dependent: int, relation: str, centres: list[float],
                  top: float, bottom: float) -> str:
    """An arc of the enhanced graph under the words: a curve down from the head and up to the
    dependent (an arrowhead there); from the root, straight up to the dependent."""
    x_dependent = centres[dependent] + 3  # beside the middle, where no tree arc ends
    if head == 0:
        path = f"M{x_dependent:.1f},{bottom:.1f} L{x_dependent:.1f},{top:.1f}"
    else:
        path = _curve(centres[head] + 3, x_dependent, top, bottom)
    arrow = (f"M{x_dependent - 3.5:.1f},{top + 6:.1f} L{x_dependent + 3.5:.1f},{top + 6:.1f} "
             f"L{x_dependent:.1f},{top:.1f} Z")
    return (f'<g class="arc enhanced" data-head="{head}" data-dependent="{dependent}">'
            f"<title>enhanced: {escape(drawing.forms[head])} → {escape(drawing.forms[dependent])}: "
            f"{escape(relation)}</title>"
            f'<path d="{path}" fill="none" stroke="{ENHANCED}" stroke-width="1.1" stroke-dasharray="4 2"/>'
            f'<path d="{arrow}" fill="{ENHANCED}"/></g>')


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
    """A tree arc's curve and arrowhead (its label is drawn later, over every curve: :func:`_label`)."""
    label = drawing.labels[dependent]
    x_dependent = anchors[(dependent, head if head else dependent)]
    classes = ["arc"] + (["wrong-head"] if drawing.wrong_head[dependent] else []) \
        + (["wrong-label"] if drawing.wrong_label[dependent] else []) + (["new"] if dependent in drawing.new else [])
    colour = "#c0392b" if drawing.wrong_head[dependent] else "#1e8449" if dependent in drawing.new else "#333"
    if head == 0:
        path = f"M{x_dependent:.1f},{top:.1f} L{x_dependent:.1f},{bottom:.1f}"
    else:
        path = _curve(anchors[(head, dependent)], x_dependent, bottom, top)
    arrow = (f"M{x_dependent - 3.5:.1f},{bottom - 6:.1f} L{x_dependent + 3.5:.1f},{bottom - 6:.1f} "
             f"L{x_dependent:.1f},{bottom:.1f} Z")
    gold = ""
    if drawing.gold and (drawing.wrong_head[dependent] or drawing.wrong_label[dependent]):
        gold_head, gold_label = drawing.gold[dependent]
        gold = f" (gold: {gold_head} {gold_label})"
    return (f'<g class="{" ".join(classes)}" data-head="{head}" data-dependent="{dependent}">'
            f"<title>{escape(drawing.forms[head])} → {escape(drawing.forms[dependent])}: {escape(label)}"
            f"{escape(gold)}</title>"
            f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="1.3"/>'
            f'<path d="{arrow}" fill="{colour}"/></g>')


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

