"""Fan & Mallet (団扇と小槌, Katsumasa Tomioka 2016): two gods place followers round a ring of houses.

Rules in brief (``docs/games/fan-and-mallet.md`` gives them in full, with every ruling):

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
  ``colours`` (n, 12) bit mask of the colours present (origin included), ``free`` (n, 6) per colour the
  bit mask of the houses that take it, ``owner`` (n, 12) the faction that possessed the house or -1.
* ``hand`` (n, 2, 6) per faction (= seat) hand slots, always packed into slots 0..hand_n-1, ``hand_n``
  (n, 2) their number, ``deck`` (n, 2, 30) the shuffled deck with drawn entries set to -1, ``deck_pos``
  (n, 2) cards drawn so far.
* ``pawn`` (n, 2) ring position of each pawn (at set-up: one before the start position), ``markers``
  (n, 2) markers placed, ``to_move`` (n,) the seat to play, ``kind`` (n,) the decision it faces
  (:class:`Decision`; -1 before the deal), ``first_done`` (n,) whether this game saw a possession,
  ``first_winner`` (n,) the faction that won it (-1 before).
* Match mode: ``points`` (n, 2), ``game_no`` (n,) game of the match (0-based), ``winner`` (n,) the
  winner of the game (match) once done.
* ``deal_keys`` (n, 3) the keys of the ring's and the two decks' shuffles (at draw number ``game_no``).

Hands and decks are private; everything else is public.

The decision protocol (see ``simcore/game.py``): one decision kind, :attr:`Decision.CARD` (answered by
a strategy's ``play``), whose option is a hand slot 0..5 holding a card. ``begin`` deals a game,
``step`` plays the chosen card and runs the rules to the next decision (the placement search,
possession with the six kid-ghost abilities, the win check, the end of a game of a match and the next
deal, the draw), ``observe`` gives the deciding seat's view (:data:`FanAndMalletView` in compiled
code, :class:`FanAndMalletObs` for numpy strategies), ``legal`` the legal options. Both lanes, the
compiled one and the batch one, play every game through these functions. The strategies (reference
policies and heuristics) live in ``strategies/fan_and_mallet.py``; they use the placement search
(:func:`landing_house`) and the possession scoring (:func:`stack_totals`) of this module.
"""
# The compiled code of this file never indexes an array with a negative number, so numba leaves out
# Python's wrap-around of negative indices here (simcore/compiled.py; checked by make boundscheck):
# sensei: no negative indices
from __future__ import annotations

import dataclasses
from collections import namedtuple
from enum import IntEnum
from functools import cached_property
from typing import Any, ClassVar

import numba
import numpy as np

from ..bits import popcount, trailing_zeros
from ..compiled import NO_REFCOUNT, REFCOUNT
from ..errors import SenseiError
from ..game import NON_NEGATIVE, SHARE, Game, Metric, answer_integers
from ..options import Rules, option
from ..rng import STREAM_DEAL, Draws, Stream, draw_base, permutation_into, stream_keys

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
                                            "(the loser's unused markers); none: a single game", min=1,
                                      max=1_000_000)

    def unit(self) -> str:
        return "game" if self.match_points is None else "match"

    def __post_init__(self) -> None:
        object.__setattr__(self, "start_positions", _parse_positions(self.start_positions))
        mp = self.match_points
        if mp is not None and (isinstance(mp, bool) or not isinstance(mp, (int, np.integer)) or mp < 1):
            raise SenseiError(f"match_points: expected a positive integer or none, got {mp!r}")


# ----------------------------------------------------------------------------------------------------
# kernels: possession scoring and the placement search (numba, over arrays)
#
# Kernels that allocate nothing are compiled without numba's reference counting (simcore/compiled.py): the
# per-game rule steps below touch some thirty arrays, and counting references to them on every step
# (atomic operations) would cost several times the rules themselves. Such kernels get their scratch space
# from the caller. Strategies call ``stack_totals`` and ``landing_house`` too: each rule is written once.

_ALL = (1 << N_HOUSES) - 1


def _mirror_table() -> np.ndarray:
    """Mirror's bonus by (stop mask, position): the spirit objects in the unbroken runs directly beneath
    and above position i, where bit j of the 5-bit stop mask is set for a kid ghost at j or j past the
    top of the stack."""
    out = np.zeros(32 * STACK, dtype=np.int64)
    for stop in range(32):
        for i in range(STACK):
            run = 0
            j = i - 1
            while j >= 0 and not (stop >> j) & 1:
                run += 1
                j -= 1
            j = i + 1
            while j < STACK and not (stop >> j) & 1:
                run += 1
                j += 1
            out[stop * STACK + i] = run
    return out


#: Mirror's bonus, see :func:`_mirror_table`
_MIRROR = _mirror_table()
#: Bucket's bonus by the values 1..4 shown by spirit objects (bit v - 1): the largest value not shown, or 0
_BUCKET = np.array([max([v for v in range(1, 5) if not (m >> (v - 1)) & 1] or [0]) for m in range(16)],
                   dtype=np.int64)


