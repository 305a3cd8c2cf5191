"""Configs that look plausible but ask what an answer cannot give are refused before anything runs, in one
line naming the key: a focus lineup of one player, `over = "players"` where fair shares depend on the player
count, report keys that the answer would ignore, two sweep axes setting one key, float bounds on an integer
parameter or rule option, an event that is not a 0/1 column."""
import pytest

from experiments import load_config
from simcore.errors import SenseiError

SEN = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 10,
       "lineup": {"focus": "threshold", "field": "threshold"}}


def refused(raw, *words):
    with pytest.raises(SenseiError) as info:
        load_config(raw)
    text = str(info.value)
    assert "\n" not in text
    for w in words:
        assert w in text, (w, text)


@pytest.mark.parametrize("answer,extra", [("turn_order", {"per_game": True}), ("balance", {"per_game": True}),
                                          ("effect", {"baseline": "two"}), ("risk", {"per_game": True})])
def test_named_cases_that_set_players_are_refused_where_fair_shares_depend_on_the_player_count(answer, extra):
    """A named case that sets players is a players axis under another name: its cells of 2 and 4 players were
    compared (4 players read against the fair 50%, 2 of its 4 seats shown)."""
    raw = {**{k: v for k, v in SEN.items() if k != "players"}, "game": "senshi",
           "lineup": {"focus": "greedy", "field": "counter"},
           "sweep": {"size": {"two": {"players": 2}, "four": {"players": 4}}},
           "report": {"answer": answer, "over": "size", **extra}}
    if answer == "risk":
        raw["report"]["event"] = "eliminated"
    refused(raw, "sweep.size: expected one player count in every group", answer,
            "got \"size = 'two' with 2 players and 'four' with 4\"")
    # with players an axis of its own, each count in a group of its own: accepted
    load_config({**raw, "players": [2, 4], "sweep": {"size": {"two": {}, "four": {"rules.open_stacks": True}}}})


def test_best_refuses_a_tournament():
    # every match-up's cells fell in one group: the best was one match-up's cell against unrelated others'
    raw = {**SEN, "lineup": {"tournament": ["threshold", "gambler", "random"]}, "sweep": {"rules.penalty": [5, 15]},
           "report": {"answer": "best", "over": "rules.penalty"}}
    refused(raw, "lineup: expected a focus or seats lineup for answer = 'best', got 'tournament'")


@pytest.mark.parametrize("answer", ["best", "effect", "summary", "risk"])
def test_an_sprt_table_is_refused_unless_the_answer_is_sprt(answer):
    # best and effect failed with a traceback after every game was played; summary and risk told no verdict
    raw = {**SEN, "lineup": {"focus": "threshold:wake=8", "field": "threshold"}, "sweep": {"rules.penalty": [5, 15]},
           "report": {"answer": answer}, "sprt": {"h0": 0.0, "h1": 0.05}}
    if answer == "risk":
        raw.update(game="senshi", lineup={"focus": "greedy", "field": "random"}, sweep={"focus": ["greedy", "counter"]})
        raw["report"].update(event="eliminated", over="focus")
    elif answer in ("best", "effect"):
        raw["report"]["over"] = "rules.penalty"
        if answer == "effect":
            raw["report"]["baseline"] = 5
    refused(raw, "sprt: expected nothing unless answer is 'sprt'", f"answer = {answer!r}")
    load_config({**raw, "report": {"answer": "sprt"}, "sweep": {}})


@pytest.mark.parametrize("search, words", [
    ({"rules.target": [50, 100, 150]}, "target=50 and target=100 play the same games: target has no effect with "
                                        "rounds set"),
])
def test_a_design_search_refuses_settings_that_play_the_same_games(search, words):
    raw = {**SEN, "rules": {"rounds": 3}, "search": search,
           "report": {"answer": "design", "objective": "focus_win_share", "target": 0.5}}
    refused(raw, "search: expected settings that play different games (" + words)
    load_config({**raw, "rules": {}})


def test_a_focus_or_tournament_lineup_needs_two_players():
    raw = {**SEN, "game": "sensu", "players": 1, "lineup": {"focus": "planner", "field": "random"}}
    refused(raw, "players: expected at least 2 players for a focus lineup", "lineup.seats")
    refused({**raw, "lineup": {"tournament": ["planner", "random"]}}, "at least 2 players for a tournament lineup (each game puts one entrant alone against a field of another")
    load_config({**raw, "lineup": {"seats": ["planner"]}})  # a solo game takes seats


@pytest.mark.parametrize("answer,extra", [("turn_order", {"per_game": True}), ("balance", {"per_game": True}),
                                          ("effect", {"baseline": 2}), ("risk", {"per_game": True})])
def test_over_players_is_refused_where_fair_shares_depend_on_the_player_count(answer, extra):
    game, lineup = ("senshi", {"focus": "greedy", "field": "greedy"}) if answer == "risk" else ("sen", None)
    raw = {**SEN, "game": game, "players": [2, 3], "lineup": lineup or SEN["lineup"],
           "report": {"answer": answer, "over": "players", **extra}}
    if answer == "risk":
        raw["report"]["event"] = "eliminated"
    refused(raw, "report.over: expected a sweep axis other than players", answer)


@pytest.mark.parametrize("metric", ["win_share", "mean_score"])
def test_best_over_players_is_refused_for_a_share_or_a_score(metric):
    """best compared a focus's raw win shares across player counts: 60.2% at 2 players read as clearly better
    than 46.5% at 3, where 3 players gained the most over its own fair share."""
    extra = {"goal": "min"} if metric == "mean_score" else {}
    raw = {**SEN, "players": [2, 3], "lineup": {"focus": "gambler", "field": "threshold"},
           "report": {"answer": "best", "over": "players", "metric": metric, **extra}}
    refused(raw, "report.over: expected a sweep axis other than players for answer = 'best' with metric = "
            f"{metric!r}", "metric = \"mean_turns\" may compare player counts")
    # a named case that sets players is a players axis under another name
    raw = {**{k: v for k, v in SEN.items() if k != "players"}, "lineup": {"focus": "gambler", "field": "threshold"},
           "sweep": {"size": {"two": {"players": 2}, "four": {"players": 4}}},
           "report": {"answer": "best", "over": "size", "metric": metric, **extra}}
    refused(raw, "sweep.size: expected one player count in every group for answer = 'best'", "'two' with 2 players")


def test_best_over_players_is_still_allowed():
    cfg = load_config({**SEN, "players": [2, 3], "report": {"answer": "best", "over": "players",
                                                             "metric": "mean_turns", "goal": "min"}})
    assert cfg.report.over == "players"


@pytest.mark.parametrize("report,key", [({"answer": "summary", "metric": "mean_turns"}, "metric"),
                                        ({"answer": "summary", "goal": "min"}, "goal"),
                                        ({"answer": "turn_order", "per_game": True, "metric": "win_share"},
                                         "metric")])
def test_report_keys_the_answer_would_ignore_are_refused(report, key):
    raw = {**SEN, "sweep": {"rules.penalty": [5, 15]}, "report": report}
    if report["answer"] == "turn_order":
        raw["lineup"] = {"seats": ["threshold"]}
    refused(raw, f"report.{key}: expected nothing unless answer is best")


