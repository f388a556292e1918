"""The report of an experiment, in Markdown and as one self-contained HTML page.

Drawn only from what the runner stored (scores, per-word correctness, tree and
oracle statistics), so it can be rebuilt at any time. Per treebank: the scores
of every parser with the best value in bold and McNemar's test against the parser
with the best LAS (Nivre 2008 §6.2 and the other papers use it), accuracy by gold
arc length (Nilsson, Nivre & Hall 2006, Table 4) and, for transition parsers, the
abstract running time (Nivre 2009, Fig. 5) and a few sentences where the parsers
differ, drawn; across treebanks, the statistics of
the training data (Nivre 2008, Table 1: NPT, NPS; Gómez-Rodríguez & Nivre 2010,
Table 1: planarity and ill-nestedness).
"""

from __future__ import annotations

import base64
import datetime
import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np

from barley import __version__
from barley.evaluation.attachment import PUNCT_MODES, mcnemar
from barley.experiment import plots
from barley.experiment.runner import (CORRECT, OUTPUT, finished, plan, read_json, result_directory, slug,
                                      treebank_directory, write_bytes)
from barley.render import differences, text
from barley.render import html as render_html
from barley.experiment.spec import METRICS, ParserSpec, Spec
from barley.analysis.oracles import OracleStats

SIGNIFICANT = ((0.01, "‡"), (0.05, "†"))  # strictest first


@dataclass
class Result:
    """One parser on one treebank: the stored score and per-word correctness (None if not finished)."""

    parser: ParserSpec
    score: dict | None
    correct: np.ndarray | None
    p_value: float | None = None  # McNemar against the best parser by LAS

    def value(self, metric: str):
        if self.score is None:
            return None
        return self.score["scores"].get(metric) if metric in self.score["scores"] else self.score.get(metric)


# A cell is its text, or (text, bold).
Cell = str | tuple[str, bool]


def collect(spec: Spec, out: str | Path) -> dict[str, list[Result]]:
    """The finished results per treebank, parsers in spec order, with McNemar p-values against the best."""
    the_plan = plan(spec, out)
    keys = {run.directory: run.key for run in the_plan.runs if run.fold is None}
    keys.update({merge.directory: merge.key for merge in the_plan.merges})
    results: dict[str, list[Result]] = {}
    for treebank in spec.treebanks:
        row = []
        for parser in spec.parsers:
            directory = str(result_directory(out, treebank, parser))
            if finished(directory, keys[directory], (CORRECT,)):
                row.append(Result(parser, read_json(Path(directory) / "score.json"),
                                  np.load(Path(directory) / CORRECT, allow_pickle=False)))
            else:
                row.append(Result(parser, None, None))
        _significance(row)
        results[treebank.name] = row
    return results


def _significance(results: list[Result]) -> None:
    scored = [r for r in results if r.score is not None]
    if len(scored) < 2:
        return
    best = max(scored, key=lambda r: r.value("LAS"))
    for result in scored:
        if result is not best:
            assert best.correct is not None and result.correct is not None
            result.p_value = mcnemar(best.correct, result.correct).p_value


def _mark(p_value: float | None) -> str:
    return next((mark for level, mark in SIGNIFICANT if p_value is not None and p_value < level), "")


def _format(metric: str, value) -> str:
    if value is None:
        return "–"
    if metric == "NP_system":
        return str(int(value))
    if metric.endswith("_seconds"):
        return f"{value:.1f}"
    if metric == "words_per_second":
        return f"{value:.0f}"
    return f"{value:.2f}"


def results_table(spec: Spec, results: list[Result]) -> tuple[list[str], Sequence[Sequence[Cell]]]:
    """Header and rows of a treebank's results; best values bold, McNemar marks on LAS."""
    headers = ["Parser"] + [METRICS[m][0] for m in spec.metrics]
    best = {}
    for metric in spec.metrics:
        direction = METRICS[metric][1]
        shown = [_format(metric, r.value(metric)) for r in results if r.value(metric) is not None]
        if direction and shown:
            values = [float(v) for v in shown]
            best[metric] = _format(metric, max(values) if direction > 0 else min(values))
    rows = []
    for result in results:
        mark = _mark(result.p_value)
        row: list[Cell] = [result.parser.name + (mark if "LAS" not in spec.metrics else "")]
        for metric in spec.metrics:
            text = _format(metric, result.value(metric))
            bold = result.score is not None and best.get(metric) == text
            row.append((text + (mark if metric == "LAS" else ""), bold))
        rows.append(row)
    return headers, rows


