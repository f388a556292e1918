"""The tokenizer chosen on dev (``barley train --tokenizer linear,neural``): each kind trained, each
tokenizing the dev text (rebuilt as :func:`~barley.tokenizer.treebank_text.paragraphs` rebuilds a
treebank's raw text) and scored by the CoNLL 2018 shared task's Tokens, Sentences and Words F1
(Zeman et al. 2018); the kind with the highest sum is kept, the other dropped.

Why: neither kind wins everywhere. On the scoreboard's test sets from raw text (docs/results/languages.md)
the linear tokenizer finds sentences better on UD_Turkish-IMST (Sentences F1 97.33 against the neural one's
96.04) and UD_Latin-Perseus (99.68 against 98.20), the neural one on UD_Wolof-WTB (93.74 against 92.96) and
EWT. Which one holds for a treebank is a question for its dev set, never its test set.

Without dev sentences the last tenth of the training sentences is held out for the choice: every kind
is trained on the rest, a kind that reads dev sentences (the neural one's early stopping) with the held-out
tenth as its dev — what it does by itself without a dev set — and the chosen kind, if it does not read
them, is trained again on every sentence, so that the choice costs it no data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from barley.conllu import Sentence
from barley.errors import BarleyError
from barley.evaluation.conll18 import evaluate_conll18
from barley.tokenizer.segmenter import Segmenter
from barley.tokenizer.treebank_text import paragraphs

MEASURES = ("Tokens", "Sentences", "Words")
"""What the choice adds up: the CoNLL 2018 F1 of each on the dev text."""

HELD_OUT = 0.1  # the share of the training sentences held out for the choice when there is no dev set

Train = Callable[[list[Sentence], list[Sentence] | None], Segmenter]
"""A kind's training: ``train(sentences, dev)`` → its tokenizer (``dev`` None: as the kind does without)."""


def dev_scores(tokenizer: Segmenter, dev: Sequence[Sentence]) -> dict[str, float]:
    """The Tokens, Sentences and Words F1 of ``tokenizer`` on the raw text of ``dev``."""
    text = "\n\n".join(paragraph.text for paragraph in paragraphs(dev)) + "\n"
    scores = evaluate_conll18(list(dev), list(tokenizer.tokenize(text))).scores
    return {name: round(float(scores[name].f1 or 0.0), 2) for name in MEASURES}


def choose(kinds: Mapping[str, Train], reads_dev: Mapping[str, bool], sentences: list[Sentence],
           dev: list[Sentence] | None, log: Callable[[str], None]) -> Segmenter:
    """Train every kind of ``kinds`` (name → its training), score each on ``dev`` (or on the held-out end of
    ``sentences``, see the module docstring; ``reads_dev``: whether a kind reads dev sentences) and return
    the best; its ``training`` record gets ``chosen_on_dev``: every kind's scores and where they come from."""
    if dev:
        train, scored_on, source = sentences, dev, f"{len(dev)} dev sentences"
    else:
        held = int(len(sentences) * HELD_OUT)
        if held < 1 or held == len(sentences):
            raise BarleyError(f"choosing the tokenizer needs dev sentences or at least {round(1 / HELD_OUT)} training "
                              f"sentences (a tenth held out to score the kinds on), not {len(sentences)}",
                              fix="give --dev, or name one --tokenizer")
        train, scored_on = sentences[:-held], sentences[-held:]
        source = f"the last {held} training sentences (held out: no dev set)"
    trained, scores = {}, {}
    for name, training in kinds.items():
        log(f"tokenizer choice: training the {name} tokenizer")
        trained[name] = training(train, scored_on if (dev or reads_dev[name]) else None)
        scores[name] = dev_scores(trained[name], scored_on)
        log(f"tokenizer choice: the {name} tokenizer on {source}: "
            + ", ".join(f"{measure} F1 {value:.2f}" for measure, value in scores[name].items()))
    best = max(scores, key=lambda name: sum(scores[name].values()))  # a tie: the first named
    log(f"tokenizer choice: keeping the {best} tokenizer (the highest {' + '.join(MEASURES)} F1 on {source})")
    chosen = trained[best]
    if not dev and not reads_dev[best]:
        log(f"tokenizer choice: training the {best} tokenizer again on every training sentence")
        chosen = kinds[best](sentences, None)
    chosen.training = {**chosen.training, "chosen_on_dev": {"kinds": list(kinds), "dev": source,
                                                            "measures": list(MEASURES), "scores": scores}}
    return chosen
