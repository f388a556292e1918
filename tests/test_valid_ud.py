"""UD-valid output by construction (``barley parse --valid-ud``, :mod:`barley.valid_ud`).

* each rule on a small constructed case, for the graph reconciliation and for the transition parsers'
  mending (:meth:`UDRules.finish`, labels weighed by their probabilities);
* the reconciled labelling is the best valid one (brute force over every labelling, random small
  trees, random tags and scores);
* on random sentences with random scores, graph decoding (arc masks, the tested decoders, then the
  reconciled labels) gives a tree that breaks no rule, and so does any tree mended by
  :meth:`UDRules.finish`;
* the shipped model's trees that already keep the rules are left byte for byte; without the option
  nothing changes.
"""

from __future__ import annotations

import itertools
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from random_trees import any_tree

from barley.decoders.decoding import decode
from barley.decoders.options import DecoderOptions
from barley.tree import check_tree
from barley.valid_ud import UNLIKELY, UDRules, ancestors, punctuation_projective, subtree

LABELS = ["root", "punct", "nsubj", "obj", "det", "aux", "conj", "dep", "advmod", "nsubj:outer", "fixed",
          "goeswith", "case", "nmod:poss"]
TAGS = ["NOUN", "VERB", "PUNCT", "DET", "AUX", "ADV", "PROPN", "PRON", "X", "PART"]
RULES = UDRules(LABELS)
L = {label: k for k, label in enumerate(LABELS)}


def word(upos: str, feats: str = "_", lemma: str = "w") -> list[str]:
    return ["1", "w", lemma, upos, "_", feats, "_", "_", "_", "_"]


def scores_for(n: int, preferred: dict[int, list[str]]) -> np.ndarray:
    """Label scores rows 0..n: each word's ``preferred`` labels first (10, 9, ...), the rest 0."""
    scores = np.zeros((n + 1, len(LABELS)))
    for d, labels in preferred.items():
        for rank, label in enumerate(labels):
            scores[d, L[label]] = 10.0 - rank
    return scores


def names(label_ids: list[int]) -> list[str]:
    return [LABELS[k] for k in label_ids[1:]]


# --- the rules, one by one: graph reconciliation -----------------------------------------------

def test_one_subject_per_head_keeps_the_better_one():
    words = [word("NOUN"), word("VERB"), word("NOUN")]
    heads = [-1, 2, 0, 2]
    scores = scores_for(3, {1: ["nsubj", "dep"], 2: ["root"], 3: ["nsubj", "obj"]})
    scores[3, L["nsubj"]] = 9.5  # word 3 is the weaker subject
    assert names(RULES.reconcile(heads, scores, words)) == ["nsubj", "root", "obj"]


def test_outer_subject_does_not_count_and_one_object_per_head():
    words = [word("NOUN"), word("VERB"), word("NOUN"), word("NOUN")]
    heads = [-1, 2, 0, 2, 2]
    scores = scores_for(4, {1: ["nsubj:outer"], 2: ["root"], 3: ["obj", "advmod", "dep"], 4: ["obj", "nsubj"]})
    assert names(RULES.reconcile(heads, scores, words)) == ["nsubj:outer", "root", "obj", "nsubj"]


def test_a_function_word_takes_no_dependent_it_may_not_have():
    # word 2 would be aux, but it heads word 1 (a noun the scores want as nsubj): aux may not have it
    words = [word("NOUN"), word("AUX"), word("VERB")]
    heads = [-1, 2, 3, 0]
    scores = scores_for(3, {1: ["nsubj", "dep"], 2: ["aux", "dep"], 3: ["root"]})
    labels = names(RULES.reconcile(heads, scores, words))
    assert labels[1] != "aux" or labels[0] in ("punct", "conj", "fixed", "goeswith")
    assert labels == ["nsubj", "dep", "root"]


