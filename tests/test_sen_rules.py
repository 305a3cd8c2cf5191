"""Sen rule fidelity: the rulebook's worked examples and the rulings, as scripted deals."""
import numpy as np
import pytest

from simcore.games.sen import MAX_OPTIONS, Decision, Drawn, Sen, SenRules, Start, VALUE, legal, step, swap_option
from simcore.errors import IllegalAction, SenseiError
from tests.sen_script import Scripted, make_deck, scripted_game

W, UP, DR = Start.WAKE, Start.FACE_UP, Start.DRAW


def points(totals, caller, nines=None, only=None, **rules):
    eng = Sen()
    t = np.array([totals])
    n9 = np.zeros_like(t) if nines is None else np.array([nines])
    on = np.zeros_like(t, dtype=bool) if only is None else np.array([only])
    pts, ok, pen = eng.round_points(t, n9, on, np.array([caller]), SenRules(**rules))
    return pts[0].tolist(), bool(ok[0]), bool(pen[0])


def test_rulebook_example_penalty():
    # player 4 calls with 11 while player 3 has 10: 11 + 5 = 16
    assert points([19, 16, 10, 11], 3) == ([19, 16, 10, 16], False, True)


def test_rulebook_penalty_15_option():
    assert points([19, 16, 10, 11], 3, penalty=15)[0] == [19, 16, 10, 26]


def test_caller_fewest_scores_zero_and_tie_rules():
    assert points([19, 16, 10, 9], 3) == ([19, 16, 10, 0], True, False)
    # tied for fewest: no penalty; zero (default) or count
    assert points([19, 16, 10, 10], 3) == ([19, 16, 10, 0], True, False)
    assert points([19, 16, 10, 10], 3, caller_tie="count") == ([19, 16, 10, 10], True, False)
    # strictly fewest with caller_tie=count still scores 0
    assert points([19, 16, 10, 9], 3, caller_tie="count")[0] == [19, 16, 10, 0]


def test_rulebook_example_ravens_not_scary():
    # player 1 holds the only 9 and does not count it: 19 -> 10; player 4 (11) is not fewest
    pts, ok, pen = points([19, 16, 10, 11], 3, nines=[1, 0, 0, 0], ravens_not_scary=True)
    assert pts == [10, 16, 10, 16] and not ok and pen


def test_ravens_not_scary_ties_give_no_reward_and_reward_decides_caller_check():
    assert points([19, 18, 10, 11], 3, nines=[1, 1, 0, 0], ravens_not_scary=True)[0] == [19, 18, 10, 16]
    # the caller's own reward makes them fewest: 20 - 18 = 2 <= 10
    assert points([12, 16, 10, 20], 3, nines=[0, 0, 0, 2], ravens_not_scary=True)[0] == [12, 16, 10, 0]
    # variant off: nines are ignored
    assert points([19, 16, 10, 11], 3, nines=[1, 0, 0, 0])[0] == [19, 16, 10, 16]


def test_go_all_in():
    pts, _, pen = points([36, 16, 10, 11], 3, nines=[4, 0, 0, 0], only=[True, False, False, False], go_all_in=True)
    assert pts == [0, 50, 50, 50] and not pen  # overrides the caller's penalty
    # two players with only 9s: normal scoring
    pts, _, _ = points([36, 36, 10, 11], 3, nines=[4, 4, 0, 0], only=[True, True, False, False], go_all_in=True)
    assert pts == [36, 36, 10, 16]
    # variant off
    assert points([36, 16, 10, 11], 3, only=[True, False, False, False])[0] == [36, 16, 10, 16]


def test_deck_composition():
    assert len(VALUE) == 54 and VALUE.sum() == 279
    assert [int((VALUE == v).sum()) for v in range(10)] == [4, 4, 4, 4, 4, 7, 7, 7, 4, 9]


def _run_turns(eng, st, seats, k):
    for _ in range(k):
        eng.turn(st, np.flatnonzero(~st.done), seats)
        eng.check(st)


def test_wake_up_ends_round_scores_and_next_starter():
    deck = make_deck([[1, 2, 3, 4], [5, 5, 5, 5], [0, 0, 8, 8]], 7, [6, 6])
    a0 = Scripted([])
    a1 = Scripted([("start", W)])
    eng, st, seats = scripted_game(3, SenRules(), deck, [a0, a0, a1])
    st.cur[:] = 2
    _run_turns(eng, st, seats, 1)
    # totals 10, 20, 16: the caller (seat 2, 16) is not fewest -> 16 + 5
    assert st.score[0].tolist() == [10, 20, 21]
    assert st.round[0] == 1 and st.cur[0] == 0  # left of the caller starts
    assert st.penalties[0] == 1 and st.called[0] == 1 and st.caller_ok[0] == 0
    assert st.dream_sum[0] == 46


