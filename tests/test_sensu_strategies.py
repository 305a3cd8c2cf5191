"""Sensu strategies: legal complete games, no hidden-information leak, reproducibility, in both lanes; the
reference policy ``random`` decision by decision against the rulings."""
import dataclasses
import itertools
from fractions import Fraction
from math import factorial

import numpy as np
import pytest
from scipy.stats import chisquare

from simcore.game import Seats
from simcore.games.sensu import ORDER_BITS, SUBSET_SIZE, Action, Decision, card_sticks, deck_cards
from simcore.registry import get_game
from simcore.rng import Draws, game_keys, root_key
from simcore.runner import simulate
from strategies.registry import lineup, strategies_for
from strategies.sensu import Random
from tests.lanes import assert_same, cheap
from tests.test_sensu_rules import stacked_deck

ENG = get_game("sensu")
#: the search at 16 iterations, not the suites' usual 8: a 5-player turn has 8 or more root options
#: (the deck, five piles, the combinations), so at 8 each is tried about once and the visits tie. When
#: such ties went to the first option listed (the deck, every turn), 5 of the 12 five-player games below
#: reached the turn limit (none at 16); ties now go to the higher mean reward, and none do at 8 either
#: (test_search_below_one_iteration_per_option_chooses_by_reward), but the suite keeps 16
NAMES = [cheap(s).replace("iterations=8", "iterations=16") if s == "ismcts" else cheap(s)
         for s in strategies_for("sensu")]


def test_registered():
    assert NAMES[0] == "random" and len(NAMES) >= 4


@pytest.mark.parametrize("name", NAMES)
def test_every_strategy_plays_legal_games(name):
    """The batch lane with the invariants checked at every decision point, and the compiled lane, agree
    (12 games per table for the search, whose decisions cost milliseconds; 30 for the others)."""
    n = 12 if name.startswith("ismcts") else 30
    for players, rules in ((1, {}), (2, {}), (3, {"sticks": "C"}), (4, {"powers": True}),
                           (5, {"chosen_fan": True, "powers": True}), (4, {"chosen_fan": True})):
        agents = lineup("sensu", [name], players)
        R = ENG.make_rules(rules)
        out = ENG.play(np.arange(n), players, R, agents, root_key(7), check=True)
        assert (out["turns"] > 0).all()
        if players > 1:
            assert out["timeout"].mean() < 0.2
            assert np.allclose(out["win"].sum(1), np.where(out["timeout"], 0, 1))
        assert_same(out, ENG.play(np.arange(n), players, R, agents, root_key(7)), f"{name} {players}")


def test_mixed_table():
    agents = lineup("sensu", NAMES[:4], 4)
    ENG.play(np.arange(40), 4, ENG.make_rules({"powers": True}), agents, root_key(8), check=True)


def test_search_below_one_iteration_per_option_chooses_by_reward():
    """With fewer iterations than root options every option is tried about once and the visits tie: the
    search then answers with the option of the highest mean reward, not with the first one listed (the
    deck, or in solo the pile). Answering with the first option, solo Sensu at 5 iterations put every card
    onto the pile and scored 0 in each of these games (with ties broken by reward: 25.55 on average), and
    5 of these 12 five-player games with ``chosen_fan`` and ``powers`` at 8 iterations reached the turn
    limit (now none)."""
    solo = ENG.play(np.arange(20), 1, ENG.make_rules(), lineup("sensu", ["ismcts:iterations=5"], 1), root_key(3))
    assert solo["score"].mean() > 16.15, "above the search at 1 iteration (16.15 on these games)"
    five = ENG.play(np.arange(12), 5, ENG.make_rules({"chosen_fan": True, "powers": True}),
                    lineup("sensu", ["ismcts:iterations=8"], 5), root_key(7))
    assert not five["timeout"].any()


