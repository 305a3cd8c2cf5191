"""What every answer kind shares: tables from rows, groups of cells, and the wording of figures.

Sentences say a value with its interval the same way in every answer: :func:`fmt_metric` for the cell
figures, :func:`pm_metric` and :func:`pm_text` for ``value ± half`` (``value [lo, hi]`` where the interval is
lopsided), :func:`ci_text` for ``x% [lo%, hi%]`` and :func:`dci_text` for a
paired difference. The statistics behind them are in :mod:`simcore.stats`.

A t interval of a share (or of a difference of two shares) over few deals may reach past the range the
figure can take (below 0% or above 100%, beyond -100% or +100% for a difference); the sentences and tables
show its bounds clipped to that range (:func:`clip_interval`), while the estimates and paired tables keep
the interval as computed and the verdicts (:func:`direction`) are decided on it.
"""
from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from simcore.errors import SenseiError
from simcore.registry import get_game
from simcore.runner import merge_histograms
from simcore.stats import finite_or_none, half_width

from ..config import ABSENT

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """A DataFrame from row dicts, tolerant of mixed ints and floats; empty rows give an empty frame."""
    if not rows:
        return pl.DataFrame()
    return pl.DataFrame(rows, strict=False, infer_schema_length=None)


def pooled_totals(run) -> tuple[int, dict[str, np.ndarray], dict[str, np.ndarray], tuple[int, np.ndarray, int]]:
    """A cell's games, column sums, sums of squares and game-length histogram over every rotation (the first
    bin's turns, the games per bin and the bin width, as :func:`simcore.runner.merge_histograms`)."""
    n = sum(t.n for t in run.totals.values())
    sums = {k: sum(t.sums[k] for t in run.totals.values()) for k in next(iter(run.totals.values())).sums}
    sumsq = {k: sum(t.sumsq[k] for t in run.totals.values()) for k in sums}
    hist = merge_histograms([(t.hist_lo, t.hist, t.hist_width) for t in run.totals.values()])
    return n, sums, sumsq, hist


def short(axis: str) -> str:
    """``focus.wake`` -> ``wake``, ``rules.penalty`` -> ``penalty``, ``strategy.wake`` (every seat's) -> ``wake``;
    another role keeps its name, so that a setting of the table is not read as the player's own choice:
    ``field.wake`` -> ``field wake``, ``seat1.margin`` -> ``seat1 margin``."""
    if "." not in axis:
        return axis
    role, name = axis.split(".", 1)
    return name if role in ("focus", "rules", "strategy") else f"{role} {name}"


def describe_group(axes: list[str], values: tuple, labels: dict[str, str] | None = None) -> str:
    """``2 players, variant base``; a value with a comma of its own (``start_positions 0,6``) is set off by
    semicolons (see :func:`join_values`); a strategy by its short label where ``labels`` (see
    :func:`experiment_labels`) are given (``seat0 keeper``, not its full spec)."""
    parts = []
    for a, v in zip(axes, values):
        parts.append(f"{v} player{'' if v == 1 else 's'}" if a == "players" else
                     f"{short(a)} {label(labels, v) if labels else show(v)}")
    return join_values(parts)


def same_on_every_deal(d: dict | None) -> bool:
    """Whether a paired difference (:func:`simcore.stats.paired_diff`'s, or a race's ``versus_best``) is 0 on
    every deal: a difference of 0 with an interval of no width, as between settings that play the same games."""
    return d is not None and d["diff"] == 0 and d["lo"] == 0 and d["hi"] == 0


def join_values(items) -> str:
    """Values (or phrases) in a list of a sentence: ``7, 10, 13``; where one of them holds a comma of its
    own (a rule value that is a list, such as Fan & Mallet's ``start_positions`` 0,2; a setting of two
    parameters ``margin=1, late=8``; a group ``2 players, variant base``), separated by semicolons instead,
    ``0,2; 0,3``, so that the list cannot be read as more values than it has."""
    items = [str(x) for x in items]
    return ("; " if any("," in x for x in items) else ", ").join(items)


def and_list(items) -> str:
    """:func:`join_values` with ``and`` before the last item: ``7, 10 and 13``, ``0,2; 0,3 and 0,9``."""
    items = [str(x) for x in items]
    if len(items) < 2:
        return "".join(items)
    return join_values(items[:-1]) + " and " + items[-1]


