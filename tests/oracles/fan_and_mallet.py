"""Plain-Python Fan & Mallet, one game at a time, with the reference policies (``random``, ``strongest``).

Written independently of the engine from the rulings (``docs/games/fan-and-mallet.md``), for statistical comparison and as
the speed baseline. Cards are tuples ``(faction, colour, power, is_kid)``.
"""
from __future__ import annotations

import random

COLOURS = 6
RED, BLUE, GREEN, YELLOW, PURPLE, BROWN = range(6)


def follower_powers(stack):
    """Powers (base + bonus) of the followers of a house, bottom first; and the bonuses."""
    n = len(stack)
    shown = {c[2] for c in stack if not c[3]}
    bonus = [0] * n
    mortar = None
    for i, (fac, col, pw, isk) in enumerate(stack):
        if not isk:
            continue
        if col == RED:
            if i > 0 and not stack[i - 1][3]:
                bonus[i] = stack[i - 1][2]
        elif col == BLUE:
            for v in (4, 3, 2, 1):
                if v not in shown:
                    bonus[i] = v
                    break
        elif col == GREEN:
            run = 0
            j = i - 1
            while j >= 0 and not stack[j][3]:
                run += 1
                j -= 1
            j = i + 1
            while j < n and not stack[j][3]:
                run += 1
                j += 1
            bonus[i] = run
        elif col == PURPLE:
            if sum(1 for c in stack if c[0] == fac) <= 2:
                bonus[i] = 4
        elif col == BROWN:
            if all(stack[j][0] != stack[j + 1][0] for j in range(n - 1)):
                bonus[i] = 4
        elif col == YELLOW:
            mortar = i
    if mortar is not None:
        bonus[mortar] = sum(1 for j in range(n) if j != mortar and (stack[j][2] + bonus[j]) % 2 == 1)
    return [c[2] + b for c, b in zip(stack, bonus)], bonus


def possess(stack, house_faction):
    """The faction that possesses a full house, and whether the totals tied."""
    powers, _ = follower_powers(stack)
    tot = [0, 0]
    for c, p in zip(stack, powers):
        tot[c[0]] += p
    if tot[0] == tot[1]:
        return house_faction, True
    return (0 if tot[0] > tot[1] else 1), False


def policy_random(hand, r):
    return r.randrange(len(hand))


def policy_strongest(hand, r):
    best, key = 0, None
    for i, c in enumerate(hand):
        k = (1, c[2], -c[1]) if not c[3] else (0, 0, -c[1])
        if key is None or k > key:
            best, key = i, k
    return best


POLICIES = {"random": policy_random, "strongest": policy_strongest}


def play_one_game(r, policies, starter, start_positions, stats):
    houses = list(range(12))
    r.shuffle(houses)
    origin = [h % 6 for h in houses]
    hfac = [h // 6 for h in houses]
    stacks = [[] for _ in range(12)]
    decks = []
    for f in (0, 1):
        d = [(f, c, p, p == 1 and k == 4) for c in range(COLOURS) for k, p in enumerate((1, 2, 3, 4, 1))]
        r.shuffle(d)
        decks.append(d)
    hands = [[decks[f].pop() for _ in range(6)] for f in (0, 1)]
    pawns = [(start_positions[f] - 1) % 12 for f in (0, 1)]
    markers = [0, 0]
    first = None
    player = starter
    turns = 0
    while True:
        hand = hands[player]
        c = hand.pop(policies[player](hand, r))
        for step in range(1, 13):
            h = (pawns[player] + step) % 12
            if origin[h] != c[1] and len(stacks[h]) < 5 and all(x[1] != c[1] for x in stacks[h]):
                break
        else:
            raise AssertionError("no house for a card")
        stacks[h].append(c)
        pawns[player] = h
        turns += 1
        if len(stacks[h]) == 5:
            win, tie = possess(stacks[h], hfac[h])
            stats["houses"] += 1
            stats["ties"] += tie
            if first is None:
                first = win
                markers[win] += 2
                stats["first_white"] += win == 0
            else:
                markers[win] += 1
            if markers[win] >= 7:
                stats["first_winner_won"] += first == win
                return win, markers, turns
        if decks[player]:
            hand.append(decks[player].pop())
        player = 1 - player


def play_game(seed, policies=("random", "random"), start_positions=(0, 6), match_points=None):
    """One game (or one match with ``match_points``); returns a dict of per-game results."""
    r = random.Random(seed)
    pol = [POLICIES[p] for p in policies]
    stats = {"houses": 0, "ties": 0, "first_white": 0, "first_winner_won": 0}
    points = [0, 0]
    starter = 0
    turns = 0
    games = 0
    while True:
        win, markers, t = play_one_game(r, pol, starter, start_positions, stats)
        turns += t
        games += 1
        if match_points is None:
            return {"winner": win, "turns": turns, "games": games, "markers": markers, **stats}
        points[win] += 7 - markers[1 - win]
        if points[win] >= match_points:
            return {"winner": win, "turns": turns, "games": games, "points": points, **stats}
        starter = 1 - win


def play_games(n, seed=0, policies=("random", "random"), start_positions=(0, 6), match_points=None):
    """Results of ``n`` games seeded ``seed * 1_000_003 + i``."""
    return [play_game(seed * 1_000_003 + i, policies, start_positions, match_points) for i in range(n)]
