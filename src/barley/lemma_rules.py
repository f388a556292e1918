"""Lemmas as edit rules: how a form's prefix and suffix change into its lemma.

A rule is ``casing|cut prefix|add prefix|cut suffix|add suffix`` (Chrupała 2006;
UDPipe 1's lemmatizer guesses such rules, Straka & Straková 2017 §4.3). The form is
first kept as it is (``keep``) or lower-cased (``lower``); the longest common
substring of that and the lemma stays, the text before it and after it is replaced.
So *walked* → *walk* is ``keep|||ed|``, *Studies* → *study* is ``lower|||ies|y``, and a
rule applies to another form only if it starts and ends with the text the rule cuts.
When form and lemma share nothing (*went* → *go*) the rule replaces the whole form:
``casing|*|go`` — such rules are for the dictionary's known words, and a classifier
only ever picks them where they were seen.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from difflib import SequenceMatcher

from barley.conllu import FORM, LEMMA, UPOS

WHOLE = "*"
SEPARATOR = "|"


def _bases(form: str) -> tuple[tuple[str, str], ...]:
    return (("keep", form), ("lower", form.lower()))


def edit_rule(form: str, lemma: str) -> str:
    """The rule that turns ``form`` into ``lemma`` (:func:`apply_rule` inverts it)."""
    best: tuple[int, str] | None = None
    for casing, base in _bases(form):
        match = SequenceMatcher(None, base, lemma, autojunk=False).find_longest_match(0, len(base), 0, len(lemma))
        if match.size == 0:
            continue
        rule = SEPARATOR.join((casing, base[:match.a], lemma[:match.b], base[match.a + match.size:],
                               lemma[match.b + match.size:]))
        if best is None or match.size > best[0]:  # ties: "keep" (first) wins
            best = (match.size, rule)
    if best is None or SEPARATOR in form or SEPARATOR in lemma:
        return SEPARATOR.join(("keep", WHOLE, lemma))
    return best[1]


def apply_rule(form: str, rule: str) -> str | None:
    """The lemma ``rule`` makes of ``form``, or None when the rule does not apply to it."""
    casing, cut_prefix, *rest = rule.split(SEPARATOR, 2)
    if cut_prefix == WHOLE:
        return rest[0]
    add_prefix, cut_suffix, add_suffix = rest[0].split(SEPARATOR)
    base = form if casing == "keep" else form.lower()
    if len(cut_prefix) + len(cut_suffix) >= len(base) or not base.startswith(cut_prefix) \
            or not base.endswith(cut_suffix):
        return None
    return add_prefix + base[len(cut_prefix):len(base) - len(cut_suffix)] + add_suffix


def is_rule(text: str) -> bool:
    """Whether ``text`` is a rule :func:`apply_rule` reads (``casing|*|lemma`` or five parts)."""
    parts = text.split(SEPARATOR, 2)
    return (len(parts) == 3 and parts[0] in ("keep", "lower")
            and (parts[1] == WHOLE or len(parts[2].split(SEPARATOR)) == 3))


def replaces_whole(rule: str) -> bool:
    """Whether ``rule`` replaces the whole form (it then says nothing about other forms)."""
    return rule.split(SEPARATOR, 2)[1] == WHOLE


def lemma_dictionaries(words: Iterable[list[str]]) -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    """The most frequent lemma of each (FORM, UPOS) and of each FORM of ``words`` (CoNLL-U rows;
    ties: the first seen)."""
    by_pair: dict[tuple[str, str], Counter] = defaultdict(Counter)
    by_form: dict[str, Counter] = defaultdict(Counter)
    for word in words:
        by_pair[word[FORM], word[UPOS]][word[LEMMA]] += 1
        by_form[word[FORM]][word[LEMMA]] += 1
    return ({key: counts.most_common(1)[0][0] for key, counts in by_pair.items()},
            {key: counts.most_common(1)[0][0] for key, counts in by_form.items()})
