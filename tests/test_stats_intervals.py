"""The intervals of simcore.stats computed without scipy.stats/statsmodels agree with those libraries."""
import numpy as np
from hypothesis import given, settings, strategies as st
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
    np.testing.assert_allclose(lo[1:], elo) and np.testing.assert_allclose(hi[1:], ehi)


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
