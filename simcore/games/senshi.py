"""Senshi: build four scoring piles; the shortest pile is eliminated, the tallest surviving pile wins.

Rules in brief (``docs/games/senshi.md`` gives them in full, with every ruling)
-----------------------------------------------------
72 tiles, 18 of each colour (0 Strength/red, 1 Agility/green, 2 Honor/yellow, 3 Wisdom/blue). With
2 / 3 / 4 players, 6 / 3 / 0 tiles of each colour are removed; the rest are shuffled into 16 / 20 / 24
stacks of 3 in the middle. At set-up each player in turn order takes one whole middle stack into hand (a
decision, not a turn); with the ``secret_hand`` option each player instead gets 3 random tiles before the
stacks are formed (so the middle starts with 14 / 17 / 20 stacks either way). Seat 0 starts; on a turn a
player must

* **Study**: move a whole middle stack onto their Training Card (at most 3 stacks there);
* **Train**: take the top tile of any stack (middle, own card, another player's card) into hand;
* **Test**: play a tile of colour c from hand onto their pile c, then every player moves the top tile of
  each of their own card stacks whose top is c onto their own pile c (one tile per stack);
* pass, only when nothing is legal (no stack anywhere and an empty hand).

Emptied stacks disappear at once. When the middle becomes empty every player has one final turn, starting
left of the player who emptied it and ending with that player. Then each player's smallest pile is
compared: every player whose smallest pile equals the table's lowest is eliminated, unless all players
share it. The surviving player with the single largest pile wins; ties: most tiles in hand, then the one
whose final turn came later.

Who sees what: hands are private, piles, stack heights and hand sizes public. With ``open_stacks`` false
only the top tile of every stack is visible (a stack taken into hand at set-up is seen by its taker only);
with it true every stack tile is visible. Tiles that are played or trained are public, so each player's
hand has a publicly *known* part (tiles seen entering it and not yet shown leaving it) and an unknown
part (hidden set-up tiles).

Decisions and rule steps (the decision protocol of :mod:`simcore.game`)
----------------------------------------------------------------------
Two decision kinds (:class:`Decision`), always decided by the seat ``cur``:

* ``SETUP`` (``setup_take``): the middle stack seat ``cur`` takes into hand; seats 0 .. P-1 in turn,
  before the first turn (not asked with ``secret_hand``). Set-up decisions are not turns.
* ``ACT`` (``act``): the action of seat ``cur``'s turn, one option code (:func:`action_option`):
  ``PASS_OPTION`` (0), ``STUDY * 32 + stack``, ``TRAIN * 32 + stack``, ``TEST * 32 + colour``.

The compiled rule steps take the state tuple ``S`` (:meth:`Senshi.state_tuple`), the rules tuple ``R``
(:meth:`Senshi.rules_tuple`) and one game ``g``: :func:`begin` shuffles the game's tiles into stacks (and
deals the ``secret_hand`` hands), :func:`step` applies one option (Study / Train / Test with every
player's matching tops / pass, then the end trigger and the final round) and runs the rules to the next
decision, returning False and changing nothing for an option that is not legal; :func:`observe` is the
deciding seat's view (:data:`SenshiView`) for compiled strategies, :func:`legal` lists the options.
Both lanes (the generic drivers of simcore) play every game through these functions; numpy strategies
get the batch observation :class:`Observation` instead.

Array layout (first axis = game, ``n`` games, ``P`` players, ``S`` = 16 / 20 / 24 stack slots)
-------------------------------------------------------------------------------------------------
* ``tiles`` int8 (n, S, 3): colours of each stack as formed at set-up, **top first**; a stack of height
  h holds ``tiles[:, s, 3-h:]`` and its top is ``tiles[:, s, 3-h]`` (-1 everywhere before ``begin``
  shuffles a game that has no scripted deal). With ``secret_hand`` the first P rows, the players' hidden
  hands, are cleared (-1) as soon as ``begin`` deals them: the hands are in ``hand``, and a row the
  compiled view shows must never hold a hidden tile.
* ``height`` int8 (n, S): tiles left in each stack (0 = gone); ``top`` int8 (n, S): top colour, -1 if gone.
* ``loc`` int8 (n, S): where the stack is: ``MIDDLE`` (-1), a seat 0..P-1 (on that player's Training
  Card) or ``GONE`` (-2: taken into hand at set-up, or emptied). Stack indices are set-up order, so the
  middle's order is index order; ``cards`` int8 (n, P, 3) lists the stacks on each player's Training Card
  in placement order (-1 in free slots, always packed to the left).
* ``hand`` int8 (n, P, 4): tiles in hand by colour; ``known`` int8 (n, P, 4): the public part of it;
  ``hand_size`` int8 (n, P) (kept in step).
* ``piles`` int8 (n, P, 4): scoring piles by colour.
* ``card_tops`` int8 (n, P, 4): how many stacks on each player's card show each colour on top (kept in
  step).
* ``cur`` int64 (n,): the seat that decides (at set-up the seat taking its stack, then the seat to play);
  ``kind`` int64 (n,): the decision it is at (-1 before ``begin``); ``remaining`` int8 (n,): final turns
  still to play (-1 before the middle empties); ``emptier`` int8 (n,): seat that emptied the middle (-1
  before).
* ``mid_count`` (n,) and ``card_count`` (n, P): stacks in the middle and on each card (kept in step).
* ``deal_keys`` uint64 (n,): each game's deal stream; ``done``, ``turns``, ``timeout``: the shared
  game-loop fields.

Scripted deals: ``new_state(keys, players, rules, deal=...)`` takes ``deal`` int (n, S, 3) colours top
first in set-up order (with ``secret_hand`` the first P stacks are the players' hands, their rows
cleared once dealt), instead of the shuffle; tests may also overwrite state arrays after ``new_state``
(keep the "kept in step" arrays consistent: :meth:`Senshi.check` verifies them).

Randomness: one shuffle per game (Fisher-Yates driven by the uniforms of draw 0 of the game's deal
stream, as :func:`simcore.rng.uniforms` gives them); nothing else in the engine is random.

Outcome columns (per game): ``score`` is each seat's **smallest pile** (the figure that decides
elimination); ``eliminated`` per seat, ``nobody_eliminated``, ``winning_pile`` (the winner's largest pile)
and ``has_winner`` feed the contract metrics; also ``n_eliminated``, ``tallest_eliminated`` (a holder of
the table's tallest pile was eliminated), ``tie_hand`` / ``tie_order`` (which tie-break decided),
``max_pile``, ``hand`` and the four piles per seat (``pile_strength`` ... ``pile_wisdom``).
"""
# The compiled code of this file never indexes an array with a negative number, so numba leaves out
# Python's wrap-around of negative indices here (simcore/compiled.py; checked by make boundscheck):
# sensei: no negative indices
from __future__ import annotations

import dataclasses
from collections import namedtuple
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import Any, ClassVar

import numba
import numpy as np

from ..compiled import NO_REFCOUNT, REFCOUNT
from ..game import NON_NEGATIVE, SHARE, Game, Metric, answer_integers, answer_parts, out_of_range, take
from ..options import Rules, option
from ..rng import STREAM_DEAL, Stream, _mix_scalar, draw_base, permutation_into, stream_keys, uniform_at

COLOURS = ("strength", "agility", "honor", "wisdom")
NC = 4
PER_COLOUR = 18
REMOVED = {2: 6, 3: 3, 4: 0}          # tiles of each colour set aside
STACKS = {2: 16, 3: 20, 4: 24}        # stacks formed at set-up
MAX_CARD = 3                          # stacks allowed on a Training Card
MIDDLE = -1
GONE = -2


class Kind(IntEnum):
    """Action kinds of the ``act`` decision; the argument is a stack index (Study, Train) or a colour (Test)."""
    PASS = 0
    STUDY = 1
    TRAIN = 2
    TEST = 3


class Decision(IntEnum):
    """The decision kinds; the seat that decides is always ``cur``."""
    SETUP = 0      #: set-up: the middle stack to take into hand (an option = the stack index)
    ACT = 1        #: a turn's action (an option = :func:`action_option` of a :class:`Kind` and its argument)


#: decision kind -> the name of the numpy method / compiled decision answering it
DECISIONS = ("setup_take", "act")

