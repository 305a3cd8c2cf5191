"""What the decision protocol costs Sen: ``threshold`` self-play through the engine's own rule steps with
the turn's control flow written out, against the compiled lane.

``python -m bench.sen_protocol [REPEATS]`` plays the same 32,768 games both ways (checking that the
scores and turn counts agree) and prints the best CPU time per game of each. The written-out loop keeps
no decision kind or pending card in memory, dispatches on nothing and checks no option: its
difference from the compiled lane is the protocol's share (docs/speed.md).
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
from simcore.rng import game_keys, root_key  # noqa: E402
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
    best_w = best_p = float("inf")
    for rep in range(repeats):
        a, keys = fresh(rep + 2)
        t = time.process_time()
        written_out(eng.state_tuple(a), eng.rules_tuple(a), WAKE6)
        best_w = min(best_w, time.process_time() - t)
        b, _ = fresh(rep + 2)
        t = time.process_time()
        eng.play_state(b, Seats(agents, keys), lu)
        best_p = min(best_p, time.process_time() - t)
    return {"same_games": same, "written_out_us": best_w / N * 1e6, "compiled_lane_us": best_p / N * 1e6,
            "turns_per_game": float(b.turns.mean()), "rounds_per_game": float(b.round.mean())}


if __name__ == "__main__":
    r = run(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
    print(f"same games: {r['same_games']}; written out {r['written_out_us']:.2f} µs a game, compiled lane "
          f"{r['compiled_lane_us']:.2f} µs ({r['turns_per_game']:.1f} turns, {r['rounds_per_game']:.2f} rounds a game)")
