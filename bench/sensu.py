"""Speed of the Sensu engine against the plain-Python oracle, one process, one core.

``python -m bench.sensu [SECONDS]`` prints the figures for 4 players and for solo, ``random`` in every
seat (the reference policy that the oracle implements).
"""
from __future__ import annotations

import json
import sys

from simcore.runner import simulate
from strategies.registry import lineup

from .common import alternate

GAME = "sensu"


def bench(seconds: float = 5.0, players: int = 4, policy: str = "random", chunk_size: int | None = None) -> dict:
    """Games per second of the engine (``simulate``, jobs=1, the runner's chunking unless ``chunk_size``)
    and of the oracle, measured alternately in this process."""
    sys.path.insert(0, ".")
    from tests.oracles.sensu import play_games

    agents = lineup(GAME, [policy], players)
    simulate(GAME, agents, n_games=512, seed=0)  # compile / load the kernels
    seed = [0]
    batch = 65536 if players > 1 else 131072  # the runner then uses its largest chunks (4096 games)
    small = 200 if players > 1 else 1000

    def engine() -> int:
        seed[0] += 1
        simulate(GAME, agents, n_games=batch, seed=seed[0], jobs=1, chunk_size=chunk_size)
        return batch

    def oracle() -> int:
        seed[0] += 1
        play_games(players, small, seed=seed[0])
        return small

    eng, ora = alternate(engine, oracle, seconds)
    return {"game": GAME, "players": players, "policy": policy, "chunk_size": chunk_size or "default",
            "engine_games_per_s": round(eng), "oracle_games_per_s": round(ora), "ratio": round(eng / ora, 1)}


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    for p in (4, 1):
        print(json.dumps(bench(secs, players=p)))
