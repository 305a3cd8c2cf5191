"""Fan & Mallet's compiled lane (whole games in one compiled call for lineups of ``random``,
``strongest``, ``closer``, ``keeper`` and ``counter``) gives exactly the results of the turn-by-turn
lane: every column of every game, every random stream, timeouts, matches; other lineups keep to the
turn-by-turn lane. The heuristics' evaluation kernel (shared by both lanes) is checked against the
rules written plainly."""
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from simcore.games.fan_and_mallet import (DECK, HAND, N_COLOURS, N_HOUSES, POLICY_CLOSER, POLICY_COUNTER,
                                          POLICY_KEEPER, POLICY_RANDOM, POLICY_STRONGEST, STRONGEST_KEY, FanAndMallet,
                                          landing, score_houses, strongest_slots)
from simcore.rng import STREAM_DEAL, game_keys, permutations, root_key, stream_keys
from simcore.runner import simulate
from strategies.fan_and_mallet import Closer, Counter, Keeper, RandomPlay, Strongest
from strategies.registry import lineup
from tests.lanes import assert_same, assert_same_ends

ENG = FanAndMallet()
GAME = "fan-and-mallet"
RULES = [{}, {"match_points": 12}, {"start_positions": "2,3"}, {"match_points": 3, "start_positions": "5,5"}]
LINEUPS = [("random", "random"), ("strongest", "strongest"), ("random", "strongest"), ("strongest", "random"),
           ("closer", "random"), ("strongest", "closer:feed=0.2,thrift=0.3,build=1.5"),
           ("keeper:hold=1.5,min_bonus=2", "closer"), ("random", "counter:feed=2.0,bait=0.9")]
CODES = {"random": POLICY_RANDOM, "strongest": POLICY_STRONGEST, "closer": POLICY_CLOSER, "keeper": POLICY_KEEPER,
         "counter": POLICY_COUNTER}


@pytest.fixture
def compiled_calls(monkeypatch):
    """Counts the games handed to ``play_compiled`` (proof that the compiled lane ran)."""
    seen = [0]
    original = FanAndMallet.play_compiled

    def spy(self, state, seats, lineup, limit):
        seen[0] += len(state.done)
        return original(self, state, seats, lineup, limit)

    monkeypatch.setattr(FanAndMallet, "play_compiled", spy)
    return seen


def test_every_strategy_has_a_compiled_form():
    assert RandomPlay().compiled_policy() == (POLICY_RANDOM, ())
    assert Strongest().compiled_policy() == (POLICY_STRONGEST, ())
    assert Closer(feed=0.5).compiled_policy() == (POLICY_CLOSER, (0.5, 0.05, 0.3, 2.5))
    assert Keeper(min_bonus=2).compiled_policy() == (POLICY_KEEPER, (0.7, 0.05, 0.3, 2.5, 0.5, 2.0))
    assert Counter(bait=0.4).compiled_policy() == (POLICY_COUNTER, (1.0, 0.05, 0.3, 2.5, 0.0, 0.0, 0.4))
    for specs in LINEUPS:
        code, params = ENG.compiled_lineup(lineup(GAME, list(specs), 2), 2, ENG.make_rules())
        assert code.tolist() == [CODES[s.split(":")[0]] for s in specs]
        assert params.shape == (2, 7)


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
])
def test_every_state_array_and_random_stream_ends_the_same(specs, rules, limit):
    """Not only the outcome: the final state of every game (hands, decks, houses, statistics) and every
    seat's random stream counter are those of the turn-by-turn lane."""
    r = ENG.make_rules(rules)
    agents = lineup(GAME, list(specs), 2)
    state, counters = assert_same_ends(ENG, agents, 2, r, game_keys(root_key(3), np.arange(400)), limit)
    if "random" in specs:
        assert counters.sum() > 0
    assert state.done.all()


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
    """A subclass that plays exactly like ``random`` (it has no compiled form of its own)."""
    name: ClassVar[str] = "my-random"


@dataclass(frozen=True)
class FirstCard(RandomPlay):
    """A subclass that changes the decision: always the first card."""
    name: ClassVar[str] = "first-card"

    def play(self, obs, rng):
        return np.zeros(len(obs), dtype=np.int64)


@dataclass(frozen=True)
class MyCounter(Counter):
    """A subclass of ``counter`` that only changes a hook (the weights of the opponent's colours)."""
    name: ClassVar[str] = "my-counter"

    def avail(self, obs):
        return np.full((len(obs), N_COLOURS), 0.5)


@pytest.mark.parametrize("other", [MyCounter(), MyRandom(), FirstCard()])
def test_lineups_without_a_compiled_form_use_the_batch_lane(other, compiled_calls):
    agents = [lineup(GAME, [other], 1)[0] if isinstance(other, str) else other, Strongest()]
    r = ENG.make_rules()
    assert ENG.compiled_lineup(agents, 2, r) is None
    ids = np.arange(300)
    a = ENG.play(ids, 2, r, agents, root_key(5), compiled=True)
    b = ENG.play(ids, 2, r, agents, root_key(5), compiled=False)
    assert_same(a, b, str(other))
    assert compiled_calls[0] == 0
    if isinstance(other, MyRandom):  # same decisions, same streams: the results of ``random``
        same = ENG.play(ids, 2, r, [RandomPlay(), Strongest()], root_key(5), compiled=True)
        assert compiled_calls[0] == 300
        assert_same(a, same, "subclass of random")
    if isinstance(other, FirstCard):  # its own decision is the one played
        ran = ENG.play(ids, 2, r, [RandomPlay(), Strongest()], root_key(5), compiled=True)
        assert not np.array_equal(a["turns"], ran["turns"])


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
        ENG.check(s)


def test_strongest_kernel_is_the_documented_preference():
    """Highest-power spirit object (lowest colour among equals), else the kid ghost of lowest colour;
    empty slots never chosen while a card is held."""
    rng = np.random.default_rng(0)
    hands = np.stack([rng.permutation(DECK)[:HAND] + DECK * (i % 2) for i in range(3000)])
    sizes = rng.integers(1, HAND + 1, size=len(hands))
    hands[np.arange(HAND)[None, :] >= sizes[:, None]] = -1
    got = strongest_slots(hands)
    for hand, slot in zip(hands, got):
        cards = [(c % DECK) for c in hand if c >= 0]
        spirits = [c for c in cards if c % 5 != 4]
        if spirits:
            want = min(spirits, key=lambda c: (-(c % 5), c // 5))
        else:
            want = min(cards, key=lambda c: c // 5)
        assert hand[slot] % DECK == want
    np.testing.assert_array_equal(got, np.argmax(STRONGEST_KEY[hands], axis=1))


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
            np.testing.assert_array_equal(agent.score(ENG.observe(s, live, np.full(len(live), seat))), want)
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
