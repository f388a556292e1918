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

Replacing a file keeps what a shell's ``>`` keeps: the new file gets the old one's mode
(and owner and group, where this process may set them); a symbolic link is written
through, to the file it points to, and stays a link. What ``>`` refuses is refused, as a
:class:`~barley.errors.BarleyError`, before anything is written: a folder, and a file
without write permission. That is judged by the file's mode as an ordinary user's shell
would judge it, even for root (who may write anything): a file nobody may write
(``chmod a-w``) is read-only on purpose. :func:`check_output` adds the check that an
output is none of the command's input files (which ``>`` would silently empty).
"""

from __future__ import annotations

import errno
import functools
import os
import stat
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
    removed: list[str] = []
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


def destination(path: str | os.PathLike) -> str:
    """Where writing ``path`` lands: the file a symbolic link points to (the link stays), else ``path``."""
    path = os.fspath(path)
    return os.path.realpath(path) if os.path.islink(path) else path


def written_in_place(path: str | os.PathLike) -> bool:
    """Whether ``path`` is written where it is, as ``>`` writes it, never replaced by a new file: a device
    or a named pipe (``/dev/null``, a FIFO), or a process's open file (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``, which may be a pipe, or a file opened for appending)."""
    path = os.fspath(path)
    if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):
        return True
    for _ in range(40):  # the links from path to its file, each in its real folder (as the kernel goes)
        path = os.path.join(os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path))
        if path.startswith("/proc/"):
            return True
        if not os.path.islink(path):
            return False
        path = os.path.join(os.path.dirname(path), os.readlink(path))
    return False


def check_destination(path: str | os.PathLike) -> None:
    """Raise a :class:`~barley.errors.BarleyError` where ``path`` cannot take an output file: a folder,
    a file without write permission (by its mode, see the module docstring), a folder that does not exist."""
    path = os.fspath(path)
    if written_in_place(path):
        if not os.path.exists(path):  # under /proc: a name for a file some process has open, never a new one
            raise BarleyError("no such file to write to (a path under /proc names a file that a process has open)",
                              path=path, fix="write to a file elsewhere, or to - for standard output")
        return
    target = destination(path)
    if os.path.isdir(target):
        raise BarleyError("this is a folder, not a file", path=path,
                          fix=f"give a file name, e.g. {os.path.join(path, 'out')}")
    if os.path.isfile(target) and not (os.stat(target).st_mode & 0o222 and os.access(target, os.W_OK)):
        raise BarleyError(f"the file is read-only (mode {stat.filemode(os.stat(target).st_mode)})", path=path,
                          fix="write to another file, or make it writable first: chmod u+w FILE")
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise BarleyError(f"the folder {folder} does not exist", path=path,
                          fix="create it first (mkdir -p), or write elsewhere")


def check_output_folder(path: str | os.PathLike) -> None:
    """Raise a :class:`~barley.errors.BarleyError` where ``path``, a folder for outputs (made if missing), is a file."""
    target = destination(path)
    if os.path.exists(target) and not os.path.isdir(target):
        raise BarleyError("this is a file, not a folder", path=os.fspath(path),
                          fix="give a folder for the outputs; a missing one is made")


def check_output(path: str | os.PathLike | None, inputs=(), force: bool = False) -> None:
    """Check an output path before any work (stdout, ``-``, and None, no output, pass): :func:`check_destination`,
    and unless ``force``, that it is none of ``inputs`` (paths; ``-`` and None are skipped), whose content
    the output would replace: a parse written over its input loses the gold HEAD and DEPREL."""
    if path is None or os.fspath(path) == "-":
        return
    path = os.fspath(path)
    check_destination(path)
    if force or not os.path.isfile(path):  # a device (/dev/null) read and written is no loss
        return
    for source in inputs:
        if source is not None and os.fspath(source) != "-" and _same_file(path, source):
            same = "" if os.fspath(source) == path else f" {os.fspath(source)}"
            raise BarleyError(f"the output is the input file{same}: writing it would replace what it holds",
                              path=path, fix="write to another file, or add --force to replace it")


def _same_file(first: str | os.PathLike, second: str | os.PathLike) -> bool:
    try:
        return os.path.samefile(first, second)  # through symbolic and hard links
    except OSError:  # one of them does not exist (yet): not the same
        return False


def _named(directory: str, replaced: os.stat_result | None) -> tuple[int, str]:
    """A new temporary file in ``directory``, with the mode (and owner) of the file it will replace."""
    fd, temporary = tempfile.mkstemp(prefix=f"{_PREFIX}{_host()}-{os.getpid()}-", suffix=_SUFFIX, dir=directory)
    if replaced is None:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # mkstemp makes it private; the output should get the usual mode
        return fd, temporary
    if (replaced.st_uid, replaced.st_gid) != (os.geteuid(), os.getegid()):
        try:
            os.fchown(fd, replaced.st_uid, replaced.st_gid)
        except PermissionError:  # only root gives files away: the new file is ours, as with `cp`
            pass
    os.fchmod(fd, stat.S_IMODE(replaced.st_mode))  # after chown, which would clear set-id bits
    return fd, temporary


@contextmanager
def atomic_output(path: str | os.PathLike, flush_to_disk: bool = True) -> Iterator[IO[bytes]]:
    """Yield a binary handle whose bytes replace ``path`` only if the block completes.

    ``flush_to_disk=False`` leaves out the wait for the disk (``fsync``) before the
    rename: only for files whose content is checked before it is used (a Dask shard's
    output, checked against its record's size and SHA-256, and the record, checked
    as JSON), where a crash can leave nothing worse than a file the next run rewrites.

    A symbolic link is written through; the mode of a replaced file is kept (see the
    module docstring).

    Errors: ``path`` a folder or a read-only file (:func:`check_destination`), a
    directory that cannot be written to, or a disk that fills up, raise a
    :class:`~barley.errors.BarleyError` naming ``path``; any exception (including
    KeyboardInterrupt) discards what was written and leaves ``path`` as it was.
    """
    path = os.fspath(path)
    if written_in_place(path):
        # appending: a descriptor's file was emptied by `>` when it was opened, or is meant to grow (`>>`)
        try:
            handle = open(path, "ab")
        except OSError as error:
            raise BarleyError(f"cannot write here: {error.strerror}", path=path,
                              fix="write to a file elsewhere, or to - for standard output") from None
        with handle:
            yield handle
        return
    check_destination(path)
    target = destination(path)
    directory = os.path.dirname(os.path.abspath(target))
    sweep(directory)
    try:
        fd, temporary = _named(directory, os.stat(target) if os.path.isfile(target) else None)
    except OSError as error:
        raise BarleyError(f"cannot write here: {error.strerror}", path=path,
                          fix="check that the directory exists and is writable") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            if flush_to_disk:
                os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException as error:
        if os.path.exists(temporary):
            os.unlink(temporary)
        if isinstance(error, OSError) and error.errno in DISK_ERRORS:
            raise disk_error(error, path) from None
        raise