#: an action's option code is ``kind * OPTION_STRIDE + arg`` (stack index or colour); a pass is 0
OPTION_STRIDE = 32
PASS, STUDY, TRAIN, TEST = 0, 1, 2, 3
PASS_OPTION = 0
#: the most options a decision can have (Study and Train of every stack, Test of every colour, pass)
MAX_OPTIONS = 64


@dataclass(frozen=True)
class SenshiRules(Rules):
    """The rule options (``docs/games/senshi.md``); they combine freely (``secret_hand`` is allowed with 2 players)."""
    secret_hand: bool = option(False, "starting hands are 3 random tiles drawn before the stacks are formed "
                                      "(the rulebook's variant) instead of a chosen middle stack")
    open_stacks: bool = option(False, "every tile of every stack is visible to all (false: only the tops)")


class Player:
    """The decisions a Senshi strategy makes. A numpy strategy writes them as methods vectorized over a batch
    of observations (one row of ``obs``, an :class:`Observation`, per game); a compiled one as functions of
    ``(obs, prm, rng)`` marked ``@decision`` (``obs`` a :data:`SenshiView`, returning one option code).

    * ``setup_take(obs, rng) -> stack``: set-up, the middle stack to take into hand (int (m,), a stack
      index with ``obs.loc == MIDDLE``). Asked in seat order; not asked with ``secret_hand``.
    * ``act(obs, rng) -> (kind, arg)``: one turn. ``kind`` a :class:`Kind` code; ``arg`` the stack
      index for STUDY/TRAIN, the colour for TEST, ignored for PASS (which is legal only when nothing else
      is, see ``obs.must_pass``). A compiled ``act`` returns :func:`action_option` of the two.

    The legal masks of an :class:`Observation` (``can_study``, ``can_train``, ``can_test``) say what the
    engine accepts.
    """

    def setup_take(self, obs: "Observation", rng) -> np.ndarray:  # pragma: no cover - interface
        """The middle stack to take into hand at set-up, per observed game."""

    def act(self, obs: "Observation", rng) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
        """(action kind, target) per observed game."""


#: the public board of a game, one int8 row per game (offsets; room for 24 stacks and 4 players):
#: stack heights, tops, locations, each card's stacks (player * 3 + slot), hand sizes, the known part of
#: each hand (player * 4 + colour), piles, card tops, card counts, then middle count, final turns left and
#: the emptier
B_HEIGHT, B_TOP, B_LOC, B_CARDS, B_HAND_SIZE, B_KNOWN = 0, 24, 48, 72, 84, 88
B_PILES, B_CARD_TOPS, B_CARD_COUNT, B_MID_COUNT, B_REMAINING, B_EMPTIER = 104, 120, 136, 140, 141, 142
BOARD_WIDTH = 144


@dataclass
class SenshiState:
    """A batch of games. The public board of each game is one row of ``board``; ``height``, ``top``,
    ``loc``, ``cards``, ``hand_size``, ``known``, ``piles``, ``card_tops``, ``card_count``, ``mid_count``,
    ``remaining`` and ``emptier`` are views of it (see the module docstring). ``tiles`` and ``hand`` are
    hidden information, kept apart."""
    players: int
    rules: SenshiRules
    deal_keys: np.ndarray
    tiles: np.ndarray
    hand: np.ndarray
    board: np.ndarray
    cur: np.ndarray
    kind: np.ndarray
    done: np.ndarray
    turns: np.ndarray
    timeout: np.ndarray

    @property
    def n(self) -> int:
        return len(self.done)

    def _part(self, at: int, *shape: int) -> np.ndarray:
        size = int(np.prod(shape)) if shape else 1
        view = self.board[:, at:at + size]
        return view.reshape((len(self.board),) + shape) if shape else view[:, 0]

    @property
    def height(self) -> np.ndarray:
        return self._part(B_HEIGHT, self.tiles.shape[1])

    @property
    def top(self) -> np.ndarray:
        return self._part(B_TOP, self.tiles.shape[1])

    @property
    def loc(self) -> np.ndarray:
        return self._part(B_LOC, self.tiles.shape[1])

    @property
    def cards(self) -> np.ndarray:
        return self._part(B_CARDS, self.players, MAX_CARD)

    @property
    def hand_size(self) -> np.ndarray:
        return self._part(B_HAND_SIZE, self.players)

    @property
    def known(self) -> np.ndarray:
        return self._part(B_KNOWN, self.players, NC)

    @property
    def piles(self) -> np.ndarray:
        return self._part(B_PILES, self.players, NC)

    @property
    def card_tops(self) -> np.ndarray:
        return self._part(B_CARD_TOPS, self.players, NC)

    @property
    def card_count(self) -> np.ndarray:
        return self._part(B_CARD_COUNT, self.players)

    @property
    def mid_count(self) -> np.ndarray:
        return self._part(B_MID_COUNT)

    @property
    def remaining(self) -> np.ndarray:
        return self._part(B_REMAINING)

    @property
    def emptier(self) -> np.ndarray:
        return self._part(B_EMPTIER)

    def copy(self) -> "SenshiState":
        return dataclasses.replace(self, **{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)
                                            if isinstance(getattr(self, f.name), np.ndarray)})


@dataclass
class Observation:
    """What seat ``me`` knows in each of m games at its current decision (all arrays have m rows; seats
    are absolute): the batch observation numpy strategies get.

    Public: ``piles`` (m,P,4), ``hand_size`` (m,P), ``known`` (m,P,4) (the publicly known part of every
    hand), ``loc``, ``height``, ``top`` (m,S) of every stack, ``cards`` (m,P,3) the stacks on each card in
    placement order (-1 free), ``card_tops`` (m,P,4) (how many card stacks of each player show each colour
    on top), ``mid_count``, ``card_count`` (m,P), ``remaining`` (final turns left, -1 before the end is
    triggered), ``emptier``, ``turns``; ``stacks`` (m,S,3) every stack tile (top first, -1 gone) only when
    ``open_stacks`` (else None: only ``top`` is visible, see :attr:`visible`). Private: ``hand`` (m,4),
    this seat's own hand. ``setup`` is True at the set-up decision. Small integer dtypes: cast before
    arithmetic that could overflow.
    """
    players: int
    me: np.ndarray
    hand: np.ndarray
    hand_size: np.ndarray
    known: np.ndarray
    piles: np.ndarray
    loc: np.ndarray
    height: np.ndarray
    top: np.ndarray
    cards: np.ndarray
    card_tops: np.ndarray
    mid_count: np.ndarray
    card_count: np.ndarray
    remaining: np.ndarray
    emptier: np.ndarray
    turns: np.ndarray
    stacks: np.ndarray | None
    removed: int
    setup: bool = False

    def __len__(self) -> int:
        return len(self.me)

    def subset(self, rows: np.ndarray | slice) -> "Observation":
        """The observation of some of the games (rows), e.g. to score options in blocks."""
        out = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = v[rows] if isinstance(v, np.ndarray) else v
        return Observation(**out)

    # ----- legal moves --------------------------------------------------------------------------
    @cached_property
    def my_card_count(self) -> np.ndarray:
        return self.card_count[np.arange(len(self.me)), self.me].astype(np.int64)

    @cached_property
    def can_study(self) -> np.ndarray:
        """(m,S) Study targets: middle stacks, while fewer than 3 stacks are on the card (at set-up: the
        middle stacks one may take)."""
        if self.setup:
            return self.loc == MIDDLE
        return (self.loc == MIDDLE) & (self.my_card_count < MAX_CARD)[:, None]

    @cached_property
    def can_train(self) -> np.ndarray:
        """(m,S) Train targets: every stack still on the table."""
        return self.loc >= MIDDLE

    @cached_property
    def can_test(self) -> np.ndarray:
        """(m,4) Test colours: colours in hand."""
        return self.hand > 0

    @cached_property
    def kinds(self) -> np.ndarray:
        """(m,4) legal action kinds, indexed by :class:`Kind` (PASS only when nothing else is legal)."""
        out = np.zeros((len(self.me), 4), dtype=bool)
        out[:, Kind.STUDY] = self.can_study.any(axis=1)
        out[:, Kind.TRAIN] = self.can_train.any(axis=1)
        out[:, Kind.TEST] = self.can_test.any(axis=1)
        out[:, Kind.PASS] = ~out[:, 1:].any(axis=1)
        return out

    @property
    def must_pass(self) -> np.ndarray:
        return self.kinds[:, Kind.PASS]

    # ----- derived views ------------------------------------------------------------------------
    @cached_property
    def rel(self) -> np.ndarray:
        """(m,S) owner of each stack relative to me: 0 me, 1 next player, ...; -1 middle, -2 gone."""
        r = (self.loc - self.me[:, None]) % self.players
        return np.where(self.loc >= 0, r, self.loc)

    @cached_property
    def my_tops(self) -> np.ndarray:
        """(m,4) my card stacks with each top colour."""
        return self.card_tops[np.arange(len(self.me)), self.me].astype(np.int64)

    @cached_property
    def opp_mask(self) -> np.ndarray:
        """(m,P) True for opponents."""
        return np.arange(self.players)[None, :] != self.me[:, None]

    @cached_property
    def my_piles(self) -> np.ndarray:
        return self.piles[np.arange(len(self.me)), self.me].astype(np.int64)

    @cached_property
    def my_min(self) -> np.ndarray:
        """(m,) my smallest pile."""
        return self.my_piles.min(axis=1)

    @cached_property
    def opp_low_min(self) -> np.ndarray:
        """(m,) the lowest smallest pile among opponents (the elimination line for me)."""
        mins = self.piles.min(axis=2).astype(np.int64)
        return np.where(self.opp_mask, mins, 1 << 20).min(axis=1)

    @cached_property
    def visible(self) -> np.ndarray:
        """(m,S,3) the stack tiles this seat sees, top first (-1 unseen or gone)."""
        if self.stacks is not None:
            return self.stacks
        h = self.height.astype(np.int64)
        pos = np.arange(3)[None, None, :]
        return np.where(pos == (3 - h)[:, :, None], self.top[:, :, None], -1).astype(np.int8)

    @cached_property
    def unseen(self) -> np.ndarray:
        """(m,4) tiles of each colour this seat cannot place: in other hands' unknown parts or buried in stacks."""
        total = np.full((len(self.me), NC), PER_COLOUR - self.removed, dtype=np.int64)
        seen = self.piles.sum(axis=1).astype(np.int64) + self.hand
        others = np.where(self.opp_mask[:, :, None], self.known, 0).sum(axis=1)
        vis = self.visible
        for c in range(NC):
            seen[:, c] += (vis == c).sum(axis=(1, 2))
        return total - seen - others

    def relative(self, arr: np.ndarray) -> np.ndarray:
        """Reorder a per-seat array (m,P,...) so that column 0 is me, 1 the next player, ..."""
        cols = (self.me[:, None] + np.arange(self.players)[None, :]) % self.players
        return arr[np.arange(len(self.me))[:, None], cols]


