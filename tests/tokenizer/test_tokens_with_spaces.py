"""Tokens with a space inside (Vietnamese *Hà Nội*, *thành phố*): a tokenizer trained on a treebank
whose tokens hold spaces decides at each single space whether the token goes on; one trained on a
treebank without them never does, as before. Both kinds, on a Vietnamese-like treebank written here."""

from __future__ import annotations

import random

import pytest

from barley.conllu import read
from barley.evaluation.conll18 import evaluate_conll18
from barley.pipeline import Pipeline
from barley.pipeline.tokenize import TokenizeComponent
from barley.tokenizer import Tokenizer, TokenizerOptions, spaces
from barley.tokenizer.treebank_text import spaces_in_tokens

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

# words of two syllables (a token with a space) and of one
TWO = ["Hà Nội", "thành phố", "sinh viên", "học sinh", "bệnh viện", "nhà máy", "công an", "thời tiết"]
ONE = ["tôi", "là", "ở", "và", "có", "đi", "đẹp", "lớn", "một", "người", "nhiều", "rất"]


def _treebank(path, sentences: int, seed: int, two: list[str]) -> None:
    rng = random.Random(seed)
    blocks = []
    for number in range(sentences):
        tokens = [rng.choice(two if two and rng.random() < 0.4 else ONE) for _ in range(rng.randint(3, 10))]
        tokens[0] = tokens[0][0].upper() + tokens[0][1:]
        text = " ".join(tokens) + "."
        lines = [f"# sent_id = s{number}", f"# text = {text}"]
        for k, form in enumerate(tokens + ["."], 1):
            misc = "SpaceAfter=No" if k == len(tokens) else "_"
            lines.append(f"{k}\t{form}\t{form.lower()}\tX\t_\t_\t{0 if k == 1 else 1}\t{'root' if k == 1 else 'dep'}"
                         f"\t_\t{misc}")
        blocks.append("\n".join(lines) + "\n")
    path.write_text("\n".join(blocks) + "\n", encoding="utf-8")


def quiet(_message: str) -> None:
    pass


@pytest.fixture(scope="module")
def treebanks(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spaces")
    _treebank(folder / "train.conllu", 300, seed=1, two=TWO)
    _treebank(folder / "test.conllu", 40, seed=2, two=TWO)
    _treebank(folder / "plain.conllu", 300, seed=3, two=[])
    return folder


@pytest.fixture(scope="module", params=["linear", "neural"])
def trained(request, treebanks):
    if request.param == "neural":
        pytest.importorskip("torch")
        from barley.tokenizer.neural_training import train_neural_tokenizer
        from tokenizer_treebank import SMALL_NEURAL

        return train_neural_tokenizer(read(str(treebanks / "train.conllu")), SMALL_NEURAL, seed=1, log=quiet)
    return Tokenizer.train(read(str(treebanks / "train.conllu")), TokenizerOptions(bits=16), seed=1, log=quiet)


def _tokens(sentences) -> list[list[str]]:
    return [[row[1] for row in spaces.token_rows(sentence)] for sentence in sentences]


def test_the_share_of_tokens_with_a_space_decides(treebanks):
    assert spaces_in_tokens(read(str(treebanks / "train.conllu")))[0]
    assert spaces_in_tokens(read(str(treebanks / "plain.conllu"))) == (False, 0, spaces_in_tokens(
        read(str(treebanks / "plain.conllu")))[2])


def test_tokens_with_a_space_are_built_and_the_text_is_kept(trained, treebanks, tmp_path):
    gold = list(read(str(treebanks / "test.conllu")))
    text = " ".join(sentence.text for sentence in gold) + "\n"
    tokenized = list(trained.tokenize(text))
    found = [token for sentence in _tokens(tokenized) for token in sentence]
    expected = [token for sentence in _tokens(gold) for token in sentence]
    assert trained.spaces_in_tokens
    assert sum(" " in token for token in found) > 0.9 * sum(" " in token for token in expected)
    assert evaluate_conll18(gold, tokenized).scores["Tokens"].f1 > 95.0
    assert spaces.text_of(tokenized) == text  # every character kept
    path = tmp_path / "m.barley"  # the model file keeps it
    Pipeline([TokenizeComponent(trained)], {"pipeline": {"components": ["tokenize"]}}).save(str(path))
    again = Pipeline.load(str(path))["tokenize"].tokenizer
    assert again.spaces_in_tokens and _tokens(again.tokenize(text)) == _tokens(tokenized)


def test_a_treebank_without_such_tokens_keeps_every_space_a_boundary(treebanks):
    plain = Tokenizer.train(read(str(treebanks / "plain.conllu")), TokenizerOptions(bits=16), seed=1, log=quiet)
    assert not plain.spaces_in_tokens and "spaces_in_tokens" not in plain.to_arrays()[0]
    text = "Tôi ở Hà Nội và thành phố rất đẹp.\n"
    assert all(" " not in token for sentence in _tokens(plain.tokenize(text)) for token in sentence)
