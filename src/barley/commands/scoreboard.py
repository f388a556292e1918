"""``barley scoreboard``: train every UD treebank of a folder by the recipes, score each from raw text and with
gold tokenization, and write the page that puts the scores beside the published ones (:mod:`barley.scoreboard`)."""

from __future__ import annotations

import os
import shlex
import sys

from barley.atomic import atomic_output, check_output, check_output_folder
from barley.errors import BarleyError
from barley.recipes import RECIPES, default_recipe

DEFAULT_OUT = "runs/scoreboard"
PAGE = "languages.md"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "scoreboard", help="train every UD treebank of a folder by a recipe, score it from raw text, and write a page "
                           "beside the published peers",
        description="Train every treebank folder of UD_DIR that has a training and a test file (dev optional) by "
                    "each recipe, score the model on the test set from raw text and with gold tokenization (barley "
                    "evaluate --conll18), time its training and its parse, and write a page beside the figures "
                    "Stanza and UDPipe 2 publish (docs/scoreboard.md). Cells done are kept: running the command "
                    "again does only what is missing.")
    parser.add_argument("ud_dir", metavar="UD_DIR", help="the folder of UD treebank folders (UD_English-EWT/ with "
                                                         "en_ewt-ud-train.conllu and en_ewt-ud-test.conllu, ...)")
    parser.add_argument("--recipe", action="append", choices=sorted(RECIPES),
                        help="a recipe to train each treebank by (repeat it for several; default: neural when "
                             "PyTorch is installed, else linear, as barley train)")
    parser.add_argument("--treebank", action="append", metavar="NAME",
                        help="only this treebank folder (e.g. UD_English-EWT; repeat it for several)")
    parser.add_argument("--out", "-o", default=DEFAULT_OUT, metavar="DIR",
                        help=f"the folder of the cells' models, outputs and records (default {DEFAULT_OUT})")
    parser.add_argument("--report", metavar="FILE",
                        help=f"where the page goes (default OUT/{PAGE}; e.g. docs/results/languages.md)")
    parser.add_argument("--seed", type=int, default=1, metavar="N", help="the trainings' seed (default 1)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--jobs", "-j", type=int, metavar="N",
                       help="cells at a time here, each on cores of its own (default: the cores divided by the "
                            "threads a recipe trains with)")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="train and score on a Dask cluster (tcp://HOST:8786, or local:N for N worker processes "
                            "here), one cell a task; needs pip install -e '.[dask]' in barley's checkout and the same paths on the "
                            "workers")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true",
                      help="list the treebanks found, the folders left out and which cells are done; run nothing")
    mode.add_argument("--report-only", action="store_true", help="write the page from the cells done; run nothing")
    parser.set_defaults(func=run)


def _check(args) -> None:
    if args.jobs is not None and args.jobs < 1:
        raise BarleyError("--jobs must be at least 1")
    if (args.list or args.report_only) and (args.jobs is not None or args.scheduler):
        flag = "--list" if args.list else "--report-only"
        raise BarleyError(f"{flag} runs nothing: --jobs and --scheduler say where cells run", fix="leave them out")
    if args.list and args.report is not None:
        raise BarleyError("--list writes no page: --report says where the page goes", fix="leave it out")


def page_command(args, recipes: list[str]) -> str:
    """The command line that makes the page (where the cells run does not change it)."""
    words = ["barley", "scoreboard", args.ud_dir, *(word for recipe in recipes for word in ("--recipe", recipe)),
             *(word for name in args.treebank or () for word in ("--treebank", name))]
    words += (["--seed", str(args.seed)] if args.seed != 1 else []) + ["-o", args.out]
    return shlex.join(words + (["--report", args.report] if args.report else []))


def run(args) -> int:
    _check(args)
    from barley.scoreboard import cell, folders, page, peers, schedule

    found = folders.discover(args.ud_dir)
    treebanks = folders.select(found, args.treebank)
    recipes = list(dict.fromkeys(args.recipe or [default_recipe().name]))
    if not args.recipe:
        print(f"barley scoreboard: the {recipes[0]} recipe (the default, as barley train's); --recipe chooses",
              file=sys.stderr)
    check_output_folder(args.out)
    report = args.report or os.path.join(args.out, PAGE)
    if not args.list:
        os.makedirs(args.out, exist_ok=True)
        check_output(report)
    cells = cell.plan(treebanks, recipes, args.out, args.seed)
    if args.list:
        _list(args.ud_dir, found, treebanks, cells)
        return 0
    failures = []
    if not args.report_only:
        cores = _cores()
        if args.scheduler:
            failures = _on_cluster(args.scheduler, cells, cores)
        else:
            jobs = args.jobs or max(1, len(cores) // max(cell.recipe_threads(RECIPES[name]) for name in recipes))
            failures = schedule.run(cells, jobs, cores)
    records = {(one.treebank.name, one.recipe): record for one in cells if (record := cell.finished(one))}
    board = page.Board(treebanks, recipes, records, peers.load(), page_command(args, recipes), args.ud_dir,
                       args.seed, found.left_out, failures)
    with atomic_output(report) as handle:
        handle.write(page.render(board).encode("utf-8"))
    print(f"barley scoreboard: {len(records)} of {len(cells)} cells done; the page is {report}", file=sys.stderr)
    if failures:
        print(f"barley scoreboard: {len(failures)} cell{'s' if len(failures) > 1 else ''} failed (see the page)",
              file=sys.stderr)
        return 1
    return 0


def _cores() -> list[int]:
    """The cores this process may use."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return list(range(os.cpu_count() or 1))


def _on_cluster(scheduler: str, cells, cores: list[int]) -> list[str]:
    from barley.runtime.distributed import connect
    from barley.scoreboard import schedule

    with connect(scheduler) as client:
        failures = schedule.run(cells, 1, cores, client=client)
        if scheduler.startswith("local"):
            client.cluster.close()
    return failures


def _list(ud_dir: str, found, treebanks, cells) -> None:
    from barley.scoreboard.cell import finished

    print(f"{ud_dir}: {len(found.treebanks)} treebanks with a training and a test file, "
          f"{len(found.left_out)} folder{'' if len(found.left_out) == 1 else 's'} left out")
    width = max(len(treebank.name) for treebank in treebanks)
    for treebank in treebanks:
        parts = "train, dev, test" if treebank.dev else "train, test (no dev: the recipes hold out the end of train)"
        state = ", ".join(f"{one.recipe} {'done' if finished(one) else 'to do'}"
                          for one in cells if one.treebank is treebank)
        print(f"  {treebank.name:<{width}}  {parts}; {state}")
    for name, why in found.left_out:
        print(f"  left out: {name}: {why}")
