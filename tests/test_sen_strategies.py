"""Sen strategies: reference policies to the letter, and the heuristics' strength."""
import numpy as np
from scipy.stats import chisquare

from simcore.game import Seats
from simcore.games.sen import (KIND, MAX_OPTIONS, SWAP_STRIDE, VALUE, Decision, Drawn, Kind, Sen, SenRules, Start, legal,
                               peek_option)
from simcore.rng import game_keys, root_key
from simcore.runner import simulate
from simcore.stats import wilson
from strategies.registry import resolve
from strategies.sen import Threshold, unseen_stats_one
from tests.sen_script import make_deck


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


# ---------------------------------------------------------------------------------------------
# the reference policy ``random``: each decision uniform over the options the rulings list

class Lockstep:
    """A numpy strategy giving every game of the batch the same answers, in order (to bring a batch of
    identical scripted deals to one position through the engine's own turns)."""

    def __init__(self, answers):
        self.answers = list(answers)

    def spec(self):
        return "lockstep"

    def __getattr__(self, decision):
        if decision.startswith("_"):
            raise AttributeError(decision)

        def answer(obs, rng):
            want, a = self.answers.pop(0)
            assert want == decision, (want, decision)
            m = len(obs.me)
            return tuple(np.full(m, x) for x in a) if isinstance(a, tuple) else np.full(m, a)
        return answer


def random_choices(turn, down, sizes="dealt", n=6000, p_wake=0.1, seed=11):
    """The options ``random`` (p_wake) takes in ``n`` games at one position: a 3-player scripted deal, then
    (sizes="changed", variant know_what_i_have) seat 0 names two lands wrongly (5 lands), seat 1 rightly
    (3 lands) and seat 2 draws and discards; then seat 0 answers ``turn``, the face-down pile being
    ``down`` from there on. Returns (options taken (n,), the engine's legal options there)."""
    changed = sizes == "changed"
    before = [0, 7, 5] if changed else []
    deck = make_deck([[1, 2, 3, 4], [7, 7, 8, 8], [0, 0, 5, 5]], 6, before + list(down))
    rules = SenRules(know_what_i_have=changed)
    keys = game_keys(root_key(seed), np.arange(n))
    st = ENG.new_state(keys, 3, rules, script=[np.repeat(deck[None], n, 0)])
    setup = [[("start", Start.CLAIM), ("claim", (0, 1, 9))] if changed else [],
             [("start", Start.CLAIM), ("claim", (2, 3, 8))] if changed else [],
             [("start", Start.DRAW), ("drawn", Drawn.DISCARD)] if changed else []]
    setup[0] = setup[0] + list(turn)
    seats = Seats([Lockstep(a) for a in setup], keys)
    idx = np.arange(n)
    for _ in range(sum(len(a) for a in setup)):
        ENG.step_games(st, idx, seats)
        ENG.check(st)
    assert (st.cur == 0).all() and (st.nslots[0] == ([5, 3, 4] if changed else [4, 4, 4])).all()
    assert (st.dream == st.dream[0]).all() and (st.kind == st.kind[0]).all()  # one position n times
    rseats = Seats([resolve("sen", f"random:p_wake={p_wake}")] * 3, keys)
    got = ENG.decide(st, idx, rseats, rseats.lineup_for(ENG))
    out = np.empty(MAX_OPTIONS, dtype=np.int64)
    k = legal(ENG.state_tuple(st), ENG.rules_tuple(st), 0, out)
    return got, out[:k].copy()


def assert_uniform(got, options, probs=None):
    """Every option taken is one of ``options``, and their counts fit ``probs`` (uniform if None): a
    chi-square test at p < 1e-6, which a correct policy fails once in a million seeds."""
    options = list(options)
    assert set(got.tolist()) <= set(options), sorted(set(got.tolist()) - set(options))
    counts = np.array([(got == o).sum() for o in options])
    probs = np.full(len(options), 1 / len(options)) if probs is None else np.asarray(probs)
    p = chisquare(counts, probs * len(got)).pvalue
    assert p > 1e-6, (p, dict(zip(options, counts.tolist())))
    return counts


def test_random_starts_wake_with_p_wake_then_face_up_or_down_half_each():
    for p_wake in (0.1, 0.35):
        got, opts = random_choices([], [3], n=30000, p_wake=p_wake)
        assert sorted(opts.tolist()) == [Start.WAKE, Start.FACE_UP, Start.DRAW]
        assert_uniform(got, [Start.WAKE, Start.FACE_UP, Start.DRAW], [p_wake, (1 - p_wake) / 2, (1 - p_wake) / 2])


