"""``barley models``: the models that ship with barley and the installed model packages (language,
treebank, licence, scores), each usable by its name wherever a model is asked for.

What a package's metadata and manifest state is printed escaped (:func:`barley.errors.printable`,
and in ``--json`` as ``\\uXXXX``), so that no terminal escape or line break in them reaches the terminal;
a broken package is skipped with a one-line warning (:mod:`barley.models.catalog`)."""

from __future__ import annotations

import json
import re

from barley.errors import printable
from barley.models.catalog import models

SHOWN = ("Tokens", "Sentences", "UPOS", "Lemmas", "UAS", "LAS", "MLAS")
"""The raw-text scores printed (``--json`` gives them all)."""


def register(subparsers) -> None:
    parser = subparsers.add_parser("models", help="list the shipped and installed models",
                                   description="List the models inside the barley package and those of the "
                                               "installed model packages (barley package): language, treebank and "
                                               "its version, licence, components, size and scores. Each can be "
                                               "given by its name to --model, barley.load() and barley serve -m; "
                                               "`barley parse` and `barley serve` use the default one when no "
                                               "--model is given.")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=run)


def _json_text(cards: list[dict]) -> str:
    """``cards`` as JSON, every character :func:`~barley.errors.printable` escapes written ``\\uXXXX``
    (``json`` itself escapes only those below U+0020 when it keeps the others as they are)."""
    text = json.dumps(cards, indent=1, ensure_ascii=False)
    return re.sub(r"[^\x00-\x7e]", lambda found: found[0] if found[0].isprintable() else json.dumps(found[0])[1:-1],
                  text)


def describe(card: dict) -> str:
    """The text of one model's card, each line escaped (what a manifest or a package's metadata states may
    hold line breaks and terminal escapes)."""
    scores = card["scores"]
    origin = "shipped with barley" if card["origin"] == "shipped" else f"package {card['package']}, for barley " \
                                                                       f"{card['barley_versions']}"
    language = " ".join(part for part in (card["language"], card["language_code"] and f"({card['language_code']})")
                        if part)
    lines = [f"{card['name']}{'  (default)' if card['default'] else ''}",
             f"  origin:      {origin}",
             f"  language:    {language or 'not stated'}"]
    if card["treebank"]:
        lines.append(f"  treebank:    {card['treebank']} {card['treebank_version']}")
    lines += [f"  licence:     {card['licence']}",
              f"  components:  {', '.join(card['components'])}",
              f"  size:        {card['bytes'] / 2**20:.1f} MiB ({card['bytes']} bytes), barley {card['barley_version']}",
              f"  file:        {card['path']}"]
    if "test_raw_text" in scores:
        lines.append("  test, raw text (CoNLL 2018 F1): "
                     + ", ".join(f"{k} {scores['test_raw_text'][k]}" for k in SHOWN if k in scores["test_raw_text"]))
    if "dev" in scores:
        lines.append("  dev, gold tokenization: " + ", ".join(f"{k} {v}" for k, v in scores["dev"].items()))
    return "\n".join(printable(line) for line in lines)


def run(args) -> int:
    cards = [model.card for model in models()]
    if args.json:
        print(_json_text(cards))
    elif not cards:
        print("no model ships with this installation of barley, and no model package is installed")
    else:
        print("\n\n".join(describe(card) for card in cards))
    return 0
