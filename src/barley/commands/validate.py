"""``barley validate``: list the sentences that are not well-formed dependency trees."""

from __future__ import annotations

import sys

from barley import conllu
from barley.tree import check_tree


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "validate", help="list sentences that are not well-formed trees",
        description="Check that every sentence is a dependency tree rooted at 0 (Nivre 2008, Definition 2: "
                    "every word has one head, no cycles, all connected to the root) with exactly one word "
                    "attached to the root, as UD requires. Prints FILE:LINE, sent_id and the reason for each "
                    "bad sentence; exits 1 if there is any, 0 if none, 2 on malformed CoNLL input.")
    parser.add_argument("files", nargs="+", metavar="FILE", help="CoNLL-U or CoNLL-X file ('-' for stdin)")
    parser.add_argument("--multiple-roots", action="store_true",
                        help="accept several words attached to the root 0 (CoNLL-X treebanks do this)")
    parser.set_defaults(func=run)


def run(args) -> int:
    sentences = bad = 0
    for path in args.files:
        for sentence in conllu.read(path):
            sentences += 1
            reason = check_tree(sentence.heads(), single_root=not args.multiple_roots)
            if reason is not None:
                bad += 1
                print(f"{sentence.source}:{sentence.line}: {sentence.sent_id or '(no sent_id)'}: {reason}")
    print(f"{bad} of {sentences} sentences are not well-formed trees", file=sys.stderr)
    return 1 if bad else 0
