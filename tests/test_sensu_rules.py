"""Sensu rules: the rulebook's redeeming examples, decks, combinations, building, powers, chosen fan, solo;
scripted turns through the generic drivers (``Game.turn``, ``Game.step_games``), one decision at a time."""
import itertools
from dataclasses import dataclass

import numpy as np
import pytest

from simcore.errors import IllegalAction, SenseiError
from simcore.game import Seats
from simcore.games.sensu import (CARD_TYPE, LEVELS, ORDER_BITS, SLOTS, SUBSET_SIZE, SUBSETS, Action, Decision,
                                 Sensu, arrange_by, bad_arrangements, card_sticks, combination_table, combos_of,
                                 combos_with_card, deck_cards, redeem_count)
from simcore.rng import game_keys, root_key
from tests.oracles import sensu as oracle

ENG = Sensu()
GUN, HI, MAI = 0, 1, 2


def card(t, v, copy="A"):
    return t * 30 + (v - 1) * 3 + "ABC".index(copy)


def wild(t, w):
    return t * 30 + 27 + w


def stacked_deck(players, hands, top=()):
    """A deck (bottom first) whose deal gives seat p ``hands[p]`` (topped up with the deck's spare cards),
    with ``top`` (drawn first) on top of the rest; and the hands so dealt. Solo: no hands are dealt."""
    cards = [int(c) for c in deck_cards(players)]
    fixed = [c for h in hands for c in h] + list(top)
    assert len(set(fixed)) == len(fixed) and set(fixed) <= set(cards)
    rest = [c for c in cards if c not in fixed]
    # the deal takes the deck's top: seat 0 gets its 5 cards first
    dealt = []
    for p in range(players if players > 1 else 0):
        h = list(hands[p]) if p < len(hands) else []
        while len(h) < 5:
            h.append(rest.pop())
        dealt.append(h)
    return rest + list(reversed(top)) + [c for h in reversed(dealt) for c in reversed(h)], dealt


def make(players=4, hands=None, rules=None, top=(), chosen=None):
    """A state whose seats hold ``hands`` and whose deck has ``top`` (drawn first) on top."""
    rules = ENG.make_rules(rules or {})
    deck, _ = stacked_deck(players, hands or [], top)
    keys = game_keys(root_key(0), np.array([0]))
    return ENG.new_state(keys, players, rules, deck=np.array([deck]), chosen=chosen)


def take_card(st, c):
    """Remove card c from the deck (a card in a hand is first swapped with the deck's top card)."""
    where = np.argwhere(st.hand[0] == c)
    if len(where):
        p, s = where[0]
        top = st.deck[0, st.deck_n[0] - 1]
        st.deck[0, st.deck_n[0] - 1] = c
        st.hand[0, p, s] = top
    pos = int(np.flatnonzero(st.deck[0, :st.deck_n[0]] == c)[0])
    st.deck[0, pos:st.deck_n[0] - 1] = st.deck[0, pos + 1:st.deck_n[0]].copy()
    st.deck_n[0] -= 1
    st.deck[0, st.deck_n[0]] = -1


def move_to_fan(st, seat, cards):
    """Put cards (taken from the deck) on seat's fans, as if placed earlier."""
    for c in cards:
        take_card(st, c)
        t = CARD_TYPE[c]
        st.fan[0, seat, t, st.fan_n[0, seat, t]] = c
        st.fan_n[0, seat, t] += 1
        st.fan_sticks[0, seat, t] += st.ST[c]
        st.closed[0, seat, t] = st.fan_sticks[0, seat, t] == 10
        st.fan_power[0, seat, t] += st.PW[c]


def move_to_pile(st, seat, cards):
    for c in cards:
        take_card(st, c)
        st.pile[0, seat, st.pile_n[0, seat]] = c
        st.pile_n[0, seat] += 1


#: a sticks table of ones (a user table the rulings accept): every fan holds up to 10 cards, so the fans can
#: take every card the hands do not hold and the deck and every discard pile can be empty at once
ONES = "1,1,1,1,1,1,1,1,1"


def without_deck(hands, caps, rules=None):
    """Two seats holding ``hands``, sticks all 1, and every other card on the fans (``caps[seat][type]``:
    the cards that fan takes at most, seat 0's fans filled first): the deck and every pile are empty."""
    st = make(2, hands, {"sticks": ONES, **(rules or {})})
    for c in [int(c) for c in st.deck[0, :st.deck_n[0]]]:
        t = CARD_TYPE[c]
        seat = next(q for q in range(2) if st.fan_n[0, q, t] < caps[q][t])
        move_to_fan(st, seat, [c])
    assert st.deck_n[0] == 0 and st.pile_n[0].sum() == 0
    ENG.check(st)
    return st


@dataclass(frozen=True)
class Script:
    """Plays the given action codes in turn order and arranges with the given slot orders."""
    actions: tuple = ()
    orders: tuple = ()
    wisdom_src: int = 0
    harmony_pile: int = -1

    def spec(self):
        return "script"

    def turn(self, obs, rng):
        return np.full(len(obs), self.actions[0])

    def solo_turn(self, obs, rng):
        return np.full(len(obs), self.actions[0])

    def arrange(self, obs, rng):
        if self.orders:
            return np.array([list(self.orders[0]) + [-1] * (SLOTS - len(self.orders[0]))])
        return arrange_by(obs)

    def discard(self, obs, rng):
        return obs.hand_n - 1

    def wisdom(self, obs, rng):
        return np.full(len(obs), self.wisdom_src)

    def harmony(self, obs, rng):
        return np.where(obs.harmony_ok[:, self.harmony_pile], self.harmony_pile, np.argmax(obs.harmony_ok, 1)) \
            if self.harmony_pile >= 0 else np.argmax(obs.harmony_ok, axis=1)

    def courage(self, obs, rng):
        best = np.argmax(obs.courage_ok, axis=2)
        return np.where(obs.courage_ok.any(axis=2), best, -1)

    def place(self, obs, rng):
        return np.full(len(obs), self.actions[1] if len(self.actions) > 1 else 0)


