"""The search player ``ismcts`` (``simcore/search.py``, ``strategies/ismcts.py``) and the engines'
determinization samplers.

* the sampler reads only the view: scrambling what the seat has not seen gives the same samples from the
  same random stream;
* the samples agree with the view (own hand, cards on the table, hand and deck sizes) and their
  marginals match the unseen counts (each unseen card lies in the opponent's hand with probability
  hand size / unseen cards, checked with a 4.5-sigma binomial band);
* the search finds the winning move of small scripted positions;
* bad parameters are one-line errors.

(The leak probe over the search's decisions is in ``tests/test_protocol.py``, which plays every strategy.)
"""
from __future__ import annotations

import numpy as np
import pytest

from simcore.errors import SenseiError
from simcore.game import Seats
from simcore.games.fan_and_mallet import (CARD_FACTION, DECK, HAND, FanAndMallet, card, spirit)
from simcore.rng import Draws, game_keys, root_key
from strategies.registry import lineup

FM = FanAndMallet()


def _fm_midgame(n=6, steps=17, seed=4):
    keys = game_keys(root_key(seed), np.arange(n))
    agents = lineup("fan-and-mallet", ["closer", "counter"], 2)
    s = FM.new_batch(keys, 2, FM.make_rules())
    seats = Seats(agents, keys)
    FM.play_state(s, seats, seats.lineup_for(FM), compiled=True, max_steps=steps)
    assert not s.done.any()
    return s


def test_fan_and_mallet_sampler_never_reads_the_hidden_truth():
    s = _fm_midgame()
    draws = Draws(game_keys(root_key(8), np.arange(len(s.done))))
    for g in range(len(s.done)):
        for seat in (0, 1):
            a = FM.sample_hidden(s, g, seat, key=77 + g, n=20)
            other = FM.scramble_hidden(s, seat, draws)
            assert not (np.array_equal(other.hand[g], s.hand[g]) and np.array_equal(other.deck[g], s.deck[g]))
            b = FM.sample_hidden(other, g, seat, key=77 + g, n=20)
            np.testing.assert_array_equal(a["hand"], b["hand"])
            np.testing.assert_array_equal(a["deck"], b["deck"])
            c = FM.sample_hidden(s, g, seat, key=78 + g, n=20)
            assert not np.array_equal(a["deck"], c["deck"]), "another stream gives other samples"


def test_fan_and_mallet_samples_agree_with_the_view_and_have_the_unseen_marginals():
    s = _fm_midgame(n=1, steps=23)
    g, n = 0, 3000
    for me in (0, 1):
        opp = 1 - me
        out = FM.sample_hidden(s, g, me, key=5, n=n)
        hands, decks = out["hand"].astype(np.int64), out["deck"].astype(np.int64)
        np.testing.assert_array_equal(hands[:, me], np.broadcast_to(s.hand[g, me], (n, HAND)))
        on_ring = set(s.stack[g][s.stack[g] >= 0].tolist())
        unseen_own = {c for c in range(me * DECK, (me + 1) * DECK) if c not in on_ring} - set(s.hand[g, me].tolist())
        unseen_opp = {c for c in range(opp * DECK, (opp + 1) * DECK) if c not in on_ring}
        held = int(s.hand_n[g, opp])
        for t in range(0, n, 97):
            assert set(decks[t, me][decks[t, me] >= 0].tolist()) == unseen_own
            assert (decks[t, me] >= 0).sum() == DECK - s.deck_pos[g, me]
            got = hands[t, opp][hands[t, opp] >= 0].tolist() + decks[t, opp][decks[t, opp] >= 0].tolist()
            assert sorted(got) == sorted(unseen_opp)
            assert (hands[t, opp][:held] >= 0).all() and (hands[t, opp][held:] < 0).all()
            assert ((decks[t, opp] >= 0) == (np.arange(DECK) >= s.deck_pos[g, opp])).all()
        p = held / len(unseen_opp)
        band = 4.5 * np.sqrt(p * (1 - p) / n)
        for c in unseen_opp:
            share = (hands[:, opp] == c).any(axis=1).mean()
            assert abs(share - p) < band, (c, share, p)
        # the next card of the own deck: uniform over the own unseen cards
        pos = int(s.deck_pos[g, me])
        if pos < DECK:
            q = 1.0 / len(unseen_own)
            for c in unseen_own:
                assert abs((decks[:, me, pos] == c).mean() - q) < 4.5 * np.sqrt(q * (1 - q) / n)


def _decide(eng, state, specs, seat):
    keys = state.keys
    agents = lineup(eng.name, specs, len(specs))
    seats = Seats(agents, keys)
    return int(eng.decide(state, np.array([0]), seats, seats.lineup_for(eng))[0])


