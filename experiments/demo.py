"""``make demo``: run the shipped questions at a small size and write their reports.

Usage: ``python -m experiments.demo [GAMES] [--jobs J] [--out DIR]`` (GAMES: deals per cell, default 800).
Adding a question to the demo is one line in :data:`QUESTIONS`: the config path, and optionally a
factor on GAMES for questions whose cells are much slower or faster than Sen's.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

#: (config, games factor): the shipped questions, run in this order
QUESTIONS: list[tuple[str, float]] = [
    ("experiments/sen_wake_threshold.toml", 1.0),
    ("experiments/sen_variants.toml", 1.0),
    # Sensu and Fan & Mallet deals are cheap: five times the deals (4000 at the default 800) keep their intervals useful
    ("experiments/sensu_balance.toml", 5.0),
    ("experiments/sensu_sticks_calibration.toml", 5.0),   # solo level shares near 1% need many deals
    ("experiments/fan_and_mallet_balance.toml", 5.0),
    # Senshi: the elimination question has 30 cells against a field of counter (the slowest heuristic),
    # twice the deals (1600); the seat question's 12 self-play cells play five times (4000)
    ("experiments/senshi_elimination.toml", 2.0),
    ("experiments/senshi_seats.toml", 5.0),
    # best responses and equilibria: the Sen iterations and the 2-player meta-game are cheap (2000 deals per
    # setting at the default: some 40 s on 2 cores for 22 wake values); the Fan & Mallet design races 12
    # start positions in 3 self-play groups (4000);
    # the Senshi meta-game plays every lineup of six strategies for 2-4 players with the slow heuristics
    # (counter, guard): 40 deals per lineup at the default, and 40 fresh ones for its regrets (SCALED_CONFIRM),
    # so its intervals are wide (GAMES=... for more)
    ("experiments/sen_wake_equilibrium.toml", 2.5),
    # the penalty design over equilibria: 5 penalties x 9 wake values of compiled Sen games (2000 deals)
    ("experiments/sen_penalty_design.toml", 2.5),
    ("experiments/fan_and_mallet_design.toml", 5.0),
    ("experiments/senshi_meta.toml", 0.05),
    # the questions under strong play: the search player in every seat, at the budget of --search-iterations
    # (a small one by default, so that the demo stays short), 200 deals per cell at the default
    ("experiments/search_seats.toml", 0.25),
    ("experiments/search_seats_senshi.toml", 0.25),
    ("experiments/search_seats_sen.toml", 0.25),
    # Sensu's search games are the slowest (about 0.4 s of CPU at 100 iterations): 40 deals per cell
    ("experiments/search_seats_sensu.toml", 0.05),
]

#: questions whose fresh deals (``search.confirm``) the demo scales as it scales their deals: the Senshi
#: meta-game plays every lineup again on them, which at its config's 400 would cost ten times its 40 deals
SCALED_CONFIRM = {"experiments/senshi_meta.toml"}

#: the search's iterations per decision in the demo (``--search-iterations``; the strategy's default
#: budget is much deeper)
SEARCH_ITERATIONS = 100


def _with_search_budget(path: str, iterations: int):
    """The config at ``path`` as a dict, every ``ismcts`` seat given ``iterations`` iterations."""
    import tomllib

    with open(path, "rb") as fh:
        raw = tomllib.load(fh)

    def budget(x):
        if isinstance(x, str) and x.split(":")[0] == "ismcts":
            return x + ("," if ":" in x else ":") + f"iterations={iterations}"
        if isinstance(x, dict):
            return {k: budget(v) for k, v in x.items()}
        if isinstance(x, list):
            return [budget(v) for v in x]
        return x

    out = budget(raw)
    from strategies.registry import resolve

    default = resolve(raw["game"], "ismcts").params()["iterations"]
    if iterations < default:  # the report says what this run's search is: weaker than the question's
        # its title too, which claims strong play and leads the report and the index
        out["title"] = (str(out.get("title", "")) + f", at make demo's smaller budget ({iterations} search "
                        f"iterations per decision against {default})")
        out.setdefault("report", {})
        out["report"]["notes"] = (out["report"].get("notes", "").rstrip() + f"\n\nThis run is make demo's: its "
                                  f"search plays {iterations} iterations per decision against a default budget of "
                                  f"{default}, so its answer is one under weaker play than the question asks for.\n")
    return out


def _with_confirm_scaled(path: str, games: int) -> dict:
    """The config at ``path`` as a dict, its ``search.confirm`` scaled by ``games`` over the config's own
    games (at least 20, the least a confirmation takes; 0 stays 0)."""
    import tomllib

    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    search = raw.get("search")
    if isinstance(search, dict) and search.get("confirm"):
        own = raw.get("games", 1000)
        search["confirm"] = max(20, int(round(search["confirm"] * games / own)))
    return raw


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.demo", description=__doc__.splitlines()[0])
    ap.add_argument("games", nargs="?", type=int, default=800, help="deals per cell (default 800)")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--out", "-o", default="runs", help="folder for the run folders and the index page")
    ap.add_argument("--search-iterations", type=int, default=SEARCH_ITERATIONS,
                    help=f"iterations per decision of the search player (default {SEARCH_ITERATIONS})")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("games must be a positive integer")
    if args.search_iterations < 1:
        ap.error("--search-iterations must be a positive integer")

    from reports import build_report
    from simcore.errors import SenseiError

    from .experiment import run_experiment

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    t0 = time.perf_counter()
    index = None
    for path, factor in QUESTIONS:
        games = max(1, int(round(args.games * factor)))
        try:
            source = os.path.join(here, path)
            if "search" in os.path.basename(path):
                source = _with_search_budget(source, args.search_iterations)
            elif path in SCALED_CONFIRM:
                source = _with_confirm_scaled(source, games)
            res = run_experiment(source, games=games, jobs=args.jobs, progress=True)
        except SenseiError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        run_dir = res.write(args.out, name=os.path.splitext(os.path.basename(path))[0])
        build_report(run_dir)
        index = os.path.join(os.path.abspath(args.out), "index.html")
        print(f"{res.config.title}: {res.manifest['games_played']:,} games played in "
              f"{res.manifest['seconds_playing']:.0f} s")
        for sentence in res.answer:
            print(f"  {sentence}")
        print(f"  report: {os.path.join(run_dir, 'report.html')}")
    print(f"demo finished in {time.perf_counter() - t0:.0f} s; report index: {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
