"""Fan & Mallet rules: the rulebook's worked examples as scripted positions with exact outcomes, the
placement search on scripted rings, kid-ghost abilities, possession, the end of a game and of a match."""
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

from simcore.errors import IllegalAction, SenseiError
from simcore.game import Seats
from simcore.games.fan_and_mallet import (ABILITIES, FanAndMallet, FanAndMalletRules, card, kid, landing,
                                          score_houses, spirit)
from strategies.base import Strategy
from tests.oracles.fan_and_mallet import follower_powers

ENG = FanAndMallet()
W, B = 0, 1
RED, BLUE, GREEN, YELLOW, PURPLE, BROWN = range(6)


def house(faction, colour):
    return faction * 6 + colour


# a ring in which position i holds house i: White red..brown at 0..5, Black red..brown at 6..11
PLAIN_RING = list(range(12))


@dataclass(frozen=True)
class Script(Strategy):
    """Plays the given cards in order of the game's turns (either seat)."""
    name: ClassVar[str] = "script"
    game: ClassVar[str] = "fan-and-mallet"
    cards: tuple = ()

    def play(self, obs, rng):
        want = np.array([self.cards[t] for t in obs.turns])
        hit = obs.hand == want[:, None]
        return np.where(hit.any(axis=1), np.argmax(hit, axis=1), 99).astype(np.int64)


def run(state, cards, check=True):
    """Play scripted turns (cards in turn order, whoever is to move) until the script ends or the game does."""
    agent = Script(tuple([-1] * int(state.turns[0]) + list(cards)))
    seats = Seats([agent, agent], state.keys)
    for _ in cards:
        if state.done[0]:
            break
        ENG.turn(state, np.flatnonzero(~state.done), seats)
        if check:
            ENG.check(state)
    return state


def powers(stack, house_faction=W):
    sc = score_houses(np.array([stack]), np.array([house_faction]))
    return sc.power[0].tolist(), sc.totals[0].tolist(), int(sc.winner[0])


# ---------------------------------------------------------------------------------------------------
# possession examples of the rulebook

def full_hands(state_kwargs, extra):
    """Give each faction a hand of six: the scripted cards first, then its lowest unused cards."""
    stacks = state_kwargs.get("stacks", {})
    used = {c for cs in stacks.values() for c in cs}
    hands = []
    for f in (0, 1):
        hd = list(extra[f])
        pool = [c for c in range(f * 30, f * 30 + 30) if c not in used and c not in hd]
        hands.append(hd + pool[:6 - len(hd)])
    return hands


def possession_position(stack4, last, origin_colour, house_faction, mover):
    """The house at ring position 3 holds ``stack4``; ``mover``'s pawn stands on position 2 and the
    houses there and before are irrelevant: the last card lands on position 3."""
    ring = [house(1 - house_faction, origin_colour)] + [h for h in range(12)
                                                          if h not in (house(house_faction, origin_colour),
                                                                       house(1 - house_faction, origin_colour))]
    ring = ring[:3] + [house(house_faction, origin_colour)] + ring[3:]
    stacks = {3: stack4}
    extra = ([last], []) if mover == W else ([], [last])
    hands = full_hands({"stacks": stacks}, extra)
    pawns = (2, 2)
    return ENG.scripted(ring, stacks=stacks, hands=hands, pawns=pawns, to_move=mover)


def test_possession_example_1_black_has_most_power():
    # White 2 + 4 = 6; Black 3 + 1 + 4 = 8: Black possesses (first possession: 2 markers)
    stack4 = [spirit(W, RED, 2), spirit(B, GREEN, 3), spirit(W, BLUE, 4), spirit(B, YELLOW, 1)]
    last = spirit(B, PURPLE, 4)
    s = possession_position(stack4, last, BROWN, W, B)
    run(s, [last])
    assert s.count[0, 3] == 5 and s.owner[0, 3] == B
    assert s.markers[0].tolist() == [0, 2]
    assert s.first_winner[0] == B and s.ties[0] == 0
    assert powers(stack4 + [last])[1] == [6, 8]


