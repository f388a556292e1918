"""``barley transform``: apply (or invert) the reversible tree transformations to a treebank."""

from __future__ import annotations

import sys

from barley import conllu
from barley.errors import BarleyError
from barley.transforms.coordination import Coordination
from barley.transforms.pseudo_projective import ENCODINGS, LIFT_ORDERS, PseudoProjective
from barley.transforms.verb_group import VerbGroup

# --coordination value -> annotation scheme whose coordination becomes a Mel'čuk chain
COORDINATION_SCHEMES = {"chain": "ud", "prague": "prague"}


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "transform", help="apply or invert tree transformations (pseudo-projective, coordination, verb groups)",
        description="Transform the trees of IN and write OUT; only HEAD and DEPREL change. Forward order: "
                    "coordination, verb groups, then pseudo-projective lifting (Nilsson, Nivre and Hall 2006, "
                    "§4.3); --inverse undoes them in the reverse order. Statistics go to stderr.")
    parser.add_argument("input", metavar="IN", help="CoNLL-U or CoNLL-X file ('-' for stdin)")
    parser.add_argument("output", metavar="OUT", help="output file ('-' for stdout)")
    parser.add_argument("--inverse", action="store_true", help="undo the transformations (e.g. on parser output)")
    parser.add_argument("--pseudo-projective", choices=ENCODINGS, metavar="ENC",
                        help=f"lift non-projective arcs, encoding the lifts in the labels: {', '.join(ENCODINGS)} "
                             "(Nivre and Nilsson 2005)")
    parser.add_argument("--lift", choices=LIFT_ORDERS, default="shortest",
                        help="which non-projective arc to lift first (default: shortest)")
    parser.add_argument("--label-cap", type=int, metavar="M",
                        help="keep only the M most frequent new labels of IN (Johansson and Nugues 2008)")
    parser.add_argument("--coordination", choices=list(COORDINATION_SCHEMES),
                        help="coordination as a Mel'čuk chain: 'chain' from UD (first conjunct heads), "
                             "'prague' from Prague style (conjunction heads; Nilsson et al. 2006, §3.1)")
    parser.add_argument("--coordination-variant", choices=Coordination.VARIANTS, default="c+*",
                        help="Prague style only: how conjunction dependents are kept apart (c, c*, c+, c+*; "
                             "default c+*)")
    parser.add_argument("--verb-group", choices=["aux-head"],
                        help="make the auxiliary the head of its main verb (Nilsson et al. 2006, §3.2)")
    parser.add_argument("--scheme", choices=["ud", "prague"],
                        help="label scheme of the verb-group transform (default: prague with "
                             "--coordination prague, else ud)")
    parser.set_defaults(func=run)


def transforms_from_args(args) -> list:
    """The transforms the options ask for, in forward order."""
    chosen: list = []
    if args.coordination:
        chosen.append(Coordination(COORDINATION_SCHEMES[args.coordination], args.coordination_variant))
    if args.verb_group:
        chosen.append(VerbGroup(args.scheme or ("prague" if args.coordination == "prague" else "ud")))
    if args.pseudo_projective:
        chosen.append(PseudoProjective(args.pseudo_projective, args.lift, args.label_cap))
    elif args.label_cap is not None:
        raise BarleyError("--label-cap needs --pseudo-projective")
    return chosen


def run(args) -> int:
    transforms = transforms_from_args(args)
    if not transforms:
        raise BarleyError("no transformation chosen", fix="give --pseudo-projective, --coordination or --verb-group")
    sentences = list(conllu.read(args.input))
    for sentence in sentences:
        if (sentence.heads()[1:] < 0).any():
            raise BarleyError("a word has no head ('_')", path=sentence.source, line=sentence.line,
                              fix="transform only treebanks or parser output with complete trees")
    trees = [(s.heads(), s.deprels()) for s in sentences]
    steps = list(reversed(transforms)) if args.inverse else transforms
    for transform in steps:
        if not args.inverse:
            try:
                transform.fit(trees)
            except BarleyError as error:
                raise BarleyError(error.what, path=args.input, fix=error.fix) from None
        new_trees = []
        for sentence, tree in zip(sentences, trees):
            try:
                new_trees.append(transform.inverse(*tree) if args.inverse else transform.forward(*tree))
            except BarleyError as error:
                raise BarleyError(error.what, path=sentence.source, line=sentence.line, fix=error.fix) from None
        trees = new_trees
    for sentence, (heads, deprels) in zip(sentences, trees):
        sentence.set_tree(heads, deprels)
    conllu.write(sentences, args.output)
    for transform in steps:
        for line in transform.stats.lines():
            print(f"{transform.name}: {line}", file=sys.stderr)
    return 0
