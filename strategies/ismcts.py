"""``ismcts``: information-set Monte Carlo tree search for every game (see :mod:`simcore.search`).

One search (``simcore.search.make_search``) is instantiated per game with the engine's sampler and a
rollout policy. The rollout policy is any of the game's built-in compiled strategies at its default
parameters (parameter ``rollout``, default the game's reference policy): the rollout function made here
dispatches on the chosen strategy and the decision kind, as a compiled lineup does.

Parameters (every game): ``iterations`` per decision (a decision with one legal option is answered
without a search), ``c`` the exploration constant (rewards are in [0, 1]), ``rollout`` the rollout
strategy, ``horizon`` the rollout decisions after which a rollout is cut and valued by the engine's
``value`` (0: run to the engine's own horizon, see ``docs/search.md``).
"""
from __future__ import annotations

import importlib
from collections import namedtuple
from dataclasses import dataclass
from typing import ClassVar

import numba

from simcore.lineup import compiled_values, decision_of
from simcore.compiled import CompiledDecision
from simcore.registry import get_game
from simcore.search import make_search

from .base import Strategy, decision, param

#: iterations above this are refused (a decision would take minutes)
MAX_ITERATIONS = 200_000


def make_rollout(game_name: str, classes: list[type], name: str):
    """A compiled ``rollout(ob, which, rng) -> option`` playing strategy ``classes[which]`` (default
    parameters) at the decision ``ob.kind``; -1 where it has no compiled decision."""
    game = get_game(game_name)
    space: dict = {}
    lines = [f"def {name}(ob, which, rng):", "    kind = ob.kind"]
    for j, cls in enumerate(classes):
        vals = compiled_values(cls())
        fields = list(vals) or ["unused"]
        space[f"_P{j}"] = namedtuple(f"_P{j}", fields)
        args = ", ".join(repr(v) if not isinstance(v, bool) else ("True" if v else "False") for v in vals.values()) \
            or "0"
        lines.append(f"    if which == {j}:")
        lines.append(f"        prm = _P{j}({args})")
        for k, d in enumerate(game.decisions):
            fn = decision_of(cls, d)
            if isinstance(fn, CompiledDecision):
                space[f"_f{j}_{k}"] = fn.fn
                lines.append(f"        if kind == {k}:")
                lines.append(f"            return _f{j}_{k}(ob, prm, rng)")
        lines.append("        return -1")
    lines.append("    return -1")
    exec(compile("\n".join(lines) + "\n", f"<rollout {game_name}>", "exec"), space)
    return numba.njit(space[name])


def _ismcts_for(game_name: str, module: str, rollouts: tuple[str, ...], default_rollout: str,
                default_iterations: int, default_c: float, default_horizon: int, doc: str):
    """The ``ismcts`` strategy class of a game whose strategies live in ``module`` (rollout candidates
    named ``rollouts``)."""
    mod = importlib.import_module(module)
    by_name = {cls.name: cls for cls in mod.STRATEGIES}
    classes = [by_name[r] for r in rollouts]
    key = game_name.replace("-", "_")
    rollout = make_rollout(game_name, classes, f"rollout_{key}")
    kern = importlib.import_module(get_game(game_name).kernels)
    search, run = make_search(kern, rollout, name=f"search_{key}", module=__name__)
    globals()[f"search_{key}"] = search
    globals()[f"run_search_{key}"] = run
    play = decision(refcount=True)(search)

    ns = {
        "__annotations__": {"iterations": int, "c": float, "rollout": str, "horizon": int},
        "__doc__": doc,
        "__module__": __name__,
        "name": "ismcts",
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
    }
    for d in get_game(game_name).decisions:
        ns[d] = play
    qual = f"Ismcts{''.join(p.title() for p in game_name.split('-'))}"
    ns["__qualname__"] = qual
    cls = type(qual, (Strategy,), ns)
    cls.__annotations__ = ns["__annotations__"]
    cls = dataclass(frozen=True)(cls)
    globals()[qual] = cls
    return cls


IsmctsFanAndMallet = _ismcts_for(
    "fan-and-mallet", "strategies.fan_and_mallet", ("random", "strongest", "closer", "keeper", "counter"),
    "random", 500, 0.7, 0,
    """Information-set MCTS: each decision searches ``iterations`` determinizations (the opponent's hand
    and both decks dealt at random from the unseen followers) down one tree of the seat's information
    sets, rolling out with ``rollout`` to the end of the game (in a match: of the game being played).""")

IsmctsSen = _ismcts_for(
    "sen", "strategies.sen", ("random", "threshold", "counter", "watcher", "swapper", "gambler"),
    "threshold", 200, 0.7, 0,
    """Information-set MCTS: each decision searches ``iterations`` determinizations (the lands the seat
    does not remember and the face-down pile dealt at random from the cards it has not seen) down one
    tree of the seat's information sets, rolling out with ``rollout`` to the end of the round and
    valuing it by the scores after the round (the game's result when the round ends it).""")

STRATEGIES = [IsmctsFanAndMallet, IsmctsSen]
