"""The experiment API: run a config, get polars tables back, and write a run folder.

>>> from experiments import run_experiment
>>> res = run_experiment("experiments/sen_wake_threshold.toml", games=500, jobs=2)
>>> res.answer            # sentences, each with its 95% interval
>>> res.cells             # one row per cell (polars DataFrame)
>>> res.write("runs")     # parquet tables, config copy, manifest; then reports.build_report(...)

A run folder holds ``cells.parquet``, ``seats.parquet``, ``turns.parquet``, ``scores.parquet``,
``paired.parquet``, ``ratings.parquet`` and ``sprt.parquet`` (the last three may have no rows),
``games.parquet`` when ``report.per_game`` is on, the searching answers' tables (``race.parquet``,
``confirm.parquet``, ``equilibrium.parquet``, ``regrets.parquet``, ``path.parquet``, ``metagame.parquet``) when they have them, ``examples.parquet`` (one short traced game per cell the
answer is about, with its ``sensei trace`` command: :mod:`experiments.examples`), ``config.toml`` (the config as run), ``summary.json``
(question, answer sentences and what the report should show) and ``manifest.json`` (sensei version, git
commit, seed, cell count, timings).

Nothing is lost and nothing is half-written. ``run_experiment(..., out=DIR)`` makes the run folder before
the first game, with ``config.toml`` and ``resume.json`` (the run's fingerprint: the config, seed, games
per cell and chunk size), and saves every finished task into ``parts/`` as it arrives
(:class:`~experiments.engine.ChunkStore`). ``run_experiment(..., resume=RUN_DIR)`` continues such a folder
(refusing when the fingerprint differs) and ends with the same tables as an uninterrupted run. Every file
is written atomically (temporary file, fsync, rename) and ``manifest.json`` comes last: a folder without
it is an incomplete run, which :func:`load_tables`, ``sensei report`` and the index page do not present
as a result.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import time
from typing import Any, Callable, Sequence

import polars as pl

from simcore.compiled import compile_timer
from simcore.errors import SenseiError, StrategyError, WorkerDied, signal_seen
from simcore.files import read_limited
from simcore.runner import check_jobs, check_scheduler
from strategies.registry import origin, register_files, registered_files

from .analysis import analyse
from .answers import REGISTRY
from .answers.common import experiment_labels, value_names
from .config import BACKENDS, DICT_CONFIG, METRICS, Config, load
from .engine import ChunkStore, atomic_write, check_memory, chunk_size, needs_vectors, play_cells
from .tomlwrite import dumps as toml_dumps

TABLES = ("cells", "seats", "turns", "scores", "paired", "ratings", "sprt")
#: tables a run folder holds only for some answer kinds (read back when there)
OPTIONAL_TABLES = ("estimates", "race", "confirm", "equilibrium", "regrets", "path", "metagame", "games", "examples")
#: files of a run folder that is being played (removed once manifest.json is written)
STATE, PARTS = "resume.json", "parts"


def chunks_kept(n: int) -> str:
    """``"N finished chunks kept"`` (one chunk: singular)."""
    return f"{n:,} finished chunk{'s' if n != 1 else ''} kept"


class RunInterrupted(KeyboardInterrupt):
    """An interrupted run (Ctrl-C): its finished tasks are kept in ``run_dir``; ``resume`` says how to go on.
    With ``resume`` None the run was complete (its manifest written) when Ctrl-C came: only its report is
    missing."""

    def __init__(self, run_dir: str, done: int, resume: str | None):
        super().__init__(f"interrupted: {chunks_kept(done)} in {run_dir}; resume with: {resume}" if resume else
                         complete_interrupted(run_dir))
        self.run_dir, self.done, self.resume = run_dir, done, resume


def complete_interrupted(run_dir: str) -> str:
    """The line of a run interrupted after its results were all written (the report not yet)."""
    return (f"interrupted: the run is complete in {run_dir} (every result written), its report is not: "
            f"sensei report {run_dir}")


def sensei_version() -> str:
    try:
        from importlib.metadata import version
        return version("sensei")
    except Exception:  # not installed as a distribution (e.g. run from a source tree)
        return "unknown"


def git_commit(where: str | None = None) -> str | None:
    """The git commit of the source tree (with ``+dirty`` if it has changes), or None outside git."""
    here = where or os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


@dataclasses.dataclass
class Experiment:
    """The result of :func:`run_experiment`: tables as polars DataFrames, the answer and the manifest."""
    config: Config
    tables: dict[str, pl.DataFrame]
    answer: list[str]
    manifest: dict[str, Any]
    run_dir: str | None = None
    #: one short traced game per cell the answer is about (:mod:`experiments.examples`); not an answer table
    examples: pl.DataFrame | None = None
    #: the report's headline: two or three sentences of the answer's gist
    headline: list[str] = dataclasses.field(default_factory=list)
    #: ``{full spec: label}`` of strategies the answer made (tuned members), beside the config's own
    labels: dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def size_note(self) -> str | None:
        """Where the run played fewer deals than its config asks for (``games=``, ``--games``), the sentence
        saying that its intervals are wider by about the square root of the ratio (as the report's top and
        ``sensei run`` say it); else None."""
        from reports.html import run_size_note
        return run_size_note(self.manifest.get("config_text") or "", self.manifest)

    @property
    def cells(self) -> pl.DataFrame:
        return self.tables["cells"]

    @property
    def seats(self) -> pl.DataFrame:
        return self.tables["seats"]

    @property
    def paired(self) -> pl.DataFrame:
        return self.tables["paired"]

    @property
    def ratings(self) -> pl.DataFrame:
        return self.tables["ratings"]

    @property
    def sprt(self) -> pl.DataFrame:
        return self.tables["sprt"]

    @property
    def turns(self) -> pl.DataFrame:
        return self.tables["turns"]

    @property
    def scores(self) -> pl.DataFrame:
        return self.tables["scores"]

    @property
    def games(self) -> pl.DataFrame | None:
        return self.tables.get("games")

    def summary(self) -> dict[str, Any]:
        cfg = self.config
        rep = cfg.report
        return {
            "title": cfg.title, "question": cfg.question, "game": cfg.game, "answer": self.answer,
            "headline": self.headline,
            "answer_kind": rep.answer, "over": rep.over, "metric": rep.metric,
            "metric_label": METRICS[rep.metric][0], "goal": rep.goal, "baseline": rep.baseline,
            "notes": rep.notes, "axes": cfg.axes, "group_axes": cfg.group_axes, "lineup": cfg.kind,
            "strategies": cfg.strategies, "rotate": cfg.rotate,
            "labels": {**self.labels, **experiment_labels(cfg)},
            "member_labels": dict(self.labels),  # a search's own names of its members (the report links them)
            "per_deal": needs_vectors(cfg),
            "value_names": value_names(cfg),  # words for values of `over` that mean something of their own
        }

    def write(self, out: str = "runs", name: str | None = None) -> str:
        """Write a new run folder under ``out`` (named after the config, or ``name``) and return its path.

        Every file is written atomically and the manifest last. The folder name is made of letters,
        digits, ``.``, ``_`` and ``-`` only, so it never leaves ``out``.
        """
        stem = _slug(name or os.path.splitext(os.path.basename(self.config.path))[0] or "experiment")
        path = new_run_folder(out, stem)
        self.finish(path)
        return path

    def finish(self, path: str) -> None:
        """Write the tables, config, summary and (last) the manifest into the existing folder ``path``."""
        for key, df in self.tables.items():
            atomic_write(os.path.join(path, f"{key}.parquet"), df.write_parquet)
        if self.examples is not None:
            atomic_write(os.path.join(path, "examples.parquet"), self.examples.write_parquet)
        text = self.manifest["config_text"]
        atomic_write(os.path.join(path, "config.toml"), lambda fh: fh.write(text), binary=False)
        summary = self.summary()
        atomic_write(os.path.join(path, "summary.json"), lambda fh: json.dump(summary, fh, indent=2, default=str),
                     binary=False)
        man = {k: v for k, v in self.manifest.items() if k != "config_text"}
        # the tables written, so that a report can tell one deleted since from one the answer never makes
        man["tables"] = sorted(list(self.tables) + (["examples"] if self.examples is not None else []))
        if self.config.path == DICT_CONFIG:  # a config given as a dict: its copy in the folder reruns it
            man["config"] = os.path.join(path, "config.toml")
            man["command"] = _command(self.config, man.get("games_override"), files=man.get("strategy_files"),
                                      run_dir=path)
        atomic_write(os.path.join(path, "manifest.json"), lambda fh: json.dump(man, fh, indent=2, default=str),
                     binary=False)
        # the run is complete: the resume state has done its job
        shutil.rmtree(os.path.join(path, PARTS), ignore_errors=True)
        try:
            os.unlink(os.path.join(path, STATE))
        except OSError:
            pass
        self.run_dir = path


def new_run_folder(out: str, stem: str, stamp: str | None = None) -> str:
    """Make a new, empty folder ``out/STEM-STAMP`` (``-2``, ``-3``, ... when taken) and return its path.

    ``stem`` is reduced to letters, digits, ``.``, ``_`` and ``-`` (80 at most) and a stamp is appended, so the name is
    never ``..``, never absolute and never holds a separator; an existing entry of that name (a folder, a
    file, a symbolic link, even a dangling one) is never reused.
    """
    stem = _slug(stem)[:80]
    stamp = stamp or _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    try:
        os.makedirs(out, exist_ok=True)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        raise SenseiError(f"{out!r}: cannot make the output folder: {getattr(exc, 'strerror', None) or exc}") from None
    if not os.path.isdir(out):
        raise SenseiError(f"{out}: not a folder")
    base = os.path.realpath(out)
    k = 1
    while True:
        name = f"{stem}-{stamp}" + ("" if k == 1 else f"-{k}")
        path = os.path.join(out, name)
        try:
            os.mkdir(path)
        except FileExistsError:
            k += 1
            continue
        except OSError as exc:
            raise SenseiError(f"{path}: cannot make the run folder: {exc.strerror or exc}") from None
        if os.path.dirname(os.path.realpath(path)) != base:  # pragma: no cover - guaranteed by the name
            raise SenseiError(f"{path}: outside {out}")
        return path


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "experiment"


def run_experiment(source: str | os.PathLike | dict[str, Any], games: int | None = None, jobs: int = 1,
                   progress: bool = False, backend: str | None = None, scheduler: str | None = None,
                   out: str | None = None, resume: str | None = None,
                   log: Callable[[str], None] | None = None, strategy_files: Sequence[str] | None = None) -> Experiment:
    """Run every cell of a config (a TOML path or a dict) and return the tables and the answer.

    ``games`` overrides the config's games per cell (with an ``[sprt]`` table: the deals per look).
    Results do not depend on ``jobs``, ``backend`` or ``scheduler`` (a dask scheduler address, which
    implies the dask backend); without either, the config's ``[run]`` table chooses them.

    With ``out``, the run folder is made in ``out`` before the first game and every finished task is
    saved into it as it arrives; with ``resume`` (a run folder made that way and not finished), the
    tasks already saved are read back instead of played. Either way the complete run folder is written
    at the end (``Experiment.run_dir``). Ctrl-C then raises :class:`RunInterrupted`, which says how
    to resume.

    ``log`` (e.g. ``print``) receives the size of the grid at the start and an estimate of the time left
    after the first chunks. A config whose run would not fit in memory is refused before anything runs.
    Where ``games`` is below the config's own, ``Experiment.size_note`` says how much wider the intervals
    are for it (as ``sensei run`` and the report do).

    ``strategy_files`` are Python files whose strategies the config may name (see
    :func:`strategies.registry.register_files`; the command line's ``--strategies``; None: the files
    registered already); they are recorded with their sha256 in the manifest, and a resume refuses a
    missing or changed file.
    """
    if isinstance(strategy_files, (str, os.PathLike)):  # one file (a text was read letter by letter)
        strategy_files = [strategy_files]
    if strategy_files is not None and (not isinstance(strategy_files, (list, tuple)) or not all(
            isinstance(f, (str, os.PathLike)) for f in strategy_files)):
        raise SenseiError(f"strategy_files: expected a list of Python files' paths, got {strategy_files!r:.60}")
    for name, value in (("out", out), ("resume", resume)):
        if value is not None and not isinstance(value, (str, os.PathLike)):
            raise SenseiError(f"{name}: expected a folder's path, got {value!r:.60}")
    if log is not None and not callable(log):
        raise SenseiError(f"log: expected a function of one text (print, say), got {log!r:.60}")
    files = register_files(strategy_files) if strategy_files is not None else registered_files()
    if resume is not None:
        check_strategy_files(os.fspath(resume), files)
    cfg = load(source, games)
    check_memory(cfg)
    if backend is None and scheduler is None:
        backend, scheduler = cfg.backend, cfg.scheduler
    backend, scheduler = check_backend(backend, scheduler)
    check_jobs(jobs, backend, scheduler)
    if out is not None or resume is not None:
        check_scheduler(scheduler)  # before the run folder is made or changed
    text = _config_text(source, cfg, games)
    fingerprint = run_fingerprint(cfg)
    run_dir = store = None
    state: dict[str, Any] = {}
    if out is not None and resume is not None:
        raise SenseiError("give out (a folder for a new run) or resume (an unfinished run folder), not both")
    if resume is not None:
        run_dir = os.fspath(resume)
        state = open_unfinished(run_dir, fingerprint, cfg.raw)
        state.setdefault("resumed", []).append(_now())
    elif out is not None:
        stem = os.path.splitext(os.path.basename(cfg.path))[0] if not isinstance(source, dict) else "experiment"
        run_dir = new_run_folder(os.fspath(out), stem)
        atomic_write(os.path.join(run_dir, "config.toml"), lambda fh: fh.write(text), binary=False)
        state = {"fingerprint": fingerprint, "started": _now(),
                 "command": _command(cfg, games, files=files, run_dir=run_dir), "resumed": [], "strategy_files": files}
    if run_dir is not None:
        atomic_write(os.path.join(run_dir, STATE), lambda fh: json.dump(state, fh, indent=2), binary=False)
        store = ChunkStore(os.path.join(run_dir, PARTS))
    try:
        res = _play(cfg, games, jobs, progress, backend, scheduler, store, state, fingerprint, text, log, files)
        if signal_seen():  # a Ctrl-C that a compiler's callback dropped (the example games' traces compile last)
            raise KeyboardInterrupt
        if run_dir is not None:
            res.finish(run_dir)
    except (KeyboardInterrupt, WorkerDied) as exc:  # the finished chunks are kept: say how to go on
        if run_dir is None:
            raise
        if os.path.isfile(os.path.join(run_dir, "manifest.json")):  # complete: only the clean-up was cut short
            if isinstance(exc, WorkerDied):
                raise
            raise RunInterrupted(run_dir, 0, None) from None
        done = sum(1 for f in os.listdir(store.folder) if f.endswith(".npz"))
        resume = _command(cfg, games, resume=run_dir, files=files, run_dir=run_dir)
        if isinstance(exc, WorkerDied):
            raise WorkerDied(f"{exc}; {chunks_kept(done)} in {run_dir}; resume with: {resume}") from None
        raise RunInterrupted(run_dir, done, resume) from None
    except SenseiError as exc:
        if out is not None and store is not None and not store.done and not store.saved:
            shutil.rmtree(run_dir, ignore_errors=True)  # a new folder with nothing played: leave no trace
        elif (isinstance(exc, StrategyError) and run_dir is not None and store is not None
              and not os.path.isfile(os.path.join(run_dir, "manifest.json"))):
            # a strategy that failed part way: its finished chunks are kept, as after Ctrl-C (a resume needs its
            # files unchanged, so it goes on where a failure came by chance)
            done = sum(1 for f in os.listdir(store.folder) if f.endswith(".npz"))
            if done:
                resume = _command(cfg, games, resume=run_dir, files=files, run_dir=run_dir)
                raise StrategyError(f"{exc}; {chunks_kept(done)} in {run_dir}; resume with: {resume} (with the "
                                    "strategy files unchanged)") from exc.__cause__
        raise
    return res


def check_backend(backend: str | None, scheduler: str | None) -> tuple[str | None, str | None]:
    """A known backend, and a scheduler address only with dask (an address alone implies dask)."""
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise SenseiError(f"scheduler: expected a dask scheduler address such as tcp://10.0.0.5:8786, got {scheduler!r}")
    if scheduler and backend is None:
        backend = "dask"
    if backend is not None:
        if not isinstance(backend, str):
            raise SenseiError(f"backend: expected one of {', '.join(BACKENDS)}, got {backend!r}")
        backend = backend.lower()
        if backend not in BACKENDS:
            raise SenseiError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
        if scheduler and backend != "dask":
            raise SenseiError(f"a scheduler address needs the dask backend, not {backend!r}")
    return backend, scheduler


def _play(cfg: Config, games: int | None, jobs: int, progress: bool, backend: str | None, scheduler: str | None,
          store: ChunkStore | None, state: dict[str, Any], fingerprint: dict[str, Any], text: str,
          log: Callable[[str], None] | None = None, files: dict[str, str] | None = None) -> Experiment:
    started = _dt.datetime.now().astimezone()
    t0 = time.perf_counter()
    kind = REGISTRY[cfg.report.answer]
    searched = None
    with compile_timer() as compiling:  # a first run's compiling is left out of its speed
        if kind.search is None:
            runs = play_cells(cfg, jobs=jobs, progress=progress, backend=backend, scheduler=scheduler, store=store,
                              log=log)
        else:  # the answer chooses its lineups as it goes (best responses, equilibria, design searches)
            from .search import Evaluator
            ev = Evaluator(cfg, jobs=jobs, progress=progress, backend=backend, scheduler=scheduler, store=store,
                           event=cfg.report.event, groups=len(cfg.cells), estimate=kind_estimate(cfg))
            try:
                searched = kind.search(cfg, ev)
            finally:
                ev.close()
            runs = ev.runs
    played = time.perf_counter() - t0
    compiled_s = min(compiling.seconds, played)
    result = analyse(cfg, runs, searched)
    from .examples import example_games
    examples = example_games(cfg.game, cfg.seed, runs, result["tables"], files=list(files or {}))
    total_games = sum(t.n for r in runs for t in r.totals.values())
    played_games = sum(r.games_played for r in runs)  # not those read back from a resumed run's chunks
    manifest = {
        "sensei_version": sensei_version(), "git_commit": git_commit(), "config": cfg.path,
        "title": cfg.title, "game": cfg.game, "seed": cfg.seed, "games_per_cell": cfg.games,
        "games_override": games, "config_games": cfg.raw.get("games"), "cells": len(runs), "rotations": sum(len(r.rotations) for r in runs),
        "games_total": total_games, "games_played": played_games, "games_restored": total_games - played_games,
        "jobs": jobs, "backend": backend or "loky", "scheduler": scheduler,
        "started": state.get("started", started.isoformat(timespec="seconds")),
        "seconds_playing": round(played, 3), "seconds_compiling": round(compiled_s, 3),
        "seconds_total": round(time.perf_counter() - t0, 3),
        "games_per_second": round(played_games / max(played - compiled_s, 1e-9), 1),
        "python": platform.python_version(),
        "command": _command(cfg, games, files=files), "fingerprint": fingerprint, "config_text": text,
        "strategy_files": dict(files or {}), "strategies_from": strategy_sources(cfg, hashes=False),
    }
    if store is not None:
        manifest.update({"resumed": state.get("resumed", []), "chunks_restored": store.restored,
                         "chunks_played": store.saved})
    return Experiment(cfg, result["tables"], result["answer"], manifest, examples=examples,
                      headline=result["headline"], labels=result.get("labels", {}))


def kind_estimate(cfg: Config) -> int:
    """A first estimate of the games a searching answer will play (for the progress bar; it grows as
    the search asks for more)."""
    est = getattr(cfg.report.search, "estimate", None)
    return int(est(cfg)) if callable(est) else 0


def _now() -> str:
    return _dt.datetime.now().astimezone().isoformat(timespec="seconds")


def _config_text(source: Any, cfg: Config, games: int | None = None) -> str:
    """The config's text as run: the file as written (a dict as TOML), headed by a comment when ``--games``
    overrode its ``games``, so that the copy in the run folder does not pass for the whole of what ran."""
    text = None
    if not isinstance(source, dict):
        try:  # a byte-order mark is no part of the config
            text = read_limited(os.fspath(source)).decode("utf-8").removeprefix("\ufeff")
        except (OSError, ValueError):  # (changed since it was read: the config as parsed)
            text = None
    if text is None:
        text = toml_dumps(cfg.raw)
    if games is not None and cfg.raw.get("games") != cfg.games:
        per = "deals between the sequential test's looks" if cfg.sprt is not None else "deals per cell"
        text = (f"# run with --games {cfg.games}: {cfg.games:,} {per}, not the file's games (the command in\n"
                f"# the report and in manifest.json reruns it exactly)\n" + text)
    return text


def config_digest(raw: dict[str, Any]) -> str:
    """The sha256 of a config as parsed, without its games, seed and [run] table (a run folder's
    ``config.toml`` parsed again gives the digest its manifest's fingerprint holds)."""
    rest = {k: v for k, v in raw.items() if k not in ("games", "seed", "run")}
    return hashlib.sha256(json.dumps(rest, sort_keys=True, default=str).encode()).hexdigest()


def run_fingerprint(cfg: Config) -> dict[str, Any]:
    """What a resumed run must share with the interrupted one for its saved tasks to be valid: the
    config (as parsed, without its games, seed and [run] table, which are compared on their own or do
    not change results), the seed, the games per cell, the chunk size and the sensei version."""
    return {"config_sha256": config_digest(cfg.raw), "seed": cfg.seed, "games": cfg.games,
            "chunk_size": chunk_size(cfg), "sensei_version": sensei_version(), "strategies": strategy_sources(cfg)}


def strategy_sources(cfg: Config, hashes: bool = True) -> dict[str, str]:
    """Where each strategy of the config that is not shipped with sensei comes from: ``package NAME
    VERSION`` (an entry point) or ``file PATH`` (``--strategies``, with its sha256 when ``hashes``)."""
    out = {}
    for cell in cfg.cells:
        for agent in cell.agents:
            cls = type(agent)
            if cls.name in out:
                continue
            where = origin(cls)
            if where == "sensei":
                continue
            if hashes and where.startswith("file "):
                where += f" sha256 {registered_files().get(where[5:], '?')}"
            out[cls.name] = where
    return dict(sorted(out.items()))


def check_strategy_files(run_dir: str, given: dict[str, str]) -> None:
    """A resume gets every --strategies file of the interrupted run, unchanged (SenseiError otherwise)."""
    try:
        old = json.loads(read_limited(os.path.join(run_dir, STATE))).get("strategy_files") or {}
        if not isinstance(old, dict):
            return
    except (OSError, ValueError, AttributeError):
        return  # open_unfinished names what is wrong with the folder
    for path, digest in old.items():
        if path not in given:
            raise SenseiError(f"{run_dir}: cannot resume: the interrupted run used --strategies {path}; give it "
                              "again")
        if given[path] != digest:
            raise SenseiError(f"{run_dir}: cannot resume: the strategy file {path} changed since the interrupted "
                              f"run (sha256 then {digest[:12]}..., now {given[path][:12]}...)")


_WHAT = {"seed": "the seed", "games": "games per cell", "chunk_size": "the chunk size",
         "config_sha256": "the config", "sensei_version": "the sensei version",
         "strategies": "where its strategies come from"}


def _other_config(run_dir: str, raw: dict[str, Any] | None) -> bool:
    """Whether the config ``raw`` is another config than the run folder's copy, beyond its games, seed,
    chunk size and [run] table (which a resume names on their own); False when it cannot be told."""
    import tomllib

    if raw is None:
        return False
    try:
        old = tomllib.loads(read_limited(os.path.join(run_dir, "config.toml")).decode("utf-8"))
    except (OSError, ValueError):  # (a pipe or a huge file too: read_limited neither waits nor fills memory)
        return False

    def rest(r: dict[str, Any]) -> str:
        return json.dumps({k: v for k, v in r.items() if k not in ("games", "seed", "run", "chunk_size")},
                          sort_keys=True, default=str)
    return rest(old) != rest(raw)


def open_unfinished(run_dir: str, fingerprint: dict[str, Any], raw: dict[str, Any] | None = None) -> dict[str, Any]:
    """Check that ``run_dir`` is an unfinished run of the same config, seed and games; return its state.
    ``raw``: the config as parsed, to say that it is another config (rather than that its games differ)."""
    if not os.path.isdir(run_dir):
        raise SenseiError(f"{run_dir}: no such run folder to resume")
    if os.path.isfile(os.path.join(run_dir, "manifest.json")):
        report = "" if os.path.isfile(os.path.join(run_dir, "report.html")) else \
            f" (its report is not written: sensei report {run_dir})"
        if _other_config(run_dir, raw):  # the wrong folder: that it is another config's is the news
            raise SenseiError(f"{run_dir}: cannot resume: the config differs from the complete run's there "
                              f"(compare with {os.path.join(run_dir, 'config.toml')})")
        raise SenseiError(f"{run_dir}: this run is complete (manifest.json is there); nothing to resume{report}")
    path = os.path.join(run_dir, STATE)
    if os.path.islink(path) or os.path.islink(os.path.join(run_dir, PARTS)):
        raise SenseiError(f"{run_dir}: {STATE} or {PARTS} is a symbolic link; a run folder keeps its files inside itself")
    try:
        data = read_limited(path)
    except FileNotFoundError:
        raise SenseiError(f"{run_dir}: not an unfinished run folder (no {STATE})") from None
    except (OSError, ValueError) as exc:  # a pipe or a huge file: never a wait, never all of it in memory
        raise SenseiError(f"{path}: unreadable: {exc}") from None
    try:
        state = json.loads(data)
        old = state["fingerprint"]
        if not isinstance(old, dict):
            raise TypeError("fingerprint")
        if not isinstance(state.get("resumed", []), list):  # a hand-edited file: its list of resumptions
            raise TypeError("resumed")
    except (ValueError, KeyError, TypeError) as exc:
        raise SenseiError(f"{path}: unreadable ({type(exc).__name__})") from None
    old.setdefault("strategies", {})  # a run folder made before strategies were recorded used none
    keys = ["seed", "games", "chunk_size", "config_sha256", "sensei_version", "strategies"]
    if old.get("config_sha256") != fingerprint["config_sha256"] and _other_config(run_dir, raw):
        keys.remove("config_sha256")  # another config: its games and chunk size differ too, but the config is the news
        keys.insert(0, "config_sha256")
    for key in keys:
        if old.get(key) != fingerprint[key]:
            if key == "config_sha256":
                detail = f"compare with {os.path.join(run_dir, 'config.toml')}"
            else:
                detail = f"interrupted run: {old.get(key)}, now: {fingerprint[key]}"
            raise SenseiError(f"{run_dir}: cannot resume: {_WHAT[key]} differs from the interrupted run's ({detail})")
    return state


def _command(cfg: Config, games: int | None, resume: str | None = None, files: dict[str, str] | None = None,
             run_dir: str | None = None) -> str:
    """The command that runs ``cfg`` again (a config given as a dict: its copy in ``run_dir``)."""
    path = os.path.join(run_dir, "config.toml") if cfg.path == DICT_CONFIG and run_dir is not None else cfg.path
    cmd = f"sensei run {shlex.quote(path)}"
    if games is not None:
        cmd += f" --games {games}"
    for path in files or {}:
        cmd += f" --strategies {shlex.quote(path)}"
    if resume is not None:
        cmd += f" --resume {shlex.quote(resume)}"
    return cmd


def check_complete(run_dir: str) -> None:
    """Raise a one-line SenseiError unless ``run_dir`` is a complete run folder (manifest.json written)."""
    if not os.path.isdir(run_dir):
        raise SenseiError(f"{run_dir}: not a run folder")
    if not os.path.isfile(os.path.join(run_dir, "manifest.json")):
        if not any(os.path.exists(os.path.join(run_dir, f)) for f in (STATE, PARTS, "config.toml")):
            raise SenseiError(f"{run_dir}: not a run folder (no manifest.json){_runs_inside(run_dir)}")
        hint = ""
        try:
            cmd = json.loads(read_limited(os.path.join(run_dir, STATE))).get("command")
            if isinstance(cmd, str):
                hint = f"; finish it with: {cmd} --resume {shlex.quote(run_dir)}"
        except (OSError, ValueError, AttributeError):
            pass
        raise SenseiError(f"{run_dir}: incomplete run (no manifest.json){hint}")


def _runs_inside(folder: str) -> str:
    """A hint naming the newest complete run folder directly inside ``folder`` (an ``--out`` folder), or ''."""
    try:
        with os.scandir(folder) as it:
            runs = [e.path for e in it if e.is_dir() and os.path.isfile(os.path.join(e.path, "manifest.json"))]
    except OSError:
        return ""
    if not runs:
        return ""
    newest = max(runs, key=lambda p: (os.path.getmtime(os.path.join(p, "manifest.json")), p))
    return f"; it holds {len(runs)} run folder{'s' if len(runs) > 1 else ''}, the newest {newest}"


@dataclasses.dataclass(frozen=True)
class SavedRun:
    """A complete run folder read back (:func:`load_run`): what the run answered, its tables and what
    reproduces it, as its report shows them."""

    run_dir: str
    #: the tables, as :func:`load_tables` gives them (polars DataFrames by name)
    tables: dict[str, pl.DataFrame]
    #: ``summary.json``: the title, question, answer sentences, headline and what the report shows
    summary: dict[str, Any]
    #: ``manifest.json``: seed, games, sensei version, git commit, command, times
    manifest: dict[str, Any]
    #: ``config.toml``: the config exactly as run
    config_text: str

    @property
    def title(self) -> str:
        return self.summary.get("title", "")

    @property
    def question(self) -> str:
        return self.summary.get("question", "")

    @property
    def game(self) -> str:
        return self.summary.get("game", "")

    @property
    def answer(self) -> list[str]:
        """The answer's sentences (as ``Experiment.answer``, ``sensei run`` and the report say them)."""
        return list(self.summary.get("answer") or [])

    @property
    def headline(self) -> list:
        return list(self.summary.get("headline") or [])

    @property
    def command(self) -> str | None:
        """The command that plays this run again, game for game."""
        return self.manifest.get("command")

    @property
    def seed(self) -> int | None:
        return self.manifest.get("seed")

    @property
    def size_note(self) -> str | None:
        """As :attr:`Experiment.size_note`: how much wider the intervals are for fewer deals than the config's."""
        from reports.html import run_size_note
        return run_size_note(self.config_text, self.manifest)

    def __getattr__(self, name: str) -> pl.DataFrame:  # res.cells, res.seats, ... as on an Experiment
        tables = self.__dict__.get("tables") or {}
        if name in TABLES + OPTIONAL_TABLES:
            if name in tables:
                return tables[name]
            raise AttributeError(f"this run has no {name} table (its answer does not make one)")
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"SavedRun({self.run_dir!r}, {self.title!r}, tables={sorted(self.tables)})"


def load_run(run_dir: str | os.PathLike) -> SavedRun:
    """A complete run folder read back, checked as ``sensei report`` checks it: its answer and headline, its
    tables, the config as run, its manifest and the command that reproduces it (:class:`SavedRun`). A
    folder that is not a complete run, or whose files are missing or damaged, is a one-line SenseiError."""
    from reports.html import ReportError, read_run
    if not isinstance(run_dir, (str, os.PathLike)):
        raise SenseiError(f"load_run: expected a run folder's path, got {run_dir!r:.60}")
    run_dir = os.fspath(run_dir)
    check_complete(run_dir)
    try:
        got = read_run(run_dir)
    except ReportError as exc:
        raise SenseiError(str(exc)) from None
    tables = {k: v for k, v in got["tables"].items() if v.width}  # (read_run's empty stand-ins left out)
    for name, df in load_tables(run_dir).items():
        tables.setdefault(name, df)
    return SavedRun(run_dir, tables, got["summary"], got["manifest"], got["config_text"])


def load_tables(run_dir: str) -> dict[str, pl.DataFrame]:
    """The tables of a complete run folder (for notebooks and reports)."""
    if not isinstance(run_dir, (str, os.PathLike)):
        raise SenseiError(f"load_tables: expected a run folder's path, got {run_dir!r:.60}")
    check_complete(run_dir)
    out = {}
    for name in TABLES + OPTIONAL_TABLES:
        p = os.path.join(run_dir, f"{name}.parquet")
        if os.path.isfile(p):
            with open(p, "rb") as fh:  # (a handle: polars cannot open a path that is not UTF-8)
                out[name] = pl.read_parquet(fh)
    if "cells" not in out:
        raise SenseiError(f"{run_dir}: no cells.parquet (not a run folder)")
    return out
