"""Sen strategies: the reference policies ``random`` and ``threshold`` and the project's heuristics.

Every decision method works on a batch of observations (:class:`simcore.games.sen.SenObs`) and returns
integer action codes (:class:`~simcore.games.sen.Start`, slot numbers, :class:`~simcore.games.sen.Drawn`).
Values are compared in sixths (an unknown land is worth 279/54 = 31/6) so that rare ties never flip.
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from simcore.games.sen import MEAN_DEN, MEAN_NUM, SLOTS, Drawn, Kind, SenObs, Start

from .base import Strategy, param


def _rows(obs: SenObs) -> np.ndarray:
    return np.arange(len(obs.me))


def own_estimates6(obs: SenObs, unknown6: np.ndarray | int = MEAN_NUM) -> np.ndarray:
    """(m, S) own slot estimates in sixths: remembered value * 6, ``unknown6`` if unknown; a huge
    negative number for slots that do not exist (so they are never the worst)."""
    own = obs.own
    unknown6 = np.broadcast_to(np.asarray(unknown6), (len(own),))[:, None]
    e = np.where(own >= 0, own * MEAN_DEN, unknown6)
    return np.where(obs.own_mask(), e, -(10 ** 6))


def worst_slot(e6: np.ndarray) -> np.ndarray:
    """Slot with the largest estimate (lowest index on ties)."""
    return np.argmax(e6, axis=1)


@dataclasses.dataclass(frozen=True)
class RandomSen(Strategy):
    """Reference policy: every decision uniformly at random among the listed options (rules/sen.md)."""
    name: ClassVar[str] = "random"
    game: ClassVar[str] = "sen"
    p_wake: float = param(0.1, "probability of saying WAKE UP! at the start of a turn", min=0.0, max=1.0)

    def start(self, obs, rng):
        u = rng.random(2)
        return np.where(u[:, 0] < self.p_wake, Start.WAKE, np.where(u[:, 1] < 0.5, Start.FACE_UP, Start.DRAW))

    def face_up_slot(self, obs, rng):
        return rng.integers(obs.own_slots)

    def drawn(self, obs, rng):
        mask = np.zeros((len(obs.me), SLOTS + 2), dtype=bool)
        mask[:, :SLOTS] = obs.own_mask()
        mask[:, SLOTS] = True
        mask[:, SLOTS + 1] = obs.card_kind != Kind.PLAIN
        c = rng.choose(mask)
        return np.where(c < SLOTS, c, np.where(c == SLOTS, Drawn.DISCARD, Drawn.USE))

    def keep(self, obs, rng):
        return (rng.random() >= 0.5).astype(np.int64)

    def _position(self, obs, rng, exclude=None):
        mask = obs.slot_mask().reshape(len(obs.me), -1)
        if exclude is not None:
            mask = mask.copy()
            mask[_rows(obs), exclude] = False
        return rng.choose(mask)

    def peek(self, obs, rng):
        flat = self._position(obs, rng)
        return flat // SLOTS, flat % SLOTS

    def swap(self, obs, rng):
        a = self._position(obs, rng)
        b = self._position(obs, rng, exclude=a)
        return a // SLOTS, a % SLOTS, b // SLOTS, b % SLOTS


@dataclasses.dataclass(frozen=True)
class Threshold(Strategy):
    """Reference policy: wake when the own estimate is at most ``wake``; replace the worst known slot
    with a lower card; use Peek 1 on an unknown own slot (rules/sen.md)."""
    name: ClassVar[str] = "threshold"
    game: ClassVar[str] = "sen"
    wake: int = param(10, "say WAKE UP! when the estimated own total (unknown = 279/54) is at most this")

    def start(self, obs, rng):
        e6 = own_estimates6(obs)
        total6 = np.where(obs.own_mask(), e6, 0).sum(1)
        w = worst_slot(e6)
        ew6 = e6[_rows(obs), w]
        return np.where(total6 <= self.wake * MEAN_DEN, Start.WAKE,
                        np.where(obs.top * MEAN_DEN < ew6, Start.FACE_UP, Start.DRAW))

    def face_up_slot(self, obs, rng):
        return worst_slot(own_estimates6(obs))

    def drawn(self, obs, rng):
        e6 = own_estimates6(obs)
        w = worst_slot(e6)
        unknown = ((obs.own < 0) & obs.own_mask()).any(1)
        use_peek = (obs.card_kind == Kind.PEEK) & unknown
        better = obs.card * MEAN_DEN < e6[_rows(obs), w]
        return np.where(use_peek, Drawn.USE, np.where(better, w, Drawn.DISCARD))

    def peek(self, obs, rng):
        unknown = (obs.own < 0) & obs.own_mask()
        return obs.me.copy(), np.argmax(unknown, axis=1)


STRATEGIES = [RandomSen, Threshold]
DEFAULT = "threshold"