def statistics_table(spec: Spec, out: Path) -> tuple[list[str], Sequence[Sequence[Cell]]]:
    headers = ["Treebank", "Sentences", "Words", "NPT %", "NPS %", "Not planar", "Not 2-planar", "Not 3-planar",
               "Ill-nested", "Labels"]
    rows = []
    for treebank in spec.treebanks:
        stats = read_json(treebank_directory(out, treebank) / "stats.json")
        if stats is None:
            rows.append([treebank.name] + ["–"] * (len(headers) - 1))
            continue
        trees = stats["sentences"] - stats["malformed_sentences"]

        def share(count: int) -> str:
            return f"{count} ({100 * count / trees:.2f}%)" if trees else str(count)

        rows.append([treebank.name, str(stats["sentences"]), str(stats["tokens"]), f"{stats['NPT']:.2f}",
                     f"{stats['NPS']:.2f}", share(stats["non_planar_sentences"]),
                     share(stats["non_2planar_sentences"]), share(stats["non_3planar_sentences"]),
                     share(stats["ill_nested_sentences"]), str(stats["labels"])])
    return headers, rows


def arc_length_table(results: list[Result]) -> tuple[list[str], Sequence[Sequence[Cell]]] | None:
    scored = [r for r in results if r.score is not None]
    if not scored:
        return None
    bins = cast(dict, scored[0].score)["scores"]["by_length"]
    headers = ["Parser"] + [f"LAS {name}" for name in bins]
    rows = [["share of gold arcs %"] + [_format("", row["share"]) for row in bins.values()]]
    rows += [[r.parser.name] + [_format("", row["LAS"]) for row in cast(dict, r.score)["scores"]["by_length"].values()]
             for r in scored]
    return headers, rows


def oracle_statistics(spec: Spec, out: Path, treebank) -> dict[str, OracleStats]:
    """The stored oracle runs on a treebank, by system name."""
    found: dict[str, OracleStats] = {}
    for parser in spec.parsers:
        data = cast("dict | None", parser.transition_system and read_json(
            treebank_directory(out, treebank) / f"oracle-{slug(parser.transition_system)}.json"))
        if data is not None and parser.transition_system not in found:
            found[cast(str, parser.transition_system)] = OracleStats(
                data["system"], data["single_root"], data["sentences"], data["skipped"], data["words"],
                data["reproduced"], data["transitions"], data["swaps"], data["switches"],
                np.array(data["lengths"], dtype=np.int64), np.array(data["counts"], dtype=np.int64),
                float("nan") if data["slope"] is None else data["slope"],
                float("nan") if data["r2"] is None else data["r2"])
    return found


def running_time_table(results: list[Result],
                       oracles: dict[str, OracleStats]) -> tuple[list[str], Sequence[Sequence[Cell]]]:
    headers = ["Parser", "System", "oracle: a in m = a·n", "R²", "oracle: transitions/word",
               "trees rebuilt by the oracle", "parsing: transitions/word"]
    rows = []
    for result in results:
        oracle = oracles.get(result.parser.transition_system)  # type: ignore[arg-type]  # get(None) is None
        if not result.parser.transition_system or oracle is None:
            continue
        parsing = result.value("parse_transitions")
        per_word = (parsing / cast(dict, result.score)["words"]
                    if parsing is not None and cast(dict, result.score)["words"] else None)
        rows.append([result.parser.name, oracle.system, f"{oracle.slope:.3f}", f"{oracle.r2:.3f}",
                     f"{oracle.transitions_per_word:.3f}", f"{oracle.reproduced} of {oracle.sentences}",
                     _format("", per_word)])
    return headers, rows


def _punctuation(spec: Spec, results: dict[str, list[Result]]) -> str:
    for row in results.values():
        for result in row:
            if result.score is not None:
                return result.score["scores"]["punctuation"]
    return PUNCT_MODES.get(spec.exclude_punct or "", "included (every word is scored)")


