"""Sen strategies: the reference policies ``random`` and ``threshold`` and the project's heuristics.

Every decision is a compiled function of the engine's observation view (:data:`simcore.games.sen.SenView`),
the strategy's parameters and its random stream, returning an option code
(:class:`~simcore.games.sen.Start`, slot numbers, :class:`~simcore.games.sen.Drawn`, and the position
codes of :func:`~simcore.games.sen.peek_option` and :func:`~simcore.games.sen.swap_option`). The same
functions play the compiled lane and, looped over a batch, the batch lane. Values are compared in
sixths (an unknown land is worth 279/54 = 31/6) so that rare ties never flip.
"""
# The compiled code of this file never indexes an array with a negative number, so numba leaves out
# Python's wrap-around of negative indices here (simcore/compiled.py; checked by make boundscheck):
# sensei: no negative indices
from __future__ import annotations

import dataclasses
import math
from typing import ClassVar

import numba
import numpy as np

from simcore.compiled import NO_REFCOUNT, decision
from simcore.games.sen import (MEAN_DEN, MEAN_NUM, SLOTS, claim_option, nth_land, own_lands, peek_option,
                               swap_option, top_value)
from simcore.rng import draw, integer, random, uniform_at

from .base import Strategy, param


# ---------------------------------------------------------------------------------------------
# The reference policy ``threshold`` (rules: reference policies), one decision at a time.
# ---------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def threshold_scan(own, ns):
    """Own estimates in sixths (unknown = 31/6): (total, largest, its slot (lowest on ties), first
    unknown slot or -1)."""
    if ns == 4:                  # the size of every dream unless the variant of claims is on: a loop
        return _scan(own, 4)     # of constant length, which the compiler unrolls
    return _scan(own, ns)


@numba.njit(cache=True, inline="always")
def _scan(own, ns):
    total, worst, w, unknown = 0, -1, 0, -1
    for s in range(ns):
        v = np.int64(own[s])
        k = np.int64(v >= 0)                     # arithmetic, not branches: the values are random
        e = MEAN_NUM + k * (v * MEAN_DEN - MEAN_NUM)
        f = (1 - k) * np.int64(unknown < 0)
        unknown += f * (s - unknown)
        total += e
        b = np.int64(e > worst)
        w += b * (s - w)
        worst += b * (e - worst)
    return total, worst, w, unknown


@numba.njit(cache=True, inline="always")
def _threshold_start(total, worst, top, wake6):
    if total <= wake6:
        return 0        # Start.WAKE
    if top * MEAN_DEN < worst:
        return 1        # Start.FACE_UP
    return 2            # Start.DRAW


@numba.njit(cache=True, inline="always")
def _threshold_drawn(worst, w, unknown, card, kind):
    if kind == 2 and unknown >= 0:   # Kind.PEEK on an unknown own land
        return -2                    # Drawn.USE
    if card * MEAN_DEN < worst:
        return w
    return -1                        # Drawn.DISCARD


@numba.njit(cache=True, inline="always")
def threshold_start(own, ns, top, wake6):
    total, worst, _, _ = threshold_scan(own, ns)
    return _threshold_start(total, worst, top, wake6)


@numba.njit(cache=True, inline="always")
def threshold_drawn(own, ns, card, kind):
    _, worst, w, unknown = threshold_scan(own, ns)
    return _threshold_drawn(worst, w, unknown, card, kind)


# ---------------------------------------------------------------------------------------------
# The card-counting heuristics (``counter``, ``watcher``, ``swapper``, ``gambler``), one decision at a
# time. Arguments: ``prm`` = (take_margin, claim_gain, wake or margin, sure, cap, kept_value, swap_min, edge);
# ``own`` (S,) the player's memory of their own lands, ``ns`` their number; ``mem_me`` (P, S) what the
# player remembers of every land; ``nslots_g`` (P,), ``up_counts_g`` (10,), ``kept_g`` (P, S) public;
# ``fw`` a float scratch (4, 10).
# ---------------------------------------------------------------------------------------------
COUNTER, WATCHER, SWAPPER, GAMBLER = 3, 4, 5, 6

#: copies of each value 0..9 in the deck
_DECK_COUNTS = np.array([4, 4, 4, 4, 4, 7, 7, 7, 4, 9], dtype=np.int64)
_NEG = -np.inf


