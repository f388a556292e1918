"""barley in spaCy (``pip install -e '.[spacy]'`` in barley's checkout): a barley pipeline makes spaCy Docs.

Two ways in, as spacy-udpipe and spacy-stanza offer them::

    nlp = barley.spacy.load("en")              # a blank spaCy pipeline of the model's language whose
    doc = nlp("The dog barks. It is loud.")    # tokenizer is barley's whole pipeline (a name, a path
                                               # or a language code: barley.models.catalog)
    nlp = spacy.blank("en")
    nlp.add_pipe("barley", config={"model": "en_ewt"})   # the same as a component, put first: it
                                                         # analyses the Doc's text and returns a new Doc

The Doc's text is the text given, character for character (barley's tokenizer records every
whitespace, :mod:`barley.tokenizer.spaces`; whitespace that is not one space after a token
becomes a whitespace token, as spaCy's tokenizer makes them, with ``pos_`` ``SPACE``). Each
syntactic word is a token with ``pos_`` (UPOS), ``tag_`` (XPOS), ``morph`` (FEATS),
``lemma_``, ``head`` and ``dep_`` (the UD relation, ``root`` for the root, whose head is
itself); sentence starts follow the trees, or the tokenizer's sentences without a parser.

Multiword tokens: a token of the text that stands for several syntactic words (Spanish *del* =
*de* + *el*, English *don't* = *do* + *n't*) becomes one spaCy token per word, since spaCy's
tags, lemmas and trees belong to tokens. A spaCy token must be a piece of the text, so the
surface is cut in as many pieces as there are words: where the words spell the surface (*do* +
*n't*) each word is its piece; otherwise each word but the last takes the longest prefix of what
is left of the surface that it shares (ignoring case), at least one character, and the last word
takes the rest: *del* → ``de`` + ``l``, *al* → ``a`` + ``l``, German *zum* (*zu* + *dem*) →
``zu`` + ``m``. The word's own form is then the token's ``norm_`` (``el``), and every word of
the multiword token has ``token._.multiword``, its surface (``del``). A surface shorter than
its words cannot be cut: the multiword token is then one spaCy token with the annotation of
its first word whose head lies outside it (the others stay in the CoNLL-U frame below).

Back to CoNLL-U, losslessly: what spaCy has no attribute for (comments, DEPS, MISC, multiword
ranges, empty nodes, each word's ID and FORM) stays in ``doc._.conllu`` (the sentences' comment
lines and rows, and which row each token is), also readable as ``token._.deps``,
``token._.misc``, ``token._.multiword``, ``span._.comments`` and ``span._.empty_nodes`` (for a
sentence span); ``token._.enhanced`` reads DEPS as (head token, relation) pairs, the enhanced
graph that ``load(..., enhanced=True)`` (or the component's ``"enhanced": true``) predicts. :func:`to_conllu` writes the Doc with LEMMA, UPOS, XPOS, FEATS, HEAD and DEPREL
read from the tokens (so that later spaCy components' changes are kept; an attribute spaCy holds
no value in keeps the row's value) and the rest from the frame: a CoNLL-U file read, made a Doc
and written gives the same text (:func:`doc_from_sentences`). displaCy draws the Doc.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

import numpy as np

try:
    from spacy import blank
    from spacy.attrs import DEP as DEP_ID
    from spacy.attrs import HEAD as HEAD_ID
    from spacy.attrs import LEMMA as LEMMA_ID
    from spacy.attrs import MORPH as MORPH_ID
    from spacy.attrs import POS as POS_ID
    from spacy.attrs import SENT_START as SENT_START_ID
    from spacy.attrs import TAG as TAG_ID
    from spacy.language import Language
    from spacy.parts_of_speech import IDS as SPACY_POS
    from spacy.tokens import Doc, Span, Token
    from spacy.util import get_lang_class
except ImportError as error:  # pragma: no cover - the message is the point
    raise ImportError("barley.spacy needs spaCy 3.8: pip install -e '.[spacy]' in barley's checkout") from error

if TYPE_CHECKING:
    from thinc.types import Ints2d

from barley.conllu import DEPREL, DEPS, FEATS, FORM, HEAD, ID, LEMMA, MISC, UPOS, XPOS, Sentence
from barley.errors import BarleyError
from barley.models.archive import read_manifest
from barley.models.catalog import language_code, resolve
from barley.models.shipped import DEFAULT
from barley.tokenizer.spaces import around

SPACE = {"pos": "SPACE", "tag": "_SP", "dep": "dep"}
"""The annotation of a whitespace token (spaCy's own for whitespace)."""


def _place(token: Token) -> tuple[int, int] | None:
    """``(sentence, row)`` of the word ``token`` is in the Doc's frame; None for whitespace, or in a
    Doc that has no frame or was retokenized since."""
    frame = token.doc._.conllu
    if frame is None or len(frame["words"]) != len(token.doc):
        return None
    return frame["words"][token.i]


def _row(token: Token) -> list[str] | None:
    place = _place(token)
    return None if place is None else token.doc._.conllu["sentences"][place[0]]["rows"][place[1]]


def _multiword(token: Token) -> str | None:
    """The surface of the multiword token that the word ``token`` belongs to, if any."""
    place = _place(token)
    if place is None:
        return None
    rows = token.doc._.conllu["sentences"][place[0]]["rows"]
    word = int(rows[place[1]][ID])
    for row in rows:
        first, dash, last = row[ID].partition("-")
        if dash and int(first) <= word <= int(last):
            return row[FORM]
    return None


def _column(index: int):
    def getter(token: Token) -> str | None:
        row = _row(token)
        return None if row is None else row[index]
    return getter


def _sentence_of(span: Span) -> dict:
    """The frame's record (comments, rows) of the sentence of the span's first word ({} if none)."""
    places = (_place(token) for token in span)
    place = next((place for place in places if place is not None), None)
    return {} if place is None else span.doc._.conllu["sentences"][place[0]]


def _comments(span: Span) -> list[str]:
    return list(_sentence_of(span).get("comments", []))


def _empty_nodes(span: Span) -> list[list[str]]:
    return [row for row in _sentence_of(span).get("rows", []) if "." in row[ID]]


def _enhanced(token: Token) -> list[tuple[Token | str | None, str]] | None:
    """The word's heads in the enhanced graph (its DEPS), as (head, relation): the head a token, None
    for the root, or the ID of a word that is no token of its own (an empty node ``5.1``, or a word
    of a multiword token spaCy could not cut); None where the frame has no row for the token."""
    row = _row(token)
    if row is None:
        return None
    frame = token.doc._.conllu
    place = _place(token)
    assert place is not None
    sentence, rows = place[0], frame["sentences"][place[0]]["rows"]
    start = stop = token.i  # a sentence's tokens are one run of the Doc (whitespace tokens have no place)
    while start > 0 and (frame["words"][start - 1] or (sentence,))[0] == sentence:
        start -= 1
    while stop + 1 < len(frame["words"]) and (frame["words"][stop + 1] or (sentence,))[0] == sentence:
        stop += 1
    token_of = {rows[frame["words"][i][1]][ID]: i for i in range(start, stop + 1) if frame["words"][i] is not None}
    heads: list[tuple[Token | str | None, str]] = []
    for arc in ([] if row[DEPS] == "_" else row[DEPS].split("|")):
        head, _, relation = arc.partition(":")
        heads.append((None if head == "0" else token.doc[token_of[head]] if head in token_of else head, relation))
    return heads


def _register_extensions() -> None:
    extensions: list[tuple[type[Doc] | type[Token] | type[Span], str, dict[str, Any]]] = [
        (Doc, "conllu", {"default": None}), (Token, "multiword", {"getter": _multiword}),
        (Token, "deps", {"getter": _column(DEPS)}), (Token, "misc", {"getter": _column(MISC)}),
        (Token, "enhanced", {"getter": _enhanced}),
        (Span, "comments", {"getter": _comments}), (Span, "empty_nodes", {"getter": _empty_nodes})]
    for owner, name, how in extensions:
        if not owner.has_extension(name):
            owner.set_extension(name, **how)


_register_extensions()


def cut_surface(surface: str, forms: list[str]) -> list[str] | None:
    """The pieces of a multiword token's ``surface``, one per word of ``forms`` (see the module's
    docstring); None when the surface has fewer characters than there are words."""
    if "".join(forms) == surface:
        return list(forms)
    if len(surface) < len(forms):
        return None
    pieces, rest = [], surface
    for number, form in enumerate(forms[:-1]):
        shared = 0
        while shared < min(len(form), len(rest)) and form[shared].lower() == rest[shared].lower():
            shared += 1
        words_after = len(forms) - number - 1
        take = min(max(shared, 1), len(rest) - words_after)  # every later word keeps a character
        pieces.append(rest[:take])
        rest = rest[take:]
    return pieces + [rest]


def _whitespace_after(misc: str) -> tuple[str, str]:
    """``(before, after)`` as :func:`barley.tokenizer.spaces.around` reads them, the two usual MISC
    values first (most words have one of them)."""
    if misc == "_":
        return "", " "
    if misc == "SpaceAfter=No":
        return "", ""
    return around(misc)


class _DocBuilder:
    """The lists that :class:`spacy.tokens.Doc` is made from, token by token: one list per
    attribute (``""`` where a column is ``_``), and for each token its place in the CoNLL-U frame."""

    def __init__(self):
        self.words, self.spaces, self.places = [], [], []
        self.lemmas, self.pos, self.tags, self.morphs, self.deps = [], [], [], [], []
        self.heads, self.sent_starts, self.norms = [], [], {}
        self.has_tree = True

    def whitespace(self, text: str, head: int) -> None:
        self._push(text, False, None, text, SPACE["pos"], SPACE["tag"], "", SPACE["dep"], head)

    def _push(self, text, space, place, lemma, pos, tag, morph, dep, head) -> None:
        self.words.append(text)
        self.spaces.append(space)
        self.places.append(place)
        self.lemmas.append(lemma)
        self.pos.append(pos)
        self.tags.append(tag)
        self.morphs.append(morph)
        self.deps.append(dep)
        self.heads.append(head)
        self.sent_starts.append(False)

    def word(self, text: str, after: str, place: tuple[int, int], row: list[str]) -> None:
        """A token for ``row``, followed by the whitespace ``after``; its head is set by :meth:`sentence`."""
        lemma, upos, xpos, feats, head, deprel = row[2:8]
        if head == "_" or deprel == "_":
            self.has_tree = False
        space = after[:1] == " "
        self._push(text, space, place, "" if lemma == "_" else lemma,
                   upos if upos in SPACY_POS else "",  # "_", or a tag spaCy does not know: kept in the frame
                   "" if xpos == "_" else xpos, "" if feats == "_" else feats, "" if deprel == "_" else deprel,
                   head)
        rest = after[1:] if space else after
        if rest:
            self.whitespace(rest, len(self.words) - 1)

    def sentence(self, number: int, sentence: Sentence) -> None:
        """The tokens of one sentence; heads (still CoNLL-U HEADs) become token indexes once its words are in."""
        start = len(self.words)
        token_of: dict[str, int] = {}
        rows = sentence.rows
        at = 0
        while at < len(rows):
            row = rows[at]
            ident = row[ID]
            if ident.isdigit():
                before, after = _whitespace_after(row[MISC])
                if before:
                    self.whitespace(before, len(self.words) + 1)
                token_of[ident] = len(self.words)
                self.word(row[FORM], after, (number, at), row)
                at += 1
            elif "-" in ident:
                at = self._multiword(number, at, rows, token_of)
            else:  # an empty node: in the frame only
                at += 1
        if len(self.words) > start:
            self.sent_starts[start] = True
        heads = self.heads
        for index in range(start, len(self.words)):
            if self.places[index] is not None:  # whitespace already points at its neighbour
                heads[index] = token_of.get(heads[index], index)  # the root ("0") and "_": itself

    def _multiword(self, number: int, at: int, rows: list[list[str]], token_of: dict[str, int]) -> int:
        """The tokens of the multiword token whose range is ``rows[at]`` (see the module's docstring);
        returns the index of the row after its words."""
        row = rows[at]
        first, _, last = row[ID].partition("-")
        members = [index for index in range(at + 1, len(rows)) if rows[index][ID].isdigit()
                   and int(first) <= int(rows[index][ID]) <= int(last)]
        before, after = _whitespace_after(row[MISC])
        if before:
            self.whitespace(before, len(self.words) + 1)
        pieces = cut_surface(row[FORM], [rows[index][FORM] for index in members])
        if pieces is None:  # one token for all: the word whose head lies outside speaks for it
            inside = {rows[index][ID] for index in members}
            chosen = next((index for index in members if rows[index][HEAD] not in inside), members[0])
            for index in members:
                token_of[rows[index][ID]] = len(self.words)
            self.word(row[FORM], after, (number, chosen), rows[chosen])
        else:
            for count, (index, piece) in enumerate(zip(members, pieces)):
                token_of[rows[index][ID]] = len(self.words)
                self.norms[len(self.words)] = rows[index][FORM]
                self.word(piece, after if count == len(members) - 1 else "", (number, index), rows[index])
        return members[-1] + 1 if members else at + 1

    def doc(self, vocab, frame: dict) -> Doc:
        """The Doc: its words, then their attributes set from one array (:meth:`Doc.from_array`, the
        fast way in; each distinct string is hashed once)."""
        doc = Doc(vocab, words=self.words, spaces=self.spaces)
        if self.words:
            hashes = {"": 0}
            for value in {*self.lemmas, *self.tags, *self.deps} - hashes.keys():
                hashes[value] = vocab.strings.add(value)
            for value in set(self.morphs) - hashes.keys():
                hashes[value] = vocab.morphology.add(value)
            attributes = [LEMMA_ID, POS_ID, TAG_ID, MORPH_ID]
            columns = [np.array([hashes[value] for value in self.lemmas], dtype=np.uint64),
                       np.array([SPACY_POS[value] for value in self.pos], dtype=np.uint64),
                       np.array([hashes[value] for value in self.tags], dtype=np.uint64),
                       np.array([hashes[value] for value in self.morphs], dtype=np.uint64)]
            if self.has_tree:  # else the tokenizer's sentences (a tree, when there is one, gives them)
                attributes += [HEAD_ID, DEP_ID]  # heads relative, negative ones as two's complement
                columns += [(np.array(self.heads, dtype=np.int64) - np.arange(len(self.heads))).astype(np.uint64),
                            np.array([hashes[value] for value in self.deps], dtype=np.uint64)]
            else:
                attributes.append(SENT_START_ID)
                columns.append(np.array([1 if start else -1 for start in self.sent_starts]).astype(np.uint64))
            doc.from_array(attributes, cast("Ints2d", np.stack(columns, axis=1)))
        for index, norm in self.norms.items():
            doc[index].norm_ = norm
        frame["words"] = self.places
        doc._.conllu = frame
        return doc


def doc_from_sentences(vocab, sentences: Iterable[Sentence]) -> Doc:
    """A spaCy Doc of barley sentences (parsed, or read from CoNLL-U), with its CoNLL-U frame."""
    builder = _DocBuilder()
    frame: dict = {"sentences": []}
    for number, sentence in enumerate(sentences):
        frame["sentences"].append({"comments": list(sentence.comments), "rows": sentence.rows})
        builder.sentence(number, sentence)
    return builder.doc(vocab, frame)


def to_sentences(doc: Doc) -> list[Sentence]:
    """The Doc's sentences as barley sentences (see the module's docstring)."""
    frame = doc._.conllu
    if frame is None or len(frame["words"]) != len(doc):
        raise BarleyError("this Doc has no CoNLL-U frame from barley, or its tokens changed since",
                          fix="make it with barley.spacy (load, the barley component or doc_from_sentences), "
                              "and do not retokenize it")
    rows = [[list(row) for row in record["rows"]] for record in frame["sentences"]]
    tree = doc.has_annotation("DEP")
    for token, place in zip(doc, frame["words"]):
        if place is None:
            continue
        row = rows[place[0]][place[1]]
        # UD orders features by name ignoring case (NumForm after Number); spaCy by code point
        feats = "|".join(sorted(str(token.morph).split("|"), key=str.lower))
        for column, value in ((LEMMA, token.lemma_), (UPOS, token.pos_), (XPOS, token.tag_), (FEATS, feats)):
            if value:
                row[column] = value
        if tree and token.dep_:
            head = frame["words"][token.head.i]
            row[HEAD] = "0" if token.head.i == token.i or head is None else rows[head[0]][head[1]][ID]
            row[DEPREL] = token.dep_
    return [Sentence(list(record["comments"]), sentence_rows)
            for record, sentence_rows in zip(frame["sentences"], rows)]


def to_conllu(doc: Doc) -> str:
    """The Doc as CoNLL-U text."""
    return "".join(sentence.to_text() for sentence in to_sentences(doc))


class BarleyAnalyser:
    """A barley pipeline that makes a Doc of a text: spaCy's tokenizer (:func:`load`), or the
    ``barley`` component, which analyses the text of the Doc it is given."""

    def __init__(self, vocab, model: str, input: str = "text", enhanced: bool = False):
        from barley.pipeline import Pipeline, require_component
        from barley.tokenizer import INPUTS

        if input not in INPUTS:
            raise BarleyError(f"the barley component reads input 'text', 'sentences' or 'tokenized', not {input!r}",
                              fix="text: paragraphs separated by blank lines; sentences: one untokenized sentence "
                                  "per line; tokenized: one sentence per line, tokens separated by spaces")
        if not isinstance(enhanced, bool):
            raise BarleyError(f"the barley component's enhanced is true or false, not {enhanced!r}",
                              fix="enhanced: true fills each word's DEPS (token._.enhanced)")
        self.vocab, self.input, self.enhanced = vocab, input, enhanced
        self.path = resolve(model)
        self.pipeline = Pipeline.load(self.path)
        require_component(self.pipeline.names, "tokenize", self.path, ", so it cannot analyse text in spaCy")
        if enhanced:
            self.pipeline.check_enhanced()

    def __call__(self, text: str | Doc) -> Doc:
        text = text.text if isinstance(text, Doc) else text
        if not text.strip():  # no word: the whitespace alone, as spaCy's tokenizer makes it
            builder = _DocBuilder()
            if text:
                builder.whitespace(text, 0)
            return builder.doc(self.vocab, {"sentences": []})
        return doc_from_sentences(self.vocab, self.pipeline.parse(self.pipeline.tokenize(text, input=self.input),
                                                                  enhanced=self.enhanced))


@Language.factory("barley", default_config={"model": DEFAULT, "input": "text", "enhanced": False})
def make_component(nlp: Language, name: str, model: str, input: str, enhanced: bool) -> BarleyAnalyser:
    """The ``barley`` pipeline component: ``nlp.add_pipe("barley", config={"model": NAME_OR_PATH})``;
    ``"input": "sentences"`` reads one sentence per line (see :meth:`barley.pipeline.Pipeline.tokenize`);
    ``"enhanced": true`` fills DEPS with the enhanced graph (``token._.enhanced``)."""
    return BarleyAnalyser(nlp.vocab, model, input, enhanced)


def load(model: str = DEFAULT, language: str | None = None, input: str = "text", enhanced: bool = False) -> Language:
    """A blank spaCy pipeline whose tokenizer is the barley model ``model`` (a path, a model's name or
    a language code), in the manner of ``spacy_udpipe.load``. ``language``: spaCy's language code
    (default: the model's, else ``xx``, spaCy's multi-language class); ``input``: how a text is read
    (``"text"``, ``"sentences"``: one sentence per line, or ``"tokenized"``); ``enhanced``: DEPS filled
    with each tree's enhanced graph (``token._.enhanced``: the heads and relations)."""
    path = resolve(model)
    code = language or language_code(read_manifest(path)) or "xx"
    try:
        get_lang_class(code)
    except ImportError:
        if language is not None:
            raise BarleyError(f"spaCy has no language {language!r}", fix="give one spaCy knows, or xx") from None
        code = "xx"  # a language spaCy lacks (e.g. Gothic): its multi-language class
    nlp = blank(code)
    nlp.tokenizer = BarleyAnalyser(nlp.vocab, path, input, enhanced)
    return nlp


__all__ = ["load", "make_component", "doc_from_sentences", "to_sentences", "to_conllu", "cut_surface"]
