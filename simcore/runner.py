"""One runner for every game: chunks, seeds, workers, aggregation.

``simulate`` splits ``n_games`` games into chunks of consecutive global game indices. Each chunk is
played by the game's engine as one batch and reduced at once to column sums (and, when asked, tidy
per-game rows), so memory does not grow with the number of games. Chunks run in joblib workers; their
results are combined in chunk order, and every game's randomness is keyed by its global index
(:mod:`simcore.rng`), so the figures are identical for any number of workers.
"""
from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import itertools
import logging
import math
import os
import signal
import sys
import threading
import time
import warnings
from typing import Any, Callable, Iterable, Iterator, Sequence

import numba
import numpy as np

from .compiled import NO_REFCOUNT, compile_timer
from .errors import (NOT_CTRL_C, SenseiError, StrategyError, SystemRefused, WorkerDied, caused_by_interrupt,
                     error_text, interrupt_possible)
from .game import Game
from .options import check_fields, check_shadowing, display_name
from .registry import get_game
from .rng import root_key

# polars, scipy and statsmodels are imported where they are used, so that worker processes (which
# only play chunks) stay small.

#: glibc's malloc: blocks up to this size come from the heap (never a fresh mapping) ...
_MMAP_THRESHOLD = 32 << 20
#: ... and it gives free memory at the top of the heap back to the system only past this much
_TRIM_THRESHOLD = 64 << 20


def address_space_limit() -> int | None:
    """This process's address-space limit in bytes (``ulimit -v``; a batch scheduler's memory limit such as
    SGE's ``h_vmem`` sets it too), None where there is none."""
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return soft if soft != resource.RLIM_INFINITY and soft > 0 else None


def address_space_limited() -> bool:
    """Whether this process's address space is limited (:func:`address_space_limit`)."""
    return address_space_limit() is not None


def _reuse_freed_memory() -> None:
    """Let glibc's malloc reuse the memory of a finished block of games for the next one. By default a
    block's state arrays (about a megabyte each) are fresh mappings that the system must fault in and zero
    page by page at every block, and the memory is handed back when they are freed; Fan & Mallet's
    ``random`` ran about 9% faster with them kept on the heap (docs/speed.md). Free memory at the top of the
    heap goes back to the system once it exceeds ``_TRIM_THRESHOLD``. Nothing happens on other C libraries."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
            return
        import ctypes
        libc = ctypes.CDLL(None)
        m_trim_threshold, m_mmap_threshold = -1, -3
        libc.mallopt(m_mmap_threshold, _MMAP_THRESHOLD)
        libc.mallopt(m_trim_threshold, _TRIM_THRESHOLD)
        if address_space_limited():  # each thread's arena reserves 64 MiB of address space: two will do
            m_arena_max = -8
            libc.mallopt(m_arena_max, 2)
    except (OSError, ValueError, AttributeError):  # pragma: no cover - not glibc: the library's defaults
        pass


_reuse_freed_memory()

#: a game-length histogram's most bins: one per turn from the shortest game to the longest while they span at
#: most this many turns (every shipped question's games do), else bins of 2, 4, 8 ... turns (``hist_width``)
TURN_HIST = 4096


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
    flat = np.ascontiguousarray(v.reshape(len(v), math.prod(v.shape[1:])))
    ints = np.empty(flat.shape[1], dtype=np.int64)
    if _exact_sums(flat, float(scale), ints):
        ints = ints.reshape(v.shape[1:])
        if ints.ndim == 0:
            ints = ints[()]
        return ints / scale, ints
    return v.sum(axis=0), None


#: the exact pass takes entries of ``v * 60`` and ``v * v * 3600`` below this in magnitude (a column with a
#: larger one takes numpy's sums, which are exact too while they stay below 2**52)
_ENTRY_LIMIT = 2.0 ** 44


@numba.njit(cache=True, inline="always")
def _order_key(bits):
    """An integer that orders like the float64 with these bits (the magnitude bits flipped for negative
    values); applied twice it gives the bits back."""
    return bits ^ ((bits >> 63) & 0x7FFFFFFFFFFFFFFF)


@numba.njit(**NO_REFCOUNT)
def _column_pass(v, bits, ints, ints_sq, lo, hi):
    """One pass over each column (row) of ``v`` (k, n >= 1), with ``bits`` the same memory as int64:
    per column the smallest and largest value (``lo``, ``hi``, as the bits of the float64 values) and
    the integer sums of ``v * 60`` and of ``v * v * 3600`` (``ints``, ``ints_sq``). Returns whether
    both sums are valid: every entry of both a whole number below 2**44 in magnitude, every column's
    sum of magnitudes below 2**52 (else the caller takes numpy's sums, minima and maxima, as
    :func:`_column_sums`). Written without branches or float sums in the loop, so that it vectorises:
    the minimum and maximum are taken over :func:`_order_key`."""
    k, n = v.shape
    for j in range(k):
        total, total_sq, size, size_sq, good = 0, 0, 0, 0, True
        low = high = _order_key(bits[j, 0])
        for i in range(n):
            x = v[j, i]
            a = x * _SCALE
            b = (x * x) * _SCALE_SQ
            ok = (math.floor(a) == a) & (math.floor(b) == b) & (abs(a) < _ENTRY_LIMIT) & (abs(b) < _ENTRY_LIMIT)
            good &= ok   # (NaN fails the first test, infinities the third)
            ia = np.int64(a if ok else 0.0)
            ib = np.int64(b if ok else 0.0)
            total += ia
            total_sq += ib
            size += abs(ia)
            size_sq += ib
            key = _order_key(bits[j, i])
            low = min(low, key)
            high = max(high, key)
        if not good or size >= _EXACT_LIMIT or size_sq >= _EXACT_LIMIT:
            return False
        ints[j], ints_sq[j] = total, total_sq
        lo[j], hi[j] = _order_key(low), _order_key(high)
    return True


def _column_totals(v: np.ndarray):
    """(sum, sum of squares, exact sum, exact sum of squares, min, max) over the games (rows) of ``v``
    (float64, at least one row) in one compiled pass, or None where the exact sums do not apply."""
    cols = np.ascontiguousarray(v.reshape(len(v), -1).T)   # one contiguous row per column
    k = cols.shape[0]
    ints, ints_sq = np.empty(k, dtype=np.int64), np.empty(k, dtype=np.int64)
    lo, hi = np.empty(k, dtype=np.int64), np.empty(k, dtype=np.int64)
    if not _column_pass(cols, cols.view(np.int64), ints, ints_sq, lo, hi):
        return None
    shape = v.shape[1:]
    e, e2 = ints.reshape(shape), ints_sq.reshape(shape)
    lo, hi = lo.view(np.float64).reshape(shape), hi.view(np.float64).reshape(shape)
    if not shape:  # one value per game: scalars, as numpy's reductions give
        e, e2, lo, hi = e[()], e2[()], lo[()], hi[()]
    return e / _SCALE, e2 / _SCALE_SQ, e, e2, lo, hi


@dataclasses.dataclass
class Totals:
    """Column sums (and sums of squares) over a set of games, mergeable chunk by chunk.

    Besides sums, it keeps each column's smallest and largest value (a column of 0/1 values gets
    Wilson intervals) and the sums of products ``num * den`` of the ratio metrics (their intervals).
    """
    n: int
    sums: dict[str, np.ndarray]
    sumsq: dict[str, np.ndarray]
    #: games per number of turns from ``hist_lo`` (the shortest game's bin) to the longest's, each bin
    #: ``hist_width`` turns wide (1 unless the games span more than TURN_HIST turns): a cell of a few games keeps
    #: a few bins, however long its games
    hist: np.ndarray
    games: Any = None  # polars.DataFrame of per-game rows, when asked
    seconds: float = 0.0
    #: compact per-game vectors (float32, game order) of the outcome columns named in ``per_game``
    vectors: dict[str, np.ndarray] | None = None
    #: exact integer sums (60ths) and sums of squares (3600ths) of the columns that allow them
    exact: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    exact_sq: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    #: smallest and largest value of each column
    mins: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    maxs: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    #: sums of ``num * den`` per game, keyed ``"num*den"`` (exact in 3600ths in ``exact_cross`` when possible)
    cross: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    exact_cross: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    #: the number of turns of ``hist``'s first bin (a multiple of ``hist_width``)
    hist_lo: int = 0
    #: the turns each bin of ``hist`` holds: bin i holds the games of hist_lo + i * width to hist_lo + (i + 1) *
    #: width - 1 turns; a power of 2, the least that keeps the games' span within TURN_HIST bins
    hist_width: int = 1

    def turn_bins(self) -> tuple[np.ndarray, np.ndarray, int]:
        """The game-length histogram's nonempty bins: their first turn counts, their games, and the width."""
        nz = np.flatnonzero(self.hist)
        return self.hist_lo + nz * self.hist_width, np.asarray(self.hist)[nz], self.hist_width

    @staticmethod
    def of(outcome: dict[str, np.ndarray], pairs: Sequence[tuple[str, str]] = ()) -> "Totals":
        n = len(outcome["turns"])
        sums, sumsq, exact, exact_sq, mins, maxs = {}, {}, {}, {}, {}, {}
        for k, v in outcome.items():
            v = np.asarray(v, dtype=np.float64)
            found = _column_totals(v) if n else None
            if found is not None:  # the usual case: one compiled pass
                sums[k], sumsq[k], exact[k], exact_sq[k], mins[k], maxs[k] = found
                continue
            sums[k], e = _column_sums(v, _SCALE)
            sumsq[k], e2 = _column_sums(v ** 2, _SCALE_SQ)
            if e is not None and e2 is not None:
                exact[k], exact_sq[k] = e, e2
            if n:
                mins[k], maxs[k] = v.min(axis=0), v.max(axis=0)
        cross, exact_cross = {}, {}
        for num, den in pairs:
            a = np.asarray(outcome[num], dtype=np.float64)
            b = np.asarray(outcome[den], dtype=np.float64)
            if a.ndim > 1 and b.ndim == 1:
                b = b[:, None]
            elif b.ndim > 1 and a.ndim == 1:
                a = a[:, None]
            key = f"{num}*{den}"
            cross[key], e = _column_sums(a * b, _SCALE_SQ)
            if e is not None:
                exact_cross[key] = e
        lo, hist, width = turn_histogram(np.asarray(outcome["turns"], dtype=np.int64))
        return Totals(n, sums, sumsq, hist, exact=exact, exact_sq=exact_sq, mins=mins, maxs=maxs, cross=cross,
                      exact_cross=exact_cross, hist_lo=lo, hist_width=width)

    def merge(self, other: "Totals") -> "Totals":
        games = self.games
        if other.games is not None:
            import polars as pl

            games = other.games if games is None else pl.concat([games, other.games])
        vectors = self.vectors
        if other.vectors is not None:
            vectors = other.vectors if vectors is None else {
                k: np.concatenate([vectors[k], other.vectors[k]]) for k in vectors}
        exact, exact_sq = {}, {}
        for k in self.exact:
            if k in other.exact and _fits(self.exact_sq[k], other.exact_sq[k]):
                exact[k], exact_sq[k] = self.exact[k] + other.exact[k], self.exact_sq[k] + other.exact_sq[k]
        sums = {k: exact[k] / _SCALE if k in exact else self.sums[k] + other.sums[k] for k in self.sums}
        sumsq = {k: exact_sq[k] / _SCALE_SQ if k in exact else self.sumsq[k] + other.sumsq[k] for k in self.sumsq}
        exact_cross = {k: self.exact_cross[k] + other.exact_cross[k] for k in self.exact_cross
                       if k in other.exact_cross and _fits(self.exact_cross[k], other.exact_cross[k])}
        cross = {k: exact_cross[k] / _SCALE_SQ if k in exact_cross else self.cross[k] + other.cross[k]
                 for k in self.cross if k in other.cross}
        mins = {k: np.minimum(self.mins[k], other.mins[k]) for k in self.mins if k in other.mins}
        maxs = {k: np.maximum(self.maxs[k], other.maxs[k]) for k in self.maxs if k in other.maxs}
        if self.n == 0:
            mins, maxs = dict(other.mins), dict(other.maxs)
        lo, hist, width = merge_histograms([(t.hist_lo, t.hist, t.hist_width) for t in (self, other)])
        return Totals(self.n + other.n, sums, sumsq, hist, games, self.seconds + other.seconds, vectors, exact,
                      exact_sq, mins, maxs, cross, exact_cross, lo, width)


