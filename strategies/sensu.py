"""Sensu strategies: the reference policy ``random`` and the heuristics ``redeemer``, ``planner`` and ``focus``.

Every decision is a compiled function of the engine's observation view (:data:`simcore.games.sensu.SensuView`),
the strategy's parameters and its random stream, returning an option code (see the module docstring of
:mod:`simcore.games.sensu`: ``DECK``, ``PILE + s``, ``PASS``, ``PLAY + mask``, hand slots, sources, seats,
:func:`~simcore.games.sensu.arrange_option` and :func:`~simcore.games.sensu.courage_option`). The same
functions play the compiled lane and, looped over a batch, the batch lane. ``random``'s decisions are small
and compiled into the game loop itself (:func:`inlined`); the heuristics' valuations are cached compiled
functions of their own (``eval_combo``, ``potential``, ``heuristic_*``), shared by the three heuristics.

Scratch space: ``rng.iw`` rows 0 (slot cards), 1 (evaluation), 2 (an order), 3 (per-seat choices), 4-7 (the
combination search, the potential's subsets); ``rng.fw`` rows 0 (fan weights) and 1 (``random``'s keys, the
potential's subset values).
"""
# The compiled code of this file never indexes an array with a negative number, so numba leaves out
# Python's wrap-around of negative indices here (simcore/compiled.py; checked by make boundscheck):
# sensei: no negative indices
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np

from simcore.compiled import NO_REFCOUNT, decision
from simcore.games.sensu import (CARD_TYPE, CARD_VALUE, CARD_WILD, DRAW, HAND, LOWBIT, PASS, PLAY, SLOTS,
                                 SUBSET_SIZE, arrange_option, combinations, combinations_with, courage_option, fits,
                                 harmony_options, pile_top, removable, slot_cards, sources)
from simcore.rng import draw, integer, random, uniform_at

from .base import Strategy, param


# ----------------------------------------------------------------------------------------------------
# Shared helpers
# ----------------------------------------------------------------------------------------------------
@numba.njit(**NO_REFCOUNT)
def pick_bit(bits, u):
    """A uniform choice among the set bits of ``bits`` given one uniform (``simcore.rng.choose``): the k-th
    set bit, k = min(floor(u * count), count - 1); -1 when none is set."""
    bits = numba.uint64(bits)
    one = numba.uint64(1)
    cnt = 0
    b = bits
    while b:
        b &= b - one
        cnt += 1
    if cnt == 0:
        return -1
    k = int(u * cnt)
    if k > cnt - 1:
        k = cnt - 1
    j = 0
    while True:
        if (bits >> numba.uint64(j)) & one:
            if k == 0:
                return j
            k -= 1
        j += 1


def inlined(fn):
    """A compiled decision that numba inlines where the lineup calls it (into the game loop itself): for a
    small decision, handing the observation view (some twenty arrays) to a separate function costs more
    than the decision."""
    return decision(numba.njit(inline="always", **{k: v for k, v in NO_REFCOUNT.items() if k != "cache"})(fn))


@numba.njit(cache=True, inline="always")
def _cards(rng):
    return rng.iw[0, :SLOTS]


@numba.njit(cache=True, inline="always")
def _scratch(rng):
    return rng.iw[4:8]


