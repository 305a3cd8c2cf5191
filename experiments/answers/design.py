"""``design``: the rule options that best meet a designer's objective, per group.

[search] holds rule options (``rules.OPTION``: lists, grids, or continuous ranges for optuna); the lineup is
any focus or seats lineup. The objective is one figure of a cell (``report.objective``):

* ``seat0_win_share``: seat 0's (the first player's) win share, averaged over the lineup's rotations;
* ``seat_advantage``: the same minus the average seat's share (the fair 1/P where every game has a winner);
* ``focus_win_share``, ``focus_mean_score``: the focus's (a focus lineup);
* ``mean_turns``: the game length;

* ``equilibrium_stakes``: a figure of an equilibrium (a focus lineup whose focus is a family with ``focus.P``
  grids in [search] too): for each rule setting, the symmetric fixed point of the family is found by
  iterated best response from the field's value (as ``equilibrium`` finds it), and the objective is what
  knowing it is worth: at a table playing the fixed point, the win share of a seat that plays it minus the
  mean win share of a seat playing a value drawn uniformly from the grid, per deal. The larger it is, the
  more a player gains from the equilibrium and the more sharply it singles out its value (the most
  informative equilibrium); near 0, every value of the grid does about as well against it;

to maximise or minimise (``report.goal``), to bring closest to ``report.target``, or into
``report.band = [low, high]``. The settings are raced on common random numbers on the objective's
per-deal values (for a target or band, on the per-deal linearisation of the distance to it: each deal's
signed deviation from the target, with the sign of the setting's mean deviation). Tables: ``race.parquet``
(every raced setting: its objective's mean with a 95% interval, its distance, the paired difference of
its distance from the best's); with ``equilibrium_stakes`` also ``equilibrium.parquet`` (each rule setting's
fixed point), ``path.parquet`` (its iterations) and the best-response races in ``race.parquet`` (``step``
not null).
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from simcore.errors import SenseiError
from simcore.stats import deal_values_ci, paired_diff

from ..search import focus_values, setting_label
from ..config import ABSENT
from .base import AnswerKind, CheckContext, ReportContext, Result
from .common import (SHARE_RANGE, and_list, clip_interval, describe_group, frame, join_values, lineup_label, metric_range,
                     same_on_every_deal, short_spec)
from .searching import (SearchSpec, confirm_row, confirmation, confirmed_text, dropped_note, edge_text, group_axes, parse_confirm,
                        parse_search, pct, pct_span, probe_settings, race_rows, search_space, split, start_setting,
                        value_span, value_text, weak_text, with_params)

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun

OBJECTIVES = {
    "seat0_win_share": "seat 0's win share",
    "seat_advantage": "first-seat advantage",
    "focus_win_share": "the focus's win share",
    "focus_mean_score": "the focus's mean score",
    "mean_turns": "game length",
    "equilibrium_stakes": "equilibrium stakes",
}
#: objectives that are shares or differences of shares: the values a target or band may take, and what they are
SPANS = {"seat0_win_share": (0.0, 1.0, "a share"), "focus_win_share": (0.0, 1.0, "a share"),
         "seat_advantage": (-1.0, 1.0, "a share minus the average seat's"),
         "equilibrium_stakes": (-1.0, 1.0, "a difference of shares"),
         "mean_turns": (0.0, 1e9, "a number of turns")}
#: objectives computed from a symmetric equilibrium of the focus's family (a grid of focus.P in [search])
EQUILIBRIUM = ("equilibrium_stakes",)


def check(ctx: CheckContext) -> dict[str, Any]:
    ck, t = ctx.ck, ctx.table
    objective = t.get("objective")
    if objective is None:
        ck.fail("report.objective", "the figure to optimise (one of " + ", ".join(OBJECTIVES) + ")", ABSENT)
    if objective not in OBJECTIVES:
        ck.fail("report.objective", "one of " + ", ".join(OBJECTIVES), objective)
    on_eq = objective in EQUILIBRIUM
    spec, opts = parse_search(ctx, {"start", "steps", "confirm"} if on_eq else {"confirm"},
                              "rule options to choose (rules.OPTION)" + (" and the family's grid (focus.P)" if on_eq else ""))
    parse_confirm(ctx.ck, opts, spec)
    for p in spec.params:
        if p.role != "rules" and not (on_eq and p.role == "focus"):
            ck.fail(f"search.{p.key}", "a rule option (rules.OPTION): a design search chooses rules"
                    + (" (and focus.P: the family whose equilibrium is the objective)" if on_eq else ""), p.role)
    family = None
    if on_eq:
        spec, family = _family_spec(ctx, spec, opts)
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
    span = SPANS.get(objective)
    if span is not None:
        lo, hi, what = span
        given = [("report.target", target, t.get("target"))] + ([] if band is None else [
            (f"report.band[{i}]", band[i], t["band"][i]) for i in range(2)])
        for key, v, written in given:
            if v is not None and not lo <= v <= hi:
                ck.fail(key, (f"a number of at least {lo:g}" if hi >= 1e9 else f"a number from {lo:g} to {hi:g}")
                        + f" ({objective} is {what})", written)
    goal = ctx.table.get("goal")
    if goal is not None and (target is not None or band is not None):
        ck.fail("report.goal", "nothing with a target or a band", goal)
    if goal is None and target is None and band is None:
        ck.fail("report.goal", "max or min, or report.target or report.band (what the design aims at)", ABSENT)
    for cell in ctx.cells:
        for s, where in probe_settings(spec):
            _rules(ctx.eng, cell, s, ck, where)
    if spec.discrete:
        _different_settings(ctx, spec)
    spec.options.update({"objective": objective, "target": target, "band": band, "goal": goal or "max",
                         "family": family})
    size = len(spec.settings()) if spec.discrete else spec.trials
    if family is not None:
        # each rule setting: a few best-response races over the grid, then the grid against its fixed point
        K = len(family.settings())
        spec.estimate = lambda cfg: sum(c.players for c in cfg.cells) * (size * K * (
            3 * family.first_deals(cfg.games) * 2 + cfg.games) + 2 * (K + 1) * spec.confirm)
    else:
        spec.estimate = lambda cfg: sum(len(c.rotations(cfg.rotate)) for c in cfg.cells) * (
            cfg.games * size + 2 * spec.confirm)
    return {"search": spec}


def _family_spec(ctx: CheckContext, spec: SearchSpec, opts: dict[str, Any]) -> tuple[SearchSpec, SearchSpec]:
    """Split [search] into the design space (the rule options) and the family's grid (focus.P), whose
    iterated best responses start from the field's value (or ``search.start``) for ``search.steps`` steps."""
    ck = ctx.ck
    if ctx.lineup != "focus":
        ck.fail("lineup", f"a focus lineup for objective = {ctx.table.get('objective')!r} (the focus is the family "
                "whose equilibrium is found, the field its first table)", ctx.lineup)
    rules = [p for p in spec.params if p.role == "rules"]
    fam = [p for p in spec.params if p.role == "focus"]
    if not rules:
        ck.fail("search", "at least one rule option (rules.OPTION) to choose", "none")
    if not fam:
        ck.fail("search", "a grid of the family's parameters (focus.P) whose equilibrium is the objective", "none")
    for p in fam:
        if not p.discrete:
            ck.fail(f"search.{p.key}", "a grid (a list or {min, max, step}): fixed points are found on a grid",
                    "a range")
    design = dataclasses.replace(spec, params=rules, options={})
    family = SearchSpec(fam, "race", spec.alpha, spec.first)
    settings = family.settings()
    for cell in ctx.cells:
        for st in settings:
            with_params(cell.agents[0], split(st)["focus"], ck, "search")
    keys = [p.key for p in fam]
    if "start" in opts:
        start = start_setting(ck, "search.start", ctx.cells[0].agents[0], opts["start"], keys, settings)
    else:
        focus, field = ctx.cells[0].agents[0], ctx.cells[0].agents[1]
        start = ({k: field.params().get(k.partition(".")[2]) for k in keys} if type(field) is type(focus) else None)
        if start is None or start not in settings:
            ck.fail("search.start", "a start value on the family's grid (the field "
                    f"{field.spec()} is not a setting of it)", ABSENT)
    family.options.update({"start": [start], "steps": ck.integer(opts.get("steps", 8), "search.steps"), "meta": []})
    return design, family


