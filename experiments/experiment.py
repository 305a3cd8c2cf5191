"""The experiment API: run a config, get polars tables back, and write a run folder.

>>> from experiments import run_experiment
>>> res = run_experiment("experiments/sen_wake_threshold.toml", games=500, jobs=2)
>>> res.answer            # sentences, each with its 95% interval
>>> res.cells             # one row per cell (polars DataFrame)
>>> res.write("runs")     # parquet tables, config copy, manifest; then reports.build_report(...)

A run folder holds ``cells.parquet``, ``seats.parquet``, ``turns.parquet``, ``scores.parquet``,
``paired.parquet``, ``ratings.parquet`` and ``sprt.parquet`` (the last three may have no rows),
``games.parquet`` when ``report.per_game`` is on, ``config.toml`` (the config as run), ``summary.json``
(question, answer sentences and what the report should show) and ``manifest.json`` (sensei version, git
commit, seed, cell count, timings).
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import platform
import re
import subprocess
import time
from typing import Any

import polars as pl

from simcore.errors import SenseiError

from .analysis import analyse
from .config import METRICS, Config, load
from .engine import play_cells
from .tomlwrite import dumps as toml_dumps

TABLES = ("cells", "seats", "turns", "scores", "paired", "ratings", "sprt")


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
            "answer_kind": rep.answer, "over": rep.over, "metric": rep.metric,
            "metric_label": METRICS[rep.metric][0], "goal": rep.goal, "baseline": rep.baseline,
            "notes": rep.notes, "axes": cfg.axes, "group_axes": cfg.group_axes, "lineup": cfg.kind,
            "strategies": cfg.strategies, "rotate": cfg.rotate,
        }

    def write(self, out: str = "runs", name: str | None = None) -> str:
        """Write the run folder under ``out`` and return its path."""
        stem = name or _slug(os.path.splitext(os.path.basename(self.config.path))[0] or "experiment")
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        os.makedirs(out, exist_ok=True)
        path = os.path.join(out, f"{stem}-{stamp}")
        k = 1
        while os.path.exists(path):
            k += 1
            path = os.path.join(out, f"{stem}-{stamp}-{k}")
        os.makedirs(path)
        for key, df in self.tables.items():
            df.write_parquet(os.path.join(path, f"{key}.parquet"))
        with open(os.path.join(path, "config.toml"), "w", encoding="utf-8") as fh:
            fh.write(self.manifest["config_text"])
        man = {k: v for k, v in self.manifest.items() if k != "config_text"}
        with open(os.path.join(path, "manifest.json"), "w", encoding="utf-8") as fh:
            json.dump(man, fh, indent=2, default=str)
        with open(os.path.join(path, "summary.json"), "w", encoding="utf-8") as fh:
            json.dump(self.summary(), fh, indent=2, default=str)
        self.run_dir = path
        return path


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "experiment"


def run_experiment(source: str | os.PathLike | dict[str, Any], games: int | None = None, jobs: int = 1,
                   progress: bool = False, backend: str | None = None) -> Experiment:
    """Run every cell of a config (a TOML path or a dict) and return the tables and the answer.

    ``games`` overrides the config's games per cell (with an ``[sprt]`` table: the deals per look).
    Results do not depend on ``jobs``.
    """
    cfg = load(source, games)
    started = _dt.datetime.now().astimezone()
    t0 = time.perf_counter()
    runs = play_cells(cfg, jobs=jobs, progress=progress, backend=backend)
    played = time.perf_counter() - t0
    result = analyse(cfg, runs)
    total_games = sum(t.n for r in runs for t in r.totals.values())
    if isinstance(source, dict) or not os.path.isfile(os.fspath(source)):
        text = toml_dumps(cfg.raw)
    else:
        with open(os.fspath(source), encoding="utf-8") as fh:
            text = fh.read()
    manifest = {
        "sensei_version": sensei_version(), "git_commit": git_commit(), "config": cfg.path,
        "title": cfg.title, "game": cfg.game, "seed": cfg.seed, "games_per_cell": cfg.games,
        "games_override": games, "cells": len(cfg.cells), "rotations": sum(len(r.rotations) for r in runs),
        "games_played": total_games, "jobs": jobs, "started": started.isoformat(timespec="seconds"),
        "seconds_playing": round(played, 3), "seconds_total": round(time.perf_counter() - t0, 3),
        "games_per_second": round(total_games / max(played, 1e-9), 1), "python": platform.python_version(),
        "command": _command(cfg, games), "config_text": text,
    }
    return Experiment(cfg, result["tables"], result["answer"], manifest)


def _command(cfg: Config, games: int | None) -> str:
    cmd = f"sensei run {cfg.path}"
    if games is not None:
        cmd += f" --games {games}"
    return cmd


def load_tables(run_dir: str) -> dict[str, pl.DataFrame]:
    """The tables of a run folder (for notebooks and reports)."""
    if not os.path.isdir(run_dir):
        raise SenseiError(f"{run_dir}: not a run folder")
    out = {}
    for name in TABLES + ("games",):
        p = os.path.join(run_dir, f"{name}.parquet")
        if os.path.isfile(p):
            out[name] = pl.read_parquet(p)
    if "cells" not in out:
        raise SenseiError(f"{run_dir}: no cells.parquet (not a run folder)")
    return out
