"""Speed of the Senshi engine against the plain-Python oracle, one process, one core.

``python -m bench.senshi [SECONDS]`` prints the figures for 4 players with ``greedy`` in every seat (full
games per second, set-up included) in the compiled lane and in the batch lane, then the speed of every
heuristic (the same strategy in every seat) as a share of ``greedy``'s in the compiled lane, measured
alternately in this process.
"""
from __future__ import annotations

import json
import sys

from .common import engine_vs_oracle, shares

#: the built-in heuristics (every Senshi strategy but the reference policies)
HEURISTICS = ("guard", "racer", "denier", "counter")


def bench(seconds: float = 5.0, policy: str = "greedy", players: int = 4, compiled: bool = True) -> dict:
    sys.path.insert(0, ".")
    from tests.oracles.senshi import play_games

    return engine_vs_oracle("senshi", players, policy, lambda n, seed: play_games(n, players, policy, seed=seed),
                            seconds, batch=65536, small=500, compiled=compiled)


def heuristics(seconds: float = 3.0, players: int = 4, reference: str = "greedy") -> list[dict]:
    """Each heuristic's speed (every seat, compiled lane) as a share of ``reference``'s."""
    return shares("senshi", HEURISTICS, reference, players, seconds)


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    print(json.dumps(bench(secs)))
    print(json.dumps(bench(secs, compiled=False)))
    for row in heuristics(secs):
        print(json.dumps(row))
