"""Sen: dream lands, ravens and WAKE UP!, vectorized over a batch of games.

Rules in brief (``docs/games/sen.md`` gives them in full, with every ruling): 54 cards (values 0-8 four times, nine 9s, and the
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
# The compiled code of this file never indexes an array with a negative number, so numba leaves out
# Python's wrap-around of negative indices here (simcore/compiled.py; checked by make boundscheck):
# sensei: no negative indices
from __future__ import annotations

import copy
import dataclasses
from collections import namedtuple
from enum import IntEnum
from typing import Any, ClassVar

import numba
import numpy as np

from ..compiled import NO_REFCOUNT, REFCOUNT
from ..game import NON_NEGATIVE, SHARE, Game, Metric, answer_integers, answer_parts, out_of_range, tie_shares
from ..options import Rules, option
from ..rng import STREAM_DEAL, Stream, draw_base, permutation_into, stream_keys

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


class Decision(IntEnum):
    """The decision kinds: who decides is always the player whose turn it is (``cur``)."""
    START = 0      #: start of a turn: a :class:`Start` code
    FACE_UP = 1    #: the own slot that receives the face-up top
    DRAWN = 2      #: the drawn card: an own slot to exchange it with, :attr:`Drawn.DISCARD` or :attr:`Drawn.USE`
    KEEP = 3       #: Take 2: which of the two cards to keep (0 or 1)
    PEEK = 4       #: Peek 1: the position to look at (:func:`peek_option`)
    SWAP = 5       #: Swap 2: two different positions (:func:`swap_option`)
    CLAIM = 6      #: "I know what I have": two own slots and a value (:func:`claim_option`)


#: the option codes as plain integers (for compiled strategies)
WAKE, FACE_UP, DRAW, CLAIM = 0, 1, 2, 3
DISCARD, USE = -1, -2

#: decision kind -> the name of the numpy method / compiled decision answering it
DECISIONS = ("start", "face_up_slot", "drawn", "keep", "peek", "swap", "claim")


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

    def inert(self, players: int) -> dict[str, str]:
        return {"target": "target has no effect with rounds set"} if self.rounds is not None else {}


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
    #: scripted decks for tests (n, rounds, 54), -1 where the shuffle decides
    script: np.ndarray
    #: round totals (n, P) of the last finished round of each game (for tests and reports)
    last_totals: np.ndarray
    last_points: np.ndarray
    #: the decision each game is at (:class:`Decision`; -1 before the first deal)
    kind: np.ndarray
    #: cards of the decision: the drawn card at DRAWN ([:, 0]), the two Take 2 cards at KEEP ([:, 1:3])
    pend: np.ndarray


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
# The decision protocol (see simcore/game.py). The compiled functions below take the state tuple ``S``
# (:meth:`Sen.state_tuple`) and the rules tuple ``R`` (:meth:`Sen.rules_tuple`) and one game ``g``:
# ``begin`` deals a game's first round, ``step`` applies the option chosen at the current decision and
# runs the rules to the next decision, ``observe`` is what the deciding seat may know, ``legal`` lists
# the options. Both lanes (the generic drivers of simcore) play the game through them.
# ---------------------------------------------------------------------------------------------
# positions of the state tuple
_DONE, _TURNS, _TIMEOUT, _CUR, _KIND = 0, 1, 2, 3, 4
(_DEAL_KEYS, _DECK, _PTR, _UP, _UP_LEN, _UP_COUNTS, _DREAM, _NSLOTS, _MEM, _KEPT, _SCORE, _ROUND, _CALLED,
 _CALLER_OK, _DREAM_SUM, _PENALTIES, _ROUND_TURNS, _LEADER, _LEAD_CHANGES, _LAST_TOTALS, _LAST_POINTS, _PEND,
 _SCRIPT) = range(5, 28)
# positions of the rules tuple (the last is scratch space of the rule steps)
_R_P, _R_PENALTY, _R_TIE_COUNT, _R_RAVENS, _R_ALLIN, _R_ROUNDS, _R_TARGET, _R_KWIH, _R_WORK = range(9)

#: room for the options of a decision (Swap 2: 780 pairs of 40 positions)
MAX_OPTIONS = 2048
#: positions are numbered ``player * POSITION_STRIDE + slot``; a Swap 2 option is ``a * SWAP_STRIDE + b``
POSITION_STRIDE = SLOTS
SWAP_STRIDE = 64

#: what a compiled strategy sees at a decision (whole arrays of the batch, with its game ``g`` and seat
#: ``me``; index them ``[g, ...]`` as below). ``mem`` holds every player's memory: only ``mem[g, me]``, the
#: seat's memory (-1 unknown) of every land, is the seat's to read (another row's values are what that
#: player knows; the leak probe of the conformance suite catches a decision that reads them; which entries
#: of a row are >= 0, the lands that player remembers, is public: see the sampler below); ``nslots``, ``up``
#: / ``up_len`` (the face-up pile), ``up_counts``, ``ptr`` (the face-down pile is 54 - ptr cards),
#: ``score``, ``round`` and ``kept`` are public; ``card`` / ``card_kind`` are the drawn card's value and
#: Kind (decision DRAWN, else -1); ``offer0`` ... the two Take 2 cards (decision KEEP, else -1);
#: ``penalty``, ``kwih`` (know_what_i_have), ``tie_count`` (caller_tie = count), ``ravens``, ``allin``,
#: ``rounds`` (-1: none) and ``target`` are rule options.
SenView = namedtuple("SenView", ["g", "me", "players", "kind", "mem", "nslots", "up", "up_len", "up_counts", "ptr",
                                 "score", "round", "kept", "card", "card_kind", "offer0", "offer0_kind", "offer1",
                                 "offer1_kind", "penalty", "kwih", "tie_count", "ravens", "allin", "rounds",
                                 "target"])


@numba.njit(cache=True, inline="always")
def own_value(obs, s):
    """The deciding seat's memory of its own slot s (-1 unknown)."""
    return obs.mem[obs.g, obs.me, obs.me, s]


