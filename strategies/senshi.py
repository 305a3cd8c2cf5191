"""Senshi strategies: the reference policies ``random`` and ``greedy`` of ``rules/senshi.md``, and heuristics.

Every decision is vectorized over a batch of observations (:class:`simcore.games.senshi.Observation`):
each option is scored, illegal ones masked, the best taken. Actions are ``(kind, arg)`` pairs
(:class:`simcore.games.senshi.Kind`; ``arg`` a stack index for Study/Train, a colour for Test).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np

from simcore.games.senshi import MAX_CARD, MIDDLE, NC, Kind, Observation

from .base import Strategy, param

BIG = 1 << 20


def _first(mask: np.ndarray) -> np.ndarray:
    """Index of the first True per row (-1 where none)."""
    return np.where(mask.any(axis=1), mask.argmax(axis=1), -1)


def _best(score: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Index of the highest score among True entries per row (ties: lowest index; -1 where none)."""
    s = np.where(mask, score, -np.inf)
    return np.where(mask.any(axis=1), s.argmax(axis=1), -1)


def _rows(obs: Observation) -> np.ndarray:
    return np.arange(len(obs))


def train_order(obs: Observation) -> np.ndarray:
    """(m,S) the reference order of Train targets: middle by index, then my card, then opponents in turn order."""
    rel = obs.rel
    pos = np.full(obs.loc.shape, MAX_CARD, dtype=np.int64)
    rows = np.arange(len(obs))[:, None]
    for p in range(obs.players):
        for j in range(MAX_CARD):
            s = obs.cards[:, p, j].astype(np.int64)
            ok = s >= 0
            pos[rows[ok, 0], s[ok]] = j
    key = np.where(rel >= 0, (1 + rel) * BIG + pos, np.arange(obs.loc.shape[1])[None, :])
    return np.where(obs.can_train, key, np.iinfo(np.int64).max)


def test_choice(obs: Observation, gain: np.ndarray) -> np.ndarray:
    """Colour in hand with the largest gain; ties: smallest own pile, then lowest colour."""
    key = np.where(obs.can_test, gain * 1000 - obs.my_piles, -np.inf)
    return key.argmax(axis=1)


def _combine(m: int, choices: list[tuple[np.ndarray, int, np.ndarray]], obs: Observation):
    """First applicable choice per row, in priority order: (when, kind, arg) triples; pass if none."""
    kind = np.full(m, int(Kind.PASS), dtype=np.int64)
    arg = np.zeros(m, dtype=np.int64)
    left = ~obs.must_pass
    for when, k, a in choices:
        take = left & when
        kind[take] = int(k)
        arg[take] = np.broadcast_to(a, (m,))[take]
        left &= ~take
    return kind, arg


# ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Random(Strategy):
    """Reference policy `random`: a uniform legal action kind, then a uniform target of that kind."""
    name: ClassVar[str] = "random"
    game: ClassVar[str] = "senshi"

    def setup_take(self, obs: Observation, rng) -> np.ndarray:
        return rng.choose(obs.loc == MIDDLE)

    def act(self, obs: Observation, rng):
        kinds = obs.kinds[:, 1:]
        k = rng.choose(kinds) + 1
        k = np.where(obs.must_pass, int(Kind.PASS), k)
        S = obs.loc.shape[1]
        test = np.zeros((len(obs), S), dtype=bool)
        test[:, :NC] = obs.can_test
        mask = np.where((k == Kind.STUDY)[:, None], obs.can_study,
                        np.where((k == Kind.TRAIN)[:, None], obs.can_train, test))
        a = rng.choose(mask)
        return k, np.maximum(a, 0)


@dataclass(frozen=True)
class Greedy(Strategy):
    """Reference policy `greedy` (deterministic): Test when the gain is at least 2, else Study the lowest
    middle stack topped with the colour of the smallest own pile, else Train (hand empty) or Test."""
    name: ClassVar[str] = "greedy"
    game: ClassVar[str] = "senshi"

    def setup_take(self, obs: Observation, rng) -> np.ndarray:
        return _first(obs.loc == MIDDLE)

    def act(self, obs: Observation, rng):
        return _greedy(obs.me, obs.hand, obs.piles, obs.loc, obs.top, obs.cards, obs.card_tops,
                       obs.card_count, obs.players)


@numba.njit(cache=True)
def _greedy(me, hand, piles, loc, top, cards, card_tops, card_count, P):
    """The reference `greedy` decision, one game at a time (a loop kernel for speed)."""
    m = len(me)
    S = loc.shape[1]
    kind = np.zeros(m, np.int64)
    arg = np.zeros(m, np.int64)
    for i in range(m):
        p = me[i]
        has = False
        best_c = -1
        best_g = 0
        for c in range(4):
            if hand[i, c] > 0:
                has = True
                other = 0
                for q in range(P):
                    if q != p and card_tops[i, q, c] > other:
                        other = card_tops[i, q, c]
                g = 1 + card_tops[i, p, c] - other
                if best_c < 0 or g > best_g or (g == best_g and piles[i, p, c] < piles[i, p, best_c]):
                    best_c = c
                    best_g = g
        if has and best_g >= 2:
            kind[i] = 3
            arg[i] = best_c
            continue
        first = -1
        if card_count[i, p] < 3:
            weak = 0
            for c in range(1, 4):
                if piles[i, p, c] < piles[i, p, weak]:
                    weak = c
            st = -1
            for s in range(S):
                if loc[i, s] == MIDDLE:
                    if first < 0:
                        first = s
                    if top[i, s] == weak:
                        st = s
                        break
            if first >= 0:
                kind[i] = 1
                arg[i] = st if st >= 0 else first
                continue
        if has:
            kind[i] = 3
            arg[i] = best_c
            continue
        t = -1
        for s in range(S):
            if loc[i, s] == MIDDLE:
                t = s
                break
        k = 0
        while t < 0 and k < P:
            t = cards[i, (p + k) % P, 0]
            k += 1
        if t >= 0:
            kind[i] = 2
            arg[i] = t
    return kind, arg


STRATEGIES = [Random, Greedy]
