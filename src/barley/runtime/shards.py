"""The shards of a corpus parsed on a Dask cluster (:mod:`barley.runtime.distributed`): the input files a
pattern names, and each file cut into runs of whole sentences of about ``shard_bytes``, each a task."""

from __future__ import annotations

import dataclasses
import glob
import hashlib
import os
from collections.abc import Iterable

from barley.errors import BarleyError
from barley.runtime.blocks import BLOCK_BYTES, blocks, first_line_end

SHARD_BYTES = 64 << 20
"""About this many bytes of input per shard: ≈ 0.9 million words of UD CoNLL-U, about half a minute of one core."""
SHARDS_PER_THREAD = 8
"""By default shards are made small enough for this many per worker thread (down to 1 MB): the last
round, when some workers are idle while the others finish their shards, stays short."""


@dataclasses.dataclass(frozen=True)
class Shard:
    """Bytes ``start:end`` of ``source`` (whole sentences), beginning at line ``first_line``."""

    source: str
    start: int
    end: int | None  # None: to the end (a .gz file is read whole)
    first_line: int
    newline: str | None  # the file's line end, for a shard that is not its beginning
    output: str
    index: int
    count: int


def expand(patterns: Iterable[str]) -> list[str]:
    """The files matched by glob patterns (``**`` spans directories), sorted, each once."""
    files: dict[str, None] = {}
    for pattern in patterns:
        matches = sorted(glob.glob(pattern, recursive=True)) if glob.has_magic(pattern) else [pattern]
        for match in matches:
            if os.path.isfile(match):
                files[match] = None
        if not matches:
            raise BarleyError(f"no file matches {pattern!r}", fix="check the pattern; quote it so the shell "
                                                                  "leaves ** to barley")
    return list(files)


def sha256_file(path: str | os.PathLike) -> str:
    hasher = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def shard_size(inputs: list[str], threads: int) -> int:
    """The default shard size: :data:`SHARD_BYTES`, halved until the inputs make :data:`SHARDS_PER_THREAD`
    shards per worker thread (1 MB at least). Powers of two, so the same inputs on a cluster of about
    the same size are cut the same way and a rerun finds its shards (give ``shard_bytes`` to fix them)."""
    total = sum(os.path.getsize(path) for path in inputs if os.path.isfile(path))
    size = SHARD_BYTES
    while size > 1 << 20 and total < SHARDS_PER_THREAD * max(1, threads) * size:
        size //= 2
    return size


def plan(inputs: list[str], out_dir: str | os.PathLike, shard_bytes: int = SHARD_BYTES) -> dict[str, list[Shard]]:
    """The shards of every input, by output file; outputs mirror the inputs' paths below their common folder."""
    if not inputs:
        raise BarleyError("no input files", fix="name files or a glob pattern such as 'corpus/**/*.conllu'")
    base = os.path.commonpath([os.path.dirname(os.path.abspath(path)) for path in inputs])
    outside = os.path.abspath(out_dir)
    for source in inputs:
        if os.path.commonpath([outside, os.path.abspath(source)]) == outside:
            raise BarleyError(f"the input {source} is inside the output folder {out_dir}", path=source,
                              fix="choose an --out-dir outside the inputs' folders (outputs would be read as inputs)")
    shards: dict[str, list[Shard]] = {}
    for source in inputs:
        output = os.path.join(os.fspath(out_dir), os.path.relpath(os.path.abspath(source), base))
        if output in shards:
            raise BarleyError(f"two inputs would be written to {output}", path=source)
        shards[output] = _cut(source, output, shard_bytes)
    return shards


def _cut(source: str, output: str, shard_bytes: int) -> list[Shard]:
    """Cut one file into shards of whole sentences: runs of :func:`barley.runtime.blocks.blocks` of at least
    ``shard_bytes`` together (a quarter of it in the file's last eighth), the blocks' line numbers
    going with them, so errors name the file's line."""
    try:
        size = os.path.getsize(source)
    except OSError as error:
        raise BarleyError(f"cannot read the file: {error.strerror}", path=source) from None
    if source.endswith(".gz") or size <= shard_bytes:
        return [Shard(source, 0, None, 1, None, output, 0, 1)]
    cuts = [0]
    lines = [1]
    newline = None
    position = 0
    tail = size - size // 8  # the last eighth in quarter shards: the last round, with workers idle, is short
    with open(source, "rb") as handle:
        for block in blocks(handle, max(1, min(BLOCK_BYTES, shard_bytes // 16)), name=source):  # overshoots by a block
            newline = newline or first_line_end(block.data)
            position += len(block.data)
            if position - cuts[-1] >= (shard_bytes if cuts[-1] < tail else shard_bytes // 4) and position < size:
                cuts.append(position)
                lines.append(block.first_line + block.data.count(b"\n"))
    count = len(cuts)
    ends = cuts[1:] + [None]
    return [Shard(source, start, end, first, None if index == 0 else newline,
                  output if count == 1 else f"{output}.shard-{index:05d}-of-{count:05d}", index, count)
            for index, (start, end, first) in enumerate(zip(cuts, ends, lines))]


# --- on the workers ------------------------------------------------------------------------
