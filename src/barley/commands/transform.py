"""``barley transform``: apply (or invert) the reversible tree transformations to a treebank."""

from __future__ import annotations

import sys

from barley import conllu
from barley.atomic import check_output
from barley.commands import add_force
from barley.errors import BarleyError, InputError
from barley.transforms import fit_forward, options


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "transform", help="apply or invert tree transformations (pseudo-projective, coordination, verb groups)",
        description="Transform the trees of IN and write OUT; only HEAD and DEPREL change. Forward order: "
                    "coordination, verb groups, then pseudo-projective lifting (Nilsson, Nivre and Hall 2006, "
                    "§4.3); --inverse undoes them in the reverse order. Statistics go to stderr.")
    parser.add_argument("input", metavar="IN", help="CoNLL-U or CoNLL-X file ('-' for stdin)")
    parser.add_argument("output", metavar="OUT", help="output file ('-' for stdout)")
    parser.add_argument("--inverse", action="store_true", help="undo the transformations (e.g. on parser output)")
    options.add_arguments(parser)
    add_force(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    check_output(args.output, [args.input], force=args.force)
    transforms = options.from_args(args)
    if not transforms:
        raise BarleyError("no transformation chosen", fix="give --pseudo-projective, --coordination or --verb-group")
    sentences = list(conllu.read(args.input))
    for sentence in sentences:
        if (sentence.heads()[1:] < 0).any():
            raise BarleyError("a word has no head ('_')", path=sentence.source, line=sentence.line,
                              fix="transform only treebanks or parser output with complete trees")
    trees = [(s.heads(), s.deprels()) for s in sentences]
    log = lambda line: print(line, file=sys.stderr)  # noqa: E731
    if args.inverse:
        for transform in reversed(transforms):
            inverted, stats = [], transform.new_stats()
            for sentence, tree in zip(sentences, trees):
                try:
                    inverted.append(transform.inverse(*tree, stats))
                except BarleyError as error:
                    raise InputError(error.what, path=sentence.source, line=sentence.line, fix=error.fix) from None
            trees = inverted
            for line in stats.lines():
                log(f"{transform.name}: {line}")
    else:
        trees = fit_forward(transforms, sentences, trees, log)
    for sentence, (heads, deprels) in zip(sentences, trees):
        sentence.set_tree(heads, deprels)
    conllu.write(sentences, args.output)
    return 0