def test_face_up_exchange_is_public_and_old_land_goes_face_up():
    deck = make_deck([[1, 2, 9, 4], [5, 5, 5, 5]], 0, [6, 6, 6])
    a = Scripted([("start", UP), ("face_up_slot", 2)])
    eng, st, seats = scripted_game(2, SenRules(), deck, [a, Scripted([])])
    _run_turns(eng, st, seats, 1)
    assert VALUE[st.dream[0, 0, 2]] == 0
    assert st.mem[0, :, 0, 2].tolist() == [0, 0]  # everybody knows the taken value
    assert not st.kept[0].any()
    assert VALUE[st.up[0, st.up_len[0] - 1]] == 9 and st.up_len[0] == 1
    assert st.cur[0] == 1 and st.turns[0] == 1


def test_exchange_drawn_card_only_taker_knows():
    deck = make_deck([[1, 2, 9, 4], [5, 5, 5, 5]], 0, [3, 6, 6])
    a = Scripted([("start", DR), ("drawn", 0)])
    eng, st, seats = scripted_game(2, SenRules(), deck, [a, Scripted([])])
    st.mem[0, 1, 0, 0] = 1  # pretend seat 1 had learnt seat 0's slot 0
    _run_turns(eng, st, seats, 1)
    assert VALUE[st.dream[0, 0, 0]] == 3
    assert st.mem[0, 0, 0, 0] == 3 and st.mem[0, 1, 0, 0] == -1
    assert st.kept[0, 0].tolist() == [True] + [False] * 7  # public: seat 0 kept a drawn land in slot 0
    obs = a.seen[1][1]
    assert obs.card[0] == 3
    assert VALUE[st.up[0, 1]] == 1  # old land revealed on the face-up pile


def test_peek_and_swap_memory_rules():
    deck = make_deck([[1, 2, 9, 4], [5, 8, 7, 3]], 0, ["peek", 6, "swap", 6, 6])
    a = Scripted([("start", DR), ("drawn", Drawn.USE), ("peek", (1, 1)),
                  ("start", DR), ("drawn", Drawn.USE), ("swap", (0, 0, 1, 1))])
    b = Scripted([("start", DR), ("drawn", Drawn.DISCARD)])
    eng, st, seats = scripted_game(2, SenRules(), deck, [a, b])
    _run_turns(eng, st, seats, 1)
    assert st.mem[0, 0, 1, 1] == 8 and st.mem[0, 1, 1, 1] == 8  # seat 1 knew its own slot 1 already
    assert st.up_len[0] == 2 and VALUE[st.up[0, 1]] == 6  # the Peek land went face up
    _run_turns(eng, st, seats, 2)
    # swap seat0 slot0 (1, known to seat 0 only) with seat1 slot1 (8, known to both)
    assert VALUE[st.dream[0, 0, 0]] == 8 and VALUE[st.dream[0, 1, 1]] == 1
    assert st.mem[0, 0, 0, 0] == 8 and st.mem[0, 1, 0, 0] == 8
    assert st.mem[0, 0, 1, 1] == 1 and st.mem[0, 1, 1, 1] == -1
    assert not st.kept[0].any()


def test_kept_flag_moves_with_a_swapped_land():
    deck = make_deck([[1, 2, 9, 4], [5, 8, 7, 3]], 0, [2, 6, "swap", 6, 6])
    a = Scripted([("start", DR), ("drawn", 3), ("start", DR), ("drawn", Drawn.USE), ("swap", (0, 3, 1, 0))])
    b = Scripted([("start", DR), ("drawn", Drawn.DISCARD)])
    eng, st, seats = scripted_game(2, SenRules(), deck, [a, b])
    _run_turns(eng, st, seats, 1)
    assert st.kept[0, 0, 3] and st.kept[0].sum() == 1
    _run_turns(eng, st, seats, 2)
    assert st.kept[0, 1, 0] and st.kept[0].sum() == 1
    assert st.mem[0, 0, 1, 0] == 2 and st.mem[0, 1, 1, 0] == -1


