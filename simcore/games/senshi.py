"""Senshi: build four scoring piles; the shortest pile is eliminated, the tallest surviving pile wins.

Rules in brief (``rules/senshi.md``)
------------------------------------
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

Array layout (first axis = game, ``n`` games, ``P`` players, ``S`` = 16 / 20 / 24 stack slots)
-------------------------------------------------------------------------------------------------
* ``tiles`` int8 (n, S, 3): colours of each stack as formed at set-up, **top first**; a stack of height
  h holds ``tiles[:, s, 3-h:]`` and its top is ``tiles[:, s, 3-h]``.
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
* ``cur`` int8 (n,): seat to play; ``remaining`` int8 (n,): final turns still to play (-1 before the
  middle empties); ``emptier`` int8 (n,): seat that emptied the middle (-1 before).
* ``mid_count`` (n,) and ``card_count`` (n, P): stacks in the middle and on each card (kept in step).
* ``done``, ``turns``, ``timeout``: the shared game-loop fields.

Scripted deals: ``new_state(keys, players, rules, deal=...)`` takes ``deal`` int (n, S, 3) colours top
first in set-up order (with ``secret_hand`` the first P stacks are the players' hands), instead of the
shuffle; tests may also overwrite state arrays after ``new_state`` (keep the "kept in step" arrays
consistent: :meth:`Senshi.check` verifies them).

Randomness: one shuffle per game (Fisher-Yates driven by ``simcore.rng.uniforms`` on the deal stream);
nothing else in the engine is random.

Outcome columns (per game): ``score`` is each seat's **smallest pile** (the figure that decides
elimination); ``eliminated`` per seat, ``nobody_eliminated``, ``winning_pile`` (the winner's largest pile)
and ``has_winner`` feed the contract metrics; also ``n_eliminated``, ``tallest_eliminated`` (a holder of
the table's tallest pile was eliminated), ``tie_hand`` / ``tie_order`` (which tie-break decided),
``max_pile``, ``hand`` and the four piles per seat (``pile_strength`` ... ``pile_wisdom``).

Speed: the turn (validation and effects) is one numba kernel looping over the games of the batch; the
observation is a handful of row copies (``np.take``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import Any, ClassVar

import numba
import numpy as np

from ..game import Game, Metric, Seats, illegal
from ..options import Rules, option
from ..rng import STREAM_DEAL, stream_keys, uniforms

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


@dataclass(frozen=True)
class SenshiRules(Rules):
    """The options of ``rules/senshi.md``; they combine freely (``secret_hand`` is allowed with 2 players)."""
    secret_hand: bool = option(False, "starting hands are 3 random tiles drawn before the stacks are formed "
                                      "(the rulebook's variant) instead of a chosen middle stack")
    open_stacks: bool = option(False, "every tile of every stack is visible to all (false: only the tops)")


class Player:
    """The decisions a Senshi strategy makes (vectorized: one row of ``obs`` per game).

    * ``setup_take(obs, rng) -> stack``: set-up, the middle stack to take into hand (int (m,), a stack
      index with ``obs.loc == MIDDLE``). Asked in seat order; not asked with ``secret_hand``.
    * ``act(obs, rng) -> (kind, arg)``: one turn. ``kind`` a :class:`Kind` code; ``arg`` the stack
      index for STUDY/TRAIN, the colour for TEST, ignored for PASS (which is legal only when nothing else
      is, see ``obs.must_pass``).

    ``obs`` is an :class:`Observation`; its legal masks (``can_study``, ``can_train``, ``can_test``) say
    what the engine accepts.
    """

    def setup_take(self, obs: "Observation", rng) -> np.ndarray:  # pragma: no cover - interface
        """The middle stack to take into hand at set-up, per observed game."""

    def act(self, obs: "Observation", rng) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
        """(action kind, target) per observed game."""


@dataclass
class SenshiState:
    players: int
    rules: SenshiRules
    tiles: np.ndarray
    height: np.ndarray
    top: np.ndarray
    loc: np.ndarray
    cards: np.ndarray
    hand: np.ndarray
    hand_size: np.ndarray
    known: np.ndarray
    piles: np.ndarray
    card_tops: np.ndarray
    cur: np.ndarray
    remaining: np.ndarray
    emptier: np.ndarray
    mid_count: np.ndarray
    card_count: np.ndarray
    done: np.ndarray
    turns: np.ndarray
    timeout: np.ndarray

    @property
    def n(self) -> int:
        return len(self.done)

    def copy(self) -> "SenshiState":
        return dataclasses.replace(self, **{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)
                                            if isinstance(getattr(self, f.name), np.ndarray)})


@dataclass
class Observation:
    """What seat ``me`` knows in each of m games (all arrays have m rows; seats are absolute).

    Public: ``piles`` (m,P,4), ``hand_size`` (m,P), ``known`` (m,P,4) (the publicly known part of every
    hand), ``loc``, ``height``, ``top`` (m,S) of every stack, ``cards`` (m,P,3) the stacks on each card in
    placement order (-1 free), ``card_tops`` (m,P,4) (how many card
    stacks of each player show each colour on top), ``mid_count``, ``card_count`` (m,P), ``remaining``
    (final turns left, -1 before the end is triggered), ``emptier``, ``turns``; ``stacks`` (m,S,3) every
    stack tile (top first, -1 gone) only when ``open_stacks`` (else None: only ``top`` is visible, see
    :attr:`visible`). Private: ``hand`` (m,4), this seat's own hand. Small integer dtypes: cast before
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
        """(m,S) Study targets: middle stacks, while fewer than 3 stacks are on the card (not at set-up)."""
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
    def opp_tops_max(self) -> np.ndarray:
        """(m,4) the largest number of matching card tops among opponents, per colour."""
        t = np.where(self.opp_mask[:, :, None], self.card_tops, 0)
        return t.max(axis=1).astype(np.int64)

    @cached_property
    def gain(self) -> np.ndarray:
        """(m,4) the reference gain: 1 + my matching tops - the most matching tops of any opponent."""
        return 1 + self.my_tops - self.opp_tops_max

    @cached_property
    def my_piles(self) -> np.ndarray:
        return self.piles[np.arange(len(self.me)), self.me].astype(np.int64)

    @cached_property
    def my_min(self) -> np.ndarray:
        """(m,) my smallest pile."""
        return self.my_piles.min(axis=1)

    @cached_property
    def opp_low_min(self) -> np.ndarray:
        """(m,) the lowest smallest pile among opponents (the bar I must stay above to avoid elimination)."""
        mins = self.piles.min(axis=2).astype(np.int64)
        return np.where(self.opp_mask, mins, 1 << 20).min(axis=1)

    @cached_property
    def opp_top_pile(self) -> np.ndarray:
        """(m,) the tallest pile of any opponent."""
        tall = self.piles.max(axis=2).astype(np.int64)
        return np.where(self.opp_mask, tall, -1).max(axis=1)

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
# the turn kernel (numba, a loop over the games of a batch): validate every action, then apply them

