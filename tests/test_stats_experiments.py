"""Statistics added for experiments: intervals from per-game values, paired differences, SPRT, ratings."""
import re
import math

import numpy as np
import polars as pl
import pytest
from scipy import stats as st

from simcore.stats import (ELO_PER_LOGIT, bradley_terry, paired_diff, sprt_bounds, sprt_decide, sprt_llr,
                           values_ci)


def test_values_ci_matches_t_interval():
    x = np.array([1.0, 2.0, 4.0, 7.0, 11.0])
    mean, lo, hi = values_ci(x)
    se = x.std(ddof=1) / math.sqrt(len(x))
    t = st.t.ppf(0.975, len(x) - 1)
    assert mean == pytest.approx(5.0)
    assert lo == pytest.approx(5.0 - t * se) and hi == pytest.approx(5.0 + t * se)
    assert values_ci([3.0, 3.0, 3.0]) == (3.0, 3.0, 3.0)
    assert math.isnan(values_ci([1.0])[1])


def test_paired_difference_removes_shared_noise():
    rng = np.random.default_rng(1)
    luck = rng.normal(0, 5, 2000)            # what both cells share (the deal)
    a = luck + 0.3 + rng.normal(0, 0.2, 2000)
    b = luck + rng.normal(0, 0.2, 2000)
    d = paired_diff(a, b)
    assert d["lo"] < 0.3 < d["hi"]
    assert d["hi"] - d["lo"] < 0.05          # an unpaired interval would be about 0.6 wide
    assert d["rho"] > 0.99 and d["p_value"] < 1e-10 and d["n"] == 2000
    same = paired_diff(b, b)
    assert same["diff"] == 0 and same["p_value"] == 1.0
    with pytest.raises(ValueError):
        paired_diff([1, 2], [1, 2, 3])


def test_sprt_bounds_and_decisions():
    lo, hi = sprt_bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.95)) and hi == pytest.approx(math.log(0.95 / 0.05))
    rng = np.random.default_rng(2)
    better = (rng.random(4000) < 0.56).astype(float) - 0.5   # true advantage 0.06
    equal = (rng.random(4000) < 0.50).astype(float) - 0.5    # no advantage
    llr_b = sprt_llr(better.sum(), (better ** 2).sum(), len(better), 0.0, 0.03)
    llr_e = sprt_llr(equal.sum(), (equal ** 2).sum(), len(equal), 0.0, 0.03)
    assert sprt_decide(llr_b) == "H1" and sprt_decide(llr_e) == "H0"
    assert sprt_decide(0.0) == "continue"
    with pytest.raises(ValueError):
        sprt_bounds(0.0, 0.1)
    # values all equal: no variance to weigh them by, so the least the hypotheses allow, where given (a focus
    # that won every game of 50 deals, 2 games each against a fair 50%, read "undecided": the LLR was 0)
    won = np.full(50, 0.5)
    assert sprt_llr(won.sum(), (won ** 2).sum(), 50, 0.0, 0.02) == 0.0
    llr = sprt_llr(won.sum(), (won ** 2).sum(), 50, 0.0, 0.02, var_floor=0.25 / 2)
    assert llr == pytest.approx(0.02 * (25.0 - 50 * 0.01) / 0.125) and sprt_decide(llr) == "H1"
    # the field's own games: nearer +0% than +2%
    assert sprt_decide(sprt_llr(0.0, 0.0, 3000, 0.0, 0.02, var_floor=0.125)) == "H0"
    assert sprt_llr(won.sum(), (won ** 2).sum(), 19, 0.0, 0.02, var_floor=0.125) == 0.0  # not before 20 deals


def test_an_sprt_of_a_focus_that_wins_every_game_decides():
    from experiments import run_experiment

    res = run_experiment({"title": "t", "question": "q", "game": "senshi", "players": 2, "games": 50, "seed": 33,
                          "lineup": {"focus": "guard", "field": "random"},
                          "sprt": {"h0": 0.0, "h1": 0.02, "max_games": 50}, "report": {"answer": "sprt"}})
    assert res.answer[0].startswith("guard against random: better: the test prefers an advantage of +2.0% over the "
                                    "fair share to one of +0.0%"), res.answer[0]
    assert "win share 100.0% [" in res.answer[0]


