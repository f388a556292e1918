"""Dynamic oracles: the interface of :class:`barley.systems.base.Costs`.

What every system promises: with ``exploration_oracle`` it gives a cost per move
(None exactly for the illegal ones) in any configuration; without, ``costs`` is a
clear :class:`NoDynamicOracle` error.
"""

from __future__ import annotations

import pytest

from barley.errors import BarleyError
from barley.systems import REGISTRY, NoDynamicOracle, get_system

SYSTEMS = sorted(REGISTRY)
ROOT_LABEL = 0


@pytest.mark.parametrize("name", SYSTEMS)
def test_costs_or_a_clear_error(name):
    system = get_system(name)
    heads, labels = [-1, 2, 0, 2], [-1, 1, ROOT_LABEL, 2]
    assert not system.dynamic_oracle or system.exploration_oracle, f"{name}: exact costs serve exploration too"
    if not system.exploration_oracle:
        with pytest.raises(NoDynamicOracle) as error:
            system.costs(heads, labels)
        assert isinstance(error.value, BarleyError) and name in str(error.value)
        return
    costs = system.costs(heads, labels)
    state = system.initial(3)
    while not system.is_terminal(state):
        legal = system.legal(state)
        per_move = costs(state)
        assert [cost is not None for cost in per_move] == legal, f"{name}: costs {per_move}, legal {legal}"
        assert all(cost >= 0 for cost in per_move if cost is not None)
        move, label = costs.zero_cost(state)[0]
        system.apply(state, move, label)
