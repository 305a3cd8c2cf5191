"""How the compiled kernels of sensei are built (numba).

Reference counting. Rule steps and decision functions take a dozen or more state arrays. numba counts
references to arrays with atomic operations, and in a branchy game loop those counts cost several times
the rules themselves (4x in Sen's game loop, measured). Kernels that allocate nothing are therefore
compiled with reference counting off (numba's ``_nrt=False`` target option) and get their scratch space
from the caller. That option is not in numba's public documentation; should a numba release no longer
know it, the same kernels are compiled with reference counting: slower, with the same results.

The compiled-code cache. numba caches a compiled function next to its source and checks only that
file's time stamp, not the files of the functions it calls: an engine kernel that calls a function of
``rng.py`` would keep its old machine code after ``rng.py`` changed. So the cache lives in a folder
named after a fingerprint of all of sensei's engine and strategy sources
(``~/.cache/sensei/numba/<fingerprint>``, or under ``$XDG_CACHE_HOME``; the temporary folder when that
is not writable): any change to any of them compiles everything afresh. (Files that do not mention
numba cannot hold compiled code and are left out, so editing, say, the statistics does not recompile.) Setting ``NUMBA_CACHE_DIR``
overrides this.
"""
from __future__ import annotations

import hashlib
import os
import sys
import tempfile


def exec_file_module(name: str, path: str, **attrs):
    """Import the file ``path`` (Python source or an extension module) as module ``name``, with
    ``attrs`` set on it before it runs; if it fails, ``sys.modules`` is left as it was. None if the
    file cannot be a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    for key, value in attrs.items():
        setattr(module, key, value)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _preload_blas_probe() -> None:
    """numba checks, the first time it compiles or loads a function, that a BLAS is there by importing
    ``scipy.linalg.cython_blas``, which imports all of ``scipy.linalg`` first: a third of a second of
    every command's start-up (measured), for linear algebra that no sensei kernel uses. Loading that
    one extension module under its own name satisfies the same check in a few milliseconds; a later
    ``import scipy.linalg`` works as usual and finds it. Anything unexpected: numba's own way."""
    name = "scipy.linalg.cython_blas"
    if name in sys.modules or "scipy.linalg" in sys.modules:
        return
    try:
        import importlib.machinery
        import importlib.util

        spec = importlib.util.find_spec("scipy")
        if spec is None or not spec.submodule_search_locations:
            return
        folder = os.path.join(list(spec.submodule_search_locations)[0], "linalg")
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "cython_blas" + suffix)
            if os.path.exists(path):
                exec_file_module(name, path)
                return
    except Exception:  # pragma: no cover - scipy laid out otherwise: numba imports it itself
        sys.modules.pop(name, None)


_preload_blas_probe()

try:
    import numba  # noqa: E402
except Exception as _exc:  # an environment setting numba cannot start with (NUMBA_NUM_THREADS=0): one line
    _set = ", ".join(f"{k}={v}" for k, v in sorted(os.environ.items()) if k.startswith("NUMBA_"))
    if not _set:
        raise
    from .errors import SenseiError
    raise SenseiError(f"numba (sensei's compiler) cannot start with the environment's {_set}: "
                      f"{type(_exc).__name__}: {_exc}") from None


def _keep_conditional_moves() -> None:
    """Ask LLVM to keep the conditional moves it selects (x86 only). Its x86 back end turns a conditional
    move inside a loop back into a branch when it guesses the branch predictable; in the game loops the
    values compared are the cards dealt, which no predictor can guess, and Sen's compiled lane ran about
    20% faster without that conversion (docs/speed.md). An option LLVM does not know is ignored."""
    import platform
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return
    try:
        import llvmlite.binding as llvm
        llvm.set_option("sensei", "-x86-cmov-converter=false")
    except Exception:  # pragma: no cover - an llvmlite without the call: LLVM's defaults
        pass


_keep_conditional_moves()


#: the line that marks a file of the project's compiled sources whose kernels never index with a negative
#: number (see :func:`_index_without_wraparound`)
NO_NEGATIVE_INDEX_MARK = "# sensei: no negative indices"
_MARKED: dict = {}


def _marked(path: str) -> bool:
    """Whether ``path`` is a file of the project's compiled sources that carries
    :data:`NO_NEGATIVE_INDEX_MARK` (read once per process)."""
    found = _MARKED.get(path)
    if found is None:
        found = False
        if in_source_dirs(path):
            try:
                with open(path, encoding="utf-8") as fh:
                    found = any(line.strip() == NO_NEGATIVE_INDEX_MARK for line in fh)
            except OSError:
                found = False
        _MARKED[path] = found
    return found


