"""Senshi rule fidelity: the rulebook's worked examples and the rulings, as scripted deals and positions."""
import re

import numpy as np
import pytest

from simcore.errors import IllegalAction
from simcore.game import Seats
from simcore.games.senshi import (COLOURS, GONE, MIDDLE, OPTION_STRIDE, REMOVED, STACKS, Decision, Kind, Senshi, SenshiRules,
                                  winners)
from simcore.rng import game_keys, root_key

R, G, Y, B = 0, 1, 2, 3          # Strength (red), Agility (green), Honor (yellow), Wisdom (blue)
STUDY, TRAIN, TEST, PASS = Kind.STUDY, Kind.TRAIN, Kind.TEST, Kind.PASS


def deal_for(players, first):
    """A deal whose first stacks (top first) are given; the remaining tiles follow colour by colour."""
    left = [18 - REMOVED[players]] * 4
    for stack in first:
        for c in stack:
            left[c] -= 1
    rest = [c for c in range(4) for _ in range(left[c])]
    stacks = [list(s) for s in first] + [rest[i:i + 3] for i in range(0, len(rest), 3)]
    assert len(stacks) == STACKS[players]
    return np.array(stacks, dtype=np.int8)[None]


class Script:
    """A strategy for a batch of one game answering from a list: set-up stack, then (kind, arg) per turn."""

    def __init__(self, setup=None, acts=()):
        self.setup = setup
        self.acts = list(acts)
        self.seen = []

    def spec(self):
        return "script"

    def setup_take(self, obs, rng):
        return np.array([self.setup])

    def act(self, obs, rng):
        self.seen.append(obs)
        k, a = self.acts.pop(0)
        return np.array([int(k)]), np.array([a])


def play_setup(eng, st, seats):
    """The set-up decisions (one per seat, in seat order; they are not turns)."""
    while True:
        idx = np.flatnonzero(st.kind == Decision.SETUP)
        if not len(idx):
            return
        assert (st.turns[idx] == 0).all()
        eng.step_games(st, idx, seats)
        eng.check(st)


def scripted(players, first, scripts, **rules):
    eng = Senshi()
    keys = game_keys(root_key(0), np.arange(1))
    st = eng.new_state(keys, players, SenshiRules(**rules), deal=deal_for(players, first))
    seats = Seats(scripts, keys)
    play_setup(eng, st, seats)
    eng.check(st)
    return eng, st, seats


def step(eng, st, seats, k=1):
    for _ in range(k):
        eng.turn(st, np.flatnonzero(~st.done), seats)
        eng.check(st)


def result(piles, hands, emptier):
    res = winners(np.array([piles]), np.array([hands]), np.array([emptier]))
    return [bool(x) for x in res["eliminated"][0]], bool(res["nobody"][0]), int(res["winner"][0])


# ----- set-up ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("players,removed,stacks,middle", [(2, 6, 16, 14), (3, 3, 20, 17), (4, 0, 24, 20)])
def test_tile_removal_and_stack_counts(players, removed, stacks, middle):
    eng = Senshi()
    st = eng.new_state(game_keys(root_key(1), np.arange(50)), players, SenshiRules())
    assert REMOVED[players] == removed and st.loc.shape == (50, stacks)
    for c in range(4):
        assert ((st.tiles == c).sum(axis=(1, 2)) == 18 - removed).all()
    assert (st.mid_count == stacks).all()
    seats = Seats([Script(setup=p) for p in range(players)], game_keys(root_key(1), np.arange(1)))
    st1 = eng.new_state(game_keys(root_key(1), np.arange(1)), players, SenshiRules())
    assert st1.kind[0] == Decision.SETUP and st1.cur[0] == 0
    play_setup(eng, st1, seats)
    assert st1.kind[0] == Decision.ACT and st1.cur[0] == 0
    assert st1.mid_count[0] == middle and (st1.hand_size[0] == 3).all() and st1.turns[0] == 0
    # each set-up stack went to its chooser; the other players know only its top tile
    for p in range(players):
        assert st1.loc[0, p] == GONE
        assert st1.hand[0, p].tolist() == np.bincount(st1.tiles[0, p], minlength=4).tolist()
        assert st1.known[0, p].sum() == 1 and st1.known[0, p, st1.tiles[0, p, 0]] == 1
    eng.check(st1)


def test_secret_hand_variant_deals_three_hidden_tiles():
    eng = Senshi()
    st = eng.new_state(game_keys(root_key(2), np.arange(20)), 3, SenshiRules(secret_hand=True))
    assert (st.hand_size == 3).all() and (st.known == 0).all() and (st.mid_count == 17).all()
    assert (st.kind == Decision.ACT).all() and (st.cur == 0).all()   # no set-up decision
    eng.check(st)


