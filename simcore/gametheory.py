"""Equilibria of empirical games: zero-sum Nash by linear programming, alpha-rank, replicator dynamics.

Payoffs of a symmetric P-player game among K strategies are given as a *heuristic payoff table*: for each
multiset of P strategies (a lineup, seats rotated), the mean payoff of each strategy in it (its win share
per seat). :func:`field_payoffs` turns it into the payoff of each strategy against a field whose P-1
other seats are drawn from a mixture. Nothing here plays games or knows an experiment.

* :func:`zero_sum_nash`: the maximin strategies of a two-player zero-sum matrix game (scipy's linprog).
  For a symmetric two-player constant-sum game (win shares that add up to 1), the maximin strategy of
  the advantage matrix ``A - A.T`` is a symmetric Nash equilibrium.
* :func:`seatings`: the orders of a lineup's members round the table, each with its weight in a random
  seating.
* :func:`alike_groups`: the members of a matrix game that win alike against every member (where one of
  them is in an equilibrium's support, the equilibrium is one point of a set).
* :func:`alpharank`: the stationary distribution of the single-population alpha-rank Markov chain
  (Omidshafiei et al., "alpha-Rank: Multi-Agent Evaluation by Evolution", Scientific Reports 2019): a
  finite population of ``m`` agents, monomorphic states, a mutant fixes with the Fermi (logistic)
  selection probability of a Moran process at ranking intensity ``alpha``. For P players an agent's
  fitness is its expected payoff when its P-1 tablemates are drawn without replacement from the rest
  of the population (for P = 2 this is the paper's single-population fitness).
* :func:`replicator`: discrete-time replicator dynamics from the uniform mixture; a rest point it
  converges to from the interior is a symmetric Nash equilibrium (checked through :func:`regrets`).
* :func:`symmetric_nash`: symmetric Nash equilibria of any number of players and any payoffs, by a search
  of supports (SLSQP on the Nash gap from many starts, then each support solved exactly); only verified
  equilibria are returned.
"""
from __future__ import annotations

import itertools
import math
from typing import Sequence

import numpy as np
from scipy.optimize import linprog
from scipy.special import gammaln, logsumexp


def zero_sum_nash(A) -> tuple[np.ndarray, np.ndarray, float]:
    """Maximin strategies ``(x, y, value)`` of the zero-sum game where the row player gets ``A[i, j]``.

    Row LP: maximise v subject to ``x @ A[:, j] >= v`` for every column j, ``sum(x) = 1``, ``x >= 0``;
    the column strategy is the row strategy of ``-A.T``.
    """
    A = np.asarray(A, dtype=np.float64)
    if A.ndim != 2 or A.size == 0:
        raise ValueError("a payoff matrix needs at least one row and one column")
    x, v = _maximin(A)
    y, w = _maximin(-A.T)
    return x, y, float((v - w) / 2)


def alike_groups(M) -> list[list[int]]:
    """The groups (of two or more) of strategies whose rows of the matrix game ``M`` are equal, entry for
    entry. In a symmetric zero-sum game (``M`` skew-symmetric) such members win alike against every member,
    themselves included, so moving an equilibrium's weight among the members of a group gives another
    equilibrium: where a group has weight, the equilibrium is one point of a set."""
    M = np.asarray(M, dtype=np.float64) + 0.0   # + 0.0: -0.0 and 0.0 are one value
    groups: list[list[int]] = []
    for i in range(M.shape[0]):
        for g in groups:
            if np.array_equal(M[g[0]], M[i]):
                g.append(i)
                break
        else:
            groups.append([i])
    return [g for g in groups if len(g) > 1]


def _maximin(A: np.ndarray) -> tuple[np.ndarray, float]:
    m, n = A.shape
    shift = A.min()
    B = A - shift + 1.0          # positive payoffs: the value is positive and the LP well scaled
    # variables (x_1..x_m, v); minimise -v subject to v - x @ B[:, j] <= 0 and sum(x) = 1
    c = np.zeros(m + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-B.T, np.ones((n, 1))])
    b_ub = np.zeros(n)
    A_eq = np.zeros((1, m + 1))
    A_eq[0, :m] = 1.0
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=[(0, None)] * m + [(None, None)],
                  method="highs")
    if not res.success:  # pragma: no cover - a bounded feasible LP always solves
        raise RuntimeError(f"linprog failed: {res.message}")
    x = np.clip(res.x[:m], 0.0, None)
    x /= x.sum()
    return x, float(res.x[-1] + shift - 1.0)


