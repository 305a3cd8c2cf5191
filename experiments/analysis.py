"""From played cells to tidy tables and the answer to the config's question.

Tables (polars DataFrames; the run folder holds each as parquet):

* ``cells``: one row per cell: every parameter (player count, every rule option, the sweep axes, the
  lineup and its strategies' parameters), the focus seat's win share (Wilson interval) and mean score
  (t interval), game length, completion, seat balance and the game's own metrics (where the answer keeps
  per-deal values, the intervals of the focus's figures, the game length and seat 0's share are over
  deals instead, each deal's rotations averaged first: see :func:`_over_deals`);
* ``seats``: one row per cell, rotation and seat: strategy, role, win share and mean score with intervals;
* ``turns`` and ``scores``: counts of game lengths and final scores per cell (distributions);
* ``paired``: paired differences between cells on the same deals (common random numbers);
* ``ratings``: Bradley-Terry ratings of a tournament's strategies, per group of cells;
* ``sprt``: the sequential test of each cell.

The answer is a list of sentences (one per group of cells), each with its 95% interval, made by the answer
kind the config names (one module each in :mod:`experiments.answers`, registered in one place).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
from scipy import stats as _st

from simcore.registry import get_game
from simcore.stats import bradley_terry, deal_interval, deal_share_interval, finite_or_none, hist_median, mean_ci, sprt_bounds, wilson

from .answers import REGISTRY
from .answers.common import by_symmetry, frame, group_rows, pooled_totals
from .config import Config
from .engine import CellRun


STANDARD = ("score", "win", "turns", "timeout")

def cell_params(cfg: Config, run: CellRun) -> dict[str, Any]:
    """Every parameter of a cell as columns."""
    c = run.cell
    row: dict[str, Any] = {"cell": c.index, "players": c.players}
    for a in cfg.axes:
        if a != "players":
            row[a] = c.axes[a]
    for k, v in c.rules.as_dict().items():
        row[f"rules.{k}"] = v
    if cfg.kind in ("seats", "population"):
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


def _over_deals(row: dict[str, Any], run: CellRun, has_win: bool) -> None:
    """Where the cell's per-deal values are kept, its intervals over deals (each deal's rotations averaged
    first): the games of one deal share its cards, so counting them as independent games makes the
    intervals of game length and of seat 0's share too narrow (and the focus's often too wide). A share's
    interval is Wilson's with the deals' effective number of games (:func:`deal_share_interval`); any other
    figure's keeps the exact estimate as its centre and takes the t half-width of the per-deal values,
    clipped to what the figure can be. A self-play focus's exact fair share keeps no interval at all, and a
    figure alike on every deal keeps its interval over games (a share: Wilson's over the deals)."""
    vec = run.vectors()
    if vec is None or run.deals < 2:
        return
    # one game a deal (a lineup played unrotated, self-play among them): the games are the deals, so the
    # figures of the games keep their intervals over games (seat 0's share its Wilson interval); the
    # focus's figures do not where it holds several seats of each game (self-play: P seats a deal)
    per_game = row["games"] == run.deals

    def put(name: str, x: float | None, values: np.ndarray, *bounds: float, share: bool = False) -> None:
        # every deal alike (a strategy that won no game, say): the spread over deals says nothing of the
        # chance of the other outcome, so a share takes Wilson's interval over the deals (deal_share_interval:
        # over the games it would count a deal's rotations as independent), another figure its interval over games
        if x is None:
            return
        if share:
            row[f"{name}_lo"], row[f"{name}_hi"] = deal_share_interval(x, values)
        elif np.ptp(values[:run.deals]) > 0:
            row[f"{name}_lo"], row[f"{name}_hi"] = deal_interval(x, values, *bounds)

    if has_win:
        if by_symmetry(row):
            row["focus_win_lo"] = row["focus_win_hi"] = row["focus_win_share"]
        elif row["focus_games"] > run.deals:  # the focus in more than one seat of a deal
            put("focus_win", row["focus_win_share"], vec[0], share=True)
        if not per_game:
            put("seat0_win", row["seat0_win_share"], vec[3], share=True)
        if row.get("seat_advantage") is not None and (not per_game or row["timeouts"]):
            # seat 0's share less the average seat's, per deal (the latter is not fixed where games stopped)
            adv = vec[3] - vec[4] / run.cell.players
            if np.ptp(adv[:run.deals]) > 0:
                put("seat_advantage", row["seat_advantage"], adv, -1.0, 1.0)
            elif not per_game:  # alike on every deal: seat 0's interval over the deals less the fair share
                fair = row["seat0_win_share"] - row["seat_advantage"]
                lo, hi = deal_share_interval(row["seat0_win_share"], vec[3])
                if lo is not None:
                    row["seat_advantage_lo"], row["seat_advantage_hi"] = lo - fair, hi - fair
    if row["focus_games"] > run.deals:
        put("focus_score", row["focus_mean_score"], vec[1])
    if not per_game:
        put("turns", row["mean_turns"], vec[2])


def fair_share(seat_wins, games: int, players: int) -> float:
    """The average seat's win share: 1/P of the games that have a winner (``seat_wins`` summed over every
    seat; each game that has one has exactly one). Exactly 1/P where no game stopped at the turn limit."""
    decided = float(np.sum(seat_wins))
    return 1.0 / players if decided == games else decided / (players * games)


def cells_table(cfg: Config, runs: list[CellRun]) -> pl.DataFrame:
    eng = get_game(cfg.game)
    rows = []
    for run in runs:
        c = run.cell
        P = c.players
        row = cell_params(cfg, run)
        n, sums, sumsq, _ = pooled_totals(run)
        row.update({"deals": run.deals, "rotations": len(run.rotations), "games": n})
        # the focus over every seat it holds (each seat once per deal when rotated)
        nf = sum(run.totals[r].n * len(seats) for r, seats in run.rotations)
        has_win = np.asarray(sums["win"]).size == P  # solo games (Sensu) report a score and no win
        fs = sum(float(run.totals[r].sums["score"][list(seats)].sum()) for r, seats in run.rotations)
        fs2 = sum(float(run.totals[r].sumsq["score"][list(seats)].sum()) for r, seats in run.rotations)
        if has_win:
            fw = sum(float(run.totals[r].sums["win"][list(seats)].sum()) for r, seats in run.rotations)
            lo, hi = wilson(fw, nf)
            # the fair share is the average seat's: 1/P of the games that have a winner (1/P where none stopped
            # at the turn limit, as a game that did has no winner)
            row.update({"focus_games": nf, "focus_win_share": fw / nf, "focus_win_lo": float(lo),
                        "focus_win_hi": float(hi), "fair_share": fair_share(sums["win"], n, P)})
        else:
            row.update({"focus_games": nf, "focus_win_share": None, "focus_win_lo": None, "focus_win_hi": None,
                        "fair_share": None})
        mean, half = mean_ci(fs, fs2, nf)
        row.update({"focus_mean_score": float(mean), "focus_score_lo": finite_or_none(mean - half),
                    "focus_score_hi": finite_or_none(mean + half), "focus_score_median": hist_median(run.hist["focus"])})
        if P > 1 and has_win:
            field_w = sum(len(seats) * float(run.totals[r].sums["win"].sum()) for r, seats in run.rotations) - fw
            row["field_win_share"] = field_w / (nf * (P - 1))
        tm, th = mean_ci(sums["turns"], sumsq["turns"], n)
        row.update({"mean_turns": float(tm), "turns_lo": finite_or_none(tm - th), "turns_hi": finite_or_none(tm + th)})
        timeouts = float(sums["timeout"])
        row.update({"timeouts": int(round(timeouts)), "completion": 1.0 - timeouts / n})
        seat = np.asarray(sums["win"], dtype=float)
        if has_win:
            s0lo, s0hi = wilson(seat[0], n)
            fair = fair_share(seat, n, P)
            row.update({"seat0_win_share": seat[0] / n, "seat0_win_lo": float(s0lo), "seat0_win_hi": float(s0hi),
                        "seat_advantage": seat[0] / n - fair, "seat_advantage_lo": float(s0lo) - fair,
                        "seat_advantage_hi": float(s0hi) - fair, "seat_spread": float((seat.max() - seat.min()) / n)})
        else:
            row.update({"seat0_win_share": None, "seat0_win_lo": None, "seat0_win_hi": None, "seat_advantage": None,
                        "seat_advantage_lo": None, "seat_advantage_hi": None, "seat_spread": None})
        if has_win and seat.sum() > 0 and P > 1 and n == run.deals:
            # a chi-square over games holds where each deal is played once; a deal's rotations are not
            # independent games, so a rotated lineup's cell gets no such test here (turn_order tests over deals)
            row["seat_balance_p"] = float(_st.chisquare(seat).pvalue)
        _over_deals(row, run, has_win)
        for k, v in sums.items():
            if k in STANDARD:
                continue
            v = np.asarray(v, dtype=float)
            row[f"mean.{k}"] = float(v.mean() if v.ndim else v) / n
        for k, v in eng.metrics(sums, n, P, c.rules).items():
            if isinstance(v, (int, float)) or v is None:
                row[f"metric.{k}"] = finite_or_none(v)
            elif isinstance(v, dict):  # named shares (e.g. Sensu's level_share): one column each
                for name, x in v.items():
                    if isinstance(x, (int, float)) or x is None:
                        row[f"metric.{k}.{name}"] = finite_or_none(x)
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
                             "win_lo": finite_or_none(lo[s]), "win_hi": finite_or_none(hi[s]), "mean_score": float(mean[s]),
                             "score_lo": finite_or_none(mean[s] - half[s]), "score_hi": finite_or_none(mean[s] + half[s])})
    return frame(rows)