@numba.njit(**NO_REFCOUNT)
def unseen_stats_one(mem_me, up_counts_g):
    """Mean and variance of the value of a card the player has not seen (neither face up nor
    remembered); 279/54 and 0 when every card is accounted for.

    The remembered cards are counted per value in one integer, six bits a value (at most 5 x 8 lands
    are remembered, so no count spills into the next), without a branch on whether a land is known;
    the sums are of integers, so the mean and variance are the same numbers as summed in floats."""
    packed = np.int64(0)
    for p in range(mem_me.shape[0]):
        for s in range(mem_me.shape[1]):
            x = np.int64(mem_me[p, s])
            k = np.int64(x >= 0)
            packed += k << (6 * x * k)
    n, t1, t2 = 0, 0, 0
    for v in range(10):
        left = _DECK_COUNTS[v] - up_counts_g[v] - ((packed >> (6 * v)) & 63)
        left = max(left, 0)
        n += left
        t1 += left * v
        t2 += left * v * v
    if n <= 0:
        return 279.0 / 54.0, 0.0
    mean = float(t1) / float(n)
    return mean, max(float(t2) / float(n) - mean * mean, 0.0)


@numba.njit(**NO_REFCOUNT)
def _own_estimates(own, ns, mean, est):
    """Own lands' estimates into ``est`` (remembered value, else ``mean``; -inf past the last land);
    returns the worst land (largest estimate, lowest slot on ties) and its estimate."""
    w, worst = 0, _NEG
    for s in range(est.shape[0]):
        if s < ns:
            e = float(own[s]) if own[s] >= 0 else mean
        else:
            e = _NEG
        est[s] = e
        if e > worst:
            w, worst = s, e
    return w, worst


@numba.njit(**NO_REFCOUNT)
def dream_estimates_one(mem_me, nslots_g, kept_g, mean, var, kept_value, tot, spread):
    """Estimated total and spread of every dream into ``tot``/``spread`` (P,): unknown lands at the
    unseen mean; with ``kept_value`` >= 0, an unknown land its owner drew and kept (public) at that
    value, with spread min(var, 4)."""
    for p in range(mem_me.shape[0]):
        known, plain, n_kept = 0, 0, 0
        for s in range(nslots_g[p]):
            x = mem_me[p, s]
            if x >= 0:
                known += x
            elif kept_value >= 0.0 and kept_g[p, s]:
                n_kept += 1
            else:
                plain += 1
        tot[p] = known + plain * mean + n_kept * kept_value if kept_value >= 0.0 else known + plain * mean
        spread[p] = plain * var + n_kept * min(var, 4.0) if kept_value >= 0.0 else plain * var