@numba.njit(cache=True, inline="always")
def own_lands(obs):
    """How many lands the deciding seat holds."""
    return obs.nslots[obs.g, obs.me]


@numba.njit(cache=True, inline="always")
def top_value(obs):
    """Value of the face-up top card."""
    return _VALUE_NB[obs.up[obs.g, obs.up_len[obs.g] - 1]]


@numba.njit(cache=True, inline="always")
def pile_left(obs):
    """Cards left in the face-down pile."""
    return N_CARDS - obs.ptr[obs.g]


@numba.njit(cache=True, inline="always")
def peek_option(player, slot):
    return player * POSITION_STRIDE + slot


@numba.njit(cache=True, inline="always")
def swap_option(pa, sa, pb, sb):
    return (pa * POSITION_STRIDE + sa) * SWAP_STRIDE + pb * POSITION_STRIDE + sb


@numba.njit(cache=True, inline="always")
def claim_option(a, b, v):
    return (a * SLOTS + b) * 10 + v


@numba.njit(cache=True, inline="always")
def nth_land(nslots, g, k, skip):
    """The k-th existing land (player, slot) of game g in seat-then-slot order, not counting the
    position ``skip`` (player * POSITION_STRIDE + slot, or -1)."""
    for p in range(nslots.shape[1]):
        for s in range(nslots[g, p]):
            if p * POSITION_STRIDE + s == skip:
                continue
            if k == 0:
                return p, s
            k -= 1
    return -1, -1


@numba.njit(**NO_REFCOUNT)   # once a round: a call with the arrays it needs (never the whole state tuple)
def _deal_round_one(g, P, deal_keys, rnd, script, cards, deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept,
                    kind):
    """Shuffle and lay out the round ``rnd[g]`` of game g (a scripted deck if the test gave one)."""
    r = rnd[g]
    if r < script.shape[1] and script[g, r, 0] >= 0:
        for c in range(N_CARDS):
            cards[c] = script[g, r, c]
    else:
        permutation_into(deal_keys[g], r, cards)
    _deal_one(cards, g, P, deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept)
    kind[g] = Decision.START


@numba.njit(inline="always", **NO_REFCOUNT)
def _deal_round(S, R, g):
    _deal_round_one(g, R[_R_P], S[_DEAL_KEYS], S[_ROUND], S[_SCRIPT], R[_R_WORK][0, :N_CARDS], S[_DECK], S[_PTR],
                    S[_UP], S[_UP_LEN], S[_UP_COUNTS], S[_DREAM], S[_NSLOTS], S[_MEM], S[_KEPT], S[_KIND])


@numba.njit(inline="always", **NO_REFCOUNT)
def begin(S, R, g):
    """Deal the first round of game g (nothing if it has begun or is over)."""
    if S[_KIND][g] < 0 and not S[_DONE][g]:
        _deal_round(S, R, g)


@numba.njit(**NO_REFCOUNT)
def begin_batch(S, R, idx):
    """:func:`begin` for the games ``idx``."""
    for i in range(idx.shape[0]):
        begin(S, R, idx[i])


@numba.njit(**NO_REFCOUNT)   # once a round: a call with the arrays it needs (never the whole state tuple)
def _end_round_call(g, caller, ender, dream, nslots, score, last_totals, last_points, dream_sum, called, caller_ok,
                    penalties, rnd, leader, lead_changes, done, cur, penalty, tie_count, ravens, allin, n_rounds,
                    target, w):
    P = nslots.shape[1]
    return _end_round_one(g, caller, ender, dream, nslots, score, last_totals, last_points, dream_sum, called,
                          caller_ok, penalties, rnd, leader, lead_changes, done, cur, penalty, tie_count, ravens,
                          allin, n_rounds, target, w[1, :P], w[2, :P], w[3, :P], w[4, :P])


@numba.njit(inline="always", **NO_REFCOUNT)
def _end_round(S, R, g, me, wake):
    """Score the round of game g, then deal the next one or end the game."""
    if _end_round_call(g, me if wake else -1, me, S[_DREAM], S[_NSLOTS], S[_SCORE], S[_LAST_TOTALS],
                       S[_LAST_POINTS], S[_DREAM_SUM], S[_CALLED], S[_CALLER_OK], S[_PENALTIES], S[_ROUND],
                       S[_LEADER], S[_LEAD_CHANGES], S[_DONE], S[_CUR], R[_R_PENALTY], R[_R_TIE_COUNT],
                       R[_R_RAVENS], R[_R_ALLIN], R[_R_ROUNDS], R[_R_TARGET], R[_R_WORK]):
        _deal_round(S, R, g)


@numba.njit(inline="always", **NO_REFCOUNT)
def _end_turn(S, R, g, me, wake):
    """Count the turn and pass it to the left; at the end of a round score it and deal the next one (or end
    the game). The next decision is the start of a turn."""
    S[_KIND][g] = Decision.START
    if _finish_one(g, me, 0 if wake else 1, R[_R_P], S[_TURNS], S[_ROUND_TURNS], S[_CUR], S[_PTR]):
        _end_round(S, R, g, me, wake)


