"""Build barley's English pipeline model from UD_English-EWT, reproducibly.

Trains every registered pipeline component (tokenizer where there is one, tagger,
parser) on the EWT training set with a fixed seed and no wall-clock time in the
manifest, so that the same treebank and barley version give the same bytes. Prints the
model's size and its dev scores (gold tokenization).

    python scripts/build_default_model.py --output en_ewt.barley
    python scripts/build_default_model.py --ud ../shared/data/ud --output en_ewt.barley --jackknife 5
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

TREEBANK = "UD_English-EWT"
TRAIN, DEV = "en_ewt-ud-train.conllu", "en_ewt-ud-dev.conllu"
SEED = 1
PARSER = {"system": "arc-eager"}


def main() -> int:
    from barley.pipeline import COMPONENTS, DEFAULT_JACKKNIFE, Pipeline

    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--ud", default=str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"),
                         help="the folder holding UD_English-EWT")
    options.add_argument("--output", required=True, help="model file to write")
    options.add_argument("--jackknife", type=int, default=DEFAULT_JACKKNIFE)
    args = options.parse_args()
    folder = Path(args.ud) / TREEBANK
    if not (folder / TRAIN).is_file():
        print(f"build_default_model: {folder / TRAIN} is absent", file=sys.stderr)
        return 1
    pipeline = Pipeline.train(str(folder / TRAIN), list(COMPONENTS), options={"parse": dict(PARSER)},
                              jackknife=args.jackknife, seed=SEED, record_time=False)
    pipeline.manifest["pipeline"]["training"]["data"] = f"{TREEBANK}/{TRAIN}"  # not this machine's path
    pipeline.manifest["dev"] = pipeline.evaluate(str(folder / DEV))
    pipeline.manifest["dev"].pop("words_per_second")  # a timing: would change the bytes
    pipeline.save(args.output)
    digest = hashlib.sha256(Path(args.output).read_bytes()).hexdigest()
    print(f"{args.output}: {os.path.getsize(args.output)} bytes, sha256 {digest}")
    print("dev: " + ", ".join(f"{k} {v}" for k, v in pipeline.manifest["dev"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