def test_fan_and_mallet_search_takes_the_possession_that_wins_now():
    """White holds 6 markers; house 0 (White's red house) holds four followers, White leading 8 to 2.
    Of White's hand only the brown card lands there (red is the origin's colour, the other colours are
    in the house); playing it possesses the house and wins. ``strongest`` plays a 4 instead."""
    W, B = 0, 1
    ring = list(range(12))  # position h: house card h (White's houses at 0..5, Black's at 6..11)
    stacks = {0: [spirit(W, 1, 4), spirit(B, 3, 1), spirit(W, 2, 4), spirit(B, 4, 1)]}
    hand = [spirit(W, 0, 4), spirit(W, 3, 4), spirit(W, 5, 1), spirit(W, 4, 4), spirit(W, 0, 3), spirit(W, 3, 3)]
    s = FM.scripted(ring, stacks=stacks, hands=(hand, []), pawns=(11, 5), to_move=W)
    # Black's hand: six of its cards not on the ring
    black = [c for c in range(DECK, 2 * DECK) if c not in stacks[0]][:HAND]
    s.hand[0, 1] = black
    s.hand_n[0, 1] = HAND
    s.deck[0, 1, :] = -1
    rest = [c for c in range(DECK, 2 * DECK) if c not in stacks[0] and c not in black]
    s.deck[0, 1, DECK - len(rest):] = rest
    s.deck_pos[0, 1] = DECK - len(rest)
    s.markers[0] = (6, 5)
    s.first_done[0] = True
    s.first_winner[0] = 0
    win_slot = hand.index(spirit(W, 5, 1))
    assert _decide(FM, s, ["strongest", "random"], 0) != win_slot
    assert _decide(FM, s, ["ismcts:iterations=300", "ismcts:iterations=8"], 0) == win_slot
    # and the move wins: the game is over after it
    t = s.copy()
    assert FM.state_tuple(t)  # the protocol's step through a lineup
    agents = lineup("fan-and-mallet", ["ismcts:iterations=300", "ismcts:iterations=8"], 2)
    seats = Seats(agents, t.keys)
    FM.step_games(t, np.array([0]), seats)
    assert t.done[0] and t.winner[0] == W


@pytest.mark.parametrize("spec", ["ismcts:iterations=0", "ismcts:iterations=10000000", "ismcts:rollout=nobody",
                                  "ismcts:c=-1", "ismcts:horizon=-3"])
def test_bad_search_parameters_are_one_line_errors(spec):
    with pytest.raises(SenseiError) as err:
        lineup("fan-and-mallet", [spec], 2)
    assert "\n" not in str(err.value)


def test_search_is_the_same_for_any_batch_width_and_stream_split():
    """Results depend on (seed, game) only: a batch of 3 and 3 games alone give the same outcomes."""
    agents = lineup("fan-and-mallet", ["ismcts:iterations=10", "ismcts:iterations=3"], 2)
    ids = np.arange(3)
    together = FM.play(ids, 2, FM.make_rules(), agents, root_key(2))
    for j in ids:
        alone = FM.play(np.array([j]), 2, FM.make_rules(), agents, root_key(2))
        for k in together:
            np.testing.assert_array_equal(alone[k][0], together[k][j], err_msg=k)


# ----------------------------------------------------------------------------------------------------
# Sen

def _sen_midgame(n=6, steps=21, seed=4, players=2):
    from simcore.games.sen import Sen

    eng = Sen()
    keys = game_keys(root_key(seed), np.arange(n))
    agents = lineup("sen", ["counter"], players)
    s = eng.new_batch(keys, players, eng.make_rules())
    seats = Seats(agents, keys)
    eng.play_state(s, seats, seats.lineup_for(eng), compiled=True, max_steps=steps)
    return eng, s


def test_sen_sampler_never_reads_the_hidden_truth():
    eng, s = _sen_midgame(players=3)
    draws = Draws(game_keys(root_key(8), np.arange(len(s.done))))
    checked = 0
    for g in np.flatnonzero(~s.done):
        seat = int(s.cur[g])
        a = eng.sample_hidden(s, g, seat, key=77 + g, n=20)
        other = eng.scramble_hidden(s, seat, draws)
        b = eng.sample_hidden(other, g, seat, key=77 + g, n=20)
        for k in a:
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        checked += 1
    assert checked >= 3


def test_sen_samples_agree_with_the_view_and_have_the_unseen_marginals():
    from simcore.games.sen import N_CARDS, VALUE

    eng, s = _sen_midgame(n=1, steps=25)
    g = 0
    me = int(s.cur[g])
    n = 3000
    out = eng.sample_hidden(s, g, me, key=3, n=n)
    dreams, decks, mems = (out[k].astype(np.int64) for k in ("dream", "deck", "mem"))
    P = s.players
    mem = s.mem[g, me]
    up = set(s.up[g, :s.up_len[g]].tolist())
    pend = set(s.pend[g][s.pend[g] >= 0].tolist())
    unknown = [(p, sl) for p in range(P) for sl in range(s.nslots[g, p]) if mem[p, sl] < 0]
    assert unknown, "the position must hide some lands"
    for t in range(0, n, 101):
        cards = [dreams[t, p, sl] for p in range(P) for sl in range(s.nslots[g, p])]
        pile = decks[t, s.ptr[g]:].tolist()
        assert sorted(cards + pile + list(up) + list(pend)) == list(range(N_CARDS)), "every card once"
        for p in range(P):
            for sl in range(s.nslots[g, p]):
                if mem[p, sl] >= 0:
                    assert VALUE[dreams[t, p, sl]] == mem[p, sl], "a remembered land keeps its value"
        np.testing.assert_array_equal(mems[t, me], mem)
    # an unknown land's value: distributed as the values of the cards the seat has not placed
    placed = list(up) + list(pend)
    left = np.bincount([VALUE[c] for c in range(N_CARDS) if c not in placed], minlength=10).astype(float)
    for p in range(P):
        for sl in range(s.nslots[g, p]):
            if mem[p, sl] >= 0:
                left[mem[p, sl]] -= 1
    q = left / left.sum()
    p0, s0 = unknown[0]
    got = np.bincount(VALUE[dreams[:, p0, s0]], minlength=10) / n
    band = 4.5 * np.sqrt(q * (1 - q) / n) + 1e-9
    assert (np.abs(got - q) < band).all(), (got, q)


