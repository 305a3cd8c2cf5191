"""``effect``: what each value of ``over`` changes against ``baseline``, paired deal by deal."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from simcore.stats import half_width, paired_diff, values_ci, wilson

from .base import AnswerKind, Result
from .common import describe_group, experiment_labels, fmt_metric, frame, group_rows, label, short

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
                    f"first-seat advantage {fmt_metric('seat_advantage', adv, True)} ± "
                    f"{fmt_metric('seat_advantage', half_width(float(s0lo), float(s0hi)))}"]
            stopped = int(sub["timeouts"].sum())
            if stopped:  # games stopped at the turn limit: nobody's win, and their turns count in the length
                clo, chi = wilson(n - stopped, n)
                part.append(f"completion {fmt_metric('win_share', 1 - stopped / n)} "
                            f"[{fmt_metric('win_share', float(clo))}, {fmt_metric('win_share', float(chi))}] "
                            f"({stopped:,} of {n:,} games stopped at the turn limit)")
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
                    part.append(f"{shown} {fmt_metric(metric, d['diff'], True)} [{fmt_metric(metric, d['lo'], True)}, "
                                f"{fmt_metric(metric, d['hi'], True)}] vs {show(rep.baseline)}")
            elif cfg.kind == "focus":
                fw = values_ci(vec[0])
                part.append(f"focus win share {fmt_metric('win_share', fw[0])} ± "
                            f"{fmt_metric('win_share', half_width(fw[1], fw[2]))}")
            if ratings.height:
                mask = pl.lit(True)
                for a, v in zip(gaxes, key):
                    mask = mask & (pl.col(a) == v)
                r = ratings.filter(mask & (pl.col(rep.over) == value)).sort("elo", descending=True)
                if r.height:
                    top = r.row(0, named=True)
                    part.append(f"strongest {show(top['strategy'])} ("
                                + (f"Elo {top['elo']:+.0f} ± {half_width(top['elo_lo'], top['elo_hi']):.0f} vs "
                                   f"{show(top['reference'])}" if top["strategy"] != top["reference"] else
                                   f"{-r.row(1, named=True)['elo']:.0f} Elo above {show(r.row(1, named=True)['strategy'])}")
                                + ")")
            sentences.append(f"{short(rep.over)} {show(value)}" + (f" ({desc})" if desc else "") + ": "
                             + "; ".join(part))
    return sentences, frame(paired_rows)


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    answer, paired = answer_effect(cfg, tables["cells"], runs, tables["ratings"])
    return Result(answer, paired)


KIND = AnswerKind("effect", "per value of `over` against `baseline`: game length, first-seat advantage, the focus",
                  analyse, needs_over=True, baseline="required", vectors=True)
