"""One runner for every game: chunks, seeds, workers, aggregation.

``simulate`` splits ``n_games`` games into chunks of consecutive global game indices. Each chunk is
played by the game's engine as one batch and reduced at once to column sums (and, when asked, tidy
per-game rows), so memory does not grow with the number of games. Chunks run in joblib workers; their
results are combined in chunk order, and every game's randomness is keyed by its global index
(:mod:`simcore.rng`), so the figures are identical for any number of workers.
"""
from __future__ import annotations

import dataclasses
import math
import sys
import time
from typing import Any, Callable, Sequence

import numba
import numpy as np

from .compiled import NO_REFCOUNT
from .errors import SenseiError
from .game import Game
from .registry import get_game
from .rng import root_key

# polars, scipy and statsmodels are imported where they are used, so that worker processes (which
# only play chunks) stay small.

TURN_HIST = 4096  # turn-count histogram bins (the last bin collects longer games)


#: sums of values that are multiples of 1/60 (integers, and win shares 1/k for k <= 5) are kept as
#: exact integers (in 60ths, squares in 3600ths), so they do not depend on how games are split in chunks
_SCALE, _SCALE_SQ = 60, 3600
_EXACT_LIMIT = 2.0 ** 52


@numba.njit(**NO_REFCOUNT)
def _exact_sums(v, scale, out):
    """Integer sums over rows of ``v * scale`` (n, k) into ``out`` (k,), when every entry is a whole
    number and every column's sum of magnitudes stays below 2**52; returns whether it is so."""
    for j in range(v.shape[1]):
        total, size = 0, 0.0
        for i in range(v.shape[0]):
            x = v[i, j] * scale
            if math.floor(x) != x:
                return False
            size += abs(x)
            total += int(x)
        if size >= _EXACT_LIMIT:
            return False
        out[j] = total
    return True


def _column_sums(v: np.ndarray, scale: int) -> tuple[np.ndarray, np.ndarray | None]:
    """(float sums over games, exact integer sums in 1/scale units or None when not representable)."""
    flat = np.ascontiguousarray(v.reshape(len(v), -1))
    ints = np.empty(flat.shape[1], dtype=np.int64)
    if _exact_sums(flat, float(scale), ints):
        ints = ints.reshape(v.shape[1:])
        if ints.ndim == 0:
            ints = ints[()]
        return ints / scale, ints
    return v.sum(axis=0), None


@dataclasses.dataclass
class Totals:
    """Column sums (and sums of squares) over a set of games, mergeable chunk by chunk."""
    n: int
    sums: dict[str, np.ndarray]
    sumsq: dict[str, np.ndarray]
    turns_hist: np.ndarray
    games: Any = None  # polars.DataFrame of per-game rows, when asked
    seconds: float = 0.0
    #: compact per-game vectors (float32, game order) of the outcome columns named in ``per_game``
    vectors: dict[str, np.ndarray] | None = None
    #: exact integer sums (60ths) and sums of squares (3600ths) of the columns that allow them
    exact: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    exact_sq: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)

    @staticmethod
    def of(outcome: dict[str, np.ndarray]) -> "Totals":
        n = len(outcome["turns"])
        sums, sumsq, exact, exact_sq = {}, {}, {}, {}
        for k, v in outcome.items():
            v = np.asarray(v, dtype=np.float64)
            sums[k], e = _column_sums(v, _SCALE)
            sumsq[k], e2 = _column_sums(v ** 2, _SCALE_SQ)
            if e is not None and e2 is not None:
                exact[k], exact_sq[k] = e, e2
        hist = np.bincount(np.minimum(outcome["turns"], TURN_HIST - 1).astype(np.int64), minlength=TURN_HIST)
        return Totals(n, sums, sumsq, hist, exact=exact, exact_sq=exact_sq)

    def merge(self, other: "Totals") -> "Totals":
        games = self.games
        if other.games is not None:
            import polars as pl

            games = other.games if games is None else pl.concat([games, other.games])
        vectors = self.vectors
        if other.vectors is not None:
            vectors = other.vectors if vectors is None else {
                k: np.concatenate([vectors[k], other.vectors[k]]) for k in vectors}
        exact = {k: self.exact[k] + other.exact[k] for k in self.exact if k in other.exact}
        exact_sq = {k: self.exact_sq[k] + other.exact_sq[k] for k in exact}
        sums = {k: exact[k] / _SCALE if k in exact else self.sums[k] + other.sums[k] for k in self.sums}
        sumsq = {k: exact_sq[k] / _SCALE_SQ if k in exact else self.sumsq[k] + other.sumsq[k] for k in self.sumsq}
        return Totals(self.n + other.n, sums, sumsq, self.turns_hist + other.turns_hist, games,
                      self.seconds + other.seconds, vectors, exact, exact_sq)