def test_setup_choice_must_be_a_middle_stack():
    with pytest.raises(IllegalAction, match=r"strategy script \(seat 1\) made an illegal setup_take: option 0 "
                       r"\(the legal options there: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, \.\.\. \(15 in all\)\)$"):
        scripted(2, [], [Script(setup=0), Script(setup=0)])
    with pytest.raises(IllegalAction, match=r"\(seat 0\) made an illegal setup_take: option 99 \(the legal options there: [\d, .()a-z]+\)$"):
        scripted(2, [], [Script(setup=99), Script(setup=1)])


# ----- actions ----------------------------------------------------------------------------------------
def test_study_limit_example():
    # Yoshihisa (seat 1) takes a third stack; he cannot Study again until one of them is empty.
    kaito = Script(setup=0, acts=[(TRAIN, 10), (TRAIN, 10), (TRAIN, 10), (TRAIN, 4)])
    yoshi = Script(setup=1, acts=[(STUDY, 2), (STUDY, 3), (STUDY, 4)])
    eng, st, seats = scripted(2, [], [kaito, yoshi])
    step(eng, st, seats, 6)
    assert st.card_count[0, 1] == 3 and st.cards[0, 1].tolist() == [2, 3, 4]
    obs = eng.observe(st, np.array([0]), np.array([1]))
    assert not obs.can_study.any() and obs.kinds[0].tolist() == [False, False, True, True]
    yoshi.acts.append((STUDY, 5))
    with pytest.raises(IllegalAction, match=rf"illegal act: option {STUDY * OPTION_STRIDE + 5} \(Study stack 5\) "
                       r"\(the legal options there: 66 \(Train stack 2\), 67 \(Train stack 3\), [\w, .()]*\)$"):
        step(eng, st, seats, 2)


def test_emptied_card_stack_frees_the_slot():
    kaito = Script(setup=0, acts=[(TRAIN, 3), (TRAIN, 3), (TRAIN, 3)])
    yoshi = Script(setup=1, acts=[(STUDY, 2), (STUDY, 3), (STUDY, 4), (STUDY, 5)])
    eng, st, seats = scripted(2, [], [kaito, yoshi])
    # Kaito trains Yoshihisa's second stack away tile by tile, between Yoshihisa's Studies
    step(eng, st, seats, 1)   # Kaito trains stack 3 while it is still in the middle
    step(eng, st, seats, 1)   # Yoshihisa studies 2
    step(eng, st, seats, 1)   # Kaito trains 3 again (middle)
    step(eng, st, seats, 1)   # Yoshihisa studies 3 (1 tile left)
    step(eng, st, seats, 1)   # Kaito trains its last tile from Yoshihisa's card: the stack is removed
    assert st.loc[0, 3] == GONE and st.card_count[0, 1] == 1 and st.cards[0, 1].tolist() == [2, -1, -1]
    step(eng, st, seats, 1)   # Yoshihisa studies 4
    assert st.cards[0, 1].tolist() == [2, 4, -1]


def test_train_example_from_middle_and_from_another_card():
    # Masamune (seat 0) trains from the middle; Tomoe (seat 1) then trains from Masamune's stack.
    masamune = Script(setup=0, acts=[(STUDY, 2), (TRAIN, 5)])
    tomoe = Script(setup=1, acts=[(STUDY, 3), (TRAIN, 2)])
    eng, st, seats = scripted(2, [[R, G, G], [Y, Y, Y], [B, R, G], [G, G, G], [R, R, R], [Y, B, B]],
                              [masamune, tomoe])
    step(eng, st, seats, 2)
    before = st.hand[0].copy()
    step(eng, st, seats, 1)                      # Masamune trains the yellow top of middle stack 5
    assert (st.hand[0, 0] - before[0]).tolist() == [0, 0, 1, 0]
    assert st.height[0, 5] == 2 and st.top[0, 5] == B and st.loc[0, 5] == MIDDLE
    step(eng, st, seats, 1)                      # Tomoe trains the blue top of Masamune's stack 2
    assert (st.hand[0] - before).tolist() == [[0, 0, 1, 0], [0, 0, 0, 1]]
    assert st.top[0, 2] == R and st.card_tops[0, 0].tolist() == [1, 0, 0, 0]
    # trained tiles are public: Tomoe's blue is known to everyone
    assert st.known[0, 1, B] == 1


