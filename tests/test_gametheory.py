"""Equilibrium solvers on games whose answers are known in closed form."""
import numpy as np
import pytest

from simcore import gametheory as gt

RPS = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)


def test_rock_paper_scissors_is_uniform():
    x, y, v = gt.zero_sum_nash(RPS)
    assert np.allclose(x, 1 / 3) and np.allclose(y, 1 / 3) and v == pytest.approx(0.0, abs=1e-9)


def test_two_by_two_mixed_equilibrium():
    # row gets [[3, -1], [-2, 1]]: no saddle point; p* = (d - c) / (a - b - c + d) = 3/7, q* = (d - b) / ... = 2/7,
    # value (ad - bc) / (a - b - c + d) = 1/7
    x, y, v = gt.zero_sum_nash([[3, -1], [-2, 1]])
    assert x == pytest.approx([3 / 7, 4 / 7]) and y == pytest.approx([2 / 7, 5 / 7]) and v == pytest.approx(1 / 7)


def test_saddle_point_is_pure():
    x, y, v = gt.zero_sum_nash([[2, 3], [1, 4]])   # row 0 guarantees 2; column 0 concedes at most 2
    assert x == pytest.approx([1, 0]) and y == pytest.approx([1, 0]) and v == pytest.approx(2.0)


def test_dominated_strategy_gets_probability_zero():
    # rock-paper-scissors plus a fourth strategy that loses to every other one
    A = np.zeros((4, 4))
    A[:3, :3] = RPS
    A[3, :3], A[:3, 3] = -0.5, 0.5
    x, y, v = gt.zero_sum_nash(A)
    assert x[3] == 0 and np.allclose(x[:3], 1 / 3) and v == pytest.approx(0.0, abs=1e-9)
    W = 0.5 + A / 2                                   # as win shares of a symmetric constant-sum game
    t = gt.matrix_table(W)
    for mix in (gt.replicator(t, 4, 2), gt.alpharank(t, 4, 2)):
        assert mix[3] < 1e-6
    reg, value = gt.regrets(t, 4, 2, [1 / 3, 1 / 3, 1 / 3, 0])
    assert value == pytest.approx(0.5) and np.allclose(reg[:3], 0, atol=1e-12) and reg[3] < 0


def test_alpharank_and_replicator_on_rock_paper_scissors():
    t = gt.matrix_table(0.5 + RPS / 2)
    assert np.allclose(gt.alpharank(t, 3, 2), 1 / 3)
    assert np.allclose(gt.replicator(t, 3, 2), 1 / 3)


def test_alpharank_puts_all_mass_on_a_dominant_strategy_for_several_players():
    # 4 players, 3 strategies of fixed strengths: a seat's win share is its strength's share of the table's
    K, P = 3, 4
    strength = np.array([3.0, 2.0, 1.0])
    table = {}
    for L in gt.lineups(K, P):
        s = strength[list(L)]
        table[L] = {i: float(np.mean([s[k] / s.sum() for k in range(P) if L[k] == i])) for i in set(L)}
    assert gt.alpharank(table, K, P)[0] == pytest.approx(1.0)
    assert gt.replicator(table, K, P) == pytest.approx([1, 0, 0])
    reg, _ = gt.regrets(table, K, P, [1, 0, 0])
    assert reg[0] == pytest.approx(0) and (reg[1:] < 0).all()


def test_alpharank_tells_two_stable_states_apart_when_every_move_is_tiny():
    """3 players, 2 strategies, each better off in the majority: both monomorphic states resist invasion,
    with fixation probabilities of about 1e-59 and 1e-26. The chance of staying rounds to 1 in floats,
    and a linear solve of pi C = pi gave 50%/50%; the stationary distribution is pi_0 rho(1 into 0) =
    pi_1 rho(0 into 1), so all but 1e-33 of its mass is on strategy 0."""
    t = {(0, 0, 0): {0: 1 / 3}, (0, 0, 1): {0: 0.42, 1: 0.16}, (0, 1, 1): {0: 0.22, 1: 0.39}, (1, 1, 1): {1: 1 / 3}}
    into0, into1 = gt.log_fixation(t, 3, 50, 50.0, 1, 0), gt.log_fixation(t, 3, 50, 50.0, 0, 1)
    assert into0 < -100 and -70 < into1 < -50
    pi = gt.alpharank(t, 2, 3)
    assert pi[0] == pytest.approx(1.0) and pi[1] == pytest.approx(np.exp(into0 - into1), rel=1e-9)


