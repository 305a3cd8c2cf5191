"""The engine and the plain-Python oracle agree statistically for the reference policy ``random``."""
import numpy as np
import pytest

from simcore.runner import simulate
from strategies.sensu import Random
from tests.oracles.sensu import LEVELS, OracleRules, play_games

Z99 = 2.576


def engine_rows(players, n, rules, seed):
    from simcore.registry import get_game
    from simcore.rng import root_key
    eng = get_game("sensu")
    return eng.play(np.arange(n), players, eng.make_rules(rules), [Random()] * players, root_key(seed))


def close(name, a, b):
    """Means of samples a and b agree within the 99% interval of their difference."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    half = Z99 * np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    diff = a.mean() - b.mean()
    assert abs(diff) <= max(half, 1e-12), f"{name}: engine {a.mean():.4f} vs oracle {b.mean():.4f} (99% half {half:.4f})"


CASES = [
    (4, {}, 2000, 1200),
    (2, {}, 2000, 1200),
    (5, {"sticks": "B"}, 1200, 700),
    (4, {"powers": True}, 1500, 800),
    (3, {"chosen_fan": True}, 1500, 500),
]


@pytest.mark.parametrize("players,rules,n_eng,n_ora", CASES)
def test_multiplayer_statistics_agree(players, rules, n_eng, n_ora):
    e = engine_rows(players, n_eng, rules, 21)
    o = play_games(players, n_ora, OracleRules(**rules), seed=22)
    close("turns", e["turns"], [r["turns"] for r in o])
    close("timeouts", e["timeout"], [r["timeout"] for r in o])
    close("plays", e["plays"], [r["plays"] for r in o])
    for s in range(players):
        close(f"win share seat {s}", e["win"][:, s], [r["win"][s] for r in o])
        close(f"fans closed seat {s}", e["fans_closed"][:, s], [r["fans_closed"][s] for r in o])
        close(f"sticks seat {s}", e["score"][:, s], [r["score"][s] for r in o])


def test_solo_statistics_agree():
    e = engine_rows(1, 6000, {}, 31)
    o = play_games(1, 3000, seed=32)
    close("turns", e["turns"], [r["turns"] for r in o])
    close("plays", e["plays"], [r["plays"] for r in o])
    close("score", e["score"][:, 0], [r["score"] for r in o])
    close("fans closed", e["fans_closed"][:, 0], [r["fans_closed"][0] for r in o])
    for k, name in enumerate(LEVELS[:3]):
        close(f"level {name}", e["level"][:, k], [r["level"] == k for r in o])


def test_contract_metrics():
    r = simulate("sensu", [Random()] * 4, n_games=300, seed=3)
    s = r.summary()
    m = s["metrics"]
    assert m["mean_plays"] > 0 and len(m["mean_fans_closed"]) == 4
    assert len(s["win_share"]) == 4
    solo = simulate("sensu", [Random()], n_games=300, seed=3).summary()
    assert solo["win_share"] == [] and solo["win_share_ci95"] == []
    assert set(solo["metrics"]["level_share"]) == set(LEVELS) and solo["metrics"]["mean_score"] > 0