# synthetic counts fit the model exactly, which statsmodels reports as "perfect prediction": a warning of
# the library's that the ratings keep to themselves (it printed two lines after a run)
@pytest.mark.filterwarnings("error::statsmodels.tools.sm_exceptions.PerfectSeparationWarning")
def test_bradley_terry_recovers_strengths_two_players():
    # true strengths in logits: a 0, b +0.5, c -0.4; many games per pair
    t = {"a": 0.0, "b": 0.5, "c": -0.4}
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    n = 20000
    wa = [n / (1 + math.exp(t[y] - t[x])) for x, y in pairs]
    res = bradley_terry(["a", "b", "c"], [p[0] for p in pairs], [p[1] for p in pairs], wa, [n - w for w in wa],
                        prior=0.0)
    assert res["a"] == (0.0, 0.0, 0.0)
    for name in ("b", "c"):
        elo, lo, hi = res[name]
        assert elo == pytest.approx(t[name] * ELO_PER_LOGIT, abs=1e-6)
        assert lo < elo < hi


@pytest.mark.filterwarnings("error::statsmodels.tools.sm_exceptions.PerfectSeparationWarning")
def test_bradley_terry_multiplayer_offset():
    # one a against three b of equal strength wins a quarter of the games: equal ratings
    res = bradley_terry(["a", "b"], ["a", "b"], ["b", "a"], [2500, 2500], [7500, 7500], [3, 3], prior=0.0)
    elo, lo, hi = res["b"]
    assert elo == pytest.approx(0.0, abs=1e-6) and lo < 0 < hi


def test_bradley_terry_stays_finite_when_one_side_wins_everything():
    res = bradley_terry(["a", "b"], ["a"], ["b"], [0.0], [200.0])
    elo, lo, hi = res["b"]
    assert math.isfinite(elo) and 0 < lo < elo < hi < 2000


def test_cell_intervals_are_over_deals_where_the_games_of_a_deal_are_several():
    # a rotated focus plays each deal once per seat: its games are not independent, so the game length's
    # and seat 0's intervals come from the per-deal means (the estimate itself stays exact): the t interval
    # for the game length, Wilson's with the deals' effective number of games for seat 0's share
    import polars as pl

    from experiments import load_config, run_experiment
    from experiments.engine import SMALL_VECTORS, needs_vectors
    from simcore.stats import deal_share_interval, values_ci
    raw = {"title": "t", "question": "q", "game": "sen", "players": 4, "games": 60, "seed": 5,
           "lineup": {"focus": "threshold:wake=8", "field": "threshold"},
           "report": {"answer": "summary", "per_game": True}}
    res = run_experiment(raw)
    row = res.cells.row(0, named=True)
    assert row["games"] == 4 * 60
    games = res.tables["games"].filter(pl.col("seat") == 0)
    per_deal = games.group_by("game").agg(pl.col("turns").mean(), pl.col("win").mean()).sort("game")
    _, lo, hi = values_ci(per_deal["turns"].to_numpy())
    assert (row["turns_hi"] - row["turns_lo"]) / 2 == pytest.approx((hi - lo) / 2, rel=1e-4)
    assert row["turns_lo"] < row["mean_turns"] < row["turns_hi"]
    share = row["seat0_win_share"]
    assert share == pytest.approx(per_deal["win"].mean())
    assert (row["seat0_win_lo"], row["seat0_win_hi"]) == pytest.approx(deal_share_interval(share, per_deal["win"].to_numpy()))
    assert row["seat0_win_lo"] < share < row["seat0_win_hi"]
    # a summary of more deals than SMALL_VECTORS keeps flat memory: its intervals are over games
    assert needs_vectors(load_config(raw))
    assert not needs_vectors(load_config({**raw, "games": SMALL_VECTORS + 1, "report": {"answer": "summary"}}))


