"""Sensu's compiled lane: whole games in one compiled driver give exactly the turn-by-turn lane's results."""
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from simcore.game import Seats
from simcore.registry import get_game
from simcore.rng import game_keys, root_key
from simcore.runner import simulate
from strategies.registry import lineup
from strategies.sensu import STRATEGIES, Focus, Planner, Random, Redeemer
from tests.lanes import assert_same

ENG = get_game("sensu")


@dataclass(frozen=True)
class Tweaked(Random):
    """A subclass of a compiled strategy: it may change any decision, so it plays the batch lane."""
    name: ClassVar[str] = "tweaked"

    def place(self, obs, rng):  # solo: always a column
        return 1 + rng.integers(4)


@dataclass(frozen=True)
class Cautious(Planner):
    """A subclass of a compiled heuristic (same decisions): it plays the batch lane."""
    name: ClassVar[str] = "cautious"


@pytest.fixture
def lanes(monkeypatch):
    """Counts the compiled driver's calls (so that a test knows which lane played)."""
    calls = []
    original = type(ENG).play_compiled

    def counted(self, state, seats, lineup_, limit):
        calls.append(len(state.done))
        return original(self, state, seats, lineup_, limit)

    monkeypatch.setattr(type(ENG), "play_compiled", counted)
    return calls


def both(players, rules, agents, n, seed=11, width=None, ids=None):
    R = ENG.make_rules(rules)
    ids = np.arange(n) if ids is None else ids
    fast = ENG.play(ids, players, R, agents, root_key(seed), width=width, compiled=True)
    slow = ENG.play(ids, players, R, agents, root_key(seed), width=width, compiled=False)
    return fast, slow


CASES = [
    (1, {}, 4000),
    (2, {}, 3000),
    (3, {}, 3000),
    (4, {}, 3000),
    (5, {}, 3000),
    (1, {"sticks": "B"}, 3000),
    (1, {"sticks": "A2", "power_copies": "AB"}, 3000),
    (2, {"powers": True, "power_copies": "AC"}, 2000),
    (3, {"sticks": "C", "powers": True}, 2000),
    (4, {"powers": True}, 2000),
    (5, {"powers": True, "power_copies": "ABC", "sticks": "4,3,3,3,2,2,2,1,1"}, 1500),
    (2, {"chosen_fan": True}, 1500),
    (3, {"chosen_fan": True}, 1500),
    (4, {"chosen_fan": True, "powers": True}, 1500),
    (5, {"chosen_fan": True, "powers": True, "sticks": "B"}, 1000),
]


@pytest.mark.parametrize("players,rules,n", CASES)
def test_random_same_results_in_both_lanes(players, rules, n, lanes):
    agents = lineup("sensu", ["random"], players)
    assert ENG.compiled_lineup(agents, players, ENG.make_rules(rules)) is not None
    fast, slow = both(players, rules, agents, n)
    assert lanes, "the compiled lane did not play"
    assert_same(fast, slow)
    assert (fast["turns"] > 0).all()
    if players > 1:  # decided games have one winner, timeouts none
        np.testing.assert_array_equal(fast["win"].sum(1), np.where(fast["timeout"], 0.0, 1.0))


def played_state(players, rules, n=1000, seed=11):
    R = ENG.make_rules(rules)
    agents = lineup("sensu", ["random"], players)
    st = ENG.new_state(game_keys(root_key(seed), np.arange(n)), players, R)
    ENG.play_compiled(st, Seats(agents, st.keys), ENG.compiled_lineup(agents, players, R), ENG.turn_limit(R))
    ENG.check(st)
    return st


