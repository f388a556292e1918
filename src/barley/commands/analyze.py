"""``barley analyze``: structural statistics of treebanks (non-projectivity, planarity, gaps)."""

from __future__ import annotations

import json
import sys
import time

from barley import conllu
from barley.analysis.treebank import analyze, format_table

PROGRESS_EVERY = 1.0  # seconds between progress updates on stderr


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "analyze", help="tree statistics of treebanks (NPT/NPS, planarity, gap degree)",
        description="For each file: sentences, words, non-projective arcs and sentences (NPT, NPS), "
                    "non-planar, non-2-planar, non-3-planar and ill-nested sentences, gap degrees, "
                    "labels and mean arc length. Sentences that are not well-formed trees are counted apart.")
    parser.add_argument("files", nargs="+", metavar="FILE", help="CoNLL-U or CoNLL-X file ('-' for stdin)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per file (one per line)")
    parser.set_defaults(func=run)


def run(args) -> int:
    for path in args.files:
        progress = _Progress(path)
        report = analyze(conllu.read(path), progress)
        progress.done()
        if args.json:
            print(json.dumps({"file": path, **report}, ensure_ascii=False))
        else:
            print(format_table(path, report))
    return 0


class _Progress:
    """The sentence count on stderr at most once a second (one rewritten line on a terminal)."""

    def __init__(self, path: str):
        self.path = path
        self.start = self.last = time.monotonic()
        self.shown = False

    def __call__(self, count: int) -> None:
        if count % 256:
            return
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY:
            self.last = now
            self.shown = True
            terminal = sys.stderr.isatty()
            line = f"{self.path}: {count} sentences ({count / (now - self.start):.0f}/s)"
            print("\r" + line if terminal else line, end="" if terminal else "\n", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.shown and sys.stderr.isatty():
            print(file=sys.stderr, flush=True)
