"""Strategy registry and spec parsing: ``name[:k=v,...]`` or ``path/to/file.py:Class[:k=v,...]``."""
from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
import os
from typing import Any

from simcore.errors import SenseiError
from simcore.lineup import load_source_module
from simcore.options import build, describe
from simcore.registry import get_game

from .base import Strategy

#: game name -> module defining ``STRATEGIES`` (a list of Strategy classes)
MODULES: dict[str, str] = {
    "sen": "strategies.sen",
    "sensu": "strategies.sensu",
    "senshi": "strategies.senshi",
    "fan-and-mallet": "strategies.fan_and_mallet",
}


def strategies_for(game: str) -> dict[str, type[Strategy]]:
    """Name -> class of the registered strategies of ``game``."""
    g = get_game(game)
    module = MODULES.get(g.name)
    if module is None:
        return {}
    return {cls.name: cls for cls in importlib.import_module(module).STRATEGIES}


def default_strategy(game: str) -> str:
    """The strategy used when none is given: the module's ``DEFAULT``, else its first strategy."""
    g = get_game(game)
    module = MODULES.get(g.name)
    if module is None:
        raise SenseiError(f"no strategies registered for {g.name}")
    mod = importlib.import_module(module)
    return getattr(mod, "DEFAULT", None) or mod.STRATEGIES[0].name


def _split_params(text: str, owner: str) -> dict[str, str]:
    out: dict[str, str] = {}
    if not text.strip():
        return out
    for item in text.split(","):
        if "=" not in item:
            raise SenseiError(f"strategy {owner}: parameter {item!r} is not key=value")
        k, v = item.split("=", 1)
        k = k.strip()
        if k in out:
            raise SenseiError(f"strategy {owner}: parameter {k!r} given twice")
        out[k] = v.strip()
    return out


def make_strategy(cls: type, values: dict[str, Any], owner: str) -> Strategy:
    if not dataclasses.is_dataclass(cls):
        raise SenseiError(f"strategy {owner}: not a dataclass strategy")
    return build(cls, values, f"strategy {owner}", "parameter")


def resolve(game: str, spec: Any) -> Strategy:
    """A strategy instance from a spec string (or an instance, returned as is)."""
    if not isinstance(spec, str):
        if isinstance(spec, Strategy) or hasattr(spec, "spec"):
            return spec
        raise SenseiError(f"strategy {spec!r}: expected a spec string")
    text = spec.strip()
    if not text:
        raise SenseiError("empty strategy spec")
    head, _, rest = text.partition(":")
    if head.endswith(".py") or os.sep in head or head.startswith("."):
        clsname, _, params = rest.partition(":")
        if not clsname:
            raise SenseiError(f"strategy {text!r}: expected FILE.py:Class[:k=v,...]")
        return load_file_strategy(head, clsname, _split_params(params, clsname), game)
    known = strategies_for(game)
    name = head.strip().lower()
    if name not in known:
        raise SenseiError(f"unknown strategy {head!r} for {get_game(game).name} (known: {', '.join(known) or 'none'})")
    return make_strategy(known[name], _split_params(rest, name), name)


def load_file_strategy(path: str, clsname: str, params: dict[str, Any], game: str | None = None) -> Strategy:
    """Load class ``clsname`` from a user's Python file and make an instance with ``params``."""
    full = os.path.abspath(path)
    if not os.path.isfile(full):
        raise SenseiError(f"strategy file {path!r} not found")
    modname = "sensei_user_" + hashlib.sha1(full.encode()).hexdigest()[:12]
    try:
        module = load_source_module(full, modname)
    except SenseiError:
        raise
    except Exception as exc:  # a user file may fail in any way; report it on one line
        raise SenseiError(f"strategy file {path!r} failed to load: {type(exc).__name__}: {exc}") from None
    cls = getattr(module, clsname, None)
    if not inspect.isclass(cls) or not issubclass(cls, Strategy):
        raise SenseiError(f"strategy file {path!r} has no Strategy subclass {clsname!r}")
    if game is not None and cls.game and cls.game != get_game(game).name:
        raise SenseiError(f"strategy {clsname} is for {cls.game}, not {get_game(game).name}")
    cls._source = (path, clsname)
    return make_strategy(cls, params, clsname)


def describe_strategies(game: str) -> list[dict[str, Any]]:
    out = []
    for name, cls in strategies_for(game).items():
        out.append({"name": name, "doc": inspect.cleandoc(cls.__doc__ or ""), "params": describe(cls)})
    return out


def lineup(game: str, specs: list[Any] | tuple[Any, ...], players: int) -> list[Strategy]:
    """One strategy per seat: a single spec is used for every seat."""
    if not specs:
        raise SenseiError("no strategy given")
    if len(specs) == 1:
        s = resolve(game, specs[0])
        return [s] * players
    if len(specs) != players:
        raise SenseiError(f"{len(specs)} strategies given for {players} seats (give one, or one per seat)")
    return [resolve(game, s) for s in specs]
