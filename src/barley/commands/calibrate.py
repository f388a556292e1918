"""``barley calibrate``: fit the temperature of a model's confidence on held-out gold data.

The model parses the gold sentences as ``barley parse`` would (the tags in the file kept,
or predicted again by the model's tagger with ``--retag``: calibrate the way you will
parse) with confidence on, keeping each batch's evidence; the temperature that maximises
the likelihood of the words' head correctness
(:func:`barley.confidence.fit_temperature`), then a head model that predicts from them and the
tree around each word whether its head is right (:mod:`barley.head_model`, logistic
regression), then a monotone map of its probabilities (:func:`barley.confidence.fit_head_map`,
isotonic regression; the model and the map left out with ``--temperature-only``), are stored
in the parser's manifest (``confidence``), where every later ``barley parse --confidence``
reads them. The trees do not change: only the probabilities do.
"""

from __future__ import annotations

import sys

import numpy as np

from barley import head_model
from barley.atomic import check_output
from barley.commands import add_force
from barley.confidence import Confidence, calibration, fit_head_map, fit_temperature
from barley.conllu import read
from barley.enhanced.enhancer import without_graphs
from barley.errors import BarleyError, InputError
from barley.models import archive
from barley.pipeline import Pipeline

MIN_MAP_WORDS = 5_000
"""The fewest held-out words a head model and map are fitted on. Fitted on fewer a map learns the sample's noise:
on UD_Latin-Perseus, fitted on 1,786 held-out words, it raised the test ECE of all three parsers
tried (4.79 → 5.56, 15.90 → 18.02, 12.51 → 17.33 points), where on UD_Turkish-IMST dev (10,000
words) it lowered it (5.98 → 1.45, 6.97 → 3.32, 6.27 → 1.88) and on UD_English-EWT dev (25,000)
too (arc-hybrid 5.40 → 0.50)."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="fit the temperature of a model's head and label probabilities on dev data",
        description="Parse gold sentences (gold tokenization) with the model as barley parse would, and store in "
                    "the model the temperature that makes its head probabilities (barley parse --confidence) best "
                    "match which heads are right: fitted on the words' head likelihood. The trees do not change.")
    parser.add_argument("dev", metavar="DEV", help="gold CoNLL-U sentences the model was not trained on")
    parser.add_argument("--model", "-m", required=True, metavar="MODEL", help="the model file")
    parser.add_argument("--output", "-o", metavar="OUT", help="where the calibrated model goes (default: MODEL, "
                                                              "replaced atomically)")
    parser.add_argument("--retag", action="store_true",
                        help="with a model that has a tagger: predict the tags again, as barley parse --retag does "
                             "(by default the file's tags are kept); calibrate the way the model will parse")
    parser.add_argument("--temperature-only", action="store_true",
                        help="fit the temperature alone, without the head model and the monotone map of head "
                             "probabilities after it")
    parser.add_argument("--min-map-words", type=int, default=MIN_MAP_WORDS, metavar="N",
                        help=f"fit the head model and map only on at least N words (default {MIN_MAP_WORDS}: fitted on "
                             f"fewer, they learn the sample's noise)")
    parser.add_argument("--quiet", "-q", action="store_true", help="no summary on stderr")
    add_force(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    output = args.output or args.model
    check_output(output, [args.dev], force=args.force)
    manifest, arrays = archive.read(args.model)
    pipeline = Pipeline.from_model(manifest, arrays, args.model)
    if args.retag and "tag" not in pipeline.names:
        raise BarleyError(f"--retag: the model {args.model} has no tagger", fix="leave --retag out")
    found = calibrate(pipeline, list(read(args.dev)), args.dev, args.retag, not args.temperature_only,
                      args.min_map_words)
    pipeline.calibrated(found)
    # a parser model file stays one (a pipeline of one parser, as the loader read it)
    (pipeline if "pipeline" in manifest else pipeline.components[0].parser).save(output)
    if not args.quiet:
        print(f"barley calibrate: temperature {found['temperature']:.4f} fitted on {found['words']} words of "
              f"{args.dev} (head negative log-likelihood {found['nll_before']:.4f} at temperature 1, "
              f"{found['nll']:.4f} after); ECE {100 * found['ece_before']:.2f} → {100 * found['ece']:.2f} points"
              + (f", {100 * found['ece_mapped']:.2f} through the head model and a head map of "
                 f"{len(found['head_map']['confidence'])} knots (on the words they were fitted on); AUROC of head "
                 f"errors {found['auroc']} → {found['auroc_modeled']}" if "head_map" in found else "")
              + (f"; no head model or map ({found['head_map_left_out']})" if "head_map_left_out" in found else "")
              + f"; written to {output}", file=sys.stderr)
    return 0


def calibrate(pipeline: Pipeline, gold: list, source: str, retag: bool = False, head_map: bool = True,
              min_map_words: int = MIN_MAP_WORDS) -> dict:
    """The temperature of ``pipeline``'s parser fitted on ``gold`` sentences (parsed with their tags,
    or tagged again with ``retag``), with ``head_map`` the head model and the map of its probabilities
    after it (when they have at least ``min_map_words`` words), and what they changed."""
    if not gold:
        raise InputError("no sentence to calibrate on", path=source)
    copies = without_graphs(gold)
    recorded: list = []
    pipeline.with_confidence(Confidence(recorded=recorded))
    list(pipeline.parse(copies, retag=retag))
    gold_of = {id(copy): original for copy, original in zip(copies, gold)}
    correct = np.concatenate([sentence.heads()[1:] == gold_of[id(sentence)].heads()[1:]
                              for batch, _ in recorded for sentence in batch])

    def probabilities(temperature: float) -> tuple[np.ndarray, np.ndarray]:
        """Every held-out word's HeadProb and DeprelProb at ``temperature``."""
        head, deprel = zip(*(evidence(temperature) for _, evidence in recorded))
        return np.concatenate(head), np.concatenate(deprel)

    temperature, nll = fit_temperature(lambda t: probabilities(t)[0], correct)
    before, (after, deprel) = probabilities(1.0)[0], probabilities(temperature)
    at_temperature = calibration(after, correct)
    clipped = np.clip(before, 1e-12, 1 - 1e-12)
    found = {"temperature": round(temperature, 6), "fitted_on": "word head likelihood", "data": source,
             "retag": retag,
             "words": int(len(correct)), "nll": round(nll, 6),
             "nll_before": round(float(-np.where(correct, np.log(clipped), np.log1p(-clipped)).mean()), 6),
             "ece_before": round(calibration(before, correct).ece, 6), "ece": round(at_temperature.ece, 6)}
    if head_map and len(correct) < min_map_words:
        found["head_map_left_out"] = f"{len(correct)} words, fewer than the {min_map_words} a head model and map need"
    elif head_map:
        sentences = [sentence for batch, _ in recorded for sentence in batch]
        model = head_model.fit(sentences, after, deprel, correct)
        modeled = model(sentences, after, deprel)
        confidences, accuracies = fit_head_map(modeled, correct)
        mapped = calibration(np.interp(modeled, confidences, accuracies), correct)
        found.update({"fitted_on": "word head likelihood, then a head model (logistic regression of head correctness "
                                   "on the word's features), then isotonic regression of head correctness",
                      "head_model": model.to_json(),
                      "head_map": {"confidence": list(confidences), "accuracy": list(accuracies)},
                      "ece_mapped": round(mapped.ece, 6), "auroc": _rounded(at_temperature.auroc),
                      "auroc_modeled": _rounded(mapped.auroc)})
    return found


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)
