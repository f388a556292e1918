"""The ``barley`` command: a thin dispatcher over ``barley.commands``.

Each module in :mod:`barley.commands` defines ``register(subparsers)`` which adds
one sub-command and sets ``func`` on it; the function receives the parsed
arguments and returns the exit status. Adding a command never touches this file.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from barley import __version__
from barley.errors import BarleyError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="barley",
        description="Data-driven dependency parsing: train, parse, evaluate, analyze treebanks.",
    )
    parser.add_argument("--version", action="version", version=f"barley {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    import barley.commands as commands

    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"barley.commands.{info.name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BarleyError as error:
        print(f"barley {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"barley {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `barley parse ... | head` closes the pipe early; that is not an error.
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
