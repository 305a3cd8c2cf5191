"""``effect``: what each value of ``over`` changes against ``baseline``, paired deal by deal."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from simcore.stats import alike_share_interval, deal_values_ci, half_width, paired_diff, values_ci, wilson

from ..engine import VEC_ROWS
from .base import AnswerKind, Result
from .ratings import top_alike
from .common import SHARE_DIFF_RANGE, average_seat, turns_pm, unit, by_symmetry, clip_interval, describe_group, metric_range, experiment_labels, fmt_metric, frame, pm_metric, group_rows, label, short, span, wide_table, fine_decimals, short_of_whole, and_list, ci_text, count_words

#: the row of :func:`answer_effect`'s pooled per-deal values that holds seat 0's advantage over the average seat
ADV = len(VEC_ROWS)

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def answer_effect(cfg: Config, cells: pl.DataFrame, runs: list[CellRun], ratings: pl.DataFrame):
    """How each value of ``over`` changes game length, seat advantage and the focus (or the ratings),
    compared with ``baseline`` on the same deals."""
    rep = cfg.report
    gaxes = cfg.group_axes
    sentences, paired_rows = [], []
    labels = experiment_labels(cfg)

    def show(v: Any) -> str:
        return label(labels, v)

    def pooled(sub: pl.DataFrame) -> np.ndarray:
        """The cells' per-deal rows (VEC_ROWS) averaged, and a last row: seat 0's share less the average
        seat's (1/P of the games that have a winner: the fair 1/P where none stopped at the turn limit)."""
        vec = np.mean([runs[i].vectors() for i in sub["cell"].to_list()], axis=0).astype(np.float64)
        P = runs[sub["cell"][0]].cell.players
        return np.vstack([vec, vec[VEC_ROWS.index("seat0_win")] - vec[VEC_ROWS.index("decided")] / P])

    def finished(sub: pl.DataFrame, vec: np.ndarray) -> tuple[float, np.ndarray] | None:
        """The game length over the finished games alone (games stopped at the turn limit left out), as a
        ratio over deals, and each deal's linearised part of it (for intervals and paired changes); None
        where the per-deal rows cannot tell the stopped games apart. A stopped game has played the whole
        limit and has no winner; where every finished game of the cells has one (their win sums are their
        finished games), a deal's weighted share of finished games is its ``decided`` row and its finished
        games' turns are its ``turns`` row less the limit for each stopped one: exact, not the histogram's
        guess."""
        return finished_length(cfg.game, runs, sub["cell"].to_list(), vec)

    by_group: dict[tuple, dict[Any, pl.DataFrame]] = {}
    # each cell by its value of `over` as the config writes it (a strategy axis's column in the tables holds
    # the full spec, "threshold:wake=10" for "threshold"), as report.baseline names it
    for key, sub in group_rows(cells, gaxes):
        rows: dict[Any, list[int]] = {}
        for k, i in enumerate(sub["cell"].to_list()):
            rows.setdefault(runs[i].cell.axes[rep.over], []).append(k)
        by_group[key] = {v: sub[ks] for v, ks in rows.items()}
    levels: list[dict[str, Any]] = []  # the baseline's own figures in each group, for the headline
    strongest: dict[Any, list[tuple]] = {}  # value -> (group, strongest, runner-up, overlapping) per group
    stopped_by: dict[Any, list[int]] = {}  # value -> [games stopped at the turn limit, games], over every group
    finished_by: dict[Any, list[tuple]] = {}  # value -> its game length change over finished games, per group
    off_levels: dict[Any, list[str]] = {}  # value -> the groups where its own first-seat advantage is clearly off 0
    for key, values in by_group.items():
        desc = describe_group(gaxes, key, labels)
        base = values.get(rep.baseline)
        if base is None:  # (the config's checks make every group hold it; never an answer left silently empty)
            sentences.append((f"{desc}: " if desc else "") + f"no cell of the baseline {show(rep.baseline)}: "
                             "nothing to compare with")
            continue
        bvec = pooled(base)
        seen: list[tuple[Any, np.ndarray]] = []  # each value's per-deal figures, to name values that play alike
        for value, sub in values.items():
            vec = pooled(sub)
            # a value alike on every deal with another that is not the baseline (with the baseline it says so
            # figure by figure): two sentences of the same figures read as two findings
            twin = next((v for v, other in seen if other.shape == vec.shape and np.array_equal(other, vec)), None)
            if value != rep.baseline:
                seen.append((value, vec))
            turns = values_ci(vec[2])
            n = int(sub["games"].sum())
            P = int(sub["players"][0])
            # seat 0's share over deals (each deal's rotations and match-ups averaged first), as the paired
            # differences take it: the games of one deal are not independent of each other
            adv, adv_lo, adv_hi = values_ci(vec[ADV])
            fair = average_seat(float(vec[VEC_ROWS.index("decided")].mean()), P)
            if len(vec[ADV]) > 1 and np.ptp(vec[ADV]) == 0:
                # alike on every deal (seat 0 won every rotation's game it could, say): the spread over deals
                # says nothing of its chance, so seat 0's Wilson interval over the deals, as the cells table
                # (over the games it would count a deal's rotations as independent, where the deal may decide them)
                d0 = len(vec[ADV])
                s0lo, s0hi = alike_share_interval(float((sub["seat0_win_share"] * sub["games"]).sum()) / n, d0, d0)
                adv_lo, adv_hi = float(s0lo) - fair, float(s0hi) - fair
            adv_lo, adv_hi = clip_interval(adv_lo, adv_hi, (-1.0 / P, 1.0 - 1.0 / P))
            # a self-play focus wins its fair share by symmetry (no timeout): exact, whatever float32's 1/3 says
            exact = cfg.kind == "focus" and all(by_symmetry(r) for r in sub.iter_rows(named=True))
            fw = (fair, fair, fair) if exact else (
                deal_values_ci(vec[0], True) if cfg.kind == "focus" else None)
            if value == rep.baseline:
                levels.append({"turns": turns[0], "adv": adv, "adv_lo": adv_lo, "adv_hi": adv_hi, "fair": fair,
                               "adv_deals": vec[ADV],
                               **({"focus": fw} if cfg.kind == "focus" else {})})
            what = unit(runs[sub["cell"][0]].cell.rules)  # a game, or a match of several (match_points)
            # unrotated, seat 0 of a lineup of different strategies is also its own strategy: no seat advantage
            seated = cfg.rotate or all(len({a.spec() for a in runs[i].cell.agents}) == 1 for i in sub["cell"].to_list())
            part = [f"{what} length {turns_pm(*turns)}"]
            # no game had a winner (every one stopped at the turn limit): no seat did better than another
            no_winner = int(sub["timeouts"].sum()) >= n
            if seated and no_winner:
                part.append("no first-seat advantage to measure: no game had a winner")
            elif seated:
                # said where the interval leaves out 0: "+1.3% ± 1.3%" reads as reaching 0 where it is [+0.07%, +2.61%]
                side = " (clearly above 0)" if adv_lo > 0 else " (clearly below 0)" if adv_hi < 0 else ""
                part.append("first-seat advantage " + pm_metric("seat_advantage", adv, adv_lo, adv_hi, True) + side)
                if value != rep.baseline and side:
                    off_levels.setdefault(value, []).append(desc)
            if value == rep.baseline:
                levels[-1]["seated"] = seated
            stopped = int(sub["timeouts"].sum())
            fin_text = None
            tally = stopped_by.setdefault(value, [0, 0, 0])
            tally[0] += stopped
            tally[1] += n
            tally[2] += 1 if stopped else 0  # groups with games stopped
            if stopped:  # games stopped at the turn limit: nobody's win, and their turns count in the length
                fin = finished(sub, vec)  # told after the changes over all games
                # over deals where the per-deal rows tell the finished games apart (a deal's rotations share its
                # cards, and may all stop), else Wilson's over the games
                _, clo, chi = (deal_values_ci(vec[VEC_ROWS.index("decided")], True) if fin is not None
                               else (None, *wilson(n - stopped, n)))
                part.append(f"completion {short_of_whole(1 - stopped / n)} "
                            f"{span('win_share', float(clo), float(chi))} "
                            f"({stopped:,} of {n:,} games stopped at the turn limit)")
                bfin = finished(base, bvec) if fin is not None and value != rep.baseline else None
                if fin is not None:
                    r, z = fin
                    flo, fhi = _ratio_ci(r, z)
                    text = f"{what} length over the finished games alone {turns_pm(r, flo, fhi)}"
                    if bfin is not None:
                        d, dlo, dhi = _ratio_ci_diff(r - bfin[0], z - bfin[1])
                        dec = fine_decimals("mean_turns", dlo, dhi)
                        text += (f", {fmt_metric('mean_turns', d, True, decimals=dec)} "
                                 f"{span('mean_turns', dlo, dhi, True, dec)} vs {show(rep.baseline)}")
                        finished_by.setdefault(value, []).append((d, dlo, dhi))
                    fin_text = text
            if exact:
                part.append(f"focus win share {fmt_metric('win_share', fair)} (the fair share by symmetry: the "
                            "same strategy in every seat)")
            elif cfg.kind == "focus":  # the level itself, against its fair share, before any difference
                part.append(f"focus win share {pm_metric('win_share', fw[0], fw[1], fw[2])} (fair "
                            f"{fmt_metric('win_share', fair)})")
            if value != rep.baseline:
                alike = []  # figures equal to the baseline's on every deal (a variant these lineups never meet)
                for metric, row in (("mean_turns", 2), ("seat_advantage", ADV), ("win_share", 0)):
                    if (metric == "win_share" and cfg.kind != "focus") or (metric == "seat_advantage" and (
                            not seated or no_winner or int(base["timeouts"].sum()) >= int(base["games"].sum()))):
                        continue
                    d = paired_diff(vec[row], bvec[row])
                    paired_rows.append({**{a: v for a, v in zip(gaxes, key)}, "metric": metric, "over": rep.over,
                                        "value": value, "versus": rep.baseline, "diff": d["diff"], "lo": d["lo"],
                                        "hi": d["hi"], "p_value": d["p_value"], "rho": d["rho"], "deals": d["n"]})
                    length = (f"{what} length" if what == unit(runs[base["cell"][0]].cell.rules) else
                              f"length (a {what} against a {unit(runs[base['cell'][0]].cell.rules)})")
                    shown = "focus win share" if metric == "win_share" else (
                        length if metric == "mean_turns" else "first-seat advantage")
                    # a difference of shares (or of seat 0's advantages) lies in [-100%, +100%]
                    lo, hi = clip_interval(d["lo"], d["hi"], None if metric == "mean_turns" else SHARE_DIFF_RANGE)
                    if np.array_equal(vec[row], bvec[row]):
                        alike.append(shown)
                        continue
                    dec = fine_decimals(metric, lo, hi)  # an interval whose bounds would print alike
                    part.append(f"{shown} {fmt_metric(metric, d['diff'], True, decimals=dec)} "
                                f"{span(metric, lo, hi, True, dec)} vs {show(rep.baseline)}")
                if alike:
                    part.append(f"{and_list(alike)} the same as {show(rep.baseline)} on every deal")
            if fin_text:
                part.append(fin_text)
            if ratings.height:
                mask = pl.lit(True)
                for a, v in zip(gaxes, key):
                    mask = mask & (pl.col(a) == v)
                r = ratings.filter(mask & (pl.col(rep.over) == value)).sort("elo", descending=True)
                tied = top_alike(list(r.iter_rows(named=True)), cfg.strategies) if r.height else []
                if len(tied) > 1:
                    # entrants that win alike against every entrant share the top: none is the highest rated
                    names = and_list(show(t["strategy"]) for t in tied)
                    strongest.setdefault(value, []).append((desc, names, None, None, None))
                    part.append(f"highest rated {names}, the same rating (they win alike against every entrant)")
                elif r.height:
                    top, nxt, overlap = strongest_of(r)
                    close = overlap is True  # the runner-up's interval reaches the leader's: not clearly strongest
                    h2h = head_to_head_winner(sub, top["strategy"])
                    strongest.setdefault(value, []).append(
                        (desc, show(top["strategy"]), None if nxt is None else show(nxt["strategy"]), overlap,
                         None if h2h is None else show(h2h)))
                    part.append(f"highest rated {show(top['strategy'])} ("
                                + (f"Elo {top['elo']:+.0f} ± {half_width(top['elo_lo'], top['elo_hi']):.0f} vs "
                                   f"{show(top['reference'])}" if top["strategy"] != top["reference"] else
                                   f"{-r.row(1, named=True)['elo']:.0f} Elo above {show(r.row(1, named=True)['strategy'])}")
                                + (f"; {show(nxt['strategy'])} next, {nxt['elo']:+.0f} ± "
                                   f"{half_width(nxt['elo_lo'], nxt['elo_hi']):.0f}, their intervals overlapping"
                                   if close else "")
                                + ")" + _beaten_text(sub, top["strategy"], show, h2h))
            if twin is not None:
                part.append(f"the same as {show(twin)} on every deal")
            sentences.append(f"{short(rep.over)} {show(value)}" + (f" ({desc})" if desc else "") + ": "
                             + "; ".join(part))
    return sentences, frame(paired_rows), headline(rep, paired_rows, show, levels, strongest, stopped_by, off_levels,
                                                   finished_by)