# ----------------------------------------------------------------------------------------------------
# The reference policy ``random`` (docs/games/sensu.md), one decision at a time
# ----------------------------------------------------------------------------------------------------
@numba.njit(**NO_REFCOUNT)
def random_order(cards, mask, k, ST, base, order, buf):
    """``random``'s arrangement of combination ``mask`` over slot ``cards`` (``k`` redeemed) from the 12
    uniforms of draw ``base``: uniform j < 6 is slot j's redeeming preference, uniform 6 + j its discard key.
    The card with the most sticks (ties: the highest preference) is redeemed, then for each bonus the fewest
    sticks (ties: the lowest 1 - preference), so ties are uniform; redeemed cards are built in descending
    sticks (ties in redeeming order), the others discarded in increasing key order (a uniform order).
    ``buf``: float64 scratch of at least 12 entries."""
    key = buf[:SLOTS]
    pref = buf[SLOTS:2 * SLOTS]
    first = -1
    best = -np.inf
    n_inc = 0
    for s in range(SLOTS):
        pref[s] = uniform_at(base, s)
        if (mask >> s) & 1 and cards[s] >= 0:
            n_inc += 1
            v = float(ST[cards[s]]) + 0.5 * pref[s]
            if v > best:
                best = v
                first = s
    low0 = -1
    low1 = -1
    v0 = np.inf
    v1 = np.inf
    for s in range(SLOTS):
        if s == first or not ((mask >> s) & 1) or cards[s] < 0:
            continue
        v = float(ST[cards[s]]) + 0.5 * (1.0 - pref[s])
        if v < v0:
            low1 = low0
            v1 = v0
            low0 = s
            v0 = v
        elif v < v1:
            low1 = s
            v1 = v
    for s in range(SLOTS):
        rank = 0 if s == first else (1 if (k >= 2 and s == low0) else (2 if (k >= 3 and s == low1) else 9))
        if rank < 9:
            key[s] = (-float(ST[cards[s]]) * 4 + rank) - 100.0
        elif (mask >> s) & 1 and cards[s] >= 0:
            key[s] = uniform_at(base, SLOTS + s)
        else:
            key[s] = np.inf
    # stable insertion sort of the slots by key
    for s in range(SLOTS):
        order[s] = s
    for i in range(1, SLOTS):
        j = i
        while j > 0 and key[order[j - 1]] > key[order[j]]:
            t = order[j - 1]
            order[j - 1] = order[j]
            order[j] = t
            j -= 1
    for s in range(n_inc, SLOTS):
        order[s] = -1


@inlined
def _random_turn(obs, prm, rng):
    """With a combination in the hand, play one uniformly with probability 1/2; else draw from a uniform
    source (PASS when there is none). One draw of two uniforms."""
    base = draw(rng)
    u1 = uniform_at(base, 1)
    if uniform_at(base, 0) < 0.5:  # the combinations matter only then
        bits = combinations(obs, slot_cards(obs, _cards(rng)), _scratch(rng))
        if bits != 0:
            return PLAY + pick_bit(bits, u1)
    src = pick_bit(sources(obs), u1)
    return src if src >= 0 else PASS


@inlined
def _random_discard(obs, prm, rng):
    return integer(rng, obs.hand_n[obs.g, obs.me])


@inlined
def _random_arrange(obs, prm, rng):
    order = rng.iw[2, :SLOTS]
    random_order(slot_cards(obs, _cards(rng)), obs.combo, obs.n_redeem, obs.ST, draw(rng), order, rng.fw[1])
    return arrange_option(order)


@inlined
def _random_wisdom(obs, prm, rng):
    return pick_bit(sources(obs), random(rng))


@inlined
def _random_harmony(obs, prm, rng):
    return pick_bit(harmony_options(obs), random(rng))


@inlined
def _random_courage(obs, prm, rng):
    """Per opponent a uniform choice among its removable fans (uniform o of one draw for seat o)."""
    base = draw(rng)
    choice = rng.iw[3, :obs.players]
    for o in range(obs.players):
        bits = 0
        for t in range(3):
            if removable(obs, o, t):
                bits |= 1 << t
        choice[o] = pick_bit(bits, uniform_at(base, o))
    return courage_option(choice, obs.players)


@inlined
def _random_solo_turn(obs, prm, rng):
    """A uniform combination with probability 1/2 (always when the deck is empty), else draw."""
    bits = combinations(obs, slot_cards(obs, _cards(rng)), _scratch(rng))
    base = draw(rng)
    if bits != 0 and (uniform_at(base, 0) < 0.5 or obs.deck_n[obs.g] == 0):
        return PLAY + pick_bit(bits, uniform_at(base, 1))
    return DRAW


@inlined
def _random_place(obs, prm, rng):
    return integer(rng, 5)