def test_take2_chain_order_on_face_up_pile():
    # draw Take 2, use it: draws "peek" and 4; keep the Peek (index 0), discard 4; use Peek on own slot 3
    deck = make_deck([[1, 2, 9, 4], [5, 8, 7, 3]], 0, ["take2", "peek", 4, 6, 6])
    a = Scripted([("start", DR), ("drawn", Drawn.USE), ("keep", 0), ("drawn", Drawn.USE), ("peek", (0, 3))])
    eng, st, seats = scripted_game(2, SenRules(), deck, [a, Scripted([])])
    _run_turns(eng, st, seats, 1)
    up = [int(VALUE[c]) for c in st.up[0, : st.up_len[0]]]
    assert up == [0, 5, 4, 6]  # start card, Take 2, the card not kept, then the kept Peek
    assert st.mem[0, 0, 0, 3] == 4
    keep_obs = a.seen[2][1]
    assert keep_obs.offer[0].tolist() == [6, 4]


def test_take2_with_one_card_left_takes_it_and_round_ends():
    deck = make_deck([[1, 2, 9, 4], [5, 8, 7, 3]], 0, [])
    rules = SenRules(rounds=1)
    eng, st, seats = scripted_game(2, rules, deck, [Scripted([]), Scripted([])])
    # leave only Take 2 and one more card in the face-down pile
    take2 = 45
    st.ptr[0] = 52
    rest = [c for c in st.deck[0, 9:].tolist() if c != take2]
    st.deck[0, 9:] = rest[:43] + [take2] + rest[43:]
    last = int(st.deck[0, 53])
    a = Scripted([("start", DR), ("drawn", Drawn.USE), ("drawn", 1)])
    seats.groups[0] = a
    seats.groups = [a]
    _run_turns(eng, st, seats, 1)
    assert st.dream[0, 0, 1] == last
    assert st.done[0] and st.called[0] == 0 and st.round[0] == 1  # empty pile: round (and game) over


def test_illegal_actions_are_rejected():
    deck = make_deck([[1, 2, 9, 4], [5, 8, 7, 3]], 0, [3, 6, 6])
    for answers in ([("start", DR), ("drawn", Drawn.USE)],         # USE on a plain land
                    [("start", UP), ("face_up_slot", 4)],          # no slot 4
                    [("start", Start.CLAIM)]):                     # variant off
        eng, st, seats = scripted_game(2, SenRules(), deck, [Scripted(answers), Scripted([])])
        with pytest.raises(IllegalAction):
            _run_turns(eng, st, seats, 1)


def test_rulebook_know_what_i_have_examples():
    # Example 1: the player names two 7s correctly: both go face up, one unseen land comes: 3 lands
    deck = make_deck([[7, 2, 7, 4], [5, 8, 1, 3]], 0, [6, 6, 6])
    rules = SenRules(know_what_i_have=True)
    a = Scripted([("start", Start.CLAIM), ("claim", (2, 0, 7))])
    eng, st, seats = scripted_game(2, rules, deck, [a, Scripted([])])
    _run_turns(eng, st, seats, 1)
    assert st.nslots[0, 0] == 3
    assert [int(VALUE[c]) for c in st.dream[0, 0, :3]] == [2, 4, 6]
    assert st.mem[0, 0, 0, :3].tolist() == [2, -1, -1]  # slot 1 (was 2, known) moved to 0; new land unseen
    assert [int(VALUE[c]) for c in st.up[0, : st.up_len[0]]] == [0, 7, 7]
    # Example 2: wrong: both revealed to everyone and stay; one more unseen land: 5 lands
    deck = make_deck([[7, 2, 6, 4], [5, 8, 1, 3]], 0, [6, 6, 6])
    a = Scripted([("start", Start.CLAIM), ("claim", (0, 2, 7))])
    eng, st, seats = scripted_game(2, rules, deck, [a, Scripted([])])
    _run_turns(eng, st, seats, 1)
    assert st.nslots[0, 0] == 5
    assert st.mem[0, 1, 0, 0] == 7 and st.mem[0, 1, 0, 2] == 6
    assert st.mem[0, 0, 0, 4] == -1 and VALUE[st.dream[0, 0, 4]] == 6


def test_know_what_i_have_slot_limits():
    deck = make_deck([[7, 2, 6, 4], [5, 8, 1, 3]], 0, [6, 6, 6])
    rules = SenRules(know_what_i_have=True)
    a = Scripted([("start", Start.CLAIM), ("claim", (0, 0, 7))])
    eng, st, seats = scripted_game(2, rules, deck, [a, Scripted([])])
    with pytest.raises(IllegalAction):
        _run_turns(eng, st, seats, 1)