def _different_settings(ctx: CheckContext, spec: SearchSpec) -> None:
    """Two settings of the search that play the same games in a cell (Sen's target with rounds set, Sensu's
    power copies without the powers variant, a sticks table written as its own nine values) would race a
    setting against itself and read "+0.0% farther [+0.0%, +0.0%]", or call a value at the edge of the range
    that changes nothing: refused, naming both, as a sweep's cells are."""
    from ..config import rules_alike

    for cell in ctx.cells:
        seen: dict[Any, dict[str, Any]] = {}
        for s in spec.settings():
            rules = _rules(ctx.eng, cell, s, ctx.ck)
            other = seen.setdefault(rules.played(cell.players), s)
            if other is s:
                continue
            why = rules_alike(_rules(ctx.eng, cell, other), rules, cell.players)
            ctx.ck.fail("search", "settings that play different games (" + setting_label(other) + " and "
                        + setting_label(s) + " play the same games" + (f": {'; '.join(why)}" if why else "")
                        + "): give each a setting of its own")


def _rules(eng, cell, setting: dict[str, Any], ck=None, where: str | None = None):
    values = {**cell.rules.as_dict(), **split(setting).get("rules", {})}
    try:
        rules = eng.make_rules(values)
        eng.validate(cell.players, rules)
    except SenseiError as exc:
        if ck is None:
            raise
        raise SenseiError(f"{ck.path}: {where or 'search.' + ','.join(setting)}: {exc}") from None
    return rules


