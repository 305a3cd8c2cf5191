"""Senshi strategies: the reference policies ``random`` and ``greedy`` of the rulings (``docs/games/senshi.md``), and heuristics.

Every decision is a compiled function of the engine's observation view
(:data:`simcore.games.senshi.SenshiView`), the strategy's parameters and its random stream, returning an
option code: the stack index at set-up, :func:`~simcore.games.senshi.action_option` of a
:class:`~simcore.games.senshi.Kind` and its stack or colour at a turn. The same functions play the
compiled lane and, looped over a batch, the batch lane. Each heuristic scores its options and takes the
best; ties go to the first option in a fixed order (lowest stack index or colour, unless a rule below
says otherwise).
"""
# The compiled code of this file never indexes an array with a negative number, so numba leaves out
# Python's wrap-around of negative indices here (simcore/compiled.py; checked by make boundscheck):
# sensei: no negative indices
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np

from simcore.bits import popcount, trailing_zeros
from simcore.compiled import NO_REFCOUNT, decision
from simcore.games.senshi import (MAX_CARD, MIDDLE, NC, OPTION_STRIDE as OPTION, PASS_OPTION, PER_COLOUR, STACKS, STUDY, TEST, TRAIN,
                                  action_option, can_study, can_train, card_count, card_stack, card_tops, hand_size,
                                  hand_total, known_tiles, mid_count, must_pass, pile, remaining, stack_height,
                                  stack_loc, stack_top, visible_tile)
from simcore.rng import random

from .base import Strategy, param

BIG = 1 << 20
#: middle stacks after set-up, per player count
STACKS_MIDDLE = {p: s - p for p, s in STACKS.items()}
_STACKS_MIDDLE = np.array([0, 0] + [STACKS_MIDDLE[p] for p in (2, 3, 4)], dtype=np.int64)


# ----------------------------------------------------------------------------------------------------
# What the heuristics look at, one game at a time (``obs`` a SenshiView)
# ----------------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def top_colour(obs, s):
    """Top colour of stack s, clipped to 0..3 (use with a legality test)."""
    t = stack_top(obs, s)
    return 0 if t < 0 else t


@numba.njit(cache=True, inline="always")
def rel_owner(obs, s):
    """Owner of stack s relative to the deciding seat: 0 itself, 1 the next player, ...; -1 middle, -2 gone."""
    loc = stack_loc(obs, s)
    if loc < 0:
        return loc
    return (loc - obs.me) % obs.players


@numba.njit(cache=True, inline="always")
def gain(obs, c):
    """The reference gain of Testing colour c: 1 + my card stacks showing c - the most any opponent has."""
    other = 0
    for q in range(obs.players):
        if q != obs.me and card_tops(obs, q, c) > other:
            other = card_tops(obs, q, c)
    return 1 + card_tops(obs, obs.me, c) - other


@numba.njit(cache=True, inline="always")
def my_min(obs):
    """My smallest pile."""
    me = obs.me
    return min(min(pile(obs, me, 0), pile(obs, me, 1)), min(pile(obs, me, 2), pile(obs, me, 3)))


@numba.njit(cache=True, inline="always")
def opp_low_min(obs):
    """The lowest smallest pile among the opponents (the elimination line for me)."""
    low = BIG
    for q in range(obs.players):
        if q != obs.me:
            for c in range(NC):
                low = min(low, pile(obs, q, c))
    return low


@numba.njit(cache=True, inline="always")
def train_key(obs, s):
    """Rank key of stack s in the reference Train order (smaller first): the middle by index, then my card,
    then the opponents' cards in turn order, each card in placement order."""
    loc = stack_loc(obs, s)
    if loc < 0:
        return s
    pos = MAX_CARD
    for j in range(MAX_CARD):
        if card_stack(obs, loc, j) == s:
            pos = j
    return (1 + (loc - obs.me) % obs.players) * BIG + pos


@numba.njit(cache=True, inline="always")
def test_best(obs, weak_only):
    """(colour, its gain) of the best Test: the largest gain, then the smallest own pile, then the lowest
    colour; among my weakest colours only with ``weak_only``. Colour -1 if none."""
    me = obs.me
    low = my_min(obs)
    best, bc, bg = -(1 << 30), -1, 0
    for c in range(NC):
        if obs.hand[c] > 0 and (not weak_only or pile(obs, me, c) == low):
            gn = gain(obs, c)
            key = gn * 1000 - pile(obs, me, c)
            if key > best:
                best, bc, bg = key, c, gn
    return bc, bg


@numba.njit(cache=True, inline="always")
def train_weak(obs):
    """The Train of a tile of my weakest colour: from an opponent's card first, then the middle, then my
    own card (lowest index within each); -1 if none."""
    me = obs.me
    low = my_min(obs)
    best, bs = -1, -1
    for s in range(obs.n_stacks):
        if can_train(obs, s) and pile(obs, me, top_colour(obs, s)) == low:
            r = rel_owner(obs, s)
            score = 2 * (r >= 1) + (r == MIDDLE)
            if score > best:
                best, bs = score, s
    return bs


