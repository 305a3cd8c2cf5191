"""Sensu strategies: the reference policy ``random`` and heuristics (see ``simcore.games.sensu.Player``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np

from simcore.games.sensu import (CARD_TYPE, CARD_VALUE, CARD_WILD, POLICY_FOCUS, POLICY_PLANNER, POLICY_RANDOM,
                                 POLICY_REDEEMER, SLOTS, SUBSET_SIZE, Action, _eval_combo, _potential_one, arrange_by,
                                 choose_rows, combos_of)

from .base import Strategy, param


def _choose_per_seat(u: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Uniform choice along the last axis of ``ok`` (m, P, k) given uniforms ``u`` (m, P); -1 where none."""
    count = ok.sum(axis=-1)
    k = np.minimum((u * count).astype(np.int64), np.maximum(count - 1, 0))
    pos = np.argmax(np.cumsum(ok, axis=-1) > k[..., None], axis=-1)
    return np.where(count > 0, pos, -1)


def _pass_or(src: np.ndarray) -> np.ndarray:
    """Source index -> turn code (PASS where no source)."""
    return np.where(src >= 0, src, Action.PASS)


@dataclass(frozen=True)
class Random(Strategy):
    """Reference policy ``random`` of rules/sensu.md (multiplayer and solo), exactly as written.

    Plays a uniformly chosen combination with probability 1/2 when it holds one, otherwise draws from a
    uniformly chosen source and discards uniformly; redeeming ties, discard order and power choices are
    uniform; redeemed cards are built in descending sticks order (ties in redeeming order).
    """
    name: ClassVar[str] = "random"
    game: ClassVar[str] = "sensu"
    #: compiled form: ``simcore.games.sensu._k_play`` (every decision point, multiplayer and solo)
    compiled_code: ClassVar[int] = POLICY_RANDOM

    def turn(self, obs, rng):
        u = rng.random(2)
        has = obs.combos.any(axis=1)
        play = has & (u[:, 0] < 0.5)
        combo = _choose_rows(u[:, 1], obs.combos)
        src = _choose_rows(u[:, 1], obs.sources)
        return np.where(play, Action.PLAY + combo, _pass_or(src))

    def discard(self, obs, rng):
        return rng.integers(obs.hand_n)

    def arrange(self, obs, rng):
        u = rng.random(2 * SLOTS)
        return arrange_by(obs, redeem_pref=u[:, :SLOTS], discard_key=u[:, SLOTS:])

    def wisdom(self, obs, rng):
        return rng.choose(obs.sources)

    def harmony(self, obs, rng):
        return rng.choose(obs.harmony_ok)

    def courage(self, obs, rng):
        return _choose_per_seat(rng.random(obs.players), obs.courage_ok)

    def solo_turn(self, obs, rng):
        u = rng.random(2)
        has = obs.combos.any(axis=1)
        play = has & ((u[:, 0] < 0.5) | (obs.deck_n == 0))
        combo = _choose_rows(u[:, 1], obs.combos)
        return np.where(play, Action.PLAY + combo, Action.DRAW)

    def place(self, obs, rng):
        return rng.integers(5)


_choose_rows = choose_rows


# ----------------------------------------------------------------------------------------------------
# Heuristics: scoring kernels
# ----------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _k_score(cards, combos, fs, cl, chosen, ST, TYPE, VAL, WCL, w, close_bonus, win_bonus, out):
    """Value of every combination (m, 64) (-inf where not a combination)."""
    order = np.empty(SLOTS, np.int64)
    ib = np.zeros(40, np.int64)
    for i in range(cards.shape[0]):
        ncl = 0
        for t in range(3):
            ncl += cl[i, t]
        for m in range(64):
            if combos[i, m]:
                out[i, m] = _eval_combo(cards[i], m, fs[i], cl[i], chosen[i], ST, TYPE, VAL, WCL, w[i],
                                        close_bonus, win_bonus, ncl, order, ib)
            else:
                out[i, m] = -np.inf


