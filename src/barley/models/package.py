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
the entry point, without importing anything (:mod:`barley.models.catalog`). The model is loaded by
the normal loader before it is packaged, so a package never holds a model barley refuses.
The wheel is written atomically, byte for byte the same for the same inputs.

What goes into ``METADATA`` comes partly from the model's manifest (its licence, the barley
version that wrote it), which may come from anyone: every value must be printable
(``str.isprintable``: no line break, control or format character) without a space at either
end, and the written ``METADATA``, read back as pip and :mod:`importlib.metadata` read it
(:mod:`email`), must give exactly the fields and values meant, or no wheel is written. The
name may not be a language code's (:data:`barley.models.catalog.LANGUAGE_CODE`: ``-m en`` names the
English model, never a package); the licence's text is read up to :data:`MAX_LICENCE_BYTES`.
"""

from __future__ import annotations

import base64
import email
import hashlib
import io
import os
import re
import tempfile
import zipfile
from pathlib import Path

from barley import __version__
from barley.atomic import atomic_output, check_output_folder
from barley.conllu import read_text
from barley.errors import BarleyError
from barley.models import archive
from barley.models.catalog import ENTRY_POINTS, LANGUAGE_CODE, MODEL_FILE, NAME, language_code, language_name
from barley.models.shipped import MODELS_DIR, shipped_models

_EPOCH = (1980, 1, 1, 0, 0, 0)
MAX_LICENCE_BYTES = 1 << 20
"""The longest licence text packaged (the GPL 3.0's is 35 KB; the shipped models' CC BY-SA 4.0, 20 KB):
a longer file, or one that never ends (``/dev/zero``), is refused after reading this much."""


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
    if LANGUAGE_CODE.match(name):
        raise BarleyError(f"--name {name!r} is a language code, which names the model of that language "
                          f"(barley parse -m {name})", fix=f"choose a longer name, e.g. {name}_mytreebank")
    if name in dict(shipped_models()):
        raise BarleyError(f"--name {name!r} is the name of a model that ships with barley", fix="choose another name")
    return name


def _checked_version(version, what: str = "--version") -> str:
    from packaging.version import InvalidVersion, Version

    try:
        return str(Version(version))
    except (InvalidVersion, TypeError):
        raise BarleyError(f"{what} {version!r} is not a version number", fix="e.g. 1.0.0") from None


def _checked_language(language: str) -> str:
    if not LANGUAGE_CODE.match(language):
        raise BarleyError(f"--language {language!r} is not a language code",
                          fix="give its ISO 639 code, two or three lower-case letters as UD writes it, e.g. en")
    return language


def _licence_text(path: str) -> str:
    """The licence file's text: UTF-8, at most :data:`MAX_LICENCE_BYTES` (never more is read)."""
    return read_text(path, MAX_LICENCE_BYTES)


def model_card(name: str, version: str, manifest: dict, licence: str) -> str:
    """The model card (Markdown): what the model is, its training data and options (as ``barley info``
    prints them), its scores and speed as its manifest records them, and its licence."""
    from barley.pipeline import component_names
    from barley.pipeline.describe import describe

    package = manifest["package"]
    reads_text = "tokenize" in component_names(manifest)
    named = (manifest.get("shipped") or {}).get("language") or language_name(manifest)
    language = " ".join(part for part in (named, package.get("language") and f"({package['language']})") if part)
    lines = [f"# {name} {version}", "",
             f"A barley model (language: {language or 'not stated'}; licence: {licence}), "
             f"for barley {package['barley_versions']}.", "",
             "```", f"pip install --no-index {name}-{version}-py3-none-any.whl",
             f"barley parse -m {name} input.txt" if reads_text else f"barley parse -m {name} input.conllu",
             "```", "", "It reads " + ("plain text (and CoNLL-U)." if reads_text else
                                       "tokenized sentences in CoNLL-U: it has no tokenizer."), ""]
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
              "## Training data and options (`barley info`)", "", "```", describe(_file_names(manifest)), "```", ""]
    return "\n".join(lines)


def _file_names(record):
    """A manifest with the files it was trained and calibrated on named by their file names alone: a card is
    published, and the folders of the machine that trained it are nobody's business (``data``, ``dev``)."""
    if isinstance(record, dict):
        return {key: os.path.basename(value) if key in ("data", "dev") and isinstance(value, str) else
                _file_names(value) for key, value in record.items()}
    return record


