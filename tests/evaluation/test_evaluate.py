"""`barley evaluate`: every metric on hand-made cases, a corrupted real file against an independent scorer, McNemar."""

from __future__ import annotations

import json
import math
import random

import pytest

import barley
from barley import conllu
from barley.cli import main
from barley.conllu import DEPREL, FORM, HEAD, UPOS
from barley.errors import InputError
from barley.evaluation.attachment import evaluate, mcnemar
from conftest import ud_file

pytestmark = pytest.mark.slow  # tests/conftest.py: the fast loop leaves this file out

# Nivre (2009), Figure 1: arcs 2 -> 5 (on) and 4 -> 8 (today) are non-projective.
HEARING = [("A", "DET", 2, "det"), ("hearing", "NOUN", 3, "nsubj"), ("is", "AUX", 0, "root"),
           ("scheduled", "VERB", 3, "vg"), ("on", "ADP", 2, "nmod"), ("the", "DET", 7, "det:def"),
           ("issue", "NOUN", 5, "pc"), ("today", "NOUN", 4, "adv"), (".", "PUNCT", 3, "punct")]


def text(*sentences) -> str:
    """CoNLL-U text of sentences given as lists of (form, upos, head, deprel)."""
    blocks = []
    for words in sentences:
        rows = [f"{i}\t{form}\t_\t{upos}\t_\t_\t{head}\t{deprel}\t_\t_"
                for i, (form, upos, head, deprel) in enumerate(words, start=1)]
        blocks.append("\n".join(rows) + "\n\n")
    return "".join(blocks)


def changed(words, **changes):
    """A copy of ``words`` with word i given a new (head, deprel): changes like w8=(3, "adv")."""
    words = list(words)
    for key, (head, deprel) in changes.items():
        i = int(key[1:]) - 1
        words[i] = (words[i][0], words[i][1], head, deprel)
    return words


def sentences(*given) -> list[conllu.Sentence]:
    return list(conllu.read_lines(text(*given).splitlines()))


def scores(gold, system, **options) -> dict:
    return evaluate(sentences(*gold), sentences(*system), **options).as_dict()


def test_perfect_output_scores_100_everywhere():
    result = scores([HEARING], [HEARING])
    for key in ("UAS", "LAS", "LASu", "LA", "UEM", "LEM", "NP_recall", "NP_precision"):
        assert result[key] == 100.0
    assert (result["tokens"], result["sentences"], result["NP_gold"], result["NP_system"]) == (9, 1, 2, 2)


def test_attachment_and_label_scores_by_hand():
    # Word 8 gets a wrong (projective) head, word 5 a wrong label, word 6 a different label subtype.
    system = changed(HEARING, w8=(3, "adv"), w5=(2, "adv"), w6=(7, "det:art"))
    result = scores([HEARING], [system])
    assert result["UAS"] == pytest.approx(100 * 8 / 9)
    assert result["LAS"] == pytest.approx(100 * 6 / 9)  # 5, 6 and 8 wrong
    assert result["LASu"] == pytest.approx(100 * 7 / 9)  # det:art agrees with det:def on "det"
    assert result["LA"] == pytest.approx(100 * 7 / 9)  # labels of 5 and 6 wrong; 8's label is right
    assert result["UEM"] == 0.0 and result["LEM"] == 0.0


def test_nonprojective_recall_and_precision_need_head_and_label():
    # Gold non-projective: 5 and 8. The system attaches 8 projectively (to 3); 5 stays non-projective.
    right_label = changed(HEARING, w8=(3, "adv"))
    result = scores([HEARING], [right_label])
    assert (result["NP_gold"], result["NP_gold_correct"], result["NP_recall"]) == (2, 1, 50.0)
    assert (result["NP_system"], result["NP_system_correct"], result["NP_precision"]) == (1, 1, 100.0)
    wrong_label = changed(HEARING, w8=(3, "adv"), w5=(2, "adv"))  # head of 5 right, label wrong: not counted
    result = scores([HEARING], [wrong_label])
    assert (result["NP_recall"], result["NP_precision"]) == (0.0, 0.0)


