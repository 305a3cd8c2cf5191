"""Speed of the Fan & Mallet engine against the plain-Python oracle, one process, one core.

``python -m bench.fan_and_mallet [SECONDS]`` prints the figures for both reference policies (in both
seats), in the compiled lane and in the batch lane, then every heuristic's speed as a share of the
reference policy ``random``'s (both measured alternately in this process, compiled lane).
"""
from __future__ import annotations

import json
import sys

from .common import engine_vs_oracle, shares

GAME = "fan-and-mallet"
#: the built-in heuristics (and ``strongest``), each measured against ``random``
HEURISTICS = ("strongest", "closer", "keeper", "counter")


def bench(seconds: float = 5.0, policy: str = "random", chunk_size: int | None = None,
          compiled: bool = True) -> dict:
    """Engine (``simulate``, one worker) and oracle games per second with ``policy`` in both seats
    (``compiled=False``: the batch lane)."""
    sys.path.insert(0, ".")
    from tests.oracles.fan_and_mallet import play_games

    return engine_vs_oracle(GAME, 2, policy, lambda n, seed: play_games(n, seed, (policy, policy)),
                            seconds, batch=65536, small=1000, chunk_size=chunk_size, compiled=compiled)


def heuristics(seconds: float = 5.0, names: tuple[str, ...] = HEURISTICS, reference: str = "random") -> list[dict]:
    """Each strategy of ``names`` (both seats, compiled lane) as a share of ``reference``'s speed."""
    return shares(GAME, names, reference, 2, seconds)


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    for pol in ("random", "strongest"):
        for compiled in (True, False):
            print(json.dumps(bench(secs, pol, compiled=compiled)))
    for row in heuristics(secs):
        print(json.dumps(row))
