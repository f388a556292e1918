"""The threads of the BLAS under numpy while barley parses: one by default.

The numpy engine's work per call is small matrices (a batch of sentences through a BiLSTM, a
window of characters through the tokenizer), where a BLAS thread per core gains little when the
machine is idle and loses much when it is busy: OpenBLAS's threads spin waiting for each other,
so with two busy processes beside it on a 2-core machine, tokenizing 10,000 characters took 13.4 s
of CPU against 0.95 s with one thread (``bench/bench_blas_threads.py`` measures the whole command).
Parallelism belongs to processes (``--jobs``, ``pipe(n_process=...)``, a Dask cluster), whose
workers take one thread each (:func:`barley.runtime.parallel.one_thread`).

The limit holds only while barley computes (:func:`limited` sets it around each step of a
stream and restores it after), so that the numpy of the program around barley keeps its own.
Training is not limited: ``--threads`` sets PyTorch's threads there, as before.
"""

from __future__ import annotations

from collections.abc import Iterator

BLAS_THREADS = 1
"""The BLAS threads of a parsing process unless told otherwise (``--blas-threads``,
:attr:`barley.pipeline.Pipeline.blas_threads`); 0: the library's own default, a thread per core."""


def limited(items: Iterator, threads: int) -> Iterator:
    """``items`` as they come, each computed with the BLAS limited to ``threads`` threads (0: no limit)."""
    if not threads:
        yield from items
        return
    from threadpoolctl import ThreadpoolController  # scikit-learn's dependency, so barley's

    # the libraries loaded now (about 1 ms to find; a BLAS loaded later, scipy's say, is found by the
    # next stream); each limit then costs about 30 µs
    controller = ThreadpoolController()
    while True:
        with controller.limit(limits=threads, user_api="blas"):
            item = next(items, _END)
        if item is _END:
            return
        yield item


_END = object()