def head_to_head_losses(cells: pl.DataFrame, top: str) -> list[tuple[str, float, float, float]]:
    """Two players: the strategies ``top`` clearly loses to head to head in a round-robin's cells (its win
    share against them with its 95% interval below 50%), as (the other, its share, low, high), the worst
    first. A rating over every pairing can put first a strategy that one of them beats (a cycle); the
    answer says so. Only cells whose every game has a winner count (the other's share is then 1 less it)."""
    if not {"a", "b", "focus_win_share", "focus_win_lo", "focus_win_hi"} <= set(cells.columns):
        return []
    out = []
    for row in cells.iter_rows(named=True):
        if row["players"] != 2 or row.get("timeouts") or None in (row["focus_win_lo"], row["focus_win_hi"]):
            continue
        if row["a"] == top and row["focus_win_hi"] < 0.5:
            out.append((row["b"], row["focus_win_share"], row["focus_win_lo"], row["focus_win_hi"]))
        elif row["b"] == top and row["a"] != top and row["focus_win_lo"] > 0.5:
            out.append((row["a"], 1 - row["focus_win_share"], 1 - row["focus_win_hi"], 1 - row["focus_win_lo"]))
    return sorted(out, key=lambda t: t[1])


def _beaten_text(cells: pl.DataFrame, top: str, show, winner: str | None = None) -> str:
    """``; it loses to gambler head to head, winning 46.8% [44.9%, 48.6%]`` (see :func:`head_to_head_losses`),
    and the rival that clearly beats every other strategy head to head, ``winner`` where the caller has it
    (:func:`head_to_head_winner`)."""
    losses = head_to_head_losses(cells, top)
    if not losses:
        return ""
    text = ("; but head to head it loses to " + and_list(
        f"{show(o)} (winning {ci_text(x, lo, hi)})" for o, x, lo, hi in losses)
        + ": the rating over every pairing is not a head-to-head order")
    # a rival that clearly beats every other strategy head to head is the one to name as the strongest there
    winner = winner if winner is not None else head_to_head_winner(cells, top)
    if winner is not None:
        text += f"; {show(winner)} clearly beats every other strategy head to head"
    return text