def test_nonprojective_scores_are_none_when_undefined_and_non_trees_are_left_out():
    projective = [("a", "X", 2, "x"), ("b", "X", 0, "root"), ("c", "X", 2, "y")]
    result = scores([projective], [projective])
    assert result["NP_recall"] is None and result["NP_precision"] is None
    cycle = changed(HEARING, w3=(4, "root"))  # 3 -> 4 -> 3: not a tree, no non-projectivity defined
    result = scores([HEARING], [cycle])
    assert result["system_not_trees"] == 1 and result["NP_system"] == 0 and result["NP_precision"] is None
    assert result["NP_gold"] == 2 and result["NP_recall"] == 100.0


def test_exact_match_is_per_sentence():
    short = [("Yes", "INTJ", 0, "root"), ("!", "PUNCT", 1, "punct")]
    result = scores([HEARING, short], [changed(HEARING, w1=(2, "amod")), short])
    assert (result["UEM"], result["LEM"]) == (100.0, 50.0)
    result = scores([HEARING, short], [changed(HEARING, w1=(4, "det")), short])
    assert (result["UEM"], result["LEM"]) == (50.0, 50.0)


def test_scores_by_gold_arc_length_use_the_bins_of_nilsson_et_al():
    result = scores([HEARING], [changed(HEARING, w8=(3, "adv"))])["by_length"]
    # Gold lengths: 1 for words 1, 2, 4, 6; 2-3 for 5 (3) and 7 (2); 4-6 for 8 (4) and 9 (6); 3 is the root.
    assert {name: row["words"] for name, row in result.items()} == {"1": 4, "2-3": 2, "4-6": 2, "7-10": 0,
                                                                     "11+": 0, "root": 1}
    assert result["4-6"]["UAS"] == 50.0 and result["4-6"]["LAS"] == 50.0 and result["1"]["LAS"] == 100.0
    assert result["4-6"]["share"] == pytest.approx(100 * 2 / 9) and result["7-10"]["LAS"] is None


def test_scores_by_relation_give_recall_over_gold_and_precision_over_system():
    system = changed(HEARING, w1=(2, "nsubj"), w8=(3, "adv"))  # a det labelled nsubj; adv with a wrong head
    result = scores([HEARING], [system])["by_relation"]
    assert result["det"] == {"gold": 1, "system": 0, "recall": 0.0, "precision": None}
    assert result["nsubj"] == {"gold": 1, "system": 2, "recall": 100.0, "precision": 50.0}
    assert result["adv"] == {"gold": 1, "system": 1, "recall": 0.0, "precision": 0.0}


PUNCTUATION = [("Hi", "INTJ", 0, "root"), ("%", "SYM", 1, "dep"), (".", "PUNCT", 1, "punct"),
               ("$", "PUNCT", 1, "punct")]


def test_punctuation_is_scored_by_default_and_excluded_by_upos_or_by_form():
    system = changed(PUNCTUATION, w2=(3, "dep"))  # only the "%" word is wrong
    assert scores([PUNCTUATION], [system])["UAS"] == 75.0
    # UPOS PUNCT: "." and "$" are left out, "%" (SYM) is scored.
    result = scores([PUNCTUATION], [system], exclude_punct=True)
    assert (result["tokens"], result["UAS"]) == (2, 50.0)
    assert result["punctuation"] == "excluded: words with gold UPOS PUNCT"
    # eval.pl: FORM all Unicode punctuation ("%" and "." are, "$" is a currency symbol).
    result = scores([PUNCTUATION], [system], exclude_punct="form")
    assert (result["tokens"], result["UAS"]) == (2, 100.0)
    assert "eval.pl" in result["punctuation"]


