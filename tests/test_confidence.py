"""Confidence (barley.confidence): tree marginals against brute force, the transition parsers'
probabilities on both paths, what ``barley parse --confidence`` writes (and does not change),
``barley calibrate``, and the calibration ``barley evaluate`` reports."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest
from random_treebanks import random_sentences

from barley.cli import main
from barley.confidence import (
    DEPREL_PROB,
    HEAD_PROB,
    Calibrated,
    Confidence,
    MoveSteps,
    annotate,
    auroc,
    calibration,
    calibration_of,
    fit_head_map,
    fit_temperature,
    softmax,
)
from barley.conllu import MISC, read, read_lines
from barley.evaluation.attachment import evaluate
from barley.features.extract import list_element
from barley.decoders.marginals import head_softmax, tree_marginals
from barley.head_model import (
    DISTANCES,
    FEATURE_SET,
    FEATURES,
    NUMBERS,
    RELATIONS,
    THRESHOLDS,
    UPOS_TAGS,
    HeadModel,
    features,
    fit,
)
from barley.kinds import train
from barley.systems import get_system, system_names
from barley.transition import fast
from barley.transition.loop import ParseStats, parse_batch
from barley.tree import check_tree

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out


def brute_force_marginals(arc: np.ndarray, single_root: bool) -> np.ndarray:
    """Every head assignment of the words enumerated; the trees' weights exp(Σ arc) summed per arc."""
    n = len(arc) - 1
    totals, partition = np.zeros((n + 1, n + 1)), 0.0
    for assignment in itertools.product(range(n + 1), repeat=n):
        heads = [-1, *assignment]
        if check_tree(heads, single_root) is not None:
            continue
        weight = np.exp(sum(arc[heads[d], d] for d in range(1, n + 1)))
        partition += weight
        for d in range(1, n + 1):
            totals[heads[d], d] += weight
    return totals / partition


@pytest.mark.parametrize("single_root", [False, True])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_tree_marginals_are_the_brute_force_sums_over_every_tree(n, single_root):
    rng = np.random.default_rng(n)
    for _ in range(5):
        arc = rng.normal(scale=3.0, size=(n + 1, n + 1))
        arc[:, 0] = -np.inf
        np.fill_diagonal(arc, -np.inf)
        if n >= 3:
            arc[1, 2] = -np.inf  # an impossible arc keeps probability 0
        expected = brute_force_marginals(arc, single_root)
        found = tree_marginals(arc, single_root)
        assert np.allclose(found[:, 1:], expected[:, 1:], atol=1e-9)
        assert np.allclose(found[:, 1:].sum(axis=0), 1.0)
        for temperature in (0.5, 2.0):
            assert np.allclose(tree_marginals(arc, single_root, temperature)[:, 1:],
                               brute_force_marginals(arc / temperature, single_root)[:, 1:], atol=1e-9)


def test_tree_marginals_of_a_long_sentence_with_large_scores_stay_finite():
    rng = np.random.default_rng(3)
    arc = rng.normal(scale=40.0, size=(120, 120))
    arc[:, 0] = -np.inf
    found = tree_marginals(arc, True)
    assert np.isfinite(found).all() and np.allclose(found[:, 1:].sum(axis=0), 1.0)
    assert np.isclose(found[0].sum(), 1.0)  # one root word


def test_head_softmax_sums_to_one_per_word():
    arc = np.random.default_rng(0).normal(size=(6, 6))
    arc[:, 0] = -np.inf
    np.fill_diagonal(arc, -np.inf)
    probabilities = head_softmax(arc, 0.7)
    assert np.allclose(probabilities[:, 1:].sum(axis=0), 1.0) and (np.diag(probabilities)[1:] == 0).all()


@pytest.mark.parametrize("name", system_names())
def test_each_system_says_which_word_each_arc_move_attaches(name):
    """``attaches`` (read by the confidence on both paths) against ``apply``, on random legal walks."""
    rng = random.Random(name)
    for single_root in (False, True):
        system = get_system(name, single_root=single_root)
        for _ in range(200):
            state = system.initial(rng.randint(1, 9))
            while not system.is_terminal(state):
                move = rng.choice([m for m, legal in enumerate(system.legal(state)) if legal])
                address = system.attaches[move]
                expected = None if address is None else list_element(state, *address)
                before = list(state.heads)
                system.apply(state, move, 0 if system.labeled[move] else -1)
                attached = [d for d, (old, new) in enumerate(zip(before, state.heads)) if old != new]
                assert attached == ([] if expected is None else [expected])


