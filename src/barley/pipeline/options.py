"""The command-line options of ``barley train`` that train a pipeline (``--components``)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from barley import options as declared
from barley import treebanks
from barley.errors import BarleyError
from barley.models import archive
from barley.models.archive import interrupted
from barley.pipeline import COMPONENTS, DEFAULT_JACKKNIFE, Pipeline, ordered
from barley.pipeline.tokenize import TokenizeComponent, tokenizer_kinds
from barley.recipes import RECIPES, default_recipe
from barley.treebank_folder import count_words

_NOT_PARSER = {"train", "dev", "seed", "model", "components", "jackknife", "no_jackknife", "resume", "func",
               "command", "default_of", "tokenizer", "treebank", "recipe", "from_model",
               "train_treebanks", "force"}
_COMPONENT_OPTIONS = {"tag": "component:tag", "tokenize": "tokenizer"}
"""The components besides the parser's whose declared options ``barley train`` passes (:mod:`barley.options`)."""
_TRANSFORM_OPTIONS = {"pseudo_projective", "lift", "label_cap", "coordination", "coordination_variant", "verb_group",
                      "scheme"}
CHECKPOINT_SUFFIX = ".checkpoint"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "pipelines", "train several components from one treebank into one model file "
                     "(the parser options above then apply to its parse component)")
    group.add_argument("--components", metavar="LIST",
                       help="comma-separated components, run in the order " + ", ".join(COMPONENTS)
                            + " (e.g. tag,parse); without it, a parser alone is trained as before")
    group.add_argument("--tokenizer", metavar="KIND[,KIND]",
                       help="the tokenize component's kind: linear (the default; liblinear over character "
                            "windows) or neural (a character BiLSTM: needs PyTorch to train, not to parse; --dev "
                            "chooses its epoch, else the end of the training data); linear,neural: both trained, "
                            "the one with the better Tokens + Sentences + Words F1 on dev kept")
    folds = group.add_mutually_exclusive_group()
    folds.add_argument("--jackknife", type=int, metavar="K",
                       help="components after the tagger learn from tags predicted by taggers trained on K-1 "
                            f"of K folds of the training data (default {DEFAULT_JACKKNIFE})")
    folds.add_argument("--no-jackknife", action="store_true",
                       help="later components learn from the gold tags instead (faster, less accurate)")
    group.add_argument("--resume", action="store_true",
                       help="joint component: continue a training that was stopped, from the checkpoint written "
                            f"after every epoch (the model file's name + {CHECKPOINT_SUFFIX}); same data and options")


def remember_defaults(parser: argparse.ArgumentParser) -> None:
    """Let the parsed arguments look up each option's default (``args.default_of``), to tell which
    ones the user set; nothing is parsed until ``barley train`` runs."""
    parser.set_defaults(default_of=parser.get_default)


def _given(args: argparse.Namespace, name: str) -> bool:
    """Whether option ``name`` was set on the command line."""
    # an option without a default (argparse.SUPPRESS) is in ``args`` only when given
    return hasattr(args, name) and getattr(args, name) != args.default_of(name)


def _parser_options_set(args: argparse.Namespace, names: bool = False) -> list[str]:
    """The parser options set on the command line, as flags (or as ``names``)."""
    others = {option for kind in _COMPONENT_OPTIONS.values() for option in declared.given(args, kind)}
    return [name if names else "--" + name.replace("_", "-") for name in sorted(vars(args))
            if name not in _NOT_PARSER and name not in others and _given(args, name)]


def _component_options(args: argparse.Namespace) -> dict[str, dict]:
    """The declared options of the tagger and the tokenizer set on the command line, by component (by name)."""
    return {component: given for component, kind in _COMPONENT_OPTIONS.items()
            if (given := declared.given(args, kind))}


