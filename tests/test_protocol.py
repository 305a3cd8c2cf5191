"""The decision protocol, for every registered game and strategy, in both lanes.

* invariants (cards and tiles conserved, memory equal to the truth, every live game at a decision) hold
  after every decision in the batch lane and at many points of the compiled lane's games, under the
  default rules and with each yes/no rule option;
* both lanes play the same games, and a batch of one game plays as in a batch of many;
* the leak probe: scrambling what the deciding seat cannot see changes none of its decisions (compiled
  decisions and numpy ones alike), nor its observation, under the default rules and with each yes/no
  rule option; every scrambled state passes the game's invariants, and a decision that reads what its
  seat may not know is caught;
* ``legal`` lists exactly options that ``step`` accepts, and ``step`` refuses options it does not list
  without changing the game.
"""
from __future__ import annotations

import copy
import os

import numpy as np
import pytest

from simcore import conformance
from simcore.game import Seats
from simcore.options import describe
from simcore.registry import game_names, get_game
from simcore.rng import game_keys, root_key
from strategies.registry import lineup, resolve, strategies_for
from tests.lanes import assert_same, cheap

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = {"sen": [os.path.join(HERE, "..", "examples", "strategies", "sen_threshold.py") + ":Threshold",
                    os.path.join(HERE, "..", "examples", "strategies", "sen_numpy.py") + ":Cautious"]}
PROTOCOL = game_names()


def player_counts(eng):
    return sorted({eng.min_players, eng.default_players, eng.max_players})


def specs_of(name):
    return [cheap(s) for s in strategies_for(name)] + EXAMPLES.get(name, [])


def agents_for(name, spec, players):
    return lineup(name, [spec], players)


def _switches(eng):
    """The game's yes/no rule options (they change what is dealt, shown or decided)."""
    return [d["name"] for d in describe(eng.Rules) if d["type"] == "bool"]


def _invariants_in_both_lanes(eng, rules, players, agents, n, seed, what):
    """``n`` games of seed ``seed`` checked in both lanes (:func:`simcore.conformance.invariants`); returns
    the batch lane's outcome."""
    slow = conformance.invariants(eng, rules, players, agents, n, seed)
    assert (slow["turns"] > 0).all(), what
    return slow


@pytest.mark.parametrize("name", PROTOCOL)
def test_every_strategy_keeps_the_invariants_in_both_lanes(name):
    eng = get_game(name)
    rules = eng.make_rules()
    for players in player_counts(eng):
        for spec in specs_of(name):
            agents = agents_for(name, spec, players)
            slow = _invariants_in_both_lanes(eng, rules, players, agents, 12, 5, f"{spec}, {players} players")
            if eng.lineup(agents).all_compiled:
                fast = eng.play(np.arange(12), players, rules, agents, root_key(5))
                assert_same(fast, slow, f"{spec}, {players} players")
            n = 12
            assert slow["turns"].shape == (n,) and slow["timeout"].shape == (n,)
            assert slow["score"].shape[0] == n and slow["win"].shape[0] == n and slow["win"].shape[1] in (0, players)
            if slow["win"].shape[1]:
                total = slow["win"].sum(1)
                ok = np.where(slow["timeout"], total == 0, np.isclose(total, 1.0))
                assert ok.all(), f"{spec}: win shares must sum to 1 (0 on timeout)"
            for k, v in slow.items():
                assert len(v) == n, k


@pytest.mark.parametrize("name, switch", [(n, k) for n in PROTOCOL for k in _switches(get_game(n))])
def test_every_strategy_keeps_the_invariants_in_both_lanes_with_each_rule_switch(name, switch):
    eng = get_game(name)
    rules = eng.make_rules({switch: True})
    players = eng.default_players
    for spec in specs_of(name):
        _invariants_in_both_lanes(eng, rules, players, agents_for(name, spec, players), 8, 6, f"{spec}, {switch}")


@pytest.mark.parametrize("name", PROTOCOL)
def test_batch_of_one_equals_batch_of_n_in_both_lanes(name):
    eng = get_game(name)
    players = eng.default_players
    rules = eng.make_rules()
    ids = np.arange(10, 22)
    for spec in specs_of(name):
        conformance.batch_of_one(eng, rules, players, agents_for(name, spec, players), ids, 11)


def _probe_decisions(eng, agents, players, rules, n=10, every=3, max_steps=400, hidden=True):
    """The leak probe (:func:`simcore.conformance.leak_probe`): the number of decisions compared."""
    return conformance.leak_probe(eng, agents, players, rules, n=n, every=every, max_steps=max_steps, hidden=hidden)


#: rule options under which a seat can see everything (Senshi's open stacks without secret hands: every
#: tile is seen before it enters a hand, and moves are public)
NOTHING_HIDDEN = {("senshi", "open_stacks")}


@pytest.mark.parametrize("name, switch", [(n, None) for n in PROTOCOL]
                         + [(n, k) for n in PROTOCOL for k in _switches(get_game(n))])