def build(spec: Spec, out: str | Path, failures: Sequence[str] = ()) -> list[tuple]:
    """The report as a list of blocks: ("h", level, text), ("p", text), ("list", items),
    ("table", headers, rows), ("image", path relative to ``out``, caption), ("trees", figures of
    :mod:`barley.render.html`). Plots are written here."""
    out = Path(out)
    results = collect(spec, out)
    can_plot = plots.available()
    if can_plot:
        (out / "plots").mkdir(exist_ok=True)
    blocks: list[tuple] = [("h", 1, f"Experiment {spec.name}")]
    if spec.description:
        blocks.append(("p", spec.description))
    setting = [f"Evaluation: punctuation {_punctuation(spec, results)}; scores are percentages of the scored words "
               "(LEM: of the sentences). NP P and NP R: precision and recall on non-projective arcs (correct head "
               "and label; Kuhlmann & Nivre 2010); #NP: non-projective arcs in the parser output.",
               "Best value per column in bold. McNemar's test on per-word LAS correctness against the parser "
               "with the best LAS: † p < 0.05, ‡ p < 0.01.",
               f"barley {__version__}; report written {datetime.datetime.now().isoformat(timespec='seconds')}."]
    if spec.max_train_sentences:
        setting.append(f"Training data cut to the first {spec.max_train_sentences} sentences (a quick run).")
    blocks.append(("list", setting + list(spec.notes)))
    blocks.append(("h", 2, "Parsers"))
    blocks.append(("list", [f"{p.name}: {p.describe()}" for p in spec.parsers]))
    blocks.append(("h", 2, "Treebanks"))
    blocks.append(("p", "Statistics of the training data (the whole set under cross-validation): NPT and NPS as in "
                        "Nivre (2008, Table 1); planarity (over arcs between words) and ill-nestedness as in "
                        "Gómez-Rodríguez & Nivre (2010, Table 1), shares of the well-formed trees."))
    blocks.append(("table", *statistics_table(spec, out)))
    if not can_plot:
        blocks.append(("p", plots.MISSING + "."))
    for treebank in spec.treebanks:
        row = results[treebank.name]
        blocks.append(("h", 2, treebank.name))
        blocks.append(("p", treebank.describe() + "."))
        blocks.append(("table", *results_table(spec, row)))
        missing = [r.parser.name for r in row if r.score is None]
        if missing:
            blocks.append(("p", "Not finished: " + ", ".join(missing) + "."))
        figures = differing_sentences(out, treebank, row)
        if figures:
            blocks.append(("h", 3, "Where the parsers differ"))
            blocks.append(("p", f"The {len(figures)} sentences of {differences.SHORTEST} to {differences.LONGEST} "
                                "words on which the parsers disagree most, the gold tree first; wrong heads and "
                                "labels are marked."))
            blocks.append(("trees", figures))
        table = arc_length_table(row)
        if table:
            blocks.append(("h", 3, "Accuracy by arc length"))
            blocks.append(("p", "LAS by length of the gold arc (Nilsson, Nivre & Hall 2006, Table 4); "
                                "root: attachment to the artificial root."))
            blocks.append(("table", *table))
            if can_plot:
                path = Path("plots") / f"{slug(treebank.name)}-arc-length.png"
                plots.by_arc_length({r.parser.name: r.score["scores"]["by_length"] for r in row if r.score},
                                    out / path, treebank.name)
                blocks.append(("image", str(path), f"LAS by gold arc length, {treebank.name}"))
        oracles = oracle_statistics(spec, out, treebank)
        if oracles:
            blocks.append(("h", 3, "Abstract running time"))
            blocks.append(("p", "Transitions m of each system's static oracle against sentence length n on the "
                                "training trees (untransformed), least-squares fit m = a·n with R² (Nivre 2009 "
                                "§4.1, Fig. 5); and the transitions per word of each trained parser on the test "
                                "data."))
            blocks.append(("table", *running_time_table(row, oracles)))
            if can_plot:
                path = Path("plots") / f"{slug(treebank.name)}-running-time.png"
                plots.running_time(list(oracles.values()), out / path, f"{treebank.name}: oracle transitions")
                blocks.append(("image", str(path), f"Abstract running time, {treebank.name}"))
    if failures:
        blocks.append(("h", 2, "Failed runs"))
        blocks.append(("list", list(failures)))
    return blocks


