"""``design``: the rule options that best meet a designer's objective, per group.

[search] holds rule options (``rules.OPTION``: lists, grids, or continuous ranges for optuna); the lineup is
any focus or seats lineup. The objective is one figure of a cell (``report.objective``):

* ``seat0_win_share``: seat 0's (the first player's) win share, averaged over the lineup's rotations;
* ``seat_advantage``: the same minus the fair share 1/P;
* ``focus_win_share``, ``focus_mean_score``: the focus's (a focus lineup);
* ``mean_turns``: the game length;

to maximise or minimise (``report.goal``), to bring closest to ``report.target``, or into
``report.band = [low, high]``. The settings are raced on common random numbers on the objective's
per-deal values (for a target or band, on the per-deal linearisation of the distance to it: each deal's
signed deviation from the target, with the sign of the setting's mean deviation). Tables: ``race.parquet``
(every raced setting: its objective's mean with a 95% interval, its distance, the paired difference of
its distance from the best's).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from simcore.errors import SenseiError
from simcore.stats import paired_diff, values_ci

from ..search import focus_values, setting_label
from .base import AnswerKind, CheckContext, ReportContext, Result
from .common import describe_group, frame, lineup_label
from .searching import group_axes, parse_search, search_space, split, value_text

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun

OBJECTIVES = {
    "seat0_win_share": "seat 0's win share",
    "seat_advantage": "first-seat advantage",
    "focus_win_share": "the focus's win share",
    "focus_mean_score": "the focus's mean score",
    "mean_turns": "game length",
}


def check(ctx: CheckContext) -> dict[str, Any]:
    ck, t = ctx.ck, ctx.table
    spec, _ = parse_search(ctx, set(), "rule options to choose (rules.OPTION)")
    for p in spec.params:
        if p.role != "rules":
            ck.fail(f"search.{p.key}", "a rule option (rules.OPTION): a design search chooses rules", p.role)
    objective = t.get("objective")
    if objective is None:
        ck.fail("report.objective", "the figure to optimise (one of " + ", ".join(OBJECTIVES) + ")", "nothing")
    if objective not in OBJECTIVES:
        ck.fail("report.objective", "one of " + ", ".join(OBJECTIVES), objective)
    if objective.startswith("focus") and ctx.lineup != "focus":
        ck.fail("report.objective", f"seat0_win_share, seat_advantage or mean_turns for a {ctx.lineup} lineup",
                objective)
    target, band = t.get("target"), t.get("band")
    if target is not None and band is not None:
        ck.fail("report.band", "nothing with report.target (one objective: a target or a band)", band)
    if target is not None:
        target = ck.number(target, "report.target")
    if band is not None:
        if not isinstance(band, list) or len(band) != 2:
            ck.fail("report.band", "two numbers [low, high]", band)
        lo, hi = ck.number(band[0], "report.band[0]"), ck.number(band[1], "report.band[1]")
        if lo >= hi:
            ck.fail("report.band", "two numbers [low, high] with low < high", band)
        band = (lo, hi)
    goal = ctx.table.get("goal")
    if goal is not None and (target is not None or band is not None):
        ck.fail("report.goal", "nothing with a target or a band", goal)
    if goal is None and target is None and band is None:
        ck.fail("report.goal", "max or min, or report.target or report.band (what the design aims at)", "nothing")
    for cell in ctx.cells:
        for s in (spec.settings() if spec.discrete else []):
            _rules(ctx.eng, cell, s, ck)
    spec.options.update({"objective": objective, "target": target, "band": band, "goal": goal or "max"})
    spec.estimate = lambda cfg: sum(len(c.rotations(cfg.rotate)) for c in cfg.cells) * cfg.games * (
        len(spec.settings()) if spec.discrete else spec.trials)
    return {"search": spec}


def _rules(eng, cell, setting: dict[str, Any], ck=None):
    values = {**cell.rules.as_dict(), **split(setting).get("rules", {})}
    try:
        rules = eng.make_rules(values)
        eng.validate(cell.players, rules)
    except SenseiError as exc:
        if ck is None:
            raise
        raise SenseiError(f"{ck.path}: search.{','.join(setting)}: {exc}") from None
    return rules


def raw_values(objective: str, run) -> np.ndarray:
    if objective in ("seat0_win_share", "seat_advantage"):
        x = focus_values(run, "seat0_win")
        return x - 1.0 / run.cell.players if objective == "seat_advantage" else x
    if objective == "focus_win_share":
        return focus_values(run, "win")
    if objective == "focus_mean_score":
        return focus_values(run, "score")
    return focus_values(run, "turns")


def distance_values(x: np.ndarray, target: float | None, band: tuple[float, float] | None) -> np.ndarray:
    """Per-deal values whose mean is minus the distance of mean(x) from the target (or band)."""
    m = float(x.mean())
    if target is not None:
        return -(1.0 if m >= target else -1.0) * (x - target)
    lo, hi = band
    if m < lo:
        return x - lo
    if m > hi:
        return hi - x
    return np.zeros_like(x)


def search(cfg: Config, ev) -> list:
    from simcore.registry import get_game

    spec = cfg.report.search
    o = spec.options
    eng = get_game(cfg.game)
    aim = o["target"] is not None or o["band"] is not None
    out = []
    for g, cell in enumerate(cfg.cells):
        axes = group_axes(cfg, cell)

        def runs_of(setting, cell=cell, axes=axes):
            return [ev.lineup(cell, list(cell.agents), axes, None if cfg.kind != "focus" else
                              ["focus"] + ["field"] * (cell.players - 1), rules=_rules(eng, cell, setting))]

        def values_of(runs, stop):
            x = raw_values(o["objective"], runs[0])[:stop]
            return distance_values(x, o["target"], o["band"]) if aim else x

        found = search_space(ev, cfg, spec, runs_of, values_of, "max" if aim else o["goal"], seed_key=g)
        ev.bar.update(cells=1)
        out.append((cell, found))
    return out


def _aim_text(o) -> str:
    label = OBJECTIVES[o["objective"]]
    if o["target"] is not None:
        return f"{label} closest to {value_text(o['objective'], o['target'])}"
    if o["band"] is not None:
        lo, hi = o["band"]
        return f"{label} within {value_text(o['objective'], lo)}-{value_text(o['objective'], hi)}"
    return f"{'highest' if o['goal'] == 'max' else 'lowest'} {label}"


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun], state) -> Result:
    spec = cfg.report.search
    o = spec.options
    obj = o["objective"]
    aim = o["target"] is not None or o["band"] is not None
    keys = ", ".join(p.key.partition(".")[2] for p in spec.params)
    sentences, rows, paired = [], [], []
    for cell, found in state:
        base = {a: cell.axes[a] for a in cfg.axes}
        desc = describe_group(cfg.axes, tuple(base.values()))
        r = found.race
        figs = {}
        for k, i in enumerate(found.raced):
            run = found.runs[i][0]
            x = raw_values(obj, run)[:r.deals[k]]
            figs[k] = (x, values_ci(x))
        bx, (bm, blo, bhi) = figs[r.best]
        text = (f"best {keys}" + (f" for {desc}" if desc else "") + f" ({_aim_text(o)}; {lineup_label(cell)}): "
                f"{setting_label(found.best)}, {OBJECTIVES[obj]} {value_text(obj, bm)} [{value_text(obj, blo)}, "
                f"{value_text(obj, bhi)}] over {r.deals[r.best]:,} deals")
        if aim:
            text += f", distance {value_text(obj, -r.means[r.best])}"
        rivals = sorted((k for k in range(len(found.raced)) if k != r.best), key=lambda k: abs(r.versus_best[k]["diff"]))
        parts = []
        for k in rivals[:3]:
            d = r.versus_best[k]
            x, (m, lo, hi) = figs[k]
            what = (f"{value_text(obj, -d['diff'], True)} farther [{value_text(obj, -d['hi'], True)}, "
                    f"{value_text(obj, -d['lo'], True)}]") if aim else (
                f"{value_text(obj, d['diff'], True)} [{value_text(obj, d['lo'], True)}, {value_text(obj, d['hi'], True)}]")
            parts.append(f"{setting_label(found.settings[found.raced[k]])} {value_text(obj, m)} ({what} on "
                         f"{d['n']:,} deals)")
        if parts:
            text += "; closest rivals on the same deals: " + "; ".join(parts)
        dropped = sum(1 for d in r.dropped_in if d is not None)
        text += (f"; {len(found.raced)} settings raced, {dropped} dropped as clearly worse, {len(r.survivors)} still "
                 f"in the race; {found.games:,} games")
        sentences.append(text)
        for k, i in enumerate(found.raced):
            s = found.settings[i]
            x, (m, lo, hi) = figs[k]
            d = r.versus_best[k]
            rows.append({**base, **s, "setting": setting_label(s), "metric": obj, "deals": r.deals[k], "value": m,
                         "lo": lo, "hi": hi, "distance": -r.means[k] if aim else None,
                         "fair_share": (1.0 / cell.players) if obj == "seat0_win_share" else
                         (o["target"] if o["target"] is not None else None),
                         "best": k == r.best, "survived": k in r.survivors, "dropped_in_round": r.dropped_in[k],
                         "objective_diff_vs_best": None if d is None else d["diff"],
                         "objective_diff_lo": None if d is None else d["lo"],
                         "objective_diff_hi": None if d is None else d["hi"]})
            if d is not None:
                bx_common = bx[:x.size]
                pd_ = paired_diff(x, bx_common)
                paired.append({**base, "metric": obj, "over": keys, "value": setting_label(s),
                               "versus": setting_label(found.best), "diff": pd_["diff"], "lo": pd_["lo"],
                               "hi": pd_["hi"], "p_value": pd_["p_value"], "rho": pd_["rho"], "deals": pd_["n"]})
    return Result(sentences, frame(paired), None, {"race": frame(rows)})


def figures(ctx: ReportContext) -> list:
    from .best_response import race_figure

    return [race_figure(ctx.t.get("race"), ctx.gaxes, "Design search",
                        "the objective of every raced setting with its 95% interval; filled: still in the race, "
                        "the best ringed; dotted: the target (or the fair share)")]


KIND = AnswerKind("design", "the rule options that best meet a designer's objective", analyse, check=check,
                  tables=("search",), lineups=("focus", "seats"), search=search, figures=figures,
                  keys={"objective": "nothing unless answer = 'design'", "target": "nothing unless answer = 'design'",
                        "band": "nothing unless answer = 'design'"})
