"""The Sen compiled lane plays exactly the games of the batch lane (same deals, same random streams,
same rule steps), for every lineup; a lineup with a numpy decision plays the batch lane."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from simcore.games.sen import Sen
from simcore.rng import game_keys, root_key
from simcore.runner import simulate
from strategies.registry import lineup
from strategies.sen import Threshold
from tests.lanes import assert_same, assert_same_ends

ENGINE = Sen()


def both_lanes(specs, players, rules=None, n=1500, seed=11, width=700, engine=ENGINE):
    rules = engine.make_rules(rules or {})
    agents = lineup("sen", specs, players)
    assert engine.lineup(agents).all_compiled
    ids = np.arange(1000, 1000 + n)
    fast = engine.play(ids, players, rules, agents, root_key(seed), width=width, compiled=True)
    slow = engine.play(ids, players, rules, agents, root_key(seed), width=width, compiled=False)
    return fast, slow


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("specs", [["threshold"], ["random"], ["random:p_wake=0.03", "threshold:wake=14"]])
def test_lanes_agree(players, specs):
    if len(specs) > 1:
        specs = (specs * players)[:players]
    fast, slow = both_lanes(specs, players)
    assert_same(fast, slow)
    assert fast["turns"].min() > 0


HEURISTICS = [["counter"], ["watcher"], ["swapper"], ["gambler"],
              ["gambler:edge=1", "counter:wake=12", "watcher:kept_value=-1", "swapper:swap_min=0.5"],
              ["threshold", "random", "gambler", "swapper:margin=1,sure=6"]]


@pytest.mark.parametrize("specs", HEURISTICS)
@pytest.mark.parametrize("rules", [{}, {"know_what_i_have": True, "penalty": 15}, {"go_all_in": True,
                                                                                   "ravens_not_scary": True}])
def test_heuristic_lanes_agree(specs, rules):
    players = len(specs) if len(specs) > 1 else 3
    fast, slow = both_lanes(specs, players, rules, n=600)
    assert_same(fast, slow)


@pytest.mark.parametrize("rules", [
    {"penalty": 15, "caller_tie": "count"},
    {"ravens_not_scary": True, "go_all_in": True},
    {"know_what_i_have": True, "rounds": 3},
    {"target": 30, "penalty": 0},
])
def test_lanes_agree_with_rule_options(rules):
    for specs in (["random"], ["threshold:wake=12", "random", "threshold:wake=6"]):
        fast, slow = both_lanes(specs, len(specs) if len(specs) > 1 else 4, rules, n=800)
        assert_same(fast, slow)


def test_lanes_agree_on_timeouts():
    eng = Sen()
    eng.safety_turns = 110  # some games stop at the turn limit
    fast, slow = both_lanes(["threshold"], 4, n=500, engine=eng)
    assert_same(fast, slow)
    assert 0 < fast["timeout"].sum() < 500


def test_compiled_forms():
    counter = lineup("sen", ["counter:wake=7"], 2)[0]
    assert counter.compiled_values() == {"code": 3, "take_margin": 0.5, "claim_gain": 3.0, "wake": 7.0, "sure": 0.0,
                                         "cap": 0.0, "kept_value": -1.0, "swap_min": 0.0, "edge": 0.0}
    lu = ENGINE.lineup(lineup("sen", ["threshold:wake=13", "random:p_wake=0.2"], 2))
    assert lu.all_compiled
    assert lu.params[0, 0] == 13 and lu.params[1, 0] == 0.2
    rules = ENGINE.make_rules({})

    @dataclasses.dataclass(frozen=True)
    class Bolder(Threshold):  # changes a decision with a numpy method: that method is the one played
        def start(self, obs, rng):
            return np.full(len(obs.me), 2)

    agents = [Bolder(), Bolder()]
    lu = ENGINE.lineup(agents)
    assert not lu.all_compiled
    assert lu.forms[0]["start"] == "numpy" and lu.forms[0]["drawn"] == "compiled"
    assert not ENGINE.lineup([Threshold(), Bolder()]).all_compiled
    out = ENGINE.play(np.arange(50), 2, rules, agents, root_key(1))
    assert out["called"].sum() == 0  # the subclass's own start decision was used


def test_simulate_lanes_and_jobs_agree():
    agents = lineup("sen", ["threshold:wake=12", "random"], 2)
    a = simulate("sen", agents, n_games=3000, seed=5, chunk_size=700)
    b = simulate("sen", agents, n_games=3000, seed=5, chunk_size=1100, jobs=2)
    c = simulate("sen", agents, n_games=3000, seed=5, chunk_size=900, compiled=False)
    assert a.summary() == b.summary() == c.summary()


@pytest.mark.parametrize("specs,players,rules", [
    (["random"], 3, {}),
    (["threshold:wake=12", "random"], 2, {"know_what_i_have": True, "go_all_in": True}),
    (["random", "threshold", "random", "threshold", "random"], 5, {"rounds": 4}),
    (["swapper", "gambler", "counter", "watcher"], 4, {"know_what_i_have": True}),
])
def test_final_states_and_random_streams_agree(specs, players, rules):
    """Not only the outcome: every state array of every game at its end (dreams, memories, piles,
    statistics) and every seat's random stream counter are those of the batch lane."""
    r = ENGINE.make_rules(rules)
    agents = lineup("sen", specs, players)
    state, counters = assert_same_ends(ENGINE, agents, players, r, game_keys(root_key(4), np.arange(300)))
    assert state.done.all()
    assert (counters.sum() > 0) == any(x.startswith("random") for x in specs)


def test_the_benchmarks_lean_loop_plays_the_engines_games():
    """``bench.sen_protocol``'s ``lean`` loop (threshold's rules and policy only) and its written-out loop
    measure what they claim only if they play the engine's games: the same scores and turns."""
    from bench import sen_protocol as B
    from simcore.game import Seats
    from simcore.games.sen import SenRules

    eng = Sen()
    agents = lineup("sen", ["threshold"], 4)
    keys = game_keys(root_key(7), np.arange(300))
    st = eng.new_batch(keys, 4, SenRules())
    eng.play_state(st, Seats(agents, keys), eng.lineup(agents))
    score, turns = B.play_lean(st.deal_keys)
    assert (score == st.score).all() and (turns == st.turns).all()
    wo = eng.new_batch(keys, 4, SenRules())
    B.written_out(eng.state_tuple(wo), eng.rules_tuple(wo), B.WAKE6)
    assert (wo.score == st.score).all() and (wo.turns == st.turns).all()
    assert st.score.max() >= 100 and (st.turns > 0).all()