def test_self_play_focus_intervals_are_over_deals_not_over_its_seats():
    """A self-play cell plays each deal once, but its focus holds every seat of it: its score's interval is
    the t interval of the per-deal means of its seats (not a t interval over P x deals seat-games), and
    its win share is the fair share by symmetry (no interval), also with games cut at the turn limit, where
    the fair share is the average seat's."""
    from experiments import run_experiment
    from simcore.stats import values_ci

    for game, players, strategy, rules in (("sen", 4, "threshold", {}), ("sensu", 4, "random", {"max_turns": 200})):
        res = run_experiment({"title": "t", "question": "q", "game": game, "players": players, "games": 120,
                              "seed": 9, "rules": rules, "lineup": {"focus": strategy, "field": strategy},
                              "report": {"answer": "summary", "per_game": True}})
        row = res.cells.row(0, named=True)
        assert row["games"] == row["deals"] == 120 and row["focus_games"] == players * 120
        per_deal = res.tables["games"].group_by("game").agg(pl.col("score").mean(), pl.col("win").mean(),
                                                              pl.col("timeout").max()).sort("game")
        _, lo, hi = values_ci(per_deal["score"].to_numpy())
        assert (row["focus_score_hi"] - row["focus_score_lo"]) / 2 == pytest.approx((hi - lo) / 2, rel=1e-4), game
        if game == "sen":
            assert row["focus_win_lo"] == row["focus_win_hi"] == row["focus_win_share"] == 0.25
        else:
            # games cut at the turn limit have no winner: the fair share is the average seat's, which a focus in
            # every seat wins by symmetry, so its share keeps no interval there either
            assert per_deal["timeout"].sum() > 0
            assert row["focus_win_lo"] == row["focus_win_hi"] == row["focus_win_share"] == \
                pytest.approx(row["fair_share"]) and row["fair_share"] < 1 / players


def _match_ups(rng, deals, copies, luck_sd, t=None, k=3, shared=True):
    """Synthetic one-against-a-field match-ups of three strategies: per match-up and deal, the lone
    strategy's wins in ``copies`` games of the deal (each copy a rotation), with a deal's luck shared by its
    games and (``shared``) by every match-up. Returns names, a, b, per-game arrays (match-up, deal, win)."""
    t = t or {"a": 0.0, "b": 0.4, "c": -0.5}
    pairs = [(x, y) for x in t for y in t if x != y]
    luck = rng.normal(0.0, luck_sd, (1 if shared else len(pairs), deals))
    rows = []
    for i, (x, y) in enumerate(pairs):
        eta = t[x] - t[y] - math.log(k) + luck[0 if shared else i] * (1 if i % 2 else -1)
        p = 1.0 / (1.0 + np.exp(-eta))
        for c in range(copies):
            rows.append((np.full(deals, i), np.arange(deals), (rng.random(deals) < p).astype(float)))
    mu, deal, win = (np.concatenate(z) for z in zip(*rows))
    return list(t), [p[0] for p in pairs], [p[1] for p in pairs], mu, deal, win


def _fit(names, a, b, mu, deal, win, k=3, clustered=True, prior=0.5):
    m, G = len(a), int(deal.max()) + 1
    dw = np.zeros((m, G))
    dn = np.zeros((m, G))
    np.add.at(dw, (mu, deal), win)
    np.add.at(dn, (mu, deal), 1.0)
    wa, n = dw.sum(1), dn.sum(1)
    kw = {"deal_wins_a": dw, "deal_games": dn} if clustered else {}
    return bradley_terry(names, a, b, wa, n - wa, [k] * m, prior=prior, **kw)


def _half(res, name):
    return (res[name][2] - res[name][1]) / 2


