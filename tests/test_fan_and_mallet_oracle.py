"""The vectorized Fan & Mallet engine against the plain-Python oracle (tests/oracles/fan_and_mallet.py): the
statistics of the reference policies agree within their confidence intervals."""
import numpy as np
import pytest

from simcore.games.fan_and_mallet import FanAndMallet, FanAndMalletRules
from simcore.rng import root_key
from strategies.registry import lineup
from tests.oracles.fan_and_mallet import play_games

Z99 = 2.576  # two-sided 99%: every figure's difference must lie within its 99% interval


def figures_oracle(res):
    return {
        "white_win": np.array([r["winner"] == 0 for r in res], dtype=float),
        "turns": np.array([r["turns"] for r in res], dtype=float),
        "houses": np.array([r["houses"] / r["games"] for r in res], dtype=float),
        "first_white": np.array([r["first_white"] / r["games"] for r in res], dtype=float),
        "first_winner_won": np.array([r["first_winner_won"] / r["games"] for r in res], dtype=float),
        "ties": np.array([r["ties"] / r["games"] for r in res], dtype=float),
        "games": np.array([r["games"] for r in res], dtype=float),
    }


def figures_engine(out):
    g = out["games_played"].astype(float)
    return {
        "white_win": out["win"][:, 0],
        "turns": out["turns"].astype(float),
        "houses": out["houses_possessed"] / g,
        "first_white": out["first_white"] / g,
        "first_winner_won": out["first_winner_won"] / g,
        "ties": out["ties"] / g,
        "games": g,
    }


def compare(specs, n_oracle, n_engine, z=Z99, **rules):
    ref = figures_oracle(play_games(n_oracle, 5, tuple(specs), **rules))
    eng = figures_engine(FanAndMallet().play(np.arange(n_engine), 2, FanAndMalletRules(**rules),
                                             lineup("fan-and-mallet", list(specs), 2), root_key(5)))
    zs = {}
    for k in ref:
        x, y = ref[k], eng[k]
        se = np.sqrt(x.var(ddof=1) / len(x) + y.var(ddof=1) / len(y))
        zs[k] = 0.0 if se == 0 and x.mean() == y.mean() else abs(x.mean() - y.mean()) / max(se, 1e-12)
    return zs, ref, eng


@pytest.mark.parametrize("specs", [("random", "random"), ("strongest", "strongest"), ("strongest", "random")])
def test_reference_policies_match_the_oracle(specs):
    zs, ref, eng = compare(specs, 3000, 6000)
    bad = {k: v for k, v in zs.items() if v > Z99}
    # nine figures at 99% each: allow none outside, with a margin for the multiple comparisons
    assert all(v < 3.5 for v in zs.values()), (zs, {k: (ref[k].mean(), eng[k].mean()) for k in bad})


def test_options_match_the_oracle():
    zs, _, _ = compare(("random", "strongest"), 2000, 4000, start_positions=(0, 1))
    assert all(v < 3.5 for v in zs.values()), zs
    zs, _, _ = compare(("strongest", "random"), 600, 1200, match_points=12)
    assert all(v < 3.5 for v in zs.values()), zs


@pytest.mark.parametrize("mutation", ["no_bonuses", "ties_to_white"])
def test_comparison_detects_a_rule_change(monkeypatch, mutation):
    """The comparison is sharp enough to see kid ghosts without abilities, or ties given to White."""
    import tests.oracles.fan_and_mallet as oracle
    powers, possess = oracle.follower_powers, oracle.possess
    if mutation == "no_bonuses":
        monkeypatch.setattr(oracle, "follower_powers", lambda st: ([c[2] for c in st], [0] * len(st)))
    else:
        monkeypatch.setattr(oracle, "possess", lambda st, hf: ((0, True) if possess(st, hf)[1] else possess(st, hf)))
    zs, _, _ = compare(("random", "random"), 3000, 6000)
    assert max(zs.values()) > 5.0, zs
    assert powers is not None
