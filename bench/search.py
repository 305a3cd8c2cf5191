"""The search player ``ismcts``: speed per core and strength against the heuristics.

``python -m bench.search speed [GAME ...]``: decisions per second and iterations per second of CPU time on
one core (CPU time, so that a loaded machine still gives comparable figures),
measured on a fixed set of mid-game decisions (every one with at least two options, so each is a full
search) at the default budget, and the time 1,000 two-player games take on 2 cores, extrapolated from
games played on one core (``ismcts`` in both seats).

``python -m bench.search strength GAME [--deals N] [--iterations I ...] [--against H ...]``: ``ismcts``
against each heuristic, seats rotated on common deals (each deal played twice, the search in either
seat): its win share with a Wilson 95% interval (``lo``, ``hi``: every game independent) and a t interval
over deals (``lo_deals``, ``hi_deals``: a deal's two games one unit); with several match-ups,
Bradley-Terry ratings of the budgets and the heuristics from every match-up played, their 95% intervals
clustered over deals (as an experiment's ratings table).

The figures of ``docs/search.md`` come from these commands.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import time

import numpy as np

#: games with a search player, and the strongest built-in heuristic of each (2 players)
GAMES = {"fan-and-mallet": "counter", "sen": "gambler", "senshi": "counter", "sensu": "planner"}


def _midgame(eng, agents, n, steps, seed):
    from simcore.game import Seats
    from simcore.rng import game_keys, root_key

    keys = game_keys(root_key(seed), np.arange(n))
    s = eng.new_batch(keys, 2, eng.make_rules())
    seats = Seats(agents, keys)
    eng.play_state(s, seats, seats.lineup_for(eng), compiled=True, max_steps=steps)
    return s, keys


def speed(game: str, iterations: int | None = None, positions: int = 64, seed: int = 1, games: int = 40) -> dict:
    """Decisions and iterations per second of ``ismcts`` on one core, and the minutes 1,000 games of
    ``ismcts`` against itself take on 2 cores."""
    from simcore.game import Seats
    from simcore.registry import get_game
    from simcore.runner import simulate
    from strategies.registry import lineup

    eng = get_game(game)
    spec = "ismcts" if iterations is None else f"ismcts:iterations={iterations}"
    agents = lineup(game, [spec, spec], 2)
    budget = agents[0].iterations
    if agents[0].searched != "all":  # a search of one decision kind: enough positions to find some of it
        positions = max(positions, 64)
    idx_all = []
    states = []
    all_keys = []
    for k, steps in enumerate((6, 16, 26)):
        s, keys = _midgame(eng, lineup(game, [GAMES[game]], 2), positions, steps, seed + k)
        all_keys.append(keys)
        kern = importlib.import_module(eng.kernels)
        S, R = eng.state_tuple(s), eng.rules_tuple(s)
        out = np.empty(int(kern.MAX_OPTIONS), dtype=np.int64)
        # full searches only: more than one option, of a kind the search plays (Sen: the start of a turn)
        kinds = range(len(eng.decisions)) if agents[0].searched == "all" else \
            [eng.decisions.index(agents[0].searched)]
        live = np.array([i for i in range(positions) if not s.done[i] and int(S[4][i]) in kinds
                         and kern.legal(S, R, i, out) > 1], dtype=np.int64)
        states.append(s)
        idx_all.append(live)
    seats = [Seats(agents, keys) for keys in all_keys]
    eng.decide(states[0], idx_all[0][:1], seats[0], seats[0].lineup_for(eng))  # compile / load
    t0 = time.process_time()
    n = 0
    for s, idx, st in zip(states, idx_all, seats):
        eng.decide(s, idx, st, st.lineup_for(eng))
        n += len(idx)
    secs = time.process_time() - t0
    simulate(game, agents, n_games=1, seed=seed + 100, jobs=1)  # compile / load the compiled lane
    t1 = time.process_time()
    simulate(game, agents, n_games=games, seed=seed, jobs=1)
    per_game = (time.process_time() - t1) / games
    return {"game": game, "strategy": agents[0].spec(), "iterations": budget, "decisions": n,
            "decisions_per_s": round(n / secs, 1), "iterations_per_s": round(n * budget / secs),
            "self_play_s_per_game": round(per_game, 3),
            "minutes_1000_games_2_cores": round(1000 * per_game / 2 / 60, 2)}


def rotated(game: str, a: str, b: str, deals: int, seed: int = 7, jobs: int = 1,
            per_deal: bool = False):
    """Win shares of ``a`` and ``b`` over ``deals`` deals each played twice, ``a`` in seat 0 then in seat 1
    (common deals: the same game indices and seed): ``(wins of a, wins of b, games)``; with ``per_deal``,
    also ``a``'s wins and the games with a winner on each deal (arrays of ``deals``)."""
    from simcore.registry import get_game
    from simcore.rng import root_key
    from strategies.registry import lineup

    eng = get_game(game)
    ids = np.arange(deals)
    rules = eng.make_rules()
    first = eng.play(ids, 2, rules, lineup(game, [a, b], 2), root_key(seed))
    second = eng.play(ids, 2, rules, lineup(game, [b, a], 2), root_key(seed))
    deal_a = first["win"][:, 0].astype(float) + second["win"][:, 1]
    deal_b = first["win"][:, 1].astype(float) + second["win"][:, 0]
    out = (float(deal_a.sum()), float(deal_b.sum()), 2 * deals)
    return out + (deal_a, deal_a + deal_b) if per_deal else out