def one_turn(st, agent, players=None):
    players = players or st.players
    seats = Seats([agent] * players, st.keys)
    ENG.turn(st, np.array([0]), seats)
    ENG.check(st)


def decisions_of_turn(st, agent, options=None):
    """Play one turn of game 0 one decision at a time (``Game.step_games``), checking the invariants at every
    decision point; returns the decision kinds met, in order (and appends each decision's legal options to
    the list ``options``)."""
    seats = Seats([agent] * st.players, st.keys)
    kinds = []
    start = st.turns[0]
    while not st.done[0] and st.turns[0] == start:
        kinds.append(Decision(int(st.kind[0])))
        if options is not None:
            options.append(ENG.legal_options(st, 0).tolist())
        ENG.step_games(st, np.array([0]), seats)
        ENG.check(st)
    return kinds


def order_of(code):
    """The slots of an ARRANGE option."""
    out = []
    while code:
        out.append((code & 7) - 1)
        code >>= ORDER_BITS
    return out


def mask_of(slots):
    return sum(1 << s for s in slots)


def legal_redeemed(hand, slots):
    """Every (redeemed set, in slot numbers) the engine accepts for combination ``slots`` of ``hand``: the
    first cards of the legal options at the ARRANGE decision of a real turn, and the same sets from the
    arrangement check over every order of the slots."""
    cards = np.array([list(hand) + [-1] * (SLOTS - len(hand))], dtype=np.int64)
    mask = np.array([mask_of(slots)])
    k = int(redeem_count(cards, mask)[0])
    st = card_sticks(ENG.make_rules())
    ok = set()
    for perm in itertools.permutations(slots):
        order = np.array([list(perm) + [-1] * (SLOTS - len(perm))])
        if not bad_arrangements(cards, mask, order, np.array([k]), st)[0]:
            ok.add(frozenset(perm[:k]))
    game = make(4, [hand])
    assert ENG.step_one(game, 0, Action.PLAY + int(mask[0])) and game.kind[0] == Decision.ARRANGE
    assert game.red_k[0] == k
    ENG.check(game)
    orders = [order_of(int(c)) for c in ENG.legal_options(game, 0)]
    assert all(sorted(o) == sorted(slots) for o in orders)
    assert {frozenset(o[:k]) for o in orders} == ok
    # every order of those sets is an option: the build and discard orders are free
    assert len(orders) == len({tuple(o) for o in orders}) == sum(
        1 for perm in itertools.permutations(slots) if frozenset(perm[:k]) in ok)
    return k, ok


# ----- the rulebook's redeeming examples (default sticks table A) -------------------------------------
def test_example_1_six_seven_seven():
    hand = [card(GUN, 6), card(HI, 7), card(MAI, 7)]
    k, ok = legal_redeemed(hand, [0, 1, 2])
    assert k == 2  # the 6 (3 sticks) and, for the pair, one 7 of the player's choice
    assert ok == {frozenset({0, 1}), frozenset({0, 2})}


def test_example_2_two_three_six_nine():
    hand = [card(GUN, 2), card(GUN, 3), card(HI, 6), card(GUN, 9)]
    k, ok = legal_redeemed(hand, [0, 1, 2, 3])
    assert k == 2  # the 2 or the 3 (4 sticks); three Gun-sen: the 9 (1 stick)
    assert ok == {frozenset({0, 3}), frozenset({1, 3})}


def test_example_3_two_two_four_five_seven():
    hand = [card(GUN, 2), card(HI, 2, "C"), card(GUN, 4), card(GUN, 5), card(MAI, 7)]
    k, ok = legal_redeemed(hand, [0, 1, 2, 3, 4])
    assert k == 3  # one 2; both bonuses: the 7 and the 4 or the 5
    assert ok == {frozenset({a, 4, b}) for a in (0, 1) for b in (2, 3)}


def test_example_4_wild_card():
    hand = [card(MAI, 3), card(MAI, 5), wild(MAI, 0), card(GUN, 9)]
    cards = np.array([hand + [-1, -1]])
    assert combination_table(cards)[0, 0b1111]  # 3 + 5 + (wild as 3) + 9
    k, ok = legal_redeemed(hand, [0, 1, 2, 3])
    assert k == 2  # the 3; three Mai-ougi (the wild counts): the 9 or the wild; no pair (3 and wild-3)
    assert ok == {frozenset({0, 2}), frozenset({0, 3})}


def test_example_played_through_the_engine():
    """Example 3 in a real turn: redeemed cards built in the chosen order, the rest discarded in order."""
    hand = [card(GUN, 2), card(HI, 2, "C"), card(GUN, 4), card(GUN, 5), card(MAI, 7)]
    st = make(4, [hand])
    # redeem the Hi-ogi 2, the 7 and the Gun-sen 5; discard the Gun-sen 4, then the Gun-sen 2 (top)
    kinds = decisions_of_turn(st, Script(actions=(Action.PLAY + 0b11111,), orders=((1, 4, 3, 2, 0),)))
    assert kinds == [Decision.TURN, Decision.ARRANGE]
    assert st.fan_sticks[0, 0].tolist() == [3, 4, 2]
    assert st.pile[0, 0, :st.pile_n[0, 0]].tolist() == [card(GUN, 4), card(GUN, 2)]
    assert st.hand_n[0, 0] == 0 and st.plays[0, 0] == 1 and st.turns[0] == 1 and st.current[0] == 1
    # an illegal redeemed set (the 4 instead of the 7) is refused
    st = make(4, [hand])
    with pytest.raises(IllegalAction, match=r"illegal arrange: option \d+ \(slots in order 1, 2, 3, 4, 0\) "
                       r"\(the legal options there: \d+ \(slots in order [\d, ]+\), [\w, .()]*\(48 in all\)\)$"):
        one_turn(st, Script(actions=(Action.PLAY + 0b11111,), orders=((1, 2, 3, 4, 0),)))


