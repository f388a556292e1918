"""Build barley's English pipeline model from UD_English-EWT, reproducibly: the model that
ships inside the package (``src/barley/models/en_ewt.barley``, the default of ``barley parse``).

Trains every registered pipeline component (tokenizer, tagger, parser) on the EWT
training set with a fixed seed and no wall-clock time in the manifest, so that the same
treebank and barley version give the same bytes (build twice, compare the sha256). The
manifest records what ``barley models`` shows: the language, the treebank and its
version (from the treebank's README), the licence (the treebank's, CC BY-SA 4.0), the
dev scores from gold tokenization and the test scores from raw text (CoNLL 2018 F1).
Prints the model's size, checksum and scores.

    python scripts/build_default_model.py                        # writes src/barley/models/en_ewt.barley
    python scripts/build_default_model.py --ud ../shared/data/ud --output /tmp/en_ewt.barley --jackknife 5
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import sys
from pathlib import Path

TREEBANK = "UD_English-EWT"
TRAIN, DEV, TEST = "en_ewt-ud-train.conllu", "en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu"
SHIPPED = {"language": "English", "treebank": TREEBANK, "licence": "CC BY-SA 4.0"}
REPOSITORY = Path(__file__).resolve().parents[1]
SEED = 1
PARSER = {"system": "arc-eager"}


def main() -> int:
    from barley.pipeline import COMPONENTS, DEFAULT_JACKKNIFE, Pipeline

    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--ud", default=str(REPOSITORY / ".." / "shared" / "data" / "ud"),
                         help="the folder holding UD_English-EWT")
    options.add_argument("--output", default=str(REPOSITORY / "src" / "barley" / "models" / "en_ewt.barley"),
                         help="model file to write (default: the one that ships in the package)")
    options.add_argument("--jackknife", type=int, default=DEFAULT_JACKKNIFE)
    args = options.parse_args()
    folder = Path(args.ud) / TREEBANK
    if not (folder / TRAIN).is_file():
        print(f"build_default_model: {folder / TRAIN} is absent", file=sys.stderr)
        return 1
    version = treebank_version(folder / "README.md")
    pipeline = Pipeline.train(str(folder / TRAIN), list(COMPONENTS), options={"parse": dict(PARSER)},
                              jackknife=args.jackknife, seed=SEED, record_time=False)
    pipeline.manifest["pipeline"]["training"]["data"] = f"{TREEBANK}/{TRAIN}"  # not this machine's path
    pipeline.manifest["dev"] = pipeline.evaluate(str(folder / DEV))
    pipeline.manifest["dev"].pop("words_per_second")  # a timing: would change the bytes
    pipeline.manifest["test_raw_text"] = pipeline.evaluate_text(str(folder / TEST))
    words_per_second = pipeline.manifest["test_raw_text"].pop("words_per_second")
    pipeline.manifest["shipped"] = {**SHIPPED, "treebank_version": version}
    pipeline.save(args.output)
    digest = hashlib.sha256(Path(args.output).read_bytes()).hexdigest()
    print(f"{args.output}: {os.path.getsize(args.output)} bytes, sha256 {digest}")
    print("dev, gold tokenization: " + ", ".join(f"{k} {v}" for k, v in pipeline.manifest["dev"].items()))
    print("test, raw text: " + ", ".join(f"{k} {v}" for k, v in pipeline.manifest["test_raw_text"].items())
          + f"; {words_per_second} words/s")
    return 0


def treebank_version(readme: Path) -> str:
    """``2.15`` from the README's first lines (``... English Web Treebank v2.15 -- 2024-11-15``)."""
    found = re.search(r"\bv(\d+\.\d+)\b", readme.read_text(encoding="utf-8")[:500]) if readme.is_file() else None
    if found is None:
        raise SystemExit(f"build_default_model: no treebank version (vN.N) at the top of {readme}")
    return found.group(1)


if __name__ == "__main__":
    sys.exit(main())
