"""Re-tokenized, re-split and re-tagged copies of a treebank, to test scoring across tokenizations.

The generators take ``draw_int(lo, hi)``, an integer in [lo, hi]: a seeded
``random.Random(seed).randint`` (a reproducible system file for the recorded figures
of the official scorer) or :func:`random_trees.draw_ints` of a hypothesis ``data``.

A file is held as sentences of tokens, each token a FORM and its words; a word is its
CoNLL-U row with a file-wide number and the file-wide number of its head (None for
the root), so that tokens and sentences can be cut and joined and the trees stay
trees with one root per sentence, which the official scorer requires.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from barley.conllu import DEPREL, DEPS, FEATS, FORM, HEAD, ID, LEMMA, MISC, UPOS, XPOS, Sentence

DrawInt = Callable[[int, int], int]
UPOS_TAGS = ("NOUN", "VERB", "ADJ", "ADV", "PRON", "DET", "ADP", "PUNCT", "X")
RELATIONS = ("nsubj", "obj", "obl", "nmod", "amod", "advmod", "det", "case", "cc", "aux", "mark", "punct",
             "conj", "compound:prt", "nmod:poss")


@dataclass
class Word:
    row: list[str]
    number: int
    head: int | None


@dataclass
class Token:
    form: str
    words: list[Word]
    multiword: bool = False


@dataclass
class File:
    sentences: list[list[Token]]
    next_number: int = 0
    heads: dict = field(default_factory=dict)

    def words(self) -> Iterable[Word]:
        for sentence in self.sentences:
            for token in sentence:
                yield from token.words


def flatten(sentences: Iterable[Sentence]) -> File:
    """Sentences as tokens of words with file-wide numbers (empty nodes left out)."""
    file = File([])
    for sentence in sentences:
        offset = file.next_number
        tokens: list[Token] = []
        last = 0
        words = {int(row[ID]): row for row in sentence.words}
        for row in sentence.rows:
            if "." in row[ID]:
                continue
            if "-" in row[ID]:
                first, last = map(int, row[ID].split("-"))
                tokens.append(Token(row[FORM], [_word(words[i], offset) for i in range(first, last + 1)], True))
            elif int(row[ID]) > last:
                tokens.append(Token(row[FORM], [_word(row, offset)]))
        file.sentences.append(tokens)
        file.next_number = offset + len(sentence.words)
    return file


def _word(row: list[str], offset: int) -> Word:
    head = int(row[HEAD])
    return Word(list(row), offset + int(row[ID]) - 1, None if head == 0 else offset + head - 1)


def to_text(file: File) -> str:
    """The file as CoNLL-U (IDs, heads and multiword ranges renumbered per sentence)."""
    blocks = []
    for sentence in file.sentences:
        local = {}
        for token in sentence:
            for word in token.words:
                local[word.number] = len(local) + 1
        lines = []
        for token in sentence:
            if token.multiword:
                first = local[token.words[0].number]
                lines.append(f"{first}-{first + len(token.words) - 1}\t{token.form}" + "\t_" * 8)
            for word in token.words:
                row = list(word.row)
                row[ID] = str(local[word.number])
                row[HEAD] = "0" if word.head is None else str(local[word.head])
                row[DEPS] = "_"
                lines.append("\t".join(row))
        blocks.append("\n".join(lines) + "\n\n")
    return "".join(blocks)


def _new_word(file: File, row: list[str], form: str, head: int, relation: str) -> Word:
    row = list(row)
    row[FORM], row[LEMMA], row[HEAD], row[DEPREL], row[MISC] = form, form.lower(), "_", relation, "_"
    word = Word(row, file.next_number, head)
    file.next_number += 1
    return word


def _merge_words(sentence: list[Token], keep: Word, gone: Word) -> None:
    """``gone`` disappears into ``keep``: its dependents go to ``keep``; the tree stays a tree."""
    words = [word for token in sentence for word in token.words]
    by_number = {word.number: word for word in words}
    node = keep.head
    while node is not None and node != gone.number:
        node = by_number[node].head
    if node == gone.number:  # gone is above keep: keep takes its place
        keep.head = gone.head
    for word in words:
        if word.head == gone.number:
            word.head = keep.number
    if keep.head == keep.number:
        keep.head = gone.head


def _cut_word(file: File, draw: DrawInt, relation: str, upper: bool = False) -> tuple[int, int, Word] | None:
    """Cut the word of a random one-word token in two; the second half is a new word attached to the first.

    Returns (sentence, token, the new word), which the caller places; None if no token can be cut.
    """
    s, t = _pick_token(file, draw, lambda token: not token.multiword and len(token.form) >= 2)
    if s is None:
        return None
    token = file.sentences[s][t]
    cut = draw(1, len(token.form) - 1)
    word = token.words[0]
    tail = token.form[cut:]
    second = _new_word(file, word.row, tail.upper() if upper else tail, word.number, relation)
    word.row[FORM] = token.form[:cut]
    return s, t, second


def split_token(file: File, draw: DrawInt) -> None:
    """Cut a one-word token in two tokens."""
    cut = _cut_word(file, draw, "dep")
    if cut is not None:
        s, t, second = cut
        token = file.sentences[s][t]
        token.form = token.words[0].row[FORM]
        file.sentences[s][t + 1:t + 1] = [Token(second.row[FORM], [second])]


def merge_tokens(file: File, draw: DrawInt) -> None:
    """Join a one-word token with the next one-word token of its sentence."""
    s, t = _pick_token(file, draw, lambda token: not token.multiword, need_next=True)
    if s is None:
        return
    first, second = file.sentences[s][t], file.sentences[s][t + 1]
    _merge_words(file.sentences[s], first.words[0], second.words[0])
    first.form = first.words[0].row[FORM] = first.form + second.form
    del file.sentences[s][t + 1]


def make_multiword(file: File, draw: DrawInt) -> None:
    """Turn a one-word token into a multiword token of two words (the second upper-cased)."""
    cut = _cut_word(file, draw, "case", upper=True)
    if cut is not None:
        s, t, second = cut
        token = file.sentences[s][t]
        token.words.append(second)
        token.multiword = True


def undo_multiword(file: File, draw: DrawInt) -> None:
    """Replace a multiword token by one word with its FORM."""
    s, t = _pick_token(file, draw, lambda token: token.multiword)
    if s is None:
        return
    token = file.sentences[s][t]
    keep = token.words[0]
    for gone in token.words[1:]:
        _merge_words(file.sentences[s], keep, gone)
    keep.row[FORM] = token.form
    token.words, token.multiword = [keep], False


def merge_sentences(file: File, draw: DrawInt) -> None:
    """Join a sentence with the next; the second root is attached to the first."""
    if len(file.sentences) < 2:
        return
    s = draw(0, len(file.sentences) - 2)
    first, second = file.sentences[s], file.sentences[s + 1]
    root = next(w for token in first for w in token.words if w.head is None)
    for token in second:
        for word in token.words:
            if word.head is None:
                word.head, word.row[DEPREL] = root.number, "parataxis"
    first.extend(second)
    del file.sentences[s + 1]


def split_sentence(file: File, draw: DrawInt) -> None:
    """Cut a sentence in two between tokens; in each half one word becomes the root."""
    candidates = [s for s, sentence in enumerate(file.sentences) if len(sentence) >= 2]
    if not candidates:
        return
    s = candidates[draw(0, len(candidates) - 1)]
    cut = draw(1, len(file.sentences[s]) - 1)
    halves = [file.sentences[s][:cut], file.sentences[s][cut:]]
    for half in halves:
        inside = {word.number for token in half for word in token.words}
        loose = [word for token in half for word in token.words if word.head not in inside]
        root = loose[0]
        root.head, root.row[DEPREL] = None, "root"
        for word in loose[1:]:
            word.head = root.number
    file.sentences[s:s + 1] = halves


def retag(file: File, draw: DrawInt, percent: int = 10) -> None:
    """Change UPOS, XPOS, FEATS, LEMMA, DEPREL or the head (within the sentence, no cycle) of some words."""
    for sentence in file.sentences:
        words = [word for token in sentence for word in token.words]
        for word in words:
            if draw(1, 100) > percent:
                continue
            what = draw(0, 5)
            if what == 0:
                word.row[UPOS] = UPOS_TAGS[draw(0, len(UPOS_TAGS) - 1)]
            elif what == 5:
                word.row[XPOS] = word.row[XPOS] + "x"
            elif what == 1:
                word.row[FEATS] = "_" if word.row[FEATS] != "_" else "Number=Sing"
            elif what == 2:
                word.row[LEMMA] = word.row[LEMMA] + "x"
            elif what == 3:
                word.row[DEPREL] = RELATIONS[draw(0, len(RELATIONS) - 1)]
            elif word.head is not None:
                below = _subtree(words, word.number)
                heads = [w.number for w in words if w.number not in below]
                if heads:
                    word.head = heads[draw(0, len(heads) - 1)]


def _subtree(words: list[Word], top: int) -> set[int]:
    inside, grown = {top}, True
    while grown:
        grown = False
        for word in words:
            if word.number not in inside and word.head in inside:
                inside.add(word.number)
                grown = True
    return inside


def _pick_token(file: File, draw: DrawInt, fits, need_next: bool = False, tries: int = 20):
    """(sentence, token) of a random token that ``fits`` (and is followed by one that does), or (None, None).

    A random sentence first, then a token in it: a few draws, not a pass over the whole file.
    """
    for _ in range(tries):
        s = draw(0, len(file.sentences) - 1)
        sentence = file.sentences[s]
        places = [t for t, token in enumerate(sentence)
                  if fits(token) and (not need_next or (t + 1 < len(sentence) and fits(sentence[t + 1])))]
        if places:
            return s, places[draw(0, len(places) - 1)]
    return None, None


EDITS = {"split_token": split_token, "merge_tokens": merge_tokens, "make_multiword": make_multiword,
         "undo_multiword": undo_multiword, "merge_sentences": merge_sentences, "split_sentence": split_sentence}


def resegment(sentences: Iterable[Sentence], draw: DrawInt, edits: dict[str, int], retag_percent: int = 0) -> str:
    """CoNLL-U text of ``sentences`` after ``edits`` (name: how many times) and re-tagging."""
    file = flatten(sentences)
    for name, times in edits.items():
        for _ in range(times):
            EDITS[name](file, draw)
    if retag_percent:
        retag(file, draw, retag_percent)
    return to_text(file)
