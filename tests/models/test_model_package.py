"""Model packages: a wheel built by ``barley package``, installed offline by pip into a fresh virtual
environment, found by name through its metadata, refused by a barley it does not state."""

from __future__ import annotations

import base64
import email
import hashlib
import json
import subprocess
import sys
import sysconfig
import venv
import warnings
import zipfile
from pathlib import Path

import pytest
import toy_language

import barley
from barley import cli
from barley.conllu import read
from barley.errors import BarleyError, BarleyWarning, ModelError
from barley.models import archive, catalog, package
from barley.models.package import build, compatible_versions
from barley.pipeline import Pipeline
from barley.service.models import model_specs

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

SOURCE = Path(__file__).resolve().parents[2] / "src"


def quiet(_message: str) -> None:
    pass


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("package")
    toy_language.treebank(folder / "train.conllu", 120, seed=1)
    toy_language.treebank(folder / "test.conllu", 10, seed=2)
    Pipeline.train(str(folder / "train.conllu"), ["tag", "parse"], jackknife=None, log=quiet).save(
        str(folder / "toy.barley"))
    (folder / "LICENSE").write_text("Toy licence: do as you like.\n")
    return folder


@pytest.fixture(scope="module")
def wheel(toy) -> Path:
    return Path(build(str(toy / "toy.barley"), "xx_toy", str(toy / "dist"), version="2.1.0",
                      licence="CC0-1.0", licence_file=str(toy / "LICENSE"), language="xx"))


def test_the_wheel_holds_the_model_its_licence_card_and_a_true_record(toy, wheel):
    assert wheel.name == "xx_toy-2.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zipped:
        files = {name: zipped.read(name) for name in zipped.namelist()}
    info = "xx_toy-2.1.0.dist-info"
    assert files["xx_toy/LICENSE"] == b"Toy licence: do as you like.\n"
    metadata = files[f"{info}/METADATA"].decode()
    assert "Name: xx_toy\nVersion: 2.1.0\n" in metadata and "License: CC0-1.0\n" in metadata
    assert f"Requires-Dist: barley{compatible_versions(barley.__version__)}\n" in metadata
    assert files[f"{info}/entry_points.txt"] == b"[barley_models]\nxx_toy = xx_toy\n"
    assert b"Root-Is-Purelib: true\nTag: py3-none-any\n" in files[f"{info}/WHEEL"]
    card = files["xx_toy/README.md"].decode()
    assert "## Scores and speed" in card and "components:  tag, parse" in card and "train.conllu" in card
    assert "barley parse -m xx_toy input.conllu" in card and "it has no tokenizer" in card  # it reads no text
    assert str(toy) not in card  # the training file by its name alone
    record = files.pop(f"{info}/RECORD").decode().splitlines()
    assert record[-1] == f"{info}/RECORD,,"
    for line in record[:-1]:
        path, digest, size = line.split(",")
        data = files.pop(path)
        assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert int(size) == len(data)
    assert files == {}  # every file recorded


def test_the_packaged_model_is_the_model_with_its_package_entry(toy, wheel, tmp_path):
    with zipfile.ZipFile(wheel) as zipped:
        (tmp_path / "inside.barley").write_bytes(zipped.read("xx_toy/model.barley"))
    inside, arrays = archive.read(tmp_path / "inside.barley")
    original, original_arrays = archive.read(toy / "toy.barley")
    assert inside.pop("package") == {"name": "xx_toy", "version": "2.1.0", "licence": "CC0-1.0", "language": "xx",
                                     "barley_versions": compatible_versions(barley.__version__)}
    assert inside == original and sorted(arrays) == sorted(original_arrays)
    assert build(str(toy / "toy.barley"), "xx_toy", str(tmp_path), version="2.1.0", licence="CC0-1.0",
                 licence_file=str(toy / "LICENSE"), language="xx") and (
        (tmp_path / wheel.name).read_bytes() == wheel.read_bytes())  # the same inputs give the same bytes


