"""Pseudo-projective parsing (Nivre and Nilsson 2005): lifting, encodings, label cap, lowering."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_trees import trees

from barley import conllu
from barley.errors import BarleyError
from barley.transforms import from_json
from barley.transforms.pseudo_projective import (DOWN, ENCODINGS, LIFTED, Label, PseudoProjective, decode_label,
                                                  deprojectivize, encode_label, plain_label, projectivize)
from barley.tree import check_tree, is_projective

# Nivre (2008), Figure 1 (Czech): "Z nich je jen jedna na kvalitu ." — the arc jen(5) → Z(1) spans je(3).
CZECH_HEADS = [-1, 5, 1, 0, 5, 3, 3, 6, 0]
CZECH_LABELS = ["", "AuxP", "Atr", "Pred", "AuxZ", "Sb", "AuxP", "Adv", "AuxK"]


@st.composite
def labeled_trees(draw, max_words: int = 12):
    """Any tree rooted at 0, with labels from a small set (so that head labels repeat)."""
    heads = draw(trees(max_words))
    labels = [""] + [draw(st.sampled_from(["a", "b", "c", "nsubj:pass"])) for _ in range(len(heads) - 1)]
    return heads, labels


def brute_projective(heads) -> bool:
    """Definition 3 of Nivre (2008) read literally: h dominates every word between h and d."""
    def dominates(h, k):
        while k > 0:
            k = heads[k]
            if k == h:
                return True
        return h == 0

    return all(dominates(heads[d], k) for d in range(1, len(heads))
               for k in range(min(heads[d], d) + 1, max(heads[d], d)))


# --- label encoding -------------------------------------------------------------------------

labels_text = st.text(st.characters(blacklist_characters=LIFTED + DOWN), min_size=1, max_size=8)


@pytest.mark.slow
@given(labels_text, st.booleans(), st.one_of(st.none(), labels_text), st.booleans())
def test_label_encoding_and_decoding_are_inverses(base, lifted, head, down):
    label = Label(base, lifted, head if lifted else None, down)
    text = encode_label(label)
    assert decode_label(text) == label
    assert encode_label(decode_label(text)) == text
    assert plain_label(text) == base


def test_labels_holding_a_marker_or_empty_are_refused():
    for bad in (f"nsubj{LIFTED}", f"x{DOWN}y", ""):
        with pytest.raises(BarleyError, match="pseudo-projective"):
            projectivize([-1, 0, 1], ["", "root", bad])


def test_unknown_options_are_refused():
    with pytest.raises(BarleyError, match="encoding"):
        PseudoProjective("tail")
    with pytest.raises(BarleyError, match="lifting order"):
        projectivize([-1, 0], ["", "root"], lift="longest")


# --- the paper's example --------------------------------------------------------------------

@pytest.mark.parametrize("encoding, lifted_label, path_label", [
    ("baseline", "AuxP", "Sb"), ("head", f"AuxP{LIFTED}Sb", "Sb"),
    ("path", f"AuxP{LIFTED}", f"Sb{DOWN}"), ("head+path", f"AuxP{LIFTED}Sb", f"Sb{DOWN}")])
def test_czech_example_is_lifted_to_the_verb_and_put_back(encoding, lifted_label, path_label):
    result = projectivize(CZECH_HEADS, CZECH_LABELS, encoding)
    # Z(1) is lifted once, over jedna(5) to je(3) (Nivre and Nilsson 2005, Figure 3's arc).
    assert result.heads.tolist() == [-1, 3, 1, 0, 5, 3, 3, 6, 0]
    assert result.lifts == [(1, 5, 3, 1)]
    assert result.deprels[1] == lifted_label and result.deprels[5] == path_label
    back = deprojectivize(result.heads, result.deprels, encoding)
    assert back.deprels == CZECH_LABELS
    assert back.heads.tolist() == (result.heads.tolist() if encoding == "baseline" else CZECH_HEADS)


# --- lifting order ----------------------------------------------------------------------------

def test_shortest_and_deepest_lifting_orders_lift_different_arcs():
    # 5 → 2 (length 3, dependent at depth 4) and 3 → 5 (length 2, depth 3) are non-projective.
    heads = [-1, 3, 5, 4, 0, 3]
    labels = ["", "a", "b", "c", "root", "d"]
    shortest = projectivize(heads, labels, lift="shortest")
    deepest = projectivize(heads, labels, lift="deepest")
    # Shortest first lifts 5 to 4, which makes 3 → 1 non-projective: three arcs end up lifted.
    assert shortest.heads.tolist() == [-1, 4, 4, 4, 0, 4]
    assert [lift.dependent for lift in shortest.lifts] == [1, 2, 5]
    # Deepest first lifts 2 to 3, then 5 to 4: two arcs.
    assert deepest.heads.tolist() == [-1, 3, 3, 4, 0, 4]
    assert [lift.dependent for lift in deepest.lifts] == [2, 5]


# --- the documented search rule decides ambiguous cases ----------------------------------------

def test_head_takes_the_first_word_in_breadth_first_order():
    # A lifted arc labelled x↑b under 1, with two words labelled b: 2 (depth 1) and 4 (depth 2).
    heads = [-1, 0, 1, 1, 3, 1]
    labels = ["", "root", "b", "c", "b", f"x{LIFTED}b"]
    assert deprojectivize(heads, labels, "head").heads[5] == 2
    # Same depth: the leftmost wins.
    heads = [-1, 0, 1, 1, 1]
    labels = ["", "root", "b", "b", f"x{LIFTED}b"]
    assert deprojectivize(heads, labels, "head").heads[4] == 2


def test_path_takes_the_deepest_word_reached_through_down_marks():
    # ↓ chain 1 → 2 → 3 and a ↓ word 4 at depth 1: the deepest, 3, wins; 5's own subtree is avoided.
    heads = [-1, 0, 1, 2, 1, 1, 5]
    labels = ["", "root", f"a{DOWN}", f"b{DOWN}", f"c{DOWN}", f"x{LIFTED}", f"y{DOWN}"]
    assert deprojectivize(heads, labels, "path").heads[5] == 3
    # ↓ words below an unmarked word are not reached.
    labels = ["", "root", "a", f"b{DOWN}", "c", f"x{LIFTED}", "y"]
    result = deprojectivize(heads, labels, "path")
    assert result.heads[5] == 1 and result.not_found == 1


def test_head_path_prefers_the_deepest_matching_down_word_and_falls_back_to_head():
    heads = [-1, 0, 1, 2, 1, 1]
    labels = ["", "root", f"b{DOWN}", f"b{DOWN}", "b", f"x{LIFTED}b"]
    assert deprojectivize(heads, labels, "head+path").heads[5] == 3
    labels = ["", "root", f"a{DOWN}", f"c{DOWN}", "b", f"x{LIFTED}b"]
    assert deprojectivize(heads, labels, "head+path").heads[5] == 4


def test_a_head_that_is_not_found_leaves_the_arc_and_strips_the_marks():
    heads = [-1, 0, 1, 1]
    labels = ["", "root", f"a{DOWN}", f"x{LIFTED}zzz"]
    result = deprojectivize(heads, labels, "head")
    assert result.heads.tolist() == heads and result.deprels == ["", "root", "a", "x"]
    assert (result.lowered, result.not_found) == (0, 1)


def test_the_search_never_enters_the_lifted_words_own_subtree():
    # The only word labelled b is below the lifted word 2 itself: attaching there would make a cycle.
    heads = [-1, 0, 1, 2]
    labels = ["", "root", f"x{LIFTED}b", "b"]
    result = deprojectivize(heads, labels, "head")
    assert result.heads.tolist() == heads and check_tree(result.heads) is None


# --- theorems on random trees -----------------------------------------------------------------

@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(labeled_trees(), st.sampled_from(ENCODINGS), st.sampled_from(["shortest", "deepest"]))
def test_projectivize_gives_a_projective_tree_and_lowering_gives_a_tree(tree, encoding, lift):
    heads, labels = tree
    result = projectivize(heads, labels, encoding, lift)
    assert check_tree(result.heads) is None
    assert brute_projective(result.heads.tolist())
    assert [plain_label(label) for label in result.deprels] == labels
    # Only lifted arcs move, each to an ancestor of its original head.
    for d in range(1, len(heads)):
        moved = [lift.dependent for lift in result.lifts]
        assert (result.heads[d] != heads[d]) == (d in moved)
    back = deprojectivize(result.heads, result.deprels, encoding)
    assert check_tree(back.heads) is None
    assert back.deprels == labels
    if not result.lifts:
        assert back.heads.tolist() == list(heads)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(labeled_trees(max_words=10))
def test_a_single_lift_is_always_put_back_by_every_informative_encoding(tree):
    heads, labels = tree
    result = projectivize(heads, labels, "head+path")
    if len(result.lifts) == 1 and result.lifts[0].steps == 1:
        assert deprojectivize(result.heads, result.deprels, "head+path").heads.tolist() == list(heads)
        assert deprojectivize(result.heads, result.deprels, "path").heads.tolist() == list(heads)


# --- label cap, statistics, JSON --------------------------------------------------------------

def test_label_cap_keeps_the_most_frequent_new_labels_and_records_what_it_dropped():
    # Two trees lift x over b (x↑b twice), one lifts x over c (x↑c once).
    over_b = ([-1, 3, 0, 2, 2], ["", "x", "root", "b", "y"])   # 3 → 1 spans 2 (the root word)
    over_c = ([-1, 3, 0, 2, 2], ["", "x", "root", "c", "y"])
    transform = PseudoProjective("head", label_cap=1).fit([over_b, over_b, over_c])
    assert transform.kept_labels == [f"x{LIFTED}b"]
    stats = transform.new_stats()
    assert transform.forward(*over_b, stats)[1][1] == f"x{LIFTED}b"
    heads, labels = transform.forward(*over_c, stats)
    assert labels[1] == "x" and is_projective(heads)
    assert stats.dropped_labels == {f"x{LIFTED}c": 1}
    assert stats.new_labels == {f"x{LIFTED}b": 1}
    assert (stats.arcs_lifted, stats.lift_steps, stats.sentences) == (2, 2, 2)
    assert "label cap dropped 1 labels" in "\n".join(stats.lines())
    transform.inverse(heads, labels)
    assert not hasattr(transform, "stats"), "statistics belong to the caller, not the transform"


def test_a_capped_transform_must_be_fitted():
    with pytest.raises(BarleyError, match="fitting"):
        PseudoProjective("head", label_cap=3).forward(CZECH_HEADS, CZECH_LABELS)


def test_state_is_plain_json_and_restores_the_same_transform():
    transform = PseudoProjective("head+path", "deepest", label_cap=5).fit([(CZECH_HEADS, CZECH_LABELS)])
    data = json.loads(json.dumps(transform.to_json()))
    again = from_json(data)
    assert isinstance(again, PseudoProjective) and again.to_json() == transform.to_json()
    assert again.forward(CZECH_HEADS, CZECH_LABELS)[1] == transform.forward(CZECH_HEADS, CZECH_LABELS)[1]


# --- real treebanks ---------------------------------------------------------------------------

@pytest.mark.slow
def test_every_transformed_ud_tree_is_projective_and_encodings_never_leak(ud_path):
    transform = PseudoProjective("head+path")
    for sentence in conllu.read(ud_path):
        heads, labels = sentence.heads(), sentence.deprels()
        new_heads, new_labels = transform.forward(heads, labels)
        assert is_projective(new_heads), sentence
        back_heads, back_labels = transform.inverse(new_heads, new_labels)
        assert back_labels == labels
        assert check_tree(back_heads) is None


# --- the command ------------------------------------------------------------------------------

CZECH_CONLLU = "".join(f"{i}\tw{i}\t_\t_\t_\t_\t{h}\t{label}\t_\t_\n"
                       for i, (h, label) in enumerate(zip(CZECH_HEADS[1:], CZECH_LABELS[1:]), start=1)) + "\n"


def test_transform_command_round_trip_and_statistics(tmp_path, capsys):
    from barley.cli import main

    source, lifted, back = tmp_path / "in.conllu", tmp_path / "lifted.conllu", tmp_path / "back.conllu"
    source.write_text("# sent_id = 1\n" + CZECH_CONLLU, encoding="utf-8")
    assert main(["transform", str(source), str(lifted), "--pseudo-projective", "head"]) == 0
    assert f"AuxP{LIFTED}Sb" in lifted.read_text(encoding="utf-8")
    assert "1 of 8 arcs lifted in 1 lift steps" in capsys.readouterr().err
    assert main(["transform", str(lifted), str(back), "--pseudo-projective", "head", "--inverse"]) == 0
    assert back.read_text(encoding="utf-8") == source.read_text(encoding="utf-8")
    assert "1 arcs lowered" in capsys.readouterr().err
    # A label that already holds the marker is a one-line error (exit 2), not a traceback.
    assert main(["transform", str(lifted), str(back), "--pseudo-projective", "head"]) == 2
    assert "cannot be used with pseudo-projective encodings" in capsys.readouterr().err
