"""Fan & Mallet over many games: invariants, every card always placeable, every strategy legal, no leak
through decisions, batch independence, matches, and the contract metrics."""
import numpy as np
import pytest

from simcore.game import Seats
from simcore.games.fan_and_mallet import (CARD_COLOUR, DECK, N_COLOURS, FanAndMallet, FanAndMalletRules,
                                          landing)
from simcore.rng import AgentRandom, Draws, game_keys, root_key
from simcore.runner import simulate
from strategies.registry import lineup, strategies_for

ENG = FanAndMallet()
NAMES = list(strategies_for("fan-and-mallet"))


def test_reference_policies_and_heuristics_are_registered():
    assert {"random", "strongest"} <= set(NAMES)
    assert len(NAMES) >= 5


@pytest.mark.parametrize("spec", NAMES)
def test_every_strategy_plays_legal_games_with_invariants(spec):
    agents = lineup("fan-and-mallet", [spec, "random"], 2)
    out = ENG.play(np.arange(60), 2, ENG.make_rules(), agents, root_key(21), check=True)
    assert not out["timeout"].any()
    assert np.allclose(out["win"].sum(1), 1.0)
    assert (out["turns"] <= 60).all()
    assert ((out["houses_possessed"] >= 6) & (out["houses_possessed"] <= 12)).all()
    assert (out["score"].max(1) == 7).all()


def test_every_card_always_has_a_house():
    """At every turn, every colour still held in a hand or deck has a house from either pawn."""
    checked = [0]

    def probe(s):
        live = np.flatnonzero(~s.done)
        if not len(live):
            return
        placed = s.stack[live].reshape(len(live), -1)
        cols = np.broadcast_to(np.arange(N_COLOURS), (len(live), N_COLOURS))
        for f in (0, 1):
            pos = landing(s.colours[live], s.pawn[live, f], cols)
            for c in range(N_COLOURS):
                left = 10 - ((placed >= 0) & (CARD_COLOUR[np.maximum(placed, 0)] == c)).sum(1)
                assert (pos[left > 0, c] >= 0).all()
                # a colour with k cards left has exactly k houses that take it
                free = ((s.free[live, c][:, None] >> np.arange(12)) & 1).sum(1)
                np.testing.assert_array_equal(free, left)
                checked[0] += 1

    ENG.play(np.arange(200), 2, ENG.make_rules(), lineup("fan-and-mallet", ["random"], 2), root_key(4),
             on_turn=probe)
    assert checked[0] > 600  # (turns x factions x colours, each over the whole batch)


def test_decisions_do_not_depend_on_hidden_information():
    """Second proof of no leak: every strategy decides the same in a state whose hidden cards were shuffled."""
    agents = [lineup("fan-and-mallet", [n], 1)[0] for n in NAMES]
    n = 24
    draws = Draws(game_keys(root_key(5), np.arange(n)))
    compared = [0]

    def probe(s):
        live = np.flatnonzero(~s.done)
        if not len(live) or int(s.turns.max()) % 4:
            return
        for seat in (0, 1):
            other = ENG.scramble_hidden(s, seat, draws)
            assert not (np.array_equal(other.deck, s.deck) and np.array_equal(other.hand, s.hand)) or \
                int(s.turns.max()) > 40
            actor = np.full(len(live), seat)
            for a in agents:
                keys = game_keys(root_key(6), np.arange(n))
                d1, d2 = Draws(keys), Draws(keys)
                x = a.play(ENG.observe(s, live, actor), AgentRandom(d1, live))
                y = a.play(ENG.observe(other, live, actor), AgentRandom(d2, live))
                np.testing.assert_array_equal(x, y, err_msg=a.spec())
                compared[0] += 1

    ENG.play(np.arange(n), 2, ENG.make_rules(), lineup("fan-and-mallet", ["counter", "keeper"], 2), root_key(8),
             on_turn=probe)
    assert compared[0] > 50


@pytest.mark.parametrize("rules", [{}, {"match_points": 12}, {"start_positions": "2,3"}])
def test_batch_of_one_equals_batch_of_n(rules):
    r = ENG.make_rules(rules)
    agents = lineup("fan-and-mallet", ["keeper", "random"], 2)
    ids = np.arange(30, 40)
    together = ENG.play(ids, 2, r, agents, root_key(2))
    for j in (0, 3, 9):
        alone = ENG.play(ids[j:j + 1], 2, r, agents, root_key(2))
        for k in together:
            np.testing.assert_array_equal(alone[k][0], together[k][j], err_msg=k)


def test_results_identical_for_any_number_of_jobs():
    agents = lineup("fan-and-mallet", ["closer", "strongest"], 2)
    a = simulate("fan-and-mallet", agents, n_games=400, seed=3, jobs=1, chunk_size=100).summary()
    b = simulate("fan-and-mallet", agents, n_games=400, seed=3, jobs=2, chunk_size=100).summary()
    assert a == b


def test_contract_metrics_are_ratios_of_the_per_game_columns():
    agents = lineup("fan-and-mallet", ["random"], 2)
    res = simulate("fan-and-mallet", agents, n_games=600, seed=9, keep_games=True)
    summ = res.summary()
    m = summ["metrics"]
    g = res.games().filter(res.games()["seat"] == 0)
    assert m["mean_houses_possessed"] == pytest.approx(g["houses_possessed"].mean())
    assert m["first_possession_white"] == pytest.approx(g["first_white"].mean())
    assert m["first_winner_won"] == pytest.approx(g["first_winner_won"].mean())
    assert 6 <= m["mean_houses_possessed"] <= 12
    assert 0.3 < m["first_possession_white"] < 0.7
    assert summ["rules"] == {"start_positions": "0,6", "match_points": None}
    # the first possession's winner is ahead: they win more often than not
    assert m["first_winner_won"] > 0.5
    for a in ("umbrella", "bucket", "mirror", "mortar", "cauldron", "hatchet"):
        assert 0 <= m[f"mean_bonus_{a}"] <= 4 and 0 <= m[f"swing_share_{a}"] <= 1
    assert m["mean_bonus_bucket"] > 1 and m["mean_bonus_hatchet"] < m["mean_bonus_bucket"]
    assert 0 < m["tie_share"] < 0.3


def test_match_metrics_count_games_within_matches():
    agents = lineup("fan-and-mallet", ["random"], 2)
    res = simulate("fan-and-mallet", agents, rules={"match_points": 20}, n_games=200, seed=1)
    summ = res.summary()
    assert summ["metrics"]["mean_games"] >= 3
    assert summ["mean_turns"] > 3 * 45
    assert 6 <= summ["metrics"]["mean_houses_possessed"] <= 12
    assert sum(summ["win_share"]) == pytest.approx(1.0)
