"""Consistent tags (the joint network's UPOS, XPOS and FEATS decoded together): the combination
chosen is the best of training's by brute force, the tables keep their combinations through JSON,
and a damaged or missing table is refused or decoded independently (numpy only)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from barley.conllu import read_bytes
from barley.graph.model import GraphOptions
from barley.neural.joint import Annotator, JointOutputs
from barley.neural.joint_tables import TAGS, JointTables
from barley.neural.numpy_ops import log_softmax

VALUES = {"upos": ["NOUN", "VERB", "AUX"], "xpos": ["NN", "VB", "MD", "VBZ"], "feats": ["_", "Number=Sing"],
          "lemma": ["keep||||"]}


def _outputs(rng: np.random.Generator, words: int) -> JointOutputs:
    """Random tagging layers over random word vectors (the parser's outputs are not read)."""
    layers = {name: (rng.normal(size=(len(VALUES[name]), 5)), rng.normal(size=len(VALUES[name])))
              for name in VALUES}
    return JointOutputs(rng.normal(size=(words, 5)), layers, *(np.zeros(1),) * 5)


@pytest.mark.parametrize("seed", range(20))
def test_the_combination_chosen_is_the_best_of_training_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    every = list(itertools.product(*(range(len(VALUES[name])) for name in TAGS)))
    sets = np.array([every[k] for k in sorted(rng.choice(len(every), size=int(rng.integers(1, 8)), replace=False))])
    annotator = Annotator(JointTables(VALUES, ["root"], {}, sets), GraphOptions(decoder="mst"))
    outputs = _outputs(rng, 30)
    chosen = annotator._tags(outputs)
    log_p = {name: log_softmax(outputs.word_vectors @ outputs.tag_layers[name][0].T + outputs.tag_layers[name][1])
             for name in TAGS}
    for word in range(30):
        best = max(map(tuple, sets.tolist()), key=lambda c: sum(log_p[name][word, c[k]] for k, name in enumerate(TAGS)))
        assert tuple(int(chosen[name][word]) for name in TAGS) == best
    annotator.consistent_tags = False  # off: each head's best class, combinations of training or not
    independent = annotator._tags(outputs)
    for name in TAGS:
        assert np.array_equal(independent[name], log_p[name].argmax(axis=1))


def test_the_tables_keep_their_combinations_and_a_model_without_them_decodes_each_head_alone():
    (sentence,) = read_bytes(b"1\tdogs\tdog\tNOUN\tNNS\tNumber=Plur\t2\tnsubj\t_\t_\n"
                             b"2\tbark\tbark\tVERB\tVBP\t_\t0\troot\t_\t_\n"
                             b"3\tdogs\tdog\tNOUN\tNNS\tNumber=Plur\t2\tobj\t_\t_\n\n", "s.conllu")
    tables = JointTables.build([sentence], ["nsubj", "root", "obj"])
    assert tables.tag_sets.tolist() == [[0, 0, 0], [1, 1, 1]]
    assert JointTables.from_json(tables.to_json()).tag_sets.tolist() == [[0, 0, 0], [1, 1, 1]]
    older = {name: value for name, value in tables.to_json().items() if name != "tag_sets"}
    assert JointTables.from_json(older).tag_sets is None
    annotator = Annotator(JointTables.from_json(older), GraphOptions(decoder="mst"))
    outputs = JointOutputs(np.ones((2, 1)), {name: (np.ones((len(values), 1)), np.arange(len(values), dtype=float))
                                              for name, values in tables.values.items()}, *(np.zeros(1),) * 5)
    assert {name: column.tolist() for name, column in annotator._tags(outputs).items()} == \
        {"upos": [1, 1], "xpos": [1, 1], "feats": [1, 1]}


@pytest.mark.parametrize("tag_sets", [[], [[0, 0]], [[0, 0, 9]], [[0, 0, -1]], [[0, 0, "0"]], [[0, 0, True]], "x"])
def test_a_damaged_table_of_combinations_is_refused(tag_sets):
    entry = {**JointTables(VALUES, ["root"], {}, np.array([[0, 0, 0]])).to_json(), "tag_sets": tag_sets}
    with pytest.raises(ValueError, match="tag combination"):
        JointTables.from_json(entry)