def test_bad_packaging_requests_are_one_line_errors(toy, tmp_path, capsys):
    model = str(toy / "toy.barley")
    for arguments, message in [(["--name", "Bad-Name"], "is not a package name"),
                               (["--name", "en_ewt"], "ships with barley"),
                               (["--name", "xx_toy", "--version", "one"], "is not a version number"),
                               (["--name", "xx_toy"], "states no licence")]:
        assert cli.main(["package", model, "-o", str(tmp_path), *arguments]) == 2
        error = capsys.readouterr().err
        assert message in error and error.count("\n") == 1
    damaged = tmp_path / "damaged.barley"
    damaged.write_bytes((toy / "toy.barley").read_bytes()[:5000])
    assert cli.main(["package", str(damaged), "--name", "xx_toy", "--licence", "MIT", "-o", str(tmp_path)]) == 2
    assert "damaged" in capsys.readouterr().err
    assert list(tmp_path.glob("*.whl")) == []


def test_installed_packages_are_found_by_name_without_importing_and_checked(toy, wheel, tmp_path, monkeypatch,
                                                                           capsys):
    with zipfile.ZipFile(wheel) as zipped:
        zipped.extractall(tmp_path)  # what pip does with a pure wheel
    (tmp_path / "xx_toy" / "__init__.py").write_text("raise SystemExit('imported')\n")  # finding runs no code
    monkeypatch.syspath_prepend(str(tmp_path))
    found = catalog.find("xx_toy")
    assert (found.origin, found.distribution, found.version) == ("installed", "xx_toy", "2.1.0")
    assert catalog.resolve("xx_toy") == str(tmp_path / "xx_toy" / "model.barley") == catalog.find("xx").path
    assert "xx_toy" in {model.name for model in catalog.models()}
    assert model_specs(["xx_toy", "toy=xx_toy"]) == [("xx_toy", found.path), ("toy", found.path)]  # serve -m
    assert cli.main(["info", "xx_toy"]) == 0 and "components:  tag, parse" in capsys.readouterr().out
    assert catalog.resolve(str(toy / "toy.barley")) == str(toy / "toy.barley")
    parsed = [s.to_text() for s in barley.load("xx_toy").parse(read(str(toy / "test.conllu")))]
    assert parsed == [s.to_text() for s in Pipeline.load(str(toy / "toy.barley")).parse(read(str(toy / "test.conllu")))]
    monkeypatch.setattr(catalog, "__version__", "0.9.0")
    with pytest.raises(BarleyError, match=r"xx_toy 2\.1\.0 works with barley >=.*not with this barley 0\.9\.0"):
        barley.load("xx_toy")
    with pytest.raises(BarleyError, match="no model file, model name or language code 'yy'.*xx_toy"):
        catalog.resolve("yy")


def test_a_wheel_installs_offline_into_a_fresh_environment_and_parses_by_name(toy, wheel, tmp_path):
    """pip (no index, no network) installs the wheel into a new virtual environment that has barley
    (this source tree and the test environment's packages, through a .pth file); barley there lists the
    model and parses with it by name, as the model file parses here."""
    environment = tmp_path / "env"
    venv.create(environment, with_pip=False)
    python = str(environment / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "barley_under_test.pth").write_text(f"{SOURCE}\n{sysconfig.get_paths()['purelib']}\n")
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--no-index", "--no-deps",
                                "--disable-pip-version-check", "-q", str(wheel)], capture_output=True, text=True)
    assert installed.returncode == 0, installed.stderr
    listed = subprocess.run([python, "-m", "barley", "models"], capture_output=True, text=True)
    assert "xx_toy\n  origin:      package xx_toy 2.1.0" in listed.stdout, listed.stderr
    parsed = subprocess.run([python, "-m", "barley", "parse", "-q", "-m", "xx_toy", str(toy / "test.conllu")],
                            capture_output=True, text=True)
    assert parsed.returncode == 0, parsed.stderr
    here = Pipeline.load(str(toy / "toy.barley")).parse(read(str(toy / "test.conllu")))
    assert parsed.stdout == "".join(sentence.to_text() for sentence in here)


# --- hostile inputs (issue 37, items 4, 5, 7 and 8) --------------------------------------------------

def _one_error(capsys, command: str = "package") -> str:
    error = capsys.readouterr().err
    assert error.startswith(f"barley {command}: error: ") and error.count("\n") == 1, error
    return error


