"""``barley show``: draw trees in the terminal, or as an SVG arc diagram or HTML page.

With ``--compare SYSTEM`` the SYSTEM tree of each sentence is drawn under the
gold tree of FILE, its wrong heads and labels marked.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterable, Iterator
from dataclasses import replace

from barley import render
from barley.atomic import check_output
from barley.commands import add_force
from barley.conllu import Sentence, atomic_writer, read
from barley.errors import BarleyError
from barley.evaluation.attachment import aligned_pairs
from barley.render import html, svg, text

FORMATS = ("text", "svg", "html")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "show", help="draw dependency trees (terminal, SVG, HTML)",
        description="Draw the trees of a CoNLL-U or CoNLL-X file: in the terminal (one word per line, arcs "
                    "as brackets on the left, colour on a terminal unless NO_COLOR is set), or as an SVG arc "
                    "diagram or a self-contained HTML page. With --compare, the trees of SYSTEM are drawn "
                    "under those of FILE (the gold standard) with wrong heads and labels marked.")
    parser.add_argument("file", metavar="FILE", nargs="?",
                        help="CoNLL-U or CoNLL-X file (default, or '-': standard input, e.g. from barley parse)")
    parser.add_argument("--sentence", "-s", action="append", metavar="ID|N",
                        help="draw only this sentence: its sent_id, or its number N (1 = the first); "
                             "repeat for several (default: all)")
    parser.add_argument("--format", "-f", choices=FORMATS, default="text",
                        help="text (default), svg (one sentence) or html (a page of all)")
    parser.add_argument("--compare", metavar="SYSTEM",
                        help="parser output for the same words: draw it under each gold tree, errors marked")
    parser.add_argument("--compact", action="store_true",
                        help="svg and html: lower arcs, narrower gaps and no lemmas, to fit more of a long sentence")
    parser.add_argument("--width", type=int, metavar="COLUMNS",
                        help="text width (default: the terminal's, or 80 when not a terminal)")
    parser.add_argument("--output", "-o", default="-", metavar="OUT", help="output file (default: stdout)")
    add_force(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    if args.file is None:
        if sys.stdin.isatty():  # nothing piped in: waiting for typed CoNLL-U would look like a hang
            raise BarleyError("no FILE given, and standard input is a terminal",
                              fix="give a CoNLL-U file, or pipe one in: barley parse --input text FILE | barley show")
        args.file = "-"
    check_output(args.output, [args.file, args.compare], force=args.force)
    pairs = list(select(_pairs(args.file, args.compare), args.sentence, args.file))
    if args.format == "svg" and len(pairs) != 1:
        raise BarleyError(f"--format svg draws one sentence, and {len(pairs)} are selected",
                          fix="pick one with --sentence ID|N, or use --format html for a page of them")
    if args.compact and args.format == "text":
        raise BarleyError("--compact draws arc diagrams (--format svg or html); the terminal drawing is compact "
                          "already", fix="leave --compact out, or add --format html")
    to_terminal = args.output == "-" and sys.stdout.isatty()
    width = args.width or (shutil.get_terminal_size().columns if to_terminal else 80)
    colour = args.format == "text" and args.output == "-" and text.use_colour(sys.stdout)
    drawings = [_drawings(gold, system, args) for _, gold, system in pairs]
    if args.format == "text":
        output = "\n".join(_text_block(group, width, colour) for group in drawings)
    elif args.format == "svg":
        output = svg.stack([drawing for _, drawing in drawings[0]], args.compact) + "\n"
    else:
        title = f"{args.file} compared with {args.compare}" if args.compare else args.file
        figures = [html.Figure(render.title_of(gold, f"sentence {number}"),
                               [(heading, replace(drawing, title="")) for heading, drawing in group],
                               conllu=(system or gold).to_text())
                   for (number, gold, system), group in zip(pairs, drawings)]
        output = html.page(title, figures, legend=bool(args.compare), compact=args.compact)
    with atomic_writer(args.output) as handle:
        handle.write(output)
    return 0


def _pairs(path: str, compare: str | None) -> Iterator[tuple[Sentence, Sentence | None]]:
    if compare is None:
        return ((sentence, None) for sentence in read(path))
    return aligned_pairs(path, compare)


def select(pairs: Iterable, wanted: list[str] | None, path: str) -> Iterator[tuple[int, Sentence, Sentence | None]]:
    """``(number, gold, system)`` of the sentences picked by sent_id or number, in file order."""
    remaining = set(wanted or ())
    count = 0
    for count, (gold, system) in enumerate(pairs, start=1):
        if wanted is None:
            yield count, gold, system
            continue
        hits = {str(count), gold.sent_id} & remaining
        if hits:
            remaining -= hits
            yield count, gold, system
    if remaining:
        missing = sorted(remaining)[0]
        raise BarleyError(f"no sentence has sent_id {missing!r} or number {missing} (the file has {count})",
                          path=path, fix="give a sent_id of the file or a number from 1 to the number of sentences")


def _drawings(gold: Sentence, system: Sentence | None, args) -> list[tuple[str, render.Drawing]]:
    """The drawings of one sentence under their headings: the tree, or the gold and the marked system tree
    (then the first drawing carries the sentence's title, the second none)."""
    if system is None:
        return [("", render.from_sentence(gold))]
    marked = render.compare(gold, system, title="")
    wrong_heads = sum(marked.wrong_head[1:])
    return [(f"gold: {args.file}", render.from_sentence(gold)),
            (f"system: {args.compare}: {wrong_heads} wrong heads, {marked.errors - wrong_heads} more wrong labels",
             marked)]


def _text_block(group: list[tuple[str, render.Drawing]], width: int, colour: bool) -> str:
    """The drawings of one sentence, the title above all of them."""
    title = group[0][1].title
    lines = [text.draw(replace(drawing, title=""), width, colour) if heading
             else text.draw(drawing, width, colour) for heading, drawing in group]
    if not group[0][0]:
        return lines[0]
    return f"# {title}\n" + "".join(f"## {heading}\n{drawn}" for (heading, _), drawn in zip(group, lines))