@dataclass(frozen=True)
class Random(Strategy):
    """Reference policy ``random`` (multiplayer and solo), exactly as the rulings write it (docs/games/sensu.md).

    Plays a uniformly chosen combination with probability 1/2 when it holds one, otherwise draws from a
    uniformly chosen source and discards uniformly; redeeming ties, discard order and power choices are
    uniform; redeemed cards are built in descending sticks order (ties in redeeming order).
    """
    name: ClassVar[str] = "random"
    game: ClassVar[str] = "sensu"

    turn = _random_turn
    discard = _random_discard
    arrange = _random_arrange
    wisdom = _random_wisdom
    harmony = _random_harmony
    courage = _random_courage
    solo_turn = _random_solo_turn
    place = _random_place


# ----------------------------------------------------------------------------------------------------
# Heuristics: valuations
# ----------------------------------------------------------------------------------------------------
@numba.njit(**NO_REFCOUNT)
def eval_combo(cards, mask, fs, cl, chosen, ST, w, close_bonus, win_bonus, closed_now, out_order, ib):
    """Best (value, order) of playing slot ``mask`` of ``cards``: over every legal redeemed set and build
    order, the weighted sticks placed (``w`` per fan type) plus bonuses for closing fans (and for the win),
    on own fans at ``fs`` sticks, closed ``cl``, chosen fan ``chosen``. ``out_order`` gets the slots:
    redeemed in build order, then the others, most valuable first (the least valuable ends on top).
    ``ib``: int64 scratch of at least 34 entries."""
    TYPE, VAL, WCL = CARD_TYPE, CARD_VALUE, CARD_WILD
    slots = ib[0:6]
    best_sel = ib[6:9]
    sel = ib[9:12]
    perm = ib[12:15]
    f2 = ib[16:19]
    c2 = ib[19:22]
    used = ib[22:28]
    st_sorted = ib[28:34]
    c = 0
    for s in range(SLOTS):
        if (mask >> s) & 1:
            slots[c] = s
            c += 1
    # redeem count
    seen = 0
    t0 = 0
    t1 = 0
    t2 = 0
    pair = 0
    hi = 0
    for j in range(c):
        x = cards[slots[j]]
        if WCL[x] < 0:
            if (seen >> VAL[x]) & 1:
                pair = 1
            seen |= 1 << VAL[x]
        t = TYPE[x]
        if t == 0:
            t0 += 1
        elif t == 1:
            t1 += 1
        else:
            t2 += 1
        hi = max(hi, ST[x])
    three = 1 if (t0 >= 3 or t1 >= 3 or t2 >= 3) else 0
    k = 1 + pair + three
    # canonical stick multiset (a histogram, 8 bits per stick value): hi, then the k-1 smallest
    for j in range(c):
        v = ST[cards[slots[j]]]
        i = j
        while i > 0 and st_sorted[i - 1] > v:
            st_sorted[i] = st_sorted[i - 1]
            i -= 1
        st_sorted[i] = v
    want = 1 << (8 * hi)
    for j in range(k - 1):
        want += 1 << (8 * st_sorted[j])
    best = -1e9
    # enumerate redeemed sets of size k by index combinations
    for a in range(c):
        for b in range(a + 1 if k > 1 else c, c if k > 1 else c + 1):
            for d in range(b + 1 if k > 2 else c, c if k > 2 else c + 1):
                sel[0] = a
                sel[1] = b
                sel[2] = d
                tmp = 0
                for j in range(k):
                    tmp += 1 << (8 * ST[cards[slots[sel[j]]]])
                if tmp != want:
                    continue
                # every build order of the redeemed cards
                for p0 in range(k):
                    for p1 in range(k):
                        for p2 in range(k):
                            if k >= 2 and p1 == p0:
                                continue
                            if k >= 3 and (p2 == p0 or p2 == p1):
                                continue
                            if k < 2 and p1 > 0:
                                continue
                            if k < 3 and p2 > 0:
                                continue
                            perm[0] = p0
                            perm[1] = p1
                            perm[2] = p2
                            for t in range(3):
                                f2[t] = fs[t]
                                c2[t] = cl[t]
                            val = 0.0
                            ncl = closed_now
                            ch = chosen
                            for j in range(k):
                                x = cards[slots[sel[perm[j]]]]
                                t = TYPE[x]
                                tot = f2[t] + ST[x]
                                if c2[t] or tot > 10:
                                    continue
                                if tot == 10 and ch >= 0 and ch != t:
                                    continue
                                f2[t] = tot
                                val += w[t] * ST[x]
                                if tot == 10:
                                    c2[t] = 1
                                    ncl += 1
                                    val += close_bonus
                                    if ncl >= 2:
                                        val += win_bonus
                                    if ch == t:
                                        ch = -1  # the next chosen fan is unknown
                                else:
                                    # nearer to 10 is better
                                    val += 0.05 * w[t] * tot
                            if val > best:
                                best = val
                                for j in range(k):
                                    best_sel[j] = sel[perm[j]]
    # order: redeemed slots, then the others by decreasing keep-value (last = least useful on top)
    for j in range(c):
        used[j] = 0
    for j in range(k):
        out_order[j] = slots[best_sel[j]]
        used[best_sel[j]] = 1
    pos = k
    for _ in range(c - k):
        bj = -1
        bv = -1e9
        for j in range(c):
            if used[j]:
                continue
            x = cards[slots[j]]
            v = ST[x] + (1.5 if WCL[x] >= 0 else 0.0)
            if v > bv:
                bv = v
                bj = j
        used[bj] = 1
        out_order[pos] = slots[bj]
        pos += 1
    for j in range(pos, SLOTS):
        out_order[j] = -1
    return best