def test_sen_samples_give_the_others_exactly_the_lands_they_remember():
    """Which lands each seat remembers is public (the deal's look at slots 0 and 1, a land taken from either
    pile, a Peek's position, a Swap's positions and a claim are all seen by the table; only the values are
    not): every sample lets each other seat remember exactly those lands, each with the value of the card
    sampled there. The model before (each seat its slots 0 and 1 and its lands from the face-down pile,
    every land the searching seat remembers outside its own dream) differed from it in these positions."""
    from simcore.games.sen import VALUE, Sen

    eng = Sen()
    players, n = 3, 24
    keys = game_keys(root_key(12), np.arange(n))
    s = eng.new_batch(keys, players, eng.make_rules())
    seats = Seats(lineup("sen", ["swapper", "watcher", "counter"], players), keys)
    eng.play_state(s, seats, seats.lineup_for(eng), compiled=True, max_steps=40)
    differs = checked = 0
    for g in np.flatnonzero(~s.done):
        me = int(s.cur[g])
        out = eng.sample_hidden(s, g, me, key=5 + int(g), n=8)
        dreams, mems = out["dream"].astype(np.int64), out["mem"].astype(np.int64)
        nslots = s.nslots[g]
        occupied = np.arange(s.mem.shape[3])[None, :] < nslots[:, None]  # (P, S)
        truth = (s.mem[g] >= 0) & occupied[None]                        # (V, P, S): who remembers which land
        for t in range(len(dreams)):
            known = mems[t] >= 0
            np.testing.assert_array_equal(known, truth)
            vals = np.broadcast_to(VALUE[np.where(occupied, dreams[t], 0)][None], known.shape)
            assert (mems[t][known] == vals[known]).all(), "a remembered land's value is the sampled card's"
        np.testing.assert_array_equal(mems[0][me], s.mem[g, me])
        old = np.zeros_like(truth)
        for v in range(players):
            for p in range(players):
                for sl in range(nslots[p]):
                    old[v, p, sl] = (v == me and s.mem[g, me, p, sl] >= 0) or (
                        v != me and ((p == v and (sl < 2 or s.kept[g, p, sl])) or (p != me and s.mem[g, me, p, sl] >= 0)))
        differs += int((old != truth).any())
        checked += 1
    assert checked >= 10
    assert differs >= 3, "the positions must tell the two models apart"


@pytest.mark.parametrize("ravens", [False, True])
def test_sen_rollout_cut_before_the_round_ends_is_valued_on_the_round_ending_there(ravens):
    """The search's ``horizon`` cuts a rollout mid-round: its value is the end-of-round reward on the scores
    the round would give if it ended there with nobody having called (before, every cut rollout was valued
    on the scores at the start of the round, all alike)."""
    from simcore.games import sen as S_
    from simcore.games.sen import VALUE

    eng, s = _sen_midgame(n=6, steps=21, players=3)
    rules = eng.make_rules({"ravens_not_scary": ravens})
    s.rules = rules
    S, R = eng.state_tuple(s), eng.rules_tuple(s)
    seen = set()
    for g in np.flatnonzero(~s.done):
        me = int(s.cur[g])
        ob = S_.observe(S, R, int(g), me)
        out = np.zeros(3)
        S_.value(S, R, int(g), ob, out)
        vals = VALUE[s.dream[g].astype(np.int64)] * (np.arange(S_.SLOTS)[None, :] < s.nslots[g][:, None])
        totals = vals.sum(axis=1)[None, :]
        nines = (vals == 9).sum(axis=1)[None, :]
        only = ((nines == s.nslots[g][None, :]) & (s.nslots[g][None, :] >= 1))
        points, _, _ = eng.round_points(totals, nines, only, np.array([-1]), rules)
        mine = s.score[g] + points[0]
        others = (mine.sum() - mine) / 2
        np.testing.assert_allclose(out, 1 / (1 + np.exp((mine - others) / S_.VALUE_SCALE)))
        seen.add(tuple(np.round(out, 9)))
    assert len(seen) >= 3, "cut rollouts of different games are valued differently"


def test_sen_search_says_wake_up_with_a_certain_win():
    """One round (rules rounds=1), seat 0 to start its turn. It remembers its own lands (2, 2, 3, 3: 10) and
    the opponent's (0, 0, 1, 9: 10): saying WAKE UP! now ties the fewest total, which the caller wins (a
    tied caller adds 0). Playing on lets the opponent, who holds 0, 0 and will replace its 9, go below 10."""
    from simcore.games.sen import WAKE
    from tests.sen_script import make_deck, scripted_game

    rules = __import__("simcore.games.sen", fromlist=["Sen"]).Sen().make_rules({"rounds": 1})
    deck = make_deck([[2, 2, 3, 3], [0, 0, 1, 9]], 8, [1, 0, 2, 4, 5, 6, 7, 8])
    agents = lineup("sen", ["ismcts:iterations=400", "ismcts:iterations=8"], 2)  # one lineup module: the search's
    eng, st, seats = scripted_game(2, rules, deck, agents)
    st.mem[0, 0, 0, :4] = [2, 2, 3, 3]
    st.mem[0, 0, 1, :4] = [0, 0, 1, 9]
    assert int(st.cur[0]) == 0 and int(st.kind[0]) == 0
    opt = eng.decide(st, np.array([0]), seats, seats.lineup_for(eng))
    assert int(opt[0]) == WAKE