def test_bradley_terry_clustered_equals_statsmodels_cluster_robust():
    # one row per game, deals as groups: statsmodels' CRV1 (its factor (N - 1) / (N - K) taken out)
    import statsmodels.api as sm
    rng = np.random.default_rng(7)
    names, a, b, mu, deal, win = _match_ups(rng, deals=80, copies=4, luck_sd=1.0)
    X = np.zeros((len(a), 3))
    for i, (x, y) in enumerate(zip(a, b)):
        X[i, names.index(x)] += 1.0
        X[i, names.index(y)] -= 1.0
    X = X[mu, 1:]
    sm_res = sm.GLM(win, X, family=sm.families.Binomial(), offset=np.full(len(win), -math.log(3))).fit(
        cov_type="cluster", cov_kwds={"groups": deal})
    N, K = len(win), X.shape[1]
    se = np.sqrt(np.diag(sm_res.cov_params()) * (N - K) / (N - 1))
    ours = _fit(names, a, b, mu, deal, win, prior=0.0)
    for j, name in enumerate(names[1:]):
        assert ours[name][0] == pytest.approx(sm_res.params[j] * ELO_PER_LOGIT, rel=1e-7)
        assert _half(ours, name) == pytest.approx(1.959963984540054 * se[j] * ELO_PER_LOGIT, rel=1e-7)
    # the estimates are the aggregated fit's, with or without the clustering and its prior
    wald = _fit(names, a, b, mu, deal, win, clustered=False)
    clustered = _fit(names, a, b, mu, deal, win)
    for name in names:
        assert clustered[name][0] == wald[name][0]


def test_bradley_terry_clustered_is_wald_where_deals_are_independent_games():
    # each deal played once per match-up, no luck shared between games: the sandwich agrees with the model
    rng = np.random.default_rng(8)
    names, a, b, mu, deal, win = _match_ups(rng, deals=4000, copies=1, luck_sd=0.0)
    clustered = _fit(names, a, b, mu, deal, win)
    wald = _fit(names, a, b, mu, deal, win, clustered=False)
    for name in names[1:]:
        assert _half(clustered, name) == pytest.approx(_half(wald, name), rel=0.05)


def test_bradley_terry_clustered_widens_for_duplicated_deals():
    # every deal's result copied to four games (as if four rotations always played alike): four times the
    # games, no more information. The Wald intervals halve; the clustered ones stay as wide as one copy's.
    rng = np.random.default_rng(9)
    names, a, b, mu, deal, win = _match_ups(rng, deals=3000, copies=1, luck_sd=0.0)
    once = _fit(names, a, b, mu, deal, win)
    four = [np.tile(z, 4) for z in (mu, deal, win)]
    copied = _fit(names, a, b, *four)
    copied_wald = _fit(names, a, b, *four, clustered=False)
    for name in names[1:]:
        assert copied[name][0] == pytest.approx(once[name][0], rel=1e-3)
        assert _half(copied, name) == pytest.approx(_half(once, name), rel=0.01)
        assert _half(copied_wald, name) == pytest.approx(_half(once, name) / 2, rel=0.05)


def test_ratings_table_clusters_over_the_deals_of_the_games_played():
    # the ratings' intervals from the run's per-deal values are those of the deals as the games show them
    # (the lone strategy sits in seat r in rotation r); without per-deal values, Wald intervals over games
    import polars as pl

    from experiments import load_config, run_experiment
    from experiments.analysis import ratings_table
    raw = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 40, "seed": 4,
           "lineup": {"tournament": ["threshold", "random", "counter"]}, "report": {"per_game": True}}
    res = run_experiment(raw)
    cells, games = res.cells, res.tables["games"]
    assert int(cells["timeouts"].sum()) == 0
    lone = games.filter(pl.col("seat") == pl.col("rotation"))
    dw = np.zeros((cells.height, 40))
    for i, c in enumerate(cells["cell"].to_list()):
        per = lone.filter(pl.col("cell") == c).group_by("game").agg(pl.col("win").sum()).sort("game")
        dw[i, per["game"].to_numpy()] = per["win"].to_numpy()
    wa = (cells["focus_win_share"] * cells["focus_games"]).to_numpy()
    wb = (cells["field_win_share"] * cells["focus_games"] * 2).to_numpy()
    assert dw.sum(1) == pytest.approx(wa)
    names = ["threshold", "random", "counter"]
    args = (names, cells["a"].to_list(), cells["b"].to_list(), wa, wb, [2] * cells.height)
    want = bradley_terry(*args, deal_wins_a=dw, deal_games=np.full(dw.shape, 3.0))
    wald = bradley_terry(*args)
    table = res.ratings
    assert set(table["interval"]) == {"clustered over deals"}
    cfg = load_config(raw)
    for row in table.iter_rows(named=True):
        assert (row["elo"], row["elo_lo"], row["elo_hi"]) == pytest.approx(want[row["strategy"]], rel=1e-6)
    plain = ratings_table(cfg, cells)
    assert set(plain["interval"]) == {"Wald over games"}
    for row in plain.iter_rows(named=True):
        assert (row["elo"], row["elo_lo"], row["elo_hi"]) == pytest.approx(wald[row["strategy"]], rel=1e-9)
    for name in names[1:]:  # (the two differ: the test tells them apart)
        assert _half(want, name) != pytest.approx(_half(wald, name), rel=1e-3)


