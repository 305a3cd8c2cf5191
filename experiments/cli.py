"""The ``sensei`` command line: a thin layer over the Python API.

Every command catches input errors and prints one line (``error: ...``) with exit status 2 (``docs/cli.md``,
"Exit status", lists every status).
"""
from __future__ import annotations

import contextlib
import errno
import gc
import os
import signal
import sys
import threading


def _interrupted_early(signum, frame):  # Ctrl-C while this module is still being imported
    sys.stderr.write("interrupted\n")
    os._exit(130)


# only where Ctrl-C would raise KeyboardInterrupt (a background job ignores it, and keeps ignoring it)
_MAIN = threading.current_thread() is threading.main_thread() and \
    signal.getsignal(signal.SIGINT) is signal.default_int_handler
if _MAIN:
    signal.signal(signal.SIGINT, _interrupted_early)
# a polite kill in the first second: the same line (a command's own handling replaces it for its run; a
# background job too, which ignores Ctrl-C but not SIGTERM; only in the sensei command itself, not in a
# process that imports this module)
if (threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        and (__name__ == "__main__" or os.path.basename(sys.argv[0] if sys.argv else "") == "sensei")):
    signal.signal(signal.SIGTERM, _interrupted_early)


def _fit_address_limit() -> None:
    """Under an address-space limit (``ulimit -v``, or a batch scheduler's memory limit such as SGE's
    ``h_vmem``) the libraries' reservations of address space, not the memory sensei uses, run out first: a
    run that keeps 430 MiB reserves 3 GiB, in OpenBLAS's buffers per thread, jemalloc's background threads
    (polars) and glibc's arenas per thread. Under a limit, before those libraries load: OpenBLAS one
    thread (sensei's own work does not use it) and jemalloc without background threads (glibc's arenas
    are capped where the runner loads). Whatever the user set stays."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY and soft > 0:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        os.environ.setdefault("_RJEM_MALLOC_CONF", "background_thread:false")


_fit_address_limit()

import json  # noqa: E402
import math  # noqa: E402
from typing import Any, List, Optional  # noqa: E402

import typer  # noqa: E402
from typer.core import TyperGroup  # noqa: E402

try:  # typer >= 0.20 vendors click
    from typer._click import exceptions as _cx
except ImportError:  # pragma: no cover - older typer uses click itself
    from click import exceptions as _cx

try:
    import simcore  # noqa: E402,F401  (numba starts here)
except Exception as _exc:  # an environment numba cannot start with (NUMBA_NUM_THREADS=0): the command's one line
    if type(_exc).__name__ != "SenseiError" or not (__name__ == "__main__" or
                                                   os.path.basename(sys.argv[0] or "") == "sensei"):
        raise
    sys.stderr.write(f"error: {_exc}\n")
    raise SystemExit(2) from None

from simcore.errors import (IllegalAction, SenseiError, StrategyError, SystemRefused, WorkerDied,  # noqa: E402
                            caused_by_interrupt)


#: --debug: print the traceback before the one-line error
_DEBUG = {"on": False}
#: set by main(): a crash in compiled code prints one line (experiments/crash.py), in the command line only
_CRASH_LINE = {"on": False}


def _crash_line() -> None:
    """Before a command plays: a segmentation fault in compiled code says so in one line (exit status 1)."""
    if _CRASH_LINE["on"]:
        from experiments import crash

        crash.install()


def _strategies_option() -> Any:
    return typer.Option(None, "--strategies", metavar="FILE.py",
                        help="a Python file whose strategies (Strategy classes with a name and a game) may be "
                             "named like the shipped ones (repeatable; sensei run records it in the run's manifest)")


def _debug_option() -> Any:
    return typer.Option(False, "--debug", help="on an error, print its traceback (from the worker, too) before the "
                                               "one-line message")


def user_code_line(exc: BaseException) -> str | None:
    """One line for an error raised in a user's strategy file outside its decisions (a property of its
    class, its ``__hash__``, ``__getattribute__``...), which no decision's handler names: the file, the
    line and the error. None when no frame of the error (or of what caused it) is in such a file."""
    from simcore.errors import error_text

    seen, e = set(), exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        tb, hit = e.__traceback__, None
        while tb is not None:  # a user's file is loaded as a module named sensei_user_... (strategies.registry)
            if str(tb.tb_frame.f_globals.get("__name__", "")).startswith("sensei_user_"):
                hit = (os.path.abspath(tb.tb_frame.f_code.co_filename), tb.tb_lineno, tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
        if hit is not None:
            where = os.path.relpath(hit[0]) if not os.path.relpath(hit[0]).startswith("..") else hit[0]
            text = error_text(exc)
            return (f"strategy file {where!r} failed at line {hit[1]} (in {hit[2]}): {type(exc).__name__}"
                    + (f": {text}" if text else ""))
        e = e.__cause__ or e.__context__
    return None


class _OneLineErrors(TyperGroup):
    """Click group whose usage errors and SenseiErrors print one line and exit 2."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        standalone = kwargs.pop("standalone_mode", True)
        _DEBUG["on"] = False
        code = self._main(*args, **kwargs)
        if standalone:
            sys.exit(code)
        return code

    def _main(self, *args: Any, **kwargs: Any) -> int:
        try:
            rv = super().main(*args, standalone_mode=False, **kwargs)
            # without standalone mode, click returns the code of a typer.Exit instead of raising it
            code = rv if isinstance(rv, int) and not isinstance(rv, bool) else 0
            if code == 130:  # typer turns a KeyboardInterrupt outside the commands' own handling into Exit(130)
                _interrupted("interrupted")
        except typer.Exit as exc:
            code = exc.exit_code
        except (typer.Abort, KeyboardInterrupt):
            _interrupted("interrupted")
            code = 130
        except _cx.NoArgsIsHelpError as exc:
            typer.echo(exc.ctx.get_help() if exc.ctx is not None else exc.format_message())
            code = 0
        except _cx.ClickException as exc:
            _err(exc.format_message())
            code = 2
        except (SenseiError, IllegalAction) as exc:  # bad input, or a strategy's bug (see "Exit status")
            if _DEBUG["on"]:
                import traceback

                traceback.print_exception(exc, file=sys.stderr)
            _err(str(exc) + (" (--debug shows the traceback)" if isinstance(exc, StrategyError) and not _DEBUG["on"]
                             else ""))
            code = 2
        except (WorkerDied, SystemRefused) as exc:  # not bad input: one line, status 1 (see "Exit status")
            _err(str(exc))
            code = 1
        except OSError as exc:  # the system refused a write or a read (a full disk, a closed pipe, a folder
            if caused_by_interrupt(exc):  # where a file should be): one line, status 1 (see "Exit status")
                raise
            if _DEBUG["on"]:
                import traceback

                traceback.print_exception(exc, file=sys.stderr)
            said = out_of_memory(exc)
            _err(_memory_line(said) if said is not None else _os_error_line(exc))
            code = 1
        except (SystemExit, GeneratorExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - Ctrl-C that surfaced as another error (see runner)
            if isinstance(exc, Exception) and caused_by_interrupt(exc):
                _interrupted("interrupted")
                code = 130
            elif (said := out_of_memory(exc)) is not None:  # not a bug: one line, status 1 (see "Exit status")
                if _DEBUG["on"]:
                    import traceback

                    traceback.print_exception(exc, file=sys.stderr)
                _err(_memory_line(said))
                code = 1
            elif (line := user_code_line(exc)) is not None:  # a user's strategy file failed outside a decision
                if _DEBUG["on"]:
                    import traceback

                    traceback.print_exception(exc, file=sys.stderr)
                _err(line + ("" if _DEBUG["on"] else " (--debug shows the traceback)"))
                code = 2
            else:
                raise
        return code


#: what the system says when it refuses memory or a thread (Python, numba, polars' Rust runtime)
_NO_MEMORY = ("can't start new thread", "could not spawn threads", "memory allocation of", "failed to map segment",
              "cannot allocate memory", "out of memory")


def out_of_memory(exc: BaseException) -> str | None:
    """The system's words when ``exc`` is a refusal of memory or of a thread, as under a tight address-space
    limit (``ulimit -v``), or when it is an error of the same kind that a refusal caused (a thread that
    could not start leaves a second error in its cleanup); else None. Only errors of the kinds the system
    raises for it are read, and the chain is followed as Python shows it (not past ``from None``)."""
    seen: set[int] = set()
    kinds = (RuntimeError, OSError, ImportError, KeyError, MemoryError)
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        text = str(exc)
        if isinstance(exc, MemoryError):
            return text or "MemoryError"
        if isinstance(exc, OSError) and exc.errno == 12:  # ENOMEM
            return exc.strerror or text
        if (isinstance(exc, (RuntimeError, OSError, ImportError)) or type(exc).__name__ == "PanicException") \
                and any(w in text.lower() for w in _NO_MEMORY):
            return " ".join(text.split())
        if not (isinstance(exc, kinds) or type(exc).__name__ == "PanicException"):
            return None  # a bug raised while handling a refusal is a bug: its traceback stands
        exc = exc.__cause__ if exc.__cause__ is not None else (None if exc.__suppress_context__ else exc.__context__)
    return None


def _memory_line(said: str) -> str:
    """``out of memory: can't start new thread (this process may use at most 1.0 GiB of address space, ulimit -v)``:
    made with nothing to import (it is said where memory ran out)."""
    line = f"out of memory: {said[:200]}"
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY and soft > 0:
            size = f"{soft / 2 ** 30:.1f} GiB" if soft >= 2 ** 30 else f"{soft / 2 ** 20:,.0f} MiB"
            line += f" (this process may use at most {size} of address space, ulimit -v)"
    except Exception:  # noqa: BLE001 - the line without the limit
        pass
    return line


def _os_error_line(exc: OSError) -> str:
    """``could not write /x/report.html: No space left on device``, or of the standard output."""
    what = exc.strerror or str(exc)
    name = exc.filename2 or exc.filename  # a rename's target rather than its temporary file
    line = f"could not use {name}: {what}" if name else f"could not write the output: {what}"
    return line + (f"; {exc.after}" if getattr(exc, "after", None) else "")


def _exit_now_if_playing(code: Any) -> None:
    """End the process at once, without Python's shutdown, when a thread of the runner still plays or
    compiles a chunk (after Ctrl-C or an error): numba's compiler (LLVM) torn down under a thread that is
    compiling aborts the process, and a strategy's endless loop in compiled code would never end. Only
    the command line's own process does this (:func:`main`), never a caller of the commands in Python."""
    runner = sys.modules.get("simcore.runner")
    if runner is None or not runner.chunks_playing():
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code if isinstance(code, int) and not isinstance(code, bool) else (0 if code is None else 1))


