"""``effect``: what each value of ``over`` changes against ``baseline``, paired deal by deal."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from simcore.stats import half_width, paired_diff, values_ci, wilson

from .base import AnswerKind, Result
from .common import SHARE_DIFF_RANGE, clip_interval, describe_group, metric_range, experiment_labels, fmt_metric, frame, pm_metric, group_rows, label, short, wide_table

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def answer_effect(cfg: Config, cells: pl.DataFrame, runs: list[CellRun], ratings: pl.DataFrame):
    """How each value of ``over`` changes game length, seat advantage and the focus (or the ratings),
    compared with ``baseline`` on the same deals."""
    rep = cfg.report
    gaxes = cfg.group_axes
    sentences, paired_rows = [], []
    labels = experiment_labels(cfg)

    def show(v: Any) -> str:
        return label(labels, v)

    def pooled(sub: pl.DataFrame) -> np.ndarray:
        return np.mean([runs[i].vectors() for i in sub["cell"].to_list()], axis=0)

    by_group: dict[tuple, dict[Any, pl.DataFrame]] = {}
    for key, sub in group_rows(cells, gaxes):
        by_group[key] = {k[0]: s for k, s in sub.group_by([rep.over], maintain_order=True)}
    for key, values in by_group.items():
        desc = describe_group(gaxes, key)
        base = values.get(rep.baseline)
        if base is None:
            continue
        bvec = pooled(base)
        for value, sub in values.items():
            vec = pooled(sub)
            turns = values_ci(vec[2])
            n = int(sub["games"].sum())
            s0 = float((sub["seat0_win_share"] * sub["games"]).sum())
            s0lo, s0hi = wilson(s0, n)
            P = int(sub["players"][0])
            adv = s0 / n - 1.0 / P
            part = [f"game length {turns[0]:.1f} turns ± {half_width(turns[1], turns[2]):.1f}",
                    "first-seat advantage "
                    + pm_metric("seat_advantage", adv, float(s0lo) - 1.0 / P, float(s0hi) - 1.0 / P, True)]
            stopped = int(sub["timeouts"].sum())
            if stopped:  # games stopped at the turn limit: nobody's win, and their turns count in the length
                clo, chi = wilson(n - stopped, n)
                part.append(f"completion {fmt_metric('win_share', 1 - stopped / n)} "
                            f"[{fmt_metric('win_share', float(clo))}, {fmt_metric('win_share', float(chi))}] "
                            f"({stopped:,} of {n:,} games stopped at the turn limit)")
            if cfg.kind == "focus":  # the level itself, against its fair share, before any difference
                fw = values_ci(vec[0])
                part.append(f"focus win share {pm_metric('win_share', fw[0], fw[1], fw[2])} (fair "
                            f"{fmt_metric('win_share', 1.0 / P)})")
            if value != rep.baseline:
                for metric, row in (("mean_turns", 2), ("seat_advantage", 3), ("win_share", 0)):
                    if metric == "win_share" and cfg.kind != "focus":
                        continue
                    d = paired_diff(vec[row], bvec[row])
                    paired_rows.append({**{a: v for a, v in zip(gaxes, key)}, "metric": metric, "over": rep.over,
                                        "value": value, "versus": rep.baseline, "diff": d["diff"], "lo": d["lo"],
                                        "hi": d["hi"], "p_value": d["p_value"], "rho": d["rho"], "deals": d["n"]})
                    shown = "focus win share" if metric == "win_share" else (
                        "game length" if metric == "mean_turns" else "first-seat advantage")
                    # a difference of shares (or of seat 0's advantages) lies in [-100%, +100%]
                    lo, hi = clip_interval(d["lo"], d["hi"], None if metric == "mean_turns" else SHARE_DIFF_RANGE)
                    part.append(f"{shown} {fmt_metric(metric, d['diff'], True)} [{fmt_metric(metric, lo, True)}, "
                                f"{fmt_metric(metric, hi, True)}] vs {show(rep.baseline)}")
            if ratings.height:
                mask = pl.lit(True)
                for a, v in zip(gaxes, key):
                    mask = mask & (pl.col(a) == v)
                r = ratings.filter(mask & (pl.col(rep.over) == value)).sort("elo", descending=True)
                if r.height:
                    top = r.row(0, named=True)
                    # the runner-up, when its interval reaches the leader's: "strongest" is then not clear
                    nxt = r.row(1, named=True) if r.height > 1 else None
                    close = (nxt is not None and top["strategy"] != top["reference"]
                             and nxt["strategy"] != nxt["reference"] and None not in (nxt["elo_hi"], top["elo_lo"])
                             and nxt["elo_hi"] >= top["elo_lo"])
                    part.append(f"strongest {show(top['strategy'])} ("
                                + (f"Elo {top['elo']:+.0f} ± {half_width(top['elo_lo'], top['elo_hi']):.0f} vs "
                                   f"{show(top['reference'])}" if top["strategy"] != top["reference"] else
                                   f"{-r.row(1, named=True)['elo']:.0f} Elo above {show(r.row(1, named=True)['strategy'])}")
                                + (f"; {show(nxt['strategy'])} next, {nxt['elo']:+.0f} ± "
                                   f"{half_width(nxt['elo_lo'], nxt['elo_hi']):.0f}, their intervals overlapping"
                                   if close else "")
                                + ")")
            sentences.append(f"{short(rep.over)} {show(value)}" + (f" ({desc})" if desc else "") + ": "
                             + "; ".join(part))
    return sentences, frame(paired_rows), headline(rep, paired_rows, show)


def headline(rep, paired_rows: list[dict[str, Any]], show) -> list[str] | None:
    """Per value against the baseline, over every group: the range of each paired change and in how many
    groups its interval excludes 0."""
    if not paired_rows:
        return None
    words = {"mean_turns": ("game length", " turns", 1.0), "seat_advantage": ("first-seat advantage", " points", 100.0),
             "win_share": ("focus win share", " points", 100.0)}
    out = []
    values = list(dict.fromkeys(r["value"] for r in paired_rows))
    for v in values:
        parts = []
        for metric, (word, unit, k) in words.items():
            rows = [r for r in paired_rows if r["value"] == v and r["metric"] == metric]
            if not rows:
                continue
            ds = [r["diff"] * k for r in rows]
            clear = sum(1 for r in rows if r["lo"] is not None and r["hi"] is not None and (r["lo"] > 0 or r["hi"] < 0))
            span = f"{min(ds):+.1f}{unit}" if len(rows) == 1 or round(min(ds), 1) == round(max(ds), 1) else \
                f"{min(ds):+.1f} to {max(ds):+.1f}{unit}"
            parts.append(f"{word} {span} (clear in {clear} of {len(rows)} group{'s' if len(rows) != 1 else ''})")
        out.append(f"{short(rep.over)} {show(v)} against {show(rep.baseline)}, on the same deals: " + ", ".join(parts) + ".")
    return out


def lead_table(ctx):
    """The paired changes against the baseline: a row per value, for each group the change of the game
    length and of the first-seat advantage (and of the focus's win share) with its paired 95% interval."""
    from reports.plots import group_labels

    paired = ctx.t["paired"]
    if paired.height == 0:
        return None
    df = group_labels(paired, ctx.gaxes)
    est = df.select([pl.col("value").cast(pl.String).alias("case"), "group", pl.col("metric").alias("figure"),
                     pl.col("diff").alias("value"), "lo", "hi"])
    names = [m for m in ("mean_turns", "seat_advantage", "win_share") if m in set(est["figure"].to_list())]
    words = {"mean_turns": "game length change", "seat_advantage": "first-seat advantage change",
             "win_share": "focus win share change"}
    return wide_table(est, names, words, ctx.s.get("labels") or {}, ctx.over, percent=lambda n: n != "mean_turns",
                      signed=True, bounds=lambda n: metric_range(n, diff=True))


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    answer, paired, heads = answer_effect(cfg, tables["cells"], runs, tables["ratings"])
    return Result(answer, paired, headline=heads)


KIND = AnswerKind("effect", "per value of `over` against `baseline`: game length, first-seat advantage, the focus",
                  analyse, needs_over=True, over_players=False, baseline="required", vectors=True, lead_table=lead_table)
