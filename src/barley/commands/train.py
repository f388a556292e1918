"""``barley train``: train a parser of any kind, a pipeline (or one by a recipe, from a treebank
folder) or a neural model further (``--from``), and write one model file; the options that reach
parsers, learners, the tagger and the tokenizer come from :mod:`barley.options`."""

from __future__ import annotations

import os
import sys

from barley import options as declared
from barley.atomic import check_output
from barley.cli import interrupted_status
from barley.commands import add_force
from barley.errors import BarleyError
from barley.kinds import KINDS, all_kind_options, get_kind, train
from barley.models.archive import interrupted
from barley.models.catalog import resolve
from barley.pipeline import options as pipeline_options
from barley.recipes import RECIPES
from barley.transforms import options as transform_options
from barley.treebank_folder import DEV, treebank_files


def register(subparsers) -> None:
    parser = subparsers.add_parser("train", help="train a parser, a full pipeline from a treebank folder, or a "
                                                 "neural model further (--from)",
                                   description="Train a greedy transition-based parser (Nivre 2008) or a "
                                               "graph-based parser (McDonald et al. 2005) from a "
                                               "CoNLL-U or CoNLL-X treebank and write a model file; given a UD "
                                               "treebank folder, a full pipeline by a recipe (barley train "
                                               "UD_English-EWT/ -m en.barley); with --from, a neural model "
                                               "trained further on one's own treebank.")
    parser.add_argument("treebank", nargs="*", metavar="TREEBANK",
                        help="a UD treebank folder (its *-ud-train.conllu is trained on, a full pipeline by a "
                             "--recipe, and its *-ud-dev.conllu scored), or the training file then, optionally, "
                             "the dev file (as --train and --dev); several folders: one model trained on all their "
                             "training files, which parses as the first (its dev file chooses the epochs; the joint "
                             "network reads each sentence's treebank, docs/training.md)")
    parser.add_argument("--train", "-i", metavar="FILE", help="training treebank (or give it first, without -i)")
    parser.add_argument("--dev", metavar="FILE", help="development treebank: report its scores after training "
                                                      "(the neural parsers and tokenizer also choose their epoch on it)")
    parser.add_argument("--recipe", choices=sorted(RECIPES),
                        help="train a full pipeline the documented way (docs/training.md): neural, the shipped "
                             "en_ewt's (PyTorch), or linear, en_ewt_linear's; with a treebank folder the default is "
                             "neural when PyTorch is installed, else linear. Options given replace the recipe's")
    parser.add_argument("--from", dest="from_model", metavar="MODEL",
                        help="fine-tune: train the neural network of MODEL (a path, or a name such as en_ewt) further "
                             "on the training data, its vocabularies extended with the new words, tags and labels, "
                             "into a new model (-m); only training options apply (--epochs, --learning-rate, ...); "
                             "see docs/training.md")
    parser.add_argument("--tags", choices=("gold", "predicted"), default="gold",
                        help="whether the training POS tags are gold or predicted (recorded in the model)")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="deterministic training: the same data, options and seed give a byte-identical "
                             "model file (wall-clock time is then left out of the manifest)")
    parser.add_argument("--model", "-m", "-c", required=True, metavar="OUT", help="model file to write")
    parser.add_argument("--parser", choices=KINDS, default="transition",
                        help="transition-based (default; Nivre 2008), graph-based (McDonald et al. 2005), biaffine "
                             "(Dozat & Manning 2017) or neural transition-based parser")
    declared.add_arguments(parser)
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
    get_kind(args.parser).check(given, declared.who_takes)  # before the kind's own check: says who takes it
    learner = declared.given(args, "learner")
    if learner:  # the learner's own options (e.g. liblinear's C), refused by the kinds and learners without them
        if "learner" not in get_kind(args.parser).options:
            declared.refuse_untaken(learner, f"parser:{args.parser}", fix="leave it out, or train --parser transition")
        declared.refuse_untaken(learner, "learner:" + given.get("learner", "linear"), fix="leave it out, or choose "
                                "the learner that takes it (-l)")
        given["learner_options"] = declared.keywords(learner)
    return dict(parser=args.parser, tags=args.tags, transforms=transform_options.from_args(args), **given)