def head_to_head_winner(cells: pl.DataFrame, top: str) -> str | None:
    """Two players: a rival of the highest rated ``top`` that clearly beats it and every other strategy head
    to head (see :func:`head_to_head_losses`), else None."""
    pairs = cells.filter(pl.col("players") == 2) if "players" in cells.columns else cells
    if not {"a", "b"} <= set(pairs.columns):
        return None
    names = set(pairs["a"].to_list()) | set(pairs["b"].to_list())
    for o, *_ in head_to_head_losses(cells, top):
        if len(names) > 2 and all(o in {x[0] for x in head_to_head_losses(cells, s)} for s in names - {o}):
            return o
    return None


def strongest_of(r: pl.DataFrame) -> tuple[dict[str, Any], dict[str, Any] | None, bool | None]:
    """The strongest of a group's ratings (sorted by Elo, highest first), the runner-up (None when alone) and
    whether the runner-up's Elo interval reaches the strongest's (None when that cannot be told: either is the
    reference, whose Elo is 0 by definition and has no interval)."""
    top = r.row(0, named=True)
    nxt = r.row(1, named=True) if r.height > 1 else None
    if nxt is None or top["strategy"] == top["reference"] or nxt["strategy"] == nxt["reference"] \
            or None in (nxt["elo_hi"], top["elo_lo"]):
        return top, nxt, None
    return top, nxt, bool(nxt["elo_hi"] >= top["elo_lo"])


