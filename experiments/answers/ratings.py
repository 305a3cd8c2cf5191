"""``ratings``: Bradley-Terry ratings of a tournament (the table is built for every tournament)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from simcore.stats import half_width

from .base import AnswerKind, Result
from .common import describe_group, experiment_labels, group_rows, label

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def answer_ratings(cfg: Config, ratings: pl.DataFrame) -> list[str]:
    out = []
    labels = experiment_labels(cfg)
    for key, sub in group_rows(ratings, cfg.axes):
        sub = sub.sort("elo", descending=True)
        top = sub.row(0, named=True)
        desc = describe_group(cfg.axes, key)
        order = " > ".join(label(labels, x) for x in sub["strategy"].to_list())
        if top["strategy"] == top["reference"]:
            nxt = sub.row(1, named=True)
            text = (f"strongest{' for ' + desc if desc else ''}: {label(labels, top['strategy'])}, "
                    f"{-nxt['elo']:.0f} ± {half_width(nxt['elo_lo'], nxt['elo_hi']):.0f} Elo above {label(labels, nxt['strategy'])}")
        else:
            text = (f"strongest{' for ' + desc if desc else ''}: {label(labels, top['strategy'])}, Elo {top['elo']:+.0f} ± "
                    f"{half_width(top['elo_lo'], top['elo_hi']):.0f} relative to {label(labels, top['reference'])}")
        out.append(text + f" (order {order})")
    return out


def precheck(ctx) -> None:
    if ctx.lineup != "tournament":
        ctx.ck.fail("report.answer", "a tournament lineup for answer = 'ratings'", "ratings")


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    return Result(answer_ratings(cfg, tables["ratings"]))


KIND = AnswerKind("ratings", "Bradley-Terry ratings of a tournament", analyse, precheck=precheck)
