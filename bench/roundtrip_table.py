"""Round trip of every reversible transform on the shared UD treebanks: inverse(forward(T)) against T.

Usage: python bench/roundtrip_table.py [--ud DIR] [--per-file] [--label-cap M] [--json OUT]

Pseudo-projective rows (Nivre and Nilsson 2005): arcs lifted, lift steps, new labels,
the share of lifted arcs that deprojectivize puts back on their original head, and
the attachment score of the round trip against the original trees (all words,
punctuation included). ``baseline`` puts nothing back: it is the lower bound.
Coordination and verb-group rows are the analogue of Nilsson, Nivre and Hall
(2006), Table 2: attachment score (unlabeled and labeled) of the round trip, and
how many words the transform moved. Splits of one treebank are pooled unless
``--per-file``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from barley import conllu
from barley.transforms.coordination import Coordination
from barley.transforms.pseudo_projective import ENCODINGS, PseudoProjective, projectivize
from barley.transforms.verb_group import VerbGroup

DEFAULT_UD = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"


def load(paths: list[Path]) -> list[tuple[list[int], list[str]]]:
    return [(s.heads().tolist(), s.deprels()) for path in paths for s in conllu.read(path)]


def pseudo_projective_rows(name: str, trees, label_cap: int | None) -> list[dict]:
    rows = []
    for encoding in ENCODINGS:
        transform = PseudoProjective(encoding, label_cap=label_cap).fit(trees)
        words = correct = lifted = back = 0
        for heads, deprels in trees:
            lifts = projectivize(heads, deprels, encoding).lifts
            new_heads, new_labels = transform.inverse(*transform.forward(heads, deprels))
            words += len(heads) - 1
            correct += sum(int(a) == int(b) for a, b in zip(new_heads[1:], heads[1:]))
            lifted += len(lifts)
            back += sum(int(new_heads[lift.dependent]) == lift.syntactic_head for lift in lifts)
        stats = transform.stats
        rows.append({"treebank": name, "encoding": encoding + (f" (cap {label_cap})" if label_cap is not None else ""),
                     "words": words, "lifted": lifted, "lift_steps": stats.lift_steps,
                     "new_labels": len(stats.new_labels), "dropped_labels": len(stats.dropped_labels),
                     "put_back": 100.0 * back / lifted if lifted else 100.0, "AS": 100.0 * correct / words})
    return rows


def structural_rows(name: str, trees) -> list[dict]:
    rows = []
    for label, transform in [("coordination chain", Coordination("ud")), ("verb-group aux-head", VerbGroup("ud"))]:
        transform.fit(trees)
        words = uas = las = moved = 0
        for heads, deprels in trees:
            forward_heads, forward_labels = transform.forward(heads, deprels)
            new_heads, new_labels = transform.inverse(forward_heads, forward_labels)
            words += len(heads) - 1
            moved += sum(int(a) != int(b) for a, b in zip(forward_heads[1:], heads[1:]))
            for d in range(1, len(heads)):
                if int(new_heads[d]) == int(heads[d]):
                    uas += 1
                    las += new_labels[d] == deprels[d]
        rows.append({"treebank": name, "transform": label, "words": words, "moved": moved,
                     "UAS": 100.0 * uas / words, "LAS": 100.0 * las / words})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ud", type=Path, default=DEFAULT_UD)
    parser.add_argument("--per-file", action="store_true")
    parser.add_argument("--label-cap", type=int)
    parser.add_argument("--json")
    args = parser.parse_args()
    files = sorted(args.ud.glob("*/*.conllu"))
    if not files:
        sys.exit(f"no treebank under {args.ud}")
    groups: dict[str, list[Path]] = {}
    for path in files:
        key = path.stem if args.per_file else path.parent.name.removeprefix("UD_")
        groups.setdefault(key, []).append(path)
    started = time.perf_counter()
    pp_rows, st_rows = [], []
    print("| treebank | encoding | words | lifted | lift steps | new labels | dropped | put back % | AS % |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, paths in groups.items():
        trees = load(paths)
        for row in pseudo_projective_rows(name, trees, args.label_cap):
            pp_rows.append(row)
            print(f"| {row['treebank']} | {row['encoding']} | {row['words']} | {row['lifted']} | {row['lift_steps']} "
                  f"| {row['new_labels']} | {row['dropped_labels']} | {row['put_back']:.2f} | {row['AS']:.2f} |",
                  flush=True)
        st_rows.extend(structural_rows(name, trees))
    print()
    print("| treebank | transform | words | words moved | UAS % | LAS % |")
    print("|---|---|---:|---:|---:|---:|")
    for row in st_rows:
        print(f"| {row['treebank']} | {row['transform']} | {row['words']} | {row['moved']} | {row['UAS']:.2f} "
              f"| {row['LAS']:.2f} |")
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    if args.json:
        Path(args.json).write_text(json.dumps({"pseudo_projective": pp_rows, "structural": st_rows}, indent=1))


if __name__ == "__main__":
    main()