def test_empty_pile_ends_round_after_the_turn_and_no_penalty():
    class DrawDiscard:
        def spec(self):
            return "draw-discard"

        def start(self, obs, rng):
            return np.full(len(obs.me), Start.DRAW)

        def drawn(self, obs, rng):
            return np.full(len(obs.me), Drawn.DISCARD)

    eng = Sen()
    for players, pile in [(2, 45), (3, 41), (4, 37), (5, 33)]:
        out = eng.play(np.arange(3), players, SenRules(rounds=2), [DrawDiscard()] * players, np.uint64(1), check=True)
        assert (out["turns"] == 2 * pile).all() and (out["called"] == 0).all()
        assert (out["penalties"] == 0).all()


def test_round_starter_after_empty_pile_is_left_of_the_player_who_emptied():
    class DrawDiscard:
        def spec(self):
            return "dd"

        def start(self, obs, rng):
            return np.full(len(obs.me), Start.DRAW)

        def drawn(self, obs, rng):
            return np.full(len(obs.me), Drawn.DISCARD)

    eng = Sen()
    from simcore.rng import game_keys, root_key
    from simcore.game import Seats
    keys = game_keys(root_key(0), np.arange(2))
    st = eng.new_state(keys, 5, SenRules(rounds=3))
    seats = Seats([DrawDiscard()] * 5, keys)
    starters = []
    while not st.done.all():
        before = st.round.copy()
        eng.turn(st, np.flatnonzero(~st.done), seats)
        if (st.round != before).any():
            starters.append(st.cur.copy())
    # 33 turns per round: seat 32 % 5 = 2 empties the pile; seat 3 starts round 2; then 3 + 32 = 35 -> 0, seat 1
    assert [s.tolist() for s in starters[:2]] == [[3, 3], [1, 1]]


def test_target_and_rounds_options():
    eng = Sen()
    from strategies.sen import Threshold
    out = eng.play(np.arange(50), 3, SenRules(target=30), [Threshold()] * 3, np.uint64(3))
    assert (out["score"].max(1) >= 30).all()
    out = eng.play(np.arange(50), 3, SenRules(rounds=3), [Threshold()] * 3, np.uint64(3))
    assert (out["rounds"] == 3).all()


def test_rule_validation():
    with pytest.raises(SenseiError):
        Sen().make_rules({"caller_tie": "maybe"})
    with pytest.raises(SenseiError):
        Sen().make_rules({"penalty": "lots"})
    with pytest.raises(SenseiError):
        Sen().make_rules({"rounds": "0"})
    r = Sen().make_rules({"penalty": "15", "rounds": "none", "go_all_in": "true"})
    assert r.penalty == 15 and r.rounds is None and r.go_all_in is True


def test_long_games_end_by_their_rules_not_at_the_turn_limit():
    # a round takes about 17 turns: 7,000 rounds are about 120,000 turns, past the 100,000 of the limit
    # every game has; Sen's limit grows with the rounds (or the target) asked for
    eng = Sen()
    assert eng.turn_limit(SenRules()) == 100_000
    assert eng.turn_limit(SenRules(rounds=7000)) == 700_000
    assert eng.turn_limit(SenRules(rounds=1000)) == 100_000 and eng.turn_limit(SenRules(rounds=1001)) == 200_000
    assert eng.turn_limit(SenRules(target=1_000_000)) == 100_000_000
    from simcore.runner import simulate
    from strategies.registry import lineup
    res = simulate("sen", lineup("sen", ["threshold"] * 4, 4), rules={"rounds": 7000}, n_games=1, seed=1)
    out = res.summary()
    assert out["timeouts"] == 0 and out["mean_turns"] > 100_000


# ---------------------------------------------------------------------------------------------
# go_all_in, "I know what I have", Take 2 on an empty pile, rounds and target, Swap 2: played through
# the engine's own turns (scripted decks and answers), so its own totals and checks are what is tested

CL = Start.CLAIM
DRAW_DISCARD = [("start", DR), ("drawn", Drawn.DISCARD)]


def _values(st, p):
    return [int(VALUE[c]) for c in st.dream[0, p, : st.nslots[0, p]]]


def _one_land_dream_of(last, **rules):
    """Seat 0 goes from 4 lands to 1 by three right claims (the last unseen land is ``last``); seat 1
    draws and discards in between, then says WAKE UP!. Returns the state after the round (rounds=1)."""
    deck = make_deck([[2, 2, 3, 3], [1, 1, 1, 1]], 0, [4, 8, 4, 8, last])
    a = Scripted([("start", CL), ("claim", (0, 1, 2)), ("start", CL), ("claim", (0, 1, 3)),
                  ("start", CL), ("claim", (1, 0, 4))])
    b = Scripted(DRAW_DISCARD * 2 + [("start", W)])
    eng, st, seats = scripted_game(2, SenRules(rounds=1, know_what_i_have=True, **rules), deck, [a, b])
    _run_turns(eng, st, seats, 5)
    assert st.nslots[0, 0] == 1 and _values(st, 0) == [last]
    _run_turns(eng, st, seats, 1)
    assert st.done[0] and st.called[0] == 1 and not a.answers and not b.answers
    return st


