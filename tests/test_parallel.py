"""`barley parse --jobs N`: blocks at sentence boundaries, output in input order, byte for byte as --jobs 1."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys

import pytest

from barley import cli, conllu, parallel
from barley.errors import BarleyError
from barley.parser import train
from test_parser import _toy_treebank


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parallel")
    _toy_treebank(folder / "train.conllu", 120, seed=1)
    _toy_treebank(folder / "test.conllu", 400, seed=3)
    model = folder / "toy.barley"
    train(str(folder / "train.conllu"), system="arc-eager", log=lambda message: None).save(str(model))
    # strip the gold trees, so that the parser's output is what is compared
    sentences = list(conllu.read(folder / "test.conllu"))
    for sentence in sentences:
        sentence.set_tree([0] * (len(sentence) + 1), [""] + ["_"] * len(sentence))
    conllu.write(sentences, folder / "input.conllu")
    return folder, model


def _one_process(model, source, output):
    assert cli.main(["parse", "-q", "-m", str(model), str(source), "-o", str(output)]) == 0
    return output.read_bytes()


@pytest.mark.parametrize("block_bytes", [1, 700, 5000, 1 << 20])
def test_any_block_size_gives_the_one_process_output_byte_for_byte(toy, block_bytes):
    folder, model = toy
    expected = _one_process(model, folder / "input.conllu", folder / "one.conllu")
    out = folder / f"jobs-{block_bytes}.conllu"
    stats = parallel.parse_file(str(model), str(folder / "input.conllu"), str(out), jobs=2, block_bytes=block_bytes)
    assert out.read_bytes() == expected
    assert stats.sentences == 400 and stats.words == sum(len(s) for s in conllu.read(folder / "input.conllu"))


def test_blocks_end_at_blank_lines_and_count_lines():
    text = b"1\ta\n\n\n1\tb\r\n\r\n1\tc\n2\td\n\n1\te"
    got = list(parallel.blocks(io.BytesIO(text), block_bytes=3))
    assert b"".join(block.data for block in got) == text
    assert [block.data for block in got] == [b"1\ta\n\n\n", b"1\tb\r\n\r\n", b"1\tc\n2\td\n\n", b"1\te"]
    assert [block.first_line for block in got] == [1, 4, 6, 9]
    assert [block.index for block in got] == [0, 1, 2, 3]


def test_command_line_jobs_2_crlf_bom_and_gzip_keep_the_bytes(toy, tmp_path):
    folder, model = toy
    text = (folder / "input.conllu").read_text(encoding="utf-8")
    source = tmp_path / "crlf.conllu"
    source.write_bytes(("\ufeff" + text.replace("\n", "\r\n")).encode("utf-8"))
    expected = _one_process(model, source, tmp_path / "one.conllu")
    assert expected.startswith("\ufeff".encode()) and b"\r\n" in expected and b"\n\n" not in expected
    for output in ("jobs.conllu", "jobs.conllu.gz"):
        assert cli.main(["parse", "-q", "--jobs", "2", "-m", str(model), str(source), "-o",
                         str(tmp_path / output)]) == 0
    assert (tmp_path / "jobs.conllu").read_bytes() == expected
    assert gzip.decompress((tmp_path / "jobs.conllu.gz").read_bytes()) == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crlf.conllu", "jobs.conllu", "jobs.conllu.gz", "one.conllu"]


def test_stdin_to_stdout_with_jobs_auto(toy):
    folder, model = toy
    data = (folder / "input.conllu").read_bytes()
    expected = _one_process(model, folder / "input.conllu", folder / "one-stdin.conllu")
    result = subprocess.run([sys.executable, "-m", "barley", "parse", "-j", "auto", "-m", str(model)],
                            input=data, capture_output=True, check=True)
    assert result.stdout == expected
    assert "400 sentences" in result.stderr.decode()


def test_an_error_in_a_later_block_names_the_line_of_the_whole_file(toy, tmp_path):
    folder, model = toy
    lines = (folder / "input.conllu").read_text(encoding="utf-8").split("\n")
    bad_line = len(lines) - 10
    assert "\t" in lines[bad_line - 1]
    lines[bad_line - 1] = lines[bad_line - 1].replace("\t", " ", 1)
    source = tmp_path / "bad.conllu"
    source.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(BarleyError, match=rf"bad.conllu:{bad_line}: expected 10 tab-separated columns"):
        parallel.parse_file(str(model), str(source), str(tmp_path / "out.conllu"), jobs=2, block_bytes=2000)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.conllu"]  # no output, no temporary file


def test_a_bad_model_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "in.conllu").write_text("1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n\n", encoding="utf-8")
    (tmp_path / "model.barley").write_bytes(b"not a zip")
    status = cli.main(["parse", "-j", "2", "-m", str(tmp_path / "model.barley"), str(tmp_path / "in.conllu"),
                       "-o", str(tmp_path / "out.conllu")])
    assert status == 2
    assert "not a barley model file" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_jobs_must_be_positive_or_auto(value, capsys):
    with pytest.raises(SystemExit):
        cli.main(["parse", "-m", "x", "--jobs", value])
    assert "positive number of processes or 'auto'" in capsys.readouterr().err
