"""The k best analyses of a sentence in CoNLL-U (``barley parse --nbest K``), and the oracle
score of such a file (``barley evaluate``): of each sentence, its best analysis.

Each analysis is a copy of the input sentence with its own tree, written one after the other,
best first, with three comments in place of the input's ``sent_id``::

    # sent_id = weblog-3#2       the input's sent_id (line-N, its first line, when it has none) # rank
    # nbest = 2/5                rank / how many analyses the sentence has (fewer than K when fewer
                                 trees are possible)
    # score = -3.1416            the tree's score under the parser's model (docs/graph.md)

so that every analysis is a valid CoNLL-U sentence with a unique ``sent_id``, and the analyses of
one sentence are those whose ``sent_id`` is the same before the last ``#``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from barley.conllu import DEPREL, HEAD, Sentence
from barley.errors import InputError
from barley.evaluation.attachment import Evaluation, Source, source_name, sentences_of, formatted, evaluate
from barley.tree import Heads

EMPTY_TREE = (0.0, [-1], [""])
"""The one analysis of a sentence without words: (score, heads, deprels)."""
NBEST_KEYS = ("sent_id", "nbest", "score")
"""The comments an analysis of a k-best file carries (any the input had are replaced)."""


def analyses(sentence: Sentence, ranked: Sequence[tuple[float, Heads, list[str]]],
             set_tree: Callable[[Sentence, Heads, list[str]], None]) -> list[Sentence]:
    """One sentence per (score, heads, deprels) of ``ranked`` (best first): ``sentence`` itself
    (parsed in place, as without k-best) and copies of it, each tree put in by ``set_tree``
    (which undoes the parser's transforms), each with the comments of the module docstring.
    Two trees that the inverse transforms make one (a pseudo-projective encoding read back)
    are written once, the better."""
    name = sentence.sent_id or f"line-{sentence.line}"
    kept = [comment for comment in sentence.comments if _key(comment) not in NBEST_KEYS]
    written: list[tuple[Sentence, float]]
    written, seen = [], set()
    for score, heads, deprels in ranked:
        copy = sentence.copy() if written else sentence
        set_tree(copy, heads, deprels)
        tree = tuple((word[HEAD], word[DEPREL]) for word in copy.words)
        if tree not in seen:
            seen.add(tree)
            written.append((copy, score))
    for rank, (copy, score) in enumerate(written, 1):
        copy.comments = [f"# sent_id = {name}#{rank}", f"# nbest = {rank}/{len(written)}",
                         f"# score = {score:.4f}", *kept]
        copy.bom = sentence.bom and rank == 1
    return [copy for copy, _ in written]


def expanded(parsed: Iterable[Sentence], found: dict[int, list[Sentence]],
             set_tree: Callable[[Sentence, Heads, list[str]], None]) -> Iterator[Sentence]:
    """Each sentence of ``parsed`` followed by its other analyses: those of ``found`` (by the
    sentence's id(), taken out), or for a sentence the parser skipped (no words) its one analysis."""
    for sentence in parsed:
        yield from found.pop(id(sentence), None) or analyses(sentence, [EMPTY_TREE], set_tree)


def _key(comment: str) -> str:
    key, equals, _ = comment[1:].partition("=")
    return key.strip() if equals else ""


def group_name(sentence: Sentence) -> str | None:
    """The input sentence an analysis of a k-best file belongs to: its ``sent_id`` before the last
    ``#``; None for a sentence that is not such an analysis (no ``# nbest`` comment)."""
    if not any(_key(comment) == "nbest" for comment in sentence.comments) or sentence.sent_id is None:
        return None
    return sentence.sent_id.rpartition("#")[0] or None


@dataclass
class OracleEvaluation:
    """A k-best file scored against the gold: its first analyses, and its oracle — of each sentence,
    the analysis with the fewest LAS errors (the first among equals)."""

    sentences: int
    analyses: int
    most: int  # the most analyses of one sentence
    first: Evaluation
    oracle: Evaluation

    def as_dict(self) -> dict:
        return {"sentences": self.sentences, "analyses": self.analyses, "most": self.most,
                "first": self.first.as_dict(), "oracle": self.oracle.as_dict()}

    def summary(self) -> str:
        first, oracle = self.first.as_dict(), self.oracle.as_dict()
        return (f"k-best file: {self.analyses} analyses of {self.sentences} sentences (at most {self.most}, "
                f"{self.analyses / max(self.sentences, 1):.2f} on average)\n"
                f"first analyses: LAS {formatted(first['LAS'])}, UAS {formatted(first['UAS'])}\n"
                f"oracle (the best analysis of each sentence by LAS): LAS {formatted(oracle['LAS'])}, "
                f"UAS {formatted(oracle['UAS'])}")


def is_k_best(system: Source) -> bool:
    """Whether ``system`` (a path or sentences) is a k-best file: its first sentence is an analysis."""
    return next((group_name(sentence) is not None for sentence in sentences_of(system)), False)


def evaluate_oracle(gold: Source, system: Source, exclude_punct: bool | str = False) -> OracleEvaluation:
    """Score a k-best file (``system``, as ``barley parse --nbest`` writes it) against ``gold``."""
    gold = list(sentences_of(gold))
    groups = _groups(system)
    if len(groups) != len(gold):
        raise InputError(f"the k-best file has analyses of {len(groups)} sentences and the gold has {len(gold)}",
                         path=source_name(system), fix="evaluate against the gold file that was parsed")
    every = evaluate([g for g, group in zip(gold, groups) for _ in group],
                     [analysis for group in groups for analysis in group], exclude_punct)
    errors = np.bincount(every.sentence_of_word[~every.correct], minlength=every.sentences)
    best, start = [], 0
    for group in groups:
        best.append(group[int(np.argmin(errors[start:start + len(group)]))])
        start += len(group)
    return OracleEvaluation(len(groups), every.sentences, max(map(len, groups), default=0),
                            evaluate(gold, [group[0] for group in groups], exclude_punct),
                            evaluate(gold, best, exclude_punct))


def _groups(system: Source) -> list[list[Sentence]]:
    """The analyses of a k-best file, those of each sentence together (consecutive, same group name)."""
    groups: list[list[Sentence]] = []
    last = None
    for sentence in sentences_of(system):
        name = group_name(sentence)
        if name is None:
            raise InputError("this sentence is not an analysis of a k-best file (it lacks '# nbest' or a sent_id "
                             "with '#')", path=sentence.source, line=sentence.line,
                             fix="evaluate a file written by barley parse --nbest, unchanged")
        if name != last:
            groups.append([])
            last = name
        groups[-1].append(sentence)
    return groups
