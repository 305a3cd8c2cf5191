"""Speed of the Sensu engine against the plain-Python oracle, one process, one core.

``python -m bench.sensu [SECONDS]`` prints the figures for 4 players and for solo, ``random`` in every
seat (the reference policy that the oracle implements), in the compiled lane and in the turn-by-turn
(batch) lane.
"""
from __future__ import annotations

import json
import sys

from .common import engine_vs_oracle


def bench(seconds: float = 5.0, players: int = 4, policy: str = "random", chunk_size: int | None = None,
          compiled: bool = True) -> dict:
    sys.path.insert(0, ".")
    from tests.oracles.sensu import play_games

    return engine_vs_oracle("sensu", players, policy, lambda n, seed: play_games(players, n, seed=seed), seconds,
                            batch=65536 if players > 1 else 131072, small=200 if players > 1 else 1000,
                            chunk_size=chunk_size, compiled=compiled)


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    for p in (4, 1):
        for compiled in (True, False):
            print(json.dumps(bench(secs, players=p, compiled=compiled)))