def _span(metric: str, xs: list[float], unit: str = "", clear: list[float] = ()) -> str:
    """``+4.4 to +5.3 turns``, ``-3.9% to +3.3%``, or the one value where they all print alike (signed); with
    the decimals to show a ``clear`` change (its interval away from 0) as other than 0 (-0.02 turns, not
    +0.0 "(clear)")."""
    dec = None
    for x in clear:
        d = fine_decimals(metric, x, x)
        dec = d if d is not None and (dec is None or d > dec) else dec
    lo, hi = fmt_metric(metric, min(xs), True, decimals=dec), fmt_metric(metric, max(xs), True, decimals=dec)
    if lo[1:] == hi[1:] and not any(c in "123456789" for c in lo):
        # both print as 0: -0.0 only where every change is below 0 (-0.0 to +0.0 says nothing)
        return hi + unit
    return (lo if lo == hi else f"{lo} to {hi}") + unit


def _level_span(metric: str, xs: list[float], unit: str = "") -> str:
    """``48.7 to 56.1 turns``: a range of levels (unsigned, except a share's advantage)."""
    signed = metric == "seat_advantage"
    lo, hi = fmt_metric(metric, min(xs), signed), fmt_metric(metric, max(xs), signed)
    return (lo if lo == hi else f"{lo} to {hi}") + unit


