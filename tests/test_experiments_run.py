"""Running experiments: tables, common random numbers, seat rotation, jobs independence, SPRT, tournaments."""
import json
import os
import re

import numpy as np
import polars as pl
import pytest

from experiments import run_experiment
from simcore.runner import simulate
from strategies.registry import lineup, resolve


def focus_cfg(**extra):
    raw = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 40, "seed": 5,
           "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
           "sweep": {"focus.wake": [7, 10]}}
    raw.update(extra)
    return raw


@pytest.fixture(scope="module")
def wake_run():
    return run_experiment(focus_cfg())


def test_cells_table_has_every_parameter_and_interval(wake_run):
    cells = wake_run.cells
    assert isinstance(cells, pl.DataFrame) and cells.height == 2
    for col in ["players", "focus.wake", "field.wake", "rules.penalty", "rules.target", "focus", "field",
                "focus_win_share", "focus_win_lo", "focus_win_hi", "focus_mean_score", "mean_turns", "seat_advantage",
                "completion", "metric.wake_rate"]:
        assert col in cells.columns, col
    row = cells.row(0, named=True)
    assert row["focus_win_lo"] < row["focus_win_share"] < row["focus_win_hi"]
    assert row["games"] == 3 * 40 and row["rotations"] == 3
    seats = wake_run.seats
    assert seats.height == 3 * 3 + 3 and set(seats["role"]) == {"focus", "field"}
    assert wake_run.answer and wake_run.answer[0].startswith("best wake: ")


def test_self_play_focus_gets_exactly_the_fair_share(wake_run):
    # wake=10 against wake=10: one game per deal, the focus read from every seat
    row = wake_run.cells.filter(pl.col("focus.wake") == 10).row(0, named=True)
    assert row["rotations"] == 1 and row["focus_games"] == 3 * 40
    assert row["timeouts"] == 0 and row["focus_win_share"] == pytest.approx(1 / 3)


def test_rotated_focus_matches_direct_simulation(wake_run):
    row = wake_run.cells.filter(pl.col("focus.wake") == 7).row(0, named=True)
    focus, field = resolve("sen", "threshold:wake=7"), resolve("sen", "threshold:wake=10")
    wins, scores = 0.0, 0.0
    for seat in range(3):
        agents = [field] * 3
        agents[seat] = focus
        r = simulate("sen", agents, n_games=40, seed=5)
        wins += r.totals.sums["win"][seat]
        scores += r.totals.sums["score"][seat]
    assert row["focus_win_share"] == pytest.approx(wins / 120)
    assert row["focus_mean_score"] == pytest.approx(scores / 120)


def test_paired_differences_are_exact_when_nothing_changes():
    # threshold never claims, so know_what_i_have replays every deal move for move: common random numbers
    res = run_experiment(focus_cfg(sweep={"rules.know_what_i_have": [False, True]},
                                   lineup={"focus": "threshold:wake=8", "field": "threshold"},
                                   report={"answer": "effect", "over": "rules.know_what_i_have", "baseline": False}))
    p = res.paired
    assert p.height == 3 and (p["diff"] == 0).all() and (p["lo"] == 0).all()
    assert "game length, first-seat advantage and focus win share the same as off on every deal" in res.answer[1]


def test_results_do_not_depend_on_jobs():
    a = run_experiment(focus_cfg(games=30), jobs=1)
    b = run_experiment(focus_cfg(games=30, chunk_size=16), jobs=2)
    c = run_experiment(focus_cfg(games=30, chunk_size=16), jobs=1)
    drop = ["seconds"]
    assert b.cells.drop(drop).equals(c.cells.drop(drop))
    assert a.cells.drop(drop).equals(b.cells.drop(drop))
    assert a.answer == b.answer and a.paired.equals(b.paired)


