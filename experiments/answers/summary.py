"""``summary``: the focus's (or every seat's) figures for each cell."""
from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from simcore.stats import half_width

from .base import AnswerKind, Result
from .common import by_symmetry, describe_group, experiment_labels, fmt_metric, label, pm_metric, pm_text

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def answer_summary(cfg: Config, cells: pl.DataFrame) -> list[str]:
    """One sentence per cell: the focus's win share (or the seats' balance) and the game length."""
    out = []
    labels = experiment_labels(cfg)
    for c in cells.iter_rows(named=True):
        desc = describe_group(cfg.axes, tuple(c[a] for a in cfg.axes), labels) or \
            f"{c['players']} player{'' if c['players'] == 1 else 's'}"
        adv = fmt_metric('seat_advantage', c['seat_advantage'], True)
        if c.get("seat0_win_lo") is not None and c.get("seat_advantage") is not None:
            fair = c["seat0_win_share"] - c["seat_advantage"]
            adv = pm_metric("seat_advantage", c["seat_advantage"], c["seat0_win_lo"] - fair, c["seat0_win_hi"] - fair,
                            True)
        length = (f"game length {c['mean_turns']:.1f} turns ± {half_width(c['turns_lo'], c['turns_hi']):.1f}, "
                  f"first-seat advantage {adv}")
        if cfg.kind == "seats":
            out.append(f"{desc}: {length}")
        else:
            share = (f"{fmt_metric('win_share', c['focus_win_share'])} (the fair share by symmetry: the same "
                     "strategy in every seat)" if by_symmetry(c) else
                     f"{pm_metric('win_share', c['focus_win_share'], c['focus_win_lo'], c['focus_win_hi'])} (fair "
                     f"{fmt_metric('win_share', c['fair_share'])})")
            out.append(f"{label(labels, c['focus'])} against {label(labels, c['field'])} ({desc}): win share "
                       f"{share}, mean score {_score(c)}; {length}")
    return out


def _score(c: dict) -> str:
    """The focus's mean score with its t interval (``86.72 ± 1.95``), the bare mean where it has none."""
    return pm_text("mean_score", c["focus_mean_score"], c.get("focus_score_lo"), c.get("focus_score_hi"))


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    return Result(answer_summary(cfg, tables["cells"]))


KIND = AnswerKind("summary", "the focus's (or every seat's) figures for each cell", analyse, vectors="small")
