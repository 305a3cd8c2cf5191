"""A plain-Python, one-game-at-a-time Senshi, written from the rulings (docs/games/senshi.md), used as an oracle for the engine.

Independent of the vectorized engine (imports nothing from simcore). Policies ``random`` and ``greedy``
exactly as the rulings define them; options ``secret_hand`` and ``open_stacks`` (the latter changes
nothing for these two policies, which look only at stack tops).
"""
from __future__ import annotations

import random

REMOVED = {2: 6, 3: 3, 4: 0}


class Stack:
    __slots__ = ("tiles", "idx", "placed")

    def __init__(self, tiles, idx):
        self.tiles = tiles      # list, last element = top
        self.idx = idx          # set-up order
        self.placed = -1

    @property
    def top(self):
        return self.tiles[-1]


class Game:
    def __init__(self, players, rng, policies, secret_hand=False):
        self.P = players
        self.rng = rng
        self.policies = policies
        per = 18 - REMOVED[players]
        tiles = [c for c in range(4) for _ in range(per)]
        rng.shuffle(tiles)
        self.hand = [[0] * 4 for _ in range(players)]
        self.piles = [[0] * 4 for _ in range(players)]
        if secret_hand:
            for p in range(players):
                for _ in range(3):
                    self.hand[p][tiles.pop()] += 1
        self.middle = [Stack([tiles.pop() for _ in range(3)], i) for i in range(len(tiles) // 3)]
        self.cards = [[] for _ in range(players)]
        self.turns = 0
        if not secret_hand:
            for p in range(players):
                st = policies[p].setup(self, p)
                self.middle.remove(st)
                for c in st.tiles:
                    self.hand[p][c] += 1

    def count(self):
        return (sum(map(sum, self.hand)) + sum(map(sum, self.piles)) + 4 * REMOVED[self.P]
                + sum(len(s.tiles) for s in self.middle) + sum(len(s.tiles) for c in self.cards for s in c))

    # --- actions
    def legal_kinds(self, p):
        kinds = []
        if self.middle and len(self.cards[p]) < 3:
            kinds.append("study")
        if self.middle or any(self.cards):
            kinds.append("train")
        if sum(self.hand[p]) > 0:
            kinds.append("test")
        return kinds

    def train_targets(self):
        return list(self.middle) + [s for c in self.cards for s in c]

    def study(self, p, st):
        assert st in self.middle and len(self.cards[p]) < 3
        self.middle.remove(st)
        st.placed = self.turns
        self.cards[p].append(st)

    def train(self, p, st):
        self.hand[p][st.tiles.pop()] += 1
        if not st.tiles:
            if st in self.middle:
                self.middle.remove(st)
            else:
                for c in self.cards:
                    if st in c:
                        c.remove(st)

    def test(self, p, colour):
        assert self.hand[p][colour] > 0
        self.hand[p][colour] -= 1
        self.piles[p][colour] += 1
        for q in range(self.P):
            for st in list(self.cards[q]):
                if st.top == colour:
                    self.piles[q][colour] += 1
                    st.tiles.pop()
                    if not st.tiles:
                        self.cards[q].remove(st)

    def play(self, check=False):
        cur = 0
        remaining = None
        emptier = None
        while True:
            kinds = self.legal_kinds(cur)
            if kinds:
                kind, arg = self.policies[cur].act(self, cur, kinds)
                getattr(self, kind)(cur, arg)
            self.turns += 1
            if check:
                assert self.count() == 72
            if remaining is not None:
                remaining -= 1
                if remaining == 0:
                    break
            elif not self.middle:
                remaining = self.P
                emptier = cur
            cur = (cur + 1) % self.P
        return self.result(emptier)

    def result(self, emptier):
        P = self.P
        low = [min(pl) for pl in self.piles]
        lowest = min(low)
        nobody = all(x == lowest for x in low)
        elim = [(x == lowest) and not nobody for x in low]
        rank = [(p - emptier - 1) % P for p in range(P)]
        alive = [p for p in range(P) if not elim[p]]
        winner = max(alive, key=lambda p: (max(self.piles[p]), sum(self.hand[p]), rank[p]))
        return {"win": [1.0 if p == winner else 0.0 for p in range(P)], "turns": self.turns,
                "eliminated": elim, "nobody_eliminated": nobody, "winning_pile": max(self.piles[winner]),
                "winner": winner}


# --- reference policies
class RandomPolicy:
    def __init__(self, rng):
        self.rng = rng

    def setup(self, g, p):
        return self.rng.choice(g.middle)

    def act(self, g, p, kinds):
        kind = self.rng.choice(kinds)
        if kind == "study":
            return kind, self.rng.choice(g.middle)
        if kind == "train":
            return kind, self.rng.choice(g.train_targets())
        return kind, self.rng.choice([c for c in range(4) if g.hand[p][c] > 0])


class GreedyPolicy:
    def setup(self, g, p):
        return g.middle[0]

    def gain(self, g, p, c):
        mine = sum(1 for s in g.cards[p] if s.top == c)
        other = max(sum(1 for s in g.cards[q] if s.top == c) for q in range(g.P) if q != p)
        return 1 + mine - other

    def best_test(self, g, p):
        cols = [c for c in range(4) if g.hand[p][c] > 0]
        return max(cols, key=lambda c: (self.gain(g, p, c), -g.piles[p][c], -c))

    def act(self, g, p, kinds):
        has_hand = sum(g.hand[p]) > 0
        if has_hand:
            c = self.best_test(g, p)
            if self.gain(g, p, c) >= 2:
                return "test", c
        if "study" in kinds:
            weak = min(range(4), key=lambda c: (g.piles[p][c], c))
            for st in g.middle:
                if st.top == weak:
                    return "study", st
            return "study", g.middle[0]
        if not has_hand:
            if g.middle:
                return "train", g.middle[0]
            for k in range(g.P):
                q = (p + k) % g.P
                if g.cards[q]:
                    return "train", g.cards[q][0]
            raise AssertionError("train with no stack")
        return "test", self.best_test(g, p)


def play_games(n, players=4, policy="greedy", seed=0, secret_hand=False, check=False):
    """Play ``n`` games with ``policy`` in every seat; a list of per-game result dicts."""
    out = []
    for i in range(n):
        rng = random.Random(seed * 1_000_003 + i)
        pols = [RandomPolicy(rng) if policy == "random" else GreedyPolicy() for _ in range(players)]
        out.append(Game(players, rng, pols, secret_hand=secret_hand).play(check=check))
    return out
