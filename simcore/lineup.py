"""Compiled lineups: the generic compiled driver, generated once per set of strategy classes.

A strategy gives each decision either as a compiled function (:func:`simcore.compiled.decision`) or as
a numpy method over a batch of observations. To play the compiled functions at full speed, sensei
writes one small Python module per game and set of strategy classes, with the strategies' functions as
its globals, and lets numba compile (and cache) it:

* ``_decide(S, R, g, seat, cls, params, keys, counter, fw, iw)``: the decision of ``seat`` in game ``g``
  of the batch state ``S`` (the engine's state tuple, rules ``R``), by the strategy class ``cls``;
* ``play(...)``: the compiled lane, every game of ``S`` to its end (or to ``limit`` turns, a timeout, or
  ``max_steps`` decisions), one after another: the engine's ``begin``, then ``observe`` / ``_decide``
  / ``step`` until the game is done;
* ``decide(...)``, ``begin_batch``, ``step_batch``: the same functions looped over the games of the
  batch lane, which asks numpy strategies for their decisions in between.

The module's file is named after a hash of its own text, of every source of the engines and
strategies, of the strategies' files and of numba's version, so a changed source never meets stale
machine code, and an unchanged lineup loads from numba's cache in a few hundredths of a second.

Which classes a module holds: one class in every seat, that class alone; otherwise every class with
compiled decisions for the game in the importable modules the lineup's compiled strategies come from
(so all lineups of built-in strategies share one module per game, also beside a numpy strategy, and a
tournament compiles once), and the lineup's own classes from users' files (not their neighbours).
Every decision's answer goes through :func:`as_option`, which refuses, when the module compiles, a
decision that returns anything but an integer.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib
import math
import os
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any, Sequence

import numba
import numba.extending
import numpy as np

from .compiled import NO_REFCOUNT, CompiledDecision, cache_folder, compile_once, exec_file_module, source_fingerprint
from .errors import IllegalAction, SenseiError, StrategyError, caused_by_interrupt, signal_seen
from .params import class_name, shareable

#: the option a compiled driver passes on for a decision the strategy has no function for
MISSING = -(1 << 62)
#: numba options of the inlined copies in a lineup module: typed as functions of their own, then inlined
#: by LLVM (``forceinline``: much quicker to compile than numba's inlining of the untyped code); not
#: cached by themselves (the lineup module is)
INLINE = {**{k: v for k, v in NO_REFCOUNT.items() if k != "cache"}, "forceinline": True}
#: bump when the generated text changes shape (part of every module's hash)
_VERSION = 8
#: shape of a compiled strategy's scratch arrays ``rng.fw`` (float64) and ``rng.iw`` (int64)
SCRATCH = (16, 64)


#: the words that start the typing error of a compiled decision that returns no integer
_NOT_AN_OPTION = "a compiled decision returns"


def as_option(x):
    """A compiled decision's answer as an option number (int64). The generated modules wrap every decision
    in it, so that one that returns a float, a bool, None or nothing is refused when it compiles, in one
    line that names it (:meth:`Lineup.call`), rather than deep inside the engine's rules."""
    return int(x)


@numba.extending.overload(as_option, jit_options={"forceinline": True})
def _as_option_typed(x):
    if isinstance(x, numba.types.Integer):  # (numba's booleans are no Integer)
        return lambda x: np.int64(x)
    if isinstance(x, numba.types.NoneType):
        what = "nothing (None: no return, it only raises, or it never returns, as after a `while True` without a break)"
    elif isinstance(x, numba.types.Optional):
        what = f"{x.type} or None"
    else:
        what = str(x)
    raise numba.core.errors.TypingError(f"{_NOT_AN_OPTION} {what}, not an integer option")


