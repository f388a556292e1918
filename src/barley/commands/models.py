"""``barley models``: the models that ship with barley (language, treebank, licence, scores)."""

from __future__ import annotations

import json

from barley.shipped import shipped_models

SHOWN = ("Tokens", "Sentences", "UPOS", "Lemmas", "UAS", "LAS", "MLAS")
"""The raw-text scores printed (``--json`` gives them all)."""


def register(subparsers) -> None:
    parser = subparsers.add_parser("models", help="list the models that ship with barley",
                                   description="List the models inside the barley package: language, treebank and "
                                               "its version, licence, components, size and scores. `barley parse` "
                                               "and `barley serve` use the default one when no --model is given.")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def describe(card: dict) -> str:
    scores = card["scores"]
    lines = [f"{card['name']}{'  (default)' if card['default'] else ''}",
             f"  language:    {card['language']}",
             f"  treebank:    {card['treebank']} {card['treebank_version']}",
             f"  licence:     {card['licence']}",
             f"  components:  {', '.join(card['components'])}",
             f"  size:        {card['bytes'] / 2**20:.1f} MiB ({card['bytes']} bytes), barley {card['barley_version']}",
             f"  file:        {card['path']}"]
    if "test_raw_text" in scores:
        lines.append("  test, raw text (CoNLL 2018 F1): "
                     + ", ".join(f"{k} {scores['test_raw_text'][k]}" for k in SHOWN if k in scores["test_raw_text"]))
    if "dev" in scores:
        lines.append("  dev, gold tokenization: " + ", ".join(f"{k} {v}" for k, v in scores["dev"].items()))
    return "\n".join(lines)


def run(args) -> int:
    cards = [model.card for model in shipped_models()]
    if args.json:
        print(json.dumps(cards, indent=1, ensure_ascii=False))
    elif not cards:
        print("no model ships with this installation of barley")
    else:
        print("\n\n".join(describe(card) for card in cards))
    return 0
