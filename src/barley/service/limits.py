"""What one request may cost the service: its size in bytes and words, and how slowly it may arrive.

The defaults keep the worst request allowed within about 5 s with the default model
(``bench/bench_serve.py`` prints the time of the worst ones): the shipped neural pipeline
tokenizes, tags, lemmatizes and parses about 5,000 words/s on one core, and a sentence of
hundreds of words costs about twice as much per word as an ordinary one (its biaffine
scores and spanning tree grow with the square of its length). No sentence of the UD
treebanks in ``shared/data`` has more than 232 words, so 300 per sentence refuses only what
is not a sentence (a whole text on one line, a generated stress test). A faster model can be
served with larger limits (the options below).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from barley.errors import BarleyError

if TYPE_CHECKING:  # `barley serve --help` reads the defaults without importing the reader
    from barley.conllu import Sentence


@dataclass(frozen=True)
class Limits:
    max_request_bytes: int = 16 * 1024 * 1024
    """A larger body gets 413 (option ``--max-request-bytes``)."""
    max_sentence_words: int = 300
    """A sentence of more words gets 413 (option ``--max-sentence-words``)."""
    max_request_words: int = 16_000
    """A request of more words gets 413 (option ``--max-request-words``)."""
    read_timeout: float = 10.0
    """Seconds a client may take to send a request's header, and may pause while sending its
    body, before the connection is closed (option ``--read-timeout``)."""
    max_header_bytes: int = 64 * 1024
    """A request line and header longer than this get 431 (no option: no client needs more)."""


class OverLimit(BarleyError):
    """A request over one of the service's limits: answered 413 with this message."""


def within_word_limits(sentences: Iterable[Sentence], limits: Limits, source: str) -> Iterator[Sentence]:
    """``sentences`` as they come, stopping at the first one over the limits (an :class:`OverLimit`
    naming the limit and its option): a request over them is refused before it is parsed (and a
    text before the rest of it is tokenized)."""
    words = 0
    for number, sentence in enumerate(sentences, start=1):
        length = len(sentence.words)
        line = sentence.line or None  # a sentence the tokenizer made has no line: its number says which
        if length > limits.max_sentence_words:
            raise OverLimit(f"a sentence of {length} words{'' if line else f' (sentence {number})'}, over the limit "
                            f"of {limits.max_sentence_words} words per sentence", path=source, line=line,
                            fix="split it, or start barley serve with a larger --max-sentence-words")
        words += length
        if words > limits.max_request_words:
            raise OverLimit(f"the request has more than {limits.max_request_words} words, the limit per request",
                            path=source, line=line,
                            fix="send the sentences in several requests, or start barley serve with a larger "
                                "--max-request-words")
        yield sentence
