"""``barley features``: print a system's default or rich feature model (a starting point for --features)."""

from __future__ import annotations

from barley.errors import BarleyError
from barley.features import default_model, read_model, rich_model
from barley.features.extract import Extractor
from barley.systems import get_system


def register(subparsers) -> None:
    parser = subparsers.add_parser("features", help="print or check a feature model",
                                   description="Print the default feature model of a transition system, or "
                                               "check a feature file against a system.")
    parser.add_argument("--system", "-a", default="arc-eager", metavar="NAME", help="transition system")
    parser.add_argument("--check", metavar="FILE", help="check FILE for the system instead of printing the default")
    parser.add_argument("--rich", action="store_true",
                        help="print the system's rich model (arc-eager: after Zhang & Nivre 2011), the one "
                             "`barley train --features rich` uses")
    parser.add_argument("--code", action="store_true", help="print the extractor generated from the model")
    parser.set_defaults(func=run)


def run(args) -> int:
    system = get_system(args.system)
    if args.check and args.rich:
        raise BarleyError("--check and --rich exclude each other", fix="check a file, or print the rich model")
    model = (read_model(args.check) if args.check else rich_model(system.name) if args.rich
             else default_model(system.name))
    extractor = Extractor(model, system)  # raises if an address does not exist in this system
    if args.code:
        print(extractor.source, end="")
    elif args.check:
        print(f"{args.check}: {len(model.features)} features, every address exists in {system.name}")
    else:
        print(model.text, end="")
    return 0