@numba.njit(**NO_REFCOUNT)
def spread_setup(obs):
    """Set-up pick shared by the heuristics: the middle stack showing the most distinct colours (all three
    tiles with ``open_stacks``, else just the top, so every stack ties), preferring a top colour that is
    rare among the middle tops (fewer players will be chasing it); ties: lowest index."""
    n_stacks = obs.n_stacks
    f0, f1, f2, f3 = 0, 0, 0, 0
    for s in range(n_stacks):
        if stack_loc(obs, s) == MIDDLE:
            t = stack_top(obs, s)
            f0 += t == 0
            f1 += t == 1
            f2 += t == 2
            f3 += t == 3
    best, bs = -(1 << 30), -1
    for s in range(n_stacks):
        if stack_loc(obs, s) != MIDDLE:
            continue
        seen = 0
        for k in range(3):
            c = visible_tile(obs, s, k)
            if c >= 0:
                seen |= 1 << c
        distinct = (seen & 1) + ((seen >> 1) & 1) + ((seen >> 2) & 1) + ((seen >> 3) & 1)
        t = top_colour(obs, s)
        freq = f0 if t == 0 else (f1 if t == 1 else (f2 if t == 2 else f3))
        score = distinct * 100 - freq
        if score > best:
            best, bs = score, s
    return bs


# ----------------------------------------------------------------------------------------------------
# Reference policies (docs/games/senshi.md, to the letter)
# ----------------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _choose(u, count):
    """The position of a uniform choice among ``count`` options from one uniform ``u`` (-1 if none), as
    :func:`simcore.rng.choose` makes it."""
    if count <= 0:
        return -1
    k = int(u * count)
    return k if k < count - 1 else count - 1


@decision
def _random_setup(obs, prm, rng):
    """A uniformly random middle stack."""
    n_stacks = obs.n_stacks
    count = 0
    for s in range(n_stacks):
        count += stack_loc(obs, s) == MIDDLE
    k = _choose(random(rng), count)
    for s in range(n_stacks):
        if stack_loc(obs, s) == MIDDLE:
            if k == 0:
                return s
            k -= 1
    return -1


@decision
def _random_act(obs, prm, rng):
    """A uniform legal action kind, then a uniform target of that kind (two draws, also for a pass)."""
    n_stacks = obs.n_stacks
    n_study, n_train, n_test = 0, 0, 0
    for s in range(n_stacks):
        n_study += can_study(obs, s)
        n_train += can_train(obs, s)
    for c in range(NC):
        n_test += obs.hand[c] > 0
    j = _choose(random(rng), (n_study > 0) + (n_train > 0) + (n_test > 0))
    kind = -1                     # the j-th legal kind, in the order Study, Train, Test
    if j >= 0:
        for kk in range(STUDY, TEST + 1):
            n = n_study if kk == STUDY else (n_train if kk == TRAIN else n_test)
            if n > 0:
                if j == 0:
                    kind = kk
                    break
                j -= 1
    u = random(rng)
    if kind == STUDY:
        k = _choose(u, n_study)
        for s in range(n_stacks):
            if can_study(obs, s):
                if k == 0:
                    return action_option(STUDY, s)
                k -= 1
    elif kind == TRAIN:
        k = _choose(u, n_train)
        for s in range(n_stacks):
            if can_train(obs, s):
                if k == 0:
                    return action_option(TRAIN, s)
                k -= 1
    elif kind == TEST:
        k = _choose(u, n_test)
        for c in range(NC):
            if obs.hand[c] > 0:
                if k == 0:
                    return action_option(TEST, c)
                k -= 1
    return PASS_OPTION


@dataclass(frozen=True)
class Random(Strategy):
    """Reference policy `random`: a uniform legal action kind, then a uniform target of that kind."""
    name: ClassVar[str] = "random"
    game: ClassVar[str] = "senshi"

    setup_take = _random_setup
    act = _random_act


@numba.njit(cache=True, inline="always")
def greedy_act(obs):
    """The reference `greedy` decision (docs/games/senshi.md)."""
    p, P = obs.me, obs.players
    n_stacks = obs.n_stacks
    has = False
    best_c, best_g = -1, 0
    for c in range(NC):
        if obs.hand[c] > 0:
            has = True
            gn = gain(obs, c)
            if best_c < 0 or gn > best_g or (gn == best_g and pile(obs, p, c) < pile(obs, p, best_c)):
                best_c, best_g = c, gn
    if has and best_g >= 2:
        return action_option(TEST, best_c)
    if card_count(obs, p) < MAX_CARD:
        weak = 0
        for c in range(1, NC):
            if pile(obs, p, c) < pile(obs, p, weak):
                weak = c
        # the middle stacks (bit s), and those topped with the weak colour: one pass without branches
        middle, topped = 0, 0
        for s in range(n_stacks):
            m = 1 if stack_loc(obs, s) == MIDDLE else 0
            middle |= m << s
            topped |= (m & (1 if stack_top(obs, s) == weak else 0)) << s
        if topped:
            return action_option(STUDY, trailing_zeros(topped))
        if middle:
            return action_option(STUDY, trailing_zeros(middle))
    if has:
        return action_option(TEST, best_c)
    for s in range(n_stacks):
        if stack_loc(obs, s) == MIDDLE:
            return action_option(TRAIN, s)
    for k in range(P):
        t = card_stack(obs, (p + k) % P, 0)
        if t >= 0:
            return action_option(TRAIN, t)
    return PASS_OPTION