@numba.njit(cache=True, inline="always")
def stack_totals(st, n, bonus):
    """Bonuses (written to ``bonus``) and faction totals (White, Black) of the first ``n`` followers of
    stack ``st`` (card codes, placement order): the possession scoring, also of a partial stack judged as
    if it were complete. A house holds at most one follower of each colour, so at most one kid ghost of
    each ability; every ability's bonus is worked out without branches (tables for Bucket and Mirror)
    and the Mortar's last."""
    shown = 0   # bit v: a spirit object shows v
    kids = 0    # bit i: follower i is a kid ghost
    whites = 0  # bit i: follower i is White's
    tw = 0      # base powers by faction; the bonuses are added below
    tb = 0
    for i in range(n):
        c = st[i]
        bonus[i] = 0
        white = 1 if c < DECK else 0
        kind = CARD_KIND[c]
        kid = 1 if kind == KID else 0
        kids |= kid << i
        whites |= white << i
        shown |= (1 - kid) << (kind + 1)
        p = kind + 1 - kid * kind  # a kid ghost's base power is 1
        tw += p * white
        tb += p * (1 - white)
    if kids == 0:
        return tw, tb
    full = (1 << n) - 1
    n_white = popcount(whites)
    pairs = full >> 1
    alt = ((whites ^ (whites >> 1)) & pairs) == pairs  # the factions alternate
    bucket = _BUCKET[(shown >> 1) & 15]
    stop = kids | (31 & ~full)
    mortar = -1
    left = kids
    while left:
        i = trailing_zeros(left)
        left &= left - 1
        c = st[i]
        col = CARD_COLOUR[c]
        white = 1 if c < DECK else 0
        below = st[i - 1] if i > 0 else c
        umbrella = (CARD_KIND[below] + 1) * (1 if i > 0 and not (kids >> (i - 1)) & 1 else 0)
        own = n_white if white else n - n_white
        b = (umbrella * (col == UMBRELLA) + bucket * (col == BUCKET) + _MIRROR[stop * STACK + i] * (col == MIRROR)
             + 4 * ((col == CAULDRON) & (own <= 2)) + 4 * ((col == HATCHET) & alt))
        if col == MORTAR:
            mortar = i  # evaluated after every other kid ghost
        bonus[i] = b
        tw += b * white
        tb += b * (1 - white)
    if mortar >= 0:
        odd = 0
        for i in range(n):
            p = (1 if (kids >> i) & 1 else CARD_KIND[st[i]] + 1) + bonus[i]
            odd += (p & 1) * (i != mortar)
        bonus[mortar] = odd
        if st[mortar] < DECK:
            tw += odd
        else:
            tb += odd
    return tw, tb


@numba.njit(**NO_REFCOUNT)
def _score_batch(cards, bonus, totals):
    for r in range(cards.shape[0]):
        n = 0
        while n < cards.shape[1] and cards[r, n] >= 0:
            n += 1
        tw, tb = stack_totals(cards[r], n, bonus[r])
        totals[r, 0] = tw
        totals[r, 1] = tb


@numba.njit(cache=True, inline="always")
def landing_house(free, pawn):
    """The placement search: ring position of the first house clockwise of ``pawn`` (the pawn's own
    house last) that takes the colour whose house mask is ``free`` (bit h set: house h has no follower
    of the colour and an origin of another colour: the state's ``free``); -1 if none. The ring is
    rotated to start after the pawn and the lowest bit taken."""
    s = pawn + 1
    if s == N_HOUSES:
        s = 0
    rot = ((free >> s) | (free << (N_HOUSES - s))) & _ALL
    if rot == 0:
        return -1
    h = s + trailing_zeros(rot)
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


@numba.njit(**NO_REFCOUNT)
def _land_batch(colours, pawn, colour, out):
    for r in range(colour.shape[0]):
        for j in range(colour.shape[1]):
            out[r, j] = landing_house(_free_mask(colours[r], colour[r, j]), pawn[r])


# ----------------------------------------------------------------------------------------------------
# rule steps: scalar per-game kernels (inlined into ``begin`` and ``step``, see the decision protocol)

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


@numba.njit(**NO_REFCOUNT)
def _deal_batch(idx, deal_keys, game_no, start, ring_colour, ring_faction, colours, free, stack, count, owner, hand,
                hand_n, deck, deck_pos, pawn, markers, first_done, first_winner, ring_perm, deck_perm):
    for t in range(idx.shape[0]):
        _deal_game(idx[t], deal_keys, game_no, start, ring_colour, ring_faction, colours, free, stack, count, owner,
                   hand, hand_n, deck, deck_pos, pawn, markers, first_done, first_winner, ring_perm, deck_perm)