@numba.njit(forceinline=True, **NO_REFCOUNT)
def step_inline(S, R, g, opt):
    """Apply option ``opt`` at game g's current decision and run the rules to the next decision.
    Returns False (changing nothing) when the option is not legal. The compiled lane's loop has it
    inlined (LLVM's ``alwaysinline``): a call copies the whole state tuple, which costs more than a turn's
    rules; :func:`step` is the same as an ordinary function."""
    kind = S[_KIND][g]
    me = S[_CUR][g]
    up, up_len, up_counts = S[_UP], S[_UP_LEN], S[_UP_COUNTS]
    dream, nslots, mem, kept = S[_DREAM], S[_NSLOTS], S[_MEM], S[_KEPT]
    deck, ptr, pend = S[_DECK], S[_PTR], S[_PEND]
    wake = False
    if kind == Decision.START:
        if not _start_ok(opt, nslots[g, me], R[_R_KWIH]):
            return False
        if opt == 1:
            S[_KIND][g] = Decision.FACE_UP
            return True
        if opt == 2:
            pend[g, 0] = _pop_one(deck, ptr, g)
            S[_KIND][g] = Decision.DRAWN
            return True
        if opt == 3:
            S[_KIND][g] = Decision.CLAIM
            return True
        wake = True                        # WAKE UP!: the turn (and the round) ends
    elif kind == Decision.FACE_UP:
        if not _face_up_one(up, up_len, up_counts, dream, nslots, mem, kept, g, me, opt):
            return False
    elif kind == Decision.DRAWN:
        card = pend[g, 0]
        r = _drawn_one(up, up_len, up_counts, dream, nslots, mem, kept, g, me, card, opt)
        if r < 0:
            return False
        pend[g, 0] = -1
        if r == 1:
            kd = _KIND_NB[card]
            if kd == 2:
                S[_KIND][g] = Decision.PEEK
                return True
            if kd == 3:
                S[_KIND][g] = Decision.SWAP
                return True
            # Take 2: draw up to two, keep one, put the other face up, resolve the kept one
            left = N_CARDS - ptr[g]
            if left == 1:
                pend[g, 0] = _pop_one(deck, ptr, g)
                S[_KIND][g] = Decision.DRAWN
                return True
            if left >= 2:
                pend[g, 1] = _pop_one(deck, ptr, g)
                pend[g, 2] = _pop_one(deck, ptr, g)
                S[_KIND][g] = Decision.KEEP
                return True
            # no card left: the turn ends
    elif kind == Decision.KEEP:
        if opt != 0 and opt != 1:
            return False
        keep, other = (pend[g, 2], pend[g, 1]) if opt == 1 else (pend[g, 1], pend[g, 2])
        _push_up_one(up, up_len, up_counts, g, other)
        pend[g, 0] = keep
        pend[g, 1] = -1
        pend[g, 2] = -1
        S[_KIND][g] = Decision.DRAWN
        return True
    elif kind == Decision.PEEK:
        if opt < 0 or not _peek_one(mem, dream, nslots, g, me, opt // POSITION_STRIDE, opt % POSITION_STRIDE):
            return False
    elif kind == Decision.SWAP:
        if opt < 0:
            return False
        a, b = opt // SWAP_STRIDE, opt % SWAP_STRIDE
        if not _swap_one(dream, mem, kept, nslots, g, a // POSITION_STRIDE, a % POSITION_STRIDE,
                         b // POSITION_STRIDE, b % POSITION_STRIDE):
            return False
    elif kind == Decision.CLAIM:
        if opt < 0:
            return False
        ab, v = opt // 10, opt % 10
        if not _claim_one(deck, ptr, up, up_len, up_counts, dream, nslots, mem, kept, g, me, ab // SLOTS,
                          ab % SLOTS, v):
            return False
    else:
        return False
    _end_turn(S, R, g, me, wake)
    return True


@numba.njit(**NO_REFCOUNT)
def step(S, R, g, opt):
    """:func:`step_inline` as an ordinary compiled function (searches, traces)."""
    return step_inline(S, R, g, opt)


@numba.njit(**NO_REFCOUNT)
def step_batch(S, R, idx, opts, missing):
    """:func:`step` for the games ``idx``: the position of the first illegal option (or ``missing``), or -1."""
    for i in range(idx.shape[0]):
        if opts[i] == missing or not step_inline(S, R, idx[i], opts[i]):
            return i
    return -1


@numba.njit(cache=True, inline="always")
def observe(S, R, g, seat):
    """What ``seat`` may know in game g at its current decision (a :data:`SenView`)."""
    kind = S[_KIND][g]
    pend = S[_PEND]
    card, ckind, o0, k0, o1, k1 = -1, -1, -1, -1, -1, -1
    if kind == Decision.DRAWN:
        card, ckind = _VALUE_NB[pend[g, 0]], _KIND_NB[pend[g, 0]]
    elif kind == Decision.KEEP:
        o0, k0 = _VALUE_NB[pend[g, 1]], _KIND_NB[pend[g, 1]]
        o1, k1 = _VALUE_NB[pend[g, 2]], _KIND_NB[pend[g, 2]]
    return SenView(g, seat, R[_R_P], kind, S[_MEM], S[_NSLOTS], S[_UP], S[_UP_LEN], S[_UP_COUNTS], S[_PTR],
                   S[_SCORE], S[_ROUND], S[_KEPT], card, ckind, o0, k0, o1, k1, R[_R_PENALTY], R[_R_KWIH],
                   R[_R_TIE_COUNT], R[_R_RAVENS], R[_R_ALLIN], R[_R_ROUNDS], R[_R_TARGET])


@numba.njit(**NO_REFCOUNT)
def legal(S, R, g, out):
    """The legal options at game g's current decision into ``out`` (length >= MAX_OPTIONS); returns
    how many. A Swap 2 or a claim names two positions in either order (``step`` takes both, the same
    action); the list holds each pair once, the earlier position first, so that no action is counted
    (or searched) twice."""
    kind = S[_KIND][g]
    me = S[_CUR][g]
    nslots = S[_NSLOTS]
    ns = nslots[g, me]
    P = R[_R_P]
    n = 0
    if S[_DONE][g]:
        return 0
    if kind == Decision.START:
        for a in range(4):
            if _start_ok(a, ns, R[_R_KWIH]):
                out[n] = a
                n += 1
    elif kind == Decision.FACE_UP:
        for s in range(ns):
            out[n] = s
            n += 1
    elif kind == Decision.DRAWN:
        for s in range(ns):
            out[n] = s
            n += 1
        out[n] = Drawn.DISCARD
        n += 1
        if _KIND_NB[S[_PEND][g, 0]] != 0:
            out[n] = Drawn.USE
            n += 1
    elif kind == Decision.KEEP:
        out[0], out[1] = 0, 1
        n = 2
    elif kind == Decision.PEEK:
        for p in range(P):
            for s in range(nslots[g, p]):
                out[n] = p * POSITION_STRIDE + s
                n += 1
    elif kind == Decision.SWAP:  # each unordered pair once, the earlier position first
        for pa in range(P):
            for sa in range(nslots[g, pa]):
                for pb in range(pa, P):
                    for sb in range(sa + 1 if pb == pa else 0, nslots[g, pb]):
                        out[n] = (pa * POSITION_STRIDE + sa) * SWAP_STRIDE + pb * POSITION_STRIDE + sb
                        n += 1
    elif kind == Decision.CLAIM:  # each pair of slots once, the lower first
        for a in range(ns):
            for b in range(a + 1, ns):
                for v in range(10):
                    out[n] = (a * SLOTS + b) * 10 + v
                    n += 1
    return n


# ----------------------------------------------------------------------------------------------------
# determinization (the search player, ``simcore/search.py``): a whole game built from one seat's view
#
# What a seat has seen: its memory of every land (values only: a remembered 5 may be a plain 5 or a
# Take 2), the face-up pile (card by card), the pile sizes, the scores, which lands were taken from the
# face-down pile (``kept``), and the card it has just drawn (or the two Take 2 cards). The sampler gives
# every remembered land a card of that value, and deals the cards left (neither face up, nor pending, nor
# remembered) at random to the unknown lands and the face-down pile. Which lands each other seat
# remembers is public, though the values are not: every event that teaches or moves a memory is seen by
# the table (the deal's look at slots 0 and 1, a land taken from either pile, a Peek's position, a
# Swap's positions, a claim). So the sample lets each other seat remember exactly the lands it
# remembers, each with the value of the card sampled there: the view's ``mem[g, v]`` is read for its
# sign only (>= 0: remembered), never for its values (docs/search.md).

@numba.njit(cache=True, **REFCOUNT)
def scratch(ob):
    """A fresh one-game state tuple and rules tuple shaped like the engine's, for the game of view ``ob``
    (the search's private copy; :func:`sample` fills it)."""
    P = ob.players
    S = (np.zeros(1, dtype=np.bool_), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.bool_),
         np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint64),
         np.zeros((1, N_CARDS), dtype=np.int8), np.zeros(1, dtype=np.int64), np.full((1, N_CARDS), -1, dtype=np.int8),
         np.zeros(1, dtype=np.int64), np.zeros((1, 10), dtype=np.int64), np.full((1, P, SLOTS), -1, dtype=np.int8),
         np.zeros((1, P), dtype=np.int64), np.full((1, P, P, SLOTS), -1, dtype=np.int8),
         np.zeros((1, P, SLOTS), dtype=np.bool_), np.zeros((1, P), dtype=np.int64), np.zeros(1, dtype=np.int64),
         np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
         np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.full(1, -1, dtype=np.int64),
         np.zeros(1, dtype=np.int64), np.zeros((1, P), dtype=np.int64), np.zeros((1, P), dtype=np.int64),
         np.full((1, 3), -1, dtype=np.int64), np.full((1, 0, N_CARDS), -1, dtype=np.int8))
    R = (np.int64(P), np.int64(ob.penalty), ob.tie_count, ob.ravens, ob.allin, np.int64(ob.rounds),
         np.int64(ob.target), ob.kwih, np.zeros((5, N_CARDS), dtype=np.int64))
    return S, R


