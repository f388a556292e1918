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
