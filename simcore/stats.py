"""Interval estimates used in every summary (Wilson for shares, t for means).

Quantiles come from scipy (``scipy.special``: the t and normal quantiles, imported on first use; the
normal quantile of a 95% or 99% interval is kept as a constant, the same bits); tests, GLMs and corrections from statsmodels and ``scipy.stats``, imported where they are used
(``scipy.stats`` and statsmodels take about a second to import, more than a short ``play`` takes). The
Wilson interval is checked against statsmodels' ``proportion_confint`` in the tests.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

#: the normal quantiles of the usual levels, bit for bit scipy's ``special.ndtri`` (tested): a short
#: ``sensei play`` then does not import ``scipy.special`` (a quarter of a second of its start-up)
_NDTRI = {0.025: float.fromhex("-0x1.f5c0331eeff86p+0"), 0.005: float.fromhex("-0x1.49b4c64d69161p+1")}


def _special():
    from scipy import special

    return special


def _ndtri(p: float) -> float:
    """The standard normal quantile ``p`` (``scipy.special.ndtri``)."""
    found = _NDTRI.get(p)
    return found if found is not None else float(_special().ndtri(p))


def _t_ppf(q, df):
    """Quantile ``q`` of Student's t with ``df`` degrees of freedom (``scipy.stats.t.ppf``; the 97.5%
    quantile of up to 256 degrees of freedom from a table of scipy's values)."""
    if q == 0.975 and np.ndim(df) == 0 and float(df).is_integer() and 1 <= df <= 256:
        from ._t975 import T975

        return np.float64(T975[int(df) - 1])
    return _special().stdtrit(df, q)


def wilson(successes, n, alpha: float = 0.05):
    """Wilson score interval for a share; ``successes`` may be fractional (shared wins). Arrays ok.
    The same as statsmodels' ``proportion_confint(method="wilson")`` (tested)."""
    s = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    m = np.maximum(n, 1)
    # statsmodels' proportion_confint(method="wilson"), operation for operation (the same bits)
    q = s / m
    crit = -_ndtri(alpha / 2)
    crit2 = crit ** 2
    denom = 1 + crit2 / m
    centre = (q + crit2 / (2 * m)) / denom
    # m * m: numpy squares an array so (statsmodels' n ** 2), where its scalar power may round the other way
    dist = crit * np.sqrt(np.maximum(q * (1.0 - q) / m + crit2 / (4.0 * (m * m)), 0.0))
    dist /= denom
    lo = np.where(n > 0, np.clip(centre - dist, 0, 1), np.nan)
    hi = np.where(n > 0, np.clip(centre + dist, 0, 1), np.nan)
    return lo, hi


def wilson_bounds(successes: float, n: float, alpha: float = 0.05) -> tuple[float, float]:
    """:func:`wilson` of one share, its bound at a share of 0 or 1 the share itself (Wilson's rounding gives
    1.08e-19 and 0.9999999999999999 there); NaN for no games."""
    lo, hi = wilson(successes, n, alpha)
    if not n > 0:
        return float(lo), float(hi)
    return (0.0 if successes <= 0 else float(lo)), (1.0 if successes >= n else float(hi))


def mean_ci(total, total_sq, n, alpha: float = 0.05):
    """Mean and t interval half-width from a sum, a sum of squares and a count."""
    total = np.asarray(total, dtype=float)
    n = float(n)
    if n < 2:
        mean = total / max(n, 1.0)
        return mean, np.full_like(mean, np.nan)
    mean = total / n
    var = np.maximum(np.asarray(total_sq, dtype=float) / n - mean ** 2, 0.0) * n / (n - 1)
    half = _t_ppf(1 - alpha / 2, n - 1) * np.sqrt(var / n)
    return mean, half


