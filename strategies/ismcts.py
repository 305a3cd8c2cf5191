"""``ismcts``: information-set Monte Carlo tree search for every game (see :mod:`simcore.search`).

One search (``simcore.search.make_search``) is compiled and cached per game with the engine's sampler,
apart from the lineups that play it: a lineup with ``ismcts`` compiles only the small decision below,
which calls the game's search with the strategy's parameters. The rollout policy is any of the game's
built-in compiled strategies at its default parameters (parameter ``rollout``, default the game's
reference policy), played through ``_decide`` of the compiled lineup module of the game's heuristics
(one function that dispatches on the strategy and the decision kind, inlined into the rollout loop).

Parameters (every game): ``iterations`` per decision (a decision with one legal option is answered
without a search), ``c`` the exploration constant (rewards are in [0, 1]), ``rollout`` the rollout
strategy, ``horizon`` the rollout decisions after which a rollout is cut and valued by the engine's
``value`` (0: run to the engine's own horizon, see ``docs/search.md``), ``searched`` the decision kind
the search plays (``all``: every kind; Sen's default is ``start``) and ``others`` the built-in strategy
that plays the kinds not searched.
"""
from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass
from typing import ClassVar

import numba
from numba import objmode  # noqa: F401  (the decisions' call into the search)

from simcore.compiled import REFCOUNT, FirstCallCompiles
from simcore.lineup import Lineup
from simcore.registry import get_game
from simcore.search import make_search

from .base import Strategy, decision, param

#: iterations above this are refused (a decision would take minutes)
MAX_ITERATIONS = 200_000


def rollout_lineup(game_name: str, classes: list[type]):
    """The compiled lineup of the game's heuristics (the same module, compiled and cached once, that every
    lineup of them plays), and per rollout candidate its class index and parameter row in it."""
    lu = Lineup(get_game(game_name), [cls() for cls in classes])
    return lu, lu.cls_of_seat.copy(), lu.params.copy()


#: the compiled decision of a game's ``ismcts`` (``{key}``: the game's name as an identifier)
_DECISION = """
def search_{key}(ob, prm, rng):
    iterations, c, which, horizon, other = prm.iterations, prm.c, prm.rollout, prm.horizon, prm.others
    searched = -1 if prm.searched == 0 else 1 << (prm.searched - 1)
    with objmode(opt="int64"):
        opt = search_core_{key}(ob, iterations, c, which, horizon, searched, other, rng)
    return opt
"""


def _ismcts_for(game_name: str, module: str, rollouts: tuple[str, ...], default_rollout: str,
                default_iterations: int, default_c: float, default_horizon: int, doc: str,
                default_searched: str = "all", default_others: str | None = None):
    """The ``ismcts`` strategy class of a game whose strategies live in ``module`` (rollout candidates
    named ``rollouts``); ``default_searched`` the decision kind it searches by default ("all": every
    kind), ``default_others`` the candidate that plays the others (default: the rollout strategy)."""
    mod = importlib.import_module(module)
    by_name = {cls.name: cls for cls in mod.STRATEGIES}
    classes = [by_name[r] for r in rollouts]
    key = game_name.replace("-", "_")
    lu, cls_rows, prm_rows = rollout_lineup(game_name, classes)
    kern = importlib.import_module(get_game(game_name).kernels)
    core, run = make_search(kern, lu.module._decide, cls_rows, prm_rows, key)
    # called from the decision's object mode: its first call in a process compiles it, one process at a time
    globals()[f"search_core_{key}"] = FirstCallCompiles(core)
    globals()[f"run_search_{key}"] = run

    # The decision calls the game's cached search through Python (numba's object mode): a lineup that
    # plays the search then compiles this small function only, instead of linking in (and optimising
    # and generating machine code for, again) the whole search with the rules and rollout strategies in
    # it. The call costs some tens of microseconds per decision, against milliseconds of search.
    exec(compile(_DECISION.format(key=key), f"<ismcts decision: {game_name}>", "exec"), globals())
    search = numba.njit(**REFCOUNT)(globals()[f"search_{key}"])
    globals()[f"search_{key}"] = search
    play = decision(refcount=True)(search)

    ns = {
        "__annotations__": {"iterations": int, "c": float, "rollout": str, "horizon": int, "searched": str,
                            "others": str},
        "__doc__": doc,
        "__module__": __name__,
        "name": "ismcts",
        # a search plays some games a second at most (some tenths of a second a game in Senshi and Sensu):
        # small chunks let workers share a cell and keep an interrupted run's finished games
        "chunk_games": 32,
        "game": game_name,
        "iterations": param(default_iterations, "search iterations per decision (each: one determinization, "
                                                "one walk down the tree, one rollout)",
                            min=1, max=MAX_ITERATIONS),
        "c": param(default_c, "exploration constant of the tree's selection (rewards lie in [0, 1])",
                   min=0.0, max=100.0),
        "rollout": param(default_rollout, "the built-in strategy that plays the rollouts (default parameters)",
                         choices=rollouts),
        "horizon": param(default_horizon, "rollout decisions after which a rollout is cut and valued "
                                          "(0: the engine's horizon)", min=0, max=1_000_000),
        "searched": param(default_searched, "the decision kind the search plays ('all': every kind); the "
                                            "others are played by the strategy 'others'",
                          choices=("all",) + tuple(get_game(game_name).decisions)),
        "others": param(default_others or default_rollout, "the built-in strategy (default parameters) that "
                                                          "plays the decisions not searched",
                        choices=rollouts),
    }
    def inert(self, players: int, rules=None) -> dict[str, str]:
        return {"others": "others has no effect with searched = all"} if self.searched == "all" else {}

    ns["inert"] = inert
    for d in get_game(game_name).decisions:
        ns[d] = play
    qual = _qualname(game_name)
    ns["__qualname__"] = qual
    cls = type(qual, (Strategy,), ns)
    cls.__annotations__ = ns["__annotations__"]
    cls = dataclass(frozen=True)(cls)
    globals()[qual] = cls
    return cls