def count_words(yes: str, no: str, k: int, n: int) -> str:
    """``yes`` in ``k`` of the ``n`` groups, read as ``no`` in any of them where ``k`` is 0 ("in 0 of the 8
    groups" read as a claim) and as all of them where ``k`` is ``n``."""
    if k == 0:
        return f"{no} in " + ("either group" if n == 2 else f"any of the {n} groups")
    return f"{yes} in " + (("both groups" if n == 2 else f"all {n} groups") if k == n else f"{k} of the {n} groups")


def show(v: Any) -> str:
    """A value as the sentences show it: a rule option's true/false as on/off, its None as none (as a config
    writes it)."""
    if isinstance(v, bool):
        return "on" if v else "off"
    return "none" if v is None else str(v)


def print_format(metric: str) -> tuple[int, int, str]:
    """How a figure prints: its scale, its usual decimals and its unit (a share or a difference of shares in
    % with one decimal, a game length with one, anything else with two)."""
    if metric in ("win_share", "seat_advantage"):
        return 100, 1, "%"
    return (1, 1, "") if metric == "mean_turns" else (1, 2, "")


def fmt_metric(metric: str, x: float, signed: bool = False, bound: bool = False, decimals: int | None = None) -> str:
    """A figure as the sentences show it: a share in % with one decimal, a game length with one, anything
    else with two (or ``decimals``). An estimate that rounds to zero reads 0.0, never -0.0, except a
    ``signed`` one (a difference) below zero, which reads -0.0 (-0.04%: not a gain); so does an interval's
    ``bound`` below zero that rounds to zero (so that [-0.0%, +0.1%] does not pass for an interval above 0)."""
    if x is None or not math.isfinite(x):
        return "n/a"
    sign = "+" if signed else ""
    scale, d, unit = print_format(metric)
    d = d if decimals is None else decimals
    v = round(x * scale, 9)
    r = rounded(x * scale, d)
    if (bound or signed) and r == 0.0 and v < 0:
        # a bound or a difference below 0 that rounds to 0 keeps its sign: "next 9: -0.0%" (-0.04%), where
        # "+0.0%" read as a gain
        return f"-{0.0:.{d}f}{unit}"
    return f"{r:{sign}.{d}f}{unit}"


def rounded(v: float, d: int) -> float:
    """``v`` to ``d`` decimals as the sentences and the tables both show it: a value a float's last bits put
    next to a half is rounded as the half it stands for (so that 59.25% and its advantage of 9.25% round
    alike, and a share of 0.2015 reads 20.1% in a sentence and in a table); never -0.0. A numpy float is
    rounded as a Python float: numpy's ``round`` scales by 10**d first, so 38.15 (0.3815 of 4,000 games)
    read 38.2 in a sentence and 38.1 in the table."""
    return round(round(float(v), 9), d) + 0.0


def span(metric: str, lo: float | None, hi: float | None, signed: bool = False, decimals: int | None = None,
         refs: tuple[float | None, ...] = ()) -> str:
    """An interval's bounds as the sentences show them, ``[-0.0%, +0.1%]`` (see :func:`fmt_metric`), with
    decimals enough that a bound next to one of ``refs`` (a target, a fair share the sentence judges the
    interval against) does not print as it: ``51.6% [50.05%, 53.1%]`` misses a target of 50%, where
    ``[50.0%, 53.1%]`` would read as holding it."""
    if refs:
        decimals = ref_decimals(metric, (lo, hi), refs, decimals)
    return (f"[{fmt_metric(metric, lo, signed, True, decimals)}, "
            f"{fmt_metric(metric, hi, signed, True, decimals)}]")


def ref_decimals(metric: str, values: tuple[float | None, ...], refs: tuple[float | None, ...],
                 decimals: int | None = None) -> int | None:
    """Decimals enough (up to 3) that none of ``values`` prints as one of ``refs`` it differs from (by more
    than rounding noise); ``decimals`` where the usual ones do."""
    scale, base, _ = print_format(metric)
    d = base if decimals is None else decimals
    pairs = [(v, r) for v in values for r in refs if v is not None and r is not None and math.isfinite(v)
             and math.isfinite(r) and abs(v - r) * scale > 1e-9]
    start = d
    while d < 3 and any(rounded(v * scale, d) == rounded(r * scale, d) for v, r in pairs):
        d += 1
    return decimals if d == start else d


#: significance levels a p-value is read against: one just off them does not print as one of them
P_LEVELS = (0.05, 0.01, 0.001)


