"""``risk``: how often the focus suffers a per-seat 0/1 event (``report.event``, e.g. Senshi's elimination),
how often it wins, and how often it wins when the event did not happen; each value paired against the
baseline on the same deals."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from simcore.stats import deal_share_interval, linearised, paired_diff, ratio_ci, share_ci

from .base import AnswerKind, CheckContext, ReportContext, Result
from .common import wide_table
from .common import (EVENT_ONLY, baseline_of, check_event, ci_text, dci_text, describe_group, direction, est_row,
                     event_rows, experiment_labels, frame, group_rows, label, paired_row, same_on_every_deal, short,
                     value_name)

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def answer_risk(cfg: Config, cells: pl.DataFrame, runs: list[CellRun]):
    """The focus's risk of the event (report.event, e.g. being eliminated), its win share, and its win share
    in the games where the event did not happen, for every value of ``over`` and group; each value paired
    deal by deal against the baseline (default: the first value)."""
    rep = cfg.report
    ev, over, gaxes = rep.event, rep.over, cfg.group_axes
    f_ev, f_win, f_cond = f"{ev}_share", "win_share", f"win_share_if_not_{ev}"
    sentences, paired_rows, est, heads = [], [], [], []
    labels = experiment_labels(cfg)

    def show(v: Any) -> str:
        return label(labels, v)

    def named(v: Any) -> str:
        # a value of `over` as the sentences name it: "margin 1", not a bare "1"; a strategy by its label
        return value_name(over, v) if isinstance(v, (bool, int, float)) or v is None else show(v)

    for key, sub in group_rows(cells, gaxes):
        desc = describe_group(gaxes, key, labels)
        P = int(sub["players"][0])
        figs: dict[Any, dict[str, Any]] = {}
        for i in sub["cell"].to_list():
            run = runs[i]
            g = event_rows(cfg, run)
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

            def over_deals(total: float, col: str) -> tuple:
                """A share with its interval over deals where a deal is played several times (rotations, or a
                self-play focus in every seat: those plays share the deal's cards), else Wilson's over games."""
                if n <= deals.height:  # one play a deal
                    return share_ci(total, n)
                v = (deals[col] / deals["plays"]).to_numpy()
                return (total / n, *deal_share_interval(total / n, v))

            def won_clear() -> tuple:
                """The wins among the plays without the event: a ratio over deals where a deal is played
                several times (its plays share the deal's cards: Wilson's over those plays was too narrow),
                else Wilson's over them."""
                if n <= deals.height:
                    return share_ci(wc, c)
                return ratio_ci(deals["win_clear"].to_numpy(), deals["clear"].to_numpy(), share=True)

            fig = {"cell": i, "deals": deals, "games": n, "clear": c, "focus": show(run.cell.agents[0]),
                   "field": show(run.cell.agents[1]) if P > 1 else None,
                   f_ev: over_deals(e, "event"), f_win: over_deals(w, "win"), f_cond: won_clear()}
            if P > 1 and fig["focus"] == fig["field"] and n == P * deals.height:
                # one strategy in every seat, read from each: the fair share (the average seat's) by symmetry
                fig[f_win] = (w / n, None, None)
            figs[value] = fig
            for name in (f_ev, f_win, f_cond):
                est.append(est_row("cell", i, desc, value, fig["focus"], P, name, *fig[name], deals.height))
        values = list(figs)
        base = baseline_of(cfg, values)
        fields = {f["field"] for f in figs.values()}
        against = (f" against {fields.pop()} in every other seat" if len(fields) == 1 and P > 1 else "")

        def top(name: str, best: str) -> tuple[Any, dict]:
            # (of equal figures the first by its name: the one named does not depend on the order listed)
            sign = 1.0 if best == "min" else -1.0
            return min(((v, f) for v, f in figs.items() if f[name][0] is not None),
                       key=lambda t: (sign * t[1][name][0], show(t[0])))

        def per_deal(f: dict) -> pl.DataFrame:
            cols = [c for c in ("game", "event", "win", "win_clear", "clear", "plays") if c in f["deals"].columns]
            return f["deals"].select(cols).sort("game")

        lo_v, lo_f = top(f_ev, "min")
        hi_v, hi_f = top(f_win, "max")
        cv, cf = top(f_cond, "max")

        def versus_next(name: str, col: str, best: str, v_top: Any, word: str = "next") -> str:
            # the leader by its estimate against the next one, on the same deals: leading is not being clearly apart
            # (of equal figures, first one whose figure is the leader's on every deal, then by name)
            sign = 1.0 if best == "min" else -1.0

            def figure(f: dict) -> pl.DataFrame:
                return per_deal(f).select([c for c in ("game", col, "plays", "clear") if c in f["deals"].columns])

            mine = figure(figs[v_top])
            rest = sorted(((v, f) for v, f in figs.items() if v != v_top and f[name][0] is not None),
                          key=lambda t: (sign * t[1][name][0], not figure(t[1]).equals(mine), show(t[0])))
            if not rest:
                return ""
            v2, f2 = rest[0]
            j = figs[v_top]["deals"].join(f2["deals"], on="game", suffix="_ref")
            if j.height < 2:
                return ""
            # the next one minus the leader, as in every answer's "next" (best: "next 16: -1.5%")
            if col == "win_clear":  # a ratio (wins over the games not lost to the event): linearised deal by deal
                a = linearised(j["win_clear_ref"].to_numpy(), j["clear_ref"].to_numpy())
                b = linearised(j["win_clear"].to_numpy(), j["clear"].to_numpy())
                if a is None or b is None:
                    return ""
                d = paired_diff(a, b)
            else:
                d = paired_diff((j[f"{col}_ref"] / j["plays_ref"]).to_numpy(), (j[col] / j["plays"]).to_numpy())
            if same_on_every_deal(d):
                return f" ({word} {named(v2)}: the same on every deal)"
            apart = d["lo"] > 0 or d["hi"] < 0
            return f" ({word} {named(v2)}: {dci_text(d)} on the same deals{'' if apart else ', not clearly apart'})"

        def itself(f: dict) -> str:
            # a table of one strategy wins exactly the fair share by symmetry: say so where it leads
            return " (the field itself: every seat the same strategy)" if f["focus"] == f["field"] else ""

        heads.append(len(sentences))
        first = per_deal(next(iter(figs.values())))
        if len(figs) > 1 and all(per_deal(f).equals(first) for f in figs.values()):
            # every value plays the same games (a rule option that changes nothing for these strategies): none
            # is least often eliminated, or wins most
            sentences.append(
                (f"{desc}{against}: " if desc else (f"{against.strip()}: " if against else ""))
                + f"every {short(over)} gives the same games on every deal: {ev} in {ci_text(*lo_f[f_ev])}, wins "
                f"{ci_text(*hi_f[f_win])}, and wins {ci_text(*cf[f_cond])} when not {ev}")
        else:
            sentences.append(
                (f"{desc}{against}: " if desc else (f"{against.strip()}: " if against else ""))
                + f"least often {ev}: {named(lo_v)}{itself(lo_f)}, {ci_text(*lo_f[f_ev])}"
                f"{versus_next(f_ev, 'event', 'min', lo_v)}; "
                + (f"most wins: {named(hi_v)}, {ci_text(*hi_f[f_win], refs=(1 / P,))} (fair share {100 / P:.1f}%"
                   + (", the share of the field's own seat: not clearly above it" if P > 1 and hi_f[f_win][1] is not None
                      and hi_f[f_win][1] <= 1 / P else "") + ")"
                   f"{versus_next(f_win, 'win', 'max', hi_v)}" if not itself(hi_f) else
                   # the table of the field alone wins the fair share by symmetry: leading, it says that no
                   # challenger wins more than the field's own seat, and the one to name is the best challenger
                   f"most wins: no challenger wins more than the field itself ({named(hi_v)} in every seat: "
                   f"{ci_text(*hi_f[f_win])}, the fair share){versus_next(f_win, 'win', 'max', hi_v, 'best challenger')}")
                + f"; most wins when not {ev}: "
                f"{named(cv)}{itself(cf)}, {ci_text(*cf[f_cond])}{versus_next(f_cond, 'win_clear', 'max', cv)}")
        bf = figs.get(base)
        seen: list[tuple[Any, pl.DataFrame]] = []  # each value's per-deal figures, to find values that play alike

        def alike(f: dict) -> Any:
            # the baseline first (a value alike with it is no change at all), then the values before it
            mine = per_deal(f)
            if bf is not None and value != base and per_deal(bf).equals(mine):
                return base
            for v, other in seen:
                if other.equals(mine):
                    return v
            seen.append((value, mine))
            return None

        for value, f in figs.items():
            # a self-play focus holds every seat of its games: its counts are of seats, not games
            own = f["focus"] == f["field"] and P > 1 and f["games"] > f["deals"].height
            played = (f"{f['games']:,.0f} seats ({f['games'] / P:,.0f} games, every seat its own)" if own else
                      f"{f['games']:,.0f} games")
            text = (f"{named(value)}" + (f" ({desc})" if desc else "") + f": {ev} in {ci_text(*f[f_ev])} of its "
                    f"{played}, wins {ci_text(*f[f_win])}"
                    + (" (the fair share by symmetry: the same strategy in every seat)" if f[f_win][1] is None
                       and f["focus"] == f["field"] else "") + f", and wins {ci_text(*f[f_cond])} of the "
                    f"{f['clear']:,.0f} {'seats' if own else 'games'} it was not {ev} in")
            twin = alike(f)
            if twin is not None:  # guard's margins 3 and 4 with 4 players: the same games
                text += f" (the same as {named(twin)} on every deal)"
            if bf is not None and value != base:
                j = f["deals"].join(bf["deals"], on="game", suffix="_ref")
                d_ev = paired_diff((j["event"] / j["plays"]).to_numpy(), (j["event_ref"] / j["plays_ref"]).to_numpy())
                d_win = paired_diff((j["win"] / j["plays"]).to_numpy(), (j["win_ref"] / j["plays_ref"]).to_numpy())
                a = linearised(j["win_clear"].to_numpy(), j["clear"].to_numpy())
                b = linearised(j["win_clear_ref"].to_numpy(), j["clear_ref"].to_numpy())
                d_cond = paired_diff(a, b) if a is not None and b is not None else None
                parts = [f"{ev} {dci_text(d_ev)}", f"win share {dci_text(d_win)}"]
                for name, d in ((f_ev, d_ev), (f_win, d_win), (f_cond, d_cond)):
                    if d is not None:
                        paired_rows.append(paired_row(gaxes, key, name, over, value, base, d))
                if d_cond is not None:
                    parts.append(f"win share when not {ev} {dci_text(d_cond)}")
                risk = {-1: f"less often {ev}", 1: f"more often {ev}", 0: f"not clearly more or less often {ev}"}
                wins = {1: "wins more", -1: "wins less", 0: "no clear change in wins"}
                # the third figure's verdict too (its clear change read as none where wins overall did not change)
                when = ({1: f"wins more when not {ev}", -1: f"wins less when not {ev}",
                         0: f"no clear change in wins when not {ev}"}[direction(d_cond)] if d_cond is not None else None)
                if twin != base:  # alike with the baseline on every deal: no differences to give (all 0)
                    text += (f"; vs {named(base)} on the same deals: " + ", ".join(parts)
                             + f" ({risk[direction(d_ev)]}, {wins[direction(d_win)]}" + (f", {when}" if when else "")
                             + ")")
            sentences.append(text)
    return sentences, frame(paired_rows), frame(est), [sentences[i] for i in heads]


def check(ctx: CheckContext) -> dict[str, Any]:
    return {"event": check_event(ctx, required=True)}


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    answer, paired, est, heads = answer_risk(cfg, tables["cells"], runs)
    return Result(answer, paired, est, headline=heads)


def lead_table(ctx: ReportContext):
    """The answer in one table: a row per value of ``over`` (config order), for each group the three
    shares with their Wilson 95% intervals."""
    est = ctx.t["estimates"]
    if est.height == 0 or "figure" not in est.columns:
        return None
    cell = est.filter(pl.col("scope") == "cell")
    names = cell["figure"].unique(maintain_order=True).to_list()
    words = {n: ("wins" if n == "win_share" else n.replace("win_share_if_not_", "wins if not ").replace("_share", ""))
             for n in names}
    return wide_table(cell, names, words, ctx.s.get("labels") or {}, ctx.over)


def figures(ctx: ReportContext) -> list:
    """Risk against reward per group, then the three figures of every value of ``over``."""
    from reports import plots

    est = ctx.t["estimates"]
    if est.height == 0:
        return []
    names = est["figure"].unique(maintain_order=True).to_list()
    event = next((f for f in names if f.endswith("_share") and f != "win_share" and not f.startswith("win_share")),
                 None)
    if event is None:
        return []
    return [plots.risk_tradeoff(est, event), plots.estimate_panels(est, names, plots.short(ctx.over))]


KIND = AnswerKind("risk", "how often the focus suffers an event, wins, and wins without the event", analyse,
                  needs_over=True, over_players=False, per_game=True, baseline="optional", keys={"event": EVENT_ONLY}, check=check,
                  figures=figures, lead_table=lead_table, dist_by_group=True)
