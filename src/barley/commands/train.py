"""``barley train``: train a greedy transition-based parser and write one model file."""

from __future__ import annotations

from argparse import SUPPRESS

from barley.atomic import check_output
from barley.commands import add_force
from barley.graph.nonprojective_approx import DEFAULT_THRESHOLD
from barley.graph.model import DECODERS, GraphOptions
from barley.learners import LEARNERS
from barley.learners.perceptron import PerceptronLearner
from barley.neural import options as neural_options
from barley.transforms import options as transform_options
from barley.global_training import UPDATES
from barley.kinds import KINDS, all_kind_options
from barley.parser import MIN_FEATURE_COUNT, ORACLES, OUTSIDE_CLASS, train
from barley.pipeline import options as pipeline_options
from barley.systems import system_names


def register(subparsers) -> None:
    parser = subparsers.add_parser("train", help="train a transition-based or graph-based parser",
                                   description="Train a greedy transition-based parser (Nivre 2008) or a "
                                               "graph-based parser (McDonald et al. 2005) from a "
                                               "CoNLL-U or CoNLL-X treebank and write a model file.")
    parser.add_argument("--train", "-i", required=True, metavar="FILE", help="training treebank")
    parser.add_argument("--dev", metavar="FILE", help="development treebank: report its scores after training "
                                                      "(the neural parsers and tokenizer also choose their epoch on it)")
    parser.add_argument("--system", "-a", default=SUPPRESS, metavar="NAME",
                        help="transition system (MaltParser names accepted, e.g. nivreeager); one of: "
                             + ", ".join(system_names()) + " (default arc-eager)")
    parser.add_argument("--learner", "-l", default=SUPPRESS, choices=list(LEARNERS),
                        help="classifier (default linear: liblinear)")
    parser.add_argument("--features", "-F", metavar="FILE|rich", default=SUPPRESS,
                        help="feature model file, or rich: the system's rich model shipped with barley (arc-eager; see "
                             "`barley features --rich`); default: the system's, see `barley features`")
    parser.add_argument("--split", "-d", metavar="FEATURE", default=SUPPRESS,
                        help="train one classifier per value of FEATURE, e.g. 'UPOS(Input[0])' (about half "
                             "the training time and memory of linear), or 'none' (MaltParser's data split; "
                             "by default svm-poly2 splits by XPOS(Input[0]), the other learners do not)")
    parser.add_argument("--split-threshold", "-T", type=int, default=SUPPRESS, metavar="N",
                        help="values with fewer instances share one classifier (default 1000)")
    parser.add_argument("--min-feature-count", type=int, default=SUPPRESS, metavar="N",
                        help="leave out features seen in fewer than N training instances: a smaller model "
                             f"and less memory (default {MIN_FEATURE_COUNT})")
    parser.add_argument("--oracle", choices=ORACLES, default=SUPPRESS,
                        help="static: learn from the static oracle's transitions; dynamic: train the "
                             "perceptron (-l perceptron) or --parser neural-transition by exploration with the "
                             "dynamic oracle (Goldberg & Nivre 2012), for systems that have one (see "
                             "docs/oracles.md). Default: dynamic for the unsplit perceptron and the neural "
                             "transition parser where the system has one, else static")
    parser.add_argument("--explore-after", type=int, default=SUPPRESS, metavar="K",
                        help="--oracle dynamic: epochs before the parser follows its own mistakes "
                             "(default: 0 for the perceptron where the system's costs are exact, else 2)")
    parser.add_argument("--explore-p", type=float, default=SUPPRESS, metavar="P",
                        help="--oracle dynamic: after K epochs, the probability of following a transition of "
                             "the model that costs gold arcs (default: 1 for the perceptron where the system's "
                             "costs are exact, else 0.9)")
    parser.add_argument("--beam", type=int, default=SUPPRESS, metavar="K",
                        help="train the perceptron globally with a beam of K (-l perceptron, the static oracle's "
                             "transitions as the gold sequence; Zhang & Clark 2008); the model parses with a "
                             "beam of K unless `barley parse --beam` says otherwise (docs/beam.md)")
    parser.add_argument("--update", choices=UPDATES, default=SUPPRESS,
                        help="with --beam: update at the first step the gold sequence falls out of the beam "
                             "(early, Collins & Roark 2004) or where the beam's best beats it by the most "
                             "(max-violation, Huang, Fayong & Guo 2012; the default)")
    parser.add_argument("--outside-class", choices=OUTSIDE_CLASS, default=SUPPRESS,
                        help="training trees the system cannot build: train on the oracle's nearest tree "
                             "(default), skip them, or stop with an error; the count is reported")
    parser.add_argument("--tags", choices=("gold", "predicted"), default="gold",
                        help="whether the training POS tags are gold or predicted (recorded in the model)")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="deterministic training: the same data, options and seed give a byte-identical "
                             "model file (wall-clock time is then left out of the manifest)")
    parser.add_argument("--model", "-m", "-c", required=True, metavar="OUT", help="model file to write")
    graph = parser.add_argument_group("graph-based parsing (--parser graph)")
    graph.add_argument("--parser", choices=list(KINDS), default="transition",
                       help="transition-based (default) or graph-based (McDonald et al. 2005) parser")
    graph.add_argument("--decoder", choices=DECODERS, default=SUPPRESS,
                       help="eisner: best projective tree; mst: Chu-Liu-Edmonds, any tree (first order only); "
                            "eisner+npa: Eisner then the non-projective approximation (default eisner)")
    graph.add_argument("--order", type=int, choices=(1, 2), default=SUPPRESS,
                       help="1: arc-factored; 2: arcs plus adjacent siblings (default 1)")
    graph.add_argument("--npa-threshold", type=float, default=SUPPRESS, metavar="T",
                       help=f"stop the non-projective approximation when a move gains less (default {DEFAULT_THRESHOLD})")
    graph.add_argument("--epochs", type=int, metavar="N", default=SUPPRESS,
                       help=f"perceptron epochs: of -l perceptron (default {PerceptronLearner().epochs}) or of "
                            f"the graph parser (default {GraphOptions.epochs}); the biaffine parser's most "
                            f"epochs (default {neural_options.Training.epochs})")
    neural_options.add_arguments(parser)
    transform_options.add_arguments(parser)
    pipeline_options.add_arguments(parser)
    add_force(parser)
    parser.set_defaults(func=run)
    pipeline_options.remember_defaults(parser)


def _parse_options(args) -> dict:
    """The parser's training options from the command line (also the ``parse`` component's).

    Options of one kind of parser are passed only when given, so that the kind refuses
    those it does not take (e.g. --decoder for a transition-based parser).
    """
    given = {name: getattr(args, name) for name in sorted(all_kind_options()) if hasattr(args, name)}
    return dict(parser=args.parser, tags=args.tags, transforms=transform_options.from_args(args), **given)


def run(args) -> int:
    inputs = [args.train, args.dev, *(getattr(args, name, None) for name in ("features", "pretrained", "positions"))]
    check_output(args.model, inputs, force=args.force)  # before hours of training
    if args.components is not None:
        return pipeline_options.train_pipeline(args, _parse_options, transform_options.from_args)
    pipeline_options.refuse_without_components(args)
    parser = train(args.train, seed=1 if args.seed is None else args.seed, dev=args.dev,
                   record_time=args.seed is None, **_parse_options(args))
    parser.save(args.model)
    return 0
