"""``balance``: does seat 0 win more than 1/P, per value of ``over`` and group; the game's ratio metrics.

Config key: ``report.metrics`` (optional): ratio metrics of the game (``prefix_*`` for a family).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from scipy import stats as _st

from simcore.game import SHARE
from simcore.registry import get_game
from simcore.stats import holm, mean_interval, ratio_ci

from .base import AnswerKind, CheckContext, ReportContext, Result
from .common import (average_seat, describe_group, fair_text, est_row, experiment_labels, fmt_metric, frame, group_rows, lineup_label, pm_metric,
                     pm_text, pool_deals, seat0_advantage, short, show, units)
from .common import SHARE_RANGE, and_list, ci_cell, deal_frame, join_values

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def _self_play(run) -> bool:
    """Whether a cell has one strategy in every seat (only the seat then differs between its seats)."""
    return len(set(run.cell.agents)) == 1


def _plural(word: str) -> str:
    """``pairings`` for ``pairing``, ``penalties`` for ``penalty``; ``start_positions`` and ``players`` stay as
    they are."""
    if word.endswith("s"):
        return word
    return word[:-1] + "ies" if len(word) > 1 and word[-1] == "y" and word[-2] not in "aeiou" else word + "s"


def _metric_defs(cfg: Config) -> list[Any]:
    """The game's ratio metrics named by report.metrics (``prefix_*`` expands to the family), in order."""
    eng = get_game(cfg.game)
    known = [m for m in eng.ratio_metrics if not m.per_seat]
    out = []
    for name in cfg.report.metrics:
        hit = [m for m in known if (m.name.startswith(name[:-1]) if name.endswith("*") else m.name == name)]
        out.extend(m for m in hit if m not in out)
    return out


