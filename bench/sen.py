"""Speed of the Sen engine against the plain-Python oracle, one process, one core.

``python -m bench.sen [SECONDS]`` prints the figures for 4 players with ``threshold`` in every seat, in
the compiled lane and in the turn-by-turn batch lane.
"""
from __future__ import annotations

import json
import sys

from .common import engine_vs_oracle


def bench(seconds: float = 5.0, policy: str = "threshold", players: int = 4, compiled: bool = True) -> dict:
    sys.path.insert(0, ".")
    from tests.oracles.sen import play_games

    return engine_vs_oracle("sen", players, policy, lambda n, seed: play_games(n, seed, players, [policy]),
                            seconds, batch=32768, small=500, compiled=compiled)


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    print(json.dumps(bench(secs)))
    print(json.dumps(bench(secs, compiled=False)))
