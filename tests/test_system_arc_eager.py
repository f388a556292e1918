"""Arc-eager (Nivre 2008 §4.2): Figure 6 step by step, Theorem 4 (soundness and
completeness for projective forests), 2n transitions per tree, real data."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from transition_checks import (ENGLISH_HEADS, ENGLISH_LABELS, any_tree, check_sound, gold_labels,
                               projective_tree, random_legal_run, replay, treebank_oracle)

from barley.systems import OracleError, get_system, run_oracle
from barley.systems.arc_eager import ArcEager
from barley.systems.base import projective_target
from barley.tree import is_projective

B = list(range(1, 10))  # the buffer [1, ..., 9]

# Figure 6: (transition, label, (σ, β) after it, new arc)
FIGURE_6 = [
    ("SHIFT", None, ([0, 1], B[1:]), None),
    ("LEFT-ARC", "NMOD", ([0], B[1:]), (2, "NMOD", 1)),
    ("SHIFT", None, ([0, 2], B[2:]), None),
    ("LEFT-ARC", "SBJ", ([0], B[2:]), (3, "SBJ", 2)),
    ("RIGHT-ARC", "ROOT", ([0, 3], B[3:]), (0, "ROOT", 3)),
    ("SHIFT", None, ([0, 3, 4], B[4:]), None),
    ("LEFT-ARC", "NMOD", ([0, 3], B[4:]), (5, "NMOD", 4)),
    ("RIGHT-ARC", "OBJ", ([0, 3, 5], B[5:]), (3, "OBJ", 5)),
    ("RIGHT-ARC", "NMOD", ([0, 3, 5, 6], [7, 8, 9]), (5, "NMOD", 6)),
    ("SHIFT", None, ([0, 3, 5, 6, 7], [8, 9]), None),
    ("LEFT-ARC", "NMOD", ([0, 3, 5, 6], [8, 9]), (8, "NMOD", 7)),
    ("RIGHT-ARC", "PMOD", ([0, 3, 5, 6, 8], [9]), (6, "PMOD", 8)),
    ("REDUCE", None, ([0, 3, 5, 6], [9]), None),
    ("REDUCE", None, ([0, 3, 5], [9]), None),
    ("REDUCE", None, ([0, 3], [9]), None),
    ("RIGHT-ARC", "P", ([0, 3, 9], []), (3, "P", 9)),
]
# Figure 6 stops when β is empty (Nivre's terminal condition); barley's also pops
# the words that have their head, which makes every tree 2n transitions long.
BARLEY_END = [
    ("REDUCE", None, ([0, 3], []), None),
    ("REDUCE", None, ([0], []), None),
]


def stack_and_buffer(state):
    return list(state.stack), list(state.buffer)


@pytest.mark.parametrize("single_root", [False, True])
def test_figure_6_step_by_step(single_root):
    replay(ArcEager(single_root=single_root), ENGLISH_HEADS, ENGLISH_LABELS, FIGURE_6 + BARLEY_END,
           stack_and_buffer)


def test_found_by_name_and_maltparser_alias():
    assert type(get_system("arc-eager")) is type(get_system("nivreeager")) is ArcEager


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(0, 20), single_root=st.booleans())
def test_rebuilds_every_projective_tree_in_2n_transitions(data, n, single_root):
    heads = projective_tree(lambda lo, hi: data.draw(st.integers(lo, hi)), n, single_root)
    run = run_oracle(ArcEager(single_root=single_root), heads, gold_labels(heads))
    assert run.reproduced, f"gold {heads}, built {run.heads}"
    assert len(run.actions) == 2 * n


@settings(max_examples=200, deadline=None)
@given(data=st.data(), n=st.integers(0, 15), single_root=st.booleans())
def test_any_tree_gives_its_nearest_projective_tree(data, n, single_root):
    heads = any_tree(lambda lo, hi: data.draw(st.integers(lo, hi)), n, single_root)
    run = run_oracle(ArcEager(single_root=single_root), heads, gold_labels(heads))
    assert run.reproduced == is_projective(heads)
    assert run.heads == projective_target(heads) and run.labels == gold_labels(heads)


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 15), seed=st.integers(0, 2**32 - 1), single_root=st.booleans())
def test_legal_transitions_build_projective_forests(n, seed, single_root):
    system = ArcEager(single_root=single_root)
    built, state = random_legal_run(system, n, random.Random(seed))
    check_sound(system, built, state, projective=True)


def test_the_oracle_keeps_no_state():
    """Asked twice about one configuration, the oracle answers the same (it may be
    consulted without its answer being followed, e.g. to explore)."""
    system = ArcEager()
    state = system.initial(9)
    next_action = system.oracle(ENGLISH_HEADS, [-1] + [0] * 9)
    while not system.is_terminal(state):
        action = next_action(state)
        assert next_action(state) == action
        system.apply(state, *action)
    assert state.heads == ENGLISH_HEADS


def test_a_lost_arc_is_named():
    system = ArcEager()
    state = system.initial(9)
    next_action = system.oracle(ENGLISH_HEADS, [-1] + [0] * 9)
    for move in ("SHIFT", "SHIFT"):  # instead of SHIFT, LEFT-ARC(2 → 1)
        system.apply(state, system.move(move))
    with pytest.raises(OracleError, match=r"gold arc 2 → 1 \(word 1 of 9"):
        while not system.is_terminal(state):
            system.apply(state, *next_action(state))


@pytest.mark.ud
def test_rebuilds_the_projective_sentences_of_a_treebank():
    from conftest import ud_file

    sentences, projective, rebuilt, _ = treebank_oracle(ArcEager(single_root=True),
                                                        ud_file("la_perseus-ud-train.conllu"))
    assert rebuilt == projective < sentences


def test_1000_words():
    heads = projective_tree(random.Random(7).randint, 1000, True)
    start = time.perf_counter()
    assert run_oracle(ArcEager(single_root=True), heads, gold_labels(heads)).reproduced
    assert time.perf_counter() - start < 5