@numba.njit(cache=True, inline="always")
def first_middle(obs):
    """The lowest-index middle stack (-1 if none)."""
    for s in range(obs.n_stacks):
        if stack_loc(obs, s) == MIDDLE:
            return s
    return -1


@decision
def _greedy_setup(obs, prm, rng):
    return first_middle(obs)


@decision
def _greedy_act(obs, prm, rng):
    return greedy_act(obs)


@dataclass(frozen=True)
class Greedy(Strategy):
    """Reference policy `greedy` (deterministic): Test when the gain is at least 2, else Study the lowest
    middle stack topped with the colour of the smallest own pile, else Train (hand empty) or Test."""
    name: ClassVar[str] = "greedy"
    game: ClassVar[str] = "senshi"

    setup_take = _greedy_setup
    act = _greedy_act


# ----------------------------------------------------------------------------------------------------
# Heuristics
# ----------------------------------------------------------------------------------------------------
@decision
def _spread_setup(obs, prm, rng):
    return spread_setup(obs)


@numba.njit(**NO_REFCOUNT)
def deny_target(obs, threat, max_hand):
    """`denier`'s Train: an opponent's card stack whose top pays that opponent well (``threat`` or more of
    their card tops show its colour) or is the colour of their tallest pile while they lead the table
    (their tallest pile is the table's and beats mine); the most matching tops, then the tallest owner
    pile, first. -1 if none, or when I hold ``max_hand`` tiles or more."""
    me, P = obs.me, obs.players
    if hand_total(obs) >= max_hand:
        return -1
    table_top = -1
    for p in range(P):
        for c in range(NC):
            table_top = max(table_top, pile(obs, p, c))
    my_tall = max(max(pile(obs, me, 0), pile(obs, me, 1)), max(pile(obs, me, 2), pile(obs, me, 3)))
    best, bs = -1, -1
    for s in range(obs.n_stacks):
        o = stack_loc(obs, s)
        if o < 0 or o == me:
            continue
        t = top_colour(obs, s)
        count = card_tops(obs, o, t)
        tall, tall_col = pile(obs, o, 0), 0
        for c in range(1, NC):
            if pile(obs, o, c) > tall:
                tall, tall_col = pile(obs, o, c), c
        leader = tall == table_top and tall > my_tall
        if count >= threat or (leader and t == tall_col):
            score = count * 10 + tall
            if score > best:
                best, bs = score, s
    return bs


@numba.njit(**NO_REFCOUNT)
def guarded_act(obs, margin, late, min_gain, deny):
    """The guard plan: weakest pile first when late and in danger, then Test for gain, then the Train
    ``deny`` (a stack, or -1), then Study / Train / Test as the guard prefers."""
    if must_pass(obs):
        return PASS_OPTION
    me = obs.me
    n_stacks = obs.n_stacks
    low = my_min(obs)
    has_hand = hand_total(obs) > 0
    danger = ((mid_count(obs) <= late or remaining(obs) >= 0) and low <= opp_low_min(obs) + margin)
    if danger:
        c_weak = test_best(obs, True)[0]
        if c_weak >= 0:
            return action_option(TEST, c_weak)
        tr_weak = train_weak(obs)
        if tr_weak >= 0 and not has_hand:
            return action_option(TRAIN, tr_weak)
        for s in range(n_stacks):
            if can_study(obs, s) and pile(obs, me, top_colour(obs, s)) == low:
                return action_option(STUDY, s)
        if tr_weak >= 0:
            return action_option(TRAIN, tr_weak)
    c, gn = test_best(obs, False)
    if c >= 0 and gn >= min_gain:
        return action_option(TEST, c)
    if deny >= 0:
        return action_option(TRAIN, deny)
    best, bs = -1, -1
    for s in range(n_stacks):
        if can_study(obs, s):
            t = top_colour(obs, s)
            score = 2 * (pile(obs, me, t) == low) + (obs.hand[t] > 0)
            if score > best:
                best, bs = score, s
    if bs >= 0:
        return action_option(STUDY, bs)
    if not has_hand:
        best, bkey, bs = -1, 0, -1
        for s in range(n_stacks):
            if can_train(obs, s):
                score = 2 * (card_tops(obs, me, top_colour(obs, s)) > 0) + (rel_owner(obs, s) >= 1)
                if score >= best:
                    key = train_key(obs, s)
                    if score > best or key < bkey:
                        best, bkey, bs = score, key, s
        return action_option(TRAIN, bs)
    if c >= 0:
        return action_option(TEST, c)
    return PASS_OPTION


