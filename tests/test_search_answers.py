"""The searching answers (best_response, equilibrium, design): config validation (one line, exit 2), runs
that give their tables and sentences, identical results for any --jobs, resumability after SIGKILL, and
their reports."""
import glob
import json
import os
import re
import signal
import subprocess
import sys

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import experiments.search as search_mod
from experiments import run_experiment
from experiments.cli import app
from experiments.answers.searching import with_params
from experiments.config import load
from reports import build_report
from simcore.errors import SenseiError

SENSEI = os.path.join(os.path.dirname(sys.executable), "sensei")


def br(**extra):
    raw = {"title": "t", "question": "q", "game": "sen", "games": 120, "seed": 7,
           "lineup": {"focus": "threshold", "field": "threshold:wake=10"}, "sweep": {"players": [2, 3]},
           "search": {"focus.wake": {"min": 4, "max": 20, "step": 4}}, "report": {"answer": "best_response"}}
    for k, v in extra.items():
        raw[k] = v
    return raw


def eq(**extra):
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 80, "seed": 8,
           "lineup": {"focus": "threshold", "field": "threshold:wake=8"},
           "search": {"focus.wake": {"min": 4, "max": 16, "step": 4}, "start": [16], "meta": [2], "bootstrap": 20},
           "report": {"answer": "equilibrium"}}
    raw.update(extra)
    return raw


def de(**extra):
    """A design search whose objective is computed from the equilibrium of each rule setting."""
    raw = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 100, "seed": 11,
           "lineup": {"focus": "threshold", "field": "threshold:wake=12"},
           "search": {"rules.penalty": [0, 15], "focus.wake": [4, 8, 12, 16, 20]},
           "report": {"answer": "design", "objective": "equilibrium_stakes", "goal": "max"}}
    raw.update(extra)
    return raw


@pytest.mark.parametrize("raw,where,what", [
    ({**br(), "search": None}, "search", "a [search] table"),
    (br(search={"focus.wake": [4, 8], "guess": 1}), "search.guess", "a parameter ROLE.NAME or one of the options"),
    (br(search={"focus.wake": {"min": 4, "max": 8}}), "search.focus.wake", "a step for an integer range"),
    (br(search={"focus.wake": {"min": 4, "max": 2, "step": 1}}), "search.focus.wake.max", "greater than min"),
    (br(search={"focus.wake": {"min": 0, "max": 100000, "step": 1}}), "search.focus.wake.step", "at most 2,000"),
    (br(search={"focus.nope": [1, 2]}), "search", "nope"),
    (br(search={"focus.wake": {"min": 4, "max": 12, "step": 2.5}}), "search.focus.wake",
     "holds values that are not whole numbers: an integer parameter or option takes integer min, max and step"),
    (br(search={"field.wake": [1, 2]}), "search.field.wake", "a parameter of the focus"),
    (br(search={"focus.wake": [4, 8], "method": "optuna", "trials": 0}), "search.trials", "an integer >= 1"),
    (br(search={"focus.wake": [4, 8], "trials": 5}), "search.trials", "nothing unless method = 'optuna'"),
    (br(search={"focus.wake": [4, 8], "alpha": 0.7}), "search.alpha", "a number in (0, 0.5)"),
    (br(search={"focus.wake": [4, 8], "confirm": -5}), "search.confirm", "an integer from 0 to 1,000,000,000"),
    (br(search={"focus.wake": [4, 8], "first": 121}), "search.first", "at most games (120)"),
    ({k: v for k, v in br(search={"focus.wake": [4, 8], "first": 1001}).items() if k != "games"}, "search.first",
     "at most games (1,000)"),
    (br(search={"focus.wake": [4, 8], "confirm": 2.5}), "search.confirm", "an integer from 0"),
    (br(search={"focus.wake": [4, 8], "confirm": 5}), "search.confirm", "0 (none) or at least 20 fresh deals"),
    (br(lineup={"tournament": ["counter", "watcher", "threshold"]}, search={"gambler.edge": [1, 2]}),
     "search.gambler.edge", "a parameter of an entrant (counter, watcher, threshold)"),
    (br(lineup={"tournament": ["counter", "watcher", "threshold"]},
        search={"threshold.wake": [4, 8], "counter.wake": [4, 8]}), "search.counter.wake", "of one entrant"),
    (br(lineup={"tournament": ["threshold:wake=8", "threshold:wake=12", "counter"]}, search={"threshold.wake": [4]}),
     "search.threshold.wake", "an entrant that appears once"),
    (br(lineup={"tournament": ["counter", "threshold"]}, search={"threshold.wake": [4, "x"]}), "search.threshold",
     "wake"),
    (de(lineup={"seats": ["threshold"]}), "lineup", "a focus lineup for objective = 'equilibrium_stakes'"),
    (de(search={"rules.penalty": [0, 5]}), "search", "a grid of the family's parameters (focus.P)"),
    (de(search={"focus.wake": [4, 8, 12]}), "search", "at least one rule option"),
    (de(search={"rules.penalty": [0, 5], "focus.wake": {"min": 4.0, "max": 8.0}}), "search.focus.wake", "a grid"),
    (de(search={"rules.penalty": [0, 5], "focus.wake": [4, 8, 12], "start": 6}), "search.start",
     "a setting of the family's grid"),
    (de(search={"rules.penalty": [0, 5], "focus.wake": [4, 8, 12], "start": 8.0}), "search.start",
     "strategy threshold.wake: expected an integer, got 8.0"),
    (de(search={"rules.penalty": [0, 5], "focus.wake": [4, 8, 12], "start": {"wake": 8.0}}), "search.start",
     "expected an integer"),
    (de(lineup={"focus": "threshold", "field": "counter"}), "search.start", "a start value on the family's grid"),
    (de(search={"rules.penalty": [0, 5], "focus.wake": [4, 8, 12], "steps": 0}), "search.steps", "an integer >= 1"),
    (de(report={"answer": "design", "objective": "seat0_win_share", "goal": "max"}), "search.focus.wake",
     "a rule option"),
    (br(report={"answer": "best_response", "metric": "mean_turns"}), "report.metric", "win_share or mean_score"),
    (br(report={"answer": "best"}, sweep={"focus.wake": [4, 8]}), "search", "nothing unless answer is best_response"),
    (eq(search={"focus.wake": {"min": 4.0, "max": 16.0}}), "search.focus.wake", "fixed points are found on a grid"),
    (eq(search={"focus.wake": [4, 8], "start": [5]}), "search.start[0]", "a setting of the family's grid"),
    (eq(search={"focus.wake": [4, 8], "start": [8.0]}), "search.start[0]", "expected an integer, got 8.0"),
    (eq(search={"focus.wake": {"min": 2, "max": 40, "step": 1}, "meta": [2]}, players=None, sweep={"players": [5]}),
     "search.meta", "player counts of the grid"),
    (eq(lineup={"seats": ["threshold", "threshold"]}), "lineup", "a focus or population lineup"),
    (eq(lineup={"population": ["random", "threshold"]}, report={"answer": "best_response"}), "lineup",
     "a focus, seats or tournament lineup"),
    (eq(lineup={"population": ["random", "threshold"]}, search={"threshold.wake": {"min": 1.0, "max": 3.0}}),
     "search.threshold.wake", "a grid"),
    (eq(lineup={"population": ["random", "threshold"]}, search={"gambler.edge": [1, 2]}), "search.gambler.edge",
     "a parameter of a member"),
    (eq(lineup={"population": ["random", "threshold"]}, players=3, search={"population_size": 2}),
     "search.population_size", "at least the largest player count of the grid (3"),
    ({"title": "t", "question": "q", "game": "sen", "lineup": {"seats": ["threshold"]},
      "search": {"rules.penalty": [5, 15]}, "report": {"answer": "design"}}, "report.objective", "the figure"),
    ({"title": "t", "question": "q", "game": "sen", "lineup": {"seats": ["threshold"]},
      "search": {"rules.penalty": [5, 15]}, "report": {"answer": "design", "objective": "seat0_win_share",
                                                      "target": 0.25, "goal": "max"}}, "report.goal", "nothing with"),
    ({"title": "t", "question": "q", "game": "sen", "lineup": {"seats": ["threshold"]},
      "search": {"rules.penalty": [5, 15]}, "report": {"answer": "design", "objective": "focus_win_share",
                                                      "goal": "max"}}, "report.objective", "for a seats lineup"),
    ({"title": "t", "question": "q", "game": "sen", "lineup": {"seats": ["threshold"]},
      "search": {"rules.penalty": [5, -3]}, "report": {"answer": "design", "objective": "seat0_win_share",
                                                      "goal": "max"}}, "search.rules.penalty", "penalty"),
    ({"title": "t", "question": "q", "game": "sen", "lineup": {"seats": ["threshold"]},
      "report": {"answer": "summary", "target": 0.5}}, "report.target", "nothing unless answer = 'design'"),
])
def test_bad_search_configs_name_file_key_and_problem(raw, where, what):
    raw = {k: v for k, v in raw.items() if v is not None}
    with pytest.raises(SenseiError) as e:
        load(raw)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"<config>: {where}"), msg
    assert what in msg, msg


def test_search_first_may_exceed_a_games_override():
    """--games below a config's search.first (make demo's runs) plays every deal in the first round."""
    cfg = load(br(search={"focus.wake": [4, 8], "first": 120}), games=40)
    assert cfg.games == 40 and cfg.report.search.first_deals(cfg.games) == 40