def winners(piles: np.ndarray, hand_size: np.ndarray, emptier: np.ndarray) -> dict[str, np.ndarray]:
    """Elimination and victory of finished games (batch): piles (n,P,4), hand sizes (n,P), emptier (n,).

    Returns ``eliminated`` bool (n,P), ``nobody`` bool (n,), ``winner`` int (n,), and which tie-break
    decided (``by_hand``, ``by_order``, bool (n,)).
    """
    n, P, _ = piles.shape
    low = piles.min(axis=2)
    table_low = low.min(axis=1, keepdims=True)
    nobody = (low == table_low).all(axis=1)
    elim = (low == table_low) & ~nobody[:, None]
    tall = np.where(elim, -1, piles.max(axis=2))
    best = tall.max(axis=1, keepdims=True)
    tied = tall == best
    hands = np.where(tied, hand_size, -1)
    most = hands.max(axis=1, keepdims=True)
    tied2 = tied & (hands == most)
    seats = np.arange(P)[None, :]
    rank = (seats - np.asarray(emptier)[:, None] - 1) % P   # order of the final turns; emptier last
    key = np.where(tied2, rank, -1)
    winner = key.argmax(axis=1)
    return {"eliminated": elim, "nobody": nobody, "winner": winner,
            "by_hand": tied.sum(axis=1) > 1, "by_order": tied2.sum(axis=1) > 1}


# ----------------------------------------------------------------------------------------------------
# The decision protocol (see simcore/game.py). The compiled functions below take the state tuple ``S``
# (:meth:`Senshi.state_tuple`) and the rules tuple ``R`` (:meth:`Senshi.rules_tuple`) and one game ``g``.
# ----------------------------------------------------------------------------------------------------
# positions of the state tuple
_DONE, _TURNS, _TIMEOUT, _CUR, _KIND, _DEAL_KEYS, _TILES, _HAND, _BOARD = range(9)
# positions of the rules tuple (the last is a tile array of -1, unknown: the view's ``stacks`` without open_stacks)
_R_P, _R_OPEN, _R_SECRET, _R_REMOVED, _R_NO_TILES = range(5)

#: what a compiled strategy sees at a decision: its game ``g``, seat ``me`` (who decides), ``players``,
#: the decision ``kind``, ``turns`` played, ``n_stacks`` stack slots, the rule options ``open_stacks`` and
#: ``removed`` (tiles of each colour set aside); ``board`` the game's public board (read it with the view
#: functions below: :func:`stack_height`, :func:`stack_top`, :func:`stack_loc`, :func:`card_stack`,
#: :func:`hand_size`, :func:`known_tiles`, :func:`pile`, :func:`card_tops`, :func:`card_count`,
#: :func:`mid_count`, :func:`remaining`, :func:`emptier`); ``hand`` the seat's own hand by colour (4,);
#: ``stacks`` the game's stack tiles (n_stacks, 3), top first, when ``open_stacks`` (else -1 in every entry,
#: unknown: only the tops are visible; :func:`visible_tile` reads either way): a stack's row as formed at set-up,
#: where the positions above its height hold tiles that have left it (all public), and -1 in the rows of
#: the ``secret_hand`` hands (cleared when they are dealt). Nothing in it is hidden from the seat.
SenshiView = namedtuple("SenshiView", ["g", "me", "players", "kind", "turns", "n_stacks", "open_stacks", "removed",
                                       "board", "hand", "stacks"])


@numba.njit(cache=True, inline="always")
def action_option(kind, arg):
    """The option code of an action: ``kind`` a :class:`Kind` code, ``arg`` a stack (Study, Train) or a
    colour (Test); a pass is 0."""
    return 0 if kind == PASS else kind * OPTION_STRIDE + arg


@numba.njit(cache=True, inline="always")
def option_kind(opt):
    """The :class:`Kind` of an action's option code."""
    return opt // OPTION_STRIDE


@numba.njit(cache=True, inline="always")
def option_arg(opt):
    """The stack or colour of an action's option code."""
    return opt % OPTION_STRIDE


# ----- the view functions (what a compiled strategy reads) -----------------------------------------
@numba.njit(cache=True, inline="always")
def stack_height(obs, s):
    """Tiles left in stack s (0: gone)."""
    return obs.board[B_HEIGHT + s]


@numba.njit(cache=True, inline="always")
def stack_top(obs, s):
    """Top colour of stack s (-1: gone)."""
    return obs.board[B_TOP + s]


@numba.njit(cache=True, inline="always")
def stack_loc(obs, s):
    """Where stack s is: MIDDLE (-1), the seat whose Training Card holds it, or GONE (-2)."""
    return obs.board[B_LOC + s]


@numba.njit(cache=True, inline="always")
def card_stack(obs, p, j):
    """The stack in slot j (placement order) of player p's Training Card, -1 if free."""
    return obs.board[B_CARDS + MAX_CARD * p + j]


@numba.njit(cache=True, inline="always")
def hand_size(obs, p):
    """Tiles in player p's hand."""
    return obs.board[B_HAND_SIZE + p]


@numba.njit(cache=True, inline="always")
def known_tiles(obs, p, c):
    """Tiles of colour c publicly known to be in player p's hand."""
    return obs.board[B_KNOWN + NC * p + c]


@numba.njit(cache=True, inline="always")
def pile(obs, p, c):
    """Player p's scoring pile of colour c."""
    return obs.board[B_PILES + NC * p + c]


@numba.njit(cache=True, inline="always")
def card_tops(obs, p, c):
    """Stacks on player p's Training Card whose top has colour c."""
    return obs.board[B_CARD_TOPS + NC * p + c]


@numba.njit(cache=True, inline="always")
def card_count(obs, p):
    """Stacks on player p's Training Card."""
    return obs.board[B_CARD_COUNT + p]


