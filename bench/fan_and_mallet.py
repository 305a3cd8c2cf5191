"""Speed of the Fan & Mallet engine against the plain-Python oracle, one process, one core.

``python -m bench.fan_and_mallet [SECONDS]`` prints the figures for both reference policies (in both
seats), in the compiled lane and in the batch lane, then every heuristic's speed as a share of the
reference policy ``random``'s (both measured alternately in this process, compiled lane).
"""
from __future__ import annotations

import json
import sys

from .common import alternate, engine_vs_oracle

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
    """Games per second of each strategy of ``names`` in both seats and of ``reference`` in both seats,
    measured alternately (``simulate``, one worker, compiled lane), and their ratio."""
    from simcore.runner import simulate
    from strategies.registry import lineup

    ref = lineup(GAME, [reference], 2)
    simulate(GAME, ref, n_games=512, seed=0)
    rows = []
    seed = [0]

    def runner(agents, n):
        def run() -> int:
            seed[0] += 1
            simulate(GAME, agents, n_games=n, seed=seed[0], jobs=1)
            return n
        return run

    for name in names:
        agents = lineup(GAME, [name], 2)
        simulate(GAME, agents, n_games=512, seed=0)  # compile / load the kernels
        n = 65536 if name == "strongest" else 16384
        speed, ref_speed = alternate(runner(agents, n), runner(ref, 65536), seconds)
        rows.append({"game": GAME, "players": 2, "strategy": name, "games_per_s": round(speed),
                     "reference": reference, "reference_games_per_s": round(ref_speed),
                     "share_of_reference": round(speed / ref_speed, 3)})
    return rows


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    for pol in ("random", "strongest"):
        for compiled in (True, False):
            print(json.dumps(bench(secs, pol, compiled=compiled)))
    for row in heuristics(secs):
        print(json.dumps(row))
