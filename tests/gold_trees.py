"""read_gold, a treebank's gold trees for the oracles (and ROOT_LABEL): test_systems_theorems, test_dynamic_oracles."""

from __future__ import annotations

from barley import conllu

ROOT_LABEL = 0  # the label finalize gives; gold root words carry it, as UD's "root"


def read_gold(path) -> list[tuple[str, list[int], list[int]]]:
    """(sent_id, heads, labels) of every sentence; labels numbered per file, "root" = ROOT_LABEL."""
    ids = {"root": ROOT_LABEL}
    gold = []
    for sentence in conllu.read(path):
        labels = [-1] + [ids.setdefault(deprel, len(ids)) for deprel in sentence.deprels()[1:]]
        gold.append((sentence.sent_id or f"line {sentence.line}", sentence.heads().tolist(), labels))
    return gold
