"""Running an experiment: every cell, every rotation, chunk by chunk, with common random numbers.

Each cell plays deals ``0 .. games-1`` with the experiment's seed, so all cells replay the same deals
(:mod:`simcore.rng` keys every deal by seed and global game index). A lineup is played once per
distinct rotation of its seats over the same deals (the focus strategy sits in seat 0, then 1, ...), so
seat luck cancels within a deal. The unit of a paired comparison is the deal: the focus seat's win
share, score and the game length averaged over the rotations of that deal.

Work is split into tasks (cell, rotation, chunk of deals) whose boundaries depend only on the number of
games and the chunk size, never on the number of workers: results are identical for any ``jobs``.
With an ``[sprt]`` table, deals are played ``games`` at a time until every cell's sequential test
decides or ``sprt.max_games`` deals have been played.

With a :class:`ChunkStore`, every finished task is written to its own file as it arrives (a temporary
file in the same folder, fsync, then ``os.replace``), and tasks already in the store are read back
instead of played: an interrupted run resumes where it stopped. Results are applied in task order
whether they were played or read back, so a resumed run's tables are identical to an uninterrupted one.
"""
from __future__ import annotations

import collections
import copy
import dataclasses
import io
import os
import queue
import re
import sys
import threading
import time
from typing import Any, Callable

import numpy as np
import polars as pl

from simcore.errors import SenseiError
from simcore.files import atomic_write, not_a_file
from simcore.runner import (TURN_HIST, ProgressLines, Totals, bar_started_at, check_jobs, chunks, default_chunk,
                            human_seconds, n_chunks, play_chunk, run_chunks, stderr_is_terminal,
                            check_memory as _check_bytes)
from simcore.stats import sprt_decide, sprt_llr

from .config import Cell, Config

#: rows of the per-deal vector block kept for paired comparisons and the SPRT; ``decided`` is the share of
#: the deal's games that have a winner (not stopped at the turn limit), so that seat 0's advantage is taken
#: over the average seat's share (``decided / P``), which is the fair 1/P where no game stops
VEC_ROWS = ("focus_win", "focus_score", "turns", "seat0_win", "decided")


def cell_chunk(game: str, players: int, rules: Any, agents: list[Any], seed: int, start: int, stop: int,
               focus_seats: tuple[int, ...], keep_games: bool, keep_vectors: bool):
    """Play one chunk of one rotation of a cell; reduce it in the worker to what the experiment keeps.

    ``focus_seats`` are the seats the focus strategy holds in this rotation and the rotations equal to
    it (see :meth:`Cell.rotations`). Returns the runner's Totals, score counts (focus seats and all
    seats) and, when asked, a (5, n) float32 block of per-deal sums over ``focus_seats`` (see
    :data:`VEC_ROWS`).
    """
    tot = play_chunk(game, players, rules, agents, seed, start, stop, keep_games, per_game=("win", "score", "turns"))
    v = tot.vectors
    tot.vectors = None
    score = v["score"]
    fs = list(focus_seats)
    k = np.float32(len(fs))
    focus_vals, focus_counts = np.unique(score[:, fs], return_counts=True)
    all_vals, all_counts = np.unique(score, return_counts=True)
    hist = {"focus": (focus_vals, focus_counts), "all": (all_vals, all_counts)}
    block = None
    if keep_vectors:
        win = v["win"]
        if win.shape[1] == 0:  # a solo game has no winner: no seat wins
            win = np.zeros(score.shape, np.float32)
        block = np.stack([win[:, fs].sum(1), score[:, fs].sum(1), v["turns"] * k, win[:, 0] * k, win.sum(1) * k])
        block = block.astype(np.float32)
    return tot, hist, block


@dataclasses.dataclass
class CellRun:
    """What has been played of one cell: totals per rotation, score counts, per-deal vectors."""
    cell: Cell
    rotations: list[tuple[int, tuple[int, ...]]]
    totals: dict[int, Totals] = dataclasses.field(default_factory=dict)
    hist: dict[str, dict[float, int]] = dataclasses.field(default_factory=lambda: {"focus": {}, "all": {}})
    #: (5, deals) sums over rotations and focus seats of the per-deal values (divide by :attr:`weight`)
    vec_sum: np.ndarray | None = None
    deals: int = 0
    seconds: float = 0.0
    sprt: dict[str, Any] | None = None
    games_rows: list[pl.DataFrame] = dataclasses.field(default_factory=list)
    #: games of this cell played now, and read back from a resumed run's store
    games_played: int = 0
    games_restored: int = 0

    @property
    def weight(self) -> int:
        """Seats the focus holds per deal over all rotations (P when rotated, else 1)."""
        return sum(len(seats) for _, seats in self.rotations)

    def vectors(self) -> np.ndarray | None:
        """(5, deals) per-deal values averaged over the rotations, float32 (rows: :data:`VEC_ROWS`)."""
        if self.vec_sum is None:
            return None
        return (self.vec_sum[:, :self.deals] / np.float32(self.weight)).astype(np.float32)