_ERRORS = {1: "unknown action kind", 2: "no such stack", 3: "no such colour",
           4: "Study of a stack not in the middle", 5: "Study with three stacks on the Training Card",
           6: "Train from a stack no longer on the table", 7: "Test of a colour not in hand",
           8: "pass with a legal action"}


@numba.njit(cache=True)
def _shuffled(deck, u):
    """One Fisher-Yates shuffle of ``deck`` per row of uniforms ``u`` (n, len(deck))."""
    n, L = u.shape
    out = np.empty((n, L), dtype=deck.dtype)
    for g in range(n):
        for j in range(L):
            out[g, j] = deck[j]
        for j in range(L - 1, 0, -1):
            k = int(u[g, j] * (j + 1))
            t = out[g, j]
            out[g, j] = out[g, k]
            out[g, k] = t
    return out


@numba.njit(cache=True)
def _apply_turn(idx, actor, kind, arg, tiles, height, top, loc, cards, hand, hand_size, known, piles, card_tops,
                mid_count, card_count, turns, remaining, emptier, cur, done, P):
    """Validate and apply one action per game; returns an error code per game (0 = legal).

    (Written out without helper functions: an inlined helper for "remove a top tile" ran several times
    slower.)

    Each game is validated before its action is applied; the caller raises on the first error (the batch
    is then abandoned)."""
    m = len(idx)
    S = loc.shape[1]
    err = np.zeros(m, dtype=np.int8)
    for i in range(m):
        g, a, k, x = idx[i], actor[i], kind[i], arg[i]
        e = 0
        if k == 1 or k == 2:
            if x < 0 or x >= S:
                e = 2
            elif k == 1 and loc[g, x] != MIDDLE:
                e = 4
            elif k == 1 and card_count[g, a] >= 3:
                e = 5
            elif k == 2 and loc[g, x] < MIDDLE:
                e = 6
        elif k == 3:
            if x < 0 or x >= 4:
                e = 3
            elif hand[g, a, x] <= 0:
                e = 7
        elif k == 0:
            if mid_count[g] > 0 or hand_size[g, a] > 0:
                e = 8
            for p in range(P):
                if card_count[g, p] > 0:
                    e = 8
        else:
            e = 1
        if e:
            err[i] = e
            return err
        if k == 1:
            loc[g, x] = a
            cards[g, a, card_count[g, a]] = x
            mid_count[g] -= 1
            card_count[g, a] += 1
            card_tops[g, a, top[g, x]] += 1
        elif k == 2:
            c = top[g, x]
            hand[g, a, c] += 1
            hand_size[g, a] += 1
            known[g, a, c] += 1
            o = loc[g, x]
            h = height[g, x] - 1
            height[g, x] = h
            if o >= 0:
                card_tops[g, o, c] -= 1
            if h > 0:
                t = tiles[g, x, 3 - h]
                top[g, x] = t
                if o >= 0:
                    card_tops[g, o, t] += 1
            else:
                top[g, x] = -1
                loc[g, x] = GONE
                if o < 0:
                    mid_count[g] -= 1
                else:
                    cc = card_count[g, o]
                    jj = 0
                    for j in range(cc):
                        if cards[g, o, j] != x:
                            cards[g, o, jj] = cards[g, o, j]
                            jj += 1
                    cards[g, o, cc - 1] = -1
                    card_count[g, o] = cc - 1
        elif k == 3:
            hand[g, a, x] -= 1
            hand_size[g, a] -= 1
            if known[g, a, x] > 0:
                known[g, a, x] -= 1
            piles[g, a, x] += 1
            for p in range(P):
                if card_tops[g, p, x] > 0:
                    for j in range(card_count[g, p] - 1, -1, -1):   # backwards: a removal shifts only later slots
                        s = cards[g, p, j]
                        if top[g, s] == x:
                            piles[g, p, x] += 1
                            h = height[g, s] - 1
                            height[g, s] = h
                            card_tops[g, p, x] -= 1
                            if h > 0:
                                t = tiles[g, s, 3 - h]
                                top[g, s] = t
                                card_tops[g, p, t] += 1
                            else:
                                top[g, s] = -1
                                loc[g, s] = GONE
                                cc = card_count[g, p]
                                for jj in range(j, cc - 1):
                                    cards[g, p, jj] = cards[g, p, jj + 1]
                                cards[g, p, cc - 1] = -1
                                card_count[g, p] = cc - 1

        turns[g] += 1
        r = remaining[g]
        if r > 0:
            remaining[g] = r - 1
            if r == 1:
                done[g] = True
        elif r < 0 and mid_count[g] == 0:
            remaining[g] = P
            emptier[g] = a
        cur[g] = (a + 1) % P
    return err


