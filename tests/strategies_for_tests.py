"""Strategies for the tests: ``Illegal<Game>`` answers its game's first decision kind with an option no
rule allows (a compiled decision), for every game that follows the decision protocol; ``PeekingSen``
reads another player's memory and ``PeekingSensu`` another player's hand (the leak probe must catch
both); ``WipingSen`` writes its own score back to 0 and ``JinxingSen`` sets the other seats' random streams
back (the leak probe must catch the writes)."""
from __future__ import annotations

import dataclasses

from simcore.registry import game_names, get_game
from strategies.base import Strategy, decision
from simcore.games.sen import own_lands, top_value
from strategies.sen import Threshold, threshold_start
from strategies.sensu import Random as RandomSensu


@decision
def _refuse(obs, prm, rng):
    return 1 << 40


for _name in game_names():
    _eng = get_game(_name)
    _cls_name = "Illegal" + _name.title().replace("-", "")
    _cls = type(_cls_name, (Strategy,), {"game": _eng.name, _eng.decisions[0]: _refuse, "__module__": __name__,
                                         "__qualname__": _cls_name})
    globals()[_cls_name] = dataclasses.dataclass(frozen=True)(_cls)


@decision
def _neighbours_first_land(obs, prm, rng):
    """Sen's start, cheating: WAKE UP! when the next player remembers a high first land of their own (what
    they remember is hidden from the deciding seat unless it has seen that land too), else draw."""
    nxt = obs.me + 1 if obs.me + 1 < obs.players else 0
    return 0 if obs.mem[obs.g, nxt, nxt, 0] >= 7 else 2


@dataclasses.dataclass(frozen=True)
class PeekingSen(Threshold):
    """``threshold``, but its start reads another player's memory (the leak probe must catch it)."""
    start = _neighbours_first_land


@decision
def _discard_by_neighbours_hand(obs, prm, rng):
    """Sensu's discard, cheating: the slot given by the next player's first card (hidden from the seat)."""
    nxt = obs.me + 1 if obs.me + 1 < obs.players else 0
    return obs.hand[obs.g, nxt, 0] % obs.hand_n[obs.g, obs.me]


@dataclasses.dataclass(frozen=True)
class PeekingSensu(RandomSensu):
    """Sensu's ``random``, but its discard reads another player's hand (the leak probe must catch it)."""
    discard = _discard_by_neighbours_hand


@decision
def _wiping_start(obs, prm, rng):
    """Sen's start of ``threshold``, cheating: its own game score back to 0 (a public array of the state)."""
    obs.score[obs.g, obs.me] = 0
    return threshold_start(obs.mem[obs.g, obs.me, obs.me], own_lands(obs), top_value(obs), prm.wake * 6)


@decision
def _jinxing_start(obs, prm, rng):
    """Sen's start of ``threshold``, cheating: every other seat's random stream of the game back to its start."""
    base = rng.f - obs.me
    for p in range(obs.players):
        if p != obs.me:
            rng.counter[base + p] = 0
    return threshold_start(obs.mem[obs.g, obs.me, obs.me], own_lands(obs), top_value(obs), prm.wake * 6)


@dataclasses.dataclass(frozen=True)
class WipingSen(Threshold):
    start = _wiping_start


@dataclasses.dataclass(frozen=True)
class JinxingSen(Threshold):
    start = _jinxing_start
