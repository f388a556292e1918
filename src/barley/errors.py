"""One error type for bad user input, so the CLI can print it as one line.

Every message names the file, the line, what is wrong and how to fix it; the CLI
prints ``str(error)`` and exits with status 2, never a traceback.

A message may quote what a file holds (a model's manifest, a package's metadata, a line of
input), which may hold terminal escapes or line breaks: :func:`printable` escapes them, in
every message and wherever barley prints a string it did not make (``barley models``).
"""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with every character that ``str.isprintable`` rejects (control characters such as ESC,
    line and paragraph separators, bidirectional and other format characters, spaces other than
    U+0020, unassigned code points) escaped as ``repr`` escapes it (``\\x1b``, ``\\n``, ``\\u202e``):
    one line that a terminal shows as it is, whatever it quotes."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


class BarleyError(Exception):
    """A problem the user can fix (bad input, bad option, incompatible model)."""

    def __init__(self, what: str, *, path: str | None = None, line: int | None = None,
                 fix: str | None = None):
        self.what = what
        self.path = path
        self.line = line
        self.fix = fix
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line is not None else f"{self.path}: "
        fix = f" ({self.fix})" if self.fix else ""
        # one line, shown as it is, whatever the message quotes (a file's text may hold line breaks or escapes)
        return printable(f"{where}{self.what}{fix}")


class InputError(BarleyError):
    """Malformed treebank or other input file."""


class ModelError(BarleyError):
    """A model file that is damaged, not a barley model, or from an incompatible version."""


class BarleyWarning(UserWarning):
    """Something barley did to the data that the user should know about (the CLI prints it as one line)."""
