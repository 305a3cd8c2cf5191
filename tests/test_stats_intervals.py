"""The intervals of simcore.stats computed without scipy.stats/statsmodels agree with those libraries."""
import math

import numpy as np
from hypothesis import given, settings, strategies as st
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from simcore import stats as S


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 10 ** 9), st.floats(0, 1), st.sampled_from([0.05, 0.01, 0.1]))
def test_wilson_is_statsmodels_wilson(n, share, alpha):
    k = share * n                                    # fractional successes (shared wins) included
    lo, hi = S.wilson(k, n, alpha)
    elo, ehi = proportion_confint(k, float(n), alpha=alpha, method="wilson")   # as the counts reach it
    assert (float(lo), float(hi)) == (elo, ehi)          # the same bits: recorded answers do not move


def test_wilson_of_no_games_is_nan_and_arrays_work():
    lo, hi = S.wilson(np.array([0.0, 3.0, 5.0]), np.array([0, 10, 5]))
    assert np.isnan(lo[0]) and np.isnan(hi[0])
    elo, ehi = proportion_confint(np.array([3.0, 5.0]), np.array([10, 5]), method="wilson")
    np.testing.assert_allclose(lo[1:], elo)
    np.testing.assert_allclose(hi[1:], ehi)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 10 ** 7), st.sampled_from([0.05, 0.01]))
def test_t_quantile_is_scipy_stats(df, alpha):
    assert S._t_ppf(1 - alpha / 2, df) == stats.t.ppf(1 - alpha / 2, df)


def test_the_kept_normal_quantiles_are_scipys_bit_for_bit():
    from scipy import special

    from simcore import stats

    for p, q in stats._NDTRI.items():
        assert q == float(special.ndtri(p))
    assert stats._ndtri(0.05 / 2) == float(special.ndtri(0.025))
    assert stats._ndtri(0.2) == float(special.ndtri(0.2))  # not kept: scipy's


def test_the_t_quantile_table_is_scipys_bit_for_bit():
    from scipy import special

    from simcore import stats
    from simcore._t975 import T975

    assert len(T975) == 256
    for df in range(1, 257):
        assert T975[df - 1] == float(special.stdtrit(float(df), 0.975))
        assert stats._t_ppf(1 - 0.05 / 2, float(df)) == special.stdtrit(float(df), 0.975)
    assert stats._t_ppf(0.975, 300.0) == special.stdtrit(300.0, 0.975)  # beyond the table: scipy
    assert stats._t_ppf(0.995, 9.0) == special.stdtrit(9.0, 0.995)


def test_answers_give_lopsided_intervals_by_their_bounds():
    # a Wilson interval of 6 wins in 20 games reaches 21 points above 30% but 15 below: "± 18.7%"
    # would put its top at 48.7% and its bottom at 11.3%, so the bounds are shown instead
    from experiments.answers.common import lopsided, pm_metric, pm_text
    from simcore.stats import wilson

    lo, hi = (float(v) for v in wilson(6, 20))
    assert lopsided(0.3, lo, hi)
    assert pm_metric("win_share", 0.3, lo, hi) == f"30.0% [{lo * 100:.1f}%, {hi * 100:.1f}%]"
    assert pm_text("win_share", 0.3, lo, hi) == f"30.0% [{lo * 100:.1f}%, {hi * 100:.1f}%]"
    # the same share of 2,000 games: about even on both sides, so value ± half
    lo, hi = (float(v) for v in wilson(600, 2000))
    assert not lopsided(0.3, lo, hi)
    assert pm_metric("win_share", 0.3, lo, hi) == f"30.0% ± {(hi - lo) * 50:.1f}%"
    # a signed figure keeps its signs on both bounds; no interval, the value alone
    assert pm_metric("seat_advantage", -0.058, -0.172, 0.095, True) == "-5.8% [-17.2%, +9.5%]"
    assert pm_metric("win_share", 0.3, None, None) == "30.0%"
    assert pm_metric("win_share", float("nan"), 0.1, 0.2) == "n/a"
    assert not lopsided(0.5, 0.5, 0.5)  # an interval of no width is shown as ± 0