def test_random_is_uniform_over_the_options_of_each_decision():
    U, D, USE, DISCARD = Start.FACE_UP, Start.DRAW, Drawn.USE, Drawn.DISCARD
    for sizes, own in (("dealt", 4), ("changed", 5)):
        # the face-up card: a slot among the current own slots
        got, opts = random_choices([("start", U)], [3], sizes)
        assert opts.tolist() == list(range(own))
        assert_uniform(got, opts)
        # a drawn plain land: exchange with each slot, or discard
        got, opts = random_choices([("start", D)], [3], sizes)
        assert opts.tolist() == list(range(own)) + [DISCARD]
        assert_uniform(got, opts)
        # a drawn special: those, and "use its action"
        for special in ("peek", "swap", "take2"):
            got, opts = random_choices([("start", D)], [special, 3, 4], sizes)
            assert opts.tolist() == list(range(own)) + [DISCARD, USE]
            assert_uniform(got, opts)
        # Take 2: which card to keep, half each; then the kept card (a special) like a drawn one
        got, opts = random_choices([("start", D), ("drawn", USE)], ["take2", 3, "peek"], sizes)
        assert opts.tolist() == [0, 1]
        assert_uniform(got, opts)
        got, opts = random_choices([("start", D), ("drawn", USE), ("keep", 1)], ["take2", 3, "peek"], sizes)
        assert opts.tolist() == list(range(own)) + [DISCARD, USE]
        assert_uniform(got, opts)
        # Peek 1: a position among all lands of all dreams (own included)
        got, opts = random_choices([("start", D), ("drawn", USE)], ["peek", 3], sizes)
        lands = 12
        assert len(opts) == lands and len(set(opts.tolist())) == lands
        assert_uniform(got, opts)


def test_random_swaps_an_unordered_pair_of_lands_uniformly():
    for sizes in ("dealt", "changed"):
        got, opts = random_choices([("start", Start.DRAW), ("drawn", Drawn.USE)], ["swap", 3], sizes, n=12000)
        a, b = np.divmod(got, SWAP_STRIDE)
        pair = np.minimum(a, b) * SWAP_STRIDE + np.maximum(a, b)
        la, lb = np.divmod(opts, SWAP_STRIDE)
        pairs = sorted(set((np.minimum(la, lb) * SWAP_STRIDE + np.maximum(la, lb)).tolist()))
        assert len(opts) == 66 and len(pairs) == 66  # every pair of two lands is legal, listed once
        assert (a != b).all()
        assert_uniform(pair, pairs)


def test_the_watchers_wake_rule_and_the_swappers_target_are_as_documented():
    """docs/games/sen.md: watcher wakes at most ``sure``, or ``margin`` below every opponent and at most
    ``cap`` (the cap binds the margin rule only: sure above cap still wakes); swapper takes the opponent land
    of lowest estimate, an unknown one counting the unseen mean + 0.5."""
    from strategies.sen import WATCHER, counting_swap_plan, counting_wants_wake

    mem = np.full((2, 8), -1, np.int8)
    mem[0, :4] = [4, 4, 4, 4]          # my own total 16, known
    mem[1, :4] = [9, 9, 9, 9]          # the opponent's 36
    nslots, kept = np.array([4, 4]), np.zeros((2, 8), bool)
    fw = np.zeros((8, 16))

    def wakes(margin, sure, cap):
        prm = np.array([0.0, 0.0, margin, sure, cap, -1.0, 0.0, 0.0])
        return bool(counting_wants_wake(WATCHER, prm, np.zeros(8), 4, mem, nslots, kept, 0, 5.0, 6.0, 5, fw))

    assert wakes(3.0, 20.0, 14.0)           # at most sure, above cap
    assert not wakes(3.0, 4.0, 14.0)        # the margin holds (16 + 3 <= 36), but 16 is above cap
    assert wakes(3.0, 4.0, 16.0)            # ... and at cap 16 it wakes by the margin
    assert not wakes(30.0, 4.0, 40.0)       # 16 + 30 > 36
    # the swap target: a known 7 against an unknown land (mean 5.33 + 0.5): the unknown one is taken
    mem2 = np.full((2, 8), -1, np.int8)
    mem2[1, :4] = [7, -1, 9, 9]
    gain, p, s = counting_swap_plan(mem2, nslots, 0, 16 / 3, 8.0)
    assert (p, s) == (1, 1) and abs(gain - (8.0 - (16 / 3 + 0.5))) < 1e-12
    mem2[1, 0] = 5                          # a known 5 is below 5.83: taken first
    assert counting_swap_plan(mem2, nslots, 0, 16 / 3, 8.0)[1:] == (1, 0)
