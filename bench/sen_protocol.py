"""What the decision protocol and the engine's bookkeeping cost Sen: ``threshold`` self-play three ways,
against the plain-Python oracle.

``python -m bench.sen_protocol [REPEATS]`` plays the same 32,768 games (4 players, default rules) in
the compiled lane; through the engine's own rule steps with the turn's control flow written out
(``written_out``: no decision kind or pending card in memory, no dispatch, no check of the options, so
its difference from the compiled lane is the protocol's share); and in ``lean``, one scalar loop of the
rules and the policy that keeps only what ``threshold`` needs (the values of the lands, each player's
own memory, the face-up top and the scores: no card ids, face-up pile, other viewers' memories, kept
flags, face-up counts or statistics). It checks that all three play the same games (scores and turn
counts equal), times the oracle (``tests/oracles/sen.py``) in the same run, and prints the best CPU time
per game of each and the multiple of the oracle's speed it would reach (docs/speed.md).
"""
from __future__ import annotations

import sys
import time

import numba
import numpy as np

sys.path.insert(0, ".")

from simcore.compiled import NO_REFCOUNT  # noqa: E402
from simcore.game import Seats  # noqa: E402
from simcore.games import sen as E  # noqa: E402
from simcore.games.sen import (_KIND_NB, _VALUE_NB, _drawn_one, _end_turn, _face_up_one, _peek_one,  # noqa: E402
                               _pop_one, begin)
from simcore.registry import get_game  # noqa: E402
from simcore.rng import game_keys, permutation_into, root_key  # noqa: E402
from strategies.registry import lineup  # noqa: E402
from strategies.sen import _first_unknown, _threshold_drawn, _threshold_start, threshold_scan  # noqa: E402

#: games per run
N = 32768
#: ``threshold``'s default wake value in sixths
WAKE6 = 10 * E.MEAN_DEN


@numba.njit(**{k: v for k, v in NO_REFCOUNT.items() if k != "cache"})
def written_out(S, R, wake6):
    """``threshold`` in every seat, every game of ``S`` to its end, through the engine's rule steps."""
    done, cur = S[E._DONE], S[E._CUR]
    up, up_len, up_counts = S[E._UP], S[E._UP_LEN], S[E._UP_COUNTS]
    dream, nslots, mem, kept = S[E._DREAM], S[E._NSLOTS], S[E._MEM], S[E._KEPT]
    deck, ptr = S[E._DECK], S[E._PTR]
    for g in range(done.shape[0]):
        begin(S, R, g)
        while not done[g]:
            me = cur[g]
            own = mem[g, me, me]
            ns = nslots[g, me]
            total, worst, w, unknown = threshold_scan(own, ns)
            a = _threshold_start(total, worst, _VALUE_NB[up[g, up_len[g] - 1]], wake6)
            if a == 1:
                _face_up_one(up, up_len, up_counts, dream, nslots, mem, kept, g, me, w)
            elif a == 2:
                card = _pop_one(deck, ptr, g)
                total, worst, w, unknown = threshold_scan(own, ns)
                d = _threshold_drawn(worst, w, unknown, _VALUE_NB[card], _KIND_NB[card])
                if _drawn_one(up, up_len, up_counts, dream, nslots, mem, kept, g, me, card, d) == 1:
                    _peek_one(mem, dream, nslots, g, me, me, max(_first_unknown(own, ns), 0))
            _end_turn(S, R, g, me, a == 0)