# ------------------------------------------------------------------------------------------------
# what a strategy class decides, and how
# ------------------------------------------------------------------------------------------------
def decision_of(cls: type, name: str) -> Any:
    """The decision ``name`` of strategy class ``cls``: a :class:`CompiledDecision`, a numpy method,
    or None. The class nearest in the method resolution order that defines ``name`` decides, so a
    subclass that writes a numpy method replaces a compiled one it inherits (and the reverse)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            value = vars(klass)[name]
            if isinstance(value, CompiledDecision):
                return value
            if isinstance(value, staticmethod):
                value = value.__func__
                return value if isinstance(value, CompiledDecision) else None
            return value if callable(value) else None
    return None


def compiled_values(agent: Any) -> dict[str, Any]:
    """The numbers a compiled decision gets as ``prm`` (name -> int, float or bool)."""
    get = getattr(agent, "compiled_values", None)
    if callable(get):
        got = get()
        if not isinstance(got, Mapping):  # (None: an override that forgot its return)
            raise SenseiError(f"strategy {_class_spec(type(agent))}: compiled_values() "
                              f"must return a dict of names to numbers, not {type(got).__name__}")
        for k, v in got.items():
            # numba would wrap an integer beyond 64 bits and compare NaN false: a strategy playing silently
            # as another (wake 2**70 or NaN played as never saying WAKE UP!)
            if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and \
                    not -2 ** 63 <= int(v) < 2 ** 63:
                raise SenseiError(f"strategy {_class_spec(type(agent))}: compiled_values()[{k!r}] = {v} does not "
                                  "fit in 64 bits")
            if isinstance(v, (float, np.floating)) and not math.isfinite(float(v)):
                raise SenseiError(f"strategy {_class_spec(type(agent))}: compiled_values()[{k!r}] = {v} is not a "
                                  "finite number")
        return dict(got)
    params = getattr(agent, "params", None)
    return {k: v for k, v in (params() if callable(params) else {}).items()
            if isinstance(v, (bool, int, float))}


def _has_compiled(cls: type, decisions: Sequence[str]) -> bool:
    return any(isinstance(decision_of(cls, d), CompiledDecision) for d in decisions)


def _module_classes(game: Any, module_name: str) -> list[type]:
    """Strategy classes of ``game`` with compiled decisions defined in module ``module_name``."""
    mod = sys.modules.get(module_name)
    if mod is None:
        return []
    out = []
    for value in vars(mod).values():
        if (isinstance(value, type) and getattr(value, "game", None) == game.name
                and value.__module__ == module_name and _has_compiled(value, game.decisions)):
            out.append(value)
    return out


def _source_of(cls: type) -> tuple[str, str | None]:
    """(module name, file path for modules loaded from a user's file, else None)."""
    user = getattr(sys.modules.get(cls.__module__), "__sensei_file__", None)
    return cls.__module__, os.path.abspath(user) if user else None


def load_source_module(path: str, modname: str):
    """Import the Python file ``path`` as module ``modname`` (once per process)."""
    module = sys.modules.get(modname)
    if module is not None:
        return module
    module = exec_file_module(modname, path, __sensei_file__=path)
    if module is None:
        raise SenseiError(f"{path!r} cannot be loaded as Python")
    return module


def resolve_class(module_name: str, path: str | None, qualname: str) -> type:
    """A strategy class by module (or user file) and qualified name (for generated modules)."""
    mod = load_source_module(path, module_name) if path else importlib.import_module(module_name)
    obj: Any = mod
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def resolve_decision(module_name: str, path: str | None, qualname: str):
    """The numba function of a compiled decision by module (or user file) and qualified name (for
    generated modules)."""
    found = resolve_class(module_name, path, qualname)
    return found.fn if isinstance(found, CompiledDecision) else found


def inline_options(fn) -> dict:
    """numba options of a decision's copy that the compiled lane inlines: :data:`INLINE`, with reference
    counting kept for a decision compiled with it (``@decision(refcount=True, inline=True)``)."""
    if getattr(fn, "targetoptions", {}).get("_nrt"):
        return {**INLINE, "_nrt": True}
    return INLINE


def local_copy(fn):
    """A numba function compiled like ``fn`` but not cached on its own (nor inlined by LLVM): for a lineup
    module whose parameter tuple class is its own (see :mod:`simcore.params`)."""
    opts = {k: v for k, v in fn.targetoptions.items() if k not in ("cache", "forceinline", "nopython")}
    return numba.njit(**opts)(fn.py_func)


def _where(d: CompiledDecision) -> tuple[str, str | None, str] | None:
    """(module, user file or None, name) that finds the compiled decision ``d`` again in a fresh process:
    its function's qualified name, or else the name its module gives the decision (``play = decision(f)``
    leaves ``f`` a plain function under its own name); None when neither finds it (a function made in a
    local scope)."""
    fn = getattr(d.fn, "py_func", d.fn)
    module, qualname = fn.__module__, fn.__qualname__
    if module not in sys.modules:
        return None
    user = getattr(sys.modules[module], "__sensei_file__", None)
    path = os.path.abspath(user) if user else None

    def finds(name: str) -> bool:
        try:
            return resolve_decision(module, path, name) is d.fn
        except AttributeError:
            return False

    if "<locals>" not in qualname and finds(qualname):
        return module, path, qualname
    for name, value in list(vars(sys.modules[module]).items()):
        if (value is d or value is d.fn) and finds(name):
            return module, path, name
    return None


# ------------------------------------------------------------------------------------------------
# the generated module
# ------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _ClassPlan:
    cls: type
    module: str
    path: str | None
    qualname: str
    compiled: tuple[str, ...]             # the decisions given as compiled functions
    fields: tuple[tuple[str, str], ...]   # compiled parameter (name, 'int' | 'float' | 'bool')
    where: tuple                          # per compiled decision: (module, file, qualname), or None
    inline: tuple                         # per compiled decision: inlined into the compiled lane


def _value_type(v: Any) -> str:
    if isinstance(v, bool) or isinstance(v, np.bool_):
        return "bool"
    if isinstance(v, (int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float"
    raise SenseiError(f"compiled parameter value {v!r} is not a number")


def _plan(game: Any, cls: type, sample: Any) -> _ClassPlan:
    module, path = _source_of(cls)
    compiled = tuple(d for d in game.decisions if isinstance(decision_of(cls, d), CompiledDecision))
    fields = tuple((k, _value_type(v)) for k, v in compiled_values(sample).items()) if sample is not None else ()
    where = tuple(_where(decision_of(cls, d)) for d in compiled)
    inline = tuple(bool(decision_of(cls, d).inline) for d in compiled)
    return _ClassPlan(cls, module, path, cls.__qualname__, compiled, fields, where, inline)


def _render(game: Any, plans: Sequence[_ClassPlan]) -> str:
    step_inline = "step_inline" if game.step_inline else "step"
    lines = [
        f'"""sensei compiled lineup: {game.name}, {len(plans)} strategy classes by number (``cls``).',
        "",
        "Written by simcore.lineup; its name is a hash of its text and of every source it depends on. The",
        "text names decision functions, not classes: classes with the same decision functions and parameter",
        "types (strategies that differ only in their parameter values) share one module.",
        '"""',
        "from collections import namedtuple",
        "",
        "import numba",
        "import numpy as np",
        "",
        "from simcore.compiled import LOOP, NO_REFCOUNT",
        "from simcore.lineup import INLINE, as_option, inline_options, local_copy, resolve_decision",
        "from simcore.rng import Stream",
        f"from {game.kernels} import begin as _begin, observe as _observe",
        f"from {game.kernels} import {step_inline} as _step_inline",
        "",
        f"MISSING = {MISSING}",
    ]
    kern = importlib.import_module(game.kernels)
    if hasattr(kern, "begin_batch") and hasattr(kern, "step_batch"):
        # the engine's own batch loops (compiled and cached once with the engine)
        lines.insert(lines.index(f"MISSING = {MISSING}") - 1,
                     f"from {game.kernels} import begin_batch as _begin_batch, step_batch as _step_batch")
    else:  # the batch loops over the engine's rule steps, made here
        lines += [
            "",
            "",
            "@numba.njit(**NO_REFCOUNT)",
            "def _begin_batch(S, R, idx):",
            "    for i in range(idx.shape[0]):",
            "        _begin(S, R, idx[i])",
            "",
            "",
            "@numba.njit(**NO_REFCOUNT)",
            "def _step_batch(S, R, idx, opts, missing):",
            "    for i in range(idx.shape[0]):",
            "        if opts[i] == missing or not _step_inline(S, R, idx[i], opts[i]):",
            "            return i",
            "    return -1",
        ]
    # one parameter type per field list, so that classes with the same parameters share machine code
    # (the classes of simcore.params, shared by every module, so that a cached decision serves them all)
    shapes = _shapes(plans)
    for fields, k in shapes.items():
        names = [f for f, _ in fields]
        if shareable(names):
            lines.append(f"from simcore.params import {class_name(names)} as _P{k}")
        else:
            lines.append(f"_P{k} = namedtuple('_P{k}', {names!r})")
    # one function per distinct decision function and parameter type: classes that inherit a decision (a
    # subclass, or built-in strategies that differ only in their parameters) share its code in the module
    calls, fns = _calls(plans, shapes)
    for n, (j, d, w, local, own) in enumerate(fns):
        if w is None:  # injected into the module's globals (a module kept in memory, not cached)
            lines.append(f"_f{n} = _INJECTED[{j}][{d!r}]")
        elif local:
            # parameters of this module's own tuple class: a cached decision may not be typed with it
            # (its cache would name this module), so the module compiles a copy of its own
            lines.append(f"_f{n} = local_copy(resolve_decision{w!r})")
        else:
            lines.append(f"_f{n} = resolve_decision{w!r}")
        # the compiled lane's form: the same decision as a function numba inlines, if so marked (a
        # cached decision marked inline is already one that LLVM inlines)
        lines.append(f"_g{n} = numba.njit(**inline_options(_f{n}))(_f{n}.py_func)" if own else f"_g{n} = _f{n}")
    lines += ["", ""] + _render_decide(game, plans, shapes, calls, inline=False)
    lines += ["", ""] + _render_decide(game, plans, shapes, calls, inline=True)
    lines += [
        "",
        "",
        "@numba.njit(**LOOP)",
        "def play(S, R, cls_of_seat, params, keys, counter, fw, iw, limit, max_steps, err):",
        "    done, turns, timeout, actor, dkind = S[0], S[1], S[2], S[3], S[4]",
        "    for g in range(done.shape[0]):",
        "        _begin(S, R, g)",
        "        steps = 0",
        "        while not done[g]:",
        "            if turns[g] >= limit:",
        "                timeout[g] = True",
        "                done[g] = True",
        "                break",
        "            if steps == max_steps:",
        "                break",
        "            seat = actor[g]",
        "            opt = _decide_inline(S, R, g, seat, cls_of_seat[seat], params, keys, counter, fw, iw)",
        "            kind = dkind[g]",
        "            if opt == MISSING or not _step_inline(S, R, g, opt):",
        "                err[0] = g",
        "                err[1] = seat",
        "                err[2] = kind",
        "                err[3] = opt",
        "                return False",
        "            steps += 1",
        "    return True",
        "",
        "",
        "@numba.njit(**NO_REFCOUNT)",
        "def decide(S, R, idx, cls_of_seat, params, keys, counter, fw, iw, out):",
        "    actor = S[3]",
        "    for i in range(idx.shape[0]):",
        "        g = idx[i]",
        "        seat = actor[g]",
        "        out[i] = _decide(S, R, g, seat, cls_of_seat[seat], params, keys, counter, fw, iw)",
        "",
        "",
        "def begin_batch(S, R, idx):",
        "    _begin_batch(S, R, idx)",
        "",
        "",
        "def step_batch(S, R, idx, opts):",
        "    return _step_batch(S, R, idx, opts, MISSING)",
        "",
    ]
    return "\n".join(lines)


def _shapes(plans: Sequence[_ClassPlan]) -> dict[tuple, int]:
    """The module's parameter types: field list -> number, in the order of the classes."""
    shapes: dict[tuple, int] = {}
    for p in plans:
        shapes.setdefault(p.fields, len(shapes))
    return shapes


def _calls(plans: Sequence[_ClassPlan], shapes: dict) -> tuple[dict, list]:
    """The module's decision functions, each once: ``calls`` maps each decision to its call sites,
    (parameter type, function number) -> the class indices that make it there (in class order), and
    ``fns`` lists per function number (first class index, decision, where it is found, compiled as a
    local copy, inlined by a copy of its own)."""
    calls: dict = {}
    fns: list = []
    numbers: dict = {}
    for j, p in enumerate(plans):
        local_params = not shareable([f for f, _ in p.fields])
        shape = shapes[p.fields]
        for d, w, inl in zip(p.compiled, p.where, p.inline):
            found = decision_of(p.cls, d)
            cached = getattr(found, "cached", False)
            local = w is not None and local_params and cached
            own = inl and not cached
            # the same function object is the same code; a local copy is one per parameter type
            key = (id(found.fn), shape if local else None, own)
            if key not in numbers:
                numbers[key] = len(fns)
                fns.append((j, d, w, local, own))
            calls.setdefault(d, {}).setdefault((shape, numbers[key]), []).append(j)
    return calls, fns


def _render_decide(game: Any, plans: Sequence[_ClassPlan], shapes: dict, calls: dict, inline: bool) -> list[str]:
    """``_decide`` (calls the strategies' compiled decisions; the batch lane) or ``_decide_inline`` (the
    same with every decision inlined; the compiled lane, where a call would copy the observation). By
    decision kind, then by the function that makes it (each function once, for every class that uses it:
    the code the compiler works through grows with the distinct decisions, not with the classes)."""
    f = "_g" if inline else "_f"
    lines = [
        "@numba.njit(**INLINE)",
        f"def _decide{'_inline' if inline else ''}(S, R, g, seat, cls, params, keys, counter, fw, iw):",
        "    kind = S[4][g]",
        "    ob = _observe(S, R, g, seat)",
        "    rng = Stream(keys, counter, g * params.shape[0] + seat, fw, iw)",
    ]
    fields_of = {v: k for k, v in shapes.items()}
    for k, name in enumerate(game.decisions):
        if name not in calls:
            continue
        lines.append(f"    if kind == {k}:")
        for (shape, n), js in calls[name].items():  # in the order of their first class
            args = []
            for i, (_, t) in enumerate(fields_of[shape]):
                x = f"params[seat, {i}]"
                args.append({"int": f"np.int64({x})", "bool": f"{x} != 0.0", "float": x}[t])
            lines.append(f"        if {' or '.join(f'cls == {j}' for j in js)}:")
            lines.append(f"            prm = _P{shape}({', '.join(args)}{',' if len(args) == 1 else ''})")
            lines.append(f"            return as_option({f}{n}(ob, prm, rng))")
        lines.append("        return MISSING")
    lines.append("    return MISSING")
    return lines


_DIGESTS: dict = {}


def _file_digest(path: str, remember: bool = False) -> str:
    """The sha1 of a file's bytes (with ``remember``, kept per path, modification time and size: for the
    many files of a package)."""
    if not remember:
        with open(path, "rb") as fh:
            return hashlib.sha1(fh.read()).hexdigest()
    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    d = _DIGESTS.get(key)
    if d is None:
        d = _DIGESTS[key] = _file_digest(path)
    return d


#: a package of strategies with more source files than this is keyed by its strategies' own files only
_PACKAGE_FILES = 400


def _outside_sources(plans: Sequence[_ClassPlan]) -> list[str]:
    """The source files a lineup's compiled code may be made of that the project's source fingerprint
    does not cover: those of the modules (not loaded from a user's file, whose file is keyed already) that
    its compiled decisions come from, e.g. an installed package of strategies. For a module inside a
    package, every Python file of its top-level package (so that a helper in a sibling module counts too),
    unless the package has more than ``_PACKAGE_FILES`` files. The modules of the classes themselves are
    not: the module's text holds all that a class brings (its decisions by name, its parameter types),
    so a class that only gives built-in decisions other parameter values shares the built-ins' module."""
    from .compiled import in_source_dirs
    names: set[str] = set()
    for p in plans:
        names.update(w[0] for w in p.where if w is not None)
    files: set[str] = set()
    for name in names:
        mod = sys.modules.get(name)
        f = getattr(mod, "__file__", None)
        if not f or getattr(mod, "__sensei_file__", None) or not f.endswith(".py"):
            continue
        f = os.path.abspath(f)
        if in_source_dirs(f):
            continue
        top = sys.modules.get(name.split(".")[0])
        top_file = getattr(top, "__file__", None) if "." in name else None
        found = []
        if top_file and os.path.basename(top_file) == "__init__.py":
            for root, dirs, fnames in os.walk(os.path.dirname(os.path.abspath(top_file))):
                dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
                found += [os.path.join(root, n) for n in fnames if n.endswith(".py")]
                if len(found) > _PACKAGE_FILES:
                    found = []
                    break
        files.update(found or [f])
    return sorted(files)


_LOCK = threading.Lock()
_LOADED: dict[str, Any] = {}
#: guards the compile notice, printed once per lineup module and process
_NOTICE_LOCK = threading.Lock()
#: seconds during which a notice of one process stands for the others (worker processes of one run
#: compiling the same lineup say it once); an older notice file is of an earlier run that did not finish
NOTICE_FRESH = 600.0
#: the function of the generated module whose first compilation compiles each lane's own code
_LANE_OF = {"play": "compiled", "decide": "batch"}


def _claim_notice(path: str) -> bool:
    """Whether this process is the one to say that ``path``'s lineup is compiling: the first to create the
    notice file, or to find it stale; True where the cache folder cannot be written."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except FileExistsError:
        try:
            if time.time() - os.path.getmtime(path) <= NOTICE_FRESH:
                return False
            os.utime(path)
        except OSError:
            pass
        return True
    except OSError:
        return True


def _load(game: Any, plans: Sequence[_ClassPlan]):
    """The generated module of ``plans`` (written and imported on first use in a process)."""
    text = _render(game, plans)
    if any(w is None for p in plans for w in p.where):
        return _load_in_memory(text, plans)
    h = hashlib.sha1()
    for part in (str(_VERSION), text, source_fingerprint(), numba.__version__, sys.version):
        h.update(part.encode("utf-8", "surrogateescape"))
    # the user's files its compiled decisions come from (a class of a user's file that only inherits
    # built-in decisions, with parameter values of its own, shares the built-ins' module and machine code)
    for f in sorted({w[1] for p in plans for w in p.where if w is not None and w[1]}):
        h.update(_file_digest(f).encode("utf-8", "surrogateescape"))
    for f in _outside_sources(plans):  # an installed package's strategies: their sources are part of the key
        h.update(os.fsencode(f) + _file_digest(f, remember=True).encode("utf-8", "surrogateescape"))
    digest = h.hexdigest()[:20]
    with _LOCK:
        mod = _LOADED.get(digest)
        if mod is not None:
            return mod
        folder = _lineups_folder()
        os.makedirs(folder, exist_ok=True)
        name = f"sensei_lineup_{digest}"
        path = os.path.join(folder, name + ".py")
        if not os.path.exists(path):
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as fh:
                fh.write(text)
            os.replace(tmp, path)
        mod = load_source_module(path, name)
        mod.__sensei_marker__ = path[:-3] + ".compiled"
        mod.__sensei_text__ = text
        _LOADED[digest] = mod
        return mod


def _lineups_folder() -> str:
    return os.path.join(numba.config.CACHE_DIR or cache_folder(source_fingerprint()), "lineups")


class _LineupFinder:
    """Finds a generated lineup module by its name in the cache folder, so that a fresh process can
    always import it: numba's cache of a function typed with one of its classes (a parameter tuple)
    names it, and unpickling that cache's index imports it."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        import importlib.util

        if path is not None or not name.startswith("sensei_lineup_") or name == "sensei_lineup_local":
            return None
        f = os.path.join(_lineups_folder(), name + ".py")
        return importlib.util.spec_from_file_location(name, f) if os.path.exists(f) else None


if not any(isinstance(f, type) and f.__name__ == "_LineupFinder" for f in sys.meta_path):
    sys.meta_path.append(_LineupFinder)


def _load_in_memory(text: str, plans: Sequence[_ClassPlan]):
    """A lineup with decisions made in a local scope: the module is built in memory with those functions
    given as globals (numba cannot cache it; each process compiles it again)."""
    import types
    import warnings

    mod = types.ModuleType("sensei_lineup_local")
    space = vars(mod)
    space["_INJECTED"] = {j: {d: decision_of(p.cls, d).fn for d in p.compiled} for j, p in enumerate(plans)}
    space["_LOCAL"] = _nocache()
    space["_LOCAL_LOOP"] = {**_nocache(), "nogil": True}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba.core.errors.NumbaWarning)
        exec(compile(text.replace("**NO_REFCOUNT)", "**_LOCAL)").replace("**LOOP)", "**_LOCAL_LOOP)"),
                     "<sensei lineup>", "exec"), space)
    return mod


def _nocache() -> dict:
    from .compiled import NO_REFCOUNT
    return {k: v for k, v in NO_REFCOUNT.items() if k != "cache"}


def _shorten_groups(text: str, longest: int = 60) -> str:
    """``text`` with every bracketed group longer than ``longest`` characters cut to ``(...)`` (numba
    spells out an observation's type with all its fields)."""
    out, stack = [], []
    for ch in text:
        if ch == "(":
            stack.append(len(out))
        out.append(ch)
        if ch == ")" and stack:
            start = stack.pop()
            if len(out) - start > longest:
                out[start:] = list("(...)")
    return "".join(out)


def _compiler_message(exc: BaseException) -> str:
    """numba's first real message in an error (not the pipeline's headers), with the first place in
    the user's or the project's code it points at."""
    import re

    text = str(exc).splitlines()
    skip = ("Failed in ", "During:", "File ", "^", "<source elided>", "- Of which", "There are ", "Overload",
            "- Resolution failure")
    lines = [t.strip() for t in text if t.strip() and not t.startswith(" ") and not t.strip().startswith(skip)
             and t.strip() != "None"]
    message = _shorten_groups(lines[0]) if lines else type(exc).__name__
    if message.endswith("found for signature:"):  # the signature is on a line of its own: ">>> f(types)"
        sig = next((t.strip()[4:] for t in text if t.strip().startswith(">>> ")), None)
        if sig:
            message += " " + _shorten_groups(sig)
    unknown = re.match(r"Unknown attribute '(\w+)' of type P(__\w+)?\b", message)
    if unknown:  # prm is the parameters class of compiled_values(): a subclass's own parameter is not in it
        message = (f"prm has no {unknown.group(1)!r}: prm holds what the strategy's compiled_values() gives (by "
                   "default its parameters; a built-in strategy that overrides it gives a layout of its own, "
                   "so a subclass's new parameter reaches prm only when the subclass's compiled_values() adds it)")
    if re.match(r"No implementation of function Function\(<(built-in )?function (zeros|empty|ones|full|array|arange|"
                r"copy|zeros_like|empty_like|ones_like|full_like)>\)", message):
        # (numba's typing without reference counts finds no way to make the array, and says only that)
        message += ("; a compiled decision makes a new array only when marked @decision(refcount=True): if it is "
                    "not, mark it so, or take scratch space from rng.fw and rng.iw")
    called = re.search(r"Untyped global name '(\w+)': Cannot determine Numba type of <class '[\w.]*CompiledDecision'>",
                       " ".join(text))
    if called:  # a decision (a built-in's, say) called from another: its compiled function is its .fn
        message = (f"{called.group(1)} is a decision (@decision), which compiled code calls through its compiled "
                   f"function: write `{called.group(1)}_fn = {called.group(1)}.fn` at the module's level and call "
                   f"`{called.group(1)}_fn(obs, prm, rng)`")
    if any("NRT required but not enabled" in t for t in text):
        # what numba's chain of failed overloads comes down to: the decision makes a new object
        message = ("it makes a new array, list or dict, which a compiled decision may do only when marked "
                   "@decision(refcount=True)")
    for t in text:
        # the first place in the user's or the project's code: a traceback's 'File "F", line N' or numba's
        # 'During: lowering ... at F (N)'
        m = re.search(r'File "([^"]+)", line (\d+)', t) or re.search(r'^During: lowering .* at (\S+\.py) \((\d+)\)$', t)
        if m and "site-packages" not in m.group(1) and "sensei_lineup_" not in m.group(1):
            inside = _sensei_function(m.group(1), int(m.group(2)))
            # a helper of sensei's that the decision called (numba names no line of the decision then): its name
            # points at the call whose arguments to check
            return (f"{message} ({os.path.basename(m.group(1))}, line {m.group(2)}" +
                    (f", in sensei's {inside}(): check what the decision gives it)" if inside else ")"))
    return message


#: the folders of sensei's own compiled helpers (a place there is in a function the decision called)
_SENSEI_CODE = tuple(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), d) + os.sep
                     for d in ("simcore", "strategies"))