@pytest.mark.parametrize("players,rules", [(1, {}), (4, {"powers": True}), (3, {"chosen_fan": True, "powers": True})])
def test_no_leak_views_and_decisions(players, rules):
    """At decision points all through games, mid-turn included: scrambling what the deciding seat cannot see
    (the deck order, the other hands, the closed-fan deck) changes nothing it observes and none of the
    decisions of any strategy in its seat (asked with the same random numbers)."""
    R = ENG.make_rules(rules)
    agents = lineup("sensu", NAMES, players) if players == len(NAMES) else lineup("sensu", ["planner"], players)
    draws = Draws(game_keys(root_key(5), np.arange(12)))
    keys = game_keys(root_key(6), np.arange(12))
    seen = [0]
    kinds = set()

    def decide(strategy, st, idx):
        seats = Seats([strategy] * players, keys)
        return ENG.decide(st, idx, seats, seats.lineup_for(ENG))

    def probe(st):
        live = np.flatnonzero(~st.done)
        if len(live) == 0 or int(st.turns.max()) % 3:
            return
        for seat in range(players):
            view = ENG.observe_all(st, live, seat)
            other = ENG.scramble_hidden(st, seat, draws)
            again = ENG.observe_all(other, live, seat)
            for k in view:
                np.testing.assert_array_equal(view[k], again[k], err_msg=k)
            mine = live[st.current[live] == seat]
            if len(mine):
                kinds.update(int(k) for k in st.kind[mine])
                for name in NAMES:
                    s = lineup("sensu", [name], 1)[0]
                    np.testing.assert_array_equal(decide(s, st, mine), decide(s, other, mine), err_msg=name)
            seen[0] += 1
            if players > 1:  # the other hands really changed
                others = [p for p in range(players) if p != seat]
                assert not np.array_equal(st.hand[live][:, others], other.hand[live][:, others]) or \
                    not np.array_equal(st.deck[live], other.deck[live])

    ENG.play(np.arange(12), players, R, agents, root_key(9), on_turn=probe)
    assert seen[0] > 5
    assert len(kinds) >= 2  # decisions within turns were probed too


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("players", [1, 3])
def test_batch_of_one_equals_batch_of_n(name, players):
    agents = lineup("sensu", [name], players)
    rules = ENG.make_rules({"powers": True} if players > 1 else {})
    ids = np.arange(40, 52)
    for compiled in (True, False):
        together = ENG.play(ids, players, rules, agents, root_key(12), compiled=compiled)
        narrow = ENG.play(ids, players, rules, agents, root_key(12), compiled=compiled, width=5)
        assert_same(together, narrow, f"width 5, compiled={compiled}")
        for j, g in enumerate(ids[:4]):
            alone = ENG.play(np.array([g]), players, rules, agents, root_key(12), compiled=compiled)
            for k in together:
                np.testing.assert_array_equal(alone[k][0], together[k][j], err_msg=k)


@pytest.mark.parametrize("players", [1, 4])
def test_jobs_do_not_change_results(players):
    agents = lineup("sensu", ["random"], players)
    a = simulate("sensu", agents, n_games=200, seed=4, jobs=1, chunk_size=50).summary()
    b = simulate("sensu", agents, n_games=200, seed=4, jobs=2, chunk_size=50).summary()
    assert a == b


def test_scripted_deck_is_checked():
    from simcore.errors import SenseiError
    keys = game_keys(root_key(0), np.array([0]))
    with pytest.raises(SenseiError):
        ENG.new_state(keys, 4, ENG.make_rules(), deck=np.zeros((1, 90), dtype=np.int8))


# ----------------------------------------------------------------------------------------------------
# ``random``, decision by decision: fixed positions reached through the engine, each asked of ``random``
# in thousands of games that differ only in their keys (so in the strategy's random stream), its choices
# compared with the law the rulings give it (docs/games/sensu.md, "Reference policies") by a chi-square
# test at p < 1e-6, which a correct policy fails once in a million seeds
# ----------------------------------------------------------------------------------------------------
GUN, HI, MAI = 0, 1, 2


def card(t, v, copy="A"):
    return t * 30 + (v - 1) * 3 + "ABC".index(copy)


def wild(t, w):
    """Type t's wild card of class w (0: 1/2/3, 1: 4/5/6, 2: 7/8/9)."""
    return t * 30 + 27 + w