@decision
def _guard_act(obs, prm, rng):
    return guarded_act(obs, prm.margin, prm.late, prm.min_gain, -1)


@dataclass(frozen=True)
class Guard(Strategy):
    """Guard the weakest pile: once the middle is down to ``late`` stacks (or the end is triggered) and my
    smallest pile is within ``margin`` of the lowest smallest pile among the opponents (the elimination
    line), spend the turn on my weakest colour: Test it from hand, else Train a tile of it (from an
    opponent's card first, which also denies them, then the middle, then my own card) or Study a middle
    stack showing it (with tiles in hand the Study first). Otherwise play for height like the reference
    gain rule: Test when the gain reaches ``min_gain``, else Study, preferring a stack whose top is my
    weakest colour, then one in my hand (any stack if none is), else, with an empty hand, Train, preferring
    tops that match my own card tops."""
    name: ClassVar[str] = "guard"
    game: ClassVar[str] = "senshi"
    margin: int = param(0, "act on the weakest pile when my smallest pile <= the opponents' lowest smallest pile + margin",
                        min=-5, max=30)
    min_gain: int = param(2, "Test for height when the gain (1 + my matching tops - most matching tops of an opponent) reaches this",
                          min=1, max=4)
    late: int = param(4, "middle stacks left from which the guard is on (always on once the end is triggered)",
                      min=0, max=24)

    setup_take = _spread_setup
    act = _guard_act


@numba.njit(**NO_REFCOUNT)
def racer_act(obs, min_gain, guard_at):
    """`racer`'s decision (see :class:`Racer`)."""
    if must_pass(obs):
        return PASS_OPTION
    me = obs.me
    n_stacks = obs.n_stacks
    target, strength = 0, -(1 << 30)
    for c in range(NC):
        v = pile(obs, me, c) * 4 + card_tops(obs, me, c) * 2 + obs.hand[c]
        if v > strength:
            target, strength = c, v
    low = my_min(obs)
    if (mid_count(obs) <= guard_at or remaining(obs) >= 0) and low <= opp_low_min(obs):
        c_weak = test_best(obs, True)[0]
        if c_weak >= 0:
            return action_option(TEST, c_weak)
        tr_weak = train_weak(obs)
        if tr_weak >= 0:
            return action_option(TRAIN, tr_weak)
    if obs.hand[target] > 0 and gain(obs, target) >= min_gain:
        return action_option(TEST, target)
    for s in range(n_stacks):
        if can_study(obs, s) and top_colour(obs, s) == target:
            return action_option(STUDY, s)
    best, bkey, bs = -1, 0, -1
    for s in range(n_stacks):
        if can_train(obs, s) and top_colour(obs, s) == target:
            r = rel_owner(obs, s)
            if r != 0:
                score = 2 * (r >= 1)
                if score >= best:
                    key = train_key(obs, s)
                    if score > best or key < bkey:
                        best, bkey, bs = score, key, s
    if bs >= 0:
        return action_option(TRAIN, bs)
    c, gn = test_best(obs, False)
    if c >= 0 and gn >= min_gain:
        return action_option(TEST, c)
    first = -1
    for s in range(n_stacks):
        if can_study(obs, s):
            if obs.hand[top_colour(obs, s)] > 0:
                return action_option(STUDY, s)
            if first < 0:
                first = s
    if first >= 0:
        return action_option(STUDY, first)
    if hand_total(obs) == 0:
        bkey, bs = 0, -1
        for s in range(n_stacks):
            if can_train(obs, s):
                key = train_key(obs, s)
                if bs < 0 or key < bkey:
                    bkey, bs = key, s
        return action_option(TRAIN, bs)
    if c >= 0:
        return action_option(TEST, c)
    return PASS_OPTION


@decision
def _racer_act(obs, prm, rng):
    return racer_act(obs, prm.min_gain, prm.guard_at)


@dataclass(frozen=True)
class Racer(Strategy):
    """Race one tall pile: pick the colour where I am strongest (pile, card tops and hand together) and pour
    everything into it: Test it when the gain reaches ``min_gain``, Study stacks showing it, Train its tiles
    from opponents' cards or the middle. Safety valve: once the middle holds at most ``guard_at`` stacks (or
    the end is triggered) and my smallest pile is at or below the opponents' lowest, fix the weakest colour
    first."""
    name: ClassVar[str] = "racer"
    game: ClassVar[str] = "senshi"
    min_gain: int = param(2, "Test the race colour when the gain reaches this", min=1, max=4)
    guard_at: int = param(4, "middle stacks left at which the weakest pile starts to matter", min=0, max=24)

    setup_take = _spread_setup
    act = _racer_act


