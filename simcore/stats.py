"""Interval estimates used in every summary (Wilson for shares, t for means).

Formulas come from statsmodels/scipy rather than being written by hand.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats as _st
from statsmodels.stats.proportion import proportion_confint


def wilson(successes, n, alpha: float = 0.05):
    """Wilson score interval for a share; ``successes`` may be fractional (shared wins). Arrays ok."""
    s = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    lo, hi = proportion_confint(s, np.maximum(n, 1), alpha=alpha, method="wilson")
    lo = np.where(n > 0, lo, np.nan)
    hi = np.where(n > 0, hi, np.nan)
    return lo, hi


def mean_ci(total, total_sq, n, alpha: float = 0.05):
    """Mean and t interval half-width from a sum, a sum of squares and a count."""
    total = np.asarray(total, dtype=float)
    n = float(n)
    if n < 2:
        mean = total / max(n, 1.0)
        return mean, np.full_like(mean, np.nan)
    mean = total / n
    var = np.maximum(np.asarray(total_sq, dtype=float) / n - mean ** 2, 0.0) * n / (n - 1)
    half = _st.t.ppf(1 - alpha / 2, n - 1) * np.sqrt(var / n)
    return mean, half


def round_sig(x: float, digits: int = 6) -> float:
    if x is None or not math.isfinite(x):
        return x
    return float(f"{x:.{digits}g}")