def test_option_codes_in_words():
    """An illegal answer's line says what each code stands for (a raw ARRANGE code said nothing)."""
    from simcore.games.sensu import arrange_option, courage_option
    words = lambda kind, opt: ENG.option_text(kind, opt)  # noqa: E731
    assert words(Decision.TURN, 0) == "option 0 (draw from the deck)"
    assert words(Decision.TURN, 3) == "option 3 (the top of seat 2's pile)"
    assert words(Decision.TURN, 7) == "option 7 (pass)"
    assert words(Decision.TURN, 64 + 0b100101) == "option 101 (play hand slots 0, 2, 5)"
    assert words(Decision.SOLO_TURN, 64 + 0b11) == "option 67 (play places 0, 1)"
    assert words(Decision.SOLO_TURN, 0) == "option 0 (draw)"
    code = int(arrange_option(np.array([2, 0, 1, -1, -1, -1])))
    assert words(Decision.ARRANGE, code) == f"option {code} (slots in order 2, 0, 1)"
    assert words(Decision.ARRANGE, 7) == "option 7"                       # slot 6 does not exist
    code = sum((o + 1) << (3 * j) for j, o in enumerate([-1, -1, -1, 1, 0, 2]))  # a numpy answer reversed
    assert words(Decision.ARRANGE, code) == (f"option {code} (the order -1, -1, -1, 1, 0, 2, whose -1 entries (the "
                                             "padding) must all come after the slots)")
    code = int(courage_option(np.array([-1, 2, 0]), 3))
    assert words(Decision.COURAGE, code) == f"option {code} (seat 1: Mai-ougi; seat 2: Gun-sen)"
    assert words(Decision.WISDOM, 0) == "option 0 (the deck)" and words(Decision.WISDOM, 2) == "option 2 (seat 1's pile)"
    assert words(Decision.PLACE, 3) == "option 3 (column 3)" and words(Decision.DISCARD, 4) == "option 4"
    assert words(Decision.TURN, -1) == "option -1" and words(Decision.TURN, 200) == "option 200"


def test_sticks_tables_and_custom_table():
    assert card_sticks(ENG.make_rules())[[card(GUN, v) for v in range(1, 10)]].tolist() == [4, 4, 4, 3, 3, 3, 2, 2, 1]
    assert card_sticks(ENG.make_rules({"sticks": "B"}))[[card(GUN, v) for v in range(1, 10)]].tolist() == \
        [4, 3, 3, 2, 2, 2, 1, 1, 1]
    r = ENG.make_rules({"sticks": "4,4,4,3,3,2,1,1,1"})
    assert r.sticks == "4,4,4,3,3,2,1,1,1"
    assert card_sticks(r)[wild(HI, 2)] == 1
    for bad in ("D", "1,2,3", "5,4,4,3,3,3,2,2,1"):
        with pytest.raises(SenseiError):
            ENG.make_rules({"sticks": bad})
    with pytest.raises(SenseiError):
        ENG.make_rules({"power_copies": "X"})


def test_powers_refuse_copies_that_are_not_in_the_deck():
    """With 2-3 players copy B is removed: power symbols on copy B alone would make the variant do nothing."""
    for players in (2, 3):
        with pytest.raises(SenseiError, match="copy B is not in the deck"):
            ENG.validate(players, ENG.make_rules({"powers": True, "power_copies": "B"}))
        ENG.validate(players, ENG.make_rules({"powers": True, "power_copies": "AB"}))
        ENG.validate(players, ENG.make_rules({"powers": False, "power_copies": "B"}))
    for players in (4, 5):
        ENG.validate(players, ENG.make_rules({"powers": True, "power_copies": "B"}))


@pytest.mark.parametrize("name, want", [("A", [4, 4, 4, 3, 3, 3, 2, 2, 1]), ("A2", [4, 4, 4, 3, 3, 3, 2, 1, 1]),
                                        ("B", [4, 3, 3, 2, 2, 2, 1, 1, 1]), ("C", [4, 4, 4, 3, 3, 2, 1, 1, 1])])
def test_sticks_tables_are_the_rulings(name, want):
    """Each named table gives the rulings' sticks to every card of each value (every type and copy, the
    state's table too), and 1 stick to every wild."""
    rules = ENG.make_rules({"sticks": name})
    st = card_sticks(rules)
    for t in (GUN, HI, MAI):
        for cp in "ABC":
            assert st[[card(t, v, cp) for v in range(1, 10)]].tolist() == want
        assert st[[wild(t, w) for w in range(3)]].tolist() == [1, 1, 1]
    assert ENG.new_state(game_keys(root_key(0), np.array([0])), 4, rules).ST.tolist() == st.tolist()


def test_deck_sizes():
    assert len(deck_cards(5)) == len(deck_cards(4)) == 90
    assert len(deck_cards(3)) == len(deck_cards(2)) == 63
    assert len(deck_cards(1)) == 27
    assert not any(c % 30 < 27 and c % 3 == 1 for c in deck_cards(3))  # no copy B
    assert all(c % 30 < 27 and c % 3 == 0 for c in deck_cards(1))    # copy A, no wilds
    for p, d in ((1, 27), (2, 63), (4, 90)):
        st = ENG.new_state(game_keys(root_key(1), np.arange(3)), p, ENG.make_rules())
        assert st.deck_n.tolist() == [d - 5 * p * (p > 1)] * 3
        ENG.check(st)


