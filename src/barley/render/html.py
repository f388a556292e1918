"""Self-contained HTML pages of arc diagrams: inline CSS, system fonts, nothing fetched.

A page is a title and a list of :class:`Figure` (one or more drawings of one
sentence, its CoNLL-U, a caption); long sentences scroll sideways in their box.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from html import escape

from barley.render import Drawing, svg

CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif; margin: 1.5em;
       color: #222; }
h1 { font-size: 1.3em; }
figure { margin: 0 0 2em 0; border-top: 1px solid #ddd; padding-top: .6em; }
figcaption { font-weight: bold; margin-bottom: .3em; }
.drawing { overflow-x: auto; }
.drawing h3 { font-size: .95em; margin: .4em 0 0 0; color: #555; }
pre { background: #f6f6f6; padding: .5em; overflow-x: auto; font-size: 12px; }
.legend span { margin-right: 1.5em; }
.wrong-head-key { color: #c0392b; } .wrong-label-key { color: #d35400; }
"""


@dataclass
class Figure:
    """One sentence on a page: its drawings (each with a heading), CoNLL-U and a caption."""

    caption: str
    drawings: list[tuple[str, Drawing]]
    conllu: str = ""
    notes: list[str] = field(default_factory=list)


def figure(item: Figure, compact: bool = False) -> str:
    parts = [f"<figure><figcaption>{escape(item.caption)}</figcaption>"]
    parts.extend(f"<p>{escape(note)}</p>" for note in item.notes)
    for heading, drawing in item.drawings:
        # the figure's caption names the sentence: its drawings carry no title of their own
        parts.append('<div class="drawing">' + (f"<h3>{escape(heading)}</h3>" if heading else "")
                     + svg.draw(replace(drawing, title=""), compact) + "</div>")
    if item.conllu:
        parts.append(f"<details><summary>CoNLL-U</summary><pre>{escape(item.conllu)}</pre></details>")
    parts.append("</figure>")
    return "\n".join(parts)


def page(title: str, figures: list[Figure], intro: str = "", legend: bool = False, script: str = "",
         compact: bool = False) -> str:
    """A whole HTML document. ``intro`` is trusted HTML; ``script`` inline JavaScript; ``compact``: the
    drawings' compact spacing (:func:`barley.render.svg.draw`)."""
    key = ('<p class="legend"><span class="wrong-head-key">red: wrong head</span>'
           '<span class="wrong-label-key">orange label: wrong label</span></p>') if legend else ""
    body = "\n".join(figure(item, compact) for item in figures)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{CSS}</style></head>\n"
            f"<body><h1>{escape(title)}</h1>{intro}{key}\n{body}\n"
            + (f"<script>{script}</script>" if script else "") + "</body></html>\n")