@numba.njit(cache=True, inline="always")
def n_seats(ob):
    return np.int64(ob.players)


@numba.njit(cache=True, inline="always")
def _take_card(free, value, kind):
    """A card of ``value`` (and of ``kind``, or any kind if -1) still in ``free`` (1 = not placed): the
    first one; -1 if none."""
    for c in range(N_CARDS):
        if free[c] and _VALUE_NB[c] == value and (kind < 0 or _KIND_NB[c] == kind):
            free[c] = 0
            return c
    return -1


@numba.njit(cache=True, inline="always")
def sample(ob, rs, S, R):
    """Write into game 0 of the one-game state ``S`` a determinization of view ``ob`` (see above). ``rs``
    is the search's random stream (:data:`simcore.rng.Stream`; its ``iw`` rows 0 to 3 are used)."""
    g, me, P = ob.g, ob.me, ob.players
    free = rs.iw[0]
    for c in range(N_CARDS):
        free[c] = 1
    S[_DONE][0] = False
    S[_TIMEOUT][0] = False
    S[_TURNS][0] = 0
    S[_CUR][0] = me
    S[_KIND][0] = ob.kind
    S[_DEAL_KEYS][0] = draw_base(rs.keys, rs.counter, rs.f)
    S[_PTR][0] = ob.ptr[g]
    S[_ROUND][0] = ob.round[g]
    S[_ROUND_TURNS][0] = 0
    n_up = ob.up_len[g]
    S[_UP_LEN][0] = n_up
    for c in range(N_CARDS):
        x = ob.up[g, c]
        S[_UP][0, c] = x
        if c < n_up and x >= 0:
            free[x] = 0
    for v in range(10):
        S[_UP_COUNTS][0, v] = ob.up_counts[g, v]
    for p in range(P):
        S[_SCORE][0, p] = ob.score[g, p]
        S[_NSLOTS][0, p] = ob.nslots[g, p]
        S[_LAST_TOTALS][0, p] = 0
        S[_LAST_POINTS][0, p] = 0
    # the pending cards: their value and kind are seen, so the card is one of those
    for j in range(3):
        S[_PEND][0, j] = -1
    if ob.kind == Decision.DRAWN:
        S[_PEND][0, 0] = _take_card(free, ob.card, ob.card_kind)
    elif ob.kind == Decision.KEEP:
        S[_PEND][0, 1] = _take_card(free, ob.offer0, ob.offer0_kind)
        S[_PEND][0, 2] = _take_card(free, ob.offer1, ob.offer1_kind)
    # remembered lands get a card of their value (a random one of those left: shuffle the order first)
    order = rs.iw[1][:N_CARDS]
    permutation_into(draw_base(rs.keys, rs.counter, rs.f), 0, order)
    unknown = 0
    for p in range(P):
        for sl in range(SLOTS):
            S[_DREAM][0, p, sl] = -1
            S[_KEPT][0, p, sl] = ob.kept[g, p, sl]
            if sl >= ob.nslots[g, p]:
                continue
            v = ob.mem[g, me, p, sl]
            if v < 0:
                unknown += 1
                continue
            got = -1
            for t in range(N_CARDS):
                c = order[t]
                if free[c] and _VALUE_NB[c] == v:
                    free[c] = 0
                    got = c
                    break
            S[_DREAM][0, p, sl] = got
    # the cards left go to the unknown lands and the face-down pile, shuffled
    pool = rs.iw[2]
    n = 0
    for c in range(N_CARDS):
        if free[c]:
            pool[n] = c
            n += 1
    perm = rs.iw[3][:n]
    permutation_into(draw_base(rs.keys, rs.counter, rs.f), 0, perm)
    t = 0
    for p in range(P):
        for sl in range(ob.nslots[g, p]):
            if S[_DREAM][0, p, sl] < 0 and t < n:
                S[_DREAM][0, p, sl] = pool[perm[t]]
                t += 1
    for c in range(N_CARDS):
        S[_DECK][0, c] = -1
    for k in range(ob.ptr[g], N_CARDS):
        if t < n:
            S[_DECK][0, k] = pool[perm[t]]
            t += 1
    # what each seat remembers: which lands it remembers is public (only the sign of another seat's row is
    # read), and a remembered land's value is that of the card sampled there
    for v in range(P):
        for p in range(P):
            for sl in range(SLOTS):
                x = -1
                if sl < ob.nslots[g, p]:
                    if v == me:
                        x = ob.mem[g, me, p, sl]
                    elif ob.mem[g, v, p, sl] >= 0:
                        x = _VALUE_NB[S[_DREAM][0, p, sl]]
                S[_MEM][0, v, p, sl] = x


