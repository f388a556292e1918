"""Model files: JSON manifest + npz arrays in one zip, no pickle, clear errors, atomic."""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pytest
from old_model_files import repacked_as_before

from barley.errors import ModelError
from barley.models import archive


def _write(path, manifest=None, arrays=None):
    archive.write(path, manifest or {"barley_version": "0.1.0", "system": {"name": "arc-eager"}},
                     arrays or {"weights": np.arange(6, dtype=np.float32).reshape(2, 3),
                                "keys": np.array([3, 1, 4], dtype=np.int64)})


def test_round_trip(tmp_path):
    path = tmp_path / "m.barley"
    _write(path)
    manifest, arrays = archive.read(path)
    assert manifest["system"] == {"name": "arc-eager"} and manifest["format_version"] == archive.FORMAT_VERSION
    assert arrays["weights"].dtype == np.float32 and arrays["weights"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert arrays["keys"].tolist() == [3, 1, 4]
    assert archive.read_manifest(path)["system"]["name"] == "arc-eager"
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
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr("manifest.json", json.dumps({"format": archive.FORMAT,
                                                      "format_version": archive.FORMAT_VERSION}))
        zipped.writestr("arrays.npz", npz.getvalue())
    with pytest.raises(ModelError, match="pickled object array; barley never loads pickles"):
        archive.read(path)


def test_damaged_and_foreign_files_fail_clearly(tmp_path):
    path = tmp_path / "m.barley"
    _write(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelError, match="damaged"):
        archive.read(path)
    path.write_text("hello")
    with pytest.raises(ModelError, match="not a barley model file"):
        archive.read(path)
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr("manifest.json", json.dumps({"format": "something-else"}))
    with pytest.raises(ModelError, match="not a barley model file"):
        archive.read(path)
    with pytest.raises(ModelError, match="not found"):
        archive.read(tmp_path / "absent.barley")


def test_a_model_from_an_incompatible_version_fails_with_the_versions(tmp_path):
    path = tmp_path / "m.barley"
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr("manifest.json", json.dumps({"format": archive.FORMAT, "format_version": 99,
                                                      "barley_version": "9.0"}))
        zipped.writestr("arrays.npz", b"")
    with pytest.raises(ModelError, match="version 99 was written by barley 9.0"):
        archive.read(path)


def test_incompressible_arrays_are_mapped_and_the_rest_decompressed(tmp_path):
    path = tmp_path / "m.barley"
    weights = np.random.default_rng(1).standard_normal((300, 7)).astype(np.float32)
    fortran = np.asfortranarray(np.random.default_rng(2).standard_normal((5, 4)))
    keys = np.arange(10_000, dtype=np.int64)
    _write(path, arrays={"weights": weights, "keys": keys, "fortran": fortran, "empty": np.zeros((0, 3))})
    with zipfile.ZipFile(path) as zipped:
        assert zipped.getinfo("arrays.npz").compress_type == zipfile.ZIP_STORED
        with zipfile.ZipFile(io.BytesIO(zipped.read("arrays.npz"))) as npz:
            kinds = {info.filename: info.compress_type for info in npz.infolist()}
    assert kinds["weights.npy"] == zipfile.ZIP_STORED and kinds["keys.npy"] == zipfile.ZIP_DEFLATED
    _, arrays = archive.read(path)
    assert np.array_equal(arrays["weights"], weights) and np.array_equal(arrays["keys"], keys)
    assert np.array_equal(arrays["fortran"], fortran) and arrays["empty"].shape == (0, 3)
    mapped = arrays["weights"]
    assert not mapped.flags.writeable and not mapped.flags.owndata  # a read-only view of the mapped file
    assert arrays["keys"].flags.writeable


def test_model_files_of_earlier_versions_give_the_same_arrays(tmp_path):
    path, old = tmp_path / "m.barley", tmp_path / "old.barley"
    weights = np.random.default_rng(1).standard_normal((300, 7)).astype(np.float32)
    _write(path, arrays={"weights": weights, "keys": np.arange(100, dtype=np.int64)})
    repacked_as_before(path, old)
    manifest, arrays = archive.read(path)
    old_manifest, old_arrays = archive.read(old)
    assert manifest == old_manifest and sorted(arrays) == sorted(old_arrays)
    for name in arrays:
        assert arrays[name].dtype == old_arrays[name].dtype and np.array_equal(arrays[name], old_arrays[name])
    assert old_arrays["weights"].flags.writeable  # read into memory, as before


def test_a_mapped_array_cut_short_is_damage(tmp_path):
    path = tmp_path / "m.barley"
    _write(path, arrays={"weights": np.random.default_rng(1).standard_normal(5000).astype(np.float32)})
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as zipped:
        npz_start = archive._data_offset(open(path, "rb"), zipped.getinfo("arrays.npz").header_offset)
    # the .npy header claims more data than there is: patch its shape
    header_at = data.index(b"'shape': (5000,)", npz_start)
    data[header_at:header_at + 16] = b"'shape': (9000,)"
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="damaged"):
        archive.read(path)


