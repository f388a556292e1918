"""What barley's spaCy integration costs: words per second of barley alone against the same model
run as spaCy's tokenizer (barley.spacy.load) and as the ``barley`` component, on the raw text of
EWT test, in one process, each way timed in turns (the best of --repeats; CPU time beside wall
clock, since the machine may be shared). The target is an overhead of at most 15%.

    python bench/bench_spacy.py                          # the shipped English model
    python bench/bench_spacy.py --model en.barley --repeats 5
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

UD = Path(os.environ.get("BARLEY_UD_DIR", Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"))


def timed(run) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def main() -> int:
    import spacy

    import barley.spacy
    from barley.conllu import read
    from barley.models.shipped import DEFAULT
    from barley.pipeline import Pipeline
    from barley.tokenizer.treebank_text import raw_text

    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--model", default=DEFAULT, help="model file or name (default: the shipped English model)")
    options.add_argument("--test", default=str(UD / "UD_English-EWT" / "en_ewt-ud-test.conllu"))
    options.add_argument("--repeats", type=int, default=3)
    args = options.parse_args()
    if not Path(args.test).is_file():
        print(f"bench_spacy: {args.test} is absent (the shared UD treebanks)", file=sys.stderr)
        return 1
    text = raw_text(read(args.test))
    pipeline = Pipeline.load(args.model)
    nlp = barley.spacy.load(args.model)
    component = spacy.blank("en")
    component.add_pipe("barley", config={"model": args.model})
    ways = {"barley alone (Pipeline.parse)": lambda: sum(len(s) for s in pipeline.parse(text)),
            "spaCy tokenizer (barley.spacy.load)": lambda: _words(nlp(text)),
            "spaCy component (add_pipe)": lambda: _words(component(text))}
    best: dict[str, tuple[float, float, int]] = {}
    for _ in range(args.repeats):
        for name, run in ways.items():
            wall, cpu, words = timed(run)
            if name not in best or wall < best[name][0]:
                best[name] = (wall, cpu, words)
    alone = best["barley alone (Pipeline.parse)"]
    print(f"{Path(args.test).name}: {len(text)} characters; model {args.model}; best of {args.repeats}")
    print(f"{'way':38} {'words':>7} {'wall s':>7} {'words/s':>8} {'CPU s':>7} {'overhead (wall, CPU)':>22}")
    for name, (wall, cpu, words) in best.items():
        overhead = f"{100 * (wall / alone[0] - 1):+.1f}%, {100 * (cpu / alone[1] - 1):+.1f}%"
        print(f"{name:38} {words:7d} {wall:7.2f} {words / wall:8.0f} {cpu:7.2f} {overhead:>22}")
    return 0


def _words(doc) -> int:
    """The syntactic words of a Doc (whitespace tokens are not words)."""
    return sum(place is not None for place in doc._.conllu["words"])


if __name__ == "__main__":
    sys.exit(main())
