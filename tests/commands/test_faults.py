"""Faults, in real subprocesses: signals at random moments, a full disk, a closed pipe.

Whatever happens, the output (or model) file is either the previous one or the
complete new one, no temporary file stays behind, and the user sees one line.
"""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from fixed_grammar import toy_treebank

from barley import atomic
from barley.kinds import train
from barley.models import archive

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

BARLEY = [sys.executable, "-m", "barley"]
PREVIOUS = b"the previous file, which must survive\n"


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("faults")
    toy_treebank(folder / "train.conllu", 120, seed=1)
    toy_treebank(folder / "big.conllu", 3000, seed=4)  # ≈ 1.5 MB, 26,000 words: a second or two to parse
    model = folder / "toy.barley"
    train(str(folder / "train.conllu"), system="arc-eager", log=lambda message: None).save(str(model))
    expected = subprocess.run(BARLEY + ["parse", "-q", "-m", str(model), str(folder / "big.conllu")],
                              capture_output=True, check=True).stdout
    return folder, model, expected


def _leftovers(directory) -> list[str]:
    return sorted(name for name in os.listdir(directory) if name.startswith(".barley-"))


def _interrupt(command: list[str], signum: int, delay: float, cwd, running) -> subprocess.CompletedProcess:
    """Run ``command`` in its own process group; once ``running(process)`` returns, wait ``delay`` s and
    send ``signum`` to the whole group (like Ctrl-C in a terminal: every process of the job gets it)."""
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    first = running(process)
    time.sleep(delay)
    try:
        os.killpg(process.pid, signum)
    except ProcessLookupError:
        pass  # it had already finished
    out, err = process.communicate(timeout=60)
    result = subprocess.CompletedProcess(command, process.returncode, out, first + err.decode())
    result.pid = process.pid  # also the process group of the run (workers included)
    return result


def _writing(directory):
    """``running`` for a parse: its temporary output file has appeared (or it has ended)."""
    def running(process) -> str:
        while not _leftovers(directory) and process.poll() is None:
            time.sleep(0.01)
        return ""
    return running


def _logging(process) -> str:
    """``running`` for a training: it has printed its first line."""
    return process.stderr.readline().decode()


