"""The enhanced graph of a sentence from its basic tree, by rules.

The rules follow the UD guidelines for enhanced dependencies
(https://universaldependencies.org/u/overview/enhanced-syntax.html) and Schuster and
Manning (2016), *Enhanced English Universal Dependencies: An Improved Representation for
Natural Language Understanding Tasks*, §3–4. They read only the universal relations, the
lemmas and the feature ``PronType=Rel`` (and ``Case``, where asked), so they work for any
language whose basic trees have them. Every basic arc is kept (with its label
lexicalised), except the arc of a relative pronoun, which becomes ``ref``; then, in order:

1. **Lexicalised labels**: ``nmod`` and ``obl`` take the lemmas of their ``case``
   dependents, ``acl`` and ``advcl`` those of their ``mark`` and ``case`` dependents
   (``obl:with``, ``advcl:if``; a marker's ``fixed`` dependents join it with ``_``:
   ``obl:because_of``), ``conj`` the lemma of its ``cc`` (``conj:and``), or of the ``cc``
   of the next conjunct that has one (``apples, pears and plums``). Lemmas are lower-cased
   and keep only letters and marks, the characters UD's validator allows there; a relation
   whose subtype already says what the marker would (``obl:agent``, ``nmod:poss``,
   ``acl:relcl``) is left as it is. :class:`Conventions` also adds a nominal's ``Case``
   (``obl:v:loc``, as the Czech treebanks write it) or leaves ``conj`` bare.
2. **Relative clauses**: in a clause attached by ``acl:relcl``, the first word with
   ``PronType=Rel`` (searched in the clause, not inside clauses embedded in it) is the
   relative pronoun. Its arc is replaced by ``ref`` from the antecedent (the noun the
   clause modifies), and the antecedent takes the pronoun's relation in the clause
   (``the man who left``: *man* is ``nsubj`` of *left*). A clause without a relative
   pronoun (``the book I read``) gets nothing, as in the guidelines.
3. **Shared heads of conjuncts**: every conjunct takes the heads of the first conjunct with
   its relations (``apples and pears were sold``: *pears* is ``nsubj`` of *sold*), except
   where the first conjunct is the root, or is attached by ``parataxis``, ``list`` or
   another relation that does not share (:data:`NOT_SHARED`). A conjunct with markers of
   its own is labelled with them (``to Paris and from Rome``: ``obl:from``).
4. **Shared dependents of conjuncts**: a conjunct without a subject of its own takes the
   subjects of the first conjunct that come before it (``nsubj`` or ``nsubj:pass`` by
   whether the conjunct has an ``aux:pass``); a verb without an object takes the first
   conjunct's object where that object follows it (``bought and ate apples``).
5. **Controlled subjects**: an ``xcomp`` without a subject of its own takes, as
   ``nsubj:xsubj``, the object of the controlling word if it has one (object control:
   ``told him to leave``), else its indirect object, else all its subjects in the
   enhanced graph — so subjects shared by conjuncts, antecedents of relative pronouns and
   controlled subjects of the controller itself count (``I want to try to leave``).

No empty nodes are made: elided predicates (gapping) are not restored, and the words that
depend on them keep their basic arcs (``orphan``). The result has no self-loops, every
word has at least one head, and every word is reachable from the root (the basic tree's
arcs stay, and a relative pronoun hangs from its antecedent, which is outside its clause).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from barley.conllu import DEPREL, FEATS, FORM, HEAD, LEMMA, UPOS, Sentence
from barley.enhanced.deps import format_deps
from barley.errors import InputError

MARKERS = {"nmod": ("case",), "obl": ("case",), "acl": ("mark", "case"), "advcl": ("mark", "case")}
"""The relations that take the lemmas of their markers, and the relations of those markers."""
SUBTYPES_WITHOUT_MARKER = frozenset({"agent", "poss", "relcl"})
NOT_SHARED = frozenset({"root", "parataxis", "list", "orphan", "dep", "vocative", "discourse", "reparandum",
                        "goeswith", "aux", "cop", "punct", "conj"})
"""The relations of a first conjunct that its other conjuncts do not take."""
SUBJECTS = frozenset({"nsubj", "csubj"})
CLAUSES = frozenset({"acl", "advcl", "ccomp", "xcomp", "csubj", "parataxis", "conj", "list"})
"""The relations that open a clause, where the search for a relative pronoun stops."""


@dataclass(frozen=True)
class Conventions:
    """What the treebanks of a language write where the guidelines leave a choice."""

    conj_lemma: bool = True  # conj:and (English, Dutch, Swedish); False: conj (Czech)
    morphological_case: bool = False  # obl:v:loc, nmod:gen: the nominal's Case too (Czech)
    shared_root: bool = False  # conjuncts of the root are attached to 0 as well (Czech)
    reduced_relatives: bool = True  # the antecedent of "the book I read" takes the gap's role (English)
    controlled_subject: str = "nsubj:xsubj"  # the relation of a controlled subject


DEFAULT = Conventions()
CONVENTIONS = {"en": DEFAULT, "nl": Conventions(reduced_relatives=False),
               "sv": Conventions(reduced_relatives=False, controlled_subject="nsubj"),
               "cs": Conventions(conj_lemma=False, morphological_case=True, shared_root=True, reduced_relatives=False)}
"""The conventions of the treebanks with enhanced graphs in UD, by language (EWT, Alpino, Talbanken, FicTree)."""


def conventions_for(language: str | None) -> Conventions:
    """The conventions of a language's enhanced treebanks (an ISO 639 code), the default for another."""
    return CONVENTIONS.get((language or "").lower(), DEFAULT)