def test_gth_stationary_solves_pi_P_equals_pi():
    """The elimination in logarithms agrees with a direct solve on chains where that solve is well posed."""
    rng = np.random.default_rng(5)
    for K in (2, 3, 5, 8):
        Q = rng.uniform(0.01, 1.0, (K, K)) / K
        np.fill_diagonal(Q, 0.0)
        T = Q + np.diag(1.0 - Q.sum(axis=1))
        M = np.vstack([T.T - np.eye(K), np.ones((1, K))])
        b = np.zeros(K + 1)
        b[-1] = 1.0
        direct = np.linalg.lstsq(M, b, rcond=None)[0]
        with np.errstate(divide="ignore"):
            assert np.allclose(gt.gth_stationary(np.log(Q)), direct, atol=1e-12)
    with pytest.raises(ValueError, match="irreducible"):
        gt.gth_stationary(np.array([[0.0, -np.inf], [-np.inf, 0.0]]))


def test_replicator_says_whether_it_came_to_rest():
    """Off its centre, rock-paper-scissors' discrete dynamics circle out towards the corners: stopped after
    5 steps, the mixture is only where they stood, and the caller is told; a dominant strategy's game
    comes to rest (as does a corner that no strategy left out gains against)."""
    t = gt.matrix_table(0.5 + RPS / 2)
    settled: list = []
    gt.replicator(t, 3, 2, start=[0.5, 0.3, 0.2], steps=5, settled=settled)
    assert settled == [False]
    A = np.array([[0.5, 0.8], [0.2, 0.5]])
    gt.replicator(gt.matrix_table(A), 2, 2, settled=settled)
    assert settled == [False, True]


def test_replicator_approaching_a_rest_point_slowly_is_at_rest_there():
    """A mixture whose strategies earn the same to 1e-9 and which no strategy left out beats is a rest point,
    though it still moves by more than the stopping tolerance a step: the equilibrium answer said "the dynamics
    did not come to rest ... not a rest point" beside support regrets of 1e-9. Off it, it is not at rest."""
    A = np.array([[0.5, 0.8], [0.7, 0.5]])  # anti-coordination: the rest point is 60% of the first
    t = gt.matrix_table(A)
    settled: list = []
    x = gt.replicator(t, 2, 2, start=[0.6 + 1e-8, 0.4 - 1e-8], steps=2, tol=1e-12, settled=settled)
    assert abs(x[0] - 0.6) > 1e-12 and settled == [True]
    gt.replicator(t, 2, 2, start=[0.7, 0.3], steps=2, settled=settled)
    assert settled == [True, False]


def test_fixation_is_neutral_without_selection():
    t = gt.matrix_table(np.full((2, 2), 0.5))
    assert gt.fixation(t, 2, 20, 50.0, 0, 1) == pytest.approx(1 / 20)


def test_field_payoffs_are_multinomial_expectations():
    # 3 players: strategy 0's payoff against one other of each: table values by the count of 1s among the others
    table = {(0, 0, 0): {0: 1 / 3}, (0, 0, 1): {0: 0.4, 1: 0.2}, (0, 1, 1): {0: 0.6, 1: 0.2},
             (1, 1, 1): {1: 1 / 3}}
    u = gt.field_payoffs(table, 2, 3, [0.5, 0.5])
    assert u[0] == pytest.approx(0.25 * (1 / 3) + 0.5 * 0.4 + 0.25 * 0.6)
    assert u[1] == pytest.approx(0.25 * 0.2 + 0.5 * 0.2 + 0.25 * (1 / 3))


def test_replicator_spiralling_into_a_corner_has_not_come_to_rest():
    # a constant-sum game whose dynamics spiral out to b's corner: there the other shares sit at the 1e-12
    # floor and even a strategy that gains grows by less than tol a step, so the loop stopped and called it
    # a rest point, with a gaining +13.9% against it; its symmetric equilibrium is interior
    A = np.array([[0.5, 0.639, 0.019], [0.361, 0.5, 0.92], [0.981, 0.08, 0.5]])
    t = gt.matrix_table(A)
    settled: list = []
    x = gt.replicator(t, 3, 2, settled=settled)
    reg, _ = gt.regrets(t, 3, 2, x)
    assert reg.max() > 0.1 and settled == [False]
    eq, _, _ = gt.zero_sum_nash(A - A.T)
    assert np.allclose(eq, [0.404, 0.463, 0.134], atol=0.002) and gt.regrets(t, 3, 2, eq)[0].max() < 1e-9


