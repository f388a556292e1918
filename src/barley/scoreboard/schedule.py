"""Running the scoreboard's cells: on the local cores, or on a Dask cluster; progress and an estimate of the time left.

Locally (``--jobs N``), N cells run at once, each on cores of its own: the cores this process
may use are dealt out in slots of as many cores as a recipe trains with (the neural recipe's
two PyTorch threads: two cores), a cell's commands are pinned to its slot's cores
(``taskset``) and its timed parse to the slot's first core, so that no training shares a core
with another cell's timed parse. By default N is the cores divided by the slot's size.

On a Dask cluster (``--scheduler ADDRESS``, the optional extra ``dask``, as for ``barley parse``),
each cell is one task; a worker runs one cell at a time (``dask worker --nthreads 1``), its
commands unpinned but for the timed parse, on the first core the worker may use (start each
worker on cores of its own, ``taskset -c 2,3 dask worker ...``, for timings that do not
collide). The workers must see the treebanks and the output folder at the same paths.

The time left is estimated from the training words of the cells done and the wall time so far.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from barley.errors import BarleyError
from barley.scoreboard import page
from barley.scoreboard.cell import Cell, allow_commands, execute, finished, stop_running
from barley.treebank_folder import count_words

HEARTBEAT = 600.0
"""Seconds between the lines that say what is still running, when no cell has finished meanwhile."""

Report = Callable[[Cell, "dict | None", "BaseException | None"], None]


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _progress(message: str) -> None:
    print(f"barley scoreboard: {message}", file=sys.stderr, flush=True)


def duration(seconds: float) -> str:
    """``1 h 05 min``, ``12 min``, ``40 s``."""
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min"


def slots(cores: list[int], size: int, jobs: int) -> list[tuple[int, ...]]:
    """``jobs`` slots of ``size`` cores each, dealt from ``cores`` in order; where there are not enough,
    dealing wraps round and slots share cores."""
    size = min(size, len(cores))
    return [tuple(cores[(slot * size + at) % len(cores)] for at in range(size)) for slot in range(jobs)]


class Estimate:
    """The time left: the training words still to do over the words done per wall second so far."""

    def __init__(self, cells: list[Cell]):
        counted: dict[str, int] = {}
        for cell in cells:
            if cell.treebank.train not in counted:
                counted[cell.treebank.train] = count_words(cell.treebank.train)
        self.words = {cell.directory: counted[cell.treebank.train] for cell in cells}
        self.cells = len(cells)
        self.finished = 0
        self.left = sum(self.words.values())
        self.started = time.perf_counter()

    def finish(self, cell: Cell) -> None:
        self.finished += 1
        self.left -= self.words[cell.directory]

    def __str__(self) -> str:
        elapsed = time.perf_counter() - self.started
        done = sum(self.words.values()) - self.left
        if not self.left:
            return f"all done in {duration(elapsed)}"
        if not done:
            return f"{duration(elapsed)} so far"
        return f"{duration(elapsed)} so far, about {duration(elapsed * self.left / done)} left"


def _outcome(record: dict) -> str:
    raw, gold = record["scores"]["raw"], record["scores"]["gold_tokenization"]
    trained = "trained by an earlier run in" if record["trained_before"] else "trained in"
    resumed = " (resumed: this run's time alone)" if page.resumed(record) else ""
    return (f"LAS {raw['LAS']:.2f} from raw text, {gold['LAS']:.2f} with gold tokenization; {trained} "
            f"{duration(record['train']['seconds'])}{resumed}, parses {record['parse']['words_per_second']:,} words/s")


def run(cells: list[Cell], jobs: int, cores: list[int], client=None,
        progress: Callable[[str], None] = _progress) -> list[str]:
    """Do every cell of ``cells`` not done yet, ``jobs`` at a time on ``cores`` (or on the Dask cluster of
    ``client``); return the failures (``title: reason``). A failed cell does not stop the others."""
    pending = [cell for cell in cells if finished(cell) is None]
    jobs = max(1, min(jobs, len(pending)))
    dealt = slots(cores, max((cell.threads for cell in pending), default=1), jobs)
    if client is not None:
        where = f"on the Dask cluster ({_many(sum(client.nthreads().values()), 'worker thread')})"
    else:
        width = len(dealt[0])
        whose = (f"shared ({jobs} × {width} is more than the {len(cores)} cores here)" if jobs * width > len(cores)
                 else "of its own")
        where = (f"{jobs} at a time, each on {width} core{'s' if width > 1 else ''} {whose}: "
                 + "; ".join(",".join(map(str, slot)) for slot in dealt))
    treebanks, recipes = len({cell.treebank.name for cell in cells}), len({cell.recipe for cell in cells})
    progress(f"{_many(len(cells), 'cell')} ({_many(treebanks, 'treebank')} × {_many(recipes, 'recipe')}), "
             f"{len(cells) - len(pending)} done already, "
             f"{len(pending)} to do" + (f", {where}" if pending else ""))
    if not pending:
        return []
    estimate = Estimate(pending)
    failures: list[str] = []

    def report(cell: Cell, record: dict | None, error: BaseException | None) -> None:
        estimate.finish(cell)
        counted = f"[{estimate.finished}/{estimate.cells}] {cell.title}"
        if error is not None:
            reason = str(error) if isinstance(error, BarleyError) else f"{type(error).__name__}: {error}"
            failures.append(f"{cell.title}: {reason}")
            progress(f"{counted}: FAILED: {reason}; {estimate}")
        elif record is not None:
            progress(f"{counted}: {_outcome(record)}; {estimate}")

    if client is not None:
        _on_cluster(client, pending, report, estimate, progress)
    else:
        _here(pending, dealt, report, estimate, progress)
    return failures


def _here(cells: list[Cell], dealt: list[tuple[int, ...]], report: Report, estimate: Estimate,
          progress: Callable[[str], None]) -> None:
    """Run the cells in threads (each waits on the commands of its cell), one per slot of ``dealt``."""
    waiting, free = list(cells), list(range(len(dealt)))
    running: dict = {}  # future: (cell, slot, started)
    allow_commands()
    with ThreadPoolExecutor(len(dealt)) as pool:
        try:
            while waiting or running:
                while waiting and free:
                    cell, slot = waiting.pop(0), free.pop(0)
                    progress(f"starting {cell.title} ({estimate.words[cell.directory]:,} training words) on "
                             f"core{'s' if len(dealt[slot]) > 1 else ''} {','.join(map(str, dealt[slot]))}")
                    running[pool.submit(execute, cell, dealt[slot])] = (cell, slot, time.perf_counter())
                ended, _ = wait(running, timeout=HEARTBEAT, return_when=FIRST_COMPLETED)
                if not ended:
                    now = time.perf_counter()
                    progress("running: " + ", ".join(f"{cell.title} for {duration(now - started)}"
                                                     for cell, _, started in running.values()) + f"; {estimate}")
                for future in ended:
                    cell, slot, _ = running.pop(future)
                    free.append(slot)
                    free.sort()
                    error = future.exception()
                    report(cell, None if error else future.result(), error)
        except BaseException:  # Ctrl-C, SIGTERM: the cells' commands are stopped (a rerun does them again)
            stop_running()
            raise


def _on_cluster(client, cells: list[Cell], report: Report, estimate: Estimate,
                progress: Callable[[str], None]) -> None:
    """One Dask task per cell; their outcomes reported as they finish."""
    from distributed import wait as cluster_wait

    futures = {client.submit(execute, cell, None, pure=False): cell for cell in cells}
    left = set(futures)
    try:
        while left:
            try:
                ended = cluster_wait(list(left), timeout=HEARTBEAT, return_when="FIRST_COMPLETED").done
            except TimeoutError:
                progress(f"{len(left)} cells in the cluster; {estimate}")
                continue
            for future in ended:
                left.discard(future)
                try:
                    record, error = future.result(), None
                except Exception as failure:  # the cell's own error, or the cluster's (KilledWorker, ...)
                    record, error = None, failure
                report(futures[future], record, error)
    except BaseException:
        client.cancel(list(left))
        raise