def test_go_all_in_one_land_dream_holding_a_nine():
    # seat 0's dream is a single 9 (after three right claims): it is all 9s, scores 0, and the caller
    # (seat 1, total 4: fewest) scores exactly 50
    st = _one_land_dream_of(9, go_all_in=True)
    assert st.last_totals[0].tolist() == [9, 4]
    assert st.last_points[0].tolist() == [0, 50] and st.score[0].tolist() == [0, 50]
    assert st.penalties[0] == 0
    # the same round without the variant: the caller is fewest and adds 0
    st = _one_land_dream_of(9)
    assert st.last_points[0].tolist() == [9, 0]
    # a one-land dream that is not a 9: normal scoring (the caller, 4 against 8, is fewest)
    st = _one_land_dream_of(8, go_all_in=True)
    assert st.last_points[0].tolist() == [8, 0]


def _five_land_dream(fifth, **rules):
    """Seat 0 holds four 9s and names two of them wrongly as 8s: a fifth land ``fifth`` comes; seat 1
    says WAKE UP! (rounds=1)."""
    deck = make_deck([[9, 9, 9, 9], [1, 2, 3, 4]], 0, [fifth, 6, 6])
    a = Scripted([("start", CL), ("claim", (0, 1, 8))])
    b = Scripted([("start", W)])
    eng, st, seats = scripted_game(2, SenRules(rounds=1, know_what_i_have=True, **rules), deck, [a, b])
    _run_turns(eng, st, seats, 1)
    assert _values(st, 0) == [9, 9, 9, 9, fifth]
    _run_turns(eng, st, seats, 1)
    assert st.done[0]
    return st


def test_go_all_in_counts_every_land_of_a_dream_not_the_first_four():
    # five 9s: all 9s, the reward applies (the caller, who had fewest, scores 50 and no penalty)
    st = _five_land_dream(9, go_all_in=True)
    assert st.last_totals[0].tolist() == [45, 10] and st.last_points[0].tolist() == [0, 50]
    # four 9s and a 0: not all 9s, normal scoring (the caller is fewest: 0)
    st = _five_land_dream(0, go_all_in=True)
    assert st.last_totals[0].tolist() == [36, 10] and st.last_points[0].tolist() == [36, 0]
    # dealt dreams: four 9s is all 9s; three 9s and a 1 is not (seat 1 calls, 28 against 10: penalty)
    for nines, totals, pts, pen in ([[9, 9, 9, 9], [10, 36], [50, 0], 0], [[9, 9, 1, 9], [10, 28], [10, 33], 1]):
        deck = make_deck([[1, 2, 3, 4], nines], 0, [6, 6])
        eng, st, seats = scripted_game(2, SenRules(rounds=1, go_all_in=True), deck,
                                       [Scripted([]), Scripted([("start", W)])])
        st.cur[:] = 1
        _run_turns(eng, st, seats, 1)
        assert st.last_totals[0].tolist() == totals and st.last_points[0].tolist() == pts
        assert st.penalties[0] == pen


def _start_options(eng, st):
    """The Start codes the engine's own legal list gives the player to move in game 0."""
    out = np.empty(MAX_OPTIONS, dtype=np.int64)
    n = legal(eng.state_tuple(st), eng.rules_tuple(st), 0, out)
    return sorted(out[:n].tolist())