def ratio_sums_ci(num, num_sq, den, den_sq, cross, n, alpha: float = 0.05):
    """Ratio of sums ``R = sum(num) / sum(den)`` and the half-width of its t interval, from sums, sums of
    squares and the sum of products over ``n`` games: the delta method (the t interval of the per-game
    linearisation ``(num - R den) / mean(den)``). Arrays work elementwise; NaN where undefined."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    n = float(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = num / den
        resid = np.asarray(num_sq, dtype=float) - 2 * r * np.asarray(cross, dtype=float) + r * r * np.asarray(
            den_sq, dtype=float)
        var = np.maximum(resid, 0.0) / (n - 1) if n >= 2 else np.nan
        half = _t_ppf(1 - alpha / 2, max(n - 1, 1)) * np.sqrt(var / n) / (den / n)
    bad = ~(np.asarray(den) > 0)
    return np.where(bad, np.nan, r), np.where(bad | (n < 2), np.nan, half)


def round_sig(x: float, digits: int = 6) -> float:
    if x is None or not math.isfinite(x):
        return x
    return float(f"{x:.{digits}g}")


# ---------------------------------------------------------------------------------------------
# Experiments: intervals from per-game values, paired differences, sequential tests, ratings.
# ---------------------------------------------------------------------------------------------

def values_ci(values, alpha: float = 0.05):
    """Mean of per-game values and its t interval ``(mean, lo, hi)`` (scipy's t distribution)."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if n < 2:
        return mean, math.nan, math.nan
    se = float(x.std(ddof=1)) / math.sqrt(n)
    if se == 0.0:
        return mean, mean, mean
    from scipy import stats as _st
    lo, hi = _st.t.interval(1 - alpha, n - 1, loc=mean, scale=se)
    return mean, float(lo), float(hi)


def deal_interval(x: float, values, lo_bound: float | None = None,
                  hi_bound: float | None = None) -> tuple[float | None, float | None]:
    """An interval over deals around the estimate ``x`` (from exact sums): the t half-width of the per-deal
    ``values`` (each deal's games averaged first), clipped to ``[lo_bound, hi_bound]``; (None, None) where
    the values give none."""
    _, lo, hi = values_ci(values)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None, None
    half = (hi - lo) / 2.0
    a, b = x - half, x + half
    if lo_bound is not None:
        a, b = max(a, lo_bound), max(b, lo_bound)
    if hi_bound is not None:
        a, b = min(a, hi_bound), min(b, hi_bound)
    return a, b


def deal_share_interval(x: float, values, alpha: float = 0.05) -> tuple[float | None, float | None]:
    """A share's interval over deals: Wilson's interval for the share ``x`` (from exact sums) with the
    effective number of games ``x (1 - x) / se²``, ``se`` the standard error of the per-deal shares
    ``values`` (each deal's games averaged first), and the t quantile of the deals in place of the normal
    one (Korn and Graubard's design-effect adjustment). It stays within [0, 1] and is asymmetric near
    either end, where a symmetric t interval clipped at 0 would claim a rare event could be absent;
    (None, None) where the values give none.

    Where every deal is alike (a strategy that won no game, say) or the share is 0 or 1, the spread over
    deals says nothing of the chance of the other outcome: Wilson's interval over the deals. Each holds one
    game at least, so it is wider than the one over the games, which would count a deal's rotations as
    independent where the deal may decide them all (measured: with 4 rotations a deal and the outcome set
    by the deal, a rare event's interval over the games covered its chance in 55-62% of samples, over the
    deals in 92-98%)."""
    v = np.asarray(values, dtype=np.float64)
    d = v.size
    if d < 2 or not math.isfinite(x):
        return None, None
    se = float(v.std(ddof=1)) / math.sqrt(d)
    if not math.isfinite(se):
        return None, None
    var = x * (1.0 - x)
    # alike on every deal: a spread of 0, or of rounding alone (1/3 on every deal gave a std of 1e-17 and an
    # effective 1e33 games, an interval of width 0)
    if np.ptp(v) <= 1e-12 or var <= 0.0:
        n = float(d)
        return wilson_bounds(min(max(x, 0.0), 1.0) * n, n, alpha)
    n = var / (se * se)
    crit = float(_t_ppf(1 - alpha / 2, d - 1))
    c2n = crit * crit / n
    centre = (x + c2n / 2.0) / (1.0 + c2n)
    half = crit / (1.0 + c2n) * math.sqrt(var / n + c2n / (4.0 * n))
    return max(centre - half, 0.0), min(centre + half, 1.0)


def deal_values_ci(values, share: bool = False, alpha: float = 0.05):
    """Mean of per-deal values and its interval ``(mean, lo, hi)`` as :func:`values_ci` gives it (NaN where
    there is none): the t interval, or for a share of games (``share``, values in [0, 1])
    :func:`deal_share_interval`."""
    if not share:
        return values_ci(values, alpha)
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    lo, hi = deal_share_interval(mean, x, alpha)
    return mean, (math.nan if lo is None else lo), (math.nan if hi is None else hi)


def paired_spread(d) -> tuple[float, int]:
    """The standard error and degrees of freedom of the mean of paired differences ``d`` (at least two,
    not all equal) for their t interval and test, with three pseudo-deals added (Agresti and Min, 2005,
    for matched pairs): one half each of the largest difference seen (in absolute value) either way, and
    one of 0. Where few deals differ (two settings that change the outcome of a handful of deals out of
    hundreds), the plain t interval has too little spread to work from: with 3 deals expected to differ,
    all the same way, its 95% interval covered the true difference in about 80% of simulated runs, and
    with 8 in about 90%; with the pseudo-deals 94-95% and 95-96%. Where many deals differ they change
    the interval's width by a fraction of a per cent (-0.2% to +0.3% at 400 deals in simulated values)."""
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    m = float(np.abs(d).max())
    big_n = n + 2
    centre = float(d.sum()) / big_n
    ss = float(((d - centre) ** 2).sum()) + 0.5 * (m - centre) ** 2 + 0.5 * (m + centre) ** 2 + centre ** 2
    return math.sqrt(ss / (big_n - 1) / big_n), big_n - 1


def paired_diff(a, b, alpha: float = 0.05) -> dict:
    """Paired difference ``a - b`` of per-game values measured on the same games (common random numbers).

    Returns the mean difference, its t interval and the p-value of the paired t test, their spread taken
    by :func:`paired_spread` (which keeps them right where few deals differ), and the correlation of the
    pairs (how much the pairing removed luck: the variance shrinks by ``2 rho sd_a sd_b``).

    Where every pair differs by the same nonzero amount ``d`` the t test has no spread to work from (it
    said p = 0 and an interval of width 0 on two deals): the sign test's p, ``2 / 2^n``, and while that is
    not below ``alpha`` (fewer than 6 deals at 5%) the interval from 0 to ``d``, so that it reads as not
    clear, as its p says. Where every pair is equal the interval is 0 to 0 and p = 1.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired values need equal shapes, got {a.shape} and {b.shape}")
    n = a.size
    d = a - b
    mean = float(d.mean()) if n else math.nan
    lo = hi = p = rho = math.nan
    if n >= 2:
        if not np.isfinite(d).all():
            mean, lo, hi = values_ci(d, alpha)
        elif np.ptp(d) > 0:
            from scipy import stats as _st
            se, df = paired_spread(d)
            q = float(_st.t.ppf(1 - alpha / 2, df))
            lo, hi = mean - q * se, mean + q * se
            p = float(2.0 * _st.t.sf(abs(mean) / se, df))
        else:
            lo = hi = mean
            if d[0] == 0:
                p = 1.0
            else:  # every pair on one side by the same amount: the sign test
                p = min(1.0, 2.0 * 0.5 ** n)
                if p >= alpha:
                    lo, hi = min(0.0, float(d[0])), max(0.0, float(d[0]))
        if np.ptp(a) > 0 and np.ptp(b) > 0:
            rho = float(np.corrcoef(a, b)[0, 1])
    return {"diff": mean, "lo": lo, "hi": hi, "p_value": p, "n": int(n), "rho": rho}


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's log-likelihood-ratio bounds ``(lower, upper)``: accept H0 below, H1 above."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must lie in (0, 1)")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


#: values (deals) the sequential test needs before it may decide: its normal approximation with the sample
#: variance misleads on a handful of values (with a look every 2 deals from the start, H0 true, it accepted
#: H1 about a third of the time, where alpha was 5%)
SPRT_MIN_DEALS = 20


def sprt_llr(total: float, total_sq: float, n: int, mu0: float, mu1: float, var_floor: float = 0.0) -> float:
    """Log-likelihood ratio of H1 (mean mu1) against H0 (mean mu0) for n per-game values.

    The generalised SPRT used by chess-engine testing (fishtest): per-game values are bounded, so their
    mean is asymptotically normal with the sample variance; the LLR of two normal means with that
    variance is ``(mu1 - mu0) * (total - n (mu0 + mu1) / 2) / var``.
    Before :data:`SPRT_MIN_DEALS` values the LLR is 0: no evidence either way, so the test goes on. While
    the values are all equal (a variance of 0, which would make any difference look certain) the variance
    is ``var_floor``, the least a value may have under the hypotheses (the answer's: a deal's games
    independent at either hypothesis's win share), or, without one, the LLR is 0 (a focus that won every
    game of 50 deals read "undecided").
    """
    if n < SPRT_MIN_DEALS:
        return 0.0
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0)
    if var <= 0.0:
        if var_floor <= 0.0:
            return 0.0
        var = var_floor
    return float((mu1 - mu0) * (total - n * (mu0 + mu1) / 2.0) / var)


def sprt_decide(llr: float, alpha: float = 0.05, beta: float = 0.05) -> str:
    """``"H1"`` (accept the alternative), ``"H0"`` or ``"continue"``."""
    lo, hi = sprt_bounds(alpha, beta)
    if llr >= hi:
        return "H1"
    if llr <= lo:
        return "H0"
    return "continue"


ELO_PER_LOGIT = 400.0 / math.log(10.0)


def bradley_terry(names, a, b, wins_a, wins_b, opponents=None, alpha: float = 0.05, prior: float = 0.5,
                  deal_wins_a=None, deal_games=None):
    """Bradley-Terry (Luce) ratings with 95% intervals, fitted by a binomial GLM (statsmodels).

    Each match-up ``i`` puts strategy ``a[i]`` in one seat against ``opponents[i]`` copies of ``b[i]``
    (1 for two-player games) and records the win shares: ``wins_a[i]`` for the lone ``a`` and ``wins_b[i]``
    for the field. The model: ``P(a wins) = exp(t_a) / (exp(t_a) + k exp(t_b))`` with ``k`` = opponents,
    a logistic regression on ``t_a - t_b`` with offset ``-log k``. The first name is the reference
    (strength 0). ``prior`` wins are added to both sides of every match-up, so that a strategy that wins
    (or loses) every game still gets a finite rating. Returns a dict name -> (elo, elo_lo, elo_hi),
    Elo = 400 / ln 10 * t.

    Without per-deal counts the intervals are Wald intervals that count every game as independent. With
    ``deal_wins_a`` and ``deal_games`` ((match-ups, deals) arrays: ``a``'s wins and the games with a winner
    of each match-up on each deal, every match-up on the same deals), the estimates are the same and the
    covariance is clustered over deals (:func:`bt_cluster_cov`): the games of one deal, in every seat
    rotation and every match-up, count as one unit (a lopsided match-up, where a side won on fewer than
    :data:`MIN_DEALS_WON` deals, adds its model variance instead, each deal's games still one unit).
    """
    import statsmodels.api as sm

    names = list(names)
    index = {n: i for i, n in enumerate(names)}
    m = len(a)
    k = np.ones(m) if opponents is None else np.asarray(opponents, dtype=float)
    X = np.zeros((m, len(names)))
    for i, (x, y) in enumerate(zip(a, b)):
        X[i, index[x]] += 1.0
        X[i, index[y]] -= 1.0
    X = X[:, 1:]
    wa = np.asarray(wins_a, dtype=float) + prior
    wb = np.asarray(wins_b, dtype=float) + prior
    tot = wa + wb
    keep = tot > 0
    out = {names[0]: (0.0, 0.0, 0.0)}
    if len(names) == 1:
        return out
    model = sm.GLM(wa[keep] / tot[keep], X[keep], family=sm.families.Binomial(),
                   var_weights=tot[keep], offset=-np.log(k[keep]))
    from statsmodels.tools.sm_exceptions import PerfectSeparationWarning
    with warnings.catch_warnings():
        # with as many match-ups as ratings the residual degrees of freedom are 0, and statsmodels warns
        # while computing a dispersion that the binomial family does not use (its scale is 1); and where the
        # shares are fitted exactly (or nearly: a few deals) it warns of "perfect prediction", two lines of a
        # library's on stderr after the run, though the prior wins keep every rating finite
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", PerfectSeparationWarning)
        res = model.fit()
    params = np.asarray(res.params, dtype=float)
    if deal_wins_a is None:
        ci = np.asarray(res.conf_int(alpha))
        lo, hi = ci[:, 0], ci[:, 1]
    else:
        cov = bt_cluster_cov(X[keep], np.asarray(res.fittedvalues, dtype=float), tot[keep],
                             np.asarray(deal_wins_a, dtype=float)[keep], np.asarray(deal_games, dtype=float)[keep])
        half = -_ndtri(alpha / 2) * np.sqrt(np.maximum(np.diag(cov), 0.0))
        lo, hi = params - half, params + half
    for j, name in enumerate(names[1:]):
        out[name] = (float(params[j]) * ELO_PER_LOGIT, float(lo[j]) * ELO_PER_LOGIT, float(hi[j]) * ELO_PER_LOGIT)
    return out


#: deals on which each side of a match-up must have won something for the match-up's games to be clustered
#: over deals (:func:`bt_cluster_cov`): with fewer, its per-deal scores cannot show its variance
MIN_DEALS_WON = 10


def bt_cluster_cov(X, p, n, deal_wins, deal_games, min_deals: int = MIN_DEALS_WON) -> np.ndarray:
    """The cluster-robust (sandwich) covariance of a binomial GLM's coefficients, deals as clusters.

    ``X`` (match-ups, coefficients) is the design, ``p`` each match-up's fitted probability, ``n`` the
    trials the fit saw for each, ``deal_wins`` and ``deal_games`` (match-ups, deals) the wins and the
    trials of each match-up on each deal. Deal ``d``'s score is ``sum_i x_i (deal_wins[i, d] -
    deal_games[i, d] p_i)`` over every match-up (the binomial GLM's score with its logit link; an offset
    only moves ``p``); the bread is the inverse of the information ``sum_i n_i p_i (1 - p_i) x_i x_i'``.
    Pseudo-counts of a prior are in ``n`` (they belong to the fit) and in no deal's score. The meat sums
    the deals' outer products, times CRV1's small-sample factor G / (G - 1) for G deals (statsmodels'
    cluster covariance also multiplies by (N - 1) / (N - K) for N rows, about 1 for per-deal rows).

    A lopsided match-up, where either side won something on fewer than ``min_deals`` deals (a strategy
    that won no game at all, say), has residuals too uniform to show its variance (a sandwich would make
    its interval far too narrow): it adds its model variance to the meat instead of its deal scores, with
    each deal as one unit, as if every game of a deal went the same way: ``m_i n_i p_i (1 - p_i) x_i x_i'``
    for ``m_i`` games a deal (the most the games of a deal can add up to; as if they were independent, the
    Wald intervals' view, the weak side's rare wins, which come in the same deals, made the interval too
    narrow: 74-86% coverage at 300 deals in simulations where a deal's rotations share its luck, 88-93%
    with deals as units). Fewer than two deals give NaN.
    """
    X = np.asarray(X, dtype=float)
    p = np.asarray(p, dtype=float)
    n = np.asarray(n, dtype=float)
    deal_wins = np.asarray(deal_wins, dtype=float)
    deal_games = np.asarray(deal_games, dtype=float)
    G = deal_wins.shape[1]
    K = X.shape[1]
    if G < 2:
        return np.full((K, K), np.nan)
    info = n * p * (1.0 - p)
    bread = np.linalg.inv((X * info[:, None]).T @ X)
    lopsided = ((deal_wins > 0).sum(1) < min_deals) | ((deal_wins < deal_games).sum(1) < min_deals)
    dense = ~lopsided
    scores = (deal_wins[dense] - deal_games[dense] * p[dense, None]).T @ X[dense]  # (deals, coefficients)
    per_deal = deal_games.sum(1) / np.maximum((deal_games > 0).sum(1), 1)     # games a deal, where it had any
    unit = info * np.maximum(per_deal, 1.0)
    meat = scores.T @ scores * (G / (G - 1.0)) + (X[lopsided] * unit[lopsided, None]).T @ X[lopsided]
    return bread @ meat @ bread


# ---------------------------------------------------------------------------------------------
# Helpers of the answers: finite values, interval widths, shares, ratios over deals, bands, tests.
# ---------------------------------------------------------------------------------------------

def finite_or_none(x) -> float | None:
    """``x`` as a float, or None when it is None, NaN or infinite (for tables and sentences)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def half_width(lo: float | None, hi: float | None) -> float:
    """Half the width of an interval (NaN when a bound is missing)."""
    if lo is None or hi is None:
        return math.nan
    return (hi - lo) / 2


def share_ci(k: float, n: float) -> tuple[float | None, float | None, float | None]:
    """A share k/n with its Wilson 95% interval (None when n is 0)."""
    if n <= 0:
        return None, None, None
    lo, hi = wilson(k, n)
    return k / n, float(lo), float(hi)


def mean_interval(values: np.ndarray, share: bool = False) -> tuple[float, float | None, float | None]:
    """Mean of per-deal values with its interval (:func:`deal_values_ci`: a share's with ``share``), missing
    bounds as None."""
    m, lo, hi = deal_values_ci(values, share)
    return m, finite_or_none(lo), finite_or_none(hi)


def hist_median(hist: dict[float, int]) -> float | None:
    """Median of a {value: count} histogram (the lower middle value for an even count)."""
    if not hist:
        return None
    vals = np.array(sorted(hist))
    cum = np.cumsum([hist[v] for v in vals])
    return float(vals[np.searchsorted(cum, (cum[-1] + 1) // 2)])


def linearised(x: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """Per-deal pseudo-values of the ratio R = sum(x) / sum(y): R + (x - R y) / mean(y) (the ratio
    estimator's delta method). Their mean is R; paired t on two cells' pseudo-values gives the paired
    difference of two ratios over the same deals."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if y.sum() <= 0:
        return None
    r = x.sum() / y.sum()
    return r + (x - r * y) / y.mean()


def ratio_ci(x: np.ndarray, y: np.ndarray, share: bool = False) -> tuple[float | None, float | None, float | None]:
    """sum(x) / sum(y) over deals with a t interval of its linearisation (x - R y) / mean(y) (the ratio
    estimator's delta method: deals are the units, whatever each holds). For a ``share`` (x counts some of
    what y counts) it is :func:`deal_share_interval` of the linearisation's pseudo-values (Wilson's with the
    effective number of units: within [0, 1], asymmetric near either end, where the t interval clipped
    read 22.2% [0.0%, 70.6%] for 2 wins of 9), and where the linearisation is 0 on every deal (no event at
    all, or every unit one: a width of 0 would claim certainty) Wilson's over the deals that count
    (:func:`alike_share_interval`)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if y.sum() <= 0:
        return None, None, None
    r = float(x.sum() / y.sum())
    _, lo, hi = values_ci((x - r * y) / y.mean())
    half = half_width(lo, hi)
    if not math.isfinite(half):
        return r, None, None
    if share and half == 0.0:
        return (r, *alike_share_interval(r, float(y.sum()), float((y > 0).sum())))
    if share:  # Wilson's with the effective number of units, as a share over deals (asymmetric near 0 and 1)
        return (r, *deal_share_interval(r, r + (x - r * y) / y.mean()))
    return r, r - half, r + half


def alike_share_interval(r: float, units: float, clusters: float) -> tuple[float | None, float | None]:
    """Wilson's interval of a share ``r`` that no spread can bound (every deal or game alike: none of the
    event, or all of it), over the fewer of its ``units`` (what the share counts) and the ``clusters``
    holding them (deals or games, whose units may all go one way together): the wider, never a width of 0."""
    n = min(units, clusters)
    if not n > 0:
        return None, None
    return wilson_bounds(min(max(r, 0.0), 1.0) * n, n)


def holm(pvalues: list[float]) -> list[bool]:
    """Which of several tests reject at 5% with Holm's correction for multiple comparisons (statsmodels)."""
    if not pvalues:
        return []
    from statsmodels.stats.multitest import multipletests
    p = np.nan_to_num(np.asarray(pvalues, dtype=float), nan=1.0)
    return [bool(r) for r in multipletests(p, alpha=0.05, method="holm")[0]]


def inside_band(lo: float | None, hi: float | None, band: tuple[float, float], x: float) -> str:
    """'in' when the interval lies inside [band), 'out' when wholly outside it, else 'borderline'."""
    b0, b1 = band
    lo = x if lo is None else lo
    hi = x if hi is None else hi
    if lo >= b0 and hi < b1:
        return "in"
    if hi < b0 or lo >= b1:
        return "out"
    return "borderline"
