"""The game registry: one line per game, imported lazily."""
from __future__ import annotations

import importlib

from .errors import SenseiError
from .game import Game

#: game name -> "module:Class"
GAMES: dict[str, str] = {
    "sen": "simcore.games.sen:Sen",
    "sensu": "simcore.games.sensu:Sensu",
    "senshi": "simcore.games.senshi:Senshi",
    "fan-and-mallet": "simcore.games.fan_and_mallet:FanAndMallet",
}

_cache: dict[str, Game] = {}


def game_names() -> list[str]:
    return list(GAMES)


def get_game(name: str) -> Game:
    """The engine instance of a registered game (SenseiError for an unknown name)."""
    if isinstance(name, Game):
        return name
    key = str(name).strip().lower()
    if key not in GAMES:
        raise SenseiError(f"unknown game {name!r} (known: {', '.join(GAMES)})")
    if key not in _cache:
        module, cls = GAMES[key].split(":")
        _cache[key] = getattr(importlib.import_module(module), cls)()
    return _cache[key]
