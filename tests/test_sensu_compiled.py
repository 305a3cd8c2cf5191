"""Sensu's compiled lane (every game to its end in one compiled call) plays exactly the games of the batch lane
(one decision of every live game per step, asked of each strategy as a batch): the same deals, the same
random streams, the same rule steps, for every strategy, player count and rule option. A lineup with a numpy
decision plays the batch lane; a numpy strategy written like ``random`` plays ``random``'s games."""
import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from simcore.game import Seats
from simcore.games.sensu import SLOTS, Action, arrange_by
from simcore.registry import get_game
from simcore.rng import game_keys, root_key
from simcore.runner import simulate
from strategies.registry import lineup
from strategies.sensu import STRATEGIES, Focus, Planner, Random, Redeemer
from tests.lanes import assert_same
from tests.sensu_test_strategies import Cautious, Tweaked

ENG = get_game("sensu")


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
def test_random_same_results_in_both_lanes(players, rules, n):
    agents = lineup("sensu", ["random"], players)
    assert ENG.lineup(agents).all_compiled
    fast, slow = both(players, rules, agents, n)
    assert_same(fast, slow)
    assert (fast["turns"] > 0).all()
    if players > 1:  # decided games have one winner, timeouts none
        np.testing.assert_array_equal(fast["win"].sum(1), np.where(fast["timeout"], 0.0, 1.0))


def played_state(players, rules, n=1000, seed=11, specs=("random",)):
    R = ENG.make_rules(rules)
    agents = lineup("sensu", list(specs), players)
    st = ENG.new_batch(game_keys(root_key(seed), np.arange(n)), players, R)
    ENG.play_state(st, Seats(agents, st.keys))
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
def test_heuristics_same_results_in_both_lanes(players, rules, specs, n):
    agents = lineup("sensu", specs, players)
    assert ENG.lineup(agents).all_compiled
    fast, slow = both(players, rules, agents, n)
    assert_same(fast, slow)


def test_every_strategy_is_compiled_with_its_parameters():
    for cls in STRATEGIES:
        lu = ENG.lineup([cls()])
        assert lu.all_compiled and set(lu.forms[0].values()) == {"compiled"}, cls.name
    assert Planner(keep=0.7, impatience=0.2).compiled_values() == {
        "code": 3, "close_bonus": 6.0, "play_min": 3.0, "keep": 0.7, "feed_penalty": 1.0, "impatience": 0.2,
        "off_weight": 1.0, "off": -1.0}
    assert [Focus(pair=p).compiled_values()["off"] for p in ("auto", "01", "02", "12")] == [-1.0, 2.0, 1.0, 0.0]
    assert Redeemer(close_bonus=4.0).compiled_values() == {
        "code": 2, "close_bonus": 4.0, "play_min": 0.0, "keep": 0.3, "feed_penalty": 0.0, "impatience": 0.0,
        "off_weight": 1.0, "off": -1.0}
    assert Random().compiled_values() == {}
    # the three heuristics share one parameter type, so their decisions are compiled once
    lu = ENG.lineup([Redeemer(), Planner(), Focus(), Random()])
    assert len({p.fields for p in lu.plans if p.cls is not Random}) == 1
    assert lu.params[1].tolist() == [3, 6.0, 3.0, 0.5, 1.0, 0.1, 1.0, -1.0]


def test_the_compared_games_exercise_the_variants():
    """The rules' rarer paths run in games like the compared ones: every power fires, a win leaves redeemed
    cards unplaced, decks are reshuffled, chosen fans are drawn anew, chosen-fan games stall to the limit."""
    st = played_state(4, {"powers": True})
    assert (st.fan_power >= 2).any(axis=(0, 1)).all() and (st.limbo >= 0).any() and (st.reshuffles > 0).any()
    st = played_state(3, {"chosen_fan": True})
    assert (st.cf_n < 15 - 3).any() and st.timeout.any() and (st.reshuffles > 0).any()


@pytest.mark.parametrize("players,rules", [(4, {"max_turns": 60}), (2, {"max_turns": 37, "powers": True}),
                                           (1, {"max_turns": 12}), (3, {"max_turns": 250, "chosen_fan": True})])
def test_turn_limit_timeouts_match(players, rules):
    agents = lineup("sensu", ["random"], players)
    fast, slow = both(players, rules, agents, 800)
    assert_same(fast, slow)
    assert fast["timeout"].any() and (fast["turns"] <= rules["max_turns"]).all()
    assert (fast["turns"][fast["timeout"]] == rules["max_turns"]).all()


@pytest.mark.parametrize("players,width", [(4, 333), (1, 1000)])
def test_blocks_and_game_ids(players, width):
    """Blocks of ``width`` games and arbitrary game ids: the same games as one block and as the batch lane."""
    agents = lineup("sensu", ["random"], players)
    ids = np.arange(5000, 5000 + 1500)
    fast, slow = both(players, {"powers": players > 1}, agents, 0, width=width, ids=ids)
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
    ends = []
    for compiled in (False, True):
        st = ENG.new_batch(keys, players, R)
        if prep is not None:
            prep(st)
        seats = Seats(agents, keys)
        ENG.play_state(st, seats, compiled=compiled)
        ends.append((st, seats.draws.counter.copy()))
    (a, ca), (b, cb) = ends
    for name, value in vars(a).items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(value, getattr(b, name), err_msg=name)
    np.testing.assert_array_equal(ca, cb)
    if "random" in specs or (players > 1 and "planner" in specs):  # the others draw nothing
        assert cb.sum() > 0
    assert b.done.all()
    ENG.check(b)
    if prep is not None:
        assert (b.cf_shuffles > 0).sum() > 50


