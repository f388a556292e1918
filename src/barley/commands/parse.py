"""``barley parse``: parse CoNLL-U / CoNLL-X with a trained model, streaming."""

from __future__ import annotations

import argparse
import gc
import io
import sys
import time

from barley.atomic import check_output, check_output_folder
from barley.collecting import collecting_rarely, freeze_loaded
from barley.commands import add_force
from barley.confidence import Confidence
from barley.conllu import read, write
from barley.errors import BarleyError
from barley.models.archive import read_manifest
from barley.models.catalog import resolve
from barley.models.shipped import default_model_path
from barley.parse_options import add_parse_arguments
from barley.pipeline import NOUNS, Pipeline, component_names, components_for, does, loader, require_component
from barley.pipeline.request import ParseRequest
from barley.runtime.progress import Progress
from barley.runtime.threads import BLAS_THREADS
from barley.tokenizer import INPUTS
from barley.tokenizer.reading import guess_input, source_name, text_pieces


def register(subparsers) -> None:
    parser = subparsers.add_parser("parse", help="parse with a trained model",
                                   description="Parse plain text or a CoNLL-U or CoNLL-X file (default stdin) with a "
                                               "model from `barley train` or the one that ships; in CoNLL-U input, "
                                               "only the columns the model predicts are replaced.")
    add_arguments(parser, "parse")
    add_parse_arguments(parser)
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="parse on a Dask cluster (tcp://HOST:8786, or local:N for N worker processes here); "
                             "IN is then a glob pattern such as 'corpus/**/*.conllu' (quoted) and --out-dir is needed")
    parser.add_argument("--out-dir", metavar="DIR", help="with --scheduler: where the outputs go, with the inputs' "
                                                         "relative paths; a rerun skips what is finished")
    parser.add_argument("--shard-mb", type=int, metavar="MB",
                        help="with --scheduler: cut files larger than this into shards of about this size (default: "
                             "64, halved down to 1 until the inputs make 8 shards per worker thread)")
    parser.set_defaults(func=run, needs="parse")


def add_arguments(parser, needs: str) -> None:
    """The arguments of ``barley parse`` and ``barley tag``, whose models need a ``needs`` component."""
    parser.add_argument("input", nargs="?", default="-", metavar="IN", help="input file (default: stdin)")
    parser.add_argument("--model", "-m", "-c", metavar="MODEL", required=needs != "parse",
                        help="model file or name (default: the English model that ships with barley; `barley models` "
                             "lists the names)" if needs == "parse" else f"model file or name, with a {NOUNS[needs]}")
    parser.add_argument("--output", "-o", default="-", metavar="OUT", help="output file (default: stdout)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no summary on stderr")
    parser.add_argument("--input", dest="input_format", choices=("auto", "conllu", *INPUTS), default="auto",
                        help="what the input is: auto (the default: conllu if the first line that is not a "
                             "comment starts with a word ID and a tab, else text), conllu (CoNLL-U or CoNLL-X, "
                             "tokenized), text "
                             "(UTF-8 plain text, paragraphs separated by blank lines), sentences (one untokenized "
                             "sentence per line: a sentence ends at each line's end and nowhere else) or tokenized "
                             "(one sentence per line, tokens separated by spaces); text, sentences and tokenized "
                             "need a model with a tokenizer (--components tokenize,...)")
    parser.add_argument("--jobs", "-j", type=_jobs, default=1, metavar="N",
                        help="worker processes, each loading the model once; 'auto' = every core "
                             "(default 1; the output is the same byte for byte)")
    parser.add_argument("--blas-threads", type=_blas_threads, metavar="N",
                        help=f"threads of the BLAS under numpy in one process (default {BLAS_THREADS}: on a busy "
                             "machine more cost several times the CPU time, docs/scale.md; 0 = one per core); "
                             "--jobs workers take one each")
    add_force(parser)


def _blas_threads(value: str) -> int:
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number of threads (0: one per core), not {value!r}")
    return int(value)


def _jobs(value: str) -> int:
    """``--jobs``, read by :func:`barley.runtime.parallel.jobs_argument` (imported only when the option is given)."""
    from barley.runtime.parallel import jobs_argument

    return jobs_argument(value)


def run(args) -> int:
    try:
        with collecting_rarely():  # forked workers (--jobs) inherit the setting
            return _parse(args)
    finally:
        gc.unfreeze()


