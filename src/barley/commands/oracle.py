"""``barley oracle``: run a system's static oracle over a treebank and report what it did.

Sentences rebuilt exactly, transitions per word, SWAP/SWITCH counts and the fit
m = a·n of transitions against sentence length with its R² (Nivre 2009 §4.1,
Fig. 5); optionally the scatter plot and every sentence's transition sequence.
"""

from __future__ import annotations

import json
import os
import sys
import time

from barley.analysis import oracles as oracle_stats
from barley.atomic import check_output
from barley.commands import add_force
from barley.errors import BarleyError
from barley.systems import REGISTRY, get_system, system_names

# Seconds between progress reports on stderr: a terminal line is redrawn in place,
# a log file gets a new line each time, so less often.
PROGRESS_EVERY = {True: 1.0, False: 10.0}


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "oracle", help="run a transition system's oracle over a treebank",
        description="Derive the oracle transition sequence of every sentence of a treebank and report "
                    "how many trees are rebuilt exactly, transitions per word, swaps/switches, and the "
                    "least-squares fit m = a*n of transitions against length (Nivre 2009, Sec. 4.1).")
    parser.add_argument("file", metavar="FILE", help="CoNLL-U or CoNLL-X treebank ('-' for stdin)")
    parser.add_argument("--system", "-a", default="arc-eager", metavar="NAME",
                        help="transition system, or 'all' for a table of every system; one of: "
                             + ", ".join(system_names()) + " (default arc-eager)")
    roots = parser.add_mutually_exclusive_group()
    roots.add_argument("--single-root", dest="single_root", action="store_true", default=None,
                       help="keep a single word attached to the root (default: when every tree in FILE has one)")
    roots.add_argument("--multiple-roots", dest="single_root", action="store_false",
                       help="let several words attach to the root")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    output.add_argument("--transitions", action="store_true",
                        help="print every sentence's transitions, one per line, headed by its sent_id "
                             "(the summary then goes to stderr)")
    parser.add_argument("--sentence", metavar="ID|N",
                        help="with --show: the sentence to follow (its sent_id, or its number, 1 = the first)")
    output.add_argument("--show", action="store_true",
                        help="draw the configuration sequence of one sentence (--sentence): stack, buffer and the "
                             "arc added at each transition, as text or an HTML page with one frame per transition")
    parser.add_argument("--format", choices=("text", "html"), default="text",
                        help="with --show: text (default) or html")
    parser.add_argument("--output", "-o", default="-", metavar="OUT", help="with --show: output file (default stdout)")
    parser.add_argument("--plot", metavar="PNG",
                        help="draw transitions against length with the fitted line (needs barley[plot])")
    add_force(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    # all: those that load (a broken plugin is a warning); one: fails before reading
    names = list(REGISTRY.loadable()) if args.system == "all" else [get_system(args.system).name]
    if args.transitions and len(names) > 1:
        raise BarleyError("--transitions needs one system", fix="choose it with --system NAME")
    if args.output != "-" and not args.show:
        raise BarleyError("--output is where --show draws", fix="add --show, or leave --output out")
    check_output(args.output, [args.file], force=args.force)
    check_output(args.plot, [args.file], force=args.force)
    if args.show:
        return show(args, names)
    if args.plot:
        oracle_stats.load_pyplot()  # no matplotlib: say so before the work, not after
    treebank = oracle_stats.load(args.file)
    single_root = treebank.single_rooted if args.single_root is None else args.single_root
    if treebank.skipped:
        print(f"barley oracle: skipped {treebank.skipped} sentences that are not well-formed trees, "
              f"first: {treebank.first_skip}", file=sys.stderr)

    results = []
    for name in names:
        system = get_system(name, single_root=single_root)
        progress = _Progress(system.name, len(treebank.trees))
        each = _Printer(system, treebank.labels, then=progress) if args.transitions else progress
        results.append(oracle_stats.measure(system, treebank, each))
        each.done()

    if args.plot:
        oracle_stats.plot(results, args.plot, title=os.path.basename(args.file))
    summary = sys.stderr if args.transitions else sys.stdout
    if args.json:
        objects = [{"file": args.file, **stats.to_json()} for stats in results]
        print(json.dumps(objects[0] if len(objects) == 1 else {"file": args.file, "systems": objects}, indent=2))
    elif len(results) == 1:
        print(describe(results[0], args.file), file=summary)
    else:
        print(table(results, args.file), file=summary)
    return 0


def show(args, names: list[str]) -> int:
    """``--show``: the configuration sequence of one sentence, drawn (barley.render.transitions)."""
    from barley.commands.show import select
    from barley.conllu import FORM, UPOS, atomic_writer, read
    from barley.render import title_of, transitions

    if len(names) > 1 or args.sentence is None:
        raise BarleyError("--show follows one sentence with one system", fix="give --system NAME and --sentence ID|N")
    _, sentence, _ = next(select(((s, None) for s in read(args.file)), [args.sentence], args.file))
    treebank = oracle_stats.encode([sentence])
    if not treebank.trees:
        raise BarleyError(f"sentence {args.sentence} is not a well-formed tree ({treebank.first_skip})",
                          path=args.file, fix="choose a sentence whose HEAD column is a tree")
    single_root = treebank.single_rooted if args.single_root is None else args.single_root
    system = get_system(names[0], single_root=single_root)
    tree = treebank.trees[0]
    frame_list, run = transitions.frames(system, tree.heads, tree.labels, treebank.root_label, treebank.labels)
    forms, tags = ["ROOT", *sentence.column(FORM)], ["", *sentence.column(UPOS)]
    summary = (f"{system.name}{' (single root)' if single_root else ''}: {len(run.actions)} transitions for "
               f"{len(sentence)} words; the oracle "
               + ("rebuilds the tree exactly" if run.reproduced else "builds the nearest tree the system can"))
    title = title_of(sentence)
    if args.format == "html":
        output = transitions.page(frame_list, forms, tags, treebank.labels, f"{system.name}: {title}", summary)
    else:
        output = transitions.text(frame_list, forms, tags, treebank.labels, f"{title}\n# {summary}")
    with atomic_writer(args.output) as handle:
        handle.write(output)
    return 0


def describe(stats: oracle_stats.OracleStats, path: str) -> str:
    lines = [
        f"{path}: oracle of {stats.system}" + (" (single root)" if stats.single_root else ""),
        f"sentences      {stats.sentences}" + (f" ({stats.skipped} skipped: not well-formed trees)"
                                               if stats.skipped else ""),
        f"reproduced     {stats.reproduced} ({_percent(stats.reproduced, stats.sentences)})",
        f"words          {stats.words}",
        f"transitions    {stats.transitions} ({stats.transitions_per_word:.3f} per word)",
    ]
    if stats.swaps is not None:
        lines.append(f"swaps          {stats.swaps} ({stats.swaps / max(stats.sentences, 1):.3f} per sentence)")
    if stats.switches is not None:
        lines.append(f"switches       {stats.switches} ({stats.switches / max(stats.sentences, 1):.3f} per sentence)")
    lines.append(f"fit            m = {stats.slope:.3f}·n, R² = {stats.r2:.3f} "
                 "(least squares through the origin, Nivre 2009 §4.1)")
    return "\n".join(lines)


def table(results: list[oracle_stats.OracleStats], path: str) -> str:
    first = results[0]
    lines = [f"{path}: {first.sentences} sentences, {first.words} words"
             + (f", {first.skipped} skipped (not well-formed trees)" if first.skipped else "")
             + (", single root" if first.single_root else ""),
             f"{'system':<24} {'reproduced':>10} {'%':>7} {'trans/word':>10} {'swaps':>7} {'switches':>8} "
             f"{'slope':>7} {'R²':>6}"]
    for stats in results:
        lines.append(f"{stats.system:<24} {stats.reproduced:>10} {_percent(stats.reproduced, stats.sentences):>7} "
                     f"{stats.transitions_per_word:>10.3f} {_count(stats.swaps):>7} {_count(stats.switches):>8} "
                     f"{stats.slope:>7.3f} {stats.r2:>6.3f}")
    return "\n".join(lines)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.2f}%" if whole else "-"