def test_two_sweep_axes_may_not_set_one_key():
    raw = {**SEN, "sweep": {"rules.penalty": [5, 15], "variant": {"a": {"rules.penalty": 0}, "b": {}}},
           "report": {"answer": "best", "over": "variant"}}
    refused(raw, "sweep.variant: expected no setting of 'rules.penalty', which sweep.rules.penalty sets already")


@pytest.mark.parametrize("search,answer,words", [
    ({"focus.wake": {"min": 4.0, "max": 10.0}}, {"answer": "best_response"},
     ["search.focus.wake (a continuous range", "expected an integer"]),
    ({"rules.penalty": {"min": 0.0, "max": 20.0}}, {"answer": "design", "objective": "mean_turns", "goal": "min"},
     ["search.rules.penalty (a continuous range", "expected an integer"]),
])
def test_float_bounds_on_an_integer_parameter_are_refused_before_anything_runs(search, answer, words):
    refused({**SEN, "search": search, "report": answer}, *words)


def test_an_answer_says_when_games_stopped_at_the_turn_limit():
    """A rule setting where every game times out: the answer says so (a timed-out game has no winner),
    rather than reporting a first-seat advantage as if the games had been played out."""
    from experiments import run_experiment

    raw = {"title": "t", "question": "q", "game": "sensu", "players": 2, "games": 6,
           "lineup": {"seats": ["random"]}, "rules": {"max_turns": 1}}
    res = run_experiment(raw)
    assert res.answer[-1].startswith("6 of 6 games (100.0%) stopped at the turn limit"), res.answer
    fine = run_experiment({**raw, "rules": {}})
    assert not any("turn limit" in s for s in fine.answer)


SOLO = {"title": "t", "question": "q", "game": "sensu", "players": 1, "games": 10, "lineup": {"seats": ["planner"]},
        "sweep": {"rules.sticks": ["A", "B"]}}


@pytest.mark.parametrize("extra,answer", [
    ({"report": {"answer": "effect", "over": "rules.sticks", "baseline": "A"}}, "effect"),
    ({"report": {"answer": "balance", "per_game": True}}, "balance"),
    ({"sweep": {}, "search": {"seat0.keep": [0.1, 0.5]},
      "report": {"answer": "best_response", "metric": "mean_score", "goal": "max"}}, "best_response"),
    ({"sweep": {}, "search": {"rules.sticks": ["A", "B"]},
      "report": {"answer": "design", "objective": "seat0_win_share", "goal": "max"}}, "design"),
    ({"sweep": {}, "lineup": {"population": ["planner", "random"]}}, "equilibrium"),
])
def test_answers_that_compare_seats_refuse_a_solo_game(extra, answer):
    refused({**SOLO, **extra}, f"players: expected at least 2 players in every cell for answer = {answer!r}",
            "a solo game has one seat", "got [1]")
    if answer == "effect":  # a solo count among others is refused too
        refused({**SOLO, **extra, "players": [1, 2]}, "at least 2 players in every cell", "got [1, 2]")


@pytest.mark.parametrize("report", [{"answer": "summary"}, {"answer": "best", "metric": "mean_turns", "goal": "min"},
                                    {"answer": "calibration", "per_game": True, "score_band": [25, 35],
                                     "top_share": [0.01, 0.1]}])
def test_answers_about_one_seat_take_a_solo_game(report):
    load_config({**SOLO, "report": report})


def test_best_game_length_of_a_solo_game_runs():
    from experiments import run_experiment

    res = run_experiment({**SOLO, "games": 4, "report": {"answer": "best", "metric": "mean_turns", "goal": "min"}})
    assert res.answer and "mean turns per game" in res.answer[0], res.answer


@pytest.mark.parametrize("patch,where,got", [
    ({"sprt": {"alpha": float("nan")}}, "sprt.alpha", "nan"),
    ({"sprt": {"h0": float("nan")}}, "sprt.h0", "nan"),
    ({"search": {"focus.wake": {"min": float("nan"), "max": 12, "step": 1}}}, "search.focus.wake.min", "nan"),
    ({"search": {"focus.wake": {"min": 4, "max": float("inf"), "step": 1}}}, "search.focus.wake.max", "inf"),
    ({"search": {"focus.wake": [4, 8], "alpha": float("nan")}}, "search.alpha", "nan"),
    ({"report": {"answer": "design", "objective": "mean_turns", "band": [float("nan"), 0.5]}}, "report.band[0]", "nan"),
    ({"report": {"answer": "calibration", "score_band": [25, -float("inf")]}}, "report.score_band[1]", "-inf"),
    ({"games": float("nan")}, "games", "nan"),
])
def test_nan_and_infinity_are_refused_wherever_they_are(patch, where, got):
    refused({**SEN, **patch}, f"{where}: expected a finite number, got {got}")


@pytest.mark.parametrize("text", ["x = " + "[" * 500 + "]" * 500, "x = " + "{a = " * 2000 + "1" + "}" * 2000])
def test_a_deeply_nested_config_is_refused(tmp_path, text):
    path = tmp_path / "deep.toml"
    path.write_text(text)
    refused(str(path), "config nested too deeply")
    deep = 1
    for _ in range(40):
        deep = [deep]
    refused({**SEN, "x": deep}, "x: config nested too deeply")


def test_a_value_set_at_the_top_and_by_every_value_of_a_sweep_axis_is_refused():
    refused({**SEN, "players": 3, "sweep": {"players": [2, 3]}},
            "sweep.players: expected no setting of 'players', which players = 3 (at the top) sets already",
            "got [2, 3]")
    refused({**SEN, "rules": {"penalty": 5}, "sweep": {"rules.penalty": [5, 15]}},
            "sweep.rules.penalty: expected no setting of 'rules.penalty', which [rules] penalty = 5 sets already",
            "got [5, 15]")
    refused({**SEN, "rules": {"penalty": 5}, "sweep": {"v": {"a": {"rules.penalty": 3}, "b": {"rules.penalty": 4}}}},
            "sweep.v: expected no setting of 'rules.penalty', which [rules] penalty = 5 sets already", "got [3, 4]")
    # a top value that some named cases override is their default: allowed
    cfg = load_config({**SEN, "players": 3, "rules": {"penalty": 5},
                       "sweep": {"v": {"a": {}, "b": {"rules.penalty": 3, "players": 2}}}, "report": {"answer": "summary"}})
    assert [(c.players, c.rules.as_dict()["penalty"]) for c in cfg.cells] == [(3, 5), (2, 3)]


@pytest.mark.parametrize("name,why", [("cell", "it is a column of the run's tables"), ("games", "column"),
                                      ("focus", "column"), ("focus_win_share", "column"), ("seat2", "column"),
                                      ("players", "column"), ("rules.penalty", "a name with a dot"),
                                      ("tie_share", "end in _share, _lo and _hi")])
