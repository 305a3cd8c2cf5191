"""The engine and the plain-Python oracle agree statistically for the reference policies.

Each figure (win share per seat, mean turns, elimination rate per seat, nobody eliminated, mean winning
pile) must lie within the 99% confidence interval of the difference of two independent means.
"""
import numpy as np
import pytest

from simcore.runner import simulate
from strategies.registry import lineup
from tests.oracles.senshi import play_games

Z99 = 2.5758


def _diff_ok(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return abs(a.mean() - b.mean()) <= Z99 * se + 1e-12, a.mean(), b.mean(), se


CASES = [(p, pol, False) for p in (2, 3, 4) for pol in ("random", "greedy")] + [(3, "random", True)]


@pytest.mark.parametrize("players,policy,secret", CASES)
def test_engine_matches_oracle(players, policy, secret):
    n = 2500
    ora = play_games(n, players, policy, seed=17 + players, secret_hand=secret)
    res = simulate("senshi", lineup("senshi", [policy], players), players=players, n_games=n, seed=29 + players,
                   rules={"secret_hand": secret}, keep_games=True)
    g = res.games().sort(["game", "seat"])
    col = lambda k: g[k].to_numpy().reshape(n, players)
    figures = {
        "turns": ([r["turns"] for r in ora], col("turns")[:, 0]),
        "nobody_eliminated": ([r["nobody_eliminated"] for r in ora], col("nobody_eliminated")[:, 0]),
        "winning_pile": ([r["winning_pile"] for r in ora], col("max_pile")[col("win") == 1]),
    }
    for s in range(players):
        figures[f"win{s}"] = ([r["win"][s] for r in ora], col("win")[:, s])
        figures[f"elim{s}"] = ([r["eliminated"][s] for r in ora], col("eliminated")[:, s])
    bad = []
    for name, (a, b) in figures.items():
        ok, ma, mb, se = _diff_ok(a, b)
        if not ok:
            bad.append(f"{name}: oracle {ma:.4f} engine {mb:.4f} (se {se:.4f})")
    assert not bad, "; ".join(bad)


def test_oracle_conserves_tiles_and_secret_hand():
    for players in (2, 3, 4):
        for policy in ("random", "greedy"):
            res = play_games(30, players, policy, seed=1, secret_hand=True, check=True)
            assert all(sum(r["win"]) == 1 for r in res)
