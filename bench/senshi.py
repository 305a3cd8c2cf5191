"""Speed of the Senshi engine against the plain-Python oracle, one process, one core.

``python -m bench.senshi [SECONDS]`` prints the figures for 4 players with ``greedy`` in every seat
(full games per second, set-up included).
"""
from __future__ import annotations

import json
import sys

from .common import engine_vs_oracle


def bench(seconds: float = 5.0, policy: str = "greedy", players: int = 4) -> dict:
    sys.path.insert(0, ".")
    from tests.oracles.senshi import play_games

    return engine_vs_oracle("senshi", players, policy, lambda n, seed: play_games(n, players, policy, seed=seed),
                            seconds, batch=65536, small=500)


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    print(json.dumps(bench(secs)))