def test_bradley_terry_lopsided_match_ups_count_each_deal_as_one_unit():
    # a strategy that won no game: its deal scores are all alike, and a sandwich would shrink its interval
    # to almost nothing; its match-ups keep their model variance instead, a deal's games as one unit
    rng = np.random.default_rng(10)
    names, a, b, mu, deal, win = _match_ups(rng, deals=60, copies=2, luck_sd=1.0)
    lone_c = np.array([a[i] == "c" for i in mu])
    field_c = np.array([b[i] == "c" for i in mu])
    win = np.where(lone_c, 0.0, np.where(field_c, 1.0, win))
    clustered = _fit(names, a, b, mu, deal, win)
    wald = _fit(names, a, b, mu, deal, win, clustered=False)
    assert _half(clustered, "c") > 0.8 * _half(wald, "c")
    # with every match-up lopsided (the lone strategy of a against b, and of b against a, never wins
    # either), the intervals are the Wald ones with every deal's 2 games as one unit: sqrt(2) as wide (as
    # independent games, the rare wins of a weak side, which come in the same deals, read too sure)
    win = np.where(lone_c | field_c, win, 0.0)
    clustered = _fit(names, a, b, mu, deal, win)
    wald = _fit(names, a, b, mu, deal, win, clustered=False)
    for name in names[1:]:
        assert clustered[name][0] == pytest.approx(wald[name][0], rel=1e-9)
        assert _half(clustered, name) == pytest.approx(math.sqrt(2) * _half(wald, name), rel=1e-6)


def test_bradley_terry_lopsided_intervals_cover_where_a_deals_games_share_its_luck():
    """Simulated 2-player round robins (Elo 0, 100, 800; 300 deals, each in both seat orders, a deal's
    chances drawn around the model's with a within-deal correlation of 0.5): the strongest strategy's
    rating, whose match-up against the weakest is lopsided, was covered in about 85% of runs with that
    match-up's games counted as independent; with each deal as one unit, 92-93%."""
    from scipy import stats as st

    rng = np.random.default_rng(99)
    elos = [0.0, 100.0, 800.0]
    names = ["s0", "s1", "s2"]
    pairs = [(0, 1), (0, 2), (1, 2)]
    t = np.array(elos) / ELO_PER_LOGIT
    p = np.array([1 / (1 + math.exp(-(t[i] - t[j]))) for i, j in pairs])
    s = 1.0  # (1 - icc) / icc for icc 0.5
    hits, runs = 0, 300
    for _ in range(runs):
        u = rng.random(300)
        pd = np.stack([st.beta.ppf(u, q * s, (1 - q) * s) for q in p])
        wins = rng.binomial(2, pd).astype(float)
        res = bradley_terry(names, [names[i] for i, _ in pairs], [names[j] for _, j in pairs], wins.sum(1),
                            600 - wins.sum(1), [1] * 3, deal_wins_a=wins, deal_games=np.full_like(wins, 2.0))
        _, lo, hi = res["s2"]
        hits += lo <= 800.0 <= hi
    assert hits / runs > 0.89, hits / runs   # (binomial error about 1.5 points)