def test_gold_and_system_must_have_the_same_words(tmp_path, capsys):
    gold = tmp_path / "gold.conllu"
    gold.write_text(text(HEARING, PUNCTUATION))
    other_form = [("A", "DET", 2, "det"), ("herring", "NOUN", 3, "nsubj"), *HEARING[2:]]
    # The Python API needs the same words; the command scores other tokenizations (the CoNLL 2018 way)
    # but needs the same text, and names the first character where it differs.
    cases = {
        "fewer-sentences": (text(HEARING), "the system file ends after 1 sentences but the gold has more",
                            f"{tmp_path}/fewer-sentences.conllu:9: the system's text ends at character 35, "
                            f"where the gold's goes on with 'Hi%.$' (at {gold}:11)"),
        "more-sentences": (text(HEARING, PUNCTUATION, PUNCTUATION), "sentence 3 has no gold counterpart",
                           "the system's text goes on after the gold's ends (character 41: 'Hi%.$'"),
        "fewer-words": (text(HEARING, PUNCTUATION[:3]), "sentence 2 differs from the gold",
                        "the system's text ends at character 39, where the gold's goes on with '$'"),
        "other-form": (text(other_form, PUNCTUATION), "word 2 is 'herring' but the gold word is 'hearing'",
                       f"other-form.conllu:2: the text differs from the gold's at character 4 (spaces aside): "
                       f"the system has 'rringisscheduledonth', the gold 'aringisscheduledonth' (at {gold}:2)"),
    }
    for name, (system_text, message, command_message) in cases.items():
        system = tmp_path / f"{name}.conllu"
        system.write_text(system_text)
        with pytest.raises(InputError, match=message):
            evaluate(gold, system)
        assert main(["evaluate", str(gold), str(system)]) == 2, name
        err = capsys.readouterr().err
        assert err.startswith("barley evaluate: error: ") and command_message in err and err.count("\n") == 1
    assert "it has 3 words and the gold sentence has 4" in str(pytest.raises(
        InputError, evaluate, gold, tmp_path / "fewer-words.conllu").value)
    assert ":2: sentence 1 differs" in str(pytest.raises(InputError, evaluate, gold,
                                                        tmp_path / "other-form.conllu").value)


def test_bad_treebank_input_to_evaluate_exits_2_without_traceback(tmp_path, capsys):
    gold = tmp_path / "gold.conllu"
    gold.write_text(text(HEARING))
    system = tmp_path / "system.conllu"
    system.write_text(text(HEARING).replace("\t7\tdet:def", "\t17\tdet:def"))
    assert main(["evaluate", str(gold), str(system)]) == 2
    err = capsys.readouterr().err
    assert err == (f"barley evaluate: error: {system}:6: HEAD 17 of word 6 is out of range (the sentence has 9 "
                   "words) (HEAD must be 0 (the root) or a word number 1..n)\n")
    gold.write_text(text(HEARING).replace("\t7\tdet:def", "\t_\tdet:def"))
    system.write_text(text(HEARING))
    assert main(["evaluate", str(gold), str(system)]) == 2
    assert f"{gold}:6: gold word 6 has no HEAD" in capsys.readouterr().err


