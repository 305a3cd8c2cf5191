"""Fan & Mallet (団扇と小槌, Katsumasa Tomioka 2016): two gods place followers round a ring of houses.

Rules in brief (``rules/fan-and-mallet.md`` is binding):

* 12 houses in a shuffled ring (positions 0..11, clockwise), one per colour per faction. A house's origin
  has the house's colour and no power: it blocks its colour and gives the house its faction (for ties).
* Each faction (White 0 = seat 0, the starting player; Black 1 = seat 1) owns 30 followers: spirit objects
  of power 1..4 in each of 6 colours and one kid ghost per colour (base power 1, an ability fixed by the
  colour). Each player shuffles their own 30 and draws 6.
* A turn: play one card from the hand. From the house just clockwise of your pawn, go clockwise to the
  first house with no follower of the card's colour and an origin of another colour (the pawn's own house
  is looked at last); put the card on top of its stack and move your pawn there. A house reaching 5
  followers is possessed: each faction sums its followers' powers (base + kid-ghost bonus); the higher
  total places a marker (2 for the first possession of the game), a tie goes to the house's faction.
  Then draw a card if your deck has any.
* The first player to have placed 7 markers wins at once (no draw). Option ``match_points``: games in a
  row, the winner scores the loser's unused markers, the loser starts the next game, first to the target
  wins the match (one simulated game is then one match).

Kid-ghost bonuses (stack order = placement order, bottom first): Umbrella (red) + power of the spirit
object directly beneath; Bucket (blue) + the largest of 1..4 shown by no spirit object in the house;
Mirror (green) + spirit objects in the unbroken runs directly beneath and above; Mortar (yellow) + the
number of other followers whose power, bonus included, is odd (evaluated last); Cauldron (purple) + 4 if
its faction has at most 2 followers in the house; Hatchet (brown) + 4 if the five factions alternate.

Array layout (first axis = game of the batch):

* card codes: ``card = faction * 30 + colour * 5 + kind``; kind 0..3 is a spirit object of power
  kind + 1, kind 4 the kid ghost. Colours: red 0, blue 1, green 2, yellow 3, purple 4, brown 5.
  -1 is "no card". A house card is ``faction * 6 + colour``.
* ``ring_colour``, ``ring_faction`` (n, 12): the houses at ring positions 0..11.
* ``stack`` (n, 12, 5) followers of each house in placement order, ``count`` (n, 12) their number,
  ``colours`` (n, 12) bit mask of the colours present (origin included), ``owner`` (n, 12) the faction
  that possessed the house or -1.
* ``hand`` (n, 2, 6) per faction (= seat) hand slots, ``deck`` (n, 2, 30) the shuffled deck with drawn
  entries set to -1, ``deck_pos`` (n, 2) cards drawn so far.
* ``pawn`` (n, 2) ring position of each pawn (at set-up: one before the start position), ``markers``
  (n, 2) markers placed, ``to_move`` (n,), ``first_done`` (n,) whether this game saw a possession,
  ``first_winner`` (n,) the faction that won it (-1 before).
* Match mode: ``points`` (n, 2), ``game_no`` (n,) game of the match (0-based), ``winner`` (n,) the
  winner of the game (match) once done.
* ``deal_keys`` (n, 3) the keys of the ring's and the two decks' shuffles (at draw number ``game_no``).

Hands and decks are private; everything else is public.

Every rule step (the deal, a played card with its possession, the end of a game or match) is one
per-game compiled function. The batch lane (``turn``) loops over the acting games with them; the
compiled lane (``play_compiled``, for lineups whose strategies all have compiled forms: ``random``,
``strongest``, ``closer``, ``keeper``, ``counter``) plays whole games with the same functions, the same
random streams and the strategies' decision kernels, so both lanes give the same games.
"""
from __future__ import annotations

import dataclasses
from functools import cached_property
from typing import Any, ClassVar

import numba
import numpy as np

from ..compiled import NO_REFCOUNT
from ..errors import SenseiError
from ..game import Game, Metric, illegal, policy_table
from ..options import Rules, option
from ..rng import STREAM_DEAL, Draws, draw_base, integer_below, permutation_into, stream_keys, uniform_at

N_HOUSES = 12
STACK = 5
HAND = 6
DECK = 30
N_COLOURS = 6
KID = 4
TARGET = 7
COLOUR_NAMES = ("red", "blue", "green", "yellow", "purple", "brown")
ABILITIES = ("umbrella", "bucket", "mirror", "mortar", "cauldron", "hatchet")
UMBRELLA, BUCKET, MIRROR, MORTAR, CAULDRON, HATCHET = range(6)