def test_a_named_axis_may_not_take_a_reserved_name(name, why):
    raw = {**SEN, "sweep": {name: {"a": {"rules.penalty": 3}, "b": {"rules.penalty": 5}}}}
    refused(raw, f"sweep.{name}: the axis name {name!r} is reserved", why)


def test_axis_and_case_names_are_not_empty():
    refused({**SEN, "sweep": {"": {"a": {}, "b": {"rules.penalty": 3}}}}, "sweep: expected non-empty axis names")
    refused({**SEN, "sweep": {"v": {" ": {}, "b": {"rules.penalty": 3}}}}, "sweep.v: expected non-empty case names")


@pytest.mark.parametrize("lineup,report", [({"focus": "threshold", "field": "counter"},
                                            {"answer": "effect", "over": "variant", "baseline": "base"}),
                                           ({"tournament": ["counter", "threshold"]}, {"answer": "ratings"})])
def test_the_reserved_names_cover_every_column_of_a_runs_tables(lineup, report):
    """The columns a named axis may not take: every table of a run holds only those, its axes and
    setting-like columns (rules.OPTION, ROLE.PARAM, metric.NAME, seatN)."""
    import re

    from experiments import run_experiment
    from experiments.config import RESULT_COLUMNS

    raw = {**SEN, "games": 4, "lineup": lineup, "report": report,
           "sweep": {"variant": {"base": {}, "big": {"rules.penalty": 15}}}}
    res = run_experiment(raw)
    assert "cells" in res.tables and len(res.tables) > 2
    for name, table in res.tables.items():
        if name == "games":  # one row per game (no axes): the game's own outcome columns
            continue
        extra = {c for c in table.columns if c not in RESULT_COLUMNS and c != "variant" and "." not in c
                 and not re.fullmatch(r"seat\d+", c)}
        assert not extra, (name, extra)


def test_report_over_is_checked_before_the_grid_is_expanded():
    """A mistake of the [report] table is told before any cell is made (a large grid's cells take a while)."""
    raw = {**SEN, "sweep": {"rules.penalty": [5, "many"], "focus.wake": [8, 12]}, "report": {"answer": "best"}}
    refused(raw, "report.over: expected the sweep axis the answer is about")
    refused(raw, "one of rules.penalty, focus.wake (none is given, and the config sweeps 2; the others become groups)")


def test_report_over_offers_only_the_axes_the_answer_may_compare():
    """With players among the axes, a missing report.over listed players, and over = "players" was then refused
    (turn_order; best with the win share): the list leaves it out there, and a config that sweeps players alone
    is told how to ask the question of one setting."""
    raw = {**{k: v for k, v in SEN.items() if k != "players"},
           "sweep": {"players": [2, 3], "focus.wake": [8, 12], "rules.caller_tie": ["zero", "count"]},
           "report": {"answer": "best"}}
    refused(raw, "report.over: expected the sweep axis the answer is about, one of focus.wake, rules.caller_tie (none")
    # a game length may compare player counts: there players is one of them
    refused({**raw, "report": {"answer": "best", "metric": "mean_turns"}},
            "one of players, focus.wake, rules.caller_tie (none is given")
    seats = {"title": "t", "question": "q", "game": "senshi", "games": 10, "lineup": {"seats": ["counter"]},
             "sweep": {"players": [2, 3]}, "report": {"answer": "turn_order", "event": "eliminated"}}
    refused(seats, "report.over: missing; expected a sweep axis other than players for answer = 'turn_order' to "
            "compare (this config sweeps only players, and each count gets sentences of its own; to ask it of one "
            "setting, sweep a named axis of one case, [sweep.variant] base = {}, with over = \"variant\")")
    load_config({**seats, "sweep": {"players": [2, 3], "variant": {"base": {}}},
                 "report": {"answer": "turn_order", "event": "eliminated", "over": "variant"}})


@pytest.mark.parametrize("extra,where", [
    ({"rules": {"penalty": 5}, "search": {"rules.penalty": [0, 5]},
      "report": {"answer": "design", "objective": "mean_turns", "goal": "min"}}, "[rules] penalty = 5"),
    ({"sweep": {"focus.wake": [4, 8]}, "search": {"focus.wake": [0, 5]}, "report": {"answer": "best_response"}},
     "sweep.focus.wake"),
    ({"sweep": {"v": {"a": {}, "b": {"focus.wake": 3}}}, "search": {"focus.wake": [0, 5]},
      "report": {"answer": "best_response"}}, "sweep.v"),
])
def test_a_searched_key_the_config_also_sets_is_refused(extra, where):
    key = next(k for k in extra["search"])
    refused({**SEN, **extra}, f"search.{key}: expected no search of {key!r}, which {where} sets already")


def test_seats_that_do_not_match_the_player_count_say_how_to_mend_it():
    raw = {**SEN, "lineup": {"seats": ["threshold", "counter"]}}
    del raw["players"]
    refused(raw, "lineup.seats: 2 seats for 4 players (the game's default)", "players = 2")
    refused({**raw, "players": 3}, "lineup.seats: 2 seats for 3 players;")
    refused({**raw, "sweep": {"players": [2, 3]}}, "sweep.players: 2 seats for 3 players;")
    load_config({**raw, "players": 2})


def test_risk_in_a_game_without_a_0_1_column_says_the_answer_does_not_apply():
    raw = {**SEN, "lineup": {"focus": "threshold", "field": "threshold"}, "sweep": {"rules.penalty": [5, 15]},
           "report": {"answer": "risk", "event": "won", "over": "rules.penalty", "per_game": True}}
    refused(raw, "report.event: sen has no per-seat 0/1 outcome column", "answer = 'risk' does not apply")


def test_a_metric_without_a_default_direction_needs_a_goal_and_says_it_is_missing():
    """A key left out is said to be missing (it read "got 'nothing'", as if the config had written that)."""
    raw = {**SEN, "sweep": {"rules.penalty": [5, 15]}, "report": {"answer": "best", "metric": "mean_score"}}
    refused(raw, "report.goal: missing; expected max or min", "mean_score has no default direction")
    refused({**raw, "report": {**raw["report"], "goal": "up"}}, "report.goal: expected max or min", "got 'up'")
    load_config({**raw, "report": {**raw["report"], "goal": "min"}})


def test_a_list_of_players_at_the_top_is_named_as_written():
    raw = {**SEN, "game": "senshi", "players": [2, 5], "lineup": {"focus": "greedy", "field": "greedy"}}
    refused(raw, "players: senshi is for 2-4 players, got 5")
    with pytest.raises(SenseiError) as info:
        load_config(raw)
    assert "sweep.players" not in str(info.value)
    refused({**raw, "players": [2, "x"]}, "<config>: players: expected an integer")
    refused({**raw, "players": [2, 3], "sweep": {"v": {"a": {"players": 2}, "b": {"players": 3}}}},
            "sweep.v: expected no setting of 'players', which players (at the top) sets already", "got [2, 3]")
    # in [sweep] it is the sweep's key
    top = {k: v for k, v in raw.items() if k != "players"}
    refused({**top, "sweep": {"players": [2, 5]}}, "sweep.players: senshi is for 2-4 players, got 5")


