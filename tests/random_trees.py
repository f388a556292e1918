"""Random dependency trees for tests (``heads`` lists: heads[0] = -1, 0 = the root).

The generators take ``draw_int(lo, hi)``, an integer in [lo, hi]: a seeded
``random.Random(seed).randint``, or :func:`draw_ints` of a hypothesis ``data``.

- :func:`trees`: a hypothesis strategy for any tree (shrinks well);
- :func:`projective_tree`, :func:`any_tree`: every projective tree, every tree;
- :func:`tree_in_class`, :func:`blocks`: m-planar trees (root arcs left out), and
  long sentences made of them.
"""

from __future__ import annotations

import random

from hypothesis import strategies as st

from barley.tree import check_tree, planarity


def draw_ints(data):
    """``draw_int`` for the generators below, drawing from a hypothesis ``st.data()``."""
    return lambda lo, hi: data.draw(st.integers(lo, hi))


@st.composite
def trees(draw, max_words: int = 12):
    """Any tree rooted at 0 over 1..max_words words: attach the words, in a random
    order, to 0 or a word placed before."""
    n = draw(st.integers(1, max_words))
    order = draw(st.permutations(range(1, n + 1)))
    heads = [-1] * (n + 1)
    for index, word in enumerate(order):
        heads[word] = draw(st.sampled_from([0, *order[:index]]))
    return heads


def projective_tree(draw_int, n: int, single_root: bool) -> list[int]:
    """A random projective tree: each head's dependents' subtrees split its span into
    consecutive blocks (every projective tree can come out)."""
    heads = [-1] * (n + 1)

    def attach(lo: int, hi: int, head: int) -> None:
        while lo <= hi:
            end = hi if single_root and head == 0 else draw_int(lo, hi)
            root = draw_int(lo, end)
            heads[root] = head
            attach(lo, root - 1, root)
            attach(root + 1, end, root)
            lo = end + 1

    attach(1, n, 0)
    return heads


def any_tree(draw_int, n: int, single_root: bool) -> list[int]:
    """A random tree: the words, in a random order, each attached to 0 or an earlier one."""
    order = list(range(1, n + 1))
    for k in range(n - 1, 0, -1):  # Fisher-Yates
        swap = draw_int(0, k)
        order[k], order[swap] = order[swap], order[k]
    heads = [-1] * (n + 1)
    for k, word in enumerate(order):
        attached = order[:k] if single_root and k else [0, *order[:k]]
        heads[word] = attached[draw_int(0, len(attached) - 1)]
    return heads


def tree_in_class(draw_int, n: int, planes: int, single_root: bool, tries: int) -> list[int]:
    """A random tree with at most ``planes`` planes (root arcs left out): a random
    projective tree, then ``tries`` random reattachments d → h, each kept if the
    result is still such a tree."""
    heads = projective_tree(draw_int, n, single_root)
    for _ in range(tries if n else 0):
        d, h = draw_int(1, n), draw_int(0, n)
        if h == d or (single_root and 0 in (h, heads[d])):
            continue
        old, heads[d] = heads[d], h
        if check_tree(heads) is not None or planarity(heads)[0] > planes:
            heads[d] = old
    return heads


def blocks(rng: random.Random, count: int, planes: int) -> list[int]:
    """``count`` random 10-word trees side by side, each with up to ``planes`` planes,
    their roots on node 0 (a long sentence with many covered roots and crossings)."""
    heads = [-1]
    for _ in range(count):
        block = tree_in_class(rng.randint, 10, planes, True, 30)
        heads += [h + len(heads) - 1 if h > 0 else 0 for h in block[1:]]
    return heads
