"""Senshi over many games: invariants (tile conservation) at every decision, legal play by every strategy, no
hidden-information leak (observations and decisions), batch-of-1 equals batch-of-N in both lanes, any number of
workers, contract metrics."""
import copy

import numpy as np
import pytest

from simcore.game import Seats
from simcore.games.senshi import NC, PER_COLOUR, REMOVED, Decision, Senshi, SenshiRules
from simcore.rng import Draws, game_keys, root_key
from simcore.runner import simulate
from strategies.registry import lineup, resolve, strategies_for
from tests.lanes import cheap

ENG = Senshi()
NAMES = [cheap(s) for s in strategies_for("senshi")]
RULES = [SenshiRules(), SenshiRules(open_stacks=True), SenshiRules(secret_hand=True)]


def test_registered_strategies():
    assert {"random", "greedy", "guard", "racer", "denier", "counter"} <= set(NAMES)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_strategy_legal_and_tiles_conserved(players):
    """Every strategy in every seat and mixed line-ups, every option: check() after every decision (set-up
    included) asserts hand + stacks + piles + removed = 18 per colour (72 in all) and every other invariant."""
    for r, rules in enumerate(RULES):
        for name in NAMES:
            agents = lineup("senshi", [name], players)
            out = ENG.play(np.arange(60), players, rules, agents, root_key(20 + r), check=True)
            assert not out["timeout"].any()
            assert np.allclose(out["win"].sum(axis=1), 1.0)
        mixed = [resolve("senshi", NAMES[(s + r) % len(NAMES)]) for s in range(players)]
        out = ENG.play(np.arange(100), players, rules, mixed, root_key(30 + r), check=True)
        assert not out["timeout"].any()
        # at the end: piles + hands + removed = 72
        total = sum(out[f"pile_{c}"].sum(axis=1) for c in ("strength", "agility", "honor", "wisdom"))
        assert (total + out["hand"].sum(axis=1) + NC * REMOVED[players] <= NC * PER_COLOUR).all()


def test_heuristic_parameters_and_specs():
    s = resolve("senshi", "guard:margin=2,late=6,min_gain=3")
    assert s.spec() == "guard:margin=2,min_gain=3,late=6"
    for spec in ["racer:min_gain=1,guard_at=10", "denier:threat=3,max_hand=5", "counter:w_min=3,a_deep=0.1"]:
        agents = [resolve("senshi", spec)] + lineup("senshi", ["greedy"], 2)
        ENG.play(np.arange(30), 3, SenshiRules(), agents, root_key(2), check=True)


def _probe_games(rules, players, agents, seed, each):
    eng = ENG
    draws = Draws(game_keys(root_key(99), np.arange(24)))
    calls = [0]

    def probe(state):
        live = np.flatnonzero(~state.done)
        if len(live) == 0 or int(state.turns.max()) % 4:
            return
        each(state, live, draws)
        calls[0] += 1

    eng.play(np.arange(24), players, rules, agents, root_key(seed), on_turn=probe)
    assert calls[0] > 3


LEAK_RULES = RULES + [SenshiRules(open_stacks=True, secret_hand=True)]


@pytest.mark.parametrize("rules", LEAK_RULES, ids=["default", "open_stacks", "secret_hand", "open_secret"])
def test_no_leak_observations(rules):
    players = 3
    agents = [resolve("senshi", n) for n in ("random", "guard", "denier")]
    changed = [0]

    def each(state, live, draws):
        for seat in range(players):
            view = ENG.observe_all(state, live, seat)
            other = ENG.scramble_hidden(state, seat, draws)
            ENG.check(other)
            again = ENG.observe_all(other, live, seat)
            for k in view:
                np.testing.assert_array_equal(view[k], again[k], err_msg=f"seat {seat} sees a change in {k}")
            changed[0] += int(not np.array_equal(other.tiles, state.tiles) or not np.array_equal(other.hand, state.hand))

    _probe_games(rules, players, agents, 5, each)
    if rules.open_stacks and not rules.secret_hand:
        # every tile was seen before it entered a hand, and moves are public: nothing is hidden
        assert changed[0] == 0
    else:
        assert changed[0] > 0