def test_sen_search_leaves_the_decisions_it_does_not_search_to_others():
    """Sen's default searches the start of a turn only (``searched=start``): every other decision (which
    slot, Take 2, Peek 1, Swap 2) is ``others``' (``swapper``) answer, from a determinization that shows
    the seat what its view shows. With ``searched=all`` the same positions are searched."""
    from simcore.games.sen import Decision, Sen

    eng = Sen()
    within, agree, searched_differs = 0, 0, 0
    for steps in (3, 5, 8, 13):
        keys = game_keys(root_key(steps), np.arange(40))
        st = eng.new_batch(keys, 2, eng.make_rules())
        heur = Seats(lineup("sen", ["swapper", "swapper"], 2), keys)
        eng.play_state(st, heur, heur.lineup_for(eng), compiled=True, max_steps=steps)
        idx = np.flatnonzero(~st.done & (st.kind != Decision.START))
        if idx.size == 0:
            continue
        want = eng.decide(st, idx, heur, heur.lineup_for(eng))
        search = Seats(lineup("sen", ["ismcts:iterations=8"], 2), keys)
        got = eng.decide(st, idx, search, search.lineup_for(eng))
        every = Seats(lineup("sen", ["ismcts:iterations=8,searched=all,rollout=random"], 2), keys)
        alt = eng.decide(st, idx, every, every.lineup_for(eng))
        within += idx.size
        agree += int((got == want).sum())
        searched_differs += int((alt != want).sum())
    assert within >= 40
    assert agree == within
    assert searched_differs > 0  # the test can tell a search from swapper's answers


# ----------------------------------------------------------------------------------------------------
# Senshi

def _senshi_midgame(n=6, steps=14, seed=4, players=2, rules=None):
    from simcore.games.senshi import Senshi

    eng = Senshi()
    keys = game_keys(root_key(seed), np.arange(n))
    agents = lineup("senshi", ["counter"], players)
    s = eng.new_batch(keys, players, rules or eng.make_rules())
    seats = Seats(agents, keys)
    eng.play_state(s, seats, seats.lineup_for(eng), compiled=True, max_steps=steps)
    return eng, s


@pytest.mark.parametrize("players,rules", [(2, {}), (3, {"secret_hand": True}), (4, {"open_stacks": True,
                                                                                      "secret_hand": True})])
def test_senshi_sampler_never_reads_the_hidden_truth(players, rules):
    from simcore.games.senshi import Senshi

    eng, s = _senshi_midgame(players=players, rules=Senshi().make_rules(rules))
    draws = Draws(game_keys(root_key(8), np.arange(len(s.done))))
    changed = 0
    for seat in range(players):
        other = eng.scramble_hidden(s, seat, draws)
        for g in np.flatnonzero(~s.done):
            a = eng.sample_hidden(s, g, seat, key=77 + g, n=20)
            b = eng.sample_hidden(other, g, seat, key=77 + g, n=20)
            changed += not (np.array_equal(other.tiles[g], s.tiles[g]) and np.array_equal(other.hand[g], s.hand[g]))
            for k in a:
                np.testing.assert_array_equal(a[k], b[k], err_msg=k)
            c = eng.sample_hidden(s, g, seat, key=78 + g, n=20)
            assert not all(np.array_equal(a[k], c[k]) for k in a), "another stream gives other samples"
    assert changed > 0, "the scramble must change hidden tiles"


@pytest.mark.parametrize("players", [2, 4])
def test_senshi_samples_agree_with_the_view_and_have_the_unseen_marginals(players):
    from simcore.games.senshi import NC, PER_COLOUR, REMOVED

    eng, s = _senshi_midgame(n=1, steps=4 * players, players=players)
    g, n = 0, 3000
    me = int(s.cur[g])
    view = eng.observe_all(s, np.array([g]), me)
    unseen = view["unseen"][0].astype(np.int64)
    assert unseen.sum() > 0
    out = eng.sample_hidden(s, g, me, key=5, n=n)
    tiles, hands = out["tiles"].astype(np.int64), out["hand"].astype(np.int64)
    h = s.height[g].astype(np.int64)
    present = np.arange(3)[None, :] >= (3 - h)[:, None]
    buried = np.arange(3)[None, :] > (3 - h)[:, None]
    for t in range(n):
        # the view: own hand, the others' known tiles and hand sizes, the tops, nothing where a stack is gone
        np.testing.assert_array_equal(hands[t, me], s.hand[g, me])
        assert (hands[t] >= s.known[g]).all() and (hands[t].sum(axis=1) == s.hand_size[g]).all()
        np.testing.assert_array_equal(np.where(present & ~buried, tiles[t], -1), np.where(present & ~buried, s.tiles[g], -1))
        assert (tiles[t][~present] == -1).all()
        # every tile in play once
        per = np.array([(tiles[t][present] == c).sum() for c in range(NC)]) + hands[t].sum(axis=0) + s.piles[g].sum(axis=0)
        np.testing.assert_array_equal(per, np.full(NC, PER_COLOUR - REMOVED[players]))
    # marginals: a buried position holds colour c with probability unseen[c] / all unseen
    q = unseen / unseen.sum()
    band = 4.5 * np.sqrt(q * (1 - q) / n) + 1e-9
    sl, k = np.argwhere(buried)[0]
    got = np.bincount(tiles[:, sl, k], minlength=NC)[:NC] / n
    assert (np.abs(got - q) < band).all(), (got, q)
    # and an unknown hand tile of another seat likewise: the expected count of colour c is u * q[c]
    others = [p for p in range(players) if p != me and s.hand_size[g, p] > s.known[g, p].sum()]
    assert others
    p = others[0]
    u = int(s.hand_size[g, p] - s.known[g, p].sum())
    extra = hands[:, p] - s.known[g, p][None, :]
    mean = extra.mean(axis=0)
    sd = np.sqrt(u * q * (1 - q) * (unseen.sum() - u) / max(unseen.sum() - 1, 1) / n) + 1e-9
    assert (np.abs(mean - u * q) < 4.5 * sd + 1e-9).all(), (mean, u * q)


