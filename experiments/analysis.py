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

import dataclasses
import math
from typing import Any

import numpy as np
import polars as pl
from scipy import stats as _st

from simcore.errors import SenseiError
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
        has_win = np.asarray(sums["win"]).size == P  # solo games (Sensu) report a score and no win
        fs = sum(float(run.totals[r].sums["score"][list(seats)].sum()) for r, seats in run.rotations)
        fs2 = sum(float(run.totals[r].sumsq["score"][list(seats)].sum()) for r, seats in run.rotations)
        if has_win:
            fw = sum(float(run.totals[r].sums["win"][list(seats)].sum()) for r, seats in run.rotations)
            lo, hi = wilson(fw, nf)
            row.update({"focus_games": nf, "focus_win_share": fw / nf, "focus_win_lo": float(lo),
                        "focus_win_hi": float(hi), "fair_share": 1.0 / P})
        else:
            row.update({"focus_games": nf, "focus_win_share": None, "focus_win_lo": None, "focus_win_hi": None,
                        "fair_share": None})
        mean, half = mean_ci(fs, fs2, nf)
        row.update({"focus_mean_score": float(mean), "focus_score_lo": _num(mean - half),
                    "focus_score_hi": _num(mean + half), "focus_score_median": _median(run.hist["focus"])})
        if P > 1 and has_win:
            field_w = sum(len(seats) * float(run.totals[r].sums["win"].sum()) for r, seats in run.rotations) - fw
            row["field_win_share"] = field_w / (nf * (P - 1))
        tm, th = mean_ci(sums["turns"], sumsq["turns"], n)
        row.update({"mean_turns": float(tm), "turns_lo": _num(tm - th), "turns_hi": _num(tm + th)})
        timeouts = float(sums["timeout"])
        row.update({"timeouts": int(round(timeouts)), "completion": 1.0 - timeouts / n})
        seat = np.asarray(sums["win"], dtype=float)
        if has_win:
            s0lo, s0hi = wilson(seat[0], n)
            row.update({"seat0_win_share": seat[0] / n, "seat0_win_lo": float(s0lo), "seat0_win_hi": float(s0hi),
                        "seat_advantage": seat[0] / n - 1.0 / P, "seat_spread": float((seat.max() - seat.min()) / n)})
        else:
            row.update({"seat0_win_share": None, "seat0_win_lo": None, "seat0_win_hi": None, "seat_advantage": None,
                        "seat_spread": None})
        if has_win and seat.sum() > 0 and P > 1:
            row["seat_balance_p"] = float(_st.chisquare(seat).pvalue)
        for k, v in sums.items():
            if k in STANDARD:
                continue
            v = np.asarray(v, dtype=float)
            row[f"mean.{k}"] = float(v.mean() if v.ndim else v) / n
        for k, v in eng.metrics(sums, n, P, c.rules).items():
            if isinstance(v, (int, float)) or v is None:
                row[f"metric.{k}"] = _num(v)
            elif isinstance(v, dict):  # named shares (e.g. Sensu's level_share): one column each
                for name, x in v.items():
                    if isinstance(x, (int, float)) or x is None:
                        row[f"metric.{k}.{name}"] = _num(x)
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
            has_win = np.asarray(t.sums["win"]).size == c.players
            lo, hi = wilson(t.sums["win"], t.n) if has_win else ([None] * c.players, [None] * c.players)
            mean, half = mean_ci(t.sums["score"], t.sumsq["score"], t.n)
            for s in range(c.players):
                base = (s - r) % c.players
                rows.append({**params, "rotation": r, "seat": s, "strategy": c.agents[base].spec(),
                             "role": c.roles[base], "games": t.n,
                             "win_share": float(t.sums["win"][s] / t.n) if has_win else None,
                             "win_lo": _num(lo[s]), "win_hi": _num(hi[s]), "mean_score": float(mean[s]),
                             "score_lo": _num(mean[s] - half[s]), "score_hi": _num(mean[s] + half[s])})
    return frame(rows)


