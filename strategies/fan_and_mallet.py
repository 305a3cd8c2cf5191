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
                                          N_COLOURS, POLICY_CLOSER, POLICY_KEEPER, POLICY_RANDOM, POLICY_STRONGEST, STACK,
                                          STRONGEST_KEY, FanAndMalletObs, closer_evaluation, landing, score_houses,
                                          strongest_slots)

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
    compiled_code: ClassVar[int] = POLICY_RANDOM

    def play(self, obs: FanAndMalletObs, rng) -> np.ndarray:
        return rng.integers(obs.hand_count)  # the hand fills slots 0..hand_count-1


@dataclass(frozen=True)
class Strongest(Strategy):
    """Reference policy ``strongest`` (deterministic): the spirit object of highest power in the hand
    (ties: lowest colour index); with only kid ghosts in hand, the kid ghost of lowest colour index."""
    name: ClassVar[str] = "strongest"
    game: ClassVar[str] = GAME
    compiled_code: ClassVar[int] = POLICY_STRONGEST

    # preference of every card: spirit objects by power then lowest colour, then kid ghosts by lowest colour
    # (an empty slot reads the last entry, below every card)
    KEY: ClassVar[np.ndarray] = STRONGEST_KEY

    def play(self, obs: FanAndMalletObs, rng) -> np.ndarray:
        return strongest_slots(obs.hand)  # the same kernel as the compiled lane


# ------------------------------------------------------------------------------------------------------
# shared evaluation for the heuristics

@dataclass(frozen=True)
class Closer(Strategy):
    """Plays for the house about to be possessed: completes a house it wins (with the cheapest card that
    still wins), avoids completing a house for the opponent, and avoids leaving a house one short where
    the opponent's next card would land. Otherwise it plays its weakest card, keeping strength for the
    possessions. (The evaluation is the engine's ``closer`` kernel, which its compiled form shares.)"""
    name: ClassVar[str] = "closer"
    game: ClassVar[str] = GAME
    compiled_code: ClassVar[int] = POLICY_CLOSER
    feed: float = param(0.7, "penalty per marker at stake for leaving a house at 4 followers that the "
                             "opponent's next card may complete", min=0.0)
    thrift: float = param(0.05, "penalty per point of power spent (keeps strong cards for possessions)", min=0.0)
    build: float = param(0.3, "reward per point of own lead in a house that is not completed", min=0.0)

    kid_value: ClassVar[float] = 2.5

    def value_of_card(self, obs: FanAndMalletObs) -> np.ndarray:
        return np.where(obs.hand_kid, self.kid_value, obs.hand_power.astype(float))

    def avail(self, obs: FanAndMalletObs) -> np.ndarray:
        return np.ones((len(obs), N_COLOURS))

    def compiled_params(self) -> tuple[float, ...]:
        return (self.feed, self.thrift, self.build, self.kid_value)

    def play(self, obs: FanAndMalletObs, rng) -> np.ndarray:
        return _best(self.score(obs), obs.legal)

    def score(self, obs: FanAndMalletObs) -> np.ndarray:
        """Completing a house scores 10 x its closing value (a bigger margin is not worth more: the
        cheapest winning card is spent); otherwise -feed x stake x the share of the opponent's colours that
        would land on a house left one short, plus build x the own lead (clipped to +-6) in a house not
        left one short; minus thrift x the card's value."""
        return closer_evaluation(obs, self.value_of_card(obs), self.avail(obs), self.feed, self.thrift,
                                 self.build)[0]