def test_bad_search_config_on_the_command_line_is_one_line_exit_2(tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text('title = "t"\nquestion = "q"\ngame = "sen"\n[lineup]\nfocus = "threshold"\nfield = "threshold"\n'
                   '[search]\n"focus.wake" = { min = 4, max = 2, step = 1 }\n[report]\nanswer = "best_response"\n')
    r = CliRunner().invoke(app, ["run", str(cfg), "--no-progress"])
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and str(cfg) in lines[0] and "search.focus.wake.max" in lines[0]


@pytest.fixture(scope="module")
def br_run():
    return run_experiment(br())


def test_best_response_names_the_best_with_its_evidence(br_run):
    res = br_run
    assert len(res.answer) == 2 and all(s.startswith("best response for ") for s in res.answer)
    assert "closest rivals on the same deals" in res.answer[0] and " games" in res.answer[0]
    race = res.tables["race"]
    assert race.height == 2 * 5 and set(race["focus.wake"]) == {4, 8, 12, 16, 20}
    for _, sub in race.group_by("players"):
        best = sub.filter(pl.col("best"))
        assert best.height == 1 and best["deals"][0] == 120 and best["survived"][0]
        others = sub.filter(~pl.col("best"))
        assert (others["diff_vs_best"] <= 1e-12).all()  # nobody beats the best on the deals both played
    # every game is counted once: the cells are the lineups played, each once
    assert res.manifest["games_played"] == int(res.cells["games"].sum())
    assert res.cells.height == len(set(zip(res.cells["players"], res.cells["focus"])))
    spent = sum(int(m.group(1).replace(",", "")) for m in (re.search(r"; ([\d,]+) games$", s) for s in res.answer))
    assert spent == res.manifest["games_played"]


def test_search_results_do_not_depend_on_jobs(br_run, monkeypatch):
    monkeypatch.setattr(search_mod.Evaluator, "parallel_seconds", 0.0)  # every batch goes to the workers
    other = run_experiment(br(), jobs=2)
    assert other.answer == br_run.answer
    assert other.tables["race"].equals(br_run.tables["race"])
    assert other.cells.drop("seconds").equals(br_run.cells.drop("seconds"))


def test_confirmation_plays_the_best_and_its_closest_rival_on_fresh_deals(br_run):
    """search.confirm: the race is the same as without it; the best and the closest rival are then played on
    deals games .. games+N-1, and the figures given are theirs there (checked by playing those lineups again)."""
    from experiments.search import Evaluator, focus_values
    from simcore.stats import deal_values_ci, paired_diff

    res = run_experiment(br(search={"focus.wake": {"min": 4, "max": 20, "step": 4}, "confirm": 64}))
    assert res.tables["race"].equals(br_run.tables["race"])
    conf = res.tables["confirm"]
    assert conf.height == 2 and set(conf["first_deal"]) == {120} and set(conf["deals"]) == {64}
    cfg = load(br())
    for row in conf.iter_rows(named=True):
        race = br_run.tables["race"].filter(pl.col("players") == row["players"])
        best = race.filter(pl.col("best"))
        assert row["setting"] == best["setting"][0] and row["race_value"] == pytest.approx(best["value"][0])
        rivals = race.filter(~pl.col("best")).with_columns(pl.col("diff_vs_best").abs().alias("gap")).sort("gap", "setting")
        assert row["rival"] == rivals["setting"][0]
        cell = next(c for c in cfg.cells if c.players == row["players"])
        ev = Evaluator(cfg)

        def fresh(setting):  # the focus's per-deal win share of the setting against the field, all 184 deals
            wake = int(setting.removeprefix("wake="))
            run = ev.lineup(cell, [with_params(cell.agents[0], {"wake": wake})] + list(cell.agents[1:]), {})
            ev.extend([run], 184)
            return focus_values(run)

        x, y = fresh(row["setting"]), fresh(row["rival"])
        # a win share: Wilson's interval with the fresh deals' effective number of games
        assert (row["value"], row["lo"], row["hi"]) == pytest.approx(deal_values_ci(x[120:], share=True))
        assert row["rival_diff"] == pytest.approx(paired_diff(y[120:], x[120:])["diff"])
        assert (row["rival_value"], row["rival_value_lo"], row["rival_value_hi"]) == pytest.approx(deal_values_ci(y[120:], share=True))
        assert not np.array_equal(x[120:], x[:64])
    assert all("on 64 fresh deals (numbered from 120: none of them helped choose it): " in a for a in res.answer)
    assert res.manifest["games_played"] == int(res.cells["games"].sum()) > br_run.manifest["games_played"]


def test_optuna_search_is_reproducible_and_races_its_best_trials():
    raw = br(lineup={"focus": "counter", "field": "counter"}, sweep={},
             search={"focus.wake": {"min": 4.0, "max": 16.0}, "trials": 8, "top": 3}, games=80, players=2)
    a, b = run_experiment(raw), run_experiment(raw)
    assert a.answer == b.answer and "8 optuna trials" in a.answer[0]
    race = a.tables["race"]
    trials = race.filter(pl.col("trial").is_not_null())
    assert trials.height == 8 and trials["focus.wake"].n_unique() >= 6
    raced = race.filter(pl.col("trial").is_null())
    assert raced.height == 3 and raced.filter(pl.col("best")).height == 1


@pytest.fixture(scope="module")
def eq_run(tmp_path_factory):
    res = run_experiment(eq())
    return res, res.write(str(tmp_path_factory.mktemp("runs")))


def test_equilibrium_of_a_family_finds_fixed_points_and_the_nash_mixture(eq_run):
    res, _ = eq_run
    e = res.tables["equilibrium"]
    for col in ("players", "rules.penalty", "solution", "kind", "strategy", "focus.wake", "probability", "ci_low",
                "ci_high"):
        assert col in e.columns, col
    nash = e.filter(pl.col("solution") == "nash")
    assert nash["probability"].sum() == pytest.approx(1.0)
    assert (nash["ci_low"] <= nash["probability"] + 1e-12).all() and (nash["probability"] <= nash["ci_high"] + 1e-12).all()
    path = res.tables["path"]
    assert set(path["start"]) == {"wake=8", "wake=16"}      # the field's value first, then search.start
    assert res.answer[0].startswith("symmetric equilibrium: wake=")
    # each fixed point names the best measured setting against it and, when that is another setting, their
    # paired difference (not the best's own interval against the fair share, which picking the best inflates)
    parts = re.findall(r"no setting does clearly better: ([^;]*)", res.answer[0])
    assert parts
    for part in parts:
        assert (part.startswith("every other setting measured below its fair share ")
                or re.match(r"the best measured, wake=\d+, wins [\d.]+% against [\d.]+% for it \(fair [\d.]+%\), a "
                            r"paired difference of [-+][\d.]+% \[[-+][\d.]+%, [-+][\d.]+%\] over [\d,]+ deals that the "
                            r"race's test, corrected for picking among \d+ settings, does not call clear\)", part)), part
    assert any(s.startswith("best response to the field threshold:wake=8: ") for s in res.answer)
    # the report leads with every equilibrium found, not the first sentence alone
    assert len(res.answer) > 3 and res.headline
    assert res.headline[0].startswith("symmetric equilibrium: wake=")
    assert any(h.startswith("Nash (linear program) of the meta-game") and "regret" not in h for h in res.headline)
    assert any(s.startswith("Nash (linear program) of the meta-game of 4 strategies") for s in res.answer)
    fixed = e.filter(pl.col("kind") == "symmetric fixed point")
    for row in fixed.iter_rows(named=True):   # a fixed point survived the race against a table of itself
        f = path.filter((pl.col("field") == f"wake={row['focus.wake']}") & pl.col("fixed"))
        assert f.height >= 1


def test_confirmation_after_a_race_that_stopped_early_starts_where_it_stopped():
    """A race that ends before its budget (one setting left) used no deal past its last round: the fresh
    deals start there, so that no deal is played for nothing."""
    res = run_experiment(br(games=400, sweep={}, players=2, search={"focus.wake": [4, 30], "confirm": 40}))
    race, conf = res.tables["race"], res.tables["confirm"]
    stopped = int(race["deals"].max())
    assert stopped < 400 and conf["first_deal"][0] == stopped and conf["deals"][0] == 40
    assert set(res.cells["deals"]) == {stopped + 40}
    assert f"on 40 fresh deals (numbered from {stopped}: none of them helped choose it)" in res.answer[0]


def test_a_family_confirms_each_fixed_point_against_its_best_measured_deviation():
    """confirm without a meta-game: each fixed point's best measured deviation (the race's best other setting
    against a table of it) played again on fresh deals after its race; the share given is its share there."""
    from experiments.search import Evaluator, focus_values

    res = run_experiment(eq(search={"focus.wake": {"min": 4, "max": 16, "step": 4}, "start": [16], "confirm": 100}))
    head = res.answer[0]
    found = re.findall(r"on 100 fresh deals, numbered from (\d+) \(none of them helped find it\), the best measured "
                       r"deviation, wake=(\d+), wins ([\d.]+)% \[", head)
    fixed = re.findall(r"(?:^symmetric equilibrium(?: \([^)]*\))?: |; )wake=(\d+) \(reached from", head)
    assert found and len(found) == len(fixed), head
    # which fixed points hold up on the fresh deals is said first, as each one's own text says it
    summary = re.match(r"symmetric equilibrium \(([^)]*)\): ", head).group(1)
    parts = re.split(r"; (?=wake=\d+ \(reached from)", head.split(": ", 1)[1])
    assert len(parts) == len(fixed)
    refuted = ["so the fixed point does not hold up" in part for part in parts]
    assert refuted == sorted(refuted)  # those that hold up first
    for f, part in zip(fixed, parts):
        if "so the fixed point does not hold up" in part:
            assert re.search(rf"wake={f}\b[^;]* (do|does) not", summary), (f, summary)
        else:
            assert re.search(rf"wake={f}\b[^;]* holds? up", summary), (f, summary)
    cfg = load(eq())
    cell = cfg.cells[0]
    for (first, dev, share), f in zip(found, fixed):
        # after every deal any race of the group played: the earlier steps' races chose the way to it
        assert int(first) >= res.tables["race"]["deals"].max(), (first, res.tables["race"]["deals"].max())
        ev = Evaluator(cfg)
        P = cell.players
        run = ev.lineup(cell, [with_params(cell.agents[0], {"wake": int(dev)})]
                        + [with_params(cell.agents[0], {"wake": int(f)})] * (P - 1), {})
        ev.extend([run], int(first) + 100)
        assert float(share) == pytest.approx(100 * focus_values(run)[int(first):].mean(), abs=0.051)
        # the equilibrium table keeps the same figure in the fixed point's row
        row = res.tables["equilibrium"].filter(pl.col("focus.wake") == int(f)).row(0, named=True)
        assert row["fresh_deviation"] == f"wake={dev}" and row["fresh_deals"] == 100
        assert row["fresh_lo"] <= row["fresh_win_share"] <= row["fresh_hi"]
        assert 100 * row["fresh_win_share"] == pytest.approx(float(share), abs=0.051)


def test_a_fresh_regret_of_rounding_size_is_no_gain():
    from experiments.answers.equilibrium import MetaGame, _fresh_text

    meta = MetaGame(["a", "b"], [None, None], 2, [], {}, None, 10, 10, fresh={}, fresh_first=10, fresh_deals=30,
                    fresh_games=60)
    sol = {"fresh_regret": np.array([1.3e-13, -0.05]), "fresh_regret_lo": np.array([1.3e-13, -0.08]),
           "fresh_regret_hi": np.array([1.3e-13, -0.02]), "fresh_regret_lo_k": np.array([1.3e-13, -0.09])}
    assert "gains against it" not in _fresh_text(meta, sol)
    sol["fresh_regret_lo_k"][0], sol["fresh_regret_lo"][0], sol["fresh_regret"][0] = 0.005, 0.01, 0.03
    assert _fresh_text(meta, sol).endswith("(a gains against it on deals it was not found on: its regret stays "
                                           "above 0 with Bonferroni's correction for picking it among the 2 members)")
    # the member that gains most is picked among them: its plain 95% interval above 0 is no claim
    sol["fresh_regret_lo_k"][0] = -0.004
    assert "gains against it" not in _fresh_text(meta, sol)
    assert _fresh_text(meta, sol).endswith("(a's interval alone lies above 0, but not with Bonferroni's correction for "
                                           "picking it among the 2 members: no clear gain)")
    # a gain that prints as +0.0% is not called one, whatever its interval: alpha-rank's mix of 99.99961% wake=8
    # had wake=8 "gain" 2e-7 [1.7e-7, 2.7e-7] against it
    small = {"fresh_regret": np.array([2.1e-7, -0.05]), "fresh_regret_lo": np.array([1.7e-7, -0.08]),
             "fresh_regret_hi": np.array([2.7e-7, -0.02]), "fresh_regret_lo_k": np.array([1.6e-7, -0.09]),
             "probs": np.array([1 - 3.9e-6, 3.9e-6])}
    assert _fresh_text(meta, small).endswith("the largest first: a +0.0% [+0.0%, +0.0%], b -5.0% [-8.0%, -2.0%]")
    # a member of a near-pure mix (alpha-rank's 99.99999%) is its own: not listed either
    sol["probs"] = np.array([1e-7, 1 - 1e-7])
    assert " b " not in _fresh_text(meta, sol)
    del sol["probs"]
    # a pure equilibrium's own member (its regret 0 by definition) is not listed
    sol["probs"] = np.array([0.0, 1.0])
    text = _fresh_text(meta, sol)
    assert "the largest first: a +3.0%" in text and " b " not in text and not text.endswith("b +0.0%")


def test_design_confirmation_reports_the_objective_not_the_distance(monkeypatch):
    """A design with a target races distances; its confirmation gives the objective itself, in the race and
    on the fresh deals, with the row's unit in the report, and a share's interval for a share."""
    from experiments.answers import searching
    asked = []

    def spy(values, share=False, alpha=0.05):
        asked.append((len(values), share))
        return searching_ci(values, share, alpha)
    searching_ci = searching.deal_values_ci
    monkeypatch.setattr(searching, "deal_values_ci", spy)
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 60, "seed": 5,
                          "lineup": {"seats": ["threshold"]}, "search": {"rules.penalty": [0, 5, 15], "confirm": 50},
                          "report": {"answer": "design", "objective": "seat0_win_share", "target": 0.5}})
    conf, race = res.tables["confirm"], res.tables["race"]
    best = race.filter(pl.col("best"))
    assert conf["setting"][0] == best["setting"][0]
    assert conf["race_value"][0] == pytest.approx(best["value"][0]) and conf["deals"][0] == 50
    assert 0.0 <= conf["rival_value"][0] <= 1.0 and conf["lo"][0] <= conf["value"][0] <= conf["hi"][0]
    from reports.html import _units
    units = _units(conf.columns)
    assert all(units[c] == "row" for c in ("value", "race_value", "rival_value", "rival_diff", "rival_lo"))
    assert units["rival_p_value"] == "p"
    assert asked and all(share for n, share in asked if n == 50)  # the fresh deals' seat 0 shares
    # the answer says which of the two came closer to the target on the fresh deals
    assert re.search(r"\(from the target: [\d.]+% for the best, [\d.]+% for the rival(: the rival comes closer on "
                     r"these deals)?\)", res.answer[0]), res.answer[0]