class CellProgress:
    """Progress on stderr: cells done, games per second and time left (rich), shown after ``delay`` s.

    Games read back from a resumed run's store count as done, but not in the speed (nor in the time left
    that the speed gives): only the games played now do."""

    def __init__(self, cells: int, games: int, enabled: bool, label: str, delay: float = 0.5):
        self.cells, self.games, self.enabled, self.delay, self.label = cells, games, enabled, delay, label
        self.t0 = time.perf_counter()
        self.done_games = 0
        self.restored_games = 0
        self.done_cells = 0
        self.bar = None
        self.task = None
        self.lines: ProgressLines | None = None

    def rate(self) -> float:
        """Games played (not read back) per second so far."""
        return self.done_games / max(time.perf_counter() - self.t0, 1e-9)

    def update(self, games: int = 0, cells: int = 0, total_games: int | None = None, restored: bool = False) -> None:
        if restored:
            self.restored_games += games
        else:
            self.done_games += games
        self.done_cells += cells
        if total_games is not None:
            self.games = total_games
        if not self.enabled:
            return
        if self.bar is None and self.lines is None and time.perf_counter() - self.t0 >= self.delay \
                and not stderr_is_terminal():  # a log file, a pipe: plain lines, now and then
            self.lines = ProgressLines(self.t0)
        if self.lines is not None:
            if self.done_games + self.restored_games < self.games:  # the complete run's line is close's
                self.lines.tick(self.line)
            return
        if self.bar is None and time.perf_counter() - self.t0 >= self.delay:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                TextColumn("cells {task.fields[cells]}"), TextColumn("{task.fields[rate]}"),
                                TimeElapsedColumn(), TextColumn("{task.fields[left]}"),
                                console=Console(file=sys.stderr), transient=False, get_time=time.perf_counter)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=self.games, cells="", rate="", left="")
            bar_started_at(self.bar, self.task, self.t0)
        if self.bar is not None:
            rate = self.rate()
            done = self.done_games + self.restored_games
            left = f"left {human_seconds((self.games - done) / rate)}" if rate > 0 and self.games > done else ""
            self.bar.update(self.task, completed=done, total=self.games,
                            cells=f"{self.done_cells}/{self.cells}", rate=f"{rate:,.0f} games/s", left=left)

    def line(self) -> str:
        """The run's progress in one line (the plain lines)."""
        rate = self.rate()
        done = self.done_games + self.restored_games
        text = (f"{self.label}: cells {self.done_cells}/{self.cells}, {done:,} of {self.games:,} games "
                f"({100 * done / max(self.games, 1):.1f}%), {rate:,.0f} games/s, "
                f"{human_seconds(time.perf_counter() - self.t0)} elapsed")
        if rate > 0 and self.games > done:
            text += f", about {human_seconds((self.games - done) / rate)} left"
        return text

    def close(self) -> None:
        if self.lines is not None and self.done_games + self.restored_games >= self.games:
            self.lines.last(self.line)
        if self.bar is not None:
            self.bar.update(self.task, completed=self.done_games + self.restored_games)
            self.bar.stop()


#: deals of all cells together up to which an answer that may do without per-deal values (``summary``)
#: keeps them, for intervals over deals (about 480 MB at most): a rule of the config alone, so that a run's
#: answer never depends on the machine
SMALL_VECTORS = 10_000_000


def needs_vectors(cfg: Config) -> bool:
    """Per-deal vectors are kept when a paired comparison or the SPRT needs them, and for an answer that
    takes its intervals over deals where they are few enough (:data:`SMALL_VECTORS`)."""
    from .answers import REGISTRY
    want = REGISTRY[cfg.report.answer].vectors
    if want == "small":
        max_deals = cfg.sprt.max_games if cfg.sprt else cfg.games
        return cfg.sprt is not None or len(cfg.cells) * max_deals <= SMALL_VECTORS
    return cfg.sprt is not None or bool(want)


