"""User-facing errors.

Every problem caused by input (an unknown game, strategy, parameter or rule option, a bad value, an
impossible player count, a malformed config) is raised as :class:`SenseiError`. The command line turns
it into a one-line message and exit status 2; the Python API lets it propagate.
"""


class SenseiError(ValueError):
    """A problem with what the user asked for; the message is one line naming it."""


class IllegalAction(RuntimeError):
    """A strategy chose an action the rules do not allow (a bug in the strategy, never silently accepted)."""


class WorkerDied(RuntimeError):
    """A worker process stopped while playing (killed, out of memory, a crash in compiled code, a strategy
    that ended its process): not bad input, not a bug that a traceback of this process would show. The
    command line prints the message in one line and exits with status 1."""


class SystemRefused(RuntimeError):
    """The machine refused what a run needs (a local dask cluster that could not start: no free port, no
    memory for its processes): not bad input. The command line prints the message in one line and exits
    with status 1."""


class StrategyError(SenseiError):
    """A strategy's decision method raised an exception (a bug in the strategy): the message names the
    strategy, the decision and the exception; the original is its ``__cause__``."""


def error_text(exc: BaseException) -> str:
    """An exception's message on one line; a message that cannot be made (a ``__str__`` that raises, in a
    user's exception class) is named as such instead of failing the error report itself."""
    try:
        return " ".join(str(exc).split())
    except BaseException:  # noqa: BLE001 - any failure of a user's __str__
        return f"(its message could not be printed: its {type(exc).__name__}.__str__ failed)"


def strategy_error(agent: object, decision: str, exc: BaseException) -> BaseException:
    """What to raise for ``exc`` raised by ``agent``'s decision method ``decision``: a one-line
    :class:`StrategyError`, or the error itself when it already is one (or a KeyboardInterrupt). A
    ``sys.exit()`` in a strategy is an error of the strategy too, never the end of the program."""
    try:
        spec = getattr(agent, "spec", None)
        name = spec() if callable(spec) else repr(agent)
    except Exception:  # noqa: BLE001 - a strategy class broken in its own attributes
        name = type(agent).__name__
    if caused_by_interrupt(exc):
        if interrupt_possible():
            return KeyboardInterrupt()
        return StrategyError(f"strategy {name} raised KeyboardInterrupt in its decision {decision!r} ({NOT_CTRL_C})")
    if isinstance(exc, (StrategyError, IllegalAction)):
        return exc
    text = error_text(exc)
    if isinstance(exc, SystemExit):
        return StrategyError(f"strategy {name} tried to end the program in its decision {decision!r} "
                             f"({exit_call(exc)})")
    if during_compile(exc):
        hint = (" (numba found a loop it cannot leave, such as `while True` without a break or return)"
                if "liveness info missing" in text else "")
        return StrategyError(f"strategy {name}: its decision {decision!r} failed to compile: "
                             f"{type(exc).__name__}" + (f": {text}" if text else "") + hint)
    return StrategyError(f"strategy {name} failed in its decision {decision!r}: {type(exc).__name__}"
                         + (f": {text}" if text else "") + raised_at(exc))


def raised_at(exc: BaseException) -> str:
    """Where in a strategy's own code ``exc`` was raised, `` (at FILE, line N)``: the last line of its
    traceback outside the libraries and outside the engines (simcore), so that a mistake in a numpy
    strategy's file (``obs.legal()`` for a property, say) points at its line; an empty string where there
    is none (compiled code keeps no Python lines)."""
    import os
    import sysconfig
    import traceback
    try:
        frames = traceback.extract_tb(exc.__traceback__)
        skip = {os.path.realpath(sysconfig.get_paths()[k]) + os.sep for k in ("stdlib", "platstdlib", "purelib",
                                                                            "platlib")}
        engines = os.path.dirname(os.path.realpath(__file__)) + os.sep
        for fr in reversed(frames):
            path = os.path.realpath(fr.filename)
            if not os.path.isfile(path) or path.startswith(engines) or any(path.startswith(p) for p in skip):
                continue
            rel = os.path.relpath(path)  # (a file outside the working folder by its name: the line stays short)
            return f" (at {rel if not rel.startswith('..') else os.path.basename(path)}, line {fr.lineno})"
    except Exception:  # noqa: BLE001 - the error's one line matters more than where it was raised
        return ""
    return ""


