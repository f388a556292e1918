"""Training and greedy parsing end to end: library, model files and the command line."""

from __future__ import annotations

import itertools
import random

import pytest

import barley
from barley import cli
from barley.conllu import DEPREL, HEAD, read, read_lines, write
from barley.errors import BarleyError, InputError, ModelError
from barley.kinds import evaluate_parser, train
from barley.learners import SplitLearner
from barley.transforms import Counts
from fixed_grammar import toy_treebank

pytestmark = pytest.mark.slow  # the fast loop, pytest -m 'not slow', leaves this file out

@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("toy")
    toy_treebank(folder / "train.conllu", 120, seed=1)
    toy_treebank(folder / "test.conllu", 40, seed=2)
    model = folder / "toy.barley"
    parser = train(str(folder / "train.conllu"), system="arc-eager", log=lambda message: None)
    parser.save(str(model))
    return folder, model


def test_trains_on_a_toy_language_and_parses_it_perfectly(toy):
    folder, model = toy
    parser = barley.load(str(model))
    scores = evaluate_parser(parser, str(folder / "test.conllu"))
    assert scores["LAS"] == 100.0 and scores["LEM"] == 100.0


def test_parsing_keeps_every_column_and_line_but_head_and_deprel(toy):
    folder, model = toy
    parser = barley.load(str(model))
    original = list(read(folder / "test.conllu"))
    blanked = [s.copy() for s in original]
    for sentence in blanked:
        sentence.set_tree([-1] + [0] * len(sentence), [""] + ["x"] * len(sentence))
    parsed = list(parser.parse(blanked))
    assert [s.to_text() for s in parsed] == [s.to_text() for s in original]


def test_a_loaded_and_saved_model_keeps_where_its_features_came_from(toy, tmp_path):
    """Saving a loaded parser writes the same manifest: its feature model's source stays the one it
    was trained from, not the path it was loaded from (a rebuilt model would carry a local path)."""
    from barley.models.archive import read_manifest

    folder, model = toy
    again = tmp_path / "again.barley"
    barley.load(str(model)).parser.save(str(again))
    assert read_manifest(str(model))["features_source"] == "defaults/arc-eager.txt"
    assert read_manifest(str(again)) == read_manifest(str(model))


def test_batched_and_one_by_one_parsing_agree(toy):
    folder, model = toy
    parser = barley.load(str(model)).parser
    sentences = list(read(folder / "test.conllu"))
    by_batch = [s.to_text() for s in parser.parse([s.copy() for s in sentences], batch_size=16)]
    one_by_one = [s.to_text() for s in parser.parse([s.copy() for s in sentences], batch_size=1)]
    assert by_batch == one_by_one


def test_rare_features_can_be_left_out(toy):
    folder, _ = toy
    quiet = lambda message: None  # noqa: E731
    every = train(str(folder / "train.conllu"), log=quiet)
    frequent = train(str(folder / "train.conllu"), min_feature_count=20, log=quiet)
    assert frequent.index.size < every.index.size
    assert frequent.manifest["training"]["min_feature_count"] == 20
    with pytest.raises(BarleyError):
        train(str(folder / "train.conllu"), min_feature_count=0, log=quiet)


def test_single_root_output_when_training_trees_have_one_root(toy):
    folder, model = toy
    parser = barley.load(str(model)).parser
    assert parser.system.single_root
    # words unknown to the model still give single-rooted trees
    rng = random.Random(3)
    lines = []
    for i in range(20):
        n = rng.randint(1, 12)
        lines += [f"{k}\tw{rng.randint(0, 99)}\t_\t{rng.choice(['X', 'NOUN', 'VERB'])}\t_\t_\t_\t_\t_\t_"
                  for k in range(1, n + 1)] + [""]
    for sentence in parser.parse(read_lines(lines)):
        heads = [int(word[HEAD]) for word in sentence.words]
        assert heads.count(0) == 1


NONPROJECTIVE = """\
1\tA\ta\tDET\tDT\t_\t3\tdet\t_\t_
2\tsaw\tsee\tVERB\tVB\t_\t0\troot\t_\t_
3\tman\tman\tNOUN\tNN\t_\t2\tobj\t_\t_
4\tyesterday\tyesterday\tNOUN\tNN\t_\t2\tobl\t_\t_
5\twho\twho\tPRON\tWP\t_\t3\tacl\t_\t_

"""