def strength(game: str, deals: int, budgets: list[int], against: list[str], seed: int = 7,
             heuristics_too: bool = False) -> dict:
    """``ismcts`` at each budget against each heuristic; with ``heuristics_too``, every pair of the
    heuristics as well (the ratings then rest on the heuristics' own games too, not only on their games
    against the search: a heuristic can do well against the search and badly against another heuristic)."""
    from simcore.stats import bradley_terry, deal_interval, wilson

    rows = []
    per_deal = []
    pairs = [(f"ismcts:iterations={it}", h) for it in budgets for h in against]
    if heuristics_too:
        pairs += [(a, b) for i, a in enumerate(against) for b in against[i + 1:]]
    for spec, h in pairs:
        t0 = time.perf_counter()
        wa, wb, n, deal_a, deal_n = rotated(game, spec, h, deals, seed, per_deal=True)
        per_deal.append((deal_a, deal_n))
        lo, hi = wilson(wa, n)
        dlo, dhi = deal_interval(wa / n, deal_a / 2.0, 0.0, 1.0)
        rows.append({"game": game, "search": spec, "against": h, "games": n, "win_share": round(wa / n, 4),
                     "lo": round(float(lo), 4), "hi": round(float(hi), 4),
                     "lo_deals": None if dlo is None else round(dlo, 4),
                     "hi_deals": None if dhi is None else round(dhi, 4),
                     "seconds": round(time.perf_counter() - t0, 1)})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    names = list(dict.fromkeys(against + [r["search"] for r in rows]))
    ratings = None
    if len(pairs) > 1:
        bt = bradley_terry(names, [r["search"] for r in rows], [r["against"] for r in rows],
                           [float(d[0].sum()) for d in per_deal], [float((d[1] - d[0]).sum()) for d in per_deal],
                           deal_wins_a=np.array([d[0] for d in per_deal]),
                           deal_games=np.array([d[1] for d in per_deal]))
        ratings = {k: [round(x) for x in v] for k, v in bt.items()}
    return {"rows": rows, "bradley_terry_elo": ratings}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    sp = sub.add_parser("speed")
    sp.add_argument("games", nargs="*", default=list(GAMES))
    sp.add_argument("--iterations", type=int, default=None)
    st = sub.add_parser("strength")
    st.add_argument("game")
    st.add_argument("--deals", type=int, default=200)
    st.add_argument("--iterations", type=int, nargs="+", default=[200])
    st.add_argument("--against", nargs="+", default=None)
    st.add_argument("--seed", type=int, default=7)
    st.add_argument("--heuristics-too", action="store_true",
                    help="play every pair of the heuristics as well, and fit the ratings on all the games")
    args = ap.parse_args(argv)
    if args.what == "speed":
        for g in args.games:
            print(json.dumps(speed(g, args.iterations)))
    else:
        against = args.against or [GAMES[args.game]]
        print(json.dumps(strength(args.game, args.deals, args.iterations, against, args.seed,
                                  args.heuristics_too)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
