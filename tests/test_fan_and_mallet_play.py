"""Fan & Mallet over many games: invariants, every card always placeable, every strategy legal, no leak
through decisions, batch independence, matches, and the contract metrics."""
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from simcore.game import Seats
from simcore.games.fan_and_mallet import CARD_COLOUR, HAND, N_COLOURS, FanAndMallet, FanAndMalletView, landing, observe
from simcore.rng import Draws, game_keys, root_key
from simcore.runner import simulate
from strategies.base import Strategy
from strategies.registry import lineup, strategies_for
from tests.lanes import cheap

ENG = FanAndMallet()
NAMES = [cheap(s) for s in strategies_for("fan-and-mallet")]


def test_reference_policies_and_heuristics_are_registered():
    assert {"random", "strongest"} <= set(NAMES)
    assert len(NAMES) >= 5


@pytest.mark.parametrize("rules", [{}, {"match_points": 9, "start_positions": "4,4"}])
@pytest.mark.parametrize("spec", NAMES)
def test_every_strategy_plays_legal_games_with_invariants(spec, rules):
    """The invariants hold at every decision (``check=True``: the batch lane, checked after every step),
    and the compiled lane plays the same games."""
    agents = lineup("fan-and-mallet", [spec, "random"], 2)
    out = ENG.play(np.arange(60), 2, ENG.make_rules(rules), agents, root_key(21), check=True)
    fast = ENG.play(np.arange(60), 2, ENG.make_rules(rules), agents, root_key(21))
    for k in out:
        np.testing.assert_array_equal(out[k], fast[k], err_msg=k)
    if rules:
        assert (out["games_played"] > 1).any()
        return
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


@dataclass(frozen=True)
class Peeker(Strategy):
    """A numpy strategy reading every field of the batch observation: closes a house it wins, else plays
    the card landing where the opponent has most unseen cards of the card's colour, in the house with
    most followers, breaking ties with its random stream."""
    name: ClassVar[str] = "peeker"
    game: ClassVar[str] = "fan-and-mallet"

    def play(self, obs, rng):
        unseen = obs.unseen_opponent.reshape(len(obs), N_COLOURS, 5).sum(axis=2)
        rows = obs.rows[:, None]
        value = (100.0 * (obs.closes & obs.close_wins) - 100.0 * (obs.closes & ~obs.close_wins)
                 + unseen[rows, obs.hand_colour] + obs.landing_count + 0.1 * obs.close_margin
                 + 0.01 * obs.hand_size[obs.rows, 1 - obs.me][:, None] + 0.001 * obs.deck_left[obs.rows, obs.me][:, None]
                 + 0.5 * rng.random(HAND) + 0.0 * (obs.owner.sum(1) + obs.markers.sum(1) + obs.points.sum(1)
                                                   + obs.ring_colour.sum(1) + obs.first_done + obs.game_no)[:, None])
        return np.argmax(np.where(obs.legal, value, -np.inf), axis=1).astype(np.int64)


def test_decisions_do_not_depend_on_hidden_information():
    """Second proof of no leak: every strategy, compiled or numpy, in a lineup of compiled decisions only
    (the compiled decide) or beside a numpy strategy (the batch lane's decide), decides the same in a
    state whose hidden cards (own deck order, the opponent's hand and deck) were shuffled."""
    agents = [lineup("fan-and-mallet", [n], 1)[0] for n in NAMES] + [Peeker()]
    n = 24
    draws = Draws(game_keys(root_key(5), np.arange(n)))
    compared = [0]

    def probe(s):
        live = np.flatnonzero(~s.done)
        if not len(live) or int(s.turns.max()) % 4:
            return
        for seat in (0, 1):
            idx = live[s.to_move[live] == seat]
            if not len(idx):
                continue
            other = ENG.scramble_hidden(s, seat, draws)
            assert not (np.array_equal(other.deck, s.deck) and np.array_equal(other.hand, s.hand)) or \
                int(s.turns.max()) > 40
            for a in agents:
                for pair in ([a, a], [a, Peeker()], [Peeker(), a]):
                    keys = game_keys(root_key(6), np.arange(n))
                    one, two = Seats(pair, keys), Seats(pair, keys)
                    x = ENG.decide(s, idx, one, one.lineup_for(ENG))
                    y = ENG.decide(other, idx, two, two.lineup_for(ENG))
                    np.testing.assert_array_equal(x, y, err_msg=f"{pair[seat].spec()} in seat {seat}")
                    np.testing.assert_array_equal(one.draws.counter, two.draws.counter)
                    compared[0] += 1

    ENG.play(np.arange(n), 2, ENG.make_rules(), lineup("fan-and-mallet", ["counter", "keeper"], 2), root_key(8),
             on_turn=probe)
    assert compared[0] > 200


def test_the_compiled_view_holds_what_the_seat_may_see_only():
    """The compiled observation of a seat is its own hand and the public arrays; scrambling what it may
    not see changes nothing in it."""
    s = ENG.new_state(game_keys(root_key(1), np.arange(30)), 2, ENG.make_rules())
    ENG.play_state(s, Seats(lineup("fan-and-mallet", ["random"], 2), s.keys), max_steps=25)
    assert set(FanAndMalletView._fields) == {"g", "me", "kind", "hand", "hand_n", "stack", "count", "colours", "free",
                                             "owner", "ring_colour", "ring_faction", "pawn", "markers", "deck_pos",
                                             "points", "first_done", "game_no", "turns", "match_points"}
    draws = Draws(game_keys(root_key(2), np.arange(30)))
    for seat in (0, 1):
        other = ENG.scramble_hidden(s, seat, draws)
        for g in range(30):
            a = observe(ENG.state_tuple(s), ENG.rules_tuple(s), g, seat)
            b = observe(ENG.state_tuple(other), ENG.rules_tuple(other), g, seat)
            for name, x, y in zip(FanAndMalletView._fields, a, b):
                np.testing.assert_array_equal(x, y, err_msg=name)
            np.testing.assert_array_equal(a.hand, s.hand[g, seat])


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("rules", [{}, {"match_points": 12}, {"start_positions": "2,3"}])
def test_batch_of_one_equals_batch_of_n(rules, compiled):
    r = ENG.make_rules(rules)
    for specs in (["keeper", "random"], ["counter", "strongest"], ["random", "closer"]):
        agents = lineup("fan-and-mallet", specs, 2)
        ids = np.arange(30, 40)
        together = ENG.play(ids, 2, r, agents, root_key(2), compiled=compiled)
        narrow = ENG.play(ids, 2, r, agents, root_key(2), compiled=compiled, width=3)
        for j in (0, 3, 9):
            alone = ENG.play(ids[j:j + 1], 2, r, agents, root_key(2), compiled=compiled)
            for k in together:
                np.testing.assert_array_equal(alone[k][0], together[k][j], err_msg=f"{specs} {k}")
                np.testing.assert_array_equal(narrow[k], together[k], err_msg=f"{specs} {k}, width 3")


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
