"""The shipped Sensu questions: sensu_balance.toml and sensu_sticks_calibration.toml validate, run at a tiny
size, answer with intervals, and their reports build; the calibration answer's solo figures and verdict
are checked against direct simulation and against a criterion no table can meet."""
import os
import re

import numpy as np
import polars as pl
import pytest
from markupsafe import escape

from experiments import load_config, run_experiment
from simcore.stats import inside_band as _inside
from reports import build_report
from simcore.errors import SenseiError
from simcore.runner import simulate
from strategies.registry import resolve

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BALANCE = os.path.join(ROOT, "experiments", "sensu_balance.toml")
CALIBRATION = os.path.join(ROOT, "experiments", "sensu_sticks_calibration.toml")
INTERVAL = re.compile(r"± \d|\[[-+]?\d[\d.]*%?, [-+]?\d[\d.]*%?\]")


def test_balance_config_asks_first_player_advantage_for_2_to_5_players_and_each_variant():
    cfg = load_config(BALANCE)
    assert cfg.game == "sensu" and cfg.kind == "seats" and cfg.report.answer == "effect"
    assert {c.players for c in cfg.cells} == {2, 3, 4, 5}
    assert set(cfg.cells[0].axes) == {"players", "variant"}
    rules = {(c.rules.powers, c.rules.chosen_fan) for c in cfg.cells}
    assert rules == {(False, False), (True, False), (False, True), (True, True)}
    # self-play: every seat plays the same strategy, so seat 0's share is the first player's share
    assert all(len({a.spec() for a in c.agents}) == 1 for c in cfg.cells)


def test_balance_runs_and_answers_with_intervals(tmp_path):
    res = run_experiment(BALANCE, games=24)
    assert len(res.answer) == 16
    for sentence in res.answer:
        assert sentence.startswith("variant ") and "first-seat advantage" in sentence and INTERVAL.search(sentence)
        if not sentence.startswith("variant base"):
            assert "vs base" in sentence
    page = open(build_report(res.write(str(tmp_path)), index=False), encoding="utf-8").read()
    assert all(str(escape(s)) in page for s in res.answer)


@pytest.fixture(scope="module")
def calibration():
    return run_experiment(CALIBRATION, games=40)


def test_calibration_config_validates():
    cfg = load_config(CALIBRATION)
    assert cfg.report.answer == "calibration" and cfg.report.over == "rules.sticks"
    assert cfg.report.score_band == (25.0, 35.0) and cfg.report.top_share == (0.01, 0.10)
    solo = [c for c in cfg.cells if c.players == 1]
    assert {c.rules.sticks for c in solo} == {"A", "A2", "B", "C"}
    assert {c.agents[0].name for c in solo} == {"planner", "focus", "random"}
    assert {c.players for c in cfg.cells} == {1, 2, 3, 4, 5}


def test_calibration_answer_states_the_verdict_and_every_table(calibration, tmp_path):
    ans = calibration.answer
    head = ans[0]
    assert "criterion" in head and ("make the level scale plausible" in head or "makes the level scale plausible"
                                    in head or "no value of sticks makes" in head)
    assert re.search(r"solo average ranges from \d+\.\d+ ± \d[\d.]* \(sticks \w+\) to", head)
    assert "first-seat advantage" in head and "Holm" in head
    for table in ("A", "A2", "B", "C"):
        (sentence,) = [s for s in ans if s.startswith(f"sticks {table}: ")]
        assert re.search(r": (plausible|implausible|borderline)", sentence)
        assert "Grandmaster in" in sentence and INTERVAL.search(sentence)
        if table != "A":  # the same strategy under the first table, named
            best = re.search(r": (\w+) \(best of", sentence).group(1)
            assert f"; vs {best} under sticks A: " in sentence, sentence
    multi = [s for s in ans if re.match(r"\d players, ", s)]
    assert [s.split(" ", 1)[0] for s in multi] == ["2", "3", "4", "5"]
    assert all("first-seat advantage A " in s and "game length" in s for s in multi)
    page = open(build_report(calibration.write(str(tmp_path)), index=False), encoding="utf-8").read()
    assert "Calibration criterion" in page and "Levels" in page and all(str(escape(s)) in page for s in ans)


def test_calibration_solo_figures_match_direct_simulation(calibration):
    cells = calibration.cells.filter((pl.col("players") == 1) & (pl.col("rules.sticks") == "B")
                                     & (pl.col("setup") == "solo_focus"))
    row = cells.row(0, named=True)
    cfg = load_config(CALIBRATION)
    r = simulate("sensu", [resolve("sensu", "focus")], players=1, rules={"sticks": "B"}, n_games=40, seed=cfg.seed)
    assert row["focus_mean_score"] == pytest.approx(r.totals.sums["score"][0] / 40)
    assert row["focus_win_share"] is None and row["games"] == 40
    est = calibration.tables["estimates"].filter(pl.col("cell") == row["cell"])
    levels = est.filter(pl.col("figure").str.starts_with("level."))
    assert levels.height == 6
    assert levels["value"].sum() == pytest.approx(1.0)
    assert np.allclose(levels["value"].to_numpy(), np.asarray(r.totals.sums["level"]) / 40)
    top = levels.row(5, named=True)
    assert top["figure"] == "level.Grandmaster" and (top["band_lo"], top["band_hi"]) == (0.01, 0.10)