def raw_values(objective: str, runs) -> np.ndarray:
    """The per-deal objective of a rule setting from its runs (for ``equilibrium_stakes``: the fixed point's
    self-play first, then one deviator of each grid value against it)."""
    if objective == "equilibrium_stakes":  # over the deals every run has played (some have played more)
        n = min(r.deals for r in runs)
        return focus_values(runs[0], "win")[:n] - np.mean([focus_values(r, "win")[:n] for r in runs[1:]], axis=0)
    run = runs[0]
    if objective == "seat0_win_share":
        return focus_values(run, "seat0_win")
    if objective == "seat_advantage":  # seat 0's share less the average seat's
        return focus_values(run, "seat_advantage")
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
        equilibria: dict[str, Any] = {}

        def runs_of(setting, cell=cell, axes=axes, equilibria=equilibria, g=g):
            rules = _rules(eng, cell, setting)
            if o["family"] is not None:
                eq, runs = _equilibrium_runs(cfg, ev, o["family"], cell, axes, rules, setting, g)
                equilibria[setting_label(setting)] = eq
                return runs
            return [ev.lineup(cell, list(cell.agents), axes, None if cfg.kind != "focus" else
                              ["focus"] + ["field"] * (cell.players - 1), rules=rules)]

        def values_of(runs, stop):
            x = raw_values(o["objective"], runs)[:stop]
            return distance_values(x, o["target"], o["band"]) if aim else x

        found = search_space(ev, cfg, spec, runs_of, values_of, "max" if aim else o["goal"], seed_key=g,
                             confirm=spec.confirm, share=not aim and metric_range(o["objective"]) == SHARE_RANGE)
        found.extra = equilibria
        ev.bar.update(cells=1)
        out.append((cell, found))
    return out