def tidy_games(outcome: dict[str, np.ndarray], game_ids: np.ndarray, names: Sequence[str]) -> Any:
    """One row per (game, seat) with every outcome column (a polars DataFrame)."""
    import polars as pl

    n = len(game_ids)
    players = len(names)
    cols: dict[str, Any] = {
        "game": np.repeat(np.asarray(game_ids, dtype=np.int64), players),
        "seat": np.tile(np.arange(players, dtype=np.int16), n),
        "strategy": np.tile(np.asarray(names, dtype=object), n),
    }
    for k, v in outcome.items():
        v = np.asarray(v)
        if v.ndim == 1:
            cols[k] = np.repeat(v, players)
        elif v.shape[1] == players:
            cols[k] = v.reshape(-1)
        else:  # a per-game vector of another width (e.g. a one-hot level): one column per entry
            for j in range(v.shape[1]):
                cols[f"{k}_{j}"] = np.repeat(v[:, j], players)
    return pl.DataFrame({k: (list(v) if v.dtype == object else v) for k, v in cols.items()})


def game_vectors(outcome: dict[str, np.ndarray], names: Sequence[str]) -> dict[str, np.ndarray]:
    """Compact float32 copies of the outcome columns ``names``: shape (n,) or (n, players)."""
    out = {}
    for k in names:
        if k not in outcome:
            raise SenseiError(f"per-game column {k!r} is not an outcome column (known: {', '.join(outcome)})")
        out[k] = np.asarray(outcome[k], dtype=np.float32)
    return out


def play_chunk(game: str, players: int, rules: Any, agents: Sequence[Any], seed: int, start: int, stop: int,
               keep_games: bool = False, per_game: Sequence[str] = (), compiled: bool = True) -> Totals:
    """Play games ``start..stop-1`` (global indices) and reduce them to totals.

    ``per_game`` names outcome columns to keep as compact float32 per-game vectors (``Totals.vectors``),
    for paired comparisons between runs that replay the same games.
    """
    eng = get_game(game)
    t0 = time.perf_counter()
    ids = np.arange(start, stop, dtype=np.int64)
    out = eng.play(ids, players, rules, agents, root_key(seed), width=eng.batch_width, compiled=compiled)
    tot = Totals.of(out)
    if keep_games:
        tot.games = tidy_games(out, ids, [a.spec() if hasattr(a, "spec") else repr(a) for a in agents])
    if per_game:
        tot.vectors = game_vectors(out, per_game)
    tot.seconds = time.perf_counter() - t0
    return tot


def default_chunk(n_games: int) -> int:
    """Chunk size from the number of games only (never from the number of workers): large batches
    amortise the per-step cost of the vectorized engines; at least 4 chunks when there are many games,
    so that workers share the load."""
    return int(min(16384, max(1024, math.ceil(n_games / 4))))