@decision
def _denier_act(obs, prm, rng):
    return guarded_act(obs, prm.margin, prm.late, prm.min_gain, deny_target(obs, prm.threat, prm.max_hand))


@dataclass(frozen=True)
class Denier(Strategy):
    """Deny the opponents: on top of the `guard` plan (weakest pile first when late and in danger, Test for
    gain), when an opponent's card shows ``threat`` or more tops of one colour (a big payout whenever that
    colour is tested), or a top of the colour of the tallest pile on the table while that opponent leads,
    Train that tile away from them before studying (it also arms my hand; only while holding fewer than
    ``max_hand`` tiles)."""
    name: ClassVar[str] = "denier"
    game: ClassVar[str] = "senshi"
    threat: int = param(2, "an opponent's matching card tops in one colour that count as a threat", min=1, max=3)
    min_gain: int = param(2, "Test when the gain reaches this", min=1, max=4)
    max_hand: int = param(2, "deny only while holding fewer tiles than this", min=1, max=30)
    margin: int = param(0, "guard margin, as in `guard`", min=-5, max=30)
    late: int = param(4, "middle stacks left from which the guard is on, as in `guard`", min=0, max=24)

    setup_take = _spread_setup
    act = _denier_act


# ----------------------------------------------------------------------------------------------------
# `counter`: expected piles one move ahead. The arithmetic (order of operations included) is that of
# the batch formulas in the class docstring, so that no near-tie ever flips.
# ----------------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _below(obs, s, c, share_c):
    """Expected tiles of colour c under the top of stack s (counted with ``open_stacks``)."""
    h = stack_height(obs, s)
    if obs.open_stacks:
        n = 0
        for k in range(4 - h, 3):
            n += obs.stacks[s, k] == c
        return float(n)
    return float(max(h - 1, 0)) * share_c


@numba.njit(cache=True, inline="always")
def _next(obs, s, c, share_c):
    """Chance that the tile under the top of stack s has colour c (known with ``open_stacks``)."""
    h = stack_height(obs, s)
    if h < 2:
        return 0.0
    if obs.open_stacks:
        return 1.0 if obs.stacks[s, 4 - h] == c else 0.0
    return share_c


@numba.njit(cache=True, inline="always")
def _value(q0, q1, q2, q3, w_min):
    """(value, smallest) of expected piles: the tallest plus ``w_min`` times the smallest."""
    high = max(max(q0, q1), max(q2, q3))
    low = min(min(q0, q1), min(q2, q3))
    return high + w_min * low, low


@numba.njit(cache=True, inline="always")
def _keep(valid, score, s, best, first):
    """(best, first) after option ``s`` with ``score`` (when ``valid``), as a scan in index order that keeps
    the first of the highest scores would leave them, whatever the order the options come in."""
    take = valid & ((score > best) | ((score == best) & (s < first)))
    return (score if take else best), (s if take else first)


@numba.njit(cache=True, inline="always")
def _score(my_v, my_low, opp, opp_low, w_opp, w_risk, stage2):
    """An option's score: my value less ``w_opp`` times the best opponent's, less ``w_risk`` per tile my
    smallest pile trails the lowest opponent's (with half a tile of margin), by the stage of the game."""
    return (my_v - w_opp * opp) - w_risk * (max((opp_low - my_low) + 0.5, 0.0) * stage2)


@numba.njit(cache=True, inline="always")
def _of_colour(t, m0, m1, m2, m3):
    """The one of m0..m3 for colour t."""
    return m0 if t == 0 else (m1 if t == 1 else (m2 if t == 2 else m3))


@numba.njit(cache=True, inline="always")
def _seat_stacks(p, o_lo, o_hi):
    """The stacks (bit s) whose place has the two low bits of seat p, from the places' bit planes
    (card stacks of seat p once masked with the card stacks)."""
    return (o_lo if p & 1 else ~o_lo) & (o_hi if p & 2 else ~o_hi)


