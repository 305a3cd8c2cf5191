"""``ratings``: Bradley-Terry ratings of a tournament (the table is built for every tournament)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from simcore.stats import half_width

from .base import AnswerKind, Result
from .common import and_list, describe_group, experiment_labels, group_rows, label

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def answer_ratings(cfg: Config, ratings: pl.DataFrame) -> list[str]:
    out = []
    labels = experiment_labels(cfg)
    for key, sub in group_rows(ratings, cfg.axes):
        sub = sub.sort("elo", descending=True)
        top = sub.row(0, named=True)
        desc = describe_group(cfg.axes, key, labels)
        rows = list(sub.iter_rows(named=True))
        order = label(labels, rows[0]["strategy"])
        close = same = False
        for a, b in zip(rows, rows[1:]):
            alike, apart = _alike(a, b), _apart(a, b)
            close |= not apart and not alike
            same |= alike
            order += (" = " if alike else " > " if apart else " ~ ") + label(labels, b["strategy"])
        if close:
            order += "; ~: not clearly apart, their 95% intervals overlapping"
        if same:
            order += "; =: the same rating (they win alike against every entrant)"
        tops = top_alike(rows, cfg.strategies)
        if len(tops) > 1:
            # entrants that play alike share the top: none of them is the highest rated
            text = (f"highest rated strategies{' for ' + desc if desc else ''}: "
                    f"{and_list(label(labels, r['strategy']) for r in tops)}, the same rating"
                    + ("" if any(r["strategy"] == r["reference"] for r in tops) else
                       f", Elo {top['elo']:+.0f} ± {half_width(top['elo_lo'], top['elo_hi']):.0f} relative to "
                       f"{label(labels, top['reference'])}, the tournament's first strategy, rated 0"))
        elif top["strategy"] == top["reference"]:
            nxt = sub.row(1, named=True)
            text = (f"highest rated strategy{' for ' + desc if desc else ''}: {label(labels, top['strategy'])}, "
                    f"{-nxt['elo']:.0f} ± {half_width(nxt['elo_lo'], nxt['elo_hi']):.0f} Elo above {label(labels, nxt['strategy'])}")
        else:
            text = (f"highest rated strategy{' for ' + desc if desc else ''}: {label(labels, top['strategy'])}, Elo {top['elo']:+.0f} ± "
                    f"{half_width(top['elo_lo'], top['elo_hi']):.0f} relative to {label(labels, top['reference'])}, "
                    "the tournament's first strategy, rated 0")
        out.append(text + f" (order {order})")
    return out


def top_alike(rows: list[dict], strategies: list[str]) -> list[dict]:
    """The ratings the same as the highest (``rows`` sorted by Elo, highest first: the highest itself and any
    that share its rating), in the tournament's order, so that which is named first is not the sort's."""
    listed = {s: i for i, s in enumerate(strategies)}
    return sorted((r for r in rows if _alike(r, rows[0])), key=lambda r: listed.get(r["strategy"], len(listed)))


def _alike(a: dict, b: dict) -> bool:
    """Whether two ratings are the same (to a millionth of an Elo point: what entrants that win alike against
    every entrant get, where their intervals, rounding apart, can read as clearly apart)."""
    return abs(a["elo"] - b["elo"]) < 1e-6


def _apart(a: dict, b: dict) -> bool:
    """Whether strategy ``a`` (rated higher) is clearly above ``b``: their Elo intervals do not overlap (the
    reference's Elo is 0 by definition, without an interval of its own)."""
    lo = 0.0 if a["strategy"] == a["reference"] else a["elo_lo"]
    hi = 0.0 if b["strategy"] == b["reference"] else b["elo_hi"]
    return lo is not None and hi is not None and hi < lo


def precheck(ctx) -> None:
    if ctx.lineup != "tournament":
        ctx.ck.fail("report.answer", "a tournament lineup for answer = 'ratings'", "ratings")


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    return Result(answer_ratings(cfg, tables["ratings"]))


KIND = AnswerKind("ratings", "Bradley-Terry ratings of a tournament", analyse, precheck=precheck, vectors="small")
