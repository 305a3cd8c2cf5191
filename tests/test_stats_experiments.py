"""Statistics added for experiments: intervals from per-game values, paired differences, SPRT, ratings."""
import math

import numpy as np
import pytest
from scipy import stats as st

from simcore.stats import (ELO_PER_LOGIT, bradley_terry, paired_diff, sprt_bounds, sprt_decide, sprt_llr,
                           values_ci)


def test_values_ci_matches_t_interval():
    x = np.array([1.0, 2.0, 4.0, 7.0, 11.0])
    mean, lo, hi = values_ci(x)
    se = x.std(ddof=1) / math.sqrt(len(x))
    t = st.t.ppf(0.975, len(x) - 1)
    assert mean == pytest.approx(5.0)
    assert lo == pytest.approx(5.0 - t * se) and hi == pytest.approx(5.0 + t * se)
    assert values_ci([3.0, 3.0, 3.0]) == (3.0, 3.0, 3.0)
    assert math.isnan(values_ci([1.0])[1])


def test_paired_difference_removes_shared_noise():
    rng = np.random.default_rng(1)
    luck = rng.normal(0, 5, 2000)            # what both cells share (the deal)
    a = luck + 0.3 + rng.normal(0, 0.2, 2000)
    b = luck + rng.normal(0, 0.2, 2000)
    d = paired_diff(a, b)
    assert d["lo"] < 0.3 < d["hi"]
    assert d["hi"] - d["lo"] < 0.05          # an unpaired interval would be about 0.6 wide
    assert d["rho"] > 0.99 and d["p_value"] < 1e-10 and d["n"] == 2000
    same = paired_diff(b, b)
    assert same["diff"] == 0 and same["p_value"] == 1.0
    with pytest.raises(ValueError):
        paired_diff([1, 2], [1, 2, 3])


def test_sprt_bounds_and_decisions():
    lo, hi = sprt_bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.95)) and hi == pytest.approx(math.log(0.95 / 0.05))
    rng = np.random.default_rng(2)
    better = (rng.random(4000) < 0.56).astype(float) - 0.5   # true advantage 0.06
    equal = (rng.random(4000) < 0.50).astype(float) - 0.5    # no advantage
    llr_b = sprt_llr(better.sum(), (better ** 2).sum(), len(better), 0.0, 0.03)
    llr_e = sprt_llr(equal.sum(), (equal ** 2).sum(), len(equal), 0.0, 0.03)
    assert sprt_decide(llr_b) == "H1" and sprt_decide(llr_e) == "H0"
    assert sprt_decide(0.0) == "continue"
    with pytest.raises(ValueError):
        sprt_bounds(0.0, 0.1)


# synthetic counts fit the model exactly, which statsmodels reports as "perfect prediction"
@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.PerfectSeparationWarning")
def test_bradley_terry_recovers_strengths_two_players():
    # true strengths in logits: a 0, b +0.5, c -0.4; many games per pair
    t = {"a": 0.0, "b": 0.5, "c": -0.4}
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    n = 20000
    wa = [n / (1 + math.exp(t[y] - t[x])) for x, y in pairs]
    res = bradley_terry(["a", "b", "c"], [p[0] for p in pairs], [p[1] for p in pairs], wa, [n - w for w in wa],
                        prior=0.0)
    assert res["a"] == (0.0, 0.0, 0.0)
    for name in ("b", "c"):
        elo, lo, hi = res[name]
        assert elo == pytest.approx(t[name] * ELO_PER_LOGIT, abs=1e-6)
        assert lo < elo < hi


@pytest.mark.filterwarnings("ignore::statsmodels.tools.sm_exceptions.PerfectSeparationWarning")
def test_bradley_terry_multiplayer_offset():
    # one a against three b of equal strength wins a quarter of the games: equal ratings
    res = bradley_terry(["a", "b"], ["a", "b"], ["b", "a"], [2500, 2500], [7500, 7500], [3, 3], prior=0.0)
    elo, lo, hi = res["b"]
    assert elo == pytest.approx(0.0, abs=1e-6) and lo < 0 < hi


def test_bradley_terry_stays_finite_when_one_side_wins_everything():
    res = bradley_terry(["a", "b"], ["a"], ["b"], [0.0], [200.0])
    elo, lo, hi = res["b"]
    assert math.isfinite(elo) and 0 < lo < elo < hi < 2000


def test_cell_intervals_are_over_deals_where_the_games_of_a_deal_are_several():
    # a rotated focus plays each deal once per seat: its games are not independent, so the game length's
    # and seat 0's intervals are the t intervals of the per-deal means (the estimate itself stays exact)
    import polars as pl

    from experiments import load_config, run_experiment
    from experiments.engine import SMALL_VECTORS, needs_vectors
    from simcore.stats import values_ci
    raw = {"title": "t", "question": "q", "game": "sen", "players": 4, "games": 60, "seed": 5,
           "lineup": {"focus": "threshold:wake=8", "field": "threshold"},
           "report": {"answer": "summary", "per_game": True}}
    res = run_experiment(raw)
    row = res.cells.row(0, named=True)
    assert row["games"] == 4 * 60
    games = res.tables["games"].filter(pl.col("seat") == 0)
    per_deal = games.group_by("game").agg(pl.col("turns").mean(), pl.col("win").mean()).sort("game")
    for name, col in (("turns", "turns"), ("seat0_win", "win")):
        _, lo, hi = values_ci(per_deal[col].to_numpy())
        got = (row[f"{name}_hi"] - row[f"{name}_lo"]) / 2
        assert got == pytest.approx((hi - lo) / 2, rel=1e-4), name
    assert row["turns_lo"] < row["mean_turns"] < row["turns_hi"]
    # a summary of more deals than SMALL_VECTORS keeps flat memory: its intervals are over games
    assert needs_vectors(load_config(raw))
    assert not needs_vectors(load_config({**raw, "games": SMALL_VECTORS + 1, "report": {"answer": "summary"}}))