def _mean_of_groups(levels: list[dict[str, Any]]) -> str:
    """``; their mean +1.0% [+0.3%, +1.7%], clearly above 0``: the baseline's first-seat advantage averaged
    over its groups, with the t interval over deals of each deal number's average over the groups (which holds
    whether or not the groups' games of one deal number are tied together). Small edges that no group shows
    clearly on its own can add up to one that is clear (Sensu's +0.8% to +1.3% over 2-5 players). Said with
    two groups or more of the same deals, else nothing."""
    vecs = [x.get("adv_deals") for x in levels]
    if len(vecs) < 2 or any(v is None for v in vecs) or len({len(v) for v in vecs}) != 1 or len(vecs[0]) < 2:
        return ""
    avg = np.mean(vecs, axis=0)
    if np.ptp(avg) == 0:  # alike on every deal: its spread over deals says nothing of its chance
        return ""
    mean, lo, hi = values_ci(avg)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return ""
    side = ", clearly above 0" if lo > 0 else ", clearly below 0" if hi < 0 else ", not clearly off 0"
    return f"; their mean {pm_metric('seat_advantage', mean, lo, hi, True)}{side}"


def _groups(n: int) -> str:
    return f"{n} group{'s' if n != 1 else ''}"


def _how_often(what: str, k: int, n: int) -> str:
    """``clearly off 0 in 2 of the 4 groups``, ``not clearly off 0 in any of the 4 groups``, ``... in all 4
    groups``; with one group, ``clearly off 0`` or ``not clearly off 0``. From 4
    groups on, where fewer than half are clear, it says how many would seem so by chance alone (each group's
    interval is at 95%, uncorrected: of 8 groups with no change at all, about 0.4 seem to change)."""
    if n == 1:
        return what if k else f"not {what}"
    chance = _by_chance(k, n)
    return count_words(what, f"not {what}", k, n) + (f"; {chance}" if chance else "")


