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
danger of a house left one short.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np

from simcore.games.fan_and_mallet import (CARD_COLOUR, CARD_KID, CARD_KIND, CARD_POWER, DECK, HAND, KID, N_COLOURS,
                                          N_HOUSES, STACK, TARGET, landing_house, stack_totals)
from simcore.rng import integer

from .base import Strategy, decision, param

GAME = "fan-and-mallet"


# ------------------------------------------------------------------------------------------------------
# the reference policies

@decision
def _random_play(obs, prm, rng):
    """A card chosen uniformly from the hand (one draw; the hand fills slots 0..hand_n-1)."""
    return integer(rng, obs.hand_n[obs.g, obs.me])


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


@numba.njit(cache=True)  # not inlined: one copy serves the three heuristics
def evaluate(obs, mode, feed, thrift, build, kid_value, hold, min_bonus, bait, fw, iw):
    """Score every card of the deciding seat's hand (``mode``: CLOSER, KEEPER or COUNTER) and return
    the best slot (the first of equal scores). Writes, per slot j: ``fw[0, j]`` the score, ``fw[1, j]``
    the closing value (+stake if the seat possesses the house the card completes, -stake if the opponent
    does, +-100 where that ends the game; 0 for a card that does not complete its house, never 0 for one
    that does), ``fw[2, j]`` the lead (own minus opponent power in the house after the card, for a card
    that does not complete it), ``fw[3, j]`` a kid ghost's prospect (its bonus in the house it lands in
    but does not complete, judged with the followers there now), ``fw[4, j]`` the danger (COUNTER),
    ``iw[0, j]`` the house it lands in (-1 for an empty slot), ``iw[1, j]`` whether it leaves its house
    one follower short. ``fw`` and ``iw`` are the decision's scratch space (``rng.fw``, ``rng.iw``).

    ``closer``: completing a house scores 10 x its closing value; otherwise -feed x stake x the share of
    the opponent's colours that would land on a house left one short, plus build x the own lead (clipped
    to +-6) in a house not left one short; minus thrift x the card's value (its power, ``kid_value`` for a
    kid ghost). ``keeper``: ``closer``'s score, less ``hold`` for a kid ghost played on a house it does
    not complete where its prospect is below ``min_bonus``. ``counter``: completing scores as for
    ``closer``; otherwise -feed x stake x the danger (the chance that the opponent holds an unseen card
    that lands on a house left one short and possesses it), plus build x the own lead (clipped), plus
    bait x stake for a house left one short that is safe and led; minus thrift x the card's value."""
    g, me, hand = obs.g, obs.me, obs.hand
    stack, count, free, pawn = obs.stack[g], obs.count[g], obs.free[g], obs.pawn[g]
    score, close, lead, prospect, danger, spend = fw[0], fw[1], fw[2], fw[3], fw[4], fw[5]
    land, leaves4, cards, bonus = iw[0], iw[1], iw[2], iw[3]
    opp = 1 - me
    stake = 1.0 if obs.first_done[g] else 2.0
    mine_ends = obs.markers[g, me] + stake >= TARGET
    theirs_ends = obs.markers[g, opp] + stake >= TARGET
    for j in range(HAND):
        c = hand[j]
        spend[j] = 0.0 if c < 0 else (kid_value if CARD_KIND[c] == KID else float(CARD_POWER[c]))
        close[j] = 0.0
        lead[j] = 0.0
        leaves4[j] = 0
        prospect[j] = 0.0
        land[j] = -1
        closes = False
        reach = 0.0
        if c >= 0:
            col = CARD_COLOUR[c]
            h = landing_house(free[col], pawn[me])
            land[j] = h
            k = count[h]
            for i in range(STACK):
                cards[i] = stack[h, i]
            cards[k] = c
            tw, tb = stack_totals(cards, k + 1, bonus)
            if k == STACK - 1:
                closes = True
                win = obs.ring_faction[g, h] if tw == tb else (1 if tb > tw else 0)
                if win == me:
                    close[j] = WIN_GAME if mine_ends else stake
                else:
                    close[j] = -WIN_GAME if theirs_ends else -stake
            else:
                lead[j] = float(tw - tb) if me == 0 else float(tb - tw)
                if CARD_KIND[c] == KID:
                    prospect[j] = float(bonus[k])
                if k == STACK - 2:  # the opponent's next card may complete it: how many of their colours land there
                    leaves4[j] = 1
                    hits = 0.0
                    for oc in range(N_COLOURS):  # after the card, house h no longer takes its colour
                        after = free[oc] & ~(1 << h) if oc == col else free[oc]
                        if landing_house(after, pawn[opp]) == h:
                            hits += 1.0
                    reach = hits / 6.0
        if closes:
            s = 10.0 * close[j]
        else:
            clipped = min(max(lead[j], -6.0), 6.0)
            s = -feed * stake * reach + build * clipped * (0.0 if leaves4[j] else 1.0)
        score[j] = s - thrift * spend[j]
    if mode == COUNTER:
        _threat(obs, land, leaves4, danger, cards, bonus)
        for j in range(HAND):
            if hand[j] >= 0 and close[j] != 0.0:
                s = 10.0 * close[j]
            else:
                bait_it = 1.0 if leaves4[j] and danger[j] == 0.0 and lead[j] > 0.0 else 0.0
                s = -feed * stake * danger[j] + build * min(max(lead[j], -6.0), 6.0) + bait * stake * bait_it
            score[j] = s - thrift * spend[j]
    elif mode == KEEPER:
        for j in range(HAND):
            c = hand[j]
            # (a card that completes its house has a closing value, never 0)
            if c >= 0 and CARD_KIND[c] == KID and close[j] == 0.0 and prospect[j] < min_bonus:
                score[j] = score[j] - hold
    best = -1
    for j in range(HAND):
        if hand[j] >= 0 and (best < 0 or score[j] > score[best]):
            best = j
    return best


