"""Helpers of the tests that compare an engine's compiled lane with its batch lane."""
from __future__ import annotations

import numpy as np

from simcore.conformance import same_outcomes
from simcore.game import Seats


def assert_same(a: dict, b: dict, what: str = "") -> None:
    """Two outcomes (dicts of per-game columns) are equal, column by column and game by game."""
    same_outcomes(a, b, what)


def assert_same_ends(eng, agents, players: int, rules, keys: np.ndarray, limit: int | None = None):
    """Play the same fresh batch in both lanes; every state array and every seat's random-stream counter
    must end equal. Returns (final state, stream counters) of the compiled lane."""
    ends = _ends(eng, agents, players, rules, keys, limit)
    (a, ca), (b, cb) = ends
    for name, value in vars(a).items():
        if isinstance(value, np.ndarray) and name not in eng.state_constants:  # scratch space differs
            np.testing.assert_array_equal(value, getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(ca, cb)
    return b, cb


def _ends(eng, agents, players, rules, keys, limit):
    ends = []
    for compiled in (False, True):
        state = eng.new_batch(keys, players, rules)
        seats = Seats(agents, keys)
        eng.play_state(state, seats, compiled=compiled, limit=limit)
        ends.append((state, seats.draws.counter.copy()))
    return ends


#: the searching strategies at a budget small enough for the suites that play every strategy
CHEAP_SPECS = {"ismcts": "ismcts:iterations=8"}


def cheap(spec: str) -> str:
    """``spec``, with a search's budget cut down for the tests that play every strategy."""
    return CHEAP_SPECS.get(spec, spec)
