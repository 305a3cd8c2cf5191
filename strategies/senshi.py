"""Senshi strategies: the reference policies ``random`` and ``greedy`` of ``rules/senshi.md``, and heuristics.

Every decision is vectorized over a batch of observations (:class:`simcore.games.senshi.Observation`):
each option is scored, illegal ones masked, the best taken. Actions are ``(kind, arg)`` pairs
(:class:`simcore.games.senshi.Kind`; ``arg`` a stack index for Study/Train, a colour for Test).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numba
import numpy as np

from simcore.games.senshi import MAX_CARD, MIDDLE, NC, STACKS, Kind, Observation

from .base import Strategy, param

BIG = 1 << 20
#: middle stacks after set-up, per player count
STACKS_MIDDLE = {p: s - p for p, s in STACKS.items()}


def _first(mask: np.ndarray) -> np.ndarray:
    """Index of the first True per row (-1 where none)."""
    return np.where(mask.any(axis=1), mask.argmax(axis=1), -1)


def _best(score: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Index of the highest score among True entries per row (ties: lowest index; -1 where none)."""
    s = np.where(mask, score, -np.inf)
    return np.where(mask.any(axis=1), s.argmax(axis=1), -1)


def train_order(obs: Observation) -> np.ndarray:
    """(m,S) the reference order of Train targets: middle by index, then my card, then opponents in turn order."""
    rel = obs.rel
    pos = np.full(obs.loc.shape, MAX_CARD, dtype=np.int64)
    rows = np.arange(len(obs))[:, None]
    for p in range(obs.players):
        for j in range(MAX_CARD):
            s = obs.cards[:, p, j].astype(np.int64)
            ok = s >= 0
            pos[rows[ok, 0], s[ok]] = j
    key = np.where(rel >= 0, (1 + rel) * BIG + pos, np.arange(obs.loc.shape[1])[None, :])
    return np.where(obs.can_train, key, np.iinfo(np.int64).max)


def _combine(m: int, choices: list[tuple[np.ndarray, int, np.ndarray]], obs: Observation):
    """First applicable choice per row, in priority order: (when, kind, arg) triples; pass if none."""
    kind = np.full(m, int(Kind.PASS), dtype=np.int64)
    arg = np.zeros(m, dtype=np.int64)
    left = ~obs.must_pass
    for when, k, a in choices:
        take = left & when
        kind[take] = int(k)
        arg[take] = np.broadcast_to(a, (m,))[take]
        left &= ~take
    return kind, arg


# ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Random(Strategy):
    """Reference policy `random`: a uniform legal action kind, then a uniform target of that kind."""
    name: ClassVar[str] = "random"
    game: ClassVar[str] = "senshi"

    def setup_take(self, obs: Observation, rng) -> np.ndarray:
        return rng.choose(obs.loc == MIDDLE)

    def act(self, obs: Observation, rng):
        kinds = obs.kinds[:, 1:]
        k = rng.choose(kinds) + 1
        k = np.where(obs.must_pass, int(Kind.PASS), k)
        S = obs.loc.shape[1]
        test = np.zeros((len(obs), S), dtype=bool)
        test[:, :NC] = obs.can_test
        mask = np.where((k == Kind.STUDY)[:, None], obs.can_study,
                        np.where((k == Kind.TRAIN)[:, None], obs.can_train, test))
        a = rng.choose(mask)
        return k, np.maximum(a, 0)


@dataclass(frozen=True)
class Greedy(Strategy):
    """Reference policy `greedy` (deterministic): Test when the gain is at least 2, else Study the lowest
    middle stack topped with the colour of the smallest own pile, else Train (hand empty) or Test."""
    name: ClassVar[str] = "greedy"
    game: ClassVar[str] = "senshi"

    def setup_take(self, obs: Observation, rng) -> np.ndarray:
        return _first(obs.loc == MIDDLE)

    def act(self, obs: Observation, rng):
        return _greedy(obs.me, obs.hand, obs.piles, obs.loc, obs.top, obs.cards, obs.card_tops,
                       obs.card_count, obs.players)


