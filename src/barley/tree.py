"""Properties of dependency trees given as head arrays.

A tree over the words 1..n is an integer sequence ``heads`` of length n + 1:
``heads[d]`` is the head of word ``d`` and ``heads[0]`` (the artificial root) is
ignored. Nodes are numbered by their position in the sentence, so an arc is the
pair of positions (heads[d], d).

Definitions implemented:

- well-formedness: ROOT, SINGLE-HEAD, ACYCLICITY and connectedness (Nivre 2008,
  Definition 2); several words attached to 0 are allowed unless ``single_root``;
- projectivity of an arc i → j: i →* k for every k between i and j (Nivre 2008,
  Definition 3);
- projective order: the inorder traversal of the tree that keeps each head among
  its dependents in their word order (Nivre 2009, §3.2);
- crossing links, planarity and m-planarity through the crossings graph
  (Gómez-Rodríguez and Nivre 2010, §2.3–3); arcs from the artificial root are left
  out by default, as in their Table 1 where the graph is over the words 1..n;
- well-nestedness: no two disjoint subtrees interleave (Bodirsky et al. 2005, as
  used by Kuhlmann and Nivre 2006 and Gómez-Rodríguez and Nivre 2010, Table 1);
- gap degree: the largest number of gaps in the yield of a node (Bodirsky et al. 2005).

All functions except :func:`check_tree` assume a well-formed tree.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Sequence
from typing import cast

import numpy as np

Heads = Sequence[int] | np.ndarray


def check_tree(heads: Heads, single_root: bool = False) -> str | None:
    """Why ``heads`` is not a well-formed dependency tree rooted at 0, or None if it is.

    SINGLE-HEAD holds by construction (one entry per word) and ROOT too (entry 0 is
    ignored); what remains is that every word has a head in 0..n and that following
    heads from any word reaches 0 (ACYCLICITY and connectedness). With
    ``single_root`` exactly one word may be attached to 0 (as UD requires).
    """
    heads = [int(h) for h in heads]
    n = len(heads) - 1
    for word in range(1, n + 1):
        head = heads[word]
        if head < 0:
            return f"word {word} has no head, so it is not connected to the root"
        if head > n:
            return f"word {word} has head {head}, outside the sentence (0..{n})"
        if head == word:
            return f"word {word} is its own head (a cycle)"
    roots = [word for word in range(1, n + 1) if heads[word] == 0]
    if n > 0 and not roots:
        return "no word is attached to the root 0 (following heads always ends in a cycle)"
    if single_root and len(roots) > 1:
        return f"{len(roots)} words are attached to the root 0 ({', '.join(map(str, roots))}); one is allowed"
    # Walk up from every word; a walk that comes back to a node of its own path is a cycle.
    state = [0] * (n + 1)  # 0 = unvisited, 1 = on the current path, 2 = reaches the root
    state[0] = 2
    for start in range(1, n + 1):
        path = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node]
        if state[node] == 1:
            cycle = path[path.index(node):]
            return "cycle " + " → ".join(map(str, [*cycle, node])) + " (not connected to the root)"
        for visited in path:
            state[visited] = 2
    return None


def dependents_lists(heads: Sequence[int]) -> list[list[int]]:
    """Per node 0..n, its dependents in ``heads`` (-1 = no head), in word order."""
    dependents: list[list[int]] = [[] for _ in heads]
    for word in range(1, len(heads)):
        if heads[word] >= 0:
            dependents[heads[word]].append(word)
    return dependents


def _subtree_intervals(heads: list[int]) -> tuple[list[int], list[int]]:
    """Pre-order number ``pre[v]`` and ``last[v]``, the largest pre-order number in v's subtree.

    ``u`` dominates ``v`` (u →* v) iff ``pre[u] <= pre[v] <= last[u]``, an O(1) test.
    """
    children = dependents_lists(heads)
    order = []
    stack = [0]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(children[node]))
    pre = [0] * len(heads)
    for number, node in enumerate(order):
        pre[node] = number
    size = [1] * len(heads)
    for node in reversed(order[1:]):
        size[heads[node]] += size[node]
    last = [pre[node] + size[node] - 1 for node in range(len(heads))]
    return pre, last


def nonprojective_arcs(heads: Heads) -> list[int]:
    """The dependents d whose arc heads[d] → d is non-projective (Nivre 2008, Definition 3).

    The arc is projective iff its head dominates every node strictly between its
    ends, i.e. iff the pre-order numbers of those nodes all lie in the head's
    subtree interval: one min and one max over the span, O(sum of arc lengths).
    """
    heads = [int(h) for h in heads]
    pre, last = _subtree_intervals(heads)
    result = []
    for dependent in range(1, len(heads)):
        head = heads[dependent]
        left, right = min(head, dependent), max(head, dependent)
        if right - left < 2:
            continue
        inside = pre[left + 1:right]
        if min(inside) < pre[head] or max(inside) > last[head]:
            result.append(dependent)
    return result


def is_projective(heads: Heads) -> bool:
    """True iff every arc is projective (Nivre 2008, Definition 3)."""
    return not nonprojective_arcs(heads)


def lift_to_projective(heads: Heads, order: str = "shortest") -> tuple[list[int], list[list[int]]]:
    """Lift non-projective arcs until the tree is projective (Nivre & Nilsson 2005 §3).

    Lifting the arc h → d makes it g → d with g the head of h. ``order`` picks the arc
    lifted next: ``shortest`` (ties: leftmost dependent) or ``deepest`` dependent (ties:
    leftmost), as MaltParser's lifting orders. Returns the new heads and, per node, the
    heads it was lifted over, in order. Every arc that is not lifted is kept.
    """
    current = [int(h) for h in heads]
    over: list[list[int]] = [[] for _ in current]
    while nonprojective := nonprojective_arcs(current):
        if order == "shortest":
            dependent = min(nonprojective, key=lambda d: (abs(current[d] - d), d))
        else:
            depth = _depths(current)
            dependent = min(nonprojective, key=lambda d: (-depth[d], d))
        over[dependent].append(current[dependent])
        current[dependent] = current[current[dependent]]
    return current, over


def _depths(heads: list[int]) -> list[int]:
    depth = [-1] * len(heads)
    depth[0] = 0
    for node in range(1, len(heads)):
        chain = []
        while depth[node] < 0:
            chain.append(node)
            node = heads[node]
        for above, below in enumerate(reversed(chain), start=depth[node] + 1):
            depth[below] = above
    return depth


def projective_order(heads: Heads) -> list[int]:
    """Position of each node 0..n in the projective order (Nivre 2009, §3.2).

    The order is the inorder traversal of the tree in which every node comes after
    its left dependents and before its right dependents, all in word order; the
    tree is projective with respect to it.
    """
    heads = [int(h) for h in heads]
    children = dependents_lists(heads)
    position = [0] * len(heads)
    counter = 0
    # Iterative inorder: a stack entry (node, expanded) visits the node itself when expanded.
    stack: list[tuple[int, bool]] = [(0, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            position[node] = counter
            counter += 1
            continue
        left = [child for child in children[node] if child < node]
        right = [child for child in children[node] if child > node]
        stack.extend((child, False) for child in reversed(right))
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(left))
    return position


def _arcs(heads: Heads, include_root: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dependents, left ends and right ends of the arcs considered."""
    heads = np.asarray(heads, dtype=np.int64)
    dependents = np.arange(1, len(heads))
    if not include_root:
        dependents = dependents[heads[1:] != 0]
    arc_heads = heads[dependents]
    return dependents, np.minimum(arc_heads, dependents), np.maximum(arc_heads, dependents)