def turns_table(runs: list[CellRun]) -> pl.DataFrame:
    """Games per number of turns, per cell: ``turns`` (a bin's first), ``width`` (the turns the bin holds: 1
    unless the cell's games span more than TURN_HIST turns) and ``count``, nonempty bins only."""
    rows = []
    for run in runs:
        lo, h, width = pooled_totals(run)[3]
        for i in np.flatnonzero(h):
            rows.append({"cell": run.cell.index, "turns": lo + int(i) * width, "width": width, "count": int(h[i])})
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


def ratings_table(cfg: Config, cells: pl.DataFrame, runs: list[CellRun] | None = None) -> pl.DataFrame:
    """Bradley-Terry ratings per group of tournament cells (every axis is a group).

    Where the run kept every cell's per-deal values (``runs``), the intervals are clustered over deals
    (``interval`` = "clustered over deals"): every match-up replays the same deals, each once per seat
    rotation, so a deal's games are not independent (a lopsided match-up, where a side won on fewer than
    :data:`simcore.stats.MIN_DEALS_WON` deals, keeps its model variance, each deal's games one unit: see
    :func:`simcore.stats.bt_cluster_cov`). The per-deal values hold the lone strategy's wins;
    the games with a winner are spread evenly over the deals (exact where no game timed out, as a timed-out
    game has no winner). Otherwise they are Wald intervals over games ("Wald over games")."""
    if cfg.kind != "tournament" or "a" not in cells.columns:  # (a searching answer plays no match-ups)
        return pl.DataFrame()
    rows = []
    for key, sub in group_rows(cells, cfg.axes):
        P = sub["players"][0]
        wa = (sub["focus_win_share"] * sub["focus_games"]).to_list()
        wb = (sub["field_win_share"] * sub["focus_games"] * (P - 1)).to_list()
        per_deal = _deal_wins(sub, runs, np.add(wa, wb))
        kw = {} if per_deal is None else {"deal_wins_a": per_deal[0], "deal_games": per_deal[1]}
        res = bradley_terry(cfg.strategies, sub["a"].to_list(), sub["b"].to_list(), wa, wb, [P - 1] * sub.height, **kw)
        for name in cfg.strategies:
            elo, lo, hi = res[name]
            alone = sub.filter(pl.col("a") == name)
            field = sub.filter(pl.col("b") == name)
            wins = float((alone["focus_win_share"] * alone["focus_games"]).sum()
                         + (field["field_win_share"] * field["focus_games"] * (P - 1)).sum())
            seats = float(alone["focus_games"].sum() + field["focus_games"].sum() * (P - 1))
            rows.append({**{a: v for a, v in zip(cfg.axes, key)}, "strategy": name, "elo": elo, "elo_lo": lo,
                         "elo_hi": hi, "reference": cfg.strategies[0],
                         "interval": "Wald over games" if per_deal is None else "clustered over deals",
                         "win_share": wins / seats if seats else None, "fair_share": 1.0 / P})
    return frame(rows)


