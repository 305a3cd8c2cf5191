"""Strategies for Fan & Mallet: the reference policies and heuristics.

Every strategy answers the game's one decision, ``play`` (the hand slot of the card to play), with a
compiled function of the engine's observation view (:data:`simcore.games.fan_and_mallet.FanAndMalletView`),
its parameters and its random stream. The same functions play the compiled lane and, looped over a
batch, the batch lane.

The heuristics share one evaluation of each card (where it lands, whether it completes that house and
who would possess it, whether it leaves a house one follower short for the opponent), made with the
engine's placement search (``landing_house``) and possession scoring (``stack_totals``), and differ in
what they weigh: ``closer`` plays for the house about to be possessed, ``keeper`` also saves kid ghosts
for the houses where their ability pays, ``counter`` counts the opponent's unseen cards to judge the
danger of a house left one short. Their evaluation (:func:`evaluate`) is compiled once for the three
(``mode`` tells them apart) and called with the game's rows only, so that the drivers' loops stay small.

Scratch space (``rng.iw``, ``rng.fw``, 16 x 64, not kept between decisions): the heuristics use rows 0 to
3 and :data:`PRM`; ``random`` keeps its seat's next uniform in row :data:`AHEAD`, tagged with the draw it
belongs to (a tag that does not match is simply worked out again, so any strategy may use any row).
"""
# The compiled code of this file never indexes an array with a negative number, so numba leaves out
# Python's wrap-around of negative indices here (simcore/compiled.py; checked by make boundscheck):
# sensei: no negative indices
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np

from simcore.bits import popcount, trailing_zeros
from simcore.compiled import NO_REFCOUNT
from simcore.games.fan_and_mallet import (CARD_COLOUR, CARD_KID, CARD_KIND, CARD_POWER, DECK, HAND, KID,
                                          N_COLOURS, N_HOUSES, STACK, TARGET, landing_house, stack_totals)
from simcore.rng import draw_base, integer_below, uniform_at

from .base import Strategy, decision, param

GAME = "fan-and-mallet"


# ------------------------------------------------------------------------------------------------------
# the reference policies

#: ``random``'s scratch row: ``fw[AHEAD, seat]`` the uniform of the seat's next draw, worked out one decision
#: ahead, and ``iw[AHEAD, 3 * seat: 3 * seat + 3]`` the (stream, draw number, stream key) it belongs to
AHEAD = 14


@decision
def _random_play(obs, prm, rng):
    """A card chosen uniformly from the hand (one draw, ``AgentRandom.integers(hand size)``; the hand
    fills slots 0..hand_n-1). The uniform of the seat's next draw is worked out now, while the rules of
    this turn run, and used at its next decision if the scratch row still holds it for that draw."""
    f, me = rng.f, obs.me
    c = rng.counter[f]
    key = np.int64(rng.keys[f])
    tag = rng.iw[AHEAD]
    if tag[3 * me] == f and tag[3 * me + 1] == c and tag[3 * me + 2] == key:
        u = rng.fw[AHEAD, me]
        rng.counter[f] = c + 1
    else:
        u = uniform_at(draw_base(rng.keys, rng.counter, f), 0)
    rng.fw[AHEAD, me] = uniform_at(draw_base(rng.keys, rng.counter, f), 0)  # the next draw, not taken
    rng.counter[f] = c + 1
    tag[3 * me] = f
    tag[3 * me + 1] = c + 1
    tag[3 * me + 2] = key
    return integer_below(u, obs.hand_n[obs.g, me])


@dataclass(frozen=True)
class RandomPlay(Strategy):
    """Reference policy ``random``: play a card chosen uniformly from the hand."""
    name: ClassVar[str] = "random"
    game: ClassVar[str] = GAME

    play = _random_play


#: ``strongest``'s preference of every card (higher first): spirit objects by power then lowest colour,
#: then kid ghosts by lowest colour; the last entry (read for an empty slot, -1) is below every card
STRONGEST_KEY = np.append(np.where(CARD_KID, -10 - CARD_COLOUR, 10 * CARD_POWER - CARD_COLOUR),
                          -1000).astype(np.int64)


@numba.njit(cache=True, inline="always")
def strongest_slot(hand):
    """The slot of the most preferred card of a hand row (6,) (the first of equals)."""
    best = 0
    value = STRONGEST_KEY[hand[0] if hand[0] >= 0 else 2 * DECK]
    for j in range(1, HAND):
        c = hand[j]
        v = STRONGEST_KEY[c if c >= 0 else 2 * DECK]
        if v > value:
            best = j
            value = v
    return best


@decision
def _strongest_play(obs, prm, rng):
    return strongest_slot(obs.hand)