def _median(hist: dict[float, int]) -> float | None:
    """Median of a {value: count} histogram (the lower middle value for an even count)."""
    if not hist:
        return None
    vals = np.array(sorted(hist))
    cum = np.cumsum([hist[v] for v in vals])
    return float(vals[np.searchsorted(cum, (cum[-1] + 1) // 2)])


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
        parts.append(f"{v} player{'' if v == 1 else 's'}" if a == "players" else f"{short(a)} {_label(v)}")
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
        desc = describe_group(cfg.axes, tuple(c[a] for a in cfg.axes)) or \
            f"{c['players']} player{'' if c['players'] == 1 else 's'}"
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


# ------------------------------------------------------------------------- deal-by-deal estimates
# The calibration and balance answers read one row per game (report.per_game): every interval below is
# computed over deals (the unit of common random numbers), so that the rotations of a deal and the cells
# that replay it are never counted as independent games.

def short_spec(agent) -> str:
    """The strategy's name with only the parameters that differ from their defaults (for sentences)."""
    diff = []
    for f in dataclasses.fields(agent):
        if f.init and f.default is not dataclasses.MISSING and getattr(agent, f.name) != f.default:
            diff.append(f"{f.name}={getattr(agent, f.name)}")
    name = getattr(agent, "name", None) or type(agent).__name__
    return name + (":" + ",".join(diff) if diff else "")


def _lineup_label(cell) -> str:
    specs = [short_spec(a) for a in cell.agents]
    if len(set(specs)) == 1:
        return specs[0] if cell.players == 1 else f"{specs[0]} in every seat"
    return " / ".join(specs)


def _strategy(cfg: Config, row: dict[str, Any]) -> str:
    return row.get("seat0") if cfg.kind == "seats" else row.get("focus")


def _strategy_label(runs: list[CellRun], row: dict[str, Any]) -> str:
    return short_spec(runs[row["cell"]].cell.agents[0])


def _ratio_ci(x: np.ndarray, y: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """sum(x) / sum(y) over deals with a t interval of its linearisation (x - R y) / mean(y) (the ratio
    estimator's delta method: deals are the units, whatever each holds)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if y.sum() <= 0:
        return None, None, None
    r = float(x.sum() / y.sum())
    _, lo, hi = values_ci((x - r * y) / y.mean())
    half = _half(lo, hi)
    if not math.isfinite(half):
        return r, None, None
    return r, r - half, r + half


def _metric_defs(cfg: Config) -> list[Any]:
    """The game's ratio metrics named by report.metrics (``prefix_*`` expands to the family), in order."""
    eng = get_game(cfg.game)
    known = [m for m in eng.ratio_metrics if not m.per_seat]
    out = []
    for name in cfg.report.metrics:
        hit = [m for m in known if (m.name.startswith(name[:-1]) if name.endswith("*") else m.name == name)]
        out.extend(m for m in hit if m not in out)
    return out


def deal_frame(cfg: Config, run: CellRun, metric_defs: list[Any] = ()) -> pl.DataFrame:
    """One row per deal of a cell: seat 0's win (mean over rotations), the focus's score (mean over the seats
    it holds), the game length (mean over rotations), and for each ratio metric its numerator and
    denominator summed over the rotations (``num.NAME``, ``den.NAME``)."""
    if not run.games_rows:
        raise ValueError("deal-by-deal estimates need one row per game (report.per_game = true)")
    g = pl.concat(run.games_rows, how="diagonal_relaxed").with_columns(pl.col("rotation").cast(pl.Int64),
                                                                      pl.col("seat").cast(pl.Int64))
    held = pl.DataFrame({"rotation": [r for r, seats in run.rotations for _ in seats],
                         "seat": [s for _, seats in run.rotations for s in seats]},
                        schema={"rotation": pl.Int64, "seat": pl.Int64})
    focus = g.join(held, on=["rotation", "seat"]).group_by("game").agg(pl.col("score").mean().alias("focus_score"))
    aggs = [pl.col("turns").mean().alias("turns"), pl.len().alias("plays")]
    if "win" in g.columns:
        aggs.append(pl.col("win").mean().alias("seat0_win"))
    for m in metric_defs:
        aggs.append(pl.col(m.num).sum().alias(f"num.{m.name}"))
        aggs.append((pl.col(m.den).sum() if m.den else pl.len()).cast(pl.Float64).alias(f"den.{m.name}"))
    first = g.filter(pl.col("seat") == 0).group_by("game").agg(aggs)
    return first.join(focus, on="game").sort("game")


def _pool(frames: list[pl.DataFrame], metric_defs: list[Any]) -> pl.DataFrame:
    """Deals pooled over cells: means of the per-deal values, sums of the metrics' parts."""
    df = pl.concat(frames, how="diagonal_relaxed")
    aggs = [pl.col(c).mean() for c in ("turns", "seat0_win", "focus_score") if c in df.columns]
    for m in metric_defs:
        aggs += [pl.col(f"num.{m.name}").sum(), pl.col(f"den.{m.name}").sum()]
    return df.group_by("game").agg(aggs).sort("game")


def _mean_row(values: np.ndarray) -> tuple[float, float | None, float | None]:
    m, lo, hi = values_ci(values)
    return m, _num(lo), _num(hi)


def _is_share(name: str) -> bool:
    return "share" in name or name.endswith("_won") or name.startswith("first_") or name.startswith("level.")


def _pm(name: str, x: float | None, lo: float | None, hi: float | None) -> str:
    """``value ± half`` with enough decimals that a small half-width does not print as 0."""
    half = _half(lo, hi)
    if x is None or not math.isfinite(x):
        return "n/a"
    scale, unit, d = (100.0, "%", 1) if _is_share(name) or name in ("seat_advantage", "seat0_win_share") else \
        (1.0, "", 2)
    if not math.isfinite(half):
        return f"{x * scale:.{d}f}{unit}"
    while d < 4 and round(half * scale, d) == 0:
        d += 1
    return f"{x * scale:.{d}f}{unit} ± {half * scale:.{d}f}{unit}"


def _holm(pvalues: list[float]) -> list[bool]:
    """Which of several tests reject at 5% with Holm's correction for multiple comparisons (statsmodels)."""
    if not pvalues:
        return []
    from statsmodels.stats.multitest import multipletests
    p = np.nan_to_num(np.asarray(pvalues, dtype=float), nan=1.0)
    return [bool(r) for r in multipletests(p, alpha=0.05, method="holm")[0]]


def _est(scope: str, cell: int | None, group: str, case: Any, strategy: str | None, players: int | None,
         figure: str, value, lo, hi, deals: int, band: tuple[float, float] | None = None) -> dict[str, Any]:
    return {"scope": scope, "cell": cell, "group": group, "case": None if case is None else _label(case),
            "strategy": strategy, "players": players, "figure": figure, "value": _num(value), "lo": _num(lo),
            "hi": _num(hi), "deals": deals, "band_lo": band[0] if band else None, "band_hi": band[1] if band else None}


def _inside(lo: float | None, hi: float | None, band: tuple[float, float], x: float) -> str:
    """'in' when the interval lies inside [band), 'out' when wholly outside it, else 'borderline'."""
    b0, b1 = band
    lo = x if lo is None else lo
    hi = x if hi is None else hi
    if lo >= b0 and hi < b1:
        return "in"
    if hi < b0 or lo >= b1:
        return "out"
    return "borderline"


def answer_calibration(cfg: Config, cells: pl.DataFrame, runs: list[CellRun]):
    """Which value of ``over`` (e.g. Sensu's sticks table) makes the game's solo level scale plausible for
    good play, and how much the headline figures (solo score, first-seat advantage, game length) depend on
    it. Good play is the solo strategy with the highest mean score for that value."""
    rep = cfg.report
    over, band, top_band = rep.over, rep.score_band, rep.top_share
    gaxes = cfg.group_axes
    eng = get_game(cfg.game)
    values = cells[over].unique(maintain_order=True).to_list()
    v0 = values[0]
    frames = {i: deal_frame(cfg, runs[i]) for i in cells["cell"].to_list()}
    est, paired_rows, sentences = [], [], []

    def key_of(row):
        return tuple(row[a] for a in gaxes)

    # ----- solo: level shares and the criterion, per value of `over`
    solo = cells.filter(pl.col("players") == 1)
    levels_of = {}
    for row in solo.iter_rows(named=True):
        run = runs[row["cell"]]
        n, sums, _, _ = _pooled(run)
        names = list(eng.metrics(sums, n, 1, run.cell.rules).get("level_share", {}))
        counts = np.asarray(sums["level"], dtype=float)
        lo, hi = wilson(counts, n)
        levels_of[row["cell"]] = (names, counts / n, lo, hi, n)
        strat = _strategy_label(runs, row)
        desc = describe_group(gaxes, key_of(row))
        est.append(_est("cell", row["cell"], desc, row[over], strat, 1, "mean_score", row["focus_mean_score"],
                        row["focus_score_lo"], row["focus_score_hi"], run.deals, band))
        est.append(_est("cell", row["cell"], desc, row[over], strat, 1, "median_score", row["focus_score_median"],
                        None, None, run.deals))
        for j, name in enumerate(names):
            est.append(_est("cell", row["cell"], desc, row[over], strat, 1, f"level.{name}", counts[j] / n, lo[j],
                            hi[j], run.deals, top_band if j == len(names) - 1 else None))
    verdicts: dict[Any, tuple[str, dict[str, Any]]] = {}
    by_value = {v: solo.filter(pl.col(over) == v) for v in values}
    for v in values:
        sub = by_value[v]
        if sub.height == 0:
            continue
        sub = sub.sort("focus_mean_score", descending=True)
        best, worst = sub.row(0, named=True), sub.row(sub.height - 1, named=True)
        names, shares, lo, hi, n = levels_of[best["cell"]]
        top = len(names) - 1
        in_band = _inside(best["focus_score_lo"], best["focus_score_hi"], band, best["focus_mean_score"])
        in_top = _inside(float(lo[top]), float(hi[top]), top_band, float(shares[top]))
        verdict = ("plausible" if in_band == in_top == "in" else
                   "implausible" if "out" in (in_band, in_top) else "borderline")
        med = best["focus_score_median"]
        med_level = names[int(np.clip((med - 15) // 5, 0, top))] if med is not None and len(names) == 6 else None
        why = []
        if in_band != "in":
            why.append(f"mean {'outside' if in_band == 'out' else 'at the edge of'} {band[0]:g}-{band[1]:g}")
        if in_top != "in":
            side = ("below" if hi[top] < top_band[0] else "above" if lo[top] >= top_band[1] else "at the edge of")
            why.append(f"{names[top]} {side} {top_band[0] * 100:g}%-{top_band[1] * 100:g}%")
        text = (f"{short(over)} {_label(v)}: {verdict}" + (f" ({'; '.join(why)})" if why else "") + ": "
                f"{_strategy_label(runs, best)} (best of {sub.height} solo strategies) averages "
                f"{best['focus_mean_score']:.1f} ± {_half(best['focus_score_lo'], best['focus_score_hi']):.1f}"
                + (f", median {med:g}" + (f" ({med_level})" if med_level else "") if med is not None else "")
                + f"; {names[top]} in {shares[top] * 100:.1f}% [{lo[top] * 100:.1f}%, {hi[top] * 100:.1f}%] of games; "
                + "levels " + ", ".join(f"{nm} {x * 100:.1f}%" for nm, x in zip(names, shares)))
        if worst["cell"] != best["cell"]:
            text += (f"; {_strategy_label(runs, worst)} averages {worst['focus_mean_score']:.1f} ± "
                     f"{_half(worst['focus_score_lo'], worst['focus_score_hi']):.1f}")
        # the same strategy under the first value, on the same deals
        same = by_value[v0].filter(pl.col("seat0" if cfg.kind == "seats" else "focus") == _strategy(cfg, best))
        if v != v0 and same.height:
            ref = same.row(0, named=True)
            a, b = frames[best["cell"]], frames[ref["cell"]]
            j = a.join(b, on="game", suffix="_ref")
            d = paired_diff(j["focus_score"].to_numpy(), j["focus_score_ref"].to_numpy())
            paired_rows.append({**{ax: best[ax] for ax in gaxes}, "metric": "mean_score", "over": over, "value": v,
                                "versus": v0, "diff": d["diff"], "lo": d["lo"], "hi": d["hi"],
                                "p_value": d["p_value"], "rho": d["rho"], "deals": d["n"]})
            text += f"; vs {_label(v0)}: {d['diff']:+.2f} [{d['lo']:+.2f}, {d['hi']:+.2f}] points (same deals)"
        verdicts[v] = (verdict, best)
        sentences.append(text)

    # ----- multiplayer: first-seat advantage and game length per value of `over`
    multi = cells.filter(pl.col("players") > 1)
    mp_sentences, changes, longest = [], [], None
    groups = {}
    for row in multi.iter_rows(named=True):
        groups.setdefault(key_of(row), []).append(row)
    for key, rows in groups.items():
        rows = {r[over]: r for r in rows}
        first = next(iter(rows.values()))
        P = int(first["players"])
        desc = f"{P} players, {_lineup_label(runs[first['cell']].cell)}"
        adv_parts, len_parts = [], []
        worst_adv = worst_len = None
        for v in values:
            if v not in rows:
                continue
            r = rows[v]
            f = frames[r["cell"]]
            w, wlo, whi = _mean_row(f["seat0_win"].to_numpy())
            t, tlo, thi = _mean_row(f["turns"].to_numpy())
            dgroup = describe_group(gaxes, key)
            est.append(_est("cell", r["cell"], dgroup, v, desc, P, "seat_advantage", w - 1 / P,
                            None if wlo is None else wlo - 1 / P, None if whi is None else whi - 1 / P, r["deals"]))
            est.append(_est("cell", r["cell"], dgroup, v, desc, P, "mean_turns", t, tlo, thi, r["deals"]))
            adv_parts.append(f"{_label(v)} {(w - 1 / P) * 100:+.1f}% ± {_half(wlo, whi) * 100:.1f}%")
            len_parts.append(f"{_label(v)} {t:.1f} ± {_half(tlo, thi):.1f}")
            if v != v0 and v0 in rows:
                g0 = frames[rows[v0]["cell"]]
                j = f.join(g0, on="game", suffix="_ref")
                for metric, col in (("seat_advantage", "seat0_win"), ("mean_turns", "turns")):
                    d = paired_diff(j[col].to_numpy(), j[f"{col}_ref"].to_numpy())
                    paired_rows.append({**{ax: k for ax, k in zip(gaxes, key)}, "metric": metric, "over": over,
                                        "value": v, "versus": v0, "diff": d["diff"], "lo": d["lo"], "hi": d["hi"],
                                        "p_value": d["p_value"], "rho": d["rho"], "deals": d["n"]})
                    slot = (v, d)
                    if metric == "seat_advantage":
                        if worst_adv is None or abs(d["diff"]) > abs(worst_adv[1]["diff"]):
                            worst_adv = slot
                        changes.append((f"{P} players {_label(v)} {d['diff'] * 100:+.1f}% "
                                        f"[{d['lo'] * 100:+.1f}%, {d['hi'] * 100:+.1f}%]", d["p_value"]))
                    elif worst_len is None or abs(d["diff"]) > abs(worst_len[1]["diff"]):
                        worst_len = slot
        text = f"{desc}: first-seat advantage " + ", ".join(adv_parts)
        if worst_adv is not None:
            v, d = worst_adv
            text += (f" (largest change from {_label(v0)}: {_label(v)} {d['diff'] * 100:+.1f}% "
                     f"[{d['lo'] * 100:+.1f}%, {d['hi'] * 100:+.1f}%], p = {d['p_value']:.2g})")
        text += "; game length " + ", ".join(len_parts) + " turns"
        if worst_len is not None:
            v, d = worst_len
            text += f" (largest change {_label(v)} {d['diff']:+.1f} [{d['lo']:+.1f}, {d['hi']:+.1f}])"
            if longest is None or abs(d["diff"]) > abs(longest[2]["diff"]):
                longest = (P, v, d)
        mp_sentences.append(text)

    # ----- the verdict first, in plain words
    plausible = [v for v in values if v in verdicts and verdicts[v][0] == "plausible"]
    border = [v for v in values if v in verdicts and verdicts[v][0] == "borderline"]
    bad = [v for v in values if v in verdicts and verdicts[v][0] == "implausible"]
    names = levels_of[next(iter(levels_of))][0]
    crit = (f"the best solo strategy averages between {band[0]:g} and {band[1]:g} and reaches {names[-1]} in "
            f"{top_band[0] * 100:g}% to {top_band[1] * 100:g}% of its games, both 95% intervals inside")
    if plausible:
        head = (f"{short(over)} {', '.join(map(_label, plausible))} make{'s' if len(plausible) == 1 else ''} the "
                f"level scale plausible")
    else:
        head = f"no {short(over)} makes the level scale plausible"
    head += f" (criterion: {crit})"
    if border:
        head += f"; borderline: {', '.join(map(_label, border))}"
    if bad:
        head += f"; implausible: {', '.join(map(_label, bad))}"
    means = [(v, verdicts[v][1]) for v in values if v in verdicts]
    lo_v, lo_row = min(means, key=lambda t: t[1]["focus_mean_score"])
    hi_v, hi_row = max(means, key=lambda t: t[1]["focus_mean_score"])
    head += (f". The best heuristic's solo average ranges from "
             f"{_pm('mean_score', lo_row['focus_mean_score'], lo_row['focus_score_lo'], lo_row['focus_score_hi'])} "
             f"({short(over)} {_label(lo_v)}) to "
             f"{_pm('mean_score', hi_row['focus_mean_score'], hi_row['focus_score_lo'], hi_row['focus_score_hi'])} "
             f"({short(over)} {_label(hi_v)})")
    if changes:
        clear = [c for c, r in zip(changes, _holm([p for _, p in changes])) if r]
        head += (". The first-seat advantage " + (f"changes clearly with {short(over)} for "
                                                    + "; ".join(t for t, _ in clear) if clear else
                                                    f"does not change clearly with {short(over)} for any player count")
                 + f" (each value paired against {short(over)} {_label(v0)} on the same deals; Holm's correction over "
                 f"the {len(changes)} comparisons)")
    if longest is not None:
        P, v, d = longest
        clear = d["lo"] > 0 or d["hi"] < 0
        head += (f"; the game length {'changes' if clear else 'does not change clearly'}: the largest change is "
                 f"{d['diff']:+.1f} turns [{d['lo']:+.1f}, {d['hi']:+.1f}] ({short(over)} {_label(v)} against "
                 f"{_label(v0)}, {P} players)")
    return [head] + sentences + mp_sentences, frame(paired_rows), frame(est)


def answer_balance(cfg: Config, cells: pl.DataFrame, runs: list[CellRun]):
    """Does seat 0 (the first player) win more than 1/P, for every value of ``over`` (e.g. a pairing of
    strategies, rotated so that each plays every seat) and pooled per group; plus the game's ratio metrics
    named in report.metrics, pooled over every cell. Intervals over deals."""
    rep = cfg.report
    over = rep.over
    gaxes = cfg.group_axes
    defs = _metric_defs(cfg)
    frames = {i: deal_frame(cfg, runs[i], defs) for i in cells["cell"].to_list()}
    est, sentences = [], []

    def metric_rows(scope, cell, group, case, strat, P, f, deals):
        for m in defs:
            v, lo, hi = _ratio_ci(f[f"num.{m.name}"].to_numpy(), f[f"den.{m.name}"].to_numpy())
            est.append(_est(scope, cell, group, case, strat, P, m.name, v, lo, hi, deals))

    for key, sub in _groups(cells, gaxes):
        desc = describe_group(gaxes, key)
        P = int(sub["players"][0])
        above, below, best, tests = [], [], None, []
        for row in sub.iter_rows(named=True):
            f = frames[row["cell"]]
            strat = _lineup_label(runs[row["cell"]].cell)
            w, lo, hi = _mean_row(f["seat0_win"].to_numpy())
            est.append(_est("cell", row["cell"], desc, row[over], strat, P, "seat0_win_share", w, lo, hi, f.height))
            metric_rows("cell", row["cell"], desc, row[over], strat, P, f, f.height)
            x = f["seat0_win"].to_numpy()
            p = float(_st.ttest_1samp(x, 1 / P).pvalue) if np.ptp(x) > 0 else (1.0 if x[0] == 1 / P else 0.0)
            tests.append((row[over], w, p))
            if best is None or abs(w - 1 / P) > abs(best[1] - 1 / P):
                best = (row[over], w, lo, hi)
        for (case, share, _), rejected in zip(tests, _holm([t[2] for t in tests])):
            if rejected:
                (above if share > 1 / P else below).append(case)
        pooled = _pool([frames[i] for i in sub["cell"].to_list()], defs)
        w, lo, hi = _mean_row(pooled["seat0_win"].to_numpy())
        est.append(_est("group", None, desc, None, None, P, "seat0_win_share", w, lo, hi, pooled.height))
        metric_rows("group", None, desc, None, None, P, pooled, pooled.height)
        clear = lo is not None and (lo > 1 / P or hi < 1 / P)
        rotated = "each lineup played in every seat order" if cfg.rotate else "lineups as listed (not rotated)"
        text = ((f"{desc}: " if desc else "") + f"seat 0 (the first player) wins {w * 100:.1f}% ± "
                f"{_half(lo, hi) * 100:.1f}% of games over the {sub.height} {short(over)}s ({rotated}), "
                f"advantage {(w - 1 / P) * 100:+.1f}% over the fair {100 / P:.0f}%"
                + ("" if clear else ", not clearly different from it")
                + f"; clearly above {100 / P:.0f}% in {len(above)} of {sub.height} {short(over)}s"
                + (f" ({', '.join(map(_label, above))})" if 0 < len(above) <= 6 else "")
                + f", clearly below in {len(below)}"
                + (f" ({', '.join(map(_label, below))})" if 0 < len(below) <= 6 else "")
                + f" (t tests over deals, Holm's correction over the {sub.height})")
        if best is not None:
            text += (f"; largest: {_label(best[0])} {best[1] * 100:.1f}% ± {_half(best[2], best[3]) * 100:.1f}%")
        sentences.append(text)
    if defs:
        pooled = _pool(list(frames.values()), defs)
        metric_rows("all", None, "all cells", None, None, None, pooled, pooled.height)
        allrows = {r["figure"]: r for r in est if r["scope"] == "all"}
        families: dict[str, list[Any]] = {}
        for name in rep.metrics:
            families[name] = [m for m in defs if (m.name.startswith(name[:-1]) if name.endswith("*") else m.name == name)]
        plain = [n for n in rep.metrics if not n.endswith("*")]
        scope = f"over every cell ({len(frames)} cells, {pooled.height:,} deals, each deal counted once)"
        if plain:
            parts = [f"{n} {_pm(n, allrows[n]['value'], allrows[n]['lo'], allrows[n]['hi'])}" for n in plain]
            sentences.append(f"{scope}: " + ", ".join(parts))
        for name in rep.metrics:
            if not name.endswith("*"):
                continue
            prefix = name[:-1]
            ms = sorted(families[name], key=lambda m: -(allrows[m.name]["value"] or -math.inf))
            parts = []
            for m in ms:
                r = allrows[m.name]
                parts.append(f"{m.name[len(prefix):]} {_pm(m.name, r['value'], r['lo'], r['hi'])}")
            sentences.append(f"{prefix.rstrip('_')} {scope}, largest first: " + ", ".join(parts))
    return sentences, frame(est)


# ------------------------------------------------------------------------------ risk and turn order
# Both answers read one row per game (report.per_game): the shares of a cell are Wilson intervals over the
# games played (each rotation of a deal is a game), the paired differences are t intervals over deals.

def _event_rows(cfg: Config, run: CellRun) -> pl.DataFrame:
    """A cell's per-game rows (game, rotation, seat) with ``win`` and, with report.event, ``event`` (0/1)."""
    if not run.games_rows:
        raise ValueError("the risk and turn_order answers need one row per game (report.per_game = true)")
    ev = cfg.report.event
    g = pl.concat(run.games_rows, how="diagonal_relaxed")
    cols = [pl.col("game").cast(pl.Int64), pl.col("rotation").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
            pl.col("win").cast(pl.Float64)]
    if ev is not None:
        cols.append(pl.col(ev).cast(pl.Float64).alias("event"))
    g = g.select(cols)
    if ev is not None:
        bad = g.filter(~pl.col("event").is_in([0.0, 1.0]))
        if bad.height:
            raise SenseiError(f"report.event: {ev} is not a 0/1 column of {cfg.game} (it holds {bad['event'][0]:g})")
    return g


def _share(k: float, n: float) -> tuple[float | None, float | None, float | None]:
    """A share k/n with its Wilson 95% interval (None when n is 0)."""
    if n <= 0:
        return None, None, None
    lo, hi = wilson(k, n)
    return k / n, float(lo), float(hi)


def _ci(x: float | None, lo: float | None, hi: float | None) -> str:
    """``31.2% [30.1%, 32.3%]``."""
    if x is None:
        return "n/a"
    if lo is None or hi is None:
        return f"{x * 100:.1f}%"
    return f"{x * 100:.1f}% [{lo * 100:.1f}%, {hi * 100:.1f}%]"


def _dci(d: dict[str, Any]) -> str:
    """A paired difference ``+1.2% [+0.3%, +2.1%]``."""
    if d["lo"] is None or not math.isfinite(d["lo"]):
        return f"{d['diff'] * 100:+.1f}%"
    return f"{d['diff'] * 100:+.1f}% [{d['lo'] * 100:+.1f}%, {d['hi'] * 100:+.1f}%]"


def _direction(d: dict[str, Any]) -> int:
    """+1 / -1 when the paired interval lies wholly above / below 0, else 0."""
    lo, hi = d["lo"], d["hi"]
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return 0
    return 1 if lo > 0 else -1 if hi < 0 else 0


def _linearised(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """Per-deal pseudo-values of the ratio R = sum(x) / sum(y): R + (x - R y) / mean(y) (the ratio
    estimator's delta method). Their mean is R; paired t on two cells' pseudo-values gives the paired
    difference of two ratios over the same deals."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if y.sum() <= 0:
        return None
    r = x.sum() / y.sum()
    return r + (x - r * y) / y.mean()


def _paired_row(gaxes: list[str], key: tuple, metric: str, over: str, value: Any, versus: Any,
                d: dict[str, Any], **extra) -> dict[str, Any]:
    return {**{a: v for a, v in zip(gaxes, key)}, "metric": metric, "over": over, "value": _label(value),
            "versus": _label(versus), **extra, "diff": d["diff"], "lo": _num(d["lo"]), "hi": _num(d["hi"]),
            "p_value": _num(d["p_value"]), "rho": _num(d["rho"]), "deals": d["n"]}


def _baseline_of(cfg: Config, values: list[Any]) -> Any:
    return cfg.report.baseline if cfg.report.baseline is not None else values[0]


def answer_risk(cfg: Config, cells: pl.DataFrame, runs: list[CellRun]):
    """The focus's risk of the event (report.event, e.g. being eliminated), its win share, and its win share
    in the games where the event did not happen, for every value of ``over`` and group; each value paired
    deal by deal against the baseline (default: the first value)."""
    rep = cfg.report
    ev, over, gaxes = rep.event, rep.over, cfg.group_axes
    f_ev, f_win, f_cond = f"{ev}_share", "win_share", f"win_share_if_not_{ev}"
    sentences, paired_rows, est = [], [], []
    for key, sub in _groups(cells, gaxes):
        desc = describe_group(gaxes, key)
        P = int(sub["players"][0])
        figs: dict[Any, dict[str, Any]] = {}
        for i in sub["cell"].to_list():
            run = runs[i]
            g = _event_rows(cfg, run)
            held = pl.DataFrame({"rotation": [r for r, seats in run.rotations for _ in seats],
                                 "seat": [s for _, seats in run.rotations for s in seats]},
                                schema={"rotation": pl.Int64, "seat": pl.Int64})
            deals = (g.join(held, on=["rotation", "seat"]).group_by("game")
                     .agg(pl.len().cast(pl.Float64).alias("plays"), pl.col("win").sum(), pl.col("event").sum(),
                          (pl.col("win") * (1 - pl.col("event"))).sum().alias("win_clear"),
                          (1 - pl.col("event")).sum().alias("clear"))
                     .sort("game"))
            n = float(deals["plays"].sum())
            e, w, wc, c = (float(deals[k].sum()) for k in ("event", "win", "win_clear", "clear"))
            value = run.cell.axes[over]
            fig = {"cell": i, "deals": deals, "games": n, "clear": c, "focus": short_spec(run.cell.agents[0]),
                   "field": short_spec(run.cell.agents[1]) if P > 1 else None,
                   f_ev: _share(e, n), f_win: _share(w, n), f_cond: _share(wc, c)}
            figs[value] = fig
            for name in (f_ev, f_win, f_cond):
                est.append(_est("cell", i, desc, value, fig["focus"], P, name, *fig[name], deals.height))
        values = list(figs)
        base = _baseline_of(cfg, values)
        fields = {f["field"] for f in figs.values()}
        against = (f" against {fields.pop()} in every other seat" if len(fields) == 1 and P > 1 else "")

        def top(name: str, best: str) -> tuple[Any, dict]:
            pick = min if best == "min" else max
            return pick(((v, f) for v, f in figs.items() if f[name][0] is not None), key=lambda t: t[1][name][0])

        lo_v, lo_f = top(f_ev, "min")
        hi_v, hi_f = top(f_win, "max")
        cv, cf = top(f_cond, "max")
        sentences.append(
            (f"{desc}{against}: " if desc else (f"{against.strip()}: " if against else ""))
            + f"least often {ev}: {_label(lo_v)}, {_ci(*lo_f[f_ev])}; most wins: {_label(hi_v)}, {_ci(*hi_f[f_win])} "
            f"(fair share {100 / P:.1f}%); most wins when not {ev}: {_label(cv)}, {_ci(*cf[f_cond])}")
        bf = figs.get(base)
        for value, f in figs.items():
            text = (f"{_label(value)}" + (f" ({desc})" if desc else "") + f": {ev} in {_ci(*f[f_ev])} of its "
                    f"{f['games']:,.0f} games, wins {_ci(*f[f_win])}, and wins {_ci(*f[f_cond])} of the "
                    f"{f['clear']:,.0f} games it was not {ev} in")
            if bf is not None and value != base:
                j = f["deals"].join(bf["deals"], on="game", suffix="_ref")
                d_ev = paired_diff((j["event"] / j["plays"]).to_numpy(), (j["event_ref"] / j["plays_ref"]).to_numpy())
                d_win = paired_diff((j["win"] / j["plays"]).to_numpy(), (j["win_ref"] / j["plays_ref"]).to_numpy())
                a = _linearised(j["win_clear"].to_numpy(), j["clear"].to_numpy())
                b = _linearised(j["win_clear_ref"].to_numpy(), j["clear_ref"].to_numpy())
                d_cond = paired_diff(a, b) if a is not None and b is not None else None
                parts = [f"{ev} {_dci(d_ev)}", f"win share {_dci(d_win)}"]
                for name, d in ((f_ev, d_ev), (f_win, d_win), (f_cond, d_cond)):
                    if d is not None:
                        paired_rows.append(_paired_row(gaxes, key, name, over, value, base, d))
                if d_cond is not None:
                    parts.append(f"win share when not {ev} {_dci(d_cond)}")
                risk = {-1: f"less often {ev}", 1: f"more often {ev}", 0: f"not clearly more or less often {ev}"}
                wins = {1: "wins more", -1: "wins less", 0: "no clear change in wins"}
                text += (f"; vs {_label(base)} on the same deals: " + ", ".join(parts)
                         + f" ({risk[_direction(d_ev)]}, {wins[_direction(d_win)]})")
            sentences.append(text)
    return sentences, frame(paired_rows), frame(est)


def answer_turn_order(cfg: Config, cells: pl.DataFrame, runs: list[CellRun]):
    """Each table seat's win share (and, with report.event, its event rate, e.g. elimination) for every value
    of ``over`` and group, with a chi-square test of equal seats; each value paired deal by deal against the
    baseline (default: the first value), seat by seat."""
    rep = cfg.report
    ev, over, gaxes = rep.event, rep.over, cfg.group_axes
    names = ["win_share"] + ([f"{ev}_share"] if ev else [])
    sentences, paired_rows, est = [], [], []
    for key, sub in _groups(cells, gaxes):
        desc = describe_group(gaxes, key)
        P = int(sub["players"][0])
        figs: dict[Any, dict[str, Any]] = {}
        for i in sub["cell"].to_list():
            run = runs[i]
            g = _event_rows(cfg, run)
            aggs = [pl.col("win").mean()] + ([pl.col("event").mean()] if ev else [])
            per = g.group_by(["game", "seat"]).agg(aggs).sort(["game", "seat"])   # a deal's rotations averaged
            n = float(g.filter(pl.col("seat") == 0).height)                          # games per seat
            wins = np.array([float(g.filter(pl.col("seat") == s)["win"].sum()) for s in range(P)])
            fig = {"cell": i, "per": per, "games": n, "lineup": _lineup_label(run.cell),
                   "p": float(_st.chisquare(wins).pvalue) if wins.sum() > 0 and P > 1 else None,
                   "win_share": [_share(wins[s], n) for s in range(P)]}
            if ev:
                fig[names[1]] = [_share(float(g.filter(pl.col("seat") == s)["event"].sum()), n) for s in range(P)]
            value = run.cell.axes[over]
            figs[value] = fig
            deals = per["game"].n_unique()
            for name in names:
                for s, (x, lo, hi) in enumerate(fig[name]):
                    est.append({**_est("cell", i, desc, value, fig["lineup"], P, name, x, lo, hi, deals), "seat": s})
        values = list(figs)
        base = _baseline_of(cfg, values)
        bf = figs.get(base)
        diffs: dict[Any, dict[str, list[dict[str, Any]]]] = {}
        for value, f in figs.items():
            if bf is None or value == base:
                continue
            j = f["per"].join(bf["per"], on=["game", "seat"], suffix="_ref")
            diffs[value] = {}
            for name, col in zip(names, ["win", "event"]):
                ds = []
                for s in range(P):
                    js = j.filter(pl.col("seat") == s)
                    d = paired_diff(js[col].to_numpy(), js[f"{col}_ref"].to_numpy())
                    ds.append(d)
                    paired_rows.append(_paired_row(gaxes, key, name, over, value, base, d, seat=s))
                diffs[value][name] = ds
        # the group's headline: seat 0 under the baseline, and how each value moves it
        head_f = bf if bf is not None else figs[values[0]]
        x0, lo0, hi0 = head_f["win_share"][0]
        shares = [w[0] or 0.0 for w in head_f["win_share"]]
        text = ((f"{desc}, " if desc else "") + f"{head_f['lineup']}, {short(over)} {_label(base)}: seat 0 (the first "
                f"player) wins {_ci(x0, lo0, hi0)} against the fair {100 / P:.1f}% (advantage {(x0 - 1 / P) * 100:+.1f}%"
                + (", clearly" if lo0 is not None and (lo0 > 1 / P or hi0 < 1 / P) else ", not clearly")
                + f" different from it); best seat {int(np.argmax(shares))}, worst seat {int(np.argmin(shares))}")
        if ev:
            e = head_f[names[1]]
            text += f"; {ev}: seat 0 {_ci(*e[0])}, seat {P - 1} {_ci(*e[P - 1])}"
        moves = [f"{_label(v)} {_dci(d['win_share'][0])}" for v, d in diffs.items()]
        if moves:
            text += "; seat 0's win share changes on the same deals with " + ", ".join(moves)
        sentences.append(text)
        for value, f in figs.items():
            text = ((f"{desc}, " if desc else "") + f"{short(over)} {_label(value)}: win share "
                    + ", ".join(f"seat {s} {_ci(*x)}" for s, x in enumerate(f["win_share"]))
                    + f" (fair {100 / P:.1f}%" + (f"; chi-square test of equal seats p = {f['p']:.2g}" if f["p"] is not None
                                                 else "") + ")")
            if ev:
                text += f"; {ev} " + ", ".join(f"seat {s} {_ci(*x)}" for s, x in enumerate(f[names[1]]))
            if value in diffs:
                text += f"; vs {_label(base)} on the same deals: win share " + ", ".join(
                    f"seat {s} {_dci(d)}" for s, d in enumerate(diffs[value]["win_share"]))
                if ev:
                    text += f"; {ev} " + ", ".join(f"seat {s} {_dci(d)}" for s, d in enumerate(diffs[value][names[1]]))
            sentences.append(text)
    return sentences, frame(paired_rows), frame(est)


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
    elif kind == "calibration":
        answer, paired, tables["estimates"] = answer_calibration(cfg, cells, runs)
    elif kind == "balance":
        answer, tables["estimates"] = answer_balance(cfg, cells, runs)
    elif kind == "risk":
        answer, paired, tables["estimates"] = answer_risk(cfg, cells, runs)
    elif kind == "turn_order":
        answer, paired, tables["estimates"] = answer_turn_order(cfg, cells, runs)
    else:
        answer = answer_sprt(cfg, tables["sprt"], cells)
    tables["paired"] = paired
    games = [g for r in runs for g in r.games_rows]
    if games:
        tables["games"] = pl.concat(games, how="diagonal_relaxed")
    return {"tables": tables, "answer": answer}
