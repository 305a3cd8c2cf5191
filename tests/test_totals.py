"""Totals: the one compiled pass per column gives what numpy's reductions give, exact sums where they apply."""
import numpy as np
import pytest

from simcore import runner
from simcore.runner import Totals


def _reference(outcome):
    """The totals as numpy's reductions and the exact integer sums work them out, column by column."""
    n = len(outcome["turns"])
    out = {}
    for k, v in outcome.items():
        v = np.asarray(v, dtype=np.float64)
        s, e = runner._column_sums(v, runner._SCALE)
        s2, e2 = runner._column_sums(v ** 2, runner._SCALE_SQ)
        exact = e is not None and e2 is not None
        out[k] = (s, s2, e if exact else None, e2 if exact else None,
                  v.min(axis=0) if n else None, v.max(axis=0) if n else None)
    return out


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


def _outcomes(rng, n):
    yield {"turns": rng.integers(1, 300, n), "win": np.eye(4)[rng.integers(0, 4, n)],
           "share": rng.integers(1, 6, (n, 3)) / rng.choice([1, 2, 3, 4, 5], (n, 1)),
           "score": rng.integers(-50, 50, (n, 2, 3)), "flag": rng.random(n) < 0.3}
    yield {"turns": rng.integers(1, 9, n), "ratio": rng.random((n, 2)),        # not in 60ths: numpy's sums
           "tenth": np.round(rng.random(n), 1), "big": np.full(n, 2.0 ** 47)}  # sums past 2**52
    nan = rng.random(n)
    nan[n // 2] = np.nan
    yield {"turns": np.arange(n), "nan": nan, "inf": np.where(np.arange(n) == 0, np.inf, 1.0)}
    # entries past the compiled pass's limit (|v * v * 3600| >= 2**44) take numpy's sums, exact while they
    # stay below 2**52; negative values and infinities order as floats in the minima and maxima
    yield {"turns": rng.integers(1, 9, n), "mid": 3.0e5 * rng.choice([-1.0, 1.0], n),
           "neg": -rng.integers(0, 5, (n, 2)) / 4, "minf": np.where(np.arange(n) == n - 1, -np.inf, -1.5),
           "tiny": rng.choice([-1.0, 1.0], n) * 2.0 ** -30}


@pytest.mark.parametrize("n", [1, 2, 7, 1000])
def test_one_pass_totals_equal_numpy_reductions(n):
    rng = np.random.default_rng(n)
    for outcome in _outcomes(rng, n):
        t, ref = Totals.of(outcome), _reference(outcome)
        for k, (s, s2, e, e2, lo, hi) in ref.items():
            assert _same(t.sums[k], s) and _same(t.sumsq[k], s2), k
            assert _same(t.exact.get(k), e) and _same(t.exact_sq.get(k), e2), k
            assert _same(t.mins.get(k), lo) and _same(t.maxs.get(k), hi), k
            assert type(t.sums[k]) is type(s) and type(t.mins[k]) is type(lo), k  # scalars stay scalars
            # and numpy's own reductions (the reference above is the exact-sum path's own helper)
            v = np.asarray(outcome[k], dtype=np.float64)
            assert np.allclose(t.sums[k], v.sum(axis=0), rtol=1e-12, atol=1e-9, equal_nan=True), k
            assert np.allclose(t.sumsq[k], (v ** 2).sum(axis=0), rtol=1e-12, atol=1e-9, equal_nan=True), k


def test_totals_of_no_games_and_of_chunks():
    empty = Totals.of({"turns": np.zeros(0, dtype=np.int64), "win": np.zeros((0, 2))})
    assert empty.n == 0 and empty.exact["win"].tolist() == [0, 0] and not empty.mins
    rng = np.random.default_rng(3)
    outcome = next(_outcomes(rng, 999))
    whole = Totals.of(outcome)
    parts = [Totals.of({k: v[a:a + 250] for k, v in outcome.items()}) for a in range(0, 999, 250)]
    merged = parts[0]
    for p in parts[1:]:
        merged = merged.merge(p)
    for k in outcome:
        assert _same(merged.exact.get(k), whole.exact.get(k))
        if k in whole.exact:  # exact sums do not depend on the chunks
            assert _same(merged.sums[k], whole.sums[k])
        assert _same(merged.mins[k], whole.mins[k]) and _same(merged.maxs[k], whole.maxs[k])


def test_the_turn_histogram_keeps_only_the_range_its_games_span():
    """A cell of long games kept a bin for every turn count from 0 (32 KB a rotation at most): a sweep of many
    small cells of long games grew by that much a cell. The histogram starts at the shortest game."""
    rng = np.random.default_rng(5)
    chunks = []
    for lo, hi in ((3000, 3010), (2990, 2995), (5000, 5000), (4200, 4300)):
        turns = rng.integers(lo, hi + 1, 40)
        chunks.append((turns, Totals.of({"turns": turns.astype(float), "win": np.zeros(40)})))
    for turns, t in chunks:  # (the last bin, TURN_HIST - 1 turns, collects longer games)
        capped = np.minimum(turns, runner.TURN_HIST - 1)
        assert len(t.hist) == capped.max() - capped.min() + 1 and t.hist_lo == capped.min()
    merged = chunks[0][1]
    for _, t in chunks[1:]:
        merged = merged.merge(t)
    every = np.minimum(np.concatenate([c[0] for c in chunks]), runner.TURN_HIST - 1)
    assert np.array_equal(merged.turns_hist, np.bincount(every, minlength=runner.TURN_HIST))
    assert merged.hist_lo == every.min() and len(merged.hist) == every.max() - every.min() + 1
    # merging with a cell of no games keeps the histogram as it is
    empty = Totals.of({"turns": np.zeros(0), "win": np.zeros(0)})
    assert np.array_equal(empty.merge(merged).turns_hist, merged.turns_hist)
    assert np.array_equal(merged.merge(empty).turns_hist, merged.turns_hist)