def scripted(players, hands=(), draws=(), script=(), rules=None):
    """One game reached through the engine: seat p is dealt ``hands[p]`` (the others get the deck's spare
    cards), the deck's next cards are ``draws`` (drawn first), then the options of ``script`` are played
    (an ARRANGE given as None takes the first legal order). Solo: the deck is ``draws`` then the rest."""
    deck, dealt = stacked_deck(players, list(hands), draws)
    st = ENG.new_state(game_keys(root_key(0), np.array([0])), players, ENG.make_rules(rules or {}),
                       deck=np.array([deck]))
    for p in range(players if players > 1 else 0):
        assert sorted(st.hand[0, p, :5].tolist()) == sorted(dealt[p])
    for opt in script:
        if opt is None:
            assert st.kind[0] == Decision.ARRANGE
            opt = int(ENG.legal_options(st, 0)[0])
        assert ENG.step_one(st, 0, opt), opt
        ENG.check(st)
    assert not st.done[0]
    return st


def solo_position(exposed, left=5):
    """A solo game reached through the engine, ``left`` cards in the deck, the pile top and the four column
    ends ``exposed`` (five cards: place 0 the pile, 1..4 the columns): the other drawn cards went to the
    places one after another, then the exposed ones on top of them."""
    cards = [int(c) for c in deck_cards(1)]
    rest = [c for c in cards if c not in exposed]
    first = rest[left:]
    script = []
    for i, _ in enumerate(first):
        script += [Action.DRAW, i % 5]
    for where in range(5):
        script += [Action.DRAW, where]
    st = scripted(1, draws=first + list(exposed), script=script)
    assert st.kind[0] == Decision.SOLO_TURN and st.deck_n[0] == left
    return st


def replicate(st, n, seed):
    """``n`` copies of one-game state ``st`` keyed by seed ``seed``'s games 0..n-1."""
    keys = game_keys(root_key(seed), np.arange(n))
    big = {f.name: np.repeat(getattr(st, f.name), n, axis=0) for f in dataclasses.fields(st)
           if isinstance(getattr(st, f.name), np.ndarray) and f.name not in ENG.state_constants + ("keys",)}
    return dataclasses.replace(st, keys=keys, **big)


def random_choices(st, n=6000, seed=1):
    """The options ``random`` (every seat) takes at the current decision of position ``st`` in ``n`` games
    (seed ``seed``), and the engine's legal options there. The batch lane's answers are stepped; the
    compiled lane plays the same games one decision on: both must leave the same states and random streams."""
    players = st.players
    agents = [Random()] * players
    batch, lane = replicate(st, n, seed), replicate(st, n, seed)
    sb, sl = Seats(agents, batch.keys), Seats(agents, lane.keys)
    got = ENG.step_games(batch, np.arange(n), sb)
    ENG.play_state(lane, sl, compiled=True, max_steps=1)
    for f in dataclasses.fields(st):
        a = getattr(batch, f.name)
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, getattr(lane, f.name), err_msg=f"compiled lane: {f.name}")
    np.testing.assert_array_equal(sb.draws.counter, sl.draws.counter)
    return got, ENG.legal_options(st, 0)


def assert_law(got, law):
    """Every option taken has a positive probability under ``law`` (option -> probability), and the counts
    fit it (chi-square, p > 1e-6)."""
    law = {k: float(v) for k, v in law.items() if v > 0}
    assert abs(sum(law.values()) - 1) < 1e-9
    taken = set(got.tolist())
    assert taken <= set(law), sorted(taken - set(law))
    options = sorted(law)
    counts = np.array([(got == o).sum() for o in options])
    p = chisquare(counts, np.array([law[o] for o in options]) * len(got)).pvalue
    assert p > 1e-6, (p, dict(zip(options, counts.tolist())))
    return dict(zip(options, counts.tolist()))


def uniform(options):
    options = list(options)
    return {o: Fraction(1, len(options)) for o in options}