@dataclasses.dataclass
class RunResult:
    """Everything a run produced: totals, and methods giving the contract summary and tables."""
    game: Game
    players: int
    rules: Any
    agents: list[Any]
    seed: int
    totals: Totals
    seconds: float
    jobs: int

    @property
    def n(self) -> int:
        return self.totals.n

    @property
    def specs(self) -> list[str]:
        return [a.spec() if hasattr(a, "spec") else repr(a) for a in self.agents]

    def win_share(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from .stats import wilson
        s = self.totals.sums["win"]
        lo, hi = wilson(s, self.n)
        return s / max(self.n, 1), lo, hi

    def summary(self) -> dict[str, Any]:
        """The ``sensei play --json`` object of the contract."""
        t = self.totals
        share, lo, hi = self.win_share()
        return {
            "game": self.game.name,
            "players": self.players,
            "games": self.n,
            "seed": self.seed,
            "strategies": self.specs,
            "rules": self.rules.as_dict(),
            "win_share": [float(x) for x in share],
            "win_share_ci95": [[float(a), float(b)] for a, b in zip(lo, hi)],
            "mean_turns": float(t.sums["turns"] / max(self.n, 1)),
            "timeouts": int(round(float(t.sums["timeout"]))),
            "metrics": self.game.metrics(t.sums, self.n, self.players, self.rules),
        }

    def seats(self) -> Any:
        """One row per seat (polars): strategy, win share with its Wilson interval, mean score with its t interval."""
        import polars as pl

        from .stats import mean_ci
        t = self.totals
        share, lo, hi = self.win_share()
        if len(share) != self.players:  # no win share (solo games)
            share = lo = hi = np.full(self.players, np.nan)
        mean, half = mean_ci(t.sums["score"], t.sumsq["score"], self.n)
        return pl.DataFrame({
            "seat": list(range(self.players)),
            "strategy": self.specs,
            "games": [self.n] * self.players,
            "win_share": share, "win_lo": lo, "win_hi": hi,
            "mean_score": mean, "score_half_ci": half,
        })

    def games(self) -> Any:
        return self.totals.games

    def per_game(self) -> dict[str, np.ndarray] | None:
        """The per-game float32 vectors asked for with ``simulate(per_game=...)``, in game order."""
        return self.totals.vectors

    def turn_distribution(self) -> np.ndarray:
        h = self.totals.turns_hist
        last = int(np.flatnonzero(h)[-1]) + 1 if h.any() else 0
        return h[:last]


def chunks(n_games: int, chunk_size: int, start: int = 0) -> list[tuple[int, int]]:
    return [(a, min(a + chunk_size, start + n_games)) for a in range(start, start + n_games, chunk_size)]


class _Progress:
    """A rich progress bar on stderr that appears only once a run has lasted ``delay`` seconds."""

    def __init__(self, total: int, label: str, enabled: bool, delay: float = 2.0):
        self.total, self.label, self.enabled, self.delay = total, label, enabled, delay
        self.t0 = time.perf_counter()
        self.done = 0
        self.bar = None
        self.task = None

    def advance(self, k: int) -> None:
        self.done += k
        if not self.enabled:
            return
        if self.bar is None and time.perf_counter() - self.t0 >= self.delay:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                                console=Console(file=sys.stderr), transient=False)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=self.total, rate="")
        if self.bar is not None:
            rate = self.done / max(time.perf_counter() - self.t0, 1e-9)
            self.bar.update(self.task, completed=self.done, rate=f"{rate:,.0f} games/s")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def run_chunks(tasks: list[tuple[Callable, tuple]], jobs: int, on_result: Callable[[int, Any], None],
               backend: str | None = None, scheduler: str | None = None) -> None:
    """Run ``tasks`` (function, args) and hand each result, in task order, to ``on_result``.

    ``backend``: None or "loky" (local worker processes, ``jobs`` of them), "threading", or "dask" (a
    dask.distributed cluster through joblib's dask backend: ``scheduler`` is its address, e.g.
    ``tcp://10.0.0.5:8786``; without one a local cluster of ``jobs`` worker processes is started).
    Every task is a whole chunk returning aggregates, so a cluster is not slowed by traffic.
    """
    backend = (backend or "loky").lower()
    if backend not in ("loky", "threading", "dask", "multiprocessing"):
        raise SenseiError(f"unknown backend {backend!r} (known: loky, threading, multiprocessing, dask)")
    if scheduler and backend != "dask":
        raise SenseiError("a scheduler address needs --backend dask")
    if backend != "dask" and (jobs == 1 or len(tasks) <= 1):
        for i, (fn, args) in enumerate(tasks):
            on_result(i, fn(*args))
        return
    from joblib import Parallel, delayed, parallel_config
    if backend == "dask":
        with _dask_client(scheduler, jobs):
            with parallel_config(backend="dask"):
                par = Parallel(n_jobs=-1, return_as="generator")
                _drain(par(delayed(fn)(*args) for fn, args in tasks), on_result)
        return
    extra = {"initializer": _worker_ignores_ctrl_c} if backend == "loky" else {}
    with parallel_config(backend=backend, n_jobs=jobs, **extra):
        par = Parallel(return_as="generator")
        _drain(par(delayed(fn)(*args) for fn, args in tasks), on_result)


