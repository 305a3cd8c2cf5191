"""Sen strategies: the reference policies ``random`` and ``threshold`` and the project's heuristics.

Every decision method works on a batch of observations (:class:`simcore.games.sen.SenObs`) and returns
integer action codes (:class:`~simcore.games.sen.Start`, slot numbers, :class:`~simcore.games.sen.Drawn`).
Values are compared in sixths (an unknown land is worth 279/54 = 31/6) so that rare ties never flip.
"""
from __future__ import annotations

import abc
import dataclasses
from typing import ClassVar

import numba
import numpy as np

from simcore.games.sen import (MEAN_DEN, MEAN_NUM, POLICY_RANDOM, POLICY_THRESHOLD, SLOTS, Drawn, Kind, SenObs, Start,
                               threshold_drawn, threshold_scan, threshold_start)

from .base import Strategy, param


def _rows(obs: SenObs) -> np.ndarray:
    return np.arange(len(obs.me))


def own_estimates6(obs: SenObs, unknown6: np.ndarray | int = MEAN_NUM) -> np.ndarray:
    """(m, S) own slot estimates in sixths: remembered value * 6, ``unknown6`` if unknown; a huge
    negative number for slots that do not exist (so they are never the worst)."""
    own = obs.own
    if np.ndim(unknown6):
        unknown6 = np.asarray(unknown6, dtype=own.dtype)[:, None]
    e = np.where(own >= 0, own * own.dtype.type(MEAN_DEN), own.dtype.type(unknown6) if np.ndim(unknown6) == 0 else unknown6)
    return np.where(obs.own_mask(), e, own.dtype.type(-(10 ** 6)))


def worst_slot(e6: np.ndarray) -> np.ndarray:
    """Slot with the largest estimate (lowest index on ties)."""
    return np.argmax(e6, axis=1)


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

#: copies of each value 0..9 in the deck
DECK_COUNTS = np.array([4, 4, 4, 4, 4, 7, 7, 7, 4, 9], dtype=float)


