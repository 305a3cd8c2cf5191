"""``make bench``: one table for every game: engine games per second on one core, the plain-Python
oracle's speed and the ratio, the speed-up of 2 workers over 1, every heuristic's speed as a share of
its game's reference policy (for the games whose bench module measures it), peak memory of a large run,
and the search player's decisions and iterations per second (``bench/search.py``).

``python -m bench.run [--seconds S] [--big-games N] [--quick]``. Figures are measured in one run on one
machine: compare ratios, not absolute numbers.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from .common import jobs_speedup, peak_memory, sensei_cmd

#: rows of the table: (game, bench module, its keyword arguments, lineup for the 2-worker run, players)
ROWS = [
    ("sen", "bench.sen", {}, ["threshold"], 4),
    ("sen", "bench.sen", {"compiled": False}, ["threshold"], 4),
    ("senshi", "bench.senshi", {}, ["greedy"], 4),
    ("sensu", "bench.sensu", {"players": 4}, ["random"], 4),
    ("sensu", "bench.sensu", {"players": 4, "compiled": False}, ["random"], 4),
    ("sensu", "bench.sensu", {"players": 1}, ["random"], 1),
    ("sensu", "bench.sensu", {"players": 1, "compiled": False}, ["random"], 1),
    ("fan-and-mallet", "bench.fan_and_mallet", {}, ["random"], 2),
    ("fan-and-mallet", "bench.fan_and_mallet", {"compiled": False}, ["random"], 2),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=6.0, help="seconds per speed measurement")
    ap.add_argument("--jobs-games", type=int, default=262144, help="games for the 2-worker speed-up")
    ap.add_argument("--big-games", type=int, default=10_000_000, help="games of the large Sen run (memory)")
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    args = ap.parse_args(argv)
    if args.quick:
        args.seconds, args.jobs_games, args.big_games = 1.0, 16384, 50_000
    rows = []
    for game, module, kwargs, specs, players in ROWS:
        mod = importlib.import_module(module)
        res = mod.bench(args.seconds, **kwargs)
        res["speedup_2_jobs"] = round(jobs_speedup(game, specs, players, args.jobs_games,
                                                   compiled=kwargs.get("compiled", True)), 2)
        rows.append(res)
        print(json.dumps(res), file=sys.stderr)
    # heuristics: a game's bench module may define ``heuristics(seconds)``, rows of each heuristic's speed
    # as a share of its reference policy's, measured alternately in one process
    shares = []
    for module in dict.fromkeys(module for _, module, _, _, _ in ROWS):
        measure = getattr(importlib.import_module(module), "heuristics", None)
        for row in (measure(args.seconds) if measure else []):
            shares.append(row)
            print(json.dumps(row), file=sys.stderr)
    # peak memory of one large run through the command line, and of a run 10x smaller (flatness)
    mem = []
    for n in (args.big_games // 10, args.big_games):
        cmd = sensei_cmd() + ["play", "sen", "--games", str(n), "--jobs", "2", "--json", "--seed", "1"]
        peak, secs, _ = peak_memory(cmd)
        mem.append({"games": n, "peak_mib": round(peak / 2 ** 20, 1), "seconds": round(secs, 1),
                    "games_per_s": round(n / secs)})
    print()
    print(f"{'game':<16}{'players':>8}{'policy':>12}{'lane':>10}{'engine g/s':>12}{'oracle g/s':>12}{'ratio':>8}"
          f"{'2 jobs':>8}")
    for r in rows:
        print(f"{r['game']:<16}{r['players']:>8}{str(r.get('policy', '')):>12}{r.get('lane', ''):>10}"
              f"{r['engine_games_per_s']:>12,}"
              f"{r['oracle_games_per_s']:>12,}{r['ratio']:>8}{r['speedup_2_jobs']:>8}")
    if shares:
        print()
        print(f"{'game':<16}{'players':>8}{'heuristic':>12}{'g/s':>12}{'reference':>12}{'ref g/s':>12}{'share':>8}")
        for r in shares:
            print(f"{r['game']:<16}{r['players']:>8}{r['strategy']:>12}{r['games_per_s']:>12,}{r['reference']:>12}"
                  f"{r['reference_games_per_s']:>12,}{r['share_of_reference']:>8}")
    print()
    print("peak memory, sen 4 players threshold, --jobs 2, whole process tree:")
    for m in mem:
        print(f"  {m['games']:>12,} games: {m['peak_mib']:>8} MiB in {m['seconds']} s ({m['games_per_s']:,} games/s)")
    # the search player: decisions and iterations per second on one core at its default budget
    from .search import GAMES as SEARCH_GAMES
    from .search import speed as search_speed
    search_rows = []
    for game in SEARCH_GAMES:
        r = search_speed(game, positions=8 if args.quick else 64, games=4 if args.quick else 40)
        search_rows.append(r)
        print(json.dumps(r), file=sys.stderr)
    print()
    print(f"{'game':<16}{'search':>10}{'iterations':>12}{'decisions/s':>13}{'iterations/s':>14}"
          f"{'1000 games, 2 cores':>21}")
    for r in search_rows:
        print(f"{r['game']:<16}{'ismcts':>10}{r['iterations']:>12,}{r['decisions_per_s']:>13,}"
              f"{r['iterations_per_s']:>14,}{r['minutes_1000_games_2_cores']:>17} min")
    from .tuner import bench as tuner_bench
    t = tuner_bench(2000 if args.quick else 8000)
    print()
    print(f"tuner overhead ({t['search']}, {t['deals_per_setting']:,} deals per setting at most, one core): "
          f"{t['games']:,} games, engine {t['engine_s']} s, search {t['search_s']} s, overhead {t['overhead_pct']}% "
          "(aim: under 10%)")
    print(f"cores: {os.cpu_count()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