def _equilibrium_runs(cfg, ev, family: SearchSpec, cell, axes, rules, setting, g: int):
    """The symmetric fixed point of the focus's family under ``rules`` (iterated best response from the
    family's start), and the runs of the stakes: its self-play, then each grid value alone against it."""
    from .equilibrium import _family

    sub = dataclasses.replace(cell, rules=rules)
    eq = _family(cfg, ev, family, g, sub, {**axes, **setting})
    path = eq["paths"][0]
    fixed = path.fixed if path.fixed is not None else path.fields[-1]
    eq["point"] = fixed

    def member(s):
        return with_params(cell.agents[0], split(s)["focus"])

    table = [member(fixed)] * (cell.players - 1)
    roles = ["focus"] + ["field"] * (cell.players - 1)
    runs = [ev.lineup(sub, [member(fixed)] + table, {**axes, **setting}, roles)]
    runs += [ev.lineup(sub, [member(s)] + table, {**axes, **setting}, roles) for s in family.settings()]
    return eq, runs


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
    signed = obj in ("seat_advantage", "equilibrium_stakes")  # differences: +2.5% [-1.0%, +6.0%]
    aim = o["target"] is not None or o["band"] is not None
    keys = ", ".join(p.key.partition(".")[2] for p in spec.params)
    sentences, rows, paired, confirm_rows = [], [], [], []
    eq_rows, path_rows, race_table = [], [], []
    for cell, found in state:
        base = {a: cell.axes[a] for a in cfg.axes}
        desc = describe_group(cfg.axes, tuple(base.values()))
        r = found.race
        figs = {}
        for k, i in enumerate(found.raced):
            x = raw_values(obj, found.runs[i])[:r.deals[k]]
            figs[k] = (x, deal_values_ci(x, metric_range(obj) == SHARE_RANGE))
        bx, (bm, blo, bhi) = figs[r.best]
        blo, bhi = clip_interval(blo, bhi, metric_range(obj))  # a share's interval shown within [0%, 100%]
        # (the target or the band's ends: a bound next to one prints with the decimals that tell them apart)
        goal_refs = ((o["target"],) if o["target"] is not None else tuple(o["band"]) if o["band"] is not None else ())
        figure = (f"{OBJECTIVES[obj]} {value_text(obj, bm, signed)} {value_span(obj, blo, bhi, signed, refs=goal_refs)} "
                  f"over {r.deals[r.best]:,} deals")
        # every setting raced gives the same figure on every deal (rule options that change nothing here): no best
        # to name, no rivals, no edge of the range to look beyond
        same = len(found.raced) > 1 and all(figs[k][0].size == bx.size and np.array_equal(figs[k][0], bx)
                                            for k in figs)
        if same:
            every = (f"value of {keys}" if len(spec.params) == 1 else f"setting of {keys}")
            text = (f"no best {keys}" + (f" for {desc}" if desc else "") + f" ({_aim_text(o)}; {lineup_label(cell)}): "
                    f"every {every} raced gives the same {OBJECTIVES[obj]} on every deal, "
                    + figure.removeprefix(OBJECTIVES[obj] + " "))
        else:
            text = (f"best {keys}" + (f" for {desc}" if desc else "") + f" ({_aim_text(o)}; {lineup_label(cell)}): "
                    f"{setting_label(found.best)}, {figure}")
            if aim:
                text += f", distance {value_text(obj, -r.means[r.best])}"
            if len(r.survivors) > 1:  # said where the sentence leads (the race's verdict ends it, far from here)
                others = len(r.survivors) - 1
                text += (f" (best by its estimate only: {others} other setting{'s' if others > 1 else ''} still in "
                         "the race)")
            text += edge_text(spec.params, found.best, cell)
        rivals = [] if same else sorted((k for k in range(len(found.raced)) if k != r.best),
                                        key=lambda k: abs(r.versus_best[k]["diff"]))
        # rivals that gave the same value on every deal as each other (match_points 1 and none) are one rival,
        # named together: listed apart, they read as two settings that happened to score alike
        groups: list[list[int]] = []
        for k in rivals:
            twin = next((g for g in groups if figs[g[0]][0].size == figs[k][0].size
                         and np.array_equal(figs[g[0]][0], figs[k][0])), None)
            if twin is not None:
                twin.append(k)
            else:
                groups.append([k])
        parts = []
        for group in groups[:3]:
            k = group[0]
            d = r.versus_best[k]
            x, (m, lo, hi) = figs[k]
            what = (f"{value_text(obj, -d['diff'], True)} farther "
                    f"{value_span(obj, -d['hi'], -d['lo'], True)}") if aim else (
                f"{value_text(obj, d['diff'], True)} {value_span(obj, d['lo'], d['hi'], True)}")
            if same_on_every_deal(d):
                if np.array_equal(x, bx[:x.size]):  # (match_points 1 and none: the same games)
                    what = "the same on every deal"
                elif o["band"] is not None and o["band"][0] <= m <= o["band"][1]:
                    what = "inside the band, as the best is,"  # a distance of 0 on every deal: both inside it
            names = [setting_label(found.settings[found.raced[j]]) for j in group]
            who = names[0] if len(names) == 1 else (
                f"{and_list(names)} (the same on every deal as each other)")
            on = (f"the same on every one of {d['n']:,} deals" if what == "the same on every deal" else
                  f"{what} on {d['n']:,} deals")
            parts.append(f"{who} {value_text(obj, m, signed)} ({on}{dropped_note(found, k)})")
        if parts:
            text += "; closest rivals on the same deals: " + "; ".join(parts)
        # the raw objective (the race's values are distances where the design has a target or a band)
        conf = confirmation(found, lambda rs, stop: raw_values(obj, rs)[:stop], metric_range(obj) == SHARE_RANGE)
        if conf is not None:
            text += "; " + confirmed_text(conf, obj, o["target"], o["band"])
            confirm_rows.append(confirm_row(base, found, conf, obj, bm))
        elif len(found.settings) > 1 and not same:
            text += (f"; its interval, from the deals that chose it, is not corrected for the choice among "
                     f"{len(found.settings)} settings (the best of several reads well on them: search.confirm plays "
                     "it again on fresh deals)")
        dropped = sum(1 for d in r.dropped_in if d is not None)
        # the race drops a setting only when it is clearly worse than the best, by a test corrected for picking
        # among every setting; a setting it keeps may still miss the target or band by its own interval
        off, best_off = [], False
        goal = "target" if o["target"] is not None else "band"
        for k in r.survivors:
            x, (m, lo, hi) = figs[k]
            if lo is None or not aim:
                continue
            lo, hi = clip_interval(lo, hi, metric_range(obj))
            a, b = (o["target"], o["target"]) if o["target"] is not None else o["band"]
            if hi < a or lo > b:
                if k == r.best:
                    best_off = True
                else:
                    off.append(f"{setting_label(found.settings[found.raced[k]])} {value_text(obj, m, signed)} "
                               f"{value_span(obj, lo, hi, signed, refs=goal_refs)}")
        if same:  # no best named: nothing to set apart from it; the figure they share may miss the goal
            apart = f" (by their 95% interval every one misses the {goal})" if best_off else ""
        elif len(r.survivors) > 1 and off:
            head = (f" (the race's test, corrected for picking among the {len(found.raced)} settings, could not tell "
                    f"them from the best, which is best by its estimate only; ")
            # each interval alone, uncorrected: a few of many settings that all meet the goal seem to miss it by
            # chance (fan_and_mallet_design's keeper at the rules' own start 0,6, 51.9% [50.3%, 53.4%], where
            # fan_and_mallet_balance's own deals give 50.4% [48.9%, 51.9%])
            # (a target: an interval misses it one time in 20; a band: at most one in 40, off one side only)
            by_chance = (f"; each interval alone, uncorrected: of {len(r.survivors)} settings that all met the {goal}, "
                         + (f"about {0.05 * len(r.survivors):.1f}" if goal == "target" else
                            f"at most about {0.025 * len(r.survivors):.1f}") + " would seem to miss it by chance")
            if best_off:  # nothing kept reaches it: the best misses too
                apart = head + (f"by its own 95% interval the best misses the {goal}, and so "
                                + ("does " if len(off) == 1 else "do ") + and_list(off) + by_chance + ")")
            else:
                apart = head + ("but by its own 95% interval " + (f"{off[0]} misses" if len(off) == 1 else
                                                                  f"each of {and_list(off)} misses") + f" the {goal}"
                                + by_chance + ")")
        elif len(r.survivors) > 1:
            apart = (f" (the race could not tell them apart: the best is best by its estimate only, and any of the "
                     f"{len(r.survivors)} is as good a choice on these deals"
                     + (f"; by its own 95% interval the best misses the {goal}" if best_off else "") + ")")
        else:
            apart = f" (by its own 95% interval it misses the {goal})" if best_off else ""
        text += (f"; {len(found.raced)} setting{'s' if len(found.raced) > 1 else ''} raced, {dropped} dropped as "
                 f"clearly worse, {len(r.survivors)} still in the race" + apart + f"; {found.games:,} games")
        sentences.append(text)
        if o["family"] is not None:
            sentences.append(_equilibrium_sentence(desc, cell, found, figs, obj, o["family"]))
            _equilibrium_rows(cfg, cell, base, found, eq_rows, path_rows, race_table)
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
    tables = {"race": frame(rows + race_table)}
    if o["family"] is not None:
        tables.update({"equilibrium": frame(eq_rows), "path": frame(path_rows)})
    if confirm_rows:
        tables["confirm"] = frame(confirm_rows)
    return Result(sentences, frame(paired), None, tables)


