"""Fan & Mallet's two lanes: every built-in strategy is compiled decisions, and the compiled lane (whole
games in one compiled call) gives exactly the results of the batch lane (one decision of every live game
per step): every column of every game, every state array, every random stream, timeouts, matches. A
lineup with a numpy decision plays the batch lane. The rule step rejects every illegal option; a
strategy that gives one is stopped with a one-line error. The heuristics' evaluation (shared by both
lanes) is checked against the rules written plainly."""
from dataclasses import dataclass
from typing import ClassVar

import numba
import os

import numpy as np
import pytest

from simcore.errors import IllegalAction
from simcore.game import Seats
from simcore.games.fan_and_mallet import (DECK, HAND, N_COLOURS, N_HOUSES, Decision, FanAndMallet, landing, observe,
                                          score_houses, step)
from simcore.lineup import scratch
from simcore.rng import STREAM_DEAL, game_keys, permutations, root_key, stream_keys
from simcore.runner import simulate
from strategies.base import Strategy, decision, param
from strategies.fan_and_mallet import (CLOSER, COUNTER, KEEPER, PRM, STRONGEST_KEY, Closer, Counter, Keeper,
                                       RandomPlay, Strongest, evaluate)
from strategies.registry import lineup, strategies_for
from tests.lanes import assert_same, assert_same_ends

ENG = FanAndMallet()
GAME = "fan-and-mallet"
RULES = [{}, {"match_points": 12}, {"start_positions": "2,3"}, {"match_points": 3, "start_positions": "5,5"}]
LINEUPS = [("random", "random"), ("strongest", "strongest"), ("random", "strongest"), ("strongest", "random"),
           ("closer", "random"), ("strongest", "closer:feed=0.2,thrift=0.3,build=1.5"),
           ("keeper:hold=1.5,min_bonus=2", "closer"), ("random", "counter:feed=2.0,bait=0.9")]


@pytest.fixture
def compiled_calls(monkeypatch):
    """Counts the games handed to the compiled lane (proof that it ran)."""
    seen = [0]
    original = FanAndMallet._play_lane

    def spy(self, ids, *args):
        seen[0] += len(ids)
        return original(self, ids, *args)

    monkeypatch.setattr(FanAndMallet, "_play_lane", spy)
    return seen


def test_every_strategy_is_compiled():
    for name in strategies_for(GAME):
        lu = ENG.lineup(lineup(GAME, [name], 2))
        assert lu.all_compiled and lu.forms[0] == {"play": "compiled"}, name
    assert Closer(feed=0.5).compiled_values() == {"mode": CLOSER, "feed": 0.5, "thrift": 0.05, "build": 0.3,
                                                  "kid_value": 2.5, "hold": 0.0, "min_bonus": 0.0, "bait": 0.0}
    assert Keeper(min_bonus=2).compiled_values() == {"mode": KEEPER, "feed": 0.7, "thrift": 0.05, "build": 0.3,
                                                     "kid_value": 2.5, "hold": 0.5, "min_bonus": 2.0, "bait": 0.0}
    assert Counter(bait=0.4).compiled_values() == {"mode": COUNTER, "feed": 1.0, "thrift": 0.05, "build": 0.3,
                                                   "kid_value": 2.5, "hold": 0.0, "min_bonus": 0.0, "bait": 0.4}
    lu = ENG.lineup([Keeper(hold=1.5), Counter(feed=2.0)])
    assert lu.params[0, :8].tolist() == [KEEPER, 0.7, 0.05, 0.3, 2.5, 1.5, 3.0, 0.0]
    assert lu.params[1, :8].tolist() == [COUNTER, 2.0, 0.05, 0.3, 2.5, 0.0, 0.0, 0.3]


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("specs", LINEUPS)
def test_compiled_lane_equals_batch_lane(specs, rules, compiled_calls):
    r = ENG.make_rules(rules)
    agents = lineup(GAME, list(specs), 2)
    n = 600 if rules.get("match_points") == 12 else 2500
    if any(s.startswith(("closer", "keeper")) for s in specs):
        n //= 3
    if any(s.startswith("counter") for s in specs):
        n //= 10
    ids = np.arange(n) + 1000
    batch = ENG.play(ids, 2, r, agents, root_key(7), width=1024, compiled=False)
    assert compiled_calls[0] == 0
    whole = ENG.play(ids, 2, r, agents, root_key(7), compiled=True)
    assert compiled_calls[0] == n
    blocks = ENG.play(ids, 2, r, agents, root_key(7), width=333, compiled=True)  # blocks of 333 games
    assert compiled_calls[0] == 2 * n
    assert_same(batch, whole, f"{specs} {rules}")
    assert_same(batch, blocks, f"{specs} {rules} in blocks")
    assert not batch["timeout"].any()
    assert np.allclose(batch["win"].sum(axis=1), 1.0)
    if rules.get("match_points"):
        assert (batch["games_played"] > 1).any()


