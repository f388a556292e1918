"""Treebank statistics on the structure of dependency trees.

The figures follow the papers' tables: NPT and NPS (Nivre 2008, Table 1: the share
of words attached by a non-projective arc and of sentences with at least one),
non-planar, non-2-planar, non-3-planar and ill-nested sentences (Gómez-Rodríguez
and Nivre 2010, Table 1; planarity over arcs between words, as there), the
distribution of gap degrees (Kuhlmann and Nivre 2006), the number of labels and the
mean arc length (between words; arcs from the artificial root have no length).

Sentences that are not well-formed trees (Nivre 2008, Definition 2) are counted and
described apart; every structural figure is over the well-formed ones.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from barley import tree
from barley.conllu import Sentence

MALFORMED_EXAMPLES = 10  # how many malformed sentences a report describes (all are counted)


@dataclass
class TreebankStats:
    """Counts accumulated one sentence at a time; :meth:`report` gives the figures."""

    sentences: int = 0
    tokens: int = 0
    trees: int = 0  # well-formed sentences
    tree_tokens: int = 0
    nonprojective_arcs: int = 0
    nonprojective_sentences: int = 0
    planes: Counter = field(default_factory=Counter)  # minimal m -> sentences
    ill_nested_sentences: int = 0
    gap_degrees: Counter = field(default_factory=Counter)  # gap degree -> sentences
    labels: Counter = field(default_factory=Counter)
    arcs_between_words: int = 0
    total_arc_length: int = 0
    malformed_sentences: int = 0
    malformed: list = field(default_factory=list)  # the first few: {line, sent_id, reason}

    def add(self, sentence: Sentence) -> None:
        heads = sentence.heads()
        n = len(sentence)
        self.sentences += 1
        self.tokens += n
        self.labels.update(sentence.deprels()[1:])
        reason = tree.check_tree(heads)
        if reason is not None:
            self.malformed_sentences += 1
            if len(self.malformed) < MALFORMED_EXAMPLES:
                self.malformed.append({"line": sentence.line, "sent_id": sentence.sent_id, "reason": reason})
            return
        self.trees += 1
        self.tree_tokens += n
        nonprojective = len(tree.nonprojective_arcs(heads))
        self.nonprojective_arcs += nonprojective
        self.nonprojective_sentences += nonprojective > 0
        # A projective tree is planar (with or without its root arcs), well-nested and
        # of gap degree 0, so only the few non-projective trees need the costlier tests.
        if nonprojective:
            self.planes[tree.planarity(heads)[0]] += 1
            self.ill_nested_sentences += not tree.is_well_nested(heads)
            self.gap_degrees[tree.gap_degree(heads)] += 1
        else:
            self.planes[1] += 1
            self.gap_degrees[0] += 1
        lengths = tree.arc_lengths(heads)[1:][heads[1:] != 0]
        self.arcs_between_words += len(lengths)
        self.total_arc_length += int(lengths.sum())

    def report(self) -> dict:
        """The figures as a JSON-ready dict (percentages over well-formed trees)."""
        def percent(count: int, total: int) -> float:
            return round(100 * count / total, 2) if total else 0.0

        return {
            "sentences": self.sentences,
            "tokens": self.tokens,
            "malformed_sentences": self.malformed_sentences,
            "malformed": self.malformed,
            "nonprojective_arcs": self.nonprojective_arcs,
            "nonprojective_sentences": self.nonprojective_sentences,
            "NPT": percent(self.nonprojective_arcs, self.tree_tokens),
            "NPS": percent(self.nonprojective_sentences, self.trees),
            "non_planar_sentences": sum(count for m, count in self.planes.items() if m > 1),
            "non_2planar_sentences": sum(count for m, count in self.planes.items() if m > 2),
            "non_3planar_sentences": sum(count for m, count in self.planes.items() if m > 3),
            "planarity": {str(m): self.planes[m] for m in sorted(self.planes)},
            "ill_nested_sentences": self.ill_nested_sentences,
            "gap_degrees": {str(g): self.gap_degrees[g] for g in sorted(self.gap_degrees)},
            "max_gap_degree": max(self.gap_degrees, default=0),
            "labels": len(self.labels),
            "mean_arc_length": round(self.total_arc_length / self.arcs_between_words, 3)
            if self.arcs_between_words else 0.0,
        }


def analyze(sentences: Iterable[Sentence], each: Callable[[int], None] | None = None) -> dict:
    """The figures for a stream of sentences; ``each(count)`` is called after every sentence."""
    stats = TreebankStats()
    for sentence in sentences:
        stats.add(sentence)
        if each is not None:
            each(stats.sentences)
    return stats.report()


def format_table(name: str, report: dict) -> str:
    """The report as an aligned two-column table, shares in parentheses as in the papers."""
    trees = report["sentences"] - report["malformed_sentences"]

    def share(count: int) -> str:
        return f"{count} ({100 * count / trees:.2f}%)" if trees else str(count)

    rows = [
        ("sentences", str(report["sentences"])),
        ("words", str(report["tokens"])),
        ("not well-formed trees", str(report["malformed_sentences"])),
        ("non-projective arcs (NPT)", f"{report['nonprojective_arcs']} ({report['NPT']:.2f}%)"),
        ("non-projective sentences (NPS)", f"{report['nonprojective_sentences']} ({report['NPS']:.2f}%)"),
        ("non-planar sentences", share(report["non_planar_sentences"])),
        ("non-2-planar sentences", share(report["non_2planar_sentences"])),
        ("non-3-planar sentences", share(report["non_3planar_sentences"])),
        ("ill-nested sentences", share(report["ill_nested_sentences"])),
        ("gap degree: sentences", ", ".join(f"{g}: {c}" for g, c in report["gap_degrees"].items())),
        ("labels", str(report["labels"])),
        ("mean arc length", f"{report['mean_arc_length']:.3f}"),
    ]
    width = max(len(label) for label, _ in rows)
    lines = [name] + [f"  {label:<{width}}  {value}" for label, value in rows]
    for example in report["malformed"]:
        lines.append(f"  line {example['line']} ({example['sent_id'] or 'no sent_id'}): {example['reason']}")
    return "\n".join(lines)