def test_combinations_match_brute_force():
    rng = np.random.default_rng(0)
    deck = deck_cards(4)
    for n in (3, 4, 5, 6):
        hands = np.array([rng.choice(deck, n, replace=False) for _ in range(400)])
        cards = np.full((400, SLOTS), -1)
        cards[:, :n] = hands
        fast = combos_of(cards)
        arr = combination_table(cards)
        assert (fast == arr).all()
        for i in range(400):
            brute = {sum(1 << s for s in sub) for sub in oracle.combinations([int(c) for c in hands[i]])}
            assert set(np.flatnonzero(fast[i]).tolist()) == brute


def test_combinations_with_a_sixth_card():
    """The five lookups of combinations holding a sixth card give exactly the six-card subset sums' ones that
    hold it, of at most five cards."""
    rng = np.random.default_rng(2)
    deck = deck_cards(4)
    hands = np.array([rng.choice(deck, 6, replace=False) for _ in range(3000)])
    want = combos_of(hands) & SUBSETS[:, 5][None, :] & (SUBSET_SIZE <= 5)[None, :]
    assert want.any(axis=1).mean() > 0.5
    assert (combos_with_card(hands[:, :5], hands[:, 5]) == want).all()


def test_redeem_count_matches_oracle():
    rng = np.random.default_rng(1)
    deck = deck_cards(4)
    hands = np.array([rng.choice(deck, 5, replace=False) for _ in range(300)])
    cards = np.full((300, SLOTS), -1)
    cards[:, :5] = hands
    masks = rng.integers(1, 32, 300)
    got = redeem_count(cards, masks)
    for i in range(300):
        sub = [int(hands[i, s]) for s in range(5) if SUBSETS[masks[i], s]]
        assert got[i] == (oracle.redeem_count(sub) if len(sub) else 1)


# ----- building ---------------------------------------------------------------------------------------
def test_closing_at_exactly_ten_and_unusable_cards():
    # fan Gun-sen at 8 sticks; redeem a Gun-sen 3 (3 sticks: 11, unusable) and a Gun-sen 7 (2: closes)
    hand = [card(GUN, 3), card(GUN, 7), card(HI, 9), card(MAI, 1), card(MAI, 8)]
    st = make(4, [hand])
    move_to_fan(st, 0, [card(GUN, 1, "B"), card(GUN, 4, "B"), card(GUN, 9, "B")])  # 4 + 3 + 1 = 8
    assert st.fan_sticks[0, 0, GUN] == 8
    # 3 + 7 + 9 + 1 = 20: three Gun-sen? no (2); pair? no -> 1 redeemed... use 3,7,9,1 with Mai 1
    mask = mask_of([0, 1, 2, 3])
    cards = np.array([hand + [-1]])
    assert combos_of(cards)[0, mask]
    k = int(redeem_count(cards, np.array([mask]))[0])
    assert k == 1  # no pair, only two Gun-sen
    # the 3 and the 1 tie on 4 sticks: redeem the Gun-sen 3, which does not fit (8 + 4 > 10)
    one_turn(st, Script(actions=(Action.PLAY + mask,), orders=((0, 1, 2, 3),)))
    assert st.fan_sticks[0, 0, GUN] == 8 and not st.closed[0, 0].any()
    assert st.pile[0, 0, st.pile_n[0, 0] - 1] == card(GUN, 3)  # the unusable card follows the discards
    # now close: fan Gun-sen at 8, redeem a Gun-sen 7 (2 sticks) from 7 + 7 + 6 (pair -> 2 cards)
    hand = [card(GUN, 7), card(HI, 7), card(MAI, 6), card(MAI, 9), card(HI, 9)]
    st = make(4, [hand])
    move_to_fan(st, 0, [card(GUN, 1, "B"), card(GUN, 4, "B"), card(GUN, 9, "B")])
    one_turn(st, Script(actions=(Action.PLAY + mask_of([0, 1, 2]),), orders=((2, 0, 1),)))
    assert st.closed[0, 0, GUN] and st.fan_sticks[0, 0, GUN] == 10
    assert st.fan_sticks[0, 0, MAI] == 3


def test_second_closed_fan_wins_at_once():
    hand = [card(GUN, 7), card(HI, 7), card(MAI, 6), card(MAI, 9), card(HI, 9)]
    st = make(4, [hand])
    move_to_fan(st, 0, [card(GUN, 1, "B"), card(GUN, 4, "B"), card(GUN, 9, "B")])  # 8
    move_to_fan(st, 0, [card(HI, 1, "B"), card(HI, 2, "B"), card(HI, 9, "B")])     # 9 -> a 7 does not fit
    move_to_fan(st, 0, [card(MAI, 1, "B"), card(MAI, 2, "B"), card(MAI, 8, "B")])  # 10? 4+4+2 = closed
    assert st.closed[0, 0, MAI]
    # redeem the 6 (Mai-ougi, closed: unusable), then the Gun-sen 7 closes the second fan: win
    one_turn(st, Script(actions=(Action.PLAY + mask_of([0, 1, 2]),), orders=((2, 0, 1),)))
    assert st.done[0] and st.winner[0] == 0 and not st.timeout[0]
    out = ENG.outcome(st)
    assert out["win"][0].tolist() == [1.0, 0, 0, 0] and out["fans_closed"][0, 0] == 2