def test_trees_outside_the_class_are_counted_and_handled_as_asked(toy, tmp_path):
    folder, _ = toy
    mixed = tmp_path / "mixed.conllu"
    mixed.write_text((folder / "train.conllu").read_text() + NONPROJECTIVE, encoding="utf-8")
    messages = []
    train(str(mixed), outside_class="skip", log=messages.append)
    assert "outside arc-eager's class: 1 of 121 sentences (skipped)" in messages  # 1%: no advice
    many = tmp_path / "many.conllu"
    many.write_text((folder / "train.conllu").read_text() + NONPROJECTIVE * 7, encoding="utf-8")
    messages = []
    train(str(many), log=messages.append)
    advice = next(m for m in messages if m.startswith("outside arc-eager's class: 7 of 127 sentences"))
    assert "--pseudo-projective head" in advice and "--system swap-lazy" in advice  # 5.5%
    messages = []
    train(str(many), system="swap-lazy", log=messages.append)
    assert "outside swap-lazy's class: 0 of 127 sentences (trained on the oracle's nearest tree)" in messages
    with pytest.raises(InputError, match=r"mixed.conllu:\d+: this tree is outside the class"):
        train(str(mixed), outside_class="error", log=lambda m: None)


def test_the_training_log_states_what_is_trained(toy):
    folder, _ = toy
    messages = []
    train(str(folder / "train.conllu"), log=messages.append)
    log = "\n".join(messages)
    for expected in ("training arc-eager (static oracle, single root)", "120 sentences", "templates from",
                     "vocabularies: FORM", "DEPREL 8", "instances:", "about"):
        assert expected in log


def test_the_same_seed_gives_a_byte_identical_model(toy, tmp_path):
    folder, _ = toy
    for name in ("a", "b"):
        cli.main(["train", "--train", str(folder / "train.conllu"), "--seed", "7", "-m", str(tmp_path / name)])
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()


def test_the_command_line_trains_parses_and_describes(toy, tmp_path, capsys):
    folder, _ = toy
    model = tmp_path / "cli.barley"
    status = cli.main(["train", "--train", str(folder / "train.conllu"), "--dev", str(folder / "test.conllu"),
                       "-a", "nivreeager", "--tags", "predicted", "--model", str(model)])
    assert status == 0
    out = tmp_path / "out.conllu"
    assert cli.main(["parse", "-m", str(model), str(folder / "test.conllu"), "-o", str(out)]) == 0
    gold = list(read(folder / "test.conllu"))
    parsed = list(read(out))
    assert [[w[HEAD], w[DEPREL]] for s in parsed for w in s.words] == \
           [[w[HEAD], w[DEPREL]] for s in gold for w in s.words]
    capsys.readouterr()
    assert cli.main(["info", str(model)]) == 0
    info = capsys.readouterr().out
    assert "system:      arc-eager" in info and "tags predicted" in info and "dev:         LAS 100.0" in info


def test_conll_x_in_gives_conll_x_out(toy, tmp_path):
    folder, model = toy
    conllx = tmp_path / "test.conll"
    lines = []
    for sentence in itertools.islice(read(folder / "test.conllu"), 5):
        for word in sentence.words:  # CoNLL-X: no comments, PHEAD/PDEPREL in the last columns
            lines.append("\t".join(word[:8] + ["_", "_"]))
        lines.append("")
    conllx.write_text("\n".join(lines) + "\n", encoding="utf-8")
    parsed = list(barley.load(str(model)).parse(read(conllx)))
    out = tmp_path / "out.conll"
    write(parsed, out)
    assert out.read_text(encoding="utf-8") == conllx.read_text(encoding="utf-8")


def test_errors_are_one_line_messages(toy, tmp_path, capsys):
    folder, model = toy
    bad = tmp_path / "bad.features"
    bad.write_text("XPOS(Stack[0])\nXPOS(Nowhere[0])\n", encoding="utf-8")
    status = cli.main(["train", "--train", str(folder / "train.conllu"), "--features", str(bad), "-m",
                       str(tmp_path / "x")])
    assert status == 2 and f"{bad}:2: bad feature" in capsys.readouterr().err
    (tmp_path / "junk").write_text("not a model")
    with pytest.raises(ModelError):
        barley.load(str(tmp_path / "junk"))
    assert cli.main(["parse", "-m", str(tmp_path / "junk"), str(folder / "test.conllu")]) == 2


