"""The options of ``barley parse`` that reach the model, declared once (:class:`barley.option.Option`):
its flags and their section of docs/options.md are made from these declarations."""

from __future__ import annotations

import argparse

from barley.option import Option, declare

PARSE_COMMAND = "command:parse"


def positive(value: str) -> int:
    """A whole number of at least 1, from the command line."""
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number of at least 1")
    return int(value)


def probability(value: str) -> float:
    """A probability in (0, 1], from the command line."""
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not 0.0 < number <= 1.0:
        raise argparse.ArgumentTypeError(f"{value!r} is not a probability in (0, 1]")
    return number


PARSE_OPTIONS: tuple[Option, ...] = (
    declare("retag", bool, False, "with a model that has a tagger: predict UPOS, XPOS, FEATS and LEMMA again even "
            "where the input has them (by default tags in the input are kept)", PARSE_COMMAND, action="switch"),
    declare("max_words", int, None, "graph-based, biaffine and joint parsers: refuse a sentence of more than N words "
            "(default 5000, within 4 GB; 600 for a second-order graph-based model, whose memory grows as N³; see "
            "docs/graph.md)", PARSE_COMMAND),
    declare("confidence", bool, False, "write each word's head and label probabilities into MISC "
            "(HeadProb=...|DeprelProb=..., what MISC holds is kept) and each sentence's expected labeled attachment "
            "score as '# confidence = ...' (docs/confidence.md)", PARSE_COMMAND, action="switch"),
    declare("flag_below", float, None, "with the probabilities (implies --confidence), mark the words whose head "
            "probability is below P with Doubtful=Yes in MISC", PARSE_COMMAND),
    declare("nbest", int, None, "write the K best analyses of each sentence (fewer where fewer trees exist), best "
            "first, each with sent_id ID#rank, '# nbest = rank/count' and '# score' (the tree's score); each arc "
            "takes its best label. First-order graph-based, biaffine and joint parsers (decoder eisner or mst; "
            "docs/graph.md), and transition-based parsers from their beam (docs/beam.md); `barley evaluate` scores "
            "the file's oracle", PARSE_COMMAND, metavar="K"),
    declare("beam", int, None, "transition-based parsers: search with a beam of K configurations per sentence "
            "(docs/beam.md; 1 is greedy; default: the width the model was trained at, `barley train --beam`, else "
            "1); --nbest K searches with a beam of at least K", PARSE_COMMAND, metavar="K"),
    declare("keep_arcs", bool, False, "keep every HEAD (and DEPREL, where given) of the CoNLL-U input and parse "
            "the other words consistently with them (docs/constraints.md)", PARSE_COMMAND, action="switch"),
    declare("strict_arcs", bool, False, "with --keep-arcs: refuse a sentence whose given arcs the parser cannot "
            "build together (crossing arcs for a projective parser) instead of keeping a largest subset", PARSE_COMMAND,
            action="switch"),
    declare("forbid", str, None, "arcs that must not appear: one per line, 'SENT_ID HEAD DEPENDENT' "
            "(docs/constraints.md)", PARSE_COMMAND, metavar="FILE"),
    declare("valid_ud", bool, None, "keep the structural rules of UD's validator (level 3) in every tree: one "
            "subject and one object per head, function words as leaves, conj/fixed/flat/appos/goeswith left to "
            "right, relations that agree with UPOS (joint, biaffine and transition-based parsers; "
            "docs/valid-ud.md). Default: on for the joint network (the shipped default model), off for "
            "transition-based parsers; --no-valid-ud turns it off", PARSE_COMMAND, action="negatable"),
    declare("enhanced", bool, False, "fill DEPS with the enhanced graph of each predicted tree (Enhanced Universal "
            "Dependencies: conjuncts' shared heads and dependents, controlled subjects, relative pronouns as ref, "
            "labels with their case and conjunction, obl:with, conj:and; no empty nodes): the model's own "
            "enhancer where it has one, else rules with its language's conventions (docs/enhanced.md)",
            PARSE_COMMAND, action="switch"),
)
"""The options of ``barley parse`` that reach the model: given arcs, UD-valid trees, confidence, the beam,
the k best and the enhanced graphs (what the command does with its files — input, output, jobs, Dask —
stays with the command)."""

_PARSE_TYPES = {"max_words": positive, "nbest": positive, "beam": positive, "flag_below": probability}


def add_parse_arguments(parser: argparse.ArgumentParser) -> None:
    """The declared options of ``barley parse`` on ``parser``, with their defaults (the parsers refuse what they
    cannot do, e.g. ``--beam`` for a graph-based parser)."""
    for option in PARSE_OPTIONS:
        if option.action == "switch":
            parser.add_argument(*option.flags, dest=option.name, action="store_true", help=option.help)
        elif option.action == "negatable":
            parser.add_argument(*option.flags, dest=option.name, action=argparse.BooleanOptionalAction,
                                default=option.default, help=option.help)
        else:
            parser.add_argument(*option.flags, dest=option.name, type=_PARSE_TYPES.get(option.name, option.type),
                                default=option.default, metavar=option.metavar or ("P" if option.type is float else
                                                                                   "N" if option.type is int else
                                                                                   "NAME"), help=option.help)