def test_possession_example_2_tie_goes_to_the_house_faction():
    # White 4 + 3 = 7; Black 2 + 1 + 4 = 7 in a White house: White wins the tie, though Black closed it
    stack4 = [spirit(W, RED, 4), spirit(B, BLUE, 2), spirit(W, GREEN, 3), spirit(B, YELLOW, 1)]
    last = spirit(B, BROWN, 4)
    s = possession_position(stack4, last, PURPLE, W, B)
    run(s, [last])
    assert s.owner[0, 3] == W and s.markers[0].tolist() == [2, 0]
    assert s.ties[0] == 1 and s.ties_white_house[0] == 1
    # the same house of Black's faction goes to Black
    s = possession_position(stack4, last, PURPLE, B, B)
    run(s, [last])
    assert s.owner[0, 3] == B and s.markers[0].tolist() == [0, 2]
    assert s.ties[0] == 1 and s.ties_white_house[0] == 0


def test_first_possession_worth_two_later_ones_one():
    # two houses one short next to each other: White closes the first, Black the second
    ring = [house(W, BROWN), house(B, BROWN), house(W, PURPLE)] + [h for h in range(12) if h not in
                                                                  (house(W, BROWN), house(B, BROWN), house(W, PURPLE))]
    a = [spirit(W, RED, 1), spirit(B, BLUE, 1), spirit(W, GREEN, 1), spirit(B, YELLOW, 1)]
    b = [spirit(W, RED, 2), spirit(B, BLUE, 2), spirit(W, GREEN, 2), spirit(B, YELLOW, 2)]
    stacks = {0: a, 1: b}
    w_last, b_last = spirit(W, PURPLE, 4), spirit(B, PURPLE, 4)
    hands = full_hands({"stacks": stacks}, ([w_last], [b_last]))
    s = ENG.scripted(ring, stacks=stacks, hands=hands, pawns=(11, 11))
    run(s, [w_last, b_last])
    assert s.owner[0, :2].tolist() == [W, B]
    assert s.markers[0].tolist() == [2, 1]
    assert s.houses[0] == 2 and s.first_white[0] == 1


# ---------------------------------------------------------------------------------------------------
# kid ghosts: each example of the rulebook reaches 5 power

@pytest.mark.parametrize("stack, pos, expect", [
    # Umbrella: the preceding card is a green 4
    ([spirit(W, BLUE, 1), spirit(B, GREEN, 4), kid(W, RED), spirit(B, YELLOW, 2), spirit(W, BROWN, 1)], 2, 5),
    # Bucket: no 1 and no 4 on the house
    ([spirit(W, RED, 2), spirit(B, GREEN, 3), kid(W, BLUE), spirit(B, YELLOW, 2), spirit(W, BROWN, 3)], 2, 5),
    # Mirror: one spirit object beneath, three on top
    ([spirit(W, RED, 2), kid(B, GREEN), spirit(W, BLUE, 3), spirit(B, YELLOW, 2), spirit(W, BROWN, 1)], 1, 5),
    # Mortar: red 1, blue kid ghost 5 (Bucket: no 4 shown), brown 1, green 3 are odd
    ([spirit(W, RED, 1), kid(B, BLUE), spirit(W, BROWN, 1), spirit(B, GREEN, 3), kid(W, YELLOW)], 4, 5),
    # Cauldron: White has the purple kid ghost and a red 4 only
    ([spirit(B, BLUE, 2), spirit(W, RED, 4), spirit(B, GREEN, 1), kid(W, PURPLE), spirit(B, YELLOW, 3)], 3, 5),
    # Hatchet: the factions alternate
    ([spirit(W, RED, 2), spirit(B, GREEN, 1), spirit(W, BLUE, 3), kid(B, BROWN), spirit(W, YELLOW, 4)], 3, 5),
], ids=ABILITIES)
def test_kid_ghost_examples_reach_five(stack, pos, expect):
    p, _, _ = powers(stack)
    assert p[pos] == expect
    assert follower_powers([_tuple(c) for c in stack])[0][pos] == expect