def test_equilibrium_confirmation_gives_regrets_on_fresh_deals(eq_run):
    """search.confirm with a meta-game: the same equilibria as without it; each member's regret against
    them measured again on deals games .. games+N-1 (checked by playing the lineups there again)."""
    from experiments.search import Evaluator, seat_values
    from simcore import gametheory as gt

    res = run_experiment(eq(search={**eq()["search"], "confirm": 60}))
    base, _ = eq_run
    keep = ["solution", "strategy", "probability", "ci_low", "ci_high", "regret", "regret_lo", "regret_hi"]
    assert res.tables["equilibrium"].select(keep).equals(base.tables["equilibrium"].select(keep))
    e = res.tables["equilibrium"].filter(pl.col("solution") == "nash")
    cfg = load(eq())
    cell = cfg.cells[0]
    labels = [f"wake={w}" for w in (4, 8, 12, 16)]
    agents = [with_params(cell.agents[0], {"wake": w}) for w in (4, 8, 12, 16)]
    ev = Evaluator(cfg)
    tab = {}
    for L in gt.lineups(4, 2):
        run = ev.lineup(cell, [agents[i] for i in L], {})
        ev.extend([run], 140)
        tab[L] = {i: float(np.mean([seat_values(run, "win", b, False)[80:140] for b in (0, 1) if L[b] == i]))
                  for i in set(L)}
    x = np.array([float(e.filter(pl.col("strategy") == f"threshold:{lab}")["probability"].sum()) for lab in labels])
    want = gt.regrets(tab, 4, 2, x)[0]
    for row in e.iter_rows(named=True):
        i = labels.index(row["strategy"].removeprefix("threshold:"))
        assert row["fresh_regret"] == pytest.approx(want[i], abs=1e-6)
        assert row["fresh_regret_lo"] <= row["fresh_regret"] + 1e-9 <= row["fresh_regret_hi"] + 2e-9
    nash = next(a for a in res.answer if a.startswith("Nash (linear program) of the meta-game"))
    assert re.search(r"; on 60 fresh deals \(numbered from 80: none of them helped find it; 960 games(, [\d,]+ of "
                     r"them played before, in the fixed points' checks)?\), each member", nash), nash
    # the largest regret of the members outside a pure equilibrium (its own member's is 0 by definition)
    top = labels[max((i for i in range(4) if x[i] < 1 - 1e-9), key=lambda i: want[i])]
    assert f"the largest first: {top} " in nash
    # the meta-game's games are its lineups' games on its deals, however many of them its races had played (and
    # it says how many that is)
    assert re.search(r"\(10 lineups, 80 deals each, 1,280 games, [\d,]+ of them played before, in the races "
                     r"above\)", nash), nash
    # every member's regrets, in the support or not, are in regrets.parquet
    reg = res.tables["regrets"].filter(pl.col("solution") == "nash")
    assert reg.height == 4 and reg.filter(pl.col("in_support")).height == e.height
    for row in reg.iter_rows(named=True):
        i = labels.index(row["strategy"].removeprefix("threshold:"))
        assert row["fresh_regret"] == pytest.approx(want[i], abs=1e-6)


def test_a_field_off_the_grid_is_not_named_as_the_field_of_the_first_path():
    raw = eq(lineup={"focus": "threshold", "field": "threshold:wake=10"}, games=30)
    raw["search"] = {"focus.wake": {"min": 4, "max": 16, "step": 4}, "start": [16], "steps": 2}
    res = run_experiment(raw)
    assert set(res.tables["path"]["start"]) == {"wake=16"}
    assert not any("best response to the field" in s for s in res.answer)
    assert any(s.startswith("best response to a field of wake=16 (the first start: the config's field "
                            "threshold:wake=10 is not a setting of the grid): ") for s in res.answer), res.answer


def test_equilibrium_report_draws_curves_support_paths_and_payoffs(eq_run):
    _, run_dir = eq_run
    page = open(build_report(run_dir, index=False), encoding="utf-8").read()
    for title in ("Best-response curves", "Equilibrium support", "Iteration paths", "Meta-game payoffs"):
        assert f"<b>{title}.</b>" in page, title
    assert "Equilibria" in page and page.index('id="answer"') < page.index('id="plots"')


def test_population_meta_game_with_tuning_and_event_rates():
    raw = {"title": "t", "question": "q", "game": "senshi", "games": 16, "seed": 9,
           "lineup": {"population": ["random", "greedy", "guard"]}, "sweep": {"players": [2, 3]},
           "search": {"guard.margin": [0, 2], "bootstrap": 10},
           "report": {"answer": "equilibrium", "event": "eliminated"}}
    res = run_experiment(raw)
    e = res.tables["equilibrium"]
    assert set(e.filter(pl.col("players") == 2)["solution"]) <= {"nash", "alpharank"}
    assert set(e.filter(pl.col("players") == 3)["solution"]) <= {"nash", "alpharank", "replicator"}
    # with 3 players the Nash equilibrium is found by a search of supports: no member gains against it
    nash3 = res.tables["regrets"].filter((pl.col("players") == 3) & (pl.col("solution") == "nash"))
    assert nash3.height == 3 and nash3["regret"].max() < 1e-9, nash3
    assert any(t.startswith("3 players: Nash (a search of supports) of the meta-game") for t in res.answer)
    assert "eliminated_share" in e.columns and e["regret"].null_count() == 0
    for _, sub in e.group_by(["players", "solution"]):
        assert sub["probability"].sum() == pytest.approx(1.0)
    assert any("guard tuned first" in s for s in res.answer)
    # a tuned setting that the race could not tell from others says so (it read as a clear winner)
    tune = res.tables["race"].filter(pl.col("step") == "tune")
    for s in (s for s in res.answer if "guard tuned first" in s):
        p = int(s.split(" players")[0]) if " players:" in s.split("guard")[0] else None
        sub = tune if p is None else tune.filter(pl.col("players") == p)
        kept = sub.filter(pl.col("survived") & ~pl.col("best")).height
        assert ("; not clearly better than " in s and s.endswith(", which the race kept beside it)")) == (kept > 0), s
    # no share past 100% (the tuning race's interval of 98.4% read [95.1%, 101.8%])
    assert not re.search(r"\b(10[0-9]\.[0-9]*[1-9]|1[1-9][0-9]\.[0-9]|[2-9][0-9]{2}\.[0-9])%", " ".join(res.answer))
    # the table's support is the sentence's: a probability above 1e-6
    assert (e["probability"] > 1e-6).all()
    reg = res.tables["regrets"]
    assert reg.filter(pl.col("in_support")).height == e.height
    assert (reg.filter(~pl.col("in_support"))["probability"] <= 1e-6).all()
    meta = res.tables["metagame"]
    assert meta.filter(pl.col("players") == 3)["lineup"].n_unique() == 10     # multisets of 3 out of 3
    # each payoff's interval: the t interval over its deals, within [0, 1] (it was 1.96 standard errors,
    # and past 1 for shares near 1)
    assert (meta["lo"].drop_nulls() >= 0).all() and (meta["hi"].drop_nulls() <= 1).all()
    # one member in every seat wins the average seat's share by symmetry: no interval (as in the cells table;
    # it had the width of an estimate)
    alone = meta.filter(pl.col("lineup").map_elements(lambda t: len(set(t.split(" / "))) == 1, return_dtype=pl.Boolean))
    assert alone.height == 6 and (alone["lo"] == alone["win_share"]).all() and (alone["hi"] == alone["win_share"]).all()
    mixed = meta.filter(pl.col("lineup").map_elements(lambda t: len(set(t.split(" / "))) > 1, return_dtype=pl.Boolean))
    assert (mixed["hi"] > mixed["lo"]).all()


def test_the_meta_game_says_which_of_its_games_the_tuning_played():
    """A meta-game lineup that a tuning race played already (the tuned member before another, seat for seat)
    is not played again: its sentence says how many of its games those are, so that the sentences' games add
    up to the run's (senshi_meta's sentences counted 1,080 games twice)."""
    raw = {"title": "t", "question": "q", "game": "senshi", "games": 16, "seed": 9, "players": 2,
           "lineup": {"population": ["random", "guard", "greedy"]},
           "search": {"guard.margin": [0, 2], "bootstrap": 10}, "report": {"answer": "equilibrium"}}
    res = run_experiment(raw)
    counts = [int(x.replace(",", "")) for s in res.answer for x in re.findall(r"([\d,]+) games\b", s)
              if "tuned first" in s or "alpha-rank" in s]
    reused = [int(x.replace(",", "")) for s in res.answer if "alpha-rank" in s
              for x in re.findall(r"([\d,]+) of them played before, in the races above", s)]
    assert len(counts) == 2 and len(reused) == 1 and reused[0] > 0, res.answer
    assert sum(counts) - sum(reused) == res.cells["games"].sum(), (counts, reused)


def test_population_smaller_than_the_table_with_options_only():
    """Two members at a table of four (their lineups repeat members), and a [search] table of options alone
    (no member tuned)."""
    raw = {"title": "t", "question": "q", "game": "sen", "games": 20, "seed": 5, "players": 4,
           "lineup": {"population": ["random", "threshold"]},
           "search": {"bootstrap": 7, "solvers": ["replicator"]}, "report": {"answer": "equilibrium"}}
    res = run_experiment(raw)
    assert res.tables["metagame"]["lineup"].n_unique() == 5          # multisets of 4 out of 2
    assert set(res.tables["equilibrium"]["solution"]) == {"replicator"}
    assert res.answer[0].startswith("replicator dynamics of the meta-game of 2 strategies (5 lineups")


def test_design_tells_rivals_inside_the_band_from_rivals_that_play_the_same_games():
    """Inside a band every setting's distance is 0 on every deal, so a rival inside it read "the same on every
    deal" (Fan & Mallet's starts 0,2 and 0,6 against 0,0, which differ on about half of the deals)."""
    raw = {"title": "t", "question": "q", "game": "fan-and-mallet", "games": 300, "seed": 101,
           "lineup": {"seats": ["random"]}, "search": {"rules.start_positions": ["0,0", "0,2", "0,4", "0,6"]},
           "report": {"answer": "design", "objective": "seat0_win_share", "band": [0.4, 0.6]}}
    res = run_experiment(raw)
    race = res.tables["race"]
    assert race["value"].is_between(0.4, 0.6).all(), race
    text = res.answer[0]
    assert "the same on every deal" not in text, text
    assert text.count("(inside the band, as the best is, on 300 deals") == 3, text