@numba.njit(cache=True)
def _k_arrange(cards, mask, fs, cl, chosen, ST, TYPE, VAL, WCL, w, close_bonus, win_bonus, out):
    ib = np.zeros(40, np.int64)
    for i in range(cards.shape[0]):
        ncl = 0
        for t in range(3):
            ncl += cl[i, t]
        _eval_combo(cards[i], mask[i], fs[i], cl[i], chosen[i], ST, TYPE, VAL, WCL, w[i], close_bonus,
                    win_bonus, ncl, out[i], ib)


@numba.njit(cache=True)
def _k_potential(cards, fs, cl, ST, TYPE, VAL, WCL, w, out):
    """How close each row of slot cards (m, 6) is to combinations (``simcore.games.sensu._potential_one``)."""
    for i in range(cards.shape[0]):
        out[i] = _potential_one(cards[i], fs[i], cl[i], ST, TYPE, VAL, WCL, w[i])


def _own(obs):
    r = np.arange(len(obs))
    fs = obs.fan_sticks[r, obs.seat]
    cl = obs.closed[r, obs.seat]
    ch = obs.chosen[r, obs.seat] if obs.chosen_fan else np.full(len(obs), -1, np.int64)
    return fs, cl, ch.astype(np.int64)


def _cards64(cards):
    return np.ascontiguousarray(cards, dtype=np.int64)