class BasicTree:
    """The basic tree of one sentence, as the rules read it (and the learned head, :mod:`barley.enhanced.head`)."""

    def __init__(self, sentence: Sentence):
        words = sentence.words
        self.n = len(words)
        self.head = [0] * (self.n + 1)
        for d, word in enumerate(words, 1):
            if not (word[HEAD].isascii() and word[HEAD].isdigit()):
                raise InputError(f"word {d} has no head ({word[HEAD]!r}): enhanced graphs are made from a basic tree",
                                 path=sentence.source, line=sentence.line + len(sentence.comments),
                                 fix="parse the sentence first")
            self.head[d] = int(word[HEAD])
        self.relation = [""] + [word[DEPREL] for word in words]
        self.universal = [relation.partition(":")[0] for relation in self.relation]
        self.form = [""] + [word[FORM] for word in words]
        self.lemma = [""] + [word[LEMMA] if word[LEMMA] != "_" else word[FORM] for word in words]
        self.upos = [""] + [word[UPOS] for word in words]
        self.feats: list[frozenset[str]] = [frozenset()] + [frozenset(word[FEATS].split("|")) for word in words]
        self.pron_type = [_values(feats, "PronType") for feats in self.feats]  # Czech který: PronType=Int,Rel
        self.children: list[list[int]] = [[] for _ in range(self.n + 1)]
        for d in range(1, self.n + 1):
            self.children[self.head[d]].append(d)

    def dependents(self, word: int, *universal: str) -> list[int]:
        return [d for d in self.children[word] if self.universal[d] in universal]

    def first_conjunct(self, word: int) -> int:
        while self.universal[word] == "conj" and self.head[word]:
            word = self.head[word]
        return word

    def conjuncts(self, word: int) -> list[int]:
        """The conjuncts that hang from ``word`` (and from them), in word order."""
        found, stack = [], list(self.dependents(word, "conj"))
        while stack:
            conjunct = stack.pop()
            found.append(conjunct)
            stack.extend(self.dependents(conjunct, "conj"))
        return sorted(found)


def _values(feats: frozenset[str], feature: str) -> list[str]:
    """The values of one feature (``Case=Acc,Dat`` has two)."""
    return next((f.partition("=")[2].split(",") for f in feats if f.startswith(feature + "=")), [])


def _lexical(lemma: str) -> str:
    """A lemma as a label part: lower-cased, letters and marks only (UD's validator allows nothing else)."""
    return "".join(c for c in lemma.lower() if unicodedata.category(c) in ("Ll", "Lm", "Lo", "Mn", "Mc", "Me"))


def _marker(tree: BasicTree, word: int) -> str:
    """A marker with its fixed dependents (``because_of``); a verb as a marker is written as it is, not as its
    lemma (``according_to``, ``including``)."""
    parts = [_lexical(tree.form[w] if tree.upos[w] == "VERB" else tree.lemma[w])
             for w in sorted([word, *tree.dependents(word, "fixed")])]
    return "_".join(part for part in parts if part)


