"""``best``: the best value of ``over`` per group of cells, with the paired difference from the runner-up."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from simcore.registry import get_game
from simcore.stats import paired_diff

from ..config import METRICS
from ..engine import VEC_ROWS
from ..search import Param
from .base import AnswerKind, ReportContext, Result
from .common import (by_symmetry, ci_cell, count_words, named_value, clip_interval, describe_group, experiment_labels, fmt_metric, frame, group_rows, join_values, metric_range,
                     pm_metric, score_name, short, span, value_names)
from .common import label as label_of
from .common import same_on_every_deal
from .common import show as show_value
from .searching import edge_text

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun

#: metric -> (cells column, low column, high column, per-deal vector row)
METRIC_COLUMNS = {
    "win_share": ("focus_win_share", "focus_win_lo", "focus_win_hi", VEC_ROWS.index("focus_win")),
    "mean_score": ("focus_mean_score", "focus_score_lo", "focus_score_hi", VEC_ROWS.index("focus_score")),
    "mean_turns": ("mean_turns", "turns_lo", "turns_hi", VEC_ROWS.index("turns")),
}


def answer_best(cfg: Config, cells: pl.DataFrame, runs: list[CellRun]):
    rep = cfg.report
    col, lo_col, hi_col, vrow = METRIC_COLUMNS[rep.metric]
    label = METRICS[rep.metric][0] if rep.metric != "mean_score" else score_name(cfg.game)
    sentences, paired_rows, picks, lows = [], [], [], []
    same: list[str] = []  # the groups where every value gives the same figure on every deal
    gaxes = cfg.group_axes
    # the focus's mean score beside another metric: which value gives the best (Sen's lowest, the other
    # games' highest), for the headline
    # (not across player counts: scores of different counts do not compare, config.py refuses them as the metric)
    counts: dict[tuple, set[int]] = {}
    for c in cfg.cells:
        counts.setdefault(tuple(repr(c.axes.get(a)) for a in gaxes), set()).add(c.players)
    across = any(len(v) > 1 for v in counts.values())  # values of over at several player counts (game lengths)
    scored = cfg.kind == "focus" and rep.metric != "mean_score" and not across
    scol, slo_col, shi_col, srow = METRIC_COLUMNS["mean_score"]
    low_is_good = get_game(cfg.game).score_better == "min"
    labels = experiment_labels(cfg)
    names = value_names(cfg)  # words for values that mean something of their own: "-1 (never)"

    def show(v):
        return named_value(labels, names, v)

    for key, sub in group_rows(cells, gaxes):
        # (values of the same figure in the order of their own: which is named first does not depend on the order
        # the config lists them in)
        sub = sub.sort([col, rep.over], descending=[rep.goal == "max", False], nulls_last=True)
        best = sub.row(0, named=True)
        desc = describe_group(gaxes, key, labels)
        best_vec = runs[best["cell"]].vectors()
        fair = best.get("fair_share") if rep.metric == "win_share" else None  # what an equal seat would win
        text = (f"best {short(rep.over)}" + (f" for {desc}" if desc else "") + f": {show(best[rep.over])}, "
                f"{label} {pm_metric(rep.metric, best[col], best[lo_col], best[hi_col])}")
        notes = [f"fair {fmt_metric('win_share', fair)}"] if fair is not None else []
        if rep.metric == "win_share" and by_symmetry(best):  # the field's own value: no estimate to give
            text = (f"best {short(rep.over)}" + (f" for {desc}" if desc else "") + f": {show(best[rep.over])}, "
                    f"{label} {fmt_metric('win_share', best[col])}")
            notes = ["the fair share by symmetry: the field's own strategy in every seat"]
        first = len(paired_rows)
        for other in sub.iter_rows(named=True):
            if other["cell"] == best["cell"]:
                continue
            d = paired_diff(runs[other["cell"]].vectors()[vrow], best_vec[vrow])
            paired_rows.append({**{a: v for a, v in zip(gaxes, key)}, "metric": rep.metric, "over": rep.over,
                                "value": other[rep.over], "versus": best[rep.over], "diff": d["diff"], "lo": d["lo"],
                                "hi": d["hi"], "p_value": d["p_value"], "rho": d["rho"], "deals": d["n"]})
        alike = sub.height > 1 and all(same_on_every_deal(p) for p in paired_rows[first:])
        if alike:
            # every value plays the same games by this figure (a parameter that changes nothing here): no best
            same.append(desc)
            shown = (fmt_metric("win_share", best[col]) if rep.metric == "win_share" and by_symmetry(best)
                     else pm_metric(rep.metric, best[col], best[lo_col], best[hi_col]))
            text = (f"no best {short(rep.over)}" + (f" for {desc}" if desc else "") + f": every value gives the same "
                    f"{label} on every deal, {shown}")
            sentences.append(text + (f" ({notes[0]})" if fair is not None else ""))
        else:
            if sub.height > 1:
                nxt = sub.row(1, named=True)
                d = next(p for p in paired_rows if p["value"] == nxt[rep.over] and p["versus"] == best[rep.over]
                         and all(p[a] == v for a, v in zip(gaxes, key)))
                own_next = rep.metric == "win_share" and by_symmetry(nxt) and not by_symmetry(best)
                # (the next value being the field's own, one verdict for both: corrected for picking the best)
                clear = _clear_of_own(d, sub.height) if own_next else bool(d["lo"] > 0 or d["hi"] < 0)
                picks.append((desc, show(best[rep.over]), clear, None))
                if rep.metric == "win_share" and by_symmetry(best):
                    picks[-1] = (desc, show(best[rep.over]), clear, {"own": show(best[rep.over]), "best": True})
                elif own_next:
                    picks[-1] = (desc, show(best[rep.over]), clear, {"own": show(nxt[rep.over]), "clear": clear})
                lo, hi = clip_interval(d["lo"], d["hi"], metric_range(rep.metric, diff=True))
                notes.append(f"next {show(nxt[rep.over])}: " + (_SAME if same_on_every_deal(d) else (
                    f"{fmt_metric(rep.metric, d['diff'], True)}, paired 95% CI {span(rep.metric, lo, hi, True)}"
                    + (_own_words(d, sub.height) if own_next else ", clearly worse" if clear else ", not clearly different"))))
                # the field's own value (a table of one strategy, the fair share), where it is neither the best
                # nor the next: is the best clearly better than doing what the table does?
                own = next((o for o in sub.iter_rows(named=True) if rep.metric == "win_share" and by_symmetry(o)
                            and o["cell"] not in (best["cell"], nxt["cell"])), None)
                if own is not None:
                    d = next(p for p in paired_rows if p["value"] == own[rep.over] and p["versus"] == best[rep.over]
                             and all(p[a] == v for a, v in zip(gaxes, key)))
                    lo, hi = clip_interval(d["lo"], d["hi"], metric_range(rep.metric, diff=True))
                    notes.append(f"the field's own {show(own[rep.over])}: " + (_SAME if same_on_every_deal(d) else (
                        f"{fmt_metric(rep.metric, d['diff'], True)}, paired 95% CI {span(rep.metric, lo, hi, True)}"
                        + _own_words(d, sub.height))))
                    picks[-1] = (desc, show(best[rep.over]), clear,
                                 {"own": show(own[rep.over]), "clear": _clear_of_own(d, sub.height)})
            else:
                picks.append((desc, show(best[rep.over]), False, None))
            role, _, name = rep.over.partition(".")
            # a value that plays the same games as the best (wake 40 and 50 alike, both waking at once): a value
            # beyond the range is no more likely to do better than the best's twin inside it
            tied = any(same_on_every_deal(p) for p in paired_rows[first:])
            if name and "." not in name and not tied:  # a swept parameter or rule option whose best value ends the list
                edge = edge_text([Param(rep.over, role, name, tuple(sub[rep.over].to_list()))], {rep.over: best[rep.over]},
                                 runs[best["cell"]].cell)
                if edge:
                    notes.append(edge[2:])
            if sub.height > 2 and not (rep.metric == "win_share" and by_symmetry(best)):
                # the winner's curse: the value chosen as the best on these deals reads high on them (equal values,
                # measured: its 95% interval held its own value in 91% of samples of 5, 78% of 20)
                notes.append(f"the best of {sub.height}: its interval, from the deals that chose it, is not corrected "
                             "for the choice")
            sentences.append(text + (f" ({'; '.join(notes)})" if notes else ""))
        if scored:
            # (a group without a best: the lowest score is not "also the best" of a tie)
            lows.append(best_score(sub.sort(scol, descending=not low_is_good, nulls_last=True), runs, rep.over, srow,
                                   desc, show, None if alike else best[rep.over]))
            low = lows[-1]
            if low is not None and low["d"] is not None:  # the headline's claim, checkable in the tables too
                d = low["d"]
                paired_rows.append({**{a: v for a, v in zip(gaxes, key)}, "metric": "mean_score", "over": rep.over,
                                    "value": low["next_raw"], "versus": low["raw"], "diff": d["diff"], "lo": d["lo"],
                                    "hi": d["hi"], "p_value": d["p_value"], "rho": d["rho"], "deals": d["n"]})
    # the value with the best mean score of each group, in full (the headline sums them up)
    per_group = list(sentences)
    sname = score_name(cfg.game)
    sentences += [_score_sentence(rep, label, "lowest" if rep.goal == "min" else "highest", [x], low_is_good, x["desc"],
                                  sname) for x in lows if x is not None]
    return sentences, frame(paired_rows), headline(rep, label, picks, [x for x in lows if x is not None], per_group,
                                                   low_is_good, sname, same, across)


def best_score(sub: pl.DataFrame, runs: list[CellRun], over: str, vrow: int, desc: str, show, best) -> dict | None:
    """A group's value of ``over`` with the best mean score of the focus (``sub`` sorted by it, best first),
    with its interval, the next value's paired difference on the same deals, and whether it is the group's
    best value by the answer's metric; None when no cell has a mean score, or where every value's scores are
    the same on every deal (no value has the best of them)."""
    low = sub.row(0, named=True)
    if low["focus_mean_score"] is None:
        return None
    mine = runs[low["cell"]].vectors()[vrow]
    if sub.height > 1 and all(np.array_equal(runs[c].vectors()[vrow], mine) for c in sub["cell"].to_list()):
        return None
    out = {"desc": desc, "value": show(low[over]), "raw": low[over], "x": low["focus_mean_score"],
           "lo": low["focus_score_lo"], "hi": low["focus_score_hi"], "best": low[over] == best, "next": None,
           "next_raw": None, "d": None, "clear": False}
    if sub.height > 1 and sub.row(1, named=True)["focus_mean_score"] is not None:
        nxt = sub.row(1, named=True)
        d = paired_diff(runs[nxt["cell"]].vectors()[vrow], runs[low["cell"]].vectors()[vrow])
        out.update(next=show(nxt[over]), next_raw=nxt[over], d=d, clear=bool(d["lo"] > 0 or d["hi"] < 0))
    role, _, name = over.partition(".")
    if name and "." not in name:  # the best score at the end of the values tried
        out["edge"] = edge_text([Param(over, role, name, tuple(sub[over].to_list()))], {over: low[over]},
                                runs[low["cell"]].cell)[2:]
    return out


def headline(rep, metric_label: str, picks: list[tuple[str, str, bool]], lows: list[dict] = (),
             sentences: list[str] = (), low_is_good: bool = True, score_words: str = "mean score",
             same: list[str] = (), across: bool = False) -> list[str] | None:
    """The best value of each group and in how many it is clearly ahead (one sentence for many groups, else
    the answer's own sentences); then, for a focus and another metric than the mean score, the value with
    the best mean score in each group (the lowest where a lower score is better, as in Sen; one sentence).
    ``same``: the groups where every value gives the same figure on every deal (no best, no pick); ``across``:
    the values of ``over`` are player counts (game lengths), paired by deal number, not played on the same deals."""
    best = "lowest" if rep.goal == "min" else "highest"
    score = _score_sentence(rep, metric_label, best, lows, low_is_good, score=score_words) if lows else None
    if score is not None and len(sentences) + 1 <= 3:
        return [*sentences, score]
    if len(picks) + len(same) <= 3 and score is None:
        return None
    alike = (f"In {len(same)} of the {len(picks) + len(same)} groups every value gives the same {metric_label} on "
             "every deal: none is best there" + (f" ({join_values(same)})" if len(same) <= 3 else "") + ".") if same else None
    if not picks:
        return [f"Every value of {short(rep.over)} gives the same {metric_label} on every deal in every group: none "
                "is best."] + ([score] if score else [])
    values = [p[1] for p in picks]
    text = (f"The {short(rep.over)} with the {best} {metric_label} ranges from {min(values, key=_num)} to "
            f"{max(values, key=_num)} over the {len(picks)} groups" + (" with a best" if same else "") + ": "
            + join_values(_in_group(p[1], p[0]) for p in picks) + ".")
    clear = sum(p[2] for p in picks)
    lead = "clearly ahead of the next value (the runner-up by that figure) " + (
        "paired by deal number" if across else "on the same deals")  # (a deal of another player count is another)
    if len(picks) == 1:
        where = ("It is " if clear else "It is not ") + lead + " in the one group with a best"
    else:
        where = count_words(f"It is {lead}", f"It is not {lead}", clear, len(picks))
    if clear == 0:
        ahead = where + " (the table and the full answer give each group's runner-up)."
    else:
        ahead = (where + ", which does not make it clearly ahead of every other value (paired.parquet compares it "
                 "with each)" + ("; elsewhere the next value is not clearly worse (the table and the full answer "
                                 "give each group's runner-up)" if clear < len(picks) else "") + ".")
    return [text, ahead + _own_text(picks)] + ([alike] if alike else []) + ([score] if score else [])


#: the words for a paired difference of 0 on every deal (two values that play the same games): "+0.00, paired
#: 95% CI [+0.00, +0.00]" read as a difference measured to be small
_SAME = "the same on every deal"


def _clear_of_own(d: dict, values: int) -> bool:
    """Whether the best of ``values`` is clearly better than the field's own value, ``d`` their paired
    difference (own - best): its p-value with Bonferroni's correction for the best's having been picked among
    the others (the own value is fixed in advance, the best is not: among equal values the largest of
    ``values - 1`` differences from the own one would read clear far more often than 5% of the time). With
    two values, or no p-value, its 95% interval off 0."""
    p = d.get("p_value")
    if values <= 2 or p is None or not math.isfinite(p):
        return bool(d["lo"] > 0 or d["hi"] < 0)
    return bool(p * (values - 1) < 0.05 and (d["lo"] > 0 or d["hi"] < 0))


def _own_words(d: dict, values: int) -> str:
    """The words after the field's own value's paired difference from the best: '' where it is clearly
    worse (corrected for the choice of the best), else why it is not."""
    if _clear_of_own(d, values):
        return f", clearly different, also corrected for picking the best of {values}" if values > 2 else ""
    if d["lo"] > 0 or d["hi"] < 0:
        return f", not clearly different once corrected for picking the best of {values} (Bonferroni)"
    return ", not clearly different"


def _own_text(picks: list[tuple]) -> str:
    """The headline's words on the field's own value (a table of one strategy: what the table does), where
    the groups have one: in how many groups the best is clearly better than it, and where it is the best
    or not clearly worse than the best (the answer in full gives each difference)."""
    owns = [(p[0], p[3]) for p in picks if len(p) > 3 and p[3] is not None]
    if not owns:
        return ""
    names = join_values(dict.fromkeys(o["own"] for _, o in owns))
    beaten = sum(1 for _, o in owns if o.get("clear"))
    text = (f" Against playing the field's own value, {names}, as the other seats do, the best is clearly better "
            f"(corrected for its being picked as the best) in {beaten} of the {len(owns)} groups")
    for words, kept in (("is itself the best", [d for d, o in owns if o.get("best")]),
                        ("is not clearly worse than the best",
                         [d for d, o in owns if not o.get("best") and not o.get("clear")])):
        if kept:
            text += f"; {names} {words} in {len(kept)} ({join_values(d for d in kept if d) or 'its group'})"
    return text + "."


def _score_sentence(rep, metric_label: str, best: str, lows: list[dict], low_is_good: bool = True,
                    desc: str = "", score: str = "mean score") -> str:
    """``The wake with the lowest mean score ...`` (``highest`` in a game whose higher scores are better): per
    group the value, in how many groups it is clearly below (above) the next value on the same deals, and
    in how many it is also the best by the answer's metric."""
    over = short(rep.over)
    most, side = ("lowest", "below") if low_is_good else ("highest", "above")
    if len(lows) == 1:
        x = lows[0]
        text = (f"The {over} with the {most} {score}" + (f" for {desc}" if desc else "") + f" is {x['value']}, "
                f"{score} {pm_metric('mean_score', x['x'], x['lo'], x['hi'])}")
        if x["next"] is not None:
            d = x["d"]
            text += (f" (next {x['next']}: " + (_SAME if same_on_every_deal(d) else (
                f"{fmt_metric('mean_score', d['diff'], True)}, paired 95% CI {span('mean_score', d['lo'], d['hi'], True)}"
                + (", clearly worse" if x["clear"] else ", not clearly different"))) + ")")
        return (text + (f"; it is also the {over} with the {best} {metric_label}" if x["best"] else "")
                + (f"; {x['edge']}" if x.get("edge") else "") + ".")
    values = [x["value"] for x in lows]
    n = len(lows)
    where = join_values(_in_group(x["value"], x["desc"]) for x in lows)
    return (f"The {over} with the {most} {score} " + (f"ranges from {min(values, key=_num)} to {max(values, key=_num)} "
            f"over the {n} groups: " if n > 3 else "is ") + where
            + ". " + count_words(f"It is clearly {side} the next value on the same deals", f"It is not clearly {side} "
                                  "the next value on the same deals", sum(x['clear'] for x in lows), n)
            + ", and " + count_words(f"is also the {over} with the {best} {metric_label}", f"is not the {over} with "
                                      f"the {best} {metric_label}", sum(x['best'] for x in lows), n) + ".")


def _in_group(value: str, desc: str) -> str:
    """A value with its group, ``18 (2 players, penalty 5)``; one with a word of its own shares the brackets:
    ``-1 (never; 2 players, penalty 15)``."""
    return f"{value[:-1]}; {desc})" if value.endswith(")") and desc else f"{value} ({desc})"


def _num(v: str):
    try:  # (a value with its word, "-1 (never)", by its number)
        return (0, float(v.split(" (")[0]))
    except ValueError:
        return (1, v)


def check_metric(ctx, metric: str) -> None:
    if metric in ("win_share", "mean_score") and ctx.lineup == "seats":
        what = ("mean_turns for a seats lineup (win share and score belong to a focus; for one seat's, a focus "
                "lineup with lineup.rotate = false, or answer = \"summary\" for every seat's)")
        if ctx.cells and all(c.players == 1 for c in ctx.cells):  # (a focus needs 2 players: no way round there)
            what = ("mean_turns for a solo game (a score belongs to a focus, which needs 2 players; answer = "
                    "\"summary\" gives each setting's solo mean score, answer = \"calibration\" its levels)")
        if "metric" in ctx.table:
            ctx.ck.fail("report.metric", what, metric)
        ctx.ck.fail("report.metric", what + f", as none is given here (the default, {metric}, is a focus's)")
    lineup = ctx.raw.get("lineup") if isinstance(ctx.raw.get("lineup"), dict) else {}
    if (metric == "win_share" and ctx.cells and lineup.get("rotate", True) is True
            and all(len({a.spec() for a in c.agents}) == 1 for c in ctx.cells)):
        # (a sweep of strategy.P sets every seat: every value won its fair share by symmetry, and "the field's
        # own value" changed with the value)
        ctx.ck.fail("report.metric", "a focus that differs from the field in some cell for win_share (every cell "
                    "is self-play, the same strategy in every seat, so each value wins the fair share by symmetry: "
                    "sweep focus.P to vary the focus alone, ask metric = \"mean_score\" or \"mean_turns\", or "
                    "answer = \"effect\" or \"summary\" for the same strategy in every seat)",
                    metric)


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    answer, paired, heads = answer_best(cfg, tables["cells"], runs)
    return Result(answer, paired, headline=heads)


def lead_table(ctx: ReportContext):
    """One row per group: the best value of ``over`` with its figure and interval, the next value and the
    paired difference from the best on the same deals."""
    s, cells, over, gaxes = ctx.s, ctx.cells, ctx.over, ctx.gaxes
    if not over or over not in cells.columns:
        return None
    labels = s.get("labels") or {}
    names = s.get("value_names") or {}  # "-1 (never)", as the sentences and plots have it

    def named(v) -> str:
        return named_value(labels, names, v)

    metric = s["metric"]
    col, lo, hi, _ = METRIC_COLUMNS[metric]
    pct = metric == "win_share"
    paired = ctx.t["paired"]
    rows = []
    for key, sub in group_rows(cells, gaxes):
        sub = sub.sort(col, descending=s.get("goal") != "min", nulls_last=True)
        best = sub.row(0, named=True)
        row = {a if a != "players" else "players": show_value(v) for a, v in zip([short(a) for a in gaxes], key)}
        mine = pl.lit(True)  # this group's paired rows of the metric against the best
        for a, v in zip(gaxes, key):
            mine = mine & (pl.col(a) == v)
        versus = (paired.filter(mine & (pl.col("metric") == metric) & (pl.col("versus").cast(pl.String) == str(best[over])))
                  if paired.height else paired)
        alike = sub.height > 1 and versus.height == sub.height - 1 and all(same_on_every_deal(p) for p in versus.iter_rows(named=True))
        row[f"best {short(over)}"] = "none: every value the same" if alike else named(best[over])
        # the field's own value wins the fair share by symmetry: a figure without an interval, as in the sentence
        row[s["metric_label"] + (" %" if pct else "")] = (
            f"{ci_cell(best[col], None, None, pct, unit=False)} (by symmetry)" if pct and by_symmetry(best)
            else ci_cell(best[col], best[lo], best[hi], pct, unit=False, bounds=metric_range(metric)))
        if sub.height > 1:
            nxt = sub.row(1, named=True)
            row[f"next {short(over)}"] = named(nxt[over])
            hit = versus.filter(pl.col("value").cast(pl.String) == str(nxt[over])) if versus.height else versus
            d = hit.row(0, named=True) if hit.height else None
            # (player counts compared by game length: a deal of another count is another deal, paired by its number)
            row[("next minus best (paired by deal number)" if sub["players"].n_unique() > 1 else
                 "next minus best (same deals)") + (" %" if pct else "")] = \
                _SAME if d and same_on_every_deal(d) else ci_cell(d["diff"], d["lo"], d["hi"], pct, signed=True, unit=False,
                                                     bounds=metric_range(metric, diff=True)) if d else ""
        rows.append(row)
    return pl.DataFrame(rows, schema={k: pl.String for k in rows[0]}) if rows else None


def lead_figures(ctx: ReportContext) -> list:
    """The metric against ``over`` (and the other figures of the cells), one line per group, and a heatmap."""
    from reports import plots

    s, cells, over, gaxes = ctx.s, ctx.cells, ctx.over, ctx.gaxes
    if not over:
        return []
    metric = s["metric"]
    mcols = {m: cols[:3] for m, cols in METRIC_COLUMNS.items()}
    y, lo, hi = mcols[metric]
    names = s.get("value_names") or {}  # (a run written before they were kept has none)
    out = [plots.sweep_lines(cells, over, gaxes, y, lo, hi, s["metric_label"], metric == "win_share", names=names)]
    if metric != "mean_score" and s["lineup"] == "focus":
        out.append(plots.sweep_lines(cells, over, gaxes, *mcols["mean_score"], "mean score", names=names))
    if metric != "mean_turns":
        out.append(plots.sweep_lines(cells, over, gaxes, *mcols["mean_turns"], "mean turns per game", names=names))
    out.append(plots.sweep_heatmap(cells, over, gaxes, y, s["metric_label"], metric == "win_share"))
    return out


# (not a tournament: its cells of every match-up fell in one group, and the best was one match-up's cell
# compared with the others', without saying whose share it was; effect or ratings answer a tournament)
KIND = AnswerKind("best", "the best value of `over` per group", analyse, needs_over=True, vectors=True, uses_metric=True, uses_goal=True,
                  lineups=("focus", "seats"),
                  check_metric=check_metric, lead_figures=lead_figures, lead_table=lead_table, dist_by_group=True,
                  balance_by_group=True)
