"""Plain-Python Sensu, one game at a time, with the reference policy ``random``.

An independent implementation of the rulings (``docs/games/sensu.md``) used to check the vectorized engine statistically
and to time it. Cards are numbered 0..89: type ``c // 30``; within a type ``j = c % 30``: ``j < 27`` is
value ``j // 3 + 1`` of copy ``"ABC"[j % 3]``, ``j >= 27`` the wild card ``1/2/3``, ``4/5/6`` or ``7/8/9``.

Variants: with ``powers`` or ``chosen_fan`` on, the ``random`` policy's power decisions are uniform among
the legal choices (Wisdom: the source of each card among the deck and non-empty piles; Harmony: the pile
among those whose top card fits; Courage: per opponent, in seat order, the fan among the removable ones).
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field

TABLES = {
    "A": (4, 4, 4, 3, 3, 3, 2, 2, 1),
    "A2": (4, 4, 4, 3, 3, 3, 2, 1, 1),
    "B": (4, 3, 3, 2, 2, 2, 1, 1, 1),
    "C": (4, 4, 4, 3, 3, 2, 1, 1, 1),
}
LEVELS = ("Gutted", "Beginner", "Apprentice", "Samurai", "Master", "Grandmaster")
COURAGE, WISDOM, HARMONY = 0, 1, 2  # the power of each fan type


@dataclass
class OracleRules:
    sticks: str = "A"
    power_copies: str = "C"
    powers: bool = False
    chosen_fan: bool = False
    max_turns: int = 1000


def card_type(c: int) -> int:
    return c // 30


def card_value(c: int) -> int:
    """Printed value (0 for a wild)."""
    j = c % 30
    return j // 3 + 1 if j < 27 else 0


def card_wild(c: int) -> int:
    """Wild class 0, 1, 2 (values 1-3, 4-6, 7-9) or -1."""
    j = c % 30
    return j - 27 if j >= 27 else -1


def card_copy(c: int) -> str:
    j = c % 30
    return "ABC"[j % 3] if j < 27 else "W"


def sticks_table(rules: OracleRules) -> tuple:
    if rules.sticks in TABLES:
        return TABLES[rules.sticks]
    return tuple(int(x) for x in rules.sticks.split(","))


def deck_for(players: int) -> list[int]:
    cards = []
    for c in range(90):
        cp = card_copy(c)
        if players == 1 and cp != "A":
            continue
        if players in (2, 3) and cp == "B":
            continue
        cards.append(c)
    return cards


def is_combination(cards: list[int]) -> bool:
    """At least 2 cards, at most one wild, values summing to exactly 20 (the wild takes any of its 3)."""
    if len(cards) < 2:
        return False
    wilds = [card_wild(c) for c in cards if card_wild(c) >= 0]
    if len(wilds) > 1:
        return False
    s = sum(card_value(c) for c in cards)
    if not wilds:
        return s == 20
    return 20 - s in (3 * wilds[0] + 1, 3 * wilds[0] + 2, 3 * wilds[0] + 3)


def combinations(cards: list[int], min_size: int = 2, max_size: int = 99) -> list[tuple[int, ...]]:
    """Index tuples of every combination among ``cards`` (each set of positions once)."""
    out = []
    for r in range(min_size, min(len(cards), max_size) + 1):
        for sub in itertools.combinations(range(len(cards)), r):
            if is_combination([cards[i] for i in sub]):
                out.append(sub)
    return out


def redeem_count(cards: list[int]) -> int:
    vals = [card_value(c) for c in cards if card_wild(c) < 0]
    pair = len(vals) != len(set(vals))
    types = [card_type(c) for c in cards]
    three = max(types.count(t) for t in range(3)) >= 3
    return 1 + int(pair) + int(three)


@dataclass
class Player:
    hand: list = field(default_factory=list)
    pile: list = field(default_factory=list)
    fans: list = field(default_factory=lambda: [[], [], []])
    fan_sticks: list = field(default_factory=lambda: [0, 0, 0])
    closed: list = field(default_factory=lambda: [False, False, False])
    fan_power: list = field(default_factory=lambda: [0, 0, 0])
    chosen: int = -1
    plays: int = 0


class Game:
    def __init__(self, players: int, rules: OracleRules, rng: random.Random):
        self.P = players
        self.rules = rules
        self.rng = rng
        table = sticks_table(rules)
        self.st = [table[card_value(c) - 1] if card_wild(c) < 0 else 1 for c in range(90)]
        self.pw = [card_copy(c) in rules.power_copies for c in range(90)]
        self.deck = deck_for(players)
        rng.shuffle(self.deck)
        self.players = [Player() for _ in range(players)]
        self.winner = -1
        self.turns = 0
        self.limbo: list = []
        self.cf_deck: list = []
        self.cf_disc: list = []
        if players > 1:
            for p in self.players:
                for _ in range(5):
                    p.hand.append(self.deck.pop())
            if rules.chosen_fan:
                self.cf_deck = [t for t in range(3) for _ in range(5)]
                rng.shuffle(self.cf_deck)
                for p in self.players:
                    p.chosen = self.cf_deck.pop()
        self.columns: list = [[], [], [], []]

    # ----- shared pieces -----
    def reshuffle(self) -> None:
        """Deck empty: all discard piles become the new deck (continuous: deck empty => no discards)."""
        if self.deck or self.P == 1:  # no reshuffle in solo
            return
        cards = []
        for p in self.players:
            cards.extend(p.pile)
            p.pile = []
        self.rng.shuffle(cards)
        self.deck = cards

    def discard(self, seat: int, card: int) -> None:
        self.players[seat].pile.append(card)
        if self.P > 1:
            self.reshuffle()

    def fits(self, seat: int, card: int) -> bool:
        p = self.players[seat]
        t = card_type(card)
        total = p.fan_sticks[t] + self.st[card]
        if p.closed[t] or total > 10:
            return False
        if self.rules.chosen_fan and p.chosen >= 0 and t != p.chosen and total == 10:
            return False
        return True

    def new_chosen(self, p: Player) -> None:
        while True:
            if not self.cf_deck:
                self.cf_deck = self.cf_disc
                self.cf_disc = []
                self.rng.shuffle(self.cf_deck)
                if not self.cf_deck:
                    p.chosen = -1
                    return
            t = self.cf_deck.pop()
            if not p.closed[t]:
                p.chosen = t
                return
            self.cf_disc.append(t)

    def add_to_fan(self, seat: int, card: int) -> None:
        """Place a card that fits; close, win, and trigger powers (chains included)."""
        p = self.players[seat]
        t = card_type(card)
        p.fans[t].append(card)
        p.fan_sticks[t] += self.st[card]
        if p.fan_sticks[t] == 10:
            p.closed[t] = True
            if sum(p.closed) == 2:
                self.winner = seat
                return
            if self.rules.chosen_fan and p.chosen == t:
                self.new_chosen(p)
        if self.rules.powers and self.pw[card]:
            p.fan_power[t] += 1
            if p.fan_power[t] == 2:
                self.power(seat, t)

    def sources(self) -> list:
        out = ["deck"] if self.deck else []
        return out + [s for s in range(self.P) if self.players[s].pile]

    def take(self, src) -> int:
        if src == "deck":
            card = self.deck.pop()
            self.reshuffle()
            return card
        return self.players[src].pile.pop()

    def power(self, seat: int, t: int) -> None:
        rng = self.rng
        me = self.players[seat]
        if t == WISDOM:
            for _ in range(3):
                src = self.sources()
                if not src:
                    break
                me.hand.append(self.take(rng.choice(src)))
        elif t == HARMONY:
            opts = [s for s in range(self.P) if self.players[s].pile and self.fits(seat, self.players[s].pile[-1])]
            if opts:
                s = rng.choice(opts)
                self.add_to_fan(seat, self.players[s].pile.pop())
        else:
            for o in range(self.P):
                if o == seat:
                    continue
                op = self.players[o]
                opts = [f for f in range(3) if not op.closed[f] and op.fans[f] and not self.pw[op.fans[f][-1]]]
                if opts:
                    f = rng.choice(opts)
                    card = op.fans[f].pop()
                    op.fan_sticks[f] -= self.st[card]
                    self.discard(o, card)

    def resolve(self, seat: int, cards: list[int]) -> None:
        """Redeem, discard and build with the random policy's choices (cards already out of the hand)."""
        rng = self.rng
        k = redeem_count(cards)
        rest = list(cards)
        redeemed = []
        top = max(self.st[c] for c in rest)
        pick = rng.choice([c for c in rest if self.st[c] == top])
        redeemed.append(pick)
        rest.remove(pick)
        for _ in range(k - 1):
            low = min(self.st[c] for c in rest)
            pick = rng.choice([c for c in rest if self.st[c] == low])
            redeemed.append(pick)
            rest.remove(pick)
        rng.shuffle(rest)
        for c in rest:
            self.discard(seat, c)
        order = sorted(range(len(redeemed)), key=lambda i: (-self.st[redeemed[i]], i))
        for j, i in enumerate(order):
            c = redeemed[i]
            if self.fits(seat, c):
                self.add_to_fan(seat, c)
                if self.winner >= 0:
                    self.limbo = [redeemed[i2] for i2 in order[j + 1:]]
                    return
            else:
                self.discard(seat, c)

    # ----- multiplayer -----
    def turn(self, seat: int) -> None:
        rng = self.rng
        p = self.players[seat]
        combos = combinations(p.hand)
        if combos and rng.random() < 0.5:
            sub = rng.choice(combos)
            cards = [p.hand[i] for i in sub]
            p.hand = [c for i, c in enumerate(p.hand) if i not in sub]
            p.plays += 1
            self.resolve(seat, cards)
            return
        src = self.sources()
        if not src:
            return
        p.hand.append(self.take(rng.choice(src)))
        while len(p.hand) > 5:
            self.discard(seat, p.hand.pop(rng.randrange(len(p.hand))))

    def run(self) -> None:
        seat = 0
        while self.winner < 0 and self.turns < self.rules.max_turns:
            self.turn(seat)
            self.turns += 1
            seat = (seat + 1) % self.P

    # ----- solo -----
    def solo_sources(self) -> list:
        """The five places (0 = discard pile, 1..4 = columns): exposed card or None."""
        p = self.players[0]
        out = [p.pile[-1] if p.pile else None]
        out += [col[-1] if col else None for col in self.columns]
        return out

    def solo_run(self) -> None:
        rng = self.rng
        p = self.players[0]
        while self.turns < self.rules.max_turns:
            srcs = self.solo_sources()
            avail = [i for i in range(5) if srcs[i] is not None]
            combos = [tuple(avail[i] for i in sub)
                      for sub in combinations([srcs[i] for i in avail], 3, 5)]
            if not self.deck:
                if not combos:
                    return
                play = True
            else:
                play = bool(combos) and rng.random() < 0.5
            if play:
                sub = rng.choice(combos)
                cards = []
                for i in sub:
                    cards.append(p.pile.pop() if i == 0 else self.columns[i - 1].pop())
                p.plays += 1
                self.resolve(0, cards)
                self.turns += 1
                if all(p.closed):
                    return
            else:
                card = self.deck.pop()
                place = rng.randrange(5)
                if place == 0:
                    p.pile.append(card)
                else:
                    self.columns[place - 1].append(card)
                self.turns += 1