def differing_sentences(out: Path, treebank, row: list[Result]) -> list:
    """Drawn sentences where the finished parsers of ``row`` differ most (none with fewer than two)."""
    finished_parsers = [r.parser for r in row if r.score is not None]
    if len(finished_parsers) < 2:
        return []
    gold = treebank.data if treebank.cross_validated else treebank.test
    return differences.read_outputs(gold, {parser.name: str(result_directory(out, treebank, parser) / OUTPUT)
                                           for parser in finished_parsers})


# --- rendering ---------------------------------------------------------------------------------

def _cell(cell: Cell) -> tuple[str, bool]:
    return (cell, False) if isinstance(cell, str) else cell


def to_markdown(blocks: list[tuple]) -> str:
    lines: list[str] = []
    for kind, *content in blocks:
        if kind == "h":
            lines += ["#" * content[0] + " " + content[1], ""]
        elif kind == "p":
            lines += [content[0], ""]
        elif kind == "list":
            lines += [f"- {item}" for item in content[0]] + [""]
        elif kind == "table":
            headers, rows = content
            lines.append("| " + " | ".join(headers) + " |")
            lines.append("|" + "|".join(["---"] + ["---:"] * (len(headers) - 1)) + "|")
            for row in rows:
                cells = [(f"**{text}**" if bold else text).replace("|", "\\|") for text, bold in map(_cell, row)]
                lines.append("| " + " | ".join(cells) + " |")
            lines.append("")
        elif kind == "image":
            lines += [f"![{content[1]}]({content[0]})", ""]
        elif kind == "trees":
            for figure in content[0]:
                lines += [f"**{figure.caption}** ({'; '.join(figure.notes)})", "", "```"]
                lines += [f"{heading}\n{text.draw(drawing)}" for heading, drawing in figure.drawings]
                lines += ["```", ""]
    return "\n".join(lines)


STYLE = ("body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em;color:#222}"
         "table{border-collapse:collapse;margin:1em 0}th,td{padding:.25em .6em;border-bottom:1px solid #ccc}"
         "td{text-align:right}td:first-child,th:first-child{text-align:left}img{max-width:100%}")


def to_html(blocks: list[tuple], out: Path, title: str) -> str:
    """One self-contained page: the plots are embedded as base64 PNG."""
    escape = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"]
    for kind, *content in blocks:
        if kind == "h":
            parts.append(f"<h{content[0]}>{escape(content[1])}</h{content[0]}>")
        elif kind == "p":
            parts.append(f"<p>{escape(content[0])}</p>")
        elif kind == "list":
            parts.append("<ul>" + "".join(f"<li>{escape(item)}</li>" for item in content[0]) + "</ul>")
        elif kind == "table":
            headers, rows = content
            parts.append("<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr>")
            for row in rows:
                cells = [f"<b>{escape(text)}</b>" if bold else escape(text) for text, bold in map(_cell, row)]
                parts.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
            parts.append("</table>")
        elif kind == "image":
            data = base64.b64encode((out / content[0]).read_bytes()).decode("ascii")
            parts.append(f'<figure><img alt="{escape(content[1])}" src="data:image/png;base64,{data}">'
                         f"<figcaption>{escape(content[1])}</figcaption></figure>")
        elif kind == "trees":
            parts.extend(render_html.figure(figure) for figure in content[0])
    parts.append("</body></html>")
    return "\n".join(parts)


def write(spec: Spec, out: str | Path, failures: Sequence[str] = ()) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.html`` (atomically) into ``out``; their paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    blocks = build(spec, out, failures)
    markdown, page = out / "report.md", out / "report.html"
    write_bytes(markdown, to_markdown(blocks).encode("utf-8"))
    write_bytes(page, to_html(blocks, out, f"barley experiment {spec.name}").encode("utf-8"))
    return markdown, page
