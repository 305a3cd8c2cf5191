"""One conformance suite run over every registered game (shapes, termination, invariants, no leak,
batch-of-1 equals batch-of-N, identical results for any number of workers)."""
import copy

import numpy as np
import pytest

from simcore.registry import game_names, get_game
from simcore.rng import Draws, game_keys, root_key
from simcore.runner import simulate
from strategies.registry import lineup, strategies_for
from tests.lanes import cheap

GAMES = game_names()


def player_counts(eng):
    return sorted({eng.min_players, eng.default_players, eng.max_players})


def reference_agents(name, players):
    names = list(strategies_for(name))
    return [lineup(name, [cheap(names[s % len(names)])], 1)[0] for s in range(players)]


@pytest.mark.parametrize("name", GAMES)
def test_every_strategy_plays_legal_complete_games(name):
    eng = get_game(name)
    rules = eng.make_rules()
    for players in player_counts(eng):
        for sname in strategies_for(name):
            agents = lineup(name, [cheap(sname)], players)
            out = eng.play(np.arange(24), players, rules, agents, root_key(5), check=True)
            n = 24
            assert out["turns"].shape == (n,) and out["timeout"].shape == (n,)
            assert out["score"].shape[0] == n and out["win"].shape[0] == n
            assert out["win"].shape[1] in (0, players)
            if out["win"].shape[1]:
                total = out["win"].sum(1)
                ok = np.where(out["timeout"], total == 0, np.isclose(total, 1.0))
                assert ok.all(), f"{sname}: win shares must sum to 1 (0 on timeout)"
            assert (out["turns"] > 0).all()
            for k, v in out.items():
                assert len(v) == n, k


@pytest.mark.parametrize("name", GAMES)
def test_batch_of_one_equals_batch_of_n(name):
    eng = get_game(name)
    players = eng.default_players
    agents = reference_agents(name, players)
    rules = eng.make_rules()
    ids = np.arange(10, 22)
    together = eng.play(ids, players, rules, agents, root_key(11))
    # a narrow batch that hands finished games' places to the next ones gives the same outcomes
    narrow = eng.play(ids, players, rules, agents, root_key(11), width=3)
    for k in together:
        np.testing.assert_array_equal(narrow[k], together[k], err_msg=f"{k} with width 3")
    for j, g in enumerate(ids[:5]):
        alone = eng.play(np.array([g]), players, rules, agents, root_key(11))
        for k in together:
            np.testing.assert_array_equal(alone[k][0], together[k][j], err_msg=f"{k} of game {g}")


@pytest.mark.parametrize("name", GAMES)
def test_no_hidden_information_leak(name):
    eng = get_game(name)
    players = eng.default_players
    agents = reference_agents(name, players)
    rules = eng.make_rules()
    draws = Draws(game_keys(root_key(99), np.arange(16)))
    changed = [0]
    checks = [0]

    def probe(state):
        live = np.flatnonzero(~state.done)
        if len(live) == 0 or int(state.turns.max()) % 3:
            return
        for seat in range(players):
            before = copy.deepcopy(state)
            view = eng.observe_all(state, live, seat)
            other = eng.scramble_hidden(state, seat, draws)
            again = eng.observe_all(other, live, seat)
            assert view.keys() == again.keys()
            for k in view:
                np.testing.assert_array_equal(view[k], again[k], err_msg=f"{name}: seat {seat} sees a change in {k}")
            checks[0] += 1
            # the original state is untouched, and the scramble did change something somewhere
            for f, v in vars(state).items():
                if isinstance(v, np.ndarray):
                    np.testing.assert_array_equal(v, getattr(before, f))
                    if not np.array_equal(v, getattr(other, f)):
                        changed[0] += 1

    eng.play(np.arange(16), players, rules, agents, root_key(3), on_turn=probe)
    assert checks[0] > 0
    assert changed[0] > 0, "scramble_hidden never changed hidden information"


@pytest.mark.parametrize("name", GAMES)
def test_results_do_not_depend_on_jobs_or_chunking(name):
    eng = get_game(name)
    players = eng.default_players
    agents = reference_agents(name, players)
    a = simulate(name, agents, n_games=300, seed=7, jobs=1, chunk_size=100).summary()
    b = simulate(name, agents, n_games=300, seed=7, jobs=2, chunk_size=100).summary()
    c = simulate(name, agents, n_games=300, seed=7, jobs=1, chunk_size=300).summary()
    assert a == b
    # sums are exact (integers and win shares in 60ths), so even the chunking changes nothing
    assert a == c
    d = simulate(name, agents, n_games=300, seed=8, jobs=1).summary()
    assert d["mean_turns"] != a["mean_turns"] or d["win_share"] != a["win_share"]


@pytest.mark.parametrize("name", GAMES)
def test_tables_for_every_player_count(name):
    eng = get_game(name)
    for players in player_counts(eng):
        agents = reference_agents(name, players)
        res = simulate(name, agents, players=players, n_games=40, seed=1, keep_games=True)
        seats = res.seats()
        assert seats.height == players
        games = res.games()
        assert games.height == 40 * players
        assert set(games["seat"].unique().to_list()) == set(range(players))
        s = res.summary()
        assert len(s["win_share"]) in (0, players)


@pytest.mark.parametrize("name", GAMES)
def test_batch_width_equal_to_a_table_length_changes_nothing(name):
    """Refilling must never treat a shared table in the state as per-game data."""
    eng = get_game(name)
    players = eng.default_players
    agents = reference_agents(name, players)
    rules = eng.make_rules()
    state = eng.new_state(np.zeros(3, dtype=np.uint64), players, rules)
    lengths = {v.shape[0] for v in vars(state).values() if isinstance(v, np.ndarray) and v.ndim and v.shape[0] != 3}
    for w in sorted(lengths)[:2]:
        ids = np.arange(w + 5)
        full = eng.play(ids, players, rules, agents, root_key(4))
        narrow = eng.play(ids, players, rules, agents, root_key(4), width=w)
        for k in full:
            np.testing.assert_array_equal(narrow[k], full[k], err_msg=f"{k} with width {w}")
        # the mechanism itself: a table as long as the batch is neither sliced nor overwritten
        from simcore.game import splice, take
        wide = eng.new_state(np.arange(w, dtype=np.uint64), players, rules)
        fresh = eng.new_state(np.arange(w, dtype=np.uint64) + 7, players, rules)
        places = np.arange(w)[::-1]
        sub = take(wide, places[:2], w, eng.state_constants)
        splice(wide, places, fresh, w, eng.state_constants)
        for f in eng.state_constants:
            assert getattr(sub, f).shape == getattr(fresh, f).shape
            np.testing.assert_array_equal(getattr(wide, f), getattr(fresh, f))