def test_move_probabilities_by_hand():
    """Two moves, one word: it is refused once (P(attach) = 0.25), then attached (P = 0.5)."""
    class_moves = np.array([0, 1, 1])  # SHIFT, ARC:a, ARC:b
    arc_move_best = np.log([3.0, 1.0])  # SHIFT 3 : ARC 1 at the first step
    moves = np.array([arc_move_best, np.log([1.0, 1.0])])
    steps = MoveSteps(moves=moves, chosen=np.array([0, 1]), candidates=np.array([[-1, 1], [-1, 1]]),
                      label_scores=np.array([[0, 0, 0], [-np.inf, np.log(1.0), np.log(3.0)]]),
                      label_class=np.array([-1, 2]), class_moves=class_moves, words=np.array([1]))
    head, deprel = steps(1.0)
    assert np.allclose(head, [0.75 * 0.5]) and np.allclose(deprel, [0.75])


def test_label_log_probs_and_a_relabelled_word():
    """The label log-probabilities of the move taken (what UD's rules weigh labels by), NaN for the root
    row that no move attached; a word relabelled after the parse takes its new label's probability."""
    class_moves, class_labels = np.array([0, 1, 1]), np.array([-1, 0, 1])  # SHIFT, ARC:a, ARC:b
    steps = MoveSteps(moves=np.array([np.log([1.0, 1.0])]), chosen=np.array([1]), candidates=np.array([[-1, 1]]),
                      label_scores=np.array([[0, 0, 0], [-np.inf, np.log(1.0), np.log(3.0)]]),
                      label_class=np.array([-1, 2]), class_moves=class_moves, words=np.array([1]))
    log_probs = steps.label_log_probs(class_labels, 2)
    assert np.isnan(log_probs[0]).all() and np.allclose(np.exp(log_probs[1]), [0.25, 0.75])
    steps.relabel(np.array([1]), [0], class_labels)
    assert steps.label_class[1] == 1 and np.allclose(steps(1.0)[1], [0.25])


def treebank_lines(count: int, seed: int) -> list[str]:
    return [line for sentence in random_sentences(seed, count) for line in sentence.to_text().splitlines()]


@pytest.fixture(scope="module")
def treebank():
    return random_sentences(11, 150)


@pytest.mark.parametrize("system", system_names())
def test_transition_probabilities_are_probabilities_and_the_same_on_both_paths(system, treebank, monkeypatch):
    parser = train(treebank, system=system, learner="perceptron", epochs=2, log=lambda m: None)
    sentences = [s.copy() for s in treebank[:60]]
    evidence: list = []
    reference = parse_batch(parser, sentences, ParseStats(), evidence=evidence)
    head, deprel = evidence[0](1.0)
    words = sum(len(s) for s in sentences)
    assert head.shape == deprel.shape == (words,)
    assert ((0 <= head) & (head <= 1) & (0 < deprel) & (deprel <= 1)).all()
    sharper = evidence[0](0.1)[0]
    assert not np.allclose(sharper, head)
    if fast.loop_module() is None:
        pytest.skip("the compiled loop is not built here")
    compiled_evidence: list = []
    assert parser.compiled.parse_batch(sentences, ParseStats(), evidence=compiled_evidence) == reference
    for temperature in (1.0, 0.3):
        for ours, theirs in zip(compiled_evidence[0](temperature), evidence[0](temperature)):
            assert np.allclose(ours, theirs, rtol=1e-5)


def test_a_batch_with_more_scored_steps_than_room_is_parsed_again_with_room(treebank, monkeypatch):
    if fast.loop_module() is None:
        pytest.skip("the compiled loop is not built here")
    parser = train(treebank, system="covington-nonprojective", learner="perceptron", epochs=1, log=lambda m: None)
    sentences = [s.copy() for s in treebank[:40]]
    wide: list = []
    parser.compiled.parse_batch(sentences, ParseStats(), evidence=wide)
    monkeypatch.setattr(fast, "STEPS_PER_ROW", 0)
    narrow: list = []
    stats = ParseStats()
    parser.compiled.parse_batch(sentences, stats, evidence=narrow)
    assert all(np.array_equal(a, b) for a, b in zip(wide[0](1.0), narrow[0](1.0)))
    assert stats.sentences == len(sentences)  # counted once