@numba.njit(cache=True, inline="always")
def _possess(g, h, stack, owner, ring_faction, markers, first_done, first_winner, houses, first_white, ties,
             ties_white_house, ab_kids, ab_bonus, ab_swing, bonus):
    """House h of game g has just received its fifth follower: score it, place the markers (2 for the
    first possession of the game; a tie goes to the house's faction), keep the statistics. Returns the
    faction that possessed it (``bonus`` (5,) is scratch space)."""
    tw, tb = stack_totals(stack[g, h], STACK, bonus)
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
    kids = 0  # bit i: follower i is a kid ghost (a mask without branches; about one kid ghost a house)
    for i in range(STACK):
        kids |= (1 if CARD_KIND[stack[g, h, i]] == KID else 0) << i
    while kids:
        i = trailing_zeros(kids)
        kids &= kids - 1
        cc = stack[g, h, i]
        ab = CARD_COLOUR[cc]
        b = bonus[i]
        ab_kids[g, ab] += 1
        ab_bonus[g, ab] += b
        white = 1 if cc < DECK else 0
        w2 = tw - b * white
        b2 = tb - b * (1 - white)
        alt = hf if w2 == b2 else (0 if w2 > b2 else 1)
        ab_swing[g, ab] += 1 if alt != win else 0
    return win


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


# ----------------------------------------------------------------------------------------------------
# The decision protocol (see simcore/game.py). The compiled functions below take the state tuple ``S``
# (:meth:`FanAndMallet.state_tuple`) and the rules tuple ``R`` (:meth:`FanAndMallet.rules_tuple`) and one
# game ``g``: ``begin`` deals the game, ``step`` plays the card chosen at the current decision and runs
# the rules to the next decision (placement, possession, the win check, the end of a game of a match
# and the next deal, the draw, the change of player), ``observe`` is what the deciding seat may know,
# ``legal`` lists the options. Both lanes (the generic drivers of simcore) play the game through them.
#
# ``begin`` and ``step``, with the rule steps they call, are inlined into the drivers' loops (numba's
# ``inline="always"``): a call would pass the whole state tuple (32 arrays, some 300 machine words) by
# value at every turn, which costs more than the rules of a turn. Each driver (the compiled lane's loop,
# the batch lane's step and begin loops) gets one copy; the deal, the possession and the end of a game
# are each written once.
# ----------------------------------------------------------------------------------------------------


class Decision(IntEnum):
    """The decision kinds. There is one: the player whose turn it is (``to_move``) chooses a card."""
    CARD = 0  #: the hand slot (0..5) of the card to play


#: decision kind -> the name of the numpy method / compiled decision answering it
DECISIONS = ("play",)

# positions of the state tuple
_DONE, _TURNS, _TIMEOUT, _TO_MOVE, _KIND = 0, 1, 2, 3, 4
(_DEAL_KEYS, _RING_COLOUR, _RING_FACTION, _STACK, _COUNT, _COLOURS, _FREE, _OWNER, _HAND, _HAND_N, _DECK, _DECK_POS,
 _PAWN, _MARKERS, _FIRST_DONE, _FIRST_WINNER, _POINTS, _GAME_NO, _WINNER, _HOUSES, _FIRST_WHITE, _FIRST_WINNER_WON,
 _TIES, _TIES_WHITE_HOUSE, _AB_KIDS, _AB_BONUS, _AB_SWING) = range(5, 32)
# positions of the rules tuple: the match target (0: a single game), the start positions (2,), and
# scratch space of the rule steps: the ring's and a deck's permutation, a house's bonuses
_R_MATCH, _R_START, _R_RING_PERM, _R_DECK_PERM, _R_BONUS = range(5)

#: what a compiled strategy sees at a decision: its game ``g`` and seat (faction) ``me``, the decision
#: ``kind``; ``hand`` (6,) its own hand (card codes, -1 empty; the cards fill slots 0..hand_n-1); and the
#: public arrays of the whole batch, indexed ``[g, ...]``: ``hand_n`` (n, 2) hand sizes, ``stack``
#: (n, 12, 5), ``count``, ``colours``, ``owner``, ``ring_colour``, ``ring_faction`` (n, 12), ``free``
#: (n, 6) the houses that take each colour (bit mask, for :func:`landing_house`), ``pawn``, ``markers``,
#: ``deck_pos`` (n, 2) (cards drawn: 30 - deck_pos are left), ``points`` (n, 2), ``first_done``,
#: ``game_no``, ``turns`` (n,); and the rule option ``match_points`` (0: a single game). Nothing hidden
#: from the seat (the opponent's hand, either deck's order) is in it.
FanAndMalletView = namedtuple("FanAndMalletView", [
    "g", "me", "kind", "hand", "hand_n", "stack", "count", "colours", "free", "owner", "ring_colour", "ring_faction",
    "pawn", "markers", "deck_pos", "points", "first_done", "game_no", "turns", "match_points"])