@numba.njit(**NO_REFCOUNT)
def potential(cards, fs, cl, ST, w, iscr, fscr):
    """How close a row of slot cards (6) is to combinations: for every subset of 2-4 cards (at most one
    wild) whose values leave 1..9 to reach 20, 1 plus the weighted sticks of its best card that fits (summed
    over the subsets in mask order). Each subset's figures are built from the subset without its lowest slot.
    ``iscr``: int64 scratch (4, 64); ``fscr``: float64 scratch of 64."""
    TYPE, VAL, WCL = CARD_TYPE, CARD_VALUE, CARD_WILD
    size, lo, hi, nw = iscr[0], iscr[1], iscr[2], iscr[3]
    bestv = fscr
    size[0] = 0
    lo[0] = 0
    hi[0] = 0
    nw[0] = 0
    bestv[0] = 0.0
    tot = 0.0
    for m in range(1, 64):
        b = LOWBIT[m]
        prev = m & (m - 1)
        x = cards[b]
        if x < 0 or size[prev] < 0:
            size[m] = -1  # a subset with an empty slot
            continue
        size[m] = size[prev] + 1
        if WCL[x] >= 0:
            nw[m] = nw[prev] + 1
            lo[m] = lo[prev] + 3 * WCL[x] + 1
            hi[m] = hi[prev] + 3 * WCL[x] + 3
        else:
            nw[m] = nw[prev]
            lo[m] = lo[prev] + VAL[x]
            hi[m] = hi[prev] + VAL[x]
        bv = bestv[prev]
        t = TYPE[x]
        if not cl[t] and fs[t] + ST[x] <= 10:
            v = w[t] * ST[x]
            if v > bv:
                bv = v
        bestv[m] = bv
        if size[m] < 2 or size[m] > 4 or nw[m] > 1:
            continue
        if 20 - hi[m] <= 9 and 20 - lo[m] >= 1:
            tot += 1.0 + bv
    return tot


#: heuristic codes (``prm.code``)
REDEEMER, PLANNER, FOCUS = 2, 3, 4
#: the heuristics' parameters after the code, as compiled code gets them (``prm[1:]``)
_CLOSE, _PLAY_MIN, _KEEP, _FEED, _IMPATIENCE, _OFF_WEIGHT, _OFF = range(7)


