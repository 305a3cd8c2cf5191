"""Strategies for Fan & Mallet: the reference policies and heuristics.

Every strategy implements ``play(obs, rng) -> hand slot`` (see ``simcore.games.fan_and_mallet``), scoring
every card of the hand at once for a batch of games, masking empty slots and taking the best. Every
strategy here also has a compiled form (``compiled_code``): lineups of them play whole games in the
engine's compiled lane, with the same decisions.

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

from simcore.games.fan_and_mallet import (N_COLOURS, POLICY_CLOSER, POLICY_COUNTER, POLICY_KEEPER, POLICY_RANDOM,
                                          POLICY_STRONGEST, STRONGEST_KEY, FanAndMalletObs, closer_evaluation,
                                          strongest_slots)

from .base import Strategy, param

GAME = "fan-and-mallet"


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
# the heuristics: one evaluation of each card, the engine's kernel ``closer_evaluation``, which the
# compiled forms of ``closer``, ``keeper`` and ``counter`` share

@dataclass(frozen=True)
class Closer(Strategy):
    """Plays for the house about to be possessed: completes a house it wins (with the cheapest card that
    still wins), avoids completing a house for the opponent, and avoids leaving a house one short where
    the opponent's next card would land. Otherwise it plays its weakest card, keeping strength for the
    possessions."""
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


@dataclass(frozen=True)
class Counter(Closer):
    """Like ``closer``, but counts the opponent's cards still unseen (in their hand or deck): leaving a
    house one follower short costs the chance that the opponent holds an unseen card that would land
    there next turn and possess it; a house left short that the opponent cannot take is built up."""
    name: ClassVar[str] = "counter"
    compiled_code: ClassVar[int] = POLICY_COUNTER
    feed: float = param(1.0, "penalty per marker at stake, times the chance that the opponent takes a house "
                             "left at 4 followers", min=0.0)
    bait: float = param(0.3, "reward per marker at stake for leaving at 4 a house the opponent cannot take "
                             "and that we lead", min=0.0)

    def compiled_params(self) -> tuple[float, ...]:
        return (self.feed, self.thrift, self.build, self.kid_value, 0.0, 0.0, self.bait)

    def score(self, obs: FanAndMalletObs) -> np.ndarray:
        """Completing a house scores as for ``closer``; otherwise -feed x stake x the danger (the chance
        that the opponent holds an unseen card that lands on a house left one short and possesses it),
        plus build x the own lead (clipped to +-6), plus bait x stake for a house left one short that is
        safe and led; minus thrift x the card's value."""
        return closer_evaluation(obs, self.value_of_card(obs), self.avail(obs), self.feed, self.thrift, self.build,
                                 self.bait)[0]


STRATEGIES = [RandomPlay, Strongest, Closer, Keeper, Counter]