def answer_balance(cfg: Config, cells: pl.DataFrame, runs: list[CellRun]):
    """Does seat 0 (the first player) win more than 1/P, for every value of ``over`` (e.g. a pairing of
    strategies, rotated so that each plays every seat) and pooled per group; plus the game's ratio metrics
    named in report.metrics, pooled over every cell. Intervals over deals."""
    rep = cfg.report
    over = rep.over
    gaxes = cfg.group_axes
    defs = _metric_defs(cfg)
    frames = {i: deal_frame(cfg, runs[i], defs) for i in cells["cell"].to_list()}
    est, sentences, heads = [], [], []
    metric_text, ranges = None, []  # the plain metrics' sentence and each family's range, for the headline
    labels = experiment_labels(cfg)

    def metric_rows(scope, cell, group, case, strat, P, f, deals):
        for m in defs:
            v, lo, hi = ratio_ci(f[f"num.{m.name}"].to_numpy(), f[f"den.{m.name}"].to_numpy(),
                                 share=m.bounds is not None and tuple(m.bounds) == SHARE)
            est.append(est_row(scope, cell, group, case, strat, P, m.name, v, lo, hi, deals))

    for key, sub in group_rows(cells, gaxes):
        desc = describe_group(gaxes, key, labels)
        P = int(sub["players"][0])
        above, below, best, tests = [], [], None, []
        for row in sub.iter_rows(named=True):
            f = frames[row["cell"]]
            strat = lineup_label(runs[row["cell"]].cell, labels)
            w, lo, hi = mean_interval(f["seat0_win"].to_numpy(), share=True)
            est.append(est_row("cell", row["cell"], desc, row[over], strat, P, "seat0_win_share", w, lo, hi, f.height))
            metric_rows("cell", row["cell"], desc, row[over], strat, P, f, f.height)
            # seat 0's share less the average seat's, per deal (the fair 1/P where every game has a winner)
            x = seat0_advantage(f, P)
            # every deal alike: no t test; the sign test's p (all n deals on one side of it: 2 / 2^n)
            p = float(_st.ttest_1samp(x, 0.0).pvalue) if np.ptp(x) > 0 else \
                (1.0 if x[0] == 0 else min(1.0, 2.0 * 0.5 ** len(x)))
            tests.append((row[over], float(x.mean()), p))
            if best is None or abs(x.mean()) > abs(best[4]):
                best = (row[over], w, lo, hi, float(x.mean()))
        for (case, adv, _), rejected in zip(tests, holm([t[2] for t in tests])):
            if rejected:
                (above if adv > 0 else below).append(case)
        pooled = pool_deals([frames[i] for i in sub["cell"].to_list()], defs)
        w, lo, hi = mean_interval(pooled["seat0_win"].to_numpy(), share=True)
        est.append(est_row("group", None, desc, None, None, P, "seat0_win_share", w, lo, hi, pooled.height))
        metric_rows("group", None, desc, None, None, P, pooled, pooled.height)
        x = seat0_advantage(pooled, P)
        adv, alo, ahi = mean_interval(x)
        fair = average_seat(float(pooled["decided"].mean()), P)
        if len(x) > 1 and np.ptp(x) == 0 and lo is not None:
            # alike on every deal: seat 0's Wilson interval over the deals (as its share's), less the fair share
            alo, ahi = lo - fair, hi - fair
        est.append(est_row("group", None, desc, None, None, P, "seat_advantage", adv, alo, ahi, pooled.height))
        clear = alo is not None and (alo > 0 or ahi < 0)
        # (one strategy in every seat: its seat orders are one lineup, each deal played once)
        once = all(len(runs[i].rotations) == 1 for i in sub["cell"].to_list())
        rotated = ("lineups as listed (not rotated)" if not cfg.rotate else "each deal played once" if once
                   else "each lineup played in every seat order")
        if sub.height > 1 and len({len(runs[i].rotations) for i in sub["cell"].to_list()}) > 1:
            # a lineup of one strategy plays a deal once, the others once per seat order: deal by deal, every
            # one weighs alike (a share of all their games would weigh the mixed ones more)
            rotated += f", every {short(over)} weighing alike"
        text = ((f"{desc}: " if desc else "") + f"seat 0 (the first player) wins "
                f"{pm_metric('win_share', w, lo, hi, refs=(fair,))} "
                f"of {' and '.join(sorted({units(runs[i].cell.rules) for i in sub['cell'].to_list()}))} over the "
                f"{sub.height} {_plural(short(over))} ({rotated}), "
                f"advantage {fmt_metric('seat_advantage', adv, True)} over {fair_text(fair, P)}"
                + ((", clearly above it" if alo > 0 else ", clearly below it") if clear
                   else ", not clearly different from it")
                + f"; clearly above {'it' if fair != 1 / P else f'{100 / P:.0f}%'} in {len(above)} of {sub.height} "
                  f"{_plural(short(over))}"
                + (f" ({join_values(map(show, above))})" if 0 < len(above) <= 6 else "")
                + f", clearly below in {len(below)}"
                + (f" ({join_values(map(show, below))})" if 0 < len(below) <= 6 else "")
                + f" (t tests over deals, Holm's correction over the {sub.height})")
        if best is not None:
            text += (f"; furthest from it: {short(over)} {show(best[0])} "
                     f"{pm_metric('win_share', best[1], best[2], best[3])}"
                     + ("" if fair == 1 / P else f" (advantage {fmt_metric('seat_advantage', best[4], True)})"))
        # the lineups of one strategy in every seat apart: there only the seat differs, where a pairing of two
        # adds the stronger strategy's games, in which the seat matters little (Fan & Mallet: 50.2% over every
        # pairing, 54.0% with counter in both seats)
        same = [i for i in sub["cell"].to_list() if _self_play(runs[i])]
        own = None
        if same and len(same) < sub.height:
            sp = pool_deals([frames[i] for i in same], defs)
            sw, slo, shi = mean_interval(sp["seat0_win"].to_numpy(), share=True)
            sx = seat0_advantage(sp, P)
            sadv, salo, sahi = mean_interval(sx)
            sfair = average_seat(float(sp["decided"].mean()), P)
            if len(sx) > 1 and np.ptp(sx) == 0 and slo is not None:
                # alike on every deal: seat 0's interval over the deals (as its share's), less the fair share
                salo, sahi = slo - sfair, shi - sfair
            sclear = salo is not None and (salo > 0 or sahi < 0)
            own = (sw, slo, shi, sfair, sclear, len(same))
            text += (f"; in the {len(same)} {_plural(short(over)) if len(same) > 1 else short(over)} of one strategy "
                     f"in every seat, where only the seat differs: {pm_metric('win_share', sw, slo, shi)}, advantage "
                     f"{fmt_metric('seat_advantage', sadv, True)}"
                     + ((", clearly above the fair share" if salo > 0 else ", clearly below the fair share") if sclear
                        else ", not clearly different from the fair share"))
        heads.append((desc, w, lo, hi, fair, clear, len(above), len(below), sub.height, own))
        sentences.append(text)
    if defs:
        pooled = pool_deals(list(frames.values()), defs)
        metric_rows("all", None, "all cells", None, None, None, pooled, pooled.height)
        allrows = {r["figure"]: r for r in est if r["scope"] == "all"}
        # cells of one strategy in every seat and cells of a pairing of two: a pooled figure mixes the rule's
        # effect with the stronger strategy's (who wins the first possession tends to win the game), so it is
        # also given for each kind of cell apart
        kinds: dict[str, list[int]] = {"self-play": [], "mixed": []}
        for i in frames:
            kinds["self-play" if _self_play(runs[i]) else "mixed"].append(i)
        apart = all(kinds.values())
        if apart:
            for kind, idx in kinds.items():
                part = pool_deals([frames[i] for i in idx], defs)
                metric_rows(kind, None, f"{kind} cells", None, None, None, part, part.height)
        families: dict[str, list[Any]] = {}
        for name in rep.metrics:
            families[name] = [m for m in defs if (m.name.startswith(name[:-1]) if name.endswith("*") else m.name == name)]
        plain = [n for n in rep.metrics if not n.endswith("*")]
        scope = f"over every cell ({len(frames)} cells, {pooled.height:,} deals, each deal counted once)"
        words = get_game(cfg.game).metric_words

        def said(n: str) -> str:  # a metric with its interval, in the game's words where it has them
            text = pm_text(n, allrows[n]["value"], allrows[n]["lo"], allrows[n]["hi"])
            text = words[n].format(text) if n in words else f"{n} {text}"
            # pooled over groups that may differ: the range from the group with the least to the most
            rows = sorted((r for r in est if r["scope"] == "group" and r["figure"] == n and r["value"] is not None),
                          key=lambda r: r["value"])
            if len(rows) > 1:
                lo_r, hi_r = rows[0], rows[-1]
                text += (f" (by group from {pm_text(n, lo_r['value'], lo_r['lo'], lo_r['hi'])} ({lo_r['group']}) "
                         f"to {pm_text(n, hi_r['value'], hi_r['lo'], hi_r['hi'])} ({hi_r['group']}))")
            if apart:
                got = {r["scope"]: r for r in est if r["scope"] in kinds and r["figure"] == n}
                cells = {k: f"{len(v)} cell" + ("" if len(v) == 1 else "s") for k, v in kinds.items()}
                text += (f", {pm_text(n, got['self-play']['value'], got['self-play']['lo'], got['self-play']['hi'])} "
                         f"in the {cells['self-play']} of one strategy in every seat and "
                         f"{pm_text(n, got['mixed']['value'], got['mixed']['lo'], got['mixed']['hi'])} in the "
                         f"{cells['mixed']} of different strategies")
            return text

        if plain:
            metric_text = f"{scope}: " + ("; " if apart or any(n in words for n in plain) else ", ").join(
                map(said, plain))
            sentences.append(metric_text)
        for name in rep.metrics:
            if not name.endswith("*"):
                continue
            prefix = name[:-1]
            ms = sorted(families[name], key=lambda m: -(allrows[m.name]["value"] or -math.inf))
            parts = []
            for m in ms:
                r = allrows[m.name]
                parts.append(f"{m.name[len(prefix):]} {pm_text(m.name, r['value'], r['lo'], r['hi'])}")
            what = words.get(name, prefix.rstrip("_"))
            sentences.append(f"{what}{',' if name in words else ''} {scope}, largest first: " + ", ".join(parts))
            if len(ms) > 1 and allrows[ms[0].name]["value"] is not None:
                top, low = allrows[ms[0].name], allrows[ms[-1].name]
                ranges.append(f"{what} ranges from {pm_text(ms[-1].name, low['value'], low['lo'], low['hi'])} "
                              f"({ms[-1].name[len(prefix):]}) to {pm_text(ms[0].name, top['value'], top['lo'], top['hi'])} "
                              f"({ms[0].name[len(prefix):]})")
    return sentences, frame(est), _headline(heads, short(over), metric_text, ranges)