def _deal_wins(sub: pl.DataFrame, runs: list[CellRun] | None, decided) -> tuple[np.ndarray, np.ndarray] | None:
    """(match-ups, deals) arrays of the lone strategy's wins and of the games with a winner on each deal,
    for a group of tournament cells, or None where some cell kept no per-deal values or played fewer than
    two deals (or the cells played different deals)."""
    if runs is None:
        return None
    by_cell = {r.cell.index: r for r in runs}
    picked = [by_cell[i] for i in sub["cell"].to_list()]
    deals = {r.deals for r in picked}
    if len(deals) != 1 or any(r.vec_sum is None for r in picked):
        return None
    G = deals.pop()
    if G < 2:
        return None
    wins = np.stack([r.vec_sum[0, :G].astype(np.float64) for r in picked])
    games = np.repeat(np.asarray(decided, dtype=np.float64)[:, None] / G, G, axis=1)
    return wins, games


def analyse(cfg: Config, runs: list[CellRun], state: Any = None) -> dict[str, Any]:
    """All tables and the answer sentences (the answer kind's analysis, from :data:`REGISTRY`); ``state`` is
    what a searching kind's search returned (its runs are every lineup it played)."""
    cells = cells_table(cfg, runs)
    tables = {"cells": cells, "seats": seats_table(cfg, runs), "turns": turns_table(runs),
              "scores": scores_table(runs), "sprt": sprt_table(cfg, runs)}
    tables["ratings"] = ratings_table(cfg, cells, runs)
    kind = REGISTRY[cfg.report.answer]
    res = kind.analyse(cfg, tables, runs) if kind.search is None else kind.analyse(cfg, tables, runs, state)
    if res.estimates is not None:
        tables["estimates"] = res.estimates
    tables["paired"] = res.paired if res.paired is not None else pl.DataFrame()
    tables.update(res.tables)
    games = [g for r in runs for g in r.games_rows]
    if games:
        tables["games"] = pl.concat(games, how="diagonal_relaxed")
    answer = list(res.answer)
    fixed = fixed_rules_sentence(cfg)
    if fixed:
        answer.append(fixed)
    stopped = timeout_sentence(cells)
    if stopped:
        answer.append(stopped)
    return {"tables": tables, "answer": answer, "headline": headline(res), "labels": dict(res.labels)}


