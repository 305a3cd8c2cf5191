"""The vectorized Sen engine against the plain-Python oracle (tests/oracles/sen.py): the statistics of the
reference policies must agree within their confidence intervals."""
import numpy as np
import pytest

from simcore.games.sen import Sen, SenRules
from simcore.rng import root_key
from strategies.registry import lineup
from tests.oracles.sen import play_games

FIELDS = ["turns", "rounds", "called", "caller_ok", "dream_sum", "lead_changes"]


def compare(players, specs, n_oracle, n_engine, z_max=4.0, **rules):
    ref = play_games(n_oracle, 17, players, specs, **rules)
    eng = Sen().play(np.arange(n_engine), players, SenRules(**rules), lineup("sen", specs, players), root_key(17))
    a = {k: np.array([r[k] for r in ref], dtype=float) for k in FIELDS}
    a["win"] = np.array([r["win"] for r in ref])
    a["score"] = np.array([r["score"] for r in ref], dtype=float)
    worst = []
    for k in FIELDS + ["win", "score"]:
        x = a[k]
        y = np.asarray(eng[k], dtype=float)
        se = np.sqrt(x.var(0, ddof=1) / len(x) + y.var(0, ddof=1) / len(y))
        z = np.abs(x.mean(0) - y.mean(0)) / np.maximum(se, 1e-12)
        worst.append((float(np.max(z)), k))
        assert np.all(z < z_max), f"{k}: oracle {x.mean(0)} vs engine {y.mean(0)} (z={z})"
    return max(worst)


@pytest.mark.parametrize("players", [2, 4, 5])
def test_threshold_matches_oracle(players):
    compare(players, ["threshold"], 1500, 6000)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_random_matches_oracle(players):
    compare(players, ["random"], 3000, 6000)


def test_variants_match_oracle():
    compare(4, ["threshold:wake=12", "random:p_wake=0.05", "threshold:wake=8", "threshold"], 1500, 6000,
            penalty=15, ravens_not_scary=True, go_all_in=True, caller_tie="count")
    compare(3, ["random:p_wake=0.3"], 3000, 6000, rounds=1, go_all_in=True)


def test_oracle_comparison_detects_a_rule_change():
    """The comparison is sharp enough to see a wrong penalty."""
    ref = play_games(1500, 17, 4, ["threshold"], penalty=5)
    eng = Sen().play(np.arange(6000), 4, SenRules(penalty=15), lineup("sen", ["threshold"], 4), root_key(17))
    x = np.array([r["score"] for r in ref], dtype=float).mean(1)
    y = eng["score"].mean(1)
    se = np.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))
    assert abs(x.mean() - y.mean()) / se > 4.0
