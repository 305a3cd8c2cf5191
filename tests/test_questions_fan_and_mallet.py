"""The shipped Fan & Mallet question: fan_and_mallet_balance.toml validates, runs at a tiny size, answers
with intervals and builds its report; its deal-by-deal figures agree with the cell totals and the games."""
import os
import re

import numpy as np
import polars as pl
import pytest
from markupsafe import escape

from experiments import load_config, run_experiment
from simcore.stats import ratio_ci as _ratio_ci
from reports import build_report
from simcore.errors import SenseiError
from simcore.runner import simulate
from simcore.stats import values_ci
from strategies.registry import resolve

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH = os.path.join(ROOT, "experiments", "fan_and_mallet_balance.toml")
STRATEGIES = {"random", "strongest", "closer", "keeper", "counter"}


def test_config_pairs_every_strategy_both_ways_for_each_start():
    cfg = load_config(PATH)
    assert cfg.game == "fan-and-mallet" and cfg.report.answer == "balance" and cfg.report.per_game
    assert cfg.rotate  # each pairing is played with each strategy as White (seat 0)
    pairs = {frozenset(a.name for a in c.agents) for c in cfg.cells}
    assert len(pairs) == 15 and set().union(*pairs) == STRATEGIES
    assert {c.rules.start_positions for c in cfg.cells} == {(0, 6), (0, 3), (0, 9), (0, 1), (0, 11), (0, 0)}
    assert len(cfg.cells) == 90
    # an asymmetric pairing is played in two orientations, self-play in one
    assert sorted({len(c.rotations(cfg.rotate)) for c in cfg.cells}) == [1, 2]


@pytest.fixture(scope="module")
def tiny():
    return run_experiment(PATH, games=8)


def test_answer_has_an_interval_for_every_start_and_metric(tiny, tmp_path):
    ans = tiny.answer
    starts = [s for s in ans if s.startswith("start_positions ")]
    assert [s.split(":")[0] for s in starts] == [f"start_positions {p}" for p in ("0,6", "0,3", "0,9", "0,1", "0,11",
                                                                                     "0,0")]
    for s in starts:
        assert re.search(r"seat 0 \(the first player\) wins \d+\.\d% ± \d+\.\d% of games over the 15 pairings", s)
    rest = ans[len(starts):]
    # the metrics in the game's words, never by their column names
    assert rest[0].startswith("over every cell") and all(k in rest[0] for k in (
        "the winner of the first possession wins the game in", "of possessions are tied", "of the ties are in White's"))
    assert rest[1].startswith("the mean bonus power of a kid ghost in a possessed house, over every cell")
    assert rest[2].startswith("the share of kid ghosts in possessed houses whose bonus decides the possession")
    for s in rest:
        assert s.count("±") >= 3
    for s in rest + tiny.headline:
        assert not re.search(r"first_winner_won|tie_share|tie_white_house_share|mean_bonus|swing_share", s), s
    # the headline: seat 0 by start, the pairings off the fair share, the metrics, the abilities' ranges
    assert len(tiny.headline) == 5 and tiny.headline[3] == rest[0][0].upper() + rest[0][1:] + "."
    assert re.match(r"Over every cell, the mean bonus power of a kid ghost in a possessed house ranges from "
                    r"\d+\.\d+ ± \d+\.\d+ \(\w+\) to \d+\.\d+ ± \d+\.\d+ \(\w+\); the share of kid ghosts", tiny.headline[4])
    # the pairings of one strategy in both seats apart, where only the seat differs: their pooled share of seat 0
    # (a pairing of unequal strategies dilutes the seat's edge with the stronger one's games)
    assert tiny.headline[1].startswith("With one strategy in every seat (5 of the 15 pairings of each group), where "
                                       "only the seat differs, seat 0 wins ")
    cells = tiny.cells.filter(pl.col("seat0") == pl.col("seat1"))
    shares = re.findall(r"(\d+\.\d)% (?:± \d+\.\d%|\[[^]]+\]) \(start_positions (0,\d+)\)", tiny.headline[1])
    assert len(shares) == 6
    for share, start in shares:
        c = cells.filter(pl.col("rules.start_positions") == start)
        assert c.height == 5
        assert float(share) == pytest.approx(100 * (c["seat0_win_share"] * c["games"]).sum() / c["games"].sum(), abs=0.051)
    page = open(build_report(tiny.write(str(tmp_path)), index=False), encoding="utf-8").read()
    assert "Seat 0 by orientation" in page and "Estimates" in page and all(str(escape(s)) in page for s in ans)
    assert "advantage %" in page and "(points)" not in page  # a difference of shares in %, as everywhere


