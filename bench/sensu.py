"""Speed of the Sensu engine against the plain-Python oracle, one process, one core.

``python -m bench.sensu [SECONDS]`` prints the figures for 4 players and for solo, ``random`` in every
seat (the reference policy that the oracle implements), in the compiled lane and in the batch lane, then the
speed of every heuristic (the same strategy in every seat, 4 players) as a share of ``random``'s in the
compiled lane, measured alternately in this process.
"""
from __future__ import annotations

import json
import sys

from .common import engine_vs_oracle, shares

#: the built-in heuristics (every Sensu strategy but the reference policy)
HEURISTICS = ("redeemer", "planner", "focus")


def bench(seconds: float = 5.0, players: int = 4, policy: str = "random", chunk_size: int | None = None,
          compiled: bool = True) -> dict:
    sys.path.insert(0, ".")
    from simcore.registry import get_game
    from strategies.registry import lineup
    from tests.oracles.sensu import play_games

    res = engine_vs_oracle("sensu", players, policy, lambda n, seed: play_games(players, n, seed=seed), seconds,
                           batch=65536 if players > 1 else 131072, small=200 if players > 1 else 1000,
                           chunk_size=chunk_size, compiled=compiled)
    # the lane that played: the compiled one when every decision of the lineup is compiled
    res["lane"] = "compiled" if compiled and get_game("sensu").lineup(lineup("sensu", [policy], players)).all_compiled \
        else "batch"
    return res


def heuristics(seconds: float = 3.0, players: int = 4, reference: str = "random") -> list[dict]:
    """Each heuristic's speed (every seat, compiled lane) as a share of ``reference``'s."""
    return shares("sensu", HEURISTICS, reference, players, seconds, n=8192, n_reference=32768)


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    for p in (4, 1):
        for compiled in (True, False):
            print(json.dumps(bench(secs, players=p, compiled=compiled)))
    for row in heuristics(secs):
        print(json.dumps(row))