def _width_for(first: int, last: int, width: int = 1) -> int:
    """The least power of 2, at least ``width``, whose bins hold ``first`` to ``last`` turns in TURN_HIST."""
    while last // width - first // width >= TURN_HIST:
        width *= 2
    return width


def turn_histogram(turns: np.ndarray) -> tuple[int, np.ndarray, int]:
    """Games per number of turns: (the first bin's turns, the counts, the bin width; see :class:`Totals`)."""
    if len(turns) == 0:
        return 0, np.zeros(0, dtype=np.int64), 1
    width = _width_for(int(turns.min()), int(turns.max()))
    bins = turns // width
    first = int(bins.min())
    return first * width, np.bincount(bins - first), width


def merge_histograms(parts: Sequence[tuple[int, np.ndarray, int]]) -> tuple[int, np.ndarray, int]:
    """Game-length histograms (first bin's turns, counts, width) added up. The width is the least power of 2
    that holds every part's games in TURN_HIST bins and no narrower than any part's, so that the sum is the same
    whatever the chunks and the order of merging (each part's width is at most that of the whole)."""
    parts = [(int(a), np.asarray(h, dtype=np.int64), int(w)) for a, h, w in parts if np.any(h)]
    if not parts:
        return 0, np.zeros(0, dtype=np.int64), 1
    # the first turns of the first and last nonempty bins: for any wider width, the same bins as the shortest
    # and the longest game's (a bin's first turns are a multiple of its width)
    first = min(a + int(np.flatnonzero(h)[0]) * w for a, h, w in parts)
    last = max(a + int(np.flatnonzero(h)[-1]) * w for a, h, w in parts)
    width = _width_for(first, last, max(w for _, _, w in parts))
    lo = first // width
    hist = np.zeros(last // width - lo + 1, dtype=np.int64)
    for a, h, w in parts:
        starts = a + np.arange(len(h), dtype=np.int64) * w  # (a part's bin lies inside one bin of the width)
        np.add.at(hist, starts // width - lo, h)
    return lo * width, hist, width


def _fits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether adding the exact integer sums ``a`` and ``b`` stays clear of int64 overflow."""
    return bool(np.all(np.abs(np.asarray(a, dtype=np.float64)) + np.abs(np.asarray(b, dtype=np.float64)) < 2.0 ** 62))


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
    if dataclasses.is_dataclass(rules) and not isinstance(rules, type):
        # the strategies' observations show this chunk's own copy: the caller's rules (what a summary reports
        # and a later run plays) stay as given whatever a strategy does to the object it is shown
        rules = dataclasses.replace(rules)
    try:
        out = eng.play(ids, players, rules, agents, root_key(seed), width=eng.batch_width, compiled=compiled)
    except KeyboardInterrupt:
        if interrupt_possible():
            raise
        # raised by a strategy in a lane that does not name it (a decision names it: StrategyError)
        names = ", ".join(dict.fromkeys(a.spec() if hasattr(a, "spec") else repr(a) for a in agents))
        raise StrategyError(f"a strategy ({names}) raised KeyboardInterrupt in games {start:,} to {stop - 1:,} "
                            f"({NOT_CTRL_C})") from None
    tot = Totals.of(out, ratio_pairs(eng))
    if keep_games:
        tot.games = tidy_games(out, ids, [a.spec() if hasattr(a, "spec") else repr(a) for a in agents])
    if per_game:
        tot.vectors = game_vectors(out, per_game)
    tot.seconds = time.perf_counter() - t0
    return tot


def ratio_pairs(eng: Game) -> list[tuple[str, str]]:
    """The (numerator, denominator) columns of the game's ratio metrics (their products are summed)."""
    return sorted({(m.num, m.den) for m in eng.ratio_metrics if m.den is not None})


#: the largest chunk: a chunk is played as one batch, and its per-game arrays live in memory together
MAX_CHUNK = 1 << 18
#: global game indices are int64
MAX_GAMES = 2 ** 63 - 1


def check_chunk_size(size: Any, what: str = "chunk size") -> int:
    """A chunk size from 1 to MAX_CHUNK (SenseiError otherwise)."""
    if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= MAX_CHUNK:
        raise SenseiError(f"{what} must be an integer from 1 to {MAX_CHUNK:,} (games per batch), got {size!r}")
    return size


def check_games(n_games: Any, first_game: int = 0, what: str = "games") -> int:
    """A positive number of games whose global indices fit in 64 bits."""
    if not isinstance(n_games, int) or isinstance(n_games, bool) or n_games < 1:
        raise SenseiError(f"{what} must be a positive integer, got {n_games!r}")
    if first_game + n_games > MAX_GAMES:
        raise SenseiError(f"{what} must be at most {MAX_GAMES - first_game:,} (a game's index is a 64-bit "
                          f"integer), got {n_games:,}")
    return n_games


def memory_budget() -> int:
    """Bytes a run may plan to keep: half of the machine's memory, or of the process's address-space
    limit when one is set (``ulimit -v``)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not a POSIX system
        total = 8 << 30
    limit = address_space_limit()
    if limit is not None:
        total = min(total, limit)
    return total // 2


def human_bytes(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if n < 1024 or unit == "EiB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:.1f}"  # pragma: no cover


def check_memory(need: float, what: str, fix: str) -> None:
    """SenseiError when keeping ``need`` bytes for ``what`` exceeds :func:`memory_budget`."""
    budget = memory_budget()
    if need > budget:
        raise SenseiError(f"{what} would need about {human_bytes(need)} of memory (this run may use "
                          f"{human_bytes(budget)}); {fix}")


def default_chunk(n_games: int, agents: Sequence[Any] = ()) -> int:
    """Chunk size from the number of games (never from the number of workers): large batches amortise the
    per-step cost of the vectorized engines; at least 4 chunks when there are many games, so that workers
    share the load. A strategy among ``agents`` whose class sets ``chunk_games`` (a slow one, such as the
    search: some games a second) caps it, so that its chunks take seconds, not minutes."""
    size = int(min(16384, max(1024, math.ceil(n_games / 4))))
    caps = [int(c) for c in (getattr(a, "chunk_games", None) for a in agents) if c]
    return min([size] + caps)


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
    #: of ``seconds``, the time numba spent compiling in this process (a first run of a lineup)
    compile_seconds: float = 0.0

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
        """The ``sensei play --json`` object of the contract, then (added fields) a 95% interval for every
        figure: ``mean_turns_ci95``, ``timeout_share`` and its interval, ``mean_score`` per seat and its
        intervals, and ``ci95``, which mirrors ``metrics`` (an interval ``[lo, hi]`` in place of every
        value, null where a value has none)."""
        t = self.totals
        share, lo, hi = self.win_share()
        out = {
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
        out.update(self.intervals(out["metrics"]))
        return out

    def column_mean(self, col: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per-game mean of an outcome column (entry by entry) with its 95% interval, within the column's
        possible range (:meth:`Game.column_range`): Wilson for a column of 0/1 values that is a share
        (its range is [0, 1]), else t (a single point when every game has the same value)."""
        from .stats import mean_ci, wilson
        t, n = self.totals, self.n
        total = np.asarray(t.sums[col], dtype=float)
        mean, half = mean_ci(total, t.sumsq[col], n)
        lo, hi = mean - half, mean + half
        low, high = self.game.column_range(col, self.players, self.rules)
        share = low is not None and high is not None and low >= 0 and high <= 1
        if share and col in t.mins and col in t.exact:
            binary = ((np.asarray(t.mins[col]) >= 0) & (np.asarray(t.maxs[col]) <= 1)
                      & (np.asarray(t.exact_sq[col]) == _SCALE * np.asarray(t.exact[col])))
            if np.any(binary):
                wlo, whi = wilson(total, n)
                lo, hi = np.where(binary, wlo, lo), np.where(binary, whi, hi)
        lo, hi = _clip(lo, hi, (low, high))
        return mean, lo, hi

    def _metric_interval(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The 95% interval of metric ``name``, within the metric's possible range (:meth:`Game.metric_range`)."""
        found = self._metric_interval_unclipped(name)
        if found is None:
            return None
        return _clip(*found, self.game.metric_range(name, self.players, self.rules))

    def _metric_interval_unclipped(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        from .game import SHARE
        from .stats import ratio_sums_ci, wilson
        t = self.totals
        for m in self.game.ratio_metrics:
            if m.name != name:
                continue
            if m.den is None:
                _, lo, hi = self.column_mean(m.num)
                return lo, hi
            key = f"{m.num}*{m.den}"
            if key not in t.cross:
                return None
            num_sq = t.sumsq[m.num]
            den = _widen(t.sums[m.den], t.sums[m.num])
            r, half = ratio_sums_ci(t.sums[m.num], num_sq, den, _widen(t.sumsq[m.den], t.sums[m.num]),
                                    t.cross[key], self.n)
            lo, hi = r - half, r + half
            if m.bounds is not None and tuple(m.bounds) == SHARE:
                # a share with none of the event or all of it (Sen's penalty_rate over few games): a width of 0
                # would claim certainty, so Wilson's over the fewer of its units and the games
                n_eff = np.minimum(np.asarray(den, dtype=float), float(self.n))
                wlo, whi = wilson(np.clip(r, 0.0, 1.0) * n_eff, n_eff)
                wlo, whi = np.where(r <= 0, 0.0, wlo), np.where(r >= 1, 1.0, whi)  # (Wilson's rounding at 0 and 1)
                flat = np.asarray(half == 0.0) & (n_eff > 0)
                lo, hi = np.where(flat, wlo, lo), np.where(flat, whi, hi)
            return lo, hi
        col = self.game.metric_columns.get(name)
        if col is not None and col in t.sums:
            _, lo, hi = self.column_mean(col)
            return lo, hi
        return None

    def intervals(self, metrics: dict[str, Any] | None = None) -> dict[str, Any]:
        """The added fields of :meth:`summary`: a 95% interval for each figure it reports."""
        from .stats import wilson_bounds
        t, n = self.totals, self.n
        if metrics is None:
            metrics = self.game.metrics(t.sums, n, self.players, self.rules)
        _, tlo, thi = self.column_mean("turns")
        timeouts = float(t.sums["timeout"])
        olo, ohi = wilson_bounds(timeouts, n)  # (a share of 0 is its own low end: Wilson's rounding gave 1.08e-19)
        score, slo, shi = self.column_mean("score")
        ci: dict[str, Any] = {}
        for name, value in metrics.items():
            bounds = self._metric_interval(name)
            ci[name] = None if bounds is None else _mirror(value, *bounds)
        return {
            "mean_turns_ci95": _pair(tlo, thi),
            "timeout_share": timeouts / max(n, 1),
            "timeout_share_ci95": _pair(olo, ohi),
            "mean_score": [_num(x) for x in np.atleast_1d(score)],
            "mean_score_ci95": [_pair(a, b) for a, b in zip(np.atleast_1d(slo), np.atleast_1d(shi))],
            "ci95": ci,
        }

    def seats(self) -> Any:
        """One row per seat (polars): strategy, win share with its Wilson interval, mean score with its t
        interval (``score_lo``, ``score_hi``: within the score's possible range, as in :meth:`summary`;
        ``score_half_ci``: the half-width before that)."""
        import polars as pl

        from .stats import mean_ci
        t = self.totals
        share, lo, hi = self.win_share()
        if len(share) != self.players:  # no win share (solo games)
            share = lo = hi = np.full(self.players, np.nan)
        mean, half = mean_ci(t.sums["score"], t.sumsq["score"], self.n)
        _, score_lo, score_hi = self.column_mean("score")
        return pl.DataFrame({
            "seat": list(range(self.players)),
            "strategy": self.specs,
            "games": [self.n] * self.players,
            "win_share": share, "win_lo": lo, "win_hi": hi,
            "mean_score": mean, "score_half_ci": half,
            "score_lo": np.atleast_1d(score_lo), "score_hi": np.atleast_1d(score_hi),
        })

    def games(self) -> Any:
        return self.totals.games

    def per_game(self) -> dict[str, np.ndarray] | None:
        """The per-game float32 vectors asked for with ``simulate(per_game=...)``, in game order."""
        return self.totals.vectors

    def turn_distribution(self) -> np.ndarray:
        """Games per number of turns, from 0 to the longest game (games that span more than TURN_HIST turns
        are kept in wider bins: :meth:`turn_bins` gives them)."""
        t = self.totals
        if t.hist_width > 1:
            raise SenseiError(f"these games span more than {TURN_HIST:,} turns, so their lengths are kept in bins of "
                              f"{t.hist_width:,} turns: turn_bins() gives them")
        out = np.zeros(t.hist_lo + len(t.hist), dtype=np.int64)
        out[t.hist_lo:] = t.hist
        last = int(np.flatnonzero(out)[-1]) + 1 if out.any() else 0
        return out[:last]

    def turn_bins(self) -> Any:
        """The game-length histogram as a DataFrame: ``turns`` (a bin's first), ``width`` (the turns it holds:
        1, unless the games span more than TURN_HIST turns) and ``count``, nonempty bins only."""
        import polars as pl

        starts, counts, width = self.totals.turn_bins()
        return pl.DataFrame({"turns": starts.astype(np.int64), "width": np.full(len(starts), width, dtype=np.int64),
                             "count": counts.astype(np.int64)})


def _num(x: Any) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _pair(lo: Any, hi: Any) -> list[float | None] | None:
    lo, hi = _num(lo), _num(hi)
    return None if lo is None or hi is None else [lo, hi]


def _clip(lo: Any, hi: Any, bounds: tuple[float | None, float | None]) -> tuple[np.ndarray, np.ndarray]:
    """An interval ``[lo, hi]`` (arrays entry by entry) cut to a figure's possible range ``bounds``
    (None: no bound on that side); NaN stays NaN."""
    low, high = bounds
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    if low is not None:
        lo, hi = np.where(lo < low, low, lo), np.where(hi < low, low, hi)
    if high is not None:
        lo, hi = np.where(lo > high, high, lo), np.where(hi > high, high, hi)
    return lo, hi


def _widen(den: Any, num: Any) -> np.ndarray:
    """A per-game denominator's sums, repeated to the shape of a per-seat numerator's."""
    den, num = np.asarray(den, dtype=float), np.asarray(num, dtype=float)
    return np.broadcast_to(den, num.shape) if den.ndim < num.ndim else den


def _mirror(value: Any, lo: np.ndarray, hi: np.ndarray) -> Any:
    """Intervals in the shape of a metric's value: [lo, hi] for a number, a list of them for a list, a
    dict of them for a dict (entries in order); None where the value is None."""
    lo, hi = np.atleast_1d(np.asarray(lo, dtype=float)), np.atleast_1d(np.asarray(hi, dtype=float))
    if isinstance(value, dict):
        return {k: (None if v is None else _pair(lo[i], hi[i])) for i, (k, v) in enumerate(value.items())}
    if isinstance(value, (list, tuple)):
        return [None if v is None else _pair(lo[i], hi[i]) for i, v in enumerate(value)]
    if value is None:
        return None
    return _pair(lo[0], hi[0])


def chunks(n_games: int, chunk_size: int, start: int = 0) -> Iterator[tuple[int, int]]:
    """The chunks ``(a, b)`` of games ``start .. start+n_games-1``, made one at a time (never a list: a run
    of any size costs the same memory)."""
    stop = start + n_games
    for a in range(start, stop, chunk_size):
        yield a, min(a + chunk_size, stop)


def n_chunks(n_games: int, chunk_size: int) -> int:
    return -(-n_games // chunk_size)


def human_seconds(t: float) -> str:
    """2 h 13 min, 4 min 05 s, 12 s, or years and days for the absurd."""
    t = max(0.0, float(t))
    if t < 60:
        return f"{t:.0f} s"
    if t < 3600:
        return f"{int(t // 60)} min {int(t % 60):02d} s"
    if t < 86400:
        return f"{int(t // 3600)} h {int(t % 3600 // 60):02d} min"
    days = t / 86400
    if days < 365:
        return f"{int(days)} days {int(t % 86400 // 3600)} h"
    years = days / 365.25
    return f"{years:,.0f} year{'' if round(years) == 1 else 's'}"


def stderr_is_terminal() -> bool:
    """Whether stderr is a terminal, as rich sees it (``FORCE_COLOR`` and ``TTY_COMPATIBLE`` included)."""
    from rich.console import Console
    return Console(file=sys.stderr).is_terminal


class ProgressLines:
    """Progress as plain lines on stderr where it is no terminal (a log file, a pipe, a job in the
    background), where rich draws its bar only once, when it stops: a run of hours said nothing until its
    end. A line once the run has lasted ``first`` seconds, then one every ``every`` seconds, and a last one
    when the run is complete (only if one was written before: a short run stays quiet)."""

    FIRST, EVERY = 30.0, 60.0

    def __init__(self, t0: float, first: float | None = None, every: float | None = None):
        self.every = self.EVERY if every is None else every
        self.next = t0 + (self.FIRST if first is None else first)
        self.wrote = False

    def tick(self, line: Callable[[], str]) -> None:
        now = time.perf_counter()
        if now >= self.next:
            self._write(line())
            self.next = now + self.every

    def last(self, line: Callable[[], str]) -> None:
        if self.wrote:
            self._write(line())

    def _write(self, text: str) -> None:
        try:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed or broken stderr: the run goes on without its progress
            pass
        self.wrote = True


def bar_started_at(bar: Any, task: Any, t0: float) -> None:
    """Count a rich bar's elapsed time from ``t0`` (``time.perf_counter``, the bar's clock), when the run
    started, not from when the bar appeared (its elapsed column ran the delay behind)."""
    for t in bar.tasks:
        if t.id == task:
            t.start_time = t0


class _Progress:
    """A rich progress bar on stderr that appears only once a run has lasted ``delay`` seconds; where stderr
    is no terminal, plain lines instead (:class:`ProgressLines`; ``first`` / ``every`` override its timing)."""

    def __init__(self, total: int, label: str, enabled: bool, delay: float = 2.0, first: float | None = None,
                 every: float | None = None):
        self.total, self.label, self.enabled, self.delay = total, label, enabled, delay
        self.first, self.every = first, every
        self.t0 = time.perf_counter()
        self.done = 0
        self.bar = None
        self.task = None
        self.lines: ProgressLines | None = None

    def line(self) -> str:
        """The run's progress in one line (the plain lines)."""
        elapsed = time.perf_counter() - self.t0
        rate = self.done / max(elapsed, 1e-9)
        text = (f"{self.label}: {self.done:,} of {self.total:,} games ({100 * self.done / max(self.total, 1):.1f}%), "
                f"{rate:,.0f} games/s, {human_seconds(elapsed)} elapsed")
        if 0 < self.done < self.total:
            text += f", about {human_seconds((self.total - self.done) / rate)} left"
        return text

    def advance(self, k: int) -> None:
        self.done += k
        if not self.enabled:
            return
        if self.bar is None and self.lines is None and time.perf_counter() - self.t0 >= self.delay:
            if not stderr_is_terminal():
                self.lines = ProgressLines(self.t0, self.first, self.every)
            else:
                from rich.console import Console
                from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                           TimeElapsedColumn, TimeRemainingColumn)
                self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                    TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                                    console=Console(file=sys.stderr), transient=False, get_time=time.perf_counter)
                self.bar.start()
                self.task = self.bar.add_task(self.label, total=self.total, rate="")
                bar_started_at(self.bar, self.task, self.t0)
        if self.lines is not None and self.done < self.total:  # the complete run's line is close's
            self.lines.tick(self.line)
        if self.bar is not None:
            rate = self.done / max(time.perf_counter() - self.t0, 1e-9)
            self.bar.update(self.task, completed=self.done, rate=f"{rate:,.0f} games/s")

    def close(self, interrupted: bool = False) -> None:
        if self.lines is not None and not interrupted and self.done >= self.total:
            self.lines.last(self.line)
        if self.bar is not None:
            if interrupted:  # the bar goes: the one line that follows says how far the run got
                self.bar.live.transient = True
                if not self.bar.console.is_terminal:  # where it was never drawn, it leaves no empty line either
                    self.bar.console.quiet = True
            self.bar.stop()


def run_chunks(tasks: Iterable[tuple[Callable, tuple]], jobs: int, on_result: Callable[[int, Any], None],
               backend: str | None = None, scheduler: str | None = None) -> None:
    """Run ``tasks`` (function, args) and hand each result, in task order, to ``on_result``.

    ``tasks`` may be any iterable, and is consumed lazily: a task is made only when a worker is about to
    need it, and at most a window of tasks (:data:`WINDOW` per worker) is in flight or waiting for
    ``on_result`` at any time, so memory does not grow with the number of tasks, however many and however
    small they are.

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
    with _StopSignals() as stop:
        _run_chunks(iter(tasks), jobs, on_result, backend, scheduler, stop)
        stop.check()


def _run_chunks(it: Iterator, jobs: int, on_result: Callable[[int, Any], None], backend: str,
                scheduler: str | None, stop: "_StopSignals") -> None:
    def take(i: int, res: Any, give=on_result) -> None:
        stop.check()
        give(i, res)

    head = list(itertools.islice(it, 2))
    # a run started from a chunk that a pool's thread or worker process plays (the pool's threads may all
    # be waiting on it; joblib runs such nested calls in place too): in this thread
    nested = _IN_WORKER or isinstance(threading.current_thread(), _PoolThread)
    if backend != "dask" and nested:
        for i, (fn, args) in enumerate(itertools.chain(head, it)):
            take(i, call_interruptible(fn, args))
        return
    # one job or one task: the chunks in a kept thread, one after another, this one waiting on them, so
    # that Ctrl-C stops the run at once even while compiled code plays (a strategy's endless loop
    # included); the next chunk is queued while this thread takes a result, which hides the hand-over
    if backend != "dask" and (jobs == 1 or len(head) <= 1):
        _run_threads(itertools.chain(head, it), 1, take, window=2)
        return
    it = itertools.chain(head, it)
    if backend == "threading":
        _run_threads(it, jobs, take)
        return
    if backend in ("loky", "multiprocessing"):
        _run_processes(it, jobs, take, forked=backend == "multiprocessing")
        return
    from joblib import Parallel, delayed, parallel_config
    with _dask_client(scheduler, jobs) as client:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        with parallel_config(backend="dask"):
            with Parallel(n_jobs=-1, return_as="generator") as par:
                _windows(par, delayed, it, WINDOW * workers, take)


#: tasks per worker handed to joblib at a time (results wait for ``on_result`` within a window only)
WINDOW = 64

#: the thread pools of the "threading" backend, by number of threads, kept for the life of the process
_THREADS: dict[int, "_Threads"] = {}
_THREADS_LOCK = threading.Lock()


def _forget_threads() -> None:
    """In a forked child: none of the parent's threads run there, so it makes its own pool."""
    global _THREADS_LOCK
    _THREADS.clear()
    _THREADS_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_threads)


class _PoolThread(threading.Thread):
    """A thread of :class:`_Threads`."""


class _Threads:
    """``n`` threads that run the tasks put to them, kept for the life of the process: the compiled lane
    plays its chunks in threads (its game loop runs without the GIL), and a pool made for every run
    (joblib's threading backend) cost about a fifth of a run of 20,000 Fan & Mallet games on two
    threads. Daemon threads, so that a process stopped by Ctrl-C does not wait for a chunk still being
    played."""

    def __init__(self, n: int):
        import queue
        self.tasks: Any = queue.SimpleQueue()
        self.playing = 0  # tasks being run now (read by chunks_playing)
        for k in range(n):
            _PoolThread(target=self._work, name=f"sensei-chunks-{k}", daemon=True).start()

    def _work(self) -> None:
        while True:
            fut, fn, args = self.tasks.get()
            with _THREADS_LOCK:
                self.playing += 1
            try:
                res = fn(*args)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, which raises it
                self._done()
                fut.set_exception(exc)
            else:
                self._done()  # (before the caller can see the result)
                fut.set_result(res)

    def _done(self) -> None:
        with _THREADS_LOCK:
            self.playing -= 1

    def submit(self, fn: Callable, args: tuple) -> concurrent.futures.Future:
        fut: concurrent.futures.Future = concurrent.futures.Future()
        self.tasks.put((fut, fn, args))
        return fut


def chunks_playing() -> bool:
    """Whether a thread of the runner's pools is playing (or compiling) a chunk now: after a run stopped
    early (Ctrl-C, an error), the chunk it was playing goes on in its thread."""
    with _THREADS_LOCK:
        return any(pool.playing for pool in _THREADS.values())


def _thread_pool(jobs: int) -> _Threads:
    with _THREADS_LOCK:
        pool = _THREADS.get(jobs)
        if pool is None:
            pool = _THREADS[jobs] = _Threads(jobs)
        return pool


def _unless_stopped(stopped: threading.Event, fn: Callable, args: tuple) -> Any:
    return None if stopped.is_set() else call_interruptible(fn, args)


def _run_threads(tasks: Iterator, jobs: int, on_result: Callable[[int, Any], None], window: int = 0) -> None:
    """Run ``tasks`` on the kept pool of ``jobs`` threads, at most a window of them (``window``, by default
    :data:`WINDOW` per thread) queued or waiting for ``on_result``, and hand each result to ``on_result``
    in task order.
    When this stops early (an error, Ctrl-C), the queued tasks are dropped; a chunk already being played
    finishes in its thread and its result is thrown away."""
    pool = _thread_pool(jobs)
    stopped = threading.Event()
    pending: collections.deque = collections.deque()
    done = 0
    try:
        for fn, args in tasks:
            pending.append(pool.submit(_unless_stopped, (stopped, fn, args)))
            if len(pending) >= (window or WINDOW * jobs):
                on_result(done, pending.popleft().result())
                done += 1
        while pending:
            on_result(done, pending.popleft().result())
            done += 1
    finally:
        stopped.set()


#: seconds a worker process of the "loky" backend stays up with nothing to do (joblib's default)
IDLE_WORKER_SECONDS = 300
#: the libraries' thread pools limited in worker processes, as joblib limits them (no oversubscription)
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMBA_NUM_THREADS", "NUMEXPR_NUM_THREADS")
#: set in worker processes (by their initializer): a run inside a chunk plays there, in place (_run_chunks)
_IN_WORKER = False


#: the warnings a resource tracker (loky's, or Python's for forked workers) gives at exit for the semaphores
#: a killed worker held, which it then cleans up: lines of its own after the run's one-line error
TRACKER_WARNINGS = "ignore:resource_tracker:UserWarning"


def _quiet_resource_tracker() -> None:
    """Let the resource tracker, a process of its own started later with this interpreter's ``-W`` options,
    leave out :data:`TRACKER_WARNINGS` (a worker that died is said once, in the run's error)."""
    if TRACKER_WARNINGS not in sys.warnoptions:
        sys.warnoptions.append(TRACKER_WARNINGS)


def _process_pool(jobs: int) -> Any:
    """loky's reusable executor of ``jobs`` worker processes (the one joblib's loky backend uses; kept
    between runs, made again when ``jobs`` changes or after it was stopped)."""
    from joblib.externals.loky import get_reusable_executor
    _quiet_resource_tracker()
    threads = str(max((os.cpu_count() or 1) // jobs, 1))
    env = {var: os.environ.get(var, threads) for var in THREAD_VARS}
    return get_reusable_executor(max_workers=jobs, timeout=IDLE_WORKER_SECONDS, initializer=_worker_ignores_ctrl_c,
                                 env=env)


def _forked_pool(jobs: int) -> concurrent.futures.ProcessPoolExecutor:
    """A pool of ``jobs`` forked worker processes for one run (the "multiprocessing" backend).

    Python's executor, not joblib's multiprocessing pool: the executor watches its workers and fails every
    waiting task with BrokenProcessPool when one dies, where the pool waited for ever on the dead
    worker's task."""
    import multiprocessing
    _quiet_resource_tracker()
    return concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"),
                                                  initializer=_worker_ignores_ctrl_c)


def _exit_codes(procs: Sequence[Any]) -> str:
    """The exit codes of the stopped workers among ``procs``, as loky words them (``EXIT(3)``,
    ``SIGKILL(-9)``): those the pool did not end itself (SIGTERM) when there are any."""
    codes: list[int] = []
    for _ in range(5):  # the system may take a moment to report a dead worker's exit code
        codes = [p.exitcode for p in procs if p.exitcode is not None]
        if codes:
            break
        time.sleep(0.05)
    own = [c for c in codes if c != -signal.SIGTERM]
    words = []
    for c in sorted(set(own or codes)):
        if c < 0:
            try:
                words.append(f"{signal.Signals(-c).name}({c})")
            except ValueError:
                words.append(f"UNKNOWN({c})")
        else:
            words.append(f"EXIT({c})")
    return ", ".join(words)


def _run_processes(tasks: Iterator, jobs: int, on_result: Callable[[int, Any], None], forked: bool = False) -> None:
    """Run ``tasks`` on ``jobs`` worker processes (loky's executor, kept between runs) and hand each result
    to ``on_result`` in task order as soon as it is there (joblib's ``Parallel`` looks for finished tasks
    every 10 ms: a third of a run of 20,000 Fan & Mallet games on two workers). At most two tasks per
    worker are being played or waiting for a worker, and at most a window (:data:`WINDOW` per worker)
    waits for ``on_result``. When this stops early (an error, Ctrl-C), the workers are stopped and the
    tasks not played are dropped, as joblib does. ``forked``: a pool of forked workers made for this run
    (:func:`_forked_pool`), shut down at its end."""
    from concurrent.futures.process import BrokenProcessPool  # (loky's errors for a dead worker derive from it)
    with _ctrl_c_deferred():
        pool = _forked_pool(jobs) if forked else _process_pool(jobs)
    pending: collections.deque = collections.deque()  # submitted, in task order, not handed on yet
    running: set = set()  # submitted and not finished
    done = 0
    more = True
    try:
        while True:
            running = {fut for fut in running if not fut.done()}
            while more and len(running) < 2 * jobs and len(pending) < WINDOW * jobs:
                task = next(tasks, None)
                if task is None:
                    more = False
                    break
                with _ctrl_c_deferred():  # a submit may start worker processes
                    fut = pool.submit(_call_packed, _packed(task))
                pending.append(fut)
                running.add(fut)
            while pending and pending[0].done():
                on_result(done, pending.popleft().result())
                done += 1
            if not pending and not more:
                if forked:
                    pool.shutdown(wait=True)
                return
            if pending and not pending[0].done():
                concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
    except BrokenProcessPool as exc:  # a worker died: its chunk cannot be played again here
        if forked:
            codes = _exit_codes(list((pool._processes or {}).values()))
        else:
            codes = str(exc).partition("exit codes of the workers are")[2].split("\n")[0].strip(" .{}")
        _stop_pool(pool, running)
        raise WorkerDied("a worker process stopped while playing" + (f" (exit codes: {codes})" if codes else "")
                         + ": killed, out of memory, a crash in compiled code or a strategy that ended its process "
                           "(--jobs 1 plays in this process)") from None
    except BaseException:
        _stop_pool(pool, running)
        raise


def _stop_pool(pool: Any, running: set) -> None:
    """Stop loky's executor ``pool`` and its workers at once (the futures of ``running`` are dropped).

    Two races inside loky are kept away: a future cancelled here would make its manager thread fail on
    it and the shutdown wait for ever, so none is; and a task submitted just before the shutdown but
    not yet handed to the workers' queue would make the manager thread fail with a traceback, so the
    shutdown waits (briefly: two tasks per worker always fit in that queue) until every unfinished task
    has been handed on.

    Python's executor (the "multiprocessing" backend) has no way to stop its workers: they are ended
    here with SIGTERM (a worker ends at once: it keeps no handler for it) and the queued tasks dropped.
    Its manager thread is then waited for: that thread closes the pipe that wakes it, and at exit Python
    writes to the pipe unless it is closed already; closed at that very moment, the write printed an
    OSError traceback after the run's one-line error (Python 3.11)."""
    if isinstance(pool, concurrent.futures.ProcessPoolExecutor):
        with _ctrl_c_deferred():
            procs = list((pool._processes or {}).values())
            manager = pool._executor_manager_thread  # (the shutdown forgets it)
            pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                if p.exitcode is None:
                    p.terminate()
            for p in procs:
                p.join(timeout=5)
                if p.exitcode is None:
                    p.kill()
            if manager is not None:
                manager.join(timeout=10)
        return
    with _ctrl_c_deferred():
        deadline = time.monotonic() + 2.0
        while any(not (f.running() or f.done()) for f in running) and time.monotonic() < deadline:
            time.sleep(0.001)
        pool.shutdown(wait=True, kill_workers=True)


def _windows(par, delayed, tasks: Iterator, size: int, on_result: Callable[[int, Any], None]) -> None:
    """Feed ``tasks`` to the running ``Parallel`` ``par`` a window of ``size`` tasks at a time (the
    workers stay up between windows): joblib dispatches a new task whenever one finishes, whether or
    not its results have been consumed, so an unbounded iterator would let finished results pile up."""
    done = 0
    while True:
        window = list(itertools.islice(tasks, size))
        if not window:
            return
        start = done
        with _ctrl_c_deferred():  # the first dispatch starts the worker processes
            results = par(delayed(_call_packed)(_packed((fn, args))) for fn, args in window)
        _drain(results, lambda i, res: on_result(start + i, res))
        done += len(window)


def _packed(task: tuple[Callable, tuple]) -> bytes:
    """A task (function, args) pickled here, to be rebuilt by :func:`_call_packed` in the worker process."""
    try:  # (as loky pickles tasks: functions of a script by value; joblib's own dependency)
        import cloudpickle
    except ImportError:  # joblib before 1.5 kept its own copy
        from joblib.externals import cloudpickle
    return cloudpickle.dumps(task)


def _call_packed(blob: bytes) -> Any:
    """Rebuild a task packed by :func:`_packed` and run it. A strategy that sensei refuses only where it is
    rebuilt in a worker process (a strategy file that fails to import there, a ``__post_init__`` that
    raises there) is then that task's error, said in one line as in this process, where it would
    otherwise break the pool and read as a crashed worker."""
    import pickle
    try:
        fn, args = pickle.loads(blob)
    except SenseiError as exc:
        raise type(exc)(f"in a worker process: {exc}") from None
    return fn(*args)


def call_interruptible(fn: Callable, args: tuple) -> Any:
    """``fn(*args)``, where Ctrl-C during a compiled call surfaces as KeyboardInterrupt: when SIGINT
    lands while numba hands a result back, Python reports ``SystemError: ... returned a result with an
    exception set`` caused by the KeyboardInterrupt."""
    try:
        return fn(*args)
    except SystemError as exc:
        if caused_by_interrupt(exc):
            raise KeyboardInterrupt from None
        raise


class _StopSignals:
    """Remembers a Ctrl-C (or a SIGTERM that the caller turns into KeyboardInterrupt) while chunks run,
    and :meth:`check` raises KeyboardInterrupt for it between chunks.

    The signal still raises KeyboardInterrupt at once, as usual; but one that lands while compiled code
    calls back into Python (numba's dispatcher, llvmlite's callbacks) can be cleared there, or reported
    as "Exception ignored" and dropped, and never reach the caller: without this the run would go on as
    if nothing had happened. Such a dropped KeyboardInterrupt is not reported (it is acted on here).
    """

    def __enter__(self):
        self.hit = False
        self.previous: dict[int, Any] = {}
        self.hook = None
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                handler = signal.getsignal(sig)
                if callable(handler):  # not ignored (a background job) and not the system default
                    self.previous[sig] = handler
                    signal.signal(sig, self._handle)
            if self.previous:
                self.hook = sys.unraisablehook
                sys.unraisablehook = self._unraisable
        return self

    def _unraisable(self, info) -> None:
        if issubclass(info.exc_type, KeyboardInterrupt):
            self.hit = True
            return
        self.hook(info)

    def _handle(self, signum, frame):
        self.hit = True
        self.previous[signum](signum, frame)

    def check(self) -> None:
        if self.hit:
            self.hit = False
            raise KeyboardInterrupt

    def __exit__(self, *exc):
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        if self.hook is not None:
            sys.unraisablehook = self.hook
        return False


class _ctrl_c_deferred:
    """Ctrl-C held back in the main process while worker processes may be started.

    Ctrl-C in a terminal reaches the whole process group, and a worker that gets it before it has set
    itself to ignore Ctrl-C makes Python print a fatal error. So for the moment of the start, Ctrl-C
    is ignored, which a new process inherits (and Python keeps), and blocked, so that the main process
    does not lose it: on Linux a blocked signal stays pending even while ignored, and it is delivered as
    usual when the block ends."""

    def __enter__(self):
        self.active = (hasattr(signal, "pthread_sigmask")
                       and threading.current_thread() is threading.main_thread())
        if self.active:
            self.mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            self.handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
        return self

    def __exit__(self, *exc):
        if self.active:
            signal.signal(signal.SIGINT, self.handler)
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        return False


def _worker_ignores_ctrl_c() -> None:
    """Worker processes leave Ctrl-C to the main process, which stops them and keeps finished work
    (Ctrl-C in a terminal reaches the whole process group; a worker would print a traceback)."""
    global _IN_WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # a forked worker inherits the command's SIGTERM handler (which stops the command like Ctrl-C); the pool
    # ends its workers with SIGTERM, so a worker ends at once, as a worker process should
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _IN_WORKER = True
    _end_with_parent()


def _end_with_parent() -> None:
    """A worker process ends within a second of the process that started it: a command killed by SIGKILL
    (which it cannot catch, and so cannot stop its pool) left its workers playing their chunks for nobody,
    then idle for IDLE_WORKER_SECONDS. A thread looks every second whether the worker's parent is still
    the one it started with (an orphan is handed to another)."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="sensei-parent-watch", daemon=True).start()


def _drain(results, on_result: Callable[[int, Any], None]) -> None:
    """Hand each result of joblib's generator to ``on_result``, and close the generator here, whatever
    happens: left to the garbage collector after Ctrl-C, its clean-up can be interrupted again and
    Python then prints a traceback ("Exception ignored in ...") past the one-line message."""
    try:
        for i, res in enumerate(results):
            on_result(i, res)
    finally:
        try:
            with warnings.catch_warnings():  # joblib counts the tasks a stopped run leaves unused
                warnings.simplefilter("ignore")
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


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


class _dask_client:
    """Connect to a dask scheduler (or start a local cluster) for the duration of a run."""

    def __init__(self, scheduler: str | None, jobs: int):
        self.scheduler, self.jobs, self.client = scheduler, jobs, None
        self.log_level: int | None = None

    def __enter__(self):
        try:
            from distributed import Client
        except ImportError:
            raise SenseiError("the dask backend needs the 'distributed' extra: pip install 'sensei[distributed]'") from None
        try:
            if self.scheduler:
                self.client = Client(self.scheduler, timeout=5)
            else:
                # a local cluster's worker processes ignore Ctrl-C, which reaches the whole process group (see
                # simcore.dask_worker): this process stops the run and closes the cluster. While the cluster
                # starts (a second or two) this process ignores it too, so that the workers it starts inherit
                # that from their first instruction; a Ctrl-C then is lost (press it again), where it used to
                # leave a half-made cluster and tracebacks. The scheduler (in this process) and the workers
                # keep quiet but for critical errors: a cluster closed in the middle of a run (Ctrl-C) logs
                # warnings, and at times an error ("Couldn't gather keys ... forgotten") for the tasks the
                # run let go; a run that fails says why in its own one line.
                log = logging.getLogger("distributed")
                self.log_level = log.level
                log.setLevel(logging.CRITICAL)
                main = _main_thread()
                handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
                # a SIGTERM (a polite kill) while the cluster starts waits until it has started, then stops
                # the command as usual: raised in the middle of the start it left a half-made cluster, and
                # dask's own clean-up at exit failed on it with a traceback
                term = signal.getsignal(signal.SIGTERM) if main else None
                held: list[tuple[int, Any]] = []
                if callable(term):
                    signal.signal(signal.SIGTERM, lambda signum, frame: held.append((signum, frame)))
                try:
                    # (no dashboard; the scheduler's own HTTP routes on a free port: on its default 8787 a
                    # second cluster on the machine warned "Port 8787 is already in use" in several lines)
                    self.client = Client(n_workers=self.jobs, threads_per_worker=1, processes=True,
                                         dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"},
                                         preload=["simcore.dask_worker"], silence_logs=logging.CRITICAL)
                finally:
                    if main:  # (a handler installed from C reads as None: the default then)
                        signal.signal(signal.SIGINT, signal.SIG_DFL if handler is None else handler)
                    if callable(term):
                        signal.signal(signal.SIGTERM, term)
                    if self.client is None:
                        log.setLevel(self.log_level)
                if held:  # the SIGTERM held while the cluster started: the cluster closes, the command stops
                    self._close()
                    term(*held[0])
        except Exception as exc:
            if caused_by_interrupt(exc):  # a Ctrl-C that surfaced inside dask as another error
                raise
            if self.scheduler:
                # whatever dask's client raises for an address it cannot use: an unreachable one (OSError,
                # a timeout), or a protocol it cannot speak as given (tls:// without a TLS configuration, a
                # TypeError; ucx:// without UCX, a TypeError too, or, after other clients in the same process,
                # an AssertionError without a message)
                why = error_text(exc)
                if not isinstance(exc, (OSError, TimeoutError, ValueError)):
                    why = (f"{type(exc).__name__}: {why}" if why else
                           f"{type(exc).__name__} from dask's client, which could not use this address")
                raise SenseiError(f"cannot reach dask scheduler {self.scheduler!r}: {why}") from None
            if not isinstance(exc, (OSError, TimeoutError, ValueError)):
                raise
            raise SystemRefused(f"cannot start a local dask cluster of {self.jobs} workers: "
                                f"{type(exc).__name__}: {exc}") from None
        mine = _sensei_version()
        try:
            theirs = set(self.client.run(_sensei_version).values())
        except BaseException:  # (a Ctrl-C or SIGTERM here left the cluster to dask's clean-up at exit, which failed)
            self._close()
            raise
        if theirs and theirs != {mine}:
            self.client.close()
            raise SenseiError(f"dask workers run sensei {', '.join(sorted(theirs))}, this machine {mine}: "
                              "install the same version everywhere")
        return self.client

    def _close(self) -> None:
        """Close the client (and a local cluster with it) before an error or a stop leaves ``__enter__``."""
        client, self.client = self.client, None
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001 - stopping anyway: the error or the stop is what is reported
                pass
        if self.log_level is not None:
            logging.getLogger("distributed").setLevel(self.log_level)

    def __exit__(self, *exc):
        if self.client is not None:
            self.client.close()
        if self.log_level is not None:
            logging.getLogger("distributed").setLevel(self.log_level)
        return False


def check_scheduler(scheduler: str | None) -> None:
    """Connect to the dask scheduler at ``scheduler`` (when one is given) and check its workers' sensei, as a
    run does: a one-line SenseiError for an address that is malformed or not reached, before anything is
    made (``sensei run`` checks it before it makes its run folder)."""
    if scheduler:
        with _dask_client(scheduler, 1):
            pass


#: the most workers a dask run asks for (its workers are the cluster's; this bounds the tasks in flight)
MAX_DASK_JOBS = 4096


def max_local_jobs() -> int:
    """The most workers a run on this machine may start: 4 per core (at least 8). More only fill the memory
    with processes that wait for a core (each holds its own engine and compiled code)."""
    return max(8, 4 * (os.cpu_count() or 1))


def check_jobs(jobs: int, backend: str | None = None, scheduler: str | None = None) -> int:
    """``jobs`` checked: at most :data:`MAX_DASK_JOBS` on a dask cluster given by its scheduler address,
    else at most :func:`max_local_jobs` (the local backends, and a local dask cluster, which starts
    ``jobs`` worker processes on this machine)."""
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise SenseiError(f"jobs must be a positive integer, got {jobs!r}")
    if scheduler and (backend or "dask").lower() == "dask":
        if jobs > MAX_DASK_JOBS:
            raise SenseiError(f"jobs must be at most {MAX_DASK_JOBS:,} with a dask scheduler, got {jobs:,}")
    elif jobs > max_local_jobs():
        why = ("--backend dask without --scheduler starts a local cluster of --jobs processes"
               if (backend or "").lower() == "dask" else "a cluster takes more through --scheduler")
        raise SenseiError(f"jobs must be at most {max_local_jobs()} on this machine (4 per core, "
                          f"{os.cpu_count() or 1} cores; {why}), got {jobs:,}")
    return jobs


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during :func:`simulate`; ``games_done`` of ``games`` had been played."""

    def __init__(self, games_done: int, games: int):
        super().__init__(f"interrupted after {games_done:,} of {games:,} games")
        self.games_done, self.games = games_done, games


class _Accumulator:
    """Totals of the chunks so far, merged as they arrive (per-game rows and vectors collected and
    joined once at the end, so that merging stays linear)."""

    def __init__(self):
        self.total: Totals | None = None
        self.games: list[Any] = []
        self.vectors: list[dict[str, np.ndarray]] = []

    def add(self, tot: Totals) -> None:
        if tot.games is not None:
            self.games.append(tot.games)
            tot.games = None
        if tot.vectors is not None:
            self.vectors.append(tot.vectors)
            tot.vectors = None
        self.total = tot if self.total is None else self.total.merge(tot)

    def result(self) -> Totals:
        total = self.total
        if self.games:
            import polars as pl

            total.games = pl.concat(self.games) if len(self.games) > 1 else self.games[0]
        if self.vectors:
            total.vectors = {k: np.concatenate([v[k] for v in self.vectors]) for k in self.vectors[0]}
        return total


def local_backend(eng: Game, agents: Sequence[Any], jobs: int, backend: str | None, compiled: bool = True) -> str | None:
    """The backend for ``jobs`` local workers when none is asked for: threads when every seat's strategy
    plays the compiled lane (its game loop runs without the GIL, so threads play side by side with no
    worker processes to start: many games or few, two jobs are faster than one), else worker
    processes (the batch lane holds the GIL between its compiled steps)."""
    if backend is not None or jobs == 1 or not compiled:
        return backend
    return "threading" if eng.lineup(agents).all_compiled else None


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

    Memory does not grow with ``n_games`` (chunks are made as workers free up and reduced as they
    arrive) unless per-game rows or vectors are asked for; a request for more of those than the machine
    can hold is refused before any game is played. Ctrl-C raises :class:`Interrupted`.
    """
    eng = get_game(game)
    # numpy integers (as notebooks make them) are integers
    n_games, seed, jobs, chunk_size, first_game, players = (
        int(v) if isinstance(v, np.integer) else v for v in (n_games, seed, jobs, chunk_size, first_game, players))
    eng, agents, players, rules = check_table(eng, agents, players, rules)
    if not isinstance(first_game, int) or isinstance(first_game, bool) or not 0 <= first_game < MAX_GAMES:
        raise SenseiError(f"first game must be a game index from 0 to {MAX_GAMES - 1:,}, got {first_game!r}")
    check_games(n_games, first_game)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise SenseiError(f"seed must be a non-negative integer, got {seed!r}")
    if backend is not None and not isinstance(backend, str):
        raise SenseiError(f"backend must be a backend's name (loky, threading, multiprocessing or dask), got "
                          f"{backend!r:.60}")
    jobs = check_jobs(jobs, backend, scheduler)
    size = default_chunk(n_games, agents) if chunk_size is None else check_chunk_size(chunk_size)
    if isinstance(per_game, str) or not isinstance(per_game, (list, tuple)) or not all(
            isinstance(c, str) for c in per_game):
        raise SenseiError(f"per_game must be a list of outcome columns' names, got {per_game!r:.60}")
    per_game = tuple(per_game)
    if keep_games:
        cols = len(eng.columns) + len(STANDARD_ROW_COLUMNS)
        check_memory(n_games * players * (8 * cols + 24), f"keeping one row per game and seat of {n_games:,} games",
                     "play fewer games")
    if per_game:
        check_memory(n_games * 4 * players * len(per_game), f"keeping per-game values of {n_games:,} games",
                     "play fewer games")
    tasks = ((play_chunk, (eng.name, players, rules, list(agents), seed, a, b, keep_games, per_game, compiled))
             for a, b in chunks(n_games, size, first_game))
    backend = local_backend(eng, agents, jobs, backend, compiled)
    bar = _Progress(n_games, f"{eng.name} {players}p", progress)
    acc = _Accumulator()
    t0 = time.perf_counter()

    def take(i: int, tot: Totals) -> None:
        acc.add(tot)
        bar.advance(tot.n)

    try:
        with compile_timer() as compiling:
            run_chunks(tasks, jobs, take, backend, scheduler)
    except KeyboardInterrupt:
        bar.close(interrupted=True)
        raise Interrupted(bar.done, n_games) from None
    bar.close()
    return RunResult(eng, players, rules, list(agents), seed, acc.result(), time.perf_counter() - t0, jobs,
                     compiling.seconds)


def check_table(game: str | Game, agents: Any, players: Any = None, rules: Any = None) -> tuple[Game, list, int, Any]:
    """The table that ``simulate``, ``trace_game`` and ``check_strategies`` play, checked as one: the engine
    (of a game's name or an engine), the strategy objects (:func:`check_agents`), the player count (the
    number of strategies when None; numpy's integers are integers) and the rules (None, a dict of options
    or a Rules object, whose values are read as a dict's are); a one-line SenseiError for the first
    mistake."""
    eng = get_game(game)
    agents = check_agents(eng, agents)
    players = len(agents) if players is None else players
    if isinstance(players, np.integer):  # (numpy integers, as notebooks make them, are integers)
        players = int(players)
    if not isinstance(players, int) or isinstance(players, bool):
        raise SenseiError(f"players must be an integer, got {players!r:.60}")
    if rules is not None and not isinstance(rules, (dict, eng.Rules)):
        raise SenseiError(f"rules must be a dict of {eng.name}'s rule options or a {eng.Rules.__name__}, got "
                          f"{type(rules).__name__}")
    if not isinstance(rules, eng.Rules):
        rules = eng.make_rules(rules)
    else:  # a Rules instance made directly in Python: its options checked and read as a dict's are
        rules = check_fields(rules, eng.name)
    eng.validate(players, rules)
    if len(agents) != players:
        raise SenseiError(f"{len(agents)} strategies for {players} seats")
    return eng, agents, players, rules


def check_agents(eng: Game, agents: Any) -> list:
    """One strategy object per seat, each of this game (a one-line SenseiError otherwise). Returns the
    objects to play: each as given, or its copy with a parameter given as text read as a spec reads it
    (:func:`simcore.options.check_fields`)."""
    if agents is None or isinstance(agents, (str, bytes)) or not hasattr(agents, "__len__"):
        raise SenseiError(f"agents must be a list of strategy objects, one per seat, got {agents!r} "
                          "(strategies.registry.lineup makes them from names)")
    out = []
    made: dict[int, Any] = {}  # (an object in several seats stays one object: one lineup, as before)
    for seat, a in enumerate(agents):
        if isinstance(a, (str, bytes, int, float)) or a is None:
            raise SenseiError(f"agents must be strategy objects, got {a!r} for seat {seat} "
                              "(strategies.registry.lineup makes them from names)")
        if isinstance(a, type):
            raise SenseiError(f"agents must be strategy objects, got the class {a.__name__} for seat {seat} "
                              f"(make one: {a.__name__}())")
        game = getattr(a, "game", None)
        if isinstance(game, str) and game and game != eng.name:
            name = getattr(a, "spec", lambda: type(a).__name__)()
            raise SenseiError(f"strategy {name} (seat {seat}) is for {game}, not {eng.name}")
        # a strategy object made directly in Python: its parameters checked as a spec's are
        name = display_name(a)  # (as its spec names it)
        try:
            check_shadowing(type(a), f"strategy {name}")
            if id(a) not in made:
                made[id(a)] = check_fields(a, f"strategy {name}")
        except SenseiError as exc:
            raise SenseiError(f"{exc} (seat {seat})") from None
        out.append(made[id(a)])
    return out


#: columns of a per-game row besides the game's outcome columns (game, seat, strategy, standard columns)
STANDARD_ROW_COLUMNS = ("game", "seat", "strategy", "score", "win", "turns", "timeout")