@pytest.mark.parametrize("specs,rules,limit", [
    (("random", "random"), {}, 100_000),
    (("closer", "random"), {"match_points": 9}, 100_000),
    (("random", "random"), {"match_points": 15}, 100_000),
    (("strongest", "random"), {"match_points": 10}, 100_000),
    (("random", "strongest"), {"match_points": 10}, 150),
    (("random", "random"), {}, 50),
    (("counter", "keeper"), {"match_points": 6}, 100_000),
])
def test_every_state_array_and_random_stream_ends_the_same(specs, rules, limit):
    """Not only the outcome: the final state of every game (hands, decks, houses, statistics) and every
    seat's random stream counter are those of the batch lane."""
    r = ENG.make_rules(rules)
    agents = lineup(GAME, list(specs), 2)
    state, counters = assert_same_ends(ENG, agents, 2, r, game_keys(root_key(3), np.arange(400)), limit)
    assert (counters.sum() > 0) == ("random" in specs)
    assert state.done.all()
    if limit < 100:
        assert state.timeout.any()


def test_a_turn_limit_stops_games_alike_in_both_lanes(compiled_calls):
    class Short(FanAndMallet):
        def turn_limit(self, rules):
            return 57

    eng = Short()
    for rules in ({}, {"match_points": 5}):
        r = eng.make_rules(rules)
        agents = lineup(GAME, ["random", "strongest"], 2)
        ids = np.arange(1500)
        batch = eng.play(ids, 2, r, agents, root_key(12), width=500, compiled=False)
        comp = eng.play(ids, 2, r, agents, root_key(12), width=500, compiled=True)
        assert_same(batch, comp, f"limit 57, {rules}")
        assert 0 < batch["timeout"].sum() < len(ids)
        assert (batch["turns"][batch["timeout"]] == 57).all()
        assert (batch["win"][batch["timeout"]] == 0).all()
    assert compiled_calls[0] == 3000


@dataclass(frozen=True)
class MyRandom(RandomPlay):
    """A subclass that plays exactly like ``random`` (it inherits the compiled decision)."""
    name: ClassVar[str] = "my-random"


@dataclass(frozen=True)
class FirstCard(RandomPlay):
    """A subclass that changes the decision with a numpy method: always the first card."""
    name: ClassVar[str] = "first-card"

    def play(self, obs, rng):
        return np.zeros(len(obs), dtype=np.int64)


@dataclass(frozen=True)
class CheapKids(Counter):
    """A subclass of ``counter`` that only changes a class value its compiled decision reads."""
    name: ClassVar[str] = "cheap-kids"
    kid_value: ClassVar[float] = 0.5


def test_subclasses_keep_or_replace_the_compiled_decision(compiled_calls):
    r = ENG.make_rules()
    ids = np.arange(300)
    ran = ENG.play(ids, 2, r, [RandomPlay(), Strongest()], root_key(5))
    assert compiled_calls[0] == 300
    # same decisions, same streams: the results of ``random``, in the compiled lane
    same = ENG.play(ids, 2, r, [MyRandom(), Strongest()], root_key(5))
    assert compiled_calls[0] == 600
    assert_same(ran, same, "subclass of random")
    # its own numpy decision is the one played, in the batch lane
    assert ENG.lineup([FirstCard(), Strongest()]).forms[0]["play"] == "numpy"
    first = ENG.play(ids, 2, r, [FirstCard(), Strongest()], root_key(5))
    assert compiled_calls[0] == 600
    assert not np.array_equal(first["turns"], ran["turns"])
    # a changed class value reaches the compiled decision: other games than ``counter``'s, same in both lanes
    a = ENG.play(ids, 2, r, [CheapKids(), Strongest()], root_key(5))
    b = ENG.play(ids, 2, r, [CheapKids(), Strongest()], root_key(5), compiled=False)
    c = ENG.play(ids, 2, r, [Counter(), Strongest()], root_key(5))
    assert_same(a, b, "cheap-kids")
    assert not all(np.array_equal(a[k], c[k]) for k in a)


