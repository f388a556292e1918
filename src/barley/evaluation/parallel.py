"""``barley evaluate --jobs N``: scoring a large file on every core, with the report of one process.

The gold file is cut into blocks by :func:`barley.runtime.blocks.blocks` (the one cutting
rule: whole sentences, about a megabyte each), and every system file right after the
same numbers of sentences. Each worker process scores a gold block against its
system blocks with the code of one process (:func:`barley.evaluation.attachment.evaluate`,
:func:`barley.evaluation.conll18.evaluate_conll18`), and the main process joins the
pieces in file order: per-word facts end to end, counts added
(:meth:`~barley.evaluation.attachment.Evaluation.concatenate`,
:meth:`~barley.evaluation.conll18.Conll18Evaluation.concatenate`). Every figure of the
report (the tables by length and by DEPREL, McNemar's test of ``--compare``, the
CoNLL 2018 metrics) is then the one of ``--jobs 1``, byte for byte.

That holds when the pieces can be scored apart: each system block has the text of
its gold block and its last word is paired with the gold block's last word (so the
CoNLL 2018 alignment never pairs words of two blocks). When that fails — a system
whose sentence split differs from the gold's, a word that differs, any error in the
input — :func:`evaluate_files` gives up and returns None, and the command scores the
files in one process, so the report, or the one-line error, is again that of one process.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterator

from barley.conllu import open_bytes, read_bytes
from barley.errors import InputError
from barley.evaluation.attachment import Evaluation, evaluate
from barley.evaluation.conll18 import Conll18Evaluation, evaluate_conll18
from barley.runtime.blocks import BLOCK_BYTES, blocks, first_line_end
from barley.runtime.parallel import in_order, worker_pool

Piece = tuple[bytes, int, str | None]
"""A block of one file as a worker reads it: its bytes, first line, and the file's line end (None: its first block)."""


def evaluate_files(gold: str, systems: list[str], exclude_punct: bool | str, jobs: int, per_word: bool = True,
                   block_bytes: int | None = None) -> list[tuple[Conll18Evaluation, Evaluation | None]] | None:
    """Score each of ``systems`` against ``gold`` (paths, not stdin) with ``jobs`` processes.

    For each system: its CoNLL 2018 metrics and, when ``per_word`` and its tokenization is
    the gold's, barley's per-word evaluation (else None), each the same as one process
    gives; None when the files cannot be scored in pieces (see the module docstring).
    ``block_bytes``: the size of the gold's blocks (default :data:`~barley.runtime.blocks.BLOCK_BYTES`).
    """
    names = [gold, *systems]
    block_bytes = block_bytes or BLOCK_BYTES
    with contextlib.ExitStack() as stack:
        handles = [stack.enter_context(open_bytes(name)) for name in names]
        wanted: list[deque] = [deque() for _ in systems]  # the gold blocks' sentence counts, one at a time
        cuts = [blocks(handle, block_bytes, iter(counts.popleft, None), name)
                for handle, counts, name in zip(handles[1:], wanted, systems)]
        newlines: list[str | None] = [None] * len(names)
        pool = stack.enter_context(worker_pool(jobs, None, "scoring"))
        longer = False  # a system file with more sentences than the gold

        def calls() -> Iterator[tuple]:
            nonlocal longer
            for block in blocks(handles[0], block_bytes, name=gold):
                for counts in wanted:
                    counts.append(block.sentences)
                pieces = [block, *(next(cut) for cut in cuts)]
                if block.index == 0:
                    newlines[:] = [first_line_end(piece.data) for piece in pieces]
                yield None, _score_block, ([(piece.data, piece.first_line, None if block.index == 0 else newline)
                                            for piece, newline in zip(pieces, newlines)],
                                           names, exclude_punct, per_word)
            for counts, cut in zip(wanted, cuts):
                counts.append(None)
                longer = longer or bool(next(cut).data.strip())

        parts = []
        for _, part in in_order(pool, jobs, calls()):
            if part is None:
                return None
            parts.append(part)
    if longer or not parts:
        return None
    return [(Conll18Evaluation.concatenate([part[i][0] for part in parts]),
             Evaluation.concatenate([part[i][1] for part in parts])
             if all(part[i][1] is not None for part in parts) else None)
            for i in range(len(systems))]


def _score_block(pieces: list[Piece], names: list[str], exclude_punct: bool | str, per_word: bool
                 ) -> list[tuple[Conll18Evaluation, Evaluation | None]] | None:
    """In a worker: the gold piece (the first) against each system piece; None if they cannot be scored apart."""
    try:
        gold, *systems = (list(read_bytes(data, name, first_line, newline))
                          for (data, first_line, newline), name in zip(pieces, names))
        scored = []
        for system in systems:
            conll18 = evaluate_conll18(gold, system)
            if not conll18.ends_aligned:
                return None
            scored.append((conll18, evaluate(gold, system, exclude_punct)
                           if per_word and conll18.same_tokenization else None))
        return scored
    except InputError:  # the one-process run names it, with the numbers of the whole files
        return None

