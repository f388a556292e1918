"""Drawing time of one long sentence: the SVG arc diagram (what ``barley serve`` and the
HTML pages draw) and the terminal drawing, at 1,000 to 8,000 words.

Usage: python bench/bench_render.py [--words 1000,2000,4000,8000] [--file TREEBANK] [--json OUT]

Two kinds of sentence: ``treebank``, the sentences of TREEBANK (default EWT's test file in
$BARLEY_UD_DIR or ../shared/data/ud) run together into one, every sentence's root word under the first
sentence's (the last one cut), as a long paste of real text parses; ``random``, a random non-projective tree,
each word's head drawn uniformly from the words before it or the root (long crossing arcs
everywhere). Both drawings used to compare every arc (lane) with every other: the time
grew fourfold for twice the words. Printed: seconds (wall) per drawing, and the
levels (SVG) and lane columns (text) the drawing needed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

from barley import render
from barley.conllu import FORM, UPOS, read
from barley.render import svg, text

UD_DIR = Path(os.environ.get("BARLEY_UD_DIR", Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"))
EWT = UD_DIR / "UD_English-EWT" / "en_ewt-ud-test.conllu"


def treebank_sentence(path: str, words: int) -> render.Drawing:
    forms, tags, heads, labels = ["ROOT"], [""], [-1], [""]
    for sentence in read(path):
        offset = len(forms) - 1
        first_root = heads.index(0) if 0 in heads else None
        for form, tag, head, label in zip(sentence.column(FORM), sentence.column(UPOS), sentence.heads()[1:],
                                          sentence.deprels()[1:]):
            forms.append(form)
            tags.append(tag)
            heads.append(int(head) + offset if head > 0 else first_root or 0)
            labels.append(label if head > 0 or first_root is None else "parataxis")
            if len(forms) > words:  # the last sentence is cut: its arcs to words beyond go to the first root
                heads = [head if head <= words else first_root or 0 for head in heads]
                return render.Drawing(forms, tags, heads, labels)
    raise SystemExit(f"{path} has fewer than {words} words")


def random_sentence(words: int, seed: int = 1) -> render.Drawing:
    rng = random.Random(seed)
    order = list(range(1, words + 1))
    rng.shuffle(order)
    heads = [-1] * (words + 1)
    heads[order[0]] = 0
    for index, word in enumerate(order[1:], start=1):
        heads[word] = order[rng.randrange(index)]
    return render.Drawing(["ROOT", *(f"w{k}" for k in range(1, words + 1))], ["", *["X"] * words], heads,
                          ["", *["dep"] * words])


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", default="1000,2000,4000,8000")
    parser.add_argument("--file", default=str(EWT))
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = []
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'words':>6} {'sentence':>9} {'svg s':>7} {'levels':>7} {'text s':>7} {'lanes':>6}")
    for words in (int(w) for w in args.words.split(",")):
        for kind, drawing in (("treebank", treebank_sentence(args.file, words)), ("random", random_sentence(words))):
            svg_s, _ = timed(lambda: svg.draw(drawing))
            text_s, _ = timed(lambda: text.draw(drawing))
            levels = max(svg.levels(drawing.heads).values(), default=0)
            lanes = 1 + max((column for _, column in text.lanes(drawing.heads)), default=-1)
            rows.append({"words": words, "sentence": kind, "svg_s": round(svg_s, 3), "levels": levels,
                         "text_s": round(text_s, 3), "lanes": lanes})
            print(f"{words:>6} {kind:>9} {svg_s:>7.3f} {levels:>7} {text_s:>7.3f} {lanes:>6}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=2)


if __name__ == "__main__":
    main()