def test_annotate_keeps_misc_and_replaces_its_own_entries():
    sentence = next(read_lines(["# text = a b", "1\ta\ta\tX\tX\t_\t0\troot\t_\tSpaceAfter=No",
                                "2\tb\tb\tX\tX\t_\t1\tdep\t_\t_", ""]))
    annotate(sentence, [0.9, 0.25], [0.5, 1.0], flag_below=0.3)
    annotate(sentence, [0.9, 0.25], [0.5, 1.0], flag_below=0.3)  # again: nothing doubled
    assert sentence.words[0][MISC] == "SpaceAfter=No|HeadProb=0.9000|DeprelProb=0.5000"
    assert sentence.words[1][MISC] == "HeadProb=0.2500|DeprelProb=1.0000|Doubtful=Yes"
    assert sentence.comments == ["# text = a b", "# confidence = 0.3500"]  # mean of 0.45 and 0.25


def test_calibration_of_a_crafted_set_by_hand():
    confidence = np.array([0.95, 0.95, 0.95, 0.95, 0.55, 0.55, 0.15, 1.0])
    correct = np.array([True, True, True, False, True, False, False, True])
    found = calibration(confidence, correct)
    # bins: 0.1-0.2 {0.15: wrong}, 0.5-0.6 {two, one right}, 0.9-1.0 {four 0.95, three right; 1.0 right}
    expected = (1 / 8) * abs(0 - 0.15) + (2 / 8) * abs(0.5 - 0.55) + (5 / 8) * abs(0.8 - 0.96)
    assert found.ece == pytest.approx(expected)
    # right heads' confidences vs wrong ones': pairs (right > wrong) + ties / 2, over 5 × 3
    # right 0.95 ×3: 2.5 each (a tie with the wrong 0.95); right 0.55: 1.5; right 1.0: 3 — of 5 × 3 pairs
    assert found.auroc == pytest.approx(12 / 15)
    assert auroc(np.array([0.2, 0.9]), np.array([False, True])) == 1.0
    assert auroc(np.array([0.2, 0.9]), np.array([True, True])) is None
    assert [row[2] for row in found.bins] == [0, 1, 0, 0, 0, 2, 0, 0, 0, 5]


def test_fit_temperature_recovers_the_temperature_that_made_the_data():
    rng = np.random.default_rng(5)
    scores = rng.normal(scale=3.0, size=(4000, 4))
    truth = softmax(scores, 2.0)[:, 0]
    correct = rng.random(4000) < truth
    temperature, _ = fit_temperature(lambda t: softmax(scores, t)[:, 0], correct)
    assert temperature == pytest.approx(2.0, rel=0.15)


def test_flag_below_must_be_a_probability():
    with pytest.raises(Exception, match="flag-below"):
        Confidence(flag_below=1.5)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("confidence")
    (folder / "train.conllu").write_text("\n".join(treebank_lines(200, 3)) + "\n", encoding="utf-8")
    (folder / "dev.conllu").write_text("\n".join(treebank_lines(60, 4)) + "\n", encoding="utf-8")
    assert main(["train", "--train", str(folder / "train.conllu"), "-m", str(folder / "m.barley"), "-a", "arc-eager",
                 "-l", "perceptron"]) == 0
    return folder


def _without_confidence(text: str) -> str:
    lines = []
    for line in text.splitlines():
        if line.startswith("# confidence = "):
            continue
        fields = line.split("\t")
        if len(fields) == 10:
            kept = [i for i in fields[9].split("|") if i.partition("=")[0] not in (HEAD_PROB, DEPREL_PROB, "Doubtful")]
            fields[9] = "|".join(kept) or "_"
        lines.append("\t".join(fields))
    return "\n".join(lines)