class SoloGame(Game):
    """Solo: closing fans never wins; the game ends with the third closed fan (checked by the caller)."""

    def add_to_fan(self, seat: int, card: int) -> None:
        p = self.players[seat]
        t = card_type(card)
        p.fans[t].append(card)
        p.fan_sticks[t] += self.st[card]
        if p.fan_sticks[t] == 10:
            p.closed[t] = True


def solo_level(score: int) -> int:
    return min(max((score - 15) // 5, 0), 5)


def play_game(players: int, rules: OracleRules | None = None, seed: int = 0, game: int = 0) -> dict:
    """One complete game with every seat playing ``random``; returns its result row."""
    rules = rules or OracleRules()
    rng = random.Random(f"{seed}-{game}")
    if players == 1:
        g = SoloGame(1, rules, rng)
        g.solo_run()
        p = g.players[0]
        score = sum(p.fan_sticks)
        if all(p.closed):
            score += sum(g.st[c] for c in g.deck)
        return {"turns": g.turns, "timeout": False, "plays": p.plays, "score": score,
                "fans_closed": [sum(p.closed)], "level": solo_level(score), "win": []}
    g = Game(players, rules, rng)
    g.run()
    win = [0.0] * players
    if g.winner >= 0:
        win[g.winner] = 1.0
    return {"turns": g.turns, "timeout": g.winner < 0, "plays": sum(p.plays for p in g.players),
            "win": win, "fans_closed": [sum(p.closed) for p in g.players],
            "score": [sum(p.fan_sticks) for p in g.players]}


def play_games(players: int, n: int, rules: OracleRules | None = None, seed: int = 0, first: int = 0) -> list[dict]:
    return [play_game(players, rules, seed, first + i) for i in range(n)]
