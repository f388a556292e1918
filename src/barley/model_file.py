"""Model files: one zip holding ``manifest.json`` and ``arrays.npz``; never pickle.

Loading a model never runs code: the manifest is JSON and the arrays are ``.npy``
members read with ``allow_pickle=False``, so an object array (a pickle payload) is
refused. Files are written atomically and byte-for-byte reproducibly (fixed member
timestamps, sorted keys), so the same training gives the same file.

Loading is cheap: ``arrays.npz`` is stored in the model zip as it is (its members
carry their own compression), an array that deflate shrinks well (ids, keys) is
compressed, and one it does not (float weights) is stored raw and memory-mapped
when read: no copy and no decompression (an array used as it is costs no memory of
its own, and its pages are shared by the worker processes of ``--jobs N``). Files
written before (``arrays.npz`` deflated as a whole) are read as before, into memory.
"""

from __future__ import annotations

import io
import json
import math
import mmap
import os
import struct
import zipfile
import zlib
from typing import IO

import numpy as np

from barley.atomic import atomic_output
from barley.errors import ModelError

FORMAT = "barley-model"
FORMAT_VERSION = 1
_EPOCH = (1980, 1, 1, 0, 0, 0)
WORTH_COMPRESSING = 0.5
"""An array is deflated when that makes it at most this fraction of its size; otherwise it
is stored raw, to be memory-mapped on loading."""
MAX_MANIFEST_BYTES = 128 << 20
"""The longest manifest read (the shipped EWT pipeline's is 2.5 MB, most of it the lemmatizer's
dictionary)."""
MAX_MANIFEST_DEPTH = 32
"""The deepest nesting of lists and objects in a manifest (barley writes 8 at most)."""
DEFLATE_MAX_RATIO = 1032
"""The most that deflate can expand its input (RFC 1951: a 258-byte match in at most 2 bits):
a deflated member declaring more is damaged or crafted, and is refused before it is read."""
_COMPRESSIONS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
"""The compressions barley writes, and the only ones it reads (others can expand without bound)."""


def _member(name: str, compress_type: int = zipfile.ZIP_DEFLATED) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.compress_type = compress_type
    info.external_attr = 0o644 << 16
    return info


def _compress_type(data: bytes) -> int:
    """Deflate what deflate shrinks well; store the rest raw (see :data:`WORTH_COMPRESSING`)."""
    worth = len(zlib.compress(data)) <= WORTH_COMPRESSING * len(data)
    return zipfile.ZIP_DEFLATED if worth else zipfile.ZIP_STORED


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """An .npz (a zip of .npy members) with fixed timestamps, unlike ``np.savez``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(arrays):
            array = np.asarray(arrays[name])
            if array.dtype == object:
                raise ValueError(f"array {name!r} holds Python objects; model files hold numbers only")
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(array), allow_pickle=False)
            data = member.getvalue()
            archive.writestr(_member(f"{name}.npy", _compress_type(data)), data)
    return buffer.getvalue()


def write(path: str | os.PathLike, manifest: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write a model file atomically (see :mod:`barley.atomic`): the previous file stays until it is complete."""
    path = os.fspath(path)
    manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, **manifest}
    text = json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False)
    with atomic_output(path) as handle, zipfile.ZipFile(handle, "w") as archive:
        archive.writestr(_member("manifest.json"), text.encode("utf-8"))
        archive.writestr(_member("arrays.npz", zipfile.ZIP_STORED), _npz_bytes(arrays))


def read_manifest(path: str | os.PathLike) -> dict:
    """Only the manifest (for ``barley info``); checks the format."""
    return read(path, arrays=False)[0]