def _sensei_function(path: str, line: int) -> str | None:
    """The name of the function of sensei's own code (``simcore``, ``strategies``) that holds ``line`` of
    ``path``; None for a file elsewhere (a user's) or where it cannot be read."""
    import re

    try:
        full = os.path.realpath(path if os.path.isabs(path) else os.path.abspath(path))
        if not full.startswith(tuple(os.path.realpath(d.rstrip(os.sep)) + os.sep for d in _SENSEI_CODE)):
            return None
        with open(full, encoding="utf-8") as fh:
            lines = fh.read().splitlines()[:line]
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    for t in reversed(lines):
        m = re.match(r"def (\w+)\(", t)  # a function of the module's own level (sensei's helpers are)
        if m:
            return m.group(1)
    return None


class Lineup:
    """A lineup's strategies as the drivers use them: per seat the strategy class index, the compiled
    parameters (one row per seat), which decisions each class compiles, and the generated module."""

    def __init__(self, game: Any, agents: Sequence[Any]):
        self.game = game
        self.agents = list(agents)
        classes: list[type] = []
        for a in self.agents:
            if type(a) not in classes:
                classes.append(type(a))
                check_decision_names(game, type(a))
        # One class in every seat (self-play, the common case): a module of that class alone, whose loop
        # inlines one strategy's decisions (the same strategy in a module of six classes ran 12-19% slower).
        # Mixed lineups: every compiled class of the modules of the lineup's compiled classes, in a stable
        # order, so that they share modules (a class with numpy decisions only brings no module in: a
        # user's numpy strategy beside built-in ones plays the built-ins' module, compiled once for all
        # their lineups). A user's file brings only the lineup's own classes: a draft class beside them in
        # the file that does not compile must not break the others.
        pool: list[type] = []
        shared = len(classes) > 1
        for mod in sorted({c.__module__ for c in classes if shared and _has_compiled(c, game.decisions)
                           and _source_of(c)[1] is None}):
            for c in sorted(_module_classes(game, mod), key=lambda c: c.__qualname__):
                if c not in pool:
                    pool.append(c)
        for c in classes:
            if _has_compiled(c, game.decisions) and c not in pool:
                pool.append(c)
        samples = {}
        for a in self.agents:
            samples.setdefault(type(a), a)
        self.plans = [_plan(game, c, samples.get(c, _default_instance(c))) for c in pool]
        self.index = {p.cls: j for j, p in enumerate(self.plans)}
        P = len(self.agents)
        self.cls_of_seat = np.array([self.index.get(type(a), -1) for a in self.agents], dtype=np.int64)
        width = max([len(p.fields) for p in self.plans] + [1])
        self.params = np.zeros((P, width), dtype=np.float64)
        for s, a in enumerate(self.agents):
            if type(a) in self.index:
                for k, v in enumerate(compiled_values(a).values()):
                    self.params[s, k] = float(v)
        #: per seat: decision name -> "compiled" | "numpy" | None
        self.forms = [{d: _form(decision_of(type(a), d), a, d) for d in game.decisions} for a in self.agents]
        self._module = None

    @property
    def all_compiled(self) -> bool:
        """Every seat's every decision is compiled or absent (absent ones are errors if reached)."""
        return all(f != "numpy" for forms in self.forms for f in forms.values()) and (self.cls_of_seat >= 0).all()

    @property
    def module(self):
        if self._module is None:
            try:
                self._module = _load(self.game, self.plans)
            except SenseiError:
                raise
            except Exception as exc:  # a user file that fails to import
                raise SenseiError(f"compiled lineup for {self.game.name} failed to load: "
                                  f"{type(exc).__name__}: {_compiler_message(exc)}") from None
        return self._module

    def _marker(self, lane: str) -> str | None:
        marker = getattr(self.module, "__sensei_marker__", None)
        return marker if marker is None or lane == "compiled" else marker[:-len(".compiled")] + f".{lane}.compiled"

    def compile_notice(self, lane: str = "compiled") -> str | None:
        """A line to print when the lineup's compiled code for ``lane`` (``compiled``: the game loop;
        ``batch``: the decisions the batch lane asks) is not cached yet (first use), else None."""
        if lane == "batch" and not self.plans:  # numpy decisions only: nothing of the lineup's own to compile
            return None
        marker = self._marker(lane)
        if marker and not os.path.exists(marker):
            with _NOTICE_LOCK:  # once per process (threads playing chunks side by side ask at once)
                noticed = self.module.__dict__.setdefault("__sensei_noticed__", set())
                if lane in noticed:
                    return None
                noticed.add(lane)
                if not _claim_notice(marker + ".notice"):  # and once per run (its worker processes)
                    return None
            names = ", ".join(_class_spec(p.cls) for p in self.plans) or "the rules"
            what = "" if lane == "compiled" else " for traces and the batch lane"
            return f"compiling {self.game.name} ({names}){what}; later runs load it from the cache"
        return None

    def drop_notice(self, lane: str = "compiled") -> None:
        """Forget a notice of ``lane``'s compilation that did not finish, so that the next run says it again."""
        marker = self._marker(lane)
        if marker and not os.path.exists(marker):
            try:
                os.unlink(marker + ".notice")
            except OSError:
                pass

    def mark_compiled(self, lane: str = "compiled") -> None:
        marker = self._marker(lane)
        if marker and not os.path.exists(marker):
            try:
                with open(marker, "w"):
                    pass
            except OSError:
                pass

    def call(self, fn_name: str, *args):
        """Call a function of the generated module, turning a compiler error into one line."""
        fn = getattr(self.module, fn_name)
        try:
            ready = self.module.__dict__.setdefault("__sensei_ready__", set())
            if fn_name not in ready:  # the first call in this process: compiled one process at a time
                try:
                    compile_once(fn, args)
                except BaseException:  # not compiled (an interrupt, a compiler error): the next run says so again
                    if fn_name in _LANE_OF:
                        self.drop_notice(_LANE_OF[fn_name])
                    raise
                ready.add(fn_name)
                if fn_name in _LANE_OF and getattr(fn, "overloads", None):
                    # compiled and cached: later runs need not say so, however this one ends
                    self.mark_compiled(_LANE_OF[fn_name])
                if signal_seen():  # a Ctrl-C the compiler's callbacks dropped: the command stops here
                    raise KeyboardInterrupt
            return fn(*args)
        except (numba.core.errors.TypingError, numba.core.errors.LoweringError,
                numba.core.errors.UnsupportedError) as exc:
            if os.environ.get("SENSEI_DEBUG"):
                raise
            names = self._culprits(str(exc))
            text = str(exc)
            if _NOT_AN_OPTION in text:
                said = text[text.index(_NOT_AN_OPTION):].splitlines()[0].strip()
                who = self._decision_at(text)
                raise SenseiError(f"{who or 'compiled strategies (' + names + ')'}: {said}") from None
            who = self._decision_at(text)
            raise SenseiError(f"{who or 'compiled strategies (' + names + ')'} failed to compile: "
                              f"{_compiler_message(exc)}") from None
        except (SenseiError, IllegalAction, KeyboardInterrupt):
            raise
        except Exception as exc:  # raised by compiled code: a strategy's decision (raise, or a division by 0)
            if os.environ.get("SENSEI_DEBUG"):
                raise
            if caused_by_interrupt(exc) or signal_seen():  # (a compile cut short by a dropped Ctrl-C fails later:
                raise KeyboardInterrupt() from None        # "no compiled object yet")
            names = ", ".join(dict.fromkeys(type(a).__qualname__ for a in self.agents))
            text = " ".join(str(exc).split())
            raise StrategyError(f"compiled strategies ({names}) raised {type(exc).__name__}"
                                + (f": {text}" if text else "")) from exc

    def _culprits(self, text: str) -> str:
        """The compiled classes a compiler error is about, as specs name them: those whose file the error
        points into (a user's file), else every compiled class of the lineup."""
        import re

        files = {m.group(1) for m in re.finditer(r'File "([^"]+)", line \d+', text)}
        full = {os.path.abspath(f) for f in files}
        base = {os.path.basename(f) for f in files}
        compiled = [type(a) for a in self.agents if type(a) in self.index]
        mine = [c for c in compiled if _source_of(c)[1] is not None
                and (_source_of(c)[1] in full or os.path.basename(_source_of(c)[1]) in base)]
        return ", ".join(dict.fromkeys(_class_spec(c) for c in (mine or compiled)))

    def _decision_at(self, text: str) -> str | None:
        """'strategy C, decision start' for the call in the generated module that a typing error points at."""
        import re

        m = re.search(r"typing of call at \S*sensei_lineup_\w+\.py \((\d+)\)", text)
        source = getattr(self.module, "__sensei_text__", "").splitlines()
        if m is None or not 0 < int(m.group(1)) <= len(source):
            return None
        call = re.search(r"as_option\(_[fg](\d+)\(", source[int(m.group(1)) - 1])
        if call is None:
            return None
        n = int(call.group(1))
        for decision, sites in _calls(self.plans, _shapes(self.plans))[0].items():
            for (_, k), js in sites.items():
                if k == n:
                    return (f"strategy {', '.join(_class_spec(self.plans[j].cls) for j in js)}, "
                            f"decision {decision!r}")
        return None

    def error(self, err: np.ndarray, name_of_seat, legal: list[int] | None = None) -> IllegalAction:
        """The one-line error of a compiled driver's ``err`` (game, seat, decision kind, option), with the
        legal options of that decision where ``legal`` gives them ("option 7" said nothing of slots 0..3)."""
        seat, kind, opt = int(err[1]), int(err[2]), int(err[3])
        what = self.game.decisions[kind] if 0 <= kind < len(self.game.decisions) else f"decision {kind}"
        # MISSING is what the generated dispatch returns for a seat with no such decision; a strategy that
        # has the decision and returns that very number made an illegal option like any other
        has = 0 <= kind < len(self.game.decisions) and 0 <= seat < len(self.forms) and \
            self.forms[seat].get(self.game.decisions[kind]) is not None
        if opt == MISSING and not has:
            return IllegalAction(f"strategy {name_of_seat(seat)} (seat {seat}) has no decision {what!r}")
        words = self.game.option_text(kind, opt) if 0 <= kind < len(self.game.decisions) else f"option {opt}"
        if legal:
            # each legal code with what it stands for where the game says (Senshi's "33 (Study stack 1)")
            brief = (lambda o: self.game.option_text(kind, o).removeprefix("option ")) \
                if 0 <= kind < len(self.game.decisions) else str
            shown = ", ".join(map(brief, legal[:12])) + (f", ... ({len(legal)} in all)" if len(legal) > 12 else "")
            words += f" (the legal options there: {shown})"
        return IllegalAction(f"strategy {name_of_seat(seat)} (seat {seat}) made an illegal {what}: {words}")


