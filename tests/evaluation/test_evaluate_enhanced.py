"""ELAS and EULAS (IWPT 2020) in `barley evaluate`: the counts of UD's eval.py on small files, hand-checked
cases, and an optional live comparison with a local copy of eval.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from barley import conllu
from barley.cli import main
from barley.errors import InputError
from barley.evaluation.conll18 import ENHANCED_METRICS, METRICS, evaluate_conll18
from barley.evaluation.parallel import evaluate_files
from conftest import ud_file


def rows(*lines: str) -> str:
    """One sentence from rows 'ID FORM LEMMA UPOS HEAD DEPREL DEPS', 'ID FORM' (a multiword token) or
    'ID FORM LEMMA UPOS DEPS' (an empty node)."""
    out = []
    for line in lines:
        fields = line.split()
        if "-" in fields[0]:
            out.append("\t".join(fields + ["_"] * 8))
        elif "." in fields[0]:
            token_id, form, lemma, upos, deps = fields
            out.append("\t".join([token_id, form, lemma, upos, "_", "_", "_", "_", deps, "_"]))
        else:
            token_id, form, lemma, upos, head, deprel, deps = fields
            out.append("\t".join([token_id, form, lemma, upos, "_", "_", head, deprel, deps, "_"]))
    return "\n".join(out) + "\n\n"


# Gold: control (nsubj:xsubj), conjoined subjects, a gapped clause with an empty node (5.1) and a collapsed
# path (conj:and>nsubj), a multiword token.
GOLD = rows("1 Sue sue PROPN 4 nsubj 4:nsubj|6:nsubj:xsubj", "2 and and CCONJ 3 cc 3:cc",
            "3 Bob bob PROPN 1 conj 1:conj:and|4:nsubj|6:nsubj:xsubj", "4 wanted want VERB 0 root 0:root",
            "5 to to PART 6 mark 6:mark", "6 leave leave VERB 4 xcomp 4:xcomp", "7 . . PUNCT 4 punct 4:punct") + rows(
    "1 Sue sue PROPN 2 nsubj 2:nsubj", "2 ate eat VERB 0 root 0:root", "3 apples apple NOUN 2 obj 2:obj",
    "4 and and CCONJ 5 cc 5.1:cc", "5 Bob bob PROPN 2 conj 5.1:nsubj|2:conj:and>nsubj", "5.1 ate eat VERB 2:conj:and",
    "6 pears pear NOUN 5 orphan 5.1:obj", "7 . . PUNCT 2 punct 2:punct") + rows(
    "1-2 Don't", "1 Do do AUX 3 aux 3:aux", "2 n't not PART 3 advmod 3:advmod", "3 go go VERB 0 root 0:root",
    "4 ! ! PUNCT 3 punct 3:punct")
# System: a subtype wrong (6:nsubj), two arcs from one head that differ after ':' (4:nsubj|4:nsubj:pass), an
# extra arc (0:root of leave), "pears." one token (pears and . unaligned), a path that differs after ':'
# (conj:or>nsubj), a word without enhanced arcs (!).
SYSTEM = rows("1 Sue sue PROPN 4 nsubj 4:nsubj|6:nsubj", "2 and and CCONJ 3 cc 3:cc",
              "3 Bob bob PROPN 1 conj 1:conj:and|4:nsubj|4:nsubj:pass", "4 wanted want VERB 0 root 0:root",
              "5 to to PART 6 mark 6:mark", "6 leave leave VERB 4 xcomp 0:root|4:xcomp",
              "7 . . PUNCT 6 punct 6:punct") + rows(
    "1 Sue sue PROPN 2 nsubj 2:nsubj", "2 ate eat VERB 0 root 0:root", "3 apples apple NOUN 2 obj 2:obj",
    "4 and and CCONJ 5 cc 5:cc", "5 Bob bob PROPN 2 conj 2:conj:and|2:conj:or>nsubj",
    "6 pears. pear NOUN 5 obj 5:obj") + rows(
    "1-2 Don't", "1 Do do AUX 3 aux 3:aux", "2 n't not PART 3 advmod 3:advmod", "3 go go VERB 0 root 0:root",
    "4 ! ! PUNCT 3 punct _")

# What UD's eval.py printed for GOLD and SYSTEM written to files (UniversalDependencies/tools at commit
# 066bafe6a, the last eval.py in one file; its ELAS and EULAS are those of iwpt20_xud_eval.py and of today's
# udtools.udeval), with `python eval.py -c gold.conllu system.conllu`: correct, gold, system, aligned.
EVAL_PY_COUNTS = """
Tokens     |        15 |        17 |        16 |
Sentences  |         3 |         3 |         3 |
Words      |        16 |        18 |        17 |        16
UPOS       |        16 |        18 |        17 |        16
XPOS       |        16 |        18 |        17 |        16
UFeats     |        16 |        18 |        17 |        16
AllTags    |        16 |        18 |        17 |        16
Lemmas     |        16 |        18 |        17 |        16
UAS        |        15 |        18 |        17 |        16
LAS        |        15 |        18 |        17 |        16
CLAS       |        10 |        11 |        11 |        10
MLAS       |        10 |        11 |        11 |        10
BLEX       |        10 |        11 |        11 |        10
ELAS       |        13 |        19 |        21 |
EULAS      |        16 |        19 |        21 |
"""
# and with -v, precision, recall and F1 of the enhanced metrics
EVAL_PY_PERCENT = {"ELAS": (61.90, 68.42, 65.00), "EULAS": (76.19, 84.21, 80.00)}


def counts_table(printed: str) -> dict[str, list[int | None]]:
    table = {}
    for line in printed.strip().splitlines():
        if "|" in line and not line.startswith(("Metric", "---")):
            metric, *numbers = (part.strip() for part in line.split("|"))
            table[metric] = [int(n) if n else None for n in numbers]
    return table


def our_counts(gold: str, system: str) -> dict[str, list[int | None]]:
    evaluation = evaluate_conll18(conllu.read_lines(gold.splitlines()), conllu.read_lines(system.splitlines()))
    return {metric: [s.correct, s.gold, s.system, s.aligned if s.aligned is not None or metric != "Words"
                     else s.correct] for metric, s in evaluation.scores.items()}


def test_every_count_is_eval_py_s():
    assert our_counts(GOLD, SYSTEM) == counts_table(EVAL_PY_COUNTS)
    scores = evaluate_conll18(conllu.read_lines(GOLD.splitlines()), conllu.read_lines(SYSTEM.splitlines())).scores
    for metric, expected in EVAL_PY_PERCENT.items():
        s = scores[metric]
        assert (round(s.precision, 2), round(s.recall, 2), round(s.f1, 2)) == expected
        assert s.aligned_accuracy is None


def test_the_counts_by_hand():
    """Gold arcs: 10 + 5 (the arcs from the empty node 5.1 are left out, with 5.1 itself) + 4 = 19."""
    one = rows("1 Sue sue PROPN 2 nsubj 2:nsubj:pass|3:nsubj:xsubj", "2 was be AUX 0 root 0:root",
               "3 x x X 2 dep 2:dep")
    # one system arc matches both gold arcs from 2 in EULAS (eval.py counts matching pairs): 2 of 2
    two = one.replace("2:nsubj:pass|3:nsubj:xsubj", "2:nsubj|3:nsubj")
    assert our_counts(one, two)["ELAS"] == [2, 4, 4, None]
    assert our_counts(one, two)["EULAS"] == [4, 4, 4, None]
    doubled = one.replace("2:nsubj:pass|3:nsubj:xsubj", "2:nsubj:pass|2:nsubj:xsubj")
    assert our_counts(doubled, one.replace("2:nsubj:pass|3:nsubj:xsubj", "2:nsubj"))["EULAS"] == [4, 4, 3, None]


def test_enhanced_metrics_only_where_the_gold_has_enhanced_arcs():
    basic = "\n".join("\t".join(fields[:8] + ["_", fields[9]]) if len(fields := line.split("\t")) == 10 else line
                      for line in GOLD.split("\n"))
    assert list(our_counts(basic, SYSTEM)) == list(METRICS)
    assert list(our_counts(GOLD, basic)) == [*METRICS, *ENHANCED_METRICS]
    assert our_counts(GOLD, basic)["ELAS"] == [0, 19, 0, None]


def test_a_conll_x_phead_is_not_an_enhanced_arc():
    phead = rows("1 Hi hi INTJ 0 root 0", "2 . . PUNCT 1 punct 1")
    assert list(our_counts(phead, phead)) == list(METRICS)


@pytest.mark.parametrize("deps, what", [("4:nsubj", "4:nsubj"), ("nsubj", "nsubj"), ("2:", "2:"),
                                         ("2:nsubj|x:obj", "x:obj"), ("1.x:dep", "1.x:dep")])
def test_a_malformed_deps_is_a_one_line_error_with_its_line(deps, what):
    bad = rows("1 Hi hi INTJ 0 root 0:root", f"2 . . PUNCT 1 punct {deps}")
    with pytest.raises(InputError) as error:
        evaluate_conll18(conllu.read_lines(bad.splitlines()), conllu.read_lines(bad.splitlines()))
    assert error.value.line == 2 and repr(what) in str(error.value) and "head:relation" in str(error.value)


def test_the_command_reports_elas_and_eulas(tmp_path, capsys):
    (tmp_path / "gold.conllu").write_text(GOLD, "utf-8")
    (tmp_path / "system.conllu").write_text(SYSTEM, "utf-8")
    assert main(["evaluate", str(tmp_path / "gold.conllu"), str(tmp_path / "system.conllu")]) == 0
    printed = capsys.readouterr().out
    assert "ELAS and EULAS (IWPT 2020)" in printed
    assert [line.split() for line in printed.splitlines() if line.startswith(ENHANCED_METRICS)] == [
        ["ELAS", "61.90", "68.42", "65.00", "13", "19", "21"], ["EULAS", "76.19", "84.21", "80.00", "16", "19", "21"]]
    assert main(["evaluate", "--json", str(tmp_path / "gold.conllu"), str(tmp_path / "system.conllu")]) == 0
    scores = json.loads(capsys.readouterr().out)["conll18"]
    assert scores["EULAS"]["f1"] == pytest.approx(80.0) and scores["ELAS"]["correct"] == 13


def test_deps_copied_from_the_input_beside_other_trees_are_said(tmp_path, capsys):
    """A system file whose DEPS are the gold's on every word while its basic trees differ (what ``barley parse``
    writes for a treebank without --enhanced: the input's DEPS kept): ELAS is 100 and the command warns that it
    scores a copy; a system whose trees are the gold's too (or whose DEPS differ) is not warned about."""
    gold, copied = tmp_path / "gold.conllu", tmp_path / "copied.conllu"
    gold.write_text(GOLD, "utf-8")
    copied.write_text(GOLD.replace("7\t.\t.\tPUNCT\t_\t_\t4\tpunct", "7\t.\t.\tPUNCT\t_\t_\t6\tpunct", 1),
                      "utf-8")
    assert copied.read_text("utf-8") != GOLD
    evaluation = evaluate_conll18(str(gold), str(copied))
    assert evaluation.copied_deps and evaluation.scores["ELAS"].f1 == 100.0
    assert main(["evaluate", "--conll18", str(gold), str(copied)]) == 0
    assert "its DEPS are the gold's on every word though its basic trees differ" in capsys.readouterr().err
    for consistent in (GOLD, _same_words(GOLD)):
        (tmp_path / "system.conllu").write_text(consistent, "utf-8")
        assert not evaluate_conll18(str(gold), str(tmp_path / "system.conllu")).copied_deps
        assert main(["evaluate", "--conll18", str(gold), str(tmp_path / "system.conllu")]) == 0
        assert "DEPS" not in capsys.readouterr().err
    [(blocks, _)] = evaluate_files(str(gold), [str(copied)], False, 2, per_word=False, block_bytes=300)
    assert blocks.copied_deps