def test_senshi_search_tests_to_avoid_elimination_on_the_last_turn():
    """Two players, the last turn of the game: seat 0 (piles 5, 5, 5, 1; a Strength and a Wisdom tile in
    hand) is eliminated unless it lifts its Wisdom pile to 2, the opponent's smallest (then nobody is
    eliminated and its 5 beats the opponent's 3). Testing Strength, or training the last tile on the table,
    loses; the search must Test Wisdom."""
    from simcore.games.senshi import GONE, OPTION_STRIDE, TEST, Decision, Senshi

    eng = Senshi()
    keys = game_keys(root_key(1), np.arange(1))
    st = eng.new_state(keys, 2, eng.make_rules())
    agents = lineup("senshi", ["ismcts:iterations=200", "ismcts:iterations=8"], 2)  # one lineup module: the search's
    seats = Seats(agents, keys)
    st.kind[0] = Decision.ACT   # past the set-up: the whole position is written below
    S = st.tiles.shape[1]
    st.loc[0, :] = GONE
    st.height[0, :] = 0
    st.top[0, :] = -1
    # one stack left on seat 1's card, height 1: a Strength tile
    st.loc[0, 0] = 1
    st.height[0, 0] = 1
    st.tiles[0, 0] = [-1, -1, 0]
    st.top[0, 0] = 0
    st.cards[0, :, :] = -1
    st.cards[0, 1, 0] = 0
    st.card_count[0, :] = [0, 1]
    st.card_tops[0, :, :] = 0
    st.card_tops[0, 1, 0] = 1
    st.mid_count[0] = 0
    st.piles[0, 0] = [5, 5, 5, 1]
    st.piles[0, 1] = [3, 3, 3, 2]
    st.hand[0, 0] = [1, 0, 0, 1]
    st.hand[0, 1] = [12 - 5 - 3 - 1 - 1, 12 - 5 - 3, 12 - 5 - 3, 12 - 1 - 2 - 1]
    st.known[0, 0] = [1, 0, 0, 1]
    st.known[0, 1] = st.hand[0, 1] - np.array([0, 1, 0, 1])
    st.hand_size[0] = st.hand[0].sum(axis=1)
    st.remaining[0] = 1
    st.emptier[0] = 0
    st.turns[0] = 30
    st.cur[0] = 0
    eng.check(st)
    assert S == 16 and st.tiles[0, 1:].size
    opt = eng.decide(st, np.array([0]), seats, seats.lineup_for(eng))
    assert int(opt[0]) == TEST * OPTION_STRIDE + 3


# ----------------------------------------------------------------------------------------------------
# Sensu

def _sensu_midgame(players, rules=None, n=8, steps=30, seed=4, spec="planner"):
    from simcore.games.sensu import Sensu

    eng = Sensu()
    keys = game_keys(root_key(seed), np.arange(n))
    agents = lineup("sensu", [spec], players)
    s = eng.new_batch(keys, players, eng.make_rules(rules or {}))
    seats = Seats(agents, keys)
    eng.play_state(s, seats, seats.lineup_for(eng), compiled=True, max_steps=steps)
    return eng, s


def _sensu_unseen(eng, s, g, me):
    """The cards in play that seat ``me`` has not seen (not in its hand, a pile, a fan, a column, the cards
    being redeemed, or publicly held), split into those of the last reshuffle's deck and the older ones."""
    from simcore.games.sensu import deck_cards

    seen = set(s.hand[g, me, :s.hand_n[g, me]].tolist()) if s.players > 1 else set()
    for arr in (s.pile[g], s.fan[g], s.columns[g], s.red[g], s.limbo[g]):
        seen |= set(arr[arr >= 0].ravel().tolist())
    seen |= set(np.flatnonzero(s.held[g] >= 0).tolist())
    unseen = [c for c in deck_cards(s.players).tolist() if c not in seen]
    if s.reshuffles[g] == 0 or s.players == 1:
        return unseen, []
    return [c for c in unseen if s.fresh[g, c]], [c for c in unseen if not s.fresh[g, c]]


SENSU_CASES = [(2, {}, "planner", 30), (3, {"chosen_fan": True}, "planner", 40), (4, {"powers": True}, "random", 60),
               (3, {"chosen_fan": True, "powers": True}, "random", 400)]


@pytest.mark.parametrize("players,rules,spec,steps", SENSU_CASES)
def test_sensu_sampler_never_reads_the_hidden_truth(players, rules, spec, steps):
    eng, s = _sensu_midgame(players, rules, steps=steps, spec=spec)
    draws = Draws(game_keys(root_key(8), np.arange(len(s.done))))
    changed = checked = 0
    for seat in range(players):
        other = eng.scramble_hidden(s, seat, draws)
        eng.check(other)
        for g in np.flatnonzero(~s.done):
            a = eng.sample_hidden(s, g, seat, key=77 + g, n=20)
            b = eng.sample_hidden(other, g, seat, key=77 + g, n=20)
            changed += not (np.array_equal(other.hand[g], s.hand[g]) and np.array_equal(other.deck[g], s.deck[g]))
            for k in a:
                np.testing.assert_array_equal(a[k], b[k], err_msg=k)
            c = eng.sample_hidden(s, g, seat, key=78 + g, n=20)
            assert not np.array_equal(a["deck"], c["deck"]), "another stream gives other samples"
            checked += 1
    assert checked >= 3 and changed > 0, "the scramble must change hidden cards"