def test_a_flipped_bit_in_a_mapped_array_is_damage(tmp_path):
    path = tmp_path / "m.barley"
    weights = np.random.default_rng(1).standard_normal(5000).astype(np.float32)
    _write(path, arrays={"weights": weights})
    data = bytearray(path.read_bytes())
    data[data.index(weights[2500].tobytes())] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="damaged.*CRC"):
        archive.read(path)


# --- bounded loading (issue 37, item 6) -----------------------------------------------------------

def _parts(path) -> tuple[dict, dict[str, tuple[zipfile.ZipInfo, bytes]]]:
    """The manifest (as the file holds it, declaration included) and the members of arrays.npz."""
    with zipfile.ZipFile(path) as zipped:
        manifest = json.loads(zipped.read("manifest.json"))
        npz = zipped.read("arrays.npz")
    with zipfile.ZipFile(io.BytesIO(npz)) as members:
        return manifest, {info.filename: (info, members.read(info)) for info in members.infolist()}


def _packed(path, manifest: dict, members: dict[str, tuple[zipfile.ZipInfo, bytes]], edit=lambda npz: npz) -> None:
    """A model file of ``manifest`` and ``members``, laid out as barley writes it (``edit``: of arrays.npz's bytes)."""
    npz = io.BytesIO()
    with zipfile.ZipFile(npz, "w") as zipped:
        for info, data in members.values():
            zipped.writestr(info, data)
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr(archive._member("manifest.json"), json.dumps(manifest).encode())
        zipped.writestr(archive._member("arrays.npz", zipfile.ZIP_STORED), edit(npz.getvalue()))


def _npy(array: np.ndarray, name: str, compress_type=zipfile.ZIP_DEFLATED) -> tuple[zipfile.ZipInfo, bytes]:
    data = io.BytesIO()
    np.lib.format.write_array(data, array)
    return archive._member(f"{name}.npy", compress_type), data.getvalue()


@pytest.fixture
def headers_read(monkeypatch) -> list[str]:
    """The arrays whose .npy header is read (none, where a file is refused before any array is read)."""
    read = []
    original = archive._npy_header

    def counted(stream):
        read.append(stream)
        return original(stream)

    monkeypatch.setattr(archive, "_npy_header", counted)
    return read


def test_the_manifest_declares_the_arrays_and_read_takes_the_declaration_out(tmp_path):
    path = tmp_path / "m.barley"
    _write(path)
    manifest, members = _parts(path)
    assert manifest[archive.DECLARED] == {"keys": {"dtype": "<i8", "shape": [3]},
                                             "weights": {"dtype": "<f4", "shape": [2, 3]}}
    assert sorted(members) == ["keys.npy", "weights.npy"]
    read, _ = archive.read(path)
    assert archive.DECLARED not in read and read["system"] == {"name": "arc-eager"}
    with pytest.raises(ValueError, match="the model file's own"):
        _write(tmp_path / "again.barley", manifest={archive.DECLARED: {}})


