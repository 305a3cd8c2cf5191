"""``summary``: the focus's (or every seat's) figures for each cell."""
from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl


from .base import AnswerKind, Result
from .common import by_symmetry, describe_group, experiment_labels, fmt_metric, label, pm_metric, pm_text, score_name, turns_pm, unit

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def answer_summary(cfg: Config, cells: pl.DataFrame, seats: pl.DataFrame | None = None,
                   runs: list[CellRun] | None = None) -> list[str]:
    """One sentence per cell: the focus's win share (or each seat's), the game length and, where seat 0 is
    not also a strategy of its own, the first-seat advantage (seat 0's share less the average seat's)."""
    out = []
    labels = experiment_labels(cfg)
    for c in cells.iter_rows(named=True):
        desc = describe_group(cfg.axes, tuple(c[a] for a in cfg.axes), labels) or \
            f"{c['players']} player{'' if c['players'] == 1 else 's'}"
        agents = runs[c["cell"]].cell.agents if runs is not None else None
        mixed = agents is not None and len({a.spec() for a in agents}) > 1
        what = unit(runs[c["cell"]].cell.rules) if runs is not None else "game"
        length = f"{what} length {turns_pm(c['mean_turns'], c['turns_lo'], c['turns_hi'])}"
        if c["players"] == 1:  # solo: no seat to compare, a score
            length += (f", {score_name(cfg.game)} "
                       f"{pm_text('mean_score', c['focus_mean_score'], c.get('focus_score_lo'), c.get('focus_score_hi'))}")
        elif c.get("timeouts") is not None and c.get("games") and c["timeouts"] >= c["games"]:
            # no game had a winner: no seat did better than another ("+0.0% [+0.0%, +1.3%]" read as measured)
            length += ", no first-seat advantage to measure: no game had a winner"
        elif cfg.rotate or not mixed:
            adv = fmt_metric('seat_advantage', c['seat_advantage'], True)
            if c.get("seat_advantage_lo") is not None and c.get("seat_advantage") is not None:
                adv = pm_metric("seat_advantage", c["seat_advantage"], c["seat_advantage_lo"], c["seat_advantage_hi"],
                                True)
            length += f", first-seat advantage {adv}"
        if cfg.kind == "seats":
            shares = _seat_shares(cfg, c, seats, agents, labels) if c["players"] > 1 and mixed else ""
            out.append(f"{desc}: {length}" + (f"; {shares}" if shares else ""))
        else:
            share = (f"{fmt_metric('win_share', c['focus_win_share'])} (the fair share by symmetry: the same "
                     "strategy in every seat)" if by_symmetry(c) else
                     f"{pm_metric('win_share', c['focus_win_share'], c['focus_win_lo'], c['focus_win_hi'])} (fair "
                     f"{fmt_metric('win_share', c['fair_share'])})")
            out.append(f"{label(labels, c['focus'])} against {label(labels, c['field'])} ({desc}): win share "
                       f"{share}, {score_name(cfg.game)} {_score(c)}; {length}"
                       + ("" if cfg.rotate or not mixed else " (not rotated: the focus holds seat 0 in every game)"))
    if runs is not None and any(len(r.rotations) > 1 and r.vectors() is None for r in runs):
        # above SMALL_VECTORS deals in all no per-deal values are kept: intervals over games (measured: with 4
        # rotations of strongly alike deals a 95% interval over games held the truth in 69-79% of samples)
        out.append("These intervals are over games: a run of more than 10,000,000 deals in all keeps no per-deal "
                   "values, so a deal's rotations, which share its cards, count as independent games and the "
                   "intervals can be too narrow (by up to the square root of the rotations of a deal).")
    return out


def _seat_shares(cfg: Config, c: dict, seats: pl.DataFrame | None, agents, labels) -> str:
    """A mixed seats lineup's win share of each of its members: by seat where the lineup is not rotated (each
    share is then its seat's and its strategy's together), else over every seat."""
    if seats is None or seats.is_empty() or "win_share" not in seats.columns:
        return ""
    sub = seats.filter(pl.col("cell") == c["cell"])
    if sub.is_empty() or sub["win_share"].null_count():
        return ""
    parts = []
    if cfg.rotate:  # each strategy over every seat it held (a member repeated in the lineup counts once)
        specs = [a.spec() for a in agents]
        for spec in dict.fromkeys(specs):
            rows = sub.filter(pl.col("strategy") == spec)
            wins, games = float((rows["win_share"] * rows["games"]).sum()), float(rows["games"].sum())
            held = specs.count(spec)
            # a strategy in several seats: its share is a seat's; together its seats win that many times more
            # ("counter 49.9%" read as counter's share of the games, where its two seats won 99.8% of them)
            parts.append(f"{label(labels, spec)} {fmt_metric('win_share', wins / games)}"
                         + (f" a seat ({held} seats, together {fmt_metric('win_share', held * wins / games)} of the "
                            "games)" if held > 1 else ""))
    else:
        for b in range(c["players"]):
            row = sub.filter(pl.col("seat") == b).row(0, named=True)
            parts.append(f"seat {b} {label(labels, agents[b])} "
                         + pm_metric("win_share", row["win_share"], row["win_lo"], row["win_hi"]))
    if cfg.rotate:
        return ("win shares over every seat: " + ", ".join(parts) + " (without intervals: the seats of a deal "
                "share its cards; the seats table has each rotation's with its own)")
    return ("win shares by seat (not rotated: each is its seat's and its strategy's together): " + ", ".join(parts))


def _score(c: dict) -> str:
    """The focus's mean score with its t interval (``86.72 ± 1.95``), the bare mean where it has none."""
    return pm_text("mean_score", c["focus_mean_score"], c.get("focus_score_lo"), c.get("focus_score_hi"))


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    return Result(answer_summary(cfg, tables["cells"], tables.get("seats"), runs))


KIND = AnswerKind("summary", "the focus's (or every seat's) figures for each cell", analyse, vectors="small")