def test_a_search_where_every_setting_plays_the_same_games_names_no_best():
    """counter's claim_gain plays only with the variant "I know what I have", off here; no one ever calls in a
    table of threshold:wake=-1, so the caller's tie and the ravens' rule change nothing. best_response named
    claim_gain=1.0 and said a value beyond it may do better; design named a best of four alike settings."""
    br = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 60, "seed": 11,
                         "lineup": {"focus": "counter", "field": "threshold"},
                         "search": {"focus.claim_gain": [1.0, 3.0, 5.0]}, "report": {"answer": "best_response"}})
    text = br.answer[0]
    assert text.startswith("no best response (counter against a table of threshold:wake=10): every value of "
                           "claim_gain raced gives the same win share on every deal, "), text
    assert "edge" not in text and "closest rivals" not in text, text
    de = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 3, "games": 60, "seed": 7,
                         "lineup": {"seats": ["threshold:wake=-1"]},
                         "search": {"rules.caller_tie": ["zero", "count"], "rules.ravens_not_scary": [False, True]},
                         "report": {"answer": "design", "objective": "seat_advantage", "target": 0.0}})
    text = de.answer[0]
    assert text.startswith("no best caller_tie, ravens_not_scary (first-seat advantage closest to 0.0%; "
                           "threshold:wake=-1 in every seat): every setting of caller_tie, ravens_not_scary raced "
                           "gives the same first-seat advantage on every deal, "), text
    assert "best by its estimate only" not in text and "as good a choice" not in text, text
    # where their shared figure misses the target, said of them all, with no best to set them apart from
    de = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 3, "games": 60, "seed": 7,
                         "lineup": {"seats": ["threshold:wake=-1"]}, "search": {"rules.caller_tie": ["zero", "count"]},
                         "report": {"answer": "design", "objective": "seat0_win_share", "target": 0.9}})
    text = de.answer[0]
    assert text.startswith("no best caller_tie (") and "(by their 95% interval every one misses the target)" in text
    assert "the best" not in text.split("; 2 settings raced")[1], text
    # the field's own setting among them: every one wins the fair share, whichever the grid lists first (with
    # the field's own value first it read "and every other setting measured below it")
    for grid in ([3.0, 1.0, 5.0], [1.0, 3.0, 5.0]):
        br = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 60, "seed": 11,
                             "lineup": {"focus": "counter", "field": "counter"},
                             "search": {"focus.claim_gain": grid}, "report": {"answer": "best_response"}})
        assert ("every value of claim_gain raced gives the same win share on every deal, 50.0% on every one of 60 "
                "deals (as the field's own setting: a table of one strategy wins the fair share by symmetry); "
                in br.answer[0]), br.answer[0]
    # one setting that plays other games: a best is named, the others the same as it on every deal
    de = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 3, "games": 60, "seed": 7,
                         "lineup": {"seats": ["threshold"]},
                         "search": {"rules.caller_tie": ["zero", "count"], "rules.penalty": [0, 15]},
                         "report": {"answer": "design", "objective": "seat_advantage", "target": 0.0}})
    assert de.answer[0].startswith("best caller_tie, penalty ("), de.answer[0]


def test_design_over_equilibria_says_a_fixed_point_at_the_edge_of_the_familys_grid():
    """The fixed point of each rule setting may be the grid's greatest value, where a value beyond it may be
    the equilibrium: `equilibrium` said so, `design`'s stakes did not."""
    import re

    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 3, "games": 100, "seed": 61,
                          "lineup": {"focus": "threshold", "field": "threshold:wake=8"},
                          "search": {"rules.penalty": [0, 15], "focus.wake": [-1, 4, 8, 12], "steps": 4},
                          "report": {"answer": "design", "objective": "equilibrium_stakes", "goal": "max"}})
    text = next(t for t in res.answer if "equilibrium of threshold under each rule setting" in t)
    found = re.findall(r"penalty=(\d+): fixed point wake=(-?\d+)( \(wake=12 is at the edge of the searched range "
                       r"\(-1 to 12\): a value beyond it may do better\))?", text)
    assert len(found) == 2, text
    assert any(w == "12" for _, w, _ in found), text   # the case this test is for
    for _, wake, edge in found:
        assert bool(edge) == (wake == "12"), text


def test_a_meta_game_setting_at_the_edge_of_the_grid_is_named_with_its_weight_in_each_solution():
    """alpha-rank gives every member some weight: "wake=10 is at the edge ..." read as a finding where
    alpha-rank gave it 0.3%."""
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 100, "seed": 31,
                          "rules": {"penalty": 15}, "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
                          "search": {"focus.wake": [-1, 2, 4, 6, 8, 10], "steps": 4, "meta": [2], "bootstrap": 0},
                          "report": {"answer": "equilibrium"}})
    assert res.answer[-2] == ("in the meta-game's solutions, wake=10 (alpha-rank 0.3%) is at the edge of the "
                              "searched range (-1 to 10): a value beyond it may do better"), res.answer
    assert res.answer[-1].startswith("Rules fixed by the config's [rules] for every cell, which the labels")


def test_design_brings_the_objective_to_its_target():
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 200, "seed": 3,
           "lineup": {"focus": "threshold:wake=14", "field": "threshold"},
           "search": {"rules.penalty": [0, 5, 15, 30]},
           "report": {"answer": "design", "objective": "focus_win_share", "target": 0.5}}
    res = run_experiment(raw)
    race = res.tables["race"]
    best = race.filter(pl.col("best")).row(0, named=True)
    assert best["distance"] == pytest.approx(abs(best["value"] - 0.5))
    assert best["distance"] <= race["distance"].min() + 1e-12 or not race.filter(pl.col("distance") < best["distance"])["survived"].any()
    assert res.answer[0].startswith("best penalty (the focus's win share closest to 50.0%")
    assert "rules.penalty" in res.cells.columns and res.cells["rules.penalty"].n_unique() == 4
    # where several settings end the race together, the answer says the best is best by its estimate only
    survivors = race.filter(pl.col("survived"))
    # a setting still in the race whose own interval misses the target is named as missing it (Fan & Mallet's
    # start 0,3 at 53.3% [51.8%, 54.8%] read "any of the 12 is as good a choice")
    off = survivors.filter(~pl.col("best") & ((pl.col("hi") < 0.5) | (pl.col("lo") > 0.5)))
    apart = "the race could not tell them apart: the best is best by its estimate only" in res.answer[0]
    named = "could not tell them from the best, which is best by its estimate only; " in res.answer[0]
    assert apart == (survivors.height > 1 and off.height == 0), (survivors, res.answer[0])
    assert named == (survivors.height > 1 and off.height > 0), (survivors, res.answer[0])
    for row in off.iter_rows(named=True):
        assert f"penalty={row['rules.penalty']} " in res.answer[0].split("by its own 95% interval")[1]
    # each such interval is uncorrected for the many settings: it says how many would seem to miss by chance
    if named:
        assert (f"; each interval alone, uncorrected: of {survivors.height} settings that all met the target, about "
                f"{0.05 * survivors.height:.1f} would seem to miss it by chance)") in res.answer[0]
    best_off = best["hi"] < 0.5 or best["lo"] > 0.5  # penalty=5 at 57.6% [53.5%, 61.7%] here
    assert best_off == ("the best misses the target" in res.answer[0])
    # and it says so where it leads, beside the best's own figure (the race's verdict ends a long sentence)
    lead = res.answer[0].split("; closest rivals")[0]
    others = survivors.height - 1
    assert (f"(best by its estimate only: {others} other setting{'s' if others > 1 else ''} still in the race)"
            in lead) == (others > 0), lead
    # the figure draws the objective, the race ranks distances: its caption says so
    from experiments.answers import design
    from experiments.answers.base import ReportContext
    ctx = ReportContext({}, res.tables, res.cells, [], [], None)
    (fig,) = [f for f in design.figures(ctx) if f is not None]
    assert fig.caption.endswith("the race compares the settings by their distance to the target, paired on the same "
                                "deals, so a setting on either side of it may stay in the race")


def focus_per_deal(games: pl.DataFrame, cells: pl.DataFrame, cell: int) -> pl.DataFrame:
    """The focus's win share per deal of one lineup (a row of cells), from its per-game rows: the mean of
    its seats over every rotation, as the searches compute it."""
    focus = cells.filter(pl.col("cell") == cell)["focus"][0]
    g = games.filter((pl.col("cell") == cell) & (pl.col("strategy") == focus))
    return g.group_by("game").agg(pl.col("win").mean()).sort("game")


def test_best_response_against_a_tournament_field_pools_each_entrants_table(tmp_path):
    raw = {"title": "t", "question": "q", "game": "sen", "games": 90, "seed": 5, "sweep": {"players": [2, 3]},
           "lineup": {"tournament": ["counter", "watcher", "swapper", "threshold"]},
           "search": {"threshold.wake": [4, 10, 16, 22], "first": 30},
           "report": {"answer": "best_response", "per_game": True}}
    res = run_experiment(raw)
    assert len(res.answer) == 2
    for text in res.answer:
        assert "threshold against the tournament field: alone against a table of each of counter, watcher, " \
               "swapper in turn" in text
        assert re.search(r"against each table: counter [\d.]+% \[[\d.]+%, [\d.]+%\], watcher .*, swapper ", text)
    cells, games, race = res.cells, res.tables["games"], res.tables["race"]
    # every setting plays alone against a table of each other entrant, every seat rotated, on the same deals
    for (players, focus), sub in cells.group_by(["players", "focus"]):
        assert sorted(f.split(":")[0] for f in sub["field"]) == ["counter", "swapper", "watcher"]
        assert (sub["rotations"] == players).all() and sub["deals"].n_unique() == 1
    # the raced figure is the mean over the three tables, deal by deal
    for row in race.iter_rows(named=True):
        sub = cells.filter((pl.col("players") == row["players"]) & (pl.col("focus") == f"threshold:{row['setting']}"))
        per = [focus_per_deal(games, cells, c)["win"].head(row["deals"]).to_numpy() for c in sub["cell"]]
        assert sum(p.mean() for p in per) / 3 == pytest.approx(row["value"], abs=1e-6)  # (per-deal values are float32)
    assert race.filter(pl.col("best")).height == 2
    assert res.tables["ratings"].height == 0
    page = open(build_report(res.write(str(tmp_path)), index=False), encoding="utf-8").read()
    assert "<b>Best response.</b>" in page


def test_per_game_rows_of_the_searching_answers_are_the_games_played(tmp_path):
    res = run_experiment(br(report={"answer": "best_response", "per_game": True}, games=60))
    games, cells = res.tables["games"], res.cells
    assert games.height == int((cells["games"] * cells["players"]).sum())
    assert set(games["cell"]) == set(cells["cell"])
    for row in cells.iter_rows(named=True):   # the rows of a lineup add up to its figures
        sub = games.filter(pl.col("cell") == row["cell"])
        assert sub.height == row["games"] * row["players"] and sub["rotation"].n_unique() == row["rotations"]
        fw = sub.filter(pl.col("strategy") == row["focus"])["win"]
        assert fw.mean() == pytest.approx(row["focus_win_share"], abs=1e-9)
    run_dir = res.write(str(tmp_path))
    assert pl.read_parquet(os.path.join(run_dir, "games.parquet")).equals(games)
    eqr = run_experiment(eq(games=30, search={"focus.wake": [4, 8, 12]},
                            report={"answer": "equilibrium", "per_game": True}))
    assert eqr.tables["games"].height == int((eqr.cells["games"] * eqr.cells["players"]).sum())


def test_per_game_rows_are_kept_by_the_chunk_store_and_read_back(tmp_path):
    from experiments.engine import ChunkStore
    from strategies.registry import lineup

    cfg = load(br(report={"answer": "best_response", "per_game": True}, games=40, chunk_size=16))
    cell = cfg.cells[0]
    agents = lineup("sen", ["threshold:wake=6", "threshold:wake=10"], 2)
    out = []
    for _ in range(2):
        ev = search_mod.Evaluator(cfg, store=ChunkStore(str(tmp_path)))
        run = ev.lineup(cell, agents, {})
        ev.extend([run], 40)
        ev.close()
        out.append((run, pl.concat(run.games_rows)))
    (first, g1), (again, g2) = out
    assert first.games_played == 80 and again.games_restored == 80 and again.games_played == 0
    assert g1.equals(g2) and g1.height == 2 * 40 * 2


@pytest.fixture(scope="module")
def de_run():
    return run_experiment(de(report={"answer": "design", "objective": "equilibrium_stakes", "goal": "max",
                                     "per_game": True}))