def _same_words(gold: str) -> str:
    """GOLD's words with other enhanced arcs: every arc's relation cut to its universal part, every third dropped."""
    lines = []
    for number, line in enumerate(gold.split("\n")):
        fields = line.split("\t")
        if len(fields) == 10 and fields[8] != "_" and number % 3:
            arcs = [arc.split(":")[0] + ":" + arc.split(":")[1] for arc in fields[8].split("|")]
            fields[8] = "|".join(arcs[: max(1, len(arcs) - 1)])
        lines.append("\t".join(fields))
    return "\n".join(lines)


def test_scored_in_blocks_the_enhanced_counts_are_the_whole_file_s(tmp_path):
    gold = (tmp_path / "gold.conllu")
    gold.write_text(GOLD * 20, "utf-8")
    system = tmp_path / "system.conllu"
    system.write_text(_same_words(gold.read_text("utf-8")), "utf-8")
    [(blocks, _)] = evaluate_files(str(gold), [str(system)], False, 2, per_word=False, block_bytes=700)
    whole = evaluate_conll18(str(gold), str(system))
    assert whole.scores["ELAS"].correct < whole.scores["EULAS"].correct < whole.scores["EULAS"].gold
    assert blocks.as_dict() == whole.as_dict()


EVAL_PY = os.environ.get("BARLEY_IWPT20_SCORER")


