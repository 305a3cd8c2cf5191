"""Speed of the Senshi engine against the plain-Python oracle, one process, one core.

``python -m bench.senshi [SECONDS]`` prints the figures for 4 players with ``greedy`` in every seat (full
games per second, set-up included) in the compiled lane and in the batch lane, then the speed of every
heuristic (the same strategy in every seat) as a share of ``greedy``'s in the compiled lane, measured
alternately in this process.
"""
from __future__ import annotations

import json
import sys

from .common import alternate, engine_vs_oracle

#: the built-in heuristics (every Senshi strategy but the reference policies)
HEURISTICS = ("guard", "racer", "denier", "counter")


def bench(seconds: float = 5.0, policy: str = "greedy", players: int = 4, compiled: bool = True) -> dict:
    sys.path.insert(0, ".")
    from tests.oracles.senshi import play_games

    return engine_vs_oracle("senshi", players, policy, lambda n, seed: play_games(n, players, policy, seed=seed),
                            seconds, batch=65536, small=500, compiled=compiled)


def heuristics(seconds: float = 3.0, players: int = 4, reference: str = "greedy") -> list[dict]:
    """Games per second of each heuristic and of ``reference`` (every seat, compiled lane), measured
    alternately for ``seconds`` each, and their ratio (``share``)."""
    from simcore.runner import simulate
    from strategies.registry import lineup

    ref = lineup("senshi", [reference], players)
    seed = [0]

    def run(agents, n):
        def go() -> int:
            seed[0] += 1
            simulate("senshi", agents, n_games=n, seed=seed[0], jobs=1)
            return n
        return go

    rows = []
    for name in HEURISTICS:
        agents = lineup("senshi", [name], players)
        simulate("senshi", agents, n_games=512, seed=0)   # compile / load the kernels
        h, r = alternate(run(agents, 16384), run(ref, 65536), seconds)
        rows.append({"game": "senshi", "players": players, "policy": name, "reference": reference,
                     "games_per_s": round(h), "reference_games_per_s": round(r), "share": round(h / r, 3)})
    return rows


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    print(json.dumps(bench(secs)))
    print(json.dumps(bench(secs, compiled=False)))
    for row in heuristics(secs):
        print(json.dumps(row))