def test_reshuffle_when_the_deck_empties():
    st = make(2)
    # leave one card in the deck; the rest on seat 1's pile
    while st.deck_n[0] > 1:
        move_to_pile(st, 1, [int(st.deck[0, 0])])
    kinds = decisions_of_turn(st, Script(actions=(Action.DECK,)))
    assert kinds == [Decision.TURN, Decision.DISCARD]  # the discard is a decision of its own, mid-turn
    # the draw took the last card: piles shuffled into the deck, then the discard starts a new pile
    assert st.reshuffles[0] == 1 and st.pile_n[0].tolist() == [1, 0]
    assert st.deck_n[0] == 63 - 10 - 1
    # batch draws agree with a pass when nothing can be drawn
    obs = ENG.observe(st, np.array([0]), np.array([1]))
    assert obs.sources[0].tolist() == [True, True, False]


def test_a_win_mid_build_leaves_the_later_redeemed_cards_unplaced():
    """Two redeemed cards wait when the first one built closes the second fan: they stay unplaced (neither on
    a fan, though the Hi-ogi 1 would fit, nor on the pile)."""
    hi1, g7a, g7c, g5 = card(HI, 1), card(GUN, 7), card(GUN, 7, "C"), card(GUN, 5)
    st = make(4, [[hi1, g7a, g7c, g5]])
    move_to_fan(st, 0, [card(MAI, 1, "B"), card(MAI, 2, "B"), card(MAI, 8, "B")])  # 4 + 4 + 2: closed
    move_to_fan(st, 0, [card(GUN, 1, "B"), card(GUN, 4, "B"), card(GUN, 9, "B")])  # 4 + 3 + 1 = 8
    pile = st.pile_n[0].tolist()
    # 1 + 7 + 7 + 5 = 20: a pair and three Gun-sen, so 3 redeemed: the Hi-ogi 1 (4 sticks), then both 7s (2)
    assert redeem_count(np.array([[hi1, g7a, g7c, g5, -1, -1]]), np.array([0b1111]))[0] == 3
    # build the Gun-sen 7A first (8 + 2 = 10: the second closed fan), then the Hi-ogi 1 and the 7C
    kinds = decisions_of_turn(st, Script(actions=(Action.PLAY + 0b1111,), orders=((1, 0, 2, 3),)))
    assert kinds == [Decision.TURN, Decision.ARRANGE]
    assert st.done[0] and st.winner[0] == 0 and st.closed[0, 0].tolist() == [True, False, True]
    assert st.limbo[0].tolist() == [hi1, g7c, -1]
    assert st.fan_n[0, 0, HI] == 0 and st.fan_sticks[0, 0, HI] == 0
    assert st.pile[0, 0, pile[0]:st.pile_n[0, 0]].tolist() == [g5]  # only the unredeemed card was discarded
    assert st.pile_n[0].tolist()[1:] == pile[1:] and (st.red[0] == -1).all()
    assert ENG.outcome(st)["win"][0].tolist() == [1.0, 0, 0, 0]


def test_a_play_refills_the_deck_after_each_card_discarded():
    """Deck and every pile empty; seat 0 plays 3 + 8 + 9 redeeming the 3, discarding the 8, then the 9: the
    8 alone becomes the new deck the moment it is discarded, and the 9 starts the new pile."""
    g3, h8, m9 = card(GUN, 3), card(HI, 8), card(MAI, 9)
    hands = [[g3, h8, m9, card(GUN, 1), card(HI, 1)],
             [card(GUN, 2), card(HI, 2), card(MAI, 1), card(MAI, 2), card(MAI, 3)]]
    st = without_deck(hands, caps=[[8, 9, 9], [10, 9, 8]])
    assert not st.closed[0, 0].any() and st.closed[0, 1].tolist() == [True, False, False]
    one_turn(st, Script(actions=(Action.PLAY + 0b111,), orders=((0, 1, 2),)))  # sticks all 1: redeem the 3
    assert st.reshuffles[0] == 1
    assert st.deck[0, :st.deck_n[0]].tolist() == [h8]
    assert st.pile_n[0].tolist() == [1, 0] and st.pile[0, 0, 0] == m9
    assert st.fan_n[0, 0, GUN] == 9 and st.fan[0, 0, GUN, 8] == g3
    # seat 1 draws the 8: the deck is empty again and the 9 becomes the next deck
    assert ENG.step_one(st, 0, Action.DECK) and st.kind[0] == Decision.DISCARD
    assert st.reshuffles[0] == 2 and st.deck[0, :st.deck_n[0]].tolist() == [m9] and st.pile_n[0].sum() == 0
    ENG.check(st)


def test_a_pass_only_when_nothing_can_be_drawn():
    """With no deck and no discard cards the player passes (the turn ends, nothing changes); the pass is not
    an option while any card can be drawn, and drawing is not one with nothing to draw."""
    hands = [[card(GUN, 1), card(HI, 1), card(MAI, 1), card(GUN, 2), card(HI, 2)],   # no combination
             [card(MAI, 2), card(GUN, 3), card(HI, 9), card(MAI, 9), card(GUN, 4)]]  # one: 2 + 9 + 9
    st = without_deck(hands, caps=[[9, 9, 9], [10, 9, 9]])
    assert ENG.legal_options(st, 0).tolist() == [Action.PASS]
    for opt in (Action.DECK, Action.PILE + 0, Action.PILE + 1):
        assert not ENG.step_one(st, 0, opt)
    hand = st.hand[0].copy()
    assert decisions_of_turn(st, Script(actions=(Action.PASS,))) == [Decision.TURN]
    assert st.turns[0] == 1 and st.current[0] == 1 and (st.hand[0] == hand).all() and st.reshuffles[0] == 0
    # seat 1 may still play its combination instead of passing
    assert ENG.legal_options(st, 0).tolist() == [Action.PASS, Action.PLAY + 0b1101]
    # with a card to draw the pass is refused
    st = make(2)
    assert Action.PASS not in ENG.legal_options(st, 0).tolist() and not ENG.step_one(st, 0, Action.PASS)


