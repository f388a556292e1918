"""assert_valid, UD's checks of enhanced graphs (DEPS): test_enhanced_rules, test_enhanced_head, test_parse_enhanced."""

from __future__ import annotations

import re

from barley import conllu
from barley.enhanced.deps import format_deps, parse_deps

EDEPREL = re.compile(r"^[a-z]+(:[a-z]+)?(:[^\W\d_]+(_[^\W\d_]+)*)?(:[a-z]+)?$")  # UD's validator, letters only


def assert_valid(sentence: conllu.Sentence, values: list[str]) -> None:
    """UD's level-2 checks of DEPS (sorted by head then relation, no repeats, no self-loop, valid relations),
    at least one head per word, and every word reachable from the root."""
    heads_of = {}
    for number, value in enumerate(values, 1):
        arcs = parse_deps(value, len(values))
        assert arcs, (number, value)
        assert format_deps(arcs) == value
        assert str(number) not in [head for head, _ in arcs]
        assert all(EDEPREL.match(relation) for _, relation in arcs), value
        assert all((head == "0") == (relation == "root") for head, relation in arcs), value  # UD's level 2
        heads_of[number] = [int(head) for head, _ in arcs]
    reached, frontier = {0}, [0]
    children = {}
    for dependent, heads in heads_of.items():
        for head in heads:
            children.setdefault(head, []).append(dependent)
    while frontier:
        for child in children.get(frontier.pop(), []):
            if child not in reached:
                reached.add(child)
                frontier.append(child)
    assert reached == set(range(len(values) + 1))
