"""``barley convert``: rewrite a treebank as CoNLL-U or CoNLL-X (also .gz, stdin/stdout)."""

from __future__ import annotations

import sys
from collections import Counter

from barley import conllu
from barley.atomic import check_output
from barley.commands import add_force


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "convert", help="convert between CoNLL-U and CoNLL-X (and to/from .gz)",
        description="Read IN and write it to OUT in the chosen format. To CoNLL-X: comment lines, multiword "
                    "tokens and empty nodes are dropped (counted on stderr) and DEPS/MISC become PHEAD/PDEPREL _. "
                    "To CoNLL-U: a CoNLL-X PHEAD/PDEPREL moves into MISC as PHEAD=h|PDEPREL=l; everything else is "
                    "kept, so CoNLL-U input is copied unchanged. Files ending in .gz are (de)compressed.")
    parser.add_argument("input", metavar="IN", help="CoNLL-U or CoNLL-X file ('-' for stdin)")
    parser.add_argument("output", metavar="OUT", help="output file ('-' for stdout), written atomically")
    parser.add_argument("--to", choices=conllu.FORMATS, default="conllu", help="output format (default: conllu)")
    add_force(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    check_output(args.output, [args.input], force=args.force)
    dropped: Counter = Counter()
    count = conllu.write(conllu.convert(conllu.read(args.input), args.to, dropped), args.output)
    losses = ", ".join(f"{number} {what}" for what, number in sorted(dropped.items()) if number)
    print(f"{count} sentences written as {args.to}" + (f"; dropped {losses}" if losses else ""), file=sys.stderr)
    return 0