@numba.njit(cache=True)
def _greedy(me, hand, piles, loc, top, cards, card_tops, card_count, P):
    """The reference `greedy` decision, one game at a time (a loop kernel for speed)."""
    m = len(me)
    S = loc.shape[1]
    kind = np.zeros(m, np.int64)
    arg = np.zeros(m, np.int64)
    for i in range(m):
        p = me[i]
        has = False
        best_c = -1
        best_g = 0
        for c in range(4):
            if hand[i, c] > 0:
                has = True
                other = 0
                for q in range(P):
                    if q != p and card_tops[i, q, c] > other:
                        other = card_tops[i, q, c]
                g = 1 + card_tops[i, p, c] - other
                if best_c < 0 or g > best_g or (g == best_g and piles[i, p, c] < piles[i, p, best_c]):
                    best_c = c
                    best_g = g
        if has and best_g >= 2:
            kind[i] = 3
            arg[i] = best_c
            continue
        first = -1
        if card_count[i, p] < 3:
            weak = 0
            for c in range(1, 4):
                if piles[i, p, c] < piles[i, p, weak]:
                    weak = c
            st = -1
            for s in range(S):
                if loc[i, s] == MIDDLE:
                    if first < 0:
                        first = s
                    if top[i, s] == weak:
                        st = s
                        break
            if first >= 0:
                kind[i] = 1
                arg[i] = st if st >= 0 else first
                continue
        if has:
            kind[i] = 3
            arg[i] = best_c
            continue
        t = -1
        for s in range(S):
            if loc[i, s] == MIDDLE:
                t = s
                break
        k = 0
        while t < 0 and k < P:
            t = cards[i, (p + k) % P, 0]
            k += 1
        if t >= 0:
            kind[i] = 2
            arg[i] = t
    return kind, arg


# ----------------------------------------------------------------------------------------------------
# heuristics


def _setup_spread(obs: Observation) -> np.ndarray:
    """Set-up pick shared by the heuristics: the middle stack showing the most distinct colours (all three
    tiles with ``open_stacks``, else just the top, so every stack ties), preferring a top colour that is
    rare among the middle tops (fewer players will be chasing it); ties: lowest index."""
    vis = obs.visible.astype(np.int64)
    distinct = np.zeros(obs.loc.shape, dtype=np.int64)
    for c in range(NC):
        distinct += (vis == c).any(axis=2)
    mid = obs.loc == MIDDLE
    topc = np.clip(obs.top.astype(np.int64), 0, NC - 1)
    freq = np.stack([((obs.top == c) & mid).sum(axis=1) for c in range(NC)], axis=1)
    rare = -freq[np.arange(len(obs))[:, None], topc]
    return _best(distinct * 100 + rare, mid)


def _weak(obs: Observation) -> np.ndarray:
    """(m,4) my colours tied for my smallest pile."""
    return obs.my_piles == obs.my_min[:, None]


def _top_colour(obs: Observation) -> np.ndarray:
    """(m,S) top colour of each stack clipped to 0..3 (use with a legality mask)."""
    return np.clip(obs.top.astype(np.int64), 0, NC - 1)