def p_text(p: float) -> str:
    """A p-value with two significant digits, or as many more (up to 6) as it takes not to print as one of
    :data:`P_LEVELS` it is not: 0.0499 reads 0.0499, not 0.05 (which would put it on the other side of 5%)."""
    text = f"{p:.2g}"
    for d in (3, 4, 5, 6):
        if float(text) not in P_LEVELS or float(text) == p:
            break
        text = f"{p:.{d}g}"
    return text


def short_of_whole(share: float) -> str:
    """A share below 1 that must not read 100.0% (a completion of 3,998 of 4,000 games): as many decimals
    as it takes, up to 3 (99.95%)."""
    d = next((d for d in (1, 2, 3) if share >= 1 or fmt_metric("win_share", share, decimals=d)
              != fmt_metric("win_share", 1.0, decimals=d)), 3)
    return fmt_metric("win_share", share, decimals=d)


def fine_decimals(metric: str, lo: float | None, hi: float | None) -> int | None:
    """Decimals enough (up to 3) that an interval's bounds, where they differ, do not print alike
    (``+0.0 [-0.0, +0.0]`` for a game length changed by -0.02 [-0.04, +0.01] reads ``-0.02 [-0.04, +0.01]``);
    None for the usual ones."""
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)) or (lo == hi == 0):
        return None
    scale, base, _ = print_format(metric)
    d = base
    if lo == hi:  # the same shift on every deal: enough decimals that it does not print as 0
        while d < 3 and rounded(lo * scale, d) == 0:
            d += 1
        return None if d == base else d
    while d < 3 and rounded(lo * scale, d) == rounded(hi * scale, d):  # -0.0 and +0.0 are alike here
        d += 1
    return None if d == base else d


def group_rows(cells: pl.DataFrame, axes: list[str]):
    """(group values tuple, rows dataframe) in first-seen order."""
    if not axes:
        yield (), cells
        return
    for key, sub in cells.group_by(axes, maintain_order=True):
        yield tuple(key), sub


def short_spec(agent) -> str:
    """The strategy's name with only the parameters that differ from their defaults (for sentences)."""
    diff = []
    for f in dataclasses.fields(agent):
        if f.init and f.default is not dataclasses.MISSING and getattr(agent, f.name) != f.default:
            diff.append(f"{f.name}={getattr(agent, f.name)}")
    from strategies.base import display_name
    return display_name(agent) + (":" + ",".join(diff) if diff else "")


def lineup_label(cell, labels: dict[str, str] | None = None) -> str:
    """A lineup in words: its strategies by short label (see :func:`experiment_labels`)."""
    specs = [label(labels, a) if labels is not None else short_spec(a) for a in cell.agents]
    if len(set(specs)) == 1:
        return specs[0] if cell.players == 1 else f"{specs[0]} in every seat"
    return " / ".join(specs)


def strategy_label(runs: list[CellRun], row: dict[str, Any], labels: dict[str, str] | None = None) -> str:
    a = runs[row["cell"]].cell.agents[0]
    return label(labels, a) if labels is not None else short_spec(a)


def deal_frame(cfg: Config, run: CellRun, metric_defs: list[Any] = ()) -> pl.DataFrame:
    """One row per deal of a cell: seat 0's win (mean over rotations), the focus's score (mean over the seats
    it holds), the game length (mean over rotations), and for each ratio metric its numerator and
    denominator summed over the rotations (``num.NAME``, ``den.NAME``)."""
    if not run.games_rows:
        raise ValueError("deal-by-deal estimates need one row per game (report.per_game = true)")
    g = pl.concat(run.games_rows, how="diagonal_relaxed").with_columns(pl.col("rotation").cast(pl.Int64),
                                                                      pl.col("seat").cast(pl.Int64))
    held = pl.DataFrame({"rotation": [r for r, seats in run.rotations for _ in seats],
                         "seat": [s for _, seats in run.rotations for s in seats]},
                        schema={"rotation": pl.Int64, "seat": pl.Int64})
    focus = g.join(held, on=["rotation", "seat"]).group_by("game").agg(pl.col("score").mean().alias("focus_score"))
    aggs = [pl.col("turns").mean().alias("turns"), pl.len().alias("plays")]
    if "win" in g.columns:
        aggs.append(pl.col("win").mean().alias("seat0_win"))
    for m in metric_defs:
        aggs.append(pl.col(m.num).sum().alias(f"num.{m.name}"))
        aggs.append((pl.col(m.den).sum() if m.den else pl.len()).cast(pl.Float64).alias(f"den.{m.name}"))
    first = g.filter(pl.col("seat") == 0).group_by("game").agg(aggs)
    if "win" in g.columns:  # the share of the deal's games that have a winner (a game stopped at the turn limit has none)
        decided = (g.group_by(["game", "rotation"]).agg(pl.col("win").sum().alias("decided"))
                   .group_by("game").agg(pl.col("decided").mean()))
        first = first.join(decided, on="game")
    return first.join(focus, on="game").sort("game")


