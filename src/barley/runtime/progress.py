"""Progress of a long parse on a terminal: sentences, words, words/s and, where the input's size is known, the
share done and the time left.

``barley parse`` and ``barley tag`` show it (in one process or with ``--jobs``) only when stderr is a
terminal and ``-q`` is not given: a line that rewrites itself about once a second, cleared when the parse
ends (the summary line follows). Piped or redirected, they print the summary alone.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from barley.conllu import Sentence

EVERY_SECONDS = 1.0


def input_size(source: str) -> int | None:
    """The bytes of ``source`` to read, where they are known (a plain file; not stdin, not gzip)."""
    if source == "-" or source.endswith(".gz"):
        return None
    try:
        return os.path.getsize(source)
    except OSError:
        return None


class Progress:
    """Counts of a parse as it goes (:meth:`add`), shown on ``stream`` when it is a terminal."""

    def __init__(self, command: str, source: str, stream: TextIO | None = None, every: float | None = None):
        self.command, self.stream = command, stream or sys.stderr
        self.every = EVERY_SECONDS if every is None else every
        self.shown = bool(getattr(self.stream, "isatty", lambda: False)())
        self.total = input_size(source)
        self.sentences = self.words = self.read = 0
        self._sizes: dict[int, int] = {}
        self.started = self.last = time.perf_counter()
        self.width = 0  # of the line shown last, to clear it

    def reading(self, sentences: Iterable[Sentence]) -> Iterator[Sentence]:
        """CoNLL-U ``sentences`` as they are read, each one's bytes noted (where progress is shown) for
        :meth:`written`: a parser reads ahead of what it writes."""
        for sentence in sentences:
            if self.shown:
                self._sizes[id(sentence)] = len(sentence.to_text().encode("utf-8"))
            yield sentence

    def written(self, sentence: Sentence) -> None:
        """One more sentence written: its words, and the bytes of the input it came from (noted by
        :meth:`reading`, else those of its text, as the tokenizer read it)."""
        size = self._sizes.pop(id(sentence), None)
        if size is None and self.shown:
            text = next((c for c in reversed(sentence.comments) if c.startswith("# text = ")), "# text = ")
            size = len(text.encode("utf-8")) - len("# text = ") + 1
        self.add(1, len(sentence), size or 0)

    def add(self, sentences: int, words: int, read: int = 0) -> None:
        """``sentences`` and ``words`` written more, from ``read`` more bytes of the input."""
        self.sentences += sentences
        self.words += words
        self.read += read
        now = time.perf_counter()
        if self.shown and now - self.last >= self.every:
            self.last = now
            self._show(self.line(now - self.started))

    def line(self, seconds: float) -> str:
        """What is shown after ``seconds``: the counts, the speed, the share done and the time left."""
        rate = self.words / max(seconds, 1e-9)
        text = f"barley {self.command}: {self.sentences:,} sentences, {self.words:,} words, {rate:,.0f} words/s"
        share = min(self.read / self.total, 1.0) if self.total else 0.0
        if share >= 0.01:  # before, the time left would be a guess
            left = seconds * (1 - share) / max(share, 1e-9)
            text += f", {100 * share:.0f}% of the input, about {_duration(left)} left"
        return text

    def _show(self, text: str) -> None:
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        """Clear the line shown, if any, for the summary that follows."""
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes} min {seconds:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"
