"""The sub-commands of ``barley``, one module each (see :mod:`barley.cli`).

What the commands that write a file share lives here: ``--force`` and the checks made
before any work. An output that is one of the command's own input files is refused
unless ``--force`` is given: writing it would replace the input (a parse written over
its treebank replaces the gold HEAD and DEPREL), as ``>`` in a shell would have emptied
it. Refusing is the safe choice for gold data; ``--force`` says the user means it.
"""

from __future__ import annotations

import argparse


def add_force(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--force", action="store_true",
                        help="write the output even where it is one of the input files (which it then replaces)")
