"""Coordination to Mel'čuk chains and back (Nilsson, Nivre and Hall 2006, §3.1), Prague and UD."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from barley import conllu
from barley.errors import BarleyError
from barley.transforms import from_json
from barley.transforms.coordination import Coordination
from barley.tree import check_tree
from conftest import ud_file

# Figure 1: "Velkou bojovností a nečekanou tvrdostí se vyznačovalo finále turnaje" (Prague style:
# the conjunction a heads the conjuncts bojovností and tvrdostí, labelled Obj_Co).
FIGURE_1 = ([-1, 2, 3, 7, 5, 3, 7, 0, 7, 8],
            ["", "Atr", "Obj_Co", "Coord", "Atr", "Obj_Co", "AuxT", "Pred", "Sb", "Atr"])
# Figure 2: the same sentence after τc: bojovností → a → tvrdostí, the _Co suffixes removed.
FIGURE_2 = ([-1, 2, 7, 2, 5, 3, 7, 0, 7, 8],
            ["", "Atr", "Obj", "Coord", "Atr", "Obj", "AuxT", "Pred", "Sb", "Atr"])

# "také Jan , Petr a Marie přišli všichni": three conjuncts, a comma separator, and two
# dependents of the conjunction (D): také (AuxY) before the first conjunct, všichni (Atr) at the end.
PRAGUE_D = ([-1, 5, 5, 5, 5, 7, 5, 0, 5],
            ["", "AuxY", "Sb_Co", "AuxX", "Sb_Co", "Coord", "Sb_Co", "Pred", "Atr"])
CHAIN_D = [-1, 2, 7, 2, 3, 4, 5, 0, 6]


@pytest.mark.parametrize("variant", Coordination.VARIANTS)
def test_figure_1_becomes_figure_2_and_back(variant):
    transform = Coordination("prague", variant)
    heads, labels = transform.forward(*FIGURE_1)
    assert (heads.tolist(), labels) == FIGURE_2
    heads, labels = transform.inverse(*FIGURE_2)
    assert (heads.tolist(), labels) == FIGURE_1


@pytest.mark.parametrize("variant, d_labels, restored", [
    ("c", ("AuxY", "Atr"), ()),             # D stays with the conjuncts
    ("c*", ("AuxY", "Atr"), (1,)),          # AuxY prefers the conjunction
    ("c+", ("AuxY+", "Atr+"), (1, 8)),      # every D is marked, every mark goes back
    ("c+*", ("AuxY", "Atr+"), (1, 8)),      # marked, except the conjunction-preferring labels
])
def test_the_four_variants_treat_conjunction_dependents_as_the_paper_says(variant, d_labels, restored):
    transform = Coordination("prague", variant)
    heads, labels = transform.forward(*PRAGUE_D)
    # Separators hang from the conjunct before them and head the next; D goes to the nearest
    # conjunct on its left (the first conjunct if none).
    assert heads.tolist() == CHAIN_D
    assert (labels[1], labels[8]) == d_labels
    assert [labels[c] for c in (2, 4, 6)] == ["Sb"] * 3
    back_heads, back_labels = transform.inverse(heads, labels)
    assert back_labels == PRAGUE_D[1]
    expected = list(PRAGUE_D[0])
    expected[1] = 5 if 1 in restored else 2
    expected[8] = 5 if 8 in restored else 6
    assert back_heads.tolist() == expected


def test_coordinations_that_do_not_fit_the_pattern_are_left_alone():
    transform = Coordination("prague")
    one_conjunct = ([-1, 2, 0, 2], ["", "Obj_Co", "Coord", "AuxX"])
    conjunction_first = ([-1, 0, 1, 1], ["", "Coord", "Obj_Co", "Obj_Co"])
    stats = transform.new_stats()
    for tree in (one_conjunct, conjunction_first):
        heads, labels = transform.forward(*tree, stats)
        assert (heads.tolist(), labels) == (list(tree[0]), tree[1])
    assert stats["coordinations left as they are"] == 2


def test_plus_variants_refuse_labels_that_already_end_with_the_mark():
    with pytest.raises(BarleyError, match=r"\+"):
        Coordination("prague", "c+").forward([-1, 0], ["", "Atr+"])


# --- Universal Dependencies -------------------------------------------------------------------

# "apples , pears and plums ripen": pears and plums are conj of apples; the comma hangs from
# pears, "and" from plums.
UD = ([-1, 6, 3, 1, 5, 1, 0],
      ["", "nsubj", "punct", "conj", "cc", "conj", "root"])
UD_CHAIN = [-1, 6, 1, 2, 3, 4, 0]


def test_ud_coordination_becomes_a_chain_and_back():
    transform = Coordination("ud")
    heads, labels = transform.forward(*UD)
    assert heads.tolist() == UD_CHAIN and labels == UD[1]
    heads, labels = transform.inverse(heads, labels)
    assert (heads.tolist(), labels) == (UD[0], UD[1])


def test_ud_conjunct_dependents_and_outer_separators_stay():
    # "either tea or coffee with milk": either (cc:preconj) hangs from tea, outside the conjuncts;
    # milk is coffee's own dependent.
    tree = ([-1, 2, 0, 4, 2, 6, 4], ["", "cc:preconj", "root", "cc", "conj", "case", "nmod"])
    transform = Coordination("ud")
    heads, labels = transform.forward(*tree)
    assert heads.tolist() == [-1, 2, 0, 2, 3, 6, 4]
    assert transform.inverse(heads, labels)[0].tolist() == tree[0]


@st.composite
def labelled_trees(draw, labels):
    n = draw(st.integers(1, 10))
    order = draw(st.permutations(range(1, n + 1)))
    heads = [-1] * (n + 1)
    for index, word in enumerate(order):
        heads[word] = draw(st.sampled_from([0, *order[:index]]))
    return heads, [""] + [draw(st.sampled_from(labels)) for _ in range(n)]


PRAGUE_LABELS = ["Coord", "Coord_Co", "Obj_Co", "Sb_Co", "AuxX", "AuxG", "AuxY", "Atr", "Pred"]
UD_LABELS = ["conj", "cc", "punct", "nsubj", "obj", "root"]


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(labelled_trees(PRAGUE_LABELS), st.sampled_from(Coordination.VARIANTS))
def test_prague_transform_and_inverse_always_give_trees_without_marks(tree, variant):
    transform = Coordination("prague", variant)
    heads, labels = transform.forward(*tree)
    assert check_tree(heads) is None
    heads, labels = transform.inverse(heads, labels)
    assert check_tree(heads) is None
    assert not any(label.endswith("+") for label in labels)
    # The inverse also copes with any tree (parser output), not only with chains.
    heads, _ = transform.inverse(*tree)
    assert check_tree(heads) is None


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(labelled_trees(UD_LABELS))
def test_ud_transform_and_inverse_always_give_trees(tree):
    transform = Coordination("ud")
    heads, labels = transform.forward(*tree)
    assert check_tree(heads) is None and labels == tree[1]
    assert check_tree(transform.inverse(heads, labels)[0]) is None
    assert check_tree(transform.inverse(*tree)[0]) is None


def test_state_is_plain_json():
    transform = Coordination("prague", "c*")
    again = from_json(json.loads(json.dumps(transform.to_json())))
    assert isinstance(again, Coordination) and again.to_json() == transform.to_json()
    assert again.forward(*PRAGUE_D)[1] == transform.forward(*PRAGUE_D)[1]


@pytest.mark.parametrize("name", ["af_afribooms-ud-dev.conllu", "cs_fictree-ud-dev.conllu", "en_ewt-ud-dev.conllu",
                                  "got_proiel-ud-dev.conllu"])
def test_ud_round_trip_on_real_treebanks(name):
    transform = Coordination("ud")
    words = correct = 0
    for sentence in conllu.read(ud_file(name)):
        heads, labels = sentence.heads(), sentence.deprels()
        chained_heads, chained_labels = transform.forward(heads, labels)
        assert check_tree(chained_heads) is None
        back_heads, back_labels = transform.inverse(chained_heads, chained_labels)
        assert back_labels == labels
        words += len(sentence)
        correct += int((back_heads[1:] == heads[1:]).sum())
    # What is lost is nested coordination (conj of conj), frequent only in Afrikaans (98.8%).
    assert correct / words > 0.98