@numba.njit(cache=True, inline="always")
def begin(S, R, g):
    """Deal game g (nothing if it has begun or is over); the first decision is White's card."""
    if S[_KIND][g] < 0 and not S[_DONE][g]:
        _deal_game(g, S[_DEAL_KEYS], S[_GAME_NO], R[_R_START], S[_RING_COLOUR], S[_RING_FACTION], S[_COLOURS],
                   S[_FREE], S[_STACK], S[_COUNT], S[_OWNER], S[_HAND], S[_HAND_N], S[_DECK], S[_DECK_POS], S[_PAWN],
                   S[_MARKERS], S[_FIRST_DONE], S[_FIRST_WINNER], R[_R_RING_PERM], R[_R_DECK_PERM])
        S[_KIND][g] = Decision.CARD


@numba.njit(**NO_REFCOUNT)
def _k_begin(S, R, idx):
    for i in range(idx.shape[0]):
        begin(S, R, idx[i])


@numba.njit(cache=True, inline="always")
def _target(S, g, a, opt):
    """The house where the card in hand slot ``opt`` of player ``a`` lands in game g, or -1 when ``opt``
    is not a legal option (no card there; no house for it, which a real game never meets)."""
    if opt < 0 or opt >= HAND:
        return -1
    c = S[_HAND][g, a, opt]
    if c < 0:
        return -1
    return landing_house(S[_FREE][g, CARD_COLOUR[c]], S[_PAWN][g, a])


@numba.njit(forceinline=True, **NO_REFCOUNT)
def step_inline(S, R, g, opt):
    """Player ``to_move`` plays the card in hand slot ``opt`` in game g: placement, possession, the win
    check (the winner of the 7th marker wins at once and draws nothing; in a match the next game is
    dealt, started by the loser), else the draw (the drawn card takes the played card's slot; with an
    empty deck the last card moves there, so the hand stays packed) and the change of player. Returns
    False, changing nothing, when ``opt`` is not a legal option."""
    if S[_KIND][g] != Decision.CARD or S[_DONE][g]:
        return False
    a = S[_TO_MOVE][g]
    h = _target(S, g, a, opt)
    if h < 0:
        return False
    hand, hand_n, deck, deck_pos, stack, count = S[_HAND], S[_HAND_N], S[_DECK], S[_DECK_POS], S[_STACK], S[_COUNT]
    c = hand[g, a, opt]
    hand[g, a, opt] = -1
    col = CARD_COLOUR[c]
    pos = count[g, h]
    stack[g, h, pos] = c
    count[g, h] = pos + 1
    S[_COLOURS][g, h] |= 1 << col
    S[_FREE][g, col] &= ~(1 << h)
    S[_PAWN][g, a] = h
    S[_TURNS][g] += 1
    if pos == STACK - 1:
        markers = S[_MARKERS]
        win = _possess(g, h, stack, S[_OWNER], S[_RING_FACTION], markers, S[_FIRST_DONE], S[_FIRST_WINNER],
                       S[_HOUSES], S[_FIRST_WHITE], S[_TIES], S[_TIES_WHITE_HOUSE], S[_AB_KIDS], S[_AB_BONUS],
                       S[_AB_SWING], R[_R_BONUS])
        if markers[g, win] >= TARGET:
            hand_n[g, a] -= 1
            if _end_game(g, R[_R_MATCH], markers, S[_POINTS], S[_FIRST_WINNER], S[_FIRST_WINNER_WON], S[_WINNER],
                         S[_DONE], S[_GAME_NO], S[_TO_MOVE]):
                _deal_game(g, S[_DEAL_KEYS], S[_GAME_NO], R[_R_START], S[_RING_COLOUR], S[_RING_FACTION],
                           S[_COLOURS], S[_FREE], stack, count, S[_OWNER], hand, hand_n, deck, deck_pos, S[_PAWN],
                           markers, S[_FIRST_DONE], S[_FIRST_WINNER], R[_R_RING_PERM], R[_R_DECK_PERM])
            return True
    p = deck_pos[g, a]
    if p < DECK:  # the drawn card takes the played card's slot
        hand[g, a, opt] = deck[g, a, p]
        deck[g, a, p] = -1
        deck_pos[g, a] = p + 1
    else:  # keep the hand in slots 0..size-1
        hand_n[g, a] -= 1
        last = HAND - 1
        while last > opt and hand[g, a, last] < 0:
            last -= 1
        if last > opt:
            hand[g, a, opt] = hand[g, a, last]
            hand[g, a, last] = -1
    S[_TO_MOVE][g] = 1 - a
    return True