@numba.njit(**NO_REFCOUNT)
def heuristic_weights(code, h, fs, cl, w):
    """Value per stick on each own fan type into ``w``: 1, except ``focus``'s fan type outside its pair
    (``off_weight``; pair ``auto``: the type with the fewest sticks, closed fans counting 20 more)."""
    for t in range(3):
        w[t] = 1.0
    if code == FOCUS:
        off = int(h[_OFF])
        if off < 0:
            best = np.inf
            for t in range(3):
                key = float(fs[t] + 20 * cl[t]) - 0.01 * t
                if key < best:
                    best = key
                    off = t
        w[off] = h[_OFF_WEIGHT]


@numba.njit(**NO_REFCOUNT)
def best_combination(cards, bits, fs, cl, ch, w, close_bonus, ST, ib, order, only, size_max):
    """The best combination among ``bits`` (only those containing slot ``only`` when it is >= 0, and of at
    most ``size_max`` cards) and its value (-inf when none): the first of the highest values."""
    ncl = 0
    for t in range(3):
        ncl += cl[t]
    best = -np.inf
    bm = 0
    one = numba.uint64(1)
    for m in range(1, 64):
        if not ((bits >> numba.uint64(m)) & one):
            continue
        if only >= 0 and not ((m >> only) & 1):
            continue
        if SUBSET_SIZE[m] > size_max:
            continue
        v = eval_combo(cards, m, fs, cl, ch, ST, w, close_bonus, 100.0, ncl, order, ib)
        if v > best:
            best = v
            bm = m
    return bm, best


@numba.njit(**NO_REFCOUNT)
def heuristic_source(code, h, obs, cards, ib, order, w, scratch):
    """The heuristics' draw: the pile top that completes the most valuable combination (of at most 5 cards,
    worth more than 0), else the deck, else the first non-empty pile; PASS when nothing can be drawn."""
    g, p, pile_n = obs.g, obs.me, obs.pile_n
    fs, cl, ch = obs.fan_sticks[g, p], obs.closed[g, p], obs.chosen[g, p]
    heuristic_weights(code, h, fs, cl, w)
    best_val = -np.inf
    best_src = 0 if obs.deck_n[g] > 0 else -1
    n = obs.hand_n[g, p]
    for q in range(obs.players):
        if pile_n[g, q] == 0 or n >= SLOTS:
            continue
        slot_cards(obs, cards)
        top = pile_top(obs, q)
        if n == 5:  # the combinations with the top card only, by table lookups
            bits = combinations_with(obs, cards, top)
            cards[5] = top
        else:
            cards[n] = top
            bits = combinations(obs, cards, scratch)
        _, val = best_combination(cards, bits, fs, cl, ch, w, h[_CLOSE], obs.ST, ib, order, n, 5)
        if val > max(best_val, 0.0):
            best_val = val
            best_src = 1 + q
    if best_src < 0:
        for q in range(obs.players):
            if pile_n[g, q] > 0:
                return 1 + q
        return PASS
    return best_src


@numba.njit(**NO_REFCOUNT)
def heuristic_discard(code, h, obs, cards, ib, order, w, scratch, fscr):
    """The hand slot a heuristic discards after a draw: it keeps the cards with the best combinations (+5)
    and near-combinations (``keep`` weight); planner: also not feeding the next player (``feed_penalty`` per
    stick of a discard that fits the next seat's fans)."""
    g, p, hand, ST = obs.g, obs.me, obs.hand, obs.ST
    n = obs.hand_n[g, p]
    fs, cl, ch = obs.fan_sticks[g, p], obs.closed[g, p], obs.chosen[g, p]
    heuristic_weights(code, h, fs, cl, w)
    best = -np.inf
    bs = 0
    for s in range(min(n, HAND)):
        j = 0
        for t in range(HAND):
            if t != s and j < SLOTS:
                cards[j] = hand[g, p, t]
                j += 1
        combos = combinations(obs, cards, scratch)
        _, val = best_combination(cards, combos, fs, cl, ch, w, h[_CLOSE], ST, ib, order, -1, SLOTS)
        val = val + 5.0 if val > -np.inf else 0.0
        feed = 0.0
        if code == PLANNER:
            c = np.int64(hand[g, p, s])
            fit = fits(obs, (p + 1) % obs.players, c)
            feed = h[_FEED] * (1.0 if fit else 0.0) * ST[c]
        sc = val + h[_KEEP] * potential(cards, fs, cl, ST, w, scratch, fscr) - feed
        if sc > best:
            best = sc
            bs = s
    return bs


