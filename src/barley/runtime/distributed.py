"""Parsing a corpus on a Dask cluster: shards, records beside them, resumable.

:func:`parse_files` cuts every input file into shards (:mod:`barley.runtime.shards`: whole sentences,
about ``shard_bytes`` each; a ``.gz`` file is one shard) and parses each shard as one
Dask task. The model file's bytes are sent to every worker once
(``client.scatter(..., broadcast=True)``) and each worker process loads it once
(cached by checksum). A task writes its shard's output atomically
(:mod:`barley.atomic`) and then, beside it, a small JSON record of what produced
it: the model's and the input's SHA-256, the byte range and first line, counts,
the output's SHA-256. The record is written last, so it certifies a complete
output: a rerun (after a failure, an interruption, or with more files) skips every
shard whose record matches its model, input and output, and parses the rest.

A worker that dies in the middle loses nothing: Dask runs its tasks again on
another worker, and since a task writes only complete files, under names that
depend on the shard alone, a repeated task writes the same bytes. The client
appends the shards of a file, in order, to one output file as they finish (so the
join overlaps the parse; the file is written atomically, its record last), which
equals the output of a one-process ``barley parse`` byte for byte.

Needs the optional extra ``dask`` (``pip install -e '.[dask]'`` in barley's checkout); the workers
must see the input and output paths (a shared file system) and have barley installed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import IO

from barley import __version__
from barley.atomic import atomic_output
from barley.collecting import freeze_loaded
from barley.errors import BarleyError
from barley.runtime.parallel import one_thread, parse_bytes
from barley.runtime.shards import Shard, expand, plan, sha256_file, shard_size

RECORD_SUFFIX = ".barley.json"

_PIPELINES: dict[str, object] = {}


def _pipeline_for(model_sha: str, model_bytes: bytes):
    """The pipeline of these model bytes (:meth:`barley.pipeline.Pipeline.load`, the loader of every
    entry point), loaded once per worker process."""
    pipeline = _PIPELINES.get(model_sha)
    if pipeline is None:
        from barley.pipeline import Pipeline

        with tempfile.TemporaryDirectory(prefix="barley-model-") as folder:
            path = os.path.join(folder, "model.barley")
            with open(path, "wb") as handle:
                handle.write(model_bytes)
            pipeline = Pipeline.load(path)
        _PIPELINES.clear()  # one model at a time per worker
        _PIPELINES[model_sha] = pipeline
        freeze_loaded()
        one_thread()
    return pipeline


def _read_shard(shard: Shard) -> bytes:
    from barley.conllu import open_bytes

    with open_bytes(shard.source) as handle:
        if shard.end is None:
            if shard.start:
                handle.seek(shard.start)
            return handle.read()
        handle.seek(shard.start)
        return handle.read(shard.end - shard.start)


def read_record(output: str) -> dict | None:
    try:
        with open(output + RECORD_SUFFIX, encoding="utf-8") as handle:
            record = json.load(handle)
        return record if isinstance(record, dict) else None
    except (OSError, ValueError):
        return None


def _finished(record: dict | None, model_sha: str, input_sha: str, output: str) -> bool:
    """Whether a record certifies that ``output`` is this model's parse of this input, complete."""
    if not record or record.get("model_sha256") != model_sha or record.get("input_sha256") != input_sha:
        return False
    try:
        return (os.path.getsize(output) == record.get("output_bytes")
                and sha256_file(output) == record.get("output_sha256"))
    except OSError:
        return False


def _write_record(output: str, record: dict) -> None:
    with atomic_output(output + RECORD_SUFFIX, flush_to_disk=False) as handle:  # checked when read
        handle.write((json.dumps(record, indent=1, sort_keys=True) + "\n").encode("utf-8"))


def parse_shard(model_bytes: bytes, model_sha: str, shard: Shard) -> dict:
    """One task: parse a shard unless its record shows it finished; return its record."""
    data = _read_shard(shard)
    input_sha = hashlib.sha256(data).hexdigest()
    record = read_record(shard.output)
    if record is not None and _finished(record, model_sha, input_sha, shard.output):
        return {**record, "skipped": True}
    started = time.perf_counter()
    pipeline = _pipeline_for(model_sha, model_bytes)
    text, stats = parse_bytes(pipeline, data, shard.source, shard.first_line, shard.newline)
    os.makedirs(os.path.dirname(os.path.abspath(shard.output)), exist_ok=True)
    with atomic_output(shard.output, flush_to_disk=False) as handle:  # checked against its record when used
        handle.write(text)
    record = {"barley_version": __version__, "model_sha256": model_sha, "input": shard.source,
              "input_sha256": input_sha, "input_bytes": [shard.start, shard.start + len(data)],
              "first_line": shard.first_line, "shard": [shard.index, shard.count],
              "sentences": stats.sentences, "words": stats.words,
              "output_sha256": hashlib.sha256(text).hexdigest(), "output_bytes": len(text),
              "seconds": round(time.perf_counter() - started, 3)}
    _write_record(shard.output, record)
    return {**record, "skipped": False}