def test_negation_may_modify_a_function_word_but_not_punctuation():
    words = [word("PART", "Polarity=Neg"), word("AUX"), word("VERB")]
    scores = scores_for(3, {1: ["advmod"], 2: ["aux"], 3: ["root"]})
    assert names(RULES.reconcile([-1, 2, 3, 0], scores, words)) == ["advmod", "aux", "root"]
    words[1] = word("PUNCT")
    scores = scores_for(3, {1: ["advmod"], 2: ["punct"], 3: ["root"]})
    assert RULES.reconcile([-1, 2, 3, 0], scores, words) is None  # a PUNCT word is punct, which heads no advmod


def test_left_to_right_relations_and_root():
    words = [word("NOUN"), word("CCONJ"), word("NOUN")]
    heads = [-1, 3, 3, 0]  # word 1 before its head: conj must not be chosen
    scores = scores_for(3, {1: ["conj", "dep"], 2: ["root", "dep"], 3: ["dep", "root"]})
    assert names(RULES.reconcile(heads, scores, words)) == ["dep", "dep", "root"]


def test_relation_and_upos_agree():
    words = [word("NOUN"), word("VERB"), word("PUNCT"), word("DET"), word("NOUN")]
    heads = [-1, 2, 0, 2, 5, 2]
    scores = scores_for(5, {1: ["advmod", "punct", "det", "dep"], 2: ["root"], 3: ["dep", "punct"],
                            4: ["advmod", "det"], 5: ["obj"]})
    assert names(RULES.reconcile(heads, scores, words)) == ["dep", "root", "punct", "advmod", "obj"]
    words[3] = word("NOUN")  # advmod is refused on a NOUN, det too
    assert names(RULES.reconcile(heads, scores, words))[3] == "dep"


def test_fixed_and_goeswith_need_their_tags():
    words = [word("PROPN"), word("ADP"), word("X", lemma="_"), word("NOUN", "Typo=Yes")]
    heads = [-1, 0, 1, 4, 1]
    scores = scores_for(4, {1: ["root"], 2: ["fixed", "case"], 3: ["goeswith", "dep"], 4: ["dep"]})
    labels = names(RULES.reconcile(heads, scores, words))
    assert labels[1] == "case"  # no fixed under a PROPN
    assert labels[2] == "dep"  # goeswith needs the head after... no: word 3 precedes its head 4
    words[2] = word("X", lemma="_")
    heads = [-1, 0, 1, 1, 3]
    scores = scores_for(4, {1: ["root"], 2: ["case"], 3: ["dep"], 4: ["goeswith", "dep"]})
    assert names(RULES.reconcile(heads, scores, words))[3] == "dep"  # the head lacks Typo=Yes
    words = [word("PROPN"), word("ADP"), word("NOUN", "Typo=Yes"), word("X", lemma="_")]
    assert names(RULES.reconcile(heads, scores, words))[3] == "goeswith"


def test_punctuation_heads_only_punctuation():
    words = [word("NOUN"), word("PUNCT"), word("PUNCT"), word("VERB")]
    arc = np.zeros((5, 5))
    masked = RULES.mask_arcs(arc, words)
    assert masked[2, 1] == -np.inf and masked[2, 4] == -np.inf and masked[2, 3] == 0 and masked[0, 1] == 0
    assert masked[1, 2] == 0 and masked[4, 2] == 0
    only = [word("PUNCT"), word("PUNCT")]
    assert np.array_equal(RULES.mask_arcs(np.zeros((3, 3)), only), np.zeros((3, 3)))


# --- the reconciled labelling is the best valid one -----------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("seed", range(60))
def test_reconcile_is_the_best_valid_labelling(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 4)
    labels = ["root", "punct", "nsubj", "obj", "aux", "conj", "dep", "advmod"]
    rules = UDRules(labels)
    heads = any_tree(rng.randint, n, True)
    words = [word(rng.choice(TAGS), rng.choice(["_", "Polarity=Neg"])) for _ in range(n)]
    scores = np.array([[rng.uniform(-3, 3) for _ in labels] for _ in range(n + 1)])
    best, best_value = None, -np.inf
    for labelling in itertools.product(range(len(labels)), repeat=n):
        label_ids = [-1, *labelling]
        if not rules.violations(heads, label_ids, words):
            value = sum(scores[d, label_ids[d]] for d in range(1, n + 1))
            if value > best_value:
                best, best_value = label_ids, value
    found = rules.reconcile(heads, scores, words)
    if best is None:
        assert found is None
    else:
        assert found is not None and not rules.violations(heads, found, words)
        assert sum(scores[d, found[d]] for d in range(1, n + 1)) == pytest.approx(best_value)