def test_test_example_other_player_moves_two_tiles():
    # Himari (seat 1) Tests a blue tile. She has one stack with a blue top: both go to her Wisdom pile.
    # Yoshihisa (seat 2) has two stacks with blue tops and moves both, on Himari's turn; his stack [B, B, Y]
    # gives only its top tile. Kaito (seat 0) has a red top and gets nothing.
    first = [[R, R, R], [B, G, G], [Y, Y, Y],        # the three hands
             [R, G, Y], [B, G, R], [B, B, Y], [B, R, R]]
    kaito = Script(setup=0, acts=[(STUDY, 3), (TRAIN, 19), (TRAIN, 19)])
    himari = Script(setup=1, acts=[(STUDY, 4), (TRAIN, 7), (TEST, B)])
    yoshi = Script(setup=2, acts=[(STUDY, 5), (STUDY, 6)])
    eng, st, seats = scripted(3, first, [kaito, himari, yoshi])
    step(eng, st, seats, 6)
    assert st.card_tops[0, 2, B] == 2 and st.card_tops[0, 1, B] == 1
    step(eng, st, seats, 1)                      # Kaito trains from the middle
    hand = st.hand[0, 1].copy()
    step(eng, st, seats, 1)                      # Himari Tests blue
    assert st.piles[0, 1].tolist() == [0, 0, 0, 2]
    assert st.piles[0, 2].tolist() == [0, 0, 0, 2]
    assert st.piles[0, 0].tolist() == [0, 0, 0, 0]
    assert st.top[0, 5] == B and st.height[0, 5] == 2      # the second blue of [B, B, Y] stays
    assert st.top[0, 6] == R and st.top[0, 4] == G
    assert (hand - st.hand[0, 1]).tolist() == [0, 0, 0, 1]
    assert st.turns[0] == 8


def test_illegal_actions_are_refused():
    cases = [
        ((TEST, B), TEST * OPTION_STRIDE + B, f"option {TEST * OPTION_STRIDE + B} (Test {COLOURS[B]})"),  # not in hand: seat 0 holds [R, R, R]
        ((TRAIN, 0), TRAIN * OPTION_STRIDE, f"option {TRAIN * OPTION_STRIDE} (Train stack 0)"),  # stack 0 went to a hand
        ((STUDY, 20), STUDY * OPTION_STRIDE + 20, f"option {STUDY * OPTION_STRIDE + 20} (Study stack 20)"),  # no such stack
        ((STUDY, 99), None, None),                # not even an option code: the answer itself is named
        ((PASS, 0), 0, "option 0 (pass)"),        # a pass with a legal action
        ((7, 0), None, None),                     # unknown action kind
        ((TEST, 4), TEST * OPTION_STRIDE + 4, f"option {TEST * OPTION_STRIDE + 4}"),    # no such colour
    ]
    for act, code, words in cases:
        eng, st, seats = scripted(2, [[R, R, R]], [Script(setup=0, acts=[act]), Script(setup=1)])
        before = st.copy()
        said = (rf"{re.escape(words)} \(the legal options there: [\w, .()]+\)" if code is not None else
                rf"\(kind, argument\) = \({act[0]}, {act[1]}\) \(kinds 0..{TEST}, arguments 0..{OPTION_STRIDE - 1}\)")
        with pytest.raises(IllegalAction, match=rf"^strategy script \(seat 0\) made an illegal act: {said}$"):
            step(eng, st, seats)
        for f, v in vars(before).items():   # nothing changed
            if isinstance(v, np.ndarray):
                np.testing.assert_array_equal(v, getattr(st, f), err_msg=f)


# ----- end of the game ----------------------------------------------------------------------------------
class Drain:
    """Test strategy: Train the lowest middle stack, but Study the middle's last stack when allowed; with
    the middle empty, Test the lowest colour in hand, else Train the first stack anywhere, else pass."""

    def __init__(self):
        self.log = []

    def spec(self):
        return "drain"

    def setup_take(self, obs, rng):
        return np.argmax(obs.loc == MIDDLE, axis=1)

    def act(self, obs, rng):
        self.log.append((int(obs.turns[0]), int(obs.me[0]), int(obs.mid_count[0])))
        mid = obs.loc == MIDDLE
        first_mid = np.argmax(mid, axis=1)
        last = (obs.mid_count == 1) & obs.can_study.any(axis=1)
        kind = np.where(last, int(STUDY), int(TRAIN))
        arg = first_mid.copy()
        empty = obs.mid_count == 0
        has = obs.hand.sum(axis=1) > 0
        kind = np.where(empty & has, int(TEST), kind)
        arg = np.where(empty & has, np.argmax(obs.hand > 0, axis=1), arg)
        anywhere = np.argmax(obs.can_train, axis=1)
        kind = np.where(empty & ~has, int(TRAIN), kind)
        arg = np.where(empty & ~has, anywhere, arg)
        kind = np.where(obs.must_pass, int(PASS), kind)
        return kind, arg


