"""Parsing on a Dask cluster: a LocalCluster of worker processes on loopback, a worker killed mid-run."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

distributed = pytest.importorskip("distributed", reason="Dask is not installed (pip install -e '.[dask]' in barley's checkout)")

from barley import cli, conllu  # noqa: E402
from barley.runtime.distributed import RECORD_SUFFIX, parse_files  # noqa: E402
from barley.runtime.shards import SHARD_BYTES, expand, plan, shard_size  # noqa: E402
from barley.errors import BarleyError  # noqa: E402
from barley.kinds import train  # noqa: E402
from fixed_grammar import toy_treebank  # noqa: E402

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A model and a small corpus: files in nested folders, a big one (cut in shards), one CRLF with a BOM."""
    folder = tmp_path_factory.mktemp("dask")
    toy_treebank(folder / "train.conllu", 120, seed=1)
    model = folder / "toy.barley"
    train(str(folder / "train.conllu"), system="arc-eager", log=lambda message: None).save(str(model))
    corpus = folder / "corpus"
    (corpus / "news" / "2020").mkdir(parents=True)
    (corpus / "web").mkdir()
    toy_treebank(corpus / "news" / "2020" / "a.conllu", 60, seed=5)
    toy_treebank(corpus / "news" / "b.conllu", 30, seed=6)
    toy_treebank(corpus / "web" / "big.conllu", 1500, seed=7)
    text = (corpus / "news" / "b.conllu").read_text(encoding="utf-8")
    (corpus / "web" / "crlf.conllu").write_bytes(("\ufeff" + text.replace("\n", "\r\n") * 20).encode("utf-8"))
    expected = {}
    for path in expand([str(corpus / "**" / "*.conllu")]):
        output = folder / "one.conllu"
        assert cli.main(["parse", "-q", "-m", str(model), path, "-o", str(output)]) == 0
        expected[os.path.relpath(path, corpus)] = output.read_bytes()
    return folder, model, corpus, expected


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def _outputs(out_dir) -> dict[str, bytes]:
    found = {}
    for root, _, names in os.walk(out_dir):
        for name in names:
            path = os.path.join(root, name)
            if not name.endswith(RECORD_SUFFIX):
                found[os.path.relpath(path, out_dir)] = open(path, "rb").read()
    return found


SHARD = 20_000  # bytes: the big file becomes about 35 shards, the CRLF one about 3


def test_plan_cuts_big_files_at_sentence_boundaries_and_counts_lines(corpus):
    folder, model, corpus_dir, _ = corpus
    big = str(corpus_dir / "web" / "big.conllu")
    shards = plan([big], folder / "out", SHARD)[str(folder / "out" / "big.conllu")]
    data = open(big, "rb").read()
    assert len(shards) > 10 and shards[0].start == 0 and shards[-1].end is None
    sizes = [(shard.start, shard.end - shard.start) for shard in shards[:-1]]
    tail = len(data) - len(data) // 8
    assert min(size for start, size in sizes if start < tail) >= SHARD  # full shards, then quarters
    assert max(size for start, size in sizes if start >= tail) < SHARD / 2
    for shard, following in zip(shards, shards[1:]):
        assert shard.end == following.start and data[:shard.end].endswith(b"\n\n")
        assert following.first_line == data[:following.start].count(b"\n") + 1


def test_the_default_shard_size_gives_every_worker_thread_eight_shards(tmp_path):
    big = tmp_path / "big.conllu"
    with open(big, "wb") as handle:
        handle.truncate(100 << 20)
    assert shard_size([str(big)], 1) == 8 << 20  # 12.5 shards of 8 MB; 16 MB would give 6
    assert shard_size([str(big)], 2) == 4 << 20
    assert shard_size([str(big)], 1000) == 1 << 20  # never below 1 MB
    assert shard_size([str(big)] * 20, 1) == SHARD_BYTES  # 2 GB: the largest shards


