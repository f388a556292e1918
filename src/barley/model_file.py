"""Model files: one zip holding ``manifest.json`` and ``arrays.npz``; never pickle.

Loading a model never runs code: the manifest is JSON and the arrays are read
with ``np.load(..., allow_pickle=False)``, so an object array (a pickle payload)
is refused. Files are written atomically and byte-for-byte reproducibly (fixed
member timestamps, sorted keys), so the same training gives the same file.
"""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np

from barley.atomic import atomic_output
from barley.errors import ModelError

DAMAGE = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError)
"""What building a parser from a damaged or hand-edited manifest raises; loaders turn it into a ModelError."""
FORMAT = "barley-model"
FORMAT_VERSION = 1
_EPOCH = (1980, 1, 1, 0, 0, 0)


def _member(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    return info


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
            archive.writestr(_member(f"{name}.npy"), member.getvalue())
    return buffer.getvalue()


def write(path: str | os.PathLike, manifest: dict, arrays: dict[str, np.ndarray]) -> None:
    """Write a model file atomically (see :mod:`barley.atomic`): the previous file stays until it is complete."""
    path = os.fspath(path)
    manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, **manifest}
    text = json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False)
    with atomic_output(path) as handle, zipfile.ZipFile(handle, "w") as archive:
        archive.writestr(_member("manifest.json"), text.encode("utf-8"))
        archive.writestr(_member("arrays.npz"), _npz_bytes(arrays))


def read_manifest(path: str | os.PathLike) -> dict:
    """Only the manifest (for ``barley info``); checks the format."""
    return read(path, arrays=False)[0]


def read(path: str | os.PathLike, arrays: bool = True) -> tuple[dict, dict[str, np.ndarray]]:
    """The manifest and the arrays of a model file; any problem is a :class:`ModelError`."""
    path = os.fspath(path)
    try:
        with zipfile.ZipFile(path) as archive:
            manifest = json.loads(archive.read("manifest.json").decode("utf-8"))
            payload = archive.read("arrays.npz") if arrays else None
    except FileNotFoundError:
        raise ModelError("model file not found", path=path) from None
    except (zipfile.BadZipFile, KeyError, UnicodeDecodeError, json.JSONDecodeError, OSError, EOFError) as error:
        raise ModelError(f"not a barley model file or damaged ({error})", path=path,
                         fix="train the model again with `barley train`") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ModelError("not a barley model file (its manifest is not a barley manifest)", path=path)
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ModelError(f"model format version {manifest.get('format_version')} was written by barley "
                         f"{manifest.get('barley_version', '?')}; this barley reads version {FORMAT_VERSION}",
                         path=path, fix="retrain the model with this version of barley")
    if payload is None:
        return manifest, {}
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as npz:
            loaded = {name: npz[name] for name in npz.files}
    except ValueError as error:
        if "allow_pickle" in str(error) or "Object arrays" in str(error):
            raise ModelError("model file carries a pickled object array; barley never loads pickles",
                             path=path, fix="only use model files written by barley") from None
        raise ModelError(f"damaged arrays in model file ({error})", path=path) from None
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise ModelError(f"damaged arrays in model file ({error})", path=path) from None
    return manifest, loaded
