"""``sprt``: the sequential test's verdict per cell (the test itself is played by the engine)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from ..config import ABSENT
from .base import AnswerKind, Result
from .common import describe_group, experiment_labels, fmt_metric, label, pm_metric

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun


def answer_sprt(cfg: Config, sprt: pl.DataFrame, cells: pl.DataFrame) -> list[str]:
    out = []
    s = cfg.sprt
    labels = experiment_labels(cfg)
    for row, c in zip(sprt.iter_rows(named=True), cells.iter_rows(named=True)):
        desc = describe_group(cfg.axes, tuple(c[a] for a in cfg.axes), labels)
        # the test chooses between two hypotheses at the error rates asked for; it does not bound the advantage
        h0, h1 = f"{s.h0 * 100:+.1f}%", f"{s.h1 * 100:+.1f}%"
        verdict = {"H1": f"better: the test prefers an advantage of {h1} over the fair share to one of {h0} "
                         f"(error rates {s.alpha:g} and {s.beta:g})",
                   "H0": f"closer to {h0} than to {h1}: the test prefers an advantage of {h0} over the fair share "
                         f"to one of {h1} (error rates {s.alpha:g} and {s.beta:g})",
                   "continue": f"undecided between an advantage of {h0} and of {h1}"}[row["decision"]]
        # unrotated, the focus holds seat 0 in every game: the test is of that seat and strategy together
        who = (f"{label(labels, c['focus'])} against {label(labels, c['field'])}" if cfg.rotate else
               f"{label(labels, c['focus'])} in seat 0 (the first player, every game) against "
               f"{label(labels, c['field'])}")
        # the verdict picks the nearer of two advantages and bounds neither: where the interval says more (a share
        # clearly above the fair one, yet nearer h0; nearer h1, yet not clearly above it), it says so
        lo, hi, fair = c["focus_win_lo"], c["focus_win_hi"], c["fair_share"]
        beside = ""
        if None not in (lo, hi, fair):
            if row["decision"] == "H0" and lo > fair:
                beside = (f"; the interval lies wholly above the fair share: an advantage, nearer {h0} than "
                          f"{h1}")
            elif row["decision"] != "H1" and hi < fair:  # ("closer to +0.0%" read as about fair)
                beside = "; the interval lies wholly below the fair share: a disadvantage"
            elif row["decision"] == "continue" and lo > fair:
                beside = "; the interval lies wholly above the fair share"
            elif row["decision"] == "H1" and lo <= fair:
                beside = "; the interval reaches the fair share: the test's preference, not a bound"
        out.append(who + (f" ({desc})" if desc else "")
                   + f": {verdict} after {row['deals']:,} deals (LLR {row['llr']:.2f}, bounds "
                   f"[{row['lower']:.2f}, {row['upper']:.2f}]); win share "
                   f"{pm_metric('win_share', c['focus_win_share'], c['focus_win_lo'], c['focus_win_hi'])} (fair "
                   f"{fmt_metric('win_share', c['fair_share'])}"
                   + ("; a fixed-size interval, taken where the test stopped: it holds the true share somewhat "
                      "less often than 95% of the time" if row["decision"] != "continue" else "") + beside + ")")
    return out


def precheck(ctx) -> None:
    if ctx.sprt is None:
        ctx.ck.fail("sprt", "a table of the sequential test (h0, h1 and its error rates) for answer = 'sprt'",
                    ABSENT)


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun]) -> Result:
    return Result(answer_sprt(cfg, tables["sprt"], tables["cells"]))


KIND = AnswerKind("sprt", "the sequential test's verdict with the number of deals it needed", analyse,
                  precheck=precheck)
