"""Searches over strategy parameters and rule options: the search space, and the evaluator that plays any
lineup on common random numbers, never twice.

The answers ``best_response``, ``equilibrium`` and ``design`` decide which lineups to play from the
results of the lineups played so far (a race drops the clearly worse candidates, iterated best responses
move the field). They all play through one :class:`Evaluator`:

* a lineup (player count, rules, strategies in base seat order) is one :class:`~experiments.engine.CellRun`,
  made the first time it is asked for and extended to more deals when asked again, so no lineup and no
  deal is ever played twice within a run;
* its deals are always ``0 .. n-1`` of the experiment's seed (common random numbers), played once per
  distinct seat rotation, in chunks whose boundaries depend only on the deals asked for and the chunk
  size: results never depend on ``--jobs`` or the backend;
* every finished chunk goes to the run folder's :class:`~experiments.engine.ChunkStore` under a key made
  of the lineup's content and its deals; a resumed run asks for the same lineups in the same order (the
  searches are deterministic) and reads them back instead of playing them.

Per deal, a lineup keeps (averaged over the rotations) the rows of :data:`~experiments.engine.VEC_ROWS`
(base seat 0 is the focus) followed by every base seat's win, score and, when asked, a per-seat 0/1 event.
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
from typing import Any, Sequence

import numpy as np
import polars as pl

from simcore.errors import SenseiError
from simcore.runner import check_jobs, chunks, play_chunk, run_chunks

from .config import ABSENT, Cell, Config
from .engine import VEC_ROWS, CellProgress, CellRun, ChunkStore, chunk_size

#: at most this many settings in a grid searched by a race (a larger grid is an error: use optuna)
MAX_GRID = 2000


# ------------------------------------------------------------------------------------------ the space
@dataclasses.dataclass(frozen=True)
class Param:
    """One searched parameter: ``key`` as written (``focus.wake``, ``rules.penalty``, ``guard.margin``),
    the role it belongs to (``focus``, ``seat0``, ``rules`` or a population member) and its name; the grid
    ``values`` of a discrete parameter, or the bounds of a continuous one (``values`` None)."""
    key: str
    role: str
    name: str
    values: tuple | None
    low: float | None = None
    high: float | None = None

    @property
    def discrete(self) -> bool:
        return self.values is not None


def parse_param(key: str, value: Any, ck) -> Param:
    """A list of values (a choice), ``{min, max, step}`` (a grid; integers when all three are), or
    ``{min, max}`` (floats: a continuous range, searched by optuna)."""
    where = f"search.{key}"
    role, _, name = key.partition(".")
    if not role or not name or "." in name:
        ck.fail(where, "a parameter ROLE.NAME (focus.P, seatN.P, rules.OPTION or MEMBER.P)", key)
    if isinstance(value, list):
        if not value:
            ck.fail(where, "a non-empty list of values", value)
        for i, v in enumerate(value):
            if isinstance(v, (list, dict)):
                ck.fail(f"{where}[{i}]", "a single value", v)
        if len({repr(v) for v in value}) != len(value):
            ck.fail(where, "distinct values", value)
        return Param(key, role, name, tuple(value))
    if not isinstance(value, dict):
        ck.fail(where, "a list of values, {min, max, step} (a grid) or {min, max} (a continuous range)", value)
    ck.keys(value, {"min", "max", "step"}, f"{where}.")
    for k in ("min", "max"):
        if k not in value:
            ck.fail(f"{where}.{k}", "this key (a number)", ABSENT)
    lo, hi = ck.number(value["min"], f"{where}.min"), ck.number(value["max"], f"{where}.max")
    if hi <= lo:
        ck.fail(f"{where}.max", f"a number greater than min = {value['min']}", value["max"])
    if "step" not in value:
        if all(isinstance(value[k], int) for k in ("min", "max")):
            ck.fail(where, "a step for an integer range ({min, max, step}), or float bounds for a continuous one",
                    value)
        return Param(key, role, name, None, lo, hi)
    step = ck.number(value["step"], f"{where}.step", 0.0)
    count = int(math.floor((hi - lo) / step + 1e-9)) + 1
    if count > MAX_GRID:
        ck.fail(f"{where}.step", f"a grid of at most {MAX_GRID:,} values", f"{count:,} values")
    ints = all(isinstance(value[k], int) and not isinstance(value[k], bool) for k in ("min", "max", "step"))
    vals = [int(value["min"]) + i * int(value["step"]) for i in range(count)] if ints else \
        [round(lo + i * step, 10) for i in range(count)]
    return Param(key, role, name, tuple(vals), lo, hi)


def grid(params: Sequence[Param]) -> list[dict[str, Any]]:
    """Every setting of a discrete space: the cartesian product of the parameters' values, in order."""
    return [dict(zip([p.key for p in params], combo)) for combo in itertools.product(*[p.values for p in params])]


