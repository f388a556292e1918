"""The learned enhanced head (:mod:`barley.enhanced.head`): its labels' classes, the pairs' places in the
basic tree, a decoder whose graphs always have a head per word and reach every word from the root
(on random scores), numpy scores equal to PyTorch's, and a head trained on a toy treebank whose
graphs hold an arc the rules never make: it learns that arc, parses with ``--enhanced`` into valid
graphs, is kept by a saved model, left out by fine-tuning, and not trained with
``--enhanced-epochs 0``."""

from __future__ import annotations

import numpy as np
import pytest
import toy_language
from enhanced_checks import assert_valid

from barley import conllu
from barley.cli import main
from barley.conllu import DEPREL, DEPS, HEAD
from barley.enhanced.deps import format_deps
from barley.enhanced.head import PLACES, decode, label_class, places
from barley.enhanced.rules import enhanced_arcs
from barley.errors import BarleyError
from barley.evaluation.conll18 import evaluate_conll18
from barley.pipeline import Pipeline

BASIC = frozenset({"obl", "obl:npmod", "nmod", "nmod:poss", "acl", "acl:relcl", "conj", "advcl"})


@pytest.mark.parametrize("relation, expected", [
    ("obl:with", "obl"), ("obl:npmod", "obl:npmod"), ("nmod:poss", "nmod:poss"), ("acl:relcl", "acl:relcl"),
    ("conj:and", "conj"), ("advcl:if", "advcl"), ("nsubj:xsubj", "nsubj:xsubj"), ("ref", "ref"),
    ("obl:npmod:of", "obl:npmod"), ("root", "root"), ("acl:to", "acl")])
def test_label_classes_drop_the_lexical_part_only(relation, expected):
    assert label_class(relation, BASIC) == expected


def test_places_in_the_basic_tree():
    # 1 <- 2 -> 3, 2 <- 0, 4 <- 3
    heads = np.array([-1, 2, 0, 2, 3])
    found = places(heads)
    name = {(d, h): PLACES[found[d, h]] for d in range(5) for h in range(5)}
    assert name[1, 2] == "parent" and name[2, 1] == "child" and name[4, 2] == "grandparent"
    assert name[1, 3] == "sibling" and name[3, 1] == "sibling" and name[2, 0] == "parent"
    assert name[1, 0] == "grandparent" and name[4, 1] == "none" and name[1, 4] == "none"


@pytest.mark.parametrize("seed", range(40))
def test_decoded_graphs_give_every_word_a_head_and_reach_it_from_the_root(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 12))
    scores = rng.normal(-2.0 if seed % 2 else 0.0, 3.0, (size, size))
    heads = decode(scores)
    chosen = {(d, h) for d in range(1, size) for h in heads[d]}
    assert all(heads[d] for d in range(1, size)) and all(d != h for d, h in chosen)
    assert {(d, h) for d in range(1, size) for h in range(size) if h != d and scores[d, h] > 0} <= chosen
    assert _reaches_all(chosen, size)
    # minimal: every arc is over 0, a word's only (best) head, or needed to reach a word
    for d, h in chosen:
        assert scores[d, h] > 0 or len(heads[d]) == 1 or not _reaches_all(chosen - {(d, h)}, size)


def _reaches_all(arcs: set[tuple[int, int]], size: int) -> bool:
    reached, frontier = {0}, [0]
    while frontier:
        node = frontier.pop()
        for d, h in arcs:
            if h == node and d not in reached:
                reached.add(d)
                frontier.append(d)
    return len(reached) == size


# --- a head trained on the toy language -------------------------------------------------------------

torch = pytest.importorskip("torch", reason="training the enhanced head needs PyTorch")
TINY = dict(form_dim=16, char_dim=8, char_hidden=16, lstm_hidden=32, lstm_layers=1, arc_mlp=32, label_mlp=16,
            batch_words=150, dropout=0.1, learning_rate=5e-3)


def with_graphs(source, target) -> None:
    """The toy treebank with enhanced graphs: the rules' graph of each gold tree, and for each determiner an
    arc from its noun's head too, ``det:extra``, which no rule makes."""
    sentences = list(conllu.read(source))
    for sentence in sentences:
        arcs = enhanced_arcs(sentence)
        for d, word in enumerate(sentence.words, 1):
            noun = int(word[HEAD])
            if word[DEPREL] == "det" and sentence.words[noun - 1][HEAD] != "0":
                arcs[d].add((int(sentence.words[noun - 1][HEAD]), "det:extra"))
            word[DEPS] = format_deps(arcs[d])
    conllu.write(sentences, str(target))


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    folder = tmp_path_factory.mktemp("head")
    for name, count, seed in (("train", 120, 1), ("dev", 20, 2), ("test", 40, 3)):
        toy_language.treebank(folder / "plain.conllu", count, seed=seed)
        with_graphs(folder / "plain.conllu", folder / f"{name}.conllu")
    pipeline = Pipeline.train(str(folder / "train.conllu"), ["joint"],
                              options={"joint": dict(TINY, epochs=25, enhanced_epochs=15)},
                              dev=str(folder / "dev.conllu"), seed=1, record_time=False, log=lambda _: None)
    pipeline.save(str(folder / "model.barley"))
    return folder