def test_sensu_positions_of_the_tests_hold_held_cards_and_reshuffles():
    """The cases above and below meet the public record: cards known to be held, and reshuffled decks."""
    held = reshuffled = 0
    for players, rules, spec, steps in SENSU_CASES:
        _, s = _sensu_midgame(players, rules, steps=steps, spec=spec)
        held += int((s.held >= 0).sum())
        reshuffled += int(((s.reshuffles > 0) & ~s.done).sum())
    assert held > 0 and reshuffled > 0


@pytest.mark.parametrize("players,rules,spec,steps", SENSU_CASES + [(1, {}, "planner", 20)])
def test_sensu_samples_agree_with_the_view_and_have_the_unseen_marginals(players, rules, spec, steps):
    from simcore.games.sensu import deck_cards

    eng, s = _sensu_midgame(players, rules, steps=steps, spec=spec)
    live = np.flatnonzero(~s.done)
    # prefer a game after a reshuffle when there is one (its two pools), else one with held cards
    order = sorted(live, key=lambda g: (-int(s.reshuffles[g] > 0), -int((s.held[g] >= 0).sum())))
    g = int(order[0])
    me = int(s.current[g])
    n = 3000
    out = eng.sample_hidden(s, g, me, key=5, n=n)
    hands, decks, cfs = (out[k].astype(np.int64) for k in ("hand", "deck", "cf_deck"))
    new, old = _sensu_unseen(eng, s, g, me)
    assert new or old
    D = int(s.deck_n[g])
    visible = [c for c in deck_cards(players).tolist() if c not in set(new) | set(old)]
    for t in range(0, n, 37):
        np.testing.assert_array_equal(hands[t, me], s.hand[g, me])
        assert ((hands[t] >= 0) == (np.arange(8)[None, :] < s.hand_n[g][:, None])).all(), "hand sizes"
        assert ((decks[t] >= 0) == (np.arange(decks.shape[1]) < D)).all(), "deck size"
        for c in np.flatnonzero(s.held[g] >= 0):
            assert c in hands[t, s.held[g, c]].tolist(), "a held card stays with its holder"
        placed = hands[t][hands[t] >= 0].tolist() + decks[t][decks[t] >= 0].tolist()
        inside = set(placed) - set(s.hand[g, me].tolist()) - set(np.flatnonzero(s.held[g] >= 0).tolist())
        assert sorted(inside) == sorted(new + old) and len(placed) == len(set(placed)), "every unseen card once"
        assert not set(decks[t][decks[t] >= 0].tolist()) & set(old), "older cards are not in the new deck"
        if s.reshuffles[g] > 0 and players > 1:
            for q in range(players):
                if q != me:
                    h = hands[t, q][hands[t, q] >= 0]
                    assert np.isin(h, new).sum() == s.drawn[g, q], "the new deck's cards of each hand"
        assert not set(placed) & set(visible) - set(s.hand[g, me].tolist()) - set(
            np.flatnonzero(s.held[g] >= 0).tolist()), "a seen card dealt again"
    # marginals: the deck's top card is uniform over the new deck's unseen cards (4.5-sigma bands)
    if D:
        q = 1.0 / len(new)
        band = 4.5 * np.sqrt(q * (1 - q) / n)
        top = decks[:, D - 1]
        for c in new:
            assert abs((top == c).mean() - q) < band, (c, (top == c).mean(), q)
    # an opponent's hidden cards: each unseen card of its pool lies in that hand with probability
    # (its cards from that pool) / (the pool's size)
    for q_seat in range(players):
        if q_seat == me:
            continue
        hidden = int(s.hand_n[g, q_seat] - (s.held[g] == q_seat).sum())
        if s.reshuffles[g] > 0:
            parts = ((new, int(s.drawn[g, q_seat])), (old, hidden - int(s.drawn[g, q_seat])))
        else:
            parts = ((new, hidden),)
        for pool, k in parts:
            if not pool or k == 0:
                continue
            p = k / len(pool)
            band = 4.5 * np.sqrt(p * (1 - p) / n) + 1e-9
            for c in pool:
                share = (hands[:, q_seat] == c).any(axis=1).mean()
                assert abs(share - p) < band, (q_seat, c, share, p)
    # the closed-fan deck: the true composition in every sample, its top card's type by the counts
    if rules.get("chosen_fan"):
        k = int(s.cf_n[g])
        truth = np.sort(s.cf_deck[g, :k])
        for t in range(0, n, 37):
            np.testing.assert_array_equal(np.sort(cfs[t, :k]), truth)
            assert (cfs[t, k:] == -1).all()
        if k:
            cnt = np.bincount(truth, minlength=3) / k
            got = np.bincount(cfs[:, k - 1], minlength=3) / n
            assert (np.abs(got - cnt) < 4.5 * np.sqrt(cnt * (1 - cnt) / n) + 1e-9).all(), (got, cnt)


