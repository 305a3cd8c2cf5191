"""Sensu (dV Giochi, 2023): collect hand cards summing to exactly 20, redeem them into fans of sticks.

Rules in brief (``docs/games/sensu.md`` gives them in full, with every ruling):

* 90 cards: three fan types (0 Gun-sen, 1 Hi-ogi, 2 Mai-ougi), each with values 1..9 in copies A, B, C
  and three wild cards 1/2/3, 4/5/6, 7/8/9. 4-5 players use all 90; 2-3 players drop copy B (63);
  solo uses copy A only (27). Each card has sticks (option ``sticks``: a value->sticks table; wilds 1).
* Each player holds 5 cards. A turn is one action: **Draw** (top of the deck or of any discard pile,
  then discard down to 5 onto one's own pile) or **Play** a combination: >= 2 hand cards, at most one
  wild, summing to exactly 20. Redeem the card with the most sticks, plus one bonus card for a pair of
  equal printed numbers and one for >= 3 cards of one type (each bonus: the fewest sticks among the rest);
  the rest go onto one's pile in a chosen order; redeemed cards are placed in a chosen order on the fan
  of their type if it stays <= 10 sticks (a fan at exactly 10 is closed), otherwise discarded.
* The moment the deck is empty all discard piles are shuffled into a new deck (so between actions an
  empty deck means every pile is empty). The first player to close two fans wins at once; option
  ``max_turns`` stops a game without a winner (a timeout).
* Variant ``powers``: a fan's power triggers when its second power-symbol card is added (Hi-ogi Wisdom:
  draw 3 cards; Mai-ougi Harmony: put the top of any discard pile onto your fan if it fits; Gun-sen
  Courage: remove the last, symbol-less card of one unclosed fan of each opponent). Variant
  ``chosen_fan``: a dealt closed-fan card names the type to close first; other fans cannot reach 10.
* Solo (``players=1``): 27 cards, a discard pile and four columns; draw a card onto the pile or a column,
  or play a 3-5 card combination from the exposed cards (pile top, column ends, one per place). Ends at
  the third closed fan or when the deck is empty and the player plays no more; score = sticks in fans
  (+ the deck's sticks if all three are closed).

Array layout (first axis = game, ``n`` games, ``P`` players; card ids are int8, ``-1`` = no card):

* card ``c`` in 0..89: type ``c // 30``; ``j = c % 30``: ``j < 27`` is value ``j // 3 + 1`` of copy
  ``"ABC"[j % 3]``; ``j`` = 27, 28, 29 the wilds 1/2/3, 4/5/6, 7/8/9. Per-card tables ``CARD_*`` have 91
  entries, the last one for ``-1`` (no card), so ``TABLE[cards]`` works on padded arrays.
* ``deck`` (n, D) with ``deck_n`` (n,): the top card is ``deck[g, deck_n[g] - 1]``.
* ``hand`` (n, P, 8) with ``hand_n`` (n, P): cards packed at the front in the order they were taken.
* ``pile`` (n, P, D) with ``pile_n`` (n, P): discard piles, top last (solo: P = 1, the one pile).
* ``fan`` (n, P, 3, 10) with ``fan_n``, ``fan_sticks``, ``closed``, ``fan_power`` (n, P, 3): fans by type,
  cards in placement order; a fan's power fires when ``fan_power`` reaches 2.
* ``columns`` (n, 4, 27) with ``col_n`` (n, 4): solo columns, exposed card last (empty outside solo).
* ``chosen`` (n, P) chosen fan type (-1 outside the variant); ``cf_deck`` (n, 15) / ``cf_n`` the face-down
  closed-fan deck (types), ``cf_disc`` (n, 3) counts of its discarded cards.
* ``limbo`` (n, 3): redeemed cards left unplaced when the game ended during building.
* the public record of the hands (multiplayer; in the view, for the search's sampler): ``held`` (n, 90) the
  seat known to hold each card (taken from a face-up pile, not played or discarded since; -1), ``fresh``
  (n, 90) the card went into the deck at the last reshuffle (all True before the first), ``drawn`` (n, P)
  the hidden cards each seat drew from the deck since the last reshuffle.
* the decision: ``current`` (n,) the seat that decides (always the seat whose turn it is), ``kind`` (n,)
  the :class:`Decision`; ``combo`` (n,) the combination being arranged; ``red`` (n, 6) with ``red_j`` /
  ``red_k`` (n,) the redeemed cards still to be placed (``red[g, red_j:red_k]``; at ARRANGE ``red_k`` is
  the number the combination redeems); ``pend`` (n,) the solo card drawn and not yet placed;
  ``wisdom_left`` (n,) the cards Wisdom still draws.

The decision protocol (see ``simcore/game.py``): the state says per game which seat decides and which
:class:`Decision` it is; ``observe`` is what that seat may know (:data:`SensuView` in compiled code,
:class:`SensuObs` for numpy strategies), ``legal`` lists the options, ``step`` applies one option and runs
the rules to the next decision. Option codes:

* ``TURN`` (multiplayer): ``DECK`` (0), ``PILE + s`` (the top of seat s's pile), ``PASS`` (7, only when
  nothing can be drawn) or ``PLAY + mask`` (64 + a bit set over the 6 hand slots that is a combination).
* ``DISCARD``: the hand slot to discard (asked after a draw while the hand holds more than 5 cards).
* ``ARRANGE``: the combination's slots in order, the redeemed ones first in build order, then the others in
  discard order (the last ends on top): :func:`arrange_option` (3 bits per position, slot + 1).
* ``WISDOM``: the source of one card (0 the deck, 1 + s seat s's pile), asked for each of three cards.
* ``HARMONY``: the seat whose pile top goes onto a fan (only tops that fit are options).
* ``COURAGE``: per opponent the fan type whose last card is removed, or none where nothing may be removed:
  :func:`courage_option` (2 bits per seat, type + 1).
* ``SOLO_TURN``: ``DRAW`` (0; with an empty deck it ends the game, not a turn) or ``PLAY + mask`` (a bit
  set over the places 0 = pile top, 1..4 = column ends). ``PLACE``: where the card drawn goes, 0 the pile,
  1..4 a column.

Rule steps are written once, each a compiled function of one game (``_draw_one``, ``_discard_one``,
``_refill_one``, ``_take_hand_one``, ``_place_one``, ``_new_chosen_one``, ``_courage_one``, ...); ``step``
chains them. Both lanes of ``simcore.game`` play every game through ``begin`` / ``observe`` / ``step``.
The search player's hooks (``scratch``, ``sample``, ``label``, ``stop``, ``value``, ``n_seats``; see
``simcore/search.py``) build a whole game from one seat's view. No strategy lives here: the strategies (``strategies/sensu.py``) are compiled decisions over
:data:`SensuView` or numpy methods over :class:`SensuObs`.
"""
# The compiled code of this file never indexes an array with a negative number, so numba leaves out
# Python's wrap-around of negative indices here (simcore/compiled.py; checked by make boundscheck):
# sensei: no negative indices
from __future__ import annotations

import copy
from collections import namedtuple
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar

import numba
import numpy as np

from simcore.compiled import NO_REFCOUNT, REFCOUNT
from simcore.errors import SenseiError
from simcore.game import NON_NEGATIVE, SHARE, Game, Metric, answer_integers, answer_rows
from simcore.options import Rules, option
from simcore.rng import (STREAM_DEAL, Stream, _mix_scalar, draw_base, integer_below, permutations, stream_keys,
                         uniform_at)

# ----------------------------------------------------------------------------------------------------
# Cards
# ----------------------------------------------------------------------------------------------------
GUNSEN, HIOGI, MAIOUGI = 0, 1, 2
TYPE_NAMES = ("Gun-sen", "Hi-ogi", "Mai-ougi")
COURAGE, WISDOM, HARMONY = GUNSEN, HIOGI, MAIOUGI  # the power of each fan type
LEVELS = ("Gutted", "Beginner", "Apprentice", "Samurai", "Master", "Grandmaster")
TABLES = {
    "A": (4, 4, 4, 3, 3, 3, 2, 2, 1),
    "A2": (4, 4, 4, 3, 3, 3, 2, 1, 1),
    "B": (4, 3, 3, 2, 2, 2, 1, 1, 1),
    "C": (4, 4, 4, 3, 3, 2, 1, 1, 1),
}
HAND = 8         # hand slots (at most 6 held: 5, and one more between a draw and its discard)
SLOTS = 6        # slots a combination is taken from
FAN = 10         # cards per fan at most (>= 1 stick each)
COLUMN = 27      # solo column length at most
CF_CARDS = 15    # closed-fan cards