@numba.njit(**NO_REFCOUNT)
def counter_act(obs, w_min, a_hand, a_top, w_opp, w_risk, a_deep, fw, iw):
    """`counter`'s decision (see :class:`Counter`); ``fw``, ``iw`` scratch (>= 14 rows of >= 64).

    Options that score alike are scored once: without ``open_stacks`` a Study by the top colour and
    height of its stack, and (either way) a Train from the middle by its top colour; the first of the
    highest-scoring options in the order Study, Train, Test (stacks by index) is taken, as a scan of
    every option one by one would."""
    if must_pass(obs):
        return PASS_OPTION
    me, P = obs.me, obs.players
    n_stacks = obs.n_stacks
    open_stacks = obs.open_stacks
    # unseen tiles of each colour: all tiles minus piles, my hand, the others' known hand tiles and the
    # visible stack tiles
    u0 = obs.hand[0] - known_tiles(obs, me, 0)
    u1 = obs.hand[1] - known_tiles(obs, me, 1)
    u2 = obs.hand[2] - known_tiles(obs, me, 2)
    u3 = obs.hand[3] - known_tiles(obs, me, 3)
    for p in range(P):
        u0 += pile(obs, p, 0) + known_tiles(obs, p, 0)
        u1 += pile(obs, p, 1) + known_tiles(obs, p, 1)
        u2 += pile(obs, p, 2) + known_tiles(obs, p, 2)
        u3 += pile(obs, p, 3) + known_tiles(obs, p, 3)
    # one pass over the stacks, without branches: the middle stacks and the card stacks (bit s), and the
    # stacks by top colour, by height and by place
    # (the colours and heights by their two bits: comparisons of one value with several constants
    # would be compiled into a jump on it, which no predictor guesses)
    middle, carded, topped, t_lo, t_hi, h_lo, h_hi, o_lo, o_hi = 0, 0, 0, 0, 0, 0, 0, 0, 0
    for s in range(n_stacks):
        h = np.int64(stack_height(obs, s))
        t = np.int64(stack_top(obs, s))
        o = stack_loc(obs, s)
        bit = np.int64(1) << s
        middle |= bit if o == MIDDLE else 0
        carded |= bit if o >= 0 else 0
        topped |= bit if t >= 0 else 0
        t_lo |= (t & 1) << s
        t_hi |= ((t >> 1) & 1) << s
        h_lo |= (h & 1) << s
        h_hi |= ((h >> 1) & 1) << s
        o_lo |= (np.int64(o) & 1) << s
        o_hi |= ((np.int64(o) >> 1) & 1) << s
    top0, top1 = topped & ~t_lo & ~t_hi, topped & t_lo & ~t_hi
    top2, top3 = topped & ~t_lo & t_hi, topped & t_lo & t_hi
    high1, high2, high3 = h_lo & ~h_hi, ~h_lo & h_hi, h_lo & h_hi
    if open_stacks:
        for s in range(n_stacks):
            h = stack_height(obs, s)
            for k in range(3):
                v = obs.stacks[s, k]
                vis = k >= 3 - h
                u0 += vis & (v == 0)
                u1 += vis & (v == 1)
                u2 += vis & (v == 2)
                u3 += vis & (v == 3)
    else:
        u0 += popcount(top0)
        u1 += popcount(top1)
        u2 += popcount(top2)
        u3 += popcount(top3)
    share = fw[0]
    share[0] = float(max(PER_COLOUR - obs.removed - u0, 0))
    share[1] = float(max(PER_COLOUR - obs.removed - u1, 0))
    share[2] = float(max(PER_COLOUR - obs.removed - u2, 0))
    share[3] = float(max(PER_COLOUR - obs.removed - u3, 0))
    tot = 0.0
    for c in range(NC):
        tot += share[c]
    for c in range(NC):
        share[c] = share[c] / max(tot, 1.0) if tot > 0 else 0.25
    # per player and top colour, the card stacks with a tile under the top (by the colour of that tile
    # with open_stacks); and the expected buried tiles D of each card, added up stack by stack in index
    # order
    deep = iw[1]
    for i in range(16 * P):
        deep[i] = 0
    # (card by card, in registers: a card's sums take its stacks in index order as before)
    D = fw[2]
    for o in range(P):
        rest = carded & _seat_stacks(o, o_lo, o_hi)
        d0, d1, d2, d3 = 0.0, 0.0, 0.0, 0.0
        while rest:
            s = trailing_zeros(rest)
            rest &= rest - 1
            h = stack_height(obs, s)
            t = stack_top(obs, s)
            under = h >= 2
            deep[16 * o + 4 * t + (obs.stacks[s, (4 - h) if under else 0] if open_stacks else 0)] += under
            d0 += _below(obs, s, 0, share[0])
            d1 += _below(obs, s, 1, share[1])
            d2 += _below(obs, s, 2, share[2])
            d3 += _below(obs, s, 3, share[3])
        D[o * 4], D[o * 4 + 1], D[o * 4 + 2], D[o * 4 + 3] = d0, d1, d2, d3
    # hand tiles are worth less when few turns remain to play them
    left = remaining(obs)
    my_turns = 1.0 if left >= 0 else 1.0 + 2.0 * mid_count(obs) / P
    hand_w = fw[1]
    for p in range(P):
        hand_w[p] = a_hand * min(1.0, my_turns / max(float(hand_size(obs, p)), 1.0))
    # expected piles Q: piles + hand_w * expected hand + a_top * card tops + a_deep * buried card tiles
    Q = fw[3]
    lo, val = fw[4], fw[5]
    for p in range(P):
        ks = 0.0
        for c in range(NC):
            ks += float(known_tiles(obs, p, c))
        unknown = float(hand_size(obs, p)) - ks
        for c in range(NC):
            guess = float(known_tiles(obs, p, c)) + unknown * share[c]
            H = float(obs.hand[c]) if p == me else guess
            Q[p * 4 + c] = ((float(pile(obs, p, c)) + hand_w[p] * H) + a_top * float(card_tops(obs, p, c))) \
                + a_deep * D[p * 4 + c]
        val[p], lo[p] = _value(Q[p * 4], Q[p * 4 + 1], Q[p * 4 + 2], Q[p * 4 + 3], w_min)
    base_opp, base_low = -np.inf, np.inf
    for p in range(P):
        base_opp = max(base_opp, val[p] if p != me else -np.inf)
        base_low = min(base_low, lo[p] if p != me else np.inf)
    # the best opponent's value (and smallest) but for the owner o of a card
    o_max, o_low = fw[9], fw[10]
    for o in range(P):
        m, ml = -np.inf, np.inf
        for p in range(P):
            other = (p != me) & (p != o)
            m = max(m, val[p] if other else -np.inf)
            ml = min(ml, lo[p] if other else np.inf)
        o_max[o], o_low[o] = m, ml
    stage = 1.0 if left >= 0 else 1.0 - mid_count(obs) / float(_STACKS_MIDDLE[P])
    stage2 = stage * stage
    hw_me = hand_w[me]
    atd = a_top - a_deep
    m4 = me * 4
    q0, q1, q2, q3 = Q[m4], Q[m4 + 1], Q[m4 + 2], Q[m4 + 3]
    # what a top of colour t adds to colour c: ``hw_me`` in hand, ``a_top`` on a card (0.0 for c != t),
    # looked up by t (comparisons of t with each colour would be compiled into a jump on it)
    HW, AT = fw[7], fw[6]
    for t in range(NC):
        for c in range(NC):
            HW[4 * t + c] = hw_me if t == c else 0.0
            AT[4 * t + c] = a_top if t == c else 0.0
    best, choice = -np.inf, PASS_OPTION
    # Study s: my card gains a top of colour t and the tiles below it (without open_stacks the same for
    # every middle stack of one top colour and height: scored once, for the first of them)
    if card_count(obs, me) < MAX_CARD and middle:
        first = BIG
        if open_stacks:
            rest = middle
        else:
            rest = 0
            for t in range(NC):
                top = _of_colour(t, top0, top1, top2, top3)
                a1, a2, a3 = middle & top & high1, middle & top & high2, middle & top & high3
                rest |= (a1 & -a1) | (a2 & -a2) | (a3 & -a3)
        while rest:
            s = trailing_zeros(rest)
            rest &= rest - 1
            t4 = 4 * stack_top(obs, s)
            my_v, my_low = _value(q0 + (AT[t4] + a_deep * _below(obs, s, 0, share[0])),
                                  q1 + (AT[t4 + 1] + a_deep * _below(obs, s, 1, share[1])),
                                  q2 + (AT[t4 + 2] + a_deep * _below(obs, s, 2, share[2])),
                                  q3 + (AT[t4 + 3] + a_deep * _below(obs, s, 3, share[3])), w_min)
            best, first = _keep(True, _score(my_v, my_low, base_opp, base_low, w_opp, w_risk, stage2), s, best, first)
        choice = STUDY * OPTION + first
    # Train s: my hand gains colour t; the owner's card loses top t and shows the next tile (from the
    # middle the same for every stack of one top colour: scored once, for the first of them)
    # (my value after taking a top of colour t into my hand: the same for a Train from an opponent's
    # card, kept by t in TV, TL)
    TV, TL = fw[12], fw[13]
    t_best, first = -np.inf, BIG
    for t in range(NC):
        alike = middle & _of_colour(t, top0, top1, top2, top3)
        s = trailing_zeros(alike | (np.int64(1) << 62))
        my_v, my_low = _value(q0 + (hw_me if t == 0 else 0.0), q1 + (hw_me if t == 1 else 0.0),
                              q2 + (hw_me if t == 2 else 0.0), q3 + (hw_me if t == 3 else 0.0), w_min)
        TV[t], TL[t] = my_v, my_low
        score = _score(my_v, my_low, base_opp, base_low, w_opp, w_risk, stage2)
        t_best, first = _keep(alike != 0, score, s, t_best, first)
    # from an opponent's card (the order of the scan does not matter: `_keep` keeps the first index)
    mine_mask = _seat_stacks(me, o_lo, o_hi)
    rest = carded & ~mine_mask
    while rest:
        s = trailing_zeros(rest)
        rest &= rest - 1
        o = stack_loc(obs, s)
        t = stack_top(obs, s)
        t4 = 4 * t
        o4 = o * 4
        ov, ol = _value(Q[o4] + (atd * _next(obs, s, 0, share[0]) - AT[t4]),
                        Q[o4 + 1] + (atd * _next(obs, s, 1, share[1]) - AT[t4 + 1]),
                        Q[o4 + 2] + (atd * _next(obs, s, 2, share[2]) - AT[t4 + 2]),
                        Q[o4 + 3] + (atd * _next(obs, s, 3, share[3]) - AT[t4 + 3]), w_min)
        opp = max(ov, o_max[o])
        opp_low = min(ol, o_low[o])
        t_best, first = _keep(True, _score(TV[t], TL[t], opp, opp_low, w_opp, w_risk, stage2), s, t_best, first)
    # from my own card
    rest = carded & mine_mask
    while rest:
        s = trailing_zeros(rest)
        rest &= rest - 1
        t4 = 4 * stack_top(obs, s)
        my_v, my_low = _value((q0 + HW[t4]) + (atd * _next(obs, s, 0, share[0]) - AT[t4]),
                              (q1 + HW[t4 + 1]) + (atd * _next(obs, s, 1, share[1]) - AT[t4 + 1]),
                              (q2 + HW[t4 + 2]) + (atd * _next(obs, s, 2, share[2]) - AT[t4 + 2]),
                              (q3 + HW[t4 + 3]) + (atd * _next(obs, s, 3, share[3]) - AT[t4 + 3]), w_min)
        score = _score(my_v, my_low, base_opp, base_low, w_opp, w_risk, stage2)
        t_best, first = _keep(True, score, s, t_best, first)
    if t_best > best:
        best, choice = t_best, TRAIN * OPTION + first
    # Test t: one tile from my hand to my pile; every matching card top moves to its owner's pile and
    # uncovers the next tile (expected). Without open_stacks the tiles uncovered on one card are the same
    # share added once per stack, in order: F[k, c] for k stacks.
    F = fw[8]
    if not open_stacks:
        for c in range(NC):
            f = 0.0
            F[c] = f
            for k in range(1, 4):
                f += share[c]
                F[4 * k + c] = f
    q = fw[11]
    for t in range(NC):
        if obs.hand[t] <= 0:
            continue
        my_v, my_low = val[me], lo[me]
        opp, opp_low = -np.inf, np.inf
        for p in range(P):
            moved = card_tops(obs, p, t)
            if p != me and moved == 0:
                opp = max(opp, val[p])
                opp_low = min(opp_low, lo[p])
                continue
            a_t = (1.0 - hw_me) if p == me else 0.0
            b_t = (1.0 - a_top) * float(moved)
            base = 16 * p + 4 * t
            for c in range(NC):
                if open_stacks:
                    fresh = float(deep[base + c])
                else:
                    fresh = F[4 * deep[base] + c]
                if c == t:
                    q[c] = ((Q[p * 4 + c] + a_t) + b_t) + atd * fresh
                else:
                    q[c] = Q[p * 4 + c] + atd * fresh
            v, low_p = _value(q[0], q[1], q[2], q[3], w_min)
            if p == me:
                my_v, my_low = v, low_p
            else:
                opp = max(opp, v)
                opp_low = min(opp_low, low_p)
        score = _score(my_v, my_low, opp, opp_low, w_opp, w_risk, stage2)
        if score > best:
            best, choice = score, TEST * OPTION + t
    return choice