def test_end_of_game_example_final_round():
    # Seating clockwise: Kaito 0, Tomoe 1, Yoshihisa 2, Himari 3. The Drain players train 19 middle
    # stacks away (57 turns); turn 58 is Tomoe's, who Studies the last stack. Yoshihisa, Himari, Kaito
    # then take one more turn each and Tomoe ends the game.
    agent = Drain()
    eng, st, seats = scripted(4, [], [agent] * 4)
    while not st.done[0]:
        step(eng, st, seats)
    log = agent.log
    assert log[57][:2] == (57, 1) and log[57][2] == 1
    assert st.emptier[0] == 1
    assert [who for _, who, _ in log[58:]] == [2, 3, 0, 1]
    assert st.turns[0] == 62 and len(log) == 62


def test_final_round_turn_order_in_random_games():
    from strategies.senshi import Random
    eng = Senshi()
    for players in (2, 3, 4):
        ids = np.arange(200)
        trig = np.full(len(ids), -1)
        seq = []

        def hook(state):
            newly = (state.remaining >= 0) & (trig < 0)
            trig[newly] = state.turns[newly]
            seq.append((state.turns.copy(), state.cur.copy(), state.done.copy()))

        out = eng.play(ids, players, SenshiRules(), [Random()] * players, root_key(4), check=True, on_turn=hook)
        assert (trig > 0).all()
        # exactly P turns after the emptying turn, and the emptier is the player of that turn
        assert (out["turns"] == trig + players).all()
        last_turns, _, _ = seq[-1]
        assert (last_turns == trig + players).all()


# ----- victory -------------------------------------------------------------------------------------------
def test_victory_example_1():
    # Kaito 7,4,3,3 (eliminated: smallest pile 3); Himari 5,4,4,4; Yoshihisa 6,5,4,4 wins with 6
    elim, nobody, win = result([[7, 4, 3, 3], [5, 4, 4, 4], [6, 5, 4, 4]], [0, 0, 0], 2)
    assert elim == [True, False, False] and not nobody and win == 2


def test_victory_example_2():
    # all tied for the smallest pile (3): nobody eliminated; Kaito's 7 wins
    elim, nobody, win = result([[7, 4, 3, 3], [5, 4, 4, 3], [6, 5, 4, 3]], [0, 0, 0], 2)
    assert elim == [False, False, False] and nobody and win == 0


def test_victory_example_3_ties_on_hand_then_turn_order():
    # The rulebook's seating (its end-of-game example): Kaito 0, Tomoe 1, Yoshihisa 2, Himari 3 in turn order.
    # Kaito, Yoshihisa and Himari tie for the tallest pile; Tomoe holds the shortest and is out. Hands:
    # Kaito 2, Himari 2, Yoshihisa 0. The rulebook does not say who emptied the middle; Himari's final turn
    # comes after Kaito's, as its example has it, only where she emptied it herself: the final turns then run
    # Kaito, Tomoe, Yoshihisa, Himari, and she wins.
    piles = [[6, 3, 3, 2], [5, 5, 5, 1], [6, 5, 5, 2], [6, 4, 2, 2]]
    hands = [2, 4, 0, 2]
    elim, nobody, win = result(piles, hands, 3)
    assert elim == [False, True, False, False] and win == 3
    # with anyone else emptying it (Tomoe, as in the end-of-game example) Kaito's final turn comes later
    assert [result(piles, hands, e)[2] for e in range(4)] == [0, 0, 0, 3]
    # a larger hand beats turn order
    assert result(piles, [2, 4, 0, 3], 1)[2] == 3 and result(piles, [3, 4, 0, 2], 3)[2] == 0
    # which tie-break decided: hands here (three tied for the tallest), then the order (two with most tiles)
    res = winners(np.array([piles]), np.array([hands]), np.array([3]))
    assert res["by_hand"][0] and res["by_order"][0]
    res = winners(np.array([piles]), np.array([[2, 4, 0, 3]]), np.array([3]))
    assert res["by_hand"][0] and not res["by_order"][0]        # hands alone decide
    res = winners(np.array([[[7, 4, 3, 3], [5, 4, 4, 4], [6, 5, 4, 4]]]), np.array([[0, 0, 0]]), np.array([2]))
    assert not res["by_hand"][0] and not res["by_order"][0]    # one tallest pile: no tie-break


def test_two_players_whoever_is_not_eliminated_wins():
    assert result([[9, 9, 9, 0], [1, 1, 1, 1]], [0, 0], 0)[2] == 1
    elim, nobody, win = result([[9, 1, 1, 1], [3, 3, 3, 1]], [0, 5], 0)
    assert nobody and win == 0


def test_every_smallest_pile_holder_is_eliminated():
    elim, nobody, win = result([[1, 5, 5, 5], [1, 9, 9, 9], [2, 2, 2, 3], [4, 2, 2, 2]], [0, 0, 0, 0], 0)
    assert elim == [True, True, False, False] and win == 3   # the 9s of seat 1 do not count


