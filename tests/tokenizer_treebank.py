"""A small treebank for the tokenizer's tests, written by them: sentences with `# text`, punctuation glued to
words (SpaceAfter=No), multiword tokens (Spanish-like "del" → "de el", English-like "'s" clitics), documents and
paragraphs; and a neural tokenizer small enough to train on it in seconds."""

from __future__ import annotations

import random

from barley.tokenizer.neural import NeuralTokenizerOptions

WORDS = ["casa", "perro", "gato", "rey", "libro", "mesa", "vio", "tiene", "come", "lee", "grande", "rojo",
         "la", "el", "un", "una", "Juan", "Maria", "Pedro", "Ana", "y", "con", "sin"]
NAMES = ["Juan", "Maria", "Pedro", "Ana", "Luis", "Rosa"]
MULTIWORD = {"del": ["de", "el"], "al": ["a", "el"]}


def token_lines(tokens: list[tuple[str, bool, list[str] | None]]) -> list[str]:
    lines, word = [], 1
    for form, space_after, words in tokens:
        misc = "_" if space_after else "SpaceAfter=No"
        if words:
            lines.append(f"{word}-{word + len(words) - 1}\t{form}\t_\t_\t_\t_\t_\t_\t_\t{misc}")
            for part in words:
                lines.append(f"{word}\t{part}\t{part}\tX\t_\t_\t{0 if word == 1 else 1}\t"
                             f"{'root' if word == 1 else 'dep'}\t_\t_")
                word += 1
        else:
            lines.append(f"{word}\t{form}\t{form}\tX\t_\t_\t{0 if word == 1 else 1}\t"
                         f"{'root' if word == 1 else 'dep'}\t_\t{misc}")
            word += 1
    return lines


def write_treebank(path, sentences: int, seed: int) -> None:
    rng = random.Random(seed)
    blocks = []
    for number in range(sentences):
        tokens = []
        for position in range(rng.randint(3, 12)):
            roll = rng.random()
            if roll < 0.08:
                form = rng.choice(sorted(MULTIWORD))
                tokens.append((form, True, MULTIWORD[form]))
            elif roll < 0.15:
                name = rng.choice(NAMES)
                tokens.append((name + "'s", True, [name, "'s"]))
            else:
                word = rng.choice(WORDS)
                tokens.append((word.capitalize() if position == 0 else word, True, None))
            if rng.random() < 0.1:  # a comma glued to the word before it
                form, _, words = tokens[-1]
                tokens[-1] = (form, False, words)
                tokens.append((",", True, None))
        form, _, words = tokens[-1]
        tokens[-1] = (form, False, words)
        tokens.append((rng.choice([".", ".", ".", "?", "!"]), True, None))
        text = "".join(form + (" " if space else "") for form, space, _ in tokens).rstrip()
        comments = []
        if number % 20 == 0:
            comments.append(f"# newdoc id = doc{number // 20}")
        if number % 5 == 0:
            comments.append(f"# newpar id = p{number // 5}")
        comments += [f"# sent_id = s{number}", f"# text = {text}"]
        blocks.append("\n".join(comments + token_lines(tokens)) + "\n")
    path.write_text("\n".join(blocks) + "\n", encoding="utf-8")


def quiet(_message: str) -> None:
    pass


SMALL_NEURAL = NeuralTokenizerOptions(char_dim=16, class_dim=4, hidden=24, window=64, context=8, epochs=12,
                                      patience=12, batch_windows=8, learning_rate=0.01)
"""A neural tokenizer small enough to train in seconds on the test treebank."""