@pytest.mark.parametrize("rules", LEAK_RULES, ids=["default", "open_stacks", "secret_hand", "open_secret"])
def test_no_leak_decisions(rules):
    """Second proof: every strategy decides the same (set-up choices and actions) on the true state and on
    one where everything the deciding seat cannot see is scrambled, with the same random streams."""
    players = 4
    strategies = [resolve("senshi", n) for n in NAMES]
    decided = [0]

    def each(state, live, draws):
        keys = game_keys(root_key(7), np.arange(state.n))
        for seat in range(players):
            idx = live[state.cur[live] == seat]
            if not len(idx):
                continue
            other = ENG.scramble_hidden(state, seat, draws)
            for s in strategies:
                a, b = Seats([s] * players, keys), Seats([s] * players, keys)
                ra = ENG.decide(state, idx, a, a.lineup_for(ENG))
                rb = ENG.decide(other, idx, b, b.lineup_for(ENG))
                np.testing.assert_array_equal(ra, rb, err_msg=f"{s.spec()} decides differently")
                np.testing.assert_array_equal(a.draws.counter, b.draws.counter)
                decided[0] += len(idx) * (state.kind[idx] == Decision.SETUP).any()

    _probe_games(rules, players, lineup("senshi", ["greedy", "random", "counter", "racer"], players), 6, each)
    assert decided[0] > 0 or rules.secret_hand   # set-up decisions were probed too


def test_scramble_changes_hidden_tiles_only():
    st = ENG.new_state(game_keys(root_key(3), np.arange(50)), 4, SenshiRules())
    seats = Seats(lineup("senshi", ["random"], 4), game_keys(root_key(3), np.arange(50)))
    for _ in range(4):   # the set-up decisions
        ENG.step_games(st, np.arange(50), seats)
    assert (st.kind == Decision.ACT).all()
    before = copy.deepcopy(st)
    other = ENG.scramble_hidden(st, 0, Draws(game_keys(root_key(4), np.arange(50))))
    np.testing.assert_array_equal(st.tiles, before.tiles)        # the original is untouched
    assert not np.array_equal(other.tiles, st.tiles)
    np.testing.assert_array_equal(other.tiles[:, :, 0], st.tiles[:, :, 0])   # tops stay
    np.testing.assert_array_equal(other.hand[:, 0], st.hand[:, 0])           # my hand stays
    ENG.check(other)


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "batch"])
@pytest.mark.parametrize("rules", RULES, ids=["default", "open_stacks", "secret_hand"])
def test_batch_of_one_equals_batch_of_n(rules, compiled):
    agents = [resolve("senshi", n) for n in ("racer", "random", "counter")]
    ids = np.arange(40, 52)
    together = ENG.play(ids, 3, rules, agents, root_key(12), compiled=compiled)
    narrow = ENG.play(ids, 3, rules, agents, root_key(12), compiled=compiled, width=5)
    for k in together:
        np.testing.assert_array_equal(narrow[k], together[k], err_msg=f"{k} with width 5")
    for j, g in enumerate(ids[:4]):
        alone = ENG.play(np.array([g]), 3, rules, agents, root_key(12), compiled=compiled)
        for k in together:
            np.testing.assert_array_equal(alone[k][0], together[k][j], err_msg=f"{k} of game {g}")


def test_jobs_do_not_change_results():
    agents = [resolve("senshi", n) for n in ("denier", "random", "greedy", "guard")]
    a = simulate("senshi", agents, n_games=400, seed=3, jobs=1, chunk_size=100).summary()
    b = simulate("senshi", agents, n_games=400, seed=3, jobs=2, chunk_size=100).summary()
    assert a == b


def test_contract_metrics():
    agents = lineup("senshi", ["greedy"], 4)
    res = simulate("senshi", agents, n_games=600, seed=5, keep_games=True)
    out = res.summary()
    m = out["metrics"]
    n, P = 600, 4
    games = res.games().sort(["game", "seat"])
    col = lambda k: games[k].to_numpy().reshape(n, P)
    elim, win, maxp, nob = col("eliminated"), col("win"), col("max_pile"), col("nobody_eliminated")[:, 0]
    assert len(m["elimination_rate"]) == P
    assert np.allclose(m["elimination_rate"], elim.mean(axis=0))
    assert m["nobody_eliminated"] == pytest.approx(nob.mean())
    # the winner's largest pile, from the per-seat rows
    assert (win.sum(axis=1) == 1).all()
    assert m["mean_winning_pile"] == pytest.approx(maxp[win == 1].mean())
    # nobody eliminated <=> no seat eliminated; the winner is never eliminated
    assert ((elim.sum(axis=1) == 0) == (nob == 1)).all()
    assert (elim[win == 1] == 0).all()
    # score is the smallest pile, and the eliminated seats hold the table's smallest
    piles = np.stack([col(f"pile_{c}") for c in ("strength", "agility", "honor", "wisdom")], axis=2)
    assert np.array_equal(col("score"), piles.min(axis=2))
    low = piles.min(axis=2)
    assert ((low == low.min(axis=1, keepdims=True)) | (elim == 0)).all()
    assert 0 < m["nobody_eliminated"] < 0.3 and 3 < m["mean_winning_pile"] < 10
    assert sum(out["win_share"]) == pytest.approx(1.0) and out["timeouts"] == 0
