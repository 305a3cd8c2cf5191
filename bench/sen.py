"""Speed of the Sen engine against the plain-Python oracle, one process, one core.

``python -m bench.sen [SECONDS]`` prints the figures for 4 players with ``threshold`` in every seat, in
the compiled lane and in the turn-by-turn batch lane.
"""
from __future__ import annotations

import json
import sys

from .common import engine_vs_oracle, same_speed, shares

#: the built-in heuristics (every Sen strategy but the reference policy and random)
HEURISTICS = ("counter", "watcher", "swapper", "gambler")
#: Sen's reference policy written as a user's file (compiled form)
USER_THRESHOLD = "examples/strategies/sen_threshold.py:Threshold"


def bench(seconds: float = 5.0, policy: str = "threshold", players: int = 4, compiled: bool = True) -> dict:
    sys.path.insert(0, ".")
    from tests.oracles.sen import play_games

    return engine_vs_oracle("sen", players, policy, lambda n, seed: play_games(n, seed, players, [policy]),
                            seconds, batch=32768, small=500, compiled=compiled)


def heuristics(seconds: float = 3.0, players: int = 4, reference: str = "threshold") -> list[dict]:
    """Each heuristic's speed (every seat, compiled lane) as a share of ``threshold``'s."""
    return shares("sen", HEURISTICS, reference, players, seconds, n=8192, n_reference=32768)


def user_file(seconds: float = 3.0, players: int = 4) -> dict:
    """The built-in ``threshold:wake=10`` against the same policy from ``examples/strategies/sen_threshold.py``
    (``ratio``: the file's speed over the built-in's; the aim is within 10%)."""
    sys.path.insert(0, ".")
    return same_speed("sen", "threshold:wake=10", USER_THRESHOLD + ":wake=10", players, seconds)


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    print(json.dumps(bench(secs)))
    print(json.dumps(bench(secs, compiled=False)))