def _statement_without_wraparound():
    """The source location of the statement numba is turning into machine code right now if it comes from a
    marked file (see :func:`_marked`), else None. numba lowers a function's statements one by one and
    keeps each one's source location (also for code it inlined from another function), so this finds the
    lowering object on the call stack and asks where its current statement was written."""
    import sys as _sys

    from numba.core.lowering import Lower

    frame = _sys._getframe(2)
    for _ in range(40):
        if frame is None:
            return None
        low = frame.f_locals.get("self")
        if isinstance(low, Lower):
            loc = getattr(low, "loc", None)
            return loc if _marked(getattr(loc, "filename", None) or "") else None
        frame = frame.f_back
    return None


#: set while numba compiles: a negative index in a marked file raises an IndexError that names the file
#: and line, instead of being used as it is (``make boundscheck`` sets it); set to ``log``, it prints that
#: line on stdout and reads with numba's meaning, so that one run lists every such place
NEGATIVE_INDEX_AUDIT = "SENSEI_NEGATIVE_INDEX_AUDIT"


def _index_without_wraparound() -> None:
    """Array indexing in marked files of the project's compiled code skips Python's negative-index wrap-around.

    numba gives every integer index of a signed type Python's meaning, so that ``a[-1]`` is the last
    entry: before each access it adds the length to a negative index. In the game loops that is three
    more instructions on the way to nearly every load and store (a sign test, a mask, an add), on the
    path that waits for the value of the index (a card, a house, a seat), and LLVM can rarely prove the
    index is not negative. A file of the project's compiled sources whose kernels never index with a
    negative number (every index a position: a game, a seat, a slot, a card) says so with the line
    :data:`NO_NEGATIVE_INDEX_MARK`; statements written there use the index as it is. (The generated lineup
    modules are not marked: their few indices gained nothing, and Sen's heuristics, whose decisions the
    loop calls, ran up to 5% slower with them marked.) Measured in docs/speed.md
    ("Indexing without wrap-around").

    Code written anywhere else keeps numba's meaning, whoever calls it: a user's compiled strategy may
    write ``hand[-1]``, also where its decision is inlined into a game loop. Compiled with
    :data:`NEGATIVE_INDEX_AUDIT` in the environment, a negative index in a marked file raises an
    IndexError naming its file and line, and with ``NUMBA_BOUNDSCHECK=1`` every index is checked against
    the length too: ``make boundscheck`` (``tools/boundscheck.py``) plays every fingerprint case that way
    (and the search player with numba's checks alone, which catch a negative index here too, as no
    wrap-around comes before them). Should a numba release no longer have the
    function changed here, nothing is changed (the same games, without this speed)."""
    try:
        import numba.np.arrayobj as arrayobj
        from numba.core import types
        from numba.core.lowering import Lower  # noqa: F401 - checked here, used in _statement_without_wraparound
    except ImportError:  # pragma: no cover - a numba laid out otherwise
        return
    original = getattr(arrayobj, "fix_integer_index", None)
    if original is None or getattr(original, "__sensei__", False):
        return

    def fix_integer_index(context, builder, idxty, idx, size):
        loc = _statement_without_wraparound() if idxty.signed else None
        if loc is None:
            return original(context, builder, idxty, idx, size)
        ind = context.cast(builder, idx, idxty, types.intp)
        audit = os.environ.get(NEGATIVE_INDEX_AUDIT)
        if audit:
            from numba.core import cgutils

            where = f"negative index ({os.path.relpath(loc.filename)}, line {loc.line})"
            negative = builder.icmp_signed("<", ind, ind.type(0))
            if audit == "log":  # say where on stdout and go on with numba's meaning (finds every place in one run)
                with cgutils.if_unlikely(builder, negative):
                    cgutils.printf(builder, where.replace("%", "%%") + "\n")
                return original(context, builder, idxty, idx, size)
            with cgutils.if_unlikely(builder, negative):
                context.call_conv.return_user_exc(builder, IndexError, (where,))
        return ind

    fix_integer_index.__sensei__ = True
    arrayobj.fix_integer_index = fix_integer_index


_index_without_wraparound()

try:
    from numba.core.options import DefaultOptions

    _HAS_NRT_OPTION = hasattr(DefaultOptions, "_nrt")
except (ImportError, AttributeError):  # pragma: no cover - depends on the numba release
    _HAS_NRT_OPTION = False

#: ``numba.njit(**NO_REFCOUNT)``: a cached kernel without reference counting (it must not allocate)
NO_REFCOUNT: dict = {"cache": True, "_nrt": False} if _HAS_NRT_OPTION else {"cache": True}

