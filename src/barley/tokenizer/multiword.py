"""Multiword tokens: which tokens are several syntactic words, and which words they are.

Learned from the training treebank's range lines (``3-4  don't`` over ``do`` and
``n't``; Spanish ``del`` over ``de el``; Latin ``remque`` over ``rem que``):

* a dictionary from the surface form to its most frequent expansion, applied when
  the form was a multiword token in at least half of its training occurrences
  (``its`` is one word far more often than it is EWT's misspelt ``it s``);
* suffix rules for forms never seen in training: every two-word expansion is read as
  "the form's stem, then a suffix rewritten into the end of word 1 and word 2"
  (``Bush's`` → stem ``Bush``, suffix ``'s`` → ``"" + 's``; ``won't`` → ``wo`` +
  ``n't``; ``remque`` → ``rem`` + ``que``). A rule applies to an unseen form ending in
  its suffix when most training forms with that ending (longer than it) were split by
  it; the longest reliable suffix wins.

Case is carried over from the surface form: words that spell the form are cut out
of it (``NASA's`` → ``NASA`` ``'s``); other expansions learned in lower case get the
capital of ``Don't`` on their first word, and all capitals for ``DON'T``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from itertools import accumulate

from barley.conllu import FORM, ID, Sentence
from barley.models import check

CACHED_FORMS = 1 << 16  # surface forms whose expansion is remembered (forms repeat: most tokens are hits)
MIN_RULE_SUPPORT = 3  # training forms a suffix rule needs before it is trusted
MAX_SUFFIX = 6


def _common_prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _cased(words: list[str], surface: str) -> list[str]:
    if len(surface) > 1 and surface.isupper():
        return [word.upper() for word in words]
    if surface[:1].isupper() and words and words[0]:
        return [words[0][0].upper() + words[0][1:], *words[1:]]
    return words


class MultiwordExpander:
    def __init__(self, expansions: dict[str, list[str]] | None = None,
                 rules: dict[str, list[str]] | None = None, single: Iterable[str] = ()):
        self.expansions = expansions or {}  # lower-cased surface → words (lower-cased)
        self.rules = rules or {}  # lower-cased suffix → [end of word 1, word 2]
        self.single = frozenset(single)  # training forms with a rule's ending that stay one word
        self._known: dict[str, tuple[str, ...]] = {}  # surface → its words, () if not a multiword token (bounded)

    @classmethod
    def train(cls, sentences: Iterable[Sentence]) -> MultiwordExpander:
        as_multiword: dict[str, Counter] = defaultdict(Counter)
        occurrences: Counter = Counter()
        for sentence in sentences:
            rows = sentence.rows
            covered = 0
            for j, row in enumerate(rows):
                first, dash, last = row[ID].partition("-")
                if "." in row[ID]:
                    continue
                if dash:
                    covered = int(last)
                    surface = row[FORM].lower()
                    words = tuple(r[FORM].lower() for r in rows[j + 1:j + 2 + covered - int(first)])
                    as_multiword[surface][words] += 1
                    occurrences[surface] += 1
                elif int(row[ID]) > covered:
                    occurrences[row[FORM].lower()] += 1
        expansions = {}
        for surface, counts in as_multiword.items():
            words, _ = max(counts.items(), key=lambda item: (item[1], item[0]))
            if 2 * sum(counts.values()) >= occurrences[surface]:
                expansions[surface] = list(words)
        rules = _suffix_rules(as_multiword, occurrences)
        single = [surface for surface in occurrences if surface not in expansions
                  and any(surface[-length:] in rules for length in range(1, min(MAX_SUFFIX, len(surface) - 1) + 1))]
        return cls(expansions, rules, sorted(single))

    def expand(self, surface: str) -> list[str] | None:
        """The words of ``surface`` when it is a multiword token, else None."""
        known = self._known.get(surface)  # one lookup per token: most are hits
        if known is None:
            if len(self._known) >= CACHED_FORMS:
                self._known.clear()
            words = self._expanded(surface)
            known = self._known[surface] = () if words is None else tuple(words)
        return list(known) if known else None

    def _expanded(self, surface: str) -> list[str] | None:
        key = surface.lower()
        words = self.expansions.get(key)
        if words is None and self.rules and key not in self.single:
            for length in range(min(MAX_SUFFIX, len(key) - 1), 0, -1):
                rule = self.rules.get(key[-length:])
                if rule is not None:
                    stem = surface[:-length]
                    return [stem + _cased([rule[0]], surface[-length:])[0] if rule[0] else stem,
                            _cased([rule[1]], surface[-length:])[0]]
        if words is None:
            return None
        if sum(map(len, words)) == len(surface) and "".join(words) == key:  # the words spell the surface:
            cuts = [0, *accumulate(map(len, words))]  # cut the surface itself, keeping its case (McDonald s)
            return [surface[a:b] for a, b in zip(cuts, cuts[1:])]
        return _cased(list(words), surface)

    def to_json(self) -> dict:
        return {"expansions": self.expansions, "rules": self.rules, "single": sorted(self.single)}

    @classmethod
    def from_json(cls, data: dict) -> MultiwordExpander:
        """The expander of :meth:`to_json`, checked (:mod:`barley.models.check`): its words are
        written into CoNLL-U's FORM column."""
        check.mapping(data, "the multiword expander")
        expansions = check.mapping(data["expansions"], "the multiword expansions")
        for surface, words in expansions.items():
            if len(check.texts(words, "a multiword expansion", field=True)) < 2:
                check.fail(f"the multiword expansion of {surface!r} is not two words or more")
        rules = check.mapping(data["rules"], "the multiword rules")
        for suffix, rule in rules.items():
            if len(check.texts(rule, "a multiword rule")) != 2 or not suffix:
                check.fail(f"the multiword rule of {suffix!r} is not an ending and a word")
            check.text(rule[0], "a multiword rule's ending", field=True, empty=True)
            check.text(rule[1], "a multiword rule's word", field=True)
        return cls(expansions, rules, check.texts(data["single"], "the single-word forms"))


def _suffix_rules(as_multiword: dict[str, Counter], occurrences: Counter) -> dict[str, list[str]]:
    """Suffix rules (see the module docstring) that split most training forms with their ending."""
    rule_forms: dict[str, Counter] = defaultdict(Counter)  # suffix → rule → forms it splits
    for surface, counts in as_multiword.items():
        for words in counts:
            if len(words) != 2:
                continue
            stem = _common_prefix(surface, words[0])
            suffix = surface[stem:]
            if 0 < len(suffix) <= MAX_SUFFIX and stem > 0:
                rule = (words[0][stem:], words[1])
                if stem + len(rule[0]) == len(words[0]) and suffix:
                    rule_forms[suffix][rule] += 1
    ending: Counter[str] = Counter()  # suffix → training forms (types) longer than it with that ending
    for surface in occurrences:
        for length in range(1, min(MAX_SUFFIX, len(surface) - 1) + 1):
            if surface[-length:] in rule_forms:
                ending[surface[-length:]] += 1
    rules = {}
    for suffix, counts in rule_forms.items():
        rule, splits = max(counts.items(), key=lambda item: (item[1], item[0]))
        if splits >= MIN_RULE_SUPPORT and 2 * splits > ending[suffix]:
            rules[suffix] = list(rule)
    return rules