def test_a_criterion_no_table_meets_is_said_plainly():
    raw = {"title": "t", "question": "q", "game": "sensu", "players": 1, "games": 30, "seed": 2,
           "lineup": {"seats": ["redeemer"]}, "sweep": {"rules.sticks": ["A", "B"]},
           "report": {"answer": "calibration", "over": "rules.sticks", "score_band": [60, 70],
                      "top_share": [0.5, 0.9], "per_game": True}}
    res = run_experiment(raw)
    assert res.answer[0].startswith("no value of sticks makes the level scale plausible")
    assert "implausible: A, B" in res.answer[0]
    assert all(": implausible (" in s for s in res.answer[1:])


def test_a_strategy_not_clearly_worse_than_the_best_must_meet_the_criterion_too():
    # sensu_sticks_calibration, sticks C: planner led focus by 0.09 [-0.01, +0.19] points and was judged
    # alone; focus reached Grandmaster in 1.3% [0.99%, 1.70%], at the edge of the band. Which one leads is
    # chance, so the verdict holds only where it holds for both. Here (seed 3) focus leads and is at the edge
    # of 1%-5%, planner inside it.
    raw = {"title": "t", "question": "q", "game": "sensu", "players": 1, "games": 2000, "seed": 3,
           "lineup": {"seats": ["planner"]}, "sweep": {"rules.sticks": ["A"], "seat0": ["planner", "focus"]},
           "report": {"answer": "calibration", "over": "rules.sticks", "score_band": [25, 35],
                      "top_share": [0.01, 0.05], "per_game": True}}
    res = run_experiment(raw)
    assert res.answer[1].startswith("sticks A: borderline (focus is borderline (Grandmaster at the edge of 1%-5%); "
                                    "planner, not clearly worse, is plausible): focus (best of 2 solo strategies)")
    assert re.search(r"; planner is not clearly worse on the same deals \(-0\.\d\d \[-0\.\d\d, \+0\.\d\d\] "
                     r"points\): it averages [\d.]+ ± [\d.]+, Grandmaster in 3\.9% \[3\.1%, 4\.8%\]", res.answer[1])
    assert "borderline: A" in res.answer[0] and "solo average is 28.00 ± 0.21" in res.answer[0]
    # a band both meet: plausible, each one named
    res = run_experiment({**raw, "report": {**raw["report"], "top_share": [0.01, 0.10]}})
    assert res.answer[1].startswith("sticks A: plausible: focus") and "planner is not clearly worse" in res.answer[1]


def test_inside_band():
    assert _inside(26.0, 28.0, (25, 35), 27.0) == "in"
    assert _inside(24.0, 26.0, (25, 35), 25.0) == "borderline"
    assert _inside(0.0, 0.004, (0.01, 0.1), 0.001) == "out"
    assert _inside(35.0, 36.0, (25, 35), 35.5) == "out"


@pytest.mark.parametrize("report, match", [
    ({"answer": "calibration", "over": "rules.sticks", "score_band": [25, 35], "top_share": [0.01, 0.1],
      "per_game": False}, "report.per_game: expected true"),
    ({"answer": "calibration", "over": "rules.sticks", "top_share": [0.01, 0.1], "per_game": True},
     "report.score_band: missing .required for answer = 'calibration'."),
    ({"answer": "calibration", "over": "rules.sticks", "score_band": [35, 25], "top_share": [0.01, 0.1],
      "per_game": True}, "report.score_band: expected two numbers"),
    ({"answer": "calibration", "over": "rules.sticks", "score_band": [25, 35], "top_share": [0.1, 2],
      "per_game": True}, "report.top_share: expected two numbers"),
    ({"answer": "summary", "score_band": [25, 35]}, "report.score_band: expected nothing unless"),
    ({"answer": "summary", "metrics": ["mean_plays"]}, "report.metrics: expected nothing unless"),
])
def test_calibration_config_mistakes(report, match):
    raw = {"title": "t", "question": "q", "game": "sensu", "players": 1, "lineup": {"seats": ["redeemer"]},
           "sweep": {"rules.sticks": ["A", "B"]}, "report": report}
    with pytest.raises(SenseiError, match=match):
        load_config(raw)


def test_calibration_needs_a_solo_cell():
    raw = {"title": "t", "question": "q", "game": "sensu", "players": 3, "lineup": {"seats": ["redeemer"]},
           "sweep": {"rules.sticks": ["A", "B"]},
           "report": {"answer": "calibration", "score_band": [25, 35], "top_share": [0.01, 0.1], "per_game": True}}
    with pytest.raises(SenseiError, match="players: expected at least one solo cell"):
        load_config(raw)