def test_design_over_equilibria_does_not_depend_on_jobs_and_draws_its_figures(de_run, monkeypatch, tmp_path):
    monkeypatch.setattr(search_mod.Evaluator, "parallel_seconds", 0.0)  # every batch goes to the workers
    other = run_experiment(de(report={"answer": "design", "objective": "equilibrium_stakes", "goal": "max",
                                      "per_game": True}), jobs=2)
    assert other.answer == de_run.answer
    for name in ("race", "equilibrium", "path", "games"):
        assert other.tables[name].equals(de_run.tables[name]), name
    page = open(build_report(de_run.write(str(tmp_path)), index=False), encoding="utf-8").read()
    for title in ("Design search", "Best-response curves", "Iteration paths"):
        assert f"<b>{title}.</b>" in page, title
    # its fixed points are not played again on fresh deals, as an equilibrium question's may be: said so
    assert ("(no fixed point here was played again on fresh deals, so none shows hollow: a config whose answer is "
            "equilibrium, with confirm in its [search] table, checks them so)") in page
    # the Balance table keeps the searched rule settings apart (pooled, its figures meant no setting)
    balance = page.split('<section id="balance">')[1].split("</section>")[0]
    assert re.findall(r"<tr><td>(penalty \d+)</td>", balance) == ["penalty 0", "penalty 15"], balance[:2000]


def test_design_over_the_equilibrium_of_each_rule_setting(de_run):
    res = de_run
    assert res.answer[0].startswith("best penalty (highest equilibrium stakes; ")
    # the grid is coarse (4 to 20 in steps of 4): a fixed point is one of its values, and the sentence says so
    assert res.answer[1].startswith("equilibrium of threshold under each rule setting (iterated best response over "
                                    "the grid's 5 values of wake, 4 to 20 (a fixed point is one of them: the values "
                                    "between them were not tried); stakes: ")
    from experiments.answers.design import _grid_text
    assert _grid_text([{"focus.wake": v} for v in (2, 3, 4)]) == "the grid's 3 values of wake, 2 to 4"
    assert _grid_text([{"focus.margin": v} for v in (0.5, 1.0)]).endswith("the values between them were not tried)")
    race, eqt, path = res.tables["race"], res.tables["equilibrium"], res.tables["path"]
    design = race.filter(pl.col("step").is_null())
    assert design.height == 2 and set(design["rules.penalty"]) == {0, 15}
    assert eqt.height == 2 and (eqt["kind"] == "symmetric fixed point").all()
    for col in ("players", "rules.penalty", "solution", "strategy", "focus.wake", "probability", "ci_low", "ci_high"):
        assert col in eqt.columns
    games, cells = res.tables["games"], res.cells
    for row in eqt.iter_rows(named=True):
        p, e = row["rules.penalty"], row["focus.wake"]
        steps = path.filter(pl.col("rules.penalty") == p).sort("step")
        assert steps["field.wake"][0] == 12                          # from the field's value
        if row["solution"] == "fixed point":                          # e survived the race against a table of e
            assert steps["field.wake"][-1] == e and steps["fixed"][-1]
            assert f"wake={e}" in steps["tied"][-1].split(", ")
            others = [t for t in steps["tied"][-1].split(", ") if t != f"wake={e}"]
            # at the grid's least or greatest value it says so (wake's own least is -1, below the grid's 4)
            edge = f" (wake={e} is at the edge of the searched range (4 to 20): a value beyond it may do better)"
            said = f"penalty={p}: fixed point wake={e}{edge if e in (4, 20) else ''}, path "
            assert said in res.answer[1], res.answer[1]
            part = res.answer[1].split(said)[1].split(";")[0]
            if others:  # the other survivors of its last race, in words, and the best one's paired gain
                assert f"({', '.join(others)} {'is' if len(others) == 1 else 'are'} not ruled out against a table " \
                       "of it either" in part, part
                best = race.filter((pl.col("rules.penalty") == p) & (pl.col("step") == steps["step"][-1])
                                   & pl.col("best"))
                assert best.height == 1
                if not best["setting"][0].endswith(f"wake={e}"):
                    assert re.search(r": the best measured, wake=\d+, gains [+-]\d+\.\d% \[[+-]\d+\.\d%, "
                                     r"[+-]\d+\.\d%\] on the same [\d,]+ deals, a difference that the race's test, "
                                     r"corrected for picking among \d+ settings, does not call clear\)", part), part
            else:
                assert "not ruled out" not in part
        # the stakes, recomputed from the games: at a table of e, e's own share minus the grid's mean share
        d = design.filter(pl.col("rules.penalty") == p).row(0, named=True)
        at_e = cells.filter((pl.col("rules.penalty") == p) & (pl.col("field") == f"threshold:wake={e}"))
        own = at_e.filter(pl.col("focus") == f"threshold:wake={e}")["cell"][0]
        per = {f: focus_per_deal(games, cells, c)["win"].head(d["deals"]).to_numpy()
               for f, c in zip(at_e["focus"], at_e["cell"])}
        assert len(per) == 5
        stakes = per[f"threshold:wake={e}"] - sum(per.values()) / 5
        assert stakes.mean() == pytest.approx(d["value"], abs=1e-6)
        assert own in set(games["cell"])
    best = design.filter(pl.col("best")).row(0, named=True)
    assert best["value"] >= design.filter(pl.col("survived"))["value"].max() - 1e-12


CONFIG = """\
title = "Resume a search"
question = "Which wake is the best response?"
game = "sen"
games = 240
seed = 21
chunk_size = 20

[lineup]
focus = "threshold"
field = "threshold:wake=10"

[sweep]
players = [2, 3]

[search]
"focus.wake" = { min = 4, max = 24, step = 2 }
first = 60

[report]
answer = "best_response"
"""