def run(args) -> int:
    folder = _training_files(args)
    base = None
    if args.from_model is not None:
        if args.train_treebanks:
            raise BarleyError("--from fine-tunes on one treebank", fix="give one treebank folder or training file")
        pipeline_options.refuse_with_from(args, transform_options.from_args(args))
        base = resolve(args.from_model)
    elif args.recipe is not None or (folder is not None and args.components is None):
        pipeline_options.use_recipe(args)
    if folder is not None and args.dev is None:
        neural = base is not None or "joint" in args.components or "neural" in (args.tokenizer or "").split(",")
        print(f"barley train: {folder} has no dev file ({DEV}): no dev scores at the end"
              + ("; the neural components hold out the end of the training file to choose their epoch" if neural
                 else ""), file=sys.stderr)
    inputs = [args.train, args.dev, base, *(path for _, path in args.train_treebanks),
              *(getattr(args, name, None) for name in ("features", "pretrained", "positions"))]
    check_output(args.model, inputs, force=args.force)  # before hours of training
    if base is not None:
        stopped = pipeline_options.fine_tune(args, base)
    elif args.components is not None:
        stopped = pipeline_options.train_pipeline(args, _parse_options, transform_options.from_args)
    else:
        pipeline_options.refuse_without_components(args)
        parser = train(args.train, seed=1 if args.seed is None else args.seed, dev=args.dev,
                       record_time=args.seed is None, **_parse_options(args))
        parser.save(args.model)
        stopped = interrupted(parser.manifest)
    return _exit_status(args.model, stopped)


def _exit_status(model: str, stopped: bool) -> int:
    """0, or where a signal ``stopped`` this run's training, which then kept its best epoch so far (the model
    written, its manifest saying ``interrupted``), the status of an interrupted command: a script or scheduler
    must not take that model for the finished one."""
    if not stopped:
        return 0
    checkpoint = model + pipeline_options.CHECKPOINT_SUFFIX
    print(f"barley train: interrupted: {model} holds the best epoch so far, not a finished training"
          + (f"; --resume continues it from {checkpoint}" if os.path.exists(checkpoint) else ""), file=sys.stderr)
    return interrupted_status()


def _training_files(args) -> str | None:
    """Set ``args.train`` and ``args.dev`` from the positional TREEBANK (a folder, or TRAIN [DEV]) or
    from ``--train``/``--dev``; the folder, if one was given."""
    given = args.treebank
    args.train_treebanks = []
    if len(given) > 1 and all(os.path.isdir(folder) for folder in given):
        return _several_folders(args, given)
    if len(given) > 2:
        raise BarleyError(f"{len(given)} treebanks given; barley train takes a folder, or TRAIN [DEV]",
                          fix="give the training file and the dev file only")
    if given and args.train is not None:
        raise BarleyError("the training data is given twice, as TREEBANK and as --train", fix="give one of them")
    if len(given) == 2 and args.dev is not None:
        raise BarleyError("the dev file is given twice, as the second TREEBANK and as --dev", fix="give one of them")
    if not given and args.train is None:
        raise BarleyError("no training data", fix="give a UD treebank folder or a training file, e.g. "
                                                  "barley train UD_English-EWT/ -m en.barley")
    if not given or not os.path.isdir(given[0]):
        args.train = args.train or given[0]
        args.dev = args.dev if len(given) < 2 else given[1]
        return None
    folder = given[0]
    if len(given) == 2 or args.dev is not None:
        raise BarleyError("a treebank folder gives its own dev file", path=folder,
                          fix="leave the dev file out, or give the training file instead of the folder")
    args.train, args.dev = treebank_files(folder)
    return folder


def _several_folders(args, folders: list[str]) -> str:
    """Training across treebanks (:mod:`barley.treebanks`): ``args.train`` and ``args.dev`` the first folder's,
    ``args.train_treebanks`` each folder's name and training file; the first folder."""
    if args.train is not None or args.dev is not None:
        raise BarleyError("--train or --dev with treebank folders, which give their own files",
                          fix="leave --train and --dev out")
    names = [os.path.basename(os.path.normpath(folder)) for folder in folders]
    if len(set(names)) < len(names):
        raise BarleyError(f"a treebank folder is given twice ({', '.join(names)})", fix="give each folder once")
    args.train, args.dev = treebank_files(folders[0])
    if args.dev is None:
        raise BarleyError("training on several treebanks chooses its epochs on the first one's dev file, and this "
                          "folder has none", path=folders[0], fix="give first a treebank folder with a dev file")
    args.train_treebanks = [(name, treebank_files(folder)[0]) for name, folder in zip(names, folders)]
    return folders[0]
