"""``turn_order``: every table seat's win share (and event rate) per value of ``over``, a test of
equal seats, and each seat's paired differences against the baseline."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from scipy import stats as _st

from simcore.stats import alike_share_interval, deal_share_interval, holm, paired_diff, share_ci, values_ci

from .base import AnswerKind, CheckContext, ReportContext, Result
from .common import wide_table
from .common import (EVENT_ONLY, average_seat, fair_text, baseline_of, check_event, ci_text, dci_text, describe_group, direction, est_row, event_rows,
                     experiment_labels, fmt_metric, frame, group_rows, lineup_label, paired_row, same_on_every_deal, short,
                     p_text, show, value_name)

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def _seat_ci(per: pl.DataFrame, col: str, seat: int, count: float, n: float, several: bool):
    """A seat's share with its 95% interval: Wilson over its games, or, where a deal was played more than
    once, Wilson's interval with the deals' effective number of games (:func:`simcore.stats.deal_share_interval`:
    the spread of the per-deal shares, each deal's games averaged first, and the t quantile of the deals)."""
    if not several:
        return share_ci(count, n)
    x = count / n if n else None
    if x is None:
        return None, None, None
    values = per.filter(pl.col("seat") == seat)[col].to_numpy()
    # (every deal alike, a seat never eliminated: Wilson's interval over the deals, deal_share_interval's own)
    return (x, *deal_share_interval(x, values))


def _equal_seats_p(per: pl.DataFrame, col: str, P: int) -> float | None:
    """p-value of equal seat shares over deals (Hotelling's T² on the P - 1 differences from the last seat,
    deal by deal): the games of one deal are not independent, so a chi-square over them would be too bold."""
    wide = per.pivot(on="seat", index="game", values=col).drop("game").to_numpy().astype(np.float64)
    if wide.shape[1] != P:
        return None
    y = wide[:, :-1] - wide[:, -1:]
    n, p = y.shape
    if n <= p:
        return None
    mean = y.mean(axis=0)
    cov = np.cov(y, rowvar=False).reshape(p, p)
    t2 = float(n * mean @ np.linalg.pinv(cov) @ mean)
    if not np.isfinite(t2):
        return None
    f = (n - p) / (p * (n - 1)) * t2
    return float(_st.f.sf(f, p, n - p))


def answer_turn_order(cfg: Config, cells: pl.DataFrame, runs: list[CellRun]):
    """Each table seat's win share (and, with report.event, its event rate, e.g. elimination) for every value
    of ``over`` and group, with a test of equal seats; each value paired deal by deal against the
    baseline (default: the first value), seat by seat."""
    rep = cfg.report
    ev, over, gaxes = rep.event, rep.over, cfg.group_axes
    names = ["win_share"] + ([f"{ev}_share"] if ev else [])
    sentences, paired_rows, est, heads = [], [], [], []
    labels = experiment_labels(cfg)
    for key, sub in group_rows(cells, gaxes):
        desc = describe_group(gaxes, key, labels)
        P = int(sub["players"][0])
        figs: dict[Any, dict[str, Any]] = {}
        for i in sub["cell"].to_list():
            run = runs[i]
            g = event_rows(cfg, run)
            aggs = [pl.col("win").mean()] + ([pl.col("event").mean()] if ev else [])
            per = g.group_by(["game", "seat"]).agg(aggs).sort(["game", "seat"])   # a deal's rotations averaged
            n = float(g.filter(pl.col("seat") == 0).height)                          # games per seat
            wins = np.array([float(g.filter(pl.col("seat") == s)["win"].sum()) for s in range(P)])
            several = n > per["game"].n_unique()  # a deal played more than once (rotations): not independent
            # seat 0's share less the average seat's, deal by deal: 1/P of the games that have a winner (the fair
            # 1/P where no game stopped at the turn limit)
            dec = per.group_by("game").agg(pl.col("win").sum().alias("decided")).sort("game")["decided"].to_numpy()
            adv = per.filter(pl.col("seat") == 0)["win"].to_numpy() - dec / P
            fair = average_seat(float(dec.mean()), P)
            if np.ptp(adv) > 0:
                adv_ci = values_ci(adv)
            else:  # alike on every deal: no spread to bound it, so seat 0's Wilson interval over the deals, less the fair share
                s0lo, s0hi = alike_share_interval(float(wins[0]) / n, len(adv), len(adv))
                adv_ci = (float(adv[0]), float(s0lo) - fair, float(s0hi) - fair)
            fig = {"cell": i, "per": per, "games": n, "lineup": lineup_label(run.cell, labels),
                   "mixed": len({a.spec() for a in run.cell.agents}) > 1 and several,
                   "fair": fair, "adv": adv_ci,
                   "p": (_equal_seats_p(per, "win", P) if several else float(_st.chisquare(wins).pvalue))
                   if wins.sum() > 0 and P > 1 else None,
                   "test": "Hotelling's T² test over deals" if several else "chi-square test",
                   "win_share": [_seat_ci(per, "win", s, wins[s], n, several) for s in range(P)]}
            if ev:
                fig[names[1]] = [_seat_ci(per, "event", s, float(g.filter(pl.col("seat") == s)["event"].sum()), n,
                                          several) for s in range(P)]
            value = run.cell.axes[over]
            figs[value] = fig
            deals = per["game"].n_unique()
            for name in names:
                for s, (x, lo, hi) in enumerate(fig[name]):
                    est.append({**est_row("cell", i, desc, value, fig["lineup"], P, name, x, lo, hi, deals), "seat": s})
        values = list(figs)
        base = baseline_of(cfg, values)
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
                    paired_rows.append(paired_row(gaxes, key, name, over, value, base, d, seat=s))
                diffs[value][name] = ds
        # the group's headline: seat 0 under the baseline, and how each value moves it
        head_f = bf if bf is not None else figs[values[0]]
        x0, lo0, hi0 = head_f["win_share"][0]
        shares = [w[0] or 0.0 for w in head_f["win_share"]]
        a, alo, ahi = _advantage(head_f, P)
        text = ((f"{desc}, " if desc else "") + f"{head_f['lineup']}, {short(over)} {show(base)}: seat 0 (the first "
                f"player) wins {ci_text(x0, lo0, hi0, refs=(head_f['fair'],))} against {fair_text(head_f['fair'], P)} (advantage "
                f"{fmt_metric('seat_advantage', a, True)}"
                + (", clearly" if alo is not None and (alo > 0 or ahi < 0) else ", not clearly")
                + " different from it); "
                + ((f"best seat {int(np.argmax(shares))}, worst seat {int(np.argmin(shares))} by the estimates"
                    + (f" ({head_f['test']} of equal seats p = {p_text(head_f['p'])})" if head_f["p"] is not None else ""))
                   if max(shares) > min(shares) else "every seat wins as often"))
        if head_f["mixed"]:
            # a rotated lineup of different strategies: each sits in every seat, so the seats' shares mix the
            # strategies' strengths with the seat's own edge, and the deals a strategy wins from any seat say
            # nothing of the seat (threshold / random: seat 0 at 50.1% [49.7%, 50.5%])
            text += ("; with different strategies rotated through the seats, a seat's share mixes their strengths "
                     "with its own edge, and the games one of them wins from any seat say nothing of the seat (one "
                     "strategy in every seat shows the seat alone)")
        if ev:
            e = head_f[names[1]]
            text += f"; {ev}: seat 0 (the first) {ci_text(*e[0])}, seat {P - 1} (the last) {ci_text(*e[P - 1])}"
        # each value's change and the share it leads to (seat 0's own figure, not only the difference)
        # a value that changes the lineup says whose lineup it is ("guard (guard in every seat)")
        # a bare number or on/off names its axis ("with chosen_fan on", not "with on")
        # whether each change is clear: its paired interval off 0, or with several values Holm's correction over
        # them (the largest of several changes reads large by chance more often than one does)
        # a value under which seat 0 wins on every deal as under the baseline (a rule option that changes nothing
        # here) is said to be, not tested: "+0.0% [+0.0%, +0.0%] (not clearly a change)" read as a measurement,
        # and it would count in Holm's correction of the others
        same = {v: same_on_every_deal(d["win_share"][0]) for v, d in diffs.items()}
        tested = [v for v in diffs if not same[v]]
        verdict = dict(zip(tested, clear_changes([diffs[v]["win_share"][0] for v in tested]))) if tested else {}
        clear = [verdict.get(v, False) for v in diffs]
        moves = [value_name(over, v)
                 + (f" ({figs[v]['lineup']})" if figs[v]["lineup"] != head_f["lineup"] else "")
                 + (" the same on every deal" if same[v] else
                    f" {dci_text(d['win_share'][0])} ({'a clear change' if c else 'not clearly a change'}; to "
                    + f"{ci_text(*figs[v]['win_share'][0], refs=(figs[v]['fair'],))}, " + _against_fair(figs[v], P) + ")")
                 for (v, d), c in zip(diffs.items(), clear)]
        if moves:
            text += "; seat 0's win share changes on the same deals with " + ", ".join(moves)
            if len(tested) > 1:
                text += f" (clear or not with Holm's correction over the {len(tested)} changes)"
            text += _other_seat_text(diffs, figs, over, P, dict(zip(diffs, clear)))
        heads.append(text)
        sentences.append(text)
        for value, f in figs.items():
            text = ((f"{desc}, " if desc else "") + f"{short(over)} {show(value)}: win share "
                    + ", ".join(f"seat {s} {ci_text(*x, refs=(f['fair'],))}" for s, x in enumerate(f["win_share"]))
                    + f" (fair {100 * f['fair']:.1f}%" + (f"; {f['test']} of equal seats p = {p_text(f['p'])}" if f["p"] is not None
                                                 else "") + ")")
            if ev:
                text += f"; {ev} " + ", ".join(f"seat {s} {ci_text(*x)}" for s, x in enumerate(f[names[1]]))
            if value in diffs and all(same_on_every_deal(d) for name in names for d in diffs[value][name]):
                text += (f"; every seat the same as under {show(base)} on every deal (win share"
                         + (f" and {ev})" if ev else ")"))
            elif value in diffs:
                text += f"; vs {show(base)} on the same deals: win share " + ", ".join(
                    f"seat {s} {dci_text(d)}" for s, d in enumerate(diffs[value]["win_share"]))
                if ev:
                    text += f"; {ev} " + ", ".join(f"seat {s} {dci_text(d)}" for s, d in enumerate(diffs[value][names[1]]))
            sentences.append(text)
    return sentences, frame(paired_rows), frame(est), heads


def _advantage(f: dict, P: int) -> tuple:
    """Seat 0's advantage over the fair share with its interval: where every game has a winner, seat 0's own
    interval less 1/P; else the deal-by-deal difference from the average seat's share."""
    a, alo, ahi = f["adv"]
    if f["fair"] == 1 / P:
        _, lo, hi = f["win_share"][0]
        alo, ahi = (None, None) if lo is None else (lo - 1 / P, hi - 1 / P)
    return a, alo, ahi


def _against_fair(f: dict, P: int) -> str:
    """``clearly above the fair 50.0%``: a value's own level of seat 0 against its fair share (a change from
    the baseline can be clear while the level it leads to is not clearly off the fair share)."""
    _, alo, ahi = _advantage(f, P)
    where = ("clearly above" if alo is not None and alo > 0 else "clearly below" if ahi is not None and ahi < 0
             else "not clearly off")
    return f"{where} the fair {100 * f['fair']:.1f}%"


def clear_changes(ds: list[dict[str, Any]]) -> list[bool]:
    """Which of several paired changes are clear: one by its 95% interval off 0, several by Holm's correction
    over their p-values (the largest of several changes reads large by chance more often than one does)."""
    if len(ds) == 1:
        return [direction(ds[0]) != 0]
    return holm([d["p_value"] for d in ds])


def _other_seat_text(diffs, figs, over: str, P: int, clear0: dict[Any, bool]) -> str:
    """Where another seat's win share changes clearly and more than seat 0's does under any value, the
    largest such change (the sentence would otherwise speak of seat 0 alone: Senshi's last seat with 4
    players loses 4.7% with secret_hand, where seat 0 gains 2.8%). ``clear0``: each value's seat-0 verdict.
    The other seats' changes are many (every value, every seat), so with more than one "clear" takes Holm's
    correction over all of them, as seat 0's takes it over the values."""
    first = max((abs(d["win_share"][0]["diff"]) for v, d in diffs.items() if clear0.get(v)), default=0.0)
    # (a seat whose share is the same on every deal as under the baseline is no change, and left out of the
    # correction, as seat 0's are)
    others = [(v, s, d["win_share"][s]) for v, d in diffs.items() for s in range(1, P)
              if not same_on_every_deal(d["win_share"][s])]
    if not others:
        return ""
    clear = clear_changes([x for _, _, x in others])
    best = None
    for (v, s, x), c in zip(others, clear):
        if c and abs(x["diff"]) > first and (best is None or abs(x["diff"]) > abs(best[2]["diff"])):
            best = (v, s, x)
    if best is None:
        return ""
    v, s, x = best
    return (f"; the largest clear change of any seat: seat {s}{' (the last)' if s == P - 1 else ''} "
            f"{dci_text(x)} with {value_name(over, v)} (to {ci_text(*figs[v]['win_share'][s])})"
            + (f" (clear with Holm's correction over the {len(others)} changes of the other seats)"
               if len(others) > 1 else ""))




def check(ctx: CheckContext) -> dict[str, Any]:
    return {"event": check_event(ctx, required=False)}


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    answer, paired, est, heads = answer_turn_order(cfg, tables["cells"], runs)
    return Result(answer, paired, est, headline=heads if len(heads) <= 3 else heads[:1])


def lead_table(ctx: ReportContext):
    """A row per value of ``over``; for each group, seat 0's (the first player's) and the last seat's win
    share and event rate with their Wilson 95% intervals."""
    est = ctx.t["estimates"]
    if est.height == 0 or "seat" not in est.columns:
        return None
    cell = est.filter((pl.col("scope") == "cell") & pl.col("seat").is_not_null())
    last = cell.group_by("group").agg(pl.col("seat").max().alias("last"))
    cell = cell.join(last, on="group", maintain_order="left")
    cell = cell.filter((pl.col("seat") == 0) | (pl.col("seat") == pl.col("last")))
    cell = cell.with_columns(pl.concat_str([pl.col("figure"), pl.when(pl.col("seat") == 0).then(pl.lit("@first"))
                                            .otherwise(pl.lit("@last"))]).alias("figure"))
    names = cell["figure"].unique(maintain_order=True).to_list()
    names = sorted(names, key=lambda n: (not n.startswith("win_share"), not n.endswith("@first")))
    words = {n: ("seat 0" if n.endswith("@first") else "last seat") + " "
             + ("wins" if n.startswith("win_share") else n.split("@")[0].replace("_share", "")) for n in names}
    return wide_table(cell, names, words, ctx.s.get("labels") or {}, ctx.over)


def figures(ctx: ReportContext) -> list:
    """Every seat's figures per value of ``over``, and the paired differences by seat."""
    from reports import plots

    est = ctx.t["estimates"]
    if est.height == 0:
        return []
    names = est["figure"].unique(maintain_order=True).to_list()
    return [plots.seat_figures(est, names, ctx.over), plots.seat_paired_plot(ctx.t["paired"], ctx.gaxes)]


KIND = AnswerKind("turn_order", "does the seat (the turn order) matter", analyse, needs_over=True, over_players=False, per_game=True,
                  baseline="optional", keys={"event": EVENT_ONLY}, check=check, figures=figures, lead_table=lead_table,
                  paired_plot=False,
                  dist_by_group=True)
