"""CPU time of compiling the search player of one game in an empty cache: ``python -m bench.compile_search
GAME`` prints one JSON object (seconds of CPU, this process): the game's heuristics in both lanes (the
engine included), the search itself (timed around its first compile), the lineup module of ``ismcts`` in
the compiled and the batch lane, and ``ismcts`` beside the game's strongest heuristic. The figures of
docs/search.md's compile-time table come from it."""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time


def main(game: str) -> dict:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="sensei-compile-")  # before anything compiles
    os.environ.pop("NUMBA_CACHE_DIR", None)  # (a folder of the user's own would not be empty)
    import simcore.compiled as C

    spent: dict[str, float] = {}
    compile_once = C.compile_once

    def timed(fn, args):  # the search's first call compiles through this (simcore.compiled.FirstCallCompiles)
        t = time.process_time()
        compile_once(fn, args)
        name = getattr(fn, "__name__", str(fn))
        spent[name] = spent.get(name, 0.0) + time.process_time() - t
    C.compile_once = timed

    from bench.search import GAMES
    from simcore.runner import simulate
    from strategies.registry import lineup, strategy_names

    out: dict = {"game": game}
    t = time.process_time()
    for name in strategy_names(game):
        if name != "ismcts":
            for compiled in (True, False):
                simulate(game, lineup(game, [name], 2), n_games=2, compiled=compiled)
    out["heuristics_both_lanes"] = time.process_time() - t
    spent.clear()
    t = time.process_time()
    simulate(game, lineup(game, ["ismcts:iterations=8"], 2), n_games=1, compiled=True)
    total = time.process_time() - t
    out["search"] = sum(v for k, v in spent.items() if k.startswith("search"))
    out["lineup_compiled"] = total - out["search"]
    t = time.process_time()
    simulate(game, lineup(game, ["ismcts:iterations=8"], 2), n_games=1, compiled=False)
    out["lineup_batch"] = time.process_time() - t
    t = time.process_time()
    simulate(game, lineup(game, ["ismcts:iterations=8", GAMES[game]], 2), n_games=1, compiled=True)
    out["with_heuristic_compiled"] = time.process_time() - t
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in out.items()}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m bench.compile_search GAME")
    print(json.dumps(main(sys.argv[1])))