def _parse(args) -> int:
    started = time.perf_counter()
    args.model = resolve(args.model) if args.model else default_model_path()
    check_output(args.output, [args.input, args.model], force=args.force)
    runs = components_for(args.needs)  # tag: the tokenizer and the tagger
    wants_confidence = getattr(args, "confidence", False) or getattr(args, "flag_below", None) is not None
    confidence = Confidence(flag_below=args.flag_below) if wants_confidence else None
    if args.input_format == "auto":  # --scheduler reads CoNLL-U files
        cluster = args.scheduler or args.out_dir or args.shard_mb is not None
        args.input_format = "conllu" if cluster else guess_input(args.input)
    if (args.nbest is not None or args.beam is not None) and (args.scheduler or args.out_dir
                                                              or args.shard_mb is not None):
        raise BarleyError("--nbest and --beam are not yet taken with --scheduler", fix="parse with --jobs instead")
    arcs = _arc_options(args)
    valid_ud = getattr(args, "valid_ud", None)
    enhanced = getattr(args, "enhanced", False)  # barley tag has no trees to enhance
    request = ParseRequest(retag=args.retag, arcs=arcs, nbest=args.nbest, valid_ud=valid_ud, beam=args.beam,
                           enhanced=enhanced, max_words=args.max_words, confidence=confidence)
    if valid_ud is not None and (args.jobs > 1 or args.scheduler or args.out_dir or args.shard_mb is not None):
        raise BarleyError("--valid-ud and --no-valid-ud parse in one process (not yet with --jobs or --scheduler, "
                          "which keep the parser's default)", fix="leave out --jobs and --scheduler")
    if args.blas_threads is not None and (args.jobs > 1 or args.scheduler or args.out_dir or args.shard_mb is not None):
        raise BarleyError("--blas-threads sets the threads of one process; --jobs and --scheduler workers take "
                          "one each", fix="leave out --blas-threads or --jobs and --scheduler")
    if arcs is not None and (args.jobs > 1 or args.scheduler or args.out_dir or args.shard_mb is not None):
        raise BarleyError("--keep-arcs and --forbid parse in one process (not yet with --jobs or --scheduler)",
                          fix="leave out --jobs and --scheduler")
    if args.scheduler or args.out_dir or args.shard_mb is not None:
        if enhanced:
            raise BarleyError("--enhanced is not yet taken with --scheduler", fix="parse with --jobs instead")
        if args.input_format != "conllu" or args.retag or args.max_words is not None or confidence:
            raise BarleyError("--scheduler parses CoNLL-U input as it is (not yet --input "
                              f"{args.input_format}{' --retag' if args.retag else ''}"
                              f"{' --max-words' if args.max_words is not None else ''}"
                              f"{' --confidence' if confidence else ''})",
                              fix="leave out --scheduler, or tokenize (barley tokenize) first")
        from barley.runtime.distributed import parse_on_cluster

        if args.out_dir is not None:
            check_output_folder(args.out_dir)
        _check_model(args, component_names(read_manifest(args.model)))
        return parse_on_cluster(args)
    if args.jobs > 1:
        from barley.runtime.parallel import parse_file

        _check_model(args, component_names(read_manifest(args.model)))
        progress = Progress(args.needs, args.input if args.input_format == "conllu" else "-")  # text: no ETA
        stats = parse_file(loader(args.model, runs), args.input, args.output, args.jobs,
                           progress=None if args.quiet else progress.add, input=args.input_format, request=request)
        progress.close()
        if not args.quiet and stats is not None:
            seconds = time.perf_counter() - started
            print(f"barley {args.needs}: {stats.summary()}; {seconds:.1f} s, "
                  f"{stats.words / max(seconds, 1e-9):.0f} words/s", file=sys.stderr)
        return 0
    pipeline = Pipeline.load(args.model)
    freeze_loaded()
    _check_model(args, pipeline.names)
    pipeline = pipeline.only(runs)
    if args.blas_threads is not None:
        pipeline.blas_threads = args.blas_threads
    request.prepare(pipeline)
    pipeline.set_beam(args.beam)  # refused here, before any output, for a parser without a beam
    progress = Progress(args.needs, args.input, stream=io.StringIO() if args.quiet else None)

    def counting(sentences):
        for sentence in sentences:
            progress.written(sentence)
            yield sentence

    if args.input_format == "conllu":
        sentences = progress.reading(read(args.input))
    else:
        sentences = pipeline.tokenize(text_pieces(args.input), input=args.input_format, source=source_name(args.input))
    write(counting(pipeline.parse(sentences, **request.parse_options())), args.output)
    progress.close()
    if not args.quiet:
        seconds = time.perf_counter() - started
        words = progress.words if args.nbest is None else pipeline.stats.words  # the input's, not K times over
        summary = pipeline.stats.summary() if pipeline.stats is not None else f"{words} words tagged"
        print(f"barley {args.needs}: {summary}; {seconds:.1f} s, {words / max(seconds, 1e-9):.0f} words/s",
              file=sys.stderr)
    return 0


def _arc_options(args):
    """The given and forbidden arcs asked for (``--keep-arcs``, ``--strict-arcs``, ``--forbid``), or None."""
    keep, strict, forbid = (getattr(args, name, None) for name in ("keep_arcs", "strict_arcs", "forbid"))
    if strict and not keep:
        raise BarleyError("--strict-arcs applies to the arcs that --keep-arcs keeps", fix="add --keep-arcs")
    if keep and args.input_format != "conllu":
        raise BarleyError(f"--keep-arcs keeps the HEAD and DEPREL of CoNLL-U input, not of {args.input_format}",
                          fix="give CoNLL-U input (--input conllu), or leave out --keep-arcs")
    if not keep and not forbid:
        return None
    from barley.constraints import ArcOptions, ForbiddenArcs

    return ArcOptions(keep=bool(keep), strict=bool(strict), forbid=ForbiddenArcs.read(forbid) if forbid else None)


def _check_model(args, components: list[str]) -> None:
    """Refuse a model that lacks the component the command runs (``args.needs``), saying what it does."""
    require_component(components, args.needs, args.model)
    if args.needs == "parse" and args.retag and not does(components, "tag"):
        raise BarleyError(f"--retag: the model {args.model} has no tagger",
                          fix="leave --retag out, or train a model with --components tag,parse")