@numba.njit(**NO_REFCOUNT)
def heuristic_place(code, h, obs, cards, ib, order, w, scratch, fscr):
    """Solo: where a heuristic puts the drawn card ``obs.card``, 0 the pile or 1..4 a column: where the
    exposed cards then hold the most valuable combination (+10) and near-combinations, columns first on
    ties."""
    g, card, ST = obs.g, obs.card, obs.ST
    fs, cl, ch = obs.fan_sticks[g, 0], obs.closed[g, 0], obs.chosen[g, 0]
    slot_cards(obs, cards)
    heuristic_weights(code, h, fs, cl, w)
    best = -np.inf
    bq = 0
    for q in range(5):
        old = cards[q]
        cards[q] = card
        combos = combinations(obs, cards, scratch)
        _, val = best_combination(cards, combos, fs, cl, ch, w, h[_CLOSE], ST, ib, order, -1, SLOTS)
        val = val + 10.0 if val > -np.inf else 0.0
        sc = val + 0.3 * potential(cards, fs, cl, ST, w, scratch, fscr)
        cards[q] = old
        if q == 0:
            sc -= 0.01
        if sc > best:
            best = sc
            bq = q
    return bq


# ----------------------------------------------------------------------------------------------------
# Heuristics: the decisions. ``prm`` = (code, close_bonus, play_min, keep, feed_penalty, impatience,
# off_weight, off) for all three (one parameter type, so their decisions are compiled once).
# ----------------------------------------------------------------------------------------------------
@numba.njit(inline="always")   # not cached: prm's type belongs to the lineup module
def _h(prm):
    return prm[1:]


@numba.njit(cache=True, inline="always")
def _w(rng):
    return rng.fw[0, :3]


@numba.njit(cache=True, inline="always")
def _ib(rng):
    return rng.iw[1]


@numba.njit(cache=True, inline="always")
def _order(rng):
    return rng.iw[2, :SLOTS]


@decision
def _heuristic_turn(obs, prm, rng):
    """Play the best combination when it is worth ``play_min`` (planner: also when the deck is low or by
    chance, one draw), else draw as :func:`heuristic_source`."""
    g, me, h = obs.g, obs.me, _h(prm)
    fs, cl, ch = obs.fan_sticks[g, me], obs.closed[g, me], obs.chosen[g, me]
    cards, w = slot_cards(obs, _cards(rng)), _w(rng)
    heuristic_weights(prm.code, h, fs, cl, w)
    combos = combinations(obs, cards, _scratch(rng))
    bm, val = best_combination(cards, combos, fs, cl, ch, w, h[_CLOSE], obs.ST, _ib(rng), _order(rng), -1, SLOTS)
    play = val >= h[_PLAY_MIN]
    if prm.code == PLANNER:
        u = random(rng)
        play = play or obs.deck_n[g] < 10 or u < h[_IMPATIENCE]
    if combos != 0 and play:
        return PLAY + bm
    return heuristic_source(prm.code, h, obs, cards, _ib(rng), _order(rng), w, _scratch(rng))


@decision
def _heuristic_discard(obs, prm, rng):
    return heuristic_discard(prm.code, _h(prm), obs, _cards(rng), _ib(rng), _order(rng), _w(rng), _scratch(rng),
                             rng.fw[1])