# ----- numpy strategies ------------------------------------------------------------------------------
def choose_rows(u, mask):
    """Index of a uniformly chosen True entry of each row of ``mask`` given one uniform per row (-1 where none)."""
    mask = np.asarray(mask, dtype=bool)
    count = mask.sum(axis=1)
    k = np.minimum((u * count).astype(np.int64), np.maximum(count - 1, 0))
    pos = np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1)
    return np.where(count > 0, pos, -1)


@dataclass(frozen=True)
class NumpyRandom(Random):
    """``random`` written again as numpy methods over batches of observations (docs/games/sensu.md): the batch
    lane asks it for all the games waiting on a decision at once. It must play ``random``'s games."""
    name: ClassVar[str] = "numpy-random"

    def turn(self, obs, rng):
        u = rng.random(2)
        play = obs.combos.any(axis=1) & (u[:, 0] < 0.5)
        src = choose_rows(u[:, 1], obs.sources)
        return np.where(play, Action.PLAY + choose_rows(u[:, 1], obs.combos), np.where(src >= 0, src, Action.PASS))

    def discard(self, obs, rng):
        return rng.integers(obs.hand_n)

    def arrange(self, obs, rng):
        u = rng.random(2 * SLOTS)
        return arrange_by(obs, redeem_pref=u[:, :SLOTS], discard_key=u[:, SLOTS:])

    def wisdom(self, obs, rng):
        return rng.choose(obs.sources)

    def harmony(self, obs, rng):
        return rng.choose(obs.harmony_ok)

    def courage(self, obs, rng):
        u = rng.random(obs.players)
        ok = obs.courage_ok
        count = ok.sum(axis=-1)
        k = np.minimum((u * count).astype(np.int64), np.maximum(count - 1, 0))
        pos = np.argmax(np.cumsum(ok, axis=-1) > k[..., None], axis=-1)
        return np.where(count > 0, pos, -1)

    def solo_turn(self, obs, rng):
        u = rng.random(2)
        play = obs.combos.any(axis=1) & ((u[:, 0] < 0.5) | (obs.deck_n == 0))
        return np.where(play, Action.PLAY + choose_rows(u[:, 1], obs.combos), Action.DRAW)

    def place(self, obs, rng):
        return rng.integers(5)


@pytest.mark.parametrize("players,rules,n", [(1, {}, 1500), (2, {"powers": True}, 600), (3, {"chosen_fan": True}, 400),
                                             (4, {"powers": True, "chosen_fan": True}, 400), (5, {"powers": True}, 300)])
def test_a_numpy_strategy_plays_the_games_of_its_compiled_twin(players, rules, n):
    """Every decision in numpy form (observations, option codes of arrangements and Courage choices) gives the
    games of the compiled ``random``, alone and mixed with compiled seats."""
    R = ENG.make_rules(rules)
    ids = np.arange(n)
    compiled = ENG.play(ids, players, R, [Random()] * players, root_key(4))
    assert not ENG.lineup([NumpyRandom()] * players).all_compiled
    assert_same(compiled, ENG.play(ids, players, R, [NumpyRandom()] * players, root_key(4)), "numpy")
    if players > 1:
        mixed = [NumpyRandom() if s % 2 else Random() for s in range(players)]
        assert_same(compiled, ENG.play(ids, players, R, mixed, root_key(4), width=97), "mixed")


def test_a_numpy_strategy_beside_compiled_ones_plays_their_module():
    """A class with numpy decisions only brings no compiled classes of its module in: the lineup plays the
    module every mixed lineup of the built-in strategies plays (compiled once), not one of its own; a
    lineup of one class in every seat plays a module of that class alone."""
    mixed = ENG.lineup([NumpyRandom(), Random()])
    built_in = ENG.lineup([Random(), Planner(), Random()])
    assert [p.cls for p in mixed.plans] == [p.cls for p in built_in.plans] and len(mixed.plans) >= 4
    assert mixed.module is built_in.module
    assert ENG.lineup([Tweaked()]).module is not mixed.module  # a compiled class of this file: its own
    alone = ENG.lineup([Planner()] * 3)
    assert [p.cls for p in alone.plans] == [Planner] and alone.module is not built_in.module
    # focus and redeemer are planner's decision functions with other parameter values: the same module
    assert ENG.lineup([Focus()] * 2).module is alone.module is ENG.lineup([Redeemer()] * 4).module
    assert ENG.lineup([Random()] * 3).module is not alone.module
    R = ENG.make_rules({"powers": True})
    assert_same(ENG.play(np.arange(60), 3, R, [Planner()] * 3, root_key(3)),
                ENG.play(np.arange(60), 3, R, [Planner()] * 3, root_key(3), compiled=False), "alone")


