"""Atomic output files: nothing appears at the destination until everything is written.

A file is written into a temporary file in the destination's directory and renamed
over the destination only when it is complete and flushed to disk, so a reader sees
either the previous file or the new one, never a part. When writing fails
(interrupted, disk full, file-size limit) the temporary file is removed and the
previous file is left as it was.

The temporary file is named ``.barley-HOST-PID-RANDOM.part``. Any error or
exception (Ctrl-C, SIGTERM through the CLI, a full disk) removes it at once. A
process killed with SIGKILL cannot clean up after itself, so every atomic write
first removes the temporary files in its directory that processes of this host
left behind and that are dead now: a killed run's leftover lives only until the
next barley write beside it. (An anonymous ``O_TMPFILE`` would need no such sweep,
but linking it into place is refused on many systems, this one included.)
"""

from __future__ import annotations

import errno
import functools
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from barley.errors import BarleyError

DISK_ERRORS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}
"""Errors that mean "no room to write": reported as one line, never a traceback."""


def disk_error(error: OSError, path: str) -> BarleyError:
    """The one-line error for a write that found no room (see :data:`DISK_ERRORS`)."""
    return BarleyError(f"cannot write the file: {error.strerror}", path=path,
                       fix="free some space or write to another disk; the previous file, if any, is unchanged")


@functools.cache
def _host() -> str:
    """This machine's name as temporary names carry it (socket is imported on the first write)."""
    import socket

    return socket.gethostname().replace("-", "_").replace(os.sep, "_") or "host"


_PREFIX = ".barley-"
_SUFFIX = ".part"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def sweep(directory: str) -> list[str]:
    """Remove the temporary files that dead processes of this host left in ``directory``; return them."""
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(_PREFIX) and name.endswith(_SUFFIX)):
            continue
        parts = name[len(_PREFIX):-len(_SUFFIX)].split("-")
        if len(parts) != 3 or parts[0] != _host() or not parts[1].isdigit() or _alive(int(parts[1])):
            continue
        try:
            os.unlink(os.path.join(directory, name))
            removed.append(name)
        except OSError:
            pass  # another process swept it first, or we may not: not ours to insist on
    return removed


def _named(directory: str) -> tuple[int, str]:
    fd, temporary = tempfile.mkstemp(prefix=f"{_PREFIX}{_host()}-{os.getpid()}-", suffix=_SUFFIX, dir=directory)
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes it private; the output should get the usual mode
    return fd, temporary


@contextmanager
def atomic_output(path: str | os.PathLike, flush_to_disk: bool = True) -> Iterator[IO[bytes]]:
    """Yield a binary handle whose bytes replace ``path`` only if the block completes.

    ``flush_to_disk=False`` leaves out the wait for the disk (``fsync``) before the
    rename: only for files whose content is checked before it is used (a Dask shard's
    output, checked against its record's size and SHA-256, and the record, checked
    as JSON), where a crash can leave nothing worse than a file the next run rewrites.

    Errors: a directory that cannot be written to, or a disk that fills up, raise a
    :class:`~barley.errors.BarleyError` naming ``path``; any exception (including
    KeyboardInterrupt) discards what was written and leaves ``path`` as it was.
    """
    path = os.fspath(path)
    if os.path.exists(path) and not os.path.isfile(path):
        # a device or a named pipe (/dev/null, a FIFO): written in place, never replaced by a file
        with open(path, "wb") as handle:
            yield handle
        return
    directory = os.path.dirname(os.path.abspath(path))
    sweep(directory)
    try:
        fd, temporary = _named(directory)
    except OSError as error:
        raise BarleyError(f"cannot write here: {error.strerror}", path=path,
                          fix="check that the directory exists and is writable") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            if flush_to_disk:
                os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException as error:
        if os.path.exists(temporary):
            os.unlink(temporary)
        if isinstance(error, OSError) and error.errno in DISK_ERRORS:
            raise disk_error(error, path) from None
        raise