def test_a_figure_and_its_half_width_do_not_print_a_bound_on_the_share_they_are_judged_against():
    """Fan & Mallet's balance read "wins 51.7% ± 1.7% ..., clearly above" 50%: each rounding alone is fine, but a
    reader adds them up to [50.0%, 53.4%], while the interval is [50.06%, 53.38%]. Such a figure is given by its
    bounds; one whose printed value and half-width keep clear of the share, or straddle it as the interval
    does, keeps its ± form."""
    from experiments.answers.common import pm_metric
    assert pm_metric("win_share", 0.5172, 0.500576, 0.5338, refs=(0.5,)) == "51.7% [50.1%, 53.4%]"
    assert pm_metric("win_share", 0.5172, 0.500576, 0.5338) == "51.7% ± 1.7%"  # (nothing judged against)
    assert pm_metric("win_share", 0.4828, 0.4662, 0.499424, refs=(0.5,)) == "48.3% [46.6%, 49.9%]"
    assert pm_metric("win_share", 0.53, 0.51, 0.55, refs=(0.5,)) == "53.0% ± 2.0%"
    assert pm_metric("win_share", 0.505, 0.489, 0.521, refs=(0.5,)) == "50.5% ± 1.6%"


def test_intervals_of_shares_and_their_differences_are_shown_within_their_range():
    # a paired t interval over few deals may reach past +-100% (a difference of two shares) or past 0% and
    # 100% (a share): the sentences show it clipped to that range, the estimate itself unchanged
    from experiments.answers.common import ci_cell, clip_interval, dci_text, direction, pm_metric, pm_text

    d = {"diff": 0.625, "lo": -0.137, "hi": 1.387, "n": 8}
    assert dci_text(d) == "+62.5% [-13.7%, +100.0%]"
    assert dci_text({"diff": -0.714, "lo": -1.324, "hi": -0.105}) == "-71.4% [-100.0%, -10.5%]"
    assert dci_text({"diff": 0.054, "lo": -1.055, "hi": 1.163}) == "+5.4% [-100.0%, +100.0%]"
    assert dci_text({"diff": 0.1, "lo": 0.05, "hi": 0.15}) == "+10.0% [+5.0%, +15.0%]"  # inside: as before
    assert dci_text({"diff": 0.1, "lo": None, "hi": None}) == "+10.0%"
    assert direction(d) == 0  # the verdict is the unclipped interval's
    # a share's t interval: [0%, 100%]; shown by its bounds, since clipping makes it lopsided
    assert pm_metric("win_share", 0.9, 0.71, 1.09) == "90.0% [71.0%, 100.0%]"
    assert pm_text("win_share", 0.05, -0.03, 0.13) == "5.0% [0.0%, 13.0%]"
    assert pm_metric("seat_advantage", 0.45, 0.2, 0.7, True, bounds=(-0.5, 0.5)) == "+45.0% [+20.0%, +50.0%]"
    assert pm_text("mean_score", 5.0, -1.0, 11.0) == "5.00 ± 6.00"  # a score has no bound
    # a figure alike in every game (a metric that is always 0) prints alone, not as 0.0000 ± 0.0000
    assert pm_text("ties", 0.0, 0.0, 0.0) == "0.00" and pm_text("win_share", 1.0, 1.0, 1.0) == "100.0%"
    assert pm_text("ties", 0.0, -0.00001, 0.00001) == "0.0000 ± 0.0000"
    assert ci_cell(0.9, 0.71, 1.09, unit=False, bounds=(0.0, 1.0)) == "90.0 [71.0, 100.0]"
    assert clip_interval(-1.2, float("nan"), (-1.0, 1.0))[0] == -1.0
    assert clip_interval(None, 2.0, (-1.0, 1.0)) == (None, 1.0)
    assert clip_interval(-3.0, 3.0, None) == (-3.0, 3.0)
    from experiments.answers.common import metric_range
    assert metric_range("seat0_win_share") == (0.0, 1.0) and metric_range("win_share", diff=True) == (-1.0, 1.0)
    assert metric_range("seat_advantage", diff=True) == (-1.0, 1.0) and metric_range("mean_turns") is None


def test_paired_figure_bars_stay_within_the_range_of_a_difference_of_shares():
    import polars as pl

    from reports.plots import share_diff_bounds

    paired = pl.DataFrame({"lo": [-1.2, 0.1, None], "hi": [0.5, 1.4, None]})
    lo, hi = share_diff_bounds(paired, 100)
    assert lo[:2].tolist() == [-100.0, 10.0] and hi[:2].tolist() == [50.0, 100.0]
    assert np.isnan(lo[2]) and np.isnan(hi[2])
    lo, hi = share_diff_bounds(paired, 1)  # not a share (turns): as computed
    assert lo[0] == -1.2 and hi[1] == 1.4


