"""A plain-Python, one-game-at-a-time Sen, written from the rulings (docs/games/sen.md), used as an oracle for the engine.

Independent of the vectorized engine (it imports nothing from simcore). Policies: ``random`` and
``threshold`` exactly as the rulings define them; the variants of the rulings are supported.
"""
from __future__ import annotations

import random

VALUES = [i // 4 for i in range(36)] + [9] * 9 + [5] * 3 + [6] * 3 + [7] * 3
KINDS = ["plain"] * 45 + ["take2"] * 3 + ["peek"] * 3 + ["swap"] * 3
MEAN6 = 31  # 279/54 = 31/6: estimates are kept in sixths, as integers


class Game:
    def __init__(self, players, rng, policies, penalty=5, caller_tie="zero", target=100, rounds=None,
                 ravens_not_scary=False, go_all_in=False):
        self.P = players
        self.rng = rng
        self.policies = policies
        self.penalty, self.caller_tie, self.target, self.rounds_limit = penalty, caller_tie, target, rounds
        self.ravens, self.allin = ravens_not_scary, go_all_in
        self.scores = [0] * players
        self.turns = 0
        self.rounds = 0
        self.called = 0
        self.caller_ok = 0
        self.dream_sum = 0
        self.starter = 0
        self.leader = None
        self.lead_changes = 0

    # --- a round
    def deal(self):
        cards = list(range(54))
        self.rng.shuffle(cards)
        self.dreams = [[cards.pop() for _ in range(4)] for _ in range(self.P)]
        self.up = [cards.pop()]
        self.down = cards
        # memory[viewer][owner][slot]
        self.mem = [[[None] * 4 for _ in range(self.P)] for _ in range(self.P)]
        for p in range(self.P):
            for s in (0, 1):
                self.mem[p][p][s] = VALUES[self.dreams[p][s]]

    def play(self):
        while True:
            self.deal()
            cur = self.starter
            while True:
                pol = self.policies[cur]
                self.turns += 1
                if pol.wake(self, cur):
                    caller, ender = cur, cur
                    break
                pol.turn(self, cur)
                if not self.down:
                    caller, ender = None, cur
                    break
                cur = (cur + 1) % self.P
            self.score_round(caller)
            self.starter = (ender + 1) % self.P
            if self.rounds_limit is not None:
                if self.rounds >= self.rounds_limit:
                    break
            elif max(self.scores) >= self.target:
                break
        best = min(self.scores)
        winners = [p for p in range(self.P) if self.scores[p] == best]
        return [1 / len(winners) if p in winners else 0.0 for p in range(self.P)]

    def score_round(self, caller):
        self.rounds += 1
        totals = [sum(VALUES[c] for c in d) for d in self.dreams]
        self.dream_sum += sum(totals)
        adj = list(totals)
        if self.ravens:
            nines = [sum(1 for c in d if VALUES[c] == 9) for d in self.dreams]
            most = max(nines)
            if most >= 1 and nines.count(most) == 1:
                w = nines.index(most)
                adj[w] -= 9 * most
        pts = list(adj)
        if caller is not None:
            self.called += 1
            if adj[caller] <= min(adj):
                self.caller_ok += 1
                tied = adj.count(adj[caller]) > 1
                pts[caller] = adj[caller] if (tied and self.caller_tie == "count") else 0
            else:
                pts[caller] = adj[caller] + self.penalty
        if self.allin:
            only = [all(VALUES[c] == 9 for c in d) for d in self.dreams]
            if only.count(True) == 1:
                pts = [0 if o else 50 for o in only]
        for p in range(self.P):
            self.scores[p] += pts[p]
        best = min(self.scores)
        if self.scores.count(best) == 1:
            lead = self.scores.index(best)
            if self.leader is not None and lead != self.leader:
                self.lead_changes += 1
            self.leader = lead

    # --- actions
    def take_up(self, p, slot):
        card = self.up.pop()
        old = self.dreams[p][slot]
        self.dreams[p][slot] = card
        self.up.append(old)
        for v in range(self.P):
            self.mem[v][p][slot] = VALUES[card]

    def exchange_drawn(self, p, slot, card):
        old = self.dreams[p][slot]
        self.dreams[p][slot] = card
        self.up.append(old)
        for v in range(self.P):
            self.mem[v][p][slot] = VALUES[card] if v == p else None

    def peek(self, p, owner, slot):
        self.mem[p][owner][slot] = VALUES[self.dreams[owner][slot]]

    def swap(self, a, b):
        (pa, sa), (pb, sb) = a, b
        self.dreams[pa][sa], self.dreams[pb][sb] = self.dreams[pb][sb], self.dreams[pa][sa]
        for v in range(self.P):
            self.mem[v][pa][sa], self.mem[v][pb][sb] = self.mem[v][pb][sb], self.mem[v][pa][sa]


class RandomPolicy:
    def __init__(self, p_wake=0.1):
        self.p_wake = p_wake

    def wake(self, g, p):
        return g.rng.random() < self.p_wake

    def turn(self, g, p):
        if g.rng.random() < 0.5:
            g.take_up(p, g.rng.randrange(len(g.dreams[p])))
            return
        self.resolve(g, p, g.down.pop())

    def resolve(self, g, p, card):
        n = len(g.dreams[p])
        options = [("x", i) for i in range(n)] + [("d", None)]
        if KINDS[card] != "plain":
            options.append(("u", None))
        kind, i = options[int(g.rng.random() * len(options))]
        if kind == "x":
            g.exchange_drawn(p, i, card)
            return
        g.up.append(card)
        if kind == "d":
            return
        positions = [(o, s) for o in range(g.P) for s in range(len(g.dreams[o]))]
        if KINDS[card] == "peek":
            g.peek(p, *positions[int(g.rng.random() * len(positions))])
        elif KINDS[card] == "swap":
            a = positions.pop(int(g.rng.random() * len(positions)))
            b = positions[int(g.rng.random() * len(positions))]
            g.swap(a, b)
        elif KINDS[card] == "take2":
            drawn = [g.down.pop() for _ in range(min(2, len(g.down)))]
            if not drawn:
                return
            if len(drawn) == 2:
                k = 0 if g.rng.random() < 0.5 else 1
                g.up.append(drawn[1 - k])
                drawn = [drawn[k]]
            self.resolve(g, p, drawn[0])


class ThresholdPolicy:
    def __init__(self, wake=10):
        self.wake_at = wake

    def estimates(self, g, p):
        return [6 * v if v is not None else MEAN6 for v in g.mem[p][p]]

    def wake(self, g, p):
        return sum(self.estimates(g, p)) <= 6 * self.wake_at

    def turn(self, g, p):
        e = self.estimates(g, p)
        w = e.index(max(e))
        if 6 * VALUES[g.up[-1]] < e[w]:
            g.take_up(p, w)
            return
        card = g.down.pop()
        unknown = [i for i, v in enumerate(g.mem[p][p]) if v is None]
        if KINDS[card] == "peek" and unknown:
            g.up.append(card)
            g.peek(p, p, unknown[0])
        elif 6 * VALUES[card] < e[w]:
            g.exchange_drawn(p, w, card)
        else:
            g.up.append(card)


def make_policy(spec):
    name, _, params = spec.partition(":")
    kw = dict(item.split("=") for item in params.split(",") if item)
    if name == "random":
        return RandomPolicy(float(kw.get("p_wake", 0.1)))
    if name == "threshold":
        return ThresholdPolicy(int(kw.get("wake", 10)))
    raise ValueError(spec)


def play_games(n, seed, players, specs, **rules):
    """Play n games; returns a list of per-game dicts (win shares, scores, turns, rounds, ...)."""
    policies = [make_policy(s) for s in (specs if len(specs) == players else specs * players)]
    out = []
    for i in range(n):
        g = Game(players, random.Random(seed * 1_000_003 + i), policies, **rules)
        win = g.play()
        out.append({"win": win, "score": list(g.scores), "turns": g.turns, "rounds": g.rounds,
                    "called": g.called, "caller_ok": g.caller_ok, "dream_sum": g.dream_sum,
                    "lead_changes": g.lead_changes})
    return out