def crossing_pairs(heads: Heads, include_root: bool = False) -> list[tuple[int, int]]:
    """Pairs (d1, d2), d1 < d2, of dependents whose arcs cross.

    Arcs (a, b) and (c, e), a < b, c < e, a <= c, cross iff a < c < b < e
    (Gómez-Rodríguez and Nivre 2010, §2.3); arcs sharing an end never cross.
    """
    dependents, left, right = _arcs(heads, include_root)
    # cross[i, j]: arc i starts first and arc j starts inside it and ends outside it.
    cross = (left[:, None] < left[None, :]) & (left[None, :] < right[:, None]) & (right[:, None] < right[None, :])
    first, second = np.nonzero(cross)
    pairs = {tuple(sorted((int(dependents[i]), int(dependents[j])))) for i, j in zip(first, second)}
    return sorted(cast(set[tuple[int, int]], pairs))


def crossing_share(trees: Iterable[Heads]) -> float:
    """The share of the arcs of ``trees`` (the root's left out, as in :func:`crossing_pairs`) that
    cross another arc; 0 for trees without arcs."""
    arcs = crossing = 0
    for heads in trees:
        arcs += sum(1 for head in heads[1:] if head != 0)
        crossing += len({dependent for pair in crossing_pairs(heads) for dependent in pair})
    return crossing / arcs if arcs else 0.0


def is_planar(heads: Heads, include_root: bool = False) -> bool:
    """True iff no two arcs cross (Gómez-Rodríguez and Nivre 2010, Definition 4)."""
    return not crossing_pairs(heads, include_root)


def planarity(heads: Heads, include_root: bool = False) -> tuple[int, dict[int, int]]:
    """The smallest m for which the tree is m-planar, and a plane 0..m-1 for each arc's dependent.

    Gómez-Rodríguez and Nivre (2010, §3): m is the chromatic number of the crossings
    graph (one vertex per arc, an edge per crossing pair). Each connected component
    is coloured on its own: breadth-first 2-colouring, and an exact backtracking
    search for 3, 4, ... colours on the (small, rare) components that are not
    bipartite. A tree without crossings is 1-planar.
    """
    dependents, _, _ = _arcs(heads, include_root)
    neighbours: dict[int, list[int]] = {int(d): [] for d in dependents}
    for first, second in crossing_pairs(heads, include_root):
        neighbours[first].append(second)
        neighbours[second].append(first)
    planes: dict[int, int] = {}
    m = 1
    for start in neighbours:
        if start in planes:
            continue
        component = _two_colour(start, neighbours, planes)
        if component is not None:
            m = max(m, 2 if len(component) > 1 else 1)
            continue
        component = _component(start, neighbours)
        colours = 3
        while not _colour(component, neighbours, colours, planes):
            colours += 1
        m = max(m, colours)
    return m, planes


