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
    small cells of long games grew by that much a cell. The histogram starts at the shortest game, one bin a
    turn while its games span at most TURN_HIST turns."""
    rng = np.random.default_rng(5)
    chunks = []
    for lo, hi in ((3000, 3010), (2990, 2995), (5000, 5000), (4200, 4300)):
        turns = rng.integers(lo, hi + 1, 40)
        chunks.append((turns, Totals.of({"turns": turns.astype(float), "win": np.zeros(40)})))
    for turns, t in chunks:
        assert len(t.hist) == turns.max() - turns.min() + 1 and t.hist_lo == turns.min() and t.hist_width == 1
    merged = chunks[0][1]
    for _, t in chunks[1:]:
        merged = merged.merge(t)
    every = np.concatenate([c[0] for c in chunks])
    assert merged.hist_width == 1 and merged.hist_lo == every.min()
    assert np.array_equal(merged.hist, np.bincount(every - every.min()))
    starts, counts, width = merged.turn_bins()
    assert width == 1 and np.array_equal(np.repeat(starts, counts), np.sort(every))
    # merging with a cell of no games keeps the histogram as it is
    empty = Totals.of({"turns": np.zeros(0), "win": np.zeros(0)})
    for t in (empty.merge(merged), merged.merge(empty)):
        assert t.hist_lo == merged.hist_lo and t.hist_width == 1 and np.array_equal(t.hist, merged.hist)


def test_games_longer_than_the_histogram_are_counted_at_their_length():
    """The histogram's last bin (4,095 turns) held every longer game: matches of 6,000 turns read as one spike
    at 4,095, and games stopped at a limit of 100,000 turns were said stopped at 4,095. Games that span more than
    TURN_HIST turns are now kept in bins of 2, 4, 8 ... turns, the least width that holds them, and the sum of
    any chunks, merged in any order, is the histogram of all their games."""
    rng = np.random.default_rng(7)
    long = rng.integers(4000, 9000, 300)  # a span of some 5,000 turns: bins of 2
    t = Totals.of({"turns": long.astype(float), "win": np.zeros(300)})
    assert t.hist_width == 2 and t.hist_lo == long.min() // 2 * 2 and len(t.hist) <= runner.TURN_HIST
    assert np.array_equal(t.hist, np.bincount(long // 2 - long.min() // 2))
    short = np.array([80, 81, 100_000, 100_000])  # a Sen game stopped at its limit beside ordinary ones
    s = Totals.of({"turns": short.astype(float), "win": np.zeros(4)})
    starts, counts, width = s.turn_bins()
    assert width == 32 and starts.tolist() == [64, 99_968 + 32] and counts.tolist() == [2, 2]
    for trial in range(40):
        turns = np.concatenate([rng.integers(0, 300, 50), rng.integers(0, 10 ** int(rng.integers(3, 6)), 50)])
        whole = runner.turn_histogram(turns)
        cuts = np.sort(rng.choice(np.arange(1, 100), size=int(rng.integers(0, 6)), replace=False))
        parts = [runner.turn_histogram(c) for c in np.split(turns, cuts)]
        got = (0, np.zeros(0, np.int64), 1)
        for k in rng.permutation(len(parts)):
            got = runner.merge_histograms([got, parts[k]])
        assert got[0] == whole[0] and got[2] == whole[2] and np.array_equal(got[1], whole[1]), trial
        lo, hist, width = whole
        assert hist.sum() == 100 and hist[0] > 0 and hist[-1] > 0 and len(hist) <= runner.TURN_HIST
        if width > 1:  # the least width: half of it would not hold the games' span
            assert turns.max() // (width // 2) - turns.min() // (width // 2) >= runner.TURN_HIST


def test_the_python_api_gives_long_games_at_their_length():
    import dataclasses

    from simcore.errors import SenseiError
    from simcore.runner import simulate
    from strategies.registry import lineup

    agents = lineup("fan-and-mallet", ["random"], 2)
    res = simulate("fan-and-mallet", agents, rules={"match_points": 1000}, n_games=3, seed=2)
    bins = res.turn_bins()  # matches of some 42,000 turns, each at its length
    assert bins["count"].sum() == 3 and bins["turns"].min() > runner.TURN_HIST and (bins["width"] == 1).all()
    assert float((bins["turns"] * bins["count"]).sum()) / 3 == res.summary()["mean_turns"]
    dist = res.turn_distribution()
    assert dist.sum() == 3 and len(dist) == int(bins["turns"].max()) + 1
    # games that span more than TURN_HIST turns: bins of several turns, which turn_distribution refuses
    lo, hist, width = runner.turn_histogram(np.array([80, 81, 100_000]))
    wide = dataclasses.replace(res, totals=dataclasses.replace(res.totals, hist=hist, hist_lo=lo, hist_width=width))
    assert wide.turn_bins().rows() == [(64, 32, 2), (100_000, 32, 1)]
    with pytest.raises(SenseiError, match="kept in bins of 32 turns: turn_bins"):
        wide.turn_distribution()