def test_sprt_stops_when_the_answer_is_clear():
    res = run_experiment(focus_cfg(players=2, games=50, lineup={"focus": "threshold", "field": "random:p_wake=0.3"},
                                   sweep={}, sprt={"h0": 0.0, "h1": 0.1, "max_games": 2000}))
    s = res.sprt.row(0, named=True)
    assert s["decision"] == "H1" and s["deals"] < 2000 and s["deals"] % 50 == 0
    assert s["llr"] >= s["upper"]
    assert "better" in res.answer[0]
    # unrotated, the test is of seat 0 and its strategy together, and the sentence says so
    res = run_experiment(focus_cfg(players=2, games=50, lineup={"focus": "threshold", "field": "threshold",
                                                                 "rotate": False},
                                   sweep={}, sprt={"h0": 0.0, "h1": 0.1, "max_games": 200}))
    assert "threshold in seat 0 (the first player, every game) against threshold" in res.answer[0], res.answer[0]


def test_tournament_ratings_and_win_matrix():
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 60, "seed": 2,
                          "lineup": {"tournament": ["random", "threshold"]}})
    assert res.cells.height == 1 and set(res.cells["a"]) == {"random"}
    r = {row["strategy"]: row for row in res.ratings.iter_rows(named=True)}
    assert r["random"]["elo"] == 0 and r["threshold"]["elo_lo"] > 0
    assert res.answer[0].startswith("highest rated strategy: threshold")
    row = res.cells.row(0, named=True)
    assert row["focus_win_share"] + row["field_win_share"] == pytest.approx(1.0)


def test_run_folder_holds_tables_config_and_manifest(tmp_path, wake_run):
    path = wake_run.write(str(tmp_path))
    for name in ["cells", "seats", "turns", "scores", "paired", "ratings", "sprt"]:
        assert os.path.isfile(os.path.join(path, f"{name}.parquet")), name
    back = pl.read_parquet(os.path.join(path, "cells.parquet"))
    assert back.equals(wake_run.cells)
    man = json.load(open(os.path.join(path, "manifest.json")))
    for key in ["sensei_version", "git_commit", "seed", "cells", "games_played", "seconds_playing", "command"]:
        assert key in man
    assert man["seed"] == 5 and man["cells"] == 2
    import tomllib
    assert tomllib.loads(open(os.path.join(path, "config.toml")).read())["seed"] == 5
    turns = pl.read_parquet(os.path.join(path, "turns.parquet"))
    assert turns.group_by("cell").agg(pl.col("count").sum()).sort("cell")["count"].to_list() == [120, 40]
    # a config given as a dict is rerun from its copy in the folder (not from '<config>')
    assert man["command"] == f"sensei run {os.path.join(path, 'config.toml')}"
    assert man["config"] == os.path.join(path, "config.toml")


def test_a_dict_config_run_into_a_folder_names_its_copy_to_rerun(tmp_path):
    res = run_experiment(focus_cfg(games=6, sweep={}), out=str(tmp_path))
    man = json.load(open(os.path.join(res.run_dir, "manifest.json")))
    assert man["command"] == f"sensei run {os.path.join(res.run_dir, 'config.toml')}"
    assert man["config"] == os.path.join(res.run_dir, "config.toml")
    assert os.path.isfile(os.path.join(res.run_dir, "config.toml"))


def test_per_game_rows_when_asked():
    res = run_experiment(focus_cfg(games=10, sweep={}, report={"per_game": True}))
    g = res.games
    assert g is not None and g.height == 10 * 3    # self-play: one game per deal, three seats
    assert {"cell", "rotation", "game", "seat", "strategy", "win", "score"} <= set(g.columns)
    assert res.answer[0].startswith("threshold against threshold")  # short labels: wake=10 is the default


def test_runner_per_game_vectors_are_compact_and_consistent():
    agents = [resolve("sen", "threshold")] * 3
    r = simulate("sen", agents, n_games=50, seed=1, per_game=("win", "turns"), chunk_size=16)
    v = r.per_game()
    assert v["win"].dtype == np.float32 and v["win"].shape == (50, 3) and v["turns"].shape == (50,)
    assert v["turns"].sum() == r.totals.sums["turns"]
    assert simulate("sen", agents, n_games=50, seed=1).per_game() is None