def _interrupted(text: str) -> None:
    """The one line of an interrupted command; a second Ctrl-C does not cut it short."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        _err_plain(text)
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _err_plain(text)
    finally:
        signal.signal(signal.SIGINT, previous)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _err(text: str) -> None:
    typer.echo(f"error: {_one_line(text)}", err=True)


app = typer.Typer(cls=_OneLineErrors, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None, context_settings={"help_option_names": ["-h", "--help"]},
                  help="sensei: a Monte Carlo strategy lab for Sen, Senshi, Sensu and Fan & Mallet.")


def _print_version(value: bool) -> None:
    if value:
        from simcore.runner import _sensei_version

        release, _, sources = _sensei_version().partition("+")
        typer.echo(f"sensei {release} (engine and strategy sources {sources})")
        raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                          help="print sensei's version and exit")) -> None:
    """sensei: a Monte Carlo strategy lab for Sen, Senshi, Sensu and Fan & Mallet."""


def _json_clean(x: Any) -> Any:
    if isinstance(x, float):
        return None if not math.isfinite(x) else x
    if isinstance(x, dict):
        return {k: _json_clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_clean(v) for v in x]
    if hasattr(x, "item") and callable(x.item):
        return _json_clean(x.item())
    return x


@app.command()
def play(
    game: str = typer.Argument(..., metavar="GAME", help="sen, senshi, sensu or fan-and-mallet"),
    players: Optional[int] = typer.Option(None, "--players", "-p", help="number of seats"),
    strategy: Optional[List[str]] = typer.Option(None, "--strategy", "-s", metavar="SPEC",
                                                 help="NAME[:k=v,...] or FILE.py:Class[:k=v,...]; one per seat, or one for all"),
    rule: Optional[List[str]] = typer.Option(None, "--rule", "-r", metavar="KEY=VALUE", help="rule option KEY=VALUE (repeatable)"),
    games: int = typer.Option(1000, "--games", "-n", help="number of complete games"),
    seed: int = typer.Option(0, "--seed", help="root seed"),
    jobs: int = typer.Option(1, "--jobs", "-j", help="worker processes (results do not depend on it)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object on stdout"),
    progress: Optional[bool] = typer.Option(None, "--progress/--no-progress",
                                            help="progress bar on stderr (default: on, off with --json)"),
    chunk_size: Optional[int] = typer.Option(None, "--chunk-size", help="games per batch (results do not depend on it)"),
    backend: Optional[str] = typer.Option(None, "--backend",
                                          help="loky (default), threading, multiprocessing or dask"),
    scheduler: Optional[str] = typer.Option(None, "--scheduler",
                                            help="dask scheduler address, e.g. tcp://10.0.0.5:8786 (implies --backend dask)"),
    strategy_files: Optional[List[str]] = _strategies_option(),
    debug: bool = _debug_option(),
) -> None:
    """Play N games and print win shares and the game's metrics.

    Example: sensei play sen --players 4 --strategy threshold:wake=8 --rule penalty=15 --games 100000 --json
    """
    _DEBUG["on"] = debug
    with _stdout_to_stderr(as_json):  # what strategies print must not break the one JSON object
        summary, seconds, agents, compiling = _play(game, players, strategy, games, seed, rule, jobs, chunk_size,
                                                    as_json, progress, backend, scheduler, strategy_files)
    if as_json:
        sys.stdout.write(json.dumps(_json_clean(summary)) + "\n")
        return
    from strategies.registry import short_labels

    _print_summary(summary, seconds, short_labels(agents), compiling)


def _play(game, players, strategy, games, seed, rule, jobs, chunk_size, as_json, progress, backend, scheduler,
          strategy_files) -> tuple[dict, float, list, float]:
    from simcore.runner import simulate

    eng, p, rules, agents = _table(game, players, strategy, rule, strategy_files)
    show = (not as_json) if progress is None else progress
    if scheduler is not None:
        if not scheduler.strip():
            raise SenseiError("--scheduler: expected a dask scheduler address such as tcp://10.0.0.5:8786")
        backend = backend or "dask"
    from simcore.runner import Interrupted

    try:
        with _stop_on_sigterm():
            res = simulate(eng, agents, players=p, rules=rules, n_games=games, seed=seed, jobs=jobs,
                           chunk_size=chunk_size, progress=show, backend=backend, scheduler=scheduler)
    except Interrupted as exc:
        _interrupted(f"interrupted: {exc.games_done:,} of {exc.games:,} games played; sensei play keeps no "
                     "partial results (sensei run keeps every finished chunk)")
        sys.exit(130)
    return res.summary(), res.seconds, res.agents, res.compile_seconds


@contextlib.contextmanager
def _stdout_to_stderr(on: bool):
    """With ``on``, everything written to stdout (a strategy's print, in Python or in compiled code, in this
    process or in a worker started meanwhile) goes to stderr until the block ends."""
    if not on:
        yield sys.stdout.write
        return
    sys.stdout.flush()
    try:
        real = sys.stdout.fileno() == 1
    except (AttributeError, OSError, ValueError):  # a captured stdout (tests): Python's level only
        real = False
    saved = os.dup(1) if real else None
    if saved is not None:
        os.dup2(2, 1)
    out = sys.stdout

    def write(text: str) -> None:
        """Write to the real stdout meanwhile (the command's own output)."""
        if saved is None:
            out.write(text)
            return
        data = text.encode()
        while data:
            data = data[os.write(saved, data):]

    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield write
    finally:
        sys.stdout.flush()
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


def _table(game: str, players: Optional[int], strategy: Optional[List[str]], rule: Optional[List[str]],
           strategy_files: Optional[List[str]]) -> tuple[Any, int, Any, list[Any]]:
    """The arguments ``play`` and ``trace`` share, checked: the engine, the player count, the rules and
    one strategy per seat (SenseiError for anything wrong)."""
    from simcore.options import parse_assignments
    from simcore.registry import get_game
    from strategies.registry import default_strategy, lineup, register_files

    register_files(strategy_files or [])
    _crash_line()
    eng = get_game(game)
    p = players if players is not None else eng.default_players
    rules = eng.make_rules(parse_assignments(rule or [], "rule"))
    eng.validate(p, rules)
    specs = list(strategy) if strategy else [default_strategy(eng.name)]
    return eng, p, rules, lineup(eng.name, specs, p)


@app.command()
def trace(
    game: str = typer.Argument(..., metavar="GAME", help="sen, senshi, sensu or fan-and-mallet"),
    players: Optional[int] = typer.Option(None, "--players", "-p", help="number of seats"),
    strategy: Optional[List[str]] = typer.Option(None, "--strategy", "-s", metavar="SPEC",
                                                 help="NAME[:k=v,...] or FILE.py:Class[:k=v,...]; one per seat, or one for all"),
    rule: Optional[List[str]] = typer.Option(None, "--rule", "-r", metavar="KEY=VALUE", help="rule option KEY=VALUE (repeatable)"),
    seed: int = typer.Option(0, "--seed", help="root seed (as given to sensei play)"),
    index: int = typer.Option(0, "--game", "-k",
                              help="the game to trace: its index K from 0, the per-game table's game column"),
    games: Optional[int] = typer.Option(None, "--games", "-n",
                                        help="the run's number of games (sensei play --games): K must be below it"),
    seat: Optional[int] = typer.Option(None, "--view", help="print only what this seat (from 0) saw"),
    jobs: int = typer.Option(1, "--jobs", "-j", help="accepted as sensei play takes it (a game never depends on it)"),
    chunk_size: Optional[int] = typer.Option(None, "--chunk-size",
                                             help="accepted as sensei play takes it (a game never depends on it)"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object per event and line (JSON Lines)"),
    strategy_files: Optional[List[str]] = _strategies_option(),
    debug: bool = _debug_option(),
) -> None:
    """Play game K of the games `sensei play` plays with the same arguments and seed, and print it
    decision by decision: the seat, its strategy, what it knew, its options, its choice and the public
    effect; reveals and scoring at every round's end and at the game's end.

    Example: sensei trace sen --players 4 --strategy threshold:wake=8 --seed 1 --game 41 --games 1000
    """
    from simcore.runner import check_chunk_size, check_games, check_jobs
    from simcore.tracing import check_game_index, iter_trace, json_lines, render, view

    _DEBUG["on"] = debug
    # (what a strategy file prints as it is loaded must not break the JSON Lines either)
    with _stdout_to_stderr(as_json):
        eng, p, rules, agents = _table(game, players, strategy, rule, strategy_files)
    check_jobs(jobs)
    if chunk_size is not None:
        check_chunk_size(chunk_size)
    if games is not None:
        check_games(games, what="--games")
    check_game_index(index, games, names=("--game", "--games"))
    if seed < 0:
        raise SenseiError(f"--seed must be a non-negative integer, got {seed}")
    if seat is not None and not 0 <= seat < p:
        raise SenseiError(f"--view {seat}: no such seat at a table of {p} (seats 0 to {p - 1})")
    # each event is printed as it happens: a game of many rounds is millions of them, never all kept
    with _stop_at_once(), _stdout_to_stderr(as_json) as write:
        for event in iter_trace(eng, agents, p, rules, seed=seed, game=index):
            shown = view([event], seat)
            write(json_lines(shown) if as_json else render(shown, seat))


#: the most games ``sensei check`` plays per check (it walks them decision by decision): simcore.conformance's
#: CHECK_MAX_GAMES, which enforces it (a test keeps the two equal; importing it here would load the engines for
#: every command, --help too)
CHECK_MAX_GAMES = 2000


@app.command()
def check(
    game: str = typer.Argument(..., metavar="GAME", help="sen, senshi, sensu or fan-and-mallet"),
    players: Optional[int] = typer.Option(None, "--players", "-p", help="number of seats"),
    strategy: Optional[List[str]] = typer.Option(None, "--strategy", "-s", metavar="SPEC",
                                                 help="NAME[:k=v,...] or FILE.py:Class[:k=v,...]; one per seat, or one for all"),
    rule: Optional[List[str]] = typer.Option(None, "--rule", "-r", metavar="KEY=VALUE", help="rule option KEY=VALUE (repeatable)"),
    games: int = typer.Option(20, "--games", "-n", help=f"games per check (at most {CHECK_MAX_GAMES:,})"),
    seed: int = typer.Option(0, "--seed", help="root seed"),
    strategy_files: Optional[List[str]] = _strategies_option(),
    bounds: bool = typer.Option(False, "--bounds",
                                help="compile the table again (once, kept apart) with numba's bounds checks, "
                                     "so that a compiled decision that indexes an array out of its bounds fails "
                                     "the checks, named"),
    debug: bool = _debug_option(),
) -> None:
    """Check the strategies of a table against the decision protocol, as the test suite checks the built-in
    ones: the game's invariants after every decision (in both lanes, with the same games), the same games
    for a game alone or in a batch and when played again, and that no decision reads what its seat may not
    see (the leak probe) or writes into the game's state or another seat's random stream. A decision that raises or makes an illegal option fails the check that met it.
    One line per check; exit status 0 when all pass, 1 when one fails.

    Example: sensei check sen --players 2 --strategy examples/strategies/sen_threshold.py:Threshold --strategy threshold
    """
    import numba

    from simcore import conformance as C

    _DEBUG["on"] = debug
    eng, p, rules, agents = _table(game, players, strategy, rule, strategy_files)
    C.check_games_count(games, "--games", "sensei check (it plays")
    if seed < 0:
        raise SenseiError(f"--seed must be a non-negative integer, got {seed}")
    if bounds and not numba.config.BOUNDSCHECK:
        # numba reads NUMBA_BOUNDSCHECK when it is imported: the checks run in a process started with it
        code = _check_with_bounds(game, players, strategy, rule, games, seed, strategy_files, debug)
        if code == 130:  # interrupted: the checking process said so in its one line
            sys.exit(code)
        raise typer.Exit(code)
    seats = ", ".join(f"seat {i} {a.spec()}" for i, a in enumerate(agents))
    changed = {k: v for k, v in rules.as_dict().items() if v != eng.make_rules().as_dict()[k]}
    typer.echo(f"sensei check {eng.name}, {p} player{'s' if p != 1 else ''}, rules "
               + (", ".join(f"{k}={_show_default(v)}" for k, v in changed.items()) if changed else "as default")
               + f": {seats}")
    checks = [(what, run) for _, what, run in C.table_checks(eng, agents, p, rules, games, seed)]
    failed = 0
    stop = _stop_at_once()
    for what, run in checks:
        try:
            with stop:  # Ctrl-C and SIGTERM stop the checks with one line, a decision that loops for ever too
                got = run()
        except (C.ConformanceError, StrategyError, IllegalAction) as exc:
            if _DEBUG["on"] and not isinstance(exc, C.ConformanceError):
                import traceback

                traceback.print_exception(exc, file=sys.stderr)
            failed += 1
            typer.echo(f"FAIL  {what}: {_one_line(exc)}")
        else:
            typer.echo(f"ok    {what}" + (f" ({got:,} decisions compared)" if isinstance(got, int) else ""))
    typer.echo(f"{len(checks) - failed} of {len(checks)} checks passed")
    if failed:
        raise typer.Exit(1)


def _check_with_bounds(game: str, players: Optional[int], strategy: Optional[List[str]], rule: Optional[List[str]],
                       games: int, seed: int, strategy_files: Optional[List[str]], debug: bool) -> int:
    """``sensei check`` with the same arguments in a process whose numba checks every index (its machine
    code is cached apart from the usual one); its exit status."""
    import subprocess

    argv = [sys.executable, "-m", "experiments.cli", "check", game, "--games", str(games), "--seed", str(seed)]
    if players is not None:
        argv += ["--players", str(players)]
    for flag, values in (("--strategy", strategy), ("--rule", rule), ("--strategies", strategy_files)):
        for v in values or []:
            argv += [flag, v]
    if debug:
        argv.append("--debug")
    typer.echo("checking with numba's bounds checks: the table is compiled again for them, once (up to a minute)",
               err=True)
    sys.stdout.flush()
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1"}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join([root] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    child = subprocess.Popen(argv, env=env)
    try:
        return child.wait()
    except KeyboardInterrupt:  # Ctrl-C reached the child too: it stops with its own one line
        return child.wait()


def _stop_at_once() -> Any:
    """For a command that keeps nothing it would lose (``check``, ``trace``) run from the command line: Ctrl-C
    and SIGTERM end the process at once with the one line ``interrupted`` (status 130), also while a
    compiled decision loops for ever (experiments/crash.py). Elsewhere (a caller in Python), SIGTERM
    stops it as Ctrl-C does."""
    if _CRASH_LINE["on"]:
        from experiments import crash

        sys.stdout.flush()
        if crash.install_interrupt():
            return contextlib.nullcontext()
    return _stop_on_sigterm()


class _stop_on_sigterm:
    """SIGTERM (a polite kill) stops a command like Ctrl-C does, for the duration of the block."""

    def __enter__(self):
        import signal
        import threading

        self.previous = None
        if threading.current_thread() is threading.main_thread():  # signals belong to the main thread
            from simcore.errors import interrupt_handler as _term

            self.previous = signal.signal(signal.SIGTERM, _term)
        return self

    def __exit__(self, *exc):
        import signal

        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)
        return False


#: the narrowest terminal the readable output is laid out for (COLUMNS=0 printed one table and nothing else)
MIN_WIDTH = 40


def _console(**kw: Any):
    """A rich console for the standard output, at least :data:`MIN_WIDTH` columns wide whatever COLUMNS says."""
    from rich.console import Console

    con = Console(**kw)
    if "width" not in kw and con.width < MIN_WIDTH:
        con = Console(width=80, **kw)
    return con


def _print_summary(s: dict[str, Any], seconds: float, labels: list[str], compiling: float = 0.0) -> None:
    """The readable form of the summary: every figure with its 95% interval; strategies by short label,
    the full spec one column away. The speed leaves out the time a first run spent ``compiling``."""
    from rich import box
    from rich.table import Table

    con = _console()
    P = s["players"]
    timing = f"{seconds:.1f} s, {s['games'] / max(seconds, 1e-9):,.0f} games/s"
    if compiling >= 0.05 and seconds - compiling > 0:  # a first run: its speed is that of the games alone
        timing = f"{seconds:.1f} s, compiling {compiling:.1f} s; {s['games'] / max(seconds - compiling, 1e-9):,.0f} games/s"
    con.print(f"[bold]{s['game']}[/bold], {P} player{'s' if P != 1 else ''}, {s['games']:,} games, seed {s['seed']} "
              f"({timing})", highlight=False)
    con.print("rules: " + ", ".join(f"{k}={_show_default(v)}" for k, v in s["rules"].items()), highlight=False)
    has_win = bool(s["win_share"])
    cells = []
    for i in range(P):
        row = [str(i), labels[i]]
        if has_win:
            row.append(f"{s['win_share'][i]:.4f} {_interval(s['win_share_ci95'][i], 4)}")
        row.append(f"{_fmt(s['mean_score'][i], 2)} {_interval(s['mean_score_ci95'][i], 2)}")
        cells.append(row)
    heads = ["seat", "strategy"] + (["win share [95% CI]"] if has_win else []) + ["mean score [95% CI]"]
    widths = [max(len(h), *(len(r[j]) for r in cells)) for j, h in enumerate(heads)]
    fixed = sum(widths) + 3 * len(widths)  # SIMPLE_HEAD: a space either side of every column, and a divider
    longest = max(len(x) for x in s["strategies"])
    # the full spec goes in the last column where every spec fits on its line, else on lines of its own under the
    # table (a column folded over three rows read as three specs); nothing else is ever shortened
    spec_width = max(0, con.width - fixed - 2)
    with_spec = spec_width >= max(longest, len("spec"))
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for h, w in zip(heads, widths):
        t.add_column(h, no_wrap=True, min_width=w)
    if with_spec:
        t.add_column("spec", overflow="fold")
    for i, row in enumerate(cells):
        t.add_row(*row, *([s["strategies"][i]] if with_spec else []))
    wide = _console(width=max(con.width, fixed + 2), highlight=False) if con.width < fixed + 2 else con
    wide.print(t)
    if not with_spec:
        for i, spec in enumerate(s["strategies"]):
            con.print(f"seat {i}: {spec}", highlight=False, soft_wrap=True)
    con.print(f"mean turns {s['mean_turns']:.2f} {_interval(s['mean_turns_ci95'], 2)}, timeouts {s['timeouts']} "
              f"(share {s['timeout_share']:.4f} {_interval(s['timeout_share_ci95'], 4)})", highlight=False)
    m = Table("metric", "value", "95% interval", box=box.SIMPLE_HEAD)
    for k, v in s["metrics"].items():
        ci = s["ci95"].get(k)
        if isinstance(v, dict):
            for name, x in v.items():
                m.add_row(f"{k} {name}", _fmt(x), _interval((ci or {}).get(name)))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                m.add_row(f"{k} (seat {i})", _fmt(x), _interval(ci[i] if ci else None))
        else:
            m.add_row(k, _fmt(v), _interval(ci))
    con.print(m)


def _interval(ci: Any, digits: int = 4) -> str:
    if not ci or ci[0] is None or ci[1] is None:
        return "-"
    return f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _fmt(v: Any, digits: int = 4) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x, digits) for x in v) + "]"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fmt(x, digits)}" for k, x in v.items())
    return str(v)