def test_drawing_from_the_own_discard_pile():
    """The top of the player's own discard pile is a source like any other pile's."""
    c = card(MAI, 4, "C")
    st = make(2)
    move_to_pile(st, 0, [card(GUN, 6, "C"), c])
    assert Action.PILE + 0 in ENG.legal_options(st, 0).tolist()
    first = int(st.hand[0, 0, 0])
    assert ENG.step_one(st, 0, Action.PILE + 0)
    assert st.hand[0, 0, :st.hand_n[0, 0]].tolist()[-1] == c and st.pile_n[0, 0] == 1
    assert st.kind[0] == Decision.DISCARD and st.held[0, c] == 0
    ENG.check(st)
    assert ENG.step_one(st, 0, 0)  # discard hand slot 0 back onto the own pile
    assert st.pile[0, 0, :2].tolist() == [card(GUN, 6, "C"), first] and st.hand_n[0, 0] == 5
    assert st.turns[0] == 1 and st.current[0] == 1
    ENG.check(st)


def test_timeout_is_reported():
    agents = [ENG_random()] * 4
    out = ENG.play(np.arange(8), 4, ENG.make_rules({"max_turns": 5}), agents, root_key(1))
    assert out["timeout"].all() and (out["turns"] == 5).all() and (out["win"] == 0).all()


def ENG_random():
    from strategies.sensu import Random
    return Random()


# ----- powers -----------------------------------------------------------------------------------------
def test_power_wisdom_draws_three_without_discard():
    # Hi-ogi fan holds one power card (copy C); redeem a Hi-ogi C card: Wisdom
    hand = [card(HI, 6, "C"), card(GUN, 7), card(MAI, 7), card(GUN, 9), card(MAI, 9)]
    st = make(4, [hand], {"powers": True})
    move_to_fan(st, 0, [card(HI, 9, "C")])
    kinds = decisions_of_turn(st, Script(actions=(Action.PLAY + mask_of([0, 1, 2]),), orders=((0, 1, 2),)))
    assert kinds == [Decision.TURN, Decision.ARRANGE] + [Decision.WISDOM] * 3  # one decision per card drawn
    assert st.fan_power[0, 0, HI] == 2
    assert st.hand_n[0, 0] == 2 + 3  # two cards kept, three drawn, no discard
    # Courage does not fire for non-power cards; the 7 went onto Gun-sen
    assert st.fan_sticks[0, 0, GUN] == 2


def test_power_harmony_takes_a_pile_top_and_chains_into_courage():
    hand = [card(MAI, 6, "C"), card(GUN, 7), card(HI, 7), card(GUN, 9), card(HI, 9)]
    st = make(4, [hand], {"powers": True})
    move_to_fan(st, 0, [card(MAI, 9, "C")])  # one Mai-ougi power card already
    move_to_fan(st, 0, [card(GUN, 8, "C")])  # one Gun-sen power card already
    move_to_pile(st, 2, [card(GUN, 5, "C")])  # Harmony will take it: second Gun-sen power -> Courage
    move_to_fan(st, 1, [card(HI, 1), card(HI, 5)])          # seat 1: last card 5A (no symbol): removed
    move_to_fan(st, 3, [card(MAI, 2, "C")])                 # seat 3: last card has a symbol: stays
    move_to_fan(st, 3, [card(GUN, 2, "A"), card(GUN, 3, "C")])
    # Harmony could also take the Hi-ogi 7 just discarded onto seat 0's pile; take seat 2's top
    kinds = decisions_of_turn(st, Script(actions=(Action.PLAY + mask_of([0, 1, 2]),), orders=((0, 1, 2),),
                                         harmony_pile=2))
    assert kinds == [Decision.TURN, Decision.ARRANGE, Decision.HARMONY, Decision.COURAGE]  # the chain, in order
    # the 6C (3 sticks) triggered Harmony; the Gun-sen 5C (3) joined the Gun-sen fan (2 + 2 + 3 = 7)
    assert st.fan_power[0, 0, MAI] == 2 and st.fan_power[0, 0, GUN] == 2
    assert st.fan_sticks[0, 0, GUN] == 2 + 2 + 3
    assert st.pile_n[0, 2] == 0
    # Courage: seat 1 lost its Hi-ogi 5; seat 3 kept both fans (last cards bear symbols); seat 2 had none
    assert st.fan_n[0, 1, HI] == 1 and st.pile[0, 1, st.pile_n[0, 1] - 1] == card(HI, 5)
    assert st.fan_n[0, 3].tolist() == [2, 0, 1]


def test_harmony_only_takes_cards_that_fit():
    hand = [card(MAI, 6, "C"), card(GUN, 7), card(HI, 7), card(GUN, 9), card(HI, 9)]
    st = make(4, [hand], {"powers": True})
    move_to_fan(st, 0, [card(MAI, 9, "C")])
    move_to_fan(st, 0, [card(HI, 1, "B"), card(HI, 2, "B")])  # Hi-ogi at 8
    move_to_pile(st, 1, [card(HI, 3, "B")])  # 4 sticks: does not fit
    options = []
    kinds = decisions_of_turn(st, Script(actions=(Action.PLAY + mask_of([0, 1, 2]),), orders=((0, 1, 2),)), options)
    # Harmony may take the Hi-ogi 7 just discarded onto the own pile (it closes the Hi-ogi fan at 8), never
    # seat 1's Hi-ogi 3 (4 sticks)
    assert kinds == [Decision.TURN, Decision.ARRANGE, Decision.HARMONY] and options[2] == [0]
    assert st.closed[0, 0, HI] and st.fan_n[0, 0, HI] == 3
    assert st.fan_power[0, 0, MAI] == 2
    assert st.pile_n[0, 1] == 1  # seat 1's pile untouched