@decision
def _heuristic_arrange(obs, prm, rng):
    """The most valuable legal redeeming and build order (:func:`eval_combo`)."""
    g, me, h = obs.g, obs.me, _h(prm)
    fs, cl = obs.fan_sticks[g, me], obs.closed[g, me]
    w, order = _w(rng), _order(rng)
    heuristic_weights(prm.code, h, fs, cl, w)
    ncl = 0
    for t in range(3):
        ncl += cl[t]
    eval_combo(slot_cards(obs, _cards(rng)), obs.combo, fs, cl, obs.chosen[g, me], obs.ST, w, h[_CLOSE], 100.0, ncl,
               order, _ib(rng))
    return arrange_option(order)


@decision
def _heuristic_wisdom(obs, prm, rng):
    """As the heuristic's draw (the deck or the first pile when no pile top is worth it)."""
    src = heuristic_source(prm.code, _h(prm), obs, _cards(rng), _ib(rng), _order(rng), _w(rng), _scratch(rng))
    return src if src != PASS else pick_bit(sources(obs), 0.0)


@decision
def _heuristic_harmony(obs, prm, rng):
    """The pile top with the most sticks, +10 when it closes the fan."""
    g, me = obs.g, obs.me
    fit = harmony_options(obs)
    best = -np.inf
    bq = 0
    for q in range(obs.players):
        if not ((fit >> q) & 1):
            continue
        c = pile_top(obs, q)
        closes = obs.fan_sticks[g, me, CARD_TYPE[c]] + obs.ST[c] == 10
        v = obs.ST[c] + 10.0 * (1.0 if closes else 0.0)
        if v > best:
            best = v
            bq = q
    return bq


@decision
def _heuristic_courage(obs, prm, rng):
    """Per opponent, strip the removable fan with the most sticks (the lowest type on ties)."""
    choice = rng.iw[3, :obs.players]
    for o in range(obs.players):
        choice[o] = -1
        best = -1
        for t in range(3):
            if removable(obs, o, t) and obs.fan_sticks[obs.g, o, t] > best:
                best = obs.fan_sticks[obs.g, o, t]
                choice[o] = t
    return courage_option(choice, obs.players)


@decision
def _heuristic_solo_turn(obs, prm, rng):
    """The best combination when it is worth at least 0 or the deck is empty, else draw."""
    g, h = obs.g, _h(prm)
    fs, cl = obs.fan_sticks[g, 0], obs.closed[g, 0]
    cards, w = slot_cards(obs, _cards(rng)), _w(rng)
    combos = combinations(obs, cards, _scratch(rng))
    heuristic_weights(prm.code, h, fs, cl, w)
    bm, val = best_combination(cards, combos, fs, cl, obs.chosen[g, 0], w, h[_CLOSE], obs.ST, _ib(rng), _order(rng),
                               -1, SLOTS)
    if combos != 0 and (val >= 0.0 or obs.deck_n[g] == 0):
        return PLAY + bm
    return DRAW


@decision
def _heuristic_place(obs, prm, rng):
    return heuristic_place(prm.code, _h(prm), obs, _cards(rng), _ib(rng), _order(rng), _w(rng), _scratch(rng),
                           rng.fw[1])