@pytest.mark.parametrize("rules", [{}, {"match_points": 8}])
def test_simulate_jobs_and_lanes_agree(rules):
    agents = lineup(GAME, ["random", "strongest"], 2)
    kw = dict(rules=rules, n_games=3000, seed=4, chunk_size=700)
    one = simulate(GAME, agents, jobs=1, **kw).summary()
    two = simulate(GAME, agents, jobs=2, **kw).summary()
    batch = simulate(GAME, agents, jobs=1, compiled=False, **kw).summary()
    assert one == two
    assert one == batch


def test_deals_are_the_shuffles_of_the_deal_stream():
    """The deal kernel puts ``simcore.rng.permutations`` of the game's deal streams on the table: the
    ring, each faction's hand (first 6) and deck, for any game number of a match."""
    keys = game_keys(root_key(9), np.arange(50))
    s = ENG.new_state(keys, 2, ENG.make_rules({"start_positions": "0,4", "match_points": 20}))
    for no in (0, 3):
        s.game_no[:] = no
        ENG.deal(s, np.arange(50))
        dk = stream_keys(keys, STREAM_DEAL, 0)
        ring = permutations(stream_keys(dk, 1), s.game_no, N_HOUSES)
        np.testing.assert_array_equal(s.ring_colour, ring % N_COLOURS)
        np.testing.assert_array_equal(s.ring_faction, ring // N_COLOURS)
        for f in (0, 1):
            deck = permutations(stream_keys(dk, 2 + f), s.game_no, DECK) + f * DECK
            np.testing.assert_array_equal(s.hand[:, f], deck[:, :HAND])
            np.testing.assert_array_equal(s.deck[:, f, HAND:], deck[:, HAND:])
            assert (s.deck[:, f, :HAND] == -1).all()
        assert (s.pawn == [N_HOUSES - 1, 3]).all()
        assert (s.count == 0).all() and (s.markers == 0).all() and (s.first_winner == -1).all()
        assert (s.kind == Decision.CARD).all()
        ENG.check(s)
    # a fresh batch of the drivers is not dealt yet: ``begin`` deals it
    fresh = ENG.new_batch(keys, 2, ENG.make_rules())
    assert (fresh.kind == -1).all()


def decide(agent, state):
    """The options ``agent`` (in both seats) takes at the current decision of every game of ``state``."""
    seats = Seats([agent, agent], state.keys)
    idx = np.flatnonzero(~state.done)
    return ENG.decide(state, idx, seats, seats.lineup_for(ENG))


def test_strongest_is_the_documented_preference():
    """Highest-power spirit object (lowest colour among equals), else the kid ghost of lowest colour;
    empty slots never chosen while a card is held."""
    rng = np.random.default_rng(0)
    n = 3000
    s = ENG.new_state(game_keys(root_key(1), np.arange(n)), 2, ENG.make_rules())
    hands = np.stack([rng.permutation(DECK)[:HAND] + DECK * (i % 2) for i in range(n)])
    sizes = rng.integers(1, HAND + 1, size=n)
    hands[np.arange(HAND)[None, :] >= sizes[:, None]] = -1
    s.to_move[:] = np.arange(n) % 2
    s.hand[np.arange(n), s.to_move] = hands
    s.hand_n[np.arange(n), s.to_move] = sizes
    got = decide(Strongest(), s)
    for hand, slot in zip(hands, got):
        cards = [(c % DECK) for c in hand if c >= 0]
        spirits = [c for c in cards if c % 5 != 4]
        if spirits:
            want = min(spirits, key=lambda c: (-(c % 5), c // 5))
        else:
            want = min(cards, key=lambda c: c // 5)
        assert hand[slot] % DECK == want
    np.testing.assert_array_equal(got, np.argmax(STRONGEST_KEY[hands], axis=1))


def test_random_is_uniform_over_the_cards_held():
    n = 6000
    s = ENG.new_state(game_keys(root_key(2), np.arange(n)), 2, ENG.make_rules())
    sizes = np.arange(n) % HAND + 1
    s.hand_n[:, 0] = sizes
    s.hand[:, 0][np.arange(HAND)[None, :] >= sizes[:, None]] = -1
    got = decide(RandomPlay(), s)
    assert ((got >= 0) & (got < sizes)).all()
    for k in range(1, HAND + 1):
        counts = np.bincount(got[sizes == k], minlength=k)
        assert len(counts) == k and counts.min() > 0.7 * (n / HAND / k)


# ------------------------------------------------------------------------------------------------------
# bad options: the rule step rejects them, the drivers stop with one line

def _state_tuple_copy(state):
    return [a.copy() for a in ENG.state_tuple(state)]


@pytest.mark.parametrize("rules", [{}, {"match_points": 9}])
def test_step_rejects_every_illegal_option_and_changes_nothing(rules):
    r = ENG.make_rules(rules)
    s = ENG.new_state(game_keys(root_key(6), np.arange(16)), 2, r)
    agents = lineup(GAME, ["random", "counter"], 2)
    seats = Seats(agents, s.keys)
    bad_options = [-(1 << 62), -(1 << 40), -7, -1, 6, 7, 99, 255, 256, 1 << 31, 1 << 40, (1 << 62) + 5]
    checked = 0
    for t in range(100_000):
        live = np.flatnonzero(~s.done)
        if not len(live):
            break
        S, R = ENG.state_tuple(s), ENG.rules_tuple(s)
        legal = ENG.legal_options(s, live)
        for g, opts in zip(live[t % 7::7], legal[t % 7::7]):
            a = int(s.to_move[g])
            assert opts.tolist() == np.flatnonzero(s.hand[g, a] >= 0).tolist()
            empty = [j for j in range(HAND) if s.hand[g, a, j] < 0]
            before = _state_tuple_copy(s)
            for opt in bad_options + empty:
                assert not step(S, R, int(g), np.int64(opt)), opt
                for x, y in zip(before, ENG.state_tuple(s)):
                    np.testing.assert_array_equal(x, y)
                checked += 1
        ENG.step_games(s, live, seats)
        ENG.check(s)
    assert checked > 200
    # once a game is over, nothing is legal
    done = np.flatnonzero(s.done)
    assert len(done) and all(len(o) == 0 for o in ENG.legal_options(s, done))
    S, R = ENG.state_tuple(s), ENG.rules_tuple(s)
    assert not step(S, R, int(done[0]), np.int64(0))


@decision
def _fixed_play(obs, prm, rng):
    return prm.slot


@dataclass(frozen=True)
class Fixed(Strategy):
    """A compiled strategy that always answers the same option (legal or not)."""
    name: ClassVar[str] = "fixed"
    game: ClassVar[str] = GAME
    slot: int = param(0, "the option it answers")

    play = _fixed_play


@dataclass(frozen=True)
class NumpyFixed(Strategy):
    """The same as a numpy strategy."""
    name: ClassVar[str] = "numpy-fixed"
    game: ClassVar[str] = GAME
    slot: int = param(0, "the option it answers")

    def play(self, obs, rng):
        return np.full(len(obs), self.slot, dtype=np.int64)


@pytest.mark.parametrize("cls", [Fixed, NumpyFixed])
@pytest.mark.parametrize("compiled", [True, False])
def test_an_illegal_option_stops_the_run_with_one_line(cls, compiled):
    r = ENG.make_rules()
    for slot in (6, -1, 1 << 40, 3):
        agents = [Strongest(), cls(slot=slot)]
        with pytest.raises(IllegalAction) as err:
            ENG.play(np.arange(30), 2, r, agents, root_key(1), compiled=compiled)
        msg = str(err.value)
        assert "\n" not in msg and cls.name in msg and "seat 1" in msg and "play" in msg, msg
        assert f"option {slot}" in msg, msg
    # slot 0 always holds a card: the games play to their end
    out = ENG.play(np.arange(30), 2, r, [Strongest(), cls(slot=0)], root_key(1), compiled=compiled)
    assert out["win"].sum() == 30


def test_a_numpy_answer_of_another_type_is_refused():
    @dataclass(frozen=True)
    class Floaty(NumpyFixed):
        name: ClassVar[str] = "floaty"

        def play(self, obs, rng):
            return np.zeros(len(obs))

    with pytest.raises(IllegalAction) as err:
        ENG.play(np.arange(5), 2, ENG.make_rules(), [Floaty(), Strongest()], root_key(1))
    assert "floaty" in str(err.value) and "float64" in str(err.value) and "play" in str(err.value)


def test_the_command_line_names_the_strategy_the_decision_and_the_option():
    """A compiled strategy from a file that answers an option the rules refuse: one line (the lineup is the
    one the protocol tests compile, so the suite compiles it once)."""
    from typer.testing import CliRunner

    from experiments.cli import app

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "strategies_for_tests.py")
    r = CliRunner().invoke(app, ["play", GAME, "-s", f"{path}:IllegalFanAndMallet", "--games", "20"])
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("error: ")]
    assert len(errors) == 1 and [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("compiling")] \
        == errors, r.stderr
    assert "IllegalFanAndMallet" in errors[0] and "seat " in errors[0] and "play" in errors[0]
    assert f"option {1 << 40}" in errors[0], errors[0]


# ------------------------------------------------------------------------------------------------------
# the heuristics' evaluation against the rules written plainly

@numba.njit
def _scores(S, R, idx, seat, mode, feed, thrift, build, kid_value, hold, min_bonus, bait, fw, iw, out, best):
    for i in range(idx.shape[0]):
        ob = observe(S, R, idx[i], seat)
        g = ob.g
        prm = fw[PRM]
        prm[0], prm[1], prm[2], prm[3], prm[4], prm[5], prm[6] = feed, thrift, build, kid_value, hold, min_bonus, bait
        best[i] = evaluate(seat, ob.hand, ob.stack[g], ob.count[g], ob.free[g], ob.pawn[g], ob.markers[g],
                           ob.ring_faction[g], ob.first_done[g], ob.hand_n[g, 1 - seat], mode, fw, iw)
        for j in range(HAND):
            out[i, j] = fw[0, j]


def heuristic_scores(agent, state, idx, seat):
    """The scores :func:`strategies.fan_and_mallet.evaluate` gives every hand card of ``seat`` in games
    ``idx`` with ``agent``'s parameters, and the slot it chooses."""
    v = agent.compiled_values()
    out = np.zeros((len(idx), HAND))
    best = np.zeros(len(idx), dtype=np.int64)
    fw, iw = scratch()
    _scores(ENG.state_tuple(state), ENG.rules_tuple(state), np.asarray(idx, dtype=np.int64), seat, v["mode"],
            v["feed"], v["thrift"], v["build"], v["kid_value"], v["hold"], v["min_bonus"], v["bait"], fw, iw, out,
            best)
    return out, best


def _closer_reference(obs, feed, thrift, build, hold=None, min_bonus=None, bait=None):
    """``closer``'s scores (``keeper``'s given hold and min_bonus, ``counter``'s given bait) written
    plainly with the observation's numpy helpers (an independent check of the evaluation kernel that
    both lanes use)."""
    k = len(obs)
    me, opp = obs.me, 1 - obs.me
    stake = obs.stake[:, None].astype(float)
    mine = obs.markers[obs.rows, me][:, None] + stake >= 7
    theirs = obs.markers[obs.rows, opp][:, None] + stake >= 7
    close = np.where(obs.close_wins, np.where(mine, 100.0, stake), np.where(theirs, -100.0, -stake))
    close = np.where(obs.closes, close, 0.0)
    leaves4 = obs.legal & (obs.landing_count == 3)
    lead = np.zeros((k, HAND))
    reach = np.zeros((k, HAND))
    for r in range(k):
        for j in np.flatnonzero(obs.legal[r] & ~obs.closes[r]):
            h = obs.landing[r, j]
            cards = obs.stack[r, h].astype(np.int64)
            cards[obs.landing_count[r, j]] = obs.hand[r, j]
            tot = score_houses(cards[None], obs.ring_faction[r, h:h + 1]).totals[0]
            lead[r, j] = tot[me[r]] - tot[opp[r]]
            if leaves4[r, j]:
                after = obs.colours[r].astype(np.int64)
                after[h] |= 1 << obs.hand_colour[r, j]
                lands = landing(after[None], obs.pawn[r, opp[r]:opp[r] + 1], np.arange(N_COLOURS)[None])[0]
                reach[r, j] = (lands == h).sum() / 6.0
    spend = np.where(obs.hand_kid, 2.5, obs.hand_power.astype(float))
    open_score = -feed * stake * reach + build * np.clip(lead, -6, 6) * (~leaves4)
    score = np.where(obs.closes, 10.0 * close, open_score) - thrift * spend
    if bait is not None:
        danger = _threat_reference(obs)
        open_score = (-feed * stake * danger + build * np.clip(lead, -6, 6)
                      + bait * stake * (leaves4 & (danger == 0) & (lead > 0)))
        return np.where(obs.closes, 10.0 * close, open_score) - thrift * spend
    if hold is None:
        return score
    prospect = np.zeros((k, HAND))
    for r, j in zip(*np.nonzero(obs.hand_kid & ~obs.closes)):
        h, pos = obs.landing[r, j], obs.landing_count[r, j]
        cards = obs.stack[r, h].astype(np.int64)
        cards[pos] = obs.hand[r, j]
        prospect[r, j] = score_houses(cards[None], obs.ring_faction[r, h:h + 1]).bonus[0, pos]
    return score - hold * (obs.hand_kid & ~obs.closes & (prospect < min_bonus))


def _threat_reference(obs):
    """``counter``'s danger of each card leaving its house one follower short: the chance that the
    opponent's hand (drawn from their cards not on the ring) holds a card that lands there next and
    possesses the house."""
    k = len(obs)
    out = np.zeros((k, HAND))
    unseen = obs.unseen_opponent
    for r, j in zip(*np.nonzero(obs.legal & (obs.landing_count == 3))):
        opp = 1 - obs.me[r]
        h = obs.landing[r, j]
        after = obs.colours[r].astype(np.int64)
        after[h] |= 1 << obs.hand_colour[r, j]
        lands = landing(after[None], obs.pawn[r, opp:opp + 1], np.arange(N_COLOURS)[None])[0]
        good = 0
        for t in np.flatnonzero(unseen[r]):
            if lands[t // 5] != h:
                continue
            cards = obs.stack[r, h].astype(np.int64)
            cards[3], cards[4] = obs.hand[r, j], opp * DECK + t
            good += score_houses(cards[None], obs.ring_faction[r, h:h + 1]).winner[0] == opp
        total, held = float(unseen[r].sum()), obs.hand_size[r, opp]
        miss = 1.0
        for i in range(min(held, HAND)):
            miss *= np.clip((total - good - i) / max(total - i, 1.0), 0, 1)
        out[r, j] = 1.0 - miss
    return out


@pytest.mark.parametrize("agent", [Closer(), Closer(feed=1.3, thrift=0.01, build=0.6), Keeper(),
                                   Keeper(hold=2.0, min_bonus=1, build=0.4), Counter(),
                                   Counter(feed=2.5, bait=0.8, build=0.1)])
def test_heuristic_evaluations_are_the_written_rules(agent):
    extra = ((agent.hold, agent.min_bonus) if isinstance(agent, Keeper) else
             (None, None, agent.bait) if isinstance(agent, Counter) else ())
    seen = [0]

    def probe(s):
        live = np.flatnonzero(~s.done)
        if not len(live) or int(s.turns.max()) % 3:
            return
        for seat in (0, 1):
            obs = ENG.observe(s, live, np.full(len(live), seat))
            want = _closer_reference(obs, agent.feed, agent.thrift, agent.build, *extra)
            got, best = heuristic_scores(agent, s, live, seat)
            np.testing.assert_array_equal(got, want)
            # the choice: the first of the best scores among the cards held (-1: no card, a seat that is
            # not to move at the end of a game)
            held = obs.legal.any(axis=1)
            np.testing.assert_array_equal(best, np.where(held, np.argmax(np.where(obs.legal, want, -np.inf), axis=1),
                                                         -1))
            seen[0] += 1

    ENG.play(np.arange(40), 2, ENG.make_rules({"match_points": 9}), [agent, RandomPlay()], root_key(8),
             on_turn=probe)
    assert seen[0] > 30


@pytest.mark.parametrize("agents", [[Closer(feed=1.3, thrift=0.01, build=0.6), Closer()],
                                    [Keeper(hold=2.0, min_bonus=1), Keeper()],
                                    [Counter(), Counter(feed=0.2, bait=2.0)]])
def test_heuristics_in_the_compiled_lane_end_as_in_the_batch_lane(agents):
    """Differently parameterised seats in a match: the compiled lane ends every game in the state the
    batch lane does."""
    r = ENG.make_rules({"match_points": 6})
    state, _ = assert_same_ends(ENG, agents, 2, r, game_keys(root_key(21), np.arange(200)), 100_000)
    assert (state.game_no > 0).any()