@app.command()
def games() -> None:
    """List the games, their player counts and rule options with defaults.

    Example: sensei games
    """
    from simcore.registry import game_names, get_game
    from strategies.registry import default_strategy

    for name in game_names():
        eng = get_game(name)
        d = eng.describe()
        lo, hi = d["players"]
        count = f"{lo} player{'s' if lo != 1 else ''}" if lo == hi else f"{lo}-{hi} players, default {eng.default_players}"
        typer.echo(f"{name}: {d['title']} ({count}; default strategy {default_strategy(name)}). {d['summary']}")
        for r in d["rules"]:
            choices = f" [{'|'.join(map(str, r['choices']))}]" if r["choices"] else ""
            typer.echo(f"  --rule {r['name']}={_show_default(r['default'])}  ({r['type']}{choices}) {r['help']}")


def _show_default(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


@app.command()
def strategies(game: str = typer.Argument(..., metavar="GAME", help="a game name"),
               strategy_files: Optional[List[str]] = _strategies_option()) -> None:
    """List a game's strategies with their parameters and docstrings (shipped, installed by packages
    through the entry point group sensei.strategies, and those of --strategies files).

    Example: sensei strategies sen
    """
    from simcore.options import allowed
    from simcore.registry import get_game
    from strategies.registry import describe_strategies, register_files

    register_files(strategy_files or [])
    eng = get_game(game)
    for s in describe_strategies(eng.name):
        if "error" in s:  # an installed package's entry point that cannot be used: said, and the rest listed
            typer.echo(f"{s['name']}  (cannot be used)")
            typer.echo(f"    {s['error']}")
            continue
        params = ",".join(f"{p['name']}={_show_default(p['default'])}" for p in s["params"])
        where = "" if s["origin"] == "sensei" else f"  (from {s['origin']})"
        typer.echo(f"{s['name']}" + (f":{params}" if params else "") + where)
        for line in s["doc"].splitlines():
            typer.echo(f"    {line}")
        for p in s["params"]:
            values = allowed(p)
            typer.echo(f"    - {p['name']} ({p['type']}, default {_show_default(p['default'])}"
                       f"{', ' + values if values else ''}): {p['help']}")


@app.command("run")
def run_cmd(
    config: str = typer.Argument(..., metavar="CONFIG.toml", help="experiment config (TOML), e.g. experiments/sen_wake_threshold.toml"),
    games: Optional[int] = typer.Option(None, "--games", "-n", help="games (deals) per cell instead of the config's"),
    jobs: int = typer.Option(1, "--jobs", "-j", help="worker processes (results do not depend on it)"),
    out: Optional[str] = typer.Option(None, "--out", "-o",
                                      help="folder that receives the run folder and the index page (default: runs)"),
    resume: Optional[str] = typer.Option(None, "--resume",
                                         help="an unfinished run folder of this config: play only what is missing"),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="progress bar on stderr"),
    report: bool = typer.Option(True, "--report/--no-report", help="write the HTML report at the end"),
    backend: Optional[str] = typer.Option(None, "--backend",
                                          help="loky (default), threading, multiprocessing or dask; "
                                               "with --scheduler, replaces the config's [run] table"),
    scheduler: Optional[str] = typer.Option(None, "--scheduler",
                                            help="dask scheduler address, e.g. tcp://10.0.0.5:8786 (implies --backend dask)"),
    strategy_files: Optional[List[str]] = _strategies_option(),
    debug: bool = _debug_option(),
) -> None:
    """Run every cell of an experiment, write its run folder (parquet tables, config, manifest) and report.

    Finished work is saved as it arrives: after Ctrl-C or a crash, `--resume RUN_DIR` plays only what is
    missing and gives the same results as an uninterrupted run.

    Example: sensei run experiments/sen_wake_threshold.toml --games 2000 --jobs 4
    """
    import warnings

    _crash_line()  # before polars loads: under an address-space limit its runtime may abort as it starts
    from experiments.experiment import RunInterrupted, run_experiment

    _DEBUG["on"] = debug
    # joblib warns when an interrupted run leaves tasks unfinished; the one line below says it all
    warnings.filterwarnings("ignore", message=".*tasks which were still being processed.*")
    if out is not None and resume is not None:
        raise SenseiError("--resume continues the run in its own folder: give --out or --resume, not both")
    if resume is not None and not resume.strip():
        raise SenseiError("--resume needs the folder of an unfinished run, got ''")
    if out is not None and not out.strip():  # ('' wrote into runs/ without a word)
        raise SenseiError("--out needs a folder to write the run folder into, got ''")
    _crash_line()
    from experiments.config import GAMES_OVERRIDE

    flag = GAMES_OVERRIDE.set("--games")  # (its refusals name the flag, as the Python API's name the argument)
    try:
        with _stop_on_sigterm():  # a polite kill (SIGTERM) stops like Ctrl-C: finished work is kept
            res = run_experiment(config, games=games, jobs=jobs, progress=progress, backend=backend,
                                 scheduler=scheduler, out=None if resume else (out or "runs"), resume=resume,
                                 log=typer.echo, strategy_files=strategy_files or [])
    except KeyboardInterrupt as exc:  # RunInterrupted says what was kept and how to resume
        _interrupted(str(exc) if isinstance(exc, RunInterrupted) else "interrupted")
        sys.exit(130)
    finally:
        GAMES_OVERRIDE.reset(flag)
    path = res.run_dir
    m = res.manifest
    compiling = m.get("seconds_compiling", 0.0)
    typer.echo(f"{res.config.title}: {m['games_played']:,} games played in {m['seconds_playing']:.1f} s ("
               + (f"compiling {compiling:.1f} s; " if compiling >= 0.05 else "")
               + f"{m['games_per_second']:,.0f} games/s)")
    note = res.size_note
    if note:  # (the report says it at its top too)
        typer.echo(f"  {note}")
    for sentence in res.answer:
        typer.echo(f"  {sentence}")
    if m.get("chunks_restored"):
        typer.echo(f"resumed: {m['chunks_restored']} finished chunks ({m['games_restored']:,} games) read back, "
                   f"{m['chunks_played']} played now ({m['games_played']:,} games)")
    typer.echo(f"run folder: {path}")
    if report:
        try:
            page = _report(path)
        except KeyboardInterrupt:  # the results are all written: say how to get the report
            from experiments.experiment import complete_interrupted
            _interrupted(complete_interrupted(path))
            sys.exit(130)
        typer.echo(f"report: {page}")
        typer.echo(f"index: {os.path.join(os.path.dirname(os.path.abspath(path)), 'index.html')}")