HEURISTIC_CASES = [
    (1, {}, ["redeemer"], 1500),
    (1, {"sticks": "C"}, ["planner"], 1500),
    (1, {"sticks": "A2"}, ["focus"], 1500),
    (1, {}, ["focus:pair=02,off_weight=0.5"], 800),
    (2, {}, ["planner", "redeemer"], 1000),
    (2, {"chosen_fan": True}, ["focus:pair=01,off_weight=0.5", "planner:impatience=0.5,keep=1.0"], 600),
    (3, {"powers": True}, ["focus", "planner", "random"], 800),
    (3, {"chosen_fan": True, "sticks": "B"}, ["redeemer:close_bonus=2.0,play_min=4.0", "focus", "planner"], 500),
    (4, {}, ["redeemer", "planner", "focus", "random"], 800),
    (4, {"powers": True, "power_copies": "AC"}, ["planner:feed_penalty=3.0", "random", "redeemer", "focus:pair=12"],
     600),
    (5, {}, ["random", "random", "planner", "random", "focus"], 600),
    (5, {"chosen_fan": True, "powers": True}, ["planner", "focus", "redeemer", "planner", "random"], 400),
]


@pytest.mark.parametrize("players,rules,specs,n", HEURISTIC_CASES)
def test_heuristics_same_results_in_both_lanes(players, rules, specs, n, lanes):
    agents = lineup("sensu", specs, players)
    assert ENG.compiled_lineup(agents, players, ENG.make_rules(rules)) is not None
    fast, slow = both(players, rules, agents, n)
    assert lanes
    assert_same(fast, slow)


def test_every_strategy_has_a_compiled_form_with_its_parameters():
    assert all(type(s).__dict__.get("compiled_code") is not None for s in (cls() for cls in STRATEGIES))
    codes = {cls().compiled_policy()[0] for cls in STRATEGIES}
    assert len(codes) == len(STRATEGIES)
    assert Planner(keep=0.7, impatience=0.2).compiled_policy()[1] == (6.0, 3.0, 0.7, 1.0, 0.2)
    assert [Focus(pair=p).compiled_params()[3] for p in ("auto", "01", "02", "12")] == [-1, 2, 1, 0]
    assert Redeemer(close_bonus=4.0).compiled_params() == (4.0, 0.0)


def test_the_compared_games_exercise_the_variants():
    """The rules' rarer paths run in games like the compared ones: every power fires, a win leaves redeemed
    cards unplaced, decks are reshuffled, chosen fans are drawn anew, chosen-fan games stall to the limit."""
    st = played_state(4, {"powers": True})
    assert (st.fan_power >= 2).any(axis=(0, 1)).all() and (st.limbo >= 0).any() and (st.reshuffles > 0).any()
    st = played_state(3, {"chosen_fan": True})
    assert (st.cf_n < 15 - 3).any() and st.timeout.any() and (st.reshuffles > 0).any()


@pytest.mark.parametrize("players,rules", [(4, {"max_turns": 60}), (2, {"max_turns": 37, "powers": True}),
                                           (1, {"max_turns": 12}), (3, {"max_turns": 250, "chosen_fan": True})])
def test_turn_limit_timeouts_match(players, rules, lanes):
    agents = lineup("sensu", ["random"], players)
    fast, slow = both(players, rules, agents, 800)
    assert lanes
    assert_same(fast, slow)
    assert fast["timeout"].any() and (fast["turns"] <= rules["max_turns"]).all()
    assert (fast["turns"][fast["timeout"]] == rules["max_turns"]).all()