def test_best_compares_the_best_with_the_fields_own_value():
    """A designer asks whether the best wake beats doing what the table does: where the field's own value
    (the fair share by symmetry) is neither the best nor the next, the sentence gives their paired difference."""
    import re

    res = run_experiment(focus_cfg(players=2, games=60, sweep={"focus.wake": [-1, 4, 10, 16, 18]},
                                   report={"answer": "best", "over": "focus.wake"}))
    text = res.answer[0]
    best, nxt = re.match(r"best wake: (-?\d+), .*\(fair 50\.0%; next (-?\d+): ", text).groups()
    own = re.search(r"; the field's own 10: ([-+]\d+\.\d%), paired 95% CI \[([-+]\d+\.\d%), ([-+]\d+\.\d%)\]"
                    r"(, not clearly different)?", text)
    assert (own is not None) == ("10" not in (best, nxt)), text
    if own is not None:
        row = res.paired.filter((pl.col("value") == 10) & (pl.col("versus") == int(best))).row(0, named=True)
        assert own.group(1) == f"{100 * row['diff']:+.1f}%"
        assert bool(own.group(4)) == (row["lo"] <= 0 <= row["hi"])


@pytest.mark.parametrize("kw, words", [
    ({"backend": 5}, "backend must be a backend's name"),
    ({"per_game": 5}, "per_game must be a list of outcome columns' names, got 5"),
    ({"per_game": "win"}, "per_game must be a list"),  # (a text was taken letter by letter)
])
def test_simulate_refuses_arguments_of_the_wrong_type_on_one_line(kw, words):
    from simcore.errors import SenseiError
    agents = lineup("sen", ["threshold"], 2)
    with pytest.raises(SenseiError, match=re.escape(words)):
        simulate("sen", agents, n_games=10, **kw)


def test_simulate_checks_strategy_objects_and_rules_made_in_python():
    """Objects made directly in Python are checked as specs are: Threshold(wake=1.5) played as wake 1,
    Threshold(wake="x") failed inside the compiler, SenRules(penalty=-3) played a negative penalty."""
    from simcore.errors import SenseiError
    from simcore.games.sen import SenRules
    from strategies.sen import Threshold
    for agent, words in [(Threshold(wake=1.5), "strategy threshold.wake: expected an integer, got 1.5 (seat 1)"),
                         (Threshold(wake="x"), "strategy threshold.wake: expected an integer, got 'x' (seat 1)"),
                         (Threshold(wake=-7), "strategy threshold.wake: must be at least -1, got -7 (seat 1)"),
                         # (played, and recorded as threshold:wake=8.0, a spec that configs and lineup refuse)
                         (Threshold(wake=8.0), "strategy threshold.wake: expected an integer, got 8.0 (seat 1)")]:
        with pytest.raises(SenseiError, match=re.escape(words) + "$"):
            simulate("sen", [Threshold(), agent], n_games=10)
    with pytest.raises(SenseiError, match=re.escape("sen.penalty: must be at least 0, got -3")):
        simulate("sen", [Threshold(), Threshold()], rules=SenRules(penalty=-3), n_games=10)
    # an integer option takes an integer in a rules dict too, as in the Rules object and a config ({"penalty":
    # 15.0} played 15 where SenRules(penalty=15.0) and a config's penalty = 15.0 are refused)
    for rules in ({"penalty": 15.0}, SenRules(penalty=15.0), {"penalty": np.float64(15)}):
        with pytest.raises(SenseiError, match=r"^sen\.penalty: expected an integer, got (15\.0|np\.float64\(15\.0\))$"):
            simulate("sen", [Threshold(), Threshold()], rules=rules, n_games=10)
    ok = simulate("sen", [Threshold(wake=12), Threshold()], rules=SenRules(penalty=15), n_games=10, seed=3)
    ref = simulate("sen", lineup("sen", ["threshold:wake=12", "threshold"], 2), rules={"penalty": 15}, n_games=10, seed=3)
    assert ok.summary() == ref.summary()
    # numpy's integers are integers: np.int64(12) was left out of the compiled decision's prm ("prm has no 'wake'")
    assert simulate("sen", [Threshold(wake=np.int64(12)), Threshold()], rules=SenRules(penalty=np.int64(15)),
                    n_games=10, seed=3).summary() == ref.summary()