# --- on the client -------------------------------------------------------------------------

def parse_files(client, model: str | os.PathLike, inputs: Iterable[str | os.PathLike], out_dir: str | os.PathLike,
                shard_bytes: int | None = None, join: bool = True, progress=None) -> dict:
    """Parse ``inputs`` on the Dask cluster of ``client`` into ``out_dir``; return a summary.

    ``inputs`` are file paths (see :func:`expand` for glob patterns); the outputs
    keep their paths relative to the inputs' common folder. With ``join`` the
    shards of a file cut in several are joined into one output (and removed).
    ``progress(done, total)`` is called as shards finish. Shards already finished
    by an earlier run with the same model and input are skipped. ``shard_bytes``:
    the size of a shard (default: :func:`shard_size` for the cluster's worker threads).
    """
    model = os.fspath(model)
    try:
        model_bytes = Path(model).read_bytes()
    except OSError as error:
        raise BarleyError(f"cannot read the model: {error.strerror}", path=model) from None
    from barley.models.archive import read_manifest

    read_manifest(model)  # a damaged model fails here, once, not on every worker
    model_sha = hashlib.sha256(model_bytes).hexdigest()
    paths = [str(os.fspath(path)) for path in inputs]
    shard_bytes = shard_bytes or shard_size(paths, sum(client.nthreads().values()))
    by_output = plan(paths, out_dir, shard_bytes)
    for output in by_output:
        os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    records = []
    shards = []
    to_join = []
    for output, group in by_output.items():
        joined = _joined(output, group[0].source, model_sha) if join and len(group) > 1 else None
        if joined:  # joined by an earlier run: its record stands for all of its shards
            records.append({**joined, "skipped": True})
            continue
        shards.extend(group)
        if join and len(group) > 1:
            to_join.append((output, group))
    model_future = client.scatter(model_bytes, broadcast=True)
    # pure=False: fresh task keys every run, so a rerun never reuses results the scheduler still holds
    futures = client.map(parse_shard, [model_future] * len(shards), [model_sha] * len(shards), shards, pure=False)
    shard_of = dict(zip(futures, shards))
    from distributed import as_completed

    with contextlib.ExitStack() as unfinished:  # joined outputs being written: discarded if the run fails
        # the joined outputs' records name their inputs' SHA-256: hashed by a thread here while the workers parse
        hashing = unfinished.enter_context(ThreadPoolExecutor(1))
        joiner_of = {shard.output: joiner for joiner in (_Joiner(output, group, model_sha, unfinished,
                                                                 hashing.submit(sha256_file, group[0].source))
                                                         for output, group in to_join) for shard in joiner.group}
        try:
            for done, future in enumerate(as_completed(futures), start=1):
                records.append(future.result())
                shard = shard_of[future]
                if shard.output in joiner_of:
                    joiner_of[shard.output].finished(shard, records[-1])
                if progress:
                    progress(done, len(futures))
        except BarleyError:
            raise
        except Exception as error:  # KilledWorker (a shard killed its workers again and again), lost scheduler
            raise BarleyError(f"the cluster failed: {type(error).__name__}: {error}",
                              fix="run the same command again: finished shards are kept and skipped") from None
    return {"shards": sum(len(group) for group in by_output.values()), "files": len(by_output),
            "parsed": sum(not r["skipped"] for r in records),
            "skipped": sum(r["skipped"] for r in records), "sentences": sum(r["sentences"] for r in records),
            "words": sum(r["words"] for r in records), "seconds": sum(r["seconds"] for r in records
                                                                     if not r["skipped"])}


def _joined(output: str, source: str, model_sha: str) -> dict | None:
    """The record of ``output`` if an earlier run joined it with this model from this very input."""
    record = read_record(output)
    if not record or record.get("model_sha256") != model_sha or record.get("shard") != "joined":
        return None
    try:
        if record.get("input_size") != os.path.getsize(source):
            return None
        input_sha = sha256_file(source)
    except OSError:
        return None
    return record if _finished(record, model_sha, input_sha, output) else None


