"""Sensu (dV Giochi, 2023): collect hand cards summing to exactly 20, redeem them into fans of sticks.

Rules in brief (``rules/sensu.md`` is binding):

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
  cards in placement order; ``triggered`` (n, P, 3) whether the fan's power has fired.
* ``columns`` (n, 4, 27) with ``col_n`` (n, 4): solo columns, exposed card last (empty outside solo).
* ``chosen`` (n, P) chosen fan type (-1 outside the variant); ``cf_deck`` (n, 15) / ``cf_n`` the face-down
  closed-fan deck (types), ``cf_disc`` (n, 3) counts of its discarded cards.
* ``limbo`` (n, 3): redeemed cards left unplaced when the game ended during building.

Actions (integer codes, see :class:`Action`): a turn is ``DECK``, ``PILE + s`` (top of seat s's pile),
``PASS`` (only when nothing can be drawn) or ``PLAY + mask`` (mask = bit set over the 6 combination slots:
hand slots, or in solo the places 0 = pile top, 1..4 = column ends). Solo turns are ``DRAW`` (which ends
the game when the deck is empty) or ``PLAY + mask``.

Rule steps are written once, each as a compiled function of one game (``_draw_one``, ``_discard_one``,
``_refill_one``, ``_take_hand_one``, ``_place_one``, ``_new_chosen_one``, ``_courage_one``, ...). The batch
lane (``Sensu.turn``) calls them through small loop kernels over the acting games and asks the strategies
for decisions in between; the compiled lane (``Sensu.play_compiled``, driver ``_k_play``) calls the same
steps to play whole games one after another, with the compiled forms of the strategies (``POLICY_*``:
``random``, ``redeemer``, ``planner``, ``focus``, in any lineup, for every player count and rule option),
drawing from the same per-(game, seat) random streams.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar

import numba
import numpy as np

from simcore.compiled import NO_REFCOUNT
from simcore.errors import SenseiError
from simcore.game import Game, Metric, Seats, illegal, policy_table
from simcore.options import Rules, option
from simcore.rng import (STREAM_DEAL, _mix_scalar, draw_base, integer_below, permutations, stream_keys,
                         uniform_at, uniforms)

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
HAND = 8         # hand slots (5 held; 6 after Wisdom; 7 while drawing)
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
    max_turns: int = option(1000, "turns in all after which a game stops with no winner (a timeout)", min=1)

    def __post_init__(self):
        object.__setattr__(self, "sticks", parse_sticks(self.sticks))
        object.__setattr__(self, "power_copies", parse_copies(self.power_copies))
        if not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise SenseiError(f"max_turns: must be a positive integer, got {self.max_turns!r}")

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


#: the decorator of the per-game rule steps (and of the compiled lane): compiled without reference
#: counting (simcore/compiled.py; they allocate nothing, scratch space is passed in), so that calling a step with
#: a dozen state arrays costs no atomic reference-count updates
_step = numba.njit(**NO_REFCOUNT)


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
        code += DIG[cards[s]] * mul
        mul *= 13
    return numba.uint64(table[code])


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
# Rule steps: one scalar function per step and game (``g``), shared by the batch kernels (loops over
# the acting games) and the compiled lane (:func:`_k_play`)
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


@numba.njit(cache=True)
def _k_draw(deck, deck_n, pile, pile_n, hand, hand_n, idx, seat, src):
    for i in range(len(idx)):
        _draw_one(deck, deck_n, pile, pile_n, hand, hand_n, idx[i], seat[i], src[i])


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


@numba.njit(cache=True)
def _k_discard(pile, pile_n, hand, hand_n, idx, seat, slot):
    for i in range(len(idx)):
        _discard_one(pile, pile_n, hand, hand_n, idx[i], seat[i], slot[i])


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
def _refill_one(deck, deck_n, pile, pile_n, reshuffles, key, g, buf):
    """Multiplayer: when the deck of game g (game key ``key``) is empty and a discard pile holds cards,
    shuffle all discard piles into a new deck. The shuffle orders the pile cards by one uniform per place
    (seat q's pile position i is place q * D + i) of draw number ``reshuffles`` of the deal stream.
    ``buf``: float64 scratch of at least D entries."""
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
    w = 0
    for q in range(P):
        for i in range(pile_n[g, q]):
            # insertion sort by the place's uniform, straight into the deck
            u = uniform_at(base, q * D + i)
            c = pile[g, q, i]
            pile[g, q, i] = -1
            _insert_by_key(buf, deck, g, w, u, c)
            w += 1
        pile_n[g, q] = 0
    for j in range(cnt, D):
        deck[g, j] = -1
    deck_n[g] = cnt


@numba.njit(cache=True)
def _k_refill(deck, deck_n, pile, pile_n, reshuffles, keys, idx):
    buf = np.empty(pile.shape[2], np.float64)
    for i in range(len(idx)):
        g = idx[i]
        _refill_one(deck, deck_n, pile, pile_n, reshuffles, keys[g], g, buf)


@numba.njit(cache=True)
def _check_order(cards, mask, order, k, ST):
    """True when ``order`` (6,) is not a legal arrangement of combination ``mask`` over slot ``cards``."""
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
    # the redeemed cards must be one with the most sticks, then k-1 with the fewest of the rest:
    # compare the stick histogram of the chosen cards with that of the canonical choice
    hist = np.zeros(8, np.int64)
    rest = np.zeros(8, np.int64)
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
def _k_check_arrange(cards, mask, order, k, ST):
    """True where ``order`` is not a legal arrangement of combination ``mask`` over slot ``cards``."""
    m = len(mask)
    bad = np.zeros(m, np.bool_)
    for i in range(m):
        bad[i] = _check_order(cards[i], mask[i], order[i], k[i], ST)
    return bad


@_step
def _take_hand_one(hand, hand_n, pile, pile_n, g, p, order, k, out):
    """Play from the hand: remove the combination (slots ``order``), discard its unredeemed cards in order,
    write the ``k`` redeemed cards to ``out`` (-1 beyond k)."""
    c = 0
    while c < SLOTS and order[c] >= 0:
        c += 1
    for j in range(k, c):
        pile[g, p, pile_n[g, p]] = hand[g, p, order[j]]
        pile_n[g, p] += 1
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


@numba.njit(cache=True)
def _k_take_hand(hand, hand_n, pile, pile_n, idx, seat, order, k, out):
    for i in range(len(idx)):
        _take_hand_one(hand, hand_n, pile, pile_n, idx[i], seat[i], order[i], k[i], out[i])


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


@numba.njit(cache=True)
def _k_take_places(pile, pile_n, columns, col_n, idx, order, k, out):
    for i in range(len(idx)):
        _take_places_one(pile, pile_n, columns, col_n, idx[i], order[i], k[i], out[i])


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


@numba.njit(cache=True)
def _k_deck_take(deck, deck_n, idx, out):
    for i in range(len(idx)):
        out[i] = _deck_take_one(deck, deck_n, idx[i])


@numba.njit(cache=True)
def _k_solo_put(pile, pile_n, columns, col_n, idx, card, where):
    for i in range(len(idx)):
        _solo_put_one(pile, pile_n, columns, col_n, idx[i], card[i], where[i])


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


@numba.njit(cache=True)
def _k_place(fan, fan_n, fan_sticks, closed, fan_power, pile, pile_n, chosen, idx, seat, card,
             ST, PW, TYPE, powers, win_at):
    """:func:`_place_one` for each game; returns (status, trig) arrays."""
    m = len(idx)
    status = np.zeros(m, np.int64)
    trig = np.full(m, -1, np.int64)
    for i in range(m):
        status[i], trig[i] = _place_one(fan, fan_n, fan_sticks, closed, fan_power, pile, pile_n, chosen, idx[i],
                                        seat[i], card[i], ST, PW, TYPE, powers, win_at)
    return status, trig


@_step
def _limbo_one(limbo, g, red, k, j):
    """The game was won while placing redeemed card j: the later redeemed cards stay unplaced."""
    for q in range(3):
        limbo[g, q] = -1
    for q in range(j + 1, 3):
        if k > q:
            limbo[g, q - j - 1] = red[q]


@numba.njit(cache=True)
def _k_limbo(limbo, idx, red, k, j):
    for i in range(len(idx)):
        _limbo_one(limbo, idx[i], red[i], k[i], j)


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


@numba.njit(cache=True)
def _k_new_chosen(cf_deck, cf_n, cf_disc, cf_shuffles, chosen, closed, keys, idx, seat):
    buf = np.empty(CF_CARDS, np.float64)
    for i in range(len(idx)):
        g = idx[i]
        _new_chosen_one(cf_deck, cf_n, cf_disc, cf_shuffles, chosen, closed, keys[g], g, seat[i], buf)


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
def _courage_one(fan, fan_n, fan_sticks, pile, pile_n, deck, deck_n, reshuffles, ST, key, g, ok, choice, buf):
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
        _refill_one(deck, deck_n, pile, pile_n, reshuffles, key, g, buf)


@numba.njit(cache=True)
def _k_courage(fan, fan_n, fan_sticks, pile, pile_n, deck, deck_n, reshuffles, ST, keys, idx, ok, choice):
    buf = np.empty(pile.shape[2], np.float64)
    for i in range(len(idx)):
        g = idx[i]
        _courage_one(fan, fan_n, fan_sticks, pile, pile_n, deck, deck_n, reshuffles, ST, keys[g], g, ok[i],
                     choice[i], buf)


@_step
def _pile_take_one(pile, pile_n, g, q):
    """Take the top card of seat q's discard pile (Harmony)."""
    pile_n[g, q] -= 1
    c = pile[g, q, pile_n[g, q]]
    pile[g, q, pile_n[g, q]] = -1
    return c


@numba.njit(cache=True)
def _k_pile_take(pile, pile_n, idx, q, out):
    for i in range(len(idx)):
        out[i] = _pile_take_one(pile, pile_n, idx[i], q[i])


@_step
def _end_turn(turns, current, g, p, P):
    """A multiplayer turn is over: count it and pass to the next seat."""
    turns[g] += 1
    current[g] = (p + 1) % P


@numba.njit(cache=True)
def _k_end_turn(turns, current, idx, seat, P):
    for i in range(len(idx)):
        _end_turn(turns, current, idx[i], seat[i], P)


# ----------------------------------------------------------------------------------------------------
# Valuations of the heuristic strategies (``strategies.sensu``), shared by their batch decisions and their
# compiled forms
# ----------------------------------------------------------------------------------------------------
@_step
def _eval_combo(cards, mask, fs, cl, chosen, ST, TYPE, VAL, WCL, w, close_bonus, win_bonus, closed_now, out_order,
                ib):
    """Best (value, order) of playing slot ``mask``: over every legal redeemed set and build order, the
    weighted sticks placed plus bonuses for closing fans (and for the win). ``out_order`` gets the slots:
    redeemed in build order, then the others, most valuable first (the least valuable ends on top).
    ``ib``: int64 scratch of at least 32 entries."""
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


@_step
def _potential_one(cards, fs, cl, ST, TYPE, VAL, WCL, w):
    """How close a row of slot cards (6) is to combinations: for every subset of 2-4 cards (at most one
    wild) whose values leave 1..9 to reach 20, 1 plus the weighted sticks of its best card that fits."""
    tot = 0.0
    for m in range(1, 64):
        size = 0
        lo = 0
        hi = 0
        nw = 0
        ok = True
        bestv = 0.0
        for b in range(SLOTS):
            if (m >> b) & 1:
                x = cards[b]
                if x < 0:
                    ok = False
                    break
                size += 1
                if WCL[x] >= 0:
                    nw += 1
                    lo += 3 * WCL[x] + 1
                    hi += 3 * WCL[x] + 3
                else:
                    lo += VAL[x]
                    hi += VAL[x]
                t = TYPE[x]
                if not cl[t] and fs[t] + ST[x] <= 10:
                    v = w[t] * ST[x]
                    if v > bestv:
                        bestv = v
        if not ok or size < 2 or size > 4 or nw > 1:
            continue
        if 20 - hi <= 9 and 20 - lo >= 1:
            tot += 1.0 + bestv
    return tot


# ----------------------------------------------------------------------------------------------------
# Actions, observations, the decision interface
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

    Per decision (None elsewhere): ``combo`` / ``n_redeem`` (arrange: the combination's slot mask and the
    number of cards it redeems), ``card`` (solo place: the card drawn), ``harmony_ok`` (m, P) piles whose
    top fits a fan, ``courage_ok`` (m, P, 3) fans whose last card may be removed.
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
        for k in ("combo", "n_redeem", "card", "harmony_ok", "courage_ok") + self._LAZY:
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
    """The decisions a Sensu strategy makes (every method is vectorized over a batch of ``SensuObs``).

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


@numba.njit(cache=True)
def _k_choose(u, mask, out):
    for i in range(mask.shape[0]):
        cnt = 0
        for j in range(mask.shape[1]):
            cnt += mask[i, j]
        if cnt == 0:
            out[i] = -1
            continue
        k = min(int(u[i] * cnt), cnt - 1)
        for j in range(mask.shape[1]):
            if mask[i, j]:
                if k == 0:
                    out[i] = j
                    break
                k -= 1


def choose_rows(u: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Index of a uniformly chosen True entry of each row of ``mask`` given one uniform per row (-1 where
    none); the same rule as ``simcore.rng.choose``, in one pass."""
    out = np.empty(len(mask), np.int64)
    _k_choose(np.asarray(u, dtype=np.float64), np.ascontiguousarray(mask, dtype=np.bool_), out)
    return out


def arrange_by(obs: SensuObs, redeem_pref: np.ndarray | None = None, discard_key: np.ndarray | None = None,
               build_key: np.ndarray | None = None) -> np.ndarray:
    """A legal ``arrange`` answer from per-slot preferences (each (m, 6), values in [0, 1)).

    ``redeem_pref``: among cards of equal sticks, the higher is redeemed first (default: lowest slot).
    ``discard_key``: the unredeemed cards are discarded in increasing key order (the largest ends on
    top; default slot order). ``build_key``: the redeemed cards are built in increasing key order (default:
    descending sticks, equal sticks in the order they were redeemed).
    """
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
# The compiled lane: whole games, one after another, with compiled forms of strategies
# ----------------------------------------------------------------------------------------------------
#: compiled policy codes (a strategy's ``compiled_code``)
POLICY_RANDOM = 1
POLICY_REDEEMER = 2
POLICY_PLANNER = 3
POLICY_FOCUS = 4
_PASS, _PLAY, _DRAW = int(Action.PASS), int(Action.PLAY), int(Action.DRAW)


@_step
def _pick_bit(bits, u):
    """``simcore.rng.choose`` over the set bits of ``bits`` (uint64) given one uniform: the k-th set bit
    (k = min(floor(u * count), count - 1)), -1 when none."""
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


@_step
def _random_arrange(cards, mask, k, ST, base, order, buf):
    """The ``random`` policy's arrange: :func:`arrange_by` with the 12 uniforms of draw ``base`` as redeeming
    preferences and discard keys. The card with the most sticks (ties: the highest preference) is redeemed,
    then for each bonus the fewest sticks (ties: the lowest 1 - preference); redeemed cards are built in
    descending sticks (ties in redeeming order), the others discarded in increasing key order. ``buf``:
    float64 scratch of at least 12 entries."""
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


# The decisions of the compiled policies (``_random_*`` for ``random``, ``_heur_*`` for the heuristics, the
# power decisions ``_pol_*`` for both): ``code[p]`` / ``params[p]`` of seat p, its random stream at flat
# position f = g * P + p of ``skeys`` / ``scount`` (one draw per ``rng`` call of the strategy class, as
# through ``AgentRandom``). ``S`` = (hand, hand_n, pile, pile_n, deck_n, fan_sticks, closed, chosen, columns,
# col_n) the state, ``T`` = (ST, TYPE, VAL, WCL, DIG, table) the card tables, ``B`` = (cards int8 (6,), ib int64
# (40,), order int64 (6,), w float64 (3,), scratch int64 (4, 64)) scratch space.
@_step
def _heur_weights(code, params, p, fs, cl, w):
    """Value per stick on each own fan type: 1, except ``focus``'s fan type outside its pair
    (``off_weight``; pair ``auto``: the type with the fewest sticks, closed fans counting 20 more)."""
    for t in range(3):
        w[t] = 1.0
    if code[p] == POLICY_FOCUS:
        off = int(params[p, 3])
        if off < 0:
            best = np.inf
            for t in range(3):
                key = float(fs[t] + 20 * cl[t]) - 0.01 * t
                if key < best:
                    best = key
                    off = t
        w[off] = params[p, 2]


@_step
def _heur_best(cards, bits, fs, cl, ch, w, close_bonus, T, ib, order, only, size_max):
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
        v = _eval_combo(cards, m, fs, cl, ch, T[0], T[1], T[2], T[3], w, close_bonus, 100.0, ncl, order, ib)
        if v > best:
            best = v
            bm = m
    return bm, best


@_step
def _heur_source(code, params, p, g, S, T, B):
    """The heuristics' draw: the pile top that completes the most valuable combination (of at most 5 cards,
    worth more than 0), else the deck, else the first non-empty pile; PASS when nothing can be drawn."""
    hand, hand_n, pile, pile_n, deck_n = S[0], S[1], S[2], S[3], S[4]
    cards, ib, order, w, scratch = B[0], B[1], B[2], B[3], B[4]
    fs = S[5][g, p]
    cl = S[6][g, p]
    ch = S[7][g, p]
    _heur_weights(code, params, p, fs, cl, w)
    P = pile_n.shape[1]
    best_val = -np.inf
    best_src = 0 if deck_n[g] > 0 else -1
    n = hand_n[g, p]
    for q in range(P):
        if pile_n[g, q] == 0 or n >= SLOTS:
            continue
        _hand_cards(hand, hand_n, g, p, cards)
        cards[n] = pile[g, q, pile_n[g, q] - 1]
        bits = _combo_bits(cards, T[2], T[3], T[4], T[5], scratch, 2)
        _, val = _heur_best(cards, bits, fs, cl, ch, w, params[p, 0], T, ib, order, n, 5)
        val = val + 0.0
        if val > max(best_val, 0.0):
            best_val = val
            best_src = 1 + q
    if best_src < 0:
        for q in range(P):
            if pile_n[g, q] > 0:
                return 1 + q
        return _PASS
    return best_src


@_step
def _random_turn(skeys, scount, f, cards, VAL, WCL, DIG, table, scratch, sources):
    """Multiplayer turn of ``random`` over its hand ``cards``: one draw of 2 uniforms; with a combination in
    the hand, play one uniformly with probability 1/2, else draw from a uniform source (PASS when none)."""
    base = draw_base(skeys, scount, f)
    u1 = uniform_at(base, 1)
    if uniform_at(base, 0) < 0.5:  # the combinations matter only then
        combos = _combo_bits(cards, VAL, WCL, DIG, table, scratch, 2)
        if combos != 0:
            return _PLAY + _pick_bit(combos, u1)
    src = _pick_bit(sources, u1)
    return src if src >= 0 else _PASS


@_step
def _heur_turn(code, params, p, g, skeys, scount, f, S, T, B, sources):
    """Multiplayer turn of a heuristic: the best combination when it is worth ``play_min`` (planner: also
    when the deck is low or by chance, one draw), else :func:`_heur_source`."""
    cards, ib, order, w, scratch = B[0], B[1], B[2], B[3], B[4]
    _hand_cards(S[0], S[1], g, p, cards)
    c = code[p]
    fs = S[5][g, p]
    cl = S[6][g, p]
    _heur_weights(code, params, p, fs, cl, w)
    combos = _combo_bits(cards, T[2], T[3], T[4], T[5], scratch, 2)
    bm, val = _heur_best(cards, combos, fs, cl, S[7][g, p], w, params[p, 0], T, ib, order, -1, SLOTS)
    play = val >= params[p, 1]
    if c == POLICY_PLANNER:
        u = uniform_at(draw_base(skeys, scount, f), 0)
        play = play or S[4][g] < 10 or u < params[p, 4]
    if combos != 0 and play:
        return _PLAY + bm
    return _heur_source(code, params, p, g, S, T, B)


@_step
def _heur_discard(code, params, p, g, skeys, scount, f, S, T, B):
    """The hand slot a heuristic discards after a draw: it keeps the five cards with the best combinations (+5)
    and near-combinations (``keep`` weight); planner: not feeding the next player."""
    hand, hand_n = S[0], S[1]
    n = hand_n[g, p]
    cards, ib, order, w, scratch = B[0], B[1], B[2], B[3], B[4]
    fs = S[5][g, p]
    cl = S[6][g, p]
    ch = S[7][g, p]
    _heur_weights(code, params, p, fs, cl, w)
    planner = code[p] == POLICY_PLANNER
    kw = params[p, 2] if planner else 0.3
    P = hand_n.shape[1]
    best = -np.inf
    bs = 0
    for s in range(min(n, HAND)):
        j = 0
        for t in range(HAND):
            if t != s and j < SLOTS:
                cards[j] = hand[g, p, t]
                j += 1
        combos = _combo_bits(cards, T[2], T[3], T[4], T[5], scratch, 2)
        _, val = _heur_best(cards, combos, fs, cl, ch, w, params[p, 0], T, ib, order, -1, SLOTS)
        val = val + 5.0 if val > -np.inf else 0.0
        feed = 0.0
        if planner:
            c = hand[g, p, s]
            fits = _fits_one(S[5], S[6], S[7], g, (p + 1) % P, c, T[0], T[1])
            feed = params[p, 3] * (1.0 if fits else 0.0) * T[0][c]
        sc = val + kw * _potential_one(cards, fs, cl, T[0], T[1], T[2], T[3], w) - feed
        if sc > best:
            best = sc
            bs = s
    return bs


@_step
def _heur_arrange(code, params, p, g, S, T, B, cards, mask, order):
    """The redeeming and discard order of a heuristic for the combination ``mask`` over slot ``cards``: the
    most valuable legal order."""
    fs = S[5][g, p]
    cl = S[6][g, p]
    w = B[3]
    _heur_weights(code, params, p, fs, cl, w)
    ncl = 0
    for t in range(3):
        ncl += cl[t]
    _eval_combo(cards, mask, fs, cl, S[7][g, p], T[0], T[1], T[2], T[3], w, params[p, 0], 100.0, ncl, order, B[1])


@_step
def _pol_wisdom(code, params, p, g, skeys, scount, f, S, T, B, sources):
    """Wisdom: the source of one card (random: uniform; heuristics: as their draw)."""
    if code[p] == POLICY_RANDOM:
        return _pick_bit(sources, uniform_at(draw_base(skeys, scount, f), 0))
    src = _heur_source(code, params, p, g, S, T, B)
    return src if src != _PASS else _pick_bit(sources, 0.0)


@_step
def _pol_harmony(code, params, p, g, skeys, scount, f, S, T, B, fit):
    """Harmony: the pile among ``fit`` whose top goes onto a fan (random: uniform; heuristics: the most
    sticks, +10 when it closes the fan)."""
    if code[p] == POLICY_RANDOM:
        return _pick_bit(fit, uniform_at(draw_base(skeys, scount, f), 0))
    pile, pile_n, fan_sticks = S[2], S[3], S[5]
    best = -np.inf
    bq = 0
    for q in range(pile_n.shape[1]):
        if not ((fit >> numba.uint64(q)) & numba.uint64(1)):
            continue
        c = pile[g, q, pile_n[g, q] - 1]
        closes = fan_sticks[g, p, T[1][c]] + T[0][c] == 10
        v = T[0][c] + 10.0 * (1.0 if closes else 0.0)
        if v > best:
            best = v
            bq = q
    return bq


@_step
def _pol_courage(code, params, p, g, skeys, scount, f, S, ok, choice):
    """Per opponent, the fan to strip among ``ok`` (P, 3), -1 where none (random: one draw of P uniforms, a
    uniform choice per seat; heuristics: the fan with the most sticks)."""
    if code[p] == POLICY_RANDOM:
        base = draw_base(skeys, scount, f)
        for o in range(ok.shape[0]):
            bits = numba.uint64(0)
            for t in range(3):
                if ok[o, t]:
                    bits |= numba.uint64(1) << numba.uint64(t)
            choice[o] = _pick_bit(bits, uniform_at(base, o))
        return
    fan_sticks = S[5]
    for o in range(ok.shape[0]):
        choice[o] = -1
        best = -1
        for t in range(3):
            if ok[o, t] and fan_sticks[g, o, t] > best:
                best = fan_sticks[g, o, t]
                choice[o] = t


@_step
def _random_solo_turn(skeys, scount, f, combos, deck_n):
    """Solo turn of ``random``: a uniform combination with probability 1/2, always when the deck is empty."""
    base = draw_base(skeys, scount, f)
    if combos != 0 and (uniform_at(base, 0) < 0.5 or deck_n == 0):
        return _PLAY + _pick_bit(combos, uniform_at(base, 1))
    return _DRAW


@_step
def _heur_solo_turn(code, params, g, S, T, B, combos):
    """Solo turn of a heuristic over the exposed ``B[0]``: the best combination when it is worth at least 0 or
    the deck is empty."""
    deck_n = S[4][g]
    fs = S[5][g, 0]
    cl = S[6][g, 0]
    w = B[3]
    _heur_weights(code, params, 0, fs, cl, w)
    bm, val = _heur_best(B[0], combos, fs, cl, S[7][g, 0], w, params[0, 0], T, B[1], B[2], -1, SLOTS)
    if combos != 0 and (val >= 0.0 or deck_n == 0):
        return _PLAY + bm
    return _DRAW


@_step
def _heur_place(code, params, g, S, T, B, card):
    """Solo: where a heuristic puts the drawn ``card``, 0 the pile or 1..4 a column: where the exposed cards
    then hold the most valuable combination (+10) and near-combinations, columns first on ties."""
    cards, ib, order, w, scratch = B[0], B[1], B[2], B[3], B[4]
    fs = S[5][g, 0]
    cl = S[6][g, 0]
    ch = S[7][g, 0]
    _heur_weights(code, params, 0, fs, cl, w)
    best = -np.inf
    bq = 0
    for q in range(5):
        _place_cards(S[2], S[3], S[8], S[9], g, cards)
        cards[q] = card
        combos = _combo_bits(cards, T[2], T[3], T[4], T[5], scratch, 3)
        _, val = _heur_best(cards, combos, fs, cl, ch, w, params[0, 0], T, ib, order, -1, SLOTS)
        val = val + 10.0 if val > -np.inf else 0.0
        sc = val + 0.3 * _potential_one(cards, fs, cl, T[0], T[1], T[2], T[3], w)
        if q == 0:
            sc -= 0.01
        if sc > best:
            best = sc
            bq = q
    return bq


@_step
def _build_c(g, p, red, k, win_at, deck, deck_n, hand, hand_n, pile, pile_n, fan, fan_n, fan_sticks, closed,
             fan_power, winner, limbo, reshuffles, chosen, cf_deck, cf_n, cf_disc, cf_shuffles, done, keys, PW,
             skeys, scount, code, params, powers, chosen_fan, ok, choice, buf, S, T, B):
    """Place the ``k`` redeemed cards ``red`` in order, with closing, winning, chosen fans and powers (the
    compiled form of ``Sensu._build`` / ``_place`` / ``_powers``)."""
    ST, TYPE = T[0], T[1]
    P = hand.shape[1]
    f = g * P + p
    for j in range(k):
        c = red[j]
        while True:  # place c; Harmony places one more card, which may fire a power in turn
            status, trig = _place_one(fan, fan_n, fan_sticks, closed, fan_power, pile, pile_n, chosen, g, p, c,
                                      ST, PW, TYPE, powers, win_at)
            if status == 3:
                winner[g] = p
                done[g] = True
            if chosen_fan and status == 2 and chosen[g, p] == TYPE[c]:
                _new_chosen_one(cf_deck, cf_n, cf_disc, cf_shuffles, chosen, closed, keys[g], g, p, buf)
            if P > 1 and status == 0:
                _refill_one(deck, deck_n, pile, pile_n, reshuffles, keys[g], g, buf)
            if trig < 0:
                break
            if trig == WISDOM:
                for _ in range(3):
                    src = numba.uint64(_sources(deck_n, pile_n, g))
                    if src == 0:
                        break
                    s = _pol_wisdom(code, params, p, g, skeys, scount, f, S, T, B, src)
                    _draw_one(deck, deck_n, pile, pile_n, hand, hand_n, g, p, s)
                    _refill_one(deck, deck_n, pile, pile_n, reshuffles, keys[g], g, buf)
                break
            if trig == COURAGE:
                if _courage_ok_one(fan, fan_n, closed, PW, g, p, ok):
                    _pol_courage(code, params, p, g, skeys, scount, f, S, ok, choice)
                    _courage_one(fan, fan_n, fan_sticks, pile, pile_n, deck, deck_n, reshuffles, ST, keys[g], g, ok,
                                 choice, buf)
                break
            # Harmony: the top of a discard pile that fits goes onto a fan
            fit = numba.uint64(0)
            for q in range(P):
                top = pile[g, q, pile_n[g, q] - 1] if pile_n[g, q] > 0 else -1
                if _fits_one(fan_sticks, closed, chosen, g, p, top, ST, TYPE):
                    fit |= numba.uint64(1) << numba.uint64(q)
            if fit == 0:
                break
            q = _pol_harmony(code, params, p, g, skeys, scount, f, S, T, B, fit)
            c = _pile_take_one(pile, pile_n, g, q)
        if done[g]:
            _limbo_one(limbo, g, red, k, j)
            return


@_step
def _k_play(deck, deck_n, hand, hand_n, pile, pile_n, fan, fan_n, fan_sticks, closed, fan_power, plays, winner,
            limbo, reshuffles, chosen, cf_deck, cf_n, cf_disc, cf_shuffles, columns, col_n, done, turns, timeout,
            current, keys, ST, PW, TYPE, VAL, WCL, DIG, table, skeys, scount, code, params, powers, chosen_fan,
            limit, cards, scratch, order, red, ok, choice, buf, ib, w):
    """Play every game to its end (or to ``limit`` turns: a timeout), one after another; the seats' random
    streams are ``skeys`` / ``scount`` at flat position g * P + seat (``Seats.draws``). Scratch: ``cards``
    int8 (6,), ``scratch`` int64 (4, 64), ``order`` / ``red`` int64 (6,), ``ok`` bool (P, 3), ``choice``
    int64 (P,), ``buf`` float64 (at least the deck size), ``ib`` int64 (40,), ``w`` float64 (3,)."""
    n = done.shape[0]
    P = hand.shape[1]
    S = (hand, hand_n, pile, pile_n, deck_n, fan_sticks, closed, chosen, columns, col_n)
    T = (ST, TYPE, VAL, WCL, DIG, table)
    B = (cards, ib, order, w, scratch)
    for g in range(n):
        while not done[g]:
            if turns[g] >= limit:
                timeout[g] = True
                done[g] = True
                break
            if P == 1:
                # ----- solo turn -----
                random = code[0] == POLICY_RANDOM
                _place_cards(pile, pile_n, columns, col_n, g, cards)
                bits = _combo_bits(cards, VAL, WCL, DIG, table, scratch, 3)
                if deck_n[g] == 0 and bits == 0:  # nothing to draw or play: the game ends (not a turn)
                    done[g] = True
                    break
                if random:
                    act = _random_solo_turn(skeys, scount, g, bits, deck_n[g])
                else:
                    act = _heur_solo_turn(code, params, g, S, T, B, bits)
                if act >= _PLAY:
                    mask = act - _PLAY
                    _place_cards(pile, pile_n, columns, col_n, g, cards)
                    k = _redeem_one(cards, mask, VAL, WCL, TYPE)
                    if random:
                        _random_arrange(cards, mask, k, ST, draw_base(skeys, scount, g), order, buf)
                    else:
                        _heur_arrange(code, params, 0, g, S, T, B, cards, mask, order)
                    _take_places_one(pile, pile_n, columns, col_n, g, order, k, red)
                    plays[g, 0] += 1
                    _build_c(g, 0, red, k, 3, deck, deck_n, hand, hand_n, pile, pile_n, fan, fan_n, fan_sticks,
                             closed, fan_power, winner, limbo, reshuffles, chosen, cf_deck, cf_n, cf_disc,
                             cf_shuffles, done, keys, PW, skeys, scount, code, params, powers, chosen_fan, ok, choice,
                             buf, S, T, B)
                elif deck_n[g] == 0:  # drawing from the empty deck ends the game (not a turn)
                    done[g] = True
                    break
                else:
                    c = _deck_take_one(deck, deck_n, g)
                    if random:
                        where = integer_below(uniform_at(draw_base(skeys, scount, g), 0), 5)
                    else:
                        where = _heur_place(code, params, g, S, T, B, c)
                    _solo_put_one(pile, pile_n, columns, col_n, g, c, where)
                turns[g] += 1
                continue
            # ----- multiplayer turn -----
            p = current[g]
            f = g * P + p
            random = code[p] == POLICY_RANDOM
            sources = numba.uint64(_sources(deck_n, pile_n, g))
            if random:
                _hand_cards(hand, hand_n, g, p, cards)
                act = _random_turn(skeys, scount, f, cards, VAL, WCL, DIG, table, scratch, sources)
            else:
                act = _heur_turn(code, params, p, g, skeys, scount, f, S, T, B, sources)
            if act >= _PLAY:
                mask = act - _PLAY
                _hand_cards(hand, hand_n, g, p, cards)
                k = _redeem_one(cards, mask, VAL, WCL, TYPE)
                if random:
                    _random_arrange(cards, mask, k, ST, draw_base(skeys, scount, f), order, buf)
                else:
                    _heur_arrange(code, params, p, g, S, T, B, cards, mask, order)
                _take_hand_one(hand, hand_n, pile, pile_n, g, p, order, k, red)
                plays[g, p] += 1
                _refill_one(deck, deck_n, pile, pile_n, reshuffles, keys[g], g, buf)
                _build_c(g, p, red, k, 2, deck, deck_n, hand, hand_n, pile, pile_n, fan, fan_n, fan_sticks, closed,
                         fan_power, winner, limbo, reshuffles, chosen, cf_deck, cf_n, cf_disc, cf_shuffles, done, keys,
                         PW, skeys, scount, code, params, powers, chosen_fan, ok, choice, buf, S, T, B)
            elif act != _PASS:
                _draw_one(deck, deck_n, pile, pile_n, hand, hand_n, g, p, act)
                _refill_one(deck, deck_n, pile, pile_n, reshuffles, keys[g], g, buf)
                while hand_n[g, p] > 5:
                    if random:
                        slot = integer_below(uniform_at(draw_base(skeys, scount, f), 0), hand_n[g, p])
                    else:
                        slot = _heur_discard(code, params, p, g, skeys, scount, f, S, T, B)
                    _discard_one(pile, pile_n, hand, hand_n, g, p, slot)
                    _refill_one(deck, deck_n, pile, pile_n, reshuffles, keys[g], g, buf)
            _end_turn(turns, current, g, p, P)


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

    def validate(self, players: int, rules: Any) -> None:
        super().validate(players, rules)
        if players == 1 and (rules.powers or rules.chosen_fan):
            raise SenseiError("sensu solo plays without the powers and chosen_fan variants")

    # ----- the compiled lane ----------------------------------------------------------------------
    def compiled_lineup(self, agents, players: int, rules: Any):
        """(policy code per seat, parameters) when every seat's strategy has a compiled form, else None."""
        return policy_table(agents, (POLICY_RANDOM, POLICY_REDEEMER, POLICY_PLANNER, POLICY_FOCUS))

    def play_compiled(self, st: SensuState, seats: Seats, lineup, limit: int) -> None:
        code, params = lineup
        r = st.rules
        P = st.players
        _k_play(st.deck, st.deck_n, st.hand, st.hand_n, st.pile, st.pile_n, st.fan, st.fan_n, st.fan_sticks,
                st.closed, st.fan_power, st.plays, st.winner, st.limbo, st.reshuffles, st.chosen, st.cf_deck,
                st.cf_n, st.cf_disc, st.cf_shuffles, st.columns, st.col_n, st.done, st.turns, st.timeout, st.current,
                st.keys, st.ST, st.PW, CARD_TYPE, CARD_VALUE, CARD_WILD, DIGIT, _table5(), seats.draws.keys,
                seats.draws.counter, code, params, bool(r.powers), bool(r.chosen_fan), int(limit),
                np.empty(SLOTS, np.int8), np.zeros((4, 64), np.int64), np.empty(SLOTS, np.int64),
                np.empty(SLOTS, np.int64), np.zeros((P, 3), np.bool_), np.empty(P, np.int64),
                np.empty(max(st.deck.shape[1], 2 * SLOTS, CF_CARDS), np.float64), np.zeros(40, np.int64),
                np.ones(3, np.float64))

    # ----- set-up --------------------------------------------------------------------------------
    def new_state(self, keys: np.ndarray, players: int, rules: Any, deck: np.ndarray | None = None,
                  chosen: np.ndarray | None = None) -> SensuState:
        """A fresh batch. ``deck`` (n, D) scripts the shuffled deck (last = top; hands are dealt from the
        top, 5 cards to each seat in turn); ``chosen`` (n, P) scripts the chosen fans."""
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
        if P > 1:
            for p in range(P):
                for j in range(5):
                    deck_n -= 1
                    hand[:, p, j] = deck_arr[np.arange(n), deck_n]
                    deck_arr[np.arange(n), deck_n] = -1
                hand_n[:, p] = 5
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
            ST=ST, PW=PW)

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

    # ----- observations --------------------------------------------------------------------------
    def _observe(self, st: SensuState, idx: np.ndarray, seat: np.ndarray) -> SensuObs:
        idx = np.asarray(idx, dtype=np.int64)
        seat = np.asarray(seat, dtype=np.int64)
        m = len(idx)
        P = st.players
        cards = np.empty((m, SLOTS), np.int8)
        r = st.rules
        if P == 1:
            _k_places(st.pile, st.pile_n, st.columns, st.col_n, idx, cards)
            src = np.zeros((m, 2), bool)
            src[:, 0] = st.deck_n[idx] > 0
            src[:, 1] = st.pile_n[idx, 0] > 0
            return SensuObs(PublicView(st), idx, seat, P, cards, np.zeros(m, np.int64), src, st.ST, st.PW,
                            r.powers, r.chosen_fan, None, True)
        src = np.empty((m, 1 + P), np.bool_)
        _k_cards(st.hand, st.hand_n, st.pile, st.pile_n, st.deck_n, idx, seat, cards, src)
        return SensuObs(PublicView(st), idx, seat, P, cards, st.hand_n[idx, seat], src, st.ST, st.PW,
                        r.powers, r.chosen_fan, st.hand[idx, seat])

    def observe_turn(self, st: SensuState, idx: np.ndarray, seat: np.ndarray) -> SensuObs:
        """The observation of a turn decision (public for tests and tools)."""
        return self._observe(st, idx, seat)

    @staticmethod
    def _sub(full: SensuObs, idx: np.ndarray):
        """An ``observe`` callback for Seats.ask that slices a prebuilt observation of ``idx``."""
        def observe(sub_idx, sub_seat, **_):
            if len(sub_idx) == len(idx):
                return full
            return full.take(np.searchsorted(idx, sub_idx))
        return observe

    def observe_all(self, st: SensuState, idx: np.ndarray, seat: int) -> dict[str, np.ndarray]:
        """Everything ``seat`` may know in games ``idx``: own hand, all piles, fans, counts, chosen fans."""
        idx = np.asarray(idx, dtype=np.int64)
        out = {
            "pile": st.pile[idx], "pile_n": st.pile_n[idx], "deck_n": st.deck_n[idx],
            "fan": st.fan[idx], "fan_n": st.fan_n[idx], "fan_sticks": st.fan_sticks[idx],
            "closed": st.closed[idx], "fan_power": st.fan_power[idx], "hand_n": st.hand_n[idx],
            "hand": st.hand[idx, seat], "chosen": st.chosen[idx], "cf_n": st.cf_n[idx],
            "cf_disc": st.cf_disc[idx], "columns": st.columns[idx], "col_n": st.col_n[idx],
            "plays": st.plays[idx], "current": st.current[idx], "turns": st.turns[idx],
            "done": st.done[idx], "winner": st.winner[idx], "limbo": st.limbo[idx],
        }
        return {k: np.array(v) for k, v in out.items()}

    def scramble_hidden(self, st: SensuState, seat: int, draws: Any) -> SensuState:
        """A copy in which the deck order, the other hands and the closed-fan deck order are re-dealt
        (the unseen cards permuted among the unseen places, counts kept)."""
        new = copy.deepcopy(st)
        n = len(st.done)
        P = st.players
        D = st.deck.shape[1]

        def rand(k):
            if isinstance(draws, np.random.Generator):
                return draws.random((n, k))
            return draws.random(np.arange(n), k)

        # unseen places: deck[0:deck_n], other hands' slots
        W = D + P * HAND
        cards = np.full((n, W), -1, np.int64)
        hidden = np.zeros((n, W), bool)
        cards[:, :D] = st.deck
        hidden[:, :D] = np.arange(D)[None, :] < st.deck_n[:, None]
        for p in range(P):
            if p == seat:
                continue
            cards[:, D + p * HAND:D + (p + 1) * HAND] = st.hand[:, p]
            hidden[:, D + p * HAND:D + (p + 1) * HAND] = np.arange(HAND)[None, :] < st.hand_n[:, p, None]
        u = rand(W)
        key = np.where(hidden, u, 2.0)
        perm_vals = np.take_along_axis(cards, np.argsort(key, axis=1), axis=1)  # hidden cards, shuffled
        pos_order = np.argsort(~hidden, axis=1, kind="stable")  # hidden positions first, in order
        filled = cards.copy()
        cnt = hidden.sum(1)
        rows = np.repeat(np.arange(n), W)
        j = np.tile(np.arange(W), n)
        ok = j < np.repeat(cnt, W)
        filled[rows[ok], pos_order.reshape(-1)[ok]] = perm_vals.reshape(-1)[ok]
        new.deck = filled[:, :D].astype(np.int8)
        for p in range(P):
            if p != seat:
                new.hand[:, p] = filled[:, D + p * HAND:D + (p + 1) * HAND].astype(np.int8)
        if st.rules.chosen_fan:
            u = rand(CF_CARDS)
            key = np.where(np.arange(CF_CARDS)[None, :] < st.cf_n[:, None], u, 2.0)
            new.cf_deck = np.take_along_axis(st.cf_deck, np.argsort(key, axis=1), axis=1)
        return new

    # ----- deck handling -------------------------------------------------------------------------
    def _refill(self, st: SensuState, g: np.ndarray) -> None:
        """Where the deck of game g is empty, shuffle all discard piles into a new deck (multiplayer)."""
        if st.players == 1 or len(g) == 0:
            return
        _k_refill(st.deck, st.deck_n, st.pile, st.pile_n, st.reshuffles, st.keys, np.asarray(g, dtype=np.int64))

    def _new_chosen(self, st: SensuState, g: np.ndarray, seat: np.ndarray) -> None:
        """After closing the chosen fan: draw closed-fan cards until one names a type not closed yet."""
        _k_new_chosen(st.cf_deck, st.cf_n, st.cf_disc, st.cf_shuffles, st.chosen, st.closed, st.keys,
                      np.asarray(g, dtype=np.int64), np.asarray(seat, dtype=np.int64))

    # ----- turns ---------------------------------------------------------------------------------
    def turn(self, st: SensuState, idx: np.ndarray, seats: Seats) -> None:
        if st.players == 1:
            self._solo_turn(st, idx, seats)
            return
        P = st.players
        seat = st.current[idx]
        obs = self._observe(st, idx, seat)
        act = np.asarray(seats.ask("turn", idx, seat, self._sub(obs, idx)), dtype=np.int64)
        r = np.arange(len(idx))
        is_draw = (act >= 0) & (act <= P)
        is_pass = act == Action.PASS
        is_play = (act >= Action.PLAY) & (act < Action.PLAY + 64)
        ok = np.zeros(len(idx), bool)
        ok[is_draw] = obs.sources[r[is_draw], act[is_draw]]
        ok[is_pass] = ~obs.sources[is_pass].any(axis=1)
        ok[is_play] = obs.combos[r[is_play], act[is_play] - Action.PLAY]
        illegal(seats, "turn", seat, ~ok, "not a legal draw, pass or combination")
        if is_draw.any():
            self._draw(st, idx[is_draw], seat[is_draw], act[is_draw], seats)
        if is_play.any():
            sub = obs.take(r[is_play])
            self._play(st, idx[is_play], seat[is_play], act[is_play] - Action.PLAY, sub, seats)
        _k_end_turn(st.turns, st.current, idx, seat, P)

    def _draw(self, st, g, seat, src, seats) -> None:
        _k_draw(st.deck, st.deck_n, st.pile, st.pile_n, st.hand, st.hand_n, g, seat, src)
        self._refill(st, g)
        while True:
            over = st.hand_n[g, seat] > 5
            if not over.any():
                break
            gi, si = g[over], seat[over]
            obs = self._observe(st, gi, si)
            slot = np.asarray(seats.ask("discard", gi, si, self._sub(obs, gi)), dtype=np.int64)
            illegal(seats, "discard", si, (slot < 0) | (slot >= obs.hand_n), "not a hand slot")
            _k_discard(st.pile, st.pile_n, st.hand, st.hand_n, gi, si, slot)
            self._refill(st, gi)

    def _arrange(self, st, g, seat, mask, obs, seats):
        obs.combo = mask
        obs.n_redeem = redeem_count(obs.cards, mask)
        order = np.asarray(seats.ask("arrange", g, seat, self._sub(obs, g)), dtype=np.int64)
        if order.shape != (len(g), SLOTS):
            illegal(seats, "arrange", seat, np.ones(len(g), bool), "expected (games, 6) slot orders")
        bad = _k_check_arrange(obs.cards.astype(np.int64), mask, order, obs.n_redeem, st.ST)
        illegal(seats, "arrange", seat, bad, "not the combination's slots in a legal redeeming order")
        return order, obs.n_redeem

    def _play(self, st, g, seat, mask, obs, seats) -> None:
        order, k = self._arrange(st, g, seat, mask, obs, seats)
        red = np.empty((len(g), SLOTS), np.int64)
        _k_take_hand(st.hand, st.hand_n, st.pile, st.pile_n, g, seat, order, k, red)
        st.plays[g, seat] += 1
        self._refill(st, g)
        self._build(st, g, seat, red, k, seats)

    def _build(self, st, g, seat, red, k, seats, win_at: int = 2) -> None:
        """Place the redeemed cards ``red`` (m, 3) in order; closing, winning, chosen fans and powers."""
        for j in range(3):
            sel = (k > j) & ~st.done[g]
            if not sel.any():
                break
            gi, si = g[sel], seat[sel]
            self._place(st, gi, si, red[sel, j], seats, win_at)
            won = st.done[gi] & (st.limbo[gi, 0] == -2)
            if won.any():  # the unplaced redeemed cards stay unplaced
                rows = np.flatnonzero(sel)[won]
                _k_limbo(st.limbo, gi[won], red[rows], k[rows], j)

    def _place(self, st, g, seat, card, seats, win_at) -> None:
        """Place one card per game (a power may place more, recursively)."""
        r = st.rules
        status, trig = _k_place(st.fan, st.fan_n, st.fan_sticks, st.closed, st.fan_power, st.pile, st.pile_n,
                                st.chosen, g, seat, card, st.ST, st.PW, CARD_TYPE, r.powers, win_at)
        won = status == 3
        if won.any():
            st.winner[g[won]] = seat[won]
            st.done[g[won]] = True
            st.limbo[g[won], 0] = -2  # marker read by _build
        if r.chosen_fan:
            t = CARD_TYPE[card]
            nc = (status == 2) & (st.chosen[g, seat] == t)
            if nc.any():
                self._new_chosen(st, g[nc], seat[nc])
        if st.players > 1:
            self._refill(st, g[status == 0])
        if r.powers:
            fire = trig >= 0
            if fire.any():
                self._powers(st, g[fire], seat[fire], trig[fire], seats, win_at)

    def _powers(self, st, g, seat, ptype, seats, win_at) -> None:
        P = st.players
        w = ptype == WISDOM
        if w.any():
            gw, sw = g[w], seat[w]
            for _ in range(3):
                obs = self._observe(st, gw, sw)
                can = obs.sources.any(axis=1)
                if not can.any():
                    break
                gi, si, obs = gw[can], sw[can], obs.take(np.flatnonzero(can))
                src = np.asarray(seats.ask("wisdom", gi, si, self._sub(obs, gi)), dtype=np.int64)
                okr = (src >= 0) & (src <= P)
                okr[okr] = obs.sources[np.flatnonzero(okr), src[okr]]
                illegal(seats, "wisdom", si, ~okr, "not a card source")
                _k_draw(st.deck, st.deck_n, st.pile, st.pile_n, st.hand, st.hand_n, gi, si, src)
                self._refill(st, gi)
        c = ptype == COURAGE
        if c.any():
            gc, sc = g[c], seat[c]
            obs = self._observe(st, gc, sc)
            okf = np.empty((len(gc), P, 3), np.bool_)
            _k_courage_ok(st.fan, st.fan_n, st.closed, st.PW, gc, sc, okf)
            obs.courage_ok = okf
            has = okf.any(axis=2)
            if has.any():
                sel = has.any(axis=1)
                gi, si, o2 = gc[sel], sc[sel], obs.take(np.flatnonzero(sel))
                ch = np.asarray(seats.ask("courage", gi, si, self._sub(o2, gi)), dtype=np.int64)
                if ch.shape != (len(gi), P):
                    illegal(seats, "courage", si, np.ones(len(gi), bool), "expected one fan per seat")
                h = o2.courage_ok.any(axis=2)
                legal_choice = np.take_along_axis(o2.courage_ok, np.clip(ch, 0, 2)[..., None], 2)[..., 0]
                bad = np.where(h, (ch < 0) | (ch > 2) | ~legal_choice, ch != -1).any(axis=1)
                illegal(seats, "courage", si, bad, "not a removable fan per opponent (-1 where none)")
                _k_courage(st.fan, st.fan_n, st.fan_sticks, st.pile, st.pile_n, st.deck, st.deck_n, st.reshuffles,
                           st.ST, st.keys, gi, np.ascontiguousarray(o2.courage_ok), np.ascontiguousarray(ch))
        h = ptype == HARMONY
        if h.any():
            gh, sh = g[h], seat[h]
            obs = self._observe(st, gh, sh)
            okp = obs.fits(obs.pile_top)
            obs.harmony_ok = okp
            sel = okp.any(axis=1)
            if sel.any():
                gi, si, o2 = gh[sel], sh[sel], obs.take(np.flatnonzero(sel))
                q = np.asarray(seats.ask("harmony", gi, si, self._sub(o2, gi)), dtype=np.int64)
                okq = (q >= 0) & (q < P)
                okq[okq] = o2.harmony_ok[np.flatnonzero(okq), q[okq]]
                illegal(seats, "harmony", si, ~okq, "not a pile whose top fits a fan")
                card = np.empty(len(gi), np.int64)
                _k_pile_take(st.pile, st.pile_n, gi, q, card)
                self._place(st, gi, si, card, seats, win_at)

    # ----- solo ----------------------------------------------------------------------------------
    def _solo_turn(self, st: SensuState, idx: np.ndarray, seats: Seats) -> None:
        seat = np.zeros(len(idx), np.int64)
        obs = self._observe(st, idx, seat)
        has = obs.combos.any(axis=1)
        over = (st.deck_n[idx] == 0) & ~has
        if over.any():  # deck empty and nothing to play: the game ends (not a turn)
            st.done[idx[over]] = True
            keep = ~over
            idx, seat, obs = idx[keep], seat[keep], obs.take(np.flatnonzero(keep))
            if len(idx) == 0:
                return
        act = np.asarray(seats.ask("solo_turn", idx, seat, self._sub(obs, idx)), dtype=np.int64)
        r = np.arange(len(idx))
        is_draw = act == Action.DRAW
        is_play = (act >= Action.PLAY) & (act < Action.PLAY + 64)
        ok = is_draw.copy()
        ok[is_play] = obs.combos[r[is_play], act[is_play] - Action.PLAY]
        illegal(seats, "solo_turn", seat, ~ok, "not a draw or a combination")
        end = is_draw & (st.deck_n[idx] == 0)
        st.done[idx[end]] = True  # drawing from the empty deck ends the game; not a turn
        d = is_draw & ~end
        if d.any():
            g = idx[d]
            o2 = obs.take(r[d])
            card = np.empty(len(g), np.int64)
            _k_deck_take(st.deck, st.deck_n, g, card)
            o2.card = card
            where = np.asarray(seats.ask("place", g, seat[d], self._sub(o2, g)), dtype=np.int64)
            illegal(seats, "place", seat[d], (where < 0) | (where > 4), "not a place 0..4")
            _k_solo_put(st.pile, st.pile_n, st.columns, st.col_n, g, card, where)
        if is_play.any():
            g = idx[is_play]
            s0 = seat[is_play]
            o2 = obs.take(r[is_play])
            mask = act[is_play] - Action.PLAY
            order, k = self._arrange(st, g, s0, mask, o2, seats)
            red = np.empty((len(g), SLOTS), np.int64)
            _k_take_places(st.pile, st.pile_n, st.columns, st.col_n, g, order, k, red)
            st.plays[g, 0] += 1
            self._build(st, g, s0, red, k, seats, win_at=3)
        st.turns[idx[~end]] += 1

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
        n = len(st.done)
        P = st.players
        expect = np.zeros(91, np.int64)
        expect[deck_cards(P).astype(np.int64)] = 1
        parts = [st.deck, st.hand.reshape(n, -1), st.pile.reshape(n, -1), st.fan.reshape(n, -1),
                 st.limbo, st.columns.reshape(n, -1)]
        allc = np.concatenate(parts, axis=1).astype(np.int64)
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
        if P > 1:
            assert (st.hand_n[live] <= 6).all(), "hand too large"
            assert (nclosed[live] < 2).all(), "a live game with a winner"
            won = st.done & ~st.timeout
            assert (st.winner[won] >= 0).all() and (nclosed[won, st.winner[won]] == 2).all(), "winner"
            assert ((st.deck_n > 0) | (st.pile_n.sum(axis=1) == 0)).all(), "empty deck with discards"
            if st.rules.chosen_fan:
                ch = st.chosen[live]
                ok = (ch < 0) | ~np.take_along_axis(st.closed[live], np.maximum(ch, 0)[..., None], 2)[..., 0]
                assert ok.all(), "chosen fan already closed"
                cf = (st.cf_deck >= 0).sum(1) + st.cf_disc.sum(1) + (st.chosen >= 0).sum(1) + nclosed.sum(1)
                assert (cf[live] == CF_CARDS).all(), "closed-fan cards not conserved"
        else:
            assert (st.turns <= 200).all()
            assert (nclosed[live] < 3).all()
