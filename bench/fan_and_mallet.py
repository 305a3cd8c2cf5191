"""Speed of the Fan & Mallet engine against the plain-Python oracle, one process, one core.

``python -m bench.fan_and_mallet`` prints the figures for both reference policies.
"""
from __future__ import annotations

import json
import sys
import time

from simcore.runner import simulate
from strategies.registry import lineup

GAME = "fan-and-mallet"


def bench(seconds: float = 5.0, policy: str = "random", chunk_size: int | None = None) -> dict:
    """Engine (``simulate``, jobs=1) and oracle games per second with ``policy`` in both seats.

    ``chunk_size`` None uses the runner's default chunking for the batch size of each call (4096 games
    per chunk for 65536 games), as the command line does.
    """
    sys.path.insert(0, ".")
    from tests.oracles.fan_and_mallet import play_games

    agents = lineup(GAME, [policy], 2)
    batch = 65536
    simulate(GAME, agents, n_games=512, seed=0)  # compile / load the kernels
    seed = [0]

    def engine() -> int:
        seed[0] += 1
        simulate(GAME, agents, n_games=batch, seed=seed[0], jobs=1, chunk_size=chunk_size)
        return batch

    def oracle() -> int:
        seed[0] += 1
        play_games(1000, seed[0], (policy, policy))
        return 1000

    # alternate short runs of both so that a change in the machine's load affects both alike
    eng_n = ora_n = 0
    eng_t = ora_t = 0.0
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end or not (eng_n and ora_n):
        t0 = time.perf_counter()
        eng_n += engine()
        t1 = time.perf_counter()
        ora_n += oracle()
        t2 = time.perf_counter()
        eng_t += t1 - t0
        ora_t += t2 - t1
    eng, ora = eng_n / eng_t, ora_n / ora_t
    return {"game": GAME, "players": 2, "policy": policy, "engine_games_per_s": round(eng),
            "oracle_games_per_s": round(ora), "ratio": round(eng / ora, 1)}


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    for pol in ("random", "strongest"):
        print(json.dumps(bench(secs, pol)))