@dataclass(frozen=True)
class _Heuristic(Strategy):
    """Shared play: combination values over every legal redeemed set and build order, smart arranging,
    powers, and a solo planner of where to put drawn cards."""
    close_bonus: float = param(6.0, "value of closing a fan, in sticks", min=0.0)
    play_min: float = param(0.0, "play the best combination only when its value is at least this (not in solo, "
                                 "which plays one worth at least 0)", min=-1.0)
    #: which heuristic (``prm.code``)
    code: ClassVar[int] = 0

    def compiled_values(self) -> dict:
        """(code, close_bonus, play_min, keep, feed_penalty, impatience, off_weight, off): the same fields
        for every heuristic (``keep`` 0.3 and no feeding penalty or impatience outside ``planner``; ``off``
        the fan type outside ``focus``'s pair, -1 for auto)."""
        pair = getattr(self, "pair", "auto")
        off = -1.0 if pair == "auto" else float(3 - int(pair[0]) - int(pair[1]))
        return {"code": self.code, "close_bonus": float(self.close_bonus), "play_min": float(self.play_min),
                "keep": float(getattr(self, "keep", 0.3)), "feed_penalty": float(getattr(self, "feed_penalty", 0.0)),
                "impatience": float(getattr(self, "impatience", 0.0)),
                "off_weight": float(getattr(self, "off_weight", 1.0)), "off": off}

    def inert(self, players: int, rules=None) -> dict[str, str]:
        """In solo the turn plays the best combination worth at least 0 (or any, once the deck is empty), and
        there is no discard and no next player: ``play_min``, ``keep``, ``feed_penalty`` and ``impatience``
        change nothing."""
        if players != 1:
            return {}
        return {k: f"{k} has no effect in solo" for k in ("play_min", "keep", "feed_penalty", "impatience")
                if k in self.params()}

    def played(self, players: int, rules=None) -> tuple:
        """In solo every heuristic but ``focus`` (whose fan weights differ) plays by the same valuation, so
        ``planner`` and ``redeemer`` play alike there (given the same ``close_bonus``)."""
        out = super().played(players, rules)
        return ("sensu heuristic (solo)",) + out[1:] if players == 1 and self.code != FOCUS else out

    turn = _heuristic_turn
    discard = _heuristic_discard
    arrange = _heuristic_arrange
    wisdom = _heuristic_wisdom
    harmony = _heuristic_harmony
    courage = _heuristic_courage
    solo_turn = _heuristic_solo_turn
    place = _heuristic_place


@dataclass(frozen=True)
class Redeemer(_Heuristic):
    """Greedy: play the combination that places the most sticks and closes fans soonest (every legal
    redeemed set and build order is tried); draw a pile top only when it completes such a combination."""
    name: ClassVar[str] = "redeemer"
    game: ClassVar[str] = "sensu"
    code: ClassVar[int] = REDEEMER
    close_bonus: float = param(6.0, "value of closing a fan, in sticks", min=0.0)
    play_min: float = param(0.0, "play the best combination only when its value is at least this (not in solo, "
                                 "which plays one worth at least 0)", min=-1.0)


@dataclass(frozen=True)
class Planner(_Heuristic):
    """Patient: keeps cards that complete 20 with what it holds, waits for combinations worth
    ``play_min`` sticks (but plays its best one with chance ``impatience`` a turn, and always once the deck
    holds fewer than 10 cards), and does not feed the next player (penalises discards that fit their
    fans)."""
    name: ClassVar[str] = "planner"
    game: ClassVar[str] = "sensu"
    code: ClassVar[int] = PLANNER
    close_bonus: float = param(6.0, "value of closing a fan, in sticks", min=0.0)
    play_min: float = param(3.0, "play the best combination only when its value is at least this (not in solo, "
                                 "which plays one worth at least 0)", min=-1.0)
    keep: float = param(0.5, "weight of near-combinations kept in hand when discarding (not in solo)", min=0.0)
    feed_penalty: float = param(1.0, "penalty per stick of a discard that fits the next player's fans (not in solo)",
                                min=0.0)
    impatience: float = param(0.1, "chance per turn of playing a combination worth less than play_min (not in solo)",
                              min=0.0, max=1.0)


@dataclass(frozen=True)
class Focus(_Heuristic):
    """Commits to two fan types (the two it has the most sticks in, or ``pair``): sticks on the third
    type count only ``off_weight``; otherwise plays like the redeemer."""
    name: ClassVar[str] = "focus"
    game: ClassVar[str] = "sensu"
    code: ClassVar[int] = FOCUS
    close_bonus: float = param(8.0, "value of closing a fan, in sticks", min=0.0)
    play_min: float = param(0.0, "play the best combination only when its value is at least this (not in solo, "
                                 "which plays one worth at least 0)", min=-1.0)
    off_weight: float = param(0.3, "value of a stick on the fan type outside the focus", min=0.0, max=1.0)
    pair: str = param("auto", "the two focus types: auto, 01, 02 or 12", choices=("auto", "01", "02", "12"))


STRATEGIES = [Random, Redeemer, Planner, Focus]