def test_mortar_counts_boosted_kid_ghosts_by_their_boosted_power():
    # Bucket boosted to 5 is odd and counted; Umbrella boosted to 1 + 3 = 4 is even and not counted
    odd = [spirit(W, RED, 2), kid(B, BLUE), spirit(W, GREEN, 2), spirit(B, BROWN, 2), kid(W, YELLOW)]
    p, _, _ = powers(odd)
    assert p[1] == 1 + 4 and p[4] == 1 + 1
    even = [spirit(W, GREEN, 3), kid(B, RED), spirit(W, BLUE, 2), spirit(B, BROWN, 2), kid(W, YELLOW)]
    p, _, _ = powers(even)
    assert p[1] == 4 and p[4] == 1 + 1  # only the green 3 is odd
    # the Mortar never counts itself, and a Mortar with nothing odd gains nothing
    p, _, _ = powers([spirit(W, RED, 2), spirit(B, GREEN, 4), kid(W, YELLOW), spirit(B, BLUE, 2), spirit(W, BROWN, 4)])
    assert p[2] == 1


@pytest.mark.parametrize("stack, pos, expect", [
    ([kid(W, RED), spirit(B, GREEN, 4), spirit(W, BLUE, 3), spirit(B, YELLOW, 2), spirit(W, BROWN, 1)], 0, 1),
    ([spirit(W, BLUE, 4), kid(B, GREEN), kid(W, RED), spirit(B, YELLOW, 2), spirit(W, BROWN, 1)], 2, 1),
    ([spirit(W, RED, 1), spirit(B, GREEN, 2), kid(W, BLUE), spirit(B, YELLOW, 3), spirit(W, BROWN, 4)], 2, 1),
    ([spirit(W, RED, 2), spirit(B, GREEN, 2), kid(W, BLUE), spirit(B, YELLOW, 2), spirit(W, BROWN, 2)], 2, 5),
    ([kid(W, RED), kid(B, GREEN), kid(W, BLUE), spirit(B, YELLOW, 2), spirit(W, BROWN, 2)], 1, 1),
    ([spirit(W, RED, 2), kid(W, GREEN), kid(B, BLUE), spirit(B, YELLOW, 2), spirit(W, BROWN, 2)], 1, 2),
    ([spirit(W, RED, 2), spirit(W, GREEN, 1), kid(W, PURPLE), spirit(B, YELLOW, 2), spirit(B, BROWN, 2)], 2, 1),
    ([spirit(W, RED, 2), spirit(B, GREEN, 1), kid(B, PURPLE), spirit(W, YELLOW, 2), spirit(W, BROWN, 2)], 2, 5),
    ([spirit(W, RED, 2), spirit(B, GREEN, 1), spirit(B, BLUE, 3), kid(W, BROWN), spirit(B, YELLOW, 4)], 3, 1),
], ids=["umbrella-bottom", "umbrella-on-kid", "bucket-all-shown", "bucket-only-2s", "mirror-between-kids",
        "mirror-one-side", "cauldron-three-own", "cauldron-two-own", "hatchet-broken"])
def test_kid_ghost_abilities_edge_cases(stack, pos, expect):
    assert powers(stack)[0][pos] == expect
    assert follower_powers([_tuple(c) for c in stack])[0][pos] == expect


def _tuple(c):
    f, col, kind = c // 30, (c % 30) // 5, c % 5
    return (f, col, 1 if kind == 4 else kind + 1, kind == 4)


def test_scoring_agrees_with_the_oracle_on_random_houses():
    rng = np.random.default_rng(3)
    m = 3000
    stacks = []
    for _ in range(m):
        cols = rng.permutation(6)[:5]
        stacks.append([int(rng.integers(2)) * 30 + int(c) * 5 + int(rng.integers(5)) for c in cols])
    sc = score_houses(np.array(stacks), np.zeros(m, dtype=np.int64))
    for i, st in enumerate(stacks):
        assert sc.power[i].tolist() == follower_powers([_tuple(c) for c in st])[0], st


def test_scoring_of_partial_stacks_agrees_with_the_oracle():
    """Stacks of 1 to 5 followers (the heuristics judge a house before it is complete), rich in kid
    ghosts: every power and both totals as the oracle counts them."""
    rng = np.random.default_rng(11)
    for n in range(1, 6):
        stacks = []
        for _ in range(1500):
            cols = rng.permutation(6)[:n]
            stacks.append([int(rng.integers(2)) * 30 + int(c) * 5 + (4 if rng.random() < 0.45 else int(rng.integers(4)))
                           for c in cols])
        cards = np.full((len(stacks), 5), -1, dtype=np.int64)
        cards[:, :n] = stacks
        sc = score_houses(cards, np.zeros(len(stacks), dtype=np.int64))
        for i, st in enumerate(stacks):
            want, _ = follower_powers([_tuple(c) for c in st])
            assert sc.power[i, :n].tolist() == want, st
            assert sc.totals[i].tolist() == [sum(p for c, p in zip(st, want) if c < 30),
                                             sum(p for c, p in zip(st, want) if c >= 30)], st


