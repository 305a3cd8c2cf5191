"""Sensu strategies of the tests with compiled decisions, in one module so that every lineup of them
shares one compiled lineup module (a module of compiled classes compiles the game's loop once more):
the illegal answers of ``test_sensu_protocol.py`` and the subclasses of ``test_sensu_compiled.py``."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from strategies.base import decision
from strategies.sensu import Planner, Random


# ----- illegal answers (test_sensu_protocol.py)
@decision
def _bad_arrange(obs, prm, rng):
    return 0  # no slot at all


@dataclasses.dataclass(frozen=True)
class Plain(Random):
    """``random`` itself."""
    name: ClassVar[str] = "plain"


@dataclasses.dataclass(frozen=True)
class BadArrange(Random):
    """Plays like ``random`` but answers every arrangement with an empty order."""
    name: ClassVar[str] = "badarrange"
    arrange = _bad_arrange


@dataclasses.dataclass(frozen=True)
class BadDiscard(Planner):
    """A numpy decision that names a hand slot past the end of the hand."""
    name: ClassVar[str] = "baddiscard"

    def discard(self, obs, rng):
        return obs.hand_n + 2


@dataclasses.dataclass(frozen=True)
class BadCourage(Random):
    """A numpy Courage answer that strips a fan of every seat, its own included."""
    name: ClassVar[str] = "badcourage"

    def courage(self, obs, rng):
        return np.zeros((len(obs), obs.players), dtype=np.int64)


@dataclasses.dataclass(frozen=True)
class NoPlace(Random):
    """Has no solo decision ``place``."""
    name: ClassVar[str] = "noplace"
    place = None



# ----- subclasses of compiled strategies (test_sensu_compiled.py)
@dataclass(frozen=True)
class Tweaked(Random):
    """A subclass of a compiled strategy with one numpy decision: that decision is the one played."""
    name: ClassVar[str] = "tweaked"

    def place(self, obs, rng):  # solo: always a column
        return 1 + rng.integers(4)


@dataclass(frozen=True)
class Cautious(Planner):
    """A subclass of a compiled heuristic with the same decisions: it is compiled too."""
    name: ClassVar[str] = "cautious"
