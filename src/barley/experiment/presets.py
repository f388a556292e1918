"""The papers' comparisons as ready-made specs, on the shared UD treebanks.

Each preset names its parsers as the paper does and picks UD treebanks by name
from a data folder (``UD_*/xx_yyy-ud-{train,dev,test}.conllu``): the treebanks of
the paper where UD has a descendant of them, and otherwise treebanks with the
property the comparison is about (many non-projective arcs). Treebanks without a
train file are used the CoNLL-X way: train on ``dev``, test on ``test``.

The learner defaults to ``linear`` (liblinear) everywhere so that a comparison
runs on two cores; ``--learner svm-poly2`` gives the papers' kernel SVMs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from barley.errors import BarleyError
from barley.experiment.spec import Spec, from_dict

DEFAULT_DATA = "../shared/data/ud"

# (treebank folder, setting): "train" = train -> test, "train+dev" = train -> test with the dev
# file (if any) for early stopping, "dev" = train on dev -> test, "cv" = k-fold cross-validation
# on the train file
_Treebanks = list[tuple[str, str]]


def _pseudo_projective(encoding: str, label_cap: int | None = None) -> dict:
    options: dict[str, object] = {"name": "pseudo-projective", "encoding": encoding}
    if label_cap is not None:
        options["label_cap"] = label_cap
    return options


def _nivre2008() -> tuple[str, _Treebanks, list[dict], list[str]]:
    head = [_pseudo_projective("head")]  # §6: lifted arcs carry the head's label ("Head", Nivre & Nilsson 2005)
    parsers: list[dict] = [
        {"name": "NP-L", "system": "covington-nonprojective"},
        {"name": "P-L", "system": "covington-projective"},
        {"name": "PP-L", "system": "covington-projective", "transforms": head},
        {"name": "P-E", "system": "arc-eager"},
        {"name": "PP-E", "system": "arc-eager", "transforms": head},
        {"name": "P-S", "system": "arc-standard"},
        {"name": "PP-S", "system": "arc-standard", "transforms": head},
    ]
    treebanks = [("UD_Latin-Perseus", "train"), ("UD_Gothic-PROIEL", "train"), ("UD_Turkish-IMST", "train"),
                 ("UD_Danish-DDT", "dev"), ("UD_Dutch-Alpino", "dev")]
    return ("Nivre (2008), Tables 3 and 4: four deterministic algorithms, projective and pseudo-projective "
            "(Head encoding), accuracy and efficiency.", treebanks, parsers,
            ["PP-*: pseudo-projective parsing with the Head encoding (Nivre 2008 §6.1; Nivre & Nilsson 2005)."])


def _nivre2009():
    parsers = [
        {"name": "Su", "system": "swap-eager"},
        {"name": "Sp", "system": "stack-projective"},
        {"name": "Spp", "system": "stack-projective", "transforms": [_pseudo_projective("head")]},
    ]
    treebanks = [("UD_Czech-FicTree", "dev"), ("UD_Danish-DDT", "dev"), ("UD_Slovenian-SSJ", "dev"),
                 ("UD_Turkish-IMST", "train")]
    return ("Nivre (2009), Table 2 and Figure 5: online reordering with SWAP (Su) against the projective "
            "stack system (Sp) and its pseudo-projective version (Spp); abstract running time.",
            treebanks, parsers,
            ["Su uses the eager SWAP oracle of Nivre (2009); Spp the Head encoding (Nivre & Nilsson 2005).",
             "CoNLL-X Arabic has no UD descendant here; Czech-FicTree stands in for PDT."])


def _planar2010():
    parsers = [
        {"name": "2-planar", "system": "2-planar"},
        {"name": "Malt P", "system": "arc-eager"},
        {"name": "Malt PP", "system": "arc-eager", "transforms": [_pseudo_projective("head")]},
    ]
    treebanks = [("UD_Czech-FicTree", "dev"), ("UD_Danish-DDT", "dev"), ("UD_Dutch-Alpino", "dev"),
                 ("UD_Swedish-Talbanken", "dev"), ("UD_Turkish-IMST", "train")]
    return ("Gómez-Rodríguez & Nivre (2010), Tables 1 and 2: the 2-planar parser against arc-eager, "
            "projective (P) and pseudo-projective (PP), with the treebanks' m-planarity.",
            treebanks, parsers,
            ["German and Portuguese of the paper have no UD descendant here; the other Table 1 languages "
             "available in UD are used."])


def _transforms2006():
    path = _pseudo_projective("path")  # §4.3, footnote 6: the PATH variant
    parsers = [
        {"name": "None", "system": "arc-eager"},
        {"name": "τp", "system": "arc-eager", "transforms": [path]},
        {"name": "τp∘τv∘τc", "system": "arc-eager",
         "transforms": [{"name": "coordination", "scheme": "ud"}, {"name": "verb-group", "scheme": "ud"}, path]},
    ]
    treebanks = [("UD_Czech-FicTree", "dev")]
    return ("Nilsson, Nivre & Hall (2006), Tables 4 and 5: coordination and verb-group transformations "
            "combined with pseudo-projective parsing (Path encoding), arc-eager (Nivre 2003).",
            treebanks, parsers,
            ["UD annotates coordination and verb groups the PS way the paper starts from (first conjunct and "
             "main verb as heads), so the UD scheme of the transforms applies; the transforms run in the "
             "paper's order (coordination, verb group, then projectivization)."])


def _bjorkelund():
    # First order throughout, so that the three ways to non-projective trees (pseudo-projective
    # Eisner, Eisner + approximation, Chu-Liu-Edmonds) differ in nothing but the strategy.
    first_order = {"parser": "graph", "order": 1, "decoder": "eisner"}
    parsers = [{"name": "Baseline", **first_order, "transforms": [_pseudo_projective("baseline")]}]
    for cap in (None, 30):
        for name, encoding in (("Path", "path"), ("Head", "head"), ("HeadPath", "head+path")):
            parsers.append({"name": name + (f"{cap}" if cap else ""), **first_order,
                            "transforms": [_pseudo_projective(encoding, cap)]})
    parsers.append({**first_order, "name": "NPA", "decoder": "eisner+npa"})
    parsers.append({**first_order, "name": "MST", "decoder": "mst"})
    treebanks = [("UD_Latin-Perseus", "train"), ("UD_Gothic-PROIEL", "train"), ("UD_English-EWT", "train")]
    return ("Björkelund & Kuhn (2012), Table 2: pseudo-projective encodings (± label cap 30) against the "
            "non-projective approximation (t = 0.3) with a graph-based parser, and Chu-Liu-Edmonds (MST) as a "
            "further row; first-order (arc-factored) models trained with the averaged perceptron; "
            "train → test.",
            treebanks, parsers,
            ["Path30, Head30, HeadPath30: the encoding with the 30 most frequent new labels only "
             "(Johansson & Nugues 2008). The paper's Czech and German are replaced by the UD treebanks "
             "richest in non-projective arcs; English stays.",
             "The paper used a second-order parser and 10-fold cross-validation on the training set. Here "
             "every model is first order, so that the approximation and MST search the same scores, and "
             "the UD train/test split is used; docs/results/specs/graph-nonprojective.toml is the "
             "second-order comparison, and `folds = 10` in a spec gives the paper's cross-validation."])


def _bjorkelund_neural():
    """Björkelund & Kuhn's comparison with the biaffine scorer in place of the perceptron: the same
    parsers (encodings, approximation, MST), the same decoders and transforms, modern scores."""
    _, treebanks, parsers, notes = _bjorkelund()
    biaffine = [{**{key: value for key, value in parser.items() if key not in ("parser", "order")},
                 "parser": "biaffine"} for parser in parsers]
    treebanks = [(folder, "train+dev") for folder, _ in treebanks] + [("UD_Turkish-IMST", "train+dev")]
    return ("Björkelund & Kuhn (2012), Table 2, with the biaffine scorer (Dozat & Manning 2017; BiLSTM encoder, "
            "`--parser biaffine`) instead of the perceptron: pseudo-projective encodings (± label cap 30) with "
            "Eisner against Eisner + the non-projective approximation (t = 0.3), and Chu-Liu-Edmonds (MST); "
            "train → test, early stopping on the dev set where the treebank has one.",
            treebanks, biaffine,
            notes[:1] + ["The scores of a biaffine model are first order, so Eisner, the approximation and MST "
                         "search the same kind of scores; every parser trains its own model (with its own "
                         "early stopping). Turkish-IMST is added as the fourth treebank of issue 13.",
                         "A treebank without a dev set (Latin-Perseus) trains the default number of epochs "
                         "(--epochs to change it) and keeps the last."])


def _oracles2012():
    systems = [("E", "arc-eager"), ("H", "arc-hybrid"), ("S", "arc-standard"), ("NP-L", "covington-nonprojective"),
               ("Su", "swap-eager")]
    parsers = [{"name": f"{short} {oracle}", "system": system, "learner": "perceptron", "oracle": oracle}
               for short, system in systems for oracle in ("static", "dynamic")]
    parsers += [{"name": f"E+rich {oracle}", "system": "arc-eager", "learner": "perceptron", "oracle": oracle,
                 "features": "rich"} for oracle in ("static", "dynamic")]
    treebanks = [("UD_English-EWT", "train"), ("UD_Gothic-PROIEL", "train"), ("UD_Latin-Perseus", "train")]
    return ("Goldberg & Nivre (2012): the averaged perceptron trained on the static oracle's transitions "
            "against training by exploration with the dynamic oracle (barley's defaults: from the first epoch the "
            "parser follows every costly prediction, k = 0, p = 1, where the costs are exact; for Su, after 2 "
            "epochs with p = 0.9), for every system with a dynamic oracle; train → test.",
            treebanks, parsers,
            ["Dynamic oracles: arc-eager and arc-hybrid (Goldberg & Nivre 2012, 2013), arc-standard (Goldberg, "
             "Sartorio & Satta 2014), Covington non-projective (Gómez-Rodríguez & Fernández-González 2015), "
             "all exact; Su, swap-eager, with the static–dynamic oracle of de Lhoneux, Stymne & Nivre (2017), "
             "adapted (docs/oracles.md).",
             "E+rich: arc-eager with its rich features (`--features rich`, after Zhang & Nivre 2011), "
             "the others with their system's default features.",
             "The projective systems learn the nearest projective tree of a non-projective one, with both "
             "oracles; the perceptron's epochs are the same for both oracles (5 unless --epochs)."])


PRESETS = {"nivre2008": _nivre2008, "nivre2009": _nivre2009, "planar2010": _planar2010,
           "transforms2006": _transforms2006, "bjorkelund": _bjorkelund, "bjorkelund-neural": _bjorkelund_neural,
           "oracles2012": _oracles2012}


def treebank_files(data: Path, folder: str, setting: str) -> dict | None:
    """The spec table of one UD treebank under ``data`` for a setting, or None if it is not there."""
    directory = data / folder
    splits = {split: next(iter(sorted(directory.glob(f"*-ud-{split}.conllu"))), None)
              for split in ("train", "dev", "test")} if directory.is_dir() else {}
    if setting == "cv":
        return {"name": folder, "data": str(splits["train"]), "folds": 10} if splits.get("train") else None
    source = splits.get("train" if setting == "train+dev" else setting)
    if source is None or splits.get("test") is None:
        return None
    name = f"{folder} (dev→test)" if setting == "dev" else folder
    entry = {"name": name, "train": str(source), "test": str(splits["test"])}
    if setting == "train+dev" and splits.get("dev"):
        entry["dev"] = str(splits["dev"])
    return entry


def preset(name: str, data: str | Path = DEFAULT_DATA) -> Spec:
    """The spec of a paper's comparison on the treebanks found under ``data``."""
    if name not in PRESETS:
        raise BarleyError(f"unknown preset {name!r}", fix="choose one of: " + ", ".join(PRESETS))
    description, wanted, parsers, notes = PRESETS[name]()
    data = Path(data).resolve()
    treebanks = []
    for folder, setting in wanted:
        entry = treebank_files(data, folder, setting)
        if entry is None:
            print(f"barley experiment: {folder} is not under {data}: left out", file=sys.stderr)
        else:
            treebanks.append(entry)
    if not treebanks:
        raise BarleyError(f"none of the treebanks of preset {name!r} is under {data}",
                          fix="give the folder of the UD treebanks with --data")
    return from_dict({"name": name, "description": description, "treebanks": treebanks, "parsers": parsers,
                      "notes": notes}, base=data, source=f"preset {name}")