def test_values_in_errors_are_spelled_as_toml_spells_them():
    refused({**SEN, "rules": {"penalty": True}}, "penalty: expected an integer, got true")
    refused({**SEN, "sweep": {"rules.penalty": [5, False]}}, "got false")
    refused({**SEN, "games": [True, 3]}, "games: expected an integer", "got [true, 3]")


BASE = {**SEN, "games": 20, "seed": 1, "sweep": {"focus.wake": [8, 10]},
        "report": {"answer": "best", "over": "focus.wake"}}


@pytest.mark.parametrize("rules,sweep,words", [
    ({"penalty": "15"}, None, ["rules: sen.penalty: expected an integer, got '15'", "TOML integer"]),
    ({"penalty": 15.0}, None, ["rules: sen.penalty: expected an integer, got 15.0"]),
    ({"ravens_not_scary": "yes"}, None, ["rules: sen.ravens_not_scary: expected true or false, got 'yes'"]),
    ({}, {"focus.wake": ["8", "10"]}, ["sweep.focus.wake: strategy threshold.wake: expected an integer, got '8'"]),
    ({}, {"focus.wake": [8, 10], "rules.penalty": [5, "15"]}, ["sweep.rules.penalty", "expected an integer, got '15'"]),
    ({}, {"focus.wake": [8, 10], "rules.ravens_not_scary": [False, "true"]}, ["expected true or false, got 'true'"]),
])
def test_a_config_value_has_its_toml_type(rules, sweep, words):
    refused({**BASE, "rules": rules, "sweep": sweep or BASE["sweep"]}, *words)


def test_values_of_their_toml_type_and_command_line_strings_are_taken():
    from simcore.registry import get_game
    from strategies.registry import resolve
    cfg = load_config({**BASE, "rules": {"penalty": 15, "ravens_not_scary": True, "rounds": "none"}})
    assert cfg.cells[0].rules.penalty == 15
    load_config({**BASE, "lineup": {"focus": "counter", "field": "threshold"}, "sweep": {"focus.wake": [8, 9.5]}})
    # the command line's KEY=VALUE strings and spec strings are parsed as before
    assert get_game("sen").make_rules({"penalty": "15", "ravens_not_scary": "yes"}).penalty == 15
    assert resolve("sen", "threshold:wake=8").wake == 8


@pytest.mark.parametrize("patch,where,pair", [
    ({"game": "sen", "lineup": {"focus": "counter", "field": "threshold"}, "sweep": {"focus.wake": [8, 8.0]}},
     "sweep.focus.wake", "8 and 8.0"),
    ({"sweep": {"focus.wake": [8, 10], "rules.rounds": ["none", "None"]}}, "sweep.rules.rounds", '"none" and "None"'),
    ({"game": "sensu", "lineup": {"focus": "planner", "field": "random"}, "sweep": {"rules.power_copies": ["AB", "BA"]},
      "report": {"answer": "best", "over": "rules.power_copies"}}, "sweep.rules.power_copies", '"AB" and "BA"'),
    ({"game": "fan-and-mallet", "lineup": {"focus": "closer", "field": "random"},
      "sweep": {"rules.start_positions": ["0,6", "0, 6"]}, "report": {"answer": "best", "over": "rules.start_positions"}},
     "sweep.rules.start_positions", '"0,6" and "0, 6"'),
    ({"sweep": {"focus": ["threshold:wake=10", "threshold"]}, "report": {"answer": "best", "over": "focus"}},
     "sweep.focus", '"threshold:wake=10" and "threshold"'),
    ({"sweep": {}, "lineup": {"tournament": ["threshold", "threshold:wake=10"]}, "report": {"answer": "ratings"}},
     "lineup.tournament", '"threshold" and "threshold:wake=10"'),
    ({"sweep": {}, "lineup": {"population": ["threshold", "threshold:wake=10", "counter"]},
      "report": {"answer": "equilibrium"}}, "lineup.population", '"threshold" and "threshold:wake=10"'),
    ({"sweep": {"focus.wake": [8, 10], "v": {"a": {"rules.penalty": 15, "rules.rounds": 3},
                                             "b": {"rules.rounds": 3, "rules.penalty": 15}}}},
     "sweep.v", '"a" and "b"'),
    ({"sweep": {"focus.wake": [8, 10], "v": {"plain": {}, "also_plain": {}}}}, "sweep.v", '"plain" and "also_plain"'),
    # -0.0 is 0.0 (a float parameter), in a sweep and in specs
    ({"game": "sen", "lineup": {"focus": "counter", "field": "threshold"}, "sweep": {"focus.wake": [0.0, -0.0]}},
     "sweep.focus.wake", "0.0 and -0.0"),
    ({"sweep": {}, "lineup": {"tournament": ["counter:wake=0.0", "counter:wake=-0.0"]}, "report": {"answer": "ratings"}},
     "lineup.tournament", '"counter:wake=0.0" and "counter:wake=-0.0"'),
])
def test_values_that_mean_one_setting_are_not_distinct(patch, where, pair):
    refused({**BASE, **patch}, f"{where}: expected distinct", f"{pair} are the same setting")


@pytest.mark.parametrize("lineup,sweep,words", [
    ({"focus": "threshold:wake=8", "field": "threshold"}, {"focus.wake": [8, 10]},
     ["sweep.focus.wake: expected no setting of focus.wake, which lineup.focus ('threshold:wake=8') sets already"]),
    ({"focus": "threshold", "field": "threshold:wake=8"}, {"field.wake": [8, 10], "focus.wake": [8, 10]},
     ["sweep.field.wake: expected no setting of field.wake, which lineup.field"]),
    ({"focus": "threshold", "field": "threshold"}, {"focus.wake": [8, 10], "strategy.wake": [6, 12]},
     ["sweep.strategy.wake: expected no setting of strategy.wake (every seat), which sweep.focus.wake sets already"]),
    ({"focus": "threshold", "field": "threshold:wake=8"}, {"focus.wake": [8, 10], "strategy.wake": [6, 12]},
     ["sweep.strategy.wake: expected no setting of strategy.wake"]),
    ({"focus": "threshold", "field": "threshold:wake=8"}, {"strategy.wake": [6, 12]},
     ["sweep.strategy.wake", "which lineup.field ('threshold:wake=8') sets already"]),
    ({"focus": "threshold", "field": "threshold"}, {"focus.wake": [8, 10], "focus": ["threshold:wake=8", "counter"], "_over": "focus"},
     ["sweep.focus.wake: expected no setting of focus.wake, which sweep.focus ('threshold:wake=8') sets already"]),
    ({"focus": "threshold:wake=8", "field": "threshold"}, {"v": {"a": {"focus.wake": 6}, "b": {"focus.wake": 9}}},
     ["sweep.v: expected no setting of focus.wake, which lineup.focus ('threshold:wake=8') sets already"]),
    ({"focus": "threshold", "field": "threshold"}, {"focus.wake": [8, 10], "focus": ["threshold", "counter"]},
     ["sweep.focus: expected no sweep of the whole focus spec with report.over = 'focus.wake'", "compare nothing"]),
])
def test_a_setting_comes_from_one_place(lineup, sweep, words):
    sweep = dict(sweep)
    over = sweep.pop("_over", "focus.wake" if "focus.wake" in sweep else next(iter(sweep)))
    refused({**BASE, "lineup": lineup, "sweep": sweep, "report": {"answer": "best", "over": over}}, *words)


