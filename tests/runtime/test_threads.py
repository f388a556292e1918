"""The BLAS threads while barley parses (:mod:`barley.runtime.threads`): one by default, set only
while barley computes, and refused where worker processes decide them."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_info

import barley
from barley.cli import main
from barley.neural.joint import NumpyJoint
from barley.runtime.threads import limited


def _blas_threads() -> set[int]:
    return {library["num_threads"] for library in threadpool_info() if library["user_api"] == "blas"}


@pytest.fixture
def blas_threads():
    if not _blas_threads():
        pytest.skip("numpy is linked to no BLAS that threadpoolctl can see")
    return _blas_threads()


def test_the_limit_holds_while_an_item_is_computed_and_not_between_items(blas_threads):
    seen = []

    def computing():
        for _ in range(3):
            seen.append(_blas_threads())
            yield None

    outside = []
    for _ in limited(computing(), 1):
        outside.append(_blas_threads())
    assert seen == [{1}] * 3
    assert outside == [blas_threads] * 3 and _blas_threads() == blas_threads


def test_no_limit_leaves_the_library_as_it_is(blas_threads):
    seen = [_blas_threads() for _ in limited(iter(range(2)), 0)]
    assert seen == [blas_threads] * 2


def test_a_pipeline_tokenizes_and_parses_with_its_threads(blas_threads, monkeypatch):
    pipeline = barley.load("en_ewt")
    assert pipeline.blas_threads == 1 and pipeline.only(["tokenize"]).blas_threads == 1
    seen = []
    outputs = NumpyJoint.outputs

    def recording(self, padded):
        seen.append(_blas_threads())
        return outputs(self, padded)

    monkeypatch.setattr(NumpyJoint, "outputs", recording)
    pipeline.blas_threads = 2
    assert len(list(pipeline.parse("The dog barks. It sleeps."))) == 2
    assert _blas_threads() == blas_threads
    assert seen and all(threads == {2} for threads in seen)


def test_blas_threads_are_refused_where_workers_take_one_each(tmp_path, capsys):
    text = tmp_path / "in.txt"
    text.write_text("The dog barks.\n")
    assert main(["parse", str(text), "--blas-threads", "2", "--jobs", "2"]) == 2
    assert "--blas-threads sets the threads of one process" in capsys.readouterr().err