def read(path: str | os.PathLike, arrays: bool = True) -> tuple[dict, dict[str, np.ndarray]]:
    """The manifest and the arrays of a model file; any problem is a :class:`ModelError`.

    Arrays stored raw are read-only views of the memory-mapped file (see the module's docstring).
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as handle, zipfile.ZipFile(handle) as archive:
            manifest = _read_manifest(archive, path)
            _check_manifest(manifest, path)
            loaded = _read_arrays(handle, archive, path) if arrays else {}
    except FileNotFoundError:
        raise ModelError("model file not found", path=path) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, KeyError, UnicodeDecodeError, ValueError, OSError, EOFError,
            struct.error, zlib.error, NotImplementedError, RuntimeError) as error:
        # RuntimeError: an encrypted member; NotImplementedError: a compression zipfile does not know
        raise ModelError(f"not a barley model file or damaged ({type(error).__name__}: {error})", path=path,
                         fix="train the model again with `barley train`") from None
    return manifest, loaded


def _read_manifest(archive: zipfile.ZipFile, path: str) -> dict:
    """``manifest.json``, within :data:`MAX_MANIFEST_BYTES` and :data:`MAX_MANIFEST_DEPTH`; JSON's
    NaN and Infinity are refused (no option of barley's is either)."""
    info = archive.getinfo("manifest.json")
    _check_member(info, MAX_MANIFEST_BYTES)
    try:
        manifest = json.loads(archive.read(info).decode("utf-8"), parse_constant=_no_constant)
    except RecursionError:
        manifest = None
    if manifest is None or _deeper_than(manifest, MAX_MANIFEST_DEPTH):
        raise ModelError(f"the manifest nests lists or objects deeper than {MAX_MANIFEST_DEPTH}", path=path,
                         fix="use the model file as barley wrote it, or train the model again")
    return manifest


def _no_constant(name: str):
    raise ValueError(f"{name} in the manifest")


def _deeper_than(value, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests lists and objects deeper than ``limit`` (level by level,
    without recursion)."""
    level = [value] if type(value) in (dict, list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below = []
        for item in level:
            below += [child for child in (item.values() if type(item) is dict else item)
                      if type(child) in (dict, list)]
        level = below
    return False


def _check_member(info: zipfile.ZipInfo, most: int | None = None) -> None:
    """Refuse a member that barley would not write, or whose declared size its stored bytes cannot
    hold, before it is read; ``most``: the most bytes it may declare."""
    if info.compress_type not in _COMPRESSIONS:
        raise zipfile.BadZipFile(f"member {info.filename} has compression {info.compress_type}, which barley "
                                 f"never writes")
    deflated = info.compress_type == zipfile.ZIP_DEFLATED
    holds = info.compress_size * DEFLATE_MAX_RATIO + 64 if deflated else info.compress_size  # 64: block headers
    if info.file_size > holds:
        raise zipfile.BadZipFile(f"member {info.filename} declares {info.file_size} bytes, more than its "
                                 f"{info.compress_size} stored bytes can hold")
    if most is not None and info.file_size > most:
        raise zipfile.BadZipFile(f"member {info.filename} declares {info.file_size} bytes, more than {most}")


def _check_manifest(manifest, path: str) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ModelError("not a barley model file (its manifest is not a barley manifest)", path=path)
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ModelError(f"model format version {manifest.get('format_version')} was written by barley "
                         f"{manifest.get('barley_version', '?')}; this barley reads version {FORMAT_VERSION}",
                         path=path, fix="retrain the model with this version of barley")


def _read_arrays(handle: IO[bytes], archive: zipfile.ZipFile, path: str) -> dict[str, np.ndarray]:
    """The arrays of ``arrays.npz``: raw members mapped in place when the npz itself is stored raw."""
    info = archive.getinfo("arrays.npz")
    _check_member(info)
    if info.compress_type == zipfile.ZIP_STORED:
        npz_start = _data_offset(handle, info.header_offset)
        npz = archive.open(info)
    else:  # a file of an earlier barley: the whole npz deflated
        npz_start, npz = None, io.BytesIO(archive.read(info))
    mapped = None
    loaded = {}
    try:
        with zipfile.ZipFile(npz) as members:
            for member in members.infolist():
                if not member.filename.endswith(".npy"):
                    raise ValueError(f"unexpected member {member.filename!r}")
                _check_member(member)
                name = member.filename[:-len(".npy")]
                with members.open(member) as stream:
                    shape, fortran, dtype = _npy_header(stream)
                    header_size = stream.tell()
                    count = math.prod(shape)
                    if count * dtype.itemsize + header_size != member.file_size:
                        raise EOFError(f"array {name}'s header declares {shape} × {dtype.itemsize} bytes, "
                                       f"not what its member holds")
                    if npz_start is None or member.compress_type != zipfile.ZIP_STORED:
                        loaded[name] = _read_data(stream, shape, fortran, dtype)
                        continue
                if mapped is None:
                    mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
                start = npz_start + _data_offset(npz, member.header_offset) + header_size
                end = start + count * dtype.itemsize
                if end > len(mapped):
                    raise EOFError(f"array {name} does not fit its member")
                if zlib.crc32(memoryview(mapped)[start - header_size:end]) != member.CRC:
                    raise zipfile.BadZipFile(f"bad CRC-32 for array {name}")  # as zipfile checks what it reads
                array = np.frombuffer(mapped, dtype=dtype, count=count, offset=start)
                loaded[name] = array.reshape(shape, order="F" if fortran else "C")
    except ValueError as error:
        if "allow_pickle" in str(error) or "Object arrays" in str(error):
            raise ModelError("model file carries a pickled object array; barley never loads pickles",
                             path=path, fix="only use model files written by barley") from None
        raise ModelError(f"damaged arrays in model file ({error})", path=path) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, struct.error, zlib.error,
            NotImplementedError, RuntimeError, OverflowError) as error:
        raise ModelError(f"damaged arrays in model file ({error})", path=path) from None
    return loaded


READ_CHUNK = 1 << 18
"""Bytes of an array read at a time from a deflated member (into the array itself: no second copy)."""


def _read_data(stream: IO[bytes], shape: tuple[int, ...], fortran: bool, dtype: np.dtype) -> np.ndarray:
    """The array after its ``.npy`` header in ``stream`` (whose size the caller checked: reading
    allocates no more than the member holds)."""
    array = np.empty(math.prod(shape), dtype=dtype)
    raw = array.view(np.uint8) if array.nbytes else np.zeros(0, dtype=np.uint8)
    at = 0
    while at < len(raw):
        chunk = stream.read(min(READ_CHUNK, len(raw) - at))
        if not chunk:
            raise EOFError("an array cut short")
        raw[at:at + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)
        at += len(chunk)
    return array.reshape(shape, order="F" if fortran else "C")


_NPY_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def _npy_header(stream: IO[bytes]) -> tuple[tuple[int, ...], bool, np.dtype]:
    """Shape, Fortran order and dtype from an ``.npy`` header (a literal, never code); no objects."""
    version = np.lib.format.read_magic(stream)
    if version not in _NPY_HEADERS:
        raise ValueError(f"unsupported .npy format version {version}")
    shape, fortran, dtype = _NPY_HEADERS[version](stream)
    if dtype.hasobject:
        raise ValueError("Object arrays cannot be loaded when allow_pickle=False")
    if any(length < 0 for length in shape):
        raise ValueError(f"negative length in the shape {shape}")
    return shape, fortran, dtype


_LOCAL_HEADER = struct.Struct("<4s22xHH")
"""A zip member's local header: signature, ..., name length, extra field length (30 bytes)."""


def _data_offset(handle: IO[bytes], header_offset: int) -> int:
    """Where the data of the zip member whose local header is at ``header_offset`` begins."""
    handle.seek(header_offset)
    signature, name_length, extra_length = _LOCAL_HEADER.unpack(handle.read(_LOCAL_HEADER.size))
    if signature != b"PK\x03\x04":
        raise zipfile.BadZipFile("bad local file header")
    return header_offset + _LOCAL_HEADER.size + name_length + extra_length
