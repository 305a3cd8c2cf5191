"""``sprt``: the sequential test's verdict per cell (the test itself is played by the engine)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from .base import AnswerKind, Result
from .common import describe_group, experiment_labels, fmt_metric, label, pm_metric

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def answer_sprt(cfg: Config, sprt: pl.DataFrame, cells: pl.DataFrame) -> list[str]:
    out = []
    s = cfg.sprt
    labels = experiment_labels(cfg)
    for row, c in zip(sprt.iter_rows(named=True), cells.iter_rows(named=True)):
        desc = describe_group(cfg.axes, tuple(c[a] for a in cfg.axes))
        verdict = {"H1": f"better: its win share beats the fair share by at least {s.h1 * 100:.1f} points",
                   "H0": f"not better by {s.h1 * 100:.1f} points (advantage at most {s.h0 * 100:.1f})",
                   "continue": "undecided"}[row["decision"]]
        out.append(f"{label(labels, c['focus'])} against {label(labels, c['field'])}" + (f" ({desc})" if desc else "")
                   + f": {verdict} after {row['deals']:,} deals (LLR {row['llr']:.2f}, bounds "
                   f"[{row['lower']:.2f}, {row['upper']:.2f}]); win share "
                   f"{pm_metric('win_share', c['focus_win_share'], c['focus_win_lo'], c['focus_win_hi'])} (fair "
                   f"{fmt_metric('win_share', c['fair_share'])})")
    return out


def precheck(ctx) -> None:
    if ctx.sprt is None:
        ctx.ck.fail("report.answer", "an [sprt] table for answer = 'sprt'", "sprt")


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    return Result(answer_sprt(cfg, tables["sprt"], tables["cells"]))


KIND = AnswerKind("sprt", "the sequential test's verdict with the number of deals it needed", analyse,
                  precheck=precheck)