#: memory kept per rotation of a cell (its totals; measured 5-13 KB) and per cell (its objects and rows)
ROTATION_BYTES = 16 << 10
CELL_BYTES = 16 << 10
#: per deal and cell when paired comparisons keep per-deal values (4 float32, and the analysis' copies)
VECTOR_BYTES = 48
#: per row of games.parquet (one game and seat): its columns, and the copies made to write them
ROW_BYTES = 24


def memory_needs(cfg: Config) -> dict[str, float]:
    """What a run of ``cfg`` keeps in memory, in bytes, by what keeps it (an estimate on the high side)."""
    max_deals = cfg.sprt.max_games if cfg.sprt else cfg.games
    search = cfg.report.search
    if search is not None:  # a searching answer: its cells are groups (of members); it chooses its lineups
        rotations = [c.players for c in cfg.cells]
    else:
        rotations = [len(c.rotations(cfg.rotate)) for c in cfg.cells]
    needs = {f"the totals of {len(cfg.cells):,} cells": len(cfg.cells) * CELL_BYTES + sum(rotations) * ROTATION_BYTES}
    if needs_vectors(cfg):
        needs[f"the per-deal values of {max_deals:,} deals per cell that answer {cfg.report.answer!r} compares"] = \
            len(cfg.cells) * max_deals * VECTOR_BYTES
    if search is not None:
        # a search keeps the per-deal values of the lineups it compares: every lineup of a population's
        # meta-game; at least a best and a rival of each group's last race otherwise (a lower bound: its
        # first rounds play fewer deals, and settings drop out)
        if cfg.kind == "population":  # every order of every lineup round the table, each a lineup of its own
            from simcore.gametheory import seating_count

            K = len(cfg.cells[0].agents)
            lineups = sum(seating_count(K, c.players) for c in cfg.cells)
        else:
            lineups = 2 * len(cfg.cells)
            meta = (getattr(search, "options", None) or {}).get("meta") or []
            if meta:  # a family's meta-game: every order of every lineup of its grid's values, as for a population
                from simcore.gametheory import seating_count

                K = len(search.settings())
                lineups += sum(seating_count(K, c.players) for c in cfg.cells if c.players in meta)
        deals = max_deals + int(getattr(search, "confirm", 0) or 0)
        needs[f"the per-deal values of {deals:,} deals of each of at least {lineups:,} lineups that answer "
              f"{cfg.report.answer!r} compares"] = lineups * deals * VECTOR_BYTES
    if cfg.report.per_game:
        from simcore.registry import get_game

        width = len(get_game(cfg.game).columns) + 8
        if search is not None and callable(getattr(search, "estimate", None)):
            # the games the search is first expected to play (each game one row per seat)
            rows = int(search.estimate(cfg)) * max(c.players for c in cfg.cells)
        else:
            rows = sum(r * c.players for r, c in zip(rotations, cfg.cells)) * max_deals
        needs[f"one row per game and seat ({rows:,} rows, per_game = true)"] = rows * width * ROW_BYTES
    return needs


def check_memory(cfg: Config) -> None:
    """A one-line SenseiError, before anything runs, when a run of ``cfg`` would not fit in memory."""
    needs = memory_needs(cfg)
    what = max(needs, key=needs.get)
    if what.startswith("the totals"):
        fix = "split the grid into several configs"
    else:
        from simcore.runner import memory_budget

        budget = memory_budget()
        keys = ["sprt.max_games" if cfg.sprt else "games"]
        search = cfg.report.search
        if search is not None and getattr(search, "confirm", 0):
            keys.append("search.confirm")
        # the key whose lowering frees the most, and the largest value of it that fits (the rest as it is)
        key = min(keys, key=lambda k: _need_with(cfg, k, _LOWEST[k]))
        fit = _largest_fitting(cfg, key, budget)
        per = "deals per cell" if key != "search.confirm" else "deals"
        fix = f"lower {key}" + (f" (at most about {fit:,} {per} fit)" if fit >= _LOWEST[key] else "")
        if "per_game" in what and cfg.report.answer not in ("calibration", "balance", "risk", "turn_order"):
            fix += " or set report.per_game = false"
    _check_bytes(sum(needs.values()), f"{cfg.path}: {what}", fix)