SEEDS = (1, 2, 3)
#: seat 0's hand: Gun 2, Hi 2, Gun 9, Mai 9 and the Hi wild 7/8/9: eight combinations, six of three cards
#: (2 + 9 + 9 twice, 2 + 9 + wild four times) and two of four (2 + 2 + 9 + wild, the wild a 7): uniform
#: over the sets of cards is 1/8 each, uniform over their orderings would be 6/84 or 24/84
MANY = (card(GUN, 2), card(HI, 2), card(GUN, 9), card(MAI, 9), wild(HI, 2))
#: no three or more of these make 20
NONE = (card(GUN, 1), card(GUN, 1, "C"), card(HI, 1), card(HI, 1, "C"), card(MAI, 1))


def turn_position(hand):
    """Four players; seat 0 holds ``hand`` at its second turn. Seats 0, 1 and 3 drew a card and discarded
    it, seat 2 played Mai 9 + 9 + 2, redeeming all three (its pile stays empty): the sources are the deck and
    the piles of seats 0, 1 and 3."""
    three = (card(MAI, 9, "B"), card(MAI, 9, "C"), card(MAI, 2, "B"))
    x, y, z = card(GUN, 5, "C"), card(HI, 6, "C"), card(MAI, 7, "C")
    play = Action.PLAY + 0b111
    st = scripted(4, [hand, (), three], draws=(x, y, z),
                  script=[Action.DECK, 5, Action.DECK, 5, play, None, Action.DECK, 5])
    assert st.kind[0] == Decision.TURN and st.current[0] == 0 and st.pile_n[0].tolist() == [1, 1, 0, 1]
    return st


def test_random_plays_half_the_time_when_a_combination_is_possible():
    """Rule 1: with at least one combination in the hand, Play with probability 1/2 (eight combinations and
    four sources, or one combination and the deck alone); with none, always Draw."""
    one = (card(GUN, 9), card(HI, 9), card(MAI, 2), card(GUN, 3), card(HI, 3))
    for st, combos, seed in ((turn_position(MANY), 8, 1), (scripted(4, [one]), 1, 2), (turn_position(MANY), 8, 3)):
        got, opts = random_choices(st, seed=seed)
        assert (opts >= Action.PLAY).sum() == combos
        play = (got >= Action.PLAY).astype(np.int64)
        assert_law(play, {0: Fraction(1, 2), 1: Fraction(1, 2)})
    got, opts = random_choices(turn_position(NONE))
    assert (opts < Action.PLAY).all() and (got < Action.PLAY).all()


def test_random_plays_each_distinct_set_of_cards_uniformly():
    """Rule 3: the combination played is uniform over the distinct sets of hand cards (the slot masks), of
    three and of four cards alike, the wild taking whichever value it must."""
    st = turn_position(MANY)
    masks = [o - Action.PLAY for o in ENG.legal_options(st, 0) if o >= Action.PLAY]
    assert sorted(SUBSET_SIZE[masks].tolist()) == [3] * 6 + [4] * 2
    for seed in SEEDS:
        got, opts = random_choices(st, n=8000, seed=seed)
        plays = got[got >= Action.PLAY]
        assert_law(plays, uniform(o for o in opts if o >= Action.PLAY))


def test_random_draws_from_a_uniform_source():
    """Rule 2: the source is uniform among the deck and every non-empty discard pile (own included; seat 2's
    empty pile never), whether the hand holds combinations or not."""
    for hand, seed in ((NONE, 1), (MANY, 2), (NONE, 3)):
        got, opts = random_choices(turn_position(hand), seed=seed)
        sources = [o for o in opts if o < Action.PLAY]
        assert sources == [Action.DECK, Action.PILE + 0, Action.PILE + 1, Action.PILE + 3]
        assert_law(got[got < Action.PLAY], uniform(sources))