def test_alpharank_refuses_a_population_smaller_than_a_table():
    # with fewer agents than seats the tablemates cannot be drawn: every fitness read 0 and the ranking was
    # uniform whatever the payoffs
    import pytest

    t = {L: {i: (1.0 if i == 0 else 0.0) / L.count(i) if 0 in L else 1.0 / 3 for i in set(L)}
         for L in gt.lineups(3, 3)}
    assert gt.alpharank(t, 3, 3, m=3)[0] > 0.99
    with pytest.raises(ValueError, match="cannot seat a table of 3 players"):
        gt.alpharank(t, 3, 3, m=2)


def test_symmetric_nash_is_the_linear_programs_equilibrium_for_two_players():
    # random constant-sum win-share matrices: a generic one has a single symmetric equilibrium, the maximin
    # strategy of A - A.T, which the search of supports must find first (from the uniform mix)
    rng = np.random.default_rng(3)
    for _ in range(12):
        K = int(rng.integers(2, 6))
        U = np.triu(rng.random((K, K)), 1)
        A = U + np.tril(1 - U.T, -1) + 0.5 * np.eye(K)
        x, _, _ = gt.zero_sum_nash(A - A.T)
        eqs = gt.symmetric_nash(gt.matrix_table(A), K, 2)
        assert len(eqs) == 1 and np.abs(eqs[0] - x).max() < 1e-7, (A, x, eqs)


def test_symmetric_nash_of_three_players_with_a_mixed_equilibrium():
    # three players choose a or b; a player alone on its choice wins (1), else the two or three alike share
    # what is left: a field of p a's makes a and b equal at p = 1/2, the one symmetric equilibrium
    t = {(0, 0, 0): {0: 1 / 3}, (1, 1, 1): {1: 1 / 3}, (0, 0, 1): {0: 0.0, 1: 1.0}, (0, 1, 1): {0: 1.0, 1: 0.0}}
    eqs = gt.symmetric_nash(t, 2, 3)
    assert len(eqs) == 1 and np.allclose(eqs[0], [0.5, 0.5], atol=1e-9)
    # and replicator dynamics, which come to rest there, agree
    settled: list = []
    assert np.allclose(gt.replicator(t, 2, 3, settled=settled), [0.5, 0.5], atol=1e-6) and settled == [True]


def test_symmetric_nash_returns_only_equilibria():
    # arbitrary (not constant-sum) payoffs of 3 and 4 players: every mixture returned is verified, none twice
    rng = np.random.default_rng(5)
    for K, P in ((3, 3), (4, 3), (3, 4)):
        t = {L: {i: float(rng.random()) for i in set(L)} for L in gt.lineups(K, P)}
        eqs = gt.symmetric_nash(t, K, P)
        assert eqs
        for x in eqs:
            assert x.min() >= 0 and abs(x.sum() - 1) < 1e-12 and gt.regrets(t, K, P, x)[0].max() < 1e-9
        for a in range(len(eqs)):
            for b in range(a):
                assert np.abs(eqs[a] - eqs[b]).max() > 1e-6
    # every strategy alike: every mixture is an equilibrium, one set of them (it was counted as 28
    # distinct equilibria, one per start)
    alike = {L: {i: 1 / 3 for i in set(L)} for L in gt.lineups(3, 3)}
    sets: list = []
    eqs = gt.symmetric_nash(alike, 3, 3, sets=sets)
    assert len(eqs) == 1 and sets == [True] and gt.regrets(alike, 3, 3, eqs[0])[0].max() < 1e-9
    # two members that play alike beside one that loses to both: every mix of the two, one set
    A = np.array([[0.5, 0.5, 0.7], [0.5, 0.5, 0.7], [0.3, 0.3, 0.5]])
    sets = []
    eqs = gt.symmetric_nash(gt.matrix_table(A), 3, 2, sets=sets)
    assert len(eqs) == 1 and sets == [True] and eqs[0][2] == 0.0
    # a single strict equilibrium is no set
    sets = []
    eqs = gt.symmetric_nash(gt.matrix_table(np.array([[0.5, 0.3], [0.7, 0.5]])), 2, 2, sets=sets)
    assert len(eqs) == 1 and sets == [False] and np.allclose(eqs[0], [0.0, 1.0])


