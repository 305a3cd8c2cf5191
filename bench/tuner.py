"""The tuner's overhead over the games it plays: a best-response race (Sen, 4 players, threshold's wake from
2 to 30 against a table of the default threshold, 8,000 deals per setting at most) on one core, its wall
time against the engine's own time for the chunks it played (``play_chunk``, summed).

``python -m bench.tuner [DEALS]`` prints one JSON row; ``make bench`` prints it in its table.
"""
from __future__ import annotations

import json
import sys
import time


def bench(deals: int = 8000, repeats: int = 2) -> dict:
    from experiments.config import load
    from experiments.answers import REGISTRY
    from experiments.search import Evaluator

    raw = {"title": "bench", "question": "tuner overhead", "game": "sen", "players": 4, "games": deals, "seed": 1,
           "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
           "search": {"focus.wake": {"min": 2, "max": 30, "step": 1}}, "report": {"answer": "best_response"}}
    cfg = load(raw)
    kind = REGISTRY["best_response"]
    kind.search(load({**raw, "games": 200}), Evaluator(load({**raw, "games": 200})))  # load the kernels
    best = None
    for _ in range(repeats):
        ev = Evaluator(cfg)
        t0 = time.perf_counter()
        kind.search(cfg, ev)
        wall = time.perf_counter() - t0
        row = {"game": "sen", "players": 4, "search": "race of 29 wake values", "deals_per_setting": deals,
               "games": ev.games, "engine_s": round(ev.engine_seconds, 3), "search_s": round(wall, 3),
               "overhead_pct": round(100 * (wall / ev.engine_seconds - 1), 1)}
        if best is None or row["overhead_pct"] < best["overhead_pct"]:
            best = row
    return best


if __name__ == "__main__":
    print(json.dumps(bench(int(sys.argv[1]) if len(sys.argv) > 1 else 8000)))