LIVE = pytest.mark.skipif(not EVAL_PY, reason="set BARLEY_IWPT20_SCORER to the path of UD's eval.py (one file, as "
                                               "at UniversalDependencies/tools commit 066bafe6a) to compare live")


def assert_counts_equal_eval_py(gold, system) -> None:
    printed = subprocess.run([sys.executable, EVAL_PY, "-c", str(gold), str(system)], capture_output=True,
                             text=True, check=True).stdout
    assert our_counts(open(gold, encoding="utf-8").read(), open(system, encoding="utf-8").read()) == \
        counts_table(printed), (gold, system)


@LIVE
@pytest.mark.parametrize("system", [SYSTEM, _same_words(GOLD)], ids=["other-tokens", "same-words"])
def test_counts_equal_eval_py_live(system, tmp_path):
    (tmp_path / "gold.conllu").write_text(GOLD, "utf-8")
    (tmp_path / "system.conllu").write_text(system, "utf-8")
    assert_counts_equal_eval_py(tmp_path / "gold.conllu", tmp_path / "system.conllu")


@LIVE
@pytest.mark.ud
def test_counts_on_ewt_test_equal_eval_py_live(tmp_path):
    gold = ud_file("en_ewt-ud-test.conllu")
    (tmp_path / "system.conllu").write_text(_same_words(gold.read_text("utf-8")), "utf-8")
    assert_counts_equal_eval_py(gold, tmp_path / "system.conllu")