def test_a_table_of_paired_differences_clips_them_to_the_range_of_a_difference():
    import polars as pl

    from experiments.answers.common import metric_range, wide_table

    est = pl.DataFrame({"case": ["a", "b"], "group": ["2p", "2p"], "figure": ["win_share", "win_share"],
                        "value": [-0.2, 0.5], "lo": [-0.5, -0.1], "hi": [0.1, 1.3]})
    diffs = wide_table(est, ["win_share"], {"win_share": "change"}, {}, "focus", signed=True,
                       bounds=lambda n: metric_range(n, diff=True))
    assert diffs["change %"].to_list() == ["-20.0 [-50.0, +10.0]", "+50.0 [-10.0, +100.0]"]
    # a table of shares (the default): [0%, 100%]
    est = est.with_columns(pl.Series("value", [0.2, 0.9]), pl.Series("lo", [0.1, 0.7]), pl.Series("hi", [0.3, 1.1]))
    shares = wide_table(est, ["win_share"], {"win_share": "wins"}, {}, "focus")
    assert shares["wins %"].to_list() == ["20.0 [10.0, 30.0]", "90.0 [70.0, 100.0]"]


def test_tables_round_figures_as_the_sentences_do():
    """A share of 0.2015 (x 100 is 20.150000000000002 in binary) read 20.1% in a sentence and 20.2 in the
    report's table; both now round it alike, and a bound just below 0 still reads -0.0 in both."""
    from experiments.answers.common import ci_cell, fmt_metric, span

    assert fmt_metric("win_share", 0.2015) == "20.1%" and ci_cell(0.2015, 0.187, 0.216).startswith("20.1%")
    assert fmt_metric("win_share", 0.5925) == "59.2%" and ci_cell(0.5925, 0.5, 0.6).startswith("59.2%")
    assert ci_cell(0.0, -0.0004, 0.001, signed=True) == "+0.0% [-0.0, +0.1]"
    assert span("win_share", -0.0004, 0.001, True) == "[-0.0%, +0.1%]"
    # a numpy float rounds as a Python float (senshi_seats: 1,526 wins of 4,000 read 38.2% in a sentence, whose
    # figure was a numpy float, and 38.1% in the table)
    assert fmt_metric("win_share", np.float64(1526) / 4000.0) == fmt_metric("win_share", 0.3815) == "38.1%"
    assert ci_cell(np.float64(0.3815), np.float64(0.366), np.float64(0.397)).startswith("38.1%")


def test_a_share_over_deals_is_wilsons_interval_with_the_deals_effective_games():
    # 1 play in 16 over 8 deals: a symmetric t interval clipped at 0 would read [0, 21.0%], as if the
    # event might never happen; Wilson's with the effective games stays above 0 and is asymmetric
    v = np.array([0.0] * 7 + [0.5])
    lo, hi = S.deal_share_interval(1 / 16, v)
    assert 0.0 < lo < 1 / 16 < hi and (round(lo, 4), round(hi, 4)) == (0.008, 0.3546)
    assert S.deal_interval(1 / 16, v, 0.0, 1.0)[0] == 0.0
    # the same numbers as statsmodels' Wilson interval of x n' successes in n' = n_eff (z / t)² games
    rng = np.random.default_rng(7)
    for deals, plays, p in ((40, 3, 0.1), (500, 4, 0.3), (12, 5, 0.8)):
        v = (rng.random((deals, plays)) < p).mean(1)
        x = float(v.mean())
        se = v.std(ddof=1) / np.sqrt(deals)
        n_eff = x * (1 - x) / se ** 2 * (stats.norm.ppf(0.975) / stats.t.ppf(0.975, deals - 1)) ** 2
        expect = proportion_confint(x * n_eff, n_eff, method="wilson")
        assert np.allclose(S.deal_share_interval(x, v), expect, rtol=0, atol=1e-12)
    # deals that spread as independent games would: about Wilson's over the games
    g = rng.random((2000, 4)) < 0.3
    lo, hi = S.deal_share_interval(float(g.mean()), g.mean(1))
    wlo, whi = S.wilson(g.sum(), g.size)
    assert abs(lo - wlo) < 0.003 and abs(hi - whi) < 0.003
    # no interval from one deal
    assert S.deal_share_interval(0.5, np.array([0.5])) == (None, None)


