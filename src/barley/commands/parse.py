"""``barley parse``: parse CoNLL-U / CoNLL-X with a trained model, streaming."""

from __future__ import annotations

import sys
import time

from barley.conllu import read, write
from barley.parser import load


def register(subparsers) -> None:
    parser = subparsers.add_parser("parse", help="parse with a trained model",
                                   description="Parse a CoNLL-U or CoNLL-X file (default stdin) with a model from "
                                               "`barley train`; only HEAD and DEPREL are replaced.")
    parser.add_argument("input", nargs="?", default="-", metavar="IN", help="input file (default: stdin)")
    parser.add_argument("--model", "-m", "-c", required=True, metavar="MODEL", help="model file")
    parser.add_argument("--output", "-o", default="-", metavar="OUT", help="output file (default: stdout)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no summary on stderr")
    parser.set_defaults(func=run)


def run(args) -> int:
    started = time.perf_counter()
    parser = load(args.model)
    write(parser.parse(read(args.input)), args.output)
    if not args.quiet:
        seconds = time.perf_counter() - started
        stats = parser.stats
        print(f"barley parse: {stats.summary()}; {seconds:.1f} s, {stats.words / max(seconds, 1e-9):.0f} words/s",
              file=sys.stderr)
    return 0
