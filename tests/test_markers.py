"""The ``cli`` marker (tests/conftest.py): a test is marked when its code runs the command line."""

from __future__ import annotations

import subprocess
import sys

from barley import cli
from conftest import runs_the_command_line


def _in_process():
    return cli.main(["evaluate", "a.conllu", "b.conllu"])


def _in_a_subprocess():
    return subprocess.run([sys.executable, "-m", "barley", "models"])


def _in_a_lambda():
    return [(lambda: subprocess.run(["barley", "--help"]))]


def _not():
    import barley.spacy

    return barley.spacy.load("en").add_pipe("barley")


def test_the_command_line_is_found_in_a_tests_code():
    assert runs_the_command_line(_in_process.__code__)
    assert runs_the_command_line(_in_a_subprocess.__code__)
    assert runs_the_command_line(_in_a_lambda.__code__)
    assert not runs_the_command_line(_not.__code__)