def test_no_decision_reads_hidden_information(name, switch):
    eng = get_game(name)
    players = eng.default_players
    rules = eng.make_rules({switch: True} if switch else {})
    for spec in specs_of(name):
        _probe_decisions(eng, agents_for(name, spec, players), players, rules,
                         hidden=(name, switch) not in NOTHING_HIDDEN)


@pytest.mark.parametrize("name, cheat, field", [("sen", "PeekingSen", "threshold"),
                                                 ("sensu", "PeekingSensu", "random")])
def test_the_leak_probe_catches_a_decision_that_reads_another_players_row(name, cheat, field):
    """The compiled views of Sen and Sensu hold every player's memory and hand; a decision that reads
    another player's row reads what its seat may not know, and the scrambled state (other memories
    following the permuted cards, other hands re-dealt) shows it."""
    eng = get_game(name)
    bad = resolve(name, os.path.join(HERE, "strategies_for_tests.py") + ":" + cheat)
    agents = [bad] + lineup(name, [field], 3)
    # each option named with the words a trace gives it: "option 0 (draw the deck's top) against option 1 (take ..."
    with pytest.raises(AssertionError, match=r"decides differently when what it may not see is scrambled: game \d+, "
                                             r"decision '\w+', option -?\d+ \([^()]+\) against option -?\d+ \(.+\)$"):
        _probe_decisions(eng, agents, 4, eng.make_rules())


@pytest.mark.parametrize("name", PROTOCOL)
def test_legal_options_are_exactly_what_step_accepts(name):
    import importlib

    eng = get_game(name)
    kernels = importlib.import_module(eng.kernels)
    players = eng.default_players
    rules = eng.make_rules()
    agents = agents_for(name, list(strategies_for(name))[0], players)
    keys = game_keys(root_key(8), np.arange(6))
    state = eng.new_batch(keys, players, rules)
    seats = Seats(agents, keys)
    lu = seats.lineup_for(eng)
    S, R = eng.state_tuple(state), eng.rules_tuple(state)
    lu.call("begin_batch", S, R, np.arange(6, dtype=np.int64))
    out = np.empty(getattr(kernels, "MAX_OPTIONS", 4096), dtype=np.int64)
    rng = np.random.default_rng(1)
    kinds = set()
    for step in range(3000):
        live = np.flatnonzero(~state.done)
        if not len(live):
            break
        if step % 4 == 0:
            g = int(live[step % len(live)])
            n_opt = kernels.legal(S, R, g, out)
            assert n_opt > 0, "a live game has no legal option"
            options = out[:n_opt].copy()
            kinds.add(int(S[4][g]))
            for opt in rng.choice(options, size=min(6, n_opt), replace=False):
                trial = copy.deepcopy(state)
                assert kernels.step(eng.state_tuple(trial), eng.rules_tuple(trial), g, int(opt)), (
                    f"step refuses listed option {opt} at decision {eng.decisions[S[4][g]]}")
            listed = set(options.tolist())
            # codes out of every range, and unlisted codes among the listed ones' (Senshi's pass, 0, while
            # the player holds tiles went unseen by the fixed codes alone)
            near = [c for c in range(0, max(listed) + 3) if c not in listed]
            if len(near) > 160:
                near = rng.choice(near, size=24, replace=False).tolist()
            trial = copy.deepcopy(state)  # (a refused option changes nothing: one copy serves every try)
            for bad in (-(1 << 40), -9, -3, (1 << 40), max(listed) + 1, max(listed) + 977, *near):
                if bad in listed:
                    continue
                ok = kernels.step(eng.state_tuple(trial), eng.rules_tuple(trial), g, int(bad))
                assert not ok, f"step accepts unlisted option {bad} at decision {eng.decisions[S[4][g]]}"
                for f, v in vars(state).items():
                    if isinstance(v, np.ndarray):
                        np.testing.assert_array_equal(getattr(trial, f), v, err_msg=f"a refused option changed {f}")
        eng.step_games(state, live, seats, lu)
    assert len(kinds) >= min(2, len(eng.decisions)), "the walk met too few decision kinds"


@pytest.mark.parametrize("name", PROTOCOL)
def test_an_illegal_option_is_one_line_naming_strategy_decision_and_option(name):
    """A compiled strategy returning an option the rules refuse stops the run with one line (both lanes)."""
    from simcore.errors import IllegalAction

    eng = get_game(name)
    players = eng.default_players
    bad = resolve(name, os.path.join(HERE, "strategies_for_tests.py") + f":Illegal{name.title().replace('-', '')}")
    agents = [bad] * players
    for compiled in (True, False):
        with pytest.raises(IllegalAction) as err:
            eng.play(np.arange(4), players, eng.make_rules(), agents, root_key(1), compiled=compiled)
        text = str(err.value)
        assert "\n" not in text and "Illegal" in text and "option" in text and eng.decisions[0] in text