def pool_deals(frames: list[pl.DataFrame], metric_defs: list[Any]) -> pl.DataFrame:
    """Deals pooled over cells: means of the per-deal values, sums of the metrics' parts."""
    df = pl.concat(frames, how="diagonal_relaxed")
    aggs = [pl.col(c).mean() for c in ("turns", "seat0_win", "decided", "focus_score") if c in df.columns]
    for m in metric_defs:
        aggs += [pl.col(f"num.{m.name}").sum(), pl.col(f"den.{m.name}").sum()]
    return df.group_by("game").agg(aggs).sort("game")


def score_name(game: str) -> str:
    """``mean score``, with what a score is where the game says (Senshi: ``mean score (smallest pile)``)."""
    words = get_game(game).score_words
    return f"mean score ({words})" if words else "mean score"


def unit(rules: Any) -> str:
    """One simulated game of a cell as the sentences name it: ``game``, or ``match`` (Fan & Mallet's
    ``match_points``: one game of the batch is a match of several)."""
    return rules.unit()


def units(rules: Any) -> str:
    return "matches" if unit(rules) == "match" else "games"


def average_seat(decided: float, players: int) -> float:
    """The fair win share: the average seat's, 1/P of the games that have a winner (``decided``: the share of
    games with one; a game stopped at the turn limit has none); exactly 1/P where every game has one."""
    return 1.0 / players if decided == 1.0 else decided / players


def fair_text(fair: float, players: int) -> str:
    """The share an average seat wins, in words: the fair 1/P, or where games stopped at the turn limit (no
    winner) 1/P of those that have one."""
    return (f"the fair {100 / players:.1f}%" if fair == 1 / players else
            f"the average seat's {100 * fair:.1f}% (1/{players} of the games that have a winner)")


def seat0_advantage(f: pl.DataFrame, players: int) -> np.ndarray:
    """Per deal of a :func:`deal_frame`, seat 0's win share less the average seat's (``decided / P``: the fair
    1/P where every game has a winner)."""
    return f["seat0_win"].to_numpy() - f["decided"].to_numpy() / players


def by_symmetry(c: dict) -> bool:
    """Whether a cell's focus win share is its fair share by symmetry, not an estimate: the same strategy in
    every seat and the focus read from each of them (the fair share is the average seat's, so games stopped
    at the turn limit, which nobody wins, change it alike)."""
    share, fair = c.get("focus_win_share"), c.get("fair_share")
    every_seat = c.get("focus_games") is None or c.get("focus_games") == c.get("players", 0) * c.get("deals", 0)
    return (c.get("focus") is not None and c.get("focus") == c.get("field") and share is not None
            and fair is not None and abs(share - fair) < 1e-12 and every_seat)


def is_share(name: str) -> bool:
    return "share" in name or name.endswith("_won") or name.startswith("first_") or name.startswith("level.")


#: figures that are differences of shares: in percent, as the shares
SHARE_DIFFERENCES = ("seat_advantage", "equilibrium_stakes")


def in_percent(metric: str) -> bool:
    """Whether a metric (or objective) reads in percent: a share, or a difference of shares."""
    return is_share(metric) or metric in SHARE_DIFFERENCES


SHARE_RANGE = (0.0, 1.0)        # a share
SHARE_DIFF_RANGE = (-1.0, 1.0)  # a difference of two shares (paired, or a share's change)


def share_range(name: str) -> tuple[float, float] | None:
    """The natural range of a figure by name: [0, 1] for a share, else None (no bound)."""
    return SHARE_RANGE if is_share(name) else None


def metric_range(metric: str, diff: bool = False) -> tuple[float, float] | None:
    """The natural range of a named metric's figure (``win_share``, ``seat0_win_share``,
    ``focus_win_share``: [0, 1]) or, with ``diff``, of a difference of two of them ([-1, 1], also for
    ``seat_advantage``, a share less the fair share); None for a figure without bounds (scores, turns)."""
    if metric in ("win_share", "seat0_win_share", "focus_win_share"):
        return SHARE_DIFF_RANGE if diff else SHARE_RANGE
    if metric == "seat_advantage" and diff:
        return SHARE_DIFF_RANGE
    return None


