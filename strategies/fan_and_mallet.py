"""Strategies for Fan & Mallet: the reference policies and heuristics.

Every strategy implements ``play(obs, rng) -> hand slot`` (see ``simcore.games.fan_and_mallet``), scoring
every card of the hand at once for a batch of games, masking empty slots and taking the best.

The heuristics share one evaluation of each card (where it lands, whether it completes that house and
who would possess it, whether it leaves a house one follower short for the opponent) and differ in what
they weigh: ``closer`` plays for the house about to be possessed, ``keeper`` also saves kid ghosts for
the houses where their ability pays, ``counter`` counts the opponent's unseen cards to judge the danger
of a house left one short.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from simcore.games.fan_and_mallet import (CARD_COLOUR, CARD_FACTION, CARD_KID, CARD_POWER, DECK, HAND,
                                          N_COLOURS, STACK, TARGET, FanAndMalletObs, landing, score_houses)

from .base import Strategy, param

GAME = "fan-and-mallet"
_NEG = -1e9


def _best(score: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Index of the best legal slot per row (the lowest index among equal scores)."""
    return np.argmax(np.where(legal, score, -np.inf), axis=1).astype(np.int64)


@dataclass(frozen=True)
class RandomPlay(Strategy):
    """Reference policy ``random``: play a card chosen uniformly from the hand."""
    name: ClassVar[str] = "random"
    game: ClassVar[str] = GAME

    def play(self, obs: FanAndMalletObs, rng) -> np.ndarray:
        return rng.integers(obs.hand_count)  # the hand fills slots 0..hand_count-1


@dataclass(frozen=True)
class Strongest(Strategy):
    """Reference policy ``strongest`` (deterministic): the spirit object of highest power in the hand
    (ties: lowest colour index); with only kid ghosts in hand, the kid ghost of lowest colour index."""
    name: ClassVar[str] = "strongest"
    game: ClassVar[str] = GAME

    # preference of every card: spirit objects by power then lowest colour, then kid ghosts by lowest colour
    KEY: ClassVar[np.ndarray] = np.append(np.where(CARD_KID, -10 - CARD_COLOUR, 10 * CARD_POWER - CARD_COLOUR),
                                          -1000).astype(np.int64)

    def play(self, obs: FanAndMalletObs, rng) -> np.ndarray:
        return np.argmax(self.KEY[obs.hand], axis=1)  # an empty slot (-1) reads the last entry, -1000


# ------------------------------------------------------------------------------------------------------
# shared evaluation for the heuristics

def _opponent_reach(obs: FanAndMalletObs, colours: np.ndarray, target: np.ndarray,
                    avail: np.ndarray) -> np.ndarray:
    """For each row r and candidate j: the share of the opponent's card colours (weighted by ``avail``
    (k, 6), the number of opponent cards of each colour that may be played) that would land on house
    ``target[r, j]`` (-1: none) from the opponent's pawn, given the colour masks ``colours`` (k, J, 12)
    after the candidate move."""
    k, J, _ = colours.shape
    opp = 1 - obs.me
    pawn = np.repeat(obs.pawn[obs.rows, opp], J)
    cols = np.broadcast_to(np.arange(N_COLOURS), (k * J, N_COLOURS))
    land = landing(colours.reshape(k * J, -1), pawn, cols).reshape(k, J, N_COLOURS)
    hit = (land == target[:, :, None]) & (target[:, :, None] >= 0)
    w = np.broadcast_to(avail[:, None, :], hit.shape)
    tot = np.maximum(w.sum(axis=2), 1e-9)
    return (hit * w).sum(axis=2) / tot


def _after_colours(obs: FanAndMalletObs) -> np.ndarray:
    """(k, 6, 12) colour masks of the houses after playing each hand card."""
    col = np.broadcast_to(obs.colours[:, None, :], (len(obs), HAND, obs.colours.shape[1])).copy()
    r, j = np.nonzero(obs.legal)
    col[r, j, obs.landing[r, j]] |= 1 << obs.hand_colour[r, j]
    return col


def _partial_margin(obs: FanAndMalletObs) -> np.ndarray:
    """(k, 6) own minus opponent power (with the bonuses as they stand) in the landing house after
    playing each card, for cards that do not complete it."""
    k = len(obs)
    r, j = np.nonzero(obs.legal & ~obs.closes)
    out = np.zeros((k, HAND))
    if len(r):
        h = obs.landing[r, j]
        cards = obs.stack[r, h].astype(np.int64)
        cards[np.arange(len(r)), obs.landing_count[r, j]] = obs.hand[r, j]
        sc = score_houses(cards, obs.ring_faction[r, h])
        me = obs.me[r]
        out[r, j] = sc.totals[np.arange(len(r)), me] - sc.totals[np.arange(len(r)), 1 - me]
    return out


def _closing_value(obs: FanAndMalletObs, win_game: float) -> np.ndarray:
    """(k, 6) value of completing a house: +stake if we possess it, -stake if the opponent does;
    +-win_game where that possession ends the game."""
    me, opp = obs.me, 1 - obs.me
    stake = obs.stake[:, None].astype(float)
    mine = obs.markers[obs.rows, me][:, None] + stake >= TARGET
    theirs = obs.markers[obs.rows, opp][:, None] + stake >= TARGET
    val = np.where(obs.close_wins, np.where(mine, win_game, stake), np.where(theirs, -win_game, -stake))
    return np.where(obs.closes, val, 0.0)


