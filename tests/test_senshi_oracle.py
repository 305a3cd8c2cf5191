"""The engine and the plain-Python oracle agree statistically for the reference policies.

Each figure (win share per seat, mean turns, elimination rate per seat, nobody eliminated, mean winning
pile) must lie within the 99% confidence interval of the difference of two independent means.
"""
import numpy as np
import pytest

from simcore.runner import simulate
from strategies.registry import lineup
from tests.oracles.senshi import play_games

Z99 = 2.5758


def _diff_ok(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return abs(a.mean() - b.mean()) <= Z99 * se + 1e-12, a.mean(), b.mean(), se


CASES = [(p, pol, False) for p in (2, 3, 4) for pol in ("random", "greedy")] + [(3, "random", True)]


@pytest.mark.parametrize("players,policy,secret", CASES)
def test_engine_matches_oracle(players, policy, secret):
    n = 2500
    ora = play_games(n, players, policy, seed=17 + players, secret_hand=secret)
    res = simulate("senshi", lineup("senshi", [policy], players), players=players, n_games=n, seed=29 + players,
                   rules={"secret_hand": secret}, keep_games=True)
    g = res.games().sort(["game", "seat"])
    col = lambda k: g[k].to_numpy().reshape(n, players)
    figures = {
        "turns": ([r["turns"] for r in ora], col("turns")[:, 0]),
        "nobody_eliminated": ([r["nobody_eliminated"] for r in ora], col("nobody_eliminated")[:, 0]),
        "winning_pile": ([r["winning_pile"] for r in ora], col("max_pile")[col("win") == 1]),
    }
    for s in range(players):
        figures[f"win{s}"] = ([r["win"][s] for r in ora], col("win")[:, s])
        figures[f"elim{s}"] = ([r["eliminated"][s] for r in ora], col("eliminated")[:, s])
    bad = []
    for name, (a, b) in figures.items():
        ok, ma, mb, se = _diff_ok(a, b)
        if not ok:
            bad.append(f"{name}: oracle {ma:.4f} engine {mb:.4f} (se {se:.4f})")
    assert not bad, "; ".join(bad)


def test_oracle_conserves_tiles_and_secret_hand():
    for players in (2, 3, 4):
        for policy in ("random", "greedy"):
            res = play_games(30, players, policy, seed=1, secret_hand=True, check=True)
            assert all(sum(r["win"]) == 1 for r in res)


def _greedy_by_the_letter(o, i):
    """The rulings' `greedy` for row i of an observation, written plainly."""
    P, me = o.players, int(o.me[i])
    tops = o.card_tops[i].astype(int)
    hand, piles = o.hand[i].astype(int), o.piles[i, me].astype(int)

    def gain(c):
        return 1 + tops[me, c] - max(tops[q, c] for q in range(P) if q != me)

    colours = [c for c in range(4) if hand[c] > 0]
    best = max(colours, key=lambda c: (gain(c), -piles[c], -c)) if colours else None
    if best is not None and gain(best) >= 2:
        return 3, best
    middle = [s for s in range(o.loc.shape[1]) if o.loc[i, s] == -1]
    if middle and o.card_count[i, me] < 3:
        weak = min(range(4), key=lambda c: (piles[c], c))
        pick = [s for s in middle if o.top[i, s] == weak]
        return 1, (pick or middle)[0]
    if best is None:
        if middle:
            return 2, middle[0]
        for k in range(P):
            q = (me + k) % P
            if o.cards[i, q, 0] >= 0:
                return 2, int(o.cards[i, q, 0])
        return 0, None
    return 3, best


def _decode(opt):
    """(kind, arg) of an action option; arg None for a pass."""
    from simcore.games.senshi import OPTION_STRIDE
    return (0, None) if opt == 0 else (int(opt) // OPTION_STRIDE, int(opt) % OPTION_STRIDE)


def test_greedy_decisions_follow_the_rulings_exactly():
    from simcore.game import Seats
    from simcore.games.senshi import Decision, Senshi, SenshiRules
    from simcore.rng import game_keys, root_key
    from strategies.senshi import Greedy
    eng = Senshi()
    checked = [0]

    def probe(state):
        live = np.flatnonzero(~state.done & (state.kind == Decision.ACT))
        if len(live) == 0:
            return
        obs = eng.observe(state, live, state.cur[live])
        seats = Seats([Greedy()] * state.players, game_keys(root_key(0), np.arange(state.n)))
        opts = eng.decide(state, live, seats, seats.lineup_for(eng))
        for i in range(len(live)):
            k, a = _greedy_by_the_letter(obs, i)
            assert _decode(opts[i]) == (k, a), (i, opts[i], k, a)
            checked[0] += 1

    for players in (2, 3, 4):
        mixed = lineup("senshi", ["random", "greedy", "counter", "greedy"][:players], players)
        eng.play(np.arange(20), players, SenshiRules(), mixed, root_key(8), on_turn=probe)
    assert checked[0] > 2000


def test_random_policy_probabilities():
    """`random`: a uniform legal kind, then a uniform target of that kind (checked on one position)."""
    from simcore.game import Seats, take
    from simcore.games.senshi import Decision, Senshi, SenshiRules
    from simcore.rng import game_keys, root_key
    from strategies.senshi import Random
    eng = Senshi()
    keys = game_keys(root_key(5), np.arange(1))
    st = eng.new_state(keys, 3, SenshiRules())
    seats = Seats(lineup("senshi", ["greedy"], 3), keys)
    eng.turn(st, np.array([0]), seats)   # the set-up decisions and the first turn
    for _ in range(4):   # a position with stacks on cards, a hand, and Study legal
        eng.turn(st, np.array([0]), seats)
    assert st.kind[0] == Decision.ACT and st.turns[0] == 5
    obs = eng.observe(st, np.array([0]), st.cur[:1])
    assert obs.kinds[0, 1:].all()
    n = 30000
    many = take(st, np.zeros(n, dtype=np.int64), 1)      # n copies of the position, each with its own stream
    rng_seats = Seats([Random()] * 3, game_keys(root_key(6), np.arange(n)))
    opts = eng.decide(many, np.arange(n), rng_seats, rng_seats.lineup_for(eng))
    assert (rng_seats.draws.counter.reshape(n, 3)[:, st.cur[0]] == 2).all()   # two draws per decision
    kind = opts // 32
    arg = opts % 32

    def close(count, p):
        return abs(count - n * p) <= 4 * np.sqrt(n * p * (1 - p))
    for k, mask in ((1, obs.can_study[0]), (2, obs.can_train[0]), (3, obs.can_test[0])):
        sel = kind == k
        assert close(sel.sum(), 1 / 3)
        targets = np.flatnonzero(mask)
        assert set(np.unique(arg[sel])) == set(targets)
        for t in targets:
            q = 1 / 3 / len(targets)
            assert close((sel & (arg == t)).sum(), q)