def test_kid_ghost_in_a_possession_counts_its_bonus():
    # Hatchet example closed by White: the brown kid ghost adds 4 and swings the house to Black
    stack4 = [spirit(W, RED, 2), spirit(B, GREEN, 1), spirit(W, BLUE, 3), kid(B, BROWN)]
    last = spirit(W, YELLOW, 1)
    s = possession_position(stack4, last, PURPLE, W, W)
    run(s, [last])
    assert powers(stack4 + [last])[1] == [6, 6]  # 2 + 3 + 1 vs 1 + 5: a tie in a White house
    assert s.owner[0, 3] == W
    assert s.ab_kids[0].tolist() == [0, 0, 0, 0, 0, 1] and s.ab_bonus[0, 5] == 4
    assert s.ab_swing[0, 5] == 0  # without the bonus Black loses anyway
    stack4 = [spirit(W, RED, 2), spirit(B, GREEN, 3), spirit(W, BLUE, 3), kid(B, BROWN)]
    s = possession_position(stack4, last, PURPLE, W, W)
    run(s, [last])
    assert s.owner[0, 3] == B and s.ab_swing[0, 5] == 1  # 6 vs 8; 6 vs 4 without the Hatchet


# ---------------------------------------------------------------------------------------------------
# placement search

def land(s, faction, card_code):
    return int(landing(s.colours[:1], s.pawn[:1, faction], np.array([[card_code % 30 // 5]]))[0, 0])


def test_first_card_goes_to_the_start_house_when_it_fits():
    s = ENG.scripted(PLAIN_RING, hands=full_hands({}, ([spirit(W, BLUE, 3)], [spirit(B, GREEN, 2)])))
    # default start positions 0 and 6: White's search starts at house 0 (White red), Black's at 6 (Black red)
    run(s, [spirit(W, BLUE, 3), spirit(B, GREEN, 2)])
    assert s.stack[0, 0, 0] == spirit(W, BLUE, 3) and s.stack[0, 6, 0] == spirit(B, GREEN, 2)
    assert s.pawn[0].tolist() == [0, 6]


def test_origin_and_colour_skips():
    # PLAIN_RING: position i holds house i (colours red, blue, green, yellow, purple, brown, twice)
    stacks = {1: [spirit(B, GREEN, 1)]}
    s = ENG.scripted(PLAIN_RING, stacks=stacks, hands=full_hands({"stacks": stacks}, ([kid(W, RED)], [])))
    assert s.pawn[0].tolist() == [11, 5]
    assert land(s, W, kid(W, RED)) == 1        # house 0 has a red origin: skipped
    assert land(s, W, spirit(W, BLUE, 2)) == 0  # a blue card fits house 0
    assert land(s, B, spirit(B, BROWN, 2)) == 6  # Black's search starts at house 6 (red): brown fits
    assert land(s, B, spirit(B, RED, 2)) == 7    # red skips house 6 (red origin)
    s.pawn[0, W] = 0
    assert land(s, W, spirit(W, GREEN, 4)) == 3  # house 1 holds a green follower, house 2 is green
    s.pawn[0, W] = 11
    run(s, [kid(W, RED)])
    assert s.stack[0, 1, :2].tolist() == [spirit(B, GREEN, 1), kid(W, RED)] and s.pawn[0, W] == 1


def test_pawns_own_house_is_looked_at_last():
    # nine red followers on houses 1-4 and 7-11; houses 0 and 6 have red origins: only house 5 takes red
    reds = [spirit(W, RED, p) for p in (1, 2, 3, 4)] + [kid(W, RED)] + [spirit(B, RED, p) for p in (1, 2, 3, 4)]
    stacks = {h: [c] for h, c in zip((1, 2, 3, 4, 7, 8, 9, 10, 11), reds)}
    hands = full_hands({"stacks": stacks}, ([], [kid(B, RED)]))
    s = ENG.scripted(PLAIN_RING, stacks=stacks, hands=hands, pawns=(5, 5), to_move=B)
    assert land(s, B, kid(B, RED)) == 5  # the pawn's own house, looked at last
    s.pawn[0, B] = 4
    assert land(s, B, kid(B, RED)) == 5
    s.pawn[0, B] = 5
    run(s, [kid(B, RED)])
    assert s.stack[0, 5, 0] == kid(B, RED) and s.pawn[0, B] == 5
    # wrap-around: from a pawn on house 11 the search starts at house 0
    s2 = ENG.scripted(PLAIN_RING, pawns=(11, 11))
    assert land(s2, W, spirit(W, BLUE, 1)) == 0
    assert land(s2, W, spirit(W, RED, 1)) == 1


def test_start_positions_option():
    rules = FanAndMalletRules(start_positions=(3, 9))
    s = ENG.scripted(PLAIN_RING, hands=full_hands({}, ([spirit(W, RED, 3)], [spirit(B, BLUE, 2)])), rules=rules)
    assert s.pawn[0].tolist() == [2, 8]
    run(s, [spirit(W, RED, 3), spirit(B, BLUE, 2)])
    assert s.stack[0, 3, 0] == spirit(W, RED, 3) and s.stack[0, 9, 0] == spirit(B, BLUE, 2)
    assert FanAndMalletRules.from_values({"start_positions": "3, 9"}).start_positions == (3, 9)
    assert FanAndMalletRules().as_dict() == {"start_positions": "0,6", "match_points": None}
    for bad in ("0", "0,12", "a,b", "1,2,3", "-1,6"):
        with pytest.raises(SenseiError):
            FanAndMalletRules.from_values({"start_positions": bad})
    for bad in ("0", "-3", "x"):
        with pytest.raises(SenseiError):
            FanAndMalletRules.from_values({"match_points": bad})
    assert FanAndMalletRules.from_values({"match_points": "none"}).match_points is None
    with pytest.raises(SenseiError):
        FanAndMalletRules(match_points=0)


# ---------------------------------------------------------------------------------------------------
# end of the game, draws, illegal moves

def test_win_at_seven_markers_in_the_middle_of_the_turn():
    stack4 = [spirit(W, RED, 4), spirit(B, BLUE, 1), spirit(W, GREEN, 4), spirit(B, YELLOW, 1)]
    last = spirit(W, PURPLE, 4)
    s = possession_position(stack4, last, BROWN, W, W)
    # pretend six markers were placed earlier (not a reachable position; the invariants are not checked)
    s.markers[0] = (6, 0)
    s.first_done[0] = True
    s.first_winner[0] = W
    hand_before = s.hand[0, W].copy()
    deck_pos = s.deck_pos[0, W]
    run(s, [last], check=False)
    assert s.done[0] and s.winner[0] == W and s.markers[0, W] == 7
    assert s.turns[0] == 1
    assert s.deck_pos[0, W] == deck_pos  # no card drawn
    assert (s.hand[0, W] >= 0).sum() == (hand_before >= 0).sum() - 1
    out = ENG.outcome(s)
    assert out["win"][0].tolist() == [1.0, 0.0] and out["score"][0].tolist() == [7.0, 0.0]


def test_draw_after_the_turn_and_hand_runs_down_when_the_deck_is_empty():
    s = ENG.scripted(PLAIN_RING, hands=full_hands({}, ([], [])))
    first = int(s.hand[0, W, 2])
    nxt = int(s.deck[0, W, s.deck_pos[0, W]])
    run(s, [first])
    assert s.hand[0, W, 2] == nxt and (s.hand[0, W] >= 0).sum() == 6
    # an empty deck (emulated: nothing left to draw): the hand shrinks and stays compact
    s = ENG.scripted(PLAIN_RING, hands=full_hands({}, ([], [])))
    s.deck_pos[0, W] = 30
    c = int(s.hand[0, W, 1])
    run(s, [c], check=False)
    assert (s.hand[0, W] >= 0).sum() == 5
    assert (s.hand[0, W, :5] >= 0).all()  # compact


def test_illegal_choices_raise():
    s = ENG.scripted(PLAIN_RING, hands=([spirit(W, RED, 1)], full_hands({}, ([], []))[1]))

    @dataclass(frozen=True)
    class Bad(Strategy):
        name: ClassVar[str] = "bad"
        game: ClassVar[str] = "fan-and-mallet"
        slot: int = 0

        def play(self, obs, rng):
            return np.full(len(obs), self.slot)

    for bad in (3, 6, -1):
        t = s.copy()
        with pytest.raises(IllegalAction):
            ENG.turn(t, np.array([0]), Seats([Bad(slot=bad), Bad(slot=bad)], t.keys))

    @dataclass(frozen=True)
    class Floaty(Bad):
        name: ClassVar[str] = "floaty"

        def play(self, obs, rng):
            return np.zeros(len(obs))

    with pytest.raises(IllegalAction):
        ENG.turn(s.copy(), np.array([0]), Seats([Floaty(), Floaty()], s.keys))


# ---------------------------------------------------------------------------------------------------
# matches

def test_match_loser_starts_the_next_game_and_points_are_unused_markers():
    rules = FanAndMalletRules(match_points=15)
    from strategies.fan_and_mallet import RandomPlay
    agents = [RandomPlay(), RandomPlay()]
    seen = []

    def probe(state):
        seen.append((state.game_no.copy(), state.to_move.copy(), state.turns.copy(), state.points.copy(),
                     state.markers.copy(), state.done.copy()))

    out = ENG.play(np.arange(40), 2, rules, agents, np.uint64(77), check=True, on_turn=probe)
    assert (out["games_played"] >= 3).all()
    win = out["win"].argmax(1)
    assert (out["score"][np.arange(40), win] >= 15).all() and (out["score"][np.arange(40), 1 - win] < 15).all()
    starts = 0
    for (g0, _, _, p0, m0, d0), (g1, mv1, _, p1, _, _) in zip(seen, seen[1:]):
        new = (g1 > g0) & ~d0
        for i in np.flatnonzero(new):
            gained = p1[i] - p0[i]
            w = int(np.argmax(gained))
            assert gained[w] >= 1 and gained[1 - w] == 0
            assert mv1[i] == 1 - w  # the loser starts
            starts += 1
    assert starts > 40


def test_long_matches_end_by_their_rules_not_at_the_turn_limit():
    # a game plays at most 60 cards and gives its winner at least one point: a match to N points plays at most
    # 2N - 1 games, 60 (2N - 1) turns (the cap's 100 turns a point fell below that from N = 834 on)
    eng = FanAndMallet()
    assert eng.turn_limit(FanAndMalletRules()) == 100_000
    assert eng.turn_limit(FanAndMalletRules(match_points=833)) == 100_000
    assert eng.turn_limit(FanAndMalletRules(match_points=834)) == 60 * 1667 == 100_020
    assert eng.turn_limit(FanAndMalletRules(match_points=1000)) == 119_940
    assert eng.turn_limit(FanAndMalletRules(match_points=8000)) == 60 * 15_999
    assert eng.turn_limit(FanAndMalletRules(match_points=1_000_000)) == 60 * 1_999_999
    with pytest.raises(SenseiError, match="at most 1,000,000"):
        FanAndMalletRules.from_values({"match_points": 2_000_000}, "fan-and-mallet")
    from simcore.runner import simulate
    from strategies.registry import lineup
    res = simulate("fan-and-mallet", lineup("fan-and-mallet", ["random"] * 2, 2), rules={"match_points": 3000},
                   n_games=1, seed=1)
    out = res.summary()
    assert out["timeouts"] == 0 and out["mean_turns"] > 100_000


def test_the_numpy_observation_fetches_public_fields_only():
    from simcore.rng import game_keys, root_key
    eng = FanAndMallet()
    keys = game_keys(root_key(1), np.arange(3))
    state = eng.new_batch(keys, 2, eng.make_rules())
    obs = eng.observe(state, np.arange(3), 0)
    assert obs.count.shape == (3, 12)   # a public field, fetched on use
    for hidden in ("hand", "deck", "deck_pos"):
        with pytest.raises(AttributeError):
            obs._public(hidden)