@dataclass(frozen=True)
class Strongest(Strategy):
    """Reference policy ``strongest`` (deterministic): the spirit object of highest power in the hand
    (ties: lowest colour index); with only kid ghosts in hand, the kid ghost of lowest colour index."""
    name: ClassVar[str] = "strongest"
    game: ClassVar[str] = GAME

    play = _strongest_play


# ------------------------------------------------------------------------------------------------------
# the heuristics: one evaluation of each card

#: which heuristic an evaluation scores for
CLOSER, KEEPER, COUNTER = 0, 1, 2
#: games of a match end at 100 in the closing value (above any stake)
WIN_GAME = 100.0


#: hits / 6 for 0..6 hits (a lookup, not a division: the same numbers)
_SIXTHS = np.array([h / 6.0 for h in range(7)], dtype=np.float64)

#: the heuristics' parameters in the decision's scratch row ``rng.fw[PRM]``: feed, thrift, build,
#: kid_value, hold, min_bonus, bait
PRM = 15


@numba.njit(**NO_REFCOUNT)  # not inlined: one copy serves the three heuristics
def evaluate(me, hand, stack, count, free, pawn, markers, ring_faction, first_done, opp_held, mode, fw, iw):
    """Score every card of seat ``me``'s hand ``hand`` (6,) in one game (``mode``: CLOSER, KEEPER or
    COUNTER, the parameters in ``fw[PRM]``) and return the best slot (the first of equal scores; -1 for
    an empty hand). The game's public rows: ``stack`` (12, 5), ``count`` (12,), ``free`` (6,) (the houses
    that take each colour), ``pawn`` and ``markers`` (2,), ``ring_faction`` (12,), ``first_done``, and
    ``opp_held`` the cards in the opponent's hand. ``fw`` and ``iw`` are the decision's scratch space
    (``rng.fw``, ``rng.iw``); the scores are left in ``fw[0, 0:6]`` (0 for an empty slot).

    ``closer``: completing a house scores 10 x its closing value (+stake if the seat possesses it, -stake
    if the opponent does, +-100 where that ends the game); otherwise -feed x stake x the share of the
    opponent's colours that would land on a house left one short (4 followers), plus build x the own
    lead (own minus opponent power in the house after the card, clipped to +-6) in a house not left one
    short; minus thrift x the card's value (its power, ``kid_value`` for a kid ghost). ``keeper``:
    ``closer``'s score, less ``hold`` for a kid ghost played on a house it does not complete where its
    ability's prospect (its bonus judged with the followers there now) is below ``min_bonus``.
    ``counter``: completing scores as for ``closer``; otherwise -feed x stake x the danger (the chance
    that the opponent holds an unseen card that lands on a house left one short and possesses it), plus
    build x the own lead (clipped), plus bait x stake for a house left one short that is safe and led;
    minus thrift x the card's value.

    Where a colour lands is searched once per seat and colour: a card leaves the search of every other
    colour unchanged, and its own colour can no longer land on the house it entered. A house without
    kid ghosts is summed once: a spirit object placed on it adds its power and no bonus."""
    prm, score = fw[PRM], fw[0]
    feed, thrift, build, kid_value, hold, min_bonus, bait = prm[0], prm[1], prm[2], prm[3], prm[4], prm[5], prm[6]
    cards, bonus, theirs, sums = iw[0], iw[1], iw[2], iw[3]
    opp = 1 - me
    stake = 1.0 if first_done else 2.0
    mine_ends = markers[me] + stake >= TARGET
    theirs_ends = markers[opp] + stake >= TARGET
    pawn_me, pawn_opp = pawn[me], pawn[opp]
    summed = 0        # bit h: house h is summed: White's and Black's powers in sums[h], sums[12 + h]
    kidful = 0        # bit h: house h holds a kid ghost
    lands = -1        # per house (4 bits each), how many of the opponent's colours land there (-1: not searched)
    seen = -1         # the opponent's cards on the ring (bit colour * 5 + kind), once counted
    total = 0.0
    best = -1
    best_s = 0.0
    for j in range(HAND):
        c = hand[j]
        score[j] = 0.0
        if c < 0:
            continue
        kid = CARD_KIND[c] == KID
        spend = kid_value if kid else float(CARD_POWER[c])
        col = CARD_COLOUR[c]
        h = landing_house(free[col], pawn_me)
        if h < 0:  # no house for the card (never in a game): not an option
            continue
        k = count[h]
        if k == STACK - 2 and lands < 0:
            lands = 0
            for oc in range(N_COLOURS):
                t = landing_house(free[oc], pawn_opp)
                theirs[oc] = t
                lands += (1 << (4 * t)) if t >= 0 else 0
        if k == STACK - 2 and mode != COUNTER:
            # left one short: ``closer`` and ``keeper`` weigh the opponent's colours that land there next
            # (their own colour no longer does), not the lead; ``keeper`` looks at a kid ghost's prospect
            hits = ((lands >> (4 * h)) & 15) - (1 if theirs[col] == h else 0)
            s = -feed * stake * _SIXTHS[hits] - thrift * spend
            if mode == KEEPER and kid:
                for i in range(k):
                    cards[i] = stack[h, i]
                cards[k] = c
                stack_totals(cards, k + 1, bonus)
                if float(bonus[k]) < min_bonus:
                    s = s - hold
        else:
            if not (summed >> h) & 1:
                tw, tb, kids = 0, 0, 0
                for i in range(k):
                    x = stack[h, i]
                    kind = CARD_KIND[x]
                    black = 1 if x >= DECK else 0
                    kids |= 1 if kind == KID else 0
                    tw += (kind + 1) * (1 - black)
                    tb += (kind + 1) * black
                summed |= 1 << h
                kidful |= kids << h
                sums[h] = tw
                sums[N_HOUSES + h] = tb
            top = 0  # the card's own bonus
            if not kid and not (kidful >> h) & 1:
                tw, tb = sums[h], sums[N_HOUSES + h]
                if c < DECK:
                    tw += CARD_KIND[c] + 1
                else:
                    tb += CARD_KIND[c] + 1
            else:
                for i in range(k):
                    cards[i] = stack[h, i]
                cards[k] = c
                tw, tb = stack_totals(cards, k + 1, bonus)
                top = bonus[k]
            if k == STACK - 1:
                win = ring_faction[h] if tw == tb else (1 if tb > tw else 0)
                if win == me:
                    close = WIN_GAME if mine_ends else stake
                else:
                    close = -WIN_GAME if theirs_ends else -stake
                s = 10.0 * close - thrift * spend
            else:
                lead = tw - tb if me == 0 else tb - tw
                clipped = float(min(max(lead, -6), 6))  # clipped as an integer: the same number, no float chain
                if k == STACK - 2:  # (COUNTER) left one short: the danger that the opponent takes it
                    if seen < 0:
                        seen, total = _seen(stack, count, opp)
                    danger = _danger(stack, ring_faction, h, c, col, opp, opp_held, seen, total, theirs, cards,
                                     bonus)
                    s = -feed * stake * danger + build * clipped
                    if danger == 0.0 and lead > 0:
                        s = s + bait * stake * 1.0
                    s = s - thrift * spend
                else:
                    s = build * clipped - thrift * spend
                if mode == KEEPER and kid and float(top) < min_bonus:
                    s = s - hold
        score[j] = s
        if best < 0 or s > best_s:
            best = j
            best_s = s
    return best