def clip_interval(lo: float | None, hi: float | None,
                  bounds: tuple[float, float] | None) -> tuple[float | None, float | None]:
    """Interval bounds clipped to a figure's natural range ``bounds`` for display (a t interval of a share
    over few deals may reach below 0% or past 100%; that of a difference of shares past +-100%). Missing or
    non-finite bounds, and ``bounds`` None, pass unchanged."""
    if bounds is None:
        return lo, hi
    a, b = bounds

    def clip(v):
        return v if v is None or not math.isfinite(v) else min(max(v, a), b)

    return clip(lo), clip(hi)


def lopsided(x: float, lo: float, hi: float) -> bool:
    """Whether ``value ± half`` would misstate the interval [lo, hi]: one side longer than the other by more
    than a quarter of the half-width (a Wilson interval of a share near 0% or 100%, or of few games), where
    ``± half`` would reach past the shorter side (below 0% for a share)."""
    half = (hi - lo) / 2
    return half > 0 and abs((x - lo) - (hi - x)) > 0.25 * half


def pm_metric(metric: str, x: float | None, lo: float | None, hi: float | None, signed: bool = False,
              bounds: tuple[float, float] | None = None, refs: tuple[float | None, ...] = ()) -> str:
    """A cell figure with its interval: ``31.2% ± 1.1%``, or ``15.0% [5.2%, 36.0%]`` where the interval is
    lopsided (see :func:`lopsided`); the value alone without an interval. The bounds are clipped to
    ``bounds`` (default: [0%, 100%] for ``win_share``), so ``90.0% [71.3%, 100.0%]``, never past 100%. With
    ``refs`` (the figures the sentence judges it against), the bounds themselves where one would print as
    one of them: ``52.0% [50.04%, 53.96%]`` "clearly above" 50%, where ``52.0% ± 2.0%`` read as touching it."""
    if x is None or not math.isfinite(x):
        return "n/a"
    lo, hi = clip_interval(lo, hi, bounds if bounds is not None else share_range(metric))
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return fmt_metric(metric, x, signed)
    if lopsided(x, lo, hi) or (refs and (ref_decimals(metric, (lo, hi), refs) is not None
                                         or _pm_reaches(metric, x, lo, hi, refs))):
        return f"{fmt_metric(metric, x, signed)} {span(metric, lo, hi, signed, refs=refs)}"
    return f"{fmt_metric(metric, x, signed)} ± {fmt_metric(metric, half_width(lo, hi))}"


def _pm_reaches(metric: str, x: float, lo: float, hi: float, refs: tuple[float | None, ...]) -> bool:
    """Whether ``value ± half`` as printed would put a bound on or across one of ``refs`` that the interval's
    own bound clears: ``51.7% ± 1.7%`` reads [50.0%, 53.4%] for an interval [50.06%, 53.4%] that the sentence
    calls clearly above 50% (the two roundings add up)."""
    scale, d, _ = print_format(metric)
    xs, hs = rounded(x * scale, d), rounded(half_width(lo, hi) * scale, d)
    for r in refs:
        if r is None or not math.isfinite(r):
            continue
        rs = r * scale
        for true, shown in ((lo * scale, xs - hs), (hi * scale, xs + hs)):
            if abs(true - rs) > 1e-9 and (true - rs) * (round(shown, 9) - rs) <= 0:
                return True
    return False


def turns_pm(x: float, lo: float | None, hi: float | None) -> str:
    """A game length with its interval, ``53.7 turns ± 0.4``, with a second decimal where the half-width
    would print as 0 (Fan & Mallet's games, all of some 58.6 turns: ``58.64 turns ± 0.05``)."""
    half = half_width(lo, hi)
    if not math.isfinite(half):  # no interval (a single deal): the value alone, as pm_metric gives it
        return f"{x:.1f} turns"
    d = 1
    while d < 3 and half > 0 and round(half, d) == 0:
        d += 1
    return f"{x:.{d}f} turns ± {half:.{d}f}"


