"""``barley info``: what a model file holds, readably (its manifest), each line escaped
(:func:`barley.errors.printable`: a manifest may come from anyone, with terminal escapes in it)."""

from __future__ import annotations

from barley.errors import printable
from barley.models.archive import read_manifest
from barley.models.catalog import resolve
from barley.models.check import loading
from barley.pipeline.describe import describe


def register(subparsers) -> None:
    parser = subparsers.add_parser("info", help="describe a model file",
                                   description="Print the manifest of a barley model file.")
    parser.add_argument("model", metavar="MODEL", help="model file or name (`barley models`)")
    parser.add_argument("--features", action="store_true", help="also print the feature model")
    parser.set_defaults(func=run)




def run(args) -> int:
    args.model = resolve(args.model)
    with loading(args.model, "barley"):  # a manifest of unexpected shape: one line, not a traceback
        text = describe(read_manifest(args.model), args.features)
    print("\n".join(printable(line) for line in text.split("\n")))
    return 0