@numba.njit(cache=True, inline="always")
def _seen(stack, count, opp):
    """The opponent's cards on the ring (bit colour * 5 + kind) and how many of theirs are not."""
    seen = 0
    for h in range(N_HOUSES):
        for i in range(count[h]):
            x = stack[h, i]
            seen |= (1 if (x >= DECK) == (opp == 1) else 0) << (x % DECK)
    return seen, float(DECK - popcount(seen))

#: the spirit objects' powers p in 1..4 (bit p - 1) at least ``t``, by t + 4 (t from -4 to 5)
_AT_LEAST = np.array([sum(1 << (p - 1) for p in range(1, 5) if p >= t) for t in range(-4, 6)], dtype=np.int64)


@numba.njit(cache=True, inline="always")
def _danger(stack, ring_faction, h, c, col, opp, opp_held, seen, total, theirs, cards, bonus):
    """``counter``'s danger of card ``c`` (colour ``col``) left as the fourth follower of house h: the
    chance that the opponent, holding ``opp_held`` cards drawn at random from their ``total`` cards not
    on the ring (``seen``), holds one that lands there on their next turn (a colour other than ``col``
    whose search from their pawn, ``theirs``, ends there) and possesses the house. On four followers
    without a kid ghost a spirit object of power p adds p and no bonus: the opponent's unseen spirit
    objects of a colour that win are those with p at least the margin they must make up."""
    own_p, opp_p, plain = 0, 0, CARD_KIND[c] != KID
    for i in range(STACK - 1):
        x = stack[h, i] if i < STACK - 2 else c
        cards[i] = x
        kind = CARD_KIND[x]
        plain &= kind != KID
        if (x >= DECK) == (opp == 1):
            opp_p += kind + 1
        else:
            own_p += kind + 1
    hf = ring_faction[h]
    need = own_p - opp_p + (0 if hf == opp else 1)  # the power that possesses it for the opponent
    good = 0.0
    for tc in range(N_COLOURS):
        if tc == col or theirs[tc] != h:
            continue
        unseen = ~(seen >> (tc * 5)) & 31  # bit kind: the opponent's card of colour tc and that kind is unseen
        if plain:
            t = min(max(need, -4), 5)
            good += float(popcount(unseen & 15 & _AT_LEAST[t + 4]))
            kinds = unseen & 16  # the kid ghost, if unseen, is scored in full
        else:
            kinds = unseen
        while kinds:
            kind = trailing_zeros(kinds)
            kinds &= kinds - 1
            cards[STACK - 1] = opp * DECK + tc * 5 + kind
            tw, tb = stack_totals(cards, STACK, bonus)
            if (hf if tw == tb else (1 if tb > tw else 0)) == opp:
                good += 1.0
    miss = 1.0  # P(none of the held cards is a good one)
    for i in range(HAND):
        if i < opp_held:
            miss *= min(max((total - good - i) / max(total - i, 1.0), 0.0), 1.0)
    return 1.0 - miss