# --- random sentences, random scores: trees that break no rule -------------------------------------

def random_words(rng: random.Random, n: int) -> list[list[str]]:
    return [word(rng.choice(TAGS), rng.choice(["_", "_", "Polarity=Neg", "Poss=Yes", "Typo=Yes"]),
                 rng.choice(["w", "_"])) for _ in range(n)]


@pytest.mark.parametrize("decoder", ["mst", "eisner"])
@pytest.mark.parametrize("seed", range(40))
def test_graph_decoding_with_the_rules_gives_valid_trees(decoder, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 15))
    words = random_words(random.Random(seed), n)
    arc = rng.normal(size=(n + 1, n + 1))
    arc[:, 0] = -np.inf
    np.fill_diagonal(arc, -np.inf)
    masked = RULES.mask_arcs(arc, words)
    heads = decode(DecoderOptions(decoder=decoder, single_root=True), masked)[0]
    heads = [int(h) for h in heads]
    assert check_tree(heads, single_root=True) is None
    label_ids = RULES.reconcile(heads, rng.normal(size=(n + 1, len(LABELS))), words)
    assert label_ids is not None and RULES.violations(heads, label_ids, words) == []


def random_tree(rng: random.Random, n: int) -> list[int]:
    """A random tree over nodes 0..n (several words may hang from the root node)."""
    heads = [-1] + [0] * n
    for d in rng.sample(range(1, n + 1), n)[1:]:  # each word under an earlier-placed one
        heads[d] = rng.choice([h for h in range(1, n + 1) if h != d and d not in ancestors(heads, h)] or [0])
    return heads


@pytest.mark.parametrize("seed", range(100))
def test_finish_weighs_labels_by_their_probabilities(seed):
    """With each word's label log-probabilities, :meth:`UDRules.finish` moves the same words as without
    them and takes, among the labellings that keep every rule, one at least as probable as the
    labelling with the fewest changes; a word without probabilities (a NaN row) counts one per change."""
    rng = random.Random(seed)
    n = rng.randint(1, 10)
    words = random_words(rng, n)
    heads = random_tree(rng, n)
    label_ids = [-1] + [rng.randrange(len(LABELS)) for _ in range(n)]
    log_probs = np.log(np.random.default_rng(seed).dirichlet(np.ones(len(LABELS)) * 0.3, size=n + 1))
    log_probs[0] = np.nan
    if n > 2:
        log_probs[rng.randint(1, n)] = np.nan  # a word finalize attached: no step, no probabilities
    fewest = RULES.finish(heads, label_ids, words)
    weighed = RULES.finish(heads, label_ids, words, label_log_probs=log_probs)
    assert weighed[0] == fewest[0] and check_tree(weighed[0], single_root=False) is None
    assert RULES.violations(*weighed, words) == []
    strays = RULES.strays(heads, list(label_ids), words)

    def weight(labels: list[int]) -> float:
        return sum(max(log_probs[d, k], UNLIKELY) if not np.isnan(log_probs[d]).any() else -float(k != strays[d])
                   for d, k in enumerate(labels) if d)

    assert weight(weighed[1]) >= weight(fewest[1]) - 1e-9


def test_finish_relabels_the_less_likely_of_two_subjects():
    """Two subjects of one verb: the one whose other label is nearly as likely gives way."""
    words = [word("NOUN"), word("VERB"), word("NOUN")]
    heads, label_ids = [-1, 2, 0, 2], [-1, L["nsubj"], L["root"], L["nsubj"]]
    log_probs = np.full((4, len(LABELS)), np.log(1e-4))
    log_probs[0] = np.nan
    log_probs[1, L["nsubj"]], log_probs[1, L["obj"]] = np.log(0.9), np.log(0.05)
    log_probs[2, L["root"]] = 0.0
    log_probs[3, L["nsubj"]], log_probs[3, L["obj"]] = np.log(0.5), np.log(0.45)
    assert names(RULES.finish(heads, label_ids, words)[1]).count("nsubj") == 1
    assert names(RULES.finish(heads, label_ids, words, label_log_probs=log_probs)[1]) == ["nsubj", "root", "obj"]
    log_probs[[1, 3]] = log_probs[[3, 1]]  # now word 1 is the doubtful one
    assert names(RULES.finish(heads, label_ids, words, label_log_probs=log_probs)[1]) == ["obj", "root", "nsubj"]