def test_outcome_columns_from_a_finished_position():
    eng = Senshi()
    st = eng.new_state(game_keys(root_key(0), np.arange(1)), 3, SenshiRules())
    # a position built by hand: empty the table into piles and hands keeping 15 tiles of each colour
    st.loc[:] = GONE
    st.height[:] = 0
    st.top[:] = -1
    st.mid_count[:] = 0
    piles = np.array([[7, 4, 3, 3], [4, 4, 4, 5], [4, 5, 8, 7]])
    st.piles[0] = piles
    st.hand[0] = 15 - piles                       # what is not in a pile is in a hand (by colour)
    st.hand[0, 0] = [0, 0, 0, 0]
    st.hand[0, 1] = [0, 0, 0, 0]
    st.hand[0, 2] = 15 - piles.sum(axis=0)
    st.hand_size[0] = st.hand[0].sum(axis=1)
    st.remaining[:] = 0
    st.emptier[:] = 2
    st.turns[:] = 30
    st.cur[:] = 0
    st.kind[:] = Decision.ACT
    st.done[:] = True
    eng.check(st)
    out = eng.outcome(st)
    assert out["eliminated"][0].tolist() == [1, 0, 0]
    assert out["win"][0].tolist() == [0, 0, 1]
    assert out["winning_pile"][0] == 8 and out["nobody_eliminated"][0] == 0
    assert out["score"][0].tolist() == [3, 4, 4] and out["max_pile"][0].tolist() == [7, 5, 8]
    assert out["n_eliminated"][0] == 1 and out["tallest_eliminated"][0] == 0


# ----- victory through the engine's own outcome (``Senshi.outcome``, the compiled ``_k_outcome``) --------
KAITO, HIMARI, YOSHIHISA = 0, 1, 2   # examples 1 and 2: three players


def ended(piles, hands, emptier, rest_to):
    """A finished position built by hand, as the engine leaves one: the middle and every card empty, the
    final round played (the seat after ``emptier`` to play, as after ``emptier``'s final turn). ``piles``
    (P,4) by colour; ``hands`` {seat: (4,) by colour}; every tile not in a pile or one of those hands is in
    seat ``rest_to``'s hand."""
    piles = np.array(piles)
    P = len(piles)
    eng = Senshi()
    st = eng.new_state(game_keys(root_key(0), np.arange(1)), P, SenshiRules())
    st.loc[:] = GONE
    st.height[:] = 0
    st.top[:] = -1
    st.mid_count[:] = 0
    st.piles[0] = piles
    hand = np.zeros((P, 4), dtype=np.int64)
    for p, h in hands.items():
        hand[p] = h
    rest = 18 - REMOVED[P] - piles.sum(axis=0) - hand.sum(axis=0)
    assert (rest >= 0).all(), "more tiles than the game has"
    hand[rest_to] += rest
    st.hand[0] = hand
    st.hand_size[0] = hand.sum(axis=1)
    st.remaining[:] = 0
    st.emptier[:] = emptier
    st.turns[:] = 10 * P + (emptier + 1) % P     # the emptier's final turn was the last one
    st.cur[:] = (emptier + 1) % P
    st.kind[:] = Decision.ACT
    st.done[:] = True
    eng.check(st)
    return eng.outcome(st)


def test_engine_victory_example_1():
    # Kaito 7,4,3,3, Himari 5,4,4,4, Yoshihisa 6,5,4,4: Kaito (smallest pile 3) is out, though his 7 is the
    # table's tallest pile and he holds every tile left; Yoshihisa's 6 wins
    out = ended([[7, 4, 3, 3], [4, 5, 4, 4], [4, 6, 5, 4]], {}, emptier=YOSHIHISA, rest_to=KAITO)
    assert out["hand"][0].tolist() == [7, 0, 0]
    assert out["eliminated"][0].tolist() == [1, 0, 0] and out["nobody_eliminated"][0] == 0
    assert out["win"][0].tolist() == [0, 0, 1] and out["winning_pile"][0] == 6
    assert out["score"][0].tolist() == [3, 4, 4] and out["max_pile"][0].tolist() == [7, 5, 6]
    assert out["n_eliminated"][0] == 1 and out["tallest_eliminated"][0] == 1
    assert out["tie_hand"][0] == 0 and out["tie_order"][0] == 0