def test_a_feature_on_an_address_the_system_lacks_stops_training_at_its_line(toy, tmp_path, capsys):
    folder, _ = toy
    features = tmp_path / "cov.features"
    features.write_text("FORM(Input[0])\nXPOS(Stack[0])\n", encoding="utf-8")
    status = cli.main(["train", "--train", str(folder / "train.conllu"), "-a", "covington-nonprojective",
                       "--features", str(features), "-m", str(tmp_path / "m")])
    assert status == 2
    assert f"{features}:2: feature XPOS(Stack[0]) uses Stack[0], but covington-nonprojective" \
        in capsys.readouterr().err


def test_a_small_real_treebank(tmp_path):
    from conftest import ud_file

    path = ud_file("en_ewt-ud-train.conllu")
    sentences = list(itertools.islice(read(path), 300))
    parser = train(sentences[:250], log=lambda m: None)
    scores = evaluate_parser(parser, sentences[250:])
    assert scores["UAS"] > 60.0 and scores["LAS"] > 50.0


@pytest.mark.parametrize("learner, split", [("perceptron", None), ("svm-poly2", "XPOS(Input[0])"),
                                            ("linear", "UPOS(Input[0])")])
def test_other_learners_and_the_data_split_learn_the_toy_language(toy, tmp_path, learner, split):
    folder, _ = toy
    parser = train(str(folder / "train.conllu"), learner=learner, split=split, split_threshold=100,
                   log=lambda m: None)
    parser.save(str(tmp_path / "m"))
    scores = evaluate_parser(barley.load(str(tmp_path / "m")), str(folder / "test.conllu"))
    assert scores["LAS"] >= 95.0


def test_epochs_reach_the_perceptron_of_the_transition_parser(toy, tmp_path, capsys):
    """--epochs used to reach only the graph parser: -l perceptron silently trained 5 epochs."""
    folder, _ = toy
    model = tmp_path / "p.barley"
    assert cli.main(["train", "--train", str(folder / "train.conllu"), "-l", "perceptron", "--epochs", "7",
                     "--oracle", "static", "--seed", "1", "-m", str(model)]) == 0
    log = capsys.readouterr().err
    assert "perceptron epoch 7/7" in log and "epoch 8/" not in log
    assert barley.load(str(model)).parser.learner.epochs == 7


def test_an_option_the_learner_does_not_take_is_refused(toy, tmp_path, capsys):
    folder, _ = toy
    status = cli.main(["train", "--train", str(folder / "train.conllu"), "-l", "linear", "--epochs", "3",
                       "-m", str(tmp_path / "m")])
    err = capsys.readouterr().err
    assert status == 2 and "the linear learner takes no option 'epochs'" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("learner, split, expected", [
    ("linear", "default", None), ("svm-poly2", "default", "XPOS(Input[0])"), ("perceptron", "default", None),
    ("svm-poly2", "none", None), ("svm-poly2", None, None), ("linear", "UPOS(Input[0])", "UPOS(Input[0])")])
def test_each_learner_has_its_default_data_split(toy, learner, split, expected):
    folder, _ = toy
    parser = train(str(folder / "train.conllu"), learner=learner, split=split, log=lambda m: None)
    assert parser.split_feature == expected
    assert isinstance(parser.learner, SplitLearner) == (expected is not None)


class _MarkLabels:
    """A reversible transform for the hook: decorates every label, and strips it again."""

    name = "mark-labels"
    new_stats = staticmethod(Counts)

    def fit(self, trees):
        return self

    def forward(self, heads, deprels, stats=None):
        return list(heads), [d + "|x" if d else d for d in deprels]

    def inverse(self, heads, deprels, stats=None):
        return list(heads), [d.removesuffix("|x") for d in deprels]

    def to_json(self):
        return {"name": "mark-labels"}


def test_transforms_apply_to_gold_trees_and_are_inverted_on_output(toy):
    folder, _ = toy
    parser = train(str(folder / "train.conllu"), transforms=[_MarkLabels()], log=lambda m: None)
    assert all(label.endswith("|x") for label in parser.labels)
    scores = evaluate_parser(parser, str(folder / "test.conllu"))
    assert scores["LAS"] == 100.0


def test_absurd_vocabularies_are_warned_about(toy, tmp_path):
    folder, _ = toy
    lines = (folder / "train.conllu").read_text().splitlines()
    numbered = []
    for i, line in enumerate(lines):  # an id inside XPOS: thousands of distinct values
        fields = line.split("\t")
        if len(fields) == 10:
            fields[4] = f"{fields[4]}-{i}"
        numbered.append("\t".join(fields))
    path = tmp_path / "ids.conllu"
    path.write_text("\n".join(numbered * 2) + "\n")
    messages = []
    train(str(path), log=messages.append)
    assert any(m.startswith("warning: XPOS has") for m in messages)
