"""Bad input, fuzzed: barley's readers either read an input or fail with barley's own one-line error.

Three layers on the targets of ``fuzz/targets.py``: the regression inputs that
fuzzing found (``fuzz/regressions/<target>/``), a hypothesis run of each target
(``BARLEY_FUZZ_EXAMPLES`` examples, 150 by default; raise it for a long run), and
a short coverage-guided atheris run of each (skipped where atheris is not installed).
And a short seeded run of the structure-aware fuzzer of model files (``fuzz/model_files.py``:
real models of every kind, rewritten through barley's writer, loaded and used), and of model
packages (``fuzz/model_packages.py``) and the service's requests (``fuzz/service_requests.py``).
The long runs are documented in ``fuzz/README.md``.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"
sys.path.insert(0, str(FUZZ))
import model_files  # noqa: E402
import model_packages  # noqa: E402
import targets  # noqa: E402

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

EXAMPLES = int(os.environ.get("BARLEY_FUZZ_EXAMPLES", "150"))
REGRESSIONS = sorted((FUZZ / "regressions").glob("*/*"))


@pytest.fixture(scope="module", autouse=True)
def seed_model():
    targets.seeds("model")  # the real model the structured model inputs are built around


@pytest.mark.parametrize("path", REGRESSIONS, ids=[f"{p.parent.name}/{p.name}" for p in REGRESSIONS])
def test_inputs_that_fuzzing_found_fail_cleanly(path):
    targets.check(path.parent.name, path.read_bytes())


def test_every_target_has_seeds_that_read():
    for target in targets.TARGETS:
        for name, data in targets.seeds(target).items():
            if target != "spec":  # the seed spec names treebanks; reading it must work too, see below
                targets.TARGETS[target](data)
    targets.TARGETS["spec"](targets.seeds("spec")["spec.toml"])


CONLLU_PIECES = st.sampled_from(["\t", "\n", "\r\n", "\n\n", "#", " ", "_", "0", "1", "2", "3", "10", "-", ".",
                                 "1-2", "2.1", "\ufeff", "root", "a", "é", "\x00", "\r"])
FEATURE_PIECES = st.sampled_from(["Stack", "Input", "Lambda1", "[", "]", "(", ")", "0", "1", "-1", "99999999999",
                                  "head", "ldep", "rdep", "FORM", "UPOS", "FEATS", "DEPREL", "Merge", "Merge3",
                                  "DIST", "&", ",", " ", "\n", "#", "<feature>", "</feature>", "Split", "InputColumn"])
SPEC_PIECES = st.sampled_from(['name = "x"\n', "[[treebanks]]\n", "[[parsers]]\n", 'name = "p"\n', "seed = ",
                               "folds = ", "metrics = ", "notes = ", "transforms = ", "system = ", '"arc-eager"',
                               "1", "-3", "[]", "{}", '"a"', "true", "\n", "=", "max_train_sentences = ",
                               'learner = "svm-poly2"\n', 'parser = "graph"\n', "order = ", "epochs = "])


def _joined(pieces):
    return st.lists(pieces, max_size=60).map(lambda items: "".join(items).encode("utf-8", "surrogatepass"))


STRATEGIES = {
    "conllu": st.one_of(st.binary(max_size=400), _joined(CONLLU_PIECES)),
    "features": st.one_of(st.binary(max_size=200), _joined(FEATURE_PIECES)),
    "spec": st.one_of(st.binary(max_size=200), _joined(SPEC_PIECES)),
    "model": st.one_of(st.binary(max_size=300), st.binary(max_size=300).map(lambda data: b"M" + data),
                       st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                                    lambda inner: st.lists(inner, max_size=3)
                                    | st.dictionaries(st.sampled_from(["system", "name", "features", "labels",
                                                                       "vocabularies", "learner", "format"]),
                                                      inner, max_size=4), max_leaves=10)
                       .map(lambda value: b"M" + repr(value).encode())),
}


@pytest.mark.parametrize("target", sorted(targets.TARGETS))
def test_hypothesis_inputs_parse_or_fail_with_barleys_error(target):
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(STRATEGIES[target])
    def run(data):
        targets.check(target, data)

    run()


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris is not installed (pip install "
                                                                        "'barley[fuzz]'; Linux x86-64)")
@pytest.mark.parametrize("target", sorted(targets.TARGETS))
def test_a_short_coverage_guided_run_finds_nothing(target, tmp_path):
    result = subprocess.run([sys.executable, str(FUZZ / "run.py"), target, "-max_total_time=8", "-timeout=10",
                             f"-artifact_prefix={tmp_path}/", str(tmp_path / "corpus")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "DONE" in result.stderr


MODEL_CASES = int(os.environ.get("BARLEY_FUZZ_MODEL_CASES", "80"))


def test_rewritten_models_of_every_kind_parse_or_fail_with_one_line():
    """Each case in a worker process under 2 GB of address space: a traceback, a signal, a hang or
    running out of memory is a finding (fuzz/model_files.py; its long run: fuzz/README.md)."""
    lines: list[str] = []
    counts = model_files.run(MODEL_CASES, seed=23, folder=model_files.MODELS, report_seconds=1e9, log=lines.append)
    assert not counts.get("finding"), "\n".join(lines)
    assert counts.get("parsed") and counts.get("refused"), counts


PACKAGE_CASES = int(os.environ.get("BARLEY_FUZZ_PACKAGE_CASES", "24"))


def test_hostile_packages_are_written_as_meant_or_refused_and_skipped_in_one_line():
    """barley package with hostile values, installed packages damaged (fuzz/model_packages.py; about 0.5 s a case)."""
    counts = model_packages.fuzz(PACKAGE_CASES, run_seed=23)
    assert sum(counts.values()) == PACKAGE_CASES, counts


REQUEST_CASES = int(os.environ.get("BARLEY_FUZZ_REQUEST_CASES", "200"))


def test_every_request_to_the_service_is_answered_under_500_with_one_line_errors():
    """fuzz/service_requests.py: a short seeded run."""
    pytest.importorskip("fastapi", reason="barley serve needs the serve extra: pip install -e '.[serve]' in barley's checkout")
    import service_requests

    counts = service_requests.fuzz(REQUEST_CASES, run_seed=23)
    assert counts.get("2xx") and counts.get("4xx"), counts
