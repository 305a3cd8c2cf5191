"""Speed of the Senshi engine against the plain-Python oracle, one process, one core.

``python -m bench.senshi [SECONDS]`` prints the figures for 4 players with ``greedy`` in every seat
(full games per second, set-up included).
"""
from __future__ import annotations

import json
import sys

from simcore.runner import simulate
from strategies.registry import lineup

from .common import alternate

GAME = "senshi"


def bench(seconds: float = 5.0, policy: str = "greedy", players: int = 4) -> dict:
    sys.path.insert(0, ".")
    from tests.oracles.senshi import play_games

    agents = lineup(GAME, [policy], players)
    simulate(GAME, agents, n_games=512, seed=0)  # compile / load the kernels
    seed = [0]
    batch, small = 65536, 500

    def engine() -> int:
        seed[0] += 1
        simulate(GAME, agents, n_games=batch, seed=seed[0], jobs=1)
        return batch

    def oracle() -> int:
        seed[0] += 1
        play_games(small, players, policy, seed=seed[0])
        return small

    eng, ora = alternate(engine, oracle, seconds)
    return {"game": GAME, "players": players, "policy": policy, "engine_games_per_s": round(eng),
            "oracle_games_per_s": round(ora), "ratio": round(eng / ora, 1)}


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    print(json.dumps(bench(secs)))
