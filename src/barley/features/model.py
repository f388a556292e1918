"""The feature language: feature models are data, one text file per transition system.

A feature model lists one feature per line. A feature is an *atom* (an attribute
of a token addressed relative to the parser configuration) or the conjunction of
two or three atoms joined with ``&``. This is Nivre 2008 §6.1 and Table 2 made
explicit: each cell of Table 2 is an atom ``ATTR(address)``.

Addresses (``L[i]`` = i-th element of a list, 0 = the element next to the
decision point)::

    Stack[i]      σ, top is Stack[0]                  (aliases: σ, S; MaltParser: Stack)
    Input[i]      β, front is Input[0]                (aliases: β, Buffer, B; MaltParser:
                                                       Input, Lookahead, Right)
    Lambda1[i]    Covington's λ1, Lambda1[0] next to β (aliases: λ1; MaltParser: Left)
    Lambda2[i]    Covington's λ2, Lambda2[0] next to λ1; Lambda2[-1] is λ2[n] (alias: λ2)
    Inactive[i]   2-planar's inactive stack, top is Inactive[0]
    head(a) ldep(a) rdep(a)    head, leftmost / rightmost dependent (hd, ld, rd)
    lsib(a) rsib(a)            nearest sibling to the left / right (same head)
    pred(a) succ(a)            the word before / after in the sentence

Attributes: ``FORM LEMMA UPOS XPOS FEATS`` of the input (MaltParser's ``CPOSTAG``
and ``POSTAG`` are UPOS and XPOS; FEATS is split into its atoms ``Case=Nom`` ...,
one binary feature each), ``DEPREL`` (the label assigned so far), ``LDEPS`` and
``RDEPS`` (number of left / right dependents so far, capped at 3) and
``DIST(a, b)`` (b - a, bucketed as 1 2 3 4 5-9 10+, signed).

MaltParser's spelling is accepted too: ``InputColumn(POSTAG, Stack[0])``,
``OutputColumn(DEPREL, ldep(Stack[0]))``, ``Merge(f, g)``, ``Merge3(f, g, h)``, and
lines of a MaltParser XML feature file (``<feature>…</feature>``; other tags are
skipped). ``#`` starts a comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from barley.conllu import read_text
from barley.errors import InputError

BASES = {
    "Stack": "Stack", "σ": "Stack", "S": "Stack",
    "Input": "Input", "β": "Input", "Buffer": "Input", "B": "Input", "Lookahead": "Input", "Right": "Input",
    "Lambda1": "Lambda1", "λ1": "Lambda1", "Left": "Lambda1",
    "Lambda2": "Lambda2", "λ2": "Lambda2",
    "Inactive": "Inactive",
}
FUNCTIONS = {
    "head": "head", "hd": "head",
    "ldep": "ldep", "ld": "ldep",
    "rdep": "rdep", "rd": "rdep",
    "lsib": "lsib", "rsib": "rsib",
    "pred": "pred", "succ": "succ",
}
TOKEN_ATTRIBUTES = ("FORM", "LEMMA", "UPOS", "XPOS", "FEATS")
"""Attributes read from the input columns: fixed for a sentence."""
STATE_ATTRIBUTES = ("DEPREL", "LDEPS", "RDEPS")
"""Attributes of the partially built graph: they change while parsing."""
ATTRIBUTE_ALIASES = {"CPOSTAG": "UPOS", "POSTAG": "XPOS", "LEMMA": "LEMMA", "FORM": "FORM",
                     "FEATS": "FEATS", "UPOS": "UPOS", "XPOS": "XPOS", "DEPREL": "DEPREL",
                     "LDEPS": "LDEPS", "RDEPS": "RDEPS"}


@dataclass(frozen=True)
class Address:
    """A token relative to the configuration: ``base[index]`` then functions applied in order."""

    base: str
    index: int
    path: tuple[str, ...] = ()

    def __str__(self) -> str:
        text = f"{self.base}[{self.index}]"
        for function in self.path:
            text = f"{function}({text})"
        return text


@dataclass(frozen=True)
class Atom:
    """One attribute of one address; ``DIST`` takes two addresses."""

    attribute: str
    addresses: tuple[Address, ...]

    def __str__(self) -> str:
        return f"{self.attribute}({', '.join(map(str, self.addresses))})"


@dataclass(frozen=True)
class Feature:
    """A conjunction of 1 to 3 atoms: one binary feature per combination of values."""

    atoms: tuple[Atom, ...]

    def __str__(self) -> str:
        return " & ".join(map(str, self.atoms))


@dataclass(frozen=True)
class FeatureModel:
    features: tuple[Feature, ...]
    text: str
    source: str = "<memory>"
    lines: tuple[int, ...] = ()
    """The line of ``text`` each feature is on (for errors that name it)."""

    def atoms(self) -> list[Atom]:
        """Every distinct atom, in order of first use."""
        seen: dict[Atom, None] = {}
        for feature in self.features:
            for atom in feature.atoms:
                seen.setdefault(atom)
        return list(seen)

    def addresses(self) -> list[Address]:
        """Every distinct address (including the inner addresses of ``head(...)`` chains)."""
        seen: dict[Address, None] = {}
        for atom in self.atoms():
            for address in atom.addresses:
                for depth in range(len(address.path) + 1):
                    seen.setdefault(Address(address.base, address.index, address.path[:depth]))
        return list(seen)


_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-zσβλ][A-Za-z0-9_σβλ]*)|(?P<int>-?\d+)|(?P<punct>[()\[\],&]))")


class _Syntax(Exception):
    pass


def _tokens(text: str) -> list[str]:
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match:
            raise _Syntax(f"unexpected character {text[position:].lstrip()[:1]!r}")
        tokens.append(match.group(match.lastgroup or 0))
        position = match.end()
    return tokens


class _Reader:
    """Recursive descent over ``term := NAME ('[' INT ']' | '(' term (',' term)* ')')``."""

    def __init__(self, tokens: list[str]):
        self.tokens, self.at = tokens, 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise _Syntax(f"expected {expected or 'more'}, found {token or 'end of line'!r}")
        self.at += 1
        return token

    def term(self):
        name = self.take()
        if self.peek() == "[":
            self.take("[")
            index = self.take()
            if not re.fullmatch(r"-?\d+", index):
                raise _Syntax(f"index of {name} must be an integer, found {index!r}")
            self.take("]")
            return ("list", name, int(index))
        if self.peek() == "(":
            self.take("(")
            args = [self.term()]
            while self.peek() == ",":
                self.take(",")
                args.append(self.term())
            self.take(")")
            return ("call", name, args)
        return ("name", name)


def _address(term) -> Address:
    kind = term[0]
    if kind == "list":
        _, name, index = term
        if name not in BASES:
            raise _Syntax(f"unknown address {name}[{index}] (known: Stack, Input, Lambda1, Lambda2, Inactive "
                          f"and MaltParser's Lookahead, Left, Right)")
        return Address(BASES[name], index)
    if kind == "call" and term[1] in FUNCTIONS and len(term[2]) == 1:
        inner = _address(term[2][0])
        return Address(inner.base, inner.index, inner.path + (FUNCTIONS[term[1]],))
    shown = term[1]
    raise _Syntax(f"{shown!r} is not an address (use e.g. Stack[0], head(Input[0]))")


def _atoms(term) -> list[Atom]:
    """A term as a list of atoms (a Merge gives several)."""
    if term[0] != "call":
        raise _Syntax(f"{term[1]!r} is not a feature (use e.g. XPOS(Stack[0]))")
    _, name, args = term
    if name in ("Merge", "Merge3"):
        atoms = [atom for arg in args for atom in _atoms(arg)]
        if len(args) != (2 if name == "Merge" else 3):
            raise _Syntax(f"{name} takes {2 if name == 'Merge' else 3} features, found {len(args)}")
        return atoms
    if name in ("InputColumn", "OutputColumn"):
        if len(args) != 2 or args[0][0] != "name":
            raise _Syntax(f"{name} takes a column name and an address")
        column = args[0][1]
        if column not in ATTRIBUTE_ALIASES:
            raise _Syntax(f"unknown column {column!r}")
        return [Atom(ATTRIBUTE_ALIASES[column], (_address(args[1]),))]
    if name == "DIST":
        if len(args) != 2:
            raise _Syntax("DIST takes two addresses, e.g. DIST(Stack[0], Input[0])")
        return [Atom("DIST", (_address(args[0]), _address(args[1])))]
    if name in ATTRIBUTE_ALIASES:
        if len(args) != 1:
            raise _Syntax(f"{name} takes one address")
        return [Atom(ATTRIBUTE_ALIASES[name], (_address(args[0]),))]
    raise _Syntax(f"unknown attribute {name!r} (known: {', '.join(TOKEN_ATTRIBUTES + STATE_ATTRIBUTES)}, DIST)")


def parse_address(text: str) -> Address:
    """One address from its text (e.g. ``ldep(Stack[1])``); raises ValueError with the reason."""
    try:
        reader = _Reader(_tokens(text))
        address = _address(reader.term())
        if reader.peek() is not None:
            raise _Syntax(f"unexpected {reader.peek()!r} after the address (one address per line)")
    except _Syntax as error:
        raise ValueError(str(error)) from None
    return address


def parse_feature(text: str) -> Feature:
    """One feature from its text; raises ValueError with the reason."""
    try:
        reader = _Reader(_tokens(text))
        atoms = _atoms(reader.term())
        while reader.peek() == "&":
            reader.take("&")
            atoms.extend(_atoms(reader.term()))
        if reader.peek() is not None:
            raise _Syntax(f"unexpected {reader.peek()!r} after the feature (join atoms with &)")
    except _Syntax as error:
        raise ValueError(str(error)) from None
    if len(atoms) > 3:
        raise ValueError(f"a conjunction joins at most 3 atoms, found {len(atoms)}")
    if sum(atom.attribute == "FEATS" for atom in atoms) > 1:
        raise ValueError("at most one FEATS atom per conjunction (each is a set of values)")
    return Feature(tuple(atoms))


_XML_FEATURE = re.compile(r"<feature>(.*)</feature>")


def parse_lines(text: str, source: str, parse, noun: str, fix: str) -> tuple[list, list[int]]:
    """The items of a model file listing one per line (``#`` starts a comment), each line read by
    ``parse`` (None: a line without an item; ValueError: a bad one), and their line numbers.
    Errors — a bad line, a repeated item, no item — name ``source:line``."""
    items: list = []
    lines: list[int] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            item = parse(line)
        except ValueError as error:
            raise InputError(f"bad {noun} {line!r}: {error}", path=source, line=number, fix=fix) from None
        if item is None:
            continue
        if item in items:
            raise InputError(f"{noun} {item} is listed twice", path=source, line=number,
                             fix="remove the duplicate line")
        items.append(item)
        lines.append(number)
    if not items:
        raise InputError(f"the {noun} model lists no {noun}", path=source, fix=f"add one {noun} per line")
    return items, lines


def _feature_line(line: str) -> Feature | None:
    if line.startswith("<"):
        match = _XML_FEATURE.search(line)
        if not match:
            return None  # other MaltParser XML tags carry no feature
        line = match.group(1).strip()
    return parse_feature(line)


def parse_model(text: str, source: str = "<memory>") -> FeatureModel:
    """A feature model from its text; errors name ``source:line``."""
    features, lines = parse_lines(text, source, _feature_line, "feature",
                                  "see `barley features --system arc-eager` for the syntax")
    return FeatureModel(tuple(features), text, source, tuple(lines))


def read_model(path: str) -> FeatureModel:
    return parse_model(read_text(path), path)
