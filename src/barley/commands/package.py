"""``barley package``: a model as a wheel that pip installs, found afterwards by its name."""

from __future__ import annotations

import sys

from barley.models.package import build


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "package", help="build a pip-installable model package (a wheel)",
        description="Write MODEL, its licence and a model card (training data, options, scores, speed) as a "
                    "wheel: `pip install --no-index DIR/NAME-VERSION-py3-none-any.whl` installs it, and NAME then "
                    "names the model for --model, barley.load() and barley serve -m (`barley models` lists it). "
                    "The package states the barley versions it works with (from the one that wrote the model to "
                    "the next minor version).")
    parser.add_argument("model", metavar="MODEL", help="model file or name")
    parser.add_argument("--name", required=True, help="the package's and the model's name (e.g. en_mytreebank)")
    parser.add_argument("--version", default="1.0.0", help="the package's version (default 1.0.0)")
    parser.add_argument("--output", "-o", required=True, metavar="DIR", help="folder to write the wheel in")
    parser.add_argument("--licence", metavar="NAME",
                        help="the model's licence (default: the one its manifest states; required if it states none)")
    parser.add_argument("--licence-file", metavar="FILE",
                        help="the licence's text, shipped in the package (default: for a shipped model, its licence)")
    parser.add_argument("--language", metavar="CODE",
                        help="the language's code, e.g. en (default: the prefix of the UD file it was trained on)")
    parser.set_defaults(func=run)


def run(args) -> int:
    wheel = build(args.model, args.name, args.output, version=args.version, licence=args.licence,
                  licence_file=args.licence_file, language=args.language)
    print(f"barley package: wrote {wheel} (install it with: pip install --no-index {wheel})", file=sys.stderr)
    return 0