@pytest.mark.parametrize("t, x, y", [(GUN, HI, MAI), (HI, GUN, MAI), (MAI, GUN, HI)])
def test_a_power_triggers_once(t, x, y):
    """A fan that already holds two power-symbol cards (its power has fired) takes a third: the power does
    not fire again, though it would have something to act on (a deck to draw from, a fitting pile top, an
    opponent's removable card)."""
    hand = [card(t, 6, "C"), card(x, 7), card(y, 7), card(x, 9), card(y, 9)]
    st = make(4, [hand], {"powers": True})
    move_to_fan(st, 0, [card(t, 9, "C"), card(t, 8, "C")])    # 1 + 2 sticks, two symbols
    move_to_fan(st, 1, [card(HI, 1), card(HI, 5)])              # removable by Courage
    move_to_pile(st, 2, [card(x, 9, "B")])                      # fits seat 0's fan: Harmony could take it
    assert st.fan_power[0, 0, t] == 2
    # 6 + 7 + 7: the 6C (3 sticks) and, for the pair, the first 7 are redeemed
    kinds = decisions_of_turn(st, Script(actions=(Action.PLAY + mask_of([0, 1, 2]),), orders=((0, 1, 2),)))
    assert kinds == [Decision.TURN, Decision.ARRANGE]
    assert st.fan_power[0, 0, t] == 3 and st.fan_n[0, 0, t] == 3 and st.fan_sticks[0, 0, t] == 6
    assert st.hand_n[0, 0] == 2 and st.fan_n[0, 1, HI] == 2 and st.pile_n[0, 2] == 1
    assert st.turns[0] == 1 and st.current[0] == 1


def test_courage_spares_closed_fans_and_offers_every_removable_fan():
    """Courage (3 players): seat 1 has a closed Hi-ogi fan (its last card bears no symbol) and two removable
    fans, seat 2 one. The options are exactly the two choices for seat 1 times the one for seat 2; stripping
    the closed fan is refused; the chosen cards go onto their owners' piles."""
    hand = [card(GUN, 6, "C"), card(HI, 7), card(MAI, 7), card(HI, 9), card(MAI, 9)]
    st = make(3, [hand], {"powers": True})
    move_to_fan(st, 0, [card(GUN, 8, "C")])                              # one Gun-sen symbol already
    move_to_fan(st, 1, [card(HI, 1), card(HI, 2), card(HI, 8)])          # 4 + 4 + 2: closed
    move_to_fan(st, 1, [card(GUN, 4), card(MAI, 5)])                     # removable
    move_to_fan(st, 2, [card(MAI, 3)])                                   # removable
    assert st.closed[0, 1, HI]
    assert ENG.step_one(st, 0, Action.PLAY + mask_of([0, 1, 2]))
    assert ENG.step_one(st, 0, 1 | (2 << 3) | (3 << 6))  # the 6C and the Hi-ogi 7 redeemed: Courage fires
    assert st.kind[0] == Decision.COURAGE
    ENG.check(st)
    ok = ENG.observe(st, np.array([0]), np.array([0])).courage_ok[0]
    assert ok.tolist() == [[False] * 3, [True, False, True], [False, False, True]]
    code = lambda t1, t2: (t1 + 1) << 2 | (t2 + 1) << 4  # noqa: E731 (courage_option of seats 1 and 2)
    assert sorted(ENG.legal_options(st, 0).tolist()) == sorted([code(GUN, MAI), code(MAI, MAI)])
    assert not ENG.step_one(st, 0, code(HI, MAI))         # the closed fan
    assert not ENG.step_one(st, 0, code(GUN, -1))         # seat 2 has a removable card: one must go
    assert ENG.step_one(st, 0, code(MAI, MAI))
    assert st.fan_n[0, 1].tolist() == [1, 3, 0] and st.closed[0, 1, HI] and st.fan_n[0, 2, MAI] == 0
    assert st.pile[0, 1, st.pile_n[0, 1] - 1] == card(MAI, 5) and st.pile[0, 2, st.pile_n[0, 2] - 1] == card(MAI, 3)
    assert st.turns[0] == 1
    ENG.check(st)


# ----- chosen fan -------------------------------------------------------------------------------------
def test_chosen_fan_blocks_other_closures_and_redraws():
    hand = [card(GUN, 7), card(HI, 7), card(MAI, 6), card(MAI, 9), card(HI, 9)]
    st = make(4, [hand], {"chosen_fan": True}, chosen=[[HI, GUN, GUN, MAI]])
    move_to_fan(st, 0, [card(GUN, 1, "B"), card(GUN, 4, "B"), card(GUN, 9, "B")])  # Gun-sen at 8
    # the Gun-sen 7 would close Gun-sen, but Hi-ogi is the chosen fan: unusable, discarded
    one_turn(st, Script(actions=(Action.PLAY + mask_of([0, 1, 2]),), orders=((2, 0, 1),)))
    assert st.fan_sticks[0, 0, GUN] == 8 and not st.closed[0, 0].any()
    assert st.pile[0, 0, st.pile_n[0, 0] - 1] == card(GUN, 7)
    # seat 1 must close Gun-sen first: closing it draws a new chosen fan of another type
    hand1 = [card(GUN, 7, "C"), card(HI, 7, "C"), card(MAI, 6, "C"), card(MAI, 9, "C"), card(HI, 9, "C")]
    st = make(4, [hand, hand1], {"chosen_fan": True}, chosen=[[HI, GUN, GUN, MAI]])
    move_to_fan(st, 1, [card(GUN, 1, "B"), card(GUN, 4, "B"), card(GUN, 9, "B")])
    st.current[0] = 1
    one_turn(st, Script(actions=(Action.PLAY + mask_of([0, 1, 2]),), orders=((2, 0, 1),)))
    assert st.closed[0, 1, GUN] and st.chosen[0, 1] in (HI, MAI)


