"""The linear tagger behind the joint network's tag heads, column by column, where it tags dev better.

On a small treebank the joint network, which reads the forms alone, can tag worse than barley's
linear tagger with its word-form dictionary and suffix features (UD_Latin-Perseus UPOS 85.17
against 87.67, UD_Turkish-IMST 89.18 against 90.26), while on others it tags better. So the joint
component may train the linear tagger (:class:`barley.pipeline.tagger.Tagger`, its default options)
on the sentences the network trained on, score both on the same dev set (or the part of the training
data held out from the network), and keep, for each of UPOS, XPOS, FEATS and LEMMA, the one that
scores better — a selection on dev, never on test, so that the pipeline's tags and lemmas are at least
the linear ones' on dev by construction. The parser is unchanged: the network parses from the forms.
Columns mixed from the two may form a (UPOS, XPOS, FEATS) combination not seen in training.

The choice and the dev accuracies are in the manifest (``linear_tags``); the tagger's arrays are the
joint component's under ``linear_tags.``, checked as the tagger's own when the model is loaded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice

import numpy as np

from barley.conllu import COLUMNS, Sentence
from barley.evaluation.columns import accuracies
from barley.models import check

TAG_COLUMNS = ("UPOS", "XPOS", "FEATS", "LEMMA")
SCORE_OF = {"UPOS": "UPOS", "XPOS": "XPOS", "FEATS": "UFeats", "LEMMA": "Lemmas"}
"""Each column's accuracy as :func:`barley.evaluation.columns.accuracies` names it."""
PREFIX = "linear_tags."
"""The linear tagger's arrays among the joint component's."""
BATCH_SENTENCES = 256


class LinearTags:
    """A trained linear tagger and the columns it writes over the joint network's."""

    def __init__(self, tagger, columns: Sequence[str], dev: dict):
        self.tagger, self.columns, self.dev = tagger, tuple(columns), dev
        self._indices = [COLUMNS.index(column) for column in self.columns]

    def process(self, sentences: Iterable[Sentence]) -> Iterator[Sentence]:
        """The same sentences, their chosen columns the linear tagger's (it tags copies, in batches)."""
        sentences = iter(sentences)
        while batch := list(islice(sentences, BATCH_SENTENCES)):
            for sentence, tagged in zip(batch, self.tagger.process([s.copy() for s in batch])):
                for word, tagged_word in zip(sentence.words, tagged.words):
                    for index in self._indices:
                        word[index] = tagged_word[index]
            yield from batch

    def to_files(self) -> tuple[dict, dict[str, np.ndarray]]:
        manifest, arrays = self.tagger.to_files()
        return ({"columns": list(self.columns), "dev": self.dev, "tagger": manifest},
                {PREFIX + name: array for name, array in arrays.items()})

    @classmethod
    def from_files(cls, entry: dict, arrays: dict[str, np.ndarray], path: str) -> LinearTags | None:
        """The linear tags of a joint component's manifest entry (None where no column was chosen)."""
        from barley.pipeline.tagger import Tagger

        own = check.part(arrays, PREFIX)
        with check.loading(path, "joint network's linear tags"):
            columns = check.items(entry["columns"], "the linear tags' columns")
            if not set(columns) <= set(TAG_COLUMNS) or len(set(columns)) != len(columns):
                check.fail(f"the linear tags' columns {columns!r} are not some of {', '.join(TAG_COLUMNS)}")
            if not columns and own:
                check.fail("arrays of a linear tagger that writes no column")
        if not columns:
            return None
        return cls(Tagger.from_files(entry["tagger"], own, path), columns, entry["dev"])


def chosen(network, sentences: list[Sentence], dev: list[Sentence] | None, holdout: float, seed: int,
           log: Callable[[str], None]) -> tuple[dict, dict[str, np.ndarray]]:
    """The manifest entry and arrays of the linear tagger trained on the sentences the ``network`` (a
    trained joint component) learnt from, with the columns it tags better on ``dev`` (without one, the
    held-out end of ``sentences``, as the network's training held it out); no column: no arrays."""
    from barley.neural.joint_training import held_out
    from barley.pipeline.components import check_options
    from barley.pipeline.tagger import Tagger

    if dev is None:
        sentences, _, dev = held_out(sentences, list(sentences), holdout, lambda _: None)
    if dev is None:
        log("linear tags: no dev set and nothing held out to choose on: the network's tags")
        return {"columns": [], "dev": {}}, {}
    tagger = Tagger.train(sentences, check_options("tag", {}), seed=seed, log=lambda message: log(f"linear tags: {message}"))
    scores = {}
    for source, annotate in (("joint", network.parser.process), ("linear", tagger.process)):
        copies = [sentence.copy() for sentence in dev]
        list(annotate(copies))
        found = accuracies(dev, copies, TAG_COLUMNS)
        scores[source] = {column: found[SCORE_OF[column]] for column in TAG_COLUMNS}
    columns = [column for column in TAG_COLUMNS if scores["linear"][column] > scores["joint"][column]]
    record = {column: {source: scores[source][column] for source in scores} for column in TAG_COLUMNS}
    log("linear tags: dev " + "; ".join(f"{column} joint {record[column]['joint']:.2f}, linear "
                                        f"{record[column]['linear']:.2f}" for column in TAG_COLUMNS)
        + f": the linear tagger writes {', '.join(columns) if columns else 'no column'}")
    if not columns:
        return {"columns": [], "dev": record}, {}
    return LinearTags(tagger, columns, record).to_files()
