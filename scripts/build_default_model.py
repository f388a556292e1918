"""Build the English models that ship inside the package from UD_English-EWT, reproducibly.

Two models, each one file in ``src/barley/models/``:

* ``en_ewt`` — the default of ``barley parse``, ``barley serve`` and ``barley.parse()``:
  a neural character-level tokenizer and sentence splitter, then one neural network (the
  ``joint`` component: characters and forms → BiLSTM → UPOS, XPOS, UFeats, lemma and a
  biaffine parser, UDPipe 2's shape). Trained with PyTorch; parses with numpy.
* ``en_ewt_linear`` — the fast choice: the linear tokenizer, tagger and lemmatizer and an
  arc-eager parser trained on 5-fold jackknifed tags.

Each is trained with a fixed seed (and, for the neural one, a fixed number of threads) and no
wall-clock time in the manifest, so that the same treebank and barley version give the same
bytes (build twice, compare the sha256). The manifest records what ``barley models`` shows:
the language, the treebank and its version (from the treebank's README), the licence (the
treebank's, CC BY-SA 4.0), the dev scores from gold tokenization and the test scores from
raw text (CoNLL 2018 F1), and the calibration of its confidence (``barley calibrate`` on the dev
set, tags predicted: a temperature and a head map). Prints each model's size, checksum and scores.

The neural model takes about two hours and a quarter on a 2-core CPU. ``--trained NAME=FILE``
finishes a model trained before by the same recipe instead of training it again (the
command that trains it is printed by ``--recipe``), e.g. after ``barley train --resume``; a
joint network trained without its warm restart (``--restart-epochs``) gets it here, to the
bytes the whole training gives, one trained before barley kept the tag combinations of its
training data (for consistent tags) gets them from the training file, and one trained before
the enhanced head (``--enhanced-epochs``) gets its head, trained on the finished network.

    python scripts/build_default_model.py                        # both, into src/barley/models/
    python scripts/build_default_model.py --only en_ewt_linear --output-dir /tmp
    python scripts/build_default_model.py --recipe en_ewt        # the equivalent barley train command
    python scripts/build_default_model.py --only en_ewt --trained en_ewt=en.barley
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
from pathlib import Path

from barley.recipes import RECIPES
from barley.treebank_folder import count_words

TREEBANK = "UD_English-EWT"
TRAIN, DEV, TEST = "en_ewt-ud-train.conllu", "en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu"
SHIPPED = {"language": "English", "treebank": TREEBANK, "licence": "CC BY-SA 4.0"}
REPOSITORY = Path(__file__).resolve().parents[1]
SEED = 1
SHIPPED_RECIPES = {"en_ewt": "neural", "en_ewt_linear": "linear"}
"""Each shipped model's recipe (:data:`barley.recipes.RECIPES`: components, their options, jackknifing).
On a busy machine give the neural training priority (``nice -n -5``): its two threads
(:data:`barley.recipes.THREADS`) wait on each other while other work holds a core, and run many times slower."""


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--ud", default=str(REPOSITORY / ".." / "shared" / "data" / "ud"),
                         help="the folder holding UD_English-EWT")
    options.add_argument("--output-dir", default=str(REPOSITORY / "src" / "barley" / "models"),
                         help="where to write NAME.barley (default: the package's models folder)")
    options.add_argument("--only", choices=sorted(SHIPPED_RECIPES), action="append",
                         help="build this model only (repeatable; default: all)")
    options.add_argument("--trained", action="append", default=[], metavar="NAME=FILE",
                         help="finish NAME from FILE, trained before with its recipe, instead of training it")
    options.add_argument("--recipe", choices=sorted(SHIPPED_RECIPES),
                         help="print the barley train command of a model and stop")
    args = options.parse_args()
    folder = Path(args.ud) / TREEBANK
    if args.recipe:
        print(f"barley train {folder} --recipe {SHIPPED_RECIPES[args.recipe]} --seed {SEED} -m {args.recipe}.barley"
              f"  # i.e. {' '.join(RECIPES[SHIPPED_RECIPES[args.recipe]].arguments())}")
        return 0
    if not (folder / TRAIN).is_file():
        print(f"build_default_model: {folder / TRAIN} is absent", file=sys.stderr)
        return 1
    trained = dict(entry.split("=", 1) for entry in args.trained)
    for name in args.only or sorted(SHIPPED_RECIPES):
        build(name, folder, Path(args.output_dir) / f"{name}.barley", trained.get(name))
    return 0


def build(name: str, folder: Path, output: Path, trained: str | None) -> None:
    from barley.commands.calibrate import calibrate
    from barley.conllu import read
    from barley.pipeline import Pipeline
    from barley.pipeline.joint import OPTIONS

    recipe = RECIPES[SHIPPED_RECIPES[name]].for_words(count_words(str(folder / TRAIN)))  # as barley train FOLDER
    if trained is not None:
        pipeline = Pipeline.load(trained)
        if pipeline.names != list(recipe.components):
            raise SystemExit(f"build_default_model: {trained} holds {', '.join(pipeline.names)}, "
                             f"not {name}'s {', '.join(recipe.components)}")
        if "joint" in pipeline.names and pipeline["joint"].parser.annotator.tables.tag_sets is None:
            pipeline["joint"].with_tag_sets(list(read(folder / TRAIN)))  # trained before barley kept them
        restart = recipe.options.get("joint", {}).get("restart_epochs")
        tunings = pipeline["joint"].manifest.get("fine_tuning", ())
        if restart and not any(tuning.get("warm_restart") for tuning in tunings):  # trained before its warm restart
            pipeline.components[pipeline.names.index("joint")] = pipeline["joint"].restarted(
                list(read(folder / TRAIN)), list(read(folder / DEV)), restart,
                recipe.options["joint"]["restart_learning_rate"], seed=SEED, log=print)
        joint_options = {**OPTIONS, **recipe.options["joint"]}
        if pipeline["joint"].enhancer is None and joint_options["enhanced_epochs"]:  # trained before the head was
            pipeline.components[pipeline.names.index("joint")] = pipeline["joint"].with_enhanced_head(
                list(read(folder / TRAIN)), list(read(folder / DEV)), joint_options["enhanced_epochs"], seed=SEED,
                threads=joint_options["threads"], log=print)
    else:
        options = recipe.pipeline_options()
        if "joint" in options:
            options["joint"]["checkpoint"] = f"{output}.checkpoint"  # a stopped build resumes with --trained
        pipeline = Pipeline.train(str(folder / TRAIN), recipe.components, options=options,
                                  jackknife=recipe.jackknife, seed=SEED, record_time=False, dev=str(folder / DEV))
    # calibrated as users parse (tags predicted), so that `barley parse --confidence` says how sure it is
    pipeline.calibrated(calibrate(pipeline, list(read(folder / DEV)), f"{TREEBANK}/{DEV}", retag=True))
    manifest = pipeline.manifest
    manifest["pipeline"]["training"]["data"] = f"{TREEBANK}/{TRAIN}"  # not this machine's path
    manifest["dev"] = pipeline.evaluate(str(folder / DEV))
    manifest["dev"].pop("words_per_second")  # a timing: would change the bytes
    manifest["test_raw_text"] = pipeline.evaluate_text(str(folder / TEST))
    words_per_second = manifest["test_raw_text"].pop("words_per_second")
    manifest["shipped"] = {**SHIPPED, "treebank_version": treebank_version(folder / "README.md")}
    pipeline.save(str(output))
    digest = hashlib.sha256(output.read_bytes()).hexdigest()
    print(f"{output}: {os.path.getsize(output)} bytes, sha256 {digest}")
    print("dev, gold tokenization: " + ", ".join(f"{k} {v}" for k, v in manifest["dev"].items()))
    print("test, raw text: " + ", ".join(f"{k} {v}" for k, v in manifest["test_raw_text"].items())
          + f"; {words_per_second} words/s")


def treebank_version(readme: Path) -> str:
    """``2.15`` from the README's first lines (``... English Web Treebank v2.15 -- 2024-11-15``)."""
    found = re.search(r"\bv(\d+\.\d+)\b", readme.read_text(encoding="utf-8")[:500]) if readme.is_file() else None
    if found is None:
        raise SystemExit(f"build_default_model: no treebank version (vN.N) at the top of {readme}")
    return found.group(1)


if __name__ == "__main__":
    sys.exit(main())
