"""The ``barley`` command: a thin dispatcher over ``barley.commands``.

Each module in :mod:`barley.commands` defines ``register(subparsers)`` which adds
one sub-command and sets ``func`` on it; the function receives the parsed
arguments and returns the exit status. Adding a command never touches this file.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import pkgutil
import signal
import sys
import warnings

from barley import __version__
from barley.atomic import DISK_ERRORS
from barley.errors import BarleyError, BarleyWarning


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that partial outputs are removed on the way out."""


_terminated: list[bool] = []
"""Not empty once SIGTERM reached the command (emptied as each :func:`main` starts): a training that caught the interruption and kept its best
epoch then exits as :func:`interrupted_status` says."""


def _terminate(main_pid: int, signum, frame):
    if os.getpid() != main_pid:  # a forked worker (experiment --jobs, ...): die as SIGTERM would have it
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    _terminated.append(True)
    raise Terminated


def interrupted_status() -> int:
    """The exit status of a command stopped by a signal: 143 after SIGTERM, 130 after Ctrl-C (as a shell's
    128 + the signal's number), also where the command caught the interruption and finished what it could."""
    return 143 if _terminated else 130


def _one_line_warnings(command: str) -> None:
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"barley {command}: warning: {message}", file=sys.stderr)

    warnings.showwarning = show
    warnings.simplefilter("always", BarleyWarning)


def command_names() -> list[str]:
    """The sub-commands: the public modules of :mod:`barley.commands` (found without importing them)."""
    import barley.commands as commands

    return sorted(info.name for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of every command, or of the command ``only`` alone (``""``: of none).

    Each command module imports what its work needs (numpy, the parser, a web
    framework...), so a run registers just the command it runs: start-up pays only for it.
    """
    parser = argparse.ArgumentParser(
        prog="barley",
        description="Data-driven dependency parsing: train, parse, evaluate, analyze treebanks.",
    )
    parser.add_argument("--version", action="version", version=f"barley {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in command_names():
        if only is None or name == only:
            importlib.import_module(f"barley.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        # the top level takes no option but --help and --version, so a command comes first or not at all;
        # --version alone needs no command registered (none is imported)
        only = argv[0] if argv and argv[0] in command_names() else "" if argv == ["--version"] else None
        parser = build_parser(only=only)
    except KeyboardInterrupt:
        print("barley: interrupted", file=sys.stderr)
        return 130
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    _one_line_warnings(args.command)
    _terminated.clear()  # this command's own signals (main may run again in one process: tests, scripts)
    signal.signal(signal.SIGTERM, functools.partial(_terminate, os.getpid()))
    if hasattr(signal, "SIGXFSZ"):  # past a file-size limit, writing fails with EFBIG instead of killing us
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        return int(args.func(args) or 0)
    except BarleyError as error:
        print(f"barley {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as interrupt:
        return _interrupted(args.command, interrupt)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except MemoryError:
        print(f"barley {args.command}: error: out of memory (give it a smaller input, or run it where more memory "
              f"is free)", file=sys.stderr)
        return 2
    except OSError as error:
        if error.errno not in DISK_ERRORS:
            raise
        print(f"barley {args.command}: error: cannot write the output: {error.strerror}", file=sys.stderr)
        return 2
    except Exception as error:
        # Python turns a Ctrl-C that lands in some places (e.g. a class being created while a
        # module is imported) into a RuntimeError caused by it: still an interruption
        cause = error.__cause__
        if not isinstance(cause, KeyboardInterrupt):
            raise
        return _interrupted(args.command, cause)


def _interrupted(command: str, interrupt: KeyboardInterrupt) -> int:
    terminated = isinstance(interrupt, Terminated)
    print(f"barley {command}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
    return 143 if terminated else 130


def _quiet_broken_pipe() -> int:
    """`barley parse ... | head` closed the pipe early: not an error; exit quietly.

    Python would flush stdout again at exit and print a second BrokenPipeError, so
    stdout is pointed at /dev/null first (the recipe of the ``signal`` docs).
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