def _worker_ignores_ctrl_c() -> None:
    """Worker processes leave Ctrl-C to the main process, which stops them and keeps finished work
    (Ctrl-C in a terminal reaches the whole process group; a worker would print a traceback)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _drain(results, on_result: Callable[[int, Any], None]) -> None:
    """Hand each result of joblib's generator to ``on_result``, and close the generator here, whatever
    happens: left to the garbage collector after Ctrl-C, its clean-up can be interrupted again and
    Python then prints a traceback ("Exception ignored in ...") past the one-line message."""
    try:
        for i, res in enumerate(results):
            on_result(i, res)
    finally:
        try:
            results.close()
        except BaseException:  # noqa: BLE001 - already unwinding: the first error is the one to report
            pass


def _sensei_version() -> str:
    """The installed sensei version and the fingerprint of its engine and strategy sources (workers must
    match)."""
    from importlib.metadata import PackageNotFoundError, version

    from .compiled import source_fingerprint
    try:
        v = version("sensei")
    except PackageNotFoundError:
        v = "unknown"
    return f"{v}+{source_fingerprint()}"


class _dask_client:
    """Connect to a dask scheduler (or start a local cluster) for the duration of a run."""

    def __init__(self, scheduler: str | None, jobs: int):
        self.scheduler, self.jobs, self.client = scheduler, jobs, None

    def __enter__(self):
        try:
            from distributed import Client
        except ImportError:
            raise SenseiError("the dask backend needs the 'distributed' extra: pip install 'sensei[distributed]'") from None
        try:
            if self.scheduler:
                self.client = Client(self.scheduler, timeout=5)
            else:
                self.client = Client(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                     dashboard_address=None)
        except (OSError, TimeoutError, ValueError) as exc:
            raise SenseiError(f"cannot reach dask scheduler {self.scheduler!r}: {exc}") from None
        mine = _sensei_version()
        theirs = set(self.client.run(_sensei_version).values())
        if theirs and theirs != {mine}:
            self.client.close()
            raise SenseiError(f"dask workers run sensei {', '.join(sorted(theirs))}, this machine {mine}: "
                              "install the same version everywhere")
        return self.client

    def __exit__(self, *exc):
        if self.client is not None:
            self.client.close()
        return False


def check_jobs(jobs: int) -> int:
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise SenseiError(f"jobs must be a positive integer, got {jobs!r}")
    return jobs


def simulate(game: str | Game, agents: Sequence[Any], players: int | None = None, rules: Any = None,
             n_games: int = 1000, seed: int = 0, jobs: int = 1, chunk_size: int | None = None,
             keep_games: bool = False, progress: bool = False, backend: str | None = None,
             first_game: int = 0, per_game: Sequence[str] = (), scheduler: str | None = None,
             compiled: bool = True) -> RunResult:
    """Play ``n_games`` complete games of ``game`` with one agent per seat; see the module docstring.

    ``agents`` are strategy objects (one per seat); ``rules`` a Rules instance or a dict of options.
    ``per_game`` names outcome columns (e.g. ``("win", "score")``) kept per game as compact float32
    arrays, returned by :meth:`RunResult.per_game` (memory: 4 bytes per game and value).
    ``compiled=False`` keeps to the turn-by-turn lane even when the lineup has a compiled form (the
    results are the same; for tests and benchmarks).
    """
    eng = get_game(game)
    players = len(agents) if players is None else players
    if not isinstance(rules, eng.Rules):
        rules = eng.make_rules(rules)
    eng.validate(players, rules)
    if len(agents) != players:
        raise SenseiError(f"{len(agents)} strategies for {players} seats")
    if not isinstance(n_games, int) or isinstance(n_games, bool) or n_games < 1:
        raise SenseiError(f"games must be a positive integer, got {n_games!r}")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise SenseiError(f"seed must be a non-negative integer, got {seed!r}")
    jobs = check_jobs(jobs)
    size = chunk_size or default_chunk(n_games)
    if size < 1:
        raise SenseiError(f"chunk size must be positive, got {size}")
    parts = chunks(n_games, size, first_game)
    per_game = tuple(per_game)
    tasks = [(play_chunk, (eng.name, players, rules, list(agents), seed, a, b, keep_games, per_game, compiled))
             for a, b in parts]
    bar = _Progress(n_games, f"{eng.name} {players}p", progress)
    results: list[Totals] = []
    t0 = time.perf_counter()

    def take(i: int, tot: Totals) -> None:
        results.append(tot)
        bar.advance(tot.n)

    try:
        run_chunks(tasks, jobs, take, backend, scheduler)
    finally:
        bar.close()
    total = results[0]
    for r in results[1:]:
        total = total.merge(r)
    return RunResult(eng, players, rules, list(agents), seed, total, time.perf_counter() - t0, jobs)