def test_sigkill_then_resume_replays_no_finished_evaluation(tmp_path):
    cfg = tmp_path / "resume_search.toml"
    cfg.write_text(CONFIG)
    ref = run_experiment(str(cfg), out=str(tmp_path / "ref"))
    total = ref.manifest["chunks_played"]
    out = str(tmp_path / "runs")
    proc = subprocess.Popen([SENSEI, "run", str(cfg), "--no-report", "--no-progress", "--out", out],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    import time
    t0 = time.monotonic()
    while len(glob.glob(os.path.join(out, "*", "parts", "*.npz"))) < 10:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t0 < 120, "no finished chunks after 120 s"
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    (run_dir,) = glob.glob(os.path.join(out, "*"))
    kept = len(glob.glob(os.path.join(run_dir, "parts", "*.npz")))
    assert 10 <= kept < total
    done = subprocess.run([SENSEI, "run", str(cfg), "--no-progress", "--no-report", "--resume", run_dir, "--jobs", "2"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    man = json.load(open(os.path.join(run_dir, "manifest.json")))
    assert man["chunks_restored"] == kept and man["chunks_played"] == total - kept
    for name in ("race", "cells", "paired"):
        a, b = pl.read_parquet(os.path.join(ref.run_dir, f"{name}.parquet")), pl.read_parquet(
            os.path.join(run_dir, f"{name}.parquet"))
        if name == "cells":
            a, b = a.drop("seconds"), b.drop("seconds")
        assert a.equals(b), name
    assert json.load(open(os.path.join(run_dir, "summary.json")))["answer"] == ref.answer


def test_equilibrium_support_panels_keep_groups_apart():
    # two penalties' Nash mixtures must not share a panel (their probabilities would add up to 200%)
    from experiments.answers.equilibrium import _with_panels
    eq = pl.DataFrame({"players": [2, 2, 2], "rules.penalty": [5, 15, 15], "rules.target": [100, 100, 100],
                       "solution": ["nash"] * 3, "probability": [1.0, 0.6, 0.4]})
    panels = _with_panels(eq)["panel"].to_list()
    assert panels == ["2p penalty=5 nash", "2p penalty=15 nash", "2p penalty=15 nash"]


def test_a_best_setting_at_the_edge_of_its_range_is_said_so():
    from experiments.answers.searching import edge_text
    from experiments.search import Param
    grid = Param("focus.wake", "focus", "wake", (4, 8, 12, 16, 20))
    assert edge_text([grid], {"focus.wake": np.int64(20)}) == (
        "; wake=20 is at the edge of the searched range (4 to 20): a value beyond it may do better")
    assert edge_text([grid], {"focus.wake": 12}) == ""
    cont = Param("focus.edge", "focus", "edge", None, 0.0, 8.0)
    assert "edge=7.851 is at the edge of the searched range (0.0 to 8.0)" in edge_text([cont], {"focus.edge": 7.851})
    assert edge_text([cont], {"focus.edge": 7.5}) == ""
    # text values and two-value choices are not ranges
    assert edge_text([Param("rules.start_positions", "rules", "start_positions", ("0,6", "0,3", "0,1"))],
                     {"rules.start_positions": "0,6"}) == ""
    assert edge_text([Param("rules.penalty", "rules", "penalty", (5, 15))], {"rules.penalty": 15}) == ""


def test_a_fixed_point_whose_deviation_is_clear_on_its_own_is_called_weak():
    """The race keeps a fixed point unless a deviation is clear after its correction for picking among the
    settings; where the deviation's own paired interval lies above 0, the answer says it is weak."""
    res = run_experiment(eq(seed=3, search={"focus.wake": {"min": 4, "max": 24, "step": 2}, "confirm": 100}))
    head = res.answer[0]
    found = re.findall(r"a paired difference of [+-][\d.]+% \[([+-][\d.]+)%, [+-][\d.]+%\] over [\d,]+ deals that the "
                       r"race's test, corrected for picking among \d+ settings, does not call clear(; a weak fixed "
                       r"point: that interval alone lies above 0)?", head)
    assert found, head
    assert any(weak for _, weak in found), head  # this seed's fixed point is a weak one
    # and the fresh deals refute it: the sentence leads with that, not with an equilibrium
    # (iterated best response's: the group's meta-game may hold a Nash equilibrium that does hold up)
    assert re.match(r"symmetric equilibrium by iterated best response: none that holds up on the fresh deals \(its "
                    r"one fixed point, wake=16, does not: "
                    r"wake=20 wins [\d.]+% \[[\d.]+%, [\d.]+%\] against a table of it there \(fair 50\.0%\)\): "
                    r"wake=16 \(reached from", head), head
    for lo, weak in found:
        assert bool(weak) == (float(lo) > 0), (lo, weak)


def test_a_rival_alike_on_every_fresh_deal_has_no_interval():
    from experiments.answers.searching import confirmed_text

    conf = {"deals": 400, "first": 100, "ci": (0.6, 0.55, 0.65), "alike": False, "rival": {"focus.wake": 0},
            "rival_ci": (0.6, 0.55, 0.65), "rival_alike": False,
            "versus": {"diff": 0.0, "lo": 0.0, "hi": 0.0, "p_value": None, "n": 400, "rho": None}}
    text = confirmed_text(conf, "win_share")
    assert text.endswith("the same as the best's on every one of them") and "[+0.0%" not in text
    conf["versus"] = {"diff": -0.02, "lo": -0.03, "hi": -0.01, "p_value": 0.01, "n": 400, "rho": 0.5}
    assert "a paired difference of -2.0% [-3.0%, -1.0%] from the best" in confirmed_text(conf, "win_share")


def test_a_design_confirmation_says_where_the_fresh_deals_miss_the_target():
    """A design's best setting whose interval on the fresh deals lies wholly off the target (or band) is not
    borne out there, and the answer says so, with the rival's verdict; an interval that reaches it adds nothing
    (Fan & Mallet's start 0,11 for counter won 50.5% in the race and 47.5% [46.4%, 48.6%] on 8,000 fresh deals)."""
    from experiments.answers.searching import confirmed_text

    conf = {"deals": 8000, "first": 400, "ci": (0.475, 0.464, 0.486), "alike": False,
            "rival": {"rules.start_positions": (0, 5)}, "rival_ci": (0.526, 0.515, 0.537), "rival_alike": False,
            "versus": {"diff": 0.051, "lo": 0.036, "hi": 0.066, "p_value": 1e-9, "n": 8000, "rho": 0.1}}
    assert confirmed_text(conf, "seat0_win_share", 0.5).endswith(
        "(from the target: 2.5% for the best, 2.6% for the rival); so on these deals the best misses the target "
        "50.0% (its interval lies below it), and so does the rival (above it)")
    conf["rival_ci"] = (0.51, 0.495, 0.525)
    assert confirmed_text(conf, "seat0_win_share", 0.5).endswith(
        "misses the target 50.0% (its interval lies below it), where the rival's interval reaches it")
    assert confirmed_text(conf, "seat0_win_share", None, (0.49, 0.51)).endswith(
        "misses the band [49.0%, 51.0%] (its interval lies below it), where the rival's interval reaches it")
    conf["ci"] = (0.499, 0.488, 0.51)  # reaches the target: nothing more to say
    assert confirmed_text(conf, "seat0_win_share", 0.5).endswith("(from the target: 0.1% for the best, 1.0% for the rival)")
    assert "misses" not in confirmed_text(conf, "win_share")  # no target (a best response): no verdict


def test_a_setting_label_writes_a_whole_float_as_a_spec_does():
    from experiments.search import setting_label
    from strategies.registry import lineup

    assert setting_label({"focus.feed": 2.0, "focus.thrift": 0.1 + 0.2, "focus.wake": 8}) == \
        "feed=2.0, thrift=0.3, wake=8"
    assert "feed=2.0" in lineup("fan-and-mallet", ["closer:feed=2"], 2)[0].spec()


def test_two_players_whose_games_may_have_no_winner_take_the_search_of_supports():
    """The linear program's equilibrium of A - A.T is a Nash equilibrium only where the two seats' win shares
    add up to 1; Sensu's games stopped at the turn limit have no winner, and its answer was then no Nash
    equilibrium (hawk and dove: pure hawk, with a regret of 0.2)."""
    raw = {"title": "t", "question": "q", "game": "sensu", "players": 2, "games": 12, "seed": 4,
           "rules": {"max_turns": 90}, "lineup": {"population": ["random", "planner", "focus"]},
           "search": {"bootstrap": 5, "solvers": ["nash"]}, "report": {"answer": "equilibrium"}}
    res = run_experiment(raw)
    assert res.answer[0].startswith("Nash (a search of supports) of the meta-game of 3 strategies"), res.answer[0]
    assert "stopped at the turn limit" in res.answer[-1]
    assert res.tables["regrets"]["regret"].max() < 1e-9
    # every game stopped at the turn limit: every mix is an equilibrium, one set of them, shown without an
    # interval (it read 28 distinct equilibria, each with an interval of no width)
    every = run_experiment({**raw, "rules": {"max_turns": 5}})
    assert "one point of a set of equilibria" in every.answer[0] and "[" not in every.answer[0].split(";")[0]
    assert "symmetric equilibria its search found" not in every.answer[0]
    # hawk and dove, as a table whose two shares do not add up to 1: the search's equilibrium, not the LP's
    import simcore.gametheory as gt

    A = np.array([[0.0, 1.0], [0.2, 0.6]])  # hawk against hawk: nobody wins
    t = gt.matrix_table(A)
    x = gt.symmetric_nash(t, 2, 2)[0]
    assert np.allclose(x, [2 / 3, 1 / 3]) and gt.regrets(t, 2, 2, x)[0].max() < 1e-9
    lp, _, _ = gt.zero_sum_nash(A - A.T)
    assert gt.regrets(t, 2, 2, lp)[0].max() > 0.1


def test_two_players_alike_in_the_linear_programs_support_are_one_set_without_an_interval():
    """Two members that play the same games (guard's margins 3 and 4 in Senshi) both beat random: every split
    of the weight between them is an equilibrium. The linear program put it all on one of them, with an
    interval of no width ("guard:margin=3 100.0% [100.0%, 100.0%]"), as if the other were no part of it."""
    raw = {"title": "t", "question": "q", "game": "senshi", "players": 2, "games": 40, "seed": 7,
           "lineup": {"population": ["guard:margin=3", "guard:margin=4", "random"]},
           "search": {"bootstrap": 10, "solvers": ["nash"]}, "report": {"answer": "equilibrium"}}
    nash = run_experiment(raw)
    text = nash.answer[0]
    assert text.startswith("Nash (linear program)"), text
    assert "guard:margin=3 50.0%, guard:margin=4 50.0%;" in text and "[100.0%" not in text, text
    assert ("one point of a set of equilibria: guard:margin=3 and guard:margin=4 win alike against every "
            "member, so any split of their 100.0% among them is an equilibrium too") in text, text
    eq = nash.tables["equilibrium"]
    assert len(eq) == 2 and eq["ci_low"].null_count() == 2
    # alike members outside the support leave the equilibrium one point, with its interval
    beaten = run_experiment({**raw, "lineup": {"population": ["counter", "guard:margin=3", "guard:margin=4"]}})
    text = beaten.answer[0]
    assert text.startswith("Nash (linear program) of the meta-game of 3 strategies"), text
    assert "counter 100.0% [" in text and "set of equilibria" not in text, text


def test_a_meta_games_payoffs_are_a_random_seatings_whatever_the_order_of_the_population():
    """With three players a lineup was played in the rotations of one seating, the population's order: who
    plays after whom was fixed by how the config listed the members. In Sen, threshold:wake=4 won 43.7% at a
    table of random, threshold:wake=4, watcher and 17.2% with watcher and it swapped; two members that play
    the same games (counter, and counter with a parameter of a variant that is off) got 69.6% and 30.4% at a
    table with random. Every order round the table is now played, weighted as in a random seating."""
    import math

    def shares(population):
        raw = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 30, "seed": 21,
               "lineup": {"population": population}, "search": {"bootstrap": 0, "solvers": ["nash"]},
               "report": {"answer": "equilibrium"}}
        res = run_experiment(raw)
        t = res.tables["metagame"]
        return res, {(tuple(sorted(row["lineup"].split(" / "))), row["strategy"]): row["win_share"]
                     for row in t.iter_rows(named=True)}

    res, a = shares(["random", "threshold:wake=4", "watcher"])
    assert "(10 lineups in 11 orders round the table, 30 deals each" in res.answer[0], res.answer[0]
    _, b = shares(["watcher", "random", "threshold:wake=4"])
    assert a.keys() == b.keys()
    for k in a:
        assert math.isclose(a[k], b[k], abs_tol=1e-12), (k, a[k], b[k])
    _, c = shares(["counter", "counter:claim_gain=1.0", "random"])
    table = ("counter", "counter:claim_gain=1.0", "random")
    assert c[(table, "counter")] == c[(table, "counter:claim_gain=1.0")] > 0.1


def test_the_headline_says_an_equilibrium_is_one_point_of_a_set():
    from experiments.answers.equilibrium import _headline

    meta = ("2 players: Nash (linear program) of the meta-game of 3 strategies (6 lineups, 40 deals each, 360 "
            "games): guard:margin=3 50.0%, guard:margin=4 50.0%; regret against it (what a member outside it "
            "gains, the closest first) random -48.8% [-50.0%, -47.5%]; one point of a set of equilibria: "
            "guard:margin=3 and guard:margin=4 win alike against every member, so any split of their 100.0% "
            "among them is an equilibrium too; the shares shown split it evenly, with no interval")
    head = _headline(["a", "b", "c", meta])
    assert head == [meta.split("; regret against it")[0] + " (one point of a set of equilibria; see the answer "
                    "in full)"], head


def test_a_path_whose_steps_ran_out_on_a_fixed_point_says_so():
    # sen_wake_equilibrium, 3 players, penalty 15: the paths from 20 and 32 ended their 8 steps with wake 8
    # as best response, the fixed point the path from 4 found, and read "no fixed point in 8 steps"
    from types import SimpleNamespace

    from experiments.answers.equilibrium import Path, _unfinished_text

    # as ``search`` builds it: the 8 fields raced, then the last best response appended (it printed "wake=7 ->
    # wake=8 -> wake=8", the last one twice)
    steps = [{"focus.wake": w} for w in (20, 14, -1, 3, 4, 5, 6, 7, 8)]
    p = Path(start=steps[0], fields=steps, found=[SimpleNamespace(best=b) for b in steps[1:]])
    text = _unfinished_text(p, [({"focus.wake": 8}, None)])
    assert text.startswith("no fixed point in its 8 steps, its last best response being the fixed point wake=8")
    assert text.endswith("(wake=20 -> wake=14 -> wake=-1 -> wake=3 -> wake=4 -> wake=5 -> wake=6 -> wake=7 -> wake=8)")
    assert _unfinished_text(p, [({"focus.wake": 4}, None)]).startswith("no fixed point in 8 steps (wake=20 -> ")


def test_the_paths_figure_draws_the_last_best_response_of_a_path_that_ran_out():
    import matplotlib

    from experiments.answers.equilibrium import _label_value, _path_figure

    matplotlib.use("Agg")
    df = pl.DataFrame({"players": [3] * 4, "path": [0, 0, 1, 1], "start": ["wake=4", "wake=4", "wake=20", "wake=20"],
                       "step": [0, 1, 0, 1], "field": ["wake=4", "wake=8", "wake=20", "wake=7"],
                       "field.wake": [4, 8, 20, 7], "best_response": ["wake=8", "wake=8", "wake=7", "wake=8"],
                       "fixed": [False, True, False, False]})
    fig = _path_figure(df, ["players"])
    assert fig is not None and "the last best response of a path that reached none (a cycle back to an earlier value, or its steps ran out)" in fig.caption
    assert _label_value("wake=8") == 8.0 and _label_value("wake=-1") == -1.0 and _label_value("none") is None
    assert "hollow star" not in fig.caption  # no equilibrium table: no fixed point known to fail


def test_the_paths_figure_draws_a_fixed_point_that_fails_on_the_fresh_deals_as_a_hollow_star():
    import matplotlib

    from experiments.answers.equilibrium import _failed_fixed, _path_figure

    matplotlib.use("Agg")
    df = pl.DataFrame({"players": [3, 3, 4, 4], "rules.penalty": [5, 5, 5, 5], "path": [0, 0, 0, 0],
                       "start": ["wake=4"] * 4, "step": [0, 1, 0, 1], "field": ["wake=4", "wake=8"] * 2,
                       "field.wake": [4, 8, 4, 8], "best_response": ["wake=8"] * 4,
                       "fixed": [False, True, False, True]})
    eq = pl.DataFrame({"players": [3, 4, 4], "rules.penalty": [5, 5, 5], "rules.target": [None, None, None],
                       "kind": ["symmetric fixed point", "symmetric fixed point", "Nash (linear program)"],
                       "focus.wake": [8, 8, 4], "fresh_holds": [False, True, None]})
    # the 3-player fixed point fails there; the 4-player one holds up; a non-fixed step is never marked
    assert _failed_fixed(df, eq, "field.wake")["failed"].to_list() == [False, True, False, False]
    fig = _path_figure(df, ["players"], eq)
    assert "a hollow star, one that does not hold up on the fresh deals (a deviation gains against it there)" in fig.caption
    assert "hollow star" not in _path_figure(df, ["players"], eq.with_columns(pl.lit(True).alias("fresh_holds"))).caption


def test_an_equilibrium_whose_shares_span_0_to_100_on_resampled_deals_says_the_deals_are_too_few():
    from experiments.answers.equilibrium import MetaGame, _meta_sentences

    meta = MetaGame(["a", "b", "c"], [None] * 3, 2, [(0, 1)], {}, None, 40, 240)
    sol = {"kind": "Nash (linear program)", "probs": np.array([0.6, 0.4, 0.0]), "lo": np.array([0.0, 0.0, 0.0]),
           "hi": np.array([1.0, 0.7, 0.0]), "regret": np.array([0.0, 0.0, -0.1])}
    meta.solutions.append(sol)
    (text,) = _meta_sentences("2 players", meta, "eliminated", 0.5)
    assert text.endswith("; 40 deals a lineup do not pin the mix down: on resampled deals a ranges from 0% to 100% "
                         "of it (more deals a lineup, the config's games or --games, narrow the intervals)")
    sol["others"] = [np.array([0.0, 0.0, 1.0])]  # the resamples may land on the other equilibrium
    assert _meta_sentences("2 players", meta, "eliminated", 0.5)[0].endswith(
        "; on resampled deals a ranges from 0% to 100% of it: the resamples land on different equilibria of the 2 "
        "found, or 40 deals a lineup are too few to pin the mix down (more deals a lineup, the config's games or "
        "--games, tell the two apart)")
    from experiments.answers.equilibrium import _headline
    sentences = ["x"] * 3 + _meta_sentences("2 players", meta, "eliminated", 0.5)
    assert _headline(sentences) == ["2 players: Nash (linear program) of the meta-game of 3 strategies (1 lineups, 40 "
                                    "deals each, 240 games): a 60.0% [0.0%, 100.0%], b 40.0% [0.0%, 70.0%] (one of the "
                                    "2 equilibria its search found; some intervals from 0% to 100%: the resamples land "
                                    "on different equilibria, or the deals do not pin this mix down; see the answer "
                                    "in full)"]
    del sol["others"]
    sol["hi"] = np.array([0.891, 0.7, 0.0])  # 89.1 points of 100: short of nearly all of it, nothing to say
    assert "pin the mix" not in _meta_sentences("2 players", meta, "eliminated", 0.5)[0]
    # nearly all of 0% to 100%: as loose as all of it (a 2-player Senshi meta-game at 2,000 deals a lineup
    # read "racer 100.0% [1.0%, 100.0%]", where counter, nearly tied with racer, takes the mix on some resamples)
    sol["probs"], sol["lo"], sol["hi"] = np.array([1.0, 0.0, 0.0]), np.array([0.01, 0.0, 0.0]), np.array([1.0, 0.0, 0.0])
    (text,) = _meta_sentences("2 players", meta, "eliminated", 0.5)
    assert text.endswith("; 40 deals a lineup do not pin the mix down: on resampled deals a ranges from 1.0% to "
                         "100.0% of it (more deals a lineup, the config's games or --games, narrow the intervals)")
    assert _headline(["x"] * 3 + [text])[0].endswith(
        "a 100.0% [1.0%, 100.0%] (some intervals from nearly 0% to 100%: the deals do not pin this mix down; see the "
        "answer in full)")
    sol["probs"], sol["lo"], sol["hi"] = np.array([0.6, 0.4, 0.0]), np.array([0.0, 0.05, 0.0]), np.array([1.0, 0.991, 0.0])
    assert _meta_sentences("2 players", meta, "eliminated", 0.5)[0].endswith(
        "on resampled deals a ranges from 0.0% to 100.0% of it, b from 5.0% to 99.1% (more deals a lineup, the "
        "config's games or --games, narrow the intervals)")
    sol["lo"] = np.array([0.12, 0.0, 0.0])  # 88 points: pinned down enough to say nothing
    sol["hi"] = np.array([1.0, 0.7, 0.0])
    assert "pin the mix" not in _meta_sentences("2 players", meta, "eliminated", 0.5)[0]
    del sol["lo"], sol["hi"]  # no intervals at all (a set of equilibria): nothing to say of them
    assert "pin the mix" not in _meta_sentences("2 players", meta, "eliminated", 0.5)[0]


def test_a_tuned_member_is_in_the_strategies_table_under_its_label(tmp_path):
    """senshi_meta's tuned guard (guard:late=8) was missing from the report's Strategies table, which listed
    only the config's guard (late=4)."""
    from reports import build_report

    raw = {"title": "t", "question": "q", "game": "senshi", "games": 6, "seed": 9, "players": 2,
           "lineup": {"population": ["random", "guard"]}, "search": {"guard.margin": [2, 4], "bootstrap": 5},
           "report": {"answer": "equilibrium"}}
    res = run_experiment(raw)
    (tuned,) = set(res.tables["metagame"]["strategy"].to_list()) - {"random"}
    assert tuned.startswith("guard:margin=")
    full = next(k for k, v in res.summary()["labels"].items() if v == tuned)
    assert full == f"guard:margin={tuned.split('=')[1]},min_gain=2,late=4"
    page = open(build_report(res.write(str(tmp_path)), index=False), encoding="utf-8").read()
    table = page[page.index("<th>what it plays</th>"):]
    assert f"<td>{tuned}</td><td class='fullspec'>{full.replace(',', ',<wbr>')}</td>" in table


def test_a_fixed_points_fresh_deals_come_after_every_deal_its_group_played(monkeypatch):
    """sen_wake_equilibrium (3 players, penalty 15): wake=8's own race stopped at 1,000 deals, but the races
    of the path's earlier steps, whose best responses led to it, played 2,000; its confirmation was said to
    be on deals "numbered from 1,000 (none of them helped find it)"."""
    from types import SimpleNamespace

    from experiments.answers import equilibrium as eqm

    f, dev = {"focus.wake": 8}, {"focus.wake": 10}

    def found(deals, settings, best):
        race = SimpleNamespace(rounds=[(deals, [0, 1], 2)], best=best)
        runs = {i: [SimpleNamespace(deals=deals)] for i in range(len(settings))}
        return SimpleNamespace(race=race, raced=list(range(len(settings))), settings=settings, runs=runs)

    early = found(2000, [{"focus.wake": 5}, {"focus.wake": 6}], 1)
    last = found(1000, [f, dev], 1)
    path = eqm.Path(start={"focus.wake": 5}, fields=[{"focus.wake": 5}, f], found=[early, last], end="fixed", fixed=f)
    monkeypatch.setattr(eqm, "mean_values", lambda runs, fn, stop: np.zeros(stop))
    monkeypatch.setattr(eqm, "confirm_fits", lambda first, confirm, path: None)
    ev = SimpleNamespace(extend=lambda runs, stop: None)
    out = eqm._confirm_fixed_points(SimpleNamespace(path="x.toml"), ev, SimpleNamespace(confirm=500), [path], None)
    assert out["wake=8"]["first"] == 2000 and out["wake=8"]["setting"] == dev


def test_a_best_response_that_the_race_cannot_tell_from_the_field_says_the_path_stays():
    """The best measured response to the field is not a move away from it where the race keeps the field's
    own value: the field is then a fixed point at once, and both answers say why."""
    res = run_experiment(eq(seed=1, players=4, search={"focus.wake": {"min": 4, "max": 16, "step": 2}}))
    br_ = next(a for a in res.answer if a.startswith("best response to the field threshold:wake=8: "))
    assert re.search(r"^best response to the field threshold:wake=8: wake=10, win share [\d.]+% \[[\d.]+%, [\d.]+%\] "
                     r"over 80 deals \(fair 25\.0%\); not clearly better than the field's own value wake=8, which "
                     r"the race's test, corrected for picking among 7 settings, keeps: the path stays there; "
                     r"paths: wake=8;", br_), br_
    assert res.answer[0].startswith("symmetric equilibrium: wake=8 (reached from wake=8;")
    res = run_experiment(de(seed=1, search={"rules.penalty": [0, 15], "focus.wake": [8, 10, 12, 14, 16]}))
    text = next(a for a in res.answer if a.startswith("equilibrium of threshold"))
    assert ("penalty=15: fixed point wake=12, path wake=12 (" in text and "; best response to the field "
            "threshold:wake=12: its own value wake=12 (the best measured, wake=10, is not clearly better); " in text)
    # a path that moves keeps the plain best response
    assert "path wake=12 -> wake=16; best response to the field threshold:wake=12: wake=16; " in text


def test_a_confirmed_runs_tables_say_they_pool_the_fresh_deals_with_the_race(tmp_path):
    res = run_experiment(br(games=400, sweep={}, players=2, search={"focus.wake": [4, 30], "confirm": 40}))
    assert res.tables["confirm"].height
    page = open(build_report(res.write(str(tmp_path)), index=False), encoding="utf-8").read()
    balance = page.split('<section id="balance">')[1].split("</section>")[0]
    assert "A setting that search.confirm played again on fresh deals counts them here with the deals of" in balance
    assert "pools them here with the deals of its race" in page.split('<section id="tables">')[1]
    # without a confirmation, neither says so
    plain = run_experiment(br(games=100, sweep={}, players=2, search={"focus.wake": [4, 30]}))
    page = open(build_report(plain.write(str(tmp_path / "plain")), index=False), encoding="utf-8").read()
    assert "search.confirm played again" not in page and "pools them here" not in page


def test_the_headline_says_the_mix_shown_is_one_of_several_equilibria():
    from experiments.answers.equilibrium import _headline

    text = ("3 players: Nash (a search of supports) of the meta-game of 6 strategies (56 lineups, 40 deals each, "
            "6,240 games): guard 51.7% [40.0%, 60.0%], counter 48.3% [40.0%, 60.0%]; regret against it (what a member "
            "outside it gains, the closest first) greedy -22.4% [-25.0%, -19.2%]; one of 5 symmetric equilibria its "
            "search found (the first it found); the others: racer 58.5%, guard 41.5%")
    heads = _headline(["a", "b", "c", text])
    assert heads == [text.split("; regret against it")[0] + " (one of the 5 equilibria its search found; see the "
                     "answer in full)"]


def test_best_response_curves_of_many_field_values_get_a_colour_bar_not_a_legend():
    import matplotlib

    from experiments.answers.equilibrium import CURVES_LEGEND, _curves_figure

    matplotlib.use("Agg")

    def race(fields):
        rows = [{"players": 2, "path": 0, "field": f"wake={f}", "field.wake": f, "focus.wake": x, "value": 0.5,
                 "lo": 0.45, "hi": 0.55, "fair_share": 0.5} for f in fields for x in (0, 10, 20)]
        return pl.DataFrame(rows)

    few = _curves_figure(race(range(CURVES_LEGEND)), ["players"])
    many = _curves_figure(race(range(CURVES_LEGEND + 1)), ["players"])
    assert "colour in the bar below" not in few.caption
    assert "(its colour in the bar below)" in many.caption and "at the curve's own field value" in many.caption


def test_the_fixed_points_that_hold_up_on_the_fresh_deals_are_told_first():
    # seed 4: the paths from wake=8 and wake=4 stop at wake=12, which the fresh deals refute; the one from
    # wake=16 stops there and holds up; the sentence gave wake=12 first, in the order they were found
    res = run_experiment(eq(seed=4, search={"focus.wake": {"min": 4, "max": 16, "step": 4}, "start": [4, 16],
                                            "confirm": 100}))
    head = res.answer[0]
    assert head.startswith("symmetric equilibrium (wake=16 holds up on the fresh deals; wake=12 does not): "
                           "wake=16 (reached from wake=16;"), head
    assert re.search(r"; wake=12 \(reached from wake=8, wake=4;.*so the fixed point does not hold up", head), head
    # equilibrium.parquet says which one fails, and the iteration paths draw it hollow
    fixed = res.tables["equilibrium"].filter(pl.col("kind") == "symmetric fixed point")
    assert dict(zip(fixed["focus.wake"].to_list(), fixed["fresh_holds"].to_list())) == {16: True, 12: False}


def test_a_path_that_ran_out_of_steps_at_a_fixed_point_counts_among_those_that_reach_it():
    # 3 players, penalty 15 (make demo): wake=8 read "reached from wake=4", while the paths from 20 and 32 ended
    # their steps with it as their last best response
    res = run_experiment(eq(seed=1, search={"focus.wake": {"min": 4, "max": 16, "step": 4}, "start": [4, 16],
                                            "steps": 1}))
    head = res.answer[0]
    assert head.startswith("symmetric equilibrium: wake=16 (reached from wake=16, and from wake=8 at its last step; ")
    assert "from wake=8: no fixed point in its 1 step, its last best response being the fixed point wake=16" in head
    # a meta-game alone (no family paths) has no iteration paths to point to
    from experiments.answers.equilibrium import _support_figure
    eqt = pl.DataFrame({"players": [2, 2], "solution": ["nash"] * 2, "kind": ["Nash (linear program)"] * 2,
                        "strategy": ["a", "b"], "probability": [0.6, 0.4], "ci_low": [0.5, 0.3], "ci_high": [0.7, 0.5]})
    assert "iteration paths" not in _support_figure(eqt).caption
    fixed = eqt.with_columns(pl.Series("kind", ["Nash (linear program)", "symmetric fixed point"]))
    assert _support_figure(fixed).caption.endswith("; the fixed points are in the iteration paths")


def test_a_fixed_point_measured_best_names_its_closest_rival_with_numbers():
    # sen_penalty_design, penalty 20: "(wake=6 is not ruled out against a table of it either)" gave no figure,
    # where the other penalties' clauses did
    from types import SimpleNamespace

    from experiments.answers.design import _tied_text

    race = SimpleNamespace(best=0, survivors=[0, 1, 2], means=[0.30, 0.287, 0.25],
                           versus_best=[None, {"diff": -0.013, "lo": -0.023, "hi": -0.002, "n": 1000},
                                        {"diff": -0.05, "lo": -0.07, "hi": -0.03, "n": 1000}])
    found = SimpleNamespace(race=race, raced=[0, 1, 2], best={"focus.wake": 2},
                            settings=[{"focus.wake": 2}, {"focus.wake": 6}, {"focus.wake": 10}])
    text = _tied_text(SimpleNamespace(found=[found], fixed={"focus.wake": 2}), ["wake=6", "wake=10"])
    assert text == (" (wake=6, wake=10 are not ruled out against a table of it either: the closest, wake=6, -1.3% "
                    "[-2.3%, -0.2%] against it on the same 1,000 deals, a difference that the race's test, corrected "
                    "for picking among 3 settings, does not call clear)")


def test_a_kept_field_value_says_where_the_best_responses_own_interval_lies_above_the_fair_share():
    """Sen, 5 players, penalty 15: wake=8 at 20.8% [20.2%, 21.4%] (fair 20.0%) read as clearly better by its
    own interval while the sentence said it was not: the correction for picking the best is now said."""
    from types import SimpleNamespace

    from experiments.answers import equilibrium as eqm
    own, best = {"focus.wake": 10}, {"focus.wake": 8}
    found = SimpleNamespace(settings=[own, best], raced=[0, 1], race=SimpleNamespace(survivors=[0, 1]), best=best)
    path = SimpleNamespace(fields=[own])
    assert eqm._kept_field(path, found, 0.202, 0.2) == (
        "; not clearly better than the field's own value wake=10, which the race's test, corrected for picking "
        "among 2 settings, keeps (the best's own interval lies above the fair share, but taken alone it is not "
        "corrected for being the best of 2): the path stays there")
    assert "taken alone" not in eqm._kept_field(path, found, 0.199, 0.2)
    assert eqm._kept_field(path, SimpleNamespace(**{**vars(found), "race": SimpleNamespace(survivors=[1])}),
                           0.202, 0.2) == ""


def test_the_fields_own_setting_wins_the_fair_share_by_symmetry_without_an_interval():
    """A raced setting that makes the lineup one strategy in every seat wins the fair share on every deal by
    symmetry: the sentence says so, and its race row is exact, not a share alike on every deal with Wilson's
    interval over the deals (50.0% [35.2%, 64.8%] over 40 deals, a spread it does not have)."""
    res = run_experiment(br(sweep={}, players=2, games=40, search={"focus.wake": [10, 40]}))
    assert res.answer[0].startswith("best response (threshold against a table of threshold:wake=10): wake=10, win "
                                    "share 50.0% on every one of 40 deals (the field's own setting: a table of one "
                                    "strategy wins the fair share by symmetry"), res.answer[0]
    rows = {r["setting"]: r for r in res.tables["race"].iter_rows(named=True)}
    assert rows["wake=10"]["lo"] == rows["wake=10"]["hi"] == 0.5
    assert rows["wake=40"]["lo"] < rows["wake=40"]["value"] < rows["wake=40"]["hi"]


def test_a_confirmed_difference_of_shares_keeps_its_sign_on_the_fresh_deals():
    """A design whose objective is a difference (seat_advantage) gives its fresh-deal figures signed, as its
    race figures are: "9.0% [4.2%, 13.8%]" read as a share."""
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 60, "seed": 5,
                          "lineup": {"seats": ["threshold"]}, "search": {"rules.penalty": [0, 5, 15], "confirm": 50},
                          "report": {"answer": "design", "objective": "seat_advantage", "target": 0.0}})
    fresh = res.answer[0].split("fresh deals (numbered from")[1]
    figs = re.findall(r"(?:choose it\): |there: )([^ ]+) \[([^,]+), ([^\]]+)\]", fresh)
    assert len(figs) == 2, fresh
    assert all(x[0] in "+-" for fig in figs for x in fig), figs