def pm_text(name: str, x: float | None, lo: float | None, hi: float | None) -> str:
    """``value ± half`` with enough decimals that a small half-width does not print as 0 (``value [lo, hi]``
    where the interval is lopsided, see :func:`lopsided`); a share's bounds clipped to [0%, 100%]. A
    half-width of exactly 0 (the figure alike in every game) prints the value alone."""
    lo, hi = clip_interval(lo, hi, share_range(name))
    half = half_width(lo, hi)
    if x is None or not math.isfinite(x):
        return "n/a"
    scale, unit, d = (100.0, "%", 1) if is_share(name) or name in ("seat_advantage", "seat0_win_share") else \
        (1.0, "", 2)
    if not math.isfinite(half) or half == 0:  # no interval, or none to show (the figure alike everywhere)
        return f"{x * scale:.{d}f}{unit}"
    while d < 4 and round(half * scale, d) == 0:
        d += 1
    if lopsided(x, lo, hi):
        return f"{x * scale:.{d}f}{unit} [{lo * scale:.{d}f}{unit}, {hi * scale:.{d}f}{unit}]"
    return f"{x * scale:.{d}f}{unit} ± {half * scale:.{d}f}{unit}"


def est_row(scope: str, cell: int | None, group: str, case: Any, strategy: str | None, players: int | None,
         figure: str, value, lo, hi, deals: int, band: tuple[float, float] | None = None) -> dict[str, Any]:
    return {"scope": scope, "cell": cell, "group": group, "case": None if case is None else show(case),
            "strategy": strategy, "players": players, "figure": figure, "value": finite_or_none(value), "lo": finite_or_none(lo),
            "hi": finite_or_none(hi), "deals": deals, "band_lo": band[0] if band else None, "band_hi": band[1] if band else None}


def event_rows(cfg: Config, run: CellRun) -> pl.DataFrame:
    """A cell's per-game rows (game, rotation, seat) with ``win`` and, with report.event, ``event`` (0/1)."""
    if not run.games_rows:
        raise ValueError("the risk and turn_order answers need one row per game (report.per_game = true)")
    ev = cfg.report.event
    g = pl.concat(run.games_rows, how="diagonal_relaxed")
    cols = [pl.col("game").cast(pl.Int64), pl.col("rotation").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
            pl.col("win").cast(pl.Float64)]
    if ev is not None:
        cols.append(pl.col(ev).cast(pl.Float64).alias("event"))
    g = g.select(cols)
    if ev is not None:
        bad = g.filter(~pl.col("event").is_in([0.0, 1.0]))
        if bad.height:
            raise SenseiError(f"report.event: {ev} is not a 0/1 column of {cfg.game} (it holds {bad['event'][0]:g})")
    return g


def ci_text(x: float | None, lo: float | None, hi: float | None, refs: tuple[float | None, ...] = ()) -> str:
    """``31.2% [30.1%, 32.3%]`` (its bounds with more decimals where one would print as one of ``refs``:
    see :func:`span`)."""
    if x is None:
        return "n/a"
    if lo is None or hi is None:
        return fmt_metric("win_share", x)
    return f"{fmt_metric('win_share', x)} {span('win_share', lo, hi, refs=refs)}"


def dci_text(d: dict[str, Any], bounds: tuple[float, float] | None = SHARE_DIFF_RANGE) -> str:
    """A paired difference of two shares ``+1.2% [+0.3%, +2.1%]``, its bounds clipped to ``bounds`` (a
    difference of shares lies in [-100%, +100%]: ``+68.8% [+37.6%, +100.0%]``)."""
    if d["lo"] is None or not math.isfinite(d["lo"]):
        return fmt_metric("win_share", d["diff"], True)
    lo, hi = clip_interval(d["lo"], d["hi"], bounds)
    return f"{fmt_metric('win_share', d['diff'], True)} {span('win_share', lo, hi, True)}"


def direction(d: dict[str, Any]) -> int:
    """+1 / -1 when the paired interval lies wholly above / below 0, else 0."""
    lo, hi = d["lo"], d["hi"]
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return 0
    return 1 if lo > 0 else -1 if hi < 0 else 0


def paired_row(gaxes: list[str], key: tuple, metric: str, over: str, value: Any, versus: Any,
                d: dict[str, Any], **extra) -> dict[str, Any]:
    return {**{a: v for a, v in zip(gaxes, key)}, "metric": metric, "over": over, "value": show(value),
            "versus": show(versus), **extra, "diff": d["diff"], "lo": finite_or_none(d["lo"]), "hi": finite_or_none(d["hi"]),
            "p_value": finite_or_none(d["p_value"]), "rho": finite_or_none(d["rho"]), "deals": d["n"]}


def baseline_of(cfg: Config, values: list[Any]) -> Any:
    return cfg.report.baseline if cfg.report.baseline is not None else values[0]


# ------------------------------------------------------------------------ report.event (risk, turn_order)
EVENT_ONLY = "nothing unless answer is risk, turn_order or equilibrium"