def unseen_stats(obs: SenObs) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance (m,) of the value of a card this player has not seen (not face up, not remembered)."""
    known = obs.up_counts.astype(float)
    mem = obs.mem
    for v in range(10):
        known[:, v] += (mem == v).sum((1, 2))
    left = np.maximum(DECK_COUNTS[None, :] - known, 0.0)
    n = left.sum(1)
    vals = np.arange(10, dtype=float)[None, :]
    mean = np.where(n > 0, (left * vals).sum(1) / np.maximum(n, 1), 279 / 54)
    var = np.where(n > 0, (left * vals ** 2).sum(1) / np.maximum(n, 1) - mean ** 2, 0.0)
    return mean, np.maximum(var, 0.0)


def dream_estimates(obs: SenObs, mean: np.ndarray, var: np.ndarray, kept_value: float | None = None):
    """Estimated total and variance of every dream (m, P), unknown lands at the unseen mean.

    With ``kept_value``, an unknown land that its owner drew and kept (public history) is estimated at
    that value instead, with a smaller spread: players keep a drawn land only when it is low."""
    exists = obs.slot_mask()
    known = (obs.mem >= 0) & exists
    unknown = ~known & exists
    if kept_value is None:
        n_unknown = unknown.sum(2)
        total = np.where(known, obs.mem, 0).sum(2) + n_unknown * mean[:, None]
        return total, n_unknown * var[:, None]
    kept = unknown & obs.kept
    plain = (unknown & ~obs.kept).sum(2)
    n_kept = kept.sum(2)
    total = np.where(known, obs.mem, 0).sum(2) + plain * mean[:, None] + n_kept * kept_value
    spread = plain * var[:, None] + n_kept * np.minimum(var, 4.0)[:, None]
    return total, spread


@dataclasses.dataclass(frozen=True)
class _Counting(Strategy, abc.ABC):
    """Shared play: estimate unknown lands by counting the cards seen; put low cards on the worst slot."""

    take_margin: float = param(0.5, "take or keep a card only if it beats the worst own estimate by this much", min=0.0)
    claim_gain: float = param(3.0, "variant know_what_i_have: name a known pair when it saves at least this (estimated)")

    # --- estimates
    def _own(self, obs):
        mean, var = unseen_stats(obs)
        own = obs.own.astype(float)
        est = np.where(own >= 0, own, mean[:, None])
        est = np.where(obs.own_mask(), est, -np.inf)
        return mean, var, est

    def _worst(self, est):
        w = np.argmax(est, axis=1)
        return w, est[np.arange(len(est)), w]

    # --- wake rule: subclasses decide
    @abc.abstractmethod
    def wants_wake(self, obs, mean, var, est):
        """(m,) True where the player says WAKE UP!"""

    def start(self, obs, rng):
        mean, var, est = self._own(obs)
        _, worst = self._worst(est)
        take = obs.top <= worst - self.take_margin
        wake = self.wants_wake(obs, mean, var, est)
        act = np.where(wake, Start.WAKE, np.where(take, Start.FACE_UP, Start.DRAW))
        if obs.rules.know_what_i_have:
            gain, _, _, _ = self._best_pair(obs, mean)
            act = np.where(~wake & (gain >= self.claim_gain), Start.CLAIM, act)
        return act

    def _best_pair(self, obs, mean):
        """The most valuable known pair of equal own lands: (gain, slot_a, slot_b, value); gain -inf if none.

        Naming a known pair always succeeds (memory is true): both lands leave, one unseen land comes.
        Legal with 2 to 7 lands."""
        own = obs.own
        m = len(own)
        best = np.full(m, -np.inf)
        sa = np.zeros(m, dtype=np.int64)
        sb = np.ones(m, dtype=np.int64)
        val = np.zeros(m, dtype=np.int64)
        n = obs.own_slots
        for a in range(SLOTS):
            for b in range(a + 1, SLOTS):
                ok = (own[:, a] >= 0) & (own[:, a] == own[:, b]) & (b < n)
                gain = np.where(ok, 2 * own[:, a] - mean, -np.inf)
                better = gain > best
                best = np.where(better, gain, best)
                sa = np.where(better, a, sa)
                sb = np.where(better, b, sb)
                val = np.where(better, own[:, a], val)
        best = np.where((n >= 2) & (n <= 7), best, -np.inf)
        return best, sa, sb, val

    def claim(self, obs, rng):
        mean, _ = unseen_stats(obs)
        _, a, b, v = self._best_pair(obs, mean)
        return a, b, v

    def face_up_slot(self, obs, rng):
        _, _, est = self._own(obs)
        return self._worst(est)[0]

    # --- gains of each use of a drawn card
    def _peek_target(self, obs):
        """Own unknown slot first (lowest index); -1 when none."""
        unknown = (obs.own < 0) & obs.own_mask()
        return np.where(unknown.any(1), np.argmax(unknown, axis=1), -1)

    def _swap_plan(self, obs, mean, est):
        """(gain, player_b, slot_b) of swapping the worst own land with the best opponent land."""
        m = len(obs.me)
        w, worst = self._worst(est)
        mem = obs.mem.astype(float)
        other = obs.slot_mask().copy()
        other[np.arange(m), obs.me] = False
        cand = np.where(mem >= 0, mem, mean[:, None, None] + 0.5)  # an unknown land is a little worse than known
        cand = np.where(other, cand, np.inf).reshape(m, -1)
        j = np.argmin(cand, axis=1)
        gain = worst - cand[np.arange(m), j]
        return gain, j // SLOTS, j % SLOTS, w

    def _gains(self, obs, value, kind, mean, est):
        """Gain (ravens saved, estimated) of exchanging ``value`` into the worst slot, and of using ``kind``."""
        _, worst = self._worst(est)
        ex = worst - value
        use = np.full(len(obs.me), -np.inf)
        use = np.where(kind == Kind.PEEK, np.where(self._peek_target(obs) >= 0, self.peek_value(), -np.inf), use)
        use = np.where(kind == Kind.SWAP, self.swap_gain(obs, mean, est), use)
        use = np.where(kind == Kind.TAKE2, np.maximum(worst - mean, 0.0) + 0.5, use)
        return ex, use

    def peek_value(self) -> float:
        return 1.0

    def swap_gain(self, obs, mean, est):
        return np.full(len(obs.me), -np.inf)

    def drawn(self, obs, rng):
        mean, var, est = self._own(obs)
        w, worst = self._worst(est)
        ex, use = self._gains(obs, obs.card, obs.card_kind, mean, est)
        do_use = (use > ex) & (use > 0)
        do_ex = ~do_use & (ex >= self.take_margin)
        return np.where(do_use, Drawn.USE, np.where(do_ex, w, Drawn.DISCARD))

    def keep(self, obs, rng):
        mean, var, est = self._own(obs)
        g = []
        for k in range(2):
            ex, use = self._gains(obs, obs.offer[:, k], obs.offer_kind[:, k], mean, est)
            g.append(np.maximum(ex, use))
        return (g[1] > g[0]).astype(np.int64)

    def peek(self, obs, rng):
        t = self._peek_target(obs)
        return obs.me.copy(), np.maximum(t, 0)

    def swap(self, obs, rng):
        mean, var, est = self._own(obs)
        gain, pb, sb, w = self._swap_plan(obs, mean, est)
        return obs.me.copy(), w, pb, sb


@dataclasses.dataclass(frozen=True)
class Counter(_Counting):
    """Card counter: like ``threshold``, but an unknown land is worth the mean of the cards not yet seen
    (the face-up pile and everything remembered are removed from the deck), Take 2 gives two looks,
    and Peek 1 is used on unknown own lands. Wakes when its own estimate is at most ``wake``."""
    name: ClassVar[str] = "counter"
    game: ClassVar[str] = "sen"
    wake: float = param(9.0, "say WAKE UP! when the estimated own total is at most this")

    def wants_wake(self, obs, mean, var, est):
        return np.where(obs.own_mask(), est, 0.0).sum(1) <= self.wake


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

    def _kept(self):
        return None if self.kept_value < 0 else self.kept_value

    def wants_wake(self, obs, mean, var, est):
        m = len(obs.me)
        total, _ = dream_estimates(obs, mean, var, self._kept())
        own = total[np.arange(m), obs.me]
        opp = total.copy()
        opp[np.arange(m), obs.me] = np.inf
        best_opp = opp.min(1)
        return (own <= self.sure) | ((own + self.margin <= best_opp) & (own <= self.cap))


@dataclasses.dataclass(frozen=True)
class Swapper(Watcher):
    """Watcher that also uses Swap 2 to hand its worst land to an opponent in exchange for their lowest
    known land (or an unknown one when its own worst is far above the unseen mean), and keeps whichever
    Take 2 card does most good. ``swap_min`` is the smallest estimated saving worth a swap."""
    name: ClassVar[str] = "swapper"
    game: ClassVar[str] = "sen"
    swap_min: float = param(2.0, "use Swap 2 only when it saves at least this many ravens (estimated)", min=0.0)

    def swap_gain(self, obs, mean, est):
        gain = self._swap_plan(obs, mean, est)[0]
        return np.where(gain >= self.swap_min, gain, -np.inf)


@dataclasses.dataclass(frozen=True)
class Gambler(Swapper):
    """Penalty-aware caller: models each opponent's total as normal (known lands plus unknown lands at the
    unseen mean and variance) and its own likewise, computes the chance p of holding the fewest, and says
    WAKE UP! when the expected score of calling, (1 - p)(own + penalty), is below the own estimate minus
    ``edge`` (what it still expects to gain by playing on)."""
    name: ClassVar[str] = "gambler"
    game: ClassVar[str] = "sen"
    edge: float = param(2.5, "ravens it expects to save by playing on instead of calling now")

    def wants_wake(self, obs, mean, var, est):
        from scipy.special import ndtr

        m = len(obs.me)
        rows = np.arange(m)
        total, tvar = dream_estimates(obs, mean, var, self._kept())
        own, own_var = total[rows, obs.me], tvar[rows, obs.me]
        diff = total - own[:, None]                 # opponent minus own: we need it >= 0
        sd = np.sqrt(tvar + own_var[:, None] + 0.25)
        p_each = ndtr((diff + 0.5) / sd)
        p_each[rows, obs.me] = 1.0
        p = p_each.prod(1)
        penalty = obs.rules.penalty
        return (1 - p) * (own + penalty) <= own - self.edge


STRATEGIES = [RandomSen, Threshold, Counter, Watcher, Swapper, Gambler]
DEFAULT = "threshold"
