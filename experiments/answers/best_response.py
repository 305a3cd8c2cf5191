"""``best_response``: the best setting of a strategy's parameters against a given field, per group.

The deviator is the focus of a focus lineup (parameters ``focus.P``) or one seat of a seats lineup
(``seatN.P``); every other seat keeps its strategy. A discrete space (lists and ``{min, max, step}``
grids, one or several parameters) is raced on common random numbers; a continuous one (``{min, max}``)
is searched by optuna, whose best settings are then raced (:mod:`experiments.answers.searching`). The
answer names the best setting with its win share (or mean score) and interval, the closest rivals'
paired differences on the same deals, and the games spent. Tables: ``race.parquet`` (one row per group
and raced setting) and ``paired.parquet``.
"""
from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from simcore.stats import deal_values_ci

from ..search import setting_label
from .base import AnswerKind, CheckContext, ReportContext, Result
from .common import (SHARE_RANGE, clip_interval, describe_group, frame, in_percent, metric_range, same_on_every_deal,
                     short_spec)
from .searching import (confirm_row, confirmation, confirmed_text, deviator_values, group_axes, mean_values, parse_confirm,
                        edge_text, fair_of, parse_search, pct, probe_settings, race_rows, runners_up, search_space, split,
                        self_play, value_span, value_text, with_params)

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun

_SEAT = re.compile(r"^seat(\d+)$")


def _deviator(ctx: CheckContext, spec) -> int:
    """The base seat of the deviator, from the parameters' role (focus, or one seatN of a seats lineup); for
    a tournament, the deviator's index among the entrants (it sits in base seat 0 of every table)."""
    ck = ctx.ck
    roles = {p.role for p in spec.params}
    if ctx.lineup == "tournament":
        names = [a.name for a in ctx.cells[0].agents]
        role = spec.params[0].role
        for p in spec.params:
            if p.role not in names:
                ck.fail(f"search.{p.key}", f"a parameter of an entrant ({', '.join(names)}): that entrant is the "
                        "deviator", p.role)
            if p.role != role:
                ck.fail(f"search.{p.key}", f"a parameter of one entrant, the deviator ({role})", p.role)
        if names.count(role) > 1:
            ck.fail(f"search.{spec.params[0].key}", "an entrant that appears once in the tournament (its name "
                    "names the deviator)", role)
        return names.index(role)
    if ctx.lineup == "focus":
        bad = sorted(roles - {"focus"})
        if bad:
            ck.fail(f"search.{next(p.key for p in spec.params if p.role == bad[0])}",
                    "a parameter of the focus (focus.P): the focus is the deviator", bad[0])
        return 0
    seats = [int(m.group(1)) for r in roles if (m := _SEAT.match(r))]
    if len(roles) != 1 or not seats:
        ck.fail("search", "parameters of one seat (seatN.P) of the seats lineup: that seat is the deviator",
                sorted(roles))
    n = seats[0]
    players = {c.players for c in ctx.cells}
    if n >= min(players):
        ck.fail(f"search.{spec.params[0].key}", f"a seat below {min(players)} (the smallest player count)", n)
    return n


def _agents(cell, lineup: str, seat: int, setting: dict[str, Any], ck=None, where: str = "search") -> list[list[Any]]:
    """The lineups (agents in base seat order) the deviator plays with ``setting``: the config's lineup with
    the deviator changed, or for a tournament (``seat``: the deviator's entrant) the deviator alone against a
    table of each other entrant, as the tournament draws its entrant's tables."""
    if lineup == "tournament":
        me = cell.agents[seat]
        me = with_params(me, split(setting).get(me.name, {}), ck, where)
        return [[me] + [o] * (cell.players - 1) for i, o in enumerate(cell.agents) if i != seat]
    agents = list(cell.agents)
    role = "focus" if lineup == "focus" else f"seat{seat}"
    agents[seat] = with_params(agents[seat], split(setting).get(role, {}), ck, where)
    return [agents]