def _lexical_part(tree: BasicTree, markers: list[int]) -> str:
    return "_".join(part for part in (_marker(tree, m) for m in markers) if part)


def _markers(tree: BasicTree, universal: str, marked: int) -> list[int]:
    """The marker that lexicalises the relation of ``marked``: its marker nearest to it (``for him to go``:
    *to*), or for an advcl without one a wh-adverb (``when I left``); for conj, every cc."""
    if universal == "conj":
        return [d for d in tree.children[marked] if tree.relation[d] == "cc"]
    markers = tree.dependents(marked, *MARKERS[universal])
    if not markers and universal == "advcl":
        markers = [d for d in tree.dependents(marked, "advmod") if {"Int", "Rel"} & set(tree.pron_type[d])]
    return sorted(markers, key=lambda m: (abs(m - marked), m))[:1]


def lexicalised(tree: BasicTree, relation: str, marked: int, conventions: Conventions) -> str:
    """``relation`` lexicalised with the markers of the word ``marked``."""
    universal, _, subtype = relation.partition(":")
    if subtype in SUBTYPES_WITHOUT_MARKER:
        return relation
    if universal == "conj":
        if not conventions.conj_lemma:
            return relation
        markers = _markers(tree, universal, marked)
    elif universal in MARKERS:
        markers = _markers(tree, universal, marked)
    else:
        return relation
    parts = [relation]
    lexical = _lexical_part(tree, markers)
    if universal == "conj" and not lexical:  # "A, B and C", "A & B and C": the cc of the next conjunct with one
        later = (c for c in tree.conjuncts(tree.head[marked]) if c > marked)
        lexical = next((found for c in later if (found := _lexical_part(tree, _markers(tree, universal, c)))), "")
    if lexical:
        parts.append(lexical)
    if conventions.morphological_case and universal in ("nmod", "obl"):
        case = _values(tree.feats[marked], "Case")
        if len(case) == 1 and case[0].isalpha():
            parts.append(case[0].lower())
    return ":".join(parts)


def enhanced_arcs(sentence: Sentence | BasicTree, conventions: Conventions = DEFAULT) -> list[set[tuple[int, str]]]:
    """The enhanced arcs of every word: ``arcs[d]`` is the set of (head, relation) of word d (entry 0 empty)."""
    tree = sentence if isinstance(sentence, BasicTree) else BasicTree(sentence)
    n = tree.n
    arcs: list[set[tuple[int, str]]] = [set()] + [{(tree.head[d], lexicalised(tree, tree.relation[d], d, conventions))}
                                                  for d in range(1, n + 1)]
    _relative_clauses(tree, arcs, conventions)
    _shared_heads(tree, arcs, conventions)
    _shared_dependents(tree, arcs)
    _controlled_subjects(tree, arcs, conventions)
    for d in range(1, n + 1):
        arcs[d] = {(head, relation) for head, relation in arcs[d] if head != d}
    return arcs


def enhance(sentence: Sentence, conventions: Conventions = DEFAULT) -> list[str]:
    """The DEPS value of every word 1..n of ``sentence``, from its basic tree."""
    return [format_deps(arcs) for arcs in enhanced_arcs(sentence, conventions)[1:]]


def _relative_pronoun(tree: BasicTree, clause: int) -> int | None:
    """The first word with PronType=Rel in the clause headed by ``clause``, not inside a clause within it."""
    found, stack = [], [clause]
    while stack:
        word = stack.pop()
        if "Rel" in tree.pron_type[word]:
            found.append(word)
        stack.extend(d for d in tree.children[word] if tree.universal[d] not in CLAUSES)
    return min(found) if found else None


def _relative_clauses(tree: BasicTree, arcs: list[set[tuple[int, str]]], conventions: Conventions) -> None:
    for clause in range(1, tree.n + 1):
        if tree.relation[clause] != "acl:relcl":
            continue
        antecedent, pronoun = tree.head[clause], _relative_pronoun(tree, clause)
        if not antecedent or pronoun == clause or (pronoun is None and (
                not conventions.reduced_relatives or tree.dependents(clause, "mark"))):
            continue
        if pronoun is None:  # the book I read: the role of the gap
            role = {(clause, "nsubj" if not tree.dependents(clause, *SUBJECTS) else
                     "obj" if not tree.dependents(clause, "obj", "ccomp") else "obl")}
        else:
            role, arcs[pronoun] = arcs[pronoun], {(antecedent, "ref")}
        arcs[antecedent] |= {(head, relation) for head, relation in role if head != antecedent}


