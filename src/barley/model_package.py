"""Model packages: a model, its licence and its model card in a wheel that pip installs.

``barley package MODEL --name NAME -o DIR`` writes ``DIR/NAME-VERSION-py3-none-any.whl``,
a wheel as the binary distribution format specifies it (PEP 427; the packaging guide's
"Binary distribution format"), with no code in it::

    NAME/model.barley               the model, its manifest extended with ``package``
    NAME/LICENSE                    the licence's text (when there is one)
    NAME/README.md                  the model card
    NAME-VERSION.dist-info/METADATA     name, version, licence, Requires-Dist: barley (the
                                        versions it works with), the model card as description
    NAME-VERSION.dist-info/WHEEL
    NAME-VERSION.dist-info/entry_points.txt   [barley_models] NAME = NAME
    NAME-VERSION.dist-info/RECORD

Installed (``pip install --no-index NAME-….whl``), the model is found by its name through
the entry point, without importing anything (:mod:`barley.catalog`). The model is loaded by
the normal loader before it is packaged, so a package never holds a model barley refuses.
The wheel is written atomically, byte for byte the same for the same inputs.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tempfile
import zipfile
from pathlib import Path

from barley import __version__, model_file
from barley.atomic import atomic_output
from barley.catalog import ENTRY_POINTS, MODEL_FILE, language_code
from barley.errors import BarleyError
from barley.shipped import MODELS_DIR, shipped_models

NAME = re.compile(r"^[a-z][a-z0-9_]*$")
"""A package's name: a Python package name in lower case (it is also the model's name)."""
_EPOCH = (1980, 1, 1, 0, 0, 0)


def compatible_versions(written_by: str) -> str:
    """The barley versions a package states it works with: from the version that wrote its model up
    to the next minor version (0.x) or major version (1.x and later), where the model format may change."""
    parts = [int(part) for part in re.findall(r"\d+", written_by)[:3]] + [0, 0]
    major, minor = parts[0], parts[1]
    below = f"{major}.{minor + 1}" if major == 0 else f"{major + 1}.0"
    return f">={written_by},<{below}"


def _checked_name(name: str) -> str:
    if not NAME.match(name):
        raise BarleyError(f"--name {name!r} is not a package name",
                          fix="use lower-case letters, digits and _, starting with a letter (e.g. en_mytreebank)")
    if name in dict(shipped_models()):
        raise BarleyError(f"--name {name!r} is the name of a model that ships with barley", fix="choose another name")
    return name


def _checked_version(version: str) -> str:
    from packaging.version import InvalidVersion, Version

    try:
        return str(Version(version))
    except InvalidVersion:
        raise BarleyError(f"--version {version!r} is not a version number", fix="e.g. 1.0.0") from None


def model_card(name: str, version: str, manifest: dict, licence: str) -> str:
    """The model card (Markdown): what the model is, its training data and options (as ``barley info``
    prints them), its scores and speed as its manifest records them, and its licence."""
    from barley.pipeline.describe import describe

    package = manifest["package"]
    lines = [f"# {name} {version}", "",
             f"A barley model (language: {package.get('language') or 'not stated'}; licence: {licence}), "
             f"for barley {package['barley_versions']}.", "",
             "```", f"pip install --no-index {name}-{version}-py3-none-any.whl",
             f"barley parse -m {name} input.txt", "```", ""]
    shipped = manifest.get("shipped")
    if shipped:
        lines += [f"Trained on {shipped.get('treebank')} {shipped.get('treebank_version')} "
                  f"({shipped.get('language')}).", ""]
    scores = {"test, raw text (CoNLL 2018 F1)": manifest.get("test_raw_text"),
              "dev, gold tokenization": manifest.get("dev")}
    lines += ["## Scores and speed", ""]
    recorded = {what: values for what, values in scores.items() if values}
    lines += [f"- {what}: " + ", ".join(f"{key} {value}" for key, value in values.items())
              for what, values in recorded.items()] or ["- none recorded in the model's manifest"]
    speeds = [f"{values['words_per_second']} words/s ({what})" for what, values in recorded.items()
              if "words_per_second" in values]
    lines += ["- speed: " + ("; ".join(speeds) if speeds else "not recorded in the model's manifest"), "",
              "## Training data and options (`barley info`)", "", "```", describe(manifest), "```", ""]
    return "\n".join(lines)


def build(model: str, name: str, out_dir: str, *, version: str = "1.0.0", licence: str | None = None,
          licence_file: str | None = None, language: str | None = None) -> str:
    """Write the wheel of ``model`` (a path or a model's name) in ``out_dir``; returns its path.

    ``licence``: the licence's name (default: the one the manifest states, ``shipped.licence``);
    ``licence_file``: its text (default: the shipped models' ``LICENSE.txt`` for a shipped model);
    ``language``: the language's code (default: read from the manifest, :func:`barley.catalog.language_code`).
    """
    from barley.catalog import resolve
    from barley.pipeline import Pipeline

    name, version = _checked_name(name), _checked_version(version)
    path = resolve(model)
    manifest, arrays = model_file.read(path)
    Pipeline.from_model(manifest, arrays, path)  # validated as any model is, by the loader
    licence = licence or manifest.get("shipped", {}).get("licence")
    if not licence:
        raise BarleyError("the model's manifest states no licence", path=path,
                          fix="give it: --licence NAME (and --licence-file FILE for its text)")
    if licence_file is None and Path(path).resolve().parent == MODELS_DIR:
        licence_file = str(MODELS_DIR / "LICENSE.txt")
    licence_text = None
    if licence_file is not None:
        try:
            with open(licence_file, encoding="utf-8") as handle:
                licence_text = handle.read()
        except (OSError, UnicodeDecodeError) as error:
            raise BarleyError(f"cannot read the licence file ({error})", path=licence_file) from None
    manifest["package"] = {"name": name, "version": version, "licence": licence,
                           "language": language or language_code(manifest),
                           "barley_versions": compatible_versions(manifest.get("barley_version", __version__))}
    card = model_card(name, version, manifest, licence)
    files = {f"{name}/{MODEL_FILE}": _model_bytes(manifest, arrays), f"{name}/README.md": card.encode("utf-8")}
    if licence_text is not None:
        files[f"{name}/LICENSE"] = licence_text.encode("utf-8")
    info = f"{name}-{version}.dist-info"
    files[f"{info}/METADATA"] = _metadata(name, version, licence, manifest["package"]["barley_versions"], card)
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: barley {__version__}\nRoot-Is-Purelib: true\n"
                              f"Tag: py3-none-any\n").encode()
    files[f"{info}/entry_points.txt"] = f"[{ENTRY_POINTS}]\n{name} = {name}\n".encode()
    wheel = os.path.join(out_dir, f"{name}-{version}-py3-none-any.whl")
    os.makedirs(out_dir, exist_ok=True)
    with atomic_output(wheel) as handle:
        handle.write(_wheel_bytes(files, f"{info}/RECORD"))
    return wheel


def _model_bytes(manifest: dict, arrays: dict) -> bytes:
    """The model file of ``manifest`` and ``arrays``, as :func:`barley.model_file.write` writes it."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, MODEL_FILE)
        model_file.write(path, manifest, arrays)
        with open(path, "rb") as handle:
            return handle.read()


def _metadata(name: str, version: str, licence: str, barley_versions: str, card: str) -> bytes:
    """Core metadata (version 2.1): what pip shows, and the barley versions as a requirement."""
    return (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            f"Summary: barley model {name}\nLicense: {licence}\n"
            f"Requires-Dist: barley{barley_versions}\nDescription-Content-Type: text/markdown\n\n{card}").encode("utf-8")


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def _wheel_bytes(files: dict[str, bytes], record: str) -> bytes:
    """The wheel: the files, then RECORD (each file's hash and size; its own line has neither)."""
    lines = [_record_line(path, data) for path, data in files.items()] + [f"{record},,"]
    files = {**files, record: ("\n".join(lines) + "\n").encode()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in files.items():
            member = zipfile.ZipInfo(path, date_time=_EPOCH)
            # the model stays stored as it is (its raw arrays are memory-mapped once installed)
            member.compress_type = zipfile.ZIP_STORED if path.endswith(MODEL_FILE) else zipfile.ZIP_DEFLATED
            member.external_attr = 0o644 << 16
            archive.writestr(member, data)
    return buffer.getvalue()