def test_a_share_alike_on_every_deal_keeps_its_interval_over_games():
    """Over deals, a focus that wins no game has per-deal shares all 0: their spread says nothing of its
    chance to win, so its Wilson interval over games stands, never the zero-width [0, 0]."""
    from experiments import run_experiment

    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 60, "seed": 2,
                          "lineup": {"tournament": ["random", "threshold", "counter"]}})
    never = res.cells.filter(pl.col("a") == "random")
    assert never.height == 2 and (never["focus_win_share"] == 0).all()
    assert (never["focus_win_lo"] == 0).all() and (never["focus_win_hi"] > 0.02).all()
    other = res.cells.filter(pl.col("a") == "threshold")
    assert 0 < other["focus_win_lo"][0] < other["focus_win_share"][0] < other["focus_win_hi"][0]


def test_effect_and_balance_give_a_share_alike_on_every_deal_its_interval_over_deals_as_summary_does():
    """A focus that won none of 40 deals read "0.0% ± 0.0%" in effect (and seat 0's advantage, alike on every
    deal, "+0.0% ± 0.0%"), where summary gave Wilson's interval over the 80 games; balance's pairing whose
    seat 0 won exactly half of every deal read "50.0% ± 0.0%". Each now takes Wilson's over the 40 deals
    (over the games would count a deal's two rotations as independent)."""
    from experiments import run_experiment

    cfg = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 40, "seed": 2,
           "lineup": {"focus": "random", "field": "counter"}}
    summary = run_experiment({**cfg, "report": {"answer": "summary"}})
    effect = run_experiment({**cfg, "sweep": {"variant": {"base": {}, "rns": {"rules.ravens_not_scary": True}}},
                             "report": {"answer": "effect", "over": "variant", "baseline": "base"}})
    assert "win share 0.0% [0.0%, 8.8%]" in summary.answer[0] and "advantage +0.0% ± 14.8%" in summary.answer[0]
    base = next(t for t in effect.answer if t.startswith("variant base"))
    assert "focus win share 0.0% [0.0%, 8.8%]" in base and "first-seat advantage +0.0% ± 14.8%" in base, base
    bal = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 40, "seed": 2,
                          "lineup": {"seats": ["random", "counter"], "rotate": True},
                          "sweep": {"pairing": {"rc": {"seat0": "random", "seat1": "counter"},
                                                "rc8": {"seat0": "random", "seat1": "counter:wake=8"}}},
                          "report": {"answer": "balance", "over": "pairing", "per_game": True}})
    from simcore.stats import wilson as S_wilson
    est = bal.tables["estimates"].filter((pl.col("figure") == "seat0_win_share") & (pl.col("scope") == "cell"))
    rc = est.row(0, named=True)
    assert rc["value"] == 0.5 and (rc["lo"], rc["hi"]) == pytest.approx(tuple(map(float, S_wilson(20, 40)))), est  # over the 40 deals
    assert "± 0.0%" not in " ".join(bal.answer)
    adv = bal.tables["estimates"].filter((pl.col("figure") == "seat_advantage") & (pl.col("scope") == "group"))
    # alike on every deal (it read +0.0 [+0.0, +0.0]): seat 0's interval over the deals, less the fair share
    assert adv["value"][0] == 0.0 and adv["lo"][0] < 0.0 < adv["hi"][0], adv


def test_seat_advantage_is_over_the_average_seat_where_games_stop_at_the_turn_limit():
    """A game stopped at the turn limit has no winner, so every seat's share counts it as a loss: seat 0's
    advantage (and a fair share) is taken against the average seat's share, 1/P of the games that have a
    winner, per deal. Against 1/P a seat that wins more than the others read as a disadvantage."""
    from experiments import run_experiment
    from simcore.stats import values_ci
    base = {"title": "t", "question": "q", "game": "sensu", "players": 3, "games": 40, "seed": 13,
            "rules": {"max_turns": 160}, "lineup": {"seats": ["random", "random", "random"]},
            "report": {"answer": "summary", "per_game": True}}
    res = run_experiment(base)
    c = res.cells.row(0, named=True)
    P, n = 3, c["games"]
    assert 0 < c["timeouts"] < n
    decided = (n - c["timeouts"]) / n
    assert c["seat_advantage"] == pytest.approx(c["seat0_win_share"] - decided / P)
    assert c["seat_advantage"] > c["seat0_win_share"] - 1 / P + 0.05
    # its interval is over deals of seat 0's win less the deal's decided share / P
    g = res.tables["games"]
    per = g.group_by("game").agg((pl.col("win").filter(pl.col("seat") == 0).sum() - pl.col("win").sum() / P)
                                 .alias("adv")).sort("game")
    _, lo, hi = values_ci(per["adv"].to_numpy())
    assert c["seat_advantage_hi"] - c["seat_advantage_lo"] == pytest.approx(hi - lo, rel=1e-4)
    assert f"first-seat advantage {100 * c['seat_advantage']:+.1f}%" in res.answer[0]
    # where every game has a winner it is seat 0's share less 1/P, as before
    full = run_experiment({**base, "rules": {"max_turns": 1000}})
    c = full.cells.row(0, named=True)
    assert c["timeouts"] == 0 and c["seat_advantage"] == pytest.approx(c["seat0_win_share"] - 1 / P)