def _class_spec(cls: type) -> str:
    """How a spec names a strategy class: ``FILE.py:Class`` for a class of a user's file, the file as it was
    given (as the spec and every other error name it: two files of one name in two folders stay apart),
    else its registered name (or its class name)."""
    source = cls.__dict__.get("_source")
    if source is not None:
        return f"{source[0]}:{source[1]}"
    return cls.__dict__.get("name") or cls.__qualname__  # its own name, not one inherited


def _own_code(klass: type) -> bool:
    """Whether a class in a strategy's lineage is not one of sensei's own (whose decision names are tested)."""
    mod = klass.__module__ or ""
    return klass is not object and not mod.startswith(("strategies.", "simcore.", "builtins"))


def _decision_shaped(fn: Any) -> bool:
    """Whether a method takes what a numpy decision takes, (self, obs, rng): a helper method with another
    signature is never taken for a misspelt decision, whatever its name."""
    import inspect

    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    return len(params) == 3 and all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def check_decision_names(game: Any, cls: type) -> None:
    """A one-line error for a strategy class that defines a compiled decision under a name that is no
    decision of ``game``, or a method of a decision's signature whose name is one letter or two off a
    decision's (``pley`` for ``play``) or holds one or is part of one (``start_turn``, ``face_up`` for
    ``face_up_slot``), or that takes ``(self, obs, rng)`` by those names: such a class would otherwise play the
    decision it inherits, or none, without a word. A helper's name starts with ``_``."""
    import difflib
    import inspect

    decisions = tuple(game.decisions)
    for klass in cls.__mro__:
        if not _own_code(klass):
            continue
        for attr, value in vars(klass).items():
            if isinstance(value, dataclasses.Field):  # param(...) in a class that is no dataclass of its own
                raise SenseiError(f"strategy {_class_spec(cls)}: parameter {attr!r} is declared with param(...) in "
                                  f"class {klass.__qualname__}, which is not a dataclass: decorate it with "
                                  "@dataclasses.dataclass(frozen=True), or the default it inherits stays")
            if attr in decisions and inspect.isfunction(value):
                try:
                    names = list(inspect.signature(value).parameters)
                except (TypeError, ValueError):
                    names = []
                if len(names) == 3 and names[0] != "self":
                    raise SenseiError(
                        f"strategy {_class_spec(cls)}: decision {attr!r} is a plain function of ({', '.join(names)}): "
                        "mark it @decision to compile it, or write it as a method (self, obs, rng) over a batch")
            if attr.startswith("_") or attr in decisions:
                continue
            if isinstance(value, staticmethod):
                value = value.__func__
            close = difflib.get_close_matches(attr, decisions, n=1, cutoff=0.75) or \
                [d for d in decisions if d in attr or attr in d][:1]  # (face_up for face_up_slot, start_turn)
            shaped = inspect.isfunction(value) and _decision_shaped(value)
            # a method of (self, obs, rng) by those very names is a decision by its look, whatever its name:
            # face_up (for face_up_slot) played the inherited decision without a word
            named = shaped and [p for p in inspect.signature(value).parameters] == ["self", "obs", "rng"]
            if isinstance(value, CompiledDecision) or (shaped and (close or named)):
                kind = "a compiled decision" if isinstance(value, CompiledDecision) else "a method"
                raise SenseiError(
                    f"strategy {_class_spec(cls)}: {kind} named {attr!r} is no decision of {game.name} (its "
                    f"decisions: {', '.join(decisions)})" + (f"; did you mean {close[0]!r}?" if close else
                                                             "; a helper method's name starts with '_'"))


def _form(found: Any, agent: Any, name: str) -> str | None:
    if isinstance(found, CompiledDecision):
        return "compiled"
    if found is None:  # an object answering decisions through its own attributes (e.g. a test script)
        return "numpy" if callable(getattr(agent, name, None)) else None
    return "numpy"


def _default_instance(cls: type) -> Any:
    try:
        return cls()
    except Exception:  # a class whose parameters have no defaults: no parameters known
        return None


def scratch() -> tuple[np.ndarray, np.ndarray]:
    """Fresh scratch arrays for compiled strategies (one pair per thread of play)."""
    return np.zeros(SCRATCH, dtype=np.float64), np.zeros(SCRATCH, dtype=np.int64)
