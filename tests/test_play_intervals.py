"""The added intervals of ``sensei play --json`` lie within each figure's possible range: a share within
[0, 1], a mean of counts at least 0, a Fan & Mallet score at most the 7 markers that win, and a figure
that is the same in every game a single point."""
import json
import math

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from experiments.cli import app
from simcore.registry import get_game
from simcore.runner import RunResult, Totals, ratio_pairs
from simcore.stats import wilson
from strategies.registry import lineup

runner = CliRunner()


def play_json(*args):
    r = runner.invoke(app, ["play", *args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def entries(value, interval):
    """(value, [lo, hi]) pairs of a metric and its interval, whatever their shape."""
    if isinstance(value, dict):
        for k in value:
            yield from entries(value[k], interval[k])
    elif isinstance(value, list):
        for v, i in zip(value, interval):
            yield from entries(v, i)
    elif value is not None and interval is not None:
        yield value, interval


def assert_within_ranges(out):
    """Every added interval inside its figure's possible range (and around its value)."""
    eng = get_game(out["game"])
    rules = eng.make_rules(out["rules"])
    players = out["players"]
    for name, value in out["metrics"].items():
        low, high = eng.metric_range(name, players, rules)
        for v, (lo, hi) in entries(value, out["ci95"][name]):
            assert lo <= v <= hi, (name, v, lo, hi)
            assert low is None or lo >= low, (name, lo, low)
            assert high is None or hi <= high, (name, hi, high)
    low, high = eng.column_range("score", players, rules)
    for v, (lo, hi) in zip(out["mean_score"], out["mean_score_ci95"]):
        assert lo <= v <= hi
        assert low is None or lo >= low
        assert high is None or hi <= high
    assert 0 <= out["mean_turns_ci95"][0] <= out["mean_turns"] <= out["mean_turns_ci95"][1]
    assert 0 <= out["timeout_share_ci95"][0] <= out["timeout_share_ci95"][1] <= 1
    if out["timeouts"] == 0:  # a share of 0 is its interval's low end (Wilson's rounding gave 1.08e-19)
        assert out["timeout_share_ci95"][0] == 0.0


def test_sen_one_round_shares_within_0_1_and_constant_figures_are_points():
    out = play_json("sen", "--players", "5", "--strategy", "swapper", "--rule", "rounds=1", "--games", "3000")
    ci = out["ci95"]
    # every game has exactly one round: the mean is 1 with no uncertainty (was a Wilson interval from 0.9987)
    assert out["metrics"]["mean_rounds"] == 1.0 and ci["mean_rounds"] == [1.0, 1.0]
    # 2,997 of 3,000 rounds called: the share's interval stops at 1 (was 1.0001)
    assert out["metrics"]["wake_rate"] == 0.999
    assert ci["wake_rate"][1] == 1.0 and ci["wake_rate"][0] < 0.999
    # no game has a lead change: a mean of counts that is 0 in every game
    assert out["metrics"]["mean_lead_changes"] == 0.0 and ci["mean_lead_changes"] == [0.0, 0.0]
    for name in ("caller_success", "penalty_rate"):
        assert 0 <= ci[name][0] <= ci[name][1] <= 1
    assert_within_ranges(out)


def test_fan_and_mallet_one_game_per_game_is_a_point():
    out = play_json("fan-and-mallet", "-s", "counter", "-s", "closer", "--rule", "start_positions=0,3",
                    "--games", "2000")
    assert out["metrics"]["mean_games"] == 1.0 and out["ci95"]["mean_games"] == [1.0, 1.0]
    assert_within_ranges(out)


def test_shares_of_senshi_keep_wilson_intervals():
    out = play_json("senshi", "--players", "3", "--games", "300")
    assert_within_ranges(out)
    # the 0/1 columns are shares: a Wilson interval, never a point, even when no game has the event
    for name in ("nobody_eliminated", "tallest_eliminated_rate"):
        lo, hi = out["ci95"][name]
        assert lo < hi


def fan_and_mallet_result(edit):
    """A Fan & Mallet RunResult over 30 real games whose outcome columns ``edit`` has changed."""
    eng = get_game("fan-and-mallet")
    rules = eng.make_rules({})
    agents = lineup("fan-and-mallet", ["counter", "closer"], 2)
    from simcore.rng import root_key

    out = eng.play(np.arange(30, dtype=np.int64), 2, rules, agents, root_key(0))
    edit(out)
    totals = Totals.of(out, ratio_pairs(eng))
    return RunResult(eng, 2, rules, agents, 0, totals, 0.0, 1)


def test_scores_near_the_maximum_stay_at_most_7_markers():
    def edit(out):
        out["score"][:, 0] = 7.0  # seat 0 wins every game but one by 7 markers
        out["score"][0, 0] = 6.0
        for a in ("umbrella", "hatchet"):  # one kid ghost in 30 games decides its possession
            out[f"kids_{a}"][:] = 1
            out[f"swing_{a}"][:] = 0
            out[f"swing_{a}"][0] = 1

    res = fan_and_mallet_result(edit)
    s = res.summary()
    lo, hi = s["mean_score_ci95"][0]
    assert s["mean_score"][0] < 7 and hi == 7.0 and lo < s["mean_score"][0]
    seats = res.seats()  # the Python API's table gives the same interval
    assert seats["score_lo"][0] == lo and seats["score_hi"][0] == 7.0
    for a in ("umbrella", "hatchet"):
        lo, hi = s["ci95"][f"swing_share_{a}"]
        assert lo == 0.0 and hi > 1 / 30
    assert_within_ranges(s)


def test_clipping_keeps_missing_intervals_missing():
    from simcore.runner import _clip

    lo, hi = _clip(np.array([-0.1, math.nan, 0.2]), np.array([1.2, math.nan, 0.4]), (0.0, 1.0))
    assert lo[0] == 0.0 and hi[0] == 1.0 and math.isnan(lo[1]) and math.isnan(hi[1])
    assert (lo[2], hi[2]) == (0.2, 0.4)


@pytest.mark.parametrize("args", [["sen", "-p", "2", "--rule", "rounds=1"], ["senshi", "-p", "4"], ["sensu"],
                                  ["sensu", "-p", "1"], ["fan-and-mallet", "--rule", "match_points=3"],
                                  ["fan-and-mallet", "-s", "strongest"]])
def test_few_games_give_intervals_within_every_figures_range(args):
    assert_within_ranges(play_json(*args, "--games", "20", "--seed", "5"))


def test_a_share_column_of_fractions_takes_the_t_interval_not_wilsons():
    """Wilson's interval is for 0/1 columns; a column within [0, 1] that holds fractions (a shared win, say)
    takes the t interval of its values."""
    def edit(out):
        out["win"][:, 0] = 0.5
        out["win"][:10, 0] = 1.0

    res = fan_and_mallet_result(edit)
    mean, lo, hi = res.column_mean("win")
    x = np.r_[np.full(10, 1.0), np.full(20, 0.5)]
    half = stats.t.ppf(0.975, 29) * x.std(ddof=1) / np.sqrt(30)
    assert mean[0] == pytest.approx(x.mean()) and (lo[0], hi[0]) == pytest.approx((x.mean() - half, x.mean() + half))
    w = wilson(x.sum(), 30)
    assert abs(lo[0] - float(w[0])) > 1e-3   # not Wilson's
