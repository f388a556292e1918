"""repacked_as_before, a model file as written before arrays were mapped: for test_model_file and test_startup."""

from __future__ import annotations

import io
import zipfile

from barley.models import archive


def repacked_as_before(path, old_path):
    """The model file as barley wrote it before arrays were mapped: every member deflated."""
    with zipfile.ZipFile(path) as zipped:
        manifest, npz = zipped.read("manifest.json"), zipped.read("arrays.npz")
    inner = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(npz)) as source, zipfile.ZipFile(inner, "w") as target:
        for info in source.infolist():
            target.writestr(archive._member(info.filename), source.read(info))
    with zipfile.ZipFile(old_path, "w") as zipped:
        zipped.writestr(archive._member("manifest.json"), manifest)
        zipped.writestr(archive._member("arrays.npz"), inner.getvalue())