@pytest.mark.parametrize("case, message", [
    ("an extra member", r"holds \['zeros.npy'\] that the manifest does not declare"),
    ("a missing member", r"lacks \['keys.npy'\] that the manifest declares"),
    ("a member of another name", r"holds \['other.npy'\] that the manifest does not declare"),
    ("a member twice", "holds a member twice"),
    ("a member that is no array", "one that is not an .npy array"),
    ("a declared shape larger than its member", r"fewer than its declared int64 \[1000\] need"),
    ("a declaration that is not one", "the manifest's declaration of the array 'keys' is not"),
    ("a declared object dtype", "has the dtype '\\|O', not a number type"),
    ("a declared dtype numpy would evaluate", "has the dtype '<i4,\\(', not a number type"),
    ("a declared dtype numpy does not know", "has the dtype '<f5', not a number type"),
])
def test_members_are_checked_against_the_declared_arrays_before_any_is_read(case, message, tmp_path, headers_read):
    """Issue 37 (6): an unknown member was found only after it was read (and a 3 GiB one inflated first)."""
    path = tmp_path / "m.barley"
    _write(path)
    manifest, members = _parts(path)
    declared = manifest[archive.DECLARED]
    if case == "an extra member":
        members["zeros.npy"] = _npy(np.zeros(1 << 20, dtype=np.uint8), "zeros")
    elif case == "a missing member":
        del members["keys.npy"]
    elif case == "a member of another name":
        members["other.npy"] = (archive._member("other.npy"), members.pop("keys.npy")[1])
    elif case == "a member twice":
        members["keys.npy again"] = members["keys.npy"]
    elif case == "a member that is no array":
        members["notes.txt"] = (archive._member("notes.txt"), b"hello")
    elif case == "a declared shape larger than its member":
        declared["keys"]["shape"] = [1000]
    elif case == "a declaration that is not one":
        declared["keys"] = [3]
    elif case == "a declared object dtype":
        declared["keys"]["dtype"] = "|O"
    elif case == "a declared dtype numpy would evaluate":  # found by the fuzzer: a SyntaxError from ast.literal_eval
        declared["keys"]["dtype"] = "<i4,("
    else:  # found by the fuzzer too: np.dtype("<f5") is a TypeError
        declared["keys"]["dtype"] = "<f5"
    _packed(path, manifest, members)
    with pytest.raises(ModelError, match=message) as error:
        archive.read(path)
    assert "\n" not in str(error.value) and headers_read == []


def test_an_array_whose_header_is_not_what_the_manifest_declares_is_refused(tmp_path):
    path = tmp_path / "m.barley"
    _write(path)
    manifest, members = _parts(path)
    manifest[archive.DECLARED]["keys"]["dtype"] = "<f8"  # the same size, another dtype
    _packed(path, manifest, members)
    with pytest.raises(ModelError, match=r"array keys is int64 \[3\], where the manifest declares float64 \[3\]"):
        archive.read(path)


@pytest.mark.slow
@pytest.mark.parametrize("declared", [True, False], ids=["declared", "a file of an earlier barley"])
def test_a_file_that_would_unpack_to_more_than_its_limit_is_refused_before_anything_is_read(declared, tmp_path,
                                                                                            headers_read, monkeypatch):
    """Issue 37 (6): a small file with a deflated member of zeros unpacked it all (3 GiB from 5.6 MB, 30 s)
    before refusing it; now what its directories declare is weighed against its size first (here with an
    allowance of 16 MiB, so that the test's file stays small)."""
    monkeypatch.setattr(archive, "UNPACKED_ALLOWANCE", 16 << 20)
    path = tmp_path / "m.barley"
    _write(path)
    manifest, members = _parts(path)
    members["zeros.npy"] = _npy(np.zeros(64 << 20, dtype=np.uint8), "zeros")
    if declared:
        manifest[archive.DECLARED]["zeros"] = {"dtype": "|u1", "shape": [64 << 20]}
    else:
        del manifest[archive.DECLARED]
    _packed(path, manifest, members)
    size = path.stat().st_size
    assert size < 200_000 and archive.unpacked_limit(size) < 64 << 20
    with pytest.raises(ModelError, match=rf"more than {archive.unpacked_limit(size)} \(16 times the file's size, "
                                         r"plus 16 MiB\)"):
        archive.read(path)
    assert headers_read == []