@decision
def _counter_act(obs, prm, rng):
    return counter_act(obs, prm.w_min, prm.a_hand, prm.a_top, prm.w_opp, prm.w_risk, prm.a_deep, rng.fw, rng.iw)


@dataclass(frozen=True)
class Counter(Strategy):
    """Count the unseen tiles and look one move ahead. Every player's position is valued as
    ``tallest + w_min * smallest`` of their expected piles, where a pile counts its tiles, plus ``a_hand``
    per tile of that colour in hand, ``a_top`` per card stack showing that colour and ``a_deep`` per tile
    of that colour buried on their card. Opponents' hidden hand
    tiles and the tiles under every stack top are estimated from the unseen counts (all tiles minus piles,
    hands' known parts and visible stack tiles), so a Train or Test that uncovers a tile is valued by what
    it is likely to uncover. Hand tiles lose value as the end nears (a tile never played scores nothing).
    Each legal option is scored as my value minus ``w_opp`` times the best opponent's, with a penalty of
    ``w_risk`` per tile my smallest pile trails the lowest opponent's, with half a tile of margin (a tie
    costs half of ``w_risk``), growing as the middle empties; the best option is taken."""
    name: ClassVar[str] = "counter"
    game: ClassVar[str] = "senshi"
    w_min: float = param(1.0, "weight of the smallest pile in a player's value", min=0.0, max=10.0)
    a_hand: float = param(0.5, "value of a tile in hand (before the end-game discount)", min=0.0, max=1.0)
    a_top: float = param(0.6, "value of a stack top of a colour on one's own card", min=0.0, max=1.0)
    w_opp: float = param(0.25, "weight of the best opponent's value", min=0.0, max=3.0)
    w_risk: float = param(4.0, "penalty per tile my smallest pile trails the opponents' lowest, plus half a tile "
                               "(late game)",
                          min=0.0, max=10.0)
    a_deep: float = param(0.4, "value of a tile buried under a top on one's own card (expected colour)",
                          min=0.0, max=1.0)

    setup_take = _spread_setup
    act = _counter_act


STRATEGIES = [Random, Greedy, Guard, Racer, Denier, Counter]