def _err_plain(text: str) -> None:
    typer.echo(_one_line(text), err=True)


def _report(run_dir: str) -> str:
    from experiments.experiment import check_complete
    from reports import ReportError, build_report

    check_complete(run_dir)  # an incomplete run folder is not a result: say so in one line
    try:
        return build_report(run_dir)
    except ReportError as exc:
        raise SenseiError(str(exc)) from None
    except OSError as exc:  # a full disk, a folder where the page goes: the run's own files are whole
        exc.after = f"the run's results are kept in {run_dir}; sensei report {run_dir} writes its report again"
        raise


@app.command("report")
def report_cmd(run_dir: str = typer.Argument(..., metavar="RUN_DIR", help="a run folder written by sensei run")) -> None:
    """Write RUN_DIR/report.html from the run's result files (no games are played) and refresh the index.

    Example: sensei report runs/sen_wake_threshold-20250101-120000
    """
    page = _report(run_dir)
    typer.echo(f"report: {page}")
    typer.echo(f"index: {os.path.join(os.path.dirname(os.path.abspath(run_dir)), 'index.html')}")


def _guard_os_exit() -> None:
    """A user's strategy that calls ``os._exit`` ends this process at once, past every handler: with status
    0 and no output a run, or ``sensei check``, would read as done. Such a call from a user's file (a
    module named ``sensei_user_...``) says so in one line and exits with status 2 instead; every other
    caller's goes through unchanged."""
    real, me = os._exit, os.getpid()

    def _exit(status: int) -> None:
        frame = sys._getframe(1)
        # (a worker process forked from this one ends as it asks: this process says a worker stopped)
        if os.getpid() == me and str(frame.f_globals.get("__name__", "")).startswith("sensei_user_"):
            where = os.path.relpath(frame.f_code.co_filename)
            where = frame.f_code.co_filename if where.startswith("..") else where
            try:
                sys.stderr.write(f"error: strategy file {where!r} ended the process with "
                                 f"os._exit({status!r}) at line {frame.f_lineno} (in {frame.f_code.co_name}): a "
                                 "strategy returns its answers, it never ends the program\n")
                sys.stderr.flush()
            finally:
                real(2)
        real(status)

    os._exit = _exit