def test_a_module_holds_each_decision_function_once():
    """In a mixed lineup's module, a decision function shared by several classes (planner, focus and
    redeemer differ only in their parameters; a subclass inherits the decisions it does not replace) is
    written, and called in each dispatch, once; both lanes play the same games."""
    from simcore.compiled import CompiledDecision
    from simcore.lineup import decision_of
    from tests.sensu_test_strategies import NoPlace, Plain

    for agents in ([Random(), Planner(), Focus(), Redeemer()], [Plain(), NoPlace(), Tweaked(), Cautious()]):
        lu = ENG.lineup(agents)
        distinct = {id(decision_of(p.cls, d)) for p in lu.plans for d in ENG.decisions
                    if isinstance(decision_of(p.cls, d), CompiledDecision)}
        uses = sum(isinstance(decision_of(p.cls, d), CompiledDecision) for p in lu.plans for d in ENG.decisions)
        with open(lu.module.__file__) as fh:
            text = fh.read()
        made = [ln for ln in text.splitlines() if ln.startswith("_f")]
        assert len(made) == len(distinct) < uses and len(set(ln.split(" = ")[1] for ln in made)) == len(made)
        inline = text.split("def _decide_inline")[1].split("def play")[0]
        assert inline.count("return as_option(_g") == len(distinct)  # one parameter type per function here
        R = ENG.make_rules({"powers": True})
        assert_same(ENG.play(np.arange(40), 4, R, agents, root_key(6)),
                    ENG.play(np.arange(40), 4, R, agents, root_key(6), compiled=False), "mixed")


def test_subclasses():
    R = ENG.make_rules({})
    lu = ENG.lineup([Tweaked()])
    assert not lu.all_compiled and lu.forms[0]["place"] == "numpy" and lu.forms[0]["solo_turn"] == "compiled"
    # a lineup with a numpy decision plays the batch lane whichever lane is asked (comparing the two compared
    # the batch lane with itself): what it must keep is its games, whatever the batch's width
    assert_same(ENG.play(np.arange(300), 1, R, [Tweaked()], root_key(11), width=7),
                ENG.play(np.arange(300), 1, R, [Tweaked()], root_key(11)), "tweaked, width 7")
    tweak = ENG.play(np.arange(300), 1, R, [Tweaked()], root_key(11))
    plain = ENG.play(np.arange(300), 1, R, [Random()], root_key(11))
    assert not all(np.array_equal(tweak[k], plain[k]) for k in plain)  # it really plays differently
    assert ENG.lineup([Cautious()] * 3).all_compiled
    assert_same(ENG.play(np.arange(200), 3, R, [Cautious()] * 3, root_key(2)),
                ENG.play(np.arange(200), 3, R, [Planner()] * 3, root_key(2)), "cautious")


def test_simulate_jobs_in_the_compiled_lane():
    agents = lineup("sensu", ["random"], 4)
    one = simulate("sensu", agents, n_games=1200, seed=4, jobs=1, chunk_size=300)
    two = simulate("sensu", agents, n_games=1200, seed=4, jobs=2, chunk_size=300)
    batch = simulate("sensu", agents, n_games=1200, seed=4, jobs=1, chunk_size=300, compiled=False)
    assert one.summary() == two.summary() == batch.summary()
    solo = [simulate("sensu", [Random()], n_games=2000, seed=9, jobs=j, compiled=c).summary()
            for j, c in ((1, True), (2, True), (1, False))]
    assert solo[0] == solo[1] == solo[2]


def test_arrange_by_refuses_preferences_that_are_no_finite_numbers_in_0_1():
    """A NaN or infinite preference sorted anywhere and built an illegal arrangement, blamed on the answer."""
    seen = []

    @dataclass(frozen=True)
    class Keeper(NumpyRandom):
        name: ClassVar[str] = "keeper-of-arrange"

        def arrange(self, obs, rng):
            seen.append(obs)
            return NumpyRandom.arrange(self, obs, rng)

    simulate("sensu", [Keeper()] * 3, n_games=4, seed=1)
    obs = seen[0]
    m = len(obs.cards)
    bad = np.full((m, SLOTS), 0.5)
    bad[0, 0] = np.nan
    for kw, words in ((dict(redeem_pref=bad), "redeem_pref holds values that are not finite"),
                      (dict(discard_key=np.where(np.isnan(bad), np.inf, bad)), "discard_key holds values that are not finite"),
                      (dict(redeem_pref=np.full((m, SLOTS), 1.5)), "redeem_pref holds values outside [0, 1)"),
                      (dict(build_key=np.full((m, SLOTS), 100.0)), "build_key holds values outside [0, 1)"),
                      (dict(discard_key=np.zeros((m, 3))), "discard_key must have one row of 6 values per game")):
        with pytest.raises(ValueError, match=re.escape(words)):
            arrange_by(obs, **kw)
    assert arrange_by(obs, redeem_pref=np.full((m, SLOTS), 0.999)).shape == (m, SLOTS)
