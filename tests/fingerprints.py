"""Fingerprints of per-game outcomes: the same seeds must give the same games across refactors.

Each case is (game, players, strategy specs, rule options, games, seed); its fingerprint is a hash of
the per-game outcome columns listed in ``COLUMNS`` (in game order, seats in order). The recorded file
``tests/data/fingerprints.json`` holds the fingerprints of every case; ``tests/test_fingerprints.py``
replays every case in both lanes and compares. Regenerate (only after a rule fix, named in the commit)
with ``python -m tests.fingerprints``.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = os.path.join(HERE, "data", "fingerprints.json")

#: outcome columns hashed per game (the columns every engine had when the fingerprints were recorded)
COLUMNS = {
    "sen": ["score", "win", "turns", "timeout", "rounds", "called", "caller_ok", "penalties", "dream_sum",
            "lead_changes"],
    "senshi": ["score", "win", "turns", "timeout", "eliminated", "winning_pile", "max_pile", "hand",
               "tie_hand", "tie_order"],
    "sensu": ["score", "win", "turns", "timeout", "plays", "plays_seat", "fans_closed", "reshuffles", "level"],
    "fan-and-mallet": ["score", "win", "turns", "timeout", "games_played", "houses_possessed", "first_white",
                       "first_winner_won", "ties", "bonus", "swing"],
}


def _cases() -> list[dict]:
    out: list[dict] = []

    def add(game, players, specs, rules=None, games=160, seed=7):
        out.append({"game": game, "players": players, "strategies": list(specs), "rules": rules or {},
                    "games": games, "seed": seed})

    sen = ["random", "threshold", "counter", "watcher", "swapper", "gambler"]
    for p in (2, 3, 4, 5):
        for s in sen:
            add("sen", p, [s], games=120 if p < 5 else 80)
    add("sen", 4, ["threshold:wake=8", "random:p_wake=0.05", "counter:wake=11", "gambler:edge=1.0"])
    add("sen", 5, ["swapper:swap_min=1.0", "watcher:kept_value=-1.0", "threshold", "counter", "random"])
    add("sen", 3, ["gambler", "swapper", "threshold:wake=14"], {"penalty": 15})
    for rules in ({"penalty": 15}, {"caller_tie": "count"}, {"rounds": 1}, {"target": 40},
                  {"ravens_not_scary": True}, {"go_all_in": True}, {"know_what_i_have": True},
                  {"know_what_i_have": True, "ravens_not_scary": True, "go_all_in": True, "penalty": 15}):
        add("sen", 4, ["random", "counter", "swapper", "gambler"], rules)
        add("sen", 3, ["threshold", "watcher", "random"], rules)
    add("sen", 2, ["random:p_wake=0.3", "counter"], {"know_what_i_have": True, "rounds": 3})

    senshi = ["random", "greedy", "guard", "racer", "denier", "counter"]
    for p in (2, 3, 4):
        for s in senshi:
            add("senshi", p, [s], games=60 if s == "counter" else 120)
    add("senshi", 4, ["greedy", "guard:margin=2,late=8", "racer", "denier"])
    add("senshi", 3, ["counter", "random", "guard"], games=60)
    for rules in ({"secret_hand": True}, {"open_stacks": True}, {"secret_hand": True, "open_stacks": True}):
        add("senshi", 2, ["random", "greedy"], rules)
        add("senshi", 3, ["guard", "racer", "denier"], rules)
        add("senshi", 4, ["counter", "greedy", "random", "guard"], rules, games=40)

    sensu = ["random", "redeemer", "planner", "focus"]
    for p in (1, 2, 3, 4, 5):
        for s in sensu:
            add("sensu", p, [s], games=80 if p > 1 else 200)
    add("sensu", 4, ["random", "redeemer", "planner", "focus"])
    for rules in ({"powers": True}, {"chosen_fan": True, "max_turns": 300}, {"sticks": "B"}, {"sticks": "C"},
                  {"sticks": "A2"}, {"power_copies": "AB", "powers": True},
                  {"powers": True, "chosen_fan": True, "max_turns": 400}, {"sticks": "4,4,4,3,3,3,2,2,1"}):
        add("sensu", 3, ["random", "planner", "focus"], rules, games=60)
        add("sensu", 2, ["redeemer", "random"], rules, games=60)
        if not rules.get("powers") and not rules.get("chosen_fan"):
            add("sensu", 1, ["planner"], rules, games=100)
            add("sensu", 1, ["random"], rules, games=100)

    # cheap sticks and five players: a combination played from the hand with the deck and every pile empty
    # (its unredeemed cards go to the pile one at a time, and the first of them is the new deck at once)
    add("sensu", 5, ["random"], {"sticks": "B"}, games=400)

    fm = ["random", "strongest", "closer", "keeper", "counter"]
    for a in fm:
        for b in fm:
            add("fan-and-mallet", 2, [a, b], games=100)
    for rules in ({"start_positions": "0,3"}, {"start_positions": "5,5"}, {"match_points": 10},
                  {"match_points": 5, "start_positions": "2,9"}):
        add("fan-and-mallet", 2, ["random", "counter"], rules)
        add("fan-and-mallet", 2, ["keeper", "closer"], rules)
    return out


CASES = _cases()


def case_id(case: dict) -> str:
    return json.dumps(case, sort_keys=True)


def fingerprint(case: dict, compiled: bool = True) -> str:
    """Hash of the per-game outcome columns of one case, played in the compiled or the batch lane."""
    from simcore.registry import get_game
    from simcore.runner import simulate
    from strategies.registry import lineup

    eng = get_game(case["game"])
    agents = lineup(eng.name, case["strategies"], case["players"])
    res = simulate(eng.name, agents, case["players"], case["rules"], n_games=case["games"], seed=case["seed"],
                   keep_games=True, compiled=compiled)
    df = res.games().sort(["game", "seat"])
    h = hashlib.sha256()
    for col in COLUMNS[eng.name]:
        names = [c for c in df.columns if c == col or c.startswith(col + "_")]
        if not names and col in ("score", "turns", "timeout"):
            raise KeyError(f"{eng.name}: no outcome column {col}")
        for name in sorted(names):
            h.update(name.encode())
            h.update(np.ascontiguousarray(df[name].to_numpy().astype(np.float64)).tobytes())
    return h.hexdigest()[:20]


def record(path: str = PATH) -> dict:
    prints = {}
    for case in CASES:
        a = fingerprint(case, compiled=True)
        b = fingerprint(case, compiled=False)
        if a != b:
            raise SystemExit(f"the two lanes differ: {case_id(case)}")
        prints[case_id(case)] = a
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(prints, fh, indent=0, sort_keys=True)
        fh.write("\n")
    return prints


if __name__ == "__main__":
    p = record(sys.argv[1] if len(sys.argv) > 1 else PATH)
    print(f"{len(p)} fingerprints written")