def _kid_prospect(obs: FanAndMalletObs) -> np.ndarray:
    """(k, 6) a kid ghost's bonus if its landing house were judged with the followers already there
    (its ability's prospect: Umbrella's card beneath, Bucket's missing value, Cauldron's count, ...)."""
    k = len(obs)
    r, j = np.nonzero(obs.hand_kid & ~obs.closes)
    out = np.zeros((k, HAND))
    if len(r):
        h = obs.landing[r, j]
        cards = obs.stack[r, h].astype(np.int64)
        pos = obs.landing_count[r, j]
        cards[np.arange(len(r)), pos] = obs.hand[r, j]
        sc = score_houses(cards, obs.ring_faction[r, h])
        out[r, j] = sc.bonus[np.arange(len(r)), pos]
    return out


@dataclass(frozen=True)
class Closer(Strategy):
    """Plays for the house about to be possessed: completes a house it wins (with the cheapest card that
    still wins), avoids completing a house for the opponent, and avoids leaving a house one short where
    the opponent's next card would land. Otherwise it plays its weakest card, keeping strength for the
    possessions."""
    name: ClassVar[str] = "closer"
    game: ClassVar[str] = GAME
    feed: float = param(0.7, "penalty per marker at stake for leaving a house at 4 followers that the "
                             "opponent's next card may complete", min=0.0)
    thrift: float = param(0.15, "penalty per point of power spent (keeps strong cards for possessions)", min=0.0)
    build: float = param(0.1, "reward per point of own lead in a house that is not completed", min=0.0)

    kid_value: ClassVar[float] = 2.5

    def value_of_card(self, obs: FanAndMalletObs) -> np.ndarray:
        return np.where(obs.hand_kid, self.kid_value, obs.hand_power.astype(float))

    def avail(self, obs: FanAndMalletObs) -> np.ndarray:
        return np.ones((len(obs), N_COLOURS))

    def play(self, obs: FanAndMalletObs, rng) -> np.ndarray:
        return _best(self.score(obs), obs.legal)

    def score(self, obs: FanAndMalletObs) -> np.ndarray:
        close = _closing_value(obs, 100.0)
        spend = self.value_of_card(obs)
        leaves4 = obs.legal & (obs.landing_count == STACK - 2)
        reach = _opponent_reach(obs, _after_colours(obs), np.where(leaves4, obs.landing, -1), self.avail(obs))
        lead = _partial_margin(obs)
        stake = obs.stake[:, None].astype(float)
        open_score = -self.feed * stake * reach + self.build * np.clip(lead, -6, 6) * (~leaves4)
        # when completing, a bigger margin is not worth more; spend the cheapest winning card
        score = np.where(obs.closes, 10.0 * close, open_score) - self.thrift * spend
        return score


@dataclass(frozen=True)
class Keeper(Closer):
    """Like ``closer``, but holds kid ghosts for the houses where their ability pays: a kid ghost counts
    as worth ``hold`` while in hand, and is played early only where its ability already gives at least
    ``min_bonus``."""
    name: ClassVar[str] = "keeper"
    hold: float = param(4.0, "worth of a kid ghost kept in hand (in power points)", min=0.0)
    min_bonus: int = param(3, "play a kid ghost on a house not yet completed only if its ability "
                              "would already add at least this", min=0, max=5)

    def value_of_card(self, obs: FanAndMalletObs) -> np.ndarray:
        prospect = _kid_prospect(obs)
        kid_cost = np.where(prospect >= self.min_bonus, 1.0, self.hold)
        return np.where(obs.hand_kid & ~obs.closes, kid_cost,
                        np.where(obs.hand_kid, self.hold / 2, obs.hand_power.astype(float)))


@dataclass(frozen=True)
class Counter(Closer):
    """Like ``closer``, but counts the opponent's cards still unseen (in their hand or deck): the danger
    of leaving a house one short is the share of those cards that would land there, and a house left one
    short is judged by whether the opponent's strongest unseen card landing there would beat us."""
    name: ClassVar[str] = "counter"
    respect: float = param(1.0, "weight of the opponent's best unseen card in a house left at 4", min=0.0)

    def avail(self, obs: FanAndMalletObs) -> np.ndarray:
        unseen = obs.unseen_opponent.reshape(len(obs), N_COLOURS, 5)
        return unseen.sum(axis=2).astype(float)

    def score(self, obs: FanAndMalletObs) -> np.ndarray:
        base = super().score(obs)
        # in a house left one short, the opponent adds at most their strongest unseen spirit (4 mostly)
        unseen = obs.unseen_opponent.reshape(len(obs), N_COLOURS, 5)[:, :, :4]
        top = np.where(unseen.any(axis=2), 4 - np.argmax(unseen[:, :, ::-1], axis=2), 0)  # (k, 6)
        best_opp = top.max(axis=1)[:, None].astype(float)
        lead = _partial_margin(obs)
        leaves4 = obs.legal & (obs.landing_count == STACK - 2)
        safe = leaves4 & (lead - self.respect * best_opp > 0)
        return base + np.where(safe, self.feed * obs.stake[:, None], 0.0)


STRATEGIES = [RandomPlay, Strongest, Closer, Keeper, Counter]