def fixed_rules_sentence(cfg: Config) -> str | None:
    """A sentence naming the rule options the config's ``[rules]`` fixes, which the labels of its cells and
    groups leave out (they name what is swept): the answer holds under those rules. None without any."""
    from simcore.options import field_value, shown

    fixed = cfg.raw.get("rules") or {}
    if not fixed:
        return None
    eng = get_game(cfg.game)
    parts = []
    for k, v in fixed.items():
        value = field_value(eng.Rules, k, v, eng.name)
        everywhere = all(getattr(c.rules, k) == value for c in cfg.cells)
        parts.append(f"{k} = {shown(v)}" + ("" if everywhere else " (except where a swept case sets its own)"))
    return f"Rules fixed by the config's [rules] for every cell, which the labels above leave out: {', '.join(parts)}."


def timeout_sentence(cells: pl.DataFrame) -> str | None:
    """A sentence when at least 1% of all games, or 10% of some cell's, stopped at the turn limit (they have
    no winner: every seat's win share counts them as losses, and the figures are about games cut short),
    else None. Rarer timeouts are left to the cells table's ``timeouts`` and ``completion``."""
    if cells.is_empty() or "timeouts" not in cells.columns or "games" not in cells.columns:
        return None
    stopped, total = int(cells["timeouts"].sum()), int(cells["games"].sum())
    if stopped < 0.01 * total and float((cells["timeouts"] / cells["games"]).max()) < 0.1:
        return None
    which = " (see the cells table for which)" if cells["timeouts"].min() == 0 else ""
    if "players" in cells.columns and (cells["players"] == 1).all():  # solo: no win share to speak of
        return (f"{stopped:,} of {total:,} games ({100 * stopped / total:.1f}%) stopped at the turn limit, so the "
                f"figures above describe games cut short{which}.")
    return (f"{stopped:,} of {total:,} games ({100 * stopped / total:.1f}%) stopped at the turn limit: they have "
            "no winner (every seat's win share counts them as losses, and a fair share or seat 0's advantage is "
            "taken against the average seat's share, 1/P of the games that have a winner), so the figures above "
            f"describe games cut short{which}.")


def headline(res) -> list[str]:
    """The sentences that lead the report: the kind's own headline, else the answer itself when it is three
    sentences or fewer, else its first sentence."""
    if res.headline:
        return list(res.headline)
    return list(res.answer[:3]) if len(res.answer) <= 3 else list(res.answer[:1])