@dataclass(frozen=True)
class _Heuristic(Strategy):
    """Shared machinery: combination values, smart arranging, powers, and a solo column planner."""
    close_bonus: float = param(6.0, "value of closing a fan, in sticks", min=0.0)
    play_min: float = param(0.0, "play the best combination only when its value is at least this", min=-1.0)

    def weights(self, obs) -> np.ndarray:
        """Value per stick placed on each own fan type (m, 3)."""
        return np.ones((len(obs), 3))

    def combo_values(self, obs, cards=None, combos=None) -> np.ndarray:
        fs, cl, ch = _own(obs)
        cards = obs.cards if cards is None else cards
        combos = obs.combos if combos is None else combos
        out = np.empty((len(cards), 64))
        _k_score(_cards64(cards), np.ascontiguousarray(combos), fs, cl, ch, obs.sticks, CARD_TYPE, CARD_VALUE,
                 CARD_WILD, self.weights(obs), self.close_bonus, 100.0, out)
        return out

    def best_play(self, obs):
        vals = self.combo_values(obs)
        best = np.argmax(vals, axis=1)
        return best, vals[np.arange(len(obs)), best]

    def arrange(self, obs, rng):
        fs, cl, ch = _own(obs)
        out = np.empty((len(obs), SLOTS), np.int64)
        _k_arrange(_cards64(obs.cards), obs.combo.astype(np.int64), fs, cl, ch, obs.sticks, CARD_TYPE,
                   CARD_VALUE, CARD_WILD, self.weights(obs), self.close_bonus, 100.0, out)
        return out

    def potential(self, obs, cards) -> np.ndarray:
        fs, cl, _ = _own(obs)
        out = np.empty(len(cards))
        _k_potential(_cards64(cards), fs, cl, obs.sticks, CARD_TYPE, CARD_VALUE, CARD_WILD, self.weights(obs), out)
        return out

    # ----- multiplayer -----
    def turn(self, obs, rng):
        best, val = self.best_play(obs)
        play = obs.combos.any(axis=1) & (val >= self.play_min)
        src = self.draw_source(obs)
        return np.where(play, Action.PLAY + best, src)

    def draw_source(self, obs) -> np.ndarray:
        """Take a pile top that completes a combination worth more than ``pile_min``; else the deck."""
        m = len(obs)
        P = obs.players
        r = np.arange(m)
        best_val = np.full(m, -np.inf)
        best_src = np.where(obs.sources[:, 0], 0, -1)
        tops = obs.pile_top.astype(np.int64)
        n = obs.hand_n
        for q in range(P):
            ok = obs.sources[:, 1 + q] & (n < SLOTS)
            if not ok.any():
                continue
            cards = obs.cards.copy()
            cards[r[ok], n[ok]] = tops[ok, q]
            combos = combos_of(cards)
            # combinations with the drawn card that survive the discard back to 5 cards
            with_it = combos & ((np.arange(64)[None, :] >> np.minimum(n, SLOTS - 1)[:, None]) & 1).astype(bool)
            with_it &= (SUBSET_SIZE[None, :] <= 5)
            vals = np.where(with_it, self.combo_values(obs, cards, with_it), -np.inf).max(axis=1)
            vals = np.where(ok, vals + self.pile_bias(obs, q), -np.inf)
            better = vals > np.maximum(best_val, self.pile_min)
            best_val = np.where(better, vals, best_val)
            best_src = np.where(better, 1 + q, best_src)
        # no deck: any non-empty pile
        none = best_src < 0
        if none.any():
            best_src[none] = choose_rows(np.zeros(none.sum()), obs.sources[none])
        return np.where(best_src >= 0, best_src, Action.PASS)

    pile_min: ClassVar[float] = 0.0

    def pile_bias(self, obs, q) -> np.ndarray:
        return np.zeros(len(obs))

    def discard(self, obs, rng):
        """Keep the five cards with the best combinations and near-combinations."""
        m = len(obs)
        n = obs.hand_n
        hand = obs.hand.astype(np.int64)
        score = np.full((m, 8), -np.inf)
        for s in range(8):
            ok = s < n
            if not ok.any():
                continue
            rest = np.delete(hand, s, axis=1)
            rest = np.concatenate([rest, np.full((m, 1), -1)], axis=1)[:, :SLOTS]
            combos = combos_of(rest)
            vals = np.where(combos, self.combo_values(obs, rest, combos), -np.inf).max(axis=1)
            vals = np.where(np.isfinite(vals), vals + 5.0, 0.0)
            sc = vals + self.keep_weight * self.potential(obs, rest) - self.feed(obs, hand[:, s])
            score[:, s] = np.where(ok, sc, -np.inf)
        return np.argmax(score, axis=1)

    keep_weight: ClassVar[float] = 0.3

    def feed(self, obs, card) -> np.ndarray:
        """Penalty for putting ``card`` on top of the own pile."""
        return np.zeros(len(obs))

    # ----- powers -----
    def wisdom(self, obs, rng):
        src = self.draw_source(obs)
        return np.where(src == Action.PASS, choose_rows(np.zeros(len(obs)), obs.sources), src)

    def harmony(self, obs, rng):
        tops = obs.pile_top.astype(np.int64)
        st = np.where(obs.harmony_ok, obs.sticks[tops] + 10.0 * obs.closes(tops), -np.inf)
        return np.argmax(st, axis=1)

    def courage(self, obs, rng):
        # strip the fan nearest to closing
        score = np.where(obs.courage_ok, obs.fan_sticks, -1)
        best = np.argmax(score, axis=2)
        return np.where(obs.courage_ok.any(axis=2), best, -1)

    # ----- solo -----
    def solo_turn(self, obs, rng):
        best, val = self.best_play(obs)
        has = obs.combos.any(axis=1)
        play = has & ((val >= self.solo_min) | (obs.deck_n == 0))
        return np.where(play, Action.PLAY + best, Action.DRAW)

    solo_min: ClassVar[float] = 0.0

    def place(self, obs, rng):
        """Put the drawn card where the exposed cards then hold the most valuable combination; otherwise
        on the column that keeps the best near-combinations, avoiding covering useful cards."""
        m = len(obs)
        card = obs.card.astype(np.int64)
        base = obs.cards.astype(np.int64)
        score = np.empty((m, 5))
        for q in range(5):
            cards = base.copy()
            cards[:, q] = card
            combos = combos_of(cards, 3)
            vals = np.where(combos, self.combo_values(obs, cards, combos), -np.inf).max(axis=1)
            vals = np.where(np.isfinite(vals), vals + 10.0, 0.0)
            score[:, q] = vals + 0.3 * self.potential(obs, cards)
        # the pile keeps only its top usable; prefer columns on ties
        score[:, 0] -= 0.01
        return np.argmax(score, axis=1)