def main() -> None:
    # A command's objects mostly live until the process ends (numba's typing registries alone make
    # hundreds of thousands): the cyclic collector's full passes over them while they are made, and its
    # pass at exit, cost about half a second per command (measured). So full passes are rare here, and
    # at the end everything is moved out of the collector's sight (the process frees it on exit).
    gc.set_threshold(50_000, 20, 100)
    _CRASH_LINE["on"] = True
    _guard_os_exit()
    for name in ("stdout", "stderr"):  # started with a stream closed (cmd >&-): its text goes nowhere
        if getattr(sys, name) is None:
            setattr(sys, name, _NoStream())
    try:
        _main()
    except SystemExit as exc:  # every command ends here, after Ctrl-C and errors too
        _exit_now_if_playing(exc.code)
        if exc.code == 1 and _broken_pipe(exc):
            # click (and rich) end a command whose reader stopped reading (| head) with status 1 and nothing
            # said: the one line every refused write gets
            _err("could not write the output: Broken pipe (the reader stopped reading)")
        if isinstance(sys.stdout, _NoStream) and sys.stdout.written and exc.code in (0, None):
            # what the command printed (the JSON of play --json, say) went nowhere: not a success
            _err("could not write the output: the standard output is closed")
            raise SystemExit(1) from None
        raise
    finally:
        gc.freeze()