@numba.njit(cache=True, inline="always")
def mid_count(obs):
    """Stacks in the middle."""
    return obs.board[B_MID_COUNT]


@numba.njit(cache=True, inline="always")
def remaining(obs):
    """Final turns still to play (-1 before the middle empties)."""
    return obs.board[B_REMAINING]


@numba.njit(cache=True, inline="always")
def emptier(obs):
    """The seat that emptied the middle (-1 before)."""
    return obs.board[B_EMPTIER]


@numba.njit(cache=True, inline="always")
def can_study(obs, s):
    """Whether stack s is a legal Study (at set-up: a stack one may take)."""
    if obs.board[B_LOC + s] != MIDDLE:
        return False
    return obs.kind == Decision.SETUP or obs.board[B_CARD_COUNT + obs.me] < MAX_CARD


@numba.njit(cache=True, inline="always")
def can_train(obs, s):
    """Whether stack s is still on the table (a legal Train)."""
    return obs.board[B_LOC + s] >= MIDDLE


@numba.njit(cache=True, inline="always")
def hand_total(obs):
    """Tiles in the deciding seat's hand."""
    return obs.hand[0] + obs.hand[1] + obs.hand[2] + obs.hand[3]


@numba.njit(cache=True, inline="always")
def must_pass(obs):
    """Nothing is legal but a pass: an empty hand and no stack on the table."""
    if hand_total(obs) > 0 or obs.board[B_MID_COUNT] > 0:
        return False
    for p in range(obs.players):
        if obs.board[B_CARD_COUNT + p] > 0:
            return False
    return True


@numba.njit(cache=True, inline="always")
def visible_tile(obs, s, k):
    """Colour of tile k (0 = top position) of stack s as the deciding seat sees it (-1 gone or unseen)."""
    h = obs.board[B_HEIGHT + s]
    if k < 3 - h:
        return -1
    if obs.open_stacks:
        return obs.stacks[s, k]
    return obs.board[B_TOP + s] if k == 3 - h else -1