def _equilibrium_sentence(desc: str, cell, found, figs, obj: str, family: SearchSpec) -> str:
    """Per rule setting: its fixed point, how it was reached, the best response to the reference field,
    and what knowing the fixed point is worth."""
    parts = []
    for k, i in enumerate(found.raced):
        s = found.settings[i]
        eq = found.extra[setting_label(s)]
        path = eq["paths"][0]
        first = path.found[0]
        _, (m, lo, hi) = figs[k]
        tied = [setting_label(path.found[-1].settings[path.found[-1].raced[j]]) for j in path.found[-1].race.survivors]
        # the best measured response to the field; where the race keeps the field's own value beside it, the
        # iteration stays there (a fixed point at once), and the sentence says why
        response = setting_label(first.best)
        kept = [setting_label(first.settings[first.raced[j]]) for j in first.race.survivors]
        own = setting_label(path.fields[0]) if path.fields else None
        if own is not None and own != response and own in kept:
            response = f"its own value {own} (the best measured, {response}, is not clearly better)"
        # a fixed point at the edge of the family's grid: a value beyond it may be the equilibrium
        edge = edge_text(family.params, eq["point"], cell) if path.fixed is not None else ""
        what = (f"fixed point {setting_label(eq['point'])}" + (f" ({edge[2:]})" if edge else "")
                if path.fixed is not None else
                f"no fixed point ({'a cycle' if path.end == 'cycle' else f'{len(path.found)} steps'}; the last table "
                f"{setting_label(eq['point'])} is used)")
        parts.append(f"{setting_label(s)}: {what}, path " + " -> ".join(setting_label(f) for f in path.fields)
                     + (_tied_text(path, others) if path.fixed is not None and
                        (others := [t for t in tied if t != setting_label(eq['point'])]) else "")
                     + f"; best response to the field {cell.agents[1].spec()}: {response}; "
                     f"stakes {value_text(obj, m)} {value_span(obj, lo, hi)} over "
                     f"{figs[k][0].size:,} deals")
    grid = _grid_text(found.extra[setting_label(found.settings[found.raced[0]])]["paths"][0].found[0].settings)
    return (f"{desc}: " if desc else "") + "equilibrium of " + short_spec(cell.agents[0]) + " under each rule " \
        f"setting (iterated best response over {grid}; stakes: the win share a seat gains at a table of the " \
        "fixed point by playing it rather than a value drawn uniformly from the grid, so the grid's values far " \
        "from the fixed point, which lose heavily, weigh in it as much as those near it, and another grid gives " \
        "other stakes): " + "; ".join(parts)