@numba.njit(**NO_REFCOUNT)
def step(S, R, g, opt):
    """:func:`step_inline` as an ordinary compiled function (searches, traces)."""
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
    """What ``seat`` may know in game g at its current decision (a :data:`FanAndMalletView`)."""
    return FanAndMalletView(g, seat, S[_KIND][g], S[_HAND][g, seat], S[_HAND_N], S[_STACK], S[_COUNT], S[_COLOURS],
                            S[_FREE], S[_OWNER], S[_RING_COLOUR], S[_RING_FACTION], S[_PAWN], S[_MARKERS],
                            S[_DECK_POS], S[_POINTS], S[_FIRST_DONE], S[_GAME_NO], S[_TURNS], R[_R_MATCH])


@numba.njit(**NO_REFCOUNT)
def legal(S, R, g, out):
    """The legal options at game g's current decision into ``out`` (length >= 6): the hand slots that
    hold a card (every card has a house in a real game); returns how many."""
    if S[_DONE][g] or S[_KIND][g] != Decision.CARD:
        return 0
    a = S[_TO_MOVE][g]
    n = 0
    for j in range(HAND):
        if _target(S, g, a, j) >= 0:
            out[n] = j
            n += 1
    return n


@numba.njit(**NO_REFCOUNT)
def _k_legal(S, R, idx, out, n):
    for i in range(idx.shape[0]):
        n[i] = legal(S, R, idx[i], out[i])


# ----------------------------------------------------------------------------------------------------
# determinization (the search player, ``simcore/search.py``): a whole game built from one seat's view
#
# What a seat has seen: the ring and every follower on it, its own hand, the sizes of both hands and decks,
# the markers and the points. What it has not: the order of its own deck, and the opponent's hand and deck
# (together: the opponent's followers not on the ring). The sampler deals those unseen cards at random
# into the places holding them; it reads only the view, so the truth cannot leak into a search.

#: the most options ``legal`` lists (hand slots)
MAX_OPTIONS = HAND


@numba.njit(cache=True, **REFCOUNT)
def scratch(ob):
    """A fresh one-game state tuple and rules tuple shaped like the engine's, for the game of view ``ob``
    (the search's private copy; :func:`sample` fills it)."""
    S = (np.zeros(1, dtype=np.bool_), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.bool_),
         np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros((1, 3), dtype=np.uint64),
         np.zeros((1, N_HOUSES), dtype=np.int8), np.zeros((1, N_HOUSES), dtype=np.int8), np.zeros((1, N_HOUSES, STACK), dtype=np.int8),
         np.zeros((1, N_HOUSES), dtype=np.int8), np.zeros((1, N_HOUSES), dtype=np.int8), np.zeros((1, N_COLOURS), dtype=np.int16),
         np.zeros((1, N_HOUSES), dtype=np.int8), np.zeros((1, 2, HAND), dtype=np.int8), np.zeros((1, 2), dtype=np.int64),
         np.zeros((1, 2, DECK), dtype=np.int8), np.zeros((1, 2), dtype=np.int8), np.zeros((1, 2), dtype=np.int8),
         np.zeros((1, 2), dtype=np.int8), np.zeros(1, dtype=np.bool_), np.zeros(1, dtype=np.int64),
         np.zeros((1, 2), dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
         np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
         np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros((1, 6), dtype=np.int64),
         np.zeros((1, 6), dtype=np.int64), np.zeros((1, 6), dtype=np.int64))
    # (the start houses serve only the deal of a match's next game, which the search never plays: its horizon,
    # :func:`stop`, is the end of the game being played; the view does not carry the option)
    R = (np.int64(ob.match_points), np.array([0, 6], dtype=np.int64), np.empty(N_HOUSES, dtype=np.int64),
         np.empty(DECK, dtype=np.int64), np.empty(STACK, dtype=np.int64))
    return S, R


@numba.njit(cache=True, inline="always")
def n_seats(ob):
    return np.int64(2)


