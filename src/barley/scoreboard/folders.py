"""The treebanks of a folder of UD treebank folders: those with a training and a test file join the scoreboard.

Each folder under ``UD_DIR`` is one treebank, named by the folder (``UD_English-EWT``), its files
found as ``barley train FOLDER`` finds them (:mod:`barley.treebank_folder`); the dev file is
optional (the recipes then hold out the end of the training file). A folder without a training
or a test file is left out and said, never silently dropped; so a treebank copied in later joins
without a change to the code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from barley.errors import BarleyError
from barley.treebank_folder import TEST, TRAIN, find_test_file, treebank_files


@dataclass(frozen=True)
class Treebank:
    name: str
    """The folder's name, as UD names it (``UD_English-EWT``): what the peers' figures are filed under."""
    folder: str
    train: str
    dev: str | None
    test: str


@dataclass
class Found:
    treebanks: list[Treebank]
    left_out: list[tuple[str, str]] = field(default_factory=list)
    """(folder name, why) of every folder that is not in the scoreboard."""


def discover(ud_dir: str) -> Found:
    """The treebank folders of ``ud_dir`` with train and test files (sorted by name), and the folders left out.
    Paths are absolute, so that workers started elsewhere (a Dask cluster) find them."""
    if not os.path.exists(ud_dir):
        raise BarleyError("no such folder", path=ud_dir,
                          fix="give the folder that holds the UD treebank folders, e.g. ../shared/data/ud")
    if not os.path.isdir(ud_dir):
        raise BarleyError("this is a file, not a folder of treebanks", path=ud_dir,
                          fix="give the folder that holds the UD treebank folders, e.g. ../shared/data/ud")
    if any(Path(ud_dir).glob(TRAIN)):
        parent = os.path.dirname(os.path.abspath(ud_dir))
        raise BarleyError("this is one treebank's folder; the scoreboard takes the folder of treebank folders",
                          path=ud_dir, fix=f"give {parent} --treebank {os.path.basename(os.path.abspath(ud_dir))}")
    found = Found([])
    for folder in sorted(path for path in Path(ud_dir).iterdir() if path.is_dir()):
        try:
            train, dev = treebank_files(str(folder))
        except BarleyError as error:
            found.left_out.append((folder.name, error.what))
            continue
        try:
            test = find_test_file(str(folder))
        except BarleyError as error:
            found.left_out.append((folder.name, error.what))
            continue
        if test is None:
            found.left_out.append((folder.name, f"no test file {TEST} in this folder"))
            continue
        found.treebanks.append(Treebank(folder.name, str(folder.resolve()), str(Path(train).resolve()),
                                        None if dev is None else str(Path(dev).resolve()), str(Path(test).resolve())))
    if not found.treebanks:
        raise BarleyError(f"no treebank folder with a training file ({TRAIN}) and a test file ({TEST}) in this "
                          "folder", path=ud_dir, fix="give the folder that holds the UD treebank folders "
                                                    "(UD_English-EWT/ with en_ewt-ud-train.conllu and "
                                                    "en_ewt-ud-test.conllu, ...)")
    return found


def select(found: Found, names: list[str] | None) -> list[Treebank]:
    """The treebanks named (every one when ``names`` is empty), in the folder's order; an unknown name is
    a one-line error that lists the known ones."""
    if not names:
        return found.treebanks
    known = {treebank.name: treebank for treebank in found.treebanks}
    for name in names:
        if name not in known:
            why = dict(found.left_out).get(name)
            raise BarleyError(f"--treebank {name}: " + (f"left out ({why})" if why else "no such treebank folder"),
                              fix="choose from " + ", ".join(known))
    return [treebank for treebank in found.treebanks if treebank.name in names]