# ----- the rule steps --------------------------------------------------------------------------------
@numba.njit(**NO_REFCOUNT)
def begin(S, R, g):
    """Shuffle game g's tiles into stacks (unless a deal is scripted), deal the ``secret_hand`` hands and
    go to the first decision (nothing if the game has begun or is over)."""
    if S[_KIND][g] >= 0 or S[_DONE][g]:
        return
    tiles = S[_TILES][g]
    b = S[_BOARD][g]
    n_stacks = tiles.shape[0]
    if tiles[0, 0] < 0:
        # Fisher-Yates over the sorted tiles, driven by the uniforms of draw 0 of the deal stream
        per = PER_COLOUR - R[_R_REMOVED]
        L = 3 * n_stacks
        for j in range(L):
            tiles[j // 3, j % 3] = j // per
        base = _mix_scalar(S[_DEAL_KEYS][g])
        for j in range(L - 1, 0, -1):
            k = int(uniform_at(base, j) * (j + 1))
            t = tiles[j // 3, j % 3]
            tiles[j // 3, j % 3] = tiles[k // 3, k % 3]
            tiles[k // 3, k % 3] = t
    for s in range(n_stacks):
        b[B_TOP + s] = tiles[s, 0]
    S[_CUR][g] = 0
    if R[_R_SECRET]:
        for p in range(R[_R_P]):
            _to_hand(tiles, S[_HAND][g], b, p, p, False, False)
            # the hand is private: its stack row is cleared, so that no view (the compiled view's
            # ``stacks`` with ``open_stacks`` is the whole tile array) can show it; nothing reads a gone row
            for k in range(3):
                tiles[p, k] = -1
        S[_KIND][g] = Decision.ACT
    else:
        S[_KIND][g] = Decision.SETUP


@numba.njit(cache=True, inline="always")
def _to_hand(tiles, hand, b, p, s, public, open_stacks):
    """Middle stack s goes whole into player p's hand (set-up); with ``public`` its visible tiles become
    publicly known hand tiles (the top, or all three with ``open_stacks``). ``tiles``, ``hand`` and the
    board ``b`` are the game's rows."""
    for k in range(3):
        c = tiles[s, k]
        hand[p, c] += 1
        b[B_HAND_SIZE + p] += 1
        if public and (k == 0 or open_stacks):
            b[B_KNOWN + NC * p + c] += 1
    b[B_LOC + s] = GONE
    b[B_HEIGHT + s] = 0
    b[B_TOP + s] = -1
    b[B_MID_COUNT] -= 1


@numba.njit(cache=True, inline="always")
def _remove_card_slot(b, o, j):
    """Stack in slot j of player o's card is gone: the later slots move left."""
    cc = b[B_CARD_COUNT + o]
    for jj in range(j, cc - 1):
        b[B_CARDS + MAX_CARD * o + jj] = b[B_CARDS + MAX_CARD * o + jj + 1]
    b[B_CARDS + MAX_CARD * o + cc - 1] = -1
    b[B_CARD_COUNT + o] = cc - 1


@numba.njit(cache=True, inline="always")
def _act(tiles, hand, b, P, n_stacks, a, opt):
    """Validate and apply seat a's action ``opt`` (False, changing nothing, if illegal); the game's rows."""
    if opt < 0:
        return False
    k = opt // OPTION_STRIDE
    x = opt % OPTION_STRIDE
    if k == STUDY:
        if x >= n_stacks or b[B_LOC + x] != MIDDLE or b[B_CARD_COUNT + a] >= MAX_CARD:
            return False
        b[B_LOC + x] = a
        b[B_CARDS + MAX_CARD * a + b[B_CARD_COUNT + a]] = x
        b[B_MID_COUNT] -= 1
        b[B_CARD_COUNT + a] += 1
        b[B_CARD_TOPS + NC * a + b[B_TOP + x]] += 1
    elif k == TRAIN:
        o = b[B_LOC + x] if x < n_stacks else GONE
        if o < MIDDLE:
            return False
        c = b[B_TOP + x]
        hand[a, c] += 1
        b[B_HAND_SIZE + a] += 1
        b[B_KNOWN + NC * a + c] += 1
        h = b[B_HEIGHT + x] - 1
        b[B_HEIGHT + x] = h
        if o >= 0:
            b[B_CARD_TOPS + NC * o + c] -= 1
        if h > 0:
            t = tiles[x, 3 - h]
            b[B_TOP + x] = t
            if o >= 0:
                b[B_CARD_TOPS + NC * o + t] += 1
        else:
            b[B_TOP + x] = -1
            b[B_LOC + x] = GONE
            if o < 0:
                b[B_MID_COUNT] -= 1
            else:
                for j in range(MAX_CARD):
                    if b[B_CARDS + MAX_CARD * o + j] == x:
                        _remove_card_slot(b, o, j)
                        break
    elif k == TEST:
        if x >= NC or hand[a, x] <= 0:
            return False
        hand[a, x] -= 1
        b[B_HAND_SIZE + a] -= 1
        if b[B_KNOWN + NC * a + x] > 0:
            b[B_KNOWN + NC * a + x] -= 1
        b[B_PILES + NC * a + x] += 1
        for p in range(P):
            if b[B_CARD_TOPS + NC * p + x] > 0:
                for j in range(b[B_CARD_COUNT + p] - 1, -1, -1):   # backwards: a removal shifts only later slots
                    s = b[B_CARDS + MAX_CARD * p + j]
                    if b[B_TOP + s] == x:
                        b[B_PILES + NC * p + x] += 1
                        h = b[B_HEIGHT + s] - 1
                        b[B_HEIGHT + s] = h
                        b[B_CARD_TOPS + NC * p + x] -= 1
                        if h > 0:
                            t = tiles[s, 3 - h]
                            b[B_TOP + s] = t
                            b[B_CARD_TOPS + NC * p + t] += 1
                        else:
                            b[B_TOP + s] = -1
                            b[B_LOC + s] = GONE
                            _remove_card_slot(b, p, j)
    elif opt == PASS_OPTION:
        if b[B_MID_COUNT] > 0 or b[B_HAND_SIZE + a] > 0:
            return False
        for p in range(P):
            if b[B_CARD_COUNT + p] > 0:
                return False
    else:
        return False
    return True


@numba.njit(forceinline=True, **NO_REFCOUNT)
def step_inline(S, R, g, opt):
    """Apply option ``opt`` at game g's current decision and run the rules to the next decision.
    Returns False (changing nothing) when the option is not legal."""
    if S[_DONE][g]:
        return False
    kind = S[_KIND][g]
    a = S[_CUR][g]
    tiles, hand, b = S[_TILES][g], S[_HAND][g], S[_BOARD][g]
    P = R[_R_P]
    if kind == Decision.ACT:
        if not _act(tiles, hand, b, P, tiles.shape[0], a, opt):
            return False
        # the turn is over: count it, then the end trigger and the final round
        S[_TURNS][g] += 1
        r = b[B_REMAINING]
        if r > 0:
            b[B_REMAINING] = r - 1
            if r == 1:
                S[_DONE][g] = True
        elif r < 0 and b[B_MID_COUNT] == 0:
            b[B_REMAINING] = P
            b[B_EMPTIER] = a
        S[_CUR][g] = a + 1 if a + 1 < P else 0
        return True
    if kind == Decision.SETUP:
        if opt < 0 or opt >= tiles.shape[0] or b[B_LOC + opt] != MIDDLE:
            return False
        _to_hand(tiles, hand, b, a, opt, True, R[_R_OPEN])
        if a + 1 < P:
            S[_CUR][g] = a + 1
        else:
            S[_CUR][g] = 0
            S[_KIND][g] = Decision.ACT
        return True
    return False


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
    """What ``seat`` may know in game g at its current decision (a :data:`SenshiView`)."""
    tiles = S[_TILES][g]
    stacks = tiles if R[_R_OPEN] else R[_R_NO_TILES]
    return SenshiView(g, seat, R[_R_P], S[_KIND][g], S[_TURNS][g], tiles.shape[0], R[_R_OPEN], R[_R_REMOVED],
                      S[_BOARD][g], S[_HAND][g, seat], stacks)


@numba.njit(**NO_REFCOUNT)
def legal(S, R, g, out):
    """The legal options at game g's current decision into ``out`` (length >= MAX_OPTIONS); returns
    how many."""
    if S[_DONE][g]:
        return 0
    kind = S[_KIND][g]
    a = S[_CUR][g]
    b = S[_BOARD][g]
    n_stacks = S[_TILES].shape[1]
    n = 0
    if kind == Decision.SETUP:
        for s in range(n_stacks):
            if b[B_LOC + s] == MIDDLE:
                out[n] = s
                n += 1
        return n
    if kind != Decision.ACT:
        return 0
    if b[B_CARD_COUNT + a] < MAX_CARD:
        for s in range(n_stacks):
            if b[B_LOC + s] == MIDDLE:
                out[n] = STUDY * OPTION_STRIDE + s
                n += 1
    for s in range(n_stacks):
        if b[B_LOC + s] >= MIDDLE:
            out[n] = TRAIN * OPTION_STRIDE + s
            n += 1
    for c in range(NC):
        if S[_HAND][g, a, c] > 0:
            out[n] = TEST * OPTION_STRIDE + c
            n += 1
    if n == 0:
        out[0] = PASS_OPTION
        n = 1
    return n


@numba.njit(**NO_REFCOUNT)
def _k_begin(S, R, idx):
    for i in range(idx.shape[0]):
        begin(S, R, idx[i])


@numba.njit(cache=True)
def _k_view(S, R, idx, seat, board, hand, stacks):
    """The compiled view of ``seat`` in the games ``idx`` (:func:`observe`), copied out: its board, hand and
    ``stacks`` (every entry -1 without ``open_stacks``), for the leak probe."""
    for i in range(idx.shape[0]):
        ob = observe(S, R, idx[i], seat)
        for j in range(ob.board.shape[0]):
            board[i, j] = ob.board[j]
        for c in range(NC):
            hand[i, c] = ob.hand[c]
        for s in range(ob.stacks.shape[0]):
            for k in range(3):
                stacks[i, s, k] = ob.stacks[s, k]


@numba.njit(**NO_REFCOUNT)
def _k_legal(S, R, idx, out, count):
    for i in range(idx.shape[0]):
        count[i] = legal(S, R, idx[i], out[i])


@numba.njit(**NO_REFCOUNT)
def _k_outcome(board, hand, timeout, P, score, win, elim, nobody, winning, n_elim, tallest_elim, tie_hand,
               tie_order, max_pile, hand_left, piles_out):
    """The outcome columns of finished games (the arithmetic of :func:`winners`), one pass per game."""
    for g in range(board.shape[0]):
        b = board[g]
        ok = not timeout[g]
        table_low, table_top = 1 << 30, -1
        for p in range(P):
            low, tall, size = 1 << 30, -1, 0
            for c in range(NC):
                v = b[B_PILES + NC * p + c]
                piles_out[g, p, c] = v
                low = min(low, v)
                tall = max(tall, v)
                size += hand[g, p, c]
            score[g, p] = low
            max_pile[g, p] = tall
            hand_left[g, p] = size
            table_low = min(table_low, low)
            table_top = max(table_top, tall)
        same = 0
        for p in range(P):
            same += score[g, p] == table_low
        nob = same == P
        # survivors: the single largest pile, then most tiles in hand, then the latest final turn
        last = max(b[B_EMPTIER], 0)
        best, most, winner, n_tied, n_tied2, k_best, any_tall = -2, -1, 0, 0, 0, -1, False
        for p in range(P):
            out = score[g, p] == table_low and not nob
            elim[g, p] = 1.0 if (out and ok) else 0.0
            if out and max_pile[g, p] == table_top:
                any_tall = True
            tall = -1 if out else max_pile[g, p]
            if tall > best:
                best = tall
        for p in range(P):
            tall = -1 if (score[g, p] == table_low and not nob) else max_pile[g, p]
            if tall == best:
                n_tied += 1
                if hand_left[g, p] > most:
                    most = hand_left[g, p]
        for p in range(P):
            tall = -1 if (score[g, p] == table_low and not nob) else max_pile[g, p]
            if tall == best and hand_left[g, p] == most:
                n_tied2 += 1
                rank = (p - last - 1) % P
                if rank > k_best:
                    k_best, winner = rank, p
        n_out = 0
        for p in range(P):
            win[g, p] = 1.0 if (ok and p == winner) else 0.0
            n_out += elim[g, p] == 1.0
        nobody[g] = 1.0 if (nob and ok) else 0.0
        winning[g] = float(max_pile[g, winner]) if ok else 0.0
        n_elim[g] = n_out
        tallest_elim[g] = 1.0 if (any_tall and ok) else 0.0
        tie_hand[g] = 1.0 if (n_tied > 1 and ok) else 0.0
        tie_order[g] = 1.0 if (n_tied2 > 1 and ok) else 0.0


# ----------------------------------------------------------------------------------------------------
# determinization (the search player, ``simcore/search.py``): a whole game built from one seat's view
#
# What a seat has seen: the public board (piles, stack heights and tops, locations, cards, hand sizes, the
# known part of every hand, the end trigger), its own hand, and every stack tile with ``open_stacks``. What
# it has not: the tiles buried under the stack tops (unless ``open_stacks``) and the unknown part of the
# other hands (set-up tiles not shown since). The sampler deals the tiles it cannot place (each colour's
# tiles in play less the piles, its own hand, the others' known tiles and the visible stack tiles) at random
# into those places; it reads only the view, so the truth cannot leak into a search.

@numba.njit(cache=True, **REFCOUNT)
def scratch(ob):
    """A fresh one-game state tuple and rules tuple shaped like the engine's, for the game of view ``ob``
    (the search's private copy; :func:`sample` fills it)."""
    S = (np.zeros(1, dtype=np.bool_), np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.bool_),
         np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.uint64),
         np.full((1, ob.n_stacks, 3), -1, dtype=np.int8), np.zeros((1, ob.players, NC), dtype=np.int8),
         np.zeros((1, BOARD_WIDTH), dtype=np.int8))
    R = (np.int64(ob.players), ob.open_stacks, False, np.int64(ob.removed),
         np.full((ob.n_stacks, 3), -1, dtype=np.int8))
    return S, R


@numba.njit(cache=True, inline="always")
def n_seats(ob):
    return np.int64(ob.players)


@numba.njit(cache=True, inline="always")
def sample(ob, rs, S, R):
    """Write into game 0 of the one-game state ``S`` a determinization of view ``ob``: the public board
    copied, the deciding seat's hand as it is, the known part of the other hands, and the tiles it cannot
    place shuffled into the other hands' unknown parts (seat order) and the buried stack positions (stack
    order). ``rs`` is the search's random stream (:data:`simcore.rng.Stream`; its ``iw`` rows 0 to 2)."""
    b = ob.board
    P, me, ns = ob.players, ob.me, ob.n_stacks
    B = S[_BOARD][0]
    for i in range(BOARD_WIDTH):
        B[i] = b[i]
    S[_DONE][0] = False
    S[_TIMEOUT][0] = False
    S[_TURNS][0] = ob.turns
    S[_KIND][0] = ob.kind
    S[_DEAL_KEYS][0] = 0
    if ob.kind == Decision.ACT:
        S[_CUR][0] = ob.turns % P
    else:  # set-up: the seats that have taken their stack come first
        taken = 0
        for p in range(P):
            taken += b[B_HAND_SIZE + p] > 0
        S[_CUR][0] = taken
    unseen = rs.iw[0]
    for c in range(NC):
        unseen[c] = PER_COLOUR - ob.removed - ob.hand[c]
    hand = S[_HAND][0]
    for p in range(P):
        for c in range(NC):
            unseen[c] -= b[B_PILES + NC * p + c]
            if p == me:
                hand[p, c] = ob.hand[c]
            else:
                unseen[c] -= b[B_KNOWN + NC * p + c]
                hand[p, c] = b[B_KNOWN + NC * p + c]
    tiles = S[_TILES][0]
    for s in range(ns):
        h = b[B_HEIGHT + s]
        for k in range(3):
            tiles[s, k] = -1
        if h > 0:
            tiles[s, 3 - h] = b[B_TOP + s]
            unseen[b[B_TOP + s]] -= 1
            if ob.open_stacks:
                for k in range(4 - h, 3):
                    tiles[s, k] = ob.stacks[s, k]
                    unseen[ob.stacks[s, k]] -= 1
    pool = rs.iw[1]
    n = 0
    for c in range(NC):
        for _ in range(unseen[c]):
            pool[n] = c
            n += 1
    perm = rs.iw[2][:n]
    permutation_into(draw_base(rs.keys, rs.counter, rs.f), 0, perm)
    t = 0
    for p in range(P):
        if p != me:
            for _ in range(b[B_HAND_SIZE + p] - (b[B_KNOWN + NC * p] + b[B_KNOWN + NC * p + 1]
                                                 + b[B_KNOWN + NC * p + 2] + b[B_KNOWN + NC * p + 3])):
                if t < n:
                    hand[p, pool[perm[t]]] += 1
                    t += 1
    if not ob.open_stacks:
        for s in range(ns):
            h = b[B_HEIGHT + s]
            for k in range(4 - h, 3):
                if h > 0 and t < n:
                    tiles[s, k] = pool[perm[t]]
                    t += 1


@numba.njit(cache=True, inline="always")
def label(S, R, g, opt, viewer):
    """What every seat sees of option ``opt``: the option itself (stacks and colours are public)."""
    return np.int64(opt)


@numba.njit(cache=True, inline="always")
def stop(S, R, g, ob):
    """The search's horizon: the end of the game."""
    return S[_DONE][g]


@numba.njit(cache=True, inline="always")
def value(S, R, g, ob, out):
    """Each seat's reward at the horizon: 1 for the winner, 0 for the others (elimination, then the
    tallest surviving pile, then hand size, then the later final turn); a rollout cut before the end is
    valued as if the game ended there."""
    b = S[_BOARD][g]
    P = R[_R_P]
    table_low = 1 << 30
    for p in range(P):
        low = 1 << 30
        for c in range(NC):
            low = min(low, np.int64(b[B_PILES + NC * p + c]))
        table_low = min(table_low, low)
    same = 0
    for p in range(P):
        low = 1 << 30
        for c in range(NC):
            low = min(low, np.int64(b[B_PILES + NC * p + c]))
        same += low == table_low
    last = max(np.int64(b[B_EMPTIER]), 0)
    winner, best, most, k_best = 0, -2, -1, -1
    for p in range(P):
        low, tall = 1 << 30, -1
        for c in range(NC):
            v = np.int64(b[B_PILES + NC * p + c])
            low = min(low, v)
            tall = max(tall, v)
        if low == table_low and same < P:
            tall = -1
        size = np.int64(b[B_HAND_SIZE + p])
        rank = (p - last - 1) % P
        if tall > best or (tall == best and (size > most or (size == most and rank > k_best))):
            winner, best, most, k_best = p, tall, size, rank
    for p in range(P):
        out[p] = 1.0 if p == winner else 0.0


@numba.njit(cache=True)
def _sample_many(ob, keys, n, tiles, hands):
    S, R = scratch(ob)
    counter = np.zeros(1, dtype=np.int64)
    fw = np.zeros((16, 64), dtype=np.float64)
    iw = np.zeros((16, 64), dtype=np.int64)
    rs = Stream(keys, counter, 0, fw, iw)
    for t in range(n):
        sample(ob, rs, S, R)
        tiles[t] = S[_TILES][0]
        hands[t] = S[_HAND][0]


@numba.njit(cache=True)
def _k_sample_many(S, R, g, seat, keys, n, tiles, hands):
    _sample_many(observe(S, R, g, seat), keys, n, tiles, hands)


class Senshi(Game):
    name: ClassVar[str] = "senshi"
    title: ClassVar[str] = "Senshi"
    summary: ClassVar[str] = ("Study, Train and Test to grow four scoring piles; the shortest is eliminated "
                              "(nobody, when all share it), the tallest surviving pile wins.")
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    default_players: ClassVar[int] = 4
    Rules: ClassVar[type] = SenshiRules
    Player: ClassVar[type] = Player
    decisions: ClassVar[tuple[str, ...]] = DECISIONS
    kernels: ClassVar[str] = "simcore.games.senshi"
    step_inline: ClassVar[bool] = True
    score_words: ClassVar[str] = "smallest pile"
    columns: ClassVar[dict[str, str]] = {
        "eliminated": "seat was eliminated (1/0), float (n,P)",
        "nobody_eliminated": "every player tied for the smallest pile (1/0), (n,)",
        "winning_pile": "the winner's largest pile (0 on timeout), (n,)",
        "has_winner": "the game finished with a winner (1/0), (n,)",
        "n_eliminated": "number of eliminated seats, (n,)",
        "tallest_eliminated": "a player holding the table's tallest pile was eliminated (1/0), (n,)",
        "tie_hand": "the largest pile was tied among survivors (hand sizes compared), (n,)",
        "tie_order": "still tied on hand size (turn order decided), (n,)",
        "max_pile": "largest pile per seat, (n,P)",
        "hand": "tiles left in hand per seat, (n,P)",
        **{f"pile_{c}": f"{c} scoring pile per seat, (n,P)" for c in COLOURS},
    }
    #: the 1/0 columns are shares; the rest count tiles or seats
    column_ranges: ClassVar[dict[str, tuple]] = {
        "score": NON_NEGATIVE,
        **{name: (SHARE if "(1/0)" in text else NON_NEGATIVE) for name, text in columns.items()},
        "tie_hand": SHARE, "tie_order": SHARE,  # whether the game was so decided
    }
    ratio_metrics: ClassVar[tuple[Metric, ...]] = (
        Metric("elimination_rate", "eliminated", per_seat=True),
        Metric("nobody_eliminated", "nobody_eliminated"),
        Metric("mean_winning_pile", "winning_pile", "has_winner"),
        Metric("mean_eliminated", "n_eliminated"),
        Metric("tallest_eliminated_rate", "tallest_eliminated"),
        Metric("tie_hand_rate", "tie_hand"),
        Metric("tie_order_rate", "tie_order"),
        Metric("mean_smallest_pile", "score", per_seat=True),
        Metric("mean_largest_pile", "max_pile", per_seat=True),
    )
    safety_turns: ClassVar[int] = 1000
    #: games side by side: Senshi games have similar lengths, so a wide batch without refills is fastest
    batch_width: ClassVar[int] = 16384

    # ----- set-up -------------------------------------------------------------------------------
    def new_state(self, keys: np.ndarray, players: int, rules: SenshiRules, deal: np.ndarray | None = None) -> SenshiState:
        """A fresh batch at its first decision (``begin`` has run: the tiles are shuffled, or ``deal`` is
        used instead, see the module docstring)."""
        st = self.new_batch(keys, players, rules, deal)
        _k_begin(self.state_tuple(st), self.rules_tuple(st), np.arange(st.n, dtype=np.int64))
        return st

    def new_batch(self, keys: np.ndarray, players: int, rules: SenshiRules,
                  deal: np.ndarray | None = None) -> SenshiState:
        """A fresh batch for the drivers: ``begin`` has not run (it shuffles the tiles of every game without
        a scripted ``deal``)."""
        keys = np.asarray(keys)
        n, P, S = len(keys), players, STACKS[players]
        per = PER_COLOUR - REMOVED[players]
        if deal is None:
            tiles = np.full((n, S, 3), -1, dtype=np.int8)
        else:
            tiles = np.array(np.broadcast_to(np.asarray(deal, dtype=np.int8), (n, S, 3)))
            counts = np.stack([(tiles == c).sum(axis=(1, 2)) for c in range(NC)], axis=1)
            if not (counts == per).all():
                raise ValueError(f"a {P}-player deal holds {per} tiles of each colour")
        board = np.zeros(BOARD_WIDTH, dtype=np.int8)
        board[B_HEIGHT:B_HEIGHT + 24] = np.where(np.arange(24) < S, 3, 0)
        board[B_TOP:B_TOP + 24] = -1
        board[B_LOC:B_LOC + 24] = np.where(np.arange(24) < S, MIDDLE, GONE)
        board[B_CARDS:B_CARDS + 4 * MAX_CARD] = -1
        board[B_MID_COUNT] = S
        board[B_REMAINING] = board[B_EMPTIER] = -1
        return SenshiState(
            players=P, rules=rules, deal_keys=stream_keys(keys, STREAM_DEAL), tiles=tiles,
            hand=np.zeros((n, P, NC), dtype=np.int8), board=np.tile(board, (n, 1)),
            cur=np.zeros(n, dtype=np.int64), kind=np.full(n, -1, dtype=np.int64),
            done=np.zeros(n, dtype=bool), turns=np.zeros(n, dtype=np.int32), timeout=np.zeros(n, dtype=bool))

    def state_tuple(self, st: SenshiState) -> tuple:
        return (st.done, st.turns, st.timeout, st.cur, st.kind, st.deal_keys, st.tiles, st.hand, st.board)

    def rules_tuple(self, st: SenshiState) -> tuple:
        r = st.rules
        # (without open_stacks the view's stacks: every tile unknown, -1, so that a decision that reads them
        # anyway reads -1, where an empty array let it read memory beyond it)
        return (np.int64(st.players), bool(r.open_stacks), bool(r.secret_hand), np.int64(REMOVED[st.players]),
                np.full((st.tiles.shape[1], 3), -1, dtype=np.int8))

    # ----- observation --------------------------------------------------------------------------
    def observe(self, st: SenshiState, idx: np.ndarray, me: np.ndarray) -> Observation:
        """The batch observation of seat ``me[i]`` in game ``idx[i]`` at its current decision (visible
        information only; copies). The games are at one decision kind (the drivers ask one kind at a time)."""
        idx = np.asarray(idx, dtype=np.int64)
        me = np.asarray(me, dtype=np.int64)
        P = st.players
        if len(idx) == st.n and (idx == np.arange(st.n)).all():   # the whole batch in order: plain copies
            rows = lambda a: a.copy()  # noqa: E731
        else:
            rows = lambda a: np.take(a, idx, axis=0)  # noqa: E731
        stacks = None
        if st.rules.open_stacks:
            h = rows(st.height).astype(np.int64)
            stacks = np.where(np.arange(3)[None, None, :] >= (3 - h)[:, :, None], rows(st.tiles), -1).astype(np.int8)
        return Observation(
            players=P, me=me, hand=st.hand[idx, me], hand_size=rows(st.hand_size), known=rows(st.known),
            piles=rows(st.piles), loc=rows(st.loc), height=rows(st.height), top=rows(st.top),
            cards=rows(st.cards), card_tops=rows(st.card_tops), mid_count=rows(st.mid_count),
            card_count=rows(st.card_count), remaining=rows(st.remaining), emptier=rows(st.emptier),
            turns=rows(st.turns), stacks=stacks, removed=REMOVED[P],
            setup=bool(len(idx)) and bool((st.kind[idx] == Decision.SETUP).all()))

    def option_text(self, kind: int, opt: int) -> str:
        """An ACT code as the action it stands for (``option 33 (Study stack 1)``, ``option 0 (pass)``)."""
        if kind != Decision.ACT or opt < 0:
            return f"option {opt}"
        k, a = divmod(opt, OPTION_STRIDE)
        if opt == PASS_OPTION:
            return "option 0 (pass)"
        if k in (STUDY, TRAIN):
            return f"option {opt} ({'Study' if k == STUDY else 'Train'} stack {a})"
        if k == TEST and a < len(COLOURS):
            return f"option {opt} (Test {COLOURS[a]})"
        return f"option {opt}"

    def encode(self, kind: int, result: Any, st: SenshiState, idx: np.ndarray) -> np.ndarray:
        """Option codes from a numpy strategy's answers: the stack at SETUP; at ACT the (kind, arg) pair as
        :func:`action_option`; a kind or an argument out of range is an illegal answer that names it."""
        name = self.decisions[kind]
        if kind == Decision.SETUP:
            return answer_integers(result, name)
        k, a = answer_parts(result, 2, name, "(kind, argument)")
        ok = (k >= 0) & (k <= TEST) & (((a >= 0) & (a < OPTION_STRIDE)) | (k == PASS))
        out_of_range(name, "(kind, argument)", (k, a), ok, f"kinds 0..{TEST}, arguments 0..{OPTION_STRIDE - 1}")
        return np.where(k == PASS, PASS_OPTION, k * OPTION_STRIDE + a)

    def legal_options(self, st: SenshiState, idx: np.ndarray) -> list[np.ndarray]:
        """The legal option codes of each game of ``idx`` at its current decision (tests and tools)."""
        idx = np.asarray(idx, dtype=np.int64)
        out = np.zeros((len(idx), MAX_OPTIONS), dtype=np.int64)
        count = np.zeros(len(idx), dtype=np.int64)
        _k_legal(self.state_tuple(st), self.rules_tuple(st), idx, out, count)
        return [out[i, :count[i]].copy() for i in range(len(idx))]

    def sample_hidden(self, st: SenshiState, g: int, seat: int, key: int, n: int) -> dict[str, np.ndarray]:
        """``n`` determinizations of game ``g`` from ``seat``'s view (the search's sampler), drawn with the
        random stream of ``key``: their stack tiles (n, S, 3), top first, -1 where gone, and hands (n, P, 4)."""
        tiles = np.empty((n,) + st.tiles.shape[1:], dtype=np.int8)
        hands = np.empty((n,) + st.hand.shape[1:], dtype=np.int8)
        _k_sample_many(self.state_tuple(st), self.rules_tuple(st), np.int64(g), np.int64(seat),
                       np.array([key], dtype=np.uint64), np.int64(n), tiles, hands)
        return {"tiles": tiles, "hand": hands}

    # ----- results ------------------------------------------------------------------------------
    def outcome(self, st: SenshiState) -> dict[str, np.ndarray]:
        n, P = st.n, st.players
        f = lambda *shape: np.empty((n,) + shape, dtype=np.float64)  # noqa: E731
        score, win, elim, max_pile, hand = f(P), f(P), f(P), f(P), f(P)
        nobody, winning, n_elim, tallest, tie_hand, tie_order = f(), f(), f(), f(), f(), f()
        piles = f(P, NC)
        _k_outcome(st.board, st.hand, st.timeout, np.int64(P), score, win, elim, nobody, winning, n_elim, tallest,
                   tie_hand, tie_order, max_pile, hand, piles)
        out = {
            "score": score, "win": win, "turns": st.turns.astype(np.int64), "timeout": st.timeout.copy(),
            "eliminated": elim, "nobody_eliminated": nobody, "winning_pile": winning,
            "has_winner": (~st.timeout).astype(np.float64), "n_eliminated": n_elim, "tallest_eliminated": tallest,
            "tie_hand": tie_hand, "tie_order": tie_order, "max_pile": max_pile, "hand": hand,
        }
        for c, name in enumerate(COLOURS):
            out[f"pile_{name}"] = piles[:, :, c].copy()
        return out

    # ----- conformance hooks --------------------------------------------------------------------
    def check(self, st: SenshiState) -> None:
        """Invariants that hold at every decision point (set-up included) of every begun game."""
        began = st.kind >= 0
        if not began.all():
            st = take(st, np.flatnonzero(began), st.n)
        P = st.players
        n, S = st.loc.shape
        assert ((st.kind == Decision.SETUP) | (st.kind == Decision.ACT)).all(), "every game is at a decision"
        assert S == STACKS[P] and st.tiles.shape == (n, S, 3)
        h = st.height.astype(np.int64)
        assert ((h >= 0) & (h <= 3)).all()
        pos = np.arange(3)[None, None, :]
        present = pos >= (3 - h)[:, :, None]
        per = np.stack([(present & (st.tiles == c)).sum(axis=(1, 2)) for c in range(NC)], axis=1)
        total = per + st.hand.sum(axis=1) + st.piles.sum(axis=1) + REMOVED[P]
        assert (total == PER_COLOUR).all(), "tiles not conserved"
        assert (per.sum(axis=1) + st.hand.sum(axis=(1, 2)) + st.piles.sum(axis=(1, 2)) + NC * REMOVED[P] == 72).all()
        assert (st.hand_size == st.hand.sum(axis=2)).all(), "hand sizes out of step"
        for p in range(P):
            for c in range(NC):
                assert (st.card_tops[:, p, c] == ((st.loc == p) & (st.top == c)).sum(axis=1)).all(), "card tops"
        assert (st.hand >= 0).all() and (st.known >= 0).all() and (st.known <= st.hand).all()
        assert ((st.loc == GONE) == (h == 0)).all(), "gone stacks and empty stacks differ"
        exp_top = np.where(h > 0, np.take_along_axis(st.tiles, np.clip(3 - h, 0, 2)[:, :, None], 2)[:, :, 0], -1)
        assert (st.top == exp_top).all(), "top out of step"
        assert (st.mid_count == (st.loc == MIDDLE).sum(axis=1)).all()
        rows = np.arange(n)[:, None]
        for p in range(P):
            cc = (st.loc == p).sum(axis=1)
            assert (st.card_count[:, p] == cc).all() and (cc <= MAX_CARD).all()
            slot = st.cards[:, p].astype(np.int64)
            used = np.arange(MAX_CARD)[None, :] < cc[:, None]
            assert ((slot >= 0) == used).all(), "card slots not packed"
            assert (st.loc[rows, np.maximum(slot, 0)][used] == p).all(), "card slots and locations differ"
        assert ((st.remaining >= -1) & (st.remaining <= P)).all()
        trig = st.remaining >= 0
        assert (st.mid_count[trig] == 0).all() and ((st.emptier >= 0) == trig).all()
        assert (st.done[~st.timeout] == (st.remaining[~st.timeout] == 0)).all()
        act = st.kind == Decision.ACT
        assert (st.cur[act] == st.turns[act] % P).all(), "the seat to play"
        setup = ~act
        assert not (setup & (st.rules.secret_hand | st.done)).any(), "a set-up decision without set-up"
        assert (st.turns[setup] == 0).all() and ((st.cur >= 0) & (st.cur < P)).all()
        # at set-up, the seats before ``cur`` have taken their stack, the others nothing yet
        took = np.arange(P)[None, :] < st.cur[:, None]
        assert (st.hand_size[setup] == np.where(took[setup], 3, 0)).all(), "set-up hands"
        assert (st.mid_count[setup] == S - st.cur[setup]).all() and (st.piles[setup] == 0).all()


    def observe_all(self, st: SenshiState, idx: np.ndarray, seat) -> dict[str, np.ndarray]:
        idx = np.asarray(idx)
        me = np.broadcast_to(np.asarray(seat, dtype=np.int64), idx.shape)
        obs = self.observe(st, idx, me)
        out = {f.name: np.asarray(getattr(obs, f.name)) for f in dataclasses.fields(obs)
               if getattr(obs, f.name) is not None}
        out["visible"] = obs.visible
        out["unseen"] = obs.unseen
        out["kind"] = st.kind[idx]
        out["cur"] = st.cur[idx]
        # and what the compiled view of the seat holds (its ``stacks`` is the raw tile array with open_stacks)
        m = len(idx)
        board = np.empty((m, BOARD_WIDTH), dtype=np.int8)
        hand = np.empty((m, NC), dtype=np.int8)
        stacks = np.full((m, st.tiles.shape[1], 3), -1, dtype=np.int8)
        _k_view(self.state_tuple(st), self.rules_tuple(st), idx.astype(np.int64), np.int64(seat), board, hand,
                stacks)
        out["view_board"], out["view_hand"], out["view_stacks"] = board, hand, stacks
        return out

    def scramble_hidden(self, st: SenshiState, seat: int, draws) -> SenshiState:
        """Permute, per game, every tile ``seat`` cannot see: the unknown parts of opponents' hands and,
        unless ``open_stacks``, the buried tiles of the stacks. Wherever else a hidden hand tile could be
        seen, it is re-dealt too: with ``secret_hand``, an opponent's stack row that still holds its dealt
        hand (the engine clears those rows, but a view showing them must be caught) is rewritten as the
        scrambled hand's unknown part plus the dealt tiles already shown."""
        new = st.copy()
        n, S = st.loc.shape
        P = st.players
        h = st.height.astype(np.int64)
        pos = np.arange(3)[None, None, :]
        buried = (pos > (3 - h)[:, :, None]) if not st.rules.open_stacks else np.zeros((n, S, 3), bool)
        unknown = (st.hand - st.known).astype(np.int64)
        unknown[:, seat] = 0
        K = 3   # the unknown part of a hand comes from set-up only: at most 3 tiles
        assert (unknown.sum(axis=2) <= K).all()
        slots = np.full((n, P, K), -1, dtype=np.int64)
        filled = np.zeros((n, P), dtype=np.int64)
        for c in range(NC):
            for j in range(K):
                gi, pi = np.nonzero(unknown[:, :, c] > j)
                slots[gi, pi, filled[gi, pi]] = c
                filled[gi, pi] += 1
        vals = np.concatenate([st.tiles.reshape(n, -1).astype(np.int64), slots.reshape(n, -1)], axis=1)
        hidden = np.concatenate([buried.reshape(n, -1), (slots >= 0).reshape(n, -1)], axis=1)
        r = draws.random(np.arange(n), vals.shape[1])
        a = np.argsort(~hidden, axis=1, kind="stable")
        b = np.argsort(np.where(hidden, r, 2.0), axis=1, kind="stable")
        cnt = hidden.sum(axis=1)
        new_vals = vals.copy()
        rows = np.repeat(np.arange(n), vals.shape[1]).reshape(n, -1)
        use = np.arange(vals.shape[1])[None, :] < cnt[:, None]
        new_vals[rows[use], a[use]] = vals[rows[use], b[use]]
        new.tiles = new_vals[:, :S * 3].reshape(n, S, 3).astype(np.int8)
        new_slots = new_vals[:, S * 3:].reshape(n, P, K)
        for p in range(P):
            if p == seat:
                continue
            for c in range(NC):
                new.hand[:, p, c] = new.known[:, p, c] + (new_slots[:, p] == c).sum(axis=1)
            if st.rules.secret_hand:
                # the unknown part of a secret hand is part of what was dealt in row p: the rest of the row
                # was shown when played; a row that holds the dealt hand gets the new unknown part
                holds = (st.tiles[:, p] >= 0).all(axis=1)
                counts = np.stack([(st.tiles[:, p] == c).sum(axis=1) - unknown[:, p, c]
                                   + (new_slots[:, p] == c).sum(axis=1) for c in range(NC)], axis=1)
                counts = np.maximum(counts, 0)
                row = np.full((n, 3), -1, dtype=np.int64)
                for j in range(3):
                    left = np.cumsum(counts, axis=1) > j    # the j-th tile of the row, colour by colour
                    row[:, j] = np.where(left.any(axis=1), np.argmax(left, axis=1), -1)
                new.tiles[holds, p] = row[holds]
        hh = new.height.astype(np.int64)
        new.top[:] = np.where(hh > 0, np.take_along_axis(new.tiles, np.clip(3 - hh, 0, 2)[:, :, None], 2)[:, :, 0],
                              -1)
        return new