def test_the_meta_games_fresh_deals_count_the_games_a_fixed_points_check_played_there():
    """A family's fixed point is checked on the same fresh deals as the meta-game's regrets, with lineups the
    meta-game holds too: those games are not played again, and the fresh-deal sentence says how many."""
    raw = {"title": "t", "question": "q", "game": "sen", "games": 16, "seed": 3, "players": 2,
           "lineup": {"focus": "threshold", "field": "threshold"},
           "search": {"focus.wake": [6, 10], "start": [10], "meta": [2], "bootstrap": 10, "confirm": 20},
           "report": {"answer": "equilibrium"}}
    res = run_experiment(raw)
    nash = next(s for s in res.answer if s.startswith("Nash"))
    m = re.search(r"\(3 lineups, 16 deals each, 64 games, (\d+) of them played before, in the races above\)", nash)
    f = re.search(r"numbered from 16: none of them helped find it; 80 games, (\d+) of them played before, in the "
                  r"fixed points' checks\)", nash)
    assert m and f, nash
    assert 0 < int(m.group(1)) < 64 and 0 < int(f.group(1)) < 80


def test_a_dropped_rival_says_it_was_dropped_against_its_rounds_leader():
    """A rival the race dropped was clearly worse than its round's leader, not than the final best: listed
    among the closest rivals with an interval against the best that reaches 0, it read as a contradiction of
    "dropped as clearly worse". It now says against whom it was dropped; a rival that plays the same games as
    the best is said to be the same on every deal."""
    from experiments.answers.searching import Searched, runners_up
    from simcore.racing import RaceResult

    vs = [{"diff": -0.017, "lo": -0.084, "hi": 0.05, "n": 50}, None, {"diff": -0.008, "lo": -0.05, "hi": 0.04, "n": 100},
          {"diff": 0.0, "lo": 0.0, "hi": 0.0, "n": 100}]
    race = RaceResult(best=1, survivors=[1, 2, 3], deals=[50, 100, 100, 100], means=[0.33, 0.35, 0.34, 0.35],
                      lo=[0.3] * 4, hi=[0.4] * 4, dropped_in=[0, None, None, None],
                      rounds=[(50, [0, 1, 2, 3], 2), (100, [1, 2, 3], 1)], versus_best=vs, level=0.05)
    found = Searched(settings=[{"focus.edge": 2.5}, {"focus.edge": 6.0}, {"focus.edge": 4.0}, {"focus.edge": 7.0}], race=race,
                     raced=[0, 1, 2, 3])
    text = runners_up(found, "win_share")
    assert "edge=2.5 -1.7% [-8.4%, +5.0%] over 50 deals (dropped there as clearly worse than edge=4.0, the leader " \
           "then)" in text, text
    assert "edge=4.0 -0.8% [-5.0%, +4.0%] over 100 deals;" in text and "edge=7.0 the same on every deal over 100" in text
    race.rounds[0] = (50, [0, 1, 2, 3], 1)  # dropped against the one that is the best in the end
    assert "(dropped there as clearly worse than the best)" in runners_up(found, "win_share")


