"""The command-line options that choose transforms, shared by ``barley transform`` and ``barley train``."""

from __future__ import annotations

import argparse

from barley.errors import BarleyError
from barley.transforms.coordination import Coordination
from barley.transforms.pseudo_projective import ENCODINGS, LIFT_ORDERS, PseudoProjective
from barley.transforms.verb_group import VerbGroup

# --coordination value -> annotation scheme whose coordination becomes a Mel'čuk chain
COORDINATION_SCHEMES = {"chain": "ud", "prague": "prague"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "tree transformations", "applied to the gold trees in the order coordination, verb groups, "
        "pseudo-projective lifting (Nilsson, Nivre and Hall 2006, §4.3) and undone in the reverse order")
    group.add_argument("--pseudo-projective", choices=ENCODINGS, metavar="ENC",
                       help=f"lift non-projective arcs, encoding the lifts in the labels: {', '.join(ENCODINGS)} "
                            "(Nivre and Nilsson 2005)")
    group.add_argument("--lift", choices=LIFT_ORDERS, default="shortest",
                       help="which non-projective arc to lift first (default: shortest)")
    group.add_argument("--label-cap", type=int, metavar="M",
                       help="keep only the M most frequent new labels (Johansson and Nugues 2008)")
    group.add_argument("--coordination", choices=list(COORDINATION_SCHEMES),
                       help="coordination as a Mel'čuk chain: 'chain' from UD (first conjunct heads), "
                            "'prague' from Prague style (conjunction heads; Nilsson et al. 2006, §3.1)")
    group.add_argument("--coordination-variant", choices=Coordination.VARIANTS, default="c+*",
                       help="Prague style only: how conjunction dependents are kept apart (c, c*, c+, c+*; "
                            "default c+*)")
    group.add_argument("--verb-group", choices=["aux-head"],
                       help="make the auxiliary the head of its main verb (Nilsson et al. 2006, §3.2)")
    group.add_argument("--scheme", choices=["ud", "prague"],
                       help="label scheme of the verb-group transform (default: prague with "
                            "--coordination prague, else ud)")


def from_args(args: argparse.Namespace) -> list:
    """The transforms the options ask for, in forward order (not fitted yet)."""
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