def test_a_solo_timeout_sentence_speaks_of_no_win_share():
    from experiments import run_experiment
    res = run_experiment({"title": "t", "question": "q", "game": "sensu", "players": 1, "games": 30,
                          "rules": {"max_turns": 20}, "lineup": {"seats": ["random"]}, "report": {"answer": "summary"}})
    assert res.answer[-1] == ("30 of 30 games (100.0%) stopped at the turn limit, so the figures above describe "
                              "games cut short.")


def test_effect_says_a_variant_alike_with_its_baseline_on_every_deal():
    """random and threshold never claim, so know_what_i_have changes none of their games: the answer says the figures are
    the same as the baseline's on every deal instead of "+0.0 [+0.0, +0.0]"; a variant that changes the
    games keeps its paired differences."""
    from experiments import run_experiment

    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 30, "seed": 4,
                          "lineup": {"focus": "random", "field": "threshold"},
                          "sweep": {"variant": {"base": {}, "kwih": {"rules.know_what_i_have": True},
                                                "rns": {"rules.ravens_not_scary": True}}},
                          "report": {"answer": "effect", "over": "variant", "baseline": "base"}})
    kwih = next(t for t in res.answer if t.startswith("variant kwih"))
    assert "game length, first-seat advantage and focus win share the same as base on every deal" in kwih, kwih
    assert "vs base" not in kwih
    rns = next(t for t in res.answer if t.startswith("variant rns"))
    assert re.search(r"game length [+-]\d+\.\d \[[^]]+\] vs base", rns) and "on every deal" not in rns, rns
    assert "variant kwih against base, on the same deals: game length, first-seat advantage and focus win share " \
        "the same on every deal." in res.headline, res.headline
    paired = res.tables["paired"].filter(pl.col("value") == "kwih")
    assert paired.height and (paired["diff"] == 0).all()  # the table keeps the rows, all zero


def test_balance_gives_pooled_metrics_over_self_play_and_mixed_cells_in_clear_words():
    """One self-play cell and one of two strategies: "in the 1 cell of ...", and the metrics, each now with
    a comma of its own, separated by semicolons."""
    from experiments import run_experiment

    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 20, "seed": 2,
                          "lineup": {"seats": ["random", "random"], "rotate": True},
                          "sweep": {"pairing": {"rr": {"seat0": "random", "seat1": "random"},
                                                "rt": {"seat0": "random", "seat1": "threshold"}}},
                          "report": {"answer": "balance", "over": "pairing", "per_game": True,
                                     "metrics": ["wake_rate", "caller_success"]}})
    text = next(s for s in res.answer if s.startswith("over every cell"))
    assert re.search(r"wake_rate [^;]*, [^;]* in the 1 cell of one strategy in every seat and [^;]* in the 1 cell of "
                     r"different strategies; caller_success ", text), text
    assert "1 cells" not in text


