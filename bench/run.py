"""``make bench``: one table for every game: engine games per second on one core, the plain-Python
oracle's speed and the ratio, the speed-up of 2 workers over 1, every heuristic's speed as a share of
its game's reference policy (for the games whose bench module measures it), peak memory of a large run,
and the search player's decisions and iterations per second (``bench/search.py``).

``python -m bench.run [--seconds S] [--big-games N] [--quick] [--write docs/speed.md]``. Figures are
measured in one run on one machine: compare ratios, not absolute numbers. ``--write FILE`` also puts the
tables, with the date, the commit and the machine, into FILE's block between ``<!-- bench: begin`` and
``<!-- bench: end -->`` (``make bench`` writes ``docs/speed.md``).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from .common import jobs_speedup, peak_memory, sensei_cmd, startup

#: timings of each of 1 and 2 workers for the smaller run (their medians give its speed-up)
SMALL_REPEATS = 7

#: rows of the table: (game, bench module, its keyword arguments, lineup for the 2-worker run, players)
ROWS = [
    ("sen", "bench.sen", {}, ["threshold"], 4),
    ("sen", "bench.sen", {"compiled": False}, ["threshold"], 4),
    ("senshi", "bench.senshi", {}, ["greedy"], 4),
    ("senshi", "bench.senshi", {"compiled": False}, ["greedy"], 4),
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
    ap.add_argument("--small-jobs-games", type=int, default=20000,
                    help="games of the smaller 2-worker run (2 workers must already pay off there)")
    ap.add_argument("--big-games", type=int, default=10_000_000, help="games of the large Sen run (memory)")
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--write", metavar="FILE", help="also write the tables into FILE's bench block (docs/speed.md)")
    args = ap.parse_args(argv)
    load_start = _load()
    if args.quick:
        args.seconds, args.jobs_games, args.small_jobs_games, args.big_games = 1.0, 16384, 4096, 50_000
    rows = []
    for game, module, kwargs, specs, players in ROWS:
        mod = importlib.import_module(module)
        res = mod.bench(args.seconds, **kwargs)
        res["speedup_2_jobs"] = round(jobs_speedup(game, specs, players, args.jobs_games,
                                                   compiled=kwargs.get("compiled", True)), 2)
        res["speedup_2_jobs_small"] = round(jobs_speedup(game, specs, players, args.small_jobs_games,
                                                         compiled=kwargs.get("compiled", True),
                                                         repeats=SMALL_REPEATS), 2)
        rows.append(res)
        print(json.dumps(res), file=sys.stderr)
    # heuristics: a game's bench module may define ``heuristics(seconds)``, rows of each heuristic's speed
    # as a share of its reference policy's, measured alternately in one process
    shares = []
    for module in dict.fromkeys(module for _, module, _, _, _ in ROWS):
        measure = getattr(importlib.import_module(module), "heuristics", None)
        for row in (measure(args.seconds) if measure else []):
            # the bench modules name the heuristic and its share in two ways
            row.setdefault("strategy", row.get("policy"))
            row.setdefault("share_of_reference", row.get("share"))
            shares.append(row)
            print(json.dumps(row), file=sys.stderr)
    # a built-in strategy and the same strategy in a user's file: the same speed (aim: within 10%)
    from .sen import user_file
    same = user_file(args.seconds)
    print(json.dumps(same), file=sys.stderr)
    # start-up: `sensei play GAME --games 10` on a warm cache
    starts = {game: round(startup(game), 2) for game in dict.fromkeys(game for game, *_ in ROWS)}
    print(json.dumps({"startup_s": starts}), file=sys.stderr)
    # peak memory of one large run through the command line, and of a run 10x smaller (flatness)
    mem = []
    for n in (args.big_games // 10, args.big_games):
        cmd = sensei_cmd() + ["play", "sen", "--games", str(n), "--jobs", "2", "--json", "--seed", "1"]
        peak, secs, _ = peak_memory(cmd)
        mem.append({"games": n, "peak_mib": round(peak / 2 ** 20, 1), "seconds": round(secs, 1),
                    "games_per_s": round(n / secs)})
    print()
    small = f"{args.small_jobs_games // 1000}k"
    print(f"{'game':<16}{'players':>8}{'policy':>12}{'lane':>10}{'engine g/s':>12}{'oracle g/s':>12}{'ratio':>8}"
          f"{'2 jobs':>8}{'2 jobs ' + small:>12}")
    for r in rows:
        print(f"{r['game']:<16}{r['players']:>8}{str(r.get('policy', '')):>12}{r.get('lane', ''):>10}"
              f"{r['engine_games_per_s']:>12,}"
              f"{r['oracle_games_per_s']:>12,}{r['ratio']:>8}{r['speedup_2_jobs']:>8}{r['speedup_2_jobs_small']:>12}")
    print(f"('2 jobs': wall-time ratio of 1 worker over 2 for {args.jobs_games:,} games; "
          f"'2 jobs {small}': the same for {args.small_jobs_games:,} games, median of {SMALL_REPEATS} timings of each)")
    if shares:
        print()
        print(f"{'game':<16}{'players':>8}{'heuristic':>12}{'g/s':>12}{'reference':>12}{'ref g/s':>12}{'share':>8}")
        for r in shares:
            print(f"{r['game']:<16}{r['players']:>8}{r['strategy']:>12}{r['games_per_s']:>12,}{r['reference']:>12}"
                  f"{r['reference_games_per_s']:>12,}{r['share_of_reference']:>8}")
    print()
    print(f"user file: {same['b']} plays at {same['ratio']}x the speed of the built-in {same['a']} "
          f"({same['b_games_per_s']:,} vs {same['a_games_per_s']:,} games/s; aim: within 10%)")
    print("start-up, `sensei play GAME --games 10` on a warm cache (best of 3): "
          + ", ".join(f"{g} {t} s" for g, t in starts.items()) + " (aim: under 1 s)")
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
    if args.write:
        extra = {"same": same, "starts": starts, "small_jobs_games": args.small_jobs_games,
                 "jobs_games": args.jobs_games, "load": (load_start, _load())}
        write_block(args.write, markdown(rows, shares, mem, t, quick=args.quick, extra=extra))
        print(f"written: {args.write}")
    return 0


def machine() -> str:
    """One line about the machine: CPU model, cores, memory, Python and numba versions."""
    import platform

    import numba

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), cpu)
    except OSError:
        pass
    try:
        mem = f", {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2 ** 30:.0f} GiB of memory"
    except (ValueError, OSError, AttributeError):
        mem = ""
    return (f"{cpu}, {os.cpu_count()} cores{mem}; {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, numba {numba.__version__}")


def _load() -> float | None:
    """The machine's load average over the last minute (other work running beside the bench), or None."""
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        return None