@decision
def _heuristic_play(obs, prm, rng):
    g, me, p = obs.g, obs.me, rng.fw[PRM]
    p[0], p[1], p[2], p[3], p[4], p[5], p[6] = prm.feed, prm.thrift, prm.build, prm.kid_value, prm.hold, \
        prm.min_bonus, prm.bait
    return evaluate(me, obs.hand, obs.stack[g], obs.count[g], obs.free[g], obs.pawn[g], obs.markers[g],
                    obs.ring_faction[g], obs.first_done[g], obs.hand_n[g, 1 - me], prm.mode, rng.fw, rng.iw)


@dataclass(frozen=True)
class Closer(Strategy):
    """Plays for the house about to be possessed: completes a house it wins (with the cheapest card that
    still wins), avoids completing a house for the opponent, and avoids leaving a house one short where
    the opponent's next card would land. Otherwise it builds a lead: ``build`` per point of its lead in
    the house (clipped to +-6) less ``thrift`` per point of power spent, so at the defaults it mostly plays
    a strong card where it leads, and with ``build`` 0 its weakest card (see :func:`evaluate`)."""
    name: ClassVar[str] = "closer"
    game: ClassVar[str] = GAME
    feed: float = param(0.7, "penalty per marker at stake for leaving a house at 4 followers that the "
                             "opponent's next card may complete", min=0.0)
    thrift: float = param(0.05, "penalty per point of power spent (keeps strong cards for possessions)", min=0.0)
    build: float = param(0.3, "reward per point of own lead (clipped to +-6) in a house that is not completed "
                              "(above thrift, it makes a strong card the better play there)", min=0.0)

    #: the value of a kid ghost in the thrift penalty (spirit objects: their power)
    kid_value: ClassVar[float] = 2.5
    mode: ClassVar[int] = CLOSER

    def compiled_values(self) -> dict:
        """One parameter shape for the three heuristics (one compiled copy of their decision)."""
        g = lambda name: float(getattr(self, name, 0.0))  # noqa: E731
        return {"mode": self.mode, "feed": g("feed"), "thrift": g("thrift"), "build": g("build"),
                "kid_value": float(self.kid_value), "hold": g("hold"), "min_bonus": g("min_bonus"), "bait": g("bait")}

    play = _heuristic_play


@dataclass(frozen=True)
class Keeper(Closer):
    """Like ``closer``, but holds kid ghosts for the houses where their ability pays: a kid ghost played on
    a house it does not complete, where its ability adds less than ``min_bonus`` (judged with the followers
    there now), costs ``hold`` in its score (a penalty, not a ban: a large enough gain still plays it)."""
    name: ClassVar[str] = "keeper"
    mode: ClassVar[int] = KEEPER
    hold: float = param(0.5, "penalty for spending a kid ghost where its ability does not pay yet", min=0.0)
    min_bonus: int = param(3, "a kid ghost's ability pays on a house not yet completed when it would "
                              "already add at least this", min=0, max=5)


@dataclass(frozen=True)
class Counter(Closer):
    """Like ``closer``, but counts the opponent's cards still unseen (in their hand or deck): leaving a
    house one follower short costs the chance that the opponent holds an unseen card that would land
    there next turn and possess it; a house left short that the opponent cannot take is built up."""
    name: ClassVar[str] = "counter"
    mode: ClassVar[int] = COUNTER
    feed: float = param(1.0, "penalty per marker at stake, times the chance that the opponent takes a house "
                             "left at 4 followers", min=0.0)
    bait: float = param(0.3, "reward per marker at stake for leaving at 4 a house the opponent cannot take "
                             "and that we lead", min=0.0)


STRATEGIES = [RandomPlay, Strongest, Closer, Keeper, Counter]