def test_parse_confidence_adds_only_probabilities_and_the_default_output_is_unchanged(files):
    plain, sure, flagged = (files / name for name in ("plain.conllu", "sure.conllu", "flagged.conllu"))
    common = ["parse", str(files / "dev.conllu"), "-m", str(files / "m.barley"), "-q"]
    assert main([*common, "-o", str(plain)]) == 0
    assert main([*common, "--confidence", "-o", str(sure)]) == 0
    assert main([*common, "--flag-below", "0.5", "-o", str(flagged), "--jobs", "2"]) == 0
    assert HEAD_PROB not in plain.read_text() and "# confidence" not in plain.read_text()
    assert _without_confidence(sure.read_text()) == _without_confidence(plain.read_text())
    sentences = list(read(sure))
    assert all(s.comments[-1].startswith("# confidence = ") for s in sentences)
    probabilities = [float(item.partition("=")[2]) for s in sentences for w in s.words
                     for item in w[MISC].split("|") if item.startswith(HEAD_PROB)]
    assert len(probabilities) == sum(len(s) for s in sentences) and all(0 <= p <= 1 for p in probabilities)
    doubtful = [w for s in read(flagged) for w in s.words if "Doubtful=Yes" in w[MISC]]
    low = [p for p in probabilities if p < 0.5]
    assert len(doubtful) == len(low)


def test_calibrate_stores_a_temperature_that_changes_probabilities_not_trees(files, capsys):
    calibrated = files / "calibrated.barley"
    assert main(["calibrate", str(files / "dev.conllu"), "-m", str(files / "m.barley"), "-o", str(calibrated),
                 "--min-map-words", "100"]) == 0
    assert "temperature" in capsys.readouterr().err
    from barley.models.archive import read_manifest

    entry = read_manifest(str(calibrated))["confidence"]
    assert entry["fitted_on"].startswith("word head likelihood, then a head model") and entry["temperature"] > 0
    assert len(entry["head_map"]["confidence"]) == len(entry["head_map"]["accuracy"]) >= 1
    assert len(entry["head_model"]["weights"]) == FEATURES and entry["head_model"]["features"] == FEATURE_SET
    assert main(["info", str(calibrated)]) == 0
    assert "confidence:  temperature " in capsys.readouterr().out
    before, after = files / "before.conllu", files / "after.conllu"
    for model, out in ((files / "m.barley", before), (calibrated, after)):
        assert main(["parse", str(files / "dev.conllu"), "-m", str(model), "-q", "--confidence", "-o", str(out)]) == 0
    assert [s.heads().tolist() for s in read(before)] == [s.heads().tolist() for s in read(after)]
    assert before.read_text() != after.read_text()
    gold = list(read(files / "dev.conllu"))
    nll = []
    for out in (before, after):
        found = evaluate(gold, list(read(out))).scores["calibration"]
        nll.append(found["ECE"])
    assert nll[1] <= nll[0] + 0.02  # fitted on the same data: calibrated at least about as well


def test_too_few_held_out_words_fit_no_head_map(files, capsys):
    """The toy dev set has fewer words than the default minimum: the temperature alone, said so."""
    calibrated = files / "few-words.barley"
    assert main(["calibrate", str(files / "dev.conllu"), "-m", str(files / "m.barley"), "-o", str(calibrated)]) == 0
    assert "no head model or map (" in capsys.readouterr().err
    from barley.models.archive import read_manifest

    entry = read_manifest(str(calibrated))["confidence"]
    assert "head_map" not in entry and "head_model" not in entry and "fewer than the 5000" in entry["head_map_left_out"]


def test_calibrate_temperature_only_stores_no_head_map(files, capsys):
    calibrated = files / "temperature-only.barley"
    assert main(["calibrate", str(files / "dev.conllu"), "-m", str(files / "m.barley"), "-o", str(calibrated),
                 "--temperature-only"]) == 0
    from barley.models.archive import read_manifest

    entry = read_manifest(str(calibrated))["confidence"]
    assert entry["fitted_on"] == "word head likelihood" and "head_map" not in entry and "head_model" not in entry


def test_the_head_map_is_isotonic_regression_through_its_blocks_means():
    """On words whose correctness follows a known curve, the map brings the ECE down, keeps the order
    of the words inside its range (AUROC within ties at the ends), and its knots match the isotonic
    fit of scikit-learn at the blocks' mean confidences."""
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(3)
    confidence = rng.random(20_000)
    correct = rng.random(20_000) < confidence ** 3  # over-confident: right far less often than said
    xs, ys = fit_head_map(confidence, correct)
    assert all(b > a for a, b in zip(xs, xs[1:])) and all(b >= a for a, b in zip(ys, ys[1:]))
    mapped = Calibrated(1.0, (xs, ys)).head([], confidence, confidence)
    assert calibration(confidence, correct).ece > 0.15 and calibration(mapped, correct).ece < 0.01
    assert auroc(mapped, correct) == pytest.approx(auroc(confidence, correct), abs=0.002)
    fitted = IsotonicRegression(y_min=0.0, y_max=1.0).fit(confidence, correct.astype(float)).predict(np.array(xs))
    assert np.allclose(fitted, ys)