def _sensu_walk(players, rules, n, seed, spec="planner"):
    """Play ``n`` games decision by decision in the batch lane, working out each card's generation from the
    reshuffles alone (the cards in the deck right after one are of its number; 0 the starting deck), and
    checking the engine's ``gen`` against it after every decision. Returns the engine and, for each game
    that comes to one, a copy of its first position in which the seat to decide faces two or more other
    seats holding hidden cards of the decks before the last reshuffle, of two or more generations."""
    import copy

    from simcore.games.sensu import Sensu

    eng = Sensu()
    keys = game_keys(root_key(seed), np.arange(n))
    st = eng.new_batch(keys, players, eng.make_rules(rules))
    seats = Seats(lineup("sensu", [spec], players), keys)
    lu = seats.lineup_for(eng)
    lu.call("begin_batch", eng.state_tuple(st), eng.rules_tuple(st), np.arange(n, dtype=np.int64))
    limit = eng.turn_limit(st.rules)
    gen = np.zeros((n, 90), np.int64)
    found = {}
    while True:
        idx = np.flatnonzero(~st.done & (st.turns < limit))
        if not len(idx):
            return eng, list(found.values())
        before = st.reshuffles.copy()
        eng.step_games(st, idx, seats, lu)
        for g in np.flatnonzero(st.reshuffles != before):
            gen[g, st.deck[g, :st.deck_n[g]].astype(np.int64)] = st.reshuffles[g]
        np.testing.assert_array_equal(st.gen, gen)
        for g in idx:
            if st.done[g] or g in found or st.reshuffles[g] < 2:
                continue
            me = st.current[g]
            holders, gens = set(), set()
            for q in range(players):
                h = st.hand[g, q, :st.hand_n[g, q]].astype(np.int64)
                old = [c for c in h[st.held[g, h] != q] if gen[g, c] < st.reshuffles[g]]
                if q != me and old:
                    holders.add(q)
                    gens |= {int(gen[g, c]) for c in old}
            if len(holders) >= 2 and len(gens) >= 2:
                found[int(g)] = (copy.deepcopy(st), int(g))


def test_sensu_samples_keep_every_older_decks_count_in_every_hand():
    """Every reshuffle makes its deck of face-up cards and every card that leaves a hand shows, so how many
    hidden cards of each older deck every seat holds is public: each sample gives every other seat exactly
    as many cards of each generation as it holds, and each card of an older deck lies in a hand with
    probability (that hand's cards of its deck) / (the deck's unseen cards). Positions: three players after
    two reshuffles or more, with two or more other seats holding cards of two or more older decks."""
    eng, found = _sensu_walk(3, {"chosen_fan": True}, 40, 4)
    assert len(found) >= 3, "the games must come to such positions"
    for i, (st, g) in enumerate(found[:6]):
        me = int(st.current[g])
        eng.check(st)
        n = 3000 if i == 0 else 300
        hands = eng.sample_hidden(st, g, me, key=31 + i, n=n)["hand"].astype(np.int64)
        for q in range(3):
            if q == me:
                continue
            held = set(np.flatnonzero(st.held[g] == q).tolist())
            h = st.hand[g, q, :st.hand_n[g, q]].astype(np.int64)
            truth = np.bincount(st.gen[g, [c for c in h if c not in held]], minlength=64)
            for t in range(n):
                got = [c for c in hands[t, q] if c >= 0 and c not in held]
                np.testing.assert_array_equal(np.bincount(st.gen[g, got], minlength=64), truth,
                                              err_msg=f"position {i}, seat {q}, sample {t}")
            if i == 0:
                # the marginals of the older decks' cards in this hand
                for k in np.flatnonzero(truth[:int(st.reshuffles[g])]):
                    pool = [c for c in range(90) if st.gen[g, c] == k and any(
                        c in st.hand[g, o, :st.hand_n[g, o]] and st.held[g, c] != o for o in range(3) if o != me)]
                    p = truth[k] / len(pool)
                    band = 4.5 * np.sqrt(p * (1 - p) / n) + 1e-9
                    for c in pool:
                        share = (hands[:, q] == c).any(axis=1).mean()
                        assert abs(share - p) < band, (q, k, c, share, p)


def _sensu_script(hands, fans, rules=None, to_move=0):
    """A two-player Sensu position: ``hands`` (card ids per seat), ``fans`` {(seat, type): cards}; every
    other card in the deck (shuffled by the deal), seat ``to_move`` to start its turn."""
    from simcore.games.sensu import Decision, Sensu, card_sticks, deck_cards

    eng = Sensu()
    keys = game_keys(root_key(1), np.arange(1))
    st = eng.new_state(keys, 2, eng.make_rules(rules or {}))
    used = [c for h in hands for c in h] + [c for f in fans.values() for c in f]
    rest = [int(c) for c in st.deck[0, :st.deck_n[0]] if int(c) not in used]
    rest += [int(c) for p in range(2) for c in st.hand[0, p, :st.hand_n[0, p]] if int(c) not in used]
    assert sorted(rest + used) == sorted(deck_cards(2).tolist())
    st.deck[0, :] = -1
    st.deck[0, :len(rest)] = rest
    st.deck_n[0] = len(rest)
    st.hand[0, :, :] = -1
    for p, h in enumerate(hands):
        st.hand[0, p, :len(h)] = h
        st.hand_n[0, p] = len(h)
    ST = card_sticks(st.rules)
    for (p, t), cards in fans.items():
        st.fan[0, p, t, :len(cards)] = cards
        st.fan_n[0, p, t] = len(cards)
        st.fan_sticks[0, p, t] = int(ST[cards].sum())
        st.closed[0, p, t] = st.fan_sticks[0, p, t] == 10
    st.current[0] = to_move
    st.turns[0] = 20 + to_move
    st.kind[0] = Decision.TURN
    eng.check(st)
    return eng, st