def test_a_share_alike_on_every_deal_takes_wilsons_interval_over_the_deals():
    # every deal alike (a strategy that won none of 40 deals): the spread over deals says nothing of the
    # chance of the other outcome. It read 0.0% ± 0.0% in effect, balance and the searches' tables; then
    # Wilson's over the games, which counts a deal's rotations as independent where the deal may decide
    # them all: over the deals, the wider
    zero = np.zeros(40)
    lo, hi = S.deal_share_interval(0.0, zero)
    assert (lo, hi) == tuple(float(b) for b in S.wilson(0.0, 40)) and hi > S.wilson(0.0, 80)[1] > 0.0
    assert S.deal_share_interval(0.25, np.full(5, 0.25)) == tuple(float(b) for b in S.wilson(1.25, 5))
    assert S.deal_share_interval(1.0, np.ones(6))[0] < 1.0
    m, lo, hi = S.deal_values_ci(zero, True)
    assert m == 0.0 and lo == 0.0 and hi == float(S.wilson(0.0, 40)[1])
    # alike up to rounding (1/3 on every deal: a std of 1e-17 made an interval of width 0)
    assert S.deal_share_interval(1 / 3, np.full(10, 1 / 3)) == tuple(float(b) for b in S.wilson(10 / 3, 10))
    assert S.deal_share_interval(1.0, np.ones(7))[1] == 1.0     # (Wilson's rounding gave 0.9999999999999999)
    assert S.mean_interval(zero, share=True)[2] == float(S.wilson(0.0, 40)[1])


def test_the_coverage_of_a_rare_event_decided_by_its_deal():
    """Outcome set by the deal (4 rotations each the same): the interval over the deals holds a chance of
    2% in about 95% of samples, where Wilson's over the games held it in about 60%."""
    rng = np.random.default_rng(5)
    p, deals, rot, held, held_games = 0.02, 50, 4, 0, 0
    for _ in range(1000):
        per = (rng.random(deals) < p).astype(float)        # each deal's 4 games alike
        lo, hi = S.deal_share_interval(float(per.mean()), per)
        held += lo <= p <= hi
        glo, ghi = S.wilson(per.sum() * rot, deals * rot)
        held_games += glo <= p <= ghi
    assert held >= 900 and held_games <= 800, (held, held_games)


def test_a_share_ratio_alike_on_every_deal_has_no_width_of_0():
    # no event on any deal: the delta method's residuals are all 0 and it read [0, 0]
    x, y = np.zeros(30), np.full(30, 4.0)
    r, lo, hi = S.ratio_ci(x, y, share=True)
    assert r == 0.0 and lo == 0.0 and hi == float(S.wilson(0.0, 30)[1])
    assert S.ratio_ci(x, y) == (0.0, 0.0, 0.0)                      # not a share: as it was
    r, lo, hi = S.ratio_ci(y, y, share=True)
    assert r == 1.0 and hi == 1.0 and lo == float(S.wilson(30.0, 30)[0])
    r, lo, hi = S.ratio_ci(np.array([1.0, 0.0, 2.0, 1.0]), np.array([4.0, 4.0, 4.0, 4.0]), share=True)
    assert 0.0 <= lo < r < hi <= 1.0


def test_a_paired_difference_alike_on_every_deal_takes_the_sign_test():
    # two deals each +0.5 read "clearly different, p = 0" with an interval of width 0
    d = S.paired_diff([1.0, 1.0], [0.5, 0.5])
    assert d["p_value"] == 0.5 and (d["lo"], d["hi"]) == (0.0, 0.5)
    d = S.paired_diff([0.0] * 6, [0.5] * 6)
    assert d["p_value"] == 2 * 0.5 ** 6 and d["lo"] == d["hi"] == -0.5
    assert S.paired_diff([0.3] * 4, [0.3] * 4)["p_value"] == 1.0
    assert math.isnan(S.paired_diff([np.nan, 1.0], [0.0, 0.0])["p_value"])


def test_a_paired_difference_on_few_differing_deals_keeps_its_coverage():
    # two settings that change the outcome of about 3 deals in 300, all the same way: the plain t interval
    # covered the true difference in about 80% of such runs (the spread of three deals is too little to
    # go on); with paired_spread's pseudo-deals about 95%
    rng = np.random.default_rng(3)
    true, n, runs = 0.01, 300, 2000
    covered = plain = 0
    for _ in range(runs):
        d = np.where(rng.random(n) < true, 1.0, 0.0)
        if not d.any():   # no deal differs: "the same on every deal", no interval to cover with
            continue
        r = S.paired_diff(d, np.zeros(n))
        covered += r["lo"] <= true <= r["hi"]
        _, lo, hi = S.values_ci(d)
        plain += lo <= true <= hi
    assert covered / runs > 0.93
    assert plain / runs < 0.85            # what it was: the case is one that needs the pseudo-deals