def test_random_passes_when_nothing_can_be_drawn():
    """Rules 1 and 2 with no deck and no discard cards (every other card on the fans, sticks all 1): Pass
    without a combination; with one, Play with probability 1/2, else Pass (no Draw to make)."""
    from tests.test_sensu_rules import without_deck
    hands = [[card(GUN, 1), card(HI, 1), card(MAI, 1), card(GUN, 2), card(HI, 2)],   # no combination
             [card(MAI, 2), card(GUN, 3), card(HI, 9), card(MAI, 9), card(GUN, 4)]]  # one: 2 + 9 + 9
    st = without_deck(hands, caps=[[9, 9, 9], [10, 9, 9]])
    got, opts = random_choices(st, n=500)
    assert opts.tolist() == [Action.PASS] and (got == Action.PASS).all()
    assert ENG.step_one(st, 0, Action.PASS) and st.current[0] == 1
    for seed in SEEDS:
        got, opts = random_choices(st, seed=seed)
        assert opts.tolist() == [Action.PASS, Action.PLAY + 0b1101]
        assert_law(got, {Action.PASS: Fraction(1, 2), Action.PLAY + 0b1101: Fraction(1, 2)})


def test_random_discards_uniformly():
    """Rule 2: after a Draw, the card discarded is uniform over the six hand cards, the one drawn included
    (drawn from the deck, or from a pile)."""
    for src, seed in ((Action.DECK, 1), (Action.PILE + 1, 2), (Action.DECK, 3)):
        st = turn_position(MANY)
        assert ENG.step_one(st, 0, src) and st.kind[0] == Decision.DISCARD and st.hand_n[0, 0] == 6
        got, opts = random_choices(st, seed=seed)
        assert opts.tolist() == list(range(6))
        assert_law(got, uniform(opts))


# ----- arranging a combination ---------------------------------------------------------------------------
def order_code(order):
    return sum((s + 1) << (ORDER_BITS * j) for j, s in enumerate(order))


def order_of(code):
    out = []
    while code:
        out.append((code & 7) - 1)
        code >>= ORDER_BITS
    return tuple(out)


def arrange_law(cards, mask, k, sticks):
    """The law of ``random``'s ARRANGE option for combination ``mask`` of slot ``cards`` redeeming ``k``,
    written from the rulings: redeem the most sticks, then for each bonus the fewest among the rest, every
    tie uniform; build in descending sticks, equal sticks in redeeming order; the others discarded in a
    uniform order. Returns {option: probability}."""
    law = {}

    def redeem(seq, rest, p):
        if len(seq) == k:
            build = sorted(seq, key=lambda s: -sticks[cards[s]])  # stable: equal sticks stay in redeeming order
            for perm in itertools.permutations(rest):
                code = order_code(build + list(perm))
                law[code] = law.get(code, 0) + p / factorial(len(rest))
            return
        st = [sticks[cards[s]] for s in rest]
        want = min(st) if seq else max(st)
        tied = [s for s in rest if sticks[cards[s]] == want]
        for s in tied:
            redeem(seq + [s], [r for r in rest if r != s], p / len(tied))

    redeem([], [s for s in range(6) if (mask >> s) & 1], Fraction(1))
    return law


#: combinations played from seat 0's hand at a four-player table's first turn: (name, cards, cards redeemed)
COMBOS = [
    # 1 + 2 + 3 + 5 + 9, two types twice: one card redeemed, the most sticks tied three ways (4 each),
    # four cards discarded
    ("tie_at_most", (card(GUN, 1), card(HI, 2), card(MAI, 3), card(GUN, 5), card(HI, 9)), 1),
    # Gun 2, 3, 8 and Hi 7: three Gun, two redeemed; the most sticks tied (2, 3), the fewest too (8, 7)
    ("tie_at_bonus", (card(GUN, 2), card(GUN, 3), card(GUN, 8), card(HI, 7)), 2),
    # Gun 2, 2, 9 and Hi 7: a pair and three Gun, three redeemed: a 2 (tied), the 9 (1 stick), the 7 (2
    # sticks); built 2, 7, 9 (descending sticks, not the redeeming order)
    ("build_descending", (card(GUN, 2), card(GUN, 2, "C"), card(GUN, 9), card(HI, 7)), 3),
    # Gun 4, 5, 6 and Hi 5, all 3 sticks: three redeemed in a uniform order, built in that order
    ("equal_sticks", (card(GUN, 4), card(GUN, 5), card(GUN, 6), card(HI, 5)), 3),
    # Gun 2, 9 and the Gun wild 7/8/9 as a 9: three Gun, the wild no pair; the bonus tied (9, wild: 1 stick)
    ("wild_tie", (card(GUN, 2), card(GUN, 9), wild(GUN, 2)), 2),
]