def _groups_text(groups: list[str]) -> str:
    """Groups in a list of a sentence, their axis said once where they share it: ``start_positions 0,3 and
    0,9`` (not ``start_positions 0,3; start_positions 0,9``)."""
    heads = {g.split(" ", 1)[0] for g in groups}
    if len(groups) > 1 and len(heads) == 1 and all(" " in g and ":" not in g for g in groups):
        axis = heads.pop()
        values = [g.split(" ", 1)[1] for g in groups]
        if not any(" " in v for v in values):  # one axis (a group of several reads "2 players, variant x")
            return f"{axis} " + and_list(values)
    return and_list(groups)


def _headline(heads: list[tuple], what: str, metric_text: str | None = None, ranges: list[str] = ()) -> list[str] | None:
    """Seat 0's share in every group in one sentence, and where it is clearly off the fair share; then the
    plain metrics of report.metrics over every cell, and each family's range from its smallest member to
    its largest (one sentence for all families)."""
    if len(heads) <= 1:
        return None
    one_p = len({h[4] for h in heads}) == 1  # one fair share for all, else each group says its own
    parts = [pm_metric("win_share", w, lo, hi, refs=(fair,))
             + (f" ({d})" if d and one_p else f" ({d + '; ' if d else ''}fair {100 * fair:.1f}%)" if not one_p else "")
             for d, w, lo, hi, fair, *_ in heads]
    clear = [d or "all" for d, _, _, _, _, c, *_ in heads if c]
    first = (f"Seat 0 (the first player) wins " + ", ".join(parts) + " of games"
             + (f" (fair share {100 * heads[0][4]:.1f}%)" if one_p else "") + ", "
             + ("clearly off it" if one_p else "clearly off its fair share")
             + (f" with {_groups_text(clear)}" if clear else " in no group") + ".")
    n_above = sum(h[6] for h in heads)
    n_below = sum(h[7] for h in heads)
    n = sum(h[8] for h in heads)
    second = (f"Over every {what} of every group, {n_above} of {n} are clearly above the fair share and {n_below} "
              "clearly below (Holm's correction within each group).")
    out = [first]
    owns = [(h[0], *h[9]) for h in heads if len(h) > 9 and h[9] is not None]
    if owns:
        # where only the seat differs: the seat's own edge, which pairings of unequal strategies dilute
        k = owns[0][6]
        fairs = {h[0]: h[4] for h in heads}
        parts = [pm_metric("win_share", sw, slo, shi, refs=(fairs[d],)) + (f" ({d})" if d else "")
                 for d, sw, slo, shi, *_ in owns]
        sclear = [d or "all" for d, *rest in owns if rest[4]]
        out.append(f"With one strategy in every seat ({k} of the {heads[0][8]} {_plural(what)}{' of each group' if len(heads) > 1 else ''}), "
                   "where only the seat differs, seat 0 wins " + ", ".join(parts) + ", "
                   + (f"clearly off the fair share with {_groups_text(sclear)}" if sclear else
                      "clearly off the fair share in no group") + ".")
    out.append(second)
    if metric_text:
        out.append(metric_text[0].upper() + metric_text[1:] + ".")
    if ranges:
        text = "; ".join(ranges)
        out.append(("Over every cell, " if metric_text else "Over every cell: ") + text + ".")
    return out


