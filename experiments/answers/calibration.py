"""``calibration``: which values of a rule option with uncertain data make a solo level scale plausible.

Config keys: ``report.score_band`` and ``report.top_share`` (both required); the game must report a
one-hot ``level`` outcome column and the grid must hold at least one solo cell.
"""
from __future__ import annotations

import dataclasses

from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from simcore.registry import get_game
from simcore.stats import half_width, holm, inside_band, mean_interval, paired_diff, wilson

from ..config import ABSENT
from .base import AnswerKind, CheckContext, ReportContext, Result
from .common import ci_cell, label
from .common import (dci_text, p_text, describe_group, join_values, deal_frame, est_row, experiment_labels, frame, lineup_label, pm_metric, pm_text, pooled_totals, seat0_advantage, short, show,
                     strategy_label)

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def strategy_of(cfg: Config, row: dict[str, Any]) -> str:
    return row.get("seat0") if cfg.kind == "seats" else row.get("focus")


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
    labels = experiment_labels(cfg)

    def key_of(row):
        return tuple(row[a] for a in gaxes)

    # ----- solo: level shares and the criterion, per value of `over`
    solo = cells.filter(pl.col("players") == 1)
    levels_of = {}
    for row in solo.iter_rows(named=True):
        run = runs[row["cell"]]
        n, sums, _, _ = pooled_totals(run)
        names = list(eng.metrics(sums, n, 1, run.cell.rules).get("level_share", {}))
        counts = np.asarray(sums["level"], dtype=float)
        lo, hi = wilson(counts, n)
        levels_of[row["cell"]] = (names, counts / n, lo, hi, n)
        strat = strategy_label(runs, row, labels)
        desc = describe_group(gaxes, key_of(row), labels)
        est.append(est_row("cell", row["cell"], desc, row[over], strat, 1, "mean_score", row["focus_mean_score"],
                        row["focus_score_lo"], row["focus_score_hi"], run.deals, band))
        est.append(est_row("cell", row["cell"], desc, row[over], strat, 1, "median_score", row["focus_score_median"],
                        None, None, run.deals))
        for j, name in enumerate(names):
            est.append(est_row("cell", row["cell"], desc, row[over], strat, 1, f"level.{name}", counts[j] / n, lo[j],
                            hi[j], run.deals, top_band if j == len(names) - 1 else None))
    verdicts: dict[Any, tuple[str, dict[str, Any]]] = {}
    by_value = {v: solo.filter(pl.col(over) == v) for v in values}
    def judge(row) -> tuple[str, list[str]]:
        """A solo strategy's verdict under the criterion, and why where it is not plausible."""
        names, shares, lo, hi, _ = levels_of[row["cell"]]
        top = len(names) - 1
        in_band = inside_band(row["focus_score_lo"], row["focus_score_hi"], band, row["focus_mean_score"])
        in_top = inside_band(float(lo[top]), float(hi[top]), top_band, float(shares[top]))
        verdict = ("plausible" if in_band == in_top == "in" else
                   "implausible" if "out" in (in_band, in_top) else "borderline")
        why = []
        if in_band != "in":
            why.append(f"mean {'outside' if in_band == 'out' else 'at the edge of'} {band[0]:g}-{band[1]:g}")
        if in_top != "in":
            side = ("below" if hi[top] < top_band[0] else "above" if lo[top] >= top_band[1] else "at the edge of")
            why.append(f"{names[top]} {side} {top_band[0] * 100:g}%-{top_band[1] * 100:g}%")
        return verdict, why

    for v in values:
        sub = by_value[v]
        if sub.height == 0:
            continue
        sub = sub.sort("focus_mean_score", descending=True)
        best, worst = sub.row(0, named=True), sub.row(sub.height - 1, named=True)
        names, shares, lo, hi, n = levels_of[best["cell"]]
        top = len(names) - 1
        verdict, why = judge(best)
        # good play is the best solo strategy, and every other one not clearly worse on the same deals: the
        # verdict holds only where it holds for each of them (planner and focus differ by 0.09 [-0.01, +0.19]
        # points under sticks C: which one led was chance, and focus reached Grandmaster in 1.3% [0.99%, 1.70%])
        tied = []
        for other in sub.iter_rows(named=True):
            if other["cell"] == best["cell"]:
                continue
            j = frames[other["cell"]].join(frames[best["cell"]], on="game", suffix="_best")
            d = paired_diff(j["focus_score"].to_numpy(), j["focus_score_best"].to_numpy())
            if not (d["lo"] > 0 or d["hi"] < 0):
                tied.append((other, d, *judge(other)))
        if tied and any(t[2] != verdict for t in tied):
            own = f"{strategy_label(runs, best, labels)} is {verdict}" + (f" ({'; '.join(why)})" if why else "")
            verdict = "borderline"
            why = [own] + [f"{strategy_label(runs, t[0], labels)}, not clearly worse, is {t[2]}"
                           + (f" ({'; '.join(t[3])})" if t[3] else "") for t in tied]
        med = best["focus_score_median"]
        med_level = names[int(np.clip((med - 15) // 5, 0, top))] if med is not None and len(names) == 6 else None
        text = (f"{short(over)} {show(v)}: {verdict}" + (f" ({'; '.join(why)})" if why else "") + ": "
                f"{strategy_label(runs, best, labels)} (best of {sub.height} solo strategies) averages "
                f"{pm_text('mean_score', best['focus_mean_score'], best['focus_score_lo'], best['focus_score_hi'])}"
                + (f", median {med:g}" + (f" ({med_level})" if med_level else "") if med is not None else "")
                + f"; {names[top]} in {shares[top] * 100:.1f}% [{_bound(lo[top], top_band)}%, "
                  f"{_bound(hi[top], top_band)}%] of games; "
                + "levels " + ", ".join(f"{nm} {x * 100:.1f}%" for nm, x in zip(names, shares)))
        for other, d, _, _ in tied:
            o_names, o_shares, o_lo, o_hi, _ = levels_of[other["cell"]]
            text += (f"; {strategy_label(runs, other, labels)} is not clearly worse on the same deals "
                     f"({d['diff']:+.2f} [{d['lo']:+.2f}, {d['hi']:+.2f}] points): it averages "
                     f"{pm_text('mean_score', other['focus_mean_score'], other['focus_score_lo'], other['focus_score_hi'])}"
                     f", {o_names[-1]} in {o_shares[-1] * 100:.1f}% [{_bound(o_lo[-1], top_band)}%, "
                     f"{_bound(o_hi[-1], top_band)}%] of games")
        if worst["cell"] != best["cell"] and all(t[0]["cell"] != worst["cell"] for t in tied):
            text += (f"; {strategy_label(runs, worst, labels)} averages "
                     f"{pm_text('mean_score', worst['focus_mean_score'], worst['focus_score_lo'], worst['focus_score_hi'])}")
        # the same strategy under the first value, on the same deals
        same = by_value[v0].filter(pl.col("seat0" if cfg.kind == "seats" else "focus") == strategy_of(cfg, best))
        if v != v0 and same.height:
            ref = same.row(0, named=True)
            a, b = frames[best["cell"]], frames[ref["cell"]]
            j = a.join(b, on="game", suffix="_ref")
            d = paired_diff(j["focus_score"].to_numpy(), j["focus_score_ref"].to_numpy())
            paired_rows.append({**{ax: best[ax] for ax in gaxes}, "metric": "mean_score", "over": over, "value": v,
                                "versus": v0, "diff": d["diff"], "lo": d["lo"], "hi": d["hi"],
                                "p_value": d["p_value"], "rho": d["rho"], "deals": d["n"]})
            text += (f"; vs {strategy_label(runs, best, labels)} under {short(over)} {show(v0)}: {d['diff']:+.2f} "
                     f"[{d['lo']:+.2f}, {d['hi']:+.2f}] points (same deals)")
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
        desc = f"{P} players, {lineup_label(runs[first['cell']].cell, labels)}"
        adv_parts, len_parts = [], []
        worst_adv = worst_len = None
        for v in values:
            if v not in rows:
                continue
            r = rows[v]
            f = frames[r["cell"]]
            # seat 0's share less the average seat's (the fair 1/P where every game has a winner), per deal
            a, alo, ahi = mean_interval(seat0_advantage(f, P))
            t, tlo, thi = mean_interval(f["turns"].to_numpy())
            dgroup = describe_group(gaxes, key, labels)
            est.append(est_row("cell", r["cell"], dgroup, v, desc, P, "seat_advantage", a, alo, ahi, r["deals"]))
            est.append(est_row("cell", r["cell"], dgroup, v, desc, P, "mean_turns", t, tlo, thi, r["deals"]))
            adv_parts.append(f"{show(v)} " + pm_metric("seat_advantage", a, alo, ahi, True, bounds=(-1 / P, 1 - 1 / P)))
            len_parts.append(f"{show(v)} {t:.1f} ± {half_width(tlo, thi):.1f}")
            if v != v0 and v0 in rows:
                g0 = frames[rows[v0]["cell"]]
                j = f.with_columns(adv=pl.Series(seat0_advantage(f, P))).join(
                    g0.with_columns(adv=pl.Series(seat0_advantage(g0, P))), on="game", suffix="_ref")
                for metric, col in (("seat_advantage", "adv"), ("mean_turns", "turns")):
                    d = paired_diff(j[col].to_numpy(), j[f"{col}_ref"].to_numpy())
                    paired_rows.append({**{ax: k for ax, k in zip(gaxes, key)}, "metric": metric, "over": over,
                                        "value": v, "versus": v0, "diff": d["diff"], "lo": d["lo"], "hi": d["hi"],
                                        "p_value": d["p_value"], "rho": d["rho"], "deals": d["n"]})
                    slot = (v, d)
                    if metric == "seat_advantage":
                        if worst_adv is None or abs(d["diff"]) > abs(worst_adv[1]["diff"]):
                            worst_adv = slot
                        changes.append((f"{P} players {show(v)} {dci_text(d)}", d["p_value"]))
                    elif worst_len is None or abs(d["diff"]) > abs(worst_len[1]["diff"]):
                        worst_len = slot
        text = f"{desc}: first-seat advantage " + ", ".join(adv_parts)
        if worst_adv is not None:
            v, d = worst_adv
            text += (f" (largest change from {show(v0)}: {show(v)} {dci_text(d)}, p = {p_text(d['p_value'])} before "
                     "Holm's correction over every comparison, which the first sentence applies)")
        text += "; game length " + ", ".join(len_parts) + " turns"
        if worst_len is not None:
            v, d = worst_len
            text += f" (largest change {show(v)} {d['diff']:+.1f} [{d['lo']:+.1f}, {d['hi']:+.1f}])"
            if longest is None or abs(d["diff"]) > abs(longest[2]["diff"]):
                longest = (P, v, d)
        mp_sentences.append(text)

    # ----- the verdict first, in plain words
    plausible = [v for v in values if v in verdicts and verdicts[v][0] == "plausible"]
    border = [v for v in values if v in verdicts and verdicts[v][0] == "borderline"]
    bad = [v for v in values if v in verdicts and verdicts[v][0] == "implausible"]
    names = levels_of[next(iter(levels_of))][0]
    crit = (f"the best solo strategy, and any other not clearly worse on the same deals, averages between "
            f"{band[0]:g} and {band[1]:g} and reaches {names[-1]} in {top_band[0] * 100:g}% to "
            f"{top_band[1] * 100:g}% of its games, both 95% intervals inside")
    if plausible:
        head = (f"{short(over)} {join_values(map(show, plausible))} make{'s' if len(plausible) == 1 else ''} the "
                f"level scale plausible")
    else:
        head = f"no value of {short(over)} makes the level scale plausible"
    head += f" (criterion: {crit})"
    if border:
        head += f"; borderline: {join_values(map(show, border))}"
    if bad:
        head += f"; implausible: {join_values(map(show, bad))}"
    means = [(v, verdicts[v][1]) for v in values if v in verdicts]
    lo_v, lo_row = min(means, key=lambda t: t[1]["focus_mean_score"])
    hi_v, hi_row = max(means, key=lambda t: t[1]["focus_mean_score"])
    if len(means) == 1:  # (one value: no range)
        head += (f". The best heuristic's solo average is "
                 f"{pm_text('mean_score', lo_row['focus_mean_score'], lo_row['focus_score_lo'], lo_row['focus_score_hi'])}")
    else:
        head += (f". The best heuristic's solo average ranges from "
                 f"{pm_text('mean_score', lo_row['focus_mean_score'], lo_row['focus_score_lo'], lo_row['focus_score_hi'])} "
                 f"({short(over)} {show(lo_v)}) to "
                 f"{pm_text('mean_score', hi_row['focus_mean_score'], hi_row['focus_score_lo'], hi_row['focus_score_hi'])} "
                 f"({short(over)} {show(hi_v)})")
    if changes:
        clear = [c for c, r in zip(changes, holm([p for _, p in changes])) if r]
        head += (". The first-seat advantage " + (f"changes clearly with {short(over)} for "
                                                    + "; ".join(t for t, _ in clear) if clear else
                                                    f"does not change clearly with {short(over)} for any player count")
                 + f" (each value paired against {short(over)} {show(v0)} on the same deals; Holm's correction over "
                 f"the {len(changes)} comparisons)")
    if longest is not None:
        P, v, d = longest
        clear = d["lo"] > 0 or d["hi"] < 0
        head += (f"; the game length {'changes' if clear else 'does not change clearly'}: the largest change is "
                 f"{d['diff']:+.1f} turns [{d['lo']:+.1f}, {d['hi']:+.1f}] ({short(over)} {show(v)} against "
                 f"{show(v0)}, {P} players)")
    return [head] + sentences + mp_sentences, frame(paired_rows), frame(est)


def _band(value: Any, ck, key: str, low: float | None, high: float | None) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        ck.fail(key, "two numbers [low, high]", value)
    lo = ck.number(value[0], f"{key}[0]")
    hi = ck.number(value[1], f"{key}[1]")
    if (low is not None and lo < low) or (high is not None and hi > high) or lo >= hi:
        within = f" within [{low}, {high}]" if low is not None and high is not None else ""
        ck.fail(key, f"two numbers [low, high] with low < high{within}", value)
    return lo, hi


def check(ctx: CheckContext) -> dict[str, Any]:
    ck, t = ctx.ck, ctx.table
    if ctx.lineup == "tournament":
        ck.fail("lineup", "a focus or seats lineup for answer = 'calibration'", "tournament")
    if "level" not in ctx.eng.columns:
        ck.fail("report.answer", "a game that reports a `level` outcome column for answer = 'calibration'",
                ctx.eng.name)
    if not any(c.players == 1 for c in ctx.cells):
        ck.fail("players", "at least one solo cell (players = 1: the level scale is a solo score scale)",
                sorted({c.players for c in ctx.cells}))
    over = ctx.over
    if over == "players":
        ck.fail("report.over", "a sweep axis other than players for answer = 'calibration' (it compares the values of "
                "a rule option, each judged by its solo cells; sweep the player counts as a group axis or as named "
                "cases beside it)", over)
    if over is not None:
        seen: dict[str, Any] = {}
        for c in ctx.cells:
            v = c.axes.get(over)
            seen[repr(v)] = seen.get(repr(v), False) or c.players == 1
        lacking = [k for k, solo in seen.items() if not solo]
        if lacking:
            ck.fail(f"sweep.{over}", "a solo cell (players = 1) for every value of report.over with answer = "
                    "'calibration' (each value is judged by its solo scores)", f"none for {', '.join(lacking)}")
    for key in ("score_band", "top_share"):
        if key not in t:
            ck.fail(f"report.{key}", "this key (required for answer = 'calibration')", ABSENT)
    return {"score_band": _band(t["score_band"], ck, "report.score_band", None, None),
            "top_share": _band(t["top_share"], ck, "report.top_share", 0.0, 1.0)}


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    answer, paired, est = answer_calibration(cfg, tables["cells"], runs)
    return Result(answer, paired, est)


def lead_table(ctx: ReportContext):
    """A row per value of ``over``: the best solo strategy, its mean score and its share of games at the top
    level, each with its 95% interval, next to the band the criterion asks for."""
    est = ctx.t["estimates"]
    if est.height == 0 or "figure" not in est.columns:
        return None
    cell = est.filter(pl.col("scope") == "cell")
    score = cell.filter(pl.col("figure") == "mean_score")
    top = cell.filter(pl.col("figure").str.starts_with("level.") & pl.col("band_lo").is_not_null())
    if score.height == 0:
        return None
    labels = ctx.s.get("labels") or {}
    rows = []
    for case in score["case"].unique(maintain_order=True).to_list():
        sub = score.filter(pl.col("case") == case).sort("value", descending=True, nulls_last=True)
        b = sub.row(0, named=True)
        row = {short(ctx.over): label(labels, case), "best solo strategy": label(labels, b["strategy"]),
               "mean score": ci_cell(b["value"], b["lo"], b["hi"], percent=False),
               "score band": f"{b['band_lo']:g} to {b['band_hi']:g}" if b["band_lo"] is not None else ""}
        t = top.filter((pl.col("case") == case) & (pl.col("strategy") == b["strategy"]))
        if t.height:
            r = t.row(0, named=True)
            level = r["figure"].split(".", 1)[1]
            row[f"{level} share %"] = ci_cell(r["value"], r["lo"], r["hi"], unit=False)
            row[f"{level} band %"] = f"{r['band_lo'] * 100:g} to {r['band_hi'] * 100:g}"
        rows.append(row)
    return pl.DataFrame(rows, schema={k: pl.String for k in rows[0]}) if rows else None


def figures(ctx: ReportContext) -> list:
    """The criterion, the level shares and the solo score distribution of the best solo strategy per value of
    ``over``; then the multiplayer figures (first-seat advantage, game length) per value."""
    from reports import plots

    est, cells, t, over = ctx.t["estimates"], ctx.cells, ctx.t, ctx.over
    out = [plots.calibration_plot(est, over), plots.levels_plot(est, over)]
    solo = cells.filter(pl.col("players") == 1)
    if solo.height:
        col = "seat0" if "seat0" in solo.columns else "focus"
        best = (solo.group_by(col).agg(pl.col("focus_mean_score").mean()).sort("focus_mean_score", descending=True)
                [col][0])
        fig = plots.score_distribution(t["scores"], solo.filter(pl.col(col) == best), [over], "all")
        if fig is not None:  # (the generic caption speaks of every seat and of groups)
            fig = dataclasses.replace(fig, title="Solo scores", caption=(
                f"histogram of the solo final scores of the best solo strategy, {plots.lab(best)}, per "
                f"{plots.short(over)} (from the lowest score played)"))
        out.append(fig)
    out.append(plots.estimate_lines(est, "seat_advantage", plots.short(over), "first-seat advantage (%)",
                                    0.0, 100.0))
    out.append(plots.estimate_lines(est, "mean_turns", plots.short(over), "mean turns per game"))
    return out


def dist(ctx: ReportContext):
    """The solo scores are drawn above: the distributions show the multiplayer cells, without scores."""
    return ctx.cells.filter(pl.col("players") > 1), ctx.axes, False


_ONLY = "nothing unless answer = 'calibration'"
KIND = AnswerKind("calibration", "which values of `over` make the game's solo level scale plausible", analyse,
                  needs_over=True, per_game=True, keys={"score_band": _ONLY, "top_share": _ONLY}, check=check,
                  figures=figures, lead_table=lead_table, dist=dist)


def _bound(x: float, edges: tuple[float, float]) -> str:
    """An interval's end in percent with one decimal, or more where one would round it onto an edge of the
    band it is judged against (0.951% read "1.0%", judged below a band from 1%)."""
    for digits in (1, 2, 3):
        text = f"{x * 100:.{digits}f}"
        if not any(x != e and text == f"{e * 100:.{digits}f}" for e in edges):
            return text
    return text
