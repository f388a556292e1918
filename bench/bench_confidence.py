"""What confidence costs and how well calibrated it is (``barley parse --confidence``).

For a model (by default the one that ships), on a gold test file (by default UD_English-EWT
test, gold tokenization): the parse time without and with confidence (in-process, the best
of ``--repeat`` runs, wall clock and CPU: the machine may be shared), and the head
confidence's expected calibration error (10 equal-width bins) and AUROC against head errors,
with the model's temperature, after ``barley calibrate --temperature-only`` on the dev file and
after ``barley calibrate`` (the temperature, then the head model and map); and, after that, the
precision and recall of the words ``--flag-below P`` flags, for several P.

    python bench/bench_confidence.py                       # shipped model, EWT dev → test
    python bench/bench_confidence.py --retag               # tags predicted by the model's tagger
    python bench/bench_confidence.py --model m.barley --dev dev.conllu --test test.conllu
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

UD = Path(os.environ.get("BARLEY_UD_DIR", Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "ud"))
EWT = UD / "UD_English-EWT"


def timed_parse(pipeline, gold: list, retag: bool, repeat: int) -> tuple[float, float, list]:
    """The best wall-clock and CPU seconds of parsing copies of ``gold`` (in process, the garbage
    collector set as ``barley parse`` sets it), and the last output."""
    from barley.collecting import collecting_rarely

    best_wall = best_cpu = float("inf")
    parsed: list = []
    for _ in range(repeat):
        copies = [sentence.copy() for sentence in gold]
        started, cpu = time.perf_counter(), time.process_time()
        with collecting_rarely():  # as barley parse does
            parsed = list(pipeline.parse(copies, retag=retag))
        best_wall = min(best_wall, time.perf_counter() - started)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return best_wall, best_cpu, parsed


def command_seconds(model: str, test: str, retag: bool, extra: list[str], repeat: int) -> float:
    """The best wall-clock seconds of the whole ``barley parse`` command (start-up, reading, writing)."""
    best = float("inf")
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "barley", "parse", test, "-m", model, "-q", "-o",
                            os.path.join(folder, "out.conllu"), "--force", *(["--retag"] if retag else []), *extra],
                           check=True)
            best = min(best, time.perf_counter() - started)
    return best


def scores(gold: list, parsed: list) -> dict:
    from barley.evaluation.attachment import evaluate

    found = evaluate(gold, parsed).scores
    calibration = found["calibration"]
    return {"UAS": round(found["UAS"], 2), "LAS": round(found["LAS"], 2), "ECE": calibration["ECE"],
            "AUROC": calibration["AUROC"]}


def flagged(gold: list, parsed: list, thresholds: list[float]) -> list[tuple[float, int, float, float]]:
    """Per threshold P, what ``barley parse --flag-below P`` would flag: (P, the words flagged, the
    precision: the share of them whose head is wrong, the recall: the share of head errors flagged)."""
    from barley.confidence import read_head_prob
    from barley.conllu import HEAD, MISC

    pairs = [(read_head_prob(p[MISC]), g[HEAD] != p[HEAD]) for gs, ps in zip(gold, parsed)
             for g, p in zip(gs.words, ps.words)]
    errors = sum(wrong for _, wrong in pairs)
    rows = []
    for threshold in thresholds:
        marked = [wrong for probability, wrong in pairs if probability < threshold]
        rows.append((threshold, len(marked), 100.0 * sum(marked) / max(len(marked), 1),
                     100.0 * sum(marked) / max(errors, 1)))
    return rows


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--model", help="model file (default: the shipped English model)")
    options.add_argument("--dev", default=str(EWT / "en_ewt-ud-dev.conllu"), help="where the temperature is fitted")
    options.add_argument("--test", default=str(EWT / "en_ewt-ud-test.conllu"), help="where it is measured")
    options.add_argument("--retag", action="store_true", help="predict the tags again (as barley parse --retag)")
    options.add_argument("--repeat", type=int, default=3, help="timed parses of each kind (default 3)")
    options.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    options.add_argument("--flag-below", type=float, nargs="+", default=[0.3, 0.5, 0.7, 0.9], metavar="P",
                         help="thresholds whose flagged words are counted (default 0.3 0.5 0.7 0.9)")
    args = options.parse_args()

    from barley.commands.calibrate import calibrate
    from barley.confidence import Confidence
    from barley.conllu import read
    from barley.models.shipped import default_model_path
    from barley.pipeline import Pipeline

    model = args.model or default_model_path()
    gold = list(read(args.test))
    words = sum(len(sentence) for sentence in gold)
    pipeline = Pipeline.load(model)
    plain_wall, plain_cpu, _ = timed_parse(pipeline, gold, args.retag, args.repeat)
    pipeline.with_confidence(Confidence())
    sure_wall, sure_cpu, parsed = timed_parse(pipeline, gold, args.retag, args.repeat)
    before = scores(gold, parsed)
    command_plain = command_seconds(model, args.test, args.retag, [], args.repeat)
    command_sure = command_seconds(model, args.test, args.retag, ["--confidence"], args.repeat)
    found = calibrate(pipeline, list(read(args.dev)), args.dev, args.retag)
    mapped_scores = {}
    temperature_only = {k: v for k, v in found.items() if k not in ("head_map", "head_model")}
    for name, fitted in (("temperature", temperature_only), ("mapped", found)):
        pipeline.calibrated(fitted)
        pipeline.with_confidence(Confidence())
        calibrated = list(pipeline.parse([sentence.copy() for sentence in gold], retag=args.retag))
        mapped_scores[name] = scores(gold, calibrated)
    after, mapped = mapped_scores["temperature"], mapped_scores["mapped"]
    figures = {
        "model": model, "test": args.test, "dev": args.dev, "words": words, "tags": "predicted" if args.retag
        else "as in the file", "parse_s": round(plain_wall, 2), "parse_confidence_s": round(sure_wall, 2),
        "cost_wall_percent": round(100 * (sure_wall / plain_wall - 1), 1),
        "cost_cpu_percent": round(100 * (sure_cpu / plain_cpu - 1), 1),
        "command_s": round(command_plain, 2), "command_confidence_s": round(command_sure, 2),
        "command_cost_percent": round(100 * (command_sure / command_plain - 1), 1),
        "temperature": found["temperature"], "head_map_knots": len(found.get("head_map", {}).get("confidence", ())),
        "before": before, "after": after, "mapped": mapped}
    print(f"{Path(model).name} on {Path(args.test).name} ({words} words, tags {figures['tags']}): "
          f"UAS {before['UAS']}, LAS {before['LAS']}")
    print(f"parse {plain_wall:.2f} s, with confidence {sure_wall:.2f} s: +{figures['cost_wall_percent']}% wall, "
          f"+{figures['cost_cpu_percent']}% CPU (best of {args.repeat}, in process)")
    print(f"barley parse (the whole command) {command_plain:.2f} s, with --confidence {command_sure:.2f} s: "
          f"+{figures['command_cost_percent']}%")
    print(f"head confidence at the model's temperature: ECE {100 * before['ECE']:.2f} points, "
          f"AUROC {before['AUROC']:.4f}")
    print(f"after barley calibrate on {Path(args.dev).name} (temperature {found['temperature']:.4f}, fitted on "
          f"the words' head likelihood): ECE {100 * after['ECE']:.2f} points, AUROC {after['AUROC']:.4f}")
    if "head_map" in found:
        print(f"then through the head model and the head map ({figures['head_map_knots']} knots; logistic, then "
              f"isotonic regression on the same dev words): ECE {100 * mapped['ECE']:.2f} points, "
              f"AUROC {mapped['AUROC']:.4f}")
    else:
        print(f"no head model or map: {found['head_map_left_out']}")
    for threshold, count, precision, recall in flagged(gold, calibrated, args.flag_below):
        print(f"--flag-below {threshold:g} (after calibration, with the model and map): {count} words flagged ({100 * count / words:.1f}%), "
              f"{precision:.1f}% of them with a wrong head; {recall:.1f}% of the head errors flagged")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
