"""One error type for bad user input, so the CLI can print it as one line.

Every message names the file, the line, what is wrong and how to fix it; the CLI
prints ``str(error)`` and exits with status 2, never a traceback.
"""

from __future__ import annotations


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
        # one line whatever the message quotes (a damaged file's text may hold line breaks)
        return f"{where}{self.what}{fix}".replace("\r", "\\r").replace("\n", "\\n")


class InputError(BarleyError):
    """Malformed treebank or other input file."""


class ModelError(BarleyError):
    """A model file that is damaged, not a barley model, or from an incompatible version."""


class BarleyWarning(UserWarning):
    """Something barley did to the data that the user should know about (the CLI prints it as one line)."""
