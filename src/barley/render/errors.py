"""A page of the sentences a parser got most wrong (``barley evaluate --show-errors N``).

Sentences are ranked by their LAS errors among the scored words (as
:func:`barley.evaluation.attachment.evaluate` scored them, punctuation setting included), then
by the share of their words that are wrong; each is drawn as the gold tree above
the system tree with its wrong heads and labels marked.
"""

from __future__ import annotations

import numpy as np

from barley import render
from barley.evaluation.attachment import Evaluation, Source, aligned_pairs
from barley.render import html, svg


def _counts(evaluation: Evaluation) -> tuple[np.ndarray, np.ndarray]:
    """Per sentence: its words with a LAS error, and its words."""
    errors = np.bincount(evaluation.sentence_of_word[~evaluation.correct], minlength=evaluation.sentences)
    return errors, np.bincount(evaluation.sentence_of_word, minlength=evaluation.sentences)


def worst(evaluation: Evaluation, count: int) -> list[int]:
    """Indices of the ``count`` sentences with the most LAS errors (file order among equals); none without errors."""
    errors, words = _counts(evaluation)
    share = errors / np.maximum(words, 1)
    order = sorted((k for k in range(evaluation.sentences) if errors[k]), key=lambda k: (-errors[k], -share[k], k))
    return order[:count]


def page(gold: Source, system: Source, evaluation: Evaluation, count: int, gold_name: str, system_name: str) -> str:
    """The HTML page of the ``count`` worst sentences of ``system`` against ``gold``."""
    ranked = worst(evaluation, count)
    rank = {index: position for position, index in enumerate(ranked)}
    errors, words = _counts(evaluation)
    figures: list[html.Figure | None] = [None] * len(ranked)
    for index, (gold_sentence, system_sentence) in enumerate(aligned_pairs(gold, system)):
        if index in rank:
            title = render.title_of(gold_sentence, f"sentence {index + 1}")
            figures[rank[index]] = html.Figure(
                f"{rank[index] + 1}. {title}",
                [("gold", render.from_sentence(gold_sentence, title="")),
                 ("system", render.compare(gold_sentence, system_sentence, title=""))],
                conllu=system_sentence.to_text(),
                notes=[f"sentence {index + 1} at {gold_sentence.source}:{gold_sentence.line}: "
                       f"{errors[index]} of {words[index]} scored words wrong (head or DEPREL)"])
    las = evaluation.as_dict()["LAS"]
    intro = (f"<p>{len(ranked)} sentences with the most LAS errors of {evaluation.sentences}; LAS "
             f"{'-' if las is None else f'{las:.2f}'}; punctuation {evaluation.punctuation}.</p>")
    calibration = evaluation.scores.get("calibration")
    if calibration is not None:  # the system file carries HeadProb (barley parse --confidence)
        intro += (f"<p>Head confidence over {calibration['words']} words (words shaded red the less sure their "
                  f"head is):</p>" + svg.reliability(calibration["bins"], calibration["ECE"], calibration["AUROC"]))
    return html.page(f"Worst sentences of {system_name} against {gold_name}",
                     [figure for figure in figures if figure is not None], intro=intro, legend=True)