def use_recipe(args: argparse.Namespace) -> None:
    """Train by ``args.recipe`` (by default :func:`barley.recipes.default_recipe`): its components, and
    its options where the command line gives none of its own; said in one line."""
    if args.components is not None:
        raise BarleyError("--components and --recipe both choose the components",
                          fix="leave one of them out")
    recipe = default_recipe() if args.recipe is None else RECIPES[args.recipe]
    why = ("--recipe" if args.recipe is not None else "the default: PyTorch is installed" if recipe.name == "neural"
           else "the default: PyTorch is not installed")
    words = sum(count_words(path) for _, path in args.train_treebanks) if args.train_treebanks else count_words(args.train)
    recipe = recipe.for_words(words)
    others = " or ".join(f"--recipe {name}" for name in RECIPES if name != recipe.name)
    print(f"barley train: the {recipe.name} recipe ({why}): {recipe.summary}, i.e. {' '.join(recipe.arguments())} "
          f"for {words:,} training words (options given replace these); {others} trains another", file=sys.stderr)
    args.components = ",".join(recipe.components)
    for values in recipe.options.values():
        for name, value in values.items():
            if not _given(args, name):
                setattr(args, name, value)
    if args.jackknife is None and not args.no_jackknife:
        args.jackknife, args.no_jackknife = recipe.jackknife, recipe.jackknife is None


def refuse_without_components(args: argparse.Namespace) -> None:
    if args.jackknife is not None or args.no_jackknife:
        raise BarleyError("--jackknife and --no-jackknife apply to pipelines", fix="add e.g. --components tag,parse")
    if args.resume:
        raise BarleyError("--resume applies to the joint component", fix="add e.g. --components tokenize,joint")
    if args.tokenizer is not None:
        raise BarleyError("--tokenizer applies to a pipeline with a tokenizer", fix="add --components tokenize,...")
    for component, given in _component_options(args).items():
        _refuse_without(component, given, fix=f"add --components {component},...")


def _refuse_without(component: str, given: dict, fix: str) -> None:
    """Refuse the options ``given`` of a component the training has not."""
    name = next(iter(given))
    raise BarleyError(f"{declared.BY_NAME[name].flag}: {declared.who_takes(name)}, but there is no {component} "
                      "component to train", fix=fix)


def joint_options(args: argparse.Namespace, transforms: list) -> dict:
    """The ``joint`` component's options: every option set on the command line (those it does not
    take are refused by :func:`barley.pipeline.check_options`), the transforms, the checkpoint
    next to the model file and whether to resume from it."""
    given = {name: getattr(args, name) for name in _parser_options_set(args, names=True)
             if name not in _TRANSFORM_OPTIONS}
    if transforms:
        given["transforms"] = transforms
    checkpoint = args.model + CHECKPOINT_SUFFIX
    if args.resume and not os.path.exists(checkpoint):  # said before the earlier components train
        raise BarleyError(f"no checkpoint to resume from: {checkpoint} does not exist",
                          fix="train without --resume (it starts afresh)")
    return {**given, "checkpoint": checkpoint, "resume": args.resume}


def refuse_with_from(args: argparse.Namespace, transforms: list) -> None:
    """Fine-tuning (``--from``) keeps the model's components, their kinds and its tree transforms:
    the options that would choose them are refused in one line."""
    chosen = [flag for flag, given in (("--components", args.components is not None),
                                       ("--recipe", args.recipe is not None), ("--tokenizer", args.tokenizer is not None),
                                       ("--jackknife", args.jackknife is not None), ("--no-jackknife", args.no_jackknife),
                                       ("--resume", args.resume), ("a tree transform", bool(transforms)),
                                       *((declared.BY_NAME[name].flag, True) for values in _component_options(args).values()
                                         for name in values)) if given]
    if chosen:
        raise BarleyError(f"{', '.join(chosen)}: not with --from, which trains the model's network further and "
                          f"keeps its components and transforms", fix="leave them out")