def test_head_features_of_a_sentence_by_hand():
    """Word 2 of ``a b c`` (b → c, c the root, a → c): its numbers, thresholds, tags, distance and relation."""
    sentence = next(read_lines(["1\ta\ta\tDET\t_\t_\t3\tdet\t_\t_", "2\tb\tb\tADJ\t_\t_\t3\tamod:x\t_\t_",
                                "3\tc\tc\tNOUN\t_\t_\t0\troot\t_\t_", ""]))
    head, deprel = np.array([0.9, 0.6, 0.99]), np.array([1.0, 0.5, 1.0])
    table = features([sentence], head, deprel)
    assert table.shape == (3, FEATURES)
    p, q = np.log(head), np.log(deprel)
    numbers = dict(zip(NUMBERS, table[1]))
    assert numbers["log p"] == pytest.approx(p[1]) and numbers["log q"] == pytest.approx(q[1])
    assert numbers["log(1 + distance)"] == pytest.approx(np.log(2)) and numbers["root"] == 0
    assert numbers["head to the right"] == 1 and numbers["log p of the head"] == pytest.approx(p[2])
    assert numbers["log p of the word before"] == pytest.approx(p[0])
    assert numbers["log p of the word after"] == pytest.approx(p[2])
    assert numbers["mean log p of the sentence"] == pytest.approx(p.mean())
    assert numbers["least log p of the sentence"] == pytest.approx(p.min())
    assert numbers["the head's dependents"] == 2 and numbers["words with p < 0.9"] == 1
    rest = table[1, len(NUMBERS):]
    below, rest = rest[:len(THRESHOLDS)], rest[len(THRESHOLDS):]
    assert below.tolist() == [float(0.6 < t) for t in THRESHOLDS]
    upos, head_upos, rest = rest[:len(UPOS_TAGS)], rest[len(UPOS_TAGS):2 * len(UPOS_TAGS)], rest[2 * len(UPOS_TAGS):]
    assert UPOS_TAGS[int(np.argmax(upos))] == "ADJ" and upos.sum() == 1
    assert UPOS_TAGS[int(np.argmax(head_upos))] == "NOUN" and head_upos.sum() == 1
    assert rest[:DISTANCES].tolist() == [0, 1, 0, 0, 0, 0]
    assert RELATIONS[int(np.argmax(rest[DISTANCES:]))] == "amod"
    root = dict(zip(NUMBERS, table[2]))
    assert root["root"] == 1 and root["log p of the head"] == 0 and root["log p of the word after"] == 0
    assert table[2, -len(RELATIONS) - DISTANCES] == 1 and table[2, len(NUMBERS) + len(THRESHOLDS) + len(UPOS_TAGS):][
        :len(UPOS_TAGS)].sum() == 0  # the root: distance class 0, no head UPOS


def test_the_head_model_learns_what_the_parser_s_probability_misses():
    """Words whose head is wrong far more often when their head word was doubtful than their own
    probability says: the fitted model ranks the errors better than the probability alone, and
    keeps its outputs through its stored form."""
    rng = np.random.default_rng(5)
    sentences, heads, correct = [], [], []
    for k in range(400):
        n = int(rng.integers(3, 12))
        rows = [f"{i}\tw\tw\t{UPOS_TAGS[int(rng.integers(17))]}\t_\t_\t{0 if i == 1 else int(rng.integers(1, i))}"
                f"\t{'root' if i == 1 else RELATIONS[int(rng.integers(len(RELATIONS)))]}\t_\t_"
                for i in range(1, n + 1)]
        sentences.append(next(read_lines(rows + [""])))
        p = rng.uniform(0.5, 1.0, size=n)
        heads.append(p)
        head_of = [int(word[6]) for word in sentences[-1].words]
        for i in range(n):
            doubtful_head = head_of[i] > 0 and p[head_of[i] - 1] < 0.7
            correct.append(rng.random() < (0.3 if doubtful_head else p[i]))
    head = np.concatenate(heads)
    correct = np.array(correct)
    model = fit(sentences, head, np.ones_like(head), correct)
    modeled = model(sentences, head, np.ones_like(head))
    table = features(sentences, head, np.ones_like(head))  # the model picks its one-hot weights: the same sum
    assert np.allclose(modeled, 1.0 / (1.0 + np.exp(-(table @ model.weights + model.bias))))
    assert auroc(modeled, correct) > auroc(head, correct) + 0.05
    again = HeadModel.from_json(json.loads(json.dumps(model.to_json())))
    assert np.allclose(again(sentences, head, np.ones_like(head)), modeled)
    calibrated = calibration_of({"confidence": {"temperature": 1.0, "head_model": model.to_json()}})
    assert np.allclose(calibrated.head(sentences, head, np.ones_like(head)), modeled)