@pytest.mark.parametrize("players,width", [(4, 333), (1, 1000)])
def test_blocks_and_game_ids(players, width, lanes):
    """Blocks of ``width`` games and arbitrary game ids: the same games as one block and as the batch lane."""
    agents = lineup("sensu", ["random"], players)
    ids = np.arange(5000, 5000 + 1500)
    fast, slow = both(players, {"powers": players > 1}, agents, 0, width=width, ids=ids)
    assert len(lanes) == -(-1500 // width)
    assert_same(fast, slow)
    whole = ENG.play(ids, players, ENG.make_rules({"powers": players > 1}), agents, root_key(11), compiled=True)
    assert_same(fast, whole)


def empty_closed_fan_decks(st):
    """Move every face-down closed-fan card to the discarded ones, so the first chosen fan closed reshuffles."""
    for t in range(3):
        st.cf_disc[:, t] += (st.cf_deck == t).sum(1)
    st.cf_deck[:] = -1
    st.cf_n[:] = 0


@pytest.mark.parametrize("players,rules,prep,specs", [
    (4, {}, None, ["random"]),
    (2, {"powers": True, "chosen_fan": True}, None, ["random"]),
    (5, {"chosen_fan": True}, empty_closed_fan_decks, ["random"]),
    (3, {"chosen_fan": True, "powers": True, "max_turns": 300}, empty_closed_fan_decks, ["random"]),
    (1, {}, None, ["random"]),
    (4, {"powers": True, "chosen_fan": True}, empty_closed_fan_decks, ["planner", "random", "focus", "redeemer"]),
    (1, {}, None, ["planner"]),
])
def test_final_states_and_random_streams_match(players, rules, prep, specs):
    """Every state array and every seat's stream counter ends the same in both lanes."""
    R = ENG.make_rules(rules)
    agents = lineup("sensu", specs, players)
    keys = game_keys(root_key(5), np.arange(400))
    a, b = ENG.new_state(keys, players, R), ENG.new_state(keys, players, R)
    if prep is not None:
        prep(a)
        prep(b)
    sa, sb = Seats(agents, keys), Seats(agents, keys)
    limit = ENG.turn_limit(R)
    while True:  # the batch lane's loop (Game.play)
        idx = np.flatnonzero(~a.done)
        if len(idx) == 0:
            break
        over = a.turns[idx] >= limit
        a.timeout[idx[over]] = True
        a.done[idx[over]] = True
        if (~over).any():
            ENG.turn(a, idx[~over], sa)
    ENG.play_compiled(b, sb, ENG.compiled_lineup(agents, players, R), limit)
    for name, value in vars(a).items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(value, getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(sa.draws.counter, sb.draws.counter)
    if "random" in specs or (players > 1 and "planner" in specs):  # the others draw nothing
        assert sb.draws.counter.sum() > 0
    ENG.check(b)
    if prep is not None:
        assert (b.cf_shuffles > 0).sum() > 50


@pytest.mark.parametrize("players", [1, 3])
def test_non_compiled_lineups_use_the_batch_lane(players, lanes):
    R = ENG.make_rules({})
    for agents in ([Random()] * (players - 1) + [Tweaked()], [Planner()] * (players - 1) + [Cautious()]):
        assert ENG.compiled_lineup(agents, players, R) is None
        fast, slow = both(players, {}, agents, 300)
        assert_same(fast, slow)
    assert not lanes
    # the subclass really plays differently from its parent (solo: it never uses the pile)
    if players == 1:
        tweak = ENG.play(np.arange(300), 1, R, [Tweaked()], root_key(11))
        plain = ENG.play(np.arange(300), 1, R, [Random()], root_key(11))
        assert not all(np.array_equal(tweak[k], plain[k]) for k in plain)


def test_every_rule_option_has_the_compiled_lane():
    agents = lineup("sensu", ["random"], 4)
    for rules in ({}, {"sticks": "B"}, {"sticks": "1,2,3,4,1,2,3,4,1"}, {"power_copies": "A"}, {"powers": True},
                  {"chosen_fan": True}, {"max_turns": 5}):
        code, params = ENG.compiled_lineup(agents, 4, ENG.make_rules(rules))
        assert code.tolist() == [Random.compiled_code] * 4 and params.shape[0] == 4


def test_simulate_jobs_in_the_compiled_lane(lanes):
    agents = lineup("sensu", ["random"], 4)
    one = simulate("sensu", agents, n_games=1200, seed=4, jobs=1, chunk_size=300)
    assert lanes
    two = simulate("sensu", agents, n_games=1200, seed=4, jobs=2, chunk_size=300)
    batch = simulate("sensu", agents, n_games=1200, seed=4, jobs=1, chunk_size=300, compiled=False)
    assert one.summary() == two.summary() == batch.summary()
    solo = [simulate("sensu", [Random()], n_games=2000, seed=9, jobs=j, compiled=c).summary()
            for j, c in ((1, True), (2, True), (1, False))]
    assert solo[0] == solo[1] == solo[2]