def _elas(gold, system) -> float:
    return evaluate_conll18(gold, system).scores["ELAS"].f1


@pytest.mark.slow  # the toy fixture trains a joint network with its head (12 s)
def test_the_head_learns_an_arc_the_rules_never_make(toy):
    pipeline = Pipeline.load(str(toy / "model.barley"))
    assert pipeline["joint"].enhancer is not None and pipeline["joint"].manifest["enhanced"]["classes"]
    gold = list(conllu.read(toy / "test.conllu"))
    learned = list(pipeline.parse([s.copy() for s in gold], enhanced=True))
    plain = list(pipeline.parse([s.copy() for s in gold]))
    assert [s.column(HEAD) for s in learned] == [s.column(HEAD) for s in plain]  # the tree is the network's
    assert [s.column(DEPS) for s in plain] == [s.column(DEPS) for s in gold]  # off: DEPS as given
    rules = [s.copy() for s in plain]
    for sentence in rules:
        for word, arcs in zip(sentence.words, enhanced_arcs(sentence)[1:]):
            word[DEPS] = format_deps(arcs)
    assert any("det:extra" in value for s in learned for value in s.column(DEPS))
    assert _elas(gold, learned) > _elas(gold, rules) + 2.0, (_elas(gold, learned), _elas(gold, rules))
    for sentence in learned:
        assert_valid(sentence, sentence.column(DEPS))


@pytest.mark.slow  # the toy fixture trains a joint network with its head (12 s)
def test_numpy_edge_scores_equal_pytorch_s(toy):
    from barley.enhanced.head import HeadOptions
    from barley.enhanced.head_training import EnhancedHeadModel

    component = Pipeline.load(str(toy / "model.barley"))["joint"]
    head = component.enhancer.head
    weights = {name[len("weights.enhanced."):]: array for name, array in component.arrays.items()
               if name.startswith("weights.enhanced.")}
    model = EnhancedHeadModel(32 * 2, HeadOptions(**component.manifest["enhanced"]["options"]),
                              len(head.table.classes), 0.0)
    model.load_state_dict({name: torch.from_numpy(array) for name, array in weights.items()})
    model.eval()
    vectors = np.random.default_rng(1).normal(size=(3, 7, 64)).astype(np.float32)
    with torch.no_grad():
        expected = model.edge_scores(torch.from_numpy(vectors)).numpy()
    assert np.allclose(head.edge_scores(vectors), expected, atol=1e-4)


@pytest.mark.slow  # the toy fixture trains a joint network with its head (12 s)
def test_the_command_line_parses_with_the_learned_head(toy, tmp_path):
    out = tmp_path / "out.conllu"
    assert main(["parse", "-q", "--enhanced", "-m", str(toy / "model.barley"), str(toy / "test.conllu"),
                 "-o", str(out)]) == 0
    parsed = list(conllu.read(out))
    assert any("det:extra" in value for s in parsed for value in s.column(DEPS))


@pytest.mark.slow  # the toy fixture trains a joint network with its head (12 s)
def test_the_learned_head_is_refused_with_the_k_best_trees(toy):
    pipeline = Pipeline.load(str(toy / "model.barley"))
    with pytest.raises(BarleyError, match="best tree only"):
        pipeline.parse(conllu.read(toy / "test.conllu"), enhanced=True, nbest=2)
    assert len(list(pipeline.parse(conllu.read(toy / "test.conllu"), nbest=2))) >= 40  # without enhanced: taken


@pytest.mark.slow  # the toy fixture trains a joint network with its head (12 s)
def test_fine_tuning_leaves_the_head_out_and_zero_epochs_train_none(toy):
    pipeline = Pipeline.load(str(toy / "model.barley"))
    messages = []
    tuned = pipeline["joint"].fine_tune(list(conllu.read(toy / "dev.conllu")), {"epochs": 1}, seed=1,
                                        log=messages.append)
    assert tuned.enhancer is None and "enhanced" not in tuned.manifest
    assert not any(name.startswith("weights.enhanced.") for name in tuned.arrays)
    assert any("enhanced head" in message for message in messages)
    messages = []
    none = Pipeline.train(str(toy / "train.conllu"), ["joint"], options={"joint": dict(TINY, epochs=1,
                          enhanced_epochs=0)}, seed=1, record_time=False, log=messages.append)
    assert none["joint"].enhancer is None and any("--enhanced-epochs 0" in m for m in messages)


@pytest.mark.slow  # the toy fixture trains a joint network with its head (12 s)
def test_a_damaged_head_is_refused_on_loading(toy, tmp_path):
    from barley.errors import ModelError
    from barley.models import archive

    manifest, arrays = archive.read(str(toy / "model.barley"))
    arrays["joint.weights.enhanced.rule_label"] = arrays["joint.weights.enhanced.rule_label"][:-1]
    archive.write(str(tmp_path / "bad.barley"), manifest, arrays)
    with pytest.raises(ModelError, match="enhanced.rule_label"):
        Pipeline.load(str(tmp_path / "bad.barley"))
