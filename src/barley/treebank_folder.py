"""The training and development files of a UD treebank folder (``UD_English-EWT/``).

A UD release names its files ``<code>-ud-train.conllu``, ``<code>-ud-dev.conllu`` and
``<code>-ud-test.conllu``; ``barley train FOLDER`` trains on the first and scores the
second, ``barley scoreboard`` (:mod:`barley.scoreboard`) scores the third. Some treebanks
have no dev file (UD_Latin-Perseus: train and test only), some no training file
(a treebank published for testing only).
"""

from __future__ import annotations

from pathlib import Path

from barley.errors import BarleyError

TRAIN, DEV, TEST = "*-ud-train.conllu", "*-ud-dev.conllu", "*-ud-test.conllu"


def treebank_files(folder: str) -> tuple[str, str | None]:
    """The folder's training file and its dev file (None when it has none); none or several
    training files, or several dev files, are a one-line error."""
    train = _one(folder, TRAIN)
    if train is None:
        raise BarleyError(f"no training file {TRAIN} in this folder", path=folder,
                          fix="give a UD treebank folder, or the training file itself: barley train TRAIN [DEV]")
    return train, _one(folder, DEV)


def find_test_file(folder: str) -> str | None:
    """The folder's test file, or None when it has none; several are a one-line error."""
    return _one(folder, TEST)


def _one(folder: str, pattern: str) -> str | None:
    found = sorted(Path(folder).glob(pattern))
    if len(found) > 1:
        raise BarleyError(f"several files match {pattern} ({', '.join(path.name for path in found)})", path=folder,
                          fix="give the files themselves: barley train TRAIN [DEV]")
    return str(found[0]) if found else None


def count_words(path: str) -> int:
    """The words of a CoNLL-U file (lines whose ID is a whole number), counted without parsing it:
    what a recipe's budget of epochs and the scoreboard's estimate of the time left are reckoned from."""
    words = 0
    with open(path, "rb") as handle:
        for line in handle:
            if line[:1].isdigit() and line.split(b"\t", 1)[0].isdigit():
                words += 1
    return words
