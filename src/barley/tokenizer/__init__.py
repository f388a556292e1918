"""Tokenizer and sentence splitter trained from a UD treebank, with multiword-token expansion.

Training (:meth:`Tokenizer.train`): the treebank's raw text is rebuilt paragraph
by paragraph with a label on every character (:mod:`.treebank_text`): the token
goes on, a token ends, or a token and its sentence end after it. A linear
classifier (liblinear, :class:`~barley.learners.linear.LinearLearner`) learns the
label of every non-space character from hashed character-window features
(:mod:`.features`). Multiword tokens are learned as a dictionary and suffix rules
(:mod:`.multiword`).

Tokenizing (:meth:`Tokenizer.tokenize`): text arrives a piece at a time and is cut
into blocks at paragraph breaks (a blank line), or at whitespace when a paragraph
is longer than :data:`BLOCK_CHARS`; each block is scored with one sparse product.
A character followed by whitespace ends a token — except, in a tokenizer trained on a treebank
whose tokens hold spaces (Vietnamese *Hà Nội*, :func:`.treebank_text.spaces_in_tokens`), one
followed by a single space and then a character, where the classifier decides whether the token
goes on across the space; the end of a paragraph always ends a sentence. Sentences are at most ``max_sentence_tokens`` tokens long
(cut where the sentence-end score is highest in the second half of the limit) and
tokens at most :data:`MAX_TOKEN_CHARS` characters, so any input — a
200,000-character line without punctuation — gives bounded sentences in bounded
memory. Every character is scored, so a text costs time in proportion to its length; a run of
more than :data:`MAX_RUN_CHARS` characters without whitespace is not text (a blob, a generated
stress test) and is refused before it is scored. The output rebuilds the input exactly (:mod:`.spaces`).

``tokenized`` input (``tokenize(..., input="tokenized")``) is one sentence per line with
tokens separated by whitespace; only multiword tokens are expanded. ``sentences`` input
(``input="sentences"``, UDPipe's *presegmented*, Stanza's ``tokenize_no_ssplit``) is one
untokenized sentence per line, a blank line between paragraphs: tokenized as text, except
that a sentence ends at the end of each line and nowhere else (a line of more than
``max_sentence_tokens`` tokens is still cut, as any sentence is).

Everything but the per-character scores is :class:`~barley.tokenizer.segmenter.Segmenter`'s, shared by the
kinds of tokenizer: the linear one (:mod:`barley.tokenizer.linear`) and the neural one
(:mod:`barley.tokenizer.neural`, a character BiLSTM). This package module re-exports them.
"""

from barley.tokenizer.linear import HELD_OUT, MAX_BITS, Tokenizer, TokenizerOptions
from barley.tokenizer.segmenter import (BLOCK_CHARS, INPUTS, MAX_RUN_CHARS, MAX_TOKEN_CHARS, Segmenter,
                                        SegmenterOptions, best_threshold)

__all__ = ["BLOCK_CHARS", "HELD_OUT", "INPUTS", "MAX_BITS", "MAX_RUN_CHARS", "MAX_TOKEN_CHARS", "Segmenter",
           "SegmenterOptions", "Tokenizer", "TokenizerOptions", "best_threshold"]