def check(ctx: CheckContext) -> dict[str, Any]:
    spec, opts = parse_search(ctx, {"confirm"}, "of the deviator: focus.P, seatN.P for a seats lineup, ENTRANT.P "
                              "for a tournament")
    parse_confirm(ctx.ck, opts, spec)
    seat = _deviator(ctx, spec)
    metric = ctx.report.metric
    if metric not in ("win_share", "mean_score"):
        ctx.ck.fail("report.metric", "win_share or mean_score for answer = 'best_response' (the deviator's)", metric)
    # every setting must make a valid strategy (the endpoints of a continuous range)
    for cell in ctx.cells:
        for s, where in probe_settings(spec):
            _agents(cell, ctx.lineup, seat, s, ctx.ck, where)
    spec.options["seat"] = seat
    size = len(spec.settings()) if spec.discrete else spec.trials
    if ctx.lineup == "tournament":
        spec.estimate = lambda cfg: sum(c.players * (len(c.agents) - 1) for c in cfg.cells) * (spec.first_deals(
            cfg.games) * size * 2 + 2 * spec.confirm)
    else:
        spec.estimate = lambda cfg: sum(len(c.rotations(cfg.rotate)) for c in cfg.cells) * (spec.first_deals(
            cfg.games) * size * 2 + 2 * spec.confirm)
    return {"search": spec}


def search(cfg: Config, ev) -> list:
    spec = cfg.report.search
    seat = spec.options["seat"]
    metric = cfg.report.metric
    goal = cfg.report.goal
    fn = deviator_values(0 if cfg.kind == "tournament" else seat, metric)
    out = []
    for g, cell in enumerate(cfg.cells):
        axes = group_axes(cfg, cell)
        roles = ["focus"] + ["field"] * (cell.players - 1) if cfg.kind in ("focus", "tournament") else None

        def runs_of(setting, cell=cell, axes=axes, roles=roles):
            return [ev.lineup(cell, agents, axes, roles) for agents in _agents(cell, cfg.kind, seat, setting)]

        found = search_space(ev, cfg, spec, runs_of, lambda runs, stop: mean_values(runs, fn, stop), goal,
                             seed_key=g, confirm=spec.confirm, share=metric_range(metric) == SHARE_RANGE)
        ev.bar.update(cells=1)
        out.append((cell, found))
    return out