#: the lowest value of each key that check_memory may advise to lower
_LOWEST = {"games": 1, "sprt.max_games": 1, "search.confirm": 0}


def _value(cfg: Config, key: str) -> int:
    return {"games": lambda: cfg.games, "sprt.max_games": lambda: cfg.sprt.max_games,
            "search.confirm": lambda: cfg.report.search.confirm}[key]()


def _need_with(cfg: Config, key: str, value: int) -> float:
    """The bytes a run of ``cfg`` would keep with ``key`` set to ``value`` (the config itself unchanged)."""
    other = copy.copy(cfg)
    if key == "games":
        other.games = value
        return sum(memory_needs(other).values())
    if key == "sprt.max_games":
        other.sprt = dataclasses.replace(cfg.sprt, max_games=value)
        return sum(memory_needs(other).values())
    search = cfg.report.search   # (its estimate reads the spec itself: set, then put back)
    saved = search.confirm
    try:
        search.confirm = value
        return sum(memory_needs(cfg).values())
    finally:
        search.confirm = saved


def _largest_fitting(cfg: Config, key: str, budget: float) -> int:
    """The largest value of ``key`` (below its value in ``cfg``) with which the run fits in ``budget``
    (below the key's lowest value when none does)."""
    lo, hi = _LOWEST[key], _value(cfg, key)
    if _need_with(cfg, key, lo) > budget:
        return lo - 1
    while lo < hi:  # _need_with(lo) fits; the answer is in [lo, hi]
        mid = (lo + hi + 1) // 2
        if _need_with(cfg, key, mid) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


def chunk_size(cfg: Config) -> int:
    """Deals per task: the config's chunk_size, else a size from the deals per round (and, for a config
    with a slow strategy in some cell, the cap its class sets: :func:`simcore.runner.default_chunk`)."""
    per_round = min(cfg.games, cfg.sprt.max_games) if cfg.sprt else cfg.games
    return cfg.chunk_size or default_chunk(per_round, [a for c in cfg.cells for a in c.agents])


