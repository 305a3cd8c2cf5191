"""A Sen strategy of one's own in numpy form: each decision is a method over a batch of observations.

The batch lane asks it for all the games of a batch that wait on the same decision at once (``obs``
holds one row per game, see ``simcore.games.sen.SenObs``; ``rng`` draws one number per game). Numpy
strategies are the quickest to write and to change; they play the batch lane, a few times slower than
compiled ones (see ``sen_threshold.py`` for the compiled form)::

    sensei play sen --strategy examples/strategies/sen_numpy.py:Cautious:wake=8 --strategy threshold --players 2
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from simcore.games.sen import Drawn, Kind, Start
from strategies.base import Strategy, param

MEAN = 279 / 54  # the mean card value: the estimate of a land one has not seen


@dataclasses.dataclass(frozen=True)
class Cautious(Strategy):
    """Wakes only when every own land is known and the total is at most ``wake``; otherwise plays like
    ``threshold`` (take or keep a card lower than the worst land; Peek 1 on an unknown own land)."""
    game: ClassVar[str] = "sen"
    wake: int = param(8, "say WAKE UP! when every own land is known and they total at most this")

    def _estimates(self, obs) -> np.ndarray:
        est = np.where(obs.own >= 0, obs.own, MEAN).astype(float)
        return np.where(obs.own_mask(), est, -np.inf)

    def start(self, obs, rng):
        est = self._estimates(obs)
        known = ((obs.own >= 0) | ~obs.own_mask()).all(axis=1)
        total = np.where(obs.own_mask(), est, 0.0).sum(axis=1)
        take = obs.top < est.max(axis=1)
        return np.where(known & (total <= self.wake), Start.WAKE, np.where(take, Start.FACE_UP, Start.DRAW))

    def face_up_slot(self, obs, rng):
        return self._estimates(obs).argmax(axis=1)

    def drawn(self, obs, rng):
        est = self._estimates(obs)
        unknown = ((obs.own < 0) & obs.own_mask()).any(axis=1)
        use = (obs.card_kind == Kind.PEEK) & unknown
        better = obs.card < est.max(axis=1)
        return np.where(use, Drawn.USE, np.where(better, est.argmax(axis=1), Drawn.DISCARD))

    def peek(self, obs, rng):
        first_unknown = ((obs.own < 0) & obs.own_mask()).argmax(axis=1)
        return obs.me.copy(), first_unknown
