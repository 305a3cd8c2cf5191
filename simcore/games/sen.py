"""Sen: dream lands, ravens and WAKE UP!, vectorized over a batch of games.

Rules in brief (``shared/rules/sen.md`` is binding): 54 cards (values 0-8 four times, nine 9s, and the
specials Take 2 = 5, Peek 1 = 6, Swap 2 = 7, three each). Each round every player gets 4 face-down
lands and knows slots 0 and 1; one card starts the face-up pile. On a turn a player says WAKE UP! (the
round ends at once), or takes the face-up top into a slot, or draws the face-down top and exchanges it,
discards it, or (specials only) discards it and uses its action (Take 2 chains, Peek 1, Swap 2). The
round also ends after the turn that empties the face-down pile. Totals are added to scores (the caller
adds 0 if fewest, else total + penalty); the game ends at ``target`` (or after ``rounds``); fewest wins.

Array layout (n games, P players, S = 8 dream slots, the most a dream can hold):

* ``deck[n, 54]``: card ids in the order of this round's shuffle; ``ptr[n]``: the face-down pile is
  ``deck[g, ptr[g]:]``, its top is ``deck[g, ptr[g]]``.
* ``up[n, 54]``, ``up_len[n]``: the face-up pile, bottom first; its top is ``up[g, up_len[g] - 1]``.
* ``dream[n, P, S]``: card id in each slot, -1 for no card; ``nslots[n, P]``: the occupied slots are
  always ``0 .. nslots-1`` (removals keep the order of the rest).
* ``mem[n, V, P, S]``: what viewer V remembers of player P's slot S: a value 0-9, or -1 (unknown).
* ``kept[n, P, S]``: public history: the land at player P's slot S was drawn from the face-down pile and
  kept there by P (everyone saw the exchange, not the value); it moves with the land when swapped.
* card ids: 0-35 are values 0-8 (id // 4), 36-44 are 9s, 45-47 Take 2 (5), 48-50 Peek 1 (6),
  51-53 Swap 2 (7); :data:`VALUE` and :data:`KIND` map ids to value and kind.

Decisions (see :class:`Player`) are integer codes; every action is checked and an illegal one raises
:class:`~simcore.errors.IllegalAction`.
"""
from __future__ import annotations

import copy
import dataclasses
import math
from enum import IntEnum
from typing import Any, ClassVar

import numba
import numpy as np

from ..compiled import NO_REFCOUNT
from ..errors import IllegalAction, SenseiError
from ..game import Game, Metric, Seats, illegal, policy_table, tie_shares
from ..options import Rules, option
from ..rng import STREAM_DEAL, draw_base, integer_below, permutation_into, permutations, stream_keys, uniform_at

N_CARDS = 54
SLOTS = 8
HAND = 4