def _with_manifest(source: Path, target: Path, edit) -> Path:
    """The model at ``source`` rewritten after ``edit(manifest)``: a model received from someone."""
    manifest, arrays = archive.read(source)
    edit(manifest)
    archive.write(target, manifest, {name: value for name, value in arrays.items()})
    return target


@pytest.mark.parametrize("licence", ["MIT\nRequires-Dist: evil-package", "MIT\rRequires-Dist: evil-package",
                                     "MIT\u2028Requires-Dist: evil-package", "MIT\x85Requires-Dist: evil",
                                     "\x1b[31mMIT", " MIT", "MIT ", "MIT\t", ""])
def test_a_licence_that_would_add_a_metadata_field_or_escape_is_refused(toy, tmp_path, capsys, licence):
    """Issue 37 (4): the licence went into METADATA as it was, so a line break added a Requires-Dist that
    pip would fetch; from --licence, or from a received model's manifest when --licence is not given."""
    model = str(toy / "toy.barley")
    assert cli.main(["package", model, "--name", "xx_toy", "--licence", licence, "-o", str(tmp_path)]) == 2
    assert "cannot go into the package's metadata" in _one_error(capsys)
    received = _with_manifest(toy / "toy.barley", tmp_path / "received.barley",
                              lambda manifest: manifest.update(shipped={"licence": licence}))
    assert cli.main(["package", str(received), "--name", "xx_toy", "-o", str(tmp_path)]) == 2
    assert "the licence the model's manifest states" in _one_error(capsys)
    assert list(tmp_path.glob("*.whl")) == []


def test_metadata_that_would_not_read_back_as_meant_is_never_written(toy, tmp_path, monkeypatch):
    """The second guard: the written METADATA is read back as pip reads it (email) and must give the
    fields meant; shown here with the first guard (printable values) taken away."""
    monkeypatch.setattr(package, "_metadata_value", lambda what, value, path=None: value)
    with pytest.raises(BarleyError, match="would not read back as written"):
        build(str(toy / "toy.barley"), "xx_toy", str(tmp_path), licence="MIT\rRequires-Dist: evil-package")
    assert list(tmp_path.glob("*.whl")) == []


def test_the_written_metadata_reads_back_as_exactly_the_fields_meant(wheel):
    with zipfile.ZipFile(wheel) as zipped:
        parsed = email.message_from_bytes(zipped.read("xx_toy-2.1.0.dist-info/METADATA"))
    assert parsed.get_all("Requires-Dist") == [f"barley{compatible_versions(barley.__version__)}"]
    assert [key for key, _ in parsed.items()] == ["Metadata-Version", "Name", "Version", "Summary", "License",
                                                  "Requires-Dist", "Description-Content-Type"]


def test_a_manifests_barley_version_must_be_a_version(toy, tmp_path, capsys):
    received = _with_manifest(toy / "toy.barley", tmp_path / "received.barley",
                              lambda manifest: manifest.update(barley_version="0.1.0,<9 ; evil"))
    assert cli.main(["package", str(received), "--name", "xx_toy", "--licence", "MIT", "-o", str(tmp_path)]) == 2
    assert "the model's barley_version '0.1.0,<9 ; evil' is not a version number" in _one_error(capsys)


def test_names_and_languages_a_package_may_not_take(toy, tmp_path, capsys):
    """Issue 37 (7): --name en was accepted, and the package then took `-m en` over silently."""
    model = str(toy / "toy.barley")
    for arguments, message in [(["--name", "en"], "--name 'en' is a language code"),
                               (["--name", "xxx"], "--name 'xxx' is a language code"),
                               (["--name", "xx_toy", "--language", "e\x1b[2J"], "--language 'e\\x1b[2J' is not a "
                                                                                "language code"),
                               (["--name", "xx_toy", "--language", "english"], "is not a language code")]:
        assert cli.main(["package", model, "--licence", "MIT", "-o", str(tmp_path), *arguments]) == 2
        assert message in _one_error(capsys)
    assert list(tmp_path.glob("*.whl")) == []