def check_event(ctx, required: bool) -> str | None:
    """report.event of the risk, turn_order and equilibrium answers: a per-seat 0/1 outcome column of the
    game, the numerator of one of its per-seat rates (``*_rate``: Senshi's ``eliminated``, behind
    ``elimination_rate``; not the numerator of a mean such as ``max_pile``).
    ``required`` (risk): the key must be there, and the lineup must be a focus lineup."""
    ck, t, kind, answer, eng, cells = ctx.ck, ctx.table, ctx.lineup, ctx.report.answer, ctx.eng, ctx.cells
    if kind == "tournament":
        ck.fail("lineup", f"a focus or seats lineup for answer = {answer!r}", "tournament")
    if required and kind != "focus":
        ck.fail("lineup", f"a focus lineup for answer = {answer!r} (the figures are the focus's)", kind)
    if any(c.players < 2 for c in cells):
        ck.fail("players", f"at least 2 players in every cell for answer = {answer!r} (seats are compared)",
                sorted({c.players for c in cells}))
    if "event" not in t:
        if required:
            ck.fail("report.event", f"this key (required for answer = {answer!r})", ABSENT)
        return None
    # a rate (a share of games: its name ends in _rate) counts a 0/1 column; a mean (mean_largest_pile) does not
    rates = {m.num: m.name for m in eng.ratio_metrics
             if m.per_seat and m.den is None and m.num in eng.columns and m.name.endswith("_rate")}
    name = t["event"]
    if not isinstance(name, str) or name not in rates:
        known = ", ".join(f"{c} ({m})" for c, m in rates.items())
        if not known:
            raise SenseiError(f"{ck.path}: report.event: {eng.name} has no per-seat 0/1 outcome column to count "
                              f"(got {name!r}), so answer = {answer!r} does not apply to it" if required else
                              f"{ck.path}: report.event: {eng.name} has no per-seat 0/1 outcome column to count "
                              f"(got {name!r}): leave report.event out (answer = {answer!r} needs none)")
        ck.fail("report.event", f"a per-seat 0/1 outcome column of {eng.name} (one of {known})", name)
    return name


# ------------------------------------------------------------------------------- strategy labels
def _role_agent(cell, axis: str):
    """The strategy a whole-spec axis of a cell sets (``focus``, ``field``, ``seatN``), or None."""
    roles = list(getattr(cell, "roles", []) or [])
    if axis in ("focus", "field") and axis in roles:
        return cell.agents[roles.index(axis)]
    if axis.startswith("seat") and axis[4:].isdigit() and int(axis[4:]) < len(cell.agents):
        return cell.agents[int(axis[4:])]
    return None


def value_names(cfg: Config) -> dict[str, str]:
    """Words for the values of ``report.over`` that mean something of their own, where it sweeps a strategy
    parameter that names them (``threshold``'s wake -1: ``{"-1": "never"}``); keys are the values as text."""
    over = getattr(cfg.report, "over", None) or ""
    role, _, name = over.partition(".")
    if not name or "." in name:
        return {}
    for c in getattr(cfg, "cells", []) or []:
        agents = list(c.agents) if role == "strategy" else [_role_agent(c, role)]
        for a in agents:
            f = next((f for f in dataclasses.fields(a) if f.name == name), None) if dataclasses.is_dataclass(a) else None
            if f is not None:
                return {str(k): str(v) for k, v in (f.metadata.get("names") or {}).items()}
    return {}


def value_name(over: str, v: Any) -> str:
    """A value of ``over`` as the sentences name it: a bare number or on/off with its axis ("chosen_fan on",
    not "on"; "margin 1", not "1"), a named case or a strategy by itself."""
    return f"{short(over)} {show(v)}" if isinstance(v, (bool, int, float)) or v is None else f"{show(v)}"


def named_value(labels: dict[str, str], names: dict[str, str], v: Any) -> str:
    """A value of ``over`` as the answers show it: its short label, with its word where it has one
    (:func:`value_names`): ``-1 (never)``."""
    text = label(labels, v)
    return f"{text} ({names[str(v)]})" if str(v) in names else text