def test_know_what_i_have_is_legal_with_2_to_7_lands_only():
    rules = SenRules(know_what_i_have=True)
    everything = [W, UP, DR, CL]
    # down to one land by three right claims (at 4, 3 and 2 lands): a claim with one land is illegal
    deck = make_deck([[2, 2, 3, 3], [1, 1, 1, 1]], 0, [4, 8, 4, 8, 6, 6, 6])
    a = Scripted([("start", CL), ("claim", (0, 1, 2)), ("start", CL), ("claim", (0, 1, 3)),
                  ("start", CL), ("claim", (0, 1, 4)), ("start", CL)])
    eng, st, seats = scripted_game(2, rules, deck, [a, Scripted(DRAW_DISCARD * 3)])
    sizes = []
    for _ in range(3):
        assert _start_options(eng, st) == everything
        _run_turns(eng, st, seats, 2)
        sizes.append(int(st.nslots[0, 0]))
    assert sizes == [3, 2, 1] and _start_options(eng, st) == [W, UP, DR]
    with pytest.raises(IllegalAction):
        _run_turns(eng, st, seats, 1)
    # up to eight lands by four wrong claims (at 4, 5, 6 and 7 lands): a claim with eight is illegal
    deck = make_deck([[2, 3, 2, 3], [1, 1, 1, 1]], 0, [6, 6, 6, 6, 8, 8, 8, 8, 4, 4])
    a = Scripted([("start", CL), ("claim", (0, 1, 2))] * 4 + [("start", CL)])
    eng, st, seats = scripted_game(2, rules, deck, [a, Scripted(DRAW_DISCARD * 4)])
    sizes = []
    for _ in range(4):
        assert _start_options(eng, st) == everything
        _run_turns(eng, st, seats, 2)
        sizes.append(int(st.nslots[0, 0]))
    assert sizes == [5, 6, 7, 8] and _start_options(eng, st) == [W, UP, DR]
    with pytest.raises(IllegalAction):
        _run_turns(eng, st, seats, 1)


def test_know_what_i_have_names_a_take2_as_a_5_and_puts_the_lower_slot_first():
    rules = SenRules(know_what_i_have=True)
    # slot 1 holds the Take 2 (id 45), slot 3 a plain 5 (id 20); named as (3, 1) with value 5: right.
    # Lower slot first onto the pile: the Take 2, then the plain 5 (naming order or id order would
    # give the plain 5 first)
    deck = make_deck([[1, "take2", 8, 5], [0, 1, 2, 3]], 0, [6, 6])
    assert deck[1] == 45 and deck[3] == 20
    a = Scripted([("start", CL), ("claim", (3, 1, 5))])
    eng, st, seats = scripted_game(2, rules, deck, [a, Scripted([])])
    st.mem[0, 0, 0, 3] = 5  # seat 0 had peeked at its slot 3: it follows its land
    _run_turns(eng, st, seats, 1)
    assert st.up[0, : st.up_len[0]].tolist() == [deck[8], 45, 20]
    assert _values(st, 0) == [1, 8, 6] and st.nslots[0, 0] == 3
    assert st.mem[0, 0, 0, :4].tolist() == [1, -1, -1, -1] and st.mem[0, 1, 0, :4].tolist() == [-1] * 4
    # the same with a Swap 2 (a 7) and a plain 7, named 7 in the other order: right, lower slot first
    deck = make_deck([[7, 0, "swap", 0], [1, 1, 2, 2]], 0, [6, 6])
    a = Scripted([("start", CL), ("claim", (0, 2, 7))])
    eng, st, seats = scripted_game(2, rules, deck, [a, Scripted([])])
    _run_turns(eng, st, seats, 1)
    assert st.up[0, 1: st.up_len[0]].tolist() == [deck[0], deck[2]] and _values(st, 0) == [0, 0, 6]
    # a Take 2 named as anything but 5 is wrong (its kind is no value of its own): both stay, shown
    deck = make_deck([["take2", 5, 8, 8], [1, 1, 1, 1]], 0, [6, 6])
    for v in (0, 1, 6, 9):
        a = Scripted([("start", CL), ("claim", (0, 1, v))])
        eng, st, seats = scripted_game(2, rules, deck, [a, Scripted([])])
        _run_turns(eng, st, seats, 1)
        assert st.nslots[0, 0] == 5 and st.dream[0, 0, 0] == 45 and st.mem[0, 1, 0, :2].tolist() == [5, 5]


def test_know_what_i_have_dreams_of_other_sizes_total_all_their_lands():
    # seat 0 names two 7s rightly (3 lands: 2 + 4 + 3); seat 1 names wrongly (5 lands: 1+2+3+4+8);
    # seat 0 says WAKE UP! with 9 against 18 and adds 0; seat 1 adds 18
    rules = SenRules(rounds=1, know_what_i_have=True)
    deck = make_deck([[7, 2, 7, 4], [1, 2, 3, 4]], 0, [3, 8, 6])
    a = Scripted([("start", CL), ("claim", (0, 2, 7)), ("start", W)])
    b = Scripted([("start", CL), ("claim", (0, 1, 1))])
    eng, st, seats = scripted_game(2, rules, deck, [a, b])
    _run_turns(eng, st, seats, 2)
    assert _values(st, 0) == [2, 4, 3] and _values(st, 1) == [1, 2, 3, 4, 8]
    _run_turns(eng, st, seats, 1)
    assert st.done[0] and st.last_totals[0].tolist() == [9, 18] and st.score[0].tolist() == [0, 18]
    assert st.dream_sum[0] == 27 and st.penalties[0] == 0 and st.caller_ok[0] == 1