def test_one_place_still_allows_what_sets_each_parameter_once():
    load_config({**BASE, "lineup": {"focus": "threshold", "field": "threshold:wake=8"}})
    load_config({**BASE, "sweep": {"strategy.wake": [6, 12]}, "report": {"answer": "best", "over": "strategy.wake",
                                                                        "metric": "mean_score", "goal": "max"}})
    # a spec's value is the default of the named cases that set it in some cases only
    cfg = load_config({**BASE, "lineup": {"focus": "threshold:wake=8", "field": "threshold"},
                       "sweep": {"v": {"a": {"focus.wake": 6}, "b": {}}}, "report": {"answer": "best", "over": "v"}})
    assert [c.agents[0].wake for c in cfg.cells] == [6, 8]
    cfg = load_config({**BASE, "sweep": {"focus.wake": [8, 10], "focus": ["threshold", "counter"]},
                       "report": {"answer": "best", "over": "focus"}})
    assert len(cfg.cells) == 4


def test_a_sequential_test_of_the_focus_against_itself_is_refused():
    raw = {**BASE, "sweep": {}, "report": {"answer": "sprt"}, "sprt": {"h0": 0.0, "h1": 0.05}}
    refused(raw, "sprt: expected a focus that differs from the field", "fair share by symmetry")
    refused({**raw, "sweep": {"focus.wake": [8, 10]}}, "in the cell focus.wake = 10, the focus is the field")
    load_config({**raw, "lineup": {"focus": "threshold:wake=8", "field": "threshold"}})
    # unrotated, the test asks about the first seat's advantage
    load_config({**raw, "lineup": {"focus": "threshold", "field": "threshold", "rotate": False}})


def test_a_case_name_holds_no_control_character():
    raw = {**BASE, "sweep": {"variant": {"x\ny": {"rules.penalty": 5}, "b": {}}},
           "lineup": {"focus": "threshold:wake=8", "field": "threshold"}, "report": {"answer": "best", "over": "variant"}}
    refused(raw, "sweep.variant: expected case names without control characters", "'x\\ny'")
    load_config({**raw, "sweep": {"variant": {"x y": {"rules.penalty": 15}, "b": {}}}})


EQ = {**SEN, "games": 20, "seed": 1, "search": {"focus.wake": {"min": 4, "max": 16, "step": 4}},
      "report": {"answer": "equilibrium"}}


def test_an_equilibrium_without_a_start_says_the_field_is_not_on_the_grid_after_the_other_mistakes():
    refused(EQ, "search.start: missing; expected a start value on the family's grid (the field threshold:wake=10 is "
            "not a setting of it)")
    refused({**EQ, "search": {**EQ["search"], "start": []}}, "got []")
    for extra, words in (({"steps": 0}, "search.steps: expected an integer >= 1"),
                         ({"meta": [7]}, "search.meta: expected player counts of the grid"),
                         ({"solvers": ["nope"]}, "search.solvers: expected a non-empty list")):
        refused({**EQ, "search": {**EQ["search"], **extra}}, words)
    load_config({**EQ, "search": {**EQ["search"], "start": [4, 8]}})
    refused({**EQ, "search": {**EQ["search"], "start": [4.0]}},
            "search.start[0]: strategy threshold.wake: expected an integer, got 4.0")


@pytest.mark.parametrize("search,report,words", [
    ({"focus.wake": {"min": 4, "max": 16, "step": 4}, "start": [4, 4]}, {"answer": "equilibrium"},
     ["search.start: expected distinct start values (4 and 4 are the same setting)"]),
    ({"focus.wake": [8, 8.0]}, {"answer": "best_response"},
     ["search.focus.wake: expected distinct values (8 and 8.0 are the same setting)"]),
    ({"focus.take_margin": ["0.5", 1]}, {"answer": "best_response"},
     ["search.focus.take_margin: strategy counter.take_margin: expected a number, got '0.5'"]),
])
def test_search_values_that_mean_one_setting_are_refused(search, report, words):
    raw = {**SEN, "lineup": {"focus": "counter", "field": "threshold"}, "search": search, "report": report}
    if report["answer"] == "equilibrium":
        raw["lineup"] = SEN["lineup"]
    refused(raw, *words)


def test_a_design_over_start_positions_compares_them_after_parsing():
    raw = {"title": "t", "question": "q", "game": "fan-and-mallet", "players": 2, "games": 20,
           "lineup": {"seats": ["closer"]}, "search": {"rules.start_positions": ["0,6", "0,3", "0, 6"]},
           "report": {"answer": "design", "objective": "seat0_win_share", "target": 0.5}}
    refused(raw, "search.rules.start_positions: expected distinct values (\"0,6\" and \"0, 6\" are the same setting)")
    load_config({**raw, "search": {"rules.start_positions": ["0,6", "0,3"]}})


@pytest.mark.parametrize("objective,target,ok", [("seat0_win_share", 5, False), ("seat0_win_share", 0.5, True),
                                                 ("seat_advantage", -0.1, True), ("seat_advantage", 2, False),
                                                 ("mean_turns", 40, True)])
def test_a_design_target_of_a_share_lies_in_its_range(objective, target, ok):
    raw = {**SEN, "lineup": {"seats": ["threshold"]}, "search": {"rules.penalty": [5, 15]},
           "report": {"answer": "design", "objective": objective, "target": target}}
    if ok:
        load_config(raw)
    else:
        refused(raw, f"report.target: expected a number from", f"({objective} is a share")
    if objective == "seat0_win_share":
        raw["report"] = {"answer": "design", "objective": objective, "band": [0.4, 1.5]}
        refused(raw, "report.band[1]: expected a number from 0 to 1", "got 1.5")


def test_comparing_swept_specs_loads_no_file(tmp_path):
    code = tmp_path / "mine.py"
    ran = tmp_path / "ran"
    code.write_text(f"open({str(ran)!r}, 'w').write('x')\n")
    raw = {**BASE, "sweep": {"focus": [f"{code}:X", "threshold"]}, "report": {"answer": "best", "over": "focus"}}
    refused(raw, "sweep.focus: expected a registered strategy", "never load a Python file")
    assert not ran.exists()


