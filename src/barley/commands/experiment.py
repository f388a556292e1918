"""``barley experiment``: run a comparison of parsers on treebanks and write its report."""

from __future__ import annotations

import sys

from barley.atomic import check_output_folder
from barley.errors import BarleyError
from barley.experiment import presets, report, runner, spec
from barley.learners import LEARNERS


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "experiment", help="compare parsers on treebanks (the papers' experiments) and write a report",
        description="Train, parse and score every parser of SPEC (a TOML file) on every treebank, or a paper's "
                    "comparison with --preset, and write report.md and report.html into the output folder. "
                    "Finished runs are kept: running the command again only does what is missing.")
    parser.add_argument("spec", nargs="?", metavar="SPEC", help="experiment spec (TOML; see docs/experiments.md)")
    parser.add_argument("--preset", choices=list(presets.PRESETS),
                        help="a paper's comparison instead of SPEC: " + ", ".join(presets.PRESETS))
    parser.add_argument("--data", default=presets.DEFAULT_DATA, metavar="DIR",
                        help=f"folder of the UD treebanks for --preset (default {presets.DEFAULT_DATA})")
    parser.add_argument("--out", metavar="DIR", help="output folder (default runs/<spec name>)")
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="runs in parallel processes (default 1)")
    parser.add_argument("--max-train-sentences", type=int, metavar="N",
                        help="train on the first N sentences only (cross-validation: use the first N sentences)")
    parser.add_argument("--learner", choices=LEARNERS, help="learner of every transition-based parser")
    parser.add_argument("--epochs", type=int, metavar="N", help="training epochs of every parser trained in epochs: graph-based, biaffine, "
                        "and transition-based with the perceptron")
    parser.add_argument("--folds", type=int, metavar="K", help="folds of every cross-validated treebank")
    parser.add_argument("--report-only", action="store_true", help="write the report from the finished runs only")
    parser.set_defaults(func=run)


def run(args) -> int:
    if bool(args.spec) == bool(args.preset):
        raise BarleyError("give either SPEC or --preset NAME", fix="e.g. barley experiment --preset nivre2008")
    for option in ("jobs", "max_train_sentences", "epochs"):
        value = getattr(args, option)
        if value is not None and value < 1:
            raise BarleyError(f"--{option.replace('_', '-')} must be at least 1")
    the_spec = presets.preset(args.preset, args.data) if args.preset else spec.load(args.spec)
    the_spec = the_spec.with_options(learner=args.learner, epochs=args.epochs,
                                     max_train_sentences=args.max_train_sentences, folds=args.folds)
    out = args.out or f"runs/{the_spec.name}"
    check_output_folder(out)
    if args.report_only:
        failures = []
        runner.merge_finished_folds(the_spec, runner.plan(the_spec, out))
    else:
        failures = runner.run_experiment(the_spec, out, jobs=args.jobs)
    markdown, page = report.write(the_spec, out, failures)
    print(f"barley experiment: report in {markdown} and {page}", file=sys.stderr)
    if failures:
        print(f"barley experiment: {len(failures)} runs failed (see the report)", file=sys.stderr)
        return 1
    return 0