_ids = np.arange(90)
_j = _ids % 30
CARD_TYPE = np.append(_ids // 30, -1).astype(np.int64)
CARD_VALUE = np.append(np.where(_j < 27, _j // 3 + 1, 0), 0).astype(np.int64)      # printed value, 0 = wild
CARD_WILD = np.append(np.where(_j < 27, -1, _j - 27), -1).astype(np.int64)        # wild class 0..2, -1
CARD_COPY = np.append(np.where(_j < 27, _j % 3, 3), -1).astype(np.int64)          # 0 A, 1 B, 2 C, 3 wild
del _ids, _j


def deck_cards(players: int) -> np.ndarray:
    """The card ids in play for a player count (90, 63 or 27 cards)."""
    copy_ = CARD_COPY[:90]
    if players == 1:
        keep = copy_ == 0
    elif players <= 3:
        keep = copy_ != 1
    else:
        keep = np.ones(90, dtype=bool)
    return np.flatnonzero(keep).astype(np.int8)


def card_name(c: int) -> str:
    c = int(c)
    if c < 0:
        return "-"
    t = TYPE_NAMES[CARD_TYPE[c]]
    if CARD_WILD[c] >= 0:
        w = CARD_WILD[c]
        return f"{t} wild {3 * w + 1}/{3 * w + 2}/{3 * w + 3}"
    return f"{t} {CARD_VALUE[c]}{'ABC'[CARD_COPY[c]]}"


# ----------------------------------------------------------------------------------------------------
# Rules
# ----------------------------------------------------------------------------------------------------
def parse_sticks(value: Any) -> str:
    """``A``, ``A2``, ``B``, ``C`` or nine values 1..4 (comma separated, or a list) for values 1..9."""
    if isinstance(value, (list, tuple)):
        items = [str(v) for v in value]
    else:
        text = str(value).strip()
        if text.upper() in TABLES:
            return text.upper()
        items = text.split(",")
    try:
        vals = [int(str(v).strip()) for v in items]
    except ValueError:
        raise SenseiError(f"sticks: expected A, A2, B, C or nine values 1..4, got {value!r}") from None
    if len(vals) != 9 or any(v < 1 or v > 4 for v in vals):
        raise SenseiError(f"sticks: expected A, A2, B, C or nine values 1..4, got {value!r}")
    return ",".join(map(str, vals))


def parse_copies(value: Any) -> str:
    """A set of copies among A, B, C (e.g. ``C`` or ``AC``)."""
    text = str(value).strip().upper().replace(",", "")
    if not text or any(ch not in "ABC" for ch in text):
        raise SenseiError(f"power_copies: expected letters among A, B, C, got {value!r}")
    return "".join(sorted(set(text)))


@dataclass(frozen=True)
class SensuRules(Rules):
    sticks: str = option("A", "value->sticks table: A, A2, B, C, or nine values 1..4 for values 1..9 "
                              "(wilds always 1 stick)", parse=parse_sticks)
    power_copies: str = option("C", "copies whose cards carry their type's power symbol (letters among A, B, C)",
                               parse=parse_copies)
    powers: bool = option(False, "variant: fan powers (Wisdom, Harmony, Courage)")
    chosen_fan: bool = option(False, "variant: a dealt closed-fan card names the fan to close first")
    max_turns: int = option(1000, "turns in all after which a game stops with no winner (a timeout)", min=1, max=100_000)

    def __post_init__(self):
        object.__setattr__(self, "sticks", parse_sticks(self.sticks))
        object.__setattr__(self, "power_copies", parse_copies(self.power_copies))
        if not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise SenseiError(f"max_turns: must be a positive integer, got {self.max_turns!r}")

    def inert(self, players: int) -> dict[str, str]:
        if not self.powers:
            return {"power_copies": "power_copies has no effect without powers = true"}
        return {}

    def played(self, players: int) -> tuple:
        """As :meth:`Rules.played`, with the sticks as their table (``A`` is ``4,4,4,3,3,3,2,2,1``) and the
        power copies as those in the deck (2-3 players have no copy B)."""
        out = dict(super().played(players))
        out["sticks"] = repr(tuple(int(x) for x in self.sticks_table()))
        if "power_copies" in out and players <= 3:
            out["power_copies"] = repr(self.power_copies.replace("B", ""))
        return tuple(sorted(out.items()))

    def sticks_table(self) -> np.ndarray:
        vals = TABLES.get(self.sticks) or tuple(int(v) for v in self.sticks.split(","))
        return np.asarray(vals, dtype=np.int64)


def card_sticks(rules: SensuRules) -> np.ndarray:
    """Sticks per card id (91 entries; the last, for no card, is 0)."""
    table = rules.sticks_table()
    st = np.where(CARD_WILD[:90] >= 0, 1, table[np.maximum(CARD_VALUE[:90] - 1, 0)])
    return np.append(st, 0).astype(np.int64)


def card_power(rules: SensuRules) -> np.ndarray:
    """Whether each card id carries its type's power symbol (91 entries)."""
    copies = [("ABC".index(ch)) for ch in rules.power_copies]
    pw = np.isin(CARD_COPY[:90], copies)
    return np.append(pw, False)


#: the decorator of the per-game rule steps (and of the protocol functions): compiled without reference
#: counting (simcore/compiled.py; they allocate nothing, scratch space is passed in), so that calling a step with
#: a dozen state arrays costs no atomic reference-count updates
_step = numba.njit(**NO_REFCOUNT)
#: the decorator of the small steps of the protocol, inlined where they are called (into the drivers' game
#: loops): a call that hands over the whole state tuple costs more than these steps themselves
_inline = numba.njit(cache=True, inline="always")


# ----------------------------------------------------------------------------------------------------
# Combinations: subset tables over the 6 slots
# ----------------------------------------------------------------------------------------------------
#: SUBSETS[m, s]: slot s belongs to subset m (m = bit mask over the slots)
SUBSETS = ((np.arange(1 << SLOTS)[:, None] >> np.arange(SLOTS)[None, :]) & 1).astype(bool)
SUBSET_SIZE = SUBSETS.sum(axis=1)
#: LOWBIT[m]: lowest slot of subset m (subset sums are built as sum[m] = sum[m without it] + value)
LOWBIT = np.array([0] + [(m & -m).bit_length() - 1 for m in range(1, 1 << SLOTS)], dtype=np.int64)
#: NEED_OK[w + 1, s]: a subset whose printed values sum to s, with no wild (w = -1) or one wild of class
#: w, can sum to exactly 20
NEED_OK = np.zeros((4, 64), dtype=bool)
NEED_OK[0, 20] = True
for _w in range(3):
    for _v in range(3 * _w + 1, 3 * _w + 4):
        NEED_OK[_w + 1, 20 - _v] = True
del _w, _v


def combination_table(cards: np.ndarray) -> np.ndarray:
    """(m, 64) bool: which slot subsets of ``cards`` (m, 6; -1 empty) are combinations (array version).

    Uses the subset table: sums of printed values and wild counts per subset are one matrix product.
    """
    cards = np.asarray(cards, dtype=np.int64)
    present = cards >= 0
    val = CARD_VALUE[cards] * present
    wild = (CARD_WILD[cards] >= 0) & present
    wcls = np.where(wild, CARD_WILD[cards], 0)
    sub = SUBSETS.T.astype(np.int64)  # (6, 64)
    sums = val @ sub
    nwild = wild.astype(np.int64) @ sub
    wsum = wcls @ sub
    missing = (~present).astype(np.int64) @ sub
    ok = (missing == 0) & (SUBSET_SIZE[None, :] >= 2) & (nwild <= 1)
    key = np.where(nwild == 1, wsum + 1, 0)
    return ok & NEED_OK[key, np.clip(sums, 0, 63)]


@_step
def _combos_row(cards, VAL, WCL, scratch, min_size):
    """The combination flags of one row of 6 slot cards (any may be empty) as a bit set over the 64 slot
    subsets (bit m set: subset m is a combination).

    ``scratch`` (4, 64) int64 holds the subset sums, wild counts, wild classes and sizes, each built from
    the subset without its lowest slot (LOWBIT table).
    """
    sums = scratch[0]
    nw = scratch[1]
    wc = scratch[2]
    size = scratch[3]
    sums[0] = 0
    nw[0] = 0
    wc[0] = 0
    size[0] = 0
    bits = numba.uint64(0)
    for m in range(1, 1 << SLOTS):
        b = LOWBIT[m]
        prev = m & (m - 1)
        c = cards[b]
        if c < 0 or size[prev] < 0:
            size[m] = -1
            continue
        s = sums[prev] + VAL[c]
        w = WCL[c]
        k = nw[prev]
        cls = wc[prev]
        if w >= 0:
            k += 1
            cls += w
        sums[m] = s
        nw[m] = k
        wc[m] = cls
        size[m] = size[prev] + 1
        if size[m] >= min_size and k <= 1 and s <= 20:
            if NEED_OK[cls + 1 if k == 1 else 0, s]:
                bits |= numba.uint64(1) << numba.uint64(m)
    return bits


def combos_of(cards: np.ndarray, min_size: int = 2) -> np.ndarray:
    """(m, 64) combination flags of slot cards (m, 6) (numba kernel over the subset tables)."""
    cards = np.ascontiguousarray(cards, dtype=np.int8)
    out = np.empty((len(cards), 64), np.bool_)
    _k_combos(cards, CARD_VALUE, CARD_WILD, out, min_size)
    return out


def combos_with_card(cards: np.ndarray, extra: np.ndarray) -> np.ndarray:
    """(m, 64) flags of the combinations of at most five cards that hold ``extra`` (m,) in slot 5 and some of
    the five slot ``cards`` (m, 5), all present (numba kernel of five table lookups)."""
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    bits = np.empty(len(cards), np.uint64)
    _k_combos_with(cards, np.ascontiguousarray(extra, dtype=np.int64), DIGIT, _table5(), bits)
    return ((bits[:, None] >> np.arange(64, dtype=np.uint64)[None, :]) & np.uint64(1)).astype(bool)


def redeem_count(cards: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Cards redeemed (1 + pair bonus + type bonus) by combination ``mask`` of slot ``cards`` (m, 6)."""
    cards = np.ascontiguousarray(cards, dtype=np.int8)
    out = np.empty(len(cards), np.int64)
    _k_redeem(cards, np.asarray(mask, dtype=np.int64), CARD_VALUE, CARD_WILD, CARD_TYPE, out)
    return out


# ----------------------------------------------------------------------------------------------------
# Kernels (numba): observation building and moving cards, one call per batch
# ----------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _k_build_table(VAL, WCL):
    """TABLE5[code]: bit m set when the slot subset m of 5 slots is a combination, for every hand code
    (base-13 digits per slot: 0 empty, 1..9 a value, 10..12 a wild of class 0..2)."""
    n = 13 ** 5
    table = np.zeros(n, np.uint32)
    rep = np.empty(SLOTS, np.int8)
    scratch = np.zeros((4, 64), np.int64)
    for code in range(n):
        x = code
        for s in range(5):
            d = x % 13
            x //= 13
            rep[s] = -1 if d == 0 else ((d - 1) * 3 if d <= 9 else 27 + d - 10)
        rep[5] = -1
        table[code] = np.uint32(_combos_row(rep, VAL, WCL, scratch, 2) & numba.uint64(0xFFFFFFFF))
    return table


_TABLE5: list = []


def _table5() -> np.ndarray:
    if not _TABLE5:
        _TABLE5.append(_k_build_table(CARD_VALUE, CARD_WILD))
    return _TABLE5[0]


#: DIGIT[c]: the base-13 digit of a card in TABLE5 codes (0 for no card)
DIGIT = np.append(np.where(CARD_WILD[:90] >= 0, 10 + CARD_WILD[:90], CARD_VALUE[:90]), 0).astype(np.int64)


@_step
def _combo_bits(cards, VAL, WCL, DIG, table, scratch, min_size):
    """The combinations among one row of 6 slot cards as a bit set over the slot subsets: a table lookup
    when slot 5 is empty (at most 5 cards), the incremental subset sums otherwise."""
    if cards[5] >= 0:
        return _combos_row(cards, VAL, WCL, scratch, min_size)
    code = 0
    mul = 1
    for s in range(5):
        c = cards[s]
        code += DIG[c if c >= 0 else DIG.shape[0] - 1] * mul  # an empty slot (-1): the last entry, 0
        mul *= 13
    return numba.uint64(table[code])


@_step
def _combo_bits_with(cards, c, DIG, table):
    """For five slot cards ``cards[0:5]`` (all present) and card ``c`` in slot 5: the combinations of at most
    five cards that contain slot 5, as a bit set over the slot subsets. Five table lookups, one per hand
    slot j the new card replaces (a combination with the new card leaves at least one hand card out)."""
    code = 0
    mul = 1
    for s in range(5):
        code += DIG[cards[s]] * mul
        mul *= 13
    out = numba.uint64(0)
    one = numba.uint64(1)
    mul = 1
    for j in range(5):
        bits = numba.uint64(table[code + (DIG[c] - DIG[cards[j]]) * mul])
        mul *= 13
        while bits:
            low = bits & (~bits + one)
            bits ^= low
            m = 0
            while (low >> numba.uint64(m)) != one:
                m += 1
            if (m >> j) & 1:
                out |= one << numba.uint64((m & ~(1 << j)) | 32)
    return out


@numba.njit(cache=True)
def _k_combos_with(cards, extra, DIG, table, out):
    for i in range(cards.shape[0]):
        out[i] = _combo_bits_with(cards[i], extra[i], DIG, table)


@numba.njit(cache=True)
def _k_combos_t(cards, VAL, WCL, DIG, table, out, min_size):
    """Combination flags (m, 64) of slot cards (m, 6) (see :func:`_combo_bits`)."""
    scratch = np.zeros((4, 64), np.int64)
    for i in range(cards.shape[0]):
        bits = _combo_bits(cards[i], VAL, WCL, DIG, table, scratch, min_size)
        for m in range(64):
            out[i, m] = (bits >> numba.uint64(m)) & numba.uint64(1)


def _k_combos(cards, VAL, WCL, out, min_size):
    """Combination flags (m, 64) of slot cards (m, 6) (two cards never make 20, so ``min_size`` 2 or 3
    gives the same flags; it is kept for the incremental path)."""
    _k_combos_t(cards, VAL, WCL, DIGIT, _table5(), out, min_size)


@_step
def _redeem_one(cards, mask, VAL, WCL, TYPE):
    """Cards redeemed by slot subset ``mask`` of one row of slot cards: 1, plus 1 for two equal printed
    numbers (wilds never count), plus 1 for three cards of one type (wilds count)."""
    seen = 0
    t0 = 0
    t1 = 0
    t2 = 0
    pair = 0
    for s in range(SLOTS):
        if (mask >> s) & 1:
            c = cards[s]
            if c < 0:
                continue
            if WCL[c] < 0:
                v = VAL[c]
                if (seen >> v) & 1:
                    pair = 1
                seen |= 1 << v
            t = TYPE[c]
            if t == 0:
                t0 += 1
            elif t == 1:
                t1 += 1
            else:
                t2 += 1
    three = 1 if (t0 >= 3 or t1 >= 3 or t2 >= 3) else 0
    return 1 + pair + three


@numba.njit(cache=True)
def _k_redeem(cards, mask, VAL, WCL, TYPE, out):
    for i in range(cards.shape[0]):
        out[i] = _redeem_one(cards[i], mask[i], VAL, WCL, TYPE)


@numba.njit(cache=True)
def _k_redeem_all(cards, VAL, WCL, TYPE, out):
    for i in range(cards.shape[0]):
        for m in range(64):
            out[i, m] = _redeem_one(cards[i], m, VAL, WCL, TYPE)



# ----------------------------------------------------------------------------------------------------
# Rule steps: one compiled function per step and game (``g``), chained by ``step`` (the decision protocol
# below); the ``_k_*`` loops build the batch observations of numpy strategies
# ----------------------------------------------------------------------------------------------------
@_step
def _stream_key(key, stream, sub):
    """``simcore.rng.stream_keys`` for one game key."""
    salt = _mix_scalar(numba.uint64(stream) * numba.uint64(0x9E3779B97F4A7C15)
                       + numba.uint64(sub) * numba.uint64(0xBF58476D1CE4E5B9) + numba.uint64(1))
    return _mix_scalar(key ^ salt)


@_step
def _draw_base(key, counter):
    """The hash of draw number ``counter`` of a stream (``simcore.rng._draw``)."""
    return _mix_scalar(key + numba.uint64(counter) * numba.uint64(0x94D049BB133111EB))


@_step
def _hand_cards(hand, hand_n, g, p, out):
    """The own hand's first 6 slots (the cards a combination can use; -1 = empty)."""
    n = hand_n[g, p]
    for s in range(SLOTS):
        out[s] = hand[g, p, s] if s < n else -1


@_step
def _place_cards(pile, pile_n, columns, col_n, g, out):
    """Solo: the exposed card of each place (0 = pile top, 1..4 = column ends; slot 5 empty)."""
    k = pile_n[g, 0]
    out[0] = pile[g, 0, k - 1] if k > 0 else -1
    for c in range(4):
        k = col_n[g, c]
        out[1 + c] = columns[g, c, k - 1] if k > 0 else -1
    out[5] = -1


@_step
def _sources(deck_n, pile_n, g):
    """The drawable sources as a bit set: bit 0 the deck, bit 1 + q the pile of seat q."""
    bits = 1 if deck_n[g] > 0 else 0
    for q in range(pile_n.shape[1]):
        if pile_n[g, q] > 0:
            bits |= 1 << (1 + q)
    return bits


@numba.njit(cache=True)
def _k_cards(hand, hand_n, pile, pile_n, deck_n, idx, seat, o_cards, o_src):
    """The own hand's first 6 slots and the drawable sources of each observed game."""
    P = pile_n.shape[1]
    for i in range(len(idx)):
        g = idx[i]
        _hand_cards(hand, hand_n, g, seat[i], o_cards[i])
        bits = _sources(deck_n, pile_n, g)
        for q in range(1 + P):
            o_src[i, q] = (bits >> q) & 1


@numba.njit(cache=True)
def _k_places(pile, pile_n, columns, col_n, idx, o_cards):
    """Solo: the exposed card of each place (0 = pile top, 1..4 = column ends)."""
    for i in range(len(idx)):
        _place_cards(pile, pile_n, columns, col_n, idx[i], o_cards[i])


@_step
def _draw_one(deck, deck_n, pile, pile_n, hand, hand_n, g, p, s):
    """Take the top of the deck (s 0) or of pile s-1 into the hand of seat p."""
    if s == 0:
        deck_n[g] -= 1
        c = deck[g, deck_n[g]]
        deck[g, deck_n[g]] = -1
    else:
        q = s - 1
        pile_n[g, q] -= 1
        c = pile[g, q, pile_n[g, q]]
        pile[g, q, pile_n[g, q]] = -1
    hand[g, p, hand_n[g, p]] = c
    hand_n[g, p] += 1


@_step
def _discard_one(pile, pile_n, hand, hand_n, g, p, s):
    """Move hand slot ``s`` onto the player's own pile (the hand stays packed)."""
    c = hand[g, p, s]
    n = hand_n[g, p]
    for j in range(s, n - 1):
        hand[g, p, j] = hand[g, p, j + 1]
    hand[g, p, n - 1] = -1
    hand_n[g, p] = n - 1
    pile[g, p, pile_n[g, p]] = c
    pile_n[g, p] += 1


@_step
def _insert_by_key(buf, out, g, w, u, c):
    """Insert card c with key u into ``out[g, :w]``, kept in increasing order of its keys ``buf[:w]``
    (a shuffle: cards ordered by one uniform each, built as they come)."""
    j = w
    while j > 0 and buf[j - 1] > u:
        buf[j] = buf[j - 1]
        out[g, j] = out[g, j - 1]
        j -= 1
    buf[j] = u
    out[g, j] = c


@_step
def _refill_one(deck, deck_n, pile, pile_n, reshuffles, key, g, buf, fresh, drawn, gen):
    """Multiplayer: when the deck of game g (game key ``key``) is empty and a discard pile holds cards,
    shuffle all discard piles into a new deck. The shuffle orders the pile cards by one uniform per place
    (seat q's pile position i is place q * D + i) of draw number ``reshuffles`` of the deal stream.
    ``buf``: float64 scratch of at least D entries.

    The public record of the reshuffle: ``fresh[g, c]`` becomes True for the cards of the new deck (they
    were face up) and False for every other card (then all in hands or fans), ``gen[g, c]`` becomes the
    reshuffle's number for the cards of the new deck, and ``drawn[g]`` (the hidden cards each seat has
    drawn from the deck since) restarts at 0."""
    if deck_n[g] > 0:
        return
    P = pile.shape[1]
    D = pile.shape[2]
    cnt = 0
    for q in range(P):
        cnt += pile_n[g, q]
    if cnt == 0:
        return
    reshuffles[g] += 1
    base = _draw_base(_stream_key(key, STREAM_DEAL, 0), reshuffles[g])
    for c in range(fresh.shape[1]):
        fresh[g, c] = False
    for q in range(P):
        drawn[g, q] = 0
    w = 0
    for q in range(P):
        for i in range(pile_n[g, q]):
            # insertion sort by the place's uniform, straight into the deck
            u = uniform_at(base, q * D + i)
            c = pile[g, q, i]
            fresh[g, c] = True
            gen[g, c] = reshuffles[g]
            pile[g, q, i] = -1
            _insert_by_key(buf, deck, g, w, u, c)
            w += 1
        pile_n[g, q] = 0
    for j in range(cnt, D):
        deck[g, j] = -1
    deck_n[g] = cnt


@_step
def _arrange_bad(cards, mask, order, k, ST, hist, rest):
    """True when ``order`` (6,) is not a legal arrangement of combination ``mask`` over slot ``cards`` with
    ``k`` cards redeemed: every slot of the combination once, then -1, and the first ``k`` a legal redeemed
    set (one with the most sticks, then k-1 with the fewest of the rest; any choice among equal sticks).
    ``hist``, ``rest``: int64 scratch of at least 8 entries."""
    c = 0
    for s in range(SLOTS):
        if (mask >> s) & 1:
            c += 1
    seen = 0
    for j in range(SLOTS):
        s = order[j]
        if j < c:
            if s < 0 or s >= SLOTS or not ((mask >> s) & 1) or ((seen >> s) & 1):
                return True
            seen |= 1 << s
        elif s != -1:
            return True
    # compare the stick histogram of the chosen cards with that of the canonical choice
    for v in range(8):
        hist[v] = 0
        rest[v] = 0
    hi = 0
    for j in range(c):
        hi = max(hi, ST[cards[order[j]]])
    for j in range(k):
        hist[ST[cards[order[j]]]] += 1
    for j in range(c):
        rest[ST[cards[order[j]]]] += 1
    hist[hi] -= 1
    rest[hi] -= 1
    need = k - 1
    for v in range(8):
        take = min(need, rest[v])
        hist[v] -= take
        need -= take
    for v in range(8):
        if hist[v] != 0:
            return True
    return False


@numba.njit(cache=True)
def _k_arrange_bad(cards, mask, order, k, ST, out):
    hist = np.zeros(8, np.int64)
    rest = np.zeros(8, np.int64)
    for i in range(mask.shape[0]):
        out[i] = _arrange_bad(cards[i], mask[i], order[i], k[i], ST, hist, rest)


def bad_arrangements(cards: np.ndarray, mask: np.ndarray, order: np.ndarray, k: np.ndarray,
                     sticks: np.ndarray) -> np.ndarray:
    """(m,) True where ``order`` (m, 6) is not a legal arrangement of combination ``mask`` (m,) over slot
    ``cards`` (m, 6) redeeming ``k`` (m,) cards, with the sticks table ``sticks``."""
    out = np.empty(len(mask), np.bool_)
    _k_arrange_bad(np.ascontiguousarray(cards, dtype=np.int64), np.ascontiguousarray(mask, dtype=np.int64),
                   np.ascontiguousarray(order, dtype=np.int64), np.ascontiguousarray(k, dtype=np.int64),
                   np.ascontiguousarray(sticks, dtype=np.int64), out)
    return out


@_step
def _take_hand_one(hand, hand_n, pile, pile_n, deck, deck_n, reshuffles, key, g, p, order, k, out, buf, fresh,
                   drawn, gen):
    """Play from the hand: remove the combination (slots ``order``), discard its unredeemed cards in order,
    write the ``k`` redeemed cards to ``out`` (-1 beyond k). The deck is refilled the moment it is empty,
    so after each card discarded (with the deck and every pile empty the first card discarded becomes the
    new deck at once, and the next ones start the new pile)."""
    c = 0
    while c < SLOTS and order[c] >= 0:
        c += 1
    for j in range(k, c):
        pile[g, p, pile_n[g, p]] = hand[g, p, order[j]]
        pile_n[g, p] += 1
        _refill_one(deck, deck_n, pile, pile_n, reshuffles, key, g, buf, fresh, drawn, gen)
    for j in range(out.shape[0]):
        out[j] = hand[g, p, order[j]] if j < k else -1
    n = hand_n[g, p]
    w = 0
    for j in range(n):
        used = False
        for q in range(c):
            if order[q] == j:
                used = True
        if not used:
            hand[g, p, w] = hand[g, p, j]
            w += 1
    for j in range(w, n):
        hand[g, p, j] = -1
    hand_n[g, p] = w


@_step
def _take_places_one(pile, pile_n, columns, col_n, g, order, k, out):
    """Solo play: take the combination from the pile top / column ends, discard the unredeemed; ``out``
    (at least 6 entries) gets the redeemed cards (-1 beyond k)."""
    c = 0
    while c < SLOTS and order[c] >= 0:
        s = order[c]
        if s == 0:
            pile_n[g, 0] -= 1
            out[c] = pile[g, 0, pile_n[g, 0]]
            pile[g, 0, pile_n[g, 0]] = -1
        else:
            col_n[g, s - 1] -= 1
            out[c] = columns[g, s - 1, col_n[g, s - 1]]
            columns[g, s - 1, col_n[g, s - 1]] = -1
        c += 1
    for j in range(k, c):
        pile[g, 0, pile_n[g, 0]] = out[j]
        pile_n[g, 0] += 1
    for j in range(k, out.shape[0]):
        out[j] = -1


@_step
def _deck_take_one(deck, deck_n, g):
    """Take the deck's top card (solo: the card drawn, before it is placed)."""
    deck_n[g] -= 1
    c = deck[g, deck_n[g]]
    deck[g, deck_n[g]] = -1
    return c


@_step
def _solo_put_one(pile, pile_n, columns, col_n, g, c, where):
    """Solo: the card drawn goes onto the pile (``where`` 0) or the end of column ``where`` - 1."""
    if where == 0:
        pile[g, 0, pile_n[g, 0]] = c
        pile_n[g, 0] += 1
    else:
        columns[g, where - 1, col_n[g, where - 1]] = c
        col_n[g, where - 1] += 1


@_step
def _fits_one(fan_sticks, closed, chosen, g, p, c, ST, TYPE):
    """Whether card ``c`` (-1: no card) may go onto seat p's fan of its type: the fan is not closed, stays
    at most 10 sticks, and reaches 10 only if it is the chosen fan (or none is chosen)."""
    if c < 0:
        return False
    t = TYPE[c]
    tot = fan_sticks[g, p, t] + ST[c]
    if closed[g, p, t] or tot > 10:
        return False
    if tot == 10 and chosen[g, p] >= 0 and chosen[g, p] != t:
        return False
    return True


@numba.njit(cache=True)
def _k_fits(fan_sticks, closed, chosen, idx, seat, cards, ST, TYPE, out):
    for i in range(cards.shape[0]):
        for j in range(cards.shape[1]):
            out[i, j] = _fits_one(fan_sticks, closed, chosen, idx[i], seat[i], cards[i, j], ST, TYPE)


@_step
def _place_one(fan, fan_n, fan_sticks, closed, fan_power, pile, pile_n, chosen, g, p, c, ST, PW, TYPE, powers,
               win_at):
    """Place card ``c`` on seat p's fan of its type if it fits, else discard it onto p's pile.

    Returns (status, trig): status 0 discarded, 1 placed, 2 placed and closed, 3 placed and the game won
    (``win_at`` closed fans); trig = the fan type whose power fires, else -1.
    """
    if not _fits_one(fan_sticks, closed, chosen, g, p, c, ST, TYPE):
        pile[g, p, pile_n[g, p]] = c
        pile_n[g, p] += 1
        return 0, -1
    t = TYPE[c]
    tot = fan_sticks[g, p, t] + ST[c]
    fan[g, p, t, fan_n[g, p, t]] = c
    fan_n[g, p, t] += 1
    fan_sticks[g, p, t] = tot
    status = 1
    trig = -1
    if powers and PW[c]:
        fan_power[g, p, t] += 1
        if fan_power[g, p, t] == 2:
            trig = t
    if tot == 10:
        closed[g, p, t] = True
        status = 2
        nc = 0
        for u in range(3):
            nc += closed[g, p, u]
        if nc >= win_at:
            status = 3
            trig = -1
    return status, trig


@_step
def _new_chosen_one(cf_deck, cf_n, cf_disc, cf_shuffles, chosen, closed, key, g, p, buf):
    """After seat p closed its chosen fan: draw closed-fan cards until one names a type not closed yet
    (a drawn closed type is discarded); when the deck is empty, its discarded cards are reshuffled
    (ordered by one uniform per place, card i of type t at place 5 t + i, of draw number ``cf_shuffles``
    of deal stream 1); none left: no chosen fan. ``buf``: float64 scratch of at least 15 entries."""
    while True:
        if cf_n[g] == 0:
            cf_shuffles[g] += 1
            base = _draw_base(_stream_key(key, STREAM_DEAL, 1), cf_shuffles[g])
            w = 0
            for t in range(3):
                for i in range(cf_disc[g, t]):
                    _insert_by_key(buf, cf_deck, g, w, uniform_at(base, 5 * t + i), t)
                    w += 1
            for j in range(w, CF_CARDS):
                cf_deck[g, j] = -1
            cf_n[g] = w
            for t in range(3):
                cf_disc[g, t] = 0
            if w == 0:  # nothing left to draw: no chosen fan any more
                chosen[g, p] = -1
                return
        cf_n[g] -= 1
        t = cf_deck[g, cf_n[g]]
        cf_deck[g, cf_n[g]] = -1
        if not closed[g, p, t]:
            chosen[g, p] = t
            return
        cf_disc[g, t] += 1


@_step
def _courage_ok_one(fan, fan_n, closed, PW, g, p, out):
    """Courage: out (P, 3) the fans whose last card seat p may remove (an opponent's unclosed, non-empty
    fan whose last card bears no power symbol); returns whether any."""
    P = fan.shape[1]
    anyok = False
    for o in range(P):
        for t in range(3):
            n = fan_n[g, o, t]
            ok = o != p and n > 0 and not closed[g, o, t]
            if ok:
                ok = not PW[fan[g, o, t, n - 1]]
            out[o, t] = ok
            anyok = anyok or ok
    return anyok


@numba.njit(cache=True)
def _k_courage_ok(fan, fan_n, closed, PW, idx, seat, out):
    for i in range(len(idx)):
        _courage_ok_one(fan, fan_n, closed, PW, idx[i], seat[i], out[i])


@_step
def _courage_one(fan, fan_n, fan_sticks, pile, pile_n, deck, deck_n, reshuffles, ST, key, g, ok, choice, buf,
                 fresh, drawn, gen):
    """Courage: for each opponent o in seat order that has a removable fan (``ok`` (P, 3)), the last card of
    its fan ``choice[o]`` goes onto o's discard pile (then the deck is refilled if it is empty)."""
    P = fan.shape[1]
    for o in range(P):
        if not (ok[o, 0] or ok[o, 1] or ok[o, 2]):
            continue
        t = choice[o]
        fan_n[g, o, t] -= 1
        c = fan[g, o, t, fan_n[g, o, t]]
        fan[g, o, t, fan_n[g, o, t]] = -1
        fan_sticks[g, o, t] -= ST[c]
        pile[g, o, pile_n[g, o]] = c
        pile_n[g, o] += 1
        _refill_one(deck, deck_n, pile, pile_n, reshuffles, key, g, buf, fresh, drawn, gen)


@_step
def _pile_take_one(pile, pile_n, g, q):
    """Take the top card of seat q's discard pile (Harmony)."""
    pile_n[g, q] -= 1
    c = pile[g, q, pile_n[g, q]]
    pile[g, q, pile_n[g, q]] = -1
    return c


@_step
def _end_turn(turns, current, g, p, P):
    """A multiplayer turn is over: count it and pass to the next seat."""
    turns[g] += 1
    current[g] = (p + 1) % P


# ----------------------------------------------------------------------------------------------------
# Actions, the batch observation of numpy strategies, the decision interface
# ----------------------------------------------------------------------------------------------------
class Action(IntEnum):
    """Turn action codes. Multiplayer: DECK, PILE + s, PASS, PLAY + mask; solo: DRAW, PLAY + mask."""
    DECK = 0
    DRAW = 0   # solo: draw (ends the game when the deck is empty)
    PILE = 1   # + seat whose pile top is taken (1..5)
    PASS = 7   # nothing to draw and no play (only legal when no card can be drawn)
    PLAY = 64  # + bit mask over the 6 combination slots


class PublicView:
    """The public arrays of a batch (discard piles, fans, counts, chosen fans): nothing hidden.

    Observations read their lazily computed fields from this view, never from the state itself (the
    deck order and the hands are not in it).
    """
    __slots__ = ("pile", "pile_n", "deck_n", "fan", "fan_n", "fan_sticks", "closed", "hand_n", "chosen",
                 "columns", "col_n")

    def __init__(self, st: "SensuState"):
        for k in self.__slots__:
            setattr(self, k, getattr(st, k))


class SensuObs:
    """What the deciding seat sees, for a batch of ``m`` games (absolute seat numbers).

    Always present: ``seat`` (m,), ``players``, ``cards`` (m, 6): the cards a combination can use, by slot
    (the own hand in multiplayer; in solo the exposed cards of the places 0 = pile top, 1..4 = column ends;
    -1 = empty), ``hand_n`` (m,) own hand size (solo: 0), ``sources`` (m, 1 + P) bool: the deck, then each
    seat's pile, can be drawn from; ``sticks`` / ``power`` (91,) per-card tables of these rules; the flags
    ``powers`` and ``chosen_fan``.

    Computed on first use (properties): ``combos`` (m, 64) which slot masks are combinations; ``hand``
    (m, 8) the whole own hand; ``pile_top`` (m, P), ``pile_n`` (m, P), ``piles`` (m, P, D) every discard
    pile bottom first (discards are face up); ``deck_n`` (m,); ``fan_sticks``, ``fan_n``, ``closed``,
    ``fan_top`` (m, P, 3); ``hand_counts`` (m, P); ``chosen`` (m, P) chosen fan types (-1 when the variant
    is off); solo: ``columns`` (m, 4, 27), ``col_n`` (m, 4).

    The decision: ``kind`` (m,) the :class:`Decision` each game is at; ``red`` (m, 6) the redeemed cards
    still to be placed (-1 elsewhere; public: a combination is played face up); ``wisdom_left`` (m,) the
    cards Wisdom still draws. Per decision (None where no observed game is at it): ``combo`` / ``n_redeem``
    (arrange: the combination's slot mask and the number of cards it redeems), ``card`` (solo place: the
    card drawn), ``harmony_ok`` (m, P) piles whose top fits a fan, ``courage_ok`` (m, P, 3) fans whose last
    card may be removed.
    """

    _LAZY = ("_combos", "_pile_top", "_fan_top")

    def __init__(self, view: PublicView, idx: np.ndarray, seat: np.ndarray, players: int, cards: np.ndarray,
                 hand_n: np.ndarray, sources: np.ndarray, sticks: np.ndarray, power: np.ndarray,
                 powers: bool, chosen_fan: bool, own_hand: np.ndarray | None = None, solo: bool = False):
        self._view = view
        self._idx = idx
        self._own_hand = own_hand
        self.seat = seat
        self.players = players
        self.cards = cards
        self.hand_n = hand_n
        self.sources = sources
        self.sticks = sticks
        self.power = power
        self.powers = powers
        self.chosen_fan = chosen_fan
        self.solo = solo
        self.kind = None
        self.red = None
        self.wisdom_left = None
        self.combo = None
        self.n_redeem = None
        self.card = None
        self.harmony_ok = None
        self.courage_ok = None
        self._combos = None
        self._pile_top = None
        self._fan_top = None

    def take(self, pos: np.ndarray) -> "SensuObs":
        """The observation of a subset of the games (positions ``pos``)."""
        out = SensuObs(self._view, self._idx[pos], self.seat[pos], self.players, self.cards[pos], self.hand_n[pos],
                       self.sources[pos], self.sticks, self.power, self.powers, self.chosen_fan,
                       None if self._own_hand is None else self._own_hand[pos], self.solo)
        for k in ("kind", "red", "wisdom_left", "combo", "n_redeem", "card", "harmony_ok", "courage_ok") + self._LAZY:
            v = getattr(self, k)
            if v is not None:
                setattr(out, k, v[pos])
        return out

    def __len__(self) -> int:
        return len(self.seat)

    # ----- lazily computed fields -----
    @property
    def combos(self) -> np.ndarray:
        if self._combos is None:
            self._combos = np.empty((len(self.cards), 64), np.bool_)
            _k_combos(self.cards, CARD_VALUE, CARD_WILD, self._combos, 3 if self.solo else 2)
        return self._combos

    @property
    def hand(self) -> np.ndarray | None:
        if self._own_hand is None:
            return None
        return self._own_hand

    @property
    def pile_n(self) -> np.ndarray:
        return self._view.pile_n[self._idx]

    @property
    def piles(self) -> np.ndarray:
        return self._view.pile[self._idx]

    @property
    def pile_top(self) -> np.ndarray:
        if self._pile_top is None:
            n = self._view.pile_n[self._idx]
            top = np.take_along_axis(self._view.pile[self._idx], np.maximum(n - 1, 0)[..., None], axis=2)[..., 0]
            self._pile_top = np.where(n > 0, top, -1).astype(np.int8)
        return self._pile_top

    @property
    def deck_n(self) -> np.ndarray:
        return self._view.deck_n[self._idx]

    @property
    def fan_sticks(self) -> np.ndarray:
        return self._view.fan_sticks[self._idx]

    @property
    def fan_n(self) -> np.ndarray:
        return self._view.fan_n[self._idx]

    @property
    def closed(self) -> np.ndarray:
        return self._view.closed[self._idx]

    @property
    def fan_top(self) -> np.ndarray:
        if self._fan_top is None:
            f = self._view.fan[self._idx]
            n = self._view.fan_n[self._idx]
            top = np.take_along_axis(f, np.maximum(n - 1, 0)[..., None], axis=3)[..., 0]
            self._fan_top = np.where(n > 0, top, -1).astype(np.int8)
        return self._fan_top

    @property
    def fans(self) -> np.ndarray:
        """(m, P, 3, 10) every fan's cards in placement order."""
        return self._view.fan[self._idx]

    @property
    def hand_counts(self) -> np.ndarray:
        return self._view.hand_n[self._idx]

    @property
    def chosen(self) -> np.ndarray:
        return self._view.chosen[self._idx]

    @property
    def columns(self) -> np.ndarray | None:
        return self._view.columns[self._idx] if self.solo else None

    @property
    def col_n(self) -> np.ndarray | None:
        return self._view.col_n[self._idx] if self.solo else None

    # ----- helpers for strategies -----
    def fits(self, cards: np.ndarray, seat: np.ndarray | None = None) -> np.ndarray:
        """Whether each card (m, k) would go onto the fan of its type of ``seat`` (default: own)."""
        cards = np.asarray(cards, dtype=np.int64)
        seat = self.seat if seat is None else np.asarray(seat, dtype=np.int64)
        v = self._view
        c2 = np.ascontiguousarray(cards.reshape(len(cards), -1))
        out = np.empty(c2.shape, np.bool_)
        _k_fits(v.fan_sticks, v.closed, v.chosen, np.asarray(self._idx, dtype=np.int64),
                np.ascontiguousarray(np.broadcast_to(seat, (len(cards),)), dtype=np.int64), c2, self.sticks,
                CARD_TYPE, out)
        return out.reshape(cards.shape)

    def closes(self, cards: np.ndarray) -> np.ndarray:
        """Whether each card (m, k) would close the own fan of its type."""
        cards = np.asarray(cards, dtype=np.int64)
        t = np.maximum(CARD_TYPE[cards], 0)
        tot = self._view.fan_sticks[self._idx[:, None], self.seat[:, None], t] + self.sticks[cards]
        return self.fits(cards) & (tot == 10)

    def redeem_counts(self) -> np.ndarray:
        """(m, 64) cards each slot mask would redeem (meaningful where ``combos``)."""
        out = np.empty((len(self.cards), 64), np.int64)
        _k_redeem_all(self.cards, CARD_VALUE, CARD_WILD, CARD_TYPE, out)
        return out


class Player:
    """The decisions a numpy Sensu strategy makes, one method per :class:`Decision` (its name in
    :data:`DECISIONS`), each vectorized over a batch of :class:`SensuObs`. A strategy may instead give any
    decision as a compiled function of :data:`SensuView` (``strategies.base.decision``) returning the
    option code (see the module docstring).

    Multiplayer:

    * ``turn(obs, rng) -> codes``: ``Action.DECK``, ``Action.PILE + s``, ``Action.PASS`` (only when
      nothing can be drawn: ``~obs.sources.any(1)``) or ``Action.PLAY + mask`` with ``obs.combos[mask]``.
    * ``discard(obs, rng) -> slot``: after a draw, while the hand holds more than 5 cards, the hand slot
      (``0 <= slot < obs.hand_n``) to discard; asked once per card.
    * ``arrange(obs, rng) -> order`` (m, 6): for the combination ``obs.combo`` (``obs.n_redeem`` cards
      redeemed): its slots, the redeemed ones first in build order, then the others in discard order (the
      last becomes the pile top), padded with -1. The redeemed set must follow the redeeming rule (the most
      sticks, then the fewest for each bonus; any choice among equal sticks). Use :func:`arrange_by`.
    * powers: ``wisdom(obs, rng) -> source`` (0 deck, 1 + s pile; asked for each of the three cards);
      ``harmony(obs, rng) -> seat`` whose pile top goes to a fan (``obs.harmony_ok``); ``courage(obs, rng)
      -> (m, P)`` fan type to strip per opponent (``obs.courage_ok``; -1 where none may be stripped and for
      the own seat).

    Solo: ``solo_turn(obs, rng) -> codes`` (``Action.DRAW`` or ``Action.PLAY + mask`` over the places),
    ``place(obs, rng) -> 0..4`` (where the drawn ``obs.card`` goes: 0 the pile, 1..4 a column) and
    ``arrange`` as above over the places.
    """

    def turn(self, obs: SensuObs, rng) -> np.ndarray: ...
    def discard(self, obs: SensuObs, rng) -> np.ndarray: ...
    def arrange(self, obs: SensuObs, rng) -> np.ndarray: ...
    def wisdom(self, obs: SensuObs, rng) -> np.ndarray: ...
    def harmony(self, obs: SensuObs, rng) -> np.ndarray: ...
    def courage(self, obs: SensuObs, rng) -> np.ndarray: ...
    def solo_turn(self, obs: SensuObs, rng) -> np.ndarray: ...
    def place(self, obs: SensuObs, rng) -> np.ndarray: ...


def arrange_by(obs: SensuObs, redeem_pref: np.ndarray | None = None, discard_key: np.ndarray | None = None,
               build_key: np.ndarray | None = None) -> np.ndarray:
    """A legal ``arrange`` answer from per-slot preferences (each (m, 6), values in [0, 1)).

    ``redeem_pref``: among cards of equal sticks, the higher is redeemed first (default: lowest slot).
    ``discard_key``: the unredeemed cards are discarded in increasing key order (the largest ends on
    top; default slot order). ``build_key``: the redeemed cards are built in increasing key order (default:
    descending sticks, equal sticks in the order they were redeemed).
    """
    for what, a in (("redeem_pref", redeem_pref), ("discard_key", discard_key), ("build_key", build_key)):
        # a NaN, an infinity or a value beyond [0, 1) sorted past the slots' own offsets and built an illegal
        # arrangement that was blamed on the answer
        if a is None:
            continue
        a = np.asarray(a, dtype=np.float64)
        if a.shape != (len(obs.cards), SLOTS):
            raise ValueError(f"arrange_by: {what} must have one row of {SLOTS} values per game, shape "
                             f"({len(obs.cards)}, {SLOTS}), not {a.shape}")
        if not np.isfinite(a).all():
            raise ValueError(f"arrange_by: {what} holds values that are not finite numbers (NaN or infinite)")
        if not ((a >= 0) & (a < 1)).all():
            raise ValueError(f"arrange_by: {what} holds values outside [0, 1)")
    cards = obs.cards.astype(np.int64)
    m = len(cards)
    inc = SUBSETS[obs.combo] & (cards >= 0)
    st = obs.sticks[cards].astype(np.float64)
    slots = np.arange(SLOTS)
    pref = (1.0 - (slots + 1) / 8.0)[None, :] * np.ones((m, 1)) if redeem_pref is None else redeem_pref
    r = np.arange(m)
    first = np.argmax(np.where(inc, st + 0.5 * pref, -np.inf), axis=1)
    rest = inc.copy()
    rest[r, first] = False
    low = np.argsort(np.where(rest, st + 0.5 * (1.0 - pref), np.inf), axis=1, kind="stable")
    rank = np.full((m, SLOTS), 9, dtype=np.int64)
    rank[r, first] = 0
    k = obs.n_redeem
    for j in range(2):
        sel = k >= j + 2
        rank[r[sel], low[sel, j]] = j + 1
    redeemed = rank < 9
    if build_key is None:
        bkey = -st * 4 + rank
    else:
        bkey = build_key
    dkey = (slots / 8.0)[None, :] * np.ones((m, 1)) if discard_key is None else discard_key
    key = np.where(redeemed, bkey - 100.0, np.where(inc, dkey, np.inf))
    order = np.argsort(key, axis=1, kind="stable")
    n_inc = inc.sum(axis=1)
    return np.where(slots[None, :] < n_inc[:, None], order, -1)


# ----------------------------------------------------------------------------------------------------
# The decision protocol (see simcore/game.py). The compiled functions below take the state tuple ``S``
# (:meth:`Sensu.state_tuple`), the rules tuple ``R`` (:meth:`Sensu.rules_tuple`) and one game ``g``:
# ``begin`` sets a fresh game's first decision, ``step`` applies the option chosen at the current decision
# and runs the rules to the next one, ``observe`` is what the deciding seat may know, ``legal`` lists the
# options. Both lanes (the generic drivers of simcore) play every game through them.
# ----------------------------------------------------------------------------------------------------
class Decision(IntEnum):
    """The decision kinds; the seat that decides is always the one whose turn it is (``current``)."""
    TURN = 0       #: multiplayer turn: DECK, PILE + s, PASS or PLAY + mask
    DISCARD = 1    #: after a draw, while the hand holds more than 5 cards: the hand slot to discard
    ARRANGE = 2    #: the combination just played: redeemed cards in build order, then the discard order
    WISDOM = 3     #: Wisdom: the source of the next of three cards (0 the deck, 1 + s seat s's pile)
    HARMONY = 4    #: Harmony: the seat whose pile top goes onto a fan
    COURAGE = 5    #: Courage: per opponent, the fan whose last card is removed (courage_option)
    SOLO_TURN = 6  #: solo turn: DRAW or PLAY + mask over the places
    PLACE = 7      #: solo: where the card drawn goes (0 the pile, 1..4 a column)


#: decision kind -> the name of the numpy method / compiled decision answering it
DECISIONS = ("turn", "discard", "arrange", "wisdom", "harmony", "courage", "solo_turn", "place")

#: the option codes as plain integers (for compiled strategies)
DECK, DRAW, PILE, PASS, PLAY = 0, 0, 1, 7, 64
#: an ARRANGE option holds one slot per 3 bits (slot + 1, 0 after the last); a COURAGE option one fan type
#: per seat in 2 bits (type + 1, 0 for none)
ORDER_BITS, COURAGE_BITS = 3, 2
#: the most options a decision can have (ARRANGE: the orders of a 6-card combination)
MAX_OPTIONS = 720

# positions of the state tuple
_DONE, _TURNS, _TIMEOUT, _CURRENT, _KIND = 0, 1, 2, 3, 4
(_KEYS, _DECK, _DECK_N, _HAND, _HAND_N, _PILE, _PILE_N, _FAN, _FAN_N, _FAN_STICKS, _CLOSED, _FAN_POWER, _PLAYS,
 _WINNER, _LIMBO, _RESHUFFLES, _CHOSEN, _CF_DECK, _CF_N, _CF_DISC, _CF_SHUFFLES, _COLUMNS, _COL_N, _COMBO, _RED,
 _RED_J, _RED_K, _PEND, _WISDOM_LEFT, _HELD, _FRESH, _DRAWN, _GEN, _HIDDEN_GEN) = range(5, 39)
# positions of the rules tuple (the last three are scratch space of the rule steps: float64 (>= D),
# int64 (12, 64), bool (P, 3))
(_R_P, _R_POWERS, _R_CHOSEN_FAN, _R_WIN_AT, _R_MAX_TURNS, _R_ST, _R_PW, _R_TABLE, _R_FBUF, _R_IWORK,
 _R_OK) = range(11)

#: what a compiled strategy sees at a decision: whole arrays of the batch with its game ``g`` and seat ``me``.
#: Index them ``[g, ...]``; of the hands only ``hand[g, me]`` is the seat's to see (``hand_n`` is public).
#: Public: ``deck_n``, every discard pile (``pile`` / ``pile_n``, bottom first), the fans (``fan``,
#: ``fan_n``, ``fan_sticks``, ``closed``, ``fan_power``), ``chosen`` fans, the solo ``columns`` / ``col_n``,
#: the closed-fan deck's size ``cf_n`` and discards ``cf_disc``, ``plays`` per seat, ``turns``, and ``red``
#: (the redeemed cards still to be placed, -1 elsewhere). ``ST`` / ``PW``: sticks and power symbol per card
#: id (these rules); ``table``: the combination table (:func:`combinations`); ``powers``, ``chosen_fan``: the
#: variants. Per decision: ``combo`` / ``n_redeem`` (ARRANGE: the combination's slot mask, the cards it
#: redeems; else 0), ``card`` (PLACE: the card drawn; else -1), ``wisdom_left`` (WISDOM: cards still drawn).
#: The public record of the hands (multiplayer; see :class:`SensuState`): ``held``, ``fresh``, ``drawn``,
#: ``reshuffles``, ``gen`` and ``hidden_gen``.
SensuView = namedtuple("SensuView", ["g", "me", "players", "kind", "hand", "hand_n", "deck_n", "pile", "pile_n",
                                     "fan", "fan_n", "fan_sticks", "closed", "fan_power", "chosen", "columns",
                                     "col_n", "cf_n", "cf_disc", "plays", "turns", "red", "ST", "PW", "table",
                                     "powers", "chosen_fan", "combo", "n_redeem", "card", "wisdom_left",
                                     "held", "fresh", "drawn", "reshuffles", "max_turns", "gen", "hidden_gen"])


# ----- helpers for compiled strategies --------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def slot_cards(obs, out):
    """The cards a combination can use, by slot, into ``out`` (6; -1 empty): the own hand's first six
    cards, in solo the exposed card of each place (0 the pile top, 1..4 the column ends)."""
    if obs.players == 1:
        _place_cards(obs.pile, obs.pile_n, obs.columns, obs.col_n, obs.g, out)
    else:
        _hand_cards(obs.hand, obs.hand_n, obs.g, obs.me, out)
    return out


@numba.njit(cache=True, inline="always")
def combinations(obs, cards, scratch):
    """The combinations among slot ``cards`` (6) as a bit set over the 64 slot masks (bit m: mask m is a
    combination; solo: of 3 to 5 cards). ``scratch``: int64 (4, 64)."""
    return _combo_bits(cards, CARD_VALUE, CARD_WILD, DIGIT, obs.table, scratch, 3 if obs.players == 1 else 2)


@numba.njit(cache=True, inline="always")
def combinations_with(obs, cards, c):
    """The combinations of at most five cards that hold card ``c`` together with some of the five slot
    ``cards[0:5]`` (all present), as a bit set over the slot masks with ``c`` in slot 5 (quicker than
    :func:`combinations` of the six cards, which includes the six-card ones)."""
    return _combo_bits_with(cards, c, DIGIT, obs.table)


@numba.njit(cache=True, inline="always")
def sources(obs):
    """The sources a card can be drawn from, as a bit set: bit 0 the deck, bit 1 + s seat s's pile."""
    return _sources(obs.deck_n, obs.pile_n, obs.g)


@numba.njit(cache=True, inline="always")
def pile_top(obs, q):
    """The top card of seat q's discard pile (-1 when empty)."""
    k = obs.pile_n[obs.g, q]
    return obs.pile[obs.g, q, k - 1] if k > 0 else -1


@numba.njit(cache=True, inline="always")
def fits(obs, seat, c):
    """Whether card c (-1: no card) would go onto ``seat``'s fan of its type (not closed, at most 10
    sticks, and 10 only on the chosen fan)."""
    return _fits_one(obs.fan_sticks, obs.closed, obs.chosen, obs.g, seat, c, obs.ST, CARD_TYPE)


@numba.njit(cache=True, inline="always")
def harmony_options(obs):
    """Harmony: the seats whose pile top fits the own fans, as a bit set."""
    return _harmony_bits(obs.pile, obs.pile_n, obs.fan_sticks, obs.closed, obs.chosen, obs.g, obs.me, obs.ST)


@numba.njit(cache=True, inline="always")
def removable(obs, o, t):
    """Courage: whether the last card of opponent o's fan t may be removed (an unclosed, non-empty fan of
    another seat whose last card bears no power symbol)."""
    n = obs.fan_n[obs.g, o, t]
    if o == obs.me or n == 0 or obs.closed[obs.g, o, t]:
        return False
    return not obs.PW[obs.fan[obs.g, o, t, n - 1]]


@numba.njit(cache=True, inline="always")
def arrange_option(order):
    """The ARRANGE option of ``order`` (6: slots, then -1)."""
    code = 0
    for j in range(SLOTS):
        s = order[j]
        if s < 0:
            break
        code |= (s + 1) << (ORDER_BITS * j)
    return code


@numba.njit(cache=True, inline="always")
def courage_option(choice, players):
    """The COURAGE option of ``choice`` (per seat the fan type, -1 for none)."""
    code = 0
    for o in range(players):
        if choice[o] >= 0:
            code |= (choice[o] + 1) << (COURAGE_BITS * o)
    return code


# ----- the protocol ---------------------------------------------------------------------------------
@_step
def _harmony_bits(pile, pile_n, fan_sticks, closed, chosen, g, p, ST):
    """The seats whose pile top fits seat p's fans, as a bit set."""
    bits = 0
    for q in range(pile_n.shape[1]):
        k = pile_n[g, q]
        if k > 0 and _fits_one(fan_sticks, closed, chosen, g, p, pile[g, q, k - 1], ST, CARD_TYPE):
            bits |= 1 << q
    return bits


@_inline
def _slot_cards_of(S, R, g, p, out):
    """The slot cards of seat p in game g into ``out`` (the hand, or the solo places)."""
    if R[_R_P] == 1:
        _place_cards(S[_PILE], S[_PILE_N], S[_COLUMNS], S[_COL_N], g, out)
    else:
        _hand_cards(S[_HAND], S[_HAND_N], g, p, out)


@_inline
def _combos_of(S, R, g, p, cards):
    """The combinations (bit set over slot masks) of seat p's slot cards, left in ``cards``."""
    _slot_cards_of(S, R, g, p, cards)
    return _combo_bits(cards, CARD_VALUE, CARD_WILD, DIGIT, R[_R_TABLE], R[_R_IWORK][4:8],
                       3 if R[_R_P] == 1 else 2)


@_inline
def _solo_end_check(S, R, g):
    """Solo: with the deck empty and no combination among the exposed cards the game is over (this is
    not a turn). It is not checked at the turn limit, which stops the game first (a timeout)."""
    if S[_DONE][g] or S[_DECK_N][g] > 0 or S[_TURNS][g] >= R[_R_MAX_TURNS]:
        return
    if _combos_of(S, R, g, 0, R[_R_IWORK][0, :SLOTS]) == 0:
        S[_DONE][g] = True


@_inline
def _end_play(S, R, g, p):
    """The turn is over: count it; the next decision is the start of a turn (multiplayer: of the next seat)."""
    if R[_R_P] == 1:
        S[_TURNS][g] += 1
        S[_KIND][g] = Decision.SOLO_TURN
        _solo_end_check(S, R, g)
    else:
        _end_turn(S[_TURNS], S[_CURRENT], g, p, R[_R_P])
        S[_KIND][g] = Decision.TURN


@_step   # not inlined: one copy serves every decision kind (compile time)
def _build(S, R, g, p, c):
    """Place card ``c`` (Harmony's card; -1: the next redeemed card) and then the redeemed cards still to be
    placed, in order: each goes onto seat p's fan of its type if it fits, else onto p's pile; closing the
    chosen fan draws a new one; the second closed fan wins at once (the later redeemed cards stay in
    ``limbo``). A power that fires and has something to act on becomes the next decision; otherwise the
    play, and the turn, end."""
    P = R[_R_P]
    ST, PW = R[_R_ST], R[_R_PW]
    fan, fan_n, fan_sticks, closed = S[_FAN], S[_FAN_N], S[_FAN_STICKS], S[_CLOSED]
    pile, pile_n, chosen = S[_PILE], S[_PILE_N], S[_CHOSEN]
    red, red_j, red_k = S[_RED], S[_RED_J], S[_RED_K]
    key = S[_KEYS][g]
    buf = R[_R_FBUF]
    while True:
        if c < 0:
            j = red_j[g]
            if j >= red_k[g]:
                break
            c = np.int64(red[g, j])
            red[g, j] = -1
            red_j[g] = j + 1
        status, trig = _place_one(fan, fan_n, fan_sticks, closed, S[_FAN_POWER], pile, pile_n, chosen, g, p, c,
                                  ST, PW, CARD_TYPE, R[_R_POWERS], R[_R_WIN_AT])
        if status == 3:  # won: the redeemed cards not placed yet stay unplaced
            S[_WINNER][g] = p
            S[_DONE][g] = True
            limbo = S[_LIMBO]
            for q in range(3):
                limbo[g, q] = -1
            for q in range(red_j[g], red_k[g]):
                limbo[g, q - red_j[g]] = red[g, q]
                red[g, q] = -1
            break
        if R[_R_CHOSEN_FAN] and status == 2 and chosen[g, p] == CARD_TYPE[c]:
            _new_chosen_one(S[_CF_DECK], S[_CF_N], S[_CF_DISC], S[_CF_SHUFFLES], chosen, closed, key, g, p, buf)
        if P > 1 and status == 0:
            _refill_one(S[_DECK], S[_DECK_N], pile, pile_n, S[_RESHUFFLES], key, g, buf, S[_FRESH], S[_DRAWN], S[_GEN])
        c = -1
        if trig == WISDOM:
            if _sources(S[_DECK_N], pile_n, g) != 0:
                S[_WISDOM_LEFT][g] = 3
                S[_KIND][g] = Decision.WISDOM
                return
        elif trig == COURAGE:
            if _courage_ok_one(fan, fan_n, closed, PW, g, p, R[_R_OK]):
                S[_KIND][g] = Decision.COURAGE
                return
        elif trig == HARMONY:
            if _harmony_bits(pile, pile_n, fan_sticks, closed, chosen, g, p, ST) != 0:
                S[_KIND][g] = Decision.HARMONY
                return
    red_j[g] = 0
    red_k[g] = 0
    _end_play(S, R, g, p)


@_step
def _decode_order(opt, order):
    """The slots of ARRANGE option ``opt`` into ``order`` (6, -1 after the last); False if malformed."""
    if opt < 0 or opt >= (1 << (ORDER_BITS * SLOTS)):
        return False
    end = False
    for j in range(SLOTS):
        d = (opt >> (ORDER_BITS * j)) & 7
        if d == 0:
            end = True
            order[j] = -1
        elif end or d > SLOTS:
            return False
        else:
            order[j] = d - 1
    return True


@_inline
def _note_taken(S, g, p, s):
    """The public record of a draw of seat p from source ``s`` (the card is the hand's last): a card taken
    from a face-up pile is known to be in p's hand (``held``); a card from the deck joins p's hidden cards
    with the deck's generation (``hidden_gen``: the last reshuffle's number, the largest, so the list stays
    ascending) and, after a reshuffle, is counted in ``drawn`` (before the deck is refilled: a reshuffle
    that follows makes it an old card)."""
    if s > 0:
        S[_HELD][g, S[_HAND][g, p, S[_HAND_N][g, p] - 1]] = p
    else:
        hg = S[_HIDDEN_GEN]
        j = 0
        while j < HAND - 1 and hg[g, p, j] >= 0:
            j += 1
        hg[g, p, j] = S[_RESHUFFLES][g]
        if S[_RESHUFFLES][g] > 0:
            S[_DRAWN][g, p] += 1


@_inline
def _note_leaves(S, g, p, c):
    """The public record of card ``c`` leaving seat p's hand face up (discarded or played): no longer
    known to be held; a hidden card leaves p's ``hidden_gen`` (one entry of its generation) and, if it is
    of the last reshuffle's deck, p's ``drawn`` count."""
    if S[_HELD][g, c] == p:
        S[_HELD][g, c] = -1
        return
    if S[_RESHUFFLES][g] > 0 and S[_FRESH][g, c]:
        S[_DRAWN][g, p] -= 1
    hg = S[_HIDDEN_GEN]
    k = S[_GEN][g, c]
    j = 0
    while j < HAND - 1 and hg[g, p, j] != k:
        j += 1
    while j < HAND - 1 and hg[g, p, j + 1] >= 0:
        hg[g, p, j] = hg[g, p, j + 1]
        j += 1
    hg[g, p, j] = -1


@_inline
def _step_turn(S, R, g, opt):
    p = S[_CURRENT][g]
    P = R[_R_P]
    deck_n, pile_n, hand_n = S[_DECK_N], S[_PILE_N], S[_HAND_N]
    if opt >= PLAY:
        mask = opt - PLAY
        if mask >= 64:
            return False
        cards = R[_R_IWORK][0, :SLOTS]
        if not (_combos_of(S, R, g, p, cards) >> numba.uint64(mask)) & numba.uint64(1):
            return False
        S[_COMBO][g] = mask
        S[_RED_J][g] = 0
        S[_RED_K][g] = _redeem_one(cards, mask, CARD_VALUE, CARD_WILD, CARD_TYPE)
        S[_KIND][g] = Decision.ARRANGE
        return True
    src = _sources(deck_n, pile_n, g)
    if opt == PASS:
        if src != 0:
            return False
        _end_play(S, R, g, p)
        return True
    if opt < 0 or opt > P or not ((src >> opt) & 1):
        return False
    _draw_one(S[_DECK], deck_n, S[_PILE], pile_n, S[_HAND], hand_n, g, p, opt)
    _note_taken(S, g, p, opt)
    _refill_one(S[_DECK], deck_n, S[_PILE], pile_n, S[_RESHUFFLES], S[_KEYS][g], g, R[_R_FBUF], S[_FRESH], S[_DRAWN],
                S[_GEN])
    if hand_n[g, p] > 5:
        S[_KIND][g] = Decision.DISCARD
    else:
        _end_play(S, R, g, p)
    return True


@_inline
def _step_discard(S, R, g, opt):
    p = S[_CURRENT][g]
    hand_n = S[_HAND_N]
    if opt < 0 or opt >= hand_n[g, p]:
        return False
    _note_leaves(S, g, p, S[_HAND][g, p, opt])
    _discard_one(S[_PILE], S[_PILE_N], S[_HAND], hand_n, g, p, opt)
    _refill_one(S[_DECK], S[_DECK_N], S[_PILE], S[_PILE_N], S[_RESHUFFLES], S[_KEYS][g], g, R[_R_FBUF], S[_FRESH],
                S[_DRAWN], S[_GEN])
    if hand_n[g, p] <= 5:
        _end_play(S, R, g, p)
    return True


#: what the steps of the build's decisions return besides the card to go on with (-1: the next redeemed card)
_ILLEGAL, _WAIT = -3, -2


@_inline
def _step_arrange(S, R, g, opt):
    """ARRANGE: take the combination (the unredeemed cards onto the pile in order, the deck refilled the moment
    it is empty); the build follows."""
    p = S[_CURRENT][g]
    work = R[_R_IWORK]
    cards, order = work[0, :SLOTS], work[1, :SLOTS]
    mask, k = S[_COMBO][g], S[_RED_K][g]
    if not _decode_order(opt, order):
        return False
    _slot_cards_of(S, R, g, p, cards)
    if _arrange_bad(cards, mask, order, k, R[_R_ST], work[2], work[3]):
        return False
    red = S[_RED][g]
    if R[_R_P] == 1:
        _take_places_one(S[_PILE], S[_PILE_N], S[_COLUMNS], S[_COL_N], g, order, k, red)
    else:
        for j in range(SLOTS):
            if order[j] >= 0:
                _note_leaves(S, g, p, S[_HAND][g, p, order[j]])
        _take_hand_one(S[_HAND], S[_HAND_N], S[_PILE], S[_PILE_N], S[_DECK], S[_DECK_N], S[_RESHUFFLES], S[_KEYS][g],
                       g, p, order, k, red, R[_R_FBUF], S[_FRESH], S[_DRAWN], S[_GEN])
    S[_PLAYS][g, p] += 1
    S[_COMBO][g] = 0
    S[_RED_J][g] = 0
    return True


@_step   # not inlined: the powers fire a few times a game
def _step_power(S, R, g, opt):
    """WISDOM, HARMONY or COURAGE: apply the option; returns the card the build goes on with (Harmony's
    card, -1 the next redeemed card), ``_WAIT`` when Wisdom draws again, ``_ILLEGAL``."""
    kind = S[_KIND][g]
    p = S[_CURRENT][g]
    P = R[_R_P]
    deck_n, pile, pile_n = S[_DECK_N], S[_PILE], S[_PILE_N]
    if kind == Decision.WISDOM:
        src = _sources(deck_n, pile_n, g)
        if opt < 0 or opt > P or not ((src >> opt) & 1):
            return _ILLEGAL
        _draw_one(S[_DECK], deck_n, pile, pile_n, S[_HAND], S[_HAND_N], g, p, opt)
        _note_taken(S, g, p, opt)
        _refill_one(S[_DECK], deck_n, pile, pile_n, S[_RESHUFFLES], S[_KEYS][g], g, R[_R_FBUF], S[_FRESH], S[_DRAWN],
                    S[_GEN])
        left = S[_WISDOM_LEFT][g] - 1
        if left > 0 and _sources(deck_n, pile_n, g) != 0:
            S[_WISDOM_LEFT][g] = left
            return _WAIT
        S[_WISDOM_LEFT][g] = 0
        return -1
    if kind == Decision.HARMONY:
        if opt < 0 or opt >= P:
            return _ILLEGAL
        if not ((_harmony_bits(pile, pile_n, S[_FAN_STICKS], S[_CLOSED], S[_CHOSEN], g, p, R[_R_ST]) >> opt) & 1):
            return _ILLEGAL
        return np.int64(_pile_take_one(pile, pile_n, g, opt))
    # COURAGE
    ok = R[_R_OK]
    choice = R[_R_IWORK][8, :P]
    if opt < 0 or opt >= (1 << (COURAGE_BITS * P)):
        return _ILLEGAL
    _courage_ok_one(S[_FAN], S[_FAN_N], S[_CLOSED], R[_R_PW], g, p, ok)
    for o in range(P):
        t = ((opt >> (COURAGE_BITS * o)) & 3) - 1
        if ok[o, 0] or ok[o, 1] or ok[o, 2]:
            if t < 0 or t > 2 or not ok[o, t]:
                return _ILLEGAL
        elif t != -1:
            return _ILLEGAL
        choice[o] = t
    _courage_one(S[_FAN], S[_FAN_N], S[_FAN_STICKS], pile, pile_n, S[_DECK], deck_n, S[_RESHUFFLES], R[_R_ST],
                 S[_KEYS][g], g, ok, choice, R[_R_FBUF], S[_FRESH], S[_DRAWN], S[_GEN])
    return -1


@_inline
def _step_solo_turn(S, R, g, opt):
    if opt == DRAW:
        if S[_DECK_N][g] == 0:  # drawing from the empty deck ends the game (not a turn)
            S[_DONE][g] = True
            return True
        S[_PEND][g] = _deck_take_one(S[_DECK], S[_DECK_N], g)
        S[_KIND][g] = Decision.PLACE
        return True
    if opt < PLAY or opt >= PLAY + 64:
        return False
    mask = opt - PLAY
    cards = R[_R_IWORK][0, :SLOTS]
    if not (_combos_of(S, R, g, 0, cards) >> numba.uint64(mask)) & numba.uint64(1):
        return False
    S[_COMBO][g] = mask
    S[_RED_J][g] = 0
    S[_RED_K][g] = _redeem_one(cards, mask, CARD_VALUE, CARD_WILD, CARD_TYPE)
    S[_KIND][g] = Decision.ARRANGE
    return True


@_inline
def _step_place(S, R, g, opt):
    if opt < 0 or opt > 4:
        return False
    _solo_put_one(S[_PILE], S[_PILE_N], S[_COLUMNS], S[_COL_N], g, S[_PEND][g], opt)
    S[_PEND][g] = -1
    _end_play(S, R, g, 0)
    return True


@_inline
def begin(S, R, g):
    """Set the first decision of game g (nothing if it has begun or is over); the deal is in the state."""
    if S[_KIND][g] < 0 and not S[_DONE][g]:
        S[_KIND][g] = Decision.TURN if R[_R_P] > 1 else Decision.SOLO_TURN


@numba.njit(forceinline=True, **NO_REFCOUNT)
def step_inline(S, R, g, opt):
    """Apply option ``opt`` at game g's current decision and run the rules to the next decision.
    Returns False (changing nothing) when the option is not legal. The compiled lane's loop has it
    inlined by LLVM (``forceinline``: typed and cached once with the engine, so a lineup's module does
    not type the rules again; a call would copy the whole state tuple); :func:`step` is the same as an
    ordinary function."""
    if S[_DONE][g]:
        return False
    kind = S[_KIND][g]
    if kind == Decision.TURN:
        return _step_turn(S, R, g, opt)
    if kind == Decision.DISCARD:
        return _step_discard(S, R, g, opt)
    if kind == Decision.SOLO_TURN:
        return _step_solo_turn(S, R, g, opt)
    if kind == Decision.PLACE:
        return _step_place(S, R, g, opt)
    if kind == Decision.ARRANGE:
        if not _step_arrange(S, R, g, opt):
            return False
        c = -1
    elif kind == Decision.WISDOM or kind == Decision.HARMONY or kind == Decision.COURAGE:
        c = _step_power(S, R, g, opt)
        if c == _ILLEGAL:
            return False
        if c == _WAIT:
            return True
    else:
        return False
    _build(S, R, g, S[_CURRENT][g], c)   # the one call of the build (compile time)
    return True


@numba.njit(**NO_REFCOUNT)
def step(S, R, g, opt):
    """:func:`step_inline` as an ordinary compiled function (searches, traces, calls from Python)."""
    return step_inline(S, R, g, opt)


@numba.njit(**NO_REFCOUNT)
def begin_batch(S, R, idx):
    """:func:`begin` for the games ``idx`` (the batch lane; compiled and cached once with the engine, so
    that a lineup's module does not compile the rules again)."""
    for i in range(idx.shape[0]):
        begin(S, R, idx[i])


@numba.njit(**NO_REFCOUNT)
def step_batch(S, R, idx, opts, missing):
    """:func:`step` for the games ``idx``: the position of the first illegal option (or ``missing``), or -1."""
    for i in range(idx.shape[0]):
        if opts[i] == missing or not step_inline(S, R, idx[i], opts[i]):
            return i
    return -1


@numba.njit(cache=True, inline="always")
def observe(S, R, g, seat):
    """What ``seat`` may know in game g at its current decision (a :data:`SensuView`)."""
    kind = S[_KIND][g]
    combo, n_redeem = 0, 0
    if kind == Decision.ARRANGE:
        combo, n_redeem = S[_COMBO][g], S[_RED_K][g]
    return SensuView(g, seat, R[_R_P], kind, S[_HAND], S[_HAND_N], S[_DECK_N], S[_PILE], S[_PILE_N], S[_FAN],
                     S[_FAN_N], S[_FAN_STICKS], S[_CLOSED], S[_FAN_POWER], S[_CHOSEN], S[_COLUMNS], S[_COL_N],
                     S[_CF_N], S[_CF_DISC], S[_PLAYS], S[_TURNS], S[_RED], R[_R_ST], R[_R_PW], R[_R_TABLE],
                     R[_R_POWERS], R[_R_CHOSEN_FAN], combo, n_redeem, S[_PEND][g], S[_WISDOM_LEFT][g],
                     S[_HELD], S[_FRESH], S[_DRAWN], S[_RESHUFFLES], R[_R_MAX_TURNS], S[_GEN], S[_HIDDEN_GEN])


@_step
def legal(S, R, g, out):
    """The legal options at game g's current decision into ``out`` (length >= MAX_OPTIONS); returns how
    many (0 for a finished game)."""
    if S[_DONE][g]:
        return 0
    kind = S[_KIND][g]
    p = S[_CURRENT][g]
    P = R[_R_P]
    work = R[_R_IWORK]
    n = 0
    if kind == Decision.TURN or kind == Decision.WISDOM:
        src = _sources(S[_DECK_N], S[_PILE_N], g)
        for s in range(1 + P):
            if (src >> s) & 1:
                out[n] = s
                n += 1
        if kind == Decision.TURN:
            if src == 0:
                out[n] = PASS
                n += 1
            bits = _combos_of(S, R, g, p, work[0, :SLOTS])
            for m in range(64):
                if (bits >> numba.uint64(m)) & numba.uint64(1):
                    out[n] = PLAY + m
                    n += 1
    elif kind == Decision.SOLO_TURN:
        out[0] = DRAW
        n = 1
        bits = _combos_of(S, R, g, 0, work[0, :SLOTS])
        for m in range(64):
            if (bits >> numba.uint64(m)) & numba.uint64(1):
                out[n] = PLAY + m
                n += 1
    elif kind == Decision.DISCARD:
        for s in range(S[_HAND_N][g, p]):
            out[n] = s
            n += 1
    elif kind == Decision.PLACE:
        for s in range(5):
            out[n] = s
            n += 1
    elif kind == Decision.HARMONY:
        bits = _harmony_bits(S[_PILE], S[_PILE_N], S[_FAN_STICKS], S[_CLOSED], S[_CHOSEN], g, p, R[_R_ST])
        for q in range(P):
            if (bits >> q) & 1:
                out[n] = q
                n += 1
    elif kind == Decision.ARRANGE:
        cards, order, slots, perm = work[0, :SLOTS], work[1, :SLOTS], work[9], work[10]
        _slot_cards_of(S, R, g, p, cards)
        mask, k = S[_COMBO][g], S[_RED_K][g]
        c = 0
        for s in range(SLOTS):
            if (mask >> s) & 1:
                slots[c] = s
                c += 1
        for j in range(c):
            perm[j] = j
        while True:
            for j in range(SLOTS):
                order[j] = slots[perm[j]] if j < c else -1
            if not _arrange_bad(cards, mask, order, k, R[_R_ST], work[2], work[3]):
                out[n] = arrange_option(order)
                n += 1
            # the next permutation of perm[:c] in lexicographic order
            i = c - 2
            while i >= 0 and perm[i] >= perm[i + 1]:
                i -= 1
            if i < 0:
                break
            j = c - 1
            while perm[j] <= perm[i]:
                j -= 1
            perm[i], perm[j] = perm[j], perm[i]
            a, b = i + 1, c - 1
            while a < b:
                perm[a], perm[b] = perm[b], perm[a]
                a += 1
                b -= 1
    elif kind == Decision.COURAGE:
        ok = R[_R_OK]
        _courage_ok_one(S[_FAN], S[_FAN_N], S[_CLOSED], R[_R_PW], g, p, ok)
        pos = work[11]
        for o in range(P):
            pos[o] = 0
        while True:
            code = 0
            for o in range(P):
                if ok[o, 0] or ok[o, 1] or ok[o, 2]:
                    seen = 0
                    for t in range(3):
                        if ok[o, t]:
                            if seen == pos[o]:
                                code |= (t + 1) << (COURAGE_BITS * o)
                            seen += 1
            out[n] = code
            n += 1
            o = 0
            while o < P:  # the next choice, seat 0 fastest
                cnt = 0
                for t in range(3):
                    cnt += ok[o, t]
                if cnt > 0:
                    pos[o] += 1
                    if pos[o] < cnt:
                        break
                    pos[o] = 0
                o += 1
            if o == P:
                break
    return n


# ----------------------------------------------------------------------------------------------------
# Determinization (the search player, ``simcore/search.py``): a whole game built from one seat's view
#
# What a seat has seen: its own hand, every discard pile card by card, every fan, the solo columns, the
# redeemed cards being placed, the chosen fans and the closed-fan deck's size and discards, the hand and
# deck sizes, and the public record of the hands (``held``: cards taken from a face-up pile are known to
# be in the taker's hand until played or discarded; ``gen`` / ``hidden_gen``: each reshuffle makes its
# deck of cards that were face up, so every unseen card's generation (the reshuffle whose deck it last went
# into, 0 for the starting deck) is public, a draw from the deck is of the last one, and how many hidden
# cards of each generation every seat holds is public too). What it has not: the deck order, the other
# hands' unknown cards, and with ``chosen_fan`` the closed-fan deck's order. The sampler deals the cards it
# has not seen at random into those places, keeping the public record: every other seat gets as many
# unseen cards of each generation as it holds, and the deck the rest of the last generation's (before the
# first reshuffle, one pool). It reads only the view, so the truth cannot leak.

@numba.njit(cache=True, **REFCOUNT)
def scratch(ob):
    """A fresh one-game state tuple and rules tuple shaped like the engine's, for the game of view ``ob``
    (the search's private copy; :func:`sample` fills it)."""
    P = ob.players
    D = ob.pile.shape[2]
    S = (np.zeros(1, dtype=np.bool_), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.bool_),
         np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint64),
         np.full((1, D), -1, dtype=np.int8), np.zeros(1, dtype=np.int64),
         np.full((1, P, HAND), -1, dtype=np.int8), np.zeros((1, P), dtype=np.int64),
         np.full((1, P, D), -1, dtype=np.int8), np.zeros((1, P), dtype=np.int64),
         np.full((1, P, 3, FAN), -1, dtype=np.int8), np.zeros((1, P, 3), dtype=np.int64),
         np.zeros((1, P, 3), dtype=np.int64), np.zeros((1, P, 3), dtype=np.bool_), np.zeros((1, P, 3), dtype=np.int64),
         np.zeros((1, P), dtype=np.int64), np.full(1, -1, dtype=np.int64), np.full((1, 3), -1, dtype=np.int8),
         np.zeros(1, dtype=np.int64), np.full((1, P), -1, dtype=np.int64), np.full((1, CF_CARDS), -1, dtype=np.int8),
         np.zeros(1, dtype=np.int64), np.zeros((1, 3), dtype=np.int64), np.zeros(1, dtype=np.int64),
         np.full((1, 4, ob.columns.shape[2]), -1, dtype=np.int8), np.zeros((1, 4), dtype=np.int64),
         np.zeros(1, dtype=np.int64), np.full((1, SLOTS), -1, dtype=np.int8), np.zeros(1, dtype=np.int64),
         np.zeros(1, dtype=np.int64), np.full(1, -1, dtype=np.int64), np.zeros(1, dtype=np.int64),
         np.full((1, 90), -1, dtype=np.int8), np.ones((1, 90), dtype=np.bool_), np.zeros((1, P), dtype=np.int64),
         np.zeros((1, 90), dtype=np.int32), np.full((1, P, HAND), -1, dtype=np.int32))
    R = (np.int64(P), ob.powers, ob.chosen_fan, np.int64(3 if P == 1 else 2), np.int64(ob.max_turns), ob.ST, ob.PW,
         ob.table, np.zeros(max(D, CF_CARDS), dtype=np.float64), np.zeros((12, 64), dtype=np.int64),
         np.zeros((P, 3), dtype=np.bool_))
    return S, R


@numba.njit(cache=True, inline="always")
def n_seats(ob):
    return np.int64(ob.players)


@numba.njit(cache=True, inline="always")
def _w(iw, row, i):
    """Entry i of the flat scratch that starts at row ``row`` of a (16, 64) int64 scratch."""
    return iw[row + (i >> 6), i & 63]


@numba.njit(cache=True, inline="always")
def _w_set(iw, row, i, v):
    iw[row + (i >> 6), i & 63] = v


@numba.njit(cache=True, inline="always")
def _shuffle_flat(iw, row, n, base):
    """Fisher-Yates over the n entries of the flat scratch at ``row`` (uniforms of draw ``base``)."""
    for i in range(n - 1, 0, -1):
        j = integer_below(uniform_at(base, i), i + 1)
        t = _w(iw, row, i)
        _w_set(iw, row, i, _w(iw, row, j))
        _w_set(iw, row, j, t)


@numba.njit(cache=True, inline="always")
def sample(ob, rs, S, R):
    """Write into game 0 of the one-game state ``S`` a determinization of view ``ob``: the public part
    copied, the deciding seat's hand as it is, every other hand's publicly held cards kept, and the cards
    the seat has not seen dealt at random into the other hands' unknown parts (their sizes as seen) and
    the deck (after a reshuffle: the new deck's unseen cards into the deck and the seats' ``drawn`` cards,
    the older ones into the rest of the other hands, each seat getting as many of each older deck as
    ``hidden_gen`` says it holds), with ``chosen_fan`` the closed-fan deck's cards (its composition is
    public) shuffled; a fresh key for later reshuffles. ``rs`` is the search's random stream
    (:data:`simcore.rng.Stream`; its ``iw`` rows 0 to 8 are used)."""
    g, me, P = ob.g, ob.me, ob.players
    D = ob.pile.shape[2]
    S[_DONE][0] = False
    S[_TIMEOUT][0] = False
    S[_TURNS][0] = ob.turns[g]
    S[_CURRENT][0] = ob.turns[g] % P if P > 1 else 0
    S[_KIND][0] = ob.kind
    S[_KEYS][0] = draw_base(rs.keys, rs.counter, rs.f)
    S[_DECK_N][0] = ob.deck_n[g]
    S[_WINNER][0] = -1
    for j in range(3):
        S[_LIMBO][0, j] = -1
    S[_RESHUFFLES][0] = ob.reshuffles[g]
    S[_CF_N][0] = ob.cf_n[g]
    S[_CF_SHUFFLES][0] = 0
    for t in range(3):
        S[_CF_DISC][0, t] = ob.cf_disc[g, t]
    for p in range(P):
        S[_PILE_N][0, p] = ob.pile_n[g, p]
        for i in range(D):
            S[_PILE][0, p, i] = ob.pile[g, p, i]
        for t in range(3):
            S[_FAN_N][0, p, t] = ob.fan_n[g, p, t]
            S[_FAN_STICKS][0, p, t] = ob.fan_sticks[g, p, t]
            S[_CLOSED][0, p, t] = ob.closed[g, p, t]
            S[_FAN_POWER][0, p, t] = ob.fan_power[g, p, t]
            for i in range(FAN):
                S[_FAN][0, p, t, i] = ob.fan[g, p, t, i]
        S[_PLAYS][0, p] = ob.plays[g, p]
        S[_CHOSEN][0, p] = ob.chosen[g, p]
        S[_HAND_N][0, p] = ob.hand_n[g, p]
        S[_DRAWN][0, p] = ob.drawn[g, p]
        for j in range(HAND):
            S[_HAND][0, p, j] = -1
            S[_HIDDEN_GEN][0, p, j] = ob.hidden_gen[g, p, j]
    for q in range(4):
        S[_COL_N][0, q] = ob.col_n[g, q]
        for i in range(ob.columns.shape[2]):
            S[_COLUMNS][0, q, i] = ob.columns[g, q, i]
    S[_COMBO][0] = ob.combo
    S[_PEND][0] = ob.card
    S[_WISDOM_LEFT][0] = ob.wisdom_left
    lo, hi = SLOTS, 0
    for j in range(SLOTS):
        c = ob.red[g, j]
        S[_RED][0, j] = c
        if c >= 0:
            lo = min(lo, j)
            hi = j + 1
    if ob.kind == Decision.ARRANGE:
        S[_RED_J][0] = 0
        S[_RED_K][0] = ob.n_redeem
    elif hi > 0:
        S[_RED_J][0] = lo
        S[_RED_K][0] = hi
    else:
        S[_RED_J][0] = 0
        S[_RED_K][0] = 0
    # where each card is, as far as the seat knows: iw rows 0-1 (1 = not seen), then the pools
    iw = rs.iw
    for c in range(90):
        cp = CARD_COPY[c]
        inplay = cp == 0 if P == 1 else (cp != 1 if P <= 3 else True)
        _w_set(iw, 0, c, 1 if inplay else 0)
        S[_HELD][0, c] = ob.held[g, c]
        S[_FRESH][0, c] = ob.fresh[g, c]
        S[_GEN][0, c] = ob.gen[g, c]
    for p in range(P):
        for i in range(ob.pile_n[g, p]):
            _w_set(iw, 0, ob.pile[g, p, i], 0)
        for t in range(3):
            for i in range(ob.fan_n[g, p, t]):
                _w_set(iw, 0, ob.fan[g, p, t, i], 0)
    for q in range(4):
        for i in range(ob.col_n[g, q]):
            _w_set(iw, 0, ob.columns[g, q, i], 0)
    for j in range(SLOTS):
        if ob.red[g, j] >= 0:
            _w_set(iw, 0, ob.red[g, j], 0)
    if ob.card >= 0:
        _w_set(iw, 0, ob.card, 0)
    if P > 1:
        for j in range(ob.hand_n[g, me]):
            c = ob.hand[g, me, j]
            S[_HAND][0, me, j] = c
            _w_set(iw, 0, c, 0)
    # the held cards of the other hands, at the front of their hands
    known = iw[6]
    for p in range(P):
        known[p] = 0
    for c in range(90):
        p = ob.held[g, c]
        if p >= 0 and p != me:
            S[_HAND][0, p, known[p]] = c
            known[p] += 1
            _w_set(iw, 0, c, 0)
    # two pools (flat scratch at rows 2-3: the new deck's unseen cards; rows 4-5: the older ones);
    # before the first reshuffle every unseen card is in the first
    one_pool = ob.reshuffles[g] == 0 or P == 1
    nf = 0
    no = 0
    for c in range(90):
        if _w(iw, 0, c) == 1:
            if one_pool or ob.fresh[g, c]:
                _w_set(iw, 2, nf, c)
                nf += 1
            else:
                _w_set(iw, 4, no, c)
                no += 1
    _shuffle_flat(iw, 2, nf, draw_base(rs.keys, rs.counter, rs.f))
    _shuffle_flat(iw, 4, no, draw_base(rs.keys, rs.counter, rs.f))
    tf = 0
    need = iw[8]
    for p in range(P):
        if p == me:
            continue
        unknown = ob.hand_n[g, p] - known[p]
        n_new = unknown if one_pool else min(ob.drawn[g, p], unknown)
        k = known[p]
        if unknown > n_new:
            # the older decks' cards: the first unused ones of the shuffled pool whose generations this
            # seat holds (used ones are marked -1), so each generation's cards go out in the pool's order
            n_old = 0
            for j in range(HAND):
                v = ob.hidden_gen[g, p, j]
                if v >= 0 and v != ob.reshuffles[g]:
                    need[n_old] = v
                    n_old += 1
            left = unknown - n_new
            i = 0
            while left > 0 and i < no:
                c = _w(iw, 4, i)
                if c >= 0:
                    hit = -1
                    for j in range(n_old):
                        if need[j] == ob.gen[g, c]:
                            hit = j
                            break
                    if hit >= 0:
                        need[hit] = -2
                        _w_set(iw, 4, i, -1)
                        S[_HAND][0, p, k] = c
                        k += 1
                        left -= 1
                i += 1
            i = 0
            while left > 0 and i < no:  # only where a state was set by hand without its record (tests)
                c = _w(iw, 4, i)
                if c >= 0:
                    _w_set(iw, 4, i, -1)
                    S[_HAND][0, p, k] = c
                    k += 1
                    left -= 1
                i += 1
        for _ in range(n_new):
            if tf < nf:
                S[_HAND][0, p, k] = _w(iw, 2, tf)
                tf += 1
                k += 1
    for i in range(ob.deck_n[g]):
        if tf < nf:
            S[_DECK][0, i] = _w(iw, 2, tf)
            tf += 1
    for i in range(ob.deck_n[g], D):
        S[_DECK][0, i] = -1
    # the closed-fan deck: its composition is public (5 of each type less the chosen, closed and
    # discarded ones), its order is not
    n_cf = ob.cf_n[g]
    for i in range(CF_CARDS):
        S[_CF_DECK][0, i] = -1
    if ob.chosen_fan and n_cf > 0:
        k = 0
        for t in range(3):
            left = 5 - ob.cf_disc[g, t]
            for p in range(P):
                left -= (ob.chosen[g, p] == t) + ob.closed[g, p, t]
            for _ in range(left):
                if k < n_cf:
                    _w_set(iw, 7, k, t)
                    k += 1
        _shuffle_flat(iw, 7, k, draw_base(rs.keys, rs.counter, rs.f))
        for i in range(k):
            S[_CF_DECK][0, i] = _w(iw, 7, i)


@numba.njit(cache=True, inline="always")
def label(S, R, g, opt, viewer):
    """What every seat sees of option ``opt``: the cards of a combination played (a set of card ids, base 91
    digits, above the draw codes), the card discarded, the cards of an arrangement in order; the option
    itself elsewhere (sources, seats, fans and the solo places are public)."""
    kind = S[_KIND][g]
    if R[_R_P] == 1:
        return np.int64(opt)
    p = S[_CURRENT][g]
    hand = S[_HAND]
    if kind == Decision.TURN and opt >= PLAY:
        mask = opt - PLAY
        code = np.int64(0)
        prev = -1
        for _ in range(SLOTS):  # the cards in increasing id order
            best = 1000
            for s in range(SLOTS):
                if (mask >> s) & 1:
                    c = np.int64(hand[g, p, s])
                    if c > prev and c < best:
                        best = c
            if best == 1000:
                break
            code = code * 91 + best + 1
            prev = best
        return code + PLAY
    if kind == Decision.DISCARD:
        return np.int64(hand[g, p, opt])
    if kind == Decision.ARRANGE:
        code = np.int64(0)
        for j in range(SLOTS):
            d = (opt >> (ORDER_BITS * j)) & 7
            if d == 0:
                break
            code = code * 91 + np.int64(hand[g, p, d - 1]) + 1
        return code
    return np.int64(opt)


@numba.njit(cache=True, inline="always")
def stop(S, R, g, ob):
    """The search's horizon: the end of the game (or the turn limit)."""
    return S[_DONE][g] or S[_TURNS][g] >= R[_R_MAX_TURNS]


#: the sticks of the whole solo deck with the most generous table (the solo reward's scale)
SOLO_SCALE = 78.0


@numba.njit(cache=True, inline="always")
def _progress(S, g, p):
    """The sticks of seat p's two best fans / 20 (1 with two closed fans)."""
    a, b = 0, 0
    for t in range(3):
        v = S[_FAN_STICKS][g, p, t]
        if v > a:
            a, b = v, a
        elif v > b:
            b = v
    return (a + b) / 20.0


@numba.njit(cache=True, inline="always")
def value(S, R, g, ob, out):
    """Each seat's reward at the horizon: 1 for the winner, 0 for the others (nobody at the turn limit, a
    timeout); a rollout cut before the end: 0.5 plus half the lead of the seat's two best fans (sticks / 20)
    over the best other seat's. Solo: the score / 78 (the whole solo deck's sticks with table ``A``)."""
    P = R[_R_P]
    if P == 1:
        ST = R[_R_ST]
        tot = 0.0
        allc = True
        for t in range(3):
            tot += S[_FAN_STICKS][g, 0, t]
            allc = allc and S[_CLOSED][g, 0, t]
        if allc:
            for i in range(S[_DECK_N][g]):
                tot += ST[S[_DECK][g, i]]
        out[0] = min(tot / SOLO_SCALE, 1.0)
        return
    if S[_DONE][g] or S[_TURNS][g] >= R[_R_MAX_TURNS]:
        w = S[_WINNER][g]
        for p in range(P):
            out[p] = 1.0 if p == w else 0.0
        return
    for p in range(P):
        best = 0.0
        for q in range(P):
            if q != p:
                best = max(best, _progress(S, g, q))
        out[p] = 0.5 + 0.5 * (_progress(S, g, p) - best)


@numba.njit(cache=True)
def _sample_many(ob, keys, n, hands, decks, cf_decks):
    S, R = scratch(ob)
    counter = np.zeros(1, dtype=np.int64)
    fw = np.zeros((16, 64), dtype=np.float64)
    iw = np.zeros((16, 64), dtype=np.int64)
    rs = Stream(keys, counter, 0, fw, iw)
    for t in range(n):
        sample(ob, rs, S, R)
        hands[t] = S[_HAND][0]
        decks[t] = S[_DECK][0]
        cf_decks[t] = S[_CF_DECK][0]


@numba.njit(cache=True)
def _k_sample_many(S, R, g, seat, keys, n, hands, decks, cf_decks):
    _sample_many(observe(S, R, g, seat), keys, n, hands, decks, cf_decks)


# ----------------------------------------------------------------------------------------------------
# State
# ----------------------------------------------------------------------------------------------------
@dataclass
class SensuState:
    keys: np.ndarray
    players: int
    rules: SensuRules
    done: np.ndarray
    turns: np.ndarray
    timeout: np.ndarray
    current: np.ndarray
    deck: np.ndarray
    deck_n: np.ndarray
    hand: np.ndarray
    hand_n: np.ndarray
    pile: np.ndarray
    pile_n: np.ndarray
    fan: np.ndarray
    fan_n: np.ndarray
    fan_sticks: np.ndarray
    closed: np.ndarray
    fan_power: np.ndarray
    plays: np.ndarray
    winner: np.ndarray
    limbo: np.ndarray
    reshuffles: np.ndarray
    chosen: np.ndarray
    cf_deck: np.ndarray
    cf_n: np.ndarray
    cf_disc: np.ndarray
    cf_shuffles: np.ndarray
    columns: np.ndarray
    col_n: np.ndarray
    #: the decision each game is at (:class:`Decision`; -1 before ``begin``)
    kind: np.ndarray
    #: ARRANGE: the slot mask of the combination played (0 elsewhere)
    combo: np.ndarray
    #: the redeemed cards still to be placed: ``red[g, red_j[g]:red_k[g]]`` (-1 elsewhere); at ARRANGE
    #: ``red_k`` is the number of cards the combination redeems
    red: np.ndarray
    red_j: np.ndarray
    red_k: np.ndarray
    #: solo: the card drawn, waiting for its place (-1 elsewhere)
    pend: np.ndarray
    #: Wisdom: cards still to draw
    wisdom_left: np.ndarray
    #: public knowledge of the hands (multiplayer): ``held[g, c]`` the seat known to hold card c (taken from
    #: a face-up pile, not played or discarded since), -1 otherwise; ``fresh[g, c]`` card c went into the deck
    #: at the last reshuffle (all True before the first); ``drawn[g, p]`` the cards seat p holds that it drew
    #: from the deck since the last reshuffle (0 before the first); ``gen[g, c]`` the reshuffle whose deck
    #: card c last went into (0: the starting deck); ``hidden_gen[g, p]`` the generations of the cards seat p
    #: holds that no one else has seen (dealt or drawn from the deck), ascending, -1 after them
    held: np.ndarray
    fresh: np.ndarray
    drawn: np.ndarray
    gen: np.ndarray
    hidden_gen: np.ndarray
    ST: np.ndarray
    PW: np.ndarray


# ----------------------------------------------------------------------------------------------------
# The engine
# ----------------------------------------------------------------------------------------------------
class Sensu(Game):
    name: ClassVar[str] = "sensu"
    title: ClassVar[str] = "Sensu"
    summary: ClassVar[str] = "Play hand cards summing to 20 to redeem sticks; close two fans of 10 to win (or solo)."
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 5
    default_players: ClassVar[int] = 4
    #: the sticks and power-symbol tables in the state are shared by the batch
    state_constants: ClassVar[tuple[str, ...]] = ("ST", "PW")
    Rules: ClassVar[type] = SensuRules
    Player: ClassVar[type] = Player
    decisions: ClassVar[tuple[str, ...]] = DECISIONS
    kernels: ClassVar[str] = "simcore.games.sensu"
    step_inline: ClassVar[bool] = True
    columns: ClassVar[dict[str, str]] = {
        "fans_closed": "fans closed per seat at the end, int (n, P)",
        "plays": "combinations played, all players, int (n,)",
        "plays_seat": "combinations played per seat, int (n, P)",
        "reshuffles": "times the discard piles were shuffled into a new deck, int (n,)",
        "level": "solo only: one-hot level (Gutted..Grandmaster), int (n, 6)",
    }
    ratio_metrics: ClassVar[tuple[Metric, ...]] = (
        Metric("mean_plays", "plays"),
        Metric("mean_fans_closed", "fans_closed", per_seat=True),
        Metric("mean_plays_seat", "plays_seat", per_seat=True),
        Metric("mean_sticks", "score", per_seat=True),
        Metric("mean_reshuffles", "reshuffles"),
    )
    #: the solo metrics of :meth:`metrics` (their intervals come from these columns)
    metric_columns: ClassVar[dict[str, str]] = {"mean_score": "score", "level_share": "level"}
    #: sticks, fans and plays are counted (never negative); the level is one-hot
    column_ranges: ClassVar[dict[str, tuple]] = {
        **{name: NON_NEGATIVE for name in ("score", "fans_closed", "plays", "plays_seat", "reshuffles")},
        "level": SHARE,
    }

    def validate(self, players: int, rules: Any) -> None:
        super().validate(players, rules)
        if players == 1 and (rules.powers or rules.chosen_fan):
            raise SenseiError("sensu solo plays without the powers and chosen_fan variants")
        if rules.powers and players in (2, 3) and rules.power_copies == "B":
            raise SenseiError(f"power_copies=B: with {players} players copy B is not in the deck, so the powers "
                              "variant would have no power symbols; use A or C (or a set with them)")

    # ----- set-up --------------------------------------------------------------------------------
    def new_state(self, keys: np.ndarray, players: int, rules: Any, deck: np.ndarray | None = None,
                  chosen: np.ndarray | None = None, begin: bool = True) -> SensuState:
        """A fresh batch, dealt; ``begin`` sets every game's first decision at once (the drivers do it
        themselves: :meth:`new_batch`). ``deck`` (n, D) scripts the shuffled deck (last = top; hands are
        dealt from the top, 5 cards to each seat in turn); ``chosen`` (n, P) scripts the chosen fans."""
        rules = rules if isinstance(rules, SensuRules) else SensuRules.from_values(rules or {})
        if players == 1 and (rules.powers or rules.chosen_fan):
            raise SenseiError("sensu solo plays without the powers and chosen_fan variants")
        keys = np.asarray(keys, dtype=np.uint64)
        n = len(keys)
        P = players
        cards = deck_cards(P)
        D = len(cards)
        if deck is None:
            perm = permutations(stream_keys(keys, STREAM_DEAL, 0), np.zeros(n, np.int64), D)
            deck_arr = cards[perm]
        else:
            deck_arr = np.asarray(deck, dtype=np.int8).reshape(n, -1)
            if deck_arr.shape[1] != D or not (np.sort(deck_arr, axis=1) == np.sort(cards)).all():
                raise SenseiError(f"scripted deck must hold the {D} cards of {P} players")
        deck_arr = deck_arr.astype(np.int8).copy()
        deck_n = np.full(n, D, dtype=np.int64)
        hand = np.full((n, P, HAND), -1, dtype=np.int8)
        hand_n = np.zeros((n, P), dtype=np.int64)
        hidden_gen = np.full((n, P, HAND), -1, dtype=np.int32)
        if P > 1:
            for p in range(P):
                for j in range(5):
                    deck_n -= 1
                    hand[:, p, j] = deck_arr[np.arange(n), deck_n]
                    deck_arr[np.arange(n), deck_n] = -1
                hand_n[:, p] = 5
            hidden_gen[:, :, :5] = 0   # the dealt cards: hidden, of the starting deck
        ch = np.full((n, P), -1, dtype=np.int64)
        cf_deck = np.full((n, CF_CARDS), -1, dtype=np.int8)
        cf_n = np.zeros(n, dtype=np.int64)
        if rules.chosen_fan:
            types = np.repeat(np.arange(3), 5).astype(np.int8)
            perm = permutations(stream_keys(keys, STREAM_DEAL, 1), np.zeros(n, np.int64), CF_CARDS)
            cf_deck = types[perm]
            cf_n[:] = CF_CARDS
            for p in range(P):
                cf_n -= 1
                ch[:, p] = cf_deck[np.arange(n), cf_n]
                cf_deck[np.arange(n), cf_n] = -1
            if chosen is not None:
                ch = self._script_chosen(cf_deck, cf_n, ch, np.asarray(chosen, dtype=np.int64).reshape(n, P))
        ST = card_sticks(rules)
        PW = card_power(rules)
        first = (Decision.TURN if P > 1 else Decision.SOLO_TURN) if begin else -1
        return SensuState(
            keys=keys, players=P, rules=rules,
            done=np.zeros(n, bool), turns=np.zeros(n, np.int64), timeout=np.zeros(n, bool),
            current=np.zeros(n, np.int64), deck=deck_arr, deck_n=deck_n, hand=hand, hand_n=hand_n,
            pile=np.full((n, P, D), -1, np.int8), pile_n=np.zeros((n, P), np.int64),
            fan=np.full((n, P, 3, FAN), -1, np.int8), fan_n=np.zeros((n, P, 3), np.int64),
            fan_sticks=np.zeros((n, P, 3), np.int64), closed=np.zeros((n, P, 3), bool),
            fan_power=np.zeros((n, P, 3), np.int64), plays=np.zeros((n, P), np.int64),
            winner=np.full(n, -1, np.int64), limbo=np.full((n, 3), -1, np.int8),
            reshuffles=np.zeros(n, np.int64), chosen=ch, cf_deck=cf_deck, cf_n=cf_n,
            cf_disc=np.zeros((n, 3), np.int64), cf_shuffles=np.zeros(n, np.int64),
            columns=np.full((n, 4, COLUMN if P == 1 else 0), -1, np.int8), col_n=np.zeros((n, 4), np.int64),
            kind=np.full(n, int(first), np.int64), combo=np.zeros(n, np.int64),
            red=np.full((n, SLOTS), -1, np.int8), red_j=np.zeros(n, np.int64), red_k=np.zeros(n, np.int64),
            pend=np.full(n, -1, np.int64), wisdom_left=np.zeros(n, np.int64),
            held=np.full((n, 90), -1, np.int8), fresh=np.ones((n, 90), np.bool_), drawn=np.zeros((n, P), np.int64),
            gen=np.zeros((n, 90), np.int32), hidden_gen=hidden_gen, ST=ST, PW=PW)

    def new_batch(self, keys: np.ndarray, players: int, rules: Any) -> SensuState:
        return self.new_state(keys, players, rules, begin=False)  # the drivers run ``begin``

    @staticmethod
    def _script_chosen(cf_deck, cf_n, dealt, want):
        """Scripted chosen fans (tests): the face-down closed-fan deck keeps its order of types but its
        composition becomes the 15 cards less the scripted ones."""
        for t in range(3):
            if ((want == t).sum(1) > 5).any():
                raise SenseiError("at most 5 chosen fans of one type")
        for g in range(len(cf_deck)):  # scripted set-up only
            pool = [5 - int((want[g] == t).sum()) for t in range(3)]
            new = []
            for t in cf_deck[g, :cf_n[g]]:
                if pool[t] > 0:
                    new.append(int(t))
                    pool[t] -= 1
            for t in range(3):
                new.extend([t] * pool[t])
            cf_deck[g, :cf_n[g]] = new[:cf_n[g]]
        return want.copy()

    # ----- the decision protocol -----------------------------------------------------------------
    def state_tuple(self, st: SensuState) -> tuple:
        return (st.done, st.turns, st.timeout, st.current, st.kind, st.keys, st.deck, st.deck_n, st.hand, st.hand_n,
                st.pile, st.pile_n, st.fan, st.fan_n, st.fan_sticks, st.closed, st.fan_power, st.plays, st.winner,
                st.limbo, st.reshuffles, st.chosen, st.cf_deck, st.cf_n, st.cf_disc, st.cf_shuffles, st.columns,
                st.col_n, st.combo, st.red, st.red_j, st.red_k, st.pend, st.wisdom_left, st.held, st.fresh, st.drawn,
                st.gen, st.hidden_gen)

    def rules_tuple(self, st: SensuState) -> tuple:
        r = st.rules
        P = st.players
        return (np.int64(P), bool(r.powers), bool(r.chosen_fan), np.int64(3 if P == 1 else 2),
                np.int64(self.turn_limit(r)), st.ST, st.PW, _table5(),
                np.zeros(max(st.deck.shape[1], CF_CARDS), np.float64), np.zeros((12, 64), np.int64),
                np.zeros((P, 3), np.bool_))

    def legal_options(self, st: SensuState, g: int) -> np.ndarray:
        """The legal options of game g at its current decision (tests and tools)."""
        out = np.empty(MAX_OPTIONS, np.int64)
        n = legal(self.state_tuple(st), self.rules_tuple(st), int(g), out)
        return out[:n].copy()

    def sample_hidden(self, st: SensuState, g: int, seat: int, key: int, n: int) -> dict[str, np.ndarray]:
        """``n`` determinizations of game ``g`` from ``seat``'s view (the search's sampler), drawn with the
        random stream of ``key``: their hands (n, P, 8), decks (n, D) and closed-fan decks (n, 15)."""
        hands = np.empty((n,) + st.hand.shape[1:], dtype=np.int8)
        decks = np.empty((n,) + st.deck.shape[1:], dtype=np.int8)
        cfs = np.empty((n, CF_CARDS), dtype=np.int8)
        _k_sample_many(self.state_tuple(st), self.rules_tuple(st), np.int64(g), np.int64(seat),
                       np.array([key], dtype=np.uint64), np.int64(n), hands, decks, cfs)
        return {"hand": hands, "deck": decks, "cf_deck": cfs}

    def step_one(self, st: SensuState, g: int, opt: int) -> bool:
        """Apply option ``opt`` in game g (False, and nothing changed, when it is not legal; tests and tools)."""
        return bool(step(self.state_tuple(st), self.rules_tuple(st), int(g), int(opt)))

    def observe(self, st: SensuState, idx: np.ndarray, seat: np.ndarray) -> SensuObs:
        """The observation of seat ``seat[i]`` in game ``idx[i]`` at its current decision (numpy strategies)."""
        idx = np.asarray(idx, dtype=np.int64)
        seat = np.asarray(seat, dtype=np.int64)
        m = len(idx)
        P = st.players
        cards = np.empty((m, SLOTS), np.int8)
        r = st.rules
        # the per-card tables are the game's own: a strategy gets read-only views (a write into obs.sticks
        # rewrote these rules for every seat, and every game stopped at the turn limit)
        ST, PW = st.ST.view(), st.PW.view()
        ST.flags.writeable = PW.flags.writeable = False
        if P == 1:
            _k_places(st.pile, st.pile_n, st.columns, st.col_n, idx, cards)
            src = np.zeros((m, 2), bool)
            src[:, 0] = st.deck_n[idx] > 0
            src[:, 1] = st.pile_n[idx, 0] > 0
            obs = SensuObs(PublicView(st), idx, seat, P, cards, np.zeros(m, np.int64), src, ST, PW,
                           r.powers, r.chosen_fan, None, True)
        else:
            src = np.empty((m, 1 + P), np.bool_)
            _k_cards(st.hand, st.hand_n, st.pile, st.pile_n, st.deck_n, idx, seat, cards, src)
            obs = SensuObs(PublicView(st), idx, seat, P, cards, st.hand_n[idx, seat], src, ST, PW,
                           r.powers, r.chosen_fan, st.hand[idx, seat])
        kind = st.kind[idx]
        obs.kind = kind
        obs.red = st.red[idx]
        obs.wisdom_left = st.wisdom_left[idx]
        at = kind == Decision.ARRANGE
        if at.any():
            obs.combo = np.where(at, st.combo[idx], 0)
            obs.n_redeem = np.where(at, st.red_k[idx], 0)
        if (kind == Decision.PLACE).any():
            obs.card = st.pend[idx].copy()
        at = kind == Decision.HARMONY
        if at.any():
            obs.harmony_ok = obs.fits(obs.pile_top) & at[:, None]
        at = kind == Decision.COURAGE
        if at.any():
            okf = np.empty((m, P, 3), np.bool_)
            _k_courage_ok(st.fan, st.fan_n, st.closed, st.PW, idx, seat, okf)
            obs.courage_ok = okf & at[:, None, None]
        return obs

    def option_text(self, kind: int, opt: int) -> str:
        """An option code as what it stands for (``option 67 (play hand slots 0, 1)``, an ARRANGE code as its
        slots in order, a COURAGE code as the fan type per seat); a code that stands for nothing as itself."""
        words = None
        if kind == Decision.TURN:
            words = ("draw from the deck" if opt == DECK else f"the top of seat {opt - PILE}'s pile"
                     if PILE <= opt < PASS else "pass" if opt == PASS else None)
        elif kind == Decision.WISDOM:
            words = "the deck" if opt == 0 else f"seat {opt - 1}'s pile" if 0 < opt <= 6 else None
        elif kind == Decision.PLACE:
            words = "the pile" if opt == 0 else f"column {opt}" if 0 < opt <= 4 else None
        elif kind == Decision.SOLO_TURN and opt == DRAW:
            words = "draw"
        if kind in (Decision.TURN, Decision.SOLO_TURN) and PLAY <= opt < 2 * PLAY:
            bits = ", ".join(str(b) for b in range(SLOTS) if opt - PLAY >> b & 1)
            words = f"play {'hand slots' if kind == Decision.TURN else 'places'} {bits}"
        elif kind == Decision.ARRANGE and 0 <= opt < 1 << (ORDER_BITS * SLOTS):
            digits = [(opt >> (ORDER_BITS * j)) & 7 for j in range(SLOTS)]
            n = digits.index(0) if 0 in digits else SLOTS
            if n and all(0 < d <= SLOTS for d in digits[:n]) and not any(digits[n:]):
                words = "slots in order " + ", ".join(str(d - 1) for d in digits[:n])
            elif any(digits) and all(d <= SLOTS for d in digits):  # (a -1 before a slot: the order reversed, say)
                words = ("the order " + ", ".join(str(d - 1) for d in digits) + ", whose -1 entries (the padding) "
                         "must all come after the slots")
        elif kind == Decision.COURAGE and 0 < opt < 1 << (COURAGE_BITS * 6):
            per = [(opt >> (COURAGE_BITS * o)) & 3 for o in range(6)]
            words = "; ".join(f"seat {o}: {TYPE_NAMES[t - 1]}" for o, t in enumerate(per) if t)
        return f"option {opt} ({words})" if words else f"option {opt}"

    def encode(self, kind: int, result: Any, st: SensuState, idx: np.ndarray) -> np.ndarray:
        """Option codes from a numpy strategy's answers: an order (m, 6) of slots for ARRANGE, a fan type
        (or -1) per seat (m, P) for COURAGE, one integer otherwise. An answer of another shape is an illegal
        answer (:func:`simcore.game.answer_rows`); an entry out of range encodes as -1, never legal."""
        name = self.decisions[kind]
        if kind == Decision.ARRANGE:
            o = answer_rows(result, len(idx), SLOTS, name, "slot orders")
            ok = ((o >= -1) & (o < SLOTS)).all(axis=1)
            code = ((np.where(ok[:, None], o, -1) + 1) << (ORDER_BITS * np.arange(SLOTS))[None, :]).sum(axis=1)
            return np.where(ok, code, -1)
        if kind == Decision.COURAGE:
            P = st.players
            c = answer_rows(result, len(idx), P, name, "fan types (one per seat)")
            ok = ((c >= -1) & (c <= 2)).all(axis=1)
            code = ((np.where(ok[:, None], c, -1) + 1) << (COURAGE_BITS * np.arange(P))[None, :]).sum(axis=1)
            return np.where(ok, code, -1)
        return answer_integers(result, name)

    def observe_all(self, st: SensuState, idx: np.ndarray, seat: int) -> dict[str, np.ndarray]:
        """Everything ``seat`` may know in games ``idx``: own hand, all piles, fans, counts, chosen fans, the
        decision (its own combination being arranged)."""
        idx = np.asarray(idx, dtype=np.int64)
        mine = st.current[idx] == seat
        out = {
            "pile": st.pile[idx], "pile_n": st.pile_n[idx], "deck_n": st.deck_n[idx],
            "fan": st.fan[idx], "fan_n": st.fan_n[idx], "fan_sticks": st.fan_sticks[idx],
            "closed": st.closed[idx], "fan_power": st.fan_power[idx], "hand_n": st.hand_n[idx],
            "hand": st.hand[idx, seat], "chosen": st.chosen[idx], "cf_n": st.cf_n[idx],
            "cf_disc": st.cf_disc[idx], "columns": st.columns[idx], "col_n": st.col_n[idx],
            "plays": st.plays[idx], "current": st.current[idx], "turns": st.turns[idx],
            "done": st.done[idx], "winner": st.winner[idx], "limbo": st.limbo[idx],
            "kind": st.kind[idx], "combo": np.where(mine, st.combo[idx], 0), "red": st.red[idx],
            "red_j": st.red_j[idx], "red_k": st.red_k[idx], "wisdom_left": st.wisdom_left[idx],
            "pend": np.where(mine, st.pend[idx], -1),
            "held": st.held[idx], "fresh": st.fresh[idx], "drawn": st.drawn[idx], "reshuffles": st.reshuffles[idx],
            "gen": st.gen[idx], "hidden_gen": st.hidden_gen[idx],
        }
        return {k: np.array(v) for k, v in out.items()}

    def scramble_hidden(self, st: SensuState, seat: int, draws: Any) -> SensuState:
        """A copy in which what ``seat`` cannot see is re-dealt: the unseen cards permuted among the unseen
        places (the deck and the other hands' cards not publicly held nor laid down in the combination being
        arranged), keeping the public record (each card among the places of its generation: the deck's
        cards and the seats' hidden cards of the last reshuffle's deck, each older deck's among the hidden
        cards of that deck), and the closed-fan deck's order."""
        new = copy.deepcopy(st)
        n = len(st.done)
        P = st.players
        D = st.deck.shape[1]

        def rand(k):
            if isinstance(draws, np.random.Generator):
                return draws.random((n, k))
            return draws.random(np.arange(n), k)

        u = rand(D + P * HAND)
        for g in range(n):
            # unseen places: (array, index) of the deck and the other hands' hidden cards, by generation
            places = {}
            for i in range(st.deck_n[g]):
                places.setdefault(int(st.reshuffles[g]), []).append(("deck", (g, i)))
            for p in range(P):
                if p == seat:
                    continue
                laid = st.combo[g] if (st.kind[g] == Decision.ARRANGE and st.current[g] == p) else 0
                for j in range(st.hand_n[g, p]):
                    c = int(st.hand[g, p, j])
                    if st.held[g, c] == p or (laid >> j) & 1:  # known, or face up in the combination played
                        continue
                    places.setdefault(int(st.gen[g, c]), []).append(("hand", (g, p, j)))
            off = 0
            for pool in sorted(places, reverse=True):   # the last generation's first (the deck's)
                where = places[pool]
                cards = [getattr(st, a)[ix] for a, ix in where]
                order = np.argsort(u[g, off:off + len(cards)], kind="stable")
                off += len(cards)
                for (a, ix), k in zip(where, order):
                    getattr(new, a)[ix] = cards[k]
        if st.rules.chosen_fan:
            u = rand(CF_CARDS)
            key = np.where(np.arange(CF_CARDS)[None, :] < st.cf_n[:, None], u, 2.0)
            new.cf_deck = np.take_along_axis(st.cf_deck, np.argsort(key, axis=1), axis=1)
        return new

    # ----- results -------------------------------------------------------------------------------
    def outcome(self, st: SensuState) -> dict[str, np.ndarray]:
        n = len(st.done)
        P = st.players
        fans_closed = st.closed.sum(axis=2)
        sticks = st.fan_sticks.sum(axis=2).astype(np.float64)
        out = {"turns": st.turns.copy(), "timeout": st.timeout.copy(), "fans_closed": fans_closed,
               "plays": st.plays.sum(axis=1), "plays_seat": st.plays.copy(), "reshuffles": st.reshuffles.copy()}
        if P == 1:
            score = sticks[:, 0] + np.where(st.closed[:, 0].all(axis=1),
                                             np.where(st.deck >= 0, st.ST[st.deck.astype(np.int64)], 0).sum(1), 0)
            out["score"] = score[:, None]
            out["win"] = np.zeros((n, 0))
            lvl = np.clip((score.astype(np.int64) - 15) // 5, 0, 5)
            out["level"] = np.eye(6, dtype=np.int64)[lvl]
        else:
            out["score"] = sticks
            win = np.zeros((n, P))
            w = st.winner >= 0
            win[np.flatnonzero(w), st.winner[w]] = 1.0
            out["win"] = win
        return out

    def metrics(self, totals: dict[str, np.ndarray], n: int, players: int, rules: Any) -> dict[str, Any]:
        out = super().metrics(totals, n, players, rules)
        if players == 1:
            out.pop("mean_sticks", None)
            out["mean_score"] = float(np.asarray(totals["score"]).sum() / max(n, 1))
            lv = np.asarray(totals["level"], dtype=float) / max(n, 1)
            out["level_share"] = {name: float(v) for name, v in zip(LEVELS, lv)}
        return out

    # ----- conformance ---------------------------------------------------------------------------
    def check(self, st: SensuState) -> None:
        """Invariants that hold at every decision point (mid-turn included) and at the end."""
        n = len(st.done)
        P = st.players
        expect = np.zeros(91, np.int64)
        expect[deck_cards(P).astype(np.int64)] = 1
        parts = [st.deck, st.hand.reshape(n, -1), st.pile.reshape(n, -1), st.fan.reshape(n, -1),
                 st.limbo, st.columns.reshape(n, -1), st.red, st.pend[:, None]]
        allc = np.concatenate([np.asarray(a, np.int64) for a in parts], axis=1)
        rows = np.repeat(np.arange(n), allc.shape[1])
        cnt = np.zeros((n, 91), np.int64)
        np.add.at(cnt, (rows, np.where(allc.reshape(-1) >= 0, allc.reshape(-1), 90)), 1)
        assert (cnt[:, :90] == expect[None, :90]).all(), "cards not conserved"
        # packed arrays agree with their counts
        D = st.deck.shape[1]
        assert ((st.deck >= 0) == (np.arange(D)[None] < st.deck_n[:, None])).all(), "deck count"
        assert ((st.hand >= 0) == (np.arange(HAND)[None, None] < st.hand_n[..., None])).all(), "hand count"
        assert ((st.pile >= 0) == (np.arange(D)[None, None] < st.pile_n[..., None])).all(), "pile count"
        assert ((st.fan >= 0) == (np.arange(FAN)[None, None, None] < st.fan_n[..., None])).all(), "fan count"
        fan = st.fan.astype(np.int64)
        assert (np.where(fan >= 0, st.ST[fan], 0).sum(-1) == st.fan_sticks).all(), "fan sticks"
        assert (np.where(fan >= 0, CARD_TYPE[fan], np.arange(3)[None, None, :, None]) ==
                np.arange(3)[None, None, :, None]).all(), "fan of the wrong type"
        assert (st.fan_sticks <= 10).all() and (st.closed == (st.fan_sticks == 10)).all(), "closing at 10"
        if st.rules.powers:
            assert (np.where(fan >= 0, st.PW[fan], False).sum(-1) == st.fan_power).all(), "power count"
        nclosed = st.closed.sum(axis=2)
        live = ~st.done
        kind = st.kind
        # the decision: every live game is at a decision of its kind of game, with its pending cards
        kinds = ((Decision.SOLO_TURN, Decision.PLACE, Decision.ARRANGE) if P == 1 else
                 (Decision.TURN, Decision.DISCARD, Decision.ARRANGE, Decision.WISDOM, Decision.HARMONY,
                  Decision.COURAGE))
        assert np.isin(kind[live], kinds).all(), "a live game is not at a decision"
        building = np.isin(kind, (Decision.WISDOM, Decision.HARMONY, Decision.COURAGE)) & live
        slot = np.arange(SLOTS)[None, :]
        pending = (slot >= st.red_j[:, None]) & (slot < st.red_k[:, None]) & building[:, None]
        assert ((st.red >= 0) == pending).all(), "redeemed cards pending exactly during a build"
        assert ((st.red_j <= st.red_k) & (st.red_k <= 3)).all()
        assert ((st.red_k > 0) == ((kind == Decision.ARRANGE) | building) & live)[live].all(), "redeem count"
        assert ((st.combo != 0) == ((kind == Decision.ARRANGE) & live)).all(), "a combination only at ARRANGE"
        assert ((st.pend >= 0) == ((kind == Decision.PLACE) & live)).all(), "a drawn card only at PLACE"
        assert ((st.wisdom_left > 0) == ((kind == Decision.WISDOM) & live)).all(), "Wisdom draws only at WISDOM"
        assert (st.wisdom_left <= 3).all()
        g_ar = np.flatnonzero(live & (kind == Decision.ARRANGE))
        if len(g_ar):
            obs = self.observe(st, g_ar, st.current[g_ar])
            assert obs.combos[np.arange(len(g_ar)), st.combo[g_ar]].all(), "ARRANGE of a non-combination"
            assert (redeem_count(obs.cards, st.combo[g_ar]) == st.red_k[g_ar]).all(), "ARRANGE redeem count"
        if P > 1:
            # the public record of the hands
            for g in range(n):
                for c in np.flatnonzero(st.held[g] >= 0):
                    q = int(st.held[g, c])
                    assert c in st.hand[g, q, :st.hand_n[g, q]].tolist(), "a held card is not in its holder's hand"
                for q in range(P):
                    h = st.hand[g, q, :st.hand_n[g, q]].astype(np.int64)
                    hid = h[st.held[g, h] != q]
                    gens = st.hidden_gen[g, q]
                    k = int((gens >= 0).sum())
                    assert (gens[k:] == -1).all() and (np.sort(st.gen[g, hid]) == gens[:k]).all(), \
                        "hidden_gen: the generations of a seat's hidden cards, ascending"
                    hidden_new = int(((st.held[g, h] != q) & st.fresh[g, h]).sum())
                    if st.reshuffles[g] > 0:
                        assert st.drawn[g, q] == hidden_new, "drawn: the hidden cards of the new deck in a hand"
                    else:
                        assert st.drawn[g, q] == 0 and st.fresh[g].all(), "the record before the first reshuffle"
                assert not st.fresh[g, st.deck[g, :st.deck_n[g]].astype(np.int64)].__invert__().any(), \
                    "a deck card not of the last reshuffle"
                assert (st.gen[g, st.deck[g, :st.deck_n[g]].astype(np.int64)] == st.reshuffles[g]).all(), \
                    "gen: a deck card not of the last reshuffle"
                assert (st.fresh[g] == (st.gen[g] == st.reshuffles[g])).all(), "fresh: the last reshuffle's cards"
            seat = st.current
            hn = st.hand_n[np.arange(n), seat]
            assert (st.hand_n[live] <= 7).all(), "hand too large"
            at_turn = live & np.isin(kind, (Decision.TURN, Decision.ARRANGE))
            assert (st.hand_n[at_turn] <= 6).all(), "hand too large at the start of a turn"
            assert (hn[live & (kind == Decision.DISCARD)] > 5).all(), "a discard with 5 cards or fewer"
            assert (nclosed[live] < 2).all(), "a live game with a winner"
            won = st.done & ~st.timeout
            assert (st.winner[won] >= 0).all() and (nclosed[won, st.winner[won]] == 2).all(), "winner"
            assert ((st.deck_n > 0) | (st.pile_n.sum(axis=1) == 0)).all(), "empty deck with discards"
            wis = live & (kind == Decision.WISDOM)
            assert ((st.deck_n[wis] > 0) | (st.pile_n[wis].sum(axis=1) > 0)).all(), "Wisdom with nothing to draw"
            for k, what in ((Decision.HARMONY, "harmony_ok"), (Decision.COURAGE, "courage_ok")):
                g_k = np.flatnonzero(live & (kind == k))
                if len(g_k):
                    ok = getattr(self.observe(st, g_k, st.current[g_k]), what)
                    assert ok.reshape(len(g_k), -1).any(axis=1).all(), f"{what}: a power with no option"
            if st.rules.chosen_fan:
                ch = st.chosen[live]
                ok = (ch < 0) | ~np.take_along_axis(st.closed[live], np.maximum(ch, 0)[..., None], 2)[..., 0]
                assert ok.all(), "chosen fan already closed"
                cf = (st.cf_deck >= 0).sum(1) + st.cf_disc.sum(1) + (st.chosen >= 0).sum(1) + nclosed.sum(1)
                assert (cf[live] == CF_CARDS).all(), "closed-fan cards not conserved"
        else:
            assert (st.turns <= 200).all()
            assert (nclosed[live] < 3).all()
            at_turn = np.flatnonzero(live & (kind == Decision.SOLO_TURN) & (st.turns < self.turn_limit(st.rules)))
            if len(at_turn):
                obs = self.observe(st, at_turn, np.zeros(len(at_turn), np.int64))
                assert ((st.deck_n[at_turn] > 0) | obs.combos.any(axis=1)).all(), "a solo turn with nothing to do"