#: where numba's compiler works: an exception raised in one of these files is a compiler's, not the decision's
_COMPILER_FILES = ("numba/core/compiler", "numba/core/typed_passes", "numba/core/untyped_passes",
                   "numba/core/lowering", "numba/core/analysis", "numba/core/interpreter", "numba/core/byteflow",
                   "numba/core/ir_utils", "numba/core/ssa", "numba/core/typeinfer")


def during_compile(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by numba while compiling (its traceback passes through the compiler's own
    files), not by compiled code while it ran."""
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename.replace("\\", "/")
        if any(part in name for part in _COMPILER_FILES):
            return True
        tb = tb.tb_next
    return False


#: why a KeyboardInterrupt raised by a strategy is an error of the strategy
NOT_CTRL_C = "no Ctrl-C reached this thread: a strategy cannot stop a run"


#: the command line's record of Ctrl-C and SIGTERM (:func:`interrupt_handler`): ``None`` where no handler
#: of its own records them (a Python session: any KeyboardInterrupt of the main thread may be a Ctrl-C),
#: else whether one has arrived
_SIGNAL_SEEN: bool | None = None


def interrupt_handler(signum=None, frame=None) -> None:
    """The command line's handler of Ctrl-C (and of SIGTERM, which a command turns into one): it notes that
    the signal arrived, then raises KeyboardInterrupt as Python's own handler does. With it installed
    (:func:`track_interrupts`), a KeyboardInterrupt of the main thread that no signal preceded was raised by
    the code being run: a strategy file, at import."""
    global _SIGNAL_SEEN
    _SIGNAL_SEEN = True
    raise KeyboardInterrupt


def track_interrupts() -> None:
    """From here on, :func:`interrupt_possible` in the main thread asks whether a signal has arrived."""
    global _SIGNAL_SEEN
    if _SIGNAL_SEEN is None:
        _SIGNAL_SEEN = False


def interrupt_possible() -> bool:
    """Whether a KeyboardInterrupt raised here can be a real Ctrl-C (or the SIGTERM a command turns into
    one): Python raises it for a signal only in the main thread of the main process, and worker processes
    ignore Ctrl-C. Anywhere else (the runner's threads, which play every chunk of a command, a worker
    process, a dask worker's thread) it was raised by the code being run: a strategy. In the command line,
    whose handler notes every Ctrl-C and SIGTERM, so was one in the main thread that no signal preceded."""
    import sys
    import threading

    if threading.current_thread() is not threading.main_thread():
        return False
    if getattr(sys.modules.get("simcore.runner"), "_IN_WORKER", False):
        return False
    return _SIGNAL_SEEN is not False


def signal_seen() -> bool:
    """Whether the command line's handler has noted a Ctrl-C or SIGTERM in this process (never in a Python
    session, which installs no handler), asked in the main thread, where signals land (a thread playing
    chunks leaves the stop to it). Once one has, the command stops: a KeyboardInterrupt that landed in a
    callback of numba's compiler is reported as "Exception ignored" and dropped, so the places where a
    command goes on after compiling ask this too."""
    import threading

    return _SIGNAL_SEEN is True and threading.current_thread() is threading.main_thread()


def drop_ignored_interrupt(info) -> bool:
    """For an ``sys.unraisablehook``: whether ``info`` is a KeyboardInterrupt that a callback could not
    raise after the command line noted the signal (it is acted on where :func:`signal_seen` is asked: no
    traceback for it)."""
    return _SIGNAL_SEEN is True and isinstance(info.exc_type, type) and issubclass(info.exc_type, KeyboardInterrupt)


def caused_by_interrupt(exc: BaseException | None) -> bool:
    """Whether ``exc`` is, or was caused by, a KeyboardInterrupt (Ctrl-C landing while a compiled function
    hands back its result surfaces as ``SystemError: ... returned a result with an exception set``)."""
    seen = 0
    while exc is not None and seen < 10:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def exit_call(exc: SystemExit) -> str:
    """``sys.exit(...)`` as a strategy called it, for a one-line message."""
    return "sys.exit()" if exc.code is None else f"sys.exit({exc.code!r})"