def test_values_given_as_text_in_objects_made_in_python_are_read_as_a_specs_text():
    """SenRules(know_what_i_have="false") played with the variant on (a non-empty text is true) and was
    reported as 'false'; SenRules(caller_tie="Count") played the default 'zero'; SenRules(penalty="15")
    reached the summary as the text '15'; Threshold(wake="8") failed to compile with "prm has no 'wake'".
    Each is now what the same text means in a spec or a rules dict."""
    from simcore.errors import SenseiError
    from simcore.games.sen import SenRules
    from strategies.sen import Swapper, Threshold
    agents = [Threshold(wake=13), Swapper()]

    def same(rules_obj, rules_dict):
        a = simulate("sen", agents, rules=rules_obj, n_games=300, seed=4).summary()
        b = simulate("sen", agents, rules=rules_dict, n_games=300, seed=4).summary()
        assert a == b, (rules_obj, rules_dict)
        return a

    off = same(SenRules(know_what_i_have="false"), {"know_what_i_have": False})
    on = same(SenRules(know_what_i_have="true"), {"know_what_i_have": True})
    assert off["rules"]["know_what_i_have"] is False and off["win_share"] != on["win_share"]
    count = same(SenRules(caller_tie="Count"), {"caller_tie": "count"})
    assert count["rules"]["caller_tie"] == "count" and count["win_share"] != off["win_share"]
    assert same(SenRules(penalty="15"), {"penalty": 15})["rules"]["penalty"] == 15
    with pytest.raises(SenseiError, match=re.escape("sen.know_what_i_have: expected true or false, got 'maybe'")):
        simulate("sen", agents, rules=SenRules(know_what_i_have="maybe"), n_games=10)
    text = simulate("sen", [Threshold(wake="8"), Threshold()], n_games=50, seed=2)
    ref = simulate("sen", lineup("sen", ["threshold:wake=8", "threshold"], 2), n_games=50, seed=2)
    assert text.summary() == ref.summary() and text.summary()["strategies"][0] == "threshold:wake=8"


def test_a_strategy_class_in_place_of_an_object_is_one_line():
    """lineup() handed a class on as it was, and simulate then failed in the first decision with
    "TypeError: not enough arguments: expected 3, got 2"; a player count given as text failed in lineup
    with "can't multiply sequence by non-int of type 'str'"."""
    from simcore.errors import SenseiError
    from strategies.sen import Threshold
    with pytest.raises(SenseiError, match=re.escape("got the class Threshold for seat 0 (make one: Threshold())")):
        simulate("sen", [Threshold, Threshold()], n_games=10)
    with pytest.raises(SenseiError, match=re.escape("strategy Threshold: a class, not a strategy object")):
        lineup("sen", [Threshold, Threshold], 2)
    with pytest.raises(SenseiError, match=re.escape("players must be an integer, got '4'")):
        lineup("sen", "threshold", "4")


def test_a_subclass_made_in_python_without_a_name_is_labelled_by_its_class():
    """NeverWake(Threshold) read threshold:wake=10 in the summary, as the built-in it extends."""
    import dataclasses
    from typing import ClassVar

    from strategies.sen import Threshold

    @dataclasses.dataclass(frozen=True)
    class NeverWake(Threshold):
        pass

    res = simulate("sen", [NeverWake(), Threshold()], n_games=4, seed=1)
    assert res.summary()["strategies"] == ["NeverWake:wake=10", "threshold:wake=10"]
    from experiments.answers.common import short_spec
    from strategies.registry import short_labels
    assert short_labels(res.agents) == ["NeverWake", "threshold"] and short_spec(NeverWake()) == "NeverWake"
    from simcore.errors import SenseiError
    with pytest.raises(SenseiError, match=re.escape("strategy NeverWake.wake: expected an integer, got 2.5 (seat 0)")):
        simulate("sen", [NeverWake(wake=2.5), Threshold()], n_games=4)

    @dataclasses.dataclass(frozen=True)
    class Shadow(Threshold):
        params: int = 3

    with pytest.raises(SenseiError, match=re.escape("strategy Shadow: parameter 'params' has the name of Strategy's "
                                                    "own params; give it another name (seat 0)")):
        simulate("sen", [Shadow(), Threshold()], n_games=4)

    @dataclasses.dataclass(frozen=True)
    class ShadowGame(Threshold):
        game: str = "sen"          # a parameter, not the class variable: it hides Strategy's game

    with pytest.raises(SenseiError, match=re.escape("strategy ShadowGame: parameter 'game' has the name")):
        simulate("sen", [Threshold(), ShadowGame()], n_games=4)

    # a constant of a built-in class made a parameter is no shadowing: the strategy reads it either way
    from simcore.options import check_shadowing
    from strategies.fan_and_mallet import Closer

    @dataclasses.dataclass(frozen=True)
    class TunedCloser(Closer):
        name: ClassVar[str] = "tunedcloser"
        kid_value: float = 2.5

    check_shadowing(TunedCloser, "strategy tunedcloser")
    assert TunedCloser(kid_value=1.0).kid_value == 1.0
    assert simulate("fan-and-mallet", [TunedCloser(kid_value=1.0), Closer()], n_games=4).n == 4

    @dataclasses.dataclass(frozen=True)
    class Listed(Threshold):
        name: ClassVar[str] = "listed"
        notes: list = dataclasses.field(default_factory=list)   # no spec could set it: left to the object

    assert simulate("sen", [Listed(), Threshold()], n_games=4, seed=1).summary()["strategies"][0] == "listed:wake=10,notes=[]"


