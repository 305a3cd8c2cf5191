"""From played cells to tidy tables and the answer to the config's question.

Tables (polars DataFrames; the run folder holds each as parquet):

* ``cells``: one row per cell: every parameter (player count, every rule option, the sweep axes, the
  lineup and its strategies' parameters), the focus seat's win share (Wilson interval) and mean score
  (t interval), game length, completion, seat balance and the game's own metrics;
* ``seats``: one row per cell, rotation and seat: strategy, role, win share and mean score with intervals;
* ``turns`` and ``scores``: counts of game lengths and final scores per cell (distributions);
* ``paired``: paired differences between cells on the same deals (common random numbers);
* ``ratings``: Bradley-Terry ratings of a tournament's strategies, per group of cells;
* ``sprt``: the sequential test of each cell.

The answer is a list of sentences (one per group of cells), each with its 95% interval.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
from scipy import stats as _st

from simcore.registry import get_game
from simcore.stats import bradley_terry, mean_ci, paired_diff, sprt_bounds, values_ci, wilson

from .config import METRICS, Config
from .engine import VEC_ROWS, CellRun

STANDARD = ("score", "win", "turns", "timeout")
#: metric -> (cells column, low column, high column, per-deal vector row)
METRIC_COLUMNS = {
    "win_share": ("focus_win_share", "focus_win_lo", "focus_win_hi", VEC_ROWS.index("focus_win")),
    "mean_score": ("focus_mean_score", "focus_score_lo", "focus_score_hi", VEC_ROWS.index("focus_score")),
    "mean_turns": ("mean_turns", "turns_lo", "turns_hi", VEC_ROWS.index("turns")),
}


def frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """A DataFrame from row dicts, tolerant of mixed ints and floats; empty rows give an empty frame."""
    if not rows:
        return pl.DataFrame()
    return pl.DataFrame(rows, strict=False, infer_schema_length=None)


def _num(x: Any) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def cell_params(cfg: Config, run: CellRun) -> dict[str, Any]:
    """Every parameter of a cell as columns."""
    c = run.cell
    row: dict[str, Any] = {"cell": c.index, "players": c.players}
    for a in cfg.axes:
        if a != "players":
            row[a] = c.axes[a]
    for k, v in c.rules.as_dict().items():
        row[f"rules.{k}"] = v
    if cfg.kind == "seats":
        for i, a in enumerate(c.agents):
            row[f"seat{i}"] = a.spec()
    else:
        focus, field = c.agents[0], c.agents[1]
        row["focus"] = focus.spec()
        row["field"] = field.spec()
        for role, agent in (("focus", focus), ("field", field)):
            for k, v in agent.params().items():
                row[f"{role}.{k}"] = v
    if c.pair is not None:
        row["a"], row["b"] = c.pair
    return row


def _pooled(run: CellRun) -> tuple[int, dict[str, np.ndarray], dict[str, np.ndarray], np.ndarray]:
    n = sum(t.n for t in run.totals.values())
    sums = {k: sum(t.sums[k] for t in run.totals.values()) for k in next(iter(run.totals.values())).sums}
    sumsq = {k: sum(t.sumsq[k] for t in run.totals.values()) for k in sums}
    hist = sum(t.turns_hist for t in run.totals.values())
    return n, sums, sumsq, hist


def cells_table(cfg: Config, runs: list[CellRun]) -> pl.DataFrame:
    eng = get_game(cfg.game)
    rows = []
    for run in runs:
        c = run.cell
        P = c.players
        row = cell_params(cfg, run)
        n, sums, sumsq, _ = _pooled(run)
        row.update({"deals": run.deals, "rotations": len(run.rotations), "games": n})
        # the focus over every seat it holds (each seat once per deal when rotated)
        nf = sum(run.totals[r].n * len(seats) for r, seats in run.rotations)
        fw = sum(float(run.totals[r].sums["win"][list(seats)].sum()) for r, seats in run.rotations)
        fs = sum(float(run.totals[r].sums["score"][list(seats)].sum()) for r, seats in run.rotations)
        fs2 = sum(float(run.totals[r].sumsq["score"][list(seats)].sum()) for r, seats in run.rotations)
        lo, hi = wilson(fw, nf)
        row.update({"focus_games": nf, "focus_win_share": fw / nf, "focus_win_lo": float(lo),
                    "focus_win_hi": float(hi), "fair_share": 1.0 / P})
        mean, half = mean_ci(fs, fs2, nf)
        row.update({"focus_mean_score": float(mean), "focus_score_lo": _num(mean - half),
                    "focus_score_hi": _num(mean + half)})
        if P > 1:
            field_w = sum(len(seats) * float(run.totals[r].sums["win"].sum()) for r, seats in run.rotations) - fw
            row["field_win_share"] = field_w / (nf * (P - 1))
        tm, th = mean_ci(sums["turns"], sumsq["turns"], n)
        row.update({"mean_turns": float(tm), "turns_lo": _num(tm - th), "turns_hi": _num(tm + th)})
        timeouts = float(sums["timeout"])
        row.update({"timeouts": int(round(timeouts)), "completion": 1.0 - timeouts / n})
        seat = np.asarray(sums["win"], dtype=float)
        s0lo, s0hi = wilson(seat[0], n)
        row.update({"seat0_win_share": seat[0] / n, "seat0_win_lo": float(s0lo), "seat0_win_hi": float(s0hi),
                    "seat_advantage": seat[0] / n - 1.0 / P, "seat_spread": float((seat.max() - seat.min()) / n)})
        if seat.sum() > 0 and P > 1:
            row["seat_balance_p"] = float(_st.chisquare(seat).pvalue)
        for k, v in sums.items():
            if k in STANDARD:
                continue
            v = np.asarray(v, dtype=float)
            row[f"mean.{k}"] = float(v.mean() if v.ndim else v) / n
        for k, v in eng.metrics(sums, n, P, c.rules).items():
            if isinstance(v, (int, float)) or v is None:
                row[f"metric.{k}"] = _num(v)
        row["seconds"] = run.seconds
        if run.sprt is not None:
            row["sprt"] = run.sprt["decision"]
        rows.append(row)
    return frame(rows)


def seats_table(cfg: Config, runs: list[CellRun]) -> pl.DataFrame:
    rows = []
    for run in runs:
        c = run.cell
        params = cell_params(cfg, run)
        for r, _ in run.rotations:
            t = run.totals[r]
            lo, hi = wilson(t.sums["win"], t.n)
            mean, half = mean_ci(t.sums["score"], t.sumsq["score"], t.n)
            for s in range(c.players):
                base = (s - r) % c.players
                rows.append({**params, "rotation": r, "seat": s, "strategy": c.agents[base].spec(),
                             "role": c.roles[base], "games": t.n, "win_share": float(t.sums["win"][s] / t.n),
                             "win_lo": float(lo[s]), "win_hi": float(hi[s]), "mean_score": float(mean[s]),
                             "score_lo": _num(mean[s] - half[s]), "score_hi": _num(mean[s] + half[s])})
    return frame(rows)


def turns_table(runs: list[CellRun]) -> pl.DataFrame:
    rows = []
    for run in runs:
        h = _pooled(run)[3]
        for t in np.flatnonzero(h):
            rows.append({"cell": run.cell.index, "turns": int(t), "count": int(h[t])})
    return frame(rows)


def scores_table(runs: list[CellRun]) -> pl.DataFrame:
    rows = []
    for run in runs:
        for who, h in run.hist.items():
            for v in sorted(h):
                rows.append({"cell": run.cell.index, "who": who, "score": float(v), "count": int(h[v])})
    return frame(rows)


def sprt_table(cfg: Config, runs: list[CellRun]) -> pl.DataFrame:
    if cfg.sprt is None:
        return pl.DataFrame()
    lo, hi = sprt_bounds(cfg.sprt.alpha, cfg.sprt.beta)
    rows = []
    for run in runs:
        s = run.sprt or {"llr": 0.0, "decision": "continue", "deals": run.deals}
        rows.append({**cell_params(cfg, run), "llr": s["llr"], "lower": lo, "upper": hi, "decision": s["decision"],
                     "deals": s["deals"], "h0": cfg.sprt.h0, "h1": cfg.sprt.h1})
    return frame(rows)


# ------------------------------------------------------------------------------------------ answers
def short(axis: str) -> str:
    """``focus.wake`` -> ``wake``, ``rules.penalty`` -> ``penalty``."""
    return axis.split(".", 1)[1] if "." in axis else axis


def describe_group(axes: list[str], values: tuple) -> str:
    parts = []
    for a, v in zip(axes, values):
        parts.append(f"{v} players" if a == "players" else f"{short(a)} {_label(v)}")
    return ", ".join(parts)


def _label(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v)


def fmt_metric(metric: str, x: float, signed: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    sign = "+" if signed else ""
    if metric in ("win_share", "seat_advantage"):
        return f"{x * 100:{sign}.1f}%"
    if metric == "mean_turns":
        return f"{x:{sign}.1f}"
    return f"{x:{sign}.2f}"


def _half(lo: float | None, hi: float | None) -> float:
    if lo is None or hi is None:
        return math.nan
    return (hi - lo) / 2


def _groups(cells: pl.DataFrame, axes: list[str]):
    """(group values tuple, rows dataframe) in first-seen order."""
    if not axes:
        yield (), cells
        return
    for key, sub in cells.group_by(axes, maintain_order=True):
        yield tuple(key), sub


def answer_best(cfg: Config, cells: pl.DataFrame, runs: list[CellRun]):
    rep = cfg.report
    col, lo_col, hi_col, vrow = METRIC_COLUMNS[rep.metric]
    label = METRICS[rep.metric][0]
    sentences, paired_rows = [], []
    gaxes = cfg.group_axes
    for key, sub in _groups(cells, gaxes):
        sub = sub.sort(col, descending=rep.goal == "max", nulls_last=True)
        best = sub.row(0, named=True)
        desc = describe_group(gaxes, key)
        best_vec = runs[best["cell"]].vectors()
        text = (f"best {short(rep.over)}" + (f" for {desc}" if desc else "") + f": {_label(best[rep.over])}, "
                f"{label} {fmt_metric(rep.metric, best[col])} ± {fmt_metric(rep.metric, _half(best[lo_col], best[hi_col]))}")
        for other in sub.iter_rows(named=True):
            if other["cell"] == best["cell"]:
                continue
            d = paired_diff(runs[other["cell"]].vectors()[vrow], best_vec[vrow])
            paired_rows.append({**{a: v for a, v in zip(gaxes, key)}, "metric": rep.metric, "over": rep.over,
                                "value": other[rep.over], "versus": best[rep.over], "diff": d["diff"], "lo": d["lo"],
                                "hi": d["hi"], "p_value": d["p_value"], "rho": d["rho"], "deals": d["n"]})
        if sub.height > 1:
            nxt = sub.row(1, named=True)
            d = next(p for p in paired_rows if p["value"] == nxt[rep.over] and p["versus"] == best[rep.over]
                     and all(p[a] == v for a, v in zip(gaxes, key)))
            clear = d["lo"] > 0 or d["hi"] < 0
            text += (f" (next {_label(nxt[rep.over])}: {fmt_metric(rep.metric, d['diff'], True)}, paired 95% CI "
                     f"[{fmt_metric(rep.metric, d['lo'], True)}, {fmt_metric(rep.metric, d['hi'], True)}]"
                     + ("" if clear else ", not clearly different") + ")")
        sentences.append(text)
    return sentences, frame(paired_rows)


def ratings_table(cfg: Config, cells: pl.DataFrame) -> pl.DataFrame:
    """Bradley-Terry ratings per group of tournament cells (every axis is a group)."""
    if cfg.kind != "tournament":
        return pl.DataFrame()
    rows = []
    for key, sub in _groups(cells, cfg.axes):
        P = sub["players"][0]
        wa = (sub["focus_win_share"] * sub["focus_games"]).to_list()
        wb = (sub["field_win_share"] * sub["focus_games"] * (P - 1)).to_list()
        res = bradley_terry(cfg.strategies, sub["a"].to_list(), sub["b"].to_list(), wa, wb, [P - 1] * sub.height)
        for name in cfg.strategies:
            elo, lo, hi = res[name]
            alone = sub.filter(pl.col("a") == name)
            field = sub.filter(pl.col("b") == name)
            wins = float((alone["focus_win_share"] * alone["focus_games"]).sum()
                         + (field["field_win_share"] * field["focus_games"] * (P - 1)).sum())
            seats = float(alone["focus_games"].sum() + field["focus_games"].sum() * (P - 1))
            rows.append({**{a: v for a, v in zip(cfg.axes, key)}, "strategy": name, "elo": elo, "elo_lo": lo,
                         "elo_hi": hi, "reference": cfg.strategies[0],
                         "win_share": wins / seats if seats else None, "fair_share": 1.0 / P})
    return frame(rows)


def answer_ratings(cfg: Config, ratings: pl.DataFrame) -> list[str]:
    out = []
    for key, sub in _groups(ratings, cfg.axes):
        sub = sub.sort("elo", descending=True)
        top = sub.row(0, named=True)
        desc = describe_group(cfg.axes, key)
        order = " > ".join(sub["strategy"].to_list())
        if top["strategy"] == top["reference"]:
            nxt = sub.row(1, named=True)
            text = (f"strongest{' for ' + desc if desc else ''}: {top['strategy']}, "
                    f"{-nxt['elo']:.0f} ± {_half(nxt['elo_lo'], nxt['elo_hi']):.0f} Elo above {nxt['strategy']}")
        else:
            text = (f"strongest{' for ' + desc if desc else ''}: {top['strategy']}, Elo {top['elo']:+.0f} ± "
                    f"{_half(top['elo_lo'], top['elo_hi']):.0f} relative to {top['reference']}")
        out.append(text + f" (order {order})")
    return out


def answer_effect(cfg: Config, cells: pl.DataFrame, runs: list[CellRun], ratings: pl.DataFrame):
    """How each value of ``over`` changes game length, seat advantage and the focus (or the ratings),
    compared with ``baseline`` on the same deals."""
    rep = cfg.report
    gaxes = cfg.group_axes
    sentences, paired_rows = [], []

    def pooled(sub: pl.DataFrame) -> np.ndarray:
        return np.mean([runs[i].vectors() for i in sub["cell"].to_list()], axis=0)

    by_group: dict[tuple, dict[Any, pl.DataFrame]] = {}
    for key, sub in _groups(cells, gaxes):
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
            part = [f"game length {turns[0]:.1f} turns ± {_half(turns[1], turns[2]):.1f}",
                    f"first-seat advantage {fmt_metric('seat_advantage', adv, True)} ± "
                    f"{fmt_metric('seat_advantage', _half(float(s0lo), float(s0hi)))}"]
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
                                f"{fmt_metric(metric, d['hi'], True)}] vs {_label(rep.baseline)}")
            elif cfg.kind == "focus":
                fw = values_ci(vec[0])
                part.append(f"focus win share {fmt_metric('win_share', fw[0])} ± "
                            f"{fmt_metric('win_share', _half(fw[1], fw[2]))}")
            if ratings.height:
                mask = pl.lit(True)
                for a, v in zip(gaxes, key):
                    mask = mask & (pl.col(a) == v)
                r = ratings.filter(mask & (pl.col(rep.over) == value)).sort("elo", descending=True)
                if r.height:
                    top = r.row(0, named=True)
                    part.append(f"strongest {top['strategy']} ("
                                + (f"Elo {top['elo']:+.0f} ± {_half(top['elo_lo'], top['elo_hi']):.0f} vs "
                                   f"{top['reference']}" if top["strategy"] != top["reference"] else
                                   f"{-r.row(1, named=True)['elo']:.0f} Elo above {r.row(1, named=True)['strategy']}")
                                + ")")
            sentences.append(f"{short(rep.over)} {_label(value)}" + (f" ({desc})" if desc else "") + ": "
                             + "; ".join(part))
    return sentences, frame(paired_rows)


def answer_sprt(cfg: Config, sprt: pl.DataFrame, cells: pl.DataFrame) -> list[str]:
    out = []
    s = cfg.sprt
    for row, c in zip(sprt.iter_rows(named=True), cells.iter_rows(named=True)):
        desc = describe_group(cfg.axes, tuple(c[a] for a in cfg.axes))
        verdict = {"H1": f"better: its win share beats the fair share by at least {s.h1 * 100:.1f} points",
                   "H0": f"not better by {s.h1 * 100:.1f} points (advantage at most {s.h0 * 100:.1f})",
                   "continue": "undecided"}[row["decision"]]
        out.append(f"{c['focus']} against {c['field']}" + (f" ({desc})" if desc else "")
                   + f": {verdict} after {row['deals']:,} deals (LLR {row['llr']:.2f}, bounds "
                   f"[{row['lower']:.2f}, {row['upper']:.2f}]); win share {fmt_metric('win_share', c['focus_win_share'])} "
                   f"± {fmt_metric('win_share', _half(c['focus_win_lo'], c['focus_win_hi']))} (fair "
                   f"{fmt_metric('win_share', c['fair_share'])})")
    return out


def answer_summary(cfg: Config, cells: pl.DataFrame) -> list[str]:
    """One sentence per cell: the focus's win share (or the seats' balance) and the game length."""
    out = []
    for c in cells.iter_rows(named=True):
        desc = describe_group(cfg.axes, tuple(c[a] for a in cfg.axes)) or f"{c['players']} players"
        length = (f"game length {c['mean_turns']:.1f} turns ± {_half(c['turns_lo'], c['turns_hi']):.1f}, "
                  f"first-seat advantage {fmt_metric('seat_advantage', c['seat_advantage'], True)}")
        if cfg.kind == "seats":
            out.append(f"{desc}: {length}")
        else:
            out.append(f"{c['focus']} against {c['field']} ({desc}): win share "
                       f"{fmt_metric('win_share', c['focus_win_share'])} ± "
                       f"{fmt_metric('win_share', _half(c['focus_win_lo'], c['focus_win_hi']))} (fair "
                       f"{fmt_metric('win_share', c['fair_share'])}), mean score {c['focus_mean_score']:.2f}; {length}")
    return out


def analyse(cfg: Config, runs: list[CellRun]) -> dict[str, Any]:
    """All tables and the answer sentences."""
    cells = cells_table(cfg, runs)
    tables = {"cells": cells, "seats": seats_table(cfg, runs), "turns": turns_table(runs),
              "scores": scores_table(runs), "sprt": sprt_table(cfg, runs)}
    tables["ratings"] = ratings_table(cfg, cells)
    paired = pl.DataFrame()
    kind = cfg.report.answer
    if kind == "best":
        answer, paired = answer_best(cfg, cells, runs)
    elif kind == "effect":
        answer, paired = answer_effect(cfg, cells, runs, tables["ratings"])
    elif kind == "ratings":
        answer = answer_ratings(cfg, tables["ratings"])
    elif kind == "summary":
        answer = answer_summary(cfg, cells)
    else:
        answer = answer_sprt(cfg, tables["sprt"], cells)
    tables["paired"] = paired
    games = [g for r in runs for g in r.games_rows]
    if games:
        tables["games"] = pl.concat(games)
    return {"tables": tables, "answer": answer}
