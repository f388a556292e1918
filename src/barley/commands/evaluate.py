"""``barley evaluate``: attachment scores of a parsed file against the gold standard."""

from __future__ import annotations

import json
import sys

from barley.errors import BarleyError
from barley.evaluate import evaluate, format_comparison, format_report, mcnemar


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "evaluate", help="UAS, LAS, exact match, non-projective arcs, by arc length and DEPREL",
        description="Score SYSTEM against GOLD (the same words; multiword tokens and empty nodes are ignored): "
                    "UAS, LAS, LASu (universal DEPREL), LA, UEM, LEM, non-projective arc recall and precision "
                    "(Kuhlmann and Nivre 2010), scores by gold arc length (Nilsson et al. 2006) and by DEPREL. "
                    "Punctuation is scored unless --exclude-punct is given.")
    parser.add_argument("gold", metavar="GOLD", help="gold-standard CoNLL-U or CoNLL-X file ('-' for stdin)")
    parser.add_argument("system", metavar="SYSTEM", help="parser output for the same words")
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
    parser.set_defaults(func=run)


def run(args) -> int:
    exclude = args.punct or False
    if args.show_errors and "-" in (args.gold, args.system):
        raise BarleyError("--show-errors reads the files twice, so not from stdin", fix="give both as files")
    result = evaluate(args.gold, args.system, exclude_punct=exclude)
    other = evaluate(args.gold, args.compare, exclude_punct=exclude) if args.compare else None
    test = mcnemar(result.correct, other.correct) if other else None
    if args.show_errors:
        show_errors(args, result)
    if args.json:
        scores = {"gold": args.gold, "system": args.system, **result.as_dict()}
        if other:
            scores["compare"] = {"other": args.compare, "LAS": other.as_dict()["LAS"],
                                 "scores": other.as_dict(), **test.as_dict()}
        print(json.dumps(scores, ensure_ascii=False))
        return 0
    print(format_report(result, args.gold, args.system))
    if other:
        print("\n" + format_comparison(result, other, test, args.compare))
    return 0


def show_errors(args, result) -> None:
    from barley.conllu import atomic_writer
    from barley.render import errors

    with atomic_writer(args.errors_page) as handle:
        handle.write(errors.page(args.gold, args.system, result, args.show_errors, args.gold, args.system))
    print(f"barley evaluate: drew the {args.show_errors} worst sentences (or all with errors, if fewer) in "
          f"{args.errors_page}", file=sys.stderr)