def _take2_last_deck():
    """A 2-player deck whose face-down pile (45 cards) ends with a Take 2 (id 45)."""
    deck = make_deck([[1, 2, 9, 4], [5, 8, 7, 3]], 0, []).tolist()
    deck.remove(45)
    return np.array(deck + [45], dtype=np.int8)


def test_take2_with_an_empty_pile_draws_nothing_and_the_round_ends_after_that_turn():
    # 44 turns draw and discard; seat 0 then draws the last card, a Take 2, and uses it: there is no card
    # to take, so its turn ends there, and the round with it (the pile is empty; nobody called)
    for rounds in (1, 2):
        a = Scripted(DRAW_DISCARD * 22 + [("start", DR), ("drawn", Drawn.USE)])
        b = Scripted(DRAW_DISCARD * 22)
        eng, st, seats = scripted_game(2, SenRules(rounds=rounds), _take2_last_deck(), [a, b])
        _run_turns(eng, st, seats, 44)
        assert st.ptr[0] == 53 and st.deck[0, 53] == 45 and st.cur[0] == 0 and st.round[0] == 0
        _run_turns(eng, st, seats, 1)
        assert not a.answers and not b.answers
        assert [d for d, _ in a.seen[-2:]] == ["start", "drawn"]  # no keep, no further decision
        assert st.turns[0] == 45 and st.round[0] == 1
        assert st.last_totals[0].tolist() == [16, 23] and st.last_points[0].tolist() == [16, 23]
        assert st.called[0] == 0 and st.penalties[0] == 0 and st.score[0].tolist() == [16, 23]
        if rounds == 1:
            assert st.done[0] and st.ptr[0] == 54
            assert st.up_len[0] == 46 and st.up[0, 45] == 45  # the Take 2 went face up, nothing after it
        else:
            # the next round is dealt and starts with the seat left of seat 0, whose turn emptied the pile
            assert not st.done[0] and st.cur[0] == 1 and st.ptr[0] == 9 and st.up_len[0] == 1


def _called_round(rules, later_decks=None, rounds_played=1):
    """Seat 0 (0+0+1+1 = 2) says WAKE UP! at once in every round and adds 0; seat 1 (1+2+3+4 = 10)
    adds 10. Returns the state after ``rounds_played`` rounds."""
    deck = make_deck([[0, 0, 1, 1], [1, 2, 3, 4]], 5, [6, 6])
    a = Scripted([("start", W)] * rounds_played)
    eng, st, seats = scripted_game(2, rules, deck, [a, Scripted([])], later_decks=[deck] * (rounds_played - 1))
    for r in range(rounds_played):
        st.cur[:] = 0  # every round starts with seat 0 (left of seat 1 would be the rule)
        _run_turns(eng, st, seats, 1)
        assert st.round[0] == r + 1 and st.last_points[0].tolist() == [0, 10]
    return st


def test_target_ends_the_game_at_a_score_exactly_on_it():
    assert _called_round(SenRules(target=10)).done[0]              # 10 is at the target: over
    assert not _called_round(SenRules(target=11)).done[0]          # 10 is under 11: another round
    st = _called_round(SenRules(target=20), rounds_played=2)       # 20 after two rounds: over
    assert st.done[0] and st.score[0].tolist() == [0, 20]


def test_rounds_override_target():
    # rounds=3 with target=1: seat 1 has 10 after the first round, yet the game goes on to three rounds
    st = _called_round(SenRules(rounds=3, target=1), rounds_played=2)
    assert not st.done[0] and st.score[0].tolist() == [0, 20]
    st = _called_round(SenRules(rounds=3, target=1), rounds_played=3)
    assert st.done[0] and st.score[0].tolist() == [0, 30]
    # and rounds end the game when no score is near the target
    st = _called_round(SenRules(rounds=1, target=1_000_000))
    assert st.done[0]


def _at_swap(first_swap=None):
    """Seat 0 keeps a drawn 0 in slot 1; seat 1 peeks at seat 0's slot 3 (a 4); seat 0 draws a Swap 2
    and uses it, then answers ``first_swap`` (if given)."""
    deck = make_deck([[1, 2, 9, 4], [5, 8, 7, 3]], 0, [0, "peek", "swap", 6, 6])
    answers = [("start", DR), ("drawn", 1), ("start", DR), ("drawn", Drawn.USE)]
    a = Scripted(answers + ([("swap", first_swap)] if first_swap else []))
    b = Scripted([("start", DR), ("drawn", Drawn.USE), ("peek", (0, 3))])
    eng, st, seats = scripted_game(2, SenRules(), deck, [a, b])
    _run_turns(eng, st, seats, 2)
    assert _values(st, 0) == [1, 0, 9, 4]
    assert st.mem[0, 0, 0, :4].tolist() == [1, 0, -1, -1] and st.mem[0, 1, 0, :4].tolist() == [-1, -1, -1, 4]
    assert st.kept[0, 0, :4].tolist() == [False, True, False, False]
    return eng, st, seats, a


