"""Sen's reference policy ``threshold``, written as a strategy of one's own in compiled form.

Each decision is a function of ``(obs, prm, rng)`` marked ``@decision``: ``obs`` is what the deciding
player may know (``simcore.games.sen.SenView``), ``prm`` the strategy's parameters by name, ``rng`` its
random stream. ``inline=True`` lets the game loop inline these small decisions (they run every turn). sensei compiles the functions with the lineup that plays them (the first run says so on
stderr; later runs load the machine code from the cache), so this file plays as fast as the built-in
``threshold``::

    sensei play sen --strategy examples/strategies/sen_threshold.py:Threshold:wake=10 --games 100000 --json

gives the same figures as ``--strategy threshold:wake=10`` with the same seed.
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar

from simcore.games.sen import DISCARD, DRAW, FACE_UP, USE, WAKE, Kind, own_lands, own_value, peek_option, top_value
from strategies.base import Strategy, decision, param

UNKNOWN = 31  # an unknown land is worth 279/54 = 31/6 ravens: estimates are kept in sixths, exactly


@decision(inline=True)
def worst_slot(obs, prm, rng):
    """The own land with the largest estimate (lowest slot on ties)."""
    w, worst = 0, -1
    for s in range(own_lands(obs)):
        v = own_value(obs, s)
        e = v * 6 if v >= 0 else UNKNOWN
        if e > worst:
            w, worst = s, e
    return w


@decision(inline=True)
def start(obs, prm, rng):
    total, worst = 0, -1
    for s in range(own_lands(obs)):
        v = own_value(obs, s)
        e = v * 6 if v >= 0 else UNKNOWN
        total += e
        worst = max(worst, e)
    if total <= prm.wake * 6:
        return WAKE
    if top_value(obs) * 6 < worst:
        return FACE_UP
    return DRAW


@decision(inline=True)
def drawn(obs, prm, rng):
    w, worst, unknown = 0, -1, -1
    for s in range(own_lands(obs)):
        v = own_value(obs, s)
        if v < 0 and unknown < 0:
            unknown = s
        e = v * 6 if v >= 0 else UNKNOWN
        if e > worst:
            w, worst = s, e
    if obs.card_kind == Kind.PEEK and unknown >= 0:
        return USE                       # look at the first unknown own land
    if obs.card * 6 < worst:
        return w                         # exchange with the worst land
    return DISCARD


@decision(inline=True)
def peek(obs, prm, rng):
    for s in range(own_lands(obs)):
        if own_value(obs, s) < 0:
            return peek_option(obs.me, s)
    return peek_option(obs.me, 0)


@dataclasses.dataclass(frozen=True)
class Threshold(Strategy):
    """Wake when the estimated own total is at most ``wake``; put a lower card on the worst land; use
    Peek 1 on an unknown own land."""
    game: ClassVar[str] = "sen"
    wake: int = param(10, "say WAKE UP! when the estimated own total (unknown = 279/54) is at most this")

    start = start
    face_up_slot = worst_slot
    drawn = drawn
    peek = peek