class Senshi(Game):
    name: ClassVar[str] = "senshi"
    title: ClassVar[str] = "Senshi"
    summary: ClassVar[str] = ("Study, Train and Test to grow four scoring piles; the shortest is eliminated, "
                              "the tallest surviving pile wins.")
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    default_players: ClassVar[int] = 4
    Rules: ClassVar[type] = SenshiRules
    Player: ClassVar[type] = Player
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
        keys = np.asarray(keys)
        n, P, S = len(keys), players, STACKS[players]
        per = PER_COLOUR - REMOVED[players]
        if deal is None:
            deck = np.repeat(np.arange(NC, dtype=np.int8), per)
            u = uniforms(stream_keys(keys, STREAM_DEAL), np.zeros(n, dtype=np.int64), len(deck))
            tiles = _shuffled(deck, u).reshape(n, S, 3)
        else:
            tiles = np.array(np.broadcast_to(np.asarray(deal, dtype=np.int8), (n, S, 3)))
            counts = np.stack([(tiles == c).sum(axis=(1, 2)) for c in range(NC)], axis=1)
            if not (counts == per).all():
                raise ValueError(f"a {P}-player deal holds {per} tiles of each colour")
        st = SenshiState(
            players=P, rules=rules, tiles=tiles,
            height=np.full((n, S), 3, dtype=np.int8), top=tiles[:, :, 0].copy(),
            loc=np.full((n, S), MIDDLE, dtype=np.int8), cards=np.full((n, P, MAX_CARD), -1, dtype=np.int8),
            hand=np.zeros((n, P, NC), dtype=np.int8), hand_size=np.zeros((n, P), dtype=np.int8),
            known=np.zeros((n, P, NC), dtype=np.int8), piles=np.zeros((n, P, NC), dtype=np.int8),
            card_tops=np.zeros((n, P, NC), dtype=np.int8),
            cur=np.zeros(n, dtype=np.int8), remaining=np.full(n, -1, dtype=np.int8),
            emptier=np.full(n, -1, dtype=np.int8),
            mid_count=np.full(n, S, dtype=np.int16), card_count=np.zeros((n, P), dtype=np.int8),
            done=np.zeros(n, dtype=bool), turns=np.zeros(n, dtype=np.int32), timeout=np.zeros(n, dtype=bool))
        if rules.secret_hand:
            all_ = np.arange(n)
            for p in range(P):
                self._to_hand(st, all_, np.full(n, p), np.full(n, p), public=False)
        return st

    def _to_hand(self, st: SenshiState, idx: np.ndarray, seat: np.ndarray, s: np.ndarray, public: bool) -> None:
        """Move whole middle stack ``s`` into ``seat``'s hand (set-up)."""
        for k in range(3):
            c = st.tiles[idx, s, k].astype(np.int64)
            st.hand[idx, seat, c] += 1
            st.hand_size[idx, seat] += 1
            if public and (k == 0 or st.rules.open_stacks):
                st.known[idx, seat, c] += 1
        st.loc[idx, s] = GONE
        st.height[idx, s] = 0
        st.top[idx, s] = -1
        st.mid_count[idx] -= 1

    def setup(self, state: SenshiState, seats: Seats) -> None:
        if state.rules.secret_hand:
            return
        idx = np.arange(state.n)
        for p in range(state.players):
            seat = np.full(state.n, p, dtype=np.int64)
            s = np.asarray(seats.ask("setup_take", idx, seat,
                                     lambda i, a: self.observe(state, i, a, setup=True)), dtype=np.int64)
            S = state.loc.shape[1]
            bad = (s < 0) | (s >= S)
            illegal(seats, "setup_take", seat, bad, "no such stack")
            illegal(seats, "setup_take", seat, state.loc[idx, s] != MIDDLE, "not a middle stack")
            self._to_hand(state, idx, seat, s, public=True)

    # ----- observation --------------------------------------------------------------------------
    def observe(self, st: SenshiState, idx: np.ndarray, me: np.ndarray, setup: bool = False) -> Observation:
        """The observation of seat ``me[i]`` in game ``idx[i]`` (visible information only; copies)."""
        idx = np.asarray(idx, dtype=np.int64)
        me = np.asarray(me, dtype=np.int64)
        P = st.players
        if len(idx) == st.n:   # every game of the batch, in order (np.take is much faster than a[idx])
            rows = lambda a: a.copy()
        else:
            rows = lambda a: np.take(a, idx, axis=0)
        stacks = None
        if st.rules.open_stacks:
            h = rows(st.height).astype(np.int64)
            stacks = np.where(np.arange(3)[None, None, :] >= (3 - h)[:, :, None], rows(st.tiles), -1).astype(np.int8)
        return Observation(
            players=P, me=me, hand=st.hand[idx, me], hand_size=rows(st.hand_size), known=rows(st.known),
            piles=rows(st.piles), loc=rows(st.loc), height=rows(st.height), top=rows(st.top),
            cards=rows(st.cards), card_tops=rows(st.card_tops), mid_count=rows(st.mid_count),
            card_count=rows(st.card_count), remaining=rows(st.remaining), emptier=rows(st.emptier),
            turns=rows(st.turns), stacks=stacks, removed=REMOVED[P], setup=setup)

    # ----- one turn -----------------------------------------------------------------------------
    def turn(self, st: SenshiState, idx: np.ndarray, seats: Seats) -> None:
        idx = np.asarray(idx, dtype=np.int64)
        actor = np.take(st.cur, idx).astype(np.int64)
        kind, arg = seats.ask("act", idx, actor, lambda i, a: self.observe(st, i, a))
        kind = np.asarray(kind, dtype=np.int64)
        arg = np.asarray(arg, dtype=np.int64)
        err = _apply_turn(idx, actor, kind, arg, st.tiles, st.height, st.top, st.loc, st.cards,
                          st.hand, st.hand_size, st.known, st.piles, st.card_tops, st.mid_count, st.card_count,
                          st.turns, st.remaining, st.emptier, st.cur, st.done, st.players)
        if err.any():
            code = int(err[np.flatnonzero(err)[0]])
            illegal(seats, "act", actor, err == code, _ERRORS[code])

    # ----- results ------------------------------------------------------------------------------
    def outcome(self, st: SenshiState) -> dict[str, np.ndarray]:
        n, P = st.n, st.players
        piles = st.piles.astype(np.int64)
        hand_size = st.hand.sum(axis=2).astype(np.int64)
        res = winners(piles, hand_size, np.maximum(st.emptier, 0))
        ok = ~st.timeout
        win = np.zeros((n, P))
        win[np.arange(n)[ok], res["winner"][ok]] = 1.0
        maxp = piles.max(axis=2)
        elim = res["eliminated"] & ok[:, None]
        tallest = (maxp == maxp.max(axis=1, keepdims=True))
        out = {
            "score": piles.min(axis=2).astype(np.float64),
            "win": win,
            "turns": st.turns.astype(np.int64),
            "timeout": st.timeout.copy(),
            "eliminated": elim.astype(np.float64),
            "nobody_eliminated": (res["nobody"] & ok).astype(np.float64),
            "winning_pile": np.where(ok, maxp[np.arange(n), res["winner"]], 0).astype(np.float64),
            "has_winner": ok.astype(np.float64),
            "n_eliminated": elim.sum(axis=1).astype(np.float64),
            "tallest_eliminated": (tallest & elim).any(axis=1).astype(np.float64),
            "tie_hand": (res["by_hand"] & ok).astype(np.float64),
            "tie_order": (res["by_order"] & ok).astype(np.float64),
            "max_pile": maxp.astype(np.float64),
            "hand": hand_size.astype(np.float64),
        }
        for c, name in enumerate(COLOURS):
            out[f"pile_{name}"] = piles[:, :, c].astype(np.float64)
        return out

    # ----- conformance hooks --------------------------------------------------------------------
    def check(self, st: SenshiState) -> None:
        P = st.players
        n, S = st.loc.shape
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
        assert (st.cur == st.turns % P).all()

    def observe_all(self, st: SenshiState, idx: np.ndarray, seat) -> dict[str, np.ndarray]:
        idx = np.asarray(idx)
        me = np.broadcast_to(np.asarray(seat, dtype=np.int64), idx.shape)
        obs = self.observe(st, idx, me)
        out = {f.name: np.asarray(getattr(obs, f.name)) for f in dataclasses.fields(obs)
               if getattr(obs, f.name) is not None}
        out["visible"] = obs.visible
        out["unseen"] = obs.unseen
        return out

    def scramble_hidden(self, st: SenshiState, seat: int, draws) -> SenshiState:
        """Permute, per game, every tile ``seat`` cannot see: the unknown parts of opponents' hands and,
        unless ``open_stacks``, the buried tiles of the stacks."""
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
        hh = new.height.astype(np.int64)
        new.top = np.where(hh > 0, np.take_along_axis(new.tiles, np.clip(3 - hh, 0, 2)[:, :, None], 2)[:, :, 0],
                           -1).astype(np.int8)
        return new