@pytest.mark.parametrize("raw,words", [
    ({**SEN, "rules": {"rounds": 2}, "sweep": {"rules.target": [50, 100]}},
     ["rules.target = 50 and rules.target = 100 play the same games", "target has no effect with rounds set"]),
    ({**SEN, "sweep": {"v": {"explicit": {"rules.penalty": 5}, "base": {}}}, "report": {"over": "v"}},
     ['v = "explicit" and v = "base" play the same games']),
    ({**SEN, "game": "sensu", "lineup": {"seats": ["random"]}, "sweep": {"rules.power_copies": ["C", "AB"]},
      "report": {"answer": "summary"}},
     ["power_copies has no effect without powers = true"]),
    ({**SEN, "game": "sensu", "players": 3, "rules": {"powers": True}, "lineup": {"seats": ["random"]},
      "sweep": {"rules.power_copies": ["A", "AB"]}, "report": {"answer": "summary"}},
     ['power_copies "A" and "AB" are the same setting with 3 players']),
    ({**SEN, "game": "sensu", "lineup": {"seats": ["random"]}, "sweep": {"rules.sticks": ["A", "4,4,4,3,3,3,2,2,1"]},
      "report": {"answer": "summary"}},
     ['rules.sticks = "A" and rules.sticks = "4,4,4,3,3,3,2,2,1" play the same games',
      '(sticks "A" and "4,4,4,3,3,3,2,2,1" are the same setting)']),
])
def test_cells_that_play_the_same_games_are_refused(raw, words):
    """Settings that differ only where nothing changes (Sen's target with rounds set, Sensu's power copies
    without the powers variant or copy B with 2-3 players, a named case that sets a default, a sticks table
    by name and by its values) would compare a setting with itself, reading as "no effect"."""
    refused(raw, *words)


def test_settings_that_play_different_games_stay_allowed():
    load_config({**SEN, "game": "sensu", "players": 4, "rules": {"powers": True}, "lineup": {"seats": ["random"]},
                 "sweep": {"rules.power_copies": ["A", "AB"]}, "report": {"answer": "summary"}})
    load_config({**SEN, "sweep": {"rules.target": [50, 100]}, "report": {"answer": "summary"}})


def test_a_parameter_out_of_range_names_its_own_sweep_key():
    raw = {**SEN, "game": "fan-and-mallet", "lineup": {"focus": "keeper", "field": "counter"},
           "sweep": {"focus.min_bonus": [1, 8], "focus.hold": [0.5, 1.0]}, "report": {"over": "focus.min_bonus"}}
    refused(raw, "sweep.focus.min_bonus: strategy keeper.min_bonus: must be at most 5, got 8")


def test_a_seats_lineup_with_a_sweep_answers_summary_by_default():
    """A seats lineup's best could only compare game length: over a sweep it gives every cell's figures
    unless asked; asked for best without a metric, the line says which metric it took."""
    raw = {**SEN, "lineup": {"seats": ["threshold", "gambler"]}, "sweep": {"rules.penalty": [5, 15]}}
    assert load_config(raw).report.answer == "summary"
    refused({**raw, "report": {"answer": "best"}}, "report.metric: expected mean_turns for a seats lineup",
            "as none is given here (the default, win_share, is a focus's)")


def test_a_solo_sweep_of_a_parameter_solo_play_ignores_is_refused():
    raw = {**SEN, "game": "sensu", "players": 1, "lineup": {"seats": ["planner"]},
           "sweep": {"seat0.play_min": [0.0, 8.0]}, "report": {"answer": "summary"}}
    refused(raw, "play the same games (play_min has no effect in solo)")
    load_config({**raw, "sweep": {"seat0.close_bonus": [4.0, 8.0]}})
    load_config({**raw, "players": 2, "lineup": {"seats": ["planner", "planner"]},
                 "sweep": {"seat0.play_min": [0.0, 8.0]}})


def test_a_baseline_written_otherwise_is_the_same_setting():
    raw = {**SEN, "game": "fan-and-mallet", "lineup": {"seats": ["counter", "counter"]},
           "sweep": {"rules.start_positions": ["0,6", "0,3"]},
           "report": {"answer": "effect", "over": "rules.start_positions", "baseline": "0, 6"}}
    assert load_config(raw).report.baseline == "0,6"
    refused({**raw, "report": {**raw["report"], "baseline": "0,5"}}, "report.baseline: expected one of the values")


def test_a_sweep_of_the_whole_focus_needs_no_lineup_focus():
    cfg = load_config({**SEN, "lineup": {"field": "threshold"}, "sweep": {"focus": ["gambler", "counter"]}})
    assert [c.agents[0].name for c in cfg.cells] == ["gambler", "counter"] and cfg.kind == "focus"
    refused({**SEN, "lineup": {"field": "threshold"}}, "lineup: expected exactly one of focus (with field)")


@pytest.mark.parametrize("raw,words", [
    ({**SEN, "players": 3, "lineup": {"focus": "counter", "field": "threshold"}, "sweep": {"focus.claim_gain": [1.0, 3.0]}},
     ["claim_gain has no effect without know_what_i_have = true"]),
    ({**SEN, "lineup": {"seats": ["counter", "watcher"]},
      "sweep": {"p": {"a": {"seat0": "counter", "seat1": "watcher"}, "b": {"seat0": "watcher", "seat1": "counter"}}},
      "report": {"answer": "summary"}},
     ["rotated, a seats lineup and its cyclic shifts play the same games"]),
    ({**SEN, "lineup": {"focus": "ismcts:iterations=2,searched=all", "field": "threshold"},
      "sweep": {"focus.others": ["random", "threshold"]}},
     ["others has no effect with searched = all"]),
])
def test_strategies_that_play_alike_there_are_refused(raw, words):
    refused(raw, "play the same games", *words)


def test_strategies_that_play_differently_there_stay_allowed():
    load_config({**SEN, "players": 3, "rules": {"know_what_i_have": True},
                 "lineup": {"focus": "counter", "field": "threshold"}, "sweep": {"focus.claim_gain": [1.0, 3.0]}})
    load_config({**SEN, "lineup": {"seats": ["counter", "watcher"], "rotate": False},
                 "sweep": {"p": {"a": {"seat0": "counter", "seat1": "watcher"},
                                 "b": {"seat0": "watcher", "seat1": "counter"}}}, "report": {"answer": "summary"}})


def test_solo_planner_and_redeemer_play_alike():
    raw = {**SEN, "game": "sensu", "players": 1, "lineup": {"seats": ["planner"]},
           "sweep": {"seat0": ["planner", "redeemer"]}, "report": {"answer": "summary"}}
    refused(raw, "planner and redeemer play alike with 1 player")
    load_config({**raw, "sweep": {"seat0": ["planner", "focus"]}})
    load_config({**raw, "sweep": {"seat0": ["planner", "redeemer:close_bonus=4.0"]}})


@pytest.mark.parametrize("key,value", [("title", "a\x00t"), ("question", "why\x1b[31m?"), ("title", "a\x7fb")])
def test_text_with_control_characters_is_refused(key, value):
    # written raw into the answer, the report's page and the terminal
    refused({**SEN, key: value}, f"{key}: expected text without control characters", repr(value))
    load_config({**SEN, "question": "a question\n\tover two lines"})  # a newline or a tab is text
    # as are the spaces, joiners and marks of ordinary text in other languages and emoji
    load_config({**SEN, "title": "Sen\u202f: quelle stratégie\u202f?", "question": "a\u00a0b 👨\u200d👩\u200d👧 r\u200fl"})