@numba.njit(**NO_REFCOUNT)
def _ndtr(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


@numba.njit(**NO_REFCOUNT)
def counting_wants_wake(code, prm, est, ns, mem_me, nslots_g, kept_g, me, mean, var, penalty, fw):
    """Whether the player says WAKE UP! (before the take / draw choice)."""
    if code == COUNTER:
        total = 0.0
        for s in range(ns):
            total += est[s]
        return total <= prm[2]
    tot, spread = fw[2], fw[3]
    dream_estimates_one(mem_me, nslots_g, kept_g, mean, var, prm[5], tot, spread)
    own = tot[me]
    if code == GAMBLER:
        # chance of holding the fewest, each opponent's total minus the own as a normal variable
        p = 1.0
        for q in range(mem_me.shape[0]):
            if q != me:
                p *= _ndtr((tot[q] - own + 0.5) / math.sqrt(spread[q] + spread[me] + 0.25))
        return (1.0 - p) * (own + penalty) <= own - prm[7]
    best = np.inf
    for q in range(mem_me.shape[0]):
        if q != me and tot[q] < best:
            best = tot[q]
    return own <= prm[3] or (own + prm[2] <= best and own <= prm[4])


@numba.njit(**NO_REFCOUNT)
def counting_best_pair(own, ns, mean):
    """The most valuable known pair of equal own lands for "I know what I have": (gain, slot a, slot b,
    value); gain -inf if none or if the dream has not 2 to 7 lands. Naming a known pair always succeeds
    (memory is true): both lands leave, one unseen land comes."""
    best, sa, sb, val = _NEG, 0, 1, 0
    for a in range(ns):
        if own[a] < 0:
            continue
        for b in range(a + 1, ns):
            if own[a] == own[b]:
                gain = 2.0 * own[a] - mean
                if gain > best:
                    best, sa, sb, val = gain, a, b, own[a]
    if ns < 2 or ns > 7:
        best = _NEG
    return best, sa, sb, val


@numba.njit(**NO_REFCOUNT)
def counting_swap_plan(mem_me, nslots_g, me, mean, worst):
    """(gain, player, slot) of swapping the worst own land with the best opponent land (an unknown
    land counts as a little worse than the unseen mean)."""
    S = mem_me.shape[1]
    best, j = np.inf, 0
    for p in range(mem_me.shape[0]):
        if p == me:
            continue
        for s in range(nslots_g[p]):
            x = mem_me[p, s]
            c = float(x) if x >= 0 else mean + 0.5
            if c < best:
                best, j = c, p * S + s
    return worst - best, j // S, j % S


@numba.njit(**NO_REFCOUNT)
def _first_unknown(own, ns):
    for s in range(ns):
        if own[s] < 0:
            return s
    return -1


@numba.njit(**NO_REFCOUNT)
def _counting_gains(code, prm, own, ns, mem_me, nslots_g, me, mean, worst, value, kind):
    """Gain (ravens saved, estimated) of exchanging ``value`` into the worst slot, and of using ``kind``."""
    ex = worst - value
    use = _NEG
    if kind == 2:                                   # Peek 1: worth 1 on an unknown own land
        if _first_unknown(own, ns) >= 0:
            use = 1.0
    elif kind == 3:                                 # Swap 2: swapper and gambler only
        if code == SWAPPER or code == GAMBLER:
            gain = counting_swap_plan(mem_me, nslots_g, me, mean, worst)[0]
            if gain >= prm[6]:
                use = gain
    elif kind == 1:                                 # Take 2: two looks
        use = max(worst - mean, 0.0) + 0.5
    return ex, use


@numba.njit(**NO_REFCOUNT)
def _counting_start(code, prm, own, ns, mem_me, nslots_g, up_counts_g, kept_g, me, top, kwih, penalty, fw):
    """(Start code, the unseen mean it was decided on)."""
    mean, var = unseen_stats_one(mem_me, up_counts_g)
    _, worst = _own_estimates(own, ns, mean, fw[1, :own.shape[0]])
    wake = counting_wants_wake(code, prm, fw[1], ns, mem_me, nslots_g, kept_g, me, mean, var, penalty, fw)
    act = 0 if wake else (1 if top <= worst - prm[0] else 2)
    if kwih and not wake and counting_best_pair(own, ns, mean)[0] >= prm[1]:
        act = 3
    return act, mean


@numba.njit(**NO_REFCOUNT)
def counting_start(code, prm, own, ns, mem_me, nslots_g, up_counts_g, kept_g, me, top, kwih, penalty, fw):
    return _counting_start(code, prm, own, ns, mem_me, nslots_g, up_counts_g, kept_g, me, top, kwih, penalty, fw)[0]


@numba.njit(**NO_REFCOUNT)
def counting_face_up(own, ns, mem_me, up_counts_g, fw):
    mean, _ = unseen_stats_one(mem_me, up_counts_g)
    return _own_estimates(own, ns, mean, fw[1, :own.shape[0]])[0]


@numba.njit(**NO_REFCOUNT)
def counting_drawn(code, prm, own, ns, mem_me, nslots_g, up_counts_g, me, value, kind, fw):
    mean, _ = unseen_stats_one(mem_me, up_counts_g)
    return _counting_drawn(code, prm, own, ns, mem_me, nslots_g, me, value, kind, mean, fw)


@numba.njit(**NO_REFCOUNT)
def _counting_drawn(code, prm, own, ns, mem_me, nslots_g, me, value, kind, mean, fw):
    """``counting_drawn`` with the unseen mean already worked out."""
    w, worst = _own_estimates(own, ns, mean, fw[1, :own.shape[0]])
    ex, use = _counting_gains(code, prm, own, ns, mem_me, nslots_g, me, mean, worst, value, kind)
    if use > ex and use > 0.0:
        return -2                                   # Drawn.USE
    if ex >= prm[0]:
        return w
    return -1                                       # Drawn.DISCARD


@numba.njit(**NO_REFCOUNT)
def counting_keep(code, prm, own, ns, mem_me, nslots_g, up_counts_g, me, v0, k0, v1, k1, fw):
    mean, _ = unseen_stats_one(mem_me, up_counts_g)
    _, worst = _own_estimates(own, ns, mean, fw[1, :own.shape[0]])
    ex0, use0 = _counting_gains(code, prm, own, ns, mem_me, nslots_g, me, mean, worst, v0, k0)
    ex1, use1 = _counting_gains(code, prm, own, ns, mem_me, nslots_g, me, mean, worst, v1, k1)
    return 1 if max(ex1, use1) > max(ex0, use0) else 0


@numba.njit(**NO_REFCOUNT)
def counting_swap(own, ns, mem_me, nslots_g, up_counts_g, me, fw):
    """(own slot, opponent, slot): the worst own land for the best opponent land."""
    mean, _ = unseen_stats_one(mem_me, up_counts_g)
    w, worst = _own_estimates(own, ns, mean, fw[1, :own.shape[0]])
    _, pb, sb = counting_swap_plan(mem_me, nslots_g, me, mean, worst)
    return w, pb, sb


@numba.njit(**NO_REFCOUNT)
def counting_claim(own, ns, mem_me, up_counts_g, fw):
    mean, _ = unseen_stats_one(mem_me, up_counts_g)
    _, a, b, v = counting_best_pair(own, ns, mean)
    return a, b, v




# ---------------------------------------------------------------------------------------------
# The strategies
# ---------------------------------------------------------------------------------------------
@decision(inline=True)
def _random_start(obs, prm, rng):
    base = draw(rng)
    if uniform_at(base, 0) < prm.p_wake:
        return 0                                    # Start.WAKE
    return 1 if uniform_at(base, 1) < 0.5 else 2    # Start.FACE_UP / Start.DRAW


@decision(inline=True)
def _random_face_up(obs, prm, rng):
    return integer(rng, own_lands(obs))


@decision(inline=True)
def _random_drawn(obs, prm, rng):
    ns = own_lands(obs)
    k = integer(rng, ns + 1 + (obs.card_kind != 0))
    return k if k < ns else (-1 if k == ns else -2)  # a slot, Drawn.DISCARD, Drawn.USE


@decision(inline=True)
def _random_keep(obs, prm, rng):
    return 1 if random(rng) >= 0.5 else 0


@numba.njit(cache=True, inline="always")
def _lands(obs):
    total = 0
    for p in range(obs.nslots.shape[1]):
        total += obs.nslots[obs.g, p]
    return total


@decision(inline=True)
def _random_peek(obs, prm, rng):
    pl, sl = nth_land(obs.nslots, obs.g, integer(rng, _lands(obs)), -1)
    return peek_option(pl, sl)


@decision(inline=True)
def _random_swap(obs, prm, rng):
    total = _lands(obs)
    pa, sa = nth_land(obs.nslots, obs.g, integer(rng, total), -1)
    pb, sb = nth_land(obs.nslots, obs.g, integer(rng, total - 1), peek_option(pa, sa))
    return swap_option(pa, sa, pb, sb)


@dataclasses.dataclass(frozen=True)
class RandomSen(Strategy):
    """Reference policy: every decision uniformly at random among the listed options (docs/games/sen.md)."""
    name: ClassVar[str] = "random"
    game: ClassVar[str] = "sen"
    p_wake: float = param(0.1, "probability of saying WAKE UP! at the start of a turn", min=0.0, max=1.0)

    start = _random_start
    face_up_slot = _random_face_up
    drawn = _random_drawn
    keep = _random_keep
    peek = _random_peek
    swap = _random_swap


@decision(inline=True)
def _threshold_start_d(obs, prm, rng):
    own = obs.mem[obs.g, obs.me, obs.me]
    return threshold_start(own, own_lands(obs), top_value(obs), prm.wake * MEAN_DEN)


@decision(inline=True)
def _threshold_face_up(obs, prm, rng):
    return threshold_scan(obs.mem[obs.g, obs.me, obs.me], own_lands(obs))[2]


@decision(inline=True)
def _threshold_drawn_d(obs, prm, rng):
    return threshold_drawn(obs.mem[obs.g, obs.me, obs.me], own_lands(obs), obs.card, obs.card_kind)


@decision(inline=True)
def _first_unknown_peek(obs, prm, rng):
    """Peek at the first unknown own land (there is one: Peek 1 is used only then)."""
    s = _first_unknown(obs.mem[obs.g, obs.me, obs.me], own_lands(obs))
    return peek_option(obs.me, max(s, 0))


@dataclasses.dataclass(frozen=True)
class Threshold(Strategy):
    """Reference policy: wake when the own estimate is at most ``wake``; replace the own land of the
    largest estimate (an unknown one counts 31/6) with a lower card; use Peek 1 on an unknown own slot
    (docs/games/sen.md)."""
    name: ClassVar[str] = "threshold"
    game: ClassVar[str] = "sen"
    wake: int = param(10, "say WAKE UP! when the estimated own total (unknown = 279/54) is at most this "
                          "(-1: never, as no estimate is below 0)", min=-1, names={-1: "never"})

    start = _threshold_start_d
    face_up_slot = _threshold_face_up
    drawn = _threshold_drawn_d
    peek = _first_unknown_peek


# ---------------------------------------------------------------------------------------------
# Heuristics. They share one body of card-counting play (``_Counting``) and differ in the idea that
# gives each its name: when to say WAKE UP!, and how to use Peek 1 and Swap 2.
# ``prm`` = (code, take_margin, claim_gain, wake or margin, sure, cap, kept_value, swap_min, edge).
# ---------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _fw(rng):
    return rng.fw[:4, :10]


@numba.njit(inline="always")   # not cached: prm's type belongs to the lineup module
def _counting_prm(prm):
    return prm[1:]


@decision
def _counting_start_d(obs, prm, rng):
    g, me = obs.g, obs.me
    return counting_start(prm.code, _counting_prm(prm), obs.mem[g, me, me], own_lands(obs), obs.mem[g, me],
                          obs.nslots[g], obs.up_counts[g], obs.kept[g], me, top_value(obs), obs.kwih,
                          float(obs.penalty), _fw(rng))


@decision
def _counting_face_up_d(obs, prm, rng):
    g, me = obs.g, obs.me
    return counting_face_up(obs.mem[g, me, me], own_lands(obs), obs.mem[g, me], obs.up_counts[g], _fw(rng))


@decision
def _counting_drawn_d(obs, prm, rng):
    g, me = obs.g, obs.me
    return counting_drawn(prm.code, _counting_prm(prm), obs.mem[g, me, me], own_lands(obs), obs.mem[g, me],
                          obs.nslots[g], obs.up_counts[g], me, obs.card, obs.card_kind, _fw(rng))


@decision
def _counting_keep_d(obs, prm, rng):
    g, me = obs.g, obs.me
    return counting_keep(prm.code, _counting_prm(prm), obs.mem[g, me, me], own_lands(obs), obs.mem[g, me],
                         obs.nslots[g], obs.up_counts[g], me, obs.offer0, obs.offer0_kind, obs.offer1,
                         obs.offer1_kind, _fw(rng))


@decision
def _counting_swap_d(obs, prm, rng):
    """The worst own land for the best opponent land."""
    g, me = obs.g, obs.me
    sa, pb, sb = counting_swap(obs.mem[g, me, me], own_lands(obs), obs.mem[g, me], obs.nslots[g],
                               obs.up_counts[g], me, _fw(rng))
    return swap_option(me, sa, pb, sb)


@decision
def _counting_claim_d(obs, prm, rng):
    """The most valuable known pair of equal own lands."""
    g, me = obs.g, obs.me
    a, b, v = counting_claim(obs.mem[g, me, me], own_lands(obs), obs.mem[g, me], obs.up_counts[g], _fw(rng))
    return claim_option(a, b, v)


@dataclasses.dataclass(frozen=True)
class _Counting(Strategy):
    """Shared play: estimate unknown lands by counting the cards seen (an unknown land is worth the mean
    of the cards not yet seen: the deck minus the face-up pile and everything remembered); put low cards
    on the worst slot; Take 2 gives two looks, Peek 1 goes on unknown own lands. The subclasses differ in
    when to say WAKE UP! and whether to use Swap 2."""

    take_margin: float = param(0.5, "take or keep a card only if it beats the worst own estimate by this much", min=0.0)
    claim_gain: float = param(3.0, "variant know_what_i_have: name a known pair when it saves at least this (estimated)")
    #: which wake rule and uses of Swap 2
    kind: ClassVar[int] = 0

    def inert(self, players: int, rules=None) -> dict[str, str]:
        if rules is not None and not getattr(rules, "know_what_i_have", False):
            return {"claim_gain": "claim_gain has no effect without know_what_i_have = true"}
        return {}

    def compiled_values(self) -> dict:
        """(code, take_margin, claim_gain, wake or margin, sure, cap, kept_value, swap_min, edge)."""
        g = lambda name, default=0.0: float(getattr(self, name, default))  # noqa: E731
        return {"code": self.kind, "take_margin": float(self.take_margin), "claim_gain": float(self.claim_gain),
                "wake": g("wake", g("margin")), "sure": g("sure"), "cap": g("cap"),
                "kept_value": g("kept_value", -1.0), "swap_min": g("swap_min"), "edge": g("edge")}

    start = _counting_start_d
    face_up_slot = _counting_face_up_d
    drawn = _counting_drawn_d
    keep = _counting_keep_d
    peek = _first_unknown_peek
    swap = _counting_swap_d
    claim = _counting_claim_d


@dataclasses.dataclass(frozen=True)
class Counter(_Counting):
    """Card counter: like ``threshold``, but an unknown land is worth the mean of the cards not yet seen
    (the face-up pile and everything remembered are removed from the deck), Take 2 gives two looks,
    and Peek 1 is used on unknown own lands. Wakes when its own estimate is at most ``wake``."""
    name: ClassVar[str] = "counter"
    game: ClassVar[str] = "sen"
    wake: float = param(9.0, "say WAKE UP! when the estimated own total is at most this")
    kind: ClassVar[int] = COUNTER


@dataclasses.dataclass(frozen=True)
class Watcher(_Counting):
    """Opponent-aware caller: estimates every dream from what it has seen (lands revealed, taken from the
    face-up pile or peeked; unknown lands at the unseen mean, or ``kept_value`` for one its owner drew and
    kept) and says WAKE UP! when its own estimate is at most ``sure``, or is below every opponent's by
    ``margin`` and at most ``cap``."""
    name: ClassVar[str] = "watcher"
    game: ClassVar[str] = "sen"
    margin: float = param(3.0, "wake when own estimate + margin <= the lowest opponent estimate")
    sure: float = param(4.0, "always wake at or below this estimated total")
    cap: float = param(14.0, "never wake by the margin above this estimated total (sure still applies)")
    kept_value: float = param(3.0, "estimate of an unknown land its owner drew and kept (public); -1: the unseen mean")
    kind: ClassVar[int] = WATCHER


@dataclasses.dataclass(frozen=True)
class Swapper(Watcher):
    """Watcher that also uses Swap 2 to hand its worst land to an opponent in exchange for the opponent
    land of lowest estimate (an unknown land counts as the unseen mean + 0.5, so a known land below that
    is taken first), and keeps whichever Take 2 card does most good. ``swap_min`` is the smallest
    estimated saving worth a swap."""
    name: ClassVar[str] = "swapper"
    game: ClassVar[str] = "sen"
    swap_min: float = param(2.0, "use Swap 2 only when it saves at least this many ravens (estimated)", min=0.0)
    kind: ClassVar[int] = SWAPPER


@dataclasses.dataclass(frozen=True)
class Gambler(Swapper):
    """Penalty-aware caller: models each opponent's total as normal (known lands plus unknown lands at the
    unseen mean and variance, or ``kept_value`` with a variance of at most 4 for one its owner drew and
    kept) and its own likewise, computes the chance p of holding the fewest, and says WAKE UP! when the
    expected score of calling, (1 - p)(own + penalty), is at most the own estimate minus ``edge`` (what it
    still expects to gain by playing on)."""
    name: ClassVar[str] = "gambler"
    game: ClassVar[str] = "sen"
    # its own wake rule replaces the watcher's, so the watcher's wake parameters are not its parameters
    # (they keep their values for the compiled decision's fixed layout, which never reads them here)
    margin: float = dataclasses.field(default=3.0, init=False)
    sure: float = dataclasses.field(default=4.0, init=False)
    cap: float = dataclasses.field(default=14.0, init=False)
    edge: float = param(2.5, "ravens it expects to save by playing on instead of calling now")
    kind: ClassVar[int] = GAMBLER


STRATEGIES = [RandomSen, Threshold, Counter, Watcher, Swapper, Gambler]
DEFAULT = "threshold"
