"""Verb groups with the auxiliary as head, and back (Nilsson, Nivre and Hall 2006, §3.2: τv)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from barley import conllu
from barley.transforms import from_json
from barley.transforms.verb_group import VerbGroup
from barley.tree import check_tree, is_projective
from conftest import ud_file

# "It will have been eaten ." (UD): three auxiliaries of eaten.
UD = ([-1, 5, 5, 5, 5, 0, 5], ["", "nsubj:pass", "aux", "aux", "aux:pass", "root", "punct"])
# After τv: will → have → been → eaten; It (left of the rightmost verb) goes to the leftmost,
# the full stop to the rightmost; each verb takes the label of the arc it now stands on.
UD_CHAIN = ([-1, 2, 0, 2, 3, 4, 5], ["", "nsubj:pass", "root", "aux", "aux", "aux:pass", "punct"])

# Czech, main verb first: "přišel jsem včera" (I came yesterday), Prague labels.
PRAGUE = ([-1, 0, 1, 1], ["", "Pred", "AuxV", "Adv"])
PRAGUE_AUX_HEAD = ([-1, 2, 0, 2], ["", "AuxV", "Pred", "Adv"])


def test_auxiliaries_become_a_chain_above_the_main_verb_and_back():
    transform = VerbGroup("ud")
    stats = transform.new_stats()
    heads, labels = transform.forward(*UD, stats)
    assert (heads.tolist(), labels) == UD_CHAIN
    heads, labels = transform.inverse(heads, labels, stats)
    assert (heads.tolist(), labels) == UD
    assert stats == {"auxiliaries made heads": 3, "auxiliaries restored": 3}


def test_main_verb_before_its_auxiliary_and_the_paper_s_projectivity_rule():
    transform = VerbGroup("prague")
    heads, labels = transform.forward(*PRAGUE)
    # včera is right of the rightmost verb (jsem), so it goes to jsem.
    assert (heads.tolist(), labels) == PRAGUE_AUX_HEAD
    assert is_projective(heads)
    heads, labels = transform.inverse(heads, labels)
    assert (heads.tolist(), labels) == PRAGUE


def test_dependents_of_an_auxiliary_come_back_on_the_main_verb():
    # "could n't go": n't hangs from could (the auxiliary) in the source; the inverse, which
    # assumes auxiliaries have no dependents (as in Prague style), puts it on go.
    tree = ([-1, 3, 1, 0], ["", "aux", "advmod", "root"])
    transform = VerbGroup("ud")
    heads, labels = transform.inverse(*transform.forward(*tree))
    assert heads.tolist() == [-1, 3, 3, 0] and labels == tree[1]


@st.composite
def labelled_trees(draw):
    n = draw(st.integers(1, 10))
    order = draw(st.permutations(range(1, n + 1)))
    heads = [-1] * (n + 1)
    for index, word in enumerate(order):
        heads[word] = draw(st.sampled_from([0, *order[:index]]))
    return heads, [""] + [draw(st.sampled_from(["aux", "aux:pass", "nsubj", "obj", "root"])) for _ in range(n)]


@settings(max_examples=100, deadline=None)
@given(labelled_trees())
def test_forward_and_inverse_always_give_trees_with_the_same_labels(tree):
    transform = VerbGroup("ud")
    heads, labels = transform.forward(*tree)
    assert check_tree(heads) is None
    assert sorted(labels) == sorted(tree[1])
    back_heads, back_labels = transform.inverse(heads, labels)
    assert check_tree(back_heads) is None and sorted(back_labels) == sorted(tree[1])
    assert check_tree(transform.inverse(*tree)[0]) is None


@settings(max_examples=100, deadline=None)
@given(labelled_trees())
def test_round_trip_is_exact_when_auxiliaries_are_leaves_of_non_auxiliaries(tree):
    heads, labels = tree
    auxiliaries = [d for d in range(1, len(heads)) if labels[d].startswith("aux")]
    if any(heads[a] == 0 or labels[heads[a]].startswith("aux") or a in heads[1:] for a in auxiliaries):
        return
    transform = VerbGroup("ud")
    back_heads, back_labels = transform.inverse(*transform.forward(heads, labels))
    assert (back_heads.tolist(), back_labels) == (heads, labels)


def test_state_is_plain_json():
    again = from_json(json.loads(json.dumps(VerbGroup("prague").to_json())))
    assert isinstance(again, VerbGroup)
    assert again.forward(*PRAGUE)[0].tolist() == PRAGUE_AUX_HEAD[0]


@pytest.mark.parametrize("name", ["af_afribooms-ud-dev.conllu", "cs_fictree-ud-dev.conllu", "en_ewt-ud-dev.conllu",
                                  "got_proiel-ud-dev.conllu"])
def test_ud_round_trip_on_real_treebanks(name):
    transform = VerbGroup("ud")
    words = correct = 0
    for sentence in conllu.read(ud_file(name)):
        heads, labels = sentence.heads(), sentence.deprels()
        back_heads, back_labels = transform.inverse(*transform.forward(heads, labels))
        assert check_tree(back_heads) is None
        words += len(sentence)
        correct += int((back_heads[1:] == heads[1:]).sum())
    assert correct / words > 0.995
