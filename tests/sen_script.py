"""Helpers for scripted Sen deals: build decks and drive turns with a fixed list of answers."""
from __future__ import annotations

import numpy as np

from simcore.games.sen import N_CARDS, Sen
from simcore.rng import game_keys, root_key
from simcore.game import Seats

PLAIN = {v: list(range(4 * v, 4 * v + 4)) for v in range(9)}
NINES = list(range(36, 45))
TAKE2, PEEK, SWAP = [45, 46, 47], [48, 49, 50], [51, 52, 53]


class Cards:
    """Hands out distinct card ids by value or special name."""

    def __init__(self):
        self.free = {v: list(ids) for v, ids in PLAIN.items()}
        self.free[9] = list(NINES)
        self.free["take2"], self.free["peek"], self.free["swap"] = list(TAKE2), list(PEEK), list(SWAP)

    def __call__(self, what):
        return self.free[what].pop(0)


def make_deck(dreams, up, down):
    """A round-0 deck: ``dreams`` (list per player of 4 card specs), the face-up card, the face-down pile
    top first; the remaining cards follow in id order."""
    cards = Cards()
    order = [cards(c) for d in dreams for c in d] + [cards(up)] + [cards(c) for c in down]
    rest = [i for i in range(N_CARDS) if i not in order]
    deck = np.array(order + rest, dtype=np.int8)
    assert sorted(deck.tolist()) == list(range(N_CARDS))
    return deck


class Scripted:
    """A strategy answering decisions from a list of (decision, answer) pairs, in order (batch of 1)."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.seen = []

    def spec(self):
        return "scripted"

    def _next(self, decision, obs):
        self.seen.append((decision, obs))
        want, answer = self.answers.pop(0)
        assert want == decision, f"expected decision {want}, engine asked {decision}"
        if isinstance(answer, tuple):
            return tuple(np.array([a]) for a in answer)
        return np.array([answer])

    def __getattr__(self, decision):
        if decision.startswith("_"):
            raise AttributeError(decision)
        return lambda obs, rng: self._next(decision, obs)


def scripted_game(players, rules, deck_round0, agents, later_decks=None):
    """A batch-of-1 Sen state with a scripted first deal, plus the Seats for ``agents``."""
    eng = Sen()
    keys = game_keys(root_key(0), np.arange(1))
    script = [deck_round0[None, :]] + [None if d is None else d[None, :] for d in (later_decks or [])]
    st = eng.new_state(keys, players, rules, script=script)
    seats = Seats(agents, keys)
    return eng, st, seats