def test_engine_victory_example_2():
    # Kaito 7,4,3,3, Himari 5,4,4,3, Yoshihisa 6,5,4,3: all tied for the smallest pile (3), nobody is out;
    # Kaito's 7 wins (Himari's larger hand does not count: no tie for the largest pile)
    out = ended([[7, 4, 3, 3], [4, 5, 4, 3], [4, 6, 5, 3]], {}, emptier=HIMARI, rest_to=HIMARI)
    assert out["hand"][0].tolist() == [0, 9, 0]
    assert out["eliminated"][0].tolist() == [0, 0, 0] and out["nobody_eliminated"][0] == 1
    assert out["n_eliminated"][0] == 0
    assert out["win"][0].tolist() == [1, 0, 0] and out["winning_pile"][0] == 7
    assert out["tie_hand"][0] == 0 and out["tie_order"][0] == 0


# Example 3, four players seated as the rulebook's end-of-game example seats them (Tomoe, Yoshihisa, Himari,
# Kaito in turn order): Kaito, Yoshihisa and Himari tie for the tallest pile (6) and none holds the shortest;
# Tomoe holds it and is out. Kaito and Himari hold 2 tiles, Yoshihisa none.
K4, T4, Y4, H4 = 0, 1, 2, 3
EX3_PILES = [[6, 3, 3, 2], [5, 5, 5, 1], [5, 2, 6, 5], [2, 6, 2, 4]]


def example_3(kaito_hand, himari_hand, emptier):
    return ended(EX3_PILES, {K4: kaito_hand, H4: himari_hand, Y4: [0, 0, 0, 0]}, emptier, rest_to=T4)


def test_engine_victory_example_3():
    # the rulebook does not say who emptied the middle: "Himari went later in the turn order" holds where she
    # emptied it herself (the final turns ran Kaito, Tomoe, Yoshihisa, Himari), and she wins
    out = example_3([0, 2, 0, 0], [0, 0, 2, 0], emptier=H4)
    assert [out["hand"][0, s] for s in (K4, H4, Y4)] == [2, 2, 0]
    assert out["eliminated"][0].tolist() == [0, 1, 0, 0] and out["nobody_eliminated"][0] == 0
    assert out["max_pile"][0].tolist() == [6, 5, 6, 6]
    assert out["win"][0].tolist() == [0, 0, 0, 1] and out["winning_pile"][0] == 6
    assert out["tie_hand"][0] == 1 and out["tie_order"][0] == 1


def test_engine_tie_break_hand_size_before_turn_order():
    # the same piles, Kaito with 3 tiles against Himari's 2: the larger hand wins, whoever played last
    for emptier in range(4):
        out = example_3([0, 2, 0, 1], [0, 0, 2, 0], emptier)
        assert out["win"][0].tolist() == [1, 0, 0, 0], emptier
        assert out["tie_hand"][0] == 1 and out["tie_order"][0] == 0
    # an eliminated player's hand does not take part: Tomoe holds the most tiles and still loses
    out = example_3([0, 0, 0, 1], [0, 0, 0, 0], T4)
    assert out["hand"][0, T4] > out["hand"][0, K4] and out["win"][0].tolist() == [1, 0, 0, 0]


@pytest.mark.parametrize("emptier,winner", [(K4, K4), (T4, K4), (Y4, K4), (H4, H4)])
def test_engine_tie_break_turn_order(emptier, winner):
    # Kaito and Himari tie on pile and hand: the one whose final turn came later wins. The final turns run
    # from the seat left of the emptier round to the emptier, who plays last of all.
    out = example_3([0, 2, 0, 0], [0, 0, 2, 0], emptier)
    assert out["win"][0].argmax() == winner and out["win"][0].sum() == 1
    assert out["tie_hand"][0] == 1 and out["tie_order"][0] == 1


@pytest.mark.parametrize("emptier", range(4))
def test_engine_three_way_turn_order_tie(emptier):
    # all three survivors tie on pile and hand: the latest final turn among them wins
    out = ended(EX3_PILES, {K4: [0, 1, 0, 0], H4: [0, 0, 1, 0], Y4: [0, 0, 0, 1]}, emptier, rest_to=T4)
    order = [(emptier + 1 + i) % 4 for i in range(4)]       # the final turns, the emptier last
    expect = [p for p in order if p != T4][-1]
    assert out["win"][0].argmax() == expect
    assert out["tie_order"][0] == 1


def test_engine_agrees_with_winners_on_examples():
    # the numpy winners() and the engine's outcome decide the same games
    cases = [([[7, 4, 3, 3], [4, 5, 4, 4], [4, 6, 5, 4]], {}, 2, 0),
             ([[7, 4, 3, 3], [4, 5, 4, 3], [4, 6, 5, 3]], {}, 1, 1)]
    cases += [(EX3_PILES, {K4: [0, 2, 0, 0], H4: [0, 0, 2, 0], Y4: [0, 0, 0, 0]}, e, T4) for e in range(4)]
    for piles, hands, emptier, rest_to in cases:
        out = ended(piles, hands, emptier, rest_to)
        res = winners(np.array([piles]), out["hand"].astype(np.int64), np.array([emptier]))
        assert int(out["win"][0].argmax()) == int(res["winner"][0])
        assert out["eliminated"][0].astype(bool).tolist() == res["eliminated"][0].tolist()