def build(model: str, name: str, out_dir: str, *, version: str = "1.0.0", licence: str | None = None,
          licence_file: str | None = None, language: str | None = None) -> str:
    """Write the wheel of ``model`` (a path or a model's name) in ``out_dir``; returns its path.

    ``licence``: the licence's name (default: the one the manifest states, ``shipped.licence``);
    ``licence_file``: its text (default: the shipped models' ``LICENSE.txt`` for a shipped model);
    ``language``: the language's code (default: read from the manifest, :func:`barley.models.catalog.language_code`).
    """
    from barley.models.catalog import resolve
    from barley.pipeline import Pipeline

    name, version = _checked_name(name), _checked_version(version)
    language = language and _checked_language(language)
    licence = _metadata_value("--licence", licence)
    check_output_folder(out_dir)
    path = resolve(model)
    manifest, arrays = archive.read(path)
    Pipeline.from_model(manifest, arrays, path)  # validated as any model is, by the loader
    shipped = manifest.get("shipped")
    stated = shipped.get("licence") if isinstance(shipped, dict) else None
    licence = licence or _metadata_value("the licence the model's manifest states", stated, path)
    if not licence:
        raise BarleyError("the model's manifest states no licence", path=path,
                          fix="give it: --licence NAME (and --licence-file FILE for its text)")
    if licence_file is None and Path(path).resolve().parent == MODELS_DIR:
        licence_file = str(MODELS_DIR / "LICENSE.txt")
    licence_text = None if licence_file is None else _licence_text(licence_file)
    written_by = _checked_version(manifest.get("barley_version", __version__), "the model's barley_version")
    manifest["package"] = {"name": name, "version": version, "licence": licence,
                           "language": language or language_code(manifest),
                           "barley_versions": compatible_versions(written_by)}
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
    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as error:
        raise BarleyError(f"cannot make the folder: {error.strerror}", path=out_dir,
                          fix="write the wheel to a folder that exists or can be made") from None
    with atomic_output(wheel) as handle:
        handle.write(_wheel_bytes(files, f"{info}/RECORD"))
    return wheel


def _model_bytes(manifest: dict, arrays: dict) -> bytes:
    """The model file of ``manifest`` and ``arrays``, as :func:`barley.models.archive.write` writes it."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, MODEL_FILE)
        archive.write(path, manifest, arrays)
        with open(path, "rb") as handle:
            return handle.read()


def _metadata_value(what: str, value, path: str | None = None):
    """``value`` (``what``, for the message) if it can be a METADATA field's value: a printable string
    (``str.isprintable``) with no space at either end; None passes (a value not given)."""
    if value is None:
        return None
    if not isinstance(value, str) or not value or not value.isprintable() or value != value.strip():
        raise BarleyError(f"{what} {value!r} cannot go into the package's metadata: it is empty, or holds a line "
                          f"break, a control or format character, or a space at either end", path=path,
                          fix="give a licence's name in printable characters: --licence NAME")
    return value


def _metadata(name: str, version: str, licence: str, barley_versions: str, card: str) -> bytes:
    """Core metadata (version 2.1): what pip shows, and the barley versions as a requirement; refused unless
    it reads back (with :mod:`email`, as pip and :mod:`importlib.metadata` read it) as exactly these fields."""
    fields = [("Metadata-Version", "2.1"), ("Name", name), ("Version", version), ("Summary", f"barley model {name}"),
              ("License", licence), ("Requires-Dist", f"barley{barley_versions}"),
              ("Description-Content-Type", "text/markdown")]
    for field, value in fields:
        _metadata_value(f"the {field}", value)
    text = "".join(f"{field}: {value}\n" for field, value in fields) + f"\n{card}"
    read_back = email.message_from_string(text)
    if read_back.items() != fields or read_back.get_payload() != card:
        raise BarleyError("the package's metadata would not read back as written (a value holds a line break "
                          "that email's parser sees)", fix="give a licence's name in printable characters")
    return text.encode("utf-8")


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def _wheel_bytes(files: dict[str, bytes], record: str) -> bytes:
    """The wheel: the files, then RECORD (each file's hash and size; its own line has neither)."""
    lines = [_record_line(path, data) for path, data in files.items()] + [f"{record},,"]
    files = {**files, record: ("\n".join(lines) + "\n").encode()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for path, data in files.items():
            member = zipfile.ZipInfo(path, date_time=_EPOCH)
            # the model stays stored as it is (its raw arrays are memory-mapped once installed)
            member.compress_type = zipfile.ZIP_STORED if path.endswith(MODEL_FILE) else zipfile.ZIP_DEFLATED
            member.external_attr = 0o644 << 16
            zipped.writestr(member, data)
    return buffer.getvalue()