@dataclass(frozen=True)
class Keeper(Closer):
    """Like ``closer``, but holds kid ghosts for the houses where their ability pays: a kid ghost is played
    on a house it does not complete only where its ability already adds at least ``min_bonus`` (judged
    with the followers there now), otherwise playing it costs ``hold``."""
    name: ClassVar[str] = "keeper"
    compiled_code: ClassVar[int] = POLICY_KEEPER
    hold: float = param(0.5, "penalty for spending a kid ghost where its ability does not pay yet", min=0.0)
    min_bonus: int = param(3, "a kid ghost's ability pays on a house not yet completed when it would "
                              "already add at least this", min=0, max=5)

    def compiled_params(self) -> tuple[float, ...]:
        return (self.feed, self.thrift, self.build, self.kid_value, self.hold, self.min_bonus)

    def score(self, obs: FanAndMalletObs) -> np.ndarray:
        """``closer``'s score, less ``hold`` for a kid ghost played on a house it does not complete where
        its ability's prospect (its bonus judged with the followers there now) is below ``min_bonus``."""
        score, _, _, _, prospect = closer_evaluation(obs, self.value_of_card(obs), self.avail(obs), self.feed,
                                                     self.thrift, self.build)
        waste = obs.hand_kid & ~obs.closes & (prospect < self.min_bonus)
        return score - self.hold * waste


def _threat(obs: FanAndMalletObs, unseen: np.ndarray) -> np.ndarray:
    """(k, 6) for each hand card that leaves its landing house one follower short: the chance that the
    opponent holds a card that would land there on their next turn and possess the house, counting
    only the opponent cards in ``unseen`` (k, 30) and drawing their hand at random from them."""
    k = len(obs)
    out = np.zeros((k, HAND))
    r, j = np.nonzero(obs.legal & (obs.landing_count == STACK - 2))
    if not len(r):
        return out
    m = len(r)
    me = obs.me[r]
    opp = 1 - me
    h = obs.landing[r, j]
    # colour masks after the move, and where each opponent colour would land from their pawn
    cols = obs.colours[r].astype(np.int64)
    cols[np.arange(m), h] |= 1 << obs.hand_colour[r, j]
    land = landing(cols, obs.pawn[r, opp], np.broadcast_to(np.arange(N_COLOURS), (m, N_COLOURS)))
    # every opponent card type as the fifth follower
    types = opp[:, None] * DECK + np.arange(DECK)[None, :]                      # (m, 30)
    base = obs.stack[r, h].astype(np.int64)                                       # (m, 5), 3 followers
    base[np.arange(m), STACK - 2] = obs.hand[r, j]
    stacks = np.repeat(base[:, None, :], DECK, axis=1)
    stacks[:, :, STACK - 1] = types
    sc = score_houses(stacks.reshape(-1, STACK), np.repeat(obs.ring_faction[r, h], DECK))
    wins = (sc.winner.reshape(m, DECK) == opp[:, None])
    lands = land[:, CARD_COLOUR[np.arange(DECK)]] == h[:, None]
    u = unseen[r]
    good = (u & lands & wins).sum(axis=1).astype(float)
    total = u.sum(axis=1).astype(float)
    held = obs.hand_size[r, opp]
    # P(at least one of the `held` cards drawn from `total` is among the `good` ones)
    miss = np.ones(m)
    for i in range(HAND):
        step = np.where(i < held, np.clip((total - good - i) / np.maximum(total - i, 1), 0, 1), 1.0)
        miss *= step
    out[r, j] = 1.0 - miss
    return out


@dataclass(frozen=True)
class Counter(Closer):
    """Like ``closer``, but counts the opponent's cards still unseen (in their hand or deck): leaving a
    house one follower short costs the chance that the opponent holds an unseen card that would land
    there next turn and possess it; a house left short that the opponent cannot take is built up."""
    name: ClassVar[str] = "counter"
    feed: float = param(1.0, "penalty per marker at stake, times the chance that the opponent takes a house "
                             "left at 4 followers", min=0.0)
    bait: float = param(0.3, "reward per marker at stake for leaving at 4 a house the opponent cannot take "
                             "and that we lead", min=0.0)

    def score(self, obs: FanAndMalletObs) -> np.ndarray:
        spend = self.value_of_card(obs)
        _, close, lead, leaves4, _ = closer_evaluation(obs, spend, self.avail(obs))
        danger = _threat(obs, obs.unseen_opponent)
        stake = obs.stake[:, None].astype(float)
        open_score = (-self.feed * stake * danger + self.build * np.clip(lead, -6, 6)
                      + self.bait * stake * (leaves4 & (danger == 0) & (lead > 0)))
        return np.where(obs.closes, 10.0 * close, open_score) - self.thrift * spend


STRATEGIES = [RandomPlay, Strongest, Closer, Keeper, Counter]