@pytest.mark.parametrize("seed", range(200))
def test_finish_mends_any_tree_and_keeps_the_fixed_words(seed):
    """Any tree with any labels comes out of :meth:`UDRules.finish` a tree, the heads of the ``fixed``
    words unchanged, each moved word under one of its former ancestors but not the root node, and —
    with no fixed word — keeping every rule."""
    rng = random.Random(seed)
    n = rng.randint(1, 12)
    words = random_words(rng, n)
    heads = random_tree(rng, n)
    assert check_tree(heads, single_root=False) is None
    label_ids = [-1] + [rng.randrange(len(LABELS)) for _ in range(n)]
    fixed = [d for d in range(1, n + 1) if rng.random() < 0.2 and heads[d] != 0]
    mended, mended_labels = RULES.finish(heads, label_ids, words, fixed)
    assert check_tree(mended, single_root=False) is None
    assert all(mended[d] == heads[d] for d in fixed)
    assert all(mended[d] == heads[d] or mended[d] in ancestors(heads, d) for d in range(1, n + 1))
    assert mended.count(0) == heads.count(0)  # never lifted to the root node: no new root
    if not fixed:  # a fixed word under a word that may not take it stays: the given arc wins
        assert RULES.violations(mended, mended_labels, words) == []
    if not any(RULES.violations(heads, label_ids, words)):
        assert (mended, mended_labels) == (heads, label_ids)


# --- punctuation attached projectively ------------------------------------------------------------

def gap_free_and_causing_nothing(heads: list[int], word: int) -> bool:
    """The validator's two punctuation tests restated from their definitions (not line by line): no
    word strictly between ``word`` and its head outside the head's subtree; no word x on the
    head's side between them, or beyond ``word`` away from the head, whose arc crosses ``word``
    while its head is not above ``word`` (heads between ``word`` and its head only)."""
    head = heads[word]
    if any(x not in subtree(heads, head) for x in range(min(word, head) + 1, max(word, head))):
        return False
    above = ancestors(heads, word)
    for x in range(1, len(heads)):
        h = heads[x]
        if x == word or h in above or h == word:
            continue
        crosses = min(x, h) < word < max(x, h)
        on_own_side = (min(word, head) < x < max(word, head)) or (x > word if head < word else x < word)
        head_beyond = h > head if head < word else h < head
        if crosses and on_own_side and head_beyond:
            return False
    return True


@pytest.mark.parametrize("seed", range(200))
def test_punctuation_test_is_the_validators(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 9)
    heads = any_tree(rng.randint, n, True)
    for word in range(1, n + 1):
        if heads[word]:
            assert punctuation_projective(heads, word, heads[word]) == gap_free_and_causing_nothing(heads, word)


@pytest.mark.parametrize("seed", range(60))
def test_attached_punctuation_passes_and_keeps_a_tree(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 12)
    heads = any_tree(rng.randint, n, True)
    labels = [-1] + [L["root"] if heads[d] == 0 else L[rng.choice(["punct", "punct", "dep", "nsubj"])]
                     for d in range(1, n + 1)]
    arc = np.random.default_rng(seed).normal(size=(n + 1, n + 1))
    moved = RULES.attach_punctuation(heads, labels, arc, fixed=[2])
    assert check_tree(moved, single_root=True) is None and moved[2] == heads[2]
    for d in range(1, n + 1):
        if moved[d] != heads[d]:
            assert LABELS[labels[d]] == "punct" and punctuation_projective(moved, d, moved[d])
        if LABELS[labels[d]] != "punct":
            assert moved[d] == heads[d]


# --- the official validator (optional) --------------------------------------------------------------