def _grid_text(settings: list[dict[str, Any]]) -> str:
    """The family's grid as the sentence names it: ``the grid's 9 values of wake, -1 to 30 (a fixed point is
    one of them: the values between them were not tried)``, the words in parentheses where values lie between
    the grid's (an integer grid with gaps, or any grid of a number that is not whole)."""
    keys = list(settings[0]) if settings else []
    if len(keys) != 1:
        return f"the grid's {len(settings)} settings"
    name = keys[0].partition(".")[2]
    values = sorted(s[keys[0]] for s in settings if isinstance(s[keys[0]], (int, float)))
    if len(values) != len(settings) or len(values) < 2:
        return f"the grid's {len(settings)} values of {name}"
    gaps = any(b - a > 1 for a, b in zip(values, values[1:])) or any(float(v) != int(v) for v in values)
    return (f"the grid's {len(values)} values of {name}, {values[0]:g} to {values[-1]:g}"
            + (" (a fixed point is one of them: the values between them were not tried)" if gaps else ""))


def _tied_text(path, others: list[str]) -> str:
    """The settings that the race against a table of the fixed point kept beside it, and the best measured
    one's paired gain over it: the race's test, corrected for the number of settings, does not call it
    clear, though its own 95% interval may lie above 0."""
    found = path.found[-1]
    r = found.race
    own = next(i for i, j in enumerate(found.raced) if found.settings[j] == path.fixed)
    text = (f" ({join_values(others)} {'is' if len(others) == 1 else 'are'} not ruled out against a table of it "
            "either")
    if r.best != own:
        vs = r.versus_best[own]  # the fixed point less the best; shown as the best's gain

        def gain(key):
            return None if vs[key] is None else -vs[key]
        text += (f": the best measured, {setting_label(found.best)}, gains {pct(gain('diff'), True)} "
                 f"{pct_span(gain('hi'), gain('lo'), True)} on the same {vs['n']:,} deals, a difference "
                 f"that the race's test, corrected for picking among {len(found.raced)} settings, does not call clear"
                 + weak_text(vs))
    else:  # the fixed point measured best: the closest of the others, less it (said with numbers, as above)
        rest = [j for j in r.survivors if j != own and r.versus_best[j] is not None
                and r.versus_best[j].get("diff") is not None]
        if rest:
            j = max(rest, key=lambda j: r.means[j])
            vs = r.versus_best[j]
            text += (f": the closest, {setting_label(found.settings[found.raced[j]])}, "
                     f"{pct(vs['diff'], True)} {pct_span(vs['lo'], vs['hi'], True)} against it on the same "
                     f"{vs['n']:,} deals, a difference that the race's test, corrected for picking among "
                     f"{len(found.raced)} settings, does not call clear")
    return text + ")"