def test_the_cluster_output_equals_a_one_process_run_byte_for_byte_and_a_rerun_skips_it(corpus, client, tmp_path):
    folder, model, corpus_dir, expected = corpus
    inputs = expand([str(corpus_dir / "**" / "*.conllu")])
    summary = parse_files(client, model, inputs, tmp_path, shard_bytes=SHARD)
    assert _outputs(tmp_path) == expected
    assert summary["files"] == 4 and summary["shards"] > 10 and summary["parsed"] == summary["shards"]
    assert summary["sentences"] == sum(len(list(conllu.read(path))) for path in inputs)
    record = json.loads((tmp_path / "news" / ("b.conllu" + RECORD_SUFFIX)).read_text())
    assert record["sentences"] == 30 and len(record["model_sha256"]) == 64 and record["shard"] == [0, 1]
    assert json.loads((tmp_path / "web" / ("big.conllu" + RECORD_SUFFIX)).read_text())["shard"] == "joined"
    again = parse_files(client, model, inputs, tmp_path, shard_bytes=SHARD)
    assert again["parsed"] == 0 and again["skipped"] == 4 and again["sentences"] == summary["sentences"]
    # a changed input is parsed again; a damaged output too; the rest is skipped
    toy_treebank(corpus_dir / "news" / "b.conllu", 31, seed=8)
    (tmp_path / "news" / "2020" / "a.conllu").write_bytes(b"damaged")
    third = parse_files(client, model, inputs, tmp_path, shard_bytes=SHARD)
    assert third["parsed"] == 3 and third["skipped"] == 2  # a's 2 shards and b parsed; big and crlf skipped
    toy_treebank(corpus_dir / "news" / "b.conllu", 30, seed=6)  # as it was, for the other tests
    assert _outputs(tmp_path)["news/2020/a.conllu"] == expected["news/2020/a.conllu"]


def test_a_worker_killed_mid_run_loses_nothing(corpus, client, tmp_path):
    folder, model, corpus_dir, expected = corpus
    inputs = expand([str(corpus_dir / "**" / "*.conllu")])
    pids = client.run(os.getpid)
    result = {}
    run = threading.Thread(target=lambda: result.update(parse_files(client, model, inputs, tmp_path,
                                                                    shard_bytes=SHARD // 4)))
    run.start()
    deadline = time.monotonic() + 120
    while not any(name.endswith(RECORD_SUFFIX) for _, _, names in os.walk(tmp_path) for name in names):
        assert time.monotonic() < deadline, "no shard finished"
        time.sleep(0.02)
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)
    run.join(timeout=300)
    assert not run.is_alive() and result, "the run did not finish"
    assert _outputs(tmp_path) == expected
    assert not [name for _, _, names in os.walk(tmp_path) for name in names if ".shard-" in name]
    assert victim not in client.run(os.getpid).values()  # that worker really died (the nanny started another)


def test_command_line_with_a_local_cluster(corpus, tmp_path, capsys):
    folder, model, corpus_dir, expected = corpus
    pattern = str(corpus_dir / "**" / "*.conllu")
    assert cli.main(["parse", "-m", str(model), "--scheduler", "local:2", pattern, "--out-dir", str(tmp_path)]) == 0
    assert _outputs(tmp_path) == expected
    assert "4 files in 4 shards: 4 parsed, 0 already done" in capsys.readouterr().err


@pytest.mark.parametrize("options, message", [
    (["--scheduler", "local:2"], "--scheduler and --out-dir (and --shard-mb) go together"),
    (["--shard-mb", "8"], "--scheduler and --out-dir (and --shard-mb) go together"),
    (["--scheduler", "local:2", "--out-dir", "x", "--shard-mb", "0"], "--shard-mb must be at least 1"),
    (["--scheduler", "local:2", "--out-dir", "x", "-j", "2"], "leave out --output and --jobs"),
    (["--scheduler", "local:two", "--out-dir", "x"], "expected local or local:N"),
])
def test_command_line_mistakes_are_one_line(corpus, options, message, capsys):
    folder, model, corpus_dir, _ = corpus
    assert cli.main(["parse", "-m", str(model), str(corpus_dir / "**" / "*.conllu"), *options]) == 2
    assert message in capsys.readouterr().err


def test_a_pattern_that_matches_nothing_is_an_error(tmp_path):
    with pytest.raises(BarleyError, match="no file matches"):
        expand([str(tmp_path / "**" / "*.conllu")])


def test_an_output_folder_among_the_inputs_is_refused(corpus):
    folder, model, corpus_dir, _ = corpus
    with pytest.raises(BarleyError, match="is inside the output folder"):
        plan(expand([str(corpus_dir / "**" / "*.conllu")]), corpus_dir / "news")
