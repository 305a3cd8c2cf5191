"""Sen strategies: the reference policies ``random`` and ``threshold`` and the project's heuristics.

Every decision method works on a batch of observations (:class:`simcore.games.sen.SenObs`) and returns
integer action codes (:class:`~simcore.games.sen.Start`, slot numbers, :class:`~simcore.games.sen.Drawn`).
Values are compared in sixths (an unknown land is worth 279/54 = 31/6) so that rare ties never flip.
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar

import numba
import numpy as np

from simcore.compiled import NO_REFCOUNT
from simcore.games.sen import (MEAN_DEN, POLICY_COUNTER, POLICY_GAMBLER, POLICY_RANDOM, POLICY_SWAPPER,
                               POLICY_THRESHOLD, POLICY_WATCHER, SLOTS, Drawn, Kind, SenObs, Start, counting_claim,
                               counting_drawn, counting_face_up, counting_keep, counting_start, counting_swap,
                               threshold_drawn, threshold_scan, threshold_start)

from .base import Strategy, param


def _rows(obs: SenObs) -> np.ndarray:
    return np.arange(len(obs.me))


@dataclasses.dataclass(frozen=True)
class RandomSen(Strategy):
    """Reference policy: every decision uniformly at random among the listed options (rules/sen.md)."""
    name: ClassVar[str] = "random"
    game: ClassVar[str] = "sen"
    p_wake: float = param(0.1, "probability of saying WAKE UP! at the start of a turn", min=0.0, max=1.0)
    compiled_code: ClassVar[int] = POLICY_RANDOM

    def compiled_params(self):
        return (self.p_wake,)

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


# The reference policy is the benchmark's policy: its rules are the engine's compiled decision
# functions (the same comparisons as written in the rulings, in sixths), looped over the batch.
@numba.njit(cache=True)
def _threshold_start(own, nslots, top, wake6):
    out = np.empty(own.shape[0], dtype=np.int32)
    for i in range(own.shape[0]):
        out[i] = threshold_start(own[i], nslots[i], top[i], wake6)
    return out


@numba.njit(cache=True)
def _threshold_worst(own, nslots):
    """The own slot with the largest estimate (lowest index on ties)."""
    out = np.empty(own.shape[0], dtype=np.int32)
    for i in range(own.shape[0]):
        out[i] = threshold_scan(own[i], nslots[i])[2]
    return out


@numba.njit(cache=True)
def _threshold_drawn(own, nslots, card, kind):
    out = np.empty(own.shape[0], dtype=np.int32)
    for i in range(own.shape[0]):
        out[i] = threshold_drawn(own[i], nslots[i], card[i], kind[i])
    return out


@dataclasses.dataclass(frozen=True)
class Threshold(Strategy):
    """Reference policy: wake when the own estimate is at most ``wake``; replace the worst known slot
    with a lower card; use Peek 1 on an unknown own slot (rules/sen.md)."""
    name: ClassVar[str] = "threshold"
    game: ClassVar[str] = "sen"
    wake: int = param(10, "say WAKE UP! when the estimated own total (unknown = 279/54) is at most this")
    compiled_code: ClassVar[int] = POLICY_THRESHOLD

    def compiled_params(self):
        return (self.wake,)

    def start(self, obs, rng):
        return _threshold_start(obs.own, obs.own_slots, obs.top, self.wake * MEAN_DEN)

    def face_up_slot(self, obs, rng):
        return _threshold_worst(obs.own, obs.own_slots)

    def drawn(self, obs, rng):
        return _threshold_drawn(obs.own, obs.own_slots, obs.card, obs.card_kind)

    def peek(self, obs, rng):
        unknown = (obs.own < 0) & obs.own_mask()
        return obs.me.copy(), np.argmax(unknown, axis=1)


# ---------------------------------------------------------------------------------------------
# Heuristics. They share one body of card-counting play (``_Counting``) and differ in the idea that
# gives each its name: when to say WAKE UP!, and how to use Peek 1 and Swap 2.
# ---------------------------------------------------------------------------------------------

@numba.njit(**NO_REFCOUNT)
def _k_start(code, prm, own, ns, mem, nslots, up_counts, kept, me, top, kwih, penalty, fw, out):
    for i in range(out.shape[0]):
        out[i] = counting_start(code, prm, own[i], ns[i], mem[i], nslots[i], up_counts[i], kept[i], me[i], top[i],
                                kwih, penalty, fw)


@numba.njit(**NO_REFCOUNT)
def _k_face_up(own, ns, mem, up_counts, fw, out):
    for i in range(out.shape[0]):
        out[i] = counting_face_up(own[i], ns[i], mem[i], up_counts[i], fw)


@numba.njit(**NO_REFCOUNT)
def _k_drawn(code, prm, own, ns, mem, nslots, up_counts, me, card, kind, fw, out):
    for i in range(out.shape[0]):
        out[i] = counting_drawn(code, prm, own[i], ns[i], mem[i], nslots[i], up_counts[i], me[i], card[i], kind[i], fw)


@numba.njit(**NO_REFCOUNT)
def _k_keep(code, prm, own, ns, mem, nslots, up_counts, me, offer, offer_kind, fw, out):
    for i in range(out.shape[0]):
        out[i] = counting_keep(code, prm, own[i], ns[i], mem[i], nslots[i], up_counts[i], me[i], offer[i, 0],
                               offer_kind[i, 0], offer[i, 1], offer_kind[i, 1], fw)


@numba.njit(**NO_REFCOUNT)
def _k_swap(own, ns, mem, nslots, up_counts, me, fw, out):
    for i in range(out.shape[0]):
        out[i, 0], out[i, 1], out[i, 2] = counting_swap(own[i], ns[i], mem[i], nslots[i], up_counts[i], me[i], fw)


@numba.njit(**NO_REFCOUNT)
def _k_claim(own, ns, mem, up_counts, fw, out):
    for i in range(out.shape[0]):
        out[i, 0], out[i, 1], out[i, 2] = counting_claim(own[i], ns[i], mem[i], up_counts[i], fw)


def _scratch() -> np.ndarray:
    return np.empty((4, 10), dtype=np.float64)


@dataclasses.dataclass(frozen=True)
class _Counting(Strategy):
    """Shared play: estimate unknown lands by counting the cards seen (an unknown land is worth the mean
    of the cards not yet seen: the deck minus the face-up pile and everything remembered); put low cards
    on the worst slot; Take 2 gives two looks, Peek 1 goes on unknown own lands. The subclasses differ in
    when to say WAKE UP! and whether to use Swap 2. Every decision is the engine's compiled function of
    the same name (``simcore.games.sen.counting_*``), looped over the batch here and called directly in
    the compiled lane."""

    take_margin: float = param(0.5, "take or keep a card only if it beats the worst own estimate by this much", min=0.0)
    claim_gain: float = param(3.0, "variant know_what_i_have: name a known pair when it saves at least this (estimated)")
    #: which wake rule and uses of Swap 2 (the engine's POLICY_* code)
    kind: ClassVar[int] = 0

    def compiled_params(self) -> tuple[float, ...]:
        """(take_margin, claim_gain, wake or margin, sure, cap, kept_value, swap_min, edge)."""
        g = lambda name, default=0.0: float(getattr(self, name, default))  # noqa: E731
        return (self.take_margin, self.claim_gain, g("wake", g("margin")), g("sure"), g("cap"), g("kept_value", -1.0),
                g("swap_min"), g("edge"))

    def _prm(self) -> np.ndarray:
        return np.array(self.compiled_params(), dtype=np.float64)

    def start(self, obs, rng):
        out = np.empty(len(obs.me), dtype=np.int64)
        _k_start(self.kind, self._prm(), obs.own, obs.own_slots, obs.mem, obs.nslots, obs.up_counts, obs.kept,
                 obs.me, obs.top, obs.rules.know_what_i_have, float(obs.rules.penalty), _scratch(), out)
        return out

    def face_up_slot(self, obs, rng):
        out = np.empty(len(obs.me), dtype=np.int64)
        _k_face_up(obs.own, obs.own_slots, obs.mem, obs.up_counts, _scratch(), out)
        return out

    def drawn(self, obs, rng):
        out = np.empty(len(obs.me), dtype=np.int64)
        _k_drawn(self.kind, self._prm(), obs.own, obs.own_slots, obs.mem, obs.nslots, obs.up_counts, obs.me,
                 obs.card, obs.card_kind, _scratch(), out)
        return out

    def keep(self, obs, rng):
        out = np.empty(len(obs.me), dtype=np.int64)
        _k_keep(self.kind, self._prm(), obs.own, obs.own_slots, obs.mem, obs.nslots, obs.up_counts, obs.me,
                obs.offer, obs.offer_kind, _scratch(), out)
        return out

    def peek(self, obs, rng):
        """The first unknown own land (there is one: Peek 1 is used only then)."""
        unknown = (obs.own < 0) & obs.own_mask()
        return obs.me.copy(), np.argmax(unknown, axis=1)

    def swap(self, obs, rng):
        """The worst own land for the best opponent land."""
        out = np.empty((len(obs.me), 3), dtype=np.int64)
        _k_swap(obs.own, obs.own_slots, obs.mem, obs.nslots, obs.up_counts, obs.me, _scratch(), out)
        return obs.me.copy(), out[:, 0], out[:, 1], out[:, 2]

    def claim(self, obs, rng):
        """The most valuable known pair of equal own lands."""
        out = np.empty((len(obs.me), 3), dtype=np.int64)
        _k_claim(obs.own, obs.own_slots, obs.mem, obs.up_counts, _scratch(), out)
        return out[:, 0], out[:, 1], out[:, 2]


@dataclasses.dataclass(frozen=True)
class Counter(_Counting):
    """Card counter: like ``threshold``, but an unknown land is worth the mean of the cards not yet seen
    (the face-up pile and everything remembered are removed from the deck), Take 2 gives two looks,
    and Peek 1 is used on unknown own lands. Wakes when its own estimate is at most ``wake``."""
    name: ClassVar[str] = "counter"
    game: ClassVar[str] = "sen"
    wake: float = param(9.0, "say WAKE UP! when the estimated own total is at most this")
    kind: ClassVar[int] = POLICY_COUNTER
    compiled_code: ClassVar[int] = POLICY_COUNTER


@dataclasses.dataclass(frozen=True)
class Watcher(_Counting):
    """Opponent-aware caller: estimates every dream from what it has seen (lands revealed, taken from the
    face-up pile or peeked; unknown lands at the unseen mean) and says WAKE UP! when its own estimate is
    below every opponent's by ``margin``, or at most ``sure`` regardless; never above ``cap``."""
    name: ClassVar[str] = "watcher"
    game: ClassVar[str] = "sen"
    margin: float = param(3.0, "wake when own estimate + margin <= the lowest opponent estimate")
    sure: float = param(4.0, "always wake at or below this estimated total")
    cap: float = param(14.0, "never wake above this estimated total")
    kept_value: float = param(3.0, "estimate of an unknown land its owner drew and kept (public); -1: the unseen mean")
    kind: ClassVar[int] = POLICY_WATCHER
    compiled_code: ClassVar[int] = POLICY_WATCHER


