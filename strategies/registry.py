"""Strategy registry and spec parsing: ``name[:k=v,...]`` or ``path/to/file.py:Class[:k=v,...]``.

A strategy name resolves, for its game, to

* a strategy shipped with sensei (the game module's ``STRATEGIES``);
* a strategy registered by an installed package through the entry point group ``sensei.strategies``:
  the entry point's name is ``GAME.NAME`` and its value the class, e.g. in the package's
  ``pyproject.toml``::

      [project.entry-points."sensei.strategies"]
      "sen.cautious" = "my_strategies.sen:Cautious"

  (the class's ``name`` and ``game`` must say the same); it is imported only when it is used or listed;
* a strategy of a file registered with :func:`register_files` (``sensei run CONFIG --strategies
  mine.py``): every Strategy class defined in the file with a ``name`` and a ``game``.

Names are unique per game: a plugin or a file may not reuse a name that is already taken.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
import os
import re
import sys
from typing import Any, Iterable

import numpy as np

from simcore.errors import NOT_CTRL_C, SenseiError, StrategyError, error_text, exit_call, interrupt_possible
from simcore.files import not_a_file
from simcore.lineup import load_source_module
from simcore.options import build, check_defaults, check_shadowing, describe
from simcore.registry import get_game

from .base import Strategy

#: game name -> module defining ``STRATEGIES`` (a list of Strategy classes)
MODULES: dict[str, str] = {
    "sen": "strategies.sen",
    "sensu": "strategies.sensu",
    "senshi": "strategies.senshi",
    "fan-and-mallet": "strategies.fan_and_mallet",
}

#: modules of strategies shipped for several games (their ``strategies_for(game)``, else their
#: ``STRATEGIES`` filtered by game), kept apart from the game modules so that a lineup of a game's
#: heuristics does not compile them
SHARED_MODULES: tuple[str, ...] = ("strategies.ismcts",)

#: the entry point group through which installed packages register strategies (``GAME.NAME = module:Class``)
ENTRY_POINT_GROUP = "sensei.strategies"

#: strategies of the files registered with register_files: game -> name -> class; and path -> sha256
_FILE_STRATEGIES: dict[str, dict[str, type[Strategy]]] = {}
_FILES: dict[str, str] = {}
_PLUGIN_CACHE: dict[str, type[Strategy]] = {}
#: class -> "package NAME VERSION" of the strategies loaded through entry points
_PLUGIN_ORIGIN: dict[type, str] = {}


def builtin_strategies(game: str) -> dict[str, type[Strategy]]:
    """Name -> class of the strategies shipped with sensei for ``game``."""
    g = get_game(game)
    module = MODULES.get(g.name)
    if module is None:
        return {}
    out = {cls.name: cls for cls in importlib.import_module(module).STRATEGIES}
    for shared in SHARED_MODULES:
        mod = importlib.import_module(shared)
        found = mod.strategies_for(g.name) if hasattr(mod, "strategies_for") else mod.STRATEGIES
        out.update({cls.name: cls for cls in found if cls.game == g.name})
    return out


def _entry_points(game: str) -> dict[str, Any]:
    """Strategy name -> entry point of the installed packages' strategies for ``game`` (not loaded)."""
    from importlib.metadata import entry_points

    prefix = get_game(game).name + "."
    out = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name.startswith(prefix):
            out[ep.name[len(prefix):]] = ep
    return out