def test_a_strategy_that_forces_a_change_into_the_rules_it_is_shown_changes_no_summary():
    """object.__setattr__ on the frozen rules of an observation changed the caller's rules object, so --json
    reported penalty 99 for games played with 5 (and a later simulate with the same object played 99)."""
    import dataclasses

    import numpy as np

    from simcore.games.sen import SenRules, Start
    from strategies.sen import Threshold

    @dataclasses.dataclass(frozen=True)
    class Tamper(Threshold):
        def start(self, obs, rng):
            object.__setattr__(obs.rules, "penalty", 99)
            return np.full(len(obs.me), int(Start.DRAW))

    rules = SenRules(penalty=5)
    res = simulate("sen", [Tamper(), Threshold()], rules=rules, n_games=20, seed=1)
    assert rules.penalty == 5 and res.summary()["rules"]["penalty"] == 5


@pytest.mark.parametrize("kw, words", [
    ({"backend": 3}, "backend: expected one of"),
    ({"out": 5}, "out: expected a folder's path, got 5"),
    ({"resume": 5}, "resume: expected a folder's path, got 5"),
    ({"log": 5}, "log: expected a function of one text"),
    ({"strategy_files": 5}, "strategy_files: expected a list of Python files' paths, got 5"),
    ({"strategy_files": [5]}, "strategy_files: expected a list of Python files' paths, got [5]"),
])
def test_run_experiment_refuses_arguments_of_the_wrong_type_on_one_line(kw, words):
    from simcore.errors import SenseiError
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 4, "seed": 1,
           "lineup": {"focus": "threshold", "field": "random"}}
    with pytest.raises(SenseiError, match=re.escape(words)):
        run_experiment(raw, **kw)


def test_run_experiment_takes_one_strategy_file_as_text(tmp_path):
    # it was read letter by letter ("--strategies 's': is a folder")
    from strategies.registry import register_files
    path = tmp_path / "one.py"
    path.write_text("import dataclasses\nfrom typing import ClassVar\nfrom strategies.sen import Threshold\n\n"
                    "@dataclasses.dataclass(frozen=True)\nclass One(Threshold):\n    name: ClassVar[str] = 'one'\n")
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 4, "seed": 1,
           "lineup": {"focus": "one", "field": "random"}}
    try:
        assert run_experiment(raw, strategy_files=str(path)).cells.height == 1
        # a Python session keeps the files it registered (docs/experiments.md): a later call may name their
        # strategies without strategy_files, and its manifest records the file; strategy_files=[] allows none
        later = run_experiment(raw)
        assert later.cells.height == 1 and list(later.manifest["strategy_files"]) == [str(path)]
        from simcore.errors import SenseiError
        with pytest.raises(SenseiError, match="one"):
            run_experiment(raw, strategy_files=[])
    finally:
        register_files([])