@dataclasses.dataclass(frozen=True)
class Swapper(Watcher):
    """Watcher that also uses Swap 2 to hand its worst land to an opponent in exchange for their lowest
    known land (or an unknown one when its own worst is far above the unseen mean), and keeps whichever
    Take 2 card does most good. ``swap_min`` is the smallest estimated saving worth a swap."""
    name: ClassVar[str] = "swapper"
    game: ClassVar[str] = "sen"
    swap_min: float = param(2.0, "use Swap 2 only when it saves at least this many ravens (estimated)", min=0.0)
    kind: ClassVar[int] = POLICY_SWAPPER
    compiled_code: ClassVar[int] = POLICY_SWAPPER


@dataclasses.dataclass(frozen=True)
class Gambler(Swapper):
    """Penalty-aware caller: models each opponent's total as normal (known lands plus unknown lands at the
    unseen mean and variance) and its own likewise, computes the chance p of holding the fewest, and says
    WAKE UP! when the expected score of calling, (1 - p)(own + penalty), is below the own estimate minus
    ``edge`` (what it still expects to gain by playing on)."""
    name: ClassVar[str] = "gambler"
    game: ClassVar[str] = "sen"
    edge: float = param(2.5, "ravens it expects to save by playing on instead of calling now")
    kind: ClassVar[int] = POLICY_GAMBLER
    compiled_code: ClassVar[int] = POLICY_GAMBLER


STRATEGIES = [RandomSen, Threshold, Counter, Watcher, Swapper, Gambler]
DEFAULT = "threshold"