VALIDATOR = os.environ.get("BARLEY_UD_VALIDATOR")
STRUCTURAL = ("too-many-subjects", "too-many-objects", "leaf-", "right-to-left-", "0-is-not-root", "root-is-not-0",
              "rel-upos-", "upos-rel-punct", "punct-is-nonproj", "punct-causes-nonproj")


@pytest.mark.skipif(not VALIDATOR or not Path(VALIDATOR).is_file(),
                    reason="UD's validator is not given: set BARLEY_UD_VALIDATOR to UniversalDependencies/tools' "
                           "validate.py (it needs udapi and regex)")
def test_the_official_validator_finds_nothing_structural(tmp_path):
    """Random sentences with random tags and scores, decoded as the joint network does with the
    rules (arcs masked, Chu-Liu-Edmonds, labels reconciled, punctuation attached), pass
    ``validate.py --level 3`` on every rule that ``--valid-ud`` keeps."""
    labels = LABELS[:10] + ["obl", "nmod", "cc", "flat", "appos", "mark", "cop", "nummod", "expl", "compound"]
    rules = UDRules(labels)
    tags = ["NOUN", "VERB", "PUNCT", "DET", "AUX", "ADV", "PROPN", "PRON", "ADJ", "CCONJ", "ADP", "NUM", "SCONJ"]
    lines = []
    for seed in range(300):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 16))
        forms = [f"w{k}" for k in range(1, n + 1)]
        words = [["_", form, form, str(rng.choice(tags)), "_", str(rng.choice(["_", "Polarity=Neg", "Poss=Yes"])),
                  "_", "_", "_", "_"] for form in forms]
        arc = rng.normal(size=(n + 1, n + 1))
        arc[:, 0] = -np.inf
        np.fill_diagonal(arc, -np.inf)
        masked = rules.mask_arcs(arc, words)
        heads = [int(h) for h in decode(DecoderOptions(decoder="mst", single_root=True),
                                        masked)[0]]
        label_ids = rules.reconcile(heads, rng.normal(size=(n + 1, len(labels))), words)
        heads = rules.attach_punctuation(heads, label_ids, masked)
        lines += [f"# sent_id = s{seed}", f"# text = {' '.join(forms)}"]
        lines += ["\t".join([str(d), *words[d - 1][1:6], str(heads[d]), labels[label_ids[d]], "_", "_"])
                  for d in range(1, n + 1)] + [""]
    path = tmp_path / "random.conllu"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = subprocess.run([sys.executable, VALIDATOR, "--lang", "ud", "--level", "3", "--max-err", "0",
                          "--no-warnings", str(path)], capture_output=True, text=True, cwd=Path(VALIDATOR).parent)
    assert "PASSED" in run.stderr or "FAILED" in run.stderr, run.stderr[-2000:]
    found = [line for line in run.stderr.splitlines() if any(f" {test}" in line for test in STRUCTURAL)]
    assert found == []


# --- the shipped model ------------------------------------------------------------------------------

@pytest.mark.slow
def test_shipped_model_leaves_valid_trees_byte_for_byte():
    from barley.models.shipped import default_model_path
    from barley.pipeline import Pipeline

    text = ("The cat sat on the mat. I gave him a book and she gave him two.\n\n"
            "Peter, my friend, is here. It works, does n't it? Go home now!\n")
    pipeline = Pipeline.load(default_model_path())
    plain = list(pipeline.parse(text, valid_ud=False))
    valid = list(pipeline.parse(text, valid_ud=True))
    default = list(pipeline.parse(text))  # the joint network keeps the rules by default
    again = list(pipeline.parse(text, valid_ud=False))  # the option holds for one call
    assert [s.to_text() for s in default] == [s.to_text() for s in valid]
    rules = UDRules(pipeline["joint"].parser.annotator.tables.labels)
    assert [s.to_text() for s in again] == [s.to_text() for s in plain]
    for before, after in zip(plain, valid):
        if not rules.violations(list(before.heads()), [-1] + [rules.labels.index(d) for d in before.deprels()[1:]],
                                before.words):
            assert before.to_text() == after.to_text()
        assert rules.violations(list(after.heads()), [-1] + [rules.labels.index(d) for d in after.deprels()[1:]],
                                after.words) == []