def test_deal_by_deal_figures_agree_with_totals_and_games(tiny):
    est = tiny.tables["estimates"]
    cells = tiny.cells
    per_cell = est.filter((pl.col("scope") == "cell") & (pl.col("figure") == "seat0_win_share"))
    joined = per_cell.join(cells.select(["cell", "seat0_win_share", "metric.first_winner_won"]), on="cell")
    assert joined.height == 90
    assert np.allclose(joined["value"].to_numpy(), joined["seat0_win_share"].to_numpy())
    fww = est.filter((pl.col("scope") == "cell") & (pl.col("figure") == "first_winner_won")).join(
        cells.select(["cell", "metric.first_winner_won"]), on="cell")
    assert np.allclose(fww["value"].to_numpy(), fww["metric.first_winner_won"].to_numpy())
    # pooled over every cell: the ratio of the sums over all games
    games = tiny.games.filter(pl.col("seat") == 0)
    allrow = est.filter((pl.col("scope") == "all") & (pl.col("figure") == "tie_white_house_share")).row(0, named=True)
    assert allrow["value"] == pytest.approx(games["ties_white_house"].sum() / games["ties"].sum())
    assert allrow["lo"] < allrow["value"] < allrow["hi"] and allrow["deals"] == 8


def test_rotation_reads_white_in_both_orientations(tiny):
    cfg = load_config(PATH)
    (cell,) = [c for c in cfg.cells if c.axes == {"rules.start_positions": "0,6", "pairing": "closer_vs_counter"}]
    seats = tiny.seats.filter((pl.col("cell") == cell.index) & (pl.col("seat") == 0)).sort("rotation")
    assert seats["strategy"].str.split(":").list.first().to_list() == ["closer", "counter"]
    # rotation 1 is counter as White against closer as Black: the same games as a direct simulation
    r = simulate("fan-and-mallet", [resolve("fan-and-mallet", "counter"), resolve("fan-and-mallet", "closer")],
                 rules={"start_positions": "0,6"}, n_games=8, seed=cfg.seed)
    assert seats["win_share"][1] == pytest.approx(r.totals.sums["win"][0] / 8)


def test_ratio_interval():
    y = np.array([3.0, 5.0, 4.0, 6.0])
    r, lo, hi = _ratio_ci(0.5 * y, y)
    assert (r, lo, hi) == (0.5, 0.5, 0.5)
    x = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    assert _ratio_ci(x, np.ones_like(x)) == pytest.approx(values_ci(x))
    assert _ratio_ci(x, np.zeros_like(x)) == (None, None, None)


def test_unknown_metric_is_a_config_mistake():
    raw = {"title": "t", "question": "q", "game": "fan-and-mallet", "lineup": {"seats": ["closer", "keeper"]},
           "sweep": {"rules.start_positions": ["0,6", "0,0"]},
           "report": {"answer": "balance", "per_game": True, "metrics": ["tie_share", "mean_luck_*"]}}
    with pytest.raises(SenseiError, match=r"report.metrics\[1\]: expected a metric of fan-and-mallet"):
        load_config(raw)
    raw["report"]["metrics"] = ["tie_share", "tie_share"]
    with pytest.raises(SenseiError, match=r"report.metrics\[1\]: expected each metric once"):
        load_config(raw)
    # a bare * named every metric again, under a family without a name; a family overlapping a metric named
    raw["report"]["metrics"] = ["tie_share", "*"]
    with pytest.raises(SenseiError, match=r"report.metrics\[1\]: expected a metric of fan-and-mallet or a family "
                                          r"prefix_\* with a prefix, got '\*'"):
        load_config(raw)
    raw["report"]["metrics"] = ["mean_bonus_bucket", "mean_bonus_*"]
    with pytest.raises(SenseiError, match=r"report.metrics\[1\]: expected each metric once \(mean_bonus_bucket is "
                                          r"also named by 'mean_bonus_bucket'\)"):
        load_config(raw)
    raw["report"]["metrics"] = ["mean_bonus_*", "swing_share_*"]
    load_config(raw)
    raw["report"]["metrics"] = ["tie_share"]
    raw["report"]["per_game"] = False
    with pytest.raises(SenseiError, match="report.per_game: expected true"):
        load_config(raw)


def test_pooled_metrics_are_also_given_for_self_play_and_mixed_cells_apart(tiny):
    """The winner of the first possession wins more often where a stronger strategy meets a weaker one: the
    pooled figure is also given for the cells of one strategy in every seat (the rule alone) and the others."""
    est = tiny.tables["estimates"]
    cfg = load_config(PATH)
    selfplay = {c.index for c in cfg.cells if len({a.name for a in c.agents}) == 1}
    assert len(selfplay) == 30
    games = tiny.games.filter(pl.col("seat") == 0)
    for scope, cells in (("self-play", selfplay), ("mixed", set(range(90)) - selfplay)):
        row = est.filter((pl.col("scope") == scope) & (pl.col("figure") == "tie_white_house_share")).row(0, named=True)
        sub = games.filter(pl.col("cell").is_in(sorted(cells)))
        assert row["value"] == pytest.approx(sub["ties_white_house"].sum() / sub["ties"].sum())
    sentence = next(s for s in tiny.answer if s.startswith("over every cell"))
    pm = r"\d+\.\d% (?:± \d+\.\d%|\[\d+\.\d%, \d+\.\d%\])"   # (a share's interval may be asymmetric)
    assert re.search(rf"the winner of the first possession wins the game in [^;]*, {pm} in the 30 cells "
                     rf"of one strategy in every seat and {pm} in the 60 cells of different strategies;", sentence)