def experiment_labels(cfg: Config) -> dict[str, str]:
    """``{text: short label}`` for every strategy of an experiment: each full spec, and each strategy as the
    config writes it (a whole-spec sweep value such as ``guard:margin=1``, a tournament entrant), labelled
    by :func:`strategies.registry.spec_labels` over the experiment's specs (in config order)."""
    from strategies.registry import spec_defaults, spec_labels, split_spec

    cells = list(getattr(cfg, "cells", []) or [])
    defaults: dict[str, dict[str, str]] = {}
    for c in cells:
        for a in c.agents:
            d = spec_defaults(a)
            if d is not None:
                defaults.setdefault(split_spec(a.spec())[0], d)
    labels = spec_labels((a.spec() for c in cells for a in c.agents), defaults)
    out = dict(labels)
    for c in cells:
        for axis, v in (c.axes or {}).items():
            a = _role_agent(c, axis) if isinstance(v, str) else None
            if a is not None:
                out.setdefault(v, labels[a.spec()])
        if c.pair is not None:
            for name, a in zip(c.pair, c.agents):
                out.setdefault(str(name), labels[a.spec()])
    return out


def label(labels: dict[str, str], v: Any) -> str:
    """The short label of a strategy (a spec, or a value of a strategy axis), else the value as shown."""
    if isinstance(v, str) and v in labels:
        return labels[v]
    if hasattr(v, "spec"):
        return labels.get(v.spec(), short_spec(v))
    return show(v)


# --------------------------------------------------------------------------- the report's answer table
def ci_cell(x: float | None, lo: float | None, hi: float | None, percent: bool = True, signed: bool = False,
            unit: bool = True, bounds: tuple[float, float] | None = None) -> str:
    """A figure with its interval in a table cell: ``31.2% [30.1, 32.3]`` (``31.2 [30.1, 32.3]`` without
    the unit, which the column's head then gives), ``-1.4 [-2.0, -0.8]``; the bounds clipped to ``bounds``
    (the figure's natural range, see :func:`clip_interval`)."""
    if x is None or not math.isfinite(x):
        return ""
    lo, hi = clip_interval(lo, hi, bounds)
    k, unit, d = (100.0, "%" if unit else "", 1) if percent else (1.0, "", 2 if abs(x) < 10 else 1)
    sign = "+" if signed else ""
    text = f"{rounded(x * k, d):{sign}.{d}f}{unit}"
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return text

    def bound(b: float) -> str:  # a bound below 0 that rounds to 0 reads -0.0, as in the sentences (span)
        r = rounded(b * k, d)
        return f"-{0.0:.{d}f}" if r == 0.0 and round(b * k, 9) < 0 else f"{r:{sign}.{d}f}"
    return text + f" [{bound(lo)}, {bound(hi)}]"


def wide_table(cell_est: pl.DataFrame, names: list[str], words: dict[str, str], labels: dict[str, str],
               over: str | None, percent=lambda name: True, signed: bool = False,
               bounds=share_range) -> pl.DataFrame:
    """Rows: the values of ``over`` (``case``, in the config's order, by short label); columns: each group's
    figures ``names`` (``GROUP: WORD``) with their 95% intervals, from the cell rows of an estimates table.
    With more than nine such columns, one row per group and value instead (the figures as columns).
    ``bounds(name)`` is a figure's natural range, to which its interval is clipped for display (default: a
    share's [0, 1]; a table of paired differences passes that of a difference)."""
    cases = cell_est["case"].unique(maintain_order=True).to_list()
    groups = cell_est["group"].unique(maintain_order=True).to_list()
    head = short(over) if over else "value"
    index = {(r["case"], r["group"], r["figure"]): r for r in cell_est.iter_rows(named=True)}
    rows = []
    if len(groups) * len(names) > 9:
        for g in groups:
            for c in cases:
                row = {"group": str(g), head: label(labels, c)}
                for n in names:
                    r = index.get((c, g, n))
                    row[words.get(n, n) + (" %" if percent(n) else "")] = \
                        ci_cell(r["value"], r["lo"], r["hi"], percent(n), signed, unit=False,
                                bounds=bounds(n)) if r else ""
                rows.append(row)
        return pl.DataFrame(rows, schema={k: pl.String for k in rows[0]}) if rows else pl.DataFrame()
    for c in cases:
        row = {head: label(labels, c)}
        for g in groups:
            for n in names:
                r = index.get((c, g, n))
                word = words.get(n, n) + (" %" if percent(n) else "")
                key = f"{g}: {word}" if len(groups) > 1 else word
                row[key] = ci_cell(r["value"], r["lo"], r["hi"], percent(n), signed, unit=False,
                                bounds=bounds(n)) if r else ""
        rows.append(row)
    return pl.DataFrame(rows, schema={k: pl.String for k in rows[0]}) if rows else pl.DataFrame()