@pytest.mark.parametrize("entry, message", [
    ({"features": "other", "weights": [0.0] * FEATURES, "bias": 0.0}, "features"),
    ({"features": FEATURE_SET, "weights": [0.0] * (FEATURES - 1), "bias": 0.0}, "finite numbers"),
    ({"features": FEATURE_SET, "weights": [float("nan")] + [0.0] * (FEATURES - 1), "bias": 0.0}, "finite numbers"),
    ({"features": FEATURE_SET, "weights": [0.0] * FEATURES, "bias": "1"}, "finite numbers"),
    ({"features": FEATURE_SET, "weights": [True] * FEATURES, "bias": 0.0}, "finite numbers"),
    ([0.0], "features"),
])
def test_a_damaged_head_model_is_refused(entry, message):
    with pytest.raises(ValueError, match=message):
        calibration_of({"confidence": {"temperature": 1.0, "head_model": entry}})


def test_a_tree_distribution_floating_point_cannot_hold_falls_back_to_the_softmax_over_heads():
    """Words 1 and 2 each other's best heads, every root arc e^-10000 times less likely: every tree's
    weight underflows to 0 and the Laplacian is singular; the heads' softmax is what is left."""
    from barley.decoders.marginals import head_probabilities, head_softmax

    arc = np.full((3, 3), -np.inf)
    arc[0, 1] = arc[0, 2] = -10_000.0
    arc[2, 1] = arc[1, 2] = 0.0
    heads = np.array([-1, 0, 1])
    found = head_probabilities("mst", arc, heads, True, 1.0)
    assert np.isfinite(found).all()
    assert found.tolist() == head_softmax(arc)[heads[1:], [1, 2]].tolist()


def test_probabilities_that_are_not_numbers_are_a_model_error():
    from barley.errors import ModelError

    sentence = next(read_lines(["1\ta\ta\tX\tX\t_\t0\troot\t_\t_", ""]))
    with pytest.raises(ModelError, match="not numbers"):
        Confidence().write([sentence], lambda t: (np.array([np.nan]), np.array([1.0])), Calibrated())


@pytest.mark.parametrize("head_map, message", [
    ({"confidence": [0.5, 0.4], "accuracy": [0.1, 0.2]}, "not increasing"),
    ({"confidence": [0.1, 0.4], "accuracy": [0.3, 0.2]}, "not increasing"),
    ({"confidence": [0.1], "accuracy": [0.3, 0.2]}, "not increasing"),
    ({"confidence": [0.1, 1.5], "accuracy": [0.1, 0.2]}, "probabilities"),
    ({"confidence": "0.1", "accuracy": [0.1]}, "probabilities"),
    ({"confidence": [], "accuracy": []}, "probabilities"),
    ([0.1], "probabilities"),
])
def test_a_damaged_head_map_is_refused(head_map, message):
    with pytest.raises(ValueError, match=message):
        calibration_of({"confidence": {"temperature": 1.0, "head_map": head_map}})


def test_confidence_with_given_arcs_is_refused_in_one_line(files, capsys):
    """The probabilities are the model's own, not those of trees that must hold given arcs: refused."""
    out = files / "refused.conllu"
    assert main(["parse", str(files / "dev.conllu"), "-m", str(files / "m.barley"), "-q", "--confidence",
                 "--keep-arcs", "-o", str(out)]) == 2
    error = capsys.readouterr().err
    assert "--keep-arcs" in error and "Traceback" not in error and len(error.strip().splitlines()) == 1
    assert not out.exists()


