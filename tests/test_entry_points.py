"""Every parse entry point loads through one loader (:meth:`barley.pipeline.Pipeline.load`) and
parses through the pipeline's checks: ``barley parse``, ``--jobs``, the Dask path
(``--scheduler``), ``barley serve`` and the Python API (``barley.load``) give the same bytes for
tagged CoNLL-U and the same one-line error for CoNLL-U without the UPOS a parser-only model needs."""

from __future__ import annotations

import re

import pytest

import barley
from barley import cli
from barley.conllu import UPOS, read
from barley.errors import BarleyError
from barley.kinds import train
from fixed_grammar import toy_treebank

pytestmark = pytest.mark.slow  # tests/conftest.py: the fast loop leaves this file out

UNTAGGED_SENTENCE = 3
"""The sentence of the untagged file whose UPOS column is emptied."""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A parser-only model (a transition parser's file), a tagged file and one with a sentence without UPOS."""
    folder = tmp_path_factory.mktemp("entry")
    toy_treebank(folder / "train.conllu", 120, seed=1)
    toy_treebank(folder / "tagged.conllu", 20, seed=2)
    train(str(folder / "train.conllu"), system="arc-eager", log=lambda message: None).save(str(folder / "toy.barley"))
    sentences = list(read(folder / "tagged.conllu"))
    for word in sentences[UNTAGGED_SENTENCE].words:
        word[UPOS] = "_"
    barley.write(sentences, folder / "untagged.conllu")
    line = sentences[UNTAGGED_SENTENCE].line
    return folder, line


def _cli(folder, name: str, *options: str, capsys) -> tuple[int, str]:
    """(exit status, output bytes or the error line) of ``barley parse`` with ``options``."""
    source = folder / ("tagged.conllu" if name == "tagged" else "untagged.conllu")
    output = folder / "out" / f"{name}-{'-'.join(options) or 'one'}.conllu"
    output.parent.mkdir(exist_ok=True)
    status = cli.main(["parse", "-q", "--input", "conllu", "-m", str(folder / "toy.barley"), str(source),
                       "-o", str(output), *options])
    return status, output.read_text(encoding="utf-8") if status == 0 else _error(capsys.readouterr().err)


def _dask(folder, name: str, capsys) -> tuple[int, str]:
    source = folder / ("tagged.conllu" if name == "tagged" else "untagged.conllu")
    out_dir = folder / f"dask-{name}"
    status = cli.main(["parse", "-q", "-m", str(folder / "toy.barley"), "--scheduler", "local:1", str(source),
                       "--out-dir", str(out_dir)])
    return status, (out_dir / source.name).read_text(encoding="utf-8") if status == 0 else _error(capsys.readouterr().err)


def _error(stderr: str) -> str:
    """The message of the one error line of ``barley parse`` (without the command's prefix)."""
    lines = [line for line in stderr.splitlines() if line.startswith("barley parse: error: ")]
    assert len(lines) == 1, stderr
    return lines[0].removeprefix("barley parse: error: ")


def _python(folder, name: str) -> tuple[int, str]:
    source = folder / ("tagged.conllu" if name == "tagged" else "untagged.conllu")
    try:
        return 0, "".join(s.to_text() for s in barley.load(str(folder / "toy.barley")).parse(read(str(source))))
    except BarleyError as error:
        return 2, str(error)


def _service(folder, name: str) -> tuple[int, str]:
    pytest.importorskip("fastapi", reason="barley serve needs the serve extra: pip install -e '.[serve]' in barley's checkout")
    from starlette.testclient import TestClient

    from barley.service.app import create_app
    from barley.service.inputs import REQUEST
    from barley.service.models import ModelRegistry

    source = folder / ("tagged.conllu" if name == "tagged" else "untagged.conllu")
    client = TestClient(create_app(ModelRegistry([("toy", str(folder / "toy.barley"))])),
                        base_url="http://127.0.0.1:8080")
    answer = client.post("/parse", json={"data": source.read_text(encoding="utf-8"), "input": "conllu"})
    if answer.status_code == 200:
        return 0, answer.json()["result"]
    return 2, answer.json()["error"].replace(REQUEST, str(source))  # the service names the request, not a file


def test_every_entry_point_gives_the_same_parse_of_tagged_conllu(files, capsys):
    folder, _ = files
    expected = _cli(folder, "tagged", capsys=capsys)
    assert expected[0] == 0 and expected[1] == (folder / "tagged.conllu").read_text(encoding="utf-8")  # learnt
    assert _cli(folder, "tagged", "--jobs", "2", capsys=capsys) == expected
    assert _python(folder, "tagged") == expected
    assert _service(folder, "tagged") == expected


def test_every_entry_point_refuses_untagged_conllu_for_a_parser_alone_with_one_line(files, capsys):
    folder, line = files
    status, message = _cli(folder, "untagged", capsys=capsys)
    assert status == 2 and re.fullmatch(rf".*untagged\.conllu:{line}: this sentence has no UPOS and the model has "
                                        r"no component that predicts it \(.*\)", message), message
    assert _cli(folder, "untagged", "--jobs", "2", capsys=capsys) == (status, message)
    assert _python(folder, "untagged") == (status, message)
    assert _service(folder, "untagged") == (status, message)


def test_the_dask_path_parses_and_refuses_as_the_command_line(files, capsys):
    pytest.importorskip("distributed", reason="Dask is not installed (pip install -e '.[dask]' in barley's checkout)")
    folder, _ = files
    assert _dask(folder, "tagged", capsys) == _cli(folder, "tagged", capsys=capsys)
    assert _dask(folder, "untagged", capsys) == _cli(folder, "untagged", capsys=capsys)


def test_importing_barley_installs_no_import_hook():
    """The old module names (``barley.parallel``, ``barley.distributed``, ``barley.evaluate_conll18``) were
    dropped with the hook that served them (docs/changelog.md): ``import barley`` leaves the import system as
    it found it."""
    import importlib
    import subprocess
    import sys

    code = ("import sys; before = list(sys.meta_path); import barley; "
            "assert sys.meta_path == before, sys.meta_path; import importlib.util; "
            "assert importlib.util.find_spec('barley.parallel') is None")
    subprocess.run([sys.executable, "-c", code], check=True)
    assert importlib.import_module("barley.runtime.parallel").parse_file