def _equilibrium_rows(cfg, cell, base, found, eq_rows, path_rows, race_table) -> None:
    """equilibrium.parquet (one fixed point per rule setting), path.parquet and the best-response races."""
    fam = cfg.report.search.options["family"]
    keys = [p.key for p in fam.params]
    fair = 1.0 / cell.players
    for i in found.raced:
        s = found.settings[i]
        eq = found.extra[setting_label(s)]
        path = eq["paths"][0]
        rules = {f"rules.{k}": v for k, v in {**cell.rules.as_dict(), **split(s).get("rules", {})}.items()}
        chosen = {k: v for k, v in s.items() if k.startswith("rules.")}
        last = path.found[-1]
        alive = [setting_label(last.settings[last.raced[j]]) for j in last.race.survivors]
        eq_rows.append({**base, "players": cell.players, **rules, "solution": "fixed point" if path.fixed is not None
                        else f"last table ({path.end})", "kind": "symmetric fixed point",
                        "strategy": with_params(cell.agents[0], split(eq["point"])["focus"]).spec(),
                        **{k: eq["point"][k] for k in keys}, "probability": 1.0, "ci_low": 1.0, "ci_high": 1.0,
                        "tied": ", ".join(alive), "starts": setting_label(path.start)})
        for step, (field, f) in enumerate(zip(path.fields, path.found)):
            fl = {f"field.{kk.partition('.')[2]}": v for kk, v in field.items()}
            path_rows.append({**base, **chosen, "path": 0, "start": setting_label(path.start), "step": step,
                              "field": setting_label(field), **fl, "best_response": setting_label(f.best),
                              "tied": ", ".join(setting_label(f.settings[f.raced[j]]) for j in f.race.survivors),
                              "fixed": field == path.fixed, "games": f.games})
            race_table += [{**row, **chosen, "path": 0, "step": step, "field": setting_label(field), **fl}
                           for row in race_rows(base, f, "win_share", fair)]


def figures(ctx: ReportContext) -> list:
    from .best_response import race_figure
    from .equilibrium import _curves_figure, _path_figure

    race = ctx.t.get("race")
    design, responses = race, None
    if race is not None and "step" in race.columns:  # an objective over equilibria: their races too
        design, responses = race.filter(pl.col("step").is_null()), race.filter(pl.col("step").is_not_null())
    aimed = design is not None and "distance" in design.columns and design["distance"].is_not_null().any()
    out = [race_figure(design, ctx.gaxes, "Design search",
                       "the objective of every raced setting with its 95% interval; filled: still in the race, "
                       "the best ringed; dotted: the target (or the fair share)"
                       + ("; the race compares the settings by their distance to the target, paired on the same "
                          "deals, so a setting on either side of it may stay in the race" if aimed else ""))]
    if responses is not None:
        rules = [c for c in responses.columns if c.startswith("rules.") and c not in ctx.gaxes]
        out += [_curves_figure(responses, ctx.gaxes + rules),
                _path_figure(ctx.t.get("path"), ctx.gaxes + rules, unchecked=True)]
    return out


KIND = AnswerKind("design", "the rule options that best meet a designer's objective", analyse, check=check,
                  uses_goal=True, needs_seats="its lineups are played seat against seat",
                  tables=("search",), lineups=("focus", "seats"), search=search, figures=figures,
                  keys={"objective": "nothing unless answer = 'design'", "target": "nothing unless answer = 'design'",
                        "band": "nothing unless answer = 'design'"})