def test_effect_gives_the_game_length_over_the_finished_games_alone():
    """Games stopped at the turn limit count their turns up to it in the game length; where some stopped, the
    answer also gives the length over the finished games alone (a ratio over deals, its interval by the delta
    method) and its change against the baseline, as the per-game rows give them."""
    from experiments import run_experiment
    from simcore.stats import values_ci
    cfg = {"title": "t", "question": "q", "game": "sensu", "players": 3, "games": 60, "seed": 13,
           "lineup": {"seats": ["random", "random", "random"]},
           "sweep": {"variant": {"base": {}, "short": {"rules.max_turns": 160}}},
           "report": {"answer": "effect", "over": "variant", "baseline": "base", "per_game": True}}
    res = run_experiment(cfg)
    g = res.tables["games"].filter(pl.col("seat") == 0).sort(["cell", "game"])
    short = g.filter(pl.col("cell") == 1)
    base = g.filter(pl.col("cell") == 0)
    assert 0 < short["timeout"].sum() < short.height and base["timeout"].sum() == 0
    f = (~short["timeout"]).cast(pl.Float64).to_numpy()
    t = short["turns"].cast(pl.Float64).to_numpy()
    r = (t * f).sum() / f.sum()
    assert r == pytest.approx(short.filter(~pl.col("timeout"))["turns"].mean())
    z = (t * f - r * f) / f.mean()
    _, lo, hi = values_ci(z)
    line = next(s for s in res.answer if s.startswith("variant short"))
    rb = base["turns"].mean()
    _, dlo, dhi = values_ci(z - (base["turns"].to_numpy() - rb))
    assert (f"game length over the finished games alone {r:.1f} turns ± {(hi - lo) / 2:.1f}, "
            f"{r - rb:+.1f} [{r - rb + dlo:+.1f}, {r - rb + dhi:+.1f}] vs base") in line
    assert f"over the finished games alone, where some stopped, the change is {r - rb:+.1f} turns (clear)" \
        in res.headline[1]
    # no stopped game, no such figure
    assert "finished games alone" not in res.answer[0] and "finished games alone" not in res.headline[0]


def test_effect_gives_the_completion_interval_over_deals():
    """A deal's rotations share its cards, and may all stop at the turn limit: the completion's interval is
    over deals (it was Wilson's over the games, narrower: [13.1%, 27.1%] here against [11.8%, 29.6%])."""
    from experiments import run_experiment
    from simcore.stats import deal_share_interval, wilson
    cfg = {"title": "t", "question": "q", "game": "sensu", "players": 3, "games": 40, "seed": 13,
           "lineup": {"focus": "planner", "field": "random"},
           "sweep": {"variant": {"base": {}, "short": {"rules.max_turns": 70}}},
           "report": {"answer": "effect", "over": "variant", "baseline": "base", "per_game": True}}
    res = run_experiment(cfg)
    s = res.tables["games"].filter((pl.col("cell") == 1) & (pl.col("seat") == 0))
    assert s["rotation"].n_unique() == 3
    done = (~s["timeout"]).cast(pl.Float64)
    per_deal = s.with_columns(done.alias("f")).group_by("game").agg(pl.col("f").mean())["f"].to_numpy()
    x = float(done.mean())
    lo, hi = deal_share_interval(x, per_deal)
    wlo, whi = wilson(int(done.sum()), s.height)
    assert hi - lo > float(whi - wlo) + 0.01  # the two differ here
    line = next(t for t in res.answer if t.startswith("variant short"))
    assert f"completion {100 * x:.1f}% [{100 * lo:.1f}%, {100 * hi:.1f}%] ({s.height - int(done.sum())} of " in line


def test_a_summary_without_per_deal_values_says_its_intervals_are_over_games(monkeypatch):
    """Above SMALL_VECTORS deals in all no per-deal values are kept: the intervals are over games, too narrow
    where a deal's rotations share its cards, and the answer says so (it did not)."""
    from experiments import engine, run_experiment

    cfg = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 30, "seed": 3,
           "lineup": {"focus": "threshold:wake=8", "field": "threshold"}}
    kept = run_experiment(cfg)
    assert not any("These intervals are over games" in s for s in kept.answer)
    monkeypatch.setattr(engine, "SMALL_VECTORS", 10)
    res = run_experiment(cfg)
    assert res.answer[-1].startswith("These intervals are over games: a run of more than 10,000,000 deals")