def _origin(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    pkg = f"package {dist.name} {dist.version}" if dist is not None else "an installed package"
    return f"entry point {ep.name!r} of {pkg} (group {ENTRY_POINT_GROUP})"


def _load_plugin(game: str, name: str, ep: Any) -> type[Strategy]:
    key = f"{ep.name}={ep.value}"
    if key in _PLUGIN_CACHE:
        return _PLUGIN_CACHE[key]
    try:
        cls = ep.load()
    except (Exception, SystemExit) as exc:  # a package may fail in any way; report it on one line
        text = " ".join(str(exc).split())
        raise SenseiError(f"strategy {name!r}: {_origin(ep)} failed to load {ep.value!r}: "
                          f"{type(exc).__name__}: {text}") from None
    g = get_game(game).name
    if not (inspect.isclass(cls) and issubclass(cls, Strategy) and dataclasses.is_dataclass(cls)):
        raise SenseiError(f"strategy {name!r}: {_origin(ep)} names {ep.value!r}, which is not a Strategy dataclass")
    if cls.name != name or cls.game != g:
        raise SenseiError(f"strategy {name!r}: {_origin(ep)} names {ep.value!r}, whose name and game are "
                          f"{cls.name!r} and {cls.game!r}, not {name!r} and {g!r}")
    _PLUGIN_CACHE[key] = cls
    dist = getattr(ep, "dist", None)
    _PLUGIN_ORIGIN[cls] = f"package {dist.name} {dist.version}" if dist is not None else f"module {cls.__module__}"
    return cls


def plugin_strategies(game: str) -> dict[str, type[Strategy]]:
    """Name -> class of the strategies installed packages register for ``game`` (each one imported)."""
    builtin = builtin_strategies(game)
    out = {}
    for name, ep in _entry_points(game).items():
        out[name] = _usable_plugin(game, name, ep, builtin)
    return out


def _usable_plugin(game: str, name: str, ep: Any, builtin: dict[str, Any]) -> type[Strategy]:
    """The class of an installed package's entry point, or a one-line SenseiError where it cannot be used."""
    if name in builtin:
        raise SenseiError(f"strategy {name!r}: {_origin(ep)} takes the name of a strategy shipped with sensei")
    return _load_plugin(game, name, ep)


def strategies_for(game: str) -> dict[str, type[Strategy]]:
    """Name -> class of every strategy of ``game``: shipped, installed (entry points), registered files."""
    return {**builtin_strategies(game), **plugin_strategies(game), **_FILE_STRATEGIES.get(get_game(game).name, {})}


def strategy_names(game: str) -> list[str]:
    """Every strategy name of ``game`` (without importing the installed packages' strategies)."""
    names = list(builtin_strategies(game)) + list(_entry_points(game))
    return names + [n for n in _FILE_STRATEGIES.get(get_game(game).name, {}) if n not in names]


def lookup(game: str, name: str) -> type[Strategy] | None:
    """The class of strategy ``name`` of ``game`` (None when there is none), importing only what it needs."""
    builtin = builtin_strategies(game)
    if name in builtin:
        return builtin[name]
    files = _FILE_STRATEGIES.get(get_game(game).name, {})
    if name in files:
        return files[name]
    ep = _entry_points(game).get(name)
    return None if ep is None else _load_plugin(game, name, ep)


def origin(cls: type) -> str:
    """Where a strategy class comes from: ``sensei``, ``package NAME VERSION`` or ``file PATH``."""
    for files in _FILE_STRATEGIES.values():
        if files.get(getattr(cls, "name", None)) is cls:
            return f"file {_file_of(cls)}"
    if cls in _PLUGIN_ORIGIN:
        return _PLUGIN_ORIGIN[cls]
    if cls.__module__.startswith("strategies."):
        return "sensei"
    src = cls.__dict__.get("_source")
    if src is not None:
        return f"file {os.path.abspath(src[0])}"
    return f"module {cls.__module__}"


def _file_of(cls: type) -> str:
    origin_ = cls.__dict__.get("_origin")
    return os.path.abspath(origin_[0]) if origin_ else "?"


def file_sha256(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


#: what a strategy name may be: what a spec's name resolves to (lower case, no ':', no path)
_NAME = re.compile(r"[a-z0-9_][a-z0-9_-]*")


def register_files(paths: Iterable[str]) -> dict[str, str]:
    """Make the strategies of these Python files available by name (replacing any registered before):
    every :class:`Strategy` dataclass defined in a file with a ``name`` and a ``game``. Returns the
    absolute path and sha256 of each file. A name taken by a shipped or installed strategy, or by
    another file, is refused (SenseiError), as is a file without any strategy."""
    _FILE_STRATEGIES.clear()
    _FILES.clear()
    found: dict[str, dict[str, type[Strategy]]] = {}
    files: dict[str, str] = {}
    seen: set[str] = set()
    for path in paths:
        if not os.fspath(path).strip():  # (an empty path would name the current folder)
            raise SenseiError("--strategies '': expected the path of a Python file, got an empty one")
        full = os.path.abspath(os.fspath(path))
        if full in seen:  # the same file given twice: once is enough
            continue
        seen.add(full)
        why = not_a_file(full)
        if why is not None:
            head, colon, _ = os.fspath(path).partition(".py:")
            hint = (f" (--strategies takes the file alone, {head}.py; a spec names its class: -s {path})"
                    if colon and not_a_file(os.path.abspath(head + ".py")) is None else "")
            raise SenseiError(f"--strategies {path!r}: {why}" + (", not a Python file" if why == "is a folder" else "")
                              + hint)
        if not full.endswith(".py"):
            raise SenseiError(f"--strategies {path!r}: expected a Python file (.py)")
        module = _load_module(path)
        classes = [c for c in vars(module).values() if inspect.isclass(c) and issubclass(c, Strategy)
                   and c.__module__ == module.__name__ and dataclasses.is_dataclass(c)
                   and c.__dict__.get("name")]
        if not classes:
            raise SenseiError(f"--strategies {path!r}: defines no Strategy class with a name (a class variable "
                              "name: ClassVar[str] = ...; a class without one is named by its file: "
                              f"-s {path}:CLASS)")
        for cls in classes:
            try:  # a name or game that is no text, a chunk_games that is no count of games
                check_class_vars(cls, f"class {cls.__name__}")
            except SenseiError as exc:
                raise SenseiError(f"--strategies {path!r}: {exc}") from None
            if not cls.game:
                raise SenseiError(f"--strategies {path!r}: strategy class {cls.__name__} has no game "
                                  "(game: ClassVar[str] = ...)")
            try:
                g = get_game(cls.game).name
            except SenseiError as exc:
                raise SenseiError(f"--strategies {path!r}: strategy class {cls.__name__}: {exc}") from None
            if not _NAME.fullmatch(cls.name):
                raise SenseiError(f"--strategies {path!r}: strategy name {cls.name!r} of class {cls.__name__} cannot "
                                  "be given on the command line (lower-case letters, digits, '_' and '-' only)")
            if cls.name in builtin_strategies(g) or cls.name in _entry_points(g):
                raise SenseiError(f"--strategies {path!r}: strategy name {cls.name!r} for {g} is already taken "
                                  "(by a strategy shipped with sensei or an installed package)")
            if cls.name in found.get(g, {}):
                first = found[g][cls.name]
                where = getattr(first, "_origin", (None,))[0] or getattr(sys.modules.get(first.__module__),
                                                                           "__sensei_file__", None)
                raise SenseiError(f"--strategies {path!r}: strategy name {cls.name!r} for {g} is defined twice"
                                  + (f" (class {first.__name__} of {os.path.basename(where)} has it too)"
                                     if where else f" (class {first.__name__} has it too)"))
            try:  # a default that is no value of its parameter (NaN for a number): said now, not when it is used
                check_defaults(cls, f"strategy {cls.name}")
            except SenseiError as exc:
                raise SenseiError(f"--strategies {path!r}: {exc}") from None
            cls._origin = (full, cls.__name__)
            found.setdefault(g, {})[cls.name] = cls
        files[full] = file_sha256(full)
    _FILE_STRATEGIES.update(found)
    _FILES.update(files)
    return dict(files)


def registered_files() -> dict[str, str]:
    """The files of :func:`register_files`: absolute path -> sha256."""
    return dict(_FILES)


def default_strategy(game: str) -> str:
    """The strategy used when none is given: the module's ``DEFAULT``, else its first strategy."""
    g = get_game(game)
    module = MODULES.get(g.name)
    if module is None:
        raise SenseiError(f"no strategies registered for {g.name}")
    mod = importlib.import_module(module)
    return getattr(mod, "DEFAULT", None) or mod.STRATEGIES[0].name


def _split_params(text: str, owner: str, colon: bool = False) -> dict[str, str]:
    """``key=value,...`` as a dict of texts; ``colon``: the spec wrote the ``:`` that comes before them, so
    that nothing after it (``threshold:``) is a parameter list left empty, refused as ``threshold:,wake=8``
    is, not read as the strategy alone."""
    out: dict[str, str] = {}
    if not text.strip():
        if colon:
            raise SenseiError(f"strategy {owner}: nothing after its ':' (give name:key=value,... or the name alone)")
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


#: the most games a strategy's ``chunk_games`` may ask for in a chunk
CHUNK_GAMES_MAX = 10 ** 9


def check_class_vars(cls: type, owner: str) -> None:
    """The class variables a strategy class sets, checked where a run would trip on them later (a
    negative ``chunk_games`` played no chunk and failed with a traceback): SenseiError naming the class."""
    for var in ("name", "game"):
        v = getattr(cls, var, "")
        if not isinstance(v, str):
            raise SenseiError(f"strategy {owner}: its {var} must be text ({var}: ClassVar[str] = ...), not "
                              f"{type(v).__name__} {v!r:.40}")
    check_shadowing(cls, f"strategy {owner}")
    c = getattr(cls, "chunk_games", None)
    if c is not None and (isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 1 <= c <= CHUNK_GAMES_MAX):
        raise SenseiError(f"strategy {owner}: chunk_games must be None or a whole number from 1 to "
                          f"{CHUNK_GAMES_MAX:,} (games per chunk), not {c!r:.40}")


def make_strategy(cls: type, values: dict[str, Any], owner: str) -> Strategy:
    if not dataclasses.is_dataclass(cls):
        raise SenseiError(f"strategy {owner}: not a dataclass strategy")
    check_class_vars(cls, owner)
    try:
        made = build(cls, values, f"strategy {owner}", "parameter")
    except SenseiError:
        raise
    except Exception as exc:  # noqa: BLE001 - a strategy's own __post_init__ that raises: its bug, in one line
        text = " ".join(str(exc).split())
        raise StrategyError(f"strategy {owner} failed when it was made (in its __post_init__, say): "
                            f"{type(exc).__name__}" + (f": {text}" if text else "")) from exc
    for k, v in made.params().items():  # a spec is name:key=value,...: a value with ',' or '=' could not be read back
        if isinstance(v, str) and ("," in v or "=" in v):
            raise SenseiError(f"strategy {owner}: parameter {k}'s value {v!r} cannot be written in a spec (no ',' "
                              "or '=' in a text value)")
    try:  # its spec names it in every table and in --json: text, as the contract has it
        spec = made.spec()
    except Exception as exc:  # noqa: BLE001 - a spec() of its own that raises: its bug, in one line
        raise StrategyError(f"strategy {owner}: its spec() failed: {type(exc).__name__}: {error_text(exc)}") from exc
    if not isinstance(spec, str) or not spec.strip():
        raise SenseiError(f"strategy {owner}: its spec() must return its spec as text, not {type(spec).__name__} "
                          f"{spec!r:.40}")
    return made


def resolve(game: str, spec: Any) -> Strategy:
    """A strategy instance from a spec string (or an instance, returned as is)."""
    if not isinstance(spec, str):
        if isinstance(spec, type) and hasattr(spec, "spec"):
            raise SenseiError(f"strategy {spec.__name__}: a class, not a strategy object (make one: "
                              f"{spec.__name__}())")
        if isinstance(spec, Strategy) or hasattr(spec, "spec"):
            return spec
        raise SenseiError(f"strategy {spec!r}: expected a spec string")
    text = spec.strip()
    if not text:
        raise SenseiError("empty strategy spec")
    at = text.find(".py:")
    if at >= 0:  # FILE.py:Class...: the file's path may hold a ':' of its own
        head, colon, rest = text[:at + 3], ":", text[at + 4:]
    else:
        head, colon, rest = text.partition(":")
    if head.endswith(".py") or os.sep in head or head.startswith("."):
        clsname, colon, params = rest.partition(":")
        if not clsname:
            raise SenseiError(f"strategy {text!r}: expected FILE.py:Class[:k=v,...]")
        return load_file_strategy(head, clsname, _split_params(params, f"{head}:{clsname}", bool(colon)), game)
    name = head.strip().lower()
    cls = lookup(game, name)
    if cls is None:
        g = get_game(game).name
        other = [c for game_, files in sorted(_FILE_STRATEGIES.items()) if game_ != g for n, c in files.items()
                 if n == name]
        if other:  # a --strategies file has it, for another game
            c = other[0]
            raise SenseiError(f"unknown strategy {head!r} for {g}: {name!r} of --strategies {_file_of(c)} (class "
                              f"{c.__name__}) is a {get_game(c.game).name} strategy")
        known = strategy_names(game)
        raise SenseiError(f"unknown strategy {head!r} for {g} (known: {', '.join(known) or 'none'}; a strategy of "
                          "your own: FILE.py:CLASS, or --strategies FILE.py to name it)")
    return make_strategy(cls, _split_params(rest, name, bool(colon)), name)


def _load_module(path: str):
    full = os.path.abspath(path)
    why = not_a_file(full)
    if why is not None:
        raise SenseiError(f"strategy file {path!r}: {why}" + (", not a Python file" if why == "is a folder" else ""))
    modname = "sensei_user_" + hashlib.sha1(os.fsencode(full)).hexdigest()[:12]
    try:
        digest = file_sha256(full)
    except OSError as exc:  # bad input, as an unreadable config is (status 2)
        raise SenseiError(f"strategy file {path!r} cannot be read: {exc.strerror or exc}") from None
    module = sys.modules.get(modname)
    if module is not None and getattr(module, "__sensei_sha256__", None) != digest:  # the file changed
        del sys.modules[modname]
    try:
        module = load_source_module(full, modname)
    except SenseiError:
        raise
    except SystemExit as exc:  # sys.exit() in a user file ends the loading, not the program
        raise SenseiError(f"strategy file {path!r} failed to load: it called {exit_call(exc)}") from None
    except BaseException as exc:  # noqa: BLE001 - a user file may fail in any way; report it on one line
        if isinstance(exc, KeyboardInterrupt):
            if interrupt_possible():  # Ctrl-C while it loaded
                raise
            raise SenseiError(f"strategy file {path!r} failed to load: it raised KeyboardInterrupt "
                              f"({NOT_CTRL_C})") from None
        raise SenseiError(f"strategy file {path!r} failed to load: {type(exc).__name__}: {error_text(exc)}") from None
    module.__sensei_sha256__ = digest
    return module


def load_file_strategy(path: str, clsname: str, params: dict[str, Any], game: str | None = None,
                       registered: bool = False) -> Strategy:
    """Load class ``clsname`` from a user's Python file and make an instance with ``params``.

    ``registered``: the class is one of a file given to :func:`register_files` (its spec is its name);
    otherwise its spec names the file (``FILE.py:Class:...``)."""
    module = _load_module(path)
    cls = getattr(module, clsname, None)
    if not inspect.isclass(cls) or not issubclass(cls, Strategy):
        import difflib
        have = sorted(k for k, v in vars(module).items() if inspect.isclass(v) and issubclass(v, Strategy)
                      and v is not Strategy and v.__module__ == module.__name__)
        near = difflib.get_close_matches(clsname, have, 1) or [k for k in have if k.lower() == clsname.lower()]
        hint = (f": did you mean {near[0]!r}?" if near else
                f" (its Strategy subclasses: {', '.join(have)})" if have else " (it defines none)")
        raise SenseiError(f"strategy file {path!r} has no Strategy subclass {clsname!r}{hint}")
    if game is not None and cls.game and cls.game != get_game(game).name:
        raise SenseiError(f"strategy {cls.name if registered else f'{path}:{clsname}'} is for {cls.game}, not "
                          f"{get_game(game).name}")
    if registered:
        cls._origin = (os.path.abspath(path), clsname)
        return make_strategy(cls, params, cls.name)
    cls._source = (path, clsname)
    return make_strategy(cls, params, f"{path}:{clsname}")  # named as the spec names it, file and class


def describe_strategies(game: str) -> list[dict[str, Any]]:
    """Every strategy of ``game`` (as :func:`strategies_for`) with its docstring, parameters and origin; an
    installed package's entry point that cannot be used is listed after them with its one-line error
    (``error``), so that one broken package does not hide the others."""
    builtin = builtin_strategies(game)
    found: dict[str, type[Strategy]] = dict(builtin)
    broken = []
    for name, ep in _entry_points(game).items():
        try:
            found[name] = _usable_plugin(game, name, ep, builtin)
        except SenseiError as exc:
            broken.append({"name": name, "error": str(exc)})
    found.update(_FILE_STRATEGIES.get(get_game(game).name, {}))
    return [{"name": name, "doc": inspect.cleandoc(cls.__doc__ or ""), "params": describe(cls), "origin": origin(cls)}
            for name, cls in found.items()] + broken


def lineup(game: str, specs: list[Any] | tuple[Any, ...], players: int) -> list[Strategy]:
    """One strategy per seat: a single spec (alone, or a list of one) is used for every seat."""
    if isinstance(players, np.integer):
        players = int(players)
    if not isinstance(players, int) or isinstance(players, bool):
        raise SenseiError(f"players must be an integer, got {players!r:.60}")
    if isinstance(specs, (str, os.PathLike)) or not isinstance(specs, (list, tuple)):
        specs = [specs]  # a spec or a strategy object alone (a string is not a list of one-letter specs)
    if not specs:
        raise SenseiError("no strategy given")
    if len(specs) == 1:
        s = resolve(game, specs[0])
        return [s] * players
    if len(specs) != players:
        raise SenseiError(f"{len(specs)} strategies given for {players} seats (give one, or one per seat)")
    return [resolve(game, s) for s in specs]


def split_spec(spec: str) -> tuple[str, list[tuple[str, str]]]:
    """A full spec ``NAME:k=v,...`` (or ``FILE.py:Class:k=v,...``) as its name and its ``(key, value)`` pairs,
    in the spec's order; a spec without parameters is its name alone."""
    head, sep, tail = str(spec).rpartition(":")
    if not sep or not head or "=" not in tail:
        return str(spec), []
    pairs = []
    for part in tail.split(","):
        k, _, v = part.partition("=")
        pairs.append((k.strip(), v.strip()))
    return head, pairs


def _labels(items: list[tuple[Any, str, list[tuple[str, str]], dict[str, str] | None, str]]) -> list[str]:
    """The labelling rule, for items ``(kind, name, [(key, value), ...], defaults or None, full spec)``: the
    name, plus the parameters whose values differ among the items of the same kind (a name, or a class), in
    the spec's order; when the items of a kind all agree, the parameters not at their defaults (when the
    defaults are known). Two different specs that would still read the same get their full spec."""
    by_kind: dict[Any, list[dict[str, str]]] = {}
    for kind, _, pairs, _, _ in items:
        by_kind.setdefault(kind, []).append(dict(pairs))
    labels = []
    for kind, name, pairs, defaults, _ in items:
        mine = dict(pairs)
        shown = [k for k in mine if any(p.get(k) != mine[k] for p in by_kind[kind])]
        if not shown and defaults is not None:
            shown = [k for k in mine if k in defaults and defaults[k] != mine[k]]
        labels.append(" ".join([name] + [f"{k}={mine[k]}" for k in shown]))
    for i, item in enumerate(items):
        if any(labels[j] == labels[i] and items[j][4] != item[4] for j in range(len(items))):
            labels[i] = item[4]
    return labels


def spec_labels(specs: Any, defaults: dict[str, dict[str, str]] | None = None) -> dict[str, str]:
    """The short label of every full spec of an experiment (``{spec: label}``, in the order given): the
    strategy's name plus only the parameters that differ among the specs of that name, e.g.
    ``guard margin=1 late=8`` next to ``guard margin=0 late=4``, and ``counter`` alone when every
    ``counter`` of the experiment is the same. With ``defaults`` (name -> {parameter: value as in a spec}), a
    strategy whose specs all agree shows the parameters it does not leave at their defaults
    (``threshold wake=8`` alone against ``counter``). Reports, answer sentences and tables label strategies
    by it; the full spec stays one column (or one click) away."""
    unique = list(dict.fromkeys(str(s) for s in specs))
    items = []
    for s in unique:
        name, pairs = split_spec(s)
        items.append((name, name, pairs, (defaults or {}).get(name), s))
    return dict(zip(unique, _labels(items)))


def spec_defaults(agent: Any) -> dict[str, str] | None:
    """A strategy's parameter defaults as they read in a spec (None when it has none to tell)."""
    from .base import _fmt

    if not dataclasses.is_dataclass(agent):
        return None
    return {f.name: _fmt(f.default) for f in dataclasses.fields(agent) if f.init and f.default is not dataclasses.MISSING}


def short_labels(agents: list[Any]) -> list[str]:
    """A short label per seat of ``sensei play``: the rule of :func:`spec_labels` over the seats' strategies,
    and when every seat playing a strategy of that name plays the same, the parameters it does not leave
    at their defaults (``threshold wake=8`` next to ``threshold``)."""
    from .base import _fmt, display_name

    items = []
    for a in agents:
        ps = a.params() if hasattr(a, "params") else {}
        defaults = spec_defaults(a)
        name = display_name(a)
        items.append(((name, type(a)), name, [(k, _fmt(v)) for k, v in ps.items()], defaults,
                      a.spec() if hasattr(a, "spec") else repr(a)))
    return _labels(items)
