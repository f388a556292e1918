"""Writing files atomically: the one way barley writes an output, a model or a report.

A file is written to a temporary file beside it and renamed into place only when all of
it was written, so that an interrupted run never leaves a half-written file under the
name asked for (nor destroys the file that was there).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from barley.errors import BarleyError


@contextmanager
def atomic_path(path: str | os.PathLike, suffix: str = ".part") -> Iterator[str]:
    """A temporary path beside ``path`` to write to; renamed onto ``path`` when the block
    ends without an error, removed when it raises. ``suffix`` ends the temporary name (e.g.
    ``.part.gz`` for a writer that compresses by the name). The file gets the mode of a
    newly created file (0666 less the umask), not :func:`tempfile.mkstemp`'s private 0600.
    """
    path = os.fspath(path)
    try:
        fd, temporary = tempfile.mkstemp(prefix=".barley-", suffix=suffix, dir=os.path.dirname(os.path.abspath(path)))
    except OSError as error:
        raise BarleyError(f"cannot write here: {error.strerror}", path=path,
                          fix="check that the directory exists and is writable") from None
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)
    try:
        yield temporary
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