@numba.njit(cache=True, inline="always")
def _threat(obs, land, leaves4, danger, cards, bonus):
    """``counter``'s danger of each card that leaves its house one follower short (``leaves4``, landing
    on ``land``; 0 for other cards): the chance that the opponent, holding ``hand_n`` cards drawn at
    random from their cards not on the ring, holds one that lands there on their next turn (after this
    card) and possesses the house."""
    g, me, hand = obs.g, obs.me, obs.hand
    stack, free, pawn = obs.stack[g], obs.free[g], obs.pawn[g]
    opp = 1 - me
    opp_held = obs.hand_n[g, opp]
    seen = 0  # bit t: the opponent's card t (colour * 5 + kind) is on the ring
    for h in range(N_HOUSES):
        for i in range(STACK):
            c = stack[h, i]
            if c >= 0 and (1 if c >= DECK else 0) == opp:
                seen |= 1 << (c - opp * DECK)
    total = 0.0
    for t in range(DECK):
        if not (seen >> t) & 1:
            total += 1.0
    for j in range(HAND):
        danger[j] = 0.0
        if not leaves4[j]:
            continue
        h = land[j]
        col = CARD_COLOUR[hand[j]]
        for i in range(STACK):
            cards[i] = stack[h, i]
        cards[STACK - 2] = hand[j]
        good = 0.0
        for t in range(DECK):
            if (seen >> t) & 1:
                continue
            tc = CARD_COLOUR[t]
            after = free[tc] & ~(1 << h) if tc == col else free[tc]
            if landing_house(after, pawn[opp]) != h:
                continue
            cards[STACK - 1] = opp * DECK + t
            tw, tb = stack_totals(cards, STACK, bonus)
            if (obs.ring_faction[g, h] if tw == tb else (1 if tb > tw else 0)) == opp:
                good += 1.0
        miss = 1.0  # P(none of the held cards is a good one)
        for i in range(HAND):
            if i < opp_held:
                miss *= min(max((total - good - i) / max(total - i, 1.0), 0.0), 1.0)
        danger[j] = 1.0 - miss


@decision
def _heuristic_play(obs, prm, rng):
    return evaluate(obs, prm.mode, prm.feed, prm.thrift, prm.build, prm.kid_value, prm.hold, prm.min_bonus, prm.bait,
                    rng.fw, rng.iw)


@dataclass(frozen=True)
class Closer(Strategy):
    """Plays for the house about to be possessed: completes a house it wins (with the cheapest card that
    still wins), avoids completing a house for the opponent, and avoids leaving a house one short where
    the opponent's next card would land. Otherwise it plays its weakest card, keeping strength for the
    possessions (see :func:`evaluate` for the score)."""
    name: ClassVar[str] = "closer"
    game: ClassVar[str] = GAME
    feed: float = param(0.7, "penalty per marker at stake for leaving a house at 4 followers that the "
                             "opponent's next card may complete", min=0.0)
    thrift: float = param(0.05, "penalty per point of power spent (keeps strong cards for possessions)", min=0.0)
    build: float = param(0.3, "reward per point of own lead in a house that is not completed", min=0.0)

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
    """Like ``closer``, but holds kid ghosts for the houses where their ability pays: a kid ghost is played
    on a house it does not complete only where its ability already adds at least ``min_bonus`` (judged
    with the followers there now), otherwise playing it costs ``hold``."""
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
