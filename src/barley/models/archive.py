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

Loading is bounded, whoever wrote the file. Its manifest declares its arrays (the entry
:data:`DECLARED`, written by :func:`write` from the arrays it is given, and taken out of the
manifest :func:`read` returns: each array's dtype and shape), and before any array is read
the file must hold exactly the members ``manifest.json`` and ``arrays.npz``, and
``arrays.npz`` exactly one ``NAME.npy`` for each array declared, each at least as large as
its declared dtype and shape make it (its header then must state them). Everything the file
unpacks (the manifest, every array, and ``arrays.npz`` itself where it is deflated) may
declare in all at most :func:`unpacked_limit` bytes (:data:`MAX_UNPACKED_RATIO` times the
file's size, plus :data:`UNPACKED_ALLOWANCE`), checked from the zip directories before
anything is unpacked; and nothing is ever inflated beyond the size a member declares, even
where the data would inflate to more (it is read :data:`READ_CHUNK` bytes at a time, and
:mod:`zipfile` stops at the declared size). A file written before arrays were declared is
read under the same bounds, its member names checked only for their form (``NAME.npy``)
before reading, and against its components' needs when they are built (:mod:`barley.models.check`).
Running out of memory while reading is one :class:`ModelError`, as is any damage.
"""

from __future__ import annotations

import io
import json
import math
import mmap
import os
import re
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
DECLARED = "arrays"
"""The manifest's entry that declares the arrays: ``{name: {"dtype": "<f4", "shape": [300, 7]}}``."""
DECLARED_KINDS = "biufc"
_DTYPE = re.compile(r"[<>|][biufc][0-9]{1,2}")
"""A declared dtype as numpy writes one (``np.dtype(...).str``) of a kind in :data:`DECLARED_KINDS`."""
"""The numpy dtype kinds an array may be declared of: numbers only."""
MAX_UNPACKED_RATIO = 16
"""How many times its own size a model file may unpack to, in all (plus :data:`UNPACKED_ALLOWANCE`): the
shipped pipelines unpack to 1.05 (en_ewt, its weights stored raw) and 2.15 (en_ewt_linear) times theirs."""
UNPACKED_ALLOWANCE = 256 << 20
"""Bytes a model file may unpack to beyond :data:`MAX_UNPACKED_RATIO` times its size: weights that are
mostly zeros deflate far more than 16 times (a second-order graph-based parser trained on 150 sentences:
21 MB unpacked from 66 KB), and a small model's manifest more than large ones do."""
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


def _stored(array) -> np.ndarray:
    """An array as a model file stores it: C-contiguous, at least one dimension (a scalar becomes ``[1]``)."""
    return np.ascontiguousarray(np.asarray(array))


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """An .npz (a zip of .npy members) with fixed timestamps, unlike ``np.savez``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in sorted(arrays):
            array = arrays[name]
            if array.dtype == object:
                raise ValueError(f"array {name!r} holds Python objects; model files hold numbers only")
            member = io.BytesIO()
            np.lib.format.write_array(member, array, allow_pickle=False)
            data = member.getvalue()
            archive.writestr(_member(f"{name}.npy", _compress_type(data)), data)
    return buffer.getvalue()


def unpacked_limit(file_size: int) -> int:
    """The most bytes a model file of ``file_size`` bytes may unpack to, in all (see the module's docstring)."""
    return MAX_UNPACKED_RATIO * file_size + UNPACKED_ALLOWANCE


def write(path: str | os.PathLike, manifest: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write a model file atomically (see :mod:`barley.atomic`): the previous file stays until it is complete.
    The manifest gets :data:`DECLARED`, the declaration of ``arrays``."""
    path = os.fspath(path)
    if DECLARED in manifest:
        raise ValueError(f"the manifest's entry {DECLARED!r} is the model file's own (it declares the arrays)")
    arrays = {name: _stored(array) for name, array in arrays.items()}
    declared = {name: {"dtype": array.dtype.str, "shape": list(array.shape)} for name, array in arrays.items()}
    manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, **manifest, DECLARED: declared}
    text = json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False)
    with atomic_output(path) as handle, zipfile.ZipFile(handle, "w") as archive:
        archive.writestr(_member("manifest.json"), text.encode("utf-8"))
        archive.writestr(_member("arrays.npz", zipfile.ZIP_STORED), _npz_bytes(arrays))


def read_manifest(path: str | os.PathLike) -> dict:
    """Only the manifest (for ``barley info``); checks the format."""
    return read(path, arrays=False)[0]


def interrupted(manifest: dict) -> bool:
    """Whether a model's training was stopped by a signal (Ctrl-C, SIGTERM) and the model is the best epoch kept
    so far: some training record in ``manifest`` (a component's, a fine-tuning's; or ``manifest`` itself is one)
    says ``interrupted``."""

    def said(entry: object) -> bool:
        if isinstance(entry, dict):
            return entry.get("interrupted") is True or any(said(value) for value in entry.values())
        return isinstance(entry, list) and any(said(value) for value in entry)

    return said(manifest)


def read(path: str | os.PathLike, arrays: bool = True) -> tuple[dict, dict[str, np.ndarray]]:
    """The manifest (without :data:`DECLARED`) and the arrays of a model file; any problem is a
    :class:`ModelError`, checked as the module's docstring says.

    Arrays stored raw are read-only views of the memory-mapped file (see the module's docstring).
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as handle, zipfile.ZipFile(handle) as archive:
            limit = unpacked_limit(os.fstat(handle.fileno()).st_size)
            manifest_info, npz_info = _outer_members(archive, limit)
            manifest = _read_manifest(archive, manifest_info, path)
            _check_manifest(manifest, path)
            declared = _declared(manifest.pop(DECLARED, None))
            loaded = _read_arrays(handle, archive, npz_info, declared, limit, path) if arrays else {}
    except FileNotFoundError:
        raise ModelError("model file not found", path=path) from None
    except MemoryError:
        raise ModelError("not enough memory to read this model file", path=path,
                         fix="free some memory, or load it where there is more") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, KeyError, UnicodeDecodeError, ValueError, OSError, EOFError,
            struct.error, zlib.error, NotImplementedError, RuntimeError) as error:
        # RuntimeError: an encrypted member; NotImplementedError: a compression zipfile does not know
        raise ModelError(f"not a barley model file or damaged ({type(error).__name__}: {error})", path=path,
                         fix="train the model again with `barley train`") from None
    return manifest, loaded


def _outer_members(archive: zipfile.ZipFile, limit: int) -> tuple[zipfile.ZipInfo, zipfile.ZipInfo]:
    """``manifest.json`` and ``arrays.npz``, the only members, checked (:func:`_check_member`); what they
    unpack to (the manifest, and the npz where it is deflated) at most ``limit`` bytes."""
    members = archive.infolist()
    names = sorted(info.filename for info in members)
    if names != ["arrays.npz", "manifest.json"]:
        raise zipfile.BadZipFile(f"the file holds the members {names}, not exactly manifest.json and arrays.npz")
    manifest, npz = archive.getinfo("manifest.json"), archive.getinfo("arrays.npz")
    _check_member(manifest, MAX_MANIFEST_BYTES)
    _check_member(npz)
    _check_unpacked(manifest.file_size + (npz.file_size if npz.compress_type != zipfile.ZIP_STORED else 0), limit)
    return manifest, npz


def _check_unpacked(size: int, limit: int) -> None:
    if size > limit:
        raise zipfile.BadZipFile(f"its members declare {size} bytes unpacked, more than {limit} ({MAX_UNPACKED_RATIO} "
                                 f"times the file's size, plus {UNPACKED_ALLOWANCE >> 20} MiB)")


def _unpacked(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes, read :data:`READ_CHUNK` at a time: never inflated beyond its declared size."""
    with archive.open(info) as stream:
        return _Chunked(stream).read()


class _Chunked:
    """A member's stream that asks its zip for at most :data:`READ_CHUNK` bytes a read, whatever its caller
    asks: zipfile's one ``read(n)`` inflates up to ``n`` bytes before it cuts them to the member's declared
    size (and numpy asks for as many bytes as an ``.npy`` header says it has)."""

    def __init__(self, stream: IO[bytes]):
        self.stream = stream

    def read(self, size: int = -1) -> bytes:
        parts, wanted = [], size
        while wanted != 0:
            chunk = self.stream.read(READ_CHUNK if wanted < 0 else min(READ_CHUNK, wanted))
            if not chunk:
                break
            parts.append(chunk)
            wanted -= len(chunk) if wanted > 0 else 0
        return b"".join(parts)

    def tell(self) -> int:
        return self.stream.tell()


def _read_manifest(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: str) -> dict:
    """``manifest.json``, within :data:`MAX_MANIFEST_BYTES` and :data:`MAX_MANIFEST_DEPTH`; JSON's
    NaN and Infinity are refused (no option of barley's is either)."""
    try:
        manifest = json.loads(_unpacked(archive, info).decode("utf-8"), parse_constant=_no_constant)
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


def _declared(entry) -> dict[str, tuple[np.dtype, tuple[int, ...]]] | None:
    """The arrays :data:`DECLARED` declares, by name: dtype and shape (None: a file written before)."""
    if entry is None:
        return None
    if not isinstance(entry, dict):
        raise ValueError(f"the manifest's {DECLARED!r} is not an object")
    declared = {}
    for name, array in entry.items():
        what = f"the manifest's declaration of the array {name!r}"
        if not isinstance(array, dict) or sorted(array) != ["dtype", "shape"] or not isinstance(array["dtype"], str) \
                or not isinstance(array["shape"], list):
            raise ValueError(f"{what} is not {{\"dtype\": TEXT, \"shape\": [LENGTHS]}}")
        # only the form numpy writes ('<f4', '|u1'): numpy reads other strings as Python expressions
        # ('<i4,(' raises a SyntaxError from ast.literal_eval), and nothing of a model is evaluated
        try:  # of that form, numpy knows some ('<f4') and not others ('<f5': a TypeError)
            dtype = np.dtype(array["dtype"]) if _DTYPE.fullmatch(array["dtype"]) else None
        except TypeError:
            dtype = None
        if dtype is None or dtype.str != array["dtype"] or dtype.kind not in DECLARED_KINDS:
            raise ValueError(f"{what} has the dtype {array['dtype']!r}, not a number type")
        if not all(type(length) is int and length >= 0 for length in array["shape"]):
            raise ValueError(f"{what} has the shape {array['shape']!r}, not lengths")
        declared[name] = dtype, tuple(array["shape"])
    return declared


def _inner_members(members: zipfile.ZipFile, declared, unpacked: int, limit: int) -> list[zipfile.ZipInfo]:
    """The ``.npy`` members of ``arrays.npz``, checked against what the manifest declares (see the module's
    docstring) before any is read; ``unpacked``: the bytes the file unpacks to besides them."""
    found = members.infolist()
    names = [info.filename for info in found]
    if len(set(names)) != len(names) or not all(name.endswith(".npy") for name in names):
        raise zipfile.BadZipFile("arrays.npz holds a member twice, or one that is not an .npy array")
    if declared is not None:
        extra = sorted(set(names) - {f"{name}.npy" for name in declared})
        missing = sorted({f"{name}.npy" for name in declared} - set(names))
        if extra or missing:
            raise zipfile.BadZipFile(f"arrays.npz holds {extra} that the manifest does not declare" if extra else
                                     f"arrays.npz lacks {missing} that the manifest declares")
    for info in found:
        _check_member(info)
        if declared is not None:
            dtype, shape = declared[info.filename[:-len(".npy")]]
            if math.prod(shape) * dtype.itemsize > info.file_size:
                raise zipfile.BadZipFile(f"member {info.filename} declares {info.file_size} bytes, fewer than its "
                                         f"declared {dtype} {list(shape)} need")
    _check_unpacked(unpacked + sum(info.file_size for info in found), limit)
    return found


def _read_arrays(handle: IO[bytes], archive: zipfile.ZipFile, info: zipfile.ZipInfo, declared, limit: int,
                 path: str) -> dict[str, np.ndarray]:
    """The arrays of ``arrays.npz``: raw members mapped in place when the npz itself is stored raw."""
    unpacked = archive.getinfo("manifest.json").file_size
    if info.compress_type == zipfile.ZIP_STORED:
        npz_start = _data_offset(handle, info.header_offset)
        npz = archive.open(info)
    else:  # a file of an earlier barley: the whole npz deflated
        npz_start, npz = None, io.BytesIO(_unpacked(archive, info))
        unpacked += info.file_size
    mapped = None
    loaded = {}
    try:
        with zipfile.ZipFile(npz) as members:
            for member in _inner_members(members, declared, unpacked, limit):
                name = member.filename[:-len(".npy")]
                with members.open(member) as opened:
                    stream = _Chunked(opened)
                    shape, fortran, dtype = _npy_header(stream)
                    header_size = stream.tell()
                    count = math.prod(shape)
                    if count * dtype.itemsize + header_size != member.file_size:
                        raise EOFError(f"array {name}'s header declares {shape} × {dtype.itemsize} bytes, "
                                       f"not what its member holds")
                    if declared is not None and (dtype, shape) != declared[name]:
                        raise EOFError(f"array {name} is {dtype} {list(shape)}, where the manifest declares "
                                       f"{declared[name][0]} {list(declared[name][1])}")
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


def _read_data(stream: _Chunked, shape: tuple[int, ...], fortran: bool, dtype: np.dtype) -> np.ndarray:
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


def _npy_header(stream: _Chunked) -> tuple[tuple[int, ...], bool, np.dtype]:
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