# ----- a pass is a turn ------------------------------------------------------------------------------------
def final_round(players, hands, emptier, remaining):
    """A position in the final round: the middle and every card empty, ``remaining`` final turns left after
    ``emptier`` emptied the middle; ``hands`` (P,4) by colour (the tiles not in a hand are in seat piles)."""
    eng = Senshi()
    keys = game_keys(root_key(0), np.arange(1))
    st = eng.new_state(keys, players, SenshiRules())
    hands = np.array(hands)
    per = 18 - REMOVED[players]
    st.loc[:] = GONE
    st.height[:] = 0
    st.top[:] = -1
    st.mid_count[:] = 0
    st.hand[0] = hands
    st.known[0] = hands
    st.hand_size[0] = hands.sum(axis=1)
    left = per - hands.sum(axis=0)                 # every other tile on the piles, spread over the seats
    for c in range(4):
        for i in range(left[c]):
            st.piles[0, i % players, c] += 1
    played = players - remaining                    # final turns already played
    cur = (emptier + 1 + played) % players
    st.emptier[:] = emptier
    st.remaining[:] = remaining
    st.turns[:] = 10 * players + cur
    st.cur[:] = cur
    st.kind[:] = Decision.ACT
    eng.check(st)
    return eng, st, keys


def test_a_pass_is_a_turn_and_uses_up_a_final_turn():
    # 3 players, seat 2 emptied the middle; final turns: seat 0, seat 1, seat 2. Nothing is on the table;
    # seat 0's hand is empty, so it must pass: the pass counts as its turn and its final turn.
    eng, st, keys = final_round(3, [[0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]], emptier=2, remaining=3)
    assert eng.legal_options(st, np.array([0]))[0].tolist() == [0]      # only a pass
    seats = Seats([Script(acts=[(PASS, 0)]), Script(acts=[(TEST, R)]), Script(acts=[(PASS, 0)])], keys)
    turns = int(st.turns[0])
    step(eng, st, seats)                    # seat 0 passes
    assert st.turns[0] == turns + 1 and st.remaining[0] == 2 and st.cur[0] == 1 and not st.done[0]
    step(eng, st, seats)                    # seat 1 Tests its last tile
    assert st.turns[0] == turns + 2 and st.remaining[0] == 1 and st.cur[0] == 2 and not st.done[0]
    assert eng.legal_options(st, np.array([0]))[0].tolist() == [0]
    step(eng, st, seats)                    # seat 2, the emptier, passes: its final turn ends the game
    assert st.turns[0] == turns + 3 and st.remaining[0] == 0 and st.done[0]
    assert eng.outcome(st)["turns"][0] == turns + 3


def test_passes_alone_end_the_final_round():
    # nobody can do anything but pass: every final turn is a pass, and after the emptier's the game is over
    for players in (2, 3, 4):
        for emptier in range(players):
            eng, st, keys = final_round(players, np.zeros((players, 4), dtype=int), emptier, remaining=players)
            seats = Seats([Script(acts=[(PASS, 0)] * players)] * players, keys)   # one script: a pass each
            turns = int(st.turns[0])
            seen = []
            while not st.done[0]:
                seen.append(int(st.cur[0]))
                step(eng, st, seats)
            assert seen == [(emptier + 1 + i) % players for i in range(players)]
            assert st.turns[0] == turns + players and st.remaining[0] == 0


# ----- who sees what ------------------------------------------------------------------------------------