@pytest.mark.parametrize("text", ["٥", "５", "1_0", "1 0", "0x10", ""])
def test_a_number_written_as_text_takes_ascii_digits_only(text):
    from simcore.options import parse_scalar
    with pytest.raises(SenseiError, match="penalty: expected an integer"):
        parse_scalar("penalty", int, text)
    with pytest.raises(SenseiError, match="p: expected a number"):
        parse_scalar("p", float, text.replace("0x10", "1e5x"))
    assert parse_scalar("penalty", int, " +15 ") == 15 and parse_scalar("p", float, ".5e-1") == 0.05
    assert parse_scalar("p", float, "-2.") == -2.0 and parse_scalar("p", float, "3") == 3.0


def test_an_empty_value_is_not_taken_for_none():
    # `--rule rounds=` read as rounds=none; none is written out
    from simcore.options import field_value
    from simcore.registry import get_game
    rules = get_game("sen").Rules
    with pytest.raises(SenseiError, match="rounds: expected none or an integer, got ''"):
        field_value(rules, "rounds", "", "sen")
    assert field_value(rules, "rounds", "none", "sen") is None and field_value(rules, "rounds", "3", "sen") == 3


def test_a_config_with_a_byte_order_mark_runs_and_reports(tmp_path):
    """Some editors start a file with a byte-order mark: it is no part of the TOML (it read "not valid TOML:
    Invalid statement (at line 1, column 1)"), and the run folder's copy, which the report checks, has none."""
    import os

    from experiments.experiment import run_experiment
    from reports import build_report

    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + b'title = "t"\nquestion = "q"\ngame = "sen"\nplayers = 2\ngames = 10\nseed = 1\n'
                     b'[lineup]\nseats = ["threshold"]\n')
    res = run_experiment(str(path), out=str(tmp_path / "runs"))
    run_dir = res.run_dir
    assert open(os.path.join(run_dir, "config.toml"), "rb").read().startswith(b'title = "t"')
    assert os.path.isfile(build_report(run_dir, index=False))


@pytest.mark.parametrize("where, value, words", [
    ("sweep", {"variant": {1: {}}}, "sweep.variant: expected case names that are text, got 1"),
    ("sweep", {"variant": {"a": {}, "b": {3: 1}}}, "sweep.variant.b: expected a table whose keys are text, got 'the key 3'"),
    ("search", {1.5: [1]}, "search: expected a table whose keys are text, got 'the key 1.5'"),
    ("rules", {1: 2}, "rules: expected a table whose keys are text, got 'the key 1'"),
    ("sweep", {None: [1, 2]}, "sweep: expected a table whose keys are text, got 'the key None'"),
])
def test_a_config_dict_with_keys_that_are_not_text_is_one_line(where, value, words):
    # (the Python API: a dict's keys may be anything; deep in the config they raised AttributeError)
    raw = {**SEN, where: value}
    if where == "search":
        raw["report"] = {"answer": "best_response"}
    refused(raw, words)


def test_case_names_with_spaces_at_either_end_are_refused():
    # "a" and "a " were both accepted: "best variant: a , ... next a: -13.3%"
    raw = {**SEN, "sweep": {"variant": {"a": {}, "a ": {"rules.penalty": 15}}}}
    refused(raw, "sweep.variant: expected case names without spaces at either end", "got 'a '")


def test_best_win_share_over_self_play_only_is_refused():
    # strategy.P sets every seat: "best wake: 6, win share 50.0% (the fair share by symmetry ...; next 10: +0.0%"
    raw = {**SEN, "sweep": {"strategy.wake": [6, 10, 14]}, "report": {"answer": "best", "over": "strategy.wake"}}
    refused(raw, "report.metric: expected a focus that differs from the field in some cell for win_share",
            "every cell is self-play")
    load_config({**raw, "report": {**raw["report"], "metric": "mean_score", "goal": "max"}})
    load_config({**raw, "sweep": {"focus.wake": [6, 10, 14]}, "report": {"answer": "best", "over": "focus.wake"}})


def test_a_grid_of_floats_for_an_integer_parameter_is_refused_as_a_list_of_them_is():
    # {min = 4.0, max = 16.0, step = 4.0} played wake=16.0 (race.parquet's focus.wake Float64)
    raw = {**SEN, "search": {"focus.wake": {"min": 4.0, "max": 16.0, "step": 4.0}},
           "report": {"answer": "best_response"}}
    refused(raw, "search.focus.wake: strategy threshold.wake: expected an integer, got 4.0")
    refused({**raw, "search": {"focus.wake": [4.0, 8.0]}}, "expected an integer, got 4.0")
    load_config({**raw, "search": {"focus.wake": {"min": 4, "max": 16, "step": 4}}})


def test_impossible_or_ignored_search_and_test_settings_are_refused():
    # an SPRT hypothesis beyond what a win share allows (h1 = 0.6 with 2 players: 110%) was tested
    raw = {**SEN, "lineup": {"focus": "threshold:wake=8", "field": "threshold"}, "report": {"answer": "sprt"},
           "sprt": {"h0": 0.0, "h1": 0.6}}
    refused(raw, "sprt.h1: expected at most 0.5 with 2 players")
    refused({**raw, "sprt": {"h0": -0.6, "h1": 0.1}}, "sprt.h0: expected at least -0.5 with 2 players")
    # the same solver twice printed its sentence twice; solvers without a meta-game were ignored
    eq = {**SEN, "search": {"focus.wake": [6, 10, 14], "start": [10], "meta": True, "solvers": ["nash", "nash"]},
          "report": {"answer": "equilibrium"}}
    refused(eq, "search.solvers: expected distinct solvers")
    refused({**eq, "search": {**eq["search"], "meta": False, "solvers": ["nash"]}},
            "search.solvers: expected nothing without a meta-game")
    refused({**eq, "search": {"focus.wake": [6, 10, 14], "start": [10], "bootstrap": 50}},
            "search.bootstrap: expected nothing without a meta-game")
    # a game length cannot be negative
    de = {**SEN, "search": {"rules.penalty": [5, 15]},
          "report": {"answer": "design", "objective": "mean_turns", "target": -5}}
    refused(de, "report.target: expected a number of at least 0 (mean_turns is a number of turns), got -5")


def test_mistakes_are_told_at_the_key_that_made_them():
    # strategy.P sets every seat: a seat's strategy without that parameter named lineup.field
    raw = {**SEN, "lineup": {"focus": "threshold", "field": "gambler"}, "sweep": {"strategy.wake": [6, 10]},
           "report": {"answer": "summary"}}
    refused(raw, "sweep.strategy.wake: unknown parameter 'wake' for strategy gambler")
    # a design's start is one value: [4] read "expected a setting of the family's grid", and 4 is on it
    de = {**SEN, "players": 4, "search": {"rules.penalty": [5, 15], "focus.wake": [4, 10, 16], "start": [4]},
          "report": {"answer": "design", "objective": "equilibrium_stakes", "goal": "max"}}
    refused(de, "search.start: expected one start value, not a list (start = 4, or a table")
    # an event on a game without one: the event is at fault, not the answer (equilibrium needs none)
    eq = {**SEN, "search": {"focus.wake": [6, 10, 14], "start": [10]},
          "report": {"answer": "equilibrium", "event": "eliminated"}}
    refused(eq, "report.event: sen has no per-seat 0/1 outcome column", "leave report.event out")


