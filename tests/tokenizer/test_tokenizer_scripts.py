"""Scripts the scoreboard's treebanks do not have: Greek and Cyrillic (words between spaces, their own
punctuation: the Greek question mark ``;``, guillemets), and Chinese and Japanese, written without
spaces, where every token boundary is inside a run of characters. Both kinds of tokenizer, each trained
on a small treebank of the script written here, must find the held-out text's tokens and sentences and
keep every character of it: a treebank kept aside for checking may be in any of them."""

from __future__ import annotations

import random

import pytest

from barley.conllu import read
from barley.evaluation.conll18 import evaluate_conll18
from barley.tokenizer import Tokenizer, TokenizerOptions, spaces

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

SCRIPTS = {
    # words, sentence ends, a mark glued to the word before it (or None), spaces between tokens
    "greek": (["ο", "η", "άνθρωπος", "γυναίκα", "βλέπει", "διαβάζει", "βιβλίο", "σπίτι", "μεγάλο", "και",
               "στο", "παιδί", "Αθήνα", "γράφει", "γράμμα", "σήμερα"], ["."] * 3 + [";", "!"], ",", True),
    "cyrillic": (["я", "ты", "он", "читает", "книгу", "дом", "большой", "и", "в", "Москве", "пишет", "письмо",
                  "сегодня", "мы", "видим", "город"], ["."] * 3 + ["?", "!"], ",", True),
    "chinese": (["我", "你们", "学生", "老师", "喜欢", "看", "书", "中国", "北京", "今天", "吃", "米饭", "很",
                 "好", "朋友", "电影", "去", "了"], ["。"] * 3 + ["？", "！"], "，", False),
    "japanese": (["私", "は", "学生", "です", "本", "を", "読みます", "東京", "に", "行きます", "猫", "が",
                  "好き", "昨日", "友達", "と", "映画", "見ました"], ["。"] * 4 + ["？"], "、", False),
}


def _treebank(path, script: str, sentences: int, seed: int) -> None:
    words, ends, comma, spaced = SCRIPTS[script]
    rng = random.Random(seed)
    blocks = []
    for number in range(sentences):
        tokens = [rng.choice(words) for _ in range(rng.randint(3, 10))]
        if comma and len(tokens) > 4 and rng.random() < 0.3:
            tokens.insert(rng.randint(2, len(tokens) - 1), comma)
        tokens.append(rng.choice(ends))
        # punctuation is glued to the word before it; without spaces, everything is, the next sentence too
        # (as UD_Chinese-GSD marks it: SpaceAfter=No on every token)
        glued = [not spaced or k + 1 == len(tokens) or tokens[k + 1] in (comma, *ends) for k in range(len(tokens))]
        text = "".join(token + ("" if glue else " ") for token, glue in zip(tokens, glued)).rstrip()
        lines = [f"# sent_id = s{number}", f"# text = {text}"]
        for k, (form, glue) in enumerate(zip(tokens, glued), 1):
            lines.append(f"{k}\t{form}\t{form}\tX\t_\t_\t{0 if k == 1 else 1}\t{'root' if k == 1 else 'dep'}\t_\t"
                         + ("SpaceAfter=No" if glue and (k < len(tokens) or not spaced) else "_"))
        blocks.append("\n".join(lines) + "\n")
    path.write_text("\n".join(blocks) + "\n", encoding="utf-8")


def quiet(_message: str) -> None:
    pass


@pytest.fixture(scope="module", params=sorted(SCRIPTS))
def treebanks(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    _treebank(folder / "train.conllu", request.param, 300, seed=1)
    _treebank(folder / "test.conllu", request.param, 40, seed=2)
    return request.param, folder


@pytest.fixture(scope="module", params=["linear", "neural"])
def trained(request, treebanks):
    script, folder = treebanks
    sentences = read(str(folder / "train.conllu"))
    if request.param == "neural":
        pytest.importorskip("torch")
        from barley.tokenizer.neural_training import train_neural_tokenizer
        from tokenizer_treebank import SMALL_NEURAL

        return script, folder, train_neural_tokenizer(sentences, SMALL_NEURAL, seed=1, log=quiet)
    return script, folder, Tokenizer.train(sentences, TokenizerOptions(bits=16), seed=1, log=quiet)


def test_the_tokens_and_sentences_of_each_script_are_found_and_every_character_kept(trained):
    script, folder, tokenizer = trained
    gold = list(read(str(folder / "test.conllu")))
    # sentences one after the other as in running text: with a space between them, or none in Chinese and Japanese
    text = ("" if not SCRIPTS[script][3] else " ").join(sentence.text for sentence in gold) + "\n"
    tokenized = list(tokenizer.tokenize(text))
    assert spaces.text_of(tokenized) == text  # every character kept, in order
    scores = evaluate_conll18(gold, tokenized).scores
    assert scores["Tokens"].f1 > 97.0, (script, scores["Tokens"].f1)
    assert scores["Sentences"].f1 > 95.0, (script, scores["Sentences"].f1)


def test_text_without_spaces_is_cut_inside_a_run_of_characters(trained):
    script, _, tokenizer = trained
    if SCRIPTS[script][3]:
        pytest.skip("a script with spaces between its words")
    words = SCRIPTS[script][0]
    text = "".join(words[:6]) + SCRIPTS[script][1][0]
    tokens = [token for sentence in tokenizer.tokenize(text) for token in
              (row[1] for row in spaces.token_rows(sentence))]
    assert tokens == [*words[:6], SCRIPTS[script][1][0]]