def _no_process_left(group: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


SIGNALS = {"SIGINT": (signal.SIGINT, 130), "SIGTERM": (signal.SIGTERM, 143), "SIGKILL": (signal.SIGKILL, None)}


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("name", sorted(SIGNALS))
def test_parsing_killed_at_random_moments_leaves_the_previous_output(toy, tmp_path, name, jobs):
    folder, model, expected = toy
    signum, status = SIGNALS[name]
    rng = random.Random(f"{name}{jobs}")
    output = tmp_path / "parsed.conllu"
    for delay in [rng.uniform(0.0, 1.5) for _ in range(2)]:
        output.write_bytes(PREVIOUS)
        result = _interrupt(BARLEY + ["parse", "-q", "-j", jobs, "-m", str(model), str(folder / "big.conllu"),
                                      "-o", str(output)], signum, delay, tmp_path, _writing(tmp_path))
        assert _no_process_left(result.pid), "a worker outlived its parent"
        # the previous file, or (the signal came after the rename) the complete new one: never a part
        assert output.read_bytes() in (PREVIOUS, expected)
        if result.returncode == 0:
            continue
        if result.returncode == -signum and signum != signal.SIGKILL:
            # it came as Python shut down, after the output was complete (finalisation restores default handlers)
            assert output.read_bytes() == expected and result.stderr == ""
        elif signum != signal.SIGKILL:
            assert result.returncode == status, result.stderr
            assert _leftovers(tmp_path) == []
            assert "Traceback" not in result.stderr
            assert result.stderr.strip().splitlines() == [
                f"barley parse: {'interrupted' if signum == signal.SIGINT else 'terminated'}"]
        # SIGKILL cannot be caught: the next atomic write in the directory sweeps the dead process's temporary
        atomic.sweep(str(tmp_path))
        assert _leftovers(tmp_path) == []


def _same_model(path, reference) -> bool:
    """Complete, and the reference model but for the training time its manifest records."""
    (manifest, arrays), (expected, expected_arrays) = archive.read(path), archive.read(reference)
    manifest["training"].pop("seconds")
    expected["training"].pop("seconds")
    return manifest == expected and arrays.keys() == expected_arrays.keys() and all(
        np.array_equal(arrays[name], expected_arrays[name]) for name in arrays)


@pytest.fixture(scope="module")
def cli_model(toy):
    """The model `barley train` writes when nothing interrupts it (its manifest differs from the library's)."""
    folder, _, _ = toy
    subprocess.run(BARLEY + ["train", "--train", str(folder / "train.conllu"), "-m", str(folder / "cli.barley")],
                   capture_output=True, check=True)
    return folder / "cli.barley"


@pytest.mark.parametrize("name", sorted(SIGNALS))
def test_training_killed_at_random_moments_leaves_the_previous_model(toy, cli_model, tmp_path, name):
    folder, _, _ = toy
    signum, status = SIGNALS[name]
    target = tmp_path / "model.barley"
    for delay in [random.Random(name).uniform(0.0, 1.5), 0.3]:
        target.write_bytes(PREVIOUS)
        result = _interrupt(BARLEY + ["train", "--train", str(folder / "train.conllu"), "-m", str(target)],
                            signum, delay, tmp_path, _logging)
        assert target.read_bytes() == PREVIOUS or _same_model(target, cli_model)  # never a part of a model
        if result.returncode == 0:
            continue
        if result.returncode == -signum and signum != signal.SIGKILL:
            # the signal came where Python's default handler was in force (as it shut down, or
            # before barley's command started): the file is still whole (asserted above)
            assert "Traceback" not in result.stderr
        elif signum != signal.SIGKILL:
            assert result.returncode == status, result.stderr
            assert "Traceback" not in result.stderr
            assert result.stderr.strip().splitlines()[-1].startswith("barley train: ")
        atomic.sweep(str(tmp_path))
        assert _leftovers(tmp_path) == []


def _file_size_limit(limit: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_full_disk_while_parsing_is_one_line_and_keeps_the_previous_output(toy, tmp_path, jobs):
    folder, model, _ = toy
    output = tmp_path / "parsed.conllu"
    output.write_bytes(PREVIOUS)
    result = subprocess.run(BARLEY + ["parse", "-j", jobs, "-m", str(model), str(folder / "big.conllu"), "-o",
                                      str(output)], capture_output=True, text=True,
                            preexec_fn=_file_size_limit(100_000))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"barley parse: error: {output}: cannot write the file: File too large "
        "(free some space or write to another disk; the previous file, if any, is unchanged)"]
    assert output.read_bytes() == PREVIOUS and _leftovers(tmp_path) == []


def test_a_full_disk_while_saving_a_model_is_one_line_and_keeps_the_previous_model(toy, tmp_path):
    folder, model, _ = toy
    target = tmp_path / "model.barley"
    target.write_bytes(PREVIOUS)
    assert model.stat().st_size > 2000
    result = subprocess.run(BARLEY + ["train", "--train", str(folder / "train.conllu"), "-m", str(target)],
                            capture_output=True, text=True, preexec_fn=_file_size_limit(2000))
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith(f"barley train: error: {target}: cannot write the file")
    assert "Traceback" not in result.stderr
    assert target.read_bytes() == PREVIOUS and _leftovers(tmp_path) == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_output_into_a_pipe_that_closes_early_exits_quietly(toy, jobs):
    folder, model, expected = toy
    barley = subprocess.Popen(BARLEY + ["parse", "-q", "-j", jobs, "-m", str(model), str(folder / "big.conllu")],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = subprocess.run(["head", "-n", "3"], stdin=barley.stdout, capture_output=True)
    barley.stdout.close()
    error = barley.stderr.read().decode()
    assert barley.wait(timeout=60) == 0, error
    assert error == ""
    assert head.stdout == b"".join(expected.splitlines(keepends=True)[:3])


def test_an_interrupt_python_wraps_in_another_error_is_still_an_interrupt(monkeypatch, capsys):
    """A Ctrl-C during class creation (e.g. while scipy is imported) reaches us as a RuntimeError
    caused by the KeyboardInterrupt: one line and status 130, no traceback."""
    from barley import cli
    from barley.commands import validate

    def interrupted_while_importing(args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as interrupt:
            raise RuntimeError("Error calling __set_name__ on 'Field' instance") from interrupt

    monkeypatch.setattr(validate, "run", interrupted_while_importing)
    assert cli.main(["validate", "x.conllu"]) == 130
    assert capsys.readouterr().err == "barley validate: interrupted\n"

    def plain_bug(args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(validate, "run", plain_bug)
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main(["validate", "x.conllu"])
