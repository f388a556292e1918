"""The configuration sequence of a transition system's oracle on one gold tree, drawn.

For teaching the papers' systems: each frame is a configuration (the stack, the
buffer, and whatever lists the system has, e.g. Covington's λ1 and λ2 or the
2-planar system's inactive stack), the transition that led to it and the arc it
added, with the arcs built so far. :func:`frames` follows the oracle through
:func:`barley.systems.run_oracle`; :func:`text` prints a table of the frames and
:func:`page` makes an HTML page with one frame per transition (buttons and the
arrow keys step through them; a small inline script, nothing fetched).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from html import escape

from barley import render
from barley.render import html, svg
from barley.render import text as text_drawing
from barley.systems import TransitionSystem, run_oracle
from barley.systems.base import OracleRun

# State attributes that hold nodes, in display order, and their names in the papers.
LISTS = {"stack": "stack", "inactive": "inactive stack", "lambda1": "λ1", "lambda2": "λ2", "buffer": "buffer"}


@dataclass
class Frame:
    """One configuration: ``lists`` as ``(name, nodes)``, the transition into it, the arcs so far."""

    step: int
    transition: str
    lists: list[tuple[str, list[int]]]
    heads: list[int]
    labels: list[int]
    added: list[int]  # dependents whose arc this transition added


def frames(system: TransitionSystem, heads: list[int], labels: list[int], root_label: int,
           label_names: list[str]) -> tuple[list[Frame], OracleRun]:
    """Every configuration the oracle passes through, the initial one first, and the run."""
    result: list[Frame] = []

    def observe(state, action) -> None:
        previous = result[-1].heads if result else [-1] * (state.n + 1)
        added = [d for d in range(1, state.n + 1) if state.heads[d] != previous[d]]
        name = ""
        if action is not None:
            move, label = action
            name = system.moves[move] + (f" {label_names[label]}" if system.labeled[move] else "")
        lists = [(LISTS[key], list(getattr(state, key))) for key in LISTS if hasattr(state, key)]
        result.append(Frame(len(result), name, lists, list(state.heads), list(state.labels), added))

    run = run_oracle(system, heads, labels, root_label, observe=observe)
    last = result[-1]
    added = [d for d in range(1, len(heads)) if run.heads[d] != last.heads[d]]
    if added:  # words left headless at the end go to the root (Nivre 2008 §6.1)
        result.append(Frame(len(result), "(end: headless words to the root)", last.lists, list(run.heads),
                            list(run.labels), added))
    shown = {name for frame in result for name, nodes in frame.lists if nodes}
    for frame in result:  # leave out lists a system never uses (a list-based system's stack)
        frame.lists = [(name, nodes) for name, nodes in frame.lists if name in shown]
    return result, run


def _drawing(frame: Frame, forms: list[str], tags: list[str], label_names: list[str]) -> render.Drawing:
    labels = [""] + [label_names[label] if label >= 0 else "" for label in frame.labels[1:]]
    return render.Drawing(forms, tags, frame.heads, labels, new=set(frame.added))


def _node(node: int, forms: list[str]) -> str:
    return "ROOT" if node == 0 else f"{forms[node]}/{node}"


def _arcs(frame: Frame, forms: list[str], label_names: list[str]) -> str:
    return ", ".join(f"{_node(frame.heads[d], forms)} → {_node(d, forms)} ({label_names[frame.labels[d]]})"
                     for d in frame.added)


def text(frame_list: list[Frame], forms: list[str], tags: list[str], label_names: list[str], title: str,
         width: int = 80) -> str:
    """A table of the frames (long lists cut at the far end: a stack's bottom, a buffer's tail),
    then the tree built."""
    names = [name for name, _ in frame_list[0].lists]
    cell = 26 if len(names) <= 2 else 20  # the lists of list-based and 2-planar systems share the width
    lines = [f"# {title}", f"{'step':>4}  {'transition':<20} " + " ".join(f"{name:<{cell}}" for name in names)
             + " arc added"]
    for frame in frame_list:
        cells = []
        for name, nodes in frame.lists:
            shown = " ".join(_node(node, forms) for node in nodes)
            if len(shown) > cell - 2:
                shown = ("…" + shown[-(cell - 3):]) if name != "buffer" and name != "λ2" else shown[:cell - 3] + "…"
            cells.append(f"[{shown}]".ljust(cell))
        lines.append(f"{frame.step:>4}  {frame.transition:<20} {' '.join(cells)} {_arcs(frame, forms, label_names)}"
                     .rstrip())
    final = replace(_drawing(frame_list[-1], forms, tags, label_names), new=set(), title="the tree built")
    return "\n".join(lines) + "\n\n" + text_drawing.draw(final, width)


SCRIPT = """
const frames = document.querySelectorAll('.frame');
let current = 0;
function show(k) {
  current = Math.max(0, Math.min(frames.length - 1, k));
  frames.forEach((f, i) => { f.hidden = i !== current; });
  document.getElementById('position').textContent = (current + 1) + ' / ' + frames.length;
}
document.getElementById('prev').onclick = () => show(current - 1);
document.getElementById('next').onclick = () => show(current + 1);
document.getElementById('first').onclick = () => show(0);
document.getElementById('last').onclick = () => show(frames.length - 1);
document.addEventListener('keydown', e => {
  if (e.key === 'ArrowLeft') show(current - 1);
  if (e.key === 'ArrowRight') show(current + 1);
});
show(0);
"""

CSS = """
.controls button { font-size: 1em; margin-right: .3em; }
.config td { padding: .2em .6em; vertical-align: top; }
.config td:first-child { font-weight: bold; white-space: nowrap; }
.node { display: inline-block; border: 1px solid #bbb; border-radius: 3px; padding: 0 .3em; margin: 1px; }
.node sub { color: #888; }
.frame h2 { font-size: 1.05em; }
.added { color: #1e8449; }
"""


def page(frame_list: list[Frame], forms: list[str], tags: list[str], label_names: list[str], title: str,
         summary: str) -> str:
    """An HTML page with one frame per configuration, stepped through with buttons or the arrow keys."""
    parts = [f"<style>{CSS}</style><p>{escape(summary)}</p>",
             '<p class="controls"><button id="first">« first</button><button id="prev">◀ previous</button>'
             '<button id="next">next ▶</button><button id="last">last »</button> <span id="position"></span> '
             "(or the ← → keys)</p>"]
    for frame in frame_list:
        heading = f"step {frame.step}: {frame.transition}" if frame.step else "the initial configuration"
        rows = "".join(f"<tr><td>{escape(name)}</td><td>"
                       + "".join(f'<span class="node">{escape("ROOT" if node == 0 else forms[node])}'
                                 f"<sub>{node}</sub></span>" for node in nodes) + "</td></tr>"
                       for name, nodes in frame.lists)
        added = _arcs(frame, forms, label_names)
        parts.append(f'<section class="frame" data-step="{frame.step}" '
                     f'data-transition="{escape(frame.transition, quote=True)}">'
                     f"<h2>{escape(heading)}</h2>"
                     + (f'<p class="added">arc added: {escape(added)}</p>' if added else "<p>no arc added</p>")
                     + f'<table class="config">{rows}</table><div class="drawing">'
                     + svg.draw(_drawing(frame, forms, tags, label_names)) + "</div></section>")
    return html.page(title, [], intro="\n".join(parts), script=SCRIPT)