@numba.njit(cache=True, inline="always")
def sample(ob, rs, S, R):
    """Write into game 0 of the one-game state ``S`` a determinization of view ``ob``: the public part
    copied, the deciding seat's hand as it is, its unseen followers (those neither on the ring nor in its
    hand) shuffled into its deck, the opponent's followers not on the ring shuffled into the opponent's
    hand (its size as seen) and deck; fresh keys for the deals of later games of a match. ``rs`` is the
    search's random stream (:data:`simcore.rng.Stream`; its ``iw`` rows 0 to 2 are used)."""
    g, me = ob.g, ob.me
    opp = 1 - me
    for h in range(N_HOUSES):
        S[_RING_COLOUR][0, h] = ob.ring_colour[g, h]
        S[_RING_FACTION][0, h] = ob.ring_faction[g, h]
        S[_COUNT][0, h] = ob.count[g, h]
        S[_COLOURS][0, h] = ob.colours[g, h]
        S[_OWNER][0, h] = ob.owner[g, h]
        for i in range(STACK):
            S[_STACK][0, h, i] = ob.stack[g, h, i]
    for c in range(N_COLOURS):
        S[_FREE][0, c] = ob.free[g, c]
    for f in range(2):
        S[_PAWN][0, f] = ob.pawn[g, f]
        S[_MARKERS][0, f] = ob.markers[g, f]
        S[_DECK_POS][0, f] = ob.deck_pos[g, f]
        S[_POINTS][0, f] = ob.points[g, f]
        S[_HAND_N][0, f] = ob.hand_n[g, f]
        for k in range(DECK):
            S[_DECK][0, f, k] = -1
        for j in range(HAND):
            S[_HAND][0, f, j] = -1
    fd = ob.first_done[g]
    S[_FIRST_DONE][0] = fd
    S[_FIRST_WINNER][0] = 0 if fd else -1  # who won it is not in the view; it only feeds a statistic
    S[_GAME_NO][0] = ob.game_no[g]
    S[_TURNS][0] = ob.turns[g]
    S[_DONE][0] = False
    S[_TIMEOUT][0] = False
    S[_TO_MOVE][0] = me
    S[_KIND][0] = ob.kind
    S[_WINNER][0] = -1
    for k in range(3):
        S[_DEAL_KEYS][0, k] = draw_base(rs.keys, rs.counter, rs.f)
    # which followers are out of sight: not on the ring, not in the own hand
    seen = rs.iw[0]
    for x in range(2 * DECK):
        seen[x] = 0
    for h in range(N_HOUSES):
        for i in range(ob.count[g, h]):
            seen[ob.stack[g, h, i]] = 1
    for j in range(HAND):
        c = ob.hand[j]
        S[_HAND][0, me, j] = c
        if c >= 0:
            seen[c] = 1
    for f in range(2):
        pool = rs.iw[1]
        n = 0
        for k in range(DECK):
            x = f * DECK + k
            if seen[x] == 0:
                pool[n] = x
                n += 1
        perm = rs.iw[2][:n]
        permutation_into(draw_base(rs.keys, rs.counter, rs.f), 0, perm)
        held = ob.hand_n[g, f] if f == opp else 0
        pos = ob.deck_pos[g, f]
        for t in range(n):
            x = pool[perm[t]]
            if t < held:
                S[_HAND][0, f, t] = x
            else:
                S[_DECK][0, f, pos + t - held] = x


@numba.njit(cache=True, inline="always")
def label(S, R, g, opt, viewer):
    """What every seat sees of option ``opt``: the follower put down."""
    return np.int64(S[_HAND][g, S[_TO_MOVE][g], opt])


@numba.njit(cache=True, inline="always")
def stop(S, R, g, ob):
    """The search's horizon: the end of the game (in a match: of the game being played)."""
    return S[_DONE][g] or S[_GAME_NO][g] != ob.game_no[ob.g]


@numba.njit(cache=True, inline="always")
def value(S, R, g, ob, out):
    """Each seat's reward at the horizon: 1 for the winner of the game, 0 for the loser (in a match, of
    the game being played: the seat that gained points); cut earlier, 0.5 plus the marker lead / 14."""
    if S[_DONE][g] and S[_WINNER][g] >= 0:
        w = S[_WINNER][g]
        out[w] = 1.0
        out[1 - w] = 0.0
    elif S[_GAME_NO][g] != ob.game_no[ob.g]:
        w = 0 if S[_POINTS][g, 0] > ob.points[ob.g, 0] else 1
        out[w] = 1.0
        out[1 - w] = 0.0
    else:
        d = float(S[_MARKERS][g, 0] - S[_MARKERS][g, 1]) / (2.0 * TARGET)
        out[0] = 0.5 + d
        out[1] = 0.5 - d


@numba.njit(cache=True)
def _sample_many(ob, keys, n, hands, decks):
    S, R = scratch(ob)
    counter = np.zeros(1, dtype=np.int64)
    fw = np.zeros((16, 64), dtype=np.float64)
    iw = np.zeros((16, 64), dtype=np.int64)
    rs = Stream(keys, counter, 0, fw, iw)
    for t in range(n):
        sample(ob, rs, S, R)
        hands[t] = S[_HAND][0]
        decks[t] = S[_DECK][0]


