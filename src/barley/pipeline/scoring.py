"""A pipeline's scores on gold sentences: each column's accuracy with gold tokenization
(:meth:`barley.pipeline.Pipeline.evaluate`), and the CoNLL 2018 shared task's F1 scores from raw text
(:meth:`~barley.pipeline.Pipeline.evaluate_text`)."""

from __future__ import annotations

import time
from collections.abc import Iterable

from barley.conllu import COLUMNS, Sentence, read
from barley.evaluation.columns import SCORES, accuracies

__all__ = ["SCORES", "accuracies", "evaluate", "evaluate_text"]


def evaluate(pipeline, data: str | Iterable[Sentence]) -> dict:
    """Accuracy of each predicted column on gold sentences (gold tokenization): the columns
    the components write are emptied first, so every tag is predicted. Scores in percent
    over every word (punctuation included), named as in the CoNLL 2018 shared task."""
    gold = list(read(data) if isinstance(data, str) else data)
    blank = [c for c in pipeline.components if c.consumes == "sentences" and c.keeps_given]
    from barley.enhanced.enhancer import without_graphs

    copies = without_graphs(gold)
    for sentence in copies:
        for component in blank:
            for column in component.writes:
                index = COLUMNS.index(column)
                for word in sentence.words:
                    word[index] = "_"
    started = time.perf_counter()
    predicted = list(pipeline.parse(copies, retag=True))
    seconds = time.perf_counter() - started
    written = {column for c in pipeline.components if c.consumes == "sentences" for column in c.writes}
    scores = accuracies(gold, predicted, written)
    scores["words_per_second"] = round(scores["words"] / max(seconds, 1e-9))
    return scores

def evaluate_text(pipeline, data: str | Iterable[Sentence]) -> dict:
    """CoNLL 2018 F1 scores (Tokens, Sentences, Words, UPOS, ..., LAS, MLAS, BLEX) of the
    pipeline from raw text: the gold sentences' text (rebuilt from ``# text``, paragraphs as
    the treebank marks them, separated by blank lines) is tokenized and analysed, and the
    output is aligned with the gold on its characters (:mod:`barley.evaluation.conll18`)."""
    from barley.evaluation.conll18 import ENHANCED_METRICS, evaluate_conll18
    from barley.tokenizer.treebank_text import raw_text

    gold = list(read(data) if isinstance(data, str) else data)
    text = raw_text(gold)
    started = time.perf_counter()
    predicted = list(pipeline.parse(text))
    seconds = time.perf_counter() - started
    evaluation = evaluate_conll18(gold, predicted)
    scores = {metric: None if score.f1 is None else round(score.f1, 2) for metric, score in evaluation.scores.items()
              if metric not in ENHANCED_METRICS}  # parse() writes no enhanced graph: its ELAS would be 0
    words = sum(len(s) for s in predicted)
    return {**scores, "words": words, "words_per_second": round(words / max(seconds, 1e-9))}
