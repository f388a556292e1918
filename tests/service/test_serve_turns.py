"""The service's model lock (:mod:`barley.service.models`): a request parses a turn of words at a
time, the waiting ones served in the order they came, so that a small request sent during a large
one waits a turn, not the whole large one; a text over the character limit is refused before the
tokenizer reads it."""

from __future__ import annotations

import threading
import time

import pytest

from barley.conllu import Sentence
from barley.service.inputs import read_input
from barley.service.limits import Limits, OverLimit
from barley.service.models import TURN_WORDS, FairLock, ServedModel, _turns


def _sentence(words: int) -> Sentence:
    return Sentence([], [[str(k), "w", "_", "_", "_", "_", "_", "_", "_", "_"] for k in range(1, words + 1)])


def test_turns_hold_about_a_turn_of_words_and_every_sentence_once():
    sentences = [_sentence(300) for _ in range(10)] + [_sentence(2 * TURN_WORDS)] + [_sentence(1)]
    turns = list(_turns(sentences))
    assert [s for turn in turns for s in turn] == sentences
    assert all(sum(len(s.words) for s in turn) <= TURN_WORDS or len(turn) == 1 for turn in turns)
    assert [len(turn) for turn in turns] == [3, 3, 3, 1, 1, 1]


def test_the_lock_is_handed_to_the_waiting_in_the_order_they_came():
    lock, order, started = FairLock(), [], []
    lock.__enter__()

    def waiter(name):
        started.append(name)
        with lock:
            order.append(name)

    threads = []
    for name in ("first", "second", "third"):
        threads.append(threading.Thread(target=waiter, args=(name,)))
        threads[-1].start()
        while name not in started:
            time.sleep(0.001)
        time.sleep(0.05)  # now waiting in the lock
    lock.__exit__(None, None, None)
    for thread in threads:
        thread.join(5)
    assert order == ["first", "second", "third"]


class _SlowParser:
    """A pipeline whose parse takes 20 ms a turn and records which request's turn ran."""

    blas_threads = 0

    def __init__(self):
        self.turns: list[str] = []

    def parse(self, sentences, **options):
        time.sleep(0.02)
        self.turns.append(sentences[0].comments[0])
        return iter(sentences)


def test_a_small_request_takes_its_turn_between_the_turns_of_a_large_one(monkeypatch):
    pipeline = _SlowParser()
    model = ServedModel("m", "m.barley", pipeline, {})
    large = [Sentence(["# large"], _sentence(TURN_WORDS).rows) for _ in range(20)]
    small = [Sentence(["# small"], _sentence(5).rows)]
    monkeypatch.setattr("barley.service.models.read_input", lambda data, *rest: data)
    answers = {}
    thread = threading.Thread(target=lambda: answers.setdefault("large", model.parse(large, "conllu", Limits())))
    thread.start()
    while len(pipeline.turns) < 3:
        time.sleep(0.005)
    answers["small"] = model.parse(small, "conllu", Limits())
    thread.join(10)
    assert answers["small"] == small and answers["large"] == large
    at = pipeline.turns.index("# small")
    assert 3 <= at < 6 and pipeline.turns.count("# large") == 20  # after a turn or two of the large, not its 20


def test_a_text_over_the_character_limit_is_refused_before_it_is_tokenized():
    class Untokenized:
        names = ["tokenize", "parse"]

        def __contains__(self, name):
            return name in self.names

        def tokenize(self, *arguments, **keywords):
            raise AssertionError("tokenized")

    limits = Limits(max_text_chars=10)
    with pytest.raises(OverLimit, match="the text has 11 characters besides whitespace, more than the limit of 10"):
        read_input(b"abcde fghij\n\nk", "text", limits, Untokenized())