@numba.njit(**{k: v for k, v in NO_REFCOUNT.items() if k != "cache"})
def lean(deal_keys, P, wake6, target, penalty, score_out, turns_out, cards, own, dream, totals):
    """``threshold`` in every seat, default rules but ``penalty`` / ``target``: the same deals (the engine's
    shuffles), the same decisions, only what the policy needs. Dreams keep 4 lands: ``threshold`` never
    uses Take 2 or Swap 2 and the variant of claims is off. ``cards`` (54,), ``own`` / ``dream`` (P, 4)
    and ``totals`` (P,) are work arrays."""
    for g in range(deal_keys.shape[0]):
        for p in range(P):
            score_out[g, p] = 0
        rnd, turns, cur = 0, 0, 0
        while True:
            permutation_into(deal_keys[g], rnd, cards)
            for p in range(P):
                for s in range(4):
                    dream[p, s] = _VALUE_NB[cards[4 * p + s]]
                    own[p, s] = -1
                own[p, 0], own[p, 1] = dream[p, 0], dream[p, 1]
            top = _VALUE_NB[cards[4 * P]]
            ptr = 4 * P + 1
            while True:
                me = cur
                o = own[me]
                total, worst, w, unknown = threshold_scan(o, 4)
                a = _threshold_start(total, worst, top, wake6)
                if a == 1:
                    old = dream[me, w]
                    dream[me, w] = top
                    o[w] = top
                    top = old
                elif a == 2:
                    card = cards[ptr]
                    ptr += 1
                    d = _threshold_drawn(worst, w, unknown, _VALUE_NB[card], _KIND_NB[card])
                    if d >= 0:
                        top = dream[me, d]
                        dream[me, d] = _VALUE_NB[card]
                        o[d] = _VALUE_NB[card]
                    else:
                        top = _VALUE_NB[card]
                    if d == -2:
                        s = max(_first_unknown(o, 4), 0)
                        o[s] = dream[me, s]
                turns += 1
                cur = me + 1 if me + 1 < P else 0
                if a == 0 or ptr >= E.N_CARDS:
                    break
            low = np.int64(1) << 40
            for p in range(P):
                totals[p] = dream[p, 0] + dream[p, 1] + dream[p, 2] + dream[p, 3]
                low = min(low, totals[p])
            if a == 0:                                   # the caller: 0 if fewest (ties too), else + penalty
                totals[me] = 0 if totals[me] <= low else totals[me] + penalty
            over = False
            for p in range(P):
                score_out[g, p] += totals[p]
                over |= score_out[g, p] >= target
            rnd += 1
            if over:
                break  # else the next round starts with cur, left of the last turn's player
        turns_out[g] = turns


def play_lean(deal_keys: np.ndarray, players: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """(scores (n, P), turns (n,)) of :func:`lean` over the games of ``deal_keys``."""
    n = deal_keys.shape[0]
    score, turns = np.zeros((n, players), dtype=np.int64), np.zeros(n, dtype=np.int64)
    rules = E.SenRules()
    lean(deal_keys, players, WAKE6, rules.target, rules.penalty, score, turns, np.empty(E.N_CARDS, dtype=np.int64),
         np.empty((players, 4), dtype=np.int64), np.empty((players, 4), dtype=np.int64),
         np.empty(players, dtype=np.int64))
    return score, turns


def oracle_us(games: int = 300) -> float:
    """The plain-Python oracle's CPU time per game (the same policy and rules; best of three runs)."""
    from tests.oracles.sen import play_games
    best = float("inf")
    for rep in range(3):
        t = time.process_time()
        play_games(games, rep, 4, ["threshold"])
        best = min(best, time.process_time() - t)
    return best / games * 1e6


def run(repeats: int = 10) -> dict:
    eng = get_game("sen")
    agents = lineup("sen", ["threshold"], 4)
    lu = eng.lineup(agents)

    def fresh(seed):
        keys = game_keys(root_key(seed), np.arange(N))
        return eng.new_batch(keys, 4, E.SenRules()), keys

    a, keys = fresh(1)
    written_out(eng.state_tuple(a), eng.rules_tuple(a), WAKE6)
    b, _ = fresh(1)
    eng.play_state(b, Seats(agents, keys), lu)
    same = bool((a.score == b.score).all() and (a.turns == b.turns).all())
    score, turns = play_lean(b.deal_keys)
    same_lean = bool((score == b.score).all() and (turns == b.turns).all())
    best_w = best_p = best_l = float("inf")
    for rep in range(repeats):
        a, keys = fresh(rep + 2)
        t = time.process_time()
        written_out(eng.state_tuple(a), eng.rules_tuple(a), WAKE6)
        best_w = min(best_w, time.process_time() - t)
        b, _ = fresh(rep + 2)
        t = time.process_time()
        eng.play_state(b, Seats(agents, keys), lu)
        best_p = min(best_p, time.process_time() - t)
        t = time.process_time()
        play_lean(b.deal_keys)
        best_l = min(best_l, time.process_time() - t)
    oracle = oracle_us()
    out = {"same_games": same, "same_games_lean": same_lean, "written_out_us": best_w / N * 1e6,
           "compiled_lane_us": best_p / N * 1e6, "lean_us": best_l / N * 1e6, "oracle_us": oracle,
           "turns_per_game": float(b.turns.mean()), "rounds_per_game": float(b.round.mean())}
    for k in ("written_out", "compiled_lane", "lean"):
        out[k + "_x"] = oracle / out[k + "_us"]
    return out


if __name__ == "__main__":
    r = run(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
    print(f"same games: {r['same_games']} (lean: {r['same_games_lean']}); "
          f"{r['turns_per_game']:.1f} turns, {r['rounds_per_game']:.2f} rounds a game; oracle {r['oracle_us']:.0f} µs a game")
    for k in ("compiled_lane", "written_out", "lean"):
        print(f"{k:>14}: {r[k + '_us']:.2f} µs a game, {r[k + '_x']:.1f}x the oracle")