class _Joiner:
    """A file cut in shards: their outputs appended, in order, to its output as soon as they are
    finished (so joining overlaps the parse), then its record written and the shards removed."""

    def __init__(self, output: str, group: list[Shard], model_sha: str, unfinished: contextlib.ExitStack,
                 input_sha: Future):
        self.output, self.group, self.model_sha, self.input_sha = output, group, model_sha, input_sha
        self.unfinished = unfinished
        self.files: contextlib.ExitStack | None = None  # opened with the first shard: few files at a time
        self.out: IO[bytes] | None = None
        self.records: dict[int, dict] = {}  # finished shards not appended yet, by index
        self.next = 0
        self.hasher = hashlib.sha256()
        self.size = self.sentences = self.words = 0

    def finished(self, shard: Shard, record: dict) -> None:
        self.records[shard.index] = record
        while self.next in self.records:
            self._append(self.group[self.next], self.records.pop(self.next))
            self.next += 1
        if self.next == len(self.group):
            assert self.files is not None  # opened by the first shard appended
            self.files.close()  # complete: the output takes its name
            source = self.group[0].source
            _write_record(self.output, {
                "barley_version": __version__, "model_sha256": self.model_sha, "input": source,
                "input_sha256": self.input_sha.result(), "input_size": os.path.getsize(source),
                "shard": "joined", "shards": len(self.group), "sentences": self.sentences, "words": self.words,
                "output_sha256": self.hasher.hexdigest(), "output_bytes": self.size})
            for shard in self.group:
                os.unlink(shard.output)
                os.unlink(shard.output + RECORD_SUFFIX)

    def _append(self, shard: Shard, record: dict) -> None:
        if self.out is None:
            self.files = self.unfinished.enter_context(contextlib.ExitStack())
            self.out = self.files.enter_context(atomic_output(self.output))
        with open(shard.output, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                self.out.write(chunk)
                self.hasher.update(chunk)
                self.size += len(chunk)
        self.sentences += record["sentences"]
        self.words += record["words"]


def connect(scheduler: str):
    """A Dask client for ``tcp://HOST:PORT`` (a running scheduler) or ``local:N`` (N worker processes here)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise BarleyError("parsing on a cluster needs Dask, which is not installed",
                          fix="pip install -e '.[dask]' in barley's checkout") from None
    if scheduler.startswith("local"):
        _, _, workers = scheduler.partition(":")
        if workers and not workers.isdigit():
            raise BarleyError(f"--scheduler {scheduler!r}: expected local or local:N",
                              fix="e.g. --scheduler local:4, or tcp://HOST:8786")
        cluster = LocalCluster(n_workers=int(workers or os.cpu_count() or 1), threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        return Client(cluster)
    try:
        return Client(scheduler, timeout="30s")
    except (OSError, TimeoutError) as error:
        raise BarleyError(f"cannot reach the Dask scheduler {scheduler} ({error})",
                          fix="start it with `dask scheduler` (and workers with `dask worker ADDRESS`)") from None


def parse_on_cluster(args) -> int:
    """``barley parse --scheduler ADDRESS IN --out-dir DIR``."""
    if not (args.scheduler and args.out_dir):
        raise BarleyError("--scheduler and --out-dir (and --shard-mb) go together",
                          fix="give both, e.g. --scheduler local:2 'corpus/**/*.conllu' --out-dir parsed/")
    if args.output != "-" or args.jobs != 1:
        raise BarleyError("with --scheduler, outputs go to --out-dir and the cluster's workers do the work",
                          fix="leave out --output and --jobs")
    if args.shard_mb is not None and args.shard_mb < 1:
        raise BarleyError("--shard-mb must be at least 1")
    if args.input == "-":
        raise BarleyError("a cluster parses files, not stdin", fix="name the files, e.g. 'corpus/**/*.conllu'")
    inputs = expand([args.input])
    started = time.perf_counter()
    with connect(args.scheduler) as client:
        def progress(done: int, total: int) -> None:
            if not args.quiet and (done == total or done % max(1, total // 20) == 0):
                seconds = time.perf_counter() - started
                print(f"barley parse: {done}/{total} shards, {seconds:.0f} s, "
                      f"ETA {seconds * (total - done) / done:.0f} s", file=sys.stderr, flush=True)

        summary = parse_files(client, args.model, inputs, args.out_dir, shard_bytes=args.shard_mb and args.shard_mb << 20,
                              progress=progress)
        if args.scheduler.startswith("local"):
            client.cluster.close()
    if not args.quiet:
        seconds = time.perf_counter() - started
        print(f"barley parse: {summary['files']} files in {summary['shards']} shards: {summary['parsed']} parsed, "
              f"{summary['skipped']} already done; {summary['sentences']} sentences, {summary['words']} words; "
              f"{seconds:.1f} s, {summary['words'] / max(seconds, 1e-9):.0f} words/s", file=sys.stderr)
    return 0