def test_sensu_search_finds_the_combination_that_closes_the_second_fan():
    """Seat 0 has closed its Gun-sen fan and holds Hi-ogi at 7 sticks. Of its two combinations, Mai-ougi
    5 + Mai-ougi 9 + Hi-ogi 6 (20) redeems a 3-stick card, and choosing the Hi-ogi 6 among the two 3-stick
    cards closes Hi-ogi: a win now. The other, Mai-ougi 1 + Mai-ougi 9 + Hi-ogi 6 + Gun-sen 4, redeems the
    4-stick Mai-ougi 1 (a new fan). The search must play the first and redeem the Hi-ogi 6."""
    from simcore.games.sensu import GUNSEN, HIOGI, MAIOUGI, PLAY, Decision

    def card(t, v, copy=0):
        return t * 30 + (v - 1) * 3 + copy

    hi6, mai9, mai5, mai1, gun4 = card(HIOGI, 6), card(MAIOUGI, 9), card(MAIOUGI, 5), card(MAIOUGI, 1), card(GUNSEN, 4)
    hand0 = [mai1, gun4, mai5, hi6, mai9]
    hand1 = [card(GUNSEN, 9), card(GUNSEN, 8), card(HIOGI, 9), card(HIOGI, 8), card(MAIOUGI, 8)]
    fans = {(0, GUNSEN): [card(GUNSEN, 1), card(GUNSEN, 2), card(GUNSEN, 7)],
            (0, HIOGI): [card(HIOGI, 1), card(HIOGI, 4)],
            (1, MAIOUGI): [card(MAIOUGI, 2), card(MAIOUGI, 3)]}
    eng, st = _sensu_script([hand0, hand1], fans)
    win_mask = sum(1 << hand0.index(c) for c in (mai5, hi6, mai9))
    other_mask = sum(1 << hand0.index(c) for c in (mai1, mai9, hi6, gun4))
    assert set(eng.legal_options(st, 0).tolist()) >= {PLAY + win_mask, PLAY + other_mask}
    agents = lineup("sensu", ["ismcts:iterations=300", "ismcts:iterations=8"], 2)  # one lineup module: the search's
    seats = Seats(agents, st.keys)
    lu = seats.lineup_for(eng)
    opt = int(eng.decide(st, np.array([0]), seats, lu)[0])
    assert opt == PLAY + win_mask
    assert eng.step_one(st, 0, opt) and st.kind[0] == Decision.ARRANGE
    opt = int(eng.decide(st, np.array([0]), seats, lu)[0])
    assert opt & 7 == hand0.index(hi6) + 1, "the Hi-ogi 6 is redeemed (the first slot of the arrangement)"
    assert eng.step_one(st, 0, opt)
    assert st.done[0] and st.winner[0] == 0


def test_sensu_search_decisions_never_read_the_hidden_truth_with_the_variants():
    """The leak probe of ``tests/test_protocol.py`` (which plays every strategy at the default player count
    and rules) over the search's decisions in two-player games with both variants (chosen fans, powers)."""
    from simcore.games.sensu import Sensu
    from tests.test_protocol import _probe_decisions

    eng = Sensu()
    agents = lineup("sensu", ["ismcts:iterations=8"], 2)
    assert _probe_decisions(eng, agents, 2, eng.make_rules({"chosen_fan": True, "powers": True}), n=6, every=5) > 0


def test_a_lineup_with_the_search_plays_in_small_chunks_with_the_same_results(tmp_path):
    """Without a chunk size, a run with ``ismcts`` in a seat plays chunks of at most 32 games (deals), so
    that workers share even one cell; its results are those of any other chunking."""
    from experiments.config import load
    from experiments.engine import chunk_size
    from simcore.runner import default_chunk, simulate

    agents = lineup("fan-and-mallet", ["ismcts:iterations=4", "counter"], 2)
    assert default_chunk(400, agents) == 32 and default_chunk(10, agents) == 32
    assert default_chunk(400, lineup("fan-and-mallet", ["counter"], 2)) == 1024
    run = simulate("fan-and-mallet", agents, n_games=70, seed=3, jobs=1)  # chunks of 32, 32 and 6 games
    assert run.summary() == simulate("fan-and-mallet", agents, n_games=70, seed=3, jobs=1, chunk_size=70).summary()
    base = {"title": "t", "question": "q", "game": "fan-and-mallet", "players": 2, "games": 400, "seed": 1,
            "lineup": {"seats": ["counter", "counter"]},
            "sweep": {"play": {"h": {"seat0": "counter"}, "s": {"seat0": "closer"}}},
            "report": {"answer": "turn_order", "over": "play", "baseline": "h", "per_game": True}}
    assert chunk_size(load(base)) == 1024
    search = dict(base, sweep={"play": {"h": {"seat0": "counter"}, "s": {"seat0": "ismcts:iterations=4"}}})
    assert chunk_size(load(search)) == 32
    assert chunk_size(load(dict(search, chunk_size=100))) == 100


def test_sen_search_plays_the_negative_options_discard_and_use():
    """Sen's drawn card is discarded (option -1) or used (-2): the search took every negative option for the
    lineup's 'no answer' and never played them, in its tree or in its rollouts (where the card went into
    slot 0 instead). Asked at drawn-card decisions where threshold discards about half the time, it now
    discards too."""
    from simcore.game import Seats
    from simcore.registry import get_game
    from simcore.rng import game_keys, root_key
    from strategies.registry import lineup

    eng = get_game("sen")
    n = 40
    keys = game_keys(root_key(17), np.arange(n))
    s = eng.new_batch(keys, 2, eng.make_rules())
    seats = Seats(lineup("sen", ["threshold"], 2), keys)
    lu = seats.lineup_for(eng)
    eng.play_state(s, seats, lu, compiled=False, max_steps=0)
    search = Seats(lineup("sen", ["ismcts:iterations=60,searched=all"], 2), keys)
    answers = []
    for _ in range(12):
        live = np.flatnonzero(~s.done)
        drawn = live[s.kind[live] == 2]
        if len(drawn):
            answers += list(eng.decide(s, drawn, search, search.lineup_for(eng)))
        eng.step_games(s, live, seats, lu)
    answers = np.asarray(answers)
    assert len(answers) >= 40 and (answers == -1).sum() >= 5, answers
