"""Racing a discrete set of candidates on common random numbers (successive halving with paired tests).

Every surviving candidate plays the same deals; after each round the candidates that are clearly worse
than the round's leader are dropped, and the survivors play the next, larger round of new deals. The
rounds' sizes grow geometrically from ``first`` to ``budget`` deals per candidate, so most deals go to
the candidates still in doubt.

*Clearly worse*: the one-sided paired t test of ``candidate - leader`` over the deals both have played
(its spread by :func:`simcore.stats.paired_spread`, as in the answers' paired intervals) rejects "not
worse" at level ``alpha / (R (m - 1))``, R the number of rounds and m the number of candidates
(Bonferroni over every round and every rival the true best can be compared with). The true best is
then dropped with probability at most ``alpha`` (up to the normal approximation of the paired
t test), whoever leads when.

Nothing here plays games: ``evaluate(indices, stop)`` returns each candidate's per-deal values on deals
``0 .. stop-1`` (a game engine, or a synthetic sampler in the tests).
"""
from __future__ import annotations

import dataclasses
import functools
import math
from typing import Callable, Sequence

import numpy as np
from scipy import stats as _st

from .stats import deal_values_ci, paired_diff, paired_spread


def schedule(first: int, budget: int, growth: float = 2.0) -> list[int]:
    """The deals per candidate after each round: first, first * growth, ..., budget (the last capped)."""
    first = max(1, min(int(first), int(budget)))
    stops = [first]
    while stops[-1] < budget:
        stops.append(min(int(budget), max(stops[-1] + 1, int(math.ceil(stops[-1] * growth)))))
    return stops


@dataclasses.dataclass
class RaceResult:
    """The outcome of a race: the best candidate (by mean over every deal it played), the survivors, and
    for each candidate its deals, mean and interval, and the round it was dropped in (None: survived)."""
    best: int
    survivors: list[int]
    deals: list[int]
    means: list[float]
    lo: list[float]
    hi: list[float]
    dropped_in: list[int | None]
    #: per round: (deals per candidate, alive candidates before the round's tests, leader)
    rounds: list[tuple[int, list[int], int]]
    #: paired difference of each candidate against the best on the deals both played (None for the best)
    versus_best: list[dict | None]
    level: float

    @property
    def spent(self) -> int:
        """Deals played, summed over candidates."""
        return int(sum(self.deals))


def race(n: int, evaluate: Callable[[Sequence[int], int], dict[int, np.ndarray]], first: int, budget: int,
         alpha: float = 0.05, goal: str = "max", growth: float = 2.0, share: bool = False) -> RaceResult:
    """Race candidates ``0 .. n-1`` (see the module docstring); ``goal`` "min" races for the lowest mean.
    ``share``: the values are shares of games (in [0, 1]), whose reported intervals are Wilson's with the
    deals' effective number of games (:func:`simcore.stats.deal_share_interval`); the race's own tests are
    paired and do not change."""
    if n < 1:
        raise ValueError("a race needs at least one candidate")
    sign = 1.0 if goal == "max" else -1.0
    # one candidate has nothing to race against: it plays the whole budget at once (it stopped after the first
    # round, 50 deals of a design of one setting asked for 300)
    stops = schedule(first, budget, growth) if n > 1 else [max(1, int(budget))]
    level = alpha / (len(stops) * max(n - 1, 1))
    alive = list(range(n))
    dropped: list[int | None] = [None] * n
    values: dict[int, np.ndarray] = {}
    rounds = []
    for k, stop in enumerate(stops):
        got = evaluate(list(alive), stop)
        for i in alive:
            values[i] = np.asarray(got[i], dtype=np.float64)[:stop]
        means = {i: sign * float(values[i].mean()) for i in alive}
        leader = max(alive, key=lambda i: (means[i], -i))
        rounds.append((stop, list(alive), leader))
        if len(alive) == 1:
            break
        keep = []
        for i in alive:
            if i == leader or not _clearly_worse(sign * values[i], sign * values[leader], level):
                keep.append(i)
            else:
                dropped[i] = k
        alive = keep
        if len(alive) == 1:
            break
    final = {i: sign * float(values[i].mean()) for i in alive}
    best = max(alive, key=lambda i: (final[i], -i))
    deals, means, lo, hi, vs = [], [], [], [], []
    for i in range(n):
        x = values[i]
        m, a, b = deal_values_ci(x, share)
        deals.append(int(x.size))
        means.append(m)
        lo.append(a)
        hi.append(b)
        if i == best:
            vs.append(None)
        else:
            common = min(x.size, values[best].size)
            vs.append(paired_diff(x[:common], values[best][:common]))
    return RaceResult(best, alive, deals, means, lo, hi, dropped, rounds, vs, level)


@functools.lru_cache(maxsize=4096)
def _t_quantile(level: float, df: int) -> float:
    return float(_st.t.ppf(1.0 - level, df))


def _clearly_worse(x: np.ndarray, leader: np.ndarray, level: float) -> bool:
    """One-sided paired t test: is mean(x - leader) < 0 at ``level``?"""
    d = x - leader
    n = d.size
    if n < 2:
        return False
    mean = float(d.mean())
    if np.ptp(d) == 0.0:  # every difference the same: a sign test (all n below 0 has chance 0.5 ** n if none is)
        return mean < 0.0 and 0.5 ** n < level
    se, df = paired_spread(d)  # the spread of paired_diff's interval (right where few deals differ)
    upper = mean + _t_quantile(level, df) * se
    return upper < 0.0