def _by_chance(k: int, n: int) -> str:
    """``about 0.4 would by chance alone, each at 95%`` where ``k`` of ``n`` groups (4 or more, fewer than
    half of them) are clear, each by its own uncorrected 95% interval; else nothing."""
    return f"about {0.05 * n:.1f} would by chance alone, each at 95%" if n >= 4 and 0 < k < n / 2 else ""


def _strongest_text(picks: list[tuple]) -> str:
    """``highest rated swapper (2 players; watcher next, intervals overlapping), gambler (4 players; ...)``: the
    highest rated of each group (Bradley-Terry over every pairing, not a head-to-head result), groups with the
    same one, runner-up and overlap told together."""
    merged: dict[tuple, list[str]] = {}
    for desc, top, nxt, overlap, *h2h in picks:
        merged.setdefault((top, nxt, overlap, h2h[0] if h2h else None), []).append(desc)
    items = []
    for (top, nxt, overlap, h2h), descs in merged.items():
        where = " and ".join(d for d in descs if d)
        rival = "" if nxt is None else f"{nxt} next" + (
            "" if overlap is None else ", intervals overlapping" if overlap else ", intervals not overlapping")
        beats = "" if h2h is None else f"but {h2h} clearly beats every other strategy head to head"
        inside = "; ".join(x for x in (where, rival, beats) if x)
        items.append(top + (f" ({inside})" if inside else ""))
    return "highest rated " + ", ".join(items)