def test_symmetric_nash_tries_further_where_its_starts_stall():
    # a random 4-player table of 6 strategies where SLSQP stalled on a wrong support from every default
    # start (a Nash gap of 1e-6) and the search found none; the replicator dynamics' end point finds it
    import json
    import os

    raw = json.load(open(os.path.join(os.path.dirname(__file__), "data", "nash_stalled_table.json")))
    t = {tuple(L): {int(i): v for i, v in d.items()} for L, d in raw}
    K, P = 6, 4
    defaults = [np.full(K, 1.0 / K)] + list(np.eye(K)) + list(np.random.default_rng(0).dirichlet(np.ones(K), 24))
    assert gt.symmetric_nash(t, K, P, starts=defaults) == []
    eqs = gt.symmetric_nash(t, K, P)
    assert eqs and all(gt.regrets(t, K, P, x)[0].max() < 1e-9 for x in eqs)


def test_a_resample_follows_the_same_equilibrium():
    # rock-paper-scissors with a small tilt has one interior equilibrium; a slightly different table (a
    # bootstrap resample) moves it a little: nash_near solves the same support again and stays with it
    A = 0.5 + RPS / 2 + np.array([[0.0, 0.02, 0.0], [-0.02, 0.0, 0.01], [0.0, -0.01, 0.0]])
    x = gt.symmetric_nash(gt.matrix_table(A), 3, 2)[0]
    B = A + np.array([[0.0, 0.01, -0.01], [-0.01, 0.0, 0.0], [0.01, 0.0, 0.0]])
    y = gt.nash_near(gt.matrix_table(B), 3, 2, x)
    lp, _, _ = gt.zero_sum_nash(B - B.T)
    assert (y > 0).all() and np.abs(y - x).max() < 0.05 and np.allclose(y, lp, atol=1e-7)


def test_alike_groups_are_the_members_with_equal_rows():
    # members 0 and 2 win alike against every member, 1 and 3 too; 4 is alone
    A = np.array([[0.5, 0.7, 0.5, 0.7, 0.2],
                  [0.3, 0.5, 0.3, 0.5, 0.9],
                  [0.5, 0.7, 0.5, 0.7, 0.2],
                  [0.3, 0.5, 0.3, 0.5, 0.9],
                  [0.8, 0.1, 0.8, 0.1, 0.5]])
    M = A - A.T
    assert gt.alike_groups(M) == [[0, 2], [1, 3]]
    assert gt.alike_groups(-M) == [[0, 2], [1, 3]]   # -0.0 and 0.0 alike
    assert gt.alike_groups(RPS) == []
    # a member's row equal to another's but for the entry between them is not alike
    B = np.array([[0.0, 0.1], [-0.1, 0.0]])
    assert gt.alike_groups(B) == []


def test_seatings_are_the_orders_round_the_table_weighted_as_a_random_seating():
    assert gt.seatings((0, 1)) == [((0, 1), 2)]
    assert gt.seatings((0, 0, 1)) == [((0, 0, 1), 3)]
    assert gt.seatings((0, 1, 2)) == [((0, 1, 2), 3), ((0, 2, 1), 3)]
    assert gt.seatings((0, 0, 1, 1)) == [((0, 0, 1, 1), 4), ((0, 1, 0, 1), 2)]
    assert gt.seatings((1, 1, 1)) == [((1, 1, 1), 1)]
    import itertools
    import math
    for L in [(0, 1, 2, 3), (0, 0, 1, 2), (0, 1, 2, 3, 4), (0, 0, 1, 1, 2)]:
        s = gt.seatings(L)
        assert s[0][0] == L
        # every distinct order of the players once: the weights add up to the multinomial count
        assert sum(n for _, n in s) == len(set(itertools.permutations(L)))
        rotations = {o[r:] + o[:r] for o, _ in s for r in range(len(L))}
        assert rotations == set(itertools.permutations(L))
    assert len(gt.seatings((0, 1, 2, 3, 4))) == math.factorial(4)


def test_seating_count_is_the_number_of_orders_a_meta_game_plays():
    for K in range(1, 7):
        for P in range(1, 6):
            assert gt.seating_count(K, P) == sum(len(gt.seatings(L)) for L in gt.lineups(K, P)), (K, P)
    assert gt.seating_count(6, 4) == 336 and gt.seating_count(10, 5) == 20_008