@dataclass(frozen=True)
class Redeemer(_Heuristic):
    """Greedy: play the combination that places the most sticks and closes fans soonest (every legal
    redeemed set and build order is tried); draw a pile top only when it completes such a combination."""
    name: ClassVar[str] = "redeemer"
    game: ClassVar[str] = "sensu"
    #: compiled form: ``simcore.games.sensu._k_play`` with parameters (close_bonus, play_min)
    compiled_code: ClassVar[int] = POLICY_REDEEMER
    close_bonus: float = param(6.0, "value of closing a fan, in sticks", min=0.0)
    play_min: float = param(0.0, "play the best combination only when its value is at least this", min=-1.0)

    def compiled_params(self):
        return (self.close_bonus, self.play_min)


@dataclass(frozen=True)
class Planner(_Heuristic):
    """Patient: keeps cards that complete 20 with what it holds, waits for combinations worth
    ``play_min`` sticks, and does not feed the next player (penalises discards that fit their fans)."""
    name: ClassVar[str] = "planner"
    game: ClassVar[str] = "sensu"
    #: compiled form: ``simcore.games.sensu._k_play`` with parameters (close_bonus, play_min, keep, feed_penalty,
    #: impatience)
    compiled_code: ClassVar[int] = POLICY_PLANNER
    close_bonus: float = param(6.0, "value of closing a fan, in sticks", min=0.0)
    play_min: float = param(3.0, "play the best combination only when its value is at least this", min=-1.0)
    keep: float = param(0.5, "weight of near-combinations kept in hand when discarding", min=0.0)
    feed_penalty: float = param(1.0, "penalty per stick of a discard that fits the next player's fans", min=0.0)
    impatience: float = param(0.1, "chance per turn of playing a combination worth less than play_min",
                              min=0.0, max=1.0)

    def compiled_params(self):
        return (self.close_bonus, self.play_min, self.keep, self.feed_penalty, self.impatience)

    @property
    def keep_weight(self) -> float:  # type: ignore[override]
        return self.keep

    def turn(self, obs, rng):
        best, val = self.best_play(obs)
        has = obs.combos.any(axis=1)
        # waiting for a better combination costs tempo: play anyway when the deck runs low, or by chance
        anyway = (obs.deck_n < 10) | (rng.random() < self.impatience)
        play = has & ((val >= self.play_min) | anyway)
        src = self.draw_source(obs)
        return np.where(play, Action.PLAY + best, src)

    def feed(self, obs, card):
        nxt = (obs.seat + 1) % obs.players
        fits = obs.fits(card[:, None], nxt)[:, 0]
        return self.feed_penalty * fits * obs.sticks[card]


@dataclass(frozen=True)
class Focus(_Heuristic):
    """Commits to two fan types (the two it has the most sticks in, or ``pair``): sticks on the third
    type count only ``off_weight``; otherwise plays like the redeemer."""
    name: ClassVar[str] = "focus"
    game: ClassVar[str] = "sensu"
    #: compiled form: ``simcore.games.sensu._k_play`` with parameters (close_bonus, play_min, off_weight, the
    #: fan type outside ``pair``, -1 for auto)
    compiled_code: ClassVar[int] = POLICY_FOCUS
    close_bonus: float = param(8.0, "value of closing a fan, in sticks", min=0.0)
    play_min: float = param(0.0, "play the best combination only when its value is at least this", min=-1.0)
    off_weight: float = param(0.3, "value of a stick on the fan type outside the focus", min=0.0, max=1.0)
    pair: str = param("auto", "the two focus types: auto, 01, 02 or 12", choices=("auto", "01", "02", "12"))

    def compiled_params(self):
        off = -1 if self.pair == "auto" else 3 - int(self.pair[0]) - int(self.pair[1])
        return (self.close_bonus, self.play_min, self.off_weight, off)

    def weights(self, obs):
        m = len(obs)
        w = np.full((m, 3), self.off_weight)
        if self.pair != "auto":
            w[:, [int(self.pair[0]), int(self.pair[1])]] = 1.0
            return w
        fs, cl, _ = _own(obs)
        key = fs + 20 * cl - 0.01 * np.arange(3)[None, :]
        off = np.argmin(key, axis=1)
        w[:] = 1.0
        w[np.arange(m), off] = self.off_weight
        return w


STRATEGIES = [Random, Redeemer, Planner, Focus]