def _colour_at(table: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """table (m,4) looked up at colour (m,S) -> (m,S)."""
    return np.take_along_axis(table, colour, axis=1)


def _test_best(obs: Observation, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(colour, gain) of the best Test among ``mask`` (default: every colour in hand); colour -1 if none."""
    m = obs.can_test if mask is None else obs.can_test & mask
    key = np.where(m, obs.gain * 1000 - obs.my_piles, -(1 << 30))
    c = key.argmax(axis=1)
    return np.where(m.any(axis=1), c, -1), obs.gain[np.arange(len(obs)), c]


@dataclass(frozen=True)
class Guard(Strategy):
    """Guard the weakest pile: once the middle is down to ``late`` stacks (or the end is triggered) and my
    smallest pile is within ``margin`` of the lowest smallest pile among the opponents (the elimination
    line), spend the turn on my weakest colour: Test it from hand, else Train a tile of it (from an
    opponent's card first, which also denies them, then the middle) or Study a middle stack showing it.
    Otherwise play for height like the reference gain rule: Test when the gain reaches ``min_gain``, Study
    stacks whose top matches my weakest colour or my hand, Train tops that match my own card tops."""
    name: ClassVar[str] = "guard"
    game: ClassVar[str] = "senshi"
    margin: int = param(0, "act on the weakest pile when my smallest pile <= the opponents' lowest smallest pile + margin",
                        min=-5, max=30)
    min_gain: int = param(2, "Test for height when the gain (1 + my matching tops - most matching tops of an opponent) reaches this",
                          min=1, max=4)
    late: int = param(4, "middle stacks left from which the guard is on (always on once the end is triggered)",
                      min=0, max=24)

    def setup_take(self, obs: Observation, rng) -> np.ndarray:
        return _setup_spread(obs)

    def act(self, obs: Observation, rng):
        return _guarded(obs, self.margin, self.late, self.min_gain)


def _guarded(obs: Observation, margin: int, late: int, min_gain: int, extra=()):
    """The guard plan: weakest pile first when late and in danger, then Test for gain, then ``extra``
    steps, then Study / Train / Test as the guard prefers."""
    m = len(obs)
    weak = _weak(obs)
    is_late = (obs.mid_count <= late) | (obs.remaining >= 0)
    danger = is_late & (obs.my_min <= obs.opp_low_min + margin)
    tc = _top_colour(obs)
    rel = obs.rel
    weak_top = _colour_at(weak, tc)
    c_weak, _ = _test_best(obs, weak)
    tr_weak = _best(2 * (rel >= 1) + (rel == MIDDLE), obs.can_train & weak_top)
    st_weak = _best(np.zeros(obs.loc.shape), obs.can_study & weak_top)
    c, g = _test_best(obs)
    in_hand = _colour_at(obs.hand > 0, tc)
    st_any = _best(2 * weak_top + in_hand, obs.can_study)
    mine = _colour_at(obs.my_tops > 0, tc)
    tr_any = _best(2 * mine + (rel >= 1) - 0.001 * train_order_rank(obs), obs.can_train)
    has_hand = obs.hand.sum(axis=1) > 0
    return _combine(m, [
        (danger & (c_weak >= 0), Kind.TEST, c_weak),
        (danger & (tr_weak >= 0) & ~has_hand, Kind.TRAIN, tr_weak),
        (danger & (st_weak >= 0), Kind.STUDY, st_weak),
        (danger & (tr_weak >= 0), Kind.TRAIN, tr_weak),
        ((c >= 0) & (g >= min_gain), Kind.TEST, c),
        *extra,
        (st_any >= 0, Kind.STUDY, st_any),
        (~has_hand, Kind.TRAIN, tr_any),
        (c >= 0, Kind.TEST, c),
    ], obs)


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

    def setup_take(self, obs: Observation, rng) -> np.ndarray:
        return _setup_spread(obs)

    def act(self, obs: Observation, rng):
        m = len(obs)
        rows = np.arange(m)
        strength = obs.my_piles * 4 + obs.my_tops * 2 + obs.hand
        target = strength.argmax(axis=1)
        is_target = np.arange(NC)[None, :] == target[:, None]
        tc = _top_colour(obs)
        rel = obs.rel
        t_top = _colour_at(is_target, tc)
        g_target = obs.gain[rows, target]
        late = (obs.mid_count <= self.guard_at) | (obs.remaining >= 0)
        danger = late & (obs.my_min <= obs.opp_low_min)
        weak = _weak(obs)
        c_weak, _ = _test_best(obs, weak)
        tr_weak = _best(2 * (rel >= 1) + (rel == MIDDLE), obs.can_train & _colour_at(weak, tc))
        st_target = _best(np.zeros(obs.loc.shape), obs.can_study & t_top)
        tr_target = _best(2 * (rel >= 1) - 0.001 * train_order_rank(obs), obs.can_train & t_top & (rel != 0))
        c, g = _test_best(obs)
        has_hand = obs.hand.sum(axis=1) > 0
        in_hand = _colour_at(obs.hand > 0, tc)
        st_any = _best(in_hand, obs.can_study)
        tr_any = _best(-train_order_rank(obs).astype(float), obs.can_train)
        return _combine(m, [
            (danger & (c_weak >= 0), Kind.TEST, c_weak),
            (danger & (tr_weak >= 0), Kind.TRAIN, tr_weak),
            ((obs.hand[rows, target] > 0) & (g_target >= self.min_gain), Kind.TEST, target),
            (st_target >= 0, Kind.STUDY, st_target),
            (tr_target >= 0, Kind.TRAIN, tr_target),
            ((c >= 0) & (g >= self.min_gain), Kind.TEST, c),
            (st_any >= 0, Kind.STUDY, st_any),
            (~has_hand, Kind.TRAIN, tr_any),
            (c >= 0, Kind.TEST, c),
        ], obs)


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

    def setup_take(self, obs: Observation, rng) -> np.ndarray:
        return _setup_spread(obs)

    def act(self, obs: Observation, rng):
        m = len(obs)
        rows = np.arange(m)
        tc = _top_colour(obs)
        owner = np.clip(obs.loc.astype(np.int64), 0, obs.players - 1)
        on_opp = obs.can_train & (obs.rel >= 1)
        tops = obs.card_tops.astype(np.int64)
        owner_count = tops[rows[:, None], owner, tc]                    # (m,S) matching tops of the owner
        tall = obs.piles.max(axis=2).astype(np.int64)                   # (m,P)
        tall_col = obs.piles.argmax(axis=2)                             # (m,P)
        owner_tall = tall[rows[:, None], owner]
        my_tall = obs.my_piles.max(axis=1)
        on_tall = tc == tall_col[rows[:, None], owner]
        table_top = tall.max(axis=1)
        leader = (owner_tall == table_top[:, None]) & (owner_tall > my_tall[:, None])
        threat = on_opp & ((owner_count >= self.threat) | (leader & on_tall))
        threat &= (obs.hand.sum(axis=1) < self.max_hand)[:, None]
        deny = _best(owner_count * 10 + owner_tall, threat)
        return _guarded(obs, self.margin, self.late, self.min_gain, [(deny >= 0, Kind.TRAIN, deny)])


def train_order_rank(obs: Observation) -> np.ndarray:
    """(m,S) rank of each stack in the reference Train order (0 first); large for gone stacks."""
    order = train_order(obs)
    return np.argsort(np.argsort(order, axis=1, kind="stable"), axis=1, kind="stable")


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
    ``w_risk`` per tile my smallest pile trails the lowest opponent's, growing as the middle empties; the
    best option is taken."""
    name: ClassVar[str] = "counter"
    game: ClassVar[str] = "senshi"
    w_min: float = param(1.0, "weight of the smallest pile in a player's value", min=0.0, max=10.0)
    a_hand: float = param(0.5, "value of a tile in hand (before the end-game discount)", min=0.0, max=1.0)
    a_top: float = param(0.6, "value of a stack top of a colour on one's own card", min=0.0, max=1.0)
    w_opp: float = param(0.25, "weight of the best opponent's value", min=0.0, max=3.0)
    w_risk: float = param(4.0, "penalty per tile my smallest pile trails the opponents' lowest (late game)",
                          min=0.0, max=10.0)
    a_deep: float = param(0.4, "value of a tile buried under a top on one's own card (expected colour)",
                          min=0.0, max=1.0)

    def setup_take(self, obs: Observation, rng) -> np.ndarray:
        return _setup_spread(obs)

    #: games scored at once (the option arrays are games x options x players x colours)
    block: ClassVar[int] = 1024

    def act(self, obs: Observation, rng):
        m = len(obs)
        if m <= self.block:
            return self._act(obs)
        kind = np.empty(m, dtype=np.int64)
        arg = np.empty(m, dtype=np.int64)
        for a in range(0, m, self.block):
            part = slice(a, min(a + self.block, m))
            kind[part], arg[part] = self._act(obs.subset(part))
        return kind, arg

    def _act(self, obs: Observation):
        m, P = len(obs), obs.players
        S = obs.loc.shape[1]
        rows = np.arange(m)
        me = obs.me
        unseen = np.maximum(obs.unseen, 0).astype(np.float64)
        tot = unseen.sum(axis=1, keepdims=True)
        share = np.where(tot > 0, unseen / np.maximum(tot, 1), 0.25)                  # (m,4)
        # expected hands: mine exactly, the others' known part plus their unknown tiles spread as unseen
        known = obs.known.astype(np.float64)
        unknown = obs.hand_size.astype(np.float64) - known.sum(axis=2)
        H = known + unknown[:, :, None] * share[:, None, :]
        H[rows, me] = obs.hand
        # hand tiles are worth less when few turns remain to play them
        my_turns = np.where(obs.remaining >= 0, 1.0, 1.0 + 2.0 * obs.mid_count / P)
        hand_w = self.a_hand * np.minimum(1.0, my_turns[:, None] / np.maximum(obs.hand_size.astype(np.float64), 1.0))
        T = obs.card_tops.astype(np.float64)
        piles = obs.piles.astype(np.float64)
        # the tiles under each stack top: seen (open stacks) or expected from the unseen counts
        h = obs.height.astype(np.int64)
        deep = h >= 2
        if obs.stacks is not None:
            st = obs.stacks.astype(np.int64)
            nxt_col = np.take_along_axis(st, np.clip(4 - h, 0, 2)[:, :, None], 2)[:, :, 0]
            nxt = ((nxt_col[:, :, None] == np.arange(NC)) & deep[:, :, None]).astype(np.float64)
            below = np.stack([((st == c) & (np.arange(3)[None, None, :] > (3 - h)[:, :, None])).sum(axis=2)
                              for c in range(NC)], axis=2).astype(np.float64)
        else:
            nxt = deep[:, :, None] * share[:, None, :]                                  # (m,S,4)
            below = np.maximum(h - 1, 0)[:, :, None] * share[:, None, :]                # (m,S,4)
        owner = obs.loc.astype(np.int64)
        own = (owner[:, :, None] == np.arange(P)[None, None, :]).astype(np.float64)   # (m,S,P)
        D = np.matmul(own.transpose(0, 2, 1), below)                                    # buried tiles on cards
        Q = piles + hand_w[:, :, None] * H + self.a_top * T + self.a_deep * D          # (m,P,4)
        tc = _top_colour(obs)
        onehot_top = (tc[:, :, None] == np.arange(NC)).astype(np.float64)              # (m,S,4)
        is_me = (np.arange(P)[None, :] == me[:, None]).astype(np.float64)             # (m,P)
        # Study s: my card gains a top of colour t and the tiles below it
        q_study = Q[:, None] + is_me[:, None, :, None] * (self.a_top * onehot_top + self.a_deep * below)[:, :, None, :]
        # Train s: my hand gains colour t; the owner's card loses top t and shows the next tile
        q_train = (Q[:, None] + hand_w[rows, me][:, None, None, None] * is_me[:, None, :, None] * onehot_top[:, :, None, :]
                   + own[:, :, :, None] * ((self.a_top - self.a_deep) * nxt - self.a_top * onehot_top)[:, :, None, :])
        # Test c: one tile from my hand to my pile; every matching card top moves to its owner's pile
        # and uncovers the next tile (expected); the card's top value is replaced by that
        cc = np.arange(NC)
        oh = (cc[:, None] == cc[None, :]).astype(np.float64)                             # (4 test, 4 colour)
        match = (obs.loc[:, :, None] >= 0) & (tc[:, :, None] == cc[None, None, :])     # (m,S,4 test)
        mt = match.astype(np.float64).transpose(0, 2, 1)                                  # (m,4 test,S)
        moved = np.matmul(mt, own)                                                        # (m,4 test,P)
        fresh = np.matmul(mt, (own[:, :, :, None] * nxt[:, :, None, :]).reshape(m, S, P * NC)).reshape(m, NC, P, NC)
        q_test = (Q[:, None]
                  + (1.0 - hand_w[rows, me])[:, None, None, None] * is_me[:, None, :, None] * oh[None, :, None, :]
                  + (1.0 - self.a_top) * moved[:, :, :, None] * oh[None, :, None, :]
                  + (self.a_top - self.a_deep) * fresh)
        q_all = np.concatenate([q_study, q_train, q_test], axis=1)                       # (m,A,P,4)
        # (reductions over the short colour and player axes written out: much faster than .max(axis))
        high = np.maximum(np.maximum(q_all[..., 0], q_all[..., 1]), np.maximum(q_all[..., 2], q_all[..., 3]))
        low = np.minimum(np.minimum(q_all[..., 0], q_all[..., 1]), np.minimum(q_all[..., 2], q_all[..., 3]))
        value = high + self.w_min * low                                                   # (m,A,P)
        best_opp = np.full(value.shape[:2], -np.inf)
        opp_low = np.full(value.shape[:2], np.inf)
        my_v = np.zeros(value.shape[:2])
        my_low = np.zeros(value.shape[:2])
        for p in range(P):
            mine = (me == p)[:, None]
            best_opp = np.where(mine, best_opp, np.maximum(best_opp, value[:, :, p]))
            opp_low = np.where(mine, opp_low, np.minimum(opp_low, low[:, :, p]))
            my_v = np.where(mine, value[:, :, p], my_v)
            my_low = np.where(mine, low[:, :, p], my_low)
        stage = np.where(obs.remaining >= 0, 1.0, 1.0 - obs.mid_count / float(STACKS_MIDDLE[P]))
        risk = np.maximum(opp_low - my_low + 0.5, 0.0) * (stage ** 2)[:, None]
        score = my_v - self.w_opp * best_opp - self.w_risk * risk
        legal = np.concatenate([obs.can_study, obs.can_train, obs.can_test], axis=1)
        choice = _best(score, legal)
        kind = np.where(choice < S, int(Kind.STUDY), np.where(choice < 2 * S, int(Kind.TRAIN), int(Kind.TEST)))
        arg = np.where(choice < S, choice, np.where(choice < 2 * S, choice - S, choice - 2 * S))
        kind = np.where(obs.must_pass, int(Kind.PASS), kind)
        return kind, np.maximum(arg, 0)


STRATEGIES = [Random, Greedy, Guard, Racer, Denier, Counter]