#: per game: the arguments of :func:`_ismcts_for` (each game's class is built on first use, so that
#: a run of one game neither imports the other engines nor sets up their searches)
_SPECS: dict[str, tuple] = {
    "fan-and-mallet": (
        "strategies.fan_and_mallet", ("random", "strongest", "closer", "keeper", "counter"), "random", 500, 0.7, 0,
        """Information-set MCTS: each decision searches ``iterations`` determinizations (the opponent's hand
    and both decks dealt at random from the unseen followers) down one tree of the seat's information
    sets, rolling out with ``rollout`` to the end of the game (in a match: of the game being played).""",
        "all", None),
    "sen": (
        "strategies.sen", ("random", "threshold", "counter", "watcher", "swapper", "gambler"), "threshold", 200, 0.7, 0,
        """Information-set MCTS at the start of each turn (WAKE UP!, or which pile to take from): each such
    decision searches ``iterations`` determinizations (the lands the seat does not remember and the
    face-down pile dealt at random from the cards it has not seen) down one tree of the seat's
    information sets, rolling out with ``rollout`` to the end of the round and valuing it by the scores
    after the round (the game's result when the round ends it). The decisions within a turn (which slot,
    Take 2, Peek 1, Swap 2) are played by ``others`` (``swapper``); ``searched=all`` searches them too.""",
        "start", "swapper"),
    "senshi": (
        "strategies.senshi", ("random", "greedy", "guard", "racer", "denier", "counter"), "random", 1000, 0.7, 0,
        """Information-set MCTS: each decision searches ``iterations`` determinizations (the tiles buried under
    the stack tops and the unknown part of the other hands dealt at random from the tiles the seat cannot
    place) down one tree of the seat's information sets, rolling out with ``rollout`` to the end of the
    game (reward 1 for the winner).""",
        "all", None),
    "sensu": (
        "strategies.sensu", ("random", "redeemer", "planner", "focus"), "random", 1000, 0.7, 0,
        """Information-set MCTS: each decision searches ``iterations`` determinizations (the deck and the other
    hands' unknown cards dealt at random from the cards the seat has not seen, keeping the cards known to
    be held and how many cards of each reshuffle's deck every hand holds; with ``chosen_fan`` the
    closed-fan deck's order) down one tree of the seat's information sets, rolling out with ``rollout`` to the end
    of the game (reward 1 for the winner; solo: the score / 78).""",
        "all", None),
}

_BUILT: dict[str, type] = {}
_BUILDING = threading.RLock()


def _qualname(game_name: str) -> str:
    return f"Ismcts{''.join(p.title() for p in game_name.split('-'))}"


def for_game(game_name: str) -> type:
    """The ``ismcts`` class of ``game_name`` (built, with its game's search, on first use)."""
    with _BUILDING:
        cls = _BUILT.get(game_name)
        if cls is None:
            module, rollouts, rollout, iterations, c, horizon, doc, searched, others = _SPECS[game_name]
            cls = _BUILT[game_name] = _ismcts_for(game_name, module, rollouts, rollout, iterations, c, horizon,
                                                  doc, default_searched=searched, default_others=others)
        return cls


def strategies_for(game_name: str) -> list[type]:
    """The strategies of this module for ``game_name`` (the registry's hook for shared modules)."""
    return [for_game(game_name)] if game_name in _SPECS else []


def __getattr__(name: str):
    """The classes (``IsmctsSen`` ...), their decisions and searches, built on first access (also by the
    generated lineup modules and by pickle in a worker process); ``STRATEGIES``: every game's class."""
    if name == "STRATEGIES":
        return [for_game(g) for g in _SPECS]
    for g in _SPECS:
        key = g.replace("-", "_")
        if name in (_qualname(g), f"search_{key}", f"search_core_{key}", f"run_search_{key}"):
            for_game(g)
            return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