def _field_text(cfg, cell, seat: int) -> str:
    if cfg.kind == "tournament":
        others = [short_spec(a) for i, a in enumerate(cell.agents) if i != seat]
        return ("the tournament field: alone against a table of each of " + ", ".join(others) +
                " in turn, equally weighted" if len(others) > 1 else f"a table of {others[0]}")
    others = [a.spec() for i, a in enumerate(cell.agents) if i != seat]
    if len(set(others)) == 1:
        return f"a table of {others[0]}"
    return "the table " + " / ".join(others)


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun], state) -> Result:
    spec = cfg.report.search
    seat, metric = spec.options["seat"], cfg.report.metric
    sentences, race_table, paired, confirm_rows = [], [], [], []
    for cell, found in state:
        base = {a: cell.axes[a] for a in cfg.axes}
        desc = describe_group(cfg.axes, tuple(base.values()))
        r = found.race
        k = r.best
        # the average seat's share of the best setting's lineups (1/P where every game has a winner)
        fair = fair_of(found, k, cell.players) if metric == "win_share" else None
        best = found.best
        deviator = short_spec(cell.agents[seat])
        # a table of one strategy wins the fair share on every deal, by symmetry: no interval to give
        alike = fair is not None and self_play(found, k) and abs(r.means[k] - fair) < 1e-6  # (float32 1/3)
        lo, hi = clip_interval(r.lo[k], r.hi[k], metric_range(metric))
        # every setting raced plays the same games by this figure (a parameter that changes nothing here): no
        # best response to name, and no edge of the range to look beyond
        same = len(found.raced) > 1 and all(same_on_every_deal(r.versus_best[j]) for j in range(len(found.raced))
                                            if j != k)
        if same and fair is not None and abs(r.means[k] - fair) < 1e-6 and any(
                self_play(found, j) for j in range(len(found.raced))):
            alike = True  # the field's own setting among them, whichever the grid lists first: each wins the fair share
        figure = ((f"{pct(fair)} on every one of {r.deals[k]:,} deals (as the field's own setting: a table of one "
                   "strategy wins the fair share by symmetry)" if same else
                   f"{pct(fair)} on every one of {r.deals[k]:,} deals (the field's own setting: a table of one "
                   "strategy wins the fair share by symmetry, and every other setting measured below it)") if alike else
                  f"{value_text(metric, r.means[k])} {value_span(metric, lo, hi)} "
                  f"over {r.deals[k]:,} deals" + (f" (fair {pct(fair)})" if fair else ""))
        if same:
            every = (f"value of {spec.params[0].name}" if len(spec.params) == 1 else
                     "setting of " + ", ".join(p.name for p in spec.params))
            text = ("no best response" + (f" for {desc}" if desc else "") + f" ({deviator} against "
                    f"{_field_text(cfg, cell, seat)}): every {every} raced gives the same {_label(metric)} on every "
                    f"deal, {figure}")
        else:
            text = ("best response" + (f" for {desc}" if desc else "") + f" ({deviator} against "
                    f"{_field_text(cfg, cell, seat)}): {setting_label(best)}, {_label(metric)} {figure}"
                    + edge_text(spec.params, best, cell))
        if cfg.kind == "tournament" and cell.agents and len(cell.agents) > 2:
            text += "; against each table: " + _per_table(cell, seat, found, metric, r.deals[k])
        if len(found.raced) > 1 and not same:
            text += f"; closest rivals on the same deals: {runners_up(found, metric)}"
        conf = confirmation(found, lambda rs, stop: mean_values(rs, deviator_values(
            0 if cfg.kind == "tournament" else seat, metric), stop))
        if conf is not None:
            text += "; " + confirmed_text(conf, metric)
            confirm_rows.append(confirm_row(base, found, conf, metric, r.means[k]))
        elif len(found.settings) > 1 and not alike and not same:
            text += (f"; its interval, from the deals that chose it, is not corrected for the choice among "
                     f"{len(found.settings)} settings (the best of several reads high on them: search.confirm plays "
                     "it again on fresh deals)")
        dropped = sum(1 for d in r.dropped_in if d is not None)
        how = (f"{len(found.raced)} setting{'s' if len(found.raced) > 1 else ''} raced" if not found.trials else
               f"{len(found.trials)} optuna trials on {spec.first_deals(cfg.games):,} deals each, the best "
               f"{len(found.raced)} raced")
        text += (f"; {how}: {dropped} dropped as clearly worse, {len(r.survivors)} still in the race after "
                 f"{r.rounds[-1][0]:,} deals (one-sided paired tests at {r.level:.2g}: the true best is dropped with "
                 f"probability at most {spec.alpha:g}); {found.games:,} games")
        sentences.append(text)
        race_table += race_rows(base, found, metric, fair)
        for kk, i in enumerate(found.raced):
            d = r.versus_best[kk]
            if d is None:
                continue
            paired.append({**base, "metric": metric, "over": ",".join(p.key for p in spec.params),
                           "value": setting_label(found.settings[i]), "versus": setting_label(best), "diff": d["diff"],
                           "lo": d["lo"], "hi": d["hi"], "p_value": d["p_value"], "rho": d["rho"], "deals": d["n"]})
        if found.trials:
            for t, (s, v) in enumerate(found.trials):
                race_table.append({**base, **s, "setting": setting_label(s), "metric": metric, "trial": t,
                                   "trial_value": v, "deals": spec.first_deals(cfg.games)})
    tables = {"race": frame(race_table)}
    if confirm_rows:
        tables["confirm"] = frame(confirm_rows)
    return Result(sentences, frame(paired), None, tables)


def _per_table(cell, seat: int, found, metric: str, deals: int) -> str:
    """The best setting's figure against each entrant's table of a tournament field (t intervals over deals)."""
    others = [a for i, a in enumerate(cell.agents) if i != seat]
    fn = deviator_values(0, metric)
    parts = []
    for o, run in zip(others, found.runs[found.raced[found.race.best]]):
        m, lo, hi = deal_values_ci(fn(run)[:deals], metric_range(metric) == SHARE_RANGE)
        lo, hi = clip_interval(lo, hi, metric_range(metric))
        parts.append(f"{short_spec(o)} {value_text(metric, m)} {value_span(metric, lo, hi)}")
    return ", ".join(parts)


def _label(metric: str) -> str:
    return "win share" if metric == "win_share" else "mean score"


def _setting_names(settings: list[str]) -> tuple[list[str], str | None]:
    """Settings of one parameter (``start_positions=0,6``) by their values alone, with the parameter's name
    for the axis; any other settings as they are."""
    keys = {s.split("=", 1)[0] for s in settings if "=" in s}
    if len(keys) == 1 and all(s.count("=") == 1 for s in settings):
        return [s.split("=", 1)[1] for s in settings], keys.pop()
    return list(settings), None