@numba.njit(cache=True, inline="always")
def label(S, R, g, opt, viewer):
    """What ``viewer`` sees of option ``opt``: the option itself (a slot, a position, a source: every
    seat sees them), and, at the viewer's own drawn card or Take 2, the card(s) it sees."""
    kind = S[_KIND][g]
    seen = 0
    if S[_CUR][g] == viewer:
        pend = S[_PEND]
        if kind == Decision.DRAWN:
            seen = 1 + _VALUE_NB[pend[g, 0]] * 4 + _KIND_NB[pend[g, 0]]
        elif kind == Decision.KEEP:
            seen = 1 + (_VALUE_NB[pend[g, 1]] * 4 + _KIND_NB[pend[g, 1]]) * 64 + _VALUE_NB[pend[g, 2]] * 4 \
                + _KIND_NB[pend[g, 2]]
    return np.int64(opt + 8) + np.int64(seen) * 4096


@numba.njit(cache=True, inline="always")
def stop(S, R, g, ob):
    """The search's horizon: the end of the round being played (or of the game)."""
    return S[_DONE][g] or S[_ROUND][g] != ob.round[ob.g]


#: the score difference that is worth odds of e to 1 in the value of a round's end
VALUE_SCALE = 10.0


@numba.njit(cache=True, inline="always")
def value(S, R, g, ob, out):
    """Each seat's reward at the horizon: its win share once the game is over; at the end of a round,
    1 / (1 + exp((own score - the others' mean score) / VALUE_SCALE)) on the scores after the round (the
    fewest total wins). A rollout cut before the round ends (the search's ``horizon``) is valued the
    same way on the scores the round would give if it ended there with nobody having called (the lands
    of the rollout's state, the reward of ravens_not_scary and go_all_in included)."""
    P = R[_R_P]
    sc = S[_SCORE]
    if not S[_DONE][g] and S[_ROUND][g] == ob.round[ob.g]:
        w = R[_R_WORK]
        dream, nslots = S[_DREAM], S[_NSLOTS]
        for p in range(P):
            t, n9 = 0, 0
            for s in range(nslots[g, p]):
                v = _VALUE_NB[dream[g, p, s]]
                t += v
                n9 += 1 if v == 9 else 0
            w[1, p], w[2, p] = t, n9
            w[3, p] = 1 if nslots[g, p] >= 1 and n9 == nslots[g, p] else 0
        _score_round(w[1, :P], w[2, :P], w[3, :P], -1, R[_R_PENALTY], R[_R_TIE_COUNT], R[_R_RAVENS], R[_R_ALLIN],
                     w[4, :P])
        tot = 0.0
        for p in range(P):
            tot += sc[g, p] + w[4, p]
        for p in range(P):
            mine = sc[g, p] + w[4, p]
            others = (tot - mine) / (P - 1)
            out[p] = 1.0 / (1.0 + np.exp((mine - others) / VALUE_SCALE))
        return
    if S[_DONE][g]:
        best = sc[g, 0]
        for p in range(P):
            best = min(best, sc[g, p])
        k = 0
        for p in range(P):
            k += 1 if sc[g, p] == best else 0
        for p in range(P):
            out[p] = 1.0 / k if sc[g, p] == best else 0.0
        return
    tot = 0.0
    for p in range(P):
        tot += sc[g, p]
    for p in range(P):
        others = (tot - sc[g, p]) / (P - 1)
        out[p] = 1.0 / (1.0 + np.exp((sc[g, p] - others) / VALUE_SCALE))