def test_swap2_refuses_the_same_position_twice():
    for same in ((0, 1), (1, 2), (0, 3)):
        eng, st, seats, _ = _at_swap(same + same)
        with pytest.raises(IllegalAction):
            _run_turns(eng, st, seats, 1)
    # the engine's legal list and its rule step agree: every pair of two different lands, listed once with
    # the earlier position first (the step takes either order: the same swap)
    eng, st, seats, _ = _at_swap()
    for _ in range(2):  # the decisions before the swap, one at a time
        eng.step_games(st, np.array([0]), seats)
    assert st.kind[0] == Decision.SWAP
    S, R = eng.state_tuple(st), eng.rules_tuple(st)
    out = np.empty(MAX_OPTIONS, dtype=np.int64)
    opts = set(out[:legal(S, R, 0, out)].tolist())
    lands = [(p, s) for p in range(2) for s in range(4)]
    assert opts == {swap_option(*x, *y) for x in lands for y in lands if x < y}
    before = [x.copy() for x in S]
    for x in lands:
        assert not step(S, R, 0, swap_option(*x, *x))
        for old, now in zip(before, S):
            np.testing.assert_array_equal(old, now)


def test_swap2_within_one_dream_moves_the_lands_memories_and_kept_flags():
    # seat 0 swaps its own slots 3 and 1: the 0 (known to seat 0, kept from the face-down pile) and the
    # 4 (known to seat 1 only) change places, and so does what each player remembers of them; seat 0
    # does not look, so it still does not know the 4
    eng, st, seats, a = _at_swap((0, 3, 0, 1))
    _run_turns(eng, st, seats, 1)
    assert not a.answers and st.cur[0] == 1
    assert _values(st, 0) == [1, 4, 9, 0] and _values(st, 1) == [5, 8, 7, 3]
    assert st.mem[0, 0, 0, :4].tolist() == [1, -1, -1, 0] and st.mem[0, 1, 0, :4].tolist() == [-1, 4, -1, -1]
    assert st.kept[0, 0, :4].tolist() == [False, False, False, True] and not st.kept[0, 1].any()
    assert [int(VALUE[c]) for c in st.up[0, : st.up_len[0]]] == [0, 2, 6, 7]


def test_rulebook_b2_a_drawn_land_the_player_does_not_like_goes_on_the_face_up_pile():
    """Rulebook B2: "The player doesn't like the land taken from the face-down pile. So they place it on the
    face-up pile." It becomes the face-up top, seen by everybody; no dream and no memory changes."""
    deck = make_deck([[1, 2, 9, 4], [5, 8, 7, 3]], 0, [6, 2, 2])
    a = Scripted([("start", DR), ("drawn", Drawn.DISCARD)])
    eng, st, seats = scripted_game(2, SenRules(), deck, [a, Scripted([])])
    dream, mem, ptr = st.dream.copy(), st.mem.copy(), st.ptr.copy()
    _run_turns(eng, st, seats, 1)
    assert st.up_len[0] == 2 and VALUE[st.up[0, 1]] == 6          # the drawn 6 on top of the face-up 0
    assert (st.dream == dream).all() and (st.mem == mem).all() and not st.kept[0].any()
    assert st.ptr[0] == ptr[0] + 1                                 # one card fewer in the face-down pile
    assert st.cur[0] == 1 and st.turns[0] == 1


def test_tied_final_scores_share_the_victory():
    """"In the event of a tie, the players share the victory": the seats tied on the lowest score each win
    1/k of the game; a game stopped at the turn limit has no winner."""
    from simcore.rng import game_keys, root_key
    eng = Sen()
    st = eng.new_state(game_keys(root_key(0), np.arange(4)), 4, SenRules())
    st.score[:] = np.array([[40, 25, 25, 60], [10, 10, 10, 10], [30, 31, 32, 33], [25, 25, 70, 80]])
    st.timeout[:] = [False, False, False, True]
    win = eng.outcome(st)["win"]
    assert win.tolist() == [[0, 0.5, 0.5, 0], [0.25] * 4, [1, 0, 0, 0], [0, 0, 0, 0]]
