"""What every kind of tokenizer shares (:class:`Segmenter`): text read a piece at a time and cut into
blocks, per-character labels made consistent with the whitespace and paragraph breaks, bounded tokens and
sentences, multiword tokens expanded, whitespace kept; a kind gives the scores of its characters (the linear
one, :mod:`barley.tokenizer.linear`; the neural one, :mod:`barley.tokenizer.neural`). The package's docstring
(:mod:`barley.tokenizer`) says how.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from barley.conllu import MISC, Sentence
from barley.errors import BarleyError, InputError
from barley.tokenizer import features, spaces
from barley.tokenizer.multiword import MultiwordExpander
from barley.tokenizer.treebank_text import INSIDE, SENTENCE_END, TOKEN_END

IMPOSSIBLE = np.float32(-1e9)  # the score of a label a character cannot have
BLOCK_CHARS = 1 << 16
MAX_TOKEN_CHARS = 500
MAX_RUN_CHARS = 100_000
"""The longest run of characters without whitespace that ``input="text"`` accepts: whitespace (a line
break, at least) comes far sooner in any language's text, Chinese and Japanese too; scoring this many
characters takes the neural tokenizer a few seconds, so a 3 MB text without spaces is refused at once
instead of costing minutes."""
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n|\u2029")
_LINE_BREAK = re.compile(r"\n|\u2029")
_TOKEN = re.compile(r"\S+")
INPUTS = ("text", "sentences", "tokenized")
HELD_OUT_SENTENCES = 0.1
"""The share of the training sentences held out at their end where a tokenizer's training needs dev
sentences (the neural one's epoch, the choice between kinds) and none are given (:func:`held_out_end`)."""


class SegmenterOptions(Protocol):
    """What every kind's options give the shared segmenter."""

    max_sentence_tokens: int


@dataclass
class _Block:
    """Sentences found in a stretch of text: token spans, and whether each opens a paragraph."""
    text: str
    sentences: list[list[tuple[int, int]]]
    paragraph_starts: list[bool]


class Segmenter:
    """What every kind of tokenizer shares: text cut into blocks, per-character labels made
    consistent with the whitespace and paragraph breaks, bounded tokens and sentences,
    multiword tokens expanded, whitespace kept (see the module docstring).

    A kind gives its name (``kind``), :meth:`_character_scores` (the scores of the three
    labels for the non-space characters of a block) and an ``options`` with
    ``max_sentence_tokens``.
    """

    kind: str
    training: dict  # what its training recorded (the model's manifest keeps it)
    options: SegmenterOptions  # a kind's own

    def __init__(self, multiword: MultiwordExpander, sentence_threshold: float = 0.0, spaces_in_tokens: bool = False):
        self.multiword = multiword
        self.sentence_threshold = sentence_threshold  # subtracted from the sentence-end score
        self.spaces_in_tokens = spaces_in_tokens  # a token may go on across a single space (see the module docstring)

    def _character_scores(self, text: str, encoded: tuple[np.ndarray, np.ndarray],
                          solid: np.ndarray) -> np.ndarray:
        """Scores (len(solid) × 3, float32, columns INSIDE, TOKEN_END, SENTENCE_END) of the
        characters ``text[solid]``; ``encoded`` is :func:`features.encode` of ``text``."""
        raise NotImplementedError

    def to_arrays(self) -> tuple[dict, dict[str, np.ndarray]]:
        """The manifest entry and arrays a model file keeps of this tokenizer (each kind its own)."""
        raise NotImplementedError

    @classmethod
    def from_arrays(cls, params: dict, arrays: dict[str, np.ndarray]) -> Segmenter:
        """The tokenizer of :meth:`to_arrays`' manifest entry and arrays, checked."""
        raise NotImplementedError

    # ------------------------------------------------------------------ segmenting
    def _labels(self, text: str, ends_paragraph: bool, lines: bool = False
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Label and sentence-end margin (score of SENTENCE_END minus TOKEN_END) of every character.

        Whitespace is INSIDE. A character before whitespace ends at least a token (with
        ``spaces_in_tokens``, not one before a single space and a character: the token may go on
        across it), one before a paragraph break a sentence (with ``lines``, one before any line break, and no other); the
        last character ends a token, and a sentence when the text ``ends_paragraph``. Also returns
        the whitespace mask.
        """
        n = len(text)
        encoded = features.encode(text)
        space = encoded[1][features.PAD:features.PAD + n] == features.SPACE
        labels = np.zeros(n, dtype=np.int8)
        margin = np.zeros(n, dtype=np.float32)
        solid = np.flatnonzero(~space)
        if not len(solid):
            return labels, margin, space
        scores = self._character_scores(text, encoded, solid)
        scores[:, SENTENCE_END] -= self.sentence_threshold
        if lines:  # the tokens as scored, the sentence ends from the line breaks alone
            scores[:, SENTENCE_END] = IMPOSSIBLE
        before_space = np.r_[space[1:], True]
        if self.spaces_in_tokens:  # a single space between two characters may be inside a token
            one_space = np.r_[np.frombuffer(text[1:].encode("utf-32-le"), dtype=np.uint32) == ord(" "), False]
            before_space &= ~(one_space & ~np.r_[space[2:], True, True])
        before_space = before_space[solid]
        scores[before_space, INSIDE] = IMPOSSIBLE
        best = scores.argmax(axis=1).astype(np.int8)
        best[before_space & (best == INSIDE)] = TOKEN_END  # a model that never saw a token end
        paragraph_ends = [match.start() for match in (_LINE_BREAK if lines else _PARAGRAPH_BREAK).finditer(text)]
        if ends_paragraph:
            paragraph_ends.append(n)
        if paragraph_ends:
            # the last non-space character before each break
            last_solid = np.searchsorted(solid, np.array(paragraph_ends), side="left") - 1
            best[last_solid[last_solid >= 0]] = SENTENCE_END
        labels[solid] = best
        margin[solid] = scores[:, SENTENCE_END] - scores[:, TOKEN_END]
        return labels, margin, space

    def _segment(self, text: str, ends_paragraph: bool, opens_paragraph: bool, lines: bool = False) -> _Block:
        """Sentences of ``text`` (which ends a paragraph or is cut at a block border); with ``lines``, a
        sentence ends at each line's end and nowhere else."""
        labels, margin, space = self._labels(text, ends_paragraph, lines)
        boundary = labels != INSIDE
        solid = np.flatnonzero(~space)  # a character starts a token when the character before it (spaces aside) ends one
        starts = solid[np.r_[True, boundary[solid[:-1]]]] if len(solid) else solid
        ends = np.flatnonzero(boundary) + 1
        starts, ends = _bounded_tokens(starts, ends)
        sentence_cuts = np.flatnonzero(labels[ends - 1] == SENTENCE_END) + 1
        if not len(sentence_cuts) or sentence_cuts[-1] != len(ends):
            sentence_cuts = np.r_[sentence_cuts, len(ends)]
        token_margins = margin[ends - 1]
        ranges = []
        first = 0
        for cut in sentence_cuts.tolist():
            if cut > first:
                ranges.extend(self._bounded(first, cut, token_margins))
            first = cut
        return _sentence_spans(text, starts, ends, ranges, opens_paragraph)

    def _bounded(self, first: int, last: int, margins: np.ndarray) -> list[tuple[int, int]]:
        """Tokens first..last-1 as sentences of at most ``max_sentence_tokens`` tokens each."""
        limit = self.options.max_sentence_tokens
        pieces = []
        while last - first > limit:
            half = first + limit // 2
            cut = half + int(np.argmax(margins[half - 1:first + limit - 1]))
            pieces.append((first, cut))
            first = cut
        pieces.append((first, last))
        return pieces

    # ------------------------------------------------------------------ streams of text
    def tokenize(self, pieces: Iterable[str] | str, input: str = "text", source: str | None = None
                 ) -> Iterator[Sentence]:
        """Sentences of the text given as pieces (or one string), CoNLL-U with ``_`` for tags.

        ``input="text"``: paragraphs separated by blank lines; ``"sentences"``: one untokenized
        sentence per line, paragraphs separated by blank lines; ``"tokenized"``: one sentence per
        line, tokens separated by whitespace. ``source``: the file the text comes from, named by
        errors about it.
        """
        if input not in INPUTS:
            raise ValueError(f"unknown input {input!r}; expected one of {', '.join(INPUTS)}")
        if isinstance(pieces, str):
            pieces = [pieces]
        pieces = _checked_pieces(pieces, source, input != "tokenized")
        blocks = self._line_blocks(pieces) if input == "tokenized" else self._text_blocks(pieces, input == "sentences")
        return self._sentences(blocks)

    def _text_blocks(self, pieces: Iterable[str], lines: bool = False) -> Iterator[_Block]:
        buffer = ""
        opens_paragraph = True
        for piece in _with_end(pieces):
            final = piece is None
            buffer += piece or ""
            while buffer.strip():
                if final and len(buffer) <= BLOCK_CHARS:
                    yield self._segment(buffer, True, opens_paragraph, lines)
                    buffer = ""
                    break
                cut = _last_paragraph_break(buffer, BLOCK_CHARS)
                if cut:
                    yield self._segment(buffer[:cut], True, opens_paragraph, lines)
                    buffer, opens_paragraph = buffer[cut:], True
                    continue
                if len(buffer) <= BLOCK_CHARS:
                    break  # wait for the rest of the paragraph
                cut = _whitespace_cut(buffer, BLOCK_CHARS)
                block = self._segment(buffer[:cut], False, opens_paragraph, lines)
                if len(block.sentences) > 1:  # the last sentence may go on: segment it again with what follows
                    carried = block.sentences.pop()[0][0]
                    opens_paragraph = block.paragraph_starts.pop()
                    block.text, buffer = buffer[:carried], buffer[carried:]
                else:
                    buffer, opens_paragraph = buffer[cut:], False
                yield block
            if final and buffer:
                yield _Block(buffer, [], [])  # whitespace only: nothing to tokenize

    def _line_blocks(self, pieces: Iterable[str]) -> Iterator[_Block]:
        buffer = ""
        tail = None  # the whitespace after the last token so far (None: no token yet)
        for piece in _with_end(pieces):
            buffer += piece or ""
            cut = len(buffer) if piece is None else buffer.rfind("\n") + 1  # complete lines only
            if not cut:
                continue
            text, buffer = buffer[:cut], buffer[cut:]
            block = _Block(text, [], [])
            tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
            newlines = np.array([m.start() for m in re.finditer("\n", text)], dtype=np.int64)
            lines = np.searchsorted(newlines, [start for start, _ in tokens])
            limit = self.options.max_sentence_tokens
            first = 0
            for k in range(1, len(tokens) + 1):
                if k == len(tokens) or lines[k] != lines[first] or k - first == limit:
                    gap = text[tokens[first - 1][1]:tokens[first][0]] if first else None
                    if gap is None and tail is not None:
                        gap = tail + text[:tokens[0][0]]
                    block.sentences.append(tokens[first:k])
                    block.paragraph_starts.append(gap is None or bool(_PARAGRAPH_BREAK.search(gap)))
                    first = k
            if tokens:
                tail = text[tokens[-1][1]:]
            elif tail is not None:
                tail += text
            yield block

    def _sentences(self, blocks: Iterable[_Block]) -> Iterator[Sentence]:
        """Sentences built from blocks; the whitespace between tokens goes into MISC (:mod:`.spaces`)."""
        number = 0
        before = ""  # whitespace not yet given to a token: it goes before the next one
        previous: tuple[Sentence, list[str]] | None = None  # the last sentence and its last token's row,
        previous_after = ""  # held until we know what follows it
        for block in blocks:
            text = block.text
            if not block.sentences:
                before += text
                continue
            for k, (spans, opens_paragraph) in enumerate(zip(block.sentences, block.paragraph_starts)):
                if k == 0:
                    before += text[:spans[0][0]]
                if previous is not None:
                    yield _finish(*previous, previous_after + before)
                    previous, previous_after, before = None, "", ""
                following = (block.sentences[k + 1][0][0] if k + 1 < len(block.sentences) else len(text))
                number += 1
                previous = self._sentence(text, spans, before, number, opens_paragraph)
                previous_after = text[spans[-1][1]:following]
                before = ""
        if previous is not None:
            yield _finish(*previous, previous_after + before)

    def _sentence(self, text: str, spans: list[tuple[int, int]], before: str, number: int,
                  opens_paragraph: bool) -> tuple[Sentence, list[str]]:
        """One sentence and the row of its last token, whose MISC :func:`_finish` completes."""
        comments = []
        if number == 1:
            comments.append("# newdoc")
        if opens_paragraph or number == 1:
            comments.append("# newpar")
        comments.append(f"# sent_id = {number}")
        comments.append(f"# text = {spaces.normalised(text[spans[0][0]:spans[-1][1]])}")
        rows = []
        row: list[str] = []
        word = 1
        expand = self.multiword.expand if self.multiword.expansions or self.multiword.rules else None
        misc = spaces.misc
        for k, (start, end) in enumerate(spans):
            form = text[start:end]
            following = spans[k + 1][0] if k + 1 < len(spans) else end
            after = " " if following == end + 1 and text[end] == " " else text[end:following]
            words = expand(form) if expand else None
            row = [str(word), form, "_", "_", "_", "_", "_", "_", "_", misc(after, before if k == 0 else "")]
            rows.append(row)
            if words and len(words) > 1:
                row[0] = f"{word}-{word + len(words) - 1}"
                for part in words:
                    rows.append([str(word), part, "_", "_", "_", "_", "_", "_", "_", "_"])
                    word += 1
            else:
                word += 1
        return Sentence(comments, rows), row


def best_threshold(margin: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """The sentence-end threshold that maximises sentence-end F1 over the gold token ends.

    ``margin``: the score of SENTENCE_END minus that of TOKEN_END of every character whose
    gold label is ``y``. Returns the threshold, the F1 it gives and the F1 of threshold 0
    (in percent).
    """
    token_ends = y != INSIDE
    margin = margin[token_ends]
    gold = y[token_ends] == SENTENCE_END
    if not len(margin):
        return 0.0, 0.0, 0.0
    order = np.argsort(-margin, kind="stable")
    found = np.cumsum(gold[order])
    f1 = 2 * found / (np.arange(1, len(order) + 1) + gold.sum())
    best = int(np.argmax(f1))
    following = margin[order[best + 1]] if best + 1 < len(order) else margin[order[best]] - 1
    threshold = float((margin[order[best]] + following) / 2)
    untuned = 2 * np.count_nonzero(gold & (margin > 0)) / max(np.count_nonzero(margin > 0) + gold.sum(), 1)
    return threshold, 100 * float(f1[best]), 100 * float(untuned)


def _with_end(pieces: Iterable[str]) -> Iterator[str | None]:
    yield from pieces
    yield None


_RUN = re.compile(r"\S+")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _checked_pieces(pieces: Iterable[str], source: str | None, bounded_runs: bool) -> Iterator[str]:
    """``pieces`` as they are, once checked (each an :class:`InputError` naming its line): that each is a
    str of Unicode characters (a lone surrogate, which Python's ``surrogateescape`` makes of undecodable
    bytes, is none), and with ``bounded_runs`` that no run of non-whitespace characters, within a piece or
    across pieces, is longer than :data:`MAX_RUN_CHARS`."""
    run = 0  # the non-whitespace characters that end the text so far
    line = 1
    for piece in pieces:
        if not isinstance(piece, str):
            raise InputError(f"text must be given as str, not {type(piece).__name__}", path=source,
                             fix="decode bytes first, e.g. data.decode('utf-8')")
        surrogate = _SURROGATE.search(piece)
        if surrogate:
            raise InputError(f"the text holds a lone surrogate (U+{ord(surrogate.group()):04X}), which is no "
                             f"Unicode character", path=source or "text",
                             line=line + piece.count("\n", 0, surrogate.start()),
                             fix="decode bytes with errors='replace' rather than 'surrogateescape'")
        trailing = None
        for match in _RUN.finditer(piece) if bounded_runs else ():
            length = match.end() - match.start() + (run if match.start() == 0 else 0)
            if length > MAX_RUN_CHARS:
                raise InputError(f"more than {MAX_RUN_CHARS:,} characters without whitespace, which is not text "
                                 f"the tokenizer reads", path=source or "text",
                                 line=line + piece.count("\n", 0, match.start()),
                                 fix="put spaces or line breaks between its words")
            trailing = length if match.end() == len(piece) else None
        if piece:
            run = trailing or 0
        line += piece.count("\n")
        yield piece


def _last_paragraph_break(buffer: str, limit: int) -> int:
    """The end of the whitespace after the last paragraph break in ``buffer[:limit]``, or 0."""
    last = None
    for last in _PARAGRAPH_BREAK.finditer(buffer, 0, limit):
        pass
    if last is None:
        return 0
    end = last.end()
    while end < len(buffer) and buffer[end].isspace():
        end += 1
    return end


def _whitespace_cut(buffer: str, limit: int) -> int:
    """Where to cut a paragraph longer than ``limit``: after the last whitespace in its second half."""
    for position in range(limit - 1, limit // 2, -1):
        if buffer[position].isspace():
            return position + 1
    return limit


def _bounded_tokens(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Tokens longer than MAX_TOKEN_CHARS cut into pieces of that length."""
    long = np.flatnonzero(ends - starts > MAX_TOKEN_CHARS)
    if not len(long):
        return starts, ends
    new_starts, new_ends = [starts[:long[0]]], [ends[:long[0]]]
    for k, token in enumerate(long.tolist()):
        cuts = np.arange(starts[token], ends[token], MAX_TOKEN_CHARS)
        new_starts.append(cuts)
        new_ends.append(np.r_[cuts[1:], ends[token]])
        following = long[k + 1] if k + 1 < len(long) else len(starts)
        new_starts.append(starts[token + 1:following])
        new_ends.append(ends[token + 1:following])
    return np.concatenate(new_starts), np.concatenate(new_ends)


def _sentence_spans(text: str, starts: np.ndarray, ends: np.ndarray, ranges: list[tuple[int, int]],
           opens_paragraph: bool) -> _Block:
    """The block of sentences given as ranges of token indices."""
    starts, ends = starts.tolist(), ends.tolist()
    block = _Block(text, [], [])
    for first, last in ranges:
        spans = list(zip(starts[first:last], ends[first:last]))
        gap = text[ends[first - 1]:starts[first]] if first else ""
        block.sentences.append(spans)
        block.paragraph_starts.append(opens_paragraph if not first else bool(_PARAGRAPH_BREAK.search(gap)))
    return block


def _finish(sentence: Sentence, last_token: list[str], after: str) -> Sentence:
    """Set the whitespace after the sentence's last token (known once the next sentence is found)."""
    last_token[MISC] = spaces.misc(after, spaces.around(last_token[MISC])[0])
    return sentence


def held_out_end(sentences: list[Sentence], needs: str) -> tuple[list[Sentence], list[Sentence], str]:
    """Without dev sentences: the training sentences but the last tenth (:data:`HELD_OUT_SENTENCES`, at least one),
    that tenth, and how a training record names it; ``needs``: what needs them, for the refusal of fewer than two."""
    if len(sentences) < 2:
        raise BarleyError(f"{needs} needs dev sentences or at least two training sentences (the last tenth held out), "
                          f"not {len(sentences)}", fix="give --dev, or more training sentences")
    held = max(1, int(len(sentences) * HELD_OUT_SENTENCES))
    return sentences[:-held], sentences[-held:], f"the last {held} training sentences (held out: no dev set)"
