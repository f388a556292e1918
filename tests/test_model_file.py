"""Model files: JSON manifest + npz arrays in one zip, no pickle, clear errors, atomic."""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pytest

from barley import model_file
from barley.errors import ModelError


def _write(path, manifest=None, arrays=None):
    model_file.write(path, manifest or {"barley_version": "0.1.0", "system": {"name": "arc-eager"}},
                     arrays or {"weights": np.arange(6, dtype=np.float32).reshape(2, 3),
                                "keys": np.array([3, 1, 4], dtype=np.int64)})


def test_round_trip(tmp_path):
    path = tmp_path / "m.barley"
    _write(path)
    manifest, arrays = model_file.read(path)
    assert manifest["system"] == {"name": "arc-eager"} and manifest["format_version"] == model_file.FORMAT_VERSION
    assert arrays["weights"].dtype == np.float32 and arrays["weights"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert arrays["keys"].tolist() == [3, 1, 4]
    assert model_file.read_manifest(path)["system"]["name"] == "arc-eager"
    assert [p.name for p in tmp_path.iterdir()] == ["m.barley"]  # no temporary file left behind


def test_the_same_content_gives_the_same_bytes(tmp_path):
    _write(tmp_path / "a")
    _write(tmp_path / "b")
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()


def test_object_arrays_are_never_written(tmp_path):
    with pytest.raises(ValueError, match="Python objects"):
        _write(tmp_path / "m", arrays={"bad": np.array([{"a": 1}], dtype=object)})


def test_a_model_carrying_a_pickle_is_refused(tmp_path):
    npz = io.BytesIO()
    np.savez(npz, weights=np.array([os.system, "payload"], dtype=object))  # a pickled object array
    path = tmp_path / "evil.barley"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", json.dumps({"format": model_file.FORMAT,
                                                      "format_version": model_file.FORMAT_VERSION}))
        archive.writestr("arrays.npz", npz.getvalue())
    with pytest.raises(ModelError, match="pickled object array; barley never loads pickles"):
        model_file.read(path)


def test_damaged_and_foreign_files_fail_clearly(tmp_path):
    path = tmp_path / "m.barley"
    _write(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="damaged"):
        model_file.read(path)
    path.write_text("hello")
    with pytest.raises(ModelError, match="not a barley model file"):
        model_file.read(path)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", json.dumps({"format": "something-else"}))
    with pytest.raises(ModelError, match="not a barley model file"):
        model_file.read(path)
    with pytest.raises(ModelError, match="not found"):
        model_file.read(tmp_path / "absent.barley")


def test_a_model_from_an_incompatible_version_fails_with_the_versions(tmp_path):
    path = tmp_path / "m.barley"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", json.dumps({"format": model_file.FORMAT, "format_version": 99,
                                                      "barley_version": "9.0"}))
        archive.writestr("arrays.npz", b"")
    with pytest.raises(ModelError, match="version 99 was written by barley 9.0"):
        model_file.read(path)


def _repacked_as_before(path, old_path):
    """The model file as barley wrote it before arrays were mapped: every member deflated."""
    with zipfile.ZipFile(path) as archive:
        manifest, npz = archive.read("manifest.json"), archive.read("arrays.npz")
    inner = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(npz)) as source, zipfile.ZipFile(inner, "w") as target:
        for info in source.infolist():
            target.writestr(model_file._member(info.filename), source.read(info))
    with zipfile.ZipFile(old_path, "w") as archive:
        archive.writestr(model_file._member("manifest.json"), manifest)
        archive.writestr(model_file._member("arrays.npz"), inner.getvalue())


def test_incompressible_arrays_are_mapped_and_the_rest_decompressed(tmp_path):
    path = tmp_path / "m.barley"
    weights = np.random.default_rng(1).standard_normal((300, 7)).astype(np.float32)
    fortran = np.asfortranarray(np.random.default_rng(2).standard_normal((5, 4)))
    keys = np.arange(10_000, dtype=np.int64)
    _write(path, arrays={"weights": weights, "keys": keys, "fortran": fortran, "empty": np.zeros((0, 3))})
    with zipfile.ZipFile(path) as archive:
        assert archive.getinfo("arrays.npz").compress_type == zipfile.ZIP_STORED
        with zipfile.ZipFile(io.BytesIO(archive.read("arrays.npz"))) as npz:
            kinds = {info.filename: info.compress_type for info in npz.infolist()}
    assert kinds["weights.npy"] == zipfile.ZIP_STORED and kinds["keys.npy"] == zipfile.ZIP_DEFLATED
    _, arrays = model_file.read(path)
    assert np.array_equal(arrays["weights"], weights) and np.array_equal(arrays["keys"], keys)
    assert np.array_equal(arrays["fortran"], fortran) and arrays["empty"].shape == (0, 3)
    mapped = arrays["weights"]
    assert not mapped.flags.writeable and not mapped.flags.owndata  # a read-only view of the mapped file
    assert arrays["keys"].flags.writeable


def test_model_files_of_earlier_versions_give_the_same_arrays(tmp_path):
    path, old = tmp_path / "m.barley", tmp_path / "old.barley"
    weights = np.random.default_rng(1).standard_normal((300, 7)).astype(np.float32)
    _write(path, arrays={"weights": weights, "keys": np.arange(100, dtype=np.int64)})
    _repacked_as_before(path, old)
    manifest, arrays = model_file.read(path)
    old_manifest, old_arrays = model_file.read(old)
    assert manifest == old_manifest and sorted(arrays) == sorted(old_arrays)
    for name in arrays:
        assert arrays[name].dtype == old_arrays[name].dtype and np.array_equal(arrays[name], old_arrays[name])
    assert old_arrays["weights"].flags.writeable  # read into memory, as before


def test_a_mapped_array_cut_short_is_damage(tmp_path):
    path = tmp_path / "m.barley"
    _write(path, arrays={"weights": np.random.default_rng(1).standard_normal(5000).astype(np.float32)})
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        npz_start = model_file._data_offset(open(path, "rb"), archive.getinfo("arrays.npz").header_offset)
    # the .npy header claims more data than there is: patch its shape
    header_at = data.index(b"'shape': (5000,)", npz_start)
    data[header_at:header_at + 16] = b"'shape': (9000,)"
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="damaged"):
        model_file.read(path)


def test_a_flipped_bit_in_a_mapped_array_is_damage(tmp_path):
    path = tmp_path / "m.barley"
    weights = np.random.default_rng(1).standard_normal(5000).astype(np.float32)
    _write(path, arrays={"weights": weights})
    data = bytearray(path.read_bytes())
    data[data.index(weights[2500].tobytes())] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="damaged.*CRC"):
        model_file.read(path)
