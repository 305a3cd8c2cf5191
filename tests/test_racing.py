"""The racer on synthetic noisy grids: it keeps the true best with the promised error rate, drops the clearly
worse early, and spends fewer deals than playing every candidate to the end."""
import numpy as np
import pytest

from simcore.racing import race, schedule

TRUE = np.array([0.50, 0.495, 0.49, 0.48, 0.45, 0.40, 0.30, 0.20])


def sampler(seed, means=TRUE, deals=3200, common=0.3, own=0.3):
    """Per-deal values of each candidate: its mean, a deal effect shared by every candidate (common random
    numbers) and its own noise."""
    rng = np.random.default_rng(seed)
    shared = rng.normal(0, common, size=deals)
    X = means[:, None] + shared[None, :] + rng.normal(0, own, size=(len(means), deals))
    asked = []

    def evaluate(idx, stop):
        asked.append((tuple(idx), stop))
        return {i: X[i, :stop] for i in idx}
    return evaluate, asked


def test_schedule_doubles_up_to_the_budget():
    assert schedule(100, 1600) == [100, 200, 400, 800, 1600]
    assert schedule(300, 1000) == [300, 600, 1000]
    assert schedule(5000, 1000) == [1000]


@pytest.mark.slow
def test_true_best_is_kept_with_the_promised_error_rate():
    alpha, reps = 0.2, 400
    dropped = 0
    for s in range(reps):
        ev, _ = sampler(s)
        dropped += race(len(TRUE), ev, 100, 3200, alpha=alpha).dropped_in[0] is not None
    # P(drop) <= alpha; a binomial upper margin of three standard deviations
    assert dropped / reps <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / reps)


def test_clearly_worse_are_dropped_early_and_survivors_play_more():
    ev, asked = sampler(1)
    r = race(len(TRUE), ev, 100, 3200, alpha=0.05)
    assert r.best == 0 or r.best in r.survivors
    assert r.dropped_in[7] == 0 and r.dropped_in[6] == 0          # far below: gone after the first round
    assert r.deals[7] == 100 and r.deals[r.best] == 3200
    assert r.spent < 0.6 * len(TRUE) * 3200                        # well under playing everything to the end
    assert asked[0] == (tuple(range(8)), 100)
    assert all(r.versus_best[k]["diff"] < 0 for k in (6, 7))


def test_goal_min_races_for_the_lowest_mean():
    ev, _ = sampler(2, means=np.array([0.3, 0.5, 0.2, 0.6]))
    r = race(4, ev, 100, 1600, goal="min")
    assert r.best == 2


def test_identical_candidates_are_never_dropped():
    ev, _ = sampler(3, means=np.array([0.5, 0.5]), own=0.0)
    r = race(2, ev, 50, 400)
    assert r.survivors == [0, 1] and r.deals == [400, 400]


def test_equal_differences_on_few_deals_are_not_taken_as_certain():
    # every difference the same: without a spread the t test would call any negative mean certain; a sign
    # test needs 0.5 ** n below the level (5 deals: 3.1%, dropped at 5%; 4 deals: 6.25%, kept)
    from simcore.racing import _clearly_worse
    lead = np.zeros(4)
    assert not _clearly_worse(lead - 0.5, lead, 0.05)
    assert _clearly_worse(np.zeros(5) - 0.5, np.zeros(5), 0.05)
    assert not _clearly_worse(np.zeros(50) + 0.5, np.zeros(50), 0.05)


def test_the_sequential_test_waits_for_enough_deals_and_some_spread():
    from simcore.stats import SPRT_MIN_DEALS, sprt_llr
    # three deals of equal values: no evidence, whatever their mean (a variance of 0 made it +-1e9)
    assert sprt_llr(1.5, 0.75, 3, 0.5, 0.6) == 0.0
    n = SPRT_MIN_DEALS
    assert sprt_llr(0.5 * n, 0.25 * n, n, 0.5, 0.6) == 0.0          # all equal: still none
    values = np.array([0.0, 1.0] * (n // 2) + [1.0] * (n % 2))
    llr = sprt_llr(values.sum(), (values ** 2).sum(), values.size, 0.5, 0.6)
    assert llr != 0.0 and abs(llr) < 100
    # values with a spread but fewer than SPRT_MIN_DEALS of them: still no evidence
    few = np.array([0.0, 1.0, 1.0, 1.0] * ((n - 1) // 4) + [1.0] * ((n - 1) % 4))
    assert few.size == n - 1 and np.ptp(few) > 0 and sprt_llr(few.sum(), (few ** 2).sum(), few.size, 0.5, 0.6) == 0.0


def test_a_races_level_is_corrected_for_its_rounds_and_rivals():
    # level alpha / (R (m - 1)): R rounds and m settings (Bonferroni over every round and every rival)
    X = np.random.default_rng(3).random((5, 400))
    res = race(5, lambda idx, stop: {i: X[i, :stop] for i in idx}, 50, 400, alpha=0.05)
    rounds = len(schedule(50, 400))
    assert rounds == 4 and res.level == pytest.approx(0.05 / (rounds * 4))


def test_a_race_of_shares_reports_a_shares_intervals_and_races_alike():
    from simcore.stats import deal_share_interval, values_ci

    rng = np.random.default_rng(11)
    X = (rng.random((3, 400, 4)) < np.array([0.05, 0.1, 0.3])[:, None, None]).mean(2)  # 4 plays a deal

    def evaluate(idx, stop):
        return {i: X[i, :stop] for i in idx}
    plain, share = race(3, evaluate, 50, 400), race(3, evaluate, 50, 400, share=True)
    # the same race (its tests are paired), only the reported intervals differ
    assert (plain.best, plain.survivors, plain.deals, plain.dropped_in) == (
        share.best, share.survivors, share.deals, share.dropped_in)
    for k in range(3):
        x = X[k, :share.deals[k]]
        assert (plain.lo[k], plain.hi[k]) == pytest.approx(values_ci(x)[1:])
        assert (share.lo[k], share.hi[k]) == pytest.approx(deal_share_interval(float(x.mean()), x))
        assert 0.0 < share.lo[k] < share.means[k] < share.hi[k] < 1.0


def test_one_candidate_plays_the_whole_budget_at_once():
    """Nothing to race against: a design or best response of one setting stopped after the first round (50
    deals of 300)."""
    calls = []

    def evaluate(alive, stop):
        calls.append((list(alive), stop))
        return {i: np.arange(stop) % 2 for i in alive}

    r = race(1, evaluate, first=50, budget=300)
    assert calls == [([0], 300)] and r.deals == [300] and r.survivors == [0] and r.best == 0
    assert race(2, evaluate, first=50, budget=300).rounds[0][0] == 50   # two race from the first round