def test_an_output_that_is_a_file_and_a_licence_file_without_end_are_one_line_errors(toy, tmp_path, capsys):
    """Issue 37 (8): `-o EXISTING_FILE` was a FileExistsError traceback (-o names a folder, made if missing,
    as --out-dir does elsewhere); `--licence-file /dev/zero` read until a MemoryError."""
    model = str(toy / "toy.barley")
    existing = tmp_path / "existing"
    existing.write_text("kept\n")
    assert cli.main(["package", model, "--name", "xx_toy", "--licence", "MIT", "-o", str(existing)]) == 2
    assert f"{existing}: this is a file, not a folder" in _one_error(capsys)
    assert existing.read_text() == "kept\n"
    huge = tmp_path / "huge.txt"
    huge.write_bytes(b"licence text " * (package.MAX_LICENCE_BYTES // 13 + 1))
    for licence_file, message in [("/dev/zero", "not a text file"),
                                  (str(huge), "the file is larger than 1 MiB, barley's limit for it"),
                                  (str(tmp_path), "cannot open the file")]:
        assert cli.main(["package", model, "--name", "xx_toy", "--licence", "MIT", "--licence-file", licence_file,
                         "-o", str(tmp_path / "dist")]) == 2
        assert message in _one_error(capsys)
    assert not (tmp_path / "dist").exists() or list((tmp_path / "dist").iterdir()) == []


def test_a_licence_file_that_never_ends_is_read_no_further_than_the_limit(toy, tmp_path):
    """A pipe that never ends (`yes`): refused after MAX_LICENCE_BYTES, not read until memory runs out."""
    done = subprocess.run(f"yes | {sys.executable} -m barley package {toy / 'toy.barley'} --name xx_toy --licence MIT "
                          f"--licence-file /dev/stdin -o {tmp_path}", shell=True, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "the file is larger than 1 MiB" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1


def _installed(site: Path, wheel_path: Path) -> None:
    """What pip does with a pure wheel: its files in site-packages."""
    with zipfile.ZipFile(wheel_path) as zipped:
        zipped.extractall(site)


def _distribution(site: Path, name: str, entry: str, files: dict[str, bytes] | None = None,
                  metadata_name: str | None = None) -> None:
    """A distribution made by hand (not by barley package): its metadata, entry point and RECORD."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {metadata_name or name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[barley_models]\n{entry}\n")
    lines = []
    for path, data in (files or {}).items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_bytes(data)
        lines.append(f"{path},,{len(data)}")
    (info / "RECORD").write_text("".join(line + "\n" for line in lines + [f"{info.name}/RECORD,,"]))


BROKEN = {
    "xx_missing": "installed xx_missing/model.barley, but it is missing",
    "xx_truncated": "installed xx_truncated/model.barley of",
    "xx_folder": "installed xx_folder/model.barley, but it is not a file",
    "xx_module": "declares 'xx_module:attr' as its model's folder",
    "xx_up": "declares '../..' as its model's folder",
    "xx_absolute": "as its model's folder",
    "xx_link": "reaches its model through a symbolic link",
    "xx_other": "did not install xx_good/model.barley (its RECORD does not list it)",
    "xx_damaged": "not a barley model file or damaged",
    "xx_shipped": "takes the name of a model that ships with barley",
    "xx_language": "that is a language code's",
    "xx_garbage": "its metadata or entry points cannot be read",
}
"""The broken packages of :func:`broken_site`, by distribution, and what each one's warning says."""


@pytest.fixture(scope="module")
def broken_site(toy, tmp_path_factory) -> Path:
    """A site-packages folder with one good model package beside a broken package of each kind: an entry
    point to a missing folder, a truncated model.barley, a folder named model.barley, a module:attr entry
    point, entry points to any folder on the machine (../.., absolute, through a symbolic link, another
    package's folder), a damaged model whose RECORD fits it, a package that takes a shipped model's name or a
    language code's, and one whose entry_points.txt cannot be read."""
    site = tmp_path_factory.mktemp("site")
    dist = tmp_path_factory.mktemp("dist")
    model = str(toy / "toy.barley")
    def hostile(manifest):
        manifest.update(shipped={"treebank": "UD_Toy\x1b]0;owned\x07\x1b[2J", "language": "Toy\nlicence: none"})
        manifest["pipeline"]["training"]["data"] = "train\x1b[2J.conllu"

    escape = _with_manifest(toy / "toy.barley", dist / "escape.barley", hostile)
    for name, source in [("xx_good", model), ("xx_missing", model), ("xx_truncated", model), ("xx_escape", escape)]:
        _installed(site, Path(build(source, name, str(dist), version="1.0", licence="MIT",
                                    language="xx" if name == "xx_good" else "yy")))
    for path in (site / "xx_missing").iterdir():
        path.unlink()
    (site / "xx_missing").rmdir()
    truncated = site / "xx_truncated" / "model.barley"
    truncated.write_bytes(truncated.read_bytes()[:5000])
    good = (site / "xx_good" / "model.barley").read_bytes()
    _distribution(site, "xx_folder", "xx_folder = xx_folder")
    (site / "xx_folder" / "model.barley").mkdir(parents=True)
    (site / "xx_folder-1.0.dist-info" / "RECORD").write_text("xx_folder/model.barley,,\n")
    _distribution(site, "xx_module", "xx_module = xx_module:attr", {"xx_module/model.barley": good})
    _distribution(site, "xx_up", "xx_up = ../..", {"xx_up/model.barley": good})
    _distribution(site, "xx_absolute", f"xx_absolute = {site / 'xx_good'}", {"xx_absolute/model.barley": good})
    _distribution(site, "xx_link", "xx_link = xx_link")
    (site / "xx_link").symlink_to(dist.resolve())  # a folder elsewhere on the machine
    (dist / "model.barley").write_bytes(good)
    (site / "xx_link-1.0.dist-info" / "RECORD").write_text(f"xx_link/model.barley,,{len(good)}\n")
    _distribution(site, "xx_other", "xx_other = xx_good")
    _distribution(site, "xx_damaged", "xx_damaged = xx_damaged", {"xx_damaged/model.barley": good[:5000]})
    _distribution(site, "xx_shipped", "en_ewt = xx_shipped", {"xx_shipped/model.barley": good})
    _distribution(site, "xx_language", "fr = xx_language", {"xx_language/model.barley": good})
    return site


@pytest.fixture(scope="module")
def garbled_site(tmp_path_factory) -> Path:
    """A distribution whose entry_points.txt fails importlib.metadata.entry_points() for every caller (so
    apart from the others: spaCy calls it)."""
    site = tmp_path_factory.mktemp("garbled")
    _distribution(site, "xx_garbage", "garbage without an equals sign")
    return site


@pytest.fixture
def on_path(broken_site, garbled_site, monkeypatch) -> Path:
    monkeypatch.syspath_prepend(str(garbled_site))
    monkeypatch.syspath_prepend(str(broken_site))
    return broken_site


def test_broken_packages_are_skipped_with_one_warning_each_and_the_rest_are_listed(on_path, capsys):
    """Issue 37 (5): one broken installed package made `barley models` fail."""
    assert cli.main(["models"]) == 0
    captured = capsys.readouterr()
    listed = [block.split("\n")[0] for block in captured.out.split("\n\n")]
    assert listed[:2] == ["en_ewt  (default)", "en_ewt_linear"] and sorted(listed[2:]) == ["xx_escape", "xx_good"]
    warned = captured.err.splitlines()
    assert len(warned) == len(BROKEN), captured.err
    for distribution, message in BROKEN.items():
        (line,) = [line for line in warned if f"{distribution} 1.0" in line]
        assert line.startswith("barley models: warning: skipped") and message in line, line


def test_what_a_package_states_is_printed_escaped(on_path, capsys):
    """Issue 37 (7): a manifest's terminal escapes reached the terminal as they were."""
    assert cli.main(["models"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "treebank:    UD_Toy\\x1b]0;owned\\x07\\x1b[2J" in out and "language:    Toy\\nlicence: none" in out
    assert cli.main(["models", "--json"]) == 0
    text = capsys.readouterr().out
    assert "\x1b" not in text
    (card,) = [card for card in json.loads(text) if card["name"] == "xx_escape"]
    assert card["treebank"] == "UD_Toy\x1b]0;owned\x07\x1b[2J"  # the JSON says what the manifest says
    assert cli.main(["info", "xx_escape"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "training:    train\\x1b[2J.conllu: 120 sentences" in out
    error = BarleyError("the treebank UD_Toy\x1b[2J\u202e is wrong", path="x\x9bq")
    assert str(error) == "x\\x9bq: the treebank UD_Toy\\x1b[2J\\u202e is wrong"


@pytest.mark.parametrize("distribution", sorted(set(BROKEN) - {"xx_shipped", "xx_language", "xx_garbage"}))
def test_a_broken_package_is_an_error_only_when_it_is_the_one_asked_for(on_path, distribution, capsys):
    with pytest.raises(ModelError, match=BROKEN[distribution].replace("(", r"\(").replace(")", r"\)")) as error:
        catalog.find(distribution)
    assert f"the model package {distribution} 1.0 (model '{distribution}')" in str(error.value)
    assert f"pip uninstall {distribution}" in str(error.value)
    assert cli.main(["info", distribution]) == 2
    assert BROKEN[distribution] in _one_error(capsys, "info")


def test_the_other_models_are_found_beside_broken_packages(on_path, capsys):
    with pytest.warns(BarleyWarning) as warned:
        assert catalog.resolve("en") == catalog.resolve("en_ewt")
    assert len(warned) == len(BROKEN)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # naming a package reads no other
        assert catalog.find("xx_good").path == str(on_path / "xx_good" / "model.barley")
        assert catalog.find("en_ewt").origin == "shipped"
    with pytest.warns(BarleyWarning):
        assert catalog.find("xx").name == "xx_good"
    (on_path / "text.txt").write_text("The dog barks.\n")
    assert cli.main(["parse", "-q", "-m", "en", str(on_path / "text.txt")]) == 0
    captured = capsys.readouterr()
    assert "\tbarks\tbark\t" in captured.out and captured.err.count("warning: skipped") == len(BROKEN)
    with pytest.warns(BarleyWarning):
        assert barley.load("en").path == catalog.resolve("en_ewt")


def test_spacy_load_of_a_language_finds_its_model_beside_broken_packages(broken_site, monkeypatch):
    pytest.importorskip("spacy", reason="barley.spacy needs spaCy: pip install -e '.[spacy]' in barley's checkout")
    monkeypatch.syspath_prepend(str(broken_site))
    import barley.spacy

    with pytest.warns(BarleyWarning):
        nlp = barley.spacy.load("en")
    assert [token.text for token in nlp("The dog barks.")] == ["The", "dog", "barks", "."]


def test_a_package_cannot_take_a_language_codes_name(broken_site, tmp_path, monkeypatch):
    """Issue 37 (7): a package whose model is named `en` took `-m en` over; a language code names a language."""
    _distribution(tmp_path, "en_thief", "en = en_thief",
                  {"en_thief/model.barley": (broken_site / "xx_good" / "model.barley").read_bytes()})
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.warns(BarleyWarning, match=r"en_thief 1\.0 \(model 'en'\) declares a model name .* that is a "
                                           r"language code's"):
        assert catalog.find("en").name == "en_ewt"


def test_a_name_too_long_for_a_file_is_one_line_and_a_package_of_one_is_skipped(broken_site, tmp_path, monkeypatch,
                                                                                 capsys):
    """Found by fuzz/model_packages.py: `barley info` of a 300-letter name was an OSError traceback (File name too
    long, looking for a shipped model of that name); so was `barley models` beside a package whose model has one."""
    long_name = "l" * 300
    assert cli.main(["info", long_name]) == 2
    assert f"no model file, model name or language code '{long_name}'" in _one_error(capsys, "info")
    _distribution(tmp_path, "xx_long", f"{long_name} = xx_long",
                  {"xx_long/model.barley": (broken_site / "xx_good" / "model.barley").read_bytes()})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert catalog.find(long_name).distribution == "xx_long"
    assert cli.main(["models"]) == 0 and "\n" + long_name + "\n" in capsys.readouterr().out


def test_a_card_names_the_language_of_the_treebank_folder_beside_its_code():
    from barley.models.package import model_card

    manifest = {"package": {"language": "la", "barley_versions": ">=0.1"},
                "pipeline": {"components": ["tokenize", "tag", "parse"],
                             "training": {"data": "/home/me/ud/UD_Latin-Perseus/la_perseus-ud-train.conllu"}},
                "components": {}}
    card = model_card("la_perseus", "1.0", manifest, "CC BY-NC-SA 2.5")
    assert "(language: Latin (la); licence: CC BY-NC-SA 2.5)" in card and "/home/me" not in card