def _commit() -> str:
    import subprocess

    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10,
                             cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def markdown(rows, shares, mem, tuner, quick: bool = False, extra: dict | None = None) -> str:
    """The block of docs/speed.md: date, commit, machine and every table of this run (``extra``: the
    user-file row, start-up times, the sizes of the 2-worker runs and the load average at the start and
    the end)."""
    import datetime

    extra = extra or {}
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = extra.get("load")
    out = [f"Measured by `make bench` on {when}, commit {_commit()}"
           + (" (`--quick`: smoke-run sizes, not for comparison)" if quick else "") + ".",
           f"Machine: {machine()}."
           + (f" Load average (other work beside the bench): {load[0]} at the start, {load[1]} at the end."
              if load and None not in load else "")
           + (" The machine was busy: the 2-worker speed-ups measure the other work more than sensei."
              if load and None not in load and max(load) > 0.5 * (os.cpu_count() or 1) else ""), "",
           "Full games per second on one core, engine against the oracle, and the wall-time speed-up of 2 "
           f"workers over 1 for {extra.get('jobs_games', 0):,} and for {extra.get('small_jobs_games', 0):,} games "
           f"(the latter the median of {SMALL_REPEATS} timings of each):", "",
           "| game | players | policy | lane | engine games/s (one core) | oracle games/s | engine / oracle "
           "| 2 workers / 1 | 2 workers / 1, fewer games |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['game']} | {r['players']} | {r.get('policy', '')} | {r.get('lane', '')} "
                   f"| {r['engine_games_per_s']:,} | {r['oracle_games_per_s']:,} | {r['ratio']}x | {r['speedup_2_jobs']} "
                   f"| {r.get('speedup_2_jobs_small', '')} |")
    if shares:
        out += ["", "Heuristics, games per second on one core, as a share of their game's reference policy:", "",
                "| game | players | heuristic | games/s | reference | reference games/s | share |",
                "|---|---|---|---|---|---|---|"]
        for r in shares:
            out.append(f"| {r['game']} | {r['players']} | {r['strategy']} | {r['games_per_s']:,} | {r['reference']} "
                       f"| {r['reference_games_per_s']:,} | {r['share_of_reference']} |")
    same = extra.get("same")
    if same:
        out += ["", f"A user's file against the built-in strategy: `{same['b']}` plays at {same['ratio']}x the speed "
                    f"of `{same['a']}` ({same['b_games_per_s']:,} against {same['a_games_per_s']:,} games/s; aim: "
                    "within 10%)."]
    starts = extra.get("starts")
    if starts:
        out += ["", "Start-up, `sensei play GAME --games 10` on a warm cache (best of 3): "
                + ", ".join(f"{g} {t} s" for g, t in starts.items()) + " (aim: under 1 s)."]
    out += ["", "Peak memory of `sensei play sen --jobs 2` (4 players, threshold; whole process tree):", ""]
    for m in mem:
        out.append(f"- {m['games']:,} games: {m['peak_mib']} MiB in {m['seconds']} s ({m['games_per_s']:,} games/s)")
    out += ["", f"The tuner's overhead ({tuner['search']}, {tuner['deals_per_setting']:,} deals per setting at most, "
            f"one core): {tuner['games']:,} games, {tuner['engine_s']} s in the engine, {tuner['search_s']} s in all, "
            f"an overhead of {tuner['overhead_pct']}% (aim: under 10%)."]
    return "\n".join(out) + "\n"


BEGIN, END = "<!-- bench: begin", "<!-- bench: end -->"


def write_block(path: str, block: str) -> None:
    """Replace the bench block of ``path`` (from the line starting ``<!-- bench: begin`` to the end
    marker) with ``block``; a file without one gets the block appended."""
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else "# Speed\n"
    start = text.find(BEGIN)
    if start < 0:
        text = text.rstrip("\n") + "\n\n"
        start = len(text)
        text += f"{BEGIN} (written by make bench) -->\n{END}\n"
    head_end = text.index("\n", start) + 1
    end = text.index(END, head_end)
    new = text[:head_end] + block + text[end:]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(new)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