#: ``numba.njit(**REFCOUNT)``: reference counting on even when called from a kernel compiled without it
#: (numba passes a caller's choice on to callees that do not state their own); for code that allocates
REFCOUNT: dict = {"_nrt": True} if _HAS_NRT_OPTION else {}

_HERE = os.path.dirname(os.path.abspath(__file__))
#: the packages whose sources compiled kernels are made of
SOURCE_DIRS = (_HERE, os.path.join(os.path.dirname(_HERE), "strategies"))


_FINGERPRINTS: dict = {}


def source_fingerprint(dirs=SOURCE_DIRS) -> str:
    """A short hash of every Python source file below ``dirs`` that compiled code can be made of (the
    files that mention numba; names and contents). The project's own folders are hashed once per process."""
    key = tuple(dirs)
    if key == tuple(SOURCE_DIRS) and key in _FINGERPRINTS:
        return _FINGERPRINTS[key]
    h = hashlib.sha1()
    for top in dirs:
        for root, subdirs, files in sorted(os.walk(top)):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            for f in sorted(files):
                if f.endswith(".py"):
                    path = os.path.join(root, f)
                    with open(path, "rb") as fh:
                        text = fh.read()
                    if b"numba" not in text:
                        continue
                    h.update(os.fsencode(os.path.relpath(path, os.path.dirname(top))))
                    h.update(text)
    _FINGERPRINTS[key] = h.hexdigest()[:16]
    return _FINGERPRINTS[key]


def cache_folder(fingerprint: str) -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "sensei", "numba", fingerprint)


def _writable(folder: str) -> bool:
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _use_fingerprinted_cache() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return  # the user's choice
    fingerprint = source_fingerprint()
    if os.environ.get(NEGATIVE_INDEX_AUDIT):  # machine code with the audit's checks is kept apart
        fingerprint += "-audit"
    if numba.config.BOUNDSCHECK:  # NUMBA_BOUNDSCHECK=1: so is machine code with numba's bounds checks
        fingerprint += "-boundscheck"
    for folder in (cache_folder(fingerprint),
                   os.path.join(tempfile.gettempdir(), f"sensei-numba-{os.getuid() if hasattr(os, 'getuid') else 0}",
                                fingerprint)):
        if _writable(folder):
            numba.config.CACHE_DIR = folder
            return
    # nowhere to write: numba's own choice (next to the sources, or its user-wide folder)


_use_fingerprinted_cache()


#: options of the compiled lane's game loops: no reference counting, and the GIL released so that
#: blocks of games play side by side in threads
LOOP: dict = {**NO_REFCOUNT, "nogil": True}