@numba.njit(cache=True)
def _k_sample_many(S, R, g, seat, keys, n, dreams, decks, mems):
    ob = observe(S, R, g, seat)
    S1, R1 = scratch(ob)
    counter = np.zeros(1, dtype=np.int64)
    rs = Stream(keys, counter, 0, np.zeros((16, 64), dtype=np.float64), np.zeros((16, 64), dtype=np.int64))
    for t in range(n):
        sample(ob, rs, S1, R1)
        dreams[t] = S1[_DREAM][0]
        decks[t] = S1[_DECK][0]
        mems[t] = S1[_MEM][0]


@numba.njit(**NO_REFCOUNT)
def _k_own(mem, nslots, up, up_len, idx, me, own, own_slots, top):
    S = mem.shape[3]
    for i in range(idx.shape[0]):
        gi, mi = idx[i], me[i]
        for s in range(S):
            own[i, s] = mem[gi, mi, mi, s]
        own_slots[i] = nslots[gi, mi]
        top[i] = _VALUE_NB[up[gi, up_len[gi] - 1]]


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
    score_better: ClassVar[str] = "min"  # the fewest ravens win
    Rules: ClassVar[type] = SenRules
    Player: ClassVar[type] = Player
    decisions: ClassVar[tuple[str, ...]] = DECISIONS
    kernels: ClassVar[str] = "simcore.games.sen"
    step_inline: ClassVar[bool] = True

    def game_length(self, rules: Any) -> int:
        """``rounds``, else ``target`` (a round takes about 17 turns, so the turn limit this sets binds no
        game that ends by its rules)."""
        return int(rules.rounds if rules.rounds is not None else rules.target)

    columns: ClassVar[dict[str, str]] = {
        "rounds": "rounds played",
        "called": "rounds ended by WAKE UP!",
        "caller_ok": "called rounds whose caller had the fewest ravens (ties included)",
        "penalties": "called rounds whose caller did not hold the fewest (the penalty applies, even at 0)",
        "dream_sum": "sum over rounds and seats of the raw dream total at round end",
        "dream_n": "number of (round, seat) dream totals",
        "lead_changes": "times the single leader (lowest score) changed between rounds",
    }
    #: every column counts or sums ravens (never negative)
    column_ranges: ClassVar[dict[str, tuple]] = {name: NON_NEGATIVE for name in ("score", *columns)}
    ratio_metrics: ClassVar[tuple[Metric, ...]] = (
        Metric("mean_rounds", "rounds", meaning="rounds per game"),
        Metric("mean_round_turns", "turns", "rounds", meaning="turns per round"),
        Metric("wake_rate", "called", "rounds", bounds=SHARE,
               meaning="share of rounds ended by a WAKE UP!, whoever called it (the rest ended by the empty pile)"),
        Metric("caller_success", "caller_ok", "called", bounds=SHARE,
               meaning="share of called rounds in which the caller had the fewest ravens, ties included"),
        Metric("mean_dream_total", "dream_sum", "dream_n"),
        Metric("mean_score", "score", per_seat=True),
        Metric("penalty_rate", "penalties", "called", bounds=SHARE),
        Metric("mean_lead_changes", "lead_changes"),
    )

    # ------------------------------------------------------------------ set-up
    def new_state(self, keys: np.ndarray, players: int, rules: SenRules,
                  script: list | None = None, deal: bool = True) -> SenState:
        """A fresh batch, one game per key; ``deal`` runs ``begin`` (the first deal) at once.

        ``script`` (tests): a list, per round, of (n, 54) decks (or None) used instead of the shuffle."""
        n = len(keys)
        z = lambda *shape, dt=np.int64: np.zeros(shape, dtype=dt)  # noqa: E731
        rounds = 0 if script is None else len(script)
        decks = np.full((n, rounds, N_CARDS), -1, dtype=np.int8)
        for r, d in enumerate(script or []):
            if d is not None:
                decks[:, r] = np.asarray(d, dtype=np.int8)
        st = SenState(
            players=players, rules=rules, deal_keys=stream_keys(keys, STREAM_DEAL),
            deck=z(n, N_CARDS, dt=np.int8), ptr=z(n), up=np.full((n, N_CARDS), -1, np.int8), up_len=z(n),
            up_counts=z(n, 10),
            dream=np.full((n, players, SLOTS), -1, np.int8), nslots=z(n, players),
            mem=np.full((n, players, players, SLOTS), -1, np.int8), kept=np.zeros((n, players, SLOTS), bool),
            score=z(n, players),
            cur=z(n), round=z(n), done=np.zeros(n, bool), turns=z(n), timeout=np.zeros(n, bool),
            called=z(n), caller_ok=z(n), dream_sum=z(n), penalties=z(n), round_turns=z(n),
            leader=np.full(n, -1, dtype=np.int64), lead_changes=z(n), script=decks,
            last_totals=z(n, players), last_points=z(n, players),
            kind=np.full(n, -1, dtype=np.int64), pend=np.full((n, 3), -1, dtype=np.int64),
        )
        if deal:
            begin_batch(self.state_tuple(st), self.rules_tuple(st), np.arange(n, dtype=np.int64))
        return st

    def new_batch(self, keys: np.ndarray, players: int, rules: SenRules) -> SenState:
        return self.new_state(keys, players, rules, deal=False)  # the drivers deal (``begin``)

    def state_tuple(self, st: SenState) -> tuple:
        return (st.done, st.turns, st.timeout, st.cur, st.kind, st.deal_keys, st.deck, st.ptr, st.up, st.up_len,
                st.up_counts, st.dream, st.nslots, st.mem, st.kept, st.score, st.round, st.called, st.caller_ok,
                st.dream_sum, st.penalties, st.round_turns, st.leader, st.lead_changes, st.last_totals,
                st.last_points, st.pend, st.script)

    def rules_tuple(self, st: SenState) -> tuple:
        r = st.rules
        return (np.int64(st.players), np.int64(r.penalty), r.caller_tie == "count", bool(r.ravens_not_scary),
                bool(r.go_all_in), np.int64(-1 if r.rounds is None else r.rounds), np.int64(r.target),
                bool(r.know_what_i_have), np.zeros((5, N_CARDS), dtype=np.int64))

    def sample_hidden(self, st: SenState, g: int, seat: int, key: int, n: int) -> dict[str, np.ndarray]:
        """``n`` determinizations of game ``g`` from ``seat``'s view (the search's sampler), drawn with the
        random stream of ``key``: their dreams (n, P, 8), face-down piles (n, 54) and memories (n, P, P, 8)."""
        P = st.players
        dreams = np.empty((n, P, SLOTS), dtype=np.int8)
        decks = np.empty((n, N_CARDS), dtype=np.int8)
        mems = np.empty((n, P, P, SLOTS), dtype=np.int8)
        _k_sample_many(self.state_tuple(st), self.rules_tuple(st), np.int64(g), np.int64(seat),
                       np.array([key], dtype=np.uint64), np.int64(n), dreams, decks, mems)
        return {"dream": dreams, "deck": decks, "mem": mems}

    # ------------------------------------------------------------------ observations
    def own_view(self, st: SenState, idx: np.ndarray, me: np.ndarray):
        """(own memory (k, S), own dream size (k,), face-up top value (k,)) of seat ``me`` in games ``idx``."""
        k = len(idx)
        own = np.empty((k, SLOTS), dtype=np.int32)
        own_slots = np.empty(k, dtype=np.int32)
        top = np.empty(k, dtype=np.int32)
        _k_own(st.mem, st.nslots, st.up, st.up_len, idx, me, own, own_slots, top)
        for a in (own, own_slots, top):  # strategies must not write
            a.flags.writeable = False
        return own, own_slots, top

    def observe(self, st: SenState, idx: np.ndarray, me: np.ndarray, own=None, own_slots=None, top=None,
                **extra: Any) -> SenObs:
        """The observation of seat ``me[i]`` in game ``idx[i]`` at its current decision: the drawn card
        (``card``, ``card_kind``) at DRAWN, the Take 2 cards (``offer``, ``offer_kind``) at KEEP."""
        idx = np.asarray(idx, dtype=np.int64)
        me = np.asarray(me, dtype=np.int64)
        if own is None:
            own, own_slots, top = self.own_view(st, idx, me)
        kind = st.kind[idx]
        if not extra:
            if (kind == Decision.DRAWN).any():
                c = np.where(kind == Decision.DRAWN, st.pend[idx, 0], 0)
                extra = {"card": VALUE32[c], "card_kind": KIND32[c]}
            elif (kind == Decision.KEEP).any():
                o = np.where((kind == Decision.KEEP)[:, None], st.pend[idx, 1:3], 0)
                extra = {"offer": VALUE32[o], "offer_kind": KIND32[o]}
        mem, counts, nslots, score, rnd, kept = st.mem, st.up_counts, st.nslots, st.score, st.round, st.kept
        obs = SenObs(me=me, players=st.players, mem=lambda: mem[idx, me].astype(np.int32), own=own,
                     nslots=lambda: nslots[idx].astype(np.int32), top=top, up_counts=lambda: counts[idx],
                     pile_left=N_CARDS - st.ptr[idx], scores=lambda: score[idx], round=lambda: rnd[idx],
                     rules=st.rules, kept=lambda: kept[idx], **extra)
        obs._own_slots = own_slots
        return obs

    def option_text(self, kind: int, opt: int) -> str:
        """A PEEK, SWAP or CLAIM code as what the strategy named (``option 15 (player 1, slot 7)``)."""
        if opt < 0 or opt >= 1 << 20:
            return f"option {opt}"
        if kind == Decision.PEEK:
            return f"option {opt} (player {opt // POSITION_STRIDE}, slot {opt % POSITION_STRIDE})"
        if kind == Decision.SWAP:
            (pa, sa), (pb, sb) = (divmod(x, POSITION_STRIDE) for x in divmod(opt, SWAP_STRIDE))
            return f"option {opt} (player {pa}'s slot {sa} with player {pb}'s slot {sb})"
        if kind == Decision.CLAIM:
            (a, b), v = divmod(opt // 10, SLOTS), opt % 10
            return f"option {opt} (slots {a} and {b} as {v})"
        return f"option {opt}"

    def encode(self, kind: int, result: Any, st: SenState, idx: np.ndarray) -> np.ndarray:
        """Option codes from a numpy strategy's answers: (player, slot) for PEEK, (player_a, slot_a,
        player_b, slot_b) for SWAP, (slot_a, slot_b, value) for CLAIM, one integer otherwise."""
        name = self.decisions[kind]
        P = st.players
        if kind == Decision.PEEK:
            pl, sl = answer_parts(result, 2, name, "(player, slot)")
            out_of_range(name, "(player, slot)", (pl, sl), (pl >= 0) & (pl < P) & (sl >= 0) & (sl < SLOTS),
                         f"players 0..{P - 1}, slots 0..{SLOTS - 1}")
            return pl * POSITION_STRIDE + sl
        if kind == Decision.SWAP:
            pa, sa, pb, sb = answer_parts(result, 4, name, "(player_a, slot_a, player_b, slot_b)")
            ok = (pa >= 0) & (pb >= 0) & (pa < P) & (pb < P) & (sa >= 0) & (sb >= 0) & (sa < SLOTS) & (sb < SLOTS)
            out_of_range(name, "(player_a, slot_a, player_b, slot_b)", (pa, sa, pb, sb), ok,
                         f"players 0..{P - 1}, slots 0..{SLOTS - 1}")
            return (pa * POSITION_STRIDE + sa) * SWAP_STRIDE + pb * POSITION_STRIDE + sb
        if kind == Decision.CLAIM:
            a, b, v = answer_parts(result, 3, name, "(slot_a, slot_b, value)")
            ok = (a >= 0) & (b >= 0) & (a < SLOTS) & (b < SLOTS) & (v >= 0) & (v <= 9)
            out_of_range(name, "(slot_a, slot_b, value)", (a, b, v), ok, f"slots 0..{SLOTS - 1}, values 0..9")
            return (a * SLOTS + b) * 10 + v
        return answer_integers(result, name)

    def observe_all(self, st: SenState, idx: np.ndarray, seat: int) -> dict[str, np.ndarray]:
        me = np.full(len(idx), seat)
        o = self.observe(st, idx, me)
        o.mem, o.up_counts, o.nslots, o.scores, o.round, o.kept  # build the lazy parts
        up_vals = np.where(st.up[idx] >= 0, values_of(st.up[idx]), -1)
        mine = st.cur[idx] == seat
        card = np.where(mine & (st.kind[idx] == Decision.DRAWN), values_of(st.pend[idx, 0]), -1)
        offer = np.where((mine & (st.kind[idx] == Decision.KEEP))[:, None], values_of(st.pend[idx, 1:3]), -1)
        return {"mem": o.mem, "kept": o.kept, "nslots": o.nslots, "top": o.top, "up_values": up_vals,
                "pile_left": o.pile_left, "scores": o.scores, "round": o.round, "cur": st.cur[idx],
                "turns": st.turns[idx], "kind": st.kind[idx], "card": card, "offer": offer}

    def scramble_hidden(self, st: SenState, seat: int, draws) -> SenState:
        """A copy where every card unknown to ``seat`` (unremembered dream lands, the face-down pile, and a
        drawn or offered card it is not the one to decide on) is permuted among those places. What the
        other players remember of a permuted land follows the card that is there now (their memories are
        as hidden from ``seat`` as the card, and a player's memory always equals the truth), so the
        copy is a state the game could be in, and a decision that read another player's memory would
        change."""
        new = copy.deepcopy(st)
        for g in np.flatnonzero(~st.done):
            places = [("d", p, s) for p in range(st.players) for s in range(st.nslots[g, p])
                      if st.mem[g, seat, p, s] < 0]
            places += [("f", i, 0) for i in range(st.ptr[g], N_CARDS)]
            if st.cur[g] != seat:
                places += [("p", j, 0) for j in range(3) if st.pend[g, j] >= 0]
            cards = [st.dream[g, p, s] if k == "d" else (st.deck[g, p] if k == "f" else st.pend[g, p])
                     for k, p, s in places]
            order = draws.permutation(np.array([g]), len(cards))[0] if cards else []
            for (k, p, s), j in zip(places, order):
                if k == "d":
                    new.dream[g, p, s] = cards[j]
                    known = new.mem[g, :, p, s] >= 0
                    new.mem[g, known, p, s] = VALUE[cards[j]]
                elif k == "f":
                    new.deck[g, p] = cards[j]
                else:
                    new.pend[g, p] = cards[j]
        return new

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
        pd = np.where(st.pend[live] >= 0, st.pend[live], N_CARDS)  # a drawn or offered card in a turn
        np.add.at(seen, (np.broadcast_to(rows, pd.shape), pd), 1)
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
        at_start = live[st.kind[live] == Decision.START]
        assert (st.ptr[at_start] < N_CARDS).all(), "a turn starts with an empty face-down pile"
        assert ((st.kind[live] >= 0) & (st.kind[live] < len(DECISIONS))).all(), "every live game is at a decision"
        holds = st.pend[live] >= 0
        kind = st.kind[live][:, None]
        assert (holds[:, :1] == (kind == Decision.DRAWN)).all(), "a drawn card is pending exactly at DRAWN"
        assert (holds[:, 1:] == (kind == Decision.KEEP)).all(), "two Take 2 cards are pending exactly at KEEP"
        assert P == st.dream.shape[1]