class ChunkStore:
    """Finished tasks of one run, one ``.npz`` file each (per-game rows inside it as parquet bytes).

    A task is named by its cell, rotation and deals (``c3-r1-0-512``): those depend only on the config,
    the number of games and the chunk size, which a resumed run must share (see the run folder's
    fingerprint). Files hold plain arrays and are read with ``allow_pickle=False``: nothing in a run
    folder is ever executed.
    """

    def __init__(self, folder: str):
        if os.path.islink(folder):
            raise SenseiError(f"{folder}: is a symbolic link; a run folder keeps its files inside itself")
        os.makedirs(folder, exist_ok=True)
        self.folder = folder
        for name in os.listdir(folder):  # temporary files of a write that was interrupted
            if name.startswith(".") and name.endswith(".tmp"):
                try:
                    os.unlink(os.path.join(folder, name))
                except OSError:
                    pass
        self.done = {name[:-4] for name in os.listdir(folder) if name.endswith(".npz")}
        self.restored = 0
        self.saved = 0
        self._queue: queue.Queue = queue.Queue(maxsize=256)
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    @staticmethod
    def key(cell: int, rotation: int, a: int, b: int) -> str:
        return f"c{cell}-r{rotation}-{a}-{b}"

    def _path(self, key: str) -> str:
        return os.path.join(self.folder, key + ".npz")

    def has(self, key: str) -> bool:
        return key in self.done

    def stored(self, accept: Callable[[int, int, int, int], bool] | None = None) -> tuple[int, int]:
        """Finished tasks found in the folder at the start, and the games they hold (only the tasks whose
        (cell, rotation, a, b) ``accept`` takes: files of tasks the run does not have are not read back)."""
        n = games = 0
        for key in self.done:
            m = _KEY.fullmatch(key)
            if m is None:
                continue
            cell, rotation, a, b = (int(x) for x in m.groups())
            if accept is None or accept(cell, rotation, a, b):
                n += 1
                games += b - a
        return n, games

    def save(self, key: str, result: tuple) -> None:
        """Queue a finished task for writing; a writer thread writes it atomically while play goes on."""
        self._raise()
        arrays = _chunk_arrays(result)  # now: the caller goes on to change the result
        arrays["key"] = np.asarray(key)  # the file says which task it holds (a renamed file is refused)
        if self._thread is None:
            self._thread = threading.Thread(target=self._writer, name="sensei-chunk-writer", daemon=True)
            self._thread.start()
        self._queue.put((key, arrays))

    def _writer(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                key, arrays = item
                if self._error is None:
                    # no folder fsync per chunk (it would double the cost): after a power failure a chunk
                    # whose new name was lost is simply played again
                    atomic_write(self._path(key), lambda fh: np.savez(fh, **arrays), sync_dir=False)
                    self.saved += 1  # (``done`` holds what was there at the start: it does not grow)
            except BaseException as exc:  # reported in the main thread by the next save or close
                self._error = exc
            finally:
                self._queue.task_done()

    def _raise(self) -> None:
        if self._error is not None:
            exc, self._error = self._error, None
            if isinstance(exc, OSError):  # the system refused the write (a full disk): status 1, as every such
                exc.after = (f"the chunks saved before it are kept in {os.path.dirname(self.folder)}: "
                             "--resume with that folder goes on from them")
                raise exc from None
            raise SenseiError(f"{self.folder}: cannot save a finished chunk: {exc}") from None

    def close(self) -> None:
        """Wait until every queued chunk is on disk (also after Ctrl-C), then stop the writer."""
        if self._thread is not None:
            self._queue.put(None)
            try:
                self._thread.join()
            except KeyboardInterrupt:  # the queued chunks are written first (a few writes): what an interrupted
                self._thread.join()    # run says it kept is then what a resume reads back
                raise
            finally:
                if not self._thread.is_alive():
                    self._thread = None
        self._raise()

    def load(self, key: str, games: int) -> tuple:
        """The result of a finished task, as :func:`cell_chunk` returned it."""
        path = self._path(key)
        newer = False
        why = not_a_file(path)
        if why is not None and why != "not found":  # a pipe would hang np.load for ever
            raise SenseiError(f"{path}: {why}, not a finished chunk; delete it and resume again to replay it")
        try:
            with np.load(path, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
            layout = int(data["format"]) if "format" in data else 1
            if layout > CHUNK_FORMAT:
                newer = True
                raise ValueError("a later layout")
            n = int(data["n"])
            sums = {k[4:]: _scalar(v) for k, v in data.items() if k.startswith("sum.")}
            sumsq = {k[3:]: _scalar(v) for k, v in data.items() if k.startswith("sq.")}
            counts = {k[3:]: (data[k], data["hc." + k[3:]]) for k in data if k.startswith("hv.")}
            exact = {k[3:]: _scalar(v) for k, v in data.items() if k.startswith("ex.")}
            exact_sq = {k[4:]: _scalar(v) for k, v in data.items() if k.startswith("ex2.")}
            extra = {name: {k[len(tag):]: _scalar(v) for k, v in data.items() if k.startswith(tag)}
                     for name, tag in _EXTRA.items()}
            # (files written before the histogram kept its first bin start it at 0 turns)
            lo = int(data["turns_hist_lo"]) if "turns_hist_lo" in data else 0
            hist = np.asarray(data["turns_hist"], dtype=np.int64)
            width = int(data["turns_hist_width"]) if "turns_hist_width" in data else 1
            if lo < 0 or len(hist) > TURN_HIST or width < 1 or width & (width - 1) or lo % width:
                raise ValueError("turn histogram out of range")
            # (before layout 3 the last of TURN_HIST bins from 0 turns held every longer game as well)
            capped = layout < 3 and lo + len(hist) == TURN_HIST and hist[-1] > 0
            tot = Totals(n, sums, sumsq, hist, None, float(data["seconds"]), exact=exact, exact_sq=exact_sq, **extra,
                         hist_lo=lo, hist_width=width)
            if bool(data["has_games"]):
                tot.games = pl.read_parquet(io.BytesIO(data["games"].tobytes()))
        except Exception as exc:  # a damaged or foreign file may fail in many ways; say which file
            if newer:
                raise SenseiError(f"{path}: a finished chunk written by a newer sensei (layout {layout}, this one "
                                  f"reads up to {CHUNK_FORMAT}); resume with that version, or delete the run's "
                                  "parts/ folder to replay them") from None
            raise SenseiError(f"{path}: unreadable finished chunk ({type(exc).__name__}); delete it and resume "
                              "again to replay it") from None
        if capped:
            raise SenseiError(f"{path}: a finished chunk written by an earlier sensei, which counted games of "
                              f"{TURN_HIST - 1:,} turns or more as {TURN_HIST - 1:,}; delete it and resume again to "
                              "replay it")
        if "key" in data and str(data["key"]) != key:  # (files written before the key was kept lack it)
            raise SenseiError(f"{path}: holds the finished chunk {str(data['key'])}, not {key} (a renamed or copied "
                              "file); delete it and resume again to replay it")
        if n != games or set(sums) != set(sumsq):
            raise SenseiError(f"{path}: holds {n} games, expected {games}; delete it and resume again to replay it")
        self.restored += 1
        return tot, counts, data.get("block")


#: the layout of a chunk file: 2 since the histogram keeps its first bin (``turns_hist_lo``), 3 since its bins
#: may be wider than a turn (``turns_hist_width``) and it no longer stops at TURN_HIST - 1 turns; files of the
#: earlier layouts are read (one that reached that last bin is to be replayed). A file of a later layout,
#: written by a newer sensei resuming the same run folder, is refused rather than misread.
CHUNK_FORMAT = 3

#: a task's name: c{cell}-r{rotation}-{a}-{b}
_KEY = re.compile(r"c(\d+)-r(\d+)-(\d+)-(\d+)")

#: the other fields of Totals in a chunk file: name -> prefix of its arrays (older files lack them: the
#: figures they serve are then left out of the merged totals, never wrong)
_EXTRA = {"mins": "min.", "maxs": "max.", "cross": "x.", "exact_cross": "ex3."}


def _chunk_arrays(result: tuple) -> dict[str, np.ndarray]:
    """A task's result (:func:`cell_chunk`) as named plain arrays for ``np.savez``."""
    tot, hist, block = result
    arrays: dict[str, np.ndarray] = {"format": np.asarray(CHUNK_FORMAT, dtype=np.int64),
                                     "n": np.asarray(tot.n, dtype=np.int64),
                                     "seconds": np.asarray(tot.seconds, dtype=np.float64),
                                     "turns_hist": np.asarray(tot.hist),
                                     "turns_hist_lo": np.asarray(tot.hist_lo, dtype=np.int64),
                                     "turns_hist_width": np.asarray(tot.hist_width, dtype=np.int64),
                                     "has_games": np.asarray(tot.games is not None)}
    for k, v in tot.sums.items():
        arrays["sum." + k] = np.asarray(v)
    for k, v in tot.sumsq.items():
        arrays["sq." + k] = np.asarray(v)
    for k, v in tot.exact.items():  # exact integer sums: a resumed run adds up to the same figures
        arrays["ex." + k] = np.asarray(v)
        arrays["ex2." + k] = np.asarray(tot.exact_sq[k])
    for name, tag in _EXTRA.items():
        for k, v in getattr(tot, name).items():
            arrays[tag + k] = np.asarray(v)
    for who, (vals, counts) in hist.items():
        arrays["hv." + who] = np.asarray(vals)
        arrays["hc." + who] = np.asarray(counts)
    if block is not None:
        arrays["block"] = block
    if tot.games is not None:  # per-game rows as the bytes of a parquet file, in the same file
        buf = io.BytesIO()
        tot.games.write_parquet(buf)
        arrays["games"] = np.frombuffer(buf.getvalue(), dtype=np.uint8)
    return arrays


def _scalar(v: np.ndarray) -> Any:
    """0-d arrays back to numpy scalars, as the column sums of :meth:`Totals.of` are."""
    return v[()] if v.ndim == 0 else v


def play_cells(cfg: Config, jobs: int = 1, progress: bool = False, backend: str | None = None,
               scheduler: str | None = None, store: ChunkStore | None = None,
               log: Callable[[str], None] | None = None) -> list[CellRun]:
    """Play every cell of ``cfg``; returns one :class:`CellRun` per cell, in cell order.

    ``backend``/``scheduler`` choose where tasks run (:func:`simcore.runner.run_chunks`); with a
    ``store``, finished tasks are saved as they arrive and tasks already stored are not played again.
    ``log`` receives a line with the size of the grid at the start and, after the first chunks, one with
    an estimate of the time left.

    Tasks are made one at a time as workers free up (never a list of every task), and each result is
    reduced into its cell's totals as it arrives, so memory depends on the number of cells (and on the
    per-deal values a paired comparison keeps), never on the number of chunks; :func:`check_memory`
    refuses a config whose cells and vectors would not fit before anything runs.
    """
    jobs = check_jobs(jobs, backend, scheduler)
    check_memory(cfg)
    keep_vec = needs_vectors(cfg)
    runs = [CellRun(c, c.rotations(cfg.rotate)) for c in cfg.cells]
    per_round = cfg.games
    max_deals = cfg.sprt.max_games if cfg.sprt else cfg.games
    if cfg.sprt:
        per_round = min(per_round, max_deals)
    size = chunk_size(cfg)
    total_games = sum(len(r.rotations) for r in runs) * per_round
    bar = CellProgress(len(runs), total_games, progress, f"{cfg.game}: {len(runs)} cells")
    eta = _TimeLeft(log, jobs)
    if log is not None:
        log(grid_line(cfg, runs, per_round, max_deals, store))
    played_total = 0
    try:
        start = 0
        active = list(range(len(runs)))
        while active and start < max_deals:
            stop = min(start + per_round, max_deals)
            per_cell = n_chunks(stop - start, size)
            left = {i: len(runs[i].rotations) * per_cell for i in active}
            if keep_vec:
                for i in active:
                    run = runs[i]
                    grow = np.zeros((len(VEC_ROWS), stop), dtype=np.float32)
                    if run.vec_sum is not None:
                        grow[:, :run.vec_sum.shape[1]] = run.vec_sum
                    run.vec_sum = grow

            def take(i: int, r: int, a: int, b: int, res, restored: bool) -> None:
                tot, hist, block = res
                run = runs[i]
                if keep_vec and (block is None or block.shape[0] != len(VEC_ROWS)):
                    # (a chunk saved by a version that kept no per-deal values here, or other rows of them)
                    raise SenseiError(f"{store.folder}: the finished chunk {ChunkStore.key(i, r, a, b)} holds no "
                                      "per-deal values of this version, which this run keeps; delete it and resume "
                                      "again to replay it")
                if tot.games is not None:
                    run.games_rows.append(tot.games.with_columns(pl.lit(i).alias("cell"), pl.lit(r).alias("rotation")))
                    tot.games = None
                run.totals[r] = tot if r not in run.totals else run.totals[r].merge(tot)
                run.seconds += tot.seconds
                if restored:
                    run.games_restored += tot.n
                else:
                    run.games_played += tot.n
                for key, (vals, counts) in hist.items():
                    h = run.hist[key]
                    for v, n in zip(vals.tolist(), counts.tolist()):
                        h[v] = h.get(v, 0) + n
                if block is not None:
                    run.vec_sum[:, a:b] += block
                left[i] -= 1
                bar.update(games=b - a, cells=1 if (left[i] == 0 and (cfg.sprt is None or stop >= max_deals)) else 0,
                           restored=restored)
                if not restored:
                    eta.played(bar, tot.n, tot.seconds)

            # every task of the round in order, whether it is to be played or read back from the store;
            # the tasks to play are made only as the workers need them (the generator may run in a thread
            # of the worker pool: a deque is safe to append to there and pop from here)
            pending: collections.deque = collections.deque()

            def tasks():
                for i in active:
                    c = runs[i].cell
                    for r, seats in runs[i].rotations:
                        agents = [c.agents[(s - r) % c.players] for s in range(c.players)]
                        for a, b in chunks(stop - start, size, start):
                            key = ChunkStore.key(i, r, a, b) if store is not None else None
                            stored = store is not None and store.has(key)
                            pending.append((i, r, a, b, key, stored))
                            if not stored:
                                yield (cell_chunk, (cfg.game, c.players, c.rules, agents, cfg.seed, a, b, seats,
                                                    cfg.report.per_game, keep_vec))

            def read_back() -> None:
                """Apply the stored tasks at the head of the queue (results are applied in task order)."""
                while pending and pending[0][5]:
                    i, r, a, b, key, _ = pending.popleft()
                    take(i, r, a, b, store.load(key, b - a), restored=True)

            def got(j: int, res) -> None:
                read_back()
                i, r, a, b, key, _ = pending.popleft()  # the task this result belongs to
                if store is not None:
                    store.save(key, res)
                take(i, r, a, b, res, restored=False)

            run_chunks(tasks(), jobs, got, backend, scheduler)
            read_back()
            played_total += sum(len(runs[i].rotations) for i in active) * (stop - start)
            for i in active:
                runs[i].deals = stop
            start = stop
            if cfg.sprt is None:
                break
            still = []
            for i in active:
                decision = _sprt_update(runs[i], cfg)
                if decision == "continue" and stop < max_deals:
                    still.append(i)
                elif stop < max_deals:
                    bar.update(cells=1)
            remaining_rounds = -(-(max_deals - stop) // per_round) if still else 0
            bar.update(total_games=played_total + sum(len(runs[i].rotations) for i in still) * per_round
                       * remaining_rounds)
            active = still
    finally:
        bar.close()
        if store is not None:
            store.close()
    return runs


def grid_line(cfg: Config, runs: list[CellRun], per_round: int, max_deals: int, store: ChunkStore | None) -> str:
    """The size of the grid in one line: cells x deals x rotations = games (and what a resume reads back)."""
    rots = [len(r.rotations) for r in runs]
    total = sum(rots) * max_deals
    if min(rots) == max(rots):
        rot = f"{rots[0]} rotation{'s' if rots[0] != 1 else ''}"
    else:
        rot = f"{sum(rots) / len(rots):.2f} rotations on average ({min(rots)}-{max(rots)})"
    deals = f"{max_deals:,} deals" if cfg.sprt is None else f"up to {max_deals:,} deals (looks every {per_round:,})"
    cells = f"{len(runs):,} cell{'s' if len(runs) != 1 else ''}"
    line = f"grid: {cells} x {deals} x {rot} = {'up to ' if cfg.sprt else ''}{total:,} games"
    size = chunk_size(cfg)
    line += f" in chunks of up to {size:,}"
    if store is not None:
        n, games = store.stored(lambda c, r, a, b: c < len(runs) and any(r == q for q, _ in runs[c].rotations)
                                and b <= max_deals)
        if n:
            line += (f"; {n:,} finished chunk{'s' if n != 1 else ''} ({games:,} game{'s' if games != 1 else ''}) "
                     f"{'are' if n != 1 else 'is'} read back instead of played")
    return line


class _TimeLeft:
    """Logs one estimate of the time left once the first chunks have been played (three per worker).

    The first chunk of each worker also starts the worker and loads compiled code, so the speed is
    measured over the chunks after those: the lower of the wall-clock speed since then and the speed of
    the workers' own play time (times the number of workers; results arrive in task order, so a few can
    arrive at once). Cells that play faster or slower than the first ones make it a rough estimate,
    which the progress bar refines."""

    def __init__(self, log: Callable[[str], None] | None, jobs: int):
        self.log, self.jobs, self.after, self.done = log, jobs, 3 * jobs, log is None
        self.chunks, self.games, self.seconds = 0, 0, 0.0
        self.warm: tuple[float, int] | None = None

    def played(self, bar: "CellProgress", games: int, seconds: float) -> None:
        if self.done:
            return
        self.chunks += 1
        if self.chunks > self.jobs:
            self.games += games
            self.seconds += seconds
        if self.chunks == self.jobs:
            self.warm = (time.perf_counter(), bar.done_games)
        if self.chunks < self.after:
            return
        self.done = True
        rate = self.jobs * self.games / max(self.seconds, 1e-9)
        wall = time.perf_counter() - self.warm[0]
        if wall > 0:
            rate = min(rate, (bar.done_games - self.warm[1]) / wall)
        left = bar.games - bar.done_games - bar.restored_games
        if left > 0 and rate > 0:
            self.log(f"time left: about {human_seconds(left / rate)} ({rate:,.0f} games/s from the first "
                     f"{self.chunks} chunks)")


def _sprt_update(run: CellRun, cfg: Config) -> str:
    """Update the cell's sequential test on per-deal focus win share minus the fair share (the average seat's:
    1/P of the deal's games that have a winner)."""
    s = cfg.sprt
    v = run.vectors().astype(np.float64)
    P = run.cell.players
    x = v[VEC_ROWS.index("focus_win")] - v[VEC_ROWS.index("decided")] / P
    # where every deal's value is the same (a focus that wins every game), the variance a deal's value would
    # have with its games independent at the win share of either hypothesis, the smaller
    shares = [min(max(1.0 / P + h, 0.0), 1.0) for h in (s.h0, s.h1)]
    floor = min(p * (1.0 - p) for p in shares) / max(run.weight, 1)
    llr = sprt_llr(float(x.sum()), float((x * x).sum()), len(x), s.h0, s.h1, floor)
    decision = sprt_decide(llr, s.alpha, s.beta)
    run.sprt = {"llr": llr, "decision": decision, "deals": len(x)}
    return decision