def test_a_file_of_an_earlier_barley_without_a_declaration_is_read_as_before(tmp_path):
    path = tmp_path / "m.barley"
    _write(path)
    manifest, members = _parts(path)
    del manifest[archive.DECLARED]
    _packed(path, manifest, members)
    _, arrays = archive.read(path)
    assert arrays["keys"].tolist() == [3, 1, 4] and arrays["weights"].shape == (2, 3)


def _lying(zipped: bytes, member: str, size: int) -> bytes:
    """The zip ``zipped`` with its entry ``member`` declaring ``size`` bytes unpacked (in its local header
    and in the central directory), whatever its data inflates to."""
    data = bytearray(zipped)
    name = member.encode()
    for signature, at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = 0
        while (start := data.find(signature, start)) >= 0:
            name_at = start + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at:name_at + len(name)] == name:
                data[start + at:start + at + 4] = size.to_bytes(4, "little")
            start += 4
    return bytes(data)


@pytest.mark.slow
def test_a_member_that_lies_about_its_size_is_never_inflated_beyond_it(tmp_path):
    """zipfile's one read() of a member inflates all of its data before cutting it to the declared size:
    barley reads a member a chunk at a time, so 256 MiB of data declared as 1 KB costs no more than that."""
    import tracemalloc

    path = tmp_path / "m.barley"
    text = json.dumps({"format": archive.FORMAT, "format_version": archive.FORMAT_VERSION}).encode()
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr(archive._member("manifest.json"), text + b" " * (256 << 20))
        zipped.writestr(archive._member("arrays.npz", zipfile.ZIP_STORED), b"")
    path.write_bytes(_lying(path.read_bytes(), "manifest.json", 1024))
    tracemalloc.start()
    try:
        with pytest.raises(ModelError, match="damaged.*Bad CRC-32"):
            archive.read_manifest(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, peak


@pytest.mark.slow
def test_an_npy_header_that_claims_gigabytes_is_read_a_chunk_at_a_time(tmp_path):
    """A version 2 .npy header states its own length in 4 bytes; numpy asks for all of it in one read."""
    import tracemalloc

    path = tmp_path / "m.barley"
    _write(path)
    manifest, members = _parts(path)
    header = b"\x93NUMPY\x02\x00" + (0xFFFFFFF0).to_bytes(4, "little")
    members["keys.npy"] = (archive._member("keys.npy"), header + b" " * (256 << 20))
    _packed(path, manifest, members, edit=lambda npz: _lying(npz, "keys.npy", 1 << 20))
    tracemalloc.start()
    try:
        with pytest.raises(ModelError, match="damaged"):
            archive.read(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, peak


def test_running_out_of_memory_while_reading_is_one_line(tmp_path, monkeypatch):
    path = tmp_path / "m.barley"
    _write(path, arrays={"keys": np.arange(100_000, dtype=np.int64)})  # deflated: read, not mapped

    def no_memory(*args):
        raise MemoryError

    monkeypatch.setattr(archive, "_read_data", no_memory)
    with pytest.raises(ModelError, match="not enough memory to read this model file") as error:
        archive.read(path)
    assert str(error.value).startswith(f"{path}: ") and "\n" not in str(error.value)