def check(ctx: CheckContext) -> dict[str, Any]:
    ck, t = ctx.ck, ctx.table
    if "metrics" not in t:
        return {}
    known = {m.name: m for m in ctx.eng.ratio_metrics if not m.per_seat}
    raw = t["metrics"]
    if not isinstance(raw, list) or not raw:
        ck.fail("report.metrics", "a non-empty list of metric names", raw)
    named: dict[str, str] = {}  # metric -> the entry that names it (a metric named twice is reported twice)
    for i, name in enumerate(raw):
        name = ck.text(name, f"report.metrics[{i}]")
        family = name.endswith("*")
        if family and not name[:-1].strip("_"):  # "*" would be every metric, each also named on its own
            ck.fail(f"report.metrics[{i}]", f"a metric of {ctx.eng.name} or a family prefix_* with a prefix", name)
        covers = [k for k in known if k.startswith(name[:-1])] if family else [name] if name in known else []
        if not covers:
            ck.fail(f"report.metrics[{i}]", f"a metric of {ctx.eng.name} (one of {', '.join(known) or 'none'}; "
                    "prefix_* for a family)", name)
        if name in raw[:i]:  # (it would be reported twice)
            ck.fail(f"report.metrics[{i}]", "each metric once", name)
        twice = next((k for k in covers if k in named), None)
        if twice is not None:
            ck.fail(f"report.metrics[{i}]", f"each metric once ({twice} is also named by {named[twice]!r})", name)
        named.update({k: name for k in covers})
    return {"metrics": tuple(raw)}


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    answer, est, heads = answer_balance(cfg, tables["cells"], runs)
    return Result(answer, None, est, headline=heads)