def headline(rep, paired_rows: list[dict[str, Any]], show, levels: list[dict[str, Any]] = (),
             strongest: dict[Any, list[tuple]] | None = None,
             stopped_by: dict[Any, list[int]] | None = None,
             off_levels: dict[Any, list[str]] | None = None,
             finished_by: dict[Any, list[tuple]] | None = None) -> list[str] | None:
    """The baseline's own figures over every group (the range of its game length and first-seat advantage,
    with in how many groups that advantage is clearly off 0), then per value against the baseline, over
    every group: the range of each paired change and in how many groups its interval excludes 0; with
    ratings, each value's strongest strategy per group and whether the runner-up's interval reaches it;
    and, for a value some of whose games stopped at the turn limit, how many (a game cut there counts its
    turns up to the limit in the game length, so that a few of them can make a change of length); and a
    value whose own first-seat advantage is clearly off 0 in some group, where (``off_levels``: its change
    against the baseline may be unclear there while its level is not). ``finished_by``: a value's change of
    game length over the finished games alone, per group where some of its games stopped."""
    if not paired_rows:
        return None
    strongest = strongest or {}
    stopped_by = stopped_by or {}
    off_levels = off_levels or {}
    finished_by = finished_by or {}

    def stopped(v) -> str:
        k, n, with_stops = (list(stopped_by.get(v, ())) + [0, 0, 0])[:3]
        if not k:
            return ""
        fin = finished_by.get(v) or []
        alone = ""
        if fin:
            apart = [d for d, lo, hi in fin if lo is not None and hi is not None and (lo > 0 or hi < 0)]
            groups = sum(1 for r in paired_rows if r["value"] == v and r["metric"] == "mean_turns")
            told = with_stops or len(fin)  # groups with stopped games; the figure is given where it can be told
            where = (f"in the {len(fin)} of {_groups(groups)} where some stopped" if len(fin) == told < groups else
                     f"in {len(fin)} of the {_groups(told)} where some stopped (where it can be told)"
                     if len(fin) < told else "where some stopped")
            alone = (f"; over the finished games alone, {where}, the change is "
                     f"{_span('mean_turns', [d for d, _, _ in fin], ' turns', apart)} "
                     f"({_how_often('clear', len(apart), len(fin))})")
        return (f" ({k:,} of {n:,} games stopped at the turn limit: their turns count up to it in the game "
                f"length{alone})")
    words = {"mean_turns": ("game length", " turns"), "seat_advantage": ("first-seat advantage", ""),
             "win_share": ("focus win share", "")}
    out = []
    if levels:
        n = len(levels)
        off = sum(1 for x in levels if x["adv_lo"] > 0 or x["adv_hi"] < 0)
        parts = [f"game length {_level_span('mean_turns', [x['turns'] for x in levels], ' turns')}"]
        if all(x.get("seated", True) for x in levels):
            # the same sign in every one of several groups says what the count of clear ones does not (Sensu:
            # +0.8% to +1.3%, clear in none of 4 groups, a small edge in each)
            sign = ("; above 0 in every group" if n > 2 and all(x["adv"] > 0 for x in levels) else
                    "; below 0 in every group" if n > 2 and all(x["adv"] < 0 for x in levels) else "")
            parts.append(f"first-seat advantage {_level_span('seat_advantage', [x['adv'] for x in levels])} "
                         f"({_how_often('clearly off 0', off, n)}{sign}{_mean_of_groups(levels)})")
        if "focus" in levels[0]:
            fair_off = sum(1 for x in levels if x["focus"][1] > x["fair"] or x["focus"][2] < x["fair"])
            parts.append(f"focus win share {_level_span('win_share', [x['focus'][0] for x in levels])} "
                         f"({_how_often('clearly off its fair share', fair_off, n)})")
        out.append(f"{short(rep.over)} {show(rep.baseline)} (the baseline){stopped(rep.baseline)}: " + ", ".join(parts)
                   + (f"; {_strongest_text(strongest[rep.baseline])}" if rep.baseline in strongest else "") + ".")
    values = list(dict.fromkeys(r["value"] for r in paired_rows))
    for v in values:
        parts, alike = [], []
        for metric, (word, unit) in words.items():
            rows = [r for r in paired_rows if r["value"] == v and r["metric"] == metric]
            if not rows:
                continue
            if all(r["diff"] == 0 and r["lo"] == 0 and r["hi"] == 0 for r in rows):  # equal on every deal
                alike.append(word)
                continue
            apart = [r["diff"] for r in rows if r["lo"] is not None and r["hi"] is not None and (r["lo"] > 0 or r["hi"] < 0)]
            clear = len(apart)
            # clear changes of both signs: a range from -0.9 to +5.5 turns would hide that they part ways
            up, down = sum(1 for x in apart if x > 0), sum(1 for x in apart if x < 0)
            ways = (f", {'shorter' if metric == 'mean_turns' else 'down'} in {down} and "
                    f"{'longer' if metric == 'mean_turns' else 'up'} in {up}") if up and down else ""
            parts.append(f"{word} {_span(metric, [r['diff'] for r in rows], unit, apart)} "
                         f"({_how_often('clear', clear, len(rows))}{ways})")
        if alike:
            parts.append(and_list(alike) + " the same on every deal")
        if off_levels.get(v):
            where = [d for d in off_levels[v] if d]
            # each level by its own 95% interval, as the baseline's count: no correction for the many levels
            k, n = len(off_levels[v]), len(levels) or len(off_levels[v])
            chance = _by_chance(k, n)
            parts.append("its own first-seat advantage clearly off 0 by its own interval in " + (
                f"{k} of {_groups(n)} ({and_list(where)}{'; ' + chance if chance else ''})"
                if where else "its group"))
        out.append(f"{short(rep.over)} {show(v)} against {show(rep.baseline)}, on the same deals{stopped(v)}: "
                   + ", ".join(parts)
                   + (f"; {_strongest_text(strongest[v])}" if v in strongest else "") + ".")
    return out