def fine_tune(args: argparse.Namespace, base: str) -> bool:
    """``barley train --from MODEL`` (``base``: its path): the model's network trained further (:meth:`Pipeline.fine_tuned`)
    with the training options given, then scored on dev and saved as a new model; whether a signal
    stopped this fine-tuning (its own record, ``pipeline.fine_tuning``'s last: the base's records are kept)."""
    options = {name: getattr(args, name) for name in _parser_options_set(args, names=True)}
    pipeline = Pipeline.load(base).fine_tuned(args.train, options={"joint": options}, dev=args.dev,
                                              seed=1 if args.seed is None else args.seed,
                                              record_time=args.seed is None, base=args.from_model)
    _score_and_save(args, pipeline)
    return interrupted(pipeline.manifest["pipeline"]["fine_tuning"][-1])


def train_pipeline(args: argparse.Namespace, parse_options: Callable[[argparse.Namespace], dict],
                   transforms: Callable[[argparse.Namespace], list]) -> bool:
    """``barley train --components ...``: the pipeline trained, scored on dev and saved; whether a signal
    stopped a component's training (the model then holds the best epoch so far)."""
    names = ordered(args.components.split(","))
    options = {}
    if "parse" in names:
        options["parse"] = parse_options(args)
    elif "joint" in names:
        options["joint"] = joint_options(args, transforms(args))
    elif _parser_options_set(args):
        raise BarleyError(f"{', '.join(_parser_options_set(args))}: parser options, but --components has no parse",
                          fix="add parse to --components or leave these options out")
    if args.resume and "joint" not in names:
        raise BarleyError("--resume applies to the joint component", fix="add joint to --components")
    if args.tokenizer is not None:
        if "tokenize" not in names:
            raise BarleyError("--tokenizer, but --components has no tokenize", fix="add tokenize to --components")
        tokenizer_kinds(args.tokenizer)  # checked: known kinds, each named once
        options["tokenize"] = {"tokenizer": args.tokenizer}
    for component, given in _component_options(args).items():
        if component not in names:
            _refuse_without(component, given, fix=f"add {component} to --components")
        takers = (["tokenizer:" + kind for kind in tokenizer_kinds(args.tokenizer or
                                                                   TokenizeComponent.OPTIONS["tokenizer"])]
                  if component == "tokenize" else ["component:" + component])
        declared.refuse_untaken(given, takers, fix="leave it out" + (", or choose the --tokenizer that takes it"
                                                                      if component == "tokenize" else ""))
        options.setdefault(component, {}).update(declared.keywords(given))
    jackknife = None if args.no_jackknife else DEFAULT_JACKKNIFE if args.jackknife is None else args.jackknife
    several = args.train_treebanks
    data = treebanks.joined(several) if several else args.train
    pipeline = Pipeline.train(data, names, options=options, jackknife=jackknife,
                              seed=1 if args.seed is None else args.seed, record_time=args.seed is None,
                              dev=args.dev)
    if several:
        pipeline.manifest["pipeline"]["training"].update(data=args.train, treebanks=[
            {"name": name, "data": path} for name, path in several])
    stopped = interrupted(_score_and_save(args, pipeline))
    checkpoint = args.model + CHECKPOINT_SUFFIX
    if "joint" in names and os.path.exists(checkpoint) and not stopped:
        os.remove(checkpoint)  # the model is written: the training's checkpoint is done with (unless to resume)
    return stopped


def _score_and_save(args: argparse.Namespace, pipeline: Pipeline) -> dict:
    """The dev scores (with ``--dev``) into the manifest and printed; the model file written; its manifest."""
    if args.dev:
        scores = pipeline.evaluate(args.dev)
        speed = scores["words_per_second"]
        if args.seed is not None:  # a timing, left out as the training's time is: a seed gives the same bytes
            del scores["words_per_second"]
        pipeline.manifest["dev"] = scores
        accuracy = {name: value for name, value in scores.items() if name not in ("words", "words_per_second")}
        print(f"dev scores of {args.dev} (gold tokenization, every word): "
              + ", ".join(f"{name} {value:.2f}" for name, value in accuracy.items())
              + f"; {scores['words']} words, {speed} words/s", file=sys.stderr)
    manifest, arrays = pipeline.to_files()
    archive.write(args.model, manifest, arrays)
    return manifest
