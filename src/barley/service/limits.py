"""What one request may cost the service: its size in bytes, words and characters, how slowly it may
arrive, and how many connections the service holds at once.

The defaults keep the worst request allowed within 5 s with the default model on one core
(``python bench/bench_serve.py --limits-only`` prints the time of the worst ones; 4.75 s at most,
for the 7,000 words in the longest sentences the pairs of words allow, drawn). What a request
costs the shipped pipeline (CoNLL-U in, tagged, lemmatized and parsed; CPU time, in this
process): about 0.3 ms a word, 0.3 ms more a sentence (7,000 one-word sentences are as costly
as 13,000 words in sentences of 20) and 2 µs a pair of words of a sentence (its biaffine scores,
spanning tree and the UD rules' checks grow with the square of its length: a word of a
300-word sentence costs 0.85 ms). So the words, the words per sentence and the pairs of words
bound it together. No sentence of the UD treebanks in ``shared/data`` has more than 232 words,
so 300 per sentence refuses only what is not a sentence (a whole text on one line, a generated
stress test). A word costs more the more characters the character model reads of it (the
first and last 32): 7,000 words of 8 random letters cost 1.5 times as much as 7,000 of EWT
(4.1 characters a word), so 60,000 characters per request (8.6 a word at the words limit; the
treebank with the longest words here, Turkish IMST, has 5.8 on average) keep such requests
within the bound. A faster model can be served with larger limits (the options below).
"""

from __future__ import annotations

import re
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
    max_request_words: int = 7_000
    """A request of more words gets 413 (option ``--max-request-words``)."""
    max_word_pairs: int = 500_000
    """A request whose sentences have more pairs of words in all (the sum of the square of each one's
    words) gets 413 (option ``--max-word-pairs``): a sentence of n words costs the parser n² arc scores
    and the UD rules' checks of its arcs grow as fast, so long sentences are bounded by their pairs
    as words are by their number: 500,000 are the 7,000 words allowed in sentences of 71, 76
    sentences of 81 words (EWT test's longest; 159 in its training set), 5 of 300."""
    max_word_chars: int = 5_000
    """A word of more characters gets 413 (option ``--max-word-chars``): not for its cost (the character
    model reads 64 characters of a word at most), but since it is no word."""
    max_request_chars: int = 60_000
    """A request whose words have more characters in all gets 413 (option ``--max-request-chars``)."""
    max_text_chars: int = 20_000
    """A text (input ``text``) of more characters, whitespace aside, gets 413 before it is tokenized
    (option ``--max-text-chars``): the tokenizer scores every character, about 100 µs each with
    the shipped model on one core, so a text costs more in tokenizing than in parsing the words
    it holds, and 20,000 characters (about 4,100 words of English) take 4.3 s in all."""
    read_timeout: float = 10.0
    """Seconds a client may take to send a request's header, and may pause while sending its
    body, before the connection is closed (option ``--read-timeout``)."""
    body_timeout: float = 60.0
    """Seconds a client may take to send a whole request body, however steadily (option
    ``--body-timeout``): 16 MiB at 2.3 Mbit/s."""
    max_connections: int = 32
    """Connections the service holds at once; one more gets 503 (option ``--max-connections``).
    With the body limit, it bounds the memory that requests in flight hold."""
    max_header_bytes: int = 64 * 1024
    """A request line and header longer than this get 431 (no option: no client needs more)."""


class OverLimit(BarleyError):
    """A request over one of the service's limits: answered 413 with this message."""


def within_limits(sentences: Iterable[Sentence], limits: Limits, source: str) -> Iterator[Sentence]:
    """``sentences`` as they come, stopping at the first one over the limits on words and characters
    (an :class:`OverLimit` naming the limit and its option): a request over them is refused before
    it is parsed (and a text before the rest of it is tokenized)."""
    from barley.conllu import FORM

    words = chars = pairs = 0
    for number, sentence in enumerate(sentences, start=1):
        length = len(sentence.words)
        line = sentence.line or None  # a sentence the tokenizer made has no line: its number says which
        if length > limits.max_sentence_words:
            raise OverLimit(f"a sentence of {length} words{'' if line else f' (sentence {number})'}, over the limit "
                            f"of {limits.max_sentence_words} words per sentence", path=source, line=line,
                            fix="split it, or start barley serve with a larger --max-sentence-words")
        sizes = [len(word[FORM]) for word in sentence.words]
        if sizes and max(sizes) > limits.max_word_chars:
            _word_over(sentence, number, sizes, limits, source)
        words += length
        if words > limits.max_request_words:
            raise OverLimit(f"the request has more than {limits.max_request_words} words, the limit per request",
                            path=source, line=line,
                            fix="send the sentences in several requests, or start barley serve with a larger "
                                "--max-request-words")
        pairs += length * length
        if pairs > limits.max_word_pairs:
            raise OverLimit(f"the sentences of the request have more than {limits.max_word_pairs} pairs of words "
                            "in all (the sum of the square of each one's words), the limit per request",
                            path=source, line=line,
                            fix="send long sentences in several requests, or start barley serve with a larger "
                                "--max-word-pairs")
        chars += sum(sizes)
        if chars > limits.max_request_chars:
            raise OverLimit(f"the words of the request have more than {limits.max_request_chars} characters, the "
                            "limit per request", path=source, line=line,
                            fix="send the sentences in several requests, or start barley serve with a larger "
                                "--max-request-chars")
        yield sentence


_WHITESPACE = re.compile(r"\s+")


def within_text_limit(text: str, limits: Limits, source: str) -> None:
    """Raise an :class:`OverLimit` if ``text`` has more characters than ``max_text_chars``, whitespace
    not counted: checked before the tokenizer reads any of it."""
    if len(text) <= limits.max_text_chars:
        return
    characters = len(text) - sum(match.end() - match.start() for match in _WHITESPACE.finditer(text))
    if characters > limits.max_text_chars:
        raise OverLimit(f"the text has {characters} characters besides whitespace, more than the limit of "
                        f"{limits.max_text_chars} per request", path=source,
                        fix="send it in several requests, or start barley serve with a larger --max-text-chars")


def _word_over(sentence: Sentence, number: int, sizes: list[int], limits: Limits, source: str) -> None:
    """Raise the :class:`OverLimit` of the first word of ``sentence`` over the characters per word."""
    index = next(k for k, size in enumerate(sizes) if size > limits.max_word_chars)
    word = sentence.words[index]
    if sentence.line:  # CoNLL-U: the word's own line (the comments come first, then every token line)
        line, where = sentence.line + len(sentence.comments) + next(
            k for k, row in enumerate(sentence.rows) if row is word), ""
    else:
        line, where = None, f" (word {index + 1} of sentence {number})"
    raise OverLimit(f"a word of {sizes[index]} characters{where}, over the limit of {limits.max_word_chars} "
                    "characters per word", path=source, line=line,
                    fix="is it a word? start barley serve with a larger --max-word-chars to accept it")
