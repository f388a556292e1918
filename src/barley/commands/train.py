"""``barley train``: train a greedy transition-based parser and write one model file."""

from __future__ import annotations

from barley.graph.nonprojective_approx import DEFAULT_THRESHOLD
from barley.graph.parser import DECODERS, GraphOptions
from barley.learners import LEARNERS
from barley.learners.perceptron import PerceptronLearner
from barley.transforms import options as transform_options
from barley.parser import MIN_FEATURE_COUNT, OUTSIDE_CLASS, train
from barley.systems import system_names


def register(subparsers) -> None:
    parser = subparsers.add_parser("train", help="train a transition-based or graph-based parser",
                                   description="Train a greedy transition-based parser (Nivre 2008) or a "
                                               "graph-based parser (McDonald et al. 2005) from a "
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
    parser.add_argument("--split", "-d", metavar="FEATURE", default="default",
                        help="train one classifier per value of FEATURE, e.g. 'UPOS(Input[0])' (about half "
                             "the training time and memory of linear), or 'none' (MaltParser's data split; "
                             "by default svm-poly2 splits by XPOS(Input[0]), the other learners do not)")
    parser.add_argument("--split-threshold", "-T", type=int, default=1000, metavar="N",
                        help="values with fewer instances share one classifier (default 1000)")
    parser.add_argument("--min-feature-count", type=int, default=MIN_FEATURE_COUNT, metavar="N",
                        help="leave out features seen in fewer than N training instances: a smaller model "
                             f"and less memory (default {MIN_FEATURE_COUNT})")
    parser.add_argument("--outside-class", choices=OUTSIDE_CLASS, default="nearest",
                        help="training trees the system cannot build: train on the oracle's nearest tree "
                             "(default), skip them, or stop with an error; the count is reported")
    parser.add_argument("--tags", choices=("gold", "predicted"), default="gold",
                        help="whether the training POS tags are gold or predicted (recorded in the model)")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="deterministic training: the same data, options and seed give a byte-identical "
                             "model file (wall-clock time is then left out of the manifest)")
    parser.add_argument("--model", "-m", "-c", required=True, metavar="OUT", help="model file to write")
    graph = parser.add_argument_group("graph-based parsing (--parser graph)")
    graph.add_argument("--parser", choices=("transition", "graph"), default="transition",
                       help="transition-based (default) or graph-based (McDonald et al. 2005) parser")
    graph.add_argument("--decoder", choices=DECODERS, default="eisner",
                       help="eisner: best projective tree; mst: Chu-Liu-Edmonds, any tree (first order only); "
                            "eisner+npa: Eisner then the non-projective approximation (default eisner)")
    graph.add_argument("--order", type=int, choices=(1, 2), default=1,
                       help="1: arc-factored; 2: arcs plus adjacent siblings (default 1)")
    graph.add_argument("--npa-threshold", type=float, default=DEFAULT_THRESHOLD, metavar="T",
                       help=f"stop the non-projective approximation when a move gains less (default {DEFAULT_THRESHOLD})")
    graph.add_argument("--epochs", type=int, metavar="N",
                       help=f"perceptron epochs: of -l perceptron (default {PerceptronLearner().epochs}) or of "
                            f"the graph parser (default {GraphOptions.epochs})")
    transform_options.add_arguments(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    epochs = {} if args.epochs is None else {"epochs": args.epochs}
    parser = train(args.train, system=args.system, learner=args.learner, features=args.features,
                   seed=1 if args.seed is None else args.seed, dev=args.dev, outside_class=args.outside_class,
                   tags=args.tags, split=args.split, split_threshold=args.split_threshold,
                   min_feature_count=args.min_feature_count,
                   learner_options=epochs if args.parser == "transition" else None,
                   record_time=args.seed is None, parser=args.parser, transforms=transform_options.from_args(args),
                   graph=GraphOptions(decoder=args.decoder, order=args.order, npa_threshold=args.npa_threshold,
                                      **epochs))
    parser.save(args.model)
    return 0