def _component(start: int, neighbours: dict[int, list[int]]) -> list[int]:
    seen = {start}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for other in neighbours[node]:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return sorted(seen)


def _two_colour(start: int, neighbours: dict[int, list[int]], planes: dict[int, int]) -> list[int] | None:
    """BFS 2-colouring of start's component into ``planes``; None (and no change) if it is not bipartite."""
    colour = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for other in neighbours[node]:
            if other not in colour:
                colour[other] = 1 - colour[node]
                queue.append(other)
            elif colour[other] == colour[node]:
                return None
    planes.update(colour)
    return list(colour)


def _colour(component: list[int], neighbours: dict[int, list[int]], colours: int,
            planes: dict[int, int]) -> bool:
    """Exact k-colouring of one component by backtracking; fills ``planes`` on success."""
    # Most constrained first: high-degree vertices fail early.
    order = sorted(component, key=lambda node: -len(neighbours[node]))
    colour: dict[int, int] = {}

    def assign(index: int) -> bool:
        if index == len(order):
            return True
        node = order[index]
        used = {colour[other] for other in neighbours[node] if other in colour}
        # Trying only one colour beyond those used so far removes symmetric duplicates.
        limit = min(colours, max(colour.values(), default=-1) + 2)
        for value in range(limit):
            if value not in used:
                colour[node] = value
                if assign(index + 1):
                    return True
                del colour[node]
        return False

    if not assign(0):
        return False
    planes.update(colour)
    return True


def is_well_nested(heads: Heads) -> bool:
    """True iff no two disjoint subtrees interleave (Bodirsky et al. 2005).

    Subtrees T(u) and T(v) interleave if l1 < l2 < r1 < r2 for some l1, r1 in T(u)
    and l2, r2 in T(v). Two interleaving disjoint subtrees are joined inside by
    paths drawn above the words whose ends alternate, so some arc of one crosses
    some arc of the other; conversely two crossing arcs whose heads do not dominate
    one another lie in the disjoint subtrees of those heads. Hence: ill-nested iff
    some pair of crossing arcs has heads that are not in an ancestor relation.
    """
    heads = [int(h) for h in heads]
    pre, last = _subtree_intervals(heads)

    def dominates(u: int, v: int) -> bool:
        return pre[u] <= pre[v] <= last[u]

    for first, second in crossing_pairs(heads):
        u, v = heads[first], heads[second]
        if not dominates(u, v) and not dominates(v, u):
            return False
    return True


def gaps(heads: Heads) -> list[int]:
    """Number of gaps in the yield of each node 0..n (blocks of its yield minus one).

    Position j begins a block of the yield of every node that dominates j but not
    j - 1: the nodes on the path from j up to, not including, the lowest common
    ancestor of j - 1 and j. Walking those paths costs O(n · depth).
    """
    heads = [int(h) for h in heads]
    pre, last = _subtree_intervals(heads)
    blocks = [0] * len(heads)
    blocks[0] = 1
    for position in range(1, len(heads)):
        node = position
        previous = pre[position - 1]
        while not (pre[node] <= previous <= last[node]):
            blocks[node] += 1
            node = heads[node]
    return [count - 1 for count in blocks]


def gap_degree(heads: Heads) -> int:
    """The gap degree of the tree: the largest number of gaps in the yield of a node."""
    return max(gaps(heads))


def arc_lengths(heads: Heads) -> np.ndarray:
    """|heads[d] - d| for every node d, indexed like ``heads`` (entry 0 is 0)."""
    heads = np.asarray(heads, dtype=np.int64)
    lengths = np.abs(heads - np.arange(len(heads)))
    lengths[0] = 0
    return lengths


def label_table(trees: Sequence[tuple[Heads, Sequence[str]]]) -> tuple[list[str], int]:
    """The label table of training trees (``(heads, deprels)``): the labels in order of
    first use, and the id of the commonest label of a word attached to the root 0."""
    labels = list(dict.fromkeys(label for _, deprels in trees for label in deprels[1:]))
    roots = Counter(deprels[d] for heads, deprels in trees for d in range(1, len(heads)) if heads[d] == 0)
    return labels, labels.index(roots.most_common(1)[0][0])


def label_ids(trees: Sequence[tuple[Heads, Sequence[str]]], labels: Sequence[str]) -> list[list[int]]:
    """Each tree's DEPREL as ids into ``labels`` (e.g. :func:`label_table`'s), node 0's -1."""
    label_id = {label: i for i, label in enumerate(labels)}
    return [[-1] + [label_id[d] for d in deprels[1:]] for _, deprels in trees]
