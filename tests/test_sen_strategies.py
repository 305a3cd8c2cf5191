"""Sen strategies: reference policies to the letter, and the heuristics' strength."""
import numpy as np

from simcore.game import Seats
from simcore.games.sen import KIND, VALUE, Decision, Drawn, Kind, Sen, SenRules, Start, peek_option
from simcore.rng import game_keys, root_key
from simcore.runner import simulate
from simcore.stats import wilson
from strategies.registry import resolve
from strategies.sen import Threshold, unseen_stats_one


ENG = Sen()


def decide(strategy, own, top, card=None, kind=Kind.PLAIN, players=2, decision=Decision.START):
    """The option ``strategy`` (seat 0) takes at ``decision`` when it remembers ``own`` (-1 unknown) of its
    lands, the face-up top has value ``top``, and (decision DRAWN) it drew a card of value ``card``."""
    keys = game_keys(root_key(0), np.arange(1))
    st = ENG.new_state(keys, players, SenRules())
    st.mem[0, 0, 0, :] = -1
    st.mem[0, 0, 0, :len(own)] = own
    st.nslots[0, 0] = len(own)
    st.up[0, 0] = card_of(top)
    st.kind[0] = decision
    if decision == Decision.DRAWN:
        st.pend[0, 0] = card_of(card, kind)
    st.cur[0] = 0
    seats = Seats([strategy] * players, keys)
    return int(ENG.decide(st, np.array([0]), seats, seats.lineup_for(ENG))[0])


def card_of(value, kind=Kind.PLAIN):
    if kind != Kind.PLAIN:
        return int(np.flatnonzero(KIND == kind)[0])
    return int(np.flatnonzero((VALUE == value) & (KIND == Kind.PLAIN))[0])


def test_threshold_exact_comparisons():
    t = Threshold(wake=10)
    # two unknown slots: 2 * 31/6 = 10.33 > 10 - 0 known -> no wake with known 0, 0
    assert decide(t, [0, 0, -1, -1], top=9) == Start.DRAW
    assert decide(t, [5, 5, 0, 0], top=9) == Start.WAKE        # 10 <= 10
    assert decide(t, [5, 5, 1, 0], top=9) == Start.DRAW        # 11 > 10
    # the worst estimate is an unknown slot (31/6 = 5.17): a face-up 5 is taken, a 6 is not
    assert decide(t, [5, 5, 1, -1], top=5) == Start.FACE_UP
    assert decide(t, [5, 5, 1, -1], top=5, decision=Decision.FACE_UP) == 3
    assert decide(t, [5, 5, 1, -1], top=6) == Start.DRAW
    # ties on the largest estimate: lowest index
    assert decide(t, [7, 2, 7, 1], top=0, decision=Decision.FACE_UP) == 0


def test_threshold_drawn_rules():
    t = Threshold()
    # Peek with an unknown own slot: use it on the lowest-index unknown slot
    assert decide(t, [3, 3, -1, -1], top=9, card=6, kind=Kind.PEEK, decision=Decision.DRAWN) == Drawn.USE
    assert decide(t, [3, 3, -1, -1], top=9, decision=Decision.PEEK) == peek_option(0, 2)
    # Peek with all known: plain land 6 vs worst 7 -> exchange
    assert decide(t, [3, 7, 1, 2], top=9, card=6, kind=Kind.PEEK, decision=Decision.DRAWN) == 1
    # Swap 2 is never used: a 7 against a worst of 31/6 is discarded
    assert decide(t, [3, 3, -1, -1], top=9, card=7, kind=Kind.SWAP, decision=Decision.DRAWN) == Drawn.DISCARD
    # a 5 beats an unknown (31/6)
    assert decide(t, [3, 3, 1, -1], top=9, card=5, kind=Kind.TAKE2, decision=Decision.DRAWN) == 3


def focus_share(spec, field, players, n, seed=5):
    wins, total = 0.0, 0
    for rot in range(players):
        agents = [resolve("sen", field)] * players
        agents[rot] = resolve("sen", spec)
        r = simulate("sen", agents, n_games=n, seed=seed)
        wins += r.totals.sums["win"][rot]
        total += r.n
    lo, hi = wilson(wins, total)
    return wins / total, float(lo), float(hi)


def test_swapper_beats_best_threshold_head_to_head():
    share, lo, hi = focus_share("swapper", "threshold:wake=13", 4, 600)
    assert lo > 0.25, (share, lo, hi)


def test_every_strategy_is_legal_under_every_variant():
    from simcore.games.sen import Sen
    from simcore.rng import root_key
    from strategies.registry import strategies_for
    from tests.lanes import cheap

    eng = Sen()
    variants = [{"know_what_i_have": True}, {"ravens_not_scary": True, "go_all_in": True, "penalty": 15},
                {"rounds": 2, "caller_tie": "count"}]
    for rules in variants:
        for players in (2, 5):
            for name in strategies_for("sen"):
                agents = [resolve("sen", cheap(name))] * players
                eng.play(np.arange(12), players, eng.make_rules(rules), agents, root_key(4), check=True)


def test_heuristics_name_known_pairs_under_know_what_i_have():
    from simcore.games.sen import Sen
    from simcore.rng import root_key

    eng = Sen()
    claims = []

    def spy(state):
        claims.append(int((state.nslots != 4).sum()))

    eng.play(np.arange(40), 4, eng.make_rules({"know_what_i_have": True}), [resolve("sen", "counter")] * 4,
             root_key(4), check=True, on_turn=spy)
    assert max(claims) > 0  # some dream changed size: a pair was named


def head_to_head(a, b, n, seed=3, players=4):
    """A in seats 0, 2 and B in 1, 3, then the other way round: A's share of the wins (0.5 = even)."""
    wins, total = 0.0, 0
    for start in range(2):
        seats_a = [i for i in range(players) if (i + start) % 2 == 0]
        agents = [resolve("sen", a if i in seats_a else b) for i in range(players)]
        r = simulate("sen", agents, n_games=n, seed=seed)
        wins += r.totals.sums["win"][seats_a].sum()
        total += r.n
    lo, hi = wilson(wins, total)
    return wins / total, float(lo), float(hi)


def test_gambler_beats_the_best_threshold_two_against_two():
    share, lo, hi = head_to_head("gambler", "threshold:wake=16", 2000)
    assert lo > 0.5, (share, lo, hi)


def test_unseen_stats_count_the_deck_minus_what_was_seen():
    """The unseen mean and variance (counted in packed integers) equal a plain count of the deck minus
    the face-up pile and every remembered land, for random memories of 2 to 5 players (also memories
    and piles that over-count a value, which the count clips at none left)."""
    deck = np.array([4, 4, 4, 4, 4, 7, 7, 7, 4, 9])
    rng = np.random.default_rng(3)
    for trial in range(400):
        players = int(rng.integers(2, 6))
        mem = np.where(rng.random((players, 8)) < rng.random(), rng.integers(0, 10, (players, 8)), -1).astype(np.int8)
        up = rng.integers(0, 3 if trial % 4 else 10, 10).astype(np.int64)
        seen = up + np.bincount(mem[mem >= 0].astype(np.int64), minlength=10)
        left = np.maximum(deck - seen, 0).astype(float)
        n = left.sum()
        if n == 0:
            want = (279 / 54, 0.0)
        else:
            mean = (left * np.arange(10)).sum() / n
            want = (mean, max((left * np.arange(10) ** 2).sum() / n - mean * mean, 0.0))
        assert unseen_stats_one(mem, up) == want, (mem, up)