@pytest.mark.slow
def test_given_arcs_win_over_the_rules():
    """A given arc from a PUNCT word to a noun is kept (the rules' arc mask leaves it), and counted as a
    sentence the rules could not hold."""
    from barley.conllu import read_lines
    from barley.constraints import ArcOptions
    from barley.models.shipped import default_model_path
    from barley.pipeline import Pipeline

    rows = ["1\tHello", "2\t,", "3\tworld\t_\t_\t_\t_\t2\tdep", "4\t."]
    lines = ["# sent_id = a\n"] + [(row + "\t_" * (10 - len(row.split("\t"))))[:] + "\n" for row in rows] + ["\n"]
    pipeline = Pipeline.load(default_model_path())
    parsed = list(pipeline.parse(list(read_lines(lines)), arcs=ArcOptions(keep=True), valid_ud=True))[0]
    assert parsed.words[2][6:8] == ["2", "dep"] and parsed.words[1][3] == "PUNCT"
    assert pipeline.stats.not_valid == 1


KEEPING = ["arc-eager", "arc-hybrid", "arc-standard", "covington-nonprojective", "planar", "2-planar", "swap-eager",
           "neural-transition", "biaffine", "joint"]
REFUSING = ["arc-eager+pseudo-projective", "graph-mst"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", KEEPING + REFUSING)
def test_every_parser_keeps_the_rules_or_refuses_in_one_line(kind, tmp_path):
    """Trained on a toy language, every kind that keeps the rules parses trees that break none of them;
    the others refuse ``valid_ud=True`` and parse as before without it."""
    from toy_models import model, toy

    from barley.conllu import read
    from barley.errors import BarleyError

    train_path, test_path = toy(tmp_path)
    pipeline = model(kind, train_path)
    sentences = list(read(str(test_path)))
    if kind in REFUSING:
        with pytest.raises(BarleyError, match="valid-ud"):
            list(pipeline.parse([s.copy() for s in sentences], valid_ud=True))
        assert all(check_tree(s.heads().tolist(), True) is None for s in pipeline.parse([s.copy() for s in sentences]))
        return
    parsed = list(pipeline.parse([s.copy() for s in sentences], valid_ud=True))
    labels = sorted({word[7] for sentence in read(str(train_path)) for word in sentence.words})
    rules = UDRules(labels)
    broken = [s.sent_id for s in parsed
              if rules.violations(s.heads().tolist(), [-1] + [labels.index(d) for d in s.deprels()[1:]], s.words)]
    assert all(check_tree(s.heads().tolist(), True) is None for s in parsed)
    assert broken == []


def test_the_service_field_says_true_false_or_the_default():
    from barley.errors import BarleyError
    from barley.service.request import read_request

    def asked(body: bytes, kind: str = "application/json"):
        return read_request(kind, b"", body)["valid_ud"]

    assert asked(b'{"data": "x"}') is None and asked(b'{"data": "x", "valid_ud": null}') is None
    assert asked(b'{"data": "x", "valid_ud": true}') is True and asked(b'{"data": "x", "valid_ud": false}') is False
    assert asked(b"data=x&valid_ud=no", "application/x-www-form-urlencoded") is False
    with pytest.raises(BarleyError, match="valid_ud"):
        asked(b"data=x&valid_ud=maybe", "application/x-www-form-urlencoded")
    with pytest.raises(BarleyError, match="valid_ud"):
        asked(b'{"data": "x", "valid_ud": "yes"}')


def test_a_word_finalize_put_under_the_root_word_gets_a_label_but_root_whatever_labels_the_model_knows():
    """Without parataxis, dep or a free label the stray word takes the first label but root (it took None);
    a model that knows root alone leaves it root."""
    words = [word("VERB", "_", "_"), word("NOUN", "_", "_")]
    restricted = UDRules(["root", "nsubj", "obj"])
    assert restricted.strays([-1, 0, 1], [-1, 0, 0], words) == [-1, 0, 1]
    assert UDRules(["root"]).strays([-1, 0, 1], [-1, 0, 0], words) == [-1, 0, 0]