def setting_label(setting: dict[str, Any]) -> str:
    """``wake=12`` or ``margin=1, late=8`` (parameter names without their role)."""
    return ", ".join(f"{k.partition('.')[2]}={_fmt(v)}" for k, v in setting.items())


def _fmt(v: Any) -> str:
    """A value as a setting's label shows it: a whole float as a spec writes it (``2.0``, so that one
    sentence never says feed=2 and feed=2.0), any other float to 6 significant digits (a grid's steps)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v) if v.is_integer() else f"{v:g}"
    return str(v)


# ------------------------------------------------------------------------------------------ playing
#: rows of a lineup's per-deal block after VEC_ROWS, for P seats: win, score (and event) of each base seat
def seat_rows(players: int, event: bool) -> dict[str, slice]:
    base = len(VEC_ROWS)
    out = {"win": slice(base, base + players), "score": slice(base + players, base + 2 * players)}
    if event:
        out["event"] = slice(base + 2 * players, base + 3 * players)
    return out


def lineup_chunk(game: str, players: int, rules: Any, agents: list[Any], seed: int, start: int, stop: int,
                 rotation: int, focus_seats: tuple[int, ...], event: str | None, keep_games: bool = False):
    """Play one chunk of one rotation of a lineup; reduce it to totals, score counts and the per-deal block.

    ``focus_seats`` are the rotations this rotation stands for (see :meth:`Cell.rotations`): in each, base
    seat 0 sits at that table seat and base seat b at ``(b + r') % P``. The block holds, summed over them,
    the rows of VEC_ROWS and each base seat's win, score (and ``event``), float32. With ``keep_games``, the
    totals also hold one row per game and seat (``report.per_game``).
    """
    cols = ("win", "score", "turns") + ((event,) if event else ())
    tot = play_chunk(game, players, rules, agents, seed, start, stop, keep_games, per_game=cols)
    v = tot.vectors
    tot.vectors = None
    score, win = v["score"], v["win"]
    fs = list(focus_seats)
    k = np.float32(len(fs))
    focus_vals, focus_counts = np.unique(score[:, fs], return_counts=True)
    all_vals, all_counts = np.unique(score, return_counts=True)
    hist = {"focus": (focus_vals, focus_counts), "all": (all_vals, all_counts)}
    rows = [win[:, fs].sum(1), score[:, fs].sum(1), v["turns"] * k, win[:, 0] * k, win.sum(1) * k]
    sources = [win, score]
    if event:
        sources.append(v[event].astype(np.float32))
    for src in sources:
        for b in range(players):
            rows.append(sum(src[:, (b + r) % players] for r in fs))
    return tot, hist, np.stack(rows).astype(np.float32)


class Evaluator:
    """Plays lineups for a search (see the module docstring)."""

    #: a batch of tasks expected to take less than this (engine seconds, from the rate so far) is played in
    #: this process: the workers' dispatch would cost more than it saves (results are the same either way)
    parallel_seconds = 1.0

    def __init__(self, cfg: Config, jobs: int = 1, progress: bool = False, backend: str | None = None,
                 scheduler: str | None = None, store: ChunkStore | None = None, event: str | None = None,
                 groups: int = 1, estimate: int = 0):
        self.cfg, self.jobs, self.backend, self.scheduler, self.store = cfg, check_jobs(jobs, backend, scheduler), backend, scheduler, store
        self.event = event
        #: one row per game and seat of every lineup played (games.parquet), with report.per_game
        self.keep_games = bool(cfg.report.per_game)
        self.size = chunk_size(cfg)
        self.runs: list[CellRun] = []
        self._index: dict[str, CellRun] = {}
        self._keys: dict[int, str] = {}
        self.games = 0
        #: engine seconds and games of the chunks played here (their rate decides what goes to the workers)
        self.engine_seconds = 0.0
        self.engine_games = 0
        self.rate = float("inf")
        self.bar = CellProgress(groups, max(estimate, 1), progress, f"{cfg.game}: {groups} groups")

    def lineup(self, cell: Cell, agents: list[Any], axes: dict[str, Any], roles: list[str] | None = None,
               rules: Any = None) -> CellRun:
        """The CellRun of ``agents`` (base seat order) under the group ``cell``'s player count and rules (or
        ``rules``); made on first use (``axes``: the group's axis values and the searched setting)."""
        rules = cell.rules if rules is None else rules
        specs = [a.spec() for a in agents]
        digest = hashlib.sha256(json.dumps([self.cfg.game, cell.players, rules.as_dict(), specs, self.cfg.rotate,
                                            self.event], sort_keys=True, default=str).encode()).hexdigest()[:20]
        run = self._index.get(digest)
        if run is None:
            c = Cell(len(self.runs), cell.players, rules, list(agents), roles or ["seat"] * cell.players, dict(axes))
            run = CellRun(c, c.rotations(self.cfg.rotate))
            self._index[digest] = run
            self._keys[c.index] = digest
            self.runs.append(run)
        return run

    def extend(self, runs: Sequence[CellRun], stop: int) -> None:
        """Play deals ``run.deals .. stop-1`` of every run that has fewer (all of them as one batch of tasks)."""
        tasks, owners = [], []
        todo_runs = []
        seen: set[int] = set()
        for run in runs:
            if run.deals >= stop or id(run) in seen:
                continue
            seen.add(id(run))
            c = run.cell
            todo_runs.append(run)
            for r, seats in run.rotations:
                agents = [c.agents[(s - r) % c.players] for s in range(c.players)]
                for a, b in chunks(stop - run.deals, self.size, run.deals):
                    tasks.append((lineup_chunk, (self.cfg.game, c.players, c.rules, agents, self.cfg.seed, a, b, r,
                                                 seats, self.event, self.keep_games)))
                    owners.append((run, r, a, b))
        if not tasks:
            return
        for run in todo_runs:
            rows = len(VEC_ROWS) + (3 if self.event else 2) * run.cell.players
            grow = np.zeros((rows, stop), dtype=np.float32)
            if run.vec_sum is not None:
                grow[:, :run.vec_sum.shape[1]] = run.vec_sum
            run.vec_sum = grow
        need = sum(b - a for _, _, a, b in owners)
        if self.bar.done_games + need > self.bar.games:
            self.bar.update(total_games=self.bar.done_games + need)
        store = self.store
        keys = [f"e{self._keys[run.cell.index]}-r{r}-{a}-{b}" for run, r, a, b in owners] if store else None
        todo = [k for k in range(len(tasks)) if keys is None or not store.has(keys[k])]
        stored = set(range(len(tasks))) - set(todo)
        arrived: dict[int, Any] = {}
        nxt = 0

        def take(k: int, res) -> None:
            run, r, a, b = owners[k]
            tot, hist, block = res
            if tot.games is not None:  # the games of this chunk, tagged with the lineup (a row of cells) and rotation
                run.games_rows.append(tot.games.with_columns(pl.lit(run.cell.index).alias("cell"),
                                                             pl.lit(r).alias("rotation")))
                tot.games = None
            run.totals[r] = tot if r not in run.totals else run.totals[r].merge(tot)
            run.seconds += tot.seconds
            for key, (vals, counts) in hist.items():
                h = run.hist[key]
                for v, n in zip(vals.tolist(), counts.tolist()):
                    h[v] = h.get(v, 0) + n
            if store is not None and block.shape[0] != run.vec_sum.shape[0]:  # (saved by a version that kept other per-deal rows)
                raise SenseiError(f"{store.folder}: the finished chunk {keys[k]} holds no per-deal values of this "
                                  "version; delete it and resume again to replay it")
            run.vec_sum[:, a:b] += block
            self.games += b - a
            if k in played:
                run.games_played += tot.n
            else:
                run.games_restored += tot.n
            if k in played:
                self.engine_seconds += tot.seconds
                self.engine_games += b - a
                # the fastest chunk's rate (the first chunks of a process also load or compile kernels)
                self.rate = min(self.rate, tot.seconds / max(b - a, 1))
            self.bar.update(games=b - a)

        def drain() -> None:
            nonlocal nxt
            while nxt < len(tasks):
                if nxt in arrived:
                    res = arrived.pop(nxt)
                elif nxt in stored:
                    _, _, a, b = owners[nxt]
                    res = store.load(keys[nxt], b - a)
                else:
                    return
                take(nxt, res)
                nxt += 1

        def got(j: int, res) -> None:
            k = todo[j]
            if store is not None:
                store.save(keys[k], res)
            arrived[k] = res
            drain()

        played = set(todo)
        drain()
        if todo and self.engine_games == 0:
            # the first task ever is played here: its rate says whether later batches are worth the workers
            run_chunks([tasks[todo[0]]], 1, lambda j, res: got(0, res))
            rest = todo[1:]
        else:
            rest = todo
        if rest:
            work = sum(owners[k][3] - owners[k][2] for k in rest)
            rate = self.rate
            offset = len(todo) - len(rest)
            if (self.jobs == 1 and self.backend in (None, "loky")) or work * rate < self.parallel_seconds:
                run_chunks([tasks[k] for k in rest], 1, lambda j, res: got(j + offset, res))
            else:
                run_chunks([tasks[k] for k in rest], self.jobs, lambda j, res: got(j + offset, res), self.backend,
                           self.scheduler)
        drain()
        for run in todo_runs:
            run.deals = stop

    def close(self) -> None:
        self.bar.close()
        if self.store is not None:
            self.store.close()


# ------------------------------------------------------------------------------------------ per-deal values
def seat_values(run: CellRun, what: str, seat: int, event: bool) -> np.ndarray:
    """Per-deal ``what`` (win, score, event) of base seat ``seat``, averaged over the rotations."""
    v = run.vectors()
    return v[seat_rows(run.cell.players, event)[what]][seat].astype(np.float64)


def focus_values(run: CellRun, what: str = "win") -> np.ndarray:
    """Per-deal win share (or score) of base seat 0, the focus, averaged over the rotations (and seats)."""
    if what == "seat_advantage":  # seat 0's share less the average seat's (the fair 1/P where no game stops)
        return focus_values(run, "seat0_win") - focus_values(run, "decided") / run.cell.players
    row = {"win": VEC_ROWS.index("focus_win"), "score": VEC_ROWS.index("focus_score"),
           "turns": VEC_ROWS.index("turns"), "seat0_win": VEC_ROWS.index("seat0_win"),
           "decided": VEC_ROWS.index("decided")}[what]
    return run.vectors()[row].astype(np.float64)