def arrange_choices(cards, k, seed, n=6000):
    """``random``'s ARRANGE options for combination ``cards`` played from seat 0's hand (the cards in slots
    0.., the hand's other cards after them) at the first turn, and their law."""
    mask = (1 << len(cards)) - 1
    st = scripted(4, [cards], script=[Action.PLAY + mask])
    assert st.kind[0] == Decision.ARRANGE and st.red_k[0] == k
    got, opts = random_choices(st, n=n, seed=seed)
    law = arrange_law(st.hand[0, 0, :6].astype(np.int64).tolist(), mask, k, st.ST)
    assert set(law) <= set(opts.tolist())  # the law's options are legal
    return got, law


def project(got, law, part):
    """Options and law mapped by ``part`` (option -> a part of it)."""
    out = {}
    for o, p in law.items():
        out[part(o)] = out.get(part(o), 0) + p
    keys = {key: i for i, key in enumerate(sorted(out))}
    return np.array([keys[part(o)] for o in got.tolist()]), {keys[key]: p for key, p in out.items()}


_ARRANGED = {}


def arranged(name, seed):
    """``random``'s ARRANGE options at combination ``name`` of :data:`COMBOS` (seed ``seed``), their law, k."""
    if (name, seed) not in _ARRANGED:
        cards, k = next((c, k) for n, c, k in COMBOS if n == name)
        _ARRANGED[name, seed] = arrange_choices(cards, k, seed) + (k,)
    return _ARRANGED[name, seed]


def test_random_breaks_redeeming_ties_uniformly():
    """Rule 3: the card redeemed is uniform among those tied for the most sticks, each bonus card uniform
    among those tied for the fewest (a wild among them): the redeemed set has the law of those choices."""
    for name in ("tie_at_most", "tie_at_bonus", "equal_sticks", "wild_tie"):
        for seed in SEEDS:
            got, law, k = arranged(name, seed)
            counts = assert_law(*project(got, law, lambda o: tuple(sorted(order_of(o)[:k]))))
            assert len(counts) == {"tie_at_most": 3, "tie_at_bonus": 4, "equal_sticks": 4, "wild_tie": 2}[name]


def test_random_discards_the_unredeemed_cards_in_uniform_order():
    """Rule 3: the unredeemed cards go onto the pile in a uniform order: the order of their slots is each of
    the 24 orders of four cards (of two cards: both orders), whichever cards were redeemed."""
    for name, orders in (("tie_at_most", 24), ("tie_at_bonus", 2)):
        for seed in SEEDS:
            got, law, k = arranged(name, seed)

            def pattern(o):
                rest = order_of(o)[k:]
                return tuple(sorted(rest).index(s) for s in rest)
            counts = assert_law(*project(got, law, pattern))
            assert len(counts) == orders


def test_random_builds_in_descending_sticks_then_redeeming_order():
    """Rule 3: the redeemed cards are built in descending sticks (exactly: Gun 2, 2, 9 and Hi 7 always
    build a 2, the 7, the 9, though the 9 was redeemed before the 7), equal sticks in the order they were
    redeemed (four cards of 3 sticks: the three built are a uniform ordered choice, as the redeeming is)."""
    for name, _, _ in COMBOS:
        got, law, k = arranged(name, 1)
        cards = scripted(4, [next(c for n, c, _ in COMBOS if n == name)]).hand[0, 0]
        sticks = card_sticks(ENG.make_rules())
        for o in np.unique(got):
            built = [sticks[cards[s]] for s in order_of(int(o))[:k]]
            assert built == sorted(built, reverse=True), (name, order_of(int(o)))
    got, law, k = arranged("build_descending", 1)
    assert {order_of(o)[:3] for o in got.tolist()} == {(0, 3, 2), (1, 3, 2)}  # a 2, Hi 7, Gun 9
    assert_law(got, law)
    for seed in SEEDS:
        got, law, k = arranged("equal_sticks", seed)
        counts = assert_law(*project(got, law, lambda o: order_of(o)[:k]))
        assert len(counts) == 24