def test_chosen_fan_deck_is_conserved_in_play():
    agents = [ENG_random()] * 5
    ENG.play(np.arange(40), 5, ENG.make_rules({"chosen_fan": True, "powers": True}), agents, root_key(4), check=True)


# ----- solo -------------------------------------------------------------------------------------------
def test_solo_combination_from_places_and_scoring():
    keys = game_keys(root_key(0), np.array([0]))
    cards = [int(c) for c in deck_cards(1)]
    st = ENG.new_state(keys, 1, ENG.make_rules(), deck=np.array([cards]))
    # draw three cards onto columns 1..3 and play them if they make 20
    st.deck[0] = -1
    order = [card(GUN, 9), card(HI, 6), card(MAI, 5)] + [c for c in cards if c not in (card(GUN, 9), card(HI, 6), card(MAI, 5))]
    st.deck[0, :27] = list(reversed(order))
    for col in (1, 2, 3):
        assert decisions_of_turn(st, Script(actions=(Action.DRAW, col))) == [Decision.SOLO_TURN, Decision.PLACE]
    assert st.col_n[0].tolist() == [1, 1, 1, 0]
    obs = ENG.observe(st, np.array([0]), np.array([0]))
    assert obs.combos[0, 0b1110] and obs.combos[0].sum() == 1
    assert decisions_of_turn(st, Script(actions=(Action.PLAY + 0b1110,))) == [Decision.SOLO_TURN, Decision.ARRANGE]
    # the 6 (3 sticks) is redeemed; 9 and 5 go onto the pile
    assert st.fan_sticks[0, 0].tolist() == [0, 3, 0] and st.pile_n[0, 0] == 2 and st.turns[0] == 4
    out = ENG.outcome(st)
    assert out["score"][0, 0] == 3 and out["win"].shape == (1, 0) and out["level"][0, 0] == 1


def test_solo_score_counts_the_deck_only_with_three_closed_fans():
    keys = game_keys(root_key(0), np.array([0, 1]))
    st = ENG.new_state(keys, 1, ENG.make_rules())
    st.fan_sticks[:, 0] = 10
    st.closed[:, 0] = True
    st.closed[1, 0, 2] = False
    st.fan_sticks[1, 0, 2] = 9
    out = ENG.outcome(st)
    deck_sticks = st.ST[st.deck[0].astype(np.int64)].sum()
    assert out["score"][0, 0] == 30 + deck_sticks
    assert out["score"][1, 0] == 29
    assert LEVELS[int(np.argmax(out["level"][1]))] == "Apprentice"
    assert LEVELS[int(np.argmax(out["level"][0]))] == "Grandmaster"


def test_solo_end_and_levels():
    agents = [ENG_random()]
    out = ENG.play(np.arange(200), 1, ENG.make_rules(), agents, root_key(2), check=True)
    assert not out["timeout"].any() and (out["level"].sum(1) == 1).all()
    lv = np.clip((out["score"][:, 0].astype(int) - 15) // 5, 0, 5)
    assert (np.argmax(out["level"], 1) == lv).all()
    m = ENG.metrics({k: np.asarray(v, float).sum(0) for k, v in out.items()}, 200, 1, ENG.make_rules())
    assert set(m["level_share"]) == set(LEVELS) and abs(sum(m["level_share"].values()) - 1) < 1e-9
    assert m["mean_score"] == pytest.approx(out["score"].mean())
    with pytest.raises(SenseiError):
        ENG.validate(1, ENG.make_rules({"powers": True}))


def solo_state(columns, pile, deck):
    """A solo game with the given column ends (one card per column), pile (bottom first) and deck (top last)."""
    keys = game_keys(root_key(0), np.array([0]))
    st = ENG.new_state(keys, 1, ENG.make_rules())
    st.deck[0] = -1
    st.deck[0, :len(deck)] = deck
    st.deck_n[0] = len(deck)
    for i, c in enumerate(columns):
        st.columns[0, i, 0] = c
        st.col_n[0, i] = 1
    st.pile[0, 0, :len(pile)] = pile
    st.pile_n[0, 0] = len(pile)
    ENG.check(st)
    return st


def test_solo_ends_when_the_deck_is_empty_and_nothing_is_played():
    solo = [int(c) for c in deck_cards(1)]
    nine, six, five, one = card(GUN, 9), card(HI, 6), card(MAI, 5), card(GUN, 1)
    rest = [c for c in solo if c not in (nine, six, five, one)]
    # the last card drawn leaves no combination among the exposed cards: the game is over at once
    st = solo_state([], rest + [nine, six, five], [one])
    assert decisions_of_turn(st, Script(actions=(Action.DRAW, 1))) == [Decision.SOLO_TURN, Decision.PLACE]
    assert st.done[0] and st.turns[0] == 1 and st.deck_n[0] == 0
    assert ENG.outcome(st)["timeout"].tolist() == [False]
    st = solo_state([nine, six, one], rest + [five], [])  # a combination (5 + 9 + 6) waits, the deck is empty
    assert not st.done[0] and ENG.legal_options(st, 0).tolist() == [Action.DRAW, Action.PLAY + 0b111]
    # drawing from the empty deck ends the game, and that choice is not a turn
    assert decisions_of_turn(st, Script(actions=(Action.DRAW,))) == [Decision.SOLO_TURN]
    assert st.done[0] and st.turns[0] == 0