def lead_table(ctx: ReportContext):
    """A row per group: seat 0's win share pooled over the values of ``over`` (95% interval over deals) and
    its advantage over the fair share."""
    est = ctx.t["estimates"]
    if est.height == 0 or "figure" not in est.columns:
        return None
    g = est.filter((pl.col("scope") == "group") & (pl.col("figure") == "seat0_win_share"))
    # seat 0's share less the average seat's (1/P of the games that have a winner), with its own interval over
    # deals; a run folder written before it was kept takes the fair 1/P
    advs = {r["group"]: r for r in est.filter((pl.col("scope") == "group")
                                              & (pl.col("figure") == "seat_advantage")).iter_rows(named=True)}
    rows = []
    for r in g.iter_rows(named=True):
        P = r["players"]
        a = advs.get(r["group"])
        if a is None and P and r["value"] is not None:
            a = {"value": r["value"] - 1 / P, "lo": r["lo"] - 1 / P if r["lo"] is not None else None,
                 "hi": r["hi"] - 1 / P if r["hi"] is not None else None}
        fair = r["value"] - a["value"] if a is not None and r["value"] is not None else None
        rows.append({"group": r["group"] or "all", "seat 0 wins %": ci_cell(r["value"], r["lo"], r["hi"], unit=False,
                                                                          bounds=SHARE_RANGE),
                     "fair %": f"{100 * fair:.1f}" if fair is not None else "",
                     "advantage %": ci_cell(a["value"], a["lo"], a["hi"], signed=True, unit=False,
                                            bounds=(-1 / P, 1 - 1 / P)) if a is not None else ""})
    return pl.DataFrame(rows, schema={k: pl.String for k in rows[0]}) if rows else None


def figures(ctx: ReportContext) -> list:
    """Seat 0's win share per value of ``over``, the seat-0 matrices of both orientations, the metrics."""
    from reports import plots

    est, cells = ctx.t["estimates"], ctx.cells
    return [plots.estimate_lines(est, "seat0_win_share", plots.short(ctx.over), "seat 0's win share (%)",
                                 "fair", 100.0),
            *plots.seat0_matrices(ctx.t["seats"], cells, ctx.axes, ctx.over),
            plots.metric_families(est, get_game(ctx.s["game"]).metric_words if ctx.s.get("game") else None)]


KIND = AnswerKind("balance", "does seat 0 (the first player) win more than 1/P", analyse, needs_over=True, over_players=False,
                  needs_seats="it compares the first seat with the others",
                  per_game=True, keys={"metrics": "nothing unless answer = 'balance'"}, check=check,
                  figures=figures, lead_table=lead_table, dist_by_group=True)