def _count(value: int | None) -> str:
    return "-" if value is None else str(value)


class _Progress:
    """Sentences done so far, on stderr (silent for files done within the first interval)."""

    def __init__(self, system: str, total: int):
        self.system, self.total, self.count = system, total, 0
        self.last = self.start = time.monotonic()
        self.shown = False
        self.tty = sys.stderr.isatty()

    def __call__(self, tree, run) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY[self.tty]:
            self.last, self.shown = now, True
            print(f"barley oracle: {self.system}: {self.count}/{self.total} sentences",
                  end="\r" if self.tty else "\n", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.shown:
            line = f"barley oracle: {self.system}: {self.total} sentences in {time.monotonic() - self.start:.1f} s"
            print(line.ljust(70), file=sys.stderr)  # padded to cover the progress line it replaces


class _Printer:
    """Prints each sentence's transitions on stdout, then passes the sentence on."""

    def __init__(self, system, labels: list[str], then: _Progress):
        self.system, self.labels, self.then = system, labels, then

    def __call__(self, tree, run) -> None:
        heading = f"# sent_id = {tree.sent_id}" if tree.sent_id is not None else f"# line {tree.line}"
        print("\n".join([heading, *oracle_stats.action_lines(self.system, run, self.labels)]) + "\n")
        self.then(tree, run)

    def done(self) -> None:
        self.then.done()