VALUE = np.array([i // 4 for i in range(36)] + [9] * 9 + [5] * 3 + [6] * 3 + [7] * 3, dtype=np.int8)


class Kind(IntEnum):
    PLAIN = 0
    TAKE2 = 1
    PEEK = 2
    SWAP = 3


#: lookups used for observations: strategies get int32 arrays (fast, and no overflow in arithmetic)
VALUE32 = VALUE.astype(np.int32)
_VALUE_NB = VALUE.astype(np.int64)
KIND = np.array([0] * 45 + [Kind.TAKE2] * 3 + [Kind.PEEK] * 3 + [Kind.SWAP] * 3, dtype=np.int8)
KIND32 = KIND.astype(np.int32)
_KIND_NB = KIND.astype(np.int64)
#: sum of all card values and mean value (279 / 54 = 31 / 6)
DECK_TOTAL = int(VALUE.sum())
MEAN_NUM, MEAN_DEN = 31, 6


class Start(IntEnum):
    """First decision of a turn."""
    WAKE = 0       #: say WAKE UP! (the round ends)
    FACE_UP = 1    #: take the face-up top into a slot
    DRAW = 2       #: draw the face-down top
    CLAIM = 3      #: "I know what I have" (variant ``know_what_i_have``)


class Drawn(IntEnum):
    """Decision about a drawn card: a slot number 0..S-1 exchanges it; these codes do the rest."""
    DISCARD = -1   #: put it face up on the pile
    USE = -2       #: put it on the pile and use its action (specials only)


@dataclasses.dataclass(frozen=True)
class SenRules(Rules):
    penalty: int = option(5, "ravens added to a caller who is not the fewest (the rulebook's harsh option: 15)",
                          min=0, max=10_000)
    caller_tie: str = option("zero", "a caller tied for fewest adds 0 (zero) or their total without penalty (count)",
                             choices=("zero", "count"))
    target: int = option(100, "the game ends after a round in which a score reaches this", min=1, max=1_000_000)
    rounds: int | None = option(None, "play exactly this many rounds instead (target is then ignored)",
                                min=1, max=100_000)
    ravens_not_scary: bool = option(False, "variant: the single player with most 9s does not add them")
    go_all_in: bool = option(False, "variant: a dream of only 9s scores 0 and everybody else 50")
    know_what_i_have: bool = option(False, "variant: a third action, naming two own lands of equal value")


@dataclasses.dataclass
class SenState:
    players: int
    rules: SenRules
    deal_keys: np.ndarray
    deck: np.ndarray
    ptr: np.ndarray
    up: np.ndarray
    up_len: np.ndarray
    up_counts: np.ndarray
    dream: np.ndarray
    nslots: np.ndarray
    mem: np.ndarray
    kept: np.ndarray
    score: np.ndarray
    cur: np.ndarray
    round: np.ndarray
    done: np.ndarray
    turns: np.ndarray
    timeout: np.ndarray
    # statistics
    called: np.ndarray
    caller_ok: np.ndarray
    dream_sum: np.ndarray
    penalties: np.ndarray
    round_turns: np.ndarray
    leader: np.ndarray
    lead_changes: np.ndarray
    #: scripted shuffles for tests: list (per round) of (n, 54) decks, or None
    script: list | None = None
    #: round totals (n, P) of the last finished round of each game (for tests and reports)
    last_totals: np.ndarray | None = None
    last_points: np.ndarray | None = None


class _Lazy:
    """An observation field given either as an array or as a zero-argument function that builds it on
    first use (most decisions read only a few fields)."""

    def __set_name__(self, owner, name):
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = getattr(obj, self.slot)
        if callable(value):
            value = value()
            setattr(obj, self.slot, value)
        return value


class SenObs:
    """What the deciding player may know, for a batch of m games (all arrays have m rows).

    ``mem[i, p, s]`` is this player's memory of player p's slot s (-1 unknown) and ``own`` its own row;
    ``me`` is the player's seat. Public: dream sizes, the face-up top and counts, pile size, scores, and
    which lands were drawn and kept by their owners. ``mem``, ``kept``, ``nslots``, ``scores``, ``round``
    and ``up_counts`` may be given as zero-argument functions: they are then built on first use.
    """

    def __init__(self, me, players, mem, nslots, top, up_counts, pile_left, scores, round, rules,
                 card=None, card_kind=None, offer=None, offer_kind=None, own=None, kept=None):
        self.me = me                  #: (m,) own seat
        self.players = players
        self._mem = mem               #: (m, P, S) remembered values, -1 unknown
        self._nslots = nslots         #: (m, P) lands in each dream
        self.top = top                #: (m,) value of the face-up top
        self._up_counts = up_counts   #: (m, 10) how many cards of each value lie face up
        self.pile_left = pile_left    #: (m,) cards in the face-down pile
        self._scores = scores         #: (m, P) game scores so far
        self._round = round           #: (m,) round number, from 0
        self.rules = rules
        self.card = card              #: (m,) value of the drawn card (decision ``drawn``)
        self.card_kind = card_kind    #: (m,) its Kind
        self.offer = offer            #: (m, 2) values of the two Take 2 cards (decision ``keep``)
        self.offer_kind = offer_kind  #: (m, 2) their kinds
        self._own = own
        self._kept = kept             #: (m, P, S) public: the land there was drawn and kept by its owner
        self._own_slots = None
        self._own_mask = None

    mem = _Lazy()        #: (m, P, S) remembered values, -1 unknown
    kept = _Lazy()       #: (m, P, S) public: the land there was drawn and kept by its owner
    nslots = _Lazy()     #: (m, P) lands in each dream
    scores = _Lazy()     #: (m, P) game scores so far
    round = _Lazy()      #: (m,) round number, from 0
    up_counts = _Lazy()  #: (m, 10) how many cards of each value lie face up

    @property
    def own(self) -> np.ndarray:
        """(m, S) own remembered values (-1 unknown or no slot)."""
        if self._own is None:
            self._own = self.mem[np.arange(len(self.me)), self.me]
        return self._own

    @property
    def own_slots(self) -> np.ndarray:
        """(m,) number of own lands."""
        if self._own_slots is None:
            self._own_slots = self.nslots[np.arange(len(self.me)), self.me]
        return self._own_slots

    def slot_mask(self) -> np.ndarray:
        """(m, P, S) True where a land exists."""
        return _SLOT_RANGE[None, None, :] < self.nslots[:, :, None]

    def own_mask(self) -> np.ndarray:
        """(m, S) True for the own occupied slots."""
        if self._own_mask is None:
            self._own_mask = _SLOT_RANGE[None, :] < self.own_slots[:, None]
        return self._own_mask


_SLOT_RANGE = np.arange(SLOTS)


class Player:
    """The decisions a Sen strategy makes; every method is vectorized over a batch of observations.

    * ``start(obs, rng) -> int[m]``: a :class:`Start` code.
    * ``face_up_slot(obs, rng) -> int[m]``: the own slot that receives the face-up top.
    * ``drawn(obs, rng) -> int[m]``: for the drawn card ``obs.card``: an own slot to exchange it with,
      ``Drawn.DISCARD``, or ``Drawn.USE`` (specials only).
    * ``keep(obs, rng) -> int[m]``: 0 or 1, which of the two Take 2 cards ``obs.offer`` to keep.
    * ``peek(obs, rng) -> (player[m], slot[m])``: the position to look at.
    * ``swap(obs, rng) -> (player_a, slot_a, player_b, slot_b)``: two different positions.
    * ``claim(obs, rng) -> (slot_a, slot_b, value)``: for ``Start.CLAIM`` (variant ``know_what_i_have``).
    """


# ---------------------------------------------------------------------------------------------
# Rule steps, one game at a time (compiled). The batch kernels below loop them over the acting games;
# the compiled lane (:func:`_k_play`) calls the same functions, so every rule is written once. A step
# that checks an action returns False (or -1) for an illegal one.
# ---------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _push_up_one(up, up_len, up_counts, g, card):
    up[g, up_len[g]] = card
    up_len[g] += 1
    up_counts[g, _VALUE_NB[card]] += 1


@numba.njit(cache=True, inline="always")
def _pop_one(deck, ptr, g):
    card = deck[g, ptr[g]]
    ptr[g] += 1
    return card


@numba.njit(cache=True, inline="always")
def _face_up_one(up, up_len, up_counts, dream, nslots, mem, kept, g, m, s):
    """A1: the face-up top goes to slot s of player m; the old land takes its place face up."""
    if s < 0 or s >= nslots[g, m]:
        return False
    top = up_len[g] - 1
    card = up[g, top]
    old = dream[g, m, s]
    dream[g, m, s] = card
    up[g, top] = old                      # the taken card leaves, the old land takes its place
    up_counts[g, _VALUE_NB[card]] -= 1
    up_counts[g, _VALUE_NB[old]] += 1
    for v in range(mem.shape[1]):
        mem[g, v, m, s] = _VALUE_NB[card]
    kept[g, m, s] = False
    return True


@numba.njit(cache=True, inline="always")
def _drawn_one(up, up_len, up_counts, dream, nslots, mem, kept, g, m, c, d):
    """B1-B3 for the drawn card c: exchange with slot d >= 0, DISCARD (-1) or USE (-2, specials only).
    Returns -1 if illegal, 1 if the card is used for its action, else 0."""
    if d >= 0:
        if d >= nslots[g, m]:
            return -1
        old = dream[g, m, d]
        dream[g, m, d] = c
        for v in range(mem.shape[1]):
            mem[g, v, m, d] = -1
        mem[g, m, m, d] = _VALUE_NB[c]
        kept[g, m, d] = True
        c = old
    elif d == -2:
        if _KIND_NB[c] == 0:
            return -1
    elif d != -1:
        return -1
    _push_up_one(up, up_len, up_counts, g, c)
    return 1 if d == -2 else 0


@numba.njit(cache=True, inline="always")
def _peek_one(mem, dream, nslots, g, m, pl, sl):
    """Peek 1: player m looks at player pl's slot sl."""
    if pl < 0 or pl >= nslots.shape[1] or sl < 0 or sl >= nslots[g, pl]:
        return False
    mem[g, m, pl, sl] = _VALUE_NB[dream[g, pl, sl]]
    return True


@numba.njit(cache=True, inline="always")
def _swap_one(dream, mem, kept, nslots, g, pa, sa, pb, sb):
    """Swap 2: two different existing lands change places, with what everyone remembers of them and
    their public kept flag."""
    P = nslots.shape[1]
    if pa < 0 or pa >= P or pb < 0 or pb >= P:
        return False
    if sa < 0 or sa >= nslots[g, pa] or sb < 0 or sb >= nslots[g, pb] or (pa == pb and sa == sb):
        return False
    t = dream[g, pa, sa]
    dream[g, pa, sa] = dream[g, pb, sb]
    dream[g, pb, sb] = t
    for v in range(mem.shape[1]):
        t = mem[g, v, pa, sa]
        mem[g, v, pa, sa] = mem[g, v, pb, sb]
        mem[g, v, pb, sb] = t
    k = kept[g, pa, sa]
    kept[g, pa, sa] = kept[g, pb, sb]
    kept[g, pb, sb] = k
    return True


@numba.njit(cache=True, inline="always")
def _deal_one(cards, g, P, deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept):
    """Lay out a shuffled deck: 4 lands per player (player p gets cards[4p:4p+4] in slots 0-3), the next
    card face up, the rest face down; every player knows their own slots 0 and 1."""
    for c in range(cards.shape[0]):
        deck[g, c] = cards[c]
    dream[g, :, :] = -1
    mem[g, :, :, :] = -1
    kept[g, :, :] = False
    up[g, :] = -1
    up_counts[g, :] = 0
    for p in range(P):
        nslots[g, p] = 4
        for s in range(4):
            dream[g, p, s] = cards[4 * p + s]
        mem[g, p, p, 0] = _VALUE_NB[dream[g, p, 0]]
        mem[g, p, p, 1] = _VALUE_NB[dream[g, p, 1]]
    first = cards[4 * P]
    up[g, 0] = first
    up_len[g] = 1
    up_counts[g, _VALUE_NB[first]] = 1
    ptr[g] = 4 * P + 1


@numba.njit(cache=True, inline="always")
def _claim_one(deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept, g, m, a, b, v):
    """"I know what I have" (variant): player m names own slots a and b as value v. Right: both lands
    go face up (lower slot first) and the others keep their order; wrong: both are shown to everyone.
    Either way a new unseen land from the face-down pile comes at the end."""
    ns = nslots[g, m]
    if a < 0 or a >= ns or b < 0 or b >= ns or a == b or v < 0 or v > 9:
        return False
    va, vb = _VALUE_NB[dream[g, m, a]], _VALUE_NB[dream[g, m, b]]
    new = _pop_one(deck, ptr, g)
    V = mem.shape[1]
    if va == v and vb == v:
        lo, hi = min(a, b), max(a, b)
        _push_up_one(up, up_len, up_counts, g, dream[g, m, lo])
        _push_up_one(up, up_len, up_counts, g, dream[g, m, hi])
        k = 0
        for s in range(ns):
            if s != lo and s != hi:
                dream[g, m, k] = dream[g, m, s]
                for x in range(V):
                    mem[g, x, m, k] = mem[g, x, m, s]
                kept[g, m, k] = kept[g, m, s]
                k += 1
        for s in range(ns - 2, ns):
            dream[g, m, s] = -1
            for x in range(V):
                mem[g, x, m, s] = -1
            kept[g, m, s] = False
        nslots[g, m] = ns - 2
    else:
        for x in range(V):
            mem[g, x, m, a] = va
            mem[g, x, m, b] = vb
    last = nslots[g, m]
    dream[g, m, last] = new
    for x in range(V):
        mem[g, x, m, last] = -1
    kept[g, m, last] = False
    nslots[g, m] = last + 1
    return True


@numba.njit(cache=True, inline="always")
def _start_ok(a, n_own, kwih):
    """Whether a is a Start code allowed to a player with ``n_own`` lands."""
    if a < 0 or a > 3:
        return False
    return a != 3 or (kwih and 2 <= n_own <= 7)


@numba.njit(cache=True, inline="always")
def _finish_one(g, me, act, P, turns, round_turns, cur, ptr):
    """Count the turn and pass it to the left; True when the round is over (WAKE UP!, or this turn
    emptied the face-down pile)."""
    turns[g] += 1
    round_turns[g] += 1
    cur[g] = me + 1 if me + 1 < P else 0
    return act == 0 or ptr[g] >= 54


@numba.njit(cache=True)
def _score_round(totals, nines, only, caller, penalty, tie_count, ravens, allin, points):
    """One round's points per seat into ``points``; returns (caller was fewest, penalty applied).

    Order of the rulings: the ``ravens_not_scary`` reward, then the caller check on the totals after it;
    ``go_all_in``, when it applies, overrides everything (no penalty on top)."""
    P = totals.shape[0]
    for p in range(P):
        points[p] = totals[p]
    if ravens:
        most, who, count = 0, 0, 0
        for p in range(P):
            if nines[p] > most:
                most, who, count = nines[p], p, 1
            elif nines[p] == most:
                count += 1
        if most >= 1 and count == 1:
            points[who] -= 9 * nines[who]
    fewest = False
    pen = False
    if caller >= 0:
        c = points[caller]
        low, same = points[0], 0
        for p in range(P):
            low = min(low, points[p])
        for p in range(P):
            if points[p] == c:
                same += 1
        if c <= low:
            fewest = True
            points[caller] = c if (tie_count and same > 1) else 0
        else:
            points[caller] = c + penalty
            pen = True
    if allin:
        k = 0
        for p in range(P):
            if only[p]:
                k += 1
        if k == 1:
            for p in range(P):
                points[p] = 0 if only[p] else 50
            pen = False
    return fewest, pen


@numba.njit(cache=True, inline="always")
def _end_round_one(gi, caller, ender, dream, nslots, score, last_totals, last_points, dream_sum, called, caller_ok,
                   penalties, rounds, leader, lead_changes, done, cur, penalty, tie_count, ravens, allin, n_rounds,
                   target, totals, nines, only, points):
    """Score the round of game gi, update its statistics, and end the game (False) or pass the deal to
    the left of the player who ended the round (True: deal a new round). ``totals``, ``nines``,
    ``only``, ``points`` are work arrays of length P."""
    P = nslots.shape[1]
    for p in range(P):
        t, n9 = 0, 0
        for s in range(nslots[gi, p]):
            v = _VALUE_NB[dream[gi, p, s]]
            t += v
            if v == 9:
                n9 += 1
        totals[p], nines[p] = t, n9
        only[p] = nslots[gi, p] >= 1 and n9 == nslots[gi, p]
    ok, pen = _score_round(totals, nines, only, caller, penalty, tie_count, ravens, allin, points)
    low = np.int64(1) << 62
    for p in range(P):
        score[gi, p] += points[p]
        last_totals[gi, p] = totals[p]
        last_points[gi, p] = points[p]
        dream_sum[gi] += totals[p]
        low = min(low, score[gi, p])
    # lead changes: the single lowest score after a round differs from the last single leader
    lead, same = 0, 0
    for p in range(P):
        if score[gi, p] == low:
            if same == 0:
                lead = p
            same += 1
    if same == 1:
        if leader[gi] >= 0 and lead != leader[gi]:
            lead_changes[gi] += 1
        leader[gi] = lead
    if caller >= 0:
        called[gi] += 1
    if ok:
        caller_ok[gi] += 1
    if pen:
        penalties[gi] += 1
    rounds[gi] += 1
    if n_rounds >= 0:
        over = rounds[gi] >= n_rounds
    else:
        over = False
        for p in range(P):
            if score[gi, p] >= target:
                over = True
    if over:
        done[gi] = True
        return False
    cur[gi] = (ender + 1) % P
    return True


# ---------------------------------------------------------------------------------------------
# Batch kernels: the rule steps over the acting games of a turn. Each checks the actions it applies
# and returns the position of the first illegal one, or -1 (the run then stops: nothing is undone).
# Kernels that allocate nothing are compiled without reference counting (see simcore/compiled.py),
# which otherwise costs atomic operations on every array passed to a rule step.
# ---------------------------------------------------------------------------------------------
@numba.njit(**NO_REFCOUNT)
def _k_face_up(up, up_len, up_counts, dream, nslots, mem, kept, g, m, slot):
    for i in range(g.shape[0]):
        if not _face_up_one(up, up_len, up_counts, dream, nslots, mem, kept, g[i], m[i], slot[i]):
            return i
    return -1


@numba.njit(**NO_REFCOUNT)
def _k_pop(deck, ptr, g, out):
    for i in range(g.shape[0]):
        out[i] = _pop_one(deck, ptr, g[i])


@numba.njit(**NO_REFCOUNT)
def _k_push(up, up_len, up_counts, g, card):
    for i in range(g.shape[0]):
        _push_up_one(up, up_len, up_counts, g[i], card[i])


@numba.njit(**NO_REFCOUNT)
def _k_drawn(up, up_len, up_counts, dream, nslots, mem, kept, g, m, card, d):
    """Exchange (d >= 0) or put face up (DISCARD -1, USE -2) each drawn card; returns (first illegal
    position or -1, how many cards are used for their action)."""
    n_use = 0
    for i in range(g.shape[0]):
        r = _drawn_one(up, up_len, up_counts, dream, nslots, mem, kept, g[i], m[i], card[i], d[i])
        if r < 0:
            return i, n_use
        n_use += r
    return -1, n_use


@numba.njit(**NO_REFCOUNT)
def _k_peek(mem, dream, nslots, g, m, pl, sl):
    for i in range(g.shape[0]):
        if not _peek_one(mem, dream, nslots, g[i], m[i], pl[i], sl[i]):
            return i
    return -1


@numba.njit(**NO_REFCOUNT)
def _k_swap(dream, mem, kept, nslots, g, pa, sa, pb, sb):
    for i in range(g.shape[0]):
        if not _swap_one(dream, mem, kept, nslots, g[i], pa[i], sa[i], pb[i], sb[i]):
            return i
    return -1


@numba.njit(**NO_REFCOUNT)
def _k_claim(deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept, g, m, a, b, v):
    for i in range(g.shape[0]):
        if not _claim_one(deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept, g[i], m[i], a[i], b[i], v[i]):
            return i
    return -1


@numba.njit(**NO_REFCOUNT)
def _k_own(mem, nslots, up, up_len, idx, me, own, own_slots, top):
    S = mem.shape[3]
    for i in range(idx.shape[0]):
        gi, mi = idx[i], me[i]
        for s in range(S):
            own[i, s] = mem[gi, mi, mi, s]
        own_slots[i] = nslots[gi, mi]
        top[i] = _VALUE_NB[up[gi, up_len[gi] - 1]]


@numba.njit(**NO_REFCOUNT)
def _k_deal(decks, idx, P, deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept):
    for i in range(idx.shape[0]):
        _deal_one(decks[i], idx[i], P, deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept)


@numba.njit(cache=True)
def _k_split(act, idx, me, nslots, kwih, order, counts):
    """Check Start codes and order the games by code (WAKE, FACE_UP, DRAW, CLAIM) into ``order``;
    ``counts`` receives how many of each. Returns the first illegal position or -1."""
    for i in range(act.shape[0]):
        if not _start_ok(act[i], nslots[idx[i], me[i]], kwih):
            return i
        counts[act[i]] += 1
    start = np.zeros(4, dtype=np.int64)
    for k in range(1, 4):
        start[k] = start[k - 1] + counts[k - 1]
    for i in range(act.shape[0]):
        order[start[act[i]]] = i
        start[act[i]] += 1
    return -1


@numba.njit(**NO_REFCOUNT)
def _k_finish(act, idx, me, P, turns, round_turns, cur, ptr, end):
    """Count the turn, pass it to the left, and list (in ``end``) the games whose round is over."""
    n = 0
    for i in range(idx.shape[0]):
        if _finish_one(idx[i], me[i], act[i], P, turns, round_turns, cur, ptr):
            end[n] = i
            n += 1
    return n


@numba.njit(cache=True)
def _k_end_round(g, caller, ender, P, dream, nslots, score, last_totals, last_points, dream_sum, called, caller_ok,
                 penalties, rounds, leader, lead_changes, done, cur, penalty, tie_count, ravens, allin, n_rounds,
                 target, nxt):
    """Score the round of each game in ``g``, update its statistics and end the game or list it in
    ``nxt`` for a new deal (returns how many)."""
    totals = np.zeros(P, dtype=np.int64)
    nines = np.zeros(P, dtype=np.int64)
    only = np.zeros(P, dtype=np.bool_)
    points = np.zeros(P, dtype=np.int64)
    k = 0
    for i in range(g.shape[0]):
        if _end_round_one(g[i], caller[i], ender[i], dream, nslots, score, last_totals, last_points, dream_sum,
                          called, caller_ok, penalties, rounds, leader, lead_changes, done, cur, penalty, tie_count,
                          ravens, allin, n_rounds, target, totals, nines, only, points):
            nxt[k] = g[i]
            k += 1
    return k


# ---------------------------------------------------------------------------------------------
# The reference policies of the rulings (``random`` and ``threshold``), one decision at a time. The
# strategies of the same names (strategies/sen.py) use them too: ``threshold`` through these functions,
# ``random`` through the same draws of its seat's random stream (one draw per decision, as
# :class:`~simcore.rng.AgentRandom`); tests check that both lanes give the same games.
# ---------------------------------------------------------------------------------------------
POLICY_RANDOM = 1
POLICY_THRESHOLD = 2


@numba.njit(cache=True, inline="always")
def threshold_scan(own, ns):
    """Own estimates in sixths (unknown = 31/6): (total, largest, its slot (lowest on ties), first
    unknown slot or -1)."""
    total, worst, w, unknown = 0, -1, 0, -1
    for s in range(ns):
        v = own[s]
        if v >= 0:
            e = v * MEAN_DEN
        else:
            e = MEAN_NUM
            if unknown < 0:
                unknown = s
        total += e
        if e > worst:
            w, worst = s, e
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


@numba.njit(cache=True, inline="always")
def _nth_land(nslots, g, k, skip):
    """The k-th existing land (player, slot) of game g in seat-then-slot order, not counting the flat
    position ``skip`` (player * S + slot, or -1)."""
    S = SLOTS
    for p in range(nslots.shape[1]):
        for s in range(nslots[g, p]):
            if p * S + s == skip:
                continue
            if k == 0:
                return p, s
            k -= 1
    return -1, -1


# ---------------------------------------------------------------------------------------------
# The card-counting heuristics of strategies/sen.py (``counter``, ``watcher``, ``swapper``,
# ``gambler``), one decision at a time. Their batch methods loop these functions over the batch of
# observations and the compiled lane calls them on the state, so both lanes play the same games.
# Arguments: ``prm`` = (take_margin, claim_gain, wake or margin, sure, cap, kept_value, swap_min, edge);
# ``own`` (S,) the player's memory of their own lands, ``ns`` their number; ``mem_me`` (P, S) what the
# player remembers of every land; ``nslots_g`` (P,), ``up_counts_g`` (10,), ``kept_g`` (P, S) public;
# ``fw`` a float scratch (4, 10).
# ---------------------------------------------------------------------------------------------
POLICY_COUNTER = 3
POLICY_WATCHER = 4
POLICY_SWAPPER = 5
POLICY_GAMBLER = 6
COUNTING_PARAMS = 8

#: copies of each value 0..9 in the deck
_DECK_COUNTS = np.array([4, 4, 4, 4, 4, 7, 7, 7, 4, 9], dtype=np.float64)
_NEG = -np.inf


@numba.njit(**NO_REFCOUNT)
def unseen_stats_one(mem_me, up_counts_g, cnt):
    """Mean and variance of the value of a card the player has not seen (neither face up nor
    remembered); 279/54 and 0 when every card is accounted for. ``cnt``: scratch (10,)."""
    for v in range(10):
        cnt[v] = up_counts_g[v]
    for p in range(mem_me.shape[0]):
        for s in range(mem_me.shape[1]):
            x = mem_me[p, s]
            if x >= 0:
                cnt[x] += 1.0
    n, t1, t2 = 0.0, 0.0, 0.0
    for v in range(10):
        left = _DECK_COUNTS[v] - cnt[v]
        if left > 0.0:
            n += left
            t1 += left * v
            t2 += left * v * v
    if n <= 0.0:
        return 279.0 / 54.0, 0.0
    mean = t1 / n
    return mean, max(t2 / n - mean * mean, 0.0)


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
    if code == POLICY_COUNTER:
        total = 0.0
        for s in range(ns):
            total += est[s]
        return total <= prm[2]
    tot, spread = fw[2], fw[3]
    dream_estimates_one(mem_me, nslots_g, kept_g, mean, var, prm[5], tot, spread)
    own = tot[me]
    if code == POLICY_GAMBLER:
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
        if code == POLICY_SWAPPER or code == POLICY_GAMBLER:
            gain = counting_swap_plan(mem_me, nslots_g, me, mean, worst)[0]
            if gain >= prm[6]:
                use = gain
    elif kind == 1:                                 # Take 2: two looks
        use = max(worst - mean, 0.0) + 0.5
    return ex, use


@numba.njit(**NO_REFCOUNT)
def _counting_start(code, prm, own, ns, mem_me, nslots_g, up_counts_g, kept_g, me, top, kwih, penalty, fw):
    """(Start code, the unseen mean it was decided on)."""
    mean, var = unseen_stats_one(mem_me, up_counts_g, fw[0])
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
    mean, _ = unseen_stats_one(mem_me, up_counts_g, fw[0])
    return _own_estimates(own, ns, mean, fw[1, :own.shape[0]])[0]


@numba.njit(**NO_REFCOUNT)
def counting_drawn(code, prm, own, ns, mem_me, nslots_g, up_counts_g, me, value, kind, fw):
    mean, _ = unseen_stats_one(mem_me, up_counts_g, fw[0])
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
    mean, _ = unseen_stats_one(mem_me, up_counts_g, fw[0])
    _, worst = _own_estimates(own, ns, mean, fw[1, :own.shape[0]])
    ex0, use0 = _counting_gains(code, prm, own, ns, mem_me, nslots_g, me, mean, worst, v0, k0)
    ex1, use1 = _counting_gains(code, prm, own, ns, mem_me, nslots_g, me, mean, worst, v1, k1)
    return 1 if max(ex1, use1) > max(ex0, use0) else 0


@numba.njit(**NO_REFCOUNT)
def counting_swap(own, ns, mem_me, nslots_g, up_counts_g, me, fw):
    """(own slot, opponent, slot): the worst own land for the best opponent land."""
    mean, _ = unseen_stats_one(mem_me, up_counts_g, fw[0])
    w, worst = _own_estimates(own, ns, mean, fw[1, :own.shape[0]])
    _, pb, sb = counting_swap_plan(mem_me, nslots_g, me, mean, worst)
    return w, pb, sb


@numba.njit(**NO_REFCOUNT)
def counting_claim(own, ns, mem_me, up_counts_g, fw):
    mean, _ = unseen_stats_one(mem_me, up_counts_g, fw[0])
    _, a, b, v = counting_best_pair(own, ns, mean)
    return a, b, v


@numba.njit(**NO_REFCOUNT)   # no reference counting: every array is the caller's
def _k_play(work, fw, codes, params, skeys, scount, deal_keys, deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept,
            score, cur, rnd, done, turns, timeout, called, caller_ok, dream_sum, penalties, round_turns, leader,
            lead_changes, last_totals, last_points, penalty, tie_count, ravens, allin, n_rounds, target, kwih, limit):
    """The compiled lane: play every game to its end, one after another, with the compiled policies of
    ``codes``/``params`` per seat; the rule steps are the functions above. Returns -1, or the game
    where a policy made an illegal move. ``work``: scratch (5, 54) int64; ``fw``: scratch (4, 10) float."""
    P = nslots.shape[1]
    S = SLOTS
    cards = work[0, :N_CARDS]
    totals = work[1, :P]
    nines = work[2, :P]
    only = work[3, :P]
    points = work[4, :P]
    for g in range(done.shape[0]):
        if ptr[g] == 0 and not done[g]:     # the first deal
            permutation_into(deal_keys[g], rnd[g], cards)
            _deal_one(cards, g, P, deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept)
        while not done[g]:
            if turns[g] >= limit:
                timeout[g] = True
                done[g] = True
                break
            me = cur[g]
            code = codes[me]
            f = g * P + me
            own = mem[g, me, me]         # the deciding player's memory of their own lands
            ns = nslots[g, me]
            prm = params[me]
            seen = mem[g, me]            # what the player remembers of every land
            top = _VALUE_NB[up[g, up_len[g] - 1]]
            if code == POLICY_THRESHOLD:
                # one look at the own lands serves the whole turn: it changes only after the last decision
                total, worst, w, unknown = threshold_scan(own, ns)
                act = _threshold_start(total, worst, top, np.int64(prm[0]) * MEAN_DEN)
            elif code == POLICY_RANDOM:
                base = draw_base(skeys, scount, f)
                act = 0 if uniform_at(base, 0) < prm[0] else (1 if uniform_at(base, 1) < 0.5 else 2)
            else:
                # the unseen mean of this decision also serves the first drawn card's: nothing it counts
                # changes in between
                act, mean = _counting_start(code, prm, own, ns, seen, nslots[g], up_counts[g], kept[g], me, top,
                                            kwih, float(penalty), fw)
            if not _start_ok(act, ns, kwih):
                return g
            if act == 1:
                if code == POLICY_THRESHOLD:
                    s = w
                elif code == POLICY_RANDOM:
                    s = integer_below(uniform_at(draw_base(skeys, scount, f), 0), ns)
                else:
                    s = counting_face_up(own, ns, seen, up_counts[g], fw)
                if not _face_up_one(up, up_len, up_counts, dream, nslots, mem, kept, g, me, s):
                    return g
            elif act == 3:
                if code < POLICY_COUNTER:
                    return g            # the reference policies never say "I know what I have"
                a, b, v = counting_claim(own, ns, seen, up_counts[g], fw)
                if not _claim_one(deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept, g, me, a, b, v):
                    return g
            elif act == 2:
                card = _pop_one(deck, ptr, g)
                first_look = True
                while True:
                    kind = _KIND_NB[card]
                    ns = nslots[g, me]
                    if code == POLICY_THRESHOLD:
                        d = _threshold_drawn(worst, w, unknown, _VALUE_NB[card], kind)
                    elif code == POLICY_RANDOM:
                        k = integer_below(uniform_at(draw_base(skeys, scount, f), 0), ns + 1 + (kind != 0))
                        d = k if k < ns else (-1 if k == ns else -2)
                    elif first_look:
                        d = _counting_drawn(code, prm, own, ns, seen, nslots[g], me, _VALUE_NB[card], kind, mean, fw)
                    else:
                        d = counting_drawn(code, prm, own, ns, seen, nslots[g], up_counts[g], me, _VALUE_NB[card], kind,
                                           fw)
                    first_look = False
                    r = _drawn_one(up, up_len, up_counts, dream, nslots, mem, kept, g, me, card, d)
                    if r < 0:
                        return g
                    if r == 0:
                        break
                    if kind == 2:       # Peek 1
                        if code == POLICY_THRESHOLD:
                            pl, sl = me, max(unknown, 0)
                        elif code != POLICY_RANDOM:
                            pl, sl = me, max(_first_unknown(own, ns), 0)
                        else:
                            total = 0
                            for p in range(P):
                                total += nslots[g, p]
                            pl, sl = _nth_land(nslots, g, integer_below(uniform_at(draw_base(skeys, scount, f), 0),
                                                                        total), -1)
                        if not _peek_one(mem, dream, nslots, g, me, pl, sl):
                            return g
                        break
                    if kind == 3:       # Swap 2
                        if code == POLICY_THRESHOLD:
                            return g    # the policy never uses Swap 2
                        if code == POLICY_RANDOM:
                            total = 0
                            for p in range(P):
                                total += nslots[g, p]
                            pa, sa = _nth_land(nslots, g, integer_below(uniform_at(draw_base(skeys, scount, f), 0),
                                                                        total), -1)
                            pb, sb = _nth_land(nslots, g, integer_below(uniform_at(draw_base(skeys, scount, f), 0),
                                                                        total - 1), pa * S + sa)
                        else:
                            pa = me
                            sa, pb, sb = counting_swap(own, ns, seen, nslots[g], up_counts[g], me, fw)
                        if not _swap_one(dream, mem, kept, nslots, g, pa, sa, pb, sb):
                            return g
                        break
                    # Take 2: draw up to two, keep one, put the other face up, resolve the kept one
                    if code == POLICY_THRESHOLD:
                        return g        # the policy never uses Take 2
                    left = N_CARDS - ptr[g]
                    if left == 0:
                        break
                    first = _pop_one(deck, ptr, g)
                    if left >= 2:
                        second = _pop_one(deck, ptr, g)
                        if code == POLICY_RANDOM:
                            keep = 1 if uniform_at(draw_base(skeys, scount, f), 0) >= 0.5 else 0
                        else:
                            keep = counting_keep(code, prm, own, nslots[g, me], seen, nslots[g], up_counts[g], me,
                                                 _VALUE_NB[first], _KIND_NB[first], _VALUE_NB[second],
                                                 _KIND_NB[second], fw)
                        if keep == 1:
                            _push_up_one(up, up_len, up_counts, g, first)
                            card = second
                        else:
                            _push_up_one(up, up_len, up_counts, g, second)
                            card = first
                    else:
                        card = first
            if _finish_one(g, me, act, P, turns, round_turns, cur, ptr):
                if _end_round_one(g, me if act == 0 else -1, me, dream, nslots, score, last_totals, last_points,
                                  dream_sum, called, caller_ok, penalties, rnd, leader, lead_changes, done, cur,
                                  penalty, tie_count, ravens, allin, n_rounds, target, totals, nines, only, points):
                    permutation_into(deal_keys[g], rnd[g], cards)
                    _deal_one(cards, g, P, deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept)
    return -1


def _i64(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


def _pad_lookup(table: np.ndarray) -> np.ndarray:
    """Lookup that maps id -1 to 0 (used as ``T[ids]`` with -1 -> last entry)."""
    return np.concatenate([table, np.zeros(1, dtype=table.dtype)])


_VALUE_PAD = _pad_lookup(VALUE)


def values_of(ids: np.ndarray) -> np.ndarray:
    """Card values of ids (-1, an empty slot, gives 0)."""
    return _VALUE_PAD[ids]


class Sen(Game):
    name: ClassVar[str] = "sen"
    title: ClassVar[str] = "Sen"
    summary: ClassVar[str] = "Dream lands with ravens; say WAKE UP! when your dream holds the fewest."
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5
    default_players: ClassVar[int] = 4
    Rules: ClassVar[type] = SenRules
    Player: ClassVar[type] = Player
    columns: ClassVar[dict[str, str]] = {
        "rounds": "rounds played",
        "called": "rounds ended by WAKE UP!",
        "caller_ok": "called rounds whose caller had the fewest ravens (ties included)",
        "penalties": "penalties given",
        "dream_sum": "sum over rounds and seats of the raw dream total at round end",
        "dream_n": "number of (round, seat) dream totals",
        "lead_changes": "times the single leader (lowest score) changed between rounds",
    }
    ratio_metrics: ClassVar[tuple[Metric, ...]] = (
        Metric("mean_rounds", "rounds"),
        Metric("mean_round_turns", "turns", "rounds"),
        Metric("wake_rate", "called", "rounds"),
        Metric("caller_success", "caller_ok", "called"),
        Metric("mean_dream_total", "dream_sum", "dream_n"),
        Metric("mean_score", "score", per_seat=True),
        Metric("penalty_rate", "penalties", "called"),
        Metric("mean_lead_changes", "lead_changes"),
    )

    # ------------------------------------------------------------------ set-up
    def new_state(self, keys: np.ndarray, players: int, rules: SenRules,
                  script: list | None = None, deal: bool = True) -> SenState:
        n = len(keys)
        z = lambda *shape, dt=np.int64: np.zeros(shape, dtype=dt)  # noqa: E731
        st = SenState(
            players=players, rules=rules, deal_keys=stream_keys(keys, STREAM_DEAL),
            deck=z(n, N_CARDS, dt=np.int8), ptr=z(n), up=np.full((n, N_CARDS), -1, np.int8), up_len=z(n),
            up_counts=z(n, 10),
            dream=np.full((n, players, SLOTS), -1, np.int8), nslots=z(n, players),
            mem=np.full((n, players, players, SLOTS), -1, np.int8), kept=np.zeros((n, players, SLOTS), bool),
            score=z(n, players),
            cur=z(n), round=z(n), done=np.zeros(n, bool), turns=z(n), timeout=np.zeros(n, bool),
            called=z(n), caller_ok=z(n), dream_sum=z(n), penalties=z(n), round_turns=z(n),
            leader=np.full(n, -1, dtype=np.int64), lead_changes=z(n), script=script,
            last_totals=z(n, players), last_points=z(n, players),
        )
        if deal:
            self._deal(st, np.arange(n))
        return st

    def new_compiled_state(self, keys: np.ndarray, players: int, rules: SenRules) -> SenState:
        return self.new_state(keys, players, rules, deal=False)  # the compiled lane deals (ptr 0: no deal yet)

    def _deal(self, st: SenState, idx: np.ndarray) -> None:
        """Shuffle and deal a new round in games ``idx`` (deal of round r depends on (game, r) only)."""
        P = st.players
        decks = permutations(st.deal_keys[idx], st.round[idx], N_CARDS).astype(np.int8)
        if st.script is not None:
            for j, g in enumerate(idx):
                r = int(st.round[g])
                if r < len(st.script) and st.script[r] is not None:
                    decks[j] = np.asarray(st.script[r])[g]
        _k_deal(decks, idx, st.players, st.deck, st.ptr, st.up, st.up_len, st.up_counts, st.dream, st.nslots,
                st.mem, st.kept)

    # ------------------------------------------------------------------ observations
    def own_view(self, st: SenState, idx: np.ndarray, me: np.ndarray):
        """(own memory (k, S), own dream size (k,), face-up top value (k,)) of seat ``me`` in games ``idx``."""
        k = len(idx)
        own = np.empty((k, SLOTS), dtype=np.int32)
        own_slots = np.empty(k, dtype=np.int32)
        top = np.empty(k, dtype=np.int32)
        _k_own(st.mem, st.nslots, st.up, st.up_len, idx, me, own, own_slots, top)
        for a in (own, own_slots, top):  # shared by the decisions of a turn: strategies must not write
            a.flags.writeable = False
        return own, own_slots, top

    def observe(self, st: SenState, idx: np.ndarray, me: np.ndarray, own=None, own_slots=None, top=None,
                **extra: Any) -> SenObs:
        """The observation of seat ``me[i]`` in game ``idx[i]``; ``own``, ``own_slots``, ``top`` may be
        handed in when the engine already holds them for these games (same values as :meth:`own_view`)."""
        if own is None:
            own, own_slots, top = self.own_view(st, idx, me)
        mem, counts, nslots, score, rnd, kept = st.mem, st.up_counts, st.nslots, st.score, st.round, st.kept
        obs = SenObs(me=me, players=st.players, mem=lambda: mem[idx, me].astype(np.int32), own=own,
                     nslots=lambda: nslots[idx].astype(np.int32), top=top, up_counts=lambda: counts[idx],
                     pile_left=N_CARDS - st.ptr[idx], scores=lambda: score[idx], round=lambda: rnd[idx],
                     rules=st.rules, kept=lambda: kept[idx], **extra)
        obs._own_slots = own_slots
        return obs

    def observe_all(self, st: SenState, idx: np.ndarray, seat: int) -> dict[str, np.ndarray]:
        me = np.full(len(idx), seat)
        o = self.observe(st, idx, me)
        o.mem, o.up_counts, o.nslots, o.scores, o.round, o.kept  # build the lazy parts
        up_vals = np.where(st.up[idx] >= 0, values_of(st.up[idx]), -1)
        return {"mem": o.mem, "kept": o.kept, "nslots": o.nslots, "top": o.top, "up_values": up_vals, "pile_left": o.pile_left,
                "scores": o.scores, "round": o.round, "cur": st.cur[idx], "turns": st.turns[idx]}

    def scramble_hidden(self, st: SenState, seat: int, draws) -> SenState:
        """A copy where every card unknown to ``seat`` (unremembered dream lands and the face-down pile)
        is permuted among those places."""
        new = copy.deepcopy(st)
        for g in np.flatnonzero(~st.done):
            places = [("d", p, s) for p in range(st.players) for s in range(st.nslots[g, p])
                      if st.mem[g, seat, p, s] < 0]
            places += [("f", i, 0) for i in range(st.ptr[g], N_CARDS)]
            cards = [st.dream[g, p, s] if k == "d" else st.deck[g, p] for k, p, s in places]
            order = draws.permutation(np.array([g]), len(cards))[0] if cards else []
            for (k, p, s), j in zip(places, order):
                if k == "d":
                    new.dream[g, p, s] = cards[j]
                else:
                    new.deck[g, p] = cards[j]
        return new

    # ------------------------------------------------------------------ a turn
    def turn(self, st: SenState, idx: np.ndarray, seats: Seats) -> None:
        P = st.players
        rules = st.rules
        me = st.cur[idx]
        obs = lambda i, m, **kw: self.observe(st, i, m, **kw)  # noqa: E731
        own, own_slots, top = self.own_view(st, idx, me)
        act = np.asarray(seats.ask("start", idx, me, obs, own=own, own_slots=own_slots, top=top), dtype=np.int64)
        # check the codes and split the games by action in one pass
        order = np.empty(len(idx), dtype=np.int64)
        counts = np.zeros(4, dtype=np.int64)
        bad = _k_split(act, idx, me, st.nslots, rules.know_what_i_have, order, counts)
        illegal(seats, "start", me, bad, "not a Start code allowed here")
        ends = np.cumsum(counts)
        fu = order[ends[0]:ends[1]]
        dr = order[ends[1]:ends[2]]
        cl = order[ends[2]:ends[3]]

        # face-up exchange
        if len(fu):
            g, m = idx[fu], me[fu]
            slot = np.asarray(seats.ask("face_up_slot", g, m, obs, own=own[fu], own_slots=own_slots[fu], top=top[fu]),
                              dtype=np.int64)
            bad = _k_face_up(st.up, st.up_len, st.up_counts, st.dream, st.nslots, st.mem, st.kept, g, m, slot)
            illegal(seats, "face_up_slot", m, bad, "no such slot")

        # draw from the face-down pile
        if len(dr):
            g, m = idx[dr], me[dr]
            card = self._pop_down(st, g)
            self._resolve_drawn(st, g, m, card, seats, (own[dr], own_slots[dr], top[dr]))

        # I know what I have
        if len(cl):
            self._claim(st, idx[cl], me[cl], seats)

        # count the turn, pass to the left; the round ends on WAKE UP! or when this turn emptied the pile
        end = np.empty(len(idx), dtype=np.int64)
        n_end = _k_finish(act, idx, me, P, st.turns, st.round_turns, st.cur, st.ptr, end)
        if n_end:
            e = end[:n_end]
            caller = np.where(act[e] == Start.WAKE, me[e], -1)
            self._end_round(st, idx[e], caller, me[e])

    def _pop_down(self, st: SenState, g: np.ndarray) -> np.ndarray:
        card = np.empty(len(g), dtype=np.int64)
        _k_pop(st.deck, st.ptr, g, card)
        return card

    def _push_up(self, st: SenState, g: np.ndarray, card: np.ndarray) -> None:
        _k_push(st.up, st.up_len, st.up_counts, g, _i64(card))

    def _resolve_drawn(self, st: SenState, g: np.ndarray, m: np.ndarray, card: np.ndarray, seats: Seats,
                       view: tuple | None = None) -> None:
        """B1/B2/B3 for a drawn card, following Take 2 chains until every game's card is resolved.
        ``view``: the players' own view at the start of the turn (unchanged by drawing)."""
        P = st.players
        obs = lambda i, mm, **kw: self.observe(st, i, mm, **kw)  # noqa: E731
        while len(g):
            value, kind = VALUE32[card], KIND32[card]
            pre = {} if view is None else {"own": view[0], "own_slots": view[1], "top": view[2]}
            view = None  # a Take 2 chain changes the face-up pile (and maybe memory): look again
            d = np.asarray(seats.ask("drawn", g, m, obs, card=value, card_kind=kind, **pre), dtype=np.int64)
            # exchange (B1); discard (B2) and use (B3) both put the card face up
            bad, n_use = _k_drawn(st.up, st.up_len, st.up_counts, st.dream, st.nslots, st.mem, st.kept, g, m, card, d)
            illegal(seats, "drawn", m, bad, "no such slot, or USE on a plain land")
            if n_use == 0:
                break
            use = d == Drawn.USE
            # Peek 1
            sel = use & (kind == Kind.PEEK)
            if sel.any():
                gp, mp = g[sel], m[sel]
                pl, sl = (_i64(a) for a in seats.ask("peek", gp, mp, obs))
                illegal(seats, "peek", mp, _k_peek(st.mem, st.dream, st.nslots, gp, mp, pl, sl), "no such position")
            # Swap 2
            sel = use & (kind == Kind.SWAP)
            if sel.any():
                gs, ms = g[sel], m[sel]
                pa, sa, pb, sb = (_i64(a) for a in seats.ask("swap", gs, ms, obs))
                illegal(seats, "swap", ms, _k_swap(st.dream, st.mem, st.kept, st.nslots, gs, pa, sa, pb, sb),
                        "positions must be two different existing lands")
            # Take 2: draw up to two, keep one, discard the other, resolve the kept one again
            sel = use & (kind == Kind.TAKE2)
            if not sel.any():
                break
            gt, mt = g[sel], m[sel]
            left = N_CARDS - st.ptr[gt]
            has = left > 0
            gt, mt, left = gt[has], mt[has], left[has]
            if not len(gt):
                break
            first = self._pop_down(st, gt)
            two = left >= 2
            kept = first.copy()
            if two.any():
                g2, m2 = gt[two], mt[two]
                second = self._pop_down(st, g2)
                offer = np.stack([first[two], second], axis=1)
                k = seats.ask("keep", g2, m2, obs, offer=VALUE32[offer], offer_kind=KIND32[offer])
                illegal(seats, "keep", m2, (k != 0) & (k != 1), "must be 0 or 1")
                kept[two] = offer[np.arange(len(g2)), k]
                self._push_up(st, g2, offer[np.arange(len(g2)), 1 - k])
            g, m, card = gt, mt, kept

    def _claim(self, st: SenState, g: np.ndarray, m: np.ndarray, seats: Seats) -> None:
        a, b, v = (_i64(x) for x in seats.ask("claim", g, m, lambda i, mm: self.observe(st, i, mm)))
        bad = _k_claim(st.deck, st.ptr, st.up, st.up_len, st.up_counts, st.dream, st.nslots, st.mem, st.kept, g, m,
                       a, b, v)
        illegal(seats, "claim", m, bad, "two different own slots and a value 0-9")

    # ------------------------------------------------------------------ the compiled lane
    def compiled_lineup(self, agents, players: int, rules: SenRules):
        return policy_table(agents, (POLICY_RANDOM, POLICY_THRESHOLD, POLICY_COUNTER, POLICY_WATCHER, POLICY_SWAPPER,
                                     POLICY_GAMBLER))

    def play_compiled(self, st: SenState, seats: Seats, lineup, limit: int) -> None:
        if st.script is not None:
            raise SenseiError("scripted deals play in the batch lane")
        codes, params = lineup
        r = st.rules
        work = np.zeros((5, N_CARDS), dtype=np.int64)
        fw = np.zeros((4, 10), dtype=np.float64)
        bad = _k_play(work, fw, codes, params, seats.draws.keys, seats.draws.counter, st.deal_keys, st.deck, st.ptr, st.up,
                      st.up_len, st.up_counts, st.dream, st.nslots, st.mem, st.kept, st.score, st.cur, st.round,
                      st.done, st.turns, st.timeout, st.called, st.caller_ok, st.dream_sum, st.penalties,
                      st.round_turns, st.leader, st.lead_changes, st.last_totals, st.last_points, r.penalty,
                      r.caller_tie == "count", r.ravens_not_scary, r.go_all_in, -1 if r.rounds is None else r.rounds,
                      r.target, r.know_what_i_have, limit)
        if bad >= 0:
            seat = int(st.cur[bad])
            raise IllegalAction(f"strategy {seats.name(seat)} (seat {seat}) made an illegal move in game {bad}")

    # ------------------------------------------------------------------ scoring
    def round_points(self, totals: np.ndarray, nines: np.ndarray, only_nines: np.ndarray, caller: np.ndarray,
                     rules: SenRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Points added this round (k, P), whether the caller was fewest (k,), whether a penalty applied (k,).

        ``totals``: raw dream totals; ``nines``: 9-lands per dream; ``only_nines``: dream is all 9s;
        ``caller``: seat that said WAKE UP! or -1. (The same scoring the engine applies at round end.)
        """
        k, P = totals.shape
        points = np.zeros((k, P), dtype=np.int64)
        flags = np.zeros((k, 2), dtype=np.bool_)
        for i in range(k):
            flags[i] = _score_round(np.asarray(totals[i], np.int64), np.asarray(nines[i], np.int64),
                                    np.asarray(only_nines[i], np.bool_), int(caller[i]), rules.penalty,
                                    rules.caller_tie == "count", rules.ravens_not_scary, rules.go_all_in, points[i])
        return points, flags[:, 0], flags[:, 1]

    def _end_round(self, st: SenState, g: np.ndarray, caller: np.ndarray, ender: np.ndarray) -> None:
        rules = st.rules
        nxt = np.empty(len(g), dtype=np.int64)
        k = _k_end_round(g, caller, ender, st.players, st.dream, st.nslots, st.score, st.last_totals, st.last_points,
                         st.dream_sum, st.called, st.caller_ok, st.penalties, st.round, st.leader, st.lead_changes,
                         st.done, st.cur, rules.penalty, rules.caller_tie == "count", rules.ravens_not_scary,
                         rules.go_all_in, -1 if rules.rounds is None else rules.rounds, rules.target, nxt)
        if k:
            self._deal(st, nxt[:k])

    # ------------------------------------------------------------------ results and checks
    def outcome(self, st: SenState) -> dict[str, np.ndarray]:
        win = tie_shares(st.score.astype(float), lower_is_better=True)
        win[st.timeout] = 0.0
        return {"score": st.score.astype(float), "win": win, "turns": st.turns.copy(), "timeout": st.timeout.copy(),
                "rounds": st.round.copy(), "called": st.called.copy(), "caller_ok": st.caller_ok.copy(),
                "penalties": st.penalties.copy(), "dream_sum": st.dream_sum.copy(),
                "lead_changes": st.lead_changes.copy(),
                "dream_n": st.round * st.players}

    def check(self, st: SenState) -> None:
        live = np.flatnonzero(~st.done)
        if not len(live):
            return
        P = st.players
        seen = np.zeros((len(live), N_CARDS + 1), dtype=np.int64)
        rows = np.arange(len(live))[:, None]
        d = st.dream[live].reshape(len(live), -1).astype(np.int64)
        np.add.at(seen, (np.broadcast_to(rows, d.shape), np.where(d >= 0, d, N_CARDS)), 1)
        up = st.up[live].astype(np.int64)
        np.add.at(seen, (np.broadcast_to(rows, up.shape), np.where(up >= 0, up, N_CARDS)), 1)
        down = np.arange(N_CARDS)[None, :] >= st.ptr[live][:, None]
        dk = np.where(down, st.deck[live], N_CARDS).astype(np.int64)
        np.add.at(seen, (np.broadcast_to(rows, dk.shape), dk), 1)
        assert (seen[:, :N_CARDS] == 1).all(), "every card must be in exactly one place"
        assert ((st.up[live] >= 0).sum(1) == st.up_len[live]).all(), "face-up pile length"
        up_vals = np.where(st.up[live] >= 0, values_of(st.up[live]), -1)
        counts = (up_vals[:, :, None] == np.arange(10)[None, None, :]).sum(1)
        assert (counts == st.up_counts[live]).all(), "face-up value counts"
        slots = np.arange(SLOTS)[None, None, :]
        occupied = st.dream[live] >= 0
        assert (occupied == (slots < st.nslots[live][:, :, None])).all(), "slots 0..nslots-1 occupied"
        assert ((st.nslots[live] >= 1) & (st.nslots[live] <= SLOTS)).all()
        truth = np.where(occupied, values_of(st.dream[live]), -1)[:, None, :, :]
        mem = st.mem[live]
        assert ((mem < 0) | (mem == truth)).all(), "a remembered value differs from the true value"
        assert (mem[np.broadcast_to(~occupied[:, None], mem.shape)] == -1).all(), "memory of an empty slot"
        assert not st.kept[live][~occupied].any(), "kept flag on an empty slot"
        assert st.ptr[live].max() < N_CARDS, "a live round with an empty face-down pile"
        assert P == st.dream.shape[1]