def test_json_report_and_text_report(tmp_path, capsys):
    gold, system = tmp_path / "gold.conllu", tmp_path / "system.conllu"
    gold.write_text(text(HEARING, PUNCTUATION))
    system.write_text(text(changed(HEARING, w8=(3, "adv")), PUNCTUATION))
    assert main(["evaluate", str(gold), str(system), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("UAS", "LAS", "LASu", "LA", "UEM", "LEM", "NP_recall", "NP_precision", "tokens", "sentences"):
        assert key in result
    assert result["tokens"] == 13 and result["UAS"] == pytest.approx(100 * 12 / 13)
    assert result["UEM"] == 50.0 and result["punctuation"].startswith("included")
    assert main(["evaluate", str(gold), str(system), "--exclude-punct"]) == 0
    out = capsys.readouterr().out
    assert "punctuation: excluded: words with gold UPOS PUNCT" in out and "10 scored words" in out
    assert "NP recall" in out and "1 of 2 gold non-projective arcs" in out and "4-6" in out
    assert main(["evaluate", "--exclude-punct-form", str(gold), str(system), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["tokens"] == 10 and "eval.pl" in result["punctuation"]  # ".", "%" and "." left out


def test_python_api_takes_paths_or_sentences(tmp_path):
    gold, system = tmp_path / "gold.conllu", tmp_path / "system.conllu"
    gold.write_text(text(HEARING))
    system.write_text(text(changed(HEARING, w8=(3, "adv"))))
    from_paths = barley.evaluate(str(gold), system).as_dict()
    assert from_paths == barley.evaluate(conllu.read(gold), list(conllu.read(system))).as_dict()
    assert from_paths["UAS"] == pytest.approx(100 * 8 / 9)


def two_sided_binomial(b: int, c: int) -> float:
    n = b + c
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


@pytest.mark.parametrize(("b", "c", "expected", "method"), [
    (2, 8, 112 / 1024, "exact binomial"),  # 2 * (1 + 10 + 45) / 2^10
    (6, 18, two_sided_binomial(6, 18), "exact binomial"),  # 24 discordant words: still exact
    (7, 18, math.erfc(math.sqrt((11 - 1) ** 2 / 25 / 2)), "chi-square with continuity correction"),
    (30, 10, math.erfc(math.sqrt(361 / 40 / 2)), "chi-square with continuity correction"),  # (|30-10|-1)^2/40
    (0, 0, 1.0, "no discordant words"),
])
def test_mcnemar_against_hand_computed_values(b, c, expected, method):
    both, neither = 50, 7
    first = [True] * b + [False] * c + [True] * both + [False] * neither
    second = [False] * b + [True] * c + [True] * both + [False] * neither
    result = mcnemar(first, second)
    assert (result.only_first, result.only_second, result.method) == (b, c, method)
    assert result.p_value == pytest.approx(expected, rel=1e-9)


def test_compare_prints_discordant_counts_and_p_value(tmp_path, capsys):
    gold, system, other = (tmp_path / f"{name}.conllu" for name in ("gold", "system", "other"))
    gold.write_text(text(HEARING, PUNCTUATION))
    system.write_text(text(changed(HEARING, w8=(3, "adv")), PUNCTUATION))
    other.write_text(text(changed(HEARING, w1=(3, "x"), w2=(1, "x"), w5=(3, "x")), PUNCTUATION))
    assert main(["evaluate", str(gold), str(system), "--compare", str(other)]) == 0
    out = capsys.readouterr().out
    # SYSTEM is right only on 1, 2, 5; OTHER only on 8. Exact binomial: 2 * P(X <= 1 | 4, 1/2) = 2 * 5/16.
    assert "3 words right only in SYSTEM, 1 right only in OTHER; p = 0.625 (exact binomial)" in out
    assert main(["evaluate", str(gold), str(system), "--compare", str(other), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["compare"]
    assert (result["only_system_correct"], result["only_other_correct"], result["p_value"]) == (3, 1, 0.625)


# --- A corrupted real treebank against an independent, deliberately plain scorer. ---

def subtree(heads: list[int], node: int) -> set[int]:
    inside = {node}
    changed_any = True
    while changed_any:
        changed_any = False
        for d in range(1, len(heads)):
            if d not in inside and heads[d] in inside:
                inside.add(d)
                changed_any = True
    return inside


def brute_nonprojective(heads: list[int]) -> set[int] | None:
    """Words d whose arc heads[d] -> d is non-projective (Nivre 2008, Def. 3); None if not a tree."""
    n = len(heads) - 1
    ancestors = {}
    for k in range(1, n + 1):
        path, node = [], k
        while node != 0:
            if node in path or not 0 <= heads[node] <= n:
                return None
            path.append(node)
            node = heads[node]
        ancestors[k] = set(path) | {0}
    return {d for d in range(1, n + 1)
            if any(heads[d] not in ancestors[k] for k in range(min(heads[d], d) + 1, max(heads[d], d)))}


def reference_scores(gold_path, system_path, exclude_punct: bool) -> dict:
    totals = dict(words=0, head=0, las=0, lasu=0, label=0, uem=0, lem=0, sentences=0,
                  np_gold=0, np_gold_ok=0, np_system=0, np_system_ok=0)
    bins = {}
    for gold, system in zip(conllu.read(gold_path), conllu.read(system_path), strict=True):
        gold_heads = [0] + [int(w[HEAD]) for w in gold.words]
        system_heads = [0] + [int(w[HEAD]) for w in system.words]
        gold_np = brute_nonprojective(gold_heads) or set()
        system_np = brute_nonprojective(system_heads) or set()
        all_heads = all_labels = True
        totals["sentences"] += 1
        for i, (g, s) in enumerate(zip(gold.words, system.words), start=1):
            assert g[FORM] == s[FORM]
            if exclude_punct and g[UPOS] == "PUNCT":
                continue
            head_ok = g[HEAD] == s[HEAD]
            las_ok = head_ok and g[DEPREL] == s[DEPREL]
            totals["words"] += 1
            totals["head"] += head_ok
            totals["las"] += las_ok
            totals["lasu"] += head_ok and g[DEPREL].split(":")[0] == s[DEPREL].split(":")[0]
            totals["label"] += g[DEPREL] == s[DEPREL]
            all_heads &= head_ok
            all_labels &= las_ok
            if i in gold_np:
                totals["np_gold"] += 1
                totals["np_gold_ok"] += las_ok
            if i in system_np:
                totals["np_system"] += 1
                totals["np_system_ok"] += las_ok
            length = abs(gold_heads[i] - i) if gold_heads[i] else 0
            name = ("root" if length == 0 else "1" if length == 1 else "2-3" if length <= 3 else
                    "4-6" if length <= 6 else "7-10" if length <= 10 else "11+")
            counts = bins.setdefault(name, [0, 0, 0])
            counts[0] += 1
            counts[1] += head_ok
            counts[2] += las_ok
        totals["uem"] += all_heads
        totals["lem"] += all_labels
    return totals | {"bins": bins}


def corrupt(path, out, seed: int) -> int:
    """Change the head or label (or both) of about 10% of the words; new heads keep the sentence a tree.

    Random heads outside the word's subtree make many arcs non-projective. Returns how many were changed.
    """
    rng = random.Random(seed)
    labels = sorted({w[DEPREL] for s in conllu.read(path) for w in s.words})
    changed_words = 0
    result = []
    for sentence in conllu.read(path):
        heads = [int(h) for h in sentence.heads()]
        deprels = sentence.deprels()
        for d in range(1, len(heads)):
            if rng.random() >= 0.1:
                continue
            changed_words += 1
            what = rng.choice(["head", "label", "both"])
            if what != "label":
                choices = [h for h in range(len(heads)) if h not in subtree(heads, d) and h != heads[d]]
                heads[d] = rng.choice(choices) if choices else heads[d]
            if what != "head":
                deprels[d] = rng.choice(labels)
        sentence.set_tree(heads, deprels)
        result.append(sentence)
    conllu.write(result, out)
    return changed_words


@pytest.fixture(scope="module")
def corrupted(tmp_path_factory):
    """Latin Perseus test (6.8% non-projective arcs) and a corrupted copy of it."""
    gold = ud_file("la_perseus-ud-test.conllu")
    system = tmp_path_factory.mktemp("evaluate") / "corrupted.conllu"
    assert corrupt(gold, system, seed=2006) > 1000
    return gold, system


@pytest.mark.parametrize("exclude_punct", [False, True], ids=["punct-scored", "punct-excluded"])
def test_corrupted_real_file_matches_an_independent_scorer(corrupted, capsys, exclude_punct):
    gold, system = corrupted
    assert main(["evaluate", str(gold), str(system), "--json", *(["--exclude-punct"] if exclude_punct else [])]) == 0
    result = json.loads(capsys.readouterr().out)
    expected = reference_scores(gold, system, exclude_punct)
    words = expected["words"]
    assert (result["tokens"], result["sentences"]) == (words, expected["sentences"])
    for key, count in (("UAS", "head"), ("LAS", "las"), ("LASu", "lasu"), ("LA", "label")):
        assert result[key] == pytest.approx(100 * expected[count] / words, abs=1e-9), key
    assert result["UEM"] == pytest.approx(100 * expected["uem"] / expected["sentences"], abs=1e-9)
    assert result["LEM"] == pytest.approx(100 * expected["lem"] / expected["sentences"], abs=1e-9)
    assert (result["NP_gold"], result["NP_gold_correct"]) == (expected["np_gold"], expected["np_gold_ok"])
    assert (result["NP_system"], result["NP_system_correct"]) == (expected["np_system"], expected["np_system_ok"])
    assert result["NP_recall"] == pytest.approx(100 * expected["np_gold_ok"] / expected["np_gold"], abs=1e-9)
    assert result["NP_precision"] == pytest.approx(100 * expected["np_system_ok"] / expected["np_system"], abs=1e-9)
    assert result["NP_system"] > result["NP_gold"]  # the corruption did add non-projective arcs
    assert 0 < result["NP_recall"] < 100 and 0 < result["NP_precision"] < 100
    for name, (count, head_ok, las_ok) in expected["bins"].items():
        row = result["by_length"][name]
        assert row["words"] == count and row["UAS"] == pytest.approx(100 * head_ok / count, abs=1e-9)
        assert row["LAS"] == pytest.approx(100 * las_ok / count, abs=1e-9)
    assert sum(row["words"] for row in result["by_length"].values()) == words