def _broken_pipe(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while a broken pipe (EPIPE) was being handled."""
    seen: set[int] = set()
    cause = exc.__context__
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.errno == errno.EPIPE:
            return True
        cause = cause.__context__
    return False


class _NoStream:
    """A standard stream the process started without (``cmd >&-``): its text goes to os.devnull, and
    whether anything was written is kept (for the standard output, a command whose output went nowhere
    ends with an error, status 1)."""

    def __init__(self) -> None:
        self._file = open(os.devnull, "w")
        self.written = False

    def write(self, text: str) -> int:
        if text:
            self.written = True
        return self._file.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


def _main() -> None:
    try:
        app()
    except KeyboardInterrupt:  # while typer builds the command, before the group's own handling
        _interrupted("interrupted")
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - a Ctrl-C that surfaced as another error
        if not caused_by_interrupt(exc):
            raise
        _interrupted("interrupted")
        sys.exit(130)


if _MAIN:  # imported: from here on Ctrl-C is a KeyboardInterrupt, which every command turns into one line
    # (noted as it arrives: a KeyboardInterrupt that no signal preceded is a strategy file's, see
    # simcore.errors.interrupt_possible)
    from simcore.errors import drop_ignored_interrupt, interrupt_handler, track_interrupts

    track_interrupts()
    signal.signal(signal.SIGINT, interrupt_handler)
    _unraisable = sys.unraisablehook

    def _quiet_unraisable(info) -> None:  # a Ctrl-C a compiler callback dropped: acted on, not printed
        if not drop_ignored_interrupt(info):
            _unraisable(info)

    sys.unraisablehook = _quiet_unraisable


if __name__ == "__main__":
    main()