def figures(ctx: ReportContext) -> list:
    return [race_figure(ctx.t.get("race"), ctx.s.get("group_axes", []), "Best response",
                        "each raced setting's figure with its 95% interval (deals played differ: a setting dropped "
                        "early has a wide interval); filled: still in the race at the end, the best ringed; dotted: "
                        "the fair share 1/P")]


def race_figure(race: pl.DataFrame | None, gaxes: list[str], title: str, caption: str):
    """One panel per group: the metric of every raced setting against the setting (a numeric parameter on
    its own axis), with intervals."""
    from reports import plots

    if race is None or race.height == 0 or "value" not in race.columns:
        return None
    df = race.filter(pl.col("value").is_not_null()) if "trial" not in race.columns else \
        race.filter(pl.col("trial").is_null() & pl.col("value").is_not_null())
    if df.height == 0:
        return None
    df = plots.group_labels(df, gaxes)
    groups = df["group"].unique(maintain_order=True).to_list()
    # a panel wide enough for its settings' labels at a readable size (Fan & Mallet's 12 start positions)
    most = int(df.group_by("group").len()["len"].max())
    width = max(4.2, 0.4 * most + 1.2)
    cols = min(4 if width <= 4.2 else 3, len(groups))
    rows = math.ceil(len(groups) / cols)
    fig, axs = plots.plt.subplots(rows, cols, figsize=(width * cols, 3.4 * rows), squeeze=False)
    pcols = [c for c in df.columns if "." in c and c not in gaxes and not c.startswith("rules.")] or ["setting"]
    pcols = [c for c in pcols if df[c].null_count() < df.height]
    numeric = len(pcols) == 1 and df[pcols[0]].dtype.is_numeric()
    scale = 100.0 if in_percent(str(df["metric"][0])) else 1.0
    drew = False  # a dotted reference line (the fair share, or the target)
    for ax, g in zip(axs.flat, groups):
        sub = df.filter(pl.col("group") == g)
        if numeric:
            sub = sub.sort(pcols[0])
            x = sub[pcols[0]].to_numpy().astype(float)
        else:
            x = np.arange(sub.height)
        y = sub["value"].to_numpy() * scale
        lo = sub["lo"].fill_null(np.nan).to_numpy() * scale
        hi = sub["hi"].fill_null(np.nan).to_numpy() * scale
        alive = sub["survived"].to_numpy()
        ax.errorbar(x, y, yerr=plots.error_lengths(y, lo, hi), fmt="none", ecolor="grey", capsize=2)
        ax.plot(x[alive], y[alive], "o", color="tab:blue", label="in the race")
        ax.plot(x[~alive], y[~alive], "o", color="tab:blue", mfc="white", label="dropped")
        b = sub["best"].to_numpy()
        ax.plot(x[b], y[b], "o", ms=12, mfc="none", color="tab:red", label="best")
        if "fair_share" in sub.columns and sub["fair_share"][0] is not None:
            ax.axhline(sub["fair_share"][0] * scale, color="grey", linestyle=":")
            drew = True
        ax.set_ylabel(str(df["metric"][0]).replace("_", " ") + (" (%)" if scale == 100.0 else ""), fontsize=9)
        names, key = _setting_names(sub["setting"].to_list())
        if not numeric:
            ax.set_xticks(x, names, fontsize=9)
            if len(names) * max(map(len, names), default=0) > 40:  # only labels that would crowd are slanted
                plots.rotate_labels(ax, 40)
        ax.set_title("" if g == "all" else g, fontsize=9)  # (one group: no title to give)
        ax.set_xlabel(plots.short(pcols[0]) if numeric else key or "setting")
    for ax in list(axs.flat)[len(groups):]:
        ax.axis("off")
    fig.tight_layout()
    handles, names = axs.flat[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncols=3, fontsize=8)
    if not drew and "; dotted:" in caption:  # the caption speaks only of lines drawn
        caption = caption.split("; dotted:")[0]
    return plots.Figure(title, caption, plots._encode(fig))


KIND = AnswerKind("best_response", "the best setting of the deviator's parameters against a given field", analyse,
                  check=check, tables=("search",), needs_seats="the deviator plays against a field", lineups=("focus", "seats", "tournament"), search=search,
                  uses_metric=True, uses_goal=True,
                  figures=figures, paired_plot=False)
