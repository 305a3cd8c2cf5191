"""Sensu strategies: the reference policy ``random`` and heuristics (see ``simcore.games.sensu.Player``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from simcore.games.sensu import CARD_TYPE, CARD_VALUE, CARD_WILD, SLOTS, SUBSETS, Action, arrange_by

from .base import Strategy, param


def _choose_per_seat(u: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Uniform choice along the last axis of ``ok`` (m, P, k) given uniforms ``u`` (m, P); -1 where none."""
    count = ok.sum(axis=-1)
    k = np.minimum((u * count).astype(np.int64), np.maximum(count - 1, 0))
    pos = np.argmax(np.cumsum(ok, axis=-1) > k[..., None], axis=-1)
    return np.where(count > 0, pos, -1)


def _pass_or(src: np.ndarray) -> np.ndarray:
    """Source index -> turn code (PASS where no source)."""
    return np.where(src >= 0, src, Action.PASS)


@dataclass(frozen=True)
class Random(Strategy):
    """Reference policy ``random`` of rules/sensu.md (multiplayer and solo), exactly as written.

    Plays a uniformly chosen combination with probability 1/2 when it holds one, otherwise draws from a
    uniformly chosen source and discards uniformly; redeeming ties, discard order and power choices are
    uniform; redeemed cards are built in descending sticks order (ties in redeeming order).
    """
    name: ClassVar[str] = "random"
    game: ClassVar[str] = "sensu"

    def turn(self, obs, rng):
        u = rng.random(2)
        has = obs.combos.any(axis=1)
        play = has & (u[:, 0] < 0.5)
        combo = _choose_rows(u[:, 1], obs.combos)
        src = _choose_rows(u[:, 1], obs.sources)
        return np.where(play, Action.PLAY + combo, _pass_or(src))

    def discard(self, obs, rng):
        return rng.integers(obs.hand_n)

    def arrange(self, obs, rng):
        u = rng.random(2 * SLOTS)
        return arrange_by(obs, redeem_pref=u[:, :SLOTS], discard_key=u[:, SLOTS:])

    def wisdom(self, obs, rng):
        return rng.choose(obs.sources)

    def harmony(self, obs, rng):
        return rng.choose(obs.harmony_ok)

    def courage(self, obs, rng):
        return _choose_per_seat(rng.random(obs.players), obs.courage_ok)

    def solo_turn(self, obs, rng):
        u = rng.random(2)
        has = obs.combos.any(axis=1)
        play = has & ((u[:, 0] < 0.5) | (obs.deck_n == 0))
        combo = _choose_rows(u[:, 1], obs.combos)
        return np.where(play, Action.PLAY + combo, Action.DRAW)

    def place(self, obs, rng):
        return rng.integers(5)


def _choose_rows(u: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Uniform choice among the True entries of each row (-1 where none), from one uniform per row."""
    count = mask.sum(axis=1)
    k = np.minimum((u * count).astype(np.int64), np.maximum(count - 1, 0))
    pos = np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1)
    return np.where(count > 0, pos, -1)


STRATEGIES = [Random]
