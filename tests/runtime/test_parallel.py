"""`barley parse --jobs N`: blocks at sentence boundaries, output in input order, byte for byte as --jobs 1."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys

import pytest

from barley import cli, conllu

from barley.runtime import parallel
from barley.runtime.blocks import blocks
from barley.errors import BarleyError
from barley.kinds import train
from barley.pipeline import loader
from fixed_grammar import toy_treebank

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("parallel")
    toy_treebank(folder / "train.conllu", 120, seed=1)
    toy_treebank(folder / "test.conllu", 400, seed=3)
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
    stats = parallel.parse_file(loader(str(model)), str(folder / "input.conllu"), str(out), jobs=2,
                                block_bytes=block_bytes)
    assert out.read_bytes() == expected
    assert stats.sentences == 400 and stats.words == sum(len(s) for s in conllu.read(folder / "input.conllu"))


def test_blocks_end_at_blank_lines_and_count_lines():
    text = b"1\ta\n\n\n1\tb\r\n\r\n1\tc\n2\td\n\n1\te"
    got = list(blocks(io.BytesIO(text), block_bytes=3))
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
        parallel.parse_file(loader(str(model)), str(source), str(tmp_path / "out.conllu"), jobs=2, block_bytes=2000)
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


@pytest.fixture(scope="module")
def text_models(tmp_path_factory):
    """A tokenize,tag,parse pipeline and a tokenize,parse one (no tagger), on a treebank with text."""
    from tokenizer_treebank import write_treebank

    folder = tmp_path_factory.mktemp("parallel-text")
    write_treebank(folder / "train.conllu", 300, seed=1)
    models = {}
    for components in ("tokenize,tag,parse", "tokenize,parse"):
        models[components] = folder / f"{components.replace(',', '-')}.barley"
        assert cli.main(["train", "--train", str(folder / "train.conllu"), "--components", components,
                         "--no-jackknife", "--seed", "1", "--model", str(models[components])]) == 0
    text = "".join(f"Juan vio la casa del rey {n}. Ana come, y Pedro lee!\n{'' if n % 3 else chr(10)}"
                   for n in range(150))
    (folder / "in.txt").write_text(" \ufeffnada.\n\n" + text + "Maria tiene un libro", encoding="utf-8")
    return folder, models


@pytest.mark.parametrize("input_format", ["text", "tokenized"])
def test_text_through_a_pipeline_gives_the_one_process_output_byte_for_byte(text_models, input_format, tmp_path):
    folder, models = text_models
    model, source = models["tokenize,tag,parse"], folder / "in.txt"
    assert cli.main(["parse", "-q", "-m", str(model), "--input", input_format, str(source),
                     "-o", str(tmp_path / "one.conllu")]) == 0
    expected = (tmp_path / "one.conllu").read_bytes()
    assert expected.count(b"# sent_id") > 100 and b"SpacesBefore" in expected
    for block_bytes in (1, 3000, 1 << 20):
        out = tmp_path / f"jobs-{block_bytes}.conllu"
        stats = parallel.parse_file(loader(str(model)), str(source), str(out), jobs=2, block_bytes=block_bytes,
                                    input=input_format)
        assert out.read_bytes() == expected, block_bytes
        assert stats.sentences == expected.count(b"# sent_id")
    assert cli.main(["parse", "-q", "-j", "2", "-m", str(model), "--input", input_format, str(source),
                     "-o", str(tmp_path / "cli.conllu")]) == 0
    assert (tmp_path / "cli.conllu").read_bytes() == expected


def test_retag_with_jobs_gives_the_one_process_output(text_models, tmp_path, capsys):
    folder, models = text_models
    model, source = models["tokenize,tag,parse"], tmp_path / "mistagged.conllu"
    source.write_text((folder / "train.conllu").read_text(encoding="utf-8").replace("\tX\t", "\tNOUN\t"),
                      encoding="utf-8")
    outputs = {}
    for jobs in ("1", "2"):
        for retag in ([], ["--retag"]):
            out = tmp_path / f"{jobs}{''.join(retag)}.conllu"
            assert cli.main(["parse", "-q", "-j", jobs, *retag, "-m", str(model), str(source), "-o", str(out)]) == 0
            outputs[jobs, bool(retag)] = out.read_bytes()
    assert outputs["1", True] == outputs["2", True] and outputs["1", False] == outputs["2", False]
    assert outputs["1", True] != outputs["1", False]  # the wrong tags are predicted again
    assert cli.main(["parse", "-j", "2", "--retag", "-m", str(models["tokenize,parse"]), str(source)]) == 2
    assert "has no tagger" in capsys.readouterr().err


def test_a_pipeline_that_cannot_analyse_text_fails_as_with_one_process(text_models, tmp_path, capsys):
    folder, models = text_models
    errors = []
    for jobs in ("1", "2"):
        assert cli.main(["parse", "-j", jobs, "-m", str(models["tokenize,parse"]), "--input", "text",
                         str(folder / "in.txt"), "-o", str(tmp_path / "out.conllu")]) == 2
        errors.append(capsys.readouterr().err)
    assert errors[0] == errors[1] and "has no UPOS" in errors[0] and errors[0].count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_request_reaches_every_worker_as_it_reaches_one_process(toy, tmp_path):
    """One ParseRequest for both paths: --jobs 2 writes the probabilities and the enhanced graphs of a one-process
    run, byte for byte."""
    folder, model = toy
    flags = ["--confidence", "--flag-below", "0.5", "--enhanced"]
    one, two = tmp_path / "one.conllu", tmp_path / "two.conllu"
    for jobs, out in (("1", one), ("2", two)):
        assert cli.main(["parse", "-q", "-m", str(model), str(folder / "input.conllu"), "-o", str(out), "--jobs", jobs,
                         *flags]) == 0
    assert one.read_bytes() == two.read_bytes()
    assert b"HeadProb=" in one.read_bytes() and b"# confidence = " in one.read_bytes()
