"""How often Python's cycle collector runs while barley parses, in every process that parses:
the ``barley parse`` process, its forked workers (``--jobs``), and Dask's worker processes.

Parsing allocates millions of small containers (rows, states) that live until their
sentence is written and never form cycles: collecting every 700 allocations (Python's
default) cost a fifth of the parse. A loaded model's objects are never garbage, so they
are frozen out of the collector's sight (:func:`gc.freeze`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

GC_THRESHOLD = 100_000
"""Allocations between collections of the youngest generation (Python's default: 700)."""


@contextlib.contextmanager
def collecting_rarely() -> Iterator[None]:
    """Collect the youngest generation every :data:`GC_THRESHOLD` allocations inside the block."""
    threshold = gc.get_threshold()
    gc.set_threshold(GC_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


def freeze_loaded() -> None:
    """Leave every object alive now (a model just loaded) out of all later collections
    (the few cycles already garbage then stay: a full collection first would cost start-up)."""
    gc.freeze()