_ids = np.arange(2 * DECK)
CARD_FACTION = (_ids // DECK).astype(np.int64)
CARD_COLOUR = ((_ids % DECK) // 5).astype(np.int64)
CARD_KIND = (_ids % 5).astype(np.int64)
CARD_KID = CARD_KIND == KID
CARD_POWER = np.where(CARD_KID, 1, CARD_KIND + 1).astype(np.int64)
_OFFSETS = np.arange(1, N_HOUSES + 1)


def card(faction: int, colour: int, kind: int) -> int:
    """Card code of a follower (kind 0..3: spirit object of power kind+1; 4: kid ghost)."""
    return faction * DECK + colour * 5 + kind


def spirit(faction: int, colour: int, power: int) -> int:
    return card(faction, colour, power - 1)


def kid(faction: int, colour: int) -> int:
    return card(faction, colour, KID)


# ----------------------------------------------------------------------------------------------------
# rule options

def _parse_positions(value: Any) -> tuple[int, int]:
    parts = list(value) if isinstance(value, (tuple, list)) else str(value).split(",")
    try:
        out = tuple(int(str(p).strip()) for p in parts)
    except ValueError:
        raise SenseiError(f"start_positions: expected two house numbers like 0,6, got {value!r}") from None
    if len(out) != 2 or not all(0 <= x < N_HOUSES for x in out):
        raise SenseiError(f"start_positions: expected two house numbers in 0..11 like 0,6, got {value!r}")
    return out  # type: ignore[return-value]


@dataclasses.dataclass(frozen=True)
class FanAndMalletRules(Rules):
    start_positions: tuple = option((0, 6), "ring houses where White's and Black's placement searches start",
                                    parse=_parse_positions, show=lambda v: ",".join(map(str, v)))
    match_points: int | None = option(None, "play games in a row until a player has this many points "
                                            "(the loser's unused markers); none: a single game", min=1)

    def __post_init__(self) -> None:
        object.__setattr__(self, "start_positions", _parse_positions(self.start_positions))
        mp = self.match_points
        if mp is not None and (isinstance(mp, bool) or not isinstance(mp, (int, np.integer)) or mp < 1):
            raise SenseiError(f"match_points: expected a positive integer or none, got {mp!r}")


# ----------------------------------------------------------------------------------------------------
# kernels: possession scoring and the placement search (numba, over arrays)
#
# Kernels that allocate nothing are compiled without numba's reference counting (simcore/compiled.py): the
# per-game rule steps below are inlined into loops that touch some thirty arrays, and counting references
# to them on every step (atomic operations) would cost several times the rules themselves. Such kernels
# get their scratch space from the caller.

_NO_REFCOUNT = NO_REFCOUNT

#: index of the lowest set bit of each 12-bit mask (-1 for 0)
_LOWBIT = np.array([-1] + [(x & -x).bit_length() - 1 for x in range(1, 1 << N_HOUSES)], dtype=np.int8)
_ALL = (1 << N_HOUSES) - 1


@numba.njit(cache=True, inline="always")
def _score_house(st, n, bonus):
    """Bonuses (written to ``bonus``) and faction totals of the first ``n`` followers of stack ``st``."""
    shown = 0  # bit v: a spirit object shows v
    kids = 0  # bit i: follower i is a kid ghost
    n_white = 0
    alt = True
    tw = 0  # base powers by faction; the bonuses are added below
    tb = 0
    prev = -1
    for i in range(n):  # without branches: kid ghosts are rare and unpredictable
        c = st[i]
        bonus[i] = 0
        black = 1 if c >= DECK else 0
        alt &= black != prev
        prev = black
        kind = CARD_KIND[c]
        kid = 1 if kind == KID else 0
        kids |= kid << i
        shown |= (1 - kid) << (kind + 1)
        p = kind + 1 - kid * kind  # a kid ghost's base power is 1
        n_white += 1 - black
        tw += p * (1 - black)
        tb += p * black
    if kids == 0:
        return tw, tb
    mortar = -1
    left = kids
    while left:
        i = _LOWBIT[left]
        left &= left - 1
        c = st[i]
        col = CARD_COLOUR[c]
        b = 0
        if col == UMBRELLA:
            if i > 0 and not (kids >> (i - 1)) & 1:
                b = CARD_KIND[st[i - 1]] + 1
        elif col == BUCKET:
            for v in range(4, 0, -1):
                if not (shown >> v) & 1:
                    b = v
                    break
        elif col == MIRROR:
            j = i - 1
            while j >= 0 and not (kids >> j) & 1:
                b += 1
                j -= 1
            j = i + 1
            while j < n and not (kids >> j) & 1:
                b += 1
                j += 1
        elif col == MORTAR:
            mortar = i  # evaluated after every other kid ghost
            continue
        elif col == CAULDRON:
            own = n_white if c < DECK else n - n_white
            if own <= 2:
                b = 4
        elif alt:  # HATCHET
            b = 4
        bonus[i] = b
        if c < DECK:
            tw += b
        else:
            tb += b
    if mortar >= 0:
        odd = 0
        for i in range(n):
            if i != mortar:
                p = (1 if (kids >> i) & 1 else CARD_KIND[st[i]] + 1) + bonus[i]
                odd += p & 1
        bonus[mortar] = odd
        if st[mortar] < DECK:
            tw += odd
        else:
            tb += odd
    return tw, tb


@numba.njit(**_NO_REFCOUNT)
def _score_batch(cards, bonus, totals):
    for r in range(cards.shape[0]):
        n = 0
        while n < cards.shape[1] and cards[r, n] >= 0:
            n += 1
        tw, tb = _score_house(cards[r], n, bonus[r])
        totals[r, 0] = tw
        totals[r, 1] = tb


@numba.njit(cache=True)
def _land_free(free, pawn):
    """Ring position of the first house clockwise of ``pawn`` (the pawn's own house last) that takes the
    colour whose house mask is ``free`` (bit h set: house h has no follower of the colour and an origin of
    another colour); -1 if none. The ring is rotated to start after the pawn and the lowest bit taken."""
    s = pawn + 1
    if s == N_HOUSES:
        s = 0
    rot = ((free >> s) | (free << (N_HOUSES - s))) & _ALL
    b = _LOWBIT[rot]
    if b < 0:
        return -1
    h = s + b
    return h - N_HOUSES if h >= N_HOUSES else h


@numba.njit(cache=True, inline="always")
def _free_mask(colours_row, colour):
    """The houses that take ``colour`` (bit h), from the colour masks of the houses (origin and
    followers): the state's ``free``."""
    free = 0
    for h in range(N_HOUSES):
        if not (colours_row[h] >> colour) & 1:
            free |= 1 << h
    return free


@numba.njit(cache=True, inline="always")
def _land(colours_row, pawn, colour):
    """The same search given the colour masks of the houses (origin and followers)."""
    return _land_free(_free_mask(colours_row, colour), pawn)


@numba.njit(**_NO_REFCOUNT)
def _land_batch(colours, pawn, colour, out):
    for r in range(colour.shape[0]):
        for j in range(colour.shape[1]):
            out[r, j] = _land(colours[r], pawn[r], colour[r, j])


# ----------------------------------------------------------------------------------------------------
# rule steps: scalar per-game kernels shared by the batch lane (loop kernels over the acting games) and
# the compiled lane (one game after another)

@numba.njit(cache=True, inline="always")
def _deal_game(g, deal_keys, game_no, start, ring_colour, ring_faction, colours, free, stack, count, owner, hand,
               hand_n, deck, deck_pos, pawn, markers, first_done, first_winner, ring_perm, deck_perm):
    """Set up game number ``game_no[g]`` of the match in game g: ring, decks, hands, pawns. The shuffles
    are ``simcore.rng``'s permutations keyed by ``deal_keys[g]`` (ring, White's deck, Black's deck) at
    draw number ``game_no[g]``; ``ring_perm`` (12,) and ``deck_perm`` (30,) are scratch space."""
    permutation_into(deal_keys[g, 0], game_no[g], ring_perm)
    for c in range(N_COLOURS):
        free[g, c] = _ALL
    for h in range(N_HOUSES):
        r = ring_perm[h]  # the house card faction * 6 + colour
        fac = 1 if r >= N_COLOURS else 0
        col = r - fac * N_COLOURS
        ring_colour[g, h] = col
        ring_faction[g, h] = fac
        colours[g, h] = 1 << col
        free[g, col] &= ~(1 << h)  # a house's origin blocks its colour
        for i in range(STACK):
            stack[g, h, i] = -1
        count[g, h] = 0
        owner[g, h] = -1
    for f in range(2):
        permutation_into(deal_keys[g, 1 + f], game_no[g], deck_perm)
        for j in range(HAND):
            hand[g, f, j] = deck_perm[j] + f * DECK
            deck[g, f, j] = -1
        for j in range(HAND, DECK):
            deck[g, f, j] = deck_perm[j] + f * DECK
        hand_n[g, f] = HAND
        deck_pos[g, f] = HAND
        pawn[g, f] = (start[f] + N_HOUSES - 1) % N_HOUSES
        markers[g, f] = 0
    first_done[g] = False
    first_winner[g] = -1


@numba.njit(**_NO_REFCOUNT)
def _deal_batch(idx, deal_keys, game_no, start, ring_colour, ring_faction, colours, free, stack, count, owner, hand,
                hand_n, deck, deck_pos, pawn, markers, first_done, first_winner, ring_perm, deck_perm):
    for t in range(idx.shape[0]):
        _deal_game(idx[t], deal_keys, game_no, start, ring_colour, ring_faction, colours, free, stack, count, owner,
                   hand, hand_n, deck, deck_pos, pawn, markers, first_done, first_winner, ring_perm, deck_perm)


@numba.njit(cache=True, inline="always")
def _play_card(g, a, sl, hand, hand_n, deck, deck_pos, stack, count, colours, free, owner, ring_faction, pawn,
               markers, first_done, first_winner, turns, to_move, houses, first_white, ties, ties_white_house,
               ab_kids, ab_bonus, ab_swing, bonus):
    """Player ``a`` plays card ``hand[g, a, sl]`` in game g: placement, possession, the win check and,
    unless the game was won, the draw and the change of player. Returns whether the game was won
    (``bonus`` (5,) is scratch space)."""
    c = hand[g, a, sl]
    hand[g, a, sl] = -1
    col = CARD_COLOUR[c]
    h = _land_free(free[g, col], pawn[g, a])
    if h < 0:
        raise AssertionError("a follower found no house")
    pos = count[g, h]
    stack[g, h, pos] = c
    count[g, h] = pos + 1
    colours[g, h] |= 1 << col
    free[g, col] &= ~(1 << h)
    pawn[g, a] = h
    turns[g] += 1
    won = False
    if pos == STACK - 1:
        tw, tb = _score_house(stack[g, h], STACK, bonus)
        hf = ring_faction[g, h]
        tie = tw == tb
        win = hf if tie else (0 if tw > tb else 1)
        if first_done[g]:
            markers[g, win] += 1
        else:
            markers[g, win] += 2
            first_done[g] = True
            first_winner[g] = win
            if win == 0:
                first_white[g] += 1
        owner[g, h] = win
        houses[g] += 1
        if tie:
            ties[g] += 1
            if hf == 0:
                ties_white_house[g] += 1
        for i in range(STACK):
            cc = stack[g, h, i]
            if CARD_KIND[cc] == KID:
                ab = CARD_COLOUR[cc]
                b = bonus[i]
                ab_kids[g, ab] += 1
                ab_bonus[g, ab] += b
                w2 = tw - b if cc < DECK else tw
                b2 = tb - b if cc >= DECK else tb
                alt = hf if w2 == b2 else (0 if w2 > b2 else 1)
                if alt != win:
                    ab_swing[g, ab] += 1
        won = markers[g, win] >= TARGET
    if won:
        hand_n[g, a] -= 1
    else:
        p = deck_pos[g, a]
        if p < DECK:  # the drawn card takes the played card's slot
            hand[g, a, sl] = deck[g, a, p]
            deck[g, a, p] = -1
            deck_pos[g, a] = p + 1
        else:  # keep the hand in slots 0..size-1
            hand_n[g, a] -= 1
            last = HAND - 1
            while last > sl and hand[g, a, last] < 0:
                last -= 1
            if last > sl:
                hand[g, a, sl] = hand[g, a, last]
                hand[g, a, last] = -1
        to_move[g] = 1 - a
    return won


@numba.njit(**_NO_REFCOUNT)
def _apply_turn(idx, actor, slot, hand, hand_n, deck, deck_pos, stack, count, colours, free, owner, ring_faction, pawn,
                markers, first_done, first_winner, turns, to_move, houses, first_white, ties, ties_white_house,
                ab_kids, ab_bonus, ab_swing, over, bonus):
    """:func:`_play_card` in each game of ``idx``; ``over`` marks the games just won."""
    for t in range(idx.shape[0]):
        over[t] = _play_card(idx[t], actor[t], slot[t], hand, hand_n, deck, deck_pos, stack, count, colours, free,
                             owner, ring_faction, pawn, markers, first_done, first_winner, turns, to_move, houses,
                             first_white, ties, ties_white_house, ab_kids, ab_bonus, ab_swing, bonus)


@numba.njit(cache=True, inline="always")
def _end_game(g, match_points, markers, points, first_winner, first_winner_won, winner, done, game_no, to_move):
    """Game g was just won (a player placed the 7th marker): end it, or, in a match (``match_points`` > 0),
    score the loser's unused markers and, unless the match is won, start the next game's number with the
    loser to move. Returns whether the next game of the match must be dealt."""
    win = 1 if markers[g, 1] > markers[g, 0] else 0
    if first_winner[g] == win:
        first_winner_won[g] += 1
    if match_points <= 0:
        winner[g] = win
        done[g] = True
        return False
    loser = 1 - win
    points[g, win] += TARGET - markers[g, loser]
    if points[g, win] >= match_points:
        winner[g] = win
        done[g] = True
        return False
    game_no[g] += 1
    to_move[g] = loser
    return True


@numba.njit(**_NO_REFCOUNT)
def _end_games(idx, match_points, markers, points, first_winner, first_winner_won, winner, done, game_no, to_move,
               deal_keys, start, ring_colour, ring_faction, colours, free, stack, count, owner, hand, hand_n, deck,
               deck_pos, pawn, first_done, ring_perm, deck_perm):
    """:func:`_end_game` in each game of ``idx``, dealing the next game of a match where one follows."""
    for t in range(idx.shape[0]):
        g = idx[t]
        if _end_game(g, match_points, markers, points, first_winner, first_winner_won, winner, done, game_no,
                     to_move):
            _deal_game(g, deal_keys, game_no, start, ring_colour, ring_faction, colours, free, stack, count, owner,
                       hand, hand_n, deck, deck_pos, pawn, markers, first_done, first_winner, ring_perm, deck_perm)


@numba.njit(cache=True)
def _first_illegal(idx, actor, slot, hand):
    """Position of the first invalid choice (slot out of range or empty), -1 if all are valid."""
    for t in range(idx.shape[0]):
        sl = slot[t]
        if sl < 0 or sl >= HAND or hand[idx[t], actor[t], sl] < 0:
            return t
    return -1


# ----------------------------------------------------------------------------------------------------
# the strategies' decision kernels (their batch forms call them too), and the compiled lane

#: policy codes of the compiled lane (``compiled_code`` of the strategies)
POLICY_RANDOM = 1
POLICY_STRONGEST = 2
POLICY_CLOSER = 3
POLICY_KEEPER = 4
POLICY_COUNTER = 5

#: ``strongest``'s preference of every card (higher first): spirit objects by power then lowest colour,
#: then kid ghosts by lowest colour; the last entry (read for an empty slot, -1) is below every card
STRONGEST_KEY = np.append(np.where(CARD_KID, -10 - CARD_COLOUR, 10 * CARD_POWER - CARD_COLOUR),
                          -1000).astype(np.int64)


@numba.njit(cache=True, inline="always")
def _strongest_slot(hand_row):
    """``strongest``: the slot of the most preferred card of a hand (the first of equals)."""
    best = 0
    value = STRONGEST_KEY[hand_row[0] if hand_row[0] >= 0 else 2 * DECK]
    for j in range(1, HAND):
        c = hand_row[j]
        v = STRONGEST_KEY[c if c >= 0 else 2 * DECK]
        if v > value:
            best = j
            value = v
    return best


@numba.njit(**_NO_REFCOUNT)
def _strongest_batch(hand, out):
    """``strongest``'s slot for each row of ``hand`` (k, 6)."""
    for r in range(hand.shape[0]):
        out[r] = _strongest_slot(hand[r])


#: parameters in the compiled lane: ``closer``'s feed, thrift, build, the value of a kid ghost; then
#: ``keeper``'s hold and min_bonus; then ``counter``'s bait
CLOSER_PARAMS = 7
#: games of a match end at 100 in ``closer``'s closing value (above any stake)
WIN_GAME = 100.0


@numba.njit(cache=True, inline="always")
def _closer_row(hand_row, me, stack_g, count_g, free_g, ring_faction_g, pawn_g, markers_g, first_done_g, spend,
                avail, feed, thrift, build, score, close, lead, leaves4, prospect, land, cards, bonus):
    """``closer``'s evaluation of each card of seat ``me``'s hand ``hand_row`` in one game (the public
    arrays of that game), given the cost of spending each card (``spend``) and the weights of the
    opponent's colours (``avail``, (6,)). Per slot: ``land``, the house the card lands in (-1 for an empty
    slot); ``close``, the value of completing that house (+stake if ``me`` possesses it, -stake if the
    opponent does, +-100 where that ends the game; 0 for a card that does not complete its house, never 0
    for one that does); ``lead``, own minus opponent power in the
    house after the card, for a card that does not complete it; ``leaves4``, whether it leaves its house
    one follower short; ``prospect``, a kid ghost's bonus in the house it lands in but does not complete,
    judged with the followers there now (0 for other cards); ``score``, what ``closer`` maximises.
    ``free_g`` (6,): the houses that take each colour (as the state's ``free``). ``cards`` and ``bonus``
    (5,) are scratch space."""
    opp = 1 - me
    stake = 1.0 if first_done_g else 2.0
    mine_ends = markers_g[me] + stake >= TARGET
    theirs_ends = markers_g[opp] + stake >= TARGET
    wsum = 0.0
    for c in range(N_COLOURS):
        wsum += avail[c]
    tot = max(wsum, 1e-9)
    for j in range(HAND):
        c = hand_row[j]
        close[j] = 0.0
        lead[j] = 0.0
        leaves4[j] = False
        prospect[j] = 0.0
        land[j] = -1
        closes = False
        reach = 0.0
        if c >= 0:
            col = CARD_COLOUR[c]
            h = _land_free(free_g[col], pawn_g[me])
            land[j] = h
            k = count_g[h]
            for i in range(STACK):
                cards[i] = stack_g[h, i]
            cards[k] = c
            tw, tb = _score_house(cards, k + 1, bonus)
            if k == STACK - 1:
                closes = True
                win = ring_faction_g[h] if tw == tb else (1 if tb > tw else 0)
                if win == me:
                    close[j] = WIN_GAME if mine_ends else stake
                else:
                    close[j] = -WIN_GAME if theirs_ends else -stake
            else:
                lead[j] = float(tw - tb) if me == 0 else float(tb - tw)
                if CARD_KIND[c] == KID:
                    prospect[j] = float(bonus[k])
                if k == STACK - 2:  # the opponent's next card may complete it: how many of their colours land there
                    leaves4[j] = True
                    hits = 0.0
                    for oc in range(N_COLOURS):  # after the card, house h no longer takes its colour
                        after = free_g[oc] & ~(1 << h) if oc == col else free_g[oc]
                        if _land_free(after, pawn_g[opp]) == h:
                            hits += avail[oc]
                    reach = hits / tot
        if closes:
            s = 10.0 * close[j]
        else:
            clipped = min(max(lead[j], -6.0), 6.0)
            s = -feed * stake * reach + build * clipped * (0.0 if leaves4[j] else 1.0)
        score[j] = s - thrift * spend[j]


@numba.njit(cache=True, inline="always")
def _threat_row(hand_row, me, stack_g, free_g, ring_faction_g, pawn_g, opp_held, land, leaves4, danger, cards, bonus):
    """``counter``'s danger of each card that leaves its house one follower short (``leaves4``, landing
    on ``land``; 0 for other cards): the chance that the opponent, holding ``opp_held`` cards drawn at
    random from their cards not on the ring, holds one that lands there on their next turn (after this
    card) and possesses the house."""
    opp = 1 - me
    seen = 0  # bit t: the opponent's card t (colour * 5 + kind) is on the ring
    for h in range(N_HOUSES):
        for i in range(STACK):
            c = stack_g[h, i]
            if c >= 0 and (1 if c >= DECK else 0) == opp:
                seen |= 1 << (c - opp * DECK)
    total = 0.0
    for t in range(DECK):
        if not (seen >> t) & 1:
            total += 1.0
    for j in range(HAND):
        danger[j] = 0.0
        if not leaves4[j]:
            continue
        h = land[j]
        col = CARD_COLOUR[hand_row[j]]
        for i in range(STACK):
            cards[i] = stack_g[h, i]
        cards[STACK - 2] = hand_row[j]
        good = 0.0
        for t in range(DECK):
            if (seen >> t) & 1:
                continue
            tc = CARD_COLOUR[t]
            after = free_g[tc] & ~(1 << h) if tc == col else free_g[tc]
            if _land_free(after, pawn_g[opp]) != h:
                continue
            cards[STACK - 1] = opp * DECK + t
            tw, tb = _score_house(cards, STACK, bonus)
            if (ring_faction_g[h] if tw == tb else (1 if tb > tw else 0)) == opp:
                good += 1.0
        miss = 1.0  # P(none of the held cards is a good one)
        for i in range(HAND):
            if i < opp_held:
                miss *= min(max((total - good - i) / max(total - i, 1.0), 0.0), 1.0)
        danger[j] = 1.0 - miss


@numba.njit(cache=True, inline="always")
def _counter_row(hand_row, me, stack_g, free_g, ring_faction_g, pawn_g, first_done_g, opp_held, spend, feed, thrift,
                 build, bait, score, close, lead, leaves4, land, danger, cards, bonus):
    """``counter``'s score of each card, from ``closer``'s evaluation (``close``, ``lead``, ``leaves4``,
    ``land``, see :func:`_closer_row`) and the danger of :func:`_threat_row` (written to ``danger``)."""
    _threat_row(hand_row, me, stack_g, free_g, ring_faction_g, pawn_g, opp_held, land, leaves4, danger, cards, bonus)
    stake = 1.0 if first_done_g else 2.0
    for j in range(HAND):
        if hand_row[j] >= 0 and close[j] != 0.0:
            s = 10.0 * close[j]
        else:
            bait_it = 1.0 if leaves4[j] and danger[j] == 0.0 and lead[j] > 0.0 else 0.0
            s = -feed * stake * danger[j] + build * min(max(lead[j], -6.0), 6.0) + bait * stake * bait_it
        score[j] = s - thrift * spend[j]


@numba.njit(**_NO_REFCOUNT)
def _closer_batch(hand, me, stack, count, colours, ring_faction, pawn, markers, first_done, hand_size, spend, avail,
                  feed, thrift, build, bait, counter, score, close, lead, leaves4, prospect, land, danger, cards, bonus,
                  free):
    for r in range(hand.shape[0]):
        for c in range(N_COLOURS):
            free[c] = _free_mask(colours[r], c)
        _closer_row(hand[r], me[r], stack[r], count[r], free, ring_faction[r], pawn[r], markers[r], first_done[r],
                    spend[r], avail[r], feed, thrift, build, score[r], close[r], lead[r], leaves4[r], prospect[r],
                    land[r], cards, bonus)
        if counter:
            _counter_row(hand[r], me[r], stack[r], free, ring_faction[r], pawn[r], first_done[r],
                         hand_size[r, 1 - me[r]], spend[r], feed, thrift, build, bait, score[r], close[r], lead[r],
                         leaves4[r], land[r], danger[r], cards, bonus)


def closer_evaluation(obs, spend: np.ndarray, avail: np.ndarray, feed: float = 0.0, thrift: float = 0.0,
                      build: float = 0.0, bait: float | None = None) -> tuple[np.ndarray, ...]:
    """``closer``'s evaluation of every hand card of a batch of observations (see :func:`_closer_row`):
    (score, close, lead, leaves4, prospect), each (k, 6); ``spend`` (k, 6) and ``avail`` (k, 6) as
    there. Given ``bait``, the score is ``counter``'s (see :func:`_counter_row`)."""
    k = len(obs)
    score = np.empty((k, HAND))
    close = np.empty((k, HAND))
    lead = np.empty((k, HAND))
    leaves4 = np.empty((k, HAND), dtype=bool)
    prospect = np.empty((k, HAND))
    c = np.ascontiguousarray
    _closer_batch(c(obs.hand), c(obs.me, dtype=np.int64), c(obs.stack), c(obs.count), c(obs.colours),
                  c(obs.ring_faction), c(obs.pawn), c(obs.markers), c(obs.first_done),
                  c(obs.hand_size, dtype=np.int64) if bait is not None else np.zeros((k, 2), dtype=np.int64),
                  c(spend, dtype=np.float64), c(avail, dtype=np.float64), float(feed), float(thrift), float(build),
                  float(bait or 0.0), bait is not None, score, close, lead, leaves4, prospect,
                  np.empty((k, HAND), dtype=np.int64), np.empty((k, HAND)), np.empty(STACK, dtype=np.int64),
                  np.empty(STACK, dtype=np.int64), np.empty(N_COLOURS, dtype=np.int64))
    return score, close, lead, leaves4, prospect


@numba.njit(cache=True, inline="always")
def _closer_slot(hand_row, me, stack_g, count_g, free_g, ring_faction_g, pawn_g, markers_g, first_done_g, opp_held,
                 params, policy, spend, avail, score, close, lead, leaves4, prospect, land, danger, cards, bonus):
    """``closer``, ``keeper`` or ``counter`` (``policy``) in the compiled lane: the best card (the first of
    equal scores) of seat ``me``, with parameters ``params`` (see :data:`CLOSER_PARAMS`). ``keeper`` holds
    kid ghosts: playing one on a house it does not complete where its prospect is below min_bonus costs
    hold; ``counter`` weighs the danger of a house left one short (``opp_held``: the opponent's hand size)."""
    for j in range(HAND):
        c = hand_row[j]
        spend[j] = 0.0 if c < 0 else (params[3] if CARD_KIND[c] == KID else float(CARD_POWER[c]))
    for oc in range(N_COLOURS):
        avail[oc] = 1.0
    _closer_row(hand_row, me, stack_g, count_g, free_g, ring_faction_g, pawn_g, markers_g, first_done_g, spend,
                avail, params[0], params[1], params[2], score, close, lead, leaves4, prospect, land, cards, bonus)
    if policy == POLICY_COUNTER:
        _counter_row(hand_row, me, stack_g, free_g, ring_faction_g, pawn_g, first_done_g, opp_held, spend, params[0],
                     params[1], params[2], params[6], score, close, lead, leaves4, land, danger, cards, bonus)
    elif policy == POLICY_KEEPER:
        for j in range(HAND):
            c = hand_row[j]
            # (a card that completes its house has a closing value, never 0)
            if c >= 0 and CARD_KIND[c] == KID and close[j] == 0.0 and prospect[j] < params[5]:
                score[j] = score[j] - params[4]
    best = -1
    for j in range(HAND):
        if hand_row[j] >= 0 and (best < 0 or score[j] > score[best]):
            best = j
    return best


def _deal_scratch() -> tuple[np.ndarray, np.ndarray]:
    """Scratch space of :func:`_deal_game`: the ring's and a deck's permutation."""
    return np.empty(N_HOUSES, dtype=np.int64), np.empty(DECK, dtype=np.int64)


def strongest_slots(hand: np.ndarray) -> np.ndarray:
    """``strongest``'s choice for each row of hands ``hand`` (k, 6)."""
    hand = np.ascontiguousarray(hand)
    out = np.empty(hand.shape[0], dtype=np.int64)
    _strongest_batch(hand, out)
    return out


@numba.njit(cache=True, inline="always")
def _next_uniform(draw_keys, draw_counter, flat):
    """The uniform that the next draw of the stream at flat position ``flat`` gives (``simcore.rng``'s
    ``draw_base`` and ``uniform_at``), without taking the draw: its counter is left as it was."""
    base = draw_base(draw_keys, draw_counter, flat)
    draw_counter[flat] -= 1
    return uniform_at(base, 0)


@numba.njit(cache=True, inline="always")
def _seat_uniform(code, draw_keys, draw_counter, flat):
    """:func:`_next_uniform` for a seat playing ``random`` (0.0 for a seat that draws nothing)."""
    return _next_uniform(draw_keys, draw_counter, flat) if code == POLICY_RANDOM else 0.0


@numba.njit(**_NO_REFCOUNT)
def _play_games(code, limit, match_points, start, deal_keys, draw_keys, draw_counter, ring_colour, ring_faction,
                stack, count, colours, free, owner, hand, hand_n, deck, deck_pos, pawn, markers, to_move, first_done,
                first_winner, points, game_no, winner, done, turns, timeout, houses, first_white, first_winner_won,
                ties, ties_white_house, ab_kids, ab_bonus, ab_swing, bonus, ring_perm, deck_perm, params, spend,
                avail, score, close, lead, leaves4, prospect, land, danger, cards):
    """The compiled lane: every game of the batch to its end (or to ``limit`` turns: a timeout), one after
    another, with the policy ``code[seat]`` in each seat."""
    players = code.shape[0]
    for g in range(done.shape[0]):
        # ``random`` takes one draw per decision, ``AgentRandom.integers(hand size)``; the uniform of the
        # next mover's draw is worked out a turn ahead (this turn changes neither that stream nor its
        # counter), so that it is ready when the decision comes
        a = to_move[g]
        u = _seat_uniform(code[a], draw_keys, draw_counter, g * players + a)
        while not done[g]:
            if turns[g] >= limit:
                timeout[g] = True
                done[g] = True
                break
            b = 1 - a
            u_next = _seat_uniform(code[b], draw_keys, draw_counter, g * players + b)
            if code[a] == POLICY_RANDOM:
                draw_counter[g * players + a] += 1  # the draw of ``u`` is taken
                sl = integer_below(u, hand_n[g, a])
            elif code[a] == POLICY_STRONGEST:
                sl = _strongest_slot(hand[g, a])
            else:
                sl = _closer_slot(hand[g, a], a, stack[g], count[g], free[g], ring_faction[g], pawn[g], markers[g],
                                  first_done[g], hand_n[g, 1 - a], params[a], code[a], spend, avail, score, close, lead,
                                  leaves4, prospect, land, danger, cards, bonus)
            if _play_card(g, a, sl, hand, hand_n, deck, deck_pos, stack, count, colours, free, owner, ring_faction,
                          pawn, markers, first_done, first_winner, turns, to_move, houses, first_white, ties,
                          ties_white_house, ab_kids, ab_bonus, ab_swing, bonus):
                if _end_game(g, match_points, markers, points, first_winner, first_winner_won, winner, done,
                             game_no, to_move):
                    _deal_game(g, deal_keys, game_no, start, ring_colour, ring_faction, colours, free, stack, count,
                               owner, hand, hand_n, deck, deck_pos, pawn, markers, first_done, first_winner,
                               ring_perm, deck_perm)
            a = to_move[g]
            u = u_next if a == b else _seat_uniform(code[a], draw_keys, draw_counter, g * players + a)


@dataclasses.dataclass
class HouseScore:
    """Scores of a batch of houses: ``power``/``bonus`` (m, 5) per stack position, ``totals`` (m, 2) per
    faction, ``winner`` (m,) faction placing the marker, ``tie`` (m,) whether the totals were equal."""
    power: np.ndarray
    bonus: np.ndarray
    totals: np.ndarray
    winner: np.ndarray
    tie: np.ndarray


def score_houses(cards: np.ndarray, house_faction: np.ndarray) -> HouseScore:
    """Powers of the followers ``cards`` (m, 5) (placement order, -1 = absent, only at the top) of houses
    of faction ``house_faction`` (m,), with every kid-ghost bonus, and who would possess each house (the
    same kernel the engine uses; a partial stack is judged as if it were complete)."""
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    m = cards.shape[0]
    bonus = np.zeros((m, STACK), dtype=np.int64)
    totals = np.zeros((m, 2), dtype=np.int64)
    _score_batch(cards, bonus, totals)
    present = cards >= 0
    power = np.where(present, CARD_POWER[np.maximum(cards, 0)] + bonus, 0)
    tie = totals[:, 0] == totals[:, 1]
    winner = np.where(tie, np.asarray(house_faction, dtype=np.int64), (totals[:, 1] > totals[:, 0]).astype(np.int64))
    return HouseScore(power, bonus, totals, winner, tie)


def landing(colours: np.ndarray, pawn: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Ring position where a card of ``colour`` (k, J) lands from ``pawn`` (k,), given the colour masks
    ``colours`` (k, 12) of the houses (origin included); -1 where no house fits (never in a real game)."""
    colour = np.ascontiguousarray(colour, dtype=np.int64)
    out = np.empty(colour.shape, dtype=np.int64)
    _land_batch(np.ascontiguousarray(colours, dtype=np.int64), np.ascontiguousarray(pawn, dtype=np.int64),
                colour, out)
    return out


# ----------------------------------------------------------------------------------------------------
# state and observations

@dataclasses.dataclass
class FanAndMalletState:
    keys: np.ndarray
    deal_keys: np.ndarray  # (n, 3) keys of the ring's and the two decks' shuffles
    ring_colour: np.ndarray
    ring_faction: np.ndarray
    stack: np.ndarray
    count: np.ndarray
    colours: np.ndarray
    free: np.ndarray
    owner: np.ndarray
    hand: np.ndarray
    hand_n: np.ndarray
    deck: np.ndarray
    deck_pos: np.ndarray
    pawn: np.ndarray
    markers: np.ndarray
    to_move: np.ndarray
    first_done: np.ndarray
    first_winner: np.ndarray
    points: np.ndarray
    game_no: np.ndarray
    winner: np.ndarray
    done: np.ndarray
    turns: np.ndarray
    timeout: np.ndarray
    # per-game statistics (summed over the games of a match)
    houses: np.ndarray
    first_white: np.ndarray
    first_winner_won: np.ndarray
    ties: np.ndarray
    ties_white_house: np.ndarray
    ab_kids: np.ndarray
    ab_bonus: np.ndarray
    ab_swing: np.ndarray
    start_positions: tuple = (0, 6)
    match_points: int | None = None

    def copy(self) -> "FanAndMalletState":
        return dataclasses.replace(self, **{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)
                                            if isinstance(getattr(self, f.name), np.ndarray)})


class FanAndMalletObs:
    """What the deciding seat knows, one row per game. Arrays indexed by faction use 0 = White, 1 = Black.

    ``me`` (k,) the deciding faction; ``hand`` (k, 6) own hand (card codes, -1 empty); public: ``stack``
    (k, 12, 5), ``count``, ``colours``, ``owner``, ``ring_colour``, ``ring_faction`` (k, 12); ``pawn``,
    ``markers``, ``deck_left``, ``hand_size``, ``points`` (k, 2); ``first_done``, ``game_no``, ``turns`` (k,).
    The own hand is copied when the observation is made; the public fields are copied from the game on
    first use (most decisions need only a few of them), and derived helpers are computed on first use.
    Nothing hidden from the deciding seat (the opponent's hand, either deck) is reachable.
    """

    PUBLIC: ClassVar[tuple[str, ...]] = (
        "stack", "count", "colours", "owner", "ring_colour", "ring_faction", "pawn", "markers", "deck_left",
        "hand_size", "points", "first_done", "game_no", "turns", "to_move", "done")

    def __init__(self, me: np.ndarray, hand: np.ndarray, public=None, **arrays: np.ndarray):
        self.me = me
        self.hand = hand
        self._public = public
        for k, v in arrays.items():
            setattr(self, k, v)

    def __getattr__(self, name: str):
        # public fields are fetched on first use (most decisions need only a few of them)
        if name in FanAndMalletObs.PUBLIC and self.__dict__.get("_public") is not None:
            value = self._public(name)
            setattr(self, name, value)
            return value
        raise AttributeError(name)

    def __len__(self) -> int:
        return len(self.me)

    @cached_property
    def rows(self) -> np.ndarray:
        return np.arange(len(self.me))

    @cached_property
    def legal(self) -> np.ndarray:
        """(k, 6) hand slots holding a card."""
        return self.hand >= 0

    @cached_property
    def hand_count(self) -> np.ndarray:
        """(k,) cards in hand; the hand always fills slots 0..hand_count-1."""
        return self.hand_size[self.rows, self.me]

    @cached_property
    def hand_colour(self) -> np.ndarray:
        return np.where(self.legal, CARD_COLOUR[np.maximum(self.hand, 0)], 0)

    @cached_property
    def hand_power(self) -> np.ndarray:
        """(k, 6) base power (kid ghosts 1, empty slots 0)."""
        return np.where(self.legal, CARD_POWER[np.maximum(self.hand, 0)], 0)

    @cached_property
    def hand_kid(self) -> np.ndarray:
        return self.legal & CARD_KID[np.maximum(self.hand, 0)]

    @cached_property
    def landing(self) -> np.ndarray:
        """(k, 6) ring position where each hand card would be placed (-1 for empty slots)."""
        pos = landing(self.colours, self.pawn[self.rows, self.me], self.hand_colour)
        return np.where(self.legal, pos, -1)

    @cached_property
    def landing_count(self) -> np.ndarray:
        """(k, 6) followers already in the house each card would land in."""
        return np.where(self.legal, self.count[self.rows[:, None], np.maximum(self.landing, 0)], 0)

    @cached_property
    def closes(self) -> np.ndarray:
        """(k, 6) whether playing the card completes (possesses) its house."""
        return self.legal & (self.landing_count == STACK - 1)

    @cached_property
    def stake(self) -> np.ndarray:
        """(k,) markers the next possession places (2 for the first of the game)."""
        return np.where(self.first_done, 1, 2)

    @cached_property
    def close_margin(self) -> np.ndarray:
        """(k, 6) own total minus the opponent's in the completed house for closing cards (0 elsewhere)."""
        return self._closing[0]

    @cached_property
    def close_wins(self) -> np.ndarray:
        """(k, 6) closing cards with which the deciding seat possesses the house."""
        return self._closing[1]

    @cached_property
    def _closing(self) -> tuple[np.ndarray, np.ndarray]:
        k = len(self.me)
        margin = np.zeros((k, HAND), dtype=np.int64)
        wins = np.zeros((k, HAND), dtype=bool)
        r, j = np.nonzero(self.closes)
        if len(r):
            h = self.landing[r, j]
            cards = self.stack[r, h].astype(np.int64)
            cards[:, STACK - 1] = self.hand[r, j]
            sc = score_houses(cards, self.ring_faction[r, h])
            me = self.me[r]
            margin[r, j] = sc.totals[np.arange(len(r)), me] - sc.totals[np.arange(len(r)), 1 - me]
            wins[r, j] = sc.winner == me
        return margin, wins

    @cached_property
    def unseen_opponent(self) -> np.ndarray:
        """(k, 30) opponent cards (index colour * 5 + kind) not yet on the ring: in their hand or deck."""
        opp = 1 - self.me
        placed = self.stack.reshape(len(self.me), -1)
        seen = np.zeros((len(self.me), 2 * DECK + 1), dtype=bool)
        seen[self.rows[:, None], np.where(placed >= 0, placed, 2 * DECK)] = True
        idx = opp[:, None] * DECK + np.arange(DECK)[None, :]
        return ~np.take_along_axis(seen, idx, axis=1)


class FanAndMalletPlayer:
    """Decision interface: one decision per turn.

    ``play(obs, rng) -> slot``: the hand slot (int, 0..5, must hold a card) of the follower to place; see
    :class:`FanAndMalletObs` for what ``obs`` holds. Hands are compact: the cards fill slots
    0..hand_count-1 (a drawn card takes the played card's slot; without a draw the last card moves there).
    """

    def play(self, obs: FanAndMalletObs, rng) -> np.ndarray:  # pragma: no cover - interface
        """The hand slot to play in each observed game."""


# ----------------------------------------------------------------------------------------------------
# the engine

class FanAndMallet(Game):
    name = "fan-and-mallet"
    title = "Fan & Mallet"
    summary = "Place followers round a ring of 12 houses; possess houses with 5 followers; first to 7 markers wins."
    min_players = 2
    max_players = 2
    Rules = FanAndMalletRules
    Player = FanAndMalletPlayer
    safety_turns = 100_000
    columns: ClassVar[dict[str, str]] = {
        "games_played": "games played (1, or the games of a match)",
        "houses_possessed": "houses possessed when each game ended, summed over the games of a match",
        "first_white": "games in which White won the first possession",
        "first_winner_won": "games won by the winner of their first possession",
        "ties": "possessions with equal totals (decided by the house's faction)",
        "ties_white_house": "tied possessions in White houses",
        **{f"kids_{a}": f"{a} kid ghosts in possessed houses" for a in ABILITIES},
        **{f"bonus_{a}": f"bonus power added by {a} kid ghosts in possessed houses" for a in ABILITIES},
        **{f"swing_{a}": f"possessions whose winner would change without the {a} bonus" for a in ABILITIES},
    }
    ratio_metrics = (
        Metric("mean_houses_possessed", "houses_possessed", "games_played"),
        Metric("first_possession_white", "first_white", "games_played"),
        Metric("first_winner_won", "first_winner_won", "games_played"),
        Metric("mean_games", "games_played"),
        Metric("tie_share", "ties", "houses_possessed"),
        Metric("tie_white_house_share", "ties_white_house", "ties"),
        *(Metric(f"mean_bonus_{a}", f"bonus_{a}", f"kids_{a}") for a in ABILITIES),
        *(Metric(f"swing_share_{a}", f"swing_{a}", f"kids_{a}") for a in ABILITIES),
    )

    # ----- set-up ---------------------------------------------------------------------------------
    def new_state(self, keys: np.ndarray, players: int, rules: FanAndMalletRules) -> FanAndMalletState:
        n = len(keys)
        z = lambda *shape, dt=np.int64, v=0: np.full((n, *shape), v, dtype=dt)  # noqa: E731
        e = lambda *shape, dt=np.int8: np.empty((n, *shape), dtype=dt)  # noqa: E731  (written by the deal)
        keys = np.asarray(keys, dtype=np.uint64)
        dk = stream_keys(keys, STREAM_DEAL, 0)
        s = FanAndMalletState(
            keys=keys, deal_keys=np.stack([stream_keys(dk, 1 + i) for i in range(3)], axis=1),
            ring_colour=e(N_HOUSES), ring_faction=e(N_HOUSES), stack=e(N_HOUSES, STACK), count=e(N_HOUSES),
            colours=e(N_HOUSES), free=e(N_COLOURS, dt=np.int16), owner=e(N_HOUSES), hand=e(2, HAND),
            hand_n=e(2, dt=np.int64), deck=e(2, DECK), deck_pos=e(2), pawn=e(2), markers=e(2), to_move=z(),
            first_done=e(dt=bool), first_winner=e(dt=np.int64),
            points=z(2), game_no=z(), winner=z(v=-1), done=z(dt=bool), turns=z(), timeout=z(dt=bool),
            houses=z(), first_white=z(), first_winner_won=z(), ties=z(), ties_white_house=z(),
            ab_kids=z(6), ab_bonus=z(6), ab_swing=z(6),
            start_positions=tuple(rules.start_positions), match_points=rules.match_points,
        )
        self.deal(s, np.arange(n))
        return s

    def deal(self, s: FanAndMalletState, g: np.ndarray) -> None:
        """Set up a fresh game (ring, decks, hands, pawns) in games ``g``; the deal of game number
        ``game_no`` of a match depends only on the game key and that number."""
        _deal_batch(np.asarray(g, dtype=np.int64), s.deal_keys, s.game_no, np.array(s.start_positions, dtype=np.int64),
                    s.ring_colour, s.ring_faction, s.colours, s.free, s.stack, s.count, s.owner, s.hand, s.hand_n,
                    s.deck, s.deck_pos, s.pawn, s.markers, s.first_done, s.first_winner, *_deal_scratch())

    def scripted(self, ring, stacks=None, hands=None, decks=None, pawns=None, to_move: int = 0,
                 rules: FanAndMalletRules | None = None, key: int = 0) -> FanAndMalletState:
        """A one-game state from a given position (tests and worked examples).

        ``ring``: 12 house cards (``faction * 6 + colour``) by ring position; ``stacks``: ring position ->
        followers (card codes, bottom first, at most 4 so that no house is possessed yet); ``hands``: two
        lists of card codes (White's, Black's); ``decks``: two lists, the next cards to draw in order; every
        card of a faction given nowhere is put at the end of its deck (in code order). ``pawns``: ring
        positions the pawns stand on (the search starts at the next house); default: from the rules.
        """
        rules = rules or FanAndMalletRules()
        s = self.new_state(np.array([key], dtype=np.uint64), 2, rules)
        ring = np.asarray(ring, dtype=np.int64)
        assert sorted(ring.tolist()) == list(range(2 * N_COLOURS)), "the ring holds each house card once"
        s.ring_colour[0] = ring % N_COLOURS
        s.ring_faction[0] = ring // N_COLOURS
        s.stack[0] = -1
        s.count[0] = 0
        used: set[int] = set()
        for h, cards in (stacks or {}).items():
            assert len(cards) < STACK, "scripted houses hold at most 4 followers"
            s.stack[0, h, :len(cards)] = cards
            s.count[0, h] = len(cards)
            used.update(cards)
        s.colours[0] = (1 << s.ring_colour[0]) | np.bitwise_or.reduce(
            np.where(s.stack[0] >= 0, 1 << CARD_COLOUR[np.maximum(s.stack[0], 0)], 0), axis=1)
        lacks = ((s.colours[0][None, :] >> np.arange(N_COLOURS)[:, None]) & 1) == 0
        s.free[0] = (lacks << np.arange(N_HOUSES)).sum(axis=1)
        hands = hands or ([], [])
        decks = decks or ([], [])
        for f in (0, 1):
            hd = list(hands[f])
            assert len(hd) <= HAND
            used.update(hd)
            s.hand[0, f] = -1
            s.hand[0, f, :len(hd)] = hd
            s.hand_n[0, f] = len(hd)
            rest = [c for c in range(f * DECK, (f + 1) * DECK) if c not in used and c not in decks[f]]
            deck = list(decks[f]) + rest
            used.update(decks[f])
            s.deck[0, f] = -1
            s.deck_pos[0, f] = DECK - len(deck)
            s.deck[0, f, DECK - len(deck):] = deck
            if pawns is not None:
                s.pawn[0, f] = pawns[f]
        s.to_move[0] = to_move
        return s

    # ----- observations ---------------------------------------------------------------------------
    def public(self, s: FanAndMalletState, idx: np.ndarray, name: str) -> np.ndarray:
        """One public field (see :class:`FanAndMalletObs`) for games ``idx``."""
        if name == "deck_left":
            return DECK - s.deck_pos[idx]
        if name == "hand_size":
            return s.hand_n[idx]
        return getattr(s, name)[idx]

    def observe_all(self, s: FanAndMalletState, idx: np.ndarray, seat) -> dict[str, np.ndarray]:
        idx = np.asarray(idx)
        me = np.broadcast_to(np.asarray(seat, dtype=np.int64), idx.shape).copy()
        out = {"me": me, "hand": s.hand[idx, me]}
        for name in FanAndMalletObs.PUBLIC:
            out[name] = self.public(s, idx, name)
        return out

    def observe(self, s: FanAndMalletState, idx: np.ndarray, seat) -> FanAndMalletObs:
        """The observation of seat(s) ``seat`` in games ``idx``: own hand now, public fields on use."""
        idx = np.asarray(idx)
        me = np.broadcast_to(np.asarray(seat, dtype=np.int64), idx.shape).copy()
        return FanAndMalletObs(me, s.hand[idx, me], lambda name: self.public(s, idx, name))

    def scramble_hidden(self, s: FanAndMalletState, seat: int, draws) -> FanAndMalletState:
        """A copy in which the viewer's own deck order and the opponent's hand + deck are re-shuffled
        (the opponent's unseen cards permuted among the places holding them)."""
        out = s.copy()
        n = len(s.done)
        rows = np.arange(n)
        u = draws.random(rows, 2 * (HAND + DECK)) if isinstance(draws, Draws) else \
            np.asarray(draws.random((n, 2 * (HAND + DECK))))
        own = out.deck[:, seat]
        _shuffle_rows(own, own >= 0, u[:, :DECK])
        opp = np.concatenate([out.hand[:, 1 - seat], out.deck[:, 1 - seat]], axis=1)
        _shuffle_rows(opp, opp >= 0, u[:, DECK:DECK + HAND + DECK])
        out.deck[:, seat] = own
        out.hand[:, 1 - seat] = opp[:, :HAND]
        out.deck[:, 1 - seat] = opp[:, HAND:]
        return out

    # ----- a turn ---------------------------------------------------------------------------------
    def turn(self, s: FanAndMalletState, idx: np.ndarray, seats) -> None:
        actor = s.to_move[idx]
        k = len(idx)
        slot = seats.ask("play", idx, actor, lambda i, a: self.observe(s, i, a))
        if not np.issubdtype(slot.dtype, np.integer) or slot.ndim != 1:
            illegal(seats, "play", actor, np.ones(k, dtype=bool), f"hand slot of type {slot.dtype}, shape {slot.shape}")
        slot = slot.astype(np.int64, copy=False)
        idx = idx.astype(np.int64, copy=False)
        bad = _first_illegal(idx, actor, slot, s.hand)
        if bad >= 0:
            mask = np.zeros(k, dtype=bool)
            mask[bad] = True
            illegal(seats, "play", actor, mask, f"hand slot {slot[bad]} (hand {s.hand[idx[bad], actor[bad]].tolist()})")
        over = np.zeros(k, dtype=bool)
        _apply_turn(idx, actor, slot, s.hand, s.hand_n, s.deck, s.deck_pos, s.stack, s.count, s.colours, s.free,
                    s.owner, s.ring_faction, s.pawn, s.markers, s.first_done, s.first_winner, s.turns, s.to_move,
                    s.houses, s.first_white, s.ties, s.ties_white_house, s.ab_kids, s.ab_bonus, s.ab_swing, over,
                    np.zeros(STACK, dtype=np.int64))
        if over.any():
            self._game_over(s, idx[over])

    def _game_over(self, s: FanAndMalletState, g: np.ndarray) -> None:
        """Games ``g`` were just won (a player placed the 7th marker): end them, or, in a match, score
        the loser's unused markers and set up the next game, started by the loser."""
        _end_games(np.asarray(g, dtype=np.int64), s.match_points or 0, s.markers, s.points, s.first_winner,
                   s.first_winner_won, s.winner, s.done, s.game_no, s.to_move, s.deal_keys,
                   np.array(s.start_positions, dtype=np.int64), s.ring_colour, s.ring_faction, s.colours, s.free,
                   s.stack, s.count, s.owner, s.hand, s.hand_n, s.deck, s.deck_pos, s.pawn, s.first_done,
                   *_deal_scratch())

    # ----- the compiled lane ----------------------------------------------------------------------
    def compiled_lineup(self, agents, players: int, rules: FanAndMalletRules):
        """(policy code per seat, parameters per seat) when every seat plays a strategy with a compiled form
        (``random``, ``strongest``, ``closer``, ``keeper``, ``counter``), else None."""
        table = policy_table(agents, (POLICY_RANDOM, POLICY_STRONGEST, POLICY_CLOSER, POLICY_KEEPER,
                                      POLICY_COUNTER))
        if table is None:
            return None
        code, params = table
        width = max(params.shape[1], CLOSER_PARAMS)
        return code, np.pad(params, ((0, 0), (0, width - params.shape[1])))

    def play_compiled(self, s: FanAndMalletState, seats, lineup: tuple, limit: int) -> None:
        _play_games(lineup[0], int(limit), s.match_points or 0, np.array(s.start_positions, dtype=np.int64),
                    s.deal_keys, seats.draws.keys, seats.draws.counter, s.ring_colour, s.ring_faction, s.stack,
                    s.count, s.colours, s.free, s.owner, s.hand, s.hand_n, s.deck, s.deck_pos, s.pawn, s.markers,
                    s.to_move, s.first_done, s.first_winner, s.points, s.game_no, s.winner, s.done, s.turns,
                    s.timeout, s.houses, s.first_white, s.first_winner_won, s.ties, s.ties_white_house, s.ab_kids,
                    s.ab_bonus, s.ab_swing, np.zeros(STACK, dtype=np.int64), *_deal_scratch(), lineup[1],
                    *(np.empty(HAND) for _ in range(2 + 3)), np.empty(HAND, dtype=bool), np.empty(HAND),
                    np.empty(HAND, dtype=np.int64), np.empty(HAND), np.empty(STACK, dtype=np.int64))

    # ----- results --------------------------------------------------------------------------------
    def outcome(self, s: FanAndMalletState) -> dict[str, np.ndarray]:
        n = len(s.done)
        win = np.zeros((n, 2))
        ok = s.done & ~s.timeout & (s.winner >= 0)
        win[np.flatnonzero(ok), s.winner[ok]] = 1.0
        score = (s.markers if s.match_points is None else s.points).astype(np.float64)
        out = {"score": score, "win": win, "turns": s.turns.copy(), "timeout": s.timeout.copy(),
               "games_played": s.game_no + ok, "houses_possessed": s.houses.copy(),
               "first_white": s.first_white.copy(), "first_winner_won": s.first_winner_won.copy(),
               "ties": s.ties.copy(), "ties_white_house": s.ties_white_house.copy()}
        for c, a in enumerate(ABILITIES):
            out[f"kids_{a}"] = s.ab_kids[:, c].copy()
            out[f"bonus_{a}"] = s.ab_bonus[:, c].copy()
            out[f"swing_{a}"] = s.ab_swing[:, c].copy()
        return out

    # ----- invariants -----------------------------------------------------------------------------
    def check(self, s: FanAndMalletState) -> None:
        n = len(s.done)
        rows = np.arange(n)
        # every card in exactly one place: a hand, the undrawn deck, or a house
        places = np.concatenate([s.hand.reshape(n, -1), s.deck.reshape(n, -1), s.stack.reshape(n, -1)], axis=1)
        flat = (rows[:, None] * (2 * DECK + 1) + np.where(places >= 0, places, 2 * DECK)).ravel()
        cnt = np.bincount(flat, minlength=n * (2 * DECK + 1)).reshape(n, -1)[:, :2 * DECK]
        assert (cnt == 1).all(), "cards not conserved"
        for f in (0, 1):
            d = s.deck[:, f]
            assert ((d >= 0) == (np.arange(DECK)[None, :] >= s.deck_pos[:, f, None])).all(), "deck"
            assert ((d < 0) | (CARD_FACTION[np.maximum(d, 0)] == f)).all()
            hd = s.hand[:, f]
            assert ((hd < 0) | (CARD_FACTION[np.maximum(hd, 0)] == f)).all()
        # houses
        present = s.stack >= 0
        assert (present.sum(axis=2) == s.count).all(), "count"
        assert (present == (np.arange(STACK)[None, None, :] < s.count[:, :, None])).all(), "stack holes"
        sc = np.where(present, CARD_COLOUR[np.maximum(s.stack, 0).astype(np.int64)], N_COLOURS)
        bits = (1 << s.ring_colour) | np.bitwise_or.reduce(np.where(present, 1 << np.minimum(sc, 5), 0), axis=2)
        assert (bits == s.colours).all(), "colour masks"
        lacks = ((s.colours[:, None, :] >> np.arange(N_COLOURS)[None, :, None]) & 1) == 0
        assert ((lacks << np.arange(N_HOUSES)).sum(axis=2) == s.free).all(), "free masks"
        for c in range(N_COLOURS):
            k = (sc == c).sum(axis=2) + (s.ring_colour == c)
            assert (k <= 1).all(), "colour twice in a house"
        assert ((s.owner >= 0) == (s.count == STACK)).all(), "owner"
        # markers
        for f in (0, 1):
            m = (s.owner == f).sum(axis=1) + (s.first_winner == f)
            assert (m == s.markers[:, f]).all(), "markers"
        assert (s.markers <= TARGET).all()
        assert (s.first_done == (s.first_winner >= 0)).all()
        live = ~s.done
        assert (s.markers[live] < TARGET).all(), "a live game has a winner"
        assert (s.count.sum(axis=1) <= 2 * DECK).all()
        # hands: 6 cards while the deck lasts (the winner of a game does not draw)
        placed = np.stack([((CARD_FACTION[np.maximum(s.stack, 0).astype(np.int64)] == f) & present).sum(axis=(1, 2))
                           for f in (0, 1)], axis=1)
        hs = (s.hand >= 0).sum(axis=2)
        assert (hs == s.hand_n).all(), "hand counts"
        compact = ((s.hand >= 0) == (np.arange(HAND)[None, None, :] < hs[:, :, None])).all(axis=(1, 2))
        assert compact[~s.done].all(), "hand not compact"
        assert (hs + (DECK - s.deck_pos) + placed == DECK).all()
        want = np.minimum(HAND, DECK - placed)
        assert (hs[live] == want[live]).all(), "hand size"
        fin = s.done & ~s.timeout
        assert (s.winner[fin] >= 0).all()
        if s.match_points is None:
            assert (s.markers[fin, s.winner[fin]] == TARGET).all()
        else:
            assert (s.points[fin, s.winner[fin]] >= s.match_points).all()
            assert (s.points[live] < s.match_points).all()
        assert (s.pawn >= 0).all() and (s.pawn < N_HOUSES).all()


def _shuffle_rows(arr: np.ndarray, mask: np.ndarray, u: np.ndarray) -> None:
    """Permute, in place and per row, the entries of ``arr`` where ``mask`` holds, among those places."""
    n, w = arr.shape
    big = np.where(mask, np.arange(w)[None, :], w + np.arange(w)[None, :])
    places = np.argsort(big, axis=1, kind="stable")
    source = np.argsort(np.where(mask, u[:, :w], 2.0 + u[:, :w]), axis=1, kind="stable")
    k = mask.sum(axis=1)
    keep = np.arange(w)[None, :] < k[:, None]
    rows = np.broadcast_to(np.arange(n)[:, None], (n, w))
    vals = arr[rows, source]
    arr[rows[keep], places[keep]] = vals[keep]