@numba.njit(cache=True)
def _k_sample_many(S, R, g, seat, keys, n, hands, decks):
    _sample_many(observe(S, R, g, seat), keys, n, hands, decks)


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
    kind: np.ndarray
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
    rules: Any = None

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
    Nothing hidden from the deciding seat (the opponent's hand, either deck) is among its fields, and the
    public fields are fetched by name from a list that holds none of them.
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
    """Decision interface: one decision per turn, :attr:`Decision.CARD`, answered by ``play``.

    ``play(obs, rng) -> slot``: the hand slot (an integer 0..5 that holds a card) of the follower to place.
    As a numpy method, ``obs`` is a :class:`FanAndMalletObs` of a batch of games and the answer one slot
    per game; as a compiled decision (``strategies.base.decision``), ``obs`` is one game's
    :data:`FanAndMalletView` and the answer one slot. Hands are packed: the cards fill slots
    0..hand_n-1 (a drawn card takes the played card's slot; without a draw the last card moves there).
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

    def game_length(self, rules: Any) -> int:
        """``match_points``: the points a match plays to."""
        return int(rules.match_points or 0)

    def turn_limit(self, rules: Any) -> int:
        """The safety cap, and for a match never below what its rules can take: a game plays at most 60
        cards (two decks of 30), one a turn, and gives its winner at least one point (the loser places at
        most 6 of 7 markers), so a match to N points plays at most 2N - 1 games (both players at N - 1
        after 2N - 2 of them), 60 (2N - 1) turns: above the cap's 100 turns a point for N from 834 on."""
        limit = super().turn_limit(rules)
        mp = rules.match_points
        return limit if not mp else max(limit, 60 * (2 * int(mp) - 1))

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
        Metric("mean_houses_possessed", "houses_possessed", "games_played", bounds=(0.0, float(N_HOUSES))),
        Metric("first_possession_white", "first_white", "games_played", bounds=SHARE),
        Metric("first_winner_won", "first_winner_won", "games_played", bounds=SHARE),
        Metric("mean_games", "games_played"),
        Metric("tie_share", "ties", "houses_possessed", bounds=SHARE),
        Metric("tie_white_house_share", "ties_white_house", "ties", bounds=SHARE),
        *(Metric(f"mean_bonus_{a}", f"bonus_{a}", f"kids_{a}") for a in ABILITIES),
        *(Metric(f"swing_share_{a}", f"swing_{a}", f"kids_{a}", bounds=SHARE) for a in ABILITIES),
    )
    #: every column counts games, houses, possessions, kid ghosts or bonus power (never negative); a
    #: single game's score is its markers, at most the 7 that win (:meth:`column_range`)
    column_ranges: ClassVar[dict[str, tuple]] = {name: NON_NEGATIVE for name in ("score", *columns)}

    def column_range(self, col: str, players: int, rules: Any) -> tuple:
        if col == "score" and getattr(rules, "match_points", None) is None:
            return 0.0, float(TARGET)
        return super().column_range(col, players, rules)
    metric_words: ClassVar[dict[str, str]] = {
        "mean_houses_possessed": "{} houses are possessed per game",
        "first_possession_white": "White wins the first possession in {} of games",
        "first_winner_won": "the winner of the first possession wins the game in {} of games",
        "mean_games": "{} games are played per match",
        "tie_share": "{} of possessions are tied",
        "tie_white_house_share": "{} of the ties are in White's houses (a tie goes to the house's faction)",
        "mean_bonus_*": "the mean bonus power of a kid ghost in a possessed house",
        "swing_share_*": "the share of kid ghosts in possessed houses whose bonus decides the possession (its "
                         "winner would change without that bonus)",
    }

    decisions: ClassVar[tuple[str, ...]] = DECISIONS
    kernels: ClassVar[str] = "simcore.games.fan_and_mallet"
    step_inline: ClassVar[bool] = True

    # ----- set-up ---------------------------------------------------------------------------------
    def new_state(self, keys: np.ndarray, players: int, rules: FanAndMalletRules, deal: bool = True) -> FanAndMalletState:
        """A fresh batch, one game per key; ``deal`` runs ``begin`` (the deal) at once."""
        n = len(keys)
        z = lambda *shape, dt=np.int64, v=0: np.full((n, *shape), v, dtype=dt)  # noqa: E731
        b = lambda *shape, dt=np.int8: np.zeros((n, *shape), dtype=dt)  # noqa: E731  (written by the deal)
        keys = np.asarray(keys, dtype=np.uint64)
        dk = stream_keys(keys, STREAM_DEAL, 0)
        s = FanAndMalletState(
            keys=keys, deal_keys=np.stack([stream_keys(dk, 1 + i) for i in range(3)], axis=1),
            ring_colour=b(N_HOUSES), ring_faction=b(N_HOUSES), stack=b(N_HOUSES, STACK), count=b(N_HOUSES),
            colours=b(N_HOUSES), free=b(N_COLOURS, dt=np.int16), owner=b(N_HOUSES), hand=b(2, HAND),
            hand_n=b(2, dt=np.int64), deck=b(2, DECK), deck_pos=b(2), pawn=b(2), markers=b(2), to_move=z(),
            kind=z(v=-1), first_done=b(dt=bool), first_winner=b(dt=np.int64),
            points=z(2), game_no=z(), winner=z(v=-1), done=z(dt=bool), turns=z(), timeout=z(dt=bool),
            houses=z(), first_white=z(), first_winner_won=z(), ties=z(), ties_white_house=z(),
            ab_kids=z(6), ab_bonus=z(6), ab_swing=z(6),
            start_positions=tuple(rules.start_positions), match_points=rules.match_points, rules=rules,
        )
        if deal:
            _k_begin(self.state_tuple(s), self.rules_tuple(s), np.arange(n, dtype=np.int64))
        return s

    def new_batch(self, keys: np.ndarray, players: int, rules: FanAndMalletRules) -> FanAndMalletState:
        return self.new_state(keys, players, rules, deal=False)  # the drivers deal (``begin``)

    def deal(self, s: FanAndMalletState, g: np.ndarray) -> None:
        """Set up a fresh game (ring, decks, hands, pawns) in games ``g``; the deal of game number
        ``game_no`` of a match depends only on the game key and that number."""
        _deal_batch(np.asarray(g, dtype=np.int64), s.deal_keys, s.game_no, np.array(s.start_positions, dtype=np.int64),
                    s.ring_colour, s.ring_faction, s.colours, s.free, s.stack, s.count, s.owner, s.hand, s.hand_n,
                    s.deck, s.deck_pos, s.pawn, s.markers, s.first_done, s.first_winner,
                    np.empty(N_HOUSES, dtype=np.int64), np.empty(DECK, dtype=np.int64))
        s.kind[np.asarray(g, dtype=np.int64)] = Decision.CARD

    def scripted(self, ring, stacks=None, hands=None, decks=None, pawns=None, to_move: int = 0,
                 rules: FanAndMalletRules | None = None, key: int = 0) -> FanAndMalletState:
        """A one-game state from a given position (tests and worked examples), at the decision of
        ``to_move``.

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

    # ----- the decision protocol ------------------------------------------------------------------
    def state_tuple(self, s: FanAndMalletState) -> tuple:
        return (s.done, s.turns, s.timeout, s.to_move, s.kind, s.deal_keys, s.ring_colour, s.ring_faction, s.stack,
                s.count, s.colours, s.free, s.owner, s.hand, s.hand_n, s.deck, s.deck_pos, s.pawn, s.markers,
                s.first_done, s.first_winner, s.points, s.game_no, s.winner, s.houses, s.first_white,
                s.first_winner_won, s.ties, s.ties_white_house, s.ab_kids, s.ab_bonus, s.ab_swing)

    def rules_tuple(self, s: FanAndMalletState) -> tuple:
        return (np.int64(s.match_points or 0), np.array(s.start_positions, dtype=np.int64),
                np.empty(N_HOUSES, dtype=np.int64), np.empty(DECK, dtype=np.int64), np.empty(STACK, dtype=np.int64))

    def legal_options(self, s: FanAndMalletState, idx: np.ndarray) -> list[np.ndarray]:
        """The legal options (hand slots) of the current decision of each game of ``idx``."""
        idx = np.asarray(idx, dtype=np.int64)
        out = np.empty((len(idx), HAND), dtype=np.int64)
        n = np.empty(len(idx), dtype=np.int64)
        _k_legal(self.state_tuple(s), self.rules_tuple(s), idx, out, n)
        return [out[i, :n[i]] for i in range(len(idx))]

    def encode(self, kind: int, result: Any, s: FanAndMalletState, idx: np.ndarray) -> np.ndarray:
        """A numpy strategy's hand slots as option codes; slots must be integers (any other type is an
        illegal answer, never rounded)."""
        return answer_integers(result, DECISIONS[kind], "hand slots")

    # ----- observations ---------------------------------------------------------------------------
    def public(self, s: FanAndMalletState, idx: np.ndarray, name: str) -> np.ndarray:
        """One public field (see :class:`FanAndMalletObs`) for games ``idx``; any other name is refused."""
        if name not in FanAndMalletObs.PUBLIC:
            raise AttributeError(f"{name} is not a public field of Fan & Mallet")
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

    def sample_hidden(self, s: FanAndMalletState, g: int, seat: int, key: int, n: int) -> dict[str, np.ndarray]:
        """``n`` determinizations of game ``g`` from ``seat``'s view (the search's sampler), drawn with the
        random stream of ``key``: their hands (n, 2, 6) and decks (n, 2, 30)."""
        hands = np.empty((n, 2, HAND), dtype=np.int8)
        decks = np.empty((n, 2, DECK), dtype=np.int8)
        _k_sample_many(self.state_tuple(s), self.rules_tuple(s), np.int64(g), np.int64(seat),
                       np.array([key], dtype=np.uint64), np.int64(n), hands, decks)
        return {"hand": hands, "deck": decks}

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
        """Invariants that hold at every decision point (and once games are over)."""
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
        # every live game waits on a decision of the player to move, who holds a card
        assert (s.kind[live] == Decision.CARD).all(), "a live game is not at a decision"
        assert ((s.to_move[live] == 0) | (s.to_move[live] == 1)).all()
        assert (s.hand_n[live, s.to_move[live]] > 0).all(), "the player to move holds no card"


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