def test_evaluate_reports_calibration_only_when_the_system_has_probabilities(tmp_path, capsys):
    gold = ["1\ta\ta\tX\tX\t_\t0\troot\t_\t_", "2\tb\tb\tX\tX\t_\t1\tdep\t_\t_", "3\tc\tc\tX\tX\t_\t1\tdep\t_\t_",
            "4\td\td\tX\tX\t_\t3\tdep\t_\t_", ""]
    system = ["1\ta\ta\tX\tX\t_\t0\troot\t_\tHeadProb=0.9", "2\tb\tb\tX\tX\t_\t1\tdep\t_\tHeadProb=0.8",
              "3\tc\tc\tX\tX\t_\t2\tdep\t_\tHeadProb=0.3", "4\td\td\tX\tX\t_\t3\tdep\t_\tHeadProb=0.95", ""]
    (tmp_path / "gold.conllu").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "system.conllu").write_text("\n".join(system) + "\n", encoding="utf-8")
    assert main(["evaluate", str(tmp_path / "gold.conllu"), str(tmp_path / "system.conllu"), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["calibration"]
    # bins: 0.3 wrong; 0.8 right; 0.9 and 0.95 right → |0-0.3| + |1-0.8| + 2 |1-0.925|, over 4
    assert found["ECE"] == pytest.approx(round((0.3 + 0.2 + 0.15) / 4, 4))
    assert found["AUROC"] == 1.0 and found["words"] == 4 and found["words_without"] == 0
    assert main(["evaluate", str(tmp_path / "gold.conllu"), str(tmp_path / "system.conllu")]) == 0
    assert "ECE" in capsys.readouterr().out
    assert main(["evaluate", str(tmp_path / "gold.conllu"), str(tmp_path / "gold.conllu"), "--json"]) == 0
    assert "calibration" not in json.loads(capsys.readouterr().out)
    (tmp_path / "bad.conllu").write_text("\n".join(system).replace("HeadProb=0.3", "HeadProb=x") + "\n",
                                         encoding="utf-8")
    assert main(["evaluate", str(tmp_path / "gold.conllu"), str(tmp_path / "bad.conllu")]) == 2
    error = capsys.readouterr().err
    assert "HeadProb" in error and "Traceback" not in error and len(error.strip().splitlines()) == 1


def test_the_arc_diagram_shades_words_by_head_probability_and_files_without_it_draw_as_before():
    from barley import render
    from barley.render import svg

    lines = ["1\ta\ta\tX\tX\t_\t0\troot\t_\tHeadProb=0.9000", "2\tb\tb\tX\tX\t_\t1\tdep\t_\tSpaceAfter=No", ""]
    sentence = next(read_lines(lines))
    drawing = render.from_sentence(sentence)
    assert drawing.head_prob == [None, 0.9, None]
    picture = svg.draw(drawing)
    assert picture.count('class="confidence"') == 1 and 'fill-opacity="0.06"' in picture
    plain = next(read_lines([line.replace("HeadProb=0.9000", "_") for line in lines]))
    assert 'class="confidence"' not in svg.draw(render.from_sentence(plain))


def test_the_errors_page_draws_a_reliability_diagram_when_the_system_has_probabilities(tmp_path, capsys):
    gold = ["1\ta\ta\tX\tX\t_\t0\troot\t_\t_", "2\tb\tb\tX\tX\t_\t1\tdep\t_\t_", "3\tc\tc\tX\tX\t_\t1\tdep\t_\t_", ""]
    system = ["1\ta\ta\tX\tX\t_\t0\troot\t_\tHeadProb=0.9", "2\tb\tb\tX\tX\t_\t3\tdep\t_\tHeadProb=0.4",
              "3\tc\tc\tX\tX\t_\t1\tdep\t_\tHeadProb=0.8", ""]
    (tmp_path / "gold.conllu").write_text("\n".join(gold) + "\n", encoding="utf-8")
    (tmp_path / "system.conllu").write_text("\n".join(system) + "\n", encoding="utf-8")
    page = tmp_path / "errors.html"
    assert main(["evaluate", str(tmp_path / "gold.conllu"), str(tmp_path / "system.conllu"), "--show-errors", "1",
                 "--errors-page", str(page)]) == 0
    text = page.read_text()
    assert "reliability of HeadProb" in text and "UAS 0.00" in text and 'class="confidence"' in text
    assert main(["evaluate", str(tmp_path / "gold.conllu"), str(tmp_path / "gold.conllu"), "--show-errors", "1",
                 "--errors-page", str(page), "--force"]) == 0
    assert "reliability" not in page.read_text()
