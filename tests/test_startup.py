"""Start-up: a command imports only what it needs, and model loading maps arrays without
changing a single output byte (files written before mapping load and parse the same)."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest
from old_model_files import repacked_as_before
from toy_language import treebank

import barley
from barley import cli
from barley.kinds import train
from barley.models import archive

pytestmark = pytest.mark.slow  # tests/conftest.py: the fast loop leaves this file out


def _modules_after(code: str) -> set[str]:
    """The modules a fresh interpreter has imported after running ``code``."""
    out = subprocess.run([sys.executable, "-c", f"{code}\nimport sys; print(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_importing_barley_and_its_command_line_loads_neither_scipy_nor_the_parser():
    modules = _modules_after("import barley, barley.cli")
    assert not {"scipy", "sklearn", "barley.transition.parser", "barley.transition.training"} & modules
    assert not any(name.startswith("barley.commands.") for name in modules)


def test_a_command_registers_alone_and_the_help_lists_them_all(capsys):
    modules = _modules_after("from barley.cli import build_parser; build_parser(only='evaluate')")
    assert {name for name in modules if name.startswith("barley.commands.")} == {"barley.commands.evaluate"}
    assert not {"scipy", "sklearn", "barley.transition.parser"} & modules
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    listed = capsys.readouterr().out
    assert all(name in listed for name in cli.command_names()) and "parse" in cli.command_names()


def test_the_version_is_printed_without_importing_any_command(capfd):
    modules = _modules_after("from barley import cli\ntry:\n    cli.main(['--version'])\nexcept SystemExit:\n    pass")
    assert not any(name.startswith("barley.commands.") for name in modules)
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--version"])
    assert stopped.value.code == 0 and capfd.readouterr().out == f"barley {barley.__version__}\n"


def test_loading_a_linear_model_imports_neither_scipy_nor_scikit_learn(tmp_path):
    treebank(tmp_path / "train.conllu", 40, seed=1)
    train(str(tmp_path / "train.conllu"), system="arc-eager", log=lambda m: None).save(str(tmp_path / "m.barley"))
    modules = _modules_after(f"from barley.pipeline import Pipeline; Pipeline.load({str(tmp_path / 'm.barley')!r})")
    assert "barley.transition.parser" in modules and not {"scipy", "sklearn"} & modules


@pytest.mark.parametrize("system, learner", [("arc-eager", "linear"), ("swap-lazy", "perceptron")])
def test_mapped_and_earlier_model_files_parse_byte_for_byte_the_same(tmp_path, capsys, system, learner):
    treebank(tmp_path / "train.conllu", 60, seed=1)
    treebank(tmp_path / "test.conllu", 20, seed=2)
    model, old = tmp_path / "m.barley", tmp_path / "old.barley"
    train(str(tmp_path / "train.conllu"), system=system, learner=learner, log=lambda m: None).save(str(model))
    repacked_as_before(model, old)
    with zipfile.ZipFile(old) as zipped:
        assert zipped.getinfo("arrays.npz").compress_type == zipfile.ZIP_DEFLATED
    outputs = []
    for path in (model, old):
        assert cli.main(["parse", str(tmp_path / "test.conllu"), "-m", str(path), "-q",
                         "-o", str(tmp_path / f"{path.stem}.conllu")]) == 0
        outputs.append((tmp_path / f"{path.stem}.conllu").read_bytes())
    assert outputs[0] == outputs[1] and outputs[0].count(b"\n\n") == 20
    assert archive.read_manifest(model) == archive.read_manifest(old)