def compile_once(fn, args) -> None:
    """Compile (or load from the cache) the cached numba function ``fn`` for the types of ``args``, one
    process at a time per function.

    Without this, two processes that need the same function for the first time (two test workers, or
    two commands started together) both compile it, each for up to minutes; with it, the second waits
    for the first and then loads the first's machine code from the cache. The lock is a file in the
    cache folder, held only while numba compiles (the operating system releases it if a process dies).
    Where file locks are not available the call compiles as before."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not a POSIX system
        return
    try:
        sig = tuple(fn.typeof_pyval(a) for a in args)
    except Exception:  # noqa: BLE001 - not a type numba knows here: the call itself says so
        return
    if sig in fn.overloads:
        return
    try:
        path = lock_path(fn)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fh = open(path, "a")
    except OSError:
        return
    with fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        except OSError:  # a file system without locks (some network mounts): compile unlocked
            return
        try:
            fn.compile(sig)
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def lock_path(fn) -> str:
    """The lock file of :func:`compile_once` for numba function ``fn`` (by module, name and source file)."""
    py = getattr(fn, "py_func", fn)
    code = getattr(py, "__code__", None)
    key = f"{getattr(py, '__module__', '')}.{getattr(py, '__qualname__', '')}:{getattr(code, 'co_filename', '')}"
    folder = os.path.join(numba.config.CACHE_DIR or tempfile.gettempdir(), "locks")
    return os.path.join(folder, hashlib.sha1(key.encode("utf-8", "surrogateescape")).hexdigest()[:20] + ".lock")


class FirstCallCompiles:
    """A numba function called from Python (the search's, from a decision's object mode): its first call
    in a process compiles it through :func:`compile_once`."""

    __slots__ = ("fn", "ready")

    def __init__(self, fn):
        self.fn = fn
        self.ready = False

    def __call__(self, *args):
        if not self.ready:
            compile_once(self.fn, args)
            self.ready = True
        return self.fn(*args)


class CompiledDecision:
    """A strategy's decision written as a compiled function ``fn(obs, prm, rng) -> option``.

    ``obs`` is the engine's per-game observation view (a named tuple: whole arrays of what the deciding
    seat may see, its game ``g`` and seat ``me``, and the decision's own values), ``prm`` the strategy's
    parameters (a named tuple of numbers), ``rng`` its random stream (:class:`simcore.rng.Stream`). The
    function returns one integer option (see the engine's option codes). It is compiled by numba with
    the lineup that uses it (see :mod:`simcore.lineup`).
    """

    __slots__ = ("fn", "name", "inline", "cached")

    def __init__(self, fn, name: str | None = None, inline: bool = False):
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "decision")
        #: the compiled lane inlines it into the game loop (see :func:`decision`)
        self.inline = inline
        #: compiled and cached on its own (a decision of the project's sources), inlined by LLVM if
        #: ``inline``; else compiled with each lineup module that calls it
        self.cached = False

    def __call__(self, *args):
        return self.fn(*args)

    def __repr__(self) -> str:
        return f"<compiled decision {self.name}>"


def in_source_dirs(path: str) -> bool:
    """Whether the file ``path`` lies below the project's compiled sources (``SOURCE_DIRS``), which the
    source fingerprint covers."""
    path = os.path.abspath(path or "")
    return any(path.startswith(os.path.join(os.path.abspath(d), "")) for d in SOURCE_DIRS)


def _in_sources(f) -> bool:
    """Whether function ``f`` is defined in a file of the project's compiled sources."""
    return in_source_dirs(getattr(getattr(f, "__code__", None), "co_filename", ""))


def decision(fn=None, *, refcount: bool = False, inline: bool = False):
    """Decorator: a strategy's decision as a compiled function of ``(obs, prm, rng)``.

    By default the function is compiled without reference counting (fastest; it must then not allocate
    arrays: take scratch space from ``rng.fw`` / ``rng.iw``); ``refcount=True`` compiles it with
    numba's defaults, for code that allocates. ``inline=True`` asks the compiled lane to inline it into
    the game loop: a call hands over the observation's arrays, which costs about as much as a small
    decision itself, so small decisions that run every turn gain, at the price of a longer first
    compilation.

    The project's own decisions (defined in ``simcore/`` or ``strategies/``) are compiled and cached on
    their own, per observation and parameter type (``prm`` is a class of :mod:`simcore.params`, one per
    list of field names), so every lineup module that calls one reuses its machine code; an ``inline``
    one is then marked for LLVM to inline (``forceinline``). Decisions of other files are compiled with
    each lineup module that calls them and cached with it, under a key that covers their files.
    """
    def wrap(f):
        if isinstance(f, CompiledDecision):
            return f
        if isinstance(f, numba.core.registry.CPUDispatcher):
            return CompiledDecision(f, getattr(f, "__name__", None), inline)
        # reference counting asked for explicitly: a function that leaves the option unset inherits it from
        # its caller, and the game loops that call a decision are compiled without it
        opts = dict(REFCOUNT) if refcount else {k: v for k, v in NO_REFCOUNT.items() if k != "cache"}
        cached = _in_sources(f)
        if cached:  # the project's own decisions: cached, since the source fingerprint covers what they call
            opts = {**opts, "cache": True, **({"forceinline": True} if inline else {})}
        d = CompiledDecision(numba.njit(**opts)(f), getattr(f, "__name__", None), inline)
        d.cached = cached
        return d

    return wrap if fn is None else wrap(fn)


class compile_timer:
    """``with compile_timer() as t:`` ... ``t.seconds``: the wall time numba spent compiling in this process
    (in any thread) while the block ran, counting only outermost compilations (a function compiled
    because the one being compiled calls it is part of that one). Machine code loaded from the cache is
    no compilation; worker processes are not seen. A run's speed can then leave a first run's compiling
    out."""

    def __enter__(self) -> "compile_timer":
        import threading
        import time

        from numba.core import event

        self.seconds = 0.0
        local = threading.local()
        lock = threading.Lock()
        timer = self

        class _Outermost(event.Listener):
            def on_start(self, ev):
                depth = getattr(local, "depth", 0)
                if depth == 0:
                    local.start = time.perf_counter()
                local.depth = depth + 1

            def on_end(self, ev):
                depth = getattr(local, "depth", 0)
                if depth <= 0:  # a compilation that began before the block: not counted
                    return
                local.depth = depth - 1
                if depth == 1:
                    with lock:
                        timer.seconds += time.perf_counter() - local.start

        self._listener = _Outermost()
        event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc) -> bool:
        from numba.core import event

        event.unregister("numba:compile", self._listener)
        return False