def lineups(K: int, P: int) -> list[tuple[int, ...]]:
    """Every multiset of P strategies out of K, as sorted index tuples (the lineups of a symmetric game)."""
    return list(itertools.combinations_with_replacement(range(K), P))


def seatings(L: Sequence[int]) -> list[tuple[tuple[int, ...], int]]:
    """The distinct orders of a lineup's members round the table, up to rotation (who sits after whom),
    each with its number of distinct rotations; the lineup's own order first. A seating drawn at random,
    every order of the players equally likely, falls in each with a chance proportional to that number:
    for three different members, the two directions round the table, one each; for (0, 0, 1, 1), the pairs
    side by side (4 rotations) or alternating (2). With three or more players a lineup's payoffs are those
    of a random seating only when every one of them is played: who plays after whom changes the games."""
    L = tuple(L)
    P = len(L)
    seen: set[tuple[int, ...]] = set()
    out: list[tuple[tuple[int, ...], int]] = []
    for order in [L] + sorted(set(itertools.permutations(L))):
        if order in seen:
            continue
        turns = {order[r:] + order[:r] for r in range(P)}
        seen |= turns
        out.append((order, len(turns)))
    return out


def seating_count(K: int, P: int) -> int:
    """How many orders round the table :func:`seatings` gives over every lineup of P members out of K: the
    necklaces of P beads in K colours, ``(1/P) sum over d | P of phi(d) K^(P/d)`` (a meta-game plays each as a
    lineup of its own, and their rotations, ``K^P`` seatings in all, each once a deal)."""
    def phi(n: int) -> int:
        return sum(1 for k in range(1, n + 1) if math.gcd(k, n) == 1)

    return sum(phi(d) * K ** (P // d) for d in range(1, P + 1) if P % d == 0) // P


def _log_multinomial(counts: Sequence[int]) -> float:
    n = sum(counts)
    return float(gammaln(n + 1) - sum(gammaln(c + 1) for c in counts))


class FieldPayoffs:
    """The payoff of each strategy against a field of P-1 seats drawn independently from a mixture, for a
    payoff table (lineup -> {strategy: payoff}), vectorised over the multisets of the other seats."""

    def __init__(self, table: dict[tuple[int, ...], dict[int, float]], K: int, P: int):
        others = lineups(K, P - 1)
        self.K, self.P = K, P
        self.counts = np.array([np.bincount(np.asarray(o, dtype=np.int64), minlength=K) for o in others],
                               dtype=np.float64).reshape(len(others), K)
        self.logcoef = np.array([_log_multinomial(c.astype(int).tolist()) for c in self.counts])
        self.U = np.array([[table[tuple(sorted(o + (i,)))][i] for i in range(K)] for o in others])

    def __call__(self, mix) -> np.ndarray:
        mix = np.asarray(mix, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            logmix = np.log(mix)
            # exp(log coefficient + counts . log mix), with 0 * log 0 = 0
            terms = np.where(self.counts > 0, self.counts * logmix, 0.0).sum(axis=1) + self.logcoef
        return np.exp(terms) @ self.U


def field_payoffs(table: dict[tuple[int, ...], dict[int, float]], K: int, P: int, mix) -> np.ndarray:
    """Expected payoff of each strategy i when the other P-1 seats play strategies drawn independently
    from ``mix`` (the table gives, for each lineup, the payoff of each strategy in it)."""
    return FieldPayoffs(table, K, P)(mix)


def regrets(table, K: int, P: int, mix) -> tuple[np.ndarray, float]:
    """Each strategy's payoff against a field drawn from ``mix`` minus the mixture's own payoff (``value``);
    a Nash equilibrium has no positive regret. Returns ``(regret per strategy, value)``."""
    u = field_payoffs(table, K, P, mix)
    value = float(np.dot(mix, u))
    return u - value, value


def _tablemate_weights(m: int, P: int) -> tuple[np.ndarray, np.ndarray]:
    """Hypergeometric weights of the tablemates, for k = 1 .. m-1 mutants in a population of m agents:
    ``Wr[k-1, j]``: the chance that a mutant's P-1 tablemates include j mutants (drawn from k-1 mutants
    and m-k residents), ``Ws[k-1, j]``: that a resident's include j mutants (from k and m-k-1)."""
    from scipy.stats import hypergeom

    ks = np.arange(1, m)
    j = np.arange(P)
    # hypergeom(M=population, n=successes, N=draws).pmf(j)
    Wr = hypergeom.pmf(j[None, :], m - 1, (ks - 1)[:, None], P - 1)
    Ws = hypergeom.pmf(j[None, :], m - 1, ks[:, None], P - 1)
    return np.nan_to_num(Wr), np.nan_to_num(Ws)


def log_fixation(table, P: int, m: int, alpha: float, r: int, s: int, weights=None) -> float:
    """The logarithm of :func:`fixation` (finite however small the probability is)."""
    Wr, Ws = weights if weights is not None else _tablemate_weights(m, P)
    # payoff of r (of s) at a table where it has j mutant tablemates
    pr = np.array([table[tuple(sorted((r,) * (j + 1) + (s,) * (P - 1 - j)))][r] for j in range(P)])
    ps = np.array([table[tuple(sorted((r,) * j + (s,) * (P - j)))][s] for j in range(P)])
    fr, fs = Wr @ pr, Ws @ ps
    logs = np.cumsum(-alpha * (fr - fs))
    return float(-np.logaddexp(0.0, logsumexp(logs)))


def fixation(table, P: int, m: int, alpha: float, r: int, s: int, weights=None) -> float:
    """Probability that one mutant r takes over a population of m - 1 agents playing s (a Moran process
    with Fermi selection of intensity alpha): 1 / (1 + sum_l prod_{k<=l} exp(-alpha (f_r(k) - f_s(k)))),
    the fitnesses f being expected payoffs against P-1 tablemates drawn from the rest of the population."""
    return float(np.exp(log_fixation(table, P, m, alpha, r, s, weights)))


def alpharank(table, K: int, P: int, alpha: float = 50.0, m: int = 50) -> np.ndarray:
    """The alpha-rank stationary distribution over the K strategies (see the module docstring).

    The chain moves from s to r with probability ``fixation(r, s) / (K - 1)``. At high intensity these
    are often far below 1e-16 (1e-59 is common), so 1 minus their sum, the chance of staying, rounds to 1
    and a linear solve of ``pi C = pi`` cannot tell the states apart. The distribution is taken instead
    from the moves alone, in logarithms, by the Grassmann-Taksar-Heyman elimination (which needs neither
    the chance of staying nor a subtraction): exact to rounding however small the moves are."""
    if K == 1:
        return np.ones(1)
    if m < P:  # a table's other seats are drawn from the rest of the population: it must fill them
        raise ValueError(f"a population of {m} agents cannot seat a table of {P} players")
    weights = _tablemate_weights(m, P)
    L = np.full((K, K), -np.inf)  # log of the move s -> r (the common factor 1 / (K - 1) drops out)
    for s in range(K):
        for r in range(K):
            if r != s:
                L[s, r] = log_fixation(table, P, m, alpha, r, s, weights)
    return gth_stationary(L)


def gth_stationary(L: np.ndarray) -> np.ndarray:
    """The stationary distribution of an irreducible Markov chain given by the logarithms ``L[s, r]`` of
    its moves s -> r (s != r; the diagonal is ignored), by the Grassmann-Taksar-Heyman elimination in
    logarithms (W. K. Grassmann, M. I. Taksar and D. P. Heyman, "Regenerative analysis and steady state
    distributions for Markov chains", Operations Research 1985)."""
    L = np.array(L, dtype=np.float64)
    K = L.shape[0]
    for n in range(K - 1, 0, -1):
        out = logsumexp(L[n, :n])  # state n's moves to the states not yet eliminated
        if not np.isfinite(out):
            raise ValueError("the chain is not irreducible: a state has no move to the others")
        L[:n, n] -= out
        with np.errstate(invalid="ignore"):  # the diagonal (-inf + -inf, never read) may be touched
            L[:n, :n] = np.logaddexp(L[:n, :n], L[:n, n, None] + L[None, n, :n])
    logpi = np.zeros(K)
    for n in range(1, K):
        logpi[n] = logsumexp(logpi[:n] + L[:n, n])
    pi = np.exp(logpi - logpi.max())
    return pi / pi.sum()


def replicator(table, K: int, P: int, steps: int = 20000, dt: float = 2.0, tol: float = 1e-10,
               floor: float = 1e-6, start=None, settled: list | None = None) -> np.ndarray:
    """Discrete-time replicator dynamics x_i <- x_i + dt x_i (u_i(x) - u(x)) from ``start`` (default: the
    uniform mixture), until the mixture moves less than ``tol`` per step (at most ``steps`` steps); shares
    below ``floor`` are set to 0 at the end (a strategy on its way out). Shares never fall below 1e-12 on
    the way, so a strategy pushed out early comes back if it pays against the later mixture. ``settled``,
    a list, receives whether the mixture is a rest point to 1e-6 (every strategy kept earns the mixture's
    payoff, none left out more; else the mixture is only where the dynamics stood: on a cycle, or at a
    corner that a strategy left out gains against)."""
    u_of = FieldPayoffs(table, K, P)
    x = np.full(K, 1.0 / K) if start is None else np.asarray(start, dtype=np.float64) / np.sum(start)
    for _ in range(steps):
        u = u_of(x)
        # every share stays above a tiny floor (a trickle of mutation), so that a strategy pushed out early can
        # come back once it pays again
        nxt = np.maximum(x + dt * x * (u - float(np.dot(x, u))), 1e-12)
        nxt /= nxt.sum()
        moved = np.abs(nxt - x).max()
        x = nxt
        if moved < tol:
            break
    x = np.where(x < floor, 0.0, x)
    if settled is not None:
        # at rest: every strategy kept earns the mixture's payoff and none left out earns more (to 1e-6). A
        # mixture that spirals out to a corner slows down there (the others' shares sit at the 1e-12 floor,
        # where even a strategy that gains grows by less than tol a step) without being at rest: a member
        # left out gains. One that still moves by more than tol a step where those hold is approaching a rest
        # point slowly (it moves by at most about dt 1e-6 a step), which it has reached to that precision
        # (it was said not to be at rest, beside regrets of 1e-9 that show it is)
        u = u_of(x / x.sum())
        kept = x > 0
        v = float(np.dot(x / x.sum(), u))
        out_gain = float((u[~kept] - v).max()) if (~kept).any() else 0.0
        settled.append(bool(np.abs(u[kept] - v).max() < 1e-6 and out_gain < 1e-6))
    return x / x.sum()


def _field_poly(fp: FieldPayoffs, x: np.ndarray) -> np.ndarray:
    """:class:`FieldPayoffs` as the polynomial it is, for any real ``x`` (a root finder leaves the simplex)."""
    mon = np.prod(np.power(x[None, :], fp.counts), axis=1)
    return (np.exp(fp.logcoef) * mon) @ fp.U


def _nash_on(fp: FieldPayoffs, x0: np.ndarray, support: np.ndarray, tol: float) -> np.ndarray | None:
    """The symmetric equilibrium with the given support near ``x0``: every member of the support earns the
    same payoff v against the mixture (a root of those K_S equations and sum = 1, scipy's ``root``), none
    outside earns more than v + ``tol``; None where there is none near."""
    from scipy.optimize import root

    S = np.flatnonzero(support)
    K = fp.K

    def embed(y):
        x = np.zeros(K)
        x[S] = y
        return x

    def equations(z):
        u = _field_poly(fp, embed(z[:-1]))
        return np.append(u[S] - z[-1], z[:-1].sum() - 1.0)

    y0 = np.maximum(x0[S], 1e-3)
    y0 = y0 / y0.sum()
    z0 = np.append(y0, float(y0 @ _field_poly(fp, embed(y0))[S]))
    with np.errstate(all="ignore"):
        res = root(equations, z0, method="hybr")
    if not res.success or not np.all(np.isfinite(res.x)) or res.x[:-1].min() < -1e-9:
        return None
    x = np.clip(embed(res.x[:-1]), 0.0, None)
    x /= x.sum()
    u = fp(x)
    if float((u - x @ u).max()) > tol:
        return None
    return x


def symmetric_nash(table, K: int, P: int, starts: Sequence[np.ndarray] | None = None, seed: int = 0,
                   random_starts: int = 24, tol: float = 1e-9, first: bool = False,
                   sets: list | None = None) -> list[np.ndarray]:
    """Symmetric Nash equilibria of a symmetric P-player game (any P, any payoffs): mixtures against which
    no strategy earns more than the mixture's own payoff (every regret at most ``tol``).

    Each start (default: the uniform mixture, every pure strategy, then ``random_starts`` mixtures drawn
    from a flat Dirichlet with ``seed``) is taken by SLSQP (scipy) to a minimum of the Nash gap, the sum of
    squared positive regrets, which is 0 exactly at an equilibrium; the support it ends on (and the
    strategies that gain against it) is then solved exactly for the mixture whose members all earn the
    same (:func:`_nash_on`). Only verified equilibria are returned, in the order their starts come
    (``first``: stop at the first), one for each set of them: two equilibria whose segment holds
    equilibria all along (checked at a quarter, half and three quarters) are one set, as where members
    play alike and every mix of them is one; ``sets``, a list, receives for each whether another point of
    its set was found. Where the default starts find none, the replicator dynamics' end point and 100
    more random mixtures are tried. A game has at least one, but a search of finitely many starts may
    miss some, or (rarely) every one: an empty list says none was found, never that none exists. For two
    players and win shares that add up to 1, :func:`zero_sum_nash` is exact and complete."""
    from scipy.optimize import minimize

    fp = FieldPayoffs(table, K, P)
    default = starts is None
    if starts is None:
        rng = np.random.default_rng(seed)
        starts = [np.full(K, 1.0 / K)] + list(np.eye(K)) + list(rng.dirichlet(np.ones(K), random_starts))

    def gap(x):
        x = np.clip(x, 0.0, None)
        u = fp(x / max(x.sum(), 1e-300))
        r = np.maximum(u - float(x @ u) / max(x.sum(), 1e-300), 0.0)
        return float(r @ r)

    found: list[np.ndarray] = []
    in_set: list[bool] = []

    def equilibrium(x) -> bool:
        u = fp(x)
        return float((u - x @ u).max()) <= tol

    def keep(x) -> bool:
        if x is None:
            return False
        for k, y in enumerate(found):
            if np.abs(x - y).max() < 1e-6:
                return True
            if all(equilibrium((1 - t) * y + t * x) for t in (0.25, 0.5, 0.75)):  # one set of equilibria
                in_set[k] = True
                return True
        found.append(x)
        in_set.append(False)
        return True

    cons = ({"type": "eq", "fun": lambda x: x.sum() - 1.0},)

    def search(points) -> None:
        for x0 in points:
            x0 = np.asarray(x0, dtype=np.float64)
            with np.errstate(all="ignore"):
                res = minimize(gap, x0, method="SLSQP", bounds=[(0.0, 1.0)] * K, constraints=cons,
                               options={"ftol": 1e-16, "maxiter": 500})
            x = np.clip(res.x, 0.0, None)
            x = x / x.sum() if x.sum() > 0 else x0
            u = fp(x)
            reg = u - float(x @ u)
            added = False
            for cut in (1e-4, 1e-7):  # the support it ends on, then with the strategies that gain against it
                for support in (x > cut, (x > cut) | (reg > -1e-6)):
                    if support.any() and not added:
                        added = keep(_nash_on(fp, x, support, tol))
            if first and found:
                return

    search(starts)
    if default and not found:  # SLSQP may stall on a wrong support: the dynamics' end point, more mixtures
        search([replicator(table, K, P)] + list(np.random.default_rng(seed + 1).dirichlet(np.ones(K), 100)))
    if sets is not None:
        sets.extend(in_set)
    return found


def nash_near(table, K: int, P: int, x: np.ndarray, tol: float = 1e-9) -> np.ndarray | None:
    """The symmetric equilibrium of ``table`` that continues ``x`` (an equilibrium of a nearby table, as a
    bootstrap resample's): the same support solved exactly first, so that a resample follows the same
    equilibrium rather than jump to another; else the first the search reaches from ``x``; else the first
    it finds anywhere; None where it finds none."""
    fp = FieldPayoffs(table, K, P)
    same = _nash_on(fp, x, x > 1e-9, tol)
    if same is not None:
        return same
    eqs = symmetric_nash(table, K, P, starts=[x], first=True) or symmetric_nash(table, K, P, random_starts=8,
                                                                              first=True)
    return eqs[0] if eqs else None


def matrix_table(A) -> dict[tuple[int, ...], dict[int, float]]:
    """The payoff table of a symmetric two-player game whose row player gets ``A[i, j]`` against j."""
    A = np.asarray(A, dtype=np.float64)
    K = A.shape[0]
    return {(i, j): ({i: A[i, j], j: A[j, i]} if i != j else {i: A[i, i]}) for i, j in lineups(K, 2)}