def lead_table(ctx):
    """The paired changes against the baseline: a row per value, for each group the change of the game
    length and of the first-seat advantage (and of the focus's win share) with its paired 95% interval."""
    from reports.plots import group_labels, shown

    paired = ctx.t["paired"]
    if paired.height == 0:
        return None
    df = group_labels(paired, ctx.gaxes)
    est = df.select([shown(df, "value").alias("case"), "group", pl.col("metric").alias("figure"),
                     pl.col("diff").alias("value"), "lo", "hi"])
    names = [m for m in ("mean_turns", "seat_advantage", "win_share") if m in set(est["figure"].to_list())]
    words = {"mean_turns": "game length change", "seat_advantage": "first-seat advantage change",
             "win_share": "focus win share change"}
    return wide_table(est, names, words, ctx.s.get("labels") or {}, ctx.over, percent=lambda n: n != "mean_turns",
                      signed=True, bounds=lambda n: metric_range(n, diff=True))


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    answer, paired, heads = answer_effect(cfg, tables["cells"], runs, tables["ratings"])
    return Result(answer, paired, headline=heads)


KIND = AnswerKind("effect", "per value of `over` against `baseline`: game length, first-seat advantage, the focus",
                  analyse, needs_over=True, over_players=False, baseline="required",
                  needs_seats="it compares the first seat with the others", vectors=True, lead_table=lead_table)


def finished_length(game: str, runs, cells: list[int], vec: np.ndarray) -> tuple[float, np.ndarray] | None:
    """The mean game length over the finished games of ``cells`` (pooled, their per-deal rows averaged into
    ``vec``), and each deal's linearised residual ``(t_d - r f_d) / mean(f)`` of that ratio, whose mean's t
    interval is the ratio's (the delta method) and whose paired differences give a change's. None unless
    every finished game of the cells has a winner and every stopped one played exactly the turn limit (then
    ``decided`` counts a deal's finished games and ``turns`` less the limit per stopped game their turns)."""
    from simcore.registry import get_game

    limit = None
    for i in cells:
        run = runs[i]
        lim = get_game(game).turn_limit(run.cell.rules)
        if limit not in (None, lim):
            return None
        limit = lim
        for t in run.totals.values():
            stopped = float(t.sums["timeout"].sum()) if "timeout" in t.sums else 0.0
            won = float(t.sums["win"].sum()) if "win" in t.sums else 0.0
            if abs(won - (t.n - stopped)) > 1e-6 or ("turns" in t.maxs and float(t.maxs["turns"].max()) > limit):
                return None
    dec = vec[VEC_ROWS.index("decided")]
    num = vec[VEC_ROWS.index("turns")] - limit * (1.0 - dec)
    if dec.sum() <= 0:
        return None
    r = float(num.sum() / dec.sum())
    return r, (num - r * dec) / float(dec.mean())


def _ratio_ci(r: float, z: np.ndarray) -> tuple[float | None, float | None]:
    """The t interval of a ratio around ``r`` from its per-deal residuals ``z`` (:func:`finished_length`)."""
    _, lo, hi = values_ci(z)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return None, None
    return r + lo, r + hi


def _ratio_ci_diff(d: float, z: np.ndarray) -> tuple[float, float | None, float | None]:
    """A change of ratios ``d`` with the paired t interval of the deals' residual differences ``z``."""
    lo, hi = _ratio_ci(d, z)
    return d, lo, hi
