"""``barley evaluate``: attachment scores of a parsed file against the gold standard."""

from __future__ import annotations

import json
import sys
import warnings

from barley import conllu
from barley.atomic import check_output
from barley.commands import add_force
from barley.errors import BarleyError, BarleyWarning
from barley.evaluation.attachment import evaluate, format_comparison, format_report, mcnemar
from barley.evaluation.conll18 import evaluate_conll18, format_conll18
from barley.nbest import evaluate_oracle, is_k_best
from barley.runtime.parallel import jobs_argument


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "evaluate", help="UAS, LAS, exact match, non-projective arcs, by arc length and DEPREL",
        description="Score SYSTEM against GOLD (the same words; multiword tokens and empty nodes are ignored): "
                    "UAS, LAS, LASu (universal DEPREL), LA, UEM, LEM, non-projective arc recall and precision "
                    "(Kuhlmann and Nivre 2010), scores by gold arc length (Nilsson et al. 2006) and by DEPREL. "
                    "Punctuation is scored unless --exclude-punct is given. A SYSTEM whose tokenization or "
                    "sentence split differs is scored with the CoNLL 2018 shared task metrics, words aligned on "
                    "their characters (Zeman et al. 2018); with the same words, those metrics come at the end. "
                    "A SYSTEM written by `barley parse --nbest` is scored by its first analyses and by its "
                    "oracle (the best analysis of each sentence).")
    parser.add_argument("gold", metavar="GOLD", help="gold-standard CoNLL-U or CoNLL-X file ('-' for stdin)")
    parser.add_argument("system", metavar="SYSTEM", help="parser output for the same words, or for the same text")
    punctuation = parser.add_mutually_exclusive_group()
    punctuation.add_argument("--exclude-punct", dest="punct", action="store_const", const="upos",
                             help="leave out words whose gold UPOS is PUNCT")
    punctuation.add_argument("--exclude-punct-form", dest="punct", action="store_const", const="form",
                             help="leave out words whose gold FORM is all Unicode punctuation, as CoNLL-X eval.pl "
                                  "does (use this for CoNLL-X tag sets)")
    parser.add_argument("--compare", metavar="OTHER",
                        help="also score OTHER and run McNemar's test on per-word LAS correctness of SYSTEM vs OTHER")
    parser.add_argument("--json", action="store_true", help="print the scores as one JSON object")
    parser.add_argument("--show-errors", type=int, metavar="N",
                        help="also write an HTML page drawing the N sentences with the most errors (--errors-page)")
    parser.add_argument("--errors-page", default="errors.html", metavar="PAGE",
                        help="where --show-errors writes its page (default errors.html)")
    parser.add_argument("--conll18", action="store_true",
                        help="print only the CoNLL 2018 shared task metrics (Tokens, Sentences, Words, UPOS, XPOS, "
                             "UFeats, AllTags, Lemmas, UAS, LAS, CLAS, MLAS, BLEX; then ELAS and EULAS of IWPT 2020 "
                             "where GOLD has enhanced arcs in DEPS); chosen by itself when SYSTEM's tokenization or "
                             "sentence split differs from GOLD's")
    parser.add_argument("--jobs", "-j", type=jobs_argument, default=1, metavar="N",
                        help="worker processes ('auto': one per core); the files are scored in blocks of whole "
                             "sentences and the report is the same (default 1)")
    add_force(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    exclude = args.punct or False
    if args.show_errors and "-" in (args.gold, args.system):
        raise BarleyError("--show-errors reads the files twice, so not from stdin", fix="give both as files")
    check_output(args.errors_page if args.show_errors else None, [args.gold, args.system, args.compare],
                 force=args.force)
    gold, system = _rereadable(args.gold), _rereadable(args.system)
    if is_k_best(system):
        return _run_k_best(args, gold, system, exclude)
    scored = _in_blocks(args, exclude) if args.jobs > 1 else None
    if scored:
        (conll18, result), (other18, other) = scored
    else:
        conll18 = evaluate_conll18(gold, system)
        other18 = evaluate_conll18(gold, args.compare) if args.compare else None
        result = other = None
    for name, scores in ((args.system, conll18), (args.compare, other18)):
        if scores is not None and scores.copied_deps:
            warnings.warn(f"{name}: its DEPS are the gold's on every word though its basic trees differ: enhanced "
                          f"graphs copied from the input, so ELAS and EULAS score that copy (barley parse --enhanced "
                          f"makes graphs of the new trees)", BarleyWarning)
    if args.conll18 or not all(e.same_tokenization for e in (conll18, other18) if e):
        if args.show_errors:
            raise BarleyError("--show-errors draws the system's trees under the gold ones, so it needs the gold's "
                              "tokenization", fix="leave out --show-errors (or --conll18)")
        return _run_conll18(args, conll18, other18)
    result = result or evaluate(gold, system, exclude_punct=exclude)
    other = other or (evaluate(gold, args.compare, exclude_punct=exclude) if args.compare else None)
    test = mcnemar(result.correct, other.correct) if other else None
    if args.show_errors:
        show_errors(args, result)
    if args.json:
        scores = {"gold": args.gold, "system": args.system, **result.as_dict(), "conll18": conll18.as_dict()}
        if other and test:
            scores["compare"] = {"other": args.compare, "LAS": other.as_dict()["LAS"],
                                 "scores": other.as_dict(), **test.as_dict()}
        print(json.dumps(scores, ensure_ascii=False))
        return 0
    print(format_report(result, args.gold, args.system, conll18.scores["LAS"].f1) + "\n\n" + format_conll18(conll18))
    if other and test:
        print("\n" + format_comparison(result, other, test, args.compare))
    return 0


def _run_k_best(args, gold, system, exclude) -> int:
    """A k-best file (``barley parse --nbest``): the scores of its first analyses and its oracle's."""
    given = [option for option, value in (("--compare", args.compare), ("--show-errors", args.show_errors),
                                          ("--conll18", args.conll18), ("--jobs", args.jobs > 1)) if value]
    if given:
        raise BarleyError(f"{args.system} is a k-best file (barley parse --nbest), scored by its oracle; "
                          f"{', '.join(given)} scores files of one analysis per sentence", fix="leave them out")
    scores = evaluate_oracle(gold, system, exclude_punct=exclude)
    if args.json:
        print(json.dumps({"gold": args.gold, "system": args.system, "k_best": scores.as_dict()}, ensure_ascii=False))
        return 0
    print(f"{scores.summary()}\n\nthe oracle's analyses:\n{format_report(scores.oracle, args.gold, args.system)}")
    return 0


def _in_blocks(args, exclude):
    """The scores of SYSTEM (and OTHER) by ``args.jobs`` processes: ``((conll18, evaluation), (conll18,
    evaluation))`` as one process gives them, or None where only one process can score the files."""
    if "-" in (args.gold, args.system, args.compare):
        return None
    from barley.evaluation.parallel import evaluate_files

    scored = evaluate_files(args.gold, [args.system, *filter(None, [args.compare])], exclude, args.jobs,
                            per_word=not args.conll18)
    if scored is None:
        return None
    return scored[0], scored[1] if args.compare else (None, None)


def show_errors(args, result) -> None:
    from barley.conllu import atomic_writer
    from barley.render import errors

    with atomic_writer(args.errors_page) as handle:
        handle.write(errors.page(args.gold, args.system, result, args.show_errors, args.gold, args.system))
    print(f"barley evaluate: drew the {args.show_errors} worst sentences (or all with errors, if fewer) in "
          f"{args.errors_page}", file=sys.stderr)


def _rereadable(path: str):
    """A path, or stdin read into a list (each file is read twice when the tokenization is the gold's)."""
    return list(conllu.read(path)) if path == "-" else path


def _run_conll18(args, conll18, other) -> int:
    """The CoNLL 2018 report alone: for a different tokenization (of SYSTEM or OTHER), or on request (--conll18)."""
    differs = [name for name, e in ((args.system, conll18), (args.compare, other)) if e and not e.same_tokenization]
    if args.punct:
        why = (f"the tokenization of {' and '.join(differs)} differs from the gold's: only" if differs
               else "--conll18 asks for")
        raise BarleyError(f"{why} the CoNLL 2018 metrics, which score every word", fix="leave out --exclude-punct")
    test = mcnemar(conll18.las_correct, other.las_correct) if other else None
    if args.json:
        scores = {"gold": args.gold, "system": args.system, "conll18": conll18.as_dict()}
        if other and test:
            scores["compare"] = {"other": args.compare, "conll18": other.as_dict(), **test.as_dict()}
        print(json.dumps(scores, ensure_ascii=False))
        return 0
    note = ("tokenization: the gold's" if not differs else
            f"tokenization or sentence split differs from the gold ({', '.join(differs)}): words aligned on their "
            "characters as in the CoNLL 2018 shared task; barley's per-word scores (non-projective arcs, by "
            "length, by DEPREL) need the gold's words")
    print(f"gold:   {args.gold}\nsystem: {args.system}\n{note}\n\n{format_conll18(conll18)}")
    if other and test:
        print(f"\nOTHER ({args.compare}): LAS F1 {_f1(other)}\n{format_conll18(other)}\n"
              f"McNemar on the gold words' LAS (CoNLL 2018): {test.only_first} right only in SYSTEM, "
              f"{test.only_second} right only in OTHER; p = {test.p_value:.4g} ({test.method})")
    return 0


def _f1(evaluation) -> str:
    value = evaluation.scores["LAS"].f1
    return "-" if value is None else f"{value:.2f}"
