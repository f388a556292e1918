"""Model packages: a wheel built by ``barley package``, installed offline by pip into a fresh virtual
environment, found by name through its metadata, refused by a barley it does not state."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

import barley
import toy_language
from barley import catalog, cli, model_file
from barley.conllu import read
from barley.errors import BarleyError
from barley.model_package import build, compatible_versions
from barley.pipeline import Pipeline
from barley.service.models import model_specs

SOURCE = Path(__file__).resolve().parents[1] / "src"


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
    with zipfile.ZipFile(wheel) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    info = "xx_toy-2.1.0.dist-info"
    assert files["xx_toy/LICENSE"] == b"Toy licence: do as you like.\n"
    metadata = files[f"{info}/METADATA"].decode()
    assert "Name: xx_toy\nVersion: 2.1.0\n" in metadata and "License: CC0-1.0\n" in metadata
    assert f"Requires-Dist: barley{compatible_versions(barley.__version__)}\n" in metadata
    assert files[f"{info}/entry_points.txt"] == b"[barley_models]\nxx_toy = xx_toy\n"
    assert b"Root-Is-Purelib: true\nTag: py3-none-any\n" in files[f"{info}/WHEEL"]
    card = files["xx_toy/README.md"].decode()
    assert "## Scores and speed" in card and "components:  tag, parse" in card and "train.conllu" in card
    record = files.pop(f"{info}/RECORD").decode().splitlines()
    assert record[-1] == f"{info}/RECORD,,"
    for line in record[:-1]:
        path, digest, size = line.split(",")
        data = files.pop(path)
        assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert int(size) == len(data)
    assert files == {}  # every file recorded


def test_the_packaged_model_is_the_model_with_its_package_entry(toy, wheel, tmp_path):
    with zipfile.ZipFile(wheel) as archive:
        (tmp_path / "inside.barley").write_bytes(archive.read("xx_toy/model.barley"))
    inside, arrays = model_file.read(tmp_path / "inside.barley")
    original, original_arrays = model_file.read(toy / "toy.barley")
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
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(tmp_path)  # what pip does with a pure wheel
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
