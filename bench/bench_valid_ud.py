"""UD-valid output (``barley parse --valid-ud``): UD's own validator at level 3, and LAS, without and with.

The test set's raw text (rebuilt from ``# text``, paragraphs as the treebank marks them) is
tokenized and parsed by the model twice, with ``valid_ud`` off and on; each output is written to
a temporary file, checked by the official validator (``validate.py --lang LANG --level 3``, from
UniversalDependencies/tools, kept outside the repository: ``--validator`` or the environment
variable BARLEY_UD_VALIDATOR names it; it needs the ``udapi`` and ``regex`` packages), and scored
against the gold file with the CoNLL 2018 measures (``barley.evaluation.conll18``, the official
scorer's figures; ``--scorer conll18_ud_eval.py`` runs the official script too). Printed per run:
the validator's errors by test id, grouped as *structural* (what ``--valid-ud`` keeps: one subject
and one object per head, function words as leaves, left-to-right relations, ``root`` exactly at
0, relation–UPOS agreement, goeswith's tags), *punctuation projectivity*, and *other*; LAS; parse
time in CPU seconds of this process (tokenizing included, or with ``--tagged-by`` the parse alone;
on a shared machine the wall clock says little).

    git --git-dir=/work/.mirror/UniversalDependencies+tools/repo archive HEAD | tar -x -C /tmp/udtools
    BARLEY_UD_VALIDATOR=/tmp/udtools/validate.py python bench/bench_valid_ud.py \\
        /work/shared/data/ud/UD_English-EWT/en_ewt-ud-test.conllu --model src/barley/models/en_ewt.barley
    BARLEY_UD_VALIDATOR=/tmp/udtools/validate.py python bench/bench_valid_ud.py \
        /work/shared/data/ud/UD_English-EWT/en_ewt-ud-test.conllu --model ewt_hybrid.barley \
        --tagged-by src/barley/models/en_ewt.barley      # a bare parser: tokens and tags from a pipeline
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from barley.conllu import read, write
from barley.evaluation.conll18 import evaluate_conll18
from barley.models.shipped import default_model_path
from barley.pipeline import Pipeline
from barley.tokenizer.treebank_text import raw_text

STRUCTURAL = re.compile(r"^(too-many-subjects|too-many-objects|leaf-.*|right-to-left-.*|0-is-not-root|root-is-not-0|"
                        r"rel-upos-.*|upos-rel-punct|goeswith-(upos|lemma|feats|missing-typo))$")
"""The validator's test ids of the rules ``--valid-ud`` keeps (:mod:`barley.valid_ud`)."""
PUNCTUATION = re.compile(r"^punct-(is|causes)-nonproj$")


def validate(validator: str, path: str, lang: str) -> Counter:
    """The validator's errors (not warnings) at level 3 by test id."""
    run = subprocess.run([sys.executable, validator, "--lang", lang, "--level", "3", "--max-err", "0",
                          "--no-warnings", path], capture_output=True, text=True, cwd=Path(validator).parent)
    if "*** PASSED ***" not in run.stderr and "*** FAILED ***" not in run.stderr:
        sys.exit(f"{validator}: no verdict (is udapi installed?):\n{run.stderr[-2000:]}")
    return Counter(re.findall(r"\[L\d \w+ ([\w-]+)\]", run.stderr))


def official_las(scorer: str, gold: str, path: str) -> str:
    run = subprocess.run([sys.executable, scorer, gold, path], capture_output=True, text=True, check=True)
    return next(line.split(":")[1].strip() for line in run.stdout.splitlines() if line.startswith("LAS F1"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold")
    parser.add_argument("--model", default=None)
    parser.add_argument("--lang", default="en")
    parser.add_argument("--validator", default=os.environ.get("BARLEY_UD_VALIDATOR"),
                        help="UD's validate.py (default: $BARLEY_UD_VALIDATOR)")
    parser.add_argument("--scorer", help="the official conll18_ud_eval.py, to print its LAS too")
    parser.add_argument("--tagged-by", metavar="PIPELINE",
                        help="for a bare parser (no tokenizer or tagger): the text is tokenized and tagged by this "
                             "pipeline model first (its trees are parsed again by --model), e.g. the shipped en_ewt")
    args = parser.parse_args()
    if not args.validator or not Path(args.validator).is_file():
        sys.exit("no validator: give --validator PATH/validate.py or set BARLEY_UD_VALIDATOR "
                 "(UniversalDependencies/tools)")
    model = args.model or default_model_path()
    pipeline = Pipeline.load(model)
    gold = list(read(args.gold))
    text = raw_text(gold)
    if args.tagged_by:
        tagged = list(Pipeline.load(args.tagged_by).parse(text))

        def inputs():
            return [sentence.copy() for sentence in tagged]
    else:
        def inputs():
            return text
    list(pipeline.parse(inputs()[:50], valid_ud=False))  # warm-up: lazy loading
    print(f"{args.gold}, raw text, {model}" + (f" (tokenized and tagged by {args.tagged_by})" if args.tagged_by
                                               else ""))
    print(f"{'run':<14}{'errors':>7}{'structural':>11}{'punct-proj':>11}{'other':>6}{'LAS':>7}"
          + ("  official LAS" if args.scorer else "") + f"{'CPU s':>9}  structural and other errors by test id")
    with tempfile.TemporaryDirectory() as folder:
        for name, valid_ud in (("--no-valid-ud", False), ("--valid-ud", True)):
            started = time.process_time()
            parsed = list(pipeline.parse(inputs(), valid_ud=valid_ud))
            seconds = time.process_time() - started
            path = os.path.join(folder, "parsed.conllu")
            write(parsed, path)
            errors = validate(args.validator, path, args.lang)
            structural = sum(count for test, count in errors.items() if STRUCTURAL.match(test))
            punctuation = sum(count for test, count in errors.items() if PUNCTUATION.match(test))
            other = sum(errors.values()) - structural - punctuation
            las = evaluate_conll18(gold, parsed).scores["LAS"].f1
            official = f"{official_las(args.scorer, args.gold, path):>14}" if args.scorer else ""
            detail = ", ".join(f"{test} {count}" for test, count in errors.most_common() if not PUNCTUATION.match(test))
            print(f"{name:<14}{sum(errors.values()):>7}{structural:>11}{punctuation:>11}{other:>6}{las:>7.2f}"
                  f"{official}{seconds:>9.1f}  {detail}")


if __name__ == "__main__":
    main()