def test_compiled_view_hides_secret_hands():
    """Hands are private: with ``secret_hand`` and ``open_stacks`` the compiled view of seat 0 (whose
    ``stacks`` is the engine's tile array) must not show seat 1's hidden hand, so two deals that differ only
    in the hidden hands of seats 1 and 2 look the same to seat 0."""
    from simcore.games.senshi import observe

    rules = SenshiRules(secret_hand=True, open_stacks=True)
    eng = Senshi()
    keys = game_keys(root_key(0), np.arange(1))
    one = eng.new_state(keys, 3, rules, deal=deal_for(3, [[R, G, B], [R, R, R], [Y, Y, B]]))
    two = eng.new_state(keys, 3, rules, deal=deal_for(3, [[R, G, B], [Y, Y, B], [R, R, R]]))
    assert one.hand[0, 1].tolist() == [3, 0, 0, 0] and two.hand[0, 1].tolist() == [0, 0, 2, 1]
    for st in (one, two):
        eng.check(st)
    views = [observe(eng.state_tuple(st), eng.rules_tuple(st), 0, 0) for st in (one, two)]
    assert views[0].stacks.shape == (20, 3)          # open_stacks: the view holds every stack's tiles
    for f in ("board", "hand", "stacks"):
        np.testing.assert_array_equal(getattr(views[0], f), getattr(views[1], f), err_msg=f)
    # no row of the view holds a hidden hand: the hand stacks' rows are empty
    assert (views[0].stacks[:3] == -1).all()
    # and seat 0 still sees the stacks in play, every tile
    np.testing.assert_array_equal(views[0].stacks[3:], one.tiles[0, 3:])
    # the probe's observation carries the compiled view too
    a, b = eng.observe_all(one, np.array([0]), 0), eng.observe_all(two, np.array([0]), 0)
    for k in ("view_board", "view_hand", "view_stacks"):
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_without_open_stacks_the_compiled_views_stacks_are_unknown_tiles():
    """Without ``open_stacks`` the compiled view's ``stacks`` holds -1 (unknown) in every entry: it was an
    empty array, and a decision reading ``obs.stacks[s, 1]`` anyway read memory beyond it (caught only by
    ``sensei check --bounds``)."""
    from simcore.games.senshi import observe

    eng = Senshi()
    keys = game_keys(root_key(0), np.arange(2))
    st = eng.new_state(keys, 3, SenshiRules())
    view = observe(eng.state_tuple(st), eng.rules_tuple(st), 1, 0)
    assert view.stacks.shape == (st.tiles.shape[1], 3) and (view.stacks == -1).all()
    assert (st.tiles[1] >= 0).any()  # the engine's tiles are there, and the view shows none of them
    assert (eng.observe_all(st, np.array([0, 1]), 0)["view_stacks"] == -1).all()


def test_scramble_redeals_hand_rows_a_view_could_see():
    """The leak probe must catch a view that shows hidden hands: where a secret hand's stack row still held
    the dealt tiles (as the engine once left them), the scramble re-deals it with the hand, so a view
    showing it changes."""
    from simcore.rng import Draws

    rules = SenshiRules(secret_hand=True, open_stacks=True)
    eng = Senshi()
    n, P = 60, 3
    st = eng.new_state(game_keys(root_key(5), np.arange(n)), P, rules)
    assert (st.tiles[:, :P] == -1).all()             # the engine keeps no hand in a stack row
    draws = Draws(game_keys(root_key(6), np.arange(n)))
    clean = eng.scramble_hidden(st, 0, draws)
    np.testing.assert_array_equal(clean.tiles[:, :P], st.tiles[:, :P])
    # a state holding the dealt hands in their rows, as the engine once did
    old = st.copy()
    for p in range(P):
        for g in range(n):
            old.tiles[g, p] = np.repeat(np.arange(4), old.hand[g, p])
    eng.check(old)
    other = eng.scramble_hidden(old, 0, draws)
    eng.check(other)
    np.testing.assert_array_equal(other.tiles[:, 0], old.tiles[:, 0])       # my own hand's row stays
    for p in range(1, P):                                                    # the others' rows follow their hands
        for g in range(n):
            assert np.bincount(other.tiles[g, p], minlength=4).tolist() == other.hand[g, p].tolist()
    assert not np.array_equal(other.tiles[:, 1:P], old.tiles[:, 1:P])
    va, vb = eng.observe_all(old, np.arange(n), 0), eng.observe_all(other, np.arange(n), 0)
    assert not np.array_equal(va["view_stacks"], vb["view_stacks"])         # the probe sees the leak


def test_a_pass_is_refused_while_the_player_holds_tiles():
    """A pass is legal only with no middle stack, no card stack of anyone's and an empty hand: with the middle
    empty and no card stacks, tiles in hand still forbid it (that condition went untested)."""
    from simcore.games.senshi import PASS_OPTION, legal
    from simcore.games.senshi import step as kstep
    eng = Senshi()
    st = eng.new_state(game_keys(root_key(0), np.arange(1)), 2, SenshiRules(secret_hand=True))
    st.mid_count[0] = 0
    st.card_count[0, :] = 0
    assert st.hand_size[0, st.cur[0]] > 0
    S, R = eng.state_tuple(st), eng.rules_tuple(st)
    out = np.empty(64, dtype=np.int64)
    assert PASS_OPTION not in out[:legal(S, R, 0, out)].tolist()
    assert not kstep(S, R, 0, PASS_OPTION)
    st.card_count[0, 1] = 1          # and with the hand empty, another player's card stack forbids it too
    st.hand_size[0, st.cur[0]] = 0
    assert not kstep(eng.state_tuple(st), R, 0, PASS_OPTION)