def test_random_arranges_every_combination_as_the_rulings_say():
    """The whole ARRANGE option (redeemed set, build order, discard order) has the rulings' law."""
    for name, _, _ in COMBOS:
        for seed in SEEDS:
            got, law, _ = arranged(name, seed)
            assert_law(got, law)


# ----- solo ----------------------------------------------------------------------------------------------
#: exposed cards (the pile top, then the four column ends) with four combinations: Gun 2 + Gun 9 + Mai 9,
#: Hi 2 + Gun 9 + Mai 9, and 2 + 2 + 9 + Hi 7 with either 9
SOLO_MANY = (card(GUN, 2), card(HI, 2), card(GUN, 9), card(MAI, 9), card(HI, 7))
SOLO_NONE = (card(GUN, 1), card(HI, 1), card(MAI, 1), card(GUN, 2), card(HI, 2))


def test_solo_random_plays_half_the_time_uniformly_over_the_sets_of_places():
    """Solo rule 1: with a combination among the exposed cards and cards in the deck, play one uniformly
    among the sets of places (three and four cards alike) with probability 1/2, else Draw; with none, Draw."""
    st = solo_position(SOLO_MANY)
    plays = [o for o in ENG.legal_options(st, 0) if o >= Action.PLAY]
    assert sorted(SUBSET_SIZE[[o - Action.PLAY for o in plays]].tolist()) == [3, 3, 4, 4]
    for seed in SEEDS:
        got, opts = random_choices(st, n=8000, seed=seed)
        assert_law(got, {Action.DRAW: Fraction(1, 2), **{o: Fraction(1, 8) for o in plays}})
    got, opts = random_choices(solo_position(SOLO_NONE))
    assert opts.tolist() == [Action.DRAW] and (got == Action.DRAW).all()


def test_solo_random_plays_whenever_the_deck_is_empty():
    """Solo rule 1: with the deck empty, a combination uniformly whenever one exists (drawing would end
    the game)."""
    st = solo_position(SOLO_MANY, left=0)
    for seed in SEEDS:
        got, opts = random_choices(st, seed=seed)
        assert_law(got, uniform(o for o in opts if o >= Action.PLAY))


def test_solo_random_places_the_drawn_card_uniformly():
    """Solo rule 2: the card drawn goes onto one of the five places uniformly."""
    for seed in SEEDS:
        st = solo_position(SOLO_MANY)
        assert ENG.step_one(st, 0, Action.DRAW) and st.kind[0] == Decision.PLACE
        got, opts = random_choices(st, seed=seed)
        assert opts.tolist() == list(range(5))
        assert_law(got, uniform(opts))


def test_solo_random_arranges_like_the_multiplayer_random():
    """Solo rule 3: redeeming ties, discard order and build order as in the multiplayer ``random``: Gun 1,
    Hi 2, Mai 3, Gun 5 and Hi 9 on the five places (the most sticks tied three ways, four cards discarded);
    Gun 2, Hi 2, Gun 9 and Gun 7 (a pair and three Gun: a 2, the 9 and the 7 redeemed, built 2, 7, 9)."""
    for exposed, mask, k in (((card(GUN, 1), card(HI, 2), card(MAI, 3), card(GUN, 5), card(HI, 9)), 0b11111, 1),
                             ((card(GUN, 2), card(HI, 2), card(GUN, 9), card(GUN, 7), card(MAI, 1)), 0b1111, 3)):
        st = solo_position(exposed)
        assert ENG.step_one(st, 0, Action.PLAY + mask) and st.kind[0] == Decision.ARRANGE and st.red_k[0] == k
        law = arrange_law(list(exposed) + [-1], mask, k, st.ST)
        assert len(law) == (72 if k == 1 else 2)
        for seed in SEEDS:
            got, _ = random_choices(st, seed=seed)
            assert_law(got, law)
