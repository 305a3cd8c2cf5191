"""Text a designer can read, and a 95% interval for every figure `sensei play` prints: `--json` adds them
beside the contract's fields (which stay as they are), and the intervals are the ones the per-game values
give (checked against a brute-force computation over the games themselves)."""
import json
import math
import re

import numpy as np
import pytest
from scipy import stats as st
from statsmodels.stats.proportion import proportion_confint
from typer.testing import CliRunner

from experiments.cli import app
from simcore.registry import get_game
from simcore.rng import root_key
from simcore.runner import simulate
from strategies.registry import lineup, short_labels

cli = CliRunner()
CONTRACT = ["game", "players", "games", "seed", "strategies", "rules", "win_share", "win_share_ci95", "mean_turns",
            "timeouts", "metrics"]


def play_json(*args):
    r = cli.invoke(app, ["play", *args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


# ------------------------------------------------------------------------------------------- text
def test_solo_output_says_one_player_and_rules_read_as_typed():
    r = cli.invoke(app, ["play", "sensu", "-p", "1", "-n", "50"])
    assert r.exit_code == 0, r.output
    assert "1 player," in r.stdout and "1 players" not in r.stdout
    r = cli.invoke(app, ["play", "sen", "-n", "50", "--rule", "rounds=none"])
    text = " ".join(r.stdout.split())
    assert "rounds=none" in text and "ravens_not_scary=false" in text and "None" not in text and "False" not in text


def test_games_listing_shows_player_counts_and_defaults():
    r = cli.invoke(app, ["games"])
    assert r.exit_code == 0
    assert "(2-2 players)" not in r.stdout
    assert "fan-and-mallet: Fan & Mallet (2 players; default strategy random)." in r.stdout
    assert "sen: Sen (2-5 players, default 4; default strategy threshold)." in r.stdout
    assert "sensu: Sensu (1-5 players, default 4; default strategy" in r.stdout


def test_short_labels_tell_variants_apart():
    agents = lineup("sen", ["gambler:edge=0.5", "gambler", "threshold:wake=8", "threshold"], 4)
    assert short_labels(agents) == ["gambler edge=0.5", "gambler edge=2.5", "threshold wake=8", "threshold wake=10"]
    assert short_labels(lineup("sen", ["threshold:wake=8"], 3)) == ["threshold wake=8"] * 3
    assert short_labels(lineup("sen", ["threshold"], 2)) == ["threshold"] * 2


@pytest.mark.parametrize("columns", ["160", "100", "60"])
def test_the_play_table_never_cuts_labels_or_specs(columns):
    specs = ["gambler:edge=0.5", "gambler:edge=0.25"]
    r = cli.invoke(app, ["play", "sen", "-p", "2", *sum((["-s", s] for s in specs), []), "-n", "100"],
                   env={"COLUMNS": columns})
    assert r.exit_code == 0, r.output
    assert "gambler edge=0.5 " in r.stdout and "gambler edge=0.25 " in r.stdout and "…" not in r.stdout
    flat = re.sub(r"\s+", "", r.stdout)
    for a in lineup("sen", specs, 2):
        assert a.spec() in flat  # folded across lines maybe, never cut


def test_every_figure_of_the_text_output_has_its_interval():
    r = cli.invoke(app, ["play", "senshi", "-n", "200"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert re.search(r"mean turns [\d.]+ \[[\d.]+, [\d.]+\], timeouts 0 \(share 0\.0000 \[0\.0000, [\d.]+\]\)", out)
    rows = [ln.split() for ln in out.splitlines() if ln.strip().startswith(("elimination_rate", "nobody", "mean_",
                                                                            "tie_", "tallest"))]
    assert len(rows) >= 10 and all(re.fullmatch(r"\[[\d.]+,", row[-2]) for row in rows), rows
    seat_rows = [ln for ln in out.splitlines() if re.match(r"\s*\d\s+random", ln)]
    assert len(seat_rows) == 4 and all(ln.count("[") == 2 for ln in seat_rows)


# ------------------------------------------------------------------------------------------- JSON
@pytest.mark.parametrize("args", [["sen"], ["senshi"], ["sensu"], ["sensu", "-p", "1"], ["fan-and-mallet"],
                                  ["fan-and-mallet", "--rule", "match_points=5"], ["sen", "-p", "2", "--rule",
                                                                                    "know_what_i_have=true"]])
def test_json_adds_an_interval_for_every_figure_and_keeps_the_contract(args):
    out = play_json(*args, "-n", "300", "--seed", "4")
    assert list(out)[:len(CONTRACT)] == CONTRACT
    P = out["players"]
    lo, hi = out["mean_turns_ci95"]
    assert lo <= out["mean_turns"] <= hi and lo < hi
    assert out["timeout_share"] == out["timeouts"] / out["games"]
    assert out["timeout_share_ci95"][0] <= out["timeout_share"] <= out["timeout_share_ci95"][1]
    assert len(out["mean_score"]) == len(out["mean_score_ci95"]) == P
    for m, (a, b) in zip(out["mean_score"], out["mean_score_ci95"]):
        assert a <= m <= b
    ci = out["ci95"]
    assert list(ci) == list(out["metrics"])  # it mirrors metrics, key for key

    def check(value, interval, name):
        if value is None:
            assert interval is None, name
        elif isinstance(value, dict):
            assert list(interval) == list(value), name
            for k in value:
                check(value[k], interval[k], f"{name}.{k}")
        elif isinstance(value, list):
            assert len(interval) == len(value), name
            for i, v in enumerate(value):
                check(v, interval[i], f"{name}[{i}]")
        else:
            assert interval is not None and len(interval) == 2, name
            assert interval[0] - 1e-9 <= value <= interval[1] + 1e-9, (name, value, interval)

    for name, value in out["metrics"].items():
        check(value, ci[name], name)


def test_intervals_do_not_depend_on_chunks_or_workers():
    a = play_json("senshi", "-n", "300", "--seed", "2")
    b = play_json("senshi", "-n", "300", "--seed", "2", "--chunk-size", "7", "--jobs", "2")
    assert a == b


def _t(values):
    x = np.asarray(values, dtype=float)
    half = st.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
    return x.mean() - half, x.mean() + half


@pytest.mark.parametrize("game, players, strategy", [("sen", 3, "threshold"), ("senshi", 3, "greedy"),
                                                     ("fan-and-mallet", 2, "random")])
def test_intervals_are_those_of_the_games_themselves(game, players, strategy):
    """Means of per-game values: t (Wilson for 0/1 values of a share); ratios of sums: the t interval of the
    per-game linearisation (num - R den) / mean(den); each cut to the figure's possible range. Checked
    against the outcome arrays of the same games."""
    eng = get_game(game)
    n, seed = 400, 9
    agents = lineup(game, [strategy], players)
    summary = simulate(game, agents, n_games=n, seed=seed, chunk_size=64).summary()
    out = eng.play(np.arange(n), players, eng.make_rules({}), agents, root_key(seed))
    assert summary["mean_turns_ci95"] == pytest.approx(list(_t(out["turns"])), rel=1e-9)
    checked = 0
    rules = eng.make_rules({})
    for m in eng.ratio_metrics:
        got = summary["ci95"][m.name]
        num = np.asarray(out[m.num], dtype=float)
        if m.den is None:
            cols = num.reshape(n, -1).T
            want = []
            share = eng.column_range(m.num, players, rules) == (0.0, 1.0)
            for x in cols:
                if share and set(np.unique(x)) <= {0.0, 1.0}:
                    want.append(list(proportion_confint(x.sum(), n, method="wilson")))
                else:
                    want.append(list(_t(x)))
        else:
            den = np.asarray(out[m.den], dtype=float)
            if num.ndim > 1 and den.ndim == 1:
                den = np.repeat(den[:, None], num.shape[1], axis=1)
            want = []
            share = m.bounds is not None and tuple(m.bounds) == (0.0, 1.0)
            for a, b in zip(num.reshape(n, -1).T, den.reshape(n, -1).T):
                r = a.sum() / b.sum()
                if share and np.all(a == r * b):  # none of the event or all of it: Wilson's over min(units, games)
                    k = min(b.sum(), n)
                    lo, hi = proportion_confint(r * k, k, method="wilson")
                    want.append([0.0 if r <= 0 else lo, 1.0 if r >= 1 else hi])
                else:
                    want.append(list(_t((a - r * b) / b.mean() + r)))
        low, high = eng.metric_range(m.name, players, rules)
        want = np.clip(np.asarray(want, dtype=float), -np.inf if low is None else low, np.inf if high is None else high)
        got = got if m.per_seat else [got]
        assert np.allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=1e-7, atol=1e-12), m.name
        checked += 1
    assert checked == len(eng.ratio_metrics)


def test_answers_say_one_player_for_solo_cells():
    from experiments.experiment import run_experiment
    res = run_experiment({"title": "t", "question": "q", "game": "sensu", "players": [1, 2],
                          "lineup": {"seats": "random"}}, games=4)
    text = " ".join(res.answer)
    assert "1 player:" in text and "1 players" not in text and "2 players" in text, text