def test_a_paired_difference_agrees_with_its_test_and_barely_moves_where_many_deals_differ():
    rng = np.random.default_rng(4)
    a, b = rng.random(400), rng.random(400)
    r = S.paired_diff(a, b)
    _, lo, hi = S.values_ci(a - b)
    assert r["hi"] - r["lo"] == pytest.approx(hi - lo, rel=0.01)      # within 1% of the plain t interval
    assert r["diff"] == pytest.approx((lo + hi) / 2, abs=1e-12)
    assert r["p_value"] == pytest.approx(stats.ttest_rel(a, b).pvalue, abs=0.01)
    # the interval reaches 0 exactly when the test is not clear at its level
    for k in range(1, 12):
        d = np.zeros(200)
        d[:k] = -1.0
        r = S.paired_diff(d, np.zeros(200))
        assert (r["hi"] < 0) == (r["p_value"] < 0.05), k


def test_the_race_keeps_a_setting_that_lost_only_a_handful_of_deals():
    # four deals lost of 400, none won: the sign test on the deals that differ says 1/16, not clearly worse
    # at 2.5%; the plain t test (t = 2.0) dropped it
    from simcore.racing import _clearly_worse
    x, leader = np.zeros(400), np.zeros(400)
    x[:4] = -1.0
    assert not _clearly_worse(x, leader, 0.025)
    x[:12] = -1.0
    assert _clearly_worse(x, leader, 0.025)


def test_a_seat_alike_on_every_deal_takes_wilsons_interval_over_the_deals():
    # turn_order: a seat never eliminated over rotated deals has no spread over deals to make an interval of;
    # Wilson's over the deals (a zero-width interval would claim certainty; over the games, too narrow)
    import polars as pl

    from experiments.answers.turn_order import _seat_ci
    per = pl.DataFrame({"seat": [0] * 8 + [1] * 8, "event": [0.0] * 8 + [0.0] * 7 + [0.5]})
    x, lo, hi = _seat_ci(per, "event", 0, 0.0, 16.0, True)
    assert x == 0.0 and (lo, hi) == tuple(float(b) for b in S.wilson(0.0, 8))
    x, lo, hi = _seat_ci(per, "event", 1, 1.0, 16.0, True)
    assert x == 1 / 16 and (lo, hi) == S.deal_share_interval(1 / 16, per.filter(pl.col("seat") == 1)["event"].to_numpy())


def test_a_calibration_bound_never_rounds_onto_the_band_edge_it_is_judged_against():
    # an upper end of 0.951% read "1.0%" in a sentence that judged it below a band from 1% to 10%
    from experiments.answers.calibration import _bound

    assert _bound(0.00951, (0.01, 0.10)) == "0.95"
    assert _bound(0.0100, (0.01, 0.10)) == "1.0" and _bound(0.0123, (0.01, 0.10)) == "1.2"
    assert _bound(0.09996, (0.01, 0.10)) == "9.996"
    assert _bound(0.0999, (0.01, 0.10)) == "9.99"


def test_small_helpers_against_their_definitions():
    """mean_ci's sample variance (n - 1), hist_median's lower middle, inside_band's half-open band and
    Holm's correction (not Benjamini-Hochberg's), each against a case worked by hand."""
    x = np.array([1.0, 2.0, 4.0, 9.0])
    mean, half = S.mean_ci(x.sum(), (x ** 2).sum(), x.size)
    assert mean == 4.0 and half == pytest.approx(stats.t.ppf(0.975, 3) * x.std(ddof=1) / 2.0)
    assert S.hist_median({1.0: 1, 2.0: 1, 3.0: 1, 4.0: 1}) == 2.0      # even count: the lower middle
    assert S.hist_median({1.0: 2, 5.0: 1}) == 1.0 and S.hist_median({1.0: 1, 5.0: 2}) == 5.0
    assert S.inside_band(0.02, 0.0999, (0.01, 0.10), 0.05) == "in"
    assert S.inside_band(0.02, 0.10, (0.01, 0.10), 0.05) == "borderline"   # the band's top is outside it
    assert S.inside_band(0.10, 0.12, (0.01, 0.10), 0.11) == "out"
    # Holm rejects 0.01 and 0.02 of (0.01, 0.02, 0.03, 0.04) at 5% only while each is below 0.05 / (4 - i):
    # 0.01 < 0.0125, 0.02 > 0.0167 -> one; Benjamini-Hochberg would reject all four
    assert S.holm([0.01, 0.02, 0.03, 0.04]) == [True, False, False, False]
