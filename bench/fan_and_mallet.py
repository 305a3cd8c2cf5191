"""Speed of the Fan & Mallet engine against the plain-Python oracle, one process, one core.

``python -m bench.fan_and_mallet [SECONDS]`` prints the figures for both reference policies (in both
seats), in the compiled lane and in the turn-by-turn batch lane.
"""
from __future__ import annotations

import json
import sys

from .common import engine_vs_oracle


def bench(seconds: float = 5.0, policy: str = "random", chunk_size: int | None = None,
          compiled: bool = True) -> dict:
    """Engine (``simulate``, one worker) and oracle games per second with ``policy`` in both seats
    (``compiled=False``: the turn-by-turn lane)."""
    sys.path.insert(0, ".")
    from tests.oracles.fan_and_mallet import play_games

    return engine_vs_oracle("fan-and-mallet", 2, policy, lambda n, seed: play_games(n, seed, (policy, policy)),
                            seconds, batch=65536, small=1000, chunk_size=chunk_size, compiled=compiled)


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    for pol in ("random", "strongest"):
        for compiled in (True, False):
            print(json.dumps(bench(secs, pol, compiled=compiled)))