def test_a_missing_lineup_does_not_hide_a_mistyped_game_or_bad_values():
    """The lineup is required, but the game and the values before it are checked first: a config of game
    "senn" without a lineup said only that the lineup was missing, and the user found the next error after."""
    base = {"title": "t", "question": "q", "game": "sen"}
    refused({**base, "game": "senn"}, "game: unknown game 'senn'")
    refused({**base, "games": -3}, "games")
    refused({**base, "players": "x"}, "players")
    refused({**base, "rules": {"penalty": "high"}}, "rules: sen.penalty: expected an integer")
    refused(base, "lineup: missing (a required key)")


@pytest.mark.parametrize("answer", ["effect", "calibration"])
def test_an_answer_over_deals_needs_two_deals(answer):
    """With one deal per cell every interval and paired difference of effect and calibration read "± nan"
    ("+40.0 turns [+nan, +nan]") and a verdict was drawn from one: refused, in the config or by --games."""
    from experiments.answers.common import turns_pm
    from experiments.config import load
    if answer == "effect":
        raw = {**SEN, "games": 1, "sweep": {"rules.penalty": [5, 15]},
               "report": {"answer": "effect", "over": "rules.penalty", "baseline": 5}}
    else:
        raw = {"title": "t", "question": "q", "game": "sensu", "players": 1, "games": 1,
               "lineup": {"seats": ["planner"]}, "sweep": {"rules.sticks": ["A", "B"]},
               "report": {"answer": "calibration", "over": "rules.sticks", "score_band": [25, 35],
                          "top_share": [0.01, 0.1], "per_game": True}}
    refused(raw, f"games: expected at least 2 deals per cell for answer = '{answer}'", "got 1")
    load_config({**raw, "games": 2})
    with pytest.raises(SenseiError, match="<config>: the games argument: expected at least 2 deals"):
        load({**raw, "games": 5}, 1)
    with pytest.raises(SenseiError, match="<config>: the games argument: expected an integer from 1"):
        load({**raw, "games": 5}, 0)
    assert turns_pm(36.0, float("nan"), float("nan")) == "36.0 turns"  # no interval: the value alone


def test_a_grid_too_large_is_refused_from_its_lengths_and_a_config_file_too_large_by_its_size(tmp_path):
    """A million wakes took 36 s and 850 MB to be refused as a grid too large: the grid is now refused from the
    axes' lengths before any value is read, and a config file larger than 4 MiB (which no grid of 10,000
    cells needs) before it is parsed."""
    from experiments.config import CONFIG_LIMIT, load
    raw = {**SEN, "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
           "sweep": {"focus.wake": list(range(-1, 200_000))}}
    refused(raw, "sweep: expected a grid of at most 10,000 cells", "got 200,001 cells")
    # the lengths alone: a value that would be refused on its own is not read first
    refused({**raw, "sweep": {"focus.wake": ["x"] * 20_001}}, "got 20,001 cells")
    path = tmp_path / "big.toml"
    path.write_text('title = "t"\n' + "# " + "x" * CONFIG_LIMIT + "\n")
    with pytest.raises(SenseiError, match=r"big.toml: is [\d,]+ bytes, more than the 4,194,304"):
        load(str(path))


def test_the_early_grid_check_counts_the_players_at_the_top():
    """players = [2, 3, 4, 5] at the top is an axis too: 2,501 wakes make 10,004 cells, refused from the lengths
    before a wake is read (here each would be refused on its own)."""
    raw = {**SEN, "players": [2, 3, 4, 5], "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
           "sweep": {"focus.wake": ["x"] * 2501}}
    refused(raw, "sweep: expected a grid of at most 10,000 cells", "got 10,004 cells")


def test_a_solo_score_question_is_sent_where_it_can_be_answered():
    """best with a solo seats lineup and metric = "mean_score" said to use a focus lineup, which a solo game
    refuses: it now names the answers that give a solo score."""
    raw = {"title": "t", "question": "q", "game": "sensu", "players": 1, "games": 10, "lineup": {"seats": ["focus"]},
           "sweep": {"seat0.off_weight": [0.0, 0.5]},
           "report": {"answer": "best", "over": "seat0.off_weight", "metric": "mean_score", "goal": "max"}}
    refused(raw, "report.metric: expected mean_turns for a solo game", 'answer = "summary" gives each setting\'s solo '
            "mean score")


def test_calibration_compares_values_of_a_rule_option_each_with_solo_cells():
    """calibration judges each value of report.over by its solo cells: over players read "players 1 makes the
    level scale plausible" and labelled the 2-player line's figures by player count; a value with no solo
    cell (a named case that sets players) has nothing to judge."""
    raw = {"title": "t", "question": "q", "game": "sensu", "games": 10, "players": [1, 2], "lineup": {"seats": ["planner"]},
           "report": {"answer": "calibration", "over": "players", "score_band": [25, 35], "top_share": [0.01, 0.1]}}
    refused(raw, "report.over: expected a sweep axis other than players for answer = 'calibration'", "solo cells")
    raw = {"title": "t", "question": "q", "game": "sensu", "games": 10, "players": 1, "lineup": {"seats": ["planner"]},
           "sweep": {"rules.sticks": ["A", "B"], "setup": {"solo": {"seat0": "focus"}, "two": {"players": 2}}},
           "report": {"answer": "calibration", "over": "setup", "score_band": [25, 35], "top_share": [0.01, 0.1]}}
    refused(raw, "sweep.setup: expected a solo cell (players = 1) for every value of report.over", "none for 'two'")
    raw["report"]["over"] = "rules.sticks"
    assert load_config(raw).report.over == "rules.sticks"


def test_the_answer_names_the_rules_that_the_config_fixes():
    """The labels of a best answer's cells and groups name what is swept only: a config's [rules] settings
    (penalty = 15 here) were said nowhere in the answer. A setting that a swept case overrides says so."""
    from experiments import run_experiment
    raw = {**SEN, "games": 4, "rules": {"penalty": 15, "caller_tie": "count"},
           "sweep": {"focus.wake": [8, 12], "variant": {"a": {"rules.penalty": 5}, "b": {}}},
           "report": {"answer": "best", "over": "focus.wake"}}
    res = run_experiment(raw)
    assert res.answer[-1] == ("Rules fixed by the config's [rules] for every cell, which the labels above leave "
                              "out: penalty = 15 (except where a swept case sets its own), caller_tie = 'count'.")
    assert sum("[rules]" in a for a in res.answer) == 1
    raw = {**SEN, "games": 4, "rules": {"penalty": 15}, "sweep": {"focus.wake": [8, 12]},
           "report": {"answer": "best", "over": "focus.wake"}}
    assert run_experiment(raw).answer[-1].endswith("leave out: penalty = 15.")
    raw.pop("rules")
    assert not any("[rules]" in a for a in run_experiment(raw).answer)

