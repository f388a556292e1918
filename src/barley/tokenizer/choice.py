"""The tokenizer chosen on dev (``barley train --tokenizer linear,neural``): each kind trained, each
tokenizing the dev text (rebuilt as :func:`~barley.tokenizer.treebank_text.paragraphs` rebuilds a
treebank's raw text) and scored by the CoNLL 2018 shared task's Tokens, Sentences and Words F1
(Zeman et al. 2018); the kind with the highest sum is kept, the other dropped.

Why: neither kind wins everywhere (the table of docs/tokenizer.md, measured by bench/tokenizer_choice.py):
on UD_English-EWT's test text the neural tokenizer finds sentences better (Sentences F1 89.42 against the
linear one's 87.13), on UD_Vietnamese-VTB, whose words hold spaces, the linear one finds words better (Words
F1 88.44 against 84.98). Which one holds for a treebank is a question for its dev set, never its test set.
The neural kind chooses its epoch and threshold on the same dev sentences, so its dev score leans its way a
little; where the kinds are that close, dev and test disagree (Wolof, Turkish in that table).

Without dev sentences the last tenth of the training sentences is held out for the choice: every kind
is trained on the rest, a kind that reads dev sentences (the neural one's early stopping) with the held-out
tenth as its dev — what it does by itself without a dev set — and the chosen kind, if it does not read
them, is trained again on every sentence, so that the choice costs it no data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from barley.conllu import Sentence
from barley.evaluation.conll18 import evaluate_conll18
from barley.tokenizer.segmenter import Segmenter, held_out_end
from barley.tokenizer.treebank_text import raw_text

MEASURES = ("Tokens", "Sentences", "Words")
"""What the choice adds up: the CoNLL 2018 F1 of each on the dev text."""

Train = Callable[[list[Sentence], list[Sentence] | None], Segmenter]
"""A kind's training: ``train(sentences, dev)`` → its tokenizer (``dev`` None: as the kind does without)."""


@dataclass(frozen=True)
class Candidate:
    """A kind of tokenizer in the choice: its training, and whether it reads dev sentences (the neural kind's
    early stopping; :attr:`barley.pipeline.tokenize.TokenizerKind.reads_dev`)."""

    train: Train
    reads_dev: bool


def dev_scores(tokenizer: Segmenter, dev: Sequence[Sentence]) -> dict[str, float]:
    """The Tokens, Sentences and Words F1 of ``tokenizer`` on the raw text of ``dev``."""
    text = raw_text(dev)
    scores = evaluate_conll18(list(dev), list(tokenizer.tokenize(text))).scores
    return {name: round(float(scores[name].f1 or 0.0), 2) for name in MEASURES}


def best(scores: Mapping[str, Mapping[str, float]]) -> str:
    """The kind whose :data:`MEASURES` add up highest in ``scores`` (kind → measure → F1); a tie: the first."""
    return max(scores, key=lambda kind: sum(scores[kind][measure] for measure in MEASURES))


def choose(kinds: Mapping[str, Candidate], sentences: list[Sentence], dev: list[Sentence] | None,
           log: Callable[[str], None]) -> Segmenter:
    """Train every kind of ``kinds`` (name → :class:`Candidate`), score each on ``dev`` (or on the held-out end
    of ``sentences``, see the module docstring) and return the best; its ``training`` record gets
    ``chosen_on_dev``: every kind's scores and where they come from."""
    if dev:
        train, scored_on, source = sentences, dev, f"{len(dev)} dev sentences"
    else:
        train, scored_on, source = held_out_end(sentences, "choosing the tokenizer")
    trained, scores = {}, {}
    for name, candidate in kinds.items():
        log(f"tokenizer choice: training the {name} tokenizer")
        trained[name] = candidate.train(train, scored_on if (dev or candidate.reads_dev) else None)
        scores[name] = dev_scores(trained[name], scored_on)
        log(f"tokenizer choice: the {name} tokenizer on {source}: "
            + ", ".join(f"{measure} F1 {value:.2f}" for measure, value in scores[name].items()))
    kept = best(scores)
    log(f"tokenizer choice: keeping the {kept} tokenizer (the highest {' + '.join(MEASURES)} F1 on {source})")
    chosen = trained[kept]
    if not dev and not kinds[kept].reads_dev:
        log(f"tokenizer choice: training the {kept} tokenizer again on every training sentence")
        chosen = kinds[kept].train(sentences, None)
    # a kind stopped by Ctrl-C or SIGTERM was compared as it then was: the choice is not the finished one
    stopped = [name for name, tokenizer in trained.items() if tokenizer.training.get("interrupted")]
    chosen.training = {**chosen.training, "chosen_on_dev": {"kinds": list(kinds), "dev": source,
                                                            "measures": list(MEASURES), "scores": scores,
                                                            **({"interrupted": True, "stopped": stopped} if stopped
                                                               else {})}}
    return chosen
