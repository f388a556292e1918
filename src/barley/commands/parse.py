"""``barley parse``: parse CoNLL-U / CoNLL-X with a trained model, streaming."""

from __future__ import annotations

import sys
import time

from barley.conllu import read, write
from barley.distributed import parse_on_cluster
from barley.parallel import Progress, jobs_argument, parse_file
from barley.parser import load


def register(subparsers) -> None:
    parser = subparsers.add_parser("parse", help="parse with a trained model",
                                   description="Parse a CoNLL-U or CoNLL-X file (default stdin) with a model from "
                                               "`barley train`; only HEAD and DEPREL are replaced.")
    parser.add_argument("input", nargs="?", default="-", metavar="IN", help="input file (default: stdin)")
    parser.add_argument("--model", "-m", "-c", required=True, metavar="MODEL", help="model file")
    parser.add_argument("--output", "-o", default="-", metavar="OUT", help="output file (default: stdout)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no summary on stderr")
    parser.add_argument("--jobs", "-j", type=jobs_argument, default=1, metavar="N",
                        help="worker processes, each loading the model once; 'auto' = every core "
                             "(default 1; the output is the same byte for byte)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="parse on a Dask cluster (tcp://HOST:8786, or local:N for N worker processes here); "
                             "IN is then a glob pattern such as 'corpus/**/*.conllu' (quoted) and --out-dir is needed")
    parser.add_argument("--out-dir", metavar="DIR", help="with --scheduler: where the outputs go, with the inputs' "
                                                         "relative paths; a rerun skips what is finished")
    parser.add_argument("--shard-mb", type=int, metavar="MB",
                        help="with --scheduler: cut files larger than this into shards of about this size (default 64)")
    parser.set_defaults(func=run)


def run(args) -> int:
    started = time.perf_counter()
    if args.scheduler or args.out_dir or args.shard_mb is not None:
        return parse_on_cluster(args)
    if args.jobs > 1:
        stats = parse_file(args.model, args.input, args.output, args.jobs,
                           progress=None if args.quiet else Progress(args.input))
    else:
        parser = load(args.model)
        write(parser.parse(read(args.input)), args.output)
        stats = parser.stats
    if not args.quiet and stats is not None:
        seconds = time.perf_counter() - started
        print(f"barley parse: {stats.summary()}; {seconds:.1f} s, {stats.words / max(seconds, 1e-9):.0f} words/s",
              file=sys.stderr)
    return 0
