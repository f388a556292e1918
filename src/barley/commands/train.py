"""``barley train``: train a greedy transition-based parser and write one model file."""

from __future__ import annotations

from barley.learners import LEARNERS
from barley.parser import OUTSIDE_CLASS, train
from barley.systems import system_names


def register(subparsers) -> None:
    parser = subparsers.add_parser("train", help="train a transition-based parser",
                                   description="Train a greedy transition-based parser (Nivre 2008) from a "
                                               "CoNLL-U or CoNLL-X treebank and write a model file.")
    parser.add_argument("--train", "-i", required=True, metavar="FILE", help="training treebank")
    parser.add_argument("--dev", metavar="FILE", help="development treebank: report its scores after training")
    parser.add_argument("--system", "-a", default="arc-eager", metavar="NAME",
                        help="transition system (MaltParser names accepted, e.g. nivreeager); one of: "
                             + ", ".join(system_names()) + " (default arc-eager)")
    parser.add_argument("--learner", "-l", default="linear", choices=list(LEARNERS),
                        help="classifier (default linear: liblinear)")
    parser.add_argument("--features", "-F", metavar="FILE",
                        help="feature model file (default: the system's, see `barley features`)")
    parser.add_argument("--split", "-d", metavar="FEATURE",
                        help="train one classifier per value of FEATURE, e.g. 'UPOS(Input[0])' "
                             "(MaltParser's data split; svm-poly2 splits by XPOS(Input[0]) by default)")
    parser.add_argument("--split-threshold", "-T", type=int, default=1000, metavar="N",
                        help="values with fewer instances share one classifier (default 1000)")
    parser.add_argument("--outside-class", choices=OUTSIDE_CLASS, default="nearest",
                        help="training trees the system cannot build: train on the oracle's nearest tree "
                             "(default), skip them, or stop with an error; the count is reported")
    parser.add_argument("--tags", choices=("gold", "predicted"), default="gold",
                        help="whether the training POS tags are gold or predicted (recorded in the model)")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="deterministic training: the same data, options and seed give a byte-identical "
                             "model file (wall-clock time is then left out of the manifest)")
    parser.add_argument("--model", "-m", "-c", required=True, metavar="OUT", help="model file to write")
    parser.set_defaults(func=run)


def run(args) -> int:
    split = args.split
    if split is None and args.learner == "svm-poly2":
        split = "XPOS(Input[0])"  # Nivre 2008 §6.1: instances split by FPoS(β[0])
    parser = train(args.train, system=args.system, learner=args.learner, features=args.features,
                   seed=1 if args.seed is None else args.seed, dev=args.dev, outside_class=args.outside_class,
                   tags=args.tags, split=split, split_threshold=args.split_threshold,
                   record_time=args.seed is None)
    parser.save(args.model)
    return 0
