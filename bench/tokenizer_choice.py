"""What ``--tokenizer linear,neural`` chooses on a treebank, and what the choice brings on its test set.

For each treebank folder, the tokenizers of the scoreboard's linear and neural cells (``barley scoreboard``:
``DIR/TREEBANK/linear/model.barley``, ``DIR/TREEBANK/neural/model.barley``; ``--model TREEBANK:KIND=PATH``
names another model file) tokenize the dev text (the choice's: :func:`barley.tokenizer.choice.dev_scores`) and
the test text, rebuilt from the treebank as the scoreboard rebuilds it; printed: one JSON line per treebank
with each kind's Tokens, Sentences and Words F1 on both, and the kind the choice keeps. A treebank without dev
is scored on the last tenth of its training file, as the choice does (a model that learnt from it is favoured
there: the line says so).

    python bench/tokenizer_choice.py ../shared/data/ud runs/scoreboard UD_Wolof-WTB UD_Turkish-IMST
    python bench/tokenizer_choice.py ../shared/data/ud runs/scoreboard UD_English-EWT \\
        --model UD_English-EWT:linear=en_ewt_linear --model UD_English-EWT:neural=en_ewt
"""

from __future__ import annotations

import argparse
import json
import os

from barley.conllu import read
from barley.models.catalog import resolve
from barley.pipeline import Pipeline
from barley.tokenizer.choice import best, dev_scores
from barley.tokenizer.segmenter import held_out_end
from barley.treebank_folder import find_test_file, treebank_files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ud", help="the folder of treebank folders")
    parser.add_argument("scoreboard", help="barley scoreboard's output folder")
    parser.add_argument("treebanks", nargs="+")
    parser.add_argument("--model", action="append", default=[], metavar="TREEBANK:KIND=PATH",
                        help="this model's tokenizer as KIND's on TREEBANK (a path or a shipped model's name)")
    args = parser.parse_args()
    chosen = {}
    for given in args.model:
        where, _, path = given.partition("=")
        treebank, _, kind = where.partition(":")
        chosen[treebank, kind] = path
    for treebank in args.treebanks:
        train, dev = treebank_files(os.path.join(args.ud, treebank))
        test = find_test_file(os.path.join(args.ud, treebank))
        if dev:
            held, where = list(read(dev)), "dev"
        else:
            (_, held, _), where = held_out_end(list(read(train)), "the choice"), "the last tenth of train (models trained on it)"
        gold = list(read(test)) if test else []
        line: dict = {"treebank": treebank, "scored on": where}
        for kind in ("linear", "neural"):
            path = chosen.get((treebank, kind), os.path.join(args.scoreboard, treebank, kind, "model.barley"))
            if (treebank, kind) not in chosen and not os.path.exists(path):
                continue
            tokenizer = Pipeline.load(resolve(path))["tokenize"].tokenizer
            line[kind] = {"dev": dev_scores(tokenizer, held), **({"test": dev_scores(tokenizer, gold)} if gold else {})}
        kinds = [kind for kind in ("linear", "neural") if kind in line]
        if kinds:
            line["kept"] = best({kind: line[kind]["dev"] for kind in kinds})
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