def _shared_heads(tree: BasicTree, arcs: list[set[tuple[int, str]]], conventions: Conventions) -> None:
    for d in range(1, tree.n + 1):
        if tree.universal[d] != "conj":
            continue
        first = tree.first_conjunct(d)
        if tree.universal[first] == "root" and conventions.shared_root:
            arcs[d].add((0, "root"))
        if tree.universal[first] in NOT_SHARED:
            continue
        for head, relation in list(arcs[first]):
            if relation == "ref" or relation.partition(":")[0] in NOT_SHARED:
                continue
            universal = relation.partition(":")[0]
            own = universal in MARKERS and tree.dependents(d, *MARKERS[universal])
            basic = tree.relation[first] if head == tree.head[first] else relation.partition(":")[0]
            arcs[d].add((head, lexicalised(tree, basic, d, conventions) if own else relation))


def _voiced(tree: BasicTree, relation: str, word: int) -> str:
    """A subject relation as the voice of ``word`` has it: passive where it has an aux:pass, active where it
    has another aux or cop or is not a participle; a bare participle shares the voice of the first conjunct
    (``was arrested and charged``)."""
    universal, _, subtype = relation.partition(":")
    if universal not in SUBJECTS or subtype not in ("", "pass"):
        return relation
    auxiliaries = {tree.relation[d] for d in tree.children[word] if tree.universal[d] in ("aux", "cop")}
    if "aux:pass" in auxiliaries:
        return f"{universal}:pass"
    if auxiliaries or "Part" not in _values(tree.feats[word], "VerbForm"):
        return universal
    return relation


def _shared_dependents(tree: BasicTree, arcs: list[set[tuple[int, str]]]) -> None:
    subjects = _dependents_by_relation(tree, arcs, SUBJECTS)
    for d in range(1, tree.n + 1):
        if tree.universal[d] != "conj":
            continue
        first = tree.first_conjunct(d)
        if not tree.dependents(d, *SUBJECTS, "expl"):
            for subject, relation in subjects[first]:
                if subject < d:
                    arcs[subject].add((d, _voiced(tree, relation, d)))
        if not tree.dependents(d, "obj", "ccomp", "xcomp"):
            for obj in tree.dependents(first, "obj"):
                if obj > d:
                    arcs[obj].add((d, tree.relation[obj]))


def _dependents_by_relation(tree: BasicTree, arcs: list[set[tuple[int, str]]], universal: frozenset[str]
                            ) -> list[list[tuple[int, str]]]:
    """For every word, its dependents in the enhanced graph by one of the ``universal`` relations."""
    found: list[list[tuple[int, str]]] = [[] for _ in range(tree.n + 1)]
    for d in range(1, tree.n + 1):
        for head, relation in sorted(arcs[d]):
            if relation.partition(":")[0] in universal:
                found[head].append((d, relation))
    return found


def _controlled_subjects(tree: BasicTree, arcs: list[set[tuple[int, str]]], conventions: Conventions) -> None:
    """Controllers first: an xcomp's subject may be the controlled subject of its controller."""
    for complement in sorted(range(1, tree.n + 1), key=lambda word: _depth(tree.head, word)):
        controllers = [head for head, relation in arcs[complement] if relation.partition(":")[0] == "xcomp"]
        if not controllers or tree.dependents(complement, *SUBJECTS):
            continue
        subjects = _dependents_by_relation(tree, arcs, SUBJECTS)
        for controller in controllers:
            objects = tree.dependents(controller, "obj") or tree.dependents(controller, "iobj")
            for word in objects or [subject for subject, _ in subjects[controller]]:
                arcs[word].add((complement, conventions.controlled_subject))


def _depth(heads: Sequence[int], word: int) -> int:
    depth = 0
    while word and depth < len(heads):  # bounded: a cycle in a damaged tree ends the walk
        word, depth = heads[word], depth + 1
    return depth