def test_a_population_is_limited_and_its_memory_estimated_by_the_orders_it_plays():
    """Every order of a lineup's members round the table is played as a lineup of its own: the limit of
    lineups per group, the games estimated and the memory check count them (10 members and 5 players make
    2,002 lineups but 20,008 orders, and 100,000 seatings a deal, not 10,010)."""
    from experiments import load_config
    from experiments.answers.equilibrium import _estimate
    from experiments.engine import memory_needs
    from simcore.errors import SenseiError

    members = [f"threshold:wake={w}" for w in range(0, 20, 2)]
    raw = {"title": "t", "question": "q", "game": "sen", "players": 5, "games": 2000, "seed": 1,
           "lineup": {"population": members}, "report": {"answer": "equilibrium"}}
    with pytest.raises(SenseiError, match=r"at most 3,000 lineups per group \(each order of a lineup's members "
                                          r"round the table counted\), got '20,008 for 5 players'"):
        load_config(raw)
    cfg = load_config({**raw, "players": 4})
    assert _estimate(cfg, cfg.report.search) == 10 ** 4 * 2000
    assert any("at least 2,530 lineups" in k for k in memory_needs(cfg)), memory_needs(cfg)


def test_paths_that_all_end_in_a_cycle_are_said_to_and_not_to_have_run_out_of_steps():
    """Every path ended in a cycle after 4-5 of its 8 steps, and the answer read "no fixed point within the
    steps", as if a larger budget might find one; a path cut short by its steps still reads so."""
    search = {"focus.wake": [-1, 2, 4, 6, 8, 10], "start": [10, 4], "meta": [2], "bootstrap": 20}
    head = run_experiment(eq(seed=1, rules={"penalty": 15}, search=search)).answer[0]
    assert head.startswith("symmetric equilibrium by iterated best response: no fixed point, every path ends in a "
                           "cycle; from wake=8: a cycle (wake=8 -> wake=-1 -> "), head
    assert "within the steps" not in head
    head = run_experiment(eq(seed=1, rules={"penalty": 15}, search={**search, "steps": 2})).answer[0]
    assert head.startswith("symmetric equilibrium by iterated best response: no fixed point within the steps; "), head


def test_a_best_responses_bounds_tell_themselves_from_the_fair_share():
    """Sen, 3 players, penalty 15: "wake=-1, win share 34.2% [33.3%, 35.1%] over 3,000 deals (fair 33.3%) ...
    (the best's own interval lies above the fair share ...)": the low end, 33.337%, printed as the fair share."""
    from experiments.answers.equilibrium import _share_against_fair

    assert _share_against_fair(0.342, 0.333373, 0.351, 3000, 1 / 3) == (
        "win share 34.2% [33.34%, 35.10%] over 3,000 deals (fair 33.3%)")
    assert _share_against_fair(0.342, 0.336, 0.351, 3000, 1 / 3) == (
        "win share 34.2% [33.6%, 35.1%] over 3,000 deals (fair 33.3%)")


def test_design_names_rivals_alike_on_every_deal_together():
    """Fan & Mallet's match_points 1 and none play the same games: listed as two rivals, each with the same
    figure and interval, they read as two settings that happened to score alike (a designer's walkthrough)."""
    def design(seed):
        return run_experiment({"title": "t", "question": "q", "game": "fan-and-mallet", "games": 60, "seed": seed,
                               "lineup": {"seats": ["random"]},
                               "search": {"rules.match_points": ["none", 1, 2, 3]},
                               "report": {"answer": "design", "objective": "seat0_win_share", "target": 0.5}}).answer[0]

    text = design(1)
    assert text.startswith("best match_points (seat 0's win share closest to 50.0%; random in every seat): "
                           "match_points=2,"), text
    assert ("match_points=none and match_points=1 (the same on every deal as each other) 43.3% (+5.0% farther "
            "[-2.9%, +12.9%] on 60 deals)") in text
    assert text.count("match_points=1") == 1, text  # named once, not again as a rival of its own
    # a rival alike with the best on every deal
    text = design(2)
    assert text.startswith("best match_points (seat 0's win share closest to 50.0%; random in every seat): "
                           "match_points=none,"), text
    assert "closest rivals on the same deals: match_points=1 48.3% (the same on every one of 60 deals); " in text
